//! External engines as players: a UCI or CECP (XBoard) engine (Fairy-Stockfish, or any other)
//! run as a child process, spoken to over its stdin and stdout (docs/engines.md, "External engines as players").
//!
//! # The conversation (UCI)
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
//! # The conversation (CECP v2)
//!
//! Before a match: `xboard`, `protover 2` → `feature` lines up to `done=1` (each answered
//! `accepted`, but `san=1` `rejected`; `setboard=1` is required), `option NAME=VALUE` for every
//! option of the spec (checked against the `feature option` list), `protover 2` again when
//! options were set, and the check of the variant against `feature variants`. Per move, the
//! protocol's state is rebuilt rather than tracked: `new`, `variant NAME` (not for chess),
//! `force`, `setboard ROOT`, the moves (`usermove M` where the engine asks for it), `sd`/`st`,
//! `ping` → `pong` (where the engine has the feature: a complaint about the game comes before
//! it), `go` → `move M`, then `force`. A `resign` or a result claim instead of a move forfeits.
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

/// The name under which an engine (Fairy-Stockfish) knows fairyzero's variant `name`: the
/// section of `engines/variants.ini` for the variants it ships, else the same name (the
/// engine's list of variants decides whether it knows it).
pub fn uci_variant_name(name: &str) -> &str {
    SHIPPED_INI.iter().find(|(fz, _)| *fz == name).map_or(name, |(_, ini)| ini)
}

/// How fairyzero talks to an external engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// The Universal Chess Interface (Fairy-Stockfish's UCI dialect for variants).
    Uci,
    /// The Chess Engine Communication Protocol, version 2 (XBoard/WinBoard engines).
    Xboard,
}

impl Protocol {
    /// The player spec's prefix: `uci` or `xboard`.
    pub fn prefix(self) -> &'static str {
        match self {
            Protocol::Uci => "uci",
            Protocol::Xboard => "xboard",
        }
    }
}

/// `uci:PATH[:key=value...]` or `xboard:PATH[:key=value...]` (see [`crate::PlayerSpec`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    pub protocol: Protocol,
    /// The engine's executable (as given: a bare name is looked up in `PATH`).
    pub path: PathBuf,
    /// `go depth N` (UCI), `sd N` (CECP).
    pub depth: Option<u32>,
    /// `go nodes N` (UCI only: CECP has no plain node limit).
    pub nodes: Option<u64>,
    /// `go movetime N` (milliseconds; UCI), `st N/1000` (CECP: whole seconds only).
    pub movetime: Option<u64>,
    /// Milliseconds the engine may take for one move before it is killed and forfeits the
    /// game (default: [`EngineSpec::move_timeout`]).
    pub timeout: Option<u64>,
    /// Engine options, sent in this order with `setoption name KEY value VALUE` (UCI) or
    /// `option KEY=VALUE` (CECP). A UCI `UCI_Variant`, if given, names the engine's variant
    /// instead of [`uci_variant_name`].
    pub options: Vec<(String, String)>,
}

