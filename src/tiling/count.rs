//! Placing pieces on a board as an exact-cover problem, and counting its solutions three
//! ways.

use std::collections::{HashMap, HashSet};
use std::fmt::Display;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use num_bigint::BigUint;
use serde::{Serialize, Serializer};
use thiserror::Error;

use crate::budget::{Budget, Meter};
use crate::exact_cover::{BitCover, Dlx, DlxBuilder, ExactCoverError, SearchStats, MAX_BIT_ITEMS};

use super::board::Board;
use super::identical::MergedGroup;
use super::placements;
use super::shapes::Piece;
use super::stopping::Stop;
use super::symmetry::Symmetries;

/// One way to put a piece on the board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// Index of the piece.
    pub piece: usize,
    /// Index of the orientation among the piece's distinct orientations.
    pub orientation: usize,
    /// Board cells covered, as `row × width + col`.
    pub cells: Vec<usize>,
}

/// What [`Tiling::configured_until`] builds from the placements.
struct Assembled {
    merged: Option<MergedGroup>,
    solving: Problem,
    counting: Problem,
    symmetries: Symmetries,
}

/// How many placements, options or parts the preparation of a count handles between two
/// looks at its stop flag.
pub(super) const STOP_LOOK_EVERY: usize = 4096;

/// Why a board cannot be tiled before any search.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum TilingError {
    /// The pieces' cells do not add up to the board's.
    #[error("the pieces cover {}, the board has {board}", crate::batch::counted(*.pieces, "cell"))]
    CellCount {
        /// Cells of all pieces.
        pieces: usize,
        /// Cells of the board.
        board: usize,
    },
    /// The colours cannot match: more cells of a colour on the pieces than on the board.
    #[error("the pieces have {pieces_black} black and {pieces_white} white cells, more of a colour than the board's {board_black} and {board_white}")]
    ColorCount {
        /// Black cells of the pieces.
        pieces_black: usize,
        /// White cells of the pieces.
        pieces_white: usize,
        /// Black cells of the board.
        board_black: usize,
        /// White cells of the board.
        board_white: usize,
    },
    /// A piece fits nowhere.
    #[error("piece {0} has no legal placement on this board")]
    NoPlacement(String),
    /// The stop flag of [`Tiling::configured_until`] was set (a timeout or a signal)
    /// before the problem was built: nothing is known about its tilings.
    #[error("stopped while the problem was being built")]
    Stopped,
}

/// The three counts of a board's tilings, exact however large.
///
/// `labelled` is arbitrary-precision: identical pieces are searched once per tiling and
/// their `k!` labellings multiplied in (see [`Tiling::new`]), so it can exceed what was
/// enumerated by far (32 dominoes on 8×8: 12,988,816 tilings × 32!, beyond `u128`).
/// The other two are bounded by the solutions enumerated (times at most the board's 8
/// symmetries), which `u128` holds with room to spare.
///
/// Serialised (JSON), each count is a number when it fits in a `u64` and otherwise a
/// string of its decimal digits, so that no reader rounds it silently.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Solutions with every piece distinct, even identical ones (what exact cover counts).
    #[serde(serialize_with = "exact_number")]
    pub labelled: BigUint,
    /// Distinct partitions of the board into pieces (identical pieces interchangeable).
    #[serde(serialize_with = "exact_number")]
    pub tilings: u128,
    /// Tilings that differ only by a symmetry of the board (one keeping its colours)
    /// counted once.
    #[serde(serialize_with = "exact_number")]
    pub up_to_symmetry: u128,
}

/// A count as a JSON number when it fits in a `u64` (what every JSON reader holds
/// exactly, or nearly), else as a string of its digits.
fn exact_number<T, S>(count: &T, serializer: S) -> Result<S::Ok, S::Error>
where
    T: Clone + Display + TryInto<u64>,
    S: Serializer,
{
    match count.clone().try_into() {
        Ok(small) => serializer.serialize_u64(small),
        Err(_) => serializer.collect_str(count),
    }
}

