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
//! column's segment in a box; on 25×25 grids, then hidden pairs in the units
//! that changed since their last scan (their hard puzzles' searches shrink by more than
//! the nodes slow down).
//!
//! The search branches in two: a digit in a cell, and, once that is exhausted, the same
//! digit out of that cell, propagated before the next choice. The cell has the fewest
//! candidates per weight of its row, column and box, a unit's weight counting the
//! contradictions met in it (dom/wdeg, from constraint programming): the search turns to
//! where it failed, which took a fifth of the guesses of a plain fewest-candidates choice.
//! The weights halve every 1,000 contradictions, so that long searches follow their
//! recent failures. On 25×25, the cell whose change failed last is chosen again first
//! while it stays open (last-conflict reasoning).

mod board;
mod conflicts;
mod deductions;
mod large;
mod planes;
mod planes25;
#[cfg(target_arch = "x86_64")]
mod planes_x86;
mod search;
mod shape;

use board::{Board, Contradiction, Queue};
use planes::Planes;
use planes25::Planes25;
use search::{Frame, Node};
use shape::{Box2, Box3, Box5, Shape};

use super::grid::{cell_value, digit_byte};
use super::{DlxSolver, Grid, LineResult, SearchResult};
use crate::budget::Meter;

/// The largest box size the bitset search takes (25×25 grids): its candidate masks are
/// 32-bit words. Larger grids go to dancing links and clause learning ([`large`]).
pub const LARGEST_BOX: usize = 5;

/// Guesses after which a 25×25 search still without a second solution hands the puzzle
/// over to clause learning ([`conflicts`]): about a tenth of a second. Clause learning
/// proves 16 of Gecode's 18 hard puzzles within 10 s where the search alone proves 8;
/// on 60 generated hard puzzles handing over after 1,000, 5,000 or 20,000 guesses, or
/// never, took 0.24 to 0.27 s in all. Other sizes do not hand over: on the minimal
/// 16×16 puzzles clause learning takes 6.6 times the search's time, and no 16×16
/// corpus has a puzzle the search finds hard (docs/performance.md).
const HAND_OVER_25: u64 = 5_000;

/// Guesses after which dancing links on a grid past 25×25 still without a second
/// solution hand the puzzle over to clause learning ([`large`]): on 16 generated 36×36
/// puzzles of 700 clues (1,350 to 281 M guesses each for dancing links alone) handing
/// over after 0, 1,000, 5,000 or 20,000 guesses took 0.34, 0.35, 0.40 and 0.68 s in all,
/// and on the 10 easier ones of `generated-36x36-10.csv` 0.051, 0.019, 0.019 and 0.018 s
/// (docs/performance.md).
const HAND_OVER_LARGE: u64 = 1_000;

/// A solver for grids of every size, keeping its search stacks (and, past 25×25, its
/// exact-cover matrix) from one puzzle to the next.
#[derive(Default)]
pub struct BigSolver {
    /// Guesses after which the search hands over to clause learning, if not the size's
    /// own ([`HAND_OVER_25`] for 25×25, never for the others).
    hand_over_at: Option<u64>,
    /// The exact-cover solver of the last grid size past 25×25 met.
    large: Vec<DlxSolver>,
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
    /// A fresh solver with the same hand-over point: the stacks are scratch space, not
    /// state.
    fn clone(&self) -> Self {
        BigSolver {
            hand_over_at: self.hand_over_at,
            ..BigSolver::default()
        }
    }
}

impl BigSolver {
    /// A solver with empty stacks.
    pub fn new() -> Self {
        BigSolver::default()
    }

    /// A solver whose depth-first search hands a puzzle over to clause learning (a SAT
    /// solver on the root's candidates) after `guesses` guesses without a second
    /// solution, on every size (0: clause learning from the root). By default 25×25
    /// searches hand over after [`HAND_OVER_25`] guesses, the dancing links of grids past
    /// 25×25 after [`HAND_OVER_LARGE`], and 4×4 to 16×16 searches never.
    pub fn handing_over_at(guesses: u64) -> Self {
        BigSolver {
            hand_over_at: Some(guesses),
            ..BigSolver::default()
        }
    }

    /// Counts the solutions of `grid` up to `limit` (at least 1), keeping the first.
    /// `guesses` counts the digits put in cells that had two or more candidates left,
    /// and so does `meter`, which stops the search when its budget is spent.
    pub fn solve(&mut self, grid: &Grid, limit: u64, meter: &mut Meter) -> SearchResult {
        if grid.box_size() > LARGEST_BOX {
            return self.solve_large(grid, limit, meter);
        }
        let mut values = grid.cells().to_vec();
        let found = self.search(grid.box_size(), &mut values, limit, meter);
        SearchResult {
            solutions: found.solutions,
            first_solution: (found.solutions > 0)
                .then(|| Grid::from_cells(values))
                .flatten(),
            guesses: found.guesses,
            stopped: found.stopped,
        }
    }

    /// [`solve`](Self::solve) of a grid past 25×25, by dancing links and then, for the
    /// puzzles they find hard, clause learning.
    #[cold]
    fn solve_large(&mut self, grid: &Grid, limit: u64, meter: &mut Meter) -> SearchResult {
        let hand_over_at = self.hand_over_at.unwrap_or(HAND_OVER_LARGE);
        let dlx = crate::sudoku::dlx::solver_for(&mut self.large, grid.box_size());
        large::solve(dlx, grid, limit, hand_over_at, meter)
    }

