//! The XBoard (CECP v2) front end of [`Engine`]: reads commands line by line, answers on the
//! output, and plays its own moves when it is its turn (`move M`).
//!
//! As in the UCI loop, a reader thread reads the input so that `?` (move now), `force`, `new`,
//! `result`, `undo`, `quit`... are seen while a search runs. Commands are numbered as they are
//! read; a search started by command `n` is stopped by any interrupting command read after it,
//! and its move is thrown away (not sent, not played) when that command was not `?`, since
//! XBoard no longer expects it. Commands are otherwise handled in order, so `pong N` follows
//! every move the engine sent for the commands before `ping N`.
//!
//! Variants: XBoard's own names where fairyzero plays the same rules (normal, capablanca,
//! grand, shatranj, berolina); the other variants within XBoard's limits (one-letter pieces, no
//! setup phase, coordinate moves) are engine-defined, announced after `variant NAME` with
//! `setup (PIECETOCHAR) WxH+0_PARENT FEN` and one `piece L& BETZA` per piece so that XBoard can
//! draw the board and check the moves. Variants XBoard cannot carry are refused with the reason.
//! On boards of ten ranks XBoard numbers the ranks from 0 (a0..j9); elsewhere from 1.
//! docs/engines.md lists the commands.

use std::{
    io::{BufRead, Write},
    sync::{
        atomic::{AtomicBool, Ordering},
        mpsc, Arc, Mutex,
    },
    time::Duration,
};

use fairyzero_rules::{
    spec::variant_spec::CheckingRule,
    variant::{builtin_names, NotationStyle},
    EndReason, GameValue, Outcome, Variant,
};

use super::{uci::Output, Clock, Engine, GoLimits, Score, SearchInfo};

/// fairyzero's variants under XBoard's standard names: the same rules and start position, so
/// XBoard needs no `setup`.
const STANDARD: &[(&str, &str)] = &[
    ("chess", "normal"),
    ("capablanca", "capablanca"),
    ("grand", "grand"),
    ("shatranj", "shatranj"),
    ("berolina", "berolina"),
    ("atomic", "atomic"),
];

/// XBoard's piece slots in its piece-to-char table order (the default letter of each); the last
/// is the king, which XBoard treats as royal (check, mate).
const SLOTS: &[u8; 22] = b"PNBRQFEACWMOHIJGDVLSUK";
const KING_SLOT: usize = 21;

/// Mate scores in thinking output: `100000 + N` mates in N moves, `-100000 - N` is mated.
const XB_MATE: i32 = 100_000;

/// Commands that end a running search and make its move stale.
const ABORTING: &[&str] = &["new", "force", "result", "quit", "undo", "remove", "setboard", "variant", "exit"];

