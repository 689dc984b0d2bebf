//! `fairyzero export-model`: turns one checkpoint of a training run into a self-contained net
//! folder that can ship with the project (under `models/`), as lc0 and KataGo publish theirs.
//!
//! The folder holds the weights (a byte copy), the header without the optimizer record, the
//! run's configuration, `model.json` (provenance: run, checkpoint, trainer state, commits,
//! rating and evaluations), a `README.md` card and `manifest.json`, which lists every other
//! file with its size and SHA-256 in the shape the trainer's checkpoint manifests use, so that
//! every command that loads a checkpoint verifies an exported net the same way. The folder is
//! therefore a checkpoint directory: `match`, `analyse`, `balance` and `piece-values` take it
//! wherever they take `checkpoints/step-NNNNNNNN`.
//!
//! Nothing here needs libtorch: the weights are copied, not loaded. The source checkpoint is
//! checked against its own manifest first, so a damaged checkpoint is never shipped with fresh
//! checksums that would make it look sound.

use std::{
    fs,
    path::{Component, Path, PathBuf},
    time::{SystemTime, UNIX_EPOCH},
};

use anyhow::{bail, ensure, Context, Result};
use fairyzero_evaluator::PlayerSpec;
use fairyzero_model::config::CheckpointHeader;
use serde_json::{json, Value};
use sha2::Digest;

/// The files of an exported net (the loader finds the weights through `header.json`).
const WEIGHTS_FILE: &str = "weights.safetensors";
const HEADER_FILE: &str = "header.json";
const MANIFEST_FILE: &str = "manifest.json";
const MODEL_FILE: &str = "model.json";
const CONFIG_FILE: &str = "config.toml";
const README_FILE: &str = "README.md";
/// The run's rules as it was created (`extends` resolved), when the run has them.
const VARIANT_FILE: &str = "variant.toml";

/// `model.json`'s and `manifest.json`'s `format`.
pub const MODEL_FORMAT: &str = "fairyzero-model";
pub const MODEL_FORMAT_VERSION: u32 = 1;
/// What a net may weigh to be committed to the repository.
pub const DEFAULT_MAX_BYTES: u64 = 10_000_000;

#[derive(Debug, clap::Args)]
pub struct ExportModelArgs {
    /// The training run directory (only read)
    #[arg(long, value_name = "RUN_DIR")]
    pub run: PathBuf,

    /// Which checkpoint: `best` (the best checkpoint of the run's ranking.json, written by
    /// `fairyzero rank --run RUN_DIR`) or a checkpoint folder name, step-NNNNNNNN
    #[arg(long, default_value = "best")]
    pub checkpoint: String,

    /// The folder to write (e.g. models/scirocco); its parent is created if missing
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,

    /// The model's name in model.json and README.md (default: the --out folder's name)
    #[arg(long)]
    pub name: Option<String>,

    /// A commit of the code that trained the net, added to those the run's start records name
    /// (repeatable)
    #[arg(long = "commit", value_name = "SHA")]
    pub commits: Vec<String>,

    /// Replace an existing --out folder (only once the new one is complete)
    #[arg(long)]
    pub force: bool,

    /// Refuse when the exported folder would be larger than this many bytes (at least 1, at
    /// most 1,000,000,000,000; the repository's limit for shipped nets is the default)
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_BYTES,
          value_parser = crate::limits::count::<u64>(1, 1_000_000_000_000))]
    pub max_bytes: u64,
}

