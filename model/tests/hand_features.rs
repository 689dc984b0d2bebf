//! Pieces in hand in the encoding (`[drops]`: Pocket Knight, Pre-chess): the hands are global
//! features after the fixed ones, seen from the side to move, and drops are moves of their own
//! kind whose features name the dropped type and the square, so the policy has one entry per
//! drop. Variants without drops keep exactly the fixed features.

use std::sync::Arc;

use fairyzero_model::encoding::{global, global_len, hand_features, move_kind_id, Encoding, StandardEncoding};
use fairyzero_rules::{MoveKind, MoveList, Position, Variant};

fn encode(pos: &Position) -> (Vec<f32>, Vec<fairyzero_model::encoding::MoveFeatures>) {
    let enc = StandardEncoding::new(Arc::clone(pos.variant()));
    let mut moves = MoveList::new();
    pos.clone().legal_moves(&mut moves);
    let batch = enc.encode_batch([(pos, moves.as_slice())]);
    assert_eq!(batch.global_len(), enc.global_len());
    (batch.global().row(0).to_vec(), batch.moves().to_vec())
}

#[test]
fn variants_without_drops_keep_the_fixed_global_features() {
    let chess = Variant::load("chess").unwrap();
    assert_eq!(hand_features(&chess), 0);
    assert_eq!(global_len(&chess), global::COUNT);
    assert_eq!(StandardEncoding::new(chess).global_len(), global::COUNT);
}

#[test]
fn the_hands_are_seen_from_the_side_to_move() {
    let v = Variant::load("pocketknight").unwrap();
    let knight = v.piece_by_token("N").unwrap().index();
    let (ours, theirs) = (global::COUNT + 2 * knight, global::COUNT + 2 * knight + 1);
    assert_eq!(global_len(&v), global::COUNT + 2 * v.piece_count());
    let mut pos = Position::start(Arc::clone(&v));
    let (g, _) = encode(&pos);
    assert_eq!(g.len(), global_len(&v));
    assert_eq!((g[ours], g[theirs]), (1.0, 1.0));
    // Every other type: nothing in hand.
    let others: f32 = (global::COUNT..g.len()).filter(|&i| i != ours && i != theirs).map(|i| g[i]).sum();
    assert_eq!(others, 0.0);
    // White drops: Black to move holds its knight, White no longer.
    pos.play_moves("N@e4").unwrap();
    let (g, _) = encode(&pos);
    assert_eq!((g[ours], g[theirs]), (1.0, 0.0));
    pos.play_moves("e7e5").unwrap();
    let (g, _) = encode(&pos);
    assert_eq!((g[ours], g[theirs]), (0.0, 1.0));
}

#[test]
fn placement_hands_count_down_from_one() {
    let v = Variant::load("prechess").unwrap();
    let rook = v.piece_by_token("R").unwrap().index();
    let mut pos = Position::start(Arc::clone(&v));
    pos.play_moves("R@a1").unwrap();
    let (g, _) = encode(&pos);
    // Black (to move) holds both rooks, White one of two.
    assert_eq!((g[global::COUNT + 2 * rook], g[global::COUNT + 2 * rook + 1]), (1.0, 0.5));
}

#[test]
fn every_drop_has_features_of_its_own() {
    let v = Variant::load("pocketknight").unwrap();
    let pos = Position::start(Arc::clone(&v));
    let (_, features) = encode(&pos);
    let drops: Vec<_> = features.iter().filter(|f| f.kind == move_kind_id(MoveKind::Drop)).collect();
    assert_eq!(drops.len(), 32);
    let knight = v.piece_by_token("N").unwrap().0 as u16 + 1;
    assert!(drops.iter().all(|f| f.piece == knight && f.mover == 0 && f.from == f.to));
    let mut distinct = features.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), features.len(), "no two moves share features");
    // Black's drops are seen rotated like its moves: e5 (36) is d4 (27) from Black's side.
    let mut black = Position::start(Arc::clone(&v));
    black.play_moves("e2e4").unwrap();
    let m = black.parse_move("N@e5").unwrap();
    let f = StandardEncoding::new(v).encode_move(&black, &m);
    assert_eq!((f.from, f.to, f.piece), (27, 27, knight));
}
