//! The 16×16 board, digit-major: for each digit a 256-bit plane of the cells that may
//! still hold it (`[u64; 4]`, word `w` holding rows `4w..4w + 4`, so a word is a band of
//! boxes and bit `i % 64` of word `i / 64` is cell `i`, row-major).
//!
//! Placing a digit clears its row, column and box in its plane with a few mask ANDs, and
//! the cell in the other planes; naked singles come from counting the planes bit-sliced
//! (cells seen once and not twice); hidden singles and locked candidates fold a plane's
//! 16-bit rows, columns and 4-bit box segments. A placed cell keeps its digit's bit, so a
//! unit without a digit's bit has no place left for it.
//!
//! Measured on generated-16x16-minimal-100.txt (docs/performance.md): the cell-major
//! [`Board`](super::board::Board) spent 90% of its time placing digits and rescanning
//! units cell by cell; here each of those is a few dozen word operations.

use super::board::{Contradiction, Queue};
use super::deductions::Deductions;
use super::search::Node;

/// Cells in the grid.
const CELLS: usize = 256;
/// Digits, and cells per unit.
const SIDE: usize = 16;
/// Bit 0 of each row of a word: a column's cells in a band, shifted by the column.
const COLUMN: u64 = 0x0001_0001_0001_0001;
/// One row of a band.
const ROW: u64 = 0xFFFF;
/// Bit 0 of each 4-bit segment of a word.
const SEGMENTS: u64 = 0x1111_1111_1111_1111;

/// Each cell's row, column and box but the cell itself, as a plane: read from this table
/// (8 KB), a placement's peers cost four loads, where building them from shifted row,
/// column and box masks was most of an easy puzzle's placing (callgrind,
/// docs/performance.md).
static PEERS: [[u64; 4]; CELLS] = peers_table();

/// The table of [`PEERS`].
const fn peers_table() -> [[u64; 4]; CELLS] {
    let mut table = [[0u64; 4]; CELLS];
    let mut cell = 0;
    while cell < CELLS {
        let (row, col) = (cell / SIDE, cell % SIDE);
        let mut other = 0;
        while other < CELLS {
            let (r, c) = (other / SIDE, other % SIDE);
            let shares_box = r / 4 == row / 4 && c / 4 == col / 4;
            if other != cell && (r == row || c == col || shares_box) {
                table[cell][other / 64] |= 1 << (other % 64);
            }
            other += 1;
        }
        cell += 1;
    }
    table
}

