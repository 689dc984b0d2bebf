//! The games every designer measurement plays: a player against itself from seeded openings
//! of a start position (an experiment), tallied per experiment.
//!
//! # Accumulation
//!
//! Every batch of games is appended to the results store `OUT/matches/` ([`ResultStore`]) and
//! each experiment (a key in `match_id`) resumes with the next fresh openings, so reruns add
//! games and the intervals shrink. Interrupting loses at most the batch being played.

use std::{
    collections::BTreeMap,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
};

use fairyzero_evaluator::{
    matches::{fnv1a, mix, openings_from, play_game_from, GameResult, MatchGame, RECORD_VERSION},
    player::Contestant,
    ratings::wilson_interval,
    store::ResultStore,
    Termination,
};
use fairyzero_rules::{Move, Position, Variant};
use rayon::prelude::*;

use crate::Error;

pub(crate) const Z95: f64 = 1.959_964;

/// How games are played (shared by balance and piece values).
#[derive(Clone, Debug)]
pub struct DesignOptions {
    /// New games per experiment (per array, per handicap).
    pub games: usize,
    /// Random plies of each opening after the (handicapped) start / the setup phase.
    pub random_plies: u32,
    pub seed: u64,
    /// Plies of play after the opening before a draw (default: the variant's move cap).
    pub move_cap: Option<u32>,
    /// Parallel games (0: one per core).
    pub threads: usize,
    /// Games per appended batch.
    pub batch: usize,
    /// Set (by a signal handler) to stop after the batch in progress; the report then covers
    /// the games stored so far.
    pub stop: Option<Arc<AtomicBool>>,
}

impl Default for DesignOptions {
    fn default() -> Self {
        DesignOptions { games: 100, random_plies: 4, seed: 0, move_cap: None, threads: 0, batch: 32, stop: None }
    }
}

impl DesignOptions {
    fn stopped(&self) -> bool {
        self.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed))
    }
}

/// Called after every game with the number of games finished in this run and the number this
/// run plays.
pub type DesignProgress<'a> = dyn Fn(usize, usize) + Sync + 'a;

/// Wins, draws and losses from one side's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub wins: usize,
    pub draws: usize,
    pub losses: usize,
}

impl Tally {
    pub fn add(&mut self, score: f64) {
        match score {
            s if s > 0.75 => self.wins += 1,
            s if s < 0.25 => self.losses += 1,
            _ => self.draws += 1,
        }
    }
    pub fn games(&self) -> usize {
        self.wins + self.draws + self.losses
    }
    pub fn score(&self) -> f64 {
        if self.games() == 0 {
            0.5
        } else {
            (self.wins as f64 + 0.5 * self.draws as f64) / self.games() as f64
        }
    }
    /// 95% Wilson interval of the score.
    pub fn interval(&self) -> (f64, f64) {
        wilson_interval(self.wins as f64 + 0.5 * self.draws as f64, self.games() as f64, Z95)
    }
}

pub(crate) fn moves_text(start: &Position, moves: &[Move]) -> String {
    let mut pos = start.clone();
    let mut words = Vec::new();
    for &m in moves {
        words.push(pos.move_to_string(&m));
        pos.make(m);
    }
    words.join(" ")
}

/// One game of [`play_from`]: result, reason, plies after the opening, their moves, and why
/// the loser forfeited if it did.
struct DesignGame {
    result: GameResult,
    reason: Termination,
    plies: u32,
    moves: String,
    forfeit: Option<String>,
}

/// Plays one game of `player` against itself from `start` + `opening`.
fn play_from(start: &Position, opening: &[Move], player: &Contestant, move_cap: Option<u32>, seed: u64) -> DesignGame {
    let mut pos = start.clone();
    for &m in opening {
        pos.make(m);
    }
    let (mut blue, mut tan) = (player.player(), player.player());
    let game = play_game_from(pos, "", [blue.as_mut(), tan.as_mut()], move_cap, None, seed, true);
    // An external engine that crashes or hangs forfeits (evaluator::external).
    if let Some(why) = &game.forfeit {
        tracing::warn!("{} forfeits after {} plies: {why}", player.name, game.plies);
    }
    DesignGame {
        result: game.result,
        reason: game.reason,
        plies: game.plies,
        moves: game.moves.unwrap_or_default(),
        forfeit: game.forfeit,
    }
}

