#!/usr/bin/env bash
# Runs the same commands with two puzzlebench binaries and compares what they print: result
# rows (with the `micros` timing column left out), messages on standard error (timings left
# out) and exit codes. Use it to show that a change keeps every command's output.
#
#   scripts/compare-outputs.sh OLD_BINARY NEW_BINARY [CORPORA_DIR]
#
# CORPORA_DIR is the folder of the public corpora (`sudoku/`, `connect4/pons/`,
# `checkerboard/`); without it only the repository's own datasets are used. Exit code 0 when
# every command printed the same, 1 otherwise (the differences are shown).
set -uo pipefail
cd "$(dirname "$0")/.."

old=$1
new=$2
corpora=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Drops timings: the `micros` column of CSV and JSON Lines rows, and the seconds, rates and
# latencies of summaries.
normalise() {
    python3 -c '
import csv, io, json, re, sys
text = sys.stdin.read()
lines = text.splitlines(keepends=True)
def strip_json(line):
    try:
        row = json.loads(line)
    except ValueError:
        return line
    if isinstance(row, dict):
        row.pop("micros", None)
        return json.dumps(row) + "\n"
    return line
if lines and lines[0].lstrip().startswith("{"):
    sys.stdout.write("".join(strip_json(l) for l in lines))
elif lines and "micros" in lines[0].strip().split(","):
    rows = list(csv.reader(io.StringIO(text)))
    drop = rows[0].index("micros")
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for row in rows:
        writer.writerow(row[:drop] + row[drop + 1:])
    sys.stdout.write(out.getvalue())
else:
    sys.stdout.write(re.sub(r"[0-9][0-9,.]*\s*(s|ms|µs|records/s|/s)\b", "T", text))
'
}

failures=0
count=0
check() {
    count=$((count + 1))
    local name="case$count"
    "$old" "$@" >"$work/$name.old.out" 2>"$work/$name.old.err" </dev/null
    echo $? >"$work/$name.old.code"
    "$new" "$@" >"$work/$name.new.out" 2>"$work/$name.new.err" </dev/null
    echo $? >"$work/$name.new.code"
    local differs=0
    for part in out err; do
        normalise <"$work/$name.old.$part" | sed "s#$old#BINARY#g" >"$work/$name.old.$part.n"
        normalise <"$work/$name.new.$part" | sed "s#$new#BINARY#g" >"$work/$name.new.$part.n"
        if ! cmp -s "$work/$name.old.$part.n" "$work/$name.new.$part.n"; then
            differs=1
            diff "$work/$name.old.$part.n" "$work/$name.new.$part.n" | head -8
        fi
    done
    if ! cmp -s "$work/$name.old.code" "$work/$name.new.code"; then
        differs=1
        echo "exit code $(cat "$work/$name.old.code") -> $(cat "$work/$name.new.code")"
    fi
    if [ "$differs" = 1 ]; then
        failures=$((failures + 1))
        echo "DIFFERS: $*"
    fi
}

# The files of a --report folder, every number masked (timings, dates and the machine
# differ from run to run; the names, columns and layout must not).
check_report() {
    count=$((count + 1))
    local name="case$count"
    "$old" "$@" --report "$work/$name.old.report" >/dev/null 2>&1 </dev/null
    "$new" "$@" --report "$work/$name.new.report" >/dev/null 2>&1 </dev/null
    local differs=0
    for file in summary.json summary.csv summary.md env.json; do
        for side in old new; do
            local binary=$old
            [ "$side" = new ] && binary=$new
            sed -E "s#$binary#BINARY#g; s#$name.$side.report#REPORT#g; s/[0-9a-f]*[0-9][0-9a-f]*([.,:-][0-9a-f]+)*/N/g" \
                "$work/$name.$side.report/$file" >"$work/$name.$side.$file" 2>&1
        done
        if ! cmp -s "$work/$name.old.$file" "$work/$name.new.$file"; then
            differs=1
            diff "$work/$name.old.$file" "$work/$name.new.$file" | head -8
        fi
    done
    if [ "$differs" = 1 ]; then
        failures=$((failures + 1))
        echo "DIFFERS (report): $*"
    fi
}

