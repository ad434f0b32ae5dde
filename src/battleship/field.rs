//! Battleship fields: a rectangle of cells, each a ship cell or water, stored as one bit
//! mask per row; parsing from the line, row, JSON-list and block formats.

use std::fmt;

use serde_json::value::RawValue;
use smallvec::SmallVec;
use thiserror::Error;

use crate::batch::Excerpt;

/// Widest field: a row is one `u64` mask.
pub const MAX_WIDTH: usize = 64;
/// Tallest field.
pub const MAX_HEIGHT: usize = 64;

/// A field: `rows[r]` has bit `c` set where row `r` (from the top), column `c` (from the
/// left) is a ship cell.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Field {
    width: usize,
    height: usize,
    rows: Rows,
}

/// A field's row masks: in place up to 10 rows, so that reading a classic field allocates
/// nothing. (With room for 16, moving a field cost more than the allocation saved.)
pub(super) type Rows = SmallVec<[u64; 10]>;

/// How a field is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FieldFormat {
    /// Decide per record: a JSON list if it starts with `[`, else a line.
    Auto,
    /// One field per line: all cells in row-major order (square, or with --size), or the
    /// rows separated by spaces. `1`, `x`, `#` are ship cells; `0`, `.` water.
    Line,
    /// A JSON (or Python) list of lists of 0 and 1 on one line.
    Json,
    /// One row per line, fields separated by blank lines.
    Blocks,
}

/// Why a record is not a field.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum FieldError {
    /// A character that is neither a ship cell nor water.
    #[error("bad character {character:?} at row {row}, column {column}: cells are 1, x or # for a ship and 0 or . for water")]
    BadCharacter {
        /// The character.
        character: char,
        /// 1-based row.
        row: usize,
        /// 1-based column.
        column: usize,
    },
    /// Rows of different lengths.
    #[error("row {row} has {}, row 1 has {expected}", super::counted(*found, "cell"))]
    RaggedRow {
        /// 1-based row.
        row: usize,
        /// Cells in that row.
        found: usize,
        /// Cells in the first row.
        expected: usize,
    },
    /// The size does not match the one asked for, or cannot be told.
    #[error("{0}")]
    Size(String),
    /// A JSON list that is not a list of lists of 0 and 1.
    #[error("not a list of rows of 0 and 1: {0}")]
    Json(String),
}

impl Field {
    /// An all-water field.
    pub fn empty(width: usize, height: usize) -> Result<Self, FieldError> {
        check_size(width, height)?;
        Ok(Field {
            width,
            height,
            rows: smallvec::smallvec![0; height],
        })
    }

    /// Parses one record. `size` is `(width, height)` when given with `--size`.
    pub fn parse(
        text: &str,
        format: FieldFormat,
        size: Option<(usize, usize)>,
    ) -> Result<Self, FieldError> {
        if format != FieldFormat::Json {
            let mut rows = Rows::new();
            if let Some(width) = super::simd_rows::row_masks(text.as_bytes(), &mut rows) {
                return Self::from_masks(width, rows, size);
            }
        }
        let text = text.trim();
        if text.is_empty() {
            // Only white space, which the batch reader does not skip as a blank line
            // (a vertical tab): no cell at all.
            return Err(FieldError::Size(
                "the field has no cells, only white space".into(),
            ));
        }
        let format = match format {
            FieldFormat::Auto if text.starts_with('[') => FieldFormat::Json,
            FieldFormat::Auto if text.contains('\n') => FieldFormat::Blocks,
            FieldFormat::Auto => FieldFormat::Line,
            other => other,
        };
        match format {
            FieldFormat::Json => Self::from_rows(&parse_json(text)?, size),
            FieldFormat::Line if !text.contains(char::is_whitespace) => {
                let cells = text.chars().count();
                let (width, height) = match size {
                    Some(size) => size,
                    None => square_side(cells).ok_or_else(|| {
                        FieldError::Size(format!(
                            "{} on one line is not a square field: give --size WxH or separate the rows with spaces",
                            super::counted(cells, "cell")
                        ))
                    })?,
                };
                if cells != width * height {
                    return Err(FieldError::Size(format!(
                        "{} on the line, a {width}x{height} field has {}",
                        super::counted(cells, "cell"),
                        width * height
                    )));
                }
                let mut field = Field::empty(width, height)?;
                for (i, character) in text.chars().enumerate() {
                    let (row, col) = (i / width, i % width);
                    if cell_value(character, row + 1, col + 1)? {
                        field.rows[row] |= 1 << col;
                    }
                }
                Ok(field)
            }
            _ => {
                // Rows as masks straight away: this is the common case and the hot path
                // of validating large files.
                if text.is_ascii() {
                    return Self::from_ascii_rows(text.as_bytes(), size);
                }
                let mut rows = Rows::new();
                let mut width = None;
                for (r, row) in text.split_whitespace().enumerate() {
                    let mut mask = 0u64;
                    let mut cells = 0;
                    for (c, character) in row.chars().enumerate() {
                        if c < MAX_WIDTH && cell_value(character, r + 1, c + 1)? {
                            mask |= 1 << c;
                        }
                        cells += 1;
                    }
                    let expected = *width.get_or_insert(cells);
                    if cells != expected {
                        return Err(FieldError::RaggedRow {
                            row: r + 1,
                            found: cells,
                            expected,
                        });
                    }
                    rows.push(mask);
                }
                let width = width.unwrap_or(0);
                Self::from_masks(width, rows, size)
            }
        }
    }

