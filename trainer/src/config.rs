//! The run configuration: one TOML file (`configs/runs/*.toml`), every section refusing unknown
//! keys, with `-o key=value` overrides applied to the TOML before it is deserialised.
//!
//! ```
//! use fairyzero_trainer::config::RunConfig;
//! let text = "variant = \"antilosalamos\"\nrun_dir = \"runs/x\"\n[net]\nsize = \"tiny\"\n[budget]\ngames = 100\n";
//! let config = RunConfig::parse("x.toml", text, &["train.batch_size=64".to_string()]).unwrap();
//! assert_eq!(config.train.batch_size, 64);
//! assert!(RunConfig::parse("x.toml", text, &["train.batch_sise=64".to_string()]).is_err());
//! ```

use std::path::{Path, PathBuf};

use fairyzero_evaluator::PlayerSpec;
use fairyzero_model::{NetConfig, PrecisionSetting};
use fairyzero_selfplay::{limits, SelfPlayConfig};
use serde::{Deserialize, Serialize};

/// A configuration that cannot be used, with every problem found.
#[derive(Debug, thiserror::Error)]
#[error("run configuration {source_name}: {}", .problems.join("; "))]
pub struct ConfigError {
    pub source_name: String,
    pub problems: Vec<String>,
}

/// The whole run file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// A built-in variant name or a path to a variant TOML file.
    pub variant: String,
    /// The run directory: metrics, TensorBoard events, the index, rankings and summaries; and the
    /// store itself unless `store` says otherwise. Relative paths are relative to the current
    /// directory.
    pub run_dir: PathBuf,
    /// Where the run's artifacts live (games, checkpoints, match results): an object-store URL.
    /// Empty: `file://<run_dir>`.
    #[serde(default)]
    pub store: String,
    /// Seed of the network initialisation, self-play and evaluation.
    #[serde(default)]
    pub seed: u64,
    /// `auto` (CUDA if available), `cpu`, `cuda` or `cuda:N`.
    #[serde(default = "default_device")]
    pub device: String,
    /// Arithmetic of the self-play and evaluation forwards and of the training step: `auto`
    /// (bf16 on CUDA, fp32 on a CPU, which gains little from bf16), `fp32` or `bf16`. The
    /// softmaxes, losses and optimizer state stay fp32 either way.
    #[serde(default)]
    pub precision: PrecisionSetting,
    #[serde(default)]
    pub budget: BudgetConfig,
    pub net: NetSection,
    #[serde(default)]
    pub selfplay: SelfPlayConfig,
    #[serde(default)]
    pub iteration: IterationConfig,
    #[serde(default)]
    pub replay: ReplayConfig,
    #[serde(default)]
    pub train: TrainConfig,
    #[serde(default)]
    pub eval: EvalConfig,
    #[serde(default)]
    pub output: OutputConfig,
}

fn default_device() -> String {
    "auto".into()
}

/// When the run stops: the first budget reached ends it (0 = no limit of that kind); at least
/// one must be set. Budgets count the whole run, across restarts.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BudgetConfig {
    /// Self-play games.
    pub games: u64,
    /// Optimizer steps.
    pub steps: u64,
    /// Wall-clock minutes of training (self-play, optimisation and periodic evaluation; the final
    /// evaluation comes on top).
    pub minutes: f64,
}

/// The network: a size and optional overrides of the sizes it implies.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetSection {
    /// `tiny`, `small`, `base` or `BLOCKSxCHANNELS` (e.g. `6x48`).
    pub size: String,
    pub global_pool_every: Option<usize>,
    pub piece_embedding: Option<usize>,
    pub policy_channels: Option<usize>,
    pub policy_dim: Option<usize>,
    pub value_channels: Option<usize>,
    pub value_hidden: Option<usize>,
}

impl NetSection {
    pub fn resolve(&self) -> Result<NetConfig, fairyzero_model::NetSizeError> {
        let mut c = NetConfig::parse(&self.size)?;
        if let Some(v) = self.global_pool_every {
            c.global_pool_every = v;
        }
        if let Some(v) = self.piece_embedding {
            c.piece_embedding = v;
        }
        if let Some(v) = self.policy_channels {
            c.policy_channels = v;
        }
        if let Some(v) = self.policy_dim {
            c.policy_dim = v;
        }
        if let Some(v) = self.value_channels {
            c.value_channels = v;
        }
        if let Some(v) = self.value_hidden {
            c.value_hidden = v;
        }
        Ok(c)
    }
}

