//! The dancing-links search itself (Algorithm X, iterative).
//!
//! Layout, and why:
//! - Nodes are `up`, `down`, `top` and `next`, the next node of the same option in a
//!   cycle. Knuth separates options by spacer nodes and tests for them on every step; the
//!   `next` link drops that test and the spacers.
//! - Indices are 16-bit when the problem has at most 65,535 nodes (see [`Index`]): a node
//!   is then 8 bytes instead of 16, and the 9×9 Sudoku matrix (3,244 nodes) fits the
//!   32 KB first-level cache with room to spare.
//! - Each option's nodes are contiguous, so walking an option backwards (to uncover its
//!   items in reverse order) needs no `prev` link.
//! - Covered items are flagged in their option count instead of being unlinked from a
//!   list of items, so choosing an item scans one contiguous array.
//! - Items whose option count drops to 0 or 1 are remembered as they drop, so most
//!   choices need no scan at all (see [`Engine::choose_item`]), and an item whose count
//!   reaches 0 is reported at once as a dead end, so contradictions are met sooner and
//!   the search tree shrinks.
//!
//! - When every option has 4 or 6 nodes (Sudoku; pentominoes), the search is compiled for
//!   that size (see [`siblings`]).
//!
//! (What these choices gained, and what was tried and dropped: `docs/performance.md`.)

use std::fmt::Debug;
use std::ops::ControlFlow;

use super::ExactCoverError;
use crate::budget::{Meter, OverBudget};

/// Flag added to an item's option count while it is covered.
const COVERED: u32 = 1 << 31;
/// Added to the option count of every secondary item, so that it never looks forced (no
/// count of 0 or 1) and [`Engine::cover`] needs no test for primary items.
const SECONDARY: u32 = 1 << 30;
/// When every option has this many nodes, the first option node is padded to a multiple
/// of it, so that each option starts at one (see [`siblings`]).
const OPTION_ALIGNMENT: usize = 4;
/// Most nodes a problem may have: option counts must stay below the flags.
pub(crate) const MAX_NODES: usize = (SECONDARY - 1) as usize;

/// The integer type of node and item indices: `u16` for problems that fit it, else `u32`.
///
/// Smaller indices halve the memory the search touches.
pub(crate) trait Index: Copy + Eq + Debug + Send + Sync + 'static {
    /// Largest value the type holds.
    const MAX: usize;
    /// `value` as an index; `value` must be at most [`MAX`](Self::MAX).
    fn from_usize(value: usize) -> Self;
    /// The index as a `usize`.
    fn get(self) -> usize;
}

impl Index for u16 {
    const MAX: usize = u16::MAX as usize;
    #[inline(always)]
    fn from_usize(value: usize) -> Self {
        debug_assert!(value <= <Self as Index>::MAX);
        value as u16
    }
    #[inline(always)]
    fn get(self) -> usize {
        self as usize
    }
}

impl Index for u32 {
    const MAX: usize = u32::MAX as usize;
    #[inline(always)]
    fn from_usize(value: usize) -> Self {
        debug_assert!(value <= <Self as Index>::MAX);
        value as u32
    }
    #[inline(always)]
    fn get(self) -> usize {
        self as usize
    }
}

/// One node. Nodes `0..=items` are item headers (only `up` and `down` are used); after them
/// come the options' nodes.
#[derive(Debug, Clone, Copy)]
struct Node<I> {
    up: I,
    down: I,
    /// The node's item (internal numbering, ≥ 1); 0 for headers.
    top: I,
    /// The next node of the same option, cyclically.
    next: I,
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
    /// The budget the search stopped at before it was done, if any.
    pub stopped: Option<OverBudget>,
}

/// Runs `$body` with the constant `$k` set to `$shape` when the search has a version
/// specialised for options of that many nodes (see [`siblings`]), else to 0.
macro_rules! shaped {
    ($shape:expr, $k:ident => $body:expr) => {
        match $shape {
            4 => {
                const $k: usize = 4;
                $body
            }
            6 => {
                const $k: usize = 6;
                $body
            }
            _ => {
                const $k: usize = 0;
                $body
            }
        }
    };
}

