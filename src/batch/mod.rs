//! The generic job runner: reads records from corpora, processes them on a rayon pool and
//! hands the results back in input order.
//!
//! A puzzle takes part by implementing [`Job`]: how to read one record, what its result
//! columns are, and which statuses it can give. Everything else — inputs (files, standard
//! input, `.gz`, CSV), bounded-memory streaming, the ordered parallel fan-out, timing,
//! per-record errors and the run's statistics — lives here and is shared by every puzzle.

mod boundary;
mod bounded;
mod cell;
mod clock;
mod cutter;
mod decode;
mod gzip;
mod input;
mod interrupt;
mod progress;
mod published;
mod recycled;
mod runner;
mod shard;
mod stats;

pub(crate) use boundary::{lines as physical_lines, text_lines, without_line_ending};
pub use bounded::{
    byte_size, read_bounded, read_file_bounded, read_regular_file_bounded, Bounded,
    BoundedReadError, MIB,
};
pub use cell::{push_csv_field, push_micros, push_number, push_one_decimal, push_short, Cell};
pub(crate) use cutter::without_byte_order_mark;
pub(crate) use input::{open_unless_stopped, with_stdin_rewound};
pub use input::{
    os_text, path_text, resolved, same_file, stdin_was_closed, Excerpt, InputFormat, InputSpec,
    DEFAULT_MAX_LINE_BYTES,
};
pub use interrupt::Interruption;
pub use progress::{NoProgress, Progress, TerminalProgress};
pub use recycled::Recycled;
pub use runner::{
    parse_threads, run, PreparedRun, ResumePoint, RowFormatter, RowSink, RunOptions, ThreadsError,
    MAX_THREADS,
};
pub use shard::{Shard, ShardError};
pub use stats::{
    keep_if_slow, latency_histogram, LatencySummary, RunStats, SlowRecord, SLOWEST_KEPT,
};

use thiserror::Error;

use crate::budget::{Meter, OverBudget};

/// `n` and `noun`, the noun plural unless `n` is 1: `1 byte`, `2 bytes`.
pub fn counted(n: usize, noun: &str) -> String {
    let s = if n == 1 { "" } else { "s" };
    format!("{n} {noun}{s}")
}

/// Column names as messages list them, joined by `sep`: a name that is empty or holds a
/// control character (a line break) is quoted with escapes, a long one is cut, and the
/// list is cut after [`COLUMNS_LISTED`] names.
///
/// ```
/// use puzzlebench::batch::columns_in_words;
/// let names = ["a".to_string(), "b\nc".to_string(), String::new()];
/// assert_eq!(columns_in_words(&names, ", "), r#"a, "b\nc", """#);
/// ```
pub fn columns_in_words(names: &[String], sep: &str) -> String {
    let mut words: Vec<String> = (names.iter().take(COLUMNS_LISTED))
        .map(
            |name| match name.is_empty() || name.chars().any(char::is_control) {
                true => Excerpt::quoted(name).to_string(),
                false => Excerpt::plain(name).to_string(),
            },
        )
        .collect();
    if names.len() > COLUMNS_LISTED {
        words.push(format!("… ({} in all)", names.len()));
    }
    words.join(sep)
}

/// Column names a message lists, at most.
pub const COLUMNS_LISTED: usize = 24;

/// One cell of a result row.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// No value (an empty CSV cell, `null` in JSON Lines).
    Empty,
    /// A text value.
    Text(String),
    /// A whole number.
    Int(u64),
    /// A whole number that may be negative (a score).
    Signed(i64),
    /// A measurement, written with one decimal (e.g. microseconds).
    Float(f64),
}

impl Value {
    /// The value as CSV cell text.
    pub fn to_text(&self) -> String {
        match self {
            Value::Empty => String::new(),
            Value::Text(text) => text.clone(),
            Value::Int(n) => n.to_string(),
            Value::Signed(n) => n.to_string(),
            Value::Float(x) => format!("{x:.1}"),
        }
    }
}