/// One iteration: play games with the current net, train on the window, write a checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct IterationConfig {
    /// Finished self-play games per iteration. Self-play is one session across iterations:
    /// the games in progress at an iteration's end go on (with the new net once promoted) and
    /// count to a later iteration.
    pub games: u64,
    /// End the iteration once its finished games hold this many new positions (0: off, `games`
    /// alone ends it). With both set, whichever comes first.
    pub positions: u64,
    /// Optimizer steps per iteration: `new positions * samples_per_position / batch_size`, so
    /// that each new position is seen about this many times while in the window.
    pub samples_per_position: f64,
    /// At least this many and at most `max_steps` steps per iteration (0: no limit).
    pub min_steps: u64,
    pub max_steps: u64,
    /// Train on a thread of its own while the iteration's games are played (with the previous
    /// net), rather than once they are in (self-play plays on either way). The replay ratio is
    /// the same: training never gets ahead of `samples_per_position` times the positions
    /// played.
    pub concurrent: bool,
}

impl Default for IterationConfig {
    fn default() -> Self {
        IterationConfig {
            games: 64,
            positions: 0,
            samples_per_position: 4.0,
            min_steps: 1,
            max_steps: 0,
            concurrent: true,
        }
    }
}

/// Which symmetries augment the training positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MirrorMode {
    /// Mirror left-right, with probability 1/2, every position for which the mirror is exact
    /// (see `symmetry.rs`).
    Auto,
    /// Never.
    Off,
}

/// The replay window and how it is sampled.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ReplayConfig {
    /// The most recent games whose positions add up to this many positions.
    pub window_positions: u64,
    /// No training until the window holds this many positions.
    pub min_positions: u64,
    /// A game's total sampling weight is min(its positions, this): positions of longer games
    /// share that weight, so long games are not over-weighted (0: every position weighs 1).
    pub game_weight_cap: u32,
    /// Left-right mirror augmentation: `auto` or `off`.
    pub mirror: MirrorMode,
    /// Weight of the search's root value in the value target (the rest is the game result).
    #[serde(serialize_with = "fairyzero_selfplay::config::f32_shortest")]
    pub search_value_weight: f32,
    /// Games played by a net more than this many checkpoints older than the newest are left out
    /// of the window (0: none is). Matters when self-play workers on other machines lag behind
    /// the learner (`fairyzero worker`, docs/distributed.md).
    pub max_checkpoint_age: u64,
}

impl Default for ReplayConfig {
    fn default() -> Self {
        ReplayConfig {
            window_positions: 100_000,
            min_positions: 2_000,
            game_weight_cap: 0,
            mirror: MirrorMode::Auto,
            search_value_weight: 0.0,
            max_checkpoint_age: 0,
        }
    }
}

/// The learning-rate schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LrSchedule {
    /// `lr` throughout (after the warm-up).
    Constant,
    /// Cosine from `lr` at the end of the warm-up to `lr_min` at `decay_steps`, then `lr_min`;
    /// with `decay_steps = 0`, over the run's budget instead (see [`TrainConfig::lr_at`]).
    Cosine,
    /// `lr`, multiplied by `step_factor` at every step listed in `step_at`.
    Step,
}

/// Optimisation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainConfig {
    /// Positions per optimizer step.
    pub batch_size: usize,
    /// `adamw` (decoupled weight decay; its state is saved with every checkpoint).
    pub optimizer: String,
    pub lr: f64,
    pub lr_schedule: LrSchedule,
    /// Linear warm-up from 0 over this many steps.
    pub warmup_steps: u64,
    /// Cosine: the step at which the rate reaches `lr_min`; 0: at the end of the budget (the
    /// cosine follows the fraction of the budget used, whichever of games, steps and minutes
    /// runs out first), which adapts the schedule to the machine's speed.
    pub decay_steps: u64,
    pub lr_min: f64,
    /// Step schedule: steps at which the rate is multiplied by `step_factor`.
    pub step_at: Vec<u64>,
    pub step_factor: f64,
    /// Decoupled weight decay (L2) on weight matrices and kernels.
    pub weight_decay: f64,
    pub beta1: f64,
    pub beta2: f64,
    pub eps: f64,
    /// Clip the global gradient norm to this (0: no clipping).
    pub grad_clip: f64,
    /// Weight of the value loss against the policy loss.
    pub value_weight: f64,
    /// libtorch intra-op threads of the training thread (0: libtorch's default). More than one
    /// only pays on otherwise idle cores: OpenMP threads spin while they wait, and on a busy
    /// machine that made steps 10x slower here.
    pub threads: usize,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            batch_size: 256,
            optimizer: "adamw".into(),
            lr: 2e-3,
            lr_schedule: LrSchedule::Cosine,
            warmup_steps: 100,
            decay_steps: 10_000,
            lr_min: 1e-4,
            step_at: Vec::new(),
            step_factor: 0.1,
            weight_decay: 1e-4,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            grad_clip: 1.0,
            value_weight: 1.0,
            threads: 1,
        }
    }
}

