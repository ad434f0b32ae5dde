//! The ordered parallel pipeline: the calling thread cuts the inputs into chunks of raw
//! bytes, the rayon pool decodes and processes chunks, and the calling thread writes the
//! results back in input order.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::io;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossbeam_channel::unbounded;

use smallvec::SmallVec;

use super::cell::LineNumbers;
use super::clock::RecordClock;
use super::cutter::{ChunkCutter, RawChunk};
use super::decode::decode;
use super::published::{PublishedRows, RowAppender};
use super::stats::{keep_if_slow, LatencyCounts, SlowRecord, SLOWEST_KEPT};
use super::{
    push_csv_field, push_micros, BatchError, Cell, CsvRow, Excerpt, InputFormat, InputSpec, Job,
    JobError, Outcome, Progress, RecordContent, RunStats, Shard, Value, Written, ERROR_STATUS,
    TIMEOUT_STATUS,
};
use crate::budget::{Budget, Meter, OverBudget};

/// Where result rows go (a CSV or JSON Lines writer, or a collector in tests).
pub trait RowSink {
    /// Called once before any row, with the column names.
    fn begin(&mut self, columns: &[String]) -> io::Result<()>;
    /// One row, values in column order.
    fn write_row(&mut self, row: &[Value]) -> io::Result<()>;
    /// Called once after the last row.
    fn finish(&mut self) -> io::Result<()>;
    /// Pushes the rows written so far out of any buffer: called while the run waits for
    /// a slow record, so that finished rows are not held back.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
    /// A formatter giving exactly the bytes this sink writes for a row, if it writes rows
    /// as bytes (asked after [`begin`](RowSink::begin)). With one, the runner's workers
    /// format the rows and the sink gets them through
    /// [`write_formatted`](RowSink::write_formatted).
    fn formatter(&self) -> Option<Arc<dyn RowFormatter>> {
        None
    }
    /// Writes consecutive rows made by this sink's [`formatter`](RowSink::formatter).
    fn write_formatted(&mut self, _rows: &[u8]) -> io::Result<()> {
        Err(io::Error::other("this sink takes rows as values only"))
    }
}

/// Turns result rows into the bytes a [`RowSink`] writes, on any thread.
pub trait RowFormatter: Send + Sync {
    /// Appends `row` (cells in column order), formatted, to `out`.
    fn format_row(&self, row: &[Cell<'_>], out: &mut Vec<u8>);
    /// Whether the rows are CSV as [`push_csv_field`](super::push_csv_field) and
    /// [`push_micros`](super::push_micros) write them, with `,` between cells and `\n`
    /// after the row: then a job may write a row's cells itself
    /// ([`Job::process_csv`]).
    fn is_csv(&self) -> bool {
        false
    }
}

/// How to run a job.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Worker threads; 0 means one per core.
    pub threads: usize,
    /// Records per chunk handed to a worker, at most. Chunks are sized to about
    /// [`CHUNK_TARGET`] of work from the time records have been taking: large enough to make
    /// the hand-off cheap next to the work, small enough to share even short inputs of slow
    /// records among the workers.
    pub chunk_records: usize,
    /// Chunks read but not yet written, at most, per worker thread: this bounds memory.
    pub chunks_in_flight_per_thread: usize,
    /// Stop after this many records in all (the first ones, in input order).
    pub max_records: Option<u64>,
    /// Each record's budget: a record over it gets a [`TIMEOUT_STATUS`] row.
    pub budget: Budget,
    /// Set (by a signal handler, say) to stop the run: no record is read after it is set,
    /// the records already read are processed and written, and the statistics say
    /// [`interrupted`](RunStats::interrupted).
    pub stop: Option<Arc<AtomicBool>>,
    /// Resume an earlier run whose results file already holds the rows of the first
    /// records: those records are read (to check where they end) but not processed.
    pub resume: Option<ResumePoint>,
    /// Process only this shard of the records (see [`Shard`]); rows keep their lines.
    /// `max_records` and a resume point count records before and within the shard:
    /// the first `max_records` of the inputs are sharded, and the results file of a
    /// resumed shard holds that shard's rows.
    pub shard: Option<Shard>,
}

/// Where an earlier, interrupted run stopped: its results file has these columns and one
/// row for each of the first `rows` records, the last of them from `last_line` of input
/// `last_file`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResumePoint {
    /// The file's columns: they must be this run's. None for a file written without a
    /// header ([`headerless`](Self::headerless)): the run's own are taken, and `last_file`
    /// and `last_line` read from the last row by them.
    pub columns: Vec<String>,
    /// Rows already written.
    pub rows: u64,
    /// The `file` column of the last row (runs with several inputs), as inputs are named.
    pub last_file: Option<String>,
    /// The `line` column of the last row.
    pub last_line: u64,
    /// Every value of the last row, in the order of `columns` (none without rows): the
    /// input columns it carries must be the record's at its place.
    pub last_row: Vec<String>,
}

impl ResumePoint {
    /// The point after `rows` rows of `columns`, the last of them `last_row` (empty
    /// without rows): where the run stopped is read from its `line` and `file` columns.
    pub fn after(columns: Vec<String>, rows: u64, last_row: Vec<String>) -> Result<Self, String> {
        let field = |name: &str| {
            let index = columns.iter().position(|c| c == name)?;
            last_row.get(index).cloned()
        };
        if !columns.iter().any(|c| c == "line") {
            return Err("its rows have no line column: not a results file".into());
        }
        let last_line = match (rows, field("line")) {
            (0, _) => 0,
            (_, Some(line)) => line
                .parse()
                .map_err(|_| format!("row {rows}'s line is {line:?}, not a line number"))?,
            (_, None) => return Err(format!("row {rows} has no line")),
        };
        let last_file = field("file").filter(|_| rows > 0);
        Ok(ResumePoint {
            columns,
            rows,
            last_file,
            last_line,
            last_row: if rows > 0 { last_row } else { Vec::new() },
        })
    }

    /// The point after `rows` rows of a file written without a header, the last of them
    /// `last_row`: its columns are known only to the run (see [`columns`](Self::columns)).
    pub fn headerless(rows: u64, last_row: Vec<String>) -> Self {
        ResumePoint {
            columns: Vec::new(),
            rows,
            last_file: None,
            last_line: 0,
            last_row,
        }
    }

    /// This point with the run's `columns`, when its file had none (written without a
    /// header): its last row must have as many fields.
    fn with_columns(&self, columns: &[String]) -> Result<Self, BatchError> {
        if !self.columns.is_empty() {
            return Ok(self.clone());
        }
        if self.last_row.len() != columns.len() {
            return Err(BatchError::ResumeWidth {
                fields: self.last_row.len(),
                expected: columns.to_vec(),
            });
        }
        ResumePoint::after(columns.to_vec(), self.rows, self.last_row.clone())
            .map_err(|why| BatchError::ResumeRow { why })
    }
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            threads: 0,
            chunk_records: 1024,
            chunks_in_flight_per_thread: 16,
            max_records: None,
            budget: Budget::UNLIMITED,
            stop: None,
            resume: None,
            shard: None,
        }
    }
}

/// Whole records of one input, as raw bytes, for a worker to decode and process.
struct Chunk<L> {
    seq: u64,
    file: usize,
    /// Index of the chunk's first record over all inputs, for shards.
    first_index: u64,
    layout: Arc<InputLayout<L>>,
    format: InputFormat,
    raw: RawChunk,
    /// Leading records (of the shard) already in the results file (a resumed run): read,
    /// not processed.
    skip: u64,
    /// Whether the last record skipped is the resume point's.
    ends_skip: bool,
}

/// One record's result, for the sink's `write_row`.
struct ProcessedRow {
    line: u64,
    /// The input's other CSV columns, carried through.
    carried: Vec<Value>,
    outcome: Outcome,
    nanos: u64,
}

/// What the runner knows of one input's layout: the job's own, and the CSV columns that
/// are carried through.
struct InputLayout<L> {
    job: L,
    /// Indexes of the carried columns in the input's header, and their names.
    carried: Vec<usize>,
    carried_names: Vec<String>,
}

/// A chunk's rows: as values, or already formatted by the sink's formatter.
enum ChunkRows {
    Values(Vec<ProcessedRow>),
    Formatted(Vec<u8>),
}