/// The other nodes of option node `p`'s option when every option has `K` nodes and option
/// nodes start at node `first`: computed instead of following `next`, so the loop is
/// unrolled and the loads of the nodes do not wait for one another.
///
/// Options of 4 nodes start at a multiple of 4 (see [`OPTION_ALIGNMENT`]), so their
/// siblings are `p ^ 1`, `p ^ 2` and `p ^ 3`: one instruction each, where the option's
/// cyclic order costs a remainder and a wrap-around.
#[inline(always)]
fn siblings<const K: usize>(p: usize, first: usize) -> impl DoubleEndedIterator<Item = usize> {
    let offset = if K == OPTION_ALIGNMENT {
        0
    } else {
        (p - first) % K
    };
    let start = p - offset;
    (1..K).map(move |j| {
        if K == OPTION_ALIGNMENT {
            p ^ j
        } else {
            let k = offset + j;
            start + if k >= K { k - K } else { k }
        }
    })
}

/// The dancing-links engine over indices of type `I`; [`super::Dlx`] picks the type.
#[derive(Debug, Clone)]
pub(crate) struct Engine<I> {
    primary: usize,
    /// Per item (internal numbering): options still containing it, plus [`COVERED`] while
    /// the item is covered. Knuth keeps the uncovered items in a linked list; a flag in the
    /// count makes covered items lose every "fewest options" comparison instead, so the
    /// scan runs over one contiguous array and the forced-item check needs no other test.
    len: Vec<u32>,
    /// Primary items not yet covered.
    uncovered: usize,
    nodes: Vec<Node<I>>,
    /// First node of each option, plus one past the last node at the end.
    option_start: Vec<u32>,
    /// Option of each node (unused for headers).
    node_option: Vec<u32>,
    /// The number of nodes of every option if they all have the same, else 0; see
    /// [`siblings`].
    shape: usize,
    /// The first option node: after the headers, and padded to a multiple of 4 when
    /// `shape` is 4.
    first_option_node: usize,
    /// Items covered by selected options (internal numbering).
    item_selected: Vec<bool>,
    selected: Vec<usize>,
    /// Per search level: the node being tried, the item branched on, whether it was a guess.
    choice: Vec<u32>,
    branch_item: Vec<u32>,
    branching: Vec<bool>,
    /// `forced[..forced_len]`: items whose option count fell to 0 or 1 while descending,
    /// newest last; see [`choose_item`](Self::choose_item). `forced_mark[level]` is
    /// `forced_len` when the level's options started being tried. The buffer holds one
    /// entry per node and one more, so that [`cover`](Self::cover) can write an entry
    /// after every removal and keep it only if the count fell to 0 or 1, without a branch:
    /// every kept entry stands for a node removed (and not yet put back), so there are
    /// never more than `nodes.len() - 1`.
    forced: Vec<u32>,
    forced_len: usize,
    forced_mark: Vec<usize>,
    /// The item whose count last fell to 0, if it may still be 0: a dead end to report at
    /// once rather than after the forced items pushed with it.
    dead_end: u32,
    /// Levels whose item still has untried options; see [`search_once`](Self::search_once).
    open_levels: usize,
    /// Set by [`search_once`](Self::search_once): the links are not restored, and the problem
    /// must be restored or rebuilt before it is used again.
    spent: bool,
    /// Buffer for the option indices of a solution.
    solution: Vec<usize>,
    updates: u64,
}

impl<I: Index> Engine<I> {
    /// Nodes (item headers, padding at most, and option nodes) of a problem with `items`
    /// items and `option_nodes` option nodes: the largest index is less.
    pub(crate) fn node_total(items: usize, option_nodes: usize) -> usize {
        items + 1 + OPTION_ALIGNMENT - 1 + option_nodes
    }