impl TrainConfig {
    /// The learning rate at optimizer step `step` (0-based: the rate of the `step + 1`-th update)
    /// when the run has used the fraction `progress` of its budget (only a cosine schedule with
    /// `decay_steps = 0` looks at it).
    pub fn lr_at_progress(&self, step: u64, progress: f64) -> f64 {
        if self.lr_schedule == LrSchedule::Cosine && self.decay_steps == 0 {
            let warm = if self.warmup_steps > 0 && step < self.warmup_steps {
                (step + 1) as f64 / self.warmup_steps as f64
            } else {
                1.0
            };
            let t = progress.clamp(0.0, 1.0);
            return warm * (self.lr_min + 0.5 * (self.lr - self.lr_min) * (1.0 + (std::f64::consts::PI * t).cos()));
        }
        self.lr_at(step)
    }

    /// The learning rate at optimizer step `step` (0-based: the rate of the `step + 1`-th update).
    pub fn lr_at(&self, step: u64) -> f64 {
        let warm = if self.warmup_steps > 0 && step < self.warmup_steps {
            (step + 1) as f64 / self.warmup_steps as f64
        } else {
            1.0
        };
        let base = match self.lr_schedule {
            LrSchedule::Constant => self.lr,
            LrSchedule::Cosine => {
                let start = self.warmup_steps;
                if step <= start {
                    self.lr
                } else if step >= self.decay_steps || self.decay_steps <= start {
                    self.lr_min
                } else {
                    let t = (step - start) as f64 / (self.decay_steps - start) as f64;
                    self.lr_min + 0.5 * (self.lr - self.lr_min) * (1.0 + (std::f64::consts::PI * t).cos())
                }
            }
            LrSchedule::Step => {
                let drops = self.step_at.iter().filter(|&&s| step >= s).count();
                self.lr * self.step_factor.powi(drops as i32)
            }
        };
        base * warm
    }
}

/// How checkpoints become the self-play net.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Gating {
    /// Every new checkpoint plays self-play (AlphaZero).
    Always,
    /// A new checkpoint replaces the self-play net only when an SPRT match against it accepts
    /// H1 (AlphaGo Zero's gating, with a sequential test instead of a fixed 55% threshold).
    Sprt,
}

/// SPRT gating parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SprtGateConfig {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    /// Most games of one gating match (undecided: not promoted).
    pub max_games: usize,
    /// Games between two looks at the test.
    pub batch: usize,
}

impl Default for SprtGateConfig {
    fn default() -> Self {
        SprtGateConfig { elo0: 0.0, elo1: 35.0, alpha: 0.05, beta: 0.1, max_games: 200, batch: 20 }
    }
}

/// An opponent of the run's checkpoints in `eval.opponents` and `eval.final.opponents`, parsed
/// once when the run file is read and written back as the same text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Opponent {
    /// The last evaluated checkpoint before the one being evaluated.
    Previous,
    /// The untrained net (step 0), at the same simulations.
    Step0,
    /// A player that needs no net of the run: `random`, `greedy`, `alphabeta:…`. A checkpoint
    /// spec parses (so that the run file's other problems are listed with it) but
    /// [`RunConfig::validate`] refuses it.
    Baseline(PlayerSpec),
}

impl Opponent {
    fn greedy() -> Opponent {
        Opponent::Baseline(PlayerSpec::Greedy { values: Default::default() })
    }
}

impl std::str::FromStr for Opponent {
    type Err = String;

    fn from_str(text: &str) -> Result<Opponent, String> {
        match text {
            "previous" => Ok(Opponent::Previous),
            "step0" => Ok(Opponent::Step0),
            _ => PlayerSpec::parse(text).map(Opponent::Baseline).map_err(|e| format!("eval opponent: {e}")),
        }
    }
}

impl TryFrom<String> for Opponent {
    type Error = String;

    fn try_from(text: String) -> Result<Opponent, String> {
        text.parse()
    }
}

impl std::fmt::Display for Opponent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Opponent::Previous => f.write_str("previous"),
            Opponent::Step0 => f.write_str("step0"),
            Opponent::Baseline(spec) => spec.fmt(f),
        }
    }
}

impl From<Opponent> for String {
    fn from(o: Opponent) -> String {
        o.to_string()
    }
}

/// Final evaluation at the end of the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FinalEvalConfig {
    /// Games against each opponent (0: no final evaluation).
    pub games: usize,
    /// Opponents of the last checkpoint: `random`, `greedy`, `alphabeta:…`, `step0` (the
    /// untrained net at the same budget), `previous`.
    pub opponents: Vec<Opponent>,
    /// Simulations per move of the checkpoint players.
    pub simulations: u32,
}

impl Default for FinalEvalConfig {
    fn default() -> Self {
        FinalEvalConfig {
            games: 200,
            opponents: vec![Opponent::Baseline(PlayerSpec::Random), Opponent::greedy(), Opponent::Step0],
            simulations: 16,
        }
    }
}

