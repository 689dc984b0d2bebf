//! Variant-design tools: how balanced is a variant (and each of its initial arrays), and what
//! are its pieces worth, measured by self-play of a fixed player.
//!
//! # Balance
//!
//! [`run_balance`] plays a player against itself (Blue and Tan are the same player) from
//! distinct seeded openings and tallies Blue's (the first player's) wins, draws and losses.
//! With [`SetupSelection`] on a variant with a setup phase, every initial array (a whole
//! sequence of setup plies) gets its own tally; arrays are *not* merged by mirror symmetry
//! (each ply sequence is its own array).
//!
//! # Piece values (material-imbalance matches, after H. G. Muller)
//!
//! [`run_piece_values`]: for each non-royal piece type X present in the start position, one X
//! (the first in square order) is removed from one side; half the games remove it from Blue,
//! half from Tan, from distinct openings (random plies after the handicapped start). A type the
//! start position lacks (a promoted piece) is *added* instead, for one side, on the quiet square
//! of its half nearest its first rank ([`Imbalance::Added`]). The score `s` of the side with the
//! piece becomes an Elo advantage `400 log10(s / (1 - s))`, and X's value is
//! `Elo(X) / Elo(reference)` in reference units (pawn by default). Intervals: the 95% Wilson
//! interval of each score, mapped to Elo, and the ratio's extremes. A variant with a setup phase
//! is measured from its default array.
//!
//! The other two methods, which need self-play games rather than new matches, are in
//! [`crate::material`].
//!
//! # Accumulation
//!
//! Every batch of games is appended to the results store `OUT/matches/` ([`ResultStore`]) and
//! each experiment (a key in `match_id`) resumes with the next fresh openings, so reruns add
//! games and the intervals shrink. Interrupting loses at most the batch being played.

use std::{
    collections::{BTreeMap, HashSet},
    fmt::Write as _,
    path::Path,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
};

use fairyzero_rules::{Color, Move, MoveList, Piece, PieceType, Position, Square, Variant};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use fairyzero_evaluator::{
    matches::{mix, openings_from, start_position, GameResult, MatchGame, RECORD_VERSION},
    player::{Contestant, GameContext, PlayerSpec},
    plot::fonts_available,
    ranking::write_atomic,
    ratings::wilson_interval,
    store::ResultStore,
    values::ValueSource,
    Termination,
};

use crate::{material::MethodReport, Error};

const Z95: f64 = 1.959_964;

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

/// The most initial arrays one `balance` measures (`all` stops there; `sample:K` may not ask
/// for more): each array needs its own games.
pub const MAX_SETUPS: usize = 1 << 16;

/// Which initial arrays `balance` measures on a variant with a setup phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetupSelection {
    /// Every setup ply sequence.
    All,
    /// `K` distinct sequences drawn uniformly ply by ply (seeded).
    Sample(usize),
}

impl std::str::FromStr for SetupSelection {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "all" {
            return Ok(SetupSelection::All);
        }
        match s.strip_prefix("sample:").and_then(|k| k.parse::<usize>().ok()) {
            Some(k) if (1..=MAX_SETUPS).contains(&k) => Ok(SetupSelection::Sample(k)),
            _ => Err(Error::SetupSelection { text: s.to_string() }),
        }
    }
}

/// One row of a balance report: an array (or the whole variant).
#[derive(Clone, Debug, PartialEq)]
pub struct BalanceRow {
    /// The setup plies of the array (empty: the variant's openings, arrays sampled).
    pub array: String,
    /// With mirror merging: the setup plies of the array's mirror image, whose games this row
    /// stands for too.
    pub mirror: Option<String>,
    pub tally: Tally,
}

impl BalanceRow {
    /// `first-player W D L score S ci LO HI`.
    pub fn line(&self) -> String {
        let (lo, hi) = self.tally.interval();
        format!(
            "first-player {} {} {} score {:.4} ci {:.4} {:.4}",
            self.tally.wins,
            self.tally.draws,
            self.tally.losses,
            self.tally.score(),
            lo,
            hi
        )
    }
}

/// Every setup ply sequence of `v` (`None` if it has no setup phase), each as its moves.
pub fn all_setups(v: &Arc<Variant>, limit: usize) -> Option<Vec<Vec<Move>>> {
    let mut pos = Position::setup_start(Arc::clone(v))?;
    let mut out = Vec::new();
    fn walk(pos: &mut Position, path: &mut Vec<Move>, out: &mut Vec<Vec<Move>>, limit: usize) {
        if out.len() >= limit {
            return;
        }
        if !pos.in_setup() {
            out.push(path.clone());
            return;
        }
        let mut legal = MoveList::new();
        pos.legal_moves(&mut legal);
        for &m in legal.iter() {
            pos.make(m);
            path.push(m);
            walk(pos, path, out, limit);
            path.pop();
            pos.unmake();
        }
    }
    walk(&mut pos, &mut Vec::new(), &mut out, limit);
    Some(out)
}

