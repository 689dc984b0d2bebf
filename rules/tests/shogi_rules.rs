//! Chushin Shogi's game-level rules on a small test variant (chushin-shogi.md §8, §9, §14):
//! the pass flag and its keys, igui with promotion, `+` tokens, the per-piece pass and the
//! dossier's move form in the notation, and the fourth-fold repetition draw.
//!
//! The variant is 9x9 with Chushin's Lion (`KNADcaKmcabK`: igui, pass, hit and run) and
//! single-leg pieces. Most tests build their pass, igui and multi-capture moves directly through
//! the public `Move` API and make them with `make`, which is what these rules are about; the
//! last one checks the same texts on the moves the generator produces.

mod support;

use std::sync::Arc;

use fairyzero_rules::{Color, EndReason, Move, MoveKind, MoveList, Outcome, Position, Square, Variant};

/// Blue promotes on ranks 7-9, Tan on ranks 1-3; the Drunk Elephant promotes to a royal
/// Crown Prince as in Chushin.
const VARIANT: &str = r#"
name = "passlion"
width = 9
height = 9
start = "3(de)k4/9/9/9/9/9/9/9/3(DE)K(LN)3 w"
notation = "fairyzero"
repetition = "fourth_draws"
pass = "per_piece_no_double_pass"

[promotion]
zone_ranks = 3
trigger = "starts_or_ends_in_zone"
mandatory = "never"

[victory]
royal = "capture"
stalemate = "loss"

[[piece]]
name = "Pawn"
token = "P"
betza = "fW"
promotes_to = ["+P"]

[[piece]]
name = "Tokin"
token = "+P"
betza = "WfF"

[[piece]]
name = "Lion"
token = "LN"
betza = "KNADcaKmcabK"
promotes_to = ["+LN"]

[[piece]]
name = "Lion Hawk"
token = "+LN"
betza = "BKNAD"

[[piece]]
name = "Drunk Elephant"
token = "DE"
betza = "FfsW"
promotes_to = ["+DE"]

[[piece]]
name = "Crown Prince"
token = "+DE"
betza = "K"
royal = true

[[piece]]
name = "King"
token = "K"
betza = "K"
royal = true
"#;

fn variant() -> Arc<Variant> {
    Variant::from_toml("passlion.toml", VARIANT, None).expect("the test variant loads")
}

fn position(fen: &str) -> Position {
    Position::from_fen(variant(), fen).unwrap_or_else(|e| panic!("{e}"))
}

fn sq(pos: &Position, name: &str) -> Square {
    pos.variant().dims.parse_square(name).unwrap_or_else(|| panic!("square {name}"))
}

fn kind(pos: &Position, token: &str) -> fairyzero_rules::PieceType {
    pos.variant().piece_by_token(token).unwrap_or_else(|| panic!("token {token}"))
}

fn normal(pos: &Position, from: &str, to: &str) -> Move {
    Move::normal(sq(pos, from), sq(pos, to))
}

/// The Lion's pass (`h9-h9` in the dossier) as the generator will produce it.
fn pass(pos: &Position, at: &str) -> Move {
    Move::pass(sq(pos, at))
}

/// An igui by the piece on `from` of the enemy on `victim`, promoting to `promotion` if given.
fn igui(pos: &Position, from: &str, victim: &str, promotion: Option<&str>) -> Move {
    let m = Move::normal(sq(pos, from), sq(pos, from)).with_kind(MoveKind::Stationary).with_capture(sq(pos, victim));
    m.with_piece(promotion.map(|t| kind(pos, t)))
}

