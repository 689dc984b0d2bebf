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

/// A network's opinion of one position, read from an [`EvalOutput`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EvalView<'a> {
    /// Prior probability of each legal move, in the request's order; sums to 1 (empty when
    /// there are no moves).
    pub policy: &'a [f32],
    /// Probabilities of win, draw and loss for the side to move.
    pub wdl: [f32; 3],
}

impl EvalView<'_> {
    /// Expected score for the side to move in [-1, 1].
    pub fn value(&self) -> f32 {
        self.wdl[0] - self.wdl[2]
    }

    pub fn to_evaluation(&self) -> Evaluation {
        Evaluation { policy: self.policy.to_vec(), wdl: self.wdl }
    }
}

/// A network's opinion of one position, owned (cache entries, tests).
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    pub policy: Vec<f32>,
    pub wdl: [f32; 3],
}

impl Evaluation {
    /// Expected score for the side to move in [-1, 1].
    pub fn value(&self) -> f32 {
        self.wdl[0] - self.wdl[2]
    }
}

/// The answers to one batch in buffers that the caller owns and passes again with the next
/// batch (lc0's `NetworkComputation` outputs, KataGo's `NNResultBuf`s): every policy in one
/// flat vector, so that a search evaluating leaf after leaf allocates nothing once the buffers
/// have grown to its batch size.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EvalOutput {
    policy: Vec<f32>,
    /// Where each evaluation's policy ends in `policy` (the next one starts there).
    ends: Vec<usize>,
    wdl: Vec<[f32; 3]>,
}

impl EvalOutput {
    pub fn new() -> EvalOutput {
        EvalOutput::default()
    }

    /// Forgets the evaluations, keeping the memory.
    pub fn clear(&mut self) {
        self.policy.clear();
        self.ends.clear();
        self.wdl.clear();
    }

    pub fn len(&self) -> usize {
        self.wdl.len()
    }

    pub fn is_empty(&self) -> bool {
        self.wdl.is_empty()
    }

    /// Evaluation `i`, in request order.
    pub fn get(&self, i: usize) -> EvalView<'_> {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        EvalView { policy: &self.policy[start..self.ends[i]], wdl: self.wdl[i] }
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = EvalView<'_>> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// Appends an evaluation.
    pub fn push(&mut self, policy: &[f32], wdl: [f32; 3]) {
        self.policy.extend_from_slice(policy);
        self.ends.push(self.policy.len());
        self.wdl.push(wdl);
    }

    /// Appends an evaluation whose policy of `moves` entries `fill` writes in place (they start
    /// at 0).
    pub fn push_with(&mut self, moves: usize, wdl: [f32; 3], fill: impl FnOnce(&mut [f32])) {
        let start = self.policy.len();
        self.policy.resize(start + moves, 0.0);
        fill(&mut self.policy[start..]);
        self.ends.push(self.policy.len());
        self.wdl.push(wdl);
    }

    /// Appends every evaluation of `other`.
    pub fn extend_from(&mut self, other: &EvalOutput) {
        let base = self.policy.len();
        self.policy.extend_from_slice(&other.policy);
        self.ends.extend(other.ends.iter().map(|&end| base + end));
        self.wdl.extend_from_slice(&other.wdl);
    }

    /// Owned copies of the evaluations (tests, caches).
    pub fn to_vec(&self) -> Vec<Evaluation> {
        self.iter().map(|e| e.to_evaluation()).collect()
    }
}

/// What a backend is, for logs and batching decisions.
#[derive(Clone, Debug)]
pub struct BackendInfo {
    pub name: String,
    /// The batch size at which it is efficient; callers should gather about this many requests.
    pub preferred_batch: usize,
}

/// A thread-safe batch evaluation of positions. Several search threads may call [`Backend::evaluate`] at
/// once; an implementation that owns a network serves them from one inference thread, so while
/// one thread waits for its batch the others keep searching.
pub trait Backend: Send + Sync {
    /// Evaluates a batch, blocking until done: `out` is cleared, then holds one evaluation per
    /// request, in order. The caller keeps `out` for its next batch, so that its buffers are
    /// reused.
    fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut EvalOutput);

    fn info(&self) -> BackendInfo;

    /// The batching service behind this backend, when it is one: a caller that can keep
    /// several submissions in flight (self-play) submits to it directly instead of blocking.
    fn as_service(&self) -> Option<&crate::service::InferenceService> {
        None
    }
}

/// An empty request buffer with `buffer`'s memory, free to borrow other positions: each batch
/// borrows different searches, and this lets them all be gathered into one allocation.
pub fn recycle_requests<'b>(mut buffer: Vec<EvalRequest<'_>>) -> Vec<EvalRequest<'b>> {
    buffer.clear();
    // The standard library collects a `vec::IntoIter` mapped to an item of the same size and
    // alignment in place, so the allocation is kept (a test below and the allocation test in
    // selfplay check it). The buffer is empty, so no item is ever mapped: `filter_map` to `None`
    // is how a closure yields the other lifetime's type without building a value.
    #[allow(clippy::unnecessary_filter_map)]
    buffer.into_iter().filter_map(|_| None).collect()
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

    fn wdl(&self, req: &EvalRequest<'_>) -> [f32; 3] {
        match self.value {
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
        }
    }
}