    /// Rows separated by whitespace, as the general loop reads them, a byte per cell.
    fn from_ascii_rows(text: &[u8], size: Option<(usize, usize)>) -> Result<Self, FieldError> {
        let mut rows = Rows::new();
        match well_formed_rows(text, &mut rows) {
            Some(width) => Self::from_masks(width, rows, size),
            None => Self::from_ascii_rows_checked(text, size),
        }
    }

    /// [`Self::from_ascii_rows`] cell by cell, finding the first fault in reading order.
    fn from_ascii_rows_checked(
        text: &[u8],
        size: Option<(usize, usize)>,
    ) -> Result<Self, FieldError> {
        let mut rows = Rows::new();
        let mut width = None;
        for (r, row) in text
            .split(|&b| is_ascii_space(b))
            .filter(|row| !row.is_empty())
            .enumerate()
        {
            let mut mask = 0u64;
            for (c, &byte) in row.iter().enumerate() {
                let ship = match byte {
                    b'1' | b'x' | b'X' | b'#' => true,
                    b'0' | b'.' => false,
                    // As in the general loop: cells past the widest field are not read.
                    _ if c >= MAX_WIDTH => false,
                    _ => cell_value(char::from(byte), r + 1, c + 1)?,
                };
                if ship && c < MAX_WIDTH {
                    mask |= 1 << c;
                }
            }
            let expected = *width.get_or_insert(row.len());
            if row.len() != expected {
                return Err(FieldError::RaggedRow {
                    row: r + 1,
                    found: row.len(),
                    expected,
                });
            }
            rows.push(mask);
        }
        Self::from_masks(width.unwrap_or(0), rows, size)
    }

    fn from_masks(
        width: usize,
        rows: Rows,
        size: Option<(usize, usize)>,
    ) -> Result<Self, FieldError> {
        let height = rows.len();
        if let Some((w, h)) = size {
            if (w, h) != (width, height) {
                return Err(FieldError::Size(format!(
                    "the field is {width}x{height}, --size asks for {w}x{h}"
                )));
            }
        }
        check_size(width, height)?;
        Ok(Field {
            width,
            height,
            rows,
        })
    }

    fn from_rows(rows: &[Vec<bool>], size: Option<(usize, usize)>) -> Result<Self, FieldError> {
        let width = rows.first().map_or(0, Vec::len);
        let mut masks = Rows::with_capacity(rows.len());
        for (i, row) in rows.iter().enumerate() {
            if row.len() != width {
                return Err(FieldError::RaggedRow {
                    row: i + 1,
                    found: row.len(),
                    expected: width,
                });
            }
            masks.push(
                row.iter()
                    .take(MAX_WIDTH)
                    .enumerate()
                    .filter(|(_, &ship)| ship)
                    .fold(0u64, |mask, (c, _)| mask | 1 << c),
            );
        }
        Self::from_masks(width, masks, size)
    }

