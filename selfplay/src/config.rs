//! The self-play part of a run configuration: the `[selfplay]` section of a run file.
//!
//! [`SelfPlayConfig`] is a plain serde struct that refuses unknown keys, so that the trainer's
//! run configuration can embed it as a section and a typo is an error, not a silent default.
//! `configs/runs/selfplay-example.toml` documents every key.
//!
//! ```
//! use fairyzero_selfplay::config::{SearchKind, SelfPlayConfig};
//! let config: SelfPlayConfig = toml::from_str("search = \"puct\"\nsimulations = 200").unwrap();
//! assert_eq!(config.search, SearchKind::Puct);
//! assert!(config.validate().is_ok());
//! ```

use std::{fmt, path::Path};

use serde::{Deserialize, Serialize};

use crate::limits;

/// Serialises an `f32` as the shortest decimal that reads back as the same `f32` (`0.15`).
/// TOML has only 64-bit floats, and its serializer widens an `f32` exactly, which prints
/// `0.15000000596046448` in `--print-config` and in a run's recorded configuration.
pub fn f32_shortest<S: serde::Serializer>(x: &f32, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(x.to_string().parse().unwrap_or(f64::from(*x)))
}

/// Which search chooses the moves and produces the policy targets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SearchKind {
    /// AlphaZero: PUCT selection, Dirichlet noise at the root, visit counts as targets, moves
    /// sampled from visits with a temperature schedule.
    Puct,
    /// Gumbel AlphaZero (Danihelka et al., 2022): Gumbel-top-k and sequential halving at the
    /// root, improved-policy targets. Sound with small simulation budgets (2-64).
    Gumbel,
}

impl SearchKind {
    /// The name in run files and records (the serde name).
    pub fn as_str(self) -> &'static str {
        match self {
            SearchKind::Puct => "puct",
            SearchKind::Gumbel => "gumbel",
        }
    }
}

impl fmt::Display for SearchKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a game that reaches the move cap scores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum CapResult {
    /// A draw.
    #[default]
    Draw,
    /// The side with more material (the variant's nominal piece values, 1 where none is given,
    /// royals excluded) wins; equal material draws.
    Material,
}

/// How games start.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(from = "String", into = "String")]
pub enum SetupMode {
    /// Play the variant's setup phase as moves when it has one (the policy learns the setup),
    /// otherwise start from the variant's start position.
    #[default]
    Phase,
    /// The variant's start position (its canonical array), skipping any setup phase.
    Default,
    /// A fixed position string, or a setup mask `setup:<hex>` naming an array.
    Fen(String),
}

impl From<String> for SetupMode {
    fn from(s: String) -> SetupMode {
        match s.as_str() {
            "phase" => SetupMode::Phase,
            "default" => SetupMode::Default,
            _ => SetupMode::Fen(s),
        }
    }
}

impl From<SetupMode> for String {
    fn from(s: SetupMode) -> String {
        match s {
            SetupMode::Phase => "phase".into(),
            SetupMode::Default => "default".into(),
            SetupMode::Fen(fen) => fen,
        }
    }
}

/// One step of the temperature schedule: from game ply `ply` on (setup plies count), moves are
/// sampled with probability proportional to `visits^(1/value)`; 0 plays the most visited move.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TemperatureStep {
    pub ply: u32,
    #[serde(serialize_with = "f32_shortest")]
    pub value: f32,
}

/// PUCT parameters (AlphaZero, with lc0's first-play urgency).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PuctConfig {
    /// Exploration constant of the PUCT formula.
    #[serde(serialize_with = "f32_shortest")]
    pub c_puct: f32,
    /// First-play urgency: an unvisited child is valued at the parent's value minus this times
    /// the square root of the prior mass already visited (lc0).
    #[serde(serialize_with = "f32_shortest")]
    pub fpu_reduction: f32,
    /// Dirichlet noise concentration per move (AlphaZero: 0.3 chess, 0.15 shogi, 0.03 Go,
    /// about 10 / typical number of legal moves).
    #[serde(serialize_with = "f32_shortest")]
    pub dirichlet_alpha: f32,
    /// Weight of the noise in the root priors; 0 disables it.
    #[serde(serialize_with = "f32_shortest")]
    pub dirichlet_epsilon: f32,
    /// Temperature schedule for choosing the move to play, by game ply.
    pub temperature: Vec<TemperatureStep>,
}

