//! Doubled turns (jupiter.md §5.3, §9.2): a piece that a Doubler sees at the start of the turn
//! may make two actions attributable to it: its own actions, the relayed moves it receives, and
//! the relayed moves it lends (a doubled relay piece may relay twice, to two pieces).
//!
//! For each doubled piece D of the side to move, every first action is made on the board, the
//! intermediate burn and poison checks run, and D's actions on the resulting board are its
//! second actions. The checks spare the first action's actor if it is doubled, which is D
//! whenever D acts first; when D only lends the first action, D has not moved and the checks
//! cannot reach it. `make` applies the same rule, since a move does not record D.
//!
//! Moves are then merged by their combined effect (§9.2): a doubled turn with the effect of one
//! of D's single actions is that action; doubled turns with one effect are one move, its
//! smallest encoding; a turn that changes nothing is the position's one `pass`. Effects are
//! compared exactly, after bucketing by the position hash.
//!
//! Everything runs on the position itself (make, then rewind the journal) with buffers kept in
//! it, so generation allocates nothing once they have grown.

use std::cmp::Ordering;

use super::forward_sink_queries;
use crate::{
    movegen::{
        powers::{immobilize, pass, relay},
        MoveSink,
    },
    moves::{Move, MoveKind, MoveList},
    position::{
        turn::{actor_square_after, Candidate, DoubledBuffers},
        Position, SquareSet, TurnFacts,
    },
    types::{Piece, Square},
};

impl Position {
    /// Appends the doubled turns of the side to move to `out`, which holds its single actions
    /// (so that the pass is not added twice).
    pub(crate) fn doubled_moves(&mut self, out: &mut MoveList) {
        if self.variant.turn.doublers.is_empty() {
            return;
        }
        let us = self.side;
        let frozen = if self.variant.immobilizers.is_empty() { SquareSet::EMPTY } else { immobilize::frozen(self, us) };
        let mut doubled = self.seen_by_doublers();
        for w in 0..doubled.0.len() {
            doubled.0[w] &= self.occupied[us.index()].0[w] & !frozen.0[w];
        }
        if doubled.is_empty() {
            return;
        }
        if self.variant.turn.any_poison {
            self.snapshot_poison();
        }
        let mut has_pass = out.iter().any(|m| m.kind == MoveKind::Pass);
        let mut buffers = std::mem::take(&mut self.turn.doubled);
        buffers.candidates.clear();
        buffers.effects.clear();
        for d in doubled.iter() {
            self.doubled_turns_of(d, &doubled, &frozen, &mut buffers, out, &mut has_pass);
        }
        merge(&mut buffers, out);
        self.turn.doubled = buffers;
    }

    /// The candidates for the doubled turns attributable to the piece on `d` and for its
    /// single actions (which a doubled turn with the same effect is), into `buf`; a null turn
    /// goes to `out` as the pass.
    fn doubled_turns_of(
        &mut self,
        d: Square,
        doubled: &SquareSet,
        frozen: &SquareSet,
        buf: &mut DoubledBuffers,
        out: &mut MoveList,
        has_pass: &mut bool,
    ) {
        let us = self.side;
        let checks = self.variant.turn.has_checks();
        buf.firsts.clear();
        self.actions_of(d, frozen, &mut buf.firsts);
        let turn_start = self.journal.len();
        let mut facts = TurnFacts::default();
        // Single actions first: a doubled turn with the same effect is that action.
        for i in 0..buf.firsts.len() {
            let first = buf.firsts[i];
            self.apply_action(&first, &mut facts);
            self.push_candidate(first, d, turn_start, buf);
            self.rewind(turn_start);
        }
        for i in 0..buf.firsts.len() {
            let first = buf.firsts[i];
            let actor_is_d = first.from == d;
            // The exemption follows `make`'s rule: the first action's actor, if doubled.
            let actor_doubled = doubled.contains(first.from);
            self.apply_action(&first, &mut facts);
            let actor_now = actor_square_after(&first);
            let d_now = if actor_is_d { actor_now } else { d };
            if checks {
                let exempt = if actor_doubled { actor_now } else { Square::NONE };
                self.end_of_action_checks(turn_start, exempt);
            }
            // D must still be on the board (a Kamikaze that captured is gone).
            if self.board[d_now.index()].is_some_and(|p| p.color() == us) {
                let mid = self.journal.len();
                buf.seconds.clear();
                self.actions_of(d_now, frozen, &mut buf.seconds);
                for j in 0..buf.seconds.len() {
                    let second = buf.seconds[j];
                    self.apply_action(&second, &mut facts);
                    self.push_candidate(Move::doubled(first, second), d, turn_start, buf);
                    if buf.candidates.last().is_some_and(|c| c.effect_len == 0) {
                        buf.candidates.pop();
                        self.null_turn(d, out, has_pass);
                    }
                    self.rewind(mid);
                }
            }
            self.rewind(turn_start);
        }
    }

