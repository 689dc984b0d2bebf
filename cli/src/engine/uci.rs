//! The UCI front end of [`Engine`]: reads commands line by line, answers on the output.
//!
//! A reader thread reads the input so that `stop`, `quit` and `isready` are seen while a search
//! runs (the search runs on the calling thread and polls the stop flag between network
//! batches, or every few hundred alpha-beta nodes). Bad input never ends the engine: it answers `info string error: ...` and goes on,
//! as Stockfish does. The commands, options and the fairyzero extensions are in
//! docs/engines.md.

use std::{
    io::{BufRead, Write},
    sync::{
        atomic::{AtomicBool, Ordering},
        mpsc, Arc, Mutex,
    },
    time::Duration,
};

use fairyzero_rules::variant;

use super::{BestMove, Clock, Engine, GoLimits, Score, SearchInfo};

/// Largest `MultiPV`.
pub const MAX_MULTIPV: usize = 256;
/// Largest `Hash`, MiB (alpha-beta's table has at most 2^28 entries).
pub const MAX_HASH_MB: usize = 65_536;
/// Largest `Move Overhead`, ms.
pub const MAX_OVERHEAD_MS: u64 = 10_000;

/// Where the engine writes: one line at a time, flushed at once (a GUI waits on each line).
pub struct Output<W: Write + Send> {
    out: Mutex<W>,
}

impl<W: Write + Send> Output<W> {
    pub fn new(out: W) -> Self {
        Output { out: Mutex::new(out) }
    }

    pub fn line(&self, text: &str) {
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        // A closed pipe (the GUI went away) has nobody to tell: the next read sees EOF.
        let _ = writeln!(out, "{text}").and_then(|_| out.flush());
    }

