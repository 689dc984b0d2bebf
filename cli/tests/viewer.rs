//! `show-game --html`: the self-contained viewer page, rendered by headless Chromium. For a
//! Typhoon (12x12) and a Chushin Shogi (18x18) game, the page opened at `#ply=N` must draw
//! exactly the pieces that the rules crate puts on the board after N plies, each on its square
//! with its token; and records that cannot be shown are refused with the reason.

mod common;

use std::{collections::BTreeMap, path::Path, sync::Arc};

use common::{fairyzero, stderr};
use fairyzero_rules::{Color, MoveList, Position, Square, Variant};

/// One random-vs-random game of `variant` with its moves recorded, as `fairyzero match` writes
/// it; returns the results file.
fn match_file(dir: &Path, variant: &str, cap: &str, extra: &[&str]) -> std::path::PathBuf {
    let run = dir.join(variant);
    let mut args = vec![
        "match",
        "random",
        "random",
        "--variant",
        variant,
        "--games",
        "1",
        "--move-cap",
        cap,
        "--seed",
        "3",
        "--run",
        run.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let out = fairyzero(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let files: Vec<_> = std::fs::read_dir(run.join("matches")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].clone()
}

/// The board after `plies` plies of the recorded game, as square name -> token (the first
/// player's tokens upper-case, the second's lower-case), computed by the rules crate.
fn expected_board(variant: &Arc<Variant>, game: &serde_json::Value, plies: usize) -> BTreeMap<String, String> {
    let opening = game["opening_moves"].as_str().unwrap();
    assert!(!opening.starts_with('['), "a fixed start array");
    let moves: Vec<&str> =
        opening.split_whitespace().chain(game["moves"].as_str().unwrap().split_whitespace()).collect();
    // Matches start at the setup phase's start where the variant has one (Typhoon).
    let mut pos = Position::setup_start(Arc::clone(variant)).unwrap_or_else(|| Position::start(Arc::clone(variant)));
    let mut legal = MoveList::new();
    for mv in &moves[..plies] {
        pos.legal_moves(&mut legal);
        let m = *legal.iter().find(|m| pos.move_to_string(m) == *mv).unwrap_or_else(|| panic!("{mv}"));
        pos.make(m);
    }
    let mut board = BTreeMap::new();
    for (sq, p) in pos.board().iter().enumerate() {
        if let Some(p) = p {
            let t = &variant.pieces[p.kind().index()].token;
            let token = if p.color() == Color::Blue { t.clone() } else { t.to_ascii_lowercase() };
            board.insert(variant.dims.square_name(Square(sq as u16)), token);
        }
    }
    board
}

/// The pieces the rendered page draws: square name -> token, from every `<g class="piece ...">`.
fn drawn_board(dom: &str) -> BTreeMap<String, String> {
    let attr = |tag: &str, name: &str| -> String {
        let key = format!("{name}=\"");
        let start = tag.find(&key).unwrap_or_else(|| panic!("{name} missing in {tag}")) + key.len();
        tag[start..start + tag[start..].find('"').unwrap()].to_string()
    };
    let mut board = BTreeMap::new();
    for chunk in dom.split("<g ").skip(1) {
        let tag = &chunk[..chunk.find('>').unwrap()];
        if tag.contains("class=\"piece ") {
            let previous = board.insert(attr(tag, "data-square"), attr(tag, "data-token"));
            assert!(previous.is_none(), "two pieces drawn on one square: {tag}");
        }
    }
    board
}

#[test]
fn pages_draw_the_rules_crates_board_at_any_ply() {
    let Some(chromium) = common::chromium("the viewer test") else { return };
    let dir = tempfile::tempdir().unwrap();
    for (variant, cap) in [("typhoon", "60"), ("chushin", "40")] {
        let results = match_file(dir.path(), variant, cap, &[]);
        let game: serde_json::Value =
            serde_json::from_str(std::fs::read_to_string(&results).unwrap().lines().next().unwrap()).unwrap();
        let html = dir.path().join(format!("{variant}.html"));
        let out = fairyzero(&["show-game", results.to_str().unwrap(), "--html", html.to_str().unwrap()]);
        assert!(out.status.success(), "{}", stderr(&out));
        let page = std::fs::read_to_string(&html).unwrap();
        for external in ["src=", "<link", "url(", "@import"] {
            assert!(!page.contains(external), "{variant}: the page must be self-contained, found {external}");
        }

        let v = Variant::load(variant).unwrap();
        let total = game["opening_moves"].as_str().unwrap().split_whitespace().count()
            + game["moves"].as_str().unwrap().split_whitespace().count();
        for plies in [0, total / 2, total] {
            let url = format!("file://{}#ply={plies}", html.display());
            let dom = common::rendered_dom(chromium, &url, &dir.path().join("profile"));
            assert!(dom.contains(&format!("ply {plies} / {total}")), "{variant}: the page shows ply {plies}");
            let expected = expected_board(&v, &game, plies);
            assert!(expected.len() > 20, "{variant}: {} pieces", expected.len());
            assert_eq!(drawn_board(&dom), expected, "{variant} after {plies} plies");
        }
    }
}

#[test]
fn records_that_cannot_be_shown_are_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let out_html = dir.path().join("x.html");
    let html = out_html.to_str().unwrap();

    let no_moves = match_file(dir.path(), "losalamos", "20", &["--no-moves"]);
    let out = fairyzero(&["show-game", no_moves.to_str().unwrap(), "--html", html]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("recorded without its moves"), "{}", stderr(&out));

    let two = dir.path().join("two.jsonl");
    let line = std::fs::read_to_string(&no_moves).unwrap();
    std::fs::write(&two, format!("{line}{line}")).unwrap();
    let out = fairyzero(&["show-game", two.to_str().unwrap(), "--html", html]);
    assert!(stderr(&out).contains("pass --game N") && stderr(&out).contains("holds 2 games"), "{}", stderr(&out));
    let out = fairyzero(&["show-game", two.to_str().unwrap(), "--game", "5", "--html", html]);
    assert!(stderr(&out).contains("--game 5") && stderr(&out).contains("holds 2 games"), "{}", stderr(&out));

    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, format!("{line}{{\"version\":1}}\n")).unwrap();
    let out = fairyzero(&["show-game", bad.to_str().unwrap(), "--game", "0", "--html", html]);
    assert!(stderr(&out).contains("bad.jsonl:2: not a match game"), "{}", stderr(&out));

    // An illegal move in an edited record names the move and the file; nothing is written.
    let edited = dir.path().join("edited.jsonl");
    let mut game: serde_json::Value = serde_json::from_str(line.trim()).unwrap();
    game["moves"] = serde_json::json!("a1a1");
    std::fs::write(&edited, format!("{game}\n")).unwrap();
    let out = fairyzero(&["show-game", edited.to_str().unwrap(), "--html", html]);
    let err = stderr(&out);
    assert!(err.contains("(\"a1a1\") is not legal") && err.contains("edited.jsonl"), "{err}");
    assert!(!out_html.exists(), "no page for a record that cannot be replayed");
}

