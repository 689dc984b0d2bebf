//! Many games at once (lc0's `multigame`, KataGo's `selfplay`): `threads` workers each drive
//! `games_in_parallel / threads` games, gather one leaf per game (or more with virtual loss)
//! into one batch, call the blocking backend, back up, and repeat. While one worker waits for
//! its batch the others search, so with two workers on two cores neither the network nor the
//! search should sit idle. [`Summary`] reports how much each waited.

use std::{
    collections::BTreeMap,
    fmt,
    path::PathBuf,
    sync::{
        atomic::{AtomicBool, AtomicU64, Ordering},
        mpsc, Arc, Mutex,
    },
    time::{Duration, Instant},
};

use fairyzero_model::backend::{recycle_requests, Backend, EvalOutput, EvalRequest};
use fairyzero_rules::{Color, PositionError, Variant};

use crate::{
    config::SelfPlayConfig,
    game::{game_seed, Advance, GameStart, SelfPlayGame},
    record::{ChunkWriter, GameRecord, RecordError},
};

/// What to play and where to put it.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub games: u64,
    /// Run seed: game `i` uses [`game_seed`]`(seed, i)`.
    pub seed: u64,
    /// Network id written into the records.
    pub net: String,
    /// Where chunk files go; `None` keeps games in memory only (tests, benchmarks).
    pub out_dir: Option<PathBuf>,
    /// Show a progress bar on stderr (hidden when stderr is not a terminal).
    pub progress: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum SelfPlayError {
    #[error("{0}")]
    Config(#[from] crate::config::ConfigError),
    #[error("setup {setup:?}: {error}")]
    Setup { setup: String, error: PositionError },
    #[error(transparent)]
    Record(#[from] RecordError),
}

/// Time during which at least one evaluate call was in progress, across all workers.
#[derive(Default)]
struct BusyClock {
    in_flight: u32,
    since: Option<Instant>,
    busy: Duration,
}

struct Shared<'a> {
    backend: &'a dyn Backend,
    start: GameStart,
    config: Arc<SelfPlayConfig>,
    options: &'a RunOptions,
    next_game: AtomicU64,
    clock: Mutex<BusyClock>,
    stop: &'a [&'a AtomicBool],
    /// Set when a chunk cannot be written: the run ends as on a stop, and reports the error.
    failed: AtomicBool,
}

impl Shared<'_> {
    fn stopped(&self) -> bool {
        self.failed.load(Ordering::Relaxed) || self.stop.iter().any(|s| s.load(Ordering::Relaxed))
    }

    fn claim(&self) -> Option<u64> {
        if self.stopped() {
            return None;
        }
        let i = self.next_game.fetch_add(1, Ordering::Relaxed);
        (i < self.options.games).then_some(i)
    }

    fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut EvalOutput) {
        {
            let mut c = self.clock.lock().expect("clock lock");
            if c.in_flight == 0 {
                c.since = Some(Instant::now());
            }
            c.in_flight += 1;
        }
        self.backend.evaluate(batch, out);
        {
            let mut c = self.clock.lock().expect("clock lock");
            c.in_flight -= 1;
            if c.in_flight == 0 {
                let since = c.since.take().expect("set when the first call entered");
                c.busy += since.elapsed();
            }
        }
    }
}

/// Per-worker counters.
#[derive(Clone, Debug, Default)]
pub struct WorkerStats {
    /// Time blocked in the evaluator.
    pub wait: Duration,
    /// The worker's whole run.
    pub total: Duration,
    pub batches: u64,
    pub evaluated: u64,
    pub collisions: u64,
    /// Games in progress dropped when the run was stopped.
    pub abandoned: u64,
}

enum Message {
    Game(Box<GameRecord>),
    Done(WorkerStats),
}

