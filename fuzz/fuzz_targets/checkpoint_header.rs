//! Checkpoint headers (`header.json`), read without libtorch: any text is read or refused, and
//! a header that reads writes back to JSON that reads to the same header.
#![no_main]

use fairyzero_model::config::CheckpointHeader;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(header) = CheckpointHeader::parse(text) {
        let json = serde_json::to_string(&header).expect("a header serialises");
        let again = CheckpointHeader::parse(&json).unwrap_or_else(|e| panic!("{json} does not read back: {e}"));
        assert_eq!(again, header);
    }
});
