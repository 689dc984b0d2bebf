//! `fairyzero report DIR --html OUT.html`: a training run on one self-contained page, to
//! share or commit: the summary, the rating curve with its intervals, the training losses,
//! self-play throughput, the ranked checkpoints, and a few of the latest self-play games in the
//! game viewer ([`crate::viewer`]). DIR may also be the output folder of `balance` or
//! `piece-values`: its tables, charts and data then make the page.
//!
//! Everything comes from the run directory's own files (`metrics.jsonl`, `ranking.json`,
//! `summary.json`, `games/`), read as they are: a run in progress can be reported, and a file
//! that is missing leaves its section out with a note rather than failing the page. Charts are
//! inline SVG drawn here; the games are viewer pages inside `<iframe srcdoc>`, so the page still
//! needs nothing but itself.

use std::{
    fmt::Write as _,
    path::{Path, PathBuf},
};

use anyhow::{bail, Context, Result};
use base64::Engine as _;
use fairyzero_evaluator::ranking::write_atomic;
use fairyzero_selfplay::record;
use serde_json::Value;

use super::show_game;

#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// A run directory of `fairyzero train` (its metrics.jsonl, ranking.json, summary.json, games/),
    /// or the --out folder of `balance` or `piece-values` (its tables, charts and CSV files)
    pub run_dir: PathBuf,

    /// Where to write the page
    #[arg(long, value_name = "OUT.html")]
    pub html: PathBuf,

    /// Self-play games to embed, the latest ones (0: none; at most 20)
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(0..=20))]
    pub games: u32,
}

pub fn run(args: ReportArgs) -> Result<()> {
    let dir = &args.run_dir;
    let metrics_path = dir.join("metrics.jsonl");
    if !metrics_path.is_file() {
        let (title, body) = designer_page(dir)?;
        return write_page(&args.html, &title, &body);
    }
    let metrics = read_metrics(&metrics_path)?;
    let summary = read_json(&dir.join("summary.json"))?;
    let ranking = read_json(&dir.join("ranking.json"))?;

    let title = format!(
        "fairyzero run {}",
        dir.file_name().map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into())
    );
    let mut body = String::new();
    let _ = write!(body, "<h1>{}</h1>", esc(&title));
    body.push_str(&summary_section(&metrics, summary.as_ref()));
    body.push_str(&rating_section(&metrics));
    body.push_str(&loss_section(&metrics));
    body.push_str(&throughput_section(&metrics));
    body.push_str(&ranking_section(ranking.as_ref()));
    body.push_str(&games_section(dir, args.games as usize)?);
    write_page(&args.html, &title, &body)
}

