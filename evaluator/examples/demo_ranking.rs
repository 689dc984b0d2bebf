//! Builds a demonstration run directory whose "checkpoints" are stand-ins (alpha-beta players
//! with growing node budgets, named and stepped like checkpoints), plays them against the
//! baselines and each other, stores the games and ranks the run.
//!
//! ```sh
//! cargo run --release -p fairyzero-evaluator --example demo_ranking -- /tmp/demo-run
//! ```

use std::path::PathBuf;

use fairyzero_evaluator::{
    rank_run, run_match, Contestant, MatchOptions, PlayerSpec, RatingOptions, ResultStore, SearchPlayerConfig,
};
use fairyzero_rules::Variant;

fn main() {
    let dir = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "/tmp/fairyzero-demo-run".into()));
    let v = Variant::load("losalamos").unwrap();
    let spec = |s: &str| PlayerSpec::parse(s).unwrap().contestant(&v, None, &SearchPlayerConfig::default()).unwrap();
    let baselines = [spec("random"), spec("greedy"), spec("alphabeta:1"), spec("alphabeta:2")];
    let checkpoints: Vec<Contestant> = [(1000u64, 30u64), (2000, 100), (3000, 300), (4000, 1000), (5000, 3000)]
        .iter()
        .map(|&(step, nodes)| {
            let mut c = spec(&format!("alphabeta:nodes={nodes}")).renamed(format!("checkpoints/step-{step:06}@64"));
            c.step = Some(step);
            c
        })
        .collect();
    let store = ResultStore::new(&dir);
    let options =
        |seed| MatchOptions { games: 40, seed, move_cap: Some(60), record_moves: false, ..MatchOptions::default() };
    for (i, c) in checkpoints.iter().enumerate() {
        let mut opponents: Vec<&Contestant> = baselines.iter().collect();
        if i > 0 {
            opponents.push(&checkpoints[i - 1]);
        }
        for (j, o) in opponents.into_iter().enumerate() {
            let report = run_match(&v, c, o, &options((10 * i + j) as u64), None).unwrap();
            println!("{}", report.summary().lines().next().unwrap());
            println!("  {}", report.result_line());
            store.append(&report.records, &format!("{}-vs-{}", c.name, o.name)).unwrap();
        }
    }
    let report = run_match(&v, &baselines[1], &baselines[0], &options(99), None).unwrap();
    store.append(&report.records, "greedy-vs-random").unwrap();
    let ranking = rank_run(&dir, &RatingOptions::default()).unwrap();
    print!("{}", ranking.to_markdown());
    println!("wrote {}/ranking.{{md,json,png}}", dir.display());
}