/// `K` distinct sampled setup sequences (fewer if the variant has fewer).
pub fn sample_setups(v: &Arc<Variant>, k: usize, seed: u64) -> Option<Vec<Vec<Move>>> {
    let start = Position::setup_start(Arc::clone(v))?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x7365_7475_7073);
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut legal = MoveList::new();
    for _ in 0..(100 + 20 * k) {
        if out.len() >= k {
            break;
        }
        let mut pos = start.clone();
        let mut moves = Vec::new();
        while pos.in_setup() {
            pos.legal_moves(&mut legal);
            if legal.is_empty() {
                break;
            }
            let m = legal[rng.gen_range(0..legal.len())];
            pos.make(m);
            moves.push(m);
        }
        if !pos.in_setup() && seen.insert(pos.hash()) {
            out.push(moves);
        }
    }
    Some(out)
}

fn moves_text(start: &Position, moves: &[Move]) -> String {
    let mut pos = start.clone();
    let mut words = Vec::new();
    for &m in moves {
        words.push(pos.move_to_string(&m));
        pos.make(m);
    }
    words.join(" ")
}

/// Plays one game of `player` against itself from `start` + `opening`.
fn play_from(
    start: &Position,
    opening: &[Move],
    player: &Contestant,
    move_cap: Option<u32>,
    seed: u64,
) -> (GameResult, Termination, u32, String) {
    let mut pos = start.clone();
    for &m in opening {
        pos.make(m);
    }
    let first_ply = pos.ply();
    let cap_ply = first_ply.saturating_add(move_cap.unwrap_or(pos.variant().rules.move_cap));
    let ctx = GameContext { cap_ply };
    let mut players = [player.player(), player.player()];
    for p in players.iter_mut() {
        p.new_game(&pos, &ctx);
    }
    let mut rngs = [ChaCha8Rng::seed_from_u64(mix(seed, 1)), ChaCha8Rng::seed_from_u64(mix(seed, 2))];
    let mut words = Vec::new();
    let mut legal = MoveList::new();
    let (result, reason) = loop {
        pos.legal_moves(&mut legal);
        if let Some(o) = pos.outcome_with(&legal) {
            let r = match o.winner() {
                Some(Color::Blue) => GameResult::BlueWins,
                Some(Color::Tan) => GameResult::TanWins,
                None => GameResult::Draw,
            };
            break (r, o.reason().into());
        }
        if pos.ply() >= cap_ply && !pos.in_setup() {
            break (GameResult::Draw, Termination::MoveCap);
        }
        let side = pos.side_to_move();
        let i = side.index();
        let m = players[i].choose(&mut pos, &legal, &mut rngs[i]);
        if !legal.contains(&m) {
            let r = if side == Color::Blue { GameResult::TanWins } else { GameResult::BlueWins };
            break (r, Termination::IllegalMove);
        }
        words.push(pos.move_to_string(&m));
        pos.make(m);
    };
    (result, reason, pos.ply() - first_ply, words.join(" "))
}