impl Default for PuctConfig {
    fn default() -> Self {
        PuctConfig {
            c_puct: 1.5,
            fpu_reduction: 0.25,
            dirichlet_alpha: 0.15,
            dirichlet_epsilon: 0.25,
            temperature: vec![TemperatureStep { ply: 0, value: 1.0 }, TemperatureStep { ply: 30, value: 0.0 }],
        }
    }
}

impl PuctConfig {
    /// The temperature for a move at game ply `ply`.
    pub fn temperature_at(&self, ply: u32) -> f32 {
        self.temperature.iter().take_while(|s| s.ply <= ply).last().map_or(0.0, |s| s.value)
    }
}

/// Gumbel AlphaZero parameters (names as in DeepMind's `mctx`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GumbelConfig {
    /// m: how many root moves (Gumbel-top-k) sequential halving considers.
    pub considered_actions: u32,
    /// c_visit of the monotone transform sigma(q) = (c_visit + max visits) * c_scale * q.
    #[serde(serialize_with = "f32_shortest")]
    pub c_visit: f32,
    /// c_scale of the same transform.
    #[serde(serialize_with = "f32_shortest")]
    pub c_scale: f32,
}

impl Default for GumbelConfig {
    fn default() -> Self {
        GumbelConfig { considered_actions: 16, c_visit: 50.0, c_scale: 0.1 }
    }
}

/// KataGo's playout-cap randomisation: only a fraction of the moves get a full search, and only
/// those are recorded as policy targets; the others get a cheap search without noise.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayoutCapConfig {
    /// Probability that a move gets a full search (`simulations`).
    #[serde(serialize_with = "f32_shortest")]
    pub full_fraction: f32,
    /// Simulations of the other, reduced searches.
    pub reduced_simulations: u32,
}

/// The `[selfplay]` section of a run configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SelfPlayConfig {
    /// `puct` or `gumbel`.
    pub search: SearchKind,
    /// Simulations per (full) search: root children visits added per move.
    pub simulations: u32,
    /// Games played at once by one process; their leaves are batched for the evaluator.
    pub games_in_parallel: u32,
    /// Search threads. Each drives `games_in_parallel / threads` games and calls the evaluator
    /// with one batch at a time, so that while one waits for the net the others search.
    pub threads: u32,
    /// Leaves gathered per game per batch (virtual loss). 1 is exact AlphaZero; more gives
    /// bigger batches when few games run at once.
    pub leaves_per_game: u32,
    /// Keep the searched subtree of the move played for the next search.
    pub reuse_tree: bool,
    /// Play a move at once, without search and without a policy target, when it is the only
    /// legal move.
    pub skip_forced_moves: bool,
    /// Treat a position whose side to move has a move that ends the game at once in its favour
    /// by material (royal captured, bared, extinction) as a proven win: searched as terminal,
    /// without asking the net, and at the root such a move is always among the moves searched.
    /// Without it, at a few dozen simulations a net whose prior misses the move neither takes a
    /// hanging royal nor sees its own hang (docs/plans/scirocco-learning.md §1.1).
    pub immediate_wins: bool,
    /// Game length cap in plies of play (setup plies excluded); default: the variant's
    /// `move_cap`.
    pub move_cap: Option<u32>,
    /// What a capped game scores: `draw` or `material`.
    pub move_cap_result: CapResult,
    /// `phase` (play the variant's setup phase, if any, as moves), `default` (its start
    /// position), a setup mask (`setup:1f`, docs/notation.md) or a position string.
    pub setup: SetupMode,
    /// Games per record file (chunk).
    pub games_per_file: u32,
    pub puct: PuctConfig,
    pub gumbel: GumbelConfig,
    /// Playout-cap randomisation; absent: every move gets a full search.
    pub playout_cap: Option<PlayoutCapConfig>,
    /// How leaves are batched when the evaluator is an inference service (`[selfplay.batching]`).
    pub batching: BatchingConfig,
    /// Seconds over which a run admits its games gradually instead of starting all
    /// `games_in_parallel` at once (0: off). At `t` seconds into the run at most
    /// `max(threads, ceil(games_in_parallel * t / ramp_secs))` games are in progress, so the
    /// first games get fast round trips and finish early; see docs/selfplay.md, "Ramp".
    pub ramp_secs: f64,
}

