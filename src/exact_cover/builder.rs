//! Building the flat dancing-links arrays from items and options.

use super::search::{Dlx, Node};
use super::ExactCoverError;

/// Collects the items and options of an exact-cover problem, then [`build`](Self::build)s
/// the searchable [`Dlx`].
///
/// Items are numbered `0..primary` (primary: covered exactly once) followed by
/// `primary..primary + secondary` (secondary: covered at most once). Options are numbered in
/// the order they are added.
#[derive(Debug, Clone)]
pub struct DlxBuilder {
    dlx: Dlx,
}

impl DlxBuilder {
    /// Starts a problem with `primary` primary items and `secondary` secondary items.
    pub fn new(primary: usize, secondary: usize) -> Self {
        Dlx::builder(primary, secondary)
    }

    pub(crate) fn from_empty(dlx: Dlx) -> Self {
        DlxBuilder { dlx }
    }

    /// Number of items (primary and secondary).
    pub fn item_count(&self) -> usize {
        self.dlx.len.len() - 1
    }

    /// Number of options added so far.
    pub fn option_count(&self) -> usize {
        self.dlx.option_start.len()
    }

    /// Adds an option covering `items`, returning its index.
    pub fn add_option(&mut self, items: &[usize]) -> Result<usize, ExactCoverError> {
        let dlx = &mut self.dlx;
        let option = dlx.option_start.len();
        let count = dlx.len.len() - 1;
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
        if dlx.nodes.len() + items.len() >= u32::MAX as usize {
            return Err(ExactCoverError::TooLarge);
        }
        let first = dlx.nodes.len() as u32;
        for &item in items {
            let header = item + 1;
            let node = dlx.nodes.len() as u32;
            let up = dlx.nodes[header].up;
            dlx.nodes[up as usize].down = node;
            dlx.nodes[header].up = node;
            dlx.nodes.push(Node {
                up,
                down: header as u32,
                top: header as u32,
                next: node + 1,
            });
            dlx.node_option.push(option as u32);
            dlx.len[header] += 1;
        }
        if let Some(last) = dlx.nodes.last_mut() {
            last.next = first;
        }
        dlx.option_start.push(first);
        Ok(option)
    }

    /// Finishes the problem.
    pub fn build(mut self) -> Dlx {
        self.dlx.finish();
        self.dlx
    }
}
