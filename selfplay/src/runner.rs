//! Many games at once (lc0's `multigame`, KataGo's `selfplay`): `threads` workers each drive
//! `games_in_parallel / threads` games, gather one leaf per game (or more with virtual loss)
//! into one batch, have it evaluated, back up, and repeat. [`Summary`] reports how much each
//! waited.
//!
//! Two kinds of evaluator ([`Evaluator`]):
//! - a blocking [`Backend`]: a worker's games search or wait, never both; while one worker
//!   waits the others search;
//! - an [`InferenceService`] shared by all workers (docs/plans/batching.md §2.2): each worker
//!   splits its games into `batching.groups` groups and cycles through them (wait for group
//!   A's answers, apply them, gather A's next leaves and submit them, then the same for B), so
//!   that it always has a submission in flight while it searches, and the service merges the
//!   leaves of every worker into forwards of up to `batching.max_batch` positions.
//!
//! A game's leaves depend only on its own evaluations, so a deterministic evaluator gives the
//! same records either way.
//!
//! A training run plays one long session ([`run_selfplay_session`], KataGo's way): the trainer
//! swaps a new net into the service between two forwards and names it in a [`CurrentNet`]; the
//! games in progress go on with the new net, and each record names the net that was current
//! when its game started.
//!
//! `selfplay.ramp_secs` admits the games of a run gradually ([`Ramp`]): games started all at
//! once progress in lockstep and finish together, minutes after the start on a long variant;
//! a few games first get fast round trips and finish early (docs/selfplay.md, "Ramp").

use std::{
    collections::BTreeMap,
    fmt,
    path::PathBuf,
    sync::{
        atomic::{AtomicBool, AtomicU64, Ordering},
        mpsc, Arc, Mutex, RwLock,
    },
    time::{Duration, Instant},
};

use fairyzero_model::{
    backend::{recycle_requests, Backend, EvalOutput, EvalRequest},
    service::{InferenceService, ServiceStats, Ticket},
};
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

/// The id of the net that plays now, shared between a long self-play session and whoever swaps
/// the net behind its service (the trainer, after each promotion). Games read it when they
/// start (their record's `net`) and when they end, to count the games that straddled a swap.
#[derive(Clone, Debug)]
pub struct CurrentNet(Arc<RwLock<String>>);

impl CurrentNet {
    pub fn new(name: impl Into<String>) -> CurrentNet {
        CurrentNet(Arc::new(RwLock::new(name.into())))
    }

    pub fn get(&self) -> String {
        self.0.read().expect("net name lock").clone()
    }

    /// Names the net that now plays: call it once the new net is in the service, so that a
    /// game named after it never evaluates with the old one.
    pub fn set(&self, name: impl Into<String>) {
        *self.0.write().expect("net name lock") = name.into();
    }

    fn is(&self, name: &str) -> bool {
        *self.0.read().expect("net name lock") == name
    }
}

/// What the runner knows about a finished game besides its record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameEnd {
    /// Another net was current when the game ended than when it started: a swap happened while
    /// it was played (its record names the net it started with).
    pub swapped: bool,
    /// When the game was admitted, since the run began (after it took its place in the
    /// [`Ramp`]'s count).
    pub started: Duration,
    /// When it ended, since the run began (before it left the count).
    pub finished: Duration,
}

/// The admission schedule of `selfplay.ramp_secs`: how many games may be in progress at a
/// time since the run began.
///
/// Games started together progress in lockstep (one evaluation each per round of the
/// evaluator) and so all finish late; admitting them over `ramp_secs` lets the first few play
/// on small, fast batches and finish early, while later ones fill the batches up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ramp {
    games_in_parallel: u64,
    workers: u64,
    secs: f64,
}