/// How a variant is carried over CECP.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Carry {
    /// Under XBoard's own name; no `setup` needed.
    Standard(&'static str),
    /// Engine-defined: `setup` and `piece` commands, with this parent variant's rules.
    Defined { parent: &'static str },
}

/// Whether and how XBoard can play `variant`; the error says why not.
pub fn carry(variant: &Variant) -> Result<Carry, String> {
    if variant.has_setup_phase() {
        return Err("it has a setup phase, which CECP cannot express".into());
    }
    if variant.has_drops() {
        // XBoard's holdings come with its own drop variants' rules (captures go to hand).
        return Err("it has pieces in hand (drops), which XBoard's engine-defined variants cannot hold".into());
    }
    if variant.rules.castling.as_ref().is_some_and(|c| c.by_moves()) {
        // Two kings a side (Double King, Double Chess), each with its own rooks.
        return Err("its kings castle only with given rooks, which XBoard's castling cannot express".into());
    }
    if variant.rules.turns.is_some() {
        return Err("a turn has several moves, and XBoard gives the move to the other side after each".into());
    }
    if variant.rules.neutral_token.is_some() {
        return Err("a neutral token copies every move and can forbid it, which XBoard's board cannot hold".into());
    }
    if variant.rules.must_mate || variant.rules.checkmate != GameValue::Loss {
        // XBoard's parents judge a mate a loss for the mated side and let a side that can mate
        // play any move.
        return Err("a side that can mate must, or being mated wins (Reflex Chess), which XBoard's rules cannot \
                    follow"
            .into());
    }
    if variant.rules.checking != CheckingRule::Any {
        return Err(
            "a move that gives check is illegal unless it mates (Checkless Chess), which XBoard's rules cannot \
                    follow"
                .into(),
        );
    }
    if variant.rules.protean.is_some() {
        return Err("its protean men change type when they capture and its first moves are choices, which XBoard's \
                    rules cannot follow"
            .into());
    }
    if variant.has_regional_moves() || variant.rules.flying_general {
        // XBoard's own xiangqi has other piece letters and coordinates; an engine-defined
        // board would lose the palace, the river and the facing generals.
        return Err("its pieces are confined to board regions or gain moves in them (palace, river), or it has the \
                    flying-general rule: XBoard's piece commands express neither"
            .into());
    }
    if variant.has_start_generator() {
        // The `setup` command sends one array; the game is a new array every time.
        return Err("its start array is drawn by chance for each game, and XBoard's setup command fixes one \
                    (play a drawn array as a position of chess with setboard)"
            .into());
    }
    if variant.wraps_files() || variant.has_grid() {
        // XBoard would draw a flat board and let its user try moves the rules forbid.
        return Err(
            "its board wraps round (cylinder) or is divided into a grid, which XBoard's board commands cannot \
                    express"
                .into(),
        );
    }
    let long: Vec<&str> = variant
        .pieces
        .iter()
        .map(|p| p.token.as_str())
        .filter(|t| t.len() != 1 || !t.as_bytes()[0].is_ascii_alphabetic())
        .collect();
    if !long.is_empty() {
        return Err(format!("XBoard names pieces by one letter; its pieces {} have longer tokens", long.join(", ")));
    }
    if variant.notation != NotationStyle::Uci {
        return Err("its moves (multiple captures, conversions, passes) have no XBoard coordinate notation".into());
    }
    if variant.has_piece_powers() {
        return Err("its pieces have powers beyond their moves (e.g. the Emperor King's roam), which XBoard's piece \
                    commands cannot express"
            .into());
    }
    let d = variant.dims;
    if d.width > 16 || d.height > 16 {
        return Err(format!("its {}x{} board is larger than XBoard's 16x16", d.width, d.height));
    }
    if let Some((_, xb)) = STANDARD.iter().find(|(n, _)| *n == variant.name) {
        return Ok(Carry::Standard(xb));
    }
    if variant.rules.explosion.is_some() || variant.rules.rebirth.is_some() {
        // XBoard's fairy rules would leave the blasted or reborn men where they were.
        return Err("its captures have side effects (explosion, rebirth) that only XBoard's own atomic applies".into());
    }
    piece_table(variant, parent(variant))?;
    Ok(Carry::Defined { parent: parent(variant) })
}

/// XBoard's variant whose rules an engine-defined variant follows: giveaway for the variants
/// where capturing is compulsory and no piece is royal, else fairy (chess rules with the
/// pieces of the `piece` commands).
fn parent(variant: &Variant) -> &'static str {
    if variant.rules.forced_capture && !variant.pieces.iter().any(|p| p.royal) {
        "giveaway"
    } else {
        "fairy"
    }
}

/// The name XBoard knows `variant` by.
pub fn xboard_name(variant: &Variant) -> String {
    match carry(variant) {
        Ok(Carry::Standard(xb)) => xb.into(),
        _ => variant.name.clone(),
    }
}

/// The `feature variants` list: every built-in variant XBoard can carry, under its XBoard name,
/// and the start-up variant if it is another.
pub fn variants_feature(current: &Variant) -> String {
    let mut names: Vec<String> = builtin_names()
        .filter_map(|n| Variant::load(n).ok())
        .filter(|v| carry(v).is_ok())
        .map(|v| xboard_name(&v))
        .collect();
    let own = xboard_name(current);
    if carry(current).is_ok() && !names.contains(&own) {
        names.push(own);
    }
    names.join(",")
}

