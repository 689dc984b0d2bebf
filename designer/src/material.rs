//! Piece values from self-play data, the two methods that need no new games:
//!
//! - **value-net probe** ([`probe_values`]): positions sampled from self-play records are shown
//!   to a trained net with and without one piece; the piece's worth is the mean change of the
//!   net's opinion, in Elo units (the expected score `s = (1 + W - L) / 2` mapped through
//!   `400 log10(s / (1 - s))`, so that a pawn is worth about the same in a level and in a
//!   lopsided position), divided by that of the reference piece. Each type has one imbalance,
//!   chosen as the material-imbalance matches choose theirs ([`crate::imbalance`]): a type the
//!   start position has for both sides is **removed** (one of the side's, at random; a sampled
//!   position without one gives no sample), any other, such as a promoted type that self-play
//!   rarely reaches, is **added**: one more for the side on a random empty square of its own
//!   half, outside its promotion zone if the type promotes, where the piece is not attacked and
//!   gives no check and the game goes on. Either way the change is counted for the side with the
//!   piece, for Blue's pieces and Tan's alike;
//! - **least-squares fit** ([`fit_values`]): the game's result (+1, 0, -1 for Blue) regressed
//!   on the material difference per piece type (Blue's count minus Tan's) over every position of
//!   every game, each game weighing 1 in total so that long games do not dominate; a type's
//!   value is its coefficient over the reference's (the method of Tomašev et al. 2020). It sees
//!   promoted types only where the games reached them.
//!
//! Intervals come from bootstrap resampling: of probe samples per type, and of whole games for
//! the fit (positions of one game are strongly correlated, so resampling positions would
//! overstate the precision).

use std::{collections::BTreeMap, path::Path, sync::Arc};

use fairyzero_model::backend::{Backend, EvalOutput, EvalRequest};
use fairyzero_rules::{Color, Move, MoveList, Piece, PieceType, Position, Square, Variant};
use fairyzero_selfplay::record::{self, GameRecord};
use nalgebra::{DMatrix, DVector};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::{games::Z95, imbalance::Imbalance, Error};

/// One piece type's value by one method.
#[derive(Clone, Debug, PartialEq)]
pub struct MethodRow {
    pub piece: String,
    /// Probe: whether the piece was removed from or added to the sampled positions (the match
    /// method's rule: added for a type the start position lacks); fit: `None`, it measures the
    /// material the games left.
    pub imbalance: Option<Imbalance>,
    /// Probe: edited positions (one per sampled position, type and colour that could be
    /// edited); fit: positions where the side's counts of this type differed.
    pub samples: usize,
    /// The method's own measure (probe: mean Elo change; fit: result per piece) and its 95%
    /// interval.
    pub raw: f64,
    pub raw_ci: (f64, f64),
    /// `raw / raw(reference)` and its 95% bootstrap interval.
    pub value: f64,
    pub value_ci: (f64, f64),
}

/// A table of values by one method.
#[derive(Clone, Debug)]
pub struct MethodReport {
    /// `probe` or `fit`.
    pub method: &'static str,
    pub variant: String,
    /// What the values come from (the net, the number of games).
    pub source: String,
    pub reference: String,
    /// What [`MethodRow::raw`] measures.
    pub raw_unit: &'static str,
    /// Sorted by value.
    pub rows: Vec<MethodRow>,
    /// Types asked for but not measured, with why.
    pub skipped: Vec<(String, String)>,
}

/// Sampling and resampling settings.
#[derive(Clone, Debug)]
pub struct MaterialOptions {
    /// Probe: positions sampled from the records.
    pub positions: usize,
    /// Fit: plies at the start of each game (after any setup phase) left out.
    pub skip_plies: usize,
    /// Bootstrap resamples of the intervals.
    pub resamples: usize,
    pub seed: u64,
    /// Positions per call of the probe's net.
    pub batch: usize,
}

impl Default for MaterialOptions {
    fn default() -> Self {
        MaterialOptions { positions: 2000, skip_plies: 0, resamples: 1000, seed: 0, batch: 256 }
    }
}

