//! Exact cover over bit masks: Algorithm X for problems of at most 128 items, with each
//! option a `u128` of its items and the search state one mask of the items covered.
//!
//! Dancing links keep, for every item, the list of options still possible, so that the
//! search can branch on the item with the fewest; the price is a few dozen link updates per
//! option tried. Here an option is tried with one AND against the covered mask and nothing
//! is ever unlinked, but the search cannot afford to find the item with the fewest options:
//! it branches on the *first* uncovered primary item, in the order the caller numbered
//! them, and tries only the options whose first primary item that is (every option with
//! an earlier primary item clashes, since those are all covered). The caller chooses an
//! order where that is a good branch — board cells in reading order along the board's
//! short side, for tilings: the search then fills the board like a scanline, and the first
//! empty cell is usually a corner of the filled region with few pieces fitting it. On the
//! pentominoes' 6×10 board, every one of the 9,356 solutions is enumerated about six times
//! faster than with the dancing links (see the tiling module).
//!

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};

use super::{ExactCoverError, SearchStats};

/// The most items a [`BitCover`] problem can have.
pub const MAX_BIT_ITEMS: usize = 128;

/// An exact-cover problem of at most [`MAX_BIT_ITEMS`] items, searched over bit masks.
///
/// Items `0..primary` are primary (covered exactly once), the rest secondary (at most
/// once); the search branches on the lowest-numbered uncovered primary item.
#[derive(Debug, Clone)]
pub struct BitCover {
    items: usize,
    /// The primary items as a mask.
    primary: u128,
    /// Each option's items.
    option_mask: Vec<u128>,
    /// The options grouped by their first primary item (options without one are never
    /// tried: they cannot help cover anything that must be covered): the options of item
    /// `i` are `group_option[group_start[i]..group_start[i + 1]]`, with their masks beside
    /// them in `group_mask` so that the inner loop reads one array.
    group_start: Vec<u32>,
    group_mask: Vec<u128>,
    group_option: Vec<u32>,
    /// Options added since the groups were last built.
    grouped: usize,
    /// Options selected before the search, and the items they cover.
    selected: Vec<usize>,
    covered: u128,
}

impl BitCover {
    /// A problem with `primary` primary and `secondary` secondary items and no options.
    pub fn new(primary: usize, secondary: usize) -> Result<Self, ExactCoverError> {
        let items = primary + secondary;
        if items > MAX_BIT_ITEMS {
            return Err(ExactCoverError::TooManyItems {
                items,
                max: MAX_BIT_ITEMS,
            });
        }
        Ok(BitCover {
            items,
            primary: low_bits(primary),
            option_mask: Vec::new(),
            group_start: vec![0; primary + 1],
            group_mask: Vec::new(),
            group_option: Vec::new(),
            grouped: 0,
            selected: Vec::new(),
            covered: 0,
        })
    }

    /// Number of items (primary and secondary).
    pub fn item_count(&self) -> usize {
        self.items
    }

    /// Number of options.
    pub fn option_count(&self) -> usize {
        self.option_mask.len()
    }

    /// Adds an option covering `items`, returning its index.
    pub fn add_option(&mut self, items: &[usize]) -> Result<usize, ExactCoverError> {
        let option = self.option_mask.len();
        if items.is_empty() {
            return Err(ExactCoverError::EmptyOption { option });
        }
        let mut mask = 0u128;
        for &item in items {
            if item >= self.items {
                return Err(ExactCoverError::UnknownItem {
                    option,
                    item,
                    items: self.items,
                });
            }
            if mask & 1 << item != 0 {
                return Err(ExactCoverError::RepeatedItem { option, item });
            }
            mask |= 1 << item;
        }
        self.option_mask.push(mask);
        Ok(option)
    }

