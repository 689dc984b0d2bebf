//! Golden output: a short seeded self-play game per search kind, diffed against
//! `tests/golden/*.txt`. A deliberate change of search behaviour regenerates them with
//! `FAIRYZERO_BLESS=1 cargo test -p fairyzero-selfplay --test golden`.

mod common;

use std::{fmt::Write, sync::atomic::AtomicBool};

use common::variant;
use fairyzero_model::backend::MockBackend;
use fairyzero_selfplay::{config::SearchKind, record::GameRecord, run_selfplay, RunOptions, SelfPlayConfig};

fn game_text(game: &GameRecord) -> String {
    let mut s = String::new();
    writeln!(
        s,
        "variant {} search {} simulations {} seed {}",
        game.variant, game.search.kind, game.search.simulations, game.seed
    )
    .unwrap();
    for (i, m) in game.moves.iter().enumerate() {
        let targets = m.policy.as_ref().map_or("-".to_string(), |p| {
            let mut p = p.clone();
            p.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            p.iter().take(3).map(|(mv, w)| format!("{mv}:{w}")).collect::<Vec<_>>().join(" ")
        });
        writeln!(s, "{:>3} {:<8} v {:+.4} n {} e {} | {targets}", i + 1, m.mv, m.value, m.simulations, m.evaluations)
            .unwrap();
    }
    writeln!(s, "result {} {}", game.result.score_text(), game.result.reason).unwrap();
    s
}

fn check(kind: SearchKind, name: &str) {
    let config = SelfPlayConfig {
        search: kind,
        simulations: 16,
        games_in_parallel: 1,
        threads: 1,
        move_cap: Some(30),
        ..SelfPlayConfig::default()
    };
    let options = RunOptions { games: 1, seed: 2024, net: "mock".into(), out_dir: None, progress: false };
    let mut games = Vec::new();
    run_selfplay(&variant("gardner"), &config, &MockBackend::material(), &options, &AtomicBool::new(false), |g| {
        games.push(g.clone())
    })
    .unwrap();
    let text = game_text(&games[0]);
    let path = format!("{}/tests/golden/{name}", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("FAIRYZERO_BLESS").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(text, expected, "{path} differs (FAIRYZERO_BLESS=1 regenerates it after a deliberate change)");
}

#[test]
fn seeded_puct_game_is_stable() {
    check(SearchKind::Puct, "gardner-puct.txt");
}

#[test]
fn seeded_gumbel_game_is_stable() {
    check(SearchKind::Gumbel, "gardner-gumbel.txt");
}
