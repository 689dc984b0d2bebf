//! The replay window: the training positions of the most recent games, measured in positions,
//! and how batches are drawn from it.
//!
//! Positions are rebuilt from game records ([`GameRecord::replay`]) and kept encoded, one
//! single-position [`EncodedBatch`] each, with
//!
//! - the **policy target**: the search's visit counts (PUCT) or improved policy (Gumbel) over
//!   the legal moves, sparse; empty for moves that were not fully searched (forced moves,
//!   playout-cap randomisation), which then train the value only;
//! - the **value target**: win/draw/loss of the game for the side to move, optionally blended
//!   with the search's root value (`search_value_weight`);
//! - whether the left-right mirror is exact there ([`crate::symmetry`]).
//!
//! **Sampling does not over-weight long games.** Positions are drawn with replacement, each with
//! weight `min(1, cap / game length)` where `cap` is `game_weight_cap`: a game shorter than the
//! cap contributes every position at full weight, a longer one contributes `cap` positions' worth
//! in all, spread over its positions. A long shuffling game therefore cannot crowd the batches
//! with near-duplicate positions and one outcome label, while short games are not up-weighted
//! either (as "one game, one unit" sampling would do).

use std::{collections::VecDeque, sync::Arc};

/// A drawn batch, ready for the net (plain data: the torch backend makes the tensors).
pub use fairyzero_model::TrainBatch;
use fairyzero_model::{mirror::mirror_left_right, EncodedBatch, StandardEncoding};
use fairyzero_rules::Variant;
use fairyzero_selfplay::record::{GameRecord, ReplayError};
use rand::Rng;

use crate::symmetry::MirrorRules;

/// One training position.
#[derive(Clone, Debug)]
pub struct Sample {
    /// The position and its legal moves, encoded (one position).
    pub encoded: EncodedBatch,
    /// `(legal move index, weight)`, weights summing to 1; empty: no policy target.
    pub policy: Vec<(u32, f32)>,
    /// Win/draw/loss target for the side to move.
    pub wdl: [f32; 3],
    /// The left-right mirror is exact here.
    pub mirror_ok: bool,
}

/// A game's positions in the window.
#[derive(Clone, Debug)]
struct WindowGame {
    samples: Vec<Sample>,
    weight: f32,
}

/// How positions are turned into samples.
#[derive(Clone, Debug)]
pub struct SampleOptions {
    /// Weight of the search value in the value target.
    pub search_value_weight: f32,
    /// Mirror augmentation enabled.
    pub mirror: bool,
}

/// The positions of a game, as training samples.
pub fn game_samples(
    record: &GameRecord,
    variant: &Arc<Variant>,
    encoding: &StandardEncoding,
    mirror_rules: &MirrorRules,
    options: &SampleOptions,
) -> Result<Vec<Sample>, ReplayError> {
    let mut samples = Vec::with_capacity(record.moves.len());
    record.replay(variant, |step| {
        let encoded = encoding.encode_batch([(step.position, step.legal)]);
        let policy: Vec<(u32, f32)> = step
            .policy
            .as_deref()
            .map(|dense| dense.iter().enumerate().filter(|(_, &w)| w > 0.0).map(|(i, &w)| (i as u32, w)).collect())
            .unwrap_or_default();
        let z = step.result;
        let mut wdl = [f32::from(z > 0.5), f32::from(z.abs() <= 0.5), f32::from(z < -0.5)];
        let a = options.search_value_weight;
        if a > 0.0 && step.record.simulations > 0 {
            let v = step.record.value.clamp(-1.0, 1.0);
            let searched = [v.max(0.0), 1.0 - v.abs(), (-v).max(0.0)];
            for k in 0..3 {
                wdl[k] = (1.0 - a) * wdl[k] + a * searched[k];
            }
        }
        let mirror_ok = options.mirror && mirror_rules.position_ok(step.position);
        samples.push(Sample { encoded, policy, wdl, mirror_ok });
    })?;
    Ok(samples)
}