/// Evaluation of checkpoints by the evaluator crate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EvalConfig {
    /// Evaluate every this many iterations (0: only the final evaluation).
    pub every: u64,
    /// Games against each opponent.
    pub games: usize,
    /// Opponents: `random`, `greedy`, `alphabeta:…` (any evaluator player spec), `previous`
    /// (the last evaluated checkpoint), `step0`.
    pub opponents: Vec<Opponent>,
    /// Simulations per move of checkpoint players.
    pub simulations: u32,
    /// Random plies after the start of each opening (openings are distinct).
    pub random_plies: u32,
    /// Plies after the opening before a game is adjudicated a draw (default: the variant's cap).
    pub move_cap: Option<u32>,
    /// Games played at once. Games of checkpoint players mostly wait for their batched
    /// evaluations, so on a GPU this can be far above the core count (64-128).
    pub threads: usize,
    /// Moves of CPU-bound opponents (alpha-beta, greedy) computed at once, across the games of
    /// a match; 0: the cores that self-play leaves, `cores - selfplay.threads - 1`, at least 1
    /// ([`RunConfig::eval_cpu_threads`]).
    pub cpu_threads: usize,
    /// `always` (promote every checkpoint) or `sprt`.
    pub gating: Gating,
    pub sprt: SprtGateConfig,
    #[serde(rename = "final")]
    pub final_eval: FinalEvalConfig,
}

impl Default for EvalConfig {
    fn default() -> Self {
        EvalConfig {
            every: 2,
            games: 20,
            opponents: vec![Opponent::Baseline(PlayerSpec::Random), Opponent::greedy(), Opponent::Previous],
            simulations: 16,
            random_plies: 4,
            move_cap: None,
            threads: 4,
            cpu_threads: 0,
            gating: Gating::Always,
            sprt: SprtGateConfig::default(),
            final_eval: FinalEvalConfig::default(),
        }
    }
}

/// What the run shows and writes besides its artifacts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OutputConfig {
    /// A live progress bar on stderr (only drawn on a terminal).
    pub progress: bool,
    /// TensorBoard event files under `<run_dir>/tensorboard/`.
    pub tensorboard: bool,
    /// A metrics line (and TensorBoard scalars) every this many optimizer steps, besides the
    /// one per iteration (0: per iteration only).
    pub log_every_steps: u64,
    /// libtorch intra-op threads of the self-play and evaluation inference threads (0: leave
    /// libtorch's setting). 1 is right for small nets on a few cores.
    pub inference_threads: usize,
}

impl Default for OutputConfig {
    fn default() -> Self {
        OutputConfig { progress: true, tensorboard: true, log_every_steps: 100, inference_threads: 1 }
    }
}

