//! Sudoku grids of any box size 2..=10 (4×4 to 100×100): parsing the line format,
//! printing it back, the block display, and finding clues that conflict.

use std::fmt;

use smallvec::SmallVec;
use thiserror::Error;

use crate::batch::Excerpt;

/// Smallest supported box size (4×4 grids).
pub const MIN_BOX: usize = 2;
/// Largest supported box size (100×100 grids). Larger grids would be no harder to read,
/// but the exact-cover matrix every worker keeps grows as the side cubed: 4 million nodes
/// at 100×100, 46 million at 225×225.
pub const MAX_BOX: usize = 10;

/// Largest box size whose lines hold one character a cell (25×25 grids): the next size,
/// 36×36, has more digits than `1`-`9` and `A`-`Z`, so its lines, and those of every
/// larger grid, hold numbers separated by spaces.
const MAX_CHARACTER_BOX: usize = 5;

/// What a line of characters of the wrong length is told: the lengths of every grid it
/// can be, and, past the longest, how a larger grid is written.
fn character_lengths(found: usize) -> String {
    let sizes = "a grid has 16 (4×4), 81 (9×9), 256 (16×16) or 625 (25×25)";
    if found > 625 {
        format!("{sizes}; a larger grid is written as numbers separated by spaces")
    } else {
        sizes.to_string()
    }
}

/// What a line of numbers of the wrong count is told: the counts of every grid.
fn number_counts() -> String {
    let sizes: Vec<String> = (MIN_BOX..=MAX_BOX)
        .map(|n| {
            let side = n * n;
            format!("{} ({side}×{side})", side * side)
        })
        .collect();
    let (last, rest) = sizes.split_last().expect("there are grid sizes");
    format!("a grid has {} or {last}", rest.join(", "))
}

/// A Sudoku grid: `side × side` cells with `side = box_size²`, each 0 (blank) or a digit
/// `1..=side`.
///
/// In the line format, grids up to 25×25 are written one character a cell: digits `1`–`9`,
/// then `A`, `B`, … for 10, 11, … (so a 16×16 grid uses `1`–`9` and `A`–`G`, a 25×25 grid
/// `1`–`9` and `A`–`P`; lower case is accepted too). A blank is `.` or `0`. Any grid may
/// also be written as decimal numbers separated by spaces or tabs (`.` or `0` for a
/// blank), which is how grids of 36×36 and larger are written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Grid {
    box_size: usize,
    /// Kept inline up to 9×9, so that parsing or solving a 9×9 grid allocates nothing;
    /// larger grids are on the heap.
    cells: SmallVec<[u8; 81]>,
}

/// The box size of a grid with these cell values (row-major, 0 for blank), if their number
/// is that of a supported grid and every value is in range.
fn valid_box_size(cells: &[u8]) -> Option<usize> {
    let box_size = (MIN_BOX..=MAX_BOX).find(|n| n.pow(4) == cells.len())?;
    let side = box_size * box_size;
    cells
        .iter()
        .all(|&v| v as usize <= side)
        .then_some(box_size)
}

/// Why a line is not a Sudoku grid.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum GridError {
    /// The line's length is not that of any supported grid (or of the size asked for).
    #[error("the line has {found} character{}; {expected}", if *found == 1 { "" } else { "s" })]
    WrongLength {
        /// Characters found.
        found: usize,
        /// What was expected, in words.
        expected: String,
    },
    /// A character that is neither a blank nor a digit of this grid size.
    #[error("bad character {character:?} at column {column}: a {side}×{side} grid takes {alphabet}, and . or 0 for a blank")]
    BadCharacter {
        /// The character.
        character: char,
        /// 1-based position in the line.
        column: usize,
        /// The grid's side.
        side: usize,
        /// The digits allowed, in words.
        alphabet: String,
    },
    /// A line of numbers whose count is not that of any supported grid (or of the size
    /// asked for).
    #[error("the line has {found} number{}; {expected}", if *found == 1 { "" } else { "s" })]
    WrongCount {
        /// Numbers found.
        found: usize,
        /// What was expected, in words.
        expected: String,
    },
    /// In a line of numbers, one that is neither a blank nor a digit of this grid size.
    #[error("bad number {text} (number {index}, at column {column}): a {side}×{side} grid takes 1-{side}, and . or 0 for a blank")]
    BadNumber {
        /// The text read as the number, quoted and cut.
        text: String,
        /// 1-based position among the line's numbers.
        index: usize,
        /// 1-based position of its first character in the line.
        column: usize,
        /// The grid's side.
        side: usize,
    },
    /// In a line of numbers, a word that is not a number at all.
    #[error("bad number {text} (number {index}, at column {column}): numbers are written in decimal and separated by spaces, with . or 0 for a blank")]
    NotANumber {
        /// The word, quoted and cut.
        text: String,
        /// 1-based position among the line's words.
        index: usize,
        /// 1-based position of its first character in the line.
        column: usize,
    },
    /// A size that puzzlebench does not support.
    #[error(
        "unsupported Sudoku size {0}: the side is the square of 2 to 10 (4, 9, 16, 25, 36, … 100)"
    )]
    UnsupportedSize(usize),
}

