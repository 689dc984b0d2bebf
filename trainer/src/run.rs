//! The main job: `fairyzero train --config configs/runs/NAME.toml`.
//!
//! ```text
//! Run::open       open the store; resume: newest checkpoint whose files match its manifest (else
//!                 a fresh net, published as step 0), every stored game back into the replay window
//! Run::iteration  until a budget is spent:
//!   1. take `iteration.games` finished games (or `iteration.positions` new positions) from the
//!      run's self-play session; each is published to the store at once and added to the
//!      window
//!   2. compact the iteration's games into one chunk
//!   3. train: new positions x samples_per_position / batch_size steps on the window
//!   4. publish a checkpoint (weights, optimizer state, trainer state; manifest last)
//!   5. promote it to self-play (always, or after an SPRT match against the current one); the
//!      next iteration swaps it into the session's inference service
//!   6. every `eval.every` iterations: queue the checkpoint's evaluation (matches against the
//!      configured opponents, ranking) to the evaluation thread (`eval_worker.rs`)
//!   7. a metrics line, with the iteration's time split
//! Run::finish     wait for the queued evaluations; final evaluation of the last checkpoint,
//!                 ranking, summary (with the run's time split)
//! ```
//!
//! Self-play is one session for the whole start of the process (KataGo's way): its games are
//! not stopped at an iteration's end, since with a thousand long games in flight that threw
//! away most of the work at every boundary. A promoted net is swapped into the session's
//! inference service between two forwards, the games in progress go on with it, and each
//! record names the net current at its game's start (`selfplay.swapped_games` in the metrics
//! counts the games that straddled a swap). Games that finish while an iteration trains and
//! checkpoints count to the next one. Killing the process at any moment loses at most the
//! training since the last checkpoint and the games in progress; running the same command
//! again continues from there.

use std::{
    path::{Path, PathBuf},
    sync::{
        atomic::{AtomicBool, AtomicU64, Ordering},
        Arc, Mutex,
    },
    time::{Duration, Instant},
};

use anyhow::{bail, Context};
use fairyzero_evaluator::Contestant;
use fairyzero_model::{NetConfig, Precision, StandardEncoding};
use fairyzero_rules::Variant;
use fairyzero_selfplay::{GameEnd, GameRecord, Summary};
use fairyzero_torch::{checkpoint, checkpoint::TransferReport, ExecutorOptions, Net};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use serde_json::json;

use crate::{
    artifacts::{self, CheckpointManifest, TrainerState},
    config::{absolute, parse_device, Gating, MirrorMode, Opponent, RunConfig},
    eval_worker::{EvalContext, EvalWorker},
    evaluation::{checkpoint_player, previous_evaluated, CheckpointMatches, MatchSummary, StoreLoader},
    feed::StoreFeed,
    index::Index,
    learner::{Learner, StepStats},
    lease::Lease,
    lock::RunLock,
    metrics::Metrics,
    replay::{game_samples, ReplayWindow, SampleOptions},
    session::{Next, SelfPlaySession, SessionPlan},
    store::{ObjectStoreBackend, Store},
    symmetry::MirrorRules,
};

/// Options of one invocation that are not part of the run's configuration.
#[derive(Clone, Debug, Default)]
pub struct TrainOptions {
    /// Rebuild the SQLite index from the store before starting.
    pub rebuild_index: bool,
    /// Set to stop after the current iteration (tests, signal handlers).
    pub stop: Option<Arc<AtomicBool>>,
    /// Warm-start a new run from this checkpoint directory (any variant, board size or
    /// architecture: variables by name and shape, piece embeddings by piece identity).
    pub transfer: Option<PathBuf>,
    /// Continue a run whose directory is lost from one of its checkpoint folders (weights,
    /// optimizer state, step and trainer state), into a run directory without checkpoints; the
    /// replay window starts empty and self-play refills it.
    pub continue_from: Option<PathBuf>,
    /// Self-play in this process (`train`), or the learner of workers on other machines.
    pub role: Role,
}

/// Which part of a run this process plays.
#[derive(Clone, Debug, Default)]
pub enum Role {
    /// Everything: self-play, training, evaluation (`fairyzero train`).
    #[default]
    Whole,
    /// Training and evaluation on the games that self-play workers publish to the store
    /// (`fairyzero learn`; the workers: [`crate::worker`]). One learner per store: it holds the
    /// store's lease ([`Lease`]) and stops if it loses it.
    Learner(LearnerOptions),
}

/// How a learner ([`Role::Learner`]) reads the store.
#[derive(Clone, Debug)]
pub struct LearnerOptions {
    /// The lease's time to live: a learner killed without releasing it blocks another for this
    /// long.
    pub lease_ttl: Duration,
    /// How often the store is listed for new games.
    pub poll: Duration,
    /// How late (by the workers' clocks) a game may be published after a newer one and still be
    /// read by the next poll ([`crate::feed`]).
    pub grace: Duration,
}

impl Default for LearnerOptions {
    fn default() -> Self {
        LearnerOptions {
            lease_ttl: Duration::from_secs(60),
            poll: Duration::from_secs(1),
            grace: crate::feed::DEFAULT_GRACE,
        }
    }
}

/// Staged writes older than this, in a store shared with workers, are a killed process's
/// leftovers, not a write in flight.
const STAGED_LEFTOVER_AGE: Duration = Duration::from_secs(3600);

/// The marker a learner publishes at the store's root when the run's budget is spent: workers
/// that see it stop.
pub const FINISHED_FILE: &str = "finished.json";

/// What a finished run reports.
#[derive(Clone, Debug, Serialize)]
pub struct RunSummary {
    pub run_dir: String,
    pub store: String,
    pub variant: String,
    pub net: String,
    pub steps: u64,
    pub iterations: u64,
    pub games: u64,
    pub positions: u64,
    pub elapsed_secs: f64,
    pub final_checkpoint: String,
    pub best_checkpoint: Option<String>,
    pub final_matches: Vec<MatchSummary>,
    pub last_loss: Option<StepStats>,
    /// Stopped by a signal (running the same command again resumes).
    pub interrupted: bool,
    /// Where this start's wall-clock time went.
    pub time: TimeSplit,
}

/// Where a run's time went, since this start of the process (a resumed run counts from its
/// restart). Self-play, training and evaluation overlap (training runs beside self-play with
/// `iteration.concurrent`, evaluations on their own thread), so the parts may add up to more
/// than the wall time; each part is at most the wall time (evaluation under SPRT gating: the
/// gating matches and the evaluation thread's may add up to more).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct TimeSplit {
    /// Self-play of the iterations.
    pub selfplay_secs: f64,
    /// The training threads' time (from the first step's wait for positions to the last step).
    pub train_secs: f64,
    /// Evaluations (the evaluation thread's matches and rankings), SPRT gating matches and the
    /// final evaluation.
    pub eval_secs: f64,
    pub wall_secs: f64,
}

impl TimeSplit {
    fn percent(&self, part: f64) -> f64 {
        100.0 * part / self.wall_secs.max(1e-9)
    }

    /// The metrics object: `{ selfplay_secs, train_secs, eval_secs, wall_secs }`.
    pub fn to_json(&self) -> serde_json::Value {
        json!({ "selfplay_secs": self.selfplay_secs, "train_secs": self.train_secs,
                "eval_secs": self.eval_secs, "wall_secs": self.wall_secs })
    }
}

impl RunSummary {
    pub fn to_markdown(&self) -> String {
        let mut s = format!(
            "# Run summary\n\n- run directory: `{}`\n- store: `{}`\n- variant: {}, net {}\n- {} iterations, {} optimizer steps, {} games, {} positions, {:.1} minutes\n- final checkpoint: `{}`\n",
            self.run_dir,
            self.store,
            self.variant,
            self.net,
            self.iterations,
            self.steps,
            self.games,
            self.positions,
            self.elapsed_secs / 60.0,
            self.final_checkpoint
        );
        if self.interrupted {
            s.push_str("- interrupted (stopped on request): run the same command again to resume\n");
        }
        let t = &self.time;
        s.push_str(&format!(
            "- time since this start: {:.1} minutes wall; self-play {:.0}%, training {:.0}%, evaluation {:.0}% of it (they overlap)\n",
            t.wall_secs / 60.0,
            t.percent(t.selfplay_secs),
            t.percent(t.train_secs),
            t.percent(t.eval_secs)
        ));
        if let Some(b) = &self.best_checkpoint {
            s.push_str(&format!("- best rated checkpoint: `{b}` (see ranking.md)\n"));
        }
        if let Some(l) = &self.last_loss {
            s.push_str(&format!(
                "- last loss: {:.3} (policy {:.3}, value {:.3}), policy entropy {:.3}\n",
                l.losses.loss, l.losses.policy_loss, l.losses.value_loss, l.losses.policy_entropy
            ));
        }
        if !self.final_matches.is_empty() {
            s.push_str("\n## Final evaluation\n\nScore = (W + D/2) / N with its 95% Wilson interval; Elo from the score and its interval.\n\n");
            s.push_str("| player | opponent | games | +W =D -L | score | 95% CI | Elo | Elo 95% CI |\n|---|---|---:|---|---:|---|---:|---|\n");
            for m in &self.final_matches {
                s.push_str(&format!(
                    "| `{}` | `{}` | {} | +{} ={} -{} | {:.1}% | [{:.1}%, {:.1}%] | {:+.0} | [{:+.0}, {:+.0}] |\n",
                    m.player,
                    m.opponent,
                    m.games,
                    m.wins,
                    m.draws,
                    m.losses,
                    100.0 * m.score,
                    100.0 * m.score_low,
                    100.0 * m.score_high,
                    m.elo,
                    m.elo_low,
                    m.elo_high
                ));
            }
        }
        s
    }
}

