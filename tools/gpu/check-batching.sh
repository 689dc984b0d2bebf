#!/usr/bin/env bash
# The prepared GPU check of issue 18 (docs/plans/batching.md §7.4, steps 1-5), in one device
# call of at most 9 minutes. Everything goes to OUT; every command runs under `timeout -s KILL`
# (a hung forward on a card never returns, and only SIGKILL ends a process stuck in a CUDA call).
#
#   tools/gpu/check-batching.sh BINARY [OUT]
#
# BINARY: the `fairyzero` built for the card's libtorch (docs/setup.md "A GPU machine with
# another PyTorch and no Rust toolchain"; `fairyzero-torch` must lie next to it). OUT defaults
# to $OUT (the device machine's return folder). Optional, from the environment:
#   FZ_TEST_BINS  test binaries built the same way (`cargo test -p fairyzero-torch --release
#                 --no-run --test inference_path --test executor` prints their paths), whose
#                 CUDA-only tests (`#[ignore = "needs CUDA"]`) are run first;
#   FZ_QUICK=1    short timings (a smoke run of the script itself, e.g. on a CPU machine with
#                 --device cpu semantics: set FZ_DEVICE=cpu as well).
#
# Steps (seconds are limits, each command is killed at its own; 515 s at most in all, and a
# step that would pass FZ_BUDGET, default 530 s, is skipped; give the device call 600 s):
#   0  CUDA-only unit tests, if FZ_TEST_BINS                                   <= 40 s each
#   1  fairyzero info                                                          <= 20 s
#   2  bench net, Typhoon 15x192, batches 256/1024/4096, --breakdown: fp32 and bf16 as before
#      issue 18 (no autotuning, NCHW) and with the executor's defaults (cuDNN benchmark,
#      channels-last); fp32 defaults with TF32 off, batch 1024                <= 4 x 50 + 30 s
#   3  tools/gpu/trunk_reference.py: plain and fairyzero-shaped trunk, same card <= 70 s
#   4  bench net --precision-check (bf16 vs fp32, batch 256)                   <= 35 s
#   5  bench selfplay --net random:15x192, Typhoon, 2048 games on 14 threads, max batch 1024,
#      10 s warm-up, 20 s measured, --raw, fp32 and bf16                      <= 2 x 80 s
#   then summary.md: the goal rows and self-play evaluations/s against bench net.
set -u

