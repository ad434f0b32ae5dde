//! The solver's position: the side to move's stones and all stones as two masks, with the
//! left-right mirror image kept alongside so that a position and its mirror share one key.
//!
//! The layout is the board's: column-major, `height + 1` bits per column, the spare bit on
//! top. Only the side to move's stones are stored, so a move is `current ^= mask` and the
//! key `current + mask` is unique per position (the sum sets the bit above each column's
//! top stone, which says how high the column is).

use std::ops::{Add, Not, Sub};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::connect4::{Mask, MAX_SIDE};

/// The mask operations the search needs beyond [`Mask`]'s. Implemented for `u64` and
/// `u128` only (sealed): the transposition table relies on all-zero bytes being a value.
pub trait Bits:
    sealed::Sealed
    + Mask
    + Ord
    + std::hash::Hash
    + Send
    + Sync
    + Add<Output = Self>
    + Sub<Output = Self>
    + Not<Output = Self>
{
    /// Set bits.
    fn count_ones(self) -> u32;
    /// Multiplication by a fixed odd constant, wrapping: a bijection that spreads keys
    /// over the high bits.
    fn mix(self) -> Self;
    /// The low 64 bits.
    fn low_u64(self) -> u64;
    /// From the low bits of a `u64`.
    fn from_u64(value: u64) -> Self;
    /// A transposition-table entry holding one `Self`, read and written through a shared
    /// reference (all-zero bytes are the value zero).
    type Cell: TableCell<Self>;
}

/// A table entry that threads may share: loads and stores of a whole entry, in no
/// particular order.
pub trait TableCell<M>: Send + Sync + std::fmt::Debug {
    /// The entry's value.
    fn load(&self) -> M;
    /// Replaces the entry's value.
    fn store(&self, value: M);
}

impl TableCell<u64> for AtomicU64 {
    #[inline]
    fn load(&self) -> u64 {
        self.load(Ordering::Relaxed)
    }
    #[inline]
    fn store(&self, value: u64) {
        self.store(value, Ordering::Relaxed);
    }
}

/// A `u128` entry as two halves. A load concurrent with a store could mix two entries'
/// halves, so only one thread ever searches with a `u128` table (helper threads search
/// `u64` boards only: see `Solver::search_within`).
#[derive(Debug, Default)]
#[repr(align(16))]
pub struct WideCell([AtomicU64; 2]);

impl TableCell<u128> for WideCell {
    #[inline]
    fn load(&self) -> u128 {
        let [low, high] = &self.0;
        u128::from(high.load(Ordering::Relaxed)) << 64 | u128::from(low.load(Ordering::Relaxed))
    }
    #[inline]
    fn store(&self, value: u128) {
        let [low, high] = &self.0;
        low.store(value as u64, Ordering::Relaxed);
        high.store((value >> 64) as u64, Ordering::Relaxed);
    }
}

/// Keeps [`Bits`] to the types listed here.
mod sealed {
    /// Implemented by `u64` and `u128` only.
    pub trait Sealed {}
    impl Sealed for u64 {}
    impl Sealed for u128 {}
}

impl Bits for u64 {
    type Cell = AtomicU64;
    #[inline]
    fn count_ones(self) -> u32 {
        u64::count_ones(self)
    }
    #[inline]
    fn mix(self) -> Self {
        self.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
    #[inline]
    fn low_u64(self) -> u64 {
        self
    }
    #[inline]
    fn from_u64(value: u64) -> Self {
        value
    }
}

impl Bits for u128 {
    type Cell = WideCell;
    #[inline]
    fn count_ones(self) -> u32 {
        u128::count_ones(self)
    }
    #[inline]
    fn mix(self) -> Self {
        self.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835)
    }
    #[inline]
    fn low_u64(self) -> u64 {
        self as u64
    }
    #[inline]
    fn from_u64(value: u64) -> Self {
        value.into()
    }
}

