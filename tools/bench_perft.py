#!/usr/bin/env python3
"""Perft speed of fairyzero against Fairy-Stockfish on the same positions, in one run.

Both count the last ply in bulk (legal moves counted, not made). Each command runs a few times;
the best wall time, minus the program's start-up time (a depth-1 run), gives nodes per second.
Prints a Markdown table for docs/performance.md.

    python3 tools/bench_perft.py [--repeat 3] [--fairyzero target/release/fairyzero]
"""
import argparse
import shutil
import subprocess
import time

CASES = [
    # (variant, fen or None for the start position, depth)
    ("chess", None, 6),
    ("chess", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5),
    ("capablanca", None, 5),
    ("grand", None, 4),
]
# fairyzero-only cases: the seed games (no external engine implements them).
OWN_CASES = [
    ("scirocco", None, 5),
    # The canonical array with the powered pieces (Dervish, Wagons) taken out: the cost of powers.
    ("scirocco", "3(go)cn1(st)a(ch)/1(ma)(sc)(co)fwk(sc)(pr)1/pp(gu)pppp(gu)pp/10/10/10/10/PP(GU)PPPP(GU)PP/1(PR)(SC)KWF(CO)(SC)(MA)1/(CH)A(ST)1NC1(GO)D1 w", 5),
    ("typhoon", None, 4),
]


def best_time(cmd, stdin, repeat):
    best, out = None, ""
    for _ in range(repeat):
        t = time.perf_counter()
        out = subprocess.run(cmd, input=stdin, capture_output=True, text=True, check=True).stdout
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    return best, out


def fairyzero(binary, variant, fen, depth, repeat):
    cmd = lambda d: [binary, "-q", "perft", "--variant", variant, "--depth", str(d)] + (["--fen", fen] if fen else [])
    t, out = best_time(cmd(depth), None, repeat)
    t0, _ = best_time(cmd(1), None, repeat)
    nodes = int(out.strip().splitlines()[-1].split()[1])
    return nodes, max(t - t0, 1e-6)


def fsf(binary, variant, fen, depth, repeat):
    pos = f"position fen {fen}" if fen else "position startpos"
    script = lambda d: f"uci\nsetoption name UCI_Variant value {variant}\n{pos}\ngo perft {d}\nquit\n"
    t, out = best_time([binary], script(depth), repeat)
    t0, _ = best_time([binary], script(1), repeat)
    nodes = int([l for l in out.splitlines() if l.startswith("Nodes searched")][-1].split(":")[1])
    return nodes, max(t - t0, 1e-6)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--fairyzero", default="target/release/fairyzero")
    ap.add_argument("--fsf", default=shutil.which("fairy-stockfish") or "/usr/games/fairy-stockfish")
    args = ap.parse_args()
    print("| variant | position | depth | nodes | fairyzero Mnodes/s | Fairy-Stockfish Mnodes/s | ratio |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for variant, fen, depth in CASES:
        n1, t1 = fairyzero(args.fairyzero, variant, fen, depth, args.repeat)
        n2, t2 = fsf(args.fsf, variant, fen, depth, args.repeat)
        assert n1 == n2, f"{variant} {fen} d{depth}: fairyzero {n1} != Fairy-Stockfish {n2}"
        r1, r2 = n1 / t1 / 1e6, n2 / t2 / 1e6
        print(f"| {variant} | {'start' if not fen else fen[:20] + '…'} | {depth} | {n1:,} | {r1:.1f} | {r2:.1f} | {r1 / r2:.2f} |")
    print()
    print("| variant | position | depth | nodes | fairyzero Mnodes/s |")
    print("| --- | --- | --- | --- | --- |")
    for variant, fen, depth in OWN_CASES:
        n1, t1 = fairyzero(args.fairyzero, variant, fen, depth, args.repeat)
        label = "default array" if not fen else "without powered pieces"
        print(f"| {variant} | {label} | {depth} | {n1:,} | {n1 / t1 / 1e6:.1f} |")


if __name__ == "__main__":
    main()
