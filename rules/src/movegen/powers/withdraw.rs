//! `withdraw`: non-capturing moves to empty squares along the `dirs` geometry (steps or rides);
//! moving straight away from an adjacent enemy captures it (Typhoon's Undertaker with `dirs =
//! "K"`, Jupiter's Withdrawer with `dirs = "Q"`, jupiter.md §3.4). At most one capture.

use crate::{
    movegen::{
        powers::{empty_squares, offset},
        MoveSink,
    },
    moves::Move,
    position::Position,
    types::{Piece, Square},
    variant::powers::Dir,
};

pub(super) fn moves<S: MoveSink>(pos: &Position, from: Square, p: Piece, dirs: &[Dir], out: &mut S) {
    for d in dirs {
        let (dx, dy) = (d.dx as i32, d.dy as i32);
        let behind = offset(pos, from, -dx, -dy).filter(|&b| pos.piece_at(b).is_some_and(|q| q.color() != p.color()));
        for to in empty_squares(pos, from, d) {
            let mut m = Move::normal(from, to);
            if let Some(b) = behind {
                m.add_capture(b);
            }
            pos.push_with_promotions(m, p, out);
        }
    }
}
