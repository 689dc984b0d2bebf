//! Monte Carlo tree search over one game, split so that many searches can share one backend
//! batch (lc0's and KataGo's pattern).
//!
//! A search does not call the backend itself. The driver repeats:
//! 1. [`Search::gather`]: walk the tree to up to `leaves_per_round` leaves (virtual loss keeps
//!    them apart), generate their legal moves, and leave them pending; terminal leaves are
//!    backed up on the spot;
//! 2. [`Search::requests`]: hand the pending leaves to the backend, together with those of
//!    other games;
//! 3. [`Search::apply`]: store priors and values, back up, undo the moves.
//!
//! until [`Search::is_done`]. [`Search::play`] then moves the root, keeping the subtree.
//!
//! The simulations allocate nothing once a game's first moves have grown the buffers: paths
//! live in one vector, leaves beyond the first are walked in positions kept at the root (not
//! cloned per leaf), Gumbel's per-edge arithmetic writes into scratch vectors, and the tree is
//! re-rooted into a second tree's memory (lc0 and KataGo reuse their search buffers the same
//! way). selfplay/tests/allocations.rs counts.
//!
//! Root selection is PUCT (AlphaZero, with Dirichlet noise) or Gumbel AlphaZero's
//! Gumbel-top-k with sequential halving; interior selection is PUCT, or Gumbel's deterministic
//! "match the improved policy" rule.

use std::{cell::RefCell, sync::Arc};

use fairyzero_model::backend::{recycle_requests, Backend, EvalOutput, EvalRequest, EvalView};
use fairyzero_rules::{Color, EndReason, Move, MoveList, Outcome, Position, Variant};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Gamma};

