//! The bitset solver for 9×9 grids (`--algo fast`), in the family of the band-oriented
//! solvers (JCZSolve, and the `sudoku` crate after it).
//!
//! Representation: for each digit and each band (three rows), the cells that may still
//! hold the digit, as a 27-bit word (see [`tables`]). 27 words plus the solved cells of
//! each band make the whole state (216 bytes with the padding below), so a guess copies
//! it instead of keeping an undo log, and nothing is allocated per puzzle.
//!
//! The word of digit `d` and band `b` is number `16 * b + d`: a band's nine words are
//! contiguous (words 9 to 15 of each band unused), so clearing solved cells from every
//! digit of a band is one 8-lane AVX2 operation plus one word (see [`x86::clear8`]), and an
//! update finds its band and digit with a shift and a mask. An update writes its word back
//! only after that clear, so the vector load never waits on a narrower store to the same words still in flight (the
//! reason an earlier band-major layout, whose clear the compiler vectorised by itself
//! after such a store, was slower).
//!
//! Propagation runs to a fixed point:
//! - per digit and band, one table lookup applies every locked-candidates deduction inside
//!   the band (pointing and claiming) and finds hidden singles in its rows and boxes; a
//!   digit solved in a row is then removed from its column in the other two bands and
//!   from the other digits of its cell. Only the digit-bands that changed are revisited,
//!   lowest first (a dirty mask of a bit per word), so that work follows the changes;
//! - naked singles (cells with one candidate left) and empty cells, for all 27 cells of a
//!   band at once by counting candidates with bitwise adders over the nine digits;
//! - when those are exhausted, locked candidates across bands (per digit and stack, the
//!   same permutation table as within a band), while at least [`STACK_MIN_UNSOLVED`] cells
//!   are unsolved: they remove candidates that hidden singles in columns miss, and so
//!   guesses.
//!
//! Then it guesses on a cell with the fewest candidates, preferring the one that sees the
//! most unsolved cells (see [`State::guess_cell`]): a cheap choice that propagates far.
//!
//! On x86-64 the search is compiled three times: for any CPU, for the bit-manipulation
//! instructions and AVX2, and for those with the minirows found by bit extraction (`pext`)
//! on CPUs where it is fast (chosen at run time, see [`solve`]). The only `unsafe` is the
//! call of the latter two after the CPU's features were checked, and the parts they write
//! with intrinsics: the set-up of the clues, the clear of solved cells, the count of a
//! band's candidates and the minirows (see [`x86`]).

mod tables;
#[cfg(target_arch = "x86_64")]
mod x86;
#[cfg(target_arch = "x86_64")]
pub(crate) use x86::has_modern_features;

use tables::{
    BAND, BAND_PEERS, BOX_CELLS, BYTES_OF_BITS, CELLS_KEPT, CELL_UNITS, MINIROWS_KEPT,
    MINIROWS_OF_ROW, ROW_CELLS,
};

use super::{Grid, LineResult, SearchResult};
use crate::budget::Meter;

/// The search state: candidates per digit and band, solved cells per band, and the
/// digit-bands whose candidates changed since they were last propagated.
#[derive(Debug, Clone, Copy)]
struct State {
    /// `candidates[16 * band + digit]`: 27-bit cell mask (digits 0-based); the words
    /// `16 * band + 9` to `16 * band + 15` are unused and stay 0.
    candidates: [u32; 48],
    /// Cells of each band whose digit is known.
    solved: [u32; 3],
    /// Bit `16 * band + digit` set when that word changed and awaits propagation.
    dirty: u64,
    /// Bit `digit` set when one of the digit's words changed since the last
    /// [`stack_deductions`](Self::stack_deductions), which skips the other digits.
    stack_dirty: u32,
}

/// Locked candidates across bands are looked for only while at least this many cells are
/// unsolved: in nearly solved grids they rarely remove anything and cost a pass over every
/// changed digit.
const STACK_MIN_UNSOLVED: u32 = 28;

