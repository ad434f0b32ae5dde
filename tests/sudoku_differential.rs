//! The Sudoku algorithms against each other on whole public corpora, every solution
//! checked by the independent checker.

mod common;

use std::path::Path;

use rayon::prelude::*;

use common::{assert_none, cell, corpora, parse_csv, run};
use puzzlebench::sudoku::{check_solution, Algorithm, Grid, SearchResult, Solver, Status};

/// The puzzles of a corpus file (at most `limit`): one per line, or for CSV the first
/// field of each row after the header.
fn puzzles(path: &Path, limit: usize) -> Vec<Grid> {
    let csv = path.extension().is_some_and(|e| e == "csv");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .skip(usize::from(csv))
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .take(limit)
        .map(|l| Grid::from_line(l.split(',').next().unwrap(), None).unwrap())
        .collect()
}

fn solve_all(grids: &[Grid], algorithm: Algorithm, limit: u64) -> Vec<SearchResult> {
    grids
        .par_iter()
        .map_init(
            || Solver::new(algorithm),
            |solver, grid| {
                let result = solver.solve(grid, limit);
                if let Some(solution) = &result.first_solution {
                    check_solution(grid, solution)
                        .unwrap_or_else(|e| panic!("{algorithm} on {grid}: {e}"));
                }
                result
            },
        )
        .collect()
}

/// Solves every puzzle of `file` with `algorithms` (uniqueness check) and asserts they
/// agree on status, count and, where the solution is unique, the solution; every
/// solution passes the independent checker. Returns the statuses.
fn assert_algorithms_agree(file: &str, algorithms: &[Algorithm]) -> Option<Vec<Status>> {
    let corpora = corpora(&format!("assert_algorithms_agree({file})"))?;
    let grids = puzzles(&corpora.join("sudoku").join(file), usize::MAX);
    assert!(!grids.is_empty());
    let results: Vec<Vec<SearchResult>> = algorithms
        .iter()
        .map(|&algorithm| solve_all(&grids, algorithm, 2))
        .collect();
    let mut mismatches = Vec::new();
    for (i, grid) in grids.iter().enumerate() {
        let reference = &results[0][i];
        for (algorithm, result) in algorithms.iter().zip(&results).skip(1) {
            let result = &result[i];
            let same_solution = reference.status() != Status::Solved
                || result.first_solution == reference.first_solution;
            if result.solutions != reference.solutions || !same_solution {
                mismatches.push(format!(
                    "{file} puzzle {}: {grid}: {} found {} solution(s), {algorithm} {}",
                    i + 1,
                    algorithms[0],
                    reference.solutions,
                    result.solutions
                ));
            }
        }
    }
    assert_none(&mismatches);
    Some(results[0].iter().map(SearchResult::status).collect())
}

const ALL: [Algorithm; 3] = [Algorithm::Fast, Algorithm::Dlx, Algorithm::Backtrack];
const FAST_AND_DLX: [Algorithm; 2] = [Algorithm::Fast, Algorithm::Dlx];

fn assert_all_unique(statuses: Option<Vec<Status>>) {
    if let Some(statuses) = statuses {
        assert!(statuses.iter().all(|&s| s == Status::Solved), "all unique");
    }
}

#[cfg_attr(
    corpora_missing,
    ignore = "needs the public corpora (docs/corpora.md): set PUZZLEBENCH_CORPORA and rebuild"
)]
#[test]
fn all_algorithms_agree_on_norvig_top95() {
    assert_all_unique(assert_algorithms_agree("norvig-top95.txt", &ALL));
}

#[cfg_attr(
    corpora_missing,
    ignore = "needs the public corpora (docs/corpora.md): set PUZZLEBENCH_CORPORA and rebuild"
)]
#[test]
fn all_algorithms_agree_on_magictour_top1465() {
    assert_all_unique(assert_algorithms_agree("magictour-top1465.txt", &ALL));
}

#[cfg_attr(
    corpora_missing,
    ignore = "needs the public corpora (docs/corpora.md): set PUZZLEBENCH_CORPORA and rebuild"
)]
#[test]
fn all_algorithms_agree_on_norvig_hardest() {
    assert_all_unique(assert_algorithms_agree("norvig-hardest.txt", &ALL));
}

#[cfg_attr(
    corpora_missing,
    ignore = "needs the public corpora (docs/corpora.md): set PUZZLEBENCH_CORPORA and rebuild"
)]
#[test]
fn fast_and_dlx_agree_on_17_clue() {
    assert_all_unique(assert_algorithms_agree("17-clue.txt", &FAST_AND_DLX));
}

#[cfg_attr(
    corpora_missing,
    ignore = "needs the public corpora (docs/corpora.md): set PUZZLEBENCH_CORPORA and rebuild"
)]
#[test]
fn fast_and_dlx_agree_on_forum_hardest_1905() {
    assert_all_unique(assert_algorithms_agree(
        "forum-hardest-1905-11plus.txt",
        &FAST_AND_DLX,
    ));
}