d=datasets
check_report sudoku solve $d/sudoku/generated-1k.csv
check_report connect4 validate $d/connect4/games-1k.txt $d/connect4/colors-500.txt
check_report battleship validate $d/battleship/touching-1k.txt
for algo in fast dlx; do
    check sudoku solve --algo "$algo" $d/sudoku/generated-1k.csv
    check sudoku solve --algo "$algo" $d/sudoku/generated-hard-200.txt $d/sudoku/mixed.txt
    check sudoku solve --algo "$algo" --output-format jsonl $d/sudoku/seed-puzzles.csv
    check sudoku solve --algo "$algo" --limit 1 $d/sudoku/mixed.txt
done
check sudoku solve --algo dlx $d/sudoku/generated-16x16-20.txt
check sudoku solve --algo backtrack $d/sudoku/mixed.txt $d/sudoku/seed-puzzles.csv
check sudoku solve --format blocks $d/sudoku/mixed.txt
check sudoku solve -j1 $d/sudoku/generated-1k.csv
check sudoku show $d/sudoku/mixed.txt
check sudoku generate --count 20 --seed 7
check sudoku generate --count 5 --seed 3 --size 16 --format csv
check sudoku generate --count 10 --seed 5 --difficulty hard --format csv -j1
check connect4 validate $d/connect4/games-1k.txt $d/connect4/colors-500.txt $d/connect4/seed-game.txt
check connect4 validate --after-end ignore --output-format jsonl $d/connect4/games-1k.txt
check connect4 generate --count 50 --seed 9
check battleship validate $d/battleship/touching-1k.txt
check battleship validate --rules separated $d/battleship/separated-1k.txt
check battleship validate --count $d/battleship/seed-field.txt $d/battleship/touching-1k.txt
check battleship generate --count 30 --seed 4
check battleship generate --count 30 --seed 4 --rules separated
check tiling count --board 3x20
check tiling count --board 5x12 --json --engine dlx
check tiling count --board 4x15 --break-symmetry
check tiling count --board 3x10 --no-symmetry --engine bits
check connect4 play --red random --yellow heuristic:2 --seed 3 --colour never
check connect4 play --red perfect --yellow random --seed 5 --colour never --width 5 --height 4
check connect4 generate --count 5 --faults 2
check connect4 book --depth 42 --width 7 --height 6 -o "$work/never.book"
check connect4 book --depth 2 -o "$work"
check connect4 book --depth 2 -o "$work/no/such/folder.book"
check battleship generate --count 5 --faults -1
check battleship generate --count 5 --fleet 4,4,4,4,4,4,4 --size 4x4
printf '\n\n##\n#x\n' >"$work/bad-board.txt"
check tiling count --board-file "$work/bad-board.txt"
check tiling count --board 7x7
check tiling count --pieces "$work/missing-pieces.txt" --board 4x4
check sudoku generate --count 3 --size 4 --difficulty hard --min-clues 15
check sudoku solve does-not-exist.txt
check connect4 validate --width 30 $d/connect4/seed-game.txt
if [ -n "$corpora" ]; then
    for file in "$corpora"/sudoku/*; do
        check sudoku solve "$file"
    done
    check sudoku solve --algo dlx "$corpora/sudoku/norvig-top95.txt" "$corpora/sudoku/serg-benchmark-multi.txt"
    check connect4 solve -j1 "$corpora/connect4/pons/Test_L3_R1.txt"
    check connect4 solve -j1 --weak "$corpora/connect4/pons/Test_L2_R1.txt"
    for stones in "$corpora"/checkerboard/[345]x*.txt; do
        check checkerboard count "$stones"
        check checkerboard solve --limit 3 "$stones"
    done
    check checkerboard solve --limit 2 --output-format jsonl "$corpora/checkerboard/8x8_1.txt"
fi
# Books are compared file against file.
for side in old new; do
    binary=$old
    [ "$side" = new ] && binary=$new
    "$binary" connect4 book --depth 4 --width 5 --height 4 -j2 -o "$work/$side.book" 2>/dev/null
    "$binary" connect4 book --depth 5 --weak --width 5 --height 4 -o "$work/$side-weak.book" 2>/dev/null
done
count=$((count + 2))
for book in .book -weak.book; do
    if ! cmp -s "$work/old$book" "$work/new$book"; then
        failures=$((failures + 1))
        echo "DIFFERS: the book files *$book"
    fi
done
echo "$count commands, $failures with differences"
[ "$failures" = 0 ]
