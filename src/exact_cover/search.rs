//! The dancing-links search itself (Algorithm X, iterative).

use std::ops::ControlFlow;

use super::ExactCoverError;

/// An item header in the horizontal list of active primary items.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Item {
    pub(crate) left: u32,
    pub(crate) right: u32,
    /// Number of options still containing the item.
    pub(crate) len: u32,
}

/// One node of the vertical lists. Nodes `0..=items` are item headers; after them come the
/// options, each preceded and followed by a spacer node.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Node {
    pub(crate) up: u32,
    pub(crate) down: u32,
    /// The node's item (> 0), or for a spacer minus the index of the option after it.
    pub(crate) top: i32,
}

/// Counters of one search.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Solutions reported to the visitor.
    pub solutions: u64,
    /// Options tried: the nodes of the search tree below the root.
    pub nodes: u64,
    /// Options tried on an item that had two or more options left: real guesses.
    pub guesses: u64,
    /// Link updates: nodes removed from (and later put back into) their lists.
    pub updates: u64,
}

/// A built exact-cover problem, ready to be searched any number of times.
///
/// Searching leaves the structure exactly as it found it (that is the point of dancing
/// links), so one `Dlx` serves many searches; options selected with [`select`](Self::select)
/// stay selected until [`clear_selection`](Self::clear_selection).
#[derive(Debug, Clone)]
pub struct Dlx {
    primary: usize,
    items: Vec<Item>,
    nodes: Vec<Node>,
    option_start: Vec<u32>,
    /// Items covered by selected options (internal numbering).
    item_selected: Vec<bool>,
    selected: Vec<usize>,
    /// Per search level: the node being tried, the item branched on, whether it was a guess.
    choice: Vec<u32>,
    branch_item: Vec<u32>,
    branching: Vec<bool>,
    /// Buffer for the option indices of a solution.
    solution: Vec<usize>,
    updates: u64,
}

impl Dlx {
    pub(crate) fn from_parts(
        primary: usize,
        items: Vec<Item>,
        nodes: Vec<Node>,
        option_start: Vec<u32>,
    ) -> Self {
        let depth = primary + 1;
        Dlx {
            primary,
            item_selected: vec![false; items.len()],
            items,
            nodes,
            option_start,
            selected: Vec::new(),
            choice: vec![0; depth],
            branch_item: vec![0; depth],
            branching: vec![false; depth],
            solution: Vec::with_capacity(depth),
            updates: 0,
        }
    }

    /// Number of items (primary and secondary).
    pub fn item_count(&self) -> usize {
        self.items.len() - 1
    }

    /// Number of primary items.
    pub fn primary_count(&self) -> usize {
        self.primary
    }

    /// Number of options.
    pub fn option_count(&self) -> usize {
        self.option_start.len()
    }

