//! Helpers shared by the integration tests of the model and torch crates (torch/tests/net.rs
//! includes this file by path).
#![allow(dead_code)]

use std::sync::Arc;

use fairyzero_rules::{MoveList, Position, Variant};
use rand::{rngs::StdRng, Rng, SeedableRng};

/// Positions reached by seeded random play: `games` games of at most `plies` plies each, from
/// the start position and, for variants with a setup phase, from the setup start as well. Every
/// position returned has at least one legal move.
pub fn random_positions(variant: &Arc<Variant>, games: usize, plies: usize, seed: u64) -> Vec<Position> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::new();
    let mut moves = MoveList::new();
    for game in 0..games {
        let mut pos = match Position::setup_start(Arc::clone(variant)) {
            Some(setup) if game % 2 == 1 => setup,
            _ => Position::start(Arc::clone(variant)),
        };
        for _ in 0..plies {
            pos.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            out.push(pos.clone());
            let m = moves[rng.gen_range(0..moves.len())];
            pos.make(m);
        }
    }
    out
}

/// Legal moves of a position.
pub fn legal(pos: &Position) -> MoveList {
    let mut moves = MoveList::new();
    pos.clone().legal_moves(&mut moves);
    moves
}
