//! `puzzlebench bench`: runs a suite of datasets × algorithms × thread counts on the batch
//! runner, checks that every run agrees with the first one on every record, and writes a
//! report folder — summary tables (CSV, JSON, Markdown), the environment and SVG charts.
//!
//! A suite is a TOML file (see [`Suite`]); [`DEFAULT_SUITE`] covers the repository's own
//! `datasets/`. Its sets name puzzle kinds ([`crate::puzzle::Kind`]), which the caller
//! supplies. External programs ([`External`]) are timed as whole processes and checked like
//! the built-in algorithms.

mod charts;
mod error;
mod format;
mod measure;
mod report;
mod run;
mod stats;
mod suite;

pub use charts::CHART_FILES;
pub use error::BenchError;
pub use format::{median, thousands, threads_text};
pub use measure::{Effort, Timing};
pub use report::{report_folder, write_report, BenchSummary};
pub use run::{run_plan, Disagreement, Event, External, RunResult};
pub use stats::{latency_cdf, summary_rows, SummaryRow};
pub use suite::{Overrides, Plan, PlannedDataset, SetSpec, Suite, DEFAULT_SUITE};
