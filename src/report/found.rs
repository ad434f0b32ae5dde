//! The rows a resumed run found in its results file, read back from it and counted, so that
//! the run's report counts every record of the file as one uninterrupted run would have (and
//! the reports of resumed shards merge).
//!
//! A row gives its record's status, tallied values and time (`micros`), and the job tells
//! from its status and `error` cell whether it failed. What a row does not give is the
//! earlier run's wall and CPU time, lost with it: those stay this run's.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use crate::batch::{keep_if_slow, RunStats, SlowRecord, ERROR_STATUS, TIMEOUT_STATUS};

use super::OutputFormat;

/// The longest time a row may give, in µs: an hour, the top of the latency histogram
/// ([`crate::batch::latency_histogram`]). A record has its budget to keep it shorter; a row
/// over it was not written by a run.
const MAX_MICROS: f64 = 3_600_000_000.0;

/// How a run reads its rows back: its statuses, whether a row is a failure (the job's
/// [`Job::failed_row`](crate::batch::Job::failed_row)), and its inputs as rows name them
/// in their `file` column.
pub struct RowReading<'a> {
    /// The job's statuses ([`ERROR_STATUS`] and [`TIMEOUT_STATUS`] are known besides).
    pub statuses: &'a [&'static str],
    /// Whether a row of this status and error cell is a failure.
    pub failed: &'a dyn Fn(&str, &str) -> bool,
    /// The run's inputs, as named in rows.
    pub inputs: &'a [String],
}