/// Files of the run directory that are not store artifacts.
pub const INDEX_FILE: &str = "index.sqlite";
pub const SUMMARY_MD: &str = "summary.md";
pub const SUMMARY_JSON: &str = "summary.json";

struct Budget {
    games: u64,
    steps: u64,
    secs: f64,
}

impl Budget {
    fn spent(&self, games: u64, steps: u64, secs: f64) -> Option<&'static str> {
        if self.games > 0 && games >= self.games {
            Some("games")
        } else if self.steps > 0 && steps >= self.steps {
            Some("steps")
        } else if self.secs > 0.0 && secs >= self.secs {
            Some("wall-clock")
        } else {
            None
        }
    }

    /// Fraction done, by the budget closest to its end.
    fn fraction(&self, games: u64, steps: u64, secs: f64) -> f64 {
        let mut f: f64 = 0.0;
        if self.games > 0 {
            f = f.max(games as f64 / self.games as f64);
        }
        if self.steps > 0 {
            f = f.max(steps as f64 / self.steps as f64);
        }
        if self.secs > 0.0 {
            f = f.max(secs / self.secs);
        }
        f.min(1.0)
    }
}

fn progress_bar(show: bool) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(1000), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:25}] {percent:>3}% {msg}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar
}

/// Logs through the bar so that it is redrawn below the line.
pub(crate) fn say(bar: &ProgressBar, text: String) {
    bar.suspend(|| tracing::info!("{text}"));
}

/// A warning through the bar (shown under `-q`, unlike [`say`]).
fn warn(bar: &ProgressBar, text: String) {
    bar.suspend(|| tracing::warn!("{text}"));
}

/// What the progress line shows, updated by the self-play and the training threads.
pub(crate) struct Status {
    pub(crate) bar: ProgressBar,
    budget: Budget,
    started: Instant,
    elapsed_base: f64,
    iteration: AtomicU64,
    games: AtomicU64,
    step: AtomicU64,
    window: AtomicU64,
    doing: Mutex<(String, String)>,
}

impl Status {
    pub(crate) fn elapsed(&self) -> f64 {
        self.elapsed_base + self.started.elapsed().as_secs_f64()
    }

    /// Sets the self-play part (`true`) or the training part of the message, and redraws.
    fn set(&self, selfplay: bool, text: String) {
        {
            let mut d = self.doing.lock().expect("status lock");
            if selfplay {
                d.0 = text;
            } else {
                d.1 = text;
            }
        }
        self.draw();
    }

    fn draw(&self) {
        let (games, step) = (self.games.load(Ordering::Relaxed), self.step.load(Ordering::Relaxed));
        self.bar.set_position((1000.0 * self.budget.fraction(games, step, self.elapsed())) as u64);
        let d = self.doing.lock().expect("status lock");
        let parts: Vec<&str> = [d.0.as_str(), d.1.as_str()].into_iter().filter(|s| !s.is_empty()).collect();
        self.bar.set_message(format!(
            "it {} | {games} games | step {step} | window {} | {}",
            self.iteration.load(Ordering::Relaxed),
            self.window.load(Ordering::Relaxed),
            parts.join(" | ")
        ));
    }
}

/// The loop's state (the learner lives beside it, so that a training thread can own it while
/// self-play runs).
struct Loop {
    config: RunConfig,
    variant: Arc<Variant>,
    device: fairyzero_torch::Device,
    scratch: PathBuf,
    store: Arc<dyn Store>,
    worker: String,
    window: Arc<Mutex<ReplayWindow>>,
    encoding: StandardEncoding,
    mirror_rules: MirrorRules,
    sample_options: SampleOptions,
    metrics: Arc<Mutex<Metrics>>,
    index: Index,
    status: Arc<Status>,
    games: u64,
    positions: u64,
    /// Games and positions played before a `--continue-from` (not in this store).
    continued: (u64, u64),
    iteration: u64,
    step: u64,
    samples_trained: u64,
    /// The checkpoint whose weights play self-play.
    selfplay_checkpoint: String,
    last_checkpoint: String,
    last_stats: Option<StepStats>,
    game_seq: u64,
    /// Games stored while an iteration's training caught up, counted to the next iteration(s)
    /// (they are in the store and the window already).
    pending: std::collections::VecDeque<Taken>,
    /// Self-play, training and gating time of this start (evaluations: the worker's).
    time: TimeSplit,
    /// A learner's hold on the store (checked before each checkpoint is published).
    lease: Option<Lease>,
    /// The steps of the run's checkpoints, ascending (a game's age in checkpoints).
    checkpoint_steps: Vec<u64>,
    /// Games left out of the window as too old (`replay.max_checkpoint_age`), this start.
    stale_games: u64,
}

/// Where an iteration's games come from.
enum Source<'a> {
    /// This process's self-play (`train`).
    Session(&'a mut SelfPlaySession),
    /// The games that workers publish to the store (`learn`).
    Feed(&'a mut StoreFeed),
}

/// What a [`Source`] gave: a game (with its chunk's key when it is in the store already), none
/// within the wait, or the end of the session.
enum Incoming {
    Game(Box<GameRecord>, GameEnd, Option<String>),
    Idle,
    Ended,
}

impl Source<'_> {
    fn next(&mut self, wait: Duration) -> anyhow::Result<Incoming> {
        Ok(match self {
            Source::Session(session) => match session.next(wait) {
                Next::Game(record, end) => Incoming::Game(record, end, None),
                Next::Idle => Incoming::Idle,
                Next::Ended => Incoming::Ended,
            },
            Source::Feed(feed) => match feed.next(wait)? {
                Some((record, key)) => Incoming::Game(record, GameEnd::default(), Some(key)),
                None => Incoming::Idle,
            },
        })
    }

    /// Stops self-play (a failure, the time budget); workers' games simply stop being read.
    fn stop(&self) {
        if let Source::Session(session) = self {
            session.stop.store(true, Ordering::Relaxed);
        }
    }

    /// The session's end and its error, if it failed.
    fn join(&mut self) -> anyhow::Result<()> {
        match self {
            Source::Session(session) => session.join(),
            Source::Feed(_) => Ok(()),
        }
    }
}

/// A game taken from the session: stored and in the window, to be counted to an iteration.
struct Taken {
    /// The game alone (merged into its iteration's summary).
    tally: Summary,
    key: String,
    /// Positions it added to the window.
    positions: u64,
    swapped: bool,
}

/// How the training thread keeps the replay ratio: it may train `samples_per_position` samples
/// per position played in this iteration, and stops once self-play is done and it has caught up.
struct TrainGate {
    new_positions: AtomicU64,
    selfplay_done: AtomicBool,
}

/// What the training thread needs besides the learner.
struct TrainJob {
    window: Arc<Mutex<ReplayWindow>>,
    metrics: Arc<Mutex<Metrics>>,
    status: Arc<Status>,
    batch_size: usize,
    samples_per_position: f64,
    min_steps: u64,
    max_steps: u64,
    min_positions: u64,
    /// Stop at this step (steps budget), if any.
    step_limit: Option<u64>,
    log_every: u64,
    threads: usize,
    /// The run's `precision`, resolved for its device.
    precision: Precision,
}

