//! Sudoku grids: parsing any line, then solving the small ones (4×4, 9×9) with every
//! algorithm under a node budget. Every solution found passes the independent checker,
//! the algorithms agree on the count when none was stopped, and a parsed grid writes back
//! to a line that parses to the same grid. The batch job's own record path (lines and CSV
//! fields) is run on the same text, and `fast` on a 9×9 or 16×16 line read as
//! characters is checked against its grid. Clause learning (the big solver handing over
//! at its first guess) is checked against the algorithms that finished.
#![no_main]

use libfuzzer_sys::fuzz_target;
use puzzlebench::batch::{Job, Record, RecordContent};
use puzzlebench::budget::{Budget, Meter};
use puzzlebench::puzzle::Puzzle;
use puzzlebench::sudoku::{
    check_solution, Algorithm, BigSolver, Grid, SolveJob, Solver, SudokuPuzzle,
};

const BUDGET: Budget = Budget {
    timeout: None,
    max_nodes: Some(3_000),
};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let side = match selector % 4 {
        0 => Some(4),
        1 => Some(9),
        2 => Some(16),
        _ => None,
    };
    job_paths(text);
    let Ok(grid) = Grid::from_line(text, side) else {
        return;
    };
    assert_eq!(grid.cells().len(), grid.side() * grid.side());
    let again = Grid::from_line(&grid.to_line(), Some(grid.side())).expect("its own line parses");
    assert_eq!(again, grid, "to_line does not round-trip");
    line_route::<256>(text, &grid);
    if grid.side() > 9 {
        return;
    }
    let conflict = grid.find_conflict();
    let mut finished = Vec::new();
    for algorithm in Algorithm::ALL {
        let mut meter = Meter::start(BUDGET);
        let result = Solver::new(algorithm).solve_within(&grid, 2, &mut meter);
        assert!(result.solutions <= 2, "{algorithm}: over the limit");
        assert_eq!(
            result.solutions > 0,
            result.first_solution.is_some(),
            "{algorithm}: a count without a solution, or the other way"
        );
        if let Some(solution) = &result.first_solution {
            if let Err(error) = check_solution(&grid, solution) {
                panic!(
                    "{algorithm}: a wrong solution ({error}): {}",
                    solution.to_line()
                );
            }
        }
        if result.stopped.is_none() {
            if conflict.is_some() {
                assert_eq!(
                    result.solutions, 0,
                    "{algorithm} solved a grid with a conflict"
                );
            }
            finished.push((algorithm, result));
        }
    }
    line_route::<81>(text, &grid);
    let learned = BigSolver::handing_over_at(0).solve(&grid, 2, &mut Meter::start(BUDGET));
    if let Some(solution) = &learned.first_solution {
        if let Err(error) = check_solution(&grid, solution) {
            panic!("clause learning: a wrong solution ({error})");
        }
    }
    if let (None, Some((algorithm, reference))) = (learned.stopped, finished.first()) {
        assert_eq!(
            learned.solutions, reference.solutions,
            "clause learning and {algorithm} disagree"
        );
        if learned.solutions == 1 {
            assert_eq!(
                learned.first_solution, reference.first_solution,
                "{algorithm}"
            );
        }
    }
    if let Some(((first, a), rest)) = finished.split_first() {
        for (other, b) in rest {
            assert_eq!(a.solutions, b.solutions, "{first} and {other} disagree");
            if a.solutions == 1 {
                assert_eq!(a.first_solution, b.first_solution, "{first} and {other}");
            }
        }
    }
});

/// `fast` on a 9×9 or 16×16 line (`N` characters) read as characters finds what it
/// finds in the line's grid: the same counts, the same budget stop, the same first
/// solution.
fn line_route<const N: usize>(text: &str, grid: &Grid) {
    let Ok(line) = <&[u8; N]>::try_from(text.as_bytes()) else {
        return;
    };
    let mut solution = [0u8; N];
    let mut solver = Solver::new(Algorithm::Fast);
    let Some(found) = solver.solve_line_within(line, 2, &mut Meter::start(BUDGET), &mut solution)
    else {
        return;
    };
    let expected = solver.solve_within(grid, 2, &mut Meter::start(BUDGET));
    assert_eq!(
        (found.solutions, found.guesses, found.stopped),
        (expected.solutions, expected.guesses, expected.stopped),
        "the line and its grid"
    );
    if let Some(first) = &expected.first_solution {
        assert_eq!(
            &solution[..],
            first.to_line().as_bytes(),
            "the first solution"
        );
    }
}

/// The batch job on `text` as a line and as a CSV row's field: a row, or an error that
/// says why, never a panic.
fn job_paths(text: &str) {
    let settings = Default::default();
    let whole = [text];
    let fields: Vec<&str> = text.split(',').collect();
    for (algorithm, content) in [
        ("fast", RecordContent::Line(text)),
        ("backtrack", RecordContent::Fields(&whole)),
        ("dlx", RecordContent::Fields(&fields)),
    ] {
        let csv = matches!(content, RecordContent::Fields(_));
        let job = SolveJob {
            with_expected: csv,
            ..SudokuPuzzle::job(&settings, algorithm, &[]).unwrap()
        };
        let header = csv.then(|| vec!["puzzle".to_string(), "solution".to_string()]);
        let Ok(layout) = job.layout(
            &puzzlebench::batch::InputSpec::new("-", None),
            header.as_deref(),
        ) else {
            continue;
        };
        let mut worker = job.new_worker();
        let record = Record { line: 1, content };
        match job.process(&mut worker, &layout, &record, &mut Meter::start(BUDGET)) {
            Ok(outcome) => {
                assert!(job.statuses().contains(&outcome.status) || outcome.status == "timeout");
                assert_eq!(outcome.values.len(), job.columns(&layout).len());
                if outcome.failed && outcome.status != "mismatch" {
                    assert!(!outcome.error.is_empty(), "{outcome:?}");
                }
                assert!(outcome.error.chars().count() < 600, "{outcome:?}");
            }
            Err(error) => {
                let message = error.to_string();
                assert!(
                    !message.is_empty() && message.chars().count() < 600,
                    "{message}"
                );
            }
        }
    }
}