pub fn run(args: ExportModelArgs) -> Result<()> {
    let out = &args.out;
    let name =
        match &args.name {
            Some(n) => n.clone(),
            None => out.file_name().and_then(|n| n.to_str()).map(str::to_string).with_context(|| {
                format!("--out {}: no folder name to name the model after; pass --name", out.display())
            })?,
        };
    ensure!(!name.trim().is_empty(), "--name: the model needs a non-empty name");
    for c in &args.commits {
        ensure!(!c.trim().is_empty() && !c.contains(char::is_whitespace), "--commit {c:?}: not a commit id");
    }
    // Refuse before any work (and again before the swap, in case the folder appeared since).
    if out.exists() && !args.force {
        bail!("{} already exists; pass --force to replace it", out.display());
    }
    ensure!(args.run.is_dir(), "--run {}: no such run directory", args.run.display());

    let chosen = choose_checkpoint(&args.run, &args.checkpoint)?;
    let files = build(&args, &name, &chosen)?;

    let total: u64 = files.iter().map(|(_, bytes)| bytes.len() as u64).sum();
    if total > args.max_bytes {
        bail!(
            "the exported net would take {total} bytes ({}), more than the limit of {} bytes (--max-bytes); \
             nothing was written",
            describe_bytes(total),
            args.max_bytes
        );
    }
    write_folder(out, &files, args.force)?;
    println!(
        "exported {} of {} ({}, {}) to {}",
        chosen.name,
        args.run.display(),
        describe_bytes(total),
        match chosen.rated_simulations {
            Some(s) => format!("rated at {s} simulations"),
            None => "not rated".to_string(),
        },
        out.display()
    );
    Ok(())
}

/// The checkpoint to export and what the run's ranking says of it.
struct Chosen {
    /// `step-NNNNNNNN`.
    name: String,
    dir: PathBuf,
    /// The search budget of its ranking entry (`@SIMS`), if ranked.
    rated_simulations: Option<u32>,
    /// Its ranking entry, if any.
    entry: Option<Value>,
    /// The ranking's anchor (what its Elo is relative to).
    anchor: Option<Value>,
}

