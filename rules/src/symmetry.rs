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
//! A piece whose moves are not symmetric may still be mirrored when the variant has a type
//! that moves as its mirror image (Chushin Shogi's Left General `FvrW` and Right General `FvlW`):
//! the mirror then also swaps the two types, and their promotions with them (+LT and +RT, both
//! Shogun). The variant layer finds these pairs (`variant::mirror`) from the parsed geometries, once per variant
//! (`Variant::mirror_type`); a pair is only formed between types that differ in nothing else
//! (no powers, same flags and value, promotions that pair up the same way, named by no rule).
//!
//! Promotion zones and initial-move regions are whole ranks, so they mirror onto themselves;
//! nothing else in the rules depends on files. The trainer augments data with it, the designer
//! tools merge mirror-image initial arrays with it.

pub use crate::spec::mirror::{betza_mirror_image, betza_symmetric, power_symmetric};
use crate::{
    notation::PositionError,
    position::{EnPassant, Position},
    types::{Color, Piece, Square},
};

impl Position {
    /// Whether the left-right mirror of this position is a position of the same game, with the
    /// mirrored moves and the same value (see the module documentation).
    pub fn mirror_safe(&self) -> bool {
        let image = &self.variant().mirror_type;
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
            && self.board().iter().flatten().all(|p| image[p.kind().index()].is_some())
    }

    /// The left-right mirror image (files reversed, each piece of a mirror pair replaced by its
    /// partner), without history but with the pass flag; `None` unless
    /// [`Position::mirror_safe`].
    pub fn mirrored(&self) -> Option<Result<Position, PositionError>> {
        if !self.mirror_safe() {
            return None;
        }
        let v = self.variant();
        let d = v.dims;
        let flip = |sq: Square| if sq.is_none() { sq } else { d.mirror(sq) };
        let ep = self.en_passant().map(|ep| EnPassant { squares: ep.squares.map(flip), victim: flip(ep.victim) });
        let image = |p: Piece| Piece::new(v.mirror_type[p.kind().index()].expect("mirror-safe"), p.color());
        let mirrored = self.rebuilt(|sq| self.piece_at(d.mirror(sq)).map(image), 0, ep);
        // Whether the previous move was a pass decides whether passes are legal now (Chushin
        // Shogi, §8.5): state that the image keeps, though it has no history.
        Some(mirrored.map(|mut image| {
            image.last_move_was_pass = self.last_move_was_pass;
            // Protean men keep their marks on their mirrored squares.
            self.with_protean_marks_of(image, |sq| Some(d.mirror(sq)))
        }))
    }
}
