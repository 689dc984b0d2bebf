//! Signals through the real binary: a first SIGINT or SIGTERM stops a job within seconds with
//! status 130 or 143, a second one quits at once with 130, and neither crashes nor damages
//! what was written (tools/double-sigint.py runs the double Ctrl-C 50 times each).

mod common;

use std::{
    io::{BufRead, BufReader, Read},
    path::Path,
    process::{Child, Command, ExitStatus, Stdio},
    thread::JoinHandle,
    time::{Duration, Instant},
};

/// What a crash leaves on stderr (glibc's heap checks, Rust panics, tch's dispatcher).
const CRASH_MARKERS: [&str; 4] = ["panicked", "corrupted", "Invalid (backend", "double free"];

struct Running {
    child: Child,
    /// Stderr up to the start-up line.
    log: String,
    rest: JoinHandle<String>,
}

/// Starts `fairyzero ARGS` and returns once a stderr line contains `ready`.
fn start(args: &[&str], ready: &str) -> Running {
    let mut child = common::command(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot run the fairyzero binary");
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut log = String::new();
    loop {
        let mut line = String::new();
        let n = stderr.read_line(&mut line).unwrap();
        log.push_str(&line);
        assert!(n > 0, "{args:?} ended before its start-up line:\n{log}");
        if line.contains(ready) {
            break;
        }
    }
    let rest = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    Running { child, log, rest }
}

fn signal(child: &Child, name: &str) {
    let sent = Command::new("kill").args([&format!("-{name}"), &child.id().to_string()]).status().unwrap();
    assert!(sent.success(), "kill -{name} failed");
}

/// Waits for the end (at most `limit`); returns the status, stdout, the whole stderr and the
/// time from the call.
fn finish(mut running: Running, limit: Duration) -> (ExitStatus, String, String, Duration) {
    let t0 = Instant::now();
    let status = loop {
        if let Some(status) = running.child.try_wait().unwrap() {
            break status;
        }
        if t0.elapsed() > limit {
            let _ = running.child.kill();
            panic!("still running {limit:?} after the signal:\n{}", running.log);
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let waited = t0.elapsed();
    let mut stdout = String::new();
    running.child.stdout.take().unwrap().read_to_string(&mut stdout).unwrap();
    let stderr = running.log + &running.rest.join().unwrap();
    (status, stdout, stderr, waited)
}

/// Two SIGINTs 0.1 s apart, `delay` after the start-up line: exit 130, no crash.
fn double_sigint(args: &[&str], ready: &str, delay: Duration) -> String {
    let running = start(args, ready);
    std::thread::sleep(delay);
    signal(&running.child, "INT");
    std::thread::sleep(Duration::from_millis(100));
    // The first may have ended it already; the pid cannot be reused before `finish` reaps it.
    signal(&running.child, "INT");
    let (status, _, stderr, _) = finish(running, Duration::from_secs(60));
    assert_eq!(status.code(), Some(130), "{args:?} after {delay:?}: {status:?}\n{stderr}");
    for marker in CRASH_MARKERS {
        assert!(!stderr.contains(marker), "{args:?} after {delay:?}: {marker:?} in\n{stderr}");
    }
    stderr
}

/// Files under `dir` (recursively) whose name contains `#` or ends in `.tmp`: writes that
/// were staged and never published.
fn staged_files(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                folders.push(path);
            } else if name.contains('#') || name.ends_with(".tmp") {
                found.push(path.display().to_string());
            }
        }
    }
    found
}

fn show_every_game_file(dir: &Path) -> usize {
    let mut files = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().unwrap().to_string_lossy().starts_with('.') {
            continue; // the temporary of a write that the second signal cut short
        }
        let shown = Command::new(env!("CARGO_BIN_EXE_fairyzero"))
            .arg("show-game")
            .arg(&path)
            .env_remove("LD_LIBRARY_PATH")
            .output()
            .unwrap();
        assert!(shown.status.success(), "{}: {shown:?}", path.display());
        files += 1;
    }
    files
}

/// The delays after the start-up line, spread over start-up, self-play, training and matches.
fn delays() -> impl Iterator<Item = Duration> {
    [0, 350, 700, 1050, 1400].into_iter().map(Duration::from_millis)
}

