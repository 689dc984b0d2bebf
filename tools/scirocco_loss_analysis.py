#!/usr/bin/env python3
"""Why the Scirocco nets lose to alphabeta:1 (docs/plans/scirocco-learning.md, section 5).

Replays stored games with a small Rust tool on the rules and evaluator crates (its source is embedded below;
`build` writes it to a scratch crate OUTSIDE the workspace and builds it), then reports:

  build                      write the replay tool (rules and evaluator crates; no libtorch) and build it
  matches MATCH.jsonl        per game of a net vs alphabeta:1 match (MatchGame records with moves):
                             result, reason, material (mobility values) over the game, one-move
                             hangs of each side and whether they were taken; hang kinds; writes
                             the position before each game's first hang >= 3 pawns to
                             /tmp/scirocco_first_hangs.json
  analyse CHECKPOINT         runs `fairyzero analyse` (gumbel, the run's config) on /tmp/scirocco_first_hangs.json
                             at 32/128/512 nodes, and the net's value/prior after the hang
  selfplay-values N          the last N self-play record files of the run: the search's root value
                             at each ply against the game's result and the material balance, by
                             quarter of the game (out-of-sample value quality)
  value-split CKPT N --seen NETS --unseen NETS
                             the checkpoint's own value on positions of games in its replay window
                             (played by the nets NETS of --seen) and of later games (--unseen)

A "hang" after a move: the opponent has a capture whose gain minus the mover's best immediate
capture in reply is >= 1 pawn (mobility values, evaluator/src/values.rs; winning the game = 100).
"""
import argparse, collections, glob, json, os, re, statistics as st, subprocess, sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAIRYZERO = os.path.join(REPO, "target/release/fairyzero")
CRATE = os.environ.get("SCIROCCO_REPLAY_CRATE", "/tmp/scirocco-loss-replay")
REPLAY = os.path.join(CRATE, "target/release/scianalysis")
# The run whose games `selfplay-values` and `value-split` read.
RUN = os.environ.get("SCIROCCO_RUN", "/work/runs/scirocco")
FIRST_HANGS = "/tmp/scirocco_first_hangs.json"

