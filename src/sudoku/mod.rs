//! Sudoku of every n²×n² size (n = 2..=10, 4×4 to 100×100): grids, an independent
//! checker, and the solving algorithms side by side.
//!
//! ```
//! use puzzlebench::sudoku::{Algorithm, Grid, Solver, Status};
//!
//! let puzzle = Grid::from_line(
//!     "800000000003600000070090200050007000000045700000100030001000068008500010090000400",
//!     None,
//! )
//! .unwrap();
//! let result = Solver::new(Algorithm::Dlx).solve(&puzzle, 2);
//! assert_eq!(result.status(), Status::Solved);
//! assert!(result.first_solution.unwrap().to_line().starts_with("812753649"));
//! ```

pub mod backtrack;
pub mod big;
pub mod check;
pub mod display;
mod dlx;
pub mod fast;
pub mod generate;
mod grid;
mod job;
mod show_job;

pub use big::BigSolver;
pub use check::{check_solution, CheckError};
pub use dlx::DlxSolver;
pub use grid::{
    box_size_of_side, digit_char, digit_text, parse_box_size, parse_side, Conflict, Grid,
    GridError, SideError, Unit, MAX_BOX, MIN_BOX,
};
pub use job::{
    PuzzleLocation, SolveJob, SolveLayout, SolveOptions, SolveSettings, SolveWorker, SudokuPuzzle,
    DEFAULT_LIMIT,
};
pub use show_job::ShowJob;

use std::fmt;
use std::str::FromStr;

use crate::budget::{Meter, OverBudget};

/// The solving algorithms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Algorithm {
    /// Dancing-links exact cover.
    Dlx,
    /// Classic cell-by-cell backtracking (the baseline): row-major order, digits in
    /// increasing order.
    Backtrack,
    /// Bitset solvers with constraint propagation, the fastest on every size up to 25×25:
    /// one for 9×9, one for 4×4, 16×16 and 25×25, handing the hardest 25×25 puzzles to
    /// clause learning. Larger grids, whose digits do not fit its 32-bit masks, are
    /// solved by `dlx`'s search, handing the puzzles it finds hard to clause learning.
    Fast,
}

impl Algorithm {
    /// Every algorithm, in the order they are listed.
    pub const ALL: [Algorithm; 3] = [Algorithm::Dlx, Algorithm::Backtrack, Algorithm::Fast];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Dlx => "dlx",
            Algorithm::Backtrack => "backtrack",
            Algorithm::Fast => "fast",
        }
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not one of the [`Algorithm`]s.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown algorithm {0:?}: choose fast, dlx or backtrack")]
pub struct UnknownAlgorithm(pub String);

impl FromStr for Algorithm {
    type Err = UnknownAlgorithm;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Algorithm::ALL
            .into_iter()
            .find(|a| a.name() == s)
            .ok_or_else(|| UnknownAlgorithm(s.to_string()))
    }
}

/// What a search found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchResult {
    /// Solutions found, up to the limit asked for.
    pub solutions: u64,
    /// The first solution found.
    pub first_solution: Option<Grid>,
    /// Search effort: real guesses for `dlx` (options tried where two or more remained)
    /// and for `fast` (digits tried in cells where two or more remained; off 9×9, the
    /// digit taken out again after a failed guess is not counted), digits placed
    /// for `backtrack`.
    pub guesses: u64,
    /// The budget the search stopped at before it was done: `solutions` then counts
    /// only the solutions found until then.
    pub stopped: Option<OverBudget>,
}

/// A puzzle's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Exactly one solution (or, with a limit of 1, at least one).
    Solved,
    /// Two or more solutions.
    Multiple,
    /// No solution.
    Unsolvable,
}

impl Status {
    /// Every status, in the order summaries list them.
    pub const ALL: [Status; 3] = [Status::Solved, Status::Multiple, Status::Unsolvable];

