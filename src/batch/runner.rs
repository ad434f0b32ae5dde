//! The ordered parallel pipeline: a reader thread cuts the inputs into chunks, the rayon
//! pool processes chunks, and the calling thread writes the results back in input order.

use std::collections::BTreeMap;
use std::io;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossbeam_channel::{unbounded, Receiver, Sender};

use super::input::RecordReader;
use super::{
    BatchError, InputSpec, Job, Outcome, Progress, Record, RecordContent, RunStats, Value,
    ERROR_STATUS,
};

/// Where result rows go (a CSV or JSON Lines writer, or a collector in tests).
pub trait RowSink {
    /// Called once before any row, with the column names.
    fn begin(&mut self, columns: &[String]) -> io::Result<()>;
    /// One row, values in column order.
    fn write_row(&mut self, row: &[Value]) -> io::Result<()>;
    /// Called once after the last row.
    fn finish(&mut self) -> io::Result<()>;
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
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            threads: 0,
            chunk_records: 256,
            chunks_in_flight_per_thread: 4,
            max_records: None,
        }
    }
}

struct Chunk<L> {
    seq: u64,
    file: usize,
    layout: Arc<L>,
    records: Vec<Record>,
}

struct ProcessedRow {
    line: u64,
    outcome: Outcome,
    nanos: u64,
}

struct Processed {
    seq: u64,
    file: usize,
    rows: Vec<ProcessedRow>,
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
    let pool = worker_pool(options.threads)?;
    let threads = pool.current_num_threads();
    let bytes_read = Arc::new(AtomicU64::new(0));
    let pace = AtomicU64::new(0);
    // The first input is opened here: its layout fixes the columns before any row.
    let first = match inputs.first() {
        Some(input) => Some(open_input(job, input, &bytes_read)?),
        None => None,
    };
    let job_columns = match &first {
        Some((_, layout)) => job.columns(layout),
        None => Vec::new(),
    };
    let tallied: Vec<usize> = job
        .tallied_columns()
        .iter()
        .filter_map(|name| job_columns.iter().position(|c| c == name))
        .collect();
    let tallied_names: Vec<&str> = tallied.iter().map(|&i| job_columns[i].as_str()).collect();
    let mut stats = RunStats::new(&job.statuses(), &tallied_names, threads);
    stats.count_status(ERROR_STATUS);
    stats
        .statuses
        .last_mut()
        .expect("error status was just added")
        .1 = 0;

    let with_file = inputs.len() > 1;
    let mut columns: Vec<String> = Vec::new();
    if with_file {
        columns.push("file".into());
    }
    columns.push("line".into());
    columns.push("status".into());
    columns.extend(job_columns.iter().cloned());
    columns.push("error".into());
    columns.push("micros".into());
    sink.begin(&columns).map_err(BatchError::Output)?;

    let total_bytes = inputs.iter().map(InputSpec::size).sum::<Option<u64>>();
    progress.start(total_bytes);
    let started = Instant::now();
    let cpu_started = process_cpu_time();

    let in_flight = threads.max(1) * options.chunks_in_flight_per_thread.max(1);
    let chunk_records = options.chunk_records.max(1);
    let (token_tx, token_rx) = unbounded::<()>();
    for _ in 0..in_flight {
        token_tx.send(()).expect("the receiver is alive");
    }
    let (chunk_tx, chunk_rx) = unbounded::<Chunk<J::Layout>>();
    let (done_tx, done_rx) = unbounded::<Processed>();
    let workers: Mutex<Vec<J::Worker>> = Mutex::new(Vec::new());

