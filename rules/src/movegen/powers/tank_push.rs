//! `tank_push`: a step (the one-step `dirs`) onto a friendly piece, which is pushed one square on
//! along the step's line; a friendly piece in its way is pushed too, up to `max_pushed` pieces.
//! The last pushed piece captures an enemy it is pushed onto, whatever its type, or leaves the
//! game if pushed off the board; a friendly piece beyond the last one makes the push impossible
//! (Ox and Dragon Tanks, jupiter.md §3.4, ruling 11.19). A `MoveKind::Shove`: `captures` lists the
//! enemy captured and the own piece pushed off the board, unless that piece is the one on `to`
//! (§9.3). The tank may promote; pushed pieces never do.

use crate::{
    movegen::{powers::offset, MoveSink},
    moves::{Move, MoveKind},
    position::Position,
    types::{Piece, Square},
    variant::powers::Dir,
};

pub(super) fn moves<S: MoveSink>(pos: &Position, from: Square, p: Piece, dirs: &[Dir], max_pushed: u8, out: &mut S) {
    let us = p.color();
    for d in dirs {
        let (dx, dy) = (d.dx as i32, d.dy as i32);
        let Some(to) = offset(pos, from, dx, dy) else { continue };
        if pos.piece_at(to).is_none_or(|q| q.color() != us) {
            continue;
        }
        let mut m = Move::normal(from, to).with_kind(MoveKind::Shove);
        let (mut last, mut pushed) = (to, 1);
        let possible = loop {
            let Some(next) = offset(pos, last, dx, dy) else {
                if last != to {
                    m.add_capture(last);
                }
                break true;
            };
            match pos.piece_at(next) {
                None => break true,
                Some(q) if q.color() != us => {
                    m.add_capture(next);
                    break true;
                }
                Some(_) if pushed >= max_pushed => break false,
                Some(_) => {
                    pushed += 1;
                    last = next;
                }
            }
        };
        if possible {
            pos.push_with_promotions(m, p, out);
        }
    }
}
