//! ICS wild 9, two kings a side (list #71, `configs/variants/wild9.toml`, the
//! `royal_choice = "first_by_file"` rule): only the king met first in the order a1...a8,
//! b1...h8 is royal, the other is an ordinary piece. The start-position and endgame totals are
//! checked against cutechess's published numbers by `tests/perft.rs` with
//! `tests/data/wild9.perft`; these tests pin the rule on positions.

use std::collections::BTreeSet;

use fairyzero_rules::{Color, EndReason, MoveList, Outcome, Position, Variant};

fn position(fen: &str) -> Position {
    let v = Variant::load("twokings").expect("twokings is wild9's alias");
    assert_eq!(v.name, "wild9");
    Position::from_fen(v, fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn legal(pos: &mut Position) -> BTreeSet<String> {
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    moves.iter().map(|m| pos.move_to_string(m)).collect()
}

#[test]
fn only_the_first_king_by_file_counts_for_check() {
    // The h1 king stands in the h8 rook's line, but a1 is the royal one: no check, and White
    // may leave h1 en prise.
    let mut pos = position("k6r/8/8/8/8/8/8/K6K w - - 0 1");
    assert!(!pos.in_check(Color::Blue));
    let moves = legal(&mut pos);
    assert!(moves.contains("a1b1") && moves.contains("h1g2"), "{moves:?}");
    // Black may capture the ordinary king.
    pos.play_moves("a1b1").unwrap();
    assert!(legal(&mut pos).contains("h8h1"));
    pos.play_moves("h8h1").unwrap();
    assert_eq!(pos.outcome(), None, "losing the ordinary king does not end the game");
}

#[test]
fn royalty_moves_with_the_kings() {
    // Kings e1 and f1; the h1 rook attacks f1 (g1 empty) but not e1 behind it. e1 is royal.
    let mut pos = position("k7/8/8/8/8/8/8/4KK1r w - - 0 1");
    assert!(!pos.in_check(Color::Blue));
    let moves = legal(&mut pos);
    // Ke1-d2 or -e2 keeps a royal king before f1; Ke1-f2 makes f1 (attacked) the royal one.
    assert!(moves.contains("e1d2") && moves.contains("e1e2"), "{moves:?}");
    assert!(!moves.contains("e1f2"), "{moves:?}");
    // Moving the f1 king opens the rank to the royal e1: illegal, unless it takes the rook.
    assert!(!moves.contains("f1g2") && !moves.contains("f1f2") && !moves.contains("f1e2"), "{moves:?}");
}

#[test]
fn cutechess_results_black_wins() {
    // cutechess `twokings black win2`: f2 is White's royal king (f2 before f3), attacked by the
    // e3 king, with no way out.
    let mut pos = position("8/8/8/8/2k5/4kK2/5K2/2q5 w - - 0 1");
    assert!(pos.in_check(Color::Blue));
    assert!(legal(&mut pos).is_empty());
    assert_eq!(pos.outcome(), Some(Outcome::Decisive { winner: Color::Tan, reason: EndReason::Checkmate }));
    // `twokings black win1`.
    let mut pos = position("8/2k5/4b1Pp/2p3K1/8/2P1p3/2k2q1K/B7 w - - 0 59");
    assert!(legal(&mut pos).is_empty());
    assert_eq!(pos.outcome(), Some(Outcome::Decisive { winner: Color::Tan, reason: EndReason::Checkmate }));
}

#[test]
fn the_e_file_king_castles() {
    // cutechess `twokings castling san1/san2`: White, one king left on e1, castles either side.
    let fen = "r3kk1r/p2nppp1/p7/B6p/8/5NP1/PPP4P/R3K2R w KQkq - 0 20";
    let mut long = position(fen);
    long.play_moves("e1c1").unwrap();
    // The board, side and rights of cutechess's FEN (its clocks count castling as reversible).
    assert!(long.to_fen().starts_with("r3kk1r/p2nppp1/p7/B6p/8/5NP1/PPP4P/2KR3R b kq - "), "{}", long.to_fen());
    let mut short = position(fen);
    short.play_moves("e1g1").unwrap();
    assert!(short.to_fen().starts_with("r3kk1r/p2nppp1/p7/B6p/8/5NP1/PPP4P/R4RK1 b kq - "), "{}", short.to_fen());
}

#[test]
fn positions_are_not_mirrored_because_royalty_follows_the_files() {
    // The left-right mirror of e1/f1 kings would make the other one royal: no mirror image.
    let pos = position("rnbqkknr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKKNR w - - 0 1");
    assert!(pos.mirrored().is_none());
}
