//! `capture_continue`: a leap that captures an enemy on x, then a second leap from x to y,
//! which must be empty (the move ends there) or hold an enemy (captured too): the Toucan's and
//! Crow's bent captures, the Tiger Horse's Knight capture then W step, the King Lion's double
//! move (jupiter.md §3.4). The plain capture that stops on x belongs to the piece's Betza. With
//! `may_return`, y may be the start square: the piece captures x and stays home, an igui
//! (`a1a1xb2`, §9.1).

use crate::{
    movegen::{powers::offset, MoveSink},
    moves::{Move, MoveKind},
    position::Position,
    types::{Piece, Square},
    variant::powers::{Dir, Turns},
};

pub(super) fn moves<S: MoveSink>(
    pos: &Position,
    from: Square,
    p: Piece,
    (first, then, turn, may_return): (&[Dir], &[Dir], Option<Turns>, bool),
    out: &mut S,
) {
    for d in first {
        let Some(victim) = offset(pos, from, d.dx as i32, d.dy as i32) else { continue };
        if pos.piece_at(victim).is_none_or(|q| q.color() == p.color()) {
            continue;
        }
        for e in then {
            if turn.is_some_and(|t| !t.allows(d, e)) {
                continue;
            }
            let Some(to) = offset(pos, victim, e.dx as i32, e.dy as i32) else { continue };
            if to == from {
                if may_return {
                    out.push(Move::normal(from, from).with_kind(MoveKind::Stationary).with_capture(victim));
                }
                continue;
            }
            if pos.piece_at(to).is_some_and(|q| q.color() == p.color()) {
                continue;
            }
            pos.push_with_promotions(Move::normal(from, to).with_capture(victim), p, out);
        }
    }
}
