//! The 25×25 board, digit-major like the 16×16 one ([`Planes`](super::planes::Planes)):
//! for each digit a plane of the cells that may still hold it, a 25-bit mask per row
//! (bit `c` of `planes[d][r]` is cell `25r + c`).
//!
//! Placing a digit clears its column in the digit's plane with one AND per row, its row
//! and box with a few more, and the cell in the other planes; naked singles come from
//! counting the planes bit-sliced, row by row (loops over the 25 rows, which the compiler
//! vectorizes); hidden singles and locked candidates fold a plane's rows, columns and
//! 5-bit box segments. A placed cell keeps its digit's bit, so a unit without a digit's
//! bit has no place left for it.
//!
//! It serves the set-up only: the clues and their propagation, after which the search
//! goes on with the cell-major [`Board`], whose nodes are cheaper (measured on
//! generated-25x25-hard-30.txt, docs/performance.md: a guess cost about 50 µs here
//! against 35 µs there, since each round of naked singles here counts every cell again
//! where the cell-major board follows a queue). The set-up is where this board wins: the
//! cell-major board spent three quarters of an easy puzzle's time placing digits, 75
//! peers each, cell by cell; here an easy puzzle takes a third of the time.

use super::board::{Board, Contradiction, Queue};
use super::deductions::Deductions;
use super::shape::Box5;

/// Digits, and cells per unit.
const SIDE: usize = 25;
/// Cells in the grid.
const CELLS: usize = SIDE * SIDE;
/// A full row.
const FULL: u32 = (1 << SIDE) - 1;
/// The first box's segment of a row.
const SEGMENT: u32 = 0x1F;
/// Bit 0 of each 5-bit segment of a row.
const SEGMENTS: u32 = 0x0010_8421;

/// The units of `cell` (row, column, box) as bits of a [`Contradiction`]: rows are units
/// `0..25`, columns `25..50`, boxes `50..75`, as in [`Shape::unit_cell`](super::shape::Shape::unit_cell).
#[inline(always)]
fn units_of(cell: usize) -> u128 {
    let (row, col) = (cell / SIDE, cell % SIDE);
    1 << row | 1 << (SIDE + col) | 1 << (2 * SIDE + row / 5 * 5 + col / 5)
}

/// Whether `x` has exactly one bit set.
#[inline(always)]
fn single(x: u32) -> bool {
    x != 0 && x & (x - 1) == 0
}

/// The candidates, digit-major, and the cells whose digit has left their peers.
#[derive(Clone, Copy)]
pub(super) struct Planes25 {
    planes: [[u32; SIDE]; SIDE],
    placed: [u32; SIDE],
    /// A bit per digit whose plane changed since its last scan for hidden singles: only
    /// those are scanned.
    hidden_dirty: u32,
    /// The same for locked candidates.
    locked_dirty: u32,
}

impl Planes25 {
    /// Puts digit `d` (0-based) in `cell`: the digit leaves the cell's row, column and box,
    /// and the cell every other digit's plane. `Err` if the cell had lost the digit.
    #[inline(always)]
    fn place(&mut self, d: usize, cell: usize) -> Result<(), Contradiction> {
        let (r, c) = (cell / SIDE, cell % SIDE);
        if self.planes[d][r] >> c & 1 == 0 {
            return Err(Contradiction(units_of(cell)));
        }
        let mut touched = 1 << d;
        for (e, plane) in self.planes.iter_mut().enumerate() {
            touched |= (plane[r] >> c & 1) << e;
            plane[r] &= !(1 << c);
        }
        self.hidden_dirty |= touched;
        self.locked_dirty |= touched;
        self.clear_peers(d, r, c);
        Ok(())
    }

