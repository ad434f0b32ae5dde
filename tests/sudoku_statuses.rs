//! Edge-case Sudoku puzzles get the right status from every algorithm, with `--limit 1`
//! and `--limit 2`, end to end from the command line.

mod common;

use common::{cell, corpora, parse_csv, run};
use puzzlebench::sudoku::{check_solution, Grid};

const SEED1: &str =
    "004001700080020000200070000000503078005000400960104000000050009000010060001700200";
const SEED1_SOLUTION: &str =
    "594831726783426915216975834142593678835267491967184352378652149429318567651749283";

/// (name, puzzle, status with --limit 1, status with --limit 2, error).
fn edge_cases() -> Vec<(
    &'static str,
    String,
    &'static str,
    &'static str,
    &'static str,
)> {
    let mut conflict = SEED1.to_string();
    conflict.replace_range(8..9, "4");
    let mut one_missing = SEED1_SOLUTION.to_string();
    one_missing.replace_range(40..41, ".");
    let mut no_room = "12345678.".to_string() + &".".repeat(72);
    no_room.replace_range(80..81, "9");
    vec![
        (
            "conflicting clues",
            conflict,
            "unsolvable",
            "unsolvable",
            "clues conflict: 4 appears twice in row 1 (r1c3 and r1c9)",
        ),
        ("0 clues", ".".repeat(81), "solved", "multiple", ""),
        ("80 clues", one_missing, "solved", "solved", ""),
        (
            "81 clues",
            SEED1_SOLUTION.to_string(),
            "solved",
            "solved",
            "",
        ),
        (
            "a single place left, taken",
            no_room,
            "unsolvable",
            "unsolvable",
            "no solution",
        ),
        ("24 clues", SEED1.to_string(), "solved", "solved", ""),
    ]
}

#[test]
fn edge_cases_get_the_right_status_with_limits_1_and_2() {
    let cases = edge_cases();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("edge.txt");
    let text: String = cases.iter().map(|c| format!("{}\n", c.1)).collect();
    std::fs::write(&path, text).unwrap();
    for algo in ["fast", "dlx", "backtrack"] {
        for limit in ["1", "2"] {
            let output = run(&[
                "sudoku",
                "solve",
                path.to_str().unwrap(),
                "--algo",
                algo,
                "--limit",
                limit,
            ]);
            assert_eq!(output.status.code(), Some(1), "{algo}: some are unsolvable");
            let (header, rows) = parse_csv(&String::from_utf8(output.stdout).unwrap());
            assert_eq!(rows.len(), cases.len());
            for ((name, puzzle, one, two, error), row) in cases.iter().zip(&rows) {
                let expected = if limit == "1" { one } else { two };
                let status = cell(&header, row, "status");
                assert_eq!(status, *expected, "{algo} --limit {limit}: {name}");
                assert_eq!(cell(&header, row, "error"), *error, "{algo}: {name}");
                let solutions: u64 = cell(&header, row, "solutions").parse().unwrap();
                let count = match status {
                    "unsolvable" => 0,
                    "multiple" => 2,
                    _ => 1,
                };
                assert_eq!(solutions, count, "{algo} --limit {limit}: {name}");
                let solution = cell(&header, row, "solution");
                assert_eq!(solution.is_empty(), count == 0, "{algo}: {name}");
                if !solution.is_empty() {
                    let puzzle = Grid::from_line(puzzle, None).unwrap();
                    let solution = Grid::from_line(solution, None).unwrap();
                    check_solution(&puzzle, &solution).unwrap();
                }
            }
            // A cell left alone is forced: no guess for the two searching algorithms.
            if algo != "backtrack" {
                assert_eq!(cell(&header, &rows[2], "guesses"), "0", "{algo}");
                assert_eq!(cell(&header, &rows[2], "solution"), SEED1_SOLUTION);
            }
        }
    }
}

#[cfg_attr(
    corpora_missing,
    ignore = "needs the public corpora (docs/corpora.md): set PUZZLEBENCH_CORPORA and rebuild"
)]
#[test]
fn every_serg_puzzle_is_multiple_with_limit_2_and_solved_with_limit_1() {
    let Some(corpora) = corpora("every_serg_puzzle_is_multiple_with_limit_2") else {
        return;
    };
    let path = corpora.join("sudoku/serg-benchmark-multi.txt");
    for (limit, status, solutions) in [("2", "multiple", "2"), ("1", "solved", "1")] {
        let output = run(&[
            "sudoku",
            "solve",
            path.to_str().unwrap(),
            "--algo",
            "fast",
            "--limit",
            limit,
        ]);
        assert_eq!(output.status.code(), Some(0));
        let (header, rows) = parse_csv(&String::from_utf8(output.stdout).unwrap());
        assert_eq!(rows.len(), 10_000);
        for row in &rows {
            assert_eq!(cell(&header, row, "status"), status, "--limit {limit}");
            assert_eq!(cell(&header, row, "solutions"), solutions);
        }
    }
}

/// `fast` off 9×9 is its own solver: on a 4×4 puzzle with several solutions and a 16×16
/// one with a single solution, it agrees with `dlx` on the status and on the unique
/// solution (the guesses differ: each counts its own search).
#[test]
fn fast_on_other_sizes_agrees_with_exact_cover() {
    let four = "1.3..4..........";
    let sixteen = std::fs::read_to_string(
        common::repo_datasets().join("sudoku/generated-16x16-minimal-100.txt"),
    )
    .unwrap();
    let sixteen = sixteen.lines().next().unwrap();
    for (puzzle, status) in [(four, "multiple"), (sixteen, "solved")] {
        let mut outputs = Vec::new();
        for algo in ["fast", "dlx"] {
            let output = common::puzzlebench()
                .args(["sudoku", "solve", "--algo", algo])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .and_then(|mut child| {
                    use std::io::Write;
                    child.stdin.take().unwrap().write_all(puzzle.as_bytes())?;
                    child.wait_with_output()
                })
                .unwrap();
            let (header, rows) = parse_csv(&String::from_utf8(output.stdout).unwrap());
            outputs.push((
                cell(&header, &rows[0], "status").to_string(),
                cell(&header, &rows[0], "solution").to_string(),
            ));
        }
        assert_eq!(outputs[0].0, status);
        assert_eq!(outputs[1].0, status);
        if status == "solved" {
            assert_eq!(outputs[0].1, outputs[1].1);
        }
    }
}
