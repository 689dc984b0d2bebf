//! External engines as players (`uci:PATH:...`, docs/engines.md, "External engines as players") through the real
//! `fairyzero` binary: a match against Fairy-Stockfish, anti-Los Alamos through the shipped
//! `engines/variants.ini` (its perft against fairyzero's rules), the variant check before any
//! game, and engines that crash or hang (the match completes, the games are forfeited with a
//! reason).
//!
//! Fairy-Stockfish is the Debian package `fairy-stockfish` (`make test` installs it). Without it
//! these tests are skipped with a message, and fail under `CI=true`. The fake engines are shell
//! scripts in `tests/fixtures/engines/`.

mod common;

use common::fairyzero;

use std::{
    io::{BufRead, BufReader, Write},
    path::Path,
    process::{Command, Output, Stdio},
};

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/engines").join(name).display().to_string()
}

/// Wins, draws and losses of the `result W D L ...` line.
fn result_counts(stdout: &str) -> (usize, usize, usize) {
    let line = stdout.lines().find(|l| l.starts_with("result ")).unwrap_or_else(|| panic!("no result line:\n{stdout}"));
    let n: Vec<usize> = line.split(' ').skip(1).take(3).map(|w| w.parse().unwrap()).collect();
    (n[0], n[1], n[2])
}

/// The stored games of a run directory, one JSON object each.
fn stored_games(run: &Path) -> Vec<serde_json::Value> {
    let mut games = Vec::new();
    for entry in std::fs::read_dir(run.join("matches")).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        games.extend(text.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()));
    }
    games
}

fn describe(out: &Output) -> String {
    format!("status {:?}\nstdout:\n{}\nstderr:\n{}", out.status, common::stdout(out), common::stderr(out))
}

