//! Where each piece can go: the checks that pieces and board can match at all, and every
//! placement of every piece.

use std::sync::atomic::{AtomicBool, Ordering};

use super::board::Board;
use super::count::{Placement, TilingError};
use super::shapes::{Color, Piece};

/// Checks that the pieces' cells, and their colours if coloured, add up to the board's.
pub(super) fn check_counts(board: &Board, pieces: &[Piece]) -> Result<(), TilingError> {
    let piece_cells: usize = pieces.iter().map(|p| p.cells.len()).sum();
    if piece_cells != board.cell_count() {
        return Err(TilingError::CellCount {
            pieces: piece_cells,
            board: board.cell_count(),
        });
    }
    let (pieces_black, pieces_white) =
        color_count(pieces.iter().flat_map(|p| p.cells.iter().map(|&(_, c)| c)));
    let (board_black, board_white) = color_count(
        (0..board.height() as i32)
            .flat_map(|r| (0..board.width() as i32).map(move |c| (r, c)))
            .filter_map(|(r, c)| board.cell(r, c)),
    );
    // A coloured cell of a stone goes on a board cell of its colour, an uncoloured one on
    // any cell: the colours can match only if neither colour is over the board's count.
    if pieces_black > board_black || pieces_white > board_white {
        return Err(TilingError::ColorCount {
            pieces_black,
            pieces_white,
            board_black,
            board_white,
        });
    }
    Ok(())
}

/// Black and white cells among `colors`.
fn color_count(colors: impl Iterator<Item = Option<Color>>) -> (usize, usize) {
    colors.fold((0, 0), |(b, w), color| match color {
        Some(Color::Black) => (b + 1, w),
        Some(Color::White) => (b, w + 1),
        None => (b, w),
    })
}

/// Every placement of every piece, piece by piece and orientation by orientation: each
/// distinct orientation at every position where its cells lie on board cells of matching
/// colours, pushed to `placements`. A piece that fits nowhere is an error; so is `stop`
/// set (looked at before each row of positions), [`TilingError::Stopped`], the placements
/// found until then left in `placements`.
pub(super) fn all_placements(
    board: &Board,
    pieces: &[Piece],
    stop: &AtomicBool,
    placements: &mut Vec<Placement>,
) -> Result<(), TilingError> {
    let width = board.width();
    for (index, piece) in pieces.iter().enumerate() {
        let before = placements.len();
        for (orientation, cells) in piece.orientations().iter().enumerate() {
            for r in 0..board.height() as i32 {
                if stop.load(Ordering::Relaxed) {
                    return Err(TilingError::Stopped);
                }
                for c in 0..width as i32 {
                    let fits =
                        cells
                            .iter()
                            .all(|&((dr, dc), color)| match board.cell(r + dr, c + dc) {
                                Some(cell_color) => color.is_none() || cell_color == color,
                                None => false,
                            });
                    if fits {
                        placements.push(Placement {
                            piece: index,
                            orientation,
                            cells: cells
                                .iter()
                                .map(|&((dr, dc), _)| {
                                    ((r + dr) as usize) * width + (c + dc) as usize
                                })
                                .collect(),
                        });
                    }
                }
            }
        }
        if placements.len() == before {
            return Err(TilingError::NoPlacement(piece.name.clone()));
        }
    }
    Ok(())
}