/// The counts reached by a count that may be stopped before the end (see
/// [`Tiling::count_parallel_until`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counted {
    /// The counts of the solutions found: exact when [`complete`](Self::complete), else
    /// lower bounds.
    pub counts: Counts,
    /// Parts of the search (independent subtrees) searched to the end.
    pub parts_done: usize,
    /// Parts of the search in all.
    pub parts_total: usize,
    /// What ended the count before every part was searched; `None` when complete.
    pub stopped: Option<Stop>,
}

impl Counted {
    /// Whether every part was searched, so that the counts are exact: false as well for a
    /// count stopped before its parts were known (none done of none).
    pub fn complete(&self) -> bool {
        self.stopped.is_none() && self.parts_done == self.parts_total
    }

    /// The counts of a count stopped by `stop` before any part of its search was known:
    /// zero, partial.
    pub fn stopped_before_search(stop: Stop) -> Self {
        Counted {
            stopped: Some(stop),
            ..Counted::no_tiling()
        }
    }

    /// The counts of pieces that cannot cover the board at all (a [`TilingError`]): zero,
    /// and complete, for there is nothing to search.
    pub fn no_tiling() -> Self {
        Counted {
            counts: Counts {
                labelled: BigUint::ZERO,
                tilings: 0,
                up_to_symmetry: 0,
            },
            parts_done: 0,
            parts_total: 0,
            stopped: None,
        }
    }
}

/// A board and pieces, ready to search.
pub struct Tiling {
    /// Every placement of every piece, identical pieces included.
    placements: Vec<Placement>,
    /// The identical pieces searched as one, if any.
    merged: Option<MergedGroup>,
    /// The problem [`solve`](Self::solve) searches: every labelled solution (each
    /// symmetry-broken one with [`with_symmetry_broken`](Self::with_symmetry_broken)).
    solving: Problem,
    /// The problem [`count`](Self::count) searches: symmetry broken, with weights that
    /// restore the full counts unless built by `with_symmetry_broken`.
    counting: Problem,
    /// For each piece, the index of the first piece identical to it (same shape and
    /// colours up to rotation and reflection).
    class: Vec<usize>,
    symmetries: Vec<Vec<usize>>,
}

/// How the solutions are searched for and counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Symmetry {
    /// Identical pieces searched once and the board's symmetries used to derive the
    /// labelled count from a fraction of the solutions (see [`Tiling::new`]).
    #[default]
    Derived,
    /// The board's symmetries broken and nothing derived (see
    /// [`Tiling::with_symmetry_broken`]).
    Broken,
    /// The plain exact cover: every labelled solution enumerated, nothing merged or
    /// derived.
    Ignored,
}

impl Symmetry {
    /// The handling the command-line flags ask for: `broken` breaks the symmetries,
    /// `ignored` uses none, neither derives the counts (the default).
    pub fn from_flags(broken: bool, ignored: bool) -> Self {
        match (broken, ignored) {
            (true, _) => Symmetry::Broken,
            (false, true) => Symmetry::Ignored,
            (false, false) => Symmetry::Derived,
        }
    }
}

/// Which exact-cover search runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Engine {
    /// Bit masks when the board's cells and the pieces number at most 128, else dancing
    /// links.
    #[default]
    Auto,
    /// The dancing-links engine.
    #[value(name = "dlx")]
    DancingLinks,
    /// Bit masks (dancing links above 128 cells and pieces).
    #[value(name = "bits")]
    BitMasks,
}

/// The search behind a [`Problem`].
///
/// Bit masks enumerate tilings several times faster, because trying a piece is one AND
/// instead of dozens of link updates; their items are numbered with the board cells first, in reading
/// order along the board's short side, since that search fills the first empty cell.
#[derive(Clone)]
enum Search {
    Links(Dlx),
    Bits(BitCover),
}

impl Search {
    fn select(&mut self, option: usize) -> Result<(), ExactCoverError> {
        match self {
            Search::Links(dlx) => dlx.select(option),
            Search::Bits(bits) => bits.select(option),
        }
    }

    fn clear_selection(&mut self) {
        match self {
            Search::Links(dlx) => dlx.clear_selection(),
            Search::Bits(bits) => bits.clear_selection(),
        }
    }

    fn branches(&mut self) -> Vec<usize> {
        match self {
            Search::Links(dlx) => dlx.branches(),
            Search::Bits(bits) => bits.branches(),
        }
    }