/// What a chunk adds to the run's statistics, counted on the worker.
struct ChunkCounts {
    statuses: Vec<(&'static str, u64)>,
    failed: u64,
    /// For each tallied column, each value's count, in order of first appearance.
    tallies: Vec<Vec<(Cow<'static, str>, u64)>>,
    /// Each record's processing time.
    nanos: Vec<u64>,
    /// The chunk's slowest records.
    slowest: Vec<SlowRecord>,
    /// The time of the run's slowest records' last when the chunk was handed out (0
    /// before they are known): a record no slower cannot be among them, and is not kept
    /// (keeping each chunk's first 20 records was half of a fast record's counting).
    slow_floor: u64,
}

impl ChunkCounts {
    fn new(tallied: usize, records: usize, slow_floor: u64) -> Self {
        ChunkCounts {
            statuses: Vec::new(),
            failed: 0,
            tallies: vec![Vec::new(); tallied],
            nanos: Vec::with_capacity(records),
            slowest: Vec::new(),
            slow_floor,
        }
    }

    fn count(&mut self, outcome: &Outcome, at: (usize, u64), nanos: u64, tallied: &[usize]) {
        self.count_status(outcome.status, outcome.failed, at, nanos);
        let mut digits = itoa::Buffer::new();
        for (values, &column) in self.tallies.iter_mut().zip(tallied) {
            let value = match outcome.values.get(column) {
                None | Some(Value::Empty) => continue,
                Some(Value::Text(text)) => Cow::Borrowed(text.as_str()),
                Some(Value::Int(n)) => Cow::Borrowed(digits.format(*n)),
                Some(value) => Cow::Owned(value.to_text()),
            };
            match values.iter_mut().find(|(v, _)| *v == value) {
                Some((_, count)) => *count += 1,
                None => values.push((Cow::Owned(value.into_owned()), 1)),
            }
        }
    }

    /// [`count`](Self::count) for a row the job wrote itself.
    fn count_written(&mut self, written: Written, at: (usize, u64), nanos: u64) {
        self.count_status(written.status, written.failed, at, nanos);
        if let (Some(value), Some(values)) = (written.tally, self.tallies.first_mut()) {
            match values.iter_mut().find(|(v, _)| same_text(v, value)) {
                Some((_, count)) => *count += 1,
                None => values.push((Cow::Borrowed(value), 1)),
            }
        }
    }

    /// Counts a record's status, failure and time.
    fn count_status(&mut self, status: &'static str, failed: bool, at: (usize, u64), nanos: u64) {
        let (file, line) = at;
        if nanos > self.slow_floor {
            keep_if_slow(
                &mut self.slowest,
                SlowRecord {
                    file,
                    line,
                    status,
                    nanos,
                },
            );
        }
        match self.statuses.iter_mut().find(|(s, _)| same_text(s, status)) {
            Some((_, count)) => *count += 1,
            None => self.statuses.push((status, 1)),
        }
        self.failed += u64::from(failed);
        self.nanos.push(nanos);
    }

    fn add_to(self, stats: &mut RunStats, latency: &mut LatencyCounts) {
        stats.records += self.nanos.len() as u64;
        stats.failed += self.failed;
        for (status, count) in self.statuses {
            stats.count_status(status, count);
        }
        for (column, values) in self.tallies.into_iter().enumerate() {
            for (value, count) in values {
                stats.count_tally(column, &value, count);
            }
        }
        for nanos in self.nanos {
            latency.record(nanos);
        }
        for record in self.slowest {
            keep_if_slow(&mut stats.slowest, record);
        }
    }
}

/// Whether two texts are equal, their addresses compared before their bytes: a job's
/// statuses and tallied values are its constants, and a call to `memcmp` per record was
/// 2% of a Connect Four validation run.
fn same_text(a: &str, b: &str) -> bool {
    (std::ptr::eq(a.as_ptr(), b.as_ptr()) && a.len() == b.len()) || a == b
}

/// Rows of one chunk for the writer: all of them, or (taken early) those done so far.
struct Processed {
    seq: u64,
    file: usize,
    output: ChunkOutput,
    /// Whether the run's stop flag ended the chunk before its last record: no row of a
    /// later chunk may be written then, or the results file would have a gap.
    cut_short: bool,
    /// Set when the chunk's worker stopped on a bug: the run ends when the chunk's turn
    /// to be written comes, with every row before it written.
    failure: Option<BatchError>,
}

impl Processed {
    /// The stand-in for a chunk whose worker panicked outside any record's job.
    fn failed(seq: u64, file: usize, tallied: usize, failure: BatchError) -> Processed {
        Processed {
            seq,
            file,
            output: ChunkOutput {
                rows: ChunkRows::Values(Vec::new()),
                counts: ChunkCounts::new(tallied, 0, 0),
                resumed_after: None,
            },
            cut_short: true,
            failure: Some(failure),
        }
    }
}

/// A chunk's rows for the writer, with what they add to the statistics: all of them when
/// the chunk is done, or (taken early) those done so far, whose counts come with the rest.
struct ChunkOutput {
    rows: ChunkRows,
    counts: ChunkCounts,
    /// With [`Chunk::ends_skip`], the last record skipped: its line and the text of the
    /// input columns its row carries.
    resumed_after: Option<(u64, Vec<String>)>,
}

impl ChunkOutput {
    /// Whether there is anything for the writer.
    fn is_empty(&self) -> bool {
        let no_rows = match &self.rows {
            ChunkRows::Values(rows) => rows.is_empty(),
            ChunkRows::Formatted(bytes) => bytes.is_empty(),
        };
        no_rows && self.counts.nanos.is_empty() && self.resumed_after.is_none()
    }
}

/// What a chunk's worker hands the writer before the chunk is done, under a lock: rows as
/// values (for a sink without a formatter) and the resume point.
#[derive(Default)]
struct HeldRows {
    values: Vec<ProcessedRow>,
    resumed_after: Option<(u64, Vec<String>)>,
}

/// The writer's side of a chunk still being processed: the rows done so far, taken when
/// the chunk is next in order and a slow record holds it back, so that no finished row
/// waits for a slow record after it.
struct EarlyRows {
    held: Arc<Mutex<HeldRows>>,
    formatted: Arc<PublishedRows>,
}

/// The worker's side of [`EarlyRows`].
struct ChunkSink {
    held: Arc<Mutex<HeldRows>>,
    formatted: RowAppender,
}

/// Locks a chunk's held rows. A panic while holding the lock (only a job's, caught and
/// turned into an error row) leaves whole rows: they are still sound.
fn lock(held: &Mutex<HeldRows>) -> std::sync::MutexGuard<'_, HeldRows> {
    held.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The rows done so far (formatted ones from `take_formatted`, else the held values) and
/// the resume point, all taken under `held`'s lock: the worker sets the resume point under
/// it before publishing any row, so rows never go out without the resume point before
/// them, whichever of the writer (taking early) and the worker (finishing) comes first.
fn take_rows(
    held: &Mutex<HeldRows>,
    formatted: bool,
    take_formatted: impl FnOnce() -> Vec<u8>,
) -> (ChunkRows, Option<(u64, Vec<String>)>) {
    let mut held = lock(held);
    let rows = if formatted {
        ChunkRows::Formatted(take_formatted())
    } else {
        ChunkRows::Values(std::mem::take(&mut held.values))
    };
    (rows, held.resumed_after.take())
}

/// The columns of a run's rows, and how one record's result fills them: `file` (only when
/// there are several inputs), `line`, `status`, the input's carried CSV columns, the job's
/// own columns, `error` and `micros`.
struct RowSchema {
    with_file: bool,
    /// The carried columns, fixed before the run by the first input that has any among the
    /// first input and the regular files: every input carries the same ones, or none (a
    /// line input), whose cells are then empty.
    carried: Vec<String>,
    job_columns: Vec<String>,
    /// The input that fixed the columns, named in the message when another differs.
    fixed_by: String,
}

impl RowSchema {
    /// The column names, in row order.
    fn names(&self) -> Vec<String> {
        let mut names = Vec::with_capacity(self.carried.len() + self.job_columns.len() + 5);
        if self.with_file {
            names.push("file".to_string());
        }
        names.push("line".into());
        names.push("status".into());
        names.extend(self.carried.iter().cloned());
        names.extend(self.job_columns.iter().cloned());
        names.push("error".into());
        names.push("micros".into());
        names
    }

    /// Fills `row` with one record's result, in the order of [`names`](Self::names).
    fn fill(&self, row: &mut Vec<Value>, file: Option<&str>, processed: ProcessedRow) {
        row.clear();
        if let Some(file) = file.filter(|_| self.with_file) {
            row.push(Value::Text(file.to_string()));
        }
        row.push(Value::Int(processed.line));
        row.push(Value::Text(processed.outcome.status.to_string()));
        row.extend(processed.carried);
        row.extend(processed.outcome.values);
        row.push(Value::Text(processed.outcome.error));
        row.push(Value::Float(processed.nanos as f64 / 1000.0));
    }

    /// Appends the carried cells of a record's CSV `fields`, read at `indexes` of its
    /// input's header: empty for an input that carries nothing (a line input), a record
    /// without fields, or a field the record does not have.
    fn carried_cells<'r>(
        &self,
        indexes: &[usize],
        fields: &[&'r str],
        row: &mut impl Extend<Cell<'r>>,
    ) {
        if self.carried.is_empty() {
            return;
        }
        match indexes.is_empty() {
            false => row.extend(
                (indexes.iter()).map(|&i| fields.get(i).map_or(Cell::Empty, |f| Cell::Text(f))),
            ),
            true => row.extend(std::iter::repeat_n(Cell::Empty, self.carried.len())),
        }
    }

    /// One record's row as cells, in the order of [`names`](Self::names): the record's
    /// line, and its CSV fields carried at the header's `indexes`.
    fn cells<'r>(
        &self,
        file: Option<&'r str>,
        (line, indexes, fields): (u64, &[usize], &[&'r str]),
        outcome: &'r Outcome,
        nanos: u64,
    ) -> Row<'r> {
        let mut row = Row::new();
        if let Some(file) = file.filter(|_| self.with_file) {
            row.push(Cell::Text(file));
        }
        row.push(Cell::Int(line));
        row.push(Cell::Text(outcome.status));
        self.carried_cells(indexes, fields, &mut row);
        row.extend(outcome.values.iter().map(Value::cell));
        row.push(Cell::Text(&outcome.error));
        row.push(Cell::Micros(nanos));
        row
    }

    /// Checks that an input's rows fit this schema: the same job columns, and the same
    /// carried columns or none.
    fn check(
        &self,
        input: &InputSpec,
        carried: &[String],
        job_columns: Vec<String>,
    ) -> Result<(), BatchError> {
        let carried_fits = carried.is_empty() || carried == self.carried;
        if carried_fits && job_columns == self.job_columns {
            return Ok(());
        }
        let row = |carried: &[String], job: &[String]| [carried, job].concat();
        Err(BatchError::Columns {
            path: input.display_name(),
            columns: row(carried, &job_columns),
            fixed_by: self.fixed_by.clone(),
            fixed: row(&self.carried, &self.job_columns),
        })
    }
}

/// Byte buffers used again rather than freed. Chunk bytes go from the calling thread to a
/// worker, formatted rows from a worker to the calling thread, and each large buffer freed
/// on another thread than the one that made it cost the calling thread more in `malloc`
/// than all its other work on Kaggle-style CSV.
struct BufferPool(Mutex<Vec<Vec<u8>>>);

impl BufferPool {
    /// Buffers kept, at most.
    const KEPT: usize = 64;

    /// A buffer with room if one was given back. Its length is how many of its bytes hold
    /// values, leftovers of its earlier use: [`ChunkCutter::recycle`] reads into them
    /// without zeroing them first; other users empty it.
    fn take(&self) -> Vec<u8> {
        let buffer = self.0.lock().ok().and_then(|mut buffers| buffers.pop());
        buffer.unwrap_or_default()
    }

    /// Gives a buffer back, as it is.
    fn give(&self, buffer: Vec<u8>) {
        if let Ok(mut buffers) = self.0.lock() {
            if buffers.len() < Self::KEPT {
                buffers.push(buffer);
            }
        }
    }
}

/// A row's cells, on the stack for rows of up to 16 columns.
type Row<'r> = SmallVec<[Cell<'r>; 16]>;

/// What every chunk's processing shares.
struct Shared<'a, J: Job> {
    job: &'a J,
    inputs: &'a [InputSpec],
    /// Worker states not in use.
    workers: Mutex<Vec<J::Worker>>,
    /// Nanoseconds per record in the last chunk processed (0 before the first).
    pace: &'a AtomicU64,
    /// The rows' columns.
    schema: &'a RowSchema,
    /// Indexes of the job's tallied columns.
    tallied: &'a [usize],
    /// The sink's formatter, if it has one.
    formatter: Option<Arc<dyn RowFormatter>>,
    buffers: &'a BufferPool,
    /// Each record's budget.
    budget: Budget,
    /// The shard processed, if not all records.
    shard: Option<Shard>,
    /// The run's stop flag: set, it ends the chunks being processed, and the search of
    /// the record being processed, whose row is then not written.
    stop: Option<&'a Arc<AtomicBool>>,
}