    /// The engine for `primary` primary items followed by secondary ones: `option_count.len()
    /// - 1` items in all (internal numbering, entry 0 unused), and option `o` made of the
    /// items `tops[option_start[o]..option_start[o + 1]]` (internal numbering).
    ///
    /// The caller guarantees that [`node_total`](Self::node_total) fits `I` and is at most
    /// [`MAX_NODES`].
    pub(crate) fn new(
        primary: usize,
        option_count: &[u32],
        tops: &[u32],
        option_start: &[u32],
    ) -> Self {
        let items = option_count.len() - 1;
        let headers = items + 1;
        let shape = option_start.get(1).map_or(0, |&first| first as usize);
        let uniform = option_start
            .windows(2)
            .all(|range| (range[1] - range[0]) as usize == shape);
        let shape = if uniform { shape } else { 0 };
        let first = if shape == OPTION_ALIGNMENT {
            headers.next_multiple_of(OPTION_ALIGNMENT)
        } else {
            headers
        };
        // Node `i` for `i <= items` is the header of item `i`'s vertical list (node 0 is
        // unused), then come unused padding nodes up to `first`. Option nodes follow, each
        // option's nodes contiguous and linked in a cycle by `next`.
        let mut nodes: Vec<Node<I>> = (0..first)
            .map(|i| Node {
                up: I::from_usize(i),
                down: I::from_usize(i),
                top: I::from_usize(0),
                next: I::from_usize(i),
            })
            .collect();
        let mut node_option = vec![0; first];
        for (option, range) in option_start.windows(2).enumerate() {
            let (start, end) = (first + range[0] as usize, first + range[1] as usize);
            for (k, &top) in tops[range[0] as usize..range[1] as usize]
                .iter()
                .enumerate()
            {
                let header = top as usize;
                let node = start + k;
                let up = nodes[header].up;
                nodes[up.get()].down = I::from_usize(node);
                nodes[header].up = I::from_usize(node);
                let next = if node + 1 == end { start } else { node + 1 };
                nodes.push(Node {
                    up,
                    down: I::from_usize(header),
                    top: I::from_usize(header),
                    next: I::from_usize(next),
                });
                node_option.push(option as u32);
            }
        }
        let mut len = option_count.to_vec();
        for len in &mut len[primary + 1..] {
            *len += SECONDARY;
        }
        let depth = primary + 1;
        Engine {
            primary,
            shape,
            first_option_node: first,
            len,
            uncovered: primary,
            forced: vec![0; nodes.len() + 1],
            nodes,
            option_start: option_start.iter().map(|&s| s + first as u32).collect(),
            node_option,
            item_selected: vec![false; headers],
            selected: Vec::new(),
            choice: vec![0; depth],
            branch_item: vec![0; depth],
            branching: vec![false; depth],
            forced_len: 0,
            forced_mark: vec![0; depth],
            dead_end: 0,
            open_levels: 0,
            spent: false,
            solution: Vec::new(),
            updates: 0,
        }
    }

    /// The same engine with the search not specialised for its options' size.
    #[cfg(test)]
    pub(crate) fn generic(mut self) -> Self {
        self.shape = 0;
        self
    }

    /// Whether the search is specialised for its options' size.
    #[cfg(test)]
    pub(crate) fn is_specialised(&self) -> bool {
        shaped!(self.shape, K => K != 0)
    }

    /// Number of items (primary and secondary).
    pub(crate) fn item_count(&self) -> usize {
        self.len.len() - 1
    }

    /// Number of primary items.
    pub(crate) fn primary_count(&self) -> usize {
        self.primary
    }

    /// Number of options.
    pub(crate) fn option_count(&self) -> usize {
        self.option_start.len() - 1
    }

    /// The nodes of `option`.
    pub(crate) fn option_nodes(&self, option: usize) -> std::ops::Range<usize> {
        self.option_start[option] as usize..self.option_start[option + 1] as usize
    }