    fn search<F>(&mut self, visit: F) -> SearchStats
    where
        F: FnMut(&[usize]) -> ControlFlow<()>,
    {
        match self {
            Search::Links(dlx) => dlx.search(visit),
            Search::Bits(bits) => bits.search(visit),
        }
    }

    /// Runs the search until `visit` breaks or `stop` is set (looked at every few
    /// thousand nodes, whether or not solutions come).
    fn search_until<F>(&mut self, stop: &Arc<AtomicBool>, visit: F) -> SearchStats
    where
        F: FnMut(&[usize]) -> ControlFlow<()>,
    {
        match self {
            Search::Links(dlx) => {
                let mut meter = Meter::stoppable(Budget::UNLIMITED, Arc::clone(stop));
                dlx.search_within(&mut meter, visit)
            }
            Search::Bits(bits) => bits.search_until(stop, visit),
        }
    }
}

/// An exact-cover problem over some of the placements.
#[derive(Clone)]
struct Problem {
    search: Search,
    /// The placement each option stands for.
    option_placement: Vec<usize>,
    /// Per option: the labelled solutions each solution found with it stands for (the
    /// orbit size of a symmetry-broken piece's placement, at most the board's 8
    /// symmetries; 1 for every other option).
    weight: Vec<u128>,
}

/// The exact-cover items: one per searched piece and one per board cell, numbered in the
/// order the search wants them.
struct Items {
    /// How many.
    count: usize,
    /// Whether the bit-mask search runs (else the dancing links).
    bits: bool,
    /// Each piece's item (`None` for the merged group's twins).
    piece_item: Vec<Option<usize>>,
    /// Each board cell's item (`usize::MAX` for holes).
    cell_item: Vec<usize>,
}

impl Items {
    /// Numbers the items of `board` and `pieces` pieces, the `merged` group's twins left
    /// out.
    ///
    /// With bit masks and the symmetries broken, the broken piece comes first (the X
    /// pentomino on 6×10, kept to the smallest of its images: a few placements that split
    /// the search), then the cells; otherwise the search would place it only when its first
    /// cell comes up, and try its images all along.
    fn number(
        board: &Board,
        pieces: usize,
        merged: Option<&MergedGroup>,
        broken: Option<usize>,
        engine: Engine,
    ) -> Self {
        let searched_pieces: Vec<usize> = (0..pieces)
            .filter(|piece| !merged.is_some_and(|g| g.members.contains(piece)))
            .collect();
        let count = searched_pieces.len() + board.cell_count();
        let bits = count <= MAX_BIT_ITEMS && engine != Engine::DancingLinks;
        let mut items = Items {
            count,
            bits,
            piece_item: vec![None; pieces],
            cell_item: vec![usize::MAX; board.width() * board.height()],
        };
        let mut next_item = 0..;
        let lead = broken.filter(|_| bits);
        if bits {
            if let Some(lead) = lead {
                items.piece_item[lead] = next_item.next();
            }
            items.number_cells(board, &mut next_item);
        }
        for &piece in &searched_pieces {
            if Some(piece) != lead {
                items.piece_item[piece] = next_item.next();
            }
        }
        if !bits {
            items.number_cells(board, &mut next_item);
        }
        items
    }

    /// Numbers the board's cells in reading order along its short side (see [`Search`]).
    fn number_cells(&mut self, board: &Board, next_item: &mut std::ops::RangeFrom<usize>) {
        let width = board.width();
        let across = width <= board.height();
        let (outer, inner) = if across {
            (board.height(), width)
        } else {
            (width, board.height())
        };
        for a in 0..outer {
            for b in 0..inner {
                let (r, c) = if across { (a, b) } else { (b, a) };
                if board.cell(r as i32, c as i32).is_some() {
                    self.cell_item[r * width + c] = next_item.next().unwrap_or_default();
                }
            }
        }
    }

