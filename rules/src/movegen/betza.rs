//! The moves of a piece's Betza geometry: leaps (lame ones checked square by square), rides,
//! cannon hops and grasshopper jumps read from the variant's tables, en passant, and the
//! promotions every displacement may carry.

use super::forward_sink_queries;
use crate::{
    movegen::MoveSink,
    moves::{Move, MoveKind},
    position::Position,
    spec::betza::Jump,
    types::{Color, Piece, Square},
    variant::{
        tables::{F_CAPTURE, F_INITIAL, F_MOVE},
        PromotionMandatory, PromotionTrigger,
    },
};

impl Position {
    pub(crate) fn piece_moves<S: MoveSink>(&self, from: Square, p: Piece, out: &mut S) {
        let v = &*self.variant;
        let t = &v.tables;
        let us = p.color();
        let slot = v.table_slot(us, p.kind(), from);
        let (a, b) = t.leap_index[slot];
        let ep_capable = self.ep.is_some() && v.pieces[p.kind().index()].en_passant;
        for l in &t.leaps[a as usize..b as usize] {
            if l.flags & F_INITIAL != 0 && !self.in_initial_region(from, us) {
                continue;
            }
            if l.via.iter().any(|via| !via.is_none() && self.board[via.index()].is_some()) {
                continue;
            }
            match self.board[l.to.index()] {
                None => {
                    if l.flags & F_MOVE != 0 {
                        self.push_displacement(from, l.to, p, out);
                    } else if ep_capable && l.flags & F_CAPTURE != 0 {
                        self.push_en_passant(from, l.to, p, out);
                    }
                }
                Some(q) if q.color() != us && l.flags & F_CAPTURE != 0 => self.push_displacement(from, l.to, p, out),
                Some(_) => {}
            }
        }
        let (a, b) = t.ray_index[slot];
        for r in &t.rays[a as usize..b as usize] {
            let squares = &t.ray_squares[r.start as usize..r.start as usize + r.len as usize];
            // Grid: the first `lead` squares are the piece's own cell, passed but not landed on.
            let lead = r.lead as usize;
            match r.jump {
                Jump::Free | Jump::Lame => self.ride(from, p, squares, lead, r.flags, out),
                Jump::Hop => {
                    if let Some(i) = squares.iter().position(|s| self.board[s.index()].is_some()) {
                        self.ride(from, p, &squares[i + 1..], lead.saturating_sub(i + 1), r.flags, out);
                    }
                }
                Jump::Grasshopper => {
                    if let Some(i) = squares.iter().position(|s| self.board[s.index()].is_some()) {
                        if let Some(&land) = squares.get(i + 1).filter(|_| i + 1 >= lead) {
                            match self.board[land.index()] {
                                None if r.flags & F_MOVE != 0 => self.push_displacement(from, land, p, out),
                                Some(q) if q.color() != us && r.flags & F_CAPTURE != 0 => {
                                    self.push_displacement(from, land, p, out)
                                }
                                _ => {}
                            }
                        }
                    }
                }
            }
        }
    }

    /// Rides along `squares`, landing on none of the first `lead` (they must be empty to pass).
    #[inline]
    fn ride<S: MoveSink>(&self, from: Square, p: Piece, squares: &[Square], lead: usize, flags: u8, out: &mut S) {
        let mut squares = squares;
        if lead > 0 {
            let (passed, rest) = squares.split_at(lead.min(squares.len()));
            if passed.iter().any(|s| self.board[s.index()].is_some()) {
                return;
            }
            squares = rest;
        }
        for &s in squares {
            match self.board[s.index()] {
                None => {
                    if flags & F_MOVE != 0 {
                        self.push_displacement(from, s, p, out);
                    }
                }
                Some(q) => {
                    if q.color() != p.color() && flags & F_CAPTURE != 0 {
                        self.push_displacement(from, s, p, out);
                    }
                    return;
                }
            }
        }
    }

    fn push_en_passant<S: MoveSink>(&self, from: Square, to: Square, p: Piece, out: &mut S) {
        let ep = self.ep.expect("checked by the caller");
        if !ep.squares.contains(&to) {
            return;
        }
        if self.board[ep.victim.index()].is_some_and(|q| q.color() != p.color()) {
            // The victim joins each move after its promotions are chosen: a promotion upgrade
            // does not count it.
            self.push_displacement(from, to, p, &mut WithCapture { inner: out, victim: ep.victim });
        }
    }

    /// Pushes a displacement with its promotion variants, unless the sink has it already
    /// ([`MoveSink::claim_displacement`]).
    #[inline]
    pub(crate) fn push_displacement<S: MoveSink>(&self, from: Square, to: Square, p: Piece, out: &mut S) {
        if out.claim_displacement(to) {
            self.push_with_promotions(Move::normal(from, to), p, out)
        }
    }

    /// Pushes a move of `p` (a displacement or a swap), once plain and once per promotion it
    /// allows, following the variant's zone, trigger, compulsion and limit rules.
    pub(crate) fn push_with_promotions<S: MoveSink>(&self, base: Move, p: Piece, out: &mut S) {
        let v = &*self.variant;
        let def = &v.pieces[p.kind().index()];
        if def.promotes_to.is_empty() {
            out.push(base);
            return;
        }
        let (from, to) = (base.from, base.to);
        let us = p.color();
        let promo = &v.rules.promotion;
        let eligible = v.in_promotion_zone(to, us)
            || (promo.trigger == PromotionTrigger::StartsOrEndsInZone && v.in_promotion_zone(from, us));
        if !eligible {
            out.push(base);
            return;
        }
        let last_rank = v.relative_rank(to, us) == v.dims.height as i32 - 1;
        let must = match promo.mandatory {
            PromotionMandatory::Always => true,
            PromotionMandatory::Never => false,
            PromotionMandatory::OnLastRank => last_rank,
        };
        if !must {
            out.push(base);
        }
        for &t in &def.promotes_to {
            if promo.limit_to_captured {
                let idx = Piece::new(t, us).index();
                if self.counts[idx] >= v.start_counts[idx] {
                    continue;
                }
            }
            let mut target = t;
            if let Some((present, becomes)) = def.promotion_upgrade {
                // Counted after the move's own captures (Typhoon §3.5).
                let on_board = |c: Color| self.counts[Piece::new(present, c).index()] as i32;
                let mut count = on_board(Color::Blue) + on_board(Color::Tan);
                let victims =
                    base.captures().iter().copied().chain(
                        (base.kind == MoveKind::Normal).then_some(to).filter(|s| self.board[s.index()].is_some()),
                    );
                count -= victims.filter(|s| self.board[s.index()].is_some_and(|q| q.kind() == present)).count() as i32;
                if count > 0 {
                    target = becomes;
                }
            }
            out.push(base.with_piece(Some(target)));
        }
    }

    /// Whether `sq` is in `color`'s region for initial-only (`i`) moves.
    #[inline]
    pub(crate) fn in_initial_region(&self, sq: Square, color: Color) -> bool {
        let rank = self.variant.relative_rank(sq, color) + 1;
        self.variant.rules.initial_move_ranks.iter().any(|&r| r as i32 == rank)
    }
}

/// Adds an en-passant victim to every move pushed through it.
struct WithCapture<'a, S: MoveSink> {
    inner: &'a mut S,
    victim: Square,
}

impl<S: MoveSink> MoveSink for WithCapture<'_, S> {
    #[inline]
    fn push(&mut self, m: Move) {
        self.inner.push(m.with_capture(self.victim));
    }

    forward_sink_queries!();
}
