//! The calling thread's writing: processed chunks put back in input order and written to
//! the sink, rows held back by a slow record written early, a resumed run's place checked.

use std::collections::{BTreeMap, VecDeque};
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::chunks::{
    take_rows, BufferPool, ChunkCounts, ChunkOutput, ChunkRows, ChunkSink, EarlyRows, HeldRows,
    Processed,
};
use super::schema::RowSchema;
use super::{ResumePoint, RowSink};
use crate::batch::published::PublishedRows;
use crate::batch::stats::{LatencyCounts, SLOWEST_KEPT};
use crate::batch::{BatchError, Excerpt, InputSpec, Progress, RunStats, Value};

/// Writes processed chunks to the sink and counts them.
pub(super) struct Writer<'a, 's> {
    pub(super) sink: &'s mut dyn RowSink,
    pub(super) progress: &'a dyn Progress,
    pub(super) stats: &'a mut RunStats,
    pub(super) schema: &'a RowSchema,
    pub(super) inputs: &'a [InputSpec],
    pub(super) buffers: &'a BufferPool,
    pub(super) bytes_read: &'a AtomicU64,
    pub(super) row: Vec<Value>,
    /// Whether rows were written since the sink was last flushed.
    pub(super) unflushed: bool,
    /// The point a resumed run starts after.
    pub(super) resume: Option<&'a ResumePoint>,
    /// Whether a chunk cut short by the stop flag was written: nothing more is.
    pub(super) closed: bool,
    /// The records' times, added to the statistics' histogram at the end of the run.
    pub(super) latency: LatencyCounts,
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
    pub(super) fn slow_floor(&self) -> u64 {
        let slowest = &self.stats.slowest;
        match slowest.last() {
            Some(last) if slowest.len() == SLOWEST_KEPT => last.nanos,
            _ => 0,
        }
    }

    /// Flushes the sink if rows were written since the last flush.
    pub(super) fn flush(&mut self) -> Result<(), BatchError> {
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
pub(super) struct InOrder {
    /// Chunks done but not yet written, by sequence number.
    pub(super) pending: BTreeMap<u64, Processed>,
    /// The sequence number of the next chunk to write.
    pub(super) next: u64,
    /// Chunks cut but not yet written.
    pub(super) unwritten: usize,
    /// The early rows of every chunk not yet written, in order: `(seq, file, rows)`.
    pub(super) outputs: VecDeque<(u64, usize, EarlyRows)>,
}

impl InOrder {
    /// Notes a chunk handed to a worker, and gives the sink its worker fills.
    pub(super) fn spawned(&mut self, seq: u64, file: usize) -> ChunkSink {
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
    pub(super) fn write_early(
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
    pub(super) fn write_ready(
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
