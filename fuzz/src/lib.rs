//! Helpers shared by the fuzz targets: scratch files, running a batch job in-process, and
//! an independent model of which lines of an input are records, so that the targets can
//! check rows out = records in rather than only "no panic".

use std::io;
use std::path::PathBuf;

use puzzlebench::batch::{
    self, BatchError, InputFormat, InputSpec, Job, NoProgress, RowSink, RunOptions, RunStats, Value,
};

pub mod model;

/// Writes `bytes` to a scratch file of this process named `name` and gives its path.
pub fn scratch_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("puzzlebench-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("a scratch file");
    path
}

/// A sink that keeps every row.
#[derive(Debug, Default)]
pub struct Collected {
    /// The column names given to `begin`.
    pub columns: Vec<String>,
    /// The rows, in the order written.
    pub rows: Vec<Vec<Value>>,
    /// Whether `finish` was called.
    pub finished: bool,
}

impl RowSink for Collected {
    fn begin(&mut self, columns: &[String]) -> io::Result<()> {
        assert!(self.columns.is_empty(), "begin called twice");
        self.columns = columns.to_vec();
        Ok(())
    }

    fn write_row(&mut self, row: &[Value]) -> io::Result<()> {
        assert!(!self.finished, "a row after finish");
        assert_eq!(row.len(), self.columns.len(), "a row of another width");
        self.rows.push(row.to_vec());
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        self.finished = true;
        Ok(())
    }
}

/// The result of one in-process run.
pub struct Ran {
    /// What `batch::run` returned.
    pub result: Result<RunStats, BatchError>,
    /// The rows it wrote.
    pub sink: Collected,
}

impl Ran {
    /// `(line, status, error)` of every row (one input: `line` is the first column).
    pub fn line_status_error(&self) -> Vec<(u64, String, String)> {
        let columns = &self.sink.columns;
        if columns.is_empty() {
            // The run failed before its first row.
            assert!(self.sink.rows.is_empty());
            return Vec::new();
        }
        let at = |name: &str| columns.iter().position(|c| c == name).expect(name);
        let (line, status, error) = (at("line"), at("status"), at("error"));
        self.sink
            .rows
            .iter()
            .map(|row| {
                let Value::Int(number) = row[line] else {
                    panic!("line is not a number: {row:?}")
                };
                (number, row[status].to_text(), row[error].to_text())
            })
            .collect()
    }

    /// Every row as text without its `micros` column (the only one that changes from run
    /// to run, with Connect Four's `nodes`, which depends on what a worker's table holds).
    pub fn stable_rows(&self) -> Vec<Vec<String>> {
        let keep: Vec<usize> = (0..self.sink.columns.len())
            .filter(|&i| !matches!(self.sink.columns[i].as_str(), "micros" | "nodes"))
            .collect();
        self.sink
            .rows
            .iter()
            .map(|row| keep.iter().map(|&i| row[i].to_text()).collect())
            .collect()
    }
}

/// Runs `job` in-process over the file at `path`, read as `format`.
pub fn run_file<J: Job>(
    job: &J,
    path: &std::path::Path,
    format: InputFormat,
    max_line_bytes: usize,
    options: &RunOptions,
) -> Ran {
    let input = InputSpec::new(path.to_str().expect("a UTF-8 path"), Some(format))
        .with_max_line_bytes(max_line_bytes);
    let mut sink = Collected::default();
    let result = batch::run(job, &[input], &mut sink, &NoProgress, options);
    Ran { result, sink }
}

/// Checks what every row of every run keeps: a failed row says why, in a message of
/// bounded length, and its status is one the job gives.
pub fn check_row_texts(ran: &Ran, statuses: &[&str]) {
    for (line, status, error) in ran.line_status_error() {
        assert!(
            statuses.contains(&status.as_str()) || status == "error" || status == "timeout",
            "line {line}: unknown status {status:?}"
        );
        if status == "error" || status == "timeout" {
            assert!(
                !error.is_empty(),
                "line {line}: a {status} row without a reason"
            );
        }
        // About 80 quoted characters at most, plus the message around them.
        assert!(
            error.chars().count() < 600,
            "line {line}: a {}-character error: {error:?}",
            error.chars().count()
        );
    }
}