    /// Width in cells.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Height in cells.
    pub fn height(&self) -> usize {
        self.height
    }

    /// The row masks, top row first; bit `c` is column `c`.
    pub fn rows(&self) -> &[u64] {
        &self.rows
    }

    /// Whether (`row`, `col`), 0-based, is a ship cell.
    pub fn get(&self, row: usize, col: usize) -> bool {
        self.rows[row] >> col & 1 == 1
    }

    /// Makes (`row`, `col`) a ship cell or water.
    pub fn set(&mut self, row: usize, col: usize, ship: bool) {
        if ship {
            self.rows[row] |= 1 << col;
        } else {
            self.rows[row] &= !(1 << col);
        }
    }

    /// Number of ship cells.
    pub fn ship_cells(&self) -> usize {
        self.rows.iter().map(|r| r.count_ones() as usize).sum()
    }

    /// The field in the line format with rows separated by spaces, e.g. `1000 0110 …`.
    pub fn to_line(&self) -> String {
        let rows: Vec<String> = (0..self.height)
            .map(|r| {
                (0..self.width)
                    .map(|c| if self.get(r, c) { '1' } else { '0' })
                    .collect()
            })
            .collect();
        rows.join(" ")
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_line())
    }
}

/// A cell's name: column letter(s) and 1-based row from the top, e.g. `B3`.
pub fn cell_name(row: usize, col: usize) -> String {
    let mut letters = String::new();
    let mut c = col + 1;
    while c > 0 {
        letters.insert(0, (b'A' + ((c - 1) % 26) as u8) as char);
        c = (c - 1) / 26;
    }
    format!("{letters}{}", row + 1)
}

/// Parses a `WxH` size argument.
pub fn parse_size(text: &str) -> Result<(usize, usize), FieldError> {
    let bad = || FieldError::Size(format!("size {text:?} is not WIDTHxHEIGHT, e.g. 10x10"));
    let (w, h) = text.split_once(['x', 'X']).ok_or_else(bad)?;
    let (width, height) = (
        w.trim().parse().map_err(|_| bad())?,
        h.trim().parse().map_err(|_| bad())?,
    );
    check_size(width, height)?;
    Ok((width, height))
}

/// ASCII's whitespace as `char::is_whitespace` sees it (vertical tab included).
fn is_ascii_space(b: u8) -> bool {
    matches!(b, b'\t'..=b'\r' | b' ')
}

/// A cell's byte as [`SHIP`], [`WATER`] or [`NOT_A_CELL`].
const CELL_CLASS: [u8; 256] = {
    let mut class = [NOT_A_CELL; 256];
    class[b'1' as usize] = SHIP;
    class[b'x' as usize] = SHIP;
    class[b'X' as usize] = SHIP;
    class[b'#' as usize] = SHIP;
    class[b'0' as usize] = WATER;
    class[b'.' as usize] = WATER;
    class
};
const WATER: u8 = 0;
const SHIP: u8 = 1;
const NOT_A_CELL: u8 = 2;

/// The row masks of rows separated by ASCII whitespace, each at most [`MAX_WIDTH`] cells
/// and all of one width, pushed to `rows`; the width, or `None` if any of that fails.
///
/// The hot path of validating large files: a table lookup and shift per cell, no branch on
/// the cell (a `match` per cell compiled to a jump table, mispredicted on random fields).
pub(super) fn well_formed_rows(text: &[u8], rows: &mut Rows) -> Option<usize> {
    let mut width = None;
    for row in text.split(|&b| is_ascii_space(b)) {
        if row.is_empty() {
            continue;
        }
        if row.len() > MAX_WIDTH || *width.get_or_insert(row.len()) != row.len() {
            return None;
        }
        let mut mask = 0u64;
        let mut classes = 0u8;
        for (c, &byte) in row.iter().enumerate() {
            let class = CELL_CLASS[usize::from(byte)];
            mask |= u64::from(class & SHIP) << c;
            classes |= class;
        }
        if classes & NOT_A_CELL != 0 {
            return None;
        }
        rows.push(mask);
    }
    Some(width.unwrap_or(0))
}

