//! `reproduce`: a stationary action that puts a new piece of the mover's type and side on an
//! empty target square (Tribble, jupiter.md §3.4). A `MoveKind::Reproduce` with the new piece's
//! square in `aux`; the parent does not move and does not promote.

use crate::{
    movegen::{powers::empty_squares, MoveSink},
    moves::{Move, MoveKind},
    position::Position,
    types::{Piece, Square},
    variant::powers::Dir,
};

pub(super) fn moves<S: MoveSink>(pos: &Position, from: Square, _p: Piece, targets: &[Dir], out: &mut S) {
    for d in targets {
        for sq in empty_squares(pos, from, d) {
            out.push(Move::normal(from, from).with_kind(MoveKind::Reproduce).with_aux(sq));
        }
    }
}
