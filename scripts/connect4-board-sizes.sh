#!/usr/bin/env bash
# Solves the empty board of every Connect Four size puzzlebench holds with at most 42 cells
# (sides 4 to 16, width × (height + 1) bits at most 128) with `puzzlebench connect4 solve`,
# and prints a Markdown table: result for the first player, score, every best first move,
# nodes searched and time.
#
#   scripts/connect4-board-sizes.sh [BINARY] [TOTAL_MINUTES] [TABLE_MB]
#
# BINARY defaults to target/release/puzzlebench (built if missing). Boards run from the
# smallest up, one at a time, each with a `--timeout` of whatever is left of TOTAL_MINUTES
# (default 30); a board that does not finish gets "not solved within …" in its row. Every
# search is one position on one thread with a TABLE_MB table (default 1024). BOARDS
# (e.g. BOARDS="7x6 6x7") keeps only the boards named.
set -euo pipefail
cd "$(dirname "$0")/.."

binary=${1:-}
total_minutes=${2:-30}
table_mb=${3:-1024}
if [[ -z $binary ]]; then
    cargo build --release --quiet
    binary=${CARGO_TARGET_DIR:-target}/release/puzzlebench
fi

# Every width × height with both sides in 4..16 and at most 42 cells, smallest first.
boards=$(for w in $(seq 4 16); do for h in $(seq 4 16); do
    if ((w * h <= 42 && w * (h + 1) <= 128)); then
        if [[ -z ${BOARDS:-} || " $BOARDS " == *" ${w}x${h} "* ]]; then echo "$((w * h)) $w $h"; fi
    fi
done; done | sort -n -k1,1 -k2,2)

deadline=$(($(date +%s) + total_minutes * 60))
echo "| board | cells | result (first player) | score | best first moves | nodes | time |"
echo "|---|---:|---|---:|---|---:|---:|"
while read -r cells w h; do
    left=$((deadline - $(date +%s)))
    if ((left <= 0)); then
        echo "| ${w}×${h} | $cells | not solved within ${total_minutes} min (not started) | | | | |"
        continue
    fi
    row=$(echo "-" | "$binary" connect4 solve --quiet --no-header --width "$w" --height "$h" \
        --threads 1 --table-mb "$table_mb" --timeout "${left}s" || true)
    # Columns: line,status,result,score,best_moves,nodes,expected,error,micros
    IFS=, read -r _ status result score best nodes _ error micros <<<"$row"
    seconds=$(awk -v m="$micros" 'BEGIN { printf "%.3f s", m / 1e6 }')
    nodes=$(printf "%'d" "$nodes" 2>/dev/null || echo "$nodes")
    case $status in
    ok)
        case $result in
        win) outcome="first player wins" ;;
        loss) outcome="first player loses" ;;
        *) outcome="draw" ;;
        esac
        echo "| ${w}×${h} | $cells | $outcome | $score | $best | $nodes | $seconds |"
        ;;
    timeout) echo "| ${w}×${h} | $cells | not solved within ${left} s | | | $nodes | $seconds |" ;;
    *) echo "| ${w}×${h} | $cells | $status: $error | | | | |" ;;
    esac
done <<<"$boards"
