#!/usr/bin/env bash
# The viewer screenshots in docs/results/ (README, docs/selfplay.md): a Typhoon game between
# alpha-beta depth 1 and greedy and a Chushin Shogi game between greedy and random (alpha-beta
# is slow on 18x18), `fairyzero match` with the moves recorded, each written as a page by
# `show-game --html` and photographed by headless Chromium at a middle ply.
#
#   tools/viewer-screenshots.sh            # FZ=target/release/fairyzero by default
set -euo pipefail
cd "$(dirname "$0")/.."
FZ=${FZ:-target/release/fairyzero}
OUT=${OUT:-docs/results}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
shot() { # VARIANT PLY MOVE_CAP PLAYER OPPONENT
  local variant=$1 ply=$2 cap=$3
  "$FZ" match "$4" "$5" --variant "$variant" --games 1 --move-cap "$cap" --seed 7 \
    --run "$work/$variant" -q >/dev/null
  "$FZ" show-game "$work/$variant"/matches/*.jsonl --html "$work/$variant.html"
  cp "$work/$variant.html" "$OUT/viewer-$variant.html"
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$work/profile" --window-size=1300,1000 --hide-scrollbars \
    --screenshot="$OUT/viewer-$variant.png" "file://$work/$variant.html#ply=$ply" 2>/dev/null
  echo "wrote $OUT/viewer-$variant.png and .html"
}
shot typhoon 40 120 alphabeta:1 greedy
shot chushin 60 80 greedy random
