#!/usr/bin/env bash
# Measures two puzzlebench binaries in one sitting, alternating, with the same suites, and
# prints each measurement's records/s for both and their ratio (median over the rounds).
#
#   scripts/bench-before-after.sh OLD_BINARY NEW_BINARY [ROUNDS] [corpora]
#
# Suites: the default suite (repository datasets: Sudoku fast/dlx/backtrack, Connect Four
# validation, Battleship), and with `corpora` the suites over the public corpora
# (benches/suites/shared-sudoku.toml with fast and dlx on one thread, shared-connect4.toml
# on one thread). Tilings are timed as whole `tiling count` processes (the 6x10 pentomino
# count, both engines, one thread).
set -euo pipefail
cd "$(dirname "$0")/.."

old=$1
new=$2
rounds=${3:-3}
corpora=${4:-}
work=$(mktemp -d)
echo "reports in $work" >&2

run_suite() { # binary side round name suite-args...
    local binary=$1 side=$2 round=$3 name=$4
    shift 4
    "$binary" bench "$@" --label "$name-$side-$round" --reports "$work/reports" --quiet >/dev/null
}

time_tiling() { # binary engine -> seconds
    python3 -c '
import subprocess, sys, time
start = time.perf_counter()
subprocess.run([sys.argv[1], "tiling", "count", "--board", "6x10", "--engine", sys.argv[2], "-j1"],
               check=True, stdout=subprocess.DEVNULL)
print(time.perf_counter() - start)' "$1" "$2"
}

for round in $(seq 1 "$rounds"); do
    for side in old new; do
        binary=$old
        [ "$side" = new ] && binary=$new
        run_suite "$binary" "$side" "$round" default
        if [ -n "$corpora" ]; then
            run_suite "$binary" "$side" "$round" sudoku --suite benches/suites/shared-sudoku.toml \
                --algos fast,dlx --threads 1
            run_suite "$binary" "$side" "$round" connect4 --suite benches/suites/shared-connect4.toml \
                --threads 1
        fi
        for engine in bits dlx; do
            echo "tiling,6x10 pentominoes,$engine,1,$side,$round,$(time_tiling "$binary" "$engine")" \
                >>"$work/tiling.csv"
        done
    done
done

python3 - "$work" <<'EOF'
import csv, glob, os, statistics, sys
work = sys.argv[1]
rates = {}  # (suite, dataset, algorithm, threads) -> {side: [rates]}
for path in glob.glob(os.path.join(work, "reports", "*", "summary.csv")):
    label = os.path.basename(os.path.dirname(path))
    suite, side, _round = label.rsplit("-", 3)[-3:]
    with open(path) as f:
        for row in csv.DictReader(f):
            key = (suite, row["dataset"], row["algorithm"], row["threads"])
            rates.setdefault(key, {}).setdefault(side, []).append(float(row["records_per_s"]))
tiling = os.path.join(work, "tiling.csv")
if os.path.exists(tiling):
    for kind, dataset, engine, threads, side, _round, seconds in csv.reader(open(tiling)):
        key = (kind, dataset, engine, threads)
        rates.setdefault(key, {}).setdefault(side, []).append(1.0 / float(seconds))
print("| suite | dataset | algorithm | threads | old records/s | new records/s | new/old |")
print("|---|---|---|---:|---:|---:|---:|")
for key in sorted(rates):
    sides = rates[key]
    if "old" not in sides or "new" not in sides:
        continue
    old, new = statistics.median(sides["old"]), statistics.median(sides["new"])
    fmt = (lambda x: "%.3f" % x) if old < 10 else (lambda x: "{:,.0f}".format(x))
    print("| %s | %s | %s | %s | %s | %s | %.3f |" % (*key, fmt(old), fmt(new), new / old))
EOF
