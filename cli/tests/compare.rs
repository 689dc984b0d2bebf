//! `fairyzero compare`: several runs rated on one scale through their shared baselines, with
//! the x-coordinates of each checkpoint from its manifest. The runs are small synthetic run
//! directories (stored games as the trainer's evaluations write them, and checkpoint
//! manifests); no training and no network.

use std::{
    fs,
    path::{Path, PathBuf},
    process::Command,
};

use clap::Parser;
use fairyzero_cli::commands::compare::{compare_runs, run, CompareArgs, COMPARE_JSON, COMPARE_MD, COMPARE_PNG};
use serde_json::{json, Value};

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    args: CompareArgs,
}

fn args(list: &[&str]) -> CompareArgs {
    let mut argv = vec!["compare"];
    argv.extend_from_slice(list);
    Cli::try_parse_from(argv).unwrap_or_else(|e| panic!("{list:?}: {e}")).args
}

/// `DIR/checkpoints/step-N/manifest.json` as the trainer writes it (fields that compare does not
/// read included, so that the reader is tested on the real shape).
fn manifest(run: &Path, step: u64, elapsed_secs: f64, games: u64) {
    let dir = run.join(format!("checkpoints/step-{step:08}"));
    fs::create_dir_all(&dir).unwrap();
    let m = json!({
        "format": "fairyzero-checkpoint", "format_version": 1, "name": format!("step-{step:08}"), "step": step,
        "created_unix_ms": 1_795_764_264_045u64, "files": [],
        "state": {"iteration": step / 10, "games": games, "positions": games * 40, "samples_trained": step * 32,
                  "elapsed_secs": elapsed_secs},
    });
    fs::write(dir.join("manifest.json"), m.to_string()).unwrap();
}

/// `wins` and `losses` of `a` against `b` (colours alternating), stored as one batch file in
/// `run/matches/`, in the trainer's record format.
fn games(run: &Path, a: &str, b: &str, wins: usize, losses: usize) {
    let dir = run.join("matches");
    fs::create_dir_all(&dir).unwrap();
    let step = |p: &str| p.strip_prefix("checkpoints/step-").and_then(|s| s.split('@').next()?.parse::<u64>().ok());
    let mut text = String::new();
    for g in 0..wins + losses {
        let a_wins = g < wins;
        let (blue, tan) = if g % 2 == 0 { (a, b) } else { (b, a) };
        let result = if a_wins == (blue == a) { "1-0" } else { "0-1" };
        let mut line = json!({
            "version": 1, "match_id": format!("eval-{a}-vs-{b}"), "variant": "antilosalamos",
            "variant_hash": "39388641f40e3668", "blue": blue, "tan": tan, "result": result, "reason": "extinction",
            "plies": 40, "opening": g / 2, "opening_moves": "e2e3 b5b4", "moves_hash": format!("{a}{b}{g:016x}"), "game": g,
        });
        if let Some(s) = step(blue) {
            line["blue_step"] = json!(s);
        }
        if let Some(s) = step(tan) {
            line["tan_step"] = json!(s);
        }
        text.push_str(&line.to_string());
        text.push('\n');
    }
    let name: String = format!("{a}-vs-{b}").chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    fs::write(dir.join(format!("{name}.jsonl")), text).unwrap();
}

fn ck(step: u64) -> String {
    format!("checkpoints/step-{step:08}@4")
}

/// A run whose three checkpoints (steps 0, 100, 200 at `minutes` and `selfplay` games) scored
/// `wins[i]` of 20 against greedy; greedy beats random 15 to 5 in every run.
fn run_dir(root: &Path, name: &str, wins: [usize; 3], minutes: [f64; 3], selfplay: [u64; 3]) -> PathBuf {
    let run = root.join(name);
    for (i, step) in [0u64, 100, 200].into_iter().enumerate() {
        manifest(&run, step, minutes[i] * 60.0, selfplay[i]);
        games(&run, &ck(step), "greedy", wins[i], 20 - wins[i]);
    }
    games(&run, "greedy", "random", 15, 5);
    run
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

fn checkpoint<'a>(json: &'a Value, label: &str, step: u64) -> &'a Value {
    let run = json["runs"].as_array().unwrap().iter().find(|r| r["label"] == label).unwrap();
    run["checkpoints"].as_array().unwrap().iter().find(|c| c["step"] == step).unwrap()
}

