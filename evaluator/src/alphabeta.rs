//! The alpha-beta baseline: negamax with iterative deepening, a transposition table keyed by
//! the position's search key, move ordering (TT move, MVV-LVA captures, promotions, killer
//! moves, history), quiescence search on captures (all evasions when a royal is in check under
//! the checkmate rule) and a material + mobility evaluation. It works for every variant the
//! rules engine plays: game ends come from [`Position::outcome_with`] (checkmate, royal capture,
//! bare king, extinction, stalemate values, repetition and move-count rules).
//!
//! Evaluation, for the side to move, in centipawns:
//!
//! ```text
//! material(us) - material(them) + mobility_cp * (legal moves now - legal moves of the parent)
//! ```
//!
//! The parent's legal-move count is the opponent's mobility one ply earlier: the rules API has
//! no null move, and every node generates its legal moves anyway (to detect game ends), so
//! mobility costs nothing extra. Material uses [`PieceValues`] with a configurable source, so
//! that a tool measuring piece values can run the engine with uniform or mobility values.

use std::{
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
    time::{Duration, Instant},
};

use fairyzero_rules::{variant::RoyalRule, Color, Move, MoveKind, MoveList, Outcome, Position, Variant};

use crate::values::{PieceValues, ValueSource};

/// Search settings. At least one of `depth`, `nodes` and `time` should be set; with none the
/// engine searches depth 2. With several, the first limit reached ends the search (a `stop`
/// flag set by another thread counts as one).
#[derive(Clone, Debug)]
pub struct AlphaBetaConfig {
    /// Deepest iteration (plies, before quiescence).
    pub depth: Option<u32>,
    /// Node budget (moves made, quiescence included); the last completed iteration's move is
    /// played (or a better one from the interrupted iteration).
    pub nodes: Option<u64>,
    /// Wall-clock budget per move, same rule as `nodes`: iterative deepening until it runs
    /// out. The clock is read every [`CLOCK_CHECK_NODES`] nodes, so the check costs nothing
    /// measurable and the budget is overrun by at most that many nodes.
    pub time: Option<Duration>,
    pub values: ValueSource,
    /// Centipawns per legal move of mobility difference.
    pub mobility_cp: i32,
    /// The transposition table has `2^tt_bits` entries (default: 2^14 for a depth limit, about
    /// twice the node budget otherwise, at most 2^22).
    pub tt_bits: Option<u32>,
    /// Most plies of quiescence below the nominal depth.
    pub qsearch_plies: u32,
    /// Ends the search when another thread sets it (an engine's `stop`, a GUI's "move now"):
    /// read with the clock, every [`CLOCK_CHECK_NODES`] nodes, so the search answers within
    /// about a millisecond. The flag is not cleared by the search.
    pub stop: Option<Arc<AtomicBool>>,
}

/// Two configurations are equal when their settings are and they watch the same stop flag
/// (the flag's identity, not its current value).
impl PartialEq for AlphaBetaConfig {
    fn eq(&self, other: &Self) -> bool {
        let same_stop = match (&self.stop, &other.stop) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        same_stop
            && self.depth == other.depth
            && self.nodes == other.nodes
            && self.time == other.time
            && self.values == other.values
            && self.mobility_cp == other.mobility_cp
            && self.tt_bits == other.tt_bits
            && self.qsearch_plies == other.qsearch_plies
    }
}

impl Default for AlphaBetaConfig {
    fn default() -> Self {
        AlphaBetaConfig {
            depth: None,
            nodes: None,
            time: None,
            values: ValueSource::Nominal,
            mobility_cp: 4,
            tt_bits: None,
            qsearch_plies: 12,
            stop: None,
        }
    }
}

/// What one search found.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    pub best: Option<Move>,
    /// Centipawns for the side to move; mates are near ±[`MATE`].
    pub score: i32,
    /// Deepest completed iteration.
    pub depth: u32,
    pub nodes: u64,
    pub seconds: f64,
}

/// What a completed iteration of [`AlphaBeta::search_with`] found, for a progress report.
#[derive(Clone, Debug, PartialEq)]
pub struct Iteration {
    /// The iteration's depth (plies before quiescence).
    pub depth: u32,
    /// Centipawns for the side to move; mates are near ±[`MATE`].
    pub score: i32,
    /// Nodes of the whole search so far.
    pub nodes: u64,
    pub elapsed: Duration,
    /// The principal variation, read from the transposition table (its best moves from the
    /// root on, while each is legal and the line does not repeat a position): at least the
    /// iteration's best move, at most `depth` moves; an entry overwritten by another position
    /// ends it early.
    pub pv: Vec<Move>,
}