fn write_page(out: &Path, title: &str, body: &str) -> Result<()> {
    let page = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head>\
         <body>{body}</body></html>\n",
        esc(title)
    );
    write_atomic(out, page.as_bytes()).with_context(|| format!("writing {}", out.display()))?;
    eprintln!("wrote {}", out.display());
    Ok(())
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:20px;color:#222;max-width:1100px}\
h1{font-size:20px}h2{font-size:16px;margin-top:26px;border-bottom:1px solid #ddd}\
table{border-collapse:collapse;font-size:13px}td,th{padding:2px 8px;border-bottom:1px solid #eee;text-align:left}\
td.num{text-align:right;font-variant-numeric:tabular-nums}.note{color:#777;font-size:13px}\
svg text{font-size:11px;fill:#444}iframe{width:100%;height:780px;border:1px solid #ccc;margin-bottom:12px}\
.legend span{margin-right:14px;font-size:12px}";

use crate::viewer::html_escape as esc;

/// Every line of `metrics.jsonl`; a line cut short by a kill (the last one) is skipped, any
/// other bad line is an error naming it.
fn read_metrics(path: &Path) -> Result<Vec<Value>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut out = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        match serde_json::from_str::<Value>(line) {
            Ok(v) => out.push(v),
            Err(_) if i + 1 == lines.len() && !text.ends_with('\n') => {}
            Err(e) => bail!("{}:{}: not JSON: {e}", path.display(), i + 1),
        }
    }
    Ok(out)
}

/// A JSON file, or `None` if it does not exist (yet).
fn read_json(path: &Path) -> Result<Option<Value>> {
    match std::fs::read_to_string(path) {
        Ok(text) => {
            Ok(Some(serde_json::from_str(&text).with_context(|| format!("{}: not valid JSON", path.display()))?))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    }
}

fn of_kind<'a>(metrics: &'a [Value], kind: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
    metrics.iter().filter(move |m| m["kind"] == kind)
}

fn summary_section(metrics: &[Value], summary: Option<&Value>) -> String {
    let mut rows: Vec<(String, String)> = Vec::new();
    if let Some(start) = of_kind(metrics, "start").last() {
        for key in ["variant", "commit", "device", "net"] {
            if let Some(v) = start.get(key).filter(|v| !v.is_null()) {
                rows.push((key.into(), v.as_str().map_or_else(|| v.to_string(), str::to_string)));
            }
        }
    }
    match summary {
        Some(s) => {
            for key in
                ["variant", "net", "iterations", "steps", "games", "positions", "final_checkpoint", "best_checkpoint"]
            {
                if let Some(v) = s.get(key).filter(|v| !v.is_null()) {
                    rows.retain(|(k, _)| k != key);
                    rows.push((key.into(), v.as_str().map_or_else(|| v.to_string(), str::to_string)));
                }
            }
            if let Some(secs) = s["elapsed_secs"].as_f64() {
                rows.push(("wall-clock".into(), format!("{:.1} minutes", secs / 60.0)));
            }
        }
        None => {
            if let Some(it) = of_kind(metrics, "iteration").last() {
                rows.push((
                    "progress".into(),
                    format!("in progress: iteration {}, step {}, {} games", it["iteration"], it["step"], it["games"]),
                ));
            }
        }
    }
    let mut s = String::from("<h2>Summary</h2><table>");
    for (k, v) in rows {
        let _ = write!(s, "<tr><th>{}</th><td>{}</td></tr>", esc(&k), esc(&v));
    }
    s.push_str("</table>");
    s
}

/// One line of a chart: its name, colour and points, with an optional band `(x, low, high)`.
struct Series {
    name: String,
    colour: &'static str,
    points: Vec<(f64, f64)>,
    band: Vec<(f64, f64, f64)>,
}

/// An SVG line chart with axes, ticks and a legend.
fn chart(series: &[Series], x_label: &str, y_label: &str) -> String {
    let (w, h, left, right, top, bottom) = (900.0, 300.0, 60.0, 15.0, 10.0, 40.0);
    let xs = series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let ys = series.iter().flat_map(|s| s.points.iter().map(|p| p.1).chain(s.band.iter().flat_map(|b| [b.1, b.2])));
    let (x0, x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| (a.min(x), b.max(x)));
    let (y0, y1) =
        ys.filter(|y| y.is_finite()).fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| (a.min(y), b.max(y)));
    if !x0.is_finite() || !y0.is_finite() {
        return "<p class=\"note\">no data yet</p>".into();
    }
    let (x1, y1) = (if x1 > x0 { x1 } else { x0 + 1.0 }, if y1 > y0 { y1 } else { y0 + 1.0 });
    let px = |x: f64| left + (x - x0) / (x1 - x0) * (w - left - right);
    let py = |y: f64| top + (1.0 - (y.clamp(y0, y1) - y0) / (y1 - y0)) * (h - top - bottom);
    let mut s = format!("<svg viewBox=\"0 0 {w} {h}\" width=\"100%\" role=\"img\">");
    let _ = write!(
        s,
        "<rect x=\"{left}\" y=\"{top}\" width=\"{}\" height=\"{}\" fill=\"#fafafa\" stroke=\"#ccc\"/>",
        w - left - right,
        h - top - bottom
    );
    for k in 0..=4 {
        let (fx, fy) = (x0 + (x1 - x0) * k as f64 / 4.0, y0 + (y1 - y0) * k as f64 / 4.0);
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            px(fx),
            h - bottom + 14.0,
            tick(fx)
        );
        let _ =
            write!(s, "<text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>", left - 4.0, py(fy) + 4.0, tick(fy));
        let _ = write!(
            s,
            "<line x1=\"{left}\" x2=\"{}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#eee\"/>",
            w - right,
            py(fy),
            py(fy)
        );
    }
    let _ = write!(
        s,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
        (left + w - right) / 2.0,
        h - 6.0,
        esc(x_label)
    );
    let _ = write!(
        s,
        "<text x=\"12\" y=\"{}\" transform=\"rotate(-90 12 {})\" text-anchor=\"middle\">{}</text>",
        h / 2.0,
        h / 2.0,
        esc(y_label)
    );
    for se in series {
        if !se.band.is_empty() {
            let upper: Vec<String> = se.band.iter().map(|b| format!("{:.1},{:.1}", px(b.0), py(b.2))).collect();
            let lower: Vec<String> = se.band.iter().rev().map(|b| format!("{:.1},{:.1}", px(b.0), py(b.1))).collect();
            let _ = write!(
                s,
                "<polygon points=\"{} {}\" fill=\"{}\" opacity=\"0.18\"/>",
                upper.join(" "),
                lower.join(" "),
                se.colour
            );
        }
        let pts: Vec<String> =
            se.points.iter().filter(|p| p.1.is_finite()).map(|p| format!("{:.1},{:.1}", px(p.0), py(p.1))).collect();
        let _ = write!(
            s,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.6\"><title>{}</title></polyline>",
            pts.join(" "),
            se.colour,
            esc(&se.name)
        );
    }
    s.push_str("</svg><div class=\"legend\">");
    for se in series {
        let _ = write!(s, "<span style=\"color:{}\">&#9632; {}</span>", se.colour, esc(&se.name));
    }
    s.push_str("</div>");
    s
}

