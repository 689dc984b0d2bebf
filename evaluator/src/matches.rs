//! Matches: distinct openings, each played with both colours, games in parallel, move caps and
//! adjudication, every result with its reason.
//!
//! # Openings
//!
//! An opening is a seeded sequence of uniformly random legal moves from the variant's start:
//! for variants with a setup phase, the whole setup phase (a sampled array) and then
//! `random_plies` more plies; for the others, `random_plies` plies from the start position.
//! Openings are distinct by their final position (Zobrist hash, side to move included) and
//! never end the game. Game `2k` plays opening `k` with player A as Blue, game `2k + 1` the
//! same opening with colours reversed. When a small variant has fewer distinct openings than
//! game pairs, openings are reused in turn, and the report says how many distinct games were
//! actually played.
//!
//! # Many games at once
//!
//! [`MatchOptions::threads`] games run at once, each on its own thread, one fresh player per
//! game. Checkpoint players of all those games share their contestant's backend, which is an
//! inference service (`fairyzero_model::service`): each game thread blocks on its own leaf, and
//! the service merges the leaves of all games into one batch (KataGo's match runner: many game
//! threads, one NN server). So on a GPU `threads` is the batch size wanted, far above the core
//! count. Moves of CPU-bound players (alpha-beta, greedy: [`Contestant::cpu_bound()`]) would then
//! compete with those threads for the cores: each holds one of [`MatchOptions::cpu_threads`]
//! permits while it computes, so they run on the cores left over and the others wait.
//!
//! # Distinct games
//!
//! A game is identified by the hash of its whole move text (opening included). Two
//! deterministic players replaying one opening many times play one distinct game.

use std::{
    collections::{BTreeMap, HashSet},
    sync::{Arc, Condvar, Mutex, PoisonError},
};

use fairyzero_rules::{Color, Move, MoveList, Outcome, Position, Variant};
use fairyzero_selfplay::record::Termination;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::{
    player::{Contestant, GameContext, Player},
    ratings::wilson_interval,
    sprt::{SprtParams, SprtStatus},
    values::{PieceValues, ValueSource},
    Error,
};

/// Called after every game with its record and the number of games finished so far.
pub type Progress<'a> = dyn Fn(&MatchGame, usize) + Sync + 'a;

/// The format version of [`MatchGame`].
pub const RECORD_VERSION: u32 = 1;

/// A game result, written as in PGN.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GameResult {
    #[serde(rename = "1-0")]
    BlueWins,
    #[serde(rename = "0-1")]
    TanWins,
    #[serde(rename = "1/2-1/2")]
    Draw,
}

impl GameResult {
    /// Blue's points: 1, 1/2 or 0.
    pub fn blue_score(self) -> f64 {
        match self {
            GameResult::BlueWins => 1.0,
            GameResult::Draw => 0.5,
            GameResult::TanWins => 0.0,
        }
    }

    /// The result the rules' outcome gives.
    pub fn from_outcome(o: &Outcome) -> GameResult {
        match o.winner() {
            Some(Color::Blue) => GameResult::BlueWins,
            Some(Color::Tan) => GameResult::TanWins,
            None => GameResult::Draw,
        }
    }

    /// The winner, if any.
    pub fn winner(self) -> Option<Color> {
        match self {
            GameResult::BlueWins => Some(Color::Blue),
            GameResult::TanWins => Some(Color::Tan),
            GameResult::Draw => None,
        }
    }

    /// As records write it: `1-0`, `0-1`, `1/2-1/2`.
    pub fn text(self) -> &'static str {
        match self {
            GameResult::BlueWins => "1-0",
            GameResult::TanWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    /// The result in which `c` wins.
    pub fn win_for(c: Color) -> GameResult {
        match c {
            Color::Blue => GameResult::BlueWins,
            Color::Tan => GameResult::TanWins,
        }
    }
}

/// One finished game: a line of the results store (`store.rs`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchGame {
    /// [`RECORD_VERSION`].
    pub version: u32,
    /// Which match (batch) the game belongs to.
    pub match_id: String,
    pub variant: String,
    /// `Variant::hash` as 16 hex digits.
    pub variant_hash: String,
    /// Player names (canonical player specs).
    pub blue: String,
    pub tan: String,
    /// Training steps of checkpoint players.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blue_step: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tan_step: Option<u64>,
    pub result: GameResult,
    /// Why it ended (`checkmate`, `move cap`, `illegal move`, ...).
    pub reason: Termination,
    /// Plies played after the opening.
    pub plies: u32,
    /// Index of the opening in its match.
    pub opening: usize,
    /// The opening's moves (setup plies included), space-separated.
    pub opening_moves: String,
    /// FNV-1a of the whole move text (opening included), 16 hex digits: equal hashes are the
    /// same game.
    pub moves_hash: String,
    /// The moves after the opening, when recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moves: Option<String>,
    /// Index of the game in its match.
    pub game: usize,
    /// Why the loser forfeited (reason `forfeit`): an external engine's crash, timeout or
    /// unreadable answer, with the last lines of its stderr.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forfeit: Option<String>,
}