    /// The position's single `pass` stands for a doubled turn that changes nothing (§5.3 rule 4).
    fn null_turn(&self, d: Square, out: &mut MoveList, has_pass: &mut bool) {
        if !*has_pass {
            pass::push(d, out);
            *has_pass = true;
        }
    }

    fn push_candidate(&self, mv: Move, doubled_piece: Square, turn_start: usize, buf: &mut DoubledBuffers) {
        let effect_start = buf.effects.len() as u32;
        let effect_len = self.effect_since(turn_start, &mut buf.effects) as u32;
        buf.candidates.push(Candidate { mv, doubled_piece, hash: self.hash, effect_start, effect_len });
    }

    /// Every action attributable to the piece on `sq` (§5.3 rule 2), on the current board: its
    /// own actions (no pass, no self-capture: never part of a doubled turn), the relayed moves
    /// it receives and the relayed moves it lends. Immobilization is the start of the turn's.
    fn actions_of(&self, sq: Square, frozen: &SquareSet, out: &mut MoveList) {
        let Some(p) = self.board[sq.index()] else { return };
        let v = &*self.variant;
        let start = out.len();
        self.own_actions(sq, p, &mut Actions(out));
        out.retain(|m| !matches!(m.kind, MoveKind::Pass | MoveKind::SelfCapture));
        if !v.relayers.is_empty() {
            // Relayed moves it receives, from every relayer of its side.
            relay::moves_received(self, sq, frozen, out);
            if v.relayers.contains(&p.kind()) {
                relay::moves_from_relayer(self, sq, frozen, out);
            }
        }
        debug_assert!(out[start..].iter().all(|m| !m.is_doubled()));
    }
}

/// Appends to `out` one doubled turn per combined effect (§9.2), its smallest encoding,
/// except the effects that a single action of a piece the turn is attributable to has (the
/// turn is that action, already in `out`).
///
/// Turns of different doubled pieces with one effect are one move too: a doubled turn's text
/// (`a,b`) does not name its doubled piece, and `make` resolves it without knowing it (the
/// exemption between the actions is the first actor's, if doubled), so such turns are the
/// same move however they are attributed (e.g. a Zoom lending two moves, or the piece it
/// lends to lending the other one itself).
fn merge(buf: &mut DoubledBuffers, out: &mut MoveList) {
    let effects = &buf.effects;
    let effect = |c: &Candidate| &effects[c.effect_start as usize..(c.effect_start + c.effect_len) as usize];
    let cands = &mut buf.candidates;
    // Within one hash: single actions first, then doubled turns in canonical order, so that
    // the first doubled turn of an effect is its representative.
    cands.sort_unstable_by(|a, b| a.hash.cmp(&b.hash).then_with(|| canonical_order(&a.mv, &b.mv)));
    let mut i = 0;
    while i < cands.len() {
        let mut j = i;
        while j < cands.len() && cands[j].hash == cands[i].hash {
            j += 1;
        }
        let group = &cands[i..j];
        for (k, c) in group.iter().enumerate() {
            if !c.mv.is_doubled() || group[..k].iter().any(|e| e.mv.is_doubled() && effect(e) == effect(c)) {
                continue;
            }
            let same = |e: &&Candidate| effect(e) == effect(c);
            let is_a_single_action = group.iter().filter(same).any(|single| {
                !single.mv.is_doubled()
                    && group.iter().filter(same).any(|t| t.mv.is_doubled() && t.doubled_piece == single.doubled_piece)
            });
            if !is_a_single_action {
                out.push(c.mv);
            }
        }
        i = j;
    }
}

/// The rank of an action kind in the canonical order of jupiter.md §9.2.
fn kind_rank(kind: MoveKind) -> u8 {
    match kind {
        MoveKind::Pass => 0,
        MoveKind::SelfCapture => 1,
        MoveKind::Normal | MoveKind::Shove | MoveKind::Castle | MoveKind::Drop | MoveKind::Setup | MoveKind::Mark => 2,
        MoveKind::Stationary => 3,
        MoveKind::Swap => 4,
        MoveKind::Convert => 5,
        MoveKind::Pull => 6,
        MoveKind::Push => 7,
        MoveKind::Reproduce => 8,
    }
}

