//! A run's summary: counts per status, throughput and latency, as JSON, CSV, Markdown
//! and a few lines of text.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};

use crate::batch::{counted, latency_histogram, LatencySummary, RunStats};

use super::export::{to_json, Column, Table};

/// What a summary says about one run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Summary {
    /// The command that ran, e.g. `sudoku solve`.
    pub command: String,
    /// The inputs as named by the user (`-` for standard input).
    pub inputs: Vec<String>,
    /// The job's settings (algorithm, limit, …).
    pub settings: Map<String, Json>,
    /// Worker threads.
    pub threads: usize,
    /// The shard processed (`K/N`), when the run was one shard of the records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// Records processed.
    pub records: u64,
    /// Records that failed (errors, unsolvable, mismatches, …).
    pub failed: u64,
    /// Records per status.
    pub statuses: Map<String, Json>,
    /// For each tallied column, the count of each value.
    pub tallies: Map<String, Json>,
    /// When the run started (UTC, RFC 3339 with milliseconds).
    #[serde(default)]
    pub started: String,
    /// Wall-clock seconds.
    pub wall_seconds: f64,
    /// CPU seconds (user + system) of the whole process.
    pub cpu_seconds: f64,
    /// Records per wall-clock second.
    pub records_per_second: f64,
    /// Records per CPU second.
    pub records_per_cpu_second: f64,
    /// Per-record latency in microseconds.
    pub latency_us: LatencySummary,
    /// Whether the run was interrupted: `records` are the first records, the rest were
    /// not read. Left out when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// Rows already in the results file of a resumed run (`--resume`), whose records
    /// these figures do not count. Left out when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub resumed_rows: u64,
    /// Rows already in the results file of a resumed run, counted in these figures as the
    /// rows give them (statuses, tallies, times); the wall and CPU time are the resumed
    /// run's alone. Left out when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub rows_from_file: u64,
    /// Every record's latency in nanoseconds, kept so that summaries merge exactly: the
    /// report writes it to `latency.hdr`.
    #[serde(skip, default = "latency_histogram")]
    pub latency_ns: Histogram<u64>,
    /// The slowest records, slowest first (at most [`crate::batch::SLOWEST_KEPT`]).
    #[serde(default)]
    pub slowest: Vec<SlowestRecord>,
    /// Records per band of per-record time, for the latency histogram.
    #[serde(default)]
    pub latency_histogram: Vec<LatencyBand>,
}

/// One of the slowest records of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SlowestRecord {
    /// Its input, as named by the user.
    pub input: String,
    /// Its line number there.
    pub line: u64,
    /// Its status.
    pub status: String,
    /// Microseconds spent on it.
    pub micros: f64,
}

/// Records whose time falls in one band: `from_us` ≤ µs < `to_us`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LatencyBand {
    /// Lower end, µs.
    pub from_us: f64,
    /// Upper end, µs.
    pub to_us: f64,
    /// Records.
    pub records: u64,
}

/// Bands per tenfold of time: fine enough to show a distribution's shape, few enough that
/// a histogram stays readable.
const BANDS_PER_DECADE: f64 = 4.0;

/// The records of a histogram of nanoseconds in bands of time (µs), from the fastest
/// record's band to the slowest's, empty bands between included.
fn latency_bands(histogram: &hdrhistogram::Histogram<u64>) -> Vec<LatencyBand> {
    let band = |nanos: u64| ((nanos.max(1) as f64 / 1e3).log10() * BANDS_PER_DECADE).floor() as i64;
    if histogram.is_empty() {
        return Vec::new();
    }
    let (first, last) = (band(histogram.min()), band(histogram.max()));
    let edge = |b: i64| round(10f64.powf(b as f64 / BANDS_PER_DECADE), 3);
    let mut bands: Vec<LatencyBand> = (first..=last)
        .map(|b| LatencyBand {
            from_us: edge(b),
            to_us: edge(b + 1),
            records: 0,
        })
        .collect();
    for value in histogram.iter_recorded() {
        let index = (band(value.value_iterated_to()) - first).clamp(0, last - first) as usize;
        bands[index].records += value.count_at_value();
    }
    bands
}