impl MatchGame {
    /// Whether the game has a result to rate: an adjourned game (one broken off in
    /// `fairyzero play`) is a record to view, not a score.
    pub fn is_finished(&self) -> bool {
        self.reason != Termination::Adjourned
    }

    /// The points of player `name` in this game, if it played (and not against itself) to the
    /// end.
    pub fn score_of(&self, name: &str) -> Option<f64> {
        if self.blue == self.tan || !self.is_finished() {
            None
        } else if self.blue == name {
            Some(self.result.blue_score())
        } else if self.tan == name {
            Some(1.0 - self.result.blue_score())
        } else {
            None
        }
    }
}

/// What a game that reaches the move cap scores.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Adjudication {
    /// A draw.
    #[default]
    Draw,
    /// More material (nominal piece values, estimated where missing) wins; equal draws.
    Material,
}

impl std::fmt::Display for Adjudication {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Adjudication::Draw => "draw",
            Adjudication::Material => "material",
        })
    }
}

impl std::str::FromStr for Adjudication {
    type Err = UnknownAdjudication;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "draw" => Ok(Adjudication::Draw),
            "material" => Ok(Adjudication::Material),
            _ => Err(UnknownAdjudication(s.to_string())),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown adjudication {0:?} (expected draw or material)")]
pub struct UnknownAdjudication(pub String);

/// An opening: the moves from the variant's start, or from an array drawn by chance.
#[derive(Clone, Debug, PartialEq)]
pub struct Opening {
    pub moves: Vec<Move>,
    /// The moves, space-separated; `[<start>] <moves>` when the opening has its own start.
    pub text: String,
    /// The start position string of a variant whose array is drawn by chance (`[start_generator]`):
    /// each opening has its own array; `None` for the variant's start.
    pub start: Option<String>,
}

impl Opening {
    /// The position the opening reaches (with its history).
    pub fn position(&self, v: &Arc<Variant>) -> Position {
        let mut pos = match &self.start {
            Some(fen) => {
                Position::from_fen(Arc::clone(v), fen).expect("an opening's start was built from this variant")
            }
            None => start_position(v),
        };
        for &m in &self.moves {
            pos.make(m);
        }
        pos
    }
}

/// The first position of a game: the setup phase's start if the variant has one.
pub fn start_position(v: &Arc<Variant>) -> Position {
    Position::setup_start(Arc::clone(v)).unwrap_or_else(|| Position::start(Arc::clone(v)))
}

/// Up to `count` distinct openings (see the module documentation). Fewer come back when the
/// variant does not have that many within a generous number of attempts.
///
/// A variant whose array is drawn by chance gives each opening its own array (from a seed of
/// its own), then the random plies from it, so that a match samples the arrays as self-play does.
pub fn generate_openings(v: &Arc<Variant>, count: usize, random_plies: u32, seed: u64) -> Vec<Opening> {
    let rng_seed = seed ^ 0x6f70_656e_696e_6773;
    if !v.has_start_generator() {
        return openings_from(&start_position(v), count, random_plies, rng_seed);
    }
    let mut seen = HashSet::new();
    (0..count.min(MAX_OPENINGS) as u64 * 4)
        .filter_map(|i| {
            let fen = v.generated_start(mix(rng_seed, i)).expect("the variant has a start generator");
            let pos = Position::from_fen(Arc::clone(v), &fen).expect("a generated array is a valid position");
            let o = openings_from(&pos, 1, random_plies, mix(rng_seed, i)).pop()?;
            seen.insert(o.position(v).hash()).then(|| Opening {
                text: format!("[{fen}] {}", o.text).trim_end().to_string(),
                start: Some(fen),
                moves: o.moves,
            })
        })
        .take(count.min(MAX_OPENINGS))
        .collect()
}

/// The most openings a match or a designer experiment draws; games past `2 * MAX_OPENINGS` reuse
/// them in turn (with other game seeds). Drawing is sequential and, once a small variant runs
/// out of distinct positions, costs up to 50 attempts per opening: without a bound, a match of
/// the allowed 10^7 games spent most of an hour (and gigabytes) on openings before its first
/// game, deaf to Ctrl-C.
pub const MAX_OPENINGS: usize = 10_000;

/// Up to `count` (at most [`MAX_OPENINGS`]) distinct openings from `start` (any position,
/// possibly in its setup phase): the rest of the setup phase, then `random_plies` random plies,
/// none ending the game, distinct by final position. The first `k` of `count` do not depend on
/// `count`, so a caller asking for more later gets the same ones first. `rng_seed` is used as it
/// is.
pub fn openings_from(start: &Position, count: usize, random_plies: u32, rng_seed: u64) -> Vec<Opening> {
    let count = count.min(MAX_OPENINGS);
    let mut rng = ChaCha8Rng::seed_from_u64(rng_seed);
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(count);
    let mut legal = MoveList::new();
    let attempts = 200 + 50 * count;
    for _ in 0..attempts {
        if out.len() >= count {
            break;
        }
        let mut pos = start.clone();
        let mut moves = Vec::new();
        let mut words = Vec::new();
        let mut ok = true;
        let mut plies = 0;
        loop {
            pos.legal_moves(&mut legal);
            if legal.is_empty() || pos.outcome_with(&legal).is_some() {
                ok = false;
                break;
            }
            if !pos.in_setup() && plies >= random_plies {
                break;
            }
            let m = legal[rng.gen_range(0..legal.len())];
            words.push(pos.move_to_string(&m));
            if !pos.in_setup() {
                plies += 1;
            }
            pos.make(m);
            moves.push(m);
        }
        if ok && seen.insert(pos.hash()) {
            out.push(Opening { moves, text: words.join(" "), start: None });
        }
    }
    out
}

/// How a match is played.
#[derive(Clone, Debug)]
pub struct MatchOptions {
    /// Games in all (pairs of games share an opening).
    pub games: usize,
    /// Random plies after the start (after the setup phase, which is always sampled).
    pub random_plies: u32,
    pub seed: u64,
    /// Plies of play after the opening before adjudication (default: the variant's move cap).
    pub move_cap: Option<u32>,
    pub adjudication: Adjudication,
    /// Games at once, one thread each (0: one per core). Games whose players search with a
    /// network mostly wait for their batched evaluations, so on a GPU this can be far above
    /// the core count (see the module doc).
    pub threads: usize,
    /// Moves of CPU-bound players ([`Contestant::cpu_bound()`]: alpha-beta, greedy) computed at
    /// once, across all games of the match (0: one per core, `available_parallelism`): they
    /// run on spare cores while network games wait. Results do not depend on it.
    pub cpu_threads: usize,
    /// Store the moves of every game.
    pub record_moves: bool,
    /// Name of the match in the records (default: `A vs B seed S`).
    pub match_id: Option<String>,
    /// Set (by a signal handler) to end the match after the games in progress.
    pub stop: Option<Arc<std::sync::atomic::AtomicBool>>,
    /// What a stopped match returns: `false`, an error, because a training run stores its
    /// evaluation matches under names that promise the whole match and plays them again in
    /// full at the next start; `true` (`fairyzero match`), the games finished so far, which
    /// are results in their own right (ratings are computed game by game).
    pub partial_on_stop: bool,
}

impl MatchOptions {
    fn stopped(&self) -> bool {
        self.stop.as_ref().is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed))
    }
}