/// The `[selfplay.batching]` section: the inference service that all search threads share
/// (docs/plans/batching.md §2.2). Only runs on an
/// [`InferenceService`](fairyzero_model::service::InferenceService) use `in_flight` and
/// `groups`; `max_batch` also sizes the batches of a blocking network backend.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BatchingConfig {
    /// Most positions in one forward, across all search threads; 0 (default): chosen for the
    /// device ([`SelfPlayConfig::service_config`]).
    pub max_batch: u32,
    /// How long a non-empty batch may wait for more leaves once the executor is idle, in
    /// microseconds (0: launch as soon as it is idle).
    pub max_wait_us: u64,
    /// Batches the service keeps at start (filling, queued, running, being read out).
    pub in_flight: u32,
    /// Groups of games per search thread: one group searches while another waits for its
    /// evaluations (1: a thread's games search or wait, never both).
    pub groups: u32,
}

impl Default for BatchingConfig {
    fn default() -> Self {
        BatchingConfig { max_batch: 0, max_wait_us: 0, in_flight: 3, groups: 2 }
    }
}

/// What `max_batch = 0` means on a CPU: larger forwards gain little there and delay every
/// search thread's answers (docs/performance.md, "Batching").
pub const CPU_MAX_BATCH: usize = 64;

impl BatchingConfig {
    /// The service configuration these keys describe, on a CPU (`max_batch = 0`:
    /// [`CPU_MAX_BATCH`]); [`SelfPlayConfig::service_config`] adds the games' own bounds.
    pub fn service_config(&self) -> fairyzero_model::service::ServiceConfig {
        fairyzero_model::service::ServiceConfig {
            max_batch: if self.max_batch == 0 { CPU_MAX_BATCH } else { self.max_batch as usize },
            max_wait: std::time::Duration::from_micros(self.max_wait_us),
            in_flight: self.in_flight as usize,
            ..Default::default()
        }
    }
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            search: SearchKind::Gumbel,
            simulations: 32,
            games_in_parallel: 64,
            threads: 2,
            leaves_per_game: 1,
            reuse_tree: true,
            skip_forced_moves: true,
            immediate_wins: true,
            move_cap: None,
            move_cap_result: CapResult::Draw,
            setup: SetupMode::Phase,
            games_per_file: 100,
            puct: PuctConfig::default(),
            gumbel: GumbelConfig::default(),
            playout_cap: None,
            batching: BatchingConfig::default(),
            ramp_secs: 0.0,
        }
    }
}

/// A configuration that cannot be used; lists every problem.
#[derive(Debug, thiserror::Error)]
#[error("invalid self-play configuration: {}", .problems.join("; "))]
pub struct ConfigError {
    pub problems: Vec<String>,
}

impl SelfPlayConfig {
    /// The inference service of these games: `[selfplay.batching]`, with `max_batch` never
    /// below one search thread's leaves (its submission is then one forward) and
    /// `max_batch = 0` chosen per device: [`CPU_MAX_BATCH`] on a CPU; on an accelerator one
    /// group of every search thread at once, `games_in_parallel * leaves_per_game / groups`
    /// (at least 64), so that one forward runs while the other groups fill the next. On an
    /// H100 the cap of 64 held Scirocco's tiny net to 28,000 evaluations/s, a forward of 512
    /// reached 142,000 (docs/performance.md, "GPU figures").
    pub fn service_config(&self) -> fairyzero_model::service::ServiceConfig {
        let leaves = self.games_in_parallel as usize * self.leaves_per_game.max(1) as usize;
        let per_worker = (leaves / self.threads.max(1) as usize).max(1);
        let mut service = self.batching.service_config();
        service.max_batch = service.max_batch.max(per_worker);
        if self.batching.max_batch == 0 {
            let all_groups = leaves / self.batching.groups.max(1) as usize;
            service.accelerated_max_batch =
                Some(all_groups.max(per_worker).max(CPU_MAX_BATCH).min(limits::MAX_BATCH as usize));
        }
        service
    }

