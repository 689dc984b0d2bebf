//! External engines as players: a UCI engine (Fairy-Stockfish, or any other) run as a child
//! process, spoken to over its stdin and stdout (docs/engines-external.md).
//!
//! # The conversation
//!
//! Before a match (when the [`Contestant`](crate::Contestant) is made, so that a bad engine or an
//! unknown variant stops the command before its first game): `uci` → `uciok` (the engine's
//! options, among them the `UCI_Variant` combo listing the variants it knows), a `setoption` for
//! every option of the spec (an option the engine does not list is refused: engines ignore
//! unknown options, silently), `uci` again when options were set (a `VariantPath` adds variants
//! to the combo), then the variant check, `setoption name UCI_Variant value NAME` and `isready` →
//! `readyok`. The check matters: Fairy-Stockfish falls back to chess, silently, on a variant
//! name it does not know.
//!
//! Per game: `ucinewgame`, `isready` → `readyok`. Per move: `position fen ROOT moves ...` (the
//! game's first position after any setup phase, with every move since, so that the engine knows
//! the repetition history) and `go` with the spec's limits; the `bestmove` is read with the
//! variant's move notation and must be one of the legal moves.
//!
//! # Failures
//!
//! A game is forfeited by the engine's side, with a reason, when the engine does not answer in
//! time (it is killed), exits or closes its pipes (a crash), or answers a move that cannot be
//! read or is not legal. The engine is started again for the next game; the match goes on.
//! Whatever the engine writes to stderr is logged line by line (target `fairyzero::engine`,
//! level info) and its last lines are quoted in the reason of a forfeit.
//!
//! Engines are reused from game to game (a pool per contestant, `ucinewgame` between games):
//! starting Fairy-Stockfish and loading a `VariantPath` for every game would cost more than a
//! shallow game.

use std::{
    collections::VecDeque,
    fmt,
    io::{self, BufRead, BufReader},
    os::{fd::OwnedFd, unix::net::UnixStream},
    path::PathBuf,
    process::{Child, Command, Stdio},
    sync::{
        mpsc::{self, Receiver, RecvTimeoutError},
        Arc, Mutex, PoisonError,
    },
    time::{Duration, Instant},
};

use fairyzero_rules::{Move, Position, Square, Variant};
use rand::RngCore;

use crate::player::{GameContext, Player};

/// How long an engine may take to start and answer `uci` or `isready`: Fairy-Stockfish needs
/// well under a second, even when loading a `VariantPath`.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// The per-move timeout of an engine searching without a time limit (depth or nodes), unless
/// the spec sets `timeout=MS`.
pub const DEFAULT_SEARCH_TIMEOUT_MS: u64 = 60_000;

/// Stderr lines quoted in a forfeit reason.
const STDERR_TAIL: usize = 8;

/// The variants whose Fairy-Stockfish built-in has exactly fairyzero's rules, under the same
/// name (checked by perft against Fairy-Stockfish in `tools/gen_perft.py`). Fairy-Stockfish
/// 11.1 has no berolina; newer versions do.
const SAME_NAME: &[&str] =
    &["chess", "capablanca", "grand", "shatranj", "courier", "antichess", "losalamos", "gardner", "berolina"];

/// fairyzero variants whose rules Fairy-Stockfish has only through a section of the shipped
/// `engines/variants.ini` (load it with `:VariantPath=engines/variants.ini`): fairyzero's name,
/// the section's name. Fairy-Stockfish's own `kinglet` promotes to king only, hence a section
/// under another name.
const SHIPPED_INI: &[(&str, &str)] = &[("antilosalamos", "antilosalamos"), ("kinglet", "fzkinglet")];

/// The path of the shipped variants file, relative to the repository.
pub const SHIPPED_INI_PATH: &str = "engines/variants.ini";

/// The name under which a UCI engine (Fairy-Stockfish) knows fairyzero's variant `name`: the
/// same name for [`SAME_NAME`] and any variant not in the table (the engine's list decides), the
/// section of `engines/variants.ini` for the others.
pub fn uci_variant_name(name: &str) -> &str {
    SHIPPED_INI.iter().find(|(fz, _)| *fz == name).map_or(name, |(_, ini)| ini)
}

