//! `fairyzero play`: the real binary serving its page and API on a free loopback port. A whole
//! Los Alamos game against `alphabeta:1` through the HTTP API (refusals included), its record
//! read back by `show-game`, Ctrl-C, the refusal of a non-loopback address, clicks on the page
//! in headless Chromium (driven over the DevTools protocol on a pipe: a piece and its target,
//! and a Scirocco setup ply through the chooser), and a shipped net.

mod common;

use std::{
    fs::{File, OpenOptions},
    io::{BufRead, BufReader, Read, Write},
    net::TcpStream,
    path::Path,
    process::{Child, Command, Stdio},
    sync::mpsc,
    time::{Duration, Instant},
};

use common::{fairyzero, stderr, stdout};
use serde_json::{json, Value};

/// A running `fairyzero play`, killed when dropped (a failed test leaves no server behind).
struct Play {
    child: Child,
    /// `127.0.0.1:PORT`, as the server printed it.
    addr: String,
    /// The rest of its stdout, line by line.
    lines: mpsc::Receiver<String>,
}

impl Play {
    fn start(args: &[&str]) -> Play {
        let mut all = vec!["play", "--listen", "127.0.0.1:0"];
        all.extend_from_slice(args);
        let mut child = common::command(&all)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("cannot start fairyzero play");
        let lines = common::stdout_lines(child.stdout.take().unwrap());
        // A net's helper loads libtorch first: allow it some seconds.
        let first = lines.recv_timeout(Duration::from_secs(60)).expect("fairyzero play printed no address");
        let addr = first
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_else(|| panic!("no URL in {first:?}"))
            .to_string();
        assert!(addr.starts_with("127.0.0.1:") && !addr.ends_with(":0"), "{first}");
        Play { child, addr, lines }
    }

    /// One request; the status and the JSON answer.
    fn request(&self, method: &str, path: &str, body: Option<&str>) -> (u16, Value) {
        let (status, text) = http(&self.addr, method, path, body, &[]);
        let value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{method} {path}: not JSON ({e}): {text}"));
        (status, value)
    }

    fn state(&self) -> Value {
        let (status, state) = self.request("GET", "/state", None);
        assert_eq!(status, 200, "{state}");
        state
    }

    /// `POST /move`; the status and the answer.
    fn play(&self, mv: &str) -> (u16, Value) {
        self.request("POST", "/move", Some(&json!({ "move": mv }).to_string()))
    }

    /// Sends SIGINT (Ctrl-C) and expects a clean stop: exit status 130, `stopped` printed.
    fn interrupt(mut self) {
        let status = Command::new("kill").args(["-INT", &self.child.id().to_string()]).status().unwrap();
        assert!(status.success());
        let deadline = Instant::now() + Duration::from_secs(10);
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "fairyzero play did not stop on SIGINT");
            std::thread::sleep(Duration::from_millis(20));
        };
        assert_eq!(status.code(), Some(130), "a job stopped by SIGINT says so");
        let rest: Vec<String> = self.lines.try_iter().collect();
        assert!(rest.iter().any(|l| l.starts_with("stopped")), "{rest:?}");
    }
}

impl Drop for Play {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A minimal HTTP/1.1 client: one request on its own connection; the status and the body.
fn http(addr: &str, method: &str, path: &str, body: Option<&str>, headers: &[(&str, &str)]) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap_or_else(|e| panic!("connect {addr}: {e}"));
    stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let body = body.unwrap_or("");
    let mut head = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n", body.len());
    let has = |name: &str| headers.iter().any(|(h, _)| h.eq_ignore_ascii_case(name));
    if !has("Host") {
        head.push_str(&format!("Host: {addr}\r\n"));
    }
    if method == "POST" && !has("Content-Type") {
        head.push_str("Content-Type: application/json\r\n");
    }
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    stream.write_all(format!("{head}\r\n{body}").as_bytes()).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or_else(|| panic!("no HTTP answer: {answer:?}"));
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).expect("a status line");
    (status, body.to_string())
}

/// Moves of the state's legal list.
fn legal(state: &Value) -> Vec<String> {
    state["legal"].as_array().unwrap().iter().map(|m| m["move"].as_str().unwrap().to_string()).collect()
}