impl Ramp {
    /// The ramp of `games_in_parallel` games on `workers` search threads over `secs` seconds
    /// (0: none, every game at once).
    pub fn new(games_in_parallel: u32, workers: usize, secs: f64) -> Ramp {
        let games_in_parallel = u64::from(games_in_parallel.max(1));
        // A NaN or negative length (refused by `validate`) means no ramp.
        let secs = if secs > 0.0 { secs } else { 0.0 };
        Ramp { games_in_parallel, workers: (workers.max(1) as u64).min(games_in_parallel), secs }
    }

    /// The ramp of a run configuration, on the workers the runner starts for it.
    pub fn of(config: &SelfPlayConfig) -> Ramp {
        Ramp::new(config.games_in_parallel, worker_count(config), config.ramp_secs)
    }

    /// Whether every game may be in progress `elapsed` into the run.
    pub fn is_over(&self, elapsed: Duration) -> bool {
        self.secs == 0.0 || elapsed.as_secs_f64() >= self.secs
    }

    /// The most games in progress in total `elapsed` into the run:
    /// `max(workers, ceil(games_in_parallel * elapsed / secs))` during the ramp (one game per
    /// worker from the start, so that no search thread is idle), `games_in_parallel` after it.
    pub fn limit(&self, elapsed: Duration) -> u64 {
        if self.is_over(elapsed) {
            return self.games_in_parallel;
        }
        let share = (self.games_in_parallel as f64 * elapsed.as_secs_f64() / self.secs).ceil() as u64;
        share.clamp(self.workers, self.games_in_parallel)
    }

    /// A worker's part of `limit`: `max(1, floor(limit * slots / games_in_parallel))` for a
    /// worker with `slots` places. Keeps the admitted games spread over the search threads
    /// (which search them on their own cores) and gives each one from the start. The parts of
    /// the runner's workers, whose slot counts differ by at most one, add up to at most `limit`:
    /// where a part is raised to 1, every part is 1 (each `limit * slots / games_in_parallel` is
    /// then below 2) and `limit >= workers`; elsewhere the floors add up to at most `limit`.
    pub fn worker_limit(&self, limit: u64, slots: usize) -> u64 {
        (limit * slots as u64 / self.games_in_parallel).max(1)
    }

    /// How long a worker that was refused a game waits before it asks again: until the limit
    /// next grows, within [0.2 ms, 2 ms] (a game that ends elsewhere frees a place too, and a
    /// stop must be seen soon).
    fn pause(&self, elapsed: Duration) -> Duration {
        let (min, max) = (0.0002, 0.002);
        let per_game = self.secs / self.games_in_parallel as f64;
        if self.secs == 0.0 {
            return Duration::from_secs_f64(min);
        }
        let next = (elapsed.as_secs_f64() / per_game).floor() + 1.0;
        Duration::from_secs_f64((next * per_game - elapsed.as_secs_f64()).clamp(min, max))
    }
}

/// Search threads of a run: `threads`, never more than `games_in_parallel`.
fn worker_count(config: &SelfPlayConfig) -> usize {
    (config.threads as usize).min(config.games_in_parallel as usize).max(1)
}

/// What a worker's request for a new game got.
enum Admission {
    /// Game `i`, admitted this long into the run.
    Game(u64, Duration),
    /// Not now: the ramp's limit is reached.
    Later,
    /// No more games: all were claimed, or the run is stopping.
    NoMore,
}