/// The games of `dir` played on `variant` (chunk files `*.games.zst`, as written by
/// `fairyzero selfplay` and by the trainer into `RUN/games/`). Unreadable files are skipped with
/// a warning; games of other variants (or another version of this one) are left out.
pub fn load_games(variant: &Variant, dir: &Path) -> Result<Vec<GameRecord>, Error> {
    let load = record::load_dir(dir)?;
    let hash = record::hash_hex(variant.hash);
    let total = load.games.len();
    let games: Vec<GameRecord> = load.games.into_iter().filter(|g| g.variant_hash == hash).collect();
    if games.len() < total {
        tracing::warn!(
            "{}: {} of {total} games are of another variant than {} ({hash}) and are left out",
            dir.display(),
            total - games.len(),
            variant.name
        );
    }
    if games.is_empty() {
        return Err(Error::NoGames {
            dir: dir.to_path_buf(),
            variant: variant.name.clone(),
            hash,
            files: load.files,
            skipped: load.skipped.len(),
        });
    }
    Ok(games)
}

/// The piece types a report covers.
struct Selection {
    /// Non-royal types to measure (the reference among them).
    types: Vec<usize>,
    reference: usize,
    /// Types asked for but not measurable, with why.
    skipped: Vec<(String, String)>,
}

/// The piece types to report: `pieces` (tokens) or every non-royal type, plus the reference.
fn selected_types(variant: &Variant, pieces: Option<&[String]>, reference: &str) -> Result<Selection, Error> {
    let by_token = |t: &str| {
        variant
            .piece_by_token(t)
            .map(|p| p.index())
            .ok_or_else(|| Error::UnknownPiece { token: t.to_string(), variant: variant.name.clone() })
    };
    let reference = by_token(reference)?;
    if variant.pieces[reference].royal {
        return Err(Error::RoyalReference { token: variant.pieces[reference].token.clone() });
    }
    let mut types: Vec<usize> = match pieces {
        Some(list) => list.iter().map(|t| by_token(t)).collect::<Result<_, _>>()?,
        None => (0..variant.piece_count()).collect(),
    };
    if !types.contains(&reference) {
        types.push(reference);
    }
    let mut skipped = Vec::new();
    types.retain(|&t| {
        let royal = variant.pieces[t].royal;
        if royal {
            skipped.push((variant.pieces[t].token.clone(), "royal".to_string()));
        }
        !royal
    });
    Ok(Selection { types, reference, skipped })
}

/// Elo of a value `v = W - L` in [-1, 1] (expected score clamped to [0.001, 0.999]).
fn elo_of_value(v: f32) -> f64 {
    let s = ((1.0 + v as f64) / 2.0).clamp(0.001, 0.999);
    400.0 * (s / (1.0 - s)).log10()
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len().max(1) as f64
}

/// Mean and its normal 95% interval.
fn mean_interval(xs: &[f64]) -> (f64, (f64, f64)) {
    let m = mean(xs);
    if xs.len() < 2 {
        return (m, (f64::NEG_INFINITY, f64::INFINITY));
    }
    let var = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (xs.len() - 1) as f64;
    let half = Z95 * (var / xs.len() as f64).sqrt();
    (m, (m - half, m + half))
}

/// The 2.5% and 97.5% quantiles (non-finite draws count as beyond either end).
fn percentile_interval(mut draws: Vec<f64>) -> (f64, f64) {
    if draws.is_empty() {
        return (f64::NEG_INFINITY, f64::INFINITY);
    }
    draws.sort_by(|a, b| a.total_cmp(b));
    let at = |q: f64| draws[((q * (draws.len() - 1) as f64).round() as usize).min(draws.len() - 1)];
    (at(0.025), at(0.975))
}

/// Whether an interval lies on one side of 0: only then is a ratio over it bounded. (In a
/// losing variant every piece is a liability and the reference's interval is negative.)
pub(crate) fn excludes_zero((lo, hi): (f64, f64)) -> bool {
    lo > 0.0 || hi < 0.0
}

