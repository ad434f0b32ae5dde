//! Solve-only Sudoku throughput, measured like `../shared/tools/peer-bench` measures the
//! crates.io peers: puzzles parsed up front, then solved (counting up to `--limit`
//! solutions) on one thread, repeatedly until `MIN_CPU` seconds (default 2) of that
//! thread's CPU time have accumulated.
//!
//! Usage: `cargo run --release --example sudoku_rate -- [--algo fast|dlx|backtrack]
//! [--limit N] FILE...`; prints `file algorithm puzzles puzzles_per_cpu_sec usec_per_puzzle
//! guesses_per_puzzle`.

use std::time::Duration;

use puzzlebench::sudoku::{Algorithm, Grid, Solver};

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
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--algo" => algorithm = args.next().expect("--algo NAME").parse().unwrap(),
            "--limit" => limit = args.next().expect("--limit N").parse().unwrap(),
            "--each" => each = true,
            _ => files.push(arg),
        }
    }
    let min_cpu = std::env::var("MIN_CPU")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2.0);
    println!("file algorithm puzzles puzzles_per_cpu_sec usec_per_puzzle guesses_per_puzzle");
    for path in files {
        let grids = load(&path);
        if each {
            per_puzzle(&grids, algorithm, limit);
            continue;
        }
        let mut solver = Solver::new(algorithm);
        let mut solved = 0u64;
        let mut found = 0u64;
        let mut guesses = 0u64;
        let start = thread_cpu_time();
        while (thread_cpu_time() - start).as_secs_f64() < min_cpu || solved == 0 {
            for grid in &grids {
                let result = solver.solve(grid, limit);
                found += result.solutions;
                guesses += result.guesses;
            }
            solved += grids.len() as u64;
        }
        let seconds = (thread_cpu_time() - start).as_secs_f64();
        let name = path.rsplit('/').next().unwrap_or(&path);
        // `found` keeps the solving from being optimised away.
        assert!(found > 0 || grids.is_empty());
        println!(
            "{name} {algorithm} {} {:.0} {:.2} {:.2}",
            grids.len(),
            solved as f64 / seconds,
            seconds * 1e6 / solved as f64,
            guesses as f64 / solved as f64
        );
    }
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
