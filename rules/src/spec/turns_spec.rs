//! Multi-move turns as a variant file writes them (`[turns]`, issue 21 rows #11-#16): how many
//! moves each turn has and what a check does inside a turn. The variant layer concludes it
//! (`crate::variant::turns`); the position plays each move of a turn as one ply of the same
//! side (`crate::position::multimove`).

use serde::{Deserialize, Serialize};

use crate::spec::setup_spec::Side;

/// What a check given before the last move of a turn does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnCheckRule {
    /// The check ends the turn: the moves left are forfeited (Two Move Chess #11, Scottish
    /// Progressive Chess #14).
    EndsTurn,
    /// Only the turn's last move may give check; an earlier move that would is illegal
    /// (Marseillaise Chess #12).
    LastMoveOnly,
    /// Any move may give check and the turn goes on, so that a later move of the same turn may
    /// capture the royal: a side may not leave its royal where the opponent's whole next turn
    /// could capture it (Monster Chess #15, Two for One #16). With `royal = "capture"` (Double
    /// move chess #13) there is no check at all and this is the only value allowed.
    Any,
}

/// `[turns]`: the turn schedule.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnsSpec {
    /// Moves per turn of Blue (the first player) and Tan: `[2, 2]` for Two Move Chess, `[1, 2]`
    /// for Monster Chess. Leave out with `progressive`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moves: Option<[u8; 2]>,
    /// Moves of Blue's first turn of the game, when it differs from `moves[0]` (Double move
    /// chess: White opens with one move).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first: Option<u8>,
    /// Progressive Chess: the game's n-th turn has n moves (Blue 1, Tan 2, Blue 3, ...).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub progressive: bool,
    /// What a check before the turn's last move does.
    pub check: TurnCheckRule,
    /// Sides whose royal may stand attacked between their moves, as long as it is safe when the
    /// turn ends (Monster Chess: `["tan"]`; Two for One: `["blue"]`). Every other side must
    /// keep its royal safe after each move, as in chess.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub safe_at_end: Vec<Side>,
}
