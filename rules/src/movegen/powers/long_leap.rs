//! `long_leap`: checkers-style jumps along one line over single enemies to the empty square
//! behind each, capturing them; every landing square is a move (Longleaper).

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
        let mut m = Move::normal(from, from);
        let mut cur = from;
        while let Some(next) = offset(pos, cur, dx, dy) {
            match pos.piece_at(next) {
                None => {
                    if !m.captures().is_empty() {
                        m.to = next;
                        pos.push_with_promotions(m, p, out);
                    }
                    cur = next;
                }
                Some(q) if q.color() != p.color() => {
                    let Some(beyond) = offset(pos, next, dx, dy) else { break };
                    if pos.piece_at(beyond).is_some() {
                        break;
                    }
                    m.add_capture(next);
                    m.to = beyond;
                    pos.push_with_promotions(m, p, out);
                    cur = beyond;
                }
                Some(_) => break,
            }
        }
    }
}