    /// Puts digit `d` in `cell`, which has no other candidate: the digit leaves the
    /// cell's row, column and box. `Err` if a single placed before took the digit.
    #[inline(always)]
    fn place_single(&mut self, d: usize, cell: usize) -> Result<(), Contradiction> {
        let (r, c) = (cell / SIDE, cell % SIDE);
        if self.planes[d][r] >> c & 1 == 0 {
            return Err(Contradiction(units_of(cell)));
        }
        self.hidden_dirty |= 1 << d;
        self.locked_dirty |= 1 << d;
        self.clear_peers(d, r, c);
        Ok(())
    }

    /// Clears the row, column and box of cell `(r, c)` in digit `d`'s plane but the cell
    /// itself, and marks the cell placed.
    #[inline(always)]
    fn clear_peers(&mut self, d: usize, r: usize, c: usize) {
        let plane = &mut self.planes[d];
        for row in plane.iter_mut() {
            *row &= !(1 << c);
        }
        let band = r / 5 * 5;
        for row in &mut plane[band..band + 5] {
            *row &= !(SEGMENT << (c / 5 * 5));
        }
        plane[r] = 1 << c;
        self.placed[r] |= 1 << c;
    }
}

impl Deductions for Planes25 {
    #[inline(always)]
    fn solved(&self) -> bool {
        self.placed.iter().all(|&row| row == FULL)
    }

    /// Places the open cells left with one candidate; `Err` if a cell has none. True if
    /// it placed any.
    ///
    /// All rows are counted first (a loop over the rows per plane, vectorized), then the
    /// singles placed; a single whose digit a single placed before took is a
    /// contradiction. A single's digit is read from five rows of bits that hold each
    /// digit's bits bit-sliced, gathered in the same pass.
    #[inline(always)]
    fn naked_singles(&mut self) -> Result<bool, Contradiction> {
        let (mut once, mut twice) = ([0u32; SIDE], [0u32; SIDE]);
        let mut index = [[0u32; SIDE]; 5];
        for (d, plane) in self.planes.iter().enumerate() {
            for r in 0..SIDE {
                twice[r] |= once[r] & plane[r];
                once[r] |= plane[r];
            }
            for (k, bits) in index.iter_mut().enumerate() {
                if d >> k & 1 != 0 {
                    for r in 0..SIDE {
                        bits[r] |= plane[r];
                    }
                }
            }
        }
        let mut found = false;
        for r in 0..SIDE {
            if once[r] != FULL {
                let cell = r * SIDE + (!once[r] & FULL).trailing_zeros() as usize;
                return Err(Contradiction(units_of(cell)));
            }
            let mut singles = once[r] & !twice[r] & !self.placed[r];
            found |= singles != 0;
            while singles != 0 {
                let c = singles.trailing_zeros() as usize;
                singles &= singles - 1;
                let d = index
                    .iter()
                    .rev()
                    .fold(0, |d, bits| d << 1 | (bits[r] >> c & 1) as usize);
                self.place_single(d, r * SIDE + c)?;
            }
        }
        Ok(found)
    }

    /// Places each digit that has one open place left in a row, column or box; `Err` if
    /// a digit has no place in some unit. True if it placed any.
    #[inline(always)]
    fn hidden_singles(&mut self) -> Result<bool, Contradiction> {
        let mut found = false;
        let mut digits = std::mem::take(&mut self.hidden_dirty);
        while digits != 0 {
            let d = digits.trailing_zeros() as usize;
            digits &= digits - 1;
            let p = self.planes[d];
            // Columns: the rows folded.
            let (mut once, mut twice) = (0, 0);
            for &row in &p {
                twice |= once & row;
                once |= row;
            }
            if once != FULL {
                let col = (!once & FULL).trailing_zeros() as u128;
                return Err(Contradiction(1 << (SIDE as u128 + col)));
            }
            let columns = once & !twice;
            let mut singles = [0u32; SIDE];
            for band in 0..5 {
                // Boxes: the band's rows folded, then each box's five columns.
                let (mut o, mut t) = (0, 0);
                for &row in &p[5 * band..5 * band + 5] {
                    t |= o & row;
                    o |= row;
                }
                let mut boxes = 0;
                for b in 0..5 {
                    let (so, st) = (o >> (5 * b) & SEGMENT, t >> (5 * b) & SEGMENT);
                    if so == 0 {
                        return Err(Contradiction(1 << (2 * SIDE + 5 * band + b)));
                    }
                    if st == 0 && so & (so - 1) == 0 {
                        boxes |= SEGMENT << (5 * b);
                    }
                }
                for r in 5 * band..5 * band + 5 {
                    let row = p[r];
                    if row == 0 {
                        return Err(Contradiction(1 << r));
                    }
                    let rows = if row & (row - 1) == 0 { FULL } else { 0 };
                    singles[r] = row & (rows | columns | boxes) & !self.placed[r];
                }
            }
            for (r, mut cells) in singles.into_iter().enumerate() {
                found |= cells != 0;
                while cells != 0 {
                    self.place(d, r * SIDE + cells.trailing_zeros() as usize)?;
                    cells &= cells - 1;
                }
            }
        }
        Ok(found)
    }

