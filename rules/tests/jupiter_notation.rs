//! Jupiter's move text (jupiter.md §9.3): doubled turns, reproduction, tank shoves, removed
//! squares in any order, setup tokens in any case. No generator emits these moves yet, so the
//! moves are built by hand and parsed against hand-made candidate lists (`find_move`).

use std::sync::Arc;

use fairyzero_rules::{Move, MoveKind, Position, Square, Variant};

/// A 16x16 board with a King, a Wazir that promotes to one type (`+`), and a Pawn that
/// promotes to two (`=W`, `=(FE)`).
const VARIANT: &str = r#"
name = "notation-16x16"
width = 16
height = 16
start = "k15/16/16/16/16/16/16/16/16/16/16/16/16/16/16/15K w"
notation = "fairyzero"

[promotion]
zone_ranks = 6
mandatory = "never"

[victory]
royal = "capture"
stalemate = "loss"

[[piece]]
name = "King"
token = "K"
betza = "K"
royal = true

[[piece]]
name = "Wazir"
token = "W"
betza = "W"
promotes_to = ["FE"]

[[piece]]
name = "Ferz Emperor"
token = "FE"
betza = "FW"

[[piece]]
name = "Pawn"
token = "P"
betza = "mfWcfF"
promotes_to = ["W", "FE"]
"#;

fn variant() -> Arc<Variant> {
    Variant::from_toml("notation-16x16", VARIANT, None).unwrap_or_else(|e| panic!("{e}"))
}

fn position(fen: &str) -> Position {
    Position::from_fen(variant(), fen).unwrap_or_else(|e| panic!("{e}"))
}

fn sq(pos: &Position, name: &str) -> Square {
    pos.variant().dims.parse_square(name).unwrap()
}

fn step(pos: &Position, from: &str, to: &str) -> Move {
    Move::normal(sq(pos, from), sq(pos, to))
}

/// Prints every move, checks the strings are distinct, and parses each back among `moves`.
fn assert_round_trip(pos: &Position, moves: &[Move], expected: &[&str]) {
    let printed: Vec<String> = moves.iter().map(|m| pos.move_to_string(m)).collect();
    assert_eq!(printed, expected);
    for (m, text) in moves.iter().zip(&printed) {
        assert_eq!(pos.find_move(text, moves).unwrap(), Some(*m), "{text}");
    }
}

/// E26's Wazir (Blue W h8, Tan P h9): single actions and doubled turns, including one that
/// captures on h9 and goes on, print distinctly and parse back.
#[test]
fn e26_doubled_turns_print_each_action_as_if_alone() {
    let pos = position("k15/16/16/16/16/16/16/7p8/6PW8/16/16/16/16/16/16/15K w");
    let h8h7 = step(&pos, "h8", "h7");
    let h8h9 = step(&pos, "h8", "h9");
    let moves = [
        h8h7,
        Move::doubled(h8h7, step(&pos, "h7", "h6")),
        Move::doubled(h8h7, step(&pos, "h7", "i7")),
        h8h9,
        Move::doubled(h8h9, step(&pos, "h9", "h10")),
        Move::doubled(h8h9, step(&pos, "h9", "h8")),
        Move::doubled(step(&pos, "h8", "i8"), step(&pos, "i8", "i9")),
    ];
    assert_round_trip(
        &pos,
        &moves,
        &["h8h7", "h8h7,h7h6", "h8h7,h7i7", "h8h9", "h8h9,h9h10", "h8h9,h9h8", "h8i8,i8i9"],
    );
    assert_eq!(pos.find_move("h8h9,h9g9", &moves).unwrap(), None);
}