/// Double Ctrl-C on `train`, 5 times on one run directory: each exits 130 and each next start
/// resumes it without finding anything damaged. A last start, with a replay ratio that would
/// train for minutes, gets one SIGINT once it trains: it stops at the next step, exits 130
/// within seconds, says so in its summary, and leaves no staged write behind.
#[test]
fn double_sigint_on_train_exits_130_and_the_run_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("run");
    let set_run_dir = format!("run_dir={}", run_dir.display());
    // A budget that the tries never spend, however fast the machine: a finished run exits 0.
    let args = ["train", "--config", "../configs/runs/tiny.toml", "-o", &set_run_dir, "-o", "budget.games=1000000"];
    let ready = format!(" in {}", run_dir.display());
    for (i, delay) in delays().enumerate() {
        let stderr = double_sigint(&args, &ready, delay);
        assert!(i == 0 || stderr.contains("resuming"), "try {i} did not resume:\n{stderr}");
        assert!(!stderr.contains("damaged"), "try {i}:\n{stderr}");
    }
    let metrics = run_dir.join("metrics.jsonl");
    let train_lines = || std::fs::read_to_string(&metrics).unwrap_or_default().matches(r#""kind":"train""#).count();
    let before = train_lines();
    let long = [&args[..], &["-o", "iteration.samples_per_position=1000", "-o", "eval.every=0"]].concat();
    let running = start(&long, &ready);
    assert!(running.log.contains("resuming"), "{}", running.log);
    let t0 = Instant::now();
    while train_lines() == before {
        assert!(t0.elapsed() < Duration::from_secs(120), "no training step after 2 minutes");
        std::thread::sleep(Duration::from_millis(50));
    }
    signal(&running.child, "INT");
    let (status, stdout, stderr, waited) = finish(running, Duration::from_secs(30));
    assert_eq!(status.code(), Some(130), "{status:?}\n{stderr}");
    assert!(waited < Duration::from_secs(10), "{waited:?}");
    assert!(stdout.contains("interrupted (stopped on request)"), "{stdout}");
    assert!(!stderr.contains("damaged"), "{stderr}");
    assert!(!run_dir.join("damaged").exists());
    assert_eq!(staged_files(&run_dir), Vec::<String>::new());
}

/// Double Ctrl-C on `selfplay` with a torch net, 5 times into one folder: each exits 130 and
/// every record file written reads back.
#[test]
fn double_sigint_on_selfplay_exits_130_and_the_records_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("games");
    let out_arg = out.to_str().unwrap();
    let args = [
        "selfplay",
        "--config",
        "../configs/runs/selfplay-example.toml",
        "--variant",
        "gardner",
        "--net",
        "random:tiny",
        "--games",
        "100000",
        "--simulations",
        "4",
        "--out",
        out_arg,
    ];
    for delay in delays() {
        double_sigint(&args, "self-play:", delay);
    }
    if out.exists() {
        show_every_game_file(&out);
    }
}

/// SIGTERM on 256 Typhoon games at once: out within 10 s with 143; the finished games are
/// written and read back, the ones in progress are dropped, no staged file is left.
#[test]
fn sigterm_stops_a_wide_typhoon_selfplay_within_10_seconds() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("typhoon.toml");
    // A short move cap so that a first round of games ends (and is written) within seconds.
    std::fs::write(&config, "[selfplay]\nsimulations = 2\nmove_cap = 6\ngames_per_file = 64\n").unwrap();
    let out = dir.path().join("games");
    let args = [
        "selfplay",
        "--config",
        config.to_str().unwrap(),
        "--variant",
        "typhoon",
        "--net",
        "random:tiny",
        "--parallel",
        "256",
        "--games",
        "100000",
        "--out",
        out.to_str().unwrap(),
    ];
    let running = start(&args, "self-play:");
    let t0 = Instant::now();
    while !out.exists() || std::fs::read_dir(&out).unwrap().next().is_none() {
        assert!(t0.elapsed() < Duration::from_secs(120), "no record file after 2 minutes");
        std::thread::sleep(Duration::from_millis(50));
    }
    signal(&running.child, "TERM");
    let (status, stdout, stderr, waited) = finish(running, Duration::from_secs(60));
    assert_eq!(status.code(), Some(143), "{status:?}\n{stderr}");
    assert!(waited < Duration::from_secs(10), "exit {waited:?} after SIGTERM");
    assert!(stdout.contains("interrupted: the "), "{stdout}");
    let dropped = stdout.split("(stopped: ").nth(1).and_then(|s| s.split(' ').next()).unwrap_or("0");
    assert!(dropped.parse::<u32>().unwrap() > 0, "{stdout}");
    assert!(show_every_game_file(&out) >= 1);
    assert_eq!(staged_files(&out), Vec::<String>::new());
}

/// Ctrl-C on `match` ends it after the games in progress: the finished games are reported and
/// stored, and the exit status is 130.
#[test]
fn sigint_on_match_keeps_the_finished_games() {
    let s = tempfile::tempdir().unwrap();
    let run = s.path().join("run");
    // About 12 s of games (6 ms each), after about 0.3 s of drawing the 1,000 openings.
    let mut child = common::command(&["match", "alphabeta:2", "alphabeta:1", "--variant", "gardner", "--threads", "1"])
        .args(["--games", "2000", "--run"])
        .arg(&run)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot run the fairyzero binary");
    // The first stdout line comes after the handler is installed and before the first game.
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert!(first.starts_with("match: "), "{first}");
    std::thread::sleep(Duration::from_secs(3));
    signal(&child, "INT");
    let t0 = Instant::now();
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?} after the signal", t0.elapsed());
    assert_eq!(output.status.code(), Some(130), "{rest}\n{stderr}");
    let played: usize = rest
        .lines()
        .find_map(|l| l.strip_prefix("interrupted: "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no `interrupted:` line in\n{rest}"));
    assert!(played >= 1, "{rest}");
    assert!(rest.contains(&format!("stored: {played} games")), "{rest}");
    let ranked = common::fairyzero(&["rank", "--run", run.to_str().unwrap()]);
    assert!(ranked.status.success(), "{ranked:?}");
}
