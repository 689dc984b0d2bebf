//! `fairyzero xboard` through the real binary: scripted CECP sessions checked line by line
//! (features, new/usermove/go, force and undo, setboard, ping/pong, illegal moves and bad
//! commands, a game end claimed with its result, engine-defined and refused variants, ten-rank
//! coordinates, clocks and `?`), with the alpha-beta player, and one short game with a
//! `random:` net (MCTS through the libtorch helper).

mod common;

use std::time::{Duration, Instant};

use common::{legal_moves, EngineProcess};

/// Starts `fairyzero xboard ARGS` and tells it `xboard`, as XBoard does first.
fn start_xboard(args: &[&str]) -> EngineProcess {
    let mut all = vec!["xboard"];
    all.extend_from_slice(args);
    let mut e = EngineProcess::start(&all);
    e.send("xboard");
    e
}

/// The CECP exchanges the tests repeat.
trait Xboard {
    fn quiet(&mut self, n: u32);
    fn expect(&mut self, line: &str, answer: &str);
    fn expect_start(&mut self, line: &str, start: &str);
    fn engine_move(&mut self, timeout: Duration) -> (String, Vec<String>);
}

impl Xboard for EngineProcess {
    /// `ping N` answered by `pong N` with nothing before it: every earlier command was handled
    /// silently.
    fn quiet(&mut self, n: u32) {
        self.send(&format!("ping {n}"));
        let line = self.next(Duration::from_secs(20));
        assert_eq!(line, format!("pong {n}"), "session:\n{}", self.session());
    }

    /// Sends `line` and expects exactly `answer`, then nothing else.
    fn expect(&mut self, line: &str, answer: &str) {
        self.send(line);
        let got = self.next(Duration::from_secs(10));
        assert_eq!(got, answer, "after {line:?}; session:\n{}", self.session());
        self.quiet(999);
    }

    /// Sends `line` and expects one line starting with `start`, then nothing else.
    fn expect_start(&mut self, line: &str, start: &str) {
        self.send(line);
        let got = self.next(Duration::from_secs(10));
        assert!(got.starts_with(start), "after {line:?}: {got:?}; session:\n{}", self.session());
        self.quiet(999);
    }

    /// Thinking lines (`ply score time nodes pv`) then `move M`: checks every thinking line and
    /// returns the move.
    fn engine_move(&mut self, timeout: Duration) -> (String, Vec<String>) {
        let lines = self.until("move ", timeout);
        let (last, thinking) = lines.split_last().unwrap();
        let mut ply = 0;
        for t in thinking {
            let f: Vec<&str> = t.split_whitespace().collect();
            assert!(f.len() >= 5, "{t}: expected `ply score time nodes pv`");
            let depth: u32 = f[0].parse().unwrap_or_else(|_| panic!("{t}: ply"));
            for n in &f[1..4] {
                n.parse::<i64>().unwrap_or_else(|_| panic!("{t}: {n} is not a number"));
            }
            assert!(depth >= ply, "plies must not shrink: {thinking:?}");
            ply = depth;
        }
        (last["move ".len()..].to_string(), thinking.to_vec())
    }
}

/// The `protover 2` answer: the features XBoard needs, and the variants it can carry.
fn check_features(e: &mut EngineProcess) {
    e.send("protover 2");
    let lines = e.until("feature done=1", Duration::from_secs(10));
    assert_eq!(lines.first().map(String::as_str), Some("feature done=0"), "{lines:?}");
    let all = lines.join(" ");
    for f in [
        "myname=\"fairyzero ",
        " setboard=1",
        " usermove=1",
        " ping=1",
        " sigint=0",
        " sigterm=0",
        " colors=0",
        " analyze=0",
    ] {
        assert!(all.contains(f), "{f} missing: {lines:?}");
    }
    assert!(
        lines.contains(&"feature variants=\"normal,capablanca,grand,shatranj,courier,antichess,losalamos,gardner,berolina,kinglet,antilosalamos,amazon,faerychess,longleapers,annihilation,englishstalemate,giveawayking,twinchess,giraffe10,reverso,marchofthepawns,wild5,wild6,wild7,wild8,pawnodds,knightodds,rookodds,rookpawnodds,rookknightodds,queenodds,historical12,pawnsforqueen,pawnsforrook,wild9,atomic\"".to_string()),
        "{lines:?}"
    );
    assert_eq!(lines.len(), 4, "{lines:?}");
}

