//! Criterion benchmarks: one per Sudoku corpus file per algorithm, registered by walking the
//! repository's `datasets/sudoku` and, when present, the public corpora
//! (`$PUZZLEBENCH_CORPORA/sudoku`, else `../shared/datasets/sudoku`).
//!
//! Each benchmark solves the file's first puzzles (a sample sized to the file's hardness)
//! with a uniqueness check (`limit 2`), one thread, and reports puzzles per second.

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use puzzlebench::sudoku::{Algorithm, Grid, Solver};

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

criterion_group!(benches, sudoku);
criterion_main!(benches);
