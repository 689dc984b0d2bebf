//! Protean men in the encoding (`[protean]`, Protean Chess): two spatial planes after the fixed
//! ones mark the side to move's protean man and the opponent's, seen from the side to move; the
//! choice before play is the setup phase of the global features, and each choice is a move of
//! its own kind on the chosen man's square. Variants without protean men keep exactly the fixed
//! planes.

mod common;

use std::sync::Arc;

use fairyzero_model::encoding::{global, move_kind_id, plane, plane_len, Encoding, MoveFeatures, StandardEncoding};
use fairyzero_rules::{MoveKind, Position, Variant};
use ndarray::Array2;

/// The planes and global features of `pos`, and its moves' features.
fn encode(pos: &Position) -> (Vec<Array2<f32>>, Vec<f32>, Vec<MoveFeatures>) {
    let enc = StandardEncoding::new(Arc::clone(pos.variant()));
    let moves = common::legal(pos);
    let batch = enc.encode_batch([(pos, moves.as_slice())]);
    assert_eq!(batch.plane_len(), enc.plane_len());
    let planes = batch.planes();
    let per_plane = (0..batch.plane_len()).map(|p| planes.slice(ndarray::s![0, p, .., ..]).to_owned()).collect();
    (per_plane, batch.global().row(0).to_vec(), batch.moves().to_vec())
}

/// The squares (relative, rank-major) where `plane` is 1.
fn ones(plane: &Array2<f32>) -> Vec<usize> {
    plane.iter().enumerate().filter(|(_, &x)| x == 1.0).map(|(i, _)| i).collect()
}

fn protean(fen: &str) -> Position {
    Position::from_fen(Variant::load("protean").unwrap(), fen).unwrap()
}

#[test]
fn variants_without_protean_men_keep_the_fixed_planes() {
    let chess = Variant::load("chess").unwrap();
    assert_eq!(plane_len(&chess), plane::COUNT);
    assert_eq!(StandardEncoding::new(Arc::clone(&chess)).plane_len(), plane::COUNT);
    let (planes, _, _) = encode(&Position::start(chess));
    assert_eq!(planes.len(), plane::COUNT);
    assert_eq!(plane_len(&Variant::load("protean").unwrap()), plane::COUNT + 2);
}

#[test]
fn the_protean_planes_mark_ours_and_theirs_from_the_side_to_move() {
    // White's protean knight on e4 (square 28), Black's protean bishop on c6 (square 42).
    let mut pos = protean("4k3/8/2b^5/8/4N^3/8/8/4K3 w - - 0 1 choices:0");
    let (planes, g, _) = encode(&pos);
    assert_eq!(planes.len(), plane::COUNT + 2);
    assert_eq!(ones(&planes[plane::PROTEAN_OURS]), vec![28]);
    assert_eq!(ones(&planes[plane::PROTEAN_THEIRS]), vec![42]);
    assert_eq!(g[global::SETUP_PHASE], 0.0);
    // Black to move: the board turns (square s is 63 - s) and the planes swap.
    pos.play_moves("e1d1").unwrap();
    let (planes, _, _) = encode(&pos);
    assert_eq!(ones(&planes[plane::PROTEAN_OURS]), vec![63 - 42]);
    assert_eq!(ones(&planes[plane::PROTEAN_THEIRS]), vec![63 - 28]);
    // The bishop takes the knight and becomes one: White's plane empties, Black's mark moves.
    pos.play_moves("c6e4").unwrap();
    let (planes, _, _) = encode(&pos);
    assert_eq!(ones(&planes[plane::PROTEAN_OURS]), Vec::<usize>::new());
    assert_eq!(ones(&planes[plane::PROTEAN_THEIRS]), vec![28]);
    // The fixed planes are the chess ones: the marks change nothing there.
    let chess = Position::from_fen(Variant::load("chess").unwrap(), "4k3/8/8/8/4n3/8/8/3K4 w - - 0 2").unwrap();
    let (chess_planes, _, _) = encode(&chess);
    assert_eq!(&planes[..plane::COUNT], &chess_planes[..]);
}

#[test]
fn the_choice_is_the_setup_phase_and_a_move_kind_of_its_own() {
    let mut pos = Position::start(Variant::load("protean").unwrap());
    let (planes, g, moves) = encode(&pos);
    assert_eq!(g[global::SETUP_PHASE], 1.0);
    assert!(ones(&planes[plane::PROTEAN_OURS]).is_empty() && ones(&planes[plane::PROTEAN_THEIRS]).is_empty());
    // 15 choices, each on its man's square, naming the man's type: all distinct.
    assert_eq!(moves.len(), 15);
    assert!(moves.iter().all(|f| f.kind == move_kind_id(MoveKind::Mark) && f.from == f.to && f.mover > 0));
    let mut distinct = moves.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 15);
    // After White's choice (e2, square 12), Black chooses: White's man is "theirs", rotated.
    pos.play_moves("e2e2").unwrap();
    let (planes, g, _) = encode(&pos);
    assert_eq!(g[global::SETUP_PHASE], 1.0);
    assert_eq!(ones(&planes[plane::PROTEAN_THEIRS]), vec![63 - 12]);
    pos.play_moves("d7d7").unwrap();
    let (_, g, moves) = encode(&pos);
    assert_eq!(g[global::SETUP_PHASE], 0.0);
    assert_eq!(moves.len(), 20);
}

#[test]
fn mirrored_protean_batches_match_the_mirrored_positions() {
    let v = Variant::load("protean").unwrap();
    let enc = StandardEncoding::new(Arc::clone(&v));
    let mut checked = 0;
    for pos in common::random_positions(&v, 12, 120, 59) {
        let Some(image) = pos.mirrored() else { continue };
        let image = image.unwrap();
        let (moves, image_moves) = (common::legal(&pos), common::legal(&image));
        let mut batch = enc.encode_batch([(&pos, moves.as_slice())]);
        fairyzero_model::mirror::mirror_left_right(&mut batch, &[true]);
        let direct = enc.encode_batch([(&image, image_moves.as_slice())]);
        assert_eq!(batch.planes(), direct.planes(), "{}", pos.to_fen());
        checked += 1;
    }
    assert!(checked > 20, "only {checked} positions mirrored");
}
