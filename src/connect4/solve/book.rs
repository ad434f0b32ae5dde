//! The opening book: the exact score (or, for a weak book, only win, draw or loss) of every
//! position up to a number of stones, made by solving the positions at that depth and
//! backing their scores up to the empty board.
//!
//! File format (little-endian): the magic `PBC4BOOK`, a format version byte (2), width,
//! height and depth bytes, a kind byte (0 exact scores, 1 weak: scores are −1, 0 or 1), the
//! key width in bytes `k`, the position count `n` as a `u64`, then the `n` symmetric keys
//! in increasing order, `k` bytes each, then `n` scores as signed bytes.

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::sync::Mutex;

use rayon::prelude::*;
use thiserror::Error;

use super::position::{Bits, Geometry, Position};
use super::search::Solver;

const MAGIC: &[u8; 8] = b"PBC4BOOK";
const VERSION: u8 = 2;

/// What a book holds: the board, how deep, and whether only win, draw or loss.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BookSpec {
    /// Board columns.
    pub width: usize,
    /// Board rows.
    pub height: usize,
    /// Positions with up to this many stones.
    pub depth: u32,
    /// Scores are only −1, 0 or 1 (loss, draw, win for the side to move).
    pub weak: bool,
}

impl BookSpec {
    /// The largest score magnitude the book can hold: 1 in a weak book, else the fastest
    /// win's score bound, cells / 2 + 1.
    pub fn score_bound(&self) -> i32 {
        if self.weak {
            1
        } else {
            (self.width * self.height) as i32 / 2 + 1
        }
    }

    /// Bits in a position's key: the board's `width × (height + 1)`.
    pub fn key_bits(&self) -> u32 {
        (self.width * (self.height + 1)) as u32
    }

    /// Bytes per key in the book file.
    fn key_bytes(&self) -> usize {
        self.key_bits().div_ceil(8) as usize
    }
}

impl std::fmt::Display for BookSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}x{}, depth {}, {}",
            self.width,
            self.height,
            self.depth,
            if self.weak { "weak" } else { "exact" }
        )
    }
}

/// Scores of every position with up to `depth` stones, a position and its mirror image
/// stored once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Book<M> {
    spec: BookSpec,
    keys: Vec<M>,
    scores: Vec<i8>,
}

/// Why a book cannot be read, used or built.
#[derive(Debug, Error)]
pub enum BookError {
    /// The file could not be read.
    #[error("cannot read the book: {0}")]
    Io(#[from] io::Error),
    /// The file is not a book.
    #[error("not a puzzlebench Connect Four book (bad magic or version)")]
    Format,
    /// The file ends before the book does.
    #[error(
        "the file ends after {got} bytes, inside the book's {part} (truncated, or not a book)"
    )]
    Truncated {
        /// The bytes read in all.
        got: u64,
        /// What was being read.
        part: &'static str,
    },
    /// The book is for another board.
    #[error("the book is for a {book_width}×{book_height} board, not {width}×{height}")]
    Size {
        /// The book's board.
        book_width: usize,
        /// The book's board.
        book_height: usize,
        /// The board asked for.
        width: usize,
        /// The board asked for.
        height: usize,
    },
    /// The keys are not in increasing order or a score is out of range.
    #[error("the book is corrupt: {0}")]
    Corrupt(String),
    /// A checkpoint of an interrupted build cannot be used.
    #[error("checkpoint {}: {reason}", path.display())]
    Checkpoint {
        /// The checkpoint file.
        path: std::path::PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A checkpoint could not be read or written.
    #[error("checkpoint {}: {source}", path.display())]
    CheckpointIo {
        /// The checkpoint file.
        path: std::path::PathBuf,
        /// The failure.
        source: io::Error,
    },
}

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

impl<M: Bits> Book<M> {
    /// The score of the position with symmetric key `key` and `moves` stones (only its sign
    /// in a weak book), if the book holds it.
    #[inline]
    pub fn get(&self, key: M, moves: u32) -> Option<i32> {
        if moves > self.spec.depth {
            return None;
        }
        self.keys
            .binary_search(&key)
            .ok()
            .map(|i| i32::from(self.scores[i]))
    }

