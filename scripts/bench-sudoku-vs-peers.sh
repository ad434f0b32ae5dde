#!/usr/bin/env bash
# Single-thread Sudoku throughput of puzzlebench (uniqueness check, --limit 2) beside the
# crates.io peers measured by ../shared/tools/peer-bench, in the same sitting.
#
# Usage: scripts/bench-sudoku-vs-peers.sh [ALGO] [FILE...]
#   ALGO defaults to fast (also dlx, backtrack); FILEs default to every corpus in
#   ../shared/datasets/sudoku.
# Output: one line per file, all in puzzles per second, median of 3 runs for ours:
#   e2e      `puzzlebench sudoku solve` from the command line: records per CPU-second of
#            the whole process (start-up, reading, parsing, writing results included);
#   job      1 / mean per-record time of the batch job (parsing the record, solving,
#            formatting the result), wall clock;
#   solve    solving alone, per CPU-second of the solving thread, puzzles parsed up front
#            (`cargo run --release --example sudoku_rate`): measured as peer-bench
#            measures the peers, so the ratios compare like with like;
#   sudoku-crate, dlx-crate   the peers, per CPU-second of their solving thread;
#   and the ratios of our solve rate to each peer.
set -euo pipefail
cd "$(dirname "$0")/.."
algo=${1:-fast}
shift || true
shared=../shared
files=("$@")
[ ${#files[@]} -gt 0 ] || files=("$shared"/datasets/sudoku/*)
cargo build --release --quiet --bin puzzlebench --example sudoku_rate
bin=target/release/puzzlebench
rate=target/release/examples/sudoku_rate
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

column() { # column NAME CSVFILE: the value of NAME in the one-row CSV
  awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i } NR == 2 { print $c }' "$2"
}
median() { printf '%s\n' "$@" | sort -g | sed -n 2p; }

printf '%-30s %10s %10s %10s %12s %10s %9s %7s\n' file e2e job solve sudoku-crate dlx-crate vs-sudoku vs-dlx
for file in "${files[@]}"; do
  e2e=()
  job=()
  solve=()
  for run in 1 2 3; do
    "$bin" sudoku solve "$file" --algo "$algo" --threads 1 -o /dev/null --report "$tmp/r$run" >/dev/null || true
    e2e+=("$(column records_per_cpu_second "$tmp/r$run/summary.csv")")
    job+=("$(awk -v us="$(column latency_mean_us "$tmp/r$run/summary.csv")" 'BEGIN { print 1e6 / us }')")
    solve+=("$(MIN_CPU=${MIN_CPU:-2} "$rate" --algo "$algo" "$file" | awk 'NR == 2 { print $4 }')")
  done
  ours=$(median "${solve[@]}")
  peers=$(MIN_CPU=${MIN_CPU:-2} "$shared/tools/peer-bench" sudoku "$file" 2>/dev/null)
  sudoku_crate=$(awk '$2 == "sudoku" { print $4 }' <<<"$peers")
  dlx_crate=$(awk '$2 == "dlx" { print $4 }' <<<"$peers")
  printf '%-30s %10.0f %10.0f %10.0f %12.0f %10.0f %9.2f %7.2f\n' "$(basename "$file")" \
    "$(median "${e2e[@]}")" "$(median "${job[@]}")" "$ours" "$sudoku_crate" "$dlx_crate" \
    "$(awk -v a="$ours" -v b="$sudoku_crate" 'BEGIN { print a / b }')" \
    "$(awk -v a="$ours" -v b="$dlx_crate" 'BEGIN { print a / b }')"
done