fn worker(shared: &Shared<'_>, slots: usize, tx: mpsc::Sender<Message>) {
    let started = Instant::now();
    let mut stats = WorkerStats::default();
    let mut games: Vec<Option<SelfPlayGame>> = (0..slots).map(|_| None).collect();
    // One batch's requests and answers, reused by every batch: the requests' memory is
    // recycled, as they borrow the games anew each time.
    let mut request_buffer: Vec<EvalRequest<'static>> =
        Vec::with_capacity(slots * shared.config.leaves_per_game as usize);
    let mut evaluations = EvalOutput::new();
    loop {
        // A stop drops the games in progress rather than finishing them: with hundreds of
        // long games in flight, finishing took longer than anyone waits after Ctrl-C.
        if shared.stopped() {
            stats.abandoned = games.iter().flatten().count() as u64;
            break;
        }
        let mut pending = 0;
        for slot in games.iter_mut() {
            loop {
                if slot.is_none() {
                    match shared.claim() {
                        Some(i) => {
                            let seed = game_seed(shared.options.seed, i);
                            *slot = Some(SelfPlayGame::new(
                                &shared.start,
                                Arc::clone(&shared.config),
                                seed,
                                &shared.options.net,
                            ));
                        }
                        None => break,
                    }
                }
                let game = slot.as_mut().expect("filled above");
                match game.advance() {
                    Advance::NeedsEval => {
                        pending += 1;
                        break;
                    }
                    Advance::Finished(record) => {
                        stats.collisions += game.search.collisions();
                        *slot = None;
                        // The receiver only goes away if the main thread panicked.
                        let _ = tx.send(Message::Game(record));
                    }
                }
            }
        }
        if pending == 0 {
            break;
        }
        let mut requests = recycle_requests(std::mem::take(&mut request_buffer));
        for game in games.iter().flatten() {
            game.search.requests(&mut requests);
        }
        let t = Instant::now();
        shared.evaluate(&requests, &mut evaluations);
        stats.wait += t.elapsed();
        stats.batches += 1;
        stats.evaluated += requests.len() as u64;
        assert_eq!(evaluations.len(), requests.len(), "the backend must return one evaluation per request");
        request_buffer = recycle_requests(requests);
        let mut it = evaluations.iter();
        for game in games.iter_mut().flatten() {
            game.search.apply(&mut it);
        }
    }
    stats.total = started.elapsed();
    let _ = tx.send(Message::Done(stats));
}

/// Counters of a finished run.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub games: u64,
    /// Plies played (setup plies included).
    pub positions: u64,
    /// Moves recorded with a policy target.
    pub policy_targets: u64,
    pub simulations: u64,
    pub evaluations: u64,
    pub elapsed: Duration,
    pub blue_wins: u64,
    pub tan_wins: u64,
    pub draws: u64,
    /// Games per result reason ("checkmate", "move cap", ...).
    pub reasons: BTreeMap<String, u64>,
    /// Wall time with at least one backend call in progress.
    pub backend_busy: Duration,
    pub workers: Vec<WorkerStats>,
    pub files: Vec<PathBuf>,
}

impl Summary {
    fn add(&mut self, g: &GameRecord) {
        self.games += 1;
        self.positions += g.moves.len() as u64;
        self.policy_targets += g.moves.iter().filter(|m| m.policy.is_some()).count() as u64;
        self.simulations += g.moves.iter().map(|m| m.simulations as u64).sum::<u64>();
        self.evaluations += g.moves.iter().map(|m| m.evaluations as u64).sum::<u64>();
        match g.result.winner {
            Some(Color::Blue) => self.blue_wins += 1,
            Some(Color::Tan) => self.tan_wins += 1,
            None => self.draws += 1,
        }
        *self.reasons.entry(g.result.reason.to_string()).or_default() += 1;
    }

    fn secs(&self) -> f64 {
        self.elapsed.as_secs_f64().max(1e-9)
    }

    pub fn positions_per_sec(&self) -> f64 {
        self.positions as f64 / self.secs()
    }

    pub fn simulations_per_sec(&self) -> f64 {
        self.simulations as f64 / self.secs()
    }

    pub fn mean_length(&self) -> f64 {
        self.positions as f64 / self.games.max(1) as f64
    }

    /// The first player's (Blue's) score: wins + draws / 2, over games.
    pub fn first_player_score(&self) -> f64 {
        (self.blue_wins as f64 + 0.5 * self.draws as f64) / self.games.max(1) as f64
    }

    /// Games in progress that a stop dropped (none written).
    pub fn abandoned(&self) -> u64 {
        self.workers.iter().map(|w| w.abandoned).sum()
    }

    /// Positions the evaluator received (the batches of every worker).
    pub fn evaluated(&self) -> u64 {
        self.workers.iter().map(|w| w.evaluated).sum()
    }

