//! The search state and its propagation: a candidate mask per cell, and the deductions
//! that shrink the masks to a fixed point.

use std::marker::PhantomData;

use super::search::Node;
use super::shape::Shape;

/// Set in a cell's mask once its digit has been placed (removed from its peers); the
/// digits themselves use the low bits.
const PLACED: u32 = 1 << 31;

/// Why a state cannot lead to a solution: the units where it showed (a bit per unit, see
/// [`Shape::unit_cell`]), whose weight the search raises.
#[derive(Debug)]
pub(super) struct Contradiction(pub(super) u128);

/// The mask of `c` if its cell is not placed yet, else 0: branch-free, since whether a
/// cell is placed is unpredictable in the scans.
#[inline(always)]
fn open_mask(c: u32) -> u32 {
    c & !((c as i32 >> 31) as u32)
}

/// Candidates per cell, and the number of cells not placed yet.
#[derive(Clone, Copy)]
pub(super) struct Board<S: Shape> {
    cells: S::Cells,
    /// Bit `unit` set when a cell of the unit lost a candidate since the unit was last
    /// scanned for hidden singles.
    dirty: u128,
    /// Bit `unit` set when a cell of the unit lost a candidate since the unit was last
    /// scanned for hidden pairs.
    stale: u128,
    unplaced: u32,
    shape: PhantomData<S>,
}

/// Cells whose mask shrank to one digit and that await placing.
pub(super) type Queue = Vec<u16>;

impl<S: Shape> Board<S> {
    /// The board of a grid's clues (`values`, row-major, 0 for a blank), propagated;
    /// `Err` if they contradict each other.
    ///
    /// The clues are placed in one pass over the cells rather than one at a time: each open
    /// cell starts with the digits its row, column and box do not hold, which costs a few
    /// operations per cell instead of `3 × SIDE` removals per clue.
    #[inline(always)]
    fn from_values(values: &[u8], queue: &mut Queue) -> Result<Self, Contradiction> {
        let units = |cell: usize| {
            let (row, col) = (cell / S::SIDE, cell % S::SIDE);
            let b = row / S::BOX * S::BOX + col / S::BOX;
            [row, S::SIDE + col, 2 * S::SIDE + b]
        };
        // Digits held by each unit: rows, then columns, then boxes.
        let mut held = [0u32; 75];
        for (cell, &value) in values.iter().enumerate() {
            if value != 0 {
                let digit = 1 << (value - 1);
                for unit in units(cell) {
                    if held[unit] & digit != 0 {
                        return Err(Contradiction(1 << unit));
                    }
                    held[unit] |= digit;
                }
            }
        }
        let mut board = Board {
            cells: S::all_candidates(),
            dirty: (1 << (3 * S::SIDE)) - 1,
            stale: (1 << (3 * S::SIDE)) - 1,
            unplaced: S::CELLS as u32,
            shape: PhantomData,
        };
        queue.clear();
        for (cell, &value) in values.iter().enumerate() {
            if value != 0 {
                board.set(cell, 1 << (value - 1) | PLACED);
                board.unplaced -= 1;
                continue;
            }
            let [row, col, b] = units(cell);
            let open = S::DIGITS & !(held[row] | held[col] | held[b]);
            if open == 0 {
                return Err(Contradiction(S::units_bits(cell)));
            }
            board.set(cell, open);
            if open & (open - 1) == 0 {
                queue.push(cell as u16);
            }
        }
        board.propagate(queue)?;
        Ok(board)
    }

    /// The board whose cells hold `masks` (a bit per candidate digit), propagated to a
    /// fixed point of singles and locked candidates elsewhere (the 25×25 set-up,
    /// [`Planes25`](super::planes25::Planes25)): the cells left with one candidate are
    /// the placed ones, and no unit awaits a scan for hidden singles. The deductions that
    /// board lacks (pairs) are applied here; `Err` if they meet a contradiction.
    #[inline(always)]
    pub(super) fn from_fixed_point(
        masks: &[u32],
        queue: &mut Queue,
    ) -> Result<Self, Contradiction> {
        let mut board = Board {
            cells: S::all_candidates(),
            dirty: 0,
            stale: (1 << (3 * S::SIDE)) - 1,
            unplaced: 0,
            shape: PhantomData,
        };
        for (cell, &mask) in masks.iter().enumerate() {
            if mask & (mask - 1) == 0 {
                board.set(cell, mask | PLACED);
            } else {
                board.set(cell, mask);
                board.unplaced += 1;
            }
        }
        queue.clear();
        board.propagate(queue)?;
        Ok(board)
    }