/// Trains until self-play is done and the replay ratio is met, or `stop` is set (checked before
/// every step: a large replay ratio once trained for minutes after a SIGTERM). Returns every
/// step's stats.
fn train_loop(
    learner: &mut Learner,
    job: &TrainJob,
    gate: &TrainGate,
    rng: &mut ChaCha8Rng,
    stop: &AtomicBool,
) -> Vec<StepStats> {
    if job.threads > 0 {
        fairyzero_torch::set_threads(job.threads);
    }
    let t0 = Instant::now();
    let mut all: Vec<StepStats> = Vec::new();
    let mut recent: Vec<StepStats> = Vec::new();
    let mut idle_since = Instant::now();
    loop {
        if stop.load(Ordering::Relaxed) || job.step_limit.is_some_and(|limit| learner.step() >= limit) {
            break;
        }
        let done = gate.selfplay_done.load(Ordering::Acquire);
        let positions = gate.new_positions.load(Ordering::Acquire);
        let mut allowed = (positions as f64 * job.samples_per_position / job.batch_size as f64).floor() as u64;
        if done {
            allowed = allowed.max(job.min_steps);
        }
        if job.max_steps > 0 {
            allowed = allowed.min(job.max_steps);
        }
        let batch = {
            let window = job.window.lock().expect("window lock");
            job.status.window.store(window.positions(), Ordering::Relaxed);
            if (all.len() as u64) < allowed && window.positions() >= job.min_positions.max(1) {
                Some(window.sampler().batch(job.batch_size, rng))
            } else {
                None
            }
        };
        let Some(batch) = batch else {
            if done {
                break;
            }
            if idle_since.elapsed().as_millis() > 500 {
                job.status.set(false, "training waits for positions".into());
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
            continue;
        };
        learner.progress =
            job.status.budget.fraction(job.status.games.load(Ordering::Relaxed), learner.step(), job.status.elapsed());
        let stats = learner.train_step(&batch, job.precision);
        idle_since = Instant::now();
        all.push(stats);
        recent.push(stats);
        let step = learner.step();
        job.status.step.store(step, Ordering::Relaxed);
        if job.log_every > 0 && step.is_multiple_of(job.log_every) {
            let m = StepStats::mean(&recent);
            recent.clear();
            job.metrics.lock().expect("metrics lock").log(
                "train",
                step,
                job.status.elapsed(),
                json!({ "loss": { "total": m.losses.loss, "policy": m.losses.policy_loss, "value": m.losses.value_loss },
                        "policy_entropy": m.losses.policy_entropy, "target_entropy": m.losses.target_entropy,
                        "grad_norm": m.losses.grad_norm, "lr": m.lr }),
            );
        }
        let secs = t0.elapsed().as_secs_f64().max(1e-9);
        job.status.set(
            false,
            format!(
                "train loss {:.3} (p {:.3} v {:.3}) {:.1} steps/s",
                stats.losses.loss,
                stats.losses.policy_loss,
                stats.losses.value_loss,
                all.len() as f64 / secs
            ),
        );
    }
    all
}

impl Loop {
    fn elapsed(&self) -> f64 {
        self.status.elapsed()
    }

    fn spent(&self) -> Option<&'static str> {
        self.status.budget.spent(self.games, self.step, self.elapsed())
    }

    fn log(&self, kind: &str, step: u64, fields: serde_json::Value) {
        self.metrics.lock().expect("metrics lock").log(kind, step, self.elapsed(), fields);
    }

    fn sync_status(&self) {
        self.status.iteration.store(self.iteration, Ordering::Relaxed);
        self.status.games.store(self.games, Ordering::Relaxed);
        self.status.step.store(self.step, Ordering::Relaxed);
        self.status.window.store(self.window.lock().expect("window lock").positions(), Ordering::Relaxed);
    }

    fn state(&self) -> TrainerState {
        TrainerState {
            iteration: self.iteration,
            games: self.games,
            positions: self.positions,
            samples_trained: self.samples_trained,
            elapsed_secs: self.elapsed(),
        }
    }

    /// Refuses to write what only the store's one learner may write (checkpoints, compactions)
    /// once this learner has lost the store's lease.
    fn check_lease(&self, what: &str) -> anyhow::Result<()> {
        if let Some(why) = self.lease.as_ref().and_then(Lease::lost) {
            bail!("this learner lost the store's lease ({why}); stopping without {what}");
        }
        Ok(())
    }

    fn publish_checkpoint(&mut self, learner: &Learner) -> anyhow::Result<CheckpointManifest> {
        self.check_lease(&format!("publishing step {}", learner.step()))?;
        let manifest = artifacts::publish_checkpoint(
            self.store.as_ref(),
            &learner.net,
            Some(&learner.optimizer),
            learner.step(),
            self.state(),
            &self.scratch,
        )?;
        self.last_checkpoint = manifest.name.clone();
        self.checkpoint_steps.push(manifest.step);
        Ok(manifest)
    }

    /// The self-play net: a copy of the training net when it is the promoted one, otherwise
    /// the promoted checkpoint.
    fn selfplay_net(&self, learner: &Learner) -> anyhow::Result<Net> {
        if self.selfplay_checkpoint == self.last_checkpoint {
            let mut net = Net::new(learner.net.config(), Arc::clone(&self.variant), self.device);
            net.var_store_mut().copy(learner.net.var_store())?;
            return Ok(net);
        }
        let manifests = artifacts::list_checkpoints(self.store.as_ref())?;
        let m = manifests
            .iter()
            .find(|m| m.name == self.selfplay_checkpoint)
            .with_context(|| format!("the self-play checkpoint {} is not in the store", self.selfplay_checkpoint))?;
        let dir = artifacts::checkpoint_dir(self.store.as_ref(), m, &self.scratch.join("cache"))
            .map_err(anyhow::Error::msg)?;
        Ok(checkpoint::load(&dir, Arc::clone(&self.variant), Some(learner.net.config()), self.device, false)?.net)
    }

    /// The run's `precision` on its device.
    fn precision(&self) -> Precision {
        self.config.precision.resolve(self.device.is_cuda())
    }

    /// How the self-play executors run (the first one and every swapped-in one).
    fn executor_options(&self) -> ExecutorOptions {
        crate::session::executor_options(&self.config, self.device)
    }

    fn loader(&self) -> StoreLoader {
        StoreLoader {
            store: Arc::clone(&self.store),
            cache: self.scratch.join("cache"),
            device: self.device,
            inference_threads: (self.config.output.inference_threads > 0)
                .then_some(self.config.output.inference_threads),
            max_batch: self.config.eval.threads.max(1),
            precision: self.precision(),
        }
    }

    /// Replaces the chunks `keys` (an iteration's games; a chunk of several games is named once
    /// per game) by one; returns its key.
    fn compact(&self, keys: Vec<String>) -> anyhow::Result<Option<String>> {
        let mut seen = std::collections::HashSet::new();
        let keys: Vec<String> = keys.into_iter().filter(|k| seen.insert(k.clone())).collect();
        if keys.len() >= 2 {
            self.check_lease("compacting the iteration's games")?;
        }
        artifacts::compact_games(self.store.as_ref(), &keys, &self.worker, &self.scratch)
    }

    /// Whether a game was played by a net too many checkpoints older than the newest
    /// (`replay.max_checkpoint_age`; games of a net that is no checkpoint of this run never are).
    fn is_stale(&self, record: &GameRecord) -> bool {
        is_stale(&record.net, &self.checkpoint_steps, self.config.replay.max_checkpoint_age)
    }

    /// Adds a game's positions to the window (none if it is stale); returns how many.
    fn add_game(&mut self, record: &GameRecord) -> u64 {
        if self.is_stale(record) {
            self.stale_games += 1;
            return 0;
        }
        match game_samples(record, &self.variant, &self.encoding, &self.mirror_rules, &self.sample_options) {
            Ok(samples) => {
                let n = samples.len() as u64;
                let mut window = self.window.lock().expect("window lock");
                window.push(samples);
                self.status.window.store(window.positions(), Ordering::Relaxed);
                n
            }
            Err(e) => {
                tracing::warn!("a game (seed {}) does not replay, skipped: {e}", record.seed);
                0
            }
        }
    }

    fn train_job(&self) -> TrainJob {
        let c = &self.config;
        TrainJob {
            window: Arc::clone(&self.window),
            metrics: Arc::clone(&self.metrics),
            status: Arc::clone(&self.status),
            batch_size: c.train.batch_size,
            samples_per_position: c.iteration.samples_per_position,
            min_steps: c.iteration.min_steps,
            max_steps: c.iteration.max_steps,
            min_positions: c.replay.min_positions,
            step_limit: (c.budget.steps > 0).then_some(c.budget.steps),
            log_every: c.output.log_every_steps,
            threads: c.train.threads,
            precision: self.precision(),
        }
    }

    /// A finished game: published to the store (unless it is there already, under `stored`),
    /// counted in the run's totals, and its positions added to the window.
    fn take_game(&mut self, record: &GameRecord, end: GameEnd, stored: Option<String>) -> anyhow::Result<Taken> {
        let key = match stored {
            Some(key) => key,
            None => {
                self.game_seq += 1;
                artifacts::publish_game(self.store.as_ref(), &self.worker, self.game_seq, record, &self.scratch)
                    .context("publishing a game")?
            }
        };
        self.games += 1;
        let positions = self.add_game(record);
        self.positions += positions;
        self.status.games.store(self.games, Ordering::Relaxed);
        let mut tally = Summary::default();
        tally.add(record);
        Ok(Taken { tally, key, positions, swapped: end.swapped })
    }

    /// While an iteration's training catches up: takes the games the session finishes (so that
    /// a kill loses none of them) and keeps them for the next iteration. Waits up to `wait` for
    /// one. A failure to store one stops the session.
    fn take_for_later(&mut self, source: &mut Source<'_>, wait: Duration) -> anyhow::Result<()> {
        match source.next(wait)? {
            Incoming::Game(record, end, stored) => match self.take_game(&record, end, stored) {
                Ok(taken) => self.pending.push_back(taken),
                Err(e) => {
                    source.stop();
                    return Err(e);
                }
            },
            Incoming::Idle => {}
            // Ended: collect() reports how.
            Incoming::Ended => std::thread::sleep(wait),
        }
        Ok(())
    }

    /// The iteration's share of the session: games (first those stored while the previous
    /// iteration trained, then new ones) are counted to it, and their positions to the training
    /// thread's allowance, until `iteration.games` games or `iteration.positions` positions, a
    /// stop, the time budget, or the session's end (its games budget). The games in progress go
    /// on: the next iteration takes them. Returns the games' summary (its `elapsed` and service
    /// figures are the caller's), their keys and how many of them straddled a net swap.
    fn collect(
        &mut self,
        source: &mut Source<'_>,
        interrupt: &AtomicBool,
        gate: &TrainGate,
    ) -> anyhow::Result<(Summary, Vec<String>, u64)> {
        let (games_target, positions_target) = (self.config.iteration.games, self.config.iteration.positions);
        let (secs_budget, games_budget) = (self.status.budget.secs, self.status.budget.games);
        let verb = if matches!(source, Source::Feed(_)) { "games from workers" } else { "self-play" };
        let t0 = Instant::now();
        let mut summary = Summary::default();
        let mut keys = Vec::new();
        let (mut added, mut swapped) = (0u64, 0u64);
        while !interrupt.load(Ordering::Relaxed) {
            let taken = match self.pending.pop_front() {
                Some(taken) => taken,
                None => {
                    if secs_budget > 0.0 && self.status.elapsed() >= secs_budget {
                        // The budget's end: the games in progress are dropped (the runner's stop).
                        source.stop();
                        break;
                    }
                    // The games budget: a session plays no more; workers may have published more.
                    if games_budget > 0 && self.games >= games_budget {
                        break;
                    }
                    let (record, end, stored) = match source.next(Duration::from_millis(50))? {
                        Incoming::Game(record, end, stored) => (record, end, stored),
                        Incoming::Idle => continue,
                        Incoming::Ended => {
                            // Its games budget is played (or it failed: the error is returned).
                            source.join()?;
                            break;
                        }
                    };
                    match self.take_game(&record, end, stored) {
                        Ok(taken) => taken,
                        Err(e) => {
                            source.stop();
                            return Err(e);
                        }
                    }
                }
            };
            summary.merge(&taken.tally);
            keys.push(taken.key);
            swapped += u64::from(taken.swapped);
            added += taken.positions;
            gate.new_positions.fetch_add(taken.positions, Ordering::Release);
            let secs = t0.elapsed().as_secs_f64().max(1e-9);
            self.status.set(
                true,
                format!("{verb} {:.2} games/s {:.0} pos/s", summary.games as f64 / secs, added as f64 / secs),
            );
            // A learner counts every game it has taken to this iteration: workers may publish
            // far faster than it trains, and games held back would pile up without bound.
            let drain = matches!(source, Source::Feed(_)) && !self.pending.is_empty();
            if !drain && (summary.games >= games_target || (positions_target > 0 && added >= positions_target)) {
                break;
            }
        }
        self.status.set(true, String::new());
        Ok((summary, keys, swapped))
    }

    /// Reads the stored games back: single-game chunks left by a kill (or, for a learner, the
    /// workers' chunks) are compacted first, and only the newest games that fill the window are
    /// replayed into it. Returns the keys of the chunks read and their games.
    fn reload_games(&mut self) -> anyhow::Result<(Vec<String>, Vec<GameRecord>)> {
        let store = self.store.as_ref();
        let singles: Vec<String> = store
            .list(artifacts::GAMES_DIR)?
            .into_iter()
            .map(|o| o.key)
            .filter(|k| artifacts::is_game_chunk(k) && !k.rsplit('-').next().unwrap_or("").starts_with('c'))
            .collect();
        if singles.len() >= 2 {
            artifacts::compact_games(store, &singles, &self.worker, &self.scratch)?;
        }
        let keys: Vec<String> = store.list(artifacts::GAMES_DIR)?.into_iter().map(|o| o.key).collect();
        let (games, skipped) = artifacts::read_games(store, &keys, &self.scratch, true)?;
        for k in &skipped {
            warn(
                &self.status.bar,
                format!("skipped the damaged game chunk {k} (moved to {}<unix ms>/{k})", artifacts::DAMAGED_DIR),
            );
        }
        self.games = self.continued.0 + games.len() as u64;
        self.positions = self.continued.1 + games.iter().map(|g| g.moves.len() as u64).sum::<u64>();
        let mut need = 0u64;
        let mut first = games.len();
        while first > 0 && need < self.config.replay.window_positions {
            first -= 1;
            need += games[first].moves.len() as u64;
        }
        for g in &games[first..] {
            self.add_game(g);
        }
        Ok((keys, games))
    }

    /// An iteration's metrics record and log line.
    fn log_iteration(&self, report: &IterationReport) {
        let (summary, steps, train_secs) = (&report.selfplay, &report.steps, report.train_secs);
        // An iteration without an optimizer step has no losses: null in metrics.jsonl (no
        // TensorBoard point), not zeros that plot as a perfect fit.
        let mean = (!steps.is_empty()).then(|| StepStats::mean(steps));
        let m = mean.as_ref();
        let sp_secs = summary.elapsed.as_secs_f64().max(1e-9);
        let reasons: serde_json::Map<String, serde_json::Value> =
            summary.reasons.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
        let window_positions = self.window.lock().expect("window lock").positions();
        let batch = self.config.train.batch_size;
        self.log(
            "iteration",
            self.step,
            json!({
                "iteration": self.iteration,
                "games": self.games,
                "positions": self.positions,
                "window": window_positions,
                "selfplay": {
                    "games": summary.games, "positions": summary.positions, "secs": sp_secs,
                    "games_per_sec": summary.games as f64 / sp_secs, "positions_per_sec": summary.positions as f64 / sp_secs,
                    "simulations_per_sec": summary.simulations_per_sec(), "mean_length": summary.mean_length(),
                    "first_player_score": summary.first_player_score(), "draw_rate": summary.draws as f64 / summary.games.max(1) as f64,
                    "mean_batch": summary.mean_batch(), "reasons": reasons, "net": report.selfplay_net,
                    "swapped_games": report.swapped_games,
                },
                "train": {
                    "steps": steps.len(), "secs": train_secs, "steps_per_sec": steps.len() as f64 / train_secs.max(1e-9),
                    "samples_per_sec": (steps.len() * batch) as f64 / train_secs.max(1e-9),
                    "loss": { "total": m.map(|m| m.losses.loss), "policy": m.map(|m| m.losses.policy_loss), "value": m.map(|m| m.losses.value_loss) },
                    "policy_entropy": m.map(|m| m.losses.policy_entropy), "target_entropy": m.map(|m| m.losses.target_entropy),
                    "grad_norm": m.map(|m| m.losses.grad_norm), "lr": m.map(|m| m.lr),
                    "mirrored_fraction": m.map(|m| m.mirrored as f64 / (steps.len() * batch).max(1) as f64),
                },
                "eval_queued": report.eval_queued,
                "stale_games": self.stale_games,
                "feed": report.feed,
                "time": report.time.to_json(),
                "iteration_secs": report.started.elapsed().as_secs_f64(),
            }),
        );
        let training = match m {
            Some(m) => format!(
                "{} steps ({:.1}/s) loss {:.3} (policy {:.3}, value {:.3}, entropy {:.2}), lr {:.2e}",
                steps.len(),
                steps.len() as f64 / train_secs.max(1e-9),
                m.losses.loss,
                m.losses.policy_loss,
                m.losses.value_loss,
                m.losses.policy_entropy,
                m.lr
            ),
            None if window_positions < self.config.replay.min_positions => format!(
                "no step yet (window {window_positions} positions, training starts at {})",
                self.config.replay.min_positions
            ),
            None => "no step".to_string(),
        };
        say(
            &self.status.bar,
            format!(
                "iteration {}: {} games ({:.2}/s, {:.0} positions/s, mean length {:.1}, first-player score {:.2}), {training}, checkpoint {}",
                self.iteration,
                summary.games,
                summary.games as f64 / sp_secs,
                summary.positions as f64 / sp_secs,
                summary.mean_length(),
                summary.first_player_score(),
                self.last_checkpoint
            ),
        );
    }
}