/// The fairyzero variant `variant NAME` asks for: an XBoard name, a fairyzero name, or either
/// behind a size prefix `WxH+0_` that matches the variant's board (XBoard's form for boards of
/// other sizes, e.g. `6x6+0_fairy` for Los Alamos). Errors name the reason.
pub fn resolve_variant(name: &str) -> Result<Arc<Variant>, String> {
    let (size, base) = match name.split_once('_') {
        Some((prefix, rest)) if prefix.contains('x') && prefix.contains('+') => {
            let (wh, holdings) = prefix.split_once('+').unwrap_or((prefix, "0"));
            let (w, h) = wh.split_once('x').ok_or(format!("bad size prefix {prefix:?}"))?;
            let parse = |t: &str| t.parse::<u8>().map_err(|_| format!("bad size prefix {prefix:?}"));
            if holdings != "0" {
                return Err(format!("{prefix:?}: fairyzero's variants have no holdings"));
            }
            (Some((parse(w)?, parse(h)?)), rest)
        }
        _ => (None, name),
    };
    let fits = |v: &Variant| size.is_none_or(|(w, h)| v.dims.width == w && v.dims.height == h);
    let builtins: Vec<Arc<Variant>> = builtin_names().filter_map(|n| Variant::load(n).ok()).collect();
    // By fairyzero name or XBoard name, then (`6x6+0_fairy`) by parent and board size.
    let found = builtins.iter().find(|v| (v.name == base || xboard_name(v) == base) && fits(v)).or_else(|| {
        size.and_then(|_| {
            builtins.iter().find(|v| matches!(carry(v), Ok(Carry::Defined { parent }) if parent == base) && fits(v))
        })
    });
    let variant = match found {
        Some(v) => Arc::clone(v),
        None => {
            return Err(match builtins.iter().find(|v| v.name == base || xboard_name(v) == base) {
                Some(v) => format!("{base} is played on {}x{}, not {name}", v.dims.width, v.dims.height),
                None => format!("unknown variant {name:?} (`feature variants` lists those fairyzero plays)"),
            })
        }
    };
    carry(&variant).map_err(|why| format!("XBoard cannot play {}: {why}", variant.name))?;
    Ok(variant)
}

/// XBoard's piece-to-char table for `variant`: each piece in the slot of its own letter when
/// free (so that XBoard draws a knight as a knight), else in the next free slot; the royal
/// piece (or, under giveaway, the king) in the king slot.
fn piece_table(variant: &Variant, parent: &str) -> Result<String, String> {
    let mut slots: [Option<u8>; 22] = [None; 22];
    let mut rest = Vec::new();
    for p in &variant.pieces {
        let letter = p.token.as_bytes()[0].to_ascii_uppercase();
        if slots.iter().flatten().any(|&l| l == letter) || rest.contains(&letter) {
            return Err(format!("two pieces share the letter {}", letter as char));
        }
        if p.royal || (parent == "giveaway" && letter == b'K') {
            if slots[KING_SLOT].is_some() {
                return Err("it has more than one royal piece type".into());
            }
            slots[KING_SLOT] = Some(letter);
        } else {
            rest.push(letter);
        }
    }
    let mut unplaced = Vec::new();
    for &letter in &rest {
        // A king that is not royal (kinglet) looks like XBoard's man, which moves alike.
        let look = if letter == b'K' { b'M' } else { letter };
        match SLOTS[..KING_SLOT].iter().position(|&l| l == look) {
            Some(i) if slots[i].is_none() => slots[i] = Some(letter),
            _ => unplaced.push(letter),
        }
    }
    for letter in unplaced {
        // The pawn's slot is XBoard's pawn (promotion, double step): only a pawn goes there.
        let Some(i) = (1..KING_SLOT).find(|&i| slots[i].is_none()) else {
            return Err(format!("it has more than {} piece types", KING_SLOT));
        };
        slots[i] = Some(letter);
    }
    let white: String = slots.iter().map(|s| s.map_or('.', |l| l as char)).collect();
    Ok(format!("{white}{}", white.to_ascii_lowercase()))
}