/// The masks of one board size, worked out once.
#[derive(Debug, Clone)]
pub struct Geometry<M> {
    /// Columns.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// Cells on the board.
    pub cells: u32,
    /// Bits per column: `height + 1`.
    stride: u32,
    /// The bottom cell of every column.
    bottom: M,
    /// Every cell of the board (spare bits excluded).
    board: M,
    /// The cells of the even rows (the second, fourth … from the bottom).
    even_rows: M,
    /// Per column: its bottom cell, its top cell and all its cells.
    column_bottom: [M; MAX_SIDE],
    column_top: [M; MAX_SIDE],
    column_cells: [M; MAX_SIDE],
}

impl<M: Bits> Geometry<M> {
    /// The geometry of a `width × height` board, which must fit `M` (see
    /// [`board_fits`](crate::connect4::board_fits)).
    pub fn new(width: usize, height: usize) -> Self {
        debug_assert!(width * (height + 1) <= M::BITS as usize);
        let stride = height as u32 + 1;
        let mut geometry = Geometry {
            width,
            height,
            cells: (width * height) as u32,
            stride,
            bottom: M::default(),
            board: M::default(),
            even_rows: M::default(),
            column_bottom: [M::default(); MAX_SIDE],
            column_top: [M::default(); MAX_SIDE],
            column_cells: [M::default(); MAX_SIDE],
        };
        let column_ones = M::from_u64((1u64 << height) - 1);
        for col in 0..width {
            let shift = col as u32 * stride;
            geometry.column_bottom[col] = M::ONE << shift;
            geometry.column_top[col] = M::ONE << (shift + height as u32 - 1);
            geometry.column_cells[col] = column_ones << shift;
            geometry.bottom = geometry.bottom | geometry.column_bottom[col];
            geometry.board = geometry.board | geometry.column_cells[col];
        }
        for row in (1..height).step_by(2) {
            geometry.even_rows = geometry.even_rows | (geometry.bottom << row as u32);
        }
        geometry
    }

    /// The empty cell on top of each column that is not full.
    #[inline]
    pub fn playable(&self, p: &Position<M>) -> M {
        (p.mask + self.bottom) & self.board
    }

    /// Whether column `col` has room.
    #[inline]
    pub fn can_play(&self, p: &Position<M>, col: usize) -> bool {
        (p.mask & self.column_top[col % MAX_SIDE]).is_zero()
    }

    /// The cell a stone dropped into column `col` would take.
    #[inline]
    pub fn drop_cell(&self, p: &Position<M>, col: usize) -> M {
        (p.mask + self.column_bottom[col % MAX_SIDE]) & self.column_cells[col % MAX_SIDE]
    }

    /// All cells of column `col`.
    #[inline]
    pub fn column(&self, col: usize) -> M {
        self.column_cells[col % MAX_SIDE]
    }

    /// Plays the stone `cell` (the [`drop_cell`](Self::drop_cell) of column `col`) for the
    /// side to move.
    #[inline]
    pub fn play(&self, p: &mut Position<M>, cell: M, col: usize) {
        p.current = p.current ^ p.mask;
        p.mask = p.mask | cell;
        let mirror_col = (self.width - 1 - col) % MAX_SIDE;
        p.mirror_current = p.mirror_current ^ p.mirror_mask;
        p.mirror_mask = p.mirror_mask
            | ((p.mirror_mask + self.column_bottom[mirror_col]) & self.column_cells[mirror_col]);
        p.moves += 1;
    }

    /// Plays column `col`, which must have room.
    pub fn play_column(&self, p: &mut Position<M>, col: usize) {
        let cell = self.drop_cell(p, col);
        self.play(p, cell, col);
    }

    /// Whether playing column `col` (which must have room) wins for the side to move.
    pub fn is_winning_column(&self, p: &Position<M>, col: usize) -> bool {
        !(self.winning_cells(p.current, p.mask) & self.drop_cell(p, col)).is_zero()
    }

    /// Whether the side to move can win with its next stone.
    #[inline]
    pub fn can_win_next(&self, p: &Position<M>) -> bool {
        !(self.winning_cells(p.current, p.mask) & self.playable(p)).is_zero()
    }

