//! `fast` on 16×16 and 25×25 grids against `dlx`: every generated puzzle of the
//! repository, and Gecode's public instances when they are at hand (docs/corpora.md);
//! every solution checked by the independent checker.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use puzzlebench::sudoku::{check_solution, Algorithm, Grid, SearchResult, Solver, Status};

/// The puzzles of a file, gzip-compressed or not.
fn puzzles(path: &Path) -> Vec<Grid> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut text = String::new();
    if path.extension().is_some_and(|e| e == "gz") {
        std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut text)
    } else {
        std::io::Read::read_to_string(&mut &bytes[..], &mut text)
    }
    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| Grid::from_line(l, None).unwrap())
        .collect()
}

fn solve_all(grids: &[Grid], algorithm: Algorithm) -> Vec<SearchResult> {
    grids
        .par_iter()
        .map_init(
            || Solver::new(algorithm),
            |solver, grid| {
                let result = solver.solve(grid, 2);
                if let Some(solution) = &result.first_solution {
                    check_solution(grid, solution)
                        .unwrap_or_else(|e| panic!("{algorithm} on {grid}: {e}"));
                }
                result
            },
        )
        .collect()
}

/// Asserts that `fast` and `dlx` find each puzzle of `path` uniquely solvable, with the
/// same solution.
fn assert_fast_and_dlx_agree_and_unique(path: &Path) {
    let grids = puzzles(path);
    assert!(!grids.is_empty(), "{}", path.display());
    let fast = solve_all(&grids, Algorithm::Fast);
    let dlx = solve_all(&grids, Algorithm::Dlx);
    for (i, grid) in grids.iter().enumerate() {
        let name = format!("{} puzzle {}", path.display(), i + 1);
        assert_eq!(fast[i].status(), Status::Solved, "{name}: fast");
        assert_eq!(dlx[i].status(), Status::Solved, "{name}: dlx");
        assert_eq!(fast[i].first_solution, dlx[i].first_solution, "{name}");
        assert!(grid.side() >= 16, "{name}");
    }
}

/// The repository's generated 16×16 and 25×25 corpora.
fn generated_big_corpora() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/sudoku");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            let name = path.file_name().unwrap().to_string_lossy();
            name.starts_with("generated-16x16") || name.starts_with("generated-25x25")
        })
        .collect();
    files.sort();
    files
}

#[test]
fn fast_and_dlx_agree_on_every_generated_big_puzzle() {
    let files = generated_big_corpora();
    assert!(files.len() >= 4, "{files:?}");
    for file in files {
        assert_fast_and_dlx_agree_and_unique(&file);
    }
}

/// Gecode's instances, extracted by `scripts/gecode-sudokus.sh` into
/// `$PUZZLEBENCH_EXTRA_CORPORA/sudoku` (default `../corpora-extra/sudoku`).
fn gecode(file: &str) -> PathBuf {
    std::env::var_os("PUZZLEBENCH_EXTRA_CORPORA")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpora-extra"))
        .join("sudoku")
        .join(file)
}

#[cfg_attr(
    extra_corpora_missing,
    ignore = "needs Gecode's Sudoku instances (docs/corpora.md): run scripts/gecode-sudokus.sh, \
              set PUZZLEBENCH_EXTRA_CORPORA if not ../corpora-extra, and rebuild"
)]
#[test]
fn fast_and_dlx_agree_on_gecode_16x16() {
    assert_fast_and_dlx_agree_and_unique(&gecode("gecode-16x16.txt"));
}

#[cfg_attr(
    extra_corpora_missing,
    ignore = "needs Gecode's Sudoku instances (docs/corpora.md): run scripts/gecode-sudokus.sh, \
              set PUZZLEBENCH_EXTRA_CORPORA if not ../corpora-extra, and rebuild"
)]
#[test]
fn fast_proves_every_gecode_25x25_puzzle_unique() {
    // `dlx` finishes 2 of the 18 in minutes, so `fast` is checked by the independent
    // checker alone: each puzzle solved, its solution valid and holding the clues, and
    // no second solution (the search and clause learning behind it, limit 2).
    let path = gecode("gecode-25x25.txt");
    let grids = puzzles(&path);
    assert_eq!(grids.len(), 18, "{}", path.display());
    for (i, result) in solve_all(&grids, Algorithm::Fast).iter().enumerate() {
        assert_eq!(result.status(), Status::Solved, "puzzle {}", i + 1);
        assert!(result.first_solution.is_some(), "puzzle {}", i + 1);
    }
}
