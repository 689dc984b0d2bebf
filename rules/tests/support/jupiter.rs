//! Jupiter subsets: `configs/variants/jupiter.toml` cut down to the pieces a test names.
//!
//! The full file loads only once every power kind it names is implemented; a subset loads as
//! soon as its own pieces do, so each piece (and each dossier example) can be tested while the
//! others are still refused. A subset keeps every top-level rule of the file (board, promotion,
//! victory, repetition, pass, move cap) and drops the start array and the setup phase, which name
//! every piece.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use fairyzero_rules::{Position, Variant};

/// Pieces every subset keeps: the Regal pair (the King is the royal of every position) and the
/// King's two promotions, which its `promotion_upgrade` names.
const ALWAYS_KEPT: &[&str] = &["K", "CO", "EM", "EE"];

/// A start every subset can parse: one King each, far apart (Blue p1, Tan a16).
const SUBSET_START: &str = "k15/16/16/16/16/16/16/16/16/16/16/16/16/16/16/15K w";

fn variants_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("configs").join("variants")
}

/// The upper-case tokens a piece table names as other types: its promotions and the pieces of
/// its `promotion_upgrade`, which must exist for the subset to load.
fn referenced_tokens(piece: &toml::Table) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(targets) = piece.get("promotes_to").and_then(toml::Value::as_array) {
        out.extend(targets.iter().filter_map(toml::Value::as_str).map(str::to_ascii_uppercase));
    }
    for power in piece.get("powers").and_then(toml::Value::as_array).into_iter().flatten() {
        let stoppers = power.get("stoppers").and_then(toml::Value::as_array).into_iter().flatten();
        out.extend(stoppers.filter_map(toml::Value::as_str).filter(|t| *t != "royal").map(str::to_ascii_uppercase));
    }
    if let Some(upgrade) = piece.get("promotion_upgrade").and_then(toml::Value::as_table) {
        for key in ["present", "becomes"] {
            out.extend(upgrade.get(key).and_then(toml::Value::as_str).map(str::to_ascii_uppercase));
        }
    }
    out
}

fn token_of(piece: &toml::Table) -> String {
    piece.get("token").and_then(toml::Value::as_str).unwrap_or_default().to_ascii_uppercase()
}

/// The file, split into its top-level rules (without `start`, `setup` and the pieces) and its
/// piece tables.
struct JupiterFile {
    rules: toml::Table,
    pieces: Vec<toml::Table>,
}

impl JupiterFile {
    fn read() -> JupiterFile {
        let path = variants_dir().join("jupiter.toml");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut rules: toml::Table = text.parse().unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let pieces = rules
            .remove("piece")
            .and_then(|p| p.as_array().cloned())
            .unwrap_or_default()
            .into_iter()
            .filter_map(|p| p.as_table().cloned())
            .collect();
        rules.remove("setup");
        rules.insert("start".into(), toml::Value::String(SUBSET_START.into()));
        JupiterFile { rules, pieces }
    }

    fn piece(&self, token: &str) -> Option<&toml::Table> {
        self.pieces.iter().find(|p| token_of(p) == token)
    }

    /// The variant with exactly the pieces of `keep`; promotions to pieces outside it are
    /// dropped.
    fn load(&self, keep: &BTreeSet<String>) -> Result<Arc<Variant>, String> {
        let kept: Vec<toml::Value> = self
            .pieces
            .iter()
            .filter(|p| keep.contains(&token_of(p)))
            .map(|p| {
                let mut p = p.clone();
                if let Some(toml::Value::Array(targets)) = p.get_mut("promotes_to") {
                    targets.retain(|t| t.as_str().is_some_and(|t| keep.contains(&t.to_ascii_uppercase())));
                }
                toml::Value::Table(p)
            })
            .collect();
        let has_passer = kept
            .iter()
            .filter_map(|p| p.get("powers").and_then(toml::Value::as_array))
            .flatten()
            .any(|power| power.get("kind").and_then(toml::Value::as_str) == Some("pass"));
        let mut table = self.rules.clone();
        table.insert("piece".into(), toml::Value::Array(kept));
        let listed: Vec<&str> = keep.iter().map(String::as_str).collect();
        let source = format!("jupiter.toml (subset: {})", listed.join(" "));
        let load = |table: &toml::Table| {
            let text = toml::to_string(table).expect("a parsed TOML table serializes");
            Variant::from_toml(&source, &text, Some(&variants_dir())).map_err(|e| e.to_string())
        };
        match load(&table) {
            // The loader refuses a pass rule that no piece can use; a subset without a passer
            // simply has no pass move, as the full game has none once its passers are gone.
            Err(_) if !has_passer && table.remove("pass").is_some() => load(&table),
            result => result,
        }
    }
}

/// Jupiter with only the pieces of `tokens` (any case), the pieces they promote to and from
/// (transitively: a type is "promoted" only while its unpromoted form exists) and the Regal pair
/// with the King's promotions, and the types its powers name (a General's stoppers). Panics with
/// the loader's message if the subset does not load.
pub fn jupiter_with(tokens: &[&str]) -> Arc<Variant> {
    try_jupiter_with(tokens).unwrap_or_else(|e| panic!("{e}"))
}

