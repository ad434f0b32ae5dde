//! The grid sizes the solver is compiled for: each size is a type, so that every loop over
//! a unit has a constant trip count and every cell index is computed from constants.

/// One grid size: boxes of `BOX × BOX` cells.
pub(super) trait Shape: Copy {
    /// Cells per box side.
    const BOX: usize;
    /// Cells per row, column and box; also the number of digits.
    const SIDE: usize = Self::BOX * Self::BOX;
    /// Cells in the grid.
    const CELLS: usize = Self::SIDE * Self::SIDE;
    /// Every digit's bit (digit `d`, 0-based, is bit `d`).
    const DIGITS: u32 = (1 << Self::SIDE) - 1;
    /// Whether the board looks for hidden pairs once the cheaper deductions are at their
    /// fixed point: only 25×25 grids, whose hard puzzles' searches they shrink by more
    /// than they slow each node (Gecode's 25×25 set: 8 of 18 proved within 600,000
    /// guesses instead of 5, at 1.6 times the instructions per guess).
    const PAIRS: bool = false;
    /// A candidate mask per cell.
    type Cells: Copy + AsRef<[u32]> + AsMut<[u32]>;

    /// Every cell with every digit.
    fn all_candidates() -> Self::Cells;

    /// The `k`-th cell of row `row`.
    #[inline(always)]
    fn row_cell(row: usize, k: usize) -> usize {
        row * Self::SIDE + k
    }

    /// The `k`-th cell of column `col`.
    #[inline(always)]
    fn col_cell(col: usize, k: usize) -> usize {
        k * Self::SIDE + col
    }

    /// The `k`-th cell of box `b` (boxes and their cells numbered row-major).
    #[inline(always)]
    fn box_cell(b: usize, k: usize) -> usize {
        let top = b / Self::BOX * Self::BOX;
        let left = b % Self::BOX * Self::BOX;
        (top + k / Self::BOX) * Self::SIDE + left + k % Self::BOX
    }

    /// The bits of `cell`'s row, column and box among the units (see
    /// [`unit_cell`](Self::unit_cell)).
    #[inline(always)]
    fn units_bits(cell: usize) -> u128 {
        let (row, col) = (cell / Self::SIDE, cell % Self::SIDE);
        let b = row / Self::BOX * Self::BOX + col / Self::BOX;
        1 << row | 1 << (Self::SIDE + col) | 1 << (2 * Self::SIDE + b)
    }

    /// The `k`-th cell of unit `unit`: rows are units `0..SIDE`, columns the next
    /// `SIDE`, boxes the last `SIDE`.
    #[inline(always)]
    fn unit_cell(unit: usize, k: usize) -> usize {
        if unit < Self::SIDE {
            Self::row_cell(unit, k)
        } else if unit < 2 * Self::SIDE {
            Self::col_cell(unit - Self::SIDE, k)
        } else {
            Self::box_cell(unit - 2 * Self::SIDE, k)
        }
    }
}

macro_rules! shape {
    ($name:ident, $box:literal, $doc:literal) => {
        shape!($name, $box, $doc, false);
    };
    ($name:ident, $box:literal, $doc:literal, $pairs:literal) => {
        #[doc = $doc]
        #[derive(Debug, Clone, Copy)]
        pub(super) struct $name;

        impl Shape for $name {
            const BOX: usize = $box;
            const PAIRS: bool = $pairs;
            type Cells = [u32; $box * $box * $box * $box];

            fn all_candidates() -> Self::Cells {
                [Self::DIGITS; $box * $box * $box * $box]
            }
        }
    };
}

shape!(Box2, 2, "4×4 grids.");
shape!(
    Box3,
    3,
    "9×9 grids (tests only: `fast` has its own 9×9 solver)."
);
#[cfg(test)]
shape!(
    Box4,
    4,
    "16×16 grids (tests only: the solver has its own 16×16 board, `Planes`)."
);
shape!(Box5, 5, "25×25 grids.", true);
