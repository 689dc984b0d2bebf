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

use std::path::Path;

use support::perft_data::{self, Case};

const DATA: &str = "tests/data/chushin/middlegames.perft";

/// The default node budget of a debug build. Perft counts the last ply in bulk, so a line's
/// cost is the number of positions one ply above the leaves; the 40-60 M node lines cost about
/// 4 s each in a debug build.
const DEBUG_BUDGET: u64 = 5_000_000;

fn cases() -> Vec<Case> {
    let cases = perft_data::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join(DATA), DATA);
    for c in &cases {
        assert_eq!(c.variant, "chushin", "{DATA}:{}: a Chushin file", c.line);
    }
    cases
}

#[test]
fn middlegame_perft_matches_the_reference_generator() {
    let budget = perft_data::budget(if cfg!(debug_assertions) { DEBUG_BUDGET } else { u64::MAX });
    let (checked, skipped, failures) = perft_data::check(cases(), budget);
    eprintln!("{checked} chushin perft lines checked, {skipped} above the node budget of {budget} skipped");
    assert!(checked > 0, "no perft line ran");
    assert!(
        failures.is_empty(),
        "{} perft mismatches (expected = the reference generator):\n{}",
        failures.len(),
        failures.join("\n")
    );
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
