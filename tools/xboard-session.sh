#!/usr/bin/env bash
# XBoard itself against `fairyzero xboard`: a short game under a virtual X server, a screenshot
# of the board, the game's PGN and XBoard's protocol log. Not part of the test suite (it needs
# X11 packages); docs/engines.md shows the screenshot it saved as docs/results/xboard.png.
#
#   tools/xboard-session.sh [VARIANT] [SECONDS] [OUT_DIR]
#
# VARIANT (default losalamos, an engine-defined variant: XBoard draws it from fairyzero's
# `setup` and `piece` commands) is any name of `feature variants`; the game is fairyzero's
# alpha-beta (White) against itself with a smaller table (Black), 10 s + 0.1 s a move each,
# and the screenshot is taken at the end of the game or after SECONDS (default 60), whichever
# comes first. OUT_DIR (default target/xboard-session) receives board.png, game.pgn and
# xboard.debug. Needs: apt-get install -y xboard xvfb x11-apps imagemagick, and a built
# `fairyzero` (cargo build --release -p fairyzero-cli; FAIRYZERO=path overrides).
set -euo pipefail

variant=${1:-losalamos}
seconds=${2:-60}
out=${3:-target/xboard-session}
root=$(cd "$(dirname "$0")/.." && pwd)
# The first binary that knows `xboard` (a stale release build may not).
fz=
for candidate in ${FAIRYZERO:-} "$root/target/release/fairyzero" "$root/target/debug/fairyzero"; do
    if "$candidate" xboard --help >/dev/null 2>&1; then fz=$candidate; break; fi
done
[ -n "$fz" ] || { echo "no fairyzero binary with the xboard command: cargo build --release -p fairyzero-cli" >&2; exit 1; }
xboard=$(command -v xboard || echo /usr/games/xboard)
for tool in "$xboard" Xvfb xwd convert; do
    command -v "$tool" >/dev/null || { echo "missing $tool: apt-get install -y xboard xvfb x11-apps imagemagick" >&2; exit 1; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out/game.pgn" "$out/xboard.debug" "$out/board.png"

display=:${XBOARD_DISPLAY:-97}
Xvfb "$display" -screen 0 1024x768x24 -nolisten tcp &
xvfb=$!
xb=
# XBoard first (its engines exit when their input closes), while its display still exists.
cleanup() {
    if [ -n "$xb" ] && kill "$xb" 2>/dev/null; then
        sleep 1
        kill -9 "$xb" 2>/dev/null || true
    fi
    kill "$xvfb" 2>/dev/null || true
}
trap cleanup EXIT
sleep 1

# TwoMachines: the engines play each other and XBoard stays open at the end of the game (the
# game is then saved to -sgf). -debug logs every protocol line.
(
    cd "$root"
    exec env DISPLAY="$display" "$xboard" \
        -fcp "$fz xboard --player alphabeta:64" -fd "$root" \
        -scp "$fz xboard --player alphabeta:64" -sd "$root" \
        -variant "$variant" -tc 0:10 -inc 0.1 -initialMode TwoMachines \
        -sgf "$out/game.pgn" -debug -nameOfDebugFile "$out/xboard.debug" \
        -size medium -autoCallFlag true -popupExitMessage false -saveSettingsOnExit false
) &
xb=$!

for _ in $(seq 1 "$seconds"); do
    kill -0 "$xb" 2>/dev/null || { echo "XBoard exited early: see $out/xboard.debug" >&2; exit 1; }
    [ -s "$out/game.pgn" ] && break
    sleep 1
done
sleep 1
xwd -root -display "$display" -silent | convert xwd:- -trim +repage -resize '420x420>' -colors 64 -strip "$out/board.png"
echo "screenshot: $out/board.png"
[ -f "$out/game.pgn" ] && echo "game: $out/game.pgn"
echo "protocol log: $out/xboard.debug"
