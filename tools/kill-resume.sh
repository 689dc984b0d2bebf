#!/usr/bin/env bash
# Kill and resume, for docs/reliability.md: starts `fairyzero train` on the tiny run config,
# kills it with SIGKILL at random moments KILLS times, resumes it each time, then lets it finish.
# Before every kill it notes the games and checkpoints in the run directory; after every resume
# it checks that none of them is lost: the resumed run's `start` line must count at least as many
# games, every noted checkpoint must still be in checkpoints/ (none moved to damaged/), and the
# final run must end with exit 0. Prints one line per kill and a summary.
#
#   tools/kill-resume.sh                       # 10 kills, debug binary, run dir in a temp dir
#   BIN=target/release/fairyzero KILLS=20 GAMES=3000 RUN=/tmp/kr tools/kill-resume.sh
#
# Exit status: 0 when nothing was lost, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."

BIN=${BIN:-target/debug/fairyzero}
KILLS=${KILLS:-10}
RUN=${RUN:-$(mktemp -d)/run}
# Random delay (seconds) between a (re)start's `start` line and its kill.
MIN_DELAY=${MIN_DELAY:-1}
MAX_DELAY=${MAX_DELAY:-12}
SEED=${SEED:-1}
RANDOM=$SEED

overrides=(-o "run_dir=\"$RUN\"" -o budget.games=${GAMES:-3000} -o eval.every=3 -o eval.games=4 -o eval.final.games=4)

count_games() {
    local n=0 f
    for f in "$RUN"/games/*.games.zst; do
        [[ -e $f ]] || continue
        n=$((n + $("$BIN" show-game "$f" 2>/dev/null | grep -c '^game ')))
    done
    echo "$n"
}

checkpoints() { ls "$RUN/checkpoints" 2>/dev/null | sort; }
starts() {
    local n
    n=$(grep -c '"kind":"start"' "$RUN/metrics.jsonl" 2>/dev/null)
    echo "${n:-0}"
}

lost_total_games=0
lost_total_checkpoints=0
echo "run directory: $RUN   binary: $BIN   kills: $KILLS"
printf '%-5s %-8s %-14s %-14s %-12s %-12s\n' kill "after_s" games_noted games_resumed ckpts_noted ckpts_lost
for ((k = 1; k <= KILLS; k++)); do
    before_starts=$(starts)
    "$BIN" -q train --config configs/runs/tiny.toml "${overrides[@]}" >"$RUN.log.$k" 2>&1 &
    pid=$!
    # Wait for the start line (the resume checks are done by then).
    for ((t = 0; t < 600; t++)); do
        [[ $(starts) -gt $before_starts ]] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if ((k > 1)); then
        resumed=$(grep '"kind":"start"' "$RUN/metrics.jsonl" | tail -1 | jq -r .games)
        lost_ckpts=$(comm -23 <(echo "$noted_ckpts") <(checkpoints) | grep -c . || true)
        lost_games=$((noted_games > resumed ? noted_games - resumed : 0))
        lost_total_games=$((lost_total_games + lost_games))
        lost_total_checkpoints=$((lost_total_checkpoints + lost_ckpts))
        printf '%-5s %-8s %-14s %-14s %-12s %-12s\n' $((k - 1)) "$delay" "$noted_games" "$resumed" \
            "$(echo "$noted_ckpts" | grep -c .)" "$lost_ckpts"
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "train ended before kill $k (budget spent?): see $RUN.log.$k" >&2
        break
    fi
    delay=$((MIN_DELAY + RANDOM % (MAX_DELAY - MIN_DELAY + 1)))
    sleep "$delay"
    noted_ckpts=$(checkpoints)
    noted_games=$(count_games)
    if ! kill -9 "$pid" 2>/dev/null; then
        echo "train ended before kill $k (budget spent?): see $RUN.log.$k" >&2
        break
    fi
    wait "$pid" 2>/dev/null
done

# The last resume runs to the end of the budget.
"$BIN" -q train --config configs/runs/tiny.toml "${overrides[@]}" >"$RUN.log.final" 2>&1
final_status=$?
resumed=$(grep '"kind":"start"' "$RUN/metrics.jsonl" | tail -1 | jq -r .games)
lost_ckpts=$(comm -23 <(echo "$noted_ckpts") <(checkpoints) | grep -c . || true)
lost_games=$((noted_games > resumed ? noted_games - resumed : 0))
lost_total_games=$((lost_total_games + lost_games))
lost_total_checkpoints=$((lost_total_checkpoints + lost_ckpts))
printf '%-5s %-8s %-14s %-14s %-12s %-12s\n' "$((k - 1))" "$delay" "$noted_games" "$resumed" \
    "$(echo "$noted_ckpts" | grep -c .)" "$lost_ckpts"
damaged=$(find "$RUN/damaged" -type f 2>/dev/null | wc -l)
echo "final run: exit $final_status, $(count_games) games, $(checkpoints | wc -l) checkpoints, $damaged files in damaged/"
echo "summary: kills $((k - 1)), games lost $lost_total_games, checkpoints lost $lost_total_checkpoints"
[[ $final_status -eq 0 && $lost_total_games -eq 0 && $lost_total_checkpoints -eq 0 && $damaged -eq 0 ]]
