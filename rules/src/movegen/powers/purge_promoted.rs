//! `purge_promoted`: moves and captures along the `dirs` geometry; on arrival, every promoted
//! piece on the eight squares around the arrival square is captured as well, whichever side owns
//! it, royal pieces included (Communist, jupiter.md §3.4 and ruling 11.14: a Tribble is a
//! promoted type however it was created). Promoted types are those some type promotes to
//! (`Variant::promoted`).

use crate::{
    movegen::{
        powers::{offset, KING_DIRS},
        MoveSink,
    },
    moves::Move,
    position::Position,
    types::{Piece, Square},
    variant::powers::Dir,
};

pub(super) fn moves<S: MoveSink>(pos: &Position, from: Square, p: Piece, dirs: &[Dir], out: &mut S) {
    let promoted = &pos.variant().promoted;
    for d in dirs {
        let limit = if d.max_steps == 0 { i32::MAX } else { d.max_steps as i32 };
        let mut k = 1;
        while k <= limit {
            let Some(to) = offset(pos, from, d.dx as i32 * k, d.dy as i32 * k) else { break };
            let occupant = pos.piece_at(to);
            if occupant.is_some_and(|q| q.color() == p.color()) {
                break;
            }
            let mut m = Move::normal(from, to);
            for (ex, ey) in KING_DIRS {
                let Some(n) = offset(pos, to, ex, ey) else { continue };
                if n != from && pos.piece_at(n).is_some_and(|q| promoted[q.kind().index()]) {
                    m.add_capture(n);
                }
            }
            pos.push_with_promotions(m, p, out);
            if occupant.is_some() {
                break;
            }
            k += 1;
        }
    }
}
