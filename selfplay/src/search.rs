//! Monte Carlo tree search over one game, split so that many searches can share one evaluator
//! batch (lc0's and KataGo's pattern).
//!
//! A search does not call the evaluator itself. The driver repeats:
//! 1. [`Search::gather`]: walk the tree to up to `leaves_per_round` leaves (virtual loss keeps
//!    them apart), generate their legal moves, and leave them pending; terminal leaves are
//!    backed up on the spot;
//! 2. [`Search::requests`]: hand the pending leaves to the evaluator, together with those of
//!    other games;
//! 3. [`Search::apply`]: store priors and values, back up, undo the moves.
//!
//! until [`Search::is_done`]. [`Search::play`] then moves the root, keeping the subtree.
//!
//! Root selection is PUCT (AlphaZero, with Dirichlet noise) or Gumbel AlphaZero's
//! Gumbel-top-k with sequential halving; interior selection is PUCT, or Gumbel's deterministic
//! "match the improved policy" rule.

use std::sync::Arc;

use fairyzero_model::backend::{EvalRequest, Evaluation};
use fairyzero_rules::{Color, EndReason, Move, MoveList, Outcome, Position, Variant};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Gamma};

use crate::{
    config::{CapResult, GumbelConfig, SearchKind, SelfPlayConfig},
    gumbel,
    tree::{sign, NodeState, Tree, NONE},
};

/// Search parameters that stay fixed for a game.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchParams {
    pub kind: SearchKind,
    pub c_puct: f32,
    pub fpu_reduction: f32,
    pub gumbel: GumbelConfig,
    /// Leaves gathered per [`Search::gather`] call (virtual loss when above 1).
    pub leaves_per_round: u32,
}

impl SearchParams {
    pub fn puct() -> SearchParams {
        SearchParams::from_config(&SelfPlayConfig { search: SearchKind::Puct, ..SelfPlayConfig::default() })
    }

    pub fn gumbel() -> SearchParams {
        SearchParams::from_config(&SelfPlayConfig { search: SearchKind::Gumbel, ..SelfPlayConfig::default() })
    }

    pub fn from_config(c: &SelfPlayConfig) -> SearchParams {
        SearchParams {
            kind: c.search,
            c_puct: c.puct.c_puct,
            fpu_reduction: c.puct.fpu_reduction,
            gumbel: c.gumbel.clone(),
            leaves_per_round: c.leaves_per_game,
        }
    }
}

/// What changes from one search to the next.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchOptions {
    /// Simulations to add (each adds one visit below the root).
    pub simulations: u32,
    /// Dirichlet noise on the root priors, `(alpha, epsilon)` (PUCT only).
    pub dirichlet: Option<(f32, f32)>,
    /// Sample Gumbel noise for the root (self-play); without it the considered moves are the
    /// top-k priors and the choice is deterministic (analysis).
    pub gumbel_noise: bool,
}

impl SearchOptions {
    /// No noise: analysis and matches.
    pub fn exact(simulations: u32) -> SearchOptions {
        SearchOptions { simulations, dirichlet: None, gumbel_noise: false }
    }
}

/// Game-end rules beyond the variant's own: the move cap and its adjudication.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Adjudicator {
    /// The [`Position::ply`] at which play stops.
    pub cap_ply: u32,
    pub cap_result: CapResult,
}

impl Adjudicator {
    /// A cap of `move_cap` plies of play (default: the variant's) counted from `start`, setup
    /// plies still to come excluded.
    pub fn new(start: &Position, move_cap: Option<u32>, cap_result: CapResult) -> Adjudicator {
        let v = start.variant();
        let setup_left = match (start.setup_ply_index(), &v.spec.setup) {
            (Some(i), Some(s)) => s.plies.len().saturating_sub(i) as u32,
            _ => 0,
        };
        let cap = move_cap.unwrap_or(v.rules.move_cap);
        Adjudicator { cap_ply: start.ply() + setup_left + cap, cap_result }
    }