fn fnv(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// One experiment: games of `player` against itself from `start` (a position, possibly
/// handicapped, possibly in its setup phase), stored under `key`.
struct Experiment {
    key: String,
    start: Position,
    /// Text of `start` for the records (the FEN, or the setup plies).
    start_text: String,
}

/// Plays `options.games` new games of every experiment, appending each batch to `store`.
fn run_experiments(
    variant: &Arc<Variant>,
    player: &Contestant,
    experiments: &[Experiment],
    options: &DesignOptions,
    store: &ResultStore,
    progress: Option<&DesignProgress<'_>>,
) -> Result<(), Error> {
    let existing = store.load()?.records;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(options.threads).build()?;
    let done = std::sync::atomic::AtomicUsize::new(0);
    let total = experiments.len() * options.games;
    let variant_hash = format!("{:016x}", variant.hash);
    for (e_index, e) in experiments.iter().enumerate() {
        let before = existing
            .iter()
            .filter(|r| r.match_id == e.key && r.blue == player.name && r.variant_hash == variant_hash)
            .count();
        let seed = mix(options.seed, fnv(&e.key));
        // The salt keeps the openings of stores written before this generator was shared.
        let openings = openings_from(&e.start, before + options.games, options.random_plies, seed ^ 0x6465_7369_676e);
        if openings.is_empty() {
            return Err(Error::NoOpening { experiment: e.key.clone() });
        }
        let mut g = 0;
        while g < options.games {
            if options.stopped() {
                return Ok(());
            }
            let end = (g + options.batch.max(1)).min(options.games);
            let records: Vec<MatchGame> = pool.install(|| {
                (g..end)
                    .into_par_iter()
                    .map(|i| {
                        let game = before + i;
                        let opening = &openings[game % openings.len()];
                        let game_seed = mix(seed, game as u64);
                        let (result, reason, plies, moves) =
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
                            moves_hash: format!("{:016x}", fnv(&format!("{} {opening_text} {moves}", e.start_text))),
                            moves: Some(moves),
                            game,
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
            g = end;
        }
    }
    Ok(())
}

/// Blue's tally per key among `records` of `player` on `variant`.
fn tallies(variant: &Variant, player: &str, records: &[MatchGame]) -> BTreeMap<String, Tally> {
    let hash = format!("{:016x}", variant.hash);
    let mut out: BTreeMap<String, Tally> = BTreeMap::new();
    for r in records.iter().filter(|r| r.blue == player && r.tan == player && r.variant_hash == hash) {
        out.entry(r.match_id.clone()).or_default().add(r.result.blue_score());
    }
    out
}

/// A balance measurement: overall, or per array.
#[derive(Clone, Debug)]
pub struct BalanceReport {
    pub player: String,
    pub variant: String,
    /// All games of this player on this variant's experiments (every array together).
    pub overall: BalanceRow,
    /// Per array, most balanced first (|score - 1/2| ascending); empty without `--setups`.
    pub arrays: Vec<BalanceRow>,
    /// With mirror merging asked for: how many arrays were merged into their mirror image's row.
    pub mirrors_merged: Option<usize>,
}

const BALANCE_KEY: &str = "balance";

/// Plays `options.games` more games (per array with `setups`) and reports everything stored.
/// With `merge_mirrors`, an array whose left-right mirror image is also selected is played and
/// reported once, for both (only where the mirror is a symmetry of the game: see
/// `fairyzero_rules::symmetry`).
#[allow(clippy::too_many_arguments)]
pub fn run_balance(
    variant: &Arc<Variant>,
    player: &Contestant,
    setups: Option<SetupSelection>,
    merge_mirrors: bool,
    options: &DesignOptions,
    out: &Path,
    progress: Option<&DesignProgress<'_>>,
) -> Result<BalanceReport, Error> {
    let store = ResultStore::new(out);
    let start = start_position(variant);
    let experiments = match setups {
        None => vec![Experiment { key: BALANCE_KEY.into(), start: start.clone(), start_text: "start".into() }],
        Some(sel) => {
            let arrays = match sel {
                SetupSelection::All => all_setups(variant, MAX_SETUPS),
                SetupSelection::Sample(k) => sample_setups(variant, k, options.seed),
            }
            .ok_or_else(|| Error::NoSetupPhase { variant: variant.name.clone() })?;
            arrays
                .iter()
                .map(|moves| {
                    let text = moves_text(&start, moves);
                    let mut pos = start.clone();
                    for &m in moves {
                        pos.make(m);
                    }
                    Experiment { key: format!("{BALANCE_KEY} setup={text}"), start: pos, start_text: text }
                })
                .collect()
        }
    };
    let (experiments, mirrors) =
        if merge_mirrors { merge_mirror_arrays(experiments) } else { (experiments, Vec::new()) };
    run_experiments(variant, player, &experiments, options, &store, progress)?;
    let records = store.load()?.records;
    let all = tallies(variant, &player.name, &records);
    let mut overall = Tally::default();
    let mut arrays = Vec::new();
    for (key, t) in &all {
        if key == BALANCE_KEY || key.starts_with("balance setup=") {
            overall.wins += t.wins;
            overall.draws += t.draws;
            overall.losses += t.losses;
        }
        if setups.is_some() {
            if let Some(array) = key.strip_prefix("balance setup=") {
                if let Some(i) = experiments.iter().position(|e| &e.key == key) {
                    let mirror = mirrors.iter().find(|(kept, _)| *kept == i).map(|(_, m)| m.clone());
                    arrays.push(BalanceRow { array: array.to_string(), mirror, tally: *t });
                }
            }
        }
    }
    arrays.sort_by(|a, b| {
        let d = |r: &BalanceRow| (r.tally.score() - 0.5).abs();
        d(a).total_cmp(&d(b)).then_with(|| a.array.cmp(&b.array))
    });
    let report = BalanceReport {
        player: player.name.clone(),
        variant: variant.name.clone(),
        overall: BalanceRow { array: String::new(), mirror: None, tally: overall },
        arrays,
        mirrors_merged: merge_mirrors.then_some(mirrors.len()),
    };
    if setups.is_some() {
        write_balance_files(&report, out)?;
    }
    Ok(report)
}

/// Keeps the first array of every mirror pair; returns the kept experiments and, per merged
/// array, the index of the kept one and the merged one's setup plies.
fn merge_mirror_arrays(experiments: Vec<Experiment>) -> (Vec<Experiment>, Vec<(usize, String)>) {
    let mut kept: Vec<Experiment> = Vec::new();
    let mut kept_hashes: Vec<u64> = Vec::new();
    let mut merged = Vec::new();
    for e in experiments {
        // Compare positions without history, as the mirror image is built.
        let own = e.start.edited(&[]).map(|p| p.hash()).ok();
        let mirror = e.start.mirrored().and_then(Result::ok).map(|p| p.hash());
        match mirror.filter(|&m| Some(m) != own).and_then(|m| kept_hashes.iter().position(|&h| h == m)) {
            Some(i) => merged.push((i, e.start_text.clone())),
            None => {
                kept_hashes.push(own.unwrap_or(e.start.hash()));
                kept.push(e);
            }
        }
    }
    (kept, merged)
}

fn io_err(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::Io { path: path.to_path_buf(), source }
}

fn write_balance_files(report: &BalanceReport, out: &Path) -> Result<(), Error> {
    let mut csv = String::from("rank,array,mirror,games,wins,draws,losses,score,ci_low,ci_high\n");
    let mut md = format!(
        "# Balance of {} ({} against itself), first player's score per initial array\n\n| rank | array | games | W | D | L | score | 95% CI |\n|---:|---|---:|---:|---:|---:|---:|---|\n",
        report.variant, report.player
    );
    for (i, r) in report.arrays.iter().enumerate() {
        let t = r.tally;
        let (lo, hi) = t.interval();
        let _ = writeln!(
            csv,
            "{},\"{}\",\"{}\",{},{},{},{},{:.4},{:.4},{:.4}",
            i + 1,
            r.array,
            r.mirror.as_deref().unwrap_or(""),
            t.games(),
            t.wins,
            t.draws,
            t.losses,
            t.score(),
            lo,
            hi
        );
        let _ = writeln!(
            md,
            "| {} | `{}`{} | {} | {} | {} | {} | {:.3} | {:.3}–{:.3} |",
            i + 1,
            r.array,
            r.mirror.as_ref().map(|m| format!(" = mirror of `{m}`")).unwrap_or_default(),
            t.games(),
            t.wins,
            t.draws,
            t.losses,
            t.score(),
            lo,
            hi
        );
    }
    let _ = match report.mirrors_merged {
        Some(n) => writeln!(
            md,
            "\nMirror images merged: {n} arrays were played as, and counted with, their left-right mirror image (named after the row's array)."
        ),
        None => writeln!(md, "\nMirror-image arrays are not merged: each setup ply sequence is its own row."),
    };
    let bars: Vec<Bar> = report
        .arrays
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let (lo, hi) = r.tally.interval();
            Bar { label: array_label(i + 1, &r.array), value: r.tally.score(), lo, hi }
        })
        .collect();
    write_table_files(out, "balance", csv, md, &bars, "first player's score per array (95% CI)", Some(0.5))
}

/// A balance chart's row label: the table's rank, then the array's setup plies without their
/// `set:` prefixes (`3. d2=K d9=CO a1=WA`), the shortest text that still names the array.
fn array_label(rank: usize, array: &str) -> String {
    format!("{rank}. {}", array.replace("set:", ""))
}

/// Writes `OUT/STEM.csv`, `OUT/STEM.md` and the bar chart `OUT/STEM.png`, each atomically.
fn write_table_files(
    out: &Path,
    stem: &str,
    csv: String,
    md: String,
    bars: &[Bar],
    title: &str,
    line: Option<f64>,
) -> Result<(), Error> {
    std::fs::create_dir_all(out).map_err(io_err(out))?;
    for (ext, text) in [("csv", csv), ("md", md)] {
        write_atomic(&out.join(format!("{stem}.{ext}")), text.as_bytes())?;
    }
    write_plot(out, stem, bars, title, line)
}

/// Writes the bar chart `OUT/STEM.png` through a temporary file and a rename.
fn write_plot(out: &Path, stem: &str, bars: &[Bar], title: &str, line: Option<f64>) -> Result<(), Error> {
    let png = out.join(format!("{stem}.png"));
    let tmp = out.join(format!(".{stem}.tmp.png"));
    bar_plot(bars, title, line, &tmp)?;
    std::fs::rename(&tmp, &png).map_err(io_err(&png))
}

/// Bars of values with their intervals.
fn value_bars<'a>(rows: impl Iterator<Item = (&'a str, f64, (f64, f64))>) -> Vec<Bar> {
    rows.map(|(label, value, (lo, hi))| Bar { label: label.to_string(), value, lo, hi }).collect()
}

// ---------------------------------------------------------------------------------------------
// Piece values
// ---------------------------------------------------------------------------------------------

/// One piece type's measured value.
#[derive(Clone, Debug, PartialEq)]
pub struct PieceValueRow {
    pub piece: String,
    pub imbalance: Imbalance,
    /// Games with the piece removed (both sides together).
    pub games: usize,
    /// The full side's score and its 95% interval.
    pub score: f64,
    pub score_ci: (f64, f64),
    /// The full side's Elo advantage and its interval.
    pub elo: f64,
    pub elo_ci: (f64, f64),
    /// Elo / Elo(reference), with the interval's extremes (infinite when the reference's
    /// interval reaches 0).
    pub value: f64,
    pub value_ci: (f64, f64),
}

#[derive(Clone, Debug)]
pub struct PieceValueReport {
    pub player: String,
    pub variant: String,
    pub reference: String,
    pub rows: Vec<PieceValueRow>,
    /// Types that were not measured, with why.
    pub skipped: Vec<(String, String)>,
}

/// Logistic Elo of a score, clamped so that 0 and 1 stay finite with `n` games.
fn elo_of(score: f64, n: usize) -> f64 {
    let eps = 0.5 / (n.max(1) as f64);
    let s = score.clamp(eps, 1.0 - eps);
    400.0 * (s / (1.0 - s)).log10()
}

/// The start position without one piece of `kind` of `color` (the first in square order).
fn handicapped(v: &Arc<Variant>, kind: usize, color: Color) -> Option<Position> {
    let start = Position::start(Arc::clone(v));
    let target = Piece::new(PieceType(kind as u8), color);
    let sq = squares_of(&start).find(|&s| start.piece_at(s) == Some(target))?;
    start.edited(&[(sq, None)]).ok()
}

fn squares_of(pos: &Position) -> impl Iterator<Item = Square> {
    (0..pos.board().len()).map(|i| Square(i as u16))
}

/// The start position with one more piece of `kind` for `color` (a type the start does not
/// have, such as a promoted one): on the empty square of its own half nearest its first rank,
/// central files first, where the piece is not attacked and gives no check, and the game goes on.
fn reinforced(v: &Arc<Variant>, kind: usize, color: Color) -> Option<(Position, Square)> {
    let start = Position::start(Arc::clone(v));
    let d = v.dims;
    let piece = Piece::new(PieceType(kind as u8), color);
    let centre = (d.width as f64 - 1.0) / 2.0;
    let mut files: Vec<i32> = (0..d.width as i32).collect();
    files.sort_by(|a, b| (*a as f64 - centre).abs().total_cmp(&(*b as f64 - centre).abs()).then(a.cmp(b)));
    let mut legal = MoveList::new();
    for relative in 0..(d.height as i32 + 1) / 2 {
        let rank = if color == Color::Blue { relative } else { d.height as i32 - 1 - relative };
        for &file in &files {
            let sq = d.square(file, rank).expect("on the board");
            if start.piece_at(sq).is_some() {
                continue;
            }
            let Ok(mut pos) = start.edited(&[(sq, Some(piece))]) else { continue };
            if pos.is_attacked(sq, color.other()) || pos.in_check(color.other()) {
                continue;
            }
            pos.legal_moves(&mut legal);
            if !legal.is_empty() && pos.outcome_with(&legal).is_none() {
                return Some((pos, sq));
            }
        }
    }
    None
}

/// How a piece type's imbalance is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Imbalance {
    /// One of the side's pieces of the type is taken from the start position.
    Removed,
    /// The side gets one more, on a quiet square of its half (types not in the start position).
    Added,
}