/// The `setup` and `piece` commands that define an engine-defined variant for XBoard.
pub fn definition(variant: &Variant) -> Vec<String> {
    let Ok(Carry::Defined { parent }) = carry(variant) else { return Vec::new() };
    let Ok(table) = piece_table(variant, parent) else { return Vec::new() };
    let d = variant.dims;
    let mut lines =
        vec![format!("setup ({table}) {}x{}+0_{parent} {}", d.width, d.height, fen_to_xboard(variant, &variant.start))];
    for (i, p) in variant.pieces.iter().enumerate() {
        let mut betza = p.betza.clone();
        if let Some(c) = &variant.rules.castling {
            if c.king.index() == i {
                // XBoard's castling atom: the king's step, in files.
                betza.push_str(&format!("O{}", (c.king_files[0] - c.king_files[1]).abs() / 2));
            }
        }
        lines.push(format!("piece {}& {betza}", p.token.to_ascii_uppercase()));
    }
    lines
}

/// Every square's rank number in `text` moved by `delta` (squares are a lowercase file letter
/// and the rank's digits; a promotion letter is followed by no digit).
fn shift_ranks(text: &str, delta: i32) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_lowercase() && b.get(i + 1).is_some_and(|d| d.is_ascii_digit()) {
            let end = (i + 1..b.len()).find(|&k| !b[k].is_ascii_digit()).unwrap_or(b.len());
            let rank: i32 = text[i + 1..end].parse().unwrap_or(0);
            out.push(c as char);
            out.push_str(&(rank + delta).to_string());
            i = end;
        } else {
            out.push(c as char);
            i += 1;
        }
    }
    out
}

/// A fairyzero move as XBoard writes it: ranks from 0 on a ten-rank board.
pub fn move_to_xboard(variant: &Variant, text: &str) -> String {
    if variant.dims.height == 10 {
        shift_ranks(text, -1)
    } else {
        text.to_string()
    }
}

/// An XBoard move as fairyzero writes it.
pub fn move_from_xboard(variant: &Variant, text: &str) -> String {
    if variant.dims.height == 10 {
        shift_ranks(text, 1)
    } else {
        text.to_string()
    }
}

/// A FEN's en-passant field between the two rank numberings (the rest has no rank numbers).
fn map_fen(fen: &str, shift: impl Fn(&str) -> String) -> String {
    let mut fields: Vec<String> = fen.split_whitespace().map(str::to_string).collect();
    if let Some(ep) = fields.get_mut(3) {
        *ep = shift(ep);
    }
    fields.join(" ")
}

fn fen_to_xboard(variant: &Variant, fen: &str) -> String {
    map_fen(fen, |t| move_to_xboard(variant, t))
}

fn fen_from_xboard(variant: &Variant, fen: &str) -> String {
    map_fen(fen, |t| move_from_xboard(variant, t))
}

/// The thinking output's score: centipawns, or XBoard's mate convention.
fn xboard_score(score: Score) -> i32 {
    match score {
        Score::Cp(cp) => cp,
        Score::Mate(m) if m > 0 => XB_MATE + m,
        Score::Mate(m) => -XB_MATE + m,
    }
}

/// `RESULT {reason}` for a finished game (side 0 is White in XBoard's terms).
pub fn result_line(outcome: &Outcome) -> String {
    let colour = |i: usize| if i == 0 { "White" } else { "Black" };
    match outcome.winner() {
        Some(w) => {
            let score = if w.index() == 0 { "1-0" } else { "0-1" };
            let reason = match outcome.reason() {
                EndReason::Checkmate => format!("{} mates", colour(w.index())),
                r => format!("{} wins by {}", colour(w.index()), r.as_str()),
            };
            format!("{score} {{{reason}}}")
        }
        None => match outcome.reason() {
            EndReason::Stalemate => "1/2-1/2 {Stalemate}".into(),
            r => format!("1/2-1/2 {{Draw by {}}}", r.as_str()),
        },
    }
}

/// The state shared with the reader thread.
struct Shared {
    marks: Mutex<Marks>,
    /// The running search's stop flag.
    stop: Arc<AtomicBool>,
}

#[derive(Default)]
struct Marks {
    /// Number of the last `?` read.
    move_now: u64,
    /// Number of the last aborting command read (or of the end of the input).
    abort: u64,
}

