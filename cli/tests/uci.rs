//! `fairyzero uci` through the real binary: scripted sessions checked line by line, `stop`
//! during `go infinite`, bad input answered by `info string` while the engine goes on, a setup
//! phase in the extension notation, the MCTS path with a `random:` net, and python-chess's
//! `chess.engine` playing chess and antichess against it (tools/uci_python_chess.py).

mod common;

use std::time::{Duration, Instant};

use common::{fairyzero, legal_moves, stdout, EngineProcess};

/// Starts `fairyzero uci ARGS`.
fn start_uci(args: &[&str]) -> EngineProcess {
    let mut all = vec!["uci"];
    all.extend_from_slice(args);
    EngineProcess::start(&all)
}

/// The UCI exchanges the tests repeat.
trait Uci {
    fn ready(&mut self);
    fn expect_error(&mut self, line: &str, needle: &str);
}

impl Uci for EngineProcess {
    /// `isready` answered by `readyok` and nothing else.
    fn ready(&mut self) {
        self.send("isready");
        let line = self.next(Duration::from_secs(20));
        assert_eq!(line, "readyok", "session:\n{}", self.session());
    }

    /// Sends `line` and expects exactly one `info string error: ...` that contains `needle`.
    fn expect_error(&mut self, line: &str, needle: &str) {
        self.send(line);
        let got = self.next(Duration::from_secs(10));
        assert!(
            got.starts_with("info string error: ") && got.contains(needle),
            "{line:?}: expected an error naming {needle:?}, got {got:?}"
        );
        self.ready();
    }
}

/// `info depth D [seldepth S] [multipv K] score cp|mate N [wdl W D L] nodes N nps N time T pv M...`:
/// the fields in that order, numbers where numbers belong. Returns the PV.
fn check_info(line: &str) -> Vec<String> {
    let t: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(t[0], "info", "{line}");
    let mut i = 1;
    let number = |key: &str, i: &mut usize, optional: bool| -> Option<i64> {
        if t.get(*i) != Some(&key) {
            assert!(optional, "{line}: expected {key} at field {i}");
            return None;
        }
        let v = t.get(*i + 1).and_then(|v| v.parse::<i64>().ok());
        assert!(v.is_some(), "{line}: {key} without a number");
        *i += 2;
        v
    };
    assert!(number("depth", &mut i, false).unwrap() >= 1, "{line}");
    number("seldepth", &mut i, true);
    number("multipv", &mut i, true);
    assert_eq!(t[i], "score", "{line}");
    assert!(["cp", "mate"].contains(&t[i + 1]), "{line}");
    t[i + 2].parse::<i64>().unwrap_or_else(|_| panic!("{line}: score not a number"));
    i += 3;
    if t[i] == "wdl" {
        let wdl: i64 = t[i + 1..i + 4].iter().map(|v| v.parse::<i64>().unwrap()).sum();
        assert_eq!(wdl, 1000, "{line}");
        i += 4;
    }
    for key in ["nodes", "nps", "time"] {
        number(key, &mut i, false);
    }
    assert_eq!(t[i], "pv", "{line}");
    let pv: Vec<String> = t[i + 1..].iter().map(|s| s.to_string()).collect();
    assert!(!pv.is_empty(), "{line}: empty pv");
    pv
}

