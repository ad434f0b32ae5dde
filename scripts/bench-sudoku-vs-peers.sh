#!/usr/bin/env bash
# Single-thread Sudoku throughput of `puzzlebench sudoku solve` (uniqueness check, --limit 2)
# beside the crates.io peers measured by ../shared/tools/peer-bench, in the same sitting.
#
# Usage: scripts/bench-sudoku-vs-peers.sh [ALGO] [FILE...]
#   ALGO defaults to dlx; FILEs default to every corpus in ../shared/datasets/sudoku.
# Output: one line per file: ours (median of 3 runs, records per CPU-second of the whole
# process, reading and writing included), the `sudoku` crate and the `dlx` crate
# (puzzles per CPU-second of the solving thread), and our ratio to each.
set -euo pipefail
cd "$(dirname "$0")/.."
algo=${1:-dlx}
shift || true
shared=../shared
files=("$@")
[ ${#files[@]} -gt 0 ] || files=("$shared"/datasets/sudoku/*)
cargo build --release --quiet
bin=target/release/puzzlebench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

column() { # column NAME CSVFILE: the value of NAME in the one-row CSV
  awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i } NR == 2 { print $c }' "$2"
}

printf '%-32s %12s %12s %12s %8s %8s\n' file puzzlebench sudoku-crate dlx-crate vs-sudoku vs-dlx
for file in "${files[@]}"; do
  rates=()
  for run in 1 2 3; do
    "$bin" sudoku solve "$file" --algo "$algo" --threads 1 -o /dev/null --report "$tmp/r$run" >/dev/null || true
    rates+=("$(column records_per_cpu_second "$tmp/r$run/summary.csv")")
  done
  ours=$(printf '%s\n' "${rates[@]}" | sort -g | sed -n 2p)
  peers=$(MIN_CPU=${MIN_CPU:-2} "$shared/tools/peer-bench" sudoku "$file" 2>/dev/null)
  sudoku_crate=$(awk '$2 == "sudoku" { print $4 }' <<<"$peers")
  dlx_crate=$(awk '$2 == "dlx" { print $4 }' <<<"$peers")
  printf '%-32s %12.0f %12.0f %12.0f %8.2f %8.2f\n' "$(basename "$file")" "$ours" "$sudoku_crate" "$dlx_crate" \
    "$(awk -v a="$ours" -v b="$sudoku_crate" 'BEGIN { print a / b }')" \
    "$(awk -v a="$ours" -v b="$dlx_crate" 'BEGIN { print a / b }')"
done
