//! Sudoku as exact cover, solved by the shared dancing-links engine.
//!
//! Items: one per cell, per (row, digit), per (column, digit) and per (box, digit) — all
//! primary, numbered in that order: with the engine's first-fewest choice, cells are
//! branched on when items tie, which searched the fewest nodes of the orders tried.
//! Options: one per (cell, digit), covering its four items.
//!
//! The matrix of a size is built once per worker and reused: a puzzle's clues are
//! *selected* (their items covered once, up front) instead of being searched, and after
//! the search the matrix is restored by copying a pristine clone (64 KB for 9×9) rather
//! than uncovering the clues one by one (a copy of 26 KB with 16-bit indices). Since the
//! matrix is restored that way anyway, the search is [`Dlx::search_once`], which skips
//! its final unwinding. A smaller matrix built per puzzle lost to the building: linking
//! its nodes costs more than covering the clues' items.

use std::ops::ControlFlow;

use crate::budget::Meter;
use crate::exact_cover::{Dlx, DlxBuilder};

use super::{Grid, SearchResult};

/// The solver for grids of boxes `box_size` among `solvers`, built if missing. The
/// matrices of grids past 25×25 (190 MB at 100×100) are kept one at a time: meeting
/// another such size drops the last, so that a worker holds at most one.
pub(crate) fn solver_for(solvers: &mut Vec<DlxSolver>, box_size: usize) -> &mut DlxSolver {
    match solvers.iter().position(|s| s.box_size == box_size) {
        Some(index) => &mut solvers[index],
        None => {
            if box_size > LARGEST_CACHED_BOX {
                solvers.retain(|s| s.box_size <= LARGEST_CACHED_BOX);
            }
            solvers.push(DlxSolver::new(box_size));
            solvers.last_mut().expect("just pushed")
        }
    }
}

/// The largest box size whose matrix a worker keeps beside others (25×25).
const LARGEST_CACHED_BOX: usize = 5;

/// A reusable exact-cover solver for one grid size.
#[derive(Debug, Clone)]
pub struct DlxSolver {
    box_size: usize,
    /// The matrix searched, with the current puzzle's clues selected.
    dlx: Dlx,
    /// The same matrix with nothing selected.
    pristine: Dlx,
}

impl DlxSolver {
    /// Builds the exact-cover matrix for grids with boxes of `box_size × box_size`.
    pub fn new(box_size: usize) -> Self {
        let side = box_size * box_size;
        let cells = side * side;
        let mut builder = DlxBuilder::new(4 * cells, 0);
        for row in 0..side {
            for col in 0..side {
                let b = (row / box_size) * box_size + col / box_size;
                for digit in 0..side {
                    builder
                        .add_option(&[
                            row * side + col,
                            cells + row * side + digit,
                            2 * cells + col * side + digit,
                            3 * cells + b * side + digit,
                        ])
                        .expect("the Sudoku matrix is well-formed");
                }
            }
        }
        let dlx = builder.build();
        DlxSolver {
            box_size,
            pristine: dlx.clone(),
            dlx,
        }
    }

    /// The box size this solver was built for.
    pub fn box_size(&self) -> usize {
        self.box_size
    }

    /// Counts the solutions of `grid` up to `limit`, keeping the first; `meter` counts
    /// the guesses and stops the search when its budget is spent.
    ///
    /// # Panics
    /// If `grid` is not of this solver's size.
    pub fn solve(&mut self, grid: &Grid, limit: u64, meter: &mut Meter) -> SearchResult {
        assert_eq!(
            grid.box_size(),
            self.box_size,
            "grid size differs from the solver's"
        );
        let side = grid.side();
        let mut result = SearchResult::default();
        for (cell, &value) in grid.cells().iter().enumerate() {
            if value != 0 && self.dlx.select(cell * side + value as usize - 1).is_err() {
                // Conflicting clues: no solution.
                self.dlx.restore_from(&self.pristine);
                return result;
            }
        }
        let mut first = None;
        let mut found = 0;
        let stats = self.dlx.search_once(meter, |options| {
            if first.is_none() {
                let mut solution = grid.clone();
                for &option in options {
                    let cell = option / side;
                    solution.set(cell / side, cell % side, (option % side) as u8 + 1);
                }
                first = Some(solution);
            }
            found += 1;
            if found >= limit {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        self.dlx.restore_from(&self.pristine);
        result.solutions = stats.solutions;
        result.guesses = stats.guesses;
        result.stopped = stats.stopped;
        result.first_solution = first;
        result
    }
}
