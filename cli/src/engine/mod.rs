//! A protocol-neutral game engine: one variant, one position with its move history, and the
//! player that searches it. The UCI front end ([`uci`]) drives it; an XBoard/CECP front end can
//! drive the same core.
//!
//! The API, all of it:
//! - [`Engine::new`] with a [`PlayerSetup`] (a net searched by Gumbel/PUCT at a simulation or
//!   time budget, or the evaluator's alpha-beta player) and a variant;
//! - [`Engine::set_variant`], [`Engine::new_game`], [`Engine::set_position`] (a start — the
//!   variant's start, its setup phase, or a position string — and moves in the project's
//!   notation, docs/notation.md);
//! - [`Engine::set_threads`], [`Engine::set_hash_mb`], [`Engine::options_mut`] (MultiPV, move
//!   overhead, WDL);
//! - [`Engine::go`] with [`GoLimits`] (nodes, depth, move time, clock, infinite), a stop flag
//!   that another thread may set at any time (the search ends within a network batch or, for
//!   alpha-beta, about a millisecond), and an info callback that receives a [`SearchInfo`]
//!   after each completed iteration (alpha-beta, with the PV from its transposition table) or
//!   about twice a second (MCTS); it returns the [`BestMove`].
//! - [`Engine::play`] and [`Engine::undo`]: one move at a time (XBoard's `usermove`/`undo`).
//!
//! Scores: alpha-beta's are centipawns already; a net's value `q` in [-1, 1] becomes
//! [`value_to_cp`] (lc0's mapping, see docs/engines.md).

pub mod uci;
pub mod xboard;

use std::{
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
    time::{Duration, Instant},
};

use anyhow::{bail, Context, Result};
use fairyzero_evaluator::{
    alphabeta::{AlphaBeta, AlphaBetaConfig, Iteration, MATE},
    PlayerSpec, SearchParams, ValueSource,
};
use fairyzero_model::{service::ServiceConfig, Backend, PrecisionSetting};
use fairyzero_rules::{Move, MoveList, Position, Variant};
use fairyzero_selfplay::{
    analyse::{Analysis, Analyzer, Limits},
    config::SearchKind,
    tree::{NodeState, Tree, NONE},
};

use crate::network::{BackendOptions, NetRuntime, NetSpec};

/// The most simulations one search may plan (the selfplay crate's limit).
const MAX_SIMULATIONS: u32 = fairyzero_selfplay::limits::MAX_SIMULATIONS as u32;

/// Deepest alpha-beta iteration (the alpha-beta player's own bound).
const AB_MAX_DEPTH: u32 = 64;

/// MCTS info lines come at most this often (and once at the end).
const INFO_EVERY: Duration = Duration::from_millis(500);

/// Who searches.
#[derive(Clone, Debug)]
pub enum PlayerSetup {
    /// A network (`random:SIZE` or a checkpoint/exported folder) searched by MCTS.
    Net {
        /// `--net`'s text without `@SIMS`.
        net: String,
        /// Simulations of a `go` without limits.
        simulations: u32,
        params: SearchParams,
        precision: PrecisionSetting,
    },
    /// The evaluator's alpha-beta player; its depth/nodes/ms are the limits of a `go` without
    /// limits.
    AlphaBeta { depth: Option<u32>, nodes: Option<u64>, ms: Option<u64>, values: ValueSource },
}

impl PlayerSetup {
    /// `alphabeta:...` as `match` reads it; other player kinds are refused with the reason.
    pub fn alpha_beta(spec: &str) -> Result<PlayerSetup> {
        match PlayerSpec::parse(spec).with_context(|| format!("--player {spec}"))? {
            PlayerSpec::AlphaBeta { depth, nodes, ms, values } => {
                Ok(PlayerSetup::AlphaBeta { depth, nodes, ms, values })
            }
            _ => bail!("--player {spec}: only alphabeta:... players can be engines (a net goes in --net DIR[@SIMS])"),
        }
    }
}

