//! One self-play game as a state machine that the multi-game driver advances between batches.

use std::sync::Arc;

use fairyzero_rules::{Outcome, Position, PositionError, Variant};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::{
    config::{SearchKind, SelfPlayConfig, SetupMode},
    record::{
        hash_hex, program_version, GameRecord, GameResult, MoveRecord, PolicyTarget, SearchInfo, SetupKind, Termination,
    },
    search::{Adjudicator, Search, SearchOptions, SearchParams},
};

/// Where games start, resolved once per run.
#[derive(Clone, Debug)]
pub struct GameStart {
    pub position: Position,
    pub kind: SetupKind,
    /// The record's `start` field.
    pub text: String,
}

impl GameStart {
    /// Resolves a setup mode for a variant; fails on a bad position string.
    pub fn resolve(variant: &Arc<Variant>, mode: &SetupMode) -> Result<GameStart, PositionError> {
        Ok(match mode {
            SetupMode::Phase => match Position::setup_start(Arc::clone(variant)) {
                Some(position) => {
                    let text = variant.spec.setup.as_ref().map(|s| s.fixed.clone()).unwrap_or_default();
                    GameStart { position, kind: SetupKind::Phase, text }
                }
                None => GameStart::default_start(variant),
            },
            SetupMode::Default => GameStart::default_start(variant),
            SetupMode::Fen(mask) if mask.starts_with("setup:") => {
                // A setup mask names an array; games start from it as from its position string.
                let array = Position::from_setup_text(Arc::clone(variant), mask).map_err(|e| PositionError {
                    text: mask.clone(),
                    at: None,
                    message: e.to_string(),
                })?;
                let position = Position::from_fen(Arc::clone(variant), &array.to_fen())?;
                GameStart { text: position.to_fen(), position, kind: SetupKind::Fen }
            }
            SetupMode::Fen(fen) => {
                let position = Position::from_fen(Arc::clone(variant), fen)?;
                GameStart { text: position.to_fen(), position, kind: SetupKind::Fen }
            }
        })
    }

    fn default_start(variant: &Arc<Variant>) -> GameStart {
        let position = Position::start(Arc::clone(variant));
        GameStart { text: position.to_fen(), position, kind: SetupKind::Default }
    }
}