/// The most recent games, up to `capacity` positions.
pub struct ReplayWindow {
    games: VecDeque<WindowGame>,
    positions: u64,
    capacity: u64,
    game_weight_cap: u32,
    /// Positions ever added (including evicted ones).
    added: u64,
}

impl ReplayWindow {
    pub fn new(capacity: u64, game_weight_cap: u32) -> ReplayWindow {
        ReplayWindow { games: VecDeque::new(), positions: 0, capacity: capacity.max(1), game_weight_cap, added: 0 }
    }

    /// Adds a game's samples and evicts the oldest games while the rest still fill the window.
    pub fn push(&mut self, samples: Vec<Sample>) {
        if samples.is_empty() {
            return;
        }
        let n = samples.len() as u64;
        let weight = match self.game_weight_cap {
            0 => 1.0,
            cap => (cap as f32 / n as f32).min(1.0),
        };
        self.positions += n;
        self.added += n;
        self.games.push_back(WindowGame { samples, weight });
        while let Some(front) = self.games.front() {
            let len = front.samples.len() as u64;
            if self.positions - len >= self.capacity {
                self.positions -= len;
                self.games.pop_front();
            } else {
                break;
            }
        }
    }

    /// Positions in the window.
    pub fn positions(&self) -> u64 {
        self.positions
    }

    pub fn games(&self) -> usize {
        self.games.len()
    }

    /// Positions ever added.
    pub fn added(&self) -> u64 {
        self.added
    }

    /// A sampler over the current contents (build one per training phase).
    pub fn sampler(&self) -> Sampler<'_> {
        let mut cumulative = Vec::with_capacity(self.positions as usize);
        let mut index = Vec::with_capacity(self.positions as usize);
        let mut total = 0.0f64;
        for (g, game) in self.games.iter().enumerate() {
            for i in 0..game.samples.len() {
                total += game.weight as f64;
                cumulative.push(total);
                index.push((g as u32, i as u32));
            }
        }
        Sampler { window: self, cumulative, index }
    }
}

/// Weighted sampling with replacement over a window's positions.
pub struct Sampler<'a> {
    window: &'a ReplayWindow,
    cumulative: Vec<f64>,
    index: Vec<(u32, u32)>,
}

