//! Grids past 25×25 (36×36 to 100×100), whose digits do not fit the board's 32-bit
//! masks: dancing links first, and clause learning for the puzzles it finds hard.
//!
//! The exact-cover search settles most such puzzles in a few guesses, but it learns
//! nothing from a failed branch, and on a puzzle with few clues it can refute the same
//! clash under millions of guesses. After [`HAND_OVER_LARGE`](super::HAND_OVER_LARGE)
//! guesses without a second solution the puzzle goes to [`conflicts`] from its clues'
//! candidates, the solution found so far (if any) ruled out, unless its formula would
//! be too large ([`MAX_PAIR_CLAUSES`]): a grid with few clues, whose formula grows as
//! the side to the fourth power, stays with dancing links.

use super::conflicts;
use crate::budget::Meter;
use crate::sudoku::{DlxSolver, Grid, SearchResult};

/// The largest formula handed to clause learning, in clauses per pair ("at most one"):
/// about 250 MB with CaDiCaL's copy, near a 100×100 grid's exact-cover matrix. The hard
/// 36×36 puzzles of 700 clues have about a tenth of it; an empty 36×36 grid, 3.3 times
/// as much.
const MAX_PAIR_CLAUSES: u64 = 1_000_000;

/// Counts the solutions of `grid` up to `limit` (at least 1) with `dlx` (built for its
/// size), handing over to clause learning after `hand_over_at` guesses; `meter` counts
/// the guesses, then the learned clauses.
pub(super) fn solve(
    dlx: &mut DlxSolver,
    grid: &Grid,
    limit: u64,
    hand_over_at: u64,
    meter: &mut Meter,
) -> SearchResult {
    let (mut result, paused) =
        meter.pausing_after(hand_over_at, |trial| dlx.solve(grid, limit, trial));
    if !paused {
        return result;
    }
    let candidates = clue_candidates(grid);
    let too_large = conflicts::pair_clause_count(grid.box_size(), &candidates) > MAX_PAIR_CLAUSES;
    if result.solutions > 1 || too_large {
        // Solutions keep coming (a limit over 2): counting many is what dancing links do
        // well, and clause learning could only rule them out one by one. Or the formula
        // would not fit in memory.
        let guessed = result.guesses;
        result = dlx.solve(grid, limit, meter);
        result.guesses += guessed;
        return result;
    }
    let known = result.first_solution.as_ref().map(|g| g.cells().to_vec());
    let mut values = vec![0; grid.cells().len()];
    let learned = conflicts::solve(
        grid.box_size(),
        &candidates,
        known.as_deref(),
        limit - result.solutions,
        meter,
        &mut values,
    );
    if known.is_none() && learned.solutions > 0 {
        result.first_solution = Grid::from_cells(values);
    }
    result.solutions += learned.solutions;
    result.guesses += learned.conflicts;
    result.stopped = learned.stopped;
    result
}

/// Each cell's candidates given the clues alone (row-major, bit `d - 1` for digit `d`):
/// a clue's own digit, or the digits none of an open cell's peers holds.
fn clue_candidates(grid: &Grid) -> Vec<u128> {
    let (side, box_size) = (grid.side(), grid.box_size());
    let box_of = |cell: usize| (cell / side / box_size) * box_size + cell % side / box_size;
    let (mut rows, mut columns, mut boxes) = (vec![0; side], vec![0; side], vec![0; side]);
    for (cell, &value) in grid.cells().iter().enumerate() {
        if value != 0 {
            let bit = 1u128 << (value - 1);
            rows[cell / side] |= bit;
            columns[cell % side] |= bit;
            boxes[box_of(cell)] |= bit;
        }
    }
    let every_digit = u128::MAX >> (128 - side);
    grid.cells()
        .iter()
        .enumerate()
        .map(|(cell, &value)| match value {
            0 => every_digit & !(rows[cell / side] | columns[cell % side] | boxes[box_of(cell)]),
            _ => 1 << (value - 1),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::Budget;

    #[test]
    fn an_empty_grid_has_a_pair_per_two_digits_of_a_cell_and_two_places_of_a_digit() {
        let pairs = |n: u64| n * (n - 1) / 2;
        for box_size in [2, 3, 6] {
            let side = (box_size * box_size) as u64;
            let empty = clue_candidates(&Grid::empty(box_size).unwrap());
            assert_eq!(
                conflicts::pair_clause_count(box_size, &empty),
                side * side * pairs(side) + 3 * side * side * pairs(side)
            );
        }
        // A full grid has none.
        let mut full = Grid::empty(2).unwrap();
        for (cell, digit) in [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1]
            .iter()
            .enumerate()
        {
            full.set(cell / 4, cell % 4, *digit);
        }
        assert_eq!(conflicts::pair_clause_count(2, &clue_candidates(&full)), 0);
    }

    #[test]
    fn a_grid_with_few_clues_stays_with_dancing_links() {
        // Handed over at the first guess, an empty 64×64 grid's formula would take tens of
        // gigabytes: dancing links go on with it, within the budget.
        let grid = Grid::empty(8).unwrap();
        let mut dlx = DlxSolver::new(8);
        let budget = Budget {
            timeout: None,
            max_nodes: Some(2_000),
        };
        let result = solve(&mut dlx, &grid, 2, 0, &mut Meter::start(budget));
        if result.stopped.is_none() {
            assert_eq!(result.solutions, 2);
        }
        assert!(result.guesses <= 2_001, "{}", result.guesses);
        if let Some(solution) = &result.first_solution {
            crate::sudoku::check_solution(&grid, solution).unwrap();
        }
    }

    #[test]
    fn clue_candidates_leave_out_the_peers_digits() {
        let mut grid = Grid::empty(6).unwrap();
        grid.set(0, 0, 36);
        grid.set(5, 7, 2);
        grid.set(35, 35, 1);
        let candidates = clue_candidates(&grid);
        let every_digit = (1u128 << 36) - 1;
        assert_eq!(candidates[0], 1 << 35);
        assert_eq!(candidates[1], every_digit & !(1 << 35));
        // Row 5 holds the 2, and box 0 (rows 0-5, columns 0-5) the 36.
        assert_eq!(candidates[5 * 36], every_digit & !(1 << 35) & !(1 << 1));
        // Column 35 holds the 1, row 0 the 36.
        assert_eq!(candidates[35], every_digit & !(1 << 35) & !1);
        assert_eq!(candidates[35 * 36 + 35], 1);
        assert_eq!(candidates[20 * 36 + 20], every_digit);
    }
}
