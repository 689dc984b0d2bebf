//! configs/variants/jupiter.toml as data: its pieces against the dossier (../shared/rules/jupiter.md).

mod support;

use support::jupiter::{jupiter_position, jupiter_with};

/// The test support loader builds a subset of the file from a position's tokens.
#[test]
fn subset_loader_keeps_named_pieces_and_their_promotions() {
    let v = jupiter_with(&["n"]);
    let tokens: Vec<&str> = v.pieces.iter().map(|p| p.token.as_str()).collect();
    for t in ["N", "R", "K", "CO", "WI", "EM", "EE"] {
        assert!(tokens.iter().any(|k| k.eq_ignore_ascii_case(t)), "{t} missing from {tokens:?}");
    }
    assert_eq!(tokens.len(), 7, "{tokens:?}");
    let pos = jupiter_position("16/16/16/16/16/16/16/16/16/16/16/16/16/16/16/(DEL)6k8 w");
    assert!(pos.variant().pieces.iter().any(|p| p.token.eq_ignore_ascii_case("EP")));
}
