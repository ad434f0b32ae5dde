//! The classic cell-by-cell backtracking solver, the baseline the others are compared with.
//!
//! It is the textbook method exactly: list the empty cells in row-major order, try the
//! digits 1, 2, … in each, keep a digit if its row, column and box do not already hold it,
//! and step back to the previous cell when no digit fits. The row, column and box checks are
//! bit masks, which makes each check cheap without changing which digits are tried or in
//! what order: the search tree is the textbook one.

use super::{Grid, SearchResult};
use crate::budget::Meter;

/// Counts the solutions of `grid` up to `limit` (at least 1), keeping the first.
/// `guesses` counts every digit placed, and so does `meter`, which stops the search when
/// its budget is spent.
pub fn solve(grid: &Grid, limit: u64, meter: &mut Meter) -> SearchResult {
    let side = grid.side();
    let n = grid.box_size();
    let mut result = SearchResult::default();
    if grid.find_conflict().is_some() {
        return result;
    }
    let mut rows = vec![0u32; side];
    let mut cols = vec![0u32; side];
    let mut boxes = vec![0u32; side];
    let mut empties = Vec::new();
    for row in 0..side {
        for col in 0..side {
            let value = grid.get(row, col);
            if value == 0 {
                empties.push((row, col, (row / n) * n + col / n));
            } else {
                let bit = 1u32 << value;
                rows[row] |= bit;
                cols[col] |= bit;
                boxes[(row / n) * n + col / n] |= bit;
            }
        }
    }
    // `digits[k]` is the digit currently placed in empty cell k (0: none yet).
    let mut digits = vec![0u8; empties.len()];
    let mut k = 0usize;
    loop {
        if k == empties.len() {
            result.solutions += 1;
            if result.first_solution.is_none() {
                let mut solution = grid.clone();
                for (&(row, col, _), &digit) in empties.iter().zip(&digits) {
                    solution.set(row, col, digit);
                }
                result.first_solution = Some(solution);
            }
            if result.solutions >= limit || k == 0 {
                break;
            }
            k -= 1;
        }
        let (row, col, b) = empties[k];
        let previous = digits[k];
        if previous != 0 {
            let bit = !(1u32 << previous);
            rows[row] &= bit;
            cols[col] &= bit;
            boxes[b] &= bit;
        }
        let used = rows[row] | cols[col] | boxes[b];
        let next = ((previous + 1) as usize..=side).find(|&d| used & (1 << d) == 0);
        match next {
            Some(digit) => {
                let bit = 1u32 << digit;
                rows[row] |= bit;
                cols[col] |= bit;
                boxes[b] |= bit;
                digits[k] = digit as u8;
                if meter.spend() {
                    // The digit that found the budget spent is not counted as placed.
                    result.stopped = meter.over();
                    break;
                }
                result.guesses += 1;
                k += 1;
            }
            None => {
                digits[k] = 0;
                if k == 0 {
                    break;
                }
                k -= 1;
            }
        }
    }
    result
}