#[test]
fn alpha_beta_session_line_by_line() {
    let mut e = start_xboard(&["--player", "alphabeta:3"]);
    check_features(&mut e);
    e.send("accepted setboard");
    e.quiet(1);

    // A new game: the engine plays Black, and answers the user's move with thinking output.
    e.send("new");
    e.send("post");
    e.send("sd 2");
    e.send("usermove e2e4");
    let (reply, thinking) = e.engine_move(Duration::from_secs(30));
    assert_eq!(thinking.iter().map(|t| t.split(' ').next().unwrap()).collect::<Vec<_>>(), ["1", "2"], "{thinking:?}");
    assert!(legal_moves(&["--variant", "chess", "--moves", "e2e4"]).contains(&reply), "{reply}");
    let pv_first = thinking.last().unwrap().split_whitespace().nth(4).unwrap();
    assert_eq!(pv_first, reply, "the last pv starts with the move played");
    e.quiet(2);

    // Force mode: moves are played, the engine does not answer; undo takes one back.
    e.send("force");
    e.send("usermove g1f3");
    e.quiet(3);
    e.send("undo");
    e.send("g1f3"); // a bare move (CECP v1) is a move too
    e.quiet(4);
    e.send("remove");
    e.send(&format!("usermove {reply}"));
    e.send("usermove g1f3");
    e.quiet(5);
    let after = legal_moves(&["--variant", "chess", "--moves", &format!("e2e4 {reply} g1f3")]);
    // `go` makes the engine play the side to move (Black): its move is legal there.
    e.send("nopost");
    e.send("go");
    let (m, thinking) = e.engine_move(Duration::from_secs(30));
    assert!(thinking.is_empty(), "nopost: {thinking:?}");
    assert!(after.contains(&m), "{m} not legal after e2e4 {reply} g1f3: {after:?}");

    // Bad input: the engine says why and goes on.
    e.send("force");
    e.expect("usermove e2e5", "Illegal move: e2e5");
    e.expect("frobnicate 3", "Error (unknown command): frobnicate 3");
    e.expect("sd zero", "Error (sd expects a depth of at least 1): sd zero");
    e.expect_start("setboard 9/9 w", "Error (bad FEN: bad position string for variant chess: ");

    // The engine mates and claims the result.
    e.send("setboard 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1");
    e.send("go");
    let (m, _) = e.engine_move(Duration::from_secs(30));
    assert_eq!(m, "a1a8");
    assert_eq!(e.next(Duration::from_secs(5)), "1-0 {White mates}");
    e.quiet(6);
    // No move after the end; `undo` reopens the game.
    e.expect("usermove g8h8", "Illegal move: g8h8");
    e.send("undo");
    e.send("force");
    e.send("usermove a1a8");
    assert_eq!(e.next(Duration::from_secs(5)), "1-0 {White mates}", "the user's mate is claimed too");
    e.send("result 1-0 {White mates}");
    e.quit();
}

