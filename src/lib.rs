//! puzzlebench: solve, validate and benchmark grid puzzles in bulk.
#![deny(missing_docs)]

pub mod batch;
pub mod battleship;
pub mod bench;
pub mod budget;
pub mod connect4;
#[cfg(target_arch = "x86_64")]
mod cpu;
pub mod exact_cover;
pub mod kinds;
pub mod puzzle;
pub mod report;
pub mod sudoku;
pub mod tiling;