    /// The user item of `node`.
    pub(crate) fn node_item(&self, node: usize) -> usize {
        self.nodes[node].top.get() - 1
    }

    /// Options selected so far, in selection order.
    pub(crate) fn selected(&self) -> &[usize] {
        &self.selected
    }

    /// See [`super::Dlx::select`].
    pub(crate) fn select(&mut self, option: usize) -> Result<(), ExactCoverError> {
        self.assert_not_spent();
        if option >= self.option_count() {
            return Err(ExactCoverError::UnknownOption {
                option,
                options: self.option_count(),
            });
        }
        // An option is still available when no selected option covered one of its items:
        // outside a search, only selections hide options.
        if self
            .option_nodes(option)
            .any(|p| self.item_selected[self.nodes[p].top.get()])
        {
            return Err(ExactCoverError::Conflict { option });
        }
        let start = self.option_start[option] as usize;
        shaped!(self.shape, K => {
            self.cover::<K>(self.nodes[start].top.get());
            self.cover_rest_of_option::<K>(start);
        });
        for p in self.option_nodes(option) {
            self.item_selected[self.nodes[p].top.get()] = true;
        }
        self.selected.push(option);
        Ok(())
    }

    /// See [`super::Dlx::restore_from`].
    pub(crate) fn restore_from(&mut self, pristine: &Self) {
        self.nodes.copy_from_slice(&pristine.nodes);
        self.len.copy_from_slice(&pristine.len);
        self.item_selected.copy_from_slice(&pristine.item_selected);
        self.uncovered = pristine.uncovered;
        self.selected.clear();
        self.forced_len = 0;
        self.dead_end = 0;
        self.spent = false;
    }

    /// See [`super::Dlx::clear_selection`].
    pub(crate) fn clear_selection(&mut self) {
        self.assert_not_spent();
        // Items forced by the selection (kept for the searches in between) are void now.
        self.forced_len = 0;
        self.dead_end = 0;
        while let Some(option) = self.selected.pop() {
            for p in self.option_nodes(option) {
                self.item_selected[self.nodes[p].top.get()] = false;
            }
            let start = self.option_start[option] as usize;
            shaped!(self.shape, K => {
                self.uncover_rest_of_option::<K>(start);
                self.uncover::<K>(self.nodes[start].top.get());
            });
        }
    }

    /// See [`super::Dlx::branches`].
    pub(crate) fn branches(&mut self) -> Vec<usize> {
        self.assert_not_spent();
        if self.uncovered == 0 {
            return Vec::new();
        }
        let (item, _) = self.choose_item();
        let mut options = Vec::new();
        let mut p = self.nodes[item].down.get();
        while p != item {
            options.push(self.node_option[p] as usize);
            p = self.nodes[p].down.get();
        }
        options
    }

    /// See [`super::Dlx::search_once`]; `self` must be restored before any other use.
    pub(crate) fn search_once<F>(&mut self, meter: &mut Meter, visit: F) -> SearchStats
    where
        F: FnMut(&[usize]) -> ControlFlow<()>,
    {
        let stats = self.run::<false, F>(meter, visit);
        self.spent = true;
        stats
    }

    #[track_caller]
    fn assert_not_spent(&self) {
        assert!(
            !self.spent,
            "the problem was searched by search_once: restore or rebuild it first"
        );
    }

    /// Algorithm X; with `RESTORE` false, returns without uncovering once nothing is left
    /// to try (see [`search_once`](Self::search_once)).
    /// Each guess is counted by `meter`: the search stops when its budget is spent.
    pub(crate) fn run<const RESTORE: bool, F>(&mut self, meter: &mut Meter, visit: F) -> SearchStats
    where
        F: FnMut(&[usize]) -> ControlFlow<()>,
    {
        shaped!(self.shape, K => self.run_shaped::<RESTORE, K, F>(meter, visit))
    }

