//! Cutting the inputs into chunks, one input after the other, each chunk sized to a few
//! milliseconds of work from the pace of the last.

use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use super::chunks::{BufferPool, Chunk};
use super::schema::{open_input, InputLayout, RowSchema};
use crate::batch::cutter::ChunkCutter;
use crate::batch::{BatchError, InputSpec, Job, Shard};

/// Records in the chunks cut before any record's time is known.
pub(super) const FIRST_CHUNK_RECORDS: usize = 8;

/// The work a chunk should hold: with a hand-off of a few microseconds per chunk, 0.2% of
/// the time. (Fixed 256-record chunks left one of two cores idle on inputs of a few hundred
/// slow records: 100 backtracking Sudokus ran no faster on 2 threads than on 1.)
const CHUNK_TARGET: Duration = Duration::from_millis(2);

/// Records per chunk for records taking `nanos_per_record` each (0: not known yet).
pub(super) fn chunk_size(nanos_per_record: u64, max: usize) -> usize {
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
pub(super) fn balanced_chunk_size(left: u64, threads: usize, nanos_per_record: u64) -> usize {
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
pub(super) struct Reading<'a, J: Job> {
    pub(super) job: &'a J,
    pub(super) inputs: &'a [InputSpec],
    /// The input being cut (its index, cutter and layout); `None` between inputs.
    pub(super) current: Option<Current<J::Layout>>,
    /// The input to open when none is being cut.
    pub(super) next_file: usize,
    /// The columns every input must give.
    pub(super) schema: &'a RowSchema,
    pub(super) chunk_records: usize,
    /// Records cut so far over all inputs: the next chunk's first record's index.
    pub(super) records_cut: u64,
    /// The shard processed, if not all records.
    pub(super) shard: Option<Shard>,
    /// Worker threads.
    pub(super) threads: usize,
    /// Records still to read (`max_records`).
    pub(super) left: u64,
    pub(super) bytes_read: Arc<AtomicU64>,
    /// Nanoseconds per record in the last chunk processed (0 before the first).
    pub(super) pace: &'a AtomicU64,
    /// The next chunk's sequence number.
    pub(super) seq: u64,
    pub(super) buffers: &'a BufferPool,
    /// The run's stop flag, and whether it stopped the reading.
    pub(super) stop: Option<Arc<AtomicBool>>,
    pub(super) stopped: bool,
    /// Whether the last call found the input with nothing ready for now (an idle pipe).
    pub(super) idle: bool,
    /// Records of the shard still to skip (a resumed run).
    pub(super) skip_left: u64,
}

impl<J: Job> Reading<'_, J> {
    /// The next chunk of the inputs, `None` once they are all read (or after an error), or
    /// for now when the input has nothing ready ([`idle`](Self::idle) is then set).
    pub(super) fn next_chunk(&mut self) -> Result<Option<Chunk<J::Layout>>, BatchError> {
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
