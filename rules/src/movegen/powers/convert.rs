//! `convert`: turns an enemy on a target square into a friendly piece without moving (Cuckoo).

use crate::{
    movegen::{powers::enemies_in_sight, MoveSink},
    moves::{Move, MoveKind},
    position::Position,
    types::{Piece, Square},
    variant::powers::Dir,
};

pub(super) fn moves<S: MoveSink>(pos: &Position, from: Square, p: Piece, targets: &[Dir], out: &mut S) {
    for sq in enemies_in_sight(pos, from, p, targets) {
        out.push(Move::normal(from, from).with_kind(MoveKind::Convert).with_aux(sq));
    }
}