/// Runs `job` over `inputs`, writing one row per record to `sink` in input order.
///
/// Rows have the columns `file` (only when there are several inputs), `line`, `status`, the
/// job's own columns, `error` and `micros`. Records that cannot be read become `error` rows;
/// the run stops only when an input cannot be opened or read, an input's header does not
/// fit the job, or the sink fails.
pub fn run<J: Job>(
    job: &J,
    inputs: &[InputSpec],
    sink: &mut dyn RowSink,
    progress: &dyn Progress,
    options: &RunOptions,
) -> Result<RunStats, BatchError> {
    Pipeline::open(job, inputs, options)?.run(sink, progress, options.resume.as_ref())
}

/// A run set up but not started: its pool made, its first input opened and the columns of
/// its rows settled from the inputs' headers (see [`run`]). Opening one before the results
/// file lets a run refused for its inputs leave that file as it was.
pub struct PreparedRun<'a, J: Job>(Pipeline<'a, J>);

impl<'a, J: Job> PreparedRun<'a, J> {
    /// Sets up the run of `job` over `inputs`; `options.resume` is not used (the resume
    /// point comes with [`run`](Self::run)).
    pub fn open(
        job: &'a J,
        inputs: &'a [InputSpec],
        options: &'a RunOptions,
    ) -> Result<Self, BatchError> {
        Pipeline::open(job, inputs, options).map(PreparedRun)
    }

    /// Processes every record, writing the rows to `sink` in input order, after the
    /// `resume` point's rows if given.
    pub fn run(
        self,
        sink: &mut dyn RowSink,
        progress: &dyn Progress,
        resume: Option<&ResumePoint>,
    ) -> Result<RunStats, BatchError> {
        self.0.run(sink, progress, resume)
    }
}

/// A run set up: the pool, the first input opened, the row schema and the statistics.
struct Pipeline<'a, J: Job> {
    job: &'a J,
    inputs: &'a [InputSpec],
    options: &'a RunOptions,
    pool: Arc<rayon::ThreadPool>,
    bytes_read: Arc<AtomicU64>,
    /// The first input, opened here: its layout fixes the columns before any row.
    first: Option<Opened<J::Layout>>,
    schema: RowSchema,
    /// Indexes of the job's tallied columns among its own.
    tallied: Vec<usize>,
    stats: RunStats,
}

impl<'a, J: Job> Pipeline<'a, J> {
    fn open(
        job: &'a J,
        inputs: &'a [InputSpec],
        options: &'a RunOptions,
    ) -> Result<Self, BatchError> {
        let pool = worker_pool(options.threads)?;
        let bytes_read = Arc::new(AtomicU64::new(0));
        let first = match inputs.first() {
            Some(input) => Some(open_input(
                job,
                input,
                &bytes_read,
                options.stop.as_deref(),
            )?),
            None => None,
        };
        let (carried, job_columns, fixed_by) = match &first {
            Some((_, layout)) => {
                let first_columns = (layout.carried_names.clone(), job.columns(&layout.job));
                fixed_columns(job, inputs, first_columns, options.stop.as_deref())?
            }
            None => (Vec::new(), Vec::new(), String::new()),
        };
        let tallied: Vec<usize> = job
            .tallied_columns()
            .iter()
            .filter_map(|name| job_columns.iter().position(|c| c == name))
            .collect();
        let tallied_names: Vec<&str> = tallied.iter().map(|&i| job_columns[i].as_str()).collect();
        let mut stats = RunStats::new(&job.statuses(), &tallied_names, pool.current_num_threads());
        stats.count_status(ERROR_STATUS, 0);
        if options.budget.is_limited() {
            stats.count_status(TIMEOUT_STATUS, 0);
        }
        let schema = RowSchema {
            with_file: inputs.len() > 1,
            carried,
            job_columns,
            fixed_by,
        };
        Ok(Pipeline {
            job,
            inputs,
            options,
            pool,
            bytes_read,
            first,
            schema,
            tallied,
            stats,
        })
    }

