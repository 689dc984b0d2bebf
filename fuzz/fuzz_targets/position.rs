//! Position strings of every built-in variant (the first byte picks the variant): no panic, and
//! what parses keeps the invariants of `check_position`.
#![no_main]

use fairyzero_rules::Position;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    let variant = fairyzero_fuzz::variant(pick);
    let text = String::from_utf8_lossy(rest);
    if let Ok(mut pos) = Position::from_fen(variant, &text) {
        fairyzero_fuzz::check_position(&mut pos);
    }
});