/// A game seed from the run seed and the game's index (SplitMix64), so that each game is
/// reproducible on its own whatever thread or slot plays it.
pub fn game_seed(run_seed: u64, index: u64) -> u64 {
    let mut z = run_seed ^ index.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// What [`SelfPlayGame::advance`] stopped at.
pub enum Advance {
    /// Leaves wait for the backend.
    NeedsEval,
    /// The game is over.
    Finished(Box<GameRecord>),
}

/// A game in progress.
pub struct SelfPlayGame {
    pub search: Search,
    config: Arc<SelfPlayConfig>,
    record: GameRecord,
    full: bool,
    searching: bool,
    /// Plies played (the record's moves so far).
    ply: u32,
}

impl SelfPlayGame {
    pub fn new(start: &GameStart, config: Arc<SelfPlayConfig>, seed: u64, net: &str) -> SelfPlayGame {
        // A variant whose array is drawn by chance (`[start_generator]`) starts each game from the
        // array of the game's own seed, recorded as the game's start position string.
        let drawn = match start.kind {
            SetupKind::Default => start.position.variant().generated_start(seed).map(|fen| {
                let position = Position::from_fen(Arc::clone(start.position.variant()), &fen)
                    .expect("a generated array is a valid position");
                GameStart { position, kind: SetupKind::Fen, text: fen }
            }),
            _ => None,
        };
        let start = drawn.as_ref().unwrap_or(start);
        let v = start.position.variant();
        let adjudicator = Adjudicator::new(&start.position, config.move_cap, config.move_cap_result);
        let search = Search::new(
            start.position.clone(),
            SearchParams::from_config(&config),
            adjudicator,
            ChaCha8Rng::seed_from_u64(seed),
        );
        let record = GameRecord {
            variant: v.name.clone(),
            variant_hash: hash_hex(v.hash),
            setup: start.kind,
            start: start.text.clone(),
            moves: Vec::new(),
            // Set by `finish_game`.
            result: GameResult { winner: None, reason: Termination::MoveCap },
            search: SearchInfo {
                kind: config.search,
                simulations: config.simulations,
                policy_target: PolicyTarget::of(config.search),
            },
            net: net.to_string(),
            seed,
            program_version: program_version(),
        };
        SelfPlayGame { search, config, record, full: true, searching: false, ply: 0 }
    }

    /// Moves the game on until its search needs evaluations or the game ends.
    pub fn advance(&mut self) -> Advance {
        loop {
            if self.searching {
                if self.search.is_done() {
                    self.finish_move();
                } else if self.search.gather() > 0 {
                    return Advance::NeedsEval;
                }
                continue;
            }
            if let Some(outcome) = self.start_move() {
                return Advance::Finished(Box::new(self.finish_game(outcome)));
            }
        }
    }

    /// Starts the next move's search, plays a forced move, or returns the result.
    fn start_move(&mut self) -> Option<Outcome> {
        let (legal, outcome) = self.search.root_status();
        if outcome.is_some() {
            return outcome;
        }
        if legal.len() == 1 && self.config.skip_forced_moves {
            let mv = legal[0];
            let text = self.search.position().move_to_string(&mv);
            self.record.moves.push(MoveRecord { mv: text, policy: None, value: 0.0, simulations: 0, evaluations: 0 });
            self.search.play(mv, self.config.reuse_tree);
            self.ply += 1;
            return None;
        }
        let c = &self.config;
        self.full = match &c.playout_cap {
            None => true,
            Some(cap) => self.search.rng().gen::<f32>() < cap.full_fraction,
        };
        let simulations = match (&c.playout_cap, self.full) {
            (Some(cap), false) => cap.reduced_simulations,
            _ => c.simulations,
        };
        let dirichlet =
            (self.full && c.search == SearchKind::Puct).then_some((c.puct.dirichlet_alpha, c.puct.dirichlet_epsilon));
        self.search.begin(SearchOptions { simulations, dirichlet, gumbel_noise: true });
        self.searching = true;
        None
    }

    fn finish_move(&mut self) {
        self.searching = false;
        let mv = match self.config.search {
            SearchKind::Puct => {
                let t = self.config.puct.temperature_at(self.ply);
                self.search.sample_move(t)
            }
            SearchKind::Gumbel => self.search.best_move(),
        }
        .expect("a searched position has moves");
        let pos = self.search.position();
        let policy = self.full.then(|| {
            let root = self.search.root_moves();
            match self.config.search {
                SearchKind::Puct => {
                    root.iter().filter(|r| r.visits > 0).map(|r| (pos.move_to_string(&r.mv), r.visits as f32)).collect()
                }
                SearchKind::Gumbel => root
                    .iter()
                    .filter(|r| r.policy >= 1e-5)
                    .map(|r| (pos.move_to_string(&r.mv), round(r.policy, 1e5)))
                    .collect(),
            }
        });
        let (value, _) = self.search.root_value();
        self.record.moves.push(MoveRecord {
            mv: pos.move_to_string(&mv),
            policy,
            value: round(value, 1e4),
            simulations: self.search.simulations(),
            evaluations: self.search.evaluations(),
        });
        self.search.play(mv, self.config.reuse_tree);
        self.ply += 1;
    }

    fn finish_game(&mut self, outcome: Outcome) -> GameRecord {
        self.record.result = GameResult::from_outcome(&outcome);
        let (result, search) = (self.record.result, self.record.search.clone());
        std::mem::replace(
            &mut self.record,
            GameRecord {
                variant: String::new(),
                variant_hash: String::new(),
                setup: SetupKind::Default,
                start: String::new(),
                moves: Vec::new(),
                result,
                search,
                net: String::new(),
                seed: 0,
                program_version: String::new(),
            },
        )
    }
}

fn round(x: f32, scale: f32) -> f32 {
    (x * scale).round() / scale
}

#[cfg(test)]
mod setup_mask_tests {
    use super::*;

    /// `setup = "setup:<hex>"` starts every game from the mask's array, as from its position
    /// string (typhoon.md §2.6: the canonical array is mask 2); a bad mask names its bit.
    #[test]
    fn a_setup_mask_starts_games_from_its_array() {
        let v = Variant::load("typhoon").unwrap();
        let start = GameStart::resolve(&v, &SetupMode::from("setup:2".to_string())).unwrap();
        assert_eq!(start.kind, SetupKind::Fen);
        assert_eq!(start.position.to_fen(), Position::start(Arc::clone(&v)).to_fen());
        assert_eq!((start.position.ply(), start.text.clone()), (0, start.position.to_fen()));
        let e = GameStart::resolve(&v, &SetupMode::from("setup:40000".to_string())).unwrap_err();
        assert!(e.to_string().contains("bit 18 must be 0"), "{e}");
    }

    /// A variant whose array is drawn by chance starts each game from its seed's array, recorded
    /// as a position string; a fixed variant keeps its start.
    #[test]
    fn each_game_of_a_generated_variant_draws_its_own_array() {
        let config = Arc::new(SelfPlayConfig::default());
        let v = Variant::load("wild2").unwrap();
        let start = GameStart::resolve(&v, &SetupMode::Default).unwrap();
        let starts: Vec<String> = (0..20u64)
            .map(|seed| {
                let game = SelfPlayGame::new(&start, Arc::clone(&config), seed, "");
                assert_eq!(game.record.setup, SetupKind::Fen);
                assert_eq!(Some(game.record.start.clone()), v.generated_start(seed), "seed {seed}");
                assert_eq!(game.search.position().to_fen(), game.record.start, "seed {seed}: played from it");
                game.record.start
            })
            .collect();
        let distinct: std::collections::HashSet<&String> = starts.iter().collect();
        assert!(distinct.len() > 15, "{} distinct arrays in 20 games", distinct.len());
        let chess = Variant::load("chess").unwrap();
        let start = GameStart::resolve(&chess, &SetupMode::Default).unwrap();
        let game = SelfPlayGame::new(&start, config, 3, "");
        assert_eq!((game.record.setup, game.record.start), (SetupKind::Default, Position::start(chess).to_fen()));
    }
}
