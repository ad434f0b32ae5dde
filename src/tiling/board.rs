//! Boards to tile: rectangles (coloured like a chessboard or not), or read from a file with
//! holes; and the symmetries that map a board onto itself.

use thiserror::Error;

use super::shapes::{Color, TRANSFORMS};
use crate::batch::text_lines;

/// Cells a board may have at most.
const MAX_CELLS: usize = 4096;

/// Why a board cannot be made or read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BoardError {
    /// A rectangle of no cell or of too many.
    #[error("a {width}x{height} board is not supported (1 to 4,096 cells)")]
    Size {
        /// Columns asked for.
        width: usize,
        /// Rows asked for.
        height: usize,
    },
    /// A character of a board file that is not a cell, a hole or a colour.
    #[error("board line {line}, column {column}: {found:?} is not # (cell), . (hole), B or W")]
    Character {
        /// 1-based line of the file.
        line: usize,
        /// 1-based column (in characters).
        column: usize,
        /// The character.
        found: char,
    },
    /// A board file with holes only.
    #[error("the board has no cell to cover")]
    NoCell,
    /// A board file of more than 4,096 cells.
    #[error("the board has more than 4,096 cells")]
    TooLarge,
}

/// A board: each cell a hole (`None`) or a cell to cover, with its colour if coloured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Board {
    width: usize,
    height: usize,
    cells: Vec<Option<Option<Color>>>,
}

impl Board {
    /// A `width × height` rectangle; with `top_left`, coloured like a chessboard starting
    /// from that colour.
    pub fn rectangle(
        width: usize,
        height: usize,
        top_left: Option<Color>,
    ) -> Result<Self, BoardError> {
        if width == 0 || height == 0 || width.saturating_mul(height) > MAX_CELLS {
            return Err(BoardError::Size { width, height });
        }
        let other = |c: Color| match c {
            Color::Black => Color::White,
            Color::White => Color::Black,
        };
        let cells = (0..height)
            .flat_map(|r| {
                (0..width).map(move |c| {
                    Some(top_left.map(|first| {
                        if (r + c) % 2 == 0 {
                            first
                        } else {
                            other(first)
                        }
                    }))
                })
            })
            .collect();
        Ok(Board {
            width,
            height,
            cells,
        })
    }

