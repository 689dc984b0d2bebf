//! Piece values by material-imbalance matches (after H. G. Muller).
//!
//! [`run_piece_values`]: for each non-royal piece type X present in the start position, one X
//! (the first in square order) is removed from one side; half the games remove it from Blue,
//! half from Tan, from distinct openings (random plies after the handicapped start). A type the
//! start position lacks (a promoted piece) is *added* instead, for one side, on the quiet square
//! of its half nearest its first rank ([`Imbalance::Added`]). The score `s` of the side with the
//! piece becomes an Elo advantage `400 log10(s / (1 - s))`, and X's value is
//! `Elo(X) / Elo(reference)` in reference units (pawn by default). The score weighs the two
//! colours equally, so the first-move edge cancels even when they have different game counts.
//! Intervals: the 95% interval of each score (normal, from both colours' variances), mapped
//! to Elo, and the ratio's extremes. A variant with a setup phase
//! is measured from its default array.
//!
//! The other two methods, which need self-play games rather than new matches, are in
//! [`crate::material`].

use std::{fmt::Write as _, path::Path, sync::Arc};

use fairyzero_evaluator::{
    player::{Contestant, PlayerSpec},
    store::ResultStore,
    values::ValueSource,
};
use fairyzero_rules::{Color, MoveList, Piece, PieceType, Position, Square, Variant};

use crate::{
    games::{run_experiments, tallies, DesignOptions, DesignProgress, Experiment, Tally, Z95},
    material::ratio_interval,
    tables::{value_bars, write_plot, write_table_files},
    Error,
};

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

/// The score of the side with the piece, with each colour weighted equally, and its 95%
/// interval. White's first-move edge is of the order of a pawn's value for engine players
/// (Fairy-Stockfish at 2,000 nodes: +52 Elo in chess), so pooling the games would bias the
/// value whenever the two colours have different game counts (a run stopped half-way, or
/// rerun with other counts). With games of one colour only, the Wilson interval of that colour.
fn colour_balanced_score(as_blue: &Tally, as_tan: &Tally) -> (f64, (f64, f64)) {
    match (as_blue.games(), as_tan.games()) {
        (0, _) => (as_tan.score(), as_tan.interval()),
        (_, 0) => (as_blue.score(), as_blue.interval()),
        _ => {
            // Per-game variance of a win/draw/loss score, over the colour's games.
            let variance_of_mean = |t: &Tally| {
                let n = t.games() as f64;
                let mean = t.score();
                let second_moment = (t.wins as f64 + 0.25 * t.draws as f64) / n;
                // At least that of one result of each kind, so 100% scores keep a width.
                (second_moment - mean * mean).max(0.25 / n) / n
            };
            let score = 0.5 * (as_blue.score() + as_tan.score());
            let half_width = Z95 * 0.5 * (variance_of_mean(as_blue) + variance_of_mean(as_tan)).sqrt();
            (score, ((score - half_width).max(0.0), (score + half_width).min(1.0)))
        }
    }
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
    if variant.has_start_generator() {
        // Each imbalance is one piece taken from one start array; a drawn array would make
        // every experiment a different game.
        return Err(Error::DrawnStart {
            variant: variant.name.clone(),
            hint: "piece values are measured from one fixed array: use a variant with the same pieces and a fixed start (e.g. chess)",
        });
    }
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
    // The side with the piece (the full side, or the reinforced one) per type: its tally as
    // Blue and as Tan.
    let sides = |t: usize, imbalance: Imbalance| -> (Tally, Tally) {
        let key = |side: &str| format!("piece-values {}={} side={side}", imbalance.key(), token_of(t));
        // Blue has the piece when Tan was handicapped or Blue reinforced.
        let blue_has_it = |side: &str| (side == "tan") == (imbalance == Imbalance::Removed);
        let (mut as_blue, mut as_tan) = (Tally::default(), Tally::default());
        for side in ["blue", "tan"] {
            if let Some(b) = all.get(&key(side)) {
                if blue_has_it(side) {
                    as_blue = Tally { wins: b.wins, draws: b.draws, losses: b.losses };
                } else {
                    as_tan = Tally { wins: b.losses, draws: b.draws, losses: b.wins };
                }
            }
        }
        (as_blue, as_tan)
    };
    let elo_row = |t: usize, imbalance: Imbalance| {
        let (as_blue, as_tan) = sides(t, imbalance);
        let tally = Tally {
            wins: as_blue.wins + as_tan.wins,
            draws: as_blue.draws + as_tan.draws,
            losses: as_blue.losses + as_tan.losses,
        };
        let n = tally.games();
        let (score, (lo, hi)) = colour_balanced_score(&as_blue, &as_tan);
        (tally, score, (lo, hi), elo_of(score, n), (elo_of(lo, n), elo_of(hi, n)))
    };
    let (_, _, _, ref_elo, ref_ci) = elo_row(reference_type, Imbalance::Removed);
    let mut rows = Vec::new();
    for &(t, imbalance) in &measured {
        let (tally, score, score_ci, elo, elo_ci) = elo_row(t, imbalance);
        let (value, value_ci) = if t == reference_type {
            (1.0, (1.0, 1.0))
        } else {
            // Undefined while the reference's advantage is 0.
            let value = if ref_elo != 0.0 { elo / ref_elo } else { f64::NAN };
            (value, ratio_interval(elo_ci, ref_ci))
        };
        rows.push(PieceValueRow {
            piece: token_of(t),
            imbalance,
            games: tally.games(),
            score,
            score_ci,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_two_colours_weigh_the_same_whatever_their_game_counts() {
        // White's edge: the side with the piece scores 0.70 as Blue and 0.50 as Tan.
        let as_blue = Tally { wins: 60, draws: 20, losses: 20 };
        let as_tan = Tally { wins: 120, draws: 60, losses: 120 };
        let (score, (lo, hi)) = colour_balanced_score(&as_blue, &as_tan);
        assert!((score - 0.60).abs() < 1e-12, "{score}");
        // Pooled, the 300 Tan games would drag it to 0.55.
        let pooled = Tally { wins: 180, draws: 80, losses: 140 };
        assert!((pooled.score() - 0.55).abs() < 1e-12);
        assert!(lo < score && score < hi && hi - lo < 0.12, "({lo}, {hi})");
        // The half-width: 1.96 x sqrt(var_b/100 + var_t/300) / 2, from each colour's
        // per-game variance (second moment minus squared mean).
        let var_b = (60.0 + 0.25 * 20.0) / 100.0 - 0.49;
        let var_t = (120.0 + 0.25 * 60.0) / 300.0 - 0.25;
        let expected = Z95 * 0.5 * (var_b / 100.0 + var_t / 300.0_f64).sqrt();
        assert!(((hi - lo) / 2.0 - expected).abs() < 1e-12);
    }

    #[test]
    fn one_colour_alone_keeps_its_wilson_interval() {
        let only = Tally { wins: 7, draws: 2, losses: 1 };
        assert_eq!(colour_balanced_score(&only, &Tally::default()), (only.score(), only.interval()));
        assert_eq!(colour_balanced_score(&Tally::default(), &only), (only.score(), only.interval()));
    }

    #[test]
    fn a_clean_sweep_keeps_a_width() {
        let sweep = Tally { wins: 50, draws: 0, losses: 0 };
        let (score, (lo, hi)) = colour_balanced_score(&sweep, &sweep);
        assert_eq!((score, hi), (1.0, 1.0));
        assert!(lo < 1.0);
    }
}
