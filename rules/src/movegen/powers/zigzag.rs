//! `zigzag`: a crooked rider that alternates a first step d1 with a step d2 perpendicular to
//! it, d1, d2, d1, … (Boyscout with `F`, Girlscout with `W`; jupiter.md §3.4 Hook pair). It
//! may stop on any empty square of the walk or capture the first enemy met; a friend or the
//! board edge ends the walk. Zig-zags that meet on one square are one move (§9.2).

use crate::{
    movegen::{powers::offset, MoveSink},
    position::{Position, SquareSet},
    types::{Piece, Square},
    variant::powers::Dir,
};

pub(super) fn moves<S: MoveSink>(pos: &Position, from: Square, p: Piece, dirs: &[Dir], out: &mut S) {
    let betza_too = !pos.variant().pieces[p.kind().index()].betza.is_empty();
    let mut reached = SquareSet::EMPTY;
    for d1 in dirs {
        for d2 in dirs.iter().filter(|d2| d1.dx * d2.dx + d1.dy * d2.dy == 0) {
            let mut at = from;
            for k in 0.. {
                let d = if k % 2 == 0 { d1 } else { d2 };
                let Some(sq) = offset(pos, at, d.dx as i32, d.dy as i32) else { break };
                let occupant = pos.piece_at(sq);
                if occupant.is_some_and(|q| q.color() == p.color()) {
                    break;
                }
                if !reached.contains(sq) {
                    reached.insert(sq);
                    if !(betza_too && out.has_displacement(from, sq)) {
                        pos.push_displacement(from, sq, p, out);
                    }
                }
                if occupant.is_some() {
                    break;
                }
                at = sq;
            }
        }
    }
}
