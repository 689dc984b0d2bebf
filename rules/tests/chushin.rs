//! Chushin Shogi's data (chushin-shogi.md, cited §n; `configs/variants/chushin.toml`): the 95
//! entries of the author's diagram and their promotions (§5), the start position (§4, §14), its
//! 82 legal moves (§12.1), and the mobility of every entry alone on an empty board (§12.2,
//! transcribed in `tests/data/chushin/mobility.csv`). The perft numbers of §12.1 are in
//! `tests/data/chushin.perft` (run by `tests/perft.rs`); the worked examples of §11 are in
//! `tests/chushin_examples.rs`.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use fairyzero_rules::{Color, MoveList, Piece, Position, Square};
use support::chushin::{chushin, MoveKey, DIMS};

/// One row of §12.2's table.
struct MobilityRow {
    /// The diagram's entry number, #1-#95.
    number: u8,
    /// The diagram ID, `+` first for a promoted entry.
    token: String,
    name: String,
    h9: (usize, usize),
    a1: (usize, usize),
    /// Line in mobility.csv, for messages.
    line: usize,
}

fn mobility_rows() -> Vec<MobilityRow> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/chushin/mobility.csv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty());
    let header = lines.next().map(|(_, l)| l);
    assert_eq!(
        header,
        Some("number,token,name,h9_effects,h9_moves,a1_effects,a1_moves"),
        "{}: unexpected header",
        path.display()
    );
    let rows: Vec<MobilityRow> = lines
        .map(|(i, line)| {
            let fields: Vec<&str> = line.split(',').collect();
            let count = |k: usize| -> usize {
                fields
                    .get(k)
                    .and_then(|f| f.parse().ok())
                    .unwrap_or_else(|| panic!("mobility.csv:{}: field {} is not a count: {line:?}", i + 1, k + 1))
            };
            assert_eq!(fields.len(), 7, "mobility.csv:{}: expected 7 fields: {line:?}", i + 1);
            MobilityRow {
                number: fields[0].parse().unwrap_or_else(|_| panic!("mobility.csv:{}: bad entry number", i + 1)),
                token: fields[1].to_string(),
                name: fields[2].to_string(),
                h9: (count(3), count(4)),
                a1: (count(5), count(6)),
                line: i + 1,
            }
        })
        .collect();
    let numbers: Vec<u8> = rows.iter().map(|r| r.number).collect();
    let expected: Vec<u8> = (1..=95).collect();
    assert_eq!(numbers, expected, "mobility.csv lists the entries #1-#95 in order (§12.2)");
    rows
}

fn square(name: &str) -> Square {
    DIMS.parse_square(name).unwrap_or_else(|| panic!("{name} is not a Chushin square"))
}

/// The token of `id` (a diagram ID) in a position string (§14).
fn token(id: &str, color: Color) -> String {
    let id = if color == Color::Blue { id.to_string() } else { id.to_ascii_lowercase() };
    if id.len() == 1 {
        id
    } else {
        format!("({id})")
    }
}

/// A position string with the given pieces on an otherwise empty board, Sente to move.
fn position_string(pieces: &[(&str, Color, Square)]) -> String {
    let mut board: BTreeMap<Square, String> = BTreeMap::new();
    for &(id, color, sq) in pieces {
        assert!(board.insert(sq, token(id, color)).is_none(), "two pieces on {}", DIMS.square_name(sq));
    }
    let mut ranks = Vec::new();
    for rank in (0..18).rev() {
        let (mut text, mut empty) = (String::new(), 0);
        for file in 0..18 {
            match DIMS.square(file, rank).and_then(|sq| board.get(&sq)) {
                None => empty += 1,
                Some(t) => {
                    if empty > 0 {
                        text += &empty.to_string();
                        empty = 0;
                    }
                    text += t;
                }
            }
        }
        if empty > 0 {
            text += &empty.to_string();
        }
        ranks.push(text);
    }
    format!("{} w", ranks.join("/"))
}

