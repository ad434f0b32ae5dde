//! Placing pieces on a board as an exact-cover problem, and counting its solutions three
//! ways.

use std::collections::HashSet;
use std::ops::ControlFlow;

use serde::Serialize;
use thiserror::Error;

use crate::exact_cover::{Dlx, DlxBuilder};

use super::board::Board;
use super::shapes::{Color, Piece};

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

/// Why a board cannot be tiled before any search.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum TilingError {
    /// The pieces' cells do not add up to the board's.
    #[error("the pieces cover {pieces} cells, the board has {board}")]
    CellCount {
        /// Cells of all pieces.
        pieces: usize,
        /// Cells of the board.
        board: usize,
    },
    /// The colours cannot match.
    #[error("the pieces have {pieces_black} black and {pieces_white} white cells, the board {board_black} and {board_white}")]
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
}

/// The three counts of a board's tilings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Solutions with every piece distinct, even identical ones (what exact cover counts).
    pub labelled: u64,
    /// Distinct partitions of the board into pieces (identical pieces interchangeable).
    pub tilings: u64,
    /// Tilings that differ only by a symmetry of the board (one keeping its colours)
    /// counted once.
    pub up_to_symmetry: u64,
}

/// A board and pieces, ready to search.
pub struct Tiling {
    placements: Vec<Placement>,
    /// For each piece, the index of the first piece identical to it (same shape and
    /// colours up to rotation and reflection).
    class: Vec<usize>,
    symmetries: Vec<Vec<usize>>,
    dlx: Dlx,
}

impl Tiling {
    /// Builds the exact-cover problem: one item per piece and per board cell, one option
    /// per placement (every distinct orientation at every position where its cells lie on
    /// board cells of matching colours).
    pub fn new(board: &Board, pieces: &[Piece]) -> Result<Self, TilingError> {
        Self::build(board, pieces, false)
    }

    /// The same problem with the board's symmetries broken: one piece that has no twin
    /// keeps only the placements that are the smallest of their images under the board's
    /// symmetries (for the pentominoes on 6×10, the X in one quadrant). Every tiling then
    /// still has a symmetric image among the solutions, so [`count`](Self::count)'s
    /// `up_to_symmetry` is exact; `labelled` and `tilings` count only the solutions
    /// searched.
    pub fn with_symmetry_broken(board: &Board, pieces: &[Piece]) -> Result<Self, TilingError> {
        Self::build(board, pieces, true)
    }

    fn build(board: &Board, pieces: &[Piece], break_symmetry: bool) -> Result<Self, TilingError> {
        let piece_cells: usize = pieces.iter().map(|p| p.cells.len()).sum();
        if piece_cells != board.cell_count() {
            return Err(TilingError::CellCount {
                pieces: piece_cells,
                board: board.cell_count(),
            });
        }
        let color_count = |colors: &mut dyn Iterator<Item = Option<Color>>| {
            colors.fold((0, 0), |(b, w), color| match color {
                Some(Color::Black) => (b + 1, w),
                Some(Color::White) => (b, w + 1),
                None => (b, w),
            })
        };
        let (pieces_black, pieces_white) =
            color_count(&mut pieces.iter().flat_map(|p| p.cells.iter().map(|&(_, c)| c)));
        let (board_black, board_white) = color_count(
            &mut (0..board.height() as i32)
                .flat_map(|r| (0..board.width() as i32).map(move |c| (r, c)))
                .filter_map(|(r, c)| board.cell(r, c)),
        );
        if (pieces_black, pieces_white) != (board_black, board_white)
            && pieces_black + pieces_white > 0
        {
            return Err(TilingError::ColorCount {
                pieces_black,
                pieces_white,
                board_black,
                board_white,
            });
        }
        let width = board.width();
        let mut cell_item = vec![usize::MAX; width * board.height()];
        let mut items = pieces.len();
        for r in 0..board.height() {
            for c in 0..width {
                if board.cell(r as i32, c as i32).is_some() {
                    cell_item[r * width + c] = items;
                    items += 1;
                }
            }
        }
        let mut placements = Vec::new();
        for (index, piece) in pieces.iter().enumerate() {
            let before = placements.len();
            for (orientation, cells) in piece.orientations().iter().enumerate() {
                for r in 0..board.height() as i32 {
                    for c in 0..width as i32 {
                        let fits = cells.iter().all(|&((dr, dc), color)| {
                            match board.cell(r + dr, c + dc) {
                                Some(cell_color) => color.is_none() || cell_color == color,
                                None => false,
                            }
                        });
                        if fits {
                            placements.push(Placement {
                                piece: index,
                                orientation,
                                cells: cells
                                    .iter()
                                    .map(|&((dr, dc), _)| {
                                        ((r + dr) as usize) * width + (c + dc) as usize
                                    })
                                    .collect(),
                            });
                        }
                    }
                }
            }
            if placements.len() == before {
                return Err(TilingError::NoPlacement(piece.name.clone()));
            }
        }
        let canonical: Vec<_> = pieces.iter().map(Piece::canonical).collect();
        let class: Vec<usize> = (0..pieces.len())
            .map(|i| (0..=i).find(|&j| canonical[j] == canonical[i]).unwrap_or(i))
            .collect();
        let symmetries = board.symmetries();
        if break_symmetry && symmetries.len() > 1 {
            let smallest_of_images = |placement: &Placement| {
                let mut own = placement.cells.clone();
                own.sort_unstable();
                symmetries[1..].iter().all(|permutation| {
                    let mut image: Vec<usize> = own.iter().map(|&c| permutation[c]).collect();
                    image.sort_unstable();
                    own <= image
                })
            };
            // The piece without a twin that keeps the fewest placements.
            let twins = |piece: usize| class.iter().filter(|&&c| c == class[piece]).count();
            let chosen = (0..pieces.len())
                .filter(|&p| twins(p) == 1)
                .min_by_key(|&p| {
                    placements
                        .iter()
                        .filter(|pl| pl.piece == p && smallest_of_images(pl))
                        .count()
                });
            if let Some(chosen) = chosen {
                placements.retain(|pl| pl.piece != chosen || smallest_of_images(pl));
            }
        }
        let mut builder = DlxBuilder::new(items, 0);
        let mut option = Vec::new();
        for placement in &placements {
            option.clear();
            option.push(placement.piece);
            option.extend(placement.cells.iter().map(|&cell| cell_item[cell]));
            builder
                .add_option(&option)
                .expect("a placement covers distinct board cells");
        }
        Ok(Tiling {
            placements,
            class,
            symmetries,
            dlx: builder.build(),
        })
    }