    /// Processes every record, writing the rows to `sink` in input order.
    fn run(
        mut self,
        sink: &mut dyn RowSink,
        progress: &dyn Progress,
        resume: Option<&ResumePoint>,
    ) -> Result<RunStats, BatchError> {
        let names = self.schema.names();
        let resume = match resume {
            Some(point) => Some(point.with_columns(&names)?),
            None => None,
        };
        if let Some(resume) = &resume {
            if resume.columns != names {
                return Err(BatchError::ResumeColumns {
                    found: resume.columns.clone(),
                    expected: names,
                });
            }
        }
        sink.begin(&names).map_err(BatchError::Output)?;
        let total_bytes = self.inputs.iter().map(InputSpec::size).sum::<Option<u64>>();
        progress.start(total_bytes);
        let started = Instant::now();
        self.stats.started = std::time::SystemTime::now();
        self.stats.shard = self.options.shard;
        let cpu_started = process_cpu_time();
        let pace = AtomicU64::new(0);
        let buffers = BufferPool(Mutex::new(Vec::new()));
        let threads = self.stats.threads;
        let mut reading = Reading {
            buffers: &buffers,
            job: self.job,
            inputs: self.inputs,
            current: self
                .first
                .take()
                .map(|(cutter, layout)| (0, cutter, layout)),
            next_file: 0,
            schema: &self.schema,
            // Chunks hold about the same work whatever the share of records kept.
            chunk_records: (self.options.chunk_records.max(1))
                .saturating_mul(self.options.shard.map_or(1, |s| s.count().min(64) as usize)),
            records_cut: 0,
            shard: self.options.shard,
            threads,
            left: self.options.max_records.unwrap_or(u64::MAX),
            bytes_read: Arc::clone(&self.bytes_read),
            pace: &pace,
            seq: 0,
            stop: self.options.stop.clone(),
            stopped: false,
            idle: false,
            skip_left: resume.as_ref().map_or(0, |r| r.rows),
        };
        let shared = Shared {
            job: self.job,
            inputs: self.inputs,
            workers: Mutex::new(Vec::new()),
            pace: &pace,
            schema: &self.schema,
            tallied: &self.tallied,
            formatter: sink.formatter(),
            buffers: &buffers,
            budget: self.options.budget,
            shard: self.options.shard,
            stop: self.options.stop.as_ref(),
        };
        let mut writer = Writer {
            sink,
            progress,
            stats: &mut self.stats,
            schema: &self.schema,
            inputs: self.inputs,
            buffers: &buffers,
            bytes_read: &self.bytes_read,
            row: Vec::new(),
            // The header is out once the first wait is long enough to flush.
            unflushed: true,
            resume: resume.as_ref(),
            closed: false,
            latency: LatencyCounts::default(),
        };
        let in_flight = threads.max(1) * self.options.chunks_in_flight_per_thread.max(1);
        let (read_result, write_result) =
            fan_out(&self.pool, &mut reading, &shared, &mut writer, in_flight);
        progress.finish();
        let cut_short = writer.closed;
        let mut latency = std::mem::take(&mut writer.latency);
        latency.drain_into(&mut self.stats.latency_ns);
        write_result?;
        read_result?;
        if let Some(resume) = &resume {
            if reading.skip_left > 0 && !reading.stopped {
                return Err(BatchError::ResumeTooLong {
                    rows: resume.rows,
                    records: resume.rows - reading.skip_left,
                });
            }
        }
        sink.finish().map_err(BatchError::Output)?;
        self.stats.interrupted = reading.stopped || cut_short;
        self.stats.resumed_rows = resume.as_ref().map_or(0, |resume| resume.rows);
        self.stats.wall = started.elapsed();
        self.stats.cpu = process_cpu_time().saturating_sub(cpu_started);
        Ok(self.stats)
    }
}

/// Writes processed chunks to the sink and counts them.
struct Writer<'a, 's> {
    sink: &'s mut dyn RowSink,
    progress: &'a dyn Progress,
    stats: &'a mut RunStats,
    schema: &'a RowSchema,
    inputs: &'a [InputSpec],
    buffers: &'a BufferPool,
    bytes_read: &'a AtomicU64,
    row: Vec<Value>,
    /// Whether rows were written since the sink was last flushed.
    unflushed: bool,
    /// The point a resumed run starts after.
    resume: Option<&'a ResumePoint>,
    /// Whether a chunk cut short by the stop flag was written: nothing more is.
    closed: bool,
    /// The records' times, added to the statistics' histogram at the end of the run.
    latency: LatencyCounts,
}

/// `line 12 of a.txt`, or `line 12`.
fn describe_place(file: Option<&str>, line: u64) -> String {
    match file {
        Some(file) => format!("line {line} of {file}"),
        None => format!("line {line}"),
    }
}

impl Writer<'_, '_> {
    /// The time of the run's slowest records' last once there are as many as are kept,
    /// else 0: a record no slower cannot join them.
    fn slow_floor(&self) -> u64 {
        let slowest = &self.stats.slowest;
        match slowest.last() {
            Some(last) if slowest.len() == SLOWEST_KEPT => last.nanos,
            _ => 0,
        }
    }

    /// Flushes the sink if rows were written since the last flush.
    fn flush(&mut self) -> Result<(), BatchError> {
        if self.unflushed {
            self.unflushed = false;
            self.sink.flush().map_err(BatchError::Output)?;
        }
        Ok(())
    }

    fn write(&mut self, done: Processed) -> Result<(), BatchError> {
        if self.closed {
            // An earlier chunk was cut short by the stop flag: its later records have no
            // row, so neither may any record after them.
            return Ok(());
        }
        self.closed = done.cut_short;
        if let (Some((line, carried)), Some(resume)) = (&done.output.resumed_after, self.resume) {
            let file = self.inputs[done.file].display_name();
            let same_file = resume.last_file.as_ref().is_none_or(|f| *f == file);
            let place = describe_place(self.schema.with_file.then_some(&file), *line);
            if *line != resume.last_line || !same_file {
                return Err(BatchError::ResumeMismatch {
                    rows: resume.rows,
                    expected: describe_place(resume.last_file.as_deref(), resume.last_line),
                    found: place,
                });
            }
            let in_file = |name: &str| {
                let index = resume.columns.iter().position(|c| c == name)?;
                resume.last_row.get(index)
            };
            for (name, in_input) in self.schema.carried.iter().zip(carried) {
                let in_file = in_file(name).map_or("", String::as_str);
                if in_file != in_input {
                    return Err(BatchError::ResumeContent {
                        rows: resume.rows,
                        column: name.clone(),
                        in_file: Excerpt::quoted(in_file).to_string(),
                        in_input: Excerpt::quoted(in_input).to_string(),
                        place,
                    });
                }
            }
        }
        self.write_rows(done).map_err(BatchError::Output)
    }

    fn write_rows(&mut self, done: Processed) -> io::Result<()> {
        self.unflushed = true;
        done.output.counts.add_to(self.stats, &mut self.latency);
        match done.output.rows {
            ChunkRows::Formatted(bytes) => {
                self.sink.write_formatted(&bytes)?;
                self.buffers.give(bytes);
            }
            ChunkRows::Values(rows) => {
                let file = self
                    .schema
                    .with_file
                    .then(|| self.inputs[done.file].display_name());
                for processed in rows {
                    self.schema.fill(&mut self.row, file.as_deref(), processed);
                    self.sink.write_row(&self.row)?;
                }
            }
        }
        self.progress
            .update(self.stats.records, self.bytes_read.load(Ordering::Relaxed));
        Ok(())
    }
}

/// Processed chunks put back in input order.
struct InOrder {
    /// Chunks done but not yet written, by sequence number.
    pending: BTreeMap<u64, Processed>,
    /// The sequence number of the next chunk to write.
    next: u64,
    /// Chunks cut but not yet written.
    unwritten: usize,
    /// The early rows of every chunk not yet written, in order: `(seq, file, rows)`.
    outputs: VecDeque<(u64, usize, EarlyRows)>,
}

impl InOrder {
    /// Notes a chunk handed to a worker, and gives the sink its worker fills.
    fn spawned(&mut self, seq: u64, file: usize) -> ChunkSink {
        let held = Arc::new(Mutex::new(HeldRows::default()));
        let (formatted, appender) = PublishedRows::new();
        let early = EarlyRows {
            held: Arc::clone(&held),
            formatted,
        };
        self.outputs.push_back((seq, file, early));
        self.unwritten += 1;
        ChunkSink {
            held,
            formatted: appender,
        }
    }

    /// Writes the rows done so far of the next chunk in order, which is still being
    /// processed: a slow record holds it back.
    fn write_early(
        &mut self,
        writer: &mut Writer<'_, '_>,
        formatted: bool,
    ) -> Result<(), BatchError> {
        let Some((seq, file, early)) = self.outputs.front() else {
            return Ok(());
        };
        if *seq != self.next || self.pending.contains_key(seq) {
            return Ok(());
        }
        let (rows, resumed_after) =
            take_rows(&early.held, formatted, || early.formatted.take_early());
        let output = ChunkOutput {
            rows,
            counts: ChunkCounts::new(0, 0, 0),
            resumed_after,
        };
        if output.is_empty() {
            return Ok(());
        }
        writer.write(Processed {
            seq: *seq,
            file: *file,
            output,
            cut_short: false,
            failure: None,
        })
    }

    /// Takes `done` and writes every chunk that is next in input order.
    fn write_ready(
        &mut self,
        done: Processed,
        writer: &mut Writer<'_, '_>,
    ) -> Result<(), BatchError> {
        self.pending.insert(done.seq, done);
        while let Some(mut done) = self.pending.remove(&self.next) {
            self.next += 1;
            self.unwritten -= 1;
            self.outputs.pop_front();
            if let Some(failure) = done.failure.take() {
                return Err(failure);
            }
            writer.write(done)?;
        }
        Ok(())
    }
}

/// The most worker threads a run takes: far more than any machine's cores, few enough
/// that a mistyped count fails at once instead of starting tens of thousands of threads.
pub const MAX_THREADS: usize = 1024;

/// A `--threads` value that is not 0 to [`MAX_THREADS`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{text:?}: a number of threads from 0 (one per core) to {MAX_THREADS}")]
pub struct ThreadsError {
    /// The value given.
    pub text: String,
}

/// A `--threads` value: 0 (one per core) to [`MAX_THREADS`].
pub fn parse_threads(text: &str) -> Result<usize, ThreadsError> {
    text.parse::<usize>()
        .ok()
        .filter(|&threads| threads <= MAX_THREADS)
        .ok_or_else(|| ThreadsError {
            text: text.to_string(),
        })
}

