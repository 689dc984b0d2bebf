//! Many games at once (issue 18, docs/plans/batching.md §5): the games of a match run on
//! `threads` game threads, checkpoint players of all of them share one inference service whose
//! batches merge their leaves, and CPU-bound baselines compute their moves only on
//! `cpu_threads` permits. None of it may change a game.
//!
//! The tests run one at a time (`serial`): the batch-size test measures how well 32 game
//! threads keep the service fed on the CI box's 2 cores, which the other tests' threads would
//! share.

use std::{
    sync::{
        atomic::{AtomicU64, AtomicUsize, Ordering},
        Arc, Mutex, MutexGuard, PoisonError,
    },
    time::{Duration, Instant},
};

use fairyzero_evaluator::{
    run_match, Contestant, GameContext, MatchGame, MatchOptions, MatchReport, Player, PlayerSpec, SearchPlayerConfig,
};
use fairyzero_model::{
    backend::{Backend, BackendInfo, EvalOutput, EvalRequest, MockBackend},
    encoding::StandardEncoding,
    service::{Executor, InferenceService, LatencyExecutor, ServiceConfig, ServiceStats, UniformExecutor},
};
use fairyzero_rules::{Move, Position, Variant};
use rand::RngCore;

fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(PoisonError::into_inner)
}

fn baseline(spec: &str, v: &Arc<Variant>) -> Contestant {
    PlayerSpec::parse(spec).unwrap().contestant(v, None, &SearchPlayerConfig::default()).unwrap()
}

fn service(v: &Arc<Variant>, executor: Box<dyn Executor>, config: ServiceConfig) -> Arc<InferenceService> {
    Arc::new(InferenceService::start(executor, Arc::new(StandardEncoding::new(Arc::clone(v))), config))
}

/// A search player over `backend`, named like a checkpoint.
fn net(name: &str, backend: Arc<dyn Backend>, simulations: u32) -> Contestant {
    Contestant::search(name, Some(1), backend, SearchPlayerConfig { simulations, ..SearchPlayerConfig::default() })
}

/// A blocking backend that counts the positions it evaluates.
struct Counting {
    inner: MockBackend,
    positions: AtomicU64,
}

impl Backend for Counting {
    fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut EvalOutput) {
        self.positions.fetch_add(batch.len() as u64, Ordering::Relaxed);
        self.inner.evaluate(batch, out);
    }

    fn info(&self) -> BackendInfo {
        self.inner.info()
    }
}

/// The same match, once as the trainer plays it on a GPU machine (32 games at once, one
/// service batching all their leaves, the alpha-beta moves on one permit) and once one game
/// after another with a plain blocking backend giving the same answers (`UniformExecutor` is
/// `MockBackend::uniform()` behind the service): every record is identical, and the service
/// evaluated exactly the positions the sequential match did. The search player's answers come
/// from the service in whatever batch its leaf lands in, so any mix-up of answers between
/// games, or a game depending on the timing of another, changes some game.
#[test]
fn a_batched_match_plays_the_same_games_as_a_sequential_one() {
    let _serial = serial();
    let v = Variant::load("gardner").unwrap();
    let options = MatchOptions { games: 32, seed: 7, random_plies: 4, move_cap: Some(30), ..MatchOptions::default() };
    let ab = baseline("alphabeta:2", &v);

    let started = Instant::now();
    let served = service(&v, Box::new(UniformExecutor::new(64)), ServiceConfig::default());
    let batched_options = MatchOptions { threads: 32, cpu_threads: 1, ..options.clone() };
    let batched = run_match(&v, &net("net@16", served.clone(), 16), &ab, &batched_options, None).unwrap();
    let stats = served.stats();
    let batched_secs = started.elapsed().as_secs_f64();

    let counting = Arc::new(Counting { inner: MockBackend::uniform(), positions: AtomicU64::new(0) });
    let sequential_options = MatchOptions { threads: 1, cpu_threads: 1, ..options };
    let sequential = run_match(&v, &net("net@16", counting.clone(), 16), &ab, &sequential_options, None).unwrap();

    eprintln!(
        "batched: {batched_secs:.2}s, {} positions in {} forwards (mean {:.1}); {}",
        stats.positions,
        stats.forwards,
        stats.mean_batch(),
        batched.result_line()
    );
    assert_eq!(batched.games(), 32);
    assert!(batched.distinct_games > 8, "the openings should give many games: {}", batched.distinct_games);
    for (b, s) in batched.records.iter().zip(&sequential.records) {
        assert_eq!(b, s, "game {} differs between the batched and the sequential match", s.game);
    }
    assert_eq!(batched.records.len(), sequential.records.len());
    assert_eq!(stats.positions, counting.positions.load(Ordering::Relaxed), "positions evaluated");
    assert!(stats.forwards < stats.positions, "no two games' leaves ever shared a batch: {stats:?}");
}

