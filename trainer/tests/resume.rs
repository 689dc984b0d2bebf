//! Kill and resume: a training process is killed with SIGKILL at several moments, its store is
//! damaged on purpose, and the same run started again must continue from the last good
//! checkpoint without losing any finished game.
//!
//! The process to kill is this test binary itself, re-run with an environment variable that
//! makes `child_process` train (so the test needs no other binary).

use std::{
    collections::HashSet,
    path::{Path, PathBuf},
    process::{Child, Command},
    time::{Duration, Instant},
};

use fairyzero_selfplay::record::Termination;
use fairyzero_trainer::{
    artifacts,
    config::RunConfig,
    store::{ObjectStoreBackend, Store},
    TrainOptions,
};

const CHILD_ENV: &str = "FAIRYZERO_TRAINER_RESUME_CHILD";

fn config(run_dir: &Path) -> RunConfig {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/runs/tiny.toml");
    let overrides = vec![
        format!("run_dir={:?}", run_dir.display().to_string()),
        "budget.games=64".to_string(),
        // Keep the test short: evaluation is tested by the pipeline test.
        "eval.every=0".to_string(),
        "eval.final.games=0".to_string(),
    ];
    RunConfig::load(Path::new(path), &overrides).unwrap()
}

/// Trains when started by the test below; does nothing in a normal test run.
#[test]
fn child_process() {
    if let Ok(dir) = std::env::var(CHILD_ENV) {
        fairyzero_trainer::train(config(Path::new(&dir)), &TrainOptions::default()).unwrap();
    }
}

fn spawn(run_dir: &Path) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args(["child_process", "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, run_dir)
        .spawn()
        .unwrap()
}

fn store(run_dir: &Path) -> ObjectStoreBackend {
    ObjectStoreBackend::open(&format!("file://{}", run_dir.display())).unwrap()
}

/// Identities of every stored game.
fn games(run_dir: &Path) -> HashSet<(u64, usize, Termination)> {
    let (games, _) = artifacts::read_all_games(&store(run_dir), &run_dir.join(".test-scratch"), false).unwrap();
    games.iter().map(artifacts::game_identity).collect()
}

fn trained_checkpoints(run_dir: &Path) -> Vec<String> {
    artifacts::list_checkpoints(&store(run_dir)).unwrap().into_iter().filter(|m| m.step > 0).map(|m| m.name).collect()
}

/// Waits until `ready` holds (or the child ends), then kills the child with SIGKILL.
fn kill_when(mut child: Child, what: &str, ready: impl Fn() -> bool) {
    let t0 = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the child ended ({status}) before {what}");
        }
        if ready() {
            break;
        }
        assert!(t0.elapsed() < Duration::from_secs(120), "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL on Unix
    child.wait().unwrap();
}

fn start_lines(run_dir: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(run_dir.join("metrics.jsonl")).unwrap();
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|l| l["kind"] == "start")
        .collect()
}

#[test]
fn killed_runs_resume_from_the_last_checkpoint_without_losing_games() {
    let tmp = tempfile::tempdir().unwrap();
    let run: PathBuf = tmp.path().join("run");
    let singles =
        |run: &Path| store(run).list(artifacts::GAMES_DIR).unwrap().iter().filter(|o| !o.key.contains("-c0")).count();

    // 1. Killed in the first iteration's self-play, before any training.
    kill_when(spawn(&run), "five games", || singles(&run) >= 5);
    let before = games(&run);
    assert!(before.len() >= 5);

    // 2. Killed after the first trained checkpoint, in the next iteration's self-play.
    let child = spawn(&run);
    kill_when(child, "a checkpoint and three more games", || {
        !trained_checkpoints(&run).is_empty() && singles(&run) >= 3
    });
    let at_kill_2 = games(&run);
    assert!(at_kill_2.is_superset(&before), "games were lost");
    let first = trained_checkpoints(&run);
    assert_eq!(first.len(), 1);

    // 3. Resumed from that checkpoint, killed again after the next one.
    let child = spawn(&run);
    kill_when(child, "a second checkpoint", || trained_checkpoints(&run).len() >= 2 && singles(&run) >= 2);
    let starts = start_lines(&run);
    assert_eq!(starts[2]["resumed_from"], first[0].as_str(), "{starts:?}");
    let at_kill_3 = games(&run);
    assert!(at_kill_3.is_superset(&at_kill_2), "games were lost");
    let checkpoints = trained_checkpoints(&run);

    // 4. Damage: the newest checkpoint's weights, a truncated game chunk, half-written files.
    let newest = checkpoints.last().unwrap().clone();
    let weights = run.join("checkpoints").join(&newest).join("weights.safetensors");
    let mut bytes = std::fs::read(&weights).unwrap();
    let n = bytes.len();
    bytes[n / 2] ^= 0xff;
    std::fs::write(&weights, bytes).unwrap();
    let some_chunk = store(&run).list(artifacts::GAMES_DIR).unwrap()[0].key.clone();
    let chunk_bytes = std::fs::read(run.join(&some_chunk)).unwrap();
    std::fs::write(run.join("games/9999999999999-x-000001.games.zst"), &chunk_bytes[..chunk_bytes.len() / 2]).unwrap();
    std::fs::write(run.join("games/9999999999999-x-000002.games.zst#7"), b"staged").unwrap();
    std::fs::create_dir_all(run.join("checkpoints/step-99999999")).unwrap();
    std::fs::write(run.join("checkpoints/step-99999999/weights.safetensors"), b"no manifest").unwrap();

    // 5. The same command again, to the end of the budget.
    let summary = fairyzero_trainer::train(config(&run), &TrainOptions::default()).unwrap();
    let starts = start_lines(&run);
    let resumed_from = starts.last().unwrap()["resumed_from"].as_str().unwrap().to_string();
    assert_eq!(resumed_from, checkpoints[checkpoints.len() - 2], "the damaged {newest} must be skipped");
    assert_eq!(summary.games, 64);
    let end = games(&run);
    assert_eq!(end.len(), 64);
    assert!(end.is_superset(&at_kill_3), "games were lost");
    // Moved aside under their own names, in `damaged/<unix ms>/`.
    let damaged = |path: &str| {
        std::fs::read_dir(run.join("damaged")).unwrap().any(|stamp| stamp.unwrap().path().join(path).exists())
    };
    let header = format!("checkpoints/{newest}/header.json");
    assert!(damaged(&header), "the damaged checkpoint is moved aside, names kept");
    let listing: Vec<String> = walk(&run);
    assert!(damaged("games"), "the truncated chunk is moved aside: {listing:#?}");
    assert!(!run.join("games/9999999999999-x-000002.games.zst#7").exists(), "the staged write is removed");
    // The final checkpoint is good and newer than every earlier one.
    let last = artifacts::list_checkpoints(&store(&run)).unwrap().pop().unwrap();
    assert_eq!(last.step, summary.steps);
    let dir = artifacts::checkpoint_dir(&store(&run), &last, tmp.path()).unwrap();
    assert!(fairyzero_torch::checkpoint::verify_manifest(&dir).unwrap(), "no manifest.json in {}", dir.display());
    assert_eq!(last.state.games, 64);
}

fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p.display().to_string());
        }
    }
    out
}
