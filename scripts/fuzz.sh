#!/usr/bin/env bash
# Fuzzing: seeds a small corpus for every cargo-fuzz target of fuzz/ from the repository's
# datasets/ and runs each target in turn, one job each, for SECONDS seconds.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]     (default 180 seconds, every target)
#
# FUZZ_RUNS=N stops each target after N executions instead (SECONDS is then the ceiling);
# FUZZ_SANITIZER=none builds without AddressSanitizer (several times the executions a
# second; the `unsafe` the targets reach is the solvers' unchecked indexing, whose
# precondition checks stay on with the debug assertions), `address` (the default) with it.
# FUZZ_TRACE_COMPARES=0 builds without libFuzzer's comparison tracing (a third more
# executions a second on the batch targets, whose corpora are mature; mutations then find
# magic values less easily).
#
# Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`); without them it
# says so and exits 0: CI runs on stable and never needs this. The corpora grow in
# fuzz/corpus/ (ignored by git); crashes land in fuzz/artifacts/TARGET/, and the script
# then exits 1. Each target's last libFuzzer status line (executions, rate) is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-180}
shift || true

if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    echo "fuzz: skipped: no nightly toolchain (rustup toolchain install nightly)"
    exit 0
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "fuzz: skipped: cargo-fuzz is not installed (cargo install cargo-fuzz)"
    exit 0
fi

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cd fuzz && cargo +nightly fuzz list)
fi

# seed TARGET NAME SELECTOR-BYTE-IN-OCTAL: standard input, after one selector byte, as a
# seed file of TARGET's corpus.
seed() {
    local dir=fuzz/corpus/$1
    mkdir -p "$dir"
    { printf "\\$3"; cat; } > "$dir/seed-$2"
}
records() { # FILE COUNT: the first COUNT record lines of FILE
    awk -v n="$2" '!/^#/ && !/^$/ { print; if (++k == n) exit }' "$1"
}
d=datasets
for t in "${targets[@]}"; do
    case $t in
    sudoku_solve)
        records $d/sudoku/generated-hard-200.txt 1 | tr -d '\n' | seed $t hard 001
        records $d/sudoku/generated-16x16-20.txt 1 | tr -d '\n' | seed $t 16x16 002
        printf '1.3..2...4.1.3..' | seed $t 4x4 000
        sed -n 3p $d/sudoku/seed-puzzles.csv | seed $t csv 003 ;;
    connect4_validate)
        records $d/connect4/games-1k.txt 1 | tr -d '\n' | seed $t digits 000
        records $d/connect4/seed-game.txt 1 | tr -d '\n' | seed $t colors 000
        printf '10,11,3,3,12' | seed $t wide 041 ;;
    connect4_solve)
        records $d/connect4/games-1k.txt 1 | cut -c1-16 | tr -d '\n' | seed $t position 000
        printf '4455 3' | seed $t score 001
        printf '44 xobbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb win' | seed $t board 000 ;;
    battleship_validate)
        records $d/battleship/seed-field.txt 1 | tr -d '\n' | seed $t rows 000
        records $d/battleship/touching-1k.txt 1 | tr -d ' \n' | seed $t line 005
        printf '2,1|[[1,1,0],[0,0,1]]' | seed $t json 002 ;;
    tiling_files)
        { cat $d/tiling/4x4_stones.txt; printf '\0'; printf '####\n####\n####\n####\n'; } > /tmp/fuzz-tiling-seed.$$
        mkdir -p fuzz/corpus/$t && mv /tmp/fuzz-tiling-seed.$$ fuzz/corpus/$t/seed-stones ;;
    batch_run)
        records $d/sudoku/mixed.txt 6 | seed $t sudoku-lines 000
        head -n 5 $d/sudoku/generated-1k.csv | seed $t sudoku-csv 001
        records $d/connect4/games-1k.txt 8 | seed $t connect4-lines 002
        { echo id,moves; records $d/connect4/games-1k.txt 4 | sed 's/^/g,/'; } | seed $t connect4-csv 003
        records $d/connect4/games-1k.txt 4 | cut -c1-20 | seed $t positions 004
        head -n 4 $d/battleship/touching-1k.txt | seed $t fields 006
        head -n 4 $d/battleship/touching-1k.txt | tr ' ' '\n' | seed $t blocks 007 ;;
    resume_output)
        printf 'line,status,winner,winner_name,ply,cells,error,micros\n1,win,1,,7,A1 B1 C1 D1,,1.0\n3,invalid,,,2,,"column 9, ply 2",0.5\n4,unf' | seed $t csv 000
        printf '{"line":1,"status":"win","micros":1.0}\n{"line":2,"status":"invalid","error":"x"}\n{"li' | seed $t jsonl 001
        { printf '\001\000'; records $d/connect4/games-1k.txt 6; } | seed $t genuine-csv 002
        { printf '\000\200'; records $d/connect4/games-1k.txt 6; } | seed $t genuine-jsonl 003 ;;
    suite_toml) # the suites as they are (this target has no selector byte)
        mkdir -p fuzz/corpus/$t && cp benches/suites/*.toml fuzz/corpus/$t/ ;;
    opening_book) # the 7x6 book's header and first keys, its count fitted to them
        head -c 2048 $d/connect4/7x6-depth8-weak.book | seed $t 7x6 200 ;;
    esac
done

# The targets' scratch files go to memory where there is a tmpfs: on ext4 each rewrite of a
# scratch file forced its blocks to disk, a third of `resume_output`'s time.
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
    export TMPDIR=/dev/shm
fi

failed=0
for t in "${targets[@]}"; do
    echo "fuzz: $t for ${seconds}s"
    log=fuzz/artifacts/$t.log
    mkdir -p fuzz/artifacts
    trace=()
    if [ "${FUZZ_TRACE_COMPARES:-1}" = 0 ]; then
        trace=(--no-trace-compares)
    fi
    if (cd fuzz && cargo +nightly fuzz run "${trace[@]}" -s "${FUZZ_SANITIZER:-address}" "$t" -- \
        -max_total_time="$seconds" -runs="${FUZZ_RUNS:--1}" -jobs=1 \
        -max_len=4096 -timeout=10 -print_final_stats=1) >"$log" 2>&1; then
        grep -E '^(#[0-9]+.*(DONE|pulse)|stat::number_of_executed_units|stat::average_exec_per_sec)' "$log" | tail -3
    else
        failed=1
        echo "fuzz: $t FAILED; see $log and fuzz/artifacts/$t/"
        grep -E 'panicked|ERROR|SUMMARY|Test unit written' "$log" | head -5
    fi
done
exit $failed