/// One experiment: games of `player` against itself from `start` (a position, possibly
/// handicapped, possibly in its setup phase), stored under `key`.
pub(crate) struct Experiment {
    pub(crate) key: String,
    pub(crate) start: Position,
    /// Text of `start` for the records (the FEN, or the setup plies).
    pub(crate) start_text: String,
}

/// Plays `options.games` new games of every experiment, appending each batch to `store`.
pub(crate) fn run_experiments(
    variant: &Arc<Variant>,
    player: &Contestant,
    experiments: &[Experiment],
    options: &DesignOptions,
    store: &ResultStore,
    progress: Option<&DesignProgress<'_>>,
) -> Result<(), Error> {
    let existing = store.load()?.records;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(options.threads).build().map_err(Error::Threads)?;
    let done = std::sync::atomic::AtomicUsize::new(0);
    let total = experiments.len() * options.games;
    let variant_hash = format!("{:016x}", variant.hash);
    let stored = |e: &Experiment| {
        existing
            .iter()
            .filter(|r| r.match_id == e.key && r.blue == player.name && r.variant_hash == variant_hash)
            .count()
    };
    if options.games == 0 {
        // Report only: the stored games are all there is to use.
        return match experiments.iter().any(|e| stored(e) > 0) {
            true => Ok(()),
            false => Err(Error::NothingStored { player: player.name.clone() }),
        };
    }
    // Each experiment's games so far, seed and openings.
    let mut plans = Vec::with_capacity(experiments.len());
    for e in experiments {
        let before = stored(e);
        let seed = mix(options.seed, fnv1a(&e.key));
        // The salt keeps the openings of stores written before this generator was shared.
        let openings = openings_from(&e.start, before + options.games, options.random_plies, seed ^ 0x6465_7369_676e);
        if openings.is_empty() {
            return Err(Error::NoOpening { experiment: e.key.clone() });
        }
        plans.push((before, seed, openings));
    }
    // Batches go round the experiments, so that a run stopped early leaves every experiment
    // (both colours of a piece type, every setup) with about the same number of new games.
    let mut g = 0;
    while g < options.games {
        let end = (g + options.batch.max(1)).min(options.games);
        for (e_index, (e, (before, seed, openings))) in experiments.iter().zip(&plans).enumerate() {
            let (before, seed) = (*before, *seed);
            if options.stopped() {
                return Ok(());
            }
            let records: Vec<MatchGame> = pool.install(|| {
                (g..end)
                    .into_par_iter()
                    .map(|i| {
                        let game = before + i;
                        let opening = &openings[game % openings.len()];
                        let game_seed = mix(seed, game as u64);
                        let DesignGame { result, reason, plies, moves, forfeit } =
                            play_from(&e.start, &opening.moves, player, options.move_cap, game_seed);
                        let opening_text = &opening.text;
                        let rec = MatchGame {
                            version: RECORD_VERSION,
                            match_id: e.key.clone(),
                            variant: variant.name.clone(),
                            variant_hash: variant_hash.clone(),
                            blue: player.name.clone(),
                            tan: player.name.clone(),
                            blue_step: None,
                            tan_step: None,
                            result,
                            reason,
                            plies,
                            opening: game % openings.len(),
                            opening_moves: format!("[{}] {opening_text}", e.start_text),
                            moves_hash: format!("{:016x}", fnv1a(&format!("{} {opening_text} {moves}", e.start_text))),
                            moves: Some(moves),
                            game,
                            forfeit,
                        };
                        let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                        if let Some(p) = progress {
                            p(n, total);
                        }
                        rec
                    })
                    .collect()
            });
            store.append(&records, &format!("designer-{e_index}"))?;
        }
        g = end;
    }
    Ok(())
}

/// Blue's tally per key among `records` of `player` on `variant`.
pub(crate) fn tallies(variant: &Variant, player: &str, records: &[MatchGame]) -> BTreeMap<String, Tally> {
    let hash = format!("{:016x}", variant.hash);
    let mut out: BTreeMap<String, Tally> = BTreeMap::new();
    for r in records.iter().filter(|r| r.blue == player && r.tan == player && r.variant_hash == hash) {
        out.entry(r.match_id.clone()).or_default().add(r.result.blue_score());
    }
    out
}
