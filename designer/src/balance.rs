//! Balance: how well a player does against itself as the first player, overall and per
//! initial array.
//!
//! [`run_balance`] plays a player against itself (Blue and Tan are the same player) from
//! distinct seeded openings and tallies Blue's (the first player's) wins, draws and losses.
//! With [`SetupSelection`] on a variant with a setup phase, every initial array (a whole
//! sequence of setup plies) gets its own tally. Each ply sequence is its own array, unless
//! `merge_mirrors` plays an array and its left-right mirror image as one (where the mirror is
//! a symmetry of the game).

use std::{collections::HashSet, fmt::Write as _, path::Path, sync::Arc};

use fairyzero_evaluator::{
    matches::{mix, start_position},
    player::Contestant,
    store::ResultStore,
};
use fairyzero_rules::{Move, MoveList, Position, Variant};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::{
    games::{moves_text, run_experiments, tallies, DesignOptions, DesignProgress, Experiment, Tally},
    tables::{write_table_files, Bar},
    Error,
};

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
    /// The one array a `setup:<hex>` mask names (docs/notation.md).
    Mask(u64),
}

impl std::str::FromStr for SetupSelection {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "all" {
            return Ok(SetupSelection::All);
        }
        if s.starts_with("setup:") {
            return Ok(SetupSelection::Mask(fairyzero_rules::notation::parse_setup_mask(s)?));
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
    /// The setup plies of the array, or the position string of a drawn array (empty: the
    /// variant's openings, arrays sampled).
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

/// `k` distinct arrays of a variant whose start array is drawn by chance (fewer if it has fewer),
/// each from a seed of its own.
fn drawn_arrays(v: &Arc<Variant>, k: usize, seed: u64) -> Vec<Position> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for i in 0..(100 + 20 * k as u64) {
        if out.len() >= k {
            break;
        }
        let pos = Position::start_with_seed(Arc::clone(v), mix(seed, i));
        if seen.insert(pos.hash()) {
            out.push(pos);
        }
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
    let drawn = |hint| Error::DrawnStart { variant: variant.name.clone(), hint };
    // One row per array, whether a setup phase or the start generator made it.
    let array = |start: Position, text: String| Experiment {
        key: format!("{BALANCE_KEY} setup={text}"),
        start,
        start_text: text,
    };
    let experiments = match (variant.has_start_generator(), setups) {
        (true, Some(SetupSelection::Sample(k))) => drawn_arrays(variant, k, options.seed)
            .into_iter()
            .map(|pos| {
                let text = pos.to_fen();
                array(pos, text)
            })
            .collect(),
        (true, None) => return Err(drawn("give --setups sample:K to measure K of its arrays")),
        (true, Some(_)) => return Err(drawn("of its arrays only --setups sample:K applies")),
        (false, None) => vec![Experiment { key: BALANCE_KEY.into(), start: start.clone(), start_text: "start".into() }],
        (false, Some(sel)) => {
            let arrays = match sel {
                SetupSelection::All => all_setups(variant, MAX_SETUPS),
                SetupSelection::Sample(k) => sample_setups(variant, k, options.seed),
                SetupSelection::Mask(mask) => Some(vec![Position::setup_mask_moves(variant, mask)?]),
            }
            .ok_or_else(|| Error::NoSetupPhase { variant: variant.name.clone() })?;
            arrays
                .iter()
                .map(|moves| {
                    let mut pos = start.clone();
                    for &m in moves {
                        pos.make(m);
                    }
                    array(pos, moves_text(&start, moves))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `--setups setup:<hex>` selects the one array of the mask: Typhoon's canonical array is
    /// mask 2 (typhoon.md §2.6: `set:f1=K`, `set:f12=Co`, then every first member).
    #[test]
    fn a_mask_selects_its_array() {
        assert_eq!("setup:1F".parse::<SetupSelection>().unwrap(), SetupSelection::Mask(0x1f));
        assert!("setup:xyz".parse::<SetupSelection>().is_err());
        let v = Variant::load("typhoon").unwrap();
        let moves = Position::setup_mask_moves(&v, 2).unwrap();
        let mut pos = Position::setup_start(Arc::clone(&v)).unwrap();
        moves.iter().for_each(|&m| pos.make(m));
        assert_eq!(pos.to_fen(), Position::start(Arc::clone(&v)).to_fen());
        assert_eq!(moves_text(&Position::setup_start(Arc::clone(&v)).unwrap(), &moves[..2]), "set:f1=K set:f12=CO");
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
