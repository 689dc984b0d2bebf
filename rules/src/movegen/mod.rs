//! Layer 4 of the rules crate: move generation, as `impl Position` blocks over the position
//! layer. The driver here walks the side's pieces and asks `betza` for the moves of their
//! Betza geometry (with `legs` for multi-leg XBetza components, one move per effect),
//! [`powers`] (one module per power kind) for their special powers, then adds
//! relayed moves, the pass and castling; `legal_moves` filters for royal safety, repetition and
//! forced capture. `attacks` answers "is this square attacked", `game_end` the results that
//! need the legal moves (checkmate, stalemate).
//!
//! Generators push into a `MoveSink`: a [`MoveList`], or a probe that only asks one question
//! of the moves (is a square attacked, is there any move) and stores nothing, so that attack
//! tests and game-end checks never allocate.

pub(crate) mod attacks;
pub(crate) mod betza;
mod castling;
mod checkless;
mod doubled;
mod drops;
mod explosion;
mod first_turn_swap;
pub(crate) mod game_end;
mod legs;
mod multimove;
mod must_mate;
pub(crate) mod neutral_token;
mod perft;
pub mod powers;
mod protean;
mod rifle;
mod setup;

pub use perft::{perft, perft_divide};

use crate::{
    movegen::powers::{immobilize, pass, relay},
    moves::{Move, MoveKind, MoveList},
    position::{square_set::WORDS, Position, SquareSet},
    types::{Color, Square},
    variant::{CaptureRule, CheckingRule, FirstTurnSwap, RepetitionRule, RoyalRule},
};

/// The queries of a sink that filters or rewrites moves on their way to its `inner` sink, which
/// answers them: `len`, `dedup_from`, `has_displacement`, `displacements_from` and `is_done` of
/// such a wrapper's [`MoveSink`] impl.
macro_rules! forward_sink_queries {
    () => {
        #[inline]
        fn len(&self) -> usize {
            self.inner.len()
        }

        #[inline]
        fn dedup_from(&mut self, start: usize) {
            self.inner.dedup_from(start);
        }

        #[inline]
        fn has_displacement(&self, from: $crate::types::Square, to: $crate::types::Square) -> bool {
            self.inner.has_displacement(from, to)
        }

        #[inline]
        fn displacements_from(&self, from: $crate::types::Square) -> $crate::position::SquareSet {
            self.inner.displacements_from(from)
        }

        #[inline]
        fn is_done(&self) -> bool {
            self.inner.is_done()
        }
    };
}
pub(crate) use forward_sink_queries;

/// Where generated moves go.
pub(crate) trait MoveSink {
    fn push(&mut self, m: Move);
    /// Moves kept so far (a probe keeps none).
    fn len(&self) -> usize;
    /// Removes duplicates among the moves kept since `start` (pieces whose atoms overlap).
    fn dedup_from(&mut self, start: usize);
    /// Whether a plain displacement `from → to` was kept already (relays skip such moves).
    fn has_displacement(&self, from: Square, to: Square) -> bool;
    /// The destinations of the plain displacements from `from` kept so far: one pass for many
    /// [`MoveSink::has_displacement`] questions about one piece.
    fn displacements_from(&self, from: Square) -> SquareSet;
    /// Whether the answer is known, so that generation may stop.
    fn is_done(&self) -> bool;
    /// Called before the displacement `from → to` of a piece's table moves is pushed (with its
    /// promotions): `false` drops it. A sink that keeps one move per effect of a piece with
    /// multi-leg components records `to` here; every other sink takes everything.
    #[inline]
    fn claim_displacement(&mut self, _to: Square) -> bool {
        true
    }
}

impl MoveSink for MoveList {
    #[inline]
    fn push(&mut self, m: Move) {
        Vec::push(self, m);
    }

    #[inline]
    fn len(&self) -> usize {
        Vec::len(self)
    }

    fn dedup_from(&mut self, start: usize) {
        let mut i = start;
        while i < Vec::len(self) {
            if self[start..i].contains(&self[i]) {
                self.swap_remove(i);
            } else {
                i += 1;
            }
        }
    }

    fn has_displacement(&self, from: Square, to: Square) -> bool {
        self.iter().any(|m| m.kind == MoveKind::Normal && m.from == from && m.to == to)
    }

    fn displacements_from(&self, from: Square) -> SquareSet {
        let mut set = SquareSet::EMPTY;
        for m in self.iter().filter(|m| m.kind == MoveKind::Normal && m.from == from) {
            set.insert(m.to);
        }
        set
    }

    #[inline]
    fn is_done(&self) -> bool {
        false
    }
}