impl Imbalance {
    fn key(self) -> &'static str {
        match self {
            Imbalance::Removed => "minus",
            Imbalance::Added => "plus",
        }
    }
}

/// Checks that `spec` may measure piece values (no values it would be told).
pub fn check_piece_value_player(spec: &PlayerSpec) -> Result<(), Error> {
    match spec {
        PlayerSpec::AlphaBeta { values: ValueSource::Nominal, .. }
        | PlayerSpec::Greedy { values: ValueSource::Nominal } => Err(Error::CircularPlayer { spec: spec.to_string() }),
        _ => Ok(()),
    }
}

/// Measures piece values (see the module documentation). `pieces` (tokens, case-insensitive)
/// restricts the types; the reference is always measured.
#[allow(clippy::too_many_arguments)]
pub fn run_piece_values(
    variant: &Arc<Variant>,
    spec: &PlayerSpec,
    player: &Contestant,
    pieces: Option<&[String]>,
    reference: &str,
    options: &DesignOptions,
    out: &Path,
    progress: Option<&DesignProgress<'_>>,
) -> Result<PieceValueReport, Error> {
    check_piece_value_player(spec)?;
    let token_of = |t: usize| variant.pieces[t].token.clone();
    let reference_type = variant
        .piece_by_token(reference)
        .ok_or_else(|| Error::UnknownPiece { token: reference.to_string(), variant: variant.name.clone() })?
        .index();
    if variant.pieces[reference_type].royal {
        return Err(Error::RoyalReference { token: reference.to_string() });
    }
    let mut types: Vec<usize> = match pieces {
        Some(list) => list
            .iter()
            .map(|t| {
                variant
                    .piece_by_token(t)
                    .map(|p| p.index())
                    .ok_or_else(|| Error::UnknownPiece { token: t.clone(), variant: variant.name.clone() })
            })
            .collect::<Result<_, _>>()?,
        None => (0..variant.piece_count()).collect(),
    };
    if !types.contains(&reference_type) {
        types.push(reference_type);
    }
    let mut skipped = Vec::new();
    let mut experiments = Vec::new();
    let mut measured = Vec::new();
    for &t in &types {
        if variant.pieces[t].royal {
            skipped.push((token_of(t), "royal".to_string()));
            continue;
        }
        let starts = match (handicapped(variant, t, Color::Blue), handicapped(variant, t, Color::Tan)) {
            (Some(blue), Some(tan)) => Some((Imbalance::Removed, blue, tan)),
            _ if t == reference_type => {
                return Err(Error::ReferenceNotInStart { token: reference.to_string() });
            }
            _ => match (reinforced(variant, t, Color::Blue), reinforced(variant, t, Color::Tan)) {
                (Some((blue, _)), Some((tan, _))) => Some((Imbalance::Added, blue, tan)),
                _ => None,
            },
        };
        let Some((imbalance, blue, tan)) = starts else {
            skipped.push((
                token_of(t),
                "not in the start position, and no quiet square of a side's half takes one more".to_string(),
            ));
            continue;
        };
        measured.push((t, imbalance));
        for (side, pos) in [("blue", blue), ("tan", tan)] {
            let text = pos.to_fen();
            experiments.push(Experiment {
                key: format!("piece-values {}={} side={side}", imbalance.key(), token_of(t)),
                start: pos,
                start_text: text,
            });
        }
    }
    let per_side = DesignOptions { games: options.games.div_ceil(2), ..options.clone() };
    run_experiments(variant, player, &experiments, &per_side, &ResultStore::new(out), progress)?;
    let records = ResultStore::new(out).load()?.records;
    let all = tallies(variant, &player.name, &records);
    // The tally of the side with the piece (the full side, or the reinforced one) per type.
    let full = |t: usize, imbalance: Imbalance| -> Tally {
        let mut out = Tally::default();
        let key = |side: &str| format!("piece-values {}={} side={side}", imbalance.key(), token_of(t));
        // Blue's tallies; Blue has the piece when Tan was handicapped or Blue reinforced.
        let blue_has_it = |side: &str| (side == "tan") == (imbalance == Imbalance::Removed);
        for side in ["blue", "tan"] {
            if let Some(b) = all.get(&key(side)) {
                let (w, l) = if blue_has_it(side) { (b.wins, b.losses) } else { (b.losses, b.wins) };
                out.wins += w;
                out.draws += b.draws;
                out.losses += l;
            }
        }
        out
    };
    let elo_row = |t: usize, imbalance: Imbalance| {
        let tally = full(t, imbalance);
        let n = tally.games();
        let (lo, hi) = tally.interval();
        (tally, elo_of(tally.score(), n), (elo_of(lo, n), elo_of(hi, n)))
    };
    let (_, ref_elo, ref_ci) = elo_row(reference_type, Imbalance::Removed);
    let mut rows = Vec::new();
    for &(t, imbalance) in &measured {
        let (tally, elo, elo_ci) = elo_row(t, imbalance);
        let (value, value_ci) = if t == reference_type {
            (1.0, (1.0, 1.0))
        } else {
            // Undefined while the reference's advantage is 0.
            let value = if ref_elo != 0.0 { elo / ref_elo } else { f64::NAN };
            (value, crate::material::ratio_interval(elo_ci, ref_ci))
        };
        rows.push(PieceValueRow {
            piece: token_of(t),
            imbalance,
            games: tally.games(),
            score: tally.score(),
            score_ci: tally.interval(),
            elo,
            elo_ci,
            value,
            value_ci,
        });
    }
    rows.sort_by(|a, b| a.value.total_cmp(&b.value));
    let report = PieceValueReport {
        player: player.name.clone(),
        variant: variant.name.clone(),
        reference: token_of(reference_type),
        rows,
        skipped,
    };
    write_piece_value_files(&report, out)?;
    Ok(report)
}