/// How long the writer waits for the next chunk in order before it flushes the rows
/// written so far.
const FLUSH_AFTER: Duration = Duration::from_millis(100);

/// How long the calling thread polls for a finished chunk before it sleeps, when a core is
/// left for it (fewer workers than cores).
///
/// Asleep, it was woken once per chunk, and a run over 100 easy 16×16 Sudokus on one
/// worker spent about as long in going to sleep and waking up (`futex`) as in its
/// records: a small file's run is a few chunks, each done within microseconds of the
/// last. Polling for longer than a chunk takes would only burn the spare core.
const SPIN_FOR: Duration = Duration::from_micros(100);

/// A message from `rx` if one comes within `spin` (polled, yielding), else `None`.
fn spin_for<T>(rx: &crossbeam_channel::Receiver<T>, spin: Duration) -> Option<T> {
    if spin.is_zero() {
        return None;
    }
    let started = Instant::now();
    loop {
        if let Ok(message) = rx.try_recv() {
            return Some(message);
        }
        if started.elapsed() >= spin {
            return None;
        }
        std::thread::yield_now();
    }
}

/// Cuts chunks on the calling thread, processes them on the pool and writes them back in
/// input order, keeping at most `in_flight` chunks unwritten. Returns the reading's and
/// the writing's results.
///
/// The calling thread both cuts chunks and writes rows, with no thread of its own to start
/// or stop: cutting is only a scan for line ends, and a run over a few records cost more in
/// thread start-up than in work.
fn fan_out<J: Job>(
    pool: &rayon::ThreadPool,
    reading: &mut Reading<'_, J>,
    shared: &Shared<'_, J>,
    writer: &mut Writer<'_, '_>,
    in_flight: usize,
) -> (Result<(), BatchError>, Result<(), BatchError>) {
    let (done_tx, done_rx) = unbounded::<Processed>();
    let mut read_result = Ok(());
    let mut write_result = Ok(());
    let mut order = InOrder {
        pending: BTreeMap::new(),
        next: 0,
        unwritten: 0,
        outputs: VecDeque::new(),
    };
    let formatted = shared.formatter.is_some();
    let spare_core = pool.current_num_threads() < available_cores();
    let spin = if spare_core { SPIN_FOR } else { Duration::ZERO };
    pool.in_place_scope(|pool_scope| {
        'run: loop {
            while order.unwritten < in_flight {
                let chunk = match reading.next_chunk() {
                    Ok(Some(chunk)) => chunk,
                    Ok(None) => break,
                    Err(error) => {
                        read_result = Err(error);
                        break;
                    }
                };
                let sink = order.spawned(chunk.seq, chunk.file);
                let slow_floor = writer.slow_floor();
                // Dropping the rest of a faulty record may read for long (an endless line
                // runs until Ctrl-C): its error row and every row before it go out first.
                let faulty = chunk.raw.fault.is_some();
                let done_tx = done_tx.clone();
                pool_scope.spawn(move |_| {
                    let (seq, file) = (chunk.seq, chunk.file);
                    let first_line = chunk.raw.first_line;
                    // A panic here (a bug outside a record's job, whose own panics become
                    // error rows) must still answer, or the writer would wait for ever.
                    let processed = catch_unwind(AssertUnwindSafe(|| {
                        process_chunk(shared, chunk, sink, slow_floor)
                    }))
                    .unwrap_or_else(|panic| {
                        let failure = BatchError::WorkerFailed {
                            input: shared.inputs[file].display_name(),
                            line: first_line,
                            message: panic_message(panic.as_ref()),
                        };
                        Processed::failed(seq, file, shared.tallied.len(), failure)
                    });
                    // The receiver lives until every spawned chunk is done.
                    let _ = done_tx.send(processed);
                });
                if faulty {
                    while order.unwritten > 0 {
                        let done = done_rx.recv().expect("a sender is kept here");
                        if let Err(error) = order.write_ready(done, writer) {
                            write_result = Err(error);
                            break 'run;
                        }
                    }
                    if let Err(error) = writer.flush() {
                        write_result = Err(error);
                        break 'run;
                    }
                }
                // Rows go out while reading goes on.
                while let Ok(done) = done_rx.try_recv() {
                    if let Err(error) = order.write_ready(done, writer) {
                        write_result = Err(error);
                        break 'run;
                    }
                }
            }
            if reading.idle {
                // The input has nothing ready: what is done is shown now, not when the
                // next chunk fills.
                if let Err(error) = writer.flush() {
                    write_result = Err(error);
                    break;
                }
                if order.unwritten == 0 {
                    // The next read waits for bytes (at most 100 ms): no busy loop.
                    continue;
                }
            } else if order.unwritten == 0 {
                break;
            }
            let spun = spin_for(&done_rx, spin);
            let done = match spun.map_or_else(|| done_rx.recv_timeout(FLUSH_AFTER), Ok) {
                Ok(done) => done,
                Err(_) => {
                    // A slow record holds the next rows back: every row before it goes
                    // out, those of its own chunk too, and again while it runs.
                    let early = order
                        .write_early(writer, formatted)
                        .and_then(|()| writer.flush());
                    if let Err(error) = early {
                        write_result = Err(error);
                        break;
                    }
                    continue;
                }
            };
            if let Err(error) = order.write_ready(done, writer) {
                write_result = Err(error);
                break;
            }
        }
    });
    (read_result, write_result)
}

/// The cores this process may run on (looked up once).
fn available_cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The worker pool for `threads` threads (0: one per core), built on first use and kept
/// for the process's later runs. A benchmark repeats runs of a few microseconds on small
/// inputs, where starting the pool's threads every time outweighed the work itself.
fn worker_pool(threads: usize) -> Result<Arc<rayon::ThreadPool>, BatchError> {
    if threads > MAX_THREADS {
        return Err(BatchError::Pool {
            threads,
            message: format!("at most {MAX_THREADS} threads"),
        });
    }
    static POOLS: Mutex<Vec<(usize, Arc<rayon::ThreadPool>)>> = Mutex::new(Vec::new());
    let mut pools = POOLS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, pool)) = pools.iter().find(|(n, _)| *n == threads) {
        return Ok(Arc::clone(pool));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("puzzlebench-worker-{i}"))
        .build()
        .map_err(|error| BatchError::Pool {
            threads,
            message: error.to_string(),
        })?;
    let pool = Arc::new(pool);
    pools.push((threads, Arc::clone(&pool)));
    Ok(pool)
}

/// The run's carried and job columns, and the input that fixed them, checked before any
/// row is written: the first input's job columns, and the carried columns of the first
/// input that has any, among the first input (`first_columns`) and every other input that
/// is a regular file (standard input too, when redirected from one), whose header is read
/// here and again when its turn comes. A pipe cannot be read twice: it is checked when its
/// turn comes.
fn fixed_columns<J: Job>(
    job: &J,
    inputs: &[InputSpec],
    first_columns: (Vec<String>, Vec<String>),
    stop: Option<&AtomicBool>,
) -> Result<(Vec<String>, Vec<String>, String), BatchError> {
    let mut schema = RowSchema {
        with_file: false,
        carried: first_columns.0,
        job_columns: first_columns.1,
        fixed_by: inputs[0].display_name(),
    };
    let regular_file = |input: &InputSpec| {
        (input.path.as_ref()).is_some_and(|path| std::fs::metadata(path).is_ok_and(|m| m.is_file()))
    };
    let header = |input| open_input(job, input, &Arc::new(AtomicU64::new(0)), stop);
    for input in &inputs[1..] {
        let opened = match &input.path {
            Some(_) if regular_file(input) => header(input),
            Some(_) => continue,
            // Standard input redirected from a file is put back where it was.
            None => match super::with_stdin_rewound(|| header(input)) {
                Some(opened) => opened,
                None => continue,
            },
        };
        let (_, layout) = opened?;
        let columns = job.columns(&layout.job);
        if schema.carried.is_empty() && !layout.carried_names.is_empty() {
            // Inputs already seen carry nothing: this one fixes the carried columns, and
            // its job columns are checked against the first input's.
            schema.check(input, &[], columns)?;
            schema.carried = layout.carried_names.clone();
            schema.fixed_by = input.display_name();
        } else {
            schema.check(input, &layout.carried_names, columns)?;
        }
    }
    Ok((schema.carried, schema.job_columns, schema.fixed_by))
}

/// An input opened, with its layout.
type Opened<L> = (ChunkCutter, Arc<InputLayout<L>>);

