//! `fairyzero compare`: the rating curves of several training runs on one scale and one chart.
//!
//! Every run evaluates its checkpoints against fixed baselines while it trains (`[eval]` of its
//! run file: `greedy`, `alphabeta:1`, `random`, ...), and stores those games in
//! `DIR/matches/*.jsonl`. `compare` reads the stores of all runs, renames each run's checkpoint
//! players `LABEL/step-N@SIMS` (so that step 100 of one run is not step 100 of another), keeps
//! every other player (the baselines, an exported model) under its own name, shared by the
//! runs, and rates all players jointly (Bradley–Terry, as `rank` does). The shared baselines
//! put the runs on one scale; runs that share none cannot be compared and are refused unless
//! `--allow-disconnected`.
//!
//! The x-coordinates of a checkpoint are its trainer state in
//! `DIR/checkpoints/step-N/manifest.json`: wall-clock seconds of training (`state.elapsed_secs`)
//! and self-play games (`state.games`). A run continued with `train --continue-from` counts from
//! its predecessor's totals, as its own manifests do.
//!
//! Outputs (each written atomically): `OUT/compare.png` (Elo against minutes and against games,
//! one line per run and evaluation budget), `OUT/compare.md` (tables) and `OUT/compare.json`.

use std::{
    collections::{BTreeMap, BTreeSet, HashMap},
    fs,
    path::{Path, PathBuf},
};

use anyhow::{bail, Context, Result};
use fairyzero_evaluator::{
    plot::{plot_curves, Curve, Panel},
    ranking::{signed_elo, write_atomic},
    rate_records,
    ratings::PlayerRating as Rated,
    CiMethod, MatchGame, PlayerSpec, RatingOptions, ResultStore,
};
use serde_json::{json, Value};

use crate::limits;

pub const COMPARE_MD: &str = "compare.md";
pub const COMPARE_JSON: &str = "compare.json";
pub const COMPARE_PNG: &str = "compare.png";

#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// A run to compare, as LABEL=DIR (reads DIR/matches/*.jsonl and the checkpoint manifests
    /// DIR/checkpoints/*/manifest.json); repeat for every run. Its checkpoints are named
    /// LABEL/step-N@SIMS in the outputs
    #[arg(long = "run", value_name = "LABEL=DIR", required = true, value_parser = parse_run)]
    pub runs: Vec<(String, PathBuf)>,

    /// Folder of compare.png, compare.md and compare.json (created if missing)
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,

    /// The player rated 0 Elo (default: greedy if it played, else random, else the mean is 0)
    #[arg(long)]
    pub anchor: Option<String>,

    /// Put run LABEL in arm ARM (e.g. two seeds of one setting); compare.md then has a table per
    /// arm: the mean Elo of its runs' last checkpoints and the spread between them
    #[arg(long = "group", value_name = "LABEL=ARM", value_parser = parse_group)]
    pub groups: Vec<(String, String)>,

    /// Bootstrap resamples for the confidence intervals (at most 1,000,000)
    #[arg(long, default_value_t = 1000, value_parser = limits::count::<usize>(1, limits::MAX_RESAMPLES))]
    pub bootstrap: usize,

    /// Intervals from the likelihood (normal approximation) instead of the bootstrap
    #[arg(long)]
    pub likelihood: bool,

    /// Seed of the bootstrap
    #[arg(long, default_value_t = 0)]
    pub seed: u64,

    /// Title of the chart and of compare.md (default: the run labels)
    #[arg(long)]
    pub title: Option<String>,

    /// Compare runs that share no baseline opponent (their curves are then on unrelated scales)
    #[arg(long)]
    pub allow_disconnected: bool,
}

/// `LABEL=DIR`: the label names the run's checkpoints (`LABEL/step-N@SIMS`), so it cannot hold
/// the characters that structure player names.
fn parse_run(text: &str) -> Result<(String, PathBuf), String> {
    let (label, dir) = text.split_once('=').ok_or("expected LABEL=DIR, e.g. transfer=runs/typhoon-transfer")?;
    check_label(label)?;
    if dir.is_empty() {
        return Err(format!("run {label:?} has an empty directory (expected LABEL=DIR)"));
    }
    Ok((label.to_string(), PathBuf::from(dir)))
}