impl Summary {
    /// Summarises `stats` of a run of `command` over `inputs` with `settings`.
    pub fn new(
        command: &str,
        inputs: Vec<String>,
        settings: Vec<(String, String)>,
        stats: &RunStats,
    ) -> Self {
        let count_map = |pairs: &[(String, u64)]| -> Map<String, Json> {
            pairs
                .iter()
                .map(|(k, v)| (k.clone(), Json::from(*v)))
                .collect()
        };
        let named = inputs.clone();
        let inputs_named = |file: usize| named.get(file).cloned().unwrap_or_default();
        Summary {
            command: command.to_string(),
            inputs,
            settings: settings
                .into_iter()
                .map(|(k, v)| (k, Json::String(v)))
                .collect(),
            threads: stats.threads,
            shard: stats.shard.map(|shard| shard.to_string()),
            records: stats.records,
            failed: stats.failed,
            statuses: count_map(&stats.statuses),
            tallies: stats
                .tallies
                .iter()
                .map(|(column, values)| (column.clone(), Json::Object(count_map(values))))
                .collect(),
            started: humantime::format_rfc3339_millis(stats.started).to_string(),
            wall_seconds: round(stats.wall.as_secs_f64(), 6),
            cpu_seconds: round(stats.cpu.as_secs_f64(), 6),
            records_per_second: round(stats.records_per_second(), 1),
            records_per_cpu_second: round(stats.records_per_cpu_second(), 1),
            latency_us: LatencySummary {
                mean: round(stats.latency().mean, 2),
                p50: round(stats.latency().p50, 2),
                p90: round(stats.latency().p90, 2),
                p99: round(stats.latency().p99, 2),
                max: round(stats.latency().max, 2),
            },
            interrupted: stats.interrupted,
            resumed_rows: stats.resumed_rows,
            rows_from_file: stats.rows_from_file,
            latency_ns: stats.latency_ns.clone(),
            slowest: stats
                .slowest
                .iter()
                .map(|slow| SlowestRecord {
                    input: inputs_named(slow.file),
                    line: slow.line,
                    status: slow.status.to_string(),
                    micros: round(slow.nanos as f64 / 1e3, 3),
                })
                .collect(),
            latency_histogram: latency_bands(&stats.latency_ns),
        }
    }

    /// Pretty-printed JSON.
    pub fn to_json(&self) -> String {
        to_json(self)
    }

    /// The summary as `(column, value)` pairs: one flat row, the same facts as the JSON.
    pub fn flat(&self) -> Vec<(String, String)> {
        let mut out = vec![
            ("command".to_string(), self.command.clone()),
            ("inputs".to_string(), self.inputs.join(";")),
        ];
        out.extend(self.settings.iter().map(|(k, v)| (k.clone(), json_text(v))));
        out.push(("threads".into(), self.threads.to_string()));
        if let Some(shard) = &self.shard {
            out.push(("shard".into(), shard.clone()));
        }
        out.push(("started".into(), self.started.clone()));
        if self.interrupted {
            out.push(("interrupted".into(), "true".into()));
        }
        if self.resumed_rows > 0 {
            out.push(("resumed_rows".into(), self.resumed_rows.to_string()));
        }
        if self.rows_from_file > 0 {
            out.push(("rows_from_file".into(), self.rows_from_file.to_string()));
        }
        out.push(("records".into(), self.records.to_string()));
        out.push(("failed".into(), self.failed.to_string()));
        out.extend(
            self.statuses
                .iter()
                .map(|(k, v)| (format!("status_{k}"), json_text(v))),
        );
        for (column, values) in &self.tallies {
            if let Json::Object(values) = values {
                out.extend(
                    values
                        .iter()
                        .map(|(k, v)| (format!("{column}_{k}"), json_text(v))),
                );
            }
        }
        let l = &self.latency_us;
        for (name, value) in [
            ("wall_seconds", self.wall_seconds),
            ("cpu_seconds", self.cpu_seconds),
            ("records_per_second", self.records_per_second),
            ("records_per_cpu_second", self.records_per_cpu_second),
            ("latency_mean_us", l.mean),
            ("latency_p50_us", l.p50),
            ("latency_p90_us", l.p90),
            ("latency_p99_us", l.p99),
            ("latency_max_us", l.max),
        ] {
            out.push((name.to_string(), value.to_string()));
        }
        out
    }