#[cfg_attr(
    corpora_missing,
    ignore = "needs the public corpora (docs/corpora.md): set PUZZLEBENCH_CORPORA and rebuild"
)]
#[test]
fn fast_and_dlx_agree_on_forum_hardest_1106() {
    assert_all_unique(assert_algorithms_agree(
        "forum-hardest-1106.txt",
        &FAST_AND_DLX,
    ));
}

#[cfg_attr(
    corpora_missing,
    ignore = "needs the public corpora (docs/corpora.md): set PUZZLEBENCH_CORPORA and rebuild"
)]
#[test]
fn fast_and_dlx_agree_on_kaggle_10k() {
    assert_all_unique(assert_algorithms_agree("kaggle-10k.csv", &FAST_AND_DLX));
}

#[cfg_attr(
    corpora_missing,
    ignore = "needs the public corpora (docs/corpora.md): set PUZZLEBENCH_CORPORA and rebuild"
)]
#[test]
fn fast_and_dlx_agree_on_serg_multi() {
    if let Some(statuses) = assert_algorithms_agree("serg-benchmark-multi.txt", &FAST_AND_DLX) {
        assert!(statuses.iter().all(|&s| s == Status::Multiple));
    }
}

/// Every file of the public Sudoku corpora has a differential test above.
#[cfg_attr(
    corpora_missing,
    ignore = "needs the public corpora (docs/corpora.md): set PUZZLEBENCH_CORPORA and rebuild"
)]
#[test]
fn every_sudoku_corpus_file_is_tested() {
    let Some(corpora) = corpora("every_sudoku_corpus_file_is_tested") else {
        return;
    };
    let tested = [
        "17-clue.txt",
        "forum-hardest-1106.txt",
        "forum-hardest-1905-11plus.txt",
        "kaggle-10k.csv",
        "magictour-top1465.txt",
        "norvig-hardest.txt",
        "norvig-top95.txt",
        "serg-benchmark-multi.txt",
    ];
    for entry in std::fs::read_dir(corpora.join("sudoku")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().to_string();
        assert!(tested.contains(&name.as_str()), "{name} has no test");
    }
}

#[cfg_attr(
    corpora_missing,
    ignore = "needs the public corpora (docs/corpora.md): set PUZZLEBENCH_CORPORA and rebuild"
)]
#[test]
fn kaggle_first_2000_match_expected_with_every_algorithm() {
    let Some(corpora) = corpora("kaggle_first_2000_match_expected_with_every_algorithm") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let source = std::fs::read_to_string(corpora.join("sudoku/kaggle-10k.csv")).unwrap();
    let first: String = source
        .lines()
        .take(2001)
        .map(|l| format!("{l}\n"))
        .collect();
    let path = dir.path().join("kaggle-2000.csv");
    std::fs::write(&path, first).unwrap();
    let mut solutions = Vec::new();
    for algo in ["fast", "dlx", "backtrack"] {
        let output = run(&["sudoku", "solve", path.to_str().unwrap(), "--algo", algo]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{algo}: every expected solution matches"
        );
        let (header, rows) = parse_csv(&String::from_utf8(output.stdout).unwrap());
        assert_eq!(rows.len(), 2000);
        assert!(rows.iter().all(|r| cell(&header, r, "expected") == "match"));
        assert!(rows.iter().all(|r| cell(&header, r, "status") == "solved"));
        solutions.push(
            rows.iter()
                .map(|r| cell(&header, r, "solution").to_string())
                .collect::<Vec<_>>(),
        );
    }
    assert_eq!(solutions[0], solutions[1]);
    assert_eq!(solutions[0], solutions[2]);
}

#[cfg_attr(
    corpora_missing,
    ignore = "needs the public corpora (docs/corpora.md): set PUZZLEBENCH_CORPORA and rebuild"
)]
#[test]
fn serg_multi_solution_puzzles_are_multiple_with_limit_2_and_solved_with_limit_1() {
    let Some(corpora) = corpora("serg_multi_solution_puzzles_are_multiple") else {
        return;
    };
    let grids = puzzles(&corpora.join("sudoku/serg-benchmark-multi.txt"), usize::MAX);
    assert_eq!(grids.len(), 10_000);
    for algorithm in FAST_AND_DLX {
        for result in solve_all(&grids, algorithm, 2) {
            assert_eq!(result.status(), Status::Multiple, "{algorithm}");
            assert_eq!(result.solutions, 2);
        }
        // With a limit of 1 the first solution is reported as solved, unproven.
        for result in solve_all(&grids, algorithm, 1) {
            assert_eq!(result.status(), Status::Solved, "{algorithm}");
            assert_eq!(result.solutions, 1);
        }
    }
    // Backtracking is slow here; its verdicts on a sample agree.
    for result in solve_all(&grids[..200], Algorithm::Backtrack, 2) {
        assert_eq!(result.status(), Status::Multiple);
    }
}