/// Which unit two conflicting clues share.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// A row (0-based).
    Row(usize),
    /// A column (0-based).
    Column(usize),
    /// A box (0-based, row-major).
    Box(usize),
}

/// Two clues with the same digit in one unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Conflict {
    /// The grid's side, which says how the digit is written.
    pub side: usize,
    /// The repeated digit.
    pub digit: u8,
    /// The unit they share.
    pub unit: Unit,
    /// The two cells, as 0-based (row, column), in row-major order.
    pub cells: [(usize, usize); 2],
}

impl fmt::Display for Conflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unit = match self.unit {
            Unit::Row(r) => format!("row {}", r + 1),
            Unit::Column(c) => format!("column {}", c + 1),
            Unit::Box(b) => format!("box {}", b + 1),
        };
        let [(r1, c1), (r2, c2)] = self.cells;
        write!(
            f,
            "clues conflict: {} appears twice in {unit} (r{}c{} and r{}c{})",
            digit_text(self.digit, self.side),
            r1 + 1,
            c1 + 1,
            r2 + 1,
            c2 + 1
        )
    }
}

/// The character of digit `d` (1-based) in the line format.
pub fn digit_char(d: u8) -> char {
    match d {
        0 => '.',
        1..=9 => (b'0' + d) as char,
        _ => (b'A' + d - 10) as char,
    }
}

/// Digit `d` (1-based; 0 for a blank) of a grid of side `side` as its line writes it:
/// [`digit_char`] up to 25×25, the number itself (`.` for a blank) from 36×36 on.
pub fn digit_text(d: u8, side: usize) -> String {
    if side <= MAX_CHARACTER_BOX * MAX_CHARACTER_BOX || d == 0 {
        digit_char(d).to_string()
    } else {
        d.to_string()
    }
}

/// The value of byte `b` in the line format: `.` and `0` blank (0), `1`-`9`, then `A`-`Z`
/// and `a`-`z` from 10 on; `u8::MAX` for any other byte.
///
/// Branch-free selects rather than a table, so that a line's loop compiles to vector
/// compares: the table's lookup per byte was two fifths of a 16×16 line's parsing.
#[inline(always)]
pub(super) fn cell_value(b: u8) -> u8 {
    let digit = b.wrapping_sub(b'0');
    // `b | 0x20` folds `A`-`Z` onto `a`-`z` and nothing else onto them.
    let letter = (b | 0x20).wrapping_sub(b'a');
    if digit <= 9 {
        digit
    } else if letter <= 25 {
        letter + 10
    } else if b == b'.' {
        0
    } else {
        u8::MAX
    }
}

/// The byte of cell value `v` in the line format: for 0 to 35, [`digit_char`] as a
/// byte; past 35 (no grid holds such a value), `Z`, so that every byte is ASCII.
/// Branch-free selects, as [`cell_value`].
#[inline(always)]
pub(super) fn digit_byte(v: u8) -> u8 {
    let v = v.min(35);
    if v == 0 {
        b'.'
    } else if v <= 9 {
        b'0' + v
    } else {
        b'A' - 10 + v
    }
}

/// The words of a line of numbers: its text between runs of white space (any Unicode
/// white space, so that a no-break space copied from a web page separates too).
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(char::is_whitespace)
        .filter(|word| !word.is_empty())
}

/// Whether `word` is written as a number or a blank: decimal digits, or `.`.
fn is_number_word(word: &str) -> bool {
    word == "." || word.bytes().all(|b| b.is_ascii_digit())
}

/// Whether `text`, a line without its surrounding blanks, `length` characters long, is
/// to be read as numbers: it has white space inside, and it is longer than any grid of
/// characters (625, 25×25), or the size asked for (`asked`, a side) is written as
/// numbers, or one of its first two words is a number or `.` (so that a line of words,
/// not a grid at all, is told its length in characters, as any other line).
fn reads_as_numbers(text: &str, length: usize, asked: Option<usize>) -> bool {
    let mut words = words(text);
    let (Some(first), Some(second)) = (words.next(), words.next()) else {
        return false;
    };
    length > MAX_CHARACTER_BOX.pow(4)
        || asked.is_some_and(|side| side > MAX_CHARACTER_BOX.pow(2))
        || is_number_word(first)
        || is_number_word(second)
}