fn parse_group(text: &str) -> Result<(String, String), String> {
    let (label, arm) = text.split_once('=').ok_or("expected LABEL=ARM, e.g. gumbel-s1=gumbel")?;
    check_label(label)?;
    if arm.trim().is_empty() {
        return Err(format!("run {label:?} has an empty arm (expected LABEL=ARM)"));
    }
    Ok((label.to_string(), arm.to_string()))
}

fn check_label(label: &str) -> Result<(), String> {
    if label.is_empty() {
        return Err("the label is empty (expected LABEL=...)".into());
    }
    if let Some(c) =
        label.chars().find(|c| matches!(c, '/' | '@' | '#' | ':' | '=') || c.is_whitespace() || c.is_control())
    {
        return Err(format!(
            "label {label:?} contains {c:?}: labels name players LABEL/step-N@SIMS, so no / @ # : = or spaces"
        ));
    }
    Ok(())
}

/// The trainer state of a checkpoint, from its `manifest.json`.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckpointPoint {
    /// `LABEL/step-N@SIMS`.
    pub player: String,
    /// The folder, relative to the run directory (`checkpoints/step-00000100`).
    pub path: PathBuf,
    pub step: u64,
    pub simulations: u32,
    pub elapsed_secs: f64,
    /// Self-play games in the run's store when the checkpoint was written.
    pub selfplay_games: u64,
}

#[derive(Clone, Debug)]
pub struct RunResult {
    pub label: String,
    pub dir: PathBuf,
    /// Checkpoints with their ratings, by evaluation budget, then step.
    pub checkpoints: Vec<(CheckpointPoint, Rated)>,
    /// The shared players this run's checkpoints (or its other games) met.
    pub opponents: BTreeSet<String>,
    pub stored_games: usize,
    pub skipped_lines: usize,
    pub skipped_files: usize,
}

impl RunResult {
    /// The evaluation budgets (simulations) of the run's checkpoint players.
    fn budgets(&self) -> BTreeSet<u32> {
        self.checkpoints.iter().map(|(c, _)| c.simulations).collect()
    }

    /// The last checkpoint (highest step; of its budgets, the one with the most games).
    pub fn last(&self) -> Option<&(CheckpointPoint, Rated)> {
        self.checkpoints.iter().max_by(|a, b| a.0.step.cmp(&b.0.step).then(a.1.games.cmp(&b.1.games)))
    }

    /// The highest-rated checkpoint.
    pub fn best(&self) -> Option<&(CheckpointPoint, Rated)> {
        self.checkpoints.iter().filter(|c| c.1.elo.is_finite()).max_by(|a, b| a.1.elo.total_cmp(&b.1.elo))
    }
}

#[derive(Clone, Debug)]
pub struct Arm {
    pub name: String,
    pub runs: Vec<String>,
    /// Elo of each run's last checkpoint, in the order of `runs`.
    pub last_elos: Vec<f64>,
    pub mean: f64,
    /// Sample standard deviation between the runs (`None` with one run).
    pub sd: Option<f64>,
    pub min: f64,
    pub max: f64,
    pub mean_minutes: f64,
    pub mean_selfplay_games: f64,
}

#[derive(Clone, Debug)]
pub struct Comparison {
    pub title: String,
    pub variant: String,
    pub anchor: Option<String>,
    pub method: String,
    pub games: usize,
    pub runs: Vec<RunResult>,
    /// Shared players (name, rating, labels of the runs that played them), highest Elo first.
    pub baselines: Vec<(String, Rated, Vec<String>)>,
    pub arms: Vec<Arm>,
    /// Labels that `--group` left out of every arm.
    pub ungrouped: Vec<String>,
}

