//! `fairyzero play`: a person plays a net or a baseline player on a local web page.
//!
//! A small blocking HTTP server (tiny_http; one person's game needs no async runtime) serves
//! one self-contained page (`assets/play.html`, with the viewer's board drawing inlined: see
//! [`crate::viewer::with_board`]) and a JSON API:
//! - `GET /state`: the game (see [`Session::state`]): position string, board, side to move,
//!   the legal moves (each with the square it starts from and the square it goes to, and the
//!   same moves grouped by their start square), the moves played, the result;
//! - `POST /move` with `{"move": "e2e4"}` (the project's notation, docs/notation.md): plays
//!   it, then the engine plays until the turn comes back to the person (or the game ends), and
//!   the new state comes back; an illegal or malformed move is answered 400 with a message
//!   naming the move and why;
//! - `POST /new`: a new game (the one in progress stays in the record).
//!
//! The page knows no rules: every move it offers is one of the legal moves the server sent.
//! Requests are answered one at a time, in this thread: while the engine thinks, the next
//! request waits (one person plays one game; nothing else would change the position meanwhile).
//!
//! The server listens on loopback unless `--allow-remote`: anyone who can reach the page can
//! play moves. Two guards keep other web sites out of a loopback server the person's own
//! browser can reach: requests must name a loopback host (DNS rebinding), and POST bodies must
//! be `application/json`, which a cross-site form cannot send without a CORS preflight that
//! this server never grants.
//!
//! With `--out FILE.jsonl` the games are kept as match records (the format `fairyzero match`
//! writes and `show-game` reads: [`MatchGame`]), rewritten atomically after every move. A game
//! still in progress (or left for a new one) is `adjourned` (PGN's `*`): viewable, never rated;
//! a finished game has its real result.

use std::{
    io::{Read, Write},
    net::{IpAddr, SocketAddr},
    path::PathBuf,
    sync::{atomic::Ordering, Arc},
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use anyhow::{bail, Context, Result};
use fairyzero_evaluator::{
    matches::{self, GameResult, MatchGame, RECORD_VERSION},
    player::{GameContext, Player},
    ranking::write_atomic,
    Contestant, PlayerSpec, Termination,
};
use fairyzero_rules::{Color, Move, MoveKind, MoveList, Position, Square, Variant};
use fairyzero_selfplay::record;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};
use tiny_http::{Header, Method, Request, Response, Server};

use crate::{network::NetRuntime, viewer};

const PAGE: &str = include_str!("../../assets/play.html");

/// The largest request body read: a move's JSON is tens of bytes.
const MAX_BODY: u64 = 64 * 1024;

/// How often the server loop looks at the stop flag (Ctrl-C) while no request comes.
const POLL: Duration = Duration::from_millis(100);

#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("opponent").required(true).args(["net", "engine"])))]
pub struct PlayArgs {
    /// Variant: a built-in name or alias (`fairyzero variants`) or a path to a TOML file
    #[arg(long)]
    pub variant: String,

    /// Play against this net: a checkpoint or exported net folder (e.g. models/losalamos),
    /// with an optional search budget in simulations per move, DIR@SIMS (default 100)
    #[arg(long, value_name = "DIR[@SIMS]", value_parser = parse_net)]
    pub net: Option<PlayerSpec>,

    /// Play against this player instead of a net, in `match`'s forms: random, greedy,
    /// alphabeta:DEPTH[:nodes=N][:ms=N], uci:PATH:depth=N, ...
    #[arg(long, value_name = "PLAYER", value_parser = PlayerSpec::parse, conflicts_with = "net")]
    pub engine: Option<PlayerSpec>,

    /// The side you play: white (the first player, Blue) or black (the second, Tan)
    #[arg(long, value_enum, default_value = "white")]
    pub side: Side,

    /// Address to serve the page on (port 0: any free port; the URL is printed). Only loopback
    /// addresses unless --allow-remote
    #[arg(long, default_value = "127.0.0.1:8080", value_name = "ADDR:PORT", value_parser = parse_listen)]
    pub listen: SocketAddr,

    /// Allow a --listen address other than loopback: anyone who can reach it can play moves
    #[arg(long)]
    pub allow_remote: bool,

    /// Keep the games in this match record file (FILE.jsonl, read by `show-game`), rewritten
    /// after every move; games already in it are kept
    #[arg(long, value_name = "FILE.jsonl")]
    pub out: Option<PathBuf>,

