//! Evaluation never starves training (issue 18): the step-0 evaluation runs on the evaluation
//! thread while the first iteration plays and trains, iterations end by positions
//! (`iteration.positions`), and the run's time split reaches metrics.jsonl and the summary.

use std::path::Path;

use fairyzero_trainer::{config::RunConfig, TrainOptions};

fn config(run_dir: &Path) -> RunConfig {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/runs/tiny.toml");
    let overrides = [
        format!("run_dir={:?}", run_dir.display().to_string()),
        "budget.games=0".to_string(),
        "budget.steps=60".to_string(),
        // Far more games than are played: the iterations end by positions.
        "iteration.games=1000".to_string(),
        "iteration.positions=300".to_string(),
        // Only step 0 is evaluated, and slowly: many games with a deeper search.
        "eval.every=1000".to_string(),
        "eval.games=100".to_string(),
        "eval.simulations=32".to_string(),
        "eval.opponents=[\"random\"]".to_string(),
        "eval.final.games=0".to_string(),
        "output.log_every_steps=1".to_string(),
        "output.tensorboard=false".to_string(),
    ];
    RunConfig::load(Path::new(path), &overrides).unwrap()
}

#[test]
fn training_starts_before_the_step0_evaluation_ends() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let summary = fairyzero_trainer::train(config(&run), &TrainOptions::default()).unwrap();
    println!("{}", summary.to_markdown());
    assert_eq!(summary.steps, 60);

    let metrics = std::fs::read_to_string(run.join("metrics.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = metrics.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let first_train = lines.iter().position(|l| l["kind"] == "train").expect("a train line");
    let step0_eval = lines
        .iter()
        .position(|l| l["kind"] == "eval" && l["checkpoint"] == "step-00000000")
        .expect("the run's end waits for the step-0 evaluation");
    assert!(
        first_train < step0_eval,
        "the first optimizer step (line {first_train}) came after the step-0 evaluation (line {step0_eval})"
    );
    assert_eq!(lines[step0_eval]["matches"][0]["games"], 100, "{}", lines[step0_eval]);

    // Iterations end by positions, long before their 1,000 games: at the game that brings the
    // 300th position (games finished meanwhile count to the next iteration).
    let iterations: Vec<&serde_json::Value> = lines.iter().filter(|l| l["kind"] == "iteration").collect();
    assert!(!iterations.is_empty());
    let first = &iterations[0]["selfplay"];
    assert!(first["positions"].as_u64().unwrap() >= 300, "{first}");
    assert!(first["games"].as_u64().unwrap() < 1000, "{first}");
    // ... and the games in progress there go on: none is dropped, every one counted is stored.
    let store_dir = format!("file://{}", run.display());
    let store = fairyzero_trainer::store::ObjectStoreBackend::open(&store_dir).unwrap();
    let (games, _) = fairyzero_trainer::artifacts::read_all_games(&store, &dir.path().join("scratch"), false).unwrap();
    assert_eq!(games.len() as u64, summary.games);
    let counted: u64 = iterations.iter().map(|it| it["selfplay"]["games"].as_u64().unwrap()).sum();
    assert!(counted <= summary.games, "{counted} games counted, {} stored", summary.games);

    // The time split: in every iteration line, each part within the wall time.
    for it in &iterations {
        let time = &it["time"];
        let wall = time["wall_secs"].as_f64().unwrap();
        for key in ["selfplay_secs", "train_secs", "eval_secs"] {
            let part = time[key].as_f64().unwrap_or_else(|| panic!("time.{key}: {it}"));
            assert!((0.0..=wall + 1e-6).contains(&part), "time.{key} = {part} of {wall} s: {it}");
        }
    }
    // ... and in the summary, where the evaluation's time is counted once it has finished.
    let t = summary.time;
    assert!(t.selfplay_secs > 0.0 && t.train_secs > 0.0 && t.eval_secs > 0.0, "{t:?}");
    for part in [t.selfplay_secs, t.train_secs, t.eval_secs] {
        assert!(part <= t.wall_secs + 1e-6, "{t:?}");
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap()).unwrap();
    assert!(json["time"]["eval_secs"].as_f64().unwrap() > 0.0, "{json}");
    let md = std::fs::read_to_string(run.join("summary.md")).unwrap();
    assert!(md.contains("self-play") && md.contains("evaluation") && md.contains("% of it"), "{md}");
}