/// Two runs against the same greedy: one joint rating anchored at greedy, the run that beats it
/// more often rated higher, x-values from the manifests, and three outputs that parse.
#[test]
fn two_runs_sharing_greedy_are_rated_on_one_scale() {
    let tmp = tempfile::tempdir().unwrap();
    let strong = run_dir(tmp.path(), "transfer", [10, 15, 18], [0.0, 5.0, 10.5], [0, 40, 90]);
    let weak = run_dir(tmp.path(), "zero", [3, 6, 10], [0.0, 4.0, 9.0], [0, 30, 70]);
    let out = tmp.path().join("cmp");
    let a = args(&[
        "--run",
        &format!("transfer={}", strong.display()),
        "--run",
        &format!("zero={}", weak.display()),
        "--out",
        out.to_str().unwrap(),
        "--bootstrap",
        "50",
        "--title",
        "transfer vs zero",
    ]);
    run(a).unwrap();
    for f in [COMPARE_MD, COMPARE_JSON, COMPARE_PNG] {
        assert!(out.join(f).metadata().unwrap().len() > 100, "{f}");
    }
    assert!(fs::read(out.join(COMPARE_PNG)).unwrap().starts_with(b"\x89PNG"));
    assert!(fs::read_dir(&out).unwrap().all(|e| !e.unwrap().file_name().to_string_lossy().starts_with('.')));

    let json = read_json(&out.join(COMPARE_JSON));
    assert_eq!(json["anchor"], "greedy");
    assert_eq!(json["title"], "transfer vs zero");
    assert_eq!(json["games"], 2 * (3 * 20 + 20));
    // One rating for the shared greedy and random, played by both runs.
    let baselines = json["baselines"].as_array().unwrap();
    assert_eq!(baselines.len(), 2, "{baselines:?}");
    let greedy = baselines.iter().find(|b| b["player"] == "greedy").unwrap();
    assert_eq!((greedy["elo"].as_f64(), greedy["games"].as_u64()), (Some(0.0), Some(2 * 80)));
    assert_eq!(greedy["runs"], json!(["transfer", "zero"]));
    assert!(baselines.iter().find(|b| b["player"] == "random").unwrap()["elo"].as_f64().unwrap() < -100.0);

    let (s200, w200) = (checkpoint(&json, "transfer", 200), checkpoint(&json, "zero", 200));
    assert_eq!(s200["player"], "transfer/step-200@4");
    assert_eq!(w200["player"], "zero/step-200@4");
    // 18 of 20 against greedy is far above 10 of 20.
    assert!(s200["elo"].as_f64().unwrap() > 200.0, "{s200}");
    assert!(w200["elo"].as_f64().unwrap().abs() < 1e-6, "{w200}");
    assert!(s200["ci_low"].as_f64().unwrap() > w200["elo"].as_f64().unwrap(), "{s200}");
    for (run, step, minutes, selfplay) in
        [("transfer", 100, 5.0, 40), ("transfer", 200, 10.5, 90), ("zero", 100, 4.0, 30)]
    {
        let c = checkpoint(&json, run, step);
        assert_eq!(c["minutes"].as_f64(), Some(minutes), "{c}");
        assert_eq!(c["elapsed_secs"].as_f64(), Some(minutes * 60.0), "{c}");
        assert_eq!(c["selfplay_games"].as_u64(), Some(selfplay), "{c}");
        assert_eq!(c["path"], format!("checkpoints/step-{step:08}"));
    }
    // Ratings rise with the score against greedy within each run.
    let elo = |run: &str, step| checkpoint(&json, run, step)["elo"].as_f64().unwrap();
    assert!(elo("zero", 0) < elo("zero", 100) && elo("zero", 100) < elo("zero", 200));
    let last = &json["runs"][0]["last"];
    assert_eq!((last["step"].as_u64(), &last["player"]), (Some(200), &json!("transfer/step-200@4")));

    let md = fs::read_to_string(out.join(COMPARE_MD)).unwrap();
    assert!(md.starts_with("# transfer vs zero\n"), "{md}");
    assert!(md.contains("anchored at `greedy` = 0"), "{md}");
    assert!(md.contains("## transfer\n") && md.contains("## zero\n"), "{md}");
    assert!(md.contains("| `transfer/step-200@4` | 200 | 4 | 10.5 | 90 |"), "{md}");
    assert!(md.contains("| `greedy` | +0 | [+0, +0] | 160 | transfer, zero |"), "{md}");
    assert!(!md.contains("## Arms"), "{md}");
}

