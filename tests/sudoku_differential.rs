//! The Sudoku algorithms against each other on whole public corpora, every solution
//! checked by the independent checker.

mod common;

use std::path::Path;

use rayon::prelude::*;

use common::{cell, corpora, parse_csv, run};
use puzzlebench::sudoku::{check_solution, Algorithm, Grid, SearchResult, Solver, Status};

/// The puzzles of a line-format corpus file (at most `limit`).
fn puzzles(path: &Path, limit: usize) -> Vec<Grid> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .take(limit)
        .map(|l| Grid::from_line(l, None).unwrap())
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

fn assert_algorithms_agree(file: &str) {
    let Some(corpora) = corpora(&format!("assert_algorithms_agree({file})")) else {
        return;
    };
    let grids = puzzles(&corpora.join("sudoku").join(file), usize::MAX);
    assert!(!grids.is_empty());
    let dlx = solve_all(&grids, Algorithm::Dlx, 2);
    let backtrack = solve_all(&grids, Algorithm::Backtrack, 2);
    for ((grid, a), b) in grids.iter().zip(&dlx).zip(&backtrack) {
        assert_eq!(a.status(), b.status(), "{file}: {grid}");
        assert_eq!(a.solutions, b.solutions, "{file}: {grid}");
        assert_eq!(a.first_solution, b.first_solution, "{file}: {grid}");
    }
    assert!(
        dlx.iter().all(|r| r.status() == Status::Solved),
        "{file}: all unique"
    );
}

#[test]
fn dlx_and_backtrack_agree_on_norvig_top95() {
    assert_algorithms_agree("norvig-top95.txt");
}

#[test]
fn dlx_and_backtrack_agree_on_magictour_top1465() {
    assert_algorithms_agree("magictour-top1465.txt");
}

#[test]
fn dlx_and_backtrack_agree_on_norvig_hardest() {
    assert_algorithms_agree("norvig-hardest.txt");
}

#[test]
fn kaggle_first_2000_match_expected_with_both_algorithms() {
    let Some(corpora) = corpora("kaggle_first_2000_match_expected_with_both_algorithms") else {
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
    for algo in ["dlx", "backtrack"] {
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
}

#[test]
fn serg_multi_solution_puzzles_are_multiple() {
    let Some(corpora) = corpora("serg_multi_solution_puzzles_are_multiple") else {
        return;
    };
    let grids = puzzles(&corpora.join("sudoku/serg-benchmark-multi.txt"), 500);
    assert_eq!(grids.len(), 500);
    for result in solve_all(&grids, Algorithm::Dlx, 2) {
        assert_eq!(result.status(), Status::Multiple);
        assert_eq!(result.solutions, 2);
    }
    // With a limit of 1 the first solution is reported as solved, unproven.
    for result in solve_all(&grids, Algorithm::Dlx, 1) {
        assert_eq!(result.status(), Status::Solved);
    }
}
