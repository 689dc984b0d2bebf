#!/usr/bin/env python3
"""Before/after figures of a structural change, old and new binaries run in turn on one machine.

Three measurements (docs/performance.md, "Before and after the re-layering"):
  perft     rules/examples/perft_bench (nodes/s of chess, Scirocco, Typhoon; median of 5 each)
  selfplay  selfplay/examples/selfplay_bench with the mock backend (simulations/s)
  startup   `fairyzero perft --variant chess --depth 1` and `fairyzero variants`: wall time
            and peak resident memory of the whole process

Each binary pair runs alternately (old, new, old, new, ...) so that a change of machine load
hits both alike; the script prints medians and the new/old ratio.

    python3 tools/bench_before_after.py --old-dir DIR [--rounds 5] [perft selfplay startup]

DIR holds the old build's `perft_bench`, `selfplay_bench` and `fairyzero`; the new ones come
from target/release (build them first: `cargo build --release -p fairyzero-rules --example
perft_bench`, `... -p fairyzero-selfplay --example selfplay_bench`, `make build`).
"""

import argparse
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NEW = ROOT / "target" / "release"

SELFPLAY_SETTINGS = [
    "scirocco gumbel 32 64 2 64",
    "scirocco puct 64 64 2 64",
    "typhoon gumbel 32 16 1 16",
    "typhoon puct 64 16 1 16",
]
STARTUP_COMMANDS = [["perft", "--variant", "chess", "--depth", "1"], ["variants"]]


def run(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return out.stdout + out.stderr


def perft_rates(binary):
    """{position: on-CPU Mnodes/s} from one perft_bench run (itself a median of 5)."""
    text = run([str(binary), "5"])
    rates = {}
    for m in re.finditer(r"^(\w+) depth (\d+): \d+ nodes, median ([\d.]+) Mnodes/s wall, ([\d.]+) Mnodes/s on-CPU", text, re.M):
        rates[f"{m[1]} d{m[2]}"] = (float(m[3]), float(m[4]))
    if not rates:
        sys.exit(f"{binary}: no perft lines in its output:\n{text}")
    return rates


def selfplay_rate(binary, setting):
    text = run([str(binary), *setting.split()])
    m = re.search(r"simulations: \d+ \(([\d.,]+)/s\)", text)
    if not m:
        sys.exit(f"{binary} {setting}: no simulations/s in its output:\n{text}")
    return float(m[1].replace(",", ""))


def startup_one(binary, args):
    """(wall seconds, peak RSS MiB) of one whole process. The memory comes from a second run
    under /usr/bin/time: a child's own ru_maxrss would include the forked Python before exec."""
    t0 = time.perf_counter()
    subprocess.run([str(binary), *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - t0
    out = subprocess.run(["/usr/bin/time", "-f", "%M", str(binary), *args],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
    return wall, int(out.stderr.strip().splitlines()[-1]) / 1024.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old-dir", required=True, type=Path)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("what", nargs="*", default=["perft", "selfplay", "startup"])
    a = ap.parse_args()

    if "perft" in a.what:
        old_runs, new_runs = [], []
        for _ in range(a.rounds):
            old_runs.append(perft_rates(a.old_dir / "perft_bench"))
            new_runs.append(perft_rates(NEW / "examples" / "perft_bench"))
        print("\n| perft (median of the rounds' medians) | old Mnodes/s wall / on-CPU | new | new/old on-CPU |")
        print("|---|---|---|---:|")
        for pos in old_runs[0]:
            ow = statistics.median(r[pos][0] for r in old_runs)
            oc = statistics.median(r[pos][1] for r in old_runs)
            nw = statistics.median(r[pos][0] for r in new_runs)
            nc = statistics.median(r[pos][1] for r in new_runs)
            print(f"| {pos} | {ow:.2f} / {oc:.2f} | {nw:.2f} / {nc:.2f} | {nc / oc:.3f} |")

    if "selfplay" in a.what:
        print(f"\n| self-play, mock backend (median of {a.rounds}) | old simulations/s | new | new/old |")
        print("|---|---:|---:|---:|")
        for setting in SELFPLAY_SETTINGS:
            old, new = [], []
            for _ in range(a.rounds):
                old.append(selfplay_rate(a.old_dir / "selfplay_bench", setting))
                new.append(selfplay_rate(NEW / "examples" / "selfplay_bench", setting))
            o, n = statistics.median(old), statistics.median(new)
            print(f"| `{setting}` | {o:,.0f} | {n:,.0f} | {n / o:.3f} |")

    if "startup" in a.what:
        rounds = max(a.rounds, 10)
        print(f"\n| start-up (median of {rounds}) | old wall, peak RSS | new wall, peak RSS |")
        print("|---|---:|---:|")
        for args in STARTUP_COMMANDS:
            old, new = [], []
            for _ in range(rounds):
                old.append(startup_one(a.old_dir / "fairyzero", args))
                new.append(startup_one(NEW / "fairyzero", args))
            ow, orss = statistics.median(w for w, _ in old), max(r for _, r in old)
            nw, nrss = statistics.median(w for w, _ in new), max(r for _, r in new)
            print(f"| `fairyzero {' '.join(args)}` | {ow * 1000:,.1f} ms, {orss:,.1f} MiB | {nw * 1000:,.1f} ms, {nrss:,.1f} MiB |")


if __name__ == "__main__":
    main()
