#!/usr/bin/env bash
# Regenerates the data puzzlebench makes itself under datasets/ (reproducible: fixed seeds).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/puzzlebench
# Battleship: 1,000 classic 10x10 fleets each, ships touching or not, 20% broken on purpose.
"$bin" battleship generate --count 1000 --seed 1 --rules touching --faults 0.2 \
  -o datasets/battleship/touching-1k.txt
"$bin" battleship generate --count 1000 --seed 2 --rules separated --faults 0.2 \
  -o datasets/battleship/separated-1k.txt
# Connect Four: 1,000 random 7x6 games in digits and 500 in the colours notation, 10% broken.
"$bin" connect4 generate --count 1000 --seed 1 --faults 0.1 -o datasets/connect4/games-1k.txt
"$bin" connect4 generate --count 500 --seed 2 --faults 0.1 --notation colors \
  -o datasets/connect4/colors-500.txt
# Sudoku: 1,000 9x9 puzzles with their solutions and ratings, 200 hard ones, 20 16x16 ones.
"$bin" sudoku generate --count 1000 --seed 1 --format csv -o datasets/sudoku/generated-1k.csv
"$bin" sudoku generate --count 200 --seed 2 --difficulty hard -o datasets/sudoku/generated-hard-200.txt
"$bin" sudoku generate --count 20 --seed 3 --size 16 -o datasets/sudoku/generated-16x16-20.txt
# Sudoku 16x16 and 25x25 (fast against dlx, docs/performance.md): easy ones (solved by
# deductions alone), minimal 16x16 ones (every clue needed), and hard 25x25 ones down to 310
# clues. Minimal 25x25 puzzles (about 270 clues) take minutes each to make: for larger or
# harder sets, the same command with --min-clues 0 (or lower --min-clues) and more --count.
"$bin" sudoku generate --count 100 --seed 16 --size 16 --min-clues 150 --difficulty easy \
  -o datasets/sudoku/generated-16x16-easy-100.txt
"$bin" sudoku generate --count 100 --seed 17 --size 16 -o datasets/sudoku/generated-16x16-minimal-100.txt
"$bin" sudoku generate --count 40 --seed 25 --size 25 --min-clues 400 --difficulty easy \
  -o datasets/sudoku/generated-25x25-easy-40.txt
"$bin" sudoku generate --count 30 --seed 28 --size 25 --min-clues 310 --difficulty hard \
  -o datasets/sudoku/generated-25x25-hard-30.txt
# Sudoku 36x36 and 49x49, lines of numbers, with their solutions: clues stop at 730 and
# 1,500, where every puzzle is easy for dlx too (at 700 and 1,400 single puzzles take dlx
# millions of guesses). About 8 s for both on two threads.
"$bin" sudoku generate --count 10 --seed 4 --size 36 --min-clues 730 --format csv \
  -o datasets/sudoku/generated-36x36-10.csv
"$bin" sudoku generate --count 4 --seed 5 --size 49 --min-clues 1500 --format csv \
  -o datasets/sudoku/generated-49x49-4.csv
# The default bench suite's 16x16 file: 300 puzzles, clues removed down to 100 at least, so
# that no single puzzle is a large share of the work; shipped compressed because it takes
# the generator tens of seconds. The suite's 9x9 files are generated on first use instead
# (see benches/suites/default.toml).
"$bin" sudoku generate --count 300 --seed 3 --size 16 --min-clues 100 | gzip -9n \
  > datasets/sudoku/generated-16x16-300.txt.gz