impl Backend for MockBackend {
    fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut EvalOutput) {
        out.clear();
        for r in batch {
            let n = r.moves.len();
            out.push_with(n, self.wdl(r), |policy| policy.fill(1.0 / n.max(1) as f32));
        }
    }

    fn info(&self) -> BackendInfo {
        BackendInfo { name: format!("mock({:?})", self.value), preferred_batch: 1 }
    }
}

/// Memoises another backend by position key: `Position::search_key` (board, side, rights and
/// the pass restriction), plus the number of legal moves as a cheap guard against
/// history-dependent move sets, plus the repetition count the network sees (0, 1, 2 or more
/// earlier occurrences).
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
        (req.position.search_key() ^ side, req.moves.len(), req.position.repetitions().min(2))
    }
}

impl<E: Backend> Backend for CachedBackend<E> {
    fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut EvalOutput) {
        // Copied out under the lock: another thread may clear the table before this one is done.
        let cached: Vec<Option<Evaluation>> = {
            let table = self.table.lock().expect("cache lock");
            batch.iter().map(|r| table.get(&Self::key(r)).cloned()).collect()
        };
        let missing: Vec<EvalRequest<'_>> =
            batch.iter().zip(&cached).filter(|(_, c)| c.is_none()).map(|(r, _)| *r).collect();
        self.hits.fetch_add((batch.len() - missing.len()) as u64, Ordering::Relaxed);
        self.misses.fetch_add(missing.len() as u64, Ordering::Relaxed);
        let mut fresh = EvalOutput::new();
        if !missing.is_empty() {
            self.inner.evaluate(&missing, &mut fresh);
        }
        out.clear();
        let mut table = self.table.lock().expect("cache lock");
        if table.len() + fresh.len() > self.capacity {
            // Simple and bounded: start over rather than track recency.
            table.clear();
        }
        let mut fresh = fresh.iter();
        for (req, cached) in batch.iter().zip(&cached) {
            match cached {
                Some(e) => out.push(&e.policy, e.wdl),
                None => {
                    let e = fresh.next().expect("the inner backend answers every request");
                    table.insert(Self::key(req), e.to_evaluation());
                    out.push(e.policy, e.wdl);
                }
            }
        }
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
        let mut out = EvalOutput::new();
        MockBackend::material().evaluate(&[EvalRequest { position: &pos, moves: &moves }], &mut out);
        assert_eq!(out.get(0).policy.len(), moves.len());
        assert!((out.get(0).policy.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        assert!(out.get(0).value() > 0.5, "two queens up: {:?}", out.get(0).wdl);
        let (them, their_moves) = requests(&Position::from_fen(v, "4k3/8/8/8/8/8/8/QQ2K3 b - - 0 1").unwrap());
        // The same buffers again: the earlier batch is gone.
        MockBackend::material().evaluate(
            &[EvalRequest { position: &them, moves: &their_moves }, EvalRequest { position: &pos, moves: &moves }],
            &mut out,
        );
        assert_eq!(out.len(), 2);
        assert!(out.get(0).value() < -0.5);
        assert_eq!(out.get(0).policy.len(), their_moves.len());
        assert_eq!(out.get(1).policy.len(), moves.len());
        MockBackend::uniform().evaluate(&[], &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn an_output_appends_another_and_reads_back_what_was_pushed() {
        let mut a = EvalOutput::new();
        a.push(&[0.25, 0.75], [1.0, 0.0, 0.0]);
        let mut b = EvalOutput::new();
        b.push(&[], [0.0, 1.0, 0.0]);
        b.push_with(3, [0.0, 0.0, 1.0], |p| p.copy_from_slice(&[0.5, 0.25, 0.25]));
        a.extend_from(&b);
        let all = a.to_vec();
        assert_eq!(all.len(), 3);
        assert_eq!(all[0].policy, vec![0.25, 0.75]);
        assert!(all[1].policy.is_empty());
        assert_eq!(all[2].policy, vec![0.5, 0.25, 0.25]);
        assert_eq!(all[2].value(), -1.0);
        assert_eq!(a.iter().map(|e| e.wdl[1]).collect::<Vec<_>>(), vec![0.0, 1.0, 0.0]);
    }

    #[test]
    fn recycled_request_buffers_keep_their_memory() {
        let v = Variant::load("scirocco").unwrap();
        let (pos, moves) = requests(&Position::start(v));
        let mut buffer: Vec<EvalRequest<'_>> = Vec::with_capacity(8);
        buffer.push(EvalRequest { position: &pos, moves: &moves });
        let capacity = buffer.capacity();
        let address = buffer.as_ptr() as usize;
        let recycled: Vec<EvalRequest<'_>> = recycle_requests(buffer);
        assert!(recycled.is_empty());
        assert_eq!((recycled.capacity(), recycled.as_ptr() as usize), (capacity, address));
    }

    #[test]
    fn the_cache_answers_repeated_positions() {
        let v = Variant::load("scirocco").unwrap();
        let (pos, moves) = requests(&Position::start(v));
        let cached = CachedBackend::new(MockBackend::material(), 10);
        let req = [EvalRequest { position: &pos, moves: &moves }];
        let mut first = EvalOutput::new();
        cached.evaluate(&req, &mut first);
        let mut second = EvalOutput::new();
        cached.evaluate(&[req[0], req[0]], &mut second);
        assert_eq!(second.to_vec(), vec![first.to_vec()[0].clone(), first.to_vec()[0].clone()]);
        assert_eq!(cached.stats(), (2, 1));
        assert!(cached.info().name.starts_with("cached(mock"));
    }
}
