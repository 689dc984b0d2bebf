//! Checkpoint evaluation through the evaluator crate: matches against baselines and earlier
//! checkpoints, SPRT gating, and the ranking of the whole run.
//!
//! Checkpoint players are [`PlayerSpec::Checkpoint`]s of the store's `checkpoints/step-NNNNNNNN`
//! folders (relative to the store root), so that they are named as `fairyzero rank` expects,
//! `checkpoints/step-NNNNNNNN@SIMS`, and search with the net alone: the evaluator's search
//! player, no hand-written evaluation. Every match is stored under a deterministic name
//! (`matches/<label>.jsonl`): a resumed run finds matches it already played and does not play
//! them again.

use std::{
    path::{Path, PathBuf},
    sync::Arc,
};

use anyhow::Context;
use fairyzero_evaluator::{
    matches::fnv1a,
    ranking::{build_ranking, write_outputs, Ranking},
    ratings::{elo_from_score, wilson_interval},
    run_match, run_sprt_match, CheckpointLoader, Contestant, LoadError, LoadProblem, LoadedCheckpoint, MatchOptions,
    MatchReport, PlayerSpec, RatingOptions, SearchPlayerConfig, SprtParams, SprtStatus,
};
use fairyzero_model::{service::ServiceConfig, Precision};
use fairyzero_rules::Variant;
use fairyzero_selfplay::{search::SearchParams, SelfPlayConfig};
use fairyzero_torch::{serve_checkpoint, Device, ExecutorOptions};
use serde::Serialize;

use crate::{
    artifacts::{self, CheckpointManifest},
    config::{EvalConfig, SprtGateConfig},
    store::Store,
};

/// Loads checkpoints of the run's store for the evaluator (verified against their manifests).
pub struct StoreLoader {
    pub store: Arc<dyn Store>,
    pub cache: PathBuf,
    pub device: Device,
    pub inference_threads: Option<usize>,
    pub max_batch: usize,
    /// The run's `precision`, resolved for `device`.
    pub precision: Precision,
}

impl CheckpointLoader for StoreLoader {
    fn load(&self, path: &Path, variant: &Arc<Variant>) -> Result<LoadedCheckpoint, LoadError> {
        let unreadable = |e| LoadError::unreadable(path, e);
        let key = path.to_string_lossy().trim_end_matches('/').to_string();
        let name = key.rsplit('/').next().unwrap_or(&key).to_string();
        let manifests = artifacts::list_checkpoints(self.store.as_ref()).map_err(unreadable)?;
        let manifest =
            manifests.iter().find(|m| m.name == name).ok_or_else(|| LoadError::new(path, LoadProblem::NotInStore))?;
        let dir = artifacts::checkpoint_dir(self.store.as_ref(), manifest, &self.cache).map_err(unreadable)?;
        // The match's games share the service: a lone search is never kept waiting for company
        // (`max_wait` 0), and parallel games fill the next batch while one runs.
        let service = ServiceConfig {
            max_batch: self.max_batch.max(1),
            max_wait: std::time::Duration::ZERO,
            ..ServiceConfig::default()
        };
        let options = ExecutorOptions { threads: self.inference_threads, precision: self.precision };
        let eval = serve_checkpoint(&dir, Arc::clone(variant), None, self.device, service, options)
            .map_err(|e| LoadError::unreadable(path, e))?;
        Ok(LoadedCheckpoint { backend: Arc::new(eval), step: Some(manifest.step) })
    }
}

/// How the run's checkpoint players search in its matches: the search the run trains with
/// (`[selfplay]` `search`, `[selfplay.puct]`, `[selfplay.gumbel]`), so that a checkpoint is
/// rated with the search that produced its training data. The simulations come from each
/// player's spec (`eval.simulations`, `@N`), not from `selfplay.simulations`.
///
/// Exploration noise stays off without anything done here: Dirichlet noise and root Gumbel
/// noise are per-search [`SearchOptions`](fairyzero_selfplay::search::SearchOptions), which the
/// evaluator's search player always sets to `SearchOptions::exact`; `SearchParams` carries none.
pub fn evaluation_search(selfplay: &SelfPlayConfig) -> SearchPlayerConfig {
    let params = SearchParams {
        // `leaves_per_game` is a batching device of self-play (virtual loss, for bigger batches
        // when few games run at once), not part of the search being rated: a match batches
        // across its parallel games instead, and one leaf per round keeps the search exact,
        // as `fairyzero match` plays it.
        leaves_per_round: 1,
        ..SearchParams::from_config(selfplay)
    };
    SearchPlayerConfig { params, ..SearchPlayerConfig::default() }
}

