//! A self-play worker of a split run: `fairyzero worker --store URL`.
//!
//! ```text
//! wait     until the learner has published the run's configuration, rules and a checkpoint
//! load     the newest checkpoint (fetched into a local cache; every file's size and SHA-256
//!          checked against its manifest before it plays)
//! play     one self-play session, as `train` runs it; each finished game is published at once
//!          as its own chunk, games/<unix_ms>-<worker>-<n>.games.zst (no two workers collide:
//!          the worker id is host, PID and a random suffix, and publication refuses a taken key)
//! poll     every `poll`: a newer checkpoint is swapped in between two forwards (the games in
//!          progress go on with it); the learner's `finished.json` stops the worker
//! stop     on SIGINT/SIGTERM, `--games`, or the learner's end: the finished games are published,
//!          the games in progress are dropped (a kill loses those and nothing else)
//! ```
//!
//! A worker holds no state that matters: it can join, leave or be killed at any time. The
//! configuration is the learner's (`config/<unix_ms>.toml`, the newest), with the worker's own
//! `-o` overrides of the keys that only change how it plays (`selfplay.*`, `device`,
//! `output.inference_threads`).

use std::{
    collections::HashSet,
    path::{Path, PathBuf},
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
    time::{Duration, Instant},
};

use anyhow::{bail, Context};
use fairyzero_evaluator::matches::fnv1a;
use fairyzero_rules::Variant;
use fairyzero_selfplay::GameRecord;
use fairyzero_torch::{checkpoint, Net};
use rand::Rng;
use serde::Serialize;

use crate::{
    artifacts::{self, CheckpointManifest, CHECKPOINTS_DIR, MANIFEST_FILE},
    config::{parse_device, RunConfig},
    feed::DEFAULT_GRACE,
    run::FINISHED_FILE,
    session::{executor_options, Next, SelfPlaySession, SessionPlan},
    store::{ObjectStoreBackend, Store, StoreError},
};

/// What a worker is told on its command line.
#[derive(Clone, Debug)]
pub struct WorkerOptions {
    /// The run's store URL (`file:///shared/run`, `s3://bucket/run`).
    pub store: String,
    /// Where fetched checkpoints are kept (default: `~/.cache/fairyzero/worker`).
    pub cache: Option<PathBuf>,
    /// Stop after this many games (default: until the learner finishes or a signal).
    pub games: Option<u64>,
    /// How often the store is checked for a new checkpoint and for the run's end.
    pub poll: Duration,
    /// `-o key=value` overrides of the stored configuration (`selfplay.*`, `device`,
    /// `output.inference_threads`).
    pub overrides: Vec<String>,
    /// Set to stop (signal handlers, tests).
    pub stop: Option<Arc<AtomicBool>>,
}

/// What a worker did, printed when it stops.
#[derive(Clone, Debug, Serialize)]
pub struct WorkerSummary {
    pub worker: String,
    pub store: String,
    pub games: u64,
    pub positions: u64,
    /// The checkpoints it played with, in order.
    pub checkpoints: Vec<String>,
    pub elapsed_secs: f64,
    /// Why it stopped: `finished` (the learner's run ended), `games` (its `--games`), `stopped`
    /// (a signal).
    pub reason: String,
}

/// The configuration keys a worker may override: those that change how it plays, not what the
/// run is.
const WORKER_KEYS: &[&str] = &["selfplay.", "device", "output.inference_threads"];

/// Checks that every override names a key a worker may change.
fn check_overrides(overrides: &[String]) -> anyhow::Result<()> {
    for o in overrides {
        let key = o.split_once('=').map_or(o.as_str(), |(k, _)| k).trim();
        if !WORKER_KEYS.iter().any(|w| if w.ends_with('.') { key.starts_with(w) } else { key == *w }) {
            bail!(
                "-o {o}: a worker may override only selfplay.*, device and output.inference_threads \
                 (the rest of the run's configuration is the learner's, read from the store)"
            );
        }
    }
    Ok(())
}

