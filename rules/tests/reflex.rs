//! Reflex Chess (list #3, `configs/variants/reflex.toml`): the must-mate move filter
//! (`must_mate = true`: when any legal move mates, only the mating moves are legal) and the
//! reversed checkmate result (`victory.checkmate = "win"`: the mated side wins). Rulings:
//! stalemate stays a draw; "mate" is checkmate under these same rules. Perft totals are in
//! `tests/data/reflex.perft` (an independent python-chess count, tools/reflex_perft.py).

mod support;

use fairyzero_rules::{Color, EndReason, Outcome, Position, Variant};
use support::worked::{legal, legal_texts, position, set};

fn after(variant: &str, moves: &str) -> Position {
    let mut pos = Position::start(Variant::load(variant).expect("a built-in"));
    pos.play_moves(moves).unwrap_or_else(|e| panic!("{moves}: {e}"));
    pos
}

#[test]
fn a_side_that_can_mate_must_and_the_mated_side_wins() {
    // 1.f3 e5 2.g4: Black has 30 moves in chess, one of them the mate Qh4; here only Qh4 (d1 = 1).
    let mut chess = after("chess", "f2f3 e7e5 g2g4");
    assert_eq!(legal_texts(&mut chess).len(), 30);
    let mut pos = after("reflex", "f2f3 e7e5 g2g4");
    assert_eq!(legal_texts(&mut pos), set(&["d8h4"]));
    pos.play_moves("d8h4").unwrap();
    assert!(pos.in_check(Color::Blue));
    assert!(legal_texts(&mut pos).is_empty());
    // White is mated, so White wins (in chess Black would).
    assert_eq!(pos.outcome(), Some(Outcome::Decisive { winner: Color::Blue, reason: EndReason::Checkmate }));
    chess.play_moves("d8h4").unwrap();
    assert_eq!(chess.outcome(), Some(Outcome::Decisive { winner: Color::Tan, reason: EndReason::Checkmate }));
}

#[test]
fn every_mating_move_is_kept_and_only_those() {
    // Kb6 guards a7 and b7: Rg8 and Rh8 mate (b8 is on the eighth rank); Ra1+ (either rook)
    // is a check with the escape Kb8, and every other move is quiet. d1 = 2.
    assert_eq!(legal("reflex", "k7/8/1K6/8/8/8/8/6RR w - - 0 1"), set(&["g1g8", "h1h8"]));
    assert!(legal("chess", "k7/8/1K6/8/8/8/8/6RR w - - 0 1").len() > 20);
    // The queen mates on f8, e8 (the eighth rank; Kg6 holds g7 and h7), g7 and h7 (guarded by
    // Kg6); Qg8+ is not mate (Kxg8). White must mate, and so lose. d1 = 4.
    let fen = "7k/5Q2/6K1/8/8/8/8/8 w - - 0 1";
    assert_eq!(legal("reflex", fen), set(&["f7e8", "f7f8", "f7g7", "f7h7"]));
    let mut pos = position("reflex", fen);
    pos.play_moves("f7g7").unwrap();
    assert_eq!(pos.outcome(), Some(Outcome::Decisive { winner: Color::Tan, reason: EndReason::Checkmate }));
}

#[test]
fn without_a_mate_the_moves_are_chess_moves() {
    // Checks that do not mate are not forced: 1.e4 f6 2.Qh5+ is one of White's moves, not the
    // only one (g6 blocks, so it is no mate).
    for moves in ["", "e2e4 f7f6", "e2e4 e7e5 g1f3 b8c6 f1c4"] {
        let mut chess = after("chess", moves);
        let mut reflex = after("reflex", moves);
        assert_eq!(legal_texts(&mut chess), legal_texts(&mut reflex), "after {moves:?}");
    }
}

#[test]
fn stalemate_stays_a_draw() {
    // The source says nothing of stalemate: chess's draw is kept.
    let mut pos = position("reflex", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    assert!(legal_texts(&mut pos).is_empty());
    assert_eq!(pos.outcome(), Some(Outcome::Draw { reason: EndReason::Stalemate }));
}

#[test]
fn a_mate_is_judged_under_the_same_rules() {
    // K5kr with a queen on f1: Qf7+ is no mate in chess (Kxf7), so in Reflex Chess it is one
    // of White's moves, not forced.
    let fen = "K5kr/8/8/8/8/8/8/5Q2 w - - 0 1";
    let moves = legal("reflex", fen);
    assert!(moves.contains("f1f7") && moves.len() > 1, "{moves:?}");
    // Under Checkless Chess's rule, Kxf7 would uncover the rook's check of a8, which does not
    // mate (Ka7), so it is illegal and Qf7+ mates (cutechess's `checkless white win`). With the
    // must-mate filter over those rules, Qf7 is White's only move.
    let text = "name = \"r\"\nextends = \"checkless\"\nmust_mate = true\n";
    let v = Variant::from_toml("r.toml", text, None).unwrap_or_else(|e| panic!("{e}"));
    let mut pos = Position::from_fen(v, fen).unwrap();
    assert_eq!(legal_texts(&mut pos), set(&["f1f7"]));
}

#[test]
fn the_options_are_refused_without_checkmate_and_with_multi_move_turns() {
    let err = |text: &str| Variant::from_toml("r.toml", text, None).map(|_| ()).unwrap_err().to_string();
    let e = err("name = \"r\"\nextends = \"antichess\"\nmust_mate = true\n");
    assert!(e.contains("field `must_mate`") && e.contains("a royal piece"), "{e}");
    let e = err("name = \"r\"\nextends = \"emperorking\"\n[victory]\ncheckmate = \"win\"\n");
    assert!(e.contains("field `victory.checkmate`"), "{e}");
    let e = err("name = \"r\"\nextends = \"marseillais\"\nmust_mate = true\n");
    assert!(e.contains("field `must_mate`") && e.contains("turns"), "{e}");
    let e = err("name = \"r\"\nextends = \"chess\"\nmust_mate = \"yes\"\n");
    assert!(e.contains("must_mate"), "{e}");
    // The two options are independent: a must-mate game where being mated still loses loads.
    let v = Variant::from_toml("r.toml", "name = \"r\"\nextends = \"chess\"\nmust_mate = true\n", None).unwrap();
    let mut pos = Position::start(v);
    pos.play_moves("f2f3 e7e5 g2g4").unwrap();
    assert_eq!(legal_texts(&mut pos), set(&["d8h4"]));
    pos.play_moves("d8h4").unwrap();
    assert_eq!(pos.outcome(), Some(Outcome::Decisive { winner: Color::Tan, reason: EndReason::Checkmate }));
}