    /// The mask of `cell`.
    #[inline(always)]
    fn at(&self, cell: usize) -> u32 {
        AsRef::<[u32]>::as_ref(&self.cells)[cell]
    }

    /// Sets the mask of `cell`.
    #[inline(always)]
    fn set(&mut self, cell: usize, mask: u32) {
        AsMut::<[u32]>::as_mut(&mut self.cells)[cell] = mask;
    }

    /// Puts the digit of mask `digit` in `cell` (to be propagated).
    #[inline(always)]
    fn assign(&mut self, cell: usize, digit: u32, queue: &mut Queue) {
        self.set(cell, digit);
        self.dirty |= S::units_bits(cell);
        self.stale |= S::units_bits(cell);
        queue.push(cell as u16);
    }

    /// Removes the digits of `digits` from `cell`, queueing it if one digit is left.
    #[inline(always)]
    fn remove(&mut self, cell: usize, digits: u32, queue: &mut Queue) -> Result<(), Contradiction> {
        let old = self.at(cell);
        if old & digits == 0 {
            return Ok(());
        }
        let new = old & !digits;
        if new & S::DIGITS == 0 {
            return Err(Contradiction(S::units_bits(cell)));
        }
        self.set(cell, new);
        self.dirty |= S::units_bits(cell);
        self.stale |= S::units_bits(cell);
        if new & (new - 1) == 0 {
            queue.push(cell as u16);
        }
        Ok(())
    }

    /// Applies every deduction to a fixed point: naked singles, hidden singles, locked
    /// candidates (pointing and claiming), and on the shapes that use them hidden pairs,
    /// each only once the cheaper ones before it are at their fixed point.
    #[inline(always)]
    fn propagate(&mut self, queue: &mut Queue) -> Result<(), Contradiction> {
        loop {
            self.place_queued(queue)?;
            if self.unplaced == 0 {
                return Ok(());
            }
            if self.hidden_singles(queue)? {
                continue;
            }
            if self.locked_candidates(queue)? {
                continue;
            }
            if S::PAIRS && self.pairs(queue)? {
                continue;
            }
            return Ok(());
        }
    }

    /// Places every queued cell: its digit leaves its row, column and box, which queues
    /// the peers left with one digit in turn.
    #[inline(always)]
    fn place_queued(&mut self, queue: &mut Queue) -> Result<(), Contradiction> {
        while let Some(cell) = queue.pop() {
            let cell = cell as usize;
            let mask = self.at(cell);
            if mask & PLACED != 0 {
                continue;
            }
            // Cleared first, so that the loops below leave the cell itself alone.
            self.set(cell, PLACED);
            let (row, col) = (cell / S::SIDE, cell % S::SIDE);
            let b = row / S::BOX * S::BOX + col / S::BOX;
            self.remove_from_unit(|k| S::row_cell(row, k), mask, queue)?;
            self.remove_from_unit(|k| S::col_cell(col, k), mask, queue)?;
            self.remove_from_unit(|k| S::box_cell(b, k), mask, queue)?;
            self.set(cell, mask | PLACED);
            self.unplaced -= 1;
        }
        Ok(())
    }

    /// Removes `digit` from the cells of a unit (`cell_of(k)`, `k < SIDE`). The cells that
    /// hold it, a few of the unit's, are found first with no branch per cell: a branch per
    /// cell on whether it held the digit, mispredicted, was most of the placements' time.
    #[inline(always)]
    fn remove_from_unit(
        &mut self,
        cell_of: impl Fn(usize) -> usize,
        digit: u32,
        queue: &mut Queue,
    ) -> Result<(), Contradiction> {
        let mut holders = 0u32;
        for k in 0..S::SIDE {
            holders |= u32::from(self.at(cell_of(k)) & digit != 0) << k;
        }
        while holders != 0 {
            let k = holders.trailing_zeros() as usize;
            holders &= holders - 1;
            self.remove(cell_of(k), digit, queue)?;
        }
        Ok(())
    }

