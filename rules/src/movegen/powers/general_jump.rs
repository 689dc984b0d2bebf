//! `general_jump`: the Bishop and Rook Generals' jump captures (jupiter.md §3.4 Tank pair,
//! ruling 11.21). Along each line, every enemy beyond the first piece met may be captured,
//! whatever stands between; the first stopper (a royal or a General, either side) ends the
//! line, and is itself never jump-captured. The capture of the first piece met, and every
//! non-capturing move, belong to the piece's Betza.

use crate::{
    movegen::{powers::offset, MoveSink},
    position::Position,
    types::{Piece, Square},
    variant::powers::{Dir, Stoppers},
};

pub(super) fn moves<S: MoveSink>(
    pos: &Position,
    from: Square,
    p: Piece,
    dirs: &[Dir],
    stoppers: &Stoppers,
    out: &mut S,
) {
    let v = pos.variant();
    for d in dirs {
        let limit = if d.max_steps == 0 { i32::MAX } else { d.max_steps as i32 };
        let mut jumped = 0;
        let mut n = 1;
        while n <= limit {
            let Some(sq) = offset(pos, from, d.dx as i32 * n, d.dy as i32 * n) else { break };
            n += 1;
            let Some(q) = pos.piece_at(sq) else { continue };
            if stoppers.contains(v, q.kind()) {
                break;
            }
            if jumped > 0 && q.color() != p.color() {
                pos.push_displacement(from, sq, p, out);
            }
            jumped += 1;
        }
    }
}
