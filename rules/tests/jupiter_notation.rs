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

// ---------------------------------------------------------------------------------------------
// setup:<hex> masks (jupiter.md §2.4)
// ---------------------------------------------------------------------------------------------

/// A 16x16 setup phase shaped like Jupiter's: the Regal pair fixed (Blue K h1, Co i1; Tan K
/// i16, Co h16, so the copies are rotated), three Tan plies reading bits 0, 1 and 3 (bit 2 is
/// skipped as Jupiter skips bit 7).
const MASK_VARIANT: &str = r#"
name = "mask-16x16"
width = 16
height = 16
start = "(fe)dw4(co)k4fa(we)/16/16/16/16/16/16/16/16/16/16/16/16/16/16/(WE)AF4K(CO)4WD(FE) w"
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
name = "Commoner"
token = "CO"
betza = "K"

[[piece]]
name = "Wazir"
token = "W"
betza = "W"

[[piece]]
name = "Ferz"
token = "F"
betza = "F"

[[piece]]
name = "Alfil"
token = "A"
betza = "A"

[[piece]]
name = "Dabbaba"
token = "D"
betza = "D"

[[piece]]
name = "Wazir Elephant"
token = "WE"
betza = "WA"

[[piece]]
name = "Ferz Elephant"
token = "FE"
betza = "FA"

[setup]
fixed = "7(co)k7/16/16/16/16/16/16/16/16/16/16/16/16/16/16/7K(CO)7 w"
symmetry_royal = "K"
mask_skip_bits = [2]
ply = [
    { actor = "tan", owner = "blue", squares = ["a1", "p1"], pieces = ["WE", "FE"], copy = true },
    { actor = "tan", owner = "blue", squares = ["b1", "o1"], pieces = ["A", "D"], copy = true },
    { actor = "tan", owner = "blue", squares = ["c1", "n1"], pieces = ["F", "W"], copy = true },
]
"#;

fn mask_variant() -> Arc<Variant> {
    Variant::from_toml("mask-16x16", MASK_VARIANT, None).unwrap_or_else(|e| panic!("{e}"))
}

fn masked(v: &Arc<Variant>, text: &str) -> Result<String, String> {
    Position::from_setup_text(Arc::clone(v), text).map(|p| p.to_fen()).map_err(|e| e.to_string())
}

#[test]
fn mask_zero_is_the_first_member_everywhere_and_set_bits_swap_their_pairs() {
    let v = mask_variant();
    assert_eq!(masked(&v, "setup:0").unwrap(), Position::start(Arc::clone(&v)).to_fen());
    // Bit 0 swaps the first ply's pair, bit 3 the third (rotated copies for Tan).
    assert_eq!(
        masked(&v, "setup:9").unwrap(),
        "(we)df4(co)k4wa(fe)/16/16/16/16/16/16/16/16/16/16/16/16/16/16/(FE)AW4K(CO)4FD(WE) w"
    );
    // The mask is the setup plies in compact form.
    let mut played = Position::setup_start(Arc::clone(&v)).unwrap();
    played.play_moves("set:a1=FE set:b1=A set:c1=W").unwrap();
    assert_eq!(masked(&v, "setup:9").unwrap(), played.to_fen());
    assert_eq!(masked(&v, "setup:B"), masked(&v, "setup:b"), "hex digits in either case");
    let all = Position::from_setup_mask(Arc::clone(&v), 0b1011).unwrap();
    assert!(!all.in_setup());
    assert_eq!(all.ply(), 3, "the setup plies stay in the history");
}

#[test]
fn mask_bits_that_no_ply_reads_are_errors_naming_the_bit() {
    let v = mask_variant();
    let skipped = masked(&v, "setup:4").unwrap_err();
    assert!(skipped.contains("bit 2 must be 0"), "{skipped}");
    let beyond = masked(&v, "setup:10").unwrap_err();
    assert!(beyond.contains("bit 4 must be 0") && beyond.contains("bits 0 to 3"), "{beyond}");
    let high = masked(&v, "setup:8000000000000000").unwrap_err();
    assert!(high.contains("bit 63 must be 0"), "{high}");
    for bad in ["setup:", "setup:x1", "setup:+1", "setup:10000000000000000", "1f", "setup: 1"] {
        let e = masked(&v, bad).unwrap_err();
        assert!(e.contains("is not a setup mask"), "{bad}: {e}");
    }
    let chess = masked(&Variant::load("chess").unwrap(), "setup:0").unwrap_err();
    assert!(chess.contains("has no setup phase"), "{chess}");
}

