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
mod build;
mod build_progress;
mod builder;
mod busy;
mod checkpoint;
mod ordering;
mod position;
mod search;
mod table;
mod team;

pub use book::{Book, BookError, BookSpec};
pub use build::{build_book, BookStats, SolvedPosition};
pub use build_progress::BuildProgress;
pub use builder::{BookBuildError, BookBuilder, BookOptions, BuildEvent};
pub use checkpoint::Checkpoint;
pub use position::{Bits, Geometry, Position, TableCell, WideCell};
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
        // Stones are never removed, so a position without a four had none before: fours
        // are looked for once, when the moves end or an illegal one comes, instead of after
        // every move.
        let four_before = |p: &Position<M>, played: usize, error: PositionError| {
            if self.has_any_four(p) {
                self.first_four(&columns[..played])
            } else {
                error
            }
        };
        for (index, &column) in columns.iter().enumerate() {
            let ply = index + 1;
            if column == 0 || column > self.width {
                let width = self.width;
                let error = PositionError::Column { ply, column, width };
                return Err(four_before(&p, index, error));
            }
            let col = column - 1;
            if !self.can_play(&p, col) {
                return Err(four_before(&p, index, PositionError::Full { ply, column }));
            }
            self.play_column(&mut p, col);
        }
        if self.has_any_four(&p) {
            return Err(self.first_four(columns));
        }
        if p.moves() == self.cells {
            return Err(PositionError::FullBoard { ply: columns.len() });
        }
        Ok(p)
    }

    /// Whether either player has four in a row in `p`.
    fn has_any_four(&self, p: &Position<M>) -> bool {
        self.has_four(p.current()) || self.has_four(p.current() ^ p.mask())
    }

    /// The error for the first move of `columns` (all legal) that completes a four.
    fn first_four(&self, columns: &[usize]) -> PositionError {
        let mut p = Position::default();
        for (index, &column) in columns.iter().enumerate() {
            if self.is_winning_column(&p, column - 1) {
                return PositionError::Won {
                    ply: index + 1,
                    column,
                };
            }
            self.play_column(&mut p, column - 1);
        }
        unreachable!("a four was found after the last move")
    }
}

impl<M: Bits> Solver<M> {
    /// The position after `columns` (1-based) on this solver's board.
    pub fn position(&self, columns: &[usize]) -> Result<Position<M>, PositionError> {
        self.geometry().position(columns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position_error(moves: &str) -> Option<PositionError> {
        let geometry = Geometry::<u64>::new(7, 6);
        let columns: Vec<usize> = moves.bytes().map(|b| usize::from(b - b'0')).collect();
        geometry.position(&columns).err()
    }

    #[test]
    fn the_first_problem_in_move_order_is_reported() {
        assert_eq!(position_error("4455"), None);
        // A four at ply 7, with legal or illegal moves after it.
        let won = Some(PositionError::Won { ply: 7, column: 1 });
        assert_eq!(position_error("1212121"), won);
        assert_eq!(position_error("12121213"), won);
        assert_eq!(position_error("121212133333339"), won);
        // Illegal moves before any four.
        assert_eq!(
            position_error("1111111"),
            Some(PositionError::Full { ply: 7, column: 1 })
        );
        assert_eq!(
            position_error("12128"),
            Some(PositionError::Column {
                ply: 5,
                column: 8,
                width: 7
            })
        );
        // A horizontal four by the second player.
        assert_eq!(
            position_error("11223344"),
            Some(PositionError::Won { ply: 7, column: 4 })
        );
        // The full board of a drawn game.
        let geometry = Geometry::<u64>::new(4, 4);
        let draw = [4, 3, 2, 1, 3, 1, 1, 1, 4, 4, 2, 3, 4, 2, 3, 2];
        assert_eq!(
            geometry.position(&draw).err(),
            Some(PositionError::FullBoard { ply: 16 })
        );
    }
}
