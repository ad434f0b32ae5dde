//! Building the flat dancing-links arrays from items and options.

use super::search::{Dlx, Item, Node};
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
    items: Vec<Item>,
    nodes: Vec<Node>,
    option_start: Vec<u32>,
    /// Index of the spacer node that ends the last option (and starts the next).
    last_spacer: usize,
}

impl DlxBuilder {
    /// Starts a problem with `primary` primary items and `secondary` secondary items.
    pub fn new(primary: usize, secondary: usize) -> Self {
        let total = primary + secondary;
        // Item 0 is the root of the circular list of active primary items; user item `i` is
        // internal item `i + 1`. Secondary items link only to themselves, so the search never
        // chooses them, yet covering one still hides every other option that contains it.
        let mut items = Vec::with_capacity(total + 1);
        for i in 0..=total {
            let (left, right) = if i == 0 {
                (primary, if primary == 0 { 0 } else { 1 })
            } else if i <= primary {
                (i - 1, if i == primary { 0 } else { i + 1 })
            } else {
                (i, i)
            };
            items.push(Item {
                left: left as u32,
                right: right as u32,
                len: 0,
            });
        }
        // Node `i` for `i <= total` is the header of item `i`'s vertical list.
        let mut nodes: Vec<Node> = (0..=total)
            .map(|i| Node {
                up: i as u32,
                down: i as u32,
                top: 0,
            })
            .collect();
        // The first spacer precedes option 0.
        nodes.push(Node {
            up: 0,
            down: 0,
            top: 0,
        });
        DlxBuilder {
            primary,
            items,
            nodes,
            option_start: Vec::new(),
            last_spacer: total + 1,
        }
    }

    /// Number of items (primary and secondary).
    pub fn item_count(&self) -> usize {
        self.items.len() - 1
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
        if self.nodes.len() + items.len() + 1 >= i32::MAX as usize {
            return Err(ExactCoverError::TooLarge);
        }
        let first = self.nodes.len();
        for &item in items {
            let header = item + 1;
            let node = self.nodes.len() as u32;
            let last = self.nodes[header].up;
            self.nodes.push(Node {
                up: last,
                down: header as u32,
                top: header as i32,
            });
            self.nodes[last as usize].down = node;
            self.nodes[header].up = node;
            self.items[header].len += 1;
        }
        let last_node = self.nodes.len() - 1;
        // A spacer's `up` is the first node of the option before it, its `down` the last
        // node of the option after it; its `top` is minus the index of the option after it.
        self.nodes[self.last_spacer].down = last_node as u32;
        self.nodes.push(Node {
            up: first as u32,
            down: 0,
            top: -(option as i32 + 1),
        });
        self.last_spacer = self.nodes.len() - 1;
        self.option_start.push(first as u32);
        Ok(option)
    }

    /// Finishes the problem.
    pub fn build(self) -> Dlx {
        Dlx::from_parts(self.primary, self.items, self.nodes, self.option_start)
    }
}
