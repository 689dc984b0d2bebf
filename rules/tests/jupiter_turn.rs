//! Jupiter's turn procedure (jupiter.md §5.3-§5.6, §8, §9.2): doubled turns and their merging,
//! burning, poison, the Kamikaze, repetition. Positions and expected moves are the dossier's
//! (E26, E29 and the scenarios R1-R11), never the generator's output.

mod support;

use std::collections::BTreeSet;

use fairyzero_rules::{Color, Move, MoveKind, MoveList, Position};
use support::jupiter::{jupiter_position, position_string};

/// A 16x16 position string: `blue` and `tan` list (square, token); `side` is `w` or `b`.
fn fen(blue: &[(&str, &str)], tan: &[(&str, &str)], side: &str) -> String {
    let blue = blue.iter().map(|&(sq, t)| (sq, t.to_ascii_uppercase()));
    let tan = tan.iter().map(|&(sq, t)| (sq, t.to_ascii_lowercase()));
    position_string(blue.chain(tan), side == "w")
}

fn position(blue: &[(&str, &str)], tan: &[(&str, &str)], side: &str) -> Position {
    jupiter_position(&fen(blue, tan, side))
}

fn legal(pos: &mut Position) -> MoveList {
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    moves
}

fn square(pos: &Position, name: &str) -> fairyzero_rules::Square {
    let d = pos.variant().dims;
    let file = (name.as_bytes()[0] - b'a') as i32;
    let rank: i32 = name[1..].parse::<i32>().unwrap() - 1;
    d.square(file, rank).unwrap()
}

/// The texts of the legal moves whose (first) action starts on `from`, plus `pass`.
fn moves_of(pos: &mut Position, from: &str) -> BTreeSet<String> {
    let sq = square(pos, from);
    let moves = legal(pos);
    moves
        .iter()
        .filter(|m| m.kind == MoveKind::Pass || m.first_action().from == sq)
        .map(|m| pos.move_to_string(m))
        .collect()
}

fn expected(lines: &[&str]) -> BTreeSet<String> {
    lines.iter().map(|s| s.to_string()).collect()
}

/// The legal move printed as `text`.
fn find(pos: &mut Position, text: &str) -> Move {
    let moves = legal(pos);
    let found: Vec<Move> = moves.iter().copied().filter(|m| pos.move_to_string(m) == text).collect();
    assert_eq!(found.len(), 1, "{text}: {} legal moves print so in {}", found.len(), pos.to_fen());
    found[0]
}

fn play(pos: &mut Position, text: &str) {
    let m = find(pos, text);
    pos.make(m);
}

fn occupant(pos: &Position, sq: &str) -> Option<String> {
    let s = square(pos, sq);
    pos.piece_at(s).map(|p| {
        let t = pos.variant().pieces[p.kind().index()].token.clone();
        if p.color() == Color::Blue {
            t
        } else {
            t.to_ascii_lowercase()
        }
    })
}

/// Every square's occupant, by name.
fn board(pos: &Position) -> BTreeSet<(String, String)> {
    let d = pos.variant().dims;
    (0..d.squares())
        .filter_map(|i| {
            let sq = fairyzero_rules::Square(i as u16);
            let name = d.square_name(sq);
            occupant(pos, &name).map(|t| (name, t))
        })
        .collect()
}

fn pieces(list: &[(&str, &str)]) -> BTreeSet<(String, String)> {
    list.iter().map(|(s, t)| (s.to_string(), t.to_string())).collect()
}

#[test]
fn e26_doubled_wazir_merges_routes_and_the_null_turn_is_the_pass() {
    let mut pos = position(&[("h1", "DBL"), ("h8", "W"), ("g8", "P"), ("b3", "K")], &[("h9", "P"), ("a16", "K")], "w");
    let got = moves_of(&mut pos, "h8");
    let want = expected(&[
        "h8h7,h7h6",
        "h8h7,h7g7",
        "h8h7",
        "h8h7,h7i7",
        "pass",
        "h8h9,h9h8",
        "h8i8",
        "h8i8,i8j8",
        "h8h9,h9g9",
        "h8h9",
        "h8h9,h9i9",
        "h8i8,i8i9",
        "h8h9,h9h10",
    ]);
    assert_eq!(got, want);
    let moves = legal(&mut pos);
    assert_eq!(moves.iter().filter(|m| m.kind == MoveKind::Pass).count(), 1, "one pass per position");
    // Only the Wazir is doubled: no other piece has a doubled turn.
    let h8 = square(&pos, "h8");
    assert!(moves.iter().filter(|m| m.is_doubled()).all(|m| m.first_action().from == h8));
    // The pass changes nothing but the side to move.
    let before = board(&pos);
    play(&mut pos, "pass");
    assert_eq!(board(&pos), before);
}