    /// Locked candidates: a digit whose places in a box lie in one row (column) leaves
    /// the rest of that row (column); a digit whose places in a row (column) lie in one
    /// box leaves the rest of that box. True if it removed any candidate.
    #[inline(always)]
    fn locked_candidates(&mut self) -> bool {
        let mut changed = false;
        let mut digits = std::mem::take(&mut self.locked_dirty);
        while digits != 0 {
            let d = digits.trailing_zeros() as usize;
            digits &= digits - 1;
            let p = self.planes[d];
            let mut clear = [0u32; SIDE];
            // Per band, the columns that have the digit somewhere in the band.
            let mut columns = [0u32; 5];
            for band in 0..5 {
                let rows = &p[5 * band..5 * band + 5];
                // Per row of the band, bit 5b set when the row has the digit in box b.
                let mut present = [0u32; 5];
                for (k, &row) in rows.iter().enumerate() {
                    let n = row | row >> 1;
                    let n = (n | n >> 2 | row >> 4) & SEGMENTS;
                    present[k] = n;
                    if single(n) {
                        // Claiming: the row's places lie in one box.
                        let segment = SEGMENT << n.trailing_zeros();
                        for (j, other) in clear[5 * band..5 * band + 5].iter_mut().enumerate() {
                            if j != k {
                                *other |= segment;
                            }
                        }
                    }
                }
                let c = rows.iter().fold(0, |c, &row| c | row);
                columns[band] = c;
                // Pointing: the boxes whose places lie in one row (bit 5b set in `only`)
                // leave the rest of that row.
                let (mut once, mut twice) = (0, 0);
                for &n in &present {
                    twice |= once & n;
                    once |= n;
                }
                let only = once & !twice;
                for (k, &n) in present.iter().enumerate() {
                    let mut boxes = n & only;
                    while boxes != 0 {
                        clear[5 * band + k] |= FULL & !(SEGMENT << boxes.trailing_zeros());
                        boxes &= boxes - 1;
                    }
                }
                for b in 0..5 {
                    let cols = c >> (5 * b) & SEGMENT;
                    if single(cols) {
                        // Pointing: the box's places lie in one column.
                        let col = 1 << (5 * b + cols.trailing_zeros() as usize);
                        for (r, other) in clear.iter_mut().enumerate() {
                            if r / 5 != band {
                                *other |= col;
                            }
                        }
                    }
                }
            }
            // Claiming: a column whose places lie in one band, hence in one box.
            let (mut once, mut twice) = (0, 0);
            for &c in &columns {
                twice |= once & c;
                once |= c;
            }
            let only = once & !twice;
            for (band, &c) in columns.iter().enumerate() {
                let mut own = c & only;
                while own != 0 {
                    let col = own.trailing_zeros() as usize;
                    own &= own - 1;
                    let rest = (SEGMENT << (col / 5 * 5)) & !(1 << col);
                    for row in &mut clear[5 * band..5 * band + 5] {
                        *row |= rest;
                    }
                }
            }
            let plane = &mut self.planes[d];
            let mut cleared = 0;
            for r in 0..SIDE {
                cleared |= p[r] & clear[r];
                plane[r] = p[r] & !clear[r];
            }
            if cleared != 0 {
                changed = true;
                self.hidden_dirty |= 1 << d;
                self.locked_dirty |= 1 << d;
            }
        }
        changed
    }
}

