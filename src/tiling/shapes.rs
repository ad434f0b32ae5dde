//! Pieces (polyominoes, optionally with coloured cells), boards, and their symmetries.

use thiserror::Error;

use crate::batch::{text_lines, Excerpt};

/// A cell colour of the checkerboard puzzle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, clap::ValueEnum)]
pub enum Color {
    /// A black cell.
    Black,
    /// A white cell.
    White,
}

impl Color {
    /// `B` or `W`.
    pub fn letter(self) -> char {
        match self {
            Color::Black => 'B',
            Color::White => 'W',
        }
    }
}

/// A cell of a piece: (row, column) from the top left, and its colour if coloured.
pub type PieceCell = ((i32, i32), Option<Color>);

/// A map of (row, column) to (row, column).
pub type Transform = fn(i32, i32) -> (i32, i32);

/// A piece: its cells as (row, column), each with a colour or none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// The piece's name (a letter for the built-in pentominoes, its number in a file).
    pub name: String,
    /// Cells, (row, column) from the top left, with their colours.
    pub cells: Vec<PieceCell>,
}

/// The 8 symmetries of the square, as maps of (row, column).
pub const TRANSFORMS: [Transform; 8] = [
    |r, c| (r, c),
    |r, c| (c, -r),
    |r, c| (-r, -c),
    |r, c| (-c, r),
    |r, c| (r, -c),
    |r, c| (c, r),
    |r, c| (-r, c),
    |r, c| (-c, -r),
];

impl Piece {
    /// Every distinct orientation (rotations and reflections), each moved so that its
    /// smallest row and column are 0 and its cells sorted; duplicates removed.
    pub fn orientations(&self) -> Vec<Vec<PieceCell>> {
        let mut seen: Vec<Vec<PieceCell>> = Vec::new();
        for transform in TRANSFORMS {
            let moved: Vec<PieceCell> = self
                .cells
                .iter()
                .map(|&((r, c), color)| (transform(r, c), color))
                .collect();
            let top = moved.iter().map(|((r, _), _)| *r).min().unwrap_or(0);
            let left = moved.iter().map(|((_, c), _)| *c).min().unwrap_or(0);
            let mut normal: Vec<PieceCell> = moved
                .into_iter()
                .map(|((r, c), color)| ((r - top, c - left), color))
                .collect();
            normal.sort();
            if !seen.contains(&normal) {
                seen.push(normal);
            }
        }
        seen
    }

    /// The piece's shape and colours up to rotation and reflection: equal for pieces that
    /// are interchangeable.
    pub fn canonical(&self) -> Vec<PieceCell> {
        self.orientations().into_iter().min().unwrap_or_default()
    }
}

/// The 12 free pentominoes, named by their usual letters.
pub fn pentominoes() -> Vec<Piece> {
    let shapes: [(&str, &[&str]); 12] = [
        ("F", &[".##", "##.", ".#."]),
        ("I", &["#####"]),
        ("L", &["#.", "#.", "#.", "##"]),
        ("N", &[".#", ".#", "##", "#."]),
        ("P", &["##", "##", "#."]),
        ("T", &["###", ".#.", ".#."]),
        ("U", &["#.#", "###"]),
        ("V", &["#..", "#..", "###"]),
        ("W", &["#..", "##.", ".##"]),
        ("X", &[".#.", "###", ".#."]),
        ("Y", &[".#", "##", ".#", ".#"]),
        ("Z", &["##.", ".#.", ".##"]),
    ];
    shapes
        .iter()
        .map(|(name, rows)| Piece {
            name: name.to_string(),
            cells: rows
                .iter()
                .enumerate()
                .flat_map(|(r, row)| {
                    row.chars()
                        .enumerate()
                        .filter(|&(_, ch)| ch == '#')
                        .map(move |(c, _)| ((r as i32, c as i32), None))
                })
                .collect(),
        })
        .collect()
}

/// Why a pieces (stones) file cannot be read.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum PiecesError {
    /// A cell that is not `B`, `W`, `#` or `_`.
    #[error("stone {stone}, line {line}: unknown cell {} (cells are B, W, # or _)", Excerpt::quoted(.cell))]
    UnknownCell {
        /// 1-based stone number.
        stone: usize,
        /// 1-based line in the file.
        line: usize,
        /// The cell text.
        cell: String,
    },
    /// Rows of different lengths in one stone.
    #[error("stone {stone}, line {line}: {}, the stone's first row has {expected}", crate::batch::counted(*.found, "cell"))]
    RaggedRow {
        /// 1-based stone number.
        stone: usize,
        /// 1-based line in the file.
        line: usize,
        /// Cells in this row.
        found: usize,
        /// Cells in the first row.
        expected: usize,
    },
    /// A stone with no cells.
    #[error("stone {stone} (ending at line {line}) covers no cell")]
    EmptyStone {
        /// 1-based stone number.
        stone: usize,
        /// 1-based line of its `=` line.
        line: usize,
    },
    /// No stone at all.
    #[error("the file has no stones")]
    NoStones,
}