impl Shared {
    fn marks(&self) -> std::sync::MutexGuard<'_, Marks> {
        self.marks.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Runs the CECP loop until `quit` or the end of the input. `name` is the engine's name for
/// `feature myname`.
pub fn run<R, W>(engine: &mut Engine<'_>, name: &str, input: R, out: Arc<Output<W>>)
where
    R: BufRead + Send + 'static,
    W: Write + Send + 'static,
{
    let shared = Arc::new(Shared { marks: Mutex::default(), stop: Arc::new(AtomicBool::new(false)) });
    let (tx, rx) = mpsc::channel::<(u64, String)>();
    {
        let shared = Arc::clone(&shared);
        std::thread::spawn(move || read_input(input, &tx, &shared));
    }
    let start_variant = engine.variant().name.clone();
    let mut session = Session {
        engine,
        name: name.to_string(),
        shared,
        out,
        start_variant,
        force: false,
        engine_side: 1,
        post: false,
        depth: None,
        movetime: None,
        level: None,
        time: None,
        otim: None,
        over: false,
    };
    while let Ok((n, line)) = rx.recv() {
        if !session.command(n, &line) {
            break;
        }
    }
}

/// The reader thread: numbers and forwards every line, and stops a running search at once on
/// the commands that interrupt it.
fn read_input<R: BufRead>(input: R, tx: &mpsc::Sender<(u64, String)>, shared: &Shared) {
    let mut n = 0;
    for line in input.lines() {
        let Ok(line) = line else { break };
        n += 1;
        let first = line.split_whitespace().next().unwrap_or("");
        if first == "?" {
            shared.marks().move_now = n;
            shared.stop.store(true, Ordering::SeqCst);
        } else if ABORTING.contains(&first) {
            shared.marks().abort = n;
            shared.stop.store(true, Ordering::SeqCst);
        }
        let quit = first == "quit";
        if tx.send((n, line)).is_err() || quit {
            return;
        }
    }
    shared.marks().abort = n + 1;
    shared.stop.store(true, Ordering::SeqCst);
    let _ = tx.send((n + 1, "quit".into()));
}

/// XBoard's `level MPS BASE INC`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Level {
    moves_per_session: u32,
    increment: Duration,
}

struct Session<'e, 'r, W: Write + Send> {
    engine: &'e mut Engine<'r>,
    name: String,
    shared: Arc<Shared>,
    out: Arc<Output<W>>,
    /// The variant `new` goes back to.
    start_variant: String,
    /// Force mode: the engine plays neither side.
    force: bool,
    /// The side the engine plays when not in force mode (0 White, 1 Black).
    engine_side: usize,
    post: bool,
    /// `sd`.
    depth: Option<u32>,
    /// `st`.
    movetime: Option<Duration>,
    level: Option<Level>,
    /// `time` and `otim`: the engine's and the opponent's clocks.
    time: Option<Duration>,
    otim: Option<Duration>,
    /// A result was announced or received: no more moves until `new`, `setboard` or `undo`.
    over: bool,
}

impl<W: Write + Send> Session<'_, '_, W> {
    fn error(&self, kind: &str, command: &str) {
        self.out.line(&format!("Error ({kind}): {command}"));
    }

    fn variant(&self) -> Arc<Variant> {
        Arc::clone(self.engine.variant())
    }

