//! Variant TOML: any text loads or is refused with an error, without touching the file system
//! (`extends` of a non-built-in name is refused by the parent reader). A variant that loads
//! must give a start position that keeps the invariants of `check_position`.
#![no_main]

use fairyzero_rules::{Position, Variant, VariantError};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let no_files = |parent: &str, _: Option<&std::path::Path>| Err(VariantError::Unknown(parent.to_string()));
    if let Ok(variant) = Variant::from_toml_with_parents("fuzz.toml", &text, None, &no_files) {
        let mut pos = Position::start(variant);
        fairyzero_fuzz::check_position(&mut pos);
    }
});
