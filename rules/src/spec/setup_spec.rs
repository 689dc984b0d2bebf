//! Setup phases as moves: the players choose the initial array ply by ply, so that self-play
//! can learn the choice (Scirocco §2.5, Typhoon §2.5, Jupiter §2.4).
//!
//! Each setup ply places one exchangeable pair on its two squares in either order. Plies that
//! `copy` also place the opponent's pair by the board symmetry, which is fixed by the royal
//! pieces placed earlier: royals on the same file give mirror symmetry (reflection across the
//! middle rank line), royals on different files give 180° rotation.

use serde::{Deserialize, Serialize};

use crate::types::Color;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Blue,
    Tan,
}

impl From<Side> for Color {
    fn from(s: Side) -> Color {
        match s {
            Side::Blue => Color::Blue,
            Side::Tan => Color::Tan,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetupPlySpec {
    /// Who chooses.
    pub actor: Side,
    /// Whose pieces are placed.
    pub owner: Side,
    /// The pair's left and right squares.
    pub squares: [String; 2],
    /// The two members (tokens; `-` for an empty square). A setup move names the one placed on
    /// the left square.
    pub pieces: [String; 2],
    /// Also place the opponent's copy of the pair by the symmetry fixed so far.
    #[serde(default)]
    pub copy: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetupSpec {
    /// The board before the first setup ply: the fixed part of the array.
    pub fixed: String,
    /// The royal type whose files decide the symmetry of copied plies.
    pub symmetry_royal: String,
    #[serde(rename = "ply")]
    pub plies: Vec<SetupPlySpec>,
    /// Bits of the compact `setup:<hex>` mask that no ply reads (Jupiter's fixed Regal pair,
    /// bit 7): ply i reads the i-th bit not listed here, and every bit no ply reads must be 0.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mask_skip_bits: Vec<u8>,
}

/// `[start_generator]`: the start array drawn by chance, one array per seed (Randomized Chess,
/// ICS wild 2-4). The variant's `start` is the template: its first rank (White's men) and last
/// rank (Black's) are redrawn, everything else (pawns, side to move, counters) is kept, and the
/// generated position string is an ordinary one, so that records, replays and every command
/// downstream read it like any other start. Generated arrays keep the template's castling
/// rights only where castling is given move by move (ICS wild 1: rooks `fixed` in the corners,
/// the king's `files` d and e, each listed); otherwise the template must have none. See
/// `crate::variant::start_generator`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartGeneratorSpec {
    /// Where White's men come from.
    pub material: GeneratedMaterial,
    /// With `material = "draw"`: the tokens each non-royal square is drawn from, uniformly.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub draw: Vec<String>,
    /// How Black's rank relates to White's.
    pub black: BlackArray,
    /// Tokens whose men each side spreads over both square colours as evenly as possible (two
    /// bishops: one on a light and one on a dark square).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub opposite_colours: Vec<String>,
    /// Tokens whose men stand on light squares as often for Black as for White (ICS wild 4's
    /// "bishops balanced"; with the same material, on dark squares too).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub balanced_colours: Vec<String>,
    /// With `material = "shuffle"`: tokens whose men stay on their template squares (ICS wild
    /// 1's rooks in the corners).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fixed: Vec<String>,
    /// Token -> the file letters its men may stand on (ICS wild 1: `{ K = "de" }`).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub files: std::collections::BTreeMap<String, String>,
}

/// Where a generated array's men come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GeneratedMaterial {
    /// The template's own first rank, shuffled (the same men, other files).
    Shuffle,
    /// The template's royal man on a random file, every other square of the rank a man drawn
    /// from `draw` (ICS wild 3 and 4: random piece types, one king each).
    Draw,
}

/// How Black's array relates to White's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlackArray {
    /// Black's men stand on the same files as White's (the orthodox relation: e1 and e8).
    Mirror,
    /// Black's men (the same set as White's) are placed by a draw of their own.
    Independent,
}
