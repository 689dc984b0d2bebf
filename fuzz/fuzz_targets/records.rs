//! Game record chunks: input that starts with the zstd magic number is read as a chunk file,
//! anything else as the decompressed JSON lines. Records of a built-in variant are then
//! replayed, with the variant's hash written in so that the fuzzer reaches the moves without
//! guessing a 64-bit hash.
#![no_main]

use std::path::Path;

use fairyzero_selfplay::record::{decode_chunk, hash_hex, parse_chunk};
use libfuzzer_sys::fuzz_target;

const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

fuzz_target!(|data: &[u8]| {
    let path = Path::new("fuzz.games.zst");
    let games = if data.starts_with(&ZSTD_MAGIC) { decode_chunk(path, data) } else { parse_chunk(path, data) };
    let Ok(games) = games else { return };
    for mut game in games {
        let Some(variant) = fairyzero_fuzz::builtin(&game.variant) else { continue };
        game.variant_hash = hash_hex(variant.hash);
        let _ = game.replay(&variant, |_| {});
    }
});
