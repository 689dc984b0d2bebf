//! The `.perft` data format shared by `tests/perft.rs` and `tests/chushin_middlegames.rs`:
//! `variant NAME`, `fen POSITION`, then `perft DEPTH NODES` lines for that position; `#`
//! comments. Every error names the file and line.

use std::{fs, path::Path};

use fairyzero_rules::{perft, Position, Variant};

/// One `perft <depth> <nodes>` line with the variant and position above it.
pub struct Case {
    pub file: String,
    pub line: usize,
    pub variant: String,
    pub fen: String,
    pub depth: u32,
    pub nodes: u64,
}

/// Reads one data file; `file` is the name used in messages.
pub fn read(path: &Path, file: &str) -> Vec<Case> {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (mut variant, mut fen) = (String::new(), String::new());
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        match key {
            "variant" => variant = rest.trim().to_string(),
            "fen" => fen = rest.trim().to_string(),
            "perft" => {
                let mut it = rest.split_whitespace();
                let depth = it.next().and_then(|d| d.parse().ok());
                let nodes = it.next().and_then(|n| n.parse().ok());
                let (Some(depth), Some(nodes), None) = (depth, nodes, it.next()) else {
                    panic!("{file}:{}: malformed perft line {line:?}", i + 1)
                };
                assert!(!variant.is_empty() && !fen.is_empty(), "{file}:{}: perft line before variant and fen", i + 1);
                out.push(Case {
                    file: file.to_string(),
                    line: i + 1,
                    variant: variant.clone(),
                    fen: fen.clone(),
                    depth,
                    nodes,
                });
            }
            other => panic!("{file}:{}: unknown key {other:?}", i + 1),
        }
    }
    out
}

/// The node budget: `FZ_PERFT_MAX_NODES` (0 = everything), else `default`.
pub fn budget(default: u64) -> u64 {
    match std::env::var("FZ_PERFT_MAX_NODES") {
        Ok(v) => match v.parse::<u64>().expect("FZ_PERFT_MAX_NODES is a number") {
            0 => u64::MAX,
            n => n,
        },
        Err(_) => default,
    }
}

/// Runs every case within `budget` nodes; returns how many ran, how many were skipped, and a
/// message per mismatch.
pub fn check(cases: impl IntoIterator<Item = Case>, budget: u64) -> (usize, usize, Vec<String>) {
    let (mut run, mut skipped, mut failures) = (0, 0, Vec::new());
    for case in cases {
        if case.nodes > budget {
            skipped += 1;
            continue;
        }
        let at = format!("{}:{}", case.file, case.line);
        let variant = Variant::load(&case.variant).unwrap_or_else(|e| panic!("{at}: {e}"));
        let mut pos = Position::from_fen(variant, &case.fen).unwrap_or_else(|e| panic!("{at}: {e}"));
        let got = perft(&mut pos, case.depth);
        run += 1;
        if got != case.nodes {
            failures.push(format!(
                "{at}: {} perft {} of {:?}: expected {}, got {}",
                case.variant, case.depth, case.fen, case.nodes, got
            ));
        }
    }
    (run, skipped, failures)
}
