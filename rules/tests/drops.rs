//! Pieces in hand and drops (`[drops]`): Pocket Knight Chess (list #10,
//! `configs/variants/pocketknight.toml`) and Pre-chess (list #35, `prechess.toml`, alias
//! `placement`). Start and random-position totals are checked against Fairy-Stockfish by
//! `tests/perft.rs` (`tests/data/pocketknight.perft`, `prechess.perft`); these tests pin the
//! rules one by one: the pocket in position strings, drop notation, the hash and make/unmake of
//! a hand, drops that parry check, the forced drop, the bishops' colours and castling rights
//! decided by placement. The expected move lists are Fairy-Stockfish's (pyffish 0.0.90).

mod support;

use fairyzero_rules::{perft, EndReason, MoveKind, MoveList, Outcome, Piece, Position, Variant};
use support::worked::{legal, legal_texts, position, set};

const PK_START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Nn] w KQkq - 0 1";
const PRE_START: &str = "8/pppppppp/8/8/8/8/PPPPPPPP/8[KQRRBBNNkqrrbbnn] w - - 0 1";

fn play(pos: &mut Position, moves: &str) {
    pos.play_moves(moves).unwrap_or_else(|e| panic!("{moves}: {e}"));
}

#[test]
fn start_positions_print_the_pockets_as_fairy_stockfish_does() {
    let pk = Position::start(Variant::load("pocketknight").unwrap());
    assert_eq!(pk.to_fen(), PK_START);
    let pre = Position::start(Variant::load("placement").unwrap());
    assert_eq!(pre.to_fen(), PRE_START);
    assert_eq!(pre.variant().name, "prechess", "`placement` is an alias");
}

#[test]
fn the_pocket_round_trips_in_any_order_and_empty_hands_print_as_brackets() {
    let v = Variant::load("pocketknight").unwrap();
    let pos = Position::from_fen(v.clone(), "4k3/8/8/8/8/8/8/4K3[nN] w - - 0 1").unwrap();
    assert_eq!(pos.to_fen(), "4k3/8/8/8/8/8/8/4K3[Nn] w - - 0 1");
    let empty = Position::from_fen(v.clone(), "4k3/8/8/8/8/8/8/4K3[] w - - 0 1").unwrap();
    assert_eq!(empty.to_fen(), "4k3/8/8/8/8/8/8/4K3[] w - - 0 1");
    // A drop variant's position without a pocket has empty hands.
    let bare = Position::from_fen(v.clone(), "4k3/8/8/8/8/8/8/4K3 w - - 0 1").unwrap();
    assert_eq!(bare, empty);
    // The hands are part of the position and of its hash.
    let one = Position::from_fen(v.clone(), "4k3/8/8/8/8/8/8/4K3[N] w - - 0 1").unwrap();
    let other = Position::from_fen(v, "4k3/8/8/8/8/8/8/4K3[n] w - - 0 1").unwrap();
    assert_ne!(one.hash(), other.hash());
    assert_ne!(one.hash(), empty.hash());
    assert_ne!(one, other);
    assert_eq!(one.in_hand(Piece::new(one.variant().piece_by_token("N").unwrap(), fairyzero_rules::Color::Blue)), 1);
    // Several of a kind, and the placement pocket.
    let pre = Variant::load("prechess").unwrap();
    let fen = "8/pppppppp/8/8/8/8/PPPPPPPP/4K3[QRRBBNNkqrrbbnn] b - - 0 1";
    assert_eq!(Position::from_fen(pre, fen).unwrap().to_fen(), fen);
}

#[test]
fn malformed_pockets_are_refused_with_the_reason() {
    let v = Variant::load("pocketknight").unwrap();
    let err = |fen: &str| Position::from_fen(v.clone(), fen).unwrap_err().to_string();
    let e = err("4k3/8/8/8/8/8/8/4K3[Nn w - - 0 1");
    assert!(e.contains("no closing ']'") && e.contains("character 20"), "{e}");
    let e = err("4k3/8/8/8/8/8/8/4K3[Xn] w - - 0 1");
    assert!(e.contains("unknown piece token \"X\" in the pocket"), "{e}");
    let e = err("4k3/8/8/8/8/8/8/4K3[N1] w - - 0 1");
    assert!(e.contains("unexpected character '1' in the pocket"), "{e}");
    let e = err("4k3/8/8/8/8/8/8/4K3[N]x w - - 0 1");
    assert!(e.contains("unexpected text after the pocket"), "{e}");
    let e = err("4k3/8/8/8/8/8/8/4K3N] w - - 0 1");
    assert!(e.contains("']' without an opening '['"), "{e}");
    let e = err(&format!("4k3/8/8/8/8/8/8/4K3[{}] w - - 0 1", "N".repeat(33)));
    assert!(e.contains("more than 32"), "{e}");
    // A variant without drops has no pocket.
    let chess = Variant::load("chess").unwrap();
    let e = Position::from_fen(chess, "4k3/8/8/8/8/8/8/4K3[N] w - - 0 1").unwrap_err().to_string();
    assert!(e.contains("no pieces in hand (no `[drops]`)"), "{e}");
}

