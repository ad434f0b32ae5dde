//! The report folder of a benchmark: summary tables (CSV, JSON, Markdown), the environment
//! and the charts.

use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::report::export::{create_folder, rows_to_csv, to_json, write_file, Column, Table};
use crate::report::EnvInfo;

use super::charts::{self, CHART_FILES};
use super::error::BenchError;
use super::format::{thousands, threads_text};
use super::run::{Disagreement, RunResult};
use super::stats::{summary_rows, SummaryRow};

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
        rows_to_csv(&self.runs)
    }

    /// `summary.json`.
    pub fn to_json(&self) -> String {
        to_json(self)
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
                row.failure.replace('|', "\\|")
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
        md.push_str(&Table::from_csv(&self.to_csv()).to_markdown());
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
            md.push_str(&self.disagreement_table().to_markdown());
        }
        md
    }

    /// The line that closes a benchmark's output: how many measurements, how long, whether
    /// they all agree, and where the report is.
    pub fn closing_line(&self, seconds: f64, report: &Path) -> String {
        let total = self.total_disagreements();
        let failures = self.failures();
        format!(
            "{} measurements in {seconds:.0} s; {}{}; report: {}",
            self.runs.len(),
            if total == 0 {
                "all runs agree".to_string()
            } else {
                format!("{total} records DISAGREE (listed in the report)")
            },
            if failures == 0 {
                String::new()
            } else {
                format!("; {failures} runs FAILED")
            },
            report.join("summary.md").display()
        )
    }

    /// The table printed at the end of a benchmark: one line per measurement.
    pub fn to_text(&self) -> String {
        let mut table = Table::new(vec![
            Column::left("dataset").padded(40),
            Column::left("algorithm").padded(10),
            Column::right("threads").padded(7),
            Column::right("records").padded(8),
            Column::right("records/s").padded(11),
            Column::right("µs p50").padded(9),
            Column::right("speedup").padded(7),
            Column::right("vs best").padded(7),
            Column::right("disagree").padded(8),
        ]);
        for row in &self.runs {
            table.push(vec![
                row.dataset.clone(),
                row.algorithm.clone(),
                threads_text(row.threads),
                row.records.to_string(),
                thousands(row.records_per_s),
                row.us_p50.map_or("-".into(), |us| format!("{us:.1}")),
                row.speedup_vs_1_thread
                    .map_or("-".into(), |s| format!("{s:.2}×")),
                format!("{:.2}", row.relative_to_fastest),
                row.disagreements.to_string(),
            ]);
        }
        table.to_text()
    }

    fn disagreement_table(&self) -> Table {
        let mut table = Table::new(vec![
            Column::left("dataset"),
            Column::left("algorithm"),
            Column::right("threads"),
            Column::right("line"),
            Column::left("expected"),
            Column::left("got"),
            Column::left("reference"),
        ]);
        for d in &self.disagreements {
            table.push(vec![
                d.dataset.clone(),
                d.algorithm.clone(),
                d.threads.map(|t| t.to_string()).unwrap_or_default(),
                d.line.to_string(),
                d.expected.clone(),
                d.got.clone(),
                d.reference.clone(),
            ]);
        }
        table
    }
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
    create_folder(&dir)?;
    Ok(dir)
}

/// Writes `summary.csv`, `summary.json`, `summary.md`, `env.json` and the charts into `dir`.
pub fn write_report(
    dir: &Path,
    summary: &BenchSummary,
    results: &[RunResult],
    env: &EnvInfo,
) -> Result<(), BenchError> {
    write_file(&dir.join("summary.csv"), summary.to_csv())?;
    write_file(&dir.join("summary.json"), summary.to_json())?;
    write_file(&dir.join("summary.md"), summary.to_markdown(env))?;
    write_file(&dir.join("env.json"), env.to_json())?;
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