/// The run-local checkpoint a stored player name stands for: `checkpoints/...@SIMS` (relative
/// to the run directory, as the trainer and `match --run` write it), with `match`'s `#2` suffix
/// for the second of two equal players removed.
fn run_checkpoint(name: &str) -> Option<(PathBuf, u32)> {
    match PlayerSpec::parse(base_name(name)) {
        Ok(PlayerSpec::Checkpoint { path, simulations }) if path.is_relative() && path.starts_with("checkpoints") => {
            Some((path, simulations))
        }
        _ => None,
    }
}

/// `NAME#2` → `NAME`: `match` names the second of two equal players so; it is the same player
/// (their games are games against itself, which the rating ignores).
fn base_name(name: &str) -> &str {
    match name.rsplit_once('#') {
        Some((base, n)) if !base.is_empty() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => base,
        _ => name,
    }
}

/// Reads `step`, `state.elapsed_secs` and `state.games` of a trainer checkpoint's manifest.
fn read_manifest(file: &Path) -> Result<(u64, f64, u64)> {
    let text = fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let v: Value = serde_json::from_str(&text).with_context(|| format!("{}: not JSON", file.display()))?;
    let field = |path: &[&str]| -> Result<&Value> {
        path.iter()
            .try_fold(&v, |v, k| v.get(k))
            .with_context(|| format!("{}: no field `{}`", file.display(), path.join(".")))
    };
    let step =
        field(&["step"])?.as_u64().with_context(|| format!("{}: `step` is not a whole number", file.display()))?;
    let elapsed = field(&["state", "elapsed_secs"])?
        .as_f64()
        .filter(|x| x.is_finite() && *x >= 0.0)
        .with_context(|| format!("{}: `state.elapsed_secs` is not a number of seconds", file.display()))?;
    let games = field(&["state", "games"])?
        .as_u64()
        .with_context(|| format!("{}: `state.games` is not a whole number", file.display()))?;
    Ok((step, elapsed, games))
}

/// One run's stored games with its checkpoint players renamed, and its checkpoints.
struct LoadedRun {
    label: String,
    dir: PathBuf,
    records: Vec<MatchGame>,
    checkpoints: BTreeMap<String, CheckpointPoint>,
    shared: BTreeSet<String>,
    variants: BTreeMap<String, BTreeSet<String>>,
    skipped_lines: usize,
    skipped_files: usize,
}

fn load_run(label: &str, dir: &Path) -> Result<LoadedRun> {
    let ctx = || format!("--run {label}={}", dir.display());
    if !dir.is_dir() {
        bail!("{}: no such run directory", ctx());
    }
    let store = ResultStore::new(dir);
    if !store.dir().is_dir() {
        bail!(
            "{}: {} is missing: the run has no stored games (its evaluations write them; `fairyzero match --run` adds more)",
            ctx(),
            store.dir().display()
        );
    }
    let stored = store.load().with_context(ctx)?;
    for f in &stored.skipped_files {
        tracing::warn!("run {label}: skipped a stored results file: {f}");
    }
    for p in stored.problems.iter().take(5) {
        tracing::warn!("run {label}: skipped a stored result: {p}");
    }
    if stored.records.is_empty() {
        bail!("{}: no stored games in {}", ctx(), store.dir().display());
    }
    let mut run = LoadedRun {
        label: label.to_string(),
        dir: dir.to_path_buf(),
        records: Vec::with_capacity(stored.records.len()),
        checkpoints: BTreeMap::new(),
        shared: BTreeSet::new(),
        variants: BTreeMap::new(),
        skipped_lines: stored.problems.len(),
        skipped_files: stored.skipped_files.len(),
    };
    // Stored name → (new name, step); each checkpoint's manifest is read once.
    let mut renamed: HashMap<String, (String, Option<u64>)> = HashMap::new();
    let mut by_folder: HashMap<PathBuf, (u64, f64, u64)> = HashMap::new();
    let mut rename = |name: &str, run: &mut LoadedRun| -> Result<(String, Option<u64>)> {
        if let Some(r) = renamed.get(name) {
            return Ok(r.clone());
        }
        let r = match run_checkpoint(name) {
            Some((path, simulations)) => {
                let (step, elapsed_secs, selfplay_games) = match by_folder.get(&path) {
                    Some(m) => *m,
                    None => {
                        let file = dir.join(&path).join("manifest.json");
                        let m = read_manifest(&file).with_context(|| {
                            format!(
                                "{}: checkpoint player {name} (its manifest gives the time and games of the curve)",
                                ctx()
                            )
                        })?;
                        by_folder.insert(path.clone(), m);
                        m
                    }
                };
                let player = format!("{label}/step-{step}@{simulations}");
                if let Some(other) = run.checkpoints.get(&player).filter(|c| c.path != path) {
                    bail!(
                        "{}: checkpoints {} and {} both have step {step}: which one is {player}?",
                        ctx(),
                        other.path.display(),
                        path.display()
                    );
                }
                run.checkpoints.insert(
                    player.clone(),
                    CheckpointPoint { player: player.clone(), path, step, simulations, elapsed_secs, selfplay_games },
                );
                (player, Some(step))
            }
            None => {
                let player = base_name(name).to_string();
                run.shared.insert(player.clone());
                (player, None)
            }
        };
        renamed.insert(name.to_string(), r.clone());
        Ok(r)
    };
    for mut r in stored.records {
        let (blue, blue_step) = rename(&r.blue, &mut run)?;
        let (tan, tan_step) = rename(&r.tan, &mut run)?;
        r.blue = blue;
        r.tan = tan;
        r.blue_step = blue_step;
        r.tan_step = tan_step;
        run.variants.entry(r.variant.clone()).or_default().insert(r.variant_hash.clone());
        run.records.push(r);
    }
    Ok(run)
}