/// `uci:PATH[:key=value...]` (see [`crate::PlayerSpec`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UciSpec {
    /// The engine's executable (as given: a bare name is looked up in `PATH`).
    pub path: PathBuf,
    /// `go depth N`.
    pub depth: Option<u32>,
    /// `go nodes N`.
    pub nodes: Option<u64>,
    /// `go movetime N` (milliseconds).
    pub movetime: Option<u64>,
    /// Milliseconds the engine may take for one move before it is killed and forfeits the
    /// game (default: [`UciSpec::move_timeout`]).
    pub timeout: Option<u64>,
    /// Engine options, sent in this order with `setoption name KEY value VALUE`.
    /// `UCI_Variant`, if given, names the engine's variant instead of [`uci_variant_name`].
    pub options: Vec<(String, String)>,
}

/// The keys of a UCI spec that fairyzero reads itself (everything else is an engine option).
pub const UCI_LIMIT_KEYS: [&str; 4] = ["depth", "nodes", "movetime", "timeout"];

impl UciSpec {
    /// Parses what follows `uci:`. Errors name the part at fault.
    pub fn parse(rest: &str) -> Result<UciSpec, String> {
        let mut parts = rest.split(':');
        let path = parts.next().unwrap_or("");
        if path.is_empty() {
            return Err("`uci:` needs the engine's path, e.g. uci:/usr/games/fairy-stockfish:depth=2".into());
        }
        let mut spec = UciSpec {
            path: PathBuf::from(path),
            depth: None,
            nodes: None,
            movetime: None,
            timeout: None,
            options: Vec::new(),
        };
        for part in parts {
            let (key, value) = part.split_once('=').ok_or_else(|| {
                format!("{part:?} is not KEY=VALUE (depth=N, nodes=N, movetime=MS, timeout=MS or an engine option)")
            })?;
            let (key, value) = (key.trim(), value.trim());
            if key.is_empty() {
                return Err(format!("{part:?}: the option name is empty"));
            }
            let number = |max: u64, what: &str| -> Result<u64, String> {
                value
                    .parse::<u64>()
                    .ok()
                    .filter(|n| (1..=max).contains(n))
                    .ok_or_else(|| format!("{part:?}: {what} must be a whole number from 1 to {max}"))
            };
            let twice = |set: bool| if set { Err(format!("{part:?}: `{key}` is given twice")) } else { Ok(()) };
            match key {
                "depth" => {
                    twice(spec.depth.is_some())?;
                    spec.depth = Some(number(64, "the depth")? as u32);
                }
                "nodes" => {
                    twice(spec.nodes.is_some())?;
                    spec.nodes = Some(number(u64::MAX, "the node budget")?);
                }
                "movetime" => {
                    twice(spec.movetime.is_some())?;
                    spec.movetime = Some(number(crate::player::MAX_MOVE_MS, "movetime (milliseconds per move)")?);
                }
                "timeout" => {
                    twice(spec.timeout.is_some())?;
                    spec.timeout = Some(number(crate::player::MAX_MOVE_MS, "timeout (milliseconds per move)")?);
                }
                _ => {
                    if spec.options.iter().any(|(k, _)| k.eq_ignore_ascii_case(key)) {
                        return Err(format!("{part:?}: the engine option `{key}` is given twice"));
                    }
                    spec.options.push((key.to_string(), value.to_string()));
                }
            }
        }
        if spec.depth.is_none() && spec.nodes.is_none() && spec.movetime.is_none() {
            return Err("a UCI engine needs a search limit: depth=N, nodes=N or movetime=MS (e.g. \
                 uci:/usr/games/fairy-stockfish:depth=2)"
                .into());
        }
        Ok(spec)
    }

