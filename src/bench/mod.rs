//! `puzzlebench bench`: runs a suite of datasets × algorithms × thread counts on the batch
//! runner, checks that every run agrees with the first one on every record, and writes a
//! report folder — summary tables (CSV, JSON, Markdown), the environment and SVG charts.
//!
//! A suite is a TOML file (see [`Suite`]); [`DEFAULT_SUITE`] covers the repository's own
//! `datasets/`. Its sets name puzzle kinds ([`crate::puzzle::Kind`]), which the caller
//! supplies. External programs ([`External`]) are timed as whole processes and checked like
//! the built-in algorithms.

mod charts;
mod ci;
mod compare;
mod data_files;
mod error;
mod folder;
mod format;
mod gate;
mod generated;
mod measure;
mod page;
mod report;
mod run;
mod spread;
mod stats;
mod suite;

pub use charts::{RatioBar, CHART_FILES};
pub use ci::{latency_entries, throughput_entries, Entry, LATENCY_FILE, THROUGHPUT_FILE};
pub use compare::{rule_text, Compared, Comparison, Difference, Side, Verdict, DEFAULT_NOISE};
pub use error::BenchError;
pub use folder::{
    baseline_folder, report_folder, save_baseline, write_comparison, write_report, SavedReport,
    PAGE_FILE,
};
pub use format::{median, thousands, threads_text};
pub use gate::{parse_percentage, BaselineOutcome, Baselines, Gate, Judged, PercentageError};
pub use measure::{Effort, Timing};
pub use page::bench_page;
pub use report::{BenchSummary, Interrupted, RunSamples};
pub use run::{
    check_external_names, run_plan, Disagreement, Event, External, Externals, PlanRun, RunResult,
};
pub use spread::{median_interval, outliers, ratio_interval};
pub use stats::{latency_cdf, summary_rows, SummaryRow};
pub use suite::{
    default_cache_folder, parse_thread_count, GeneratedFile, Overrides, Plan, PlannedDataset,
    SetSpec, Suite, ThreadCountError, DEFAULT_SUITE,
};