#[test]
fn e29_steps_into_burning_are_different_moves() {
    let mut pos = position(&[("a1", "W"), ("p1", "K"), ("h10", "CO")], &[("h12", "FID"), ("a16", "K")], "w");
    let want = expected(&[
        "h10g9", "h10h9", "h10i9", "h10g10", "h10i10", "h10g11", "h10g11+", "h10h11", "h10h11+", "h10i11", "h10i11+",
    ]);
    assert_eq!(moves_of(&mut pos, "h10"), want);
    for text in ["h10g11", "h10h11+", "h10i11"] {
        play(&mut pos, text);
        assert!(board(&pos).iter().all(|(_, t)| t != "CO" && t != "WI"), "{text}: the Commoner burns");
        pos.unmake();
    }
}

#[test]
fn r1_poison_removes_a_replacing_capturer_but_not_a_jumping_one() {
    let mut pos = position(&[("e1", "R"), ("p1", "K")], &[("a8", "PSN"), ("e8", "N"), ("p16", "K")], "w");
    play(&mut pos, "e1e8");
    assert_eq!(occupant(&pos, "e8"), None, "the Rook is poisoned");
    assert_eq!(board(&pos), pieces(&[("p1", "K"), ("a8", "psn"), ("p16", "k")]));

    let mut pos = position(&[("e6", "LO"), ("p1", "K")], &[("a8", "PSN"), ("e8", "N"), ("p16", "K")], "w");
    play(&mut pos, "e6e9xe8");
    assert_eq!(board(&pos), pieces(&[("e9", "LO"), ("p1", "K"), ("a8", "psn"), ("p16", "k")]));
}

#[test]
fn r2_fiery_dragons_burn_symmetrically() {
    let mut pos = position(
        &[("b1", "FID"), ("e3", "W"), ("p1", "K")],
        &[("d5", "P"), ("e5", "N"), ("f3", "R"), ("f5", "FID"), ("a16", "K")],
        "w",
    );
    play(&mut pos, "b1e4");
    assert_eq!(board(&pos), pieces(&[("e3", "W"), ("p1", "K"), ("a16", "k")]));
}

#[test]
fn r4_kamikaze_dies_with_its_victim_and_the_mover_wins() {
    let mut pos = position(&[("d4", "KAM"), ("p1", "K")], &[("d6", "R"), ("a16", "K")], "w");
    // It is removed the moment it captures, so it never promotes by capturing (§6 rule 6).
    assert!(!moves_of(&mut pos, "d4").contains("d4d6+"));
    play(&mut pos, "d4d6");
    assert_eq!(board(&pos), pieces(&[("p1", "K"), ("a16", "k")]));
    let outcome = pos.immediate_outcome().expect("both sides are bare");
    assert_eq!(outcome.winner(), Some(Color::Blue));
}

#[test]
fn r5_an_immobilized_doubler_still_doubles_an_immobilized_piece_is_not_doubled() {
    let blue = [("a2", "IM"), ("b4", "GU"), ("p1", "K")];
    let tan = [("b2", "DBL"), ("b1", "R"), ("a16", "K")];
    let mut pos = position(&blue, &tan, "w");
    let b4 = moves_of(&mut pos, "b4");
    assert!(b4.contains("b4b5,b5b6"), "{b4:?}");
    let mut pos = position(&blue, &tan, "b");
    assert_eq!(moves_of(&mut pos, "b1"), expected(&["b1b1*"]));
    assert_eq!(moves_of(&mut pos, "b2"), expected(&["b2b2*"]));
}

#[test]
fn r6_a_swap_with_poison_kills_both() {
    let mut pos =
        position(&[("a4", "HU"), ("e4", "PSN"), ("p1", "K")], &[("a5", "P"), ("a9", "PSN"), ("p16", "K")], "w");
    play(&mut pos, "a4a5^");
    assert_eq!(board(&pos), pieces(&[("e4", "PSN"), ("p1", "K"), ("a9", "psn"), ("p16", "k")]));
}

