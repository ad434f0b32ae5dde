//! The depth-first search over [`Board`]s, with binary branching: a guess puts a digit in
//! a cell on a copy, and once that copy is exhausted the digit leaves the cell in the
//! original, which is propagated again before the next guess.

use super::board::{Contradiction, Queue};
use crate::budget::{Meter, OverBudget};

/// A search state: candidates propagated to a fixed point, copied whole on a guess.
pub(super) trait Node: Copy {
    /// The state of a grid's clues, propagated; `Err` if they contradict each other.
    /// `values` holds the grid's cells row-major, 0 for a blank and 1 to the side for a
    /// clue.
    fn from_values(values: &[u8], queue: &mut Queue) -> Result<Self, Contradiction>;
    /// Puts the digit of mask `digit` in `cell`, and propagates.
    fn put(&mut self, cell: usize, digit: u32, queue: &mut Queue) -> Result<(), Contradiction>;
    /// Takes the digit of mask `digit` out of `cell`'s candidates, and propagates.
    fn take_out(&mut self, cell: usize, digit: u32, queue: &mut Queue)
        -> Result<(), Contradiction>;
    /// Whether every cell is placed.
    fn is_solved(&self) -> bool;
    /// Writes the solved grid's cell values (1-based digits) into `values`, row-major.
    fn write_values(&self, values: &mut [u8]);
    /// The cell to guess on and the digit (as a mask) to try first: the open cell with
    /// the fewest candidates per weight of its row, column and box (`weights[unit]`:
    /// contradictions met in the unit so far, plus one), so that the search goes first
    /// where it failed most; the first such cell, and its lowest digit.
    fn guess(&self, weights: &[u32]) -> (usize, u32);
    /// Whether the search uses last-conflict reasoning ([`choose`]).
    const LAST_CONFLICT: bool;
    /// The digit (as a mask) to try first in `cell` if the cell is still open: its
    /// lowest, as [`guess`](Node::guess) would.
    fn open_digit(&self, cell: usize) -> Option<u32>;
    /// Each cell's candidates as a mask (bit `d - 1` for digit `d`; the digit alone once
    /// placed), row-major.
    fn candidate_masks(&self) -> Vec<u32>;
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

/// What a search found: the board of its first solution is kept whole, so that the
/// caller writes it as a grid or straight into a line.
pub(super) struct Searched<B> {
    /// Solutions found, up to the limit.
    pub(super) solutions: u64,
    /// Digits put in cells that had two or more candidates left.
    pub(super) guesses: u64,
    /// The budget the search stopped at before it was done.
    pub(super) stopped: Option<OverBudget>,
    /// The first solution's board.
    pub(super) first: Option<B>,
    /// Whether the search gave up at its hand-over point, with at most one solution
    /// found, for [`conflicts`](super::conflicts) to finish.
    pub(super) handed_over: bool,
}

/// The cell to guess on and the digit to try first. With last-conflict reasoning
/// (Lecoutre et al., 2009), the cell whose digit last failed to propagate, put in or
/// taken out, is chosen again for as long as it stays open, before the dom/wdeg choice:
/// after backtracking, the search tries that cell at once, so if the choices undone were
/// not the conflict's cause it fails again right away, rather than below new choices
/// that have nothing to do with it. On 25×25 it
/// took 8% fewer guesses on the five of Gecode's puzzles proved within 600,000, 5% and
/// 17% on two generated hard sets (docs/performance.md); 16×16 goes without it, being
/// unmeasured. Remembering only the failed puts did worse (3 of Gecode's proved, not 5).
#[inline(always)]
fn choose<B: Node>(board: &B, weights: &[u32], last_conflict: &mut Option<usize>) -> (usize, u32) {
    if B::LAST_CONFLICT {
        if let Some(cell) = *last_conflict {
            if let Some(digit) = board.open_digit(cell) {
                return (cell, digit);
            }
            *last_conflict = None;
        }
    }
    board.guess(weights)
}

/// Counts the solutions below `root` (a grid's clues, propagated; `Err` if they
/// contradict each other) up to `limit` (at least 1), keeping the first, with `stack` and
/// `queue` as scratch space. Gives up after `hand_over_at` guesses unless it has found
/// two solutions by then.
#[inline(always)]
pub(super) fn solve<B: Node>(
    root: Result<B, Contradiction>,
    limit: u64,
    mut hand_over_at: u64,
    meter: &mut Meter,
    stack: &mut Vec<Frame<B>>,
    queue: &mut Queue,
) -> Searched<B> {
    let mut result = Searched {
        solutions: 0,
        guesses: 0,
        stopped: None,
        first: None,
        handed_over: false,
    };
    let Ok(board) = root else {
        return result;
    };
    stack.clear();
    stack.push(Frame {
        board,
        pending: None,
    });
    // The meter is told the guesses in bulk, when `result.guesses` reaches `check_at`
    // (never without a budget), so an unbudgeted guess costs one comparison; the
    // hand-over point is looked at there too.
    let mut check_at = meter.nodes_until_check().min(hand_over_at);
    let mut told = 0;
    let mut weights = [1u32; 75];
    let mut contradictions = 0u64;
    // The cell whose change failed last, for `choose`.
    let mut last_conflict = None;
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
                last_conflict = Some(cell);
                if contradictions.is_multiple_of(HALVE_WEIGHTS_EVERY) {
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
            if result.first.is_none() {
                result.first = Some(top.board);
            } else {
                // Two solutions: the search counts on to the limit, being good at that.
                hand_over_at = u64::MAX;
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
                // The guess that found the budget spent is not made: not counted either.
                result.guesses -= 1;
                break;
            }
            told = result.guesses;
            if result.guesses >= hand_over_at {
                result.handed_over = true;
                break;
            }
            check_at = result
                .guesses
                .saturating_add(meter.nodes_until_check())
                .min(hand_over_at);
        }
        let (cell, digit) = choose(&top.board, &weights, &mut last_conflict);
        top.pending = Some((cell, digit, false));
        let board = top.board;
        stack.push(Frame {
            board,
            pending: Some((cell, digit, true)),
        });
    }
    result
}