impl Default for MatchOptions {
    fn default() -> Self {
        MatchOptions {
            games: 100,
            random_plies: 4,
            seed: 0,
            move_cap: None,
            adjudication: Adjudication::Draw,
            threads: 0,
            cpu_threads: 0,
            record_moves: true,
            match_id: None,
            stop: None,
            partial_on_stop: false,
        }
    }
}

/// A match's results from player A's side.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchReport {
    pub a: String,
    pub b: String,
    pub wins: usize,
    pub draws: usize,
    pub losses: usize,
    /// Distinct move sequences among the games.
    pub distinct_games: usize,
    /// Distinct openings used.
    pub openings: usize,
    /// Games per end reason.
    pub reasons: BTreeMap<String, usize>,
    pub records: Vec<MatchGame>,
}

impl MatchReport {
    /// Tallies `records` from `a`'s side (games not between `a` and `b` are ignored).
    pub fn from_records(a: &str, b: &str, records: Vec<MatchGame>) -> MatchReport {
        let mut r = MatchReport {
            a: a.to_string(),
            b: b.to_string(),
            wins: 0,
            draws: 0,
            losses: 0,
            distinct_games: 0,
            openings: 0,
            reasons: BTreeMap::new(),
            records: Vec::new(),
        };
        let mut hashes = HashSet::new();
        let mut openings = HashSet::new();
        for rec in &records {
            let a_blue = rec.blue == a && rec.tan == b;
            let a_tan = rec.tan == a && rec.blue == b;
            if !(a_blue || a_tan) || !rec.is_finished() {
                continue;
            }
            let s = if a_blue { rec.result.blue_score() } else { 1.0 - rec.result.blue_score() };
            match s {
                x if x > 0.75 => r.wins += 1,
                x if x < 0.25 => r.losses += 1,
                _ => r.draws += 1,
            }
            *r.reasons.entry(rec.reason.to_string()).or_default() += 1;
            hashes.insert(rec.moves_hash.clone());
            openings.insert(rec.opening_moves.clone());
        }
        r.distinct_games = hashes.len();
        r.openings = openings.len();
        r.records = records;
        r
    }

