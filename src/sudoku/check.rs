//! An independent checker of Sudoku solutions.
//!
//! It shares no code with the solvers: it only counts digits in rows, columns and boxes and
//! compares the clues, so a bug in a solver cannot hide behind the same bug here.

use thiserror::Error;

use super::Grid;

/// Why a grid is not a solution of a puzzle.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum CheckError {
    /// The solution is not the puzzle's size.
    #[error("the solution is {found}×{found}, the puzzle {expected}×{expected}")]
    WrongSize {
        /// The solution's side.
        found: usize,
        /// The puzzle's side.
        expected: usize,
    },
    /// A cell is left blank.
    #[error("r{row}c{col} is blank")]
    Blank {
        /// 1-based row.
        row: usize,
        /// 1-based column.
        col: usize,
    },
    /// A clue of the puzzle was changed.
    #[error("the clue at r{row}c{col} was changed")]
    ClueChanged {
        /// 1-based row.
        row: usize,
        /// 1-based column.
        col: usize,
    },
    /// A row, column or box does not hold every digit once.
    #[error("{unit} {index} does not hold every digit once")]
    Repeated {
        /// `row`, `column` or `box`.
        unit: &'static str,
        /// 1-based index of the unit.
        index: usize,
    },
}

/// Checks that `solution` is a complete, valid grid that keeps every clue of `puzzle`.
pub fn check_solution(puzzle: &Grid, solution: &Grid) -> Result<(), CheckError> {
    let side = puzzle.side();
    if solution.side() != side {
        return Err(CheckError::WrongSize {
            found: solution.side(),
            expected: side,
        });
    }
    for row in 0..side {
        for col in 0..side {
            let value = solution.get(row, col);
            if value == 0 {
                return Err(CheckError::Blank {
                    row: row + 1,
                    col: col + 1,
                });
            }
            let clue = puzzle.get(row, col);
            if clue != 0 && clue != value {
                return Err(CheckError::ClueChanged {
                    row: row + 1,
                    col: col + 1,
                });
            }
        }
    }
    let n = puzzle.box_size();
    for index in 0..side {
        let row: Vec<u8> = (0..side).map(|c| solution.get(index, c)).collect();
        let column: Vec<u8> = (0..side).map(|r| solution.get(r, index)).collect();
        let (top, left) = ((index / n) * n, (index % n) * n);
        let block: Vec<u8> = (0..side)
            .map(|k| solution.get(top + k / n, left + k % n))
            .collect();
        for (unit, values) in [("row", row), ("column", column), ("box", block)] {
            let mut sorted = values;
            sorted.sort_unstable();
            if !sorted.iter().enumerate().all(|(i, &v)| v as usize == i + 1) {
                return Err(CheckError::Repeated {
                    unit,
                    index: index + 1,
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PUZZLE: &str =
        "004001700080020000200070000000503078005000400960104000000050009000010060001700200";
    const SOLUTION: &str =
        "594831726783426915216975834142593678835267491967184352378652149429318567651749283";

    #[test]
    fn accepts_the_published_solution() {
        let puzzle = Grid::from_line(PUZZLE, None).unwrap();
        let solution = Grid::from_line(SOLUTION, None).unwrap();
        assert_eq!(check_solution(&puzzle, &solution), Ok(()));
    }

    #[test]
    fn rejects_blanks_changed_clues_and_repeats() {
        let puzzle = Grid::from_line(PUZZLE, None).unwrap();
        let mut blank = Grid::from_line(SOLUTION, None).unwrap();
        blank.set(4, 4, 0);
        assert_eq!(
            check_solution(&puzzle, &blank),
            Err(CheckError::Blank { row: 5, col: 5 })
        );
        // A valid grid that changes a clue: relabel digits 1 and 2 everywhere.
        let swapped: String = SOLUTION
            .chars()
            .map(|c| match c {
                '1' => '2',
                '2' => '1',
                other => other,
            })
            .collect();
        let swapped = Grid::from_line(&swapped, None).unwrap();
        assert!(matches!(
            check_solution(&puzzle, &swapped),
            Err(CheckError::ClueChanged { .. })
        ));
        // Swapping two cells of row 9 that are not clues breaks their columns.
        let mut broken = Grid::from_line(SOLUTION, None).unwrap();
        let (a, b) = (broken.get(8, 0), broken.get(8, 1));
        broken.set(8, 0, b);
        broken.set(8, 1, a);
        assert_eq!(
            check_solution(&Grid::empty(3).unwrap(), &broken),
            Err(CheckError::Repeated {
                unit: "column",
                index: 1
            })
        );
        assert!(matches!(
            check_solution(&puzzle, &Grid::empty(2).unwrap()),
            Err(CheckError::WrongSize { .. })
        ));
    }
}
