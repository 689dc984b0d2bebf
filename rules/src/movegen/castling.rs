//! Castling moves: chess and its relatives (Capablanca, Grand) by destination files, and
//! castling given move by move (Double King Chess, Double Chess, ICS wild 1); see
//! `crate::variant::castling` for the two forms and the rights' bits.

use crate::{
    movegen::MoveSink,
    moves::{Move, MoveKind},
    position::Position,
    types::{Piece, Square},
    variant::{castling::king_index, RoyalRule},
};

impl Position {
    pub(super) fn castling_moves<S: MoveSink>(&self, out: &mut S) {
        let v = &*self.variant;
        let Some(castling) = &v.rules.castling else { return };
        let us = self.side;
        let d = v.dims;
        let slots = if castling.by_moves() { 2 } else { 1 };
        for slot in 0..slots {
            for side in 0..2 {
                let bit = 4 * slot + 2 * us.index() + side;
                if self.castling & (1 << bit) == 0 {
                    continue;
                }
                let king_sq = self.castle_kings[king_index(bit)];
                if self.board[king_sq.index()] != Some(Piece::new(castling.king, us)) {
                    continue;
                }
                let rook_sq = self.castle_rooks[bit];
                if self.board[rook_sq.index()] != Some(Piece::new(castling.rook, us)) {
                    continue;
                }
                let rank = d.rank(king_sq);
                let king_file = if castling.by_moves() {
                    match castling.move_of(d.file(king_sq), d.file(rook_sq)) {
                        Some(m) => m.king_to,
                        // A right is only ever set for a listed move (the parser's lookup).
                        None => continue,
                    }
                } else {
                    castling.king_files[side]
                };
                let king_to = d.square(king_file, rank).expect("castling file is on the board");
                // Grid Chess: the king's move must leave its cell, as any move.
                if v.cells.as_ref().is_some_and(|c| c.same(king_sq, king_to)) {
                    continue;
                }
                // The rook lands beside the king on the side it came from (make.rs agrees).
                let rook_to =
                    d.square(king_file + if side == 0 { -1 } else { 1 }, rank).expect("the rook lands beside the king");
                // Every square either piece crosses or lands on must be empty but for the two.
                let span = |a: Square, b: Square| {
                    let (lo, hi) = (d.file(a).min(d.file(b)), d.file(a).max(d.file(b)));
                    (lo..=hi).map(move |f| d.square(f, rank).expect("on the back rank"))
                };
                let clear = span(king_sq, king_to)
                    .chain(span(rook_sq, rook_to))
                    .all(|s| s == king_sq || s == rook_sq || self.board[s.index()].is_none());
                if !clear {
                    continue;
                }
                // A royal king may not castle out of, through or into check (a non-royal one
                // may). With two royal kings, the other one's safety is the legality filter's.
                if v.pieces[castling.king.index()].royal
                    && v.rules.royal == RoyalRule::Checkmate
                    && span(king_sq, king_to)
                        .any(|s| self.is_attacked(s, us.other()) && !self.shielded_by_enemy_royal(s, us))
                {
                    continue;
                }
                out.push(Move::normal(king_sq, king_to).with_kind(MoveKind::Castle).with_aux(rook_sq));
            }
        }
    }
}