fn alphabet(side: usize) -> String {
    if side <= 9 {
        format!("digits 1-{side}")
    } else {
        format!("1-9 and A-{}", digit_char(side as u8))
    }
}

/// The box size of a grid of side `side`: 2 for 4, 3 for 9, … 10 for 100.
pub fn box_size_of_side(side: usize) -> Result<usize, GridError> {
    (MIN_BOX..=MAX_BOX)
        .find(|n| n * n == side)
        .ok_or(GridError::UnsupportedSize(side))
}

/// A `--size` value that is not a supported grid side.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{text:?} is not a grid side: give 4, 9, 16, 25, 36, 49, 64, 81 or 100")]
pub struct SideError {
    /// The value given.
    pub text: String,
}

/// The grid side of a `--size` value: the square of 2 to 10 (4, 9, 16, … 100).
pub fn parse_side(text: &str) -> Result<usize, SideError> {
    text.parse::<usize>()
        .ok()
        .filter(|&side| box_size_of_side(side).is_ok())
        .ok_or_else(|| SideError {
            text: text.to_string(),
        })
}

/// The box size of the grid a `--size` value names (3 for `9`).
pub fn parse_box_size(text: &str) -> Result<usize, SideError> {
    parse_side(text).and_then(|side| {
        box_size_of_side(side).map_err(|_| SideError {
            text: text.to_string(),
        })
    })
}

impl Grid {
    /// An empty grid with boxes of `box_size × box_size` cells.
    pub fn empty(box_size: usize) -> Result<Self, GridError> {
        if !(MIN_BOX..=MAX_BOX).contains(&box_size) {
            return Err(GridError::UnsupportedSize(box_size * box_size));
        }
        let side = box_size * box_size;
        Ok(Grid {
            box_size,
            cells: SmallVec::from_elem(0, side * side),
        })
    }

    /// A grid from cell values (0 for blank) in row-major order; `None` if the length is
    /// not that of a supported grid or a value is out of range.
    pub fn from_cells(cells: Vec<u8>) -> Option<Self> {
        let box_size = valid_box_size(&cells)?;
        Some(Grid {
            box_size,
            cells: SmallVec::from_vec(cells),
        })
    }

    /// [`from_cells`](Self::from_cells) from a slice.
    pub fn from_slice(cells: &[u8]) -> Option<Self> {
        let box_size = valid_box_size(cells)?;
        Some(Grid {
            box_size,
            cells: SmallVec::from_slice(cells),
        })
    }

    /// Parses a line of the line format. The size is inferred from the length unless
    /// `side` is given. ASCII white space before and after the grid is ignored (columns
    /// in errors still count it): the same white space as a blank line's, so that a line
    /// is either skipped as blank or read with every other character counted. A line
    /// with white space inside whose first word is a number or `.` is read as numbers
    /// separated by white space.
    pub fn from_line(line: &str, side: Option<usize>) -> Result<Self, GridError> {
        let asked = side;
        let until_end = line.trim_ascii_end();
        let text = until_end.trim_ascii_start();
        // ASCII blanks: a byte and a column each.
        let leading = until_end.len() - text.len();
        let ascii = text.is_ascii();
        let length = if ascii {
            text.len()
        } else {
            text.chars().count()
        };
        // Lines of numbers are told apart only once the line fails as characters (its
        // length, or a byte that is not a digit), so that lines of characters, nearly
        // all, are not scanned for blanks first.
        let box_size = match side {
            Some(side) => {
                let box_size = box_size_of_side(side)?;
                if box_size > MAX_CHARACTER_BOX || length != side * side {
                    if reads_as_numbers(text, length, asked) {
                        return Self::from_numbers(text, leading, Some(side));
                    }
                    let expected = if box_size > MAX_CHARACTER_BOX {
                        format!(
                            "a {side}×{side} grid is written as {} numbers separated by spaces",
                            side * side
                        )
                    } else {
                        format!("a {side}×{side} grid has {}", side * side)
                    };
                    return Err(GridError::WrongLength {
                        found: length,
                        expected,
                    });
                }
                box_size
            }
            None => match (MIN_BOX..=MAX_CHARACTER_BOX).find(|n| n.pow(4) == length) {
                Some(box_size) => box_size,
                None if reads_as_numbers(text, length, None) => {
                    return Self::from_numbers(text, leading, None)
                }
                None => {
                    return Err(GridError::WrongLength {
                        found: length,
                        expected: character_lengths(length),
                    })
                }
            },
        };
        let side = box_size * box_size;
        // ASCII lines (nearly all) by a branch-free value per byte: the character-by-character
        // match took a sixth of a whole Kaggle record's time (puzzle and expected solution
        // parsed); other lines, and lines with a bad character, take the loop below, which
        // says which character and where.
        if ascii {
            // Filled in place rather than collected: pushing cell by cell cost as much as
            // the lookups.
            let mut cells: SmallVec<[u8; 81]> = SmallVec::from_elem(0, length);
            let mut largest = 0;
            for (cell, byte) in cells.iter_mut().zip(text.bytes()) {
                *cell = cell_value(byte);
                largest = largest.max(*cell);
            }
            if usize::from(largest) <= side {
                return Ok(Grid { box_size, cells });
            }
        }
        if reads_as_numbers(text, length, asked) {
            // A line of characters with a blank inside is told so below, unless it reads
            // as a grid's numbers (or as numbers of which one is wrong).
            match Self::from_numbers(text, leading, asked) {
                Err(GridError::WrongCount { .. }) => {}
                read => return read,
            }
        }
        let mut cells = SmallVec::with_capacity(length);
        for (index, character) in text.chars().enumerate() {
            let value = match character {
                '.' | '0' => Some(0),
                '1'..='9' => Some(character as u8 - b'0'),
                'A'..='Z' => Some(character as u8 - b'A' + 10),
                'a'..='z' => Some(character as u8 - b'a' + 10),
                _ => None,
            };
            match value {
                Some(v) if v as usize <= side => cells.push(v),
                _ => {
                    return Err(GridError::BadCharacter {
                        character,
                        column: leading + index + 1,
                        side,
                        alphabet: alphabet(side),
                    })
                }
            }
        }
        Ok(Grid { box_size, cells })
    }

