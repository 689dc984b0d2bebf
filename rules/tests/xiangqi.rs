//! Xiangqi (list #79): the dossier's rules as worked examples, on the built-in
//! `configs/variants/xiangqi.toml` (positions in Fairy-Stockfish's FEN, moves in its UCI form).
//! The move generator's totals are checked against Fairy-Stockfish by `tests/perft.rs` with
//! `tests/data/xiangqi.perft`; these tests pin each rule by itself, and the format's region keys.

use std::collections::BTreeSet;

use fairyzero_rules::{Color, EndReason, MoveList, Outcome, Position, Variant};

mod support;

use support::worked::set;

fn position(fen: &str) -> Position {
    support::worked::position("xiangqi", fen)
}

fn legal(fen: &str) -> BTreeSet<String> {
    support::worked::legal("xiangqi", fen)
}

/// The legal moves from one square, as destination squares.
fn from(fen: &str, square: &str) -> BTreeSet<String> {
    support::worked::destinations("xiangqi", fen, square)
}

#[test]
fn loads_under_its_alias_with_fairy_stockfish_start_moves() {
    let v = Variant::load("chinesechess").unwrap();
    assert_eq!(v.name, "xiangqi");
    let start = legal(&v.start);
    assert_eq!(start.len(), 44);
    // Horses and cannons of the start array, and the middle soldier's single step.
    for m in ["b1a3", "b1c3", "b3b10", "h3e3", "e4e5", "a1a3"] {
        assert!(start.contains(m), "{m} missing");
    }
    // Left-right symmetric regions keep every piece mirror-safe for training's augmentation.
    assert!(v.mirror_safe.iter().all(|&s| s));
}

#[test]
fn flying_general_forbids_an_open_file_between_the_generals() {
    // The general may not step onto the d-file, where the enemy general stands with nothing
    // between them.
    assert_eq!(legal("3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1"), set(&["e1e2", "e1f1"]));
    // The horse on e5 is the only piece between the generals: it is pinned.
    assert_eq!(legal("4k4/9/9/9/9/4N4/9/9/9/4K4 w - - 0 1"), set(&["e1d1", "e1e2", "e1f1"]));
    // Facing generals are a check for the side to move (a position only an editor makes).
    assert!(position("4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1").in_check(Color::Blue));
    assert!(!position("4k4/9/9/9/9/4N4/9/9/9/4K4 w - - 0 1").in_check(Color::Blue));
}

#[test]
fn the_horse_is_blocked_by_an_orthogonal_neighbour() {
    // The soldier on b2 blocks the leaps to a3 and c3; c1 is empty, so d2 stays.
    assert_eq!(from("3k5/9/9/9/9/9/9/9/1P7/1N2K4 w - - 0 1", "b1"), set(&["d2"]));
    assert_eq!(from("3k5/9/9/9/9/9/9/9/9/1N2K4 w - - 0 1", "b1"), set(&["a3", "c3", "d2"]));
    // An enemy blocks as well as a friend, and only the leg next to the horse counts.
    assert_eq!(from("3k5/9/9/9/9/9/9/9/1p7/1N2K4 w - - 0 1", "b1"), set(&["d2"]));
}

#[test]
fn the_cannon_slides_to_move_and_captures_over_exactly_one_screen() {
    // Cannon e3; e5 black soldier (the screen), e7 black chariot (the target), e9 black horse.
    let fen = "3k5/4n4/9/4r4/9/4p4/9/4C4/9/5K3 w - - 0 1";
    let moves = from(fen, "e3");
    assert!(moves.contains("e4") && moves.contains("e7"), "{moves:?}");
    // No capture without a screen, no quiet hop, no capture over two screens.
    for bad in ["e5", "e6", "e8", "e9"] {
        assert!(!moves.contains(bad), "e3{bad} in {moves:?}");
    }
    // Sideways and back it slides like a chariot.
    for ok in ["a3", "d3", "i3", "e2", "e1"] {
        assert!(moves.contains(ok), "e3{ok} missing");
    }
}

#[test]
fn the_soldier_gains_its_sideways_steps_across_the_river() {
    // On its own side (rank 5) it only steps forward.
    assert_eq!(from("3k5/9/9/9/9/4P4/9/9/9/5K3 w - - 0 1", "e5"), set(&["e6"]));
    // Across the river (rank 6) sideways too, never backwards.
    assert_eq!(from("3k5/9/9/9/4P4/9/9/9/9/5K3 w - - 0 1", "e6"), set(&["d6", "e7", "f6"]));
    // On the last rank only sideways; it never promotes.
    assert_eq!(from("3k5/9/9/9/9/9/9/9/9/5K3 w - - 0 1".replace("3k5", "3k1P3").as_str(), "f10"), set(&["e10", "g10"]));
    // Black's soldier crosses at rank 5, going down.
    assert_eq!(from("3k5/9/9/9/9/4p4/9/9/9/5K3 b - - 0 1", "e5"), set(&["d5", "e4", "f5"]));
    assert_eq!(from("3k5/9/9/9/4p4/9/9/9/9/5K3 b - - 0 1", "e6"), set(&["e5"]));
}