fn checkpoint_step(name: &str) -> Option<u64> {
    let digits = name.strip_prefix("step-")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The checkpoint name a ranking player stands for, with its simulations, when the player is a
/// checkpoint of this run (`checkpoints/step-NNNNNNNN@SIMS`).
fn ranked_checkpoint(player: &str) -> Option<(String, u32)> {
    let Ok(PlayerSpec::Checkpoint { path, simulations }) = PlayerSpec::parse(player) else { return None };
    let parts: Vec<Component> = path.components().filter(|c| !matches!(c, Component::CurDir)).collect();
    match parts.as_slice() {
        [Component::Normal(dir), Component::Normal(name)] if *dir == "checkpoints" => {
            let name = name.to_str()?;
            checkpoint_step(name).map(|_| (name.to_string(), simulations))
        }
        _ => None,
    }
}

fn read_json(path: &Path) -> Result<Value> {
    let text = fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_slice(&text).with_context(|| format!("{}: not JSON", path.display()))
}

fn choose_checkpoint(run: &Path, which: &str) -> Result<Chosen> {
    let ranking_path = run.join("ranking.json");
    let ranking = if ranking_path.exists() { Some(read_json(&ranking_path)?) } else { None };
    let entries: Vec<Value> =
        ranking.as_ref().and_then(|r| r.get("entries")).and_then(Value::as_array).cloned().unwrap_or_default();
    let anchor = ranking.as_ref().and_then(|r| r.get("anchor")).cloned();
    let entry_of =
        |player: &str| entries.iter().find(|e| e.get("player").and_then(Value::as_str) == Some(player)).cloned();

    let (name, rated_simulations, entry) = if which == "best" {
        let Some(ranking) = &ranking else {
            bail!(
                "--checkpoint best: {} is missing; rate the run's checkpoints first with `fairyzero rank --run {}`, \
                 or pass --checkpoint step-NNNNNNNN",
                ranking_path.display(),
                run.display()
            );
        };
        let best = ranking.get("best").and_then(Value::as_str).with_context(|| {
            format!(
                "--checkpoint best: {} names no best checkpoint (no checkpoint has been rated); run `fairyzero rank \
                 --run {}` after an evaluation, or pass --checkpoint step-NNNNNNNN",
                ranking_path.display(),
                run.display()
            )
        })?;
        let (name, sims) = ranked_checkpoint(best).with_context(|| {
            format!(
                "--checkpoint best: the best player of {} is `{best}`, not a checkpoint of this run \
                 (checkpoints/step-NNNNNNNN@SIMS); run `fairyzero rank --run {}` again, or pass --checkpoint step-NNNNNNNN",
                ranking_path.display(),
                run.display()
            )
        })?;
        (name, Some(sims), entry_of(best))
    } else {
        let step = checkpoint_step(which).with_context(|| {
            format!("--checkpoint {which}: expected `best` or a checkpoint folder name, step-NNNNNNNN")
        })?;
        let name = format!("step-{step:08}");
        // Entries are highest Elo first: a checkpoint rated at several budgets takes its best.
        let entry = entries.iter().find(|e| {
            e.get("player").and_then(Value::as_str).and_then(ranked_checkpoint).is_some_and(|(n, _)| n == name)
        });
        let sims = entry.and_then(|e| e.get("player")?.as_str()).and_then(ranked_checkpoint).map(|(_, s)| s);
        (name, sims, entry.cloned())
    };
    let dir = run.join("checkpoints").join(&name);
    if !dir.join(MANIFEST_FILE).is_file() {
        let why = if dir.is_dir() {
            "has no manifest.json (an interrupted publish, not a checkpoint)"
        } else {
            "does not exist"
        };
        bail!("--checkpoint {which}: {} {why}", dir.display());
    }
    Ok(Chosen { name, dir, rated_simulations, entry, anchor })
}

fn sha256_hex(bytes: &[u8]) -> String {
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Reads `file` of the checkpoint `dir`, checked against the size and SHA-256 its manifest
/// records (every file exported from a checkpoint must be listed there).
fn read_checked(dir: &Path, manifest: &Value, file: &str) -> Result<Vec<u8>> {
    let manifest_path = dir.join(MANIFEST_FILE);
    let listed = manifest
        .get("files")
        .and_then(Value::as_array)
        .and_then(|files| files.iter().find(|f| f.get("name").and_then(Value::as_str) == Some(file)))
        .with_context(|| format!("{}: does not list {file}", manifest_path.display()))?;
    let path = dir.join(file);
    let bytes = fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
    let want_bytes = listed.get("bytes").and_then(Value::as_u64);
    let want_sha = listed.get("sha256").and_then(Value::as_str);
    if want_bytes != Some(bytes.len() as u64) || want_sha != Some(sha256_hex(&bytes).as_str()) {
        bail!(
            "{}: checksum failed: the file does not match its record in {} (a damaged checkpoint is not exported)",
            path.display(),
            manifest_path.display()
        );
    }
    Ok(bytes)
}

/// The records of the run's `metrics.jsonl`: commits of its start records and the evaluations
/// of `checkpoint`. A run without the file has neither; an unreadable line (an interrupted
/// write at the end) is skipped with a warning.
fn read_metrics(run: &Path, checkpoint: &str) -> Result<(Vec<String>, Vec<Value>)> {
    let path = run.join("metrics.jsonl");
    let text = match fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            tracing::warn!("{} is missing: the model has no evaluations and no run commits", path.display());
            return Ok((Vec::new(), Vec::new()));
        }
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let (mut commits, mut evaluations) = (Vec::new(), Vec::new());
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let record: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                tracing::warn!("{} line {}: skipped, not JSON ({e})", path.display(), i + 1);
                continue;
            }
        };
        match record.get("kind").and_then(Value::as_str) {
            Some("start") => {
                // `build.commit` is absent from older runs and null where the build knew none.
                if let Some(c) = record.pointer("/build/commit").and_then(Value::as_str) {
                    commits.push(c.to_string());
                }
            }
            Some("eval") if record.get("checkpoint").and_then(Value::as_str) == Some(checkpoint) => {
                evaluations.push(record)
            }
            // The final evaluation names its checkpoint only in its matches' player,
            // `checkpoints/step-NNNNNNNN@SIMS`.
            Some("final") if final_evaluates(&record, checkpoint) => evaluations.push(record),
            _ => {}
        }
    }
    Ok((commits, evaluations))
}