#[test]
fn variants_setup_refusals_and_ten_ranks() {
    let mut e = start_xboard(&["--player", "alphabeta:2"]);
    check_features(&mut e);
    // An engine-defined variant: the board, its pieces and their moves for XBoard.
    e.send("new");
    e.send("variant losalamos");
    let lines = e.until("piece K& ", Duration::from_secs(10));
    assert_eq!(
        lines,
        [
            "setup (PN.RQ................Kpn.rq................k) 6x6+0_fairy rnqknr/pppppp/6/6/PPPPPP/RNQKNR w - - 0 1",
            "piece P& fmWfcF",
            "piece N& N",
            "piece R& R",
            "piece Q& Q",
            "piece K& K"
        ]
    );
    e.quiet(1);
    e.send("usermove b2b3");
    let (m, _) = e.engine_move(Duration::from_secs(20));
    assert!(legal_moves(&["--variant", "losalamos", "--moves", "b2b3"]).contains(&m), "{m}");
    // What XBoard cannot carry is refused with the reason; the variant stays.
    e.expect(
        "variant scirocco",
        "Error (XBoard cannot play scirocco: it has a setup phase, which CECP cannot express): variant scirocco",
    );
    e.expect(
        "variant doubleking3",
        "Error (unknown variant \"doubleking3\" (`feature variants` lists those fairyzero plays)): variant doubleking3",
    );
    for (variant, why) in [
        ("pocketknight", "it has pieces in hand (drops), which XBoard's engine-defined variants cannot hold"),
        (
            "emperorking",
            "its pieces have powers beyond their moves (e.g. the Emperor King's roam), which XBoard's piece commands \
             cannot express",
        ),
        ("doubleking", "its kings castle only with given rooks, which XBoard's castling cannot express"),
        ("twomove", "a turn has several moves, and XBoard gives the move to the other side after each"),
        ("explosion", "its captures have side effects (explosion, rebirth) that only XBoard's own atomic applies"),
        ("circe", "its captures have side effects (explosion, rebirth) that only XBoard's own atomic applies"),
        ("imitator", "a neutral token copies every move and can forbid it, which XBoard's board cannot hold"),
        (
            "zebra13",
            "its pieces have powers beyond their moves (e.g. the Emperor King's roam), which XBoard's piece commands \
             cannot express",
        ),
        (
            "protean",
            "its protean men change type when they capture and its first moves are choices, which XBoard's rules \
             cannot follow",
        ),
    ] {
        e.expect(
            &format!("variant {variant}"),
            &format!("Error (XBoard cannot play {variant}: {why}): variant {variant}"),
        );
    }
    e.expect(
        "variant xiangqi",
        "Error (XBoard cannot play xiangqi: its pieces are confined to board regions or gain moves in them (palace, \
         river), or it has the flying-general rule: XBoard's piece commands express neither): variant xiangqi",
    );

    // Grand chess: XBoard numbers its ten ranks from 0, so the pawns' first step is e2e3.
    e.send("new");
    e.send("variant grand");
    e.send("force");
    e.expect("usermove e3e4", "Illegal move: e3e4");
    e.send("usermove e2e3");
    e.send("go");
    let (m, _) = e.engine_move(Duration::from_secs(20));
    let fz: String = {
        // Back to fairyzero's ranks (1..10).
        let mut s = String::new();
        let b = m.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if b[i].is_ascii_lowercase() && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
                s.push(b[i] as char);
                s.push_str(&((b[i + 1] - b'0') as u32 + 1).to_string());
                i += 2;
            } else {
                s.push(b[i] as char);
                i += 1;
            }
        }
        s
    };
    assert!(legal_moves(&["--variant", "grand", "--moves", "e3e4"]).contains(&fz), "{m} ({fz})");
    e.quit();
}

#[test]
fn clocks_and_move_now() {
    let mut e = start_xboard(&["--player", "alphabeta:64"]);
    check_features(&mut e);
    // 40 moves in 2 s: about 50 ms a move.
    e.send("new");
    e.send("level 40 0:02 0");
    e.send("time 200");
    e.send("otim 200");
    let started = Instant::now();
    e.send("usermove e2e4");
    let (m, _) = e.engine_move(Duration::from_secs(10));
    assert!(started.elapsed() < Duration::from_millis(800), "{:?} for a 50 ms budget", started.elapsed());
    assert!(legal_moves(&["--variant", "chess", "--moves", "e2e4"]).contains(&m));
    // `st 60` would take a minute: `?` makes it move at once.
    e.send("st 60");
    e.send("force");
    e.send("usermove g1f3");
    e.send("go");
    std::thread::sleep(Duration::from_millis(300));
    let asked = Instant::now();
    e.send("?");
    let (m2, _) = e.engine_move(Duration::from_secs(5));
    assert!(asked.elapsed() < Duration::from_millis(500), "move {:?} after `?`", asked.elapsed());
    assert!(legal_moves(&["--variant", "chess", "--moves", &format!("e2e4 {m} g1f3")]).contains(&m2));
    // `force` during a search: the search ends and its move is never sent.
    e.send("go");
    std::thread::sleep(Duration::from_millis(200));
    e.send("force");
    e.quiet(1);
    e.quit();
}

#[test]
fn net_plays_a_short_game() {
    let mut e = start_xboard(&["--net", "random:tiny@8", "--variant", "gardner"]);
    check_features(&mut e);
    e.send("new");
    e.send("variant gardner");
    e.until("piece K& ", Duration::from_secs(10));
    e.send("post");
    let mut moves: Vec<String> = Vec::new();
    for user in ["a2a3", "b2b3"] {
        let mut args = vec!["--variant", "gardner"];
        let played = moves.join(" ");
        if !played.is_empty() {
            args.extend(["--moves", played.as_str()]);
        }
        if !legal_moves(&args).contains(&user.to_string()) {
            break;
        }
        e.send(&format!("usermove {user}"));
        moves.push(user.into());
        let (m, thinking) = e.engine_move(Duration::from_secs(60));
        assert!(!thinking.is_empty(), "post: thinking output expected");
        let legal = legal_moves(&["--variant", "gardner", "--moves", &moves.join(" ")]);
        assert!(legal.contains(&m), "{m} not legal after {moves:?}");
        moves.push(m);
    }
    e.quiet(1);
    e.quit();
}