/// Below this many unsolved cells, the guess is the first cell with two candidates rather
/// than the most connected one (see [`State::guess_cell`]): late in the search the choice
/// saves few guesses, and finding the most connected cell costs a population count per
/// two-candidate cell.
const MOST_CONNECTED_MIN_UNSOLVED: u32 = 28;

/// Why a state cannot lead to a solution.
struct Contradiction;

impl State {
    /// The state of a puzzle's clues; `Err` if two clues conflict.
    ///
    /// The clues' units are gathered first and each digit-band's candidates computed once
    /// from them, instead of placing the clues one by one: the state of a Kaggle puzzle
    /// (about 33 clues) took a third of its whole solving time when placed clue by clue.
    #[inline(always)]
    fn from_grid(grid: &Grid) -> Result<Self, Contradiction> {
        // Per value (0 for a blank, so that no cell needs a branch: a blank or not is
        // unpredictable, and the branch cost a fifth of an easy puzzle's time): rows,
        // columns and boxes holding it (a bit per unit), units seen twice, and its cells.
        // The arrays have 16 entries and 4 bands so that a mask, not a remainder, keeps
        // the indices in range (cell values are at most 9, bands at most 2).
        let mut units = [0u32; 16];
        let mut repeated = [0u32; 16];
        let mut cells = [[0u32; 4]; 16];
        for (&value, &(unit_bits, band, bit)) in grid.cells().iter().zip(CELL_UNITS.iter()) {
            let value = value as usize & 15;
            repeated[value] |= units[value] & unit_bits;
            units[value] |= unit_bits;
            cells[value][band as usize & 3] |= bit;
        }
        if repeated[1..10].iter().any(|&r| r != 0) {
            return Err(Contradiction);
        }
        let clue_cells = [0, 1, 2].map(|band| BAND & !cells[0][band]);
        let mut candidates = [0u32; 48];
        for digit in 0..9 {
            let units = units[digit + 1];
            let column_cells = (units >> 9 & 0x1FF) * 0x40201;
            for band in 0..3 {
                let unit_cells = ROW_CELLS[(units >> (3 * band) & 7) as usize]
                    | BOX_CELLS[(units >> (18 + 3 * band) & 7) as usize]
                    | column_cells;
                candidates[word_index(band, digit)] =
                    BAND & !unit_cells & !clue_cells[band] | cells[digit + 1][band];
            }
        }
        Ok(Self::with_clues(candidates, clue_cells))
    }

    /// The state of a puzzle's candidates and clue cells, before any propagation: every
    /// digit-band awaits it.
    #[inline(always)]
    fn with_clues(candidates: [u32; 48], clue_cells: [u32; 3]) -> Self {
        State {
            candidates,
            solved: clue_cells,
            dirty: 0x01FF_01FF_01FF,
            stack_dirty: 0x1FF,
        }
    }

    /// [`from_grid`](Self::from_grid), with AVX2 when `AVX` is true (see
    /// [`x86::clue_state`]).
    #[inline(always)]
    fn set_up<const AVX: bool>(grid: &Grid) -> Result<Self, Contradiction> {
        #[cfg(target_arch = "x86_64")]
        if AVX {
            let values = grid.cells().try_into().expect("a 9×9 grid has 81 cells");
            // SAFETY: `AVX` is true only in `solve_modern` and `solve_modern_pext`, which
            // `solve` calls only on CPUs that have AVX2.
            return unsafe { x86::clue_state(values) };
        }
        Self::from_grid(grid)
    }

    /// Puts `digit` in `cell` of `band`: the other digits leave the cell and the digit
    /// leaves the rest of the cell's row and box. Its column in the other bands is
    /// cleared when the digit-band is propagated.
    #[inline(always)]
    fn place<const AVX: bool>(&mut self, digit: usize, band: usize, cell: u32) {
        let mut dirty = self.dirty;
        self.clear_cells::<AVX>(&mut dirty, band, 1 << cell);
        self.candidates[word_index(band, digit)] |= 1 << cell;
        self.remove(
            &mut dirty,
            word_index(band, digit),
            BAND_PEERS[cell as usize],
        );
        self.dirty = dirty;
    }

