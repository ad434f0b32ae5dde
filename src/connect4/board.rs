//! The Connect Four bitboard: column-major, one spare bit above each column, two masks.
//!
//! Bit `col × (height + 1) + row` is the cell in column `col` (from the left) and row `row`
//! (from the bottom). `stones` has a bit for every stone; `own` for the stones of the
//! player who moved last. The spare bit above each column keeps lines from wrapping from
//! one column into the next, so "four in a row" is two shifts and two ANDs per direction.
//! The mask type is `u64` when the board fits (7×6, 8×7, …) and `u128` beyond: the caller
//! picks it once per run, not per move.

use std::fmt::Debug;
use std::ops::{BitAnd, BitOr, BitXor, Shl, Shr};

use smallvec::SmallVec;

/// The integer types a board can live in.
pub trait Mask:
    Copy
    + Eq
    + Debug
    + Default
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
{
    /// Bits in the type.
    const BITS: u32;
    /// The value 1.
    const ONE: Self;
    /// Whether no bit is set.
    fn is_zero(self) -> bool;
    /// The same bits in a `u128`.
    fn to_u128(self) -> u128;
}

impl Mask for u64 {
    const BITS: u32 = 64;
    const ONE: Self = 1;
    fn is_zero(self) -> bool {
        self == 0
    }
    fn to_u128(self) -> u128 {
        self.into()
    }
}

impl Mask for u128 {
    const BITS: u32 = 128;
    const ONE: Self = 1;
    fn is_zero(self) -> bool {
        self == 0
    }
    fn to_u128(self) -> u128 {
        self
    }
}

/// Smallest board side.
pub const MIN_SIDE: usize = 4;
/// Largest board side.
pub const MAX_SIDE: usize = 16;

/// A board size that is not supported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum BoardSizeError {
    /// A side outside 4 to 16.
    #[error("a {width}×{height} board is not supported: width and height go from 4 to 16")]
    Side {
        /// Columns.
        width: usize,
        /// Rows.
        height: usize,
    },
    /// More than 128 bits of bitboard.
    #[error("a {width}×{height} board needs {bits} bits (width × (height + 1)); at most 128 are supported")]
    Bits {
        /// Columns.
        width: usize,
        /// Rows.
        height: usize,
        /// Bits it needs.
        bits: usize,
    },
}

/// Whether a `width × height` board is supported, and whether it fits in a `u64`.
pub fn board_fits(width: usize, height: usize) -> Result<bool, BoardSizeError> {
    if !(MIN_SIDE..=MAX_SIDE).contains(&width) || !(MIN_SIDE..=MAX_SIDE).contains(&height) {
        return Err(BoardSizeError::Side { width, height });
    }
    let bits = width * (height + 1);
    if bits > 128 {
        return Err(BoardSizeError::Bits {
            width,
            height,
            bits,
        });
    }
    Ok(bits <= 64)
}

/// A position: who has which cells.
#[derive(Debug, Clone)]
pub struct Board<M: Mask> {
    width: usize,
    height: usize,
    stones: M,
    /// Stones of the player who made the last move.
    own: M,
    /// Stones in each column. Indexed with `col % MAX_SIDE`, which is `col` on every
    /// supported board and lets the compiler drop the bounds check on the hot path.
    column_height: [u8; MAX_SIDE],
    moves: usize,
    /// Bits per column (`height + 1`) and cells on the board, kept to save work per move.
    stride: u32,
    cells: usize,
}

/// What a move did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveResult {
    /// The stone was placed; the game goes on.
    Placed,
    /// The stone completed four (or more) in a row.
    Win,
    /// The stone filled the board without a four.
    Draw,
}

impl<M: Mask> Board<M> {
    /// An empty board. The size must have been checked with [`board_fits`].
    pub fn new(width: usize, height: usize) -> Self {
        debug_assert!(width * (height + 1) <= M::BITS as usize);
        Board {
            width,
            height,
            stones: M::default(),
            own: M::default(),
            column_height: [0; MAX_SIDE],
            moves: 0,
            stride: height as u32 + 1,
            cells: width * height,
        }
    }

    /// Columns.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Rows.
    pub fn height(&self) -> usize {
        self.height
    }

    /// Whether column `col` (0-based, inside the board) has no room left.
    #[inline]
    pub fn is_full(&self, col: usize) -> bool {
        self.column_height[col % MAX_SIDE] as usize == self.height
    }

    /// Drops a stone of the player to move into column `col`, which must be inside the
    /// board and not full.
    #[inline]
    pub fn play(&mut self, col: usize) -> MoveResult {
        let row = self.column_height[col % MAX_SIDE] as u32;
        let bit = M::ONE << (col as u32 * self.stride + row);
        // The mover's stones are the others' stones before this move.
        self.own = self.own ^ self.stones;
        self.own = self.own | bit;
        self.stones = self.stones | bit;
        self.column_height[col % MAX_SIDE] += 1;
        self.moves += 1;
        // A player has four stones from the seventh move on: no line to look for before.
        if self.moves >= 7 && self.has_four(self.own) {
            MoveResult::Win
        } else if self.moves == self.cells {
            MoveResult::Draw
        } else {
            MoveResult::Placed
        }
    }

    /// Whether `stones` hold four in a row in any direction: per direction, pairs of
    /// neighbours, then pairs of pairs.
    #[inline]
    fn has_four(&self, stones: M) -> bool {
        let s = self.stride;
        // Vertical, horizontal, and the two diagonals.
        [1, s, s - 1, s + 1].into_iter().any(|shift| {
            let pairs = stones & (stones >> shift);
            !(pairs & (pairs >> (2 * shift))).is_zero()
        })
    }