    /// The problem over the placements `keep` keeps (of the merged group, its first
    /// piece's only), each option weighted by `weight`.
    fn problem(
        &self,
        placements: &[Placement],
        merged: Option<&MergedGroup>,
        keep: &dyn Fn(&Placement) -> bool,
        weight: &dyn Fn(&Placement) -> u128,
        stop: &AtomicBool,
    ) -> Result<Problem, TilingError> {
        // The options' items one after another, each option ending at `ends[k]`: one
        // buffer rather than millions of small ones.
        let mut items = Vec::new();
        let mut ends = Vec::new();
        let mut option_placement = Vec::new();
        let mut weights = Vec::new();
        for (index, placement) in placements.iter().enumerate() {
            if index % STOP_LOOK_EVERY == 0 && stop.load(Ordering::Relaxed) {
                return Err(TilingError::Stopped);
            }
            let twin = merged.is_some_and(|g| g.members[1..].contains(&placement.piece));
            if twin || !keep(placement) {
                continue;
            }
            items.extend(self.piece_item[placement.piece]);
            items.extend(placement.cells.iter().map(|&cell| self.cell_item[cell]));
            ends.push(items.len());
            option_placement.push(index);
            weights.push(weight(placement));
        }
        const WELL_FORMED: &str = "a placement covers distinct board cells";
        let options = ends.iter().scan(0, |start, &end| {
            Some(&items[std::mem::replace(start, end)..end])
        });
        let search = if self.bits {
            let mut problem = BitCover::new(self.count, 0).expect("the items fit");
            for option in options {
                problem.add_option(option).expect(WELL_FORMED);
            }
            Search::Bits(problem)
        } else {
            let mut builder = DlxBuilder::new(self.count, 0);
            for (index, option) in options.enumerate() {
                if index % STOP_LOOK_EVERY == 0 && stop.load(Ordering::Relaxed) {
                    return Err(TilingError::Stopped);
                }
                builder.add_option(option).expect(WELL_FORMED);
            }
            Search::Links(builder.build())
        };
        Ok(Problem {
            search,
            option_placement,
            weight: weights,
        })
    }
}

impl Tiling {
    /// Builds the exact-cover problem: one item per piece and per board cell, one option
    /// per placement (every distinct orientation at every position where its cells lie on
    /// board cells of matching colours).
    ///
    /// The largest group of identical pieces (same shape and colours up to rotation and
    /// reflection) is searched as one: its `k` pieces share no piece item, and only the
    /// first piece's placements become options. Every other piece and every cell is still
    /// covered exactly once and the pieces' cells add up to the board's, so the cells left
    /// to the group are covered by exactly `k` of its placements, as an unordered set: each
    /// tiling is found once instead of `k!` times (once per labelling), and `labelled` is
    /// the solutions found times `k!`. [`solve`](Self::solve) hands out all `k!`
    /// labellings of each.
    ///
    /// [`count`](Self::count) also searches with the board's symmetries broken as in
    /// [`with_symmetry_broken`](Self::with_symmetry_broken), and counts each solution found
    /// with weight `|orbit of the broken piece's placement|`: a symmetry `g` of the board
    /// maps the labelled solutions with that piece at `p` one-to-one onto those with it at
    /// `g(p)`, so the solutions with it at any placement of an orbit are the orbit's size
    /// times those with it at the orbit's smallest placement, the one searched. That makes
    /// `labelled` and `tilings` exact sums over all solutions, with no exception for
    /// symmetric solutions, while only a fraction of them is enumerated.
    pub fn new(board: &Board, pieces: &[Piece]) -> Result<Self, TilingError> {
        Self::configured(board, pieces, Symmetry::Derived, Engine::Auto)
    }

    /// The same problem with the board's symmetries broken: one piece that has no twin
    /// keeps only the placements that are the smallest of their images under the board's
    /// symmetries (for the pentominoes on 6×10, the X in one quadrant). Every tiling then
    /// still has a symmetric image among the solutions, so [`count`](Self::count)'s
    /// `up_to_symmetry` is exact; `labelled` and `tilings` count only the solutions with
    /// that piece at the placements kept (nothing derived), and [`solve`](Self::solve)
    /// visits only those.
    pub fn with_symmetry_broken(board: &Board, pieces: &[Piece]) -> Result<Self, TilingError> {
        Self::configured(board, pieces, Symmetry::Broken, Engine::Auto)
    }

