//! `puzzlebench bench`: runs a suite of datasets × algorithms × thread counts on the batch
//! runner, checks that every run agrees with the first one on every record, and writes a
//! report folder — summary tables (CSV, JSON, Markdown), the environment and SVG charts.
//!
//! A suite is a TOML file (see [`Suite`]); [`DEFAULT_SUITE`] covers the repository's own
//! `datasets/`. External programs ([`External`]) are timed as whole processes and checked
//! like the built-in algorithms.

mod charts;
mod kind;
mod measure;
mod run;
mod stats;
mod suite;

pub use charts::CHART_FILES;
pub use kind::{Answer, Kind};
pub use measure::{Effort, Timing};
pub use run::{run_plan, Disagreement, Event, External, RunResult};
pub use stats::{latency_cdf, median, summary_rows, SummaryRow};
pub use suite::{Overrides, Plan, PlannedDataset, SetSpec, Suite, DEFAULT_SUITE};

use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;
use thiserror::Error;

use crate::batch::BatchError;
use crate::report::EnvInfo;

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
    /// The suite cannot be resolved into runs (missing datasets, unknown algorithms…).
    #[error("{0}")]
    Plan(String),
    /// A run could not proceed.
    #[error(transparent)]
    Batch(#[from] BatchError),
    /// An external program could not be run.
    #[error("external {name}: {message}")]
    External {
        /// Its name.
        name: String,
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
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file or folder.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
}

/// What `summary.json` holds.
#[derive(Debug, Clone, Serialize)]
pub struct BenchSummary {
    /// The suite's name.
    pub suite: String,
    /// One row per measurement, as in `summary.csv`.
    pub runs: Vec<SummaryRow>,
    /// Records on which runs disagree (the first few per run).
    pub disagreements: Vec<Disagreement>,
    /// The chart files beside the summary.
    pub charts: Vec<String>,
}

impl BenchSummary {
    /// The summary of `results` of suite `suite`.
    pub fn new(suite: &str, results: &[RunResult]) -> Self {
        BenchSummary {
            suite: suite.to_string(),
            runs: summary_rows(results),
            disagreements: results.iter().flat_map(|r| r.listed.clone()).collect(),
            charts: CHART_FILES.iter().map(|f| f.to_string()).collect(),
        }
    }

    /// Records that disagree, over all runs.
    pub fn total_disagreements(&self) -> u64 {
        self.runs.iter().map(|r| r.disagreements).sum()
    }

    /// Runs that failed.
    pub fn failures(&self) -> u64 {
        self.runs.iter().filter(|r| !r.failure.is_empty()).count() as u64
    }

    /// `summary.csv`: a header and one row per measurement.
    pub fn to_csv(&self) -> String {
        let mut writer = csv::Writer::from_writer(Vec::new());
        for row in &self.runs {
            writer
                .serialize(row)
                .expect("summary rows serialise to CSV");
        }
        if self.runs.is_empty() {
            return String::new();
        }
        String::from_utf8(writer.into_inner().expect("flushing to memory cannot fail"))
            .expect("CSV of UTF-8 strings is UTF-8")
    }

    /// `summary.json`.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("the summary serialises")
    }

    /// `summary.md`: the environment, the charts and the full table.
    pub fn to_markdown(&self, env: &EnvInfo) -> String {
        let mut md = format!("# puzzlebench bench: {}\n\n", self.suite);
        md.push_str(&format!(
            "{} · {} ({} cores) · {} · puzzlebench {}{} · {}\n\n`{}`\n\n",
            env.date,
            env.cpu_model,
            env.cores,
            env.os,
            env.version,
            env.git_commit
                .as_deref()
                .map(|c| format!(" ({})", &c[..c.len().min(12)]))
                .unwrap_or_default(),
            env.rustc,
            env.command.join(" ")
        ));
        let total = self.total_disagreements();
        md.push_str(&if total == 0 {
            "Every run agrees with the first run on its dataset, record by record.\n\n".to_string()
        } else {
            format!("**{total} records disagree** — listed at the end.\n\n")
        });
        for row in self.runs.iter().filter(|r| !r.failure.is_empty()) {
            md.push_str(&format!(
                "**{} failed on {}**: {}\n\n",
                row.algorithm,
                row.dataset,
                cell(&row.failure)
            ));
        }
        for (file, title) in
            CHART_FILES
                .iter()
                .zip(["Throughput", "Latency distribution", "Scaling with threads"])
        {
            md.push_str(&format!("## {title}\n\n![{title}]({file})\n\n"));
        }
        md.push_str("## Results\n\n");
        md.push_str(&markdown_table(&self.to_csv()));
        md.push_str(
            "\nrecords_per_s is the median of the timed runs (min and max beside it); us_* \
             are per-record times (for an external program, its whole wall time per record); \
             speedup_vs_1_thread compares with the same algorithm on one thread; \
             relative_to_fastest with the fastest run on the dataset at the same thread count.\n",
        );
        md.push_str("\n## Disagreements\n\n");
        if self.disagreements.is_empty() {
            md.push_str("None.\n");
        } else {
            md.push_str("| dataset | algorithm | threads | line | expected | got | reference |\n");
            md.push_str("|---|---|---:|---:|---|---|---|\n");
            for d in &self.disagreements {
                md.push_str(&format!(
                    "| {} | {} | {} | {} | {} | {} | {} |\n",
                    d.dataset,
                    d.algorithm,
                    d.threads.map(|t| t.to_string()).unwrap_or_default(),
                    d.line,
                    cell(&d.expected),
                    cell(&d.got),
                    d.reference
                ));
            }
        }
        md
    }
}