    /// Parses `text` (a line without its surrounding blanks, which were `leading` bytes)
    /// as numbers separated by white space, of a grid of side `side` or, when `None`, of
    /// the size their count says. A word that is not a number is named before the count
    /// is looked at, so that two numbers run together by a separator not taken for one
    /// are found where they are.
    fn from_numbers(text: &str, leading: usize, side: Option<usize>) -> Result<Self, GridError> {
        // `word` is a slice of `text`: its offset is where it starts.
        let column = |word: &str| {
            leading
                + text[..word.as_ptr() as usize - text.as_ptr() as usize]
                    .chars()
                    .count()
                + 1
        };
        let mut count = 0;
        for word in words(text) {
            count += 1;
            if !is_number_word(word) {
                return Err(GridError::NotANumber {
                    text: Excerpt::quoted(word).to_string(),
                    index: count,
                    column: column(word),
                });
            }
        }
        let box_size = match side {
            Some(side) => {
                let box_size = box_size_of_side(side)?;
                if count != side * side {
                    return Err(GridError::WrongCount {
                        found: count,
                        expected: format!("a {side}×{side} grid has {}", side * side),
                    });
                }
                box_size
            }
            None => (MIN_BOX..=MAX_BOX)
                .find(|n| n.pow(4) == count)
                .ok_or_else(|| GridError::WrongCount {
                    found: count,
                    expected: number_counts(),
                })?,
        };
        let side = box_size * box_size;
        let mut cells = SmallVec::with_capacity(count);
        for (index, number) in words(text).enumerate() {
            let value = match number {
                "." => Some(0),
                _ => number.parse::<usize>().ok().filter(|&value| value <= side),
            };
            match value {
                Some(value) => cells.push(value as u8),
                None => {
                    return Err(GridError::BadNumber {
                        text: Excerpt::quoted(number).to_string(),
                        index: index + 1,
                        column: column(number),
                        side,
                    });
                }
            }
        }
        Ok(Grid { box_size, cells })
    }

    /// Boxes are `box_size × box_size` cells.
    pub fn box_size(&self) -> usize {
        self.box_size
    }

    /// Cells per row, column and box.
    pub fn side(&self) -> usize {
        self.box_size * self.box_size
    }

    /// Cell values in row-major order, 0 for blank.
    pub fn cells(&self) -> &[u8] {
        &self.cells
    }

    /// The value at (`row`, `col`), 0-based; 0 for blank.
    pub fn get(&self, row: usize, col: usize) -> u8 {
        self.cells[row * self.side() + col]
    }

    /// Sets the value at (`row`, `col`), 0-based.
    pub fn set(&mut self, row: usize, col: usize, value: u8) {
        let side = self.side();
        self.cells[row * side + col] = value;
    }

    /// Number of filled cells.
    pub fn clue_count(&self) -> usize {
        self.cells.iter().filter(|&&v| v != 0).count()
    }