/// The range of `x / y` for `x` in `num` and `y` in `den`: unbounded when `den` reaches 0,
/// otherwise the extremes over the corners (the ratio is monotone in each argument there).
pub(crate) fn ratio_interval(num: (f64, f64), den: (f64, f64)) -> (f64, f64) {
    if !excludes_zero(den) {
        return (f64::NEG_INFINITY, f64::INFINITY);
    }
    let corners = [num.0 / den.0, num.0 / den.1, num.1 / den.0, num.1 / den.1];
    (corners.iter().copied().fold(f64::INFINITY, f64::min), corners.iter().copied().fold(f64::NEG_INFINITY, f64::max))
}

fn finish(mut rows: Vec<MethodRow>) -> Vec<MethodRow> {
    rows.sort_by(|a, b| a.value.total_cmp(&b.value).then_with(|| a.piece.cmp(&b.piece)));
    rows
}

// ---------------------------------------------------------------------------------------------
// Value-net probe
// ---------------------------------------------------------------------------------------------

/// Positions sampled uniformly from the games (outside any setup phase and not finished).
fn sample_positions(variant: &Arc<Variant>, games: &[GameRecord], wanted: usize, seed: u64) -> Vec<Position> {
    let total: usize = games.iter().map(|g| g.moves.len()).sum();
    let p = (wanted as f64 / total.max(1) as f64).min(1.0);
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x0070_726f_6265);
    let mut out = Vec::new();
    for g in games {
        let picks: Vec<usize> = (0..g.moves.len()).filter(|_| rng.gen_bool(p)).collect();
        if picks.is_empty() {
            continue;
        }
        let mut next = picks.iter().peekable();
        let replayed = g.replay(variant, |step| {
            if next.peek() == Some(&&step.ply) {
                next.next();
                if !step.position.in_setup() && !step.legal.is_empty() {
                    out.push(step.position.clone());
                }
            }
        });
        if let Err(e) = replayed {
            tracing::warn!("skipping a game that does not replay: {e}");
        }
    }
    out
}

/// `pos` is fit to be evaluated: the side that just moved is not in check and the game goes on.
fn probe_ready(pos: &mut Position, legal: &mut MoveList) -> bool {
    if pos.in_check(pos.side_to_move().other()) {
        return false;
    }
    pos.legal_moves(legal);
    !legal.is_empty() && pos.outcome_with(legal).is_none()
}

/// One edit of a sampled position: the two positions, one with the piece and one without.
struct Probe {
    /// Index of the position where the side has the piece, in the request list.
    with: usize,
    /// Index of the one where it has not.
    without: usize,
    kind: usize,
    /// Whether the piece is the side to move's.
    own: bool,
}

/// How the probe makes each selected type's imbalance: the match method's rule
/// ([`crate::imbalance`]), so that both measure the same thing: a type the start position has for
/// both sides is removed, any other (a promoted type) added.
fn imbalance_of(start: &Position, kind: usize) -> Imbalance {
    let has = |color| {
        let piece = Piece::new(PieceType(kind as u8), color);
        start.board().contains(&Some(piece))
    };
    if Color::BOTH.into_iter().all(has) {
        Imbalance::Removed
    } else {
        Imbalance::Added
    }
}

/// Whether `color` may be given an extra piece of `kind` on `sq` at all: an empty square of its
/// own half (the middle rank of an odd board counting to both, as in the match method), outside
/// its promotion zone if the type promotes (a pawn on the last rank is no position of the game).
fn may_add_on(pos: &Position, kind: usize, color: Color, sq: Square) -> bool {
    let v = pos.variant();
    pos.piece_at(sq).is_none()
        && v.relative_rank(sq, color) < (v.dims.height as i32 + 1) / 2
        && (v.pieces[kind].promotes_to.is_empty() || !v.in_promotion_zone(sq, color))
}