/// This worker's name in game keys: `<host>-<pid>-<random>`, so that two workers never collide
/// even where hosts or PIDs repeat (containers, array jobs).
pub fn new_worker_id() -> String {
    format!("{}-{:08x}", artifacts::worker_id(), rand::thread_rng().gen::<u32>())
}

/// The run as the learner published it: its configuration (with the worker's overrides) and
/// its rules.
struct StoredRun {
    config: RunConfig,
    variant: Arc<Variant>,
}

/// The run's configuration and rules, once the learner has published both; `None` before.
fn read_run(store: &dyn Store, overrides: &[String]) -> anyhow::Result<Option<StoredRun>> {
    let Some(newest) = store.list(artifacts::CONFIG_DIR)?.pop() else { return Ok(None) };
    let text = match store.get(artifacts::VARIANT_FILE) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(StoreError::NotFound { .. }) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let config_text = String::from_utf8_lossy(&store.get(&newest.key)?).into_owned();
    let source = format!("{}/{}", store.url(), newest.key);
    let config = RunConfig::parse(&source, &config_text, overrides).map_err(|e| anyhow::anyhow!("{e}"))?;
    let variant_source = format!("{}/{}", store.url(), artifacts::VARIANT_FILE);
    let variant = Variant::from_toml(&variant_source, &text, None)
        .map_err(|e| anyhow::anyhow!("{variant_source}: the run's rules do not load: {e}"))?;
    // The record names the hash the learner computed: rules that load differently here (another
    // version of fairyzero) would train the learner on games of other rules.
    let recorded = artifacts::recorded_rules_hash(&text);
    let here = format!("{:016x}", variant.hash);
    if recorded.is_some_and(|r| r != here) {
        bail!(
            "{variant_source}: the learner's rules hash is {}, this program computes {here} for the same rules: \
             run workers and learner from the same fairyzero version",
            recorded.unwrap_or("?")
        );
    }
    Ok(Some(StoredRun { config, variant }))
}

/// Loads checkpoints from the store into a local cache, checked file by file.
struct CheckpointFetcher {
    store: Arc<dyn Store>,
    cache: PathBuf,
    variant: Arc<Variant>,
    device: fairyzero_torch::Device,
    /// Checkpoints that failed their check twice: not tried again.
    refused: HashSet<String>,
}

impl CheckpointFetcher {
    /// The checkpoint as a net, its files checked against the manifest (size and SHA-256). A
    /// cached copy that fails is fetched once more; `None` (with a warning) if it fails again.
    fn load(&mut self, m: &CheckpointManifest) -> anyhow::Result<Option<Net>> {
        if self.refused.contains(&m.name) {
            return Ok(None);
        }
        for attempt in 0..2 {
            let dir = artifacts::checkpoint_dir(self.store.as_ref(), m, &self.cache)?;
            match checkpoint::load(&dir, Arc::clone(&self.variant), None, self.device, false) {
                Ok(loaded) => return Ok(Some(loaded.net)),
                Err(e) if e.is_damage() && attempt == 0 && self.store.local_path("").is_none() => {
                    tracing::warn!("checkpoint {} failed its check ({e}); fetching it again", m.name);
                    let _ = std::fs::remove_dir_all(&dir);
                }
                Err(e) if e.is_damage() => {
                    tracing::warn!("checkpoint {} is damaged ({e}); playing on with the current net", m.name);
                    self.refused.insert(m.name.clone());
                    return Ok(None);
                }
                Err(e) => return Err(anyhow::Error::new(e).context(format!("loading checkpoint {}", m.name))),
            }
        }
        unreachable!("the second attempt returns")
    }

    /// Checkpoints published after `current`, newest first.
    fn newer_than(&self, current: &str) -> anyhow::Result<Vec<CheckpointManifest>> {
        let after = format!("{CHECKPOINTS_DIR}{current}/{MANIFEST_FILE}");
        let mut out = Vec::new();
        for o in self.store.list_after(CHECKPOINTS_DIR, &after)? {
            if !o.key.ends_with(&format!("/{MANIFEST_FILE}")) {
                continue;
            }
            match self
                .store
                .get(&o.key)
                .map_err(anyhow::Error::new)
                .and_then(|b| serde_json::from_slice::<CheckpointManifest>(&b).map_err(anyhow::Error::new))
            {
                Ok(m) => out.push(m),
                Err(e) => tracing::warn!("skipping the checkpoint manifest {}: {e}", o.key),
            }
        }
        out.sort_by_key(|m| std::cmp::Reverse(m.step));
        Ok(out)
    }
}

