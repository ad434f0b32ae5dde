//! Solve-only Sudoku throughput, measured like `../shared/tools/peer-bench` measures the
//! crates.io peers: puzzles parsed up front, then solved (counting up to `--limit`
//! solutions) on one thread, repeatedly until `MIN_CPU` seconds (default 2) of that
//! thread's CPU time have accumulated.
//!
//! Usage: `cargo run --release --example sudoku_rate -- [--algo fast|dlx|backtrack]
//! [--limit N] [--threads N | --each] FILE...`; prints `file algorithm puzzles
//! puzzles_per_cpu_sec usec_per_puzzle guesses_per_puzzle`.
//!
//! `--threads N`: N threads each solve the file's puzzles pass after pass for `MIN_CPU`
//! seconds of wall time; prints the puzzles solved per wall-second by all of them (and per
//! CPU-second), the solver's own scaling with threads. `--each`: per puzzle, its index,
//! solutions, guesses and microseconds.

use std::time::{Duration, Instant};

use puzzlebench::sudoku::{Algorithm, Grid, Solver};

/// What `--help` prints.
const USAGE: &str = "usage: sudoku_rate [--algo fast|dlx|backtrack] [--limit N] \
                     [--threads N | --each] FILE...  (MIN_CPU=seconds, default 2)";

/// CPU time of the calling thread.
fn thread_cpu_time() -> Duration {
    let mut time = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` only writes the `timespec` we pass it.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut time) };
    Duration::new(time.tv_sec as u64, time.tv_nsec as u32)
}

/// The puzzles of a file: one per line, or CSV with the puzzle first (header skipped).
fn load(path: &str) -> Vec<Grid> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .filter_map(|line| Grid::from_line(line.split(',').next().unwrap_or(""), None).ok())
        .collect()
}

fn main() {
    let mut algorithm = Algorithm::Fast;
    let mut limit = 2;
    let mut files = Vec::new();
    let mut each = false;
    let mut threads = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--algo" => algorithm = args.next().expect("--algo NAME").parse().unwrap(),
            "--limit" => limit = args.next().expect("--limit N").parse().unwrap(),
            "--each" => each = true,
            "--threads" => threads = Some(args.next().expect("--threads N").parse().unwrap()),
            "-h" | "--help" => {
                println!("{USAGE}");
                return;
            }
            _ if arg.starts_with('-') => {
                eprintln!("sudoku_rate: unknown option {arg}\n{USAGE}");
                std::process::exit(2);
            }
            _ => files.push(arg),
        }
    }
    let min_seconds = std::env::var("MIN_CPU")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2.0);
    match threads {
        Some(_) => println!(
            "file algorithm threads puzzles puzzles_per_wall_sec puzzles_per_cpu_sec guesses_per_puzzle"
        ),
        None => println!(
            "file algorithm puzzles puzzles_per_cpu_sec usec_per_puzzle guesses_per_puzzle"
        ),
    }
    for path in files {
        let grids = load(&path);
        let name = path.rsplit('/').next().unwrap_or(&path);
        if each {
            per_puzzle(&grids, algorithm, limit);
            continue;
        }
        if let Some(threads) = threads {
            let (wall, passes) = on_threads(&grids, algorithm, limit, threads, min_seconds);
            let solved = (passes.iter().map(|p| p.passes).sum::<u64>() * grids.len() as u64) as f64;
            let cpu: f64 = passes.iter().map(|p| p.cpu_seconds).sum();
            let guesses: u64 = passes.iter().map(|p| p.guesses).sum();
            println!(
                "{name} {algorithm} {threads} {} {:.0} {:.0} {:.2}",
                grids.len(),
                solved / wall,
                solved / cpu,
                guesses as f64 / solved
            );
            continue;
        }
        let pass = solve_passes(&grids, algorithm, limit, thread_cpu_time, min_seconds);
        let solved = (pass.passes * grids.len() as u64) as f64;
        println!(
            "{name} {algorithm} {} {:.0} {:.2} {:.2}",
            grids.len(),
            solved / pass.cpu_seconds,
            pass.cpu_seconds * 1e6 / solved,
            pass.guesses as f64 / solved
        );
    }
}

/// What one thread did: whole passes over the puzzles, its CPU seconds, guesses made.
struct Passes {
    passes: u64,
    cpu_seconds: f64,
    guesses: u64,
}

/// Solves every puzzle, pass after pass, until `clock` has advanced `min_seconds` (at least
/// one pass).
fn solve_passes(
    grids: &[Grid],
    algorithm: Algorithm,
    limit: u64,
    clock: impl Fn() -> Duration,
    min_seconds: f64,
) -> Passes {
    let mut solver = Solver::new(algorithm);
    let (mut passes, mut found, mut guesses) = (0, 0, 0);
    let (start, cpu_start) = (clock(), thread_cpu_time());
    while passes == 0 || (clock() - start).as_secs_f64() < min_seconds {
        for grid in grids {
            let result = solver.solve(grid, limit);
            found += result.solutions;
            guesses += result.guesses;
        }
        passes += 1;
    }
    // `found` keeps the solving from being optimised away.
    assert!(found > 0 || grids.is_empty());
    Passes {
        passes,
        cpu_seconds: (thread_cpu_time() - cpu_start).as_secs_f64(),
        guesses,
    }
}

/// Throughput on `threads` threads: each solves all the puzzles, pass after pass, for
/// `min_seconds` of wall time. Returns the wall seconds until the last thread finished
/// and what each did. Whole passes over a small file repeat the same puzzles, so this
/// measures the solver's scaling without a batch run's reading, writing and start-up.
fn on_threads(
    grids: &[Grid],
    algorithm: Algorithm,
    limit: u64,
    threads: usize,
    min_seconds: f64,
) -> (f64, Vec<Passes>) {
    let start = Instant::now();
    let clock = || start.elapsed();
    let passes = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| scope.spawn(|| solve_passes(grids, algorithm, limit, clock, min_seconds)))
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().expect("a solving thread panicked"))
            .collect()
    });
    (start.elapsed().as_secs_f64(), passes)
}

/// Per puzzle of a file: its index (from 1), solutions, guesses and microseconds, each
/// puzzle solved repeatedly for about 2 ms of CPU time.
fn per_puzzle(grids: &[Grid], algorithm: Algorithm, limit: u64) {
    let mut solver = Solver::new(algorithm);
    for (index, grid) in grids.iter().enumerate() {
        let result = solver.solve(grid, limit);
        let start = thread_cpu_time();
        let mut runs = 0u32;
        while (thread_cpu_time() - start).as_secs_f64() < 0.002 {
            std::hint::black_box(solver.solve(std::hint::black_box(grid), limit));
            runs += 1;
        }
        let micros = (thread_cpu_time() - start).as_secs_f64() * 1e6 / f64::from(runs);
        println!(
            "{} {} {} {micros:.2}",
            index + 1,
            result.solutions,
            result.guesses
        );
    }
}
