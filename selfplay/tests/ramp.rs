//! `selfplay.ramp_secs`: games are admitted gradually at the start of a run (docs/selfplay.md,
//! "Ramp"). The schedule is checked as a function of time, and in runs through the games'
//! admission and end times that the runner reports ([`GameEnd`]), not by wall-clock speed.

use std::{
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
    time::{Duration, Instant},
};

use fairyzero_model::{
    backend::MockBackend,
    encoding::StandardEncoding,
    service::{InferenceService, LatencyExecutor},
};
use fairyzero_rules::Variant;
use fairyzero_selfplay::{
    config::{BatchingConfig, SelfPlayConfig},
    game::game_seed,
    run_selfplay, run_selfplay_session,
    runner::Ramp,
    CurrentNet, Evaluator, GameEnd, GameRecord, RunOptions,
};

fn secs(s: f64) -> Duration {
    Duration::from_secs_f64(s)
}

/// The schedule: one game per worker from the start, `ceil(games * t / ramp)` after that,
/// everything once the ramp is over; never decreasing.
#[test]
fn the_schedule_admits_games_in_proportion_to_time() {
    let ramp = Ramp::new(1024, 8, 120.0);
    assert_eq!(ramp.limit(Duration::ZERO), 8);
    // ceil(1024 * 0.5 / 120) = 5 < 8 workers: still 8.
    assert_eq!(ramp.limit(secs(0.5)), 8);
    assert_eq!(ramp.limit(secs(1.0)), 9); // ceil(8.53)
    assert_eq!(ramp.limit(secs(60.0)), 512);
    assert_eq!(ramp.limit(secs(119.9)), 1024); // ceil(1023.1)
    assert_eq!(ramp.limit(secs(120.0)), 1024);
    assert_eq!(ramp.limit(secs(1e6)), 1024);
    assert!(!ramp.is_over(secs(119.9)) && ramp.is_over(secs(120.0)));
    let mut last = 0;
    for ms in 0..=130_000 {
        let limit = ramp.limit(Duration::from_millis(ms));
        assert!(limit >= last && (8..=1024).contains(&limit), "{ms} ms: {limit} after {last}");
        last = limit;
    }

    // No ramp: every game at once.
    let off = Ramp::new(64, 2, 0.0);
    assert!(off.is_over(Duration::ZERO));
    assert_eq!(off.limit(Duration::ZERO), 64);

    // A run's ramp counts the workers it starts: `threads`, at most `games_in_parallel`.
    let config = SelfPlayConfig { games_in_parallel: 3, threads: 3, ramp_secs: 10.0, ..SelfPlayConfig::default() };
    assert_eq!(Ramp::of(&config).limit(Duration::ZERO), 3);
    assert_eq!(Ramp::of(&config), Ramp::new(3, 3, 10.0));
}

/// Each worker's part is at least one game, and the parts of the runner's workers (slot counts
/// differing by at most one) never add up to more than the run's limit.
#[test]
fn the_workers_parts_add_up_to_at_most_the_limit() {
    for games in 1..=70u32 {
        for workers in 1..=games.min(9) as usize {
            let ramp = Ramp::new(games, workers, 1.0);
            let slots: Vec<usize> =
                (0..workers).map(|w| games as usize / workers + usize::from(w < games as usize % workers)).collect();
            for limit in workers as u64..=u64::from(games) {
                let parts: Vec<u64> = slots.iter().map(|&s| ramp.worker_limit(limit, s)).collect();
                let total: u64 = parts.iter().sum();
                assert!(parts.iter().all(|&p| p >= 1), "{games} games, {workers} workers, limit {limit}: {parts:?}");
                assert!(total <= limit, "{games} games, {workers} workers, limit {limit}: {parts:?}");
            }
            // Once every game is admitted, each worker may fill all its places.
            for &s in &slots {
                assert_eq!(ramp.worker_limit(u64::from(games), s), s as u64);
            }
        }
    }
}

/// The largest number of games in progress at any admission: for each game, the games admitted
/// no later than it and not ended before it was admitted (itself included). Returns the
/// admission time and that count for every game.
fn in_progress_at_admissions(ends: &[GameEnd]) -> Vec<(Duration, u64)> {
    ends.iter()
        .map(|g| {
            let t = g.started;
            let n = ends.iter().filter(|h| h.started <= t && h.finished > t).count() as u64;
            (t, n)
        })
        .collect()
}

