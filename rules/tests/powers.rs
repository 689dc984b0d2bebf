//! Tricky cases of the special-power modules that the dossiers' worked examples leave out.

use std::collections::BTreeSet;

use fairyzero_rules::{MoveList, Position, Variant};

fn moves_from(pos: &mut Position, square: &str) -> BTreeSet<String> {
    let sq = pos.variant().dims.parse_square(square).unwrap();
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    list.iter().filter(|m| m.from == sq).map(|m| pos.move_to_string(m)).collect()
}

fn all_moves(pos: &mut Position) -> Vec<String> {
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    list.iter().map(|m| pos.move_to_string(m)).collect()
}

fn typhoon(board: &str) -> Position {
    Position::from_fen(Variant::load("typhoon").unwrap(), board).unwrap()
}

#[test]
fn conversion_in_the_promotion_zone_does_not_promote() {
    // Blue Cuckoo on e10 (Blue's zone), Tan Knight right ahead on e11.
    let mut pos = typhoon("10(co)k/4n7/4(CU)7/12/12/12/12/12/12/12/12/10(CO)K w");
    let moves = moves_from(&mut pos, "e10");
    assert!(moves.contains("e10e10~e11"), "{moves:?}");
    assert!(!moves.iter().any(|m| m.starts_with("e10e10~") && m.ends_with('+')), "{moves:?}");
    // Its own moves in the zone may promote (to Longleaper).
    assert!(moves.contains("e10d10+") && moves.contains("e10d10"), "{moves:?}");
    let m = pos.parse_move("e10e10~e11").unwrap();
    pos.make(m);
    assert_eq!(
        pos.piece_at(pos.variant().dims.parse_square("e11").unwrap()).map(|p| p.color()),
        Some(fairyzero_rules::Color::Blue),
        "the Knight now belongs to Blue"
    );
}

#[test]
fn longleaper_may_stop_after_any_jump_but_never_jumps_two_adjacent_pieces() {
    // Blue Longleaper c3; Tan pieces d3 and f3 with gaps, then g3-h3 adjacent.
    let mut pos = typhoon("10(co)k/12/12/12/12/12/12/12/12/2(LO)n1nnn4/12/10(CO)K w");
    let moves = moves_from(&mut pos, "c3");
    assert!(moves.contains("c3e3xd3"), "stops after the first jump: {moves:?}");
    assert!(!moves.iter().any(|m| m.contains("xf3")), "f3 has g3 right behind it: {moves:?}");
    assert!(!moves.iter().any(|m| m.starts_with("c3d3") || m.starts_with("c3f3")), "{moves:?}");
}

#[test]
fn one_pass_per_position_and_none_from_immobilized_passers() {
    // Two Blue Parrots: one pass move.
    let mut pos = typhoon("10(co)k/12/12/12/12/12/12/12/12/1(PA)3(PA)6/12/10(CO)K w");
    assert_eq!(all_moves(&mut pos).iter().filter(|m| *m == "pass").count(), 1);
    // A Tan Immobilizer next to one of them: the other still passes.
    let mut pos = typhoon("10(co)k/12/12/12/12/12/12/12/12/1(PA)(im)2(PA)6/12/10(CO)K w");
    assert_eq!(all_moves(&mut pos).iter().filter(|m| *m == "pass").count(), 1);
    // Both frozen: no pass, but each may capture itself.
    let mut pos = typhoon("10(co)k/12/12/12/12/12/12/12/12/1(PA)(im)(PA)8/12/10(CO)K w");
    let moves = all_moves(&mut pos);
    assert!(!moves.contains(&"pass".to_string()), "{moves:?}");
    assert!(moves.contains(&"b3b3*".to_string()) && moves.contains(&"d3d3*".to_string()), "{moves:?}");
    let m = pos.parse_move("pass");
    assert!(m.is_err());
}

#[test]
fn dervish_landing_rule_is_a_config_switch() {
    // Scirocco S1: the ruling (R-S3) gives the diagonal neighbour only the Alfil leap across.
    let board = "9k/10/10/10/6n3/6(DER)P2/5P4/10/10/K9 w";
    let mut ruled = Position::from_fen(Variant::load("scirocco").unwrap(), board).unwrap();
    assert_eq!(moves_from(&mut ruled, "f4"), ["f4f5", "f4h6"].map(String::from).into());
    // The page's broad sentence, as a three-line variant: the corner Dabbaba leaps appear.
    let broad = Variant::from_toml(
        "broad.toml",
        "name = \"broad\"\nextends = \"scirocco\"\n[[piece]]\ntoken = \"DER\"\n\
         powers = [{ kind = \"relay\", reach = \"adjacent\", grants = \"FDA\", landing = \"next_to_relayer\" }]\n",
        None,
    )
    .unwrap();
    let mut pos = Position::from_fen(broad, board).unwrap();
    assert_eq!(moves_from(&mut pos, "f4"), ["f4f5", "f4f6", "f4h4", "f4h6"].map(String::from).into());
}

#[test]
fn typhoon_sweep_stops_before_a_friend_and_takes_every_enemy_passed() {
    // Blue Typhoon d4; Tan e5 with Blue f6 behind it on the diagonal; Tan d5 and d6 straight up.
    let mut pos = typhoon("10(co)k/12/12/12/12/12/3p1P6/3pp7/3(TY)8/12/12/10(CO)K w");
    let moves = moves_from(&mut pos, "d4");
    assert!(moves.contains("d4e5") && !moves.iter().any(|m| m.starts_with("d4f6")), "{moves:?}");
    assert!(moves.contains("d4d5") && moves.contains("d4d6xd5") && moves.contains("d4d7xd5xd6"), "{moves:?}");
    assert!(!moves.contains("d4d6") && !moves.contains("d4d7xd5"), "passing over an enemy always takes it");
}

#[test]
fn a_sorcerer_line_may_capture_more_than_seven_pieces() {
    // Found by random self-play (seed 2481): the Blue Sorcerer on k11 can take a long line.
    let mut pos = typhoon(
        "(be)(pr)(wa)(cg)1(der)k2(st)2/(hu)(go)(sa)c(fl)fwa(gg)1(SO)(cu)/3(co)(gu)(bt)1(ma)n1(ov)(ot)/4dp1(del)1(gu)1(fu)/6pp1(sg)2/4p2P4/A2p1(CG)3(FU)P1/(FU)(CI)1pP2P(BA)P(DER)(PR)/1P2N(GU)(GU)5/1(OV)(SG)1(ST)1(CO)(WA)3(GO)/(CU)(OT)1(GG)2KD1(BD)(GW)(UN)/(FH)6F(SA)(FL)(HU)1 w",
    );
    let moves = all_moves(&mut pos);
    let longest = moves.iter().map(|m| m.matches('x').count()).max().unwrap_or(0);
    assert!(longest >= 8, "{moves:?}");
    for text in &moves {
        assert_eq!(pos.move_to_string(&pos.clone().parse_move(text).unwrap()), *text);
    }
}
