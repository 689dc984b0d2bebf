//! A hand-derived move-list test for every Jupiter piece type that plain Betza (or a power that
//! Typhoon already uses) expresses: the Jupiter-only Betza pieces (dossier §3.4), the three 1999
//! pieces of the Queenlet pair (§3.5) and the 68 types shared with Typhoon (§3.6, typhoon.md §3).
//!
//! Every expected list below was derived from the dossier's words, square by square, on a
//! constructed position; none was copied from the generator. A case names its pieces as
//! `TOKEN@square` (upper case = Blue, lower case = Tan); Blue's King on p1 and Tan's King on a16
//! are always added, and a Wazir filler (Blue p3, Tan a14) is added to a side that would
//! otherwise be bare (§7 L2). The side to move is the owner of the examined piece.
//!
//! Directional pieces are also checked as Tan: Tan is Blue turned 180° (§1), so the Tan case is
//! the Blue case with every square rotated and every colour swapped, expected moves included.
//! Promotion (Blue ranks 11-16, Tan 1-6) is kept out of most positions and checked on purpose in
//! a few (`+` = the promoting version of a move, §9.3).

mod support;

use std::panic::{catch_unwind, AssertUnwindSafe};

use fairyzero_rules::{MoveKind, MoveList};
use support::jupiter::jupiter_position;

const SIZE: usize = 16;

/// One examined piece: its token, the pieces of the position, its square and its complete move
/// list in the dossier's text form (§9.3), whitespace separated.
struct Case {
    token: &'static str,
    pieces: &'static str,
    from: &'static str,
    moves: &'static str,
    /// Also check the 180°-rotated position with Tan to move (directional pieces).
    tan_too: bool,
}

const fn case(token: &'static str, pieces: &'static str, from: &'static str, moves: &'static str) -> Case {
    Case { token, pieces, from, moves, tan_too: false }
}

const fn both(token: &'static str, pieces: &'static str, from: &'static str, moves: &'static str) -> Case {
    Case { token, pieces, from, moves, tan_too: true }
}

fn parse_square(name: &str) -> (usize, usize) {
    let file = (name.as_bytes()[0] - b'a') as usize;
    let rank: usize = name[1..].parse().unwrap_or_else(|_| panic!("bad square {name}"));
    assert!(file < SIZE && (1..=SIZE).contains(&rank), "bad square {name}");
    (file, rank - 1)
}

fn square_name((file, rank): (usize, usize)) -> String {
    format!("{}{}", (b'a' + file as u8) as char, rank + 1)
}

fn rotate_square(name: &str) -> String {
    let (file, rank) = parse_square(name);
    square_name((SIZE - 1 - file, SIZE - 1 - rank))
}

/// Rotates every square named inside a move string (`e4d5xe5`, `e5e5>e6`, `pass`).
fn rotate_move(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let digits = bytes[i + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
        if (b'a'..=b'p').contains(&c) && digits > 0 {
            out.push_str(&rotate_square(&text[i..i + 1 + digits]));
            i += 1 + digits;
        } else {
            out.push(c as char);
            i += 1;
        }
    }
    out
}

/// `(token, square)` pairs of a case, the token's case giving the colour.
fn placements(pieces: &str) -> Vec<(String, String)> {
    pieces
        .split_whitespace()
        .map(|p| {
            let (token, sq) = p.split_once('@').unwrap_or_else(|| panic!("bad placement {p}"));
            (token.to_string(), sq.to_string())
        })
        .collect()
}

fn is_blue(token: &str) -> bool {
    token.chars().any(|c| c.is_ascii_uppercase())
}

/// The position string: the case's pieces, both Kings, and fillers for a side that would be bare.
fn position_string(pieces: &[(String, String)], blue_to_move: bool) -> String {
    let mut all: Vec<(String, String)> = pieces.to_vec();
    all.push(("K".into(), "p1".into()));
    all.push(("k".into(), "a16".into()));
    if all.iter().filter(|(t, _)| is_blue(t)).count() < 2 {
        all.push(("W".into(), "p3".into()));
    }
    if all.iter().filter(|(t, _)| !is_blue(t)).count() < 2 {
        all.push(("w".into(), "a14".into()));
    }
    support::jupiter::position_string(all.into_iter().map(|(token, sq)| (sq, token)), blue_to_move)
}

/// The sorted move strings of the piece on `from` (and the pass, which has no square).
fn generated(fen: &str, from: &str) -> Vec<String> {
    let pos = jupiter_position(fen);
    let d = pos.variant().dims;
    let from = d.parse_square(from).unwrap();
    let mut moves = MoveList::new();
    pos.clone().legal_moves(&mut moves);
    let mut out: Vec<String> = moves
        .iter()
        .filter(|m| m.kind == MoveKind::Pass || (m.from == from && m.kind != MoveKind::Setup))
        .map(|m| pos.move_to_string(m))
        .collect();
    out.sort();
    out
}

/// Checks one position; returns a description of the difference.
fn check_one(label: &str, pieces: &[(String, String)], from: &str, expected: Vec<String>) -> Option<String> {
    let mover = pieces.iter().find(|(_, sq)| sq == from).unwrap_or_else(|| panic!("{label}: nothing on {from}"));
    let fen = position_string(pieces, is_blue(&mover.0));
    let mut expected = expected;
    expected.sort();
    let dup = expected.windows(2).find(|w| w[0] == w[1]);
    assert!(dup.is_none(), "{label}: expectation lists {:?} twice", dup.unwrap()[0]);
    let got = match catch_unwind(AssertUnwindSafe(|| generated(&fen, from))) {
        Ok(got) => got,
        Err(e) => {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            return Some(format!("{label} on {from}: does not load/generate: {msg}\n    fen {fen}"));
        }
    };
    if got == expected {
        return None;
    }
    let missing: Vec<&String> = expected.iter().filter(|m| !got.contains(m)).collect();
    let extra: Vec<&String> = got.iter().filter(|m| !expected.contains(m)).collect();
    Some(format!("{label} on {from}: missing {missing:?} extra {extra:?}\n    fen {fen}"))
}

