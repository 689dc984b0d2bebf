//! The left-right mirror, where it is a symmetry of the game.
//!
//! A position may be mirrored (files reversed, everything else kept) when the rules commute
//! with the mirror from there on:
//!
//! - every piece on the board, and every type it can become by promotion, moves left-right
//!   symmetrically: its Betza geometry is closed under `dx -> -dx` and so are the geometry
//!   parameters of its powers (multi-leg components count as asymmetric);
//! - there are no castling rights (the king and rook files do not mirror);
//! - the setup phase is over (placement choices need not be symmetric).
//!
//! Promotion zones and initial-move regions are whole ranks, so they mirror onto themselves;
//! nothing else in the rules depends on files. The trainer augments data with it, the designer
//! tools merge mirror-image initial arrays with it.

pub use crate::spec::mirror::{betza_symmetric, power_symmetric};
use crate::{
    notation::PositionError,
    position::{EnPassant, Position},
    types::{Color, Piece, Square},
};

impl Position {
    /// Whether the left-right mirror of this position is a position of the same game, with the
    /// mirrored moves and the same value (see the module documentation).
    pub fn mirror_safe(&self) -> bool {
        let safe = &self.variant().mirror_safe;
        // With a Doubler on the board, doubled turns that share one effect are one move whose
        // representative is chosen by square order (jupiter.md §9.2), which the mirror does not
        // keep: the mirrored moves would not be the mirrored position's moves.
        let doubler = self.variant().turn.doublers.iter().any(|&t| {
            self.piece_counts()[Piece::new(t, Color::Blue).index()]
                + self.piece_counts()[Piece::new(t, Color::Tan).index()]
                > 0
        });
        self.castling_rights() == 0
            && !self.in_setup()
            && !doubler
            && self.board().iter().flatten().all(|p| safe[p.kind().index()])
    }

    /// The left-right mirror image (files reversed), without history; `None` unless
    /// [`Position::mirror_safe`].
    pub fn mirrored(&self) -> Option<Result<Position, PositionError>> {
        if !self.mirror_safe() {
            return None;
        }
        let d = self.variant().dims;
        let flip = |sq: Square| if sq.is_none() { sq } else { d.mirror(sq) };
        let ep = self.en_passant().map(|ep| EnPassant { squares: ep.squares.map(flip), victim: flip(ep.victim) });
        Some(self.rebuilt(|sq| self.piece_at(d.mirror(sq)), 0, ep))
    }
}