#[test]
fn drops_print_as_uci_and_parse_in_any_case() {
    let v = Variant::load("pocketknight").unwrap();
    let mut pos = Position::start(v);
    let moves = legal_texts(&mut pos);
    assert_eq!(moves.len(), 52);
    assert_eq!(moves.iter().filter(|m| m.starts_with("N@")).count(), 32, "rows 3 to 6 are empty");
    let m = pos.parse_move("N@e4").unwrap();
    assert_eq!((m.kind, pos.move_to_string(&m)), (MoveKind::Drop, "N@e4".to_string()));
    assert_eq!(pos.parse_move("n@e4").unwrap(), m);
    assert_eq!(pos.parse_move("(N)@e4").unwrap(), m);
    assert!(pos.parse_move("N@e2").unwrap_err().to_string().contains("not a legal move"), "occupied square");
    assert!(pos.parse_move("Q@e4").is_err(), "no queen in hand");
    assert!(pos.parse_move("X@e4").unwrap_err().to_string().contains("unknown piece token"));
    assert!(pos.parse_move("N@z9").unwrap_err().to_string().contains("expected a square after '@'"));
    assert!(pos.parse_move("N@e4q").unwrap_err().to_string().contains("unexpected text after the drop"));
    pos.make(m);
    assert_eq!(pos.to_fen(), "rnbqkbnr/pppppppp/8/8/4N3/8/PPPPPPPP/RNBQKBNR[n] b KQkq - 0 1");
    // Black's drop is written with the upper-case token too (Fairy-Stockfish's UCI).
    let reply = pos.parse_move("N@d5").unwrap();
    assert_eq!(pos.move_to_string(&reply), "N@d5");
    pos.make(reply);
    assert_eq!(pos.to_fen(), "rnbqkbnr/pppppppp/8/3n4/4N3/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 2");
    assert!(!legal_texts(&mut pos).iter().any(|m| m.contains('@')), "both knights are on the board");
}

#[test]
fn make_and_unmake_restore_the_hands_and_the_hash() {
    let v = Variant::load("pocketknight").unwrap();
    let mut pos = Position::start(v);
    let start = pos.clone();
    let mut moves = MoveList::new();
    // Every drop and reply from the start: the incremental hash is the computed one, and
    // unmake gives the start back, hands included.
    pos.legal_moves(&mut moves);
    for m in moves.clone() {
        pos.make(m);
        assert_eq!(pos.hash(), pos.compute_hash(), "{}", pos.to_fen());
        let mut replies = MoveList::new();
        pos.legal_moves(&mut replies);
        for r in replies {
            pos.make(r);
            assert_eq!(pos.hash(), pos.compute_hash(), "{}", pos.to_fen());
            let reparsed = Position::from_fen(pos.variant().clone(), &pos.to_fen()).unwrap();
            assert_eq!(reparsed.hash(), pos.hash(), "{}", pos.to_fen());
            pos.unmake();
        }
        pos.unmake();
        assert_eq!(pos, start);
        assert_eq!(pos.to_fen(), PK_START);
    }
    // The same knight dropped by the two sides: different positions.
    play(&mut pos, "N@e4 N@e5");
    assert_eq!(pos.halfmove_clock(), 0, "a drop resets the halfmove clock, as in Fairy-Stockfish");
}

#[test]
fn a_knight_drop_parries_a_back_rank_check_and_it_is_not_mate() {
    let fen = "R5k1/5ppp/8/8/8/8/8/6K1[n] b - - 0 1";
    let moves = legal("pocketknight", fen);
    assert_eq!(moves, set(&["N@b8", "N@c8", "N@d8", "N@e8", "N@f8"]));
    // Without the knight in hand the same position is checkmate.
    let mut mated = position("pocketknight", "R5k1/5ppp/8/8/8/8/8/6K1[] b - - 0 1");
    assert_eq!(
        mated.outcome(),
        Some(Outcome::Decisive { winner: fairyzero_rules::Color::Blue, reason: EndReason::Checkmate })
    );
    assert!(legal_texts(&mut mated).is_empty());
}