/// 32 games at once between two search players keep the service's batches at about 32
/// positions: the mean batch is at least 0.8 x the games in progress while it ran.
///
/// How "in progress" is measured: every game thread plays one game (`games == threads`), so
/// after the k-th finished game 32 - k are left. A stats snapshot at the start and after every
/// finished game (the progress callback) cuts the match into intervals of constant games in
/// progress; the test compares the positions evaluated with the sum over intervals of
/// forwards x games in progress. The tail of the match, where the last games run alone and
/// batches are necessarily small, is thereby judged against what was left, not against 32.
///
/// The service: `max_batch` = 32 (a batch launches as soon as every game has submitted),
/// `max_wait` = 10 ms (the fallback when one is late; long enough for 32 threads to apply an
/// answer and gather the next leaf on 2 busy cores), and a `LatencyExecutor` of 4 ms per
/// batch standing in for a device.
#[test]
fn games_at_once_fill_the_service_batches() {
    let _serial = serial();
    let v = Variant::load("gardner").unwrap();
    const GAMES: usize = 32;
    let latency = LatencyExecutor { per_batch: Duration::from_millis(4), per_position: Duration::ZERO, max_batch: 64 };
    let config = ServiceConfig {
        max_batch: GAMES,
        max_wait: Duration::from_millis(10),
        in_flight: 3,
        moves_per_position: 64,
        accelerated_max_batch: None,
    };
    let served = service(&v, Box::new(latency), config);
    let a = net("net@8", served.clone(), 8);
    let b = a.clone().renamed("net@8#2");
    let options = MatchOptions {
        games: GAMES,
        threads: GAMES,
        seed: 3,
        random_plies: 4,
        move_cap: Some(16),
        record_moves: false,
        ..MatchOptions::default()
    };
    let snapshots: Mutex<Vec<(usize, ServiceStats)>> = Mutex::new(vec![(0, served.stats())]);
    let progress = |_: &MatchGame, finished: usize| {
        let stats = served.stats();
        snapshots.lock().unwrap().push((finished, stats));
    };
    let started = Instant::now();
    let report: MatchReport = run_match(&v, &a, &b, &options, Some(&progress)).unwrap();
    let secs = started.elapsed().as_secs_f64();
    assert_eq!(report.games(), GAMES);

    let mut snapshots = snapshots.into_inner().unwrap();
    // Callbacks of two games finishing together may lock in either order; the counts are
    // distinct, and stats only grow, so sorting by count also orders the snapshots.
    snapshots.sort_by_key(|(n, _)| *n);
    let (mut positions, mut expected, mut forwards) = (0u64, 0u64, 0u64);
    for pair in snapshots.windows(2) {
        let ((done, earlier), (_, later)) = (pair[0], pair[1]);
        let interval = later.since(&earlier);
        positions += interval.positions;
        forwards += interval.forwards;
        expected += interval.forwards * (GAMES - done) as u64;
    }
    let total = served.stats();
    let first = snapshots[1].1.since(&snapshots[0].1);
    eprintln!(
        "{secs:.2}s: {} positions in {} forwards (mean {:.1}); until the first game ended: mean {:.1} over {} forwards; \
         {positions} positions against {expected} for full batches of the games in progress",
        total.positions,
        total.forwards,
        total.mean_batch(),
        first.mean_batch(),
        first.forwards
    );
    assert!(forwards > 100, "too short to measure: {forwards} forwards");
    assert!(
        positions as f64 >= 0.8 * expected as f64,
        "mean batch {:.1}, below 0.8 x the games in progress (weighted mean {:.1})",
        positions as f64 / forwards as f64,
        expected as f64 / forwards as f64
    );
}