/// Whether a `final` metrics record evaluated `checkpoint`.
fn final_evaluates(record: &Value, checkpoint: &str) -> bool {
    let player_prefix = format!("checkpoints/{checkpoint}@");
    record.get("matches").and_then(Value::as_array).is_some_and(|matches| {
        matches.iter().any(|m| m.get("player").and_then(Value::as_str).is_some_and(|p| p.starts_with(&player_prefix)))
    })
}

/// Every file of the exported folder, in memory, `manifest.json` last.
fn build(args: &ExportModelArgs, name: &str, chosen: &Chosen) -> Result<Vec<(String, Vec<u8>)>> {
    let source_manifest = read_json(&chosen.dir.join(MANIFEST_FILE))?;
    let header_bytes = read_checked(&chosen.dir, &source_manifest, HEADER_FILE)?;
    let header_path = chosen.dir.join(HEADER_FILE);
    let text = std::str::from_utf8(&header_bytes).with_context(|| format!("{}: not UTF-8", header_path.display()))?;
    let mut header = CheckpointHeader::parse(text).with_context(|| header_path.display().to_string())?;

    // A net larger than the limit is refused before its weights are read into memory.
    let weights_path = chosen.dir.join(&header.weights);
    let weights_len = fs::metadata(&weights_path).with_context(|| format!("reading {}", weights_path.display()))?.len();
    if weights_len > args.max_bytes {
        bail!(
            "the weights alone ({}) take {weights_len} bytes ({}), more than the limit of {} bytes (--max-bytes); \
             nothing was written",
            weights_path.display(),
            describe_bytes(weights_len),
            args.max_bytes
        );
    }
    let weights = read_checked(&chosen.dir, &source_manifest, &header.weights)?;

    // Weights only: the optimizer's moments are for resuming training, not for playing.
    header.optimizer = None;
    header.weights = WEIGHTS_FILE.to_string();
    // As checkpoint::save writes it.
    let header_text = serde_json::to_string_pretty(&header).context("serialising the header")? + "\n";

    let config_path = args.run.join(CONFIG_FILE);
    let config = fs::read(&config_path)
        .with_context(|| format!("reading {} (the run's resolved configuration)", config_path.display()))?;
    let variant_path = args.run.join(VARIANT_FILE);
    let variant = if variant_path.is_file() {
        Some(fs::read(&variant_path).with_context(|| format!("reading {}", variant_path.display()))?)
    } else {
        None
    };

    let (mut commits, evaluations) = read_metrics(&args.run, &chosen.name)?;
    commits.extend(args.commits.iter().cloned());
    let mut seen = std::collections::HashSet::new();
    commits.retain(|c| seen.insert(c.clone()));

    let rating = chosen.entry.as_ref().map(|e| {
        json!({
            "elo": e.get("elo"),
            "ci_low": e.get("ci_low"),
            "ci_high": e.get("ci_high"),
            "games": e.get("games"),
            "anchor": chosen.anchor,
        })
    });
    let run_dir = fs::canonicalize(&args.run).unwrap_or_else(|_| args.run.clone());
    let exported_unix_ms = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0);
    let model = json!({
        "format": MODEL_FORMAT,
        "format_version": MODEL_FORMAT_VERSION,
        "name": name,
        "variant": { "name": header.variant.name, "hash": header.variant.hash },
        "architecture": header.architecture,
        "source": {
            "run_dir": run_dir.display().to_string(),
            "checkpoint": chosen.name,
            "step": header.training_step,
            "state": source_manifest.get("state"),
        },
        "commits": commits,
        "exported_unix_ms": exported_unix_ms,
        "exported_by": format!("fairyzero {}", env!("CARGO_PKG_VERSION")),
        "rated_simulations": chosen.rated_simulations,
        "rating": rating,
        "evaluations": evaluations,
    });
    let model_text = serde_json::to_string_pretty(&model).context("serialising model.json")? + "\n";
    let readme = readme(args, name, &header, chosen, &model);

    let mut files = vec![
        (WEIGHTS_FILE.to_string(), weights),
        (HEADER_FILE.to_string(), header_text.into_bytes()),
        (CONFIG_FILE.to_string(), config),
    ];
    if let Some(v) = variant {
        files.push((VARIANT_FILE.to_string(), v));
    }
    files.push((MODEL_FILE.to_string(), model_text.into_bytes()));
    files.push((README_FILE.to_string(), readme.into_bytes()));
    let listed: Vec<Value> = files
        .iter()
        .map(|(file, bytes)| json!({ "name": file, "bytes": bytes.len(), "sha256": sha256_hex(bytes) }))
        .collect();
    let manifest = json!({
        "format": MODEL_FORMAT,
        "format_version": MODEL_FORMAT_VERSION,
        "name": name,
        "step": header.training_step,
        "files": listed,
    });
    let manifest_text = serde_json::to_string_pretty(&manifest).context("serialising manifest.json")? + "\n";
    files.push((MANIFEST_FILE.to_string(), manifest_text.into_bytes()));
    Ok(files)
}

