//! Self-play on the inference service (docs/plans/batching.md §2.2-2.3): the leaves of all
//! search threads share forwards, and the service gives the same records as a blocking mock.

use std::{
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc, Mutex,
    },
    time::{Duration, Instant},
};

use fairyzero_model::{
    backend::MockBackend,
    encoding::StandardEncoding,
    service::{InferenceService, LatencyExecutor, UniformExecutor},
};
use fairyzero_rules::Variant;
use fairyzero_selfplay::{
    config::{BatchingConfig, SearchKind, SelfPlayConfig, SetupMode},
    run_selfplay_with, Evaluator, GameRecord, RunOptions,
};

/// The tests of this file run one at a time: the timing test measures how busy a slow device
/// is kept by two search threads, and a second test running beside it on a 2-core CI machine
/// would take their cores.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn records(variant: &Arc<Variant>, config: &SelfPlayConfig, evaluator: Evaluator<'_>) -> Vec<GameRecord> {
    let options = RunOptions { games: 12, seed: 9, net: "mock".into(), out_dir: None, progress: false };
    let mut games = Vec::new();
    run_selfplay_with(variant, config, evaluator, &options, &[&AtomicBool::new(false)], |g| games.push(g.clone()))
        .unwrap();
    games.sort_by_key(|g| g.seed);
    games
}

/// Grouped workers on the service play exactly the games of the blocking mock (a game's
/// leaves depend only on its own evaluations), and their leaves meet in shared forwards.
#[test]
fn the_service_plays_the_blocking_mocks_games_in_shared_forwards() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let variant = Variant::load("gardner").unwrap();
    let config = SelfPlayConfig {
        simulations: 8,
        games_in_parallel: 8,
        threads: 2,
        move_cap: Some(30),
        batching: BatchingConfig { max_batch: 64, max_wait_us: 2000, in_flight: 3, groups: 2 },
        ..SelfPlayConfig::default()
    };
    let blocking = records(&variant, &config, Evaluator::Blocking(&MockBackend::uniform()));
    let service = InferenceService::start(
        Box::new(UniformExecutor::new(64)),
        Arc::new(StandardEncoding::new(Arc::clone(&variant))),
        config.batching.service_config(),
    );
    let served = records(&variant, &config, Evaluator::Service(&service));
    assert_eq!(blocking.len(), 12);
    assert_eq!(served, blocking);
    let stats = service.stats();
    assert!(stats.positions > 0);
    // 2 threads x 2 groups of 2 games: a forward of more than 2 positions merged submissions.
    assert!(stats.batch_histogram[2..].iter().sum::<u64>() > 0, "{stats:?}");
}

/// The acceptance test: a device that takes 20 ms + 10 us per position, fed by 2
/// search threads with 1,024 Typhoon games, gets batches of >= 400 and is busy >= 90% of the
/// time (measured over 20 s after 5 s of warm-up).
#[test]
fn two_search_threads_keep_a_slow_device_busy_with_large_batches() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let variant = Variant::load("typhoon").unwrap();
    let config = SelfPlayConfig {
        search: SearchKind::Gumbel,
        simulations: 16,
        games_in_parallel: 1024,
        threads: 2,
        setup: SetupMode::Default,
        batching: BatchingConfig { max_batch: 1024, max_wait_us: 0, in_flight: 3, groups: 2 },
        ..SelfPlayConfig::default()
    };
    let executor = LatencyExecutor {
        per_batch: Duration::from_millis(20),
        per_position: Duration::from_micros(10),
        max_batch: 1024,
    };
    let service = InferenceService::start(
        Box::new(executor),
        Arc::new(StandardEncoding::new(Arc::clone(&variant))),
        config.batching.service_config(),
    );
    let options = RunOptions { games: 1_000_000, seed: 3, net: "latency".into(), out_dir: None, progress: false };
    let stop = AtomicBool::new(false);
    let (warm, end, summary) = std::thread::scope(|scope| {
        let run = scope
            .spawn(|| run_selfplay_with(&variant, &config, Evaluator::Service(&service), &options, &[&stop], |_| {}));
        let started = Instant::now();
        std::thread::sleep(Duration::from_secs(5));
        let warm = service.stats();
        std::thread::sleep(Duration::from_secs(25).saturating_sub(started.elapsed()));
        let end = service.stats();
        stop.store(true, Ordering::Relaxed);
        (warm, end, run.join().unwrap().unwrap())
    });
    let measured = end.since(&warm);
    let secs = measured.elapsed.as_secs_f64();
    println!(
        "measured {secs:.1} s: {} forwards, mean batch {:.0}, busy {:.1}%, {:.0} leaves/s; run: {summary}",
        measured.forwards,
        measured.mean_batch(),
        100.0 * measured.busy_share(),
        measured.positions as f64 / secs
    );
    assert!(measured.mean_batch() >= 400.0, "mean batch {:.0} < 400: {measured:?}", measured.mean_batch());
    assert!(measured.busy_share() >= 0.90, "busy {:.1}% < 90%: {measured:?}", 100.0 * measured.busy_share());
}
