//! A chunk processed on a worker: each record decoded, given to the job under its budget,
//! and its row made, a job's panic turned into an error row.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::chunks::{
    lock, take_rows, Chunk, ChunkCounts, ChunkOutput, ChunkSink, Processed, ProcessedRow,
};
use super::Shared;
use crate::batch::cell::LineNumbers;
use crate::batch::clock::RecordClock;
use crate::batch::decode::decode;
use crate::batch::{
    push_csv_field, push_micros, CsvRow, Job, JobError, Outcome, RecordContent, Value, ERROR_STATUS,
};
use crate::budget::{Meter, OverBudget};

/// Processes one chunk on a pool thread with a worker state borrowed from the shared stack,
/// adding each record's row to `output` as it is done; gives the rows the writer has not
/// taken early.
pub(super) fn process_chunk<J: Job>(
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
pub(super) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
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
