#!/usr/bin/env bash
# Soak: every batch command on N generated records with -j2, once straight through and
# once interrupted (SIGINT part way) then resumed; checks rows out = records in, the
# resumed file equal to the uninterrupted one (micros and nodes aside), and reports wall time and
# peak RSS of each run.
#
#   scripts/soak.sh [RECORDS] [WORKDIR]      (default 10000000 records, WORKDIR a temp dir)
#
# Needs python3 (to compare the CSV files column by column).
#
# Needs the release build (cargo build --release) and about 3 GB in WORKDIR for 10 M
# records.
set -euo pipefail
cd "$(dirname "$0")/.."
records=${1:-10000000}
work=${2:-$(mktemp -d)}
bin=$(pwd)/target/release/puzzlebench
mkdir -p "$work"
echo "soak: $records records per command in $work"

# The inputs: generated once, a small generated set repeated to the count.
repeat_to() { # FILE COUNT: the records of FILE (no comments) repeated to COUNT lines
    grep -v '^#' "$1" | grep -v '^$' | awk -v n="$2" '{a[NR]=$0} END {for (i = 0; i < n; i++) print a[i % NR + 1]}'
}
[ -s "$work/sudoku.txt" ] || "$bin" sudoku generate --count 2000 --seed 7 | repeat_to /dev/stdin "$records" > "$work/sudoku.txt"
[ -s "$work/games.txt" ] || "$bin" connect4 generate --count 5000 --seed 7 --faults 0.05 | repeat_to /dev/stdin "$records" > "$work/games.txt"
[ -s "$work/fields.txt" ] || "$bin" battleship generate --count 5000 --seed 7 --faults 0.05 | repeat_to /dev/stdin "$records" > "$work/fields.txt"
# Positions: the first 30 moves of the games that are still running then (fast to solve).
[ -s "$work/positions.txt" ] || "$bin" connect4 generate --count 20000 --seed 7 |
    awk 'length($0) > 34 {print substr($0, 1, 30)}' | head -5000 | repeat_to /dev/stdin "$records" > "$work/positions.txt"

# The rows without the columns that vary from run to run: micros, and nodes (a Connect
# Four search's node count depends on what its worker's table holds from earlier records).
strip_varying() {
    python3 -c 'import csv, sys
rows = csv.reader(open(sys.argv[1], newline=""))
header = next(rows)
keep = [i for i, c in enumerate(header) if c not in ("micros", "nodes")]
out = csv.writer(sys.stdout, lineterminator="\n")
out.writerow([header[i] for i in keep])
for row in rows:
    out.writerow([row[i] for i in keep])' "$1"
}

soak() { # NAME INPUT COMMAND...
    local name=$1 input=$2
    shift 2
    local full="$work/$name.full.csv" part="$work/$name.part.csv"
    /usr/bin/time -f "%e %M" -o "$work/$name.time" "$bin" "$@" -j2 -q -o "$full" "$input" || true
    read -r wall rss < <(tail -1 "$work/$name.time")
    local rows
    rows=$(($(wc -l < "$full") - 1))
    local lines
    lines=$(grep -cv -e '^#' -e '^$' "$input" || true)
    # Interrupted a third of the way (by wall time), then resumed.
    local stop_after
    stop_after=$(echo "$wall / 3" | bc -l)
    "$bin" "$@" -j2 -q -o "$part" "$input" &
    local pid=$!
    sleep "$stop_after"
    kill -INT "$pid" 2> /dev/null || true
    local code=0
    wait "$pid" || code=$?
    local kept=$(($(wc -l < "$part") - 1))
    /usr/bin/time -f "%e %M" -o "$work/$name.resume.time" "$bin" "$@" -j2 -q --resume -o "$part" "$input" || true
    read -r rwall rrss < <(tail -1 "$work/$name.resume.time")
    local same=no
    if cmp -s <(strip_varying "$full") <(strip_varying "$part"); then same=yes; fi
    printf '%-20s records %9d  rows %9d  wall %7.1f s  peak RSS %6d KB | interrupted (exit %d) at %9d rows, resumed in %6.1f s (peak RSS %6d KB), equal: %s\n' \
        "$name" "$lines" "$rows" "$wall" "$rss" "$code" "$kept" "$rwall" "$rrss" "$same"
    [ "$rows" -eq "$lines" ] && [ "$same" = yes ]
}

status=0
soak sudoku-fast "$work/sudoku.txt" sudoku solve --algo fast || status=1
soak connect4-validate "$work/games.txt" connect4 validate || status=1
soak battleship "$work/fields.txt" battleship validate || status=1
soak connect4-solve "$work/positions.txt" connect4 solve || status=1
exit $status