    /// Finds the digits with one place left in a unit and assigns them there; `Err` if a
    /// digit has no place left in some unit. True if it assigned any.
    ///
    /// The digits found are placed at once and the units that changed join the scan, so
    /// one call follows a whole cascade of singles: scanning every changed unit again
    /// after each round of placements made easy 25×25 puzzles slower than `dlx`.
    #[inline(always)]
    fn hidden_singles(&mut self, queue: &mut Queue) -> Result<bool, Contradiction> {
        let mut found = false;
        let mut dirty = 0;
        loop {
            dirty |= std::mem::take(&mut self.dirty);
            if dirty == 0 {
                break;
            }
            let unit = dirty.trailing_zeros() as usize;
            dirty &= dirty - 1;
            let (mut once, mut twice, mut placed) = (0, 0, 0);
            for k in 0..S::SIDE {
                let c = self.at(S::unit_cell(unit, k));
                let open = open_mask(c);
                placed |= c ^ open;
                twice |= once & open;
                once |= open;
            }
            if (once | placed) & S::DIGITS != S::DIGITS {
                return Err(Contradiction(1 << unit));
            }
            let hidden = once & !twice;
            if hidden == 0 {
                continue;
            }
            found = true;
            for k in 0..S::SIDE {
                let cell = S::unit_cell(unit, k);
                let digit = open_mask(self.at(cell)) & hidden;
                if digit != 0 {
                    if digit & (digit - 1) != 0 {
                        // Two digits that each have only this cell.
                        return Err(Contradiction(1 << unit));
                    }
                    self.set(cell, digit);
                    queue.push(cell as u16);
                    self.dirty |= S::units_bits(cell);
                    self.stale |= S::units_bits(cell);
                }
            }
            self.place_queued(queue)?;
        }
        Ok(found)
    }

    /// Locked candidates: a digit whose places in a box all lie in one row (or column)
    /// leaves the rest of that row (column); a digit whose places in a row (column) all
    /// lie in one box leaves the rest of that box. True if it removed any candidate.
    ///
    /// What leaves each segment is computed for every segment first, with no branch on
    /// the candidates (`confined`), and only the segments that lose a digit are visited
    /// then: most calls confirm a fixed point, and testing each segment against each
    /// digit set with a branch was a third of a 25×25 search's time, mostly mispredicted.
    #[inline(always)]
    fn locked_candidates(&mut self, queue: &mut Queue) -> Result<bool, Contradiction> {
        // Segments: the open candidates of the `BOX` cells a row shares with a box, and
        // the same for columns. `rows[row * BOX + stack]`, `cols[col * BOX + band]`.
        let mut rows = [0u32; 125];
        let mut cols = [0u32; 125];
        for row in 0..S::SIDE {
            for stack in 0..S::BOX {
                let mut h = 0;
                let mut v = 0;
                for k in 0..S::BOX {
                    h |= open_mask(self.at(S::row_cell(row, stack * S::BOX + k)));
                    v |= open_mask(self.at(S::col_cell(row, stack * S::BOX + k)));
                }
                rows[row * S::BOX + stack] = h;
                cols[row * S::BOX + stack] = v;
            }
        }
        let row_losses = confined::<S>(&rows);
        let col_losses = confined::<S>(&cols);
        let mut changed = false;
        for line in 0..S::SIDE {
            for segment in 0..S::BOX {
                let lost = row_losses[line * S::BOX + segment];
                if lost != 0 {
                    changed = true;
                    for k in 0..S::BOX {
                        self.remove(S::row_cell(line, segment * S::BOX + k), lost, queue)?;
                    }
                }
                let lost = col_losses[line * S::BOX + segment];
                if lost != 0 {
                    changed = true;
                    for k in 0..S::BOX {
                        self.remove(S::col_cell(line, segment * S::BOX + k), lost, queue)?;
                    }
                }
            }
        }
        // A cell is queued only by a removal, which sets `changed`.
        Ok(changed)
    }

    /// Hidden pairs in each unit that changed since its last scan. The units are scanned
    /// in one batch, the first pair that removes a candidate applied in each, before the
    /// cheaper deductions run again: each return to them costs a scan of the whole board
    /// for locked candidates. True if it removed any candidate.
    #[inline(always)]
    fn pairs(&mut self, queue: &mut Queue) -> Result<bool, Contradiction> {
        let mut units = std::mem::take(&mut self.stale);
        let mut changed = false;
        while units != 0 {
            let unit = units.trailing_zeros() as usize;
            units &= units - 1;
            changed |= self.unit_pairs(unit, queue)?;
        }
        Ok(changed)
    }