/// Parses a stones file: one stone per block, rows of comma-separated cells (`B` black,
/// `W` white, `#` uncoloured, `_` not covered), a line of `=` ending each stone. Lines end
/// at `\n`, `\r\n` or a `\r` alone; a leading UTF-8 byte order mark is skipped.
pub fn parse_pieces(text: &str) -> Result<Vec<Piece>, PiecesError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut pieces = Vec::new();
    let mut cells = Vec::new();
    let mut width = None;
    let mut row = 0;
    let finish = |cells: &mut Vec<PieceCell>,
                  pieces: &mut Vec<Piece>,
                  line: usize|
     -> Result<(), PiecesError> {
        let stone = pieces.len() + 1;
        if cells.is_empty() {
            return Err(PiecesError::EmptyStone { stone, line });
        }
        pieces.push(Piece {
            name: stone.to_string(),
            cells: std::mem::take(cells),
        });
        Ok(())
    };
    let mut open = false;
    for (index, raw) in text_lines(text).enumerate() {
        let line = index + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with("//") {
            continue;
        }
        if trimmed.chars().all(|c| c == '=') {
            finish(&mut cells, &mut pieces, line)?;
            width = None;
            row = 0;
            open = false;
            continue;
        }
        open = true;
        let stone = pieces.len() + 1;
        let fields: Vec<&str> = trimmed.split(',').map(str::trim).collect();
        let expected = *width.get_or_insert(fields.len());
        if fields.len() != expected {
            return Err(PiecesError::RaggedRow {
                stone,
                line,
                found: fields.len(),
                expected,
            });
        }
        for (col, field) in fields.iter().enumerate() {
            let color = match *field {
                "B" | "b" => Some(Some(Color::Black)),
                "W" | "w" => Some(Some(Color::White)),
                "#" => Some(None),
                "_" => None,
                other => {
                    return Err(PiecesError::UnknownCell {
                        stone,
                        line,
                        cell: other.to_string(),
                    })
                }
            };
            if let Some(color) = color {
                cells.push(((row, col as i32), color));
            }
        }
        row += 1;
    }
    if open {
        finish(&mut cells, &mut pieces, text_lines(text).count())?;
    }
    if pieces.is_empty() {
        return Err(PiecesError::NoStones);
    }
    Ok(pieces)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pentominoes_have_63_orientations_in_all() {
        let pieces = pentominoes();
        assert_eq!(pieces.len(), 12);
        assert!(pieces.iter().all(|p| p.cells.len() == 5));
        let counts: Vec<usize> = pieces.iter().map(|p| p.orientations().len()).collect();
        // F I L N P T U V W X Y Z
        assert_eq!(counts, [8, 2, 8, 8, 8, 4, 4, 4, 4, 1, 8, 4]);
        assert_eq!(counts.iter().sum::<usize>(), 63);
    }

    #[test]
    fn stones_files_and_their_errors() {
        let pieces = parse_pieces("B,_,_\nW,B,W\n===\nW,B\n").unwrap();
        assert_eq!(pieces.len(), 2);
        assert_eq!(pieces[0].cells.len(), 4);
        assert_eq!(pieces[1].cells[1], ((0, 1), Some(Color::Black)));
        assert_eq!(
            parse_pieces("B,W\nB\n===").unwrap_err().to_string(),
            "stone 1, line 2: 1 cell, the stone's first row has 2"
        );
        assert_eq!(
            parse_pieces("B,X\n===").unwrap_err().to_string(),
            "stone 1, line 1: unknown cell \"X\" (cells are B, W, # or _)"
        );
        assert_eq!(
            parse_pieces("B\n===\n_,_\n===").unwrap_err().to_string(),
            "stone 2 (ending at line 4) covers no cell"
        );
        assert_eq!(parse_pieces("").unwrap_err(), PiecesError::NoStones);
    }

    #[test]
    fn stones_files_with_any_line_ending_and_a_huge_cell() {
        // Lines end at `\n`, `\r\n` or `\r`, and errors count them all.
        let pieces = parse_pieces("B,W\r===\r\nW\rB\n===\r").unwrap();
        assert_eq!(pieces.len(), 2);
        assert_eq!(pieces[1].cells.len(), 2);
        assert_eq!(
            parse_pieces("B\r===\r\nB,x\r").unwrap_err().to_string(),
            "stone 2, line 3: unknown cell \"x\" (cells are B, W, # or _)"
        );
        // A bad cell is quoted cut short, whatever its length.
        let message = parse_pieces(&"B".repeat(100_000)).unwrap_err().to_string();
        assert!(message.len() < 200, "{message}");
        assert!(
            message.ends_with("… (100000 bytes) (cells are B, W, # or _)"),
            "{message}"
        );
    }
}