/// The default checkpoint cache: `$XDG_CACHE_HOME/fairyzero/worker` or `~/.cache/fairyzero/worker`.
fn default_cache() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("fairyzero").join("worker")
}

/// Runs a worker until the learner finishes the run, its `--games` are played, or it is stopped.
pub fn run_worker(options: &WorkerOptions) -> anyhow::Result<WorkerSummary> {
    check_overrides(&options.overrides)?;
    let t0 = Instant::now();
    let stop = options.stop.clone().unwrap_or_else(|| Arc::new(AtomicBool::new(false)));
    let store: Arc<dyn Store> = Arc::new(ObjectStoreBackend::open(&options.store)?);
    let worker = new_worker_id();
    let stopped = |s: &AtomicBool| s.load(Ordering::Relaxed);

    let idle = |reason: &str| WorkerSummary {
        worker: worker.clone(),
        store: store.url(),
        games: 0,
        positions: 0,
        checkpoints: Vec::new(),
        elapsed_secs: t0.elapsed().as_secs_f64(),
        reason: reason.into(),
    };
    // The learner publishes the configuration, the rules and step 0 when it starts.
    let mut said = false;
    let (run, first) = loop {
        if stopped(&stop) {
            return Ok(idle("stopped"));
        }
        // A worker (re)started after the run's end, as a Deployment restarts it, stops at once.
        if store.exists(FINISHED_FILE)? {
            tracing::info!("worker {worker}: the run in {} is finished (finished.json): nothing to play", store.url());
            return Ok(idle("finished"));
        }
        if let Some(run) = read_run(store.as_ref(), &options.overrides)? {
            let manifests = artifacts::checkpoint_manifest_objects(store.as_ref())?;
            if !manifests.is_empty() {
                break (run, manifests);
            }
        }
        if !said {
            tracing::info!("worker {worker}: waiting for a learner to publish the run into {}", store.url());
            said = true;
        }
        std::thread::sleep(options.poll.min(Duration::from_secs(1)));
    };
    let config = run.config;
    let device = parse_device(&config.device)?;
    fairyzero_torch::require_device(device).with_context(|| format!("device = {:?}", config.device))?;
    let cache = options.cache.clone().unwrap_or_else(default_cache).join(format!("{:016x}", fnv1a(&store.url())));
    let scratch = cache.join("scratch");
    std::fs::create_dir_all(&scratch).with_context(|| format!("creating the worker cache {}", cache.display()))?;
    let mut fetcher = CheckpointFetcher {
        store: Arc::clone(&store),
        cache: cache.clone(),
        variant: Arc::clone(&run.variant),
        device,
        refused: HashSet::new(),
    };
    // The newest checkpoint that passes its check (a run's thousands of manifests are not all
    // read: newest first, until one loads).
    let mut candidates = first;
    let (mut current, net) = loop {
        let Some(o) = candidates.pop() else { bail!("no checkpoint in {} passes its check", store.url()) };
        let m = match artifacts::read_manifest(store.as_ref(), &o.key) {
            Ok(m) => m,
            Err(e) => {
                tracing::warn!("skipping the checkpoint manifest {}: {e}", o.key);
                continue;
            }
        };
        if let Some(net) = fetcher.load(&m)? {
            break (m.name, net);
        }
    };
    let executor = executor_options(&config, device);
    let plan = SessionPlan {
        net: current.clone(),
        games: options.games.unwrap_or(u64::MAX),
        seed: config.seed ^ fnv1a(&worker),
    };
    let mut session = SelfPlaySession::start(&run.variant, &config, net, plan, executor, Arc::clone(&stop))?;
    tracing::info!(
        "worker {worker}: playing {} with {current} into {} ({} games at once on {} threads)",
        run.variant.name,
        store.url(),
        config.selfplay.games_in_parallel,
        config.selfplay.threads
    );
    let mut summary = WorkerSummary {
        worker: worker.clone(),
        store: store.url(),
        games: 0,
        positions: 0,
        checkpoints: vec![current.clone()],
        elapsed_secs: 0.0,
        reason: String::new(),
    };
    let publish = |summary: &mut WorkerSummary, record: &GameRecord| -> anyhow::Result<String> {
        let key = artifacts::publish_game(store.as_ref(), &worker, summary.games + 1, record, &scratch)
            .context("publishing a game")?;
        summary.games += 1;
        summary.positions += record.moves.len() as u64;
        Ok(key)
    };
    let mut last_poll = Instant::now();
    let mut clock_checked = false;
    let result = (|| -> anyhow::Result<()> {
        loop {
            match session.next(Duration::from_millis(100)) {
                Next::Game(record, _) => {
                    let published_ms = artifacts::unix_ms();
                    let key = publish(&mut summary, &record)?;
                    if !clock_checked {
                        clock_checked = true;
                        check_clock(store.as_ref(), &key, published_ms)?;
                    }
                }
                Next::Idle => {}
                Next::Ended => {
                    summary.reason = if stopped(&stop) { "stopped" } else { "games" }.into();
                    return Ok(());
                }
            }
            if last_poll.elapsed() >= options.poll {
                last_poll = Instant::now();
                if store.exists(FINISHED_FILE)? {
                    tracing::info!("worker {worker}: the learner has finished the run");
                    summary.reason = "finished".into();
                    return Ok(());
                }
                for m in fetcher.newer_than(&current)? {
                    if let Some(net) = fetcher.load(&m)? {
                        session.swap(net, &m.name);
                        tracing::info!("worker {worker}: now playing with {} ({} games so far)", m.name, summary.games);
                        current = m.name.clone();
                        summary.checkpoints.push(m.name);
                        break;
                    }
                }
            }
        }
    })();
    session.stop.store(true, Ordering::Relaxed);
    // The games finished meanwhile are published even after an error: they are played.
    let mut drained = 0;
    for (record, _) in session.drain() {
        publish(&mut summary, &record)?;
        drained += 1;
    }
    if drained > 0 {
        tracing::info!("worker {worker}: published {drained} game(s) finished while stopping");
    }
    session.join()?;
    result?;
    if summary.reason.is_empty() {
        summary.reason = "stopped".into();
    }
    summary.elapsed_secs = t0.elapsed().as_secs_f64();
    Ok(summary)
}