    /// Parses a board file: one row per line, `#` a cell to cover, `.` a hole, `B`/`W` a
    /// coloured cell. Lines end at `\n`, `\r\n` or a `\r` alone; blank lines are left out;
    /// errors name the file's own line numbers. A leading UTF-8 byte order mark is skipped.
    pub fn parse(text: &str) -> Result<Self, BoardError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let rows: Vec<(usize, &str)> = text_lines(text)
            .map(str::trim_end)
            .enumerate()
            .filter(|(_, l)| !l.is_empty())
            .collect();
        let width = rows
            .iter()
            .map(|(_, r)| r.chars().count())
            .max()
            .unwrap_or(0);
        // Checked before the cells are laid out: one long row among many short ones would
        // make a rectangle far larger than the file.
        if width.saturating_mul(rows.len()) > MAX_CELLS {
            return Err(BoardError::TooLarge);
        }
        let mut cells = Vec::new();
        for &(index, row) in &rows {
            let mut count = 0;
            for (c, ch) in row.chars().enumerate() {
                cells.push(match ch {
                    '#' => Some(None),
                    'B' | 'b' => Some(Some(Color::Black)),
                    'W' | 'w' => Some(Some(Color::White)),
                    '.' | ' ' => None,
                    found => {
                        return Err(BoardError::Character {
                            line: index + 1,
                            column: c + 1,
                            found,
                        })
                    }
                });
                count += 1;
            }
            cells.extend(std::iter::repeat_n(None, width - count));
        }
        if cells.iter().all(Option::is_none) {
            return Err(BoardError::NoCell);
        }
        Ok(Board {
            width,
            height: rows.len(),
            cells,
        })
    }

    /// Width in cells.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Height in cells.
    pub fn height(&self) -> usize {
        self.height
    }

    /// The cell at (`row`, `col`): `None` for a hole or outside the board, else its colour
    /// if coloured.
    pub fn cell(&self, row: i32, col: i32) -> Option<Option<Color>> {
        if row < 0 || col < 0 || row as usize >= self.height || col as usize >= self.width {
            return None;
        }
        self.cells[row as usize * self.width + col as usize]
    }

    /// Cells to cover.
    pub fn cell_count(&self) -> usize {
        self.cells.iter().filter(|c| c.is_some()).count()
    }

    /// For each symmetry of the board that keeps its cells and colours in place, the
    /// permutation of cell indices (`row × width + col`) it makes. The identity comes first.
    /// The symmetries are those of the cells' bounding box: rows and columns of holes
    /// around the cells (a board file's margins) change nothing, and stay in place.
    pub fn symmetries(&self) -> Vec<Vec<usize>> {
        let (top, left, h, w) = self.cells_box();
        let width = self.width as i32;
        let mut found = Vec::new();
        for transform in TRANSFORMS {
            // Where the box's corners go decides the shift back into place.
            let corners = [(0, 0), (h - 1, w - 1)].map(|(r, c)| transform(r, c));
            let shift_top = corners[0].0.min(corners[1].0);
            let shift_left = corners[0].1.min(corners[1].1);
            let mut permutation: Vec<usize> = (0..self.cells.len()).collect();
            let keeps = (0..h).all(|r| {
                (0..w).all(|c| {
                    let (tr, tc) = transform(r, c);
                    let (tr, tc) = (tr - shift_top, tc - shift_left);
                    let (from, to) = ((top + r, left + c), (top + tr, left + tc));
                    let kept =
                        tr < h && tc < w && self.cell(from.0, from.1) == self.cell(to.0, to.1);
                    if kept {
                        permutation[(from.0 * width + from.1) as usize] =
                            (to.0 * width + to.1) as usize;
                    }
                    kept
                })
            });
            if keeps {
                found.push(permutation);
            }
        }
        found
    }

    /// The smallest rectangle holding every cell: its top row, left column, height and
    /// width. A board has at least one cell.
    fn cells_box(&self) -> (i32, i32, i32, i32) {
        let cells = (0..self.cells.len())
            .filter(|&index| self.cells[index].is_some())
            .map(|index| ((index / self.width) as i32, (index % self.width) as i32));
        let (mut top, mut left, mut bottom, mut right) = (i32::MAX, i32::MAX, 0, 0);
        for (r, c) in cells {
            (top, bottom) = (top.min(r), bottom.max(r));
            (left, right) = (left.min(c), right.max(c));
        }
        (top, left, bottom - top + 1, right - left + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_errors_name_the_file_s_own_lines() {
        let error = Board::parse("\n\n##\n#x\n").unwrap_err();
        assert_eq!(
            error,
            BoardError::Character {
                line: 4,
                column: 2,
                found: 'x'
            }
        );
        assert_eq!(
            error.to_string(),
            "board line 4, column 2: 'x' is not # (cell), . (hole), B or W"
        );
        let board = Board::parse("\n##\n\n##\n").unwrap();
        assert_eq!((board.width(), board.height()), (2, 2));
        assert_eq!(Board::parse("..\n").unwrap_err(), BoardError::NoCell);
        assert_eq!(
            Board::rectangle(0, 3, None).unwrap_err().to_string(),
            "a 0x3 board is not supported (1 to 4,096 cells)"
        );
    }

    #[test]
    fn margins_of_holes_do_not_change_a_board_s_symmetries() {
        // A 2×2 square inside a file with a column and a row of holes, and ragged rows.
        for text in [
            "##\n##\n",
            ".##\n.##\n",
            "...\n##.\n##\n",
            "\n.##.\n.##\n....",
        ] {
            let board = Board::parse(text).unwrap();
            let symmetries = board.symmetries();
            assert_eq!(symmetries.len(), 8, "{text:?}");
            for permutation in &symmetries {
                // Cells go to cells, holes stay where they are.
                for (from, &to) in permutation.iter().enumerate() {
                    let cell = |index: usize| {
                        board.cell(
                            (index / board.width()) as i32,
                            (index % board.width()) as i32,
                        )
                    };
                    assert_eq!(cell(from).is_some(), cell(to).is_some(), "{text:?}");
                    if cell(from).is_none() {
                        assert_eq!(from, to);
                    }
                }
            }
        }
    }

    #[test]
    fn symmetries_of_rectangles_squares_and_chessboards() {
        assert_eq!(Board::rectangle(10, 6, None).unwrap().symmetries().len(), 4);
        assert_eq!(Board::rectangle(8, 8, None).unwrap().symmetries().len(), 8);
        // A chessboard with a black top-left corner keeps its colours under the symmetries
        // that fix that corner's colour: 4 of the 8.
        assert_eq!(
            Board::rectangle(8, 8, Some(Color::Black))
                .unwrap()
                .symmetries()
                .len(),
            4
        );
        let holed = Board::parse("####\n#..#\n####\n").unwrap();
        assert_eq!(holed.cell_count(), 10);
        assert_eq!(holed.symmetries().len(), 4);
        assert!(Board::parse("#x#").is_err());
    }

    #[test]
    fn board_lines_end_at_any_line_ending_and_size_is_checked_first() {
        let board = Board::parse("####\r##.#\r\n####\r").unwrap();
        assert_eq!(
            (board.width(), board.height(), board.cell_count()),
            (4, 3, 11)
        );
        assert_eq!(
            Board::parse("####\r##x#\r").unwrap_err(),
            BoardError::Character {
                line: 2,
                column: 3,
                found: 'x'
            }
        );
        // One long row among many short ones: refused before a 5,000 × 5,000 rectangle
        // is laid out.
        let text = format!("{}\n{}", "#".repeat(5000), "#\n".repeat(4999));
        assert_eq!(Board::parse(&text).unwrap_err(), BoardError::TooLarge);
    }
}
