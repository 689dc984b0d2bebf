//! `[drops]`: pieces held in hand and dropped onto the board as a move (issue 21: Pocket Knight
//! Chess, #10; Pre-chess, #35).
//!
//! What each side holds at the start is part of the start position, written as Fairy-Stockfish
//! writes it: a pocket `[...]` right after the board (`RNBQKBNR[Nn] w ...`, upper case Blue's,
//! lower case Tan's). This section says where and when the pieces in hand may be dropped. A drop
//! takes one piece of the side to move out of its hand and puts it on an empty square of the
//! drop region; it uses up the turn. Captured pieces do not go to hand (there is no crazyhouse
//! rule), so a hand only ever shrinks.

use serde::{Deserialize, Serialize};

fn is_false(b: &bool) -> bool {
    !*b
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DropsSpec {
    /// Blue's drop squares, in the syntax of `[[region]]` (square names and rectangles,
    /// `"a1-h1"`); Tan's are the same squares with ranks counted from its side. Absent: every
    /// square of the board. Either way only empty squares take a drop, and a piece that promotes
    /// may not be dropped in its promotion zone (it would stand there unpromoted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub squares: Option<String>,
    /// While the side to move holds any piece it must drop one (Pre-chess's placement phase);
    /// only when no drop is legal may it move a piece on the board (Fairy-Stockfish's
    /// `mustDrop`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub must_drop: bool,
    /// Tokens of the types that each side must spread over both square colours when dropping
    /// them (Pre-chess's bishops, Fairy-Stockfish's `dropOppositeColoredBishop`): such a piece
    /// may not be dropped on the colour of one of its own kind already on the board, and no
    /// other drop may take the last free square of a colour that a piece of that kind still in
    /// hand needs. Empty: no such rule (the switch that turns it off).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub opposite_colours: Vec<String>,
    /// Castling rights come from the drops (Pre-chess, Fairy-Stockfish's
    /// `castlingDroppedPiece`): when a side's castling king is dropped on this file of its first
    /// rank, it gets the right to castle with each of its castling rooks in a corner of that
    /// rank, and a castling rook dropped in such a corner while the king stands on this file
    /// gets its right. Needs `[castling]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub castling_king_file: Option<char>,
}