    /// The problem with the symmetry handling and the search engine chosen:
    /// [`Symmetry::Ignored`] with either engine is the plain exact cover, which enumerates
    /// every labelled solution (for cross-checks and benchmarks).
    pub fn configured(
        board: &Board,
        pieces: &[Piece],
        symmetry: Symmetry,
        engine: Engine,
    ) -> Result<Self, TilingError> {
        Self::configured_until(board, pieces, symmetry, engine, &AtomicBool::new(false))
    }

    /// [`configured`](Self::configured), giving up with [`TilingError::Stopped`] soon after
    /// `stop` is set: building a large problem (millions of placements) takes seconds, and
    /// a count's timeout and signals cover that time too. The flag is looked at every few
    /// thousand placements or options.
    pub fn configured_until(
        board: &Board,
        pieces: &[Piece],
        symmetry: Symmetry,
        engine: Engine,
        stop: &AtomicBool,
    ) -> Result<Self, TilingError> {
        placements::check_counts(board, pieces)?;
        let mut placements = Vec::new();
        let built = placements::all_placements(board, pieces, stop, &mut placements)
            .and_then(|()| Self::assemble(board, pieces, &placements, symmetry, engine, stop));
        match built {
            Ok(built) => Ok(Tiling {
                placements,
                merged: built.merged,
                solving: built.solving,
                counting: built.counting,
                class: built.symmetries.class,
                symmetries: built.symmetries.permutations,
            }),
            Err(error) => {
                if error == TilingError::Stopped && placements.len() > STOP_LOOK_EVERY {
                    // Freeing millions of placements takes longer than a stop may: on a
                    // thread of its own (or here, if none can be started).
                    let _ = std::thread::Builder::new().spawn(move || drop(placements));
                }
                Err(error)
            }
        }
    }

    /// The rest of [`configured_until`](Self::configured_until), once the placements
    /// are known: the symmetries, the merged group and the two problems.
    fn assemble(
        board: &Board,
        pieces: &[Piece],
        placements: &[Placement],
        symmetry: Symmetry,
        engine: Engine,
        stop: &AtomicBool,
    ) -> Result<Assembled, TilingError> {
        let break_symmetry = symmetry == Symmetry::Broken;
        let reduce = symmetry != Symmetry::Ignored;
        let symmetries = Symmetries::of(board, pieces);
        let broken = symmetries.broken_piece(placements, break_symmetry || reduce, stop)?;
        let merged = if reduce {
            MergedGroup::largest(&symmetries.class, placements, stop)?
        } else {
            None
        };
        let items = Items::number(board, pieces.len(), merged.as_ref(), broken, engine);
        let problem = |keep: &dyn Fn(&Placement) -> bool, weight: &dyn Fn(&Placement) -> u128| {
            items.problem(placements, merged.as_ref(), keep, weight, stop)
        };
        let reduced = |placement: &Placement| {
            Some(placement.piece) != broken || symmetries.smallest_of_images(placement)
        };
        let (solving, counting) = if break_symmetry {
            let reduced = problem(&reduced, &|_| 1)?;
            (reduced.clone(), reduced)
        } else if !reduce {
            let full = problem(&|_| true, &|_| 1)?;
            (full.clone(), full)
        } else {
            let orbit_size = |placement: &Placement| {
                if Some(placement.piece) == broken {
                    symmetries.orbit(placement).len() as u128
                } else {
                    1
                }
            };
            (problem(&|_| true, &|_| 1)?, problem(&reduced, &orbit_size)?)
        };
        Ok(Assembled {
            merged,
            solving,
            counting,
            symmetries,
        })
    }

    /// Every placement of every piece: piece by piece, orientation by orientation.
    pub fn placements(&self) -> &[Placement] {
        &self.placements
    }

    /// Visits every labelled solution (the placements used, by index into
    /// [`placements`](Self::placements)) until `visit` breaks. The `k!` labellings of a
    /// merged group of identical pieces come one after another.
    pub fn solve<F>(&mut self, mut visit: F)
    where
        F: FnMut(&[usize]) -> ControlFlow<()>,
    {
        let option_placement = &self.solving.option_placement;
        let placements = &self.placements;
        let merged = &self.merged;
        let mut solution = Vec::new();
        self.solving.search.search(|options| {
            solution.clear();
            solution.extend(options.iter().map(|&option| option_placement[option]));
            match merged {
                None => visit(&solution),
                Some(group) => group.each_labelling(placements, &mut solution, &mut visit),
            }
        });
    }

