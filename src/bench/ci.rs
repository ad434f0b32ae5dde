//! The export for CI dashboards: github-action-benchmark's `customBiggerIsBetter` (records
//! per second) and `customSmallerIsBetter` (µs per record) files — a JSON list of
//! `{name, unit, value, range, extra}`. The entries of an interrupted run say so at the
//! start of their `extra`, which the dashboard shows beside each point.

use serde::Serialize;

use crate::batch::counted;
use crate::report::export::to_json;

use super::format::thousands;
use super::report::BenchSummary;
use super::stats::SummaryRow;

/// The records/s file (`customBiggerIsBetter`).
pub const THROUGHPUT_FILE: &str = "github-benchmark-throughput.json";
/// The µs per record file (`customSmallerIsBetter`).
pub const LATENCY_FILE: &str = "github-benchmark-latency.json";

/// One entry of github-action-benchmark's custom format.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entry {
    /// The measurement, `dataset · algorithm · N threads`: the series' name on the
    /// dashboard.
    pub name: String,
    /// `records/s` or `µs/record`.
    pub unit: String,
    /// The median.
    pub value: f64,
    /// The spread, `± x`: half the 95% interval of the median (or of min–max).
    pub range: String,
    /// Timed runs, the interval and outliers, in words.
    pub extra: String,
}

/// The measurements with a speed: not failed, and with records timed (an empty dataset's
/// 0 records/s and 0 µs would plot as a collapse and as infinitely fast).
fn with_speed(summary: &BenchSummary) -> impl Iterator<Item = &SummaryRow> {
    (summary.runs.iter()).filter(|r| r.failure.is_empty() && r.records > 0)
}

/// `customBiggerIsBetter`: each measurement's median records/s.
pub fn throughput_entries(summary: &BenchSummary) -> String {
    let entries: Vec<Entry> = with_speed(summary)
        .map(|r| {
            let (low, high) = match (r.records_per_s_ci_low, r.records_per_s_ci_high) {
                (Some(low), Some(high)) => (low, high),
                _ => (r.records_per_s_min, r.records_per_s_max),
            };
            Entry {
                name: r.name(),
                unit: "records/s".into(),
                value: r.records_per_s,
                range: format!("± {}", thousands((high - low) / 2.0)),
                extra: extra(summary, r),
            }
        })
        .collect();
    to_json(&entries)
}

/// `customSmallerIsBetter`: each measurement's median µs per record (its mean for an
/// external program, timed as a whole).
pub fn latency_entries(summary: &BenchSummary) -> String {
    let entries: Vec<Entry> = with_speed(summary)
        .map(|r| {
            let value = r.us_p50.unwrap_or(r.us_mean);
            let range = match (r.us_p50, r.us_p90) {
                (Some(p50), Some(p90)) => format!("± {:.3}", p90 - p50),
                _ => "± 0".into(),
            };
            Entry {
                name: r.name(),
                unit: "µs/record".into(),
                value,
                range,
                extra: format!("p90 to p50 as the range; {}", extra(summary, r)),
            }
        })
        .collect();
    to_json(&entries)
}

/// The words beside a measurement: how it was timed, after the sentence that says the run
/// was interrupted, if it was.
fn extra(summary: &BenchSummary, r: &SummaryRow) -> String {
    let interrupted = summary
        .interruption_text()
        .map_or(String::new(), |text| format!("{text} "));
    format!(
        "{interrupted}{} of {}; records/s {} (95% interval of the median, else min–max){}",
        counted(r.repeats, "timed run"),
        counted(r.records as usize, "record"),
        r.spread_text(),
        if r.outlier_runs > 0 {
            format!("; {}", counted(r.outlier_runs, "outlier run"))
        } else {
            String::new()
        }
    )
}
