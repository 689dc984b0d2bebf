//! The historical 12-file game (list #55, `configs/variants/historical12.toml`): 12x12 (the
//! seed's text; its diagram's 14 ranks are a two-key extension, played below), four rooks and
//! two alfil-type "fers" a side, single-step pawns promoting only to a queen, no castling. No
//! engine reaches 12x12: these worked examples and the hand-counted start perft
//! (`tests/data/historical12.perft`) are the references, with the property tests.

mod support;

use std::sync::Arc;

use fairyzero_rules::{perft, Position, Variant};
use support::worked::{legal_texts as legal, set};

fn variant() -> Arc<Variant> {
    Variant::load("historical12").unwrap_or_else(|e| panic!("historical12: {e}"))
}

fn position(fen: &str) -> Position {
    Position::from_fen(variant(), fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

#[test]
fn start_array_is_the_diagram_turned_half_round_for_black() {
    let pos = Position::start(variant());
    assert_eq!(pos.to_fen(), "rnbrfkqfrbnr/pppppppppppp/12/12/12/12/12/12/12/12/PPPPPPPPPPPP/RNBRFQKFRBNR w - - 0 1");
    // Twelve single pawn steps, two knights with two moves, two fers with two jumps each.
    let moves = legal(&mut pos.clone());
    assert_eq!(moves.len(), 12 + 4 + 4, "{moves:?}");
    assert!(moves.contains("e1c3") && moves.contains("e1g3") && moves.contains("h1f3") && moves.contains("h1j3"));
    assert!(!moves.contains("a2a4"), "no double step");
}

#[test]
fn the_fers_jumps_two_squares_diagonally_over_anything() {
    let got: std::collections::BTreeSet<String> =
        legal(&mut position("6k5/12/12/12/12/12/12/4ppp5/4pFp5/4ppp5/12/K11 w - - 0 1"))
            .into_iter()
            .filter(|m| m.starts_with("f4"))
            .collect();
    assert_eq!(got, set(&["f4d2", "f4d6", "f4h2", "f4h6"]));
}

#[test]
fn pawns_step_once_and_promote_only_to_a_queen() {
    let moves = legal(&mut position("6k5/1P10/12/12/12/12/12/12/12/12/4P7/K11 w - - 0 1"));
    let pawn: Vec<&String> = moves.iter().filter(|m| m.starts_with("b11") || m.starts_with("e2")).collect();
    assert_eq!(pawn, ["b11b12q", "e2e3"], "{moves:?}");
}

#[test]
fn the_diagrams_twelve_by_fourteen_reading_is_two_keys() {
    let text = r#"
name = "historical12x14"
extends = "historical12"
height = 14
start = "rnbrfkqfrbnr/pppppppppppp/12/12/12/12/12/12/12/12/12/12/PPPPPPPPPPPP/RNBRFQKFRBNR w - - 0 1"
"#;
    let v = Variant::from_toml("historical12x14", text, None).unwrap_or_else(|e| panic!("{e}"));
    let mut pos = Position::start(Arc::clone(&v));
    assert_eq!(perft(&mut pos, 2), 400);
    let fen = format!("6k5/1P10/{}K11 w - - 0 1", "12/".repeat(11));
    let mut pos = Position::from_fen(v, &fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    let moves = legal(&mut pos);
    assert!(moves.contains("b13b14q") && !moves.contains("b13b14r"), "{moves:?}");
}