/// Score of a win at the root; a win `n` plies away scores `MATE - n`.
pub const MATE: i32 = 100_000_000;
const INF: i32 = 1_000_000_000;
const MAX_PLY: usize = 128;
const MATE_BOUND: i32 = MATE - 1_000;

/// Nodes between two readings of the clock under a time budget. Every node generates its legal
/// moves (at least a microsecond; 100,000 to 800,000 nodes/s, docs/performance.md), so one
/// `Instant::now` (tens of nanoseconds) per 512 nodes costs under 0.01%, while a budget is
/// overrun by at most 1 to 5 ms on those variants (more on the slowest boards, Chushin).
pub const CLOCK_CHECK_NODES: u64 = 512;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Clone, Copy)]
struct TtEntry {
    key: u64,
    mv: Option<Move>,
    score: i32,
    depth: i16,
    bound: Bound,
}

pub struct AlphaBeta {
    config: AlphaBetaConfig,
    /// Centipawns per piece type (royals 0).
    values: Vec<i32>,
    /// MVV-LVA victim values (royals high).
    victims: Vec<i32>,
    royal_checkmate: bool,
    nsq: usize,
    tt: Vec<Option<TtEntry>>,
    killers: Vec<[Option<Move>; 2]>,
    history: Vec<i32>,
    lists: Vec<MoveList>,
    captures: Vec<MoveList>,
    scores: Vec<Vec<i32>>,
    nodes: u64,
    budget: u64,
    /// When this search must stop, under a time budget.
    deadline: Option<Instant>,
    /// The node count at which the budgets are checked next: the node budget, or sooner the
    /// next clock reading. One comparison per node covers both limits.
    check_at: u64,
    stopped: bool,
    cap_ply: u32,
    /// The tables hold something from an earlier search.
    dirty: bool,
}

impl AlphaBeta {
    pub fn new(variant: &Arc<Variant>, config: AlphaBetaConfig) -> AlphaBeta {
        let pv = PieceValues::new(variant, config.values);
        let values: Vec<i32> = pv.values.iter().map(|v| (v * 100.0).round() as i32).collect();
        let victims =
            variant.pieces.iter().zip(&values).map(|(p, &v)| if p.royal { 100_000 } else { v.max(1) }).collect();
        let nsq = variant.dims.squares();
        let tt_bits = match (config.tt_bits, config.nodes) {
            (Some(b), _) => b.clamp(4, 28),
            (None, Some(n)) => (64 - n.leading_zeros()).clamp(12, 22),
            (None, None) => 14,
        };
        AlphaBeta {
            values,
            victims,
            royal_checkmate: variant.rules.royal == RoyalRule::Checkmate,
            nsq,
            tt: vec![None; 1 << tt_bits],
            killers: vec![[None; 2]; MAX_PLY + 1],
            history: vec![0; nsq * nsq],
            lists: (0..=MAX_PLY).map(|_| MoveList::with_capacity(64)).collect(),
            captures: (0..=MAX_PLY).map(|_| MoveList::with_capacity(16)).collect(),
            scores: (0..=MAX_PLY).map(|_| Vec::with_capacity(64)).collect(),
            nodes: 0,
            budget: u64::MAX,
            deadline: None,
            check_at: u64::MAX,
            stopped: false,
            cap_ply: u32::MAX,
            dirty: false,
            config,
        }
    }

    /// Forgets everything learned (transposition table, history); `cap_ply` is the game's move
    /// cap as a [`Position::ply`] (positions at or beyond it score as draws).
    pub fn new_game(&mut self, cap_ply: u32) {
        if self.dirty {
            self.tt.iter_mut().for_each(|e| *e = None);
            self.history.iter_mut().for_each(|h| *h = 0);
            self.dirty = false;
        }
        self.cap_ply = cap_ply;
    }

    /// Static evaluation of `pos` for the side to move, given both sides' mobility.
    pub fn evaluate(&self, pos: &Position, mobility_us: i32, mobility_them: i32) -> i32 {
        let counts = pos.piece_counts();
        let us = pos.side_to_move().index();
        let mut s = 0i32;
        for (t, &v) in self.values.iter().enumerate() {
            if v != 0 {
                s += v * (counts[2 * t + us] as i32 - counts[2 * t + 1 - us] as i32);
            }
        }
        s + self.config.mobility_cp * (mobility_us - mobility_them)
    }