#[test]
fn r7_king_promotion_depends_on_an_emperor() {
    let mut pos = position(&[("h10", "K"), ("a2", "P")], &[("c14", "EM"), ("a16", "K")], "w");
    play(&mut pos, "h10h11+");
    assert_eq!(occupant(&pos, "h11").as_deref(), Some("EE"));
    let mut pos = position(&[("h10", "K"), ("a2", "P")], &[("c14", "EP"), ("a16", "K")], "w");
    play(&mut pos, "h10h11+");
    assert_eq!(occupant(&pos, "h11").as_deref(), Some("EM"));
}

#[test]
fn r8_a_doubled_fiery_dragon_burns_after_each_action() {
    let mut pos =
        position(&[("h1", "DBL"), ("h3", "FID"), ("p1", "K")], &[("d7", "P"), ("h9", "N"), ("a16", "K")], "w");
    play(&mut pos, "h3e6,e6g8");
    assert_eq!(board(&pos), pieces(&[("h1", "DBL"), ("g8", "FID"), ("p1", "K"), ("a16", "k")]));
    pos.unmake();
    // After h3e6 the Pawn d7 is gone at once, so the Dragon cannot take it with its second action.
    assert!(!moves_of(&mut pos, "h3").contains("h3e6,e6d7"));
}

#[test]
fn r9_a_third_occurrence_is_illegal() {
    let mut pos = position(&[("p1", "K"), ("a1", "N")], &[("a16", "K"), ("p16", "N")], "w");
    for text in ["a1b3", "p16o14", "b3a1", "o14p16", "a1b3", "p16o14", "b3a1"] {
        play(&mut pos, text);
    }
    let moves = legal(&mut pos);
    let texts: BTreeSet<String> = moves.iter().map(|m| pos.move_to_string(m)).collect();
    assert!(!texts.contains("o14p16"), "{texts:?}");
    assert!(texts.contains("o14m13"), "{texts:?}");
}

#[test]
fn r10_burning_comes_before_poison() {
    let mut pos = position(
        &[("b2", "FID"), ("h1", "W"), ("p1", "K")],
        &[("e5", "DNI"), ("f6", "N"), ("p12", "P"), ("a16", "K")],
        "w",
    );
    play(&mut pos, "b2e5");
    assert_eq!(board(&pos), pieces(&[("h1", "W"), ("p1", "K"), ("p12", "p"), ("a16", "k")]));
    assert!(pos.immediate_outcome().is_none(), "the game goes on");
}

#[test]
fn r11_poison_strikes_between_the_actions_of_a_doubled_turn() {
    let mut pos = position(
        &[("a4", "DBL"), ("e4", "RLW"), ("e5", "P"), ("p1", "K")],
        &[("f5", "DNI"), ("p12", "P"), ("a16", "K")],
        "w",
    );
    let moves = legal(&mut pos);
    let after_capture: BTreeSet<String> =
        moves.iter().map(|m| pos.move_to_string(m)).filter(|t| t.starts_with("e5f5")).collect();
    assert_eq!(after_capture, expected(&["e5f5", "e5f5,e4d4", "e5f5,e4e3", "e5f5,e4e5", "e5f5,e4f4"]));
    // The single action loses the Pawn at the end of the turn.
    play(&mut pos, "e5f5");
    assert_eq!(occupant(&pos, "f5"), None);
    pos.unmake();
    play(&mut pos, "e5f5,e4f4");
    assert_eq!(board(&pos), pieces(&[("a4", "DBL"), ("f4", "RLW"), ("p1", "K"), ("p12", "p"), ("a16", "k")]));
}

