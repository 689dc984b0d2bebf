//! Castling moves (chess and its relatives: Capablanca, Grand).

use crate::{
    movegen::MoveSink,
    moves::{Move, MoveKind},
    position::Position,
    types::{Piece, Square},
    variant::RoyalRule,
};

impl Position {
    pub(super) fn castling_moves<S: MoveSink>(&self, out: &mut S) {
        let v = &*self.variant;
        let Some(castling) = &v.rules.castling else { return };
        let us = self.side;
        let d = v.dims;
        let king_sq = self.castle_kings[us.index()];
        if self.board[king_sq.index()] != Some(Piece::new(castling.king, us)) {
            return;
        }
        for side in 0..2 {
            let bit = 2 * us.index() + side;
            if self.castling & (1 << bit) == 0 {
                continue;
            }
            let rook_sq = self.castle_rooks[bit];
            if self.board[rook_sq.index()] != Some(Piece::new(castling.rook, us)) {
                continue;
            }
            let rank = d.rank(king_sq);
            let king_to = d.square(castling.king_files[side], rank).expect("castling file is on the board");
            // Grid Chess: the king's move must leave its cell, as any move.
            if v.cells.as_ref().is_some_and(|c| c.same(king_sq, king_to)) {
                continue;
            }
            let rook_to = d
                .square(castling.king_files[side] + if side == 0 { -1 } else { 1 }, rank)
                .expect("the rook lands beside the king");
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
            // The king may not castle out of, through or into check.
            // A royal king may not castle out of, through or into check (a non-royal one may).
            if v.pieces[castling.king.index()].royal
                && v.rules.royal == RoyalRule::Checkmate
                && span(king_sq, king_to).any(|s| self.is_attacked(s, us.other()))
            {
                continue;
            }
            out.push(Move::normal(king_sq, king_to).with_kind(MoveKind::Castle).with_aux(rook_sq));
        }
    }
}