/// Opens `input` and works out its layout from its header: the job's, and the columns
/// the job does not read, which are carried through. When `stop` is set before the
/// input's first bytes (or its header) come, it is taken as empty.
fn open_input<J: Job>(
    job: &J,
    input: &InputSpec,
    bytes_read: &Arc<AtomicU64>,
    stop: Option<&AtomicBool>,
) -> Result<Opened<J::Layout>, BatchError> {
    // An empty CSV file has no header (and no records): it is read as lines.
    let (cutter, header) = match input.open_chunks(Arc::clone(bytes_read), stop)? {
        Some(opened) => opened,
        None => (ChunkCutter::empty(input.format), None),
    };
    let layout = job
        .layout(input, header.as_deref())
        .map_err(|source| BatchError::Layout {
            path: input.display_name(),
            source,
        })?;
    let read = job.read_columns(&layout);
    let (carried, names): (Vec<usize>, Vec<String>) = header
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !read.contains(i))
        .unzip();
    let carried_names = unique_names(names, &job.columns(&layout));
    let layout = InputLayout {
        job: layout,
        carried,
        carried_names,
    };
    Ok((cutter, Arc::new(layout)))
}

/// Carried column names that stay apart from the row's own and from each other: a name
/// the row already has (`status`, or a job column such as `guesses` in a CSV of generated
/// puzzles) gets an `input_` prefix; if that is taken too (a header that repeats a name),
/// a number is added, `_2`, `_3` and on.
///
/// Linear in the header's columns, lookups hashed: prefixing again and again, checked
/// against a list, made a CSV header of 8,000 empty names take 100 s and a 190 MB output
/// header (its k-th name held k prefixes), and a 1 MiB header of commas never ended.
fn unique_names(carried: Vec<String>, job_columns: &[String]) -> Vec<String> {
    const RUNNER_COLUMNS: [&str; 5] = ["file", "line", "status", "error", "micros"];
    let mut taken: HashSet<String> = RUNNER_COLUMNS.iter().map(|c| c.to_string()).collect();
    taken.extend(job_columns.iter().cloned());
    // For a prefixed name already taken, the next number to try.
    let mut next_number: HashMap<String, u64> = HashMap::new();
    carried
        .into_iter()
        .map(|name| {
            let mut name = name;
            if taken.contains(&name) {
                let prefixed = format!("input_{name}");
                name = prefixed.clone();
                if taken.contains(&name) {
                    let number = next_number.entry(prefixed.clone()).or_insert(2);
                    loop {
                        name = format!("{prefixed}_{number}");
                        *number += 1;
                        if !taken.contains(&name) {
                            break;
                        }
                    }
                }
            }
            taken.insert(name.clone());
            name
        })
        .collect()
}

/// Records in the chunks cut before any record's time is known.
const FIRST_CHUNK_RECORDS: usize = 8;

/// The work a chunk should hold: with a hand-off of a few microseconds per chunk, 0.2% of
/// the time. (Fixed 256-record chunks left one of two cores idle on inputs of a few hundred
/// slow records: 100 backtracking Sudokus ran no faster on 2 threads than on 1.)
pub const CHUNK_TARGET: Duration = Duration::from_millis(2);

/// Records per chunk for records taking `nanos_per_record` each (0: not known yet).
fn chunk_size(nanos_per_record: u64, max: usize) -> usize {
    if nanos_per_record == 0 {
        return FIRST_CHUNK_RECORDS.min(max);
    }
    let fitting = CHUNK_TARGET.as_nanos() as u64 / nanos_per_record;
    (fitting as usize).clamp(1, max)
}

/// Records per chunk, at most, with about `left` records left to cut for `threads` workers
/// taking `nanos_per_record` each (0: not known yet): each chunk a share of what is left,
/// so that the last chunks get smaller and the workers finish together. (Sized by time
/// alone, a file of a hundred slow records can go out in a few large chunks, one worker
/// left with the last of them while the other waits.)
///
/// A chunk still holds a quarter of [`CHUNK_TARGET`]'s work, and one worker gets no
/// shares at all: each hand-off wakes a worker and then the writer, tens of microseconds
/// on this project's VMs, and halving the last chunks down to one record made a run over
/// 100 easy 16×16 Sudokus (2.7 µs each) take twice its records' time.
fn balanced_chunk_size(left: u64, threads: usize, nanos_per_record: u64) -> usize {
    if threads <= 1 {
        return usize::MAX;
    }
    let share = left.div_ceil(2 * threads as u64);
    let floor = (CHUNK_TARGET.as_nanos() as u64 / 4)
        .checked_div(nanos_per_record)
        .unwrap_or(0);
    usize::try_from(share.max(floor))
        .unwrap_or(usize::MAX)
        .max(1)
}

/// The input being cut: its index, cutter and layout.
type Current<L> = (usize, ChunkCutter, Arc<InputLayout<L>>);

/// Cutting the inputs into chunks, one after the other.
struct Reading<'a, J: Job> {
    job: &'a J,
    inputs: &'a [InputSpec],
    /// The input being cut (its index, cutter and layout); `None` between inputs.
    current: Option<Current<J::Layout>>,
    /// The input to open when none is being cut.
    next_file: usize,
    /// The columns every input must give.
    schema: &'a RowSchema,
    chunk_records: usize,
    /// Records cut so far over all inputs: the next chunk's first record's index.
    records_cut: u64,
    /// The shard processed, if not all records.
    shard: Option<Shard>,
    /// Worker threads.
    threads: usize,
    /// Records still to read (`max_records`).
    left: u64,
    bytes_read: Arc<AtomicU64>,
    /// Nanoseconds per record in the last chunk processed (0 before the first).
    pace: &'a AtomicU64,
    /// The next chunk's sequence number.
    seq: u64,
    buffers: &'a BufferPool,
    /// The run's stop flag, and whether it stopped the reading.
    stop: Option<Arc<AtomicBool>>,
    stopped: bool,
    /// Whether the last call found the input with nothing ready for now (an idle pipe).
    idle: bool,
    /// Records of the shard still to skip (a resumed run).
    skip_left: u64,
}

impl<J: Job> Reading<'_, J> {
    /// The next chunk of the inputs, `None` once they are all read (or after an error), or
    /// for now when the input has nothing ready ([`idle`](Self::idle) is then set).
    fn next_chunk(&mut self) -> Result<Option<Chunk<J::Layout>>, BatchError> {
        self.idle = false;
        if self.left > 0
            && self
                .stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Relaxed))
        {
            self.stopped = true;
            self.left = 0;
        }
        let result = self.cut_next();
        if !matches!(result, Ok(Some(_))) && !self.idle {
            self.left = 0;
            // A later input given up while it waited for its first bytes (a named pipe or
            // standard input whose writer is idle) was cut short by the signal, not read
            // to its end.
            if self
                .stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Relaxed))
            {
                self.stopped = true;
            }
        }
        result
    }

    fn cut_next(&mut self) -> Result<Option<Chunk<J::Layout>>, BatchError> {
        while self.left > 0 {
            let Some((file, cutter, layout)) = &mut self.current else {
                let file = self.next_file;
                let Some(input) = self.inputs.get(file) else {
                    return Ok(None);
                };
                let (cutter, layout) =
                    open_input(self.job, input, &self.bytes_read, self.stop.as_deref())?;
                let columns = self.job.columns(&layout.job);
                self.schema.check(input, &layout.carried_names, columns)?;
                self.current = Some((file, cutter, layout));
                continue;
            };
            let pace = self.pace.load(Ordering::Relaxed);
            let mut size = chunk_size(pace, self.chunk_records);
            if let Some(left) = cutter.records_left() {
                size = size.min(balanced_chunk_size(left, self.threads, pace));
            }
            let input = &self.inputs[*file];
            cutter.recycle(self.buffers.take());
            let next = cutter.next_chunk((size as u64).min(self.left), self.stop.as_deref());
            if cutter.stopped() {
                // Stopped while dropping a faulty record's endless rest: nothing more is read.
                self.stopped = true;
                return Ok(None);
            }
            if matches!(&next, Err(error) if error.kind() == io::ErrorKind::WouldBlock) {
                // An idle pipe: the run writes what is done, and asks again.
                self.idle = true;
                return Ok(None);
            }
            let Some(raw) = next.map_err(|source| BatchError::InputBroken {
                path: input.display_name(),
                line: cutter.lines_read() + 1,
                source,
                not_read: self.inputs[*file + 1..]
                    .iter()
                    .map(InputSpec::display_name)
                    .collect(),
            })?
            else {
                self.next_file = *file + 1;
                self.current = None;
                continue;
            };
            self.left -= raw.records;
            let first_index = self.records_cut;
            self.records_cut += raw.records;
            let kept = match self.shard {
                Some(shard) => shard.records_in(first_index, raw.records),
                None => raw.records,
            };
            let skip = kept.min(self.skip_left);
            self.skip_left -= skip;
            let chunk = Chunk {
                seq: self.seq,
                file: *file,
                first_index,
                layout: Arc::clone(layout),
                format: input.format,
                raw,
                skip,
                ends_skip: skip > 0 && self.skip_left == 0,
            };
            self.seq += 1;
            return Ok(Some(chunk));
        }
        Ok(None)
    }
}