    /// The items of `option`, in the order they were given.
    pub fn option_items(&self, option: usize) -> impl Iterator<Item = usize> + '_ {
        let start = self.option_start[option] as usize;
        self.nodes[start..]
            .iter()
            .take_while(|node| node.top > 0)
            .map(|node| node.top as usize - 1)
    }

    /// Options selected so far, in selection order.
    pub fn selected(&self) -> &[usize] {
        &self.selected
    }

    /// Commits to `option` before searching: its items are covered once, and every search
    /// until [`clear_selection`](Self::clear_selection) looks only for completions of it.
    ///
    /// Fails, changing nothing, if the option shares an item with one selected before.
    pub fn select(&mut self, option: usize) -> Result<(), ExactCoverError> {
        let Some(&start) = self.option_start.get(option) else {
            return Err(ExactCoverError::UnknownOption {
                option,
                options: self.option_count(),
            });
        };
        let start = start as usize;
        let mut p = start;
        while self.nodes[p].top > 0 {
            let node = self.nodes[p];
            // An option is still available when no selected option covered one of its
            // items and it was not hidden (a hidden option is unlinked from its columns).
            let linked = self.nodes[node.up as usize].down as usize == p;
            if self.item_selected[node.top as usize] || !linked {
                return Err(ExactCoverError::Conflict { option });
            }
            p += 1;
        }
        let first = self.nodes[start].top as usize;
        self.cover(first);
        self.cover_rest_of_option(start);
        let mut p = start;
        while self.nodes[p].top > 0 {
            self.item_selected[self.nodes[p].top as usize] = true;
            p += 1;
        }
        self.selected.push(option);
        Ok(())
    }

    /// Undoes every [`select`](Self::select), newest first.
    pub fn clear_selection(&mut self) {
        while let Some(option) = self.selected.pop() {
            let start = self.option_start[option] as usize;
            let mut p = start;
            while self.nodes[p].top > 0 {
                self.item_selected[self.nodes[p].top as usize] = false;
                p += 1;
            }
            self.uncover_rest_of_option(start);
            self.uncover(self.nodes[start].top as usize);
        }
    }

    /// Counts solutions, stopping once `limit` have been found.
    pub fn count_solutions(&mut self, limit: u64) -> SearchStats {
        if limit == 0 {
            return SearchStats::default();
        }
        let mut found = 0;
        self.search(|_| {
            found += 1;
            if found >= limit {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
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
    pub fn search<F>(&mut self, mut visit: F) -> SearchStats
    where
        F: FnMut(&[usize]) -> ControlFlow<()>,
    {
        let mut stats = SearchStats::default();
        self.updates = 0;
        let mut level = 0usize;
        'descend: loop {
            if self.items[0].right == 0 {
                stats.solutions += 1;
                self.collect_solution(level);
                let solution = std::mem::take(&mut self.solution);
                let flow = visit(&solution);
                self.solution = solution;
                if flow.is_break() {
                    self.unwind(level);
                    stats.updates = self.updates;
                    return stats;
                }
            } else {
                let (item, len) = self.choose_item();
                if len > 0 {
                    self.cover(item);
                    let first = self.nodes[item].down;
                    self.choice[level] = first;
                    self.branch_item[level] = item as u32;
                    self.branching[level] = len > 1;
                    self.try_option(level, &mut stats);
                    level += 1;
                    continue 'descend;
                }
            }
            // Backtrack to the deepest level that still has an untried option.
            loop {
                if level == 0 {
                    stats.updates = self.updates;
                    return stats;
                }
                level -= 1;
                let node = self.choice[level] as usize;
                self.uncover_rest_of_option(node);
                let next = self.nodes[node].down;
                let item = self.branch_item[level];
                if next != item {
                    self.choice[level] = next;
                    self.try_option(level, &mut stats);
                    level += 1;
                    continue 'descend;
                }
                self.uncover(item as usize);
            }
        }
    }

    /// Covers the other items of the option at `choice[level]` and counts the try.
    #[inline]
    fn try_option(&mut self, level: usize, stats: &mut SearchStats) {
        stats.nodes += 1;
        stats.guesses += u64::from(self.branching[level]);
        self.cover_rest_of_option(self.choice[level] as usize);
    }

    /// Restores the structure after a search stopped at `level`.
    fn unwind(&mut self, level: usize) {
        for l in (0..level).rev() {
            self.uncover_rest_of_option(self.choice[l] as usize);
            self.uncover(self.branch_item[l] as usize);
        }
    }

    fn collect_solution(&mut self, level: usize) {
        self.solution.clear();
        for l in 0..level {
            let mut p = self.choice[l] as usize;
            while self.nodes[p].top > 0 {
                p -= 1;
            }
            self.solution.push((-self.nodes[p].top) as usize);
        }
    }

    /// The active primary item with the fewest options (first such in list order), and
    /// that count. Stops scanning at a count of 0 or 1: nothing can beat it.
    #[inline]
    fn choose_item(&self) -> (usize, u32) {
        let mut best = 0usize;
        let mut best_len = u32::MAX;
        let mut p = self.items[0].right as usize;
        while p != 0 {
            let len = self.items[p].len;
            if len < best_len {
                best = p;
                best_len = len;
                if len <= 1 {
                    break;
                }
            }
            p = self.items[p].right as usize;
        }
        (best, best_len)
    }

    #[inline]
    fn cover(&mut self, item: usize) {
        let mut p = self.nodes[item].down as usize;
        while p != item {
            self.hide(p);
            p = self.nodes[p].down as usize;
        }
        let Item { left, right, .. } = self.items[item];
        self.items[left as usize].right = right;
        self.items[right as usize].left = left;
    }

    #[inline]
    fn uncover(&mut self, item: usize) {
        let Item { left, right, .. } = self.items[item];
        self.items[left as usize].right = item as u32;
        self.items[right as usize].left = item as u32;
        let mut p = self.nodes[item].up as usize;
        while p != item {
            self.unhide(p);
            p = self.nodes[p].up as usize;
        }
    }

    /// Unlinks the other nodes of `p`'s option from their item lists.
    #[inline]
    fn hide(&mut self, p: usize) {
        let mut q = p + 1;
        while q != p {
            let node = self.nodes[q];
            if node.top <= 0 {
                q = node.up as usize;
            } else {
                self.nodes[node.up as usize].down = node.down;
                self.nodes[node.down as usize].up = node.up;
                self.items[node.top as usize].len -= 1;
                self.updates += 1;
                q += 1;
            }
        }
    }

    #[inline]
    fn unhide(&mut self, p: usize) {
        let mut q = p - 1;
        while q != p {
            let node = self.nodes[q];
            if node.top <= 0 {
                q = node.down as usize;
            } else {
                self.nodes[node.up as usize].down = q as u32;
                self.nodes[node.down as usize].up = q as u32;
                self.items[node.top as usize].len += 1;
                q -= 1;
            }
        }
    }

    /// Covers the items of `p`'s option other than `p`'s own, left to right.
    #[inline]
    fn cover_rest_of_option(&mut self, p: usize) {
        let mut q = p + 1;
        while q != p {
            let top = self.nodes[q].top;
            if top <= 0 {
                q = self.nodes[q].up as usize;
            } else {
                self.cover(top as usize);
                q += 1;
            }
        }
    }

    /// Undoes [`cover_rest_of_option`](Self::cover_rest_of_option), right to left.
    #[inline]
    fn uncover_rest_of_option(&mut self, p: usize) {
        let mut q = p - 1;
        while q != p {
            let top = self.nodes[q].top;
            if top <= 0 {
                q = self.nodes[q].down as usize;
            } else {
                self.uncover(top as usize);
                q -= 1;
            }
        }
    }
}