fn check_size(width: usize, height: usize) -> Result<(), FieldError> {
    if (1..=MAX_WIDTH).contains(&width) && (1..=MAX_HEIGHT).contains(&height) {
        Ok(())
    } else {
        Err(FieldError::Size(format!(
            "a {width}x{height} field is not supported: width and height go from 1 to 64"
        )))
    }
}

fn square_side(cells: usize) -> Option<(usize, usize)> {
    let side = (cells as f64).sqrt().round() as usize;
    (side * side == cells && side > 0).then_some((side, side))
}

fn cell_value(character: char, row: usize, column: usize) -> Result<bool, FieldError> {
    match character {
        '1' | 'x' | 'X' | '#' => Ok(true),
        '0' | '.' => Ok(false),
        _ => Err(FieldError::BadCharacter {
            character,
            row,
            column,
        }),
    }
}

fn parse_json(text: &str) -> Result<Vec<Vec<bool>>, FieldError> {
    // Each cell's text as written, so that a message quotes it as the user typed it
    // (a `Value` would give 99999999999999999999 back as 1e+20).
    let rows: Vec<Vec<&RawValue>> = serde_json::from_str(text).map_err(json_error)?;
    rows.iter()
        .enumerate()
        .map(|(r, row)| {
            row.iter()
                .enumerate()
                .map(|(c, value)| match value.get() {
                    "0" => Ok(false),
                    "1" => Ok(true),
                    other => Err(FieldError::Json(format!(
                        "row {}, column {} is {}, not 0 or 1",
                        r + 1,
                        c + 1,
                        Excerpt::plain(other)
                    ))),
                })
                .collect()
        })
        .collect()
}