/// Checks every case (and its Tan rotation) and reports all failures at once.
fn run(family: &str, cases: &[Case]) {
    let mut failures = Vec::new();
    let mut checked = 0;
    for c in cases {
        let pieces = placements(c.pieces);
        let expected: Vec<String> = c.moves.split_whitespace().map(str::to_string).collect();
        assert!(
            pieces.iter().any(|(t, sq)| sq == c.from && t.eq_ignore_ascii_case(c.token)),
            "{}: the case does not put {} on {}",
            c.token,
            c.token,
            c.from
        );
        for m in &expected {
            assert!(m == "pass" || m.starts_with(c.from), "{}: move {m} does not start on {}", c.token, c.from);
        }
        failures.extend(check_one(c.token, &pieces, c.from, expected.clone()));
        checked += 1;
        if c.tan_too {
            let rotated: Vec<(String, String)> = pieces
                .iter()
                .map(|(t, sq)| {
                    let t = if is_blue(t) { t.to_ascii_lowercase() } else { t.to_ascii_uppercase() };
                    (t, rotate_square(sq))
                })
                .collect();
            let expected = expected.iter().map(|m| rotate_move(m)).collect();
            let label = format!("Tan {} (rotated)", c.token);
            failures.extend(check_one(&label, &rotated, &rotate_square(c.from), expected));
            checked += 1;
        }
    }
    assert!(
        failures.is_empty(),
        "{family}: {} of {checked} positions differ from the hand-derived lists:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// Jupiter-only pieces that plain Betza expresses (§3.4)
// ---------------------------------------------------------------------------------------------

const JUPITER_ONLY: &[Case] = &[
    // Cardinal = Bishop + Knight. NE slide stops on the enemy f6; SE ends before the friend e1;
    // the friend on e4 takes a Knight square.
    case(
        "CAR",
        "CAR@c3 w@f6 W@e1 W@e4",
        "c3",
        "c3d4 c3e5 c3f6 c3b4 c3a5 c3d2 c3b2 c3a1 c3a2 c3a4 c3b1 c3b5 c3d1 c3d5 c3e2",
    ),
    // Marshall = Rook + Knight.
    case(
        "MAR",
        "MAR@c3 W@c6 w@g3",
        "c3",
        "c3c4 c3c5 c3c2 c3c1 c3b3 c3a3 c3d3 c3e3 c3f3 c3g3 c3a2 c3a4 c3b1 c3b5 c3d1 c3d5 c3e2 c3e4",
    ),
    // Thisaway: Alfil (leaps over f6), W forward/back, sideways D, the (±2,±1) leaps.
    both("THI", "THI@e5 w@g7 W@c5 W@f6", "e5", "e5c3 e5g3 e5c7 e5g7 e5e6 e5e4 e5g5 e5c4 e5c6 e5g4 e5g6"),
    // Thataway: Alfil, W sideways, D forward/back (over the friend e6), the (±1,±2) leaps.
    both("THA", "THA@e5 w@e7 W@d3 W@e6", "e5", "e5c3 e5g3 e5c7 e5g7 e5d5 e5f5 e5e7 e5e3 e5d7 e5f7 e5f3"),
    // West Wind: vR3, R to the right, both right diagonals, Knight leaps with a leftward part.
    both(
        "WWI",
        "WWI@e5 w@e7 W@h5 w@h8 W@c4",
        "e5",
        "e5e6 e5e7 e5e4 e5e3 e5e2 e5f5 e5g5 e5f6 e5g7 e5h8 e5f4 e5g3 e5h2 e5i1 e5c6 e5d7 e5d3",
    ),
    // East Wind: vR3, R to the left, both left diagonals, one step right, rightward Camel leaps.
    both(
        "EWI",
        "EWI@h5 W@h3 w@d5 W@e8 w@k6",
        "h5",
        "h5h6 h5h7 h5h8 h5h4 h5g5 h5f5 h5e5 h5d5 h5g6 h5f7 h5g4 h5f3 h5e2 h5d1 h5i5 h5k6 h5k4 h5i8 h5i2",
    ),
    // Dragon Pony = W + B3.
    // (B3 stops on g7, is cut by the friend c3, ends before a9, i1 and i9; friend on e4.)
    case("DRP", "DRP@e5 w@g7 W@c3 W@e4", "e5", "e5e6 e5d5 e5f5 e5f6 e5g7 e5d6 e5c7 e5b8 e5f4 e5g3 e5h2 e5d4"),
    // Dragon Duke = F + R3.
    // (R3 ends before e9, e1 and a5, stops on g5; friend on d4.)
    case("DRD", "DRD@e5 w@g5 W@d4", "e5", "e5d6 e5f6 e5f4 e5e6 e5e7 e5e8 e5e4 e5e3 e5e2 e5d5 e5c5 e5b5 e5f5 e5g5"),
    // Right General: F + forward, back and LEFT steps (nothing to the right).
    both("RTG", "RTG@e5 w@d5 W@f4", "e5", "e5f6 e5d6 e5d4 e5e6 e5e4 e5d5"),
    // Left General: F + forward and back steps + unlimited slide to the RIGHT (none left).
    both("LFG", "LFG@e5 w@i5 W@d6", "e5", "e5f6 e5f4 e5d4 e5e6 e5e4 e5f5 e5g5 e5h5 e5i5"),
    // Whale: Rook forward and back + Bishop on both backward diagonals.
    both("WHL", "WHL@e5 w@e9 W@e2 w@c3", "e5", "e5e6 e5e7 e5e8 e5e9 e5e4 e5e3 e5d4 e5c3 e5f4 e5g3 e5h2 e5i1"),
    // White Horse: Rook forward and back + Bishop on both forward diagonals.
    both("WHH", "WHH@e5 w@e9 W@e2 W@h8", "e5", "e5e6 e5e7 e5e8 e5e9 e5e4 e5e3 e5d6 e5c7 e5b8 e5a9 e5f6 e5g7"),
    // Vertical Mover: sideways step + unlimited vertical slide.
    both("VTM", "VTM@e5 W@d5 w@e8", "e5", "e5f5 e5e6 e5e7 e5e8 e5e4 e5e3 e5e2 e5e1"),
    // Side Mover: vertical step + unlimited sideways slide.
    both("SDM", "SDM@e5 W@e6 w@h5", "e5", "e5e4 e5d5 e5c5 e5b5 e5a5 e5f5 e5g5 e5h5"),
    // Blue Gecko: fW, forward-right slide <=4 (i9; j10 is 5 away), back-right step, back slide
    // <=2 (friend e3), left slide <=2 (captures c5), forward-left step; nothing right or back-left.
    both("BLG", "BLG@e5 w@j10 W@e3 w@c5", "e5", "e5e6 e5f6 e5g7 e5h8 e5i9 e5f4 e5e4 e5d5 e5c5 e5d6"),
    // White Fox: forward slide <=2 (captures e8), right step, back-right slide <=4 (i2; j1 is 5
    // away), back-left step, left slide <=2 (friend c6), forward-left step; nothing straight back
    // or forward-right.
    both("WHF", "WHF@e6 w@j1 W@c6 w@e8", "e6", "e6e7 e6e8 e6f6 e6f5 e6g4 e6h3 e6i2 e6d5 e6d6 e6d7"),
    // Boxer: leaps W, F, (3,0), C, Z, (3,3); near the corner most leaps fall off the board.
    case(
        "BOX",
        "BOX@c3 w@f6 W@d2",
        "c3",
        "c3c4 c3c2 c3b3 c3d3 c3b4 c3d4 c3b2 c3c6 c3f3 c3f4 c3f2 c3d6 c3b6 c3f5 c3f1 c3e6 c3a6 c3f6",
    ),
    // Foursquare: leaps F, N, C, Z, (3,3).
    case(
        "FSQ",
        "FSQ@c3 w@f6 W@d2",
        "c3",
        "c3b4 c3d4 c3b2 c3a2 c3a4 c3b1 c3b5 c3d1 c3d5 c3e2 c3e4 c3f4 c3f2 c3d6 c3b6 c3f5 c3f1 c3e6 c3a6 c3f6",
    ),
    // Soaring Eagle: Rook, backward Bishop, Raven component on the forward diagonals (f6 and g7
    // enemies: step capture, leap capture, igui, hop-capture of both), pass.
    both(
        "SEG",
        "SEG@e5 w@e8 W@h5 w@f6 w@g7",
        "e5",
        "e5e6 e5e7 e5e8 e5e4 e5e3 e5e2 e5e1 e5f5 e5g5 e5d5 e5c5 e5b5 e5a5 e5d4 e5c3 e5b2 e5a1 \
         e5f4 e5g3 e5h2 e5i1 e5f6 e5g7 e5e5xf6 e5g7xf6 e5d6 e5c7 pass",
    ),
    // Horned Falcon: Bishop, Rook back and sideways, Parrot component straight forward (enemy
    // e6, e7 empty: step capture, leap, igui, hop-capture), pass.
    both(
        "HFL",
        "HFL@e5 W@g7 w@h5 w@e6",
        "e5",
        "e5f6 e5d6 e5c7 e5b8 e5a9 e5f4 e5g3 e5h2 e5i1 e5d4 e5c3 e5b2 e5a1 e5e4 e5e3 e5e2 e5e1 \
         e5d5 e5c5 e5b5 e5a5 e5f5 e5g5 e5h5 e5e6 e5e7 e5e5xe6 e5e7xe6 pass",
    ),
    // Hippogriff: Knight + grasshopper (over e8 to e9, over e3 to e2, over h5 capturing i5; not
    // over c7 onto the friend b8).
    case(
        "HGR",
        "HGR@e5 w@e8 W@e3 W@h5 w@i5 w@c7 W@b8 w@g6",
        "e5",
        "e5c4 e5c6 e5d3 e5d7 e5f3 e5f7 e5g4 e5g6 e5e9 e5e2 e5i5",
    ),
    // Werewolf: King + Nightrider-hopper: over g9 (2nd Knight point) to h11, over g6 to i7, over
    // d3 to c1; not over c4 onto the friend a3.
    case(
        "WWF",
        "WWF@e5 W@g9 w@g6 w@c4 W@a3 w@d3 W@d5 w@f6",
        "e5",
        "e5d4 e5d6 e5e4 e5e6 e5f4 e5f5 e5f6 e5h11 e5i7 e5c1",
    ),
    // Flying Dragon = B2.
    case("FLD", "FLD@e5 w@f6 W@c3", "e5", "e5f6 e5d6 e5c7 e5f4 e5g3 e5d4"),
    // Violent Ox = R2.
    case("VOX", "VOX@e5 w@e6 W@c5", "e5", "e5e6 e5e4 e5e3 e5d5 e5f5 e5g5"),
    // Kylin = F + D (the D leaps over the friend c4).
    case("KYL", "KYL@c3 W@c4 w@c5 W@d2", "c3", "c3b4 c3d4 c3b2 c3c5 c3c1 c3a3 c3e3"),
    // Phoenix = W + A (the A leaps over the friend d4).
    case("PHX", "PHX@c3 W@d4 w@e5 W@c2", "c3", "c3c4 c3b3 c3d3 c3e5 c3a5 c3e1 c3a1"),
    // Queen Cannon: Queen + cannon capture over any hurdle (c6 friend -> c9; f3 enemy -> h3 is
    // a friend: none; e5 enemy -> nothing beyond).
    case(
        "QCN",
        "QCN@c3 W@c6 w@c9 w@f3 W@h3 w@e5",
        "c3",
        "c3c4 c3c5 c3c9 c3d3 c3e3 c3f3 c3c2 c3c1 c3b3 c3a3 c3d4 c3e5 c3b4 c3a5 c3d2 c3e1 c3b2 c3a1",
    ),
    // Ancient Emperor: leaps W, D, A.
    case("AEM", "AEM@c3 W@c4 w@e5", "c3", "c3c2 c3b3 c3d3 c3c5 c3c1 c3a3 c3e3 c3e5 c3a5 c3e1 c3a1"),
    // Frog: King + (3,0) and (3,3) leaps.
    case("FRG", "FRG@c3 W@d3 w@f6", "c3", "c3b2 c3b3 c3b4 c3c2 c3c4 c3d2 c3d4 c3c6 c3f3 c3f6"),
    // Rankrider = sideways Rook.
    case("RRD", "RRD@e5 W@b5 w@h5", "e5", "e5d5 e5c5 e5f5 e5g5 e5h5"),
    // Filerider = vertical Rook.
    case("FRD", "FRD@e3 w@e7", "e3", "e3e4 e3e5 e3e6 e3e7 e3e2 e3e1"),
    // Water Buffalo: Bishop + vR2 + unlimited sideways Rook.
    case(
        "WBF",
        "WBF@e5 w@g7 W@c3 w@j5",
        "e5",
        "e5f6 e5g7 e5d6 e5c7 e5b8 e5a9 e5f4 e5g3 e5h2 e5i1 e5d4 e5e6 e5e7 e5e4 e5e3 \
         e5d5 e5c5 e5b5 e5a5 e5f5 e5g5 e5h5 e5i5 e5j5",
    ),
    // Right Knight: (1,2) (2,-1) (-1,-2) (-2,1) only.
    both("RTN", "RTN@e5 w@f7 W@c6", "e5", "e5f7 e5g4 e5d3"),
    // Left Knight: (-1,2) (2,1) (1,-2) (-2,-1) only.
    both("LFN", "LFN@e5 w@g6 W@f3", "e5", "e5d7 e5g6 e5c4"),
    // Golden Bird: B3 + sideways R2 + unlimited vertical Rook.
    case(
        "GBD",
        "GBD@e5 W@g7 w@e9",
        "e5",
        "e5f6 e5d6 e5c7 e5b8 e5f4 e5g3 e5h2 e5d4 e5c3 e5b2 e5d5 e5c5 e5f5 e5g5 \
         e5e6 e5e7 e5e8 e5e9 e5e4 e5e3 e5e2 e5e1",
    ),
    // Great Dragon: B3 + unlimited sideways Rook + vertical R2.
    case(
        "GDR",
        "GDR@e5 w@c3 W@i5",
        "e5",
        "e5f6 e5g7 e5h8 e5d6 e5c7 e5b8 e5f4 e5g3 e5h2 e5d4 e5c3 e5d5 e5c5 e5b5 e5a5 \
         e5f5 e5g5 e5h5 e5e6 e5e7 e5e4 e5e3",
    ),
    // Eastern Barbarian: vR2 + forward diagonal steps + sideways steps.
    both("EBA", "EBA@e5 w@e6 W@d5", "e5", "e5e6 e5e4 e5e3 e5f6 e5d6 e5f5"),
    // Western Barbarian: sR2 + vertical steps + forward diagonal steps.
    both("WBA", "WBA@e5 w@f5 W@e4", "e5", "e5d5 e5c5 e5f5 e5e6 e5f6 e5d6"),
    // Twist: W + steps (1,1) (-1,-1) + leaps (2,1) (-2,-1).
    both("TWI", "TWI@e5 w@g6 W@d5", "e5", "e5e6 e5e4 e5f5 e5f6 e5d4 e5g6 e5c4"),
    // Tango: W + steps (-1,1) (1,-1) + leaps (-1,2) (1,-2).
    both("TGO", "TGO@e5 w@d7 W@e6", "e5", "e5e4 e5d5 e5f5 e5d6 e5f4 e5d7 e5f3"),
    // Mad Hatter: moves as a Queen (never capturing), captures only as a Knight (d5, not the
    // friend e2; no Knight move to an empty square).
    case(
        "MDH",
        "MDH@c3 W@c7 w@f3 w@e5 w@d5 W@e2",
        "c3",
        "c3c4 c3c5 c3c6 c3d3 c3e3 c3c2 c3c1 c3b3 c3a3 c3d4 c3b4 c3a5 c3d2 c3e1 c3b2 c3a1 c3d5",
    ),
    // March Hare: moves as a Knight (never onto d5's enemy), captures only as a Queen.
    case("MRH", "MRH@c3 w@d5 W@e4 w@c6 W@e3 w@f6", "c3", "c3a2 c3a4 c3b1 c3b5 c3d1 c3e2 c3c6 c3f6"),
    // Berolina: moves diagonally forward, captures straight forward (not diagonally).
    both("BER", "BER@e5 w@e6 w@f6", "e5", "e5d6 e5e6"),
    both("BER", "BER@e5", "e5", "e5d6 e5f6"),
    // Mock Turtle: moves as an Alfil (not onto g7's enemy), captures as R4 (e8, c5; j5 is 5 away).
    case("MKT", "MKT@e5 w@g7 W@f6 w@e8 w@j5 w@c5 W@e3", "e5", "e5c3 e5g3 e5c7 e5e8 e5c5"),
    // Go-Between: one step forward or back.
    both("GBT", "GBT@e5 w@e6", "e5", "e5e6 e5e4"),
    // Go-Along: one step left or right.
    both("GAL", "GAL@e5 W@f5", "e5", "e5d5"),
    // Sultan: F + Camel leaps.
    case("SUL", "SUL@c3 w@f4 W@b2", "c3", "c3b4 c3d4 c3d2 c3f4 c3f2 c3d6 c3b6"),
    // Blunderbuss: non-capturing R4 (north stops before the friend e7), captures over exactly
    // one hurdle at distance 2-4 (e9 over e7; e3 over e4; a5 over d5; never the adjacent e4, d5).
    case("BLN", "BLN@e5 W@e7 w@e9 w@j5 w@e4 w@e3 w@d5 w@a5", "e5", "e5e6 e5e9 e5f5 e5g5 e5h5 e5i5 e5e3 e5a5"),
    // Crossbow: captures as B4 (c7, b2), moves only over exactly one hurdle at distance 2-4
    // (over f6 to g7 h8 i9; over c7 to b8 a9; over b2 to a1).
    case("CBO", "CBO@e5 W@f6 w@c7 w@b2", "e5", "e5g7 e5h8 e5i9 e5c7 e5b8 e5a9 e5b2 e5a1"),
];

#[test]
fn jupiter_only_betza_pieces_match_hand_derived_lists() {
    run("Jupiter-only pieces", JUPITER_ONLY);
}

// ---------------------------------------------------------------------------------------------
// The 1999 Queenlet pair (§3.5)
// ---------------------------------------------------------------------------------------------

const PIECES_1999: &[Case] = &[
    // Cicada: no step at all; Q line to distance 2 or 3 over at least one piece (e7 and e8 over
    // e6; h5 over g5; e2 over e4 and e3), never capturing the adjacent e4.
    case("CI", "CI@e5 W@e6 w@e8 w@g5 w@e4 W@e3", "e5", "e5e7 e5e8 e5h5 e5e2"),
    // Salamander: non-capturing Q4 (no landing condition in 1999), captures one King step only.
    case(
        "SA",
        "SA@e5 w@g5 w@e4 W@c5 w@d4",
        "e5",
        "e5e6 e5e7 e5e8 e5e9 e5f5 e5e4 e5d5 e5f6 e5g7 e5h8 e5i9 e5d6 e5c7 e5b8 e5a9 \
         e5f4 e5g3 e5h2 e5i1 e5d4",
    ),
    // Typhoon: F and A leaps; orthogonal walk <=3 capturing every enemy up to its stop.
    case(
        "TY",
        "TY@e5 W@f6 w@g7 w@e6 w@e8 W@g5 w@d5 w@c5 w@b5",
        "e5",
        "e5d6 e5f4 e5d4 e5g7 e5c7 e5g3 e5c3 e5e6 e5e7xe6 e5e8xe6 e5f5 e5e4 e5e3 e5e2 \
         e5d5 e5c5xd5 e5b5xc5xd5",
    ),
];

#[test]
fn queenlet_pair_1999_matches_hand_derived_lists() {
    run("1999 Cicada/Salamander/Typhoon", PIECES_1999);
}

// ---------------------------------------------------------------------------------------------
// Pieces shared with Typhoon (§3.6; definitions in typhoon.md §3 and scirocco.md §3.3)
// ---------------------------------------------------------------------------------------------

const SHARED_WITH_TYPHOON: &[Case] = &[
    // Fire Horse: forward Rook + the four backward Knight leaps.
    both("FH", "FH@e5 w@e8 W@c4", "e5", "e5e6 e5e7 e5e8 e5d3 e5f3 e5g4"),
    // Ghost Warrior: forward Rook + backward diagonal steps.
    both("GW", "GW@e5 w@e7 W@f4", "e5", "e5e6 e5e7 e5d4"),
    // Flying Ox: Bishop + vertical Rook.
    case(
        "FO",
        "FO@e5 w@g7 W@c7 w@e9",
        "e5",
        "e5f6 e5g7 e5d6 e5f4 e5g3 e5h2 e5i1 e5d4 e5c3 e5b2 e5a1 e5e6 e5e7 e5e8 e5e9 e5e4 e5e3 e5e2 e5e1",
    ),
    // Free Boar: Bishop + sideways Rook.
    case(
        "FB",
        "FB@e5 w@g7 W@c7 w@h5",
        "e5",
        "e5f6 e5g7 e5d6 e5f4 e5g3 e5h2 e5i1 e5d4 e5c3 e5b2 e5a1 e5d5 e5c5 e5b5 e5a5 e5f5 e5g5 e5h5",
    ),
    // Marquis = W + N.
    case("MA", "MA@c3 w@d5 W@c4", "c3", "c3c2 c3b3 c3d3 c3a2 c3a4 c3b1 c3b5 c3d1 c3d5 c3e2 c3e4"),
    // Priest = F + N.
    case("PR", "PR@c3 W@d4 w@e2", "c3", "c3b4 c3b2 c3d2 c3a2 c3a4 c3b1 c3b5 c3d1 c3d5 c3e2 c3e4"),
    // Abbot = N + B4 (h8 is out of range).
    case(
        "AB",
        "AB@c3 W@e4 w@b1",
        "c3",
        "c3a2 c3a4 c3b1 c3b5 c3d1 c3d5 c3e2 c3d4 c3e5 c3f6 c3g7 c3b4 c3a5 c3d2 c3e1 c3b2 c3a1",
    ),
    // Duke = N + R4 (g3 is the 4th square, h3 out of range).
    case(
        "DU",
        "DU@c3 W@e4 w@c5",
        "c3",
        "c3a2 c3a4 c3b1 c3b5 c3d1 c3d5 c3e2 c3c4 c3c5 c3c2 c3c1 c3b3 c3a3 c3d3 c3e3 c3f3 c3g3",
    ),
    // Stork: Alfil + capture-only W (e6 enemy; f5, e4 empty; d5 friend).
    case("ST", "ST@e5 w@e6 W@d5 w@g7", "e5", "e5c3 e5g3 e5c7 e5g7 e5e6"),
    // Goat: Dabbaba + move-only F (not onto the enemy f6).
    case("GO", "GO@e5 w@f6 w@e7 W@g5", "e5", "e5e7 e5e3 e5c5 e5d6 e5f4 e5d4"),
    // Queen.
    case(
        "Q",
        "Q@c3 W@c6 w@f3 w@e5",
        "c3",
        "c3c4 c3c5 c3d3 c3e3 c3f3 c3c2 c3c1 c3b3 c3a3 c3d4 c3e5 c3b4 c3a5 c3d2 c3e1 c3b2 c3a1",
    ),
    // Lioness: every square within distance 2.
    case("LI", "LI@b2 W@c3 w@d4", "b2", "b2a1 b2a2 b2a3 b2a4 b2b1 b2b3 b2b4 b2c1 b2c2 b2c4 b2d1 b2d2 b2d3 b2d4"),
    // Genie: Q3 + igui on the enemy neighbours e6 and f6.
    case(
        "GE",
        "GE@e5 w@e6 W@e3 w@f6",
        "e5",
        "e5e6 e5e5xe6 e5f5 e5g5 e5h5 e5e4 e5d5 e5c5 e5b5 e5f6 e5e5xf6 e5d6 e5c7 e5b8 \
         e5f4 e5g3 e5h2 e5d4 e5c3 e5b2",
    ),
    // Gold General: all neighbours but the backward diagonals.
    both("GG", "GG@e5 W@d6 w@e6", "e5", "e5e6 e5e4 e5d5 e5f5 e5f6"),
    // Ferocious Leopard: diagonals + forward and back.
    both("FL", "FL@e5 W@f4", "e5", "e5d6 e5f6 e5d4 e5e6 e5e4"),
    // Horned Owl: B4, sideways and backward D, Parrot powers straight forward (e6, e7 enemies),
    // pass.
    both(
        "HO",
        "HO@e5 w@e6 w@e7",
        "e5",
        "e5f6 e5g7 e5h8 e5i9 e5d6 e5c7 e5b8 e5a9 e5f4 e5g3 e5h2 e5i1 e5d4 e5c3 e5b2 e5a1 e5c5 e5g5 e5e3 \
         e5e6 e5e7 e5e5xe6 e5e7xe6 pass",
    ),
    // Diving Osprey: R4, backward A, Raven powers on the forward diagonals (f6 enemy, g7
    // friend: step capture and igui only), pass.
    both(
        "DO",
        "DO@e5 w@e7 w@f6 W@g7",
        "e5",
        "e5e6 e5e7 e5e4 e5e3 e5e2 e5e1 e5d5 e5c5 e5b5 e5a5 e5f5 e5g5 e5h5 e5i5 e5c3 e5g3 \
         e5d6 e5c7 e5f6 e5e5xf6 pass",
    ),
    // King and Commoner: one King step.
    case("K", "K@e5 W@d5 w@f6", "e5", "e5d4 e5d6 e5e4 e5e6 e5f4 e5f5 e5f6"),
    case("CO", "CO@e5 W@d5 w@f6", "e5", "e5d4 e5d6 e5e4 e5e6 e5f4 e5f5 e5f6"),
    // Emperor: Q2 + Knight.
    case(
        "EM",
        "EM@e5 w@e6 W@f4",
        "e5",
        "e5e6 e5e4 e5e3 e5d5 e5c5 e5f5 e5g5 e5f6 e5g7 e5d6 e5c7 e5d4 e5c3 \
         e5d7 e5f7 e5c6 e5g6 e5c4 e5g4 e5d3 e5f3",
    ),
    // Emperor of Emperors: non-capturing leaps to every empty square of its 7x7 box, and shoots
    // the first piece of a Queen line when it is an enemy (b4, e2, a3; not past the friend d4).
    case(
        "EE",
        "EE@b2 w@b4 W@d4 w@e2 w@a3",
        "b2",
        "b2a1 b2a2 b2a4 b2a5 b2b1 b2b3 b2b5 b2c1 b2c2 b2c3 b2c4 b2c5 b2d1 b2d2 b2d3 b2d5 \
         b2e1 b2e3 b2e4 b2e5 b2b2xb4 b2b2xe2 b2b2xa3",
    ),
    // Wildebeest = N + C.
    case("WI", "WI@c3 w@d6 W@a4", "c3", "c3a2 c3b1 c3b5 c3d1 c3d5 c3e2 c3e4 c3f4 c3f2 c3d6 c3b6"),
    // Cuckoo: side and back W, forward D (over e6); converts the enemy ahead (e6), beside (d5)
    // and two behind (e3); captures or converts beside.
    both("CU", "CU@e5 w@e6 w@d5 w@e3 W@f5", "e5", "e5d5 e5e4 e5e7 e5e5~e6 e5e5~d5 e5e5~e3"),
    // Hummingbird: the Cuckoo's moves + swap with any piece on an orthogonal neighbour or two
    // ahead / two behind.
    both("HU", "HU@e5 w@e6 w@d5 w@e3 W@f5", "e5", "e5d5 e5e4 e5e7 e5e6^ e5d5^ e5f5^ e5e3^"),
    // Longleaper: non-capturing Queen; captures by jumping enemies with an empty square behind,
    // landing on any empty square before the next piece (not over the adjacent pair e4 e3).
    case(
        "LO",
        "LO@e5 w@e6 w@e9 W@e11 W@h5 w@e4 w@e3 w@f6 W@i9 w@f4",
        "e5",
        "e5e7xe6 e5e8xe6 e5e10xe6xe9 e5f5 e5g5 e5d5 e5c5 e5b5 e5a5 e5g7xf6 e5h8xf6 \
         e5d6 e5c7 e5b8 e5a9 e5g3xf4 e5h2xf4 e5i1xf4 e5d4 e5c3 e5b2 e5a1",
    ),
    // Immobilizer: non-capturing Queen.
    case("IM", "IM@b2 W@b5 w@f2 w@d4", "b2", "b2b3 b2b4 b2c2 b2d2 b2e2 b2b1 b2a2 b2c3 b2a3 b2c1 b2a1"),
    // Camel.
    case("C", "C@e5 w@h6 W@d2", "e5", "e5h6 e5h4 e5b6 e5b4 e5f8 e5d8 e5f2"),
    // Bishop's Dog = B3.
    case("BD", "BD@e5 w@g7 W@d4", "e5", "e5f6 e5g7 e5d6 e5c7 e5b8 e5f4 e5g3 e5h2"),
    // Squirrel = D + N + A.
    case("SQ", "SQ@e5 W@e7 w@g7", "e5", "e5e3 e5c5 e5g5 e5d7 e5f7 e5c6 e5g6 e5c4 e5g4 e5d3 e5f3 e5c7 e5g7 e5c3 e5g3"),
    // Centaur = K + N.
    case("CE", "CE@c3 W@c4 w@d5", "c3", "c3b2 c3b3 c3b4 c3c2 c3d2 c3d3 c3d4 c3a2 c3a4 c3b1 c3b5 c3d1 c3d5 c3e2 c3e4"),
    // Alfil (leaps over f6).
    case("A", "A@e5 W@f6 w@g7", "e5", "e5c3 e5g3 e5c7 e5g7"),
    // Dabbaba (leaps over e6).
    case("D", "D@e5 W@e6 w@e7 W@c5", "e5", "e5e7 e5e3 e5g5"),
    // Scirocco = W + B.
    case("SC", "SC@c3 W@c4 w@e5", "c3", "c3c2 c3b3 c3d3 c3d4 c3e5 c3b4 c3a5 c3d2 c3e1 c3b2 c3a1"),
    // Dragon Kite = F + R.
    case("DK", "DK@c3 w@c6 W@f3 W@b2", "c3", "c3b4 c3d4 c3d2 c3c4 c3c5 c3c6 c3c2 c3c1 c3b3 c3a3 c3d3 c3e3"),
    // Wazir and Firzan.
    case("W", "W@e5 w@e6 W@d5", "e5", "e5e6 e5e4 e5f5"),
    case("F", "F@e5 w@f6 W@d4", "e5", "e5d6 e5f6 e5f4"),
    // Zag: F + A + orthogonal hop-capture onto an empty square (over e6; not over f5 onto g5's
    // enemy; not over the friend e4).
    case("ZA", "ZA@e5 w@e6 w@f5 w@g5 W@e4 W@f6", "e5", "e5d6 e5d4 e5f4 e5c7 e5g7 e5c3 e5g3 e5e7xe6"),
    // Zig: W + D + diagonal hop-capture (over f6 to g7; not over d6 onto the friend c7).
    case("ZI", "ZI@e5 w@f6 w@d6 W@c7 W@e4", "e5", "e5e6 e5d5 e5f5 e5e7 e5e3 e5c5 e5g5 e5g7xf6"),
    // Otter: F + sideways R4 + forward step.
    both("OT", "OT@e5 w@c5 W@d4", "e5", "e5d6 e5f6 e5f4 e5d5 e5c5 e5f5 e5g5 e5h5 e5i5 e5e6"),
    // Beaver: sideways R4 + backward Rook + forward diagonal and straight steps.
    both("BE", "BE@e5 w@e3 W@f6", "e5", "e5d5 e5c5 e5b5 e5a5 e5f5 e5g5 e5h5 e5i5 e5e4 e5e3 e5d6 e5e6"),
    // Overtaker: non-capturing King step + hop-capture onto an empty square behind an enemy.
    case("OV", "OV@e5 w@e6 w@f6 w@g7 W@d5", "e5", "e5d4 e5d6 e5e4 e5f4 e5f5 e5e7xe6"),
    // Undertaker: King step to an empty square, capturing the enemy it moves away from.
    case("UN", "UN@e5 w@d5 W@f6 w@e4", "e5", "e5d4 e5d6 e5e6xe4 e5f4 e5f5xd5"),
    // Nightrider.
    case("NR", "NR@c3 w@e7 W@g5", "c3", "c3d5 c3e7 c3e4 c3b5 c3a7 c3a4 c3d1 c3e2 c3g1 c3b1 c3a2"),
    // Dayrider: non-capturing King step + Dabbaba-rider + Alfil-rider.
    case(
        "DA",
        "DA@c3 w@c7 W@g3 w@e5 w@b3",
        "c3",
        "c3b2 c3b4 c3c2 c3c4 c3d2 c3d3 c3d4 c3c5 c3c7 c3e3 c3c1 c3a3 c3e5 c3a5 c3e1 c3a1",
    ),
    // Chariot = R4.
    case("CH", "CH@c3 w@f3", "c3", "c3c4 c3c5 c3c6 c3c7 c3d3 c3e3 c3f3 c3c2 c3c1 c3b3 c3a3"),
    // Wagon: Rook that neither stops nor captures next door, blocked by any neighbour (f5, e4).
    case("WA", "WA@e5 w@e9 W@f5 w@c5 w@e4", "e5", "e5e7 e5e8 e5e9 e5c5"),
    // Octopus: empty diagonal step, then Rook away from the start (d2 occupied: nothing SE).
    case("OC", "OC@c3 w@f4 W@d6 w@b6 W@d2", "c3", "c3d4 c3e4 c3f4 c3d5 c3b4 c3a4 c3b5 c3b6 c3b2 c3a2 c3b1"),
    // Spider: empty orthogonal step, then Bishop away from the start (c2 occupied).
    case("SP", "SP@c3 w@e6 W@f5 W@c2", "c3", "c3c4 c3d5 c3e6 c3b5 c3a6 c3d3 c3e4 c3e2 c3f1 c3b3 c3a4 c3a2"),
    // Knight and Rook.
    case("N", "N@e5 w@d7 W@f7", "e5", "e5d7 e5c6 e5g6 e5c4 e5g4 e5d3 e5f3"),
    case("R", "R@c3 w@c6 W@f3", "c3", "c3c4 c3c5 c3c6 c3d3 c3e3 c3c2 c3c1 c3b3 c3a3"),
    // Silver and Copper General.
    both("SG", "SG@e5 w@e6 W@d4", "e5", "e5d6 e5f6 e5f4 e5e6"),
    both("CG", "CG@e5 W@d6", "e5", "e5f6 e5e6 e5e4"),
    // Vulture: every neighbour both ways; beyond, diagonal moves only, orthogonal captures only.
    case(
        "VU",
        "VU@e5 w@e8 w@f5 W@d5 w@h8 w@d6",
        "e5",
        "e5e6 e5e8 e5f5 e5e4 e5f6 e5g7 e5d6 e5f4 e5g3 e5h2 e5i1 e5d4 e5c3 e5b2 e5a1",
    ),
    // Ibis: every neighbour both ways; beyond, orthogonal moves only, diagonal captures only.
    case(
        "IB",
        "IB@e5 W@e9 w@g5 w@e4 w@g7 W@f4 w@d4",
        "e5",
        "e5e6 e5e7 e5e8 e5f5 e5e4 e5d5 e5c5 e5b5 e5a5 e5f6 e5g7 e5d6 e5d4",
    ),
    // Drunk Elephant: all neighbours but straight back. Blind Tiger: all but straight forward.
    both("DEL", "DEL@e5 w@f6 W@d5", "e5", "e5d4 e5d6 e5e6 e5f4 e5f5 e5f6"),
    both("BT", "BT@e5 W@e4 w@d6", "e5", "e5d4 e5d5 e5d6 e5f4 e5f5 e5f6"),
    // Elephant Prince: non-capturing King step; captures only by Knight (g6) or Alfil (c7).
    case("EP", "EP@e5 w@e6 W@d4 w@g6 w@c7", "e5", "e5d5 e5d6 e5e4 e5f4 e5f5 e5f6 e5g6 e5c7"),
    // Tiger Prince: non-capturing King step; captures only by Dabbaba (e3) or Knight (d7).
    case("TP", "TP@e5 W@e6 w@f5 w@e3 w@d7", "e5", "e5d4 e5d5 e5d6 e5e4 e5f4 e5f6 e5e3 e5d7"),
    // Fu: one step forward.
    both("FU", "FU@e5 w@e6", "e5", "e5e6"),
    // Zebra: (3,2) leaps.
    case("Z", "Z@e5 w@h7 W@c2", "e5", "e5h7 e5h3 e5b7 e5b3 e5g8 e5c8 e5g2"),
    // Pawn: forward step to an empty square, diagonal forward capture.
    both("P", "P@e5 w@d6 W@f6", "e5", "e5e6 e5d6"),
    both("P", "P@e5 w@e6", "e5", ""),
    // Tadpole: F and (3,0) move or capture; orthogonal neighbours capture only.
    case("TA", "TA@e5 w@e6 W@f6", "e5", "e5d6 e5d4 e5f4 e5e8 e5e2 e5b5 e5h5 e5e6"),
    // Guard: non-capturing W step, capturing F step.
    case("GU", "GU@e5 w@e6 w@f6", "e5", "e5e4 e5d5 e5f5 e5f6"),
    // Bishop.
    case("B", "B@c3 w@e5 W@b2", "c3", "c3d4 c3e5 c3b4 c3a5 c3d2 c3e1"),
    // Lantern: forward diagonal steps. Banner: forward and sideways steps.
    both("LA", "LA@e5 w@d6", "e5", "e5d6 e5f6"),
    both("BA", "BA@e5 W@f5", "e5", "e5e6 e5d5"),
    // Parrot: W, D, igui, orthogonal hop-capture (over e6 onto the enemy e7: both die), pass.
    case(
        "PA",
        "PA@e5 w@e6 w@e7 W@e4 w@e3 w@d5 W@c5",
        "e5",
        "e5e6 e5e7 e5e5xe6 e5e7xe6 e5f5 e5g5 e5e3 e5d5 e5e5xd5 pass",
    ),
    // Raven: the same on the diagonals.
    case("RA", "RA@e5 w@f6 W@f4 w@g3 w@d4 W@c3", "e5", "e5f6 e5g7 e5e5xf6 e5g7xf6 e5d6 e5c7 e5g3 e5d4 e5e5xd4 pass"),
    // Immobilization (typhoon.md §3.7): a Tan piece next to a Blue Immobilizer has only its
    // self-capture, and an immobilized Parrot gives no pass.
    case("N", "IM@e5 n@f6", "f6", "f6f6*"),
    case("PA", "IM@e5 pa@f6 w@a1", "f6", "f6f6*"),
];

#[test]
fn typhoon_shared_pieces_match_hand_derived_lists() {
    run("pieces shared with Typhoon", SHARED_WITH_TYPHOON);
}

// ---------------------------------------------------------------------------------------------
// Promotion (§6): unpromoted pieces may promote when a move starts or ends in the zone
// ---------------------------------------------------------------------------------------------

const PROMOTIONS: &[Case] = &[
    // Filerider from e8: the moves to ranks 11-16 exist plain and promoting.
    both(
        "FRD",
        "FRD@e8",
        "e8",
        "e8e9 e8e10 e8e11 e8e11+ e8e12 e8e12+ e8e13 e8e13+ e8e14 e8e14+ e8e15 e8e15+ e8e16 e8e16+ \
         e8e7 e8e6 e8e5 e8e4 e8e3 e8e2 e8e1",
    ),
    // Pawn on e10: step to e11 and capture on f11, each plain and promoting.
    both("P", "P@e10 w@f11", "e10", "e10e11 e10e11+ e10f11 e10f11+"),
    // A move that starts in the zone may promote even when it leaves it (Right General on h11).
    both(
        "RTG",
        "RTG@h11",
        "h11",
        "h11g12+ h11g12 h11i12 h11i12+ h11g10 h11g10+ h11i10 h11i10+ \
        h11h12 h11h12+ h11h10 h11h10+ h11g11 h11g11+",
    ),
    // A promoted piece never promotes again (Cardinal across the zone boundary).
    case(
        "CAR",
        "CAR@c9 W@e11",
        "c9",
        "c9d10 c9b10 c9a11 c9d8 c9e7 c9f6 c9g5 c9h4 c9i3 c9j2 c9k1 c9b8 c9a7 \
         c9a8 c9a10 c9b7 c9b11 c9d7 c9d11 c9e8 c9e10",
    ),
    // Hummingbird on e10 (§6.3: the swap is its own move and may promote): the D leap to e12
    // and the swap with e11 end in the zone; the other moves and swaps do not touch it.
    case("HU", "HU@e10 w@e11 W@d10 w@e8", "e10", "e10f10 e10e9 e10e12 e10e12+ e10e11^ e10e11^+ e10d10^ e10e8^"),
    // Cuckoo on e11: its moves start in the zone and may promote; a conversion never does.
    case("CU", "CU@e11 w@e12 W@f11", "e11", "e11d11 e11d11+ e11e10 e11e10+ e11e13 e11e13+ e11e11~e12"),
];

#[test]
fn promotion_versions_match_hand_derived_lists() {
    run("promotion", PROMOTIONS);
}

// ---------------------------------------------------------------------------------------------
// Tan written out by hand (not through the rotation helper) and the dossier's own examples of
// these pieces (§10: E16, E20, E21, E22, E27, X1)
// ---------------------------------------------------------------------------------------------

const TAN_AND_DOSSIER: &[Case] = &[
    // Tan Blue Gecko on l12: Tan's forward is down the board and its right is towards file a.
    case("BLG", "blg@l12 W@i9 w@l14", "l12", "l12l11 l12k11 l12j10 l12i9 l12k13 l12l13 l12m12 l12n12 l12m11"),
    // Tan Right General on h8: its left step goes towards file p (i8), never a8's side.
    case("RTG", "rtg@h8 P@i8 w@g8", "h8", "h8g9 h8i9 h8g7 h8i7 h8h7 h8h9 h8i8"),
    // E16 Queen Cannon.
    case("QCN", "QCN@a1 P@a2 W@d4 n@e1 q@h1 p@b2 r@a5 n@a6", "a1", "a1b1 a1c1 a1d1 a1e1 a1h1 a1b2 a1a5"),
    // E20 Tan Left General.
    case("LFG", "P@d8 lfg@h8 p@i9", "h8", "h8g7 h8h7 h8i7 h8d8 h8e8 h8f8 h8g8 h8g9 h8h9"),
    // E21 Blunderbuss.
    case("BLN", "BLN@d4 P@d5 f@d1 w@d2 r@a4 b@b4 p@g4 n@d7 r@d8", "d4", "d4d1 d4d3 d4a4 d4c4 d4e4 d4f4 d4d7"),
    // E22 Crossbow.
    case("CBO", "W@e3 CBO@d4 r@c3 n@c5 p@e5 p@b6", "d4", "d4a1 d4g1 d4b2 d4f2 d4c3 d4c5 d4e5 d4f6 d4g7 d4h8"),
    // E27 Werewolf.
    case("WWF", "WWF@b2 P@c2 P@b3 W@f4 q@a1 p@a3 p@c4 n@d5 r@h6", "b2", "b2a1 b2b1 b2c1 b2a2 b2a3 b2c3 b2h5 b2d6"),
    // X1 Cicada (1999).
    case("CI", "CI@b2 N@c2 GU@d4 r@d2 sp@e2 b@b3", "b2", "b2d2 b2e2 b2b4 b2b5 b2e5"),
];

#[test]
fn tan_by_hand_and_dossier_examples_match() {
    run("Tan by hand and dossier examples", TAN_AND_DOSSIER);
}

/// The token of the piece standing on `square` after `moves` are played from the case position.
fn token_after(pieces: &str, moves: &str, square: &str) -> String {
    let pieces = placements(pieces);
    let fen = position_string(&pieces, true);
    let mut pos = jupiter_position(&fen);
    pos.play_moves(moves).unwrap_or_else(|e| panic!("{moves} in {fen}: {e:?}"));
    let sq = pos.variant().dims.parse_square(square).unwrap();
    let piece = pos.piece_at(sq).unwrap_or_else(|| panic!("{square} is empty after {moves}"));
    pos.variant().pieces[piece.kind().index()].token.to_ascii_uppercase()
}

/// §6.5: a King becomes an Emperor, or an Emperor of Emperors while a plain Emperor (either
/// side) stands after the promoting action's own captures; §6.4: the promoted type is the
/// master table's (a Drunk Elephant becomes the royal Elephant Prince).
#[test]
fn promoted_types_follow_the_master_table() {
    assert_eq!(token_after("K@e10", "e10e11+", "e11"), "EM");
    assert_eq!(token_after("K@e10 em@h14", "e10e11+", "e11"), "EE");
    assert_eq!(token_after("K@e10 EM@c3", "e10e11+", "e11"), "EE");
    assert_eq!(token_after("K@e10 EE@c3", "e10e11+", "e11"), "EM");
    assert_eq!(token_after("K@e10 em@e11 w@a1", "e10e11+", "e11"), "EM");
    assert_eq!(token_after("DEL@e10", "e10e11+", "e11"), "EP");
    assert_eq!(token_after("GAL@e11", "e11f11+", "f11"), "SUL");
    assert_eq!(token_after("BLN@e11", "e11e12+", "e12"), "CAR");
    assert_eq!(token_after("CI@e10 W@e11", "e10e12+", "e12"), "TY");
    assert_eq!(token_after("SA@e10", "e10e11+", "e11"), "GE");
}
