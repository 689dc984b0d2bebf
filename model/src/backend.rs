//! The inference contract between search and network (lc0's `Backend`, KataGo's `nneval`).
//!
//! Search hands over positions with their legal moves and gets back a prior over exactly those
//! moves plus win/draw/loss probabilities. This module has no libtorch dependency, so that the
//! `selfplay` crate and its tests can use it (with [`MockBackend`]) without linking torch.

use std::{
    collections::HashMap,
    sync::{
        atomic::{AtomicU64, Ordering},
        Mutex,
    },
};

use fairyzero_rules::{Color, Move, Position};

/// One position to evaluate.
#[derive(Clone, Copy)]
pub struct EvalRequest<'a> {
    pub position: &'a Position,
    /// The legal moves of `position`; the policy comes back in this order.
    pub moves: &'a [Move],
}

/// A network's opinion of one position.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// Prior probability of each legal move, in the request's order; sums to 1 (empty when
    /// there are no moves).
    pub policy: Vec<f32>,
    /// Probabilities of win, draw and loss for the side to move.
    pub wdl: [f32; 3],
}

impl Evaluation {
    /// Expected score for the side to move in [-1, 1].
    pub fn value(&self) -> f32 {
        self.wdl[0] - self.wdl[2]
    }
}

/// What an evaluator is, for logs and batching decisions.
#[derive(Clone, Debug)]
pub struct BackendInfo {
    pub name: String,
    /// The batch size at which it is efficient; callers should gather about this many requests.
    pub preferred_batch: usize,
}

/// A thread-safe batch evaluator. Several search threads may call [`Backend::evaluate`] at
/// once; an implementation that owns a network serves them from one inference thread, so while
/// one thread waits for its batch the others keep searching.
pub trait Backend: Send + Sync {
    /// Evaluates a batch, blocking until done. Returns one evaluation per request, in order.
    fn evaluate(&self, batch: &[EvalRequest<'_>]) -> Vec<Evaluation>;

    fn info(&self) -> BackendInfo;
}

/// How the mock values a position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MockValue {
    /// The same win/draw/loss for every position.
    Fixed([f32; 3]),
    /// A squashed material balance from the variant's nominal piece values (1 where none is
    /// given), seen from the side to move: a weak but informative signal for search tests.
    Material,
}

/// Uniform policy and a fixed or material value: lets search and self-play be tested without
/// libtorch or a trained net.
#[derive(Clone, Debug)]
pub struct MockBackend {
    pub value: MockValue,
}

impl MockBackend {
    pub fn uniform() -> MockBackend {
        MockBackend { value: MockValue::Fixed([0.0, 1.0, 0.0]) }
    }

    pub fn material() -> MockBackend {
        MockBackend { value: MockValue::Material }
    }

