//! The main job: `fairyzero train --config configs/runs/NAME.toml`.
//!
//! ```text
//! open the store ── resume: newest checkpoint whose files match its manifest (else a fresh net,
//!                   published as step 0), every stored game back into the replay window
//! loop until a budget is spent:
//!   1. self-play `iteration.games` games with the self-play net; each finished game is
//!      published to the store at once and added to the window
//!   2. compact the iteration's games into one chunk
//!   3. train: new positions x samples_per_position / batch_size steps on the window
//!   4. publish a checkpoint (weights, optimizer state, trainer state; manifest last)
//!   5. promote it to self-play (always, or after an SPRT match against the current one)
//!   6. every `eval.every` iterations: matches against the configured opponents, ranking
//!   7. a metrics line
//! final evaluation of the last checkpoint, ranking, summary
//! ```
//!
//! Self-play and optimisation alternate on the same cores (on 2 CPU cores running them at once
//! would only make them compete). Killing the process at any moment loses at most the
//! training since the last checkpoint and the games in progress; running the same command
//! again continues from there.

use std::{
    path::PathBuf,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
    time::Instant,
};

use anyhow::{bail, Context};
use fairyzero_evaluator::Contestant;
use fairyzero_model::{checkpoint, synthetic::load_variant, Net, StandardEncoding, TorchEvaluator, TorchEvaluatorOptions};
use fairyzero_rules::Variant;
use fairyzero_selfplay::{run_selfplay, GameRecord, RunOptions, Summary};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use serde_json::json;

