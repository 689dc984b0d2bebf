//! `fairyzero ladder` through the real binary: a player rated against Fairy-Stockfish at fixed
//! depths in Los Alamos and, through the shipped `engines/variants.ini`, anti-Los Alamos; the
//! outputs, resuming from the results store, and bad command lines.
//!
//! Fairy-Stockfish is the Debian package `fairy-stockfish` (`make test` installs it). Without it
//! the games are skipped with a message, and fail under `CI=true` (as in engines.rs).

mod common;

use std::{
    path::Path,
    process::{Command, Output},
};

use serde_json::Value;

/// `fairyzero ARGS` from the repository root, so that `VariantPath=engines/variants.ini` is
/// the path the documentation gives.
fn fairyzero(args: &[&str]) -> Output {
    let mut command = common::command(args);
    command.current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
    command.output().expect("cannot run the fairyzero binary")
}

fn describe(out: &Output) -> String {
    format!("status {:?}\nstdout:\n{}\nstderr:\n{}", out.status, common::stdout(out), common::stderr(out))
}

fn ladder_json(out: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("ladder.json")).unwrap()).unwrap()
}

/// The batch files of the results store, in name order.
fn store_files(out: &Path) -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(out.join("matches"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".jsonl"))
        .collect();
    files.sort();
    files
}

/// The "N to play" of every match the ladder printed.
fn to_play(stdout: &str) -> Vec<usize> {
    stdout
        .lines()
        .filter_map(|l| l.strip_suffix(" to play"))
        .map(|l| l.rsplit(", ").next().unwrap().parse().unwrap())
        .collect()
}

/// The ladder in Los Alamos: alpha-beta at depth 1 against Fairy-Stockfish at depths 1
/// and 2, four games a match, the depths also against each other; the same command again
/// plays nothing and reports the same ratings.
#[test]
fn a_ladder_is_played_written_and_resumed() {
    let Some(fsf) = common::fairy_stockfish("the ladder test") else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ladder");
    let engine = format!("uci:{fsf}");
    let args = [
        "ladder",
        "--player",
        "alphabeta:1",
        "--engine",
        &engine,
        "--variant",
        "losalamos",
        "--depths",
        "1,2",
        "--games",
        "4",
        "--out",
        out.to_str().unwrap(),
        // Only a clean sweep stops the ladder before depth 2 (seed 0: alpha-beta draws one
        // game of four against depth 1).
        "--stop-at",
        "1",
        "--bootstrap",
        "200",
    ];
    let first = fairyzero(&args);
    assert!(first.status.success(), "{}", describe(&first));
    let stdout = common::stdout(&first);
    assert_eq!(to_play(&stdout), vec![4, 4, 4], "{}", describe(&first));
    for f in ["ladder.md", "ladder.json", "ladder.png"] {
        assert!(out.join(f).metadata().unwrap().len() > 100, "{f}");
    }
    assert!(std::fs::read(out.join("ladder.png")).unwrap().starts_with(b"\x89PNG"));
    let json = ladder_json(&out);
    let depths = json["depths"].as_array().unwrap();
    assert_eq!(depths.len(), 2, "{json:#}");
    for (d, rung) in depths.iter().enumerate() {
        assert_eq!(rung["depth"], d + 1);
        assert_eq!(rung["games"], 4, "{rung:#}");
        let wdl = ["player_wins", "draws", "player_losses"].map(|k| rung[k].as_u64().unwrap());
        assert_eq!(wdl.iter().sum::<u64>(), 4);
        assert_eq!(rung["engine"], format!("uci:{fsf}:depth={}", d + 1));
        assert!(rung.get("end_reasons").and_then(|r| r.get("illegal move")).is_none(), "{rung:#}");
    }
    assert!(depths[0]["previous_depth"].is_null());
    assert_eq!(depths[1]["previous_depth"]["games"], 4);
    assert_eq!(json["anchor"], format!("uci:{fsf}:depth=1"));
    assert_eq!(depths[0]["anchored_elo"], 0.0);
    let elo = json["player_elo"].as_f64().unwrap();
    let [lo, hi] = [0, 1].map(|i| json["player_elo_ci"][i].as_f64().unwrap());
    assert!(lo <= elo && elo <= hi, "{json:#}");
    assert_eq!(json["complete"], true);
    let md = std::fs::read_to_string(out.join("ladder.md")).unwrap();
    assert!(md.contains("on the scale of") && md.contains("| 2 | 4 |") && md.contains("--depths 1,2"), "{md}");
    let last = stdout.lines().last().unwrap();
    assert!(last.starts_with("ladder alphabeta:1 elo ") && last.ends_with(&format!("anchor uci:{fsf}:depth=1")));
    // Three matches, one block each.
    let files = store_files(&out);
    assert_eq!(files.len(), 3, "{files:?}");

    let again = fairyzero(&args);
    assert!(again.status.success(), "{}", describe(&again));
    assert_eq!(to_play(&common::stdout(&again)), vec![0, 0, 0], "{}", describe(&again));
    assert_eq!(store_files(&out), files);
    let json_again = ladder_json(&out);
    assert_eq!(json_again["player_elo"], json["player_elo"]);
    assert_eq!(json_again["depths"], json["depths"]);
}

