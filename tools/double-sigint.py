#!/usr/bin/env python3
"""Double Ctrl-C, many times: `train` and `selfplay` (with a torch net) get two SIGINTs 0.1 s
apart, at a random moment after their start-up line, and must exit with status 130 every time,
without a crash, and without damaging what they had written.

    tools/double-sigint.py                       # 50 tries each, target/release/fairyzero
    tools/double-sigint.py --binary target/debug/fairyzero --tries 5

Every `train` try resumes the run directory of the one before, so a damaged checkpoint or game
chunk shows up as a "damaged" warning at the next start; at the end every self-play record file
is read back with `show-game` and the run is started once more. Prints one table row per
command: tries, exit statuses seen, crashes (signal deaths, "panicked", "corrupted", tch
errors), damage found. Exits non-zero if anything but 130 or any damage was seen.
"""

import argparse
import collections
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

CRASH_MARKERS = ("panicked", "corrupted", "Invalid (backend", "double free", "Segmentation", "core dumped")
DAMAGE_MARKERS = ("damaged", "skipped the damaged")


def start(binary, args, marker):
    """Starts the binary; returns the process and its stderr up to the start-up line."""
    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)
    env.pop("RUST_LOG", None)
    proc = subprocess.Popen(
        [binary, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True, errors="replace"
    )
    log = []
    for line in proc.stderr:
        log.append(line)
        if marker(line):
            return proc, log
    proc.wait()
    raise SystemExit(f"{' '.join(args)} ended before its start-up line:\n{''.join(log)}")


def try_once(binary, args, marker, delay, rng):
    """Starts, waits a random moment, sends two SIGINTs 0.1 s apart; returns (status, stderr)."""
    proc, log = start(binary, args, marker)
    time.sleep(rng.uniform(0.0, delay))
    proc.send_signal(signal.SIGINT)
    time.sleep(0.1)
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
    try:
        _, rest = proc.communicate(timeout=60)
        status = proc.returncode
    except subprocess.TimeoutExpired:
        proc.kill()
        return "hung", "".join(log)
    return status, "".join(log) + rest


def verdict(status, stderr):
    if status == "hung":
        return "hung"
    if status < 0:
        return f"killed by signal {-status}"
    found = [m for m in CRASH_MARKERS if m in stderr]
    return f"stderr says {found[0]!r}" if found else None


def run(name, binary, tries, delay, args, marker, rng, check):
    statuses = collections.Counter()
    crashes, damage = [], []
    for i in range(tries):
        status, stderr = try_once(binary, args, marker, delay, rng)
        statuses[status] += 1
        problem = verdict(status, stderr)
        if problem:
            crashes.append(f"try {i + 1}: {problem}\n{stderr[-2000:]}")
        damaged = [line for line in stderr.splitlines() if any(m in line for m in DAMAGE_MARKERS)]
        if damaged:
            damage.append(f"try {i + 1}: {damaged[0]}")
        print(f"{name} try {i + 1}/{tries}: exit {status}{' ' + problem if problem else ''}", file=sys.stderr)
    damage.extend(check())
    return statuses, crashes, damage


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default="target/release/fairyzero")
    parser.add_argument("--tries", type=int, default=50)
    parser.add_argument("--delay", type=float, default=2.0, help="longest random wait after the start-up line (s)")
    parser.add_argument("--only", choices=["train", "selfplay"], help="run one of the two")
    parser.add_argument("--seed", type=int, default=1)
    opts = parser.parse_args()
    binary = os.path.abspath(opts.binary)
    rng = random.Random(opts.seed)
    scratch = tempfile.mkdtemp(prefix="double-sigint-")
    rows = []

    if opts.only in (None, "train"):
        run_dir = os.path.join(scratch, "run")
        # A budget that the tries never spend: a finished run would exit 0 before the signals.
        train = ["train", "--config", "configs/runs/tiny.toml", "-o", f"run_dir={run_dir}", "-o", "budget.games=1000000"]
        started = lambda line: " in " + run_dir in line and ("starting" in line or "resuming" in line)

        def resumes():
            status, stderr = try_once(binary, train, started, 0.0, rng)
            if status != 130 or verdict(status, stderr) or "resuming" not in stderr:
                return [f"the run does not resume cleanly (exit {status}):\n{stderr[-2000:]}"]
            return []

        rows.append(("train", *run("train", binary, opts.tries, opts.delay, train, started, rng, resumes)))

    if opts.only in (None, "selfplay"):
        out = os.path.join(scratch, "games")
        selfplay = ["selfplay", "--config", "configs/runs/selfplay-example.toml", "--variant", "gardner"]
        selfplay += ["--net", "random:tiny", "--games", "100000", "--simulations", "4", "--out", out]

        def readable():
            problems = []
            files = sorted(os.listdir(out)) if os.path.isdir(out) else []
            for f in files:
                path = os.path.join(out, f)
                if f.startswith("."):
                    continue  # a temporary of a write that _exit cut short: never a record
                shown = subprocess.run([binary, "show-game", path], capture_output=True, text=True)
                if shown.returncode != 0:
                    problems.append(f"{f} does not read back: {shown.stderr.strip()}")
            print(f"selfplay: {len(files)} file(s) in {out} read back", file=sys.stderr)
            return problems

        started = lambda line: "self-play:" in line
        rows.append(("selfplay", *run("selfplay", binary, opts.tries, opts.delay, selfplay, started, rng, readable)))

    print(f"\nbinary: {opts.binary}, two SIGINTs 0.1 s apart, 0 to {opts.delay} s after the start-up line\n")
    print("| command | tries | exit statuses seen | crashes | damage |")
    print("|---|---:|---|---:|---:|")
    failed = False
    for name, statuses, crashes, damage in rows:
        seen = ", ".join(f"{s} x{n}" for s, n in sorted(statuses.items(), key=str))
        print(f"| {name} | {sum(statuses.values())} | {seen} | {len(crashes)} | {len(damage)} |")
        for line in crashes + damage:
            print(f"\n{name}: {line}")
        failed |= bool(crashes or damage) or set(statuses) != {130}
    print(f"\nscratch directory: {scratch}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