#[test]
fn make_sets_the_pass_flag_and_unmake_restores_it() {
    let mut pos = Position::start(variant());
    assert!(!pos.last_move_was_pass(), "a parsed position starts without a pass");
    let root_hash = pos.hash();
    pos.make(pass(&pos, "f1"));
    assert!(pos.last_move_was_pass());
    // The repetition key ignores the flag (§8.5): it is the hash of the same board read from
    // text, which has no flag. The search key keeps the two apart.
    let reread = Position::from_fen(variant(), &pos.to_fen()).unwrap();
    assert_eq!(pos.to_fen(), "3(de)k4/9/9/9/9/9/9/9/3(DE)K(LN)3 b");
    assert_eq!(pos.hash(), reread.hash());
    assert_eq!(pos.hash(), pos.compute_hash());
    assert_ne!(pos.search_key(), reread.search_key(), "the pass restriction must be in the search key");
    assert_eq!(reread.search_key(), reread.hash());

    pos.make(normal(&pos, "e9", "e8"));
    assert!(!pos.last_move_was_pass(), "a move that is not a pass clears the flag");
    assert_eq!(pos.search_key(), pos.hash());
    pos.unmake();
    assert!(pos.last_move_was_pass(), "unmake restores the flag of the position after the pass");
    pos.unmake();
    assert!(!pos.last_move_was_pass());
    assert_eq!(pos.hash(), root_hash);
    assert_eq!(pos.search_key(), root_hash);
    assert_eq!(pos, Position::start(Arc::clone(pos.variant())));
}

#[test]
fn the_same_board_after_a_pass_and_after_a_move_differs_only_in_the_search_key() {
    let start = Position::start(variant());
    let play = |moves: &[(&str, &str)]| {
        let mut pos = start.clone();
        for &(from, to) in moves {
            let m = if from == to { pass(&pos, from) } else { normal(&pos, from, to) };
            pos.make(m);
        }
        pos
    };
    let after_pass = play(&[("f1", "f1"), ("e9", "e8"), ("f1", "f1")]);
    let after_move = play(&[("f1", "f2"), ("e9", "e8"), ("f2", "f1")]);
    assert_eq!(after_pass.to_fen(), after_move.to_fen());
    assert_eq!(after_pass.hash(), after_move.hash(), "one repetition key (§8.6)");
    assert_ne!(after_pass.search_key(), after_move.search_key());
    assert_ne!(after_pass, after_move, "Tan may pass only in the second");
    assert_eq!(after_move, play(&[("f1", "f2"), ("e9", "e8"), ("f2", "f1")]));
}

#[test]
fn a_pass_never_promotes_and_changes_only_the_side_to_move() {
    // The Lion stands in its zone: a pass there still leaves it unpromoted (§8.1), even if a
    // move value carried a promotion.
    let mut pos = position("3(de)k4/9/4(LN)4/9/9/9/9/9/3(DE)K4 w");
    let promoted = pass(&pos, "e7").with_piece(Some(kind(&pos, "+LN")));
    pos.make(promoted);
    assert_eq!(pos.to_fen(), "3(de)k4/9/4(LN)4/9/9/9/9/9/3(DE)K4 b");
    assert_eq!(pos.hash(), pos.compute_hash());
}

#[test]
fn one_per_position_passes_keep_their_keys() {
    // Typhoon's pass rule does not depend on the previous move: its search key stays the hash.
    let typhoon = Variant::load("typhoon").unwrap();
    let mut pos = Position::from_fen(typhoon, "k(ho)10/12/12/12/12/12/12/12/12/12/12/K(HO)10 w").unwrap();
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    let pass = moves.iter().copied().find(|m| m.kind == MoveKind::Pass).expect("the Horned Owl can pass");
    assert_eq!(pos.move_to_string(&pass), "pass", "one_per_position passes keep their text");
    pos.make(pass);
    assert!(pos.last_move_was_pass(), "the flag is a fact in every variant");
    assert_eq!(pos.search_key(), pos.hash());
    let reread = Position::from_fen(Arc::clone(pos.variant()), &pos.to_fen()).unwrap();
    assert_eq!(pos.search_key(), reread.search_key());
}

#[test]
fn igui_in_the_zone_promotes_in_place_and_unmake_restores_it() {
    let fen = "3(de)k4/4p4/4(LN)4/9/9/9/9/9/3(DE)K4 w";
    let mut pos = position(fen);
    let (hash, key) = (pos.hash(), pos.search_key());
    let m = igui(&pos, "e7", "e8", Some("+LN"));
    assert_eq!(pos.move_to_string(&m), "e7e7xe8+");
    pos.make(m);
    assert_eq!(pos.to_fen(), "3(de)k4/9/4(+LN)4/9/9/9/9/9/3(DE)K4 b", "the Lion stays on e7, promoted");
    assert_eq!(pos.hash(), pos.compute_hash());
    assert_eq!(pos.hash(), position("3(de)k4/9/4(+LN)4/9/9/9/9/9/3(DE)K4 b").hash());
    assert!(!pos.last_move_was_pass(), "an igui is not a pass");
    pos.unmake();
    assert_eq!(pos.to_fen(), fen);
    assert_eq!((pos.hash(), pos.search_key()), (hash, key));

    // Without the promotion the Lion stays a Lion.
    pos.make(igui(&pos, "e7", "e8", None));
    assert_eq!(pos.to_fen(), "3(de)k4/9/4(LN)4/9/9/9/9/9/3(DE)K4 b");
    pos.unmake();
    assert_eq!(pos.to_fen(), fen);
}