/// One record read from an input: a line, or the fields of a CSV row. It borrows its
/// text from the chunk of input it was read from, so reading a record allocates nothing.
#[derive(Debug, Clone, Copy)]
pub struct Record<'a> {
    /// 1-based physical line number in its input.
    pub line: u64,
    /// What the record holds.
    pub content: RecordContent<'a>,
}

/// The content of a [`Record`].
#[derive(Debug, Clone, Copy)]
pub enum RecordContent<'a> {
    /// A line of a line-format input, without its line ending.
    Line(&'a str),
    /// The fields of a CSV row.
    Fields(&'a [&'a str]),
    /// A record that could not be read as text; the message says why and where.
    Unreadable(&'a str),
}

/// The result of processing one record.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// One of the job's [`statuses`](Job::statuses).
    pub status: &'static str,
    /// Whether the record counts as a failure for the exit code.
    pub failed: bool,
    /// Why the record failed, or empty.
    pub error: String,
    /// One value per entry of [`Job::columns`].
    pub values: Vec<Value>,
}

/// The status the runner gives a record the job could not read.
pub const ERROR_STATUS: &str = "error";

/// The status of a record whose search was stopped by its budget.
pub const TIMEOUT_STATUS: &str = "timeout";

impl Outcome {
    /// A record whose search was stopped by its budget: status [`TIMEOUT_STATUS`], a
    /// failure, the limit in the error message, and `values` holding the effort spent.
    pub fn over_budget(over: OverBudget, values: Vec<Value>) -> Outcome {
        Outcome {
            status: TIMEOUT_STATUS,
            failed: true,
            error: over.to_string(),
            values,
        }
    }
}

/// What a puzzle implements to run on the batch runner.
pub trait Job: Sync {
    /// Per-input facts worked out once from the CSV header (or for line inputs), such as
    /// which column holds the puzzle.
    type Layout: Send + Sync;
    /// Mutable per-worker state reused from record to record (solver buffers and the like).
    type Worker: Send;

    /// The job's own result columns for inputs of this layout, between the runner's
    /// `status` and `error` columns (every input of a run must give the same columns).
    fn columns(&self, layout: &Self::Layout) -> Vec<String>;
    /// The statuses the job gives, in the order summaries list them (the runner adds
    /// [`ERROR_STATUS`] for unreadable records).
    fn statuses(&self) -> Vec<&'static str>;
    /// Columns whose non-empty values the summary counts (e.g. `expected` → match/mismatch).
    fn tallied_columns(&self) -> Vec<&'static str> {
        Vec::new()
    }
    /// Settings that describe the run in summaries, as `(name, value)` pairs.
    fn settings(&self) -> Vec<(String, String)> {
        Vec::new()
    }
    /// Whether a row of `status` with `error` in its `error` cell is a failure: what the
    /// record's [`Outcome::failed`] (or [`Written::failed`]) said, read back from its row
    /// (a resumed run counts the rows it found in its results file). By default a row
    /// with an error; a job whose failures leave the error cell empty says so here.
    fn failed_row(&self, _status: &str, error: &str) -> bool {
        !error.is_empty()
    }
    /// Works out the layout of `input` from its CSV header (`None` for line inputs). An
    /// error stops the run: the input cannot be processed at all.
    fn layout(
        &self,
        input: &InputSpec,
        header: Option<&[String]>,
    ) -> Result<Self::Layout, JobError>;
    /// The columns of a CSV input (indexes into its header) that the job reads itself.
    /// The runner carries every other column into the row unchanged, after `status`, so
    /// that a record keeps its key (a game id) wherever it was processed. By default the
    /// first column.
    fn read_columns(&self, _layout: &Self::Layout) -> Vec<usize> {
        vec![0]
    }
    /// Makes fresh per-worker state.
    fn new_worker(&self) -> Self::Worker;
    /// Processes one record. An `Err` is a record that cannot be read: its row gets status
    /// [`ERROR_STATUS`] and the error's message. A search counts its nodes (or guesses) on
    /// `meter`, the record's budget, and ends with [`Outcome::over_budget`] when it is
    /// spent.
    fn process(
        &self,
        worker: &mut Self::Worker,
        layout: &Self::Layout,
        record: &Record<'_>,
        meter: &mut Meter,
    ) -> Result<Outcome, JobError>;
    /// Takes back an outcome once its row is written, so that the next records can reuse
    /// its buffers (its values and their text) instead of allocating their own. By
    /// default it is dropped.
    fn recycle(&self, _worker: &mut Self::Worker, _outcome: Outcome) {}
    /// [`process`](Self::process) for a run whose rows are CSV and carry no input
    /// columns: the job may append the row's cells from `status` to `error` itself, each
    /// after a `,`, as CSV (see [`push_csv_field`]), and give [`Written`] what the
    /// runner counts; or give an [`Outcome`], whose row the runner writes (what it had
    /// appended is then dropped). By default it gives [`process`](Self::process)'s
    /// outcome. For the easy records of a large corpus the generic row, built as values
    /// and cells and formatted cell by cell, cost more than the solving
    /// (docs/performance.md, "Fourth round").
    fn process_csv(
        &self,
        worker: &mut Self::Worker,
        layout: &Self::Layout,
        record: &Record<'_>,
        meter: &mut Meter,
        _row: &mut Vec<u8>,
    ) -> Result<CsvRow, JobError> {
        self.process(worker, layout, record, meter)
            .map(CsvRow::Outcome)
    }
}