    pub fn games(&self) -> usize {
        self.wins + self.draws + self.losses
    }

    /// A's score in 0..1 (draws count half).
    pub fn score(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            0.5
        } else {
            (self.wins as f64 + 0.5 * self.draws as f64) / n as f64
        }
    }

    /// 95% Wilson score interval of A's score (draws as half wins).
    pub fn interval(&self) -> (f64, f64) {
        wilson_interval(self.wins as f64 + 0.5 * self.draws as f64, self.games() as f64, 1.959_964)
    }

    /// `result W D L score S ci LO HI`.
    pub fn result_line(&self) -> String {
        let (lo, hi) = self.interval();
        format!("result {} {} {} score {:.4} ci {:.4} {:.4}", self.wins, self.draws, self.losses, self.score(), lo, hi)
    }

    /// A few lines about the match (the result line not included).
    pub fn summary(&self) -> String {
        let mut s = format!(
            "{} vs {}: {} games ({} distinct) from {} openings\n",
            self.a,
            self.b,
            self.games(),
            self.distinct_games,
            self.openings
        );
        let reasons: Vec<String> = self.reasons.iter().map(|(k, v)| format!("{k} {v}")).collect();
        s.push_str(&format!("end reasons: {}\n", reasons.join(", ")));
        let elo = crate::ratings::elo_from_score;
        let (lo, hi) = self.interval();
        s.push_str(&format!("elo difference: {:+.0} (95%: {:+.0} to {:+.0})\n", elo(self.score()), elo(lo), elo(hi)));
        s
    }
}

/// Plays a match between `a` and `b` (see [`MatchOptions`]). `progress` is called after every
/// game with the record and the number of games finished.
pub fn run_match(
    variant: &Arc<Variant>,
    a: &Contestant,
    b: &Contestant,
    options: &MatchOptions,
    progress: Option<&Progress<'_>>,
) -> Result<MatchReport, Error> {
    let openings = generate_openings(variant, options.games.div_ceil(2).max(1), options.random_plies, options.seed);
    let records = play_games(variant, a, b, options, &openings, 0..options.games, progress)?;
    Ok(MatchReport::from_records(&a.name, &b.name, records))
}

/// A match that stops as soon as the SPRT decides (checked after every batch of
/// `batch` games), or after `options.games` games.
pub fn run_sprt_match(
    variant: &Arc<Variant>,
    a: &Contestant,
    b: &Contestant,
    options: &MatchOptions,
    sprt: &SprtParams,
    batch: usize,
    progress: Option<&Progress<'_>>,
) -> Result<(MatchReport, SprtStatus), Error> {
    let openings = generate_openings(variant, options.games.div_ceil(2).max(1), options.random_plies, options.seed);
    let batch = batch.max(2) & !1;
    let mut records = Vec::new();
    let mut start = 0;
    loop {
        let end = (start + batch).min(options.games);
        let done = records.len();
        let shifted = |r: &MatchGame, n: usize| {
            if let Some(p) = progress {
                p(r, done + n)
            }
        };
        records.extend(play_games(variant, a, b, options, &openings, start..end, Some(&shifted))?);
        start = end;
        let report = MatchReport::from_records(&a.name, &b.name, records.clone());
        let status = sprt.status(report.wins, report.draws, report.losses);
        if status.decision.is_some() || start >= options.games || options.stopped() {
            return Ok((MatchReport::from_records(&a.name, &b.name, records), status));
        }
    }
}