/// A sink that keeps no move and only records whether one satisfied `wanted`. Duplicates do
/// not change such an answer, so it skips de-duplication.
pub(crate) struct Probe<F: Fn(&Move) -> bool> {
    wanted: F,
    found: bool,
}

impl<F: Fn(&Move) -> bool> Probe<F> {
    pub(crate) fn new(wanted: F) -> Probe<F> {
        Probe { wanted, found: false }
    }

    pub(crate) fn found(&self) -> bool {
        self.found
    }
}

impl<F: Fn(&Move) -> bool> MoveSink for Probe<F> {
    #[inline]
    fn push(&mut self, m: Move) {
        self.found = self.found || (self.wanted)(&m);
    }

    fn len(&self) -> usize {
        0
    }

    fn dedup_from(&mut self, _start: usize) {}

    fn has_displacement(&self, _from: Square, _to: Square) -> bool {
        false
    }

    fn displacements_from(&self, _from: Square) -> SquareSet {
        SquareSet::EMPTY
    }

    #[inline]
    fn is_done(&self) -> bool {
        self.found
    }
}

impl Position {
    /// Fills `out` with every legal move (after clearing it). Empty if the game is over by
    /// material (see [`Position::immediate_outcome`]).
    pub fn legal_moves(&mut self, out: &mut MoveList) {
        self.legal_moves_nested(out, 0);
    }

    /// [`Position::legal_moves`] inside `depth` nested mate tests of the mate-only check rule
    /// (see `checkless`).
    fn legal_moves_nested(&mut self, out: &mut MoveList, depth: u32) {
        out.clear();
        if self.in_setup() {
            self.setup_moves(out);
            return;
        }
        if self.immediate_outcome().is_some() {
            return;
        }
        self.single_action_moves(out);
        self.doubled_moves(out);
        // Copied out of the variant, so that the filters below may make and unmake moves.
        let v = &self.variant;
        let (royal, repetition, forced_capture) = (v.rules.royal, v.rules.repetition, v.rules.forced_capture);
        let checking = v.rules.checking;
        let must_mate = v.rules.must_mate;
        let simple_attacks = v.simple_attacks;
        let us = self.side;
        if royal == RoyalRule::Checkmate && self.n_royals[us.index()] > 0 && self.royal_safe_after_each_move() {
            let shortcut = simple_attacks && !self.in_check(us);
            // A blast can expose a royal from afar, a reborn man can check: with either, captures
            // are always made and tested.
            let (explosive, royals_before) = (self.variant.rules.explosion.is_some(), self.n_royals);
            let capture_effects = self.has_capture_effects();
            let exposed = if shortcut { self.pin_candidates(us) } else { SquareSet::EMPTY };
            out.retain(|&m| {
                // A drop out of check only adds a blocker (attacks here are plain leaps and rides).
                let plain = m.kind == MoveKind::Normal || m.kind == MoveKind::Drop;
                let risky = !plain || !m.captures().is_empty() || exposed.contains(m.from);
                if shortcut && !risky && !(capture_effects && self.is_capture(&m)) {
                    return true;
                }
                self.make(m);
                let ok = if explosive { self.legal_after_blast(us, royals_before) } else { !self.in_check(us) };
                self.unmake();
                ok
            });
        }
        self.retain_forced_drops(out);
        if checking == CheckingRule::MateOnly {
            self.retain_mating_checks(out, depth);
        }
        // Multi-move turns: checks inside a turn, a royal safe only at its end (`multimove`).
        self.retain_turn_legal(out);
        if repetition == RepetitionRule::ThirdIllegal
            && self.hashes.len() >= self.irreversible as usize + 3
            && self.a_successor_could_repeat_thrice()
        {
            out.retain(|&m| {
                self.make(m);
                let ok = self.repetitions() < 2;
                self.unmake();
                ok
            });
        }
        if forced_capture && out.iter().any(|m| self.is_capture(m)) {
            out.retain(|m| self.is_capture(m));
        }
        // Last, so that it sees every other filter; it never empties the list, so mate tests
        // (nested calls) skip it (`must_mate`).
        if must_mate && depth == 0 {
            self.retain_mates_if_any(out, depth);
        }
    }