fn write_piece_value_files(report: &PieceValueReport, out: &Path) -> Result<(), Error> {
    let mut csv = String::from(
        "piece,imbalance,games,score,score_low,score_high,elo,elo_low,elo_high,value,value_low,value_high\n",
    );
    let mut md = format!(
        "# Piece values of {} by material-imbalance matches ({} against itself)\n\nValue = Elo advantage of the side with the piece / that of the reference `{}`; 95% intervals.\n\n| piece | imbalance | games | score of the side with it | Elo | value | 95% CI |\n|---|---|---:|---:|---:|---:|---|\n",
        report.variant, report.player, report.reference
    );
    for r in &report.rows {
        let _ = writeln!(
            csv,
            "{},{},{},{:.4},{:.4},{:.4},{:.1},{:.1},{:.1},{:.3},{:.3},{:.3}",
            r.piece,
            r.imbalance.key(),
            r.games,
            r.score,
            r.score_ci.0,
            r.score_ci.1,
            r.elo,
            r.elo_ci.0,
            r.elo_ci.1,
            r.value,
            r.value_ci.0,
            r.value_ci.1
        );
        let _ = writeln!(
            md,
            "| {} | {} | {} | {:.3} ({:.3}–{:.3}) | {:+.0} | {:.2} | {:.2}–{:.2} |",
            r.piece,
            match r.imbalance {
                Imbalance::Removed => "one removed",
                Imbalance::Added => "one added",
            },
            r.games,
            r.score,
            r.score_ci.0,
            r.score_ci.1,
            r.elo,
            r.value,
            r.value_ci.0,
            r.value_ci.1
        );
    }
    for (p, why) in &report.skipped {
        let _ = writeln!(md, "\nNot measured: `{p}` ({why}).");
    }
    let bars = value_bars(report.rows.iter().map(|r| (r.piece.as_str(), r.value, r.value_ci)));
    let title = format!("piece values in units of {} (95% CI)", report.reference);
    write_table_files(out, "piece-values", csv, md, &bars, &title, None)?;
    // The Elo of each imbalance has a bounded interval even while the ratios' are not (few
    // games, a reference worth little to the player): the plot to read then.
    let elo = value_bars(report.rows.iter().map(|r| (r.piece.as_str(), r.elo, r.elo_ci)));
    write_plot(out, "piece-values-elo", &elo, "Elo advantage of the side with the piece (95% CI)", Some(0.0))
}