    /// How long one move may take before the engine is killed: `timeout`, else ten times
    /// `movetime` plus 2 s (engines overrun a little, a loaded machine more), else
    /// [`DEFAULT_SEARCH_TIMEOUT_MS`].
    pub fn move_timeout(&self) -> Duration {
        Duration::from_millis(match (self.timeout, self.movetime) {
            (Some(t), _) => t,
            (None, Some(m)) => m.saturating_mul(10).saturating_add(2000),
            (None, None) => DEFAULT_SEARCH_TIMEOUT_MS,
        })
    }

    /// Same answer to the same position: no wall-clock limit and one search thread.
    pub fn is_deterministic(&self) -> bool {
        self.movetime.is_none()
            && self.options.iter().all(|(k, v)| !k.eq_ignore_ascii_case("Threads") || v.trim() == "1")
    }

    /// The `go` command.
    fn go(&self) -> String {
        let mut go = String::from("go");
        if let Some(d) = self.depth {
            go.push_str(&format!(" depth {d}"));
        }
        if let Some(n) = self.nodes {
            go.push_str(&format!(" nodes {n}"));
        }
        if let Some(t) = self.movetime {
            go.push_str(&format!(" movetime {t}"));
        }
        go
    }

    /// The engine's name for the variant: the spec's `UCI_Variant`, else [`uci_variant_name`].
    fn variant_name<'a>(&'a self, variant: &'a Variant) -> &'a str {
        self.options
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("UCI_Variant"))
            .map_or_else(|| uci_variant_name(&variant.name), |(_, v)| v.as_str())
    }
}

impl fmt::Display for UciSpec {
    /// `uci:PATH`, the limits in a fixed order, then the engine options as given.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "uci:{}", self.path.display())?;
        if let Some(d) = self.depth {
            write!(f, ":depth={d}")?;
        }
        if let Some(n) = self.nodes {
            write!(f, ":nodes={n}")?;
        }
        if let Some(t) = self.movetime {
            write!(f, ":movetime={t}")?;
        }
        if let Some(t) = self.timeout {
            write!(f, ":timeout={t}")?;
        }
        for (k, v) in &self.options {
            write!(f, ":{k}={v}")?;
        }
        Ok(())
    }
}

/// Why an engine could not be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineError(pub String);

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One running engine process.
struct Engine {
    child: Child,
    /// Our end of the engine's stdin (see [`send_no_signal`]).
    stdin: UnixStream,
    /// Stdout lines, from a reader thread; disconnected when the engine closes stdout.
    lines: Receiver<String>,
    /// The last stderr lines (all of them are logged as they come).
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// Options the engine listed at `uci`, names as it spells them.
    options: Vec<String>,
    /// The `var` entries of its `UCI_Variant` combo (None: no such option).
    variants: Option<Vec<String>>,
}