#[test]
fn a_whole_game_is_played_through_the_api_and_recorded_for_show_game() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("games.jsonl");
    let play = Play::start(&["--variant", "losalamos", "--engine", "alphabeta:1", "--out", out.to_str().unwrap()]);

    // The page: one self-contained document with the shared board script.
    let (status, page) = http(&play.addr, "GET", "/", None, &[]);
    assert_eq!(status, 200);
    assert!(page.contains("function makeBoard") && page.contains("/state"), "the play page");
    for external in ["src=", "<link", "url(", "@import"] {
        assert!(!page.contains(external), "the page must be self-contained, found {external}");
    }

    let state = play.state();
    assert_eq!((state["variant"].as_str(), state["human"].as_str()), (Some("losalamos"), Some("Blue")));
    assert_eq!(state["your_turn"], true);
    assert_eq!(state["legal_by_from"]["b2"], json!(["b2b3"]), "moves grouped by their start square");

    // Refusals: 400 with a message naming the move and why; nothing is played.
    let (status, answer) = play.play("a1a6");
    assert_eq!(status, 400, "{answer}");
    let message = answer["error"].as_str().unwrap();
    assert!(message.contains("\"a1a6\"") && message.contains("not a legal move"), "{message}");
    let (status, answer) = play.play("a1");
    assert_eq!(status, 400);
    assert!(answer["error"].as_str().unwrap().contains("\"a1\""), "{answer}");
    for body in ["e2e4", "{\"mv\": \"b2b3\"}", "{\"move\": 1}"] {
        let (status, answer) = play.request("POST", "/move", Some(body));
        assert_eq!(status, 400, "{body}");
        assert!(answer["error"].as_str().unwrap().contains("malformed request body"), "{answer}");
    }
    // Other sites' requests: a form's content type, a foreign host name (DNS rebinding).
    let (status, _) = http(&play.addr, "POST", "/move", Some("move=b2b3"), &[("Content-Type", "text/plain")]);
    assert_eq!(status, 415);
    let (status, _) = http(&play.addr, "GET", "/state", None, &[("Host", "attacker.example:80")]);
    assert_eq!(status, 403);
    assert_eq!(play.request("GET", "/nothing", None).0, 404);
    assert!(play.state()["moves"].as_array().unwrap().is_empty(), "refused moves play nothing");

    // The game: seeded random moves against alpha-beta until the rules end it.
    let mut rng = 0x2545_f491_4f6c_dd1d_u64;
    let mut state = state;
    let mut plies = 0;
    while state["result"].is_null() {
        let moves = legal(&state);
        assert!(!moves.is_empty() && state["your_turn"] == true, "{state}");
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let mv = &moves[(rng % moves.len() as u64) as usize];
        let (status, next) = play.play(mv);
        assert_eq!(status, 200, "{mv}: {next}");
        let played = next["moves"].as_array().unwrap();
        assert_eq!(played[plies], json!(mv));
        assert!(
            played.len() == plies + 2 || !next["result"].is_null(),
            "the engine answers every move until the game ends: {next}"
        );
        plies = played.len();
        state = next;
        assert!(plies < 600, "the game did not end: {state}");
    }
    assert!(legal(&state).is_empty(), "no moves offered once the game is over");
    let (status, answer) = play.play(&legal(&play.state()).first().cloned().unwrap_or("b2b3".into()));
    assert_eq!(status, 400);
    assert!(answer["error"].as_str().unwrap().contains("the game is over"), "{answer}");

    // The record: one match game with every move and the result, as show-game reads it.
    let text = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "{text}");
    let game: Value = serde_json::from_str(lines[0]).unwrap();
    let moves: Vec<&str> = state["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
    assert_eq!(game["moves"], json!(moves.join(" ")));
    assert_eq!((game["blue"].as_str(), game["tan"].as_str()), (Some("human"), Some("alphabeta:1")));
    assert_eq!(game["result"], state["result"]["score"]);
    assert_eq!(game["reason"], state["result"]["reason"]);
    let html = dir.path().join("game.html");
    let shown = fairyzero(&["show-game", out.to_str().unwrap(), "--html", html.to_str().unwrap()]);
    assert!(shown.status.success(), "{}", stderr(&shown));
    let listing = fairyzero(&["show-game", out.to_str().unwrap()]);
    assert!(
        stdout(&listing).contains(&format!("human (Blue) - alphabeta:1 (Tan)  {}", game["result"].as_str().unwrap()))
    );

    // A new game: the finished one stays in the file.
    let (status, fresh) = play.request("POST", "/new", Some("{}"));
    assert_eq!(status, 200, "{fresh}");
    assert!(fresh["moves"].as_array().unwrap().is_empty() && fresh["result"].is_null());
    assert_eq!(play.play("b2b3").0, 200);
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 2);
    play.interrupt();
}