/// The canonical order of single actions (§9.2): kind, from, to or target, removed set,
/// converted square, promotion last.
fn action_order(a: &Move, b: &Move) -> Ordering {
    let target = |m: &Move| match m.kind {
        MoveKind::Pull | MoveKind::Push | MoveKind::Reproduce => m.aux,
        _ => m.to,
    };
    let converted = |m: &Move| match m.kind {
        MoveKind::Normal | MoveKind::Convert => m.aux,
        _ => Square::NONE,
    };
    kind_rank(a.kind)
        .cmp(&kind_rank(b.kind))
        .then(a.from.cmp(&b.from))
        .then(target(a).cmp(&target(b)))
        .then_with(|| a.captures().cmp(b.captures()))
        .then(converted(a).cmp(&converted(b)))
        .then(a.piece.is_some().cmp(&b.piece.is_some()))
}

/// The canonical order of moves (§9.2): fewer actions first, then action by action.
pub(crate) fn canonical_order(a: &Move, b: &Move) -> Ordering {
    a.is_doubled().cmp(&b.is_doubled()).then_with(|| action_order(&a.first_action(), &b.first_action())).then_with(
        || match (a.second_action(), b.second_action()) {
            (Some(x), Some(y)) => action_order(&x, &y),
            _ => Ordering::Equal,
        },
    )
}

impl Position {
    /// A piece's own actions on `sq`: its Betza moves and powers, as the driver generates them.
    pub(crate) fn own_actions<S: MoveSink>(&self, sq: Square, p: Piece, out: &mut S) {
        let v = &*self.variant;
        if v.turn.any_kamikaze && v.turn.dies_when_capturing[p.kind().index()] {
            // It is gone the moment it captures, so it never promotes by capturing (§6 rule 6).
            let start = out.len();
            let mut sink = NoPromotingCapture { pos: self, mover: p, inner: out };
            self.own_actions_into(sq, p, start, &mut sink);
        } else {
            self.own_actions_into(sq, p, out.len(), out);
        }
    }

    /// One piece's step of the driver (`pseudo_legal_moves_of`) and of doubled turns: table
    /// moves, or table and multi-leg moves one per effect, then powers. Always inlined, so that
    /// the generators it calls are inlined into the driver for the driver's sink (perft speed).
    #[inline(always)]
    pub(crate) fn own_actions_into<S: MoveSink>(&self, sq: Square, p: Piece, start: usize, out: &mut S) {
        let v = &*self.variant;
        let mut one_per_effect = false;
        match v.legs.trie(p.color(), p.kind()) {
            None => self.piece_moves(sq, p, out),
            Some(trie) => {
                self.moves_with_legs(sq, p, trie, out);
                one_per_effect = true;
            }
        }
        if v.has_powers && !v.powers[p.kind().index()].is_empty() {
            self.own_power_moves(sq, p, out);
            one_per_effect = false;
        }
        if v.pieces[p.kind().index()].needs_dedup && !one_per_effect {
            out.dedup_from(start);
        }
    }
}

/// A move list under a type of its own, so that the generators' code for the driver's sink
/// (`MoveList`) keeps a single caller and stays inlined there.
struct Actions<'a>(&'a mut MoveList);

impl MoveSink for Actions<'_> {
    #[inline]
    fn push(&mut self, m: Move) {
        self.0.push(m);
    }

    fn len(&self) -> usize {
        self.0.len()
    }

    fn dedup_from(&mut self, start: usize) {
        self.0.dedup_from(start);
    }

    fn has_displacement(&self, from: Square, to: Square) -> bool {
        self.0.has_displacement(from, to)
    }

    fn displacements_from(&self, from: Square) -> SquareSet {
        self.0.displacements_from(from)
    }

    fn is_done(&self) -> bool {
        false
    }
}

/// Passes on every move but the promoting captures of `mover` (a Kamikaze).
struct NoPromotingCapture<'a, S: MoveSink> {
    pos: &'a Position,
    mover: Piece,
    inner: &'a mut S,
}

impl<S: MoveSink> MoveSink for NoPromotingCapture<'_, S> {
    #[inline]
    fn push(&mut self, m: Move) {
        let enemy_on_to =
            m.kind == MoveKind::Normal && self.pos.piece_at(m.to).is_some_and(|q| q.color() != self.mover.color());
        if m.piece.is_none() || (m.captures().is_empty() && !enemy_on_to) {
            self.inner.push(m);
        }
    }

    forward_sink_queries!();
}