/// Processes one chunk on a pool thread with a worker state borrowed from the shared stack,
/// adding each record's row to `output` as it is done; gives the rows the writer has not
/// taken early.
fn process_chunk<J: Job>(
    shared: &Shared<'_, J>,
    chunk: Chunk<J::Layout>,
    mut sink: ChunkSink,
    slow_floor: u64,
) -> Processed {
    let job = shared.job;
    let take = || shared.workers.lock().ok().and_then(|mut w| w.pop());
    let mut worker = take().unwrap_or_else(|| job.new_worker());
    let decoded = decode(&chunk.raw, chunk.format, &chunk.layout.carried);
    let field_texts = decoded.field_texts();
    let clock = RecordClock::for_chunk();
    let mut counts = ChunkCounts::new(shared.tallied.len(), decoded.len(), slow_floor);
    let formatted = shared.formatter.is_some();
    if formatted {
        sink.formatted.reuse(shared.buffers.take());
    }
    let file = shared
        .schema
        .with_file
        .then(|| shared.inputs[chunk.file].display_name());
    // Records of other shards count towards the chunk's pace: chunks are cut by records read.
    let mut other_shards = 0;
    let (mut timed, mut total_nanos) = (0u64, 0u64);
    let mut meter = match shared.stop {
        Some(stop) => Meter::stoppable(shared.budget, Arc::clone(stop)),
        None => Meter::start(shared.budget),
    };
    let stopped = || shared.stop.is_some_and(|stop| stop.load(Ordering::Relaxed));
    let mut cut_short = false;
    // Rows the job may write itself (`Job::process_csv`): CSV, with no input columns
    // carried. `row` holds one such row while it is made, outside the output's lock.
    let csv_rows =
        shared.schema.carried.is_empty() && shared.formatter.as_ref().is_some_and(|f| f.is_csv());
    let mut row = Vec::new();
    let mut line_numbers = LineNumbers::default();
    let mut last_stamp = clock.start();
    let records = decoded.records(&field_texts);
    let in_shard = records.enumerate().filter(|&(i, _)| {
        let held = shared
            .shard
            .is_none_or(|shard| shard.holds(chunk.first_index + i as u64));
        other_shards += u64::from(!held);
        held
    });
    for (n, (_, (record, fields))) in in_shard.enumerate() {
        if (n as u64) < chunk.skip {
            if chunk.ends_skip && n as u64 + 1 == chunk.skip {
                let mut cells = Vec::new();
                let carried = &chunk.layout.carried[..];
                shared.schema.carried_cells(carried, fields, &mut cells);
                let texts = cells.into_iter().map(|c| Value::from(c).to_text());
                lock(&sink.held).resumed_after = Some((record.line, texts.collect()));
            }
            continue;
        }
        if stopped() {
            cut_short = true;
            break;
        }
        if csv_rows {
            row.clear();
            if let Some(file) = &file {
                push_csv_field(file, &mut row);
                row.push(b',');
            }
            line_numbers.push(record.line, &mut row);
        }
        let outcome = match record.content {
            RecordContent::Unreadable(message) => Err(JobError::Unreadable(message.to_string())),
            _ => {
                meter.restart();
                let result = catch_unwind(AssertUnwindSafe(|| {
                    let layout = &chunk.layout.job;
                    if csv_rows {
                        job.process_csv(&mut worker, layout, &record, &mut meter, &mut row)
                    } else {
                        job.process(&mut worker, layout, &record, &mut meter)
                            .map(CsvRow::Outcome)
                    }
                }));
                result.unwrap_or_else(|_| {
                    // A bug in a job must not take the run down; the worker's state may be
                    // half-updated, so it is replaced.
                    worker = job.new_worker();
                    Err(JobError::Internal)
                })
            }
        };
        let nanos = clock.lap(&mut last_stamp);
        if meter.over() == Some(OverBudget::Interrupted) {
            // Not finished: the record has no row, and a resumed run processes it.
            cut_short = true;
            break;
        }
        timed += 1;
        total_nanos += nanos;
        let outcome = match outcome {
            Ok(CsvRow::Written(written)) => {
                row.push(b',');
                push_micros(nanos, &mut row);
                row.push(b'\n');
                counts.count_written(written, (chunk.file, record.line), nanos);
                sink.formatted.push_rows(&row);
                continue;
            }
            Ok(CsvRow::Outcome(outcome)) => outcome,
            Err(error) => error_outcome(error, shared.schema.job_columns.len()),
        };
        let carried = (record.line, &chunk.layout.carried[..], fields);
        counts.count(&outcome, (chunk.file, record.line), nanos, shared.tallied);
        match &shared.formatter {
            // Formatting here rather than in the writer: writing a result file of fast
            // records kept the calling thread as busy as a worker.
            Some(formatter) => {
                let cells = shared
                    .schema
                    .cells(file.as_deref(), carried, &outcome, nanos);
                row.clear();
                formatter.format_row(&cells, &mut row);
                drop(cells);
                sink.formatted.push_rows(&row);
                job.recycle(&mut worker, outcome);
            }
            None => {
                let mut cells = Vec::new();
                shared
                    .schema
                    .carried_cells(carried.1, carried.2, &mut cells);
                lock(&sink.held).values.push(ProcessedRow {
                    line: record.line,
                    carried: cells.into_iter().map(Value::from).collect(),
                    outcome,
                    nanos,
                });
            }
        }
    }
    if let Ok(mut stack) = shared.workers.lock() {
        stack.push(worker);
    }
    drop(field_texts);
    drop(decoded);
    shared.buffers.give(chunk.raw.bytes);
    let paced = timed + other_shards;
    if let Some(per_record) = total_nanos.checked_div(paced).filter(|_| timed > 0) {
        shared.pace.store(per_record.max(1), Ordering::Relaxed);
    }
    let ChunkSink {
        held,
        formatted: appender,
    } = sink;
    let (rows, resumed_after) = take_rows(&held, formatted, || appender.finish());
    Processed {
        seq: chunk.seq,
        file: chunk.file,
        output: ChunkOutput {
            rows,
            counts,
            resumed_after,
        },
        cut_short,
        failure: None,
    }
}

/// The text a panic was raised with, if it was a string.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|text| text.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_string())
}

fn error_outcome(error: JobError, columns: usize) -> Outcome {
    Outcome {
        status: ERROR_STATUS,
        failed: true,
        error: error.to_string(),
        values: vec![Value::Empty; columns],
    }
}