    /// Removes `cells` from the words of every digit in `band`, marking those it changed:
    /// digits 0 to 7 at once (see [`clear8`]), then digit 8. `AVX` is true in the searches
    /// compiled for AVX2 ([`Search::run_modern`], [`Search::run_modern_pext`]).
    #[inline(always)]
    fn clear_cells<const AVX: bool>(&mut self, dirty: &mut u64, band: usize, cells: u32) {
        let start = word_index(band, 0);
        let words: &mut [u32; 8] = (&mut self.candidates[start..start + 8])
            .try_into()
            .expect("eight words");
        #[cfg(target_arch = "x86_64")]
        let changed = if AVX {
            // SAFETY: `AVX` is true only in `Search::run_modern` and
            // `Search::run_modern_pext`, which `solve` calls only on CPUs that have AVX2.
            unsafe { x86::clear8(words, cells) }
        } else {
            clear8(words, cells)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let changed = clear8(words, cells);
        let last = &mut self.candidates[start + 8];
        let changed = changed | u32::from(*last & cells != 0) << 8;
        *last &= !cells;
        *dirty |= u64::from(changed) << start;
    }

    /// Removes `cells` from word `index`, marking it dirty if that changed it.
    #[inline(always)]
    fn remove(&mut self, dirty: &mut u64, index: usize, cells: u32) {
        // Branch-free: whether a word changes is unpredictable.
        let old = self.candidates[index];
        let new = old & !cells;
        self.candidates[index] = new;
        *dirty |= u64::from(new != old) << index;
    }

    /// The number of cells whose digit is not known yet.
    #[inline(always)]
    fn unsolved(&self) -> u32 {
        self.solved
            .iter()
            .map(|&solved| (!solved & BAND).count_ones())
            .sum()
    }

    /// Whether every cell is solved.
    #[inline]
    fn is_solved(&self) -> bool {
        self.solved == [BAND; 3]
    }

    /// Propagates one digit-band: locked candidates and hidden singles in the band, then
    /// the consequences of the digit's newly solved cells.
    #[inline(always)]
    fn update<const AVX: bool, const PEXT: bool>(
        &mut self,
        dirty: &mut u64,
        index: usize,
    ) -> Result<(), Contradiction> {
        let (band, digit) = (index >> 4, index & 15);
        self.stack_dirty |= 1 << digit;
        let word = self.candidates[index];
        #[cfg(target_arch = "x86_64")]
        let occupied = if PEXT {
            // SAFETY: `PEXT` is true only in `Search::run_modern_pext`, which `solve` calls
            // only on CPUs that have BMI2.
            unsafe { x86::minirows_pext(word) }
        } else {
            minirows(word)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let occupied = minirows(word);
        // The mask keeps the index in range, which drops the bounds check.
        let word = word & CELLS_KEPT[(occupied & 0x1FF) as usize];
        if word == 0 {
            return Err(Contradiction);
        }
        // Rows left with one candidate: the digit is solved there.
        let single = |row: u32| {
            if row & row.wrapping_sub(1) == 0 {
                row
            } else {
                0
            }
        };
        let singles = single(word & 0x1FF)
            | single(word >> 9 & 0x1FF) << 9
            | single(word >> 18 & 0x1FF) << 18;
        let new = singles & !self.solved[band];
        if new == 0 {
            self.candidates[index] = word;
            return Ok(());
        }
        self.solved[band] |= new;
        // The other digits leave the new cells: cleared for all nine digits without a
        // branch, then this digit's word is written (only now, after the vector clear:
        // see the module documentation).
        self.clear_cells::<AVX>(dirty, band, new);
        self.candidates[index] = word;
        *dirty &= !(1u64 << index);
        let columns = (new | new >> 9 | new >> 18) & 0x1FF;
        let column_cells = columns * 0x40201;
        let (first, second) = match band {
            0 => (1, 2),
            1 => (0, 2),
            _ => (0, 1),
        };
        self.remove(dirty, word_index(first, digit), column_cells);
        self.remove(dirty, word_index(second, digit), column_cells);
        Ok(())
    }

    /// Runs the deductions to a fixed point. Returns the cells left with two candidates,
    /// per band (none once solved).
    #[inline(always)]
    fn propagate<const AVX: bool, const PEXT: bool>(&mut self) -> Result<[u32; 3], Contradiction> {
        let mut pairs = [0; 3];
        // The dirty mask lives in a register here rather than in the state, whose copy
        // in memory put a store and a reload on the critical path of every update.
        let mut dirty = std::mem::take(&mut self.dirty);
        loop {
            while dirty != 0 {
                let index = dirty.trailing_zeros() as usize;
                dirty &= dirty - 1;
                self.update::<AVX, PEXT>(&mut dirty, index)?;
            }
            if self.is_solved() {
                return Ok([0; 3]);
            }
            // Naked singles and empty cells.
            for (band, pairs) in pairs.iter_mut().enumerate() {
                let unsolved = !self.solved[band] & BAND;
                let (some, two, three) = self.candidate_counts::<AVX>(band);
                if unsolved & !some != 0 {
                    return Err(Contradiction);
                }
                *pairs = unsolved & two & !three;
                let singles = unsolved & !two;
                if singles != 0 {
                    for digit in 0..9 {
                        let mut cells = singles & self.candidates[word_index(band, digit)];
                        let mut peers = 0;
                        while cells != 0 {
                            peers |= BAND_PEERS[cells.trailing_zeros() as usize];
                            cells &= cells - 1;
                        }
                        // Two singles of one digit that see each other both lose it:
                        // the emptied cells are caught on the next pass.
                        self.remove(&mut dirty, word_index(band, digit), peers);
                    }
                }
            }
            if dirty == 0 {
                if self.unsolved() >= STACK_MIN_UNSOLVED {
                    self.stack_deductions(&mut dirty)?;
                }
                if dirty == 0 {
                    // The last pass found no single and changed nothing: `pairs` is exact.
                    return Ok(pairs);
                }
            }
        }
    }

    /// The cells of `band` with at least one, two and three candidates: bitwise adders
    /// over the nine digits' words, the first eight at once with AVX2 when `AVX` is true
    /// (see [`x86::count8`]).
    #[inline(always)]
    fn candidate_counts<const AVX: bool>(&self, band: usize) -> (u32, u32, u32) {
        let start = word_index(band, 0);
        let (mut some, mut two, mut three) = (0, 0, 0);
        #[cfg(target_arch = "x86_64")]
        if AVX {
            let words = (&self.candidates[start..start + 8])
                .try_into()
                .expect("eight words");
            // SAFETY: `AVX` is true only in `Search::run_modern` and
            // `Search::run_modern_pext`, which `solve` calls only on CPUs that have AVX2.
            (some, two, three) = unsafe { x86::count8(words) };
        }
        let digits = if AVX && cfg!(target_arch = "x86_64") {
            8..9
        } else {
            0..9
        };
        for digit in digits {
            let word = self.candidates[start + digit];
            three |= two & word;
            two |= some & word;
            some |= word;
        }
        (some, two, three)
    }

    /// Locked candidates across bands: per digit and stack (three columns of boxes), the
    /// digit takes one column of the stack in each band and one band in each column, a
    /// permutation again; columns that fit no permutation lose the digit. This also finds
    /// columns left without the digit and, with the band deductions, hidden singles in
    /// columns.
    #[inline(always)]
    fn stack_deductions(&mut self, dirty: &mut u64) -> Result<(), Contradiction> {
        let mut digits = std::mem::take(&mut self.stack_dirty);
        while digits != 0 {
            let digit = digits.trailing_zeros() as usize;
            digits &= digits - 1;
            let present = [0, 1, 2].map(|band| {
                let word = self.candidates[word_index(band, digit)];
                (word | word >> 9 | word >> 18) & 0x1FF
            });
            let mut kept = [0u32; 3];
            for stack in 0..3 {
                let shift = 3 * stack;
                let occupied = (present[0] >> shift & 7)
                    | (present[1] >> shift & 7) << 3
                    | (present[2] >> shift & 7) << 6;
                let allowed = u32::from(MINIROWS_KEPT[occupied as usize]);
                if allowed == 0 {
                    return Err(Contradiction);
                }
                kept[0] |= (allowed & 7) << shift;
                kept[1] |= (allowed >> 3 & 7) << shift;
                kept[2] |= (allowed >> 6 & 7) << shift;
            }
            for (band, kept) in kept.into_iter().enumerate() {
                self.remove(dirty, word_index(band, digit), !(kept * 0x40201) & BAND);
            }
        }
        Ok(())
    }

    /// The cell to guess on: among the cells with the fewest candidates (two, nearly
    /// always), the one that sees the most unsolved cells, whose guess therefore
    /// propagates furthest (in nearly solved grids, the first; see
    /// [`MOST_CONNECTED_MIN_UNSOLVED`]).
    ///
    /// A cell that sees many unsolved cells removes its digit from many of them once
    /// guessed, so the search needs fewer guesses than with the first such cell.
    /// `pairs` are the cells with two candidates, as [`propagate`](Self::propagate)
    /// counted them.
    #[inline(always)]
    fn guess_cell(&self, pairs: [u32; 3]) -> (usize, u32) {
        let unsolved = self.solved.map(|solved| !solved & BAND);
        if pairs != [0; 3] {
            if self.unsolved() < MOST_CONNECTED_MIN_UNSOLVED {
                let band = pairs.iter().position(|&cells| cells != 0).unwrap_or(0) % 3;
                return (band, pairs[band].trailing_zeros());
            }
            return self.most_connected(pairs, unsolved);
        }
        // No cell of two candidates: per band, the cells with at least 2, 3 and 4
        // candidates (bit-sliced counting), for those with exactly three.
        let mut at_least = [[0u32; 4]; 3];
        for (band, at_least) in at_least.iter_mut().enumerate() {
            for digit in 0..9 {
                let word = self.candidates[word_index(band, digit)];
                at_least[3] |= at_least[2] & word;
                at_least[2] |= at_least[1] & word;
                at_least[1] |= at_least[0] & word;
                at_least[0] |= word;
            }
        }
        let cells = [0, 1, 2].map(|band| unsolved[band] & at_least[band][2] & !at_least[band][3]);
        if cells != [0; 3] {
            return self.most_connected(cells, unsolved);
        }
        // Four candidates or more everywhere (only in nearly empty grids): the fewest.
        let mut fewest = (u32::MAX, 0, 0);
        for (band, &cells) in unsolved.iter().enumerate() {
            let mut cells = cells;
            while cells != 0 {
                let cell = cells.trailing_zeros();
                cells &= cells - 1;
                let count = self.digits_of(band, cell).count_ones();
                if count < fewest.0 {
                    fewest = (count, band, cell);
                }
            }
        }
        (fewest.1, fewest.2)
    }

    /// Of `cells` (per band), the first that sees the most `unsolved` cells.
    #[inline(always)]
    fn most_connected(&self, cells: [u32; 3], unsolved: [u32; 3]) -> (usize, u32) {
        let mut best = (0, 0, 0);
        for (band, &cells) in cells.iter().enumerate() {
            let mut cells = cells;
            while cells != 0 {
                let cell = cells.trailing_zeros();
                cells &= cells - 1;
                // One population count for the three parts (a software count without
                // the popcnt instruction: three counts took a sixth of the time).
                let column = cell % 9;
                let in_column = (unsolved[(band + 1) % 3] >> column & 0x40201)
                    | (unsolved[(band + 2) % 3] >> column & 0x40201) << 1;
                let seen = (u64::from(BAND_PEERS[cell as usize] & unsolved[band])
                    | u64::from(in_column) << 27)
                    .count_ones()
                    + 1;
                if seen > best.0 {
                    best = (seen, band, cell);
                }
            }
        }
        (best.1, best.2)
    }

    /// The candidates of a cell as a 9-bit mask (bit `d` for digit `d + 1`).
    #[inline(always)]
    fn digits_of(&self, band: usize, cell: u32) -> u32 {
        (0..9).fold(0, |mask, digit| {
            mask | (self.candidates[word_index(band, digit)] >> cell & 1) << digit
        })
    }
}

/// The cell values of a solved state's `candidates`, each ORed with `offset` (0 for the
/// values, `b'0'` for their characters); bytes 81 to 85 are padding.
///
/// Per band, the four [`value_planes`] spread eight cells at a time into eight bytes by a
/// table, rather than walking each digit's cells one by one. (`x86::solution_bytes` is the
/// AVX2 twin.)
fn solution_bytes(candidates: &[u32; 48], offset: u8) -> [u8; 86] {
    // Each band writes 32 bytes from its first cell; the last band's end at byte 86.
    let mut values = [0u8; 86];
    let offsets = u64::from_le_bytes([offset; 8]);
    for band in 0..3 {
        let planes = value_planes(candidates, band);
        for chunk in 0..4 {
            let spread = |k: usize| BYTES_OF_BITS[(planes[k] >> (8 * chunk) & 0xFF) as usize];
            let bytes = spread(0) | spread(1) << 1 | spread(2) << 2 | spread(3) << 3 | offsets;
            let start = 27 * band + 8 * chunk;
            values[start..start + 8].copy_from_slice(&bytes.to_le_bytes());
        }
    }
    values
}

/// The four bit planes of a solved band's cell values: bit `k` of a cell's value is set
/// in plane `k` when the cell holds one of the digits with that bit.
#[inline(always)]
fn value_planes(candidates: &[u32; 48], band: usize) -> [u32; 4] {
    let cells = |digit: usize| candidates[word_index(band, digit)];
    [
        cells(0) | cells(2) | cells(4) | cells(6) | cells(8),
        cells(1) | cells(2) | cells(5) | cells(6),
        cells(3) | cells(4) | cells(5) | cells(6),
        cells(7) | cells(8),
    ]
}

/// The index of the word of `digit` (0-based) in `band` (see the module documentation).
#[inline(always)]
const fn word_index(band: usize, digit: usize) -> usize {
    16 * band + digit
}

/// The minirows of a digit-band word that hold a candidate, as 9 bits (see
/// [`tables`]): a lookup per row.
#[inline(always)]
fn minirows(word: u32) -> u32 {
    // The masks keep every index in range, which drops the bounds checks.
    u32::from(MINIROWS_OF_ROW[(word & 0x1FF) as usize])
        | u32::from(MINIROWS_OF_ROW[(word >> 9 & 0x1FF) as usize]) << 3
        | u32::from(MINIROWS_OF_ROW[(word >> 18 & 0x1FF) as usize]) << 6
}

/// Clears `cells` from eight words; bit `i` of the result is set when word `i` held one
/// of them.
#[inline(always)]
fn clear8(words: &mut [u32; 8], cells: u32) -> u32 {
    let mut changed = 0u32;
    for (digit, word) in words.iter_mut().enumerate() {
        changed |= u32::from(*word & cells != 0) << digit;
        *word &= !cells;
    }
    changed
}

/// One search: the limit, and what was found so far.
struct Search<'m> {
    limit: u64,
    /// What was found so far, but the first solution: that is [`first`](Self::first).
    result: SearchResult,
    /// The candidates of the first solution's state, turned into a grid or a line only
    /// once the search is over.
    first: Option<[u32; 48]>,
    /// The budget: told the guesses in bulk when `result.guesses` reaches `check_at`
    /// (never without a budget), so an unbudgeted guess costs one comparison.
    meter: &'m mut Meter,
    check_at: u64,
    /// Guesses the meter was told.
    told: u64,
}

impl Search<'_> {
    /// Tells the meter the guesses since it was last told; true once the budget is spent.
    #[cold]
    #[inline(never)]
    fn over_budget(&mut self) -> bool {
        let fresh = self.result.guesses - self.told;
        self.told = self.result.guesses;
        if self.meter.spend_many(fresh) {
            self.result.stopped = self.meter.over();
            // The guess that found the budget spent is not made: not counted either.
            self.result.guesses -= 1;
            return true;
        }
        self.check_at = self
            .result
            .guesses
            .saturating_add(self.meter.nodes_until_check());
        false
    }

