//! Parse errors through the real binary: every problem of a variant file at once, and the
//! position-string rules of docs/notation.md.

mod common;

use common::{fairyzero, stderr};

fn failure(args: &[&str]) -> String {
    let out = fairyzero(args);
    assert!(!out.status.success(), "{args:?} must fail: {out:?}");
    stderr(&out)
}

#[test]
fn a_variant_file_reports_all_its_problems() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.toml");
    let text = "name = \"t\"\nwidth = 5\nheight = 5\nstart = \"4k/5/5/5/K4 w\"\ncolour = 1\nflavour = 2\n\
                [[piece]]\nname = \"king\"\ntoken = \"K\"\nbetza = \"KX\"\nroyal = true\n";
    std::fs::write(&path, text).unwrap();
    let file = path.display().to_string();
    let err = failure(&["moves", "--variant", &file]);
    assert!(err.contains("3 problems"), "{err}");
    for wanted in [
        format!("{file}: field `colour`: unknown field"),
        format!("{file}: field `flavour`: unknown field"),
        format!("{file}: piece \"king\": field `betza`: in Betza string \"KX\", character 'X' at position 2"),
    ] {
        assert!(err.contains(&wanted), "missing {wanted:?} in {err}");
    }
}

#[test]
fn fen_needs_a_side_to_move_and_names_non_ascii_characters() {
    let err = failure(&["moves", "--variant", "gardner", "--fen", "rnbqk/ppppp/5/PPPPP/RNBQK"]);
    assert!(err.contains("side to move is missing"), "{err}");
    let err = failure(&["moves", "--variant", "gardner", "--fen", "rnbqk/ppppp/5/PPPPP/RNBQé w"]);
    assert!(err.contains("character 25: unexpected character 'é'"), "{err}");
}