use crate::{
    artifacts::{self, CheckpointManifest, TrainerState},
    config::{absolute, parse_device, Gating, MirrorMode, RunConfig},
    evaluation::{checkpoint_player, previous_evaluated, Evaluator, MatchSummary, StoreLoader},
    index::Index,
    learner::{Learner, StepStats},
    metrics::Metrics,
    replay::{game_samples, ReplayWindow, SampleOptions},
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
}

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
        if let Some(b) = &self.best_checkpoint {
            s.push_str(&format!("- best rated checkpoint: `{b}` (see ranking.md)\n"));
        }
        if let Some(l) = &self.last_loss {
            s.push_str(&format!(
                "- last loss: {:.3} (policy {:.3}, value {:.3}), policy entropy {:.3}\n",
                l.loss, l.policy_loss, l.value_loss, l.policy_entropy
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
fn say(bar: &ProgressBar, text: String) {
    bar.suspend(|| tracing::info!("{text}"));
}

/// The loop's mutable state.
struct Loop {
    config: RunConfig,
    variant: Arc<Variant>,
    device: fairyzero_model::Device,
    scratch: PathBuf,
    store: Arc<dyn Store>,
    worker: String,
    learner: Learner,
    window: ReplayWindow,
    encoding: StandardEncoding,
    mirror_rules: MirrorRules,
    sample_options: SampleOptions,
    metrics: Metrics,
    index: Index,
    bar: ProgressBar,
    budget: Budget,
    started: Instant,
    elapsed_base: f64,
    games: u64,
    positions: u64,
    iteration: u64,
    samples_trained: u64,
    /// The checkpoint whose weights play self-play.
    selfplay_checkpoint: String,
    last_checkpoint: String,
    last_stats: Option<StepStats>,
    game_seq: u64,
}

impl Loop {
    fn elapsed(&self) -> f64 {
        self.elapsed_base + self.started.elapsed().as_secs_f64()
    }

    fn spent(&self) -> Option<&'static str> {
        self.budget.spent(self.games, self.learner.step(), self.elapsed())
    }

    fn update_bar(&self, what: &str) {
        self.bar.set_position((1000.0 * self.budget.fraction(self.games, self.learner.step(), self.elapsed())) as u64);
        self.bar.set_message(format!(
            "it {} | step {} | {} games | window {} | {what}",
            self.iteration,
            self.learner.step(),
            self.games,
            self.window.positions()
        ));
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

    fn publish_checkpoint(&mut self) -> anyhow::Result<CheckpointManifest> {
        let manifest = artifacts::publish_checkpoint(
            self.store.as_ref(),
            &self.learner.net,
            Some(&self.learner.optimizer),
            self.learner.step(),
            self.state(),
            &self.scratch,
        )?;
        self.last_checkpoint = manifest.name.clone();
        Ok(manifest)
    }

    /// The self-play net: a copy of the training net when it is the promoted one, otherwise
    /// the promoted checkpoint.
    fn selfplay_net(&self) -> anyhow::Result<Net> {
        if self.selfplay_checkpoint == self.last_checkpoint {
            let mut net = Net::new(self.learner.net.config(), Arc::clone(&self.variant), self.device);
            net.var_store_mut().copy(self.learner.net.var_store())?;
            return Ok(net);
        }
        let manifests = artifacts::list_checkpoints(self.store.as_ref())?;
        let m = manifests
            .iter()
            .find(|m| m.name == self.selfplay_checkpoint)
            .with_context(|| format!("the self-play checkpoint {} is not in the store", self.selfplay_checkpoint))?;
        let dir = artifacts::verify_checkpoint(self.store.as_ref(), m, &self.scratch.join("cache")).map_err(anyhow::Error::msg)?;
        Ok(checkpoint::load(&dir, Arc::clone(&self.variant), Some(self.learner.net.config()), self.device, false)?.net)
    }

    fn selfplay_evaluator(&self, net: Net) -> TorchEvaluator {
        let sp = &self.config.selfplay;
        let per_batch = (sp.games_in_parallel / sp.threads.max(1) * sp.leaves_per_game).max(1) as usize;
        let threads = (self.config.output.inference_threads > 0).then_some(self.config.output.inference_threads);
        TorchEvaluator::new(net, TorchEvaluatorOptions { max_batch: per_batch, threads, ..TorchEvaluatorOptions::default() })
    }

    fn loader(&self) -> StoreLoader {
        StoreLoader {
            store: Arc::clone(&self.store),
            cache: self.scratch.join("cache"),
            device: self.device,
            inference_threads: (self.config.output.inference_threads > 0).then_some(self.config.output.inference_threads),
            max_batch: self.config.eval.threads.max(1),
        }
    }

    fn add_game(&mut self, record: &GameRecord) -> u64 {
        match game_samples(record, &self.variant, &self.encoding, &self.mirror_rules, &self.sample_options) {
            Ok(samples) => {
                let n = samples.len() as u64;
                self.window.push(samples);
                n
            }
            Err(e) => {
                tracing::warn!("a game (seed {}) does not replay, skipped: {e}", record.seed);
                0
            }
        }
    }

    /// Self-play of one iteration. Returns the summary and the positions added.
    fn selfplay(&mut self, evaluator: &TorchEvaluator, stop: &AtomicBool) -> anyhow::Result<(Summary, u64, Vec<String>)> {
        let remaining = if self.budget.games > 0 { self.budget.games.saturating_sub(self.games) } else { u64::MAX };
        let games = self.config.iteration.games.min(remaining);
        let options = RunOptions {
            games,
            // Distinct per iteration and per restart: the game count only grows.
            seed: self.config.seed ^ (self.games.wrapping_add(1)).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            net: self.selfplay_checkpoint.clone(),
            out_dir: None,
            progress: false,
        };
        let mut keys = Vec::new();
        let mut added = 0u64;
        let mut failure: Option<anyhow::Error> = None;
        let secs_budget = self.budget.secs;
        let t0 = Instant::now();
        let variant = Arc::clone(&self.variant);
        let sp_config = self.config.selfplay.clone();
        let summary = {
            let mut on_game = |record: &GameRecord| {
                if failure.is_some() {
                    return;
                }
                self.game_seq += 1;
                match artifacts::publish_game(self.store.as_ref(), &self.worker, self.game_seq, record, &self.scratch) {
                    Ok(key) => keys.push(key),
                    Err(e) => {
                        failure = Some(e.context("publishing a game"));
                        stop.store(true, Ordering::Relaxed);
                        return;
                    }
                }
                self.games += 1;
                let n = self.add_game(record);
                self.positions += n;
                added += n;
                let secs = t0.elapsed().as_secs_f64().max(1e-9);
                self.update_bar(&format!("self-play {:.2} games/s {:.0} pos/s", keys.len() as f64 / secs, added as f64 / secs));
                if secs_budget > 0.0 && self.elapsed() >= secs_budget {
                    stop.store(true, Ordering::Relaxed);
                }
            };
            run_selfplay(&variant, &sp_config, evaluator, &options, stop, &mut on_game)?
        };
        if let Some(e) = failure {
            return Err(e);
        }
        Ok((summary, added, keys))
    }

    /// Trains `steps` steps on the window.
    fn train(&mut self, steps: u64, rng: &mut ChaCha8Rng) -> (Vec<StepStats>, f64) {
        if self.config.train.threads > 0 {
            tch::set_num_threads(self.config.train.threads as i32);
        }
        let t0 = Instant::now();
        let mut all = Vec::with_capacity(steps as usize);
        let mut recent = Vec::new();
        let batch_size = self.config.train.batch_size;
        let log_every = self.config.output.log_every_steps;
        let sampler = self.window.sampler();
        // Borrow juggling: the sampler borrows the window, the learner is separate.
        let learner = &mut self.learner;
        for _ in 0..steps {
            let batch = sampler.batch(batch_size, rng);
            let stats = learner.train_step(&batch);
            self.samples_trained += batch_size as u64;
            all.push(stats);
            recent.push(stats);
            let step = learner.step();
            if log_every > 0 && step % log_every == 0 {
                let m = StepStats::mean(&recent);
                recent.clear();
                let elapsed = self.elapsed_base + self.started.elapsed().as_secs_f64();
                self.metrics.log("train", step, elapsed, json!({ "loss": { "total": m.loss, "policy": m.policy_loss, "value": m.value_loss },
                    "policy_entropy": m.policy_entropy, "target_entropy": m.target_entropy, "grad_norm": m.grad_norm, "lr": m.lr }));
            }
            let secs = t0.elapsed().as_secs_f64().max(1e-9);
            self.bar.set_position((1000.0 * self.budget.fraction(self.games, step, self.elapsed_base + self.started.elapsed().as_secs_f64())) as u64);
            self.bar.set_message(format!(
                "it {} | step {} | {} games | window {} | train loss {:.3} (p {:.3} v {:.3}) {:.1} steps/s",
                self.iteration,
                step,
                self.games,
                self.window.positions(),
                stats.loss,
                stats.policy_loss,
                stats.value_loss,
                all.len() as f64 / secs
            ));
        }
        (all, t0.elapsed().as_secs_f64())
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
    let variant = load_variant(&config.variant).with_context(|| format!("loading the variant {}", config.variant))?;
    let device = parse_device(&config.device).map_err(anyhow::Error::msg)?;
    let run_dir = absolute(&config.run_dir);
    std::fs::create_dir_all(&run_dir).with_context(|| format!("creating the run directory {}", run_dir.display()))?;
    let store: Arc<dyn Store> = Arc::new(ObjectStoreBackend::open(&config.store_url())?);
    check_compatible(store.as_ref(), &config)?;
    let resolved = config.to_toml();
    store.publish(&format!("{}{:013}.toml", artifacts::CONFIG_DIR, artifacts::unix_ms()), resolved.clone().into_bytes())?;
    std::fs::write(run_dir.join("config.toml"), &resolved)?;
    let scratch = run_dir.join(".scratch");
    std::fs::create_dir_all(&scratch)?;
    let arch = config.net.resolve().map_err(anyhow::Error::msg)?;
    let stop = options.stop.clone().unwrap_or_else(|| Arc::new(AtomicBool::new(false)));
    let bar = progress_bar(config.output.progress);
    let metrics = Metrics::open(&run_dir, config.output.tensorboard)?;
    let mut index = Index::open(&run_dir.join(INDEX_FILE))?;
    if options.rebuild_index {
        let r = index.rebuild(store.as_ref())?;
        say(&bar, format!("index rebuilt from the store: {} checkpoints, {} match files", r.checkpoints_added, r.match_files_added));
    }

    // Resume: the newest checkpoint that checks out.
    let manifests = artifacts::list_checkpoints(store.as_ref())?;
    let mut resumed: Option<(Learner, CheckpointManifest)> = None;
    for m in manifests.iter().rev() {
        let attempt = (|| -> anyhow::Result<Learner> {
            let dir = artifacts::verify_checkpoint(store.as_ref(), m, &scratch.join("cache")).map_err(anyhow::Error::msg)?;
            let loaded = checkpoint::load(&dir, Arc::clone(&variant), Some(&arch), device, false)?;
            let mut learner = Learner::new(loaded.net, config.train.clone());
            if let Some(record) = &loaded.header.optimizer {
                learner.optimizer.load(&dir, record)?;
            }
            Ok(learner)
        })();
        match attempt {
            Ok(l) => {
                resumed = Some((l, m.clone()));
                break;
            }
            Err(e) => {
                say(&bar, format!("WARNING: checkpoint {} is damaged and skipped (moved to damaged/): {e:#}", m.name));
                artifacts::quarantine(store.as_ref(), &format!("{}/", artifacts::checkpoint_prefix(&m.name)))?;
            }
        }
    }
    // Damaged checkpoints were moved away.
    let manifests = artifacts::list_checkpoints(store.as_ref())?;
    let fresh = resumed.is_none();
    let (learner, state, last_checkpoint) = match resumed {
        Some((l, m)) => (l, m.state.clone(), m.name.clone()),
        None => {
            tch::manual_seed(config.seed as i64);
            let net = Net::new(&arch, Arc::clone(&variant), device);
            (Learner::new(net, config.train.clone()), TrainerState::default(), String::new())
        }
    };

    let mirror_rules = MirrorRules::new(&variant);
    let mut lp = Loop {
        encoding: StandardEncoding::new(Arc::clone(&variant)),
        sample_options: SampleOptions {
            search_value_weight: config.replay.search_value_weight,
            mirror: config.replay.mirror == MirrorMode::Auto && mirror_rules.any(),
        },
        mirror_rules,
        window: ReplayWindow::new(config.replay.window_positions, config.replay.game_weight_cap),
        budget: Budget { games: config.budget.games, steps: config.budget.steps, secs: config.budget.minutes * 60.0 },
        variant: Arc::clone(&variant),
        device,
        scratch: scratch.clone(),
        store: Arc::clone(&store),
        worker: artifacts::worker_id(),
        learner,
        metrics,
        index,
        bar: bar.clone(),
        started: Instant::now(),
        elapsed_base: state.elapsed_secs,
        games: 0,
        positions: 0,
        iteration: state.iteration,
        samples_trained: state.samples_trained,
        selfplay_checkpoint: last_checkpoint.clone(),
        last_checkpoint,
        last_stats: None,
        game_seq: 0,
        config,
    };

    // Games: single-game chunks left by a kill are compacted, then everything is read back.
    let singles: Vec<String> = store
        .list(artifacts::GAMES_DIR)?
        .into_iter()
        .map(|o| o.key)
        .filter(|k| artifacts::is_game_chunk(k) && !k.rsplit('-').next().unwrap_or("").starts_with('c'))
        .collect();
    if singles.len() >= 2 {
        artifacts::compact_games(store.as_ref(), &singles, &lp.worker, &scratch)?;
    }
    let (games, skipped) = artifacts::read_all_games(store.as_ref(), &scratch, true)?;
    for k in &skipped {
        say(&bar, format!("WARNING: skipped the damaged game chunk {k} (moved to damaged/)"));
    }
    lp.games = games.len() as u64;
    lp.positions = games.iter().map(|g| g.moves.len() as u64).sum();
    // Only the newest games that fill the window need replaying.
    let mut need = 0u64;
    let mut first = games.len();
    while first > 0 && need < lp.config.replay.window_positions {
        first -= 1;
        need += games[first].moves.len() as u64;
    }
    for g in &games[first..] {
        lp.add_game(g);
    }
    drop(games);

    if fresh {
        let m = lp.publish_checkpoint()?;
        lp.selfplay_checkpoint = m.name.clone();
    } else if lp.config.eval.gating == Gating::Sprt {
        lp.selfplay_checkpoint = promoted_checkpoint(store.as_ref(), &manifests)?;
    }
    let sync = lp.index.sync(store.as_ref())?;
    for s in sync.skipped.iter().take(3) {
        say(&bar, format!("WARNING: {s}"));
    }
    say(
        &bar,
        format!(
            "{} {} in {}: step {}, iteration {}, {} games ({} positions) in the store, window {} positions, net {} ({} parameters) on {:?}",
            if fresh { "starting" } else { "resuming" },
            variant.name,
            run_dir.display(),
            lp.learner.step(),
            lp.iteration,
            lp.games,
            lp.positions,
            lp.window.positions(),
            arch,
            lp.learner.net.parameter_count(),
            device
        ),
    );
    let elapsed = lp.elapsed();
    lp.metrics.log(
        "start",
        lp.learner.step(),
        elapsed,
        json!({ "resumed_from": if fresh { serde_json::Value::Null } else { json!(lp.last_checkpoint) },
                "games": lp.games, "positions": lp.positions, "window": lp.window.positions(),
                "variant": variant.name, "net": arch.to_string(), "parameters": lp.learner.net.parameter_count(),
                "store": store.url(), "mirror": lp.sample_options.mirror }),
    );

    let loader = lp.loader();
    let eval_config = lp.config.eval.clone();
    let evaluator = Evaluator {
        variant: Arc::clone(&variant),
        store: Arc::clone(&store),
        loader: &loader,
        config: &eval_config,
        seed: lp.config.seed,
        run_dir: run_dir.clone(),
    };
    // The untrained net is the first point of the rating curve.
    if eval_config.every > 0 {
        let step0 = artifacts::checkpoint_name(0);
        if manifests.iter().any(|m| m.name == step0) || fresh {
            evaluate(&mut lp, &evaluator, &step0, &manifests_now(store.as_ref())?)?;
        }
    }

    let mut rng = ChaCha8Rng::seed_from_u64(lp.config.seed ^ lp.learner.step().wrapping_mul(0x2545_F491_4F6C_DD1D));
    let mut spent = lp.spent();
    while spent.is_none() && !stop.load(Ordering::Relaxed) {
        let it_started = Instant::now();
        // 1-2. Self-play.
        let net = lp.selfplay_net()?;
        let sp_eval = lp.selfplay_evaluator(net);
        let selfplay_stop = AtomicBool::new(stop.load(Ordering::Relaxed));
        let (summary, added, keys) = lp.selfplay(&sp_eval, &selfplay_stop)?;
        drop(sp_eval);
        if keys.len() >= 2 {
            artifacts::compact_games(store.as_ref(), &keys, &lp.worker, &scratch)?;
        }
        // 3. Training.
        let mut steps = 0;
        if lp.window.positions() >= lp.config.replay.min_positions && lp.window.positions() > 0 {
            let it = &lp.config.iteration;
            steps = ((added as f64 * it.samples_per_position / lp.config.train.batch_size as f64).round() as u64).max(it.min_steps);
            if it.max_steps > 0 {
                steps = steps.min(it.max_steps);
            }
            if lp.budget.steps > 0 {
                steps = steps.min(lp.budget.steps.saturating_sub(lp.learner.step()));
            }
        }
        let (stats, train_secs) = if steps > 0 { lp.train(steps, &mut rng) } else { (Vec::new(), 0.0) };
        lp.iteration += 1;
        // 4-5. Checkpoint and promotion.
        if steps > 0 {
            let m = lp.publish_checkpoint()?;
            match eval_config.gating {
                Gating::Always => lp.selfplay_checkpoint = m.name.clone(),
                Gating::Sprt => gate(&mut lp, &evaluator, &m.name)?,
            }
        }
        let mean = StepStats::mean(&stats);
        if !stats.is_empty() {
            lp.last_stats = Some(mean);
        }
        // 6. Evaluation.
        let mut eval_json = serde_json::Value::Null;
        if eval_config.every > 0 && lp.iteration % eval_config.every == 0 && steps > 0 {
            let name = lp.last_checkpoint.clone();
            eval_json = evaluate(&mut lp, &evaluator, &name, &manifests_now(store.as_ref())?)?;
        }
        // 7. Metrics.
        let sp_secs = summary.elapsed.as_secs_f64().max(1e-9);
        let elapsed = lp.elapsed();
        let reasons: serde_json::Map<String, serde_json::Value> =
            summary.reasons.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
        lp.metrics.log(
            "iteration",
            lp.learner.step(),
            elapsed,
            json!({
                "iteration": lp.iteration,
                "games": lp.games,
                "positions": lp.positions,
                "window": lp.window.positions(),
                "selfplay": {
                    "games": summary.games, "positions": summary.positions, "secs": sp_secs,
                    "games_per_sec": summary.games as f64 / sp_secs, "positions_per_sec": summary.positions as f64 / sp_secs,
                    "simulations_per_sec": summary.simulations_per_sec(), "mean_length": summary.mean_length(),
                    "first_player_score": summary.first_player_score(), "draw_rate": summary.draws as f64 / summary.games.max(1) as f64,
                    "mean_batch": summary.mean_batch(), "reasons": reasons, "net": lp.selfplay_checkpoint,
                },
                "train": {
                    "steps": stats.len(), "secs": train_secs, "steps_per_sec": stats.len() as f64 / train_secs.max(1e-9),
                    "samples_per_sec": (stats.len() * lp.config.train.batch_size) as f64 / train_secs.max(1e-9),
                    "loss": { "total": mean.loss, "policy": mean.policy_loss, "value": mean.value_loss },
                    "policy_entropy": mean.policy_entropy, "target_entropy": mean.target_entropy,
                    "grad_norm": mean.grad_norm, "lr": mean.lr, "mirrored_fraction": mean.mirrored as f64 / (stats.len() * lp.config.train.batch_size).max(1) as f64,
                },
                "eval": eval_json,
                "iteration_secs": it_started.elapsed().as_secs_f64(),
            }),
        );
        say(
            &bar,
            format!(
                "iteration {}: {} games ({:.2}/s, {:.0} positions/s, mean length {:.1}, first-player score {:.2}), {} steps ({:.1}/s) loss {:.3} (policy {:.3}, value {:.3}, entropy {:.2}), lr {:.2e}, checkpoint {}",
                lp.iteration,
                summary.games,
                summary.games as f64 / sp_secs,
                summary.positions as f64 / sp_secs,
                summary.mean_length(),
                summary.first_player_score(),
                stats.len(),
                stats.len() as f64 / train_secs.max(1e-9),
                mean.loss,
                mean.policy_loss,
                mean.value_loss,
                mean.policy_entropy,
                mean.lr,
                lp.last_checkpoint
            ),
        );
        if let Err(e) = lp.index.sync(store.as_ref()) {
            say(&bar, format!("WARNING: index sync failed: {e}"));
        }
        spent = lp.spent();
        if summary.games == 0 && spent.is_none() && !stop.load(Ordering::Relaxed) {
            bail!("self-play finished no game in an iteration; stopping");
        }
    }
    if let Some(what) = spent {
        say(&bar, format!("the {what} budget is spent"));
    } else {
        say(&bar, "stopped on request".into());
    }

    // Final evaluation of the last checkpoint.
    let mut final_matches = Vec::new();
    let fin = eval_config.final_eval.clone();
    if fin.games > 0 && !stop.load(Ordering::Relaxed) && lp.learner.step() > 0 {
        let name = lp.last_checkpoint.clone();
        let me = evaluator.contestant(&checkpoint_player(&name, fin.simulations))?;
        let manifests = manifests_now(store.as_ref())?;
        for o in &fin.opponents {
            let Some(opp) = opponent(&evaluator, o, &name, &manifests, fin.simulations)? else { continue };
            lp.update_bar(&format!("final evaluation vs {}", opp.name));
            let label = format!("final-{name}-vs-{}", label_of(&opp.name));
            let t0 = Instant::now();
            let report = evaluator.play(&me, &opp, fin.games, &label)?;
            let s = MatchSummary::from_report(&report);
            say(&bar, format!("final: {} ({:.0} s)", s.line(), t0.elapsed().as_secs_f64()));
            final_matches.push(s);
        }
        lp.metrics.log("final", lp.learner.step(), lp.elapsed(), json!({ "matches": final_matches }));
    }
    let ranking = evaluator.rank(1000).ok();
    let _ = lp.index.sync(store.as_ref());
    bar.finish_and_clear();
    let summary = RunSummary {
        run_dir: run_dir.display().to_string(),
        store: store.url(),
        variant: variant.name.clone(),
        net: arch.to_string(),
        steps: lp.learner.step(),
        iterations: lp.iteration,
        games: lp.games,
        positions: lp.positions,
        elapsed_secs: lp.elapsed(),
        final_checkpoint: lp.last_checkpoint.clone(),
        best_checkpoint: ranking.and_then(|r| r.best),
        final_matches,
        last_loss: lp.last_stats,
    };
    std::fs::write(run_dir.join(SUMMARY_MD), summary.to_markdown())?;
    std::fs::write(run_dir.join(SUMMARY_JSON), serde_json::to_string_pretty(&summary)? + "\n")?;
    Ok(summary)
}

fn manifests_now(store: &dyn Store) -> anyhow::Result<Vec<CheckpointManifest>> {
    Ok(artifacts::list_checkpoints(store)?)
}

/// A label-safe short name of a player.
fn label_of(name: &str) -> String {
    name.trim_start_matches(artifacts::CHECKPOINTS_DIR).replace(['@', ':', '/', '='], "_")
}

/// The contestant for an opponent keyword, or `None` when it does not apply (no previous
/// checkpoint yet, or the checkpoint itself).
fn opponent(
    evaluator: &Evaluator<'_>,
    spec: &str,
    me: &str,
    manifests: &[CheckpointManifest],
    simulations: u32,
) -> anyhow::Result<Option<Contestant>> {
    let step = crate::evaluation::step_of_player(&format!("checkpoints/{me}")).unwrap_or(0);
    let name = match spec {
        "step0" => Some(artifacts::checkpoint_name(0)),
        "previous" => previous_evaluated(evaluator.store.as_ref(), manifests, step)?,
        other => return Ok(Some(evaluator.contestant(other)?)),
    };
    match name {
        Some(n) if n != me && manifests.iter().any(|m| m.name == n) => {
            Ok(Some(evaluator.contestant(&checkpoint_player(&n, simulations))?))
        }
        _ => Ok(None),
    }
}

/// Matches of checkpoint `name` against the configured opponents, then the ranking; returns the
/// metrics object.
fn evaluate(lp: &mut Loop, evaluator: &Evaluator<'_>, name: &str, manifests: &[CheckpointManifest]) -> anyhow::Result<serde_json::Value> {
    let config = lp.config.eval.clone();
    let t0 = Instant::now();
    let me = evaluator.contestant(&checkpoint_player(name, config.simulations))?;
    let mut matches = Vec::new();
    for o in &config.opponents {
        let Some(opp) = opponent(evaluator, o, name, manifests, config.simulations)? else { continue };
        lp.update_bar(&format!("evaluating {name} vs {}", opp.name));
        let label = format!("eval-{name}-vs-{}", label_of(&opp.name));
        let report = evaluator.play(&me, &opp, config.games, &label)?;
        matches.push(MatchSummary::from_report(&report));
    }
    let ranking = evaluator.rank(300)?;
    let me_entry = ranking.entries.iter().find(|e| e.player == me.name);
    let secs = t0.elapsed().as_secs_f64();
    let lines: Vec<String> = matches.iter().map(|m| format!("{} {:.0}%", label_of(&m.opponent), 100.0 * m.score)).collect();
    say(
        &lp.bar,
        format!(
            "evaluated {name} in {secs:.0} s: {}; Elo {} (random = 0)",
            lines.join(", "),
            me_entry.map_or("?".into(), |e| format!("{:+.0} [{:+.0}, {:+.0}]", e.elo, e.ci_low, e.ci_high))
        ),
    );
    let scores: serde_json::Map<String, serde_json::Value> =
        matches.iter().map(|m| (label_of(&m.opponent), json!(m.score))).collect();
    let ratings: serde_json::Map<String, serde_json::Value> =
        ranking.entries.iter().map(|e| (label_of(&e.player), json!(e.elo))).collect();
    let value = json!({
        "checkpoint": name,
        "elo": me_entry.map(|e| e.elo), "elo_low": me_entry.map(|e| e.ci_low), "elo_high": me_entry.map(|e| e.ci_high),
        "score": scores, "ratings": ratings, "secs": secs, "matches": matches,
    });
    let step = crate::evaluation::step_of_player(&format!("checkpoints/{name}")).unwrap_or(0);
    let elapsed = lp.elapsed();
    lp.metrics.log("eval", step, elapsed, value.clone());
    Ok(value)
}

/// SPRT gating of a new checkpoint against the self-play net; the decision is stored.
fn gate(lp: &mut Loop, evaluator: &Evaluator<'_>, name: &str) -> anyhow::Result<()> {
    let sims = lp.config.eval.simulations;
    let candidate = evaluator.contestant(&checkpoint_player(name, sims))?;
    let best = evaluator.contestant(&checkpoint_player(&lp.selfplay_checkpoint, sims))?;
    let label = format!("gate-{name}-vs-{}", lp.selfplay_checkpoint);
    let (report, status) = evaluator.gate(&candidate, &best, &lp.config.eval.sprt, &label)?;
    let promoted = status.decision == Some(fairyzero_evaluator::SprtDecision::AcceptH1);
    let decision = json!({ "checkpoint": name, "against": lp.selfplay_checkpoint, "promoted": promoted,
        "wins": report.wins, "draws": report.draws, "losses": report.losses, "llr": status.llr });
    let _ = lp.store.publish(&format!("{}{name}.json", artifacts::GATING_DIR), serde_json::to_vec_pretty(&decision)?);
    say(&lp.bar, format!("gating {name} vs {}: +{} ={} -{}, LLR {:.2}: {}", lp.selfplay_checkpoint, report.wins, report.draws, report.losses, status.llr, if promoted { "promoted" } else { "kept the current net" }));
    if promoted {
        lp.selfplay_checkpoint = name.to_string();
    }
    Ok(())
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

/// Where the run directory of a configuration is.
pub fn run_dir_of(config: &RunConfig) -> PathBuf {
    absolute(&config.run_dir)
}