impl EngineSpec {
    /// Parses what follows `uci:` or `xboard:`. Errors name the part at fault.
    pub fn parse(protocol: Protocol, rest: &str) -> Result<EngineSpec, String> {
        let prefix = protocol.prefix();
        let mut parts = rest.split(':');
        let path = parts.next().unwrap_or("");
        if path.is_empty() {
            return Err(format!(
                "`{prefix}:` needs the engine's path, e.g. {prefix}:/usr/games/fairy-stockfish:depth=2"
            ));
        }
        let mut spec = EngineSpec {
            protocol,
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
                "nodes" if protocol == Protocol::Xboard => {
                    return Err(format!(
                        "{part:?}: CECP (xboard) has no node limit; use depth=N (sd) or movetime=MS (st, whole seconds)"
                    ))
                }
                "nodes" => {
                    twice(spec.nodes.is_some())?;
                    spec.nodes = Some(number(u64::MAX, "the node budget")?);
                }
                "movetime" => {
                    twice(spec.movetime.is_some())?;
                    let ms = number(crate::player::MAX_MOVE_MS, "movetime (milliseconds per move)")?;
                    if protocol == Protocol::Xboard && ms % 1000 != 0 {
                        return Err(format!(
                            "{part:?}: CECP (xboard) sets the time per move in whole seconds (st): use a multiple of 1000"
                        ));
                    }
                    spec.movetime = Some(ms);
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
            return Err(match protocol {
                Protocol::Uci => "a UCI engine needs a search limit: depth=N, nodes=N or movetime=MS (e.g. \
                     uci:/usr/games/fairy-stockfish:depth=2)"
                    .into(),
                Protocol::Xboard => "an xboard engine needs a search limit: depth=N or movetime=MS (e.g. \
                     xboard:/usr/games/fairy-stockfish:depth=2)"
                    .into(),
            });
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

    /// The engine's name for the variant: the spec's `UCI_Variant` (UCI), else
    /// [`uci_variant_name`] (CECP engines use the same names).
    fn variant_name<'a>(&'a self, variant: &'a Variant) -> &'a str {
        self.options
            .iter()
            .find(|(k, _)| self.protocol == Protocol::Uci && k.eq_ignore_ascii_case("UCI_Variant"))
            .map_or_else(|| uci_variant_name(&variant.name), |(_, v)| v.as_str())
    }
}

impl fmt::Display for EngineSpec {
    /// `uci:PATH` or `xboard:PATH`, the limits in a fixed order, then the engine options as given.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.protocol.prefix(), self.path.display())?;
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
    protocol: Protocol,
    child: Child,
    /// Our end of the engine's stdin (see [`send_no_signal`]).
    stdin: UnixStream,
    /// Stdout lines, from a reader thread; disconnected when the engine closes stdout.
    lines: Receiver<String>,
    /// The last stderr lines (all of them are logged as they come).
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// Options the engine listed at `uci`, names as it spells them.
    options: Vec<String>,
    /// The `var` entries of its `UCI_Variant` combo, or its CECP `feature variants` (None: no
    /// such option or feature).
    variants: Option<Vec<String>>,
    /// CECP: the variant sent after every `new` (None for chess).
    xboard_variant: Option<String>,
    /// CECP features: moves as `usermove M`, `ping N` → `pong N`.
    usermove: bool,
    ping: bool,
    /// CECP `ping` numbers.
    pings: u64,
}

impl Engine {
    fn spawn(spec: &EngineSpec, name: &str) -> Result<Engine, EngineError> {
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
        Ok(Engine {
            protocol: spec.protocol,
            child,
            stdin,
            lines,
            stderr,
            options: Vec::new(),
            variants: None,
            xboard_variant: None,
            usermove: false,
            ping: false,
            pings: 0,
        })
    }

    /// Starts the engine for `variant` and checks it (the module documentation's handshake).
    fn start(spec: &EngineSpec, name: &str, variant: &Variant) -> Result<Engine, EngineError> {
        match spec.protocol {
            Protocol::Uci => Engine::start_uci(spec, name, variant),
            Protocol::Xboard => Engine::start_xboard(spec, name, variant),
        }
    }

    /// The name of the engine's option `key` (matched without regard to case), or an error
    /// listing the options it has.
    fn option_named(&self, key: &str) -> Result<String, EngineError> {
        match self.options.iter().find(|o| o.eq_ignore_ascii_case(key)) {
            Some(known) => Ok(known.clone()),
            None => {
                let mut listed = self.options.clone();
                listed.sort();
                Err(EngineError(format!(
                    "the engine has no option `{key}` (it lists: {})",
                    if listed.is_empty() { "none".to_string() } else { listed.join(", ") }
                )))
            }
        }
    }

    fn start_uci(spec: &EngineSpec, name: &str, variant: &Variant) -> Result<Engine, EngineError> {
        let mut engine = Engine::spawn(spec, name)?;
        engine.handshake()?;
        let mut variant_option = None;
        for (key, value) in &spec.options {
            let known = engine.option_named(key)?;
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
        warn_unvouched(spec, name, variant, wanted);
        match &engine.variants {
            Some(list) if list.iter().any(|v| v == wanted) => {
                let option = variant_option.unwrap_or_else(|| "UCI_Variant".to_string());
                engine.send(&format!("setoption name {option} value {wanted}"))?;
            }
            Some(_) => return Err(unknown_variant(variant, wanted, "values of its UCI_Variant option")),
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

    /// CECP: `xboard`, `protover 2` → the features up to `done=1`, the options of the spec
    /// (`option NAME=VALUE`), then `protover 2` again if options were set (a VariantPath adds
    /// variants), the variant check, and `ping` → `pong`.
    fn start_xboard(spec: &EngineSpec, name: &str, variant: &Variant) -> Result<Engine, EngineError> {
        let mut engine = Engine::spawn(spec, name)?;
        engine.send("xboard")?;
        engine.features()?;
        for (key, value) in &spec.options {
            let known = engine.option_named(key)?;
            engine.send(&format!("option {known}={value}"))?;
        }
        if !spec.options.is_empty() {
            engine.features()?;
        }
        let wanted = spec.variant_name(variant);
        warn_unvouched(spec, name, variant, wanted);
        let chess = wanted == "chess";
        match &engine.variants {
            Some(list) if list.iter().any(|v| v == wanted || (chess && v == "normal")) => {}
            None if chess => {}
            Some(_) => return Err(unknown_variant(variant, wanted, "variants of its `feature variants`")),
            None => {
                return Err(EngineError(format!(
                    "the engine announces no `feature variants`, so it plays only chess, not {}",
                    variant.name
                )))
            }
        }
        engine.xboard_variant = (!chess).then(|| wanted.to_string());
        engine.send("easy")?;
        engine.ready(HANDSHAKE_TIMEOUT)?;
        Ok(engine)
    }

    /// CECP: `protover 2`, then the `feature` lines up to `done=1`, each accepted (`san=1` is
    /// rejected: moves are exchanged in coordinates). `setboard=1` is required: games start
    /// from positions given as FEN.
    fn features(&mut self) -> Result<(), EngineError> {
        self.send("protover 2")?;
        let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
        let (mut options, mut variants, mut setboard) = (Vec::new(), None, false);
        loop {
            let line = self.next_line(deadline, HANDSHAKE_TIMEOUT, "feature done=1")?;
            let Some(rest) = line.trim().strip_prefix("feature ") else { continue };
            let mut done = false;
            for (key, value) in parse_features(rest) {
                match key.as_str() {
                    "done" => done = value == "1",
                    "setboard" => setboard = value == "1",
                    "usermove" => self.usermove = value == "1",
                    "ping" => self.ping = value == "1",
                    "variants" => variants = Some(value.split(',').map(|v| v.trim().to_string()).collect()),
                    "option" => options.push(value.split(" -").next().unwrap_or("").trim().to_string()),
                    _ => {}
                }
                let verdict = if key == "san" && value == "1" { "rejected" } else { "accepted" };
                self.send(&format!("{verdict} {key}"))?;
            }
            if done {
                break;
            }
        }
        if !setboard {
            return Err(EngineError(
                "the engine does not announce `feature setboard=1`: fairyzero gives every game's position as a FEN"
                    .into(),
            ));
        }
        (self.options, self.variants) = (options, variants);
        Ok(())
    }

    /// CECP: one move of the engine in `pos` (a fresh `new` game set up from the game's first
    /// position and its moves, then `go`); the text of its `move`.
    fn xboard_move(&mut self, spec: &EngineSpec, pos: &Position) -> Result<String, EngineError> {
        let (fen, moves) = game_text(pos);
        self.send("new")?;
        if let Some(v) = self.xboard_variant.clone() {
            self.send(&format!("variant {v}"))?;
        }
        self.send("force")?;
        self.send(&format!("setboard {fen}"))?;
        for m in &moves {
            self.send(&if self.usermove { format!("usermove {m}") } else { m.clone() })?;
        }
        if let Some(d) = spec.depth {
            self.send(&format!("sd {d}"))?;
        }
        if let Some(t) = spec.movetime {
            self.send(&format!("st {}", t / 1000))?;
        }
        if self.ping {
            // The engine has read the game: a complaint about it comes before the pong.
            self.ready(HANDSHAKE_TIMEOUT)?;
        }
        self.send("go")?;
        let timeout = spec.move_timeout();
        let deadline = Instant::now() + timeout;
        loop {
            let line = self.next_line(deadline, timeout, "move")?;
            let line = line.trim();
            if let Some(m) = line.strip_prefix("move ") {
                // Out of play until the next move: no pondering, no reply to our next `new`.
                self.send("force")?;
                return Ok(m.trim().to_string());
            }
            refused(line)?;
            if line == "resign" || line.starts_with("1-0") || line.starts_with("0-1") || line.starts_with("1/2-1/2") {
                return Err(EngineError(format!("the engine answered {line:?} instead of a move")));
            }
        }
    }

    /// Before a game: `ucinewgame` and `isready` (UCI); a `ping` (CECP, which starts every
    /// move with `new`).
    fn new_game(&mut self) -> Result<(), EngineError> {
        if self.protocol == Protocol::Uci {
            self.send("ucinewgame")?;
        }
        self.ready(HANDSHAKE_TIMEOUT)
    }

    /// UCI: one move of the engine in `pos`, the text of its `bestmove`.
    fn uci_move(&mut self, spec: &EngineSpec, pos: &Position) -> Result<String, EngineError> {
        let (fen, moves) = game_text(pos);
        let mut command = format!("position fen {fen}");
        if !moves.is_empty() {
            command.push_str(" moves ");
            command.push_str(&moves.join(" "));
        }
        self.send(&command)?;
        self.send(&spec.go())?;
        let timeout = spec.move_timeout();
        let deadline = Instant::now() + timeout;
        loop {
            let line = self.next_line(deadline, timeout, "bestmove")?;
            let mut words = line.split_whitespace();
            if words.next() == Some("bestmove") {
                let text = words.next().unwrap_or("");
                if text.is_empty() || text == "(none)" || text == "0000" {
                    return Err(EngineError(format!("the engine answered `bestmove {text}`")));
                }
                return Ok(text.to_string());
            }
        }
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

    /// `isready` → `readyok` (UCI), `ping N` → `pong N` (CECP, where the engine has the
    /// feature; a complaint about the moves sent before is an error).
    fn ready(&mut self, timeout: Duration) -> Result<(), EngineError> {
        let deadline = Instant::now() + timeout;
        if self.protocol == Protocol::Xboard {
            if !self.ping {
                return Ok(());
            }
            self.pings += 1;
            let pong = format!("pong {}", self.pings);
            self.send(&format!("ping {}", self.pings))?;
            loop {
                let line = self.next_line(deadline, timeout, &pong)?;
                if line.trim() == pong {
                    return Ok(());
                }
                refused(line.trim())?;
            }
        }
        self.send("isready")?;
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
    spec: EngineSpec,
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
            let renewed = engine.new_game();
            match renewed {
                Ok(()) => return Ok(engine),
                Err(e) => {
                    tracing::warn!("{}: an idle engine failed at the start of a game, restarting it: {e}", self.name)
                }
            }
        }
        let mut engine = Engine::start(&self.spec, &self.name, &self.variant)?;
        engine.new_game()?;
        Ok(engine)
    }
}

/// Starts the engine of `spec` once and checks it for `variant` (before any game: an engine
/// that cannot start, lacks an option or does not know the variant is an error here), and
/// returns the factory of its players (one per game, engines reused through a pool).
pub fn engine_factory(
    spec: &EngineSpec,
    variant: &Arc<Variant>,
) -> Result<impl Fn() -> Box<dyn Player> + Send + Sync + 'static, EngineError> {
    let name = spec.to_string();
    let first = Engine::start(spec, &name, variant)?;
    let shared =
        Arc::new(Shared { spec: spec.clone(), name, variant: Arc::clone(variant), idle: Mutex::new(vec![first]) });
    Ok(move || -> Box<dyn Player> {
        Box::new(EnginePlayer { shared: Arc::clone(&shared), engine: None, failed: None })
    })
}

/// An external engine playing one game.
struct EnginePlayer {
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

impl EnginePlayer {
    fn play(&mut self, pos: &Position, legal: &[Move]) -> Result<Move, String> {
        if let Some(e) = self.failed.take() {
            return Err(e.0);
        }
        if self.engine.is_none() {
            self.engine = Some(self.shared.engine().map_err(|e| e.0)?);
        }
        let engine = self.engine.as_mut().expect("an engine");
        let spec = &self.shared.spec;
        let answer = match spec.protocol {
            Protocol::Uci => engine.uci_move(spec, pos),
            Protocol::Xboard => engine.xboard_move(spec, pos),
        };
        let text = match answer {
            Ok(text) => text,
            Err(e) => {
                // Gone (exited, killed) or confused: the next game starts another.
                self.engine = None;
                return Err(format!("{e} ({} legal moves)", legal.len()));
            }
        };
        match pos.find_move(&text, legal) {
            Ok(Some(m)) => Ok(m),
            Ok(None) => Err(format!("the engine played the illegal move {text:?}")),
            Err(e) => Err(format!("the engine's move {text:?} cannot be read: {e}")),
        }
    }
}

impl Player for EnginePlayer {
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

impl Drop for EnginePlayer {
    fn drop(&mut self) {
        if let Some(engine) = self.engine.take() {
            self.shared.idle.lock().unwrap_or_else(PoisonError::into_inner).push(engine);
        }
    }
}

/// The game's first position after its setup phase (engines know no setup phases) as a FEN,
/// and every move since in the variant's notation: what an engine is told before each move, so
/// that it knows the repetition history.
pub fn game_text(pos: &Position) -> (String, Vec<String>) {
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
    let fen = root.to_fen();
    let moves = history[first..]
        .iter()
        .map(|&m| {
            let text = root.move_to_string(&m);
            root.make(m);
            text
        })
        .collect();
    (fen, moves)
}

/// A line of a CECP engine that refuses what it was sent (`Illegal move ...`, `Error ...`): the
/// engine and fairyzero disagree on the game.
fn refused(line: &str) -> Result<(), EngineError> {
    if line.starts_with("Illegal move") || line.starts_with("Error") {
        Err(EngineError(format!("the engine refused the game as sent: {line:?}")))
    } else {
        Ok(())
    }
}

/// `key=value key="quoted value" ...` of a CECP `feature` line.
fn parse_features(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = text.trim_start();
    while let Some(eq) = rest.find('=') {
        let key = rest[..eq].trim().to_string();
        let after = &rest[eq + 1..];
        let (value, tail) = match after.strip_prefix('"') {
            Some(quoted) => match quoted.find('"') {
                Some(end) => (&quoted[..end], &quoted[end + 1..]),
                None => (quoted, ""),
            },
            None => match after.find(char::is_whitespace) {
                Some(end) => (&after[..end], &after[end..]),
                None => (after, ""),
            },
        };
        out.push((key, value.to_string()));
        rest = tail.trim_start();
    }
    out
}

/// Warns when fairyzero has not checked that the engine's `wanted` has the rules of `variant`.
fn warn_unvouched(spec: &EngineSpec, name: &str, variant: &Variant, wanted: &str) {
    let vouched = SAME_NAME.contains(&variant.name.as_str()) || SHIPPED_INI.iter().any(|(fz, _)| *fz == variant.name);
    let named =
        spec.protocol == Protocol::Uci && spec.options.iter().any(|(k, _)| k.eq_ignore_ascii_case("UCI_Variant"));
    if !vouched && !named {
        tracing::warn!(
            "{name}: fairyzero has not checked that the engine's variant `{wanted}` has the rules of its own {}",
            variant.name
        );
    }
}

/// The error for an engine whose list (`where_listed`) lacks `wanted`.
fn unknown_variant(variant: &Variant, wanted: &str, where_listed: &str) -> EngineError {
    let hint = if SHIPPED_INI.iter().any(|(_, ini)| *ini == wanted) {
        format!(
            "; fairyzero ships its rules as section [{wanted}] of {SHIPPED_INI_PATH}: add \
             :VariantPath={SHIPPED_INI_PATH} (a relative path is read from the current directory)"
        )
    } else {
        String::new()
    };
    EngineError(format!(
        "the engine does not know the variant `{wanted}` (fairyzero's {}): it is not among the {where_listed}, \
         and an engine set to an unknown variant may play another game{hint}",
        variant.name
    ))
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
        let spec = EngineSpec::parse(Protocol::Uci, "e:depth=1:UCI_Variant=kingletfile").unwrap();
        assert_eq!(spec.variant_name(&v), "kingletfile");
        assert_eq!(spec.go(), "go depth 1");
        let spec = EngineSpec::parse(Protocol::Uci, "e:movetime=100:nodes=5").unwrap();
        assert_eq!(spec.go(), "go nodes 5 movetime 100");
        assert_eq!(spec.move_timeout(), Duration::from_millis(3000));
        assert_eq!(EngineSpec::parse(Protocol::Uci, "e:depth=3").unwrap().move_timeout(), Duration::from_secs(60));
        assert_eq!(
            EngineSpec::parse(Protocol::Uci, "e:depth=3:timeout=250").unwrap().move_timeout(),
            Duration::from_millis(250)
        );
    }

    fn position_command(pos: &Position) -> String {
        let (fen, moves) = game_text(pos);
        if moves.is_empty() {
            format!("position fen {fen}")
        } else {
            format!("position fen {fen} moves {}", moves.join(" "))
        }
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

    /// A CECP engine in the shell: the features, then `move a2a3` to every `go`, and
    /// `Illegal move` to a `usermove` of `refuse`.
    fn scripted_xboard(dir: &Path, refuse: &str) -> PathBuf {
        let path = dir.join(format!("xboard-{refuse}.sh"));
        std::fs::write(
            &path,
            format!(
                "#!/bin/sh\nwhile IFS= read -r line; do case \"$line\" in\n\
                 'protover 2') echo 'feature setboard=1 usermove=1 ping=1 san=1 variants=\"normal,gardner\"'; \
                 echo 'feature option=\"Hash -spin 16 1 64\"'; echo 'feature done=1' ;;\n\
                 'ping '*) echo \"pong ${{line#ping }}\" ;;\n\
                 'usermove {refuse}') echo 'Illegal move: {refuse}' ;;\n\
                 go) echo 'move a2a3' ;;\n\
                 quit) exit 0 ;;\nesac; done\n"
            ),
        )
        .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[test]
    fn cecp_engines_play_and_complaints_forfeit() {
        assert_eq!(
            parse_features(r#"setboard=1 variants="normal,gardner" option="Skill Level -spin 20 -20 20" done=1"#),
            [
                ("setboard", "1"),
                ("variants", "normal,gardner"),
                ("option", "Skill Level -spin 20 -20 20"),
                ("done", "1")
            ]
            .map(|(k, v)| (k.to_string(), v.to_string()))
        );
        let dir = tempfile::tempdir().unwrap();
        let v = Variant::load("gardner").unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let mut legal = MoveList::new();
        let path = scripted_xboard(dir.path(), "b4b3");
        let spec = EngineSpec::parse(Protocol::Xboard, &format!("{}:depth=2:hash=8", path.display())).unwrap();
        let factory = engine_factory(&spec, &v).unwrap();
        let mut player = factory();
        let mut pos = Position::start(Arc::clone(&v));
        player.new_game(&pos, &GameContext { cap_ply: 100 });
        pos.legal_moves(&mut legal);
        let m = player.try_choose(&mut pos, &legal, &mut rng).unwrap();
        assert_eq!(pos.move_to_string(&m), "a2a3");
        pos.make(m);
        pos.play_moves("b4b3").unwrap();
        pos.legal_moves(&mut legal);
        let err = player.try_choose(&mut pos, &legal, &mut rng).unwrap_err();
        assert!(err.contains("the engine refused the game as sent: \"Illegal move: b4b3\""), "{err}");
        // Not among its variants; an option it does not announce.
        let err = engine_factory(&spec, &Variant::load("losalamos").unwrap()).err().unwrap();
        assert!(err.0.contains("does not know the variant `losalamos`"), "{err}");
        let spec = EngineSpec::parse(Protocol::Xboard, &format!("{}:depth=2:Threads=2", path.display())).unwrap();
        assert!(engine_factory(&spec, &v).err().unwrap().0.contains("has no option `Threads` (it lists: Hash)"));
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
            ("(none)", "the engine answered `bestmove (none)` (7 legal moves)"),
        ] {
            let path = scripted_engine(dir.path(), answer);
            let spec = EngineSpec::parse(Protocol::Uci, &format!("{}:depth=1:hash=8", path.display())).unwrap();
            let factory = engine_factory(&spec, &v).unwrap();
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
        let spec = EngineSpec::parse(Protocol::Uci, &format!("{}:depth=1", path.display())).unwrap();
        let err = engine_factory(&spec, &Variant::load("losalamos").unwrap()).err().unwrap();
        assert!(err.0.contains("does not know the variant `losalamos`"), "{err}");
        let spec = EngineSpec::parse(Protocol::Uci, &format!("{}:depth=1:Threads=2", path.display())).unwrap();
        let err = engine_factory(&spec, &v).err().unwrap();
        assert!(err.0.contains("has no option `Threads` (it lists: Hash, UCI_Variant)"), "{err}");
    }
}
