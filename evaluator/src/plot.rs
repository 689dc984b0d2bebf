//! The PNG plot of Elo against training step, and the font that every plot of the workspace
//! (this one, the designer's bar charts) writes its text with.
//!
//! plotters is built without its system-font backend (font-kit needs fontconfig and freetype);
//! text goes through `ab_glyph` with a TrueType font read at run time: `$FAIRYZERO_FONT`, else
//! the first of a few usual system paths (DejaVu Sans, Liberation Sans, ...). Without any font
//! the plot is still drawn, without text (the legend is in `ranking.md` anyway).

use std::{path::Path, sync::OnceLock};

use plotters::{
    coord::types::RangedCoordf64,
    prelude::*,
    style::{register_font, FontStyle},
};

use crate::{
    ranking::{PlayerKind, Ranking},
    Error,
};

const FONT_PATHS: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/liberation-sans/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/freefont/FreeSans.ttf",
    "/Library/Fonts/Arial.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
];

/// Registers a font as plotters' `sans-serif`, once per process; whether text can be drawn.
pub fn fonts_available() -> bool {
    static READY: OnceLock<bool> = OnceLock::new();
    *READY.get_or_init(|| {
        let env = std::env::var("FAIRYZERO_FONT").ok();
        let candidates = env.iter().map(String::as_str).chain(FONT_PATHS.iter().copied());
        for path in candidates {
            if path.is_empty() {
                continue;
            }
            if let Ok(bytes) = std::fs::read(path) {
                let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
                if register_font("sans-serif", FontStyle::Normal, bytes).is_ok() {
                    return true;
                }
            }
        }
        tracing::debug!("no TrueType font found: plots have no text");
        false
    })
}

/// Draws `ranking` to `path` (PNG): checkpoints as Elo (with their intervals) against step,
/// baselines as horizontal lines.
pub fn plot_ranking(ranking: &Ranking, path: &Path) -> Result<(), Error> {
    draw(ranking, path, fonts_available()).map_err(|e| Error::Plot(format!("{}: {e}", path.display())))
}

fn draw(ranking: &Ranking, path: &Path, text: bool) -> Result<(), Box<dyn std::error::Error>> {
    let mut points: Vec<(u64, f64, f64, f64)> = ranking
        .entries
        .iter()
        .filter(|e| e.kind == PlayerKind::Checkpoint && e.elo.is_finite())
        .filter_map(|e| e.step.map(|s| (s, e.elo, e.ci_low, e.ci_high)))
        .collect();
    points.sort_by_key(|p| p.0);
    let baselines: Vec<(&str, f64)> = ranking
        .entries
        .iter()
        .filter(|e| e.kind == PlayerKind::Baseline && e.elo.is_finite())
        .map(|e| (e.player.as_str(), e.elo))
        .collect();

    let x_max = points.iter().map(|p| p.0).max().unwrap_or(1).max(1) as f64;
    let finite = |x: f64| x.is_finite().then_some(x);
    let ys = points
        .iter()
        .flat_map(|p| [finite(p.2).unwrap_or(p.1), finite(p.3).unwrap_or(p.1)])
        .chain(baselines.iter().map(|b| b.1));
    let (y_min, y_max) = elo_range(ys);

    let root = BitMapBackend::new(path, (960, 600)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut builder = ChartBuilder::on(&root);
    builder.margin(20);
    if text {
        builder.caption("Elo against training step", ("sans-serif", 24)).x_label_area_size(45).y_label_area_size(60);
    } else {
        builder.x_label_area_size(5).y_label_area_size(5);
    }
    let mut chart = builder.build_cartesian_2d(0f64..x_max * 1.05, y_min..y_max)?;
    draw_mesh(&mut chart, "training step", text)?;

    let palette = [
        RGBColor(200, 80, 40),
        RGBColor(40, 140, 60),
        RGBColor(120, 60, 160),
        RGBColor(60, 60, 60),
        RGBColor(180, 140, 0),
    ];
    for (i, (name, elo)) in baselines.iter().enumerate() {
        let color = palette[i % palette.len()];
        let series = chart.draw_series(LineSeries::new([(0.0, *elo), (x_max * 1.05, *elo)], color.stroke_width(1)))?;
        if text {
            let label = format!("{name} ({elo:+.0})");
            series.label(label).legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color));
        }
    }
    let blue = RGBColor(30, 90, 200);
    for &(s, _, lo, hi) in &points {
        if lo.is_finite() && hi.is_finite() {
            chart.draw_series(std::iter::once(PathElement::new(
                [(s as f64, lo), (s as f64, hi)],
                blue.mix(0.6).stroke_width(2),
            )))?;
        }
    }
    let line = chart.draw_series(LineSeries::new(points.iter().map(|p| (p.0 as f64, p.1)), blue.stroke_width(2)))?;
    if text {
        line.label("checkpoints (95% CI)").legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], blue));
    }
    chart.draw_series(points.iter().map(|p| Circle::new((p.0 as f64, p.1), 4, blue.filled())))?;
    if text && (!baselines.is_empty() || !points.is_empty()) {
        draw_legend(&mut chart, 0.8)?;
    }
    root.present()?;
    Ok(())
}

