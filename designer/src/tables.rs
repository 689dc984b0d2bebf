//! The files of every measurement, each written atomically: a CSV table, a Markdown table and
//! a PNG bar chart with interval whiskers.

use std::{collections::BTreeMap, fmt::Write as _, path::Path};

use fairyzero_evaluator::{plot::fonts_available, ranking::write_atomic};

use crate::{
    imbalance::{Imbalance, PieceValueReport},
    material::MethodReport,
    Error,
};

pub(crate) fn io_err(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |error| Error::Io { path: path.to_path_buf(), error }
}

/// Writes `OUT/STEM.csv`, `OUT/STEM.md` and the bar chart `OUT/STEM.png`, each atomically.
pub(crate) fn write_table_files(
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
pub(crate) fn write_plot(out: &Path, stem: &str, bars: &[Bar], title: &str, line: Option<f64>) -> Result<(), Error> {
    let png = out.join(format!("{stem}.png"));
    let tmp = out.join(format!(".{stem}.tmp.png"));
    bar_plot(bars, title, line, &tmp)?;
    std::fs::rename(&tmp, &png).map_err(io_err(&png))
}

/// Bars of values with their intervals.
pub(crate) fn value_bars<'a>(rows: impl Iterator<Item = (&'a str, f64, (f64, f64))>) -> Vec<Bar> {
    rows.map(|(label, value, (lo, hi))| Bar { label: label.to_string(), value, lo, hi }).collect()
}

/// How a row's imbalance reads in a Markdown table (as in the match table's column).
fn imbalance_md(imbalance: Option<Imbalance>) -> &'static str {
    match imbalance {
        Some(Imbalance::Removed) => "one removed",
        Some(Imbalance::Added) => "one added",
        None => "–",
    }
}

/// Writes `piece-values-<method>.{csv,md,png}` of a probe or fit table. The `imbalance` column
/// says whether the probe removed or added the piece (empty for the fit, which makes none; its
/// Markdown table leaves the column out).
pub fn write_method_files(report: &MethodReport, out: &Path) -> Result<(), Error> {
    let mut csv = String::from("piece,imbalance,samples,raw,raw_low,raw_high,value,value_low,value_high\n");
    let title = match report.method {
        "probe" => "value-net probe",
        "fit" => "least-squares fit of game results on material",
        other => other,
    };
    let edits = report.rows.iter().any(|r| r.imbalance.is_some());
    let (head, rule) = if edits { (" imbalance |", "---|") } else { ("", "") };
    let mut md = format!(
        "# Piece values of {} by {title}\n\nSource: {}. Raw measure: {}. Value = raw / raw of the reference `{}`; 95% bootstrap intervals.\n\n| piece |{head} samples | raw | raw 95% CI | value | 95% CI |\n|---|{rule}---:|---:|---|---:|---|\n",
        report.variant, report.source, report.raw_unit, report.reference
    );
    for r in &report.rows {
        let imbalance = match r.imbalance {
            Some(Imbalance::Removed) => "removed",
            Some(Imbalance::Added) => "added",
            None => "",
        };
        let _ = writeln!(
            csv,
            "{},{imbalance},{},{:.5},{:.5},{:.5},{:.3},{:.3},{:.3}",
            r.piece, r.samples, r.raw, r.raw_ci.0, r.raw_ci.1, r.value, r.value_ci.0, r.value_ci.1
        );
        let cell = if edits { format!(" {} |", imbalance_md(r.imbalance)) } else { String::new() };
        let _ = writeln!(
            md,
            "| {} |{cell} {} | {:.4} | {:.4}–{:.4} | {:.2} | {:.2}–{:.2} |",
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

/// Writes `piece-values-compare.md`: one column per method that was run, pieces as rows, and
/// the imbalance the matches and the probe made of each piece (they follow the same rule).
pub fn write_comparison(matches: Option<&PieceValueReport>, others: &[MethodReport], out: &Path) -> Result<(), Error> {
    type Column = (String, BTreeMap<String, (f64, (f64, f64))>);
    let mut columns: Vec<Column> = Vec::new();
    let mut imbalances: BTreeMap<String, Imbalance> = BTreeMap::new();
    if let Some(m) = matches {
        columns.push((
            format!("matches ({})", m.player),
            m.rows.iter().map(|r| (r.piece.clone(), (r.value, r.value_ci))).collect(),
        ));
        imbalances.extend(m.rows.iter().map(|r| (r.piece.clone(), r.imbalance)));
    }
    for o in others {
        columns.push((o.method.to_string(), o.rows.iter().map(|r| (r.piece.clone(), (r.value, r.value_ci))).collect()));
        for r in &o.rows {
            if let Some(i) = r.imbalance {
                imbalances.entry(r.piece.clone()).or_insert(i);
            }
        }
    }
    let mut pieces: Vec<String> = columns.iter().flat_map(|(_, c)| c.keys().cloned()).collect();
    pieces.sort();
    pieces.dedup();
    let variant = matches.map(|m| m.variant.clone()).or_else(|| others.first().map(|o| o.variant.clone()));
    let reference = matches.map(|m| m.reference.clone()).or_else(|| others.first().map(|o| o.reference.clone()));
    let mut md = format!(
        "# Piece values of {} in units of `{}`, by method (95% intervals)\n\n| piece | imbalance |",
        variant.unwrap_or_default(),
        reference.unwrap_or_default()
    );
    for (name, _) in &columns {
        let _ = write!(md, " {name} |");
    }
    md.push_str("\n|---|---|");
    md.push_str(&"---|".repeat(columns.len()));
    md.push('\n');
    for p in &pieces {
        let _ = write!(md, "| {p} | {} |", imbalance_md(imbalances.get(p).copied()));
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

/// One row of a bar chart: a value and its interval.
pub(crate) struct Bar {
    pub(crate) label: String,
    pub(crate) value: f64,
    pub(crate) lo: f64,
    pub(crate) hi: f64,
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
}
