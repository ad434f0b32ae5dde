//! The public face of the engine: one [`Dlx`] type over the index width that fits.

use std::ops::ControlFlow;

use super::search::{Engine, SearchStats};
use super::ExactCoverError;
use crate::budget::Meter;

/// A built exact-cover problem, ready to be searched any number of times.
///
/// Searching leaves the structure exactly as it found it (that is the point of dancing
/// links), so one `Dlx` serves many searches; options selected with [`select`](Self::select)
/// stay selected until [`clear_selection`](Self::clear_selection).
#[derive(Debug, Clone)]
pub struct Dlx {
    engine: Width,
}

/// The engine with 16-bit indices when every node and item fits them, else 32-bit ones.
///
/// 16-bit indices halve the memory the search touches and the copy of
/// [`Dlx::restore_from`].
/// The choice is made once per problem, so the search itself never tests it.
#[derive(Debug, Clone)]
enum Width {
    Narrow(Engine<u16>),
    Wide(Engine<u32>),
}

/// Runs `$body` with `$engine` bound to the engine of `$dlx`, whatever its width.
macro_rules! with_engine {
    ($dlx:expr, $engine:ident => $body:expr) => {
        match $dlx {
            Width::Narrow($engine) => $body,
            Width::Wide($engine) => $body,
        }
    };
}

impl Dlx {
    /// Wraps an engine with 16-bit indices.
    pub(crate) fn narrow(engine: Engine<u16>) -> Self {
        Dlx {
            engine: Width::Narrow(engine),
        }
    }

    /// Wraps an engine with 32-bit indices.
    pub(crate) fn wide(engine: Engine<u32>) -> Self {
        Dlx {
            engine: Width::Wide(engine),
        }
    }

    /// Whether the engine uses 16-bit indices.
    #[cfg(test)]
    pub(crate) fn is_narrow(&self) -> bool {
        matches!(self.engine, Width::Narrow(_))
    }

    /// Whether the search is specialised for the options' size.
    #[cfg(test)]
    pub(crate) fn is_specialised(&self) -> bool {
        with_engine!(&self.engine, e => e.is_specialised())
    }

    /// Number of items (primary and secondary).
    pub fn item_count(&self) -> usize {
        with_engine!(&self.engine, e => e.item_count())
    }

    /// Number of primary items.
    pub fn primary_count(&self) -> usize {
        with_engine!(&self.engine, e => e.primary_count())
    }

    /// Number of options.
    pub fn option_count(&self) -> usize {
        with_engine!(&self.engine, e => e.option_count())
    }

    /// The items of `option`, in the order they were given.
    pub fn option_items(&self, option: usize) -> impl Iterator<Item = usize> + '_ {
        let nodes = with_engine!(&self.engine, e => e.option_nodes(option));
        nodes.map(move |node| with_engine!(&self.engine, e => e.node_item(node)))
    }

    /// Options selected so far, in selection order.
    pub fn selected(&self) -> &[usize] {
        with_engine!(&self.engine, e => e.selected())
    }

    /// Commits to `option` before searching: its items are covered once, and every search
    /// until [`clear_selection`](Self::clear_selection) looks only for completions of it.
    ///
    /// Fails, changing nothing, if the option shares an item with one selected before.
    pub fn select(&mut self, option: usize) -> Result<(), ExactCoverError> {
        with_engine!(&mut self.engine, e => e.select(option))
    }

    /// Puts this problem back in the state of `pristine` — a clone of it taken before any
    /// [`select`](Self::select) — by copying its links and counts: for a long selection in
    /// a small problem this is much cheaper than [`clear_selection`](Self::clear_selection).
    ///
    /// # Panics
    /// If `pristine` is not a clone of the same problem.
    pub fn restore_from(&mut self, pristine: &Dlx) {
        match (&mut self.engine, &pristine.engine) {
            (Width::Narrow(e), Width::Narrow(p)) => e.restore_from(p),
            (Width::Wide(e), Width::Wide(p)) => e.restore_from(p),
            _ => panic!("restore_from: the pristine problem is not a clone of this one"),
        }
    }

    /// Undoes every [`select`](Self::select), newest first.
    pub fn clear_selection(&mut self) {
        with_engine!(&mut self.engine, e => e.clear_selection())
    }

    /// The options the search would branch on first, given the selected options: those of
    /// the uncovered primary item with the fewest. Selecting each in turn (on clones) splits
    /// the search into independent subproblems whose solutions together are this one's.
    /// Empty when every primary item is covered.
    pub fn branches(&mut self) -> Vec<usize> {
        with_engine!(&mut self.engine, e => e.branches())
    }

    /// Counts solutions, stopping once `limit` have been found.
    pub fn count_solutions(&mut self, limit: u64) -> SearchStats {
        super::count_up_to(limit, |visit| self.search(visit))
    }

    /// The first solution found (the searched options, without the selected ones), if any.
    pub fn first_solution(&mut self) -> Option<Vec<usize>> {
        let mut first = None;
        self.search(|options| {
            first = Some(options.to_vec());
            ControlFlow::Break(())
        });
        first
    }

    /// Runs Algorithm X, calling `visit` with the options of each solution (the searched
    /// ones, in search order; selected options are not repeated). `visit` returns
    /// [`ControlFlow::Break`] to stop the search early. The structure is restored either way.
    pub fn search<F>(&mut self, visit: F) -> SearchStats
    where
        F: FnMut(&[usize]) -> ControlFlow<()>,
    {
        self.search_within(&mut Meter::unlimited(), visit)
    }

    /// [`search`](Self::search) for a problem about to be restored from a pristine clone: the
    /// links are left as they are when the search ends, so every use of this problem other
    /// than [`restore_from`](Self::restore_from) panics until it is restored.
    ///
    /// This skips the final unwinding: once no level of the search has an untried option
    /// left, or `visit` stops the search, nothing is uncovered any more. A Sudoku whose
    /// uniqueness is proved without guessing is then covered once and never uncovered.
    pub fn search_once<F>(&mut self, meter: &mut Meter, visit: F) -> SearchStats
    where
        F: FnMut(&[usize]) -> ControlFlow<()>,
    {
        with_engine!(&mut self.engine, e => e.search_once(meter, visit))
    }

    /// [`search`](Self::search), each guess counted by `meter`: the search stops (the
    /// structure restored) when its budget is spent, with [`SearchStats::stopped`] set.
    pub fn search_within<F>(&mut self, meter: &mut Meter, visit: F) -> SearchStats
    where
        F: FnMut(&[usize]) -> ControlFlow<()>,
    {
        with_engine!(&mut self.engine, e => e.run::<true, F>(meter, visit))
    }
}