    /// The empty cells that would complete a four for the player owning `stones`.
    #[inline]
    pub fn winning_cells(&self, stones: M, mask: M) -> M {
        // Vertical: only three below.
        let mut r = (stones << 1) & (stones << 2) & (stones << 3);
        for shift in [self.stride, self.stride - 1, self.stride + 1] {
            // Three to the one side, two + one, one + two, three to the other side.
            let pair = (stones << shift) & (stones << (2 * shift));
            r = r | (pair & (stones << (3 * shift)));
            r = r | (pair & (stones >> shift));
            let pair = (stones >> shift) & (stones >> (2 * shift));
            r = r | (pair & (stones << shift));
            r = r | (pair & (stones >> (3 * shift)));
        }
        r & (self.board ^ mask)
    }

    /// Whether `stones` hold four in a row in any direction.
    pub fn has_four(&self, stones: M) -> bool {
        let s = self.stride;
        [1, s, s - 1, s + 1].into_iter().any(|shift| {
            let pairs = stones & (stones >> shift);
            !(pairs & (pairs >> (2 * shift))).is_zero()
        })
    }

    /// An upper bound on the score of the side to move from what it can still reach: 0 if
    /// it can no longer make a four, −1 if the opponent's follow-up (claimeven) also makes
    /// one, or `None` when neither argument bounds it.
    ///
    /// The follow-up applies on boards of even height with an even number of stones: the
    /// opponent answers every stone on an odd row by the one above it, and a stone on top of
    /// a column of odd height by the top of another such column (there is an even number of
    /// them). It so takes every empty even-row cell that is not playable now; the side to
    /// move gets at most the other cells.
    // Always inlined: the negamax's build for BMI2 and AVX2 otherwise calls it.
    #[inline(always)]
    pub fn reachable_bound(&self, p: &Position<M>) -> Option<i32> {
        let empty = self.board ^ p.mask;
        if !self.has_four(p.current | empty) {
            return Some(0);
        }
        if self.height % 2 == 1 || p.moves % 2 == 1 {
            return None;
        }
        let opponent = (p.current ^ p.mask) | (self.even_rows & empty & !self.playable(p));
        if self.has_four(self.board & !opponent) {
            None
        } else if self.has_four(opponent) {
            Some(-1)
        } else {
            Some(0)
        }
    }

    /// Whether the opponent of the side to move can no longer make a four.
    #[inline]
    pub fn opponent_blocked(&self, p: &Position<M>) -> bool {
        !self.has_four((p.current ^ p.mask) | (self.board ^ p.mask))
    }

    /// The moves (as drop cells) that do not hand the opponent an immediate win: a forced
    /// block if the opponent threatens one cell, nothing if it threatens two, and never a
    /// cell right under an opponent's winning cell. Only valid when the side to move cannot
    /// win at once.
    // Always inlined: the negamax's build for BMI2 and AVX2 otherwise calls it.
    #[inline(always)]
    pub fn non_losing_moves(&self, p: &Position<M>) -> M {
        let mut possible = self.playable(p);
        let opponent_wins = self.winning_cells(p.current ^ p.mask, p.mask);
        let forced = possible & opponent_wins;
        if !forced.is_zero() {
            if !(forced & (forced - M::ONE)).is_zero() {
                // Two threats to block at once: lost.
                return M::default();
            }
            possible = forced;
        }
        possible & !(opponent_wins >> 1)
    }

    /// How many winning cells the side to move would have after playing `cell`: the move
    /// ordering's measure of the threats a move creates.
    #[inline]
    pub fn threats_after(&self, p: &Position<M>, cell: M) -> u32 {
        self.winning_cells(p.current | cell, p.mask).count_ones()
    }

    /// The key shared by a position and its mirror image.
    #[inline]
    pub fn symmetric_key(&self, p: &Position<M>) -> M {
        let key = p.current + p.mask;
        let mirror = p.mirror_current + p.mirror_mask;
        key.min(mirror)
    }
}

/// A position: the side to move's stones, all stones, and the same for the mirror image.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Position<M> {
    current: M,
    mask: M,
    mirror_current: M,
    mirror_mask: M,
    moves: u32,
}

impl<M: Bits> Position<M> {
    /// Stones on the board.
    pub fn moves(&self) -> u32 {
        self.moves
    }

    /// The side to move's stones.
    pub fn current(&self) -> M {
        self.current
    }

    /// All stones.
    pub fn mask(&self) -> M {
        self.mask
    }
}
