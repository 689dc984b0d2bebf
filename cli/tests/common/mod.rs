//! What the tests that run the real `fairyzero` binary share. They run it as a user would:
//! without `LD_LIBRARY_PATH` (the helper must find libtorch through its RUNPATH) and without
//! the variables that change its output (`RUST_LOG`, `NO_COLOR`).

// Each test binary uses a part of this module.
#![allow(dead_code)]

use std::{
    io::{BufRead, BufReader, Write},
    path::PathBuf,
    process::{Child, ChildStdin, ChildStdout, Command, Output, Stdio},
    sync::mpsc,
    time::{Duration, Instant},
};

/// A child's stdout, line by line, read on a thread of its own (so that a test can wait for a
/// line with a timeout).
pub fn stdout_lines(out: ChildStdout) -> mpsc::Receiver<String> {
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    lines
}

/// The lean `fairyzero` binary under test.
pub const FAIRYZERO: &str = env!("CARGO_BIN_EXE_fairyzero");

/// The Debian package's Fairy-Stockfish, which the external-engine tests play.
pub const FAIRY_STOCKFISH: &str = "/usr/games/fairy-stockfish";

/// Fairy-Stockfish, or `None` (with a message naming `what` is skipped) where it is not
/// installed; under `CI=true` a missing engine is a failure, never a skip.
pub fn fairy_stockfish(what: &str) -> Option<&'static str> {
    if std::path::Path::new(FAIRY_STOCKFISH).is_file() {
        return Some(FAIRY_STOCKFISH);
    }
    let message = format!(
        "{FAIRY_STOCKFISH} is missing (Debian package fairy-stockfish; `make test` installs it): {what} is SKIPPED"
    );
    assert!(std::env::var("CI").map_or(true, |v| v != "true"), "{message} — but CI=true, where it must run");
    eprintln!("{message}");
    None
}

/// Debian's Chromium, which the HTML viewer tests run headless.
pub const CHROMIUM: &str = "/usr/bin/chromium";

/// Chromium, or `None` (with a message naming `what` is skipped) where it is not installed;
/// under `CI=true` a missing browser is a failure, never a skip.
pub fn chromium(what: &str) -> Option<&'static str> {
    if std::path::Path::new(CHROMIUM).is_file() {
        return Some(CHROMIUM);
    }
    let message =
        format!("{CHROMIUM} is missing (Debian package chromium; `make test` installs it): {what} is SKIPPED");
    assert!(std::env::var("CI").map_or(true, |v| v != "true"), "{message} — but CI=true, where it must run");
    eprintln!("{message}");
    None
}

/// The DOM of a local page after its scripts ran, from headless Chromium (`--dump-dom`). The
/// flags keep it off the network (this machine has none) and out of the user's profile.
pub fn rendered_dom(chromium: &str, url: &str, profile: &std::path::Path) -> String {
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--virtual-time-budget=5000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(url)
        .output()
        .expect("cannot run chromium");
    assert!(out.status.success(), "chromium failed on {url}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `fairyzero-torch`, which `fairyzero` runs for the commands that need a network: next to it.
/// Another package builds it (torch-cli), so cargo does not build it for these tests: stop with
/// a clear message rather than with "needs libtorch" errors in every network test.
pub fn helper() -> PathBuf {
    let path = PathBuf::from(FAIRYZERO).with_file_name("fairyzero-torch");
    assert!(
        path.is_file(),
        "{} is missing: the cli tests run it through `fairyzero` for every command that needs a network; \
         build it first with `cargo build --bins` (`make test` does)",
        path.display()
    );
    path
}

/// `fairyzero ARGS`, run from the cli crate's folder (paths like `../configs/...`).
pub fn command(args: &[&str]) -> Command {
    helper();
    let mut command = Command::new(FAIRYZERO);
    command
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("LD_LIBRARY_PATH")
        .env_remove("RUST_LOG")
        .env_remove("NO_COLOR");
    command
}

/// Runs `fairyzero ARGS` to the end.
pub fn fairyzero(args: &[&str]) -> Output {
    command(args).output().expect("cannot run the fairyzero binary")
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The legal moves of a position, as `fairyzero moves ARGS` prints them (fairyzero's coordinates).
pub fn legal_moves(args: &[&str]) -> Vec<String> {
    let mut all = vec!["moves"];
    all.extend_from_slice(args);
    let out = fairyzero(&all);
    assert!(out.status.success(), "fairyzero {all:?}: {}", stderr(&out));
    stdout(&out).lines().map(str::to_string).collect()
}

/// A running line-based engine (`fairyzero uci`, `fairyzero xboard`): lines go in, lines come
/// back through a reader thread, so a test can wait for a line with a timeout instead of
/// hanging on a blocked read. The protocols' own exchanges live in their test files.
pub struct EngineProcess {
    /// `fairyzero uci`, ...: names the engine in failure messages.
    name: String,
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
    /// Everything sent (`> line`) and read so far, for failure messages.
    transcript: Vec<String>,
}

impl EngineProcess {
    /// Starts `fairyzero ARGS` with piped stdin and stdout; its stderr goes to the test's.
    pub fn start(args: &[&str]) -> EngineProcess {
        let name = format!("fairyzero {}", args.join(" "));
        let mut child = command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
        let stdin = child.stdin.take().unwrap();
        let lines = stdout_lines(child.stdout.take().unwrap());
        EngineProcess { name, child, stdin, lines, transcript: Vec::new() }
    }

    pub fn send(&mut self, line: &str) {
        self.transcript.push(format!("> {line}"));
        writeln!(self.stdin, "{line}").expect("engine stdin closed");
        self.stdin.flush().unwrap();
    }

    /// The next line, within `timeout`.
    pub fn next(&mut self, timeout: Duration) -> String {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => {
                self.transcript.push(line.clone());
                line
            }
            Err(e) => panic!("no line from the engine within {timeout:?} ({e}); session:\n{}", self.session()),
        }
    }

    /// Lines up to and including the first that starts with `prefix`, all within `timeout`.
    pub fn until(&mut self, prefix: &str, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut got = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now()).max(Duration::from_millis(1));
            let line = self.next(left);
            let done = line.starts_with(prefix);
            got.push(line);
            if done {
                return got;
            }
        }
    }

    /// The session so far, one line each, for failure messages.
    pub fn session(&self) -> String {
        self.transcript.join("\n")
    }

    /// Sends `quit` and expects the engine to exit successfully within ten seconds.
    pub fn quit(mut self) {
        self.send("quit");
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "{} exited with {status}", self.name);
                return;
            }
            assert!(Instant::now() < deadline, "{} did not exit on quit", self.name);
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for EngineProcess {
    /// A failed test must not leave the engine running.
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