/// Removes what a killed earlier start left half-written in the scratch folder: chunks being
/// staged for publication (`chunk-PID…`) and their atomic-write temporaries (`….tmp`). One
/// trainer runs per run directory, so at start nothing there is in use; the checkpoint cache
/// (a folder) is kept.
fn remove_stale_scratch(scratch: &Path) {
    let Ok(entries) = std::fs::read_dir(scratch) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let staged = name.starts_with("chunk-") || name.ends_with(".tmp");
        if staged && entry.file_type().is_ok_and(|t| t.is_file()) {
            match std::fs::remove_file(entry.path()) {
                Ok(()) => tracing::debug!("removed {name}, left in the scratch folder by an earlier start"),
                Err(e) => tracing::warn!("cannot remove {}: {e}", entry.path().display()),
            }
        }
    }
}

/// The run directory's configuration check: a run directory holds one variant and one network.
fn check_compatible(store: &dyn Store, config: &RunConfig) -> anyhow::Result<()> {
    let stored = store.list(artifacts::CONFIG_DIR)?;
    let Some(first) = stored.first() else { return Ok(()) };
    let text = String::from_utf8_lossy(&store.get(&first.key)?).into_owned();
    let Ok(old) = RunConfig::parse(&first.key, &text, &[]) else {
        tracing::warn!("the stored configuration {} does not parse any more; not checking compatibility", first.key);
        return Ok(());
    };
    let mut problems = Vec::new();
    if old.variant != config.variant {
        problems.push(format!("variant {:?} (now {:?})", old.variant, config.variant));
    }
    if old.net.resolve().ok() != config.net.resolve().ok() {
        problems.push(format!("net {:?} (now {:?})", old.net.size, config.net.size));
    }
    if !problems.is_empty() {
        bail!(
            "the run in {} was started with {}; use another run_dir (or -o run_dir=…) for a different run",
            store.url(),
            problems.join(" and ")
        );
    }
    Ok(())
}

/// Runs (or resumes) a training run to the end of its budget.
pub fn train(config: RunConfig, options: &TrainOptions) -> anyhow::Result<RunSummary> {
    let mut run = Run::open(config, options)?;
    while run.goes_on() {
        run.iteration()?;
    }
    run.finish()
}

