//! The neutral token (`[neutral_token]`, issue 21 rows #43 Shadow, #44 Imitator and #45 Salt
//! Shaker Chess): one token that belongs to neither side and repeats the displacement of every
//! move (`crate::movegen::neutral_token` has the rules and rulings).

use serde::{Deserialize, Serialize};

/// How the token travels when it copies a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum TokenPath {
    /// Along the mover's path: when the mover rides (or makes a lame leap), every square the
    /// token passes on its copy of that path must be empty; a leap (a knight's) has no path.
    /// Shadow and Imitator Chess.
    #[default]
    Clear,
    /// Straight to its landing square, whatever stands between (Salt Shaker Chess).
    Jump,
}

/// `[neutral_token]`: where the token starts and how it moves.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NeutralTokenSpec {
    /// The token's square in the start position (`"d4"`); it must be empty there. Position
    /// strings write the token as `*` on its square.
    pub start: String,
    /// Whether the token captures the man it lands on, of either side (Salt Shaker). Without
    /// it, a move whose token would land on any man is illegal (Shadow, Imitator).
    #[serde(default)]
    pub captures: bool,
    /// `clear` (default) or `jump`: see [`TokenPath`].
    #[serde(default)]
    pub path: TokenPath,
}
