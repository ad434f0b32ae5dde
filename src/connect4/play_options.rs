//! The settings of `connect4 play`, as the command line takes them, turned into a game's
//! options and its book.

use std::io::IsTerminal;
use std::path::PathBuf;

use super::play::{terminal_wants_colour, GameOptions, PlayerKind};
use super::{AnyBook, BoardSettings, BoardSizeError, BookFileError, GameLog, Notation};
use super::{NotationError, DEFAULT_TABLE_MB};

/// When to draw the discs in colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColourChoice {
    /// Colour when standard output is a terminal.
    Auto,
    /// Always ANSI colours.
    Always,
    /// Plain characters: X for Red, O for Yellow, brackets around the winning line.
    Never,
}

/// The settings of `connect4 play`.
#[derive(Debug, Clone, clap::Args)]
pub struct PlayOptions {
    /// The board.
    #[command(flatten)]
    pub board: BoardSettings,
    /// Who plays Red (moves first): human, random, heuristic, heuristic:DEPTH or perfect.
    #[arg(long, default_value = "human")]
    pub red: PlayerKind,
    /// Who plays Yellow: human, random, heuristic, heuristic:DEPTH or perfect.
    #[arg(long, default_value = "heuristic:4")]
    pub yellow: PlayerKind,
    /// Seed of the computer players' choices (random moves, ties between equal moves).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Append the game to FILE as one line of column digits (`connect4 validate` reads it).
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// Discs in colour.
    #[arg(long, value_enum, default_value_t = ColourChoice::Auto)]
    pub colour: ColourChoice,
    /// Transposition table of a perfect player, in MiB at most (searches start at 1 MiB and
    /// double it as they grow).
    #[arg(long, default_value_t = DEFAULT_TABLE_MB, value_name = "MB", value_parser = super::parse_table_mb)]
    pub table_mb: usize,
    /// Start from the position after these moves (column digits), e.g. `4453`.
    #[arg(long, value_name = "MOVES")]
    pub start: Option<String>,
    /// Opening book (made by `connect4 book`, exact or weak) for the perfect players:
    /// instant moves inside it.
    #[arg(long, value_name = "FILE")]
    pub book: Option<PathBuf>,
}

/// Why a game cannot be set up.
#[derive(Debug, thiserror::Error)]
pub enum PlaySetupError {
    /// The board is not supported.
    #[error(transparent)]
    Board(#[from] BoardSizeError),
    /// The `--start` moves cannot be read.
    #[error("--start: {0}")]
    Start(#[from] NotationError),
    /// The book cannot be used.
    #[error(transparent)]
    Book(#[from] BookFileError),
}

impl PlayOptions {
    /// The game's options, for a game drawn on standard output, and its book, read.
    pub fn game(&self) -> Result<(GameOptions, Option<AnyBook>), PlaySetupError> {
        let BoardSettings { width, height } = self.board;
        super::board_fits(width, height)?;
        let terminal = std::io::stdout().is_terminal();
        let colour = match self.colour {
            ColourChoice::Auto => terminal && terminal_wants_colour(),
            ColourChoice::Always => true,
            ColourChoice::Never => false,
        };
        // `--start ''` (a script's empty variable) is the empty board, as no `--start`.
        let opening = match &self.start {
            Some(moves) if !moves.trim().is_empty() => {
                GameLog::parse(moves, Notation::Digits)?.columns
            }
            _ => Vec::new(),
        };
        let book = match &self.book {
            Some(path) => Some(AnyBook::read(path, width, height)?),
            None => None,
        };
        let options = GameOptions {
            width,
            height,
            players: [self.red, self.yellow],
            seed: self.seed,
            colour,
            announce_thinking: terminal,
            table_mb: self.table_mb,
            opening,
            moves_so_far: None,
        };
        Ok((options, book))
    }
}