/// What [`Job::process_csv`] did with a record.
#[derive(Debug, Clone, PartialEq)]
pub enum CsvRow {
    /// The row's cells were appended.
    Written(Written),
    /// The row is this outcome's, written by the runner.
    Outcome(Outcome),
}

/// What the runner counts of a row a job wrote itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    /// One of the job's [`statuses`](Job::statuses).
    pub status: &'static str,
    /// Whether the record counts as a failure for the exit code.
    pub failed: bool,
    /// The row's value of the job's one tallied column, if it has one and the value is
    /// not empty (a job that writes rows itself has at most one tallied column).
    pub tally: Option<&'static str>,
}

/// Why a job cannot process a record, or an input with a given header.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum JobError {
    /// The input layer could not read the record as text; the message says why and where.
    #[error("{0}")]
    Unreadable(String),
    /// A CSV header lacks a column the job was told to read.
    #[error(
        "no column {name:?}; the header has {}",
        columns_in_words(header, ", ")
    )]
    MissingColumn {
        /// The column asked for.
        name: String,
        /// The header's columns.
        header: Vec<String>,
    },
    /// A CSV row is too short to have one of the job's columns.
    #[error(
        "the row has {fields} fields, so no column {} (field {position})",
        Excerpt::quoted(name)
    )]
    MissingField {
        /// Fields in the row.
        fields: usize,
        /// The column's name.
        name: String,
        /// Its 1-based position.
        position: usize,
    },
    /// The input is of a format the job does not read (e.g. CSV for a line format).
    #[error("{0}")]
    UnsupportedInput(&'static str),
    /// A CSV input's first row is a record, not a header: the file has none, and its first
    /// record would be taken for the column names and get no row.
    #[error(
        "its first row is a record, not a header (column {column} holds {}): a CSV input \
         needs a header row naming its columns, such as {example}",
        Excerpt::quoted(value)
    )]
    HeaderIsARecord {
        /// The 1-based column that reads as a record.
        column: usize,
        /// What it holds.
        value: String,
        /// A header the job reads, in words.
        example: &'static str,
    },
    /// The record is not a valid record of the puzzle: what is wrong, and where.
    #[error("{0}")]
    Invalid(String),
    /// The job failed on the record through a fault of its own.
    #[error("internal error while processing this record (please report it)")]
    Internal,
}

