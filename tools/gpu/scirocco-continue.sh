#!/bin/bash
# GPU session for issue 19 (2026-11-28): (G2) the Scirocco run continued on one GPU + 16 cores for
# a few minutes from artifacts/scirocco-run (throughput and a newer checkpoint), then (G1) how much
# search alone buys: the shipped Scirocco net (step 13,036) at 32/128/512 simulations and the
# GPU-continued net at 32 against alphabeta:1, in batches of games until a deadline.
# On the card (OUT set by the device tool): bash tools/gpu/scirocco-continue.sh gpubin/fz-gpu, the
# binary built for the card's libtorch as docs/setup.md says. The settings are those of that run,
# before max_batch was chosen per device (its forwards were capped at 64 positions).
# Local dry run (CPU): OUT=/tmp/gpuout SCALE=small LIBTORCH_FROM=/path/to/venv bash tools/gpu/scirocco-continue.sh BINARY
set -u
T0=$(date +%s)
PY=python3
[ -n "${LIBTORCH_FROM:-}" ] && PY=$LIBTORCH_FROM/bin/python
LD_LIBRARY_PATH=$("$PY" -c 'import torch,os;print(os.path.dirname(torch.__file__)+"/lib")')
export LD_LIBRARY_PATH
B=$(realpath "${1:-gpubin/fz-gpu}")
chmod +x "$B"
W=/tmp/fzwork; rm -rf "$W"; mkdir -p "$W"
if [ "${SCALE:-full}" = small ]; then
  TRAIN_KILL=100; G1_END=200; SP=(-o selfplay.games_in_parallel=16 -o selfplay.threads=2 -o replay.min_positions=500)
  LEVELS="32 128"; NG=2
else
  TRAIN_KILL=290; G1_END=545; SP=(-o selfplay.games_in_parallel=512 -o selfplay.threads=12)
  LEVELS="32 128 512"; NG=16
fi
{ "$B" info; nvidia-smi --query-gpu=name,memory.total --format=csv; nproc; } > "$OUT/info.txt" 2>&1

# G2: continue the run; killed at the deadline (each iteration publishes a checkpoint). The budget
# stays the run's 600 minutes, so that the learning-rate schedule is the run's own.
timeout -s KILL $TRAIN_KILL "$B" train --config configs/runs/scirocco.toml \
  --continue-from artifacts/scirocco-run/step-00015289 -o run_dir="\"$W/g2\"" \
  -o precision='"fp32"' "${SP[@]}" -o iteration.games=64 \
  -o eval.every=0 -o eval.final.games=0 -o output.progress=false -o output.tensorboard=false \
  -o train.threads=2 > "$OUT/g2.log" 2>&1
echo "g2 exit $? after $(( $(date +%s) - T0 )) s" >> "$OUT/g2.log"
cp "$W/g2/metrics.jsonl" "$OUT/g2-metrics.jsonl" 2>/dev/null
LAST=$(find "$W/g2/checkpoints" -maxdepth 1 -name 'step-*' 2>/dev/null | sort | tail -1)
[ -n "$LAST" ] && tar -C "$(dirname "$LAST")" -cf "$OUT/g2-ckpt.tar" "$(basename "$LAST")"

# G1: batches of NG games per player until the deadline; each batch is stored when it ends.
play() {  # name spec games-per-batch
  local name=$1 spec=$2 NG=$3 i=0
  while [ $(( $(date +%s) - T0 )) -lt $(( G1_END - 30 )) ]; do
    i=$((i + 1))
    timeout -s KILL $(( G1_END - ($(date +%s) - T0) )) "$B" match "$spec" alphabeta:1 --variant scirocco \
      --games "$NG" --seed $((100 + i)) --threads "$NG" --cpu-threads 2 --config configs/runs/scirocco.toml \
      --run "$W/g1-$name" --no-moves >> "$W/g1-$name.log" 2>&1 || break
  done
}
for s in $LEVELS; do play "m13036-$s" "models/scirocco@$s" $(( s == 512 ? NG / 2 : NG )) & done
[ -n "$LAST" ] && play "gpu-32" "$LAST@32" $NG &
wait
for f in "$W"/g1-*.log; do echo "== $f"; grep -E '^result|^stored' "$f"; done > "$OUT/g1-summary.txt"
(cd "$W" && tar -cf "$OUT/g1.tar" g1-*)
echo "done after $(( $(date +%s) - T0 )) s" >> "$OUT/g1-summary.txt"