#[test]
fn promotion_to_a_royal_counts_as_a_royal() {
    // +DE is royal: with the King gone, the Crown Prince keeps Blue alive (§8.3).
    let mut pos = position("4k4/9/3(DE)5/9/9/9/9/9/9 w");
    assert_eq!(pos.outcome().map(|o| o.reason()), Some(EndReason::RoyalCaptured), "no Blue royal: lost");
    pos = position("4k4/9/9/3(DE)5/9/9/9/9/4K4 w");
    pos.make(normal(&pos, "d6", "d7").with_piece(Some(kind(&pos, "+DE"))));
    assert_eq!(pos.to_fen(), "4k4/9/3(+DE)5/9/9/9/9/9/4K4 b");
    let after = position("4k4/9/3(+DE)5/9/9/9/9/9/9 b");
    assert_eq!(after.outcome(), None, "the Crown Prince is a royal");
}

#[test]
fn promoted_tokens_round_trip_in_both_colours() {
    let fen = "3(+de)k(+p)3/(+LN)8/9/9/4P4/9/9/(+ln)8/3(DE)K(+P)p2 w";
    let pos = position(fen);
    assert_eq!(pos.to_fen(), fen);
    let at = |s: &str| pos.piece_at(sq(&pos, s)).map(|p| (pos.variant().piece_token(p), p.color()));
    assert_eq!(at("d9"), Some(("(+de)".to_string(), Color::Tan)));
    assert_eq!(at("f9"), Some(("(+p)".to_string(), Color::Tan)));
    assert_eq!(at("a8"), Some(("(+LN)".to_string(), Color::Blue)));
    assert_eq!(at("f1"), Some(("(+P)".to_string(), Color::Blue)));
}

#[test]
fn bad_promoted_tokens_name_the_character() {
    let error = |fen: &str| Position::from_fen(variant(), fen).expect_err(fen).to_string();
    let e = error("3(de)k4/9/9/9/(+)8/9/9/9/3(DE)K4 w");
    assert!(e.contains("character 16") && e.contains("'+' must be followed by letters"), "{e}");
    let e = error("3(de)k4/9/9/9/(++P)7/9/9/9/3(DE)K4 w");
    assert!(e.contains("character 17") && e.contains("'+' may only be the first character"), "{e}");
    let e = error("3(de)k4/9/9/9/(P+)7/9/9/9/3(DE)K4 w");
    assert!(e.contains("character 17") && e.contains("'+' may only be the first character"), "{e}");
    let e = error("3(de)k4/9/9/9/+P7/9/9/9/3(DE)K4 w");
    assert!(e.contains("character 15") && e.contains("written in parentheses"), "{e}");
    let e = error("3(de)k4/9/9/9/(+L1)7/9/9/9/3(DE)K4 w");
    assert!(e.contains("character 18") && e.contains("unexpected character '1' in a token"), "{e}");
    let e = error("3(de)k4/9/9/9/()8/9/9/9/3(DE)K4 w");
    assert!(e.contains("character 16") && e.contains("empty token"), "{e}");
    let e = error("3(de)k4/9/9/9/(+Ln)7/9/9/9/3(DE)K4 w");
    assert!(e.contains("character 15") && e.contains("mixes upper and lower case"), "{e}");
    let e = error("3(de)k4/9/9/9/(+K)7/9/9/9/3(DE)K4 w");
    assert!(e.contains("unknown piece token \"+K\""), "{e}");
}