    /// Checks value ranges, returning every problem at once.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let mut problems = Vec::new();
        let mut check = |ok: bool, msg: &str| {
            if !ok {
                problems.push(msg.to_string());
            }
        };
        check(self.simulations >= 1, "`simulations` must be at least 1");
        check(self.games_in_parallel >= 1, "`games_in_parallel` must be at least 1");
        check(self.threads >= 1, "`threads` must be at least 1");
        check(self.threads <= self.games_in_parallel, "`threads` must not exceed `games_in_parallel`");
        check(self.leaves_per_game >= 1, "`leaves_per_game` must be at least 1");
        check(self.games_per_file >= 1, "`games_per_file` must be at least 1");
        check(self.move_cap != Some(0), "`move_cap` must be at least 1");
        let b = &self.batching;
        check(b.in_flight >= 1, "`batching.in_flight` must be at least 1");
        check(b.groups >= 1, "`batching.groups` must be at least 1");
        let (p, g) = (&self.puct, &self.gumbel);
        // A non-finite value passes the range checks below (`inf > 0`) and then turns every
        // search score it enters into inf or NaN: the search plays arbitrary moves and the
        // records it writes say nothing.
        let mut floats = vec![
            ("`puct.c_puct`", p.c_puct),
            ("`puct.fpu_reduction`", p.fpu_reduction),
            ("`puct.dirichlet_alpha`", p.dirichlet_alpha),
            ("`puct.dirichlet_epsilon`", p.dirichlet_epsilon),
            ("`gumbel.c_visit`", g.c_visit),
            ("`gumbel.c_scale`", g.c_scale),
        ];
        floats.extend(p.temperature.iter().map(|t| ("`puct.temperature` value", t.value)));
        floats.extend(self.playout_cap.iter().map(|c| ("`playout_cap.full_fraction`", c.full_fraction)));
        for (key, value) in floats {
            check(value.is_finite(), &format!("{key} must be a finite number (it is {value})"));
        }
        check(self.ramp_secs.is_finite(), &format!("`ramp_secs` must be a finite number (it is {})", self.ramp_secs));
        check(self.ramp_secs.is_nan() || self.ramp_secs >= 0.0, "`ramp_secs` must not be negative");
        check(p.c_puct > 0.0, "`puct.c_puct` must be positive");
        check(p.fpu_reduction >= 0.0, "`puct.fpu_reduction` must not be negative");
        check(p.dirichlet_alpha > 0.0, "`puct.dirichlet_alpha` must be positive");
        check((0.0..=1.0).contains(&p.dirichlet_epsilon), "`puct.dirichlet_epsilon` must be in [0, 1]");
        check(p.temperature.iter().all(|s| s.value >= 0.0), "`puct.temperature` values must not be negative");
        check(p.temperature.windows(2).all(|w| w[0].ply < w[1].ply), "`puct.temperature` plies must increase");
        check(g.considered_actions >= 1, "`gumbel.considered_actions` must be at least 1");
        check(g.c_visit >= 0.0 && g.c_scale > 0.0, "`gumbel.c_visit` must be >= 0 and `gumbel.c_scale` > 0");
        if let Some(cap) = &self.playout_cap {
            check((0.0..=1.0).contains(&cap.full_fraction), "`playout_cap.full_fraction` must be in [0, 1]");
            check(cap.reduced_simulations >= 1, "`playout_cap.reduced_simulations` must be at least 1");
        }
        // Upper bounds: these counts size allocations and spawn threads (see `limits`).
        let mut bounds = vec![
            ("`simulations`", u64::from(self.simulations), limits::MAX_SIMULATIONS),
            ("`games_in_parallel`", u64::from(self.games_in_parallel), limits::MAX_PARALLEL),
            ("`threads`", u64::from(self.threads), limits::MAX_THREADS),
            ("`leaves_per_game`", u64::from(self.leaves_per_game), limits::MAX_BATCH),
            ("`games_per_file`", u64::from(self.games_per_file), limits::MAX_PARALLEL),
            ("`move_cap`", self.move_cap.map_or(0, u64::from), limits::MAX_PLIES),
            ("`gumbel.considered_actions`", u64::from(g.considered_actions), limits::MAX_SIMULATIONS),
            ("`batching.max_batch`", u64::from(b.max_batch), limits::MAX_BATCH),
            ("`batching.max_wait_us`", b.max_wait_us, limits::MAX_WAIT_US),
            ("`batching.in_flight`", u64::from(b.in_flight), limits::MAX_IN_FLIGHT),
            ("`batching.groups`", u64::from(b.groups), limits::MAX_PARALLEL),
        ];
        if let Some(cap) = &self.playout_cap {
            bounds.push((
                "`playout_cap.reduced_simulations`",
                u64::from(cap.reduced_simulations),
                limits::MAX_SIMULATIONS,
            ));
        }
        for (key, value, max) in bounds {
            if let Err(problem) = limits::check_at_most(key, value, max) {
                problems.push(problem);
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(ConfigError { problems })
        }
    }
}