/// User plus system CPU time of this process so far.
fn process_cpu_time() -> Duration {
    // SAFETY: `getrusage` only writes into the zero-initialised struct we pass it, and
    // `rusage` is plain data for which all-zero bytes are a valid value.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_SELF, &mut usage) != 0 {
            return Duration::ZERO;
        }
        usage
    };
    let to_duration =
        |t: libc::timeval| Duration::new(t.tv_sec as u64, (t.tv_usec as u32).saturating_mul(1000));
    to_duration(usage.ru_utime) + to_duration(usage.ru_stime)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;
    use crate::batch::{NoProgress, Record};

    /// Echoes each record's text (a line, or its fields joined with `|`).
    struct Echo;

    impl Job for Echo {
        type Layout = ();
        type Worker = ();

        fn columns(&self, _layout: &()) -> Vec<String> {
            vec!["text".into()]
        }
        fn statuses(&self) -> Vec<&'static str> {
            vec!["ok"]
        }
        fn layout(&self, _input: &InputSpec, _header: Option<&[String]>) -> Result<(), JobError> {
            Ok(())
        }
        fn read_columns(&self, _layout: &()) -> Vec<usize> {
            // The tests' CSV inputs have two columns, and both are echoed.
            vec![0, 1]
        }
        fn new_worker(&self) {}
        fn process(
            &self,
            _: &mut (),
            _: &(),
            record: &Record<'_>,
            _: &mut Meter,
        ) -> Result<Outcome, JobError> {
            let text = match record.content {
                RecordContent::Line(text) => text.to_string(),
                RecordContent::Fields(fields) => fields.join("|"),
                RecordContent::Unreadable(message) => {
                    return Err(JobError::Unreadable(message.to_string()))
                }
            };
            Ok(Outcome {
                status: "ok",
                failed: false,
                error: String::new(),
                values: vec![Value::Text(text)],
            })
        }
    }

    /// Keeps `line` and `text` of every row.
    #[derive(Default)]
    struct Rows(Vec<(String, String)>);

    impl RowSink for Rows {
        fn begin(&mut self, _columns: &[String]) -> io::Result<()> {
            Ok(())
        }
        fn write_row(&mut self, row: &[Value]) -> io::Result<()> {
            self.0.push((row[0].to_text(), row[2].to_text()));
            Ok(())
        }
        fn finish(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn echo(text: &str, format: InputFormat, options: &RunOptions) -> Vec<(String, String)> {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(text.as_bytes()).unwrap();
        let input = InputSpec::new(file.path(), Some(format));
        let mut rows = Rows::default();
        run(&Echo, &[input], &mut rows, &NoProgress, options).unwrap();
        rows.0
    }

    /// [`Echo`], whose worker panics outside the record's job (in `recycle`) on `boom`.
    struct RecycleBomb;

    impl Job for RecycleBomb {
        type Layout = ();
        type Worker = ();

        fn columns(&self, layout: &()) -> Vec<String> {
            Echo.columns(layout)
        }
        fn statuses(&self) -> Vec<&'static str> {
            Echo.statuses()
        }
        fn layout(&self, input: &InputSpec, header: Option<&[String]>) -> Result<(), JobError> {
            Echo.layout(input, header)
        }
        fn read_columns(&self, layout: &()) -> Vec<usize> {
            Echo.read_columns(layout)
        }
        fn new_worker(&self) {}
        fn process(
            &self,
            worker: &mut (),
            layout: &(),
            record: &Record<'_>,
            meter: &mut Meter,
        ) -> Result<Outcome, JobError> {
            Echo.process(worker, layout, record, meter)
        }
        fn recycle(&self, _worker: &mut (), outcome: Outcome) {
            assert!(outcome.values[0].to_text() != "boom", "recycled a bomb");
        }
    }

    #[test]
    fn polling_takes_a_message_sent_meanwhile_and_gives_up_after_its_time() {
        let (tx, rx) = unbounded::<u32>();
        assert_eq!(spin_for(&rx, Duration::from_millis(5)), None);
        tx.send(7).unwrap();
        assert_eq!(
            spin_for(&rx, Duration::ZERO),
            None,
            "no polling without a spare core"
        );
        assert_eq!(spin_for(&rx, Duration::from_millis(5)), Some(7));
        let sender = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(1));
            tx.send(8).unwrap();
        });
        assert_eq!(spin_for(&rx, Duration::from_secs(10)), Some(8));
        sender.join().unwrap();
    }

    #[test]
    fn a_worker_panic_outside_the_job_ends_the_run_after_the_rows_before_it() {
        let text: String = (1..=50)
            .map(|i| {
                if i == 30 {
                    "boom\n".to_string()
                } else {
                    format!("r{i}\n")
                }
            })
            .collect();
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(text.as_bytes()).unwrap();
        let input = InputSpec::new(file.path(), Some(InputFormat::Lines));
        for threads in [1, 2] {
            let options = RunOptions {
                threads,
                chunk_records: 4,
                ..RunOptions::default()
            };
            let mut out = Vec::new();
            let mut sink = crate::report::CsvRows::new(&mut out);
            let result = run(
                &RecycleBomb,
                std::slice::from_ref(&input),
                &mut sink,
                &NoProgress,
                &options,
            );
            drop(sink);
            // The error names the line where the bomb's chunk starts (chunks of at most
            // four records, fewer as the run paces them).
            let first_line = match result {
                Err(BatchError::WorkerFailed { line, message, .. }) => {
                    assert!((27..=30).contains(&line), "{threads} threads: line {line}");
                    assert!(message.contains("recycled a bomb"), "{message}");
                    line
                }
                other => panic!("{threads} threads: {:?}", other.map(|_| ())),
            };
            let text = String::from_utf8(out).unwrap();
            let lines: Vec<&str> = text
                .lines()
                .skip(1)
                .map(|row| row.split(',').next().unwrap())
                .collect();
            // Every row before the chunk, and those of its records done before the panic
            // if the writer took them early (a panic's backtrace can outlast its wait):
            // rows 1 to k, with k from the line before the chunk's to the bomb's.
            let written: Vec<u64> = lines.iter().map(|l| l.parse().unwrap()).collect();
            let k = written.len() as u64;
            assert!(
                (first_line - 1..=30).contains(&k),
                "{threads} threads: {written:?}"
            );
            assert_eq!(written, (1..=k).collect::<Vec<_>>(), "{threads} threads");
        }
    }

    #[test]
    fn max_records_is_exact_across_chunks_and_threads() {
        let text: String = (1..=40).map(|i| format!("r{i}\n# c\n")).collect();
        for threads in [1, 2] {
            for chunk_records in [1, 2, 3, 256] {
                let options = RunOptions {
                    threads,
                    chunk_records,
                    max_records: Some(7),
                    ..RunOptions::default()
                };
                let rows = echo(&text, InputFormat::Lines, &options);
                let expected: Vec<_> = (1..=7)
                    .map(|i| ((2 * i - 1).to_string(), format!("r{i}")))
                    .collect();
                assert_eq!(
                    rows, expected,
                    "{threads} threads, {chunk_records} per chunk"
                );
            }
        }
    }

    #[test]
    fn csv_rows_keep_order_and_lines_for_every_chunk_size() {
        let mut text = String::from("a,b\n");
        for i in 0..50 {
            text.push_str(&format!("\"{i}\nx\",\"y,\"\"z\"\"\"\r\n\n"));
        }
        let expected: Vec<_> = (0..50)
            .map(|i| ((2 + 3 * i).to_string(), format!("{i}\nx|y,\"z\"")))
            .collect();
        for chunk_records in [1, 4, 256] {
            let options = RunOptions {
                threads: 2,
                chunk_records,
                ..RunOptions::default()
            };
            assert_eq!(echo(&text, InputFormat::Csv, &options), expected);
        }
    }

    #[test]
    fn chunks_hold_about_the_target_time_of_work() {
        assert_eq!(chunk_size(0, 256), FIRST_CHUNK_RECORDS);
        assert_eq!(chunk_size(0, 4), 4);
        // 1 µs records: 2,000 would fit, the maximum holds.
        assert_eq!(chunk_size(1_000, 256), 256);
        assert_eq!(chunk_size(20_000, 256), 100);
        assert_eq!(chunk_size(1_000_000, 256), 2);
        assert_eq!(chunk_size(50_000_000, 256), 1);
    }

    #[test]
    fn chunks_shrink_towards_the_end_of_an_input_but_not_too_far() {
        // One worker: no shares.
        assert_eq!(balanced_chunk_size(92, 1, 2_700), usize::MAX);
        // Two workers, slow records: a quarter of what is left each time, down to one.
        assert_eq!(balanced_chunk_size(100, 2, 5_000_000), 25);
        assert_eq!(balanced_chunk_size(11, 2, 5_000_000), 3);
        assert_eq!(balanced_chunk_size(3, 2, 5_000_000), 1);
        assert_eq!(balanced_chunk_size(0, 2, 5_000_000), 1);
        // Fast records: at least half a millisecond of work (185 records of 2.7 µs).
        assert_eq!(balanced_chunk_size(92, 2, 2_700), 185);
        assert_eq!(balanced_chunk_size(10_000, 2, 2_700), 2_500);
        // Before any record's time is known.
        assert_eq!(balanced_chunk_size(100, 2, 0), 25);
    }

    #[test]
    fn chunks_counted_above_the_slow_floor_keep_the_same_slowest_records() {
        // 40,000 records' times (a few ties among them) in chunks of 80, counted with no
        // floor and with the floor of the run so far when each chunk is handed out.
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % 5_000 + u64::from(seed.is_multiple_of(97)) * (seed >> 40)
        };
        let times: Vec<u64> = (0..40_000).map(|_| next()).collect();
        let run = |with_floor: bool| {
            let mut stats = RunStats::new(&["solved"], &[], 1);
            let mut latency = LatencyCounts::default();
            for (c, chunk) in times.chunks(80).enumerate() {
                let floor = match stats.slowest.last() {
                    Some(last) if with_floor && stats.slowest.len() == SLOWEST_KEPT => last.nanos,
                    _ => 0,
                };
                let mut counts = ChunkCounts::new(0, chunk.len(), floor);
                for (i, &nanos) in chunk.iter().enumerate() {
                    let line = (c * 80 + i + 1) as u64;
                    counts.count_status("solved", false, (0, line), nanos);
                }
                counts.add_to(&mut stats, &mut latency);
            }
            stats
        };
        let (plain, floored) = (run(false), run(true));
        assert_eq!(plain.slowest.len(), SLOWEST_KEPT);
        assert_eq!(floored.slowest, plain.slowest);
        assert_eq!(floored.records, 40_000);
        let mut expected = times.clone();
        expected.sort_unstable_by(|a, b| b.cmp(a));
        let kept: Vec<u64> = plain.slowest.iter().map(|r| r.nanos).collect();
        assert_eq!(kept, expected[..SLOWEST_KEPT]);
    }

    #[test]
    fn carried_names_never_repeat_the_rows_own() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            unique_names(
                names(&["id", "guesses", "status", "input_status"]),
                &names(&["guesses"])
            ),
            names(&["id", "input_guesses", "input_status", "input_input_status"])
        );
        // A repeated name: prefixed once, then numbered.
        assert_eq!(
            unique_names(names(&["", "", "", "", "input__2", ""]), &[]),
            names(&[
                "",
                "input_",
                "input__2",
                "input__3",
                "input_input__2",
                "input__4"
            ])
        );
        // Many columns of one name: linear names, all different.
        let many = unique_names(vec![String::new(); 100_000], &[]);
        assert_eq!(many.iter().collect::<HashSet<_>>().len(), 100_000);
        assert!(many.iter().all(|name| name.len() <= "input__100000".len()));
    }
}