    /// [`run`](Self::run) for options of `K` nodes each (any, if `K` is 0).
    fn run_shaped<const RESTORE: bool, const K: usize, F>(
        &mut self,
        meter: &mut Meter,
        mut visit: F,
    ) -> SearchStats
    where
        F: FnMut(&[usize]) -> ControlFlow<()>,
    {
        self.assert_not_spent();
        let mut stats = SearchStats::default();
        self.updates = 0;
        self.open_levels = 0;
        let mut level = 0usize;
        'descend: loop {
            if self.uncovered == 0 {
                stats.solutions += 1;
                self.collect_solution(level);
                let solution = std::mem::take(&mut self.solution);
                let flow = visit(&solution);
                self.solution = solution;
                if flow.is_break() {
                    if RESTORE {
                        self.unwind::<K>(level);
                    }
                    stats.updates = self.updates;
                    return stats;
                }
            } else {
                let (item, len) = self.choose_item();
                if len > 0 {
                    self.cover::<K>(item);
                    self.forced_mark[level] = self.forced_len;
                    self.choice[level] = self.nodes[item].down.get() as u32;
                    self.branch_item[level] = item as u32;
                    self.branching[level] = len > 1;
                    self.open_levels += usize::from(len > 1);
                    let guessed = self.try_option::<K>(level, &mut stats);
                    level += 1;
                    if guessed && meter.spend() {
                        return self.stop::<RESTORE, K>(level, stats, meter);
                    }
                    continue 'descend;
                }
            }
            // Backtrack to the deepest level that still has an untried option.
            if !RESTORE && self.open_levels == 0 {
                stats.updates = self.updates;
                return stats;
            }
            loop {
                if level == 0 {
                    stats.updates = self.updates;
                    return stats;
                }
                level -= 1;
                let node = self.choice[level] as usize;
                self.uncover_rest_of_option::<K>(node);
                // Entries pushed by the option just undone may no longer hold.
                self.forced_len = self.forced_mark[level];
                let next = self.nodes[node].down.get() as u32;
                let item = self.branch_item[level];
                if next != item {
                    // The level's last option closes it.
                    self.open_levels -=
                        usize::from(self.nodes[next as usize].down.get() as u32 == item);
                    self.choice[level] = next;
                    let guessed = self.try_option::<K>(level, &mut stats);
                    level += 1;
                    if guessed && meter.spend() {
                        return self.stop::<RESTORE, K>(level, stats, meter);
                    }
                    continue 'descend;
                }
                self.uncover::<K>(item as usize);
            }
        }
    }

    /// Covers the other items of the option at `choice[level]` and counts the try; true
    /// if it was a guess.
    #[inline]
    fn try_option<const K: usize>(&mut self, level: usize, stats: &mut SearchStats) -> bool {
        let guessed = self.branching[level];
        stats.nodes += 1;
        stats.guesses += u64::from(guessed);
        self.cover_rest_of_option::<K>(self.choice[level] as usize);
        guessed
    }

    /// Ends a search stopped by its budget with `level` levels open.
    #[cold]
    fn stop<const RESTORE: bool, const K: usize>(
        &mut self,
        level: usize,
        mut stats: SearchStats,
        meter: &Meter,
    ) -> SearchStats {
        if RESTORE {
            self.unwind::<K>(level);
        }
        // The guess that found the budget spent is not searched: not counted either.
        stats.nodes -= 1;
        stats.guesses -= 1;
        stats.updates = self.updates;
        stats.stopped = meter.over();
        stats
    }

    /// Restores the structure after a search stopped at `level`.
    fn unwind<const K: usize>(&mut self, level: usize) {
        for l in (0..level).rev() {
            self.uncover_rest_of_option::<K>(self.choice[l] as usize);
            self.uncover::<K>(self.branch_item[l] as usize);
        }
    }

    fn collect_solution(&mut self, level: usize) {
        self.solution.clear();
        for l in 0..level {
            let option = self.node_option[self.choice[l] as usize];
            self.solution.push(option as usize);
        }
    }

    /// The active primary item with the fewest options (nearly always: see the scan at
    /// the end), and that count.
    ///
    /// Most choices are forced (an item with one option left) or dead ends (none left), and
    /// those items were noticed when their count fell, in `forced`: the newest entry that
    /// still holds is taken without scanning anything. Counts only fall while the search
    /// descends, so an entry pushed on the current path holds until its item is covered;
    /// stale entries are dropped as they are met, and the count is checked again anyway.
    /// Only when no entry holds are the active items scanned.
    #[inline]
    fn choose_item(&mut self) -> (usize, u32) {
        let dead_end = self.dead_end as usize;
        if dead_end != 0 && self.len[dead_end] == 0 {
            return (dead_end, 0);
        }
        while self.forced_len > 0 {
            let item = self.forced[self.forced_len - 1] as usize;
            let len = self.len[item];
            if len <= 1 {
                return (item, len);
            }
            self.forced_len -= 1;
        }
        let lens = &self.len[1..=self.primary];
        // The first item with at most two options, if any, without looking further: when
        // no entry of `forced` holds, an item with fewer is rare (its entry was
        // overwritten after being dropped as stale further down, and it was uncovered
        // since), so this is nearly always the first with the fewest, and the scan
        // usually stops early.
        if let Some(i) = lens.iter().position(|&len| len <= 2) {
            return (i + 1, lens[i]);
        }
        // Two passes, the first branch-free (the compiler vectorises it), then a search
        // for the first item with that count: faster than one pass with an early exit at
        // a count of 1, whose branches are mispredicted.
        let best_len = lens.iter().fold(u32::MAX, |best, &len| best.min(len));
        let best = lens
            .iter()
            .position(|&len| len == best_len)
            .map_or(0, |i| i + 1);
        (best, best_len)
    }

    /// Removes `item` from the uncovered items and hides every other option containing it.
    ///
    /// `item` must be an internal item number (`1..len.len()`), which every caller takes
    /// from a node's `top` or from [`choose_item`](Self::choose_item).
    #[inline(always)]
    fn cover<const K: usize>(&mut self, item: usize) {
        debug_assert!((1..self.len.len()).contains(&item));
        let first = self.first_option_node;
        let nodes = &mut self.nodes[..];
        let len = &mut self.len[..];
        let forced = &mut self.forced[..];
        let mut forced_len = self.forced_len;
        let mut dead_end = self.dead_end;
        let primary = self.primary;
        let mut updates = 0;
        // SAFETY (for every unchecked index in `cover` and `uncover`): the builder sets each
        // link (`up`, `down`, `next`) to an index inside `nodes` and each `top` to an item
        // inside `len`; item headers are nodes `1..len.len()`, and `item` is such an item.
        // The search only ever copies existing link values from one node to another, so
        // these invariants hold at every step. Unchecked indexing keeps bounds checks out
        // of the two hottest loops.
        let mut p = unsafe { nodes.get_unchecked(item).down }.get();
        let mut p_node = unsafe { *nodes.get_unchecked(p) };
        while p != item {
            // The next node of the list is read before this option's nodes are hidden, so
            // the load overlaps the loop (which never changes the nodes of `item`'s list,
            // only those of the other items' lists).
            let next = p_node.down.get();
            let next_node = unsafe { *nodes.get_unchecked(next) };
            // Hides node `q` from its item's list; returns the node.
            let mut hide = |q: usize| {
                let node = unsafe { *nodes.get_unchecked(q) };
                unsafe {
                    nodes.get_unchecked_mut(node.up.get()).down = node.down;
                    nodes.get_unchecked_mut(node.down.get()).up = node.up;
                }
                let top = node.top.get();
                let count = unsafe { len.get_unchecked_mut(top) };
                let left = *count - 1;
                *count = left;
                // Branch-free bookkeeping of forced items and dead ends (secondary items
                // never qualify, see SECONDARY): whether a count falls to 1 is a coin toss
                // in Sudoku, and the branch it replaced was mispredicted that often.
                // SAFETY: `forced_len` is at most the number of nodes removed and not put
                // back, less than `forced.len()` (see the field's comment).
                unsafe { *forced.get_unchecked_mut(forced_len) = top as u32 };
                forced_len += usize::from(left <= 1);
                dead_end = if left == 0 { top as u32 } else { dead_end };
                updates += 1;
                node
            };
            if K == 0 {
                let mut q = p_node.next.get();
                while q != p {
                    q = hide(q).next.get();
                }
            } else {
                for q in siblings::<K>(p, first) {
                    hide(q);
                }
            }
            p = next;
            p_node = next_node;
        }
        self.updates += updates;
        self.forced_len = forced_len;
        self.dead_end = dead_end;
        // A covered item's count cannot change until it is uncovered: every option that
        // contains it has just been hidden from the other lists.
        unsafe { *len.get_unchecked_mut(item) |= COVERED };
        self.uncovered -= usize::from(item <= primary);
    }

    /// Undoes [`cover`](Self::cover), in exactly the reverse order.
    #[inline(always)]
    fn uncover<const K: usize>(&mut self, item: usize) {
        debug_assert!((1..self.len.len()).contains(&item));
        let first = self.first_option_node;
        let nodes = &mut self.nodes[..];
        let len = &mut self.len[..];
        // SAFETY: as in `cover`.
        unsafe { *len.get_unchecked_mut(item) &= !COVERED };
        self.uncovered += usize::from(item <= self.primary);
        let mut p = unsafe { nodes.get_unchecked(item).up }.get();
        let mut p_node = unsafe { *nodes.get_unchecked(p) };
        while p != item {
            // The nodes of one option lie in distinct item lists, so they may be put back
            // in any order; only the options of one list must go back in reverse.
            let next = p_node.up.get();
            let next_node = unsafe { *nodes.get_unchecked(next) };
            // Puts node `q` back into its item's list; returns the node.
            let mut unhide = |q: usize| {
                let node = unsafe { *nodes.get_unchecked(q) };
                let this = I::from_usize(q);
                unsafe {
                    nodes.get_unchecked_mut(node.up.get()).down = this;
                    nodes.get_unchecked_mut(node.down.get()).up = this;
                    *len.get_unchecked_mut(node.top.get()) += 1;
                }
                node
            };
            if K == 0 {
                let mut q = p_node.next.get();
                while q != p {
                    q = unhide(q).next.get();
                }
            } else {
                for q in siblings::<K>(p, first) {
                    unhide(q);
                }
            }
            p = next;
            p_node = next_node;
        }
    }

    /// Covers the items of `p`'s option other than `p`'s own, in option order.
    #[inline(always)]
    fn cover_rest_of_option<const K: usize>(&mut self, p: usize) {
        if K == 0 {
            let mut q = self.nodes[p].next.get();
            while q != p {
                self.cover::<K>(self.nodes[q].top.get());
                q = self.nodes[q].next.get();
            }
        } else {
            for q in siblings::<K>(p, self.first_option_node) {
                self.cover::<K>(self.nodes[q].top.get());
            }
        }
    }

    /// Undoes [`cover_rest_of_option`](Self::cover_rest_of_option): the same items, in
    /// reverse order ([`siblings`] backwards; in the generic search, the option's nodes
    /// are contiguous, so this walks them backwards).
    #[inline(always)]
    fn uncover_rest_of_option<const K: usize>(&mut self, p: usize) {
        if K != 0 {
            for q in siblings::<K>(p, self.first_option_node).rev() {
                self.uncover::<K>(self.nodes[q].top.get());
            }
            return;
        }
        let option = self.node_option[p] as usize;
        let start = self.option_start[option] as usize;
        let end = self.option_start[option + 1] as usize;
        for q in (start..p).rev().chain((p + 1..end).rev()) {
            self.uncover::<K>(self.nodes[q].top.get());
        }
    }
}