    /// The items of `option`, in increasing order.
    pub fn option_items(&self, option: usize) -> impl Iterator<Item = usize> + '_ {
        let mask = self.option_mask[option];
        (0..self.items).filter(move |&item| mask & 1 << item != 0)
    }

    /// Options selected so far, in selection order.
    pub fn selected(&self) -> &[usize] {
        &self.selected
    }

    /// Commits to `option` before searching, as [`Dlx::select`](super::Dlx::select) does.
    /// Fails, changing nothing, if it shares an item with an option selected before.
    pub fn select(&mut self, option: usize) -> Result<(), ExactCoverError> {
        let Some(&mask) = self.option_mask.get(option) else {
            return Err(ExactCoverError::UnknownOption {
                option,
                options: self.option_mask.len(),
            });
        };
        if mask & self.covered != 0 {
            return Err(ExactCoverError::Conflict { option });
        }
        self.covered |= mask;
        self.selected.push(option);
        Ok(())
    }

    /// Undoes every [`select`](Self::select).
    pub fn clear_selection(&mut self) {
        self.selected.clear();
        self.covered = 0;
    }

    /// The options the search would branch on first, given the selection: those of the
    /// first uncovered primary item that fit. Selecting each in turn (on clones) splits
    /// the search into independent subproblems whose solutions together are this one's.
    /// Empty when every primary item is covered.
    pub fn branches(&self) -> Vec<usize> {
        let open = self.primary & !self.covered;
        if open == 0 {
            return Vec::new();
        }
        let item = open.trailing_zeros();
        self.option_mask
            .iter()
            .enumerate()
            .filter(|&(_, &mask)| {
                (mask & self.primary).trailing_zeros() == item && mask & self.covered == 0
            })
            .map(|(option, _)| option)
            .collect()
    }

    /// Counts solutions, stopping once `limit` have been found.
    pub fn count_solutions(&mut self, limit: u64) -> SearchStats {
        super::count_up_to(limit, |visit| self.search(visit))
    }

    /// Runs the search, calling `visit` with the options of each solution (the searched
    /// ones, in search order; selected options are not repeated) until it returns
    /// [`ControlFlow::Break`]. In the statistics, `guesses` counts the options tried at
    /// levels where more than one was tried (the options that fit are not counted ahead).
    pub fn search<F>(&mut self, visit: F) -> SearchStats
    where
        F: FnMut(&[usize]) -> ControlFlow<()>,
    {
        self.search_until(&AtomicBool::new(false), visit)
    }

    /// [`search`](Self::search), given up once `stop` is set: it is looked at every
    /// [`NODES_PER_STOP_CHECK`] nodes, so a search with few solutions does not run on long
    /// after a timer or Ctrl-C set it.
    pub fn search_until<F>(&mut self, stop: &AtomicBool, mut visit: F) -> SearchStats
    where
        F: FnMut(&[usize]) -> ControlFlow<()>,
    {
        self.group();
        let mut search = Search {
            problem: self,
            chosen: Vec::new(),
            stats: SearchStats::default(),
            stop,
        };
        let _ = search.descend(self.covered, &mut visit);
        search.stats
    }

    /// Groups the options by first primary item, if options were added since last time.
    fn group(&mut self) {
        if self.grouped == self.option_mask.len() && !self.group_option.is_empty() {
            return;
        }
        let primaries = self.group_start.len() - 1;
        let first = |mask: u128| (mask & self.primary).trailing_zeros() as usize;
        let mut starts = vec![0u32; primaries + 1];
        for &mask in &self.option_mask {
            if mask & self.primary != 0 {
                starts[first(mask) + 1] += 1;
            }
        }
        for i in 0..primaries {
            starts[i + 1] += starts[i];
        }
        let total = starts[primaries] as usize;
        let mut next = starts.clone();
        let mut group_mask = vec![0; total];
        let mut group_option = vec![0; total];
        for (option, &mask) in self.option_mask.iter().enumerate() {
            if mask & self.primary != 0 {
                let slot = &mut next[first(mask)];
                group_mask[*slot as usize] = mask;
                group_option[*slot as usize] = option as u32;
                *slot += 1;
            }
        }
        self.group_start = starts;
        self.group_mask = group_mask;
        self.group_option = group_option;
        self.grouped = self.option_mask.len();
    }
}

/// Nodes between two looks at a search's stop flag: a node costs a few nanoseconds, so the
/// flag is seen within a fraction of a millisecond, and the check costs one mask test per
/// node.
pub const NODES_PER_STOP_CHECK: u64 = 1 << 14;