    /// Propagates `state` and searches below it; true when the limit is reached.
    /// `recurse` searches below a guess: this same function, compiled for the same
    /// instruction set (see [`solve`]).
    #[inline(always)]
    fn run_with<const AVX: bool, const PEXT: bool>(
        &mut self,
        mut state: State,
        recurse: impl Fn(&mut Self, State) -> bool,
    ) -> bool {
        loop {
            let Ok(pairs) = state.propagate::<AVX, PEXT>() else {
                return false;
            };
            if state.is_solved() {
                self.result.solutions += 1;
                if self.first.is_none() {
                    self.first = Some(state.candidates);
                }
                return self.result.solutions >= self.limit;
            }
            let (band, cell) = state.guess_cell(pairs);
            let mut digits = state.digits_of(band, cell);
            // Every digit but the last is tried on a copy; the last reuses this state.
            loop {
                let digit = digits.trailing_zeros() as usize;
                digits &= digits - 1;
                self.result.guesses += 1;
                if self.result.guesses >= self.check_at && self.over_budget() {
                    return true;
                }
                if digits == 0 {
                    state.place::<AVX>(digit, band, cell);
                    break;
                }
                let mut copy = state;
                copy.place::<AVX>(digit, band, cell);
                if recurse(self, copy) {
                    return true;
                }
            }
        }
    }