    pub fn into_inner(self) -> W {
        self.out.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

/// The state shared with the reader thread.
///
/// The reader may be several commands ahead of the search (a script, a fast GUI), so a `stop`
/// applies to the `go` commands forwarded before it, not to those after: `go` commands are
/// numbered, `stop` records the last number it covers, and each search starts with its flag set
/// from that record. One lock covers the record and the flag, so that a `stop` is never lost
/// between the two.
struct Shared {
    counts: Mutex<Counts>,
    /// The running search's stop flag (shared with the alpha-beta player, which reads it).
    stop: Arc<AtomicBool>,
}

#[derive(Default)]
struct Counts {
    /// `go` commands forwarded by the reader.
    sent: u64,
    /// Searches that have answered `bestmove`.
    done: u64,
    /// The last `go` that a `stop` (or `quit`, or the end of the input) covers.
    stopped: u64,
}

impl Shared {
    fn counts(&self) -> std::sync::MutexGuard<'_, Counts> {
        self.counts.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stops every `go` forwarded so far (`all`: and every later one).
    fn stop(&self, all: bool) {
        let mut c = self.counts();
        c.stopped = if all { u64::MAX } else { c.sent };
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// Runs the UCI loop until `quit` or the end of the input.
pub fn run<R, W>(engine: &mut Engine<'_>, input: R, out: Arc<Output<W>>)
where
    R: BufRead + Send + 'static,
    W: Write + Send + 'static,
{
    let shared = Arc::new(Shared { counts: Mutex::default(), stop: Arc::new(AtomicBool::new(false)) });
    let (tx, rx) = mpsc::channel::<String>();
    {
        let shared = Arc::clone(&shared);
        let out = Arc::clone(&out);
        std::thread::spawn(move || read_input(input, &tx, &shared, &out));
    }
    let mut session = Session { engine, shared, out, gos: 0 };
    while let Ok(line) = rx.recv() {
        if !session.command(&line) {
            break;
        }
    }
}

/// The reader thread: forwards every line, and acts at once on those that cannot wait for a
/// search to end.
fn read_input<R: BufRead, W: Write + Send>(input: R, tx: &mpsc::Sender<String>, shared: &Shared, out: &Output<W>) {
    for line in input.lines() {
        let Ok(line) = line else { break };
        let first = line.split_whitespace().next().unwrap_or("");
        match first {
            "stop" => shared.stop(false),
            "quit" => {
                shared.stop(true);
                let _ = tx.send(line);
                return;
            }
            "go" => shared.counts().sent += 1,
            // While a search runs the main thread cannot answer: answer here.
            "isready" => {
                let c = shared.counts();
                if c.sent > c.done {
                    out.line("readyok");
                    continue;
                }
            }
            _ => {}
        }
        if tx.send(line).is_err() {
            return;
        }
    }
    // End of input: as `quit`, after a running search has been stopped.
    shared.stop(true);
    let _ = tx.send("quit".into());
}

struct Session<'e, 'r, W: Write + Send> {
    engine: &'e mut Engine<'r>,
    shared: Arc<Shared>,
    out: Arc<Output<W>>,
    /// `go` commands handled.
    gos: u64,
}

impl<W: Write + Send> Session<'_, '_, W> {
    fn error(&self, message: impl std::fmt::Display) {
        self.out.line(&format!("info string error: {message}"));
    }

    /// Handles one line; false on `quit`.
    fn command(&mut self, line: &str) -> bool {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let Some((&first, args)) = tokens.split_first() else { return true };
        match first {
            "uci" => self.uci(),
            "isready" => self.out.line("readyok"),
            "ucinewgame" => self.engine.new_game(),
            "setoption" => self.setoption(args),
            "position" => self.position(args),
            "go" => self.go(args),
            // Nothing to stop: `stop` only matters during a search (the reader sets the flag).
            "stop" | "ponderhit" => {}
            "quit" => return false,
            "debug" | "register" => {}
            _ => self.error(format_args!(
                "unknown command {first:?} (commands: uci, isready, ucinewgame, setoption, position, go, stop, quit)"
            )),
        }
        true
    }

    fn uci(&self) {
        let e = &self.engine;
        self.out.line(&format!("id name fairyzero {}", env!("CARGO_PKG_VERSION")));
        self.out.line("id author the fairyzero authors");
        let mut names: Vec<&str> = variant::builtin_names().collect();
        let current = e.variant().name.as_str();
        if !names.contains(&current) {
            names.push(current);
        }
        let vars: String = names.iter().map(|n| format!(" var {n}")).collect();
        self.out.line(&format!("option name UCI_Variant type combo default {current}{vars}"));
        if e.is_net() {
            self.out.line(&format!(
                "option name Threads type spin default {} min 1 max {}",
                e.options().threads,
                crate::limits::MAX_THREADS
            ));
            self.out.line(&format!("option name MultiPV type spin default 1 min 1 max {MAX_MULTIPV}"));
            self.out.line("option name UCI_ShowWDL type check default false");
        } else {
            self.out
                .line(&format!("option name Hash type spin default {} min 1 max {MAX_HASH_MB}", e.options().hash_mb));
        }
        self.out.line(&format!(
            "option name Move Overhead type spin default {} min 0 max {MAX_OVERHEAD_MS}",
            e.options().move_overhead.as_millis()
        ));
        self.out.line("uciok");
    }

    fn setoption(&mut self, args: &[&str]) {
        // setoption name <name words> [value <value words>]
        if args.first() != Some(&"name") {
            return self.error("setoption: expected `setoption name NAME [value VALUE]`");
        }
        let value_at = args.iter().position(|t| *t == "value");
        let name = args[1..value_at.unwrap_or(args.len())].join(" ");
        let value = value_at.map(|i| args[i + 1..].join(" ")).unwrap_or_default();
        let number = |max: u64| -> Result<u64, String> {
            value
                .parse::<u64>()
                .ok()
                .filter(|v| *v <= max)
                .ok_or_else(|| format!("setoption {name}: value {value:?} is not a whole number from 0 to {max}"))
        };
        let lower = name.to_ascii_lowercase();
        let net = self.engine.is_net();
        let result: Result<(), String> = match lower.as_str() {
            "uci_variant" => {
                self.engine.set_variant(&value).map_err(|e| format!("setoption UCI_Variant: {}", chain(&e)))
            }
            "multipv" if net => number(MAX_MULTIPV as u64).and_then(|v| {
                if v == 0 {
                    return Err("setoption MultiPV: at least 1".into());
                }
                self.engine.options_mut().multipv = v as usize;
                Ok(())
            }),
            "threads" if net => number(crate::limits::MAX_THREADS).and_then(|v| {
                if v == 0 {
                    return Err("setoption Threads: at least 1".into());
                }
                self.engine.set_threads(v as usize).map_err(|e| format!("setoption Threads: {}", chain(&e)))
            }),
            "hash" if !net => number(MAX_HASH_MB as u64).and_then(|v| {
                if v == 0 {
                    return Err("setoption Hash: at least 1 MiB".into());
                }
                self.engine.set_hash_mb(v as usize);
                Ok(())
            }),
            "uci_showwdl" if net => match value.to_ascii_lowercase().as_str() {
                v @ ("true" | "false") => {
                    self.engine.options_mut().show_wdl = v == "true";
                    Ok(())
                }
                _ => Err(format!("setoption UCI_ShowWDL: value {value:?} is not true or false")),
            },
            "move overhead" => number(MAX_OVERHEAD_MS).map(|v| {
                self.engine.options_mut().move_overhead = Duration::from_millis(v);
            }),
            // GUIs send these to every engine; fairyzero does not ponder nor analyse differently.
            "ponder" | "uci_analysemode" => Ok(()),
            _ => Err(format!("setoption: no option {name:?} (see the `uci` answer for this engine's options)")),
        };
        if let Err(message) = result {
            self.error(message);
        }
    }

    fn position(&mut self, args: &[&str]) {
        let moves_at = args.iter().position(|t| *t == "moves");
        let (head, moves) = match moves_at {
            Some(i) => (&args[..i], &args[i + 1..]),
            None => (args, &[][..]),
        };
        let fen = match head.split_first() {
            Some((&"startpos", [])) => None,
            Some((&"fen", fields)) if !fields.is_empty() => Some(fields.join(" ")),
            _ => return self.error("position: expected `position startpos|fen FEN [moves M1 M2 ...]`"),
        };
        if let Err(e) = self.engine.set_position(fen.as_deref(), moves) {
            self.error(format_args!("position: {}", chain(&e)));
        }
    }

    fn go(&mut self, args: &[&str]) {
        let (limits, errors) = parse_go(args);
        for e in errors {
            self.error(e);
        }
        self.gos += 1;
        {
            let c = self.shared.counts();
            self.shared.stop.store(c.stopped >= self.gos, Ordering::SeqCst);
        }
        let out = Arc::clone(&self.out);
        let stop = &self.shared.stop;
        let best = self.engine.go(&limits, stop, &mut |info| {
            for line in info_lines(info) {
                out.line(&line);
            }
        });
        self.bestmove(&best);
        self.shared.counts().done = self.gos;
    }

    fn bestmove(&self, best: &BestMove) {
        if let Some(reason) = &best.game_over {
            self.out.line(&format!("info string {reason}"));
        }
        match (&best.best, &best.ponder) {
            (Some(b), Some(p)) => self.out.line(&format!("bestmove {b} ponder {p}")),
            (Some(b), None) => self.out.line(&format!("bestmove {b}")),
            (None, _) => self.out.line("bestmove (none)"),
        }
    }
}

/// An error and its causes on one line.
fn chain(e: &anyhow::Error) -> String {
    e.chain().map(|c| c.to_string()).collect::<Vec<_>>().join(": ")
}

/// `go`'s arguments; unknown or malformed ones are reported and skipped (the search still
/// runs: a GUI waits for its `bestmove`).
pub fn parse_go(args: &[&str]) -> (GoLimits, Vec<String>) {
    let mut limits = GoLimits::default();
    let mut clock = Clock::default();
    let mut has_clock = false;
    let mut errors = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let key = args[i];
        let takes_value =
            ["wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "movetime", "mate"].contains(&key);
        if !takes_value {
            match key {
                "infinite" => limits.infinite = true,
                "ponder" => errors.push("go ponder: pondering is not supported; searching as `go infinite`".into()),
                "searchmoves" => {
                    errors.push("go searchmoves: not supported; searching every move".into());
                    // Skip the move list.
                    while i + 1 < args.len() && !is_go_keyword(args[i + 1]) {
                        i += 1;
                    }
                }
                _ => errors.push(format!("go: unknown parameter {key:?}")),
            }
            if key == "ponder" {
                limits.infinite = true;
            }
            i += 1;
            continue;
        }
        let Some(text) = args.get(i + 1) else {
            errors.push(format!("go {key}: missing value"));
            break;
        };
        i += 2;
        // Clocks may be negative (a GUI's late report): read as 0.
        let Ok(v) = text.parse::<i64>() else {
            errors.push(format!("go {key}: {text:?} is not a whole number"));
            continue;
        };
        let ms = Duration::from_millis(v.max(0) as u64);
        match key {
            "wtime" => (clock.time[0], has_clock) = (Some(ms), true),
            "btime" => (clock.time[1], has_clock) = (Some(ms), true),
            "winc" => clock.inc[0] = ms,
            "binc" => clock.inc[1] = ms,
            "movestogo" => clock.moves_to_go = Some(v.clamp(1, i64::from(u32::MAX)) as u32),
            "depth" => limits.depth = Some(v.clamp(1, 64) as u32),
            "nodes" => limits.nodes = Some(v.max(1) as u64),
            "movetime" => limits.movetime = Some(ms),
            "mate" => {
                errors.push("go mate: not supported; searching as `go depth` of twice as many plies".into());
                limits.depth = Some((2 * v).clamp(1, 64) as u32);
            }
            _ => unreachable!("listed above"),
        }
    }
    if has_clock {
        limits.clock = Some(clock);
    }
    (limits, errors)
}

fn is_go_keyword(t: &str) -> bool {
    ["wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "movetime", "mate", "infinite", "ponder"]
        .contains(&t)
}

/// The `info` lines of a report: one per MultiPV line (with `multipv N` when there are several).
pub fn info_lines(info: &SearchInfo) -> Vec<String> {
    let several = info.lines.len() > 1;
    info.lines
        .iter()
        .enumerate()
        .map(|(k, line)| {
            let mut s = format!("info depth {}", info.depth);
            if let Some(sd) = info.seldepth {
                s.push_str(&format!(" seldepth {sd}"));
            }
            if several {
                s.push_str(&format!(" multipv {}", k + 1));
            }
            match line.score {
                Score::Cp(cp) => s.push_str(&format!(" score cp {cp}")),
                Score::Mate(m) => s.push_str(&format!(" score mate {m}")),
            }
            if let Some([w, d, l]) = line.wdl {
                s.push_str(&format!(" wdl {w} {d} {l}"));
            }
            s.push_str(&format!(
                " nodes {} nps {} time {} pv {}",
                info.nodes,
                info.nps(),
                info.elapsed.as_millis(),
                line.pv.join(" ")
            ));
            s
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::PvLine;

    #[test]
    fn go_reads_every_limit() {
        let (l, errors) = parse_go(&["wtime", "1000", "btime", "-5", "winc", "10", "binc", "20", "movestogo", "7"]);
        assert!(errors.is_empty(), "{errors:?}");
        let c = l.clock.unwrap();
        assert_eq!(c.time, [Some(Duration::from_millis(1000)), Some(Duration::ZERO)]);
        assert_eq!(c.inc, [Duration::from_millis(10), Duration::from_millis(20)]);
        assert_eq!(c.moves_to_go, Some(7));
        let (l, errors) = parse_go(&["depth", "3", "nodes", "400", "movetime", "50", "infinite"]);
        assert!(errors.is_empty());
        assert_eq!(
            (l.depth, l.nodes, l.movetime, l.infinite),
            (Some(3), Some(400), Some(Duration::from_millis(50)), true)
        );
    }

    #[test]
    fn go_reports_bad_parameters_and_keeps_the_rest() {
        let (l, errors) = parse_go(&["nodes", "x", "depth", "2", "sideways", "movetime"]);
        assert_eq!(l.depth, Some(2));
        assert_eq!(l.nodes, None);
        assert_eq!(errors.len(), 3, "{errors:?}");
        assert!(errors[0].contains("\"x\" is not a whole number"));
        assert!(errors[1].contains("unknown parameter \"sideways\""));
        assert!(errors[2].contains("movetime: missing value"));
    }

    #[test]
    fn info_lines_carry_multipv_only_with_several_lines() {
        let line = |cp, pv: &[&str]| PvLine {
            score: Score::Cp(cp),
            pv: pv.iter().map(|s| s.to_string()).collect(),
            wdl: None,
        };
        let mut info = SearchInfo {
            depth: 3,
            seldepth: Some(7),
            nodes: 2000,
            elapsed: Duration::from_millis(500),
            lines: vec![line(25, &["e2e4", "e7e5"])],
        };
        assert_eq!(
            info_lines(&info),
            ["info depth 3 seldepth 7 score cp 25 nodes 2000 nps 4000 time 500 pv e2e4 e7e5"]
        );
        info.lines.push(PvLine { score: Score::Mate(-2), ..line(0, &["a2a3"]) });
        info.lines[0].wdl = Some([500, 300, 200]);
        assert_eq!(
            info_lines(&info),
            [
                "info depth 3 seldepth 7 multipv 1 score cp 25 wdl 500 300 200 nodes 2000 nps 4000 time 500 pv e2e4 e7e5",
                "info depth 3 seldepth 7 multipv 2 score mate -2 nodes 2000 nps 4000 time 500 pv a2a3",
            ]
        );
    }
}