/// Bit `i` set when byte `i` of `bytes` (64 of them) is not zero.
///
/// Eight bytes a step (each byte's high bit set when it is not zero, the eight high bits
/// then gathered by one multiplication): a comparison and shift per byte was a tenth of
/// an easy puzzle's set-up (callgrind).
#[inline(always)]
fn nonzero_bytes(bytes: &[u8]) -> u64 {
    const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    bytes
        .chunks_exact(8)
        .enumerate()
        .fold(0, |mask, (k, eight)| {
            let x = u64::from_le_bytes(eight.try_into().expect("chunks of eight"));
            let high = (((x & LOW7) + LOW7) | x) & !LOW7;
            // Bit 8j (byte j's high bit, shifted down) lands on bit 56 + j.
            let byte = (high >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56;
            mask | byte << (8 * k)
        })
}

/// The units of `cell` (row, column, box) as bits of a [`Contradiction`]: rows are units
/// `0..16`, columns `16..32`, boxes `32..48`, as in [`Shape::unit_cell`](super::shape::Shape::unit_cell).
#[inline(always)]
fn units_of(cell: usize) -> u128 {
    let (row, col) = (cell / SIDE, cell % SIDE);
    1 << row | 1 << (SIDE + col) | 1 << (2 * SIDE + row / 4 * 4 + col / 4)
}

/// Bit `16k` set when row `k` of the band `word` holds any bit.
#[inline(always)]
fn rows_held(word: u64) -> u64 {
    let y = word | word >> 8;
    let y = y | y >> 4;
    let y = y | y >> 2;
    (y | y >> 1) & COLUMN
}

/// Bit `4k` set when the `k`-th 4-bit group of `word` holds any bit.
#[inline(always)]
fn nibbles_held(word: u64) -> u64 {
    (word | word >> 1 | word >> 2 | word >> 3) & SEGMENTS
}

/// The groups of `word` (16-bit rows or 4-bit segments, as `held` flags them by their
/// lowest bit) that hold exactly one bit: each nonempty group less its lowest bit (one
/// subtracted per nonempty group, so nothing borrows across groups) holds none.
#[inline(always)]
fn one_per_group(word: u64, held: fn(u64) -> u64) -> u64 {
    let nonempty = held(word);
    nonempty & !held(word & word.wrapping_sub(nonempty))
}

/// Folds four words (a plane's bands, or a value per band) into the bits set in at least
/// one and in at least two of them.
#[inline(always)]
fn fold_bands(words: &[u64; 4]) -> (u64, u64) {
    words.iter().fold((0, 0), |(once, twice), &word| {
        (once | word, twice | (once & word))
    })
}

/// Folds four 16-bit values (the rows of a band, or the columns' folds of the bands)
/// into the bits seen at least once and at least twice.
#[inline(always)]
fn fold_rows(once: u64, twice: u64) -> (u64, u64) {
    let (mut o, mut t) = (once & ROW, twice & ROW);
    for k in 1..4 {
        let (ok, tk) = ((once >> (16 * k)) & ROW, (twice >> (16 * k)) & ROW);
        t |= tk | (o & ok);
        o |= ok;
    }
    (o, t)
}

/// The candidates, digit-major, and the cells whose digit has left their peers.
#[derive(Clone, Copy)]
pub(super) struct Planes {
    planes: [[u64; 4]; SIDE],
    placed: [u64; 4],
    /// A bit per digit whose plane changed since its last scan for hidden singles: only
    /// those are scanned (each full scan cost as much as the rest of a node).
    hidden_dirty: u32,
    /// The same for locked candidates.
    locked_dirty: u32,
    /// The cells that lost a candidate since their word was last counted for naked
    /// singles: a word without any has no new single nor empty cell, and is skipped.
    shrunk: [u64; 4],
}

impl Planes {
    /// Puts digit `d` (0-based) in `cell`: the digit leaves the cell's row, column and box,
    /// and the cell every other digit's plane. `Err` if the cell had lost the digit.
    #[inline(always)]
    fn place(&mut self, d: usize, cell: usize) -> Result<(), Contradiction> {
        let (w, bit) = (cell / 64, 1u64 << (cell % 64));
        if self.planes[d][w] & bit == 0 {
            return Err(Contradiction(units_of(cell)));
        }
        let mut touched = 1 << d;
        for (e, plane) in self.planes.iter_mut().enumerate() {
            touched |= ((plane[w] >> (cell % 64)) as u32 & 1) << e;
            plane[w] &= !bit;
        }
        self.hidden_dirty |= touched;
        self.locked_dirty |= touched;
        self.clear_peers(d, cell);
        Ok(())
    }

    /// Puts digit `d` in `cell`, which has no other candidate: the digit leaves the
    /// cell's row, column and box. `Err` if a single placed before took the digit.
    #[inline(always)]
    fn place_single(&mut self, d: usize, cell: usize) -> Result<(), Contradiction> {
        let (w, bit) = (cell / 64, 1u64 << (cell % 64));
        if self.planes[d][w] & bit == 0 {
            return Err(Contradiction(units_of(cell)));
        }
        self.hidden_dirty |= 1 << d;
        self.locked_dirty |= 1 << d;
        self.clear_peers(d, cell);
        Ok(())
    }

    /// Clears the row, column and box of `cell` but the cell itself in digit `d`'s
    /// plane, noting the peers that lose the digit, and marks the cell placed.
    #[inline(always)]
    fn clear_peers(&mut self, d: usize, cell: usize) {
        let plane = &mut self.planes[d];
        let peers = &PEERS[cell];
        for w in 0..4 {
            self.shrunk[w] |= plane[w] & peers[w];
            plane[w] &= !peers[w];
        }
        // `place` took the cell out of every plane, this one's too.
        let (w, bit) = (cell / 64, 1 << (cell % 64));
        plane[w] |= bit;
        self.placed[w] |= bit;
    }
}

/// The planes of the clues in `values` (0 for a blank, 1 to 16 for the digits): bit
/// `i % 64` of word `i / 64` of plane `d` set when cell `i` holds `d + 1`. With AVX2
/// (`super::planes_x86`), 32 cells a comparison.
#[inline(always)]
fn clue_planes(values: &[u8; CELLS]) -> [[u64; 4]; SIDE] {
    #[cfg(target_arch = "x86_64")]
    if super::planes_x86::has_avx2() {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { super::planes_x86::clue_planes(values) };
    }
    clue_planes_portable(values)
}

/// [`clue_planes`] on any CPU: the loop visits the clues alone, found from a mask of the
/// nonzero cells (a branch on each cell, whether it holds a clue, is unpredictable).
#[inline(always)]
fn clue_planes_portable(values: &[u8; CELLS]) -> [[u64; 4]; SIDE] {
    let mut clues = [[0u64; 4]; SIDE];
    for (w, chunk) in values.chunks_exact(64).enumerate() {
        let mut given = nonzero_bytes(chunk);
        while given != 0 {
            let i = given.trailing_zeros() as usize;
            given &= given - 1;
            let d = usize::from(chunk[i] - 1) % SIDE;
            clues[d][w] |= 1 << i;
        }
    }
    clues
}

/// The values (1 to 16) of a solved board's cells, each cell in exactly one of the
/// digit `planes`, written plane by plane on any CPU.
#[inline(always)]
fn solved_values_portable(planes: &[[u64; 4]; SIDE], values: &mut [u8; CELLS]) {
    for (d, plane) in planes.iter().enumerate() {
        for (w, &word) in plane.iter().enumerate() {
            let mut cells = word;
            while cells != 0 {
                values[w * 64 + cells.trailing_zeros() as usize] = d as u8 + 1;
                cells &= cells - 1;
            }
        }
    }
}

/// The open cells of a digit's plane `p` that are its only place in their row, column or
/// box; `Err` if a unit has no place for it. Each unit is read in every band at once:
/// with AVX2 (`super::planes_x86`), the four bands as one vector.
#[inline(always)]
fn hidden_single_cells(p: &[u64; 4], placed: &[u64; 4]) -> Result<[u64; 4], Contradiction> {
    #[cfg(target_arch = "x86_64")]
    if super::planes_x86::has_avx2() {
        // SAFETY: the CPU has AVX2, checked just above.
        if let Some(singles) = unsafe { super::planes_x86::hidden_single_cells(p, placed) } {
            return Ok(singles);
        }
        // A unit without a place: the portable scan below names it.
    }
    hidden_single_cells_portable(p, placed)
}

/// [`hidden_single_cells`] on any CPU, band by band.
#[inline(always)]
fn hidden_single_cells_portable(
    p: &[u64; 4],
    placed: &[u64; 4],
) -> Result<[u64; 4], Contradiction> {
    let mut singles = [0u64; 4];
    // Columns: the bands folded, then the rows of the fold.
    let (once, twice) = fold_bands(p);
    let (once, twice) = fold_rows(once, twice);
    if once != ROW {
        let col = (!once & ROW).trailing_zeros() as u128;
        return Err(Contradiction(1 << (SIDE as u128 + col)));
    }
    let columns = (once & !twice) * COLUMN;
    for w in 0..4 {
        let word = p[w];
        // Rows.
        let held = rows_held(word);
        if held != COLUMN {
            let k = (!held & COLUMN).trailing_zeros() / 16;
            return Err(Contradiction(1 << (4 * w as u32 + k)));
        }
        // Branch-free, where a test per row cost a tenth of the scan.
        let rows = one_per_group(word, rows_held) * ROW;
        // Boxes: the band's rows folded, then each box's four columns.
        let (o, t) = fold_rows(word, 0);
        let (o1, o2) = (o & 0x5555, (o >> 1) & 0x5555);
        let t = ((t | t >> 1) & 0x5555) | (o1 & o2);
        let o = o1 | o2;
        let t = (t | t >> 2 | (o & o >> 2)) & 0x1111;
        let o = (o | o >> 2) & 0x1111;
        if o != 0x1111 {
            let b = (!o & 0x1111).trailing_zeros() as usize / 4;
            return Err(Contradiction(1 << (2 * SIDE + 4 * w + b)));
        }
        let boxes = ((o & !t) * 0xF) * COLUMN;
        singles[w] = word & (rows | columns | boxes) & !placed[w];
    }
    Ok(singles)
}

/// The candidates locked candidates take out of a digit's plane `p` (pointing and
/// claiming, in rows, columns and boxes).
#[inline(always)]
fn locked_clear(p: &[u64; 4]) -> [u64; 4] {
    // Branch-free, all rows and boxes of a band at once (each test of a row or
    // a box was an unpredictable branch).
    let mut clear = [0u64; 4];
    // Per band, the columns that have the digit somewhere in the band, and those
    // that are the only such column of their box.
    let (mut columns, mut pointing) = ([0u64; 4], [0u64; 4]);
    for w in 0..4 {
        let x = p[w];
        // Bit 16k + 4b set when row k of the band has the digit in box b.
        let n = x | x >> 1;
        let n = (n | n >> 2) & SEGMENTS;
        // Claiming: a row whose places lie in one box clears that box's other
        // rows (row k: the boxes claimed by the other rows).
        let claimed = (n & (one_per_group(n, rows_held) * ROW)) * 0xF;
        let (by_any, by_two) = fold_rows(claimed, 0);
        clear[w] |= ((by_any * COLUMN) & !claimed) | (by_two * COLUMN);
        // Pointing: a box whose places lie in one row clears the rest of that row
        // (all of it when two boxes point at it).
        let (o, t) = fold_rows(n, 0);
        let pointed = n & ((o & !t) * COLUMN);
        let rows = rows_held(pointed);
        let twice = rows & !one_per_group(pointed, rows_held);
        clear[w] |= (rows * ROW) & !((pointed * 0xF) & !(twice * ROW));
        let c = x | x >> 32;
        let c = (c | c >> 16) & ROW;
        columns[w] = c;
        pointing[w] = c & (one_per_group(c, nibbles_held) * 0xF);
    }
    // Pointing: a box whose places lie in one column clears it in the other
    // bands (band w: the columns pointed at from the other bands).
    let (once, twice) = fold_bands(&pointing);
    for (w, &c) in pointing.iter().enumerate() {
        clear[w] |= ((once & !c) | twice) * COLUMN;
    }
    // Claiming: a column whose places lie in one band, hence in one box, clears
    // the box's other columns (all of them when two columns of a box do so).
    let (once, twice) = fold_bands(&columns);
    let only = once & !twice;
    for (w, &c) in columns.iter().enumerate() {
        let own = c & only;
        let boxes = nibbles_held(own);
        let shared = boxes & !one_per_group(own, nibbles_held);
        let keep = own & !(shared * 0xF);
        clear[w] |= ((boxes * 0xF) & !keep) * COLUMN;
    }
    clear
}

impl Deductions for Planes {
    #[inline(always)]
    fn solved(&self) -> bool {
        self.placed.iter().all(|&w| w == u64::MAX)
    }

    /// Places the open cells left with one candidate; `Err` if a cell has none. True if
    /// it placed any.
    ///
    /// A single's digit is read from four words that hold each digit's bits bit-sliced
    /// (cell `i` of `index[k]` is bit `k` of its digit), gathered in the counting pass,
    /// and only that digit's plane changes: the other planes already lack the cell.
    /// Searching the planes for the digit and clearing the cell in all sixteen was half
    /// of an easy puzzle's time (docs/performance.md).
    // Inlined, like every step of the search, into both copies of the search: the
    // portable one and the one compiled for AVX2 and BMI2 (`BigSolver::solve_modern`).
    #[inline(always)]
    fn naked_singles(&mut self) -> Result<bool, Contradiction> {
        let mut found = false;
        for w in 0..4 {
            // The last round of a cascade finds nothing; here it counts only the words
            // where a cell lost a candidate since.
            if std::mem::take(&mut self.shrunk[w]) == 0 {
                continue;
            }
            let (mut once, mut twice) = (0, 0);
            for plane in &self.planes {
                twice |= once & plane[w];
                once |= plane[w];
            }
            // Spelled out per bit, with constant trip counts, so that it unrolls: a loop
            // testing each digit's bits did not, and cost as much as the count above.
            let word = |d: usize| self.planes[d][w];
            let index = [
                (0..8).fold(0, |bits, k| bits | word(2 * k + 1)),
                (0..4).fold(0, |bits, k| bits | word(4 * k + 2) | word(4 * k + 3)),
                (4..8).fold(0, |bits, k| bits | word(k) | word(k + 8)),
                (8..16).fold(0, |bits, d| bits | word(d)),
            ];
            if once != u64::MAX {
                let cell = w * 64 + (!once).trailing_zeros() as usize;
                return Err(Contradiction(units_of(cell)));
            }
            let mut singles = once & !twice & !self.placed[w];
            found |= singles != 0;
            while singles != 0 {
                let b = singles.trailing_zeros();
                singles &= singles - 1;
                let d = index
                    .iter()
                    .rev()
                    .fold(0, |d, bits| d << 1 | (bits >> b & 1) as usize);
                self.place_single(d, w * 64 + b as usize)?;
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
            let singles = hidden_single_cells(&self.planes[d], &self.placed)?;
            for (w, mut cells) in singles.into_iter().enumerate() {
                found |= cells != 0;
                while cells != 0 {
                    self.place(d, w * 64 + cells.trailing_zeros() as usize)?;
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
            let plane = &mut self.planes[d];
            let p = *plane;
            let clear = locked_clear(&p);
            let mut cleared = false;
            for w in 0..4 {
                let lost = p[w] & clear[w];
                cleared |= lost != 0;
                self.shrunk[w] |= lost;
                plane[w] = p[w] & !clear[w];
            }
            if cleared {
                changed = true;
                self.hidden_dirty |= 1 << d;
                self.locked_dirty |= 1 << d;
            }
        }
        changed
    }
}

impl Planes {
    /// The lowest digit (0-based) `cell` may hold.
    #[inline(always)]
    fn first_digit(&self, cell: usize) -> usize {
        let bit = 1u64 << (cell % 64);
        (0..SIDE)
            .find(|&d| self.planes[d][cell / 64] & bit != 0)
            .unwrap_or(SIDE - 1)
    }
}

impl Node for Planes {
    #[inline(always)]
    fn from_values(values: &[u8], _: &mut Queue) -> Result<Self, Contradiction> {
        // The clues are set in bulk rather than placed one by one (placing 150 clues one
        // by one was a third of an easy puzzle's time): each clue's bit in its digit's
        // plane, then per digit the rows, columns and boxes that hold it, folded from its
        // plane in a few word operations, and the plane from those.
        let values: &[u8; CELLS] = values.try_into().expect("a 16×16 grid has 256 cells");
        let clues = clue_planes(values);
        let mut placed = [0u64; 4];
        for plane in &clues {
            for (cells, word) in placed.iter_mut().zip(plane) {
                *cells |= word;
            }
        }
        let mut planes = [[0u64; 4]; SIDE];
        for d in 0..SIDE {
            let p = clues[d];
            // Columns: the bands folded, then the rows of the fold.
            let (once, twice) = fold_bands(&p);
            let (once, twice) = fold_rows(once, twice);
            let columns = once * COLUMN;
            // Distinct rows and boxes holding the digit: as many as its clues, or two
            // clues share one.
            let (mut rows, mut boxes, mut count) = (0, 0, 0);
            for w in 0..4 {
                let x = p[w];
                count += u64::from(x.count_ones());
                let y = rows_held(x);
                rows += y.wrapping_mul(COLUMN) >> 48;
                // Bit 4b: box b of the band holds the digit.
                let s = x | x >> 1;
                let s = (s | s >> 2) & SEGMENTS;
                let s = (s | s >> 16 | s >> 32 | s >> 48) & 0x1111;
                boxes += (s * 0x1111) >> 12 & 0xF;
                let taken = (y * ROW) | ((s * 0xF) * COLUMN) | columns | placed[w];
                planes[d][w] = !taken | x;
            }
            if twice != 0 || rows != count || boxes != count {
                // Which clues conflict does not matter, since the search stops here.
                return Err(Contradiction(0));
            }
        }
        let mut board = Planes {
            planes,
            placed,
            hidden_dirty: u32::MAX >> SIDE,
            locked_dirty: u32::MAX >> SIDE,
            shrunk: [u64::MAX; 4],
        };
        board.propagate()?;
        Ok(board)
    }

    #[inline(always)]
    fn put(&mut self, cell: usize, digit: u32, _: &mut Queue) -> Result<(), Contradiction> {
        self.place(digit.trailing_zeros() as usize, cell)?;
        self.propagate()
    }

    #[inline(always)]
    fn take_out(&mut self, cell: usize, digit: u32, _: &mut Queue) -> Result<(), Contradiction> {
        self.planes[digit.trailing_zeros() as usize][cell / 64] &= !(1 << (cell % 64));
        self.shrunk[cell / 64] |= 1 << (cell % 64);
        self.hidden_dirty |= digit;
        self.locked_dirty |= digit;
        self.propagate()
    }

    #[inline(always)]
    fn is_solved(&self) -> bool {
        self.solved()
    }

    #[inline(always)]
    fn write_values(&self, values: &mut [u8]) {
        let values: &mut [u8; CELLS] = values.try_into().expect("a 16×16 grid has 256 cells");
        #[cfg(target_arch = "x86_64")]
        if super::planes_x86::has_avx2() {
            // SAFETY: the CPU has AVX2, checked just above; a solved board has each cell
            // in exactly one plane.
            unsafe { super::planes_x86::solved_values(&self.planes, values) };
            return;
        }
        solved_values_portable(&self.planes, values);
    }

    /// The open cell with the fewest candidates per weight of its units, as
    /// [`Board::guess`](super::board::Board) chooses, and its lowest digit. The
    /// candidates are counted bit-sliced over the planes, a 5-bit counter per cell.
    ///
    /// The cells are visited by their count of candidates, fewest first, and the visit
    /// stops at the count that even the heaviest units could not make win: usually after
    /// the cells of two or three candidates, where visiting every open cell was most of
    /// the choice's time.
    #[inline(always)]
    fn guess(&self, weights: &[u32]) -> (usize, u32) {
        let mut counters = [[0u64; 5]; 4];
        for (w, counter) in counters.iter_mut().enumerate() {
            for plane in &self.planes {
                let mut carry = plane[w];
                for bit in &mut counter[..4] {
                    let next = *bit & carry;
                    *bit ^= carry;
                    carry = next;
                }
                counter[4] |= carry;
            }
        }
        let heaviest = |units: &[u32]| units.iter().copied().max().map_or(0, u64::from);
        let heaviest = heaviest(&weights[..SIDE])
            + heaviest(&weights[SIDE..2 * SIDE])
            + heaviest(&weights[2 * SIDE..3 * SIDE]);
        // (candidates, weight, cell) of the best cell so far, compared as fractions, ties
        // going to the lower cell. It starts above every open cell's (at most 16
        // candidates, weight at least 1), with products far inside `u64`.
        let mut best = (SIDE as u64 + 1, 1u64, CELLS);
        for count in 0..=SIDE as u64 {
            if count * best.1 > best.0 * heaviest {
                break;
            }
            for (w, counter) in counters.iter().enumerate() {
                let mut cells = !self.placed[w];
                for (k, &bits) in counter.iter().enumerate() {
                    cells &= if count >> k & 1 != 0 { bits } else { !bits };
                }
                while cells != 0 {
                    let cell = w * 64 + cells.trailing_zeros() as usize;
                    cells &= cells - 1;
                    let (row, col) = (cell / SIDE, cell % SIDE);
                    let weight = u64::from(weights[row])
                        + u64::from(weights[SIDE + col])
                        + u64::from(weights[2 * SIDE + row / 4 * 4 + col / 4]);
                    let (ours, theirs) = (count * best.1, best.0 * weight);
                    if ours < theirs || (ours == theirs && cell < best.2) {
                        best = (count, weight, cell);
                    }
                }
            }
        }
        (best.2, 1 << self.first_digit(best.2))
    }

    /// Not measured on 16×16: its guesses stay as they were.
    const LAST_CONFLICT: bool = false;

    fn candidate_masks(&self) -> Vec<u32> {
        (0..CELLS)
            .map(|cell| {
                (0..SIDE)
                    .filter(|&d| self.planes[d][cell / 64] >> (cell % 64) & 1 != 0)
                    .fold(0, |mask, d| mask | 1 << d)
            })
            .collect()
    }

    #[inline(always)]
    fn open_digit(&self, cell: usize) -> Option<u32> {
        let open = self.placed[cell / 64] >> (cell % 64) & 1 == 0;
        open.then(|| 1 << self.first_digit(cell))
    }
}

#[cfg(test)]
mod tests {
    use super::{
        clue_planes_portable, hidden_single_cells_portable, nonzero_bytes, solved_values_portable,
        CELLS, PEERS, SIDE,
    };

    /// The states of a 64-bit linear congruential generator after `seed`, one a call:
    /// the tests' reproducible random planes and lines.
    fn lcg(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            seed
        }
    }

    /// The AVX2 scan for hidden singles finds what the portable one finds, on planes of
    /// every density, with some units emptied.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn hidden_singles_with_avx2_match_the_portable_scan() {
        if !crate::sudoku::big::planes_x86::has_avx2() {
            return;
        }
        let mut state = lcg(5);
        let mut next = || {
            let seed = state();
            seed ^ seed >> 29
        };
        let (mut found, mut empty) = (0, 0);
        for round in 0..200_000 {
            // Sparse planes (a few places per unit, as late in a search) to dense ones.
            let keep = round % 6;
            let mut plane = [0u64; 4];
            for word in &mut plane {
                *word = (0..keep).fold(u64::MAX, |bits, _| bits & next());
            }
            let placed = [
                next() & next(),
                next() & next(),
                next() & next(),
                next() & next(),
            ];
            let portable = hidden_single_cells_portable(&plane, &placed);
            // SAFETY: the CPU has AVX2, checked above.
            let avx2 =
                unsafe { crate::sudoku::big::planes_x86::hidden_single_cells(&plane, &placed) };
            match (&portable, avx2) {
                (Ok(cells), Some(vector)) => {
                    assert_eq!(*cells, vector, "plane {plane:x?} placed {placed:x?}");
                    found += u32::from(cells.iter().any(|&c| c != 0));
                }
                (Err(_), None) => empty += 1,
                _ => panic!(
                    "plane {plane:x?}: portable {:?}, AVX2 {avx2:x?}",
                    portable.is_ok()
                ),
            }
        }
        // Both outcomes, and singles found, are exercised.
        assert!(
            found > 10_000 && empty > 10_000,
            "{found} with singles, {empty} empty"
        );
    }

    /// The AVX2 way in and out of the board (clue planes from a line of values, a solved
    /// board's values) agree with the portable loops, on lines of every density and on
    /// boards of every digit in every cell.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn clue_planes_and_solved_values_with_avx2_match_the_portable_loops() {
        use crate::sudoku::big::planes_x86;
        if !planes_x86::has_avx2() {
            return;
        }
        let mut state = lcg(11);
        let mut next = || (state() >> 33) as usize;
        for round in 0..2_000 {
            // Blanks from none to all but a few; the digits 1 to 16.
            let blanks = round % (CELLS + 1);
            let mut values = [0u8; CELLS];
            for value in &mut values {
                if next() % CELLS >= blanks {
                    *value = (next() % SIDE) as u8 + 1;
                }
            }
            let portable = clue_planes_portable(&values);
            // SAFETY: the CPU has AVX2, checked above.
            let avx2 = unsafe { planes_x86::clue_planes(&values) };
            assert_eq!(portable, avx2, "values {values:?}");
            // Every cell in exactly one plane, as on a solved board.
            let mut filled = values;
            for value in &mut filled {
                if *value == 0 {
                    *value = (next() % SIDE) as u8 + 1;
                }
            }
            let planes = clue_planes_portable(&filled);
            let (mut slow, mut fast) = ([0u8; CELLS], [0u8; CELLS]);
            solved_values_portable(&planes, &mut slow);
            // SAFETY: the CPU has AVX2, checked above.
            unsafe { planes_x86::solved_values(&planes, &mut fast) };
            assert_eq!(slow, filled);
            assert_eq!(fast, filled);
        }
    }

    #[test]
    fn nonzero_bytes_marks_every_nonzero_byte() {
        let mut bytes = [0u8; 64];
        assert_eq!(nonzero_bytes(&bytes), 0);
        for (i, byte) in bytes.iter_mut().enumerate() {
            // Every value, the high bit's and 0x80 alone among them.
            *byte = [1, 0, 0x80, 16, 0, 0xFF, 0x7F][i % 7];
        }
        let expected = (0..64)
            .filter(|&i| bytes[i] != 0)
            .fold(0u64, |m, i| m | 1 << i);
        assert_eq!(nonzero_bytes(&bytes), expected);
    }

    #[test]
    fn each_cell_has_thirty_nine_peers_and_is_not_its_own() {
        for (cell, peers) in PEERS.iter().enumerate() {
            let count: u32 = peers.iter().map(|w| w.count_ones()).sum();
            assert_eq!(count, 15 + 15 + 9, "cell {cell}");
            assert_eq!(peers[cell / 64] >> (cell % 64) & 1, 0, "cell {cell}");
        }
        // Cell 0's peers: row 0, column 0, and the box of rows 0–3, columns 0–3.
        assert_eq!(PEERS[0][0], 0x000F_000F_000F_FFFE);
        assert_eq!(PEERS[0][1], 0x0001_0001_0001_0001);
    }
}
