//! Jupiter's relay pieces and the Teleporter (jupiter.md §3.4 Relay pair and Odder pair, §3.5
//! Dervish and Harpy, §5.2, rulings 11.10, 11.11, 11.23): the dossier's worked examples E12b,
//! E17, E28, E28b, X4 and X5, and hand-derived lists for the Relay Wazir, Relay Firzan, Zoom,
//! Teleporter, Dervish and Harpy.
//!
//! Expected lists come from the dossier or from the definitions, never from the generator.

mod support;

use fairyzero_rules::{MoveList, Position};
use support::jupiter::jupiter_position;

/// A position from piece lists (`"RLW d4"`: token and square, Blue's and Tan's), Blue to move.
fn position(blue: &[&str], tan: &[&str]) -> Position {
    jupiter_position(&support::jupiter::dossier_position_string(&blue.join(", "), &tan.join(", "), true))
}

fn legal(pos: &Position) -> Vec<String> {
    let mut moves = MoveList::new();
    pos.clone().legal_moves(&mut moves);
    let mut out: Vec<String> = moves.iter().map(|m| pos.move_to_string(m)).collect();
    out.sort();
    out
}

/// The legal moves of the piece on `square`, as sorted move strings.
fn moves_of(pos: &Position, square: &str) -> Vec<String> {
    let dims = pos.variant().dims;
    let from = dims.parse_square(square).unwrap();
    let mut moves = MoveList::new();
    pos.clone().legal_moves(&mut moves);
    let mut out: Vec<String> = moves.iter().filter(|m| m.from == from).map(|m| pos.move_to_string(m)).collect();
    out.sort();
    out
}

fn sorted(moves: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    out.sort();
    out
}

#[test]
fn e12b_neartaker_next_to_a_relay_wazir() {
    let pos = position(&["K p1", "RLW d4", "NRT e4"], &["W f4", "P g4", "P e6", "K a16"]);
    let expected = ["e4d3", "e4e3", "e4f3", "e4f4", "e4d5", "e4e5xe6", "e4f5"];
    assert_eq!(moves_of(&pos, "e4"), sorted(&expected));
}

#[test]
fn e17_teleporter_relays() {
    let blue = ["K h1", "CO i1", "GU g2", "P i2", "N d4", "TLP e5", "W f5", "P e6"];
    let tan = ["P f6", "K a16"];
    let pos = position(&blue, &tan);
    // The moves the Teleporter grants: every legal move but the Teleporter's own that is gone
    // when a Commoner (no relay, the same blocker) stands on e5 instead.
    let without = position(&blue.map(|p| if p == "TLP e5" { "CO e5" } else { p }), &tan);
    let before = legal(&without);
    let granted: Vec<String> =
        legal(&pos).into_iter().filter(|m| !m.starts_with("e5") && !before.contains(m)).collect();
    assert_eq!(granted, sorted(&["e6h2", "g2d6"]));
    // Nothing the Teleporter grants is lost either (no move disappears when it arrives).
    let with = legal(&pos);
    assert!(before.iter().filter(|m| !m.starts_with("e5")).all(|m| with.contains(m)));
}

#[test]
fn e28_zoom_relay() {
    let pos = position(&["ZOO a1", "K p1", "P a3", "N b3", "W a4"], &["N b4", "K a16"]);
    assert_eq!(moves_of(&pos, "a3"), sorted(&["a3c1", "a3a2", "a3b2", "a3b4"]));
}

#[test]
fn e28b_zoom_relay_to_an_immobilized_piece() {
    let pos = position(&["ZOO a1", "K p1", "P a3", "N b3", "W a4"], &["IM b4", "K a16"]);
    assert_eq!(moves_of(&pos, "a3"), sorted(&["a3a2", "a3b2", "a3c1", "a3a3*"]));
}

#[test]
fn x4_harpy_relay() {
    let pos = position(&["K p1", "HA d4", "W c5", "P e6"], &["N g7", "K a16"]);
    assert_eq!(moves_of(&pos, "e6"), sorted(&["e6f4", "e6g5", "e6c7", "e6e7", "e6g7", "e6d8", "e6f8"]));
}

#[test]
fn x5_dervish_relay() {
    let pos = position(&["K p1", "P a4", "DER b5"], &["P p12", "K a16"]);
    assert_eq!(moves_of(&pos, "a4"), sorted(&["a4a5", "a4c6"]));
}

#[test]
fn relay_wazir_lends_wazir_steps_and_an_own_move_counts_once() {
    // The Guard (mWcF) steps to g9 and i9 by itself (the lent steps are those moves, once);
    // it captures g10 by itself and h10 only with the lent Wazir step; h8 is the relayer.
    let pos = position(&["K p1", "RLW h8", "GU h9"], &["P g10", "P h10", "K a16"]);
    assert_eq!(moves_of(&pos, "h9"), sorted(&["h9g9", "h9i9", "h9g10", "h9h10"]));
}

#[test]
fn relay_firzan_lends_firzan_steps_which_capture() {
    // The Knight on d5 is diagonally next to the Relay Firzan on e4: its eight leaps, plus the
    // Firzan steps c4, e6 and the capture on c6 (e4 is the relayer).
    let pos = position(&["K p1", "RLF e4", "N d5"], &["P c6", "K a16"]);
    let expected = ["d5b4", "d5b6", "d5c3", "d5c7", "d5e3", "d5e7", "d5f4", "d5f6", "d5c4", "d5c6", "d5e6"];
    assert_eq!(moves_of(&pos, "d5"), sorted(&expected));
}