/// Compares this machine's clock with the store's, from the time the store gave the object just
/// published: the learner finds new games by their keys' times, so a clock far off delays them.
fn check_clock(store: &dyn Store, key: &str, published_ms: u64) -> anyhow::Result<()> {
    let Some(info) = store.head(key)? else { return Ok(()) };
    let skew_ms = published_ms.abs_diff(info.last_modified_ms);
    let grace_ms = DEFAULT_GRACE.as_millis() as u64;
    if skew_ms > grace_ms / 2 {
        tracing::warn!(
            "this machine's clock differs from the store's by {:.0} s: the learner may read this worker's games late \
             (it allows {} s); synchronise the clock (NTP)",
            skew_ms as f64 / 1000.0,
            grace_ms / 1000
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_override_only_how_they_play() {
        check_overrides(&["selfplay.threads=1".into(), "device=\"cpu\"".into(), "output.inference_threads=1".into()])
            .unwrap();
        let err = check_overrides(&["train.lr=0.1".into()]).unwrap_err().to_string();
        assert!(err.contains("-o train.lr=0.1") && err.contains("selfplay.*"), "{err}");
        assert!(check_overrides(&["devices=1".into()]).is_err());
    }

    #[test]
    fn worker_ids_differ_and_seeds_follow_them() {
        let (a, b) = (new_worker_id(), new_worker_id());
        assert_ne!(a, b, "two workers of one process still get distinct ids (random suffix)");
        assert_eq!(fnv1a(&a), fnv1a(&a));
        assert_ne!(fnv1a(&a), fnv1a(&b));
    }
}