    /// Seed of the engine's random choices (random and greedy players, a net's Gumbel noise)
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

impl PlayArgs {
    /// The opponent: `--net`'s checkpoint or `--engine`'s player.
    fn opponent(&self) -> &PlayerSpec {
        self.net.as_ref().or(self.engine.as_ref()).expect("clap requires --net or --engine")
    }

    /// Whether the opponent is a network (then `fairyzero-torch` runs the command).
    pub fn needs_libtorch(&self) -> bool {
        matches!(self.opponent(), PlayerSpec::Checkpoint { .. })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Side {
    #[value(alias = "blue")]
    White,
    #[value(alias = "tan")]
    Black,
}

impl Side {
    fn color(self) -> Color {
        match self {
            Side::White => Color::Blue,
            Side::Black => Color::Tan,
        }
    }
}

/// `--net DIR[@SIMS]`: a checkpoint player; a baseline's name belongs in `--engine`.
fn parse_net(text: &str) -> Result<PlayerSpec, String> {
    match PlayerSpec::parse(text).map_err(|e| e.to_string())? {
        spec @ PlayerSpec::Checkpoint { .. } => Ok(spec),
        other => Err(format!("`{other}` is not a net folder; give players like it with --engine")),
    }
}

/// `--listen ADDR:PORT`: an IP address and port, or `localhost:PORT`.
fn parse_listen(text: &str) -> Result<SocketAddr, String> {
    if let Some(port) = text.strip_prefix("localhost:") {
        let port: u16 = port.parse().map_err(|_| format!("bad port {port:?}"))?;
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    text.parse().map_err(|_| format!("expected ADDR:PORT, e.g. 127.0.0.1:8080 or [::1]:8080, not {text:?}"))
}

/// `--listen` as allowed: loopback, or anything with `--allow-remote`.
fn check_listen(addr: SocketAddr, allow_remote: bool) -> Result<()> {
    if !addr.ip().is_loopback() && !allow_remote {
        bail!(
            "--listen {addr}: not a loopback address; anyone who can reach the page can play moves on it, so \
             fairyzero play only listens on loopback (127.0.0.1, [::1]) unless --allow-remote is given"
        );
    }
    Ok(())
}

pub fn run(args: PlayArgs, net: &dyn NetRuntime) -> Result<()> {
    check_listen(args.listen, args.allow_remote)?;
    if let Some(out) = &args.out {
        if out.extension().is_none_or(|e| e != "jsonl") {
            bail!("--out {}: the file must end in .jsonl (match records, which show-game reads)", out.display());
        }
    }
    let variant = Variant::load(&args.variant).context("loading the variant")?;
    // Checked before the engine loads: the page could not draw the board.
    viewer::board_geometry(&variant)?;
    let spec = args.opponent();
    let search = super::matches::player_search(spec, None, None)?;
    let opponent = super::matches::contestant(spec, &variant, &search, None, net)
        .with_context(|| format!("the opponent {spec}"))?;
    let mut session = Session::new(variant, opponent, args.side.color(), args.out.clone(), args.seed)?;
    session.save()?;

    let server = Server::http(args.listen).map_err(|e| anyhow::anyhow!("--listen {}: {e}", args.listen))?;
    let bound = server.server_addr().to_ip().context("the server's address")?;
    let stop = crate::interrupt::stop_flag();
    // The tests read this line for the port that `:0` got.
    println!("fairyzero play: {} on http://{bound}/ (Ctrl-C stops)", session.title());
    if let Some(out) = &args.out {
        println!("games are saved to {}", out.display());
    }
    std::io::stdout().flush().ok();
    let guard = HostGuard { port: bound.port(), allow_remote: args.allow_remote };
    while !stop.load(Ordering::Relaxed) {
        match server.recv_timeout(POLL) {
            Ok(Some(request)) => handle(&mut session, &guard, request),
            Ok(None) => {}
            Err(e) => return Err(e).context("the HTTP server"),
        }
    }
    match &args.out {
        Some(out) => println!("stopped; the games are in {}", out.display()),
        None => println!("stopped"),
    }
    Ok(())
}

/// An HTTP answer: status and JSON (or the page).
struct Answer {
    status: u16,
    body: String,
    content_type: &'static str,
}

impl Answer {
    fn json(status: u16, value: &Value) -> Answer {
        Answer { status, body: value.to_string(), content_type: "application/json" }
    }

    fn error(status: u16, message: impl Into<String>) -> Answer {
        Answer::json(status, &json!({ "error": message.into() }))
    }
}

/// Which Host headers the server answers: see the module documentation.
struct HostGuard {
    port: u16,
    allow_remote: bool,
}

impl HostGuard {
    fn allows(&self, host: Option<&str>) -> bool {
        let Some(host) = host else {
            // Browsers always send one; a client without one is not a page in a browser.
            return true;
        };
        if self.allow_remote {
            return true;
        }
        let name = match host.strip_prefix('[') {
            Some(rest) => rest.split(']').next().unwrap_or(""),
            None => host.rsplit_once(':').map_or(host, |(name, _)| name),
        };
        name.eq_ignore_ascii_case("localhost") || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
    }
}

fn handle(session: &mut Session, guard: &HostGuard, mut request: Request) {
    let header = |name: &str| {
        request
            .headers()
            .iter()
            .find(|h| h.field.as_str().as_str().eq_ignore_ascii_case(name))
            .map(|h| h.value.as_str().to_string())
    };
    let (host, content_type) = (header("Host"), header("Content-Type"));
    let method = request.method().clone();
    let path = request.url().split('?').next().unwrap_or("").to_string();
    let answer = if !guard.allows(host.as_deref()) {
        Answer::error(403, format!("host {:?} is not this loopback server (port {})", host, guard.port))
    } else {
        match (&method, path.as_str()) {
            (Method::Get, "/") => Answer {
                status: 200,
                body: viewer::with_board(PAGE).replace("{{TITLE}}", &viewer::html_escape(&session.title())),
                content_type: "text/html; charset=utf-8",
            },
            (Method::Get, "/state") => Answer::json(200, &session.state()),
            (Method::Post, "/move" | "/new")
                if !content_type.as_deref().is_some_and(|t| t.starts_with("application/json")) =>
            {
                Answer::error(415, "POST bodies must be sent as Content-Type: application/json")
            }
            (Method::Post, "/move") => match read_body(&mut request).and_then(|body| parse_move_body(&body)) {
                Err(message) => Answer::error(400, message),
                Ok(text) => match session.human_move(&text) {
                    Ok(()) => Answer::json(200, &session.state()),
                    Err(PlayError::Refused(message)) => Answer::error(400, message),
                    Err(PlayError::Failed(e)) => Answer::error(500, format!("{e:#}")),
                },
            },
            (Method::Post, "/new") => match session.new_game() {
                Ok(()) => Answer::json(200, &session.state()),
                Err(e) => Answer::error(500, format!("{e:#}")),
            },
            (_, "/" | "/state" | "/move" | "/new") => {
                Answer::error(405, format!("{method} {path}: GET / and /state, POST /move and /new"))
            }
            _ => Answer::error(404, format!("no such page {path:?}: GET / and /state, POST /move and /new")),
        }
    };
    if answer.status >= 500 {
        tracing::error!("{method} {path}: {}", answer.body);
    }
    let response = Response::from_string(answer.body)
        .with_status_code(answer.status)
        .with_header(Header::from_bytes("Content-Type", answer.content_type).expect("a valid header"))
        .with_header(Header::from_bytes("Cache-Control", "no-store").expect("a valid header"));
    if let Err(e) = request.respond(response) {
        // The browser went away mid-answer: its next request gets the state again.
        tracing::debug!("{method} {path}: answer not sent: {e}");
    }
}

fn read_body(request: &mut Request) -> Result<String, String> {
    let mut body = String::new();
    request
        .as_reader()
        .take(MAX_BODY + 1)
        .read_to_string(&mut body)
        .map_err(|e| format!("unreadable request body (UTF-8 JSON expected): {e}"))?;
    if body.len() as u64 > MAX_BODY {
        return Err(format!("request body over {MAX_BODY} bytes"));
    }
    Ok(body)
}

/// The move of a `POST /move` body, `{"move": "e2e4"}`.
fn parse_move_body(body: &str) -> Result<String, String> {
    let expected = r#"expected {"move": "<move in the variant's notation>"}"#;
    let value: Value = serde_json::from_str(body).map_err(|e| format!("malformed request body ({e}): {expected}"))?;
    match value.get("move").and_then(Value::as_str) {
        Some(m) if value.as_object().is_some_and(|o| o.len() == 1) => Ok(m.trim().to_string()),
        _ => Err(format!("malformed request body {body:?}: {expected}")),
    }
}

/// Why a move was not played.
enum PlayError {
    /// The person's mistake (illegal move, game over, not their turn): HTTP 400.
    Refused(String),
    /// The server's: the record could not be written.
    Failed(anyhow::Error),
}

/// How a game ended.
#[derive(Clone, Debug)]
struct Ended {
    result: GameResult,
    reason: Termination,
    /// Why the engine forfeited (an external engine that crashed or answered nonsense).
    forfeit: Option<String>,
}

/// The game in progress, its engine, and the games kept in the record file.
struct Session {
    variant: Arc<Variant>,
    opponent: Contestant,
    engine: Box<dyn Player>,
    rng: ChaCha8Rng,
    human: Color,
    start: Position,
    pos: Position,
    moves: Vec<String>,
    /// What the last move changed (`viewer::changes`), for the page's highlight.
    last_changes: Option<Value>,
    /// The ply at which the game stops as a draw (the variant's move cap), as in matches.
    cap_ply: u32,
    ended: Option<Ended>,
    out: Option<PathBuf>,
    /// Games already in the file and the earlier games of this session.
    earlier: Vec<MatchGame>,
    match_id: String,
}

impl Session {
    fn new(
        variant: Arc<Variant>,
        opponent: Contestant,
        human: Color,
        out: Option<PathBuf>,
        seed: u64,
    ) -> Result<Session> {
        let earlier = match &out {
            Some(path) if path.exists() => read_records(path)?,
            _ => Vec::new(),
        };
        let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let start = matches::start_position(&variant);
        let mut session = Session {
            engine: opponent.player(),
            opponent,
            rng: ChaCha8Rng::seed_from_u64(seed),
            human,
            pos: start.clone(),
            cap_ply: start.ply().saturating_add(variant.rules.move_cap),
            start,
            variant,
            moves: Vec::new(),
            last_changes: None,
            ended: None,
            out,
            earlier,
            match_id: format!("play-{secs}"),
        };
        session.begin()?;
        Ok(session)
    }

    fn title(&self) -> String {
        format!("{}: you ({}) against {}", self.variant.name, self.human.name(), self.opponent.name)
    }

    /// Starts the game at the variant's start; the engine moves first if it has the first turn.
    fn begin(&mut self) -> Result<()> {
        self.pos = self.start.clone();
        self.moves.clear();
        self.last_changes = None;
        self.ended = None;
        self.engine.new_game(&self.pos, &GameContext { cap_ply: self.cap_ply });
        self.check_end();
        self.engine_turns()
    }

    /// `POST /new`: the game so far joins the earlier ones (if it has a move), a new one starts.
    fn new_game(&mut self) -> Result<()> {
        if let Some(game) = self.record() {
            self.earlier.push(game);
        }
        self.engine = self.opponent.player();
        self.begin()?;
        self.save()
    }

    /// Plays the person's move, then the engine's until it is the person's turn again.
    fn human_move(&mut self, text: &str) -> Result<(), PlayError> {
        let refuse = |why: String| Err(PlayError::Refused(format!("move {text:?} refused: {why}")));
        if text.is_empty() {
            return Err(PlayError::Refused("empty move: give one in the variant's notation, e.g. e2e4".into()));
        }
        if let Some(ended) = &self.ended {
            return refuse(format!("the game is over ({}); start a new one", result_text(ended)));
        }
        if self.pos.side_to_move() != self.human {
            return refuse(format!("it is {}'s turn, the engine's", self.pos.side_to_move().name()));
        }
        let m = match self.pos.parse_move(text) {
            Ok(m) => m,
            // The rules' own message: not a move string (and why), or not legal here.
            Err(e) => return refuse(e.message),
        };
        self.make(m);
        self.save().map_err(PlayError::Failed)?;
        self.engine_turns().map_err(PlayError::Failed)
    }

    /// The engine plays while it has the turn (several moves in a row where the variant's turns
    /// say so), saving after each.
    fn engine_turns(&mut self) -> Result<()> {
        while self.ended.is_none() && self.pos.side_to_move() != self.human {
            let mut legal = MoveList::new();
            self.pos.legal_moves(&mut legal);
            let side = self.pos.side_to_move();
            match self.engine.try_choose(&mut self.pos, &legal, &mut self.rng) {
                Ok(m) if legal.contains(&m) => self.make(m),
                Ok(m) => {
                    let text = self.pos.move_to_string(&m);
                    tracing::error!("the engine played {text}, which is not legal here: it loses");
                    self.ended = Some(Ended {
                        result: GameResult::win_for(side.other()),
                        reason: Termination::IllegalMove,
                        forfeit: None,
                    });
                }
                Err(reason) => {
                    tracing::error!("the engine forfeits: {reason}");
                    self.ended = Some(Ended {
                        result: GameResult::win_for(side.other()),
                        reason: Termination::Forfeit,
                        forfeit: Some(reason),
                    });
                }
            }
            self.save()?;
        }
        Ok(())
    }

    /// Plays a legal move and sees whether the game ended.
    fn make(&mut self, m: Move) {
        let mover = self.pos.side_to_move();
        let text = self.pos.move_to_string(&m);
        let before = self.pos.board().to_vec();
        self.pos.make(m);
        self.last_changes = Some(viewer::changes(&before, self.pos.board(), mover));
        self.moves.push(text);
        self.check_end();
    }

    /// The rules' result, or the move cap's draw (as matches adjudicate by default).
    fn check_end(&mut self) {
        let mut legal = MoveList::new();
        self.pos.legal_moves(&mut legal);
        if let Some(o) = self.pos.outcome_with(&legal) {
            self.ended = Some(Ended { result: GameResult::from_outcome(&o), reason: o.reason().into(), forfeit: None });
        } else if self.pos.ply() >= self.cap_ply && !self.pos.in_setup() {
            self.ended = Some(Ended { result: GameResult::Draw, reason: Termination::MoveCap, forfeit: None });
        }
    }

    /// The game so far as a match record; `None` before the first move.
    fn record(&self) -> Option<MatchGame> {
        if self.moves.is_empty() {
            return None;
        }
        // Unfinished (in progress, or left for a new game): adjourned, which no rating counts.
        let ended = self.ended.clone().unwrap_or(Ended {
            result: GameResult::Draw,
            reason: Termination::Adjourned,
            forfeit: None,
        });
        let names = if self.human == Color::Blue {
            ["human".to_string(), self.opponent.name.clone()]
        } else {
            [self.opponent.name.clone(), "human".to_string()]
        };
        let steps = if self.human == Color::Blue { [None, self.opponent.step] } else { [self.opponent.step, None] };
        let text = self.moves.join(" ");
        let [blue, tan] = names;
        Some(MatchGame {
            version: RECORD_VERSION,
            match_id: self.match_id.clone(),
            variant: self.variant.name.clone(),
            variant_hash: format!("{:016x}", self.variant.hash),
            blue,
            tan,
            blue_step: steps[0],
            tan_step: steps[1],
            result: ended.result,
            reason: ended.reason,
            plies: self.moves.len() as u32,
            opening: 0,
            opening_moves: String::new(),
            moves_hash: matches::moves_hash("", self.moves.iter().map(String::as_str)),
            moves: Some(text),
            game: self.earlier.len(),
            forfeit: ended.forfeit,
        })
    }

    /// Rewrites the record file (if any) with the earlier games and this one, atomically.
    fn save(&self) -> Result<()> {
        let Some(out) = &self.out else { return Ok(()) };
        let mut text = String::new();
        for game in self.earlier.iter().chain(self.record().as_ref()) {
            text.push_str(&serde_json::to_string(game).context("writing a game as JSON")?);
            text.push('\n');
        }
        write_atomic(out, text.as_bytes()).with_context(|| format!("--out {}: saving the game", out.display()))
    }

    /// The game as the page and the API see it.
    fn state(&self) -> Value {
        let mut data = viewer::board_geometry(&self.variant).expect("checked at start-up");
        let dims = self.variant.dims;
        let name = |sq: Square| dims.square_name(sq);
        let your_turn = self.ended.is_none() && self.pos.side_to_move() == self.human;
        let mut legal = Vec::new();
        let mut by_from = serde_json::Map::new();
        if your_turn {
            let mut moves = MoveList::new();
            let mut pos = self.pos.clone();
            pos.legal_moves(&mut moves);
            for m in &moves {
                let text = pos.move_to_string(m);
                let (from, to) = click_squares(m, &text);
                if let Some(from) = from {
                    let list = by_from.entry(name(from)).or_insert_with(|| json!([]));
                    list.as_array_mut().expect("an array").push(json!(text));
                }
                legal.push(json!({
                    "move": text,
                    "from": from.map(|s| s.index()),
                    "to": to.map(|s| s.index()),
                }));
            }
        }
        data["title"] = json!(self.title());
        data["engine"] = json!(self.opponent.name);
        data["human"] = json!(self.human.name());
        data["fen"] = json!(self.pos.to_fen());
        data["board"] = viewer::board_json(&self.pos);
        data["to_move"] = json!(self.pos.side_to_move().name());
        data["your_turn"] = json!(your_turn);
        data["setup"] = json!(self.pos.in_setup());
        data["moves"] = json!(self.moves);
        data["last"] = self.last_changes.clone().unwrap_or(Value::Null);
        data["legal"] = Value::Array(legal);
        data["legal_by_from"] = Value::Object(by_from);
        data["result"] = match &self.ended {
            None => Value::Null,
            Some(e) => json!({
                "score": e.result.text(),
                "winner": e.result.winner().map(Color::name),
                "reason": e.reason.as_str(),
                "text": result_text(e),
            }),
        };
        data["record"] = json!(self.out.as_ref().map(|p| p.display().to_string()));
        data["game"] = json!(self.earlier.len());
        data
    }
}

fn result_text(e: &Ended) -> String {
    let who = match e.result.winner() {
        Some(c) => format!("{} wins", c.name()),
        None => "draw".into(),
    };
    format!("{} {who} by {}", e.result.text(), e.reason.as_str())
}

/// Where the page's clicks find a move: the square it starts from (the piece clicked first)
/// and the square clicked second. Drops and setup plies start from no square (the page offers
/// them on their target square), a whole side's `pass` has neither; a piece's pass, igui and
/// other moves that stay on their square have `to == from` (the page offers them on a second
/// click on the piece). A doubled turn is found by its first action.
fn click_squares(m: &Move, text: &str) -> (Option<Square>, Option<Square>) {
    let some = |sq: Square| (sq != Square::NONE).then_some(sq);
    let first = m.first_action();
    match first.kind {
        MoveKind::Drop | MoveKind::Setup => (None, some(first.to)),
        MoveKind::Pass if text == "pass" => (None, None),
        _ => {
            let from = some(first.from);
            (from, some(first.to).or(from))
        }
    }
}

/// The games already in a record file that `--out` names: they are kept.
fn read_records(path: &std::path::Path) -> Result<Vec<MatchGame>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("--out {}: reading it", path.display()))?;
    let mut games = Vec::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let game: MatchGame = record::from_json_line(line).map_err(|e| {
            anyhow::anyhow!(
                "--out {}:{}: not a match record ({e}); the games are added to such a file: name a new file",
                path.display(),
                n + 1
            )
        })?;
        games.push(game);
    }
    Ok(games)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::WithoutLibtorch;

