//! Protean Chess (list #59, `configs/variants/protean.toml`): before play each side marks one of
//! its non-king men as protean (`MoveKind::Mark`, written `e2e2`), and a protean man becomes a
//! man of the type of each man it captures (`[protean]`, `rules/src/position/protean.rs`, which
//! has the rulings). No engine plays the rule, so the counts below are derived by hand; the shared
//! properties harness (`tests/properties.rs`) walks the variant like every built-in, and
//! `tests/data/protean.perft` holds deeper numbers from an independent python-chess count
//! (`tools/protean_perft.py`).

mod support;

use std::{collections::BTreeSet, sync::Arc};

use fairyzero_rules::{perft, Color, MoveKind, MoveList, Position, Variant};
use support::worked::{legal_texts as legal, set};

fn variant() -> Arc<Variant> {
    Variant::load("protean").unwrap_or_else(|e| panic!("protean: {e}"))
}

fn position(fen: &str) -> Position {
    Position::from_fen(variant(), fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// Plays `moves` (text) on `pos`, checking each is legal.
fn play(pos: &mut Position, moves: &[&str]) {
    for text in moves {
        let m = pos.parse_move(text).unwrap_or_else(|e| panic!("{e}"));
        pos.make(m);
        assert_eq!(pos.hash(), pos.compute_hash(), "hash after {text}: {}", pos.to_fen());
    }
}

fn square(name: &str) -> fairyzero_rules::Square {
    variant().dims.parse_square(name).unwrap()
}

/// The token of the man on `sq` as printed (`P^` for a protean pawn).
fn token_on(pos: &Position, sq: &str) -> String {
    let s = square(sq);
    let p = pos.piece_at(s).unwrap_or_else(|| panic!("no man on {sq} in {}", pos.to_fen()));
    let mut t = pos.variant().piece_token(p);
    if pos.is_protean(s) {
        t.push('^');
    }
    t
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 choices:2";

#[test]
fn the_start_is_a_public_choice_of_15_men_each_then_chess() {
    let mut pos = Position::start(variant());
    assert_eq!(pos.to_fen(), START);
    assert!(pos.in_setup() && pos.protean_choices_left() == 2);
    // White's choices: its 15 non-king men, each written as its square twice.
    let mut choices: BTreeSet<String> = BTreeSet::new();
    for f in "abcdefgh".chars() {
        for r in ['1', '2'] {
            if !(f == 'e' && r == '1') {
                choices.insert(format!("{f}{r}{f}{r}"));
            }
        }
    }
    assert_eq!(legal(&mut pos), choices);
    play(&mut pos, &["e2e2"]);
    assert_eq!(pos.to_fen(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPP^PPP/RNBQKBNR b KQkq - 0 1 choices:1");
    assert_eq!(pos.side_to_move(), Color::Tan);
    assert_eq!(legal(&mut pos).len(), 15);
    assert!(!legal(&mut pos).contains("e8e8"), "the king cannot be protean");
    play(&mut pos, &["g8g8"]);
    // Play begins with White, move 1, clocks untouched.
    assert_eq!(pos.to_fen(), "rnbqkbn^r/pppppppp/8/8/8/8/PPPPP^PPP/RNBQKBNR w KQkq - 0 1 choices:0");
    assert!(!pos.in_setup());
    assert_eq!(pos.protean_man(Color::Blue), Some(square("e2")));
    assert_eq!(pos.protean_man(Color::Tan), Some(square("g8")));
    assert_eq!(legal(&mut pos).len(), 20);
    // No choice is left once play has begun.
    assert!(legal(&mut pos).iter().all(|m| m[..2] != m[2..4]));
}

#[test]
fn perft_from_the_start_by_hand() {
    // d1: White's 15 choices; d2: x Black's 15; d3: x chess's 20 first moves; d4: x chess's 400
    // (no capture is possible in the first two moves, so the marks change nothing yet).
    let mut pos = Position::start(variant());
    assert_eq!(perft(&mut pos, 1), 15);
    assert_eq!(perft(&mut pos, 2), 225);
    assert_eq!(perft(&mut pos, 3), 225 * 20);
    assert_eq!(perft(&mut pos, 4), 225 * 400);
}

#[test]
fn a_protean_pawn_that_takes_a_knight_moves_as_a_knight() {
    const FEN: &str = "4k3/8/8/3n4/4P^3/8/8/4K3 w - - 0 1 choices:0";
    let mut pos = position(FEN);
    assert_eq!(pos.to_fen(), FEN);
    // d1: the king's 5 steps, e4e5 and e4xd5.
    assert_eq!(legal(&mut pos), set(&["e1d1", "e1d2", "e1e2", "e1f1", "e1f2", "e4d5", "e4e5"]));
    // d2 by hand: after a king step or e4e5, Black has 5 king steps and 8 knight moves (13);
    // after e4xd5 the man is a knight, which guards e7: the black king has 4 steps. As a pawn
    // it would guard c6 and e6 only, leaving 5.
    assert_eq!(perft(&mut pos, 2), 5 * 13 + 13 + 4);
    play(&mut pos, &["e4d5"]);
    assert_eq!(token_on(&pos, "d5"), "N^");
    assert_eq!(pos.to_fen(), "4k3/8/8/3N^4/8/8/8/4K3 b - - 0 1 choices:0");
    play(&mut pos, &["e8d8"]);
    let knight: BTreeSet<String> =
        ["b4", "b6", "c3", "c7", "e3", "e7", "f4", "f6"].iter().map(|s| format!("d5{s}")).collect();
    let from_d5: BTreeSet<String> = legal(&mut pos).into_iter().filter(|m| m.starts_with("d5")).collect();
    assert_eq!(from_d5, knight);
    // Unmaking the capture gives the pawn and the knight back.
    pos.unmake();
    pos.unmake();
    assert_eq!(pos.to_fen(), FEN);
    assert_eq!(pos.hash(), position(FEN).hash());
}

#[test]
fn a_protean_knight_that_takes_a_pawn_becomes_a_pawn_and_promotes_as_one() {
    let mut pos = position("4k3/8/3p4/8/4N^3/8/8/4K3 w - - 0 1 choices:0");
    play(&mut pos, &["e4d6"]);
    assert_eq!(token_on(&pos, "d6"), "P^");
    play(&mut pos, &["e8f8"]);
    let from_d6: BTreeSet<String> = legal(&mut pos).into_iter().filter(|m| m.starts_with("d6")).collect();
    assert_eq!(from_d6, set(&["d6d7"]));
    play(&mut pos, &["d6d7", "f8f7"]);
    let from_d7: BTreeSet<String> = legal(&mut pos).into_iter().filter(|m| m.starts_with("d7")).collect();
    assert_eq!(from_d7, set(&["d7d8b", "d7d8n", "d7d8q", "d7d8r"]));
    play(&mut pos, &["d7d8q"]);
    // A promotion without capture: the queen is still protean.
    assert_eq!(token_on(&pos, "d8"), "Q^");
}

#[test]
fn an_en_passant_capture_gives_a_pawn() {
    let mut pos = position("4k3/3p4/8/4P^3/8/8/8/4K3 b - - 0 1 choices:0");
    play(&mut pos, &["d7d5", "e5d6"]);
    assert_eq!(token_on(&pos, "d6"), "P^");
    assert_eq!(pos.protean_man(Color::Blue), Some(square("d6")));
    assert!(pos.piece_at(square("d5")).is_none());
}

#[test]
fn a_capture_that_promotes_takes_the_promotion_not_the_captured_type() {
    let mut pos = position("3rk3/4P^3/8/8/8/8/8/4K3 w - - 0 1 choices:0");
    let promotions: BTreeSet<String> = legal(&mut pos).into_iter().filter(|m| m.starts_with("e7d8")).collect();
    // One move per promotion choice (the rook among them), as in chess.
    assert_eq!(promotions, set(&["e7d8b", "e7d8n", "e7d8q", "e7d8r"]));
    play(&mut pos, &["e7d8n"]);
    assert_eq!(token_on(&pos, "d8"), "N^");
}

#[test]
fn the_mark_follows_a_castling_rook() {
    let mut pos = position("4k3/8/8/8/8/8/8/4K2R^ w K - 0 1 choices:0");
    play(&mut pos, &["e1g1"]);
    assert_eq!(token_on(&pos, "f1"), "R^");
    assert_eq!(token_on(&pos, "g1"), "K");
}

#[test]
fn a_captured_protean_man_is_not_replaced_and_a_protean_taker_takes_its_type() {
    let mut pos = position("4k3/8/8/3b^4/4N^3/8/8/4K3 b - - 0 1 choices:0");
    // The protean bishop takes the protean knight: it becomes a knight, White's mark is gone.
    play(&mut pos, &["d5e4"]);
    assert_eq!(token_on(&pos, "e4"), "n^");
    assert_eq!(pos.protean_man(Color::Blue), None);
    assert_eq!(pos.to_fen(), "4k3/8/8/8/4n^3/8/8/4K3 w - - 0 2 choices:0");
    // No new choice for White: play goes on.
    assert!(!pos.in_setup() && legal(&mut pos).iter().all(|m| m[..2] != m[2..4]));
}

#[test]
fn the_mark_is_in_the_hash_and_survives_the_mirror_and_edits() {
    let marked = position("4k3/8/8/8/4N^3/8/8/4K3 w - - 0 1 choices:0");
    let plain = position("4k3/8/8/8/4N3/8/8/4K3 w - - 0 1 choices:0");
    assert_ne!(marked.hash(), plain.hash());
    assert_eq!(marked.hash(), marked.compute_hash());
    let mirrored = marked.mirrored().expect("no castling rights: mirror-safe").unwrap();
    assert_eq!(mirrored.to_fen(), "3k4/8/8/8/3N^4/8/8/3K4 w - - 0 1 choices:0");
    assert_eq!(mirrored.hash(), mirrored.compute_hash());
    let moved_king = marked.edited(&[(square("e1"), None), (square("d1"), marked.piece_at(square("e1")))]).unwrap();
    assert_eq!(moved_king.to_fen(), "4k3/8/8/8/4N^3/8/8/3K4 w - - 0 1 choices:0");
    assert_eq!(moved_king.hash(), moved_king.compute_hash());
    // The same board reached by moves and read from text has the same hash.
    let mut played = Position::start(variant());
    play(&mut played, &["b1b1", "g8g8", "b1c3"]);
    let read = Position::from_fen(Arc::clone(played.variant()), &played.to_fen()).unwrap();
    assert_eq!(read.hash(), played.hash());
    assert!(read == played);
}

#[test]
fn choices_round_trip_as_text_and_undo() {
    let mut pos = Position::start(variant());
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    for m in moves.clone() {
        assert_eq!(m.kind, MoveKind::Mark);
        let text = pos.move_to_string(&m);
        assert_eq!(pos.parse_move(&text), Ok(m));
        let before = (pos.to_fen(), pos.hash());
        pos.make(m);
        let reread = position(&pos.to_fen());
        assert_eq!(reread.to_fen(), pos.to_fen());
        assert_eq!(reread.hash(), pos.hash());
        pos.unmake();
        assert_eq!((pos.to_fen(), pos.hash()), before);
    }
    // Not a move of the game: e2e2 is refused once play has begun.
    play(&mut pos, &["a2a2", "a7a7"]);
    assert!(pos.parse_move("e2e2").is_err());
}

#[test]
fn position_strings_without_the_field_and_bad_marks() {
    // A plain chess string (Fairy-Stockfish's) starts the choice; one with a mark is in play.
    let plain = position("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    assert_eq!(plain.to_fen(), START);
    let marked = position("4k3/8/8/8/4N^3/8/8/4K3 w - - 0 1");
    assert_eq!(marked.protean_choices_left(), 0);
    // So is a board on which a side has no man to choose (a partial board, as probes write).
    assert_eq!(position("4k3/8/8/8/4N3/8/8/4K3 w - - 0 1").protean_choices_left(), 0);
    let err = |fen: &str| Position::from_fen(variant(), fen).unwrap_err().to_string();
    assert!(err("4k3/8/8/8/4N^3/8/8/4K^3 w - - 0 1 choices:0").contains("royal"));
    assert!(err("4k3/8/8/8/3N^N^3/8/8/4K3 w - - 0 1 choices:0").contains("two protean men"));
    assert!(err("4k3/8/8/8/4N3/8/8/4K3 w - - 0 1 choices:3").contains("choices:"));
    assert!(err("4k3/8/8/8/4N^3/8/8/4K3 w - - 0 1 choices:1").contains("has one already"));
    assert!(err("4k3/8/8/8/8/8/8/4K3 w - - 0 1 choices:1").contains("no non-royal man"));
    assert!(err("4k3/8/8/8/4N3/8/8/4K3 w - - 0 1 choices:0 x").contains("unexpected extra field"));
    // A side in check cannot hand the turn over with a choice; with choices:0 it just plays.
    assert!(err("4k3/8/8/8/4N3/8/4r3/4K3 w - - 0 1 choices:2").contains("in check"));
    assert!(err("4k3/8/8/8/4N3/8/4r3/4K3 w - - 0 1").contains("in check"));
    assert_eq!(position("4k3/8/8/8/4N3/8/4r3/4K3 w - - 0 1 choices:0").protean_choices_left(), 0);
    // The mark belongs to [protean]: chess refuses it, naming the character.
    let chess = Variant::load("chess").unwrap();
    let e = Position::from_fen(chess, "4k3/8/8/8/4N^3/8/8/4K3 w - - 0 1").unwrap_err().to_string();
    assert!(e.contains("character 13") && e.contains("[protean]"), "{e}");
}

#[test]
fn protean_with_an_unsupported_hook_is_refused_naming_the_field() {
    let load =
        |text: &str| Variant::from_toml("test.toml", text, None).err().map(|e| e.to_string()).unwrap_or_default();
    let base = "name = \"t\"\nextends = \"chess\"\n[protean]\nchoice = \"before_play\"\n";
    assert_eq!(load(base), "");
    let atomic = "[explosion]\nblast = \"both\"\ncentre = \"landing\"\n";
    let e = load(&format!("{base}{atomic}"));
    assert!(e.contains("field `protean`") && e.contains("explosion"), "{e}");
    let e = load(&format!("{base}[neutral_token]\nstart = \"d4\"\ncaptures = false\npath = \"clear\"\n"));
    assert!(e.contains("field `protean`") && e.contains("neutral"), "{e}");
    assert!(load("name = \"t\"\nextends = \"chess\"\n[protean]\nchoose = \"x\"\n").contains("choose"));
    assert!(load("name = \"t\"\nextends = \"chess\"\n[protean]\nchoice = \"later\"\n").contains("choice"));
}

/// `tests/data/protean.perft` alone (the perft suite runs it with every other file).
#[test]
fn the_reference_perft_file_matches() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/protean.perft");
    let cases = support::perft_data::read(&path, "protean.perft");
    assert!(cases.iter().map(|c| c.depth).max() >= Some(3));
    let (run, _, failures) = support::perft_data::check(cases, u64::MAX);
    assert!(run > 0 && failures.is_empty(), "{failures:?}");
}