/// One run of the search.
struct Search<'a> {
    problem: &'a BitCover,
    /// The options chosen on the way down.
    chosen: Vec<usize>,
    stats: SearchStats,
    /// Set, the search gives up.
    stop: &'a AtomicBool,
}

impl Search<'_> {
    /// Extends the chosen options, with `covered` the items they and the selection cover.
    fn descend<F>(&mut self, covered: u128, visit: &mut F) -> ControlFlow<()>
    where
        F: FnMut(&[usize]) -> ControlFlow<()>,
    {
        let open = self.problem.primary & !covered;
        if open == 0 {
            self.stats.solutions += 1;
            return visit(&self.chosen);
        }
        let item = open.trailing_zeros() as usize;
        let group =
            self.problem.group_start[item] as usize..self.problem.group_start[item + 1] as usize;
        let masks = &self.problem.group_mask[group.clone()];
        let options = &self.problem.group_option[group];
        let mut tried = 0;
        for (&mask, &option) in masks.iter().zip(options) {
            if mask & covered == 0 {
                tried += 1;
                self.stats.nodes += 1;
                if self.stats.nodes.is_multiple_of(NODES_PER_STOP_CHECK)
                    && self.stop.load(Ordering::Relaxed)
                {
                    return ControlFlow::Break(());
                }
                // A second option tried here makes the first one a guess too.
                self.stats.guesses += match tried {
                    1 => 0,
                    2 => 2,
                    _ => 1,
                };
                self.chosen.push(option as usize);
                let flow = self.descend(covered | mask, visit);
                self.chosen.pop();
                flow?;
            }
        }
        ControlFlow::Continue(())
    }
}

