//! Solving Connect Four positions exactly: the score for the side to move with perfect
//! play, and the moves that achieve it.
//!
//! ```
//! use puzzlebench::connect4::solve::Solver;
//!
//! let mut solver = Solver::<u64>::new(7, 6, 1);
//! // After 4 4 5 5 6 6 the first player wins with its fourth stone: 22 − 4 = 18.
//! let position = solver.position(&[4, 4, 5, 5, 6, 6]).unwrap();
//! let analysis = solver.analyze(&position, false);
//! assert_eq!(analysis.score, 18);
//! assert_eq!(analysis.best_moves, vec![2, 6]); // columns 3 and 7, 0-based
//! ```

mod book;
mod ordering;
mod position;
mod search;
mod table;

pub use book::{build_book, Book, BookError, BookStats};
pub use position::{Bits, Geometry, Position};
pub use search::{Analysis, Solver};

use thiserror::Error;

/// Why a move sequence is not a position to solve.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum PositionError {
    /// A column outside the board.
    #[error("illegal move at ply {ply}: column {column} is outside the board (1 to {width})")]
    Column {
        /// 1-based move number.
        ply: usize,
        /// The column as written.
        column: usize,
        /// Board width.
        width: usize,
    },
    /// A full column.
    #[error("illegal move at ply {ply}: column {column} is full")]
    Full {
        /// 1-based move number.
        ply: usize,
        /// The column as written.
        column: usize,
    },
    /// A move completed a four: there is nothing left to solve.
    #[error("the game is already over at ply {ply}: column {column} completes a four")]
    Won {
        /// 1-based move number.
        ply: usize,
        /// The column as written.
        column: usize,
    },
    /// The board is full.
    #[error("the game is already over at ply {ply}: the board is full (a draw)")]
    FullBoard {
        /// Moves played.
        ply: usize,
    },
}

impl<M: Bits> Geometry<M> {
    /// The position after `columns` (1-based) from the empty board, if every move is legal
    /// and the game is not over.
    pub fn position(&self, columns: &[usize]) -> Result<Position<M>, PositionError> {
        let mut p = Position::default();
        for (index, &column) in columns.iter().enumerate() {
            let ply = index + 1;
            if column == 0 || column > self.width {
                return Err(PositionError::Column {
                    ply,
                    column,
                    width: self.width,
                });
            }
            let col = column - 1;
            if !self.can_play(&p, col) {
                return Err(PositionError::Full { ply, column });
            }
            if self.is_winning_column(&p, col) {
                return Err(PositionError::Won { ply, column });
            }
            self.play_column(&mut p, col);
        }
        if p.moves() == self.cells {
            return Err(PositionError::FullBoard { ply: columns.len() });
        }
        Ok(p)
    }
}

impl<M: Bits> Solver<M> {
    /// The position after `columns` (1-based) on this solver's board.
    pub fn position(&self, columns: &[usize]) -> Result<Position<M>, PositionError> {
        self.geometry().position(columns)
    }
}
