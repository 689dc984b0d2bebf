//! `hop_capture`: jumps over an adjacent enemy to the square right behind it, capturing it; with
//! `double`, the landing square may hold an enemy too, captured as well (Zig, Zag, Overtaker,
//! Parrot family).

use crate::{
    movegen::{powers::offset, MoveSink},
    moves::Move,
    position::Position,
    types::{Piece, Square},
    variant::powers::Dir,
};

pub(super) fn moves<S: MoveSink>(pos: &Position, from: Square, p: Piece, over: &[Dir], double: bool, out: &mut S) {
    let enemy_at = |sq: Square| pos.piece_at(sq).is_some_and(|q| q.color() != p.color());
    for d in over {
        let (dx, dy) = (d.dx as i32, d.dy as i32);
        let (Some(mid), Some(land)) = (offset(pos, from, dx, dy), offset(pos, from, 2 * dx, 2 * dy)) else {
            continue;
        };
        let landing_ok = pos.piece_at(land).is_none() || (double && enemy_at(land));
        if enemy_at(mid) && landing_ok {
            pos.push_with_promotions(Move::normal(from, land).with_capture(mid), p, out);
        }
    }
}