fn play_games(
    variant: &Arc<Variant>,
    a: &Contestant,
    b: &Contestant,
    options: &MatchOptions,
    openings: &[Opening],
    games: std::ops::Range<usize>,
    progress: Option<&Progress<'_>>,
) -> Result<Vec<MatchGame>, Error> {
    if openings.is_empty() {
        return Err(Error::Match(format!("variant {} has no opening that does not end the game", variant.name)));
    }
    let match_id =
        options.match_id.clone().unwrap_or_else(|| format!("{} vs {} seed {}", a.name, b.name, options.seed));
    let material = match options.adjudication {
        Adjudication::Material => Some(PieceValues::new(variant, ValueSource::Nominal)),
        Adjudication::Draw => None,
    };
    let finished = std::sync::atomic::AtomicUsize::new(0);
    let permits = Arc::new(CpuPermits::new(match options.cpu_threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }));
    let player_of = |c: &Contestant| -> Box<dyn Player> {
        let player = c.player();
        if c.cpu_bound {
            Box::new(Permitted { player, permits: Arc::clone(&permits) })
        } else {
            player
        }
    };
    let play = |g: usize| -> Option<MatchGame> {
        if options.stopped() {
            return None;
        }
        let opening_index = (g / 2) % openings.len();
        let opening = &openings[opening_index];
        let a_blue = g.is_multiple_of(2);
        let (mut blue, mut tan) = (player_of(a), player_of(b));
        if !a_blue {
            std::mem::swap(&mut blue, &mut tan);
        }
        let (blue_c, tan_c) = if a_blue { (a, b) } else { (b, a) };
        let game = play_game(
            variant,
            opening,
            [blue.as_mut(), tan.as_mut()],
            options.move_cap,
            material.as_ref(),
            mix(options.seed, g as u64),
            options.record_moves,
        );
        if let Some(reason) = &game.forfeit {
            let loser = if game.result == GameResult::BlueWins { &tan_c.name } else { &blue_c.name };
            tracing::warn!("game {g} of {match_id}: {loser} forfeits after {} plies: {reason}", game.plies);
        }
        let record = MatchGame {
            version: RECORD_VERSION,
            match_id: match_id.clone(),
            variant: variant.name.clone(),
            variant_hash: format!("{:016x}", variant.hash),
            blue: blue_c.name.clone(),
            tan: tan_c.name.clone(),
            blue_step: blue_c.step,
            tan_step: tan_c.step,
            result: game.result,
            reason: game.reason,
            plies: game.plies,
            opening: opening_index,
            opening_moves: opening.text.clone(),
            moves_hash: format!("{:016x}", game.moves_hash),
            moves: game.moves,
            game: g,
            forfeit: game.forfeit,
        };
        let n = finished.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        if let Some(p) = progress {
            p(&record, n);
        }
        Some(record)
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads)
        .build()
        .map_err(|e| Error::Match(format!("cannot start the game threads: {e}")))?;
    let played: Vec<Option<MatchGame>> = pool.install(|| games.into_par_iter().map(play).collect());
    if played.iter().all(Option::is_some) || options.partial_on_stop {
        Ok(played.into_iter().flatten().collect())
    } else {
        Err(Error::Match("stopped on request before its last game".into()))
    }
}

/// A counting semaphore (std's `Mutex` and `Condvar`): the CPU-bound moves of a match that may
/// run at once.
struct CpuPermits {
    free: Mutex<usize>,
    released: Condvar,
}

impl CpuPermits {
    fn new(permits: usize) -> CpuPermits {
        CpuPermits { free: Mutex::new(permits.max(1)), released: Condvar::new() }
    }

    /// Waits for a free permit; it is given back when the guard drops (a panicking player too).
    fn acquire(&self) -> CpuPermit<'_> {
        // Nothing panics while the lock is held, so a poisoned lock still counts right.
        let mut free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        while *free == 0 {
            free = self.released.wait(free).unwrap_or_else(PoisonError::into_inner);
        }
        *free -= 1;
        CpuPermit(self)
    }
}

struct CpuPermit<'a>(&'a CpuPermits);

impl Drop for CpuPermit<'_> {
    fn drop(&mut self) {
        *self.0.free.lock().unwrap_or_else(PoisonError::into_inner) += 1;
        self.0.released.notify_one();
    }
}