if [ $# -lt 1 ] || [ ! -x "$1" ]; then
    echo "usage: $0 BINARY [OUT]  (BINARY: an executable fairyzero built for this card)" >&2
    exit 2
fi
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
OUT=${2:-${OUT:-}}
if [ -z "$OUT" ]; then
    echo "$0: no output folder: pass OUT or set \$OUT" >&2
    exit 2
fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
# The repository root: bench selfplay reads configs/runs/selfplay-bench.toml from there.
cd "$(dirname "$0")/../.."

PY=${FZ_PYTHON:-python3}
if [ -z "${LD_LIBRARY_PATH:-}" ] || ! "$BIN" --version >/dev/null 2>&1; then
    # The binary's RUNPATH names the build machine's venv: use this machine's libtorch.
    TORCH_LIB=$("$PY" -c 'import torch, os; print(os.path.dirname(torch.__file__) + "/lib")' 2>/dev/null || true)
    [ -n "$TORCH_LIB" ] && export LD_LIBRARY_PATH="$TORCH_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

DEVICE=${FZ_DEVICE:-cuda}
if [ "${FZ_QUICK:-0}" = 1 ]; then
    SIZE=2x32 BATCHES=16,64 BIG=64 SECS=0.3 TRUNK_SECS=0.1 POSITIONS=128 PARALLEL=64 THREADS=2 WARMUP=1 SP_SECS=2 MAXB=64
else
    SIZE=15x192 BATCHES=256,1024,4096 BIG=1024 SECS=2 TRUNK_SECS=1 POSITIONS=1024 PARALLEL=2048 THREADS=14 WARMUP=10 SP_SECS=20 MAXB=1024
fi
START=$(date +%s)
LOG="$OUT/check.log"
: >"$LOG"

# run NAME SECONDS CMD...: stdout+stderr to OUT/NAME.txt, status and time to the log. A step
# that could overrun the whole check's budget (FZ_BUDGET seconds, default 530) is skipped.
BUDGET=${FZ_BUDGET:-530}
run() {
    local name=$1 limit=$2
    shift 2
    local t0=$(date +%s)
    if [ $(( t0 - START + limit )) -gt "$BUDGET" ]; then
        echo "## $name: skipped, ${limit} s more would pass the ${BUDGET} s budget" | tee -a "$LOG"
        return
    fi
    echo "## $name: $*" >>"$LOG"
    timeout -s KILL "$limit" "$@" >"$OUT/$name.txt" 2>&1
    local rc=$?
    local took=$(( $(date +%s) - t0 ))
    if [ $rc -eq 137 ]; then
        echo "   killed after ${limit} s (rc 137)" >>"$LOG"
    else
        echo "   rc $rc, ${took} s" >>"$LOG"
    fi
    echo "[$(( $(date +%s) - START )) s] $name: rc $rc, ${took} s"
}

# 0. CUDA-only unit tests.
for t in ${FZ_TEST_BINS:-}; do
    run "test-$(basename "$t" | sed 's/-[0-9a-f]*$//')" 40 "$t" --ignored --test-threads 1
done

# 1.
run info 20 "$BIN" info

# 2. bench net.
NET=(bench net --variant typhoon --size "$SIZE" --device "$DEVICE" --batches "$BATCHES" --seconds "$SECS"
     --positions "$POSITIONS" --breakdown)
run net-fp32-before 50 "$BIN" "${NET[@]}" --precision fp32
run net-fp32 50 "$BIN" "${NET[@]}" --precision fp32 --cudnn-benchmark --channels-last
run net-bf16 50 "$BIN" "${NET[@]}" --precision bf16 --cudnn-benchmark --channels-last
run net-bf16-before 50 "$BIN" "${NET[@]}" --precision bf16
run net-fp32-no-tf32 30 env NVIDIA_TF32_OVERRIDE=0 "$BIN" bench net --variant typhoon --size "$SIZE" \
    --device "$DEVICE" --batches "$BIG" --seconds "$SECS" --positions "$POSITIONS" --breakdown \
    --precision fp32 --cudnn-benchmark --channels-last

# 3. The plain trunk on the same card.
B=${SIZE%x*} C=${SIZE#*x}
run trunk-reference 70 "$PY" tools/gpu/trunk_reference.py --blocks "$B" --channels "$C" --batches "$BATCHES" \
    --seconds "$TRUNK_SECS" --device "$DEVICE"

# 4. bf16 against fp32.
run precision-check 35 "$BIN" bench net --variant typhoon --size "$SIZE" --device "$DEVICE" \
    --batches "${BATCHES%%,*}" --seconds 0.5 --positions "$POSITIONS" --precision bf16 --cudnn-benchmark \
    --channels-last --precision-check

# 5. Self-play on the inference service against the executor alone.
for precision in fp32 bf16; do
    run "selfplay-$precision" $(( 2 * SP_SECS + WARMUP + 30 )) "$BIN" bench selfplay --variant typhoon \
        --net "random:$SIZE" --precision "$precision" --parallel "$PARALLEL" --threads "$THREADS" \
        --max-batch "$MAXB" --warmup "$WARMUP" --seconds "$SP_SECS" --raw
done

# Summary: never fails the run; the raw outputs are next to it.
timeout -s KILL 20 "$PY" - "$OUT" <<'PYEOF' >"$OUT/summary.md" 2>&1
import os, re, sys

out = sys.argv[1]

def read(name):
    try:
        return open(os.path.join(out, name + ".txt")).read()
    except OSError:
        return ""

def rows(text, first_header):
    """Markdown rows of the table whose header starts with `first_header`, as dicts."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0] == first_header:
            out = []
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                out.append(dict(zip(cells, [c.strip() for c in row.strip().strip("|").split("|")])))
            return out
    return []

def num(s):
    try:
        return float(s.replace(",", "").rstrip("%"))
    except (AttributeError, ValueError):
        return None

net = {}
for name in ["net-fp32-before", "net-fp32", "net-bf16", "net-bf16-before", "net-fp32-no-tf32"]:
    net[name] = {int(r["batch"]): num(r["positions/s"]) for r in rows(read(name), "batch") if "positions/s" in r}

trunk = {}
for r in rows(read("trunk-reference"), "trunk"):
    for k, v in r.items():
        m = re.match(r"batch (\d+)", k)
        if m:
            trunk[(r["trunk"], r["precision"], r["layout"], int(m.group(1)))] = num(v)

print("# issue 18 GPU check: summary\n")
print("## bench net against the trunk (positions/s)\n")
print("| batch | fp32 before | fp32 now | fp32 / plain trunk fp32 | bf16 now | bf16 / plain trunk bf16 | bf16 goal 60,000 |")
print("|---:|---:|---:|---:|---:|---:|---|")
for b in sorted(net.get("net-fp32", {})):
    f_old, f, h = net["net-fp32-before"].get(b), net["net-fp32"].get(b), net.get("net-bf16", {}).get(b)
    # Against the plain trunk's best layout in the same precision: the stricter reading.
    best = lambda p: max((trunk.get(("plain", p, l, b)) or 0 for l in ("NCHW", "channels-last")), default=0) or None
    tf, th = best("fp32"), best("bf16")
    ratio = lambda x, y: f"{x / y:.2f}" if x and y else "-"
    fmt = lambda x: f"{x:,.0f}" if x else "-"
    print(f"| {b} | {fmt(f_old)} | {fmt(f)} | {ratio(f, tf)} (goal 0.80) | {fmt(h)} | {ratio(h, th)} | "
          f"{'met' if h and h >= 60000 else 'not met'} |")

print("\n## self-play against bench net at the same batch\n")
print("| precision | evaluations/s | mean batch | raw evaluations/s | ratio (self-play) | bench net at nearest batch | self-play / bench net (goal 0.60) |")
print("|---|---:|---:|---:|---:|---:|---:|")
for precision in ["fp32", "bf16"]:
    for r in rows(read("selfplay-" + precision), "variant"):
        ev, mb = num(r.get("evaluations/s")), num(r.get("mean batch"))
        table = net.get("net-" + precision, {})
        near = min(table, key=lambda b: abs(b - mb)) if table and mb else None
        ref = table.get(near) if near else None
        print(f"| {precision} | {r.get('evaluations/s')} | {r.get('mean batch')} | {r.get('raw evaluations/s')} | "
              f"{r.get('ratio')} | {f'{ref:.0f} (batch {near})' if ref else '-'} | {f'{ev / ref:.2f}' if ev and ref else '-'} |")
PYEOF
echo "[$(( $(date +%s) - START )) s] done: $OUT/summary.md" | tee -a "$LOG"
cat "$OUT/summary.md"