    let (read_result, write_result) = std::thread::scope(|scope| {
        let reading = Reading {
            first,
            job_columns: &job_columns,
            chunk_records,
            max_records: options.max_records.unwrap_or(u64::MAX),
            bytes_read: Arc::clone(&bytes_read),
            pace: &pace,
        };
        let reader = scope.spawn(move || read_chunks(job, inputs, reading, &token_rx, &chunk_tx));
        let job_columns = &job_columns;
        let workers = &workers;
        let pace = &pace;
        scope.spawn(move || {
            pool.in_place_scope(|pool_scope| {
                for chunk in chunk_rx.iter() {
                    let done_tx = done_tx.clone();
                    let columns = job_columns.len();
                    pool_scope.spawn(move |_| {
                        let processed = process_chunk(job, workers, pace, chunk, columns);
                        // The writer is gone only when it failed; the error is reported there.
                        let _ = done_tx.send(processed);
                    });
                }
            });
        });
        let mut write = |done: Processed| -> io::Result<()> {
            let mut row = Vec::with_capacity(columns.len());
            for processed in done.rows {
                row.clear();
                if with_file {
                    row.push(Value::Text(inputs[done.file].display_name()));
                }
                let Outcome {
                    status,
                    failed,
                    error,
                    values,
                } = processed.outcome;
                stats.records += 1;
                stats.failed += u64::from(failed);
                stats.count_status(status);
                stats.record_latency(processed.nanos);
                for (tally, &column) in tallied.iter().enumerate() {
                    match values.get(column) {
                        None | Some(Value::Empty) => {}
                        // Text as it is: a copy per row was the writer's largest cost.
                        Some(Value::Text(text)) => stats.count_tally(tally, text),
                        Some(value) => stats.count_tally(tally, &value.to_text()),
                    }
                }
                row.push(Value::Int(processed.line));
                row.push(Value::Text(status.to_string()));
                row.extend(values);
                row.push(Value::Text(error));
                row.push(Value::Float(processed.nanos as f64 / 1000.0));
                sink.write_row(&row)?;
            }
            progress.update(stats.records, bytes_read.load(Ordering::Relaxed));
            Ok(())
        };
        let mut pending = BTreeMap::new();
        let mut next = 0u64;
        let mut write_result = Ok(());
        'receive: for done in done_rx.iter() {
            pending.insert(done.seq, done);
            while let Some(done) = pending.remove(&next) {
                if let Err(error) = write(done) {
                    write_result = Err(error);
                    break 'receive;
                }
                next += 1;
                // The reader may be gone after an input error; nothing is waiting then.
                let _ = token_tx.send(());
            }
        }
        // Dropping the token sender releases a reader waiting for room after a write error.
        drop(token_tx);
        drop(done_rx);
        let read_result = reader.join().expect("the reader thread does not panic");
        (read_result, write_result)
    });
    progress.finish();
    write_result.map_err(BatchError::Output)?;
    read_result?;
    sink.finish().map_err(BatchError::Output)?;
    stats.wall = started.elapsed();
    stats.cpu = process_cpu_time().saturating_sub(cpu_started);
    Ok(stats)
}