    /// Handles line `n`; false on `quit`.
    fn command(&mut self, n: u64, line: &str) -> bool {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let Some((&first, args)) = tokens.split_first() else { return true };
        let rest = line.trim_start()[first.len()..].trim();
        match first {
            "xboard" | "accepted" | "rejected" | "hard" | "easy" | "random" | "computer" | "name" | "rating"
            | "ics" | "draw" | "?" | "exit" | "." => {}
            "protover" => self.protover(),
            "new" => self.new_game(),
            "variant" => self.set_variant(rest, line),
            "force" => self.force = true,
            "go" => {
                self.force = false;
                self.engine_side = self.engine.position().side_to_move().index();
                self.think(n);
            }
            "playother" => {
                self.force = false;
                self.engine_side = 1 - self.engine.position().side_to_move().index();
            }
            "level" => self.level(args, line),
            "st" => match args.first().and_then(|t| t.parse::<f64>().ok()).filter(|s| *s > 0.0 && *s < 1e6) {
                Some(s) => self.movetime = Some(Duration::from_secs_f64(s)),
                None => self.error("st expects seconds", line),
            },
            "sd" => match args.first().and_then(|t| t.parse::<u32>().ok()).filter(|d| *d >= 1) {
                Some(d) => self.depth = Some(d.min(64)),
                None => self.error("sd expects a depth of at least 1", line),
            },
            "time" | "otim" => match args.first().and_then(|t| t.parse::<i64>().ok()) {
                // Centiseconds; a late GUI may report a negative clock.
                Some(cs) => {
                    let t = Some(Duration::from_millis(cs.max(0) as u64 * 10));
                    if first == "time" {
                        self.time = t;
                    } else {
                        self.otim = t;
                    }
                }
                None => self.error("expected centiseconds", line),
            },
            "usermove" => match args {
                [m] => self.user_move(n, m),
                _ => self.error("usermove expects one move", line),
            },
            "setboard" => self.setboard(rest, line),
            "undo" => {
                if self.engine.undo() {
                    self.over = false;
                } else {
                    self.error("no move to undo", line);
                }
            }
            "remove" => {
                if self.engine.moves_played() >= 2 {
                    self.engine.undo();
                    self.engine.undo();
                    self.over = false;
                } else {
                    self.error("fewer than two moves to remove", line);
                }
            }
            "ping" => self.out.line(&format!("pong {rest}")),
            "post" => self.post = true,
            "nopost" => self.post = false,
            "result" => {
                self.force = true;
                self.over = true;
            }
            "analyze" => self.error("analysis is not supported (feature analyze=0)", line),
            "quit" => return false,
            _ if looks_like_move(first) && args.is_empty() => self.user_move(n, first),
            _ => self.error("unknown command", line),
        }
        true
    }

    fn protover(&self) {
        let v = self.variant();
        self.out.line("feature done=0");
        self.out.line(&format!(
            "feature myname=\"{}\" setboard=1 usermove=1 ping=1 playother=1 time=1 reuse=1 sigint=0 sigterm=0 \
             colors=0 analyze=0 draw=0 san=0 pause=0 nps=0 memory=0 smp=0 exclude=0",
            self.name
        ));
        self.out.line(&format!("feature variants=\"{}\"", variants_feature(&v)));
        self.out.line("feature done=1");
    }

    fn new_game(&mut self) {
        if self.engine.variant().name != self.start_variant {
            let name = self.start_variant.clone();
            if let Err(e) = self.engine.set_variant(&name) {
                self.error(&format!("cannot go back to {name}: {e:#}"), "new");
            }
        }
        self.engine.new_game();
        let _ = self.engine.set_position(None, &[]);
        self.force = false;
        self.engine_side = 1;
        self.depth = None;
        self.over = false;
    }

    fn set_variant(&mut self, name: &str, line: &str) {
        let variant = match resolve_variant(name) {
            Ok(v) => v,
            Err(why) => return self.error(&why, line),
        };
        if let Err(e) = self.engine.set_variant(&variant.name) {
            return self.error(&format!("{e:#}"), line);
        }
        self.over = false;
        for l in definition(&variant) {
            self.out.line(&l);
        }
    }

    fn level(&mut self, args: &[&str], line: &str) {
        let [mps, base, inc] = args else { return self.error("level expects MPS BASE INC", line) };
        let base_ok = base.split(':').all(|p| p.parse::<u32>().is_ok());
        match (mps.parse::<u32>(), base_ok, inc.parse::<f64>()) {
            (Ok(mps), true, Ok(inc)) if (0.0..1e6).contains(&inc) => {
                // The base time itself comes with every `time` command.
                self.level = Some(Level { moves_per_session: mps, increment: Duration::from_secs_f64(inc) });
                self.movetime = None;
            }
            _ => self.error("level expects MPS BASE INC (BASE in minutes or MIN:SEC)", line),
        }
    }

    fn setboard(&mut self, fen: &str, line: &str) {
        let v = self.variant();
        if let Err(e) = self.engine.set_position(Some(&fen_from_xboard(&v, fen)), &[]) {
            return self.error(&format!("bad FEN: {e:#}"), line);
        }
        self.over = false;
        self.announce_end();
    }

    fn user_move(&mut self, n: u64, text: &str) {
        let v = self.variant();
        if self.over || self.engine.play(&move_from_xboard(&v, text)).is_err() {
            return self.out.line(&format!("Illegal move: {text}"));
        }
        if self.announce_end() {
            return;
        }
        if !self.force && self.engine.position().side_to_move().index() == self.engine_side {
            self.think(n);
        }
    }

