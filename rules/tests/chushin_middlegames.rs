//! Chushin Shogi perft from constructed middlegames against the independent reference generator.
//!
//! `tests/data/chushin/middlegames.perft` holds positions where every multi-capture piece, the
//! area movers, both promotion zones, passes and royal captures are in play, with leaf counts
//! from `tools/chushin_reference.py` (written from the dossier's prose, not from this crate; see
//! `tools/gen_chushin_perft.py`). No other engine plays Chushin, so this is the cross-check.
//!
//! Lines above a node budget are skipped: `FZ_PERFT_MAX_NODES` (0 = everything); by default
//! 5,000,000 nodes in a debug build (about a second: every position to depth 2, two of them to
//! depth 3; all of them took 18 s) and everything in a release build:
//!
//! ```text
//! cargo test --release -p fairyzero-rules --test chushin_middlegames
//! ```
//!
//! On a mismatch, compare the two divides to find the first differing move list:
//!
//! ```text
//! python3 tools/chushin_reference.py divide "<fen>" <depth>
//! target/release/fairyzero perft --variant chushin --fen "<fen>" --depth <depth> --divide
//! ```
//!
//! `python3 tools/gen_chushin_perft.py --random-games 200` compares the two divides after random
//! games as well (positions nobody constructed, games ending in a pass, finished games).

mod support;

use std::{fs, path::Path};

use fairyzero_rules::{perft, Position};

const DATA: &str = "tests/data/chushin/middlegames.perft";

/// The default node budget of a debug build. Perft counts the last ply in bulk, so a line's
/// cost is the number of positions one ply above the leaves; the 40-60 M node lines cost about
/// 4 s each in a debug build.
const DEBUG_BUDGET: u64 = 5_000_000;

/// One `perft <depth> <nodes>` line with the position above it.
struct Case {
    line: usize,
    fen: String,
    depth: u32,
    nodes: u64,
}

fn cases() -> Vec<Case> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(DATA);
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = Vec::new();
    let mut fen = None::<String>;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        match key {
            "variant" => assert_eq!(rest.trim(), "chushin", "{DATA}:{}: only chushin positions belong here", i + 1),
            "fen" => fen = Some(rest.trim().to_string()),
            "perft" => {
                let mut fields = rest.split_whitespace().map(str::parse::<u64>);
                let (Some(Ok(depth)), Some(Ok(nodes)), None) = (fields.next(), fields.next(), fields.next()) else {
                    panic!("{DATA}:{}: malformed perft line {line:?}", i + 1)
                };
                let fen = fen.clone().unwrap_or_else(|| panic!("{DATA}:{}: perft line before any fen", i + 1));
                let depth =
                    u32::try_from(depth).unwrap_or_else(|_| panic!("{DATA}:{}: depth {depth} too large", i + 1));
                out.push(Case { line: i + 1, fen, depth, nodes });
            }
            other => panic!("{DATA}:{}: unknown key {other:?}", i + 1),
        }
    }
    out
}

fn budget() -> u64 {
    match std::env::var("FZ_PERFT_MAX_NODES") {
        Ok(v) => match v.parse::<u64>().expect("FZ_PERFT_MAX_NODES is a number") {
            0 => u64::MAX,
            n => n,
        },
        Err(_) if cfg!(debug_assertions) => DEBUG_BUDGET,
        Err(_) => u64::MAX,
    }
}

#[test]
fn middlegame_perft_matches_the_reference_generator() {
    let budget = budget();
    let variant = support::chushin::chushin();
    let (mut checked, mut skipped, mut failures) = (0, 0, Vec::new());
    for case in cases() {
        if case.nodes > budget {
            skipped += 1;
            continue;
        }
        let mut pos =
            Position::from_fen(variant.clone(), &case.fen).unwrap_or_else(|e| panic!("{DATA}:{}: {e}", case.line));
        let got = perft(&mut pos, case.depth);
        checked += 1;
        if got != case.nodes {
            failures.push(format!(
                "{DATA}:{}: perft {} of {:?}: reference {}, engine {}",
                case.line, case.depth, case.fen, case.nodes, got
            ));
        }
    }
    eprintln!("{checked} chushin perft lines checked, {skipped} above the node budget of {budget} skipped");
    assert!(failures.is_empty(), "{} perft mismatches:\n{}", failures.len(), failures.join("\n"));
}

/// The data keeps what makes it worth running: several positions, each checked at depth 2 or
/// more (so that passes meet "no pass after a pass"), and at least one depth-3 line within the
/// debug budget.
#[test]
fn the_data_covers_every_position_below_the_root() {
    let cases = cases();
    let mut fens: Vec<&str> = cases.iter().map(|c| c.fen.as_str()).collect();
    fens.dedup();
    assert!(fens.len() >= 4, "{DATA}: only {} positions", fens.len());
    for fen in fens {
        let deepest = cases.iter().filter(|c| c.fen == fen).map(|c| c.depth).max().unwrap_or(0);
        assert!(deepest >= 2, "{DATA}: {fen:?} is only checked to depth {deepest}");
    }
    assert!(
        cases.iter().any(|c| c.depth >= 3 && c.nodes <= DEBUG_BUDGET),
        "{DATA}: no depth-3 line fits the debug budget"
    );
}