impl Engine {
    fn spawn(spec: &UciSpec, name: &str) -> Result<Engine, EngineError> {
        let cannot = |e: io::Error| EngineError(format!("cannot start {}: {e}", spec.path.display()));
        let (stdin, theirs) = UnixStream::pair().map_err(cannot)?;
        let mut child = Command::new(&spec.path)
            .stdin(Stdio::from(OwnedFd::from(theirs)))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(cannot)?;
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr_pipe = child.stderr.take().expect("piped stderr");
        let (tx, lines) = mpsc::channel();
        std::thread::Builder::new()
            .name("engine-stdout".into())
            .spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    let Ok(line) = line else { break };
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            })
            .map_err(|e| EngineError(format!("cannot start a reader thread: {e}")))?;
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let tail = Arc::clone(&stderr);
        let (label, pid) = (name.to_string(), child.id());
        std::thread::Builder::new()
            .name("engine-stderr".into())
            .spawn(move || {
                for line in BufReader::new(stderr_pipe).lines() {
                    let Ok(line) = line else { break };
                    tracing::info!(target: "fairyzero::engine", "{label} (pid {pid}) stderr: {line}");
                    let mut tail = tail.lock().unwrap_or_else(PoisonError::into_inner);
                    if tail.len() == STDERR_TAIL {
                        tail.pop_front();
                    }
                    tail.push_back(line);
                }
            })
            .map_err(|e| EngineError(format!("cannot start a reader thread: {e}")))?;
        Ok(Engine { child, stdin, lines, stderr, options: Vec::new(), variants: None })
    }

    /// Starts the engine for `variant` and checks it (the module documentation's handshake).
    fn start(spec: &UciSpec, name: &str, variant: &Variant) -> Result<Engine, EngineError> {
        let mut engine = Engine::spawn(spec, name)?;
        engine.handshake()?;
        let mut variant_option = None;
        for (key, value) in &spec.options {
            let Some(known) = engine.options.iter().find(|o| o.eq_ignore_ascii_case(key)) else {
                let mut listed = engine.options.clone();
                listed.sort();
                return Err(EngineError(format!(
                    "the engine has no option `{key}` (it lists: {})",
                    if listed.is_empty() { "none".to_string() } else { listed.join(", ") }
                )));
            };
            if known.eq_ignore_ascii_case("UCI_Variant") {
                // Sent after the check below, once the variant list is final.
                variant_option = Some(known.clone());
                continue;
            }
            engine.send(&format!("setoption name {known} value {value}"))?;
        }
        if !spec.options.is_empty() {
            // Options such as VariantPath change the variant list: read it again.
            engine.handshake()?;
        }
        let wanted = spec.variant_name(variant);
        let vouched =
            SAME_NAME.contains(&variant.name.as_str()) || SHIPPED_INI.iter().any(|(fz, _)| *fz == variant.name);
        if !vouched && !spec.options.iter().any(|(k, _)| k.eq_ignore_ascii_case("UCI_Variant")) {
            tracing::warn!(
                "{name}: fairyzero has not checked that the engine's variant `{wanted}` has the rules of its own {}; \
                 name the engine's variant with :UCI_Variant=NAME to say it does",
                variant.name
            );
        }
        match &engine.variants {
            Some(list) if list.iter().any(|v| v == wanted) => {
                let option = variant_option.unwrap_or_else(|| "UCI_Variant".to_string());
                engine.send(&format!("setoption name {option} value {wanted}"))?;
            }
            Some(_) => {
                let hint = if SHIPPED_INI.iter().any(|(_, ini)| *ini == wanted) {
                    format!(
                        "; fairyzero ships its rules as section [{wanted}] of {SHIPPED_INI_PATH}: add \
                         :VariantPath={SHIPPED_INI_PATH} (a relative path is read from the current directory)"
                    )
                } else {
                    String::new()
                };
                return Err(EngineError(format!(
                    "the engine does not know the variant `{wanted}` (fairyzero's {}): it is not among the \
                     values of its UCI_Variant option, and an engine set to an unknown variant may play \
                     another game{hint}",
                    variant.name
                )));
            }
            // A plain UCI engine: chess only.
            None if wanted == "chess" => {}
            None => {
                return Err(EngineError(format!(
                    "the engine has no UCI_Variant option, so it plays only chess, not {}",
                    variant.name
                )))
            }
        }
        engine.ready(HANDSHAKE_TIMEOUT)?;
        Ok(engine)
    }

    /// `uci` → `uciok`, recording the options and the variant list.
    fn handshake(&mut self) -> Result<(), EngineError> {
        self.send("uci")?;
        let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
        let (mut options, mut variants) = (Vec::new(), None);
        loop {
            let line = self.next_line(deadline, HANDSHAKE_TIMEOUT, "uciok")?;
            let line = line.trim();
            if line == "uciok" {
                break;
            }
            if let Some((name, rest)) = parse_option(line) {
                if name.eq_ignore_ascii_case("UCI_Variant") {
                    let mut vars = Vec::new();
                    let mut words = rest.split_whitespace();
                    while let Some(w) = words.next() {
                        if w == "var" {
                            vars.extend(words.next().map(str::to_string));
                        }
                    }
                    variants = Some(vars);
                }
                options.push(name);
            }
        }
        (self.options, self.variants) = (options, variants);
        Ok(())
    }

    /// `isready` → `readyok`.
    fn ready(&mut self, timeout: Duration) -> Result<(), EngineError> {
        self.send("isready")?;
        let deadline = Instant::now() + timeout;
        while self.next_line(deadline, timeout, "readyok")?.trim() != "readyok" {}
        Ok(())
    }

    fn send(&mut self, line: &str) -> Result<(), EngineError> {
        tracing::trace!(target: "fairyzero::engine", "> {line}");
        match write_line(&self.stdin, line) {
            Ok(()) => Ok(()),
            Err(e) => Err(self.died(&format!("writing {line:?} failed ({e})"))),
        }
    }

    /// The next stdout line, or why there is none: the engine exited, or nothing came by
    /// `deadline` (then the engine is killed: it is of no further use).
    fn next_line(&mut self, deadline: Instant, allowed: Duration, waiting_for: &str) -> Result<String, EngineError> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(line) => {
                tracing::trace!(target: "fairyzero::engine", "< {line}");
                Ok(line)
            }
            Err(RecvTimeoutError::Disconnected) => {
                Err(self.died(&format!("it closed its output before `{waiting_for}`")))
            }
            Err(RecvTimeoutError::Timeout) => {
                let _ = self.child.kill();
                let _ = self.child.wait();
                Err(EngineError(format!(
                    "no `{waiting_for}` within {:.1} s: the engine was killed{}",
                    allowed.as_secs_f64(),
                    self.stderr_tail()
                )))
            }
        }
    }

    /// The error of an engine that is gone: its exit status if it has one (a closed pipe is
    /// soon followed by the exit), and its last stderr lines.
    fn died(&mut self, what: &str) -> EngineError {
        let mut status = None;
        for _ in 0..50 {
            if let Ok(Some(s)) = self.child.try_wait() {
                status = Some(s);
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        // Let the stderr thread catch up with what the engine wrote before dying.
        std::thread::sleep(Duration::from_millis(20));
        let status = match status {
            Some(s) => format!("the engine exited ({s})"),
            None => {
                let _ = self.child.kill();
                let _ = self.child.wait();
                "the engine stopped answering (killed)".to_string()
            }
        };
        EngineError(format!("{status}: {what}{}", self.stderr_tail()))
    }

    fn stderr_tail(&self) -> String {
        let tail = self.stderr.lock().unwrap_or_else(PoisonError::into_inner);
        if tail.is_empty() {
            String::new()
        } else {
            format!("; its last stderr lines: {}", tail.iter().cloned().collect::<Vec<_>>().join(" | "))
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // `quit` lets a well-behaved engine end by itself; kill whatever does not.
        let _ = write_line(&self.stdin, "quit");
        for _ in 0..20 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Writes `line` and a newline to the engine's stdin.
///
/// The engine reads its stdin from a socket rather than a pipe, written with `MSG_NOSIGNAL`:
/// writing to an engine that has just died must be an error (`EPIPE`, a forfeit) and not a
/// `SIGPIPE`, which kills `fairyzero` (the command-line tool restores SIGPIPE's default action so
/// that `fairyzero moves ... | head` ends quietly).
fn write_line(socket: &UnixStream, line: &str) -> io::Result<()> {
    let text = format!("{line}\n");
    let mut bytes = text.as_bytes();
    while !bytes.is_empty() {
        match send_no_signal(socket, bytes) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => bytes = &bytes[n..],
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[allow(unsafe_code)]
fn send_no_signal(socket: &UnixStream, bytes: &[u8]) -> io::Result<usize> {
    use std::os::fd::AsRawFd;
    // SAFETY: the pointer and length describe `bytes`, borrowed for the whole call, and the
    // descriptor is the socket's own, open while `socket` is borrowed.
    let n = unsafe { libc::send(socket.as_raw_fd(), bytes.as_ptr().cast(), bytes.len(), libc::MSG_NOSIGNAL) };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

/// `option name NAME type ...` → (NAME, the rest after `type`). Names may hold spaces.
fn parse_option(line: &str) -> Option<(String, &str)> {
    let rest = line.strip_prefix("option name ")?;
    let at = rest.find(" type ")?;
    Some((rest[..at].trim().to_string(), &rest[at + 6..]))
}

/// What the games of one engine contestant share.
struct Shared {
    spec: UciSpec,
    /// The contestant's name (the spec's canonical text), for messages and logs.
    name: String,
    variant: Arc<Variant>,
    /// Engines between games, ready for their next `ucinewgame`.
    idle: Mutex<Vec<Engine>>,
}

impl Shared {
    /// An engine for a new game: an idle one that answers `ucinewgame`/`isready`, else a new
    /// one (after a crash or a timeout the old one is gone).
    fn engine(&self) -> Result<Engine, EngineError> {
        let idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner).pop();
        if let Some(mut engine) = idle {
            let renewed = engine.send("ucinewgame").and_then(|()| engine.ready(HANDSHAKE_TIMEOUT));
            match renewed {
                Ok(()) => return Ok(engine),
                Err(e) => {
                    tracing::warn!("{}: an idle engine failed at the start of a game, restarting it: {e}", self.name)
                }
            }
        }
        let mut engine = Engine::start(&self.spec, &self.name, &self.variant)?;
        engine.send("ucinewgame")?;
        engine.ready(HANDSHAKE_TIMEOUT)?;
        Ok(engine)
    }
}

/// Starts the engine of `spec` once and checks it for `variant` (before any game: an engine
/// that cannot start, lacks an option or does not know the variant is an error here), and
/// returns the factory of its players (one per game, engines reused through a pool).
pub fn uci_factory(
    spec: &UciSpec,
    variant: &Arc<Variant>,
) -> Result<impl Fn() -> Box<dyn Player> + Send + Sync + 'static, EngineError> {
    let name = spec.to_string();
    let first = Engine::start(spec, &name, variant)?;
    let shared =
        Arc::new(Shared { spec: spec.clone(), name, variant: Arc::clone(variant), idle: Mutex::new(vec![first]) });
    Ok(move || -> Box<dyn Player> { Box::new(UciPlayer { shared: Arc::clone(&shared), engine: None, failed: None }) })
}

/// A UCI engine playing one game.
struct UciPlayer {
    shared: Arc<Shared>,
    engine: Option<Engine>,
    /// Why no engine could be had for this game (the first move forfeits with it).
    failed: Option<EngineError>,
}

/// A move that is never legal: what [`Player::choose`] answers for a forfeit, so that callers
/// that only know `choose` (they check legality) score the game as lost.
pub fn forfeit_move() -> Move {
    Move::normal(Square::NONE, Square::NONE)
}

impl UciPlayer {
    fn play(&mut self, pos: &Position, legal: &[Move]) -> Result<Move, String> {
        if let Some(e) = self.failed.take() {
            return Err(e.0);
        }
        if self.engine.is_none() {
            self.engine = Some(self.shared.engine().map_err(|e| e.0)?);
        }
        let engine = self.engine.as_mut().expect("an engine");
        let timeout = self.shared.spec.move_timeout();
        let answer = (|| -> Result<String, EngineError> {
            engine.send(&position_command(pos))?;
            engine.send(&self.shared.spec.go())?;
            let deadline = Instant::now() + timeout;
            loop {
                let line = engine.next_line(deadline, timeout, "bestmove")?;
                let mut words = line.split_whitespace();
                if words.next() == Some("bestmove") {
                    return Ok(words.next().unwrap_or("").to_string());
                }
            }
        })();
        let text = match answer {
            Ok(text) => text,
            Err(e) => {
                // Gone (exited or killed): the next game starts another.
                self.engine = None;
                return Err(e.0);
            }
        };
        if text.is_empty() || text == "(none)" || text == "0000" {
            return Err(format!("the engine answered `bestmove {text}` with {} legal moves", legal.len()));
        }
        match pos.find_move(&text, legal) {
            Ok(Some(m)) => Ok(m),
            Ok(None) => Err(format!("the engine played the illegal move {text:?}")),
            Err(e) => Err(format!("the engine's move {text:?} cannot be read: {e}")),
        }
    }
}

impl Player for UciPlayer {
    fn new_game(&mut self, _start: &Position, _ctx: &GameContext) {
        if let Some(engine) = self.engine.take() {
            self.shared.idle.lock().unwrap_or_else(PoisonError::into_inner).push(engine);
        }
        // A game that starts with no engine forfeits at its first move, with the reason.
        match self.shared.engine() {
            Ok(e) => self.engine = Some(e),
            Err(e) => self.failed = Some(e),
        }
    }

    fn choose(&mut self, pos: &mut Position, legal: &[Move], rng: &mut dyn RngCore) -> Move {
        match self.try_choose(pos, legal, rng) {
            Ok(m) => m,
            Err(reason) => {
                tracing::warn!("{} forfeits: {reason}", self.shared.name);
                forfeit_move()
            }
        }
    }

    fn try_choose(&mut self, pos: &mut Position, legal: &[Move], _rng: &mut dyn RngCore) -> Result<Move, String> {
        self.play(pos, legal)
    }
}

impl Drop for UciPlayer {
    fn drop(&mut self) {
        if let Some(engine) = self.engine.take() {
            self.shared.idle.lock().unwrap_or_else(PoisonError::into_inner).push(engine);
        }
    }
}

/// `position fen ROOT moves ...`: the game's first position after its setup phase (engines
/// know no setup phases) and every move since, in the variant's notation.
pub fn position_command(pos: &Position) -> String {
    let history: Vec<Move> = pos.moves_played().collect();
    let mut root = pos.clone();
    let mut first = history.len();
    while first > 0 {
        root.unmake();
        if root.in_setup() {
            root.make(history[first - 1]);
            break;
        }
        first -= 1;
    }
    let mut command = format!("position fen {}", root.to_fen());
    if first < history.len() {
        command.push_str(" moves");
        for &m in &history[first..] {
            command.push(' ');
            command.push_str(&root.move_to_string(&m));
            root.make(m);
        }
    }
    command
}

#[cfg(test)]
mod tests {
    use std::{os::unix::fs::PermissionsExt, path::Path};

    use fairyzero_rules::MoveList;
    use rand::{Rng, SeedableRng};

    use super::*;

    #[test]
    fn options_are_read_with_spaces_in_their_names() {
        assert_eq!(
            parse_option("option name Skill Level type spin default 20 min -20 max 20"),
            Some(("Skill Level".to_string(), "spin default 20 min -20 max 20"))
        );
        assert_eq!(parse_option("id name Fairy-Stockfish"), None);
    }

    #[test]
    fn variant_names_map_to_the_engine() {
        assert_eq!(uci_variant_name("losalamos"), "losalamos");
        assert_eq!(uci_variant_name("antilosalamos"), "antilosalamos");
        assert_eq!(uci_variant_name("kinglet"), "fzkinglet");
        let v = Variant::load("kinglet").unwrap();
        let spec = UciSpec::parse("e:depth=1:UCI_Variant=kingletfile").unwrap();
        assert_eq!(spec.variant_name(&v), "kingletfile");
        assert_eq!(spec.go(), "go depth 1");
        let spec = UciSpec::parse("e:movetime=100:nodes=5").unwrap();
        assert_eq!(spec.go(), "go nodes 5 movetime 100");
        assert_eq!(spec.move_timeout(), Duration::from_millis(3000));
        assert_eq!(UciSpec::parse("e:depth=3").unwrap().move_timeout(), Duration::from_secs(60));
        assert_eq!(UciSpec::parse("e:depth=3:timeout=250").unwrap().move_timeout(), Duration::from_millis(250));
    }

    /// The engine is told the game from its first position, so that it knows the repetition
    /// history; a setup phase (which engines do not know) is left out.
    #[test]
    fn positions_carry_the_moves_since_the_first_position() {
        let v = Variant::load("losalamos").unwrap();
        let mut pos = Position::start(Arc::clone(&v));
        assert_eq!(position_command(&pos), "position fen rnqknr/pppppp/6/6/PPPPPP/RNQKNR w - - 0 1");
        pos.play_moves("a2a3,b5b4,a3b4").unwrap();
        assert_eq!(
            position_command(&pos),
            "position fen rnqknr/pppppp/6/6/PPPPPP/RNQKNR w - - 0 1 moves a2a3 b5b4 a3b4"
        );
        let s = Variant::load("scirocco").unwrap();
        let mut pos = Position::setup_start(Arc::clone(&s)).unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let mut legal = MoveList::new();
        while pos.in_setup() {
            pos.legal_moves(&mut legal);
            pos.make(legal[rng.gen_range(0..legal.len())]);
        }
        let after_setup = pos.to_fen();
        pos.legal_moves(&mut legal);
        pos.make(legal[0]);
        let command = position_command(&pos);
        assert!(command.starts_with(&format!("position fen {after_setup} moves ")), "{command}\n{after_setup}");
        assert_eq!(command.split(" moves ").nth(1).unwrap().split(' ').count(), 1, "{command}");
    }

    /// A small engine in the shell: answers `bestmove WORD` to every `go`.
    fn scripted_engine(dir: &Path, answer: &str) -> PathBuf {
        let path = dir.join(format!("answers-{}.sh", answer.replace(|c: char| !c.is_alphanumeric(), "_")));
        std::fs::write(
            &path,
            format!(
                "#!/bin/sh\nwhile IFS= read -r line; do case \"$line\" in\n\
                 uci) echo 'option name UCI_Variant type combo default chess var chess var gardner'; \
                 echo 'option name Hash type spin default 16 min 1 max 64'; echo uciok ;;\n\
                 isready) echo readyok ;;\n\
                 go*) echo 'info depth 1 score cp 0'; echo 'bestmove {answer}' ;;\n\
                 quit) exit 0 ;;\nesac; done\n"
            ),
        )
        .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    /// An answer that is not a legal move forfeits the game, with the move in the reason; the
    /// engine stays usable.
    #[test]
    fn illegal_and_unreadable_answers_forfeit() {
        let dir = tempfile::tempdir().unwrap();
        let v = Variant::load("gardner").unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let mut legal = MoveList::new();
        for (answer, reason) in [
            ("a1a5", "the engine played the illegal move \"a1a5\""),
            ("zz9", "the engine's move \"zz9\" cannot be read"),
            ("(none)", "the engine answered `bestmove (none)` with 7 legal moves"),
        ] {
            let path = scripted_engine(dir.path(), answer);
            let spec = UciSpec::parse(&format!("{}:depth=1:hash=8", path.display())).unwrap();
            let factory = uci_factory(&spec, &v).unwrap();
            let mut player = factory();
            let mut pos = Position::start(Arc::clone(&v));
            player.new_game(&pos, &GameContext { cap_ply: 100 });
            pos.legal_moves(&mut legal);
            let err = player.try_choose(&mut pos, &legal, &mut rng).unwrap_err();
            assert!(err.contains(reason), "{err}");
            // `choose` answers a move that no caller takes for a legal one.
            assert!(!legal.contains(&player.choose(&mut pos, &legal, &mut rng)));
        }
        // The variant check, before any game.
        let path = scripted_engine(dir.path(), "a2a3");
        let spec = UciSpec::parse(&format!("{}:depth=1", path.display())).unwrap();
        let err = uci_factory(&spec, &Variant::load("losalamos").unwrap()).err().unwrap();
        assert!(err.0.contains("does not know the variant `losalamos`"), "{err}");
        let spec = UciSpec::parse(&format!("{}:depth=1:Threads=2", path.display())).unwrap();
        let err = uci_factory(&spec, &v).err().unwrap();
        assert!(err.0.contains("has no option `Threads` (it lists: Hash, UCI_Variant)"), "{err}");
    }
}