RUST = r'''//! Replays Scirocco games (stdin: `id \t opening_moves \t moves` per line) and prints, per ply,
//! material and one-move tactics:
//! `id ply mover move balance gain hang missed fen_before`
//! - balance: Blue minus Tan after the move, mobility values (evaluator/src/values.rs), royals 0;
//! - gain: material the mover won with this move (100 = the game: royal captured / bared);
//! - hang: after the move, the opponent's best 2-ply capture net gain (capture value minus the
//!   mover's best immediate capture reply value), 0 if none positive;
//! - missed: the same measure for the mover before its move (what it could have won);
//! - fen_before: the position before the move, printed when hang >= 1 or missed >= 1.
use std::{io::BufRead, sync::Arc};

use fairyzero_rules::{Color, MoveList, Position, Variant};

/// The evaluator's mobility values (`alphabeta:1`'s own), royals 0.
fn mobility_values(v: &Arc<Variant>) -> Vec<f32> {
    let values = fairyzero_evaluator::values::mobility_values(v);
    values.iter().enumerate().map(|(t, &x)| if v.pieces[t].royal { 0.0 } else { x }).collect()
}

struct Ctx {
    values: Vec<f32>,
}

impl Ctx {
    /// Blue minus Tan.
    fn balance(&self, pos: &Position) -> f32 {
        let c = pos.piece_counts();
        self.values.iter().enumerate().map(|(t, &x)| x * (c[2 * t] as f32 - c[2 * t + 1] as f32)).sum()
    }

    /// Material the side to move wins with `m` (100 if it wins the game at once).
    fn gain(&self, pos: &mut Position, m: fairyzero_rules::Move) -> f32 {
        let us = pos.side_to_move();
        let before = self.balance(pos);
        pos.make(m);
        let won = pos.immediate_outcome().is_some_and(|o| o.winner() == Some(us));
        let after = self.balance(pos);
        pos.unmake();
        if won {
            return 100.0;
        }
        let d = after - before;
        if us == Color::Blue { d } else { -d }
    }

    /// Best immediate capture gain of the side to move (0 if none).
    fn best_capture(&self, pos: &mut Position) -> f32 {
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        let mut best = 0.0f32;
        for &m in moves.iter() {
            if pos.is_capture(&m) {
                best = best.max(self.gain(pos, m));
            }
        }
        best
    }

    /// Best 2-ply capture net gain for the side to move: a capture's gain minus the opponent's
    /// best immediate capture gain afterwards.
    fn best_net(&self, pos: &mut Position) -> f32 {
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        let mut best = 0.0f32;
        for &m in moves.iter() {
            if !pos.is_capture(&m) {
                continue;
            }
            let g = self.gain(pos, m);
            if g >= 100.0 {
                return 100.0;
            }
            pos.make(m);
            let r = self.best_capture(pos);
            pos.unmake();
            best = best.max(g - r);
        }
        best
    }
}

fn main() {
    let v = Variant::load("scirocco").expect("scirocco");
    let ctx = Ctx { values: mobility_values(&v) };
    if std::env::args().any(|a| a == "--values") {
        for (t, x) in ctx.values.iter().enumerate() {
            println!("{}\t{:.2}\t{}", v.pieces[t].token, x, v.pieces[t].royal);
        }
        return;
    }
    let stdin = std::io::stdin();
    let mut text = String::new();
    for line in stdin.lock().lines() {
        let line = line.unwrap();
        let mut f = line.split('\t');
        let (id, opening, moves) = (f.next().unwrap(), f.next().unwrap(), f.next().unwrap_or(""));
        let mut pos = Position::setup_start(Arc::clone(&v)).unwrap();
        pos.play_moves(opening).unwrap_or_else(|e| panic!("{id}: opening: {e}"));
        for (ply, mv) in moves.split_whitespace().enumerate() {
            let mover = if pos.side_to_move() == Color::Blue { 'b' } else { 't' };
            let missed = ctx.best_net(&mut pos);
            let m = match pos.parse_move(mv) {
                Ok(m) => m,
                Err(e) => {
                    eprintln!("{id}: ply {ply}: {e}");
                    break;
                }
            };
            let gain = ctx.gain(&mut pos, m);
            let fen = pos.to_fen();
            pos.make(m);
            let hang = if pos.immediate_outcome().is_some() { 0.0 } else { ctx.best_net(&mut pos) };
            let bal = ctx.balance(&pos);
            let fen_out = if hang >= 1.0 || missed >= 1.0 { fen.as_str() } else { "-" };
            text.clear();
            println!("{id}\t{ply}\t{mover}\t{mv}\t{bal:.2}\t{gain:.2}\t{hang:.2}\t{missed:.2}\t{fen_out}");
        }
    }
}
'''


def build():
    os.makedirs(os.path.join(CRATE, "src"), exist_ok=True)
    with open(os.path.join(CRATE, "Cargo.toml"), "w") as f:
        f.write('[package]\nname = "scianalysis"\nversion = "0.1.0"\nedition = "2021"\n\n'
                f'[dependencies]\nfairyzero-rules = {{ path = "{REPO}/rules" }}\n'
                f'fairyzero-evaluator = {{ path = "{REPO}/evaluator" }}\n\n'
                '[profile.release]\nopt-level = 3\ndebug = 0\n')
    with open(os.path.join(CRATE, "src/main.rs"), "w") as f:
        f.write(RUST)
    subprocess.run(["cp", os.path.join(REPO, "Cargo.lock"), CRATE], check=True)
    subprocess.run(["nice", "-n", "10", "cargo", "build", "--release", "--offline"], cwd=CRATE, check=True)


