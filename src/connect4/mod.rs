//! Connect Four: validating archives of game logs on bitboards.
//!
//! Each game is replayed move by move on a [`Board`] — two bit masks, column-major with a
//! spare bit above each column — and gets a verdict: who won, at which move and with which
//! line, or a draw, an unfinished game, or the first move that cannot be played and why.
//!
//! ```
//! use puzzlebench::connect4::{replay, AfterEnd, GameLog, Notation, Status};
//!
//! let log = GameLog::parse("4455667", Notation::Auto).unwrap();
//! let verdict = replay::<u64>(&log, 7, 6, AfterEnd::Error);
//! assert_eq!(verdict.status, Status::Win);
//! assert_eq!((verdict.winner, verdict.ply), (Some(1), 7));
//! ```

pub mod ai;
mod board;
pub mod generate;
mod idle_threads;
mod job;
mod notation;
pub mod play;
mod play_options;
mod replay;
pub mod solve;
mod solve_job;

pub use board::{
    board_fits, Board, BoardSizeError, LineSpan, Mask, MoveResult, MAX_SIDE, MIN_SIDE,
};
pub use idle_threads::{IdleThreads, Turn};
pub use job::{
    BoardSettings, ValidateJob, ValidateLayout, ValidateOptions, ValidatePuzzle, ValidateWorker,
    DEFAULT_HEIGHT, DEFAULT_WIDTH,
};
pub use notation::{GameLog, Notation, NotationError};
pub use play_options::{ColourChoice, PlayOptions, PlaySetupError};
pub use replay::{cell_name, push_cell_name, replay, AfterEnd, InvalidKind, Status, Verdict};
pub use solve_job::{
    parse_table_mb, AnyBook, BookFileError, SolveJob, SolveOptions, SolvePuzzle, SolveSettings,
    SolveWorker, TableSizeError, DEFAULT_TABLE_MB, MAX_TABLE_MB, SOLVED_STATUS,
};