/// Writes `piece-values-<method>.{csv,md,png}` of a probe or fit table.
pub fn write_method_files(report: &MethodReport, out: &Path) -> Result<(), Error> {
    let mut csv = String::from("piece,samples,raw,raw_low,raw_high,value,value_low,value_high\n");
    let title = match report.method {
        "probe" => "value-net probe",
        "fit" => "least-squares fit of game results on material",
        other => other,
    };
    let mut md = format!(
        "# Piece values of {} by {title}\n\nSource: {}. Raw measure: {}. Value = raw / raw of the reference `{}`; 95% bootstrap intervals.\n\n| piece | samples | raw | raw 95% CI | value | 95% CI |\n|---|---:|---:|---|---:|---|\n",
        report.variant, report.source, report.raw_unit, report.reference
    );
    for r in &report.rows {
        let _ = writeln!(
            csv,
            "{},{},{:.5},{:.5},{:.5},{:.3},{:.3},{:.3}",
            r.piece, r.samples, r.raw, r.raw_ci.0, r.raw_ci.1, r.value, r.value_ci.0, r.value_ci.1
        );
        let _ = writeln!(
            md,
            "| {} | {} | {:.4} | {:.4}–{:.4} | {:.2} | {:.2}–{:.2} |",
            r.piece, r.samples, r.raw, r.raw_ci.0, r.raw_ci.1, r.value, r.value_ci.0, r.value_ci.1
        );
    }
    for (p, why) in &report.skipped {
        let _ = writeln!(md, "\nNot measured: `{p}` ({why}).");
    }
    let bars = value_bars(report.rows.iter().map(|r| (r.piece.as_str(), r.value, r.value_ci)));
    let title = format!("piece values ({title}) in units of {} (95% CI)", report.reference);
    write_table_files(out, &format!("piece-values-{}", report.method), csv, md, &bars, &title, None)
}

