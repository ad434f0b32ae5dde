//! Every puzzle puzzlebench knows, as [`Kind`]s for the shared parts (`bench` suites).

use crate::battleship;
use crate::connect4;
use crate::puzzle::{Kind, KindOf};
use crate::sudoku;
use crate::tiling;

static SUDOKU: KindOf<sudoku::SudokuPuzzle> = KindOf::new();
static CONNECT4: KindOf<connect4::ValidatePuzzle> = KindOf::new();
static CONNECT4_SOLVE: KindOf<connect4::SolvePuzzle> = KindOf::new();
static BATTLESHIP: KindOf<battleship::ValidatePuzzle> = KindOf::new();
static TILING: KindOf<tiling::TilingPuzzle> = KindOf::new();

/// Every puzzle kind, in the order reports list them.
pub fn all() -> Vec<&'static dyn Kind> {
    vec![&SUDOKU, &CONNECT4, &CONNECT4_SOLVE, &BATTLESHIP, &TILING]
}