#[test]
fn an_immobilized_relayer_lends_nothing() {
    // The Tan Immobilizer on f3 freezes the Relay Firzan on e4 but not the Knight on d5.
    let pos = position(&["K p1", "RLF e4", "N d5"], &["P c6", "IM f3", "K a16"]);
    let expected = ["d5b4", "d5b6", "d5c3", "d5c7", "d5e3", "d5e7", "d5f4", "d5f6"];
    assert_eq!(moves_of(&pos, "d5"), sorted(&expected));
    assert_eq!(moves_of(&pos, "e4"), sorted(&["e4e4*"]));
}

#[test]
fn relays_do_not_chain() {
    // The Relay Wazir on d4 lends W steps to the Relay Firzan on e4, which does not pass them
    // on: the Knight on f4 gets the Firzan steps only.
    let pos = position(&["K p1", "RLW d4", "RLF e4", "N f4"], &["P p12", "K a16"]);
    let expected = ["f4d3", "f4d5", "f4e2", "f4e6", "f4g2", "f4g6", "f4h3", "f4h5", "f4e3", "f4e5", "f4g3", "f4g5"];
    assert_eq!(moves_of(&pos, "f4"), sorted(&expected));
}

#[test]
fn zoom_lends_unlimited_non_capturing_queen_moves_to_the_pieces_it_sees() {
    // The Zoom on a13 sees the Wazir on a16 (three squares up). Lent slides: down to a15, a14
    // (then the Zoom); right to b16 (the Tan Pawn on c16 is not captured); down-right to b15,
    // c14 (the Blue Wazir on d13 stops it). b16 and a15 are also the Wazir's own steps, which
    // may promote (Blue's zone is ranks 11-16); the relayed moves never promote.
    let pos = position(&["K p1", "ZOO a13", "W a16", "W d13"], &["P c16", "K p16"]);
    let expected = ["a16a15", "a16a15+", "a16a14", "a16b16", "a16b16+", "a16b15", "a16c14"];
    assert_eq!(moves_of(&pos, "a16"), sorted(&expected));
}

#[test]
fn teleporter_lends_to_every_royal_and_never_captures() {
    // Two Blue Kings (h1, p8). The Knight on e9 (Teleporter + (0,1)) may go to h2 and p9; the
    // Pawn on d8 (+(-1,0)) to g1 but not onto the Tan Pawn on o8; the Wazir on f7 (+(1,-1))
    // would land off the board from both Kings; the Wazir on o9 (p8 + (-1,1)) may go to d9,
    // next to the Teleporter.
    let blue = ["K h1", "K p8", "TLP e8", "N e9", "P d8", "W f7", "W o9"];
    let pos = position(&blue, &["P o8", "K a16"]);
    // (Its own leaps to rank 11 may promote.)
    let knight = ["e9d7", "e9c8", "e9g8", "e9c10", "e9g10", "e9d11", "e9d11+", "e9f11", "e9f11+", "e9h2", "e9p9"];
    assert_eq!(moves_of(&pos, "e9"), sorted(&knight));
    assert_eq!(moves_of(&pos, "d8"), sorted(&["d8d9", "d8g1"]));
    assert_eq!(moves_of(&pos, "f7"), sorted(&["f7f6", "f7f8", "f7e7", "f7g7"]));
    assert_eq!(moves_of(&pos, "o9"), sorted(&["o9o10", "o9n9", "o9p9", "o9o8", "o9d9"]));
}

#[test]
fn teleporter_may_teleport_a_royal() {
    // The King on f9 stands at +(1,1) from the Teleporter: it may go to i2 (the other King h1
    // + (1,1)) and to g10 (itself + (1,1), which is its own step: one move).
    let pos = position(&["K h1", "K f9", "TLP e8"], &["P p12", "K a16"]);
    let king = ["f9e9", "f9e10", "f9f8", "f9f10", "f9g8", "f9g9", "f9g10", "f9i2"];
    assert_eq!(moves_of(&pos, "f9"), sorted(&king));
}

#[test]
fn dervish_lends_only_the_leap_across_itself() {
    // Jupiter's 1999 Dervish: the Wazir on h9 leaps across to h7, capturing, but never steps
    // around the Dervish onto the Tan i8 (Scirocco's ruling R-S3 would allow it); the Wazir on
    // g8 leaps across onto i8, capturing, but never around onto h7.
    let pos = position(&["K p1", "DER h8", "W h9", "W g8"], &["P h7", "P i8", "K a16"]);
    assert_eq!(moves_of(&pos, "h9"), sorted(&["h9h10", "h9g9", "h9i9", "h9h7"]));
    assert_eq!(moves_of(&pos, "g8"), sorted(&["g8f8", "g8g7", "g8g9", "g8i8"]));
}

#[test]
fn harpy_lends_nothing_along_its_queen_lines() {
    // Jupiter's 1999 Harpy relays to pieces a Knight's leap away only (not Scirocco's lines).
    let pos = position(&["K p1", "HA d4", "W d6"], &["P p12", "K a16"]);
    assert_eq!(moves_of(&pos, "d6"), sorted(&["d6c6", "d6e6", "d6d7", "d6d5"]));
}

#[test]
fn a_relay_reach_by_leap_survives_the_recorded_specification() {
    // Run directories record the resolved specification as TOML and the variant hash is taken
    // from it: `reach = { leap = "N" }` must serialize and read back.
    let pos = position(&["K p1", "HA d4", "W d6"], &["P p12", "K a16"]);
    let text = toml::to_string(&pos.variant().spec).expect("the resolved specification serializes");
    assert!(text.contains("leap = \"N\""), "{text}");
    let back: fairyzero_rules::VariantSpec = toml::from_str(&text).expect("and reads back");
    assert_eq!(back, pos.variant().spec);
}