    /// [`solve`](Self::solve) of a 16×16 or 25×25 puzzle given as its line of `N`
    /// characters (`0` or `.` for a blank, `1`-`9` and `A`-`P` or `a`-`p` for the
    /// digits, as [`Grid::from_line`] reads them), writing the first solution's line
    /// into `solution`, as [`Grid::push_line_bytes`] would: the grid, its cells on the
    /// heap, is neither built nor read back, which was a tenth of an easy 16×16 record's
    /// time. `None`, with nothing searched, for another length or a character that is
    /// not a digit of the size.
    pub fn solve_line<const N: usize>(
        &mut self,
        line: &[u8; N],
        limit: u64,
        meter: &mut Meter,
        solution: &mut [u8; N],
    ) -> Option<LineResult> {
        let box_size = match N {
            256 => 4,
            625 => 5,
            _ => return None,
        };
        let side = box_size * box_size;
        let mut largest = 0;
        for (value, &byte) in solution.iter_mut().zip(line) {
            *value = cell_value(byte);
            largest = largest.max(*value);
        }
        if usize::from(largest) > side {
            return None;
        }
        let found = self.search(box_size, solution, limit, meter);
        if found.solutions > 0 {
            for value in solution.iter_mut() {
                *value = digit_byte(*value);
            }
        }
        Some(LineResult {
            solutions: found.solutions,
            guesses: found.guesses,
            stopped: found.stopped,
        })
    }

    /// Searches the grid of boxes `box_size` whose cells `values` holds (row-major, 0 for
    /// a blank), writing the first solution's values over them if one is found.
    fn search(
        &mut self,
        box_size: usize,
        values: &mut [u8],
        limit: u64,
        meter: &mut Meter,
    ) -> LineResult {
        #[cfg(target_arch = "x86_64")]
        if crate::sudoku::fast::has_modern_features() {
            // SAFETY: the CPU has every feature `search_modern` is compiled for.
            return unsafe { self.search_modern(box_size, values, limit, meter) };
        }
        self.search_portable(box_size, values, limit, meter)
    }

    /// [`search`](Self::search) compiled for the x86 features of the last decade
    /// (population count, trailing zeros, bit extraction, AVX2), with the whole search
    /// inlined into it: 16 to 24% fewer instructions than the portable build on the
    /// 16×16 and 25×25 corpora (docs/performance.md).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
    fn search_modern(
        &mut self,
        box_size: usize,
        values: &mut [u8],
        limit: u64,
        meter: &mut Meter,
    ) -> LineResult {
        self.search_portable(box_size, values, limit, meter)
    }

    /// [`search`](Self::search) for any CPU.
    #[inline(always)]
    fn search_portable(
        &mut self,
        box_size: usize,
        values: &mut [u8],
        limit: u64,
        meter: &mut Meter,
    ) -> LineResult {
        let limit = limit.max(1);
        let queue = &mut self.queue;
        let hand_over_at = self.hand_over_at.unwrap_or(match box_size {
            5 => HAND_OVER_25,
            _ => u64::MAX,
        });
        let search = Search {
            box_size,
            limit,
            hand_over_at,
        };
        match box_size {
            2 => {
                let root = Node::from_values(values, queue);
                search.from(root, values, meter, &mut self.stack2, queue)
            }
            3 => {
                let root = Node::from_values(values, queue);
                search.from(root, values, meter, &mut self.stack3, queue)
            }
            4 => {
                let root = Node::from_values(values, queue);
                search.from(root, values, meter, &mut self.stack4, queue)
            }
            _ => {
                debug_assert_eq!(box_size, Box5::BOX, "grids have boxes of 2 to 5");
                let root =
                    Planes25::from_values(values).and_then(|planes| planes.into_board(queue));
                search.from(root, values, meter, &mut self.stack5, queue)
            }
        }
    }
}

/// One puzzle's search: its size, how many solutions to count, and when to hand over.
struct Search {
    box_size: usize,
    limit: u64,
    hand_over_at: u64,
}

impl Search {
    /// Searches below `root` (the clues of `values`, propagated) and writes the first
    /// solution's values over `values` if one is found. A search handed over goes on
    /// in [`conflicts`] from the clues, the solution found so far (if any) ruled out.
    #[inline(always)]
    fn from<B: Node>(
        &self,
        root: Result<B, Contradiction>,
        values: &mut [u8],
        meter: &mut Meter,
        stack: &mut Vec<Frame<B>>,
        queue: &mut Queue,
    ) -> LineResult {
        let found = search::solve(root, self.limit, self.hand_over_at, meter, stack, queue);
        let mut result = LineResult {
            solutions: found.solutions,
            guesses: found.guesses,
            stopped: found.stopped,
        };
        if found.handed_over {
            self.learn(&mut result, found.first, values, meter, queue);
        } else if let Some(board) = &found.first {
            board.write_values(values);
        }
        result
    }

    /// Finishes a search handed over with at most one solution (`first`) by clause
    /// learning from the clues in `values`, adding what it finds to `result`.
    #[cold]
    #[inline(never)]
    fn learn<B: Node>(
        &self,
        result: &mut LineResult,
        first: Option<B>,
        values: &mut [u8],
        meter: &mut Meter,
        queue: &mut Queue,
    ) {
        let known = first.map(|board| {
            let mut known = vec![0; values.len()];
            board.write_values(&mut known);
            known
        });
        // The clues propagated again (the search's root is gone): a contradiction here
        // means there is no solution, and none was found.
        if let Ok(root) = B::from_values(values, queue) {
            let candidates: Vec<u128> =
                root.candidate_masks().into_iter().map(u128::from).collect();
            let learned = conflicts::solve(
                self.box_size,
                &candidates,
                known.as_deref(),
                self.limit - result.solutions,
                meter,
                values,
            );
            result.solutions += learned.solutions;
            result.guesses += learned.conflicts;
            result.stopped = learned.stopped;
        }
        if let Some(known) = known {
            values.copy_from_slice(&known);
        }
    }
}

#[cfg(test)]
mod tests;
