//! Rifle Chess (list #32, `configs/variants/rifle.toml`, the `capture = "rifle"` rule): the
//! dossier's rule as worked examples. Start-position totals are checked against cutechess's
//! published numbers by `tests/perft.rs` with `tests/data/rifle.perft`; these tests pin the
//! corner cases a start perft cannot reach (shots by pinned pieces and kings, promotion, en
//! passant, check). Moves are in the fairyzero form: a shot is `from from x victim`.

use std::collections::BTreeSet;

use fairyzero_rules::{Color, EndReason, MoveList, Outcome, Position, Variant};

fn position(fen: &str) -> Position {
    let v = Variant::load("rifle").expect("rifle is a built-in");
    Position::from_fen(v, fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn legal(pos: &mut Position) -> BTreeSet<String> {
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    moves.iter().map(|m| pos.move_to_string(m)).collect()
}

fn play(pos: &mut Position, text: &str) {
    let m = pos.parse_move(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    pos.make(m);
}

#[test]
fn the_shooter_stays_and_the_victim_is_removed() {
    let mut pos = position("r3k3/8/8/8/8/8/8/R3K3 w - - 0 1");
    let moves = legal(&mut pos);
    assert!(moves.contains("a1a1xa8"), "{moves:?}");
    // No displacing capture exists: the only way to take is to shoot.
    assert!(!moves.iter().any(|m| m.starts_with("a1a8")), "{moves:?}");
    play(&mut pos, "a1a1xa8");
    assert_eq!(pos.to_fen(), "4k3/8/8/8/8/8/8/R3K3 b - - 0 1");
}

#[test]
fn a_king_may_shoot_a_protected_checker_because_it_does_not_move() {
    // The d2 pawn checks e1 and the b3 knight protects it: Kxd2 would be illegal in chess.
    let mut pos = position("4k3/8/8/8/8/1n6/3p4/4K3 w - - 0 1");
    let moves = legal(&mut pos);
    assert!(moves.contains("e1e1xd2"), "{moves:?}");
    play(&mut pos, "e1e1xd2");
    assert_eq!(pos.to_fen(), "4k3/8/8/8/8/1n6/8/4K3 b - - 0 1");
    // But not a shot that leaves the king attacked where it stands: the c3 bishop's line to e1
    // opens once d2 is gone.
    let mut pos = position("4k3/8/8/8/8/2b5/3p4/4K3 w - - 0 1");
    assert!(!legal(&mut pos).contains("e1e1xd2"));
}

#[test]
fn a_pinned_piece_may_shoot_off_its_line_because_it_stays_on_it() {
    // The e4 rook is pinned by e8's rook against e1: it may shoot a4 and still shield the king.
    let mut pos = position("k3r3/8/8/8/p3R3/8/8/4K3 w - - 0 1");
    let moves = legal(&mut pos);
    assert!(moves.contains("e4e4xa4") && moves.contains("e4e4xe8"), "{moves:?}");
    assert!(!moves.contains("e4d4"), "{moves:?}");
}

#[test]
fn a_pawn_shot_never_promotes_and_a_push_does() {
    let mut pos = position("r3k3/1P6/8/8/8/8/8/4K3 w - - 0 1");
    let pawn: BTreeSet<String> = legal(&mut pos).into_iter().filter(|m| m.starts_with("b7")).collect();
    let expected: BTreeSet<String> =
        ["b7b7xa8", "b7b8=Q", "b7b8=R", "b7b8=B", "b7b8=N"].iter().map(|s| s.to_string()).collect();
    assert_eq!(pawn, expected);
    play(&mut pos, "b7b7xa8");
    assert_eq!(pos.to_fen(), "4k3/1P6/8/8/8/8/8/4K3 b - - 0 1");
}

#[test]
fn en_passant_is_a_shot_at_the_passed_pawn() {
    let mut pos = position("4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 1");
    play(&mut pos, "d7d5");
    let moves = legal(&mut pos);
    assert!(moves.contains("e5e5xd5"), "{moves:?}");
    play(&mut pos, "e5e5xd5");
    assert_eq!(pos.to_fen(), "4k3/8/8/4P3/8/8/8/4K3 b - - 0 2");
}

#[test]
fn check_is_the_threat_of_a_shot_and_mate_ends_the_game() {
    // Back-rank mate: the rook shoots along rank 8, f7/g7/h7 pawns box the king in.
    let mut pos = position("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    play(&mut pos, "a1a8");
    assert!(pos.in_check(Color::Tan));
    assert_eq!(pos.outcome(), Some(Outcome::Decisive { winner: Color::Blue, reason: EndReason::Checkmate }));
    // The checker can be shot from afar by a piece that stays where it stands: the only reply.
    let mut pos = position("6k1/5ppp/8/8/4b3/8/8/R5K1 w - - 0 1");
    play(&mut pos, "a1a8");
    let replies: Vec<String> = legal(&mut pos).into_iter().collect();
    assert_eq!(replies, ["e4e4xa8"]);
}
