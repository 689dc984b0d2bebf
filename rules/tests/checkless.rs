//! Checkless (Prohibition) Chess (list #4, `configs/variants/checkless.toml`, the
//! `checking = "mate_only"` rule): a move that gives check is illegal unless it mates. The
//! start-position totals are checked against cutechess's published numbers by `tests/perft.rs`
//! with `tests/data/checkless.perft`; these tests pin the rule on positions.

use std::collections::BTreeSet;

use fairyzero_rules::{Color, EndReason, MoveList, Outcome, Position, Variant};

fn position(variant: &str, fen: &str) -> Position {
    let v = Variant::load(variant).expect("a built-in");
    Position::from_fen(v, fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn legal(pos: &mut Position) -> BTreeSet<String> {
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    moves.iter().map(|m| pos.move_to_string(m)).collect()
}

fn after(variant: &str, moves: &str) -> Position {
    let mut pos = Position::start(Variant::load(variant).expect("a built-in"));
    pos.play_moves(moves).unwrap_or_else(|e| panic!("{moves}: {e}"));
    pos
}

#[test]
fn a_check_that_does_not_mate_is_illegal() {
    // 1.e4 f6: Qh5+ is a check (g6 can block), legal in chess, not here.
    let mut chess = after("chess", "e2e4 f7f6");
    let mut checkless = after("checkless", "e2e4 f7f6");
    assert!(legal(&mut chess).contains("d1h5"));
    let moves = legal(&mut checkless);
    assert!(!moves.contains("d1h5"), "{moves:?}");
    // Every other move is kept: the filter removes exactly the checks.
    assert_eq!(legal(&mut chess).len(), moves.len() + 1);
}

#[test]
fn a_check_that_mates_is_legal_and_wins() {
    // Fool's mate: 1.f3 e5 2.g4 Qh4#.
    let mut pos = after("checkless", "f2f3 e7e5 g2g4");
    assert!(legal(&mut pos).contains("d8h4"));
    pos.play_moves("d8h4").unwrap();
    assert!(pos.in_check(Color::Blue));
    assert_eq!(pos.outcome(), Some(Outcome::Decisive { winner: Color::Tan, reason: EndReason::Checkmate }));
}

#[test]
fn mate_is_judged_under_the_same_rule() {
    // cutechess's `checkless white win`: Black is in check from f7 and its one escape, Kxf7,
    // would uncover the h8 rook's check of a8, which is not mate (Ka7): so Black is mated.
    let mut pos = position("checkless", "K5kr/5Q2/8/8/8/8/8/8 b - - 0 1");
    assert!(legal(&mut pos).is_empty());
    assert_eq!(pos.outcome(), Some(Outcome::Decisive { winner: Color::Blue, reason: EndReason::Checkmate }));
    // In chess the capture is legal.
    let mut chess = position("chess", "K5kr/5Q2/8/8/8/8/8/8 b - - 0 1");
    assert!(legal(&mut chess).contains("g8f7"));
    // So, one move earlier, White's Qf7+ (from f1) is a mating check and legal here.
    let mut before = position("checkless", "K5kr/8/8/8/8/8/8/5Q2 w - - 0 1");
    assert!(legal(&mut before).contains("f1f7"));
    // Whereas Qf7+ with the rook's line closed (a bishop on b8) is a plain check: illegal.
    let mut closed = position("checkless", "Kb4kr/8/8/8/8/8/8/5Q2 w - - 0 1");
    assert!(!legal(&mut closed).contains("f1f7"));
}
