//! `pull`: a stationary action that pulls an enemy piece one square towards the puller; the
//! enemy must be the first piece on one of the `reach` lines, `min..=max` squares away (`min` is
//! at least 2, so the square it comes to is empty). Come Here, jupiter.md §3.4: a
//! `MoveKind::Pull` with the enemy's square in `aux`. The pulled piece never captures or
//! promotes, and may be immobilized.

use crate::{
    movegen::{powers::offset, MoveSink},
    moves::{Move, MoveKind},
    position::Position,
    types::{Piece, Square},
    variant::powers::Dir,
};

pub(super) fn moves<S: MoveSink>(pos: &Position, from: Square, p: Piece, reach: &[Dir], range: (u8, u8), out: &mut S) {
    let (min, max) = (range.0 as i32, range.1 as i32);
    for d in reach {
        for k in 1..=max {
            let Some(sq) = offset(pos, from, d.dx as i32 * k, d.dy as i32 * k) else { break };
            let Some(q) = pos.piece_at(sq) else { continue };
            if q.color() != p.color() && k >= min {
                out.push(Move::normal(from, from).with_kind(MoveKind::Pull).with_aux(sq));
            }
            break;
        }
    }
}