#[test]
fn other_addresses_than_loopback_need_allow_remote() {
    let out = fairyzero(&["play", "--variant", "losalamos", "--engine", "alphabeta:1", "--listen", "0.0.0.0:0"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("--listen 0.0.0.0:0") && err.contains("not a loopback address"), "{err}");
    assert!(err.contains("--allow-remote"), "{err}");
    let out = fairyzero(&["play", "--variant", "losalamos", "--engine", "alphabeta:1", "--out", "x.txt"]);
    assert!(!out.status.success() && stderr(&out).contains("must end in .jsonl"), "{}", stderr(&out));
}

/// The person as Black against a shipped net: the net opens, and answers the person's move.
#[test]
fn a_shipped_net_plays_from_the_page_api() {
    let net = concat!(env!("CARGO_MANIFEST_DIR"), "/../models/losalamos");
    assert!(Path::new(net).join("model.json").is_file(), "{net} is shipped");
    let spec = format!("{net}@8");
    let play = Play::start(&["--variant", "losalamos", "--net", &spec, "--side", "black"]);
    let state = play.state();
    assert_eq!(state["engine"], json!(spec));
    assert_eq!(state["human"], "Tan");
    assert_eq!(state["moves"].as_array().unwrap().len(), 1, "the net opened: {state}");
    let mv = legal(&state)[0].clone();
    let (status, next) = play.play(&mv);
    assert_eq!(status, 200, "{next}");
    assert_eq!(next["moves"].as_array().unwrap().len(), 3, "{next}");
    play.interrupt();
}

// ------------------------------------------------------------------------------------------
// Headless Chromium over the DevTools protocol: `--remote-debugging-pipe` reads commands on
// file descriptor 3 and writes answers on 4, JSON messages ending in a NUL byte. The two pipes
// are named pipes (mkfifo) that a shell opens as 3 and 4 before it execs Chromium, so the test
// needs neither a WebSocket client nor unsafe code.
// ------------------------------------------------------------------------------------------

struct Browser {
    child: Child,
    to: File,
    from: BufReader<File>,
    next_id: u64,
}

impl Browser {
    fn start(chromium: &str, dir: &Path) -> Browser {
        let (to_path, from_path) = (dir.join("cdp-in"), dir.join("cdp-out"));
        for p in [&to_path, &from_path] {
            assert!(Command::new("mkfifo").arg(p).status().unwrap().success(), "mkfifo {}", p.display());
        }
        let child = Command::new("sh")
            .arg("-c")
            .arg(
                r#"exec "$0" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
                   --disable-background-networking --disable-component-update --disable-sync \
                   --window-size=1280,1400 --user-data-dir="$3" --remote-debugging-pipe 3<"$1" 4>"$2""#,
            )
            .args([chromium, to_path.to_str().unwrap(), from_path.to_str().unwrap()])
            .arg(dir.join("profile"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("cannot start chromium");
        // Each open waits for the other end: the shell opens them in this order.
        let to = OpenOptions::new().write(true).open(&to_path).unwrap();
        let from = BufReader::new(File::open(&from_path).unwrap());
        Browser { child, to, from, next_id: 0 }
    }

    /// Sends a command (to the page's `session`, if given) and waits for its answer.
    fn call(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            message["sessionId"] = json!(s);
        }
        self.to.write_all(message.to_string().as_bytes()).unwrap();
        self.to.write_all(b"\0").unwrap();
        self.to.flush().unwrap();
        loop {
            let message = self.read();
            if message["id"] == json!(id) {
                assert!(message.get("error").is_none(), "{method}: {message}");
                return message["result"].clone();
            }
        }
    }

    /// The next message (answers and events alike).
    fn read(&mut self) -> Value {
        let mut buf = Vec::new();
        let n = self.from.read_until(0, &mut buf).unwrap();
        assert!(n > 0, "chromium closed the DevTools pipe");
        buf.pop();
        serde_json::from_slice(&buf).unwrap()
    }

    /// Waits for the event `method` of `session`.
    fn wait_event(&mut self, session: &str, method: &str) {
        loop {
            let m = self.read();
            if m["method"] == json!(method) && m["sessionId"] == json!(session) {
                return;
            }
        }
    }

    /// Evaluates `expression` (a promise is awaited) in the page; its value.
    fn eval(&mut self, session: &str, expression: &str) -> Value {
        let r = self.call(
            Some(session),
            "Runtime.evaluate",
            json!({ "expression": expression, "awaitPromise": true, "returnByValue": true }),
        );
        assert!(r.get("exceptionDetails").is_none(), "{expression}: {r}");
        r["result"]["value"].clone()
    }

    /// A real mouse click (pressed, released) at the centre of the element `selector` matches.
    fn click(&mut self, session: &str, selector: &str) {
        let js = format!(
            "(() => {{ const r = document.querySelector({}).getBoundingClientRect(); \
             return [r.x + r.width / 2, r.y + r.height / 2]; }})()",
            json!(selector)
        );
        let at = self.eval(session, &js);
        let (x, y) = (at[0].as_f64().unwrap(), at[1].as_f64().unwrap());
        for kind in ["mousePressed", "mouseReleased"] {
            self.call(
                Some(session),
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 }),
            );
        }
    }
}

