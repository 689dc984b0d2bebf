#!/usr/bin/env bash
# Issue 19's learning experiments on the 2-core CPU machine, resumable step by step (every run
# is a `train` run directory: running a step again resumes what a kill or a session end cut
# short). Results and charts go to docs/results.md and docs/results/.
#
#   tools/learning-experiments.sh STEP...
#
# Steps:
#   scirocco     the long Scirocco run (configs/runs/scirocco.toml; 10 h budget), in the
#                foreground; continues from artifacts/scirocco-run/ if its directory is lost
#   typhoon      Typhoon from zero and by transfer from models/scirocco, side by side (one core
#                each, same config, seed and fixed opponents; configs/runs/typhoon.toml, 2 h each)
#   ablation     anti-Los Alamos arms at equal wall-clock (15 min, 2 seeds each, two runs at a
#                time on one core each): base (Gumbel, no playout cap, mirror on), puct, cap
#                (playout-cap randomisation), nomirror
#   every-variant  a short real training run of every built-in variant (the names `fairyzero
#                variants` lists), two at a time on one core each: configs/runs/tiny.toml with
#                EVERY_MINUTES (default 10) of budget, run directories $RUNS/every/<name>, and a
#                table of each run's final scores against random and greedy in
#                $RUNS/every/summary.md. trainer/tests/every_variant.rs is the CI-sized check (one
#                game and one optimizer step each); this is the one that shows each variant learns
#   compare      the charts and tables of the above (fairyzero compare) into docs/results/
#
# RUNS (default /work/runs, outside the checkout) holds the run directories.
set -euo pipefail
cd "$(dirname "$0")/.."
FZ=target/release/fairyzero
RUNS=${RUNS:-/work/runs}
mkdir -p "$RUNS"

# Two runs at once share the 2 cores evenly: each searches, trains and evaluates on one thread.
ONE_CORE=(-o selfplay.threads=1 -o train.threads=1 -o eval.threads=2 -o eval.cpu_threads=1
          -o output.progress=false)

train() { # LOG ARGS...: one run in the background, its log kept beside the run directory
  local log=$1; shift
  "$FZ" train "$@" >>"$log" 2>&1 &
}

for step in "$@"; do
  case "$step" in
    scirocco)
      dir=$RUNS/scirocco-x1
      extra=()
      if [ ! -d "$dir/checkpoints" ]; then
        kept=$(ls -d artifacts/scirocco-run/step-* | tail -1)
        extra=(--continue-from "$kept")
      fi
      "$FZ" train --config configs/runs/scirocco.toml -o run_dir="\"$dir\"" "${extra[@]}" ;;
    typhoon)
      [ -f models/scirocco/model.json ] || { echo "models/scirocco is missing: export the Scirocco net first" >&2; exit 1; }
      zero=$RUNS/typhoon-zero; transfer=$RUNS/typhoon-transfer
      train "$zero.log" --config configs/runs/typhoon.toml -o run_dir="\"$zero\"" "${ONE_CORE[@]}"
      extra=()
      [ -d "$transfer/checkpoints" ] || extra=(--transfer models/scirocco)
      train "$transfer.log" --config configs/runs/typhoon.toml -o run_dir="\"$transfer\"" "${ONE_CORE[@]}" "${extra[@]}"
      wait ;;
    ablation)
      # Every arm evaluates against the same fixed opponents, so that `compare` rates them jointly.
      common=(-o budget.minutes=15.0 -o eval.every=4 -o eval.games=24
              -o 'eval.opponents=["random", "greedy", "alphabeta:1"]'
              -o eval.final.games=40 -o 'eval.final.opponents=["random", "greedy", "alphabeta:1"]'
              "${ONE_CORE[@]}")
      arm_args() {
        case "$1" in
          base) ;;
          puct) echo '-o selfplay.search="puct"' ;;
          cap) echo '-o selfplay.playout_cap.full_fraction=0.25 -o selfplay.playout_cap.reduced_simulations=8' ;;
          nomirror) echo '-o replay.mirror="off"' ;;
        esac
      }
      for pair in "base puct" "cap nomirror"; do
        for seed in 1 2; do
          for arm in $pair; do
            dir=$RUNS/ablation/$arm-seed$seed
            mkdir -p "$RUNS/ablation"
            # shellcheck disable=SC2046  # the arm's overrides are words
            train "$dir.log" --config configs/runs/default.toml -o run_dir="\"$dir\"" -o seed=$seed \
              "${common[@]}" $(arm_args "$arm")
          done
          wait
        done
      done ;;
    every-variant)
      mkdir -p "$RUNS/every"
      mapfile -t names < <("$FZ" variants -q | awk 'NR > 1 { print $1 }')
      for ((k = 0; k < ${#names[@]}; k += 2)); do
        for name in "${names[@]:k:2}"; do
          train "$RUNS/every/$name.log" --config configs/runs/tiny.toml -o variant="\"$name\"" \
            -o run_dir="\"$RUNS/every/$name\"" -o budget.games=0 \
            -o budget.minutes="${EVERY_MINUTES:-10}.0" "${ONE_CORE[@]}"
        done
        wait
      done
      {
        echo "| variant | final scores against random and greedy (each run's summary.md) |"
        echo "| --- | --- |"
        for name in "${names[@]}"; do
          scores=$(awk -F'|' '$3 ~ /`(random|greedy)`/ { gsub(/[ `]/, "", $3); gsub(/ /, "", $6); printf "%s %s; ", $3, $6 }' \
            "$RUNS/every/$name/summary.md" 2>/dev/null)
          echo "| $name | ${scores:-no summary: see $RUNS/every/$name.log} |"
        done
      } > "$RUNS/every/summary.md"
      echo "wrote $RUNS/every/summary.md" ;;
    compare)
      mkdir -p docs/results
      if [ -d "$RUNS/typhoon-zero" ] && [ -d "$RUNS/typhoon-transfer" ]; then
        "$FZ" compare --run zero="$RUNS/typhoon-zero" --run transfer="$RUNS/typhoon-transfer" \
          --title "Typhoon: from zero vs by transfer from Scirocco" --out "$RUNS/compare-typhoon"
        cp "$RUNS/compare-typhoon/compare.png" docs/results/typhoon-transfer.png
      fi
      if [ -d "$RUNS/ablation" ]; then
        for other in puct cap nomirror; do
          args=()
          for arm in base $other; do
            for seed in 1 2; do
              args+=(--run "$arm$seed=$RUNS/ablation/$arm-seed$seed" --group "$arm$seed=$arm")
            done
          done
          "$FZ" compare "${args[@]}" --title "anti-Los Alamos, 15 min: base vs $other" \
            --out "$RUNS/compare-ablation-$other"
          cp "$RUNS/compare-ablation-$other/compare.png" "docs/results/ablation-$other.png"
        done
      fi ;;
    *) echo "unknown step $step (scirocco typhoon ablation every-variant compare)" >&2; exit 2 ;;
  esac
done