/// Writes `piece-values-compare.md`: one column per method that was run, pieces as rows.
pub fn write_comparison(matches: Option<&PieceValueReport>, others: &[MethodReport], out: &Path) -> Result<(), Error> {
    type Column = (String, BTreeMap<String, (f64, (f64, f64))>);
    let mut columns: Vec<Column> = Vec::new();
    if let Some(m) = matches {
        columns.push((
            format!("matches ({})", m.player),
            m.rows.iter().map(|r| (r.piece.clone(), (r.value, r.value_ci))).collect(),
        ));
    }
    for o in others {
        columns.push((o.method.to_string(), o.rows.iter().map(|r| (r.piece.clone(), (r.value, r.value_ci))).collect()));
    }
    let mut pieces: Vec<String> = columns.iter().flat_map(|(_, c)| c.keys().cloned()).collect();
    pieces.sort();
    pieces.dedup();
    let variant = matches.map(|m| m.variant.clone()).or_else(|| others.first().map(|o| o.variant.clone()));
    let reference = matches.map(|m| m.reference.clone()).or_else(|| others.first().map(|o| o.reference.clone()));
    let mut md = format!(
        "# Piece values of {} in units of `{}`, by method (95% intervals)\n\n| piece |",
        variant.unwrap_or_default(),
        reference.unwrap_or_default()
    );
    for (name, _) in &columns {
        let _ = write!(md, " {name} |");
    }
    md.push_str("\n|---|");
    md.push_str(&"---|".repeat(columns.len()));
    md.push('\n');
    for p in &pieces {
        let _ = write!(md, "| {p} |");
        for (_, c) in &columns {
            match c.get(p) {
                Some((v, (lo, hi))) => {
                    let _ = write!(md, " {v:.2} ({lo:.2}–{hi:.2}) |");
                }
                None => md.push_str(" – |"),
            }
        }
        md.push('\n');
    }
    std::fs::create_dir_all(out).map_err(io_err(out))?;
    Ok(write_atomic(&out.join("piece-values-compare.md"), md.as_bytes())?)
}

// ---------------------------------------------------------------------------------------------
// Bar plot
// ---------------------------------------------------------------------------------------------

struct Bar {
    label: String,
    value: f64,
    lo: f64,
    hi: f64,
}

/// Bars with interval whiskers (non-finite bounds are clipped to the axis).
fn bar_plot(bars: &[Bar], title: &str, line: Option<f64>, path: &Path) -> Result<(), Error> {
    draw_bars(bars, title, line, path, fonts_available())
        .map_err(|e| Error::Plot { path: path.to_path_buf(), message: e.to_string() })
}

/// Height of one bar's row, and the tallest image drawn (rows get thinner beyond it).
const ROW_PX: u32 = 26;
const MAX_HEIGHT_PX: u32 = 16_000;