/// A run from its start to its summary: the loop's state, the learner beside it (the training
/// thread borrows it while self-play borrows the loop), and what the matches need.
struct Run {
    lp: Loop,
    learner: Learner,
    rng: ChaCha8Rng,
    loader: StoreLoader,
    run_dir: PathBuf,
    arch: NetConfig,
    stop: Arc<AtomicBool>,
    /// The budget that ran out, checked after the start and after every iteration.
    spent: Option<&'static str>,
    /// The run's self-play, started by the first iteration (dropped before the lock: it joins
    /// its thread).
    selfplay: Option<SelfPlaySession>,
    /// A learner's games: what the workers publish (instead of `selfplay`).
    feed: Option<StoreFeed>,
    /// Evaluations on their own thread (dropped before the lock: it joins the thread).
    evals: EvalWorker,
    /// Held until the run ends: one `train` process per run directory.
    _lock: RunLock,
}

/// What one iteration measured, for its metrics line.
struct IterationReport {
    started: Instant,
    /// The checkpoint whose weights played the iteration's self-play.
    selfplay_net: String,
    selfplay: Summary,
    /// Of the iteration's games, those that a net swap happened during.
    swapped_games: u64,
    steps: Vec<StepStats>,
    train_secs: f64,
    /// The checkpoint whose evaluation this iteration queued, if any.
    eval_queued: Option<String>,
    /// This iteration's time split (evaluation: the worker's time within it, and gating).
    time: TimeSplit,
    /// A learner's reading of the store so far: listings, keys listed, damaged chunks.
    feed: Option<serde_json::Value>,
}

impl Run {
    /// Opens the run directory and its store, resumes from the newest sound checkpoint (else a
    /// fresh or transferred net, published as step 0), reads the stored games back into the
    /// window and queues the evaluation of the untrained net (and of due checkpoints that have
    /// none stored).
    fn open(config: RunConfig, options: &TrainOptions) -> anyhow::Result<Run> {
        let variant =
            Variant::load(&config.variant).with_context(|| format!("loading the variant {}", config.variant))?;
        let device = parse_device(&config.device)?;
        // Before anything is written: libtorch would panic on the first tensor.
        fairyzero_torch::require_device(device).with_context(|| format!("device = {:?}", config.device))?;
        let run_dir = absolute(&config.run_dir);
        std::fs::create_dir_all(&run_dir)
            .with_context(|| format!("creating the run directory {}", run_dir.display()))?;
        let lock = RunLock::acquire(&run_dir)?;
        let backend = ObjectStoreBackend::open(&config.store_url())?;
        let learner_options = match &options.role {
            Role::Whole => None,
            Role::Learner(o) => Some(o.clone()),
        };
        // Writes that a kill cut short between staging and renaming (run-directory lock: keep this
        // after it, since another process's writes in flight look the same). A learner's store
        // is shared with workers, whose writes are in flight: only old leftovers go.
        let staged = match &learner_options {
            None => backend.remove_staged()?,
            Some(_) => backend.remove_staged_older_than(STAGED_LEFTOVER_AGE)?,
        };
        if !staged.is_empty() {
            tracing::info!("removed {} unfinished write(s) left by an earlier kill", staged.len());
        }
        let store: Arc<dyn Store> = Arc::new(backend);
        // One learner per store, before anything is written to it.
        let lease = match &learner_options {
            None => None,
            Some(o) => Some(Lease::acquire(Arc::clone(&store), &artifacts::worker_id(), o.lease_ttl)?),
        };
        if learner_options.is_some() {
            // A run whose budget was raised after it finished: its workers may play again.
            store.delete(FINISHED_FILE)?;
        }
        check_compatible(store.as_ref(), &config)?;
        let variant_recorded = artifacts::check_variant_record(store.as_ref(), &variant, &config.variant)?;
        let transferred = match &options.transfer {
            None => None,
            Some(source) => {
                if let Some(last) = artifacts::list_checkpoints(store.as_ref())?.last() {
                    bail!(
                        "--transfer starts a new run, but {} already has checkpoints (the last is {}); \
                         pass another run_dir (-o run_dir=NEW_DIR), or drop --transfer to resume this run",
                        store.url(),
                        last.name
                    );
                }
                let arch = config.net.resolve()?;
                let loaded = checkpoint::load(source, Arc::clone(&variant), Some(&arch), device, true)
                    .with_context(|| format!("--transfer {}", source.display()))?;
                Some((source.clone(), loaded))
            }
        };
        let continuing = match &options.continue_from {
            None => None,
            Some(source) => {
                if options.transfer.is_some() {
                    bail!(
                        "--continue-from and --transfer exclude each other: continue a run, or start a new one from a net"
                    );
                }
                if let Some(last) = artifacts::list_checkpoints(store.as_ref())?.last() {
                    bail!(
                        "--continue-from goes into a run directory without checkpoints, but {} has some (the last is {}); \
                         pass another run_dir (-o run_dir=NEW_DIR), or drop --continue-from to resume this run",
                        store.url(),
                        last.name
                    );
                }
                // Everything is checked before the store is written: files, rules, architecture.
                let manifest = artifacts::read_checkpoint_folder(source, "--continue-from")?;
                let arch = config.net.resolve()?;
                let loaded = checkpoint::load(source, Arc::clone(&variant), Some(&arch), device, false)
                    .with_context(|| format!("--continue-from {}", source.display()))?;
                if loaded.header.optimizer.is_none() {
                    bail!(
                        "--continue-from {}: the checkpoint has no optimizer state; use --transfer to start a new run from its weights",
                        source.display()
                    );
                }
                Some((source, manifest))
            }
        };
        // Before the configuration is recorded: a start refused for a bad index changes nothing.
        let index_path = run_dir.join(INDEX_FILE);
        let mut index = if options.rebuild_index {
            // Whatever the file holds, garbage included: the store has everything.
            Index::recreate(&index_path)?
        } else {
            Index::open(&index_path).context("opening the run's index (--rebuild-index rebuilds it from the store)")?
        };
        let resolved = config.to_toml();
        // Recorded as written (0: "the cores self-play leaves"), resolved for this machine.
        let mut config = config;
        config.eval.cpu_threads = config.eval_cpu_threads();
        store.publish(
            &format!("{}{:013}.toml", artifacts::CONFIG_DIR, artifacts::unix_ms()),
            resolved.clone().into_bytes(),
        )?;
        std::fs::write(run_dir.join("config.toml"), &resolved)?;
        let scratch = run_dir.join(".scratch");
        std::fs::create_dir_all(&scratch)?;
        remove_stale_scratch(&scratch);
        let arch = config.net.resolve()?;
        let stop = options.stop.clone().unwrap_or_else(|| Arc::new(AtomicBool::new(false)));
        let bar = progress_bar(config.output.progress);
        let metrics = Metrics::open(&run_dir, config.output.tensorboard)?;
        if options.rebuild_index {
            let r = index.rebuild(store.as_ref())?;
            say(
                &bar,
                format!(
                    "index rebuilt from the store: {} checkpoints, {} match files",
                    r.checkpoints_added, r.match_files_added
                ),
            );
        }

        let continued_from = match continuing {
            Some((source, m)) => {
                artifacts::import_checkpoint(store.as_ref(), source, &m)?;
                artifacts::record_continuation(store.as_ref(), source, &m)?;
                say(
                    &bar,
                    format!(
                        "continuing from {} ({}, iteration {}, {:.1} h of training): the replay window \
                         starts empty and self-play refills it before training resumes",
                        source.display(),
                        m.name,
                        m.state.iteration,
                        m.state.elapsed_secs / 3600.0
                    ),
                );
                Some(source.display().to_string())
            }
            None => None,
        };
        let resumed = resume(store.as_ref(), &config, &variant, &arch, device, &bar)?;
        if !variant_recorded {
            artifacts::record_variant(store.as_ref(), &variant)?;
        }
        let manifests = artifacts::list_checkpoints(store.as_ref())?;
        let fresh = resumed.is_none();
        let mut transferred_from = None;
        let (learner, state, last_checkpoint) = match resumed {
            Some((l, m)) => (l, m.state.clone(), m.name.clone()),
            None => {
                let net = match transferred {
                    Some((source, loaded)) => {
                        let report = loaded.transfer.unwrap_or_default();
                        say(
                            &bar,
                            format!(
                                "warm start from {} (variant {}, {} net): {report}",
                                source.display(),
                                loaded.header.variant.name,
                                loaded.header.architecture
                            ),
                        );
                        transferred_from = Some((source.display().to_string(), report));
                        loaded.net
                    }
                    None => {
                        fairyzero_torch::manual_seed(config.seed);
                        Net::new(&arch, Arc::clone(&variant), device)
                    }
                };
                (Learner::new(net, config.train.clone()), TrainerState::default(), String::new())
            }
        };

        let mirror_rules = MirrorRules::new(&variant);
        let status = Arc::new(Status {
            bar: bar.clone(),
            budget: Budget {
                games: config.budget.games,
                steps: config.budget.steps,
                secs: config.budget.minutes * 60.0,
            },
            started: Instant::now(),
            elapsed_base: state.elapsed_secs,
            iteration: AtomicU64::new(0),
            games: AtomicU64::new(0),
            step: AtomicU64::new(0),
            window: AtomicU64::new(0),
            doing: Mutex::new((String::new(), String::new())),
        });
        let mut lp = Loop {
            encoding: StandardEncoding::new(Arc::clone(&variant)),
            sample_options: SampleOptions {
                search_value_weight: config.replay.search_value_weight,
                mirror: config.replay.mirror == MirrorMode::Auto && mirror_rules.any(),
            },
            mirror_rules,
            window: Arc::new(Mutex::new(ReplayWindow::new(
                config.replay.window_positions,
                config.replay.game_weight_cap,
            ))),
            variant: Arc::clone(&variant),
            device,
            scratch,
            store: Arc::clone(&store),
            worker: artifacts::worker_id(),
            metrics: Arc::new(Mutex::new(metrics)),
            index,
            status,
            games: 0,
            positions: 0,
            continued: artifacts::read_continuation(store.as_ref())?.map_or((0, 0), |c| (c.games, c.positions)),
            iteration: state.iteration,
            step: learner.step(),
            samples_trained: state.samples_trained,
            selfplay_checkpoint: last_checkpoint.clone(),
            last_checkpoint,
            last_stats: None,
            game_seq: 0,
            pending: Default::default(),
            time: TimeSplit::default(),
            checkpoint_steps: manifests.iter().map(|m| m.step).collect(),
            stale_games: 0,
            lease,
            config,
        };
        let (read, games) = lp.reload_games()?;
        let feed = learner_options
            .map(|o| StoreFeed::new(Arc::clone(&lp.store), lp.scratch.clone(), read, &games, o.poll, o.grace));
        drop(games);

        if fresh {
            let m = lp.publish_checkpoint(&learner)?;
            lp.selfplay_checkpoint = m.name.clone();
        } else if lp.config.eval.gating == Gating::Sprt {
            lp.selfplay_checkpoint = promoted_checkpoint(store.as_ref(), &manifests)?;
        }
        lp.sync_status();
        let sync = lp.index.sync(store.as_ref())?;
        for s in sync.skipped.iter().take(3) {
            warn(&bar, s.to_string());
        }
        let loader = lp.loader();
        let rng = ChaCha8Rng::seed_from_u64(lp.config.seed ^ lp.step.wrapping_mul(0x2545_F491_4F6C_DD1D));
        let evals = EvalWorker::start(EvalContext {
            variant: Arc::clone(&lp.variant),
            store: Arc::clone(&lp.store),
            loader: lp.loader(),
            config: lp.config.eval.clone(),
            selfplay: lp.config.selfplay.clone(),
            seed: lp.config.seed,
            run_dir: run_dir.clone(),
            stop: Arc::clone(&stop),
            metrics: Arc::clone(&lp.metrics),
            status: Arc::clone(&lp.status),
        });
        let mut run = Run {
            lp,
            learner,
            rng,
            loader,
            run_dir,
            arch,
            stop,
            spent: None,
            selfplay: None,
            feed,
            evals,
            _lock: lock,
        };
        run.log_start(fresh, transferred_from, continued_from, &manifests);

        // The untrained net is the first point of the rating curve; it is rated beside the first
        // iteration, not before it. Evaluations a stop cut short are queued again.
        if run.lp.config.eval.every > 0 {
            for name in unevaluated(store.as_ref(), run.lp.config.eval.every)? {
                run.evals.enqueue(&name);
            }
        }
        run.spent = run.lp.spent();
        Ok(run)
    }

