#!/usr/bin/env python3
"""End-to-end `sudoku solve` against the solver alone (issue 25's bar), in one sitting.

Usage: OLD=path NEW=path RATE=path scripts/runner-ratio.py ROUNDS FILE RECORDS [ARGS]

OLD and NEW are two `puzzlebench` builds, RATE is `sudoku_rate` (`cargo build --release
--example sudoku_rate`; its puzzles come from FILE too, or from RATE_INPUT). Each round
runs `sudoku_rate --algo fast` (MIN_CPU=1.5) and then OLD and NEW, in turn first
(`sudoku solve -jN ARGS -o /dev/null FILE`), on 1 and then on 2 threads. Prints, per
series, the median and every round's value: records per second, and each build's rate
over `sudoku_rate`'s rate of the same round.
"""
import os
import statistics
import subprocess
import sys
import time


def rate(binary, puzzles, threads):
    """`sudoku_rate`'s puzzles per second (per CPU-second on 1 thread, wall on 2)."""
    args = [binary, "--algo", "fast", puzzles]
    if threads == 2:
        args[1:1] = ["--threads", "2"]
    env = dict(os.environ, MIN_CPU="1.5")
    out = subprocess.run(args, capture_output=True, text=True, env=env, check=True)
    fields = out.stdout.strip().splitlines()[-1].split()
    return float(fields[4] if threads == 2 else fields[3])


def run(binary, threads, extra, path):
    """Seconds of wall time for one `sudoku solve` of `path`."""
    args = [binary, "sudoku", "solve", f"-j{threads}", *extra, "-o", "/dev/null", path]
    start = time.perf_counter()
    subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    rounds, path, records = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    extra = sys.argv[4:]
    builds = {"old": os.environ["OLD"], "new": os.environ["NEW"]}
    sudoku_rate = os.environ["RATE"]
    puzzles = os.environ.get("RATE_INPUT", path)
    series = {}
    for round_number in range(rounds):
        # The builds take turns at going first: on this VM the first of two runs in a
        # row was measurably faster (an old build against itself, 2026-11-28).
        order = list(builds.items())
        if round_number % 2 == 1:
            order.reverse()
        for threads in (1, 2):
            solver = rate(sudoku_rate, puzzles, threads)
            series.setdefault(f"sudoku_rate j{threads}", []).append(solver / 1e6)
            for name, binary in order:
                per_second = records / run(binary, threads, extra, path)
                series.setdefault(f"{name} j{threads} M/s", []).append(per_second / 1e6)
                series.setdefault(f"{name}/rate j{threads}", []).append(per_second / solver)
    for name, values in series.items():
        rounds_text = ", ".join(f"{v:.3f}" for v in values)
        print(f"{name}: median {statistics.median(values):.3f} [{rounds_text}]")


if __name__ == "__main__":
    main()
