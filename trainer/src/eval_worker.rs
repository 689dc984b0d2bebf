//! Evaluations on a thread of their own, so that rating a checkpoint never holds up self-play
//! and training (issue 18: the step-0 evaluation used to be a gate before the first iteration).
//!
//! ```text
//! main thread                         evaluation thread
//! Run::open       enqueue(step 0) ─┐
//! iteration 1 ...                  └─ matches of step 0 vs the opponents, ranking, `eval` line
//! iteration k     enqueue(step k) ─── (after the jobs before it, one at a time, in order)
//! Run::finish     wait_idle()     ─── the queue drains; then the final evaluation and ranking
//! ```
//!
//! Jobs run one after another, in the order queued, so that an evaluation's `previous` opponent
//! is the one queued before it. Results go where they went before: matches into the store, an
//! `eval` line into metrics.jsonl (with the checkpoint's step, so it may come after later
//! `train` lines), ranking.md/json/png. The iteration line only names the checkpoint it queued
//! (`eval_queued`).
//!
//! A stop request (SIGTERM, `TrainOptions::stop`) ends a match in progress after its current
//! games and drops the queued jobs: nothing of an unfinished match is stored, and the next start
//! queues every evaluation that has no stored match again ([`EvalWorker::enqueue`] of
//! `Run::open`); stored matches are found, not played again. A failed evaluation (other than by
//! a stop) is reported by [`EvalWorker::take_error`], which the main thread checks after every
//! iteration, so that the run fails as it did when evaluations were inline.

use std::{
    path::PathBuf,
    sync::{
        atomic::{AtomicBool, AtomicU64, Ordering},
        mpsc, Arc, Condvar, Mutex,
    },
    thread::JoinHandle,
    time::Instant,
};

use fairyzero_rules::Variant;
use fairyzero_selfplay::SelfPlayConfig;
use serde_json::json;

use crate::{
    artifacts,
    config::EvalConfig,
    evaluation::{checkpoint_player, CheckpointMatches, MatchSummary, StoreLoader},
    metrics::Metrics,
    run::{label_of, manifests_now, opponent, say, Status},
    store::Store,
};

/// What the evaluation thread owns.
pub(crate) struct EvalContext {
    pub variant: Arc<Variant>,
    pub store: Arc<dyn Store>,
    pub loader: StoreLoader,
    pub config: EvalConfig,
    /// The run's `[selfplay]` section: checkpoints are evaluated with the search they train with.
    pub selfplay: SelfPlayConfig,
    pub seed: u64,
    pub run_dir: PathBuf,
    pub stop: Arc<AtomicBool>,
    pub metrics: Arc<Mutex<Metrics>>,
    pub status: Arc<Status>,
}

impl EvalContext {
    fn matches(&self) -> CheckpointMatches<'_> {
        CheckpointMatches {
            variant: Arc::clone(&self.variant),
            store: Arc::clone(&self.store),
            loader: &self.loader,
            config: &self.config,
            selfplay: &self.selfplay,
            seed: self.seed,
            run_dir: self.run_dir.clone(),
            stop: Some(Arc::clone(&self.stop)),
        }
    }

    /// Matches of checkpoint `name` against the configured opponents, then the ranking; logs
    /// and returns the metrics object.
    pub fn evaluate(&self, name: &str) -> anyhow::Result<serde_json::Value> {
        let manifests = manifests_now(self.store.as_ref())?;
        let matches = self.matches();
        let config = &self.config;
        let t0 = Instant::now();
        let me = matches.contestant(&checkpoint_player(name, config.simulations))?;
        let mut summaries = Vec::new();
        for o in &config.opponents {
            let Some(opp) = opponent(&matches, o, name, &manifests, config.simulations)? else { continue };
            let label = format!("eval-{name}-vs-{}", label_of(&opp.name));
            let report = matches.play(&me, &opp, config.games, &label)?;
            summaries.push(MatchSummary::from_report(&report));
        }
        let ranking = matches.rank(300)?;
        let me_entry = ranking.entries.iter().find(|e| e.player == me.name);
        let secs = t0.elapsed().as_secs_f64();
        let lines: Vec<String> =
            summaries.iter().map(|m| format!("{} {:.0}%", label_of(&m.opponent), 100.0 * m.score)).collect();
        say(
            &self.status.bar,
            format!(
                "evaluated {name} in {secs:.0} s: {}; Elo {} (random = 0)",
                lines.join(", "),
                me_entry.map_or("?".into(), |e| format!("{:+.0} [{:+.0}, {:+.0}]", e.elo, e.ci_low, e.ci_high))
            ),
        );
        let scores: serde_json::Map<String, serde_json::Value> =
            summaries.iter().map(|m| (label_of(&m.opponent), json!(m.score))).collect();
        let ratings: serde_json::Map<String, serde_json::Value> =
            ranking.entries.iter().map(|e| (label_of(&e.player), json!(e.elo))).collect();
        let value = json!({
            "checkpoint": name,
            "elo": me_entry.map(|e| e.elo), "elo_low": me_entry.map(|e| e.ci_low), "elo_high": me_entry.map(|e| e.ci_high),
            "score": scores, "ratings": ratings, "secs": secs, "matches": summaries,
        });
        let step = artifacts::checkpoint_step(name).unwrap_or(0);
        self.metrics.lock().expect("metrics lock").log("eval", step, self.status.elapsed(), value.clone());
        Ok(value)
    }
}

