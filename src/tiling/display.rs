//! Tilings written out: solutions as framed grids or JSON, counts as text or JSON.

use std::io::{self, Write};
use std::ops::ControlFlow;

use super::{Board, Counted, Piece, Placement, Stop, Tiling};

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
/// broken, the count up to symmetry and the solutions searched. Counts are exact: in JSON,
/// a count beyond `u64` is a string of its digits (see [`Counts`](super::Counts)).
///
/// A count that did not finish says so: in text, a last line `partial: …` naming what
/// stopped it (the timeout, or an interruption) and the parts searched; in JSON, the
/// fields `"partial": true`, `stopped` (`"timeout"` or `"interrupted"`, when known),
/// `parts_done` and `parts_total`.
pub fn counts_text(counted: &Counted, symmetry_broken: bool, json: bool) -> String {
    let counts = &counted.counts;
    let mut text = if json {
        let mut object = if symmetry_broken {
            let mut object = serde_json::Map::new();
            object.insert("up_to_symmetry".into(), json_count(&counts.up_to_symmetry));
            object.insert("searched".into(), json_count(&counts.labelled));
            object
        } else {
            match serde_json::to_value(counts) {
                Ok(serde_json::Value::Object(object)) => object,
                _ => serde_json::Map::new(),
            }
        };
        if !counted.complete() {
            object.insert("partial".into(), true.into());
            if let Some(stop) = counted.stopped {
                let stopped = match stop {
                    Stop::Timeout(_) => "timeout",
                    Stop::Interrupted => "interrupted",
                };
                object.insert("stopped".into(), stopped.into());
            }
            object.insert("parts_done".into(), counted.parts_done.into());
            object.insert("parts_total".into(), counted.parts_total.into());
        }
        format!("{}\n", serde_json::Value::Object(object))
    } else if symmetry_broken {
        format!(
            "up_to_symmetry: {}\n(symmetry broken: {} solutions searched; labelled and tilings not counted)\n",
            counts.up_to_symmetry, counts.labelled
        )
    } else {
        format!(
            "labelled: {}\ntilings: {}\nup_to_symmetry: {}\n",
            counts.labelled, counts.tilings, counts.up_to_symmetry
        )
    };
    if !json && !counted.complete() {
        let why = match counted.stopped {
            Some(Stop::Timeout(timeout)) => format!(
                "stopped after the timeout of {}",
                humantime::format_duration(timeout)
            ),
            Some(Stop::Interrupted) => "interrupted".to_string(),
            None => "stopped".to_string(),
        };
        if counted.parts_total == 0 {
            text.push_str(&format!(
                "partial: {why} while the search was being prepared, before any part of it; the counts are lower bounds\n"
            ));
        } else {
            text.push_str(&format!(
                "partial: {why}, {} of {} parts of the search finished; the counts are lower bounds\n",
                counted.parts_done, counted.parts_total
            ));
        }
    }
    text
}

/// A count as JSON: a number when it fits in a `u64`, else a string of its digits.
fn json_count<T: Clone + TryInto<u64> + ToString>(count: &T) -> serde_json::Value {
    match count.clone().try_into() {
        Ok(small) => small.into(),
        Err(_) => count.to_string().into(),
    }
}