/// The player of the store's checkpoint `name`, named `checkpoints/<name>@<simulations>`.
pub fn checkpoint_player(name: &str, simulations: u32) -> PlayerSpec {
    PlayerSpec::Checkpoint { path: PathBuf::from(artifacts::checkpoint_prefix(name)), simulations }
}

/// One match's result from the checkpoint's side.
#[derive(Clone, Debug, Serialize)]
pub struct MatchSummary {
    pub player: String,
    pub opponent: String,
    pub games: usize,
    pub wins: usize,
    pub draws: usize,
    pub losses: usize,
    pub score: f64,
    /// 95% Wilson interval of the score.
    pub score_low: f64,
    pub score_high: f64,
    /// The Elo difference the score implies, and the interval the score interval implies.
    pub elo: f64,
    pub elo_low: f64,
    pub elo_high: f64,
    pub distinct_games: usize,
    pub openings: usize,
}

impl MatchSummary {
    pub fn from_report(r: &MatchReport) -> MatchSummary {
        let (lo, hi) = r.interval();
        // No "-0" in reports.
        let elo = |s: f64| {
            let e = elo_from_score(s);
            if e == 0.0 {
                0.0
            } else {
                e
            }
        };
        MatchSummary {
            player: r.a.clone(),
            opponent: r.b.clone(),
            games: r.games(),
            wins: r.wins,
            draws: r.draws,
            losses: r.losses,
            score: r.score(),
            score_low: lo,
            score_high: hi,
            elo: elo(r.score()),
            elo_low: elo(lo),
            elo_high: elo(hi),
            distinct_games: r.distinct_games,
            openings: r.openings,
        }
    }

    /// `A vs B: +W =D -L, score S [lo, hi], Elo E [lo, hi]`.
    pub fn line(&self) -> String {
        format!(
            "{} vs {}: +{} ={} -{} of {}, score {:.1}% [{:.1}, {:.1}], Elo {:+.0} [{:+.0}, {:+.0}]",
            self.player,
            self.opponent,
            self.wins,
            self.draws,
            self.losses,
            self.games,
            100.0 * self.score,
            100.0 * self.score_low,
            100.0 * self.score_high,
            self.elo,
            self.elo_low,
            self.elo_high
        )
    }
}

/// Plays (or finds in the store) matches for the run.
pub struct CheckpointMatches<'a> {
    pub variant: Arc<Variant>,
    pub store: Arc<dyn Store>,
    pub loader: &'a StoreLoader,
    pub config: &'a EvalConfig,
    /// The run's self-play settings: its checkpoints play matches with that search
    /// ([`evaluation_search`]).
    pub selfplay: &'a SelfPlayConfig,
    pub seed: u64,
    pub run_dir: PathBuf,
    /// Ends a match in progress after its current games (signal handlers); see `MatchOptions`.
    pub stop: Option<Arc<std::sync::atomic::AtomicBool>>,
}