fn tick(v: f64) -> String {
    if v.abs() >= 1000.0 || v == v.round() {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

fn rating_section(metrics: &[Value]) -> String {
    let mut elo = Series {
        name: "Elo of each checkpoint (95% interval)".into(),
        colour: "#1f4e96",
        points: vec![],
        band: vec![],
    };
    for e in of_kind(metrics, "eval") {
        let step = e["checkpoint"].as_str().and_then(|c| c.strip_prefix("step-")).and_then(|n| n.parse::<f64>().ok());
        if let (Some(x), Some(y)) = (step, e["elo"].as_f64()) {
            elo.points.push((x, y));
            if let (Some(lo), Some(hi)) = (e["elo_low"].as_f64(), e["elo_high"].as_f64()) {
                elo.band.push((x, lo, hi));
            }
        }
    }
    format!(
        "<h2>Rating</h2><p class=\"note\">The trainer's evaluations: each checkpoint's Elo against the run's fixed \
         opponents (metrics.jsonl <code>eval</code> lines), with its 95% interval.</p>{}",
        chart(&[elo], "training step", "Elo")
    )
}

fn loss_section(metrics: &[Value]) -> String {
    let mut total = Series { name: "total".into(), colour: "#222", points: vec![], band: vec![] };
    let mut policy = Series { name: "policy".into(), colour: "#1f4e96", points: vec![], band: vec![] };
    let mut value = Series { name: "value".into(), colour: "#c0392b", points: vec![], band: vec![] };
    for it in of_kind(metrics, "iteration") {
        let Some(step) = it["step"].as_f64() else { continue };
        let loss = &it["train"]["loss"];
        for (series, key) in [(&mut total, "total"), (&mut policy, "policy"), (&mut value, "value")] {
            if let Some(y) = loss[key].as_f64() {
                series.points.push((step, y));
            }
        }
    }
    format!("<h2>Training losses</h2>{}", chart(&[total, policy, value], "training step", "loss (per iteration)"))
}

fn throughput_section(metrics: &[Value]) -> String {
    let mut positions =
        Series { name: "self-play positions/s".into(), colour: "#27ae60", points: vec![], band: vec![] };
    for it in of_kind(metrics, "iteration") {
        if let (Some(t), Some(y)) = (it["elapsed_secs"].as_f64(), it["selfplay"]["positions_per_sec"].as_f64()) {
            positions.points.push((t / 3600.0, y));
        }
    }
    format!("<h2>Self-play throughput</h2>{}", chart(&[positions], "hours since this start", "positions per second"))
}

fn ranking_section(ranking: Option<&Value>) -> String {
    let Some(r) = ranking else {
        return "<h2>Ranking</h2><p class=\"note\">No ranking.json yet (written at the run's end, or by \
                <code>fairyzero rank</code>).</p>"
            .into();
    };
    let mut s = format!(
        "<h2>Ranking</h2><p class=\"note\">Every player of the run rated jointly from its stored games, anchored at \
         <code>{}</code> = 0 (ranking.json).</p><table><tr><th>rank</th><th>player</th><th>Elo</th><th>95% CI</th>\
         <th>games</th></tr>",
        esc(r["anchor"].as_str().unwrap_or("?"))
    );
    for e in r["entries"].as_array().into_iter().flatten() {
        let num = |k: &str| e[k].as_f64().map_or("-".into(), |v| format!("{v:+.0}"));
        let _ = write!(
            s,
            "<tr><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">[{}, {}]</td><td class=\"num\">{}</td></tr>",
            e["rank"],
            esc(e["player"].as_str().unwrap_or("?")),
            num("elo"),
            num("ci_low"),
            num("ci_high"),
            e["games"]
        );
    }
    s.push_str("</table>");
    s
}

/// The latest `count` self-play games, each a viewer page in an iframe.
fn games_section(dir: &Path, count: usize) -> Result<String> {
    if count == 0 {
        return Ok(String::new());
    }
    let mut chunks: Vec<PathBuf> = match std::fs::read_dir(dir.join("games")) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.to_string_lossy().ends_with(".games.zst"))
            .collect(),
        Err(_) => Vec::new(),
    };
    chunks.sort();
    let mut s = String::from("<h2>Latest self-play games</h2>");
    let Some(last) = chunks.last() else {
        s.push_str("<p class=\"note\">No game records in games/ yet.</p>");
        return Ok(s);
    };
    let games = record::read_chunk(last)?;
    for i in games.len().saturating_sub(count)..games.len() {
        let page = show_game::page_of_record(&games[i], i, last)?;
        let _ = write!(s, "<iframe title=\"game {i}\" srcdoc=\"{}\"></iframe>", esc(&page));
    }
    Ok(s)
}