/// A CPU-bound player that computes its moves only while holding a permit of its match, so that
/// many game threads (most of them waiting for a network) never run more than `cpu_threads`
/// alpha-beta searches at once. Waiting for the permit does not count against a player's time
/// budget: the engine starts its clock inside `choose`.
struct Permitted {
    player: Box<dyn Player>,
    permits: Arc<CpuPermits>,
}

impl Player for Permitted {
    fn new_game(&mut self, start: &Position, ctx: &GameContext) {
        self.player.new_game(start, ctx);
    }

    fn choose(&mut self, pos: &mut Position, legal: &[Move], rng: &mut dyn rand::RngCore) -> Move {
        let _permit = self.permits.acquire();
        self.player.choose(pos, legal, rng)
    }

    fn try_choose(&mut self, pos: &mut Position, legal: &[Move], rng: &mut dyn rand::RngCore) -> Result<Move, String> {
        let _permit = self.permits.acquire();
        self.player.try_choose(pos, legal, rng)
    }
}

/// The result of [`play_game`].
#[derive(Clone, Debug, PartialEq)]
pub struct PlayedGame {
    pub result: GameResult,
    pub reason: Termination,
    pub plies: u32,
    pub moves_hash: u64,
    pub moves: Option<String>,
    /// Why the loser forfeited ([`Player::try_choose`]: an external engine crashed, hung or
    /// answered a move that is not legal); the game's reason is then [`Termination::Forfeit`].
    pub forfeit: Option<String>,
}

/// Plays one game from `opening`, `players[0]` as Blue. The game ends by the rules
/// ([`Position::outcome_with`]), by the move cap (`move_cap` plies after the opening, default
/// the variant's; a draw, or decided by `material`), or by an illegal move or a forfeit
/// ([`Player::try_choose`]; a loss).
pub fn play_game(
    variant: &Arc<Variant>,
    opening: &Opening,
    players: [&mut dyn Player; 2],
    move_cap: Option<u32>,
    material: Option<&PieceValues>,
    seed: u64,
    record_moves: bool,
) -> PlayedGame {
    play_game_from(opening.position(variant), &opening.text, players, move_cap, material, seed, record_moves)
}

/// [`play_game`] from any position `pos` (a handicapped start after its opening moves, say):
/// `hashed_prefix` begins the record's `moves_hash` (the opening's text in a match), and the
/// move cap counts from `pos`.
pub fn play_game_from(
    mut pos: Position,
    hashed_prefix: &str,
    mut players: [&mut dyn Player; 2],
    move_cap: Option<u32>,
    material: Option<&PieceValues>,
    seed: u64,
    record_moves: bool,
) -> PlayedGame {
    let first_ply = pos.ply();
    let cap_ply = first_ply.saturating_add(move_cap.unwrap_or(pos.variant().rules.move_cap));
    let ctx = GameContext { cap_ply };
    for p in players.iter_mut() {
        p.new_game(&pos, &ctx);
    }
    let mut rngs = [ChaCha8Rng::seed_from_u64(mix(seed, 1)), ChaCha8Rng::seed_from_u64(mix(seed, 2))];
    let mut hash = Fnv::new();
    hash.write(hashed_prefix);
    let mut words: Vec<String> = Vec::new();
    let mut legal = MoveList::new();
    let mut forfeit = None;
    let (result, reason) = loop {
        pos.legal_moves(&mut legal);
        if let Some(o) = pos.outcome_with(&legal) {
            break (GameResult::from_outcome(&o), o.reason().into());
        }
        if pos.ply() >= cap_ply && !pos.in_setup() {
            let reason = Termination::MoveCap;
            let result = match material.map(|m| m.balance(&pos)) {
                Some(b) if b > 1e-6 => GameResult::BlueWins,
                Some(b) if b < -1e-6 => GameResult::TanWins,
                _ => GameResult::Draw,
            };
            break (result, reason);
        }
        let side = pos.side_to_move();
        let i = side.index();
        let m = match players[i].try_choose(&mut pos, &legal, &mut rngs[i]) {
            Ok(m) => m,
            Err(reason) => {
                forfeit = Some(reason);
                break (GameResult::win_for(side.other()), Termination::Forfeit);
            }
        };
        if !legal.contains(&m) {
            break (GameResult::win_for(side.other()), Termination::IllegalMove);
        }
        let text = pos.move_to_string(&m);
        hash.write(" ");
        hash.write(&text);
        if record_moves {
            words.push(text);
        }
        pos.make(m);
    };
    PlayedGame {
        result,
        reason,
        plies: pos.ply() - first_ply,
        moves_hash: hash.finish(),
        moves: record_moves.then(|| words.join(" ")),
        forfeit,
    }
}

