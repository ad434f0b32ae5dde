//! The depth-first search over [`Board`]s, with binary branching: a guess puts a digit in
//! a cell on a copy, and once that copy is exhausted the digit leaves the cell in the
//! original, which is propagated again before the next guess.

use super::board::{Contradiction, Queue};
use crate::budget::Meter;
use crate::sudoku::{Grid, SearchResult};

/// A search state: candidates propagated to a fixed point, copied whole on a guess.
pub(super) trait Node: Copy {
    /// The state of `grid`'s clues, propagated; `Err` if they contradict each other.
    fn from_grid(grid: &Grid, queue: &mut Queue) -> Result<Self, Contradiction>;
    /// Puts the digit of mask `digit` in `cell`, and propagates.
    fn put(&mut self, cell: usize, digit: u32, queue: &mut Queue) -> Result<(), Contradiction>;
    /// Takes the digit of mask `digit` out of `cell`'s candidates, and propagates.
    fn take_out(&mut self, cell: usize, digit: u32, queue: &mut Queue)
        -> Result<(), Contradiction>;
    /// Whether every cell is placed.
    fn is_solved(&self) -> bool;
    /// The solved grid's cell values (1-based digits), row-major.
    fn values(&self) -> Vec<u8>;
    /// The cell to guess on and the digit (as a mask) to try first: the open cell with
    /// the fewest candidates per weight of its row, column and box (`weights[unit]`:
    /// contradictions met in the unit so far, plus one), so that the search goes first
    /// where it failed most; the first such cell, and its lowest digit.
    fn guess(&self, weights: &[u32]) -> (usize, u32);
}

/// A board on the search stack, and the change it awaits before being propagated.
#[derive(Clone, Copy)]
pub(super) struct Frame<B: Node> {
    board: B,
    /// `(cell, digit mask, whether the digit is put in or taken out)`.
    pending: Option<(usize, u32, bool)>,
}

/// The units' weights halve (rounding up, so each stays at least 1) after every this
/// many contradictions, so that the guess choice follows where the search fails now
/// rather than where it failed long ago. Only long searches reach it: the generated
/// 16×16 files' guesses change by 1% at most; 210 hard generated 25×25 puzzles take 11%
/// fewer, and Gecode's 25×25 set has 5 puzzles proved within 600,000 guesses instead
/// of 3 (docs/performance.md; halving every 50 to 4,000 contradictions was measured).
const HALVE_WEIGHTS_EVERY: u64 = 1_000;

/// Counts the solutions below `root` (a grid's clues, propagated; `Err` if they
/// contradict each other) up to `limit` (at least 1), keeping the first, with `stack` and
/// `queue` as scratch space.
#[inline(always)]
pub(super) fn solve<B: Node>(
    root: Result<B, Contradiction>,
    limit: u64,
    meter: &mut Meter,
    stack: &mut Vec<Frame<B>>,
    queue: &mut Queue,
) -> SearchResult {
    let mut result = SearchResult::default();
    let Ok(board) = root else {
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
    let mut contradictions = 0u64;
    while let Some(top) = stack.last_mut() {
        if let Some((cell, digit, put)) = top.pending.take() {
            let propagated = if put {
                top.board.put(cell, digit, queue)
            } else {
                top.board.take_out(cell, digit, queue)
            };
            if let Err(Contradiction(units)) = propagated {
                let mut units = units;
                while units != 0 {
                    let weight = &mut weights[units.trailing_zeros() as usize];
                    *weight = weight.saturating_add(1);
                    units &= units - 1;
                }
                contradictions += 1;
                if contradictions % HALVE_WEIGHTS_EVERY == 0 {
                    for weight in &mut weights {
                        *weight = weight.div_ceil(2);
                    }
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
        let (cell, digit) = top.board.guess(&weights);
        top.pending = Some((cell, digit, false));
        let board = top.board;
        stack.push(Frame {
            board,
            pending: Some((cell, digit, true)),
        });
    }
    result
}
