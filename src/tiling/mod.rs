//! Tiling boards with pieces — polyominoes, and the checkerboard (draught-board) puzzle's
//! coloured stones — as exact cover on the shared engine (bit masks for boards of up to 128
//! cells and pieces, dancing links beyond), counting every solution three ways.
//!
//! ```
//! use puzzlebench::tiling::{pentominoes, Board, Tiling};
//!
//! let board = Board::rectangle(20, 3, None).unwrap();
//! let counts = Tiling::new(&board, &pentominoes()).unwrap().count();
//! assert_eq!(counts.labelled, 8u32.into());
//! assert_eq!((counts.tilings, counts.up_to_symmetry), (8, 2));
//! ```

mod board;
mod count;
pub mod display;
mod files;
mod identical;
mod job;
mod options;
mod placements;
mod progress;
mod shapes;
mod stopping;
mod symmetry;

pub use board::{Board, BoardError};
pub use count::{Counted, Counts, Engine, Placement, Symmetry, Tiling, TilingError};
pub use files::{read_board, read_pieces, TilingFileError, MAX_FILE_BYTES, MAX_LINE_BYTES};
pub use job::{
    parse_size, size_in_name, CountJob, CountLayout, CountSettings, SizeTextError, TilingPuzzle,
};
pub use options::{parse_board_size, BoardChoice, BoardChoiceError, SearchOptions, SizeError};
pub use progress::{CountProgress, LINE_INTERVAL};
pub use shapes::{
    parse_pieces, pentominoes, Color, Piece, PieceCell, PiecesError, Transform, TRANSFORMS,
};
pub use stopping::Stop;