/// What a run file says about self-play: the variant (top-level `variant` key) and the
/// `[selfplay]` section. Other sections belong to other parts of the program and are ignored
/// here; unknown keys inside `[selfplay]` are errors.
#[derive(Clone, Debug)]
pub struct RunSelfPlay {
    pub variant: Option<String>,
    pub selfplay: SelfPlayConfig,
}

/// Errors from reading a run file.
#[derive(Debug, thiserror::Error)]
pub enum RunFileError {
    #[error("cannot read run configuration {path}: {error}")]
    Io { path: String, error: std::io::Error },
    #[error("run configuration {path}: {message}")]
    Invalid { path: String, message: String },
}

impl RunSelfPlay {
    pub fn load(path: &Path) -> Result<RunSelfPlay, RunFileError> {
        let text = std::fs::read_to_string(path)
            .map_err(|error| RunFileError::Io { path: path.display().to_string(), error })?;
        RunSelfPlay::parse(&path.display().to_string(), &text)
    }

    pub fn parse(source: &str, text: &str) -> Result<RunSelfPlay, RunFileError> {
        let invalid = |message: String| RunFileError::Invalid { path: source.to_string(), message };
        let table: toml::Table = toml::from_str(text).map_err(|e| invalid(e.to_string().trim().replace('\n', " ")))?;
        let variant = match table.get("variant") {
            None => None,
            Some(toml::Value::String(s)) => Some(s.clone()),
            Some(_) => return Err(invalid("key `variant` must be a string".into())),
        };
        let section = table.get("selfplay").cloned().unwrap_or(toml::Value::Table(toml::Table::new()));
        let selfplay: SelfPlayConfig = section.try_into().map_err(|e: toml::de::Error| {
            invalid(format!("[selfplay]: {}", e.to_string().trim().replace('\n', " ")))
        })?;
        selfplay.validate().map_err(|e| invalid(e.to_string()))?;
        Ok(RunSelfPlay { variant, selfplay })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_are_refused() {
        let err = RunSelfPlay::parse("x.toml", "[selfplay]\nsimulatoins = 3\n").unwrap_err();
        assert!(err.to_string().contains("simulatoins"), "{err}");
        let err = RunSelfPlay::parse("x.toml", "[selfplay.puct]\nc = 3\n").unwrap_err();
        assert!(err.to_string().contains("unknown field `c`"), "{err}");
    }

    #[test]
    fn every_problem_is_listed() {
        let err = RunSelfPlay::parse("x.toml", "[selfplay]\nsimulations = 0\nthreads = 0\n").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("`simulations`") && text.contains("`threads`"), "{text}");
    }

    /// TOML has `inf` and `nan`; both pass a `> 0` range check, so finiteness is its own.
    #[test]
    fn every_float_must_be_finite() {
        for (line, key) in [
            ("[selfplay.puct]\nc_puct = inf", "`puct.c_puct` must be a finite number (it is inf)"),
            ("[selfplay.puct]\nfpu_reduction = nan", "`puct.fpu_reduction` must be a finite number (it is NaN)"),
            ("[selfplay.puct]\ndirichlet_alpha = inf", "`puct.dirichlet_alpha` must be a finite number"),
            ("[selfplay.puct]\ndirichlet_epsilon = nan", "`puct.dirichlet_epsilon` must be a finite number"),
            ("[selfplay.puct]\ntemperature = [{ ply = 0, value = inf }]", "`puct.temperature` value must be a finite"),
            ("[selfplay.gumbel]\nc_visit = inf", "`gumbel.c_visit` must be a finite number"),
            ("[selfplay.gumbel]\nc_scale = nan", "`gumbel.c_scale` must be a finite number"),
            (
                "[selfplay.playout_cap]\nfull_fraction = nan\nreduced_simulations = 10",
                "`playout_cap.full_fraction` must be a finite number",
            ),
        ] {
            let err = RunSelfPlay::parse("x.toml", line).unwrap_err().to_string();
            assert!(err.contains(key), "{line}: {err}");
        }
        assert!(RunSelfPlay::parse("x.toml", "[selfplay.puct]\nc_puct = 1e30\n").is_ok());
    }

