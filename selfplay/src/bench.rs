//! The reference point for self-play throughput: how fast the evaluator is on its own, called
//! back to back from one thread with batches of a fixed size (no search); and
//! [`bench_selfplay`], self-play on an inference service measured after a warm-up
//! (`fairyzero bench selfplay`, docs/plans/batching.md §6).

use std::{
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc, Mutex,
    },
    time::{Duration, Instant},
};

use fairyzero_model::{
    backend::{Backend, EvalOutput, EvalRequest},
    encoding::{EncodedBatch, Encoding, StandardEncoding},
    service::{Executor, InferenceService, ServiceStats},
};
use fairyzero_rules::{MoveList, Position, Variant};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::{
    limits,
    runner::{run_selfplay_with, Evaluator, RunOptions, SelfPlayError},
    SelfPlayConfig,
};

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

/// What [`bench_selfplay`] measured, after its warm-up.
#[derive(Clone, Debug)]
pub struct SelfPlayBench {
    /// The service's counters over the measured interval.
    pub service: ServiceStats,
    /// Leaves evaluated per second (the service's positions).
    pub evaluations_per_sec: f64,
    /// Plies of finished games per second (games finished during the interval).
    pub positions_per_sec: f64,
    /// Search simulations per second (of games finished during the interval).
    pub simulations_per_sec: f64,
    /// The executor alone on batches of the measured mean batch, back to back from one thread
    /// (positions/s), when asked for.
    pub raw_per_sec: Option<f64>,
}

impl SelfPlayBench {
    /// Self-play's evaluations/s over the raw executor's at the same batch.
    pub fn ratio(&self) -> Option<f64> {
        self.raw_per_sec.map(|raw| self.evaluations_per_sec / raw.max(1e-9))
    }
}

/// Self-play on an [`InferenceService`] over `make_executor()` for `warmup + measure`, with
/// the service's and the games' counters taken over the last `measure` only; with `raw`, then
/// a second executor alone at the measured mean batch for `measure` (what `bench net` times).
/// Games are never written; the run is stopped, dropping the games in progress.
pub fn bench_selfplay(
    variant: &Arc<Variant>,
    config: &SelfPlayConfig,
    make_executor: &dyn Fn() -> Box<dyn Executor>,
    seed: u64,
    warmup: Duration,
    measure: Duration,
    raw: bool,
) -> Result<SelfPlayBench, SelfPlayError> {
    let encoding: Arc<dyn Encoding> = Arc::new(StandardEncoding::new(Arc::clone(variant)));
    let service = InferenceService::start(make_executor(), Arc::clone(&encoding), config.batching.service_config());
    let options = RunOptions { games: limits::MAX_GAMES, seed, net: "bench".into(), out_dir: None, progress: false };
    let stop = AtomicBool::new(false);
    // Games finished during the measured interval: plies and simulations.
    let measuring = AtomicBool::new(false);
    let counted = Mutex::new((0u64, 0u64));
    let (before, after, result) = std::thread::scope(|scope| {
        let run = scope.spawn(|| {
            run_selfplay_with(variant, config, Evaluator::Service(&service), &options, &[&stop], |g| {
                if measuring.load(Ordering::Relaxed) {
                    let mut c = counted.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                    c.0 += g.moves.len() as u64;
                    c.1 += g.moves.iter().map(|m| u64::from(m.simulations)).sum::<u64>();
                }
            })
        });
        let started = Instant::now();
        // Sleep in short steps, so that a run that fails early ends the benchmark.
        let sleep_until = |t: Duration| {
            while started.elapsed() < t && !run.is_finished() {
                std::thread::sleep(Duration::from_millis(20).min(t.saturating_sub(started.elapsed())));
            }
        };
        sleep_until(warmup);
        let before = service.stats();
        measuring.store(true, Ordering::Relaxed);
        sleep_until(warmup + measure);
        measuring.store(false, Ordering::Relaxed);
        let after = service.stats();
        stop.store(true, Ordering::Relaxed);
        (before, after, run.join().expect("the self-play thread panicked"))
    });
    result?;
    let interval = after.since(&before);
    let secs = interval.elapsed.as_secs_f64().max(1e-9);
    let (plies, simulations) = counted.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    let raw_per_sec = raw.then(|| {
        let batch = (interval.mean_batch().round() as usize).max(1);
        raw_executor_throughput(make_executor().as_mut(), encoding.as_ref(), variant, batch, measure)
    });
    Ok(SelfPlayBench {
        evaluations_per_sec: interval.positions as f64 / secs,
        positions_per_sec: plies as f64 / secs,
        simulations_per_sec: simulations as f64 / secs,
        service: interval,
        raw_per_sec,
    })
}

/// Positions per second of `executor` alone on one encoded batch of `batch` positions, run
/// back to back for about `duration` after one warm-up run.
pub fn raw_executor_throughput(
    executor: &mut dyn Executor,
    encoding: &dyn Encoding,
    variant: &Arc<Variant>,
    batch: usize,
    duration: Duration,
) -> f64 {
    let batch = batch.min(executor.max_batch()).max(1);
    let positions = sample_positions(variant, batch, 7);
    let dims = variant.dims;
    let mut encoded = EncodedBatch::with_capacity(dims.width as usize, dims.height as usize, batch, 128);
    for (p, m) in &positions {
        encoded.push(encoding, p, m);
    }
    let mut out = EvalOutput::new();
    executor.run(&encoded, &mut out);
    let started = Instant::now();
    let mut evaluated = 0usize;
    while started.elapsed() < duration || evaluated == 0 {
        executor.run(&encoded, &mut out);
        evaluated += out.len();
    }
    evaluated as f64 / started.elapsed().as_secs_f64()
}
