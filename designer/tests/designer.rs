//! Variant-design tools: balance and piece values on small, seeded budgets.

use std::time::Instant;

use fairyzero_designer::{
    run_balance, run_piece_values, write_comparison, write_method_files, DesignOptions, Error, Imbalance,
    SetupSelection,
};
use fairyzero_evaluator::{PlayerSpec, SearchPlayerConfig};
use fairyzero_rules::Variant;

mod common;

use common::{amazon_variant, mock_selfplay, Budget, AMAZON_TOML};

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
    let options =
        DesignOptions { games: 40, random_plies: 2, seed: 1, move_cap: Some(60), threads: 4, batch: 16, stop: None };
    let first = run_balance(&v, &greedy, None, false, &options, dir.path(), None).unwrap();
    assert_eq!(first.overall.tally.games(), 40);
    let (lo, _) = first.overall.tally.interval();
    assert!(lo > 0.5, "{}", first.overall.line());
    assert!(first.overall.line().starts_with("first-player "));
    // A rerun adds games (fresh openings) and the interval shrinks.
    let second = run_balance(&v, &greedy, None, false, &options, dir.path(), None).unwrap();
    assert_eq!(second.overall.tally.games(), 80);
    let width = |r: &fairyzero_designer::BalanceRow| {
        let (lo, hi) = r.tally.interval();
        hi - lo
    };
    assert!(width(&second.overall) < width(&first.overall));
    eprintln!("balance test: {:?}", t.elapsed());
}

#[test]
fn balance_per_setup_array_writes_tables_and_plot() {
    let v = Variant::load("scirocco").unwrap();
    let all = fairyzero_designer::all_setups(&v, 1 << 16).unwrap();
    assert_eq!(all.len(), 512);
    let (_, random) = contestant("random", &v);
    let dir = tempfile::tempdir().unwrap();
    let options =
        DesignOptions { games: 2, random_plies: 0, seed: 2, move_cap: Some(20), threads: 4, batch: 8, stop: None };
    let report = run_balance(&v, &random, Some(SetupSelection::Sample(3)), false, &options, dir.path(), None).unwrap();
    assert_eq!(report.arrays.len(), 3);
    assert_eq!(report.overall.tally.games(), 6);
    for f in ["balance.csv", "balance.md", "balance.png"] {
        assert!(dir.path().join(f).exists(), "{f}");
    }
    assert_eq!(std::fs::read_to_string(dir.path().join("balance.csv")).unwrap().lines().count(), 4);
    assert_eq!(report.mirrors_merged, None);
    // Merging mirror images: 40 sampled arrays, some of them mirror pairs, fewer rows.
    let merged_dir = tempfile::tempdir().unwrap();
    let one = DesignOptions { games: 1, ..options.clone() };
    let merged =
        run_balance(&v, &random, Some(SetupSelection::Sample(40)), true, &one, merged_dir.path(), None).unwrap();
    let n = merged.mirrors_merged.unwrap();
    assert_eq!(merged.arrays.len() + n, 40);
    assert_eq!(merged.arrays.iter().filter(|r| r.mirror.is_some()).count(), n);
    assert!(std::fs::read_to_string(merged_dir.path().join("balance.md")).unwrap().contains("Mirror images merged"));
    // Gardner has no setup phase.
    let g = Variant::load("gardner").unwrap();
    let no_setups = run_balance(&g, &random, Some(SetupSelection::All), false, &options, dir.path(), None);
    assert!(matches!(&no_setups, Err(Error::NoSetupPhase { variant }) if variant == "gardner"), "{no_setups:?}");
}

