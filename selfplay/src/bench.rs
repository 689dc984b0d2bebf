//! The reference point for self-play throughput: how fast the evaluator is on its own, called
//! back to back from one thread with batches of a fixed size (no search); and
//! [`bench_selfplay`], self-play on an inference service measured after a warm-up
//! (`fairyzero bench selfplay`, docs/plans/batching.md §6); and [`RawComparison`], what
//! `fairyzero selfplay --bench-raw` reports after a run.

use std::{
    fmt,
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
    runner::{run_selfplay_with, Evaluator, RunOptions, SelfPlayError, Summary},
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

/// What `selfplay --bench-raw` reports: the evaluator inside self-play against the same
/// evaluator alone, timed after the run on batches of the run's own mean batch (per forward
/// of the inference service; per call of a blocking backend), back to back from one thread.
///
/// Comparing with the raw rate at the batch self-play actually made, rather than at the batch
/// it was configured for, separates the two ways self-play can lose throughput: small batches
/// (read off the mean batch) and an idle or slowed-down device at those batches (the ratio).
#[derive(Clone, Debug, PartialEq)]
pub struct RawComparison {
    /// Positions evaluated per second of the run.
    pub evaluations_per_sec: f64,
    /// Positions per forward (per call of a blocking backend).
    pub mean_batch: f64,
    /// Share of the run during which the evaluator was running, in [0, 1].
    pub busy_share: f64,
    /// The batch the raw rate was timed at: the mean batch, rounded, at least 1.
    pub raw_batch: usize,
    /// Positions per second of the evaluator alone at `raw_batch`.
    pub raw_per_sec: f64,
}

impl RawComparison {
    /// The batch to time the evaluator alone at after `summary`'s run.
    pub fn raw_batch(summary: &Summary) -> usize {
        (summary.mean_batch().round() as usize).max(1)
    }

    /// The comparison for `summary`'s run, with `raw(batch)` the raw rate at
    /// [`RawComparison::raw_batch`]: the service's counters over the run when it ran on one,
    /// else the blocking backend's calls as the workers counted them.
    pub fn new(summary: &Summary, raw: impl FnOnce(usize) -> f64) -> RawComparison {
        let (evaluations_per_sec, busy_share) = match &summary.service {
            Some(s) => (s.positions as f64 / s.elapsed.as_secs_f64().max(1e-9), s.busy_share()),
            None => (
                summary.evaluated() as f64 / summary.elapsed.as_secs_f64().max(1e-9),
                1.0 - summary.backend_idle_fraction(),
            ),
        };
        let raw_batch = RawComparison::raw_batch(summary);
        RawComparison {
            evaluations_per_sec,
            mean_batch: summary.mean_batch(),
            busy_share,
            raw_batch,
            raw_per_sec: raw(raw_batch),
        }
    }

    /// Self-play's evaluations/s over the raw rate at the same batch.
    pub fn ratio(&self) -> f64 {
        self.evaluations_per_sec / self.raw_per_sec.max(1e-9)
    }
}

impl fmt::Display for RawComparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "evaluator inside self-play: {:.0} positions/s, mean batch {:.1}, busy {:.1}% of the run; \
             alone at batch {}: {:.0} positions/s; ratio {:.2}",
            self.evaluations_per_sec,
            self.mean_batch,
            100.0 * self.busy_share,
            self.raw_batch,
            self.raw_per_sec,
            self.ratio()
        )
    }
}

/// What [`bench_selfplay`] measured, after its warm-up.
#[derive(Clone, Debug)]
pub struct SelfPlayBench {
    /// The service's counters over the measured interval.
    pub service: ServiceStats,
    /// Leaves evaluated per second (the service's positions).
    pub evaluations_per_sec: f64,
    /// Plies per second of the games that finished during the interval (their plies before it
    /// included, so this needs an interval of many game lengths); `None` when no game finished
    /// in it (long games: read evaluations/s).
    pub positions_per_sec: Option<f64>,
    /// Search simulations per second, counted the same way.
    pub simulations_per_sec: Option<f64>,
    /// Share of the search threads' time spent waiting for evaluations, over the whole run
    /// (warm-up included: the workers keep one clock).
    pub search_wait: f64,
    /// The executor alone on batches of the measured mean batch, back to back from one thread
    /// (positions/s), once [`SelfPlayBench::measure_raw`] ran.
    pub raw_per_sec: Option<f64>,
}

impl SelfPlayBench {
    /// The batch the executor alone is timed at: the measured mean batch, rounded, at least 1.
    pub fn raw_batch(&self) -> usize {
        (self.service.mean_batch().round() as usize).max(1)
    }