    /// The result if the game is over at `pos` (`legal`: its legal moves).
    pub fn outcome(&self, pos: &Position, legal: &[Move]) -> Option<Outcome> {
        if let Some(o) = pos.outcome_with(legal) {
            return Some(o);
        }
        if pos.ply() >= self.cap_ply && !pos.in_setup() {
            return Some(match self.cap_result {
                CapResult::Draw => Outcome::Draw { reason: EndReason::MoveCap },
                CapResult::Material => match material_balance(pos) {
                    b if b > 0.0 => Outcome::Decisive { winner: Color::Blue, reason: EndReason::MoveCap },
                    b if b < 0.0 => Outcome::Decisive { winner: Color::Tan, reason: EndReason::MoveCap },
                    _ => Outcome::Draw { reason: EndReason::MoveCap },
                },
            });
        }
        None
    }
}

/// Blue's material minus Tan's, by the variant's nominal values (1 where none; royals 0).
pub fn material_balance(pos: &Position) -> f32 {
    let v: &Arc<Variant> = pos.variant();
    pos.board()
        .iter()
        .flatten()
        .map(|p| {
            let def = v.piece_def(p.kind());
            let value = if def.royal { 0.0 } else { def.value.unwrap_or(1.0) };
            if p.color() == Color::Blue {
                value
            } else {
                -value
            }
        })
        .sum()
}

/// Value (Blue's perspective) and draw probability of a finished game.
pub fn outcome_value(o: &Outcome) -> (f32, f32) {
    match o.winner() {
        Some(Color::Blue) => (1.0, 0.0),
        Some(Color::Tan) => (-1.0, 0.0),
        None => (0.0, 1.0),
    }
}

/// One root move after a search.
#[derive(Clone, Debug, PartialEq)]
pub struct RootMove {
    pub mv: Move,
    pub visits: u32,
    pub prior: f32,
    /// Mean value for the side to move at the root, if visited.
    pub q: Option<f32>,
    /// Improved-policy weight (Gumbel), or visit share (PUCT).
    pub policy: f32,
}

struct Pending {
    path: Vec<u32>,
    /// The leaf position; `None` when the search's own position was left at the leaf.
    position: Option<Position>,
    made: u32,
}

struct GumbelRoot {
    /// Gumbel noise per root edge (0 without noise).
    g: Vec<f32>,
    logits: Vec<f32>,
    /// Root edges (relative indices) under consideration: the top m by `g + logit`.
    considered: Vec<usize>,
    /// Visits given to each root edge by this search.
    visits: Vec<u32>,
    schedule: gumbel::VisitSchedule,
}

/// The search state of one game.
pub struct Search {
    tree: Tree,
    pos: Position,
    params: SearchParams,
    adjudicator: Adjudicator,
    rng: ChaCha8Rng,
    legal: MoveList,
    options: SearchOptions,
    sims_started: u32,
    sims_done: u32,
    evals: u32,
    root_prepared: bool,
    /// Root priors before noise, to restore when the same root is searched again.
    clean_priors: Option<Vec<f32>>,
    gumbel_root: Option<GumbelRoot>,
    pending: Vec<Pending>,
    collisions: u64,
}

impl Search {
    pub fn new(pos: Position, params: SearchParams, adjudicator: Adjudicator, rng: ChaCha8Rng) -> Search {
        Search {
            tree: Tree::new(pos.side_to_move()),
            pos,
            params,
            adjudicator,
            rng,
            legal: MoveList::with_capacity(256),
            options: SearchOptions::exact(0),
            sims_started: 0,
            sims_done: 0,
            evals: 0,
            root_prepared: false,
            clean_priors: None,
            gumbel_root: None,
            pending: Vec::new(),
            collisions: 0,
        }
    }

    /// The root position.
    pub fn position(&self) -> &Position {
        debug_assert!(self.pending.iter().all(|p| p.position.is_some()), "position read while a leaf is made");
        &self.pos
    }

    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    pub fn params(&self) -> &SearchParams {
        &self.params
    }

    pub fn adjudicator(&self) -> &Adjudicator {
        &self.adjudicator
    }

    pub fn rng(&mut self) -> &mut ChaCha8Rng {
        &mut self.rng
    }

