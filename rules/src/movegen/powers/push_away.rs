//! `push_away`: a stationary action that pushes an enemy piece one square further away; the
//! enemy must be the first piece on one of the `reach` lines, at most `max` squares away, and the
//! square beyond it must be on the board and empty (Go Away, jupiter.md §3.4). A
//! `MoveKind::Push` with the enemy's square in `aux`. The pushed piece never captures or
//! promotes, and may be immobilized.

use crate::{
    movegen::{powers::offset, MoveSink},
    moves::{Move, MoveKind},
    position::Position,
    types::{Piece, Square},
    variant::powers::Dir,
};

pub(super) fn moves<S: MoveSink>(pos: &Position, from: Square, p: Piece, reach: &[Dir], max: u8, out: &mut S) {
    for d in reach {
        let (dx, dy) = (d.dx as i32, d.dy as i32);
        for k in 1..=max as i32 {
            let Some(sq) = offset(pos, from, dx * k, dy * k) else { break };
            let Some(q) = pos.piece_at(sq) else { continue };
            let beyond = offset(pos, sq, dx, dy);
            if q.color() != p.color() && beyond.is_some_and(|b| pos.piece_at(b).is_none()) {
                out.push(Move::normal(from, from).with_kind(MoveKind::Push).with_aux(sq));
            }
            break;
        }
    }
}