/// One horizontal bar per row, its label left of it: labels as long as a balance array's setup
/// plies stay readable side by side, where vertical bars' labels ran into one smear.
fn draw_bars(
    bars: &[Bar],
    title: &str,
    line: Option<f64>,
    path: &Path,
    text: bool,
) -> Result<(), Box<dyn std::error::Error>> {
    use plotters::{
        prelude::*,
        style::text_anchor::{HPos, Pos, VPos},
    };
    let finite = |x: f64, d: f64| if x.is_finite() { x } else { d };
    // The axis spans the finite values and bounds only: an undefined value (a reference not yet
    // measurably above 0) draws no bar, an unbounded interval a whisker to the axis' end.
    let ends = bars.iter().flat_map(|b| [b.lo, b.value, b.hi]).filter(|x| x.is_finite());
    let mut x_min = ends.clone().fold(0.0f64, f64::min);
    let mut x_max = ends.fold(line.unwrap_or(0.0), f64::max);
    if x_max.partial_cmp(&x_min) != Some(std::cmp::Ordering::Greater) {
        x_max = x_min + 1.0;
    }
    let pad = 0.05 * (x_max - x_min);
    x_min -= pad;
    x_max += pad;
    let n = bars.len().max(1);
    let height = (110 + ROW_PX.saturating_mul(n as u32)).clamp(300, MAX_HEIGHT_PX);
    // Labels while a row is tall enough to hold one.
    let labelled = text && (height - 110) / n as u32 >= 12;
    let longest = bars.iter().map(|b| b.label.chars().count()).max().unwrap_or(0) as u32;
    let label_px = if labelled { (longest * 7 + 30).clamp(60, 900) } else { 5 };
    let root = BitMapBackend::new(path, (label_px + 700, height)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut builder = ChartBuilder::on(&root);
    builder.margin(20).y_label_area_size(label_px);
    if text {
        builder.caption(title, ("sans-serif", 22)).x_label_area_size(40);
    } else {
        builder.x_label_area_size(5);
    }
    // Scores need their decimals, Elo differences do not.
    let decimals = if x_max - x_min >= 10.0 { 0 } else { 2 };
    // Row i spans y in [n - i - 1, n - i]: the first bar on top, as in the tables.
    let mut chart = builder.build_cartesian_2d(x_min..x_max, 0f64..n as f64)?;
    if text {
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(0)
            .x_label_formatter(&|x| format!("{x:.decimals$}"))
            .label_style(("sans-serif", 14))
            .draw()?;
    } else {
        chart.configure_mesh().x_labels(0).y_labels(0).draw()?;
    }
    let centre = |i: usize| (n - i) as f64 - 0.5;
    let fill = RGBColor(30, 90, 200);
    chart.draw_series(bars.iter().enumerate().filter(|(_, b)| b.value.is_finite()).map(|(i, b)| {
        let y = centre(i);
        Rectangle::new([(0.0f64.max(x_min), y - 0.35), (b.value, y + 0.35)], fill.mix(0.7).filled())
    }))?;
    for (i, b) in bars.iter().enumerate() {
        let (lo, hi) = (finite(b.lo, x_min).max(x_min), finite(b.hi, x_max).min(x_max));
        chart.draw_series(std::iter::once(PathElement::new(
            [(lo, centre(i)), (hi, centre(i))],
            BLACK.stroke_width(2),
        )))?;
    }
    if let Some(x) = line {
        chart.draw_series(std::iter::once(PathElement::new([(x, 0.0), (x, n as f64)], RED.stroke_width(1))))?;
    }
    if labelled {
        let style = ("sans-serif", 14).into_font().color(&BLACK).pos(Pos::new(HPos::Right, VPos::Center));
        for (i, b) in bars.iter().enumerate() {
            let (x, y) = chart.backend_coord(&(x_min, centre(i)));
            root.draw(&Text::new(b.label.clone(), (x - 8, y), style.clone()))?;
        }
    }
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Undefined values and unbounded intervals (a reference with no measurable advantage yet)
    /// still give a plot, promptly (an infinite axis once made the plotting loop forever).
    #[test]
    fn plots_survive_undefined_values() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bars.png");
        let bars = [
            Bar { label: "P".into(), value: 1.0, lo: 1.0, hi: 1.0 },
            Bar { label: "N".into(), value: f64::NAN, lo: f64::NEG_INFINITY, hi: f64::INFINITY },
            Bar { label: "B".into(), value: f64::INFINITY, lo: -1.9e11, hi: f64::INFINITY },
        ];
        bar_plot(&bars, "test", None, &path).unwrap();
        assert!(path.exists());
    }

    /// Scirocco's 512 arrays: every piece is left-right symmetric and there is no castling, so
    /// arrays pair off with their mirror images; each merged array's position is the mirror of
    /// the kept one's.
    #[test]
    fn scirocco_arrays_merge_with_their_mirror_images() {
        let v = Variant::load("scirocco").unwrap();
        let start = start_position(&v);
        let arrays = all_setups(&v, 1 << 16).unwrap();
        assert_eq!(arrays.len(), 512);
        let experiments: Vec<Experiment> = arrays
            .iter()
            .map(|moves| {
                let mut pos = start.clone();
                moves.iter().for_each(|&m| pos.make(m));
                let text = moves_text(&start, moves);
                Experiment { key: text.clone(), start: pos, start_text: text }
            })
            .collect();
        let texts: Vec<String> = experiments.iter().map(|e| e.start_text.clone()).collect();
        let (kept, merged) = merge_mirror_arrays(experiments);
        assert_eq!(kept.len() + merged.len(), 512);
        assert!(!merged.is_empty(), "no array was merged");
        for (i, text) in &merged {
            let original = texts.iter().position(|t| t == text).unwrap();
            let mut pos = start.clone();
            arrays[original].iter().for_each(|&m| pos.make(m));
            let mirror = pos.mirrored().unwrap().unwrap();
            assert_eq!(mirror.board(), kept[*i].start.board(), "{text} is not the mirror of {}", kept[*i].start_text);
        }
        eprintln!("{} arrays kept, {} merged", kept.len(), merged.len());
    }
}