    /// [`run_with`](Self::run_with) for any CPU.
    fn run_portable(&mut self, state: State) -> bool {
        self.run_with::<false, false>(state, Self::run_portable)
    }

    /// [`run_with`](Self::run_with) with the bit-manipulation instructions of x86-64 CPUs
    /// since about 2013 (population count, trailing zeros, bit extraction) and AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
    fn run_modern(&mut self, state: State) -> bool {
        self.run_with::<true, false>(state, |search, state| search.run_modern(state))
    }

    /// [`run_modern`](Self::run_modern) with the minirows found by bit extraction (see
    /// [`x86::minirows_pext`]), for CPUs on which it is fast.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
    fn run_modern_pext(&mut self, state: State) -> bool {
        self.run_with::<true, true>(state, |search, state| search.run_modern_pext(state))
    }
}

/// Counts the solutions of a 9×9 `grid` up to `limit` (at least 1), keeping the first.
/// `guesses` counts the digits tried in cells that had two or more candidates left, and
/// so does `meter`, which stops the search when its budget is spent.
///
/// On x86-64 CPUs that have them, the search is compiled for the bit-manipulation
/// instructions and AVX2 (detected at run time; the portable build's population counts
/// are a dozen instructions each). On CPUs whose `pext` is fast, the third build
/// ([`Search::run_modern_pext`]) is taken.
///
/// # Panics
/// If `grid` is not 9×9.
pub fn solve(grid: &Grid, limit: u64, meter: &mut Meter) -> SearchResult {
    assert_eq!(grid.side(), 9, "the fast solver takes 9×9 grids");
    #[cfg(target_arch = "x86_64")]
    if x86::has_modern_features() {
        // SAFETY: the CPU has every feature `solve_modern` and `solve_modern_pext` are
        // compiled for.
        return unsafe {
            if x86::has_fast_pext() {
                solve_modern_pext(grid, limit, meter)
            } else {
                solve_modern(grid, limit, meter)
            }
        };
    }
    solve_portable(grid, limit, meter)
}

