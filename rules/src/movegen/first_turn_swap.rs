//! `first_turn_swap = "back_rank"` (Transcendental Chess, issue 21 row #6): on its first turn a
//! side may, instead of moving, exchange two of its own men on its first rank (White's rank 1,
//! Black's last rank). Made by the Hummingbird's `MoveKind::Swap`, so make/unmake and the
//! board hash need nothing new, and written as any swap is: `b1g1^`, or in UCI notation (chess
//! and its kin) `b1g1`, from one's own man onto the other, which no other move writes (no move
//! lands on an own man; the loader refuses `first_turn_swap` with castling, whose
//! king-takes-rook form would collide).
//!
//! "First turn" is read from the fullmove number: a side is on its first turn while the
//! fullmove number is 1 (White's first move, then Black's reply). A position string set up with
//! fullmove 1 therefore grants the swap to the side to move; one with a later number does not.
//! The swap of the men on `a` and `b` is written from the one whose type comes first in the
//! variant's piece list (chess: a king on e1 and a bishop on a1 may give `e1a1`).
//! Only men of different types are exchanged: swapping two alike would change nothing and would
//! be a pass in disguise, so those pairs are not generated.

use crate::{
    movegen::MoveSink,
    moves::{Move, MoveKind},
    position::Position,
    types::{Color, Square},
};

/// Appends the side to move's back-rank swaps when it is on its first turn (see the module).
pub(super) fn moves<S: MoveSink>(pos: &Position, out: &mut S) {
    if pos.fullmove != 1 {
        return;
    }
    let us = pos.side;
    let d = pos.variant.dims;
    // A side's first rank: relative rank 0 (White's rank 1, Black's last rank).
    let rank = match us {
        Color::Blue => 0,
        Color::Tan => d.height as i32 - 1,
    };
    let men: Vec<(Square, _)> = (0..d.width as i32)
        .filter_map(|f| d.square(f, rank))
        .filter_map(|sq| pos.board[sq.index()].filter(|p| p.color() == us).map(|p| (sq, p.kind())))
        .collect();
    for (i, &(a, ta)) in men.iter().enumerate() {
        for &(b, tb) in &men[i + 1..] {
            // The man of the type listed first moves "from": an order by type, not by square,
            // so a mirrored or rotated position writes the mirrored move (the property tests).
            if ta.index() < tb.index() {
                out.push(Move::normal(a, b).with_kind(MoveKind::Swap));
            } else if tb.index() < ta.index() {
                out.push(Move::normal(b, a).with_kind(MoveKind::Swap));
            }
        }
    }
}
