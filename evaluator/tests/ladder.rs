//! Acceptance tests of the rating pipeline on real games: a known ladder of baselines comes out
//! in order with separated intervals, and a player against itself rates about 0.
//!
//! Los Alamos chess (6x6) with a 4-ply random opening and a 30-ply move cap (then a draw): the
//! short cap turns many of the lopsided games into draws, so that each game carries more
//! information about the rating differences than a string of wins would, and about three
//! thousand fast games separate depth 1 from depth 2. (On 5x5 Gardner, depth 2 gains less
//! over depth 1.)

use std::{sync::Arc, time::Instant};

use fairyzero_evaluator::{
    rate_records, run_match, CiMethod, Contestant, MatchGame, MatchOptions, PlayerSpec, RatingOptions, Ratings,
    SearchPlayerConfig,
};
use fairyzero_rules::Variant;

fn contestant(spec: &str, v: &Arc<Variant>) -> Contestant {
    PlayerSpec::parse(spec).unwrap().contestant(v, None, &SearchPlayerConfig::default()).unwrap()
}

fn play(v: &Arc<Variant>, a: &Contestant, b: &Contestant, games: usize, seed: u64) -> Vec<MatchGame> {
    let distinct_players = a.name.split('#').next() != b.name.split('#').next();
    let options =
        MatchOptions { games, seed, random_plies: 4, move_cap: Some(30), threads: 0, ..MatchOptions::default() };
    let t = Instant::now();
    let report = run_match(v, a, b, &options, None).unwrap();
    eprintln!(
        "{} ({} distinct, {:.1}s) {}",
        report.result_line(),
        report.distinct_games,
        t.elapsed().as_secs_f64(),
        report.summary()
    );
    // Distinct openings, both colours: nearly every game differs, except that one deterministic
    // player against itself replays each opening's game with colours swapped.
    let expected = if distinct_players || !a.deterministic { report.games() } else { report.games() / 2 };
    assert!(report.distinct_games * 10 >= expected * 9, "{}", report.summary());
    assert!(report.distinct_games <= expected, "{}", report.summary());
    report.records
}

fn show(r: &Ratings) {
    for p in &r.players {
        eprintln!("{:<14} {:+6.0} [{:+6.0}, {:+6.0}] games {}", p.name, p.elo, p.ci_low, p.ci_high, p.games);
    }
}

#[test]
fn the_baseline_ladder_comes_out_in_order_with_separate_intervals() {
    let v = Variant::load("losalamos").unwrap();
    let names = ["random", "greedy", "alphabeta:1", "alphabeta:2"];
    let p: Vec<Contestant> = names.iter().map(|n| contestant(n, &v)).collect();
    let mut records = Vec::new();
    for (a, b, games) in [(1, 0, 1000), (2, 1, 800), (2, 0, 300), (3, 2, 600), (3, 1, 300), (3, 0, 100)] {
        records.extend(play(&v, &p[a], &p[b], games, (10 * a + b) as u64));
    }
    let ratings =
        rate_records(&records, &RatingOptions { ci: CiMethod::Bootstrap(400), seed: 7, ..Default::default() });
    show(&ratings);
    assert_eq!(ratings.anchor.as_deref(), Some("random"));
    let r: Vec<_> = names.iter().map(|n| ratings.get(n).unwrap()).collect();
    assert_eq!(r[0].elo, 0.0);
    for w in r.windows(2) {
        assert!(w[0].elo < w[1].elo, "{} should rate below {}", w[0].name, w[1].name);
        assert!(w[0].ci_high < w[1].ci_low, "intervals of {} and {} overlap", w[0].name, w[1].name);
    }
}

#[test]
fn a_player_against_itself_rates_about_zero() {
    let v = Variant::load("gardner").unwrap();
    for spec in ["greedy", "alphabeta:1"] {
        let a = contestant(spec, &v);
        let b = a.clone().renamed(format!("{spec}#2"));
        let records = play(&v, &a, &b, 200, 11);
        for ci in [CiMethod::Bootstrap(300), CiMethod::Likelihood] {
            let ratings =
                rate_records(&records, &RatingOptions { anchor: Some(spec.into()), ci, ..Default::default() });
            show(&ratings);
            let twin = ratings.get(&format!("{spec}#2")).unwrap();
            assert!(twin.elo.abs() < 50.0, "{spec}: {twin:?}");
            assert!(twin.ci_low < 0.0 && 0.0 < twin.ci_high, "{spec}: {twin:?}");
        }
    }
}