impl RunConfig {
    /// Reads a run file and applies `overrides` (`key=value`, dotted keys, TOML values; a value
    /// that is not valid TOML is taken as a string).
    pub fn load(path: &Path, overrides: &[String]) -> Result<RunConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            source_name: path.display().to_string(),
            problems: vec![format!("cannot read: {e}")],
        })?;
        RunConfig::parse(&path.display().to_string(), &text, overrides)
    }

    pub fn parse(source_name: &str, text: &str, overrides: &[String]) -> Result<RunConfig, ConfigError> {
        let err = |problems: Vec<String>| ConfigError { source_name: source_name.to_string(), problems };
        let mut table: toml::Table = toml::from_str(text).map_err(|e| err(vec![one_line(&e.to_string())]))?;
        let mut problems = Vec::new();
        for o in overrides {
            if let Err(p) = apply_override(&mut table, o) {
                problems.push(p);
            }
        }
        if !problems.is_empty() {
            return Err(err(problems));
        }
        let config: RunConfig =
            toml::Value::Table(table).try_into().map_err(|e: toml::de::Error| err(vec![one_line(&e.to_string())]))?;
        config.validate().map_err(err)?;
        Ok(config)
    }

    /// The configuration as TOML (what the run directory records).
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).expect("run configurations serialise")
    }

    /// `eval.cpu_threads`, with 0 resolved on this machine: the cores that self-play's search
    /// threads and the training thread leave, at least 1 (an evaluation runs beside both).
    pub fn eval_cpu_threads(&self) -> usize {
        if self.eval.cpu_threads > 0 {
            return self.eval.cpu_threads;
        }
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        cores.saturating_sub(self.selfplay.threads as usize + 1).max(1)
    }

    /// Every range problem, at once.
    pub fn validate(&self) -> Result<(), Vec<String>> {
        let mut p = Vec::new();
        let mut check = |ok: bool, msg: &str| {
            if !ok {
                p.push(msg.to_string());
            }
        };
        check(!self.run_dir.as_os_str().is_empty(), "run_dir must not be empty (it would fill the current directory)");
        // A non-finite value passes `x > 0` style checks and then breaks what is written from
        // it (JSON has no inf or NaN: a checkpoint header with lr = inf cannot be read back).
        let t = &self.train;
        let e = &self.eval;
        for (key, value) in [
            ("budget.minutes", self.budget.minutes),
            ("iteration.samples_per_position", self.iteration.samples_per_position),
            ("replay.search_value_weight", self.replay.search_value_weight as f64),
            ("train.lr", t.lr),
            ("train.lr_min", t.lr_min),
            ("train.step_factor", t.step_factor),
            ("train.weight_decay", t.weight_decay),
            ("train.beta1", t.beta1),
            ("train.beta2", t.beta2),
            ("train.eps", t.eps),
            ("train.grad_clip", t.grad_clip),
            ("train.value_weight", t.value_weight),
            ("eval.sprt.elo0", e.sprt.elo0),
            ("eval.sprt.elo1", e.sprt.elo1),
            ("eval.sprt.alpha", e.sprt.alpha),
            ("eval.sprt.beta", e.sprt.beta),
        ] {
            check(value.is_finite(), &format!("{key} must be a finite number (it is {value})"));
        }
        // The `[selfplay]` floats are checked by `SelfPlayConfig::validate` (below), which
        // `fairyzero selfplay` runs too.
        check(t.step_factor >= 0.0, "train.step_factor must not be negative");
        check(
            e.sprt.alpha > 0.0 && e.sprt.alpha < 1.0 && e.sprt.beta > 0.0 && e.sprt.beta < 1.0,
            "eval.sprt.alpha and eval.sprt.beta must be in (0, 1)",
        );
        let b = &self.budget;
        check(
            b.games > 0 || b.steps > 0 || b.minutes > 0.0,
            "set at least one of budget.games, budget.steps, budget.minutes",
        );
        check(b.minutes >= 0.0, "budget.minutes must not be negative");
        check(self.iteration.games >= 1, "iteration.games must be at least 1");
        check(self.iteration.samples_per_position > 0.0, "iteration.samples_per_position must be positive");
        check(
            self.iteration.max_steps == 0 || self.iteration.max_steps >= self.iteration.min_steps,
            "iteration.max_steps must be 0 or at least iteration.min_steps",
        );
        check(self.replay.window_positions >= 1, "replay.window_positions must be at least 1");
        check(
            self.replay.min_positions <= self.replay.window_positions,
            "replay.min_positions must not exceed replay.window_positions",
        );
        check((0.0..=1.0).contains(&self.replay.search_value_weight), "replay.search_value_weight must be in [0, 1]");
        check(t.batch_size >= 1, "train.batch_size must be at least 1");
        check(t.optimizer == "adamw", "train.optimizer must be \"adamw\"");
        check(
            t.lr > 0.0 && t.lr_min >= 0.0 && t.lr_min <= t.lr,
            "train.lr must be positive and train.lr_min in [0, lr]",
        );
        check(t.weight_decay >= 0.0, "train.weight_decay must not be negative");
        check(
            (0.0..1.0).contains(&t.beta1) && (0.0..1.0).contains(&t.beta2),
            "train.beta1 and train.beta2 must be in [0, 1)",
        );
        check(t.eps > 0.0, "train.eps must be positive");
        check(t.grad_clip >= 0.0, "train.grad_clip must not be negative (0 disables clipping)");
        check(t.value_weight >= 0.0, "train.value_weight must not be negative");
        check(t.step_at.windows(2).all(|w| w[0] < w[1]), "train.step_at must increase");
        check(e.simulations >= 1 && e.final_eval.simulations >= 1, "eval simulations must be at least 1");
        check(e.threads >= 1, "eval.threads must be at least 1");
        check(
            e.sprt.batch >= 2 && e.sprt.max_games >= e.sprt.batch,
            "eval.sprt.batch must be >= 2 and <= eval.sprt.max_games",
        );
        check(e.sprt.elo1 > e.sprt.elo0, "eval.sprt.elo1 must exceed eval.sprt.elo0");
        check(e.gating == Gating::Always || e.every > 0, "gating = \"sprt\" needs eval.every > 0");
        for o in e.opponents.iter().chain(&e.final_eval.opponents) {
            if let Opponent::Baseline(PlayerSpec::Checkpoint { .. }) = o {
                p.push(format!("eval opponent \"{o}\": use random, greedy, alphabeta:…, previous or step0"));
            }
        }
        // Upper bounds: these counts size allocations or spawn threads (selfplay's `limits`).
        for (key, value, max) in [
            ("iteration.games", self.iteration.games, limits::MAX_GAMES),
            ("iteration.positions", self.iteration.positions, limits::MAX_GAMES.saturating_mul(10_000)),
            ("train.batch_size", t.batch_size as u64, limits::MAX_BATCH),
            ("train.threads", t.threads as u64, limits::MAX_THREADS),
            ("eval.games", e.games as u64, limits::MAX_GAMES),
            ("eval.simulations", u64::from(e.simulations), limits::MAX_SIMULATIONS),
            ("eval.random_plies", u64::from(e.random_plies), limits::MAX_PLIES),
            ("eval.move_cap", e.move_cap.map_or(0, u64::from), limits::MAX_PLIES),
            ("eval.threads", e.threads as u64, limits::MAX_THREADS),
            ("eval.cpu_threads", e.cpu_threads as u64, limits::MAX_THREADS),
            ("eval.sprt.max_games", e.sprt.max_games as u64, limits::MAX_GAMES),
            ("eval.sprt.batch", e.sprt.batch as u64, limits::MAX_GAMES),
            ("eval.final.games", e.final_eval.games as u64, limits::MAX_GAMES),
            ("eval.final.simulations", u64::from(e.final_eval.simulations), limits::MAX_SIMULATIONS),
            ("output.inference_threads", self.output.inference_threads as u64, limits::MAX_THREADS),
        ] {
            if let Err(m) = limits::check_at_most(key, value, max) {
                p.push(m);
            }
        }
        if let Err(m) = self.net.resolve() {
            p.push(format!("net.size: {m}"));
        }
        if let Err(e) = parse_device(&self.device) {
            p.push(e.to_string());
        }
        if let Err(e) = self.selfplay.validate() {
            p.extend(e.problems.into_iter().map(|m| format!("[selfplay] {m}")));
        }
        if p.is_empty() {
            Ok(())
        } else {
            Err(p)
        }
    }

    /// The store URL: `store`, or `file://<absolute run_dir>`.
    pub fn store_url(&self) -> String {
        if self.store.is_empty() {
            let dir = absolute(&self.run_dir);
            format!("file://{}", dir.display())
        } else {
            self.store.clone()
        }
    }
}