#[test]
fn a_drop_may_give_check_and_never_exposes_the_own_king() {
    // White to move: the knight dropped on d6 or f6 checks e8.
    let mut pos = position("pocketknight", "4k3/8/8/8/8/8/8/4K3[N] w - - 0 1");
    play(&mut pos, "N@d6");
    assert!(legal_texts(&mut pos).iter().all(|m| m.starts_with("e8")), "only the king can answer the check");
    // In check from e2, a drop cannot parry (the checker is adjacent): only king moves remain.
    let moves = legal("pocketknight", "4k3/8/8/8/8/8/4r3/4K3[N] w - - 0 1");
    assert_eq!(moves, set(&["e1d1", "e1e2", "e1f1"]));
    let moves = legal("pocketknight", "4k3/8/8/8/4r3/8/8/4K3[N] w - - 0 1");
    let drops: Vec<_> = moves.iter().filter(|m| m.contains('@')).collect();
    assert_eq!(drops, ["N@e2", "N@e3"], "only interpositions parry the rook on e4");
}

#[test]
fn placement_drops_go_to_the_own_first_rank_and_are_forced() {
    let mut pos = Position::start(Variant::load("prechess").unwrap());
    let moves = legal_texts(&mut pos);
    assert_eq!(moves.len(), 40, "five types on eight squares, no pawn move while pieces are in hand");
    assert!(moves.iter().all(|m| m.contains('@') && m.ends_with('1')), "{moves:?}");
    play(&mut pos, "K@e1");
    let moves = legal_texts(&mut pos);
    assert_eq!(moves.len(), 40);
    assert!(moves.iter().all(|m| m.contains('@') && m.ends_with('8')), "{moves:?}");
    assert_eq!(perft(&mut Position::start(Variant::load("prechess").unwrap()), 3), 50_560);
    // Once both hands are empty, chess: pawn and piece moves.
    let mut done = position("prechess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 9");
    assert_eq!(legal_texts(&mut done).len(), 20);
}

#[test]
fn bishops_are_placed_on_opposite_colours() {
    // Fairy-Stockfish's `dropOppositeColoredBishop`, the four cases of its legality rule.
    // Both bishops in hand, one light square (h1) left: no other piece may take it.
    let moves = legal("prechess", "8/pppppppp/8/8/8/8/PPPPPPPP/1K1Q1R2[RBBNkqrrbbnn] w - - 0 1");
    let expected =
        ["B@a1", "B@c1", "B@e1", "B@g1", "B@h1", "N@a1", "N@c1", "N@e1", "N@g1", "R@a1", "R@c1", "R@e1", "R@g1"];
    assert_eq!(moves, set(&expected));
    // No light square left at all: the rook may not be placed (it would leave the bishops only
    // dark squares); the bishops may (the rule looks at the colours of bishops on the board).
    let moves = legal("prechess", "8/pppppppp/8/8/8/8/PPPPPPPP/1K1Q1R1N[RBBkqrrbbnn] w - - 0 1");
    assert_eq!(moves, set(&["B@a1", "B@c1", "B@e1", "B@g1"]));
    // A bishop on b1 (light): the other goes to a dark square; the rest anywhere.
    let moves = legal("prechess", "8/pppppppp/8/8/8/8/PPPPPPPP/KB6[QRRBNNkqrrbbnn] w - - 0 1");
    assert_eq!(moves.iter().filter(|m| m.starts_with("B@")).cloned().collect::<Vec<_>>(), ["B@c1", "B@e1", "B@g1"]);
    assert_eq!(moves.len(), 3 + 3 * 6);
}

#[test]
fn the_bishop_rule_can_be_switched_off() {
    let file = include_str!("../../configs/variants/prechess.toml");
    let text = file.replace("opposite_colours = [\"B\"]\n", "");
    assert_ne!(text, file, "the switch is one line of prechess.toml");
    let v = Variant::from_toml("prechess-any-bishops", &text, None).unwrap();
    let mut pos = Position::from_fen(v, "8/pppppppp/8/8/8/8/PPPPPPPP/KB6[QRRBNNkqrrbbnn] w - - 0 1").unwrap();
    let moves = legal_texts(&mut pos);
    assert!(moves.contains("B@d1"), "a second light-square bishop is allowed: {moves:?}");
    assert_eq!(moves.len(), 4 * 6, "Q, R, B and N on any of the six free squares");
}

