//! The runner's own tests: order, chunk sizes, carried columns, resume points.

use std::collections::HashSet;
use std::io::Write;

use crossbeam_channel::unbounded;

use super::chunks::ChunkCounts;
use super::pool::spin_for;
use super::reading::{balanced_chunk_size, chunk_size, FIRST_CHUNK_RECORDS};
use super::schema::unique_names;
use super::*;
use crate::batch::stats::SLOWEST_KEPT;
use crate::batch::{InputFormat, JobError, NoProgress, Outcome, Record, RecordContent};
use crate::budget::Meter;

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