#[test]
fn a_drawn_start_array_is_measured_per_array_or_refused() {
    let v = Variant::load("wild2").unwrap();
    assert!(v.has_start_generator());
    let (spec, random) = contestant("random", &v);
    let dir = tempfile::tempdir().unwrap();
    let options =
        DesignOptions { games: 2, random_plies: 0, seed: 5, move_cap: Some(16), threads: 2, batch: 8, stop: None };
    // The template array is not the game: balance asks for arrays, piece values refuse.
    let plain = run_balance(&v, &random, None, false, &options, dir.path(), None);
    assert!(matches!(&plain, Err(Error::DrawnStart { hint, .. }) if hint.contains("sample:K")), "{plain:?}");
    let all = run_balance(&v, &random, Some(SetupSelection::All), false, &options, dir.path(), None);
    assert!(matches!(all, Err(Error::DrawnStart { .. })));
    let values = run_piece_values(&v, &spec, &random, None, "P", &options, dir.path(), None);
    assert!(matches!(values, Err(Error::DrawnStart { .. })));
    // Three drawn arrays, each its own row, each an ordinary position string; the same seed
    // draws the same arrays again.
    let report = run_balance(&v, &random, Some(SetupSelection::Sample(3)), false, &options, dir.path(), None).unwrap();
    assert_eq!((report.arrays.len(), report.overall.tally.games()), (3, 6));
    let template = fairyzero_rules::Position::start(v.clone()).to_fen();
    let arrays: Vec<&str> = report.arrays.iter().map(|r| r.array.as_str()).collect();
    assert!(
        arrays.iter().all(|a| *a != template && fairyzero_rules::Position::from_fen(v.clone(), a).is_ok()),
        "{arrays:?}"
    );
    let again = run_balance(&v, &random, Some(SetupSelection::Sample(3)), false, &options, dir.path(), None).unwrap();
    assert_eq!((again.arrays.len(), again.overall.tally.games()), (3, 12));
}

#[test]
fn piece_values_order_queen_rook_pawn() {
    let t = Instant::now();
    let v = Variant::load("gardner").unwrap();
    let (spec, ab) = contestant("alphabeta:2:values=uniform", &v);
    let dir = tempfile::tempdir().unwrap();
    let options =
        DesignOptions { games: 120, random_plies: 2, seed: 3, move_cap: Some(80), threads: 4, batch: 40, stop: None };
    let report = run_piece_values(&v, &spec, &ab, None, "P", &options, dir.path(), None).unwrap();
    let value = |p: &str| report.rows.iter().find(|r| r.piece == p).unwrap().value;
    eprintln!("{:?}", report.rows);
    assert!(value("Q") > value("R"), "{:?}", report.rows);
    assert!(value("R") > value("N").max(value("B")), "{:?}", report.rows);
    assert!(value("N").min(value("B")) > value("P"), "{:?}", report.rows);
    for f in ["piece-values.csv", "piece-values.md", "piece-values.png", "piece-values-elo.png"] {
        assert!(dir.path().join(f).exists(), "{f}");
    }
    // Nominal values would be circular.
    let (spec, ab) = contestant("alphabeta:1", &v);
    let circular = run_piece_values(&v, &spec, &ab, None, "P", &options, dir.path(), None);
    assert!(matches!(circular, Err(Error::CircularPlayer { .. })), "{circular:?}");
    eprintln!("piece-values test: {:?}", t.elapsed());
}