    /// Counts every solution three ways, on the calling thread.
    pub fn count(&self) -> Counts {
        let never = Arc::new(AtomicBool::new(false));
        self.count_until(&never)
            .expect("a count whose stop flag is never set runs to its end")
    }

    /// [`count`](Self::count), stopping as soon as `stop` is set: none then.
    pub fn count_until(&self, stop: &Arc<AtomicBool>) -> Option<Counts> {
        let mut search = self.counting.search.clone();
        let mut tally = Tally::default();
        for part in self.parts(stop)? {
            if !self.count_part(&mut search, part.options(), &mut tally, stop)
                || stop.load(Ordering::Relaxed)
            {
                return None;
            }
        }
        Some(tally.counts(self.labellings()))
    }

    /// Counts every solution three ways on `pool`: the search tree is split at its first
    /// two levels into independent subproblems. `on_part(done, total, solutions)` is
    /// called as parts finish, with the solutions enumerated so far (before the labellings
    /// and symmetries that multiply them are applied). The counts do not depend on the
    /// number of threads.
    pub fn count_parallel<P>(&self, pool: &rayon::ThreadPool, on_part: P) -> Counts
    where
        P: Fn(usize, usize, u64) + Sync,
    {
        let never = Arc::new(AtomicBool::new(false));
        self.count_parallel_until(pool, &never, on_part).counts
    }

    /// [`count_parallel`](Self::count_parallel), stopping as soon as `stop` is set (by a
    /// timer, say): every worker looks at it before each part, at each solution and every
    /// few thousand nodes of its search, and gives up the rest of its part. The counts are
    /// then those of the solutions found so far, [`Counted::complete`] is false and
    /// [`Counted::stopped`] is [`Stop::Interrupted`].
    pub fn count_parallel_until<P>(
        &self,
        pool: &rayon::ThreadPool,
        stop: &Arc<AtomicBool>,
        on_part: P,
    ) -> Counted
    where
        P: Fn(usize, usize, u64) + Sync,
    {
        use rayon::prelude::*;
        let Some(parts) = self.parts(stop) else {
            return Counted::stopped_before_search(Stop::Interrupted);
        };
        let total = parts.len();
        let done = AtomicUsize::new(0);
        let found = AtomicU64::new(0);
        let tally = pool.install(|| {
            parts
                .par_iter()
                .fold(
                    // Each worker clones the problem when it takes its first part: none
                    // once `stop` is set (a large problem takes a while to copy).
                    || (None, Tally::default()),
                    |(mut search, mut tally), part| {
                        if stop.load(Ordering::Relaxed) {
                            return (search, tally);
                        }
                        let search_ref = search.get_or_insert_with(|| self.counting.search.clone());
                        let before = tally.searched;
                        let finished =
                            self.count_part(search_ref, part.options(), &mut tally, stop);
                        let new = tally.searched - before;
                        let found = found.fetch_add(new, Ordering::Relaxed) + new;
                        if finished {
                            on_part(done.fetch_add(1, Ordering::Relaxed) + 1, total, found);
                        }
                        (search, tally)
                    },
                )
                .map(|(_, tally)| tally)
                .reduce(Tally::default, Tally::merge)
        });
        let parts_done = done.into_inner();
        Counted {
            counts: tally.counts(self.labellings()),
            parts_done,
            parts_total: total,
            stopped: (parts_done < total).then_some(Stop::Interrupted),
        }
    }

    /// Labelled solutions per solution searched: `k!` for a merged group of `k` identical
    /// pieces, else 1.
    fn labellings(&self) -> BigUint {
        self.merged
            .as_ref()
            .map_or_else(|| BigUint::from(1u32), |group| group.labellings.clone())
    }