    /// The search limits of the next searches (the tables are kept: an engine changes its
    /// budget from move to move within one game).
    pub fn set_limits(&mut self, depth: Option<u32>, nodes: Option<u64>, time: Option<Duration>) {
        self.config.depth = depth;
        self.config.nodes = nodes;
        self.config.time = time;
    }

    /// The stop flag of the next searches (see [`AlphaBetaConfig::stop`]).
    pub fn set_stop(&mut self, stop: Option<Arc<AtomicBool>>) {
        self.config.stop = stop;
    }

    pub fn config(&self) -> &AlphaBetaConfig {
        &self.config
    }

    /// Searches `pos` (returned unchanged) within the configured depth, node and time budgets.
    pub fn search(&mut self, pos: &mut Position) -> SearchResult {
        self.search_with(pos, &mut |_| {})
    }

    /// [`AlphaBeta::search`], calling `progress` after every completed iteration (not after
    /// one cut short by a budget or the stop flag). A root with one legal move or a game
    /// already over is not searched, and reports nothing.
    pub fn search_with(&mut self, pos: &mut Position, progress: &mut dyn FnMut(&Iteration)) -> SearchResult {
        let started = Instant::now();
        self.nodes = 0;
        self.stopped = false;
        self.dirty = true;
        self.budget = self.config.nodes.unwrap_or(u64::MAX);
        // A budget too large to add to the clock (years) is no budget.
        self.deadline = self.config.time.and_then(|t| started.checked_add(t));
        self.check_at = self.next_check();
        let max_depth = match (self.config.depth, self.config.nodes.is_some() || self.config.time.is_some()) {
            (Some(d), _) => d.clamp(1, MAX_PLY as u32 / 2),
            (None, true) => MAX_PLY as u32 / 2,
            (None, false) => 2,
        };
        self.killers.iter_mut().for_each(|k| *k = [None; 2]);
        self.history.iter_mut().for_each(|h| *h /= 8);

        let mut root = MoveList::new();
        pos.legal_moves(&mut root);
        let done = |best, score, depth, nodes| SearchResult {
            best,
            score,
            depth,
            nodes,
            seconds: started.elapsed().as_secs_f64(),
        };
        if root.is_empty() || pos.outcome_with(&root).is_some() {
            return done(None, 0, 0, 0);
        }
        if root.len() == 1 {
            return done(Some(root[0]), 0, 0, 0);
        }
        let mut best: Option<Move> = None;
        let mut best_score = 0;
        let mut completed = 0;
        for depth in 1..=max_depth {
            let (m, s, complete) = self.root_search(pos, &mut root, depth as i32, best);
            if let Some(m) = m {
                if complete || best.is_none() || Some(m) != best {
                    best = Some(m);
                    best_score = s;
                }
            }
            if !complete {
                break;
            }
            completed = depth;
            let pv = self.tt_pv(pos, best, depth as usize);
            progress(&Iteration { depth, score: s, nodes: self.nodes, elapsed: started.elapsed(), pv });
            if s.abs() >= MATE_BOUND {
                break;
            }
        }
        done(best.or(Some(root[0])), best_score, completed, self.nodes)
    }

    /// The node count at which [`AlphaBeta::out_of_budget`] is asked next.
    fn next_check(&self) -> u64 {
        if self.deadline.is_some() || self.config.stop.is_some() {
            self.budget.min(self.nodes.saturating_add(CLOCK_CHECK_NODES))
        } else {
            self.budget
        }
    }