    /// Whether every cell is filled.
    pub fn is_full(&self) -> bool {
        self.cells.iter().all(|&v| v != 0)
    }

    /// The grid in the line format, `.` for blanks.
    pub fn to_line(&self) -> String {
        let mut line = String::with_capacity(self.cells.len());
        self.push_line(&mut line);
        line
    }

    /// Appends the grid as [`to_line`](Self::to_line) writes it to `line`, whose room is
    /// then reused.
    pub fn push_line(&self, line: &mut String) {
        // Bytes, not chars: pushing chars cost more than the rest of the formatting, and
        // checking the bytes as UTF-8 again cost half of what was left.
        // SAFETY: `push_line_bytes` appends ASCII bytes only, so the string stays UTF-8.
        self.push_line_bytes(unsafe { line.as_mut_vec() });
    }

    /// Appends the grid as [`to_line`](Self::to_line) writes it, as ASCII bytes: a
    /// character a cell up to 25×25, numbers separated by spaces (`.` for a blank) from
    /// 36×36 on.
    pub fn push_line_bytes(&self, out: &mut Vec<u8>) {
        if self.box_size <= MAX_CHARACTER_BOX {
            out.extend(self.cells.iter().map(|&v| digit_byte(v)));
            return;
        }
        for (i, &v) in self.cells.iter().enumerate() {
            if i > 0 {
                out.push(b' ');
            }
            match v {
                0 => out.push(b'.'),
                1..=9 => out.push(b'0' + v),
                10..=99 => out.extend_from_slice(&[b'0' + v / 10, b'0' + v % 10]),
                _ => out.extend_from_slice(&[b'0' + v / 100, b'0' + v / 10 % 10, b'0' + v % 10]),
            }
        }
    }

    /// The block display: one text line per row, `|` between boxes and `---+---+---`
    /// between bands, `.` for blanks. From 36×36 on, cells are numbers aligned right and
    /// separated by spaces.
    pub fn display_block(&self) -> String {
        let n = self.box_size;
        let side = self.side();
        let (width, gap) = if n <= MAX_CHARACTER_BOX {
            (1, "")
        } else {
            (side.to_string().len(), " ")
        };
        let band = "-".repeat(n * width + (n - 1) * gap.len());
        let rule = vec![band; n].join(&format!("{gap}+{gap}").replace(' ', "-"));
        let mut out = String::new();
        for row in 0..side {
            if row > 0 && row % n == 0 {
                out.push_str(&rule);
                out.push('\n');
            }
            for col in 0..side {
                if col > 0 {
                    out.push_str(gap);
                    if col % n == 0 {
                        out.push('|');
                        out.push_str(gap);
                    }
                }
                let digit = digit_text(self.get(row, col), side);
                out.push_str(&" ".repeat(width - digit.len()));
                out.push_str(&digit);
            }
            out.push('\n');
        }
        out
    }

    /// The first pair of clues that share a digit in a row, column or box (rows checked
    /// first, then columns, then boxes), if any.
    pub fn find_conflict(&self) -> Option<Conflict> {
        let side = self.side();
        let n = self.box_size;
        let mut seen: Vec<Option<(usize, usize)>> = vec![None; side + 1];
        for kind in 0..3 {
            for unit in 0..side {
                seen.fill(None);
                for k in 0..side {
                    let (row, col) = match kind {
                        0 => (unit, k),
                        1 => (k, unit),
                        _ => ((unit / n) * n + k / n, (unit % n) * n + k % n),
                    };
                    let digit = self.get(row, col);
                    if digit == 0 {
                        continue;
                    }
                    if let Some(first) = seen[digit as usize] {
                        let unit = match kind {
                            0 => Unit::Row(unit),
                            1 => Unit::Column(unit),
                            _ => Unit::Box(unit),
                        };
                        return Some(Conflict {
                            side,
                            digit,
                            unit,
                            cells: [first, (row, col)],
                        });
                    }
                    seen[digit as usize] = Some((row, col));
                }
            }
        }
        None
    }
}

impl fmt::Display for Grid {
    /// The line format.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_line())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED1: &str =
        "004001700080020000200070000000503078005000400960104000000050009000010060001700200";

    #[test]
    fn every_byte_has_the_value_of_the_line_format() {
        for b in 0..=255u8 {
            let expected = match b {
                b'.' | b'0' => 0,
                b'1'..=b'9' => b - b'0',
                b'A'..=b'Z' => b - b'A' + 10,
                b'a'..=b'z' => b - b'a' + 10,
                _ => u8::MAX,
            };
            assert_eq!(cell_value(b), expected, "byte {b}");
        }
        for v in 0..=35u8 {
            assert_eq!(char::from(digit_byte(v)), digit_char(v), "value {v}");
            assert_eq!(cell_value(digit_byte(v)), v, "value {v}");
        }
        assert!((36..=255u8).all(|v| digit_byte(v).is_ascii()));
    }