    /// The counting problem split at its first two levels (each on the item with the
    /// fewest options: the symmetry-broken piece first, when there is one): the options
    /// selected by each part. Their solutions together are the problem's; a problem solved
    /// or refuted at the root is one part that selects nothing. `None` once `stop` is set
    /// (looked at before each first-level branch and every few thousand parts).
    fn parts(&self, stop: &AtomicBool) -> Option<Vec<Part>> {
        let mut root = self.counting.search.clone();
        let mut parts: Vec<Part> = Vec::new();
        for first in root.branches() {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            // Selected and cleared again on the root itself: a clone per branch would copy
            // the whole problem (a second per thousand branches of a large one).
            if root.select(first).is_err() {
                root.clear_selection();
                continue;
            }
            let seconds = root.branches();
            root.clear_selection();
            if seconds.is_empty() {
                parts.push(Part::one(first));
            }
            for chunk in seconds.chunks(STOP_LOOK_EVERY) {
                if stop.load(Ordering::Relaxed) {
                    return None;
                }
                parts.extend(chunk.iter().map(|&second| Part::two(first, second)));
            }
        }
        if parts.is_empty() {
            parts.push(Part::default());
        }
        Some(parts)
    }

    /// Adds to `tally` the solutions that use the options `selection`, searched in `search`
    /// (a clone of this problem's, left as it was found). Returns whether the part was
    /// searched to the end: false when `stop` was set at one of its solutions.
    fn count_part(
        &self,
        search: &mut Search,
        selection: &[usize],
        tally: &mut Tally,
        stop: &Arc<AtomicBool>,
    ) -> bool {
        if selection
            .iter()
            .any(|&option| search.select(option).is_err())
        {
            search.clear_selection();
            return true;
        }
        let placements = &self.placements;
        let option_placement = &self.counting.option_placement;
        let weight = &self.counting.weight;
        let class = &self.class;
        let symmetries = &self.symmetries;
        let cells = symmetries.first().map_or(0, Vec::len);
        let mut used = Vec::new();
        let mut stopped = false;
        search.search_until(stop, |options| {
            used.clear();
            used.extend_from_slice(selection);
            used.extend_from_slice(options);
            // Only the symmetry-broken piece's options weigh more than 1 (at most 8) and a
            // solution holds one of them, so the product is at most 8; the sums stay
            // below 8 × the solutions enumerated, far inside `u128`.
            let tilings: u128 = used.iter().map(|&option| weight[option]).product();
            tally.searched += 1;
            tally.weighted += tilings;
            let label = |permutation: &[usize]| {
                // Each cell: its piece's class and the smallest (moved) cell of its piece.
                let mut grid = vec![u32::MAX; cells];
                for &option in &used {
                    let placement = &placements[option_placement[option]];
                    let first = placement
                        .cells
                        .iter()
                        .map(|&c| permutation[c])
                        .min()
                        .unwrap_or(0);
                    for &cell in &placement.cells {
                        grid[permutation[cell]] =
                            (class[placement.piece] as u32) << 16 | first as u32;
                    }
                }
                grid
            };
            let own = label(&symmetries[0]);
            if !tally.tilings.contains_key(&own) {
                let smallest = symmetries[1..]
                    .iter()
                    .map(|p| label(p))
                    .fold(own.clone(), |a, b| a.min(b));
                tally.orbits.insert(smallest);
                tally.tilings.insert(own, tilings);
            }
            if stop.load(Ordering::Relaxed) {
                stopped = true;
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        });
        // The search also gives up between solutions once `stop` is set.
        stopped |= stop.load(Ordering::Relaxed);
        search.clear_selection();
        !stopped
    }
}

/// The options one part of a count selects: none, one or two, kept inline (a large count
/// has millions of parts).
#[derive(Debug, Clone, Copy, Default)]
struct Part {
    options: [usize; 2],
    len: u8,
}

impl Part {
    fn one(first: usize) -> Self {
        Part {
            options: [first, 0],
            len: 1,
        }
    }

    fn two(first: usize, second: usize) -> Self {
        Part {
            options: [first, second],
            len: 2,
        }
    }

    /// The options selected.
    fn options(&self) -> &[usize] {
        &self.options[..usize::from(self.len)]
    }
}

/// Solutions counted so far: the solutions searched, their weighted sum (the labelled
/// count before the merged group's labellings), and the distinct tilings (each with the
/// tilings it stands for) and symmetry classes seen (each as its canonical cell labels).
#[derive(Default)]
struct Tally {
    searched: u64,
    weighted: u128,
    tilings: HashMap<Vec<u32>, u128>,
    orbits: HashSet<Vec<u32>>,
}

impl Tally {
    fn merge(mut self, other: Tally) -> Tally {
        self.searched += other.searched;
        self.weighted += other.weighted;
        for (tiling, weight) in other.tilings {
            self.tilings.entry(tiling).or_insert(weight);
        }
        self.orbits.extend(other.orbits);
        self
    }

