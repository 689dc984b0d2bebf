//! Multi-move turns in the encoding (`[turns]`, issue 21 #11-#16: Two Move Chess, Progressive
//! Chess, ...): the side to move may move again, which the board does not show, so two global
//! features after the fixed ones (and the hands) tell the net how many moves it has left in its
//! turn and how long the turn is. Variants with one move per turn keep exactly the fixed ones.

use std::sync::Arc;

use fairyzero_model::encoding::{global, global_len, turn_features, Encoding, StandardEncoding};
use fairyzero_rules::{MoveList, Position, Variant};

/// The global features of `pos` (moves left after this one / turn length, then 1 - 1/length).
fn turn_globals(pos: &Position) -> (f32, f32) {
    let enc = StandardEncoding::new(Arc::clone(pos.variant()));
    let mut moves = MoveList::new();
    pos.clone().legal_moves(&mut moves);
    let batch = enc.encode_batch([(pos, moves.as_slice())]);
    assert_eq!(batch.global_len(), enc.global_len());
    let g = batch.global().row(0).to_vec();
    assert_eq!(g.len(), global_len(pos.variant()));
    (g[global::COUNT], g[global::COUNT + 1])
}

fn play(pos: &mut Position, moves: &str) {
    pos.play_moves(moves).unwrap_or_else(|e| panic!("{moves}: {e}"));
}

#[test]
fn variants_with_one_move_a_turn_have_no_turn_features() {
    let chess = Variant::load("chess").unwrap();
    assert_eq!(turn_features(&chess), 0);
    assert_eq!(global_len(&chess), global::COUNT);
    assert_eq!(StandardEncoding::new(chess).global_len(), global::COUNT);
}

#[test]
fn the_net_sees_whether_the_side_to_move_moves_again() {
    let v = Variant::load("twomove").unwrap();
    assert_eq!(turn_features(&v), 2);
    assert_eq!(global_len(&v), global::COUNT + 2);
    let mut pos = Position::start(Arc::clone(&v));
    // First move of two: one more after it.
    assert_eq!(turn_globals(&pos), (0.5, 0.5));
    // Second move: the turn ends with it.
    play(&mut pos, "e2e4");
    assert_eq!(turn_globals(&pos), (0.0, 0.5));
    // Black's first move: the same as White's, seen from Black.
    play(&mut pos, "d2d4");
    assert_eq!(turn_globals(&pos), (0.5, 0.5));
}

#[test]
fn progressive_turns_are_seen_growing() {
    let mut pos = Position::start(Variant::load("progressive").unwrap());
    assert_eq!(turn_globals(&pos), (0.0, 0.0));
    play(&mut pos, "e2e4");
    assert_eq!(turn_globals(&pos), (0.5, 0.5));
    play(&mut pos, "e7e5 d7d5");
    let (left, length) = turn_globals(&pos);
    assert!((left - 2.0 / 3.0).abs() < 1e-6 && (length - 2.0 / 3.0).abs() < 1e-6, "{left} {length}");
}

#[test]
fn the_same_board_with_other_moves_left_encodes_apart() {
    let v = Variant::load("marseillais").unwrap();
    let first = Position::from_fen(Arc::clone(&v), "4k3/8/8/8/8/8/8/R3K3 w - - 0 1 2/2").unwrap();
    let second = Position::from_fen(Arc::clone(&v), "4k3/8/8/8/8/8/8/R3K3 w - - 0 1 1/2").unwrap();
    assert_ne!(turn_globals(&first), turn_globals(&second));
}
