//! The settings of `tiling count` and the `checkerboard` commands, as the command line
//! takes them: which board, and how the search treats symmetry.

use std::path::{Path, PathBuf};

use super::{read_board, TilingFileError};
use super::{size_in_name, Board, BoardError, Color, Engine, SizeTextError, Symmetry};

/// A `--board` value that is not a board's `WIDTHxHEIGHT`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("size {text:?} {why}")]
pub struct SizeError {
    /// The value given.
    pub text: String,
    /// What is wrong with it.
    pub why: SizeTextError,
}

/// A `--board` value: `WIDTHxHEIGHT`.
pub fn parse_board_size(text: &str) -> Result<(usize, usize), SizeError> {
    super::parse_size(text.trim()).map_err(|why| SizeError {
        text: text.to_string(),
        why,
    })
}

/// The board to cover.
#[derive(Debug, Clone, clap::Args)]
pub struct BoardChoice {
    /// A rectangle WIDTHxHEIGHT.
    #[arg(long, value_name = "WxH", conflicts_with = "board_file", value_parser = parse_board_size)]
    pub board: Option<(usize, usize)>,
    /// A board file (`-`: standard input): `#` a cell to cover, `.` a hole, `B`/`W`
    /// coloured cells.
    #[arg(long, value_name = "FILE")]
    pub board_file: Option<PathBuf>,
}

/// Why the board cannot be had.
#[derive(Debug, thiserror::Error)]
pub enum BoardChoiceError {
    /// The board file cannot be read.
    #[error(transparent)]
    File(#[from] TilingFileError),
    /// The rectangle is not a board.
    #[error(transparent)]
    Board(#[from] BoardError),
    /// No board given, and none in the pieces file's name.
    #[error("give --board WxH: the size is not in the name {}", .0.display())]
    NotInName(PathBuf),
    /// No board given, and the size in the pieces file's name too large for any board.
    #[error("the board size in the name {} {}", .0.display(), SizeTextError::TooLarge)]
    TooLargeInName(PathBuf),
    /// No board given at all.
    #[error("give --board WxH or --board-file FILE")]
    Missing,
}

impl BoardChoice {
    /// The board from `--board-file`, `--board`, or the name of the pieces file
    /// `named_after` (like `8x8_1.txt`); a rectangle coloured from `colours` at its
    /// top-left cell when given.
    pub fn board(
        &self,
        named_after: Option<&Path>,
        colours: Option<Color>,
    ) -> Result<Board, BoardChoiceError> {
        if let Some(path) = &self.board_file {
            return Ok(read_board(path)?);
        }
        let (width, height) = match (self.board, named_after) {
            (Some(size), _) => size,
            (None, Some(path)) => size_in_name(path).map_err(|why| match why {
                SizeTextError::NotASize => BoardChoiceError::NotInName(path.into()),
                SizeTextError::TooLarge => BoardChoiceError::TooLargeInName(path.into()),
            })?,
            (None, None) => return Err(BoardChoiceError::Missing),
        };
        Ok(Board::rectangle(width, height, colours)?)
    }
}

/// How a count treats the board's symmetries, and which search runs.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct SearchOptions {
    /// Count only up to symmetry: one piece is kept to the placements that are the
    /// smallest of their symmetric images, and only the solutions searched are reported
    /// (labelled and tilings are not derived from them).
    #[arg(long)]
    pub break_symmetry: bool,
    /// Enumerate every labelled solution: no identical pieces searched as one, no
    /// symmetry used (the plain exact cover, for cross-checks and benchmarks).
    #[arg(long, conflicts_with = "break_symmetry")]
    pub no_symmetry: bool,
    /// The exact-cover search: bit masks for boards of up to 128 cells and pieces
    /// (`auto`, the fastest), or the dancing links.
    #[arg(long, value_enum, default_value_t = Engine::Auto)]
    pub engine: Engine,
}

impl SearchOptions {
    /// The symmetry treatment the flags ask for.
    pub fn symmetry(&self) -> Symmetry {
        Symmetry::from_flags(self.break_symmetry, self.no_symmetry)
    }
}
