#!/usr/bin/env bash
# Reproduces the designer tables of docs/results.md: piece values by material-imbalance matches
# of the alpha-beta baseline (orthochess calibration, Scirocco, Typhoon), the value-net probe and
# the least-squares fit on the default training run, and first-player balance.
#
#   tools/designer-results.sh [STEP...]      (steps: chess scirocco typhoon probe balance; default all)
#
# Results accumulate in runs/designer/<name>/ (rerunning adds games and narrows the intervals);
# the tables and plots are written there. Needs the release binary (make train builds it).
set -euo pipefail
cd "$(dirname "$0")/.."
FZ=target/release/fairyzero
OUT=runs/designer
THREADS=${THREADS:-2}
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(chess scirocco typhoon probe balance)

for step in "${steps[@]}"; do
  case "$step" in
    chess)
      # Orthochess calibration against published scales (docs/results.md).
      $FZ piece-values --variant chess --player alphabeta:3:values=mobility \
        --games "${CHESS_GAMES:-400}" --threads "$THREADS" --seed 1 --out "$OUT/chess"
      # The same games in knight units (2 more games per type; a pawn handicap is worth little
      # to a depth-3 player, so pawn units magnify the noise).
      $FZ piece-values --variant chess --player alphabeta:3:values=mobility --reference N \
        --games 2 --threads "$THREADS" --seed 1 --out "$OUT/chess" ;;
    scirocco)
      $FZ piece-values --variant scirocco --player alphabeta:2:values=mobility \
        --games "${SCIROCCO_GAMES:-80}" --threads "$THREADS" --seed 1 --out "$OUT/scirocco"
      $FZ piece-values --variant scirocco --player alphabeta:2:values=mobility --reference N \
        --games 2 --threads "$THREADS" --seed 1 --out "$OUT/scirocco" ;;
    typhoon)
      # A depth-2 Typhoon game takes ~12 s on one core: a few pieces, in knight units (a pawn
      # handicap is too small for a shallow player to convert).
      $FZ piece-values --variant typhoon --player alphabeta:2:values=mobility \
        --pieces "${TYPHOON_PIECES:-C,A,D,P}" --reference N \
        --games "${TYPHOON_GAMES:-24}" --threads "$THREADS" --seed 1 --out "$OUT/typhoon" ;;
    probe)
      # The default run's final checkpoint and its self-play games.
      ckpt=$(ls -d runs/default/checkpoints/step-* | sort | tail -1)
      $FZ piece-values --variant antilosalamos --method probe,fit --net "$ckpt" \
        --records runs/default/games --positions 4000 --seed 1 --out "$OUT/antilosalamos" ;;
    balance)
      # Scirocco's setup phase is sampled per opening.
      $FZ balance --variant scirocco --player alphabeta:2:values=mobility \
        --games "${BALANCE_GAMES:-300}" --threads "$THREADS" --seed 1 --out "$OUT/scirocco-balance" ;;
    *) echo "unknown step $step (chess scirocco typhoon probe balance)" >&2; exit 2 ;;
  esac
done