impl CheckpointMatches<'_> {
    fn search(&self) -> SearchPlayerConfig {
        evaluation_search(self.selfplay)
    }

    /// A baseline, or a checkpoint of the store ([`checkpoint_player`]).
    pub fn contestant(&self, spec: &PlayerSpec) -> anyhow::Result<Contestant> {
        Ok(spec.contestant(&self.variant, Some(self.loader), &self.search())?)
    }

    fn options(&self, games: usize, label: &str) -> MatchOptions {
        MatchOptions {
            games,
            random_plies: self.config.random_plies,
            seed: self.seed ^ fnv1a(label),
            move_cap: self.config.move_cap,
            threads: self.config.threads,
            // Resolved by the trainer (0 there means "the cores self-play leaves").
            cpu_threads: self.config.cpu_threads,
            record_moves: false,
            match_id: Some(label.to_string()),
            stop: self.stop.clone(),
            ..MatchOptions::default()
        }
    }

    /// Plays `a` against `b` for `games` games, or reads the stored match `label`.
    pub fn play(&self, a: &Contestant, b: &Contestant, games: usize, label: &str) -> anyhow::Result<MatchReport> {
        let key = artifacts::match_key(label);
        if self.store.exists(&key)? {
            let (records, problems) = artifacts::read_match_file(self.store.as_ref(), &key)?;
            for p in problems.iter().take(3) {
                tracing::warn!("skipping a stored match result: {p}");
            }
            return Ok(MatchReport::from_records(&a.name, &b.name, records.into_iter().map(|(_, r)| r).collect()));
        }
        let report = run_match(&self.variant, a, b, &self.options(games, label), None)
            .with_context(|| format!("match {label}"))?;
        artifacts::publish_matches(self.store.as_ref(), label, &report.records)?;
        Ok(report)
    }

    /// SPRT gating of `candidate` against `best`; the match is stored like any other.
    pub fn gate(
        &self,
        candidate: &Contestant,
        best: &Contestant,
        sprt: &SprtGateConfig,
        label: &str,
    ) -> anyhow::Result<(MatchReport, SprtStatus)> {
        let params = SprtParams { elo0: sprt.elo0, elo1: sprt.elo1, alpha: sprt.alpha, beta: sprt.beta };
        let key = artifacts::match_key(label);
        if self.store.exists(&key)? {
            let (records, _) = artifacts::read_match_file(self.store.as_ref(), &key)?;
            let report =
                MatchReport::from_records(&candidate.name, &best.name, records.into_iter().map(|(_, r)| r).collect());
            let status = params.status(report.wins, report.draws, report.losses);
            return Ok((report, status));
        }
        let (report, status) = run_sprt_match(
            &self.variant,
            candidate,
            best,
            &self.options(sprt.max_games, label),
            &params,
            sprt.batch,
            None,
        )
        .with_context(|| format!("gating match {label}"))?;
        artifacts::publish_matches(self.store.as_ref(), label, &report.records)?;
        Ok((report, status))
    }

    /// Rates every player of every stored match, writes `ranking.md`, `ranking.json` and
    /// `ranking.png` into the run directory, and publishes the ranking to the store
    /// (`ratings/<unix_ms>.json`, for readers without the run directory: workers' operators,
    /// `fairyzero rank --store`).
    pub fn rank(&self, bootstrap: usize) -> anyhow::Result<Ranking> {
        let options = RatingOptions {
            ci: fairyzero_evaluator::CiMethod::Bootstrap(bootstrap),
            seed: self.seed,
            ..RatingOptions::default()
        };
        let ranking = rank_store(self.store.as_ref(), &options)?;
        write_outputs(&self.run_dir, &ranking)?;
        let key = format!("{}{:013}.json", artifacts::RATINGS_DIR, artifacts::unix_ms());
        match self.store.publish(&key, ranking.to_json().into_bytes()) {
            // Two rankings in one millisecond: the first stands.
            Ok(()) | Err(crate::store::StoreError::Exists { .. }) => {}
            Err(e) => return Err(e.into()),
        }
        Ok(ranking)
    }
}

/// Rates every player of every match stored in `store` (checkpoint players placed by their
/// training step), as the trainer and `fairyzero rank --store` do.
pub fn rank_store(store: &dyn Store, options: &RatingOptions) -> anyhow::Result<Ranking> {
    let (records, problems) = artifacts::read_all_matches(store)?;
    for p in problems.iter().take(3) {
        tracing::warn!("skipping a stored match result: {p}");
    }
    let mut ranking = build_ranking(&records, step_of_player, options);
    ranking.skipped_lines = problems.len();
    Ok(ranking)
}

/// The training step in a checkpoint player's name (`checkpoints/step-00000100@16` -> 100).
pub fn step_of_player(name: &str) -> Option<u64> {
    let Ok(PlayerSpec::Checkpoint { path, .. }) = name.parse() else { return None };
    artifacts::checkpoint_step(path.file_name()?.to_str()?)
}