    /// Every placement, in option order.
    pub fn placements(&self) -> &[Placement] {
        &self.placements
    }

    /// Visits every solution (the placements used, by index) until `visit` breaks.
    pub fn solve<F>(&mut self, mut visit: F)
    where
        F: FnMut(&[usize]) -> ControlFlow<()>,
    {
        self.dlx.search(|options| visit(options));
    }

    /// Counts every solution three ways, on the calling thread.
    pub fn count(&self) -> Counts {
        let mut tally = Tally::default();
        let mut dlx = self.dlx.clone();
        self.count_part(&mut dlx, &[], &mut tally);
        tally.counts()
    }

    /// Counts every solution three ways on `pool`: the search tree is split at its first
    /// two levels into independent subproblems. `on_part(done, total)` is called as parts
    /// finish, with the labelled solutions found so far. The counts do not depend on the
    /// number of threads.
    pub fn count_parallel<P>(&self, pool: &rayon::ThreadPool, on_part: P) -> Counts
    where
        P: Fn(usize, usize, u64) + Sync,
    {
        use rayon::prelude::*;
        use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
        let mut root = self.dlx.clone();
        let mut parts: Vec<Vec<usize>> = Vec::new();
        for first in root.branches() {
            let mut below = root.clone();
            if below.select(first).is_err() {
                continue;
            }
            let seconds = below.branches();
            if seconds.is_empty() {
                parts.push(vec![first]);
            }
            parts.extend(seconds.into_iter().map(|second| vec![first, second]));
        }
        let total = parts.len();
        let done = AtomicUsize::new(0);
        let found = AtomicU64::new(0);
        let tally = pool.install(|| {
            parts
                .par_iter()
                .fold(
                    || (self.dlx.clone(), Tally::default()),
                    |(mut dlx, mut tally), part| {
                        let before = tally.labelled;
                        self.count_part(&mut dlx, part, &mut tally);
                        let found = found.fetch_add(tally.labelled - before, Ordering::Relaxed)
                            + tally.labelled
                            - before;
                        on_part(done.fetch_add(1, Ordering::Relaxed) + 1, total, found);
                        (dlx, tally)
                    },
                )
                .map(|(_, tally)| tally)
                .reduce(Tally::default, Tally::merge)
        });
        if total == 0 {
            // No branch at all: the problem is solved (or refuted) at the root.
            return self.count();
        }
        tally.counts()
    }

    /// Adds to `tally` the solutions that use the options `selection`, searched in `dlx`
    /// (a clone of this problem's, left as it was found).
    fn count_part(&self, dlx: &mut Dlx, selection: &[usize], tally: &mut Tally) {
        if selection.iter().any(|&option| dlx.select(option).is_err()) {
            dlx.clear_selection();
            return;
        }
        let placements = &self.placements;
        let class = &self.class;
        let symmetries = &self.symmetries;
        let cells = symmetries.first().map_or(0, Vec::len);
        let mut used = Vec::new();
        dlx.search(|options| {
            tally.labelled += 1;
            used.clear();
            used.extend_from_slice(selection);
            used.extend_from_slice(options);
            let label = |permutation: &[usize]| {
                // Each cell: its piece's class and the smallest (moved) cell of its piece.
                let mut grid = vec![u32::MAX; cells];
                for &option in &used {
                    let placement = &placements[option];
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
            if !tally.tilings.contains(&own) {
                let smallest = symmetries[1..]
                    .iter()
                    .map(|p| label(p))
                    .fold(own.clone(), |a, b| a.min(b));
                tally.orbits.insert(smallest);
                tally.tilings.insert(own);
            }
            ControlFlow::Continue(())
        });
        dlx.clear_selection();
    }
}

/// Solutions counted so far: the labelled count, and the distinct tilings and symmetry
/// classes seen (each as its canonical cell labels).
#[derive(Default)]
struct Tally {
    labelled: u64,
    tilings: HashSet<Vec<u32>>,
    orbits: HashSet<Vec<u32>>,
}

impl Tally {
    fn merge(mut self, other: Tally) -> Tally {
        self.labelled += other.labelled;
        self.tilings.extend(other.tilings);
        self.orbits.extend(other.orbits);
        self
    }

    fn counts(&self) -> Counts {
        Counts {
            labelled: self.labelled,
            tilings: self.tilings.len() as u64,
            up_to_symmetry: self.orbits.len() as u64,
        }
    }
}