impl JobError {
    /// The column named `name` (ASCII case ignored) of `header`.
    pub fn find_column(header: &[String], name: &str) -> Result<usize, JobError> {
        header
            .iter()
            .position(|h| h.eq_ignore_ascii_case(name))
            .ok_or_else(|| JobError::MissingColumn {
                name: name.to_string(),
                header: header.to_vec(),
            })
    }

    /// Refuses a `header` whose column `index`, which the job reads by its position (no
    /// column name was given or found), holds what `is_record` reads as a record: such a
    /// file has no header row. `example` is a header the job reads, in words.
    pub fn refuse_record_as_header(
        header: &[String],
        index: usize,
        is_record: impl Fn(&str) -> bool,
        example: &'static str,
    ) -> Result<(), JobError> {
        match header.get(index) {
            Some(value) if is_record(value.trim_ascii()) => Err(JobError::HeaderIsARecord {
                column: index + 1,
                value: value.clone(),
                example,
            }),
            _ => Ok(()),
        }
    }

    /// Field `index` (named `name`) of a CSV row.
    pub fn field<'r>(fields: &[&'r str], index: usize, name: &str) -> Result<&'r str, JobError> {
        fields
            .get(index)
            .copied()
            .ok_or_else(|| JobError::MissingField {
                fields: fields.len(),
                name: name.to_string(),
                position: index + 1,
            })
    }
}

/// An input's name as messages give it: `-` is standard input, and an empty name is
/// said to be one (`cannot read : …` said nothing).
fn input_in_words(path: &str) -> String {
    match path {
        "-" => "standard input".to_string(),
        "" => "\"\" (an empty file name)".to_string(),
        name => name.to_string(),
    }
}