impl Sampler<'_> {
    /// One position, by weight.
    pub fn draw(&self, rng: &mut impl Rng) -> &Sample {
        let total = *self.cumulative.last().expect("a sampler over an empty window");
        let x = rng.gen::<f64>() * total;
        let k = self.cumulative.partition_point(|&c| c <= x).min(self.index.len() - 1);
        let (g, i) = self.index[k];
        &self.window.games[g as usize].samples[i as usize]
    }

    /// A batch of `n` positions; positions where the mirror is exact are mirrored with
    /// probability 1/2 (in the encoded batch, before it becomes tensors).
    pub fn batch(&self, n: usize, rng: &mut impl Rng) -> TrainBatch {
        let first = self.draw(rng);
        let mut encoded = EncodedBatch::with_capacity(
            first.encoded.width(),
            first.encoded.height(),
            n,
            first.encoded.moves().len().max(8),
        );
        let (mut policy, mut wdl, mut mirror) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
        for k in 0..n {
            let s = if k == 0 { first } else { self.draw(rng) };
            encoded.append(&s.encoded);
            policy.push(s.policy.clone());
            wdl.push(s.wdl);
            mirror.push(s.mirror_ok && rng.gen::<bool>());
        }
        mirror_left_right(&mut encoded, &mirror);
        TrainBatch { encoded, policy, wdl, mirrored: mirror }
    }

    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use fairyzero_model::backend::MockBackend;
    use fairyzero_selfplay::{run_selfplay, RunOptions, SelfPlayConfig};
    use rand::SeedableRng;
    use std::sync::atomic::AtomicBool;

    use super::*;

    fn games(variant: &Arc<Variant>, n: u64) -> Vec<GameRecord> {
        let config = SelfPlayConfig { simulations: 4, games_in_parallel: 4, threads: 1, ..SelfPlayConfig::default() };
        let options = RunOptions { games: n, seed: 3, net: "mock".into(), out_dir: None, progress: false };
        let mut out = Vec::new();
        run_selfplay(variant, &config, &MockBackend::uniform(), &options, &AtomicBool::new(false), |g| {
            out.push(g.clone())
        })
        .unwrap();
        out
    }

    #[test]
    fn samples_carry_targets_and_the_window_keeps_the_newest_positions() {
        let v = Variant::load("antilosalamos").unwrap();
        let enc = StandardEncoding::new(Arc::clone(&v));
        let rules = MirrorRules::new(&v);
        let options = SampleOptions { search_value_weight: 0.0, mirror: true };
        let records = games(&v, 6);
        let mut window = ReplayWindow::new(100, 0);
        let mut lengths = Vec::new();
        for r in &records {
            let samples = game_samples(r, &v, &enc, &rules, &options).unwrap();
            assert_eq!(samples.len(), r.moves.len());
            for (s, m) in samples.iter().zip(&r.moves) {
                assert_eq!(s.encoded.len(), 1);
                assert_eq!(s.policy.is_empty(), m.policy.is_none());
                let total: f32 = s.policy.iter().map(|p| p.1).sum();
                assert!(s.policy.is_empty() || (total - 1.0).abs() < 1e-4);
                assert!(s.policy.iter().all(|&(i, _)| (i as usize) < s.encoded.moves().len()));
                assert!((s.wdl.iter().sum::<f32>() - 1.0).abs() < 1e-6);
                assert!(s.mirror_ok, "Anti-Los Alamos is mirror-symmetric everywhere");
            }
            // A decisive game gives wins and losses, a drawn one (repetition) draws.
            let decisive = r.result.winner.is_some();
            assert!(samples.iter().all(|s| (s.wdl[1] == 0.0) == decisive));
            lengths.push(samples.len() as u64);
            window.push(samples);
        }
        // The window holds the newest games that cover 100 positions.
        let mut expected = 0;
        let mut kept = 0;
        for &len in lengths.iter().rev() {
            if expected >= 100 {
                break;
            }
            expected += len;
            kept += 1;
        }
        assert_eq!(window.positions(), expected);
        assert_eq!(window.games(), kept);
        assert_eq!(window.added(), lengths.iter().sum::<u64>());
        let sampler = window.sampler();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let batch = sampler.batch(32, &mut rng);
        assert_eq!(batch.encoded.len(), 32);
        assert_eq!(batch.policy.len(), 32);
        let mirrored = batch.mirrored_count();
        assert!((4..=28).contains(&mirrored), "{mirrored} of 32 mirrored");
    }

    #[test]
    fn long_games_are_capped_in_weight() {
        let v = Variant::load("antilosalamos").unwrap();
        let enc = StandardEncoding::new(Arc::clone(&v));
        let sample = |_: usize| {
            let pos = fairyzero_rules::Position::start(Arc::clone(&v));
            let mut legal = fairyzero_rules::MoveList::new();
            pos.clone().legal_moves(&mut legal);
            Sample {
                encoded: enc.encode_batch([(&pos, legal.as_slice())]),
                policy: vec![],
                wdl: [1.0, 0.0, 0.0],
                mirror_ok: false,
            }
        };
        let mut window = ReplayWindow::new(10_000, 10);
        // A 100-position game (weight 10 in all) and ten 10-position games (weight 10 each).
        let mut long: Vec<Sample> = (0..100).map(sample).collect();
        long.iter_mut().for_each(|s| s.wdl = [0.0, 1.0, 0.0]);
        window.push(long);
        for _ in 0..10 {
            window.push((0..10).map(sample).collect());
        }
        let sampler = window.sampler();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let n = 20_000;
        let from_long = (0..n).filter(|_| sampler.draw(&mut rng).wdl[1] == 1.0).count();
        let share = from_long as f64 / n as f64;
        // Weight 10 out of 110: about 9%, not the 50% that uniform positions would give.
        assert!((0.07..0.115).contains(&share), "{share}");
    }
}