    /// Simulations completed by the current search.
    pub fn simulations(&self) -> u32 {
        self.sims_done
    }

    /// Leaves sent to the evaluator by the current search.
    pub fn evaluations(&self) -> u32 {
        self.evals
    }

    /// Leaf selections abandoned because they ran into a pending leaf (virtual loss only).
    pub fn collisions(&self) -> u64 {
        self.collisions
    }

    /// Starts a search of the current root; visits already in the tree are kept.
    pub fn begin(&mut self, options: SearchOptions) {
        assert!(self.pending.is_empty(), "begin() while leaves are pending");
        if let Some(clean) = self.clean_priors.take() {
            let r = self.tree.edges(Tree::ROOT);
            self.tree.priors[r].copy_from_slice(&clean);
        }
        self.options = options;
        self.sims_started = 0;
        self.sims_done = 0;
        self.evals = 0;
        self.root_prepared = false;
        self.gumbel_root = None;
    }

    /// Whether the root is a finished game (nothing to search).
    pub fn root_is_terminal(&self) -> bool {
        self.tree.root().state == NodeState::Terminal
    }

    /// Whether the current search has used its budget (and nothing is in flight).
    pub fn is_done(&self) -> bool {
        self.pending.is_empty() && (self.root_is_terminal() || self.sims_done >= self.options.simulations)
    }

    /// Number of leaves waiting for [`Search::apply`].
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Selects up to `leaves_per_round` leaves; returns how many wait for the evaluator. Terminal
    /// leaves are backed up at once (and count as simulations), so a call may return 0 with
    /// the search done.
    pub fn gather(&mut self) -> usize {
        assert!(self.pending.is_empty(), "gather() before apply()");
        let want = self.params.leaves_per_round.max(1) as usize;
        let keep_made = want == 1;
        match self.tree.root().state {
            NodeState::Unexpanded => {
                self.expand_or_finish(vec![Tree::ROOT], 0, keep_made);
                return self.pending.len();
            }
            NodeState::Terminal => return 0,
            NodeState::Pending => unreachable!("the root is pending only between gather() and apply()"),
            NodeState::Expanded => {}
        }
        if !self.root_prepared {
            self.prepare_root();
        }
        while self.pending.len() < want && self.sims_started < self.options.simulations {
            if !self.select_one(keep_made) {
                break;
            }
        }
        self.pending.len()
    }

