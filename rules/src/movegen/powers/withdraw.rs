//! `withdraw`: a step to an empty neighbour that captures the enemy standing right behind the
//! mover, on the opposite side (Undertaker, Jupiter's Withdrawer).

use crate::{
    movegen::{powers::offset, MoveSink},
    moves::Move,
    position::Position,
    types::{Piece, Square},
    variant::powers::Dir,
};

pub(super) fn moves<S: MoveSink>(pos: &Position, from: Square, p: Piece, dirs: &[Dir], out: &mut S) {
    for d in dirs {
        let (dx, dy) = (d.dx as i32, d.dy as i32);
        let Some(to) = offset(pos, from, dx, dy) else { continue };
        if pos.piece_at(to).is_some() {
            continue;
        }
        let mut m = Move::normal(from, to);
        if let Some(behind) =
            offset(pos, from, -dx, -dy).filter(|&b| pos.piece_at(b).is_some_and(|q| q.color() != p.color()))
        {
            m.add_capture(behind);
        }
        pos.push_with_promotions(m, p, out);
    }
}
