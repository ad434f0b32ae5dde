//! The classic cell-by-cell backtracking solver, the baseline the others are compared with.
//!
//! It is the textbook method exactly: list the empty cells in row-major order, try the
//! digits 1, 2, … in each, keep a digit if its row, column and box do not already hold it,
//! and step back to the previous cell when no digit fits. The row, column and box checks are
//! bit masks, which makes each check cheap without changing which digits are tried or in
//! what order: the search tree is the textbook one. The masks are 32-bit words up to
//! 25×25 grids and 128-bit words beyond (up to 100×100).

use std::ops::{BitAnd, BitOr, BitOrAssign, Not, Shl};

use super::{Grid, SearchResult};
use crate::budget::Meter;

/// A mask of digits, bit `d` for digit `d`.
trait Mask:
    Copy
    + Default
    + PartialEq
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitOrAssign
    + Not<Output = Self>
    + Shl<usize, Output = Self>
    + From<u8>
{
}

impl Mask for u32 {}
impl Mask for u128 {}

/// Counts the solutions of `grid` up to `limit` (at least 1), keeping the first.
/// `guesses` counts every digit placed, and so does `meter`, which stops the search when
/// its budget is spent.
pub fn solve(grid: &Grid, limit: u64, meter: &mut Meter) -> SearchResult {
    if grid.side() < 32 {
        solve_with::<u32>(grid, limit, meter)
    } else {
        solve_with::<u128>(grid, limit, meter)
    }
}

/// [`solve`] with masks of type `M`, which has a bit for every digit of `grid`.
fn solve_with<M: Mask>(grid: &Grid, limit: u64, meter: &mut Meter) -> SearchResult {
    let one = M::from(1);
    let side = grid.side();
    let n = grid.box_size();
    let mut result = SearchResult::default();
    if grid.find_conflict().is_some() {
        return result;
    }
    let mut rows = vec![M::default(); side];
    let mut cols = vec![M::default(); side];
    let mut boxes = vec![M::default(); side];
    let mut empties = Vec::new();
    for row in 0..side {
        for col in 0..side {
            let value = grid.get(row, col);
            if value == 0 {
                empties.push((row, col, (row / n) * n + col / n));
            } else {
                let bit = one << usize::from(value);
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
            let bit = !(one << usize::from(previous));
            rows[row] = rows[row] & bit;
            cols[col] = cols[col] & bit;
            boxes[b] = boxes[b] & bit;
        }
        let used = rows[row] | cols[col] | boxes[b];
        let next = ((previous + 1) as usize..=side).find(|&d| used & (one << d) == M::default());
        match next {
            Some(digit) => {
                let bit = one << digit;
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