    /// Hidden pairs in `unit`, the first that removes a candidate applied: two digits
    /// whose places are the same two cells, which then keep only those digits. A third
    /// digit with the same two places shows as a contradiction in the hidden singles that
    /// follow. Naked pairs (two cells with the same two digits only) as well were
    /// measured and dropped: Gecode's 8 puzzles proved within 600,000 guesses took 3%
    /// fewer guesses with them (generated-25x25-hard-30.txt 15% fewer), at a fifth more
    /// time per guess, and no more were proved within 600,000 guesses or 10 s
    /// (docs/performance.md). True if it removed any candidate.
    #[inline(always)]
    fn unit_pairs(&mut self, unit: usize, queue: &mut Queue) -> Result<bool, Contradiction> {
        let mut masks = [0u32; 25];
        // The digits in one, two, and three or more open cells (bit-sliced counts).
        let (mut once, mut twice, mut thrice) = (0, 0, 0);
        for (k, mask) in masks.iter_mut().enumerate().take(S::SIDE) {
            let m = open_mask(self.at(S::unit_cell(unit, k)));
            *mask = m;
            thrice |= twice & m;
            twice |= once & m;
            once |= m;
        }
        let two_places = twice & !thrice;
        if two_places.count_ones() < 2 {
            return Ok(false);
        }
        // The digits with two places, as (digit bit, places), the places from one pass
        // over those digits' bits in the cells.
        let mut places = [0u32; 25];
        for (k, &m) in masks.iter().enumerate().take(S::SIDE) {
            let mut held = m & two_places;
            while held != 0 {
                places[held.trailing_zeros() as usize] |= 1 << k;
                held &= held - 1;
            }
        }
        let mut items = [(0u32, 0u32); 25];
        let mut digits = two_places;
        let mut n = 0;
        while digits != 0 {
            let d = digits.trailing_zeros() as usize;
            digits &= digits - 1;
            items[n] = (1 << d, places[d]);
            n += 1;
        }
        let hidden = |digits, cells| self.keep_only(unit, cells, digits, queue);
        each_pair(&items[..n], hidden)
    }

    /// Removes every digit but `digits` from the cells of `unit` in `cells` (bits by
    /// position in the unit): a hidden subset. True if it removed any candidate.
    #[inline(always)]
    fn keep_only(
        &mut self,
        unit: usize,
        cells: u32,
        digits: u32,
        queue: &mut Queue,
    ) -> Result<bool, Contradiction> {
        let mut changed = false;
        let mut rest = cells;
        while rest != 0 {
            let cell = S::unit_cell(unit, rest.trailing_zeros() as usize);
            rest &= rest - 1;
            if open_mask(self.at(cell)) & !digits != 0 {
                changed = true;
                self.remove(cell, !digits & S::DIGITS, queue)?;
            }
        }
        Ok(changed)
    }

    /// The cell to guess on, as [`Node::guess`] chooses it.
    #[inline(always)]
    fn guess_cell(&self, weights: &[u32]) -> usize {
        // (candidates, weight) of the best cell so far, compared as fractions. It starts
        // above every open cell's (at most SIDE candidates, weight at least 1), small
        // enough that the products stay far inside `u64`.
        let mut best = (S::SIDE as u64 + 1, 1u64, 0);
        for cell in 0..S::CELLS {
            let c = self.at(cell);
            if c & PLACED == 0 {
                let (row, col) = (cell / S::SIDE, cell % S::SIDE);
                let weight = u64::from(weights[row])
                    + u64::from(weights[S::SIDE + col])
                    + u64::from(weights[2 * S::SIDE + row / S::BOX * S::BOX + col / S::BOX]);
                let count = u64::from(c.count_ones());
                if count * best.1 < best.0 * weight {
                    best = (count, weight, cell);
                }
            }
        }
        best.2
    }
}

impl<S: Shape> Node for Board<S> {
    #[inline(always)]
    fn from_values(values: &[u8], queue: &mut Queue) -> Result<Self, Contradiction> {
        Board::from_values(values, queue)
    }

    #[inline(always)]
    fn put(&mut self, cell: usize, digit: u32, queue: &mut Queue) -> Result<(), Contradiction> {
        queue.clear();
        self.assign(cell, digit, queue);
        self.propagate(queue)
    }

    #[inline(always)]
    fn take_out(
        &mut self,
        cell: usize,
        digit: u32,
        queue: &mut Queue,
    ) -> Result<(), Contradiction> {
        queue.clear();
        self.remove(cell, digit, queue)?;
        self.propagate(queue)
    }

    #[inline(always)]
    fn is_solved(&self) -> bool {
        self.unplaced == 0
    }

    #[inline(always)]
    fn write_values(&self, values: &mut [u8]) {
        for (value, &c) in values.iter_mut().zip(AsRef::<[u32]>::as_ref(&self.cells)) {
            *value = (c & S::DIGITS).trailing_zeros() as u8 + 1;
        }
    }

