//! `fairyzero rank --run DIR`: ratings of every player of a run from all its stored games,
//! written as `DIR/ranking.md`, `DIR/ranking.json` and `DIR/ranking.png` (Elo against training
//! step).
//!
//! Players are named by their specs. A checkpoint player is `PATH@SIMS`, with `PATH` relative
//! to the run directory (e.g. `checkpoints/step-000100@64`); its training step comes from the
//! stored records (`blue_step`/`tan_step`), else from the checkpoint's `header.json`, else from
//! the digits of its folder name. Baselines (`random`, `greedy`, `alphabeta:…`) anchor the
//! scale: `random` is 0 Elo when it played.
//!
//! "Best" is the highest-rated checkpoint (the highest-rated player if there is none); each
//! player's score against it is its actual score in games against the best, with the number of
//! those games, plus the score its rating difference predicts.

use std::{
    collections::{BTreeMap, HashMap, HashSet},
    fs,
    path::{Path, PathBuf},
};

use serde::{Deserialize, Serialize};

use crate::{
    matches::MatchGame,
    player::PlayerSpec,
    ratings::{expected_score, rate_records, RatingOptions},
    store::{checkpoint_step, ResultStore},
    Error,
};

pub const RANKING_MD: &str = "ranking.md";
pub const RANKING_JSON: &str = "ranking.json";
pub const RANKING_PNG: &str = "ranking.png";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlayerKind {
    Checkpoint,
    Baseline,
}