#[test]
fn alpha_beta_session_line_by_line() {
    let mut e = start_uci(&["--player", "alphabeta:3"]);
    e.send("uci");
    let lines = e.until("uciok", Duration::from_secs(10));
    assert!(lines[0].starts_with("id name fairyzero "), "{lines:?}");
    assert!(lines[1].starts_with("id author "), "{lines:?}");
    let variants = &lines[2];
    assert!(
        variants.starts_with("option name UCI_Variant type combo default chess var chess var capablanca"),
        "{variants}"
    );
    let listed = legal_moves(&["--variant", "chess"]).len();
    assert_eq!(listed, 20);
    let out = fairyzero(&["variants"]);
    let listing = stdout(&out);
    let mut lines_out = listing.lines();
    assert!(lines_out.next().is_some_and(|h| h.starts_with("name ")), "a header first: {listing}");
    for name in lines_out.filter_map(|l| l.split_whitespace().next()) {
        assert!(variants.contains(&format!(" var {name}")), "{name} missing from {variants}");
    }
    assert_eq!(lines[3], "option name Hash type spin default 16 min 1 max 65536");
    assert_eq!(lines[4], "option name Move Overhead type spin default 30 min 0 max 10000");
    assert_eq!(lines[5], "uciok");
    assert_eq!(lines.len(), 6, "{lines:?}");
    e.ready();
    e.send("setoption name Hash value 4");
    e.send("ucinewgame");
    e.ready();

    e.send("position startpos moves e2e4 e7e5 g1f3");
    e.send("go depth 3");
    let lines = e.until("bestmove", Duration::from_secs(30));
    let (bestmove, infos) = lines.split_last().unwrap();
    assert!(!infos.is_empty(), "no info before {bestmove}");
    let mut last_depth = 0;
    for info in infos {
        let pv = check_info(info);
        let depth: u32 = info.split_whitespace().nth(2).unwrap().parse().unwrap();
        assert!(depth > last_depth && depth <= 3, "depths must grow up to 3: {infos:?}");
        last_depth = depth;
        assert!(!pv.is_empty());
    }
    assert_eq!(last_depth, 3, "{infos:?}");
    let best = bestmove.strip_prefix("bestmove ").expect(bestmove);
    let legal = legal_moves(&["--variant", "chess", "--moves", "e2e4,e7e5,g1f3"]);
    assert!(legal.contains(&best.to_string()), "{best} not legal: {legal:?}");
    assert_eq!(check_info(infos.last().unwrap())[0], best, "the last pv starts with the best move");

    // A mate in one is a mate score.
    e.send("position fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1");
    e.send("go depth 2");
    let lines = e.until("bestmove", Duration::from_secs(30));
    assert_eq!(lines.last().unwrap(), "bestmove a1a8", "{lines:?}");
    assert!(lines[lines.len() - 2].contains(" score mate 1 "), "{lines:?}");

    // The game is over: no move, and the reason.
    e.send("position fen R5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 1 1");
    e.send("go depth 2");
    let lines = e.until("bestmove", Duration::from_secs(10));
    assert_eq!(lines, ["info string the game is over: Blue wins (checkmate)", "bestmove (none)"]);

    // A clock: the move comes within its budget (1 s / 30 here).
    e.send("position startpos");
    let started = Instant::now();
    e.send("go wtime 1000 btime 1000 winc 0 binc 0");
    let lines = e.until("bestmove", Duration::from_secs(10));
    assert!(started.elapsed() < Duration::from_millis(900), "{:?} for a 33 ms budget", started.elapsed());
    assert!(legal_moves(&["--variant", "chess"]).contains(&lines.last().unwrap()[9..].to_string()), "{lines:?}");
    e.quit();
}

#[test]
fn stop_ends_an_infinite_search_at_once() {
    let mut e = start_uci(&["--player", "alphabeta:3", "--variant", "capablanca"]);
    e.send("position startpos");
    e.send("go infinite");
    // Searching: `isready` is still answered at once, and no bestmove comes before `stop`.
    std::thread::sleep(Duration::from_millis(300));
    e.send("isready");
    let lines = e.until("readyok", Duration::from_secs(2));
    assert!(lines.iter().all(|l| l == "readyok" || l.starts_with("info depth ")), "{lines:?}");
    std::thread::sleep(Duration::from_millis(200));
    let stopped = Instant::now();
    e.send("stop");
    let lines = e.until("bestmove", Duration::from_secs(5));
    let latency = stopped.elapsed();
    assert!(latency < Duration::from_millis(500), "bestmove {latency:?} after stop");
    let best = &lines.last().unwrap()["bestmove ".len()..];
    assert!(legal_moves(&["--variant", "capablanca"]).contains(&best.to_string()), "{lines:?}");
    // A `stop` with nothing to stop is ignored, and the next search is not stopped by it.
    e.send("stop");
    e.send("go depth 2");
    let lines = e.until("bestmove", Duration::from_secs(20));
    assert!(lines.iter().any(|l| l.starts_with("info depth 2 ")), "{lines:?}");
    e.quit();
}

#[test]
fn bad_input_is_reported_and_the_engine_goes_on() {
    let mut e = start_uci(&["--player", "alphabeta:2", "--variant", "losalamos"]);
    e.expect_error("frobnicate now", "unknown command \"frobnicate\"");
    e.expect_error("position fen rnqknr/pppppp/6/6/PPPPPP/RNQKNX w - - 0 1", "unknown piece token");
    e.expect_error("position startpos moves a2a3 a7a5", "move 2 (a7a5)");
    e.expect_error("position", "expected `position startpos|fen FEN");
    e.expect_error("setoption name UCI_Variant value nosuchchess", "unknown variant \"nosuchchess\"");
    e.expect_error("setoption name Hash value lots", "setoption Hash: value \"lots\"");
    e.expect_error("setoption name MultiPV value 3", "no option \"MultiPV\"");
    e.expect_error("setoption value 3", "expected `setoption name NAME");
    // The variant is still Los Alamos, and the position the bad move list left: after a2a3.
    e.send("go depth 1 sideways");
    let lines = e.until("bestmove", Duration::from_secs(10));
    assert!(lines[0].starts_with("info string error: go: unknown parameter \"sideways\""), "{lines:?}");
    let best = &lines.last().unwrap()["bestmove ".len()..];
    let legal = legal_moves(&["--variant", "losalamos", "--moves", "a2a3"]);
    assert!(legal.contains(&best.to_string()), "{best} not legal after a2a3: {lines:?}");
    e.quit();
}

