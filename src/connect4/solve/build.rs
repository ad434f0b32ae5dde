//! Filling an opening book: every position up to the book's depth, those at the depth
//! solved in parallel, the shallower ones derived from their children. (The book's file
//! format is in [`super::book`]; the file and its checkpoint in [`super::builder`].)

use std::collections::HashMap;
use std::sync::Mutex;

use rayon::prelude::*;

use super::book::{Book, BookSpec};
use super::position::{Bits, Geometry, Position};
use super::search::Solver;

/// What building a book took.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BookStats {
    /// Positions in the book (all depths).
    pub positions: usize,
    /// Positions solved by search (those at the book's depth) in this run.
    pub solved: usize,
    /// Positions at the book's depth whose scores came from an interrupted build's
    /// checkpoint.
    pub resumed: usize,
    /// Nodes searched.
    pub nodes: u64,
}

impl BookStats {
    /// The line `connect4 book` ends with: the book, its positions, the nodes searched,
    /// its size and the time taken.
    pub fn describe(&self, spec: &BookSpec, bytes: u64, seconds: f64) -> String {
        let resumed = match self.resumed {
            0 => String::new(),
            n => format!(", {n} more from the checkpoint"),
        };
        format!(
            "book of {spec}: {} positions ({} solved at depth {}{resumed}, {} nodes), {bytes} bytes, {seconds:.1} s",
            self.positions, self.solved, spec.depth, self.nodes
        )
    }
}

/// A position a book build has just solved, and how many the build solves in all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SolvedPosition<M> {
    /// The position's symmetric key.
    pub key: M,
    /// Its score (a sign in a weak book).
    pub score: i32,
    /// Positions this run solves in all (those of the book's depth not already known).
    pub to_solve: usize,
}

/// Builds the book `spec` describes, solving the positions at its depth in parallel on
/// the current rayon pool (one solver with a `table_mb` MiB table per thread).
///
/// `known` holds scores of positions at that depth (by symmetric key) from an interrupted
/// build, which are not solved again; `solved` is called with each position solved now, so
/// that the caller can keep them for a later resume and show the progress.
pub fn build_book<M: Bits>(
    spec: &BookSpec,
    table_mb: usize,
    known: &HashMap<M, i32>,
    solved: &(dyn Fn(SolvedPosition<M>) + Sync),
) -> (Book<M>, BookStats) {
    let BookSpec {
        width,
        height,
        depth,
        weak,
    } = *spec;
    let geometry = Geometry::<M>::new(width, height);
    let levels = positions_by_stones(&geometry, depth);
    let deepest = levels.last().expect("level 0 exists");
    let to_solve = deepest
        .iter()
        .filter(|p| !known.contains_key(&geometry.symmetric_key(p)))
        .count();
    // One solver per thread, reused: rayon's `map_init` would make one per split, and a
    // table costs milliseconds to set up.
    let solvers: Mutex<Vec<Solver<M>>> = Mutex::new(Vec::new());
    let results: Vec<(i32, Option<u64>)> = deepest
        .par_iter()
        .map(|p| {
            let key = geometry.symmetric_key(p);
            if let Some(&score) = known.get(&key) {
                return (score, None);
            }
            let spare = solvers.lock().ok().and_then(|mut s| s.pop());
            let mut solver = spare.unwrap_or_else(|| Solver::<M>::new(width, height, table_mb));
            let (score, nodes) = solver.score(p, weak);
            if let Ok(mut stack) = solvers.lock() {
                stack.push(solver);
            }
            solved(SolvedPosition {
                key,
                score,
                to_solve,
            });
            (score, Some(nodes))
        })
        .collect();
    let mut stats = BookStats {
        solved: results.iter().filter(|(_, nodes)| nodes.is_some()).count(),
        resumed: results.iter().filter(|(_, nodes)| nodes.is_none()).count(),
        nodes: results.iter().filter_map(|&(_, nodes)| nodes).sum(),
        ..BookStats::default()
    };
    let mut scores: HashMap<M, i32> = deepest
        .iter()
        .zip(&results)
        .map(|(p, &(score, _))| (geometry.symmetric_key(p), score))
        .collect();
    let mut all: Vec<(M, i32)> = scores.iter().map(|(&k, &s)| (k, s)).collect();
    // Back up: a position's score is the best over its moves (signs stay signs).
    let win_now = |p: &Position<M>| {
        if weak {
            1
        } else {
            (geometry.cells as i32 + 1 - p.moves() as i32) / 2
        }
    };
    for level in levels.iter().rev().skip(1) {
        let mut backed = HashMap::with_capacity(level.len());
        for p in level {
            let best = (0..width)
                .filter(|&col| geometry.can_play(p, col))
                .map(|col| {
                    if geometry.is_winning_column(p, col) {
                        return win_now(p);
                    }
                    let mut child = *p;
                    geometry.play_column(&mut child, col);
                    if child.moves() == geometry.cells {
                        0
                    } else {
                        -scores[&geometry.symmetric_key(&child)]
                    }
                })
                .max()
                .expect("an unfinished position has a move");
            backed.insert(geometry.symmetric_key(p), best);
        }
        all.extend(backed.iter().map(|(&k, &s)| (k, s)));
        scores = backed;
    }
    all.sort_unstable_by_key(|&(key, _)| key);
    stats.positions = all.len();
    let book = Book::from_sorted(
        *spec,
        all.iter().map(|&(key, _)| key).collect(),
        all.iter().map(|&(_, score)| score as i8).collect(),
    );
    (book, stats)
}

/// Every unfinished position with 0 to `depth` stones, one per mirror pair, per stone
/// count; each level in key order, so that a build runs the same every time.
fn positions_by_stones<M: Bits>(geometry: &Geometry<M>, depth: u32) -> Vec<Vec<Position<M>>> {
    let mut levels: Vec<Vec<Position<M>>> = vec![vec![Position::default()]];
    for _ in 0..depth {
        let mut next: HashMap<M, Position<M>> = HashMap::new();
        for p in levels.last().expect("level 0 exists") {
            for col in 0..geometry.width {
                if !geometry.can_play(p, col) || geometry.is_winning_column(p, col) {
                    continue;
                }
                let mut child = *p;
                geometry.play_column(&mut child, col);
                if child.moves() < geometry.cells {
                    next.entry(geometry.symmetric_key(&child)).or_insert(child);
                }
            }
        }
        let mut level: Vec<Position<M>> = next.into_values().collect();
        level.sort_by_key(|p| geometry.symmetric_key(p));
        levels.push(level);
    }
    levels
}
