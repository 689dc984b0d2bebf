//! What a capture does besides removing its victim (issue 21): explosions (`[explosion]`,
//! modern atomic chess and the list's Explosion Chess #17) and rebirth (`[rebirth]`, Circe
//! Chess #29). Both tables are optional; a variant without them captures as chess does. The
//! variant layer checks them against the board and the pieces (`variant::capture_effects`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Whose men a blast removes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlastSide {
    /// Every man on the surrounding squares, of either side (atomic chess).
    Both,
    /// Only the men of the captured man's owner (Explosion Chess, list #17).
    CapturedSide,
}

/// Where a blast is centred.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlastCentre {
    /// On the square where the capturing piece lands (atomic chess: an en-passant capture
    /// explodes on the capturing pawn's arrival square, not on the passed pawn's). A capture
    /// that does not move the capturer (a rifle shot) explodes on each victim's square.
    Landing,
    /// On each captured man's own square (Explosion Chess: "the pieces next to it").
    Victims,
}

/// What a move that blows up one of the mover's own royals is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum OwnRoyalBlast {
    /// Illegal, like a move that leaves the royal in check (atomic chess). With
    /// `capturer_dies`, a royal can then never capture (atomic's "kings cannot capture").
    #[default]
    Illegal,
    /// Legal: the royal is gone, and the game ends as when a royal is lost (the mover loses,
    /// unless the same move took the opponent's last royal too, which the mover wins).
    Allowed,
}

/// What a move that blows up the opponent's last royal is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum EnemyRoyalBlast {
    /// It wins at once, and is legal even if it leaves one of the mover's own royals attacked
    /// (atomic chess: the game is over before the check matters).
    #[default]
    Wins,
    /// It wins, but only if it is legal under the usual check rule (no own royal left
    /// attacked).
    Checked,
}

/// `[explosion]`: every capture sets off a blast on the (up to) eight squares around its
/// centre. The blasted men are removed, not captured: they set off no blast of their own.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExplosionSpec {
    /// Whose men the blast removes: `both` (atomic) or `captured_side` (Explosion Chess).
    pub blast: BlastSide,
    /// Where the blast is centred: `landing` (atomic) or `victims` (Explosion Chess).
    pub centre: BlastCentre,
    /// Tokens of the piece types a blast never removes (atomic: `["P"]`). They are still
    /// captured as usual, and a capturer that dies (`capturer_dies`) dies whatever its type.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub immune: Vec<String>,
    /// The capturing piece is removed too (atomic: it explodes with its victim).
    #[serde(default)]
    pub capturer_dies: bool,
    /// A royal next to an enemy royal is never in check, and a square next to the enemy royal
    /// never counts as attacked for a castling king (atomic: the enemy could capture it only by
    /// blowing up its own royal).
    #[serde(default)]
    pub adjacent_royals_safe: bool,
    /// A move that blows up a royal of the mover's own: `illegal` (default) or `allowed`.
    #[serde(default)]
    pub own_royal_blast: OwnRoyalBlast,
    /// A move that blows up the opponent's last royal: `wins` (default; legal even if it
    /// leaves the mover in check) or `checked` (legal only under the usual check rule).
    #[serde(default)]
    pub enemy_royal_blast: EnemyRoyalBlast,
}

/// Where a captured man of one type is reborn, in the first player's coordinates (the second
/// player's squares are the same files with the ranks counted from its own side). Exactly one
/// of the two fields is given.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RebirthSquares {
    /// Home squares by name (`["a1", "h1"]`): with one, that square; with several, the one of
    /// the capture square's colour (they must differ in colour).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub squares: Vec<String>,
    /// A rank (1-based, from the owner's side): the square of that rank on the capture file
    /// (Circe's pawns: `rank = 2`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<u8>,
}

/// `[rebirth]` (Circe): a captured man is put back on its rebirth square if that square is
/// empty after the capture, and is lost otherwise. A capture whose rebirth leaves the capturing
/// side in check is illegal, like any move that does (royals are never captured).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RebirthSpec {
    /// Per piece token, where a captured man of that type is reborn. A captured man of a type
    /// not listed is lost. A promoted man is reborn as the type it is now.
    pub pieces: BTreeMap<String, RebirthSquares>,
}