/// Where a game's net id comes from.
enum NetSource<'a> {
    /// `RunOptions::net`, for the whole run.
    Fixed(&'a str),
    /// The session's current net.
    Current(&'a CurrentNet),
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

/// What evaluates the leaves.
#[derive(Clone, Copy)]
pub enum Evaluator<'a> {
    /// Called with one group's leaves at a time, blocking until the answers are in.
    Blocking(&'a dyn Backend),
    /// Submitted to without waiting; the workers keep `batching.groups` groups in flight.
    Service(&'a InferenceService),
}

impl<'a> Evaluator<'a> {
    /// The service behind `backend` when it is one, so that the workers keep submissions in
    /// flight; otherwise `backend` itself, called blocking.
    pub fn of(backend: &'a dyn Backend) -> Evaluator<'a> {
        match backend.as_service() {
            Some(service) => Evaluator::Service(service),
            None => Evaluator::Blocking(backend),
        }
    }
}

/// A group's leaves, submitted and not yet applied.
enum InFlight {
    Ticket(Ticket),
    /// A blocking backend's answers, in the group's own buffer.
    Answered,
}

/// Some of a worker's games, evaluated together.
struct Group {
    games: Vec<Option<SelfPlayGame>>,
    /// When the game in each place was admitted, since the run began.
    started: Vec<Duration>,
    in_flight: Option<InFlight>,
    /// Leaves of the submission in flight.
    submitted: usize,
    answers: EvalOutput,
}

struct Shared<'a> {
    evaluator: Evaluator<'a>,
    start: GameStart,
    config: Arc<SelfPlayConfig>,
    options: &'a RunOptions,
    net: NetSource<'a>,
    next_game: AtomicU64,
    /// Games admitted and not yet ended (or dropped at a stop), for the ramp.
    in_progress: AtomicU64,
    ramp: Ramp,
    /// When the run began: the ramp's clock and [`GameEnd`]'s.
    began: Instant,
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

    /// A new game for a worker that has `own` games in progress in `slots` places: during the
    /// ramp, only while both the run's and the worker's limits leave room.
    fn admit(&self, own: usize, slots: usize) -> Admission {
        // Checked first, so that a worker whose run is over exits instead of waiting out the ramp.
        if self.stopped() || self.next_game.load(Ordering::Relaxed) >= self.options.games {
            return Admission::NoMore;
        }
        let elapsed = self.began.elapsed();
        if self.ramp.is_over(elapsed) {
            self.in_progress.fetch_add(1, Ordering::AcqRel);
        } else {
            let limit = self.ramp.limit(elapsed);
            if own as u64 >= self.ramp.worker_limit(limit, slots) {
                return Admission::Later;
            }
            let reserved =
                self.in_progress.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| (n < limit).then_some(n + 1));
            if reserved.is_err() {
                return Admission::Later;
            }
        }
        match self.claim() {
            Some(i) => Admission::Game(i, self.began.elapsed()),
            None => {
                self.in_progress.fetch_sub(1, Ordering::AcqRel);
                Admission::NoMore
            }
        }
    }

    fn evaluate(&self, backend: &dyn Backend, batch: &[EvalRequest<'_>], out: &mut EvalOutput) {
        {
            let mut c = self.clock.lock().expect("clock lock");
            if c.in_flight == 0 {
                c.since = Some(Instant::now());
            }
            c.in_flight += 1;
        }
        backend.evaluate(batch, out);
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
    /// Finished games that started with another net than the one current at their end.
    pub swapped: u64,
}

enum Message {
    Game(Box<GameRecord>, GameEnd),
    Done(WorkerStats),
}

/// A worker's games in progress and the places it has for them.
struct Places {
    own: usize,
    slots: usize,
    /// A place stayed empty because the ramp did not admit a game yet.
    held_back: bool,
}

/// Claims games for the empty places of `games` (as far as the ramp admits them; `started`
/// holds when each was admitted) and advances every game to its next leaf request; sends
/// finished games. Returns the number of games that need an evaluation.
fn advance_games(
    shared: &Shared<'_>,
    games: &mut [Option<SelfPlayGame>],
    started: &mut [Duration],
    places: &mut Places,
    stats: &mut WorkerStats,
    tx: &mpsc::Sender<Message>,
) -> usize {
    let mut pending = 0;
    for (slot, started) in games.iter_mut().zip(started.iter_mut()) {
        loop {
            if slot.is_none() {
                match shared.admit(places.own, places.slots) {
                    Admission::Game(i, at) => {
                        places.own += 1;
                        *started = at;
                        let seed = game_seed(shared.options.seed, i);
                        let current;
                        let net = match shared.net {
                            NetSource::Fixed(net) => net,
                            NetSource::Current(cell) => {
                                current = cell.get();
                                current.as_str()
                            }
                        };
                        *slot = Some(SelfPlayGame::new(&shared.start, Arc::clone(&shared.config), seed, net));
                    }
                    Admission::Later => {
                        places.held_back = true;
                        break;
                    }
                    Admission::NoMore => break,
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
                    let swapped = match shared.net {
                        NetSource::Fixed(_) => false,
                        NetSource::Current(cell) => !cell.is(&record.net),
                    };
                    stats.swapped += u64::from(swapped);
                    let end = GameEnd { swapped, started: *started, finished: shared.began.elapsed() };
                    places.own -= 1;
                    shared.in_progress.fetch_sub(1, Ordering::AcqRel);
                    // The receiver only goes away if the main thread panicked.
                    let _ = tx.send(Message::Game(record, end));
                }
            }
        }
    }
    pending
}

fn worker(shared: &Shared<'_>, slots: usize, tx: mpsc::Sender<Message>) {
    let started = Instant::now();
    let mut stats = WorkerStats::default();
    // A blocking backend gains nothing from groups: one call per round, as large as possible.
    let groups = match shared.evaluator {
        Evaluator::Blocking(_) => 1,
        Evaluator::Service(_) => (shared.config.batching.groups as usize).clamp(1, slots.max(1)),
    };
    let mut groups: Vec<Group> = (0..groups)
        .map(|g| Group {
            games: (0..slots / groups + usize::from(g < slots % groups)).map(|_| None).collect(),
            started: vec![Duration::ZERO; slots / groups + usize::from(g < slots % groups)],
            in_flight: None,
            submitted: 0,
            answers: EvalOutput::new(),
        })
        .collect();
    // One group's requests, reused by every submission: the requests' memory is recycled, as
    // they borrow the games anew each time.
    let mut request_buffer: Vec<EvalRequest<'static>> =
        Vec::with_capacity(slots.div_ceil(groups.len()) * shared.config.leaves_per_game as usize);
    let mut places = Places { own: 0, slots, held_back: false };
    loop {
        // A stop drops the games in progress rather than finishing them: with hundreds of
        // long games in flight, finishing took longer than anyone waits after Ctrl-C.
        // Dropping a ticket releases its share of its batch.
        if shared.stopped() {
            stats.abandoned = groups.iter().flat_map(|g| g.games.iter().flatten()).count() as u64;
            break;
        }
        let mut active = false;
        places.held_back = false;
        for group in groups.iter_mut() {
            match group.in_flight.take() {
                None => {}
                Some(InFlight::Answered) => {}
                Some(InFlight::Ticket(ticket)) => {
                    let Evaluator::Service(service) = shared.evaluator else {
                        unreachable!("tickets come from a service")
                    };
                    let t = Instant::now();
                    service.wait(ticket, &mut group.answers);
                    stats.wait += t.elapsed();
                }
            }
            if group.submitted > 0 {
                assert_eq!(
                    group.answers.len(),
                    group.submitted,
                    "the evaluator must return one evaluation per request"
                );
                let mut it = group.answers.iter();
                for game in group.games.iter_mut().flatten() {
                    game.search.apply(&mut it);
                }
                group.submitted = 0;
            }
            if shared.stopped() {
                break;
            }
            if advance_games(shared, &mut group.games, &mut group.started, &mut places, &mut stats, &tx) == 0 {
                continue;
            }
            active = true;
            let mut requests = recycle_requests(std::mem::take(&mut request_buffer));
            for game in group.games.iter().flatten() {
                game.search.requests(&mut requests);
            }
            group.submitted = requests.len();
            stats.batches += 1;
            stats.evaluated += requests.len() as u64;
            group.in_flight = Some(match shared.evaluator {
                Evaluator::Blocking(backend) => {
                    let t = Instant::now();
                    shared.evaluate(backend, &requests, &mut group.answers);
                    stats.wait += t.elapsed();
                    InFlight::Answered
                }
                Evaluator::Service(service) => InFlight::Ticket(service.submit(&requests)),
            });
            request_buffer = recycle_requests(requests);
        }
        if !active && !shared.stopped() {
            if !places.held_back {
                break;
            }
            // No game and none admitted yet: the ramp lets more in as time passes, so wait for
            // it rather than spin or leave (which would end the run early).
            std::thread::sleep(shared.ramp.pause(shared.began.elapsed()));
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
    /// Wall time with at least one backend call in progress; with a service, the time its
    /// executor ran.
    pub backend_busy: Duration,
    /// What the inference service did during the run (none with a blocking backend).
    pub service: Option<ServiceStats>,
    pub workers: Vec<WorkerStats>,
    pub files: Vec<PathBuf>,
}

impl Summary {
    /// Counts a finished game.
    pub fn add(&mut self, g: &GameRecord) {
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

    /// Adds the game counts of `other` (its time and service figures are the caller's to
    /// combine): a caller that splits a long session into parts sums them with this.
    pub fn merge(&mut self, other: &Summary) {
        self.games += other.games;
        self.positions += other.positions;
        self.policy_targets += other.policy_targets;
        self.simulations += other.simulations;
        self.evaluations += other.evaluations;
        self.blue_wins += other.blue_wins;
        self.tan_wins += other.tan_wins;
        self.draws += other.draws;
        for (reason, n) in &other.reasons {
            *self.reasons.entry(reason.clone()).or_default() += n;
        }
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

    /// Finished games that a net swap happened during ([`run_selfplay_session`]).
    pub fn swapped(&self) -> u64 {
        self.workers.iter().map(|w| w.swapped).sum()
    }

    /// Positions the evaluator received (the batches of every worker).
    pub fn evaluated(&self) -> u64 {
        self.workers.iter().map(|w| w.evaluated).sum()
    }

    /// Positions per forward with a service, per backend call otherwise.
    pub fn mean_batch(&self) -> f64 {
        if let Some(service) = &self.service {
            return service.mean_batch();
        }
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

/// [`run_selfplay_with`] on `backend`: through its service when it is one ([`Evaluator::of`]).
pub fn run_selfplay_until(
    variant: &Arc<Variant>,
    config: &SelfPlayConfig,
    backend: &dyn Backend,
    options: &RunOptions,
    stop: &[&AtomicBool],
    on_game: impl FnMut(&GameRecord),
) -> Result<Summary, SelfPlayError> {
    run_selfplay_with(variant, config, Evaluator::of(backend), options, stop, on_game)
}

/// [`run_selfplay`] on either kind of [`Evaluator`], stopping when any of the flags is set: a
/// caller's own flag (a time budget) beside the process's signal flag, which it must not set
/// itself.
pub fn run_selfplay_with(
    variant: &Arc<Variant>,
    config: &SelfPlayConfig,
    evaluator: Evaluator<'_>,
    options: &RunOptions,
    stop: &[&AtomicBool],
    mut on_game: impl FnMut(&GameRecord),
) -> Result<Summary, SelfPlayError> {
    run(variant, config, evaluator, options, NetSource::Fixed(&options.net), stop, |g, _| on_game(g))
}

/// A long self-play session whose net changes while it runs (a training run's: KataGo's way,
/// no game is dropped at an iteration's end). Whoever swaps the net behind the service names
/// the new one in `net` ([`CurrentNet::set`]); each game's record names the net current at its
/// start (`options.net` is not used), and `on_game` learns whether a swap happened during it.
/// Otherwise as [`run_selfplay_with`]: `options.games` games (`u64::MAX`: until a stop), and a
/// stop drops the games in progress.
pub fn run_selfplay_session(
    variant: &Arc<Variant>,
    config: &SelfPlayConfig,
    evaluator: Evaluator<'_>,
    options: &RunOptions,
    net: &CurrentNet,
    stop: &[&AtomicBool],
    on_game: impl FnMut(&GameRecord, GameEnd),
) -> Result<Summary, SelfPlayError> {
    run(variant, config, evaluator, options, NetSource::Current(net), stop, on_game)
}

fn run(
    variant: &Arc<Variant>,
    config: &SelfPlayConfig,
    evaluator: Evaluator<'_>,
    options: &RunOptions,
    net: NetSource<'_>,
    stop: &[&AtomicBool],
    mut on_game: impl FnMut(&GameRecord, GameEnd),
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
    let threads = worker_count(config);
    let per_thread = config.games_in_parallel as usize / threads;
    let extra = config.games_in_parallel as usize % threads;
    let service_before = match evaluator {
        Evaluator::Service(service) => Some(service.stats()),
        Evaluator::Blocking(_) => None,
    };
    let shared = Shared {
        evaluator,
        start,
        config: Arc::new(config.clone()),
        options,
        net,
        next_game: AtomicU64::new(0),
        in_progress: AtomicU64::new(0),
        ramp: Ramp::of(config),
        began: Instant::now(),
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
                Message::Game(game, end) => {
                    summary.add(&game);
                    on_game(&game, end);
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
    if let (Evaluator::Service(service), Some(before)) = (evaluator, service_before) {
        let during = service.stats().since(&before);
        summary.backend_busy = during.busy;
        summary.service = Some(during);
    }
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

    /// The mock, calling `hook` when its `at`-th batch arrives: a stop flag raised as a signal
    /// handler would, or a new net named as the trainer does after swapping the service's
    /// executor.
    struct HookedBackend<F> {
        inner: MockBackend,
        batches: AtomicUsize,
        at: usize,
        hook: F,
    }

    impl<F: Fn() + Send + Sync> HookedBackend<F> {
        fn new(at: usize, hook: F) -> HookedBackend<F> {
            HookedBackend { inner: MockBackend::uniform(), batches: AtomicUsize::new(0), at, hook }
        }
    }

    impl<F: Fn() + Send + Sync> Backend for HookedBackend<F> {
        fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut EvalOutput) {
            if self.batches.fetch_add(1, Ordering::SeqCst) + 1 == self.at {
                (self.hook)();
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
        let backend = HookedBackend::new(20, || stop.store(true, Ordering::SeqCst));
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

    /// A session's games go on through a net swap: every game is finished, games started before
    /// the swap name the old net, and those that ended after it are counted as swapped.
    #[test]
    fn a_session_keeps_its_games_through_a_net_swap() {
        let variant = Variant::load("gardner").unwrap();
        let config = SelfPlayConfig {
            simulations: 4,
            games_in_parallel: 8,
            threads: 2,
            move_cap: Some(40),
            ..SelfPlayConfig::default()
        };
        let options = RunOptions { games: 24, seed: 7, net: "unused".into(), out_dir: None, progress: false };
        let net = CurrentNet::new("old");
        let backend = HookedBackend::new(30, || net.set("new"));
        let stop = AtomicBool::new(false);
        let mut records = Vec::new();
        let summary = run_selfplay_session(
            &variant,
            &config,
            Evaluator::Blocking(&backend),
            &options,
            &net,
            &[&stop],
            |g, end| records.push((g.net.clone(), end.swapped)),
        )
        .unwrap();
        assert_eq!((summary.games, summary.abandoned()), (24, 0), "{summary}");
        assert!(records.iter().all(|(n, _)| n == "old" || n == "new"), "{records:?}");
        // Swapped: started with the old net and ended after the swap; no game of the new net is.
        let swapped: Vec<_> = records.iter().filter(|r| r.1).collect();
        assert!(!swapped.is_empty() && swapped.iter().all(|(n, _)| n == "old"), "{records:?}");
        assert!(records.iter().any(|(n, _)| n == "new"), "{records:?}");
        assert_eq!(summary.swapped(), swapped.len() as u64);
    }
}