/// `pos` with one more piece of `kind` for `color`, on a random square (of `rng`) that
/// [`may_add_on`] allows, where the piece is not attacked by the other side and gives no check,
/// and the game goes on ([`probe_ready`]); `None` when no square qualifies. `legal` then holds the
/// new position's legal moves.
fn with_added(
    pos: &Position,
    kind: usize,
    color: Color,
    rng: &mut ChaCha8Rng,
    legal: &mut MoveList,
) -> Option<(Position, Square)> {
    let piece = Piece::new(PieceType(kind as u8), color);
    let mut squares: Vec<Square> =
        (0..pos.board().len()).map(|i| Square(i as u16)).filter(|&s| may_add_on(pos, kind, color, s)).collect();
    // Tried in a random order, so that the square is uniform among those that qualify.
    while !squares.is_empty() {
        let sq = squares.swap_remove(rng.gen_range(0..squares.len()));
        let Ok(mut edited) = pos.edited(&[(sq, Some(piece))]) else { continue };
        if edited.is_attacked(sq, color.other()) || edited.in_check(color.other()) {
            continue;
        }
        if probe_ready(&mut edited, legal) {
            return Some((edited, sq));
        }
    }
    None
}

/// The value-net probe (see the module documentation). `pieces` (tokens) restricts the types;
/// the reference is always measured, and must be in the start position (as for the matches).
/// `net` comes from the caller (the CLI loads a checkpoint's torch backend), so that this crate
/// does not link libtorch.
pub fn probe_values(
    variant: &Arc<Variant>,
    net: &dyn Backend,
    games: &[GameRecord],
    pieces: Option<&[String]>,
    reference: &str,
    options: &MaterialOptions,
) -> Result<MethodReport, Error> {
    let Selection { types, reference, mut skipped } = selected_types(variant, pieces, reference)?;
    let start = Position::start(Arc::clone(variant));
    let imbalances: BTreeMap<usize, Imbalance> = types.iter().map(|&t| (t, imbalance_of(&start, t))).collect();
    if imbalances[&reference] != Imbalance::Removed {
        return Err(Error::ReferenceNotInStart { token: variant.pieces[reference].token.clone() });
    }
    let sampled = sample_positions(variant, games, options.positions, options.seed);
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed ^ 0x7265_6d6f_7665);
    let mut positions: Vec<(Position, Vec<Move>)> = Vec::new();
    let mut probes = Vec::new();
    let mut legal = MoveList::new();
    for pos in &sampled {
        // Both sides are evaluated without history, so that only the edited piece differs.
        let Ok(mut base) = pos.edited(&[]) else { continue };
        if !probe_ready(&mut base, &mut legal) {
            continue;
        }
        let base_index = positions.len();
        positions.push((base.clone(), legal.to_vec()));
        let mover = base.side_to_move();
        for &kind in &types {
            for color in Color::BOTH {
                let piece = Piece::new(PieceType(kind as u8), color);
                let edited = match imbalances[&kind] {
                    Imbalance::Removed => {
                        // A position without one gives no sample of this type and colour: adding
                        // one there would measure another imbalance.
                        let squares: Vec<Square> = (0..base.board().len())
                            .map(|i| Square(i as u16))
                            .filter(|&s| base.piece_at(s) == Some(piece))
                            .collect();
                        if squares.is_empty() {
                            continue;
                        }
                        let sq = squares[rng.gen_range(0..squares.len())];
                        let Ok(mut edited) = base.edited(&[(sq, None)]) else { continue };
                        if !probe_ready(&mut edited, &mut legal) {
                            continue;
                        }
                        edited
                    }
                    Imbalance::Added => match with_added(&base, kind, color, &mut rng, &mut legal) {
                        Some((edited, _)) => edited,
                        None => continue,
                    },
                };
                let edited_index = positions.len();
                let (with, without) = match imbalances[&kind] {
                    Imbalance::Removed => (base_index, edited_index),
                    Imbalance::Added => (edited_index, base_index),
                };
                probes.push(Probe { with, without, kind, own: color == mover });
                positions.push((edited, legal.to_vec()));
            }
        }
    }
    let mut elo = Vec::with_capacity(positions.len());
    let mut evaluations = EvalOutput::new();
    for chunk in positions.chunks(options.batch.max(1)) {
        let requests: Vec<EvalRequest<'_>> =
            chunk.iter().map(|(position, moves)| EvalRequest { position, moves }).collect();
        net.evaluate(&requests, &mut evaluations);
        elo.extend(evaluations.iter().map(|e| elo_of_value(e.value())));
    }
    let mut deltas: BTreeMap<usize, Vec<f64>> = BTreeMap::new();
    for p in &probes {
        // What the piece is worth to its side: the change from the position without it to the
        // one with it, as its side sees it (the net speaks for the side to move in both).
        let gain = elo[p.with] - elo[p.without];
        let d = if p.own { gain } else { -gain };
        deltas.entry(p.kind).or_default().push(d);
    }
    let token = |t: usize| variant.pieces[t].token.clone();
    let Some(ref_deltas) = deltas.get(&reference).filter(|d| d.len() >= 2) else {
        return Err(Error::ProbeReferenceUnseen { reference: token(reference), positions: sampled.len() });
    };
    let ref_mean = mean(ref_deltas);
    let ref_bounded = excludes_zero(mean_interval(ref_deltas).1);
    let mut rows = Vec::new();
    for &t in &types {
        let Some(d) = deltas.get(&t).filter(|d| d.len() >= 2) else {
            let why = match imbalances[&t] {
                Imbalance::Removed => "not on the board in the sampled positions",
                Imbalance::Added => "no quiet square of a side's half took one in the sampled positions",
            };
            skipped.push((token(t), why.to_string()));
            continue;
        };
        let (raw, raw_ci) = mean_interval(d);
        let draws: Vec<f64> = (0..options.resamples)
            .map(|_| {
                let m = (0..d.len()).map(|_| d[rng.gen_range(0..d.len())]).sum::<f64>() / d.len() as f64;
                let r = (0..ref_deltas.len()).map(|_| ref_deltas[rng.gen_range(0..ref_deltas.len())]).sum::<f64>()
                    / ref_deltas.len() as f64;
                if t == reference {
                    1.0
                } else {
                    m / r
                }
            })
            .collect();
        let value = if t == reference { 1.0 } else { raw / ref_mean };
        // A ratio whose denominator may be 0 has no bounded interval.
        let value_ci =
            if ref_bounded || t == reference { percentile_interval(draws) } else { (f64::NEG_INFINITY, f64::INFINITY) };
        rows.push(MethodRow {
            piece: token(t),
            imbalance: Some(imbalances[&t]),
            samples: d.len(),
            raw,
            raw_ci,
            value,
            value_ci,
        });
    }
    Ok(MethodReport {
        method: "probe",
        variant: variant.name.clone(),
        source: format!("{} ({} positions from {} games)", net.info().name, positions.len(), games.len()),
        reference: token(reference),
        raw_unit: "mean Elo change of the net's value",
        rows: finish(rows),
        skipped,
    })
}

