//! Double King Chess (list #40, `configs/variants/doubleking.toml`): two royal kings a side,
//! each castling only with its nearer rook (castling given move by move,
//! `crate::variant::castling`), and pawns stepping two or three squares from their first rank,
//! taken en passant on any square passed. Perft without castling is checked against
//! Fairy-Stockfish by `tests/perft.rs` (`tests/data/doubleking.perft`); these tests pin the
//! castling and the multi-step pawn on positions.

mod support;

use std::sync::Arc;

use fairyzero_rules::{Color, Position, Variant};
use support::worked::legal_texts as legal;

fn variant() -> Arc<Variant> {
    Variant::load("doubleking").unwrap_or_else(|e| panic!("doubleking: {e}"))
}

fn position(fen: &str) -> Position {
    Position::from_fen(variant(), fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// The variant file of the seed's second setup (kings on e and g), as a designer writes it.
fn second_setup() -> Arc<Variant> {
    let text = r#"
name = "doubleking2"
extends = "doubleking"
start = "rnbqkqkbnr/pppppppppp/10/10/10/10/10/10/PPPPPPPPPP/RNBQKQKBNR w KQkq - 0 1"

[castling]
king = "K"
rook = "R"
moves = [
    { king = "e", rook = "a", king_to = "c" },
    { king = "g", rook = "j", king_to = "i" },
]
"#;
    Variant::from_toml("doubleking2", text, None).unwrap_or_else(|e| panic!("doubleking2: {e}"))
}

#[test]
fn start_position_string_and_first_moves() {
    let pos = Position::start(variant());
    assert_eq!(pos.to_fen(), "rnbkqqkbnr/pppppppppp/10/10/10/10/10/10/PPPPPPPPPP/RNBKQQKBNR w KQkq - 0 1");
    let moves = legal(&mut pos.clone());
    // Ten pawns with one, two or three steps, two knights with two moves each.
    assert_eq!(moves.len(), 34, "{moves:?}");
    assert!(moves.contains("e2e3") && moves.contains("e2e4") && moves.contains("e2e5"), "{moves:?}");
}

#[test]
fn each_king_castles_only_with_its_nearer_rook() {
    // Back ranks cleared between the kings and their rooks: the d-king castles toward a
    // (d1b1, rook to c1), the g-king toward j (g1i1, rook to h1); neither with the far rook.
    let mut pos = position("r2kqqk2r/pppppppppp/10/10/10/10/10/10/PPPPPPPPPP/R2KQQK2R w KQkq - 0 1");
    let moves = legal(&mut pos);
    let castles: Vec<&String> =
        moves.iter().filter(|m| ["d1b1", "g1i1", "d1f1", "g1e1"].contains(&m.as_str())).collect();
    assert_eq!(castles, ["d1b1", "g1i1"], "{moves:?}");
    let mut after = pos.clone();
    after.play_moves("d1b1").unwrap();
    assert_eq!(after.to_fen(), "r2kqqk2r/pppppppppp/10/10/10/10/10/10/PPPPPPPPPP/1KR1QQK2R b Kkq - 1 1");
    after.play_moves("g10i10").unwrap();
    assert_eq!(after.to_fen(), "r2kqq1rk1/pppppppppp/10/10/10/10/10/10/PPPPPPPPPP/1KR1QQK2R w Kq - 2 2");
    // Each king keeps its own right: moving the g-king loses only the j-rook's.
    let mut pos2 = pos.clone();
    pos2.play_moves("g1h1").unwrap();
    assert!(pos2.to_fen().contains(" b Qkq "), "{}", pos2.to_fen());
}

#[test]
fn castling_is_refused_out_of_through_or_into_check_and_with_the_other_king_attacked() {
    // A black rook on c9... c-file open to c1: the d-king may not pass or land (b1 is the
    // landing square, c1 the rook's): the king crosses c1 and lands on b1.
    let through = position("3k2k3/2r7/10/10/10/10/10/10/10/R2K2K2R w KQ - 0 1");
    let moves = legal(&mut through.clone());
    assert!(!moves.contains("d1b1") && moves.contains("g1i1"), "{moves:?}");
    // The g-king in check may not castle, the d-king may (its own path is safe) only if that
    // meets the check: it does not, so no castling at all.
    let check = position("3k2k3/6r3/10/10/10/10/10/10/10/R2K2K2R w KQ - 0 1");
    let moves = legal(&mut check.clone());
    assert!(!moves.contains("g1i1") && !moves.contains("d1b1"), "{moves:?}");
}

#[test]
fn pawns_step_two_or_three_and_are_taken_en_passant_on_any_square_passed() {
    // White's e-pawn steps three (e2e5), passing e3 and e4: Black's d4 pawn takes it on e3,
    // the f5 pawn on e4.
    let mut pos = position("3k2k3/10/10/10/10/5p4/3p6/10/4P5/3K2K3 w - - 0 1");
    let moves = legal(&mut pos.clone());
    assert!(moves.contains("e2e3") && moves.contains("e2e4") && moves.contains("e2e5"), "{moves:?}");
    pos.play_moves("e2e5").unwrap();
    assert_eq!(pos.to_fen(), "3k2k3/10/10/10/10/4Pp4/3p6/10/10/3K2K3 b - e3e4 0 1");
    let moves = legal(&mut pos.clone());
    assert!(moves.contains("d4e3") && moves.contains("f5e4"), "{moves:?}");
    let mut ep = pos.clone();
    ep.play_moves("d4e3").unwrap();
    assert_eq!(ep.to_fen(), "3k2k3/10/10/10/10/5p4/10/4p5/10/3K2K3 w - - 0 2");
    let mut ep = pos.clone();
    ep.play_moves("f5e4").unwrap();
    assert_eq!(ep.to_fen(), "3k2k3/10/10/10/10/10/3pp5/10/10/3K2K3 w - - 0 2");
    // The position string reads back with the same right and hash; a two-step's right differs.
    let back = position(&pos.to_fen());
    assert_eq!((back.to_fen(), back.hash()), (pos.to_fen(), pos.hash()));
    let mut two = position("3k2k3/10/10/10/10/5p4/3p6/10/4P5/3K2K3 w - - 0 1");
    two.play_moves("e2e4").unwrap();
    assert_eq!(two.to_fen(), "3k2k3/10/10/10/10/5p4/3pP5/10/10/3K2K3 b - e3 0 1");
    assert!(legal(&mut two.clone()).contains("d4e3"));
    // A blocked path stops the longer steps (the pawn is lame).
    let blocked = legal(&mut position("3k2k3/10/10/10/10/10/4p5/10/4P5/3K2K3 w - - 0 1"));
    assert!(blocked.contains("e2e3") && !blocked.contains("e2e5") && !blocked.contains("e2e4"), "{blocked:?}");
}

#[test]
fn the_second_setup_castles_its_e_king_to_c() {
    let v = second_setup();
    let mut pos =
        Position::from_fen(Arc::clone(&v), "r3kqk2r/pppppppppp/10/10/10/10/10/10/PPPPPPPPPP/R3KQK2R w KQkq - 0 1")
            .unwrap();
    let moves = legal(&mut pos);
    assert!(moves.contains("e1c1") && moves.contains("g1i1") && !moves.contains("e1g1"), "{moves:?}");
    pos.play_moves("e1c1").unwrap();
    assert_eq!(pos.to_fen(), "r3kqk2r/pppppppppp/10/10/10/10/10/10/PPPPPPPPPP/2KR1QK2R b Kkq - 1 1");
    assert_eq!(Position::start(v).side_to_move(), Color::Blue);
}