/// A designer output folder (`balance --out`, `piece-values --out`) on one page: its Markdown
/// tables rendered, its charts embedded as data URIs, its CSV files as downloads inside the page.
fn designer_page(dir: &Path) -> Result<(String, String)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')))
        .collect();
    files.sort();
    let ext = |p: &Path, e: &str| p.extension().is_some_and(|x| x == e);
    let markdown: Vec<&PathBuf> = files.iter().filter(|p| ext(p, "md")).collect();
    if markdown.is_empty() {
        bail!(
            "{}: neither a run directory (no metrics.jsonl) nor a designer output folder (no balance or piece-values \
             tables)",
            dir.display()
        );
    }
    let name = |p: &Path| p.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let mut title = format!("fairyzero designer output {}", name(dir));
    let mut body = String::new();
    for md in &markdown {
        let text = std::fs::read_to_string(md).with_context(|| format!("reading {}", md.display()))?;
        if let Some(h) = text.lines().find_map(|l| l.strip_prefix("# ")) {
            if title.starts_with("fairyzero designer output") {
                title = h.trim().to_string();
            }
        }
        let _ = write!(body, "<section><p class=\"note\">{}</p>", esc(&name(md)));
        let parser = pulldown_cmark::Parser::new_ext(&text, pulldown_cmark::Options::ENABLE_TABLES);
        pulldown_cmark::html::push_html(&mut body, parser);
        body.push_str("</section>");
    }
    for png in files.iter().filter(|p| ext(p, "png")) {
        let bytes = std::fs::read(png).with_context(|| format!("reading {}", png.display()))?;
        let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
        let _ = write!(
            body,
            "<h2>{}</h2><img alt=\"{}\" style=\"max-width:100%\" src=\"data:image/png;base64,{data}\">",
            esc(&name(png)),
            esc(&name(png))
        );
    }
    let csvs: Vec<&PathBuf> = files.iter().filter(|p| ext(p, "csv")).collect();
    if !csvs.is_empty() {
        body.push_str("<h2>Data</h2><ul>");
        for csv in csvs {
            let bytes = std::fs::read(csv).with_context(|| format!("reading {}", csv.display()))?;
            let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
            let _ = write!(
                body,
                "<li><a download=\"{0}\" href=\"data:text/csv;base64,{data}\">{0}</a></li>",
                esc(&name(csv))
            );
        }
        body.push_str("</ul>");
    }
    Ok((title, body))
}