#[test]
fn a_run_reports_on_one_self_contained_page() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let run_dir = format!("run_dir={:?}", run.display().to_string());
    let mut args = vec!["-q", "train", "--config", "../configs/runs/tiny.toml", "-o", &run_dir];
    for set in [
        "budget.games=8",
        "iteration.games=4",
        "selfplay.games_in_parallel=4",
        "replay.min_positions=1",
        "eval.games=2",
        "eval.final.games=2",
        "output.tensorboard=false",
        "device=\"cpu\"",
    ] {
        args.extend(["-o", set]);
    }
    let out = fairyzero(&args);
    assert!(out.status.success(), "{}", stderr(&out));

    let html = dir.path().join("report.html");
    let out = fairyzero(&["report", run.to_str().unwrap(), "--html", html.to_str().unwrap(), "--games", "2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let page = std::fs::read_to_string(&html).unwrap();
    for section in ["Summary", "Rating", "Training losses", "Self-play throughput", "Ranking", "Latest self-play games"]
    {
        assert!(page.contains(&format!("<h2>{section}</h2>")), "{section} missing");
    }
    for external in ["src=\"http", "<link", "url(", "@import"] {
        assert!(!page.contains(external), "the page must be self-contained, found {external}");
    }
    assert_eq!(page.matches("<iframe").count(), 2, "two embedded games");
    assert!(page.contains("antilosalamos") && page.contains("checkpoints/step-"), "summary and ranking rows");
    // The rating curve has a point per evaluated checkpoint (step 0 and the two iterations').
    let rating = &page[page.find("<h2>Rating</h2>").unwrap()..page.find("<h2>Training losses</h2>").unwrap()];
    let points = rating.split("<polyline points=\"").nth(1).unwrap().split('"').next().unwrap();
    assert!(points.split_whitespace().count() >= 2, "rating points: {points}");

    if let Some(chromium) = common::chromium("the report's rendering check") {
        let dom = common::rendered_dom(chromium, &format!("file://{}", html.display()), &dir.path().join("profile"));
        assert_eq!(dom.matches("<iframe").count(), 2, "the page renders with its games");
    }

    // metrics.jsonl cut short by a kill is read up to its last whole line; a bad line elsewhere
    // is named.
    let metrics = run.join("metrics.jsonl");
    let text = std::fs::read_to_string(&metrics).unwrap();
    std::fs::write(&metrics, format!("{text}{{\"kind\":\"itera")).unwrap();
    let out = fairyzero(&["report", run.to_str().unwrap(), "--html", html.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::write(&metrics, format!("{{oops\n{text}")).unwrap();
    let out = fairyzero(&["report", run.to_str().unwrap(), "--html", html.to_str().unwrap()]);
    assert!(stderr(&out).contains("metrics.jsonl:1: not JSON"), "{}", stderr(&out));
    let out = fairyzero(&["report", dir.path().to_str().unwrap(), "--html", html.to_str().unwrap()]);
    assert!(stderr(&out).contains("neither a run directory"), "{}", stderr(&out));
}

#[test]
fn a_designer_folder_reports_its_tables_charts_and_data() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pv");
    let done = fairyzero(
        &["-q", "piece-values", "--variant", "losalamos", "--player", "random", "--games", "4", "--out"]
            .iter()
            .copied()
            .chain([out.to_str().unwrap()])
            .collect::<Vec<_>>(),
    );
    assert!(done.status.success(), "{}", stderr(&done));
    let html = dir.path().join("pv.html");
    let report = fairyzero(&["report", out.to_str().unwrap(), "--html", html.to_str().unwrap()]);
    assert!(report.status.success(), "{}", stderr(&report));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<title>Piece values of losalamos"), "the first table's heading is the title");
    assert!(page.contains("<table>") && page.contains("<td>N</td>"), "the Markdown tables are rendered");
    assert_eq!(page.matches("src=\"data:image/png;base64,").count(), 2, "both charts embedded");
    assert!(page.contains("download=\"piece-values.csv\" href=\"data:text/csv;base64,"), "the CSV inside the page");
    for external in ["src=\"http", "<link", "url(", "@import"] {
        assert!(!page.contains(external), "the page must be self-contained, found {external}");
    }
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let refused = fairyzero(&["report", empty.to_str().unwrap(), "--html", html.to_str().unwrap()]);
    assert!(stderr(&refused).contains("neither a run directory"), "{}", stderr(&refused));
    assert_eq!(std::fs::read_to_string(&html).unwrap(), page, "a refused report leaves the old page alone");
}