def replay(lines):
    """lines: 'id\\topening\\tmoves'; returns {id: [ply dicts]}."""
    out = subprocess.run(["nice", "-n", "10", REPLAY], input="".join(lines), capture_output=True, text=True, check=True).stdout
    rows = collections.defaultdict(list)
    for l in out.splitlines():
        g, ply, mover, mv, bal, gain, hang, missed, fen = l.split("\t")
        rows[g].append(dict(ply=int(ply), mover=mover, mv=mv, bal=float(bal), gain=float(gain),
                            hang=float(hang), missed=float(missed), fen=fen))
    return rows


def dest(mv):
    m = re.findall(r"[a-j](?:10|[1-9])", mv)
    return m[1] if len(m) > 1 else None


def matches(path):
    recs = [json.loads(l) for l in open(path)]
    recs = [r for r in recs if "moves" in r]
    rows = replay(f"{i}\t{r['opening_moves']}\t{r['moves']}\n" for i, r in enumerate(recs))
    tot = collections.Counter(); kinds = collections.Counter(); lost = collections.defaultdict(list)
    first = []; f3 = []; f10 = []
    for i, r in enumerate(recs):
        netc = "t" if r["blue"].startswith("alphabeta") else "b"
        sign = 1 if netc == "b" else -1
        R = rows[str(i)]
        res = r["result"]
        o = "D" if res == "1/2-1/2" else ("W" if (res == "1-0") == (netc == "b") else "L")
        bal = [sign * x["bal"] for x in R]
        a3 = next((x["ply"] for x, b in zip(R, bal) if b <= -3), None)
        a10 = next((x["ply"] for x, b in zip(R, bal) if b <= -10), None)
        f3.append(a3); f10.append(a10)
        c = collections.Counter(); done = False
        for k, x in enumerate(R):
            who = "net" if x["mover"] == netc else "ab"
            nxt = R[k + 1] if k + 1 < len(R) else None
            c[who + "_moves"] += 1
            if x["hang"] >= 1:
                c[who + "_hang"] += 1
                if nxt and nxt["gain"] >= min(x["hang"], 100) * 0.5:
                    c[who + "_taken"] += 1
            if x["missed"] >= 1:
                c[who + "_chance"] += 1
                c[who + "_missed"] += x["gain"] < x["missed"] * 0.5
            if who == "net" and 1 <= x["hang"] < 100 and nxt:
                if x["gain"] > 0: kind = "a capture answered by a bigger one (bad trade)"
                elif dest(nxt["mv"]) == dest(x["mv"]): kind = "the moved piece is taken on its new square"
                else: kind = "another piece taken (left en prise, or a threat not answered)"
                kinds[kind] += 1; lost[kind].append(nxt["gain"])
                if not done and x["hang"] >= 3:
                    first.append((i, k, x["mv"], x["hang"], nxt["mv"], x["fen"], kind)); done = True
        tot.update(c)
        pick = lambda n: bal[min(n, len(bal)) - 1]
        print(f"game {i:2d} net={'Blue' if netc == 'b' else 'Tan '} {o} {r['reason']:14s} plies {len(R):3d} "
              f"material@40 {pick(40):6.1f} @100 {pick(100):6.1f} end {bal[-1]:6.1f} first<=-3 @{a3} <=-10 @{a10} "
              f"hangs net {c['net_hang']} (taken {c['net_taken']}) ab {c['ab_hang']} (taken {c['ab_taken']})")
    print("totals:", dict(tot))
    print("ply of first material deficit <= -3: median", st.median([x for x in f3 if x is not None]),
          "; <= -10: median", st.median([x for x in f10 if x is not None]))
    for k, n in kinds.most_common():
        print(f"{n:4d} {k} (median loss {st.median(lost[k]):.1f})")
    json.dump(first, open(FIRST_HANGS, "w"))


def run_analyse(ckpt, fen, n, moves=None):
    cmd = ["nice", "-n", "10", FAIRYZERO, "analyse", "--variant", "scirocco", "--fen", fen, "--net", ckpt,
           "--config", os.path.join(REPO, "configs/runs/scirocco.toml"), "--nodes", str(n), "--search", "gumbel",
           "--batch", "1", "--top", "100"]
    if moves: cmd += ["--moves", moves]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    best = re.search(r"bestmove: (\S+)", out).group(1)
    value = float(re.search(r"value: ([-+.0-9]+)", out).group(1))
    moves_ = {}
    for l in out.splitlines():
        p = l.split()
        if len(p) == 5 and p[1].isdigit():
            moves_[p[0]] = dict(visits=int(p[1]), prior=float(p[2]), q=None if p[3] == "-" else float(p[3]))
    return best, value, moves_