/// The checkpoint evaluated last before `step` (matches named `eval-<name>-…` exist for it).
pub fn previous_evaluated(
    store: &dyn Store,
    manifests: &[CheckpointManifest],
    step: u64,
) -> anyhow::Result<Option<String>> {
    let evaluated: Vec<String> = store.list(artifacts::MATCHES_DIR)?.into_iter().map(|o| o.key).collect();
    Ok(manifests
        .iter()
        .rev()
        .filter(|m| m.step < step)
        .find(|m| evaluated.iter().any(|k| k.starts_with(&format!("{}eval-{}-", artifacts::MATCHES_DIR, m.name))))
        .map(|m| m.name.clone()))
}

/// The Wilson interval of a score, in Elo.
pub fn elo_interval(points: f64, games: f64) -> (f64, f64) {
    let (lo, hi) = wilson_interval(points, games, 1.959_964);
    (elo_from_score(lo), elo_from_score(hi))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{config::RunConfig, store::ObjectStoreBackend};
    use fairyzero_selfplay::config::SearchKind;

    /// The checkpoint players' search of a run with `overrides` on a minimal config, as the
    /// run's match driver builds it.
    fn run_search(overrides: &[&str]) -> SearchPlayerConfig {
        let text = "variant = \"gardner\"\nrun_dir = \"r\"\n[net]\nsize = \"tiny\"\n[budget]\ngames = 10\n";
        let overrides: Vec<String> = overrides.iter().map(|o| o.to_string()).collect();
        let config = RunConfig::parse("test.toml", text, &overrides).unwrap();
        let store: Arc<dyn Store> = Arc::new(ObjectStoreBackend::open("memory://").unwrap());
        let loader = StoreLoader {
            store: Arc::clone(&store),
            cache: PathBuf::from("unused"),
            device: Device::Cpu,
            inference_threads: None,
            max_batch: 1,
            precision: Precision::Fp32,
        };
        let matches = CheckpointMatches {
            variant: Variant::load("gardner").unwrap(),
            store,
            loader: &loader,
            config: &config.eval,
            selfplay: &config.selfplay,
            seed: 0,
            run_dir: PathBuf::from("unused"),
            stop: None,
        };
        matches.search()
    }

    #[test]
    fn checkpoints_are_evaluated_with_the_search_the_run_trains_with() {
        let puct = run_search(&[
            "selfplay.search=\"puct\"",
            "selfplay.puct.c_puct=2.5",
            "selfplay.puct.fpu_reduction=0.75",
            "selfplay.puct.dirichlet_epsilon=0.5",
            "selfplay.leaves_per_game=4",
            "selfplay.simulations=48",
        ]);
        assert_eq!(puct.params.kind, SearchKind::Puct);
        assert_eq!((puct.params.c_puct, puct.params.fpu_reduction), (2.5, 0.75));
        // Virtual loss is self-play's batching, not the search rated: matches search exactly.
        assert_eq!(puct.params.leaves_per_round, 1);
        // The budget is the evaluation's (`eval.simulations`, `@N`), not self-play's.
        assert_eq!(puct.simulations, SearchPlayerConfig::default().simulations);

        let gumbel = run_search(&["selfplay.gumbel.considered_actions=4", "selfplay.gumbel.c_visit=20.0"]);
        assert_eq!(gumbel.params.kind, SearchKind::Gumbel);
        assert_eq!((gumbel.params.gumbel.considered_actions, gumbel.params.gumbel.c_visit), (4, 20.0));

        // A run with the default `[selfplay]` plays exactly as before, and as `fairyzero match`
        // does, so its stored matches and ratings stay comparable.
        assert_eq!(run_search(&[]), SearchPlayerConfig::default());
    }

    #[test]
    fn steps_from_player_names() {
        assert_eq!(step_of_player("checkpoints/step-00000100@16"), Some(100));
        assert_eq!(step_of_player("checkpoints/step-00000000@16"), Some(0));
        assert_eq!(step_of_player("random"), None);
        assert_eq!(step_of_player("alphabeta:2"), None);
        assert_eq!(step_of_player("checkpoints/step-00000009"), Some(9));
        // The names stored matches and rankings already use.
        assert_eq!(checkpoint_player("step-00000007", 8).to_string(), "checkpoints/step-00000007@8");
        assert_eq!(step_of_player(&checkpoint_player("step-00000042", 8).to_string()), Some(42));
    }
}