/// `text` names `m` among `candidates`, and `m` prints as `printed`.
fn assert_names(pos: &Position, candidates: &[Move], text: &str, m: Move, printed: &str) {
    assert_eq!(pos.move_to_string(&m), printed);
    let found = pos.find_move(text, candidates).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(found, Some(m), "{text} in {}", pos.to_fen());
}

#[test]
fn notation_of_passes_igui_and_multiple_captures_round_trips() {
    let pos = position("3(de)k4/4pp3/4(LN)4/4p4/9/9/9/9/3(DE)K(LN)3 w");
    let lion_pass = pass(&pos, "e7");
    let other_pass = pass(&pos, "f1");
    let igui_plain = igui(&pos, "e7", "e8", None);
    let igui_promoting = igui(&pos, "e7", "e8", Some("+LN"));
    // Hit and run: capture e6, land on d5 (the dossier's `e7xe6-d5`).
    let hit_and_run = normal(&pos, "e7", "d5").with_capture(sq(&pos, "e6"));
    // Double capture into the zone with promotion; victims listed in any order on input.
    let double = normal(&pos, "e7", "f8").with_capture(sq(&pos, "e8")).with_piece(Some(kind(&pos, "+LN")));
    let two_victims = normal(&pos, "e7", "g9").with_capture(sq(&pos, "e8")).with_capture(sq(&pos, "f8"));
    let candidates = [lion_pass, other_pass, igui_plain, igui_promoting, hit_and_run, double, two_victims];

    assert_names(&pos, &candidates, "e7e7", lion_pass, "e7e7");
    assert_names(&pos, &candidates, "e7-e7", lion_pass, "e7e7");
    assert_names(&pos, &candidates, "f1f1", other_pass, "f1f1");
    assert_names(&pos, &candidates, "f1-f1", other_pass, "f1f1");
    assert_names(&pos, &candidates, "e7e7xe8", igui_plain, "e7e7xe8");
    assert_names(&pos, &candidates, "e7xe8-e7", igui_plain, "e7e7xe8");
    assert_names(&pos, &candidates, "e7e7xe8+", igui_promoting, "e7e7xe8+");
    assert_names(&pos, &candidates, "e7xe8-e7+", igui_promoting, "e7e7xe8+");
    assert_names(&pos, &candidates, "e7d5xe6", hit_and_run, "e7d5xe6");
    assert_names(&pos, &candidates, "e7xe6-d5", hit_and_run, "e7d5xe6");
    assert_names(&pos, &candidates, "e7f8xe8+", double, "e7f8xe8+");
    assert_names(&pos, &candidates, "e7xe8-f8+", double, "e7f8xe8+");
    assert_names(&pos, &candidates, "e7g9xf8xe8", two_victims, "e7g9xe8xf8");
    assert_names(&pos, &candidates, "e7xf8xe8-g9", two_victims, "e7g9xe8xf8");
    assert_names(&pos, &candidates, "e7xe8xf8-g9", two_victims, "e7g9xe8xf8");
    // A promotion that the move does not have names no candidate.
    assert_eq!(pos.find_move("e7xe6-d5+", &candidates), Ok(None));
}

#[test]
fn malformed_dossier_moves_and_a_bare_pass_are_refused() {
    let pos = position("3(de)k4/4pp3/4(LN)4/4p4/9/9/9/9/3(DE)K(LN)3 w");
    let error = |text: &str| pos.find_move(text, &[]).expect_err(text).to_string();
    let e = error("pass");
    assert!(e.contains("character 1") && e.contains("each piece passes separately"), "{e}");
    let e = error("e7xe6");
    assert!(e.contains("character 6") && e.contains("expected '-'"), "{e}");
    let e = error("e7xz6-d5");
    assert!(e.contains("character 4") && e.contains("captured square"), "{e}");
    let e = error("e7-");
    assert!(e.contains("character 4") && e.contains("destination square after '-'"), "{e}");
    let e = error("e7xe6-d5=Q");
    assert!(e.contains("character 9 ('=')") && e.contains("unexpected text"), "{e}");
}