// ---------------------------------------------------------------------------------------------
// The entries (§5)
// ---------------------------------------------------------------------------------------------

#[test]
fn the_variant_has_the_95_entries_of_the_diagram() {
    let v = chushin();
    let rows = mobility_rows();
    assert_eq!(v.piece_count(), 95, "95 diagram entries (§1, §5)");
    let mut problems = Vec::new();
    for row in &rows {
        let Some(kind) = v.piece_by_token(&row.token) else {
            problems.push(format!("#{} {}: no piece with this token", row.number, row.token));
            continue;
        };
        let def = v.piece_def(kind);
        // Promoted entries that share a start type's name carry their token (`Bishop (+FL)`).
        if !def.name.to_ascii_lowercase().starts_with(&row.name) {
            problems.push(format!("#{} {}: named {:?}, §12.2 says {:?}", row.number, row.token, def.name, row.name));
        }
        // §5: entry #i (i <= 44) promotes to #i+50, nothing else promotes.
        let expected: Vec<String> =
            if row.number <= 44 { vec![rows[row.number as usize + 49].token.clone()] } else { Vec::new() };
        let got: Vec<String> = def.promotes_to.iter().map(|&t| v.piece_def(t).token.clone()).collect();
        if got != expected {
            problems.push(format!("#{} {}: promotes to {got:?}, §5 says {expected:?}", row.number, row.token));
        }
        // §8.3: the King (#95) and the Crown Prince (#62, +DE) are the royals.
        let royal = matches!(row.number, 62 | 95);
        if def.royal != royal {
            problems.push(format!("#{} {}: royal is {}, §8.3 says {royal}", row.number, row.token, def.royal));
        }
    }
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// The start position (§4, §12.1)
// ---------------------------------------------------------------------------------------------

#[test]
fn the_start_position_is_the_diagrams() {
    let pos = Position::start(chushin());
    let v = pos.variant();
    let mut per_side: [BTreeMap<String, usize>; 2] = Default::default();
    for sq in (0..DIMS.squares()).map(|i| Square(i as u16)) {
        let Some(piece) = pos.piece_at(sq) else { continue };
        let id = v.piece_def(piece.kind()).token.clone();
        *per_side[piece.color().index()].entry(id).or_default() += 1;
        // §2, §4: Gote's army is Sente's turned by 180 degrees.
        let turned = pos.piece_at(DIMS.rotate(sq));
        assert_eq!(
            turned,
            Some(Piece::new(piece.kind(), piece.color().other())),
            "{} and {} are not a rotated pair",
            DIMS.square_name(sq),
            DIMS.square_name(DIMS.rotate(sq))
        );
    }
    // §4: "18 Pawns, 4 Chariot Soldiers, 2 each of 35 start types, and 1 each of King, Drunk
    // Elephant, Left General, Right General, Kirin, Phoenix, Lion, Lion Dog, Queen, Free Eagle,
    // Lion Hawk, Furious Fiend, Vice General, Great General -> 106 pieces".
    const SINGLES: [&str; 14] = ["K", "DE", "LT", "RT", "KY", "PH", "LN", "LD", "Q", "FE", "LH", "FF", "VG", "GG"];
    let rows = mobility_rows();
    let mut expected: BTreeMap<String, usize> = BTreeMap::new();
    for row in rows.iter().filter(|r| r.number <= 50 || r.number == 95) {
        let n = match row.token.as_str() {
            "P" => 18,
            "CS" => 4,
            t if SINGLES.contains(&t) => 1,
            _ => 2,
        };
        expected.insert(row.token.clone(), n);
    }
    assert_eq!(expected.values().sum::<usize>(), 106, "§4's count of one army");
    assert_eq!(expected.len(), 51, "51 types on the board at the start (§1)");
    assert_eq!(per_side[Color::Blue.index()], expected, "Sente's army (§4)");
    assert_eq!(per_side[Color::Tan.index()], expected, "Gote's army (§4)");
    // §4: "Empty squares inside the Sente camp: b2, f2, m2, q2 and every square of rank 7 except
    // f7 and m7."
    let empty_in_camp: BTreeSet<String> = (0..DIMS.squares())
        .map(|i| Square(i as u16))
        .filter(|&sq| DIMS.rank(sq) < 7 && pos.piece_at(sq).is_none())
        .map(|sq| DIMS.square_name(sq))
        .collect();
    let mut expected_empty: BTreeSet<String> = ["b2", "f2", "m2", "q2"].iter().map(|s| s.to_string()).collect();
    expected_empty.extend((b'a'..=b'r').filter(|&f| f != b'f' && f != b'm').map(|f| format!("{}7", f as char)));
    assert_eq!(empty_in_camp, expected_empty, "empty squares of Sente's camp (§4)");
    assert_eq!(pos.side_to_move(), Color::Blue, "Sente moves first (§3)");
}

/// §12.1's 82 Sente moves of the start position, in the dossier's notation (§9.3).
const START_MOVES: &str = "\
c1-b2, e1-f2, f1-f2, g1-f2, l1-m2, m1-m2, n1-m2, p1-q2, c2-b2, e2-f2, g2-f2, h2-f2, k2-m2,
l2-m2, n2-m2, p2-q2, b3-b2, c3-b2, e3-f2, f3-f2, g3-f2, l3-m2, m3-m2, n3-m2, p3-q2, q3-q2,
d5-c7, d5-e7, e5-e7, f5-d7, f5-h7, g5-o13, g5-o13+, g5-p14, g5-p14+, h5-h13, h5-h13+, h5-h14,
h5-h14+, i5-a13, i5-a13+, i5-q13, i5-q13+, i5-r14, i5-r14+, j5-b13, j5-b13+, j5-r13, j5-r13+,
j5-a14, j5-a14+, k5-k13, k5-k13+, k5-k14, k5-k14+, l5-d13, l5-d13+, l5-c14, l5-c14+, m5-k7,
m5-o7, n5-n7, o5-n7, o5-p7, a6-a7, b6-b7, c6-c7, d6-d7, e6-e7, g6-g7, h6-h7, i6-i7, j6-j7,
k6-k7, l6-l7, n6-n7, o6-o7, p6-p7, q6-q7, r6-r7, f7-f8, m7-m8";

#[test]
fn the_start_position_has_the_82_moves_of_the_dossier() {
    let listed: Vec<MoveKey> = START_MOVES
        .split(',')
        .map(str::trim)
        .map(|m| MoveKey::parse_dossier(m).unwrap_or_else(|e| panic!("§12.1: {e}")))
        .collect();
    assert_eq!(listed.len(), 82, "§12.1 lists 82 moves");
    assert!(listed.windows(2).all(|w| w[0] < w[1]), "§12.1's list is in canonical order (§9.3), without repeats");

    let mut pos = Position::start(chushin());
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    let mut generated = BTreeSet::new();
    for m in moves.iter() {
        let key = MoveKey::of_move(&pos, m).unwrap_or_else(|e| panic!("{e}"));
        // The text of a move is the mapping of docs/notation.md: `g5o13+` for `g5-o13+`.
        assert_eq!(pos.move_to_string(m), key.fairyzero_text(), "text of {}", key.dossier_text());
        assert!(generated.insert(key.clone()), "{} is generated twice", key.dossier_text());
    }
    let listed: BTreeSet<MoveKey> = listed.into_iter().collect();
    let missing: Vec<String> = listed.difference(&generated).map(MoveKey::dossier_text).collect();
    let extra: Vec<String> = generated.difference(&listed).map(MoveKey::dossier_text).collect();
    assert!(missing.is_empty() && extra.is_empty(), "§12.1: missing {missing:?}, not in the dossier {extra:?}");
}

// ---------------------------------------------------------------------------------------------
// Mobility on an empty board (§12.2)
// ---------------------------------------------------------------------------------------------

/// §12.2 places the piece alone. The royals added here keep the position undecided whatever a
/// position without royals means (§8.3: a side without a royal has lost; §14 plays such test
/// positions on). They stand off every line through h9 and a1 and more than four squares from
/// h9, so no slide, jump, area move, burn or range capture of the piece reaches them or a
/// square next to them: Sente's King on m18, Gote's on r13.
const SENTE_ROYAL: &str = "m18";
const GOTE_ROYAL: &str = "r13";

/// `(effects, moves)` of the Sente `id` alone on `at`: the distinct `(to, victims)` pairs of
/// §12.2 (pass included), and the moves after promotion doubling.
fn mobility(id: &str, royal: bool, at: Square) -> Result<(usize, usize), String> {
    let mut pieces = vec![(id, Color::Blue, at), ("K", Color::Tan, square(GOTE_ROYAL))];
    if !royal {
        pieces.push(("K", Color::Blue, square(SENTE_ROYAL)));
    }
    let text = position_string(&pieces);
    let mut pos = Position::from_fen(chushin(), &text).map_err(|e| format!("{text}: {e}"))?;
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    let mut effects = BTreeSet::new();
    let mut keys = BTreeSet::new();
    for m in moves.iter().filter(|m| m.from == at) {
        let key = MoveKey::of_move(&pos, m)?;
        effects.insert((key.to, key.victims.clone()));
        if !keys.insert(key.clone()) {
            return Err(format!("{} is generated twice", key.dossier_text()));
        }
    }
    Ok((effects.len(), keys.len()))
}

#[test]
fn every_entry_alone_on_an_empty_board_has_the_dossiers_mobility() {
    let v = chushin();
    let mut problems = Vec::new();
    let rows = mobility_rows();
    for row in &rows {
        let royal = v.piece_by_token(&row.token).is_some_and(|t| v.piece_def(t).royal);
        for (name, expected) in [("h9", row.h9), ("a1", row.a1)] {
            match mobility(&row.token, royal, square(name)) {
                Ok(got) if got == expected => {}
                Ok((effects, moves)) => problems.push(format!(
                    "mobility.csv:{}: #{} {} on {name}: {effects} effects and {moves} moves, §12.2 says {} and {}",
                    row.line, row.number, row.token, expected.0, expected.1
                )),
                Err(e) => {
                    problems.push(format!("mobility.csv:{}: #{} {} on {name}: {e}", row.line, row.number, row.token))
                }
            }
        }
    }
    assert!(problems.is_empty(), "{} of {} checks differ:\n{}", problems.len(), 2 * rows.len(), problems.join("\n"));
}

/// §14: a position without any royal (the §11 examples) is played as usual, also after its
/// first move; a position where exactly one side has no royal is finished.
#[test]
fn royal_less_positions_play_on_and_one_missing_royal_ends_the_game() {
    let v = chushin();
    let mut royal_less =
        Position::from_fen(v.clone(), "18/18/18/18/18/18/18/18/7p10/7(LN)10/18/18/18/18/18/18/18/18 w")
            .expect("a Lion and a pawn");
    assert!(royal_less.immediate_outcome().is_none());
    let mut moves = MoveList::new();
    royal_less.legal_moves(&mut moves);
    assert!(!moves.is_empty());
    let quiet = *moves.iter().find(|m| !royal_less.is_capture(m)).expect("a quiet Lion move");
    royal_less.make(quiet);
    assert!(royal_less.immediate_outcome().is_none(), "the game goes on after a move");
    let mut replies = MoveList::new();
    royal_less.legal_moves(&mut replies);
    assert!(!replies.is_empty(), "the pawn still moves");

    let mut one_royal = Position::from_fen(v, "18/18/18/18/18/18/18/18/7p10/7(LN)10/18/18/18/18/18/18/18/K17 b")
        .expect("Gote has no royal");
    let outcome = one_royal.immediate_outcome().expect("Gote has no royal, Sente has one");
    assert_eq!(outcome.winner(), Some(Color::Blue));
    one_royal.legal_moves(&mut moves);
    assert!(moves.is_empty());
}