/// Actual results against the best player.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VersusBest {
    pub games: usize,
    pub score: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankEntry {
    pub rank: usize,
    pub player: String,
    pub kind: PlayerKind,
    pub step: Option<u64>,
    pub games: usize,
    pub points: f64,
    pub elo: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    /// Games and score against the best player (`None` for the best itself or without games).
    pub score_vs_best: Option<VersusBest>,
    /// Expected score against the best from the ratings.
    pub expected_vs_best: f64,
    /// Connected to the anchor by games (otherwise the rating is only relative to its group).
    pub connected: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ranking {
    pub games: usize,
    pub distinct_games: usize,
    pub anchor: Option<String>,
    pub method: String,
    pub best: Option<String>,
    /// Highest Elo first.
    pub entries: Vec<RankEntry>,
    /// Lines of the store that could not be read.
    #[serde(default)]
    pub skipped_lines: usize,
    /// Whole files of the store that could not be read (unreadable, or not UTF-8 text).
    #[serde(default)]
    pub skipped_files: usize,
}

/// Ranks a run: reads `DIR/matches/`, rates, writes the three outputs. An anchor that is not a
/// player of the stored games is an error (listing the players), not a silently unanchored scale.
pub fn rank_run(run_dir: &Path, options: &RatingOptions) -> Result<Ranking, Error> {
    let stored = ResultStore::new(run_dir).load()?;
    for f in &stored.skipped_files {
        tracing::warn!("skipped a stored results file: {f}");
    }
    for p in stored.problems.iter().take(5) {
        tracing::warn!("skipped a stored result: {p}");
    }
    if let Some(anchor) = &options.anchor {
        let mut players: Vec<&str> = stored.records.iter().flat_map(|r| [r.blue.as_str(), r.tan.as_str()]).collect();
        players.sort_unstable();
        players.dedup();
        if !players.is_empty() && !players.contains(&anchor.as_str()) {
            return Err(Error::PlayerSpec {
                spec: anchor.clone(),
                message: format!(
                    "the anchor is not a player of the stored games; the players are: {}",
                    players.join(", ")
                ),
            });
        }
    }
    let mut ranking = build_ranking(&stored.records, |name| resolve_step(run_dir, name), options);
    ranking.skipped_lines = stored.problems.len();
    ranking.skipped_files = stored.skipped_files.len();
    write_outputs(run_dir, &ranking)?;
    Ok(ranking)
}

/// The spec a player's name stands for: `match` names the second of two equal players
/// `NAME#2`, which is `NAME` (not a checkpoint directory called `random#2`, with step 2).
fn spec_of(name: &str) -> Result<PlayerSpec, Error> {
    let base = match name.rsplit_once('#') {
        Some((base, n)) if !base.is_empty() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => base,
        _ => name,
    };
    PlayerSpec::parse(base)
}

/// The training step of a checkpoint player named `name` in `run_dir` (see the module docs).
pub fn resolve_step(run_dir: &Path, name: &str) -> Option<u64> {
    let Ok(PlayerSpec::Checkpoint { path, .. }) = spec_of(name) else { return None };
    let full = if path.is_absolute() { path.clone() } else { run_dir.join(&path) };
    checkpoint_step(&full).or_else(|| checkpoint_step(&path)).or_else(|| {
        let last = path.file_name()?.to_str()?;
        let digits: String =
            last.chars().rev().skip_while(|c| !c.is_ascii_digit()).take_while(|c| c.is_ascii_digit()).collect();
        digits.chars().rev().collect::<String>().parse().ok()
    })
}

/// Ratings and per-player statistics from `records`; `step_of` supplies steps the records lack.
pub fn build_ranking(records: &[MatchGame], step_of: impl Fn(&str) -> Option<u64>, options: &RatingOptions) -> Ranking {
    // Adjourned games are records to view, not results.
    let finished: Vec<MatchGame> = records.iter().filter(|r| r.is_finished()).cloned().collect();
    let records = &finished[..];
    let ratings = rate_records(records, options);
    let mut steps: HashMap<&str, u64> = HashMap::new();
    for r in records {
        if let Some(s) = r.blue_step {
            steps.insert(&r.blue, s);
        }
        if let Some(s) = r.tan_step {
            steps.insert(&r.tan, s);
        }
    }
    let kind_of = |name: &str| match spec_of(name) {
        Ok(PlayerSpec::Checkpoint { .. }) => PlayerKind::Checkpoint,
        _ if steps.contains_key(name) => PlayerKind::Checkpoint,
        _ => PlayerKind::Baseline,
    };
    let mut players: Vec<_> = ratings.players.iter().filter(|p| p.games > 0).collect();
    players.sort_by(|a, b| b.elo.total_cmp(&a.elo).then_with(|| a.name.cmp(&b.name)));
    let best = players
        .iter()
        .find(|p| kind_of(&p.name) == PlayerKind::Checkpoint)
        .or(players.first())
        .map(|p| (p.name.clone(), p.elo));
    let mut versus: BTreeMap<&str, (usize, f64)> = BTreeMap::new();
    if let Some((b, _)) = &best {
        for r in records {
            let (other, score) = if r.tan == *b && r.blue != *b {
                (r.blue.as_str(), r.result.blue_score())
            } else if r.blue == *b && r.tan != *b {
                (r.tan.as_str(), 1.0 - r.result.blue_score())
            } else {
                continue;
            };
            let e = versus.entry(other).or_default();
            e.0 += 1;
            e.1 += score;
        }
    }
    let entries = players
        .iter()
        .enumerate()
        .map(|(i, p)| RankEntry {
            rank: i + 1,
            player: p.name.clone(),
            kind: kind_of(&p.name),
            step: steps.get(p.name.as_str()).copied().or_else(|| step_of(&p.name)),
            games: p.games,
            points: p.points,
            elo: p.elo,
            ci_low: p.ci_low,
            ci_high: p.ci_high,
            score_vs_best: versus.get(p.name.as_str()).map(|&(n, s)| VersusBest { games: n, score: s / n as f64 }),
            expected_vs_best: best.as_ref().map_or(0.5, |(_, e)| expected_score(p.elo - e)),
            connected: p.connected,
        })
        .collect();
    let distinct: HashSet<&str> = records.iter().map(|r| r.moves_hash.as_str()).collect();
    Ranking {
        games: records.len(),
        distinct_games: distinct.len(),
        anchor: ratings.anchor,
        method: ratings.method,
        best: best.map(|(n, _)| n),
        entries,
        skipped_lines: 0,
        skipped_files: 0,
    }
}

/// An Elo figure as the tables print it: signed, whole, `+inf`/`-inf` for a clean sweep and
/// `-` for an undefined one (NaN).
pub fn signed_elo(x: f64) -> String {
    if x.is_finite() {
        format!("{x:+.0}")
    } else if x > 0.0 {
        "+inf".into()
    } else if x < 0.0 {
        "-inf".into()
    } else {
        "-".into()
    }
}

impl Ranking {
    pub fn to_markdown(&self) -> String {
        let mut s = String::from("# Ranking\n\n");
        s.push_str(&format!(
            "{} games ({} distinct), {} players. Elo by Bradley-Terry maximum likelihood (draws count half), {}; {}. Intervals: {}.\n\n",
            self.games,
            self.distinct_games,
            self.entries.len(),
            match &self.anchor {
                Some(a) => format!("anchored at `{a}` = 0"),
                None => "mean 0".to_string(),
            },
            match &self.best {
                Some(b) => format!("best: `{b}`"),
                None => "no best".to_string(),
            },
            self.method
        ));
        s.push_str("| # | player | step | games | Elo | 95% CI | score vs best | expected vs best |\n");
        s.push_str("|---:|---|---:|---:|---:|---|---|---:|\n");
        for e in &self.entries {
            let half = (e.ci_high - e.ci_low) / 2.0;
            let vs = match &e.score_vs_best {
                Some(v) => format!("{:.1}% of {}", 100.0 * v.score, v.games),
                None if Some(&e.player) == self.best.as_ref() => "(best)".into(),
                None => "-".into(),
            };
            s.push_str(&format!(
                "| {} | `{}`{} | {} | {} | {} ± {:.0} | [{}, {}] | {} | {:.1}% |\n",
                e.rank,
                e.player,
                if e.connected { "" } else { " (not connected)" },
                e.step.map_or("-".to_string(), |s| s.to_string()),
                e.games,
                signed_elo(e.elo),
                half,
                signed_elo(e.ci_low),
                signed_elo(e.ci_high),
                vs,
                100.0 * e.expected_vs_best
            ));
        }
        if self.skipped_lines > 0 {
            s.push_str(&format!("\n{} stored lines could not be read and were skipped.\n", self.skipped_lines));
        }
        if self.skipped_files > 0 {
            let files = if self.skipped_files == 1 { "file" } else { "files" };
            s.push_str(&format!(
                "\n{} stored {files} could not be read (unreadable, or not UTF-8 text) and skipped.\n",
                self.skipped_files
            ));
        }
        s
    }

    pub fn to_json(&self) -> String {
        // Infinite interval ends (a player without usable resamples) become null.
        let mut v = serde_json::to_value(self).expect("ranking serialises");
        if let Some(entries) = v.get_mut("entries").and_then(|e| e.as_array_mut()) {
            for (e, src) in entries.iter_mut().zip(&self.entries) {
                for (key, x) in [("ci_low", src.ci_low), ("ci_high", src.ci_high)] {
                    if !x.is_finite() {
                        e[key] = serde_json::Value::Null;
                    }
                }
            }
        }
        serde_json::to_string_pretty(&v).expect("ranking serialises") + "\n"
    }
}

/// Writes `ranking.md`, `ranking.json` and `ranking.png` into `dir` (each atomically).
pub fn write_outputs(dir: &Path, ranking: &Ranking) -> Result<(), Error> {
    fs::create_dir_all(dir).map_err(|error| Error::Io { path: dir.display().to_string(), error })?;
    write_atomic(&dir.join(RANKING_MD), ranking.to_markdown().as_bytes())?;
    write_atomic(&dir.join(RANKING_JSON), ranking.to_json().as_bytes())?;
    let png = dir.join(RANKING_PNG);
    let tmp = dir.join(format!(".{RANKING_PNG}.tmp.png"));
    crate::plot::plot_ranking(ranking, &tmp)?;
    fs::rename(&tmp, &png).map_err(|error| Error::Io { path: png.display().to_string(), error })?;
    Ok(())
}

/// Writes `path` through a temporary file and a rename, so that readers never see half a file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    let tmp: PathBuf = path.with_file_name(format!(".{name}.tmp"));
    let io = |error| Error::Io { path: path.display().to_string(), error };
    fs::write(&tmp, bytes).map_err(io)?;
    fs::rename(&tmp, path).map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{matches::GameResult, ratings::CiMethod, store::tests::record};

    #[test]
    fn a_run_is_ranked_and_written() {
        let dir = tempfile::tempdir().unwrap();
        let ck = |n: u64| format!("checkpoints/step-{n:06}@32");
        fs::create_dir_all(dir.path().join("checkpoints/step-000200")).unwrap();
        fs::write(dir.path().join("checkpoints/step-000200/header.json"), r#"{"training_step": 200}"#).unwrap();
        let mut games = Vec::new();
        let mut g = 0;
        let mut add = |a: &str, b: &str, w: usize, l: usize, games: &mut Vec<MatchGame>| {
            for i in 0..w + l {
                let r = if i < w { GameResult::BlueWins } else { GameResult::TanWins };
                games.push(record(a, b, r, g));
                g += 1;
            }
        };
        add(&ck(100), "random", 18, 2, &mut games);
        add(&ck(200), "random", 19, 1, &mut games);
        add(&ck(200), &ck(100), 14, 6, &mut games);
        add("greedy", "random", 15, 5, &mut games);
        games[0].blue_step = Some(100);
        let store = ResultStore::new(dir.path());
        store.append(&games, "test").unwrap();
        let options = RatingOptions { ci: CiMethod::Bootstrap(100), ..Default::default() };
        let ranking = rank_run(dir.path(), &options).unwrap();
        assert_eq!(ranking.games, 80);
        assert_eq!(ranking.anchor.as_deref(), Some("random"));
        assert_eq!(ranking.best.as_deref(), Some(ck(200).as_str()));
        let top = &ranking.entries[0];
        assert_eq!((top.player.as_str(), top.step, &top.kind), (ck(200).as_str(), Some(200), &PlayerKind::Checkpoint));
        let second = ranking.entries.iter().find(|e| e.player == ck(100)).unwrap();
        assert_eq!(second.step, Some(100));
        let vs = second.score_vs_best.as_ref().unwrap();
        assert_eq!((vs.games, vs.score), (20, 0.3));
        let random = ranking.entries.iter().find(|e| e.player == "random").unwrap();
        assert_eq!((random.elo, random.kind.clone()), (0.0, PlayerKind::Baseline));
        for f in [RANKING_MD, RANKING_JSON, RANKING_PNG] {
            assert!(dir.path().join(f).metadata().unwrap().len() > 100, "{f}");
        }
        let md = fs::read_to_string(dir.path().join(RANKING_MD)).unwrap();
        assert!(md.contains("| 1 | `checkpoints/step-000200@32` | 200 | 40 |"), "{md}");
        let json: Ranking = serde_json::from_str(&fs::read_to_string(dir.path().join(RANKING_JSON)).unwrap()).unwrap();
        assert_eq!(json.entries.len(), 4);
        let png = fs::read(dir.path().join(RANKING_PNG)).unwrap();
        assert_eq!(&png[1..4], b"PNG");
    }

    #[test]
    fn an_anchor_that_did_not_play_is_refused_with_the_players() {
        let dir = tempfile::tempdir().unwrap();
        ResultStore::new(dir.path()).append(&[record("greedy", "random", GameResult::BlueWins, 0)], "t").unwrap();
        let options = RatingOptions { anchor: Some("nosuch".into()), ci: CiMethod::Likelihood, ..Default::default() };
        let err = rank_run(dir.path(), &options).unwrap_err().to_string();
        assert!(err.contains("\"nosuch\"") && err.contains("players are: greedy, random"), "{err}");
        assert!(!dir.path().join(RANKING_MD).exists());
    }

    #[test]
    fn steps_from_names() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(resolve_step(dir.path(), "checkpoints/step-000300@8"), Some(300));
        assert_eq!(resolve_step(dir.path(), "ckpt-12b@8"), Some(12));
        assert_eq!(resolve_step(dir.path(), "random"), None);
        // The second of two equal players in a match is not a checkpoint with a step.
        assert_eq!(resolve_step(dir.path(), "random#2"), None);
        assert_eq!(resolve_step(dir.path(), "checkpoints/step-000300@8#2"), Some(300));
    }
}
