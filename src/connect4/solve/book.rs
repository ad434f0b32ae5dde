//! The opening book and its file format: the exact score (or, for a weak book, only win,
//! draw or loss) of every position up to a number of stones. (Building one: [`super::build`]
//! and [`super::builder`].)
//!
//! File format (little-endian): the magic `PBC4BOOK`, a format version byte (2), width,
//! height and depth bytes, a kind byte (0 exact scores, 1 weak: scores are −1, 0 or 1), the
//! key width in bytes `k`, the position count `n` as a `u64`, then the `n` symmetric keys
//! in increasing order, `k` bytes each, then `n` scores as signed bytes.

use std::io::{self, Read, Write};

use thiserror::Error;

use super::position::Bits;

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

impl<M: Bits> Book<M> {
    /// The book of `spec` holding `scores[i]` for `keys[i]`, the keys sorted.
    pub(super) fn from_sorted(spec: BookSpec, keys: Vec<M>, scores: Vec<i8>) -> Self {
        Book { spec, keys, scores }
    }

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