/// `--net DIR@SIMS` split into the net and its simulations (default
/// [`fairyzero_evaluator::player::DEFAULT_SIMULATIONS`]); the simulations follow the last `@`.
pub fn split_simulations(text: &str) -> Result<(String, u32)> {
    match text.rsplit_once('@') {
        Some((net, sims)) if !sims.is_empty() && sims.bytes().all(|b| b.is_ascii_digit()) => {
            let n: u64 = sims.parse().with_context(|| format!("--net {text}: bad simulation count"))?;
            anyhow::ensure!(
                (1..=crate::limits::MAX_SIMULATIONS).contains(&n),
                "--net {text}: simulations must be from 1 to {}",
                crate::limits::MAX_SIMULATIONS
            );
            Ok((net.to_string(), n as u32))
        }
        _ => Ok((text.to_string(), fairyzero_evaluator::player::DEFAULT_SIMULATIONS)),
    }
}

/// Engine settings a front end exposes as options.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineOptions {
    /// Lines reported per info (1: the best only).
    pub multipv: usize,
    /// Wall time kept back from every clock-derived budget for the GUI and the pipe.
    pub move_overhead: Duration,
    /// Report win/draw/loss permille (nets only).
    pub show_wdl: bool,
    /// libtorch intra-op threads of a net (ignored by alpha-beta, which is single-threaded).
    pub threads: usize,
    /// Transposition table of alpha-beta in MiB (a net's MCTS tree has no fixed size).
    pub hash_mb: usize,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions { multipv: 1, move_overhead: Duration::from_millis(30), show_wdl: false, threads: 1, hash_mb: 16 }
    }
}

/// A chess clock as the GUI reports it, indexed by side (0 first player, 1 second).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Clock {
    pub time: [Option<Duration>; 2],
    pub inc: [Duration; 2],
    pub moves_to_go: Option<u32>,
}

/// The limits of one search; none set means the player's own (`--net DIR@SIMS`'s simulations,
/// `alphabeta:DEPTH`'s depth). The first limit reached ends the search.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GoLimits {
    pub nodes: Option<u64>,
    pub depth: Option<u32>,
    pub movetime: Option<Duration>,
    pub clock: Option<Clock>,
    /// Search until stopped (the result is given only then, even if the search ends sooner).
    pub infinite: bool,
}

impl GoLimits {
    fn unlimited(&self) -> bool {
        self.nodes.is_none()
            && self.depth.is_none()
            && self.movetime.is_none()
            && self.clock.is_none()
            && !self.infinite
    }

    /// The wall time this move may use: `movetime` less the overhead, or a share of the clock:
    /// `left / movestogo (default 30) + 3/4 of the increment`, never more than half of what is
    /// left, less the overhead (at least 1 ms).
    pub fn time_budget(&self, side: usize, overhead: Duration) -> Option<Duration> {
        let floor = Duration::from_millis(1);
        let clock = self.clock.and_then(|c| {
            let left = c.time[side]?;
            let mtg = c.moves_to_go.unwrap_or(30).max(1);
            let share = left / mtg + c.inc[side] * 3 / 4;
            Some(share.min(left / 2).saturating_sub(overhead).max(floor))
        });
        let movetime = self.movetime.map(|t| t.saturating_sub(overhead).max(floor));
        match (clock, movetime) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// A score for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Cp(i32),
    /// Moves (not plies) to mate; negative when the side to move is mated.
    Mate(i32),
}

/// One line of a MultiPV report.
#[derive(Clone, Debug, PartialEq)]
pub struct PvLine {
    pub score: Score,
    /// Moves in the project's notation (UCI for the Fairy-Stockfish variants).
    pub pv: Vec<String>,
    /// Win/draw/loss permille for the side to move, when the player knows them (nets).
    pub wdl: Option<[u32; 3]>,
}

/// What a search reports while it runs and at its end.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchInfo {
    /// Alpha-beta: completed iteration. MCTS: visits-weighted mean depth of the tree (rounded).
    pub depth: u32,
    /// MCTS: the tree's deepest node.
    pub seldepth: Option<u32>,
    pub nodes: u64,
    pub elapsed: Duration,
    /// Best first; at most MultiPV lines.
    pub lines: Vec<PvLine>,
}

impl SearchInfo {
    pub fn nps(&self) -> u64 {
        (self.nodes as f64 / self.elapsed.as_secs_f64().max(1e-3)) as u64
    }
}