    /// The name used in result files.
    pub fn name(self) -> &'static str {
        match self {
            Status::Solved => "solved",
            Status::Multiple => "multiple",
            Status::Unsolvable => "unsolvable",
        }
    }

    /// The verdict for this many solutions found.
    pub fn of_count(solutions: u64) -> Status {
        match solutions {
            0 => Status::Unsolvable,
            1 => Status::Solved,
            _ => Status::Multiple,
        }
    }
}

impl SearchResult {
    /// The verdict for the solutions found.
    pub fn status(&self) -> Status {
        Status::of_count(self.solutions)
    }
}

/// What a search of a puzzle given as its line found ([`Solver::solve_line_within`]): a
/// [`SearchResult`] whose first solution was written as a line instead of kept as a grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineResult {
    /// Solutions found, up to the limit asked for.
    pub solutions: u64,
    /// Search effort, as [`SearchResult::guesses`].
    pub guesses: u64,
    /// The budget the search stopped at before it was done, as [`SearchResult::stopped`].
    pub stopped: Option<OverBudget>,
}

impl LineResult {
    /// The verdict for the solutions found.
    pub fn status(&self) -> Status {
        Status::of_count(self.solutions)
    }
}

/// Solves grids of any supported size with one algorithm, reusing its buffers (such as the
/// exact-cover matrix of each size) from one puzzle to the next.
#[derive(Debug, Clone)]
pub struct Solver {
    algorithm: Algorithm,
    dlx: Vec<DlxSolver>,
    big: BigSolver,
}

impl Solver {
    /// A solver using `algorithm`.
    pub fn new(algorithm: Algorithm) -> Self {
        Solver {
            algorithm,
            dlx: Vec::new(),
            big: BigSolver::new(),
        }
    }

    /// The algorithm in use.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// Counts the solutions of `grid`, stopping at `limit` (a limit of 2 proves
    /// uniqueness; 0 is taken as 1), and keeps the first.
    pub fn solve(&mut self, grid: &Grid, limit: u64) -> SearchResult {
        self.solve_within(grid, limit, &mut Meter::unlimited())
    }

    /// [`solve_within`](Self::solve_within) of a puzzle given as its line of `N`
    /// characters (81 for a 9×9 grid, 256 for 16×16, 625 for 25×25: the clues as
    /// [`Grid::from_line`] reads them, `0` or `.` for the blanks), writing the first
    /// solution's line into `solution`. `None`, with nothing searched, where only a
    /// [`Grid`] can be solved: with an algorithm other than `fast`, on CPUs without the
    /// features of the 9×9 solver's modern build, for another length, or when the line
    /// holds a character that is not a digit of its size.
    pub fn solve_line_within<const N: usize>(
        &mut self,
        line: &[u8; N],
        limit: u64,
        meter: &mut Meter,
        solution: &mut [u8; N],
    ) -> Option<LineResult> {
        match self.algorithm {
            Algorithm::Fast if N == 81 => {
                let line = line.as_slice().try_into().ok()?;
                let solution = solution.as_mut_slice().try_into().ok()?;
                fast::solve_line(line, limit, meter, solution)
            }
            Algorithm::Fast => self.big.solve_line(line, limit, meter, solution),
            Algorithm::Backtrack | Algorithm::Dlx => None,
        }
    }

    /// [`solve`](Self::solve), each guess counted by `meter`: the search stops when the
    /// meter's budget is spent, with [`SearchResult::stopped`] set.
    pub fn solve_within(&mut self, grid: &Grid, limit: u64, meter: &mut Meter) -> SearchResult {
        let limit = limit.max(1);
        match self.algorithm {
            Algorithm::Backtrack => backtrack::solve(grid, limit, meter),
            Algorithm::Fast if grid.side() == 9 => fast::solve(grid, limit, meter),
            Algorithm::Fast => self.big.solve(grid, limit, meter),
            Algorithm::Dlx => {
                dlx::solver_for(&mut self.dlx, grid.box_size()).solve(grid, limit, meter)
            }
        }
    }
}

#[cfg(test)]
mod tests;
