//! The ordered parallel pipeline: the calling thread cuts the inputs into chunks of raw
//! bytes, the rayon pool decodes and processes chunks, and the calling thread writes the
//! results back in input order.
//!
//! This module holds the run's setup and its options; the parts it drives are in
//! `reading` (cutting chunks), `process` (a worker's chunk), `writer` (rows back in input
//! order), `pool` (the threads and the loop between them), `schema` (the rows' columns)
//! and `chunks` (what travels between them).

mod chunks;
mod pool;
mod process;
mod reading;
mod schema;
#[cfg(test)]
mod tests;
mod writer;

pub use pool::{parse_threads, ThreadsError, MAX_THREADS};

use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::stats::LatencyCounts;
use super::{
    BatchError, Cell, InputSpec, Job, Progress, RunStats, Shard, Value, ERROR_STATUS,
    TIMEOUT_STATUS,
};
use crate::budget::Budget;

use chunks::BufferPool;
use pool::{fan_out, worker_pool};
use reading::Reading;
use schema::{fixed_columns, open_input, Opened, RowSchema};
use writer::Writer;

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
    /// Records per chunk handed to a worker, at most. Chunks are sized to about 2 ms of
    /// work from the time records have been taking: large enough to make the hand-off
    /// cheap next to the work, small enough to share even short inputs of slow records
    /// among the workers.
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