    #[test]
    fn parses_and_prints_the_line_format() {
        let grid = Grid::from_line(SEED1, None).unwrap();
        assert_eq!(grid.side(), 9);
        assert_eq!(grid.get(0, 2), 4);
        assert_eq!(grid.clue_count(), 24);
        assert_eq!(grid.to_line(), SEED1.replace('0', "."));
        assert_eq!(Grid::from_line(&grid.to_line(), Some(9)).unwrap(), grid);
    }

    #[test]
    fn blanks_around_the_line_are_ignored_but_counted_in_columns() {
        let grid = Grid::from_line(SEED1, None).unwrap();
        assert_eq!(
            Grid::from_line(&format!(" \t{SEED1}\t "), None).unwrap(),
            grid
        );
        let bad = format!("  {}x", &SEED1[..80]);
        match Grid::from_line(&bad, None) {
            Err(GridError::BadCharacter { column, .. }) => assert_eq!(column, 83),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn only_ascii_blanks_are_trimmed_so_every_other_character_is_counted() {
        // A vertical tab is not a blank of the batch reader's (a line of it is a record),
        // so it counts here too; the form feed after it is trimmed.
        assert_eq!(
            Grid::from_line("\u{b}\u{c}", None).unwrap_err().to_string(),
            "the line has 1 character; a grid has 16 (4×4), 81 (9×9), 256 (16×16) or 625 (25×25)"
        );
        match Grid::from_line(&format!("{SEED1}\u{a0}"), None) {
            Err(GridError::WrongLength { found: 82, .. }) => {}
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn block_display_matches_the_seed_style() {
        let grid = Grid::from_line(SEED1, None).unwrap();
        let expected = "\
..4|..1|7..
.8.|.2.|...
2..|.7.|...
---+---+---
...|5.3|.78
..5|...|4..
96.|1.4|...
---+---+---
...|.5.|..9
...|.1.|.6.
..1|7..|2..
";
        assert_eq!(grid.display_block(), expected);
    }

    #[test]
    fn wrong_length_and_bad_characters_say_where() {
        let short = Grid::from_line(&SEED1[..80], None).unwrap_err();
        assert_eq!(
            short.to_string(),
            "the line has 80 characters; a grid has 16 (4×4), 81 (9×9), 256 (16×16) or 625 (25×25)"
        );
        let mut bad = SEED1.to_string();
        bad.replace_range(11..12, "x");
        let error = Grid::from_line(&bad, None).unwrap_err();
        assert_eq!(
            error.to_string(),
            "bad character 'x' at column 12: a 9×9 grid takes digits 1-9, and . or 0 for a blank"
        );
        // A character of two bytes: its column counts characters, not bytes.
        let mut accent = SEED1.to_string();
        accent.replace_range(4..5, "é");
        assert!(matches!(
            Grid::from_line(&accent, None),
            Err(GridError::BadCharacter {
                character: 'é',
                column: 5,
                ..
            })
        ));
        let mut big_digit = SEED1.to_string();
        big_digit.replace_range(0..1, "A");
        assert!(matches!(
            Grid::from_line(&big_digit, None),
            Err(GridError::BadCharacter { column: 1, .. })
        ));
        assert!(matches!(
            Grid::from_line(SEED1, Some(16)),
            Err(GridError::WrongLength { found: 81, .. })
        ));
        assert_eq!(
            Grid::from_line(SEED1, Some(10)),
            Err(GridError::UnsupportedSize(10))
        );
        assert_eq!(
            Grid::from_line(SEED1, Some(121)),
            Err(GridError::UnsupportedSize(121))
        );
    }

    #[test]
    fn grids_from_cell_values_are_checked() {
        let nine: Vec<u8> = (0..81).map(|i| (i % 10) as u8).collect();
        let grid = Grid::from_cells(nine.clone()).unwrap();
        assert_eq!(Grid::from_slice(&nine), Some(grid.clone()));
        assert_eq!(grid.cells(), &nine[..]);
        // 16×16 cells do not fit inline; they compare and read the same.
        let sixteen: Vec<u8> = (0..256).map(|i| (i % 17) as u8).collect();
        let big = Grid::from_cells(sixteen.clone()).unwrap();
        assert_eq!(big, Grid::from_slice(&sixteen).unwrap());
        assert_eq!((big.box_size(), big.cells()), (4, &sixteen[..]));
        assert_eq!(Grid::from_cells(vec![0; 80]), None);
        assert_eq!(Grid::from_slice(&[10; 81]), None);
    }

    #[test]
    fn larger_alphabets() {
        let line: String = (1..=16u8).map(digit_char).collect::<String>() + &".".repeat(240);
        let grid = Grid::from_line(&line, None).unwrap();
        assert_eq!(grid.side(), 16);
        assert_eq!(grid.get(0, 15), 16);
        assert_eq!(grid.to_line(), line);
        let lower = line.to_lowercase();
        assert_eq!(Grid::from_line(&lower, None).unwrap(), grid);
        assert!(Grid::from_line(&line.replace('G', "H"), None).is_err());
    }

    /// A 36×36 grid's line of numbers: its first row 1 to 36, every other cell blank.
    fn first_row_36() -> String {
        let first: Vec<String> = (1..=36).map(|d| d.to_string()).collect();
        format!("{} {}", first.join(" "), vec!["."; 36 * 35].join(" "))
    }

    #[test]
    fn grids_from_36x36_on_are_lines_of_numbers() {
        let line = first_row_36();
        let grid = Grid::from_line(&line, None).unwrap();
        assert_eq!((grid.side(), grid.box_size()), (36, 6));
        assert_eq!(
            (grid.get(0, 0), grid.get(0, 35), grid.get(1, 0)),
            (1, 36, 0)
        );
        assert_eq!(grid.to_line(), line);
        // Zeros are blanks, numbers may have leading zeros, any run of blanks and tabs
        // separates them.
        let loose = format!(" 01\t 2 {}  ", &line[4..]).replace(" . ", " 0 ");
        assert_eq!(Grid::from_line(&loose, Some(36)).unwrap(), grid);
        // Every size up to 100×100.
        let hundred = Grid::from_line(&vec!["0"; 10_000].join(" "), None).unwrap();
        assert_eq!((hundred.side(), hundred.clue_count()), (100, 0));
        assert_eq!(
            Grid::from_line(&vec!["1"; 121 * 121].join(" "), None),
            Err(GridError::WrongCount {
                found: 14_641,
                expected: number_counts()
            })
        );
    }

    #[test]
    fn smaller_grids_read_as_numbers_too_and_print_as_characters() {
        let numbers: Vec<String> = SEED1.bytes().map(|b| (b - b'0').to_string()).collect();
        let grid = Grid::from_line(&numbers.join(" "), None).unwrap();
        assert_eq!(grid, Grid::from_line(SEED1, None).unwrap());
        assert_eq!(grid.to_line(), SEED1.replace('0', "."));
        // Of exactly 81 characters, as a 9×9 line of characters is.
        let short = format!("{} {}", "1".repeat(40), "2".repeat(40));
        assert_eq!(
            Grid::from_line(&short, None).unwrap_err().to_string(),
            "bad character ' ' at column 41: a 9×9 grid takes digits 1-9, and . or 0 for a blank"
        );
    }

    #[test]
    fn any_white_space_separates_numbers() {
        let plain = Grid::from_line(&first_row_36(), None).unwrap();
        for separator in [
            "\t", "\u{b}", "\u{c}", "\u{a0}", "\u{2003}", "\u{3000}", " \u{a0} ",
        ] {
            let line = first_row_36().replace(' ', separator);
            assert_eq!(
                Grid::from_line(&line, None).unwrap(),
                plain,
                "{separator:?}"
            );
        }
    }

    #[test]
    fn lines_of_numbers_say_which_number_is_wrong() {
        let line = first_row_36().replacen(" 36 ", " 37 ", 1);
        assert_eq!(
            Grid::from_line(&format!("  {line}"), None).unwrap_err().to_string(),
            "bad number \"37\" (number 36, at column 99): a 36×36 grid takes 1-36, and . or 0 for a blank"
        );
        let line = first_row_36().replacen(" 7 ", " x7 ", 1);
        assert!(matches!(
            Grid::from_line(&line, None),
            Err(GridError::NotANumber {
                index: 7,
                column: 13,
                ..
            })
        ));
        // The first word wrong, on a line too long for characters or of a size asked for
        // as numbers: still named, not the line's length.
        let first_wrong = first_row_36().replacen("1 ", "-1 ", 1);
        for side in [None, Some(36)] {
            assert_eq!(
                Grid::from_line(&first_wrong, side).unwrap_err().to_string(),
                "bad number \"-1\" (number 1, at column 1): numbers are written in decimal and \
                 separated by spaces, with . or 0 for a blank"
            );
        }
        // A 9×9 grid's numbers, the first wrong: the second word tells it is numbers.
        let nine = format!("x {}", ["."; 80].join(" "));
        assert!(matches!(
            Grid::from_line(&nine, None),
            Err(GridError::NotANumber {
                index: 1,
                column: 1,
                ..
            })
        ));
        // Two numbers run together by a separator not taken for one are found where they
        // are, before the count is looked at.
        let glued = first_row_36().replacen(" 7 ", " 7\u{1}8 ", 1);
        assert!(matches!(
            Grid::from_line(&glued, None),
            Err(GridError::NotANumber {
                index: 7,
                column: 13,
                ..
            })
        ));
        let huge = first_row_36().replacen(" 7 ", &format!(" {} ", "9".repeat(100)), 1);
        match Grid::from_line(&huge, None).unwrap_err() {
            GridError::BadNumber { text, index: 7, .. } => assert!(text.ends_with("(100 bytes)")),
            other => panic!("{other:?}"),
        }
        // Words are not numbers: the line is told its length, as any other.
        assert_eq!(
            Grid::from_line("not a grid", None).unwrap_err().to_string(),
            "the line has 10 characters; a grid has 16 (4×4), 81 (9×9), 256 (16×16) or 625 (25×25)"
        );
        assert_eq!(
            Grid::from_line("1 2 3", None).unwrap_err().to_string(),
            "the line has 3 numbers; a grid has 16 (4×4), 81 (9×9), 256 (16×16), 625 (25×25), \
             1296 (36×36), 2401 (49×49), 4096 (64×64), 6561 (81×81) or 10000 (100×100)"
        );
        assert_eq!(
            Grid::from_line(&first_row_36(), Some(49))
                .unwrap_err()
                .to_string(),
            "the line has 1296 numbers; a 49×49 grid has 2401"
        );
        // A 36×36 grid has digits past Z: its lines are numbers.
        assert_eq!(
            Grid::from_line(&"1".repeat(1296), Some(36)).unwrap_err().to_string(),
            "the line has 1296 characters; a 36×36 grid is written as 1296 numbers separated by spaces"
        );
        assert_eq!(
            Grid::from_line(&"1".repeat(1296), None)
                .unwrap_err()
                .to_string(),
            "the line has 1296 characters; a grid has 16 (4×4), 81 (9×9), 256 (16×16) or 625 \
             (25×25); a larger grid is written as numbers separated by spaces"
        );
    }

    #[test]
    fn large_grids_display_as_aligned_numbers() {
        let grid = Grid::from_line(&first_row_36(), None).unwrap();
        let block = grid.display_block();
        let lines: Vec<&str> = block.lines().collect();
        assert_eq!(lines.len(), 36 + 5);
        assert!(lines[0].starts_with(" 1  2  3  4  5  6 |  7  8  9 10 11 12 | 13 "));
        assert!(lines[0].ends_with("| 31 32 33 34 35 36"));
        assert!(lines[1].starts_with(" .  .  .  .  .  . |  . "));
        assert!(lines[6].starts_with("------------------+-------------------+---"));
        assert!(lines.iter().all(|l| l.len() == lines[0].len()));
        let bars: Vec<usize> = lines[0].match_indices('|').map(|(i, _)| i).collect();
        let crosses: Vec<usize> = lines[6].match_indices('+').map(|(i, _)| i).collect();
        assert_eq!(bars, crosses);
    }

    #[test]
    fn conflicts_of_large_grids_name_their_digit_as_a_number() {
        let mut grid = Grid::from_line(&first_row_36(), None).unwrap();
        grid.set(5, 35, 36);
        assert_eq!(
            grid.find_conflict().unwrap().to_string(),
            "clues conflict: 36 appears twice in column 36 (r1c36 and r6c36)"
        );
    }

    #[test]
    fn conflicts_are_named() {
        let mut grid = Grid::from_line(SEED1, None).unwrap();
        assert_eq!(grid.find_conflict(), None);
        grid.set(0, 8, 4); // second 4 in row 1
        let conflict = grid.find_conflict().unwrap();
        assert_eq!(conflict.unit, Unit::Row(0));
        assert_eq!(
            conflict.to_string(),
            "clues conflict: 4 appears twice in row 1 (r1c3 and r1c9)"
        );
        let mut grid = Grid::empty(3).unwrap();
        grid.set(0, 0, 5);
        grid.set(8, 0, 5);
        assert_eq!(grid.find_conflict().unwrap().unit, Unit::Column(0));
        let mut grid = Grid::empty(3).unwrap();
        grid.set(0, 0, 5);
        grid.set(2, 2, 5);
        assert_eq!(
            grid.find_conflict().unwrap().to_string(),
            "clues conflict: 5 appears twice in box 1 (r1c1 and r3c3)"
        );
    }
}
