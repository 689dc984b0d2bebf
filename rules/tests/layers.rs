//! The rules crate is layered (see the crate documentation): spec → variant → position →
//! movegen → notation and symmetry, over the shared value types. A module may name the crate's
//! own modules of its layer and below only; this test reads the sources and finds every
//! `crate::<module>` path outside comments, `use` declarations included.

use std::{
    fs,
    path::{Path, PathBuf},
};

/// The layer of each top-level module of `rules/src` (higher numbers may use lower ones).
const LAYERS: &[(&str, u8)] = &[
    ("types", 0),
    ("moves", 0),
    ("spec", 1),
    ("variant", 2),
    ("position", 3),
    ("movegen", 4),
    ("notation", 5),
    ("symmetry", 5),
];

fn layer(module: &str) -> Option<u8> {
    LAYERS.iter().find(|(name, _)| *name == module).map(|&(_, l)| l)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The crate modules a source text names: `crate::x` paths and the first names inside
/// `use crate::{x::..., y, ...}` groups, outside `//` comments.
fn named_modules(source: &str) -> Vec<String> {
    let code: String = source.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
    let mut names = Vec::new();
    let mut rest = code.as_str();
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // Names at the group's top level.
            let mut depth = 0;
            let mut name = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        names.push(std::mem::take(&mut name));
                        continue;
                    }
                    _ => {}
                }
                if depth == 0 && c != '}' {
                    name.push(c);
                }
            }
            names.push(name);
        } else {
            names.push(rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect());
        }
    }
    names
        .into_iter()
        .map(|n| n.trim().split("::").next().unwrap_or("").trim().to_string())
        .filter(|n| !n.is_empty())
        .collect()
}

#[test]
fn lower_layers_never_name_higher_ones() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut checked = 0;
    let mut violations = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).expect("under src");
        let top = relative.components().next().expect("a path").as_os_str().to_string_lossy();
        let top = top.trim_end_matches(".rs");
        if top == "lib" {
            continue;
        }
        let own = layer(top).unwrap_or_else(|| panic!("{}: module {top} has no layer in this test", file.display()));
        let source = fs::read_to_string(file).expect("readable source");
        for name in named_modules(&source) {
            if let Some(l) = layer(&name) {
                checked += 1;
                if l > own {
                    violations.push(format!("{} (layer {own}) names crate::{name} (layer {l})", relative.display()));
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} crate paths found: the scan is broken");
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

#[test]
fn the_scan_sees_use_groups_and_inline_paths() {
    let source = "use crate::{\n    movegen::{MoveSink, Probe},\n    position::Position,\n};\n\
                  // crate::notation in a comment\nlet x = crate::symmetry::f();";
    assert_eq!(named_modules(source), ["movegen", "position", "symmetry"]);
}
