//! Move strings against a position: the first byte picks the variant, the text up to the first
//! newline is a position string (empty: the start position; `setup`: the setup phase), the rest
//! moves separated by spaces. A move that parses must be legal, print back to a string that
//! parses to the same move, and keep the position's invariants once made.
#![no_main]

use fairyzero_rules::{MoveList, Position};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    let variant = fairyzero_fuzz::variant(pick);
    let text = String::from_utf8_lossy(rest);
    let (fen, moves) = text.split_once('\n').unwrap_or(("", &text));
    let start = match fen {
        "" => Some(Position::start(variant)),
        "setup" => Position::setup_start(variant),
        fen => Position::from_fen(variant, fen).ok(),
    };
    let Some(mut pos) = start else { return };
    let mut legal = MoveList::new();
    for text in moves.split(' ').take(16) {
        let Ok(m) = pos.parse_move(text) else { continue };
        pos.legal_moves(&mut legal);
        assert!(legal.contains(&m), "parsed move {text:?} is not among the legal moves");
        let printed = pos.move_to_string(&m);
        assert_eq!(pos.parse_move(&printed).ok(), Some(m), "move {text:?} prints as {printed:?}, which differs");
        pos.make(m);
    }
    fairyzero_fuzz::check_position(&mut pos);
});