// ---------------------------------------------------------------------------------------------
// Least-squares fit of outcome on material
// ---------------------------------------------------------------------------------------------

/// One game's data for the fit: its distinct material differences with their weights, and its
/// result for Blue.
struct GameMaterial {
    /// (Blue minus Tan count per selected type, weight).
    rows: Vec<(Vec<i16>, f64)>,
    result: f64,
}

/// The normal equations of a weighted least-squares fit with an intercept, summed over games.
fn normal_equations(games: &[&GameMaterial], k: usize) -> (DMatrix<f64>, DVector<f64>) {
    let mut a = DMatrix::<f64>::zeros(k + 1, k + 1);
    let mut b = DVector::<f64>::zeros(k + 1);
    for g in games {
        for (x, w) in &g.rows {
            // Column 0 is the intercept (the first player's edge).
            let nz: Vec<(usize, f64)> = std::iter::once((0, 1.0))
                .chain(x.iter().enumerate().filter(|(_, &d)| d != 0).map(|(i, &d)| (i + 1, d as f64)))
                .collect();
            for &(i, xi) in &nz {
                b[i] += w * xi * g.result;
                for &(j, xj) in &nz {
                    a[(i, j)] += w * xi * xj;
                }
            }
        }
    }
    (a, b)
}

/// Solves the (slightly ridged, so that a type that never changes hands stays defined)
/// normal equations.
fn solve(mut a: DMatrix<f64>, b: DVector<f64>) -> Option<DVector<f64>> {
    let scale = (0..a.nrows()).map(|i| a[(i, i)]).fold(0.0f64, f64::max).max(1e-12);
    for i in 1..a.nrows() {
        a[(i, i)] += 1e-6 * scale;
    }
    a.cholesky().map(|c| c.solve(&b))
}

