//! `sweep`: slides of up to `range` squares through enemies, capturing every one passed, never
//! past a friend (Typhoon's Typhoon). Each square reached is a move of its own.

use crate::{
    movegen::{powers::offset, MoveSink},
    moves::Move,
    position::Position,
    types::{Piece, Square},
    variant::powers::Dir,
};

pub(super) fn moves<S: MoveSink>(pos: &Position, from: Square, p: Piece, dirs: &[Dir], range: u8, out: &mut S) {
    for d in dirs {
        let mut m = Move::normal(from, from);
        for k in 1..=range as i32 {
            let Some(sq) = offset(pos, from, d.dx as i32 * k, d.dy as i32 * k) else { break };
            match pos.piece_at(sq) {
                Some(q) if q.color() == p.color() => break,
                occupant => {
                    m.to = sq;
                    pos.push_with_promotions(m, p, out);
                    if occupant.is_some() {
                        m.add_capture(sq);
                    }
                }
            }
        }
    }
}
