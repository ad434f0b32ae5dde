//! `sudoku show` on the batch runner: each puzzle drawn as a grid, and solved beside it
//! when asked.

use crate::batch::{InputSpec, Job, JobError, Outcome, Record, Value};
use crate::budget::Meter;

use super::job::{SolveJob, SolveLayout, DEFAULT_LIMIT};
use super::{Algorithm, Solver, Status};

/// `sudoku show`: each puzzle in the block display, optionally beside its solution.
#[derive(Debug, Clone)]
pub struct ShowJob {
    /// Grid side if forced, else inferred per line.
    pub side: Option<usize>,
    /// CSV column holding the puzzle (default: the first).
    pub column: Option<String>,
    /// Solve each puzzle (with this algorithm) and show the solution beside it.
    pub solve_with: Option<Algorithm>,
}

impl Job for ShowJob {
    type Layout = SolveLayout;
    type Worker = Option<Solver>;

    fn columns(&self, _layout: &SolveLayout) -> Vec<String> {
        ["clues", "grid", "solution"].map(String::from).to_vec()
    }

    fn statuses(&self) -> Vec<&'static str> {
        let mut statuses = vec!["shown"];
        if self.solve_with.is_some() {
            statuses.extend(Status::ALL.iter().map(|s| s.name()));
        }
        statuses
    }

    fn settings(&self) -> Vec<(String, String)> {
        let mut settings = Vec::new();
        if let Some(algorithm) = self.solve_with {
            settings.push(("solve".to_string(), algorithm.to_string()));
        }
        if let Some(side) = self.side {
            settings.push(("size".to_string(), side.to_string()));
        }
        if let Some(column) = &self.column {
            settings.push(("column".to_string(), column.clone()));
        }
        settings
    }

    fn layout(
        &self,
        input: &InputSpec,
        header: Option<&[String]>,
    ) -> Result<SolveLayout, JobError> {
        self.as_solve_job().layout(input, header)
    }

    fn read_columns(&self, layout: &SolveLayout) -> Vec<usize> {
        layout.read_columns()
    }

    fn new_worker(&self) -> Option<Solver> {
        self.solve_with.map(Solver::new)
    }

    fn process(
        &self,
        solver: &mut Option<Solver>,
        layout: &SolveLayout,
        record: &Record<'_>,
        meter: &mut Meter,
    ) -> Result<Outcome, JobError> {
        let as_solve = self.as_solve_job();
        let grid = as_solve.grid(layout, as_solve.puzzle_text(layout, record)?)?;
        let mut outcome = Outcome {
            status: "shown",
            failed: false,
            error: String::new(),
            values: vec![
                Value::Int(grid.clue_count() as u64),
                Value::Text(grid.display_block()),
                Value::Empty,
            ],
        };
        if let Some(solver) = solver {
            let result = match grid.find_conflict() {
                Some(conflict) => {
                    outcome.error = conflict.to_string();
                    Default::default()
                }
                None => solver.solve_within(&grid, 2, meter),
            };
            if let Some(over) = result.stopped {
                return Ok(Outcome::over_budget(over, outcome.values));
            }
            outcome.status = result.status().name();
            outcome.failed = result.status() == Status::Unsolvable;
            if outcome.failed && outcome.error.is_empty() {
                outcome.error = "no solution".into();
            }
            if let Some(solution) = result.first_solution {
                outcome.values[2] = Value::Text(solution.display_block());
            }
        }
        Ok(outcome)
    }
}

impl ShowJob {
    fn as_solve_job(&self) -> SolveJob {
        SolveJob {
            algorithm: Algorithm::Dlx,
            limit: DEFAULT_LIMIT,
            side: self.side,
            column: self.column.clone(),
            expected_column: None,
            with_expected: false,
        }
    }
}
