//! `pass`: the owner may pass its turn while a piece with this power can act. With the variant's
//! `pass = "one_per_position"` (Typhoon) there is one pass move per position, named after the
//! first such piece that is not immobilized; the driver finds that piece while it walks the
//! board and asks for the move here.
//!
//! In Jupiter every turn that leaves the position unchanged is that same move (jupiter.md
//! §9.2, ruling 11.32): a doubled turn whose actions cancel out is the `pass`, even where no
//! piece can pass; the doubled-turn generator (`movegen/doubled.rs`) then names it after the
//! doubled piece, and adds it only if the position has no pass yet.

use crate::{
    movegen::MoveSink,
    moves::Move,
    position::Position,
    types::{Piece, Square},
};

/// Whether `p` can pass (it has the power).
#[inline]
pub(crate) fn can_pass(pos: &Position, p: Piece) -> bool {
    pos.variant().passers[p.kind().index()]
}

/// The position's pass move, made by the piece on `passer` (a passer, or a doubled piece whose
/// doubled turn changes nothing).
pub(crate) fn push<S: MoveSink>(passer: Square, out: &mut S) {
    out.push(Move::pass(passer));
}
