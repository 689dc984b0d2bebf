//! Chushin Shogi (18x18, 95 types, multi-leg moves, per-piece passes) through the encoding:
//! distinct legal moves get distinct features, and where a position may be mirrored, the mirror
//! of its encoding is the encoding of its mirror image.

mod common;

use std::{collections::HashMap, sync::Arc};

use fairyzero_model::{encoding::MoveFeatures, mirror::mirror_left_right, EncodedBatch, Encoding, StandardEncoding};
use fairyzero_rules::{Move, MoveKind, PieceType, Position, Variant};

fn chushin() -> Arc<Variant> {
    Variant::load("chushin").expect("chushin loads")
}

fn sorted_moves(batch: &EncodedBatch) -> Vec<MoveFeatures> {
    let mut moves = batch.moves().to_vec();
    moves.sort_unstable();
    moves
}

#[test]
fn distinct_chushin_moves_get_distinct_features() {
    let v = chushin();
    let enc = StandardEncoding::new(Arc::clone(&v));
    let (mut moves_checked, mut passes) = (0, 0);
    for pos in common::random_positions(&v, 4, 200, 0xc5) {
        let mut seen: HashMap<MoveFeatures, Move> = HashMap::new();
        for m in &common::legal(&pos) {
            if let Some(other) = seen.insert(enc.encode_move(&pos, m), *m) {
                panic!(
                    "{} and {} share features in {}",
                    pos.move_to_string(&other),
                    pos.move_to_string(m),
                    pos.to_fen()
                );
            }
            passes += usize::from(m.kind == MoveKind::Pass);
        }
        moves_checked += seen.len();
    }
    assert!(moves_checked > 100_000 && passes > 100, "{moves_checked} moves, {passes} passes checked");
}

/// The Left and Right Generals are the only asymmetric types, and each other's mirror image, as
/// their promotions (+LT and +RT, both Shogun) are: every position mirrors, with the swap.
#[test]
fn the_left_and_right_generals_swap_in_the_mirror() {
    let v = chushin();
    let token = |t: PieceType| v.piece_def(t).token.clone();
    let asymmetric: Vec<String> =
        (0..v.piece_count()).filter(|&t| !v.mirror_safe[t]).map(|t| token(PieceType(t as u8))).collect();
    assert_eq!(asymmetric, ["LT", "RT"]);
    let swapped: Vec<(String, String)> = (0..v.piece_count())
        .map(|t| PieceType(t as u8))
        .filter_map(|t| v.mirror_type[t.index()].filter(|&u| u != t).map(|u| (token(t), token(u))))
        .collect();
    assert_eq!(
        swapped,
        [("LT", "RT"), ("RT", "LT"), ("+LT", "+RT"), ("+RT", "+LT")].map(|(a, b)| (a.into(), b.into()))
    );
    assert!(Position::start(Arc::clone(&v)).mirror_safe());
}

/// Mirroring a Chushin position's encoding equals encoding its mirror image, moves included
/// (multi-leg moves, passes, igui, the Generals' swap).
#[test]
fn mirrored_chushin_batches_match_the_mirrored_positions() {
    let v = chushin();
    let enc = StandardEncoding::new(Arc::clone(&v));
    let mut checked = 0;
    for played in common::random_positions(&v, 2, 150, 0x317) {
        let a = Position::from_fen(Arc::clone(&v), &played.to_fen()).unwrap();
        let b = a.mirrored().expect("every Chushin position mirrors").unwrap();
        let (la, lb) = (common::legal(&a), common::legal(&b));
        let mut mirrored = enc.encode_batch([(&a, la.as_slice())]);
        mirror_left_right(&mut mirrored, &[true]);
        let direct = enc.encode_batch([(&b, lb.as_slice())]);
        assert_eq!(mirrored.pieces(), direct.pieces(), "{}", a.to_fen());
        assert_eq!(sorted_moves(&mirrored), sorted_moves(&direct), "{}", a.to_fen());
        checked += 1;
    }
    assert!(checked > 200, "only {checked} positions");
}
