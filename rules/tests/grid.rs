//! Grid Chess (list #61): a move must end in another cell of the 2x2 grid than it started in
//! (`[grid]`). The move generator's totals are checked against cutechess's `grid` by
//! `tests/perft.rs` with `tests/data/grid.perft`; these tests pin the rule itself: moves inside
//! a cell, rides through the own cell, checks that the grid does not allow, castling, the game
//! results of cutechess's tests, and the grid's `offset` against cutechess's displaced and
//! slipped grids.

use std::collections::BTreeSet;

use fairyzero_rules::{perft, Color, EndReason, MoveList, Outcome, Position, Variant};

mod support;

use support::worked::set;

fn position(fen: &str) -> Position {
    support::worked::position("grid", fen)
}

fn legal(fen: &str) -> BTreeSet<String> {
    support::worked::legal("grid", fen)
}

/// The legal moves from one square, as destination squares.
fn from(fen: &str, square: &str) -> BTreeSet<String> {
    support::worked::destinations("grid", fen, square)
}

fn sq(name: &str) -> fairyzero_rules::Square {
    Variant::load("grid").unwrap().dims.parse_square(name).unwrap()
}

#[test]
fn a_move_inside_a_cell_is_illegal() {
    let v = Variant::load("grid").unwrap();
    assert!(v.has_grid() && !v.wraps_files());
    // The 2x2 grid is its own mirror image: every piece stays mirror-safe for training.
    assert!(v.mirror_safe.iter().all(|&s| s));
    // A king on e1 may not step to f1, e2 or f2 (its own cell); d1, d2 are across a line.
    assert_eq!(from("4k3/8/8/8/8/8/8/4K3 w - - 0 1", "e1"), set(&["d1", "d2"]));
    // A pawn on a3 may not step to a4 (the cell a3-b4); from a2 it steps to a3 and a4.
    assert!(from("4k3/8/8/8/8/P7/8/4K3 w - - 0 1", "a3").is_empty());
    assert_eq!(from("4k3/8/8/8/8/8/P7/4K3 w - - 0 1", "a2"), set(&["a3", "a4"]));
    // A rook on a1 rides through a2 and b1 (its own cell) without stopping there ...
    let rook = from("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "a1");
    assert_eq!(rook, set(&["a3", "a4", "a5", "a6", "a7", "a8", "c1", "d1"]));
    // ... and a piece on a2 blocks it all the same.
    assert_eq!(from("4k3/8/8/8/8/8/N7/R3K3 w - - 0 1", "a1"), set(&["c1", "d1"]));
}

#[test]
fn no_check_and_no_capture_inside_a_cell() {
    // The black rook on f1 stands in the white king's cell: it neither checks nor can be taken.
    let fen = "4k3/8/8/8/8/8/8/4Kr2 w - - 0 1";
    let pos = position(fen);
    assert!(!pos.in_check(Color::Blue));
    assert!(!pos.is_attacked(sq("e1"), Color::Tan));
    // It still attacks d1 and g1 beyond its cell... g1 is in the next cell, d1 behind the king.
    assert!(pos.is_attacked(sq("g1"), Color::Tan) && !pos.is_attacked(sq("d1"), Color::Tan));
    assert_eq!(legal(fen), set(&["e1d2"]));
    // Kings may stand side by side in one cell (cutechess's stalemate position: a3 and b4).
    let pos = position("8/8/8/8/pk6/KP6/2r5/8 w - - 0 1");
    assert!(!pos.in_check(Color::Blue));
}

#[test]
fn castling_leaves_the_kings_cell_and_may_pass_a_square_attacked_from_its_own_cell() {
    // Both castlings cross a line (e1-g1, e1-c1). The black knight on e3 attacks f1 from
    // another cell: short castling is out.
    assert!(!from("4k3/8/8/8/8/4n3/8/R3K2R w KQ - 0 1", "e1").contains("g1"));
    // A black rook on f2 stands in f1's cell (e1-f2), so it attacks f1 no more than it checks
    // e1: castling short passes f1 and is legal, as it would not be in chess.
    let fen = "4k3/8/8/8/8/8/5r2/R3K2R w KQ - 0 1";
    assert!(!position(fen).is_attacked(sq("f1"), Color::Tan));
    let king = from(fen, "e1");
    assert!(king.contains("g1") && king.contains("c1"), "{king:?}");
    let mut chess = Position::from_fen(Variant::load("chess").unwrap(), fen).unwrap();
    let mut moves = MoveList::new();
    chess.legal_moves(&mut moves);
    assert!(!moves.iter().any(|m| chess.move_to_string(m) == "e1g1"));
}

#[test]
fn cutechess_game_results() {
    let result = |fen: &str| {
        let mut pos = position(fen);
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        assert!(moves.is_empty(), "{fen}: {} moves", moves.len());
        pos.outcome()
    };
    let mate = |winner| Some(Outcome::Decisive { winner, reason: EndReason::Checkmate });
    assert_eq!(result("r6r/2kRN2p/pp6/2p5/5B2/3P1P2/PP3P1P/6K1 b - - 0 1"), mate(Color::Blue));
    assert_eq!(result("8/8/1p3R2/pkp5/2b1P1r1/5N2/Pb3P1P/3R2K1 w - - 2 28"), mate(Color::Tan));
    assert_eq!(result("Q1bk1bnr/8/3p2p1/p3p3/8/4P3/PPPP2PP/RNB1K1qR w KQ - 0 1"), mate(Color::Tan));
    // The bishop on c6 checks e8 through d7, and neither the bishop on c8 nor the queen on d8
    // may interpose there: d7 is in their own cell.
    assert_eq!(result("r1bqkbnr/p1p1pppp/1pBp4/8/8/4P3/PPPP1PPP/RNBQK1NR b KQkq - 0 4"), mate(Color::Blue));
    assert_eq!(result("8/8/8/8/pk6/KP6/2r5/8 w - - 0 1"), Some(Outcome::Draw { reason: EndReason::Stalemate }));
}

/// Grid Chess with the grid's lines moved (`offset`), against cutechess's start perft.
fn shifted(offset: [u8; 2]) -> Position {
    let text = format!("name = \"shifted\"\nextends = \"grid\"\n[grid]\ncell = [2, 2]\noffset = {offset:?}\n");
    let v = Variant::from_toml("shifted.toml", &text, None).unwrap_or_else(|e| panic!("{e}"));
    Position::start(v)
}

#[test]
fn the_offset_gives_cutechess_displaced_and_slipped_grids() {
    // displacedgrid: lines after the a-file and the first rank (25 cells); slippedgrid: after
    // the a-file only (20 cells).
    assert_eq!(perft(&mut shifted([1, 1]), 4), 31_057);
    assert_eq!(perft(&mut shifted([1, 0]), 4), 176_529);
}

#[test]
fn bad_grids_are_refused_naming_the_field() {
    let load = |extra: &str| {
        let text = format!("name = \"g\"\nextends = \"chess\"\n{extra}");
        Variant::from_toml("g.toml", &text, None).map(|_| ()).unwrap_err().to_string()
    };
    assert!(load("[grid]\ncell = [1, 1]\n").contains("grid.cell"));
    assert!(load("[grid]\ncell = [2, 2]\noffset = [2, 0]\n").contains("grid.offset"));
    assert!(load("[grid]\ncell = [2, 2]\nfiles = 3\n").contains("files"));
    assert!(load("topology = \"torus\"\n").contains("topology"));
    let e = Variant::from_toml("g.toml", "name = \"g\"\nextends = \"xiangqi\"\n[grid]\ncell = [3, 3]\n", None)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(e.contains("flying_general"), "{e}");
}
