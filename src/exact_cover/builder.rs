//! Collecting the items and options of a problem, then building the engine.

use super::search::{Engine, Index, MAX_NODES};
use super::{Dlx, ExactCoverError};

/// Collects the items and options of an exact-cover problem, then [`build`](Self::build)s
/// the searchable [`Dlx`].
///
/// Items are numbered `0..primary` (primary: covered exactly once) followed by
/// `primary..primary + secondary` (secondary: covered at most once). Options are numbered in
/// the order they are added.
#[derive(Debug, Clone)]
pub struct DlxBuilder {
    primary: usize,
    /// Per item (internal numbering: user item `i` is item `i + 1`), the options naming it.
    option_count: Vec<u32>,
    /// The items of every option, one after another (internal numbering).
    tops: Vec<u32>,
    /// First entry of `tops` of each option.
    option_start: Vec<u32>,
}

impl DlxBuilder {
    /// Starts a problem with `primary` primary items and `secondary` secondary items.
    pub fn new(primary: usize, secondary: usize) -> Self {
        DlxBuilder {
            primary,
            option_count: vec![0; primary + secondary + 1],
            tops: Vec::new(),
            option_start: Vec::new(),
        }
    }

    /// Number of items (primary and secondary).
    pub fn item_count(&self) -> usize {
        self.option_count.len() - 1
    }

    /// Number of options added so far.
    pub fn option_count(&self) -> usize {
        self.option_start.len()
    }

    /// Adds an option covering `items`, returning its index.
    pub fn add_option(&mut self, items: &[usize]) -> Result<usize, ExactCoverError> {
        let option = self.option_start.len();
        let count = self.item_count();
        if items.is_empty() {
            return Err(ExactCoverError::EmptyOption { option });
        }
        for (k, &item) in items.iter().enumerate() {
            if item >= count {
                return Err(ExactCoverError::UnknownItem {
                    option,
                    item,
                    items: count,
                });
            }
            if items[..k].contains(&item) {
                return Err(ExactCoverError::RepeatedItem { option, item });
            }
        }
        if Engine::<u32>::node_total(count, self.tops.len() + items.len()) > MAX_NODES {
            return Err(ExactCoverError::TooLarge);
        }
        self.option_start.push(self.tops.len() as u32);
        for &item in items {
            self.tops.push(item as u32 + 1);
            self.option_count[item + 1] += 1;
        }
        Ok(option)
    }

    /// Finishes the problem, with 16-bit indices when every node and item fits them.
    pub fn build(self) -> Dlx {
        if Engine::<u16>::node_total(self.item_count(), self.tops.len()) <= u16::MAX as usize {
            Dlx::narrow(self.engine())
        } else {
            Dlx::wide(self.engine())
        }
    }

    /// Finishes the problem with 32-bit indices if `wide`, else 16-bit ones (which must
    /// fit), and with the search specialised for its options' size only if `specialised`.
    #[cfg(test)]
    pub(crate) fn build_variant(self, wide: bool, specialised: bool) -> Dlx {
        if wide {
            let engine = self.engine::<u32>();
            Dlx::wide(if specialised {
                engine
            } else {
                engine.generic()
            })
        } else {
            let engine = self.engine::<u16>();
            Dlx::narrow(if specialised {
                engine
            } else {
                engine.generic()
            })
        }
    }

    fn engine<I: Index>(mut self) -> Engine<I> {
        self.option_start.push(self.tops.len() as u32);
        Engine::new(
            self.primary,
            &self.option_count,
            &self.tops,
            &self.option_start,
        )
    }
}