/// One line of a [`plot_curves`] panel: points `(x, elo, ci_low, ci_high)`; an interval end
/// that is not finite is not drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    pub label: String,
    pub points: Vec<(f64, f64, f64, f64)>,
}

/// One panel of [`plot_curves`]: the x-axis description and the curves, the i-th curve of every
/// panel drawn in the same colour (so one legend, in the first panel, serves all).
#[derive(Clone, Debug, PartialEq)]
pub struct Panel {
    pub x_desc: String,
    pub curves: Vec<Curve>,
}

/// Draws `panels` side by side into `path` (PNG), each with Elo on the y axis, every curve with
/// its 95% intervals as error bars, and `baselines` (name, Elo) as labelled dashed horizontal
/// lines in every panel. `fairyzero compare` draws the Elo of several runs against wall-clock
/// time and against self-play games with it.
pub fn plot_curves(title: &str, panels: &[Panel], baselines: &[(String, f64)], path: &Path) -> Result<(), Error> {
    draw_curves(title, panels, baselines, path, fonts_available())
        .map_err(|e| Error::Plot(format!("{}: {e}", path.display())))
}

/// Line colours of [`plot_curves`], distinct on white and for the usual colour blindness
/// (Okabe–Ito, without its yellow).
const CURVE_COLOURS: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(230, 159, 0),
    RGBColor(0, 0, 0),
];

fn draw_curves(
    title: &str,
    panels: &[Panel],
    baselines: &[(String, f64)],
    path: &Path,
    text: bool,
) -> Result<(), Box<dyn std::error::Error>> {
    let baselines: Vec<&(String, f64)> = baselines.iter().filter(|b| b.1.is_finite()).collect();
    let width = 720 * panels.len().max(1) as u32;
    let root = BitMapBackend::new(path, (width, 620)).into_drawing_area();
    root.fill(&WHITE)?;
    // A sans-serif character is about half its size wide: shrink a long title (player and
    // engine paths) to the width rather than cut it.
    let title_size = (1.9 * width as f64 / title.chars().count().max(1) as f64).clamp(12.0, 24.0);
    let root = if text { root.titled(title, ("sans-serif", title_size))? } else { root };
    let areas = root.split_evenly((1, panels.len().max(1)));
    for (p, (panel, area)) in panels.iter().zip(&areas).enumerate() {
        let finite = |x: f64| x.is_finite().then_some(x);
        let points =
            || panel.curves.iter().flat_map(|c| c.points.iter()).filter(|p| p.0.is_finite() && p.1.is_finite());
        let x_max = points().map(|p| p.0).fold(0.0f64, f64::max);
        let x_max = if x_max > 0.0 { x_max * 1.05 } else { 1.0 };
        let ys = points()
            .flat_map(|p| [finite(p.2).unwrap_or(p.1), finite(p.3).unwrap_or(p.1)])
            .chain(baselines.iter().map(|b| b.1));
        let (y_min, y_max) = elo_range(ys);

        let mut builder = ChartBuilder::on(area);
        builder.margin(20);
        if text {
            builder.x_label_area_size(45).y_label_area_size(60);
        } else {
            builder.x_label_area_size(5).y_label_area_size(5);
        }
        let mut chart = builder.build_cartesian_2d(0f64..x_max, y_min..y_max)?;
        draw_mesh(&mut chart, &panel.x_desc, text)?;
        let grey = RGBColor(110, 110, 110);
        for (name, elo) in baselines.iter().map(|b| (&b.0, b.1)) {
            chart.draw_series(DashedLineSeries::new([(0.0, elo), (x_max, elo)], 8, 5, grey.stroke_width(1)))?;
            if text {
                // The label sits just above the line at its left end, where curves start low.
                let label = format!("{name} {elo:+.0}");
                let font = ("sans-serif", 13).into_font().color(&grey);
                chart.draw_series(std::iter::once(EmptyElement::at((0.0, elo)) + Text::new(label, (4, -16), font)))?;
            }
        }
        for (i, curve) in panel.curves.iter().enumerate() {
            let colour = CURVE_COLOURS[i % CURVE_COLOURS.len()];
            let mut pts: Vec<(f64, f64, f64, f64)> =
                curve.points.iter().copied().filter(|p| p.0.is_finite() && p.1.is_finite()).collect();
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            for &(x, _, lo, hi) in &pts {
                if lo.is_finite() && hi.is_finite() {
                    chart.draw_series(std::iter::once(PathElement::new(
                        [(x, lo), (x, hi)],
                        colour.mix(0.45).stroke_width(2),
                    )))?;
                }
            }
            let line = chart.draw_series(LineSeries::new(pts.iter().map(|p| (p.0, p.1)), colour.stroke_width(2)))?;
            if text && p == 0 {
                line.label(curve.label.as_str())
                    .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], colour.stroke_width(2)));
            }
            chart.draw_series(pts.iter().map(|p| Circle::new((p.0, p.1), 3, colour.filled())))?;
        }
        if text && p == 0 && !panel.curves.is_empty() {
            draw_legend(&mut chart, 0.85)?;
        }
    }
    root.present()?;
    Ok(())
}