    /// The evaluator requests of the pending leaves, in order.
    pub fn requests<'a>(&'a self, out: &mut Vec<EvalRequest<'a>>) {
        for p in &self.pending {
            let leaf = *p.path.last().expect("a path holds the root");
            out.push(EvalRequest {
                position: p.position.as_ref().unwrap_or(&self.pos),
                moves: self.tree.edge_moves(leaf),
            });
        }
    }

    /// Stores the evaluations of the pending leaves (as many as [`Search::pending`], in order)
    /// and backs them up.
    pub fn apply(&mut self, evals: &mut impl Iterator<Item = Evaluation>) {
        let pending = std::mem::take(&mut self.pending);
        for p in pending {
            let eval = evals.next().expect("one evaluation per pending leaf");
            let leaf = *p.path.last().expect("a path holds the root");
            let range = self.tree.edges(leaf);
            assert_eq!(
                eval.policy.len(),
                range.len(),
                "the evaluator returned {} priors for {} moves",
                eval.policy.len(),
                range.len()
            );
            let priors = &mut self.tree.priors[range];
            let sum: f32 = eval.policy.iter().map(|&p| if p.is_finite() { p.max(0.0) } else { 0.0 }).sum();
            if sum > 0.0 && sum.is_finite() {
                for (dst, &p) in priors.iter_mut().zip(&eval.policy) {
                    *dst = if p.is_finite() { p.max(0.0) / sum } else { 0.0 };
                }
            } else {
                let u = 1.0 / priors.len().max(1) as f32;
                priors.iter_mut().for_each(|p| *p = u);
            }
            let node = self.tree.node_mut(leaf);
            let v = eval.value();
            let (value, draw) = if v.is_finite() {
                (sign(node.to_move) as f32 * v.clamp(-1.0, 1.0), eval.wdl[1].clamp(0.0, 1.0))
            } else {
                (0.0, 0.0)
            };
            node.value = value;
            node.draw = draw;
            node.state = NodeState::Expanded;
            for &id in &p.path {
                self.tree.node_mut(id).vl -= 1;
            }
            self.backup(&p.path, value, draw);
            if leaf != Tree::ROOT {
                self.sims_done += 1;
            }
            if p.position.is_none() {
                for _ in 0..p.made {
                    self.pos.unmake();
                }
            }
        }
    }

    /// Runs the search to completion with `evaluator`, one search at a time (analysis, tests).
    pub fn run(&mut self, evaluator: &dyn fairyzero_model::backend::Backend) {
        while !self.is_done() {
            self.step(evaluator);
        }
    }

    /// One gather / evaluate / apply round.
    pub fn step(&mut self, evaluator: &dyn fairyzero_model::backend::Backend) {
        if self.gather() > 0 {
            let mut requests = Vec::with_capacity(self.pending.len());
            self.requests(&mut requests);
            let evals = evaluator.evaluate(&requests);
            drop(requests);
            self.apply(&mut evals.into_iter());
        }
    }

    // -----------------------------------------------------------------------------------------
    // Selection
    // -----------------------------------------------------------------------------------------

    /// One descent. Returns false on a collision with a pending leaf.
    fn select_one(&mut self, keep_made: bool) -> bool {
        let sim_index = self.sims_started;
        self.sims_started += 1;
        let mut path = vec![Tree::ROOT];
        let mut node = Tree::ROOT;
        let mut made = 0u32;
        let mut root_edge = None;
        loop {
            match self.tree.node(node).state {
                NodeState::Expanded => {
                    let e = if node == Tree::ROOT {
                        let e = self.select_root_edge(sim_index);
                        root_edge = Some(e);
                        e
                    } else {
                        self.select_interior_edge(node)
                    };
                    let mv = self.tree.moves[e];
                    self.pos.make(mv);
                    made += 1;
                    let pos = &self.pos;
                    node = self.tree.child_or_create(e, || pos.side_to_move());
                    path.push(node);
                }
                NodeState::Unexpanded => {
                    self.expand_or_finish(path, made, keep_made);
                    return true;
                }
                NodeState::Terminal => {
                    let n = self.tree.node(node);
                    let (value, draw) = (n.value, n.draw);
                    self.backup(&path, value, draw);
                    self.sims_done += 1;
                    self.undo(made);
                    return true;
                }
                NodeState::Pending => {
                    self.undo(made);
                    self.sims_started -= 1;
                    if let (Some(g), Some(e)) = (self.gumbel_root.as_mut(), root_edge) {
                        g.visits[e - self.tree.edges(Tree::ROOT).start] -= 1;
                    }
                    self.collisions += 1;
                    return false;
                }
            }
        }
    }

    fn undo(&mut self, made: u32) {
        for _ in 0..made {
            self.pos.unmake();
        }
    }

    /// At an unexpanded leaf (the search position is there): a finished game is backed up,
    /// anything else becomes a pending evaluation.
    fn expand_or_finish(&mut self, path: Vec<u32>, made: u32, keep_made: bool) {
        let leaf = *path.last().expect("a path holds the root");
        self.pos.legal_moves(&mut self.legal);
        if let Some(outcome) = self.adjudicator.outcome(&self.pos, &self.legal) {
            let (value, draw) = outcome_value(&outcome);
            let n = self.tree.node_mut(leaf);
            n.state = NodeState::Terminal;
            n.value = value;
            n.draw = draw;
            n.reason = Some(outcome.reason());
            self.backup(&path, value, draw);
            if leaf != Tree::ROOT {
                self.sims_done += 1;
            }
            self.undo(made);
            return;
        }
        let legal = std::mem::take(&mut self.legal);
        self.tree.set_edges(leaf, &legal);
        self.legal = legal;
        self.tree.node_mut(leaf).state = NodeState::Pending;
        for &id in &path {
            self.tree.node_mut(id).vl += 1;
        }
        self.evals += 1;
        if keep_made {
            self.pending.push(Pending { path, position: None, made });
        } else {
            let position = Some(self.pos.clone());
            self.undo(made);
            self.pending.push(Pending { path, position, made: 0 });
        }
    }

    fn backup(&mut self, path: &[u32], value: f32, draw: f32) {
        for &id in path {
            let n = self.tree.node_mut(id);
            n.n += 1;
            n.w += value as f64;
            n.d += draw as f64;
        }
    }

    /// Noise (PUCT) or the Gumbel root state, once the root's priors are known.
    fn prepare_root(&mut self) {
        self.root_prepared = true;
        let range = self.tree.edges(Tree::ROOT);
        let k = range.len();
        match self.params.kind {
            SearchKind::Puct => {
                if let Some((alpha, eps)) = self.options.dirichlet {
                    if k >= 2 && eps > 0.0 {
                        let gamma = Gamma::new(alpha as f64, 1.0).expect("alpha > 0 was validated");
                        let noise: Vec<f64> = (0..k).map(|_| gamma.sample(&mut self.rng)).collect();
                        let total: f64 = noise.iter().sum();
                        if total > 0.0 && total.is_finite() {
                            let priors = &mut self.tree.priors[range];
                            self.clean_priors = Some(priors.to_vec());
                            for (p, x) in priors.iter_mut().zip(noise) {
                                *p = (1.0 - eps) * *p + eps * (x / total) as f32;
                            }
                        }
                    }
                }
            }
            SearchKind::Gumbel => {
                let noise = self.options.gumbel_noise;
                let g: Vec<f32> = (0..k)
                    .map(|_| {
                        if noise {
                            let u: f64 = self.rng.gen_range(f64::MIN_POSITIVE..1.0);
                            -(-u.ln()).ln() as f32
                        } else {
                            0.0
                        }
                    })
                    .collect();
                let logits: Vec<f32> = self.tree.priors[range].iter().map(|&p| gumbel::logit(p)).collect();
                // Gumbel-top-k by g + logit + sigma(q): sigma is the same for every move of a
                // fresh root (the paper's top-k); with a reused tree it promotes the moves
                // already known to be good, as mctx's scoring of unvisited actions does.
                let sigma = self.root_sigma();
                let score = |a: usize| g[a] + logits[a] + sigma[a];
                let mut order: Vec<usize> = (0..k).collect();
                order.sort_by(|&a, &b| score(b).total_cmp(&score(a)).then(a.cmp(&b)));
                let m = (self.params.gumbel.considered_actions as usize).min(k).max(1);
                order.truncate(m);
                let schedule = gumbel::VisitSchedule::new(m, self.options.simulations as usize);
                self.gumbel_root = Some(GumbelRoot { g, logits, considered: order, visits: vec![0; k], schedule });
            }
        }
    }

    fn select_root_edge(&mut self, sim_index: u32) -> usize {
        if self.gumbel_root.is_none() {
            return self.select_puct(Tree::ROOT);
        }
        let first = self.tree.edges(Tree::ROOT).start;
        let sigma = self.root_sigma();
        let g = self.gumbel_root.as_mut().expect("checked");
        let target = g.schedule.target(sim_index as usize);
        let eligible = |v: u32| v == target;
        let any = g.considered.iter().any(|&a| eligible(g.visits[a]));
        let min_visits = g.considered.iter().map(|&a| g.visits[a]).min().expect("m >= 1");
        let best = g
            .considered
            .iter()
            .copied()
            .filter(|&a| if any { eligible(g.visits[a]) } else { g.visits[a] == min_visits })
            .max_by(|&a, &b| {
                (g.g[a] + g.logits[a] + sigma[a]).total_cmp(&(g.g[b] + g.logits[b] + sigma[b])).then(b.cmp(&a))
            })
            .expect("at least one considered move");
        g.visits[best] += 1;
        first + best
    }

    fn select_interior_edge(&self, node: u32) -> usize {
        match self.params.kind {
            SearchKind::Puct => self.select_puct(node),
            SearchKind::Gumbel => self.select_gumbel_interior(node),
        }
    }

    /// PUCT with lc0's first-play urgency; in-flight visits count as losses for the mover.
    fn select_puct(&self, node: u32) -> usize {
        let t = &self.tree;
        let p = t.node(node);
        let s = sign(p.to_move);
        let parent_q = if p.n > 0 { s * p.w / p.n as f64 } else { 0.0 };
        let range = t.edges(node);
        let visited_policy: f32 = range
            .clone()
            .filter(|&e| {
                t.children[e] != NONE && {
                    let c = t.node(t.children[e]);
                    c.n + c.vl > 0
                }
            })
            .map(|e| t.priors[e])
            .sum();
        let fpu = parent_q - self.params.fpu_reduction as f64 * (visited_policy as f64).sqrt();
        let sqrt_n = ((p.n + p.vl).max(1) as f64).sqrt();
        let c_puct = self.params.c_puct as f64;
        let mut best = range.start;
        let mut best_score = f64::NEG_INFINITY;
        for e in range {
            let (nn, q) = match t.children[e] {
                NONE => (0, fpu),
                c => {
                    let c = t.node(c);
                    let nn = c.n + c.vl;
                    if nn == 0 {
                        (0, fpu)
                    } else {
                        (nn, (s * c.w - c.vl as f64) / nn as f64)
                    }
                }
            };
            let score = q + c_puct * t.priors[e] as f64 * sqrt_n / (1.0 + nn as f64);
            if score > best_score {
                best_score = score;
                best = e;
            }
        }
        best
    }

    /// Completed-Q inputs of a node: per edge (q for the node's mover, visits).
    fn edge_stats(&self, node: u32) -> (Vec<f32>, Vec<u32>) {
        let t = &self.tree;
        let s = sign(t.node(node).to_move);
        t.edges(node)
            .map(|e| match t.children[e] {
                NONE => (0.0, 0),
                c => {
                    let c = t.node(c);
                    if c.n == 0 {
                        (0.0, 0)
                    } else {
                        ((s * c.w / c.n as f64) as f32, c.n)
                    }
                }
            })
            .unzip()
    }

    fn node_sigma(&self, node: u32) -> (Vec<f32>, Vec<f32>, Vec<u32>) {
        let (q, n) = self.edge_stats(node);
        let t = &self.tree;
        let nd = t.node(node);
        let raw = sign(nd.to_move) as f32 * nd.value;
        let completed = gumbel::completed_q(raw, &t.priors[t.edges(node)], &q, &n);
        let g = &self.params.gumbel;
        let sigma = gumbel::sigma(&completed, &n, g.c_visit, g.c_scale);
        (sigma, completed, n)
    }

    fn root_sigma(&self) -> Vec<f32> {
        self.node_sigma(Tree::ROOT).0
    }

    /// Gumbel MuZero's interior rule: the child whose visit share lags its improved-policy
    /// weight the most.
    fn select_gumbel_interior(&self, node: u32) -> usize {
        let t = &self.tree;
        let range = t.edges(node);
        let (sigma, _, _) = self.node_sigma(node);
        let logits: Vec<f32> = t.priors[range.clone()].iter().map(|&p| gumbel::logit(p)).collect();
        let pi = gumbel::improved_policy(&logits, &sigma);
        let visits: Vec<u32> = range
            .clone()
            .map(|e| match t.children[e] {
                NONE => 0,
                c => t.node(c).n + t.node(c).vl,
            })
            .collect();
        let total: u32 = visits.iter().sum();
        let mut best = 0;
        let mut best_score = f32::NEG_INFINITY;
        for i in 0..pi.len() {
            let score = pi[i] - visits[i] as f32 / (1 + total) as f32;
            if score > best_score {
                best_score = score;
                best = i;
            }
        }
        range.start + best
    }

    // -----------------------------------------------------------------------------------------
    // Results
    // -----------------------------------------------------------------------------------------

    /// The root's moves with visits, priors, values and policy weights, in move-generation order.
    pub fn root_moves(&self) -> Vec<RootMove> {
        let t = &self.tree;
        let range = t.edges(Tree::ROOT);
        if range.is_empty() || t.root().state != NodeState::Expanded {
            return Vec::new();
        }
        let policy = self.policy_weights();
        let to_move = t.root().to_move;
        range
            .clone()
            .enumerate()
            .map(|(i, e)| {
                let child = t.children[e];
                let (visits, q) = if child == NONE {
                    (0, None)
                } else {
                    let c = t.node(child);
                    (c.n, c.q(to_move).map(|q| q as f32))
                };
                // Show the priors the network gave, not the noised ones.
                let prior = self.clean_priors.as_ref().map_or(t.priors[e], |c| c[i]);
                RootMove { mv: t.moves[e], visits, prior, q, policy: policy[i] }
            })
            .collect()
    }

    /// The policy target over the root's moves: the improved policy (Gumbel) or visit shares
    /// (PUCT). Sums to 1.
    pub fn policy_weights(&self) -> Vec<f32> {
        let t = &self.tree;
        let range = t.edges(Tree::ROOT);
        match self.params.kind {
            SearchKind::Gumbel => {
                let (sigma, _, _) = self.node_sigma(Tree::ROOT);
                let logits: Vec<f32> = self.network_priors().iter().map(|&p| gumbel::logit(p)).collect();
                gumbel::improved_policy(&logits, &sigma)
            }
            SearchKind::Puct => {
                let visits: Vec<u32> = range.clone().map(|e| t.child_visits(e)).collect();
                let total: u32 = visits.iter().sum();
                if total == 0 {
                    return self.network_priors();
                }
                visits.iter().map(|&v| v as f32 / total as f32).collect()
            }
        }
    }

    /// Visits per root move (parallel to the root's moves).
    pub fn visit_counts(&self) -> Vec<u32> {
        self.tree.edges(Tree::ROOT).map(|e| self.tree.child_visits(e)).collect()
    }

    fn network_priors(&self) -> Vec<f32> {
        self.clean_priors.clone().unwrap_or_else(|| self.tree.priors[self.tree.edges(Tree::ROOT)].to_vec())
    }

    /// The search's value of the root for its side to move, and the draw probability: PUCT
    /// reports the most visited move's mean (lc0's convention), Gumbel the improved policy's
    /// expectation of the completed Q values. Both tend to the minimax value.
    pub fn root_value(&self) -> (f32, f32) {
        let t = &self.tree;
        let root = t.root();
        let to_move = root.to_move;
        match root.state {
            NodeState::Terminal => return (sign(to_move) as f32 * root.value, root.draw),
            NodeState::Expanded => {}
            _ => return (0.0, 0.0),
        }
        let root_mean = (root.q(to_move).unwrap_or(0.0) as f32, root.draw_rate().unwrap_or(0.0) as f32);
        match self.params.kind {
            SearchKind::Puct => match t.best_edge(Tree::ROOT).map(|e| t.children[e]) {
                Some(c) if c != NONE && t.node(c).n > 0 => {
                    let c = t.node(c);
                    (c.q(to_move).unwrap_or(0.0) as f32, c.draw_rate().unwrap_or(0.0) as f32)
                }
                _ => root_mean,
            },
            SearchKind::Gumbel => {
                let (_, completed, n) = self.node_sigma(Tree::ROOT);
                let pi = self.policy_weights();
                let value: f32 = pi.iter().zip(&completed).map(|(p, q)| p * q).sum();
                let draw: f32 = t
                    .edges(Tree::ROOT)
                    .zip(&pi)
                    .zip(&n)
                    .map(|((e, p), &n)| {
                        let d =
                            if n > 0 { t.node(t.children[e]).draw_rate().unwrap_or(0.0) as f32 } else { root_mean.1 };
                        p * d
                    })
                    .sum();
                (value, draw)
            }
        }
    }

    /// The move the search recommends: Gumbel's sequential-halving winner, or the most visited
    /// move (PUCT). `None` when the root has no moves.
    pub fn best_move(&self) -> Option<Move> {
        let t = &self.tree;
        if t.root().state != NodeState::Expanded {
            return None;
        }
        let first = t.edges(Tree::ROOT).start;
        match (&self.gumbel_root, self.params.kind) {
            (Some(g), SearchKind::Gumbel) => {
                let sigma = self.root_sigma();
                let max_visits = g.considered.iter().map(|&a| g.visits[a]).max()?;
                let a = g.considered.iter().copied().filter(|&a| g.visits[a] == max_visits).max_by(|&a, &b| {
                    (g.g[a] + g.logits[a] + sigma[a]).total_cmp(&(g.g[b] + g.logits[b] + sigma[b])).then(b.cmp(&a))
                })?;
                Some(t.moves[first + a])
            }
            _ => t.best_edge(Tree::ROOT).map(|e| t.moves[e]),
        }
    }

    /// Samples a move from the visit counts with a temperature (0: the most visited).
    pub fn sample_move(&mut self, temperature: f32) -> Option<Move> {
        let visits = self.visit_counts();
        if visits.is_empty() {
            return None;
        }
        let total: u32 = visits.iter().sum();
        if temperature <= 1e-3 || total == 0 {
            return self.best_move();
        }
        let max = *visits.iter().max().expect("non-empty") as f64;
        let weights: Vec<f64> = visits.iter().map(|&v| (v as f64 / max).powf(1.0 / temperature as f64)).collect();
        let sum: f64 = weights.iter().sum();
        let mut x = self.rng.gen::<f64>() * sum;
        let first = self.tree.edges(Tree::ROOT).start;
        for (i, w) in weights.iter().enumerate() {
            if x < *w {
                return Some(self.tree.moves[first + i]);
            }
            x -= w;
        }
        let last = weights.iter().rposition(|&w| w > 0.0).expect("some move was visited");
        Some(self.tree.moves[first + last])
    }

    /// The principal variation: most visited moves from the root, as far as visits go.
    pub fn principal_variation(&self) -> Vec<Move> {
        let t = &self.tree;
        let mut pv = Vec::new();
        let mut node = Tree::ROOT;
        while t.node(node).state == NodeState::Expanded {
            let Some(e) = t.best_edge(node) else { break };
            let c = t.children[e];
            if c == NONE || t.node(c).n == 0 {
                break;
            }
            pv.push(t.moves[e]);
            node = c;
        }
        pv
    }

    /// Plays `mv` at the root: the position advances and, with `reuse`, the subtree below `mv`
    /// becomes the new tree.
    pub fn play(&mut self, mv: Move, reuse: bool) {
        assert!(self.pending.is_empty(), "play() while leaves are pending");
        let edge = self.tree.edges(Tree::ROOT).find(|&e| self.tree.moves[e] == mv);
        self.pos.make(mv);
        let child = edge.map_or(NONE, |e| self.tree.children[e]);
        self.tree = if reuse
            && child != NONE
            && matches!(self.tree.node(child).state, NodeState::Expanded | NodeState::Terminal)
        {
            self.tree.extract(child)
        } else {
            Tree::new(self.pos.side_to_move())
        };
        self.clean_priors = None;
        self.gumbel_root = None;
        self.root_prepared = false;
    }

    /// Replaces the root position (and drops the tree).
    pub fn set_position(&mut self, pos: Position, adjudicator: Adjudicator) {
        assert!(self.pending.is_empty(), "set_position() while leaves are pending");
        self.tree = Tree::new(pos.side_to_move());
        self.pos = pos;
        self.adjudicator = adjudicator;
        self.clean_priors = None;
        self.gumbel_root = None;
        self.root_prepared = false;
    }

    /// Legal moves of the root and the game result if it is over.
    pub fn root_status(&mut self) -> (MoveList, Option<Outcome>) {
        let mut legal = MoveList::new();
        self.pos.legal_moves(&mut legal);
        let outcome = self.adjudicator.outcome(&self.pos, &legal);
        (legal, outcome)
    }
}