    /// The start's log line and metrics record, and the metrics lines a kill lost.
    fn log_start(
        &self,
        fresh: bool,
        transferred_from: Option<(String, TransferReport)>,
        continued_from: Option<String>,
        manifests: &[CheckpointManifest],
    ) {
        let lp = &self.lp;
        let window_positions = lp.window.lock().expect("window lock").positions();
        say(
            &lp.status.bar,
            format!(
                "{} {} in {}: step {}, iteration {}, {} games ({} positions) in the store, window {} positions, net {} ({} parameters) on {:?}",
                if fresh { "starting" } else { "resuming" },
                lp.variant.name,
                self.run_dir.display(),
                lp.step,
                lp.iteration,
                lp.games,
                lp.positions,
                window_positions,
                self.arch,
                self.learner.net.parameter_count(),
                lp.device
            ),
        );
        // A kill between a checkpoint's publish and its iteration's metrics line loses the line:
        // write what the manifest recorded for every checkpoint newer than the last logged
        // iteration, marked `recovered` (the iteration's self-play and training figures are gone).
        let last_logged = crate::metrics::last_logged_iteration(&self.run_dir);
        for m in manifests.iter().filter(|m| m.state.iteration > last_logged.unwrap_or(0)) {
            lp.metrics.lock().expect("metrics lock").log(
                "iteration",
                m.step,
                m.state.elapsed_secs,
                json!({ "iteration": m.state.iteration, "games": m.state.games, "positions": m.state.positions,
                        "checkpoint": m.name, "recovered": true }),
            );
        }
        let transfer_json = transferred_from.as_ref().map(|(source, report)| {
            json!({ "from": source, "variables_copied": report.copied.len(),
                    "pieces_matched": report.pieces.iter().filter(|p| p.1.is_some()).count(),
                    "pieces": report.pieces.len(), "fresh_shape_changed": report.mismatched.len(),
                    "fresh_new": report.missing.len(), "unused": report.unused.len() })
        });
        lp.log(
            "start",
            lp.step,
            json!({ "resumed_from": if fresh { serde_json::Value::Null } else { json!(lp.last_checkpoint) },
                    "transfer": transfer_json, "continued_from": continued_from,
                    "build": { "version": env!("CARGO_PKG_VERSION"), "commit": build_commit() },
                    "games": lp.games, "positions": lp.positions, "window": window_positions,
                    "variant": lp.variant.name, "net": self.arch.to_string(),
                    "parameters": self.learner.net.parameter_count(),
                    "store": lp.store.url(), "mirror": lp.sample_options.mirror }),
        );
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Neither a budget is spent nor a stop requested.
    fn goes_on(&self) -> bool {
        self.spent.is_none() && !self.stopped()
    }

    /// The run's match driver (borrowing the loader and the evaluation settings).
    fn matches(&self) -> CheckpointMatches<'_> {
        CheckpointMatches {
            variant: Arc::clone(&self.lp.variant),
            store: Arc::clone(&self.lp.store),
            loader: &self.loader,
            config: &self.lp.config.eval,
            selfplay: &self.lp.config.selfplay,
            seed: self.lp.config.seed,
            run_dir: self.run_dir.clone(),
            stop: Some(Arc::clone(&self.stop)),
        }
    }

    /// A match (or evaluation) cut short by a stop request is no failure: `None`, and the run
    /// ends as asked. Its games are not stored, so the next start plays it again in full.
    fn unless_stopped<T>(&self, result: anyhow::Result<T>) -> anyhow::Result<Option<T>> {
        match result {
            Err(e) if self.stopped() => {
                say(&self.lp.status.bar, format!("stopped on request during evaluation ({e:#})"));
                Ok(None)
            }
            other => other.map(Some),
        }
    }

    /// One iteration: self-play and training (steps 1-3 of the module's outline), checkpoint
    /// and promotion (4-5), evaluation (6), metrics (7).
    fn iteration(&mut self) -> anyhow::Result<()> {
        let started = Instant::now();
        let time_before = self.time_split();
        let selfplay_net = self.lp.selfplay_checkpoint.clone();
        self.lp.status.iteration.store(self.lp.iteration + 1, Ordering::Relaxed);
        let (selfplay, swapped_games, steps, train_secs) = self.play_and_train()?;
        self.lp.step = self.learner.step();
        self.lp.samples_trained += (steps.len() * self.lp.config.train.batch_size) as u64;
        self.lp.iteration += 1;
        self.lp.sync_status();
        if !steps.is_empty() {
            let m = self.lp.publish_checkpoint(&self.learner)?;
            match self.lp.config.eval.gating {
                Gating::Always => self.lp.selfplay_checkpoint = m.name.clone(),
                // Stopped within seconds: no match now; the next iteration's checkpoint is gated.
                Gating::Sprt if self.stopped() => {}
                Gating::Sprt => {
                    let t0 = Instant::now();
                    let result = self.gate(&m.name);
                    self.lp.time.eval_secs += t0.elapsed().as_secs_f64();
                    self.unless_stopped(result)?;
                }
            }
            self.lp.last_stats = Some(StepStats::mean(&steps));
        }
        let mut eval_queued = None;
        let every = self.lp.config.eval.every;
        if every > 0 && self.lp.iteration.is_multiple_of(every) && !steps.is_empty() && !self.stopped() {
            let name = self.lp.last_checkpoint.clone();
            self.evals.enqueue(&name);
            eval_queued = Some(name);
        }
        if let Some(e) = self.evals.take_error() {
            return Err(e);
        }
        let now = self.time_split();
        let time = TimeSplit {
            selfplay_secs: now.selfplay_secs - time_before.selfplay_secs,
            train_secs: now.train_secs - time_before.train_secs,
            eval_secs: now.eval_secs - time_before.eval_secs,
            wall_secs: started.elapsed().as_secs_f64(),
        };
        let feed = self.feed.as_ref().map(|f| {
            json!({ "listings": f.listings, "listed_keys": f.listed_keys, "damaged_chunks": f.damaged.len(),
                    "duplicates": f.duplicates, "games_per_worker": f.per_worker })
        });
        let report = IterationReport {
            started,
            selfplay_net,
            selfplay,
            swapped_games,
            steps,
            train_secs,
            eval_queued,
            time,
            feed,
        };
        self.lp.log_iteration(&report);
        if let Err(e) = self.lp.index.sync_results(self.lp.store.as_ref()) {
            warn(&self.lp.status.bar, format!("index sync failed: {e}"));
        }
        self.spent = self.lp.spent();
        if report.selfplay.games == 0 && report.steps.is_empty() && self.goes_on() {
            bail!("an iteration finished no game and no training step; stopping");
        }
        Ok(())
    }

