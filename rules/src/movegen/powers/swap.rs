//! `swap`: exchanges places with any piece, friend or enemy, on a target square (Hummingbird).
//! The mover may promote by the swap.

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
            pos.push_with_promotions(Move::normal(from, sq).with_kind(MoveKind::Swap), p, out);
        }
    }
}