    /// The stones of the player who moved last.
    pub fn last_mover_stones(&self) -> M {
        self.own
    }

    /// The row of the top stone in column `col` (which must hold one).
    pub fn top_row(&self, col: usize) -> usize {
        self.column_height[col % MAX_SIDE] as usize - 1
    }
}

/// A line of stones: its first cell (column, row), the step from one cell to the next,
/// and its length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineSpan {
    /// The first cell, (column, row) from the bottom left.
    pub start: (usize, usize),
    /// The step along the line, (columns, rows).
    pub step: (isize, isize),
    /// Cells in the line.
    pub len: usize,
}

impl LineSpan {
    /// The line's cells, (column, row), in order.
    pub fn cells(&self) -> impl Iterator<Item = (usize, usize)> {
        let LineSpan { start, step, len } = *self;
        (0..len as isize).map(move |i| {
            let col = start.0 as isize + i * step.0;
            let row = start.1 as isize + i * step.1;
            (col as usize, row as usize)
        })
    }
}

/// Every line of four or more of `stones` (a board mask of a board `height` rows high, as
/// a `u128`) through the cell (`col`, `row`), in the order of [`lines_through`], without
/// allocating (a win is written for every game of an archive).
pub fn line_spans_through(
    stones: u128,
    width: usize,
    height: usize,
    col: usize,
    row: usize,
) -> SmallVec<[LineSpan; 4]> {
    let has = |c: isize, r: isize| {
        c >= 0
            && r >= 0
            && c < width as isize
            && r < height as isize
            && stones >> (c as usize * (height + 1) + r as usize) & 1 == 1
    };
    let mut spans = SmallVec::new();
    for (dc, dr) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
        // Walk back to the start of the line, then forward to its end.
        let (mut c, mut r) = (col as isize, row as isize);
        while has(c - dc, r - dr) {
            c -= dc;
            r -= dr;
        }
        let start = (c as usize, r as usize);
        let mut len = 0;
        while has(c, r) {
            len += 1;
            c += dc;
            r += dr;
        }
        if len >= 4 {
            spans.push(LineSpan {
                start,
                step: (dc, dr),
                len,
            });
        }
    }
    spans
}

/// Every line of four or more of `stones` (a board mask of a board `height` rows high, as
/// a `u128`) through the cell (`col`, `row`): its cells as (column, row) from the bottom
/// left, in order along the line (vertical lines first, then horizontal, then the rising
/// and the falling diagonal).
pub fn lines_through(
    stones: u128,
    width: usize,
    height: usize,
    col: usize,
    row: usize,
) -> Vec<Vec<(usize, usize)>> {
    let spans = line_spans_through(stones, width, height, col, row);
    spans.iter().map(|span| span.cells().collect()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play_all<M: Mask>(board: &mut Board<M>, cols: &[usize]) -> Vec<MoveResult> {
        cols.iter().map(|&c| board.play(c)).collect()
    }

    fn winning_lines<M: Mask>(board: &Board<M>, col: usize) -> Vec<Vec<(usize, usize)>> {
        let stones = board.last_mover_stones().to_u128();
        lines_through(
            stones,
            board.width(),
            board.height(),
            col,
            board.top_row(col),
        )
    }

    #[test]
    fn fours_in_every_direction() {
        // Vertical: player 1 plays column 0 four times, player 2 column 1.
        let mut b = Board::<u64>::new(7, 6);
        let results = play_all(&mut b, &[0, 1, 0, 1, 0, 1, 0]);
        assert_eq!(*results.last().unwrap(), MoveResult::Win);
        assert_eq!(
            winning_lines(&b, 0),
            vec![vec![(0, 0), (0, 1), (0, 2), (0, 3)]]
        );
        // Horizontal on the bottom row.
        let mut b = Board::<u64>::new(7, 6);
        let results = play_all(&mut b, &[0, 0, 1, 1, 2, 2, 3]);
        assert_eq!(results[6], MoveResult::Win);
        assert_eq!(
            winning_lines(&b, 3),
            vec![vec![(0, 0), (1, 0), (2, 0), (3, 0)]]
        );
        // Rising diagonal.
        let mut b = Board::<u128>::new(7, 6);
        let results = play_all(&mut b, &[0, 1, 1, 2, 2, 3, 2, 3, 3, 6, 3]);
        assert_eq!(results[10], MoveResult::Win);
        assert_eq!(
            winning_lines(&b, 3),
            vec![vec![(0, 0), (1, 1), (2, 2), (3, 3)]]
        );
    }

    #[test]
    fn no_wrap_between_columns() {
        // Stones at the top of column 0 and the bottom of column 1 are not in a line.
        let mut b = Board::<u64>::new(4, 4);
        // Fill column 0 (alternating), then more in column 1.
        for col in [0, 0, 0, 0, 1, 2, 1, 2] {
            assert_eq!(b.play(col), MoveResult::Placed);
        }
    }

    #[test]
    fn sizes() {
        assert_eq!(board_fits(7, 6), Ok(true));
        assert_eq!(board_fits(8, 7), Ok(true));
        assert_eq!(board_fits(10, 10), Ok(false));
        assert!(board_fits(16, 16).is_err());
        assert!(board_fits(3, 6).is_err());
    }
}