    pub fn mean_batch(&self) -> f64 {
        let batches: u64 = self.workers.iter().map(|w| w.batches).sum();
        self.evaluated() as f64 / batches.max(1) as f64
    }

    /// Fraction of the run during which no backend call was in progress.
    pub fn backend_idle_fraction(&self) -> f64 {
        1.0 - (self.backend_busy.as_secs_f64() / self.secs()).min(1.0)
    }

    /// Fraction of the workers' time spent blocked in the evaluator.
    pub fn search_wait_fraction(&self) -> f64 {
        let wait: f64 = self.workers.iter().map(|w| w.wait.as_secs_f64()).sum();
        let total: f64 = self.workers.iter().map(|w| w.total.as_secs_f64()).sum();
        wait / total.max(1e-9)
    }

    /// Backend throughput while busy: positions per second of backend-busy time.
    pub fn backend_positions_per_busy_sec(&self) -> f64 {
        self.evaluated() as f64 / self.backend_busy.as_secs_f64().max(1e-9)
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "games: {}  in {:.1} s", self.games, self.elapsed.as_secs_f64())?;
        match self.abandoned() {
            0 => writeln!(f)?,
            n => writeln!(f, " (stopped: {n} unfinished game(s) dropped)")?,
        }
        writeln!(
            f,
            "positions: {} ({:.1}/s), mean length {:.1} plies, policy targets {}",
            self.positions,
            self.positions_per_sec(),
            self.mean_length(),
            self.policy_targets
        )?;
        writeln!(
            f,
            "simulations: {} ({:.0}/s), net evaluations: {} in batches of {:.1} on average",
            self.simulations,
            self.simulations_per_sec(),
            self.evaluated(),
            self.mean_batch()
        )?;
        writeln!(
            f,
            "results: Blue {} / draws {} / Tan {}, first-player score {:.3}",
            self.blue_wins,
            self.draws,
            self.tan_wins,
            self.first_player_score()
        )?;
        let reasons: Vec<String> = self.reasons.iter().map(|(r, n)| format!("{r} {n}")).collect();
        writeln!(f, "result reasons: {}", reasons.join(", "))?;
        writeln!(
            f,
            "waiting: network idle {:.1}% of the time, search threads blocked on the network {:.1}%",
            100.0 * self.backend_idle_fraction(),
            100.0 * self.search_wait_fraction()
        )?;
        write!(f, "network throughput while busy: {:.0} positions/s", self.backend_positions_per_busy_sec())
    }
}

/// Plays `options.games` games and writes them to `options.out_dir` (if set) in chunks;
/// `on_game` sees every finished game. `stop` ends the run within one backend batch: the
/// games finished so far are written, the ones in progress are dropped (a game resumed from
/// the middle would need its search trees, and its early moves alone are no training target).
pub fn run_selfplay(
    variant: &Arc<Variant>,
    config: &SelfPlayConfig,
    backend: &dyn Backend,
    options: &RunOptions,
    stop: &AtomicBool,
    on_game: impl FnMut(&GameRecord),
) -> Result<Summary, SelfPlayError> {
    run_selfplay_until(variant, config, backend, options, &[stop], on_game)
}