    fn session(variant: &str, engine: &str, human: Color, out: Option<PathBuf>) -> Session {
        let v = Variant::load(variant).unwrap();
        let spec = PlayerSpec::parse(engine).unwrap();
        let search = super::super::matches::player_search(&spec, None, None).unwrap();
        let c = super::super::matches::contestant(&spec, &v, &search, None, &WithoutLibtorch).unwrap();
        Session::new(v, c, human, out, 7).unwrap()
    }

    #[test]
    fn the_engine_answers_and_refusals_name_the_move() {
        let mut s = session("chess", "alphabeta:1", Color::Blue, None);
        assert!(s.moves.is_empty(), "Blue is the person's: the engine waits");
        s.human_move("e2e4").ok().unwrap();
        assert_eq!(s.moves.len(), 2, "the engine answered: {:?}", s.moves);
        let state = s.state();
        assert_eq!(state["your_turn"], true);
        let mut knight: Vec<&str> =
            state["legal_by_from"]["g1"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
        knight.sort_unstable();
        assert_eq!(knight, ["g1e2", "g1f3", "g1h3"], "moves grouped by their start square");
        for (bad, why) in [("e2e5", "not a legal move"), ("zz", ""), ("", "empty move")] {
            let Err(PlayError::Refused(message)) = s.human_move(bad) else { panic!("{bad} accepted") };
            assert!(message.contains(why), "{message}");
            if !bad.is_empty() {
                assert!(message.contains(&format!("{bad:?}")), "{message}");
            }
        }
        assert_eq!(s.moves.len(), 2, "refused moves change nothing");
    }

    /// The person as the second player: the engine opens; setup plies (Scirocco) are offered
    /// on their target squares, and the engine answers each of the person's.
    #[test]
    fn the_engine_opens_for_black_and_setup_plies_start_from_no_square() {
        let s = session("chess", "greedy", Color::Tan, None);
        assert_eq!(s.moves.len(), 1, "the engine played first");
        let mut s = session("scirocco", "random", Color::Blue, None);
        let mut setup_plies = 0;
        for _ in 0..40 {
            let state = s.state();
            let legal = state["legal"].as_array().unwrap();
            if state["setup"] == true {
                setup_plies += 1;
                assert!(legal.iter().all(|m| m["from"].is_null() && m["to"].is_u64()), "{legal:?}");
            }
            let first = legal[0]["move"].as_str().unwrap().to_string();
            s.human_move(&first).ok().unwrap();
            assert!(s.pos.side_to_move() == Color::Blue || s.ended.is_some(), "the engine plays its whole turn");
            if s.ended.is_some() {
                break;
            }
        }
        assert!(setup_plies > 0, "Scirocco starts with its setup phase");
        assert!(s.moves.len() > 40, "the engine answered: {:?}", s.moves);
    }

    #[test]
    fn listen_addresses_and_bodies_are_checked() {
        assert!(check_listen("127.0.0.1:0".parse().unwrap(), false).is_ok());
        assert!(check_listen("[::1]:80".parse().unwrap(), false).is_ok());
        let err = check_listen("0.0.0.0:8080".parse().unwrap(), false).unwrap_err().to_string();
        assert!(err.contains("--allow-remote") && err.contains("0.0.0.0:8080"), "{err}");
        assert!(check_listen("0.0.0.0:8080".parse().unwrap(), true).is_ok());
        assert_eq!(parse_listen("localhost:9").unwrap(), "127.0.0.1:9".parse().unwrap());
        assert!(parse_listen("nowhere").is_err());
        let guard = HostGuard { port: 8080, allow_remote: false };
        for ok in ["127.0.0.1:8080", "localhost:8080", "[::1]:8080", "LOCALHOST"] {
            assert!(guard.allows(Some(ok)), "{ok}");
        }
        assert!(!guard.allows(Some("evil.example:8080")));
        assert_eq!(parse_move_body(r#"{"move": " e2e4 "}"#).unwrap(), "e2e4");
        for bad in ["", "e2e4", r#"{"mv": "e2e4"}"#, r#"{"move": 3}"#, r#"{"move": "a", "x": 1}"#] {
            assert!(parse_move_body(bad).unwrap_err().contains("expected {\"move\""), "{bad}");
        }
        assert!(parse_net("greedy").unwrap_err().contains("--engine"));
    }

    /// The record: a match game `show-game` reads, rewritten after every move, earlier games kept.
    #[test]
    fn games_are_saved_as_match_records() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("games.jsonl");
        let mut s = session("chess", "alphabeta:1", Color::Blue, Some(out.clone()));
        s.save().unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "", "no game before the first move");
        s.human_move("f2f3").ok().unwrap();
        let line = std::fs::read_to_string(&out).unwrap();
        let game: MatchGame = record::from_json_line(line.trim()).unwrap();
        assert_eq!((game.blue.as_str(), game.tan.as_str(), game.plies), ("human", "alphabeta:1", 2));
        assert_eq!(game.moves.as_deref(), Some(s.moves.join(" ").as_str()));
        assert_eq!(game.reason, Termination::Adjourned, "unfinished: adjourned");
        assert!(!game.is_finished() && game.score_of("human").is_none(), "an adjourned game is not rated");
        s.new_game().unwrap();
        s.human_move("e2e4").ok().unwrap();
        drop(s);
        let s = session("chess", "alphabeta:1", Color::Blue, Some(out.clone()));
        assert_eq!(s.earlier.len(), 2, "both games are kept when the file is opened again");
        assert_eq!(s.earlier[1].game, 1);
        std::fs::write(&out, "not json\n").unwrap();
        let v = Variant::load("chess").unwrap();
        let c = Contestant::new("x", true, None, || Box::new(fairyzero_evaluator::player::RandomPlayer));
        let err = Session::new(v, c, Color::Blue, Some(out), 0).err().unwrap().to_string();
        assert!(err.contains("games.jsonl:1") && err.contains("not a match record"), "{err}");
    }
}
