//! The global features that Chushin Shogi's rules need (dossier §8.5, §8.6): the opponent's
//! pass (a per-piece pass variant forbids a pass right after one) and the repetition counts up
//! to the fourth occurrence, which draws. Checked on a small variant written here, with a
//! one-per-position pass and the fourth-occurrence draw, so that it loads without Chushin's
//! multi-leg pieces.

mod common;

use std::sync::Arc;

use fairyzero_model::{encoding::global, StandardEncoding};
use fairyzero_rules::{EndReason, MoveKind, Outcome, Position, Variant};

/// 5x5, kings and a passing general each, no check rule, the fourth occurrence draws.
const PASS_FOUR: &str = r#"
name = "passfour"
description = "model test: one pass per position, fourth occurrence draws"
width = 5
height = 5
start = "2k2/1g3/5/3G1/2K2 w - - 0 1"
notation = "fairyzero"
repetition = "fourth_draws"
pass = "one_per_position"
move_cap = 200

[promotion]
zone_ranks = 0

[victory]
royal = "capture"
stalemate = "loss"

[[piece]]
name = "general"
token = "G"
betza = "W"
powers = [{ kind = "pass" }]

[[piece]]
name = "king"
token = "K"
betza = "K"
royal = true
"#;

fn pass_four() -> Arc<Variant> {
    Variant::from_toml("passfour (model test)", PASS_FOUR, None).expect("the test variant loads")
}

/// The global features of `pos` as the net sees them.
fn globals(pos: &Position) -> Vec<f32> {
    let enc = StandardEncoding::new(Arc::clone(pos.variant()));
    let moves = common::legal(pos);
    let batch = enc.encode_batch([(pos, moves.as_slice())]);
    batch.global().row(0).to_vec()
}

fn play(pos: &mut Position, text: &str) {
    let m = pos.parse_move(text).unwrap_or_else(|e| panic!("{text} in {}: {e}", pos.to_fen()));
    pos.make(m);
}

/// With one pass per position the previous pass restricts nothing, so OPPONENT_PASSED stays 0
/// (the inputs stay a function of `Position::search_key`, the network cache's key).
#[test]
fn a_pass_that_restricts_nothing_leaves_opponent_passed_unset() {
    let v = pass_four();
    let mut pos = Position::start(Arc::clone(&v));
    let pass = common::legal(&pos).iter().copied().find(|m| m.kind == MoveKind::Pass);
    pos.make(pass.expect("the general can pass"));
    assert!(pos.last_move_was_pass());
    assert!(common::legal(&pos).iter().any(|m| m.kind == MoveKind::Pass), "Tan may pass back");
    assert_eq!(globals(&pos)[global::OPPONENT_PASSED], 0.0, "after Blue's pass: {}", pos.to_fen());
}

/// The kings shuffle until the start position occurs for the fourth time: the second and third
/// occurrences set REPEATED_ONCE and REPEATED_TWICE, and the fourth is a draw, never evaluated,
/// which is why the encoding has no third repetition feature.
#[test]
fn repetition_features_count_up_to_the_fourth_occurrence_which_draws() {
    let v = pass_four();
    let mut pos = Position::start(Arc::clone(&v));
    let expect = |pos: &Position, once: f32, twice: f32, occurrence: usize| {
        let g = globals(pos);
        assert_eq!(
            (g[global::REPEATED_ONCE], g[global::REPEATED_TWICE]),
            (once, twice),
            "occurrence {occurrence} of {}",
            pos.to_fen()
        );
        assert_eq!(pos.repetitions(), occurrence - 1);
    };
    expect(&pos, 0.0, 0.0, 1);
    for occurrence in 2..=4 {
        for m in ["c1b1", "c5b5", "b1c1", "b5c5"] {
            assert!(pos.outcome().is_none(), "decided before {m}: {}", pos.to_fen());
            play(&mut pos, m);
        }
        if occurrence < 4 {
            expect(&pos, 1.0, if occurrence == 3 { 1.0 } else { 0.0 }, occurrence);
        }
    }
    assert_eq!(pos.repetitions(), 3);
    assert_eq!(pos.outcome(), Some(Outcome::Draw { reason: EndReason::Repetition }));
}
