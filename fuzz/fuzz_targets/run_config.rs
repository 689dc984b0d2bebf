//! Run configurations with `-o` overrides: the input's lines up to a line `--` are the TOML
//! file, each line after it one `key=value` override, as `train --config F -o …` passes them.
//! A configuration that parses must print (`--print-config`) to TOML that parses to itself.
#![no_main]

use fairyzero_trainer::config::RunConfig;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (toml_text, overrides) = text.split_once("\n--\n").unwrap_or((&text, ""));
    let overrides: Vec<String> = overrides.lines().map(str::to_string).collect();
    if let Ok(config) = RunConfig::parse("fuzz.toml", toml_text, &overrides) {
        let printed = config.to_toml();
        let again = RunConfig::parse("printed.toml", &printed, &[])
            .unwrap_or_else(|e| panic!("printed configuration does not parse back: {e}\n{printed}"));
        assert_eq!(again, config, "printed configuration reads back differently");
    }
});
