//! The deductions the digit-major boards ([`Planes`](super::planes::Planes),
//! [`Planes25`](super::planes25::Planes25)) share, and their order: one propagation loop
//! for both.

use super::board::Contradiction;

/// A board's deductions; [`propagate`](Deductions::propagate) runs them to a fixed point.
pub(super) trait Deductions {
    /// Whether every cell is placed.
    fn solved(&self) -> bool;
    /// Places the open cells left with one candidate; `Err` if a cell has none. True if
    /// it placed any.
    fn naked_singles(&mut self) -> Result<bool, Contradiction>;
    /// Places each digit that has one open place left in a row, column or box; `Err` if
    /// a digit has no place in some unit. True if it placed any.
    fn hidden_singles(&mut self) -> Result<bool, Contradiction>;
    /// Locked candidates (pointing and claiming). True if it removed any candidate.
    fn locked_candidates(&mut self) -> bool;

    /// Applies every deduction to a fixed point: naked singles until none is left, then
    /// hidden singles, then locked candidates, the cheaper ones first again after each
    /// change.
    #[inline(always)]
    fn propagate(&mut self) -> Result<(), Contradiction> {
        loop {
            while self.naked_singles()? {}
            if self.solved() {
                return Ok(());
            }
            if self.hidden_singles()? {
                continue;
            }
            if !self.locked_candidates() {
                return Ok(());
            }
        }
    }
}