fn describe_bytes(n: u64) -> String {
    if n >= 1_000_000 {
        format!("{:.1} MB", n as f64 / 1e6)
    } else {
        format!("{:.1} kB", n as f64 / 1e3)
    }
}

/// `x` with `digits` decimals, or `?` when absent.
fn number(v: Option<&Value>, digits: usize) -> String {
    match v.and_then(Value::as_f64) {
        Some(x) => format!("{x:.digits$}"),
        None => "?".to_string(),
    }
}

/// The human card: what the net is, how to use it, where it comes from, how it scored.
fn readme(args: &ExportModelArgs, name: &str, header: &CheckpointHeader, chosen: &Chosen, model: &Value) -> String {
    let variant = &header.variant.name;
    // How a user at the repository root names the folder: `models/NAME` as shipped.
    let path = args.out.display().to_string();
    let sims = chosen.rated_simulations.unwrap_or(32);
    let mut s = format!("# {name}\n\n");
    s.push_str(&format!(
        "A fairyzero net for **{variant}** (rules hash `{}`): {}, trained for {} steps. \
         It is a checkpoint folder (weights only, no optimizer state), checked against `manifest.json` \
         by every command that loads it.\n\n",
        header.variant.hash,
        header.architecture.describe(),
        header.training_step
    ));
    s.push_str("## Use\n\n```sh\n");
    s.push_str(&format!("fairyzero match {path}@{sims} greedy --variant {variant} --games 20\n"));
    s.push_str(&format!("fairyzero analyse --variant {variant} --net {path} --nodes 800\n"));
    s.push_str(&format!("fairyzero balance --variant {variant} --player {path}@{sims}\n"));
    s.push_str(&format!(
        "fairyzero piece-values --variant {variant} --method probe --net {path} --records GAMES_DIR\n"
    ));
    s.push_str("```\n\n");
    s.push_str("## Provenance\n\n");
    let source = &model["source"];
    s.push_str(&format!(
        "- run: `{}`, checkpoint `{}` (step {})\n",
        source["run_dir"].as_str().unwrap_or("?"),
        chosen.name,
        header.training_step
    ));
    if let Some(state) = source.get("state").filter(|s| s.is_object()) {
        s.push_str(&format!(
            "- trained on {} self-play games ({} positions, {} samples drawn), {} iterations, {} minutes\n",
            number(state.get("games"), 0),
            number(state.get("positions"), 0),
            number(state.get("samples_trained"), 0),
            number(state.get("iteration"), 0),
            number(state.get("elapsed_secs").and_then(Value::as_f64).map(|x| json!(x / 60.0)).as_ref(), 1),
        ));
    }
    let commits: Vec<String> = model["commits"]
        .as_array()
        .map(|c| c.iter().filter_map(Value::as_str).map(|c| format!("`{c}`")).collect())
        .unwrap_or_default();
    s.push_str(&format!(
        "- code: {}\n",
        if commits.is_empty() { "commit not recorded".to_string() } else { commits.join(", ") }
    ));
    s.push_str(&format!("- configuration: `{CONFIG_FILE}` (the run's, resolved); full record: `{MODEL_FILE}`\n"));
    if let Some(rating) = model.get("rating").filter(|r| r.is_object()) {
        let anchor = rating["anchor"].as_str().map(|a| format!(", {a} = 0")).unwrap_or_default();
        s.push_str(&format!(
            "- rating: {} Elo [{}, {}] over {} games at {} simulations per move (the run's `ranking.json`{anchor})\n",
            number(rating.get("elo"), 0),
            number(rating.get("ci_low"), 0),
            number(rating.get("ci_high"), 0),
            number(rating.get("games"), 0),
            chosen.rated_simulations.map_or("?".to_string(), |s| s.to_string()),
        ));
    }
    let evaluations = model["evaluations"].as_array().map(Vec::as_slice).unwrap_or_default();
    s.push_str("\n## Evaluations\n\n");
    if evaluations.is_empty() {
        s.push_str("The run recorded no evaluation of this checkpoint.\n");
        return s;
    }
    s.push_str("| player | opponent | games | W-D-L | score [95% CI] | Elo diff [95% CI] |\n");
    s.push_str("|---|---|---:|---:|---|---|\n");
    for eval in evaluations {
        for m in eval.get("matches").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default() {
            let text = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or("?").to_string();
            s.push_str(&format!(
                "| {} | {} | {} | {}-{}-{} | {} [{}, {}] | {} [{}, {}] |\n",
                text("player"),
                text("opponent"),
                number(m.get("games"), 0),
                number(m.get("wins"), 0),
                number(m.get("draws"), 0),
                number(m.get("losses"), 0),
                number(m.get("score"), 3),
                number(m.get("score_low"), 3),
                number(m.get("score_high"), 3),
                number(m.get("elo"), 0),
                number(m.get("elo_low"), 0),
                number(m.get("elo_high"), 0),
            ));
        }
    }
    s
}