/// The worker pool for `threads` threads (0: one per core), built on first use and kept
/// for the process's later runs. A benchmark repeats runs of a few microseconds on small
/// inputs, where starting the pool's threads every time outweighed the work itself.
fn worker_pool(threads: usize) -> Result<Arc<rayon::ThreadPool>, BatchError> {
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

/// An input opened, with its layout.
type Opened<L> = (RecordReader, Arc<L>);

/// Opens `input` and works out its layout from its header.
fn open_input<J: Job>(
    job: &J,
    input: &InputSpec,
    bytes_read: &Arc<AtomicU64>,
) -> Result<Opened<J::Layout>, BatchError> {
    let reader = input.open(Arc::clone(bytes_read))?;
    let (reader, header) =
        RecordReader::new(reader, input.format).map_err(|e| input.input_error(e))?;
    // An empty CSV file has no header (and no records): read it as lines.
    let header = header.filter(|h| !h.is_empty());
    let layout = job
        .layout(header.as_deref())
        .map_err(|message| BatchError::Layout {
            path: input.display_name(),
            message,
        })?;
    Ok((reader, Arc::new(layout)))
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

/// What the reader thread starts from.
struct Reading<'a, L> {
    /// The first input, opened by the caller.
    first: Option<Opened<L>>,
    /// The columns every input must give.
    job_columns: &'a [String],
    chunk_records: usize,
    max_records: u64,
    bytes_read: Arc<AtomicU64>,
    /// Nanoseconds per record in the last chunk processed (0 before the first).
    pace: &'a AtomicU64,
}

/// The reader thread: cuts every input into chunks, waiting for a token before each one.
fn read_chunks<J: Job>(
    job: &J,
    inputs: &[InputSpec],
    mut reading: Reading<'_, J::Layout>,
    tokens: &Receiver<()>,
    chunks: &Sender<Chunk<J::Layout>>,
) -> Result<(), BatchError> {
    let chunk_records = reading.chunk_records;
    let pace = reading.pace;
    let next_size = || chunk_size(pace.load(Ordering::Relaxed), chunk_records);
    let mut left = reading.max_records;
    let mut seq = 0u64;
    // Sends one chunk; false when the writer has stopped and reading should end.
    let mut send = |file: usize, layout: &Arc<J::Layout>, records: Vec<Record>| -> bool {
        if tokens.recv().is_err() {
            return false;
        }
        let chunk = Chunk {
            seq,
            file,
            layout: Arc::clone(layout),
            records,
        };
        seq += 1;
        chunks.send(chunk).is_ok()
    };
    for (file, input) in inputs.iter().enumerate() {
        if left == 0 {
            break;
        }
        let (mut reader, layout) = match reading.first.take() {
            Some(first) => first,
            None => {
                let opened = open_input(job, input, &reading.bytes_read)?;
                if job.columns(&opened.1) != reading.job_columns {
                    return Err(BatchError::Layout {
                        path: input.display_name(),
                        message: format!(
                            "its result columns ({}) differ from the first input's ({})",
                            job.columns(&opened.1).join(", "),
                            reading.job_columns.join(", ")
                        ),
                    });
                }
                opened
            }
        };
        let mut size = next_size();
        let mut records = Vec::with_capacity(size);
        while left > 0 {
            let Some(record) = reader.next_record().map_err(|e| input.input_error(e))? else {
                break;
            };
            left -= 1;
            records.push(record);
            if records.len() >= size {
                size = next_size();
                let full = std::mem::replace(&mut records, Vec::with_capacity(size));
                if !send(file, &layout, full) {
                    return Ok(());
                }
            }
        }
        if !records.is_empty() && !send(file, &layout, records) {
            return Ok(());
        }
    }
    Ok(())
}

/// Processes one chunk on a pool thread with a worker state borrowed from the shared stack.
fn process_chunk<J: Job>(
    job: &J,
    workers: &Mutex<Vec<J::Worker>>,
    pace: &AtomicU64,
    chunk: Chunk<J::Layout>,
    columns: usize,
) -> Processed {
    let take = || workers.lock().ok().and_then(|mut w| w.pop());
    let mut worker = take().unwrap_or_else(|| job.new_worker());
    let mut rows = Vec::with_capacity(chunk.records.len());
    for record in &chunk.records {
        let start = Instant::now();
        let outcome = match &record.content {
            RecordContent::Unreadable(message) => Err(message.clone()),
            _ => {
                let result = catch_unwind(AssertUnwindSafe(|| {
                    job.process(&mut worker, &chunk.layout, record)
                }));
                result.unwrap_or_else(|_| {
                    // A bug in a job must not take the run down; the worker's state may be
                    // half-updated, so it is replaced.
                    worker = job.new_worker();
                    Err("internal error while processing this record (please report it)".into())
                })
            }
        };
        let nanos = start.elapsed().as_nanos() as u64;
        let outcome = outcome.unwrap_or_else(|message| error_outcome(message, columns));
        rows.push(ProcessedRow {
            line: record.line,
            outcome,
            nanos,
        });
    }
    if let Ok(mut stack) = workers.lock() {
        stack.push(worker);
    }
    let nanos: u64 = rows.iter().map(|row| row.nanos).sum();
    if let Some(per_record) = nanos.checked_div(rows.len() as u64) {
        pace.store(per_record.max(1), Ordering::Relaxed);
    }
    Processed {
        seq: chunk.seq,
        file: chunk.file,
        rows,
    }
}

fn error_outcome(message: String, columns: usize) -> Outcome {
    Outcome {
        status: ERROR_STATUS,
        failed: true,
        error: message,
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
    use super::*;

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
}