    /// CSV: a header row and one row.
    pub fn to_csv(&self) -> String {
        let flat = self.flat();
        let mut table = Table::new(flat.iter().map(|(name, _)| Column::left(name)).collect());
        table.push(flat.into_iter().map(|(_, value)| value).collect());
        table.to_csv()
    }

    /// A Markdown page: the run's facts and its counts per status.
    pub fn to_markdown(&self) -> String {
        let mut facts = Table::new(vec![Column::left("metric"), Column::left("value")]);
        for (name, value) in self.flat() {
            if !name.starts_with("status_") && name != "command" {
                facts.push(vec![name, value]);
            }
        }
        let mut statuses = Table::new(vec![Column::left("status"), Column::right("records")]);
        for (status, count) in &self.statuses {
            statuses.push(vec![status.clone(), json_text(count)]);
        }
        format!(
            "# puzzlebench {}\n\n{}\n{}",
            self.command,
            facts.to_markdown(),
            statuses.to_markdown()
        )
    }

    /// A few lines for the terminal.
    pub fn to_text(&self) -> String {
        let counts: Vec<String> = self
            .statuses
            .iter()
            .filter(|(_, v)| v.as_u64() != Some(0))
            .map(|(k, v)| format!("{k} {}", json_text(v)))
            .collect();
        let mut text = String::new();
        if self.interrupted {
            text.push_str(&format!(
                "interrupted: the first {} done, the rest not read\n",
                counted(self.records as usize, "record")
            ));
        }
        if self.resumed_rows > 0 {
            text.push_str(&format!(
                "resumed: {} rows were already in the results file; these figures count the records after them\n",
                self.resumed_rows
            ));
        }
        if self.rows_from_file > 0 {
            text.push_str(&format!(
                "resumed: {} rows were already in the results file, counted as they are written there; the times in seconds are this run's\n",
                self.rows_from_file
            ));
        }
        text += &format!(
            "{} in {:.3} s ({:.0} records/s, {}): {}\n",
            counted(self.records as usize, "record"),
            self.wall_seconds,
            self.records_per_second,
            counted(self.threads, "thread"),
            if counts.is_empty() {
                "nothing to do".to_string()
            } else {
                counts.join(", ")
            }
        );
        for (column, values) in &self.tallies {
            if let Json::Object(values) = values {
                if !values.is_empty() {
                    let parts: Vec<String> = values
                        .iter()
                        .map(|(k, v)| format!("{k} {}", json_text(v)))
                        .collect();
                    text.push_str(&format!("{column}: {}\n", parts.join(", ")));
                }
            }
        }
        let l = &self.latency_us;
        text.push_str(&format!(
            "latency µs: p50 {:.1}, p90 {:.1}, p99 {:.1}, max {:.1}; cpu {:.3} s\n",
            l.p50, l.p90, l.p99, l.max, self.cpu_seconds
        ));
        for (name, value) in &self.settings {
            if name == "note" {
                text.push_str(&format!("note: {}\n", json_text(value)));
            }
        }
        text
    }
}

fn json_text(value: &Json) -> String {
    match value {
        Json::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn round(x: f64, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (x * scale).round() / scale
}

/// Whether a count is zero (left out of `summary.json`).
fn is_zero(count: &u64) -> bool {
    *count == 0
}