/// 64 games at once over a 2 s ramp on a device that takes 1 ms per batch: at no admission are
/// more games in progress than the schedule allows at that moment, the ramp does let games in
/// as it goes, and every game is played.
#[test]
fn a_run_never_has_more_games_in_progress_than_the_schedule() {
    let variant = Variant::load("gardner").unwrap();
    let config = SelfPlayConfig {
        simulations: 8,
        games_in_parallel: 64,
        threads: 2,
        move_cap: Some(40),
        ramp_secs: 2.0,
        batching: BatchingConfig { max_batch: 64, max_wait_us: 0, in_flight: 3, groups: 2 },
        ..SelfPlayConfig::default()
    };
    let executor = LatencyExecutor { per_batch: Duration::from_millis(1), per_position: Duration::ZERO, max_batch: 64 };
    let service = InferenceService::start(
        Box::new(executor),
        Arc::new(StandardEncoding::new(Arc::clone(&variant))),
        config.batching.service_config(),
    );
    let options = RunOptions { games: 96, seed: 5, net: "unused".into(), out_dir: None, progress: false };
    let net = CurrentNet::new("latency");
    let stop = AtomicBool::new(false);
    let mut ends = Vec::new();
    let mut seeds = Vec::new();
    let summary =
        run_selfplay_session(&variant, &config, Evaluator::Service(&service), &options, &net, &[&stop], |g, end| {
            ends.push(end);
            seeds.push(g.seed);
        })
        .unwrap();
    assert_eq!((summary.games, summary.abandoned()), (96, 0), "{summary}");
    seeds.sort_unstable();
    let mut expected: Vec<u64> = (0..96).map(|i| game_seed(5, i)).collect();
    expected.sort_unstable();
    assert_eq!(seeds, expected, "every game index is played once");

    let ramp = Ramp::of(&config);
    let admissions = in_progress_at_admissions(&ends);
    for &(t, n) in &admissions {
        assert!(n <= ramp.limit(t), "{n} games in progress at {t:?}, the schedule allows {}", ramp.limit(t));
        assert!(ends.iter().all(|g| g.started <= g.finished));
    }
    // The ramp held games back: the first ones started alone (one per worker)...
    let at_start = admissions.iter().filter(|(t, _)| *t < Duration::from_millis(20)).count();
    assert!(at_start <= 2, "{at_start} games admitted in the first 20 ms");
    // ... and let more in as it went: a game lasts at least 40 plies x 8 simulations of 1 ms
    // batches, so admissions overlap once the schedule allows several games.
    let most = admissions.iter().map(|&(_, n)| n).max().unwrap();
    assert!(most >= 4, "at most {most} games in progress at once: {admissions:?}");
}

fn records(config: &SelfPlayConfig, games: u64) -> Vec<GameRecord> {
    let variant = Variant::load("gardner").unwrap();
    let options = RunOptions { games, seed: 11, net: "mock".into(), out_dir: None, progress: false };
    let mut records = Vec::new();
    run_selfplay(&variant, config, &MockBackend::material(), &options, &AtomicBool::new(false), |g| {
        records.push(g.clone())
    })
    .unwrap();
    records.sort_by_key(|g| g.seed);
    records
}

/// Game `i` plays with `game_seed(seed, i)` whoever admits it and whenever: with a
/// deterministic evaluator a ramp changes when games are played, not what they are.
#[test]
fn a_ramp_plays_the_same_games_as_no_ramp() {
    let config = SelfPlayConfig {
        simulations: 8,
        games_in_parallel: 8,
        threads: 2,
        move_cap: Some(30),
        ..SelfPlayConfig::default()
    };
    let plain = records(&config, 20);
    let ramped = records(&SelfPlayConfig { ramp_secs: 0.5, ..config }, 20);
    assert_eq!(plain.len(), 20);
    assert_eq!(ramped, plain);
}

/// A run with fewer games than the ramp would admit ends when they are played (a worker
/// whose games are all claimed leaves instead of waiting out the ramp), and a stop during the
/// ramp ends a session at once.
#[test]
fn the_ramp_neither_delays_the_end_nor_a_stop() {
    let config = SelfPlayConfig {
        simulations: 4,
        games_in_parallel: 16,
        threads: 2,
        move_cap: Some(20),
        ramp_secs: 1000.0,
        ..SelfPlayConfig::default()
    };
    // 1000 s of ramp: a worker runs one game at a time.
    assert_eq!(records(&config, 6).len(), 6);

    let variant = Variant::load("gardner").unwrap();
    let options = RunOptions { games: u64::MAX, seed: 1, net: "unused".into(), out_dir: None, progress: false };
    let stop = AtomicBool::new(false);
    let mock = MockBackend::uniform();
    let started = Instant::now();
    let summary = std::thread::scope(|scope| {
        let run = scope.spawn(|| {
            run_selfplay_session(
                &variant,
                &config,
                Evaluator::Blocking(&mock),
                &options,
                &CurrentNet::new("mock"),
                &[&stop],
                |_, _| {},
            )
        });
        std::thread::sleep(Duration::from_millis(300));
        stop.store(true, Ordering::Relaxed);
        run.join().unwrap().unwrap()
    });
    assert!(started.elapsed() < Duration::from_secs(30), "{:?}", started.elapsed());
    // Two workers with one game each at most (the schedule's floor for the first 300 ms).
    assert!(summary.abandoned() <= 2, "{summary}");
    assert!(summary.games >= 1, "{summary}");
}