/// A block lost (a kill before it was stored) is played again, and only it: 24 games are a
/// block of 20 and one of 4.
#[test]
fn a_lost_block_is_played_again() {
    let Some(fsf) = common::fairy_stockfish("the ladder test") else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ladder");
    let engine = format!("uci:{fsf}");
    let args = [
        "ladder",
        "--player",
        "greedy",
        "--engine",
        &engine,
        "--variant",
        "gardner",
        "--depths",
        "1",
        "--games",
        "24",
        "--out",
        out.to_str().unwrap(),
        "--bootstrap",
        "50",
    ];
    let first = fairyzero(&args);
    assert!(first.status.success(), "{}", describe(&first));
    assert_eq!(to_play(&common::stdout(&first)), vec![24]);
    let files = store_files(&out);
    assert_eq!(files.len(), 2, "{files:?}");
    let first_block = out.join("matches").join(&files[0]);
    assert_eq!(std::fs::read_to_string(&first_block).unwrap().lines().count(), 20);
    std::fs::remove_file(&first_block).unwrap();
    let again = fairyzero(&args);
    assert!(again.status.success(), "{}", describe(&again));
    assert!(common::stdout(&again).contains("24 games, 4 stored, 20 to play"), "{}", describe(&again));
    assert_eq!(ladder_json(&out)["depths"][0]["games"], 24);
}