/// The result of [`Engine::go`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BestMove {
    /// `None` when the game is over at the root.
    pub best: Option<String>,
    /// The expected reply (the PV's second move).
    pub ponder: Option<String>,
    /// Why there is no move (the game's result), for the front end's message.
    pub game_over: Option<String>,
}

/// lc0's value-to-centipawn mapping: `cp = 111.714640912 * tan(1.5620688421 * q)`, with `q`
/// clamped so that a sure win reads about ±12,800 cp rather than infinity.
pub fn value_to_cp(q: f32) -> i32 {
    let q = f64::from(q).clamp(-0.9999, 0.9999);
    (111.714640912 * (1.5620688421 * q).tan()).round() as i32
}

/// An alpha-beta score as UCI reports it: mates as moves to mate.
fn alpha_beta_score(score: i32) -> Score {
    // Scores within 1,000 plies of MATE are mates (the alpha-beta player's own bound).
    if score.abs() >= MATE - 1_000 {
        let plies = MATE - score.abs();
        let moves = (plies + 1) / 2;
        Score::Mate(if score > 0 { moves.max(1) } else { -moves })
    } else {
        Score::Cp(score)
    }
}

enum Player {
    Net(NetPlayer),
    // Boxed: the alpha-beta searcher's buffers make it the larger by far.
    AlphaBeta(Box<AbPlayer>),
}

struct NetPlayer {
    spec: NetSpec,
    simulations: u32,
    params: SearchParams,
    precision: PrecisionSetting,
    backend: Box<dyn Backend>,
    /// Simulations per second of the last timed search, to plan Gumbel's first round.
    nps: Option<f64>,
}

struct AbPlayer {
    depth: Option<u32>,
    nodes: Option<u64>,
    ms: Option<u64>,
    values: ValueSource,
    /// The searcher of the last `go` and its table size (`tt_bits`), kept with its
    /// transposition table from move to move while the size stays the same; dropped by a new
    /// game and variant changes.
    engine: Option<(u32, AlphaBeta)>,
}

/// The engine core.
pub struct Engine<'r> {
    runtime: &'r dyn NetRuntime,
    variant: Arc<Variant>,
    /// Where the current game started (the variant's start, its setup phase, or a FEN).
    start: Position,
    /// The current position: `start` with the game's moves played.
    pos: Position,
    player: Player,
    options: EngineOptions,
}

impl<'r> Engine<'r> {
    /// An engine on `variant` (a built-in name or a TOML path) at its start position.
    pub fn new(runtime: &'r dyn NetRuntime, setup: PlayerSetup, variant: &str, options: EngineOptions) -> Result<Self> {
        let variant = Variant::load(variant).with_context(|| format!("loading variant {variant}"))?;
        let player = match setup {
            PlayerSetup::Net { net, simulations, params, precision } => {
                let spec = NetSpec::parse(&net)?;
                let backend = net_backend(runtime, &spec, &variant, &params, precision, options.threads)?;
                Player::Net(NetPlayer { spec, simulations, params, precision, backend, nps: None })
            }
            PlayerSetup::AlphaBeta { depth, nodes, ms, values } => {
                Player::AlphaBeta(Box::new(AbPlayer { depth, nodes, ms, values, engine: None }))
            }
        };
        let start = start_position(&variant);
        Ok(Engine { runtime, pos: start.clone(), start, variant, player, options })
    }

    pub fn variant(&self) -> &Arc<Variant> {
        &self.variant
    }

    /// The current position (its history counts for repetitions).
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// Whether a net plays (MCTS), rather than alpha-beta.
    pub fn is_net(&self) -> bool {
        matches!(self.player, Player::Net(_))
    }

    pub fn options(&self) -> &EngineOptions {
        &self.options
    }

    /// The options that need no rebuilding: MultiPV, move overhead, WDL.
    pub fn options_mut(&mut self) -> &mut EngineOptions {
        &mut self.options
    }

    /// Switches to another variant (a built-in name or a TOML path) at its start position. A
    /// net is rebuilt for it; on error (a checkpoint of another variant) nothing changes.
    pub fn set_variant(&mut self, name: &str) -> Result<()> {
        let variant = Variant::load(name).with_context(|| format!("loading variant {name}"))?;
        if let Player::Net(net) = &mut self.player {
            net.backend =
                net_backend(self.runtime, &net.spec, &variant, &net.params, net.precision, self.options.threads)
                    .with_context(|| format!("the net cannot play variant {}", variant.name))?;
            net.nps = None;
        }
        if let Player::AlphaBeta(ab) = &mut self.player {
            ab.engine = None;
        }
        self.start = start_position(&variant);
        self.pos = self.start.clone();
        self.variant = variant;
        Ok(())
    }

