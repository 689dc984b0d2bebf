//! Multi-leg XBetza against single-leg equivalents: a piece written with legs (`mRpafcR`, the
//! Xiangqi cannon; `fmFfcafmF`, the checkers man) must move exactly like the same piece written
//! without them (`mRcpR`; `fmF` plus the `hop_capture` power) on random positions of both
//! colours. The cases are in `tests/data/xbetza_legs.toml`.

use std::collections::BTreeSet;
use std::sync::Arc;

use fairyzero_rules::{Dims, Move, MoveList, Position, Square, Variant};
use rand::{rngs::StdRng, Rng, SeedableRng};
use toml::{Table, Value};

const CASES: &str = include_str!("data/xbetza_legs.toml");

/// One move's effect: the mover's square, its destination, and every square it empties of an
/// enemy (the destination's occupant included).
type Effect = (Square, Square, BTreeSet<Square>);

struct Case {
    name: String,
    dims: Dims,
    positions: usize,
    seed: u64,
    multi_leg: Arc<Variant>,
    single_leg: Arc<Variant>,
}

fn cases() -> Vec<Case> {
    let file: Table = CASES.parse().expect("xbetza_legs.toml is TOML");
    let cases = file["case"].as_array().expect("[[case]] entries");
    cases
        .iter()
        .map(|case| {
            let int = |key: &str| case[key].as_integer().unwrap_or_else(|| panic!("case field `{key}`"));
            let name = case["name"].as_str().expect("case field `name`").to_string();
            let dims = Dims { width: int("width") as u8, height: int("height") as u8 };
            let variant = |side: &str| {
                let piece = case[side].as_table().unwrap_or_else(|| panic!("{name}: field `{side}`")).clone();
                let text = variant_text(dims, piece);
                Variant::from_toml(&format!("{name} ({side})"), &text, None).unwrap_or_else(|e| panic!("{e}"))
            };
            Case {
                dims,
                positions: int("positions") as usize,
                seed: int("seed") as u64,
                multi_leg: variant("multi_leg"),
                single_leg: variant("single_leg"),
                name,
            }
        })
        .collect()
}

/// A variant of a King, a Wazir and the piece under test (`piece`: its fields but name and
/// token), its start position the two Kings in opposite corners.
fn variant_text(dims: Dims, mut piece: Table) -> String {
    let table = |fields: &[(&str, Value)]| -> Value {
        Value::Table(fields.iter().map(|(k, v)| (k.to_string(), v.clone())).collect())
    };
    let w = dims.width as usize;
    let mut ranks = vec![format!("{w}"); dims.height as usize];
    ranks[0] = format!("{}k", w - 1);
    ranks[dims.height as usize - 1] = format!("K{}", w - 1);
    piece.insert("name".into(), "Piece".into());
    piece.insert("token".into(), "X".into());
    let variant = table(&[
        ("name", "xbetza-legs".into()),
        ("width", Value::Integer(dims.width.into())),
        ("height", Value::Integer(dims.height.into())),
        ("start", format!("{} w", ranks.join("/")).into()),
        (
            "piece",
            Value::Array(vec![
                table(&[("name", "King".into()), ("token", "K".into()), ("betza", "K".into()), ("royal", true.into())]),
                table(&[("name", "Wazir".into()), ("token", "W".into()), ("betza", "W".into())]),
                Value::Table(piece),
            ]),
        ),
    ]);
    toml::to_string(&variant).expect("a TOML table serialises")
}