/// Labels of the runs in each group of runs linked by a shared opponent (one group: comparable).
fn linked_groups(runs: &[LoadedRun]) -> Vec<Vec<String>> {
    let mut parent: Vec<usize> = (0..runs.len()).collect();
    fn find(p: &[usize], mut x: usize) -> usize {
        while p[x] != x {
            x = p[x];
        }
        x
    }
    for i in 0..runs.len() {
        for j in i + 1..runs.len() {
            if !runs[i].shared.is_disjoint(&runs[j].shared) {
                let (a, b) = (find(&parent, i), find(&parent, j));
                parent[a] = b;
            }
        }
    }
    let mut groups: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    for (i, r) in runs.iter().enumerate() {
        groups.entry(find(&parent, i)).or_default().push(r.label.clone());
    }
    groups.into_values().collect()
}

/// Reads, checks and rates the runs (writes nothing).
pub fn compare_runs(args: &CompareArgs) -> Result<Comparison> {
    let mut seen = BTreeMap::new();
    for (label, dir) in &args.runs {
        if let Some(first) = seen.insert(label.as_str(), dir) {
            bail!(
                "--run {label}: the label is given twice ({} and {}); labels must be unique",
                first.display(),
                dir.display()
            );
        }
    }
    let runs: Vec<LoadedRun> = args.runs.iter().map(|(label, dir)| load_run(label, dir)).collect::<Result<_>>()?;

    // One variant: a baseline on another variant is another opponent, whatever its name.
    let variants: BTreeSet<&String> = runs.iter().flat_map(|r| r.variants.keys()).collect();
    if variants.len() > 1 {
        let per_run: Vec<String> = runs
            .iter()
            .map(|r| format!("{}: {}", r.label, r.variants.keys().cloned().collect::<Vec<_>>().join(", ")))
            .collect();
        bail!("the runs' games are on different variants ({}); compare runs of one variant", per_run.join("; "));
    }
    let variant = variants.into_iter().next().cloned().unwrap_or_default();
    let hashes: BTreeSet<&String> = runs.iter().flat_map(|r| r.variants.values().flatten()).collect();
    if hashes.len() > 1 {
        tracing::warn!(
            "the runs' games of {variant} have {} different rule hashes: the rules changed between runs, so the baselines may not play alike",
            hashes.len()
        );
    }

    let groups = linked_groups(&runs);
    if groups.len() > 1 {
        let opponents: Vec<String> = runs
            .iter()
            .map(|r| {
                let list = r.shared.iter().map(String::as_str).collect::<Vec<_>>();
                format!("{}: {}", r.label, if list.is_empty() { "none".to_string() } else { list.join(", ") })
            })
            .collect();
        let message = format!(
            "the runs share no baseline opponent across the groups {}, so their ratings are on unrelated scales \
             (opponents per run: {})",
            groups.iter().map(|g| format!("[{}]", g.join(", "))).collect::<Vec<_>>().join(" "),
            opponents.join("; ")
        );
        if !args.allow_disconnected {
            bail!("{message}; evaluate them against a common baseline (e.g. greedy), or pass --allow-disconnected");
        }
        tracing::warn!("{message}");
    }

    let records: Vec<MatchGame> = runs.iter().flat_map(|r| r.records.iter().cloned()).collect();
    let shared: BTreeSet<&String> = runs.iter().flat_map(|r| &r.shared).collect();
    let anchor = match &args.anchor {
        Some(a) => {
            let is_player = shared.contains(a) || runs.iter().any(|r| r.checkpoints.contains_key(a));
            if !is_player {
                bail!(
                    "--anchor {a}: not a player of the runs' games; the shared players are {} (checkpoints are named LABEL/step-N@SIMS)",
                    shared.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
                );
            }
            Some(a.clone())
        }
        None => ["greedy", "random"].into_iter().find(|b| shared.contains(&b.to_string())).map(String::from),
    };
    let ci = if args.likelihood { CiMethod::Likelihood } else { CiMethod::Bootstrap(args.bootstrap) };
    let ratings =
        rate_records(&records, &RatingOptions { anchor: anchor.clone(), ci, seed: args.seed, ..Default::default() });
    // A player without rated games (none against others) has no Elo and an unbounded interval.
    let rated = |name: &str| {
        ratings.get(name).cloned().unwrap_or_else(|| Rated {
            name: name.to_string(),
            elo: f64::NAN,
            ci_low: f64::NEG_INFINITY,
            ci_high: f64::INFINITY,
            games: 0,
            points: 0.0,
            connected: false,
        })
    };
    let unconnected: Vec<&str> =
        ratings.players.iter().filter(|p| p.games > 0 && !p.connected).map(|p| p.name.as_str()).collect();
    if !unconnected.is_empty() {
        tracing::warn!(
            "{} players are not connected to the anchor by games and are rated only within their group: {}",
            unconnected.len(),
            unconnected.iter().take(8).copied().collect::<Vec<_>>().join(", ")
        );
    }

    let mut results = Vec::new();
    for run in &runs {
        let mut checkpoints: Vec<(CheckpointPoint, Rated)> =
            run.checkpoints.values().map(|c| (c.clone(), rated(&c.player))).filter(|c| c.1.games > 0).collect();
        checkpoints.sort_by_key(|c| (c.0.simulations, c.0.step));
        if checkpoints.is_empty() {
            tracing::warn!("run {}: no checkpoint of it played a rated game", run.label);
        }
        results.push(RunResult {
            label: run.label.clone(),
            dir: run.dir.clone(),
            checkpoints,
            opponents: run.shared.clone(),
            stored_games: run.records.len(),
            skipped_lines: run.skipped_lines,
            skipped_files: run.skipped_files,
        });
    }
    let mut baselines: Vec<(String, Rated, Vec<String>)> = shared
        .iter()
        .map(|name| {
            let labels = runs.iter().filter(|r| r.shared.contains(*name)).map(|r| r.label.clone()).collect();
            ((*name).clone(), rated(name), labels)
        })
        .filter(|b| b.1.games > 0)
        .collect();
    baselines.sort_by(|a, b| b.1.elo.total_cmp(&a.1.elo).then_with(|| a.0.cmp(&b.0)));

    let (arms, ungrouped) = arms(&args.groups, &results)?;
    Ok(Comparison {
        title: args.title.clone().unwrap_or_else(|| {
            format!("{}: {}", variant, results.iter().map(|r| r.label.as_str()).collect::<Vec<_>>().join(" vs "))
        }),
        variant,
        anchor: ratings.anchor.clone(),
        method: ratings.method.clone(),
        games: records.len(),
        runs: results,
        baselines,
        arms,
        ungrouped,
    })
}

