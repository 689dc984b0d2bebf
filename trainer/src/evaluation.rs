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
    ranking::{build_ranking, write_outputs, Ranking},
    ratings::{elo_from_score, wilson_interval},
    run_match, run_sprt_match, CheckpointLoader, Contestant, LoadError, LoadProblem, LoadedCheckpoint, MatchOptions,
    MatchReport, PlayerSpec, RatingOptions, SearchPlayerConfig, SprtParams, SprtStatus,
};
use fairyzero_model::{service::ServiceConfig, Precision};
use fairyzero_rules::Variant;
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
    pub seed: u64,
    pub run_dir: PathBuf,
    /// Ends a match in progress after its current games (signal handlers); see `MatchOptions`.
    pub stop: Option<Arc<std::sync::atomic::AtomicBool>>,
}

impl CheckpointMatches<'_> {
    fn search(&self) -> SearchPlayerConfig {
        SearchPlayerConfig::default()
    }

    /// A baseline, or a checkpoint of the store ([`checkpoint_player`]).
    pub fn contestant(&self, spec: &PlayerSpec) -> anyhow::Result<Contestant> {
        Ok(spec.contestant(&self.variant, Some(self.loader), &self.search())?)
    }

    fn options(&self, games: usize, label: &str) -> MatchOptions {
        MatchOptions {
            games,
            random_plies: self.config.random_plies,
            seed: self.seed ^ fnv(label),
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

    /// Rates every player of every stored match and writes `ranking.md`, `ranking.json` and
    /// `ranking.png` into the run directory.
    pub fn rank(&self, bootstrap: usize) -> anyhow::Result<Ranking> {
        let (records, problems) = artifacts::read_all_matches(self.store.as_ref())?;
        for p in problems.iter().take(3) {
            tracing::warn!("skipping a stored match result: {p}");
        }
        let options = RatingOptions {
            ci: fairyzero_evaluator::CiMethod::Bootstrap(bootstrap),
            seed: self.seed,
            ..RatingOptions::default()
        };
        let mut ranking = build_ranking(&records, step_of_player, &options);
        ranking.skipped_lines = problems.len();
        write_outputs(&self.run_dir, &ranking)?;
        Ok(ranking)
    }
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

fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3))
}

/// The Wilson interval of a score, in Elo.
pub fn elo_interval(points: f64, games: f64) -> (f64, f64) {
    let (lo, hi) = wilson_interval(points, games, 1.959_964);
    (elo_from_score(lo), elo_from_score(hi))
}

#[cfg(test)]
mod tests {
    use super::*;

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