impl Browser {
    /// Opens the play page of `play` in a new tab, loaded; the tab's session.
    fn open(&mut self, play: &Play) -> String {
        let target = self.call(None, "Target.createTarget", json!({ "url": "about:blank" }));
        let attached =
            self.call(None, "Target.attachToTarget", json!({ "targetId": target["targetId"], "flatten": true }));
        let session = attached["sessionId"].as_str().unwrap().to_string();
        self.call(Some(&session), "Page.enable", json!({}));
        self.call(Some(&session), "Page.navigate", json!({ "url": format!("http://{}/", play.addr) }));
        self.wait_event(&session, "Page.loadEventFired");
        session
    }

    /// How many elements match `selector`, once at least `want` do (the page draws what its
    /// requests bring back), or after ten seconds.
    fn count_within(&mut self, session: &str, selector: &str, want: usize) -> u64 {
        let js = format!(
            "new Promise(done => {{ const t0 = Date.now(); (function poll() {{ \
               const n = document.querySelectorAll({}).length; \
               if (n >= {want} || Date.now() - t0 > 10000) done(n); else setTimeout(poll, 20); }})(); }})",
            json!(selector)
        );
        self.eval(session, &js).as_u64().unwrap()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The page in a real browser: a click on a piece rings its targets, a click on a target
/// plays the move, the server sees it and the engine answers, and the page shows both.
#[test]
fn a_click_on_a_piece_and_a_target_plays_the_move_in_headless_chromium() {
    let Some(chromium) = common::chromium("the play page's click test") else { return };
    let dir = tempfile::tempdir().unwrap();
    let play = Play::start(&["--variant", "losalamos", "--engine", "alphabeta:1"]);
    let state = play.state();
    // A move from one square to another (b2b3): the page's first click and second click.
    let mv = state["legal"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["from"].is_u64() && m["to"].is_u64() && m["from"] != m["to"])
        .expect("a displacement")
        .clone();
    let (from, to) = (mv["from"].as_u64().unwrap(), mv["to"].as_u64().unwrap());

    let mut browser = Browser::start(chromium, dir.path());
    let session = browser.open(&play);
    assert_eq!(browser.count_within(&session, "#pieces .piece", 1), 24, "Los Alamos starts with 24 pieces");

    browser.click(&session, &format!("#pieces [data-index=\"{from}\"]"));
    let rings = browser.eval(&session, "document.querySelectorAll('#highlights .hl-target').length");
    let targets = state["legal"].as_array().unwrap().iter().filter(|m| m["from"] == json!(from)).count();
    assert_eq!(rings, json!(targets), "the clicked piece's targets are ringed");
    browser.click(&session, &format!("#board > g:first-child rect[data-index=\"{to}\"]"));

    // The server saw the move, and the engine answered it.
    let deadline = Instant::now() + Duration::from_secs(20);
    let after = loop {
        let s = play.state();
        if s["moves"].as_array().unwrap().len() >= 2 {
            break s;
        }
        assert!(Instant::now() < deadline, "the click did not reach the server: {s}");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(after["moves"][0], mv["move"], "the clicked move was played");
    // The page drew the answer: both moves in its list.
    let listed = browser.count_within(&session, "#moves .move", 2);
    assert_eq!(listed, 2);
}

/// A setup phase (Scirocco) in a real browser: the square the setup ply fills is ringed, a
/// click on it offers the pieces that may go there, and the one clicked is played.
#[test]
fn a_setup_ply_is_chosen_on_its_square_in_headless_chromium() {
    let Some(chromium) = common::chromium("the play page's setup test") else { return };
    let dir = tempfile::tempdir().unwrap();
    let play = Play::start(&["--variant", "scirocco", "--engine", "random"]);
    let state = play.state();
    assert_eq!(state["setup"], true);
    let choices: Vec<&Value> = state["legal"].as_array().unwrap().iter().collect();
    assert!(choices.len() >= 2 && choices.iter().all(|m| m["from"].is_null() && m["to"] == choices[0]["to"]));
    let square = choices[0]["to"].as_u64().unwrap();
    let wanted = choices.last().unwrap()["move"].as_str().unwrap().to_string();

    let mut browser = Browser::start(chromium, dir.path());
    let session = browser.open(&play);
    assert_eq!(browser.count_within(&session, "#highlights .hl-target", 1), 1, "the setup square is ringed");
    browser.click(&session, &format!("#board > g:first-child rect[data-index=\"{square}\"]"));
    let buttons = browser.count_within(&session, "#chooser button", choices.len());
    assert_eq!(buttons, choices.len() as u64, "one button per piece that may go there");
    browser.click(&session, &format!("#chooser button[data-move={}]", json!(wanted)));
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let s = play.state();
        if let Some(first) = s["moves"].as_array().unwrap().first() {
            assert_eq!(first, &json!(wanted), "the chosen setup ply was played");
            break;
        }
        assert!(Instant::now() < deadline, "the choice did not reach the server: {s}");
        std::thread::sleep(Duration::from_millis(50));
    }
}
