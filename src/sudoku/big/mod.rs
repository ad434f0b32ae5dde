//! The bitset solver for 16×16 and 25×25 grids (`--algo fast` on those sizes; it takes
//! every size, but 9×9 grids have their own, faster [`fast`](super::fast) solver).
//!
//! State: a candidate mask per cell (a bit per digit), copied whole on a guess (2.5 KB for
//! 25×25), so nothing is undone. Each size is compiled on its own (see [`shape`]), so
//! the loops over a unit run a constant number of times. 16×16 grids have a board of
//! their own, digit-major ([`planes`]: a 256-bit plane per digit), with the same
//! deductions and the same search: its nodes cost a third to a half of the cell-major
//! board's. 25×25 grids are set up on a digit-major board too ([`planes25`]: a 25-bit
//! mask per row and digit), which hands its fixed point to the cell-major board for the
//! search.
//!
//! Propagation runs to a fixed point: naked singles (a placed digit leaves its row, column
//! and box at once, queueing the peers left with one digit), then hidden singles and
//! empty units per unit from the masks of its open cells (digits seen once and twice),
//! then locked candidates (pointing and claiming) from the open digits of each row's and
//! column's segment in a box.
//!
//! The search branches in two: a digit in a cell, and, once that is exhausted, the same
//! digit out of that cell, propagated before the next choice. The cell has the fewest
//! candidates per weight of its row, column and box, a unit's weight counting the
//! contradictions met in it (dom/wdeg, from constraint programming): the search turns to
//! where it failed, which took a fifth of the guesses of a plain fewest-candidates choice.
//! The weights halve every 1,000 contradictions, so that long searches follow their
//! recent failures.

mod board;
mod deductions;
mod planes;
mod planes25;
#[cfg(target_arch = "x86_64")]
mod planes_x86;
mod search;
mod shape;

use board::{Board, Queue};
use planes::Planes;
use planes25::Planes25;
use search::Frame;
use search::Node;
use shape::{Box2, Box3, Box5, Shape};

use super::{Grid, SearchResult};
use crate::budget::Meter;

/// A solver for grids of every size, keeping its search stacks from one puzzle to the
/// next.
#[derive(Default)]
pub struct BigSolver {
    queue: Queue,
    stack2: Vec<Frame<Board<Box2>>>,
    stack3: Vec<Frame<Board<Box3>>>,
    stack4: Vec<Frame<Planes>>,
    stack5: Vec<Frame<Board<Box5>>>,
}

impl std::fmt::Debug for BigSolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BigSolver").finish_non_exhaustive()
    }
}

impl Clone for BigSolver {
    /// A fresh solver: the stacks are scratch space, not state.
    fn clone(&self) -> Self {
        BigSolver::default()
    }
}

impl BigSolver {
    /// A solver with empty stacks.
    pub fn new() -> Self {
        BigSolver::default()
    }

    /// Counts the solutions of `grid` up to `limit` (at least 1), keeping the first.
    /// `guesses` counts the digits put in cells that had two or more candidates left,
    /// and so does `meter`, which stops the search when its budget is spent.
    pub fn solve(&mut self, grid: &Grid, limit: u64, meter: &mut Meter) -> SearchResult {
        #[cfg(target_arch = "x86_64")]
        if crate::sudoku::fast::has_modern_features() {
            // SAFETY: the CPU has every feature `solve_modern` is compiled for.
            return unsafe { self.solve_modern(grid, limit, meter) };
        }
        self.solve_portable(grid, limit, meter)
    }

    /// [`solve`](Self::solve) compiled for the x86 features of the last decade (population
    /// count, trailing zeros, bit extraction, AVX2), with the whole search inlined into it:
    /// 16 to 24% fewer instructions than the portable build on the 16×16 and 25×25
    /// corpora (docs/performance.md).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
    fn solve_modern(&mut self, grid: &Grid, limit: u64, meter: &mut Meter) -> SearchResult {
        self.solve_portable(grid, limit, meter)
    }

    /// [`solve`](Self::solve) for any CPU.
    #[inline(always)]
    fn solve_portable(&mut self, grid: &Grid, limit: u64, meter: &mut Meter) -> SearchResult {
        let limit = limit.max(1);
        let queue = &mut self.queue;
        match grid.box_size() {
            2 => search::solve(
                Node::from_grid(grid, queue),
                limit,
                meter,
                &mut self.stack2,
                queue,
            ),
            3 => search::solve(
                Node::from_grid(grid, queue),
                limit,
                meter,
                &mut self.stack3,
                queue,
            ),
            4 => search::solve(
                Node::from_grid(grid, queue),
                limit,
                meter,
                &mut self.stack4,
                queue,
            ),
            _ => {
                debug_assert_eq!(grid.box_size(), Box5::BOX, "grids have boxes of 2 to 5");
                let root = Planes25::from_grid(grid).map(Planes25::into_board);
                search::solve(root, limit, meter, &mut self.stack5, queue)
            }
        }
    }
}

#[cfg(test)]
mod tests;
