//! One game at a time: search a position with node and time limits, stop on request, keep the
//! tree when a move is played. `fairyzero analyse` prints this; an engine protocol will sit on
//! the same [`Analyzer`].

use std::{
    sync::atomic::{AtomicBool, Ordering},
    time::{Duration, Instant},
};

use fairyzero_model::backend::Backend;
use fairyzero_rules::{Color, Move, Outcome, Position};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::{
    config::CapResult,
    search::{Adjudicator, Search, SearchOptions, SearchParams},
};

/// When to stop searching. The node limit is required (Gumbel's sequential halving plans its
/// visits from it); the time limit, and the stop flag, may end the search earlier.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Simulations to add.
    pub nodes: u32,
    pub time: Option<Duration>,
}

/// One root move in an analysis.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveLine {
    pub mv: String,
    pub visits: u32,
    pub prior: f32,
    /// Mean value for the side to move, if visited.
    pub q: Option<f32>,
    /// Improved-policy weight (Gumbel) or visit share (PUCT).
    pub policy: f32,
}

/// The result of [`Analyzer::go`].
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    pub fen: String,
    pub side_to_move: Color,
    /// Set when the game is already over at the root (then nothing was searched).
    pub outcome: Option<Outcome>,
    /// Simulations added by this search.
    pub nodes: u32,
    /// Visits the root had from earlier searches (tree reuse).
    pub reused: u32,
    pub evaluations: u32,
    pub elapsed: Duration,
    /// Value for the side to move in [-1, 1], and win/draw/loss probabilities.
    pub value: f32,
    pub wdl: [f32; 3],
    pub best: Option<String>,
    pub pv: Vec<String>,
    /// Root moves, most visited first.
    pub moves: Vec<MoveLine>,
}

/// A single-game search driver.
pub struct Analyzer<'a> {
    search: Search,
    backend: &'a dyn Backend,
}

impl<'a> Analyzer<'a> {
    /// Analyses `pos` (its history counts for repetition rules).
    pub fn new(pos: Position, params: SearchParams, backend: &'a dyn Backend) -> Analyzer<'a> {
        let adjudicator = Analyzer::adjudicator();
        Analyzer { search: Search::new(pos, params, adjudicator, ChaCha8Rng::seed_from_u64(0)), backend }
    }

    /// Analysis applies the variant's rules only: no move cap.
    fn adjudicator() -> Adjudicator {
        Adjudicator { cap_ply: u32::MAX, cap_result: CapResult::Draw }
    }

    pub fn position(&self) -> &Position {
        self.search.position()
    }

    pub fn search(&self) -> &Search {
        &self.search
    }

    /// Replaces the position (the tree is dropped).
    pub fn set_position(&mut self, pos: Position) {
        let adjudicator = Analyzer::adjudicator();
        self.search.set_position(pos, adjudicator);
    }

    /// Plays a move, keeping its subtree.
    pub fn play(&mut self, mv: Move) {
        self.search.play(mv, true);
    }

    /// Searches until the node limit, the time limit or `stop`.
    pub fn go(&mut self, limits: &Limits, stop: &AtomicBool) -> Analysis {
        let started = Instant::now();
        let (_, outcome) = self.search.root_status();
        let reused = self.search.tree().root().n.saturating_sub(1);
        if outcome.is_none() {
            self.search.begin(SearchOptions::exact(limits.nodes));
            while !self.search.is_done() {
                if stop.load(Ordering::Relaxed) || limits.time.is_some_and(|t| started.elapsed() >= t) {
                    break;
                }
                self.search.step(self.backend);
            }
        }
        self.report(outcome, reused, started.elapsed())
    }

    fn report(&self, outcome: Option<Outcome>, reused: u32, elapsed: Duration) -> Analysis {
        let s = &self.search;
        let pos = s.position();
        let text = |m: &Move| pos.move_to_string(m);
        let (value, draw) = match outcome {
            Some(o) => {
                let v = match o.winner() {
                    Some(w) if w == pos.side_to_move() => 1.0,
                    Some(_) => -1.0,
                    None => 0.0,
                };
                (v, if o.winner().is_none() { 1.0 } else { 0.0 })
            }
            None => s.root_value(),
        };
        let win = ((1.0 + value - draw) / 2.0).clamp(0.0, 1.0);
        let loss = ((1.0 - value - draw) / 2.0).clamp(0.0, 1.0);
        let mut moves: Vec<MoveLine> = s
            .root_moves()
            .into_iter()
            .map(|r| MoveLine { mv: text(&r.mv), visits: r.visits, prior: r.prior, q: r.q, policy: r.policy })
            .collect();
        moves.sort_by(|a, b| {
            b.visits.cmp(&a.visits).then(b.policy.total_cmp(&a.policy)).then(b.prior.total_cmp(&a.prior))
        });
        // Pass the best move first so that the PV starts with it (Gumbel may differ from the
        // most visited move).
        let best = s.best_move();
        let mut pv: Vec<String> = Vec::new();
        if let Some(b) = best {
            pv.push(text(&b));
            let mut p = pos.clone();
            let tail = s.principal_variation();
            if tail.first() == Some(&b) {
                p.make(b);
                for m in &tail[1..] {
                    pv.push(p.move_to_string(m));
                    p.make(*m);
                }
            }
        }
        Analysis {
            fen: pos.to_fen(),
            side_to_move: pos.side_to_move(),
            outcome,
            nodes: s.simulations(),
            reused,
            evaluations: s.evaluations(),
            elapsed,
            value,
            wdl: [win, draw.clamp(0.0, 1.0), loss],
            best: best.map(|m| text(&m)),
            pv,
            moves,
        }
    }
}

impl Analysis {
    /// The report `fairyzero analyse` prints; the first `top` moves are listed.
    pub fn to_text(&self, top: usize) -> String {
        let mut s = String::new();
        s.push_str(&format!("position: {}\n", self.fen));
        s.push_str(&format!("side to move: {}\n", self.side_to_move.name()));
        if let Some(o) = &self.outcome {
            let result = match o.winner() {
                Some(c) => format!("{} wins", c.name()),
                None => "draw".into(),
            };
            s.push_str(&format!("game over: {result} ({})\n", o.reason().as_str()));
            return s;
        }
        let secs = self.elapsed.as_secs_f64();
        s.push_str(&format!(
            "nodes: {} (+{} reused), net evaluations: {}, time: {:.2} s, {:.0} nodes/s\n",
            self.nodes,
            self.reused,
            self.evaluations,
            secs,
            self.nodes as f64 / secs.max(1e-9)
        ));
        s.push_str(&format!(
            "value: {:+.3}  win {:.1}%  draw {:.1}%  loss {:.1}%\n",
            self.value,
            100.0 * self.wdl[0],
            100.0 * self.wdl[1],
            100.0 * self.wdl[2]
        ));
        s.push_str(&format!("bestmove: {}\n", self.best.as_deref().unwrap_or("(none)")));
        s.push_str(&format!("pv: {}\n", self.pv.join(" ")));
        let width = self.moves.iter().take(top).map(|m| m.mv.len()).max().unwrap_or(4).max(4);
        s.push_str(&format!("{:<width$}  {:>7}  {:>6}  {:>7}  {:>6}\n", "move", "visits", "prior", "q", "policy"));
        for m in self.moves.iter().take(top) {
            let q = m.q.map_or("-".to_string(), |q| format!("{q:+.3}"));
            s.push_str(&format!("{:<width$}  {:>7}  {:>6.3}  {:>7}  {:>6.3}\n", m.mv, m.visits, m.prior, q, m.policy));
        }
        s
    }
}
