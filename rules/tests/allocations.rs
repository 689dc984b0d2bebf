//! The rules' hot path allocates nothing once its buffers have grown: legal move generation into
//! a reused list, make/unmake, the attack test and the outcome check, as self-play calls them
//! once per simulation. A counting global allocator (hence this file's own test binary) counts
//! the allocations of the test's own thread.

// Counting allocations needs a `GlobalAlloc`, whose trait is unsafe to implement
// (support/counting_alloc.rs); it only forwards to `System`.
#![allow(unsafe_code)]

use std::sync::Arc;

use fairyzero_rules::{MoveList, Position, Variant};
use rand::{rngs::StdRng, Rng, SeedableRng};

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::allocations_of;

/// A seeded random walk of `plies` plies from `root` (which it leaves as it found it), as one
/// self-play simulation does per ply: the legal moves into `moves`, the outcome check, the
/// attack test on the side to move, every legal move made and unmade, then one random move
/// played. A finished game goes back to the root, as self-play starts a new one.
fn walk(root: &mut Position, plies: usize, seed: u64, moves: &mut MoveList) -> usize {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut depth = 0;
    let mut played = 0;
    for _ in 0..plies {
        root.legal_moves(moves);
        let over = root.outcome_with(moves).is_some();
        let _ = root.in_check(root.side_to_move());
        for i in 0..moves.len() {
            root.make(moves[i]);
            let _ = root.immediate_outcome();
            root.unmake();
        }
        if over || moves.is_empty() {
            for _ in 0..depth {
                root.unmake();
            }
            depth = 0;
            continue;
        }
        root.make(moves[rng.gen_range(0..moves.len())]);
        depth += 1;
        played += 1;
    }
    for _ in 0..depth {
        root.unmake();
    }
    played
}

/// Walks once to grow the buffers (move list, history), then walks the same plies again and
/// counts.
fn assert_steady_state_allocates_nothing(variant: &str) {
    let variant = Variant::load(variant).unwrap_or_else(|e| panic!("{e}"));
    let mut pos = Position::setup_start(Arc::clone(&variant)).unwrap_or_else(|| Position::start(variant.clone()));
    let fen = pos.to_fen();
    let mut moves = MoveList::new();
    const PLIES: usize = 300;
    let warm = walk(&mut pos, PLIES, 15, &mut moves);
    assert_eq!(pos.to_fen(), fen, "the walk leaves the root as it found it");
    let mut played = 0;
    let allocations = allocations_of(|| played = walk(&mut pos, PLIES, 15, &mut moves));
    assert_eq!(played, warm, "the second walk replays the first");
    assert!(played >= PLIES / 2, "{} played only {played} plies: the walk tests too little", variant.name);
    assert_eq!(allocations, 0, "{}: {allocations} allocations in {played} plies", variant.name);
}

#[test]
fn the_counter_sees_allocations() {
    let n = allocations_of(|| drop(std::hint::black_box(vec![1u8; 10])));
    assert_eq!(n, 1);
}

#[test]
fn scirocco_hot_path_allocates_nothing() {
    assert_steady_state_allocates_nothing("scirocco");
}

#[test]
fn typhoon_hot_path_allocates_nothing() {
    assert_steady_state_allocates_nothing("typhoon");
}

/// Kinglet's extinction rule lists a piece type (`pieces = ["P"]`).
#[test]
fn extinction_by_listed_types_allocates_nothing() {
    assert_steady_state_allocates_nothing("kinglet");
}

/// Multi-move turns: the look-ahead of a royal safe only at its turn's end (Monster's Black) and
/// the threat of the opponent's two-move turn (Monster's White, Two for One's Black), progressive
/// turns that a check ends.
#[test]
fn multimove_turns_allocate_nothing() {
    for variant in ["twomove", "marseillais", "progressive", "monster", "twoforone"] {
        assert_steady_state_allocates_nothing(variant);
    }
}

/// Castling, en passant, promotion and the check filter.
#[test]
fn chess_hot_path_allocates_nothing() {
    assert_steady_state_allocates_nothing("chess");
}