#[test]
fn the_elephant_stays_on_its_side_and_is_blocked_at_the_eye() {
    // From c5 the leaps to a7 and e7 would cross the river.
    assert_eq!(from("3k5/9/9/9/9/2B6/9/9/9/5K3 w - - 0 1", "c5"), set(&["a3", "e3"]));
    // A piece on d4 (the midpoint towards e3) blocks that leap.
    assert_eq!(from("3k5/9/9/9/9/2B6/3p5/9/9/5K3 w - - 0 1", "c5"), set(&["a3"]));
    // Black's elephant: its own half is ranks 6-10.
    assert_eq!(from("3k5/9/9/9/2b6/9/9/9/9/5K3 b - - 0 1", "c6"), set(&["a8", "e8"]));
}

#[test]
fn general_and_advisors_stay_in_the_palace() {
    assert_eq!(from("3k5/9/9/9/9/9/9/9/4A4/5K3 w - - 0 1", "e2"), set(&["d1", "d3", "f3"]));
    assert_eq!(from("3k5/9/9/9/9/9/9/3A5/9/5K3 w - - 0 1", "d3"), set(&["e2"]));
    // The general on d3: d4 is outside the palace, c3 too; d2 and e3 remain.
    assert_eq!(from("5k3/9/9/9/9/9/9/3K5/9/9 w - - 0 1", "d3"), set(&["d2", "e3"]));
}

#[test]
fn stalemate_loses_and_checkmate_loses() {
    // Black's general on d10: e10 and d9 are the soldier's, and it is not in check.
    let mut pos = position("3k5/4P4/9/9/9/9/9/9/9/5K3 b - - 0 1");
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    assert!(moves.is_empty() && !pos.in_check(Color::Tan));
    assert_eq!(pos.outcome(), Some(Outcome::Decisive { winner: Color::Blue, reason: EndReason::Stalemate }));
    // Chariots on ranks 9 and 10: mate.
    let mut pos = position("3k5/R8/1R7/9/9/9/9/9/9/5K3 w - - 0 1");
    pos.play_moves("b8b10").unwrap();
    assert_eq!(pos.outcome(), Some(Outcome::Decisive { winner: Color::Blue, reason: EndReason::Checkmate }));
}

#[test]
fn perpetual_check_loses_and_other_repetitions_draw() {
    // The chariot checks on ranks 10 and 9 in turn while the general steps between them: at
    // the third occurrence the checking side (Red, Blue here) loses.
    let mut pos = position("4k4/R8/9/9/9/9/9/9/9/5K3 w - - 0 1");
    pos.play_moves("a9a10 e10e9 a10a9 e9e10 a9a10 e10e9 a10a9").unwrap();
    assert_eq!(pos.outcome(), None, "only two occurrences so far");
    pos.play_moves("e9e10").unwrap();
    assert_eq!(pos.outcome(), Some(Outcome::Decisive { winner: Color::Tan, reason: EndReason::Repetition }));
    // Without checks, the third occurrence is a draw.
    let mut pos = position("4k4/9/9/9/9/9/9/9/R8/5K3 w - - 0 1");
    pos.play_moves("a2a3 e10e9 a3a2 e9e10 a2a3 e10e9 a3a2 e9e10").unwrap();
    assert_eq!(pos.outcome(), Some(Outcome::Draw { reason: EndReason::Repetition }));
    // One check in the cycle is not perpetual check.
    let mut pos = position("4k4/9/9/9/9/9/9/9/R8/5K3 w - - 0 1");
    pos.play_moves("a2a10 e10e9 a10a2 e9e10 a2a10 e10e9 a10a2 e9e10").unwrap();
    assert_eq!(pos.outcome(), Some(Outcome::Draw { reason: EndReason::Repetition }));
}

#[test]
fn region_keys_are_checked_and_name_their_field() {
    let load = |extra: &str| {
        let text = format!("name = \"x\"\nextends = \"xiangqi\"\n{extra}");
        Variant::from_toml("x.toml", &text, None).map(|_| ()).unwrap_err().to_string()
    };
    let e = load("[[piece]]\ntoken = \"A\"\nconfined_to = \"castle\"\n");
    assert!(e.contains("piece \"advisor\": field `confined_to`: unknown region \"castle\""), "{e}");
    let e = load("[[piece]]\ntoken = \"P\"\nregion_moves = [{ region = \"across_river\", betza = \"sX\" }]\n");
    assert!(e.contains("piece \"soldier\": field `region_moves`"), "{e}");
    let e = load("[[region]]\nname = \"palace\"\nsquares = \"d1-k3\"\n");
    assert!(e.contains("region \"palace\": field `squares`") && e.contains("\"k3\""), "{e}");
    let e = load("[[piece]]\ntoken = \"P\"\nregion_moves = [{ region = \"across_river\", betza = \"isW\" }]\n");
    assert!(e.contains("initial (`i`) moves are not supported"), "{e}");
}