    /// Called when `nodes` reaches `check_at`: whether a budget is spent or the stop flag set
    /// (then the search stops), else when to ask again.
    #[cold]
    fn out_of_budget(&mut self) -> bool {
        if self.nodes >= self.budget
            || self.config.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed))
            || self.deadline.is_some_and(|d| Instant::now() >= d)
        {
            return true;
        }
        self.check_at = self.next_check();
        false
    }

    /// One iteration at the root. Returns the best fully searched move, its score and whether
    /// the iteration completed.
    fn root_search(
        &mut self,
        pos: &mut Position,
        root: &mut MoveList,
        depth: i32,
        previous: Option<Move>,
    ) -> (Option<Move>, i32, bool) {
        let mut scores: Vec<i32> = root.iter().map(|m| self.order_score(pos, m, previous, 0)).collect();
        sort_by_scores(root, &mut scores);
        let mobility = root.len() as i32;
        let mut alpha = -INF;
        let mut best = None;
        for i in 0..root.len() {
            let m = root[i];
            let mover = pos.side_to_move();
            pos.make(m);
            self.nodes += 1;
            // Scores are the side to move's: negated where the other side moves next, kept
            // where a multi-move turn goes on (issue 21, #11-#16).
            let s = if pos.side_to_move() == mover {
                self.negamax(pos, depth - 1, alpha, INF, 1, mobility)
            } else {
                -self.negamax(pos, depth - 1, -INF, -alpha, 1, mobility)
            };
            pos.unmake();
            if self.stopped {
                return (best, alpha, false);
            }
            if s > alpha || best.is_none() {
                alpha = s;
                best = Some(m);
            }
        }
        self.tt_store(pos.search_key(), best, alpha, depth, Bound::Exact, 0);
        (best, alpha, true)
    }

    fn negamax(
        &mut self,
        pos: &mut Position,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
        parent_mobility: i32,
    ) -> i32 {
        if self.nodes >= self.check_at && self.out_of_budget() {
            self.stopped = true;
            return 0;
        }
        let mut moves = std::mem::take(&mut self.lists[ply]);
        pos.legal_moves(&mut moves);
        let s = if depth <= 0 || ply >= MAX_PLY - 1 {
            self.quiesce_with(pos, &moves, alpha, beta, ply, parent_mobility, 0)
        } else {
            self.negamax_with(pos, &mut moves, depth, alpha, beta, ply)
        };
        self.lists[ply] = moves;
        s
    }

    fn negamax_with(
        &mut self,
        pos: &mut Position,
        moves: &mut MoveList,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        if let Some(o) = pos.outcome_with(moves) {
            return terminal(o, pos.side_to_move(), ply);
        }
        if pos.ply() >= self.cap_ply && !pos.in_setup() {
            return 0;
        }
        let key = pos.search_key();
        let mut tt_move = None;
        if let Some(e) = self.tt_probe(key) {
            tt_move = e.mv;
            if e.depth as i32 >= depth {
                let s = from_tt(e.score, ply);
                match e.bound {
                    Bound::Exact => return s,
                    Bound::Lower if s >= beta => return s,
                    Bound::Upper if s <= alpha => return s,
                    _ => {}
                }
            }
        }
        let alpha0 = alpha;
        let mut scores = std::mem::take(&mut self.scores[ply]);
        scores.clear();
        scores.extend(moves.iter().map(|m| self.order_score(pos, m, tt_move, ply)));
        let mobility = moves.len() as i32;
        let mut best = -INF;
        let mut best_move = None;
        for i in 0..moves.len() {
            pick_next(moves, &mut scores, i);
            let m = moves[i];
            let quiet = !pos.is_capture(&m);
            let mover = pos.side_to_move();
            pos.make(m);
            self.nodes += 1;
            let s = if pos.side_to_move() == mover {
                self.negamax(pos, depth - 1, alpha, beta, ply + 1, mobility)
            } else {
                -self.negamax(pos, depth - 1, -beta, -alpha, ply + 1, mobility)
            };
            pos.unmake();
            if self.stopped {
                self.scores[ply] = scores;
                return 0;
            }
            if s > best {
                best = s;
                best_move = Some(m);
                if s > alpha {
                    alpha = s;
                    if s >= beta {
                        if quiet {
                            let k = &mut self.killers[ply];
                            if k[0] != Some(m) {
                                k[1] = k[0];
                                k[0] = Some(m);
                            }
                            if let Some(h) = self.history_slot(&m) {
                                self.history[h] = (self.history[h] + depth * depth).min(1 << 20);
                            }
                        }
                        break;
                    }
                }
            }
        }
        self.scores[ply] = scores;
        let bound = if best <= alpha0 {
            Bound::Upper
        } else if best >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.tt_store(key, best_move, best, depth, bound, ply);
        best
    }

    fn quiesce(
        &mut self,
        pos: &mut Position,
        alpha: i32,
        beta: i32,
        ply: usize,
        parent_mobility: i32,
        qply: u32,
    ) -> i32 {
        if self.nodes >= self.check_at && self.out_of_budget() {
            self.stopped = true;
            return 0;
        }
        let mut moves = std::mem::take(&mut self.lists[ply]);
        pos.legal_moves(&mut moves);
        let s = self.quiesce_with(pos, &moves, alpha, beta, ply, parent_mobility, qply);
        self.lists[ply] = moves;
        s
    }

    #[allow(clippy::too_many_arguments)]
    fn quiesce_with(
        &mut self,
        pos: &mut Position,
        moves: &MoveList,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        parent_mobility: i32,
        qply: u32,
    ) -> i32 {
        if let Some(o) = pos.outcome_with(moves) {
            return terminal(o, pos.side_to_move(), ply);
        }
        if pos.ply() >= self.cap_ply && !pos.in_setup() {
            return 0;
        }
        let mobility = moves.len() as i32;
        let stand = self.evaluate(pos, mobility, parent_mobility);
        let in_check = self.royal_checkmate && pos.in_check(pos.side_to_move());
        if qply >= self.config.qsearch_plies || ply >= MAX_PLY - 1 {
            return stand;
        }
        let best = if in_check { -INF } else { stand };
        if !in_check {
            if stand >= beta {
                return stand;
            }
            alpha = alpha.max(stand);
        }
        let mut candidates = std::mem::take(&mut self.captures[ply]);
        candidates.clear();
        candidates.extend(moves.iter().filter(|m| in_check || pos.is_capture(m)));
        let mut scores = std::mem::take(&mut self.scores[ply]);
        scores.clear();
        scores.extend(candidates.iter().map(|m| self.capture_score(pos, m)));
        let s = self.quiesce_moves(pos, &mut candidates, &mut scores, best, alpha, beta, ply, mobility, qply);
        self.captures[ply] = candidates;
        self.scores[ply] = scores;
        s
    }

    #[allow(clippy::too_many_arguments)]
    fn quiesce_moves(
        &mut self,
        pos: &mut Position,
        candidates: &mut [Move],
        scores: &mut [i32],
        mut best: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        mobility: i32,
        qply: u32,
    ) -> i32 {
        for i in 0..candidates.len() {
            pick_next(candidates, scores, i);
            let m = candidates[i];
            let mover = pos.side_to_move();
            pos.make(m);
            self.nodes += 1;
            let s = if pos.side_to_move() == mover {
                self.quiesce(pos, alpha, beta, ply + 1, mobility, qply + 1)
            } else {
                -self.quiesce(pos, -beta, -alpha, ply + 1, mobility, qply + 1)
            };
            pos.unmake();
            if self.stopped {
                return 0;
            }
            if s > best {
                best = s;
                if s > alpha {
                    alpha = s;
                    if s >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    fn capture_score(&self, pos: &Position, m: &Move) -> i32 {
        let mut victim = 0;
        if m.kind == MoveKind::Normal {
            if let Some(p) = pos.piece_at(m.to) {
                if p.color() != pos.side_to_move() {
                    victim += self.victims[p.kind().index()];
                }
            }
        }
        for &sq in m.captures() {
            if let Some(p) = pos.piece_at(sq) {
                if p.color() != pos.side_to_move() {
                    victim += self.victims[p.kind().index()];
                }
            }
        }
        let attacker = pos.piece_at(m.from).map_or(0, |p| self.values[p.kind().index()]);
        victim * 64 - attacker
    }

    fn order_score(&self, pos: &Position, m: &Move, tt_move: Option<Move>, ply: usize) -> i32 {
        if tt_move == Some(*m) {
            return 1 << 30;
        }
        if pos.is_capture(m) {
            return (1 << 28) + self.capture_score(pos, m).clamp(-(1 << 26), 1 << 26);
        }
        if m.kind == MoveKind::Normal {
            if let Some(t) = m.piece {
                return (1 << 27) + self.values[t.index()];
            }
        }
        let k = &self.killers[ply];
        if k[0] == Some(*m) {
            return (1 << 26) + 1;
        }
        if k[1] == Some(*m) {
            return 1 << 26;
        }
        self.history_slot(m).map_or(0, |h| self.history[h])
    }

    fn history_slot(&self, m: &Move) -> Option<usize> {
        let (f, t) = (m.from.index(), m.to.index());
        (f < self.nsq && t < self.nsq).then_some(f * self.nsq + t)
    }

    /// The principal variation below `pos`: `first`, then the transposition table's best move
    /// of each following position, while the entry is there, its move legal, and the line
    /// repeats no position; at most `max` moves.
    fn tt_pv(&self, pos: &mut Position, first: Option<Move>, max: usize) -> Vec<Move> {
        let mut pv = Vec::new();
        let Some(first) = first else { return pv };
        let mut seen = vec![pos.search_key()];
        let mut legal = MoveList::new();
        let mut next = Some(first);
        while let Some(m) = next {
            if pv.len() >= max.max(1) {
                break;
            }
            pos.legal_moves(&mut legal);
            if !legal.contains(&m) || pos.outcome_with(&legal).is_some() {
                break;
            }
            pos.make(m);
            pv.push(m);
            let key = pos.search_key();
            if seen.contains(&key) {
                break;
            }
            seen.push(key);
            next = self.tt_probe(key).and_then(|e| e.mv);
        }
        for _ in 0..pv.len() {
            pos.unmake();
        }
        pv
    }

    fn tt_probe(&self, key: u64) -> Option<TtEntry> {
        let e = self.tt[key as usize & (self.tt.len() - 1)]?;
        (e.key == key).then_some(e)
    }

    fn tt_store(&mut self, key: u64, mv: Option<Move>, score: i32, depth: i32, bound: Bound, ply: usize) {
        let slot = key as usize & (self.tt.len() - 1);
        if let Some(old) = self.tt[slot] {
            // Keep a deeper entry of the same position unless the new one is exact.
            if old.key == key && old.depth as i32 > depth && bound != Bound::Exact {
                return;
            }
        }
        self.tt[slot] = Some(TtEntry { key, mv, score: to_tt(score, ply), depth: depth as i16, bound });
    }
}

fn terminal(o: Outcome, us: Color, ply: usize) -> i32 {
    match o.winner() {
        Some(w) if w == us => MATE - ply as i32,
        Some(_) => -(MATE - ply as i32),
        None => 0,
    }
}

fn to_tt(s: i32, ply: usize) -> i32 {
    if s >= MATE_BOUND {
        s + ply as i32
    } else if s <= -MATE_BOUND {
        s - ply as i32
    } else {
        s
    }
}

fn from_tt(s: i32, ply: usize) -> i32 {
    if s >= MATE_BOUND {
        s - ply as i32
    } else if s <= -MATE_BOUND {
        s + ply as i32
    } else {
        s
    }
}

/// Moves the best-scored remaining move to position `i` (selection sort, lazily).
fn pick_next(moves: &mut [Move], scores: &mut [i32], i: usize) {
    let mut j = i;
    for k in i + 1..moves.len() {
        if scores[k] > scores[j] {
            j = k;
        }
    }
    moves.swap(i, j);
    scores.swap(i, j);
}

/// Sorts moves by descending score, stably.
fn sort_by_scores(moves: &mut [Move], scores: &mut [i32]) {
    let mut idx: Vec<usize> = (0..moves.len()).collect();
    idx.sort_by_key(|&i| std::cmp::Reverse(scores[i]));
    let sorted_moves: Vec<Move> = idx.iter().map(|&i| moves[i]).collect();
    let sorted_scores: Vec<i32> = idx.iter().map(|&i| scores[i]).collect();
    moves.copy_from_slice(&sorted_moves);
    scores.copy_from_slice(&sorted_scores);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine(name: &str, depth: u32) -> (Arc<Variant>, AlphaBeta) {
        let v = Variant::load(name).unwrap();
        let e = AlphaBeta::new(&v, AlphaBetaConfig { depth: Some(depth), ..AlphaBetaConfig::default() });
        (v, e)
    }

    fn best(v: &Arc<Variant>, e: &mut AlphaBeta, fen: &str) -> (String, SearchResult) {
        let mut pos = Position::from_fen(Arc::clone(v), fen).unwrap();
        let before = pos.to_fen();
        let r = e.search(&mut pos);
        assert_eq!(pos.to_fen(), before, "the search must leave the position unchanged");
        (pos.move_to_string(&r.best.unwrap()), r)
    }

    /// In a multi-move turn the side to move stays the same between the turn's moves: a score
    /// negated there would make the search avoid its own wins (Trenholme's double move chess:
    /// two moves a turn, capturing the king wins).
    #[test]
    fn a_turn_of_two_moves_is_searched_as_one_side_moving_twice() {
        let (v, mut e) = engine("doublemove", 2);
        let (m, r) = best(&v, &mut e, "7k/8/8/8/8/1K6/8/R7 w - - 0 2");
        assert!(r.score > MATE_BOUND, "rook to the 8th rank or h-file, then takes the king: {m} {r:?}");
        assert!(["a1a8", "a1h1"].contains(&m.as_str()), "{m}");
        // The same for the second side: Black's two moves take White's king.
        let (_, r) = best(&v, &mut e, "7K/8/8/8/8/1k6/8/r7 b - - 0 2");
        assert!(r.score > MATE_BOUND, "{r:?}");
    }

    #[test]
    fn finds_mate_in_one_and_two() {
        let (v, mut e) = engine("chess", 1);
        let (m, r) = best(&v, &mut e, "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
        assert_eq!(m, "a1a8");
        assert_eq!(r.score, MATE - 1);
        // Mate in two (rook ladder): needs depth 3.
        let (v, mut e) = engine("chess", 3);
        let (_, r) = best(&v, &mut e, "7k/8/8/8/8/8/R7/1R4K1 w - - 0 1");
        assert_eq!(r.score, MATE - 3, "{r:?}");
    }

    #[test]
    fn quiescence_sees_the_recapture() {
        // Qxd5 wins a pawn but loses the queen to exd5 (depth 1 plus quiescence must see it).
        let (v, mut e) = engine("chess", 1);
        let (m, _) = best(&v, &mut e, "4k3/8/4p3/3p4/8/8/3Q4/4K3 w - - 0 1");
        assert_ne!(m, "d2d5");
    }

    #[test]
    fn node_budget_is_respected_and_deepens() {
        let v = Variant::load("losalamos").unwrap();
        let mut e = AlphaBeta::new(&v, AlphaBetaConfig { nodes: Some(5_000), ..AlphaBetaConfig::default() });
        let mut pos = Position::start(Arc::clone(&v));
        let r = e.search(&mut pos);
        assert!(r.best.is_some());
        assert!(r.nodes <= 5_000, "{r:?}");
        assert!(r.depth >= 2, "{r:?}");
    }

    /// A time budget ends iterative deepening where depth 64 would run for ages: within 2x of
    /// the budget (the clock is read every `CLOCK_CHECK_NODES` nodes, about a millisecond
    /// here), with the last completed iteration's move. Combined limits: the first one reached
    /// wins.
    #[test]
    fn time_budget_is_respected_and_combines_with_depth_and_nodes() {
        let v = Variant::load("chess").unwrap();
        let budget = Duration::from_millis(150);
        let mut e = AlphaBeta::new(&v, AlphaBetaConfig { time: Some(budget), ..AlphaBetaConfig::default() });
        let mut pos = Position::start(Arc::clone(&v));
        let before = pos.to_fen();
        let started = Instant::now();
        let r = e.search(&mut pos);
        let took = started.elapsed();
        assert_eq!(pos.to_fen(), before);
        assert!(took >= budget && took <= 2 * budget, "{took:?} for a budget of {budget:?}: {r:?}");
        assert!(r.depth >= 2 && r.depth < 20, "{r:?}");
        let mut legal = MoveList::new();
        pos.legal_moves(&mut legal);
        assert!(legal.contains(&r.best.unwrap()));
        // The depth limit comes first: depth 2 takes microseconds, not the hour allowed.
        let hour = Some(Duration::from_secs(3600));
        let mut e = AlphaBeta::new(&v, AlphaBetaConfig { depth: Some(2), time: hour, ..AlphaBetaConfig::default() });
        let r = e.search(&mut pos);
        assert_eq!(r.depth, 2, "{r:?}");
        assert!(r.seconds < 1.0, "{r:?}");
        // The node budget comes first.
        let mut e =
            AlphaBeta::new(&v, AlphaBetaConfig { nodes: Some(3_000), time: hour, ..AlphaBetaConfig::default() });
        let r = e.search(&mut pos);
        assert!(r.nodes <= 3_000 && r.seconds < 1.0, "{r:?}");
        // The same search without the clock: a time budget does not change what a node budget
        // finds when the clock never runs out.
        let mut plain = AlphaBeta::new(&v, AlphaBetaConfig { nodes: Some(3_000), ..AlphaBetaConfig::default() });
        assert_eq!(plain.search(&mut pos).best, r.best);
    }

    /// Every completed iteration is reported once, in order, with the search's running node
    /// count; the last report is the result, and each PV is a legal line starting with the
    /// iteration's best move.
    #[test]
    fn progress_reports_each_iteration_with_a_legal_pv() {
        let (v, mut e) = engine("chess", 4);
        let mut pos = Position::start(Arc::clone(&v));
        let mut seen: Vec<Iteration> = Vec::new();
        let r = e.search_with(&mut pos, &mut |it| seen.push(it.clone()));
        assert_eq!(seen.iter().map(|i| i.depth).collect::<Vec<_>>(), [1, 2, 3, 4], "{seen:?}");
        assert!(seen.windows(2).all(|w| w[0].nodes < w[1].nodes && w[0].elapsed <= w[1].elapsed), "{seen:?}");
        let last = seen.last().unwrap();
        assert_eq!((last.score, last.nodes, Some(last.pv[0])), (r.score, r.nodes, r.best));
        for it in &seen {
            assert!(!it.pv.is_empty() && it.pv.len() <= it.depth as usize, "{it:?}");
            let mut p = pos.clone();
            for m in &it.pv {
                let mut legal = MoveList::new();
                p.legal_moves(&mut legal);
                assert!(legal.contains(m), "illegal PV move in {it:?}");
                p.make(*m);
            }
        }
        // Depth 4 from the start: the table holds the whole line.
        assert!(last.pv.len() >= 2, "{last:?}");
        // A mate in two: the PV is the mating line, ending in checkmate.
        let (v, mut e) = engine("chess", 3);
        let mut pos = Position::from_fen(Arc::clone(&v), "7k/8/8/8/8/8/R7/1R4K1 w - - 0 1").unwrap();
        let mut last = None;
        e.search_with(&mut pos, &mut |it| last = Some(it.clone()));
        let last = last.unwrap();
        assert_eq!((last.depth, last.score, last.pv.len()), (3, MATE - 3, 3), "{last:?}");
        for m in &last.pv {
            pos.make(*m);
        }
        let mut legal = MoveList::new();
        pos.legal_moves(&mut legal);
        assert!(legal.is_empty() && pos.in_check(pos.side_to_move()), "{}", pos.to_fen());
    }

    /// The stop flag ends a search that no limit would end for hours, within a few
    /// milliseconds, with a legal move from the last completed iteration; a flag set before
    /// the search still gives a move.
    #[test]
    fn stop_flag_ends_the_search_at_once() {
        let v = Variant::load("chess").unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let mut e = AlphaBeta::new(
            &v,
            AlphaBetaConfig { depth: Some(64), stop: Some(Arc::clone(&stop)), ..AlphaBetaConfig::default() },
        );
        let mut pos = Position::start(Arc::clone(&v));
        let setter = {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(100));
                stop.store(true, Ordering::SeqCst);
                Instant::now()
            })
        };
        let mut depths = Vec::new();
        let r = e.search_with(&mut pos, &mut |it| depths.push(it.depth));
        let returned = Instant::now();
        let set_at = setter.join().unwrap();
        let late = returned.saturating_duration_since(set_at);
        assert!(late < Duration::from_millis(50), "answered {late:?} after the stop: {r:?}");
        assert!(r.depth >= 1 && r.depth < 64 && depths.last() == Some(&r.depth), "{r:?} {depths:?}");
        let mut legal = MoveList::new();
        pos.legal_moves(&mut legal);
        assert!(legal.contains(&r.best.unwrap()));
        // Already set: the first check ends it, and the root's first move is played.
        let started = Instant::now();
        let r = e.search(&mut pos);
        assert!(started.elapsed() < Duration::from_millis(50) && r.nodes <= 2 * CLOCK_CHECK_NODES, "{r:?}");
        assert!(legal.contains(&r.best.unwrap()));
        // Configurations compare their flag by identity.
        let other = AlphaBetaConfig { stop: Some(Arc::new(AtomicBool::new(true))), ..e.config().clone() };
        assert_ne!(&other, e.config());
        assert_eq!(&e.config().clone(), e.config());
    }

    #[test]
    fn works_on_royal_capture_and_setup_variants() {
        for name in ["scirocco", "antichess", "shatranj"] {
            let v = Variant::load(name).unwrap();
            let mut e = AlphaBeta::new(
                &v,
                AlphaBetaConfig { depth: Some(2), nodes: Some(20_000), ..AlphaBetaConfig::default() },
            );
            let mut pos = Position::start(Arc::clone(&v));
            let r = e.search(&mut pos);
            let mut legal = MoveList::new();
            pos.legal_moves(&mut legal);
            assert!(legal.contains(&r.best.unwrap()), "{name}");
        }
    }
}