    #[inline(always)]
    fn guess(&self, weights: &[u32]) -> (usize, u32) {
        let cell = self.guess_cell(weights);
        let candidates = self.at(cell) & S::DIGITS;
        (cell, candidates & candidates.wrapping_neg())
    }

    /// Only the 25×25 search was measured with last-conflict reasoning.
    const LAST_CONFLICT: bool = S::BOX == 5;

    fn candidate_masks(&self) -> Vec<u32> {
        AsRef::<[u32]>::as_ref(&self.cells)
            .iter()
            .map(|&c| c & S::DIGITS)
            .collect()
    }

    #[inline(always)]
    fn open_digit(&self, cell: usize) -> Option<u32> {
        let candidates = self.at(cell);
        (candidates & PLACED == 0).then(|| candidates & candidates.wrapping_neg())
    }
}

/// The digits each segment loses by locked candidates, from the open digits of every
/// segment: `segments[line * BOX + segment]`, a line's segments being its parts in the
/// `BOX` boxes it crosses (rows with the boxes of their band, or columns with those of
/// their stack: the same arithmetic). A digit a line holds in one segment only leaves
/// the box's other lines there (claiming); a digit a box holds in one line only leaves
/// that line's other segments (pointing). Branch-free, with constant trip counts.
#[inline(always)]
fn confined<S: Shape>(segments: &[u32; 125]) -> [u32; 125] {
    let mut losses = [0u32; 125];
    for group in 0..S::BOX {
        // Segment `s` of the group's `i`-th line.
        let segment = |i: usize, s: usize| segments[(group * S::BOX + i) * S::BOX + s];
        // Claiming: each line's digits held in one segment, kept in that segment.
        let mut claimed = [0u32; 25];
        // Pointing: each box's digits held in one line, kept in that line.
        let mut pointed = [0u32; 25];
        for i in 0..S::BOX {
            let (once, twice) = once_and_twice::<S>(|s| segment(i, s));
            for s in 0..S::BOX {
                claimed[i * S::BOX + s] = segment(i, s) & once & !twice;
            }
            let (once, twice) = once_and_twice::<S>(|k| segment(k, i));
            for k in 0..S::BOX {
                pointed[k * S::BOX + i] = segment(k, i) & once & !twice;
            }
        }
        // A segment loses the digits claimed by the box's other lines and those pointed
        // by the line's other boxes: each set is "held by another" = in the union but not
        // the segment's own, or held by two.
        for i in 0..S::BOX {
            let (by_box, by_two_boxes) = once_and_twice::<S>(|k| claimed[k * S::BOX + i]);
            let (by_line, by_two_lines) = once_and_twice::<S>(|s| pointed[i * S::BOX + s]);
            for k in 0..S::BOX {
                // Segment `i` of line `k` (box `i`'s claims), and segment `k` of line `i`
                // (line `i`'s pointing boxes).
                let claims = claimed[k * S::BOX + i];
                losses[(group * S::BOX + k) * S::BOX + i] |=
                    segment(k, i) & (by_box & !claims | by_two_boxes);
                let points = pointed[i * S::BOX + k];
                losses[(group * S::BOX + i) * S::BOX + k] |=
                    segment(i, k) & (by_line & !points | by_two_lines);
            }
        }
    }
    losses
}

/// The bits set in any of `value(0)` … `value(BOX - 1)` (`once`), and those set in two
/// or more (`twice`).
#[inline(always)]
fn once_and_twice<S: Shape>(value: impl Fn(usize) -> u32) -> (u32, u32) {
    (0..S::BOX).fold((0, 0), |(once, twice), k| {
        let v = value(k);
        (once | v, twice | once & v)
    })
}

/// Calls `apply` on each pair among `items` (`(bit, set)` each: a digit and its two
/// places) with the same set, with (the two items' bits, the set), until it returns
/// true; true then. The places are taken from the board before any pair is applied,
/// which holds since the first pair that changes the board ends the call.
#[inline(always)]
fn each_pair(
    items: &[(u32, u32)],
    mut apply: impl FnMut(u32, u32) -> Result<bool, Contradiction>,
) -> Result<bool, Contradiction> {
    for (i, &(a, set)) in items.iter().enumerate() {
        for &(b, other) in &items[i + 1..] {
            if other == set && apply(a | b, set)? {
                return Ok(true);
            }
        }
    }
    Ok(false)
}