/// The `--group` arms: each run's last checkpoint, averaged over the arm's runs (seeds).
fn arms(groups: &[(String, String)], runs: &[RunResult]) -> Result<(Vec<Arm>, Vec<String>)> {
    if groups.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let mut arm_of: BTreeMap<&str, &str> = BTreeMap::new();
    let mut order: Vec<&str> = Vec::new();
    for (label, arm) in groups {
        if !runs.iter().any(|r| &r.label == label) {
            bail!(
                "--group {label}={arm}: no run is labelled {label:?} (the runs are {})",
                runs.iter().map(|r| r.label.as_str()).collect::<Vec<_>>().join(", ")
            );
        }
        if let Some(other) = arm_of.insert(label, arm) {
            bail!("--group {label}={arm}: run {label} is already in arm {other}");
        }
        if !order.contains(&arm.as_str()) {
            order.push(arm);
        }
    }
    let mut arms = Vec::new();
    for name in order {
        let members: Vec<&RunResult> = runs.iter().filter(|r| arm_of.get(r.label.as_str()) == Some(&name)).collect();
        let lasts: Vec<(&str, &(CheckpointPoint, Rated))> =
            members.iter().filter_map(|r| r.last().map(|l| (r.label.as_str(), l))).collect();
        if lasts.len() < members.len() {
            bail!("arm {name}: a run of it has no rated checkpoint, so the arm has no last Elo to average");
        }
        let elos: Vec<f64> = lasts.iter().map(|l| l.1 .1.elo).collect();
        let n = elos.len() as f64;
        let mean = elos.iter().sum::<f64>() / n;
        let sd = (elos.len() > 1).then(|| (elos.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt());
        arms.push(Arm {
            name: name.to_string(),
            runs: lasts.iter().map(|l| l.0.to_string()).collect(),
            mean,
            sd,
            min: elos.iter().copied().fold(f64::INFINITY, f64::min),
            max: elos.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            mean_minutes: lasts.iter().map(|l| l.1 .0.elapsed_secs / 60.0).sum::<f64>() / n,
            mean_selfplay_games: lasts.iter().map(|l| l.1 .0.selfplay_games as f64).sum::<f64>() / n,
            last_elos: elos,
        });
    }
    let ungrouped = runs.iter().filter(|r| !arm_of.contains_key(r.label.as_str())).map(|r| r.label.clone()).collect();
    Ok((arms, ungrouped))
}

fn interval(r: &Rated) -> String {
    format!("[{}, {}]", signed_elo(r.ci_low), signed_elo(r.ci_high))
}

impl Comparison {
    /// The name of a run's curve: its label, with the budget when the run has several.
    fn series(&self) -> Vec<(String, &RunResult, u32)> {
        let mut out = Vec::new();
        for run in &self.runs {
            let budgets = run.budgets();
            for &sims in &budgets {
                let name = if budgets.len() > 1 { format!("{}@{sims}", run.label) } else { run.label.clone() };
                out.push((name, run, sims));
            }
        }
        out
    }

    pub fn to_markdown(&self) -> String {
        let mut s = format!("# {}\n\n", self.title);
        s.push_str(&format!(
            "{} games of {} runs on {}, rated jointly: Elo by Bradley-Terry maximum likelihood (draws count half), {}. Intervals: {}.\n\n",
            self.games,
            self.runs.len(),
            self.variant,
            match &self.anchor {
                Some(a) => format!("anchored at `{a}` = 0"),
                None => "mean 0".into(),
            },
            self.method
        ));
        s.push_str("| run | directory | stored games | opponents |\n|---|---|---:|---|\n");
        for r in &self.runs {
            let opponents = r.opponents.iter().map(|o| format!("`{o}`")).collect::<Vec<_>>().join(", ");
            s.push_str(&format!("| {} | `{}` | {} | {} |\n", r.label, r.dir.display(), r.stored_games, opponents));
        }
        s.push_str("\n## Baselines\n\n| player | Elo | 95% CI | games | runs |\n|---|---:|---|---:|---|\n");
        for (name, r, labels) in &self.baselines {
            s.push_str(&format!(
                "| `{name}`{} | {} | {} | {} | {} |\n",
                if r.connected { "" } else { " (not connected)" },
                signed_elo(r.elo),
                interval(r),
                r.games,
                labels.join(", ")
            ));
        }
        for run in &self.runs {
            s.push_str(&format!(
                "\n## {}\n\n| checkpoint | step | sims | minutes | self-play games | Elo | 95% CI | rated games |\n\
                 |---|---:|---:|---:|---:|---:|---|---:|\n",
                run.label
            ));
            for (c, r) in &run.checkpoints {
                s.push_str(&format!(
                    "| `{}`{} | {} | {} | {:.1} | {} | {} | {} | {} |\n",
                    c.player,
                    if r.connected { "" } else { " (not connected)" },
                    c.step,
                    c.simulations,
                    c.elapsed_secs / 60.0,
                    c.selfplay_games,
                    signed_elo(r.elo),
                    interval(r),
                    r.games
                ));
            }
            if run.checkpoints.is_empty() {
                s.push_str("| (no rated checkpoint) | | | | | | | |\n");
            }
        }
        s.push_str("\n## Last and best checkpoint per run\n\n");
        s.push_str("| run | last | minutes | self-play games | Elo | 95% CI | best | Elo | 95% CI |\n");
        s.push_str("|---|---|---:|---:|---:|---|---|---:|---|\n");
        for run in &self.runs {
            let (Some((lc, lr)), Some((bc, br))) = (run.last(), run.best()) else {
                s.push_str(&format!("| {} | - | | | | | - | | |\n", run.label));
                continue;
            };
            s.push_str(&format!(
                "| {} | `{}` | {:.1} | {} | {} | {} | `{}` | {} | {} |\n",
                run.label,
                lc.player,
                lc.elapsed_secs / 60.0,
                lc.selfplay_games,
                signed_elo(lr.elo),
                interval(lr),
                bc.player,
                signed_elo(br.elo),
                interval(br)
            ));
        }
        if !self.arms.is_empty() {
            s.push_str(
                "\n## Arms\n\nElo of each run's last checkpoint, averaged over the runs of the arm; the spread is \
                 between runs (seeds), not the rating interval of one run.\n\n",
            );
            s.push_str("| arm | runs | mean Elo | sd | min | max | mean minutes | mean self-play games |\n");
            s.push_str("|---|---|---:|---:|---:|---:|---:|---:|\n");
            for a in &self.arms {
                let runs: Vec<String> =
                    a.runs.iter().zip(&a.last_elos).map(|(r, e)| format!("{r} ({})", signed_elo(*e))).collect();
                s.push_str(&format!(
                    "| {} | {} | {} | {} | {} | {} | {:.1} | {:.0} |\n",
                    a.name,
                    runs.join(", "),
                    signed_elo(a.mean),
                    a.sd.map_or("-".into(), |sd| format!("{sd:.0}")),
                    signed_elo(a.min),
                    signed_elo(a.max),
                    a.mean_minutes,
                    a.mean_selfplay_games
                ));
            }
            if !self.ungrouped.is_empty() {
                s.push_str(&format!("\nIn no arm: {}.\n", self.ungrouped.join(", ")));
            }
        }
        let skipped: usize = self.runs.iter().map(|r| r.skipped_lines).sum();
        let skipped_files: usize = self.runs.iter().map(|r| r.skipped_files).sum();
        if skipped + skipped_files > 0 {
            s.push_str(&format!(
                "\n{skipped} stored lines and {skipped_files} stored files could not be read and were skipped.\n"
            ));
        }
        s
    }

    pub fn to_json(&self) -> String {
        // serde_json writes non-finite numbers (an interval without resamples) as null.
        let rated = |r: &Rated| json!({"elo": r.elo, "ci_low": r.ci_low, "ci_high": r.ci_high, "games": r.games, "points": r.points, "connected": r.connected});
        let checkpoint = |(c, r): &(CheckpointPoint, Rated)| {
            let mut v = json!({
                "player": c.player, "path": c.path.display().to_string(), "step": c.step, "simulations": c.simulations,
                "elapsed_secs": c.elapsed_secs, "minutes": c.elapsed_secs / 60.0, "selfplay_games": c.selfplay_games,
            });
            v.as_object_mut().unwrap().extend(rated(r).as_object().unwrap().clone());
            v
        };
        let runs: Vec<Value> = self
            .runs
            .iter()
            .map(|r| {
                json!({
                    "label": r.label, "dir": r.dir.display().to_string(), "stored_games": r.stored_games,
                    "opponents": r.opponents, "skipped_lines": r.skipped_lines, "skipped_files": r.skipped_files,
                    "checkpoints": r.checkpoints.iter().map(checkpoint).collect::<Vec<_>>(),
                    "last": r.last().map(checkpoint), "best": r.best().map(checkpoint),
                })
            })
            .collect();
        let baselines: Vec<Value> = self
            .baselines
            .iter()
            .map(|(name, r, labels)| {
                let mut v = json!({"player": name, "runs": labels});
                v.as_object_mut().unwrap().extend(rated(r).as_object().unwrap().clone());
                v
            })
            .collect();
        let arms: Vec<Value> = self
            .arms
            .iter()
            .map(|a| {
                json!({"arm": a.name, "runs": a.runs, "last_elos": a.last_elos, "mean_elo": a.mean, "sd": a.sd,
                       "min": a.min, "max": a.max, "mean_minutes": a.mean_minutes, "mean_selfplay_games": a.mean_selfplay_games})
            })
            .collect();
        let v = json!({
            "title": self.title, "variant": self.variant, "anchor": self.anchor, "method": self.method,
            "games": self.games, "runs": runs, "baselines": baselines, "arms": arms, "ungrouped": self.ungrouped,
        });
        serde_json::to_string_pretty(&v).expect("the comparison serialises") + "\n"
    }

    /// Draws `compare.png`: Elo against minutes and against self-play games.
    pub fn plot(&self, path: &Path) -> Result<()> {
        let series = self.series();
        let panel = |x_desc: &str, x: fn(&CheckpointPoint) -> f64| Panel {
            x_desc: x_desc.into(),
            curves: series
                .iter()
                .map(|(label, run, sims)| Curve {
                    label: label.clone(),
                    points: run
                        .checkpoints
                        .iter()
                        .filter(|(c, _)| c.simulations == *sims)
                        .map(|(c, r)| (x(c), r.elo, r.ci_low, r.ci_high))
                        .collect(),
                })
                .collect(),
        };
        let panels = [
            panel("wall-clock of training (minutes)", |c| c.elapsed_secs / 60.0),
            panel("self-play games", |c| c.selfplay_games as f64),
        ];
        let baselines: Vec<(String, f64)> = self.baselines.iter().map(|(n, r, _)| (n.clone(), r.elo)).collect();
        plot_curves(&self.title, &panels, &baselines, path)?;
        Ok(())
    }

    /// Writes the three outputs into `out`, each through a temporary file and a rename.
    pub fn write(&self, out: &Path) -> Result<()> {
        fs::create_dir_all(out).with_context(|| format!("--out {}: cannot create the folder", out.display()))?;
        write_atomic(&out.join(COMPARE_MD), self.to_markdown().as_bytes())?;
        write_atomic(&out.join(COMPARE_JSON), self.to_json().as_bytes())?;
        // The temporary name keeps the .png extension: plotters picks the encoder by it.
        let tmp = out.join(format!(".{COMPARE_PNG}.tmp.png"));
        self.plot(&tmp)?;
        let png = out.join(COMPARE_PNG);
        fs::rename(&tmp, &png).with_context(|| format!("writing {}", png.display()))?;
        Ok(())
    }
}

pub fn run(args: CompareArgs) -> Result<()> {
    let comparison = compare_runs(&args)?;
    comparison.write(&args.out)?;
    print!("{}", comparison.to_markdown());
    println!();
    for f in [COMPARE_MD, COMPARE_JSON, COMPARE_PNG] {
        println!("wrote {}", args.out.join(f).display());
    }
    Ok(())
}