/// A random position: one King a side, 0-4 pieces under test and 0-8 Wazirs of each colour on
/// distinct squares, either side to move.
fn random_fen(dims: Dims, rng: &mut StdRng) -> String {
    let n = dims.squares();
    let mut board: Vec<Option<char>> = vec![None; n];
    let mut place = |token: char, rng: &mut StdRng| loop {
        let s = rng.gen_range(0..n);
        if board[s].is_none() {
            board[s] = Some(token);
            break;
        }
    };
    for token in ['K', 'k'] {
        place(token, rng);
    }
    for (token, most) in [('X', 4), ('x', 4), ('W', 8), ('w', 8)] {
        for _ in 0..rng.gen_range(0..=most) {
            place(token, rng);
        }
    }
    let (w, h) = (dims.width as usize, dims.height as usize);
    let ranks: Vec<String> = (0..h)
        .rev()
        .map(|rank| {
            let mut text = String::new();
            let mut empty = 0;
            for file in 0..w {
                match board[rank * w + file] {
                    Some(token) => {
                        if empty > 0 {
                            text += &empty.to_string();
                            empty = 0;
                        }
                        text.push(token);
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                text += &empty.to_string();
            }
            text
        })
        .collect();
    let side = if rng.gen_bool(0.5) { "w" } else { "b" };
    format!("{} {side}", ranks.join("/"))
}

fn effect(pos: &Position, m: &Move) -> Effect {
    let mut removed: BTreeSet<Square> = m.captures().iter().copied().collect();
    if m.to != m.from && pos.piece_at(m.to).is_some() {
        removed.insert(m.to);
    }
    (m.from, m.to, removed)
}

fn effects(pos: &Position, legal: bool) -> BTreeSet<Effect> {
    let mut moves = MoveList::new();
    if legal {
        pos.clone().legal_moves(&mut moves);
    } else {
        pos.pseudo_legal_moves(&mut moves);
    }
    let effects: BTreeSet<Effect> = moves.iter().map(|m| effect(pos, m)).collect();
    assert_eq!(effects.len(), moves.len(), "one move per effect in {}", pos.to_fen());
    effects
}

/// Compares the two variants of every case on its random positions, by pseudo-legal or legal
/// moves. Returns, per case, how many effects of the piece under test removed something.
fn compare(legal: bool) -> Vec<(String, usize)> {
    let kind = if legal { "legal" } else { "pseudo-legal" };
    let mut out = Vec::new();
    for case in cases() {
        let mut rng = StdRng::seed_from_u64(case.seed);
        let (mut compared, mut refused, mut piece_captures) = (0, 0, 0);
        let mut side_to_move = [0; 2];
        while compared < case.positions {
            let fen = random_fen(case.dims, &mut rng);
            let (multi, single) =
                (Position::from_fen(case.multi_leg.clone(), &fen), Position::from_fen(case.single_leg.clone(), &fen));
            let (multi, single) = match (multi, single) {
                (Ok(m), Ok(s)) => (m, s),
                (Err(_), Err(_)) => {
                    // Both refuse it (the side to move could take the other King, say).
                    refused += 1;
                    assert!(refused < case.positions, "{}: most random positions are refused", case.name);
                    continue;
                }
                (m, s) => {
                    panic!("{}: {fen}: the variants disagree on the position: {:?} / {:?}", case.name, m.err(), s.err())
                }
            };
            let (got, want) = (effects(&multi, legal), effects(&single, legal));
            assert!(
                got == want,
                "{}: {fen} ({kind}): multi-leg only {:?}, single-leg only {:?}",
                case.name,
                got.difference(&want).map(|e| describe(case.dims, e)).collect::<Vec<_>>(),
                want.difference(&got).map(|e| describe(case.dims, e)).collect::<Vec<_>>(),
            );
            let by_piece =
                |e: &&Effect| multi.piece_at(e.0).is_some_and(|p| case.multi_leg.piece_def(p.kind()).token == "X");
            piece_captures += got.iter().filter(by_piece).filter(|e| !e.2.is_empty()).count();
            side_to_move[multi.side_to_move().index()] += 1;
            compared += 1;
        }
        assert!(side_to_move.iter().all(|&n| n >= case.positions / 4), "{}: {side_to_move:?}", case.name);
        out.push((case.name, piece_captures));
    }
    out
}

#[test]
fn multi_leg_pieces_move_like_their_single_leg_equivalents() {
    for (name, captures) in compare(false) {
        // The comparison means something only if the legs captured often.
        assert!(captures >= 100, "{name}: only {captures} captures by the piece");
    }
}

/// A King attacked by a multi-leg piece is in check: the legal filter sees the legs' captures.
#[test]
fn multi_leg_pieces_give_check_like_their_single_leg_equivalents() {
    compare(true);
}

fn describe(dims: Dims, (from, to, removed): &Effect) -> String {
    let removed: Vec<String> = removed.iter().map(|&s| dims.square_name(s)).collect();
    format!("{}-{} x[{}]", dims.square_name(*from), dims.square_name(*to), removed.join(","))
}
