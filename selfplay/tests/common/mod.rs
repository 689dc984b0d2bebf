//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::sync::Arc;

use fairyzero_model::backend::Backend;
use fairyzero_rules::{Color, MoveList, Position, Variant};
use fairyzero_selfplay::{
    config::CapResult,
    search::{outcome_value, Adjudicator, Search, SearchOptions, SearchParams},
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

pub fn position(variant: &str, fen: &str) -> Position {
    Position::from_fen(Variant::load(variant).unwrap(), fen).unwrap()
}

/// An adjudicator that ends the game `plies` plies after `pos` (a draw), so that the game tree
/// below `pos` is finite.
pub fn capped(pos: &Position, plies: u32) -> Adjudicator {
    Adjudicator { cap_ply: pos.ply() + plies, cap_result: CapResult::Draw }
}

pub fn uncapped() -> Adjudicator {
    Adjudicator { cap_ply: u32::MAX, cap_result: CapResult::Draw }
}

/// Exact minimax value for the side to move, by full-width search to the adjudicator's end.
pub fn minimax(pos: &mut Position, adj: &Adjudicator) -> f32 {
    let mut legal = MoveList::new();
    pos.legal_moves(&mut legal);
    if let Some(o) = adj.outcome(pos, &legal) {
        let (v, _) = outcome_value(&o);
        return if pos.side_to_move() == Color::Blue { v } else { -v };
    }
    let us = pos.side_to_move();
    let mut best = f32::NEG_INFINITY;
    for m in legal {
        pos.make(m);
        let v = minimax(pos, adj);
        let v = if pos.side_to_move() == us { v } else { -v };
        pos.unmake();
        best = best.max(v);
        if best >= 1.0 {
            break;
        }
    }
    best
}

pub fn search(pos: Position, params: SearchParams, adj: Adjudicator, seed: u64) -> Search {
    Search::new(pos, params, adj, ChaCha8Rng::seed_from_u64(seed))
}

/// A fresh search of `sims` simulations without noise.
pub fn searched(pos: &Position, params: SearchParams, adj: Adjudicator, sims: u32, eval: &dyn Backend) -> Search {
    let mut s = search(pos.clone(), params, adj, 1);
    s.begin(SearchOptions::exact(sims));
    s.run(eval);
    s
}

pub fn variant(name: &str) -> Arc<Variant> {
    Variant::load(name).unwrap()
}
