//! The depth-first search over [`Board`]s, with binary branching: a guess puts a digit in
//! a cell on a copy, and once that copy is exhausted the digit leaves the cell in the
//! original, which is propagated again before the next guess.

use super::board::{Board, Contradiction, Queue};
use super::shape::Shape;
use crate::budget::Meter;
use crate::sudoku::{Grid, SearchResult};

/// A board on the search stack, and the change it awaits before being propagated.
#[derive(Clone, Copy)]
pub(super) struct Frame<S: Shape> {
    board: Board<S>,
    /// `(cell, digit mask, whether the digit is put in or taken out)`.
    pending: Option<(usize, u32, bool)>,
}

/// Counts the solutions of `grid` up to `limit` (at least 1), keeping the first, with
/// `stack` and `queue` as scratch space.
pub(super) fn solve<S: Shape>(
    grid: &Grid,
    limit: u64,
    meter: &mut Meter,
    stack: &mut Vec<Frame<S>>,
    queue: &mut Queue,
) -> SearchResult {
    let mut result = SearchResult::default();
    let Ok(board) = Board::<S>::from_grid(grid, queue) else {
        return result;
    };
    stack.clear();
    stack.push(Frame {
        board,
        pending: None,
    });
    // The meter is told the guesses in bulk, when `result.guesses` reaches `check_at`
    // (never without a budget), so an unbudgeted guess costs one comparison.
    let mut check_at = meter.nodes_until_check();
    let mut told = 0;
    let mut weights = [1u32; 75];
    while let Some(top) = stack.last_mut() {
        if let Some((cell, digit, put)) = top.pending.take() {
            queue.clear();
            let propagated = if put {
                top.board.assign(cell, digit, queue);
                top.board.propagate(queue)
            } else {
                top.board
                    .remove(cell, digit, queue)
                    .and_then(|()| top.board.propagate(queue))
            };
            if let Err(Contradiction(units)) = propagated {
                let mut units = units;
                while units != 0 {
                    let weight = &mut weights[units.trailing_zeros() as usize];
                    *weight = weight.saturating_add(1);
                    units &= units - 1;
                }
                stack.pop();
                continue;
            }
        }
        if top.board.is_solved() {
            result.solutions += 1;
            if result.first_solution.is_none() {
                result.first_solution = Grid::from_cells(top.board.values());
            }
            if result.solutions >= limit {
                break;
            }
            stack.pop();
            continue;
        }
        result.guesses += 1;
        if result.guesses >= check_at {
            if meter.spend_many(result.guesses - told) {
                result.stopped = meter.over();
                break;
            }
            told = result.guesses;
            check_at = result.guesses.saturating_add(meter.nodes_until_check());
        }
        let cell = top.board.guess_cell(&weights);
        let candidates = top.board.candidates(cell);
        let digit = candidates & candidates.wrapping_neg();
        top.pending = Some((cell, digit, false));
        let board = top.board;
        stack.push(Frame {
            board,
            pending: Some((cell, digit, true)),
        });
    }
    result
}