/// Why a run could not proceed.
#[derive(Debug, Error)]
pub enum BatchError {
    /// The results file of a resumed run does not end where its inputs say it should.
    #[error(
        "cannot resume: the results file's row {rows} is for {expected}, but record {rows} \
         of the inputs is {found}; was the file made from these inputs, in this order?"
    )]
    ResumeMismatch {
        /// Rows in the results file.
        rows: u64,
        /// Where its last row says its record was.
        expected: String,
        /// Where that record is in the inputs.
        found: String,
    },
    /// The last row of a resumed run's results file carries another value of an input
    /// column than the inputs' record at its place.
    #[error(
        "cannot resume: the results file's row {rows} has {column} {in_file}, but record \
         {rows} of the inputs ({place}) has {column} {in_input}; was the file made from \
         these inputs?"
    )]
    ResumeContent {
        /// Rows in the results file.
        rows: u64,
        /// The carried input column that differs.
        column: String,
        /// Its value in the results file's last row, quoted (at most about 80 characters).
        in_file: String,
        /// Its value in the inputs' record, quoted.
        in_input: String,
        /// Where that record is in the inputs.
        place: String,
    },
    /// The results file of a resumed run, written without a header, has rows of another
    /// width than the run gives.
    #[error(
        "cannot resume: the results file's rows have {fields} fields, but this command gives \
         {} columns ({})",
        expected.len(),
        columns_in_words(expected, ",")
    )]
    ResumeWidth {
        /// Fields in the file's last row.
        fields: usize,
        /// The run's columns.
        expected: Vec<String>,
    },
    /// The last row of a resumed run's results file does not say where it was.
    #[error("cannot resume: {why}")]
    ResumeRow {
        /// What is wrong with the row.
        why: String,
    },
    /// The results file of a resumed run has other columns than the run gives.
    #[error(
        "cannot resume: the results file's columns are {}, but this command gives {}",
        columns_in_words(found, ","),
        columns_in_words(expected, ",")
    )]
    ResumeColumns {
        /// The file's columns.
        found: Vec<String>,
        /// The run's.
        expected: Vec<String>,
    },
    /// The results file of a resumed run has more rows than the inputs have records.
    #[error(
        "cannot resume: the results file has {} but the inputs have only {}",
        counted(*.rows as usize, "row"),
        counted(*.records as usize, "record")
    )]
    ResumeTooLong {
        /// Rows in the results file.
        rows: u64,
        /// Records in the inputs.
        records: u64,
    },
    /// An input could not be opened or read.
    #[error("cannot read {}: {source}", input_in_words(path))]
    Input {
        /// The input as named by the user.
        path: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// Reading an input failed part way (a truncated or corrupt `.gz`): every whole record
    /// before the failure was processed, and the inputs after it were not read.
    #[error(
        "cannot read {} {}: {source}; {}{}",
        input_in_words(path),
        if *line > 1 { format!("after line {}", line - 1) } else { "from its start".to_string() },
        if *line > 1 { "the records before were processed" } else { "none of its records was processed" },
        if not_read.is_empty() { String::new() } else { format!(", the inputs after it were not read ({})", not_read.join(", ")) }
    )]
    InputBroken {
        /// The input as named by the user.
        path: String,
        /// The 1-based line where reading failed.
        line: u64,
        /// The underlying error.
        source: std::io::Error,
        /// The inputs after it, which were not read.
        not_read: Vec<String>,
    },
    /// An input's header does not fit the job.
    #[error("{path}: {source}")]
    Layout {
        /// The input as named by the user.
        path: String,
        /// What is wrong.
        source: JobError,
    },
    /// An input gives other result columns than the input that fixed the run's columns.
    #[error(
        "{}: its result columns ({}) differ from those of {} ({}); run them apart",
        input_in_words(path),
        columns_in_words(columns, ", "),
        input_in_words(fixed_by),
        columns_in_words(fixed, ", ")
    )]
    Columns {
        /// The input as named by the user.
        path: String,
        /// Its columns.
        columns: Vec<String>,
        /// The input that fixed the run's columns.
        fixed_by: String,
        /// The run's columns.
        fixed: Vec<String>,
    },
    /// The output file is one of the inputs: writing it would destroy the input.
    #[error("the output {output} is the input {input}: writing it would destroy the input; name another output file")]
    OutputIsInput {
        /// The output as named by the user.
        output: String,
        /// The input it is.
        input: String,
    },
    /// Standard input was named more than once.
    #[error("standard input (-) can be named only once")]
    StdinTwice,
    /// Standard input was named (or no file was), but it is closed.
    #[error("standard input is closed: name a FILE or open it")]
    StdinClosed,
    /// The results could not be written.
    #[error("cannot write results: {0}")]
    Output(#[source] std::io::Error),
    /// The worker pool could not be started.
    #[error("cannot start {threads} worker threads: {message}")]
    Pool {
        /// Threads asked for.
        threads: usize,
        /// What went wrong.
        message: String,
    },
    /// A worker stopped on a bug outside any one record's job (a record's own failure is
    /// an error row instead); the rows before its chunk are written, the rest are not.
    #[error(
        "internal error: a worker stopped in the records from {input} line {line} on ({message}); \
         the rows before them are written, a resumed run (--resume) goes on from there"
    )]
    WorkerFailed {
        /// The input the failed chunk was read from.
        input: String,
        /// The line of the chunk's first record.
        line: u64,
        /// The worker's panic message.
        message: String,
    },
}

impl BatchError {
    /// Whether `--resume` refused the results file (it does not fit this run): the run
    /// then stopped before writing a row, and the file is as it was.
    pub fn refuses_resume(&self) -> bool {
        matches!(
            self,
            BatchError::ResumeMismatch { .. }
                | BatchError::ResumeContent { .. }
                | BatchError::ResumeWidth { .. }
                | BatchError::ResumeRow { .. }
                | BatchError::ResumeColumns { .. }
                | BatchError::ResumeTooLong { .. }
        )
    }
}