/// An Elo chart of either plot: x from 0, Elo on y.
type EloChart<'a, 'b> = ChartContext<'a, BitMapBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// The y range of an Elo chart that holds `ys` and 0 (the reference level), padded by 8% of its
/// span, at least 20 Elo, at each end so that no point or label sits on the frame.
fn elo_range(ys: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = ys.chain([0.0]).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), y| (lo.min(y), hi.max(y)));
    let pad = ((hi - lo) * 0.08).max(20.0);
    (lo - pad, hi + pad)
}

/// The grid and axes of an Elo chart: with `text`, whole-number x ticks, signed Elo ticks and
/// the axis descriptions; without it (no font), the grid alone.
fn draw_mesh(chart: &mut EloChart<'_, '_>, x_desc: &str, text: bool) -> Result<(), Box<dyn std::error::Error>> {
    if text {
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc("Elo")
            // Whole numbers where the ticks fall on them (steps, depths), else one decimal, so a
            // short axis does not repeat the same label.
            .x_label_formatter(&|x| if (x - x.round()).abs() < 1e-9 { format!("{x:.0}") } else { format!("{x:.1}") })
            .y_label_formatter(&|y| format!("{y:+.0}"))
            .label_style(("sans-serif", 14))
            .axis_desc_style(("sans-serif", 16))
            .draw()?;
    } else {
        chart.configure_mesh().x_labels(0).y_labels(0).draw()?;
    }
    Ok(())
}

/// The legend of the labelled series, boxed in the lower right (curves start low at the left,
/// so the lower right is the emptiest corner) over white of `opacity`.
fn draw_legend<'a, 'b: 'a>(chart: &mut EloChart<'a, 'b>, opacity: f64) -> Result<(), Box<dyn std::error::Error>> {
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .label_font(("sans-serif", 14))
        .background_style(WHITE.mix(opacity))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ranking::RankEntry;

    fn entry(player: &str, kind: PlayerKind, step: Option<u64>, elo: f64) -> RankEntry {
        RankEntry {
            rank: 1,
            player: player.into(),
            kind,
            step,
            games: 10,
            points: 5.0,
            elo,
            ci_low: elo - 50.0,
            ci_high: elo + 50.0,
            score_vs_best: None,
            expected_vs_best: 0.5,
            connected: true,
        }
    }

    #[test]
    fn plots_with_and_without_text() {
        let ranking = Ranking {
            games: 10,
            distinct_games: 10,
            anchor: Some("random".into()),
            method: "test".into(),
            best: None,
            entries: vec![
                entry("random", PlayerKind::Baseline, None, 0.0),
                entry("alphabeta:2", PlayerKind::Baseline, None, 400.0),
                entry("c1@8", PlayerKind::Checkpoint, Some(100), 150.0),
                entry("c2@8", PlayerKind::Checkpoint, Some(300), 450.0),
            ],
            skipped_lines: 0,
            skipped_files: 0,
        };
        let dir = tempfile::tempdir().unwrap();
        for text in [false, true] {
            if text && !fonts_available() {
                continue;
            }
            let path = dir.path().join(format!("plot-{text}.png"));
            draw(&ranking, &path, text).unwrap();
            assert!(std::fs::read(&path).unwrap().starts_with(b"\x89PNG"));
        }
        // No checkpoint at all still draws.
        let empty = Ranking { entries: vec![], ..ranking };
        plot_ranking(&empty, &dir.path().join("empty.png")).unwrap();
    }

    #[test]
    fn curves_plot_side_by_side_with_and_without_text() {
        let curve = |label: &str, k: f64| Curve {
            label: label.into(),
            points: vec![
                (0.0, -100.0 * k, -180.0, -20.0),
                (5.0, 50.0 * k, f64::NEG_INFINITY, 90.0),
                (12.5, 200.0 * k, 150.0, 250.0),
            ],
        };
        let panels = vec![
            Panel { x_desc: "minutes".into(), curves: vec![curve("a", 1.0), curve("b", 2.0)] },
            Panel {
                x_desc: "games".into(),
                curves: vec![curve("a", 1.0), Curve { label: "b".into(), points: vec![] }],
            },
        ];
        let baselines = vec![("greedy".to_string(), 0.0), ("random".to_string(), -250.0), ("x".to_string(), f64::NAN)];
        let dir = tempfile::tempdir().unwrap();
        for text in [false, true] {
            if text && !fonts_available() {
                continue;
            }
            let path = dir.path().join(format!("curves-{text}.png"));
            draw_curves("t", &panels, &baselines, &path, text).unwrap();
            assert!(std::fs::read(&path).unwrap().starts_with(b"\x89PNG"));
        }
        plot_curves("empty", &[], &[], &dir.path().join("empty.png")).unwrap();
    }
}