    /// libtorch threads of a net (the backend is rebuilt); alpha-beta ignores it.
    pub fn set_threads(&mut self, threads: usize) -> Result<()> {
        if let Player::Net(net) = &mut self.player {
            if threads != self.options.threads {
                net.backend = net_backend(self.runtime, &net.spec, &self.variant, &net.params, net.precision, threads)?;
            }
        }
        self.options.threads = threads;
        Ok(())
    }

    /// Alpha-beta's transposition table size, from the next search on.
    pub fn set_hash_mb(&mut self, mb: usize) {
        self.options.hash_mb = mb;
    }

    /// A new game: alpha-beta forgets its table.
    pub fn new_game(&mut self) {
        if let Player::AlphaBeta(ab) = &mut self.player {
            ab.engine = None;
        }
        self.pos = self.start.clone();
    }

    /// Sets the position: `fen` (a position string of docs/notation.md), or the variant's start
    /// (its setup phase for variants with one), then `moves` one by one. On a bad FEN nothing
    /// changes; on a bad move the moves before it stay played, and the error names it.
    pub fn set_position(&mut self, fen: Option<&str>, moves: &[&str]) -> Result<()> {
        let start = match fen {
            Some(fen) => Position::from_fen(Arc::clone(&self.variant), fen)
                .with_context(|| format!("bad position string for variant {}", self.variant.name))?,
            None => start_position(&self.variant),
        };
        self.start = start.clone();
        self.pos = start;
        for (i, text) in moves.iter().enumerate() {
            // `play_moves` reads a doubled turn `a,b` as one move, as docs/notation.md says.
            let mut next = self.pos.clone();
            next.play_moves(text).with_context(|| format!("move {} ({text}) of the move list", i + 1))?;
            self.pos = next;
        }
        Ok(())
    }

    /// Plays one move (the project's notation) on the current position; an illegal or
    /// malformed move changes nothing, and the error says why.
    pub fn play(&mut self, text: &str) -> Result<()> {
        let m = self.pos.parse_move(text).map_err(|e| anyhow::anyhow!("{e}"))?;
        self.pos.make(m);
        Ok(())
    }

    /// The legal move of the current position that `text` names, in the project's notation.
    pub fn parse_move(&mut self, text: &str) -> Result<Move> {
        self.pos.parse_move(text).map_err(|e| anyhow::anyhow!("{e}"))
    }

    /// Takes back the last move played since the position was set; false when there is none.
    pub fn undo(&mut self) -> bool {
        if self.pos.ply() > self.start.ply() {
            self.pos.unmake();
            true
        } else {
            false
        }
    }

    /// Moves played since the position was set (a start or a FEN).
    pub fn moves_played(&self) -> u32 {
        self.pos.ply() - self.start.ply()
    }

    /// How the game stands at the current position: `None` while it goes on.
    pub fn outcome(&mut self) -> Option<fairyzero_rules::Outcome> {
        let mut legal = MoveList::new();
        self.pos.legal_moves(&mut legal);
        self.pos.outcome_with(&legal)
    }

    /// Searches the current position within `limits` until done or `stop` is set; `info` gets
    /// the progress. With `limits.infinite` the result waits for `stop`.
    pub fn go(&mut self, limits: &GoLimits, stop: &Arc<AtomicBool>, info: &mut dyn FnMut(&SearchInfo)) -> BestMove {
        let started = Instant::now();
        let mut legal = MoveList::new();
        self.pos.legal_moves(&mut legal);
        if let Some(outcome) = self.pos.outcome_with(&legal) {
            wait_for_stop(limits, stop);
            let result = match outcome.winner() {
                Some(c) => format!("{} wins", c.name()),
                None => "draw".into(),
            };
            return BestMove {
                best: None,
                ponder: None,
                game_over: Some(format!("the game is over: {result} ({})", outcome.reason().as_str())),
            };
        }
        let side = self.pos.side_to_move().index();
        let budget = limits.time_budget(side, self.options.move_overhead);
        let best = match &mut self.player {
            Player::Net(net) => net.go(&self.pos, limits, budget, &self.options, started, stop, info),
            Player::AlphaBeta(ab) => ab.go(&self.pos, &self.variant, limits, budget, &self.options, stop, info),
        };
        wait_for_stop(limits, stop);
        best
    }
}

