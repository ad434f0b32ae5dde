//! The puzzle kinds a suite can benchmark: their algorithms, the job that runs each, and
//! what counts as a record's answer when algorithms are compared.

use std::fmt;
use std::path::Path;

use serde::Deserialize;

use crate::batch::{InputFormat, InputSpec};
use crate::battleship::{self, FieldFormat, Fleet, Rules};
use crate::connect4::{self, AfterEnd, Notation};
use crate::sudoku::{self, Algorithm};

use super::measure::{measure_job, Measurement, Timing};
use super::suite::PlannedDataset;
use super::BenchError;

/// What a dataset holds, and so which command measures it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Sudoku puzzles, solved (`sudoku solve`).
    Sudoku,
    /// Connect Four game logs, validated (`connect4 validate`).
    Connect4,
    /// Connect Four positions, solved (`connect4 solve`, 7×6, no book).
    #[serde(rename = "connect4-solve")]
    Connect4Solve,
    /// Battleship fields, validated (`battleship validate`).
    Battleship,
}

impl Kind {
    /// The algorithms this kind can be run with.
    pub fn algorithms(self) -> &'static [&'static str] {
        match self {
            Kind::Sudoku => SUDOKU_ALGORITHMS,
            Kind::Connect4 => &["bitboard"],
            Kind::Connect4Solve => &["exact", "weak"],
            Kind::Battleship => &["bitmask"],
        }
    }

    /// The name of the datasets subfolder holding this kind (Connect Four positions: the
    /// `pons` folder of the public corpora).
    pub fn folder(self) -> &'static str {
        match self {
            Kind::Sudoku => "sudoku",
            Kind::Connect4 => "connect4",
            Kind::Connect4Solve => "pons",
            Kind::Battleship => "battleship",
        }
    }

    /// The kind's name in suite files and reports.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Connect4Solve => "connect4-solve",
            other => other.folder(),
        }
    }

    /// The result column that measures search effort, if the kind has one.
    pub fn effort_column(self) -> Option<&'static str> {
        match self {
            Kind::Sudoku => Some("guesses"),
            Kind::Connect4Solve => Some("nodes"),
            Kind::Connect4 | Kind::Battleship => None,
        }
    }

    /// The result columns that make up a record's answer.
    pub(super) fn answer_columns(self) -> &'static [&'static str] {
        match self {
            Kind::Sudoku => &["solution"],
            Kind::Connect4 => &["winner", "ply", "cells"],
            // The win/draw/loss result, which the weak search gives too.
            Kind::Connect4Solve => &["result"],
            Kind::Battleship => &["reason"],
        }
    }

    /// A record's answer from its status and answer columns: what two algorithms must agree
    /// on. A Sudoku with several solutions is compared by status alone (each algorithm may
    /// find a different first solution), and so is every Sudoku when fewer than 2 solutions
    /// are counted (`solved` then does not mean unique).
    pub(super) fn answer(self, status: &str, values: &[String], limit: u64) -> Answer {
        let value = match self {
            Kind::Sudoku => (status == "solved" && limit >= 2).then(|| values[0].clone()),
            Kind::Connect4 | Kind::Connect4Solve | Kind::Battleship => Some(values.join(" ")),
        };
        Answer {
            status: status.to_string(),
            value,
        }
    }

    /// Measures `algorithm` on `dataset` with `threads` workers.
    pub(super) fn measure(
        self,
        dataset: &PlannedDataset,
        algorithm: &str,
        threads: usize,
        timing: &Timing,
    ) -> Result<Measurement, BenchError> {
        let input = input_spec(&dataset.path);
        let fail = |message: String| BenchError::Plan(format!("{}: {message}", dataset.name));
        match self {
            Kind::Sudoku => {
                let algorithm: Algorithm = algorithm.parse().map_err(fail)?;
                let job = sudoku::SolveJob {
                    algorithm,
                    limit: dataset.limit,
                    side: None,
                    column: None,
                    expected_column: None,
                    with_expected: input.format == InputFormat::Csv,
                };
                measure_job(self, &job, &input, threads, dataset, timing)
            }
            Kind::Connect4 => {
                let job = connect4::ValidateJob {
                    width: 7,
                    height: 6,
                    fits_u64: true,
                    notation: Notation::Auto,
                    after_end: AfterEnd::Error,
                    column: None,
                };
                measure_job(self, &job, &input, threads, dataset, timing)
            }
            Kind::Connect4Solve => {
                let job = connect4::SolveJob {
                    width: 7,
                    height: 6,
                    fits_u64: true,
                    weak: algorithm == "weak",
                    table_mb: SOLVE_TABLE_MB,
                    score_only: true,
                    book: None,
                };
                measure_job(self, &job, &input, threads, dataset, timing)
            }
            Kind::Battleship => {
                let rules = match dataset.rules.as_str() {
                    "separated" => Rules::Separated,
                    _ => Rules::Touching,
                };
                let job = battleship::ValidateJob {
                    rules,
                    fleet: Fleet::classic(),
                    size: None,
                    format: FieldFormat::Auto,
                    count: false,
                };
                measure_job(self, &job, &input, threads, dataset, timing)
            }
        }
    }
}

/// The Connect Four solver's transposition table per worker, as `connect4 solve` has it
/// by default.
const SOLVE_TABLE_MB: usize = 64;

const SUDOKU_ALGORITHMS: &[&str] = &["dlx", "backtrack", "fast"];

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a dataset file is read: CSV by its extension, lines otherwise.
pub(super) fn input_spec(path: &Path) -> InputSpec {
    InputSpec::new(&path.to_string_lossy(), None)
}

/// What a record's result comes to, for comparing algorithms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The record's status.
    pub status: String,
    /// The answer proper, when the status has one that every algorithm must reproduce.
    pub value: Option<String>,
}

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.value {
            Some(value) if !value.is_empty() => write!(f, "{} {value}", self.status),
            _ => f.write_str(&self.status),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sudoku_algorithms_are_the_solvers_algorithms() {
        let names: Vec<&str> = Algorithm::ALL.iter().map(|a| a.name()).collect();
        assert_eq!(names, SUDOKU_ALGORITHMS);
    }

    #[test]
    fn several_solutions_compare_by_status_alone() {
        let a = Kind::Sudoku.answer("multiple", &["123".into()], 2);
        let b = Kind::Sudoku.answer("multiple", &["321".into()], 2);
        assert_eq!(a, b);
        let c = Kind::Sudoku.answer("solved", &["123".into()], 2);
        let d = Kind::Sudoku.answer("solved", &["321".into()], 2);
        assert_ne!(c, d);
        assert_eq!(c.to_string(), "solved 123");
        let e = Kind::Sudoku.answer("solved", &["123".into()], 1);
        let f = Kind::Sudoku.answer("solved", &["321".into()], 1);
        assert_eq!(e, f);
    }
}
