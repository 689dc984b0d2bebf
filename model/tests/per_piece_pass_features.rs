//! Per-piece passes (Chushin Shogi, dossier §8.5, §9.2): every passing piece has its own pass,
//! and no pass is legal right after one. The net must tell the passes apart (each names its
//! piece's square and type) and see why there are none (OPPONENT_PASSED). Checked on a small
//! variant written here, with two Chushin-style passers (`mabW`: out to an empty orthogonal
//! neighbour and back).

mod common;

use std::{collections::HashSet, sync::Arc};

use fairyzero_model::{encoding::global, mirror::mirror_left_right, Encoding, StandardEncoding};
use fairyzero_rules::{MoveKind, Position, Variant};

/// 5x5, kings and two passing generals each, no check rule.
const PASS_PER_PIECE: &str = r#"
name = "passperpiece"
description = "model test: per-piece passes, none right after a pass"
width = 5
height = 5
start = "2k2/1g1g1/5/1G1G1/2K2 w - - 0 1"
notation = "fairyzero"
repetition = "fourth_draws"
pass = "per_piece_no_double_pass"
move_cap = 200

[promotion]
zone_ranks = 0

[victory]
royal = "capture"
stalemate = "loss"

[[piece]]
name = "general"
token = "G"
betza = "WmabW"

[[piece]]
name = "king"
token = "K"
betza = "K"
royal = true
"#;

fn pass_per_piece() -> Arc<Variant> {
    Variant::from_toml("passperpiece (model test)", PASS_PER_PIECE, None).expect("the test variant loads")
}

fn opponent_passed(pos: &Position) -> f32 {
    let enc = StandardEncoding::new(Arc::clone(pos.variant()));
    let moves = common::legal(pos);
    enc.encode_batch([(pos, moves.as_slice())]).global()[[0, global::OPPONENT_PASSED]]
}

#[test]
fn each_passer_has_its_own_pass_with_its_own_features() {
    let v = pass_per_piece();
    let pos = Position::start(Arc::clone(&v));
    let enc = StandardEncoding::new(Arc::clone(&v));
    let passes: Vec<_> = common::legal(&pos).iter().copied().filter(|m| m.kind == MoveKind::Pass).collect();
    assert_eq!(passes.len(), 2, "one pass per general: {passes:?}");
    let features: HashSet<_> = passes.iter().map(|m| enc.encode_move(&pos, m)).collect();
    assert_eq!(features.len(), 2, "the two passes get distinct features");
    for m in &passes {
        let f = enc.encode_move(&pos, m);
        assert_eq!(f.from, enc.relative_square(pos.side_to_move(), m.from), "{f:?}");
        assert_eq!(f.mover, v.piece_by_token("G").unwrap().0 as u16 + 1, "{f:?}");
    }
}

#[test]
fn a_pass_sets_opponent_passed_and_forbids_passing_back() {
    let v = pass_per_piece();
    let mut pos = Position::start(Arc::clone(&v));
    assert_eq!(opponent_passed(&pos), 0.0, "start position");
    let pass = common::legal(&pos).iter().copied().find(|m| m.kind == MoveKind::Pass).expect("a general can pass");
    pos.make(pass);
    assert_eq!(opponent_passed(&pos), 1.0, "after Blue's pass: {}", pos.to_fen());
    let moves = common::legal(&pos);
    assert!(!moves.is_empty() && moves.iter().all(|m| m.kind != MoveKind::Pass), "no pass after a pass");
    let king_move = pos.parse_move("c5d5").unwrap();
    pos.make(king_move);
    assert_eq!(opponent_passed(&pos), 0.0, "after Tan's king move: {}", pos.to_fen());
    pos.unmake();
    assert_eq!(opponent_passed(&pos), 1.0, "unmake restores the flag");
}

/// The mirror of an encoded batch with per-piece passes equals the encoding of the mirrored
/// position: a pass that names its piece mirrors its square.
#[test]
fn per_piece_passes_mirror_with_their_piece() {
    let v = pass_per_piece();
    let enc = StandardEncoding::new(Arc::clone(&v));
    let positions = common::random_positions(&v, 8, 40, 17);
    let mut checked = 0;
    for played in &positions {
        let a = Position::from_fen(Arc::clone(&v), &played.to_fen()).unwrap();
        let Some(b) = a.mirrored() else { continue };
        let b = b.unwrap();
        let (la, lb) = (common::legal(&a), common::legal(&b));
        let mut mirrored = enc.encode_batch([(&a, la.as_slice())]);
        mirror_left_right(&mut mirrored, &[true]);
        let direct = enc.encode_batch([(&b, lb.as_slice())]);
        assert_eq!(mirrored.pieces(), direct.pieces(), "{}", a.to_fen());
        let sorted = |batch: &fairyzero_model::EncodedBatch| {
            let mut m = batch.moves().to_vec();
            m.sort_unstable();
            m
        };
        assert_eq!(sorted(&mirrored), sorted(&direct), "{}", a.to_fen());
        checked += usize::from(la.iter().any(|m| m.kind == MoveKind::Pass));
    }
    assert!(checked > 20, "only {checked} positions with passes mirrored");
}

/// The mirror image of a position right after a pass keeps the pass flag: it has no passes
/// either, and its encoding is the mirror of the original's, OPPONENT_PASSED included.
#[test]
fn the_mirror_image_of_a_position_after_a_pass_has_no_pass_either() {
    let v = pass_per_piece();
    let enc = StandardEncoding::new(Arc::clone(&v));
    let mut pos = Position::start(Arc::clone(&v));
    let pass = common::legal(&pos).iter().copied().find(|m| m.kind == MoveKind::Pass).expect("a general can pass");
    pos.make(pass);
    let image = pos.mirrored().expect("symmetric pieces only").unwrap();
    assert!(image.last_move_was_pass());
    let (la, lb) = (common::legal(&pos), common::legal(&image));
    assert!(lb.iter().all(|m| m.kind != MoveKind::Pass), "no pass after a pass in the image");
    let mut mirrored = enc.encode_batch([(&pos, la.as_slice())]);
    mirror_left_right(&mut mirrored, &[true]);
    let direct = enc.encode_batch([(&image, lb.as_slice())]);
    assert_eq!(mirrored.global(), direct.global());
    assert_eq!(direct.global()[[0, global::OPPONENT_PASSED]], 1.0);
    let sorted = |batch: &fairyzero_model::EncodedBatch| {
        let mut m = batch.moves().to_vec();
        m.sort_unstable();
        m
    };
    assert_eq!(sorted(&mirrored), sorted(&direct));
}