/// [`solve`] compiled for the features of [`Search::run_modern`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
fn solve_modern(grid: &Grid, limit: u64, meter: &mut Meter) -> SearchResult {
    let state = State::set_up::<true>(grid);
    let found = search(state, limit, meter, |search, state| {
        search.run_modern(state)
    });
    // SAFETY: this function is compiled for AVX2.
    grid_result(found, |candidates| unsafe {
        x86::solution_bytes(candidates, 0)
    })
}

/// [`solve`] compiled for the features of [`Search::run_modern_pext`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
fn solve_modern_pext(grid: &Grid, limit: u64, meter: &mut Meter) -> SearchResult {
    let state = State::set_up::<true>(grid);
    let found = search(state, limit, meter, |search, state| {
        search.run_modern_pext(state)
    });
    // SAFETY: this function is compiled for AVX2.
    grid_result(found, |candidates| unsafe {
        x86::solution_bytes(candidates, 0)
    })
}

/// [`solve`] for any CPU.
fn solve_portable(grid: &Grid, limit: u64, meter: &mut Meter) -> SearchResult {
    let state = State::set_up::<false>(grid);
    let found = search(state, limit, meter, |search, state| {
        search.run_portable(state)
    });
    grid_result(found, |candidates| solution_bytes(candidates, 0))
}