/// Starts `fairyzero ARGS` (from the repository root, output discarded) and returns it once
/// the results store in `out` holds more than `files` batch files.
fn start_until_stored(args: &[&str], out: &Path, files: usize) -> std::process::Child {
    let mut child = Command::new(common::FAIRYZERO)
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .env_remove("RUST_LOG")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("cannot run the fairyzero binary");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !out.join("matches").is_dir() || store_files(out).len() <= files {
        // Ended: fine if it stored the block on its way out (checked once more), else a failure.
        if child.try_wait().unwrap().is_some() {
            assert!(store_files(out).len() > files, "the ladder ended before storing a block");
            break;
        }
        assert!(std::time::Instant::now() < deadline, "no block stored within 60 s");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child
}

/// A ladder stopped by Ctrl-C writes its outputs from the blocks stored and exits with 130; one
/// killed outright loses only its block in progress; the same command then plays what is
/// missing, and every game is stored once.
#[test]
fn an_interrupted_or_killed_ladder_resumes() {
    let Some(fsf) = common::fairy_stockfish("the ladder test") else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ladder");
    let engine = format!("uci:{fsf}");
    // Four blocks of 20, one game at a time: about a second a block.
    let args = [
        "ladder",
        "--player",
        "alphabeta:2",
        "--engine",
        &engine,
        "--variant",
        "losalamos",
        "--depths",
        "1",
        "--games",
        "80",
        "--threads",
        "1",
        "--cpu-threads",
        "1",
        "--out",
        out.to_str().unwrap(),
        "--bootstrap",
        "50",
    ];
    let child = start_until_stored(&args, &out, 0);
    // SAFETY: signalling a child process of ours that has not been waited for.
    #[allow(unsafe_code)]
    let sent = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(sent, 0);
    let stopped = child.wait_with_output().unwrap();
    assert_eq!(stopped.status.code(), Some(130), "{}", describe(&stopped));
    let json = ladder_json(&out);
    assert_eq!(json["complete"], false, "{json:#}");
    let stored = store_files(&out).len();
    assert_eq!(json["depths"][0]["games"], 20 * stored, "{json:#}");
    assert!(stored < 4, "the ladder ran to its end before Ctrl-C");

    let mut killed = start_until_stored(&args, &out, stored);
    killed.kill().unwrap();
    killed.wait().unwrap();
    let stored = store_files(&out).len();

    let last = fairyzero(&args);
    assert!(last.status.success(), "{}", describe(&last));
    let line = format!("80 games, {} stored, {} to play", 20 * stored, 80 - 20 * stored);
    assert!(common::stdout(&last).contains(&line), "{line:?} missing: {}", describe(&last));
    let lines: usize = store_files(&out)
        .iter()
        .map(|f| std::fs::read_to_string(out.join("matches").join(f)).unwrap().lines().count())
        .sum();
    assert_eq!(lines, 80, "every game stored once");
    let json = ladder_json(&out);
    assert_eq!((json["complete"].clone(), json["depths"][0]["games"].clone()), (Value::Bool(true), 80.into()));
}

/// Anti-Los Alamos through the shipped variants file, loaded with Fairy-Stockfish's
/// `VariantPath` (relative to the directory the command runs in: the repository root here).
#[test]
fn an_anti_los_alamos_ladder_uses_the_shipped_variants_file() {
    let Some(fsf) = common::fairy_stockfish("the ladder test") else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("anti");
    let engine = format!("uci:{fsf}:VariantPath=engines/variants.ini");
    let run = fairyzero(&[
        "ladder",
        "--player",
        "alphabeta:1",
        "--engine",
        &engine,
        "--variant",
        "antilosalamos",
        "--depths",
        "1",
        "--games",
        "2",
        "--out",
        out.to_str().unwrap(),
        "--bootstrap",
        "50",
    ]);
    assert!(run.status.success(), "{}", describe(&run));
    let json = ladder_json(&out);
    assert_eq!(json["variant"], "antilosalamos");
    let rung = &json["depths"][0];
    assert_eq!(rung["engine"], format!("uci:{fsf}:depth=1:VariantPath=engines/variants.ini"));
    assert_eq!(rung["games"], 2);
    let reasons = rung["end_reasons"].as_object().unwrap();
    assert!(!reasons.contains_key("illegal move") && !reasons.contains_key("forfeit"), "{json:#}");
}

/// Bad command lines are refused before any game, naming the flag.
#[test]
fn bad_ladders_are_refused_naming_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("never");
    let base = ["ladder", "--player", "alphabeta:1", "--variant", "losalamos", "--out", out.to_str().unwrap()];
    let cases: &[(&[&str], &[&str])] = &[
        (&["--engine", "uci:/usr/games/fairy-stockfish:depth=3"], &["--engine", "depth=3", "--depths"]),
        (&["--engine", "uci:/usr/games/fairy-stockfish:movetime=100"], &["--engine", "movetime=100"]),
        (&["--engine", "alphabeta:2"], &["--engine", "not an engine"]),
        (&["--engine", "uci:/usr/games/fairy-stockfish", "--depths", ""], &["--depths", "empty"]),
        (&["--engine", "uci:/usr/games/fairy-stockfish", "--depths", "3,2"], &["--depths", "increasing"]),
        (&["--engine", "uci:/usr/games/fairy-stockfish", "--stop-at", "1.5"], &["--stop-at", "at most 1"]),
    ];
    for (extra, wanted) in cases {
        let args: Vec<&str> = base.iter().chain(extra.iter()).copied().collect();
        let run = fairyzero(&args);
        let stderr = common::stderr(&run);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {}", describe(&run));
        for w in *wanted {
            assert!(stderr.contains(w), "{args:?}: {w:?} not in {stderr}");
        }
        assert!(!out.exists(), "{args:?} created {}", out.display());
    }
    // An engine that does not exist: an error naming the flag, before any game is stored.
    let run = fairyzero(
        &base
            .iter()
            .chain(["--engine", "uci:/nonexistent/engine", "--depths", "1"].iter())
            .copied()
            .collect::<Vec<_>>(),
    );
    assert!(!run.status.success() && common::stderr(&run).contains("--engine"), "{}", describe(&run));
    assert!(!out.join("matches").exists() || store_files(&out).is_empty());
}