#[test]
fn the_fourth_occurrence_draws_and_passes_count() {
    let mut pos = Position::start(variant());
    // Blue passes with its Lion, Tan's King steps out and back: 4 plies per cycle, the start
    // position (Blue to move) recurs after each. No pass follows a pass.
    let cycle = |pos: &Position| [pass(pos, "f1"), normal(pos, "e9", "e8"), pass(pos, "f1"), normal(pos, "e8", "e9")];
    for occurrence in 2..=4 {
        for m in cycle(&pos) {
            assert_eq!(pos.outcome(), None, "occurrence {occurrence}: the game goes on before {m:?}");
            pos.make(m);
        }
        assert_eq!(pos.repetitions(), occurrence - 1, "earlier occurrences of the start position");
    }
    assert_eq!(pos.outcome(), Some(Outcome::Draw { reason: EndReason::Repetition }));

    // The positions in between (Tan to move after a pass) have occurred three times only.
    pos.unmake();
    assert_eq!(pos.repetitions(), 2);
    assert_eq!(pos.outcome(), None);
}

/// The legal moves of `pos` from `from`, as printed.
fn printed_moves_from(pos: &mut Position, from: &str) -> Vec<String> {
    let from = sq(pos, from);
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    let mut texts: Vec<String> = moves.iter().filter(|m| m.from == from).map(|m| pos.move_to_string(m)).collect();
    texts.sort();
    texts
}

#[test]
fn generated_passes_and_igui_round_trip_through_the_parser() {
    // The Lion's own XBetza (`caK` igui, `mcabK` pass): in the zone its igui may promote.
    let mut pos = position("3(de)k(ln)3/4p4/4(LN)4/9/9/9/9/9/3(DE)K4 w");
    let lion = printed_moves_from(&mut pos, "e7");
    for text in ["e7e7", "e7e7xe8", "e7e7xe8+"] {
        assert!(lion.contains(&text.to_string()), "{text} missing from {lion:?}");
    }
    for (text, printed) in [("e7-e7", "e7e7"), ("e7xe8-e7+", "e7e7xe8+"), ("e7xe8-f9", "e7f9xe8")] {
        let m = pos.parse_move(text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(pos.move_to_string(&m), printed);
        assert_eq!(pos.parse_move(printed), Ok(m));
    }
    // Every legal move prints to a text that parses back to it.
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    for m in moves.iter() {
        assert_eq!(pos.parse_move(&pos.move_to_string(m)).as_ref(), Ok(m));
    }

    // After Blue's pass, Tan's Lion may not pass (§8.5), and `pass` names no move here.
    pos.play_moves("e7-e7").unwrap();
    assert!(pos.last_move_was_pass());
    let tan_lion = printed_moves_from(&mut pos, "f9");
    assert!(!tan_lion.contains(&"f9f9".to_string()), "{tan_lion:?}");
    assert!(pos.parse_move("f9f9").is_err());
    assert!(pos.parse_move("pass").unwrap_err().to_string().contains("each piece passes separately"));
    // After a move that is not a pass, it may again.
    pos.play_moves("e9f8 e7e6").unwrap();
    assert!(printed_moves_from(&mut pos, "f9").contains(&"f9f9".to_string()));
}

#[test]
fn every_chushin_token_round_trips_in_both_colours() {
    // All 95 entries of §14 in both colours, one per square in type order: the string the
    // variant prints is read back to the same board and printed unchanged.
    let chushin = support::chushin::chushin();
    let d = chushin.dims;
    let n = chushin.piece_count();
    let pieces: Vec<_> = Color::BOTH
        .into_iter()
        .flat_map(|c| (0..n).map(move |t| fairyzero_rules::Piece::new(fairyzero_rules::PieceType(t as u8), c)))
        .collect();
    assert_eq!(pieces.len(), 190);
    let board = chushin.board_field(|s| pieces.get(s.index()).copied());
    let fen = format!("{board} w");
    for token in ["(+P)", "(+p)", "(+DE)", "(+de)", "(+KY)", "(+ky)", "(+LT)", "(+rt)", "(LN)", "(fd)", "K", "k"] {
        assert!(fen.contains(token), "{token} in {fen}");
    }
    let pos = Position::from_fen(Arc::clone(&chushin), &fen).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(pos.to_fen(), fen);
    for (i, p) in pieces.iter().enumerate() {
        assert_eq!(pos.piece_at(Square(i as u16)), Some(*p), "{}", d.square_name(Square(i as u16)));
    }
}