/// A player that notes how many moves of its group are being computed at once, and takes a
/// millisecond per move so that overlaps happen.
struct Watched {
    player: Box<dyn Player>,
    running: Arc<AtomicUsize>,
    most: Arc<AtomicUsize>,
}

impl Player for Watched {
    fn new_game(&mut self, start: &Position, ctx: &GameContext) {
        self.player.new_game(start, ctx);
    }

    fn choose(&mut self, pos: &mut Position, legal: &[Move], rng: &mut dyn RngCore) -> Move {
        let now = self.running.fetch_add(1, Ordering::SeqCst) + 1;
        self.most.fetch_max(now, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(1));
        let m = self.player.choose(pos, legal, rng);
        self.running.fetch_sub(1, Ordering::SeqCst);
        m
    }
}

/// Most CPU-bound moves computed at once in a match of `a` against `b`, both watched by one
/// counter, and its records.
fn watched_match(v: &Arc<Variant>, a: &Contestant, b: &Contestant, options: &MatchOptions) -> (usize, Vec<MatchGame>) {
    let (running, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let watch = |c: &Contestant| {
        let (inner, running, most) = (c.clone(), Arc::clone(&running), Arc::clone(&most));
        Contestant::new(c.name.clone(), c.deterministic, None, move || {
            Box::new(Watched { player: inner.player(), running: Arc::clone(&running), most: Arc::clone(&most) })
        })
        .cpu_bound(c.cpu_bound)
    };
    let report = run_match(v, &watch(a), &watch(b), options, None).unwrap();
    (most.load(Ordering::SeqCst), report.records)
}

/// With 8 games at once and `cpu_threads` = 2, at most 2 alpha-beta or greedy moves are
/// computed at any moment (and 2 are: the permits are not a lock); the games are those of an
/// unlimited match. Without the `cpu_bound` mark the same players overlap freely, so the
/// counter does see a violation.
#[test]
fn cpu_bound_moves_run_on_cpu_threads_permits_and_results_do_not_change() {
    let _serial = serial();
    let v = Variant::load("gardner").unwrap();
    let (ab, greedy) = (baseline("alphabeta:1", &v), baseline("greedy", &v));
    assert!(ab.cpu_bound && greedy.cpu_bound);
    let options = MatchOptions { games: 16, seed: 11, threads: 8, move_cap: Some(12), ..MatchOptions::default() };

    let (most, limited) = watched_match(&v, &ab, &greedy, &MatchOptions { cpu_threads: 2, ..options.clone() });
    assert_eq!(most, 2, "CPU-bound moves at once with 2 permits");
    let (most, one) = watched_match(&v, &ab, &greedy, &MatchOptions { cpu_threads: 1, ..options.clone() });
    assert_eq!(most, 1, "CPU-bound moves at once with 1 permit");
    let (unmarked_ab, unmarked_greedy) = (ab.clone().cpu_bound(false), greedy.clone().cpu_bound(false));
    let (most, free) = watched_match(&v, &unmarked_ab, &unmarked_greedy, &MatchOptions { cpu_threads: 2, ..options });
    assert!(most > 2, "8 game threads without permits should overlap: {most}");
    assert_eq!(limited, free);
    assert_eq!(one, free);
}