/// [`jupiter_with`], returning the loader's message instead of panicking.
pub fn try_jupiter_with(tokens: &[&str]) -> Result<Arc<Variant>, String> {
    let file = JupiterFile::read();
    let asked: BTreeSet<String> = tokens.iter().map(|t| t.to_ascii_uppercase()).collect();
    let unknown: Vec<&String> = asked.iter().filter(|t| file.piece(t).is_none()).collect();
    if !unknown.is_empty() {
        return Err(format!("jupiter.toml defines no piece {unknown:?}"));
    }

    let always: BTreeSet<String> = ALWAYS_KEPT.iter().map(|t| t.to_string()).collect();
    let mut keep: BTreeSet<String> = asked.union(&always).cloned().collect();
    let mut todo: Vec<String> = keep.iter().cloned().collect();
    while let Some(token) = todo.pop() {
        let Some(piece) = file.piece(&token) else { continue };
        // A type counts as promoted only if some type promotes to it (the Communist's purge,
        // for one), so the types that promote to a kept one are kept too.
        let predecessors =
            file.pieces.iter().filter(|p| referenced_tokens(p).contains(&token)).map(token_of).collect::<Vec<_>>();
        for target in referenced_tokens(piece).into_iter().chain(predecessors) {
            if keep.insert(target.clone()) {
                todo.push(target);
            }
        }
    }
    file.load(&keep)
}

/// The piece tokens of a position string's board field: single letters, and multi-letter tokens
/// in parentheses (`docs/notation.md`).
pub fn tokens_of_position(fen: &str) -> Vec<String> {
    let board = fen.split_whitespace().next().unwrap_or_default();
    let mut tokens = BTreeSet::new();
    let mut chars = board.chars();
    while let Some(c) = chars.next() {
        if c == '(' {
            let long: String = chars.by_ref().take_while(|&d| d != ')').collect();
            tokens.insert(long.to_ascii_uppercase());
        } else if c.is_ascii_alphabetic() {
            tokens.insert(c.to_ascii_uppercase().to_string());
        }
    }
    tokens.into_iter().collect()
}

/// A Jupiter position on the subset of the pieces it shows (see [`jupiter_with`]).
pub fn jupiter_position(fen: &str) -> Position {
    let tokens = tokens_of_position(fen);
    let tokens: Vec<&str> = tokens.iter().map(String::as_str).collect();
    let variant = jupiter_with(&tokens);
    Position::from_fen(variant, fen).unwrap_or_else(|e| panic!("position {fen:?} does not load: {e}"))
}

/// A 16x16 position string from placed pieces: `(square, token)`, the token's case giving the
/// colour (upper case Blue, lower case Tan); multi-letter tokens are written in parentheses.
pub fn position_string<S: AsRef<str>, T: AsRef<str>>(
    pieces: impl IntoIterator<Item = (S, T)>,
    blue_to_move: bool,
) -> String {
    let mut board = vec![vec![String::new(); 16]; 16];
    for (square, token) in pieces {
        let (square, token) = (square.as_ref(), token.as_ref());
        let file = (square.as_bytes()[0] - b'a') as usize;
        let rank: usize = square[1..].parse().unwrap_or_else(|_| panic!("bad square {square:?}"));
        let cell = &mut board[rank - 1][file];
        assert!(cell.is_empty(), "{square} given twice");
        *cell = if token.len() == 1 { token.to_string() } else { format!("({token})") };
    }
    let ranks: Vec<String> = board
        .iter()
        .rev()
        .map(|rank| {
            let mut text = String::new();
            let mut empty = 0;
            for cell in rank {
                if cell.is_empty() {
                    empty += 1;
                    continue;
                }
                if empty > 0 {
                    text += &empty.to_string();
                    empty = 0;
                }
                text += cell;
            }
            if empty > 0 {
                text += &empty.to_string();
            }
            text
        })
        .collect();
    format!("{} {}", ranks.join("/"), if blue_to_move { "w" } else { "b" })
}

/// [`position_string`] from the dossier's piece lists (`"K p1, W c4, OxT e3"`, tokens in any
/// case), Blue's and Tan's.
pub fn dossier_position_string(blue: &str, tan: &str, blue_to_move: bool) -> String {
    let mut pieces = Vec::new();
    for (list, blue) in [(blue, true), (tan, false)] {
        for entry in list.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let (token, square) = entry.split_once(' ').unwrap_or_else(|| panic!("bad entry {entry:?}"));
            let token = if blue { token.to_ascii_uppercase() } else { token.to_ascii_lowercase() };
            pieces.push((square.to_string(), token));
        }
    }
    position_string(pieces, blue_to_move)
}

/// The legal moves whose action starts on `square`, printed and sorted; fails if one is listed
/// twice (routes with one effect are one move, jupiter.md §9.2).
pub fn moves_from(mut pos: Position, square: &str) -> Vec<String> {
    let from = pos.variant().dims.parse_square(square).unwrap_or_else(|| panic!("bad square {square:?}"));
    let mut list = fairyzero_rules::MoveList::new();
    pos.legal_moves(&mut list);
    let mut out: Vec<String> = list.iter().filter(|m| m.from == from).map(|m| pos.move_to_string(m)).collect();
    let count = out.len();
    out.sort();
    out.dedup();
    assert_eq!(out.len(), count, "a move listed twice: {out:?}");
    out
}

/// A dossier move list, one move per line, sorted (`;` comments stripped).
pub fn dossier_list(lines: &str) -> Vec<String> {
    let mut out: Vec<String> = lines
        .lines()
        .filter_map(|l| l.split(';').next())
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    out.sort();
    out
}