    #[test]
    fn setup_modes_and_temperature() {
        let run = RunSelfPlay::parse(
            "x.toml",
            "variant = \"chess\"\n[trainer]\nlr = 1\n[selfplay]\nsetup = \"default\"\n\
             [selfplay.puct]\ntemperature = [{ ply = 0, value = 1.0 }, { ply = 10, value = 0.5 }]\n",
        )
        .unwrap();
        assert_eq!(run.variant.as_deref(), Some("chess"));
        assert_eq!(run.selfplay.setup, SetupMode::Default);
        assert_eq!(run.selfplay.puct.temperature_at(9), 1.0);
        assert_eq!(run.selfplay.puct.temperature_at(10), 0.5);
        let fen: SetupMode = toml::from_str::<SelfPlayConfig>("setup = \"8/8 w\"").unwrap().setup;
        assert_eq!(fen, SetupMode::Fen("8/8 w".into()));
    }

    #[test]
    fn example_config_is_valid() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/runs/selfplay-example.toml");
        let run = RunSelfPlay::load(Path::new(path)).unwrap();
        assert_eq!(run.variant.as_deref(), Some("scirocco"));
        assert!(run.selfplay.playout_cap.is_some());
        assert_eq!(run.selfplay.batching, BatchingConfig::default());
    }

    /// `ramp_secs` takes an integer or a float; infinite, NaN and negative values are refused by
    /// name, and so is a typo of the key.
    #[test]
    fn ramp_secs_is_read_and_checked() {
        assert_eq!(SelfPlayConfig::default().ramp_secs, 0.0);
        assert_eq!(RunSelfPlay::parse("x.toml", "[selfplay]\nramp_secs = 120\n").unwrap().selfplay.ramp_secs, 120.0);
        assert_eq!(RunSelfPlay::parse("x.toml", "[selfplay]\nramp_secs = 2.5\n").unwrap().selfplay.ramp_secs, 2.5);
        for (value, problem) in [
            ("inf", "`ramp_secs` must be a finite number (it is inf)"),
            ("nan", "`ramp_secs` must be a finite number (it is NaN)"),
            ("-1.0", "`ramp_secs` must not be negative"),
        ] {
            let err = RunSelfPlay::parse("x.toml", &format!("[selfplay]\nramp_secs = {value}\n")).unwrap_err();
            assert!(err.to_string().contains(problem), "{value}: {err}");
        }
        let err = RunSelfPlay::parse("x.toml", "[selfplay]\nramp_sec = 2\n").unwrap_err();
        assert!(err.to_string().contains("ramp_sec"), "{err}");
    }

    /// `max_batch = 0` is one group of every search thread on an accelerator and 64 on a CPU;
    /// an explicit cap holds on both; neither is ever below one search thread's leaves.
    #[test]
    fn the_service_cap_is_chosen_per_device_unless_set() {
        let games = |parallel, threads| SelfPlayConfig { games_in_parallel: parallel, threads, ..Default::default() };
        let auto = games(512, 12).service_config();
        assert_eq!((auto.max_batch, auto.accelerated_max_batch), (64, Some(256)));
        let small = games(32, 2).service_config();
        assert_eq!((small.max_batch, small.accelerated_max_batch), (64, Some(64)));
        let wide = games(1024, 2).service_config();
        assert_eq!((wide.max_batch, wide.accelerated_max_batch), (512, Some(512)));
        let mut set = games(512, 12);
        set.batching.max_batch = 100;
        set.leaves_per_game = 4;
        let set = set.service_config();
        assert_eq!((set.max_batch, set.accelerated_max_batch), (170, None));
    }

    #[test]
    fn batching_keys_are_read_checked_and_typos_refused() {
        let run = RunSelfPlay::parse("x.toml", "[selfplay.batching]\nmax_batch = 1024\nmax_wait_us = 0\n").unwrap();
        assert_eq!(run.selfplay.batching, BatchingConfig { max_batch: 1024, max_wait_us: 0, ..Default::default() });
        let service = run.selfplay.batching.service_config();
        assert_eq!((service.max_batch, service.max_wait.as_micros(), service.in_flight), (1024, 0, 3));
        let err = RunSelfPlay::parse("x.toml", "[selfplay.batching]\nmax_bach = 2\n").unwrap_err();
        assert!(err.to_string().contains("max_bach"), "{err}");
        let err = RunSelfPlay::parse("x.toml", "[selfplay.batching]\ngroups = 0\nmax_batch = 20000\n").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("`batching.groups`") && text.contains("`batching.max_batch` must be at most"), "{text}");
    }
}