    /// Squares whose piece, if it moves away, might expose a royal of `us` (the position is
    /// not in check, and attacks are plain leaps and rides): the royals themselves, and every
    /// own piece that is the first piece on a rider line from a royal with an enemy riding piece
    /// right behind it. Moves from any other square cannot leave a royal attacked.
    fn pin_candidates(&self, us: Color) -> SquareSet {
        let v = &*self.variant;
        let c = us.index();
        let mut set = SquareSet::EMPTY;
        for &royal in &self.royals[c][..self.n_royals[c] as usize] {
            set.insert(royal);
            for &(dx, dy) in &v.line_dirs {
                let mut shield = None;
                // Round a cylinder too, up to the square before the royal's own.
                for sq in v.geometry.line(royal, dx, dy, usize::MAX) {
                    if let Some(p) = self.board[sq.index()] {
                        match shield {
                            None if p.color() == us => shield = Some(sq),
                            None => break,
                            Some(s) => {
                                if p.color() != us && v.rides_to_capture[p.kind().index()] {
                                    set.insert(s);
                                }
                                break;
                            }
                        }
                    }
                }
            }
        }
        set
    }

    /// Whether a move removes an enemy piece (a capturing neutral token's included).
    pub fn is_capture(&self, m: &Move) -> bool {
        !m.captures().is_empty()
            || (m.kind == MoveKind::Normal && self.board[m.to.index()].is_some_and(|p| p.color() != self.side))
            || self
                .neutral_token_capture(m)
                .is_some_and(|s| self.board[s.index()].is_some_and(|p| p.color() != self.side))
    }

    /// Number of legal moves (perft's bulk count).
    pub fn count_legal_moves(&mut self, scratch: &mut MoveList) -> usize {
        self.legal_moves(scratch);
        scratch.len()
    }

    /// Every move allowed by piece geometry and the board, before royal-safety, repetition and
    /// forced-capture filters.
    ///
    /// Doubled turns (Jupiter) are generated on a copy of the position, which allocates:
    /// searches use [`Position::legal_moves`], which makes them on the position itself.
    pub fn pseudo_legal_moves(&self, out: &mut MoveList) {
        self.single_action_moves(out);
        if !self.variant.turn.doublers.is_empty() && !self.in_setup() {
            self.clone().doubled_moves(out);
        }
    }

    /// Pseudo-legal moves of one action each (everything but doubled turns).
    fn single_action_moves(&self, out: &mut MoveList) {
        out.clear();
        if self.in_setup() {
            self.setup_moves(out);
            return;
        }
        self.pseudo_legal_moves_of(self.side, out);
        self.drop_moves(out);
        if self.variant.rules.first_turn_swap == FirstTurnSwap::BackRank {
            first_turn_swap::moves(self, out);
        }
        if self.variant.rules.neutral_token.is_some() {
            self.retain_token_moves(out);
        }
    }

    /// Pseudo-legal moves of `us`, whoever is to move (appended to `out`; a probe may stop
    /// generation early).
    pub(crate) fn pseudo_legal_moves_of<S: MoveSink>(&self, us: Color, out: &mut S) {
        if self.variant.rules.capture == CaptureRule::Rifle {
            self.displacing_moves_of(us, &mut rifle::RifleSink::new(self, out));
        } else {
            self.displacing_moves_of(us, out);
        }
    }

    /// [`Position::pseudo_legal_moves_of`] with every capture by displacement (the pieces' own
    /// geometry, before the rifle rule rewrites captures).
    fn displacing_moves_of<S: MoveSink>(&self, us: Color, out: &mut S) {
        let v = &*self.variant;
        let has_powers = v.has_powers;
        let frozen = if v.immobilizers.is_empty() { SquareSet::EMPTY } else { immobilize::frozen(self, us) };
        let mut passer = None;
        let mut own = self.occupied[us.index()];
        for w in 0..WORDS {
            while own.0[w] != 0 {
                let b = own.0[w].trailing_zeros() as usize;
                own.0[w] &= own.0[w] - 1;
                let sq = Square((w * 64 + b) as u16);
                let p = self.board[sq.index()].expect("occupancy matches the board");
                if frozen.contains(sq) {
                    // An immobilized piece may only take itself off the board (Typhoon §3.7).
                    out.push(Move::normal(sq, sq).with_kind(MoveKind::SelfCapture));
                    continue;
                }
                if v.turn.any_kamikaze && v.turn.dies_when_capturing[p.kind().index()] {
                    self.own_actions(sq, p, out);
                } else {
                    // Straight to the per-piece step, without the Kamikaze's filter sink.
                    self.own_actions_into(sq, p, out.len(), out);
                }
                if has_powers && passer.is_none() && pass::can_pass(self, p) {
                    passer = Some(sq);
                }
                if out.is_done() {
                    return;
                }
            }
        }
        if !v.relayers.is_empty() {
            relay::moves(self, us, &frozen, out);
        }
        if let Some(sq) = passer {
            pass::push(sq, out);
        }
        if us == self.side && self.castling & crate::variant::castling::color_mask(us) != 0 {
            self.castling_moves(out);
        }
    }
}
