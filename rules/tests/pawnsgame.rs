//! The Pawns Game (list #23) as two named arrays (`configs/variants/pawnsforqueen.toml`,
//! `pawnsforrook.toml`): White adds pawns on its 3rd rank and gives its queen or its queen's
//! rook. The seed leaves the extra pawns' squares to the player; the row's name `pawnsgame`
//! points to the arrays. Perft of both is checked against Fairy-Stockfish and python-chess by
//! `tests/perft.rs`; these tests pin the arrays and the 3rd-rank pawns.

mod support;

use fairyzero_rules::{Position, Variant};
use support::worked::{legal, set};

#[test]
fn the_arrays_and_their_castling_rights() {
    let fen = |name: &str| Position::start(Variant::load(name).unwrap_or_else(|e| panic!("{name}: {e}"))).to_fen();
    assert_eq!(fen("pawnsforqueen"), "rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/PPPPPPPP/RNB1KBNR w KQkq - 0 1");
    // No a1 rook: no queenside right for White.
    assert_eq!(fen("pawnsforrook"), "rnbqkbnr/pppppppp/8/8/8/2PPPP2/PPPPPPPP/1NBQKBNR w Kkq - 0 1");
}

#[test]
fn third_rank_pawns_step_once_and_block_the_second_rank() {
    let moves = legal("pawnsforrook", "rnbqkbnr/pppppppp/8/8/8/2PPPP2/PPPPPPPP/1NBQKBNR w Kkq - 0 1");
    assert!(moves.contains("c3c4") && !moves.contains("c3c5"), "{moves:?}");
    assert!(!moves.contains("c2c3") && !moves.contains("c2c4"), "{moves:?}");
    assert!(moves.contains("a2a4") && moves.contains("h2h4"), "{moves:?}");
    // Eight 3rd-rank pawns and no queen: the knights' squares a3/c3/f3/h3 are taken, only the
    // front pawns and the king (to the empty d1) move.
    let moves = legal("pawnsforqueen", "rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/PPPPPPPP/RNB1KBNR w KQkq - 0 1");
    assert_eq!(moves, set(&["a3a4", "b3b4", "c3c4", "d3d4", "e3e4", "f3f4", "g3g4", "h3h4", "e1d1"]));
}

#[test]
fn the_rows_name_points_to_its_arrays() {
    let e = Variant::load("pawnsgame").map(|_| ()).expect_err("a row of several arrays").to_string();
    assert!(e.contains("#23") && e.contains("`pawnsforqueen`") && e.contains("`pawnsforrook`"), "{e}");
}