    /// Self-play's share of the iteration (the session started by the first iteration, with
    /// the newly promoted net swapped in) and training on the window, on two threads (or one
    /// after the other: the session plays on meanwhile); the iteration's games end up
    /// compacted into one chunk. Returns the self-play summary (its time: the iteration's,
    /// during all of which the session played), the games that straddled a swap, every step's
    /// stats and the training time.
    fn play_and_train(&mut self) -> anyhow::Result<(Summary, u64, Vec<StepStats>, f64)> {
        let t0 = Instant::now();
        let gate = TrainGate { new_positions: AtomicU64::new(0), selfplay_done: AtomicBool::new(false) };
        let job = self.lp.train_job();
        let concurrent = self.lp.config.iteration.concurrent;
        let Run { lp, learner, rng, stop, selfplay, feed, .. } = self;
        let mut source = match feed {
            Some(feed) => Source::Feed(feed),
            None => Source::Session(match selfplay {
                Some(session) => {
                    if session.net.get() != lp.selfplay_checkpoint {
                        session.swap(lp.selfplay_net(learner)?, &lp.selfplay_checkpoint);
                    }
                    session
                }
                None => {
                    let budget = lp.status.budget.games;
                    let plan = SessionPlan {
                        net: lp.selfplay_checkpoint.clone(),
                        games: if budget > 0 { budget.saturating_sub(lp.games) } else { u64::MAX },
                        // Distinct per restart: the game count only grows.
                        seed: lp.config.seed ^ (lp.games.wrapping_add(1)).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                    };
                    let net = lp.selfplay_net(learner)?;
                    let session = SelfPlaySession::start(
                        &lp.variant,
                        &lp.config,
                        net,
                        plan,
                        lp.executor_options(),
                        Arc::clone(stop),
                    )?;
                    selfplay.insert(session)
                }
            }),
        };
        let service_before = match &source {
            Source::Session(session) => Some(session.service.stats()),
            Source::Feed(_) => None,
        };
        let interrupt: &AtomicBool = stop;
        // Training runs on its own thread, from the start (`iteration.concurrent`) or once the
        // iteration's games are in; either way this thread stores the games that the session
        // finishes meanwhile, for the next iteration.
        let (collected, steps, train_secs) = std::thread::scope(|scope| {
            let (job, gate_ref) = (&job, &gate);
            let spawn = move || {
                std::thread::Builder::new()
                    .name("train".into())
                    .spawn_scoped(scope, move || {
                        let t0 = Instant::now();
                        let steps = train_loop(learner, job, gate_ref, rng, interrupt);
                        (steps, t0.elapsed().as_secs_f64())
                    })
                    .expect("cannot start the training thread")
            };
            let (trainer, mut result) = if concurrent {
                let trainer = spawn();
                (trainer, lp.collect(&mut source, interrupt, &gate))
            } else {
                let result = lp.collect(&mut source, interrupt, &gate);
                gate.selfplay_done.store(true, Ordering::Release);
                (spawn(), result)
            };
            gate.selfplay_done.store(true, Ordering::Release);
            while result.is_ok() && !trainer.is_finished() {
                if let Err(e) = lp.take_for_later(&mut source, Duration::from_millis(20)) {
                    result = Err(e);
                }
            }
            let (steps, secs) = trainer.join().expect("the training thread panicked");
            (result, steps, secs)
        });
        lp.time.train_secs += train_secs;
        let (mut summary, keys, swapped) = collected?;
        summary.elapsed = t0.elapsed();
        if let (Source::Session(session), Some(before)) = (&source, service_before) {
            let service = session.service.stats().since(&before);
            summary.backend_busy = service.busy;
            summary.service = Some(service);
        }
        lp.time.selfplay_secs += summary.elapsed.as_secs_f64();
        let compacted = lp.compact(keys)?;
        if let (Some(key), Source::Feed(feed)) = (compacted, &mut source) {
            feed.mark_read(key);
        }
        Ok((summary, swapped, steps, train_secs))
    }

    /// Ends the self-play session: the games in progress are dropped, the ones finished and
    /// not yet taken are published (into one chunk), so that every finished game is kept.
    fn stop_selfplay(&mut self) -> anyhow::Result<()> {
        let mut keys: Vec<String> = self.lp.pending.drain(..).map(|t| t.key).collect();
        if let Some(mut session) = self.selfplay.take() {
            session.stop.store(true, Ordering::Relaxed);
            // Ends when the session's thread does, within a batch of the stop.
            for (record, end) in session.drain() {
                keys.push(self.lp.take_game(&record, end, None)?.key);
            }
            session.join()?;
        }
        let n = keys.len();
        if let (Some(key), Some(feed)) = (self.lp.compact(keys)?, &mut self.feed) {
            feed.mark_read(key);
        }
        if n > 0 && self.feed.is_none() {
            say(
                &self.lp.status.bar,
                format!("{n} game(s) finished after the last iteration's were stored for the next start"),
            );
        }
        Ok(())
    }

    /// The final evaluation of the last checkpoint, the ranking and the summary files.
    fn finish(mut self) -> anyhow::Result<RunSummary> {
        let bar = self.lp.status.bar.clone();
        self.stop_selfplay()?;
        if let Some(what) = self.spent {
            if self.feed.is_some() {
                // The workers stop; the final evaluation needs none of them.
                let marker = json!({ "step": self.lp.step, "games": self.lp.games, "budget": what,
                                     "unix_ms": artifacts::unix_ms() });
                match self.lp.store.publish(FINISHED_FILE, serde_json::to_vec_pretty(&marker)?) {
                    Ok(()) | Err(crate::store::StoreError::Exists { .. }) => {}
                    Err(e) => return Err(e.into()),
                }
            }
            say(&bar, format!("the {what} budget is spent"));
        } else {
            say(&bar, "stopped on request".into());
        }
        let pending = self.evals.pending();
        if pending > 0 {
            self.lp.status.set(true, format!("waiting for {pending} evaluation(s)"));
            self.evals.wait_idle();
            self.lp.status.set(true, String::new());
        }
        if let Some(e) = self.evals.take_error() {
            return Err(e);
        }
        let t0 = Instant::now();
        let final_matches = self.final_evaluation()?;
        self.lp.time.eval_secs += t0.elapsed().as_secs_f64();
        let ranking = self.matches().rank(1000).ok();
        let _ = self.lp.index.sync(self.lp.store.as_ref());
        bar.finish_and_clear();
        let lp = &self.lp;
        let summary = RunSummary {
            run_dir: self.run_dir.display().to_string(),
            store: lp.store.url(),
            variant: lp.variant.name.clone(),
            net: self.arch.to_string(),
            steps: lp.step,
            iterations: lp.iteration,
            games: lp.games,
            positions: lp.positions,
            elapsed_secs: lp.elapsed(),
            final_checkpoint: lp.last_checkpoint.clone(),
            best_checkpoint: ranking.and_then(|r| r.best),
            final_matches,
            last_loss: lp.last_stats,
            interrupted: self.stopped(),
            time: self.time_split(),
        };
        std::fs::write(self.run_dir.join(SUMMARY_MD), summary.to_markdown())?;
        std::fs::write(self.run_dir.join(SUMMARY_JSON), serde_json::to_string_pretty(&summary)? + "\n")?;
        Ok(summary)
    }

    /// Matches of the last checkpoint against the final opponents (none when stopped or when
    /// nothing was trained).
    fn final_evaluation(&self) -> anyhow::Result<Vec<MatchSummary>> {
        let mut final_matches = Vec::new();
        let fin = &self.lp.config.eval.final_eval;
        if fin.games == 0 || self.stopped() || self.lp.step == 0 {
            return Ok(final_matches);
        }
        let matches = self.matches();
        let name = self.lp.last_checkpoint.clone();
        let me = matches.contestant(&checkpoint_player(&name, fin.simulations))?;
        let manifests = manifests_now(self.lp.store.as_ref())?;
        for o in &fin.opponents {
            let Some(opp) = opponent(&matches, o, &name, &manifests, fin.simulations)? else { continue };
            self.lp.status.set(true, format!("final evaluation vs {}", opp.name));
            let label = format!("final-{name}-vs-{}", label_of(&opp.name));
            let t0 = Instant::now();
            let Some(report) = self.unless_stopped(matches.play(&me, &opp, fin.games, &label))? else {
                break;
            };
            let s = MatchSummary::from_report(&report);
            say(&self.lp.status.bar, format!("final: {} ({:.0} s)", s.line(), t0.elapsed().as_secs_f64()));
            final_matches.push(s);
        }
        if !self.stopped() {
            self.lp.log("final", self.lp.step, json!({ "matches": final_matches }));
        }
        Ok(final_matches)
    }