    /// The counts, each solution searched standing for `labellings` labelled ones.
    fn counts(&self, labellings: BigUint) -> Counts {
        Counts {
            labelled: BigUint::from(self.weighted) * labellings,
            tilings: self.tilings.values().sum(),
            up_to_symmetry: self.orbits.len() as u128,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tiling::parse_pieces;

    /// The plain exact cover: every labelled solution enumerated, nothing derived.
    fn plain(board: &Board, pieces: &[Piece]) -> Tiling {
        Tiling::configured(board, pieces, Symmetry::Ignored, Engine::Auto).unwrap()
    }

    /// Every labelled solution `solve` hands out, as sorted placement indices.
    fn solutions(tiling: &mut Tiling) -> Vec<Vec<usize>> {
        let mut found = Vec::new();
        tiling.solve(|used| {
            let mut used = used.to_vec();
            used.sort_unstable();
            found.push(used);
            ControlFlow::Continue(())
        });
        found.sort();
        found
    }

    #[test]
    fn a_pair_of_identical_pieces_is_searched_once_per_tiling() {
        // Two identical L-trominoes, a domino, an I-tromino and a monomino on 4×3.
        let pieces =
            parse_pieces("#,#\n#,_\n===\n#,_\n#,#\n===\n#,#\n===\n#,#,#\n===\n#\n").unwrap();
        let board = Board::rectangle(4, 3, None).unwrap();
        let mut fast = Tiling::new(&board, &pieces).unwrap();
        let mut slow = plain(&board, &pieces);
        let counts = fast.count();
        assert_eq!(counts, slow.count());
        assert!(counts.tilings > 0);
        assert_eq!(counts.labelled, BigUint::from(2 * counts.tilings));
        // One search solution per tiling, and solve still gives both labellings of each:
        // the same labelled solutions as the plain search.
        assert_eq!(
            fast.solving
                .search
                .search(|_| ControlFlow::Continue(()))
                .solutions as u128,
            counts.tilings
        );
        let labelled = solutions(&mut fast);
        assert_eq!(BigUint::from(labelled.len()), counts.labelled);
        assert_eq!(labelled, solutions(&mut slow));
    }

    #[test]
    fn groups_and_symmetric_tilings_keep_the_plain_counts() {
        // A monomino and four dominoes on 3×3: the dominoes are merged (24 labellings),
        // the monomino's placements are broken by the square's 8 symmetries, and the two
        // tilings with the monomino in the centre are fixed by rotations.
        let pieces = parse_pieces("#\n===\n#,#\n===\n#,#\n===\n#,#\n===\n#,#\n").unwrap();
        let board = Board::rectangle(3, 3, None).unwrap();
        let fast = Tiling::new(&board, &pieces).unwrap();
        let counts = fast.count();
        assert_eq!(counts, plain(&board, &pieces).count());
        assert_eq!(counts.labelled, BigUint::from(24 * counts.tilings));
        // Monomino in the centre: 2 tilings; in a corner: 4 each.
        assert_eq!((counts.tilings, counts.up_to_symmetry), (18, 3));
        // Three identical I-trominoes, two identical dominoes and an L-tromino on 4×4: the
        // trominoes are merged, the dominoes' labellings told apart by the tilings' labels.
        let pieces =
            parse_pieces("#,#,#\n===\n#,#,#\n===\n#,#,#\n===\n#,#\n===\n#,#\n===\n#,_\n#,#\n")
                .unwrap();
        let board = Board::rectangle(4, 4, None).unwrap();
        let counts = Tiling::new(&board, &pieces).unwrap().count();
        assert_eq!(counts, plain(&board, &pieces).count());
        assert!(counts.tilings > 0);
        assert_eq!(counts.labelled, BigUint::from(6 * 2 * counts.tilings));
    }
}
