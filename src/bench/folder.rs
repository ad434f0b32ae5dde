//! A benchmark's report folder: every file written together, read back for comparisons,
//! and kept as a named baseline.

use std::fs;
use std::path::{Path, PathBuf};

use crate::batch::{read_regular_file_bounded, BoundedReadError};
use crate::report::export::{create_folder, write_file};
use crate::report::{EnvInfo, MAX_REPORT_FILE_BYTES};

use super::charts::{self, comparison_chart, CHART_FILES, CHART_TITLES, COMPARISON_FILE};
use super::ci;
use super::compare::{Comparison, Side};
use super::error::BenchError;
use super::page::bench_page;
use super::report::BenchSummary;
use super::run::RunResult;

/// The page beside the other files.
pub const PAGE_FILE: &str = "report.html";

/// A new folder `root/<date>-<host>-<label>` for a report (`-2`, `-3`… if taken).
pub fn report_folder(root: &Path, env: &EnvInfo, label: &str) -> Result<PathBuf, BenchError> {
    let date = env.date.get(..10).unwrap_or(&env.date);
    let host = safe(&env.host);
    let base = format!("{date}-{host}-{}", safe(label));
    let mut dir = root.join(&base);
    let mut n = 2;
    while dir.exists() {
        dir = root.join(format!("{base}-{n}"));
        n += 1;
    }
    create_folder(&dir)?;
    Ok(dir)
}

/// Writes every file of a report into `dir`: `summary.csv`, `summary.json` (with each
/// measurement's timed runs), `summary.md`, `env.json`, the charts, the CI dashboard files
/// and `report.html`.
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
    write_file(
        &dir.join(ci::THROUGHPUT_FILE),
        ci::throughput_entries(summary),
    )?;
    write_file(&dir.join(ci::LATENCY_FILE), ci::latency_entries(summary))?;
    let drawn = charts::write_charts(dir, results)?;
    let titled: Vec<(&str, String)> = drawn
        .into_iter()
        .zip(CHART_TITLES)
        .map(|((_, svg), title)| (title, svg))
        .collect();
    write_file(
        &dir.join(PAGE_FILE),
        bench_page(summary, env, &titled, None),
    )?;
    Ok(())
}

/// A report folder read back.
#[derive(Debug, Clone)]
pub struct SavedReport {
    /// The folder.
    pub dir: PathBuf,
    /// Its `summary.json`.
    pub summary: BenchSummary,
    /// Its `env.json`.
    pub env: EnvInfo,
}

impl SavedReport {
    /// Reads the report in `dir`.
    pub fn load(dir: &Path) -> Result<Self, BenchError> {
        let read = |file: &str| -> Result<Vec<u8>, BenchError> {
            let path = dir.join(file);
            read_regular_file_bounded(&path, MAX_REPORT_FILE_BYTES).map_err(|e| BenchError::Read {
                message: match e {
                    BoundedReadError::Io(e) => {
                        format!("{e} (a report folder of `puzzlebench bench` holds it)")
                    }
                    BoundedReadError::TooLarge { .. } => {
                        format!("the file {e}: not a bench report's {file}")
                    }
                },
                path,
            })
        };
        let parse = |file: &str, e: serde_json::Error| BenchError::Read {
            path: dir.join(file),
            message: format!("not a bench report's {file}: {e}"),
        };
        let summary: BenchSummary =
            serde_json::from_slice(&read("summary.json")?).map_err(|e| parse("summary.json", e))?;
        check_rates(&summary).map_err(|message| BenchError::Read {
            path: dir.join("summary.json"),
            message,
        })?;
        let env = serde_json::from_slice(&read("env.json")?).map_err(|e| parse("env.json", e))?;
        Ok(SavedReport {
            dir: dir.to_path_buf(),
            summary,
            env,
        })
    }

    /// This report as one side of a comparison.
    pub fn side(&self) -> Side<'_> {
        Side {
            name: self.dir.to_str().unwrap_or("report"),
            summary: &self.summary,
            env: &self.env,
        }
    }
}

/// Refuses a summary with a rate that no run measures: negative, or not a number.
fn check_rates(summary: &BenchSummary) -> Result<(), String> {
    let bad = |rate: f64| !(rate.is_finite() && rate >= 0.0);
    for (i, run) in summary.runs.iter().enumerate() {
        if bad(run.records_per_s) {
            return Err(format!(
                "runs[{i}].records_per_s is {:?}: a rate is a number of records per second, \
                 0 or more",
                run.records_per_s
            ));
        }
    }
    for (i, samples) in summary.samples.iter().enumerate() {
        if let Some((j, rate)) = samples
            .records_per_s
            .iter()
            .enumerate()
            .find(|(_, r)| bad(**r))
        {
            return Err(format!(
                "samples[{i}].records_per_s[{j}] is {rate:?}: a rate is a number of records \
                 per second, 0 or more"
            ));
        }
    }
    Ok(())
}

/// Writes `comparison` into the new report's folder: `compare.md`, `compare.json`,
/// `compare.csv` and `comparison.svg`, and `report.html` again with the comparison.
pub fn write_comparison(new: &SavedReport, comparison: &Comparison) -> Result<(), BenchError> {
    let dir = &new.dir;
    let svg = comparison_chart(&comparison.bars(), comparison.noise)?;
    write_file(&dir.join(COMPARISON_FILE), &svg)?;
    write_file(&dir.join("compare.md"), comparison.to_markdown())?;
    write_file(&dir.join("compare.json"), comparison.to_json())?;
    write_file(&dir.join("compare.csv"), comparison.table().to_csv())?;
    // The charts as written with the report, where they still are.
    let charts: Vec<(&str, String)> = CHART_FILES
        .iter()
        .zip(CHART_TITLES)
        .filter_map(|(file, title)| {
            let bytes = read_regular_file_bounded(&dir.join(file), MAX_REPORT_FILE_BYTES).ok()?;
            Some((title, String::from_utf8(bytes).ok()?))
        })
        .collect();
    let page = bench_page(&new.summary, &new.env, &charts, Some((comparison, &svg)));
    write_file(&dir.join(PAGE_FILE), page)?;
    Ok(())
}

/// Where baseline `name` is kept: `reports/baselines/NAME`.
pub fn baseline_folder(reports: &Path, name: &str) -> PathBuf {
    reports.join("baselines").join(safe(name))
}

/// Keeps the report in `dir` as baseline `name` under `reports`, replacing an older one.
pub fn save_baseline(dir: &Path, reports: &Path, name: &str) -> Result<PathBuf, BenchError> {
    let target = baseline_folder(reports, name);
    let io = |path: &Path, e: std::io::Error| BenchError::Read {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    if target.exists() {
        fs::remove_dir_all(&target).map_err(|e| io(&target, e))?;
    }
    create_folder(&target)?;
    for entry in fs::read_dir(dir).map_err(|e| io(dir, e))? {
        let path = entry.map_err(|e| io(dir, e))?.path();
        if path.is_file() {
            let copy = target.join(path.file_name().unwrap_or_default());
            fs::copy(&path, &copy).map_err(|e| io(&copy, e))?;
        }
    }
    Ok(target)
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