/// What the two threads share.
#[derive(Default)]
struct Shared {
    /// Jobs queued and not finished (the one running included).
    pending: Mutex<usize>,
    idle: Condvar,
    /// Microseconds spent in finished jobs, cumulative.
    busy_micros: AtomicU64,
    /// When the job in progress started.
    running_since: Mutex<Option<Instant>>,
    error: Mutex<Option<anyhow::Error>>,
    /// Set when the worker is dropped: the jobs still queued are skipped.
    cancel: AtomicBool,
}

/// The evaluation thread and its queue of checkpoint names.
pub(crate) struct EvalWorker {
    sender: Option<mpsc::Sender<String>>,
    thread: Option<JoinHandle<()>>,
    shared: Arc<Shared>,
}

impl EvalWorker {
    pub fn start(context: EvalContext) -> EvalWorker {
        let (sender, receiver) = mpsc::channel::<String>();
        let shared = Arc::new(Shared::default());
        let theirs = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("evaluation".into())
            .spawn(move || {
                for name in receiver {
                    if !context.stop.load(Ordering::Relaxed) && !theirs.cancel.load(Ordering::Relaxed) {
                        // The start is read under the lock that `busy_secs` reads it with: read
                        // before taking it, a reader in between would miss the job's first
                        // moments and later see them counted (more evaluation time in an
                        // iteration than its wall-clock, on a busy machine).
                        let t0 = {
                            let mut since = theirs.running_since.lock().expect("evaluation clock lock");
                            let t0 = Instant::now();
                            *since = Some(t0);
                            t0
                        };
                        let result = context.evaluate(&name);
                        {
                            let mut since = theirs.running_since.lock().expect("evaluation clock lock");
                            theirs.busy_micros.fetch_add(t0.elapsed().as_micros() as u64, Ordering::Relaxed);
                            *since = None;
                        }
                        match result {
                            Ok(_) => {}
                            Err(e) if context.stop.load(Ordering::Relaxed) => say(
                                &context.status.bar,
                                format!("stopped on request during the evaluation of {name} ({e:#})"),
                            ),
                            Err(e) => {
                                let mut slot = theirs.error.lock().expect("evaluation error lock");
                                slot.get_or_insert(e.context(format!("evaluating {name}")));
                            }
                        }
                    }
                    let mut pending = theirs.pending.lock().expect("evaluation queue lock");
                    *pending -= 1;
                    theirs.idle.notify_all();
                }
            })
            .expect("cannot start the evaluation thread");
        EvalWorker { sender: Some(sender), thread: Some(thread), shared }
    }

    /// Queues the evaluation of checkpoint `name` (returns at once).
    pub fn enqueue(&self, name: &str) {
        *self.shared.pending.lock().expect("evaluation queue lock") += 1;
        if let Some(sender) = &self.sender {
            if sender.send(name.to_string()).is_err() {
                // The thread is gone (it panicked): nothing will run this job.
                *self.shared.pending.lock().expect("evaluation queue lock") -= 1;
            }
        }
    }

    /// Jobs queued and not finished.
    pub fn pending(&self) -> usize {
        *self.shared.pending.lock().expect("evaluation queue lock")
    }

    /// Seconds spent evaluating so far, the job in progress included (so that the difference
    /// of two readings is at most the time between them).
    pub fn busy_secs(&self) -> f64 {
        let since = self.shared.running_since.lock().expect("evaluation clock lock");
        let running = since.map_or(0.0, |t| t.elapsed().as_secs_f64());
        self.shared.busy_micros.load(Ordering::Relaxed) as f64 / 1e6 + running
    }

    /// The first evaluation failure (not counting stops), once; or that the thread died (a
    /// panic, already printed), every time.
    pub fn take_error(&self) -> Option<anyhow::Error> {
        if let Some(e) = self.shared.error.lock().expect("evaluation error lock").take() {
            return Some(e);
        }
        self.thread
            .as_ref()
            .is_some_and(|t| t.is_finished())
            .then(|| anyhow::anyhow!("the evaluation thread panicked (see the message above)"))
    }

    /// Blocks until every queued job has finished (after a stop request: until the match in
    /// progress ends after its current games; the rest of the queue is dropped).
    pub fn wait_idle(&self) {
        let mut pending = self.shared.pending.lock().expect("evaluation queue lock");
        while *pending > 0 && self.thread.as_ref().is_some_and(|t| !t.is_finished()) {
            let (guard, _) = self
                .shared
                .idle
                .wait_timeout(pending, std::time::Duration::from_millis(200))
                .expect("evaluation queue lock");
            pending = guard;
        }
    }
}

impl Drop for EvalWorker {
    /// Closes the queue, skips the jobs still queued and joins the thread (after the job in
    /// progress: call [`EvalWorker::wait_idle`] first to finish them all).
    fn drop(&mut self) {
        self.shared.cancel.store(true, Ordering::Relaxed);
        self.sender.take();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
