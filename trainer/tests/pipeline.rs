//! The whole pipeline on a tiny configuration: self-play -> training -> checkpoints ->
//! evaluation -> ranking -> final evaluation, and what the run directory then holds.

use std::{path::Path, time::Instant};

use fairyzero_trainer::{
    artifacts,
    config::RunConfig,
    index::Index,
    store::{ObjectStoreBackend, Store},
    TrainOptions,
};

fn tiny(run_dir: &Path, extra: &[&str]) -> RunConfig {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/runs/tiny.toml");
    let mut overrides = vec![format!("run_dir={:?}", run_dir.display().to_string())];
    overrides.extend(extra.iter().map(|s| s.to_string()));
    RunConfig::load(Path::new(path), &overrides).unwrap()
}

#[test]
fn a_tiny_run_goes_through_every_stage() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let t0 = Instant::now();
    let summary = fairyzero_trainer::train(tiny(&run, &[]), &TrainOptions::default()).unwrap();
    let secs = t0.elapsed().as_secs_f64();
    println!("{}\n{secs:.1} s", summary.to_markdown());
    assert!(secs < 180.0, "the tiny run took {secs:.0} s");
    assert_eq!(summary.games, 48);
    assert_eq!(summary.iterations, 3);
    assert!(summary.steps > 0);
    assert_eq!(summary.final_matches.len(), 2, "random and step0");
    assert!(summary.final_matches.iter().all(|m| m.games == 8));

    // The run directory holds everything a researcher needs.
    for f in [
        "config.toml",
        "metrics.jsonl",
        "index.sqlite",
        "ranking.md",
        "ranking.json",
        "ranking.png",
        "summary.md",
        "summary.json",
    ] {
        assert!(run.join(f).exists(), "{f} is missing");
    }
    let tb: Vec<_> = std::fs::read_dir(run.join("tensorboard")).unwrap().collect();
    assert_eq!(tb.len(), 1);
    let metrics = std::fs::read_to_string(run.join("metrics.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = metrics.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let iterations: Vec<&serde_json::Value> = lines.iter().filter(|l| l["kind"] == "iteration").collect();
    assert_eq!(iterations.len(), 3);
    let last = iterations[2];
    for key in ["games_per_sec", "positions_per_sec", "mean_length", "first_player_score", "reasons"] {
        assert!(!last["selfplay"][key].is_null(), "selfplay.{key}: {last}");
    }
    for key in ["policy", "value", "total"] {
        assert!(last["train"]["loss"][key].as_f64().unwrap().is_finite(), "loss.{key}: {last}");
    }
    assert!(last["train"]["policy_entropy"].as_f64().is_some());
    assert!(last["train"]["lr"].as_f64().unwrap() > 0.0);
    assert!(last["train"]["mirrored_fraction"].as_f64().unwrap() > 0.2, "Anti-Los Alamos mirrors: {last}");
    // Evaluations run on their own thread: each iteration queues its checkpoint, and the run's
    // end waits for them, so every checkpoint has its `eval` line (step 0 included).
    for (i, it) in iterations.iter().enumerate() {
        assert!(it["eval_queued"].as_str().is_some(), "iteration {i} queued no evaluation: {it}");
        let time = &it["time"];
        let wall = time["wall_secs"].as_f64().unwrap();
        for key in ["selfplay_secs", "train_secs", "eval_secs"] {
            let part = time[key].as_f64().unwrap_or_else(|| panic!("time.{key}: {it}"));
            assert!((0.0..=wall + 1e-6).contains(&part), "time.{key} = {part} of {wall} s: {it}");
        }
    }
    let evals: Vec<&serde_json::Value> = lines.iter().filter(|l| l["kind"] == "eval").collect();
    assert_eq!(evals.len(), 4, "step 0 and 3 iterations: {evals:?}");
    assert!(evals.iter().all(|e| e["elo"].as_f64().is_some()), "{evals:?}");
    assert!(summary.time.selfplay_secs > 0.0 && summary.time.train_secs > 0.0 && summary.time.eval_secs > 0.0);
    assert!(lines.iter().any(|l| l["kind"] == "train"));
    assert!(lines.iter().any(|l| l["kind"] == "final"));

    // The store: one compacted chunk per iteration, a checkpoint per iteration plus step 0, and
    // every match.
    let store = ObjectStoreBackend::open(&format!("file://{}", run.display())).unwrap();
    let (games, skipped) = artifacts::read_all_games(&store, &dir.path().join("scratch"), false).unwrap();
    assert_eq!((games.len(), skipped.len()), (48, 0));
    let chunks = store.list(artifacts::GAMES_DIR).unwrap();
    assert_eq!(chunks.len(), 3, "{chunks:?}");
    let manifests = artifacts::list_checkpoints(&store).unwrap();
    assert_eq!(manifests.len(), 4);
    assert_eq!(manifests[0].step, 0);
    assert_eq!(manifests[3].step, summary.steps);
    assert_eq!(manifests[3].state.games, 48);
    // The index answers queries and can be rebuilt from the store alone.
    let mut index = Index::open(&run.join("index.sqlite")).unwrap();
    let before = index.scores_against("random").unwrap();
    assert!(before.len() >= 4, "{before:?}");
    std::fs::remove_file(run.join("index.sqlite")).unwrap();
    let mut index2 = Index::open(&run.join("index.sqlite")).unwrap();
    index2.rebuild(&store).unwrap();
    assert_eq!(index2.scores_against("random").unwrap(), before);
    assert_eq!(index2.checkpoints().unwrap().len(), 4);
    let _ = index.sync(&store);

    // Running the same command again: the budget is spent, nothing new is played, and stored
    // matches are found rather than played again.
    let matches_before = store.list(artifacts::MATCHES_DIR).unwrap();
    let again = fairyzero_trainer::train(tiny(&run, &[]), &TrainOptions::default()).unwrap();
    assert_eq!((again.games, again.steps), (48, summary.steps));
    assert_eq!(store.list(artifacts::MATCHES_DIR).unwrap(), matches_before);
    assert_eq!(again.final_matches.len(), 2, "the stored final evaluation is reported again");
}