    /// Sends the result if the game is over at the current position; whether it is.
    fn announce_end(&mut self) -> bool {
        match self.engine.outcome() {
            Some(o) => {
                self.out.line(&result_line(&o));
                self.over = true;
                true
            }
            None => false,
        }
    }

    /// The limits of the engine's move: `sd`, `st`, and the clock once `level` and `time` came.
    fn limits(&self) -> GoLimits {
        let me = self.engine_side;
        let clock = match (self.level, self.time) {
            (Some(level), Some(time)) if self.movetime.is_none() => {
                let mut c = Clock { inc: [level.increment; 2], ..Clock::default() };
                c.time[me] = Some(time);
                c.time[1 - me] = self.otim;
                if level.moves_per_session > 0 {
                    // Moves the engine still makes before the next time control.
                    let made = self.engine.position().fullmove_number().saturating_sub(1);
                    c.moves_to_go = Some(level.moves_per_session - made % level.moves_per_session);
                }
                Some(c)
            }
            _ => None,
        };
        GoLimits { depth: self.depth, movetime: self.movetime, clock, ..GoLimits::default() }
    }

    /// Searches and plays the engine's move (started by command `n`).
    fn think(&mut self, n: u64) {
        if self.over || self.announce_end() {
            return;
        }
        {
            let m = self.shared.marks();
            self.shared.stop.store(m.abort > n || m.move_now > n, Ordering::SeqCst);
        }
        let limits = self.limits();
        let v = self.variant();
        let out = Arc::clone(&self.out);
        let post = self.post;
        let stop = Arc::clone(&self.shared.stop);
        let best = self.engine.go(&limits, &stop, &mut |info: &SearchInfo| {
            if post {
                if let Some(line) = thinking_line(&v, info) {
                    out.line(&line);
                }
            }
        });
        if self.shared.marks().abort > n {
            // `force`, `new`, `undo`... came during the search: the move is stale.
            return;
        }
        match best.best {
            Some(m) => {
                self.out.line(&format!("move {}", move_to_xboard(&v, &m)));
                if let Err(e) = self.engine.play(&m) {
                    self.error(&format!("the engine's own move failed: {e:#}"), &m);
                }
                self.announce_end();
            }
            None => {
                self.announce_end();
            }
        }
    }
}

/// XBoard's thinking output `ply score time nodes pv`: score in centipawns for the side to
/// move, time in centiseconds.
fn thinking_line(variant: &Variant, info: &SearchInfo) -> Option<String> {
    let line = info.lines.first()?;
    let pv: Vec<String> = line.pv.iter().map(|m| move_to_xboard(variant, m)).collect();
    Some(format!(
        "{} {} {} {} {}",
        info.depth,
        xboard_score(line.score),
        info.elapsed.as_millis() / 10,
        info.nodes,
        pv.join(" ")
    ))
}

/// Whether a bare word is meant as a move (CECP v1 sends moves without `usermove`): a square
/// (`e2e4`, `e7e8q`, `a0a1` on ten ranks) or a drop (`P@e4`).
fn looks_like_move(word: &str) -> bool {
    let b = word.as_bytes();
    let square_start = b.len() >= 4 && b[0].is_ascii_lowercase() && b[1].is_ascii_digit();
    let drop = b.len() >= 4 && b[0].is_ascii_alphabetic() && b[1] == b'@';
    square_start || drop || word == "@@@@"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(name: &str) -> Arc<Variant> {
        Variant::load(name).unwrap()
    }

    #[test]
    fn ten_rank_boards_count_ranks_from_zero() {
        let grand = load("grand");
        assert_eq!(move_to_xboard(&grand, "a10a9"), "a9a8");
        assert_eq!(move_to_xboard(&grand, "e7e8q"), "e6e7q");
        assert_eq!(move_from_xboard(&grand, "a0a1"), "a1a2");
        assert_eq!(move_from_xboard(&grand, "P@e4"), "P@e5");
        let chess = load("chess");
        assert_eq!(move_to_xboard(&chess, "e7e8q"), "e7e8q");
        assert_eq!(fen_from_xboard(&grand, "10/10 w - e2 0 1"), "10/10 w - e3 0 1");
    }

    #[test]
    fn variants_are_standard_defined_or_refused() {
        assert_eq!(carry(&load("chess")), Ok(Carry::Standard("normal")));
        assert_eq!(carry(&load("grand")), Ok(Carry::Standard("grand")));
        assert_eq!(carry(&load("losalamos")), Ok(Carry::Defined { parent: "fairy" }));
        assert_eq!(carry(&load("antichess")), Ok(Carry::Defined { parent: "giveaway" }));
        let why = carry(&load("scirocco")).unwrap_err();
        assert!(why.contains("setup phase"), "{why}");
        let why = carry(&load("chushin")).unwrap_err();
        assert!(why.contains("one letter"), "{why}");
        let why = carry(&load("reflex")).unwrap_err();
        assert!(why.contains("mate"), "{why}");
        let why = carry(&load("checkless")).unwrap_err();
        assert!(why.contains("Checkless"), "{why}");
        let list = variants_feature(&load("chess"));
        assert!(list.starts_with("normal,capablanca,grand,shatranj,courier,antichess,losalamos"), "{list}");
        let names: Vec<&str> = list.split(',').collect();
        assert!(!names.contains(&"scirocco") && !names.contains(&"chess"), "{list}");
        assert_eq!(resolve_variant("normal").unwrap().name, "chess");
        assert_eq!(resolve_variant("6x6+0_fairy").unwrap().name, "losalamos");
        assert_eq!(resolve_variant("6x6+0_giveaway").unwrap().name, "antilosalamos");
        assert_eq!(resolve_variant("5x5+0_gardner").unwrap().name, "gardner");
        assert!(resolve_variant("8x8+0_gardner").unwrap_err().contains("5x5"));
        assert!(resolve_variant("scirocco").unwrap_err().contains("setup phase"));
        assert!(resolve_variant("xiangqi").unwrap_err().contains("board regions"));
        assert!(resolve_variant("cylinder").unwrap_err().contains("wraps round"));
        assert!(resolve_variant("grid").unwrap_err().contains("grid"));
        assert!(resolve_variant("wild2").unwrap_err().contains("drawn by chance"));
    }

    #[test]
    fn engine_defined_variants_send_setup_and_pieces() {
        let lines = definition(&load("losalamos"));
        assert_eq!(lines[0], "setup (PN.RQ................Kpn.rq................k) 6x6+0_fairy rnqknr/pppppp/6/6/PPPPPP/RNQKNR w - - 0 1");
        assert!(lines.contains(&"piece P& fmWfcF".to_string()), "{lines:?}");
        assert!(lines.contains(&"piece K& K".to_string()), "{lines:?}");
        // Kinglet's king is not royal: it takes the man's slot, and the king slot stays empty.
        let lines = definition(&load("kinglet"));
        assert!(
            lines[0].starts_with("setup (PNBRQ.....K..........") && lines[0].contains(".) 8x8+0_fairy "),
            "{}",
            lines[0]
        );
        assert!(lines.contains(&"piece K& KO2".to_string()) || lines.contains(&"piece K& K".to_string()), "{lines:?}");
        assert!(definition(&load("chess")).is_empty());
    }

    #[test]
    fn results_and_scores_read_as_xboard_expects() {
        use fairyzero_rules::Color;
        let mate = Outcome::Decisive { winner: Color::Blue, reason: EndReason::Checkmate };
        assert_eq!(result_line(&mate), "1-0 {White mates}");
        let bare = Outcome::Decisive { winner: Color::Tan, reason: EndReason::Stalemate };
        assert_eq!(result_line(&bare), "0-1 {Black wins by stalemate}");
        assert_eq!(result_line(&Outcome::Draw { reason: EndReason::Repetition }), "1/2-1/2 {Draw by repetition}");
        assert_eq!(xboard_score(Score::Mate(2)), 100_002);
        assert_eq!(xboard_score(Score::Mate(-1)), -100_001);
        assert_eq!(xboard_score(Score::Cp(-35)), -35);
        assert!(looks_like_move("e2e4") && looks_like_move("P@e4") && looks_like_move("a0a1"));
        assert!(!looks_like_move("new") && !looks_like_move("e2"));
    }
}