/// splitmix64 of `a` and `b`: independent seeds per game and per player.
pub fn mix(a: u64, b: u64) -> u64 {
    let mut z = a ^ b.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(0x632B_E59B_D9B4_E019);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A record's `moves_hash`: FNV-1a of the opening's text, then " " and each move, as
/// [`MatchGame::moves_hash`] holds it (16 hex digits).
pub fn moves_hash<'a>(opening: &str, moves: impl IntoIterator<Item = &'a str>) -> String {
    let mut hash = Fnv::new();
    hash.write(opening);
    for m in moves {
        hash.write(" ");
        hash.write(m);
    }
    format!("{:016x}", hash.finish())
}

/// FNV-1a of a text: stable across machines and versions, for seeds derived from names and
/// for record hashes.
pub fn fnv1a(s: &str) -> u64 {
    let mut hash = Fnv::new();
    hash.write(s);
    hash.finish()
}

struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn write(&mut self, s: &str) {
        for b in s.bytes() {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::PlayerSpec;
    use crate::search_player::SearchPlayerConfig;

    fn contestant(spec: &str, v: &Arc<Variant>) -> Contestant {
        PlayerSpec::parse(spec).unwrap().contestant(v, None, &SearchPlayerConfig::default()).unwrap()
    }

    /// A stopped match (Ctrl-C during a training run's evaluation) is an error, never a short
    /// report that would be stored as the match's result.
    #[test]
    fn a_stopped_match_is_an_error_not_a_short_result() {
        let v = Variant::load("gardner").unwrap();
        let (a, b) = (contestant("random", &v), contestant("greedy", &v));
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(true));
        let options = MatchOptions { games: 4, threads: 1, stop: Some(Arc::clone(&stop)), ..MatchOptions::default() };
        let err = run_match(&v, &a, &b, &options, None).unwrap_err();
        assert!(err.to_string().contains("stopped on request"), "{err}");
        // `fairyzero match` asks for the games finished so far instead.
        let partial = MatchOptions { partial_on_stop: true, ..options.clone() };
        assert_eq!(run_match(&v, &a, &b, &partial, None).unwrap().games(), 0);
        let sprt = SprtParams { elo0: 0.0, elo1: 10.0, alpha: 0.05, beta: 0.05 };
        let long = MatchOptions { games: 10_000_000, ..partial };
        let (report, _) = run_sprt_match(&v, &a, &b, &long, &sprt, 20, None).unwrap();
        assert_eq!(report.games(), 0, "a stopped SPRT match must not go on batch after batch");
        stop.store(false, std::sync::atomic::Ordering::Relaxed);
        assert_eq!(run_match(&v, &a, &b, &options, None).unwrap().games(), 4);
    }

    /// A variant whose array is drawn by chance: each opening has its own array, named in its
    /// text, and a match plays from them.
    #[test]
    fn openings_of_a_generated_variant_draw_their_own_arrays() {
        let v = Variant::load("wild3").unwrap();
        let a = generate_openings(&v, 12, 2, 5);
        assert_eq!(a, generate_openings(&v, 12, 2, 5));
        assert_eq!(a[..6], generate_openings(&v, 6, 2, 5)[..], "the first k do not depend on the count");
        let arrays: HashSet<&String> = a.iter().map(|o| o.start.as_ref().expect("its own array")).collect();
        assert!(arrays.len() >= 11, "{} arrays in 12 openings", arrays.len());
        for o in &a {
            let fen = o.start.as_ref().unwrap();
            assert!(o.text.starts_with(&format!("[{fen}] ")) && o.moves.len() == 2, "{}", o.text);
            let mut pos = Position::from_fen(Arc::clone(&v), fen).unwrap();
            for &m in &o.moves {
                pos.make(m);
            }
            assert_eq!(o.position(&v).to_fen(), pos.to_fen());
        }
        let (x, y) = (contestant("random", &v), contestant("greedy", &v));
        let options = MatchOptions { games: 4, threads: 1, ..MatchOptions::default() };
        let report = run_match(&v, &x, &y, &options, None).unwrap();
        assert_eq!((report.games(), report.openings), (4, 2));
    }

    #[test]
    fn openings_are_distinct_and_reproducible() {
        let v = Variant::load("gardner").unwrap();
        let a = generate_openings(&v, 20, 3, 7);
        let b = generate_openings(&v, 20, 3, 7);
        assert_eq!(a.len(), 20);
        assert_eq!(a, b);
        let finals: HashSet<u64> = a.iter().map(|o| o.position(&v).hash()).collect();
        assert_eq!(finals.len(), 20);
        assert!(a.iter().all(|o| o.moves.len() == 3));
        // A setup variant: the setup phase is sampled, then the random plies.
        let s = Variant::load("scirocco").unwrap();
        let o = generate_openings(&s, 4, 1, 1);
        assert_eq!(o.len(), 4);
        assert!(o.iter().all(|o| !o.position(&s).in_setup()));
        // At most MAX_OPENINGS, the same ones first (chess has ~197,000 positions after 4 plies).
        let c = Variant::load("chess").unwrap();
        let many = generate_openings(&c, 10_000_000 / 2, 4, 1);
        assert_eq!(many.len(), MAX_OPENINGS);
        assert_eq!(many[..20], generate_openings(&c, 20, 4, 1)[..]);
    }

    #[test]
    fn deterministic_replays_count_as_one_game() {
        let v = Variant::load("gardner").unwrap();
        let ab = contestant("alphabeta:1", &v);
        let greedy = contestant("greedy", &v);
        let options = MatchOptions { games: 8, random_plies: 0, seed: 3, threads: 2, ..MatchOptions::default() };
        // Zero random plies: one opening (the start), reused by every pair.
        let report = run_match(&v, &ab, &ab.clone().renamed("alphabeta:1#2"), &options, None).unwrap();
        assert_eq!(report.games(), 8);
        assert_eq!(report.openings, 1);
        assert_eq!(report.distinct_games, 1, "{:?}", report.records.iter().map(|r| &r.moves).collect::<Vec<_>>());
        let report = run_match(&v, &ab, &greedy, &options, None).unwrap();
        assert!(report.distinct_games > 1);
        assert_eq!(report.records.len(), 8);
        assert!(report.records.iter().all(|r| r.moves.is_some()));
    }

    #[test]
    fn move_cap_adjudicates() {
        let v = Variant::load("gardner").unwrap();
        let r = contestant("random", &v);
        let options = MatchOptions { games: 4, move_cap: Some(3), threads: 1, ..MatchOptions::default() };
        let report = run_match(&v, &r, &r.clone().renamed("random#2"), &options, None).unwrap();
        for rec in &report.records {
            assert!(rec.plies <= 3);
            if rec.plies == 3 {
                assert_eq!(rec.reason, Termination::MoveCap);
                assert_eq!(rec.result, GameResult::Draw);
            }
        }
        let line = report.result_line();
        assert!(line.starts_with("result "), "{line}");
        assert_eq!(line.split(' ').count(), 9);
    }

    #[test]
    fn sprt_match_stops_when_decided() {
        let v = Variant::load("gardner").unwrap();
        let (greedy, random) = (contestant("greedy", &v), contestant("random", &v));
        let options = MatchOptions { games: 400, seed: 5, threads: 2, record_moves: false, ..MatchOptions::default() };
        let seen = std::sync::atomic::AtomicUsize::new(0);
        let progress = |_: &MatchGame, n: usize| {
            seen.fetch_max(n, std::sync::atomic::Ordering::Relaxed);
        };
        let (report, status) =
            run_sprt_match(&v, &greedy, &random, &options, &SprtParams::default(), 20, Some(&progress)).unwrap();
        assert_eq!(status.decision, Some(crate::sprt::SprtDecision::AcceptH1), "{status:?}");
        assert!(report.games() < 400 && report.games() % 20 == 0, "{}", report.games());
        assert_eq!(seen.load(std::sync::atomic::Ordering::Relaxed), report.games());
        assert!(report.records.iter().all(|r| r.moves.is_none()));
    }

    #[test]
    fn a_network_player_plays_matches() {
        use fairyzero_model::backend::MockBackend;
        let v = Variant::load("gardner").unwrap();
        let config = SearchPlayerConfig { simulations: 16, ..SearchPlayerConfig::default() };
        let net = Contestant::search("checkpoints/mock@16", Some(5), Arc::new(MockBackend::material()), config);
        let options = MatchOptions { games: 4, seed: 2, threads: 2, move_cap: Some(40), ..MatchOptions::default() };
        let report = run_match(&v, &net, &contestant("random", &v), &options, None).unwrap();
        assert_eq!(report.games(), 4);
        assert!(report
            .records
            .iter()
            .all(|r| (r.blue_step, r.tan_step) == (Some(5), None) || (r.blue_step, r.tan_step) == (None, Some(5))));
    }
}