/// Runs that share no opponent are on unrelated scales: refused, naming the runs and their
/// opponents, unless --allow-disconnected.
#[test]
fn runs_without_a_shared_baseline_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    manifest(&a, 10, 60.0, 5);
    games(&a, &ck(10), "greedy", 12, 8);
    let b = tmp.path().join("b");
    manifest(&b, 10, 60.0, 5);
    games(&b, &ck(10), "alphabeta:1", 12, 8);
    let out = tmp.path().join("out");
    let list = [
        "--run",
        &format!("a={}", a.display()),
        "--run",
        &format!("b={}", b.display()),
        "--out",
        out.to_str().unwrap(),
    ];
    let err = format!("{:#}", compare_runs(&args(&list)).unwrap_err());
    assert!(err.contains("share no baseline") && err.contains("--allow-disconnected"), "{err}");
    assert!(err.contains("a: greedy") && err.contains("b: alphabeta:1"), "{err}");
    let mut allowed = list.to_vec();
    allowed.extend(["--allow-disconnected", "--bootstrap", "10"]);
    let c = compare_runs(&args(&allowed)).unwrap();
    assert_eq!(c.runs.len(), 2);
    // The anchor's group is rated; the other is flagged as not connected.
    assert!(c.runs.iter().any(|r| r.checkpoints.iter().any(|(_, r)| !r.connected)));

    // Through the real binary: the error is the last thing it says, and the exit is non-zero.
    let exe = env!("CARGO_BIN_EXE_fairyzero");
    let output = Command::new(exe).arg("compare").args(list).env_remove("RUST_LOG").output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success() && stderr.contains("share no baseline"), "{stderr}");
    assert!(!stderr.contains("panicked") && !out.join(COMPARE_MD).exists(), "{stderr}");
}

/// With --group, an arm's summary is the mean of its runs' last checkpoints and the spread
/// between them (the seeds).
#[test]
fn groups_average_their_seeds() {
    let tmp = tempfile::tempdir().unwrap();
    let m = [0.0, 7.5, 15.0];
    let g = [0, 100, 200];
    let runs = [
        ("gumbel-s1", run_dir(tmp.path(), "g1", [5, 10, 16], m, g)),
        ("gumbel-s2", run_dir(tmp.path(), "g2", [5, 10, 14], m, g)),
        ("puct-s1", run_dir(tmp.path(), "p1", [5, 8, 10], m, g)),
        ("puct-s2", run_dir(tmp.path(), "p2", [5, 7, 8], m, g)),
    ];
    let out = tmp.path().join("out");
    let mut list: Vec<String> = Vec::new();
    for (label, dir) in &runs {
        list.extend(["--run".into(), format!("{label}={}", dir.display())]);
    }
    for (label, arm) in [("gumbel-s1", "gumbel"), ("gumbel-s2", "gumbel"), ("puct-s1", "puct"), ("puct-s2", "puct")] {
        list.extend(["--group".into(), format!("{label}={arm}")]);
    }
    list.extend(["--out".into(), out.to_str().unwrap().into(), "--likelihood".into()]);
    let list: Vec<&str> = list.iter().map(String::as_str).collect();
    run(args(&list)).unwrap();
    let json = read_json(&out.join(COMPARE_JSON));
    let last = |label: &str| checkpoint(&json, label, 200)["elo"].as_f64().unwrap();
    let arms = json["arms"].as_array().unwrap();
    assert_eq!(arms.len(), 2);
    for (arm, a, b) in [(&arms[0], "gumbel-s1", "gumbel-s2"), (&arms[1], "puct-s1", "puct-s2")] {
        let (x, y) = (last(a), last(b));
        assert_eq!(arm["runs"], json!([a, b]));
        assert!((arm["mean_elo"].as_f64().unwrap() - (x + y) / 2.0).abs() < 1e-9, "{arm}");
        // Sample standard deviation of two values: |x - y| / sqrt 2.
        assert!((arm["sd"].as_f64().unwrap() - (x - y).abs() / 2f64.sqrt()).abs() < 1e-9, "{arm}");
        assert_eq!((arm["min"].as_f64(), arm["max"].as_f64()), (Some(x.min(y)), Some(x.max(y))));
        assert_eq!((arm["mean_minutes"].as_f64(), arm["mean_selfplay_games"].as_f64()), (Some(15.0), Some(200.0)));
    }
    assert!(arms[0]["mean_elo"].as_f64() > arms[1]["mean_elo"].as_f64());
    let md = fs::read_to_string(out.join(COMPARE_MD)).unwrap();
    assert!(md.contains("## Arms") && md.contains("| gumbel | gumbel-s1 ("), "{md}");

    // A group naming no run, or a run in two arms, is refused by name.
    let mut bad = list.clone();
    bad.extend(["--group", "nosuch=gumbel"]);
    let err = format!("{:#}", compare_runs(&args(&bad)).unwrap_err());
    assert!(err.contains("--group nosuch=gumbel") && err.contains("gumbel-s1, gumbel-s2"), "{err}");
    let mut twice = list.clone();
    twice.extend(["--group", "puct-s1=gumbel"]);
    let err = format!("{:#}", compare_runs(&args(&twice)).unwrap_err());
    assert!(err.contains("already in arm puct"), "{err}");
}