/// A mask of the `n` lowest bits.
fn low_bits(n: usize) -> u128 {
    if n >= 128 {
        u128::MAX
    } else {
        (1u128 << n) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact_cover::DlxBuilder;

    /// A small pseudo-random generator (64-bit LCG), so the problems are reproducible.
    struct Lcg(u64);

    impl Lcg {
        fn below(&mut self, n: usize) -> usize {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 33) % n as u64) as usize
        }
    }

    /// The same problem for both engines.
    fn both(
        primary: usize,
        secondary: usize,
        options: &[Vec<usize>],
    ) -> (BitCover, crate::exact_cover::Dlx) {
        let mut bits = BitCover::new(primary, secondary).unwrap();
        let mut links = DlxBuilder::new(primary, secondary);
        for option in options {
            assert_eq!(bits.add_option(option), links.add_option(option));
        }
        (bits, links.build())
    }

    /// Every solution, each as sorted option indices, sorted.
    fn all_solutions(
        mut search: impl FnMut(&mut dyn FnMut(&[usize]) -> ControlFlow<()>) -> SearchStats,
    ) -> Vec<Vec<usize>> {
        let mut found = Vec::new();
        let stats = search(&mut |options: &[usize]| {
            let mut options = options.to_vec();
            options.sort_unstable();
            found.push(options);
            ControlFlow::Continue(())
        });
        assert_eq!(stats.solutions, found.len() as u64);
        found.sort();
        found
    }

    /// The n-queens problem: rows and columns primary, diagonals secondary.
    fn queens(n: usize) -> Vec<Vec<usize>> {
        let mut options = Vec::new();
        for r in 0..n {
            for c in 0..n {
                options.push(vec![r, n + c, 2 * n + r + c, 4 * n - 1 + r + n - 1 - c]);
            }
        }
        options
    }

    #[test]
    fn queens_with_secondary_diagonals() {
        for (n, expected) in [(4, 2), (6, 4), (8, 92)] {
            let options = queens(n);
            let (mut bits, mut links) = both(2 * n, 4 * n - 2, &options);
            let from_bits = all_solutions(|visit| bits.search(visit));
            assert_eq!(from_bits.len(), expected);
            assert_eq!(from_bits, all_solutions(|visit| links.search(visit)));
            // Each solution covers every row and column once and no diagonal twice.
            for solution in &from_bits {
                let mut seen = vec![0; 6 * n];
                for &option in solution {
                    for &item in &options[option] {
                        seen[item] += 1;
                    }
                }
                assert!(seen[..2 * n].iter().all(|&k| k == 1));
                assert!(seen.iter().all(|&k| k <= 1));
            }
        }
    }

    #[test]
    fn random_problems_have_the_solutions_dancing_links_find() {
        let mut random = Lcg(7);
        let mut solved = 0;
        for _ in 0..300 {
            let primary = 1 + random.below(14);
            let secondary = random.below(4);
            let items = primary + secondary;
            let options: Vec<Vec<usize>> = (0..random.below(40))
                .map(|_| {
                    let mut option: Vec<usize> = (0..1 + random.below(4))
                        .map(|_| random.below(items))
                        .collect();
                    option.sort_unstable();
                    option.dedup();
                    option
                })
                .collect();
            let (mut bits, mut links) = both(primary, secondary, &options);
            let from_bits = all_solutions(|visit| bits.search(visit));
            assert_eq!(from_bits, all_solutions(|visit| links.search(visit)));
            solved += usize::from(!from_bits.is_empty());
            // The branches split the search into disjoint parts that together find it all.
            let mut parts = Vec::new();
            for option in bits.branches() {
                bits.select(option).unwrap();
                parts.extend(all_solutions(|visit| bits.search(visit)).into_iter().map(
                    |mut part| {
                        part.push(option);
                        part.sort_unstable();
                        part
                    },
                ));
                bits.clear_selection();
            }
            parts.sort();
            assert_eq!(parts, from_bits);
        }
        assert!(
            solved > 30,
            "only {solved} of the random problems had a solution"
        );
    }

    #[test]
    fn counting_stops_at_the_limit_and_selection_restricts() {
        let (mut bits, _) = both(16, 30, &queens(8));
        assert_eq!(bits.count_solutions(5).solutions, 5);
        assert_eq!(bits.count_solutions(0).solutions, 0);
        // Queen in the corner: 4 of the 92 solutions.
        bits.select(0).unwrap();
        assert_eq!(bits.selected(), &[0]);
        assert_eq!(bits.count_solutions(u64::MAX).solutions, 4);
        // Same row: conflicts, and changes nothing.
        assert_eq!(bits.select(1), Err(ExactCoverError::Conflict { option: 1 }));
        assert_eq!(bits.count_solutions(u64::MAX).solutions, 4);
        bits.clear_selection();
        assert_eq!(bits.count_solutions(u64::MAX).solutions, 92);
        assert_eq!(
            bits.select(64),
            Err(ExactCoverError::UnknownOption {
                option: 64,
                options: 64
            })
        );
    }

    #[test]
    fn nothing_to_cover_is_one_empty_solution_and_an_uncoverable_item_none() {
        let mut empty = BitCover::new(0, 2).unwrap();
        empty.add_option(&[0, 1]).unwrap();
        assert_eq!(
            all_solutions(|visit| empty.search(visit)),
            vec![Vec::<usize>::new()]
        );
        let mut stuck = BitCover::new(3, 0).unwrap();
        stuck.add_option(&[0, 1]).unwrap();
        assert_eq!(stuck.count_solutions(u64::MAX).solutions, 0);
        assert_eq!(stuck.option_items(0).collect::<Vec<_>>(), [0, 1]);
    }

    #[test]
    fn bad_problems_are_refused() {
        assert_eq!(
            BitCover::new(100, 29).unwrap_err(),
            ExactCoverError::TooManyItems {
                items: 129,
                max: 128
            }
        );
        let mut bits = BitCover::new(120, 8).unwrap();
        assert_eq!(bits.item_count(), 128);
        assert_eq!(bits.add_option(&[127, 0]), Ok(0));
        assert_eq!(
            bits.add_option(&[128]),
            Err(ExactCoverError::UnknownItem {
                option: 1,
                item: 128,
                items: 128
            })
        );
        assert_eq!(
            bits.add_option(&[3, 3]),
            Err(ExactCoverError::RepeatedItem { option: 1, item: 3 })
        );
        assert_eq!(
            bits.add_option(&[]),
            Err(ExactCoverError::EmptyOption { option: 1 })
        );
        assert_eq!(bits.option_count(), 1);
    }
}
