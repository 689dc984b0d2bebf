//! `fairyzero export-model` through the real binary: an exported net is a checkpoint folder
//! that verifies and plays, damage to it fails the load naming the file, an existing folder is
//! kept unless --force, a folder over --max-bytes is refused without writing anything, and
//! `best` reads the run's ranking (or says how to make one).
//!
//! One tiny Scirocco run (its step-0 checkpoint) is trained once and shared; a test that edits
//! a run works on a copy of it.

use std::{
    path::{Path, PathBuf},
    process::Output,
    sync::OnceLock,
};

use serde_json::{json, Value};
use sha2::Digest;

mod common;

use common::{stderr, stdout};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// `fairyzero ARGS` run from the repository's root (paths like `configs/runs/...`).
fn fairyzero(args: &[&str]) -> Output {
    let mut command = common::command(args);
    command.current_dir(ROOT);
    command.output().expect("cannot run the fairyzero binary")
}

/// The shared run: a 2x16 Scirocco net's step-0 checkpoint, no evaluation, on the CPU. Trained
/// once per test binary into cargo's scratch folder (a static TempDir would never be removed).
fn tiny_run() -> &'static Path {
    static RUN: OnceLock<PathBuf> = OnceLock::new();
    RUN.get_or_init(|| {
        let run = Path::new(env!("CARGO_TARGET_TMPDIR")).join("models-tiny-run");
        if run.exists() {
            std::fs::remove_dir_all(&run).unwrap();
        }
        let run_dir = format!("run_dir={:?}", run.display().to_string());
        let out = fairyzero(&[
            "train",
            "--config",
            "configs/runs/scirocco.toml",
            "-o",
            &run_dir,
            "-o",
            "net.size=\"2x16\"",
            "-o",
            "budget.minutes=0.0001",
            "-o",
            "eval.every=0",
            "-o",
            "eval.final.games=0",
            "-o",
            "output.tensorboard=false",
            "-o",
            "device=\"cpu\"",
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        run
    })
}

/// A copy of what export-model reads of the shared run, to edit.
fn copy_run(to: &Path) -> PathBuf {
    let run = tiny_run();
    let step0 = to.join("checkpoints/step-00000000");
    std::fs::create_dir_all(&step0).unwrap();
    for file in ["weights.safetensors", "optimizer.safetensors", "header.json", "manifest.json"] {
        std::fs::copy(run.join("checkpoints/step-00000000").join(file), step0.join(file)).unwrap();
    }
    for file in ["config.toml", "variant.toml", "metrics.jsonl"] {
        std::fs::copy(run.join(file), to.join(file)).unwrap();
    }
    to.to_path_buf()
}

fn export(run: &Path, out: &Path, extra: &[&str]) -> Output {
    let (run, out) = (run.display().to_string(), out.display().to_string());
    let mut args = vec!["export-model", "--run", &run, "--out", &out];
    args.extend(extra);
    fairyzero(&args)
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every entry of `dir` by name, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

/// Every file of `dir` with its contents.
fn contents(dir: &Path) -> Vec<(String, Vec<u8>)> {
    names(dir).into_iter().map(|n| (n.clone(), std::fs::read(dir.join(&n)).unwrap())).collect()
}

#[test]
fn an_exported_checkpoint_verifies_plays_and_fails_on_a_flipped_byte() {
    let run = tiny_run();
    let s = tempfile::tempdir().unwrap();
    let out_dir = s.path().join("models/tiny");
    let out = export(run, &out_dir, &["--checkpoint", "step-0", "--commit", "abc1234", "--name", "tiny-scirocco"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("exported step-00000000"), "{}", stdout(&out));
    assert_eq!(
        names(&out_dir),
        [
            "README.md",
            "config.toml",
            "header.json",
            "manifest.json",
            "model.json",
            "variant.toml",
            "weights.safetensors"
        ]
    );
    assert_eq!(names(&s.path().join("models")), ["tiny"], "a temporary folder was left behind");

    // The manifest lists every other file with its size and SHA-256.
    let manifest = read_json(&out_dir.join("manifest.json"));
    let mut listed: Vec<&str> = Vec::new();
    for f in manifest["files"].as_array().unwrap() {
        let name = f["name"].as_str().unwrap();
        let bytes = std::fs::read(out_dir.join(name)).unwrap();
        assert_eq!(f["bytes"].as_u64(), Some(bytes.len() as u64), "{name}");
        let sha: String = sha2::Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(f["sha256"].as_str(), Some(sha.as_str()), "{name}");
        listed.push(name);
    }
    listed.sort();
    assert_eq!(
        listed,
        ["README.md", "config.toml", "header.json", "model.json", "variant.toml", "weights.safetensors"]
    );

    // Weights only: the same bytes, the header without the optimizer record.
    let source = run.join("checkpoints/step-00000000");
    assert_eq!(
        std::fs::read(out_dir.join("weights.safetensors")).unwrap(),
        std::fs::read(source.join("weights.safetensors")).unwrap()
    );
    let header = read_json(&out_dir.join("header.json"));
    assert!(read_json(&source.join("header.json"))["optimizer"].is_object(), "the source has an optimizer record");
    assert!(header["optimizer"].is_null(), "{header}");
    assert_eq!(header["weights"], "weights.safetensors");
    assert_eq!(std::fs::read(out_dir.join("config.toml")).unwrap(), std::fs::read(run.join("config.toml")).unwrap());

    let model = read_json(&out_dir.join("model.json"));
    assert_eq!(model["format"], "fairyzero-model");
    assert_eq!(model["format_version"], 1);
    assert_eq!(model["name"], "tiny-scirocco");
    assert_eq!(model["variant"]["name"], "scirocco");
    assert_eq!(model["variant"]["hash"], header["variant"]["hash"]);
    assert_eq!(model["architecture"], header["architecture"]);
    assert_eq!(model["source"]["checkpoint"], "step-00000000");
    assert_eq!(model["source"]["step"], 0);
    assert_eq!(model["source"]["state"], read_json(&source.join("manifest.json"))["state"]);
    // The run's start record names the build's commit where the build knew it; --commit adds.
    let commits: Vec<&str> = model["commits"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
    assert_eq!(commits.last(), Some(&"abc1234"), "{commits:?}");
    assert!(model["rated_simulations"].is_null() && model["rating"].is_null(), "{model}");
    assert_eq!(model["evaluations"], json!([]));
    let readme = std::fs::read_to_string(out_dir.join("README.md")).unwrap();
    assert!(readme.contains("# tiny-scirocco") && readme.contains("--variant scirocco"), "{readme}");

    // A player wherever a checkpoint is.
    let player = format!("{}@2", out_dir.display());
    let play = |player: &str| fairyzero(&["match", player, "random", "--variant", "scirocco", "--games", "2"]);
    let out = play(&player);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).lines().last().is_some_and(|l| l.starts_with("result ")), "{}", stdout(&out));

    // Damage fails the load, naming the file.
    let weights = out_dir.join("weights.safetensors");
    let mut bytes = std::fs::read(&weights).unwrap();
    let n = bytes.len();
    bytes[n / 2] ^= 0x01;
    std::fs::write(&weights, &bytes).unwrap();
    let out = play(&player);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("weights.safetensors") && err.contains("checksum failed"), "{err}");
}

#[test]
fn an_existing_folder_is_kept_without_force_and_replaced_whole_with_it() {
    let run = tiny_run();
    let s = tempfile::tempdir().unwrap();
    let out_dir = s.path().join("net");
    let out = export(run, &out_dir, &["--checkpoint", "step-00000000"]);
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::write(out_dir.join("notes.txt"), "kept until replaced").unwrap();
    let before = contents(&out_dir);

    let out = export(run, &out_dir, &["--checkpoint", "step-00000000", "--name", "second"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("already exists") && err.contains("--force"), "{err}");
    assert_eq!(contents(&out_dir), before, "a refused export changed the existing folder");

    let out = export(run, &out_dir, &["--checkpoint", "step-00000000", "--name", "second", "--force"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!out_dir.join("notes.txt").exists(), "the old folder's files survived a --force export");
    assert_eq!(read_json(&out_dir.join("model.json"))["name"], "second");
    assert_eq!(names(s.path()), ["net"], "a temporary or replaced folder was left behind");
}

#[test]
fn a_folder_over_max_bytes_is_refused_and_nothing_is_written() {
    let run = tiny_run();
    let s = tempfile::tempdir().unwrap();
    let out_dir = s.path().join("models/big");
    let weights = std::fs::metadata(run.join("checkpoints/step-00000000/weights.safetensors")).unwrap().len();
    // Below the weights alone, then above them but below the whole folder.
    for limit in [weights - 1, weights + 1] {
        let limit = limit.to_string();
        let out = export(run, &out_dir, &["--checkpoint", "step-00000000", "--max-bytes", &limit]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains(&format!("more than the limit of {limit} bytes (--max-bytes)")), "{err}");
        assert!(
            !s.path().join("models").exists() || names(&s.path().join("models")).is_empty(),
            "something was written"
        );
    }
}

#[test]
fn best_without_a_ranking_says_how_to_make_one() {
    let run = tiny_run();
    let s = tempfile::tempdir().unwrap();
    let out = export(run, &s.path().join("net"), &[]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("ranking.json") && err.contains("fairyzero rank --run") && err.contains("--checkpoint"),
        "{err}"
    );
    assert!(names(s.path()).is_empty());
}

#[test]
fn best_exports_the_ranked_checkpoint_with_its_rating_and_evaluations() {
    let s = tempfile::tempdir().unwrap();
    let run = copy_run(&s.path().join("run"));
    let mut ranking = json!({
        "anchor": null, "best": "alphabeta:1", "distinct_games": 40, "games": 40, "method": "bradley-terry",
        "entries": [
            { "player": "alphabeta:1", "elo": 50.0, "ci_low": 10.0, "ci_high": 90.0, "games": 40, "kind": "baseline", "step": null },
            { "player": "checkpoints/step-00000000@16", "elo": -50.0, "ci_low": -90.0, "ci_high": null, "games": 40, "kind": "checkpoint", "step": 0 },
        ],
    });
    std::fs::write(run.join("ranking.json"), ranking.to_string()).unwrap();
    let out_dir = s.path().join("net");
    let out = export(&run, &out_dir, &[]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("`alphabeta:1`, not a checkpoint"), "{err}");

    ranking["best"] = json!("checkpoints/step-00000000@16");
    std::fs::write(run.join("ranking.json"), ranking.to_string()).unwrap();
    let eval = json!({
        "kind": "eval", "checkpoint": "step-00000000", "step": 0, "elapsed_secs": 1.5,
        "matches": [{ "opponent": "greedy", "player": "checkpoints/step-00000000@16", "games": 10, "wins": 6,
                      "draws": 2, "losses": 2, "score": 0.7, "score_low": 0.4, "score_high": 0.9,
                      "elo": 147.0, "elo_low": -70.0, "elo_high": 380.0 }],
    });
    let other = json!({ "kind": "eval", "checkpoint": "step-00000100", "matches": [] });
    let mut metrics = std::fs::read_to_string(run.join("metrics.jsonl")).unwrap();
    metrics.push_str(&format!("{eval}\n{other}\n"));
    std::fs::write(run.join("metrics.jsonl"), metrics).unwrap();

    let out = export(&run, &out_dir, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let model = read_json(&out_dir.join("model.json"));
    assert_eq!(model["source"]["checkpoint"], "step-00000000");
    assert_eq!(model["rated_simulations"], 16);
    assert_eq!(model["rating"]["elo"], -50.0);
    assert!(model["rating"]["ci_high"].is_null(), "{model}");
    assert_eq!(model["rating"]["games"], 40);
    assert_eq!(model["evaluations"], json!([eval]));
    let readme = std::fs::read_to_string(out_dir.join("README.md")).unwrap();
    assert!(readme.contains("net@16"), "{readme}");
    assert!(readme.contains("| greedy | 10 | 6-2-2 | 0.700 [0.400, 0.900] | 147 [-70, 380] |"), "{readme}");
}

#[test]
fn a_damaged_source_checkpoint_is_not_exported() {
    let s = tempfile::tempdir().unwrap();
    let run = copy_run(&s.path().join("run"));
    let weights = run.join("checkpoints/step-00000000/weights.safetensors");
    let mut bytes = std::fs::read(&weights).unwrap();
    bytes[0] ^= 0x01;
    std::fs::write(&weights, &bytes).unwrap();
    let out = export(&run, &s.path().join("net"), &["--checkpoint", "step-00000000"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("weights.safetensors") && err.contains("checksum failed"), "{err}");
    assert!(!s.path().join("net").exists());

    let out = export(&run, &s.path().join("net"), &["--checkpoint", "step-00000007"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("step-00000007 does not exist"), "{err}");
}

/// The nets shipped under models/ (models/README.md): each is a sound export within the
/// repository's size limit, names its provenance, and plays, analyses and probes out of the box.
#[test]
fn every_shipped_net_is_sound_small_and_usable_out_of_the_box() {
    let models = Path::new(ROOT).join("models");
    let shipped: Vec<PathBuf> =
        names(&models).into_iter().map(|n| models.join(n)).filter(|p| p.join("model.json").is_file()).collect();
    assert!(!shipped.is_empty(), "no net under {}", models.display());
    for dir in &shipped {
        let shown = dir.display().to_string();
        let bytes: u64 = names(dir).iter().map(|n| std::fs::metadata(dir.join(n)).unwrap().len()).sum();
        assert!(bytes <= 10_000_000, "{shown}: {bytes} bytes, over the 10 MB limit");
        let model = read_json(&dir.join("model.json"));
        assert_eq!(model["format"], "fairyzero-model", "{shown}");
        assert!(model["source"]["step"].as_u64().is_some_and(|s| s > 0), "{shown}: an untrained net? {model}");
        assert!(!model["commits"].as_array().unwrap().is_empty(), "{shown}: no commit named");
        assert!(!model["evaluations"].as_array().unwrap().is_empty(), "{shown}: no ratings");
        let variant = model["variant"]["name"].as_str().unwrap().to_string();
        let player = format!("{shown}@2");
        let out = fairyzero(&["match", &player, "random", "--variant", &variant, "--games", "2", "--move-cap", "40"]);
        assert!(out.status.success(), "{shown}: {}", stderr(&out));
        assert!(stdout(&out).lines().last().unwrap_or("").starts_with("result "), "{}", stdout(&out));
        let out = fairyzero(&["analyse", "--variant", &variant, "--net", &shown, "--nodes", "16"]);
        assert!(out.status.success(), "{shown}: {}", stderr(&out));
    }
}
