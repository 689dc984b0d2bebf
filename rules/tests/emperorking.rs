//! Emperor King Chess (list #36, `configs/variants/emperorking.toml`): chess whose king also
//! goes to any empty square and captures any unguarded enemy man anywhere (the `roam_unguarded`
//! power, `rules/src/movegen/powers/roam_unguarded.rs`); a pinned guard still counts; capturing
//! the enemy king wins and there is no check. No external engine plays it, so the perft counts
//! are hand-derived (depth 1) and cross-checked by an independent python-chess count (depth 2
//! and 3; the script is in the comment of `perft_from_the_start`).

mod support;

use fairyzero_rules::{perft, Color, EndReason, Outcome};
use support::worked::{legal, position};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

#[test]
fn the_king_roams_to_any_empty_square_and_takes_the_unguarded_corner_rooks() {
    let moves = legal("emperorking", START);
    // Far empty squares, including one the black pawns attack (there is no check).
    for m in ["e1e3", "e1a3", "e1h6", "e1e6", "e1d5"] {
        assert!(moves.contains(m), "{m}: {moves:?}");
    }
    // In the start position nothing guards a8 (b8's knight and the queen do not reach it) nor h8:
    // the king takes either rook at once. Every other black man is guarded (d8 by the king,
    // e8 by the queen, the pawns by pieces behind them).
    assert!(moves.contains("e1a8") && moves.contains("e1h8"), "{moves:?}");
    for m in ["e1b8", "e1c8", "e1d8", "e1e8", "e1f8", "e1g8", "e1a7", "e1d7", "e1h7"] {
        assert!(!moves.contains(m), "{m} takes a guarded man: {moves:?}");
    }
}

#[test]
fn a_pinned_guard_still_guards() {
    // Black: king a7, bishop c7 pinned to it by the white rook on h7; the bishop guards the
    // knight on d6. The pawn on b2 has no guard. The white king on h1 takes b2 but not d6.
    let pinned = "8/k1b4R/3n4/8/8/8/1p6/7K w - - 0 1";
    let moves = legal("emperorking", pinned);
    assert!(moves.contains("h1b2"), "{moves:?}");
    assert!(!moves.contains("h1d6"), "{moves:?}");
    // Without the bishop the knight is unguarded and the king takes it.
    let moves = legal("emperorking", "8/k6R/3n4/8/8/8/1p6/7K w - - 0 1");
    assert!(moves.contains("h1d6") && moves.contains("h1b2"), "{moves:?}");
}

#[test]
fn a_guard_through_the_kings_own_square_guards_and_plain_steps_take_guarded_men() {
    // The black rook on a1 sees a5 once the white king leaves a2: the knight on a5 is guarded
    // (the capture would be answered), so no a2a5. The knight guards b3, but the king's ordinary
    // step still takes it (the roam's guard test is only for the roam).
    let moves = legal("emperorking", "7k/8/8/n7/8/1p6/K7/r7 w - - 0 1");
    assert!(!moves.contains("a2a5"), "{moves:?}");
    assert!(moves.contains("a2b3") && moves.contains("a2a1"), "{moves:?}");
    // The far h8 king is unguarded: the roam takes it.
    assert!(moves.contains("a2h8"), "{moves:?}");
}

#[test]
fn capturing_the_enemy_king_wins() {
    let mut pos = position("emperorking", "k7/8/8/8/8/8/8/7K w - - 0 1");
    assert_eq!(pos.outcome(), None);
    pos.play_moves("h1a8").unwrap();
    assert_eq!(pos.outcome(), Some(Outcome::Decisive { winner: Color::Blue, reason: EndReason::RoyalCaptured }));
    // A guarded king is out of the roam's reach: the rook on b8 guards a8.
    let moves = legal("emperorking", "kr6/8/8/8/8/8/8/7K w - - 0 1");
    assert!(!moves.contains("h1a8") && !moves.contains("h1b8"), "{moves:?}");
}

/// Depth 1 by hand: 20 chess moves, the king's roams to the 32 empty squares of ranks 3-6,
/// and its captures of the two unguarded rooks a8 and h8: 54.
///
/// Depth 2: Black's replies are its ordinary chess moves, its king's roams to the 32 empty
/// squares and its captures of unguarded White men. After a move that guards what it leaves
/// (15 moves: a2a3 a2a4 b1a3 b1c3 b2b3 c2c3 d2d3 d2d4 e2e3 f2f3 g1f3 g1h3 g2g3 h2h3 h2h4) it is
/// the mirror of depth 1, 20 + 32 + 2 (a1, h1) = 54. A pawn landing unguarded (b2b4 c2c4 e2e4
/// f2f4 g2g4) adds it: 55; so does a king step to e3/f3/g3, which leaves the queen unguarded
/// (d1; f2 is still guarded by the king): 55. A king roam anywhere else on ranks 3-6 leaves d1
/// and f2 unguarded, and the king itself where nothing guards it, less the Black chess moves it
/// blocks plus those that take it: 56 for the 15 squares e1{a3 a5 a6 b3 b5 c3 c5 d3 d5 e5 f5
/// g5 h3 h5 h6}, 57 for the 14 squares e1{a4 b4 b6 c4 c6 d4 d6 e4 e6 f4 f6 g4 g6 h4}, and 58
/// after e1a8 and e1h8 (20 + 33 empty + a1 h1 d1 f2 and the king on the corner): 15·54 + 8·55 +
/// 15·56 + 14·57 + 2·58 = 3004. The independent count (python-chess 1.11 pseudo-legal moves,
/// which ignore pins as the guard test does, plus for the side's king every empty square and
/// every enemy man `sq` with `not board_without_king.attackers(enemy, sq)`; 0 below a position
/// without a king) gives 54, 3004 and 168 671.
#[test]
fn perft_from_the_start() {
    let mut pos = position("emperorking", START);
    assert_eq!(perft(&mut pos, 1), 54);
    assert_eq!(perft(&mut pos, 2), 3_004);
    assert_eq!(perft(&mut pos, 3), 168_671);
}

#[test]
fn castling_is_written_king_takes_rook_so_that_it_differs_from_the_roam() {
    // Castling stays (chess's rule; there is no check, so it is not limited by attacked
    // squares); the king's roam to g1 or c1 moves no rook, so the castling is written as
    // the king's from and the rook's square, as in UCI_Chess960.
    let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    let moves = legal("emperorking", fen);
    for m in ["e1h1", "e1a1", "e1g1", "e1c1"] {
        assert!(moves.contains(m), "{m}: {moves:?}");
    }
    let mut castled = position("emperorking", fen);
    castled.play_moves("e1h1").unwrap();
    assert!(castled.to_fen().starts_with("r3k2r/8/8/8/8/8/8/R4RK1 b kq - "), "{}", castled.to_fen());
    let mut roamed = position("emperorking", fen);
    roamed.play_moves("e1g1").unwrap();
    assert!(roamed.to_fen().starts_with("r3k2r/8/8/8/8/8/8/R5KR b kq - "), "{}", roamed.to_fen());
}