/// A CSV text as a Markdown table, every column kept.
fn markdown_table(csv_text: &str) -> String {
    let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
    let mut md = String::new();
    let Ok(header) = reader.headers().cloned() else {
        return md;
    };
    md.push_str(&format!(
        "| {} |\n",
        header.iter().collect::<Vec<_>>().join(" | ")
    ));
    md.push_str(&format!("|{}\n", "---|".repeat(header.len())));
    for record in reader.records().map_while(Result::ok) {
        let cells: Vec<String> = record.iter().map(cell).collect();
        md.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    md
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// A new folder `root/<date>-<host>-<label>` for a report (`-2`, `-3`… if taken).
pub fn report_folder(root: &Path, env: &EnvInfo, label: &str) -> Result<PathBuf, BenchError> {
    let date = env.date.get(..10).unwrap_or(&env.date);
    let base = format!("{date}-{}-{}", host_name(), safe(label));
    let mut dir = root.join(&base);
    let mut n = 2;
    while dir.exists() {
        dir = root.join(format!("{base}-{n}"));
        n += 1;
    }
    fs::create_dir_all(&dir).map_err(|source| BenchError::Write {
        path: dir.clone(),
        source,
    })?;
    Ok(dir)
}

/// Writes `summary.csv`, `summary.json`, `summary.md`, `env.json` and the charts into `dir`.
pub fn write_report(
    dir: &Path,
    summary: &BenchSummary,
    results: &[RunResult],
    env: &EnvInfo,
) -> Result<(), BenchError> {
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        fs::write(&path, text).map_err(|source| BenchError::Write { path, source })
    };
    write("summary.csv", summary.to_csv())?;
    write("summary.json", summary.to_json())?;
    write("summary.md", summary.to_markdown(env))?;
    write("env.json", env.to_json())?;
    charts::write_charts(dir, results)
}

/// This machine's name, for report folders.
fn host_name() -> String {
    fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| safe(h.trim()))
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "host".into())
}

/// `text` with anything but letters, digits, `-`, `_` and `.` replaced by `-`.
fn safe(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '-'
            }
        })
        .collect()
}
