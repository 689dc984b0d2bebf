//! Mirror pairs: two piece types that move as each other's mirror image (Chushin Shogi's Left
//! General `FvrW` and Right General `FvlW`) swap in the left-right mirror, and so do their
//! promotions. Mirroring a position (`Position::mirrored`) and mirroring its encoding
//! (`mirror_left_right`) must commute with its legal moves: the mirrored encoding is the
//! encoding of the mirrored position, moves included.

mod common;

use std::sync::Arc;

use fairyzero_model::{encoding::MoveFeatures, mirror::mirror_left_right, EncodedBatch, StandardEncoding};
use fairyzero_rules::{Position, Variant};

/// 7x7: kings, pawns, a Left and a Right General promoting to two identical symmetric types
/// (like +LT and +RT, both Shogun), and `extra` pieces appended to the piece list.
fn lopsided(extra: &str, promoted_right: &str) -> Arc<Variant> {
    let text = format!(
        r#"
name = "mirrorpairs"
description = "model test: mirror-image piece types"
width = 7
height = 7
start = "3k3/1l1p1r1/7/7/7/1L1P1R1/3K3 w - - 0 1"
notation = "fairyzero"
repetition = "fourth_draws"
move_cap = 200

[promotion]
zone_ranks = 2
trigger = "starts_or_ends_in_zone"
mandatory = "never"

[victory]
royal = "capture"
stalemate = "loss"

[[piece]]
name = "king"
token = "K"
betza = "K"
royal = true

[[piece]]
name = "pawn"
token = "P"
betza = "fW"

[[piece]]
name = "left general"
token = "L"
betza = "FvrW"
promotes_to = ["A"]

[[piece]]
name = "right general"
token = "R"
betza = "FvlW"
promotes_to = ["B"]

[[piece]]
name = "shogun of the left"
token = "A"
betza = "KD"

[[piece]]
name = "shogun of the right"
token = "B"
betza = "{promoted_right}"
{extra}
"#
    );
    Variant::from_toml("mirrorpairs (model test)", &text, None).expect("the test variant loads")
}

fn token_image(v: &Variant, token: &str) -> Option<String> {
    let t = v.piece_by_token(token).unwrap();
    v.mirror_type[t.index()].map(|u| v.piece_def(u).token.clone())
}

fn sorted_moves(batch: &EncodedBatch) -> Vec<MoveFeatures> {
    let mut moves = batch.moves().to_vec();
    moves.sort_unstable();
    moves
}

/// Mirrors every mirror-safe position of random play both ways and compares; returns how many
/// positions held a piece of a mirror pair.
fn check_commutes(v: &Arc<Variant>, games: usize, plies: usize, paired: &[&str]) -> usize {
    let enc = StandardEncoding::new(Arc::clone(v));
    let paired: Vec<_> = paired.iter().map(|t| v.piece_by_token(t).unwrap()).collect();
    let mut with_pairs = 0;
    for played in common::random_positions(v, games, plies, 0x31) {
        // From the position string, so that both sides have no history.
        let a = Position::from_fen(Arc::clone(v), &played.to_fen()).unwrap();
        let Some(b) = a.mirrored() else { continue };
        let b = b.unwrap();
        let (la, lb) = (common::legal(&a), common::legal(&b));
        assert_eq!(la.len(), lb.len(), "{} vs {}", a.to_fen(), b.to_fen());
        let mut mirrored = enc.encode_batch([(&a, la.as_slice())]);
        mirror_left_right(&mut mirrored, &[true]);
        let direct = enc.encode_batch([(&b, lb.as_slice())]);
        assert_eq!(mirrored.pieces(), direct.pieces(), "{} vs {}", a.to_fen(), b.to_fen());
        assert_eq!(mirrored.planes(), direct.planes(), "{}", a.to_fen());
        assert_eq!(mirrored.global(), direct.global(), "{}", a.to_fen());
        assert_eq!(sorted_moves(&mirrored), sorted_moves(&direct), "{} vs {}", a.to_fen(), b.to_fen());
        // Twice the mirror is the identity, the swap included.
        assert_eq!(b.mirrored().unwrap().unwrap().to_fen(), a.to_fen());
        mirror_left_right(&mut mirrored, &[true]);
        assert_eq!(mirrored, enc.encode_batch([(&a, la.as_slice())]));
        with_pairs += usize::from(a.board().iter().flatten().any(|p| paired.contains(&p.kind())));
    }
    with_pairs
}

#[test]
fn left_and_right_generals_and_their_promotions_swap() {
    let v = lopsided("", "KD");
    let images: Vec<_> = ["K", "P", "L", "R", "A", "B"].iter().map(|t| token_image(&v, t)).collect();
    let expect = ["K", "P", "R", "L", "B", "A"].map(|t| Some(t.to_string()));
    assert_eq!(images, expect);
    let start = Position::start(Arc::clone(&v));
    assert!(start.mirror_safe(), "Left and Right Generals mirror onto each other");
    // Blue's Left General on b2 becomes a Right General on f2.
    let mirrored = start.mirrored().unwrap().unwrap();
    assert_eq!(mirrored.to_fen().split(' ').next(), Some("3k3/1l1p1r1/7/7/7/1L1P1R1/3K3"));
    let held = check_commutes(&v, 16, 80, &["L", "R", "A", "B"]);
    assert!(held > 300, "only {held} positions with a Left or Right General or their promotions");
}

#[test]
fn a_pair_whose_promotions_differ_does_not_mirror() {
    // The Right General's promotion moves like a Queen, not like the Left's (KD): no swap.
    let v = lopsided("", "Q");
    for t in ["L", "R"] {
        assert_eq!(token_image(&v, t), None, "{t}");
    }
    assert_eq!(token_image(&v, "A"), Some("A".into()));
    assert!(!Position::start(Arc::clone(&v)).mirror_safe());
    check_commutes(&v, 4, 60, &[]);
}

#[test]
fn a_lone_asymmetric_type_has_no_image() {
    // A third general that steps like the Left one but may not promote is nobody's partner,
    // and the Left/Right pair stays one.
    let v = lopsided("\n[[piece]]\nname = \"odd general\"\ntoken = \"O\"\nbetza = \"FlW\"\n", "KD");
    assert_eq!(token_image(&v, "O"), None);
    assert_eq!(token_image(&v, "L"), Some("R".into()));
}
