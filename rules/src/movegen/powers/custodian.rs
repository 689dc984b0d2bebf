//! `custodian`: a non-capturing move to an empty square (the `dirs` geometry) that captures every
//! enemy trapped between the arrival square and a friendly piece of any type (the anvil) right
//! behind it, in each of the eight directions, all at once (Intertaker, jupiter.md §3.4). The
//! vacated start square is no anvil.

use crate::{
    movegen::{
        powers::{empty_squares, offset, KING_DIRS},
        MoveSink,
    },
    moves::Move,
    position::Position,
    types::{Piece, Square},
    variant::powers::Dir,
};

pub(super) fn moves<S: MoveSink>(pos: &Position, from: Square, p: Piece, dirs: &[Dir], out: &mut S) {
    let us = p.color();
    for d in dirs {
        for to in empty_squares(pos, from, d) {
            let mut m = Move::normal(from, to);
            for (ex, ey) in KING_DIRS {
                let Some(victim) = offset(pos, to, ex, ey) else { continue };
                if pos.piece_at(victim).is_none_or(|q| q.color() == us) {
                    continue;
                }
                let anvil = offset(pos, victim, ex, ey);
                if anvil.is_some_and(|a| a != from && pos.piece_at(a).is_some_and(|q| q.color() == us)) {
                    m.add_capture(victim);
                }
            }
            pos.push_with_promotions(m, p, out);
        }
    }
}
