//! Self-play is one session across iterations (issue 18, KataGo's way): an iteration's end
//! does not drop the games in progress; they go on with the newly promoted net, keep the name
//! of the net they started with, and every finished game is stored.

use std::{collections::BTreeMap, path::Path};

use fairyzero_trainer::{artifacts, config::RunConfig, store::ObjectStoreBackend, TrainOptions};

fn config(run_dir: &Path, concurrent: bool) -> RunConfig {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/runs/tiny.toml");
    let overrides = [
        format!("run_dir={:?}", run_dir.display().to_string()),
        // No games budget: the session never runs out of games, so the 16 games in flight are
        // in progress at every swap.
        "budget.games=0".to_string(),
        "budget.steps=80".to_string(),
        // Iterations far shorter than a game's life in the session: 4 games of 16 in flight.
        "iteration.games=4".to_string(),
        "eval.every=0".to_string(),
        "eval.final.games=0".to_string(),
        "output.tensorboard=false".to_string(),
        format!("iteration.concurrent={concurrent}"),
    ];
    RunConfig::load(Path::new(path), &overrides).unwrap()
}

#[test]
fn games_in_progress_go_on_across_iterations_with_their_starting_net() {
    persistent_session(true);
}

/// Training after the iteration's games: self-play plays on meanwhile, and the games it
/// finishes then count to the next iteration.
#[test]
fn the_session_plays_on_while_a_non_concurrent_iteration_trains() {
    persistent_session(false);
}

fn persistent_session(concurrent: bool) {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let summary = fairyzero_trainer::train(config(&run, concurrent), &TrainOptions::default()).unwrap();
    println!("{}", summary.to_markdown());

    let metrics = std::fs::read_to_string(run.join("metrics.jsonl")).unwrap();
    let iterations: Vec<serde_json::Value> = metrics
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|l| l["kind"] == "iteration")
        .collect();
    for it in &iterations {
        println!("{}", it["selfplay"]);
    }
    assert!(iterations.len() >= 3, "{} iterations", iterations.len());
    let net_of = |i: usize| iterations[i]["selfplay"]["net"].as_str().unwrap().to_string();
    let games_of = |i: usize| iterations[i]["selfplay"]["games"].as_u64().unwrap();
    // Every promoted checkpoint went into the session: the iterations' nets change.
    assert_ne!(net_of(0), net_of(iterations.len() - 1));

    // No game is lost: every game taken by an iteration or left at the end is in the store.
    let store = ObjectStoreBackend::open(&format!("file://{}", run.display())).unwrap();
    let (games, skipped) = artifacts::read_all_games(&store, &dir.path().join("scratch"), false).unwrap();
    assert!(skipped.is_empty());
    assert_eq!(games.len() as u64, summary.games);
    let taken: u64 = (0..iterations.len()).map(games_of).sum();
    assert!(taken <= summary.games, "{taken} games taken by iterations, {} stored", summary.games);

    // Games that started under the first iteration's net and finished after its end: more games
    // name that net than the first iteration took (at its end, 16 were in progress).
    let mut per_net: BTreeMap<&str, u64> = BTreeMap::new();
    for g in &games {
        *per_net.entry(g.net.as_str()).or_default() += 1;
    }
    let first = per_net.get(net_of(0).as_str()).copied().unwrap_or(0);
    assert!(
        first > games_of(0),
        "{first} games of {} and {} taken by its iteration: {per_net:?}",
        net_of(0),
        games_of(0)
    );
    // Records name the net current at their start: a checkpoint of the run, never a later one
    // than the last iteration's.
    let checkpoints: Vec<String> = artifacts::list_checkpoints(&store).unwrap().into_iter().map(|m| m.name).collect();
    assert!(per_net.keys().all(|n| checkpoints.iter().any(|c| c == n)), "{per_net:?} vs {checkpoints:?}");

    // ... and the session counted the games that a swap happened during.
    let swapped: u64 = iterations.iter().map(|it| it["selfplay"]["swapped_games"].as_u64().unwrap()).sum();
    assert!(swapped > 0, "no game straddled a net swap");
    assert_eq!(iterations[0]["selfplay"]["swapped_games"], 0, "nothing was swapped before the first boundary");
}