    /// The deepest stone count the book covers.
    pub fn depth(&self) -> u32 {
        self.spec.depth
    }

    /// Whether the book holds only win, draw or loss (scores −1, 0 and 1).
    pub fn is_weak(&self) -> bool {
        self.spec.weak
    }

    /// Positions in the book.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether the book holds no position.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Writes the book in its file format.
    pub fn write(&self, out: &mut impl Write) -> io::Result<()> {
        let key_bytes = self.spec.key_bytes();
        out.write_all(MAGIC)?;
        out.write_all(&[
            VERSION,
            self.spec.width as u8,
            self.spec.height as u8,
            self.spec.depth as u8,
            u8::from(self.spec.weak),
            key_bytes as u8,
        ])?;
        out.write_all(&(self.keys.len() as u64).to_le_bytes())?;
        for &key in &self.keys {
            out.write_all(&key.to_u128().to_le_bytes()[..key_bytes])?;
        }
        let scores: Vec<u8> = self.scores.iter().map(|&s| s as u8).collect();
        out.write_all(&scores)
    }

    /// Reads a book for a `width × height` board.
    pub fn read(input: &mut impl Read, width: usize, height: usize) -> Result<Self, BookError> {
        let mut read = 0;
        let head = read_part(input, 22, "header", &mut read)?;
        if &head[..8] != MAGIC || head[8] != VERSION {
            return Err(BookError::Format);
        }
        let (book_width, book_height, depth) =
            (head[9] as usize, head[10] as usize, u32::from(head[11]));
        if (book_width, book_height) != (width, height) {
            return Err(BookError::Size {
                book_width,
                book_height,
                width,
                height,
            });
        }
        let weak = match head[12] {
            0 => false,
            1 => true,
            kind => return Err(BookError::Corrupt(format!("kind {kind}"))),
        };
        let spec = BookSpec {
            width,
            height,
            depth,
            weak,
        };
        let key_bytes = head[13] as usize;
        if key_bytes != spec.key_bytes() {
            return Err(BookError::Corrupt(format!("{key_bytes}-byte keys")));
        }
        let count = u64::from_le_bytes(head[14..22].try_into().expect("8 bytes"));
        let count =
            usize::try_from(count).map_err(|_| BookError::Corrupt(format!("{count} positions")))?;
        let key_length = count
            .checked_mul(key_bytes)
            .ok_or_else(|| BookError::Corrupt(format!("{count} positions")))?;
        let raw = read_part(input, key_length, "keys", &mut read)?;
        let keys: Vec<M> = raw
            .chunks_exact(key_bytes)
            .map(|bytes| {
                bytes
                    .iter()
                    .rev()
                    .fold(M::default(), |key, &b| (key << 8) | M::from_u64(b.into()))
            })
            .collect();
        if keys.windows(2).any(|w| w[0] >= w[1]) {
            return Err(BookError::Corrupt("keys out of order".into()));
        }
        let raw_scores = read_part(input, count, "scores", &mut read)?;
        let scores: Vec<i8> = raw_scores.into_iter().map(|b| b as i8).collect();
        if scores
            .iter()
            .any(|&s| i32::from(s).abs() > spec.score_bound())
        {
            return Err(BookError::Corrupt("a score out of range".into()));
        }
        Ok(Book { spec, keys, scores })
    }
}

/// Reads the next `len` bytes of a book (its `part`), `read` counting the bytes so far.
/// The buffer grows with what the file holds, so a corrupt length cannot ask for more
/// memory than the file's size.
fn read_part(
    input: &mut impl Read,
    len: usize,
    part: &'static str,
    read: &mut u64,
) -> Result<Vec<u8>, BookError> {
    let mut bytes = Vec::new();
    input.by_ref().take(len as u64).read_to_end(&mut bytes)?;
    *read += bytes.len() as u64;
    if bytes.len() < len {
        return Err(BookError::Truncated { got: *read, part });
    }
    Ok(bytes)
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
    let book = Book {
        spec: *spec,
        keys: all.iter().map(|&(key, _)| key).collect(),
        scores: all.iter().map(|&(_, score)| score as i8).collect(),
    };
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
