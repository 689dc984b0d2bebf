//! The moves of multi-leg XBetza components: a depth-first walk of the piece's
//! [`LegTrie`](crate::variant::legs::LegTrie) from its square, one move per distinct effect
//! (chushin-shogi.md §9.2).

use crate::{
    movegen::MoveSink,
    position::Position,
    types::{Piece, Square},
};

impl Position {
    /// Pushes the moves of `p`'s multi-leg components from `from` (nothing if it has none).
    pub(crate) fn leg_moves<S: MoveSink>(&self, from: Square, p: Piece, out: &mut S) {
        let Some(_trie) = self.variant.legs.trie(p.color(), p.kind()) else { return };
        let _ = (from, out);
        unimplemented!("movegen::legs is being written (issue 17)")
    }
}