/// The match: Fairy-Stockfish at depth 1 against alpha-beta at depth 1, four games of
/// Los Alamos, stored and ranked.
#[test]
fn fairy_stockfish_plays_a_match() {
    let Some(fsf) = common::fairy_stockfish("the external-engine test") else { return };
    let run = tempfile::tempdir().unwrap();
    let spec = format!("uci:{fsf}:depth=1");
    let out = fairyzero(&[
        "match",
        &spec,
        "alphabeta:1",
        "--variant",
        "losalamos",
        "--games",
        "4",
        "--run",
        run.path().to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", describe(&out));
    let (w, d, l) = result_counts(&common::stdout(&out));
    assert_eq!(w + d + l, 4, "{}", describe(&out));
    let games = stored_games(run.path());
    assert_eq!(games.len(), 4);
    for g in &games {
        assert!(g["blue"] == spec.as_str() || g["tan"] == spec.as_str(), "{g}");
        // Fairy-Stockfish answered every move legally: no game ends by forfeit.
        assert_ne!(g["reason"], "illegal move", "{g}\n{}", describe(&out));
    }
    // `rank` reads the engine's games under its canonical name.
    let out = fairyzero(&["rank", "--run", run.path().to_str().unwrap(), "--bootstrap", "20"]);
    assert!(out.status.success(), "{}", describe(&out));
    assert!(common::stdout(&out).contains(&spec), "{}", describe(&out));
    // The designer's commands take it as their player too.
    let out_dir = run.path().join("designer");
    let out = fairyzero(&[
        "balance",
        "--variant",
        "losalamos",
        "--player",
        &spec,
        "--games",
        "2",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(out.status.success() && common::stdout(&out).contains("first-player "), "{}", describe(&out));
    let out = fairyzero(&[
        "piece-values",
        "--variant",
        "losalamos",
        "--player",
        &spec,
        "--pieces",
        "N",
        "--games",
        "2",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(out.status.success() && common::stdout(&out).contains("games 2"), "{}", describe(&out));
}

/// The same engine over CECP (`xboard:`): Los Alamos, anti-Los Alamos through the variants
/// file, and the variant check against its `feature variants`.
#[test]
fn fairy_stockfish_plays_over_xboard() {
    let Some(fsf) = common::fairy_stockfish("the external-engine test") else { return };
    for (spec, variant) in [
        (format!("xboard:{fsf}:depth=1"), "losalamos"),
        (format!("xboard:{fsf}:depth=1:VariantPath=../engines/variants.ini"), "antilosalamos"),
    ] {
        let out = fairyzero(&["match", &spec, "alphabeta:1", "--variant", variant, "--games", "2"]);
        assert!(out.status.success(), "{}", describe(&out));
        let (w, d, l) = result_counts(&common::stdout(&out));
        assert_eq!(w + d + l, 2);
        assert!(!common::stdout(&out).contains("illegal move"), "{}", describe(&out));
    }
    let out = fairyzero(&["match", &format!("xboard:{fsf}:depth=1"), "random", "--variant", "antilosalamos"]);
    assert!(!out.status.success(), "{}", describe(&out));
    let err = common::stderr(&out);
    assert!(err.contains("does not know the variant `antilosalamos`") && err.contains("feature variants"), "{err}");
}

/// Perft by Fairy-Stockfish (`go perft N`) with the shipped variants file.
fn fsf_perft(fsf: &str, variant: &str, fen: &str, depth: u32) -> u64 {
    let mut child = Command::new(fsf)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        "setoption name VariantPath value ../engines/variants.ini\nsetoption name UCI_Variant value {variant}\n\
         position fen {fen}\ngo perft {depth}"
    )
    .unwrap();
    stdin.flush().unwrap();
    let mut nodes = None;
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        if let Some(n) = line.strip_prefix("Nodes searched: ") {
            nodes = Some(n.trim().parse().unwrap());
            break;
        }
    }
    writeln!(stdin, "quit").unwrap();
    drop(stdin);
    child.wait().unwrap();
    nodes.expect("Fairy-Stockfish printed no perft count")
}

fn fairyzero_perft(variant: &str, fen: &str, depth: u32) -> u64 {
    let out = fairyzero(&["perft", "--variant", variant, "--fen", fen, "--depth", &depth.to_string()]);
    assert!(out.status.success(), "{}", describe(&out));
    let stdout = common::stdout(&out);
    stdout.lines().last().and_then(|l| l.strip_prefix("nodes ")).unwrap().trim().parse().unwrap()
}

/// The sections of `engines/variants.ini` have fairyzero's rules: perft agrees at depths 1 to 4
/// from the start and from positions with compulsory captures, promotions (to the king too)
/// and a side about to lose its last men.
#[test]
fn shipped_variants_ini_agrees_with_fairyzero_by_perft() {
    let Some(fsf) = common::fairy_stockfish("the external-engine test") else { return };
    let cases = [
        ("antilosalamos", "antilosalamos", "rnqknr/pppppp/6/6/PPPPPP/RNQKNR w - - 0 1", 4),
        ("antilosalamos", "antilosalamos", "r1qknr/pPpppp/6/2n3/P1PPPP/RNQKNR w - - 0 1", 4),
        ("antilosalamos", "antilosalamos", "6/2k3/6/2P1p1/1p4/3K2 b - - 0 1", 4),
        ("antilosalamos", "antilosalamos", "6/1P4/6/6/4p1/N5 w - - 0 1", 4),
        ("kinglet", "fzkinglet", "4k3/1P6/8/8/8/8/6p1/4K3 w - - 0 1", 3),
    ];
    for (ours, theirs, fen, max_depth) in cases {
        for depth in 1..=max_depth {
            assert_eq!(
                fsf_perft(fsf, theirs, fen, depth),
                fairyzero_perft(ours, fen, depth),
                "{ours} ({theirs} in engines/variants.ini), {fen}, depth {depth}"
            );
        }
    }
}

/// Anti-Los Alamos against Fairy-Stockfish through `VariantPath` (relative to the current
/// directory, here cli/), and the hint when it is left out.
#[test]
fn anti_los_alamos_plays_through_the_shipped_variants_file() {
    let Some(fsf) = common::fairy_stockfish("the external-engine test") else { return };
    let spec = format!("uci:{fsf}:depth=1:VariantPath=../engines/variants.ini");
    let out = fairyzero(&["match", &spec, "alphabeta:1", "--variant", "antilosalamos", "--games", "2"]);
    assert!(out.status.success(), "{}", describe(&out));
    let (w, d, l) = result_counts(&common::stdout(&out));
    assert_eq!(w + d + l, 2);
    assert!(!common::stdout(&out).contains("illegal move"), "{}", describe(&out));
    let out = fairyzero(&["match", &format!("uci:{fsf}:depth=1"), "alphabeta:1", "--variant", "antilosalamos"]);
    assert!(!out.status.success(), "{}", describe(&out));
    let err = common::stderr(&out);
    assert!(
        err.contains("does not know the variant `antilosalamos`") && err.contains("VariantPath=engines/variants.ini")
    );
}

/// Fairy-Stockfish falls back to chess on a variant it does not know: fairyzero refuses before
/// any game, and so for an engine option the engine does not have.
#[test]
fn an_unknown_variant_or_option_is_refused_before_any_game() {
    let Some(fsf) = common::fairy_stockfish("the external-engine test") else { return };
    let out = fairyzero(&["match", &format!("uci:{fsf}:depth=1"), "random", "--variant", "scirocco", "--games", "2"]);
    assert!(!out.status.success(), "{}", describe(&out));
    let err = common::stderr(&out);
    assert!(err.contains("does not know the variant `scirocco`"), "{}", describe(&out));
    assert!(!common::stdout(&out).contains("result "), "{}", describe(&out));
    let out = fairyzero(&["match", &format!("uci:{fsf}:depth=1:Thread=2"), "random", "--variant", "chess"]);
    assert!(!out.status.success(), "{}", describe(&out));
    assert!(common::stderr(&out).contains("has no option `Thread`"), "{}", describe(&out));
    let out = fairyzero(&["match", "uci:/nonexistent/engine:depth=1", "random", "--variant", "chess"]);
    assert!(!out.status.success(), "{}", describe(&out));
    assert!(common::stderr(&out).contains("cannot start /nonexistent/engine"), "{}", describe(&out));
}

/// A crashing engine and a hanging one: every game completes, each is forfeited by the engine
/// with the reason logged (exit status and stderr, or the timeout), and the engine is started
/// again for the next game.
#[test]
fn crashed_and_hung_engines_forfeit_and_the_match_goes_on() {
    let run = tempfile::tempdir().unwrap();
    let run_dir = run.path().to_str().unwrap();
    let crash = format!("uci:{}:depth=1", fixture("crash.sh"));
    let out = fairyzero(&[
        "match",
        &crash,
        "alphabeta:1",
        "--variant",
        "losalamos",
        "--games",
        "4",
        "--plies",
        "0",
        "--run",
        run_dir,
    ]);
    assert!(out.status.success(), "{}", describe(&out));
    assert_eq!(result_counts(&common::stdout(&out)), (0, 0, 4), "{}", describe(&out));
    let err = common::stderr(&out);
    assert_eq!(err.matches("forfeits after").count(), 4, "{}", describe(&out));
    assert!(err.contains("the engine exited (exit status: 3)"), "{}", describe(&out));
    assert!(err.contains("crash.sh: crashing on purpose at go number 2"), "{}", describe(&out));
    let games = stored_games(run.path());
    assert_eq!(games.len(), 4);
    // One move of the engine each time: it crashed mid-game, not at the start.
    assert!(games.iter().all(|g| g["reason"] == "forfeit" && g["plies"].as_u64().unwrap() >= 2), "{games:?}");
    // The stored record says why, with the engine's last stderr lines.
    assert!(
        games.iter().all(|g| g["forfeit"].as_str().is_some_and(|f| f.contains("the engine exited (exit status: 3)"))),
        "{games:?}"
    );

    let hang = format!("uci:{}:depth=1:timeout=300", fixture("hang.sh"));
    let out = fairyzero(&["match", &hang, "random", "--variant", "losalamos", "--games", "2"]);
    assert!(out.status.success(), "{}", describe(&out));
    assert_eq!(result_counts(&common::stdout(&out)), (0, 0, 2), "{}", describe(&out));
    let err = common::stderr(&out);
    assert_eq!(err.matches("no `bestmove` within 0.3 s: the engine was killed").count(), 2, "{}", describe(&out));
    assert!(err.contains("hang.sh: thinking forever"), "{}", describe(&out));
}