/// The second action's promotion is written for the piece that makes it after the first: a
/// Pawn that became a Wazir promotes again with `+`, although the Pawn itself names the type.
#[test]
fn second_action_promotion_is_written_for_the_piece_after_the_first_action() {
    let pos = position("k15/16/16/16/16/16/3P12/16/16/16/16/16/16/16/16/15K w");
    let to_wazir = step(&pos, "d10", "d11").with_piece(Some(piece(&pos, "W")));
    let to_fe = step(&pos, "d10", "d11").with_piece(Some(piece(&pos, "FE")));
    let again = step(&pos, "d11", "d12").with_piece(Some(piece(&pos, "FE")));
    let moves = [to_wazir, to_fe, Move::doubled(to_wazir, again), Move::doubled(step(&pos, "d10", "d11"), again)];
    assert_round_trip(&pos, &moves, &["d10d11=W", "d10d11=(FE)", "d10d11=W,d11d12+", "d10d11,d11d12=(FE)"]);
    // After a promotion to FE (which never promotes) the second action cannot be written `+`.
    assert_eq!(pos.find_move("d10d11=(fe),d11d12+", &[Move::doubled(to_fe, again)]).unwrap(), None);
    // Promotion tokens are read in any case, with or without parentheses for one letter.
    assert_eq!(pos.find_move("d10d11=(w),d11d12+", &moves).unwrap(), Some(moves[2]));
    assert_eq!(pos.find_move("d10d11,d11d12=(fe)", &moves).unwrap(), Some(moves[3]));
}

fn piece(pos: &Position, token: &str) -> fairyzero_rules::PieceType {
    pos.variant().piece_by_token(token).unwrap()
}

/// §9.3's examples: reproduction `&`, pull `<`, push `>`, tank shove as a step with its
/// pushed-off squares (E6 `e3e2xe1`, E6b `b2a1`), removed squares in any order.
#[test]
fn jupiter_action_kinds_print_as_section_9_3_writes_them() {
    let pos = position("k15/16/16/16/16/16/16/16/16/16/16/16/16/4W11/4W11/4W10K w");
    let at = |from: &str, kind: MoveKind, aux: &str| step(&pos, from, from).with_kind(kind).with_aux(sq(&pos, aux));
    let moves = [
        at("e3", MoveKind::Reproduce, "c3"),
        at("e3", MoveKind::Pull, "e7"),
        at("e3", MoveKind::Push, "e4"),
        step(&pos, "e3", "e2").with_kind(MoveKind::Shove).with_capture(sq(&pos, "e1")),
        step(&pos, "e3", "f3"),
        step(&pos, "e2", "e3").with_kind(MoveKind::Shove).with_capture(sq(&pos, "p1")).with_capture(sq(&pos, "h10")),
    ];
    assert_round_trip(&pos, &moves, &["e3e3&c3", "e3e3<e7", "e3e3>e4", "e3e2xe1", "e3f3", "e2e3xp1xh10"]);
    assert_eq!(pos.find_move("e2e3xh10xp1", &moves).unwrap(), Some(moves[5]), "removed squares in any order");
    assert!(pos.find_move("e3e3@c3", &moves).is_err(), "`@` is the drop marker, not reproduction");
}

#[test]
fn doubled_turn_syntax_errors_name_the_character() {
    let pos = position("k15/16/16/16/16/16/16/16/6W9/16/16/16/16/16/16/15K w");
    let error = |text: &str| pos.find_move(text, &[]).unwrap_err().message;
    assert!(error("g8g9,").starts_with("character 6"), "{}", error("g8g9,"));
    assert!(error("g8g9,pass").contains("no pass or setup ply"), "{}", error("g8g9,pass"));
    assert!(error("g8g9,g9q9").starts_with("character 8"), "{}", error("g8g9,g9q9"));
    assert!(error("g8g9,g9g10,g10g11").starts_with("character 11"), "{}", error("g8g9,g9g10,g10g11"));
}

/// Setup tokens are matched case-insensitively, multi-letter ones too, with or without the
/// parentheses of position strings.
#[test]
fn setup_tokens_parse_in_any_case() {
    let v = Variant::load("scirocco").unwrap();
    for text in ["set:d2=co", "set:d2=CO", "set:d2=Co", "set:d2=(co)"] {
        let mut pos = Position::setup_start(Arc::clone(&v)).unwrap();
        let m = pos.parse_move(text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(pos.move_to_string(&m), "set:d2=CO");
    }
}

/// A comma list still plays one move per item where no doubled turn is legal.
#[test]
fn comma_lists_without_doubled_turns_play_one_move_per_item() {
    let mut pos = Position::start(Variant::load("chess").unwrap());
    pos.play_moves("e2e4,e7e5 g1f3, b8c6").unwrap();
    assert_eq!(pos.ply(), 4);
}
