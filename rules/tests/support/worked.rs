//! The worked-example tests' view of a position: legal moves as UCI-style text.

use std::collections::BTreeSet;

use fairyzero_rules::{MoveList, Position, Variant};

/// `fen` in the built-in `variant` (a name or alias).
pub fn position(variant: &str, fen: &str) -> Position {
    let v = Variant::load(variant).unwrap_or_else(|e| panic!("{variant}: {e}"));
    Position::from_fen(v, fen).unwrap_or_else(|e| panic!("{variant} {fen}: {e}"))
}

/// Every legal move of `pos` as text; a move listed twice fails the test.
pub fn legal_texts(pos: &mut Position) -> BTreeSet<String> {
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    let list: Vec<String> = moves.iter().map(|m| pos.move_to_string(m)).collect();
    let set: BTreeSet<String> = list.iter().cloned().collect();
    assert_eq!(set.len(), list.len(), "{}: a move is listed twice: {list:?}", pos.to_fen());
    set
}

/// Every legal move of `fen` in `variant`, as text.
pub fn legal(variant: &str, fen: &str) -> BTreeSet<String> {
    legal_texts(&mut position(variant, fen))
}

/// The legal moves from `square`, as their destinations (and suffixes).
pub fn destinations(variant: &str, fen: &str, square: &str) -> BTreeSet<String> {
    legal(variant, fen).into_iter().filter_map(|m| m.strip_prefix(square).map(str::to_string)).collect()
}

pub fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}