    fn evaluate_one(&self, req: &EvalRequest<'_>) -> Evaluation {
        let n = req.moves.len();
        let policy = vec![1.0 / n.max(1) as f32; n];
        let wdl = match self.value {
            MockValue::Fixed(wdl) => wdl,
            MockValue::Material => {
                let pos = req.position;
                let v = pos.variant();
                let us = pos.side_to_move();
                let mut balance = 0.0f32;
                for piece in pos.board().iter().flatten() {
                    let def = v.piece_def(piece.kind());
                    let value = if def.royal { 0.0 } else { def.value.unwrap_or(1.0) };
                    balance += if piece.color() == us { value } else { -value };
                }
                let score = (balance / 4.0).tanh();
                let win = (0.5 + 0.5 * score) * 0.9;
                let loss = (0.5 - 0.5 * score) * 0.9;
                [win, 1.0 - win - loss, loss]
            }
        };
        Evaluation { policy, wdl }
    }
}

impl Backend for MockBackend {
    fn evaluate(&self, batch: &[EvalRequest<'_>]) -> Vec<Evaluation> {
        batch.iter().map(|r| self.evaluate_one(r)).collect()
    }

    fn info(&self) -> BackendInfo {
        BackendInfo { name: format!("mock({:?})", self.value), preferred_batch: 1 }
    }
}

/// Memoises another evaluator by position key: Zobrist hash of board, side and rights, plus the
/// number of legal moves as a cheap guard against history-dependent move sets, plus the
/// repetition count the network sees (0, 1, 2 or more earlier occurrences).
pub struct CachedBackend<E> {
    inner: E,
    capacity: usize,
    table: Mutex<HashMap<(u64, usize, usize), Evaluation>>,
    hits: AtomicU64,
    misses: AtomicU64,
}

impl<E: Backend> CachedBackend<E> {
    pub fn new(inner: E, capacity: usize) -> CachedBackend<E> {
        CachedBackend {
            inner,
            capacity,
            table: Mutex::new(HashMap::new()),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// `(hits, misses)` so far.
    pub fn stats(&self) -> (u64, u64) {
        (self.hits.load(Ordering::Relaxed), self.misses.load(Ordering::Relaxed))
    }

    pub fn inner(&self) -> &E {
        &self.inner
    }

    fn key(req: &EvalRequest<'_>) -> (u64, usize, usize) {
        let side = if req.position.side_to_move() == Color::Blue { 0 } else { 1 };
        (req.position.hash() ^ side, req.moves.len(), req.position.repetitions().min(2))
    }
}

impl<E: Backend> Backend for CachedBackend<E> {
    fn evaluate(&self, batch: &[EvalRequest<'_>]) -> Vec<Evaluation> {
        let mut out: Vec<Option<Evaluation>> = {
            let table = self.table.lock().expect("cache lock");
            batch.iter().map(|r| table.get(&Self::key(r)).cloned()).collect()
        };
        let missing: Vec<usize> = (0..batch.len()).filter(|&i| out[i].is_none()).collect();
        self.hits.fetch_add((batch.len() - missing.len()) as u64, Ordering::Relaxed);
        self.misses.fetch_add(missing.len() as u64, Ordering::Relaxed);
        if !missing.is_empty() {
            let requests: Vec<EvalRequest<'_>> = missing.iter().map(|&i| batch[i]).collect();
            let fresh = self.inner.evaluate(&requests);
            let mut table = self.table.lock().expect("cache lock");
            if table.len() + fresh.len() > self.capacity {
                // Simple and bounded: start over rather than track recency.
                table.clear();
            }
            for (&i, e) in missing.iter().zip(fresh) {
                table.insert(Self::key(&batch[i]), e.clone());
                out[i] = Some(e);
            }
        }
        out.into_iter().map(|e| e.expect("every request evaluated")).collect()
    }

    fn info(&self) -> BackendInfo {
        let inner = self.inner.info();
        BackendInfo { name: format!("cached({})", inner.name), ..inner }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use fairyzero_rules::{MoveList, Variant};

    use super::*;

    fn requests(pos: &Position) -> (Position, MoveList) {
        let mut p = pos.clone();
        let mut moves = MoveList::new();
        p.legal_moves(&mut moves);
        (p, moves)
    }

    #[test]
    fn mock_policy_is_uniform_and_material_is_seen_from_the_side_to_move() {
        let v = Variant::load("chess").unwrap();
        let (pos, moves) = requests(&Position::from_fen(Arc::clone(&v), "4k3/8/8/8/8/8/8/QQ2K3 w - - 0 1").unwrap());
        let e = MockBackend::material().evaluate(&[EvalRequest { position: &pos, moves: &moves }]);
        assert!((e[0].policy.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        assert!(e[0].value() > 0.5, "two queens up: {:?}", e[0].wdl);
        let (them, moves) = requests(&Position::from_fen(v, "4k3/8/8/8/8/8/8/QQ2K3 b - - 0 1").unwrap());
        let e = MockBackend::material().evaluate(&[EvalRequest { position: &them, moves: &moves }]);
        assert!(e[0].value() < -0.5);
        assert_eq!(MockBackend::uniform().evaluate(&[]).len(), 0);
    }

    #[test]
    fn the_cache_answers_repeated_positions() {
        let v = Variant::load("scirocco").unwrap();
        let (pos, moves) = requests(&Position::start(v));
        let cached = CachedBackend::new(MockBackend::material(), 10);
        let req = [EvalRequest { position: &pos, moves: &moves }];
        let first = cached.evaluate(&req);
        let second = cached.evaluate(&[req[0], req[0]]);
        assert_eq!(second, vec![first[0].clone(), first[0].clone()]);
        assert_eq!(cached.stats(), (2, 1));
        assert!(cached.info().name.starts_with("cached(mock"));
    }
}