/// make/unmake restores the position and its hash for every legal move (doubled turns, burning
/// and poison included), and the hash after a move is the hash of the position it reaches.
#[test]
fn make_unmake_round_trips_with_doublers_poison_and_fiery_dragons() {
    let positions = [
        fen(
            &[("h1", "DBL"), ("h3", "FID"), ("e4", "RLW"), ("e5", "P"), ("c3", "KAM"), ("p1", "K")],
            &[("d7", "P"), ("h9", "N"), ("f5", "DNI"), ("j6", "PSN"), ("m6", "W"), ("a16", "K")],
            "w",
        ),
        fen(
            &[("h1", "DBL"), ("h8", "W"), ("g8", "P"), ("b3", "K"), ("a4", "HU"), ("e9", "PSN")],
            &[("h9", "P"), ("a16", "K"), ("a5", "P"), ("e12", "PSN"), ("h12", "FID"), ("c10", "DBL")],
            "w",
        ),
        fen(
            &[("h1", "DBL"), ("h3", "FID"), ("p1", "K"), ("d4", "KAM"), ("a2", "IM")],
            &[
                ("d7", "P"),
                ("h9", "N"),
                ("a16", "K"),
                ("d6", "R"),
                ("b2", "DBL"),
                ("b1", "R"),
                ("c4", "DNI"),
                ("b5", "W"),
            ],
            "b",
        ),
    ];
    let mut checked = 0;
    for text in &positions {
        let mut pos = jupiter_position(text);
        let moves = legal(&mut pos);
        assert!(moves.iter().any(|m| m.is_doubled()), "{text}: no doubled turn to check");
        let distinct: BTreeSet<String> = moves.iter().map(|m| pos.move_to_string(m)).collect();
        assert_eq!(distinct.len(), moves.len(), "{text}: two moves print alike");
        let (fen_before, hash_before) = (pos.to_fen(), pos.hash());
        for m in &moves {
            pos.make(*m);
            let reparsed = Position::from_fen(pos.variant().clone(), &pos.to_fen()).expect("the position prints");
            assert_eq!(pos.hash(), reparsed.hash(), "{text}: hash after {}", pos.to_fen());
            pos.unmake();
            assert_eq!((pos.to_fen(), pos.hash()), (fen_before.clone(), hash_before), "{text}: unmake");
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} moves checked");
}

/// §5.3 rule 5 (ruling): promotion is decided after each action; a piece that promotes in its
/// first action makes its second as the promoted type (the Wazir's promotion, ZA, is `FA`).
#[test]
fn a_doubled_piece_promotes_per_action() {
    let mut pos = position(&[("h1", "DBL"), ("h10", "W"), ("p1", "K")], &[("a16", "K"), ("p12", "P")], "w");
    let moves = moves_of(&mut pos, "h10");
    let as_promoted: BTreeSet<String> = moves.iter().filter(|t| t.starts_with("h10h11+,")).cloned().collect();
    let want = expected(&[
        "h10h11+,h11f9",
        "h10h11+,h11j9",
        "h10h11+,h11g10",
        "h10h11+,h11i10",
        "h10h11+,h11g12",
        "h10h11+,h11i12",
        "h10h11+,h11f13",
        "h10h11+,h11j13",
    ]);
    assert_eq!(as_promoted, want);
    // Unpromoted after the first action, the Wazir may promote on its second (it starts in the
    // zone), even back onto its start square; stepping back without promoting is the pass.
    for text in ["h10h11,h11h12", "h10h11,h11h12+", "h10h11,h11h10+", "h10h11", "h10h11+", "pass"] {
        assert!(moves.contains(text), "{text} missing from {moves:?}");
    }
    assert!(!moves.contains("h10h11,h11h10"), "the null turn is the pass");
}

/// §8 with Tribbles: a capture is not irreversible where pieces can be born, so the
/// repetition scan looks past it and a third occurrence behind a captured Tribble is refused.
#[test]
fn repetition_looks_past_the_capture_of_a_tribble() {
    let mut pos =
        position(&[("p1", "K"), ("e4", "TRB"), ("a1", "W")], &[("a16", "K"), ("e10", "R"), ("p16", "N")], "w");
    // A Tribble is born and captured, and everything else goes back: the start recurs.
    let cycle = ["e4e4&e6", "e10e6", "a1a2", "e6e11", "a2a1", "e11e10"];
    for text in cycle.iter().chain(&cycle[..5]) {
        play(&mut pos, text);
    }
    let moves = legal(&mut pos);
    let texts: BTreeSet<String> = moves.iter().map(|m| pos.move_to_string(m)).collect();
    assert!(!texts.contains("e11e10"), "e11e10 would make the start position's third occurrence: {texts:?}");
    assert!(texts.contains("e11e12"), "{texts:?}");
}

/// Ruling 11.18: a Kamikaze pushed onto an enemy by a tank has captured it, and dies.
#[test]
fn a_kamikaze_pushed_onto_an_enemy_dies() {
    let mut pos =
        position(&[("d3", "OXT"), ("d4", "KAM"), ("p1", "K")], &[("d5", "R"), ("a16", "K"), ("p12", "P")], "w");
    let (d3, d4) = (square(&pos, "d3"), square(&pos, "d4"));
    let shove = legal(&mut pos).into_iter().find(|m| m.kind == MoveKind::Shove && m.from == d3 && m.to == d4);
    pos.make(shove.expect("the Ox Tank pushes the Kamikaze"));
    assert_eq!(board(&pos), pieces(&[("d4", "OXT"), ("p1", "K"), ("a16", "k"), ("p12", "p")]));
}

/// The own moves of the five pieces of the turn procedure, derived by hand from jupiter.md §3.4
/// (Pretentious pair: Doubler and Poisoner move as a Queen to empty squares only; Poison pair:
/// Kamikaze a Queen limited to 2, Deadly Nightshade a King; Linear pair: Fiery Dragon a Bishop),
/// each on d4 with a friendly Pawn two squares north (d6) and a Tan Knight on f6. No royal,
/// Doubler or Poisoner lies on the examined piece's lines but these, so no doubled turn starts
/// on d4 and every listed move is a single action.
#[test]
fn the_turn_pieces_move_as_the_master_table_says() {
    let queen_to_empty = [
        "d4d5", "d4d3", "d4d2", "d4d1", // north stops before the Pawn, south to the edge
        "d4e4", "d4f4", "d4g4", "d4h4", "d4i4", "d4j4", "d4k4", "d4l4", "d4m4", "d4n4", "d4o4", "d4p4", "d4c4", "d4b4",
        "d4a4", //
        "d4e5", // north-east stops before the Knight: no capture
        "d4c5", "d4b6", "d4a7", "d4e3", "d4f2", "d4g1", "d4c3", "d4b2", "d4a1",
    ];
    for token in ["DBL", "PSN"] {
        let mut pos = position(&[("p1", "K"), ("d4", token), ("d6", "P")], &[("a16", "K"), ("f6", "N")], "w");
        assert_eq!(moves_of(&mut pos, "d4"), expected(&queen_to_empty), "{token}");
    }
    let mut pos = position(&[("p1", "K"), ("d4", "KAM"), ("d6", "P")], &[("a16", "K"), ("f6", "N")], "w");
    let kamikaze = [
        "d4d5", "d4d3", "d4d2", "d4e4", "d4f4", "d4c4", "d4b4", "d4e5", "d4f6", "d4c5", "d4b6", "d4e3", "d4f2", "d4c3",
        "d4b2",
    ];
    assert_eq!(moves_of(&mut pos, "d4"), expected(&kamikaze), "KAM: Q2, capturing on f6");
    // The capture on f6 removes the Kamikaze with its victim (§3.4).
    play(&mut pos, "d4f6");
    assert_eq!((occupant(&pos, "f6"), occupant(&pos, "d4")), (None, None));

    let mut pos = position(&[("p1", "K"), ("d4", "DNI"), ("d5", "P")], &[("a16", "K"), ("e5", "N")], "w");
    let nightshade = ["d4c3", "d4c4", "d4c5", "d4d3", "d4e3", "d4e4", "d4e5"];
    assert_eq!(moves_of(&mut pos, "d4"), expected(&nightshade), "DNI: a King, capturing on e5");

    let mut pos = position(&[("p1", "K"), ("d4", "FID"), ("d6", "P")], &[("a16", "K"), ("f6", "N")], "w");
    let fiery_dragon = ["d4e5", "d4f6", "d4c5", "d4b6", "d4a7", "d4e3", "d4f2", "d4g1", "d4c3", "d4b2", "d4a1"];
    assert_eq!(moves_of(&mut pos, "d4"), expected(&fiery_dragon), "FID: a Bishop, capturing on f6");
    // Stepping next to the Knight burns it at the end of the turn (§5.5).
    play(&mut pos, "d4e5");
    assert_eq!(occupant(&pos, "f6"), None);
}