/// Writes `files` into a sibling temporary folder, then renames it to `out`. An existing `out`
/// (with `force`) is moved aside first and removed only once the new folder is in place, and
/// restored if that rename fails: an error never loses the existing folder.
fn write_folder(out: &Path, files: &[(String, Vec<u8>)], force: bool) -> Result<()> {
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&parent).with_context(|| format!("creating {}", parent.display()))?;
    let base = out.file_name().and_then(|n| n.to_str()).unwrap_or("model");
    let pid = std::process::id();
    let tmp = parent.join(format!(".{base}.export-{pid}"));
    let old = parent.join(format!(".{base}.replaced-{pid}"));
    let result = (|| -> Result<()> {
        if tmp.exists() {
            fs::remove_dir_all(&tmp).with_context(|| format!("removing {}", tmp.display()))?;
        }
        fs::create_dir(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
        for (name, bytes) in files {
            let path = tmp.join(name);
            fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))?;
            fs::File::open(&path).and_then(|f| f.sync_all()).with_context(|| format!("syncing {}", path.display()))?;
        }
        if out.exists() {
            if !force {
                bail!("{} already exists; pass --force to replace it", out.display());
            }
            fs::rename(out, &old).with_context(|| format!("moving {} aside", out.display()))?;
            if let Err(e) = fs::rename(&tmp, out) {
                let _ = fs::rename(&old, out);
                return Err(e).with_context(|| format!("renaming {} to {}", tmp.display(), out.display()));
            }
            fs::remove_dir_all(&old).with_context(|| format!("removing the replaced folder {}", old.display()))?;
        } else {
            fs::rename(&tmp, out).with_context(|| format!("renaming {} to {}", tmp.display(), out.display()))?;
        }
        Ok(())
    })();
    if result.is_err() && tmp.exists() {
        let _ = fs::remove_dir_all(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranking_players_name_checkpoints_of_the_run_only() {
        assert_eq!(ranked_checkpoint("checkpoints/step-00003254@32"), Some(("step-00003254".into(), 32)));
        assert_eq!(ranked_checkpoint("./checkpoints/step-00000007"), Some(("step-00000007".into(), 100)));
        assert_eq!(ranked_checkpoint("alphabeta:1"), None);
        assert_eq!(ranked_checkpoint("greedy"), None);
        assert_eq!(ranked_checkpoint("/elsewhere/checkpoints/step-00000001@8"), None);
        assert_eq!(ranked_checkpoint("checkpoints/latest@8"), None);
    }

    #[test]
    fn metrics_give_the_build_commits_and_this_checkpoints_evaluations() {
        let dir = tempfile::tempdir().unwrap();
        let lines = [
            r#"{"kind":"start","step":0}"#,
            r#"{"kind":"start","step":5,"build":{"version":"0.1.0","commit":"abc1234"}}"#,
            r#"{"kind":"eval","checkpoint":"step-00000005","matches":[]}"#,
            r#"{"kind":"eval","checkpoint":"step-00000009","matches":[]}"#,
            r#"{"kind":"start","step":9,"build":{"version":"0.1.0","commit":null}}"#,
            r#"{"kind":"start","step":9,"build":{"version":"0.1.0","commit":"abc1234"}}"#,
            r#"{"kind":"start","step":9,"build":{"version":"0.1.0","commit":"def5678-dirty"}}"#,
            r#"{"kind":"eval","checkpoint":"step-00000005","step":5,"matches":[{"opponent":"greedy"}]}"#,
            r#"{"kind":"final","matches":[{"player":"checkpoints/step-00000005@16","opponent":"random"}]}"#,
            r#"{"kind":"final","matches":[{"player":"checkpoints/step-00000050@16","opponent":"random"}]}"#,
            r#"{"kind":"eval","checkp"#,
        ];
        std::fs::write(dir.path().join("metrics.jsonl"), lines.join("\n")).unwrap();
        let (commits, evaluations) = read_metrics(dir.path(), "step-00000005").unwrap();
        // Distinct values are made by the caller; here every start record's commit, in order.
        assert_eq!(commits, ["abc1234", "abc1234", "def5678-dirty"]);
        assert_eq!(evaluations.len(), 3);
        assert!(evaluations[..2].iter().all(|e| e["checkpoint"] == "step-00000005"));
        assert_eq!(evaluations[1]["matches"][0]["opponent"], "greedy");
        // The final evaluation of this checkpoint, not that of step 50.
        assert_eq!(evaluations[2]["kind"], "final");
        assert_eq!(evaluations[2]["matches"][0]["player"], "checkpoints/step-00000005@16");

        let empty = tempfile::tempdir().unwrap();
        let (commits, evaluations) = read_metrics(empty.path(), "step-00000005").unwrap();
        assert!(commits.is_empty() && evaluations.is_empty());
    }

    #[test]
    fn checkpoint_names_are_step_and_digits() {
        assert_eq!(checkpoint_step("step-00000042"), Some(42));
        assert_eq!(checkpoint_step("step-42"), Some(42));
        assert_eq!(checkpoint_step("step-"), None);
        assert_eq!(checkpoint_step("step-4x"), None);
        assert_eq!(checkpoint_step("latest"), None);
    }
}