/// serde_json's message with the text it quotes cut to an [`Excerpt`] (it holds a whole
/// offending string), then where the error is.
fn json_error(error: serde_json::Error) -> FieldError {
    let message = error.to_string();
    let place = format!(" at line {} column {}", error.line(), error.column());
    let what = message.strip_suffix(&place).unwrap_or(&message);
    FieldError::Json(format!(
        "{} at column {}",
        Excerpt::plain(what),
        error.column()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED: &str = "1000000000 1110000010 1100000010 1100000000 1100000010 1100111000 1000000010 0000000000 0000000000 0000000000";

    /// The table-driven rows and the cell-by-cell reader give the same field or error, on
    /// rows built from valid cells, bad bytes, whitespace and rows of other widths.
    #[test]
    fn fast_rows_agree_with_the_checked_reader() {
        let pieces: [&[u8]; 12] = [
            b"1", b"0", b"x", b"X", b"#", b".", b" ", b"\x0b", b"\n", b"2", b"o", b"1011",
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let mut fast = 0;
        for case in 0..20_000 {
            let (width, height) = (1 + next(12), 1 + next(6));
            let mut text = Vec::new();
            for _ in 0..height {
                for _ in 0..width {
                    // Mostly cells, so that most fields are well formed.
                    let piece = if next(40) > 0 {
                        next(6)
                    } else {
                        next(pieces.len())
                    };
                    text.extend_from_slice(pieces[piece]);
                }
                text.push(b' ');
            }
            let checked = Field::from_ascii_rows_checked(&text, None);
            let mut rows = Rows::new();
            if let Some(width) = well_formed_rows(&text, &mut rows) {
                fast += 1;
                let field = Field::from_masks(width, rows, None);
                assert_eq!(field, checked, "case {case}: {text:?}");
            }
            assert_eq!(
                Field::from_ascii_rows(&text, None),
                checked,
                "case {case}: {text:?}"
            );
        }
        let wide = [b'1'; 65];
        assert!(well_formed_rows(&wide, &mut Rows::new()).is_none());
        assert!(fast > 5_000, "only {fast} fields read by the table");
    }

    #[test]
    fn a_field_of_only_white_space_has_no_cells() {
        for text in ["\u{b}", "\u{b}\u{c}", " \u{b} \n "] {
            assert_eq!(
                Field::parse(text, FieldFormat::Auto, None)
                    .unwrap_err()
                    .to_string(),
                "the field has no cells, only white space",
                "{text:?}"
            );
        }
    }

    #[test]
    fn every_format_reads_the_same_field() {
        let rows = Field::parse(SEED, FieldFormat::Auto, None).unwrap();
        assert_eq!((rows.width(), rows.height()), (10, 10));
        assert_eq!(rows.ship_cells(), 20);
        assert!(rows.get(1, 8) && !rows.get(1, 9));
        let flat = SEED.replace(' ', "");
        assert_eq!(Field::parse(&flat, FieldFormat::Auto, None).unwrap(), rows);
        let json = format!(
            "[{}]",
            SEED.split(' ')
                .map(|r| format!(
                    "[{}]",
                    r.chars().map(String::from).collect::<Vec<_>>().join(", ")
                ))
                .collect::<Vec<_>>()
                .join(", ")
        );
        assert_eq!(Field::parse(&json, FieldFormat::Auto, None).unwrap(), rows);
        let block = SEED.replace(' ', "\n");
        assert_eq!(
            Field::parse(&block, FieldFormat::Blocks, None).unwrap(),
            rows
        );
        assert_eq!(rows.to_line(), SEED);
        let dots = SEED.replace('1', "#").replace('0', ".");
        assert_eq!(
            Field::parse(&dots, FieldFormat::Line, Some((10, 10))).unwrap(),
            rows
        );
    }

    #[test]
    fn rectangles_need_their_size() {
        let field = Field::parse("110000 000011", FieldFormat::Auto, None).unwrap();
        assert_eq!((field.width(), field.height()), (6, 2));
        let flat = Field::parse("110000000011", FieldFormat::Line, Some((6, 2))).unwrap();
        assert_eq!(flat, field);
        let error = Field::parse("110000000011", FieldFormat::Line, None).unwrap_err();
        assert!(error.to_string().contains("give --size"), "{error}");
        let error = Field::parse("110000 000011", FieldFormat::Line, Some((3, 4))).unwrap_err();
        assert_eq!(error.to_string(), "the field is 6x2, --size asks for 3x4");
    }

    #[test]
    fn errors_say_what_and_where() {
        let error = Field::parse("1000 01a0", FieldFormat::Auto, None).unwrap_err();
        assert_eq!(
            error.to_string(),
            "bad character 'a' at row 2, column 3: cells are 1, x or # for a ship and 0 or . for water"
        );
        assert_eq!(
            Field::parse("1000 010", FieldFormat::Auto, None).unwrap_err(),
            FieldError::RaggedRow {
                row: 2,
                found: 3,
                expected: 4
            }
        );
        let error = Field::parse("[[1, 0], [0, 2]]", FieldFormat::Auto, None).unwrap_err();
        assert_eq!(
            error.to_string(),
            "not a list of rows of 0 and 1: row 2, column 2 is 2, not 0 or 1"
        );
        assert!(Field::parse("[[1, 0], [0", FieldFormat::Auto, None).is_err());
        // A value is quoted as written, not as a float would print it.
        for (text, quoted) in [
            ("[[99999999999999999999]]", "99999999999999999999"),
            ("[[1.0, 0]]", "1.0"),
            ("[[1, -0]]", "-0"),
            ("[[0, [1]]]", "[1]"),
        ] {
            let error = Field::parse(text, FieldFormat::Auto, None).unwrap_err();
            assert!(
                error
                    .to_string()
                    .ends_with(&format!(" is {quoted}, not 0 or 1")),
                "{text}: {error}"
            );
        }
    }

    #[test]
    fn names_and_sizes() {
        assert_eq!(cell_name(0, 0), "A1");
        assert_eq!(cell_name(9, 9), "J10");
        assert_eq!(cell_name(0, 26), "AA1");
        assert_eq!(parse_size("10x8").unwrap(), (10, 8));
        assert!(parse_size("10").is_err());
        assert!(parse_size("65x2").is_err());
    }
}
