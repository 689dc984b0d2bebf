//! Self-play runs with the mock evaluator: records, replay, determinism, setup phases, playout
//! caps, corrupt files.

mod common;

use std::{
    fs,
    sync::{atomic::AtomicBool, Mutex},
};

use common::variant;
use fairyzero_model::backend::{Backend, BackendInfo, EvalOutput, EvalRequest, MockBackend};
use fairyzero_selfplay::{
    config::{PlayoutCapConfig, SearchKind, SelfPlayConfig, SetupMode},
    export,
    record::{self, GameRecord, SetupKind, Termination},
    run_selfplay,
    search::Adjudicator,
    RunOptions, Summary,
};

fn small(search: SearchKind) -> SelfPlayConfig {
    SelfPlayConfig {
        search,
        simulations: 8,
        games_in_parallel: 4,
        threads: 2,
        move_cap: Some(40),
        games_per_file: 3,
        ..SelfPlayConfig::default()
    }
}

fn run(
    variant_name: &str,
    config: &SelfPlayConfig,
    games: u64,
    seed: u64,
    out: Option<&std::path::Path>,
) -> (Summary, Vec<GameRecord>) {
    let v = variant(variant_name);
    let options =
        RunOptions { games, seed, net: "mock".into(), out_dir: out.map(|p| p.to_path_buf()), progress: false };
    let mut seen = Vec::new();
    let summary =
        run_selfplay(&v, config, &MockBackend::material(), &options, &AtomicBool::new(false), |g| seen.push(g.clone()))
            .unwrap();
    seen.sort_by_key(|g| g.seed);
    (summary, seen)
}

/// Replays a game and checks its moves, targets and result against the rules.
fn check_replay(game: &GameRecord, config: &SelfPlayConfig) {
    let v = variant(&game.variant);
    let mut steps = 0;
    let last = game
        .replay(&v, |step| {
            steps += 1;
            assert!(step.legal.contains(&step.played));
            if let Some(p) = &step.policy {
                assert_eq!(p.len(), step.legal.len());
                assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-4);
            }
            assert_eq!(step.position.ply() as usize, step.ply);
        })
        .unwrap();
    assert_eq!(steps, game.moves.len());
    // The final position is over, for the recorded reason.
    let start = game.start_position(&v).unwrap();
    let adj = Adjudicator::new(&start, config.move_cap, config.move_cap_result);
    let mut last = last;
    let mut legal = Vec::new();
    last.legal_moves(&mut legal);
    let outcome = adj.outcome(&last, &legal).expect("the game is over");
    assert_eq!(game.result.reason.end_reason(), Some(outcome.reason()));
    assert_eq!(outcome.winner(), game.result.winner);
}

#[test]
fn games_are_recorded_and_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    for kind in [SearchKind::Puct, SearchKind::Gumbel] {
        let out = dir.path().join(format!("{kind:?}"));
        let config = small(kind);
        let (summary, seen) = run("gardner", &config, 5, 11, Some(&out));
        assert_eq!(summary.games, 5);
        assert_eq!(summary.files.len(), 2, "3 + 2 games");
        let loaded = record::load_dir(&out).unwrap();
        assert!(loaded.skipped.is_empty());
        let mut games = loaded.games;
        games.sort_by_key(|g| g.seed);
        assert_eq!(games, seen, "records round-trip");
        for g in &games {
            assert_eq!(g.variant, "gardner");
            assert_eq!(g.variant_hash, record::hash_hex(variant("gardner").hash));
            assert_eq!(g.setup, SetupKind::Default);
            assert!(g.moves.iter().all(|m| m.simulations == 8 || m.policy.is_none()));
            check_replay(g, &config);
            let pgn = export::to_pgn(g, &variant("gardner")).unwrap();
            assert!(pgn.contains("[Variant \"gardner\"]") && pgn.contains("[FEN \""), "{pgn}");
            assert!(pgn.trim_end().ends_with(g.result.score_text()), "{pgn}");
        }
        assert_eq!(summary.positions, games.iter().map(|g| g.moves.len() as u64).sum::<u64>());
        let text = summary.to_string();
        assert!(text.contains("first-player score") && text.contains("result reasons"), "{text}");
    }
}

#[test]
fn a_fixed_seed_replays_the_same_games() {
    let config = small(SearchKind::Puct);
    let (_, a) = run("gardner", &config, 4, 5, None);
    // Other thread and slot counts: each game depends on its own seed only.
    let other = SelfPlayConfig { threads: 1, games_in_parallel: 3, ..config.clone() };
    let (_, b) = run("gardner", &other, 4, 5, None);
    assert_eq!(a, b);
    let (_, c) = run("gardner", &config, 4, 6, None);
    assert_ne!(a, c);
}

#[test]
fn setup_phase_moves_are_played_and_learned() {
    let config = SelfPlayConfig { move_cap: Some(12), ..small(SearchKind::Gumbel) };
    let (_, games) = run("scirocco", &config, 2, 3, None);
    let v = variant("scirocco");
    let setup_plies = v.spec.setup.as_ref().unwrap().plies.len();
    for g in &games {
        assert_eq!(g.setup, SetupKind::Phase);
        assert_eq!(g.moves.len(), setup_plies + 12, "setup plies are not counted by the cap");
        for m in &g.moves[..setup_plies] {
            assert!(m.mv.starts_with("set:"), "{}", m.mv);
            assert!(m.policy.is_some(), "setup choices are policy targets");
        }
        assert_eq!(g.result.reason, Termination::MoveCap);
        check_replay(g, &config);
        let text = export::describe(g, &v, true).unwrap();
        assert!(text.contains("setup: set:"), "{text}");
        let pgn = export::to_pgn(g, &v).unwrap();
        assert!(pgn.contains("[SetupMoves \"set:"), "{pgn}");
    }
    // A fixed setup skips the phase.
    let fixed = SelfPlayConfig { setup: SetupMode::Default, ..config };
    let (_, games) = run("scirocco", &fixed, 1, 3, None);
    assert_eq!(games[0].setup, SetupKind::Default);
    assert!(!games[0].moves[0].mv.starts_with("set:"));
}