    /// This start's time split so far (evaluation: the worker's jobs, gating, final).
    fn time_split(&self) -> TimeSplit {
        TimeSplit {
            eval_secs: self.lp.time.eval_secs + self.evals.busy_secs(),
            wall_secs: self.lp.status.started.elapsed().as_secs_f64(),
            ..self.lp.time
        }
    }

    /// SPRT gating of a new checkpoint against the self-play net; the decision is stored.
    fn gate(&mut self, name: &str) -> anyhow::Result<()> {
        let lp = &self.lp;
        let matches = self.matches();
        let sims = lp.config.eval.simulations;
        let candidate = matches.contestant(&checkpoint_player(name, sims))?;
        let best = matches.contestant(&checkpoint_player(&lp.selfplay_checkpoint, sims))?;
        let label = format!("gate-{name}-vs-{}", lp.selfplay_checkpoint);
        let (report, status) = matches.gate(&candidate, &best, &lp.config.eval.sprt, &label)?;
        let promoted = status.decision == Some(fairyzero_evaluator::SprtDecision::AcceptH1);
        let decision = json!({ "checkpoint": name, "against": lp.selfplay_checkpoint, "promoted": promoted,
            "wins": report.wins, "draws": report.draws, "losses": report.losses, "llr": status.llr });
        let _ =
            lp.store.publish(&format!("{}{name}.json", artifacts::GATING_DIR), serde_json::to_vec_pretty(&decision)?);
        say(
            &lp.status.bar,
            format!(
                "gating {name} vs {}: +{} ={} -{}, LLR {:.2}: {}",
                lp.selfplay_checkpoint,
                report.wins,
                report.draws,
                report.losses,
                status.llr,
                if promoted { "promoted" } else { "kept the current net" }
            ),
        );
        if promoted {
            self.lp.selfplay_checkpoint = name.to_string();
        }
        Ok(())
    }
}

/// The commit this program was built from (`make build` sets `FAIRYZERO_COMMIT`: `git
/// describe --always --dirty`), recorded in each start so that a net's provenance names the
/// code that trained it; `None` for builds outside make.
fn build_commit() -> Option<&'static str> {
    option_env!("FAIRYZERO_COMMIT").filter(|c| !c.is_empty())
}

/// The newest checkpoint that checks out, loaded for training. Damage (an unreadable file, a
/// failed checksum) is moved aside; a sound checkpoint that does not load (other rules,
/// architecture, device) is an error, and nothing is moved.
fn resume(
    store: &dyn Store,
    config: &RunConfig,
    variant: &Arc<Variant>,
    arch: &NetConfig,
    device: fairyzero_torch::Device,
    bar: &ProgressBar,
) -> anyhow::Result<Option<(Learner, CheckpointManifest)>> {
    let cache = absolute(&config.run_dir).join(".scratch").join("cache");
    for m in artifacts::list_checkpoints(store)?.iter().rev() {
        let attempt = (|| -> Result<Learner, (bool, anyhow::Error)> {
            let dir = artifacts::checkpoint_dir(store, m, &cache).map_err(|e| (true, anyhow::Error::msg(e)))?;
            let fault = |e: checkpoint::CheckpointError| (e.is_damage(), anyhow::Error::new(e));
            let loaded = checkpoint::load(&dir, Arc::clone(variant), Some(arch), device, false).map_err(fault)?;
            let mut learner = Learner::new(loaded.net, config.train.clone());
            if let Some(record) = &loaded.header.optimizer {
                learner.optimizer.load(&dir, record).map_err(fault)?;
            }
            Ok(learner)
        })();
        match attempt {
            Ok(l) => return Ok(Some((l, m.clone()))),
            Err((true, e)) => {
                let moved = artifacts::quarantine(store, &format!("{}/", artifacts::checkpoint_prefix(&m.name)))?;
                let place = moved.first().map_or_else(
                    || artifacts::DAMAGED_DIR.to_string(),
                    |k| k[..k.find(artifacts::CHECKPOINTS_DIR).unwrap_or(k.len())].to_string(),
                );
                warn(
                    bar,
                    format!(
                        "checkpoint {} is damaged and skipped: {e:#}; its files are in {place}{} under their own names \
                         (move that folder back into checkpoints/ to restore it)",
                        m.name,
                        artifacts::checkpoint_prefix(&m.name)
                    ),
                );
            }
            Err((false, e)) => {
                return Err(e.context(format!(
                    "resuming {} from checkpoint {} (nothing was moved)",
                    absolute(&config.run_dir).display(),
                    m.name
                )));
            }
        }
    }
    Ok(None)
}

/// Checkpoints due for an evaluation (step 0, and every `every`-th iteration's) that have no
/// stored evaluation match yet, oldest first: a new run's step 0, and what a stop cut short.
fn unevaluated(store: &dyn Store, every: u64) -> anyhow::Result<Vec<String>> {
    let stored: Vec<String> = store.list(artifacts::MATCHES_DIR)?.into_iter().map(|o| o.key).collect();
    Ok(artifacts::list_checkpoints(store)?
        .into_iter()
        .filter(|m| m.step == 0 || (m.state.iteration > 0 && m.state.iteration.is_multiple_of(every)))
        .filter(|m| {
            let prefix = artifacts::match_key(&format!("eval-{}-vs-", m.name));
            let prefix = prefix.trim_end_matches(".jsonl");
            !stored.iter().any(|k| k.starts_with(prefix))
        })
        .map(|m| m.name)
        .collect())
}

pub(crate) fn manifests_now(store: &dyn Store) -> anyhow::Result<Vec<CheckpointManifest>> {
    Ok(artifacts::list_checkpoints(store)?)
}

/// A label-safe short name of a player.
pub(crate) fn label_of(name: &str) -> String {
    name.trim_start_matches(artifacts::CHECKPOINTS_DIR).replace(['@', ':', '/', '='], "_")
}

/// The contestant for an opponent keyword, or `None` when it does not apply (no previous
/// checkpoint yet, or the checkpoint itself).
pub(crate) fn opponent(
    matches: &CheckpointMatches<'_>,
    spec: &Opponent,
    me: &str,
    manifests: &[CheckpointManifest],
    simulations: u32,
) -> anyhow::Result<Option<Contestant>> {
    let step = artifacts::checkpoint_step(me).unwrap_or(0);
    let name = match spec {
        Opponent::Step0 => Some(artifacts::checkpoint_name(0)),
        Opponent::Previous => previous_evaluated(matches.store.as_ref(), manifests, step)?,
        Opponent::Baseline(baseline) => return Ok(Some(matches.contestant(baseline)?)),
    };
    match name {
        Some(n) if n != me && manifests.iter().any(|m| m.name == n) => {
            Ok(Some(matches.contestant(&checkpoint_player(&n, simulations))?))
        }
        _ => Ok(None),
    }
}

/// The self-play net under SPRT gating: the newest promoted checkpoint, else step 0.
fn promoted_checkpoint(store: &dyn Store, manifests: &[CheckpointManifest]) -> anyhow::Result<String> {
    for m in manifests.iter().rev() {
        let key = format!("{}{}.json", artifacts::GATING_DIR, m.name);
        if let Ok(bytes) = store.get(&key) {
            let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
            if v["promoted"].as_bool() == Some(true) {
                return Ok(m.name.clone());
            }
        }
    }
    Ok(artifacts::checkpoint_name(0))
}

/// Whether the net `net` (a checkpoint name) is more than `max_age` checkpoints older than the
/// newest of `checkpoint_steps` (never with `max_age` 0, nor for a net that is no checkpoint).
fn is_stale(net: &str, checkpoint_steps: &[u64], max_age: u64) -> bool {
    let Some(step) = artifacts::checkpoint_step(net) else { return false };
    max_age > 0 && checkpoint_steps.iter().filter(|&&s| s > step).count() as u64 > max_age
}

/// Where the run directory of a configuration is.
pub fn run_dir_of(config: &RunConfig) -> PathBuf {
    absolute(&config.run_dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_older_than_max_checkpoint_age_are_stale() {
        let steps = [0, 40, 80, 120];
        assert!(!is_stale("step-00000080", &steps, 1), "one checkpoint behind");
        assert!(is_stale("step-00000040", &steps, 1), "two behind");
        assert!(!is_stale("step-00000040", &steps, 2));
        assert!(!is_stale("step-00000000", &steps, 0), "0 keeps every game");
        assert!(!is_stale("random-2x16", &steps, 1), "not a checkpoint of the run");
    }

    /// A start clears what a killed start left staged in `.scratch`, and nothing else.
    #[test]
    fn a_start_removes_stale_staged_files_from_the_scratch_folder() {
        let dir = tempfile::tempdir().unwrap();
        let scratch = dir.path().join(".scratch");
        std::fs::create_dir_all(scratch.join("cache")).unwrap();
        let stale = [".chunk-9266.games.zst.9266.tmp", "chunk-9266.games.zst"];
        for name in stale {
            std::fs::write(scratch.join(name), b"half").unwrap();
        }
        std::fs::write(scratch.join("cache").join("weights.safetensors"), b"kept").unwrap();
        std::fs::write(scratch.join("notes.txt"), b"kept").unwrap();
        remove_stale_scratch(&scratch);
        for name in stale {
            assert!(!scratch.join(name).exists(), "{name} is still there");
        }
        assert!(scratch.join("cache").join("weights.safetensors").exists());
        assert!(scratch.join("notes.txt").exists());
        remove_stale_scratch(&dir.path().join("missing"));
    }
}