    /// Times `executor` alone at [`SelfPlayBench::raw_batch`] for about `duration` (what
    /// `bench net` times), for [`SelfPlayBench::ratio`].
    pub fn measure_raw(&mut self, executor: &mut dyn Executor, variant: &Arc<Variant>, duration: Duration) {
        let encoding = StandardEncoding::new(Arc::clone(variant));
        self.raw_per_sec = Some(raw_executor_throughput(executor, &encoding, variant, self.raw_batch(), duration));
    }

    /// Self-play's evaluations/s over the raw executor's at the same batch.
    pub fn ratio(&self) -> Option<f64> {
        self.raw_per_sec.map(|raw| self.evaluations_per_sec / raw.max(1e-9))
    }
}

/// Self-play on an [`InferenceService`] over `executor` for `warmup + measure`, with the
/// service's and the games' counters taken over the last `measure` only. Games are never
/// written; the run is stopped, dropping the games in progress. The executor alone is timed
/// afterwards by [`SelfPlayBench::measure_raw`] on a second executor, built by the caller once
/// the service (and its executor) is gone, so that the two never share the device.
pub fn bench_selfplay(
    variant: &Arc<Variant>,
    config: &SelfPlayConfig,
    executor: Box<dyn Executor>,
    seed: u64,
    warmup: Duration,
    measure: Duration,
) -> Result<SelfPlayBench, SelfPlayError> {
    let encoding: Arc<dyn Encoding> = Arc::new(StandardEncoding::new(Arc::clone(variant)));
    // The service batches what the executor was built for (on CUDA, the accelerator's cap).
    let mut service = config.service_config();
    service.max_batch = executor.max_batch();
    let service = InferenceService::start(executor, encoding, service);
    let options = RunOptions { games: limits::MAX_GAMES, seed, net: "bench".into(), out_dir: None, progress: false };
    let stop = AtomicBool::new(false);
    // Games finished during the measured interval: plies and simulations.
    let measuring = AtomicBool::new(false);
    let counted = Mutex::new((0u64, 0u64, 0u64));
    let (before, after, result) = std::thread::scope(|scope| {
        let run = scope.spawn(|| {
            run_selfplay_with(variant, config, Evaluator::Service(&service), &options, &[&stop], |g| {
                if measuring.load(Ordering::Relaxed) {
                    let mut c = counted.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                    c.0 += g.moves.len() as u64;
                    c.1 += g.moves.iter().map(|m| u64::from(m.simulations)).sum::<u64>();
                    c.2 += 1;
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
    drop(service);
    let summary = result?;
    let interval = after.since(&before);
    let secs = interval.elapsed.as_secs_f64().max(1e-9);
    let (plies, simulations, games) = counted.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    Ok(SelfPlayBench {
        evaluations_per_sec: interval.positions as f64 / secs,
        positions_per_sec: (games > 0).then(|| plies as f64 / secs),
        simulations_per_sec: (games > 0).then(|| simulations as f64 / secs),
        search_wait: summary.search_wait_fraction(),
        service: interval,
        raw_per_sec: None,
    })
}

/// Distinct batches the raw references rotate through, so that a batch is not read from warm
/// caches as the same batch run back to back would be (self-play never repeats a batch).
const RAW_POOL_POSITIONS: usize = 512;

/// Positions per second of `executor` alone on encoded batches of `batch` positions, drawn in
/// turn from a pool of at least [`RAW_POOL_POSITIONS`] positions of random play (what `bench
/// net` times: encoding is not included, since self-play encodes in the search threads), run
/// back to back for about `duration` after one warm-up run.
pub fn raw_executor_throughput(
    executor: &mut dyn Executor,
    encoding: &dyn Encoding,
    variant: &Arc<Variant>,
    batch: usize,
    duration: Duration,
) -> f64 {
    let batch = batch.min(executor.max_batch()).max(1);
    let pool = sample_positions(variant, RAW_POOL_POSITIONS.div_ceil(batch).max(2) * batch, 7);
    let dims = variant.dims;
    let batches: Vec<EncodedBatch> = pool
        .chunks(batch)
        .map(|chunk| {
            let mut encoded = EncodedBatch::with_capacity(dims.width as usize, dims.height as usize, batch, 128);
            for (p, m) in chunk {
                encoded.push(encoding, p, m);
            }
            encoded
        })
        .collect();
    let mut out = EvalOutput::new();
    executor.run(&batches[0], &mut out);
    let started = Instant::now();
    let mut evaluated = 0usize;
    for encoded in batches.iter().cycle() {
        if started.elapsed() >= duration && evaluated > 0 {
            break;
        }
        executor.run(encoded, &mut out);
        evaluated += out.len();
    }
    evaluated as f64 / started.elapsed().as_secs_f64()
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use fairyzero_model::{backend::MockBackend, service::UniformExecutor};

    use super::*;
    use crate::runner::WorkerStats;

    /// The report reads the service's counters: 250 positions in 4 forwards over 2 s, the
    /// executor busy for 1 s; the raw rate is asked for at the rounded mean batch.
    #[test]
    fn the_raw_comparison_of_a_service_run_uses_its_mean_batch_per_forward() {
        let service = ServiceStats {
            forwards: 4,
            positions: 250,
            busy: Duration::from_secs(1),
            elapsed: Duration::from_secs(2),
            ..ServiceStats::default()
        };
        // The workers' own counts (per submission) must not be what the batch is read from.
        let workers = vec![WorkerStats { batches: 50, evaluated: 250, ..WorkerStats::default() }];
        let summary =
            Summary { elapsed: Duration::from_secs(2), service: Some(service), workers, ..Summary::default() };
        let mut asked = None;
        let report = RawComparison::new(&summary, |batch| {
            asked = Some(batch);
            250.0
        });
        assert_eq!(asked, Some(63), "62.5 positions per forward, rounded");
        assert_eq!(report.raw_batch, 63);
        assert_eq!(report.mean_batch, 62.5);
        assert_eq!(report.evaluations_per_sec, 125.0);
        assert_eq!(report.busy_share, 0.5);
        assert_eq!(report.ratio(), 0.5);
        let text = report.to_string();
        assert!(
            text.contains("mean batch 62.5") && text.contains("at batch 63") && text.contains("ratio 0.50"),
            "{text}"
        );
    }

    /// Without a service (the uniform mock), the batch is the mean per backend call.
    #[test]
    fn the_raw_comparison_of_a_blocking_run_uses_its_mean_batch_per_call() {
        let workers = vec![
            WorkerStats { batches: 10, evaluated: 100, ..WorkerStats::default() },
            WorkerStats { batches: 10, evaluated: 300, ..WorkerStats::default() },
        ];
        let summary = Summary {
            elapsed: Duration::from_secs(4),
            backend_busy: Duration::from_secs(1),
            workers,
            ..Summary::default()
        };
        let report = RawComparison::new(&summary, |batch| 10.0 * batch as f64);
        assert_eq!((report.raw_batch, report.raw_per_sec), (20, 200.0));
        assert_eq!(report.evaluations_per_sec, 100.0);
        assert_eq!(report.busy_share, 0.25);
        assert_eq!(report.ratio(), 0.5);
    }

    /// End to end on a real run: the batch timed alone is the service's positions per forward
    /// over the run.
    #[test]
    fn a_service_run_is_compared_at_the_batch_it_made() {
        let variant = Variant::load("gardner").unwrap();
        let config = SelfPlayConfig {
            simulations: 4,
            games_in_parallel: 6,
            threads: 2,
            move_cap: Some(30),
            ..SelfPlayConfig::default()
        };
        let encoding: Arc<dyn Encoding> = Arc::new(StandardEncoding::new(Arc::clone(&variant)));
        let service =
            InferenceService::start(Box::new(UniformExecutor::new(64)), encoding, config.batching.service_config());
        let options = RunOptions { games: 8, seed: 3, net: "mock".into(), out_dir: None, progress: false };
        let summary = run_selfplay_with(
            &variant,
            &config,
            Evaluator::Service(&service),
            &options,
            &[&AtomicBool::new(false)],
            |_| {},
        )
        .unwrap();
        let stats = summary.service.expect("a service run");
        assert!(stats.forwards > 0);
        let report = RawComparison::new(&summary, |batch| {
            raw_throughput(&MockBackend::uniform(), &variant, batch, Duration::from_millis(20))
        });
        assert_eq!(report.raw_batch, ((stats.positions as f64 / stats.forwards as f64).round() as usize).max(1));
        assert!(report.raw_per_sec > 0.0 && report.evaluations_per_sec > 0.0, "{report}");
    }

    /// `bench_selfplay` measures after its warm-up, and the executor alone is timed at the
    /// measured mean batch.
    #[test]
    fn bench_selfplay_times_the_executor_alone_at_the_measured_batch() {
        let variant = Variant::load("gardner").unwrap();
        let config = SelfPlayConfig { simulations: 4, games_in_parallel: 8, threads: 2, ..SelfPlayConfig::default() };
        let mut b = bench_selfplay(
            &variant,
            &config,
            Box::new(UniformExecutor::new(64)),
            1,
            Duration::from_millis(50),
            Duration::from_millis(150),
        )
        .unwrap();
        assert!(b.service.forwards > 0 && b.evaluations_per_sec > 0.0);
        assert!((0.0..=1.0).contains(&b.search_wait));
        assert_eq!(b.ratio(), None);
        assert_eq!(b.raw_batch(), (b.service.mean_batch().round() as usize).max(1));
        b.measure_raw(&mut UniformExecutor::new(64), &variant, Duration::from_millis(20));
        assert!(b.ratio().unwrap() > 0.0);
    }
}
