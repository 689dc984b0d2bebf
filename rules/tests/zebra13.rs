//! The historical 13x13 zebra/camel game (list #56, `configs/variants/zebra13.toml`): the zebra
//! (one diagonal step, then 3 or more straight, written as the `path` power with a leg minimum),
//! camel, archbishop, alfil-type fers, ferz-strength queen, single-step pawns promoting to the
//! queen only, no castling, chess's results. No engine plays 13x13 with these pieces: the worked
//! examples below (each a ruling of docs/reference-variants.md §3.26), the hand-counted start
//! d1, and `tests/data/zebra13.perft` from an independent pure-Python count
//! (`tools/zebra13_perft.py`) are the references, with the property tests.

mod support;

use std::collections::BTreeSet;
use std::sync::Arc;

use fairyzero_rules::{perft, Color, EndReason, Outcome, Position, Variant};
use support::worked::{destinations, legal, legal_texts, set};

const START: &str = "rnfaczkqcafnr/13/13/ppppppppppppp/13/13/13/13/13/PPPPPPPPPPPPP/13/13/RNFACZKQCAFNR w - - 0 1";

fn variant() -> Arc<Variant> {
    Variant::load("zebra13").unwrap_or_else(|e| panic!("zebra13: {e}"))
}

fn position(fen: &str) -> Position {
    Position::from_fen(variant(), fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// The zebra's 24 moves from g7 on an empty board: bends f6, h6, f8, h8, then 3+ squares
/// outward along both orthogonals.
fn open_board_zebra() -> BTreeSet<String> {
    set(&[
        "k8", "l8", "m8", "h11", "h12", "h13", // via h8: east, north
        "c8", "b8", "a8", "f11", "f12", "f13", // via f8: west, north
        "k6", "l6", "m6", "h3", "h2", "h1", // via h6: east, south
        "c6", "b6", "a6", "f3", "f2", "f1", // via f6: west, south
    ])
}

#[test]
fn start_is_the_seeds_diagram_and_d1_is_58_by_hand() {
    let mut pos = Position::start(variant());
    assert_eq!(pos.to_fen(), START);
    let moves = legal_texts(&mut pos);
    // Per man: pawns 13 (single steps); rooks a1/m1 2+2 (up to rank 3); knights b1 (a3, c3, d2)
    // and l1 (m3, k3, j2) 6; fers c1 (a3, e3) and k1 (i3, m3) 4; archbishops d1 and j1 8 each
    // (4 bishop squares on ranks 2-3, 4 knight squares) 16; camels e1 (b2, h2) and i1 (f2, l2)
    // 4; zebra f1 6 (via e2 west: b2, a2; via g2 east: j2-m2; north is blocked by the pawns at
    // distance 2); king g1 (f2, g2, h2) 3; queen h1 (g2, i2) 2.
    assert_eq!(moves.len(), 13 + 4 + 6 + 4 + 16 + 4 + 6 + 3 + 2, "{moves:?}");
    let zebra: BTreeSet<String> = moves.iter().filter_map(|m| m.strip_prefix("f1").map(str::to_string)).collect();
    assert_eq!(zebra, set(&["a2", "b2", "j2", "k2", "l2", "m2"]));
    assert!(!moves.contains("a4a6"), "no double step");
    assert_eq!(perft(&mut pos, 2), 3364);
}

#[test]
fn zebra_bends_once_then_rides_three_or_more_outward() {
    // Ruling: "straight" = orthogonally outward from the diagonal step (both orthogonals with a
    // positive dot product), never on straight along the diagonal or back toward the origin.
    let got = destinations("zebra13", "6k6/13/13/13/13/13/6Z6/13/13/13/13/13/K12 w - - 0 1", "g7");
    assert_eq!(got, open_board_zebra());
    for near in ["h8", "i8", "j8", "h9", "h10", "i9", "g8", "g9", "g10"] {
        assert!(!got.contains(near), "{near}: the zebra moves at least one diagonal + three straight");
    }
}

#[test]
fn an_occupied_bend_square_blocks_both_rides_from_it() {
    // An enemy on the bend h8 can be neither taken (a single diagonal step is no zebra move)
    // nor jumped.
    let got = destinations("zebra13", "6k6/13/13/13/13/7p5/6Z6/13/13/13/13/13/K12 w - - 0 1", "g7");
    let mut want = open_board_zebra();
    for lost in ["k8", "l8", "m8", "h11", "h12", "h13"] {
        want.remove(lost);
    }
    assert_eq!(got, want);
}

#[test]
fn a_man_short_of_the_minimum_blocks_and_cannot_be_taken() {
    // An enemy on j8, two squares along the east ride from h8: the squares before the third
    // are passed only, so j8 blocks the ride and is not a capture.
    let got = destinations("zebra13", "6k6/13/13/13/13/9p3/6Z6/13/13/13/13/13/K12 w - - 0 1", "g7");
    let mut want = open_board_zebra();
    for lost in ["k8", "l8", "m8"] {
        want.remove(lost);
    }
    assert_eq!(got, want);
}

#[test]
fn the_zebra_captures_at_three_or_more_and_stops_at_a_friend() {
    // An enemy on k8 (three squares east of the bend): taken, and the ride ends there.
    let got = destinations("zebra13", "6k6/13/13/13/13/10p2/6Z6/13/13/13/13/13/K12 w - - 0 1", "g7");
    let mut want = open_board_zebra();
    want.remove("l8");
    want.remove("m8");
    assert_eq!(got, want);
    // A friend on h12 (four squares north of the bend): h11 only.
    let got = destinations("zebra13", "6k6/7P5/13/13/13/13/6Z6/13/13/13/13/13/K12 w - - 0 1", "g7");
    let mut want = open_board_zebra();
    want.remove("h12");
    want.remove("h13");
    assert_eq!(got, want);
}

#[test]
fn a_zebra_pins_along_its_ride_and_a_man_on_the_bend_breaks_it() {
    // Black's zebra f8 bends at g7 and rides south onto the white king's file: the knight g4
    // (third square of the ride) shields g1 and is pinned; the rook may close the bend g7.
    let fen = "6k6/13/13/13/13/5z7/R12/13/13/6N6/13/13/6K6 w - - 0 1";
    let moves = legal("zebra13", fen);
    assert!(!moves.iter().any(|m| m.starts_with("g4")), "{moves:?}");
    assert!(moves.contains("a7g7"));
    // d1 by hand: king f1, h1, f2, g2, h2 (the zebra's e-file ride covers e1-e4 only) = 5, rook
    // a7 along rank 7 (b7-m7) 12 and file a (a1-a6, a8-a13) 12 = 29.
    assert_eq!(moves.len(), 29, "{moves:?}");
    let mut pos = position(fen);
    assert_eq!(perft(&mut pos, 2), 654);
    // With the bend closed, the knight is free.
    let closed = legal("zebra13", "6k6/13/13/13/13/5z7/6R6/13/13/6N6/13/13/6K6 w - - 0 1");
    assert!(closed.iter().any(|m| m.starts_with("g4")), "{closed:?}");
}

#[test]
fn a_zebra_gives_check_only_from_the_fourth_square() {
    // The zebra g7 checks k8 (bend h8, then i8, j8, k8) ...
    let pos = position("13/13/13/13/13/10k2/6Z6/13/13/13/13/13/K12 b - - 0 1");
    assert!(pos.in_check(Color::Tan));
    // ... but not j8, two squares past the bend.
    let pos = position("13/13/13/13/13/9k3/6Z6/13/13/13/13/13/K12 b - - 0 1");
    assert!(!pos.in_check(Color::Tan));
}

#[test]
fn checkmate_wins_and_stalemate_draws() {
    // Zebra b8 (bend a9, then a10-a13) mates the king a13; the rook b10 holds b11-b13.
    let pos = position("k12/13/13/1R11/13/1Z11/13/13/13/13/13/13/11K1 b - - 0 1");
    assert_eq!(pos.outcome(), Some(Outcome::Decisive { winner: Color::Blue, reason: EndReason::Checkmate }));
    // Camel d11 covers a12, the rook b1 the b-file: no move, no check.
    let pos = position("k12/13/3C9/13/13/13/13/13/13/13/13/13/1R9K1 b - - 0 1");
    assert_eq!(pos.outcome(), Some(Outcome::Draw { reason: EndReason::Stalemate }));
}

#[test]
fn queen_is_a_ferz_fers_an_alfil_camel_a_three_one_leaper_archbishop_b_plus_n() {
    let fen = "6k6/13/13/13/13/13/2Q3F3C2/13/13/13/13/13/A11K w - - 0 1";
    assert_eq!(destinations("zebra13", fen, "c7"), set(&["b6", "b8", "d6", "d8"]));
    assert_eq!(destinations("zebra13", fen, "g7"), set(&["e5", "e9", "i5", "i9"]));
    assert_eq!(destinations("zebra13", fen, "k7"), set(&["h6", "h8", "j4", "j10", "l4", "l10"]));
    // The a1-m13 diagonal up to the own fers g7, and the knight's two leaps.
    assert_eq!(destinations("zebra13", fen, "a1"), set(&["b2", "c3", "d4", "e5", "f6", "b3", "c2"]));
}

#[test]
fn the_fers_jumps_over_men() {
    let got = destinations("zebra13", "6k6/13/13/13/13/5ppp5/5pFp5/5ppp5/13/13/13/13/K12 w - - 0 1", "g7");
    assert_eq!(got, set(&["e5", "e9", "i5", "i9"]));
}

#[test]
fn pawns_step_once_and_promote_only_to_the_queen() {
    let moves = legal("zebra13", "6k6/1P11/13/13/13/13/13/13/13/4P8/13/13/K12 w - - 0 1");
    let pawn: Vec<&String> = moves.iter().filter(|m| m.starts_with("b12") || m.starts_with("e4")).collect();
    assert_eq!(pawn, ["b12b13q", "e4e5"], "{moves:?}");
    // Black's promote on rank 1, capturing too, to the queen only.
    let moves = legal("zebra13", "6k6/13/13/13/13/13/13/13/13/13/13/1p11/R5K6 b - - 0 1");
    let pawn: BTreeSet<&String> = moves.iter().filter(|m| m.starts_with("b2")).collect();
    assert_eq!(pawn, [&"b2a1q".to_string(), &"b2b1q".to_string()].into_iter().collect(), "{moves:?}");
}

#[test]
fn there_is_no_castling() {
    // King g1 and both rooks with empty squares between: the king has its five steps only.
    let got = destinations("zebra13", "6k6/13/13/13/13/13/13/13/13/13/13/13/R5K5R w - - 0 1", "g1");
    assert_eq!(got, set(&["f1", "h1", "f2", "g2", "h2"]));
}

#[test]
fn a_path_leg_minimum_is_checked_at_load() {
    let load = |legs: &str| {
        let text = format!(
            r#"
name = "zebraerr"
extends = "zebra13"

[[piece]]
token = "Z"
powers = [{{ kind = "path", legs = {legs} }}]
"#
        );
        Variant::from_toml("zebraerr", &text, None).err().map(|e| e.to_string())
    };
    let e = load(r#"[{ dirs = "F", stop = false }, { dirs = "R", turn = "fs", min = 0 }]"#).expect("min 0 refused");
    assert!(e.contains("legs[1].min"), "{e}");
    let e = load(r#"[{ dirs = "F", stop = false }, { dirs = "R2", turn = "fs", min = 3 }]"#)
        .expect("min over the range refused");
    assert!(e.contains("legs[1].min"), "{e}");
    let e =
        load(r#"[{ dirs = "F", stop = false, min = 2 }, { dirs = "R", turn = "fs" }]"#).expect("min on a step refused");
    assert!(e.contains("legs[0].min"), "{e}");
    let e = load(r#"[{ dirs = "F", stop = false }, { dirs = "R", turn = "fs", minimum = 3 }]"#)
        .expect("unknown key refused");
    assert!(e.contains("minimum"), "{e}");
    assert_eq!(load(r#"[{ dirs = "F", stop = false }, { dirs = "R3", turn = "fs", min = 3 }]"#), None);
}