/// `auto`, `cpu`, `cuda`, `cuda:N`.
pub fn parse_device(text: &str) -> Result<fairyzero_torch::Device, DeviceError> {
    use fairyzero_torch::Device;
    match text {
        "auto" => Ok(fairyzero_torch::default_device()),
        "cpu" => Ok(Device::Cpu),
        "cuda" => Ok(Device::Cuda(0)),
        _ => match text.strip_prefix("cuda:").and_then(|n| n.parse::<usize>().ok()) {
            Some(n) => Ok(Device::Cuda(n)),
            None => Err(DeviceError { text: text.to_string() }),
        },
    }
}

/// A device name that is not `auto`, `cpu`, `cuda` or `cuda:N`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("device {text:?}: expected auto, cpu, cuda or cuda:N")]
pub struct DeviceError {
    /// The name as given.
    pub text: String,
}

pub(crate) fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().map(|d| d.join(path)).unwrap_or_else(|_| path.to_path_buf())
    }
}

fn one_line(s: &str) -> String {
    s.trim().lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ")
}

/// Sets `key` (dotted path) in `table` to `value` (TOML, or a bare string).
pub fn apply_override(table: &mut toml::Table, assignment: &str) -> Result<(), String> {
    let (key, value) = assignment
        .split_once('=')
        .ok_or_else(|| format!("override {assignment:?}: expected key=value, e.g. train.lr=0.001"))?;
    let key = key.trim();
    let value_text = value.trim();
    let value: toml::Value = match toml::from_str::<toml::Table>(&format!("v = {value_text}")) {
        Ok(mut t) => t.remove("v").expect("parsed above"),
        Err(_) => toml::Value::String(value_text.to_string()),
    };
    let parts: Vec<&str> = key.split('.').map(str::trim).collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(format!("override {assignment:?}: empty key component"));
    }
    let mut current = table;
    for (i, part) in parts[..parts.len() - 1].iter().enumerate() {
        let entry = current.entry(part.to_string()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
        current = match entry {
            toml::Value::Table(t) => t,
            _ => return Err(format!("override {assignment:?}: `{}` is not a table", parts[..=i].join("."))),
        };
    }
    current.insert(parts[parts.len() - 1].to_string(), value);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = "variant = \"gardner\"\nrun_dir = \"r\"\n[net]\nsize = \"tiny\"\n[budget]\ngames = 10\n";

    #[test]
    fn overrides_set_nested_keys_and_typed_values() {
        let c = RunConfig::parse(
            "x",
            MINIMAL,
            &[
                "train.lr=0.01".into(),
                "selfplay.simulations=8".into(),
                "eval.opponents=[\"random\"]".into(),
                "device=cpu".into(),
                "selfplay.gumbel.considered_actions = 4".into(),
            ],
        )
        .unwrap();
        assert_eq!(c.train.lr, 0.01);
        assert_eq!(c.selfplay.simulations, 8);
        assert_eq!(c.eval.opponents, vec![Opponent::Baseline(PlayerSpec::Random)]);
        assert_eq!(c.device, "cpu");
        assert_eq!(c.selfplay.gumbel.considered_actions, 4);
    }

    #[test]
    fn opponents_are_parsed_once_and_written_back_as_written() {
        let c = RunConfig::parse("x", MINIMAL, &[]).unwrap();
        let text = |o: &[Opponent]| o.iter().map(|o| o.to_string()).collect::<Vec<_>>();
        assert_eq!(text(&c.eval.opponents), ["random", "greedy", "previous"]);
        assert_eq!(text(&c.eval.final_eval.opponents), ["random", "greedy", "step0"]);
        for written in ["random", "greedy", "previous", "step0", "alphabeta:2", "greedy:values=mobility"] {
            let o: Opponent = written.parse().unwrap();
            assert_eq!(o.to_string(), written);
        }
        assert_eq!("previous".parse::<Opponent>(), Ok(Opponent::Previous));
        let again = RunConfig::parse("again", &c.to_toml(), &[]).unwrap();
        assert_eq!(again.eval.opponents, c.eval.opponents);
        let e = RunConfig::parse("bad", MINIMAL, &["eval.opponents=[\"alphabeta\"]".into()]).unwrap_err().to_string();
        assert!(e.contains("eval.opponents") && e.contains("alphabeta"), "{e}");
    }

    #[test]
    fn unknown_keys_and_bad_values_are_errors_listing_everything() {
        let e = RunConfig::parse("x", MINIMAL, &["train.lr_typo=1".into()]).unwrap_err().to_string();
        assert!(e.contains("lr_typo"), "{e}");
        let e = RunConfig::parse("x", &format!("{MINIMAL}typo = 1\n"), &[]).unwrap_err().to_string();
        assert!(e.contains("typo"), "{e}");
        let e = RunConfig::parse("x", MINIMAL, &["selfplay.simulatoins=3".into()]).unwrap_err().to_string();
        assert!(e.contains("simulatoins"), "{e}");
        let e = RunConfig::parse(
            "x",
            MINIMAL,
            &["train.batch_size=0".into(), "budget.games=0".into(), "eval.opponents=[\"x@3\"]".into()],
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("batch_size") && e.contains("budget") && e.contains("opponent"), "{e}");
        let e = RunConfig::parse("x", MINIMAL, &["variant.x=1".into()]).unwrap_err().to_string();
        assert!(e.contains("not a table"), "{e}");
        assert!(RunConfig::parse("x", MINIMAL, &["novalue".into()]).is_err());
    }

    #[test]
    fn precision_is_parsed_resolved_and_a_bad_one_is_named() {
        use fairyzero_model::Precision;
        let c = RunConfig::parse("x", MINIMAL, &[]).unwrap();
        assert_eq!(c.precision, PrecisionSetting::Auto);
        assert_eq!((c.precision.resolve(true), c.precision.resolve(false)), (Precision::Bf16, Precision::Fp32));
        let c = RunConfig::parse("x", MINIMAL, &["precision=\"fp32\"".into()]).unwrap();
        assert_eq!(c.precision.resolve(true), Precision::Fp32);
        let c = RunConfig::parse("x", &format!("precision = \"bf16\"\n{MINIMAL}"), &[]).unwrap();
        assert_eq!(c.precision.resolve(false), Precision::Bf16);
        // Written back by `--print-config` and the run directory's config.toml.
        assert!(c.to_toml().contains("precision = \"bf16\""), "{}", c.to_toml());
        assert_eq!(RunConfig::parse("again", &c.to_toml(), &[]).unwrap().precision, PrecisionSetting::Bf16);
        let e = RunConfig::parse("x", MINIMAL, &["precision=\"fp16\"".into()]).unwrap_err().to_string();
        assert!(e.contains("precision") && e.contains("fp16") && e.contains("bf16"), "{e}");
    }

    #[test]
    fn eval_cpu_threads_leave_self_play_its_cores() {
        let c = RunConfig::parse("x", MINIMAL, &["eval.cpu_threads=3".into()]).unwrap();
        assert_eq!(c.eval_cpu_threads(), 3);
        let cores = std::thread::available_parallelism().unwrap().get();
        let c = RunConfig::parse("x", MINIMAL, &["selfplay.threads=1".into()]).unwrap();
        assert_eq!(c.eval_cpu_threads(), cores.saturating_sub(2).max(1));
        // More search threads than cores: still one for the evaluation.
        let busy = [format!("selfplay.threads={}", cores + 4), format!("selfplay.games_in_parallel={}", cores + 4)];
        let c = RunConfig::parse("x", MINIMAL, &busy).unwrap();
        assert_eq!(c.eval_cpu_threads(), 1);
    }

    #[test]
    fn devices_parse_and_a_bad_one_is_named() {
        assert_eq!(parse_device("cpu").unwrap(), fairyzero_torch::Device::Cpu);
        assert_eq!(parse_device("cuda:3").unwrap(), fairyzero_torch::Device::Cuda(3));
        let err = parse_device("gpu").unwrap_err();
        assert_eq!(err, DeviceError { text: "gpu".to_string() });
        assert_eq!(err.to_string(), "device \"gpu\": expected auto, cpu, cuda or cuda:N");
        let e = RunConfig::parse("x", MINIMAL, &["device=\"cuda:x\"".into()]).unwrap_err().to_string();
        assert!(e.contains("device \"cuda:x\": expected auto, cpu, cuda or cuda:N"), "{e}");
    }

    #[test]
    fn every_float_must_be_finite_and_the_run_dir_not_empty() {
        for (key, value) in [
            ("train.lr", "inf"),
            ("train.lr_min", "nan"),
            ("budget.minutes", "inf"),
            ("iteration.samples_per_position", "inf"),
            ("train.grad_clip", "inf"),
            ("eval.sprt.elo1", "inf"),
            ("replay.search_value_weight", "nan"),
        ] {
            let e = RunConfig::parse("x", MINIMAL, &[format!("{key}={value}")]).unwrap_err().to_string();
            assert!(e.contains(key) && e.contains("finite"), "{key}={value}: {e}");
        }
        // `[selfplay]` problems come from the self-play crate, with its key names.
        for (key, value, named) in [
            ("selfplay.puct.c_puct", "inf", "[selfplay] `puct.c_puct` must be a finite number (it is inf)"),
            ("selfplay.gumbel.c_scale", "nan", "[selfplay] `gumbel.c_scale` must be a finite number (it is NaN)"),
        ] {
            let e = RunConfig::parse("x", MINIMAL, &[format!("{key}={value}")]).unwrap_err().to_string();
            assert!(e.contains(named), "{key}={value}: {e}");
        }
        let e = RunConfig::parse("x", MINIMAL, &["run_dir=".into()]).unwrap_err().to_string();
        assert!(e.contains("run_dir must not be empty"), "{e}");
        let e = RunConfig::parse("x", MINIMAL, &["eval.sprt.alpha=0".into()]).unwrap_err().to_string();
        assert!(e.contains("eval.sprt.alpha"), "{e}");
    }

    /// Counts that size allocations or spawn threads have a maximum: past it, a start would
    /// abort on a failed allocation instead of printing an error.
    #[test]
    fn counts_past_their_maximum_name_the_key() {
        for (key, value) in [
            ("selfplay.games_in_parallel", "100000000"),
            ("selfplay.simulations", "4294967295"),
            ("selfplay.threads", "100000"),
            ("train.batch_size", "100000000"),
            ("eval.games", "100000000"),
            ("eval.final.games", "100000000"),
            ("output.inference_threads", "100000"),
        ] {
            let e = RunConfig::parse("x", MINIMAL, &[format!("{key}={value}")]).unwrap_err().to_string();
            let short = key.rsplit('.').next().unwrap();
            assert!(e.contains(short) && e.contains("at most"), "{key}={value}: {e}");
        }
    }

    #[test]
    fn the_resolved_config_round_trips() {
        let c = RunConfig::parse("x", MINIMAL, &[]).unwrap();
        let again = RunConfig::parse("y", &c.to_toml(), &[]).unwrap();
        assert_eq!(c, again);
    }

    #[test]
    fn learning_rate_schedules() {
        let t = TrainConfig { lr: 1.0, lr_min: 0.0, warmup_steps: 10, decay_steps: 110, ..TrainConfig::default() };
        assert!((t.lr_at(0) - 0.1).abs() < 1e-12);
        assert!((t.lr_at(9) - 1.0).abs() < 1e-12);
        assert!((t.lr_at(60) - 0.5).abs() < 1e-9);
        assert_eq!(t.lr_at(110), 0.0);
        assert_eq!(t.lr_at(1000), 0.0);
        assert_eq!(t.lr_at_progress(60, 0.9), t.lr_at(60), "fixed decay_steps ignore the progress");
        let s = TrainConfig {
            lr: 1.0,
            warmup_steps: 0,
            lr_schedule: LrSchedule::Step,
            step_at: vec![5, 8],
            step_factor: 0.1,
            ..t
        };
        let b = TrainConfig { lr: 1.0, lr_min: 0.0, warmup_steps: 0, decay_steps: 0, ..TrainConfig::default() };
        assert_eq!(b.lr_at_progress(5, 0.0), 1.0);
        assert!((b.lr_at_progress(5, 0.5) - 0.5).abs() < 1e-12);
        assert!(b.lr_at_progress(5, 1.0).abs() < 1e-12);
        assert_eq!(s.lr_at(4), 1.0);
        assert!((s.lr_at(5) - 0.1).abs() < 1e-12);
        assert!((s.lr_at(9) - 0.01).abs() < 1e-12);
    }
}

#[cfg(test)]
mod shipped_configs {
    use super::*;

    /// Every configuration in configs/runs/ with a `[net]` section is a valid run file.
    #[test]
    fn every_run_config_parses() {
        let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/runs"));
        let mut checked = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            if path.extension().is_some_and(|e| e == "toml") && text.contains("[net]") {
                let c = RunConfig::load(&path, &[]).unwrap_or_else(|e| panic!("{e}"));
                fairyzero_rules::Variant::load(&c.variant).unwrap();
                checked.push(path.file_name().unwrap().to_string_lossy().into_owned());
            }
        }
        checked.sort();
        assert_eq!(
            checked,
            [
                "chushin.toml",
                "default.toml",
                "jupiter.toml",
                "scirocco.toml",
                "tiny.toml",
                "typhoon-gpu.toml",
                "typhoon.toml"
            ]
        );
    }
}
