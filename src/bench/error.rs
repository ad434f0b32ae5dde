//! Why a benchmark could not run or report.

use thiserror::Error;

use crate::batch::BatchError;
use crate::puzzle::RunError;
use crate::report::ExportError;

/// Why a benchmark could not run or report.
#[derive(Debug, Error)]
pub enum BenchError {
    /// The suite file is not a valid suite.
    #[error("suite {origin}: {message}")]
    Suite {
        /// The file (or `default`).
        origin: String,
        /// What is wrong, and where.
        message: String,
    },
    /// A `--noise` or `--fail-if-slower` value that is not a percentage.
    #[error(transparent)]
    Percentage(#[from] super::gate::PercentageError),
    /// The suite cannot be resolved into runs (missing datasets, unknown algorithms…).
    #[error("{0}")]
    Plan(String),
    /// A run could not proceed.
    #[error(transparent)]
    Batch(#[from] BatchError),
    /// A puzzle could not be set up or run.
    #[error(transparent)]
    Run(#[from] RunError),
    /// An external program could not be run.
    #[error("external {name}: {message}")]
    External {
        /// Its name.
        name: String,
        /// What went wrong.
        message: String,
    },
    /// A generated dataset could not be made.
    #[error("cannot generate {}: {message}", path.display())]
    Generate {
        /// The file to make.
        path: std::path::PathBuf,
        /// Why.
        message: String,
    },
    /// A report folder could not be read (or a baseline kept).
    #[error("{}: {message}", path.display())]
    Read {
        /// The file or folder.
        path: std::path::PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A chart could not be drawn.
    #[error("cannot draw {file}: {message}")]
    Chart {
        /// The chart's file name.
        file: &'static str,
        /// What went wrong.
        message: String,
    },
    /// The report could not be written.
    #[error(transparent)]
    Write(#[from] ExportError),
    /// A signal stopped the run in the middle of a measurement, which is dropped.
    #[error("stopped by a signal")]
    Stopped,
}