/// Bad input is refused naming the run and the file: a duplicate label, a run without stored
/// games, an unreadable manifest, a missing one, a malformed label, an anchor that did not play.
#[test]
fn bad_input_is_refused_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let good = run_dir(tmp.path(), "good", [5, 10, 15], [0.0, 1.0, 2.0], [0, 10, 20]);
    let out = tmp.path().join("out");
    let out = out.to_str().unwrap();
    let g = format!("x={}", good.display());
    let err = |list: &[&str]| format!("{:#}", compare_runs(&args(list)).unwrap_err());

    let e = err(&["--run", &g, "--run", &format!("x={}", tmp.path().display()), "--out", out]);
    assert!(e.contains("--run x: the label is given twice"), "{e}");

    let empty = tmp.path().join("empty");
    fs::create_dir_all(&empty).unwrap();
    let e = err(&["--run", &g, "--run", &format!("e={}", empty.display()), "--out", out]);
    assert!(e.contains(&format!("--run e={}", empty.display())) && e.contains("matches is missing"), "{e}");
    let e = err(&["--run", &g, "--run", "n=/no/such/run", "--out", out]);
    assert!(e.contains("--run n=/no/such/run: no such run directory"), "{e}");

    let broken = run_dir(tmp.path(), "broken", [5, 10, 15], [0.0, 1.0, 2.0], [0, 10, 20]);
    let file = broken.join("checkpoints/step-00000100/manifest.json");
    fs::write(&file, r#"{"step": 100, "state": {"games": 3}}"#).unwrap();
    let b = format!("b={}", broken.display());
    let e = err(&["--run", &g, "--run", &b, "--out", out]);
    assert!(e.contains("--run b=") && e.contains(&file.display().to_string()), "{e}");
    assert!(e.contains("no field `state.elapsed_secs`") && e.contains("checkpoints/step-00000100@4"), "{e}");
    fs::remove_file(&file).unwrap();
    let e = err(&["--run", &g, "--run", &b, "--out", out]);
    assert!(e.contains(&format!("reading {}", file.display())), "{e}");

    let e = err(&["--run", &g, "--anchor", "alphabeta:3", "--out", out]);
    assert!(e.contains("--anchor alphabeta:3") && e.contains("greedy, random"), "{e}");
    // A checkpoint of a run can be the anchor, by its new name.
    let c = compare_runs(&args(&["--run", &g, "--anchor", "x/step-0@4", "--out", out, "--bootstrap", "5"])).unwrap();
    assert_eq!(c.anchor.as_deref(), Some("x/step-0@4"));

    for (bad, needle) in [("a/b=dir", "contains '/'"), ("nodir", "expected LABEL=DIR"), ("x=", "empty directory")] {
        let e = Cli::try_parse_from(["compare", "--run", bad, "--out", out]).err().unwrap().to_string();
        assert!(e.contains("--run") && e.contains(needle), "{bad}: {e}");
    }
    let e = Cli::try_parse_from(["compare", "--out", out]).err().unwrap().to_string();
    assert!(e.contains("--run"), "{e}");
}