/// Counts the solutions of a 9×9 puzzle given as its line, 81 characters `1` to `9` for
/// the clues and `0` or `.` for the blanks, as [`solve`] counts them, and writes the
/// first solution's line (digits `1` to `9`) into `solution`. `None`, with nothing
/// searched, when the line holds another character or the CPU lacks the features of the
/// modern builds (parse a [`Grid`] then).
///
/// The batch job's route for plain 9×9 lines: building a grid from the line and another
/// from the solution, then writing that one's line, took a fifth of an easy puzzle's
/// whole row.
pub fn solve_line(
    line: &[u8; 81],
    limit: u64,
    meter: &mut Meter,
    solution: &mut [u8; 81],
) -> Option<LineResult> {
    #[cfg(target_arch = "x86_64")]
    if x86::has_modern_features() {
        // SAFETY: the CPU has every feature `solve_line_modern` is compiled for.
        return unsafe { solve_line_modern(line, limit, meter, solution, x86::has_fast_pext()) };
    }
    let _ = (line, limit, meter, solution);
    None
}

/// [`solve_line`] compiled for the features of [`Search::run_modern`], taking
/// [`Search::run_modern_pext`] when `pext` is true.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
fn solve_line_modern(
    line: &[u8; 81],
    limit: u64,
    meter: &mut Meter,
    solution: &mut [u8; 81],
    pext: bool,
) -> Option<LineResult> {
    // SAFETY: this function is compiled for AVX2.
    let values = unsafe { x86::line_values(line) }?;
    // SAFETY: as above.
    let state = unsafe { x86::clue_state_of(values) };
    let (result, first) = if pext {
        search(state, limit, meter, |search, state| {
            search.run_modern_pext(state)
        })
    } else {
        search(state, limit, meter, |search, state| {
            search.run_modern(state)
        })
    };
    if let Some(candidates) = first {
        // SAFETY: as above.
        unsafe { x86::solution_line(&candidates, solution) };
    }
    Some(LineResult {
        solutions: result.solutions,
        guesses: result.guesses,
        stopped: result.stopped,
    })
}

/// A search's result with its first solution (as [`search`] gives it) as a grid, its
/// cell values written by `values` ([`solution_bytes`] or its twin).
#[inline(always)]
fn grid_result(
    (mut result, first): (SearchResult, Option<[u32; 48]>),
    values: impl Fn(&[u32; 48]) -> [u8; 86],
) -> SearchResult {
    result.first_solution =
        first.and_then(|candidates| Grid::from_slice(&values(&candidates)[..81]));
    result
}

/// Searches from the clues' `state` with `run` (nothing to search when they conflict):
/// what was found, and the candidates of the first solution's state.
#[inline(always)]
fn search(
    state: Result<State, Contradiction>,
    limit: u64,
    meter: &mut Meter,
    run: impl Fn(&mut Search, State) -> bool,
) -> (SearchResult, Option<[u32; 48]>) {
    let mut search = Search {
        limit: limit.max(1),
        result: SearchResult::default(),
        first: None,
        check_at: meter.nodes_until_check(),
        told: 0,
        meter,
    };
    if let Ok(state) = state {
        run(&mut search, state);
    }
    (search.result, search.first)
}

#[cfg(test)]
mod tests;
