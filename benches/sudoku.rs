//! Criterion benchmarks: one per Sudoku corpus file per algorithm, registered by walking the
//! repository's `datasets/sudoku` and, when present, the public corpora
//! (`$PUZZLEBENCH_CORPORA/sudoku`, else `../shared/datasets/sudoku`).
//!
//! Each benchmark solves the file's first puzzles (a sample sized to the file's hardness)
//! with a uniqueness check (`limit 2`), one thread, and reports puzzles per second.
//!
//! `sudoku/stages` times each stage of a batch run on its own, one thread, over the
//! repository's `generated-1k.csv`: parsing the lines, solving, formatting the rows, and the
//! whole run (reading, cutting, parsing, solving, formatting, writing to nowhere), so that
//! a regression in any stage shows.

#[path = "common/batch_stage.rs"]
mod batch_stage;

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use puzzlebench::batch::{Cell, InputSpec, RowFormatter};
use puzzlebench::puzzle::Puzzle;
use puzzlebench::report::CsvFormat;
use puzzlebench::sudoku::{Algorithm, Grid, Solver, SudokuPuzzle};

/// Puzzles taken from each file: enough for a stable figure, few enough to stay quick.
const SAMPLE: usize = 1000;

fn corpus_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shared = std::env::var_os("PUZZLEBENCH_CORPORA")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/datasets"));
    [root.join("datasets/sudoku"), shared.join("sudoku")]
        .into_iter()
        .filter(|dir| dir.is_dir())
        .collect()
}

/// The first puzzles of a corpus file (line format, or CSV with the puzzle first).
fn load(path: &Path) -> Vec<Grid> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .filter_map(|line| Grid::from_line(line.split(',').next().unwrap_or(""), None).ok())
        .take(SAMPLE)
        .collect()
}

/// Backtracking only where it finishes a sample in seconds: the hard lists take minutes.
fn backtrack_is_quick(name: &str) -> bool {
    ![
        "17-clue",
        "forum-hardest",
        "magictour",
        "norvig-top95",
        "serg",
        "mixed",
        "generated",
    ]
    .iter()
    .any(|slow| name.starts_with(slow))
}

fn sudoku(c: &mut Criterion) {
    for dir in corpus_dirs() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        files.sort();
        for path in files {
            let grids = load(&path);
            if grids.is_empty() {
                continue;
            }
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            let mut group = c.benchmark_group(format!("sudoku/{name}"));
            group.throughput(Throughput::Elements(grids.len() as u64));
            group.sample_size(10);
            for algorithm in Algorithm::ALL {
                if algorithm == Algorithm::Backtrack && !backtrack_is_quick(&name) {
                    continue;
                }
                let mut solver = Solver::new(algorithm);
                group.bench_function(BenchmarkId::from_parameter(algorithm), |b| {
                    b.iter(|| {
                        grids
                            .iter()
                            .map(|grid| solver.solve(grid, 2).solutions)
                            .sum::<u64>()
                    })
                });
            }
            group.finish();
        }
    }
}

/// The stages of `sudoku solve --algo fast` on one thread.
fn stages(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/sudoku/generated-1k.csv");
    let text = std::fs::read_to_string(&path).expect("the repository's datasets");
    let lines: Vec<&str> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    let grids: Vec<Grid> = lines
        .iter()
        .map(|l| Grid::from_line(l, None).unwrap())
        .collect();
    let mut group = c.benchmark_group("sudoku/stages");
    group.throughput(Throughput::Elements(lines.len() as u64));
    group.bench_function("parse", |b| {
        b.iter(|| {
            (lines.iter())
                .map(|line| Grid::from_line(line, None).map_or(0, |g| g.side()))
                .sum::<usize>()
        })
    });
    let mut solver = Solver::new(Algorithm::Fast);
    group.bench_function("solve", |b| {
        b.iter(|| {
            grids
                .iter()
                .map(|g| solver.solve(g, 2).solutions)
                .sum::<u64>()
        })
    });
    let solutions: Vec<String> = (grids.iter())
        .map(|g| solver.solve(g, 1).first_solution.unwrap().to_line())
        .collect();
    let mut out = Vec::with_capacity(1 << 20);
    group.bench_function("format", |b| {
        b.iter(|| {
            out.clear();
            for (i, (line, solution)) in lines.iter().zip(&solutions).enumerate() {
                let row = [
                    Cell::Int(i as u64 + 2),
                    Cell::Text("solved"),
                    Cell::Text(line),
                    Cell::Int(1),
                    Cell::Int(0),
                    Cell::Text(solution),
                    Cell::Text("match"),
                    Cell::Text(""),
                    Cell::Micros(1_234 + i as u64),
                ];
                CsvFormat.format_row(&row, &mut out);
            }
            out.len()
        })
    });
    let input = InputSpec::new(&path, None);
    let job = SudokuPuzzle::job(&Default::default(), "fast", std::slice::from_ref(&input))
        .expect("the fast algorithm");
    batch_stage::bench_batch(&mut group, &job, &input);
    group.finish();
}

criterion_group!(benches, sudoku, stages);
criterion_main!(benches);
