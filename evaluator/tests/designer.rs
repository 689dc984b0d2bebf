//! Variant-design tools: balance and piece values on small, seeded budgets.

use std::time::Instant;

use fairyzero_evaluator::{
    designer::{run_balance, run_piece_values, DesignOptions, SetupSelection},
    PlayerSpec, SearchPlayerConfig,
};
use fairyzero_rules::Variant;

fn contestant(spec: &str, v: &std::sync::Arc<Variant>) -> (PlayerSpec, fairyzero_evaluator::Contestant) {
    let s = PlayerSpec::parse(spec).unwrap();
    let c = s.contestant(v, None, &SearchPlayerConfig::default()).unwrap();
    (s, c)
}

#[test]
fn balance_detects_an_extra_queen_and_accumulates() {
    let t = Instant::now();
    let text = r#"
name = "gardner-blue-queen"
extends = "gardner"
start = "rnbqk/ppppp/2Q2/PPPPP/RNBQK w - - 0 1"
"#;
    let v = Variant::from_toml("test", text, None).unwrap();
    let (_, greedy) = contestant("alphabeta:1:values=mobility", &v);
    let dir = tempfile::tempdir().unwrap();
    let options = DesignOptions { games: 40, random_plies: 2, seed: 1, move_cap: Some(60), threads: 4, batch: 16 };
    let first = run_balance(&v, &greedy, None, &options, dir.path(), None).unwrap();
    assert_eq!(first.overall.tally.games(), 40);
    let (lo, _) = first.overall.tally.interval();
    assert!(lo > 0.5, "{}", first.overall.line());
    assert!(first.overall.line().starts_with("first-player "));
    // A rerun adds games (fresh openings) and the interval shrinks.
    let second = run_balance(&v, &greedy, None, &options, dir.path(), None).unwrap();
    assert_eq!(second.overall.tally.games(), 80);
    let width = |r: &fairyzero_evaluator::designer::BalanceRow| {
        let (lo, hi) = r.tally.interval();
        hi - lo
    };
    assert!(width(&second.overall) < width(&first.overall));
    eprintln!("balance test: {:?}", t.elapsed());
}

#[test]
fn balance_per_setup_array_writes_tables_and_plot() {
    let v = Variant::load("scirocco").unwrap();
    let all = fairyzero_evaluator::designer::all_setups(&v, 1 << 16).unwrap();
    assert_eq!(all.len(), 512);
    let (_, random) = contestant("random", &v);
    let dir = tempfile::tempdir().unwrap();
    let options = DesignOptions { games: 2, random_plies: 0, seed: 2, move_cap: Some(20), threads: 4, batch: 8 };
    let report = run_balance(&v, &random, Some(SetupSelection::Sample(3)), &options, dir.path(), None).unwrap();
    assert_eq!(report.arrays.len(), 3);
    assert_eq!(report.overall.tally.games(), 6);
    for f in ["balance.csv", "balance.md", "balance.png"] {
        assert!(dir.path().join(f).exists(), "{f}");
    }
    assert_eq!(std::fs::read_to_string(dir.path().join("balance.csv")).unwrap().lines().count(), 4);
    // Gardner has no setup phase.
    let g = Variant::load("gardner").unwrap();
    assert!(run_balance(&g, &random, Some(SetupSelection::All), &options, dir.path(), None).is_err());
}

#[test]
fn piece_values_order_queen_rook_pawn() {
    let t = Instant::now();
    let v = Variant::load("gardner").unwrap();
    let (spec, ab) = contestant("alphabeta:2:values=uniform", &v);
    let dir = tempfile::tempdir().unwrap();
    let options = DesignOptions { games: 120, random_plies: 2, seed: 3, move_cap: Some(80), threads: 4, batch: 40 };
    let report = run_piece_values(&v, &spec, &ab, None, "P", &options, dir.path(), None).unwrap();
    let value = |p: &str| report.rows.iter().find(|r| r.piece == p).unwrap().value;
    eprintln!("{:?}", report.rows);
    assert!(value("Q") > value("R"), "{:?}", report.rows);
    assert!(value("R") > value("N").max(value("B")), "{:?}", report.rows);
    assert!(value("N").min(value("B")) > value("P"), "{:?}", report.rows);
    for f in ["piece-values.csv", "piece-values.md", "piece-values.png"] {
        assert!(dir.path().join(f).exists(), "{f}");
    }
    // Nominal values would be circular.
    let (spec, ab) = contestant("alphabeta:1", &v);
    assert!(run_piece_values(&v, &spec, &ab, None, "P", &options, dir.path(), None).is_err());
    eprintln!("piece-values test: {:?}", t.elapsed());
}
