//! `igui`: captures an enemy on a target square without moving (Genie, Parrot family; with a
//! rider target, shooting: the Emperor of Emperors' `targets = "Q"`).

use crate::{
    movegen::{powers::first_piece, MoveSink},
    moves::{Move, MoveKind},
    position::Position,
    types::{Piece, Square},
    variant::powers::Dir,
};

pub(super) fn moves<S: MoveSink>(pos: &Position, from: Square, p: Piece, targets: &[Dir], out: &mut S) {
    for d in targets {
        if let Some(sq) = first_piece(pos, from, d) {
            if pos.piece_at(sq).is_some_and(|q| q.color() != p.color()) {
                out.push(Move::normal(from, from).with_kind(MoveKind::Stationary).with_capture(sq));
            }
        }
    }
}