impl Planes25 {
    /// The cell-major board of the same candidates, for the search, with the deductions
    /// only that board makes applied; `Err` if they meet a contradiction.
    #[inline(always)]
    pub(super) fn into_board(self, queue: &mut Queue) -> Result<Board<Box5>, Contradiction> {
        let mut masks = [0u32; CELLS];
        for (d, plane) in self.planes.iter().enumerate() {
            for (r, &row) in plane.iter().enumerate() {
                let mut cells = row;
                while cells != 0 {
                    masks[r * SIDE + cells.trailing_zeros() as usize] |= 1 << d;
                    cells &= cells - 1;
                }
            }
        }
        Board::from_fixed_point(&masks, queue)
    }

    /// The board of a grid's clues (`values`, row-major, 0 for a blank), propagated;
    /// `Err` if they contradict each other.
    #[inline(always)]
    pub(super) fn from_values(values: &[u8]) -> Result<Self, Contradiction> {
        // The clues are set in bulk, as on the 16×16 board: per digit, the rows, columns
        // and boxes that hold it, then each plane's rows from those. The loop visits the
        // clues alone, found from a mask of each row's nonzero cells: a branch on each
        // cell (whether it holds a clue is unpredictable) was most of the set-up's time.
        let (mut rows, mut cols, mut boxes) = ([0u32; SIDE], [0u32; SIDE], [0u32; SIDE]);
        let mut clues = [[0u32; SIDE]; SIDE];
        let mut placed = [0u32; SIDE];
        let mut conflict = 0;
        for (row, values) in values.chunks_exact(SIDE).enumerate() {
            let mut given = values
                .iter()
                .enumerate()
                .fold(0u32, |mask, (i, &v)| mask | u32::from(v != 0) << i);
            placed[row] = given;
            while given != 0 {
                let col = given.trailing_zeros() as usize;
                given &= given - 1;
                let d = usize::from(values[col] - 1) % SIDE;
                let b = row / 5 * 5 + col / 5;
                conflict |= rows[d] >> row | cols[d] >> col | boxes[d] >> b;
                rows[d] |= 1 << row;
                cols[d] |= 1 << col;
                boxes[d] |= 1 << b;
                clues[d][row] |= 1 << col;
            }
        }
        if conflict & 1 != 0 {
            // Two clues share a digit in some unit: which one does not matter, since the
            // search stops here.
            return Err(Contradiction(0));
        }
        let mut planes = [[0u32; SIDE]; SIDE];
        for d in 0..SIDE {
            // Per band, the boxes holding the digit, as their segments of a row.
            let mut in_boxes = [0u32; 5];
            for (band, segments) in in_boxes.iter_mut().enumerate() {
                let held = boxes[d] >> (5 * band) & SEGMENT;
                *segments = (0..5)
                    .filter(|b| held >> b & 1 != 0)
                    .fold(0, |m, b| m | SEGMENT << (5 * b));
            }
            for r in 0..SIDE {
                let in_row = (rows[d] >> r & 1).wrapping_neg();
                let taken = in_row | in_boxes[r / 5] | cols[d] | placed[r];
                planes[d][r] = (!taken & FULL) | clues[d][r];
            }
        }
        let mut board = Planes25 {
            planes,
            placed,
            hidden_dirty: FULL,
            locked_dirty: FULL,
        };
        board.propagate()?;
        Ok(board)
    }
}