def analyse(ckpt, count):
    for (g, k, mv, hang, reply, fen, kind) in json.load(open(FIRST_HANGS))[:count]:
        cells = []
        for n in (32, 128, 512):
            best, value, ms = run_analyse(ckpt, fen, n)
            h = ms.get(mv, {})
            cells.append(f"{n}: best {best}{' (the blunder)' if best == mv else ''} value {value:+.2f} "
                         f"blunder prior {h.get('prior')} q {h.get('q')} visits {h.get('visits')}")
        v0 = run_analyse(ckpt, fen, 1)[1]
        v1, pri = run_analyse(ckpt, fen, 1, mv)[1:]
        order = sorted(pri, key=lambda m: -pri[m]["prior"])
        rank = order.index(reply) + 1 if reply in order else None
        print(f"game {g} ply {k} {mv} (hangs {hang:.1f}, {kind}); " + "; ".join(cells) +
              f"; net value before {v0:+.2f} (mover), after the blunder {v1:+.2f} (opponent), "
              f"reply {reply} prior rank {rank}/{len(order)}")


def load_selfplay(nfiles):
    """The games of the run's last `nfiles` record files, with the search's root value per ply."""
    files = sorted(glob.glob(os.path.join(RUN, "games/*.games.zst")))[-nfiles:]
    games = []
    for f in files:
        out = subprocess.run(["nice", "-n", "10", FAIRYZERO, "show-game", f, "--details"], capture_output=True, text=True).stdout
        g = None
        for l in out.splitlines():
            if l.startswith("game "): g = {"plies": []}; games.append(g)
            elif l.startswith("net:"): g["net"] = l.split()[1]
            elif l.startswith("setup:"): g["setup"] = l[7:]
            elif l.startswith("result:"): g["result"] = l.split()[1]
            else:
                m = re.match(r"\s*(\d+)\s+(\S+)\s+([-+]\d\.\d+)\s+(\d+)\s+(\d+)", l)
                if m and g is not None: g["plies"].append((m.group(2), float(m.group(3))))
    return games


def selfplay_values(nfiles):
    games = load_selfplay(nfiles)
    rows = replay(f"{i}\t{g['setup']}\t{' '.join(m for m, _ in g['plies'] if not m.startswith('set:'))}\n"
                  for i, g in enumerate(games))
    bins = collections.defaultdict(list); hang = collections.Counter()
    for i, g in enumerate(games):
        moves = [p for p in g["plies"] if not p[0].startswith("set:")]
        M = rows[str(i)]
        for k, (mv, v) in enumerate(moves[:len(M)]):
            blue = M[k]["mover"] == "b"
            z = 0 if g["result"] == "1/2-1/2" else (1 if (g["result"] == "1-0") == blue else -1)
            mat = (M[k - 1]["bal"] if k else 0.0) * (1 if blue else -1)
            bins[min(int(4 * k / len(moves)), 3)].append((v, z, mat))
            hang["moves"] += 1; hang["hang"] += M[k]["hang"] >= 1
    print(f"{len(games)} self-play games, nets {games[0]['net']}..{games[-1]['net']}, results "
          f"{dict(collections.Counter(g['result'] for g in games))}, hang rate per move {hang['hang'] / hang['moves']:.3f}")
    for b in range(4):
        xs = bins[b]; dec = [x for x in xs if x[1]]
        big = [x for x in dec if abs(x[2]) >= 3]
        print(f"quarter {b + 1}: n {len(xs)}  mean|v| {st.mean(abs(v) for v, _, _ in xs):.2f}  "
              f"MSE(v,z) {st.mean((v - z) ** 2 for v, z, _ in xs):.3f} vs MSE(0,z) {st.mean(z * z for _, z, _ in xs):.3f}  "
              f"sign(v) right {st.mean((v > 0) == (z > 0) for v, z, _ in dec):.2f}  "
              f"sign(material) right where |material|>=3 {st.mean((m > 0) == (z > 0) for _, z, m in big):.2f}  "
              f"corr(v, material) {st.correlation([x[0] for x in xs], [x[2] for x in xs]):.2f}")