/// `go infinite` answers only after `stop` (UCI): the search may have ended sooner.
fn wait_for_stop(limits: &GoLimits, stop: &AtomicBool) {
    while limits.infinite && !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// A variant's start: its setup phase when it has one (the whole game, setup plies included,
/// is then written as moves), else its start array.
fn start_position(variant: &Arc<Variant>) -> Position {
    Position::setup_start(Arc::clone(variant)).unwrap_or_else(|| Position::start(Arc::clone(variant)))
}

fn net_backend(
    runtime: &dyn NetRuntime,
    spec: &NetSpec,
    variant: &Arc<Variant>,
    params: &SearchParams,
    precision: PrecisionSetting,
    threads: usize,
) -> Result<Box<dyn Backend>> {
    // One search: its batch is one forward, launched as soon as it is submitted (as `analyse`).
    let service = ServiceConfig {
        max_batch: (params.leaves_per_round as usize).max(1),
        max_wait: Duration::ZERO,
        ..Default::default()
    };
    let options = BackendOptions { service, threads: Some(threads), precision, ..BackendOptions::default() };
    Ok(runtime.search_backend(spec, variant, &options).context("setting up the network")?.0)
}

impl NetPlayer {
    #[allow(clippy::too_many_arguments)]
    fn go(
        &mut self,
        pos: &Position,
        limits: &GoLimits,
        budget: Option<Duration>,
        options: &EngineOptions,
        started: Instant,
        stop: &AtomicBool,
        info: &mut dyn FnMut(&SearchInfo),
    ) -> BestMove {
        let mut analyzer = Analyzer::new(pos.clone(), self.params.clone(), self.backend.as_ref());
        let target: Option<u32> = match limits.nodes {
            Some(n) => Some(n.clamp(1, u64::from(MAX_SIMULATIONS)) as u32),
            None if limits.unlimited() => Some(self.simulations),
            None => None,
        };
        let deadline = budget.map(|b| started + b);
        let gumbel = self.params.kind == SearchKind::Gumbel;
        let mut done: u64 = 0;
        let mut last_info = started;
        let mut last: Option<Analysis> = None;
        // The simulation count of the last info sent: the final one is not sent twice.
        let mut reported = None;
        // PUCT grows one tree in chunks (an info line between two); Gumbel plans each
        // sequential-halving round from its simulation count, so a round is one call: a round
        // of the planned size, or, with no node limit, rounds that double the tree until the
        // time or `stop` (its best move mid-round is the leader of the current halving).
        let mut round: u32 = match (target, gumbel) {
            (Some(t), _) => t,
            (None, true) => match (self.nps, budget) {
                (Some(nps), Some(b)) => ((nps * b.as_secs_f64()) as u32).clamp(16, MAX_SIMULATIONS),
                _ => self.simulations.max(16),
            },
            (None, false) => MAX_SIMULATIONS,
        };
        loop {
            let now = Instant::now();
            if stop.load(Ordering::Relaxed) || deadline.is_some_and(|d| now >= d) {
                break;
            }
            let left = target.map_or(round, |t| (u64::from(t) - done) as u32);
            if left == 0 {
                break;
            }
            let mut time = deadline.map(|d| d - now);
            if !gumbel {
                // Chunks, so that the info lines and a depth limit are seen between two.
                let chunk = if limits.depth.is_some() { Duration::from_millis(20) } else { INFO_EVERY };
                time = Some(time.map_or(chunk, |t| t.min(chunk)));
            }
            let planned = if gumbel { round } else { left };
            let analysis = analyzer.go(&Limits { nodes: planned.max(1), time }, stop);
            done += u64::from(analysis.nodes);
            let stalled = analysis.nodes == 0;
            last = Some(analysis);
            let stats = tree_stats(analyzer.search().tree());
            let report = Instant::now().duration_since(last_info) >= INFO_EVERY || gumbel;
            if report {
                info(&net_info(&analyzer, last.as_ref().expect("just set"), done, started, options, stats));
                last_info = Instant::now();
                reported = Some(done);
            }
            if stalled || limits.depth.is_some_and(|d| stats.0 >= d) {
                break;
            }
            if gumbel {
                if target.is_some() {
                    break;
                }
                round = u32::try_from(done).unwrap_or(MAX_SIMULATIONS).clamp(16, MAX_SIMULATIONS);
            } else if target.is_none() && done >= u64::from(MAX_SIMULATIONS) {
                break;
            }
        }
        let elapsed = started.elapsed();
        if budget.is_some() && elapsed > Duration::from_millis(50) && done > 0 {
            self.nps = Some(done as f64 / elapsed.as_secs_f64());
        }
        let final_info = match &last {
            Some(_) if reported == Some(done) => None,
            Some(a) => Some(net_info(&analyzer, a, done, started, options, tree_stats(analyzer.search().tree()))),
            None => {
                // Stopped before the first simulation: the network's priors still pick a move.
                let a = analyzer.go(&Limits { nodes: 1, time: None }, &AtomicBool::new(false));
                done += u64::from(a.nodes);
                let i = net_info(&analyzer, &a, done, started, options, tree_stats(analyzer.search().tree()));
                last = Some(a);
                Some(i)
            }
        };
        if let Some(i) = final_info {
            info(&i);
        }
        let a = last.expect("searched at least once");
        BestMove { best: a.best.clone(), ponder: a.pv.get(1).cloned(), game_over: None }
    }
}

/// Visits-weighted mean depth of the tree (the sum of the visits of every node but the root
/// is the sum of every simulation's depth) and its deepest visited node.
fn tree_stats(tree: &Tree) -> (u32, u32) {
    let root = tree.root();
    let visits: f64 = tree.nodes.iter().skip(1).map(|n| f64::from(n.n)).sum();
    let mean = if root.n > 0 { (visits / f64::from(root.n)).round() as u32 } else { 0 };
    let mut deepest = 0;
    let mut stack = vec![(Tree::ROOT, 0u32)];
    while let Some((id, depth)) = stack.pop() {
        deepest = deepest.max(depth);
        if tree.node(id).state != NodeState::Expanded {
            continue;
        }
        for e in tree.edges(id) {
            let c = tree.children[e];
            if c != NONE && tree.node(c).n > 0 {
                stack.push((c, depth + 1));
            }
        }
    }
    (mean.max(1), deepest.max(1))
}

fn wdl_permille(value: f32, draw: f32) -> [u32; 3] {
    let draw = draw.clamp(0.0, 1.0);
    let win = ((1.0 + value - draw) / 2.0).clamp(0.0, 1.0);
    let w = (win * 1000.0).round() as u32;
    let d = ((draw * 1000.0).round() as u32).min(1000 - w);
    [w, d, 1000 - w - d]
}

/// The info of a net's search: line 1 is the move the search would play (Gumbel's may not be
/// the most visited), the others the next root moves by visits.
fn net_info(
    analyzer: &Analyzer<'_>,
    a: &Analysis,
    nodes: u64,
    started: Instant,
    options: &EngineOptions,
    (depth, seldepth): (u32, u32),
) -> SearchInfo {
    let search = analyzer.search();
    let tree = search.tree();
    let pos = search.position();
    let (root_value, root_draw) = search.root_value();
    let mut lines = Vec::new();
    if let Some(best) = &a.best {
        lines.push(PvLine {
            score: Score::Cp(value_to_cp(root_value)),
            pv: a.pv.clone(),
            wdl: options.show_wdl.then(|| wdl_permille(root_value, root_draw)),
        });
        let to_move = tree.root().to_move;
        let mut others: Vec<(usize, u32)> = tree
            .edges(Tree::ROOT)
            .filter(|&e| tree.child_visits(e) > 0 && &pos.move_to_string(&tree.moves[e]) != best)
            .map(|e| (e, tree.child_visits(e)))
            .collect();
        others.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
        for (e, _) in others.into_iter().take(options.multipv.saturating_sub(1)) {
            let child = tree.node(tree.children[e]);
            let q = child.q(to_move).unwrap_or(0.0) as f32;
            let draw = child.draw_rate().unwrap_or(0.0) as f32;
            lines.push(PvLine {
                score: Score::Cp(value_to_cp(q)),
                pv: line_from(pos, tree, tree.moves[e], tree.children[e]),
                wdl: options.show_wdl.then(|| wdl_permille(q, draw)),
            });
        }
    }
    // A root move that ends the game at once in the mover's favour is a mate in one.
    if let Some(first) = lines.first_mut() {
        if let Some(e) = tree.edges(Tree::ROOT).find(|&e| Some(pos.move_to_string(&tree.moves[e])) == a.best) {
            let c = tree.children[e];
            if c != NONE {
                let n = tree.node(c);
                let won = n.state == NodeState::Terminal && n.reason.is_some() && n.draw == 0.0 && n.value != 0.0;
                if won && n.value.signum() as f64 * fairyzero_selfplay::tree::sign(tree.root().to_move) > 0.0 {
                    first.score = Score::Mate(1);
                }
            }
        }
    }
    SearchInfo { depth, seldepth: Some(seldepth), nodes, elapsed: started.elapsed(), lines }
}

/// `first` and the most visited moves below it.
fn line_from(pos: &Position, tree: &Tree, first: Move, child: u32) -> Vec<String> {
    let mut p = pos.clone();
    let mut line = vec![p.move_to_string(&first)];
    p.make(first);
    let mut node = child;
    while node != NONE && tree.node(node).state == NodeState::Expanded && line.len() < 64 {
        let Some(e) = tree.best_edge(node) else { break };
        let c = tree.children[e];
        if c == NONE || tree.node(c).n == 0 {
            break;
        }
        line.push(p.move_to_string(&tree.moves[e]));
        p.make(tree.moves[e]);
        node = c;
    }
    line
}

/// Bytes of one alpha-beta table entry (key, move, score, depth, bound), for `Hash`.
fn ab_entry_bytes() -> usize {
    (8 + std::mem::size_of::<Option<Move>>() + 4 + 2 + 1).next_multiple_of(8)
}

impl AbPlayer {
    /// One search that ends at its limits or as soon as `stop` is set (the alpha-beta player
    /// reads the flag with its clock), with an info line per completed iteration.
    #[allow(clippy::too_many_arguments)]
    fn go(
        &mut self,
        pos: &Position,
        variant: &Arc<Variant>,
        limits: &GoLimits,
        budget: Option<Duration>,
        options: &EngineOptions,
        stop: &Arc<AtomicBool>,
        info: &mut dyn FnMut(&SearchInfo),
    ) -> BestMove {
        // A go without limits plays as `alphabeta:...` would.
        let (depth, nodes, budget) = if limits.unlimited() {
            (self.depth, self.nodes, self.ms.map(Duration::from_millis))
        } else {
            (limits.depth, limits.nodes, budget)
        };
        let target = depth.unwrap_or(AB_MAX_DEPTH).clamp(1, AB_MAX_DEPTH);
        let entries = (options.hash_mb.max(1) << 20) / ab_entry_bytes();
        let tt_bits = (usize::BITS - 1 - entries.max(16).leading_zeros()).clamp(4, 28);
        // The table is kept from move to move of a game: the next search starts with the
        // previous one's best moves for move ordering.
        let mut engine = match self.engine.take() {
            Some((bits, e)) if bits == tt_bits => e,
            _ => {
                let mut e = AlphaBeta::new(
                    variant,
                    AlphaBetaConfig { values: self.values, tt_bits: Some(tt_bits), ..AlphaBetaConfig::default() },
                );
                e.new_game(u32::MAX);
                e
            }
        };
        engine.set_limits(Some(target), nodes, budget);
        engine.set_stop(Some(Arc::clone(stop)));
        let mut p = pos.clone();
        // Whether an iteration was reported (else the move is reported below).
        let mut reported = false;
        let mut report = |it: &Iteration| {
            let pv = ab_pv(pos, &it.pv);
            info(&SearchInfo {
                depth: it.depth,
                seldepth: None,
                nodes: it.nodes,
                elapsed: it.elapsed,
                lines: vec![PvLine { score: alpha_beta_score(it.score), pv, wdl: None }],
            });
            reported = true;
        };
        let r = engine.search_with(&mut p, &mut report);
        engine.set_stop(None);
        self.engine = Some((tt_bits, engine));
        let best = r.best.map(|m| pos.move_to_string(&m));
        // A search stopped inside its first iteration, or a root with one move (not searched),
        // still reports the move it plays.
        if !reported {
            if let Some(b) = &best {
                info(&SearchInfo {
                    depth: r.depth.max(1),
                    seldepth: None,
                    nodes: r.nodes,
                    elapsed: Duration::from_secs_f64(r.seconds),
                    lines: vec![PvLine { score: alpha_beta_score(r.score), pv: vec![b.clone()], wdl: None }],
                });
            }
        }
        // No ponder move: the PV's reply is in the info lines, and `bestmove` stays the plain
        // form cli/tests/uci.rs checks for alpha-beta.
        BestMove { best, ponder: None, game_over: None }
    }
}

/// A PV of moves as text, each printed on the position it is played from.
fn ab_pv(pos: &Position, moves: &[Move]) -> Vec<String> {
    let mut p = pos.clone();
    moves
        .iter()
        .map(|&m| {
            let text = p.move_to_string(&m);
            p.make(m);
            text
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simulations_follow_the_last_at_sign() {
        assert_eq!(split_simulations("models/a@b@400").unwrap(), ("models/a@b".into(), 400));
        assert_eq!(split_simulations("random:tiny").unwrap(), ("random:tiny".into(), 100));
        assert_eq!(split_simulations("dir@").unwrap(), ("dir@".into(), 100));
        assert!(split_simulations("dir@0").is_err());
        assert!(split_simulations("dir@99999999999").is_err());
    }

    #[test]
    fn value_to_cp_is_lc0s_mapping() {
        assert_eq!(value_to_cp(0.0), 0);
        // 111.7 * tan(0.781) = 111: an even-ish expectation reads about a pawn.
        assert_eq!(value_to_cp(0.5), 111);
        assert_eq!(value_to_cp(-0.5), -111);
        assert!(value_to_cp(1.0) > 10_000 && value_to_cp(1.0) < 13_000, "{}", value_to_cp(1.0));
    }

    #[test]
    fn alpha_beta_mates_are_moves_to_mate() {
        assert_eq!(alpha_beta_score(MATE - 1), Score::Mate(1));
        assert_eq!(alpha_beta_score(MATE - 3), Score::Mate(2));
        assert_eq!(alpha_beta_score(-(MATE - 2)), Score::Mate(-1));
        assert_eq!(alpha_beta_score(250), Score::Cp(250));
    }

    #[test]
    fn clock_budget_shares_the_time_left() {
        let ms = Duration::from_millis;
        let clock = Clock { time: [Some(ms(60_000)), Some(ms(1_000))], inc: [ms(1_000), ms(0)], moves_to_go: None };
        let limits = GoLimits { clock: Some(clock), ..GoLimits::default() };
        // 60 s / 30 + 0.75 s - 30 ms.
        assert_eq!(limits.time_budget(0, ms(30)), Some(ms(2_720)));
        // 1 s / 30 - 30 ms = 3.33 ms.
        assert_eq!(limits.time_budget(1, ms(30)), Some(Duration::from_nanos(3_333_333)));
        // Never more than half the time left, never below 1 ms.
        let clock = Clock { time: [Some(ms(100)), Some(ms(10))], inc: [ms(10_000), ms(0)], moves_to_go: Some(1) };
        let limits = GoLimits { clock: Some(clock), movetime: None, ..GoLimits::default() };
        assert_eq!(limits.time_budget(0, ms(0)), Some(ms(50)));
        assert_eq!(limits.time_budget(1, ms(30)), Some(ms(1)));
        let limits = GoLimits { movetime: Some(ms(500)), ..GoLimits::default() };
        assert_eq!(limits.time_budget(0, ms(30)), Some(ms(470)));
        assert_eq!(GoLimits::default().time_budget(0, ms(30)), None);
    }

    #[test]
    fn wdl_sums_to_a_thousand() {
        assert_eq!(wdl_permille(0.0, 0.2), [400, 200, 400]);
        assert_eq!(wdl_permille(1.0, 0.0), [1000, 0, 0]);
        let [w, d, l] = wdl_permille(-0.3, 0.45);
        assert_eq!(w + d + l, 1000);
    }
}
