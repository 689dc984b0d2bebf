//! `igui`: captures an enemy on a target square without moving (Genie, Parrot family; with a
//! rider target, shooting: the Emperor of Emperors' `targets = "Q"`).

use crate::{
    movegen::{powers::enemies_in_sight, MoveSink},
    moves::{Move, MoveKind},
    position::Position,
    types::{Piece, Square},
    variant::powers::Dir,
};

pub(super) fn moves<S: MoveSink>(pos: &Position, from: Square, p: Piece, targets: &[Dir], out: &mut S) {
    for sq in enemies_in_sight(pos, from, p, targets) {
        out.push(Move::normal(from, from).with_kind(MoveKind::Stationary).with_capture(sq));
    }
}
