//! A checkpoint (or any [`Backend`]) as a player: the self-play crate's tree search with a
//! fixed simulation budget per move, no exploration noise, and tree reuse between moves.
//!
//! It evaluates one leaf per search round and blocks for the answer. Its backend is normally an
//! inference service shared by all games of a match, so the game threads' leaves merge into
//! batches there (see [`matches`](crate::matches)); the answers, and so the moves, do not
//! depend on which batch a leaf landed in.

use std::sync::Arc;

use fairyzero_model::backend::Backend;
use fairyzero_rules::{Move, Position};
use fairyzero_selfplay::{
    config::{CapResult, SearchKind},
    search::{Adjudicator, Search, SearchOptions, SearchParams},
};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::player::{GameContext, Player};

/// How a search player searches.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchPlayerConfig {
    pub simulations: u32,
    pub params: SearchParams,
}

impl Default for SearchPlayerConfig {
    fn default() -> Self {
        SearchPlayerConfig { simulations: crate::player::DEFAULT_SIMULATIONS, params: SearchParams::gumbel() }
    }
}

impl SearchPlayerConfig {
    pub fn with_kind(kind: SearchKind) -> SearchPlayerConfig {
        let params = match kind {
            SearchKind::Gumbel => SearchParams::gumbel(),
            SearchKind::Puct => SearchParams::puct(),
        };
        SearchPlayerConfig { params, ..SearchPlayerConfig::default() }
    }
}

pub struct SearchPlayer {
    backend: Arc<dyn Backend>,
    config: SearchPlayerConfig,
    search: Option<Search>,
    cap_ply: u32,
}

impl SearchPlayer {
    pub fn new(backend: Arc<dyn Backend>, config: SearchPlayerConfig) -> SearchPlayer {
        SearchPlayer { backend, config, search: None, cap_ply: u32::MAX }
    }

    /// Brings the search tree to `pos`: plays the moves made since the last search (keeping
    /// their subtrees) when `pos` continues the same game, otherwise starts a new tree.
    fn sync(&mut self, pos: &Position, rng: &mut dyn RngCore) -> &mut Search {
        let adjudicator = Adjudicator { cap_ply: self.cap_ply, cap_result: CapResult::Draw };
        let continues = self.search.as_ref().is_some_and(|s| {
            let done = s.position().ply() as usize;
            pos.ply() as usize >= done && s.position().moves_played().eq(pos.moves_played().take(done))
        });
        if continues {
            let s = self.search.as_mut().expect("checked above");
            let done = s.position().ply() as usize;
            let missing: Vec<Move> = pos.moves_played().skip(done).collect();
            for m in missing {
                s.play(m, true);
            }
        } else {
            let seed = rng.next_u64();
            self.search = Some(Search::new(
                pos.clone(),
                self.config.params.clone(),
                adjudicator,
                ChaCha8Rng::seed_from_u64(seed),
            ));
        }
        self.search.as_mut().expect("set above")
    }
}

impl Player for SearchPlayer {
    fn new_game(&mut self, _start: &Position, ctx: &GameContext) {
        self.search = None;
        self.cap_ply = ctx.cap_ply;
    }

    fn choose(&mut self, pos: &mut Position, legal: &[Move], rng: &mut dyn RngCore) -> Move {
        let backend = Arc::clone(&self.backend);
        let simulations = self.config.simulations;
        let search = self.sync(pos, rng);
        search.begin(SearchOptions::exact(simulations));
        search.run(backend.as_ref());
        match search.best_move() {
            Some(m) if legal.contains(&m) => m,
            _ => legal[0],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairyzero_model::backend::MockBackend;
    use fairyzero_rules::{MoveList, Variant};

    #[test]
    fn a_search_player_finds_mate_and_follows_the_game() {
        let v = Variant::load("chess").unwrap();
        let mut pos = Position::from_fen(Arc::clone(&v), "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1").unwrap();
        let config = SearchPlayerConfig { simulations: 200, params: SearchParams::puct() };
        let mut p = SearchPlayer::new(Arc::new(MockBackend::material()), config);
        p.new_game(&pos, &GameContext { cap_ply: u32::MAX });
        let mut legal = MoveList::new();
        pos.legal_moves(&mut legal);
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let m = p.choose(&mut pos, &legal, &mut rng);
        assert_eq!(pos.move_to_string(&m), "a1a8");
        // Another line of the same game: the tree follows.
        pos.make(legal.iter().copied().find(|m| pos.move_to_string(m) == "g1f1").unwrap());
        pos.legal_moves(&mut legal);
        let reply = legal[0];
        pos.make(reply);
        pos.legal_moves(&mut legal);
        let m = p.choose(&mut pos, &legal, &mut rng);
        assert!(legal.contains(&m));
    }
}
