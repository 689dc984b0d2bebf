//! `hop_rider`: slides of 2..=`range` squares that jump at least one piece on the way, landing
//! on an empty square or an enemy (Typhoon's Cicada).

use crate::{
    movegen::{powers::offset, MoveSink},
    moves::Move,
    position::Position,
    types::{Piece, Square},
    variant::powers::Dir,
};

pub(super) fn moves<S: MoveSink>(pos: &Position, from: Square, p: Piece, dirs: &[Dir], range: u8, out: &mut S) {
    for d in dirs {
        let mut hurdles = 0;
        for k in 1..=range as i32 {
            let Some(sq) = offset(pos, from, d.dx as i32 * k, d.dy as i32 * k) else { break };
            let occupant = pos.piece_at(sq);
            if k >= 2 && hurdles > 0 && occupant.is_none_or(|q| q.color() != p.color()) {
                pos.push_with_promotions(Move::normal(from, sq), p, out);
            }
            hurdles += occupant.is_some() as u32;
        }
    }
}
