#!/usr/bin/env bash
# Extracts the 16×16 and 25×25 Sudoku instances of Gecode's example set (MIT licence) into
# line-format files for puzzlebench, outside the repository (see docs/corpora.md):
#
#   scripts/gecode-sudokus.sh [SOURCE] [OUT_DIR]
#
# SOURCE is Gecode's examples/sudoku-instances.hh (a local copy, or by default fetched with
# curl from the Gecode repository on GitHub); OUT_DIR defaults to ../corpora-extra/sudoku.
# Writes gecode-25x25.txt (18 puzzles: Alain Frisch's minimal 25×25 puzzles, 266–284 clues,
# and two variants) and gecode-16x16.txt (55 puzzles from janko.at), in their order in
# the source.
set -euo pipefail
cd "$(dirname "$0")/.."
url=https://raw.githubusercontent.com/Gecode/gecode/master/examples/sudoku-instances.hh
source=${1:-}
out=${2:-../corpora-extra/sudoku}
mkdir -p "$out"
if [[ -z "$source" ]]; then
  source=$(mktemp)
  trap 'rm -f "$source"' EXIT
  curl -fsSL "$url" -o "$source"
fi
# Each instance is a run of quoted rows ended by a comma; comment lines are skipped.
awk '
  /examples\[\] = \{/ { inside = 1; next }
  inside && /^ *\};/ { if (grid != "") print grid; exit }
  !inside || /^ *\/\// { next }
  {
    line = $0
    while (match(line, /"[^"]*"/)) {
      grid = grid substr(line, RSTART + 1, RLENGTH - 2)
      line = substr(line, RSTART + RLENGTH)
    }
    if ($0 ~ /, *$/) { if (grid != "") print grid; grid = "" }
  }
' "$source" > "$out/gecode-all.txt"
awk 'length($0) == 625' "$out/gecode-all.txt" > "$out/gecode-25x25.txt"
awk 'length($0) == 256' "$out/gecode-all.txt" > "$out/gecode-16x16.txt"
rm "$out/gecode-all.txt"
wc -l "$out/gecode-25x25.txt" "$out/gecode-16x16.txt"
