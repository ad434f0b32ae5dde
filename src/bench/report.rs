//! A benchmark's summary: its tables as CSV, JSON, Markdown and text.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::batch::counted;
use crate::report::export::{markdown_code, markdown_text, rows_to_csv, to_json, Column, Table};
use crate::report::EnvInfo;

use super::charts::{CHART_FILES, CHART_TITLES};
use super::format::{thousands, threads_text};
use super::run::{Disagreement, RunResult};
use super::stats::{summary_rows, SummaryRow};

/// What `summary.json` holds.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BenchSummary {
    /// The suite's name.
    pub suite: String,
    /// One row per measurement, as in `summary.csv`.
    pub runs: Vec<SummaryRow>,
    /// Records on which runs disagree (the first few per run).
    pub disagreements: Vec<Disagreement>,
    /// The chart files beside the summary.
    pub charts: Vec<String>,
    /// Each measurement's timed runs, in the order of `runs`: what `bench compare` needs
    /// for its intervals (empty in reports made before they were kept).
    #[serde(default)]
    pub samples: Vec<RunSamples>,
    /// Set when a signal stopped the benchmark: `runs` then holds the measurements
    /// finished before it, of `planned`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<Interrupted>,
}

/// A benchmark stopped by a signal: how far it got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interrupted {
    /// The measurements the suite planned.
    pub planned: usize,
}

/// The rate of every timed run of one measurement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSamples {
    /// The dataset.
    pub dataset: String,
    /// The algorithm or external program.
    pub algorithm: String,
    /// Its thread count (none for an external program).
    pub threads: Option<usize>,
    /// Records per second of each timed run, in the order they ran.
    pub records_per_s: Vec<f64>,
}

impl BenchSummary {
    /// The summary of `results` of suite `suite`.
    pub fn new(suite: &str, results: &[RunResult]) -> Self {
        BenchSummary {
            suite: suite.to_string(),
            runs: summary_rows(results),
            disagreements: results.iter().flat_map(|r| r.listed.clone()).collect(),
            charts: CHART_FILES.iter().map(|f| f.to_string()).collect(),
            samples: results
                .iter()
                .map(|r| RunSamples {
                    dataset: r.dataset.clone(),
                    algorithm: r.algorithm.clone(),
                    threads: r.threads,
                    records_per_s: r.rates.clone(),
                })
                .collect(),
            interrupted: None,
        }
    }

    /// The summary of a plan's run: its results, and whether a signal cut it short.
    pub fn of_run(suite: &str, run: &super::run::PlanRun) -> Self {
        BenchSummary {
            interrupted: run.interrupted.then_some(Interrupted {
                planned: run.planned,
            }),
            ..BenchSummary::new(suite, &run.results)
        }
    }

    /// For an interrupted benchmark, the sentence that says so: how many measurements of
    /// how many were done.
    pub fn interruption_text(&self) -> Option<String> {
        self.interrupted.map(|Interrupted { planned }| {
            format!(
                "Interrupted: {} of {planned} measurements done; the rest were not run.",
                self.runs.len()
            )
        })
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
        let mut md = format!(
            "# puzzlebench bench: {}\n\n",
            markdown_text(&self.suite).replace(['\n', '\r'], " ")
        );
        md.push_str(&format!(
            "{} · {} ({} cores) · {} · puzzlebench {}{} · {}\n\n{}\n\n",
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
            markdown_code(&env.command.join(" "))
        ));
        if let Some(text) = self.interruption_text() {
            md.push_str(&format!("**{text}**\n\n"));
        }
        let total = self.total_disagreements();
        md.push_str(&if total == 0 {
            "Every run agrees with the first run on its dataset, record by record.\n\n".to_string()
        } else {
            format!(
                "**{} {}** — listed at the end.\n\n",
                counted(total as usize, "answer"),
                if total == 1 { "disagrees" } else { "disagree" }
            )
        });
        for row in self.runs.iter().filter(|r| !r.failure.is_empty()) {
            md.push_str(&format!(
                "**{} failed on {}**: {}\n\n",
                markdown_text(&row.algorithm),
                markdown_text(&row.dataset),
                markdown_text(&row.failure)
            ));
        }
        md.push_str(
            "The same report as a page with sortable tables: [report.html](report.html).\n\n",
        );
        for (file, title) in CHART_FILES.iter().zip(CHART_TITLES) {
            md.push_str(&format!("## {title}\n\n![{title}]({file})\n\n"));
        }
        md.push_str("## Results\n\n");
        md.push_str(&Table::from_csv(&self.to_csv()).to_markdown());
        md.push_str(
            "\nrecords_per_s is the median of the timed runs (repeats of them; min and max \
             beside it, and a 95% confidence interval for the median from 6 runs on); \
             outlier_runs are runs beyond 1.5 interquartile ranges from the quartiles; us_* \
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
            "{} in {seconds:.0} s; {}{}; report: {}",
            match self.interrupted {
                Some(Interrupted { planned }) => format!(
                    "interrupted: {} of {}",
                    self.runs.len(),
                    counted(planned, "measurement")
                ),
                None => counted(self.runs.len(), "measurement"),
            },
            if total == 0 {
                "all runs agree".to_string()
            } else {
                // Mostly records, but an external program's extra lines count once too.
                let total = counted(total as usize, "disagreement");
                format!("{} (listed in the report)", total.to_uppercase())
            },
            if failures == 0 {
                String::new()
            } else {
                format!("; {} FAILED", counted(failures as usize, "run"))
            },
            report.join("report.html").display()
        )
    }

    /// The table printed at the end of a benchmark: one line per measurement.
    pub fn to_text(&self) -> String {
        let mut table = Table::new(vec![
            Column::left("dataset").padded(40),
            Column::left("algorithm").padded(10),
            Column::right("threads").padded(7),
            Column::right("records").padded(8),
            Column::right("runs").padded(4),
            Column::right("records/s").padded(11),
            Column::right("95% CI or min–max").padded(21),
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
                row.repeats.to_string(),
                thousands(row.records_per_s),
                row.spread_text(),
                row.us_p50.map_or("-".into(), |us| format!("{us:.1}")),
                row.speedup_vs_1_thread
                    .map_or("-".into(), |s| format!("{s:.2}×")),
                format!("{:.2}", row.relative_to_fastest),
                row.disagreements.to_string(),
            ]);
        }
        table.to_text()
    }

    /// The disagreements as a table.
    pub fn disagreement_table(&self) -> Table {
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