/// [`run_selfplay`] that stops when any of the flags is set: a caller's own flag (a time
/// budget) beside the process's signal flag, which it must not set itself.
pub fn run_selfplay_until(
    variant: &Arc<Variant>,
    config: &SelfPlayConfig,
    backend: &dyn Backend,
    options: &RunOptions,
    stop: &[&AtomicBool],
    mut on_game: impl FnMut(&GameRecord),
) -> Result<Summary, SelfPlayError> {
    config.validate()?;
    let start = GameStart::resolve(variant, &config.setup)
        .map_err(|error| SelfPlayError::Setup { setup: String::from(config.setup.clone()), error })?;
    let mut writer = match &options.out_dir {
        Some(dir) => {
            let stamp = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or_default();
            let prefix = format!("{}-{stamp}-{}-s{}", variant.name, std::process::id(), options.seed);
            Some(ChunkWriter::new(dir, &prefix, config.games_per_file as usize)?)
        }
        None => None,
    };
    let threads = (config.threads as usize).min(config.games_in_parallel as usize).max(1);
    let per_thread = config.games_in_parallel as usize / threads;
    let extra = config.games_in_parallel as usize % threads;
    let shared = Shared {
        backend,
        start,
        config: Arc::new(config.clone()),
        options,
        next_game: AtomicU64::new(0),
        clock: Mutex::new(BusyClock::default()),
        stop,
        failed: AtomicBool::new(false),
    };
    let bar = crate::progress::bar(options.games, options.progress);
    let started = Instant::now();
    let mut summary = Summary::default();
    let mut write_error = None;
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel();
        for t in 0..threads {
            let tx = tx.clone();
            let shared = &shared;
            let slots = per_thread + usize::from(t < extra);
            std::thread::Builder::new()
                .name(format!("selfplay-{t}"))
                .spawn_scoped(scope, move || worker(shared, slots, tx))
                .expect("cannot spawn a self-play thread");
        }
        drop(tx);
        for message in rx {
            match message {
                Message::Game(game) => {
                    summary.add(&game);
                    on_game(&game);
                    bar.inc(1);
                    let secs = started.elapsed().as_secs_f64().max(1e-9);
                    bar.set_message(format!(
                        "{:.1} pos/s, {:.0} sims/s",
                        summary.positions as f64 / secs,
                        summary.simulations as f64 / secs
                    ));
                    if let Some(w) = writer.as_mut() {
                        if write_error.is_none() {
                            if let Err(e) = w.push(*game) {
                                // Stop cleanly: drop the games in progress, keep the error.
                                shared.failed.store(true, Ordering::Relaxed);
                                write_error = Some(e);
                            }
                        }
                    }
                }
                Message::Done(stats) => summary.workers.push(stats),
            }
        }
    });
    bar.finish_and_clear();
    summary.elapsed = started.elapsed();
    summary.backend_busy = shared.clock.lock().expect("clock lock").busy;
    if let Some(e) = write_error {
        return Err(e.into());
    }
    if let Some(w) = writer.as_mut() {
        w.flush()?;
        summary.files = w.files().to_vec();
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use fairyzero_model::backend::{BackendInfo, MockBackend};

    use super::*;

    /// The mock, raising a stop flag at its `stop_at`-th batch (as a signal handler would).
    struct StoppingBackend<'a> {
        inner: MockBackend,
        batches: AtomicUsize,
        stop_at: usize,
        stop: &'a AtomicBool,
    }

    impl Backend for StoppingBackend<'_> {
        fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut EvalOutput) {
            if self.batches.fetch_add(1, Ordering::SeqCst) + 1 == self.stop_at {
                self.stop.store(true, Ordering::SeqCst);
            }
            self.inner.evaluate(batch, out)
        }

        fn info(&self) -> BackendInfo {
            self.inner.info()
        }
    }

    /// A stop ends the run within a batch or so: the games in progress are dropped, not played
    /// to their end (which once took minutes with hundreds of long games in flight).
    #[test]
    fn a_stop_drops_the_games_in_progress() {
        let variant = Variant::load("gardner").unwrap();
        let config = SelfPlayConfig {
            simulations: 4,
            games_in_parallel: 8,
            threads: 2,
            move_cap: Some(200),
            ..SelfPlayConfig::default()
        };
        let options = RunOptions { games: 1000, seed: 7, net: "mock".into(), out_dir: None, progress: false };
        let stop = AtomicBool::new(false);
        let backend =
            StoppingBackend { inner: MockBackend::uniform(), batches: AtomicUsize::new(0), stop_at: 20, stop: &stop };
        let own_flag = AtomicBool::new(false);
        let summary = run_selfplay_until(&variant, &config, &backend, &options, &[&own_flag, &stop], |_| {}).unwrap();
        // Games that ended at the stop are not replaced, so up to the 8 in flight are dropped.
        let dropped = summary.abandoned();
        assert!((1..=8).contains(&dropped), "{summary}");
        assert!(summary.games < 100, "{summary}");
        // Each of the two workers may have its batch in flight when the flag goes up.
        let batches = backend.batches.load(Ordering::SeqCst);
        assert!(batches <= 20 + 2, "{batches} batches after the stop at 20");
        assert!(summary.to_string().contains(&format!("(stopped: {dropped} unfinished game(s) dropped)")), "{summary}");
    }
}