#[test]
fn playout_cap_randomisation_records_only_full_searches() {
    let config = SelfPlayConfig {
        playout_cap: Some(PlayoutCapConfig { full_fraction: 0.3, reduced_simulations: 2 }),
        ..small(SearchKind::Puct)
    };
    let (summary, games) = run("gardner", &config, 4, 9, None);
    let moves: Vec<_> = games.iter().flat_map(|g| &g.moves).filter(|m| m.simulations > 0).collect();
    let full = moves.iter().filter(|m| m.policy.is_some()).count();
    assert!(full > 0 && full < moves.len());
    for m in &moves {
        match &m.policy {
            Some(p) => {
                assert_eq!(m.simulations, 8);
                // Visit counts: this search's 8 plus those kept from the previous move's tree.
                assert!(p.iter().map(|(_, w)| w).sum::<f32>() >= 8.0);
            }
            None => assert_eq!(m.simulations, 2),
        }
    }
    assert_eq!(summary.policy_targets, full as u64);
}

#[test]
fn corrupt_files_are_rejected_and_the_rest_loads() {
    let dir = tempfile::tempdir().unwrap();
    let (_, games) = run("gardner", &small(SearchKind::Gumbel), 3, 1, Some(dir.path()));
    assert_eq!(record::load_dir(dir.path()).unwrap().games.len(), 3);
    let good = fs::read_dir(dir.path()).unwrap().next().unwrap().unwrap().path();
    let bytes = fs::read(&good).unwrap();

    // A flipped byte in the middle: zstd's checksum or the JSON catches it.
    let mut flipped = bytes.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0x55;
    let flipped_path = dir.path().join("b-flipped.games.zst");
    fs::write(&flipped_path, &flipped).unwrap();
    // A truncated file.
    let truncated_path = dir.path().join("c-truncated.games.zst");
    fs::write(&truncated_path, &bytes[..bytes.len() - 10]).unwrap();
    // Not zstd at all.
    let garbage_path = dir.path().join("d-garbage.games.zst");
    fs::write(&garbage_path, b"hello").unwrap();
    // Valid zstd, not a record.
    let json_path = dir.path().join("e-json.games.zst");
    fs::write(&json_path, zstd::encode_all(&b"{\"a\": 1}\n"[..], 3).unwrap()).unwrap();
    // Valid header, a damaged game line.
    let text = String::from_utf8(zstd::decode_all(&bytes[..]).unwrap()).unwrap();
    let damaged = text.replacen("\"moves\"", "\"mooves\"", 1);
    let line_path = dir.path().join("f-line.games.zst");
    fs::write(&line_path, zstd::encode_all(damaged.as_bytes(), 3).unwrap()).unwrap();

    for (path, expect) in [
        (&flipped_path, ""),
        (&truncated_path, "corrupt or truncated"),
        (&garbage_path, "corrupt or truncated"),
        (&json_path, "not a fairyzero game record"),
        (&line_path, "line 2: unknown field `mooves`"),
    ] {
        let err = record::read_chunk(path).unwrap_err().to_string();
        assert!(err.starts_with(&format!("game record file {}: ", path.display())), "{err}");
        assert!(err.contains(expect), "{err}");
    }
    let loaded = record::load_dir(dir.path()).unwrap();
    assert_eq!(loaded.games.len(), 3, "the good file still loads");
    assert_eq!(loaded.skipped.len(), 5);
    assert_eq!(loaded.files, 1);
    let mut sorted = loaded.games;
    sorted.sort_by_key(|g| g.seed);
    assert_eq!(sorted, games);
}

#[test]
fn replay_refuses_another_variant() {
    let (_, games) = run("gardner", &small(SearchKind::Gumbel), 1, 2, None);
    let err = games[0].replay(&variant("chess"), |_| {}).unwrap_err().to_string();
    assert!(err.contains("the game is gardner"), "{err}");
}

/// Records the batch sizes it is given.
struct Recording {
    inner: MockBackend,
    batches: Mutex<Vec<usize>>,
}

impl Backend for Recording {
    fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut EvalOutput) {
        self.batches.lock().unwrap().push(batch.len());
        self.inner.evaluate(batch, out)
    }

    fn info(&self) -> BackendInfo {
        self.inner.info()
    }
}

#[test]
fn leaves_of_many_games_share_batches() {
    let config = SelfPlayConfig { games_in_parallel: 16, threads: 2, ..small(SearchKind::Gumbel) };
    let eval = Recording { inner: MockBackend::material(), batches: Mutex::default() };
    let options = RunOptions { games: 32, seed: 4, net: "mock".into(), out_dir: None, progress: false };
    let summary = run_selfplay(&variant("gardner"), &config, &eval, &options, &AtomicBool::new(false), |_| {}).unwrap();
    let batches = eval.batches.lock().unwrap();
    assert!(batches.iter().all(|&b| b <= 8), "each thread batches its 8 games");
    assert_eq!(batches.iter().max(), Some(&8), "a thread's batch holds a leaf of each of its games");
    // How full the batches stay as games end depends on how the threads share the last games.
    assert!(summary.mean_batch() > 2.0, "mean batch {}", summary.mean_batch());
    assert_eq!(summary.evaluated(), batches.iter().sum::<usize>() as u64);
    assert_eq!(summary.workers.len(), 2);
    assert!(summary.evaluations > 0 && summary.evaluations <= summary.evaluated());
}
