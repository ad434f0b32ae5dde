//! One dancing-links engine for every exact-cover problem in puzzlebench.
//!
//! This is Knuth's Algorithm X with dancing links ("DLX1" in *The Art of Computer
//! Programming*, Volume 4B), laid out over flat arrays of indices rather than boxed nodes
//! (16-bit indices when the problem has at most 65,535 nodes, else 32-bit). It knows nothing about any puzzle: a problem is a set of *items* and a list of
//! *options*, each option a set of items.
//!
//! - **Primary items** must be covered exactly once.
//! - **Secondary items** may be covered at most once.
//!
//! [`BitCover`] is a second search for problems of at most 128 items, over bit masks
//! instead of links: much cheaper per option tried, but branching on the first uncovered
//! item in the caller's order rather than the one with the fewest options (see its module).
//!
//! The search branches on the primary item with the fewest remaining options (or, when no
//! item is known to have fewer, the first with two) and reports
//! every solution to a visitor that may stop early, so "first solution", "count up to N" and
//! "all solutions" are the same code. Options can also be *selected* before the search (for
//! instance the clues of a Sudoku), which covers their items once instead of searching them.
//!
//! ```
//! use puzzlebench::exact_cover::DlxBuilder;
//!
//! // Items 0..3; options {0,1}, {2}, {0}, {1,2}.
//! let mut builder = DlxBuilder::new(3, 0);
//! for option in [&[0, 1][..], &[2], &[0], &[1, 2]] {
//!     builder.add_option(option).unwrap();
//! }
//! let mut dlx = builder.build();
//! assert_eq!(dlx.count_solutions(u64::MAX).solutions, 2);
//! ```

mod bitset;
mod builder;
mod problem;
mod search;

pub use bitset::{BitCover, MAX_BIT_ITEMS};
pub use builder::DlxBuilder;
pub use problem::Dlx;
pub use search::SearchStats;

use std::ops::ControlFlow;

use thiserror::Error;

/// What can go wrong when building or preparing an exact-cover problem.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ExactCoverError {
    /// An option names an item outside the problem.
    #[error("option {option} names item {item}, but the problem has only {items} items")]
    UnknownItem {
        /// Index the option would have had.
        option: usize,
        /// The offending item.
        item: usize,
        /// Number of items in the problem.
        items: usize,
    },
    /// An option names the same item twice.
    #[error("option {option} names item {item} twice")]
    RepeatedItem {
        /// Index the option would have had.
        option: usize,
        /// The repeated item.
        item: usize,
    },
    /// An option with no items at all.
    #[error("option {option} has no items")]
    EmptyOption {
        /// Index the option would have had.
        option: usize,
    },
    /// A selected option shares an item with an option selected before it.
    #[error("option {option} conflicts with an option selected before it")]
    Conflict {
        /// The option that could not be selected.
        option: usize,
    },
    /// An option index outside the problem.
    #[error("there is no option {option}; the problem has {options} options")]
    UnknownOption {
        /// The offending option.
        option: usize,
        /// Number of options in the problem.
        options: usize,
    },
    /// More nodes than the engine can address.
    #[error("the problem is too large for the engine (over 2^30 - 1 nodes)")]
    TooLarge,
    /// More items than a bit-mask problem can hold.
    #[error("{items} items; a bit-mask problem holds at most {max}")]
    TooManyItems {
        /// Items asked for.
        items: usize,
        /// The most there can be.
        max: usize,
    },
}

/// Runs `search` with a visitor that stops it once `limit` solutions have been found (no
/// search at all for a limit of 0): the counting both engines share.
fn count_up_to<S>(limit: u64, search: S) -> SearchStats
where
    S: FnOnce(&mut dyn FnMut(&[usize]) -> ControlFlow<()>) -> SearchStats,
{
    if limit == 0 {
        return SearchStats::default();
    }
    let mut found = 0;
    search(&mut |_| {
        found += 1;
        if found >= limit {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
}

#[cfg(test)]
mod tests;