use crate::{
    config::{CapResult, GumbelConfig, SearchKind, SelfPlayConfig},
    gumbel,
    tree::{sign, Node, NodeState, Tree, NONE},
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
    /// See [`SelfPlayConfig::immediate_wins`].
    pub immediate_wins: bool,
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
            immediate_wins: c.immediate_wins,
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

/// A leaf waiting for its evaluation.
#[derive(Clone, Copy, Debug)]
struct Pending {
    /// `paths[path_start..path_end]`: the nodes from the root to the leaf.
    path_start: u32,
    path_end: u32,
    /// Where the leaf's position is: `leaf_positions[k]`, or (`None`) the search's own position,
    /// left at the leaf.
    slot: Option<u32>,
    /// Moves made from the root to the leaf, undone by [`Search::apply`].
    made: u32,
}

impl Pending {
    fn path(&self) -> std::ops::Range<usize> {
        self.path_start as usize..self.path_end as usize
    }
}

#[derive(Clone, Debug, Default)]
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

/// Per-edge buffers of Gumbel's completed-Q arithmetic (and the root's Dirichlet noise),
/// reused by every node of every simulation.
#[derive(Clone, Debug, Default)]
struct EdgeScratch {
    q: Vec<f32>,
    n: Vec<u32>,
    completed: Vec<f32>,
    sigma: Vec<f32>,
    logits: Vec<f32>,
    policy: Vec<f32>,
    noise: Vec<f64>,
}

impl EdgeScratch {
    /// The completed-Q inputs of `node` (per edge: q for the node's mover, visits), its completed
    /// Q values and their sigma.
    fn node_sigma(&mut self, t: &Tree, g: &GumbelConfig, node: u32) {
        let s = sign(t.node(node).to_move);
        self.q.clear();
        self.n.clear();
        for e in t.edges(node) {
            let (q, n) = match t.children[e] {
                NONE => (0.0, 0),
                c => {
                    let c = t.node(c);
                    if c.n == 0 {
                        (0.0, 0)
                    } else {
                        ((s * c.w / c.n as f64) as f32, c.n)
                    }
                }
            };
            self.q.push(q);
            self.n.push(n);
        }
        let nd = t.node(node);
        let raw = sign(nd.to_move) as f32 * nd.value;
        gumbel::completed_q(raw, &t.priors[t.edges(node)], &self.q, &self.n, &mut self.completed);
        gumbel::sigma(&self.completed, &self.n, g.c_visit, g.c_scale, &mut self.sigma);
    }
}

/// The search state of one game.
pub struct Search {
    tree: Tree,
    /// The memory [`Search::play`] re-roots the tree into (then the two swap).
    spare_tree: Tree,
    reroot_stack: Vec<(u32, u32, usize)>,
    pos: Position,
    /// With several leaves per round: one position per leaf in flight, each at the root between
    /// rounds, walked to its leaf and back.
    leaf_positions: Vec<Position>,
    params: SearchParams,
    /// `params.immediate_wins`, when the variant can end by material at all.
    immediate_wins: bool,
    adjudicator: Adjudicator,
    rng: ChaCha8Rng,
    legal: MoveList,
    options: SearchOptions,
    sims_started: u32,
    sims_done: u32,
    evals: u32,
    root_prepared: bool,
    /// A root move that wins at once (with `immediate_wins`), found when the root is prepared:
    /// played whatever the search made of it.
    root_win: Option<Move>,
    /// Root priors before noise, to restore when the same root is searched again (when
    /// `root_noised`).
    clean_priors: Vec<f32>,
    root_noised: bool,
    gumbel_root: Option<GumbelRoot>,
    /// The buffers of the last Gumbel root, for the next one.
    spare_gumbel_root: GumbelRoot,
    pending: Vec<Pending>,
    /// The paths of the pending leaves, then that of the descent in progress.
    paths: Vec<u32>,
    /// A cell so that the results (`&self`, once per move) use it too; the simulations reach
    /// it through `get_mut`, without a borrow check at run time.
    scratch: RefCell<EdgeScratch>,
    /// [`Search::step`]'s batch and answers, kept for the next step.
    request_buffer: Vec<EvalRequest<'static>>,
    evaluations: EvalOutput,
    collisions: u64,
}

impl Search {
    pub fn new(pos: Position, params: SearchParams, adjudicator: Adjudicator, rng: ChaCha8Rng) -> Search {
        Search {
            tree: Tree::new(pos.side_to_move()),
            spare_tree: Tree::default(),
            reroot_stack: Vec::new(),
            immediate_wins: params.immediate_wins && pos.variant().ends_by_material(),
            pos,
            leaf_positions: Vec::new(),
            params,
            adjudicator,
            rng,
            legal: MoveList::with_capacity(256),
            options: SearchOptions::exact(0),
            sims_started: 0,
            sims_done: 0,
            evals: 0,
            root_prepared: false,
            root_win: None,
            clean_priors: Vec::new(),
            root_noised: false,
            gumbel_root: None,
            spare_gumbel_root: GumbelRoot::default(),
            pending: Vec::new(),
            paths: Vec::new(),
            scratch: RefCell::default(),
            request_buffer: Vec::new(),
            evaluations: EvalOutput::new(),
            collisions: 0,
        }
    }

    /// The root position.
    pub fn position(&self) -> &Position {
        debug_assert!(
            self.pending.iter().all(|p| p.slot.is_some() || p.made == 0),
            "position read while a leaf is made"
        );
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

    /// Leaves sent to the backend by the current search.
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
        if self.root_noised {
            let r = self.tree.edges(Tree::ROOT);
            self.tree.priors[r].copy_from_slice(&self.clean_priors);
            self.root_noised = false;
        }
        self.options = options;
        self.sims_started = 0;
        self.sims_done = 0;
        self.evals = 0;
        self.root_prepared = false;
        self.root_win = None;
        self.drop_gumbel_root();
    }

    /// Forgets the Gumbel root state, keeping its memory for the next.
    fn drop_gumbel_root(&mut self) {
        if let Some(root) = self.gumbel_root.take() {
            self.spare_gumbel_root = root;
        }
    }

    /// The network's priors of the root before noise, when noise was added.
    fn clean_priors(&self) -> Option<&[f32]> {
        self.root_noised.then_some(self.clean_priors.as_slice())
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

    /// Selects up to `leaves_per_round` leaves; returns how many wait for the backend. Terminal
    /// leaves are backed up at once (and count as simulations), so a call may return 0 with
    /// the search done.
    pub fn gather(&mut self) -> usize {
        assert!(self.pending.is_empty(), "gather() before apply()");
        let want = self.params.leaves_per_round.max(1) as usize;
        // One leaf is walked in the search's own position and left there until `apply`; with
        // more, each has a position of its own.
        let keep_made = want == 1;
        if !keep_made {
            while self.leaf_positions.len() < want {
                self.leaf_positions.push(self.pos.clone());
            }
        }
        match self.tree.root().state {
            NodeState::Unexpanded => {
                self.paths.push(Tree::ROOT);
                self.expand_or_finish(0, 0, None);
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
            let slot = (!keep_made).then_some(self.pending.len() as u32);
            if !self.select_one(slot) {
                break;
            }
        }
        self.pending.len()
    }

    /// The position a descent walks: `leaf_positions[slot]`, or the search's own.
    fn walker(&mut self, slot: Option<u32>) -> &mut Position {
        match slot {
            Some(k) => &mut self.leaf_positions[k as usize],
            None => &mut self.pos,
        }
    }

    /// The backend requests of the pending leaves, in order.
    pub fn requests<'a>(&'a self, out: &mut Vec<EvalRequest<'a>>) {
        for p in &self.pending {
            let leaf = self.paths[p.path_end as usize - 1];
            let position = match p.slot {
                Some(k) => &self.leaf_positions[k as usize],
                None => &self.pos,
            };
            out.push(EvalRequest { position, moves: self.tree.edge_moves(leaf) });
        }
    }

    /// Stores the evaluations of the pending leaves (as many as [`Search::pending`], in order)
    /// and backs them up.
    pub fn apply<'e>(&mut self, evals: &mut impl Iterator<Item = EvalView<'e>>) {
        for i in 0..self.pending.len() {
            let p = self.pending[i];
            let eval = evals.next().expect("one evaluation per pending leaf");
            let leaf = self.paths[p.path_end as usize - 1];
            let range = self.tree.edges(leaf);
            assert_eq!(
                eval.policy.len(),
                range.len(),
                "the backend returned {} priors for {} moves",
                eval.policy.len(),
                range.len()
            );
            let priors = &mut self.tree.priors[range];
            let sum: f32 = eval.policy.iter().map(|&p| if p.is_finite() { p.max(0.0) } else { 0.0 }).sum();
            if sum > 0.0 && sum.is_finite() {
                for (dst, &p) in priors.iter_mut().zip(eval.policy) {
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
            for &id in &self.paths[p.path()] {
                self.tree.node_mut(id).vl -= 1;
            }
            backup(&mut self.tree, &self.paths[p.path()], value, draw);
            if leaf != Tree::ROOT {
                self.sims_done += 1;
            }
            self.undo(p.slot, p.made);
        }
        self.pending.clear();
        self.paths.clear();
    }

    /// Runs the search to completion with `backend`, one search at a time (analysis, tests).
    pub fn run(&mut self, backend: &dyn Backend) {
        while !self.is_done() {
            self.step(backend);
        }
    }

    /// One gather / evaluate / apply round.
    pub fn step(&mut self, backend: &dyn Backend) {
        if self.gather() > 0 {
            let mut evaluations = std::mem::take(&mut self.evaluations);
            let mut requests = recycle_requests(std::mem::take(&mut self.request_buffer));
            self.requests(&mut requests);
            backend.evaluate(&requests, &mut evaluations);
            self.request_buffer = recycle_requests(requests);
            self.apply(&mut evaluations.iter());
            self.evaluations = evaluations;
        }
    }

    // -----------------------------------------------------------------------------------------
    // Selection
    // -----------------------------------------------------------------------------------------

    /// One descent, in the position of `slot` (see [`Search::walker`]). Returns false on a
    /// collision with a pending leaf.
    fn select_one(&mut self, slot: Option<u32>) -> bool {
        let sim_index = self.sims_started;
        self.sims_started += 1;
        let path_start = self.paths.len();
        self.paths.push(Tree::ROOT);
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
                    let pos = self.walker(slot);
                    pos.make(mv);
                    let to_move = pos.side_to_move();
                    made += 1;
                    node = self.tree.child_or_create(e, || to_move);
                    self.paths.push(node);
                }
                NodeState::Unexpanded => {
                    self.expand_or_finish(path_start, made, slot);
                    return true;
                }
                NodeState::Terminal => {
                    let n = self.tree.node(node);
                    let (value, draw) = (n.value, n.draw);
                    backup(&mut self.tree, &self.paths[path_start..], value, draw);
                    self.sims_done += 1;
                    self.undo(slot, made);
                    self.paths.truncate(path_start);
                    return true;
                }
                NodeState::Pending => {
                    self.undo(slot, made);
                    self.paths.truncate(path_start);
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

    fn undo(&mut self, slot: Option<u32>, made: u32) {
        let pos = self.walker(slot);
        for _ in 0..made {
            pos.unmake();
        }
    }

    /// At an unexpanded leaf (the position of `slot` is there; its path is `paths[path_start..]`):
    /// a finished game is backed up, and so is a proven win (below the root, with
    /// `immediate_wins`: the side to move wins by its next move); anything else becomes a
    /// pending evaluation.
    fn expand_or_finish(&mut self, path_start: usize, made: u32, slot: Option<u32>) {
        let leaf = *self.paths.last().expect("a path holds the root");
        let pos = match slot {
            Some(k) => &mut self.leaf_positions[k as usize],
            None => &mut self.pos,
        };
        pos.legal_moves(&mut self.legal);
        let ended = self.adjudicator.outcome(pos, &self.legal).map(|o| (o, true));
        let proven = || {
            (self.immediate_wins && leaf != Tree::ROOT)
                .then(|| pos.immediate_win(&self.legal))
                .flatten()
                .map(|(_, o)| (o, false))
        };
        if let Some((outcome, game_over)) = ended.or_else(proven) {
            let (value, draw) = outcome_value(&outcome);
            let n = self.tree.node_mut(leaf);
            n.state = NodeState::Terminal;
            n.value = value;
            n.draw = draw;
            // A proven win is not the end of the game: `play` must not make it a root.
            n.reason = game_over.then(|| outcome.reason());
            backup(&mut self.tree, &self.paths[path_start..], value, draw);
            if leaf != Tree::ROOT {
                self.sims_done += 1;
            }
            self.undo(slot, made);
            self.paths.truncate(path_start);
            return;
        }
        self.tree.set_edges(leaf, &self.legal);
        self.tree.node_mut(leaf).state = NodeState::Pending;
        for &id in &self.paths[path_start..] {
            self.tree.node_mut(id).vl += 1;
        }
        self.evals += 1;
        self.pending.push(Pending { path_start: path_start as u32, path_end: self.paths.len() as u32, slot, made });
    }

    /// Noise (PUCT) or the Gumbel root state, once the root's priors are known.
    fn prepare_root(&mut self) {
        self.root_prepared = true;
        let range = self.tree.edges(Tree::ROOT);
        let k = range.len();
        self.root_win = if self.immediate_wins {
            self.pos.immediate_win(&self.tree.moves[range.clone()]).map(|(m, _)| m)
        } else {
            None
        };
        match self.params.kind {
            SearchKind::Puct => {
                if let Some((alpha, eps)) = self.options.dirichlet {
                    if k >= 2 && eps > 0.0 {
                        let gamma = Gamma::new(alpha as f64, 1.0).expect("alpha > 0 was validated");
                        let noise = &mut self.scratch.get_mut().noise;
                        noise.clear();
                        noise.extend((0..k).map(|_| gamma.sample(&mut self.rng)));
                        let total: f64 = noise.iter().sum();
                        if total > 0.0 && total.is_finite() {
                            let priors = &mut self.tree.priors[range];
                            self.clean_priors.clear();
                            self.clean_priors.extend_from_slice(priors);
                            self.root_noised = true;
                            for (p, &x) in priors.iter_mut().zip(noise.iter()) {
                                *p = (1.0 - eps) * *p + eps * (x / total) as f32;
                            }
                        }
                    }
                }
            }
            SearchKind::Gumbel => {
                let noise = self.options.gumbel_noise;
                let mut root = std::mem::take(&mut self.spare_gumbel_root);
                root.g.clear();
                for _ in 0..k {
                    root.g.push(if noise {
                        let u: f64 = self.rng.gen_range(f64::MIN_POSITIVE..1.0);
                        -(-u.ln()).ln() as f32
                    } else {
                        0.0
                    });
                }
                root.logits.clear();
                root.logits.extend(self.tree.priors[range.clone()].iter().map(|&p| gumbel::logit(p)));
                // Gumbel-top-k by g + logit + sigma(q): sigma is the same for every move of a
                // fresh root (the paper's top-k); with a reused tree it promotes the moves
                // already known to be good, as mctx's scoring of unvisited actions does.
                let scratch = self.scratch.get_mut();
                scratch.node_sigma(&self.tree, &self.params.gumbel, Tree::ROOT);
                let sigma = &scratch.sigma;
                let (g, logits) = (&root.g, &root.logits);
                let score = |a: usize| g[a] + logits[a] + sigma[a];
                let mut considered = std::mem::take(&mut root.considered);
                considered.clear();
                considered.extend(0..k);
                // Ties are broken by index, so no two keys are equal and the unstable sort
                // (which needs no buffer) orders as the stable one did.
                considered.sort_unstable_by(|&a, &b| score(b).total_cmp(&score(a)).then(a.cmp(&b)));
                let m = (self.params.gumbel.considered_actions as usize).min(k).max(1);
                considered.truncate(m);
                // A move that wins at once is always searched, whatever its prior, so that its
                // improved-policy target learns from its value.
                if let Some(win) = self.root_win {
                    let a = self.tree.moves[range.clone()].iter().position(|&mv| mv == win).expect("a root move");
                    if !considered.contains(&a) {
                        considered[m - 1] = a;
                    }
                }
                root.considered = considered;
                root.visits.clear();
                root.visits.resize(k, 0);
                root.schedule.reset(m, self.options.simulations as usize);
                self.gumbel_root = Some(root);
            }
        }
    }

    fn select_root_edge(&mut self, sim_index: u32) -> usize {
        if self.gumbel_root.is_none() {
            return self.select_puct(Tree::ROOT);
        }
        let first = self.tree.edges(Tree::ROOT).start;
        let scratch = self.scratch.get_mut();
        scratch.node_sigma(&self.tree, &self.params.gumbel, Tree::ROOT);
        let sigma = &scratch.sigma;
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

    fn select_interior_edge(&mut self, node: u32) -> usize {
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

    /// Gumbel MuZero's interior rule: the child whose visit share lags its improved-policy
    /// weight the most.
    fn select_gumbel_interior(&mut self, node: u32) -> usize {
        let t = &self.tree;
        let range = t.edges(node);
        let scratch = self.scratch.get_mut();
        scratch.node_sigma(t, &self.params.gumbel, node);
        scratch.logits.clear();
        scratch.logits.extend(t.priors[range.clone()].iter().map(|&p| gumbel::logit(p)));
        gumbel::improved_policy(&scratch.logits, &scratch.sigma, &mut scratch.policy);
        let visits = |e: usize| match t.children[e] {
            NONE => 0,
            c => t.node(c).n + t.node(c).vl,
        };
        let total: u32 = range.clone().map(visits).sum();
        let mut best = 0;
        let mut best_score = f32::NEG_INFINITY;
        for (i, e) in range.clone().enumerate() {
            let score = scratch.policy[i] - visits(e) as f32 / (1 + total) as f32;
            if score > best_score {
                best_score = score;
                best = i;
            }
        }
        range.start + best
    }

    /// [`EdgeScratch::node_sigma`] of `node` for the results; the guard must be dropped before
    /// the next call.
    fn node_sigma(&self, node: u32) -> std::cell::RefMut<'_, EdgeScratch> {
        let mut scratch = self.scratch.borrow_mut();
        scratch.node_sigma(&self.tree, &self.params.gumbel, node);
        scratch
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
                let prior = self.clean_priors().map_or(t.priors[e], |c| c[i]);
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
                let mut scratch = self.node_sigma(Tree::ROOT);
                let scratch = &mut *scratch;
                scratch.logits.clear();
                scratch.logits.extend(self.network_priors().iter().map(|&p| gumbel::logit(p)));
                let mut policy = Vec::with_capacity(range.len());
                gumbel::improved_policy(&scratch.logits, &scratch.sigma, &mut policy);
                policy
            }
            SearchKind::Puct => {
                let total: u32 = range.clone().map(|e| t.child_visits(e)).sum();
                if total == 0 {
                    return self.network_priors().to_vec();
                }
                range.map(|e| t.child_visits(e) as f32 / total as f32).collect()
            }
        }
    }

    /// Visits per root move (parallel to the root's moves).
    pub fn visit_counts(&self) -> Vec<u32> {
        self.tree.edges(Tree::ROOT).map(|e| self.tree.child_visits(e)).collect()
    }

    fn network_priors(&self) -> &[f32] {
        self.clean_priors().unwrap_or(&self.tree.priors[self.tree.edges(Tree::ROOT)])
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
                let pi = self.policy_weights();
                let scratch = self.node_sigma(Tree::ROOT);
                let (completed, n) = (&scratch.completed, &scratch.n);
                let value: f32 = pi.iter().zip(completed).map(|(p, q)| p * q).sum();
                let draw: f32 = t
                    .edges(Tree::ROOT)
                    .zip(&pi)
                    .zip(n)
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
        if let Some(win) = self.certain_win() {
            return Some(win);
        }
        let first = t.edges(Tree::ROOT).start;
        // A move the search proved lost is played only when every candidate is.
        let lost = |e: usize| self.proven_root_result(e) == Some(-1.0);
        match (&self.gumbel_root, self.params.kind) {
            (Some(g), SearchKind::Gumbel) => {
                let scratch = self.node_sigma(Tree::ROOT);
                let sigma = &scratch.sigma;
                let any_alive = g.considered.iter().any(|&a| !lost(first + a));
                let candidates = || g.considered.iter().copied().filter(|&a| !any_alive || !lost(first + a));
                let max_visits = candidates().map(|a| g.visits[a]).max()?;
                let a = candidates().filter(|&a| g.visits[a] == max_visits).max_by(|&a, &b| {
                    (g.g[a] + g.logits[a] + sigma[a]).total_cmp(&(g.g[b] + g.logits[b] + sigma[b])).then(b.cmp(&a))
                })?;
                Some(t.moves[first + a])
            }
            _ => {
                let best = t.best_edge(Tree::ROOT)?;
                let alive = t.edges(Tree::ROOT).filter(|&e| !lost(e) && t.child_visits(e) > 0);
                let e = if lost(best) { alive.max_by_key(|&e| t.child_visits(e)).unwrap_or(best) } else { best };
                Some(t.moves[e])
            }
        }
    }

    /// A root move known to win: one that ends the game at once in the mover's favour
    /// (`immediate_wins`), or one whose reply the search proved lost for the opponent.
    fn certain_win(&self) -> Option<Move> {
        let t = &self.tree;
        self.root_win
            .or_else(|| t.edges(Tree::ROOT).find(|&e| self.proven_root_result(e) == Some(1.0)).map(|e| t.moves[e]))
    }

    /// The exact result of root move `e` for the side to move at the root, when its child is a
    /// terminal node with a decisive value (the game ends there, or the search proved it won
    /// for the side to move there): 1 or -1; `None` otherwise.
    fn proven_root_result(&self, e: usize) -> Option<f32> {
        let t = &self.tree;
        let child = t.children[e];
        if child == NONE {
            return None;
        }
        let n = t.node(child);
        (n.state == NodeState::Terminal && n.draw == 0.0 && n.value != 0.0)
            .then(|| n.value.signum() * sign(t.root().to_move) as f32)
    }

    /// Samples a move from the visit counts with a temperature (0: the most visited).
    pub fn sample_move(&mut self, temperature: f32) -> Option<Move> {
        let t = &self.tree;
        let range = t.edges(Tree::ROOT);
        if range.is_empty() {
            return None;
        }
        let total: u32 = range.clone().map(|e| t.child_visits(e)).sum();
        if temperature <= 1e-3 || total == 0 || self.certain_win().is_some() {
            return self.best_move();
        }
        let max = range.clone().map(|e| t.child_visits(e)).max().expect("non-empty") as f64;
        let weight = |e: usize| (t.child_visits(e) as f64 / max).powf(1.0 / temperature as f64);
        let sum: f64 = range.clone().map(weight).sum();
        let mut x = self.rng.gen::<f64>() * sum;
        for e in range.clone() {
            let w = weight(e);
            if x < w {
                return Some(t.moves[e]);
            }
            x -= w;
        }
        let last = range.rev().find(|&e| weight(e) > 0.0).expect("some move was visited");
        Some(t.moves[last])
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
        for pos in &mut self.leaf_positions {
            pos.make(mv);
        }
        let child = edge.map_or(NONE, |e| self.tree.children[e]);
        // A proven win (terminal without a reason) is searched again from scratch: the game
        // goes on there, and its winning move must be found and played.
        let reusable = |n: &Node| match n.state {
            NodeState::Expanded => true,
            NodeState::Terminal => n.reason.is_some(),
            _ => false,
        };
        if reuse && child != NONE && reusable(self.tree.node(child)) {
            self.tree.extract_into(child, &mut self.spare_tree, &mut self.reroot_stack);
            std::mem::swap(&mut self.tree, &mut self.spare_tree);
        } else {
            self.tree.reset(self.pos.side_to_move());
        }
        self.root_noised = false;
        self.drop_gumbel_root();
        self.root_prepared = false;
        self.root_win = None;
    }

    /// Replaces the root position (and drops the tree).
    pub fn set_position(&mut self, pos: Position, adjudicator: Adjudicator) {
        assert!(self.pending.is_empty(), "set_position() while leaves are pending");
        self.tree.reset(pos.side_to_move());
        self.immediate_wins = self.params.immediate_wins && pos.variant().ends_by_material();
        self.pos = pos;
        // Walked positions start from the root: cloned again from the new one when needed.
        self.leaf_positions.clear();
        self.adjudicator = adjudicator;
        self.root_noised = false;
        self.drop_gumbel_root();
        self.root_prepared = false;
        self.root_win = None;
    }

    /// Legal moves of the root and the game result if it is over.
    pub fn root_status(&mut self) -> (&[Move], Option<Outcome>) {
        self.pos.legal_moves(&mut self.legal);
        let outcome = self.adjudicator.outcome(&self.pos, &self.legal);
        (&self.legal, outcome)
    }
}

/// Adds a result to every node of `path`.
fn backup(tree: &mut Tree, path: &[u32], value: f32, draw: f32) {
    for &id in path {
        let n = tree.node_mut(id);
        n.n += 1;
        n.w += value as f64;
        n.d += draw as f64;
    }
}
