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