#[test]
fn castling_rights_come_from_the_placement() {
    let v = Variant::load("prechess").unwrap();
    let mut pos = Position::start(v.clone());
    // King first, then the rook: the right appears with the rook.
    play(&mut pos, "K@e1 K@e8 R@h1");
    assert_eq!(pos.to_fen(), "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K2R[QRBBNNqrrbbnn] b K - 0 2");
    // Rooks first, then the king: both rights with the king.
    let mut pos = Position::start(v.clone());
    play(&mut pos, "R@h1 K@e8 K@e1 R@a8 R@a1");
    assert_eq!(pos.to_fen(), "r3k3/pppppppp/8/8/8/8/PPPPPPPP/R3K2R[QBBNNqrbbnn] b KQq - 0 3");
    // The hash follows the rights, and unmake takes them back.
    assert_eq!(pos.hash(), pos.compute_hash());
    pos.unmake();
    assert_eq!(pos.to_fen(), "r3k3/pppppppp/8/8/8/8/PPPPPPPP/4K2R[QRBBNNqrbbnn] w Kq - 0 3");
    // A king off the e-file or a rook off the corners gives no right.
    let mut pos = Position::start(v.clone());
    play(&mut pos, "K@d1 K@e8 R@a1 R@b8 R@h1 R@h8");
    assert_eq!(pos.to_fen(), "1r2k2r/pppppppp/8/8/8/8/PPPPPPPP/R2K3R[QBBNNqbbnn] w k - 0 4");
    // The full placement of the orthodox array, then both sides may castle once the way is clear.
    let mut pos = Position::start(v);
    play(&mut pos, "R@h1 K@e8 K@e1 R@a8 R@a1 R@h8 Q@d1 Q@d8 N@b1 N@b8 N@g1 N@g8 B@c1 B@c8 B@f1 B@f8");
    assert_eq!(pos.to_fen(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 9");
    play(&mut pos, "e2e4 e7e5 g1f3 b8c6 f1c4 f8c5");
    assert!(legal_texts(&mut pos).contains("e1g1"));
}

#[test]
fn a_pocket_knight_game_reads_back_move_by_move() {
    // Every position of a short game reads back from its string with the same hash and moves.
    let v = Variant::load("pocketknight").unwrap();
    let mut pos = Position::start(v.clone());
    for m in ["e2e4", "N@f6", "N@d5", "f6e4", "d5c7"] {
        play(&mut pos, m);
        let mut back = Position::from_fen(v.clone(), &pos.to_fen()).unwrap();
        assert_eq!(back.hash(), pos.hash(), "{}", pos.to_fen());
        assert_eq!(legal_texts(&mut back), legal_texts(&mut pos), "{}", pos.to_fen());
    }
    assert_eq!(pos.to_fen(), "rnbqkbnr/ppNppppp/8/8/4n3/8/PPPP1PPP/RNBQKBNR[] b KQkq - 0 3");
}

#[test]
fn bad_drop_rules_are_refused_naming_the_field() {
    let load = |top: &str, drops: &str| {
        let text = format!("name = \"t\"\nextends = \"chess\"\nstart = \"{PK_START}\"\n{top}\n[drops]\n{drops}\n");
        match Variant::from_toml("t.toml", &text, None) {
            Ok(_) => panic!("accepted: {text}"),
            Err(e) => e.to_string(),
        }
    };
    let e = load("", "squares = \"a1-z9\"");
    assert!(e.contains("field `drops.squares`") && e.contains("\"z9\""), "{e}");
    let e = load("", "opposite_colours = [\"X\"]");
    assert!(e.contains("field `drops.opposite_colours`: unknown token \"X\""), "{e}");
    let e = load("", "castling_king_file = \"q\"");
    assert!(e.contains("field `drops.castling_king_file`: 'q' is not a file of the board"), "{e}");
    let e = load("castling = { remove = true }", "castling_king_file = \"e\"");
    assert!(e.contains("field `drops.castling_king_file` needs the variant field `castling`"), "{e}");
    let e = load("", "captures_to_hand = true");
    assert!(e.contains("captures_to_hand"), "unknown keys are refused: {e}");
}
