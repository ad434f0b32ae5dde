//! Tilings written out: solutions as framed grids or JSON, counts as text or JSON, and
//! the pieces and board files read.

use std::io::{self, Write};
use std::ops::ControlFlow;
use std::path::Path;

use super::{parse_pieces, Board, Counts, Piece, PiecesError, Placement, Tiling};

/// A solution as a framed grid: each cell its stone number and colour, `.` for holes.
pub fn solution_grid(board: &Board, pieces: &[Piece], chosen: &[&Placement]) -> String {
    let width = board.width();
    let mut stone = vec![None; width * board.height()];
    for placement in chosen {
        for &cell in &placement.cells {
            stone[cell] = Some(placement.piece);
        }
    }
    let cell_width = pieces.len().to_string().len() + 1;
    let rule = format!("+{}+\n", "-".repeat(width * (cell_width + 1) + 1));
    let mut text = rule.clone();
    for r in 0..board.height() {
        text.push('|');
        for c in 0..width {
            let label = match (stone[r * width + c], board.cell(r as i32, c as i32)) {
                (Some(piece), Some(color)) => format!(
                    "{}{}",
                    pieces[piece].name,
                    color.map_or('#', |color| color.letter())
                ),
                _ => ".".to_string(),
            };
            text.push_str(&format!(" {label:>cell_width$}"));
        }
        text.push_str(" |\n");
    }
    text.push_str(&rule);
    text
}

/// A solution as JSON: each placement's stone, orientation and cells (row, column).
pub fn solution_json(number: u64, board: &Board, chosen: &[&Placement]) -> String {
    let width = board.width();
    let placements: Vec<serde_json::Value> = chosen
        .iter()
        .map(|p| {
            let cells: Vec<[usize; 2]> = p.cells.iter().map(|&c| [c / width, c % width]).collect();
            serde_json::json!({"stone": p.piece + 1, "orientation": p.orientation, "cells": cells})
        })
        .collect();
    serde_json::json!({"solution": number, "placements": placements}).to_string()
}

/// How solutions are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SolutionFormat {
    /// Framed grids.
    Text,
    /// One JSON object per solution: its placements (stone, orientation, cells).
    Jsonl,
}

/// Writes the solutions of `problem`, at most `limit`, to `out`; returns how many.
pub fn write_solutions(
    problem: &mut Tiling,
    board: &Board,
    pieces: &[Piece],
    format: SolutionFormat,
    limit: u64,
    out: &mut dyn Write,
) -> io::Result<u64> {
    let placements = problem.placements().to_vec();
    let mut found = 0u64;
    let mut failure = None;
    problem.solve(|options| {
        found += 1;
        let chosen: Vec<&Placement> = options.iter().map(|&o| &placements[o]).collect();
        let written = match format {
            SolutionFormat::Text => write!(
                out,
                "solution {found}\n{}",
                solution_grid(board, pieces, &chosen)
            ),
            SolutionFormat::Jsonl => writeln!(out, "{}", solution_json(found, board, &chosen)),
        };
        if let Err(error) = written {
            failure = Some(error);
            return ControlFlow::Break(());
        }
        if found >= limit {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    match failure {
        Some(error) => Err(error),
        None => Ok(found),
    }
}

/// The counts as `tiling count` prints them: three lines, or JSON; with the symmetry
/// broken, the count up to symmetry and the solutions searched.
pub fn counts_text(counts: &Counts, symmetry_broken: bool, json: bool) -> String {
    match (symmetry_broken, json) {
        (true, true) => format!(
            "{}\n",
            serde_json::json!({
                "up_to_symmetry": counts.up_to_symmetry,
                "searched": counts.labelled,
            })
        ),
        (true, false) => format!(
            "up_to_symmetry: {}\n(symmetry broken: {} solutions searched; labelled and tilings not counted)\n",
            counts.up_to_symmetry, counts.labelled
        ),
        (false, true) => format!(
            "{}\n",
            serde_json::to_string(counts).expect("counts serialise")
        ),
        (false, false) => format!(
            "labelled: {}\ntilings: {}\nup_to_symmetry: {}\n",
            counts.labelled, counts.tilings, counts.up_to_symmetry
        ),
    }
}

/// Why a pieces or board file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TilingFileError {
    /// The file cannot be read.
    #[error("cannot read {path}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: io::Error,
    },
    /// The pieces file is not a pieces file.
    #[error("{path}")]
    Pieces {
        /// The file.
        path: String,
        /// What is wrong.
        source: PiecesError,
    },
    /// The board file is not a board.
    #[error("{path}: {source}")]
    Board {
        /// The file.
        path: String,
        /// What is wrong.
        source: super::BoardError,
    },
}

fn read(path: &Path) -> Result<String, TilingFileError> {
    std::fs::read_to_string(path).map_err(|source| TilingFileError::Read {
        path: path.display().to_string(),
        source,
    })
}

/// The pieces of a pieces (stones) file.
pub fn read_pieces(path: &Path) -> Result<Vec<Piece>, TilingFileError> {
    parse_pieces(&read(path)?).map_err(|source| TilingFileError::Pieces {
        path: path.display().to_string(),
        source,
    })
}

/// The board of a board file.
pub fn read_board(path: &Path) -> Result<Board, TilingFileError> {
    Board::parse(&read(path)?).map_err(|source| TilingFileError::Board {
        path: path.display().to_string(),
        source,
    })
}
