//! The worker pool, and the calling thread's loop that feeds it chunks and writes what
//! comes back.

use std::collections::{BTreeMap, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossbeam_channel::unbounded;

use super::chunks::Processed;
use super::process::{panic_message, process_chunk};
use super::reading::Reading;
use super::writer::{InOrder, Writer};
use super::Shared;
use crate::batch::{BatchError, Job};

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
pub(super) fn spin_for<T>(rx: &crossbeam_channel::Receiver<T>, spin: Duration) -> Option<T> {
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
pub(super) fn fan_out<J: Job>(
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
pub(super) fn worker_pool(threads: usize) -> Result<Arc<rayon::ThreadPool>, BatchError> {
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
