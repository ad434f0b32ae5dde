//! Pieces (stones) and board files read: from a file, or standard input for `-`, within
//! limits that such small definition files never come near, so that a huge or binary file
//! is refused in bounded memory rather than read whole and quoted whole.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use super::{parse_pieces, Board, BoardError, Piece, PiecesError};
use crate::batch::{physical_lines, read_bounded, without_line_ending, Bounded};

/// The longest pieces or board file read, in bytes (1 MiB): the largest board, 4,096
/// cells, takes a few kilobytes in either format.
pub const MAX_FILE_BYTES: usize = 1 << 20;

/// The longest line of a pieces or board file, in bytes without its line ending (64 KiB).
pub const MAX_LINE_BYTES: usize = 1 << 16;

/// Why a pieces or board file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TilingFileError {
    /// The file cannot be opened or read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file as named (`-` for standard input).
        path: String,
        /// Why.
        source: io::Error,
    },
    /// The file is longer than [`MAX_FILE_BYTES`].
    #[error(
        "cannot read {path}: it is longer than {MAX_FILE_BYTES} bytes, the most a pieces or \
         board file may hold"
    )]
    TooLarge {
        /// The file as named.
        path: String,
    },
    /// A line is longer than [`MAX_LINE_BYTES`].
    #[error(
        "cannot read {path}: line {line} is longer than {MAX_LINE_BYTES} bytes, the most a \
         line of a pieces or board file may hold"
    )]
    LongLine {
        /// The file as named.
        path: String,
        /// 1-based line.
        line: usize,
    },
    /// The file is not UTF-8 text.
    #[error("cannot read {path}: line {line}: not valid UTF-8 at byte {byte}")]
    NotUtf8 {
        /// The file as named.
        path: String,
        /// 1-based line.
        line: usize,
        /// 1-based byte within the line.
        byte: usize,
    },
    /// The pieces file is not a pieces file.
    #[error("{path}")]
    Pieces {
        /// The file as named.
        path: String,
        /// What is wrong.
        source: PiecesError,
    },
    /// The board file is not a board.
    #[error("{path}: {source}")]
    Board {
        /// The file as named.
        path: String,
        /// What is wrong.
        source: BoardError,
    },
}

/// The pieces of a pieces (stones) file; `-` reads standard input.
pub fn read_pieces(path: &Path) -> Result<Vec<Piece>, TilingFileError> {
    parse_pieces(&read_text(path)?).map_err(|source| TilingFileError::Pieces {
        path: path.display().to_string(),
        source,
    })
}

/// The board of a board file; `-` reads standard input.
pub fn read_board(path: &Path) -> Result<Board, TilingFileError> {
    Board::parse(&read_text(path)?).map_err(|source| TilingFileError::Board {
        path: path.display().to_string(),
        source,
    })
}

/// The text of the file `path`, or of standard input for `-`.
fn read_text(path: &Path) -> Result<String, TilingFileError> {
    if path == Path::new("-") {
        return text_within_limits(io::stdin().lock(), path);
    }
    read_file_text(path)
}

/// The text of the file `path` (never standard input), within the limits.
pub(crate) fn read_file_text(path: &Path) -> Result<String, TilingFileError> {
    let file = File::open(path).map_err(|source| read_error(path, source))?;
    text_within_limits(file, path)
}

fn read_error(path: &Path, source: io::Error) -> TilingFileError {
    TilingFileError::Read {
        path: path.display().to_string(),
        source,
    }
}

/// What `reader` holds, as text: at most [`MAX_FILE_BYTES`] (one byte more is read, to see
/// that there are more), each line at most [`MAX_LINE_BYTES`], valid UTF-8. A line too long
/// is reported before the file's length, so that a file of one huge line says so.
fn text_within_limits(reader: impl Read, path: &Path) -> Result<String, TilingFileError> {
    let name = || path.display().to_string();
    let Bounded { bytes, whole } =
        read_bounded(reader, MAX_FILE_BYTES as u64).map_err(|source| read_error(path, source))?;
    if let Some(index) =
        physical_lines(&bytes).position(|line| without_line_ending(line).len() > MAX_LINE_BYTES)
    {
        return Err(TilingFileError::LongLine {
            path: name(),
            line: index + 1,
        });
    }
    if !whole {
        return Err(TilingFileError::TooLarge { path: name() });
    }
    String::from_utf8(bytes).map_err(|error| {
        let (line, byte) = line_and_byte(error.as_bytes(), error.utf8_error().valid_up_to());
        TilingFileError::NotUtf8 {
            path: name(),
            line,
            byte,
        }
    })
}

/// The 1-based line of `bytes` that holds the byte at `offset`, and that byte's 1-based
/// place in the line.
fn line_and_byte(bytes: &[u8], offset: usize) -> (usize, usize) {
    let mut start = 0;
    let mut number = 1;
    for line in physical_lines(bytes) {
        if offset < start + line.len() {
            break;
        }
        start += line.len();
        number += 1;
    }
    (number, offset - start + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(bytes: &[u8]) -> Result<String, TilingFileError> {
        text_within_limits(bytes, Path::new("f.txt"))
    }

    #[test]
    fn text_is_read_whole_within_the_limits() {
        assert_eq!(read(b"#,#\r===\r\n").unwrap(), "#,#\r===\r\n");
        let line = "#".repeat(MAX_LINE_BYTES);
        assert_eq!(read(line.as_bytes()).unwrap(), line);
        let file = format!("{line}\n").repeat(MAX_FILE_BYTES / (MAX_LINE_BYTES + 1));
        assert_eq!(read(file.as_bytes()).unwrap(), file);
    }

    #[test]
    fn a_long_line_a_long_file_and_bad_utf8_are_refused_where_they_are() {
        let long = format!("#\r\n#\r{}#", "#".repeat(MAX_LINE_BYTES));
        assert_eq!(
            read(long.as_bytes()).unwrap_err().to_string(),
            "cannot read f.txt: line 3 is longer than 65536 bytes, the most a line of a \
             pieces or board file may hold"
        );
        let huge = "#\n".repeat(MAX_FILE_BYTES);
        assert_eq!(
            read(huge.as_bytes()).unwrap_err().to_string(),
            "cannot read f.txt: it is longer than 1048576 bytes, the most a pieces or board \
             file may hold"
        );
        assert_eq!(
            read(b"##\r\n#\r#\xff#\n").unwrap_err().to_string(),
            "cannot read f.txt: line 3: not valid UTF-8 at byte 2"
        );
        assert_eq!(
            read(b"##\n\xc3").unwrap_err().to_string(),
            "cannot read f.txt: line 2: not valid UTF-8 at byte 1"
        );
    }
}
