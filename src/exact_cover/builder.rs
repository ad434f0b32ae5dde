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
    primary: usize,
    len: Vec<u32>,
    nodes: Vec<Node>,
    option_start: Vec<u32>,
}

impl DlxBuilder {
    /// Starts a problem with `primary` primary items and `secondary` secondary items.
    pub fn new(primary: usize, secondary: usize) -> Self {
        let total = primary + secondary;
        // User item `i` is internal item `i + 1`; node `i` for `i <= total` is the header of
        // item `i`'s vertical list (node 0 is unused). Option nodes follow, each option's
        // nodes contiguous and linked in a cycle by `next`.
        let nodes = (0..=total as u32)
            .map(|i| Node {
                up: i,
                down: i,
                top: 0,
                next: i,
            })
            .collect();
        DlxBuilder {
            primary,
            len: vec![0; total + 1],
            nodes,
            option_start: Vec::new(),
        }
    }

    /// Number of items (primary and secondary).
    pub fn item_count(&self) -> usize {
        self.len.len() - 1
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
        if self.nodes.len() + items.len() >= u32::MAX as usize {
            return Err(ExactCoverError::TooLarge);
        }
        let first = self.nodes.len() as u32;
        for (k, &item) in items.iter().enumerate() {
            let header = item + 1;
            let node = self.nodes.len() as u32;
            let last = self.nodes[header].up;
            let next = if k + 1 == items.len() {
                first
            } else {
                node + 1
            };
            self.nodes.push(Node {
                up: last,
                down: header as u32,
                top: header as u32,
                next,
            });
            self.nodes[last as usize].down = node;
            self.nodes[header].up = node;
            self.len[header] += 1;
        }
        self.option_start.push(first);
        Ok(option)
    }

    /// Finishes the problem.
    pub fn build(self) -> Dlx {
        Dlx::from_parts(self.primary, self.len, self.nodes, self.option_start)
    }
}