/// Scirocco starts with its setup phase: `position startpos` is that phase, and the setup plies
/// are moves in the project's notation (the fairyzero extension of docs/engines.md).
#[test]
fn setup_phase_through_the_extension_notation() {
    let mut e = start_uci(&["--player", "alphabeta:1"]);
    e.send("setoption name UCI_Variant value scirocco");
    e.send("position startpos");
    e.send("go depth 1");
    let lines = e.until("bestmove", Duration::from_secs(30));
    let first = lines.last().unwrap()["bestmove ".len()..].to_string();
    let legal = legal_moves(&["--variant", "scirocco", "--setup", "phase"]);
    assert!(legal.contains(&first), "{first} is not a setup ply: {legal:?}");
    // The reply to that ply, after it.
    e.send(&format!("position startpos moves {first}"));
    e.send("go depth 1");
    let lines = e.until("bestmove", Duration::from_secs(30));
    let second = lines.last().unwrap()["bestmove ".len()..].to_string();
    let legal = legal_moves(&["--variant", "scirocco", "--setup", "phase", "--moves", &first]);
    assert!(legal.contains(&second), "{second} is not a legal reply to {first}: {legal:?}");
    e.quit();
}

/// The MCTS path: an untrained tiny net, MultiPV and WDL, a node limit, `stop` of `go infinite`.
#[test]
fn net_session_with_multipv_and_wdl() {
    let mut e = start_uci(&["--net", "random:tiny@16", "--variant", "gardner", "--search", "puct"]);
    e.send("uci");
    let lines = e.until("uciok", Duration::from_secs(60));
    for option in [
        "option name Threads type spin default 1 min 1 max 1024",
        "option name MultiPV type spin default 1 min 1 max 256",
        "option name UCI_ShowWDL type check default false",
    ] {
        assert!(lines.iter().any(|l| l == option), "{option} missing: {lines:?}");
    }
    assert!(!lines.iter().any(|l| l.starts_with("option name Hash")), "a net has no Hash: {lines:?}");
    e.send("setoption name MultiPV value 3");
    e.send("setoption name UCI_ShowWDL value true");
    e.ready();
    e.send("position startpos");
    e.send("go nodes 64");
    let lines = e.until("bestmove", Duration::from_secs(60));
    let last: Vec<&String> = lines.iter().rev().skip(1).take(3).collect();
    for (k, line) in last.iter().rev().enumerate() {
        check_info(line);
        assert!(line.contains(&format!(" multipv {} ", k + 1)), "{lines:?}");
        assert!(line.contains(" seldepth ") && line.contains(" wdl "), "{line}");
        // A time-sliced chunk may end mid-batch: the count reaches 64, give or take one batch.
        let nodes: u64 = line.split(" nodes ").nth(1).and_then(|r| r.split(' ').next()).unwrap().parse().unwrap();
        assert!((64..=64 + 16).contains(&nodes), "{line}");
    }
    let best = lines.last().unwrap().strip_prefix("bestmove ").unwrap().split(' ').next().unwrap();
    assert_eq!(check_info(last[2])[0], best, "multipv 1 is the move played: {lines:?}");
    assert!(legal_moves(&["--variant", "gardner"]).contains(&best.to_string()));

    e.send("setoption name MultiPV value 1");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(400));
    let stopped = Instant::now();
    e.send("stop");
    let lines = e.until("bestmove", Duration::from_secs(10));
    assert!(stopped.elapsed() < Duration::from_secs(1), "bestmove {:?} after stop", stopped.elapsed());
    assert!(!lines.iter().any(|l| l.contains(" multipv ")), "{lines:?}");
    e.quit();
}

/// python-chess's `chess.engine` plays chess and antichess against `fairyzero uci`.
#[test]
fn python_chess_drives_the_engine() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../tools/uci_python_chess.py");
    let out = std::process::Command::new("python3")
        .args([script, "--plies", "12", "--", common::FAIRYZERO, "uci", "--player", "alphabeta:2"])
        .output();
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let out = match out {
        Ok(out) => out,
        Err(e) if !ci => return eprintln!("SKIPPED python_chess_drives_the_engine: no python3 ({e})"),
        Err(e) => panic!("python3 is needed under CI=true: {e}"),
    };
    if out.status.code() == Some(3) {
        let why = String::from_utf8_lossy(&out.stderr);
        assert!(!ci, "python-chess is needed under CI=true: {why}");
        return eprintln!("SKIPPED python_chess_drives_the_engine: {why}(pip install chess)");
    }
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", common::stderr(&out));
    assert!(text.lines().any(|l| l.starts_with("antichess: ")), "{text}");
    assert_eq!(text.lines().last(), Some("ok"), "{text}");
}
