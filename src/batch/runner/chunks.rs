//! What passes between the three parts of a run: the chunks of raw records the calling
//! thread cuts, the rows a worker makes of them, the counts that go with the rows, and the
//! buffers they travel in.

use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use super::schema::InputLayout;
use crate::batch::cutter::RawChunk;
use crate::batch::published::{PublishedRows, RowAppender};
use crate::batch::stats::{keep_if_slow, LatencyCounts, SlowRecord};
use crate::batch::{BatchError, InputFormat, Outcome, RunStats, Value, Written};

/// Whole records of one input, as raw bytes, for a worker to decode and process.
pub(super) struct Chunk<L> {
    pub(super) seq: u64,
    pub(super) file: usize,
    /// Index of the chunk's first record over all inputs, for shards.
    pub(super) first_index: u64,
    pub(super) layout: Arc<InputLayout<L>>,
    pub(super) format: InputFormat,
    pub(super) raw: RawChunk,
    /// Leading records (of the shard) already in the results file (a resumed run): read,
    /// not processed.
    pub(super) skip: u64,
    /// Whether the last record skipped is the resume point's.
    pub(super) ends_skip: bool,
}

/// One record's result, for the sink's `write_row`.
pub(super) struct ProcessedRow {
    pub(super) line: u64,
    /// The input's other CSV columns, carried through.
    pub(super) carried: Vec<Value>,
    pub(super) outcome: Outcome,
    pub(super) nanos: u64,
}

/// A chunk's rows: as values, or already formatted by the sink's formatter.
pub(super) enum ChunkRows {
    Values(Vec<ProcessedRow>),
    Formatted(Vec<u8>),
}

/// What a chunk adds to the run's statistics, counted on the worker.
pub(super) struct ChunkCounts {
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
    pub(super) fn new(tallied: usize, records: usize, slow_floor: u64) -> Self {
        ChunkCounts {
            statuses: Vec::new(),
            failed: 0,
            tallies: vec![Vec::new(); tallied],
            nanos: Vec::with_capacity(records),
            slowest: Vec::new(),
            slow_floor,
        }
    }

    pub(super) fn count(
        &mut self,
        outcome: &Outcome,
        at: (usize, u64),
        nanos: u64,
        tallied: &[usize],
    ) {
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
    pub(super) fn count_written(&mut self, written: Written, at: (usize, u64), nanos: u64) {
        self.count_status(written.status, written.failed, at, nanos);
        if let (Some(value), Some(values)) = (written.tally, self.tallies.first_mut()) {
            match values.iter_mut().find(|(v, _)| same_text(v, value)) {
                Some((_, count)) => *count += 1,
                None => values.push((Cow::Borrowed(value), 1)),
            }
        }
    }

    /// Counts a record's status, failure and time.
    pub(super) fn count_status(
        &mut self,
        status: &'static str,
        failed: bool,
        at: (usize, u64),
        nanos: u64,
    ) {
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

    pub(super) fn add_to(self, stats: &mut RunStats, latency: &mut LatencyCounts) {
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
pub(super) struct Processed {
    pub(super) seq: u64,
    pub(super) file: usize,
    pub(super) output: ChunkOutput,
    /// Whether the run's stop flag ended the chunk before its last record: no row of a
    /// later chunk may be written then, or the results file would have a gap.
    pub(super) cut_short: bool,
    /// Set when the chunk's worker stopped on a bug: the run ends when the chunk's turn
    /// to be written comes, with every row before it written.
    pub(super) failure: Option<BatchError>,
}

impl Processed {
    /// The stand-in for a chunk whose worker panicked outside any record's job.
    pub(super) fn failed(seq: u64, file: usize, tallied: usize, failure: BatchError) -> Processed {
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
pub(super) struct ChunkOutput {
    pub(super) rows: ChunkRows,
    pub(super) counts: ChunkCounts,
    /// With [`Chunk::ends_skip`], the last record skipped: its line and the text of the
    /// input columns its row carries.
    pub(super) resumed_after: Option<(u64, Vec<String>)>,
}

impl ChunkOutput {
    /// Whether there is anything for the writer.
    pub(super) fn is_empty(&self) -> bool {
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
pub(super) struct HeldRows {
    pub(super) values: Vec<ProcessedRow>,
    pub(super) resumed_after: Option<(u64, Vec<String>)>,
}

/// The writer's side of a chunk still being processed: the rows done so far, taken when
/// the chunk is next in order and a slow record holds it back, so that no finished row
/// waits for a slow record after it.
pub(super) struct EarlyRows {
    pub(super) held: Arc<Mutex<HeldRows>>,
    pub(super) formatted: Arc<PublishedRows>,
}

/// The worker's side of [`EarlyRows`].
pub(super) struct ChunkSink {
    pub(super) held: Arc<Mutex<HeldRows>>,
    pub(super) formatted: RowAppender,
}

/// Locks a chunk's held rows. A panic while holding the lock (only a job's, caught and
/// turned into an error row) leaves whole rows: they are still sound.
pub(super) fn lock(held: &Mutex<HeldRows>) -> std::sync::MutexGuard<'_, HeldRows> {
    held.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The rows done so far (formatted ones from `take_formatted`, else the held values) and
/// the resume point, all taken under `held`'s lock: the worker sets the resume point under
/// it before publishing any row, so rows never go out without the resume point before
/// them, whichever of the writer (taking early) and the worker (finishing) comes first.
pub(super) fn take_rows(
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

/// Byte buffers used again rather than freed. Chunk bytes go from the calling thread to a
/// worker, formatted rows from a worker to the calling thread, and each large buffer freed
/// on another thread than the one that made it cost the calling thread more in `malloc`
/// than all its other work on Kaggle-style CSV.
pub(super) struct BufferPool(pub(super) Mutex<Vec<Vec<u8>>>);

impl BufferPool {
    /// Buffers kept, at most.
    const KEPT: usize = 64;

    /// A buffer with room if one was given back. Its length is how many of its bytes hold
    /// values, leftovers of its earlier use: the cutter's
    /// [`recycle`](crate::batch::cutter::ChunkCutter::recycle) reads into them without
    /// zeroing them first; other users empty it.
    pub(super) fn take(&self) -> Vec<u8> {
        let buffer = self.0.lock().ok().and_then(|mut buffers| buffers.pop());
        buffer.unwrap_or_default()
    }

    /// Gives a buffer back, as it is.
    pub(super) fn give(&self, buffer: Vec<u8>) {
        if let Ok(mut buffers) = self.0.lock() {
            if buffers.len() < Self::KEPT {
                buffers.push(buffer);
            }
        }
    }
}