/// The first `rows` rows of the results file at `path` (written in `format`, with a header
/// if CSV), counted as a run with the tallied columns of `like` would have counted them.
/// An error says which row does not read, and nothing is counted.
pub fn count_found_rows(
    path: &Path,
    format: OutputFormat,
    rows: u64,
    reading: &RowReading<'_>,
    like: &RunStats,
) -> Result<RunStats, String> {
    let RowReading {
        statuses,
        failed,
        inputs,
    } = reading;
    let tallied: Vec<&str> = like.tallies.iter().map(|(name, _)| name.as_str()).collect();
    let mut found = RunStats::new(&[], &tallied, like.threads);
    let known = |status: &str| {
        (statuses.iter().chain([&ERROR_STATUS, &TIMEOUT_STATUS]))
            .find(|known| **known == status)
            .copied()
    };
    let mut count = |number: u64, row: &dyn Fn(&str) -> Option<String>| {
        let field = |name: &str| row(name).ok_or_else(|| format!("row {number} has no {name}"));
        let status = field("status")?;
        let status = known(&status)
            .ok_or_else(|| format!("row {number}: status {status:?} is not one this run gives"))?;
        let micros = field("micros")?;
        let micros: f64 = (micros.trim().parse().ok())
            .filter(|micros: &f64| (0.0..=MAX_MICROS).contains(micros))
            .ok_or_else(|| format!("row {number}: micros {micros:?} is not a time"))?;
        let line = field("line")?;
        let line = (line.parse().ok()).ok_or_else(|| format!("row {number}: line {line:?}"))?;
        let file = row("file")
            .and_then(|name| inputs.iter().position(|input| *input == name))
            .unwrap_or(0);
        let nanos = (micros * 1000.0).round() as u64;
        found.records += 1;
        found.count_status(status, 1);
        found.failed += u64::from(failed(status, &field("error")?));
        for (column, name) in tallied.iter().enumerate() {
            if let Some(value) = row(name).filter(|value| !value.is_empty()) {
                found.count_tally(column, &value, 1);
            }
        }
        found.latency_ns.saturating_record(nanos.max(1));
        let record = SlowRecord {
            file,
            line,
            status,
            nanos,
        };
        keep_if_slow(&mut found.slowest, record);
        Ok::<(), String>(())
    };
    let file = File::open(path).map_err(|e| e.to_string())?;
    match format {
        OutputFormat::Csv => {
            let mut reader = csv::ReaderBuilder::new()
                .terminator(csv::Terminator::Any(b'\n'))
                .from_reader(BufReader::new(file));
            let columns: Vec<String> = (reader.headers().map_err(|e| e.to_string())?)
                .iter()
                .map(|column| column.trim_end_matches('\r').to_string())
                .collect();
            let mut record = csv::StringRecord::new();
            for number in 1..=rows {
                if !reader.read_record(&mut record).map_err(|e| e.to_string())? {
                    return Err(format!("it holds {} rows, not {rows}", number - 1));
                }
                let row = |name: &str| {
                    let at = columns.iter().position(|column| column == name)?;
                    record
                        .get(at)
                        .map(|value| value.trim_end_matches('\r').to_string())
                };
                count(number, &row)?;
            }
        }
        OutputFormat::Jsonl => {
            let mut lines = BufReader::new(file).lines();
            for number in 1..=rows {
                let line = (lines.next())
                    .ok_or_else(|| format!("it holds {} rows, not {rows}", number - 1))?
                    .map_err(|e| e.to_string())?;
                let object: serde_json::Map<String, serde_json::Value> =
                    serde_json::from_str(&line).map_err(|e| format!("row {number}: {e}"))?;
                let row = |name: &str| match object.get(name)? {
                    serde_json::Value::Null => Some(String::new()),
                    serde_json::Value::String(text) => Some(text.clone()),
                    other => Some(other.to_string()),
                };
                count(number, &row)?;
            }
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counted(text: &str, format: OutputFormat, rows: u64) -> Result<RunStats, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rows");
        std::fs::write(&path, text).unwrap();
        let like = RunStats::new(&["valid", "invalid"], &["winner"], 1);
        let inputs = ["a.txt".to_string(), "b.txt".to_string()];
        let reading = RowReading {
            statuses: &["valid", "invalid"],
            failed: &|_, error| !error.is_empty(),
            inputs: &inputs,
        };
        count_found_rows(&path, format, rows, &reading, &like)
    }

    #[test]
    fn rows_are_counted_as_the_run_counts_records() {
        let csv = "file,line,status,winner,error,micros\r\na.txt,1,valid,red,,2.5\r\n\
                   b.txt,4,invalid,,column full,7000.25\r\nb.txt,5,valid,yellow,,1\r\n";
        let found = counted(csv, OutputFormat::Csv, 2).unwrap();
        assert_eq!((found.records, found.failed), (2, 1));
        assert_eq!(found.status_count("valid"), 1);
        assert_eq!(found.status_count("invalid"), 1);
        assert_eq!(found.tallies, [("winner".into(), vec![("red".into(), 1)])]);
        assert_eq!(found.latency_ns.len(), 2);
        let slowest = found.slowest[0];
        assert_eq!(
            (slowest.file, slowest.line, slowest.status),
            (1, 4, "invalid")
        );
        assert_eq!(slowest.nanos, 7_000_250);
        let jsonl = "{\"file\":\"a.txt\",\"line\":1,\"status\":\"valid\",\"winner\":\"red\",\
                     \"error\":\"\",\"micros\":2.5}\n";
        let found = counted(jsonl, OutputFormat::Jsonl, 1).unwrap();
        assert_eq!((found.records, found.failed), (1, 0));
        assert_eq!(found.tallies, [("winner".into(), vec![("red".into(), 1)])]);
    }

    #[test]
    fn rows_that_do_not_read_are_said_and_nothing_is_counted() {
        let header = "line,status,winner,error,micros\n";
        for (rows, expected) in [
            ("1,valid,,,1\n", "it holds 1 rows, not 2"),
            (
                "1,won,,,1\n2,valid,,,1\n",
                "row 1: status \"won\" is not one this run gives",
            ),
            (
                "1,valid,,,1\n2,valid,,,-3\n",
                "row 2: micros \"-3\" is not a time",
            ),
            (
                "1,valid,,,1\n2,valid,,,1e308\n",
                "row 2: micros \"1e308\" is not a time",
            ),
            ("1,valid,,,1\nx,valid,,,1\n", "row 2: line \"x\""),
        ] {
            let error = counted(&format!("{header}{rows}"), OutputFormat::Csv, 2).unwrap_err();
            assert_eq!(error, expected);
        }
        let error = counted("{\"line\":1}\n", OutputFormat::Jsonl, 1).unwrap_err();
        assert_eq!(error, "row 1 has no status");
    }
}