#[test]
fn mask_skip_bits_beyond_the_mask_are_refused_at_load() {
    let text = MASK_VARIANT.replace("mask_skip_bits = [2]", "mask_skip_bits = [64]");
    let e = Variant::from_toml("mask-16x16", &text, None).unwrap_err().to_string();
    assert!(e.contains("setup.mask_skip_bits") && e.contains("bit 64"), "{e}");
}

/// Typhoon (typhoon.md §2.5, §2.6): the mask reads its 18 plies in order, the Blue plies
/// placing the Kings included; its canonical array is `set:f1=K, set:f12=Co`, then member 1 at
/// every Tan ply, i.e. mask 2.
#[test]
fn typhoon_canonical_array_is_mask_2() {
    let v = Variant::load("typhoon").unwrap();
    assert_eq!(masked(&v, "setup:2").unwrap(), Position::start(Arc::clone(&v)).to_fen());
    assert_ne!(masked(&v, "setup:0").unwrap(), masked(&v, "setup:2").unwrap(), "Kings on one file: mirror");
    assert!(masked(&v, "setup:3ffff").is_ok());
    let e = masked(&v, "setup:40000").unwrap_err();
    assert!(e.contains("bit 18 must be 0"), "{e}");
}

/// Jupiter (§2.4, §2.5): 37 plies on bits 0-37 without bit 7; mask 0 is the canonical array.
#[test]
fn jupiter_setup_masks() {
    let v = Variant::load(concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/variants/jupiter.toml"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(v.has_setup_phase(), "configs/variants/jupiter.toml needs its [setup] (§2.4)");
    // §2.5's position string, verbatim.
    let canonical = "(gw)(haw)(pr)(go)(sa)(cro)(fl)(co)k(gg)(tou)(ci)(st)(ma)(hoo)(fh)/(cbo)(yew)1(tha)1(drd)(lfg)(sdm)(vtm)(rtg)(drp)1(thi)1(eye)(bln)/(whf)(rlf)(goa)(drt)(int)(vox)(phx)(dni)(kam)(kyl)(fld)(nrt)(oxt)(cmh)(rlw)(blg)/(hu)(frd)1(bd)1(lfn)dfwa(rtn)1c1(rrd)(cu)/(be)(wba)(un)(wa)(der)(tgo)(cg)(bt)(del)(sg)(twi)n(ch)(ov)(eba)(ot)/(fu)(ber)(ber)pp(gu)pppp(gu)pp(ber)(ber)(fu)/2(gal)2(ba)4(la)2(gbt)2/16/16/2(GBT)2(LA)4(BA)2(GAL)2/(FU)(BER)(BER)PP(GU)PPPP(GU)PP(BER)(BER)(FU)/(OT)(EBA)(OV)(CH)N(TWI)(SG)(DEL)(BT)(CG)(TGO)(DER)(WA)(UN)(WBA)(BE)/(CU)(RRD)1C1(RTN)AWFD(LFN)1(BD)1(FRD)(HU)/(BLG)(RLW)(CMH)(OXT)(NRT)(FLD)(KYL)(KAM)(DNI)(PHX)(VOX)(INT)(DRT)(GOA)(RLF)(WHF)/(BLN)(EYE)1(THI)1(DRP)(RTG)(VTM)(SDM)(LFG)(DRD)1(THA)1(YEW)(CBO)/(FH)(HOO)(MA)(ST)(CI)(TOU)(GG)K(CO)(FL)(CRO)(SA)(GO)(PR)(HAW)(GW) w";
    let zero = Position::from_setup_text(Arc::clone(&v), "setup:0").unwrap();
    assert_eq!(zero.to_fen(), Position::from_fen(Arc::clone(&v), canonical).unwrap().to_fen());
    // setup:1f swaps pairs 0-4: Blue's rank 1 a-e and l-p exchange, Tan's rotated with it.
    let swapped = Position::from_setup_text(Arc::clone(&v), "setup:1f").unwrap();
    let token = |sq: &str| {
        let p = swapped.piece_at(swapped.variant().dims.parse_square(sq).unwrap()).unwrap();
        swapped.variant().piece_token(p)
    };
    let rank1: Vec<String> = ["a1", "b1", "c1", "d1", "e1", "l1", "m1", "n1", "o1", "p1"].map(token).to_vec();
    assert_eq!(rank1, ["(GW)", "(HAW)", "(PR)", "(GO)", "(SA)", "(CI)", "(ST)", "(MA)", "(HOO)", "(FH)"]);
    let rank16: Vec<String> =
        ["p16", "o16", "n16", "m16", "l16", "e16", "d16", "c16", "b16", "a16"].map(token).to_vec();
    assert_eq!(rank16, ["(gw)", "(haw)", "(pr)", "(go)", "(sa)", "(ci)", "(st)", "(ma)", "(hoo)", "(fh)"]);
    assert_eq!(token("f1"), "(TOU)", "pair 5 keeps its order");
    // Bit 7 (the fixed Regal pair) and bits 38-63 must be 0; bits 0-37 but 7 are all read.
    let e = Position::from_setup_text(Arc::clone(&v), "setup:80")
        .map(|_| "accepted".to_string())
        .unwrap_or_else(|e| e.to_string());
    assert!(
        e.contains("bit 7 must be 0"),
        "setup:80 {e}: configs/variants/jupiter.toml's [setup] needs `mask_skip_bits = [7]` (§2.3 rule 4)"
    );
    // Bit 8 is the Artillery pair's (ply 8, after the skipped bit 7).
    let artillery = Position::from_setup_text(Arc::clone(&v), "setup:100").unwrap();
    let a2 = artillery.piece_at(artillery.variant().dims.parse_square("a2").unwrap()).unwrap();
    assert_eq!(artillery.variant().piece_token(a2), "(CBO)");
    let e = Position::from_setup_text(Arc::clone(&v), "setup:4000000000").unwrap_err().to_string();
    assert!(e.contains("bit 38 must be 0"), "{e}");
    assert!(Position::from_setup_text(Arc::clone(&v), "setup:3fffffff7f").is_ok());
}

// ---------------------------------------------------------------------------------------------
// Doubled turns of the real generator (E26) in move text and move lists
// ---------------------------------------------------------------------------------------------

fn jupiter() -> Arc<Variant> {
    Variant::load(concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/variants/jupiter.toml"))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// E26: Blue Dbl h1, W h8, P g8, K b3; Tan P h9, K a16; Blue to move.
const E26: &str = "k15/16/16/16/16/16/16/7p8/6PW8/16/16/16/16/1K14/16/7(DBL)8 w";

#[test]
fn e26_every_legal_move_prints_once_and_parses_back() {
    let mut pos = Position::from_fen(jupiter(), E26).unwrap_or_else(|e| panic!("{e}"));
    let mut moves = fairyzero_rules::MoveList::new();
    pos.legal_moves(&mut moves);
    let texts: Vec<String> = moves.iter().map(|m| pos.move_to_string(m)).collect();
    for text in ["h8h9,h9h10", "h8h9,h9h8", "h8h7,h7i7", "h8i8,i8i9", "pass"] {
        assert!(texts.iter().any(|t| t == text), "{text} missing from {texts:?}");
    }
    let unique: std::collections::HashSet<&String> = texts.iter().collect();
    assert_eq!(unique.len(), texts.len(), "{texts:?}");
    for (m, text) in moves.iter().zip(&texts) {
        assert_eq!(pos.parse_move(text), Ok(*m), "{text}");
    }
}

/// docs/notation.md, move lists: `a,b` is one doubled turn when it is legal, two turns
/// otherwise; whitespace always separates turns.
#[test]
fn e26_move_lists_read_a_legal_pair_as_one_doubled_turn() {
    let start = Position::from_fen(jupiter(), E26).unwrap();
    let occupant = |pos: &Position, sq: &str| pos.piece_at(pos.variant().dims.parse_square(sq).unwrap());

    let mut doubled = start.clone();
    doubled.play_moves("h8h9,h9h10").unwrap();
    assert_eq!(doubled.ply(), 1, "one turn");
    assert!(occupant(&doubled, "h9").is_none() && occupant(&doubled, "h10").is_some());

    let mut two_turns = start.clone();
    two_turns.play_moves("h8h7,a16a15").unwrap();
    assert_eq!(two_turns.ply(), 2, "h8h7,a16a15 is no doubled turn: Blue's step, then Tan's");

    let mut then_more = start.clone();
    then_more.play_moves("h8h7,h7g7,a16a15 b3b4").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(then_more.ply(), 3);

    let mut spaced = start;
    let e = spaced.play_moves("h8h7 h7h6").unwrap_err();
    assert_eq!(e.text, "h7h6", "whitespace separates turns: h7h6 would be Tan's move");
}
