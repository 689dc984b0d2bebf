//! `bent_rider`: one step to an empty square, then a ride from there in the directions that
//! point away from the origin (Octopus, Spider; the Wagon rides straight on and may not stop
//! after the first step).

use crate::{
    movegen::{powers::offset, MoveSink},
    position::Position,
    types::{Piece, Square},
    variant::powers::Dir,
};

pub(super) fn moves<S: MoveSink>(
    pos: &Position,
    from: Square,
    p: Piece,
    (first, stop_first, then): (&[Dir], bool, &[Dir]),
    out: &mut S,
) {
    for d in first {
        let Some(bend) = offset(pos, from, d.dx as i32, d.dy as i32) else { continue };
        if pos.piece_at(bend).is_some() {
            continue;
        }
        if stop_first {
            pos.push_displacement(from, bend, p, out);
        }
        for e in then.iter().filter(|e| e.dx * d.dx + e.dy * d.dy > 0) {
            let limit = if e.max_steps == 0 { i32::MAX } else { e.max_steps as i32 };
            let mut n = 1;
            while n <= limit {
                let Some(sq) = offset(pos, bend, e.dx as i32 * n, e.dy as i32 * n) else { break };
                match pos.piece_at(sq) {
                    None => pos.push_displacement(from, sq, p, out),
                    Some(q) => {
                        if q.color() != p.color() {
                            pos.push_displacement(from, sq, p, out);
                        }
                        break;
                    }
                }
                n += 1;
            }
        }
    }
}