/// The least-squares fit (see the module documentation).
pub fn fit_values(
    variant: &Arc<Variant>,
    games: &[GameRecord],
    pieces: Option<&[String]>,
    reference: &str,
    options: &MaterialOptions,
) -> Result<MethodReport, Error> {
    let Selection { types, reference, mut skipped } = selected_types(variant, pieces, reference)?;
    let token = |t: usize| variant.pieces[t].token.clone();
    // Every non-royal type is a column, whether reported or not: leaving a type out would
    // load its worth onto the types it is traded for.
    let columns: Vec<usize> = (0..variant.piece_count()).filter(|&t| !variant.pieces[t].royal).collect();
    let k = columns.len();
    let mut data = Vec::new();
    let mut changed = vec![0usize; k];
    for g in games {
        let result = match g.result.winner_color() {
            Some(Color::Blue) => 1.0,
            Some(Color::Tan) => -1.0,
            None => 0.0,
        };
        let mut distinct: Vec<(Vec<i16>, usize)> = Vec::new();
        let mut after_setup = 0usize;
        let replayed = g.replay(variant, |step| {
            if step.position.in_setup() {
                return;
            }
            after_setup += 1;
            if after_setup <= options.skip_plies {
                return;
            }
            let counts = step.position.piece_counts();
            let x: Vec<i16> = columns
                .iter()
                .map(|&t| {
                    let kind = PieceType(t as u8);
                    counts[Piece::new(kind, Color::Blue).index()] as i16
                        - counts[Piece::new(kind, Color::Tan).index()] as i16
                })
                .collect();
            match distinct.last_mut() {
                Some((last, n)) if *last == x => *n += 1,
                _ => distinct.push((x, 1)),
            }
        });
        if let Err(e) = replayed {
            tracing::warn!("skipping a game that does not replay: {e}");
            continue;
        }
        let n: usize = distinct.iter().map(|(_, n)| n).sum();
        if n == 0 {
            continue;
        }
        for (x, count) in &distinct {
            for (i, &d) in x.iter().enumerate() {
                if d != 0 {
                    changed[i] += count;
                }
            }
        }
        data.push(GameMaterial { rows: distinct.into_iter().map(|(x, c)| (x, c as f64 / n as f64)).collect(), result });
    }
    if data.len() < 2 {
        return Err(Error::FitTooFewGames { games: data.len() });
    }
    let column_of = |t: usize| columns.iter().position(|&c| c == t).expect("non-royal");
    let ref_col = column_of(reference);
    if changed[ref_col] == 0 {
        return Err(Error::FitReferenceNeverTraded { reference: token(reference), games: data.len() });
    }
    let all: Vec<&GameMaterial> = data.iter().collect();
    let (a, b) = normal_equations(&all, k);
    let beta = solve(a, b).ok_or(Error::FitSingular)?;
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed ^ 0x0066_6974);
    let draws: Vec<DVector<f64>> = (0..options.resamples)
        .filter_map(|_| {
            let sample: Vec<&GameMaterial> = (0..data.len()).map(|_| &data[rng.gen_range(0..data.len())]).collect();
            let (a, b) = normal_equations(&sample, k);
            solve(a, b)
        })
        .collect();
    let ref_ci = percentile_interval(draws.iter().map(|d| d[ref_col + 1]).collect());
    let mut rows = Vec::new();
    for &t in &types {
        let c = column_of(t);
        if changed[c] == 0 {
            skipped.push((token(t), "its count never differed between the sides".to_string()));
            continue;
        }
        let raw = beta[c + 1];
        let raw_ci = percentile_interval(draws.iter().map(|d| d[c + 1]).collect());
        let value = raw / beta[ref_col + 1];
        // A ratio whose denominator may be 0 has no bounded interval.
        let value_ci = if t == reference {
            (1.0, 1.0)
        } else if !excludes_zero(ref_ci) {
            (f64::NEG_INFINITY, f64::INFINITY)
        } else {
            percentile_interval(draws.iter().map(|d| d[c + 1] / d[ref_col + 1]).collect())
        };
        // The fit takes material as the games left it: no imbalance was made.
        rows.push(MethodRow { piece: token(t), imbalance: None, samples: changed[c], raw, raw_ci, value, value_ci });
    }
    Ok(MethodReport {
        method: "fit",
        variant: variant.name.clone(),
        source: format!("{} self-play games (intercept, Blue's edge: {:+.3})", data.len(), beta[0]),
        reference: token(reference),
        raw_unit: "game result (+1/0/-1) per extra piece",
        rows: finish(rows),
        skipped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fit_recovers_planted_values() {
        // Material differences with results drawn from a linear model with known weights.
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let truth = [0.1, 0.2, 0.4];
        let games: Vec<GameMaterial> = (0..4000)
            .map(|_| {
                let x: Vec<i16> = (0..3).map(|_| rng.gen_range(-1..=1)).collect();
                // At most 0.7 in size: the model is exactly linear.
                let mean: f64 = x.iter().zip(truth).map(|(&d, w)| d as f64 * w).sum();
                let result = if rng.gen_bool((1.0 + mean) / 2.0) { 1.0 } else { -1.0 };
                GameMaterial { rows: vec![(x, 1.0)], result }
            })
            .collect();
        let all: Vec<&GameMaterial> = games.iter().collect();
        let (a, b) = normal_equations(&all, 3);
        let beta = solve(a, b).unwrap();
        for (i, w) in truth.iter().enumerate() {
            assert!((beta[i + 1] - w).abs() < 0.05, "coefficient {i}: {} vs {w}", beta[i + 1]);
        }
    }

    /// Los Alamos with an Amazon that pawns may promote to: a type the start position lacks.
    fn amazon_variant(extra: &str) -> Arc<Variant> {
        let text = format!(
            "name = \"losalamos-amazon\"\nextends = \"losalamos\"\n{extra}\n[[piece]]\ntoken = \"P\"\npromotes_to = [\"Q\", \"R\", \"N\", \"A\"]\n[[piece]]\nname = \"amazon\"\ntoken = \"A\"\nbetza = \"QN\"\n"
        );
        Variant::from_toml("losalamos-amazon.toml", &text, None).unwrap()
    }

    /// Positions of random games (seeded), the start's included.
    fn random_positions(v: &Arc<Variant>, n: usize) -> Vec<Position> {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut out = Vec::new();
        let mut legal = MoveList::new();
        while out.len() < n {
            let mut pos = Position::start(Arc::clone(v));
            for _ in 0..rng.gen_range(0..30) {
                pos.legal_moves(&mut legal);
                if legal.is_empty() || pos.outcome_with(&legal).is_some() {
                    break;
                }
                pos.make(legal[rng.gen_range(0..legal.len())]);
            }
            out.push(pos);
        }
        out
    }

    #[test]
    fn types_of_the_start_are_removed_others_added() {
        let v = amazon_variant("");
        let start = Position::start(Arc::clone(&v));
        for (token, imbalance) in
            [("P", Imbalance::Removed), ("N", Imbalance::Removed), ("Q", Imbalance::Removed), ("A", Imbalance::Added)]
        {
            assert_eq!(imbalance_of(&start, v.piece_by_token(token).unwrap().index()), imbalance, "{token}");
        }
    }

    /// An added piece stands on an empty square of its side's half, unattacked, giving no
    /// check, in a game that goes on; the squares vary with the random draw.
    #[test]
    fn added_pieces_stand_quietly_on_their_sides_half() {
        let v = amazon_variant("");
        let amazon = v.piece_by_token("A").unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let mut legal = MoveList::new();
        let (mut tries, mut placed) = (0, 0);
        let mut squares = std::collections::BTreeSet::new();
        for pos in random_positions(&v, 150) {
            let Ok(mut base) = pos.edited(&[]) else { continue };
            if !probe_ready(&mut base, &mut legal) {
                continue;
            }
            for color in Color::BOTH {
                tries += 1;
                let Some((mut edited, sq)) = with_added(&base, amazon.index(), color, &mut rng, &mut legal) else {
                    continue;
                };
                placed += 1;
                squares.insert((color.index(), sq.index()));
                assert_eq!(base.piece_at(sq), None);
                assert_eq!(edited.piece_at(sq), Some(Piece::new(amazon, color)));
                let changed = (0..base.board().len()).filter(|&i| base.board()[i] != edited.board()[i]).count();
                assert_eq!(changed, 1, "only the added piece differs");
                assert!(v.relative_rank(sq, color) < 3, "{sq:?} is not on {color:?}'s half");
                assert!(!edited.is_attacked(sq, color.other()), "{sq:?} is attacked");
                assert!(!edited.in_check(color.other()), "the added piece gives check");
                assert_eq!(edited.side_to_move(), base.side_to_move());
                let mut moves = MoveList::new();
                assert!(probe_ready(&mut edited, &mut moves));
                assert_eq!(moves.len(), legal.len(), "`legal` holds the edited position's moves");
            }
        }
        assert!(placed * 2 > tries, "an amazon was placed in only {placed} of {tries} tries");
        assert!(squares.len() > 10, "squares drawn: {squares:?}");
    }

    /// A type that promotes is not added inside its promotion zone, even where the zone reaches
    /// into its half; one that does not promote may stand there.
    #[test]
    fn a_promoting_type_is_not_added_in_its_zone() {
        let v = amazon_variant("[promotion]\nzone_ranks = 4\n");
        let start = Position::start(Arc::clone(&v));
        let pawn = v.piece_by_token("P").unwrap().index();
        let amazon = v.piece_by_token("A").unwrap().index();
        for color in Color::BOTH {
            // Relative rank 2 is the last of the side's half and the first of its zone.
            let sq = (0..start.board().len())
                .map(|i| Square(i as u16))
                .find(|&s| v.relative_rank(s, color) == 2 && start.piece_at(s).is_none())
                .unwrap();
            assert!(v.in_promotion_zone(sq, color));
            assert!(!may_add_on(&start, pawn, color, sq), "{color:?}");
            assert!(may_add_on(&start, amazon, color, sq), "{color:?}");
            let beyond = (0..start.board().len()).map(|i| Square(i as u16)).find(|&s| v.relative_rank(s, color) == 3);
            assert!(!may_add_on(&start, amazon, color, beyond.unwrap()), "the other side's half");
        }
    }

    #[test]
    fn ratio_intervals() {
        assert_eq!(ratio_interval((2.0, 4.0), (1.0, 2.0)), (1.0, 4.0));
        assert_eq!(ratio_interval((-4.0, -2.0), (-2.0, -1.0)), (1.0, 4.0));
        assert_eq!(ratio_interval((-1.0, 2.0), (1.0, 2.0)), (-1.0, 2.0));
        assert_eq!(ratio_interval((1.0, 2.0), (-1.0, 2.0)), (f64::NEG_INFINITY, f64::INFINITY));
    }

    #[test]
    fn elo_of_value_is_odd_and_monotone() {
        assert_eq!(elo_of_value(0.0), 0.0);
        assert!((elo_of_value(0.5) + elo_of_value(-0.5)).abs() < 1e-9);
        assert!(elo_of_value(0.9) > elo_of_value(0.5));
        assert!(elo_of_value(1.0).is_finite());
    }
}