/// A type the start position lacks (here an Amazon that pawns may promote to) is measured by
/// giving one side an extra one (Los Alamos: Gardner's third rank is all under pawn attack, so
/// no quiet square would take it there).
#[test]
fn promotion_only_types_are_measured_by_addition() {
    let v = amazon_variant();
    let (spec, ab) = contestant("alphabeta:1:values=uniform", &v);
    let dir = tempfile::tempdir().unwrap();
    let options =
        DesignOptions { games: 40, random_plies: 2, seed: 4, move_cap: Some(60), threads: 4, batch: 40, stop: None };
    let pieces = ["A".to_string()];
    let gardner = Variant::from_toml(
        "g.toml",
        &AMAZON_TOML.replace("losalamos", "gardner").replace("\"N\", \"A\"", "\"B\", \"N\", \"A\""),
        None,
    )
    .unwrap();
    let (gspec, gab) = contestant("alphabeta:1:values=uniform", &gardner);
    let small = DesignOptions { games: 2, ..options.clone() };
    let report = run_piece_values(&gardner, &gspec, &gab, Some(&pieces), "P", &small, dir.path(), None).unwrap();
    assert!(report.skipped.iter().any(|(p, why)| p == "A" && why.contains("no quiet square")), "{:?}", report.skipped);
    let report = run_piece_values(&v, &spec, &ab, Some(&pieces), "P", &options, dir.path(), None).unwrap();
    let amazon = report.rows.iter().find(|r| r.piece == "A").expect("the amazon is measured");
    assert_eq!(amazon.imbalance, Imbalance::Added);
    assert_eq!(amazon.games, 40);
    let pawn = report.rows.iter().find(|r| r.piece == "P").unwrap();
    assert_eq!(pawn.imbalance, Imbalance::Removed);
    // An extra amazon is a significant advantage even to a 1-ply player.
    assert!(amazon.score_ci.0 > 0.5, "{amazon:?}");
    assert!(amazon.value > 1.0, "{:?}", report.rows);
    let md = std::fs::read_to_string(dir.path().join("piece-values.md")).unwrap();
    assert!(md.contains("| A | one added |"), "{md}");
}

/// The two record-based methods on self-play games of a material-valuing mock: the probe must
/// give back the mock's own piece ordering, the fit must see the big pieces' weight.
#[test]
fn probe_and_fit_on_selfplay_records() {
    use fairyzero_designer::{fit_values, load_games, probe_values, MaterialOptions};
    use fairyzero_model::MockBackend;

    let t = Instant::now();
    let v = Variant::load("gardner").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let games_dir = mock_selfplay(&v, dir.path(), Budget { games: 160, seed: 7, simulations: 8, move_cap: 80 });
    let mock = MockBackend::material();
    // A broken file beside the games is skipped, not fatal.
    std::fs::write(games_dir.join("zz-broken.games.zst"), b"not zstd").unwrap();
    let games = load_games(&v, &games_dir).unwrap();
    assert_eq!(games.len(), 160);
    let chess_games = load_games(&Variant::load("chess").unwrap(), &games_dir);
    assert!(matches!(chess_games, Err(Error::NoGames { skipped: 1, .. })), "{chess_games:?}");

    let options = MaterialOptions { positions: 400, resamples: 200, seed: 1, ..MaterialOptions::default() };
    let probe = probe_values(&v, &mock, &games, None, "P", &options).unwrap();
    let value = |r: &fairyzero_designer::MethodReport, p: &str| {
        r.rows.iter().find(|row| row.piece == p).unwrap_or_else(|| panic!("{p} in {:?}", r.rows)).value
    };
    eprintln!("probe {:?}", probe.rows);
    assert!(value(&probe, "Q") > value(&probe, "R"), "{:?}", probe.rows);
    assert!(value(&probe, "R") > value(&probe, "N").max(value(&probe, "B")), "{:?}", probe.rows);
    assert!(value(&probe, "N").min(value(&probe, "B")) > 1.0, "{:?}", probe.rows);
    for r in &probe.rows {
        assert!(r.value_ci.0 <= r.value && r.value <= r.value_ci.1, "{r:?}");
    }

    let fit = fit_values(&v, &games, None, "P", &options).unwrap();
    eprintln!("fit {:?} {}", fit.rows, fit.source);
    assert!(value(&fit, "Q") > value(&fit, "P"), "{:?}", fit.rows);
    assert!(fit.rows.iter().all(|r| r.raw_ci.0 <= r.raw_ci.1), "{:?}", fit.rows);

    write_method_files(&probe, dir.path()).unwrap();
    write_method_files(&fit, dir.path()).unwrap();
    write_comparison(None, &[probe, fit], dir.path()).unwrap();
    for f in ["piece-values-probe.md", "piece-values-fit.csv", "piece-values-fit.png", "piece-values-compare.md"] {
        assert!(dir.path().join(f).exists(), "{f}");
    }
    eprintln!("probe and fit test: {:?}", t.elapsed());
}
