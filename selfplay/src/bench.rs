//! The reference point for self-play throughput: how fast the evaluator is on its own, called
//! back to back from one thread with batches of a fixed size (no search).

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use fairyzero_model::backend::{Backend, EvalOutput, EvalRequest};
use fairyzero_rules::{MoveList, Position, Variant};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// `n` positions reached by random play from the start (0 to 60 plies), with their legal moves.
pub fn sample_positions(variant: &Arc<Variant>, n: usize, seed: u64) -> Vec<(Position, MoveList)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut pos = Position::start(Arc::clone(variant));
        let mut legal = MoveList::new();
        for _ in 0..rng.gen_range(0..60) {
            pos.legal_moves(&mut legal);
            if legal.is_empty() || pos.outcome_with(&legal).is_some() {
                break;
            }
            pos.make(legal[rng.gen_range(0..legal.len())]);
        }
        pos.legal_moves(&mut legal);
        if !legal.is_empty() && pos.outcome_with(&legal).is_none() {
            out.push((pos, legal));
        }
    }
    out
}

/// Positions per second of `backend` on batches of `batch` positions, measured for about
/// `duration` after one warm-up call.
pub fn raw_throughput(backend: &dyn Backend, variant: &Arc<Variant>, batch: usize, duration: Duration) -> f64 {
    let positions = sample_positions(variant, batch.max(1), 7);
    let requests: Vec<EvalRequest<'_>> = positions.iter().map(|(p, m)| EvalRequest { position: p, moves: m }).collect();
    let mut out = EvalOutput::new();
    backend.evaluate(&requests, &mut out);
    let started = Instant::now();
    let mut evaluated = 0usize;
    while started.elapsed() < duration || evaluated == 0 {
        backend.evaluate(&requests, &mut out);
        evaluated += out.len();
    }
    evaluated as f64 / started.elapsed().as_secs_f64()
}