def value_split(ckpt, nfiles, seen, unseen, per_game=4, ngames=30):
    """The checkpoint's raw value (analyse --nodes 1, setup and moves replayed so that the ply
    count is right) on random positions of games played by the nets in `seen` (in its replay
    window) and in `unseen` (played after it): WDL cross-entropy and MSE against the result."""
    import math, random
    games = load_selfplay(nfiles)
    rng = random.Random(1)
    for name, nets in (("seen", seen), ("unseen", unseen)):
        pool = [g for g in games if g["net"] in nets]
        rng.shuffle(pool)
        rows = []
        for g in pool[:ngames]:
            moves = [m for m, _ in g["plies"] if not m.startswith("set:")]
            for _ in range(per_game):
                k = rng.randrange(len(moves))
                cmd = ["nice", "-n", "10", FAIRYZERO, "analyse", "--variant", "scirocco", "--setup",
                       ",".join(g["setup"].split()), "--net", ckpt, "--nodes", "1", "--batch", "1", "--top", "1",
                       "--search", "gumbel", "--config", os.path.join(REPO, "configs/runs/scirocco.toml")]
                if k: cmd += ["--moves", ",".join(moves[:k])]
                out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
                m = re.search(r"value: ([-+.0-9]+)\s+win ([.0-9]+)%\s+draw ([.0-9]+)%\s+loss ([.0-9]+)%", out)
                v, w, d, l = float(m.group(1)), *(float(m.group(i)) / 100 for i in (2, 3, 4))
                blue = k % 2 == 0  # Blue moves first after the setup phase
                z = 0 if g["result"] == "1/2-1/2" else (1 if (g["result"] == "1-0") == blue else -1)
                rows.append((v, z, -math.log(max({1: w, 0: d, -1: l}[z], 1e-6))))
        print(f"{name} ({','.join(nets)}): {len(rows)} positions of {min(ngames, len(pool))} games  "
              f"MSE(v,z) {st.mean((v - z) ** 2 for v, z, _ in rows):.3f} vs MSE(0,z) {st.mean(z * z for _, z, _ in rows):.3f}  "
              f"WDL cross-entropy {st.mean(c for *_, c in rows):.3f} (uniform: 1.099)  "
              f"sign right {st.mean((v > 0) == (z > 0) for v, z, _ in rows if z):.2f}  mean|v| {st.mean(abs(v) for v, _, _ in rows):.2f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("build")
    p = sub.add_parser("matches"); p.add_argument("jsonl")
    p = sub.add_parser("analyse"); p.add_argument("checkpoint"); p.add_argument("--count", type=int, default=12)
    p = sub.add_parser("selfplay-values"); p.add_argument("files", type=int)
    p = sub.add_parser("value-split"); p.add_argument("checkpoint"); p.add_argument("files", type=int)
    p.add_argument("--seen", required=True, help="comma-separated nets (step-XXXXXXXX) whose games the checkpoint trained on")
    p.add_argument("--unseen", required=True, help="comma-separated nets whose games came after the checkpoint")
    a = ap.parse_args()
    if a.cmd != "build" and not os.path.exists(REPLAY):
        sys.exit(f"{REPLAY} is missing: run `{sys.argv[0]} build` first")
    {"build": build, "matches": lambda: matches(a.jsonl), "analyse": lambda: analyse(a.checkpoint, a.count),
     "selfplay-values": lambda: selfplay_values(a.files),
     "value-split": lambda: value_split(a.checkpoint, a.files, a.seen.split(","), a.unseen.split(","))}[a.cmd]()


if __name__ == "__main__":
    main()
