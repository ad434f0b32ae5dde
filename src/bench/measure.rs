//! One measurement: a job run repeatedly on one dataset with one thread count (warm-up, then
//! timed runs until a minimum time), its answers kept for comparison — or the same for an
//! external program timed as a whole process.

use std::io::{self, Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

use crate::batch::{
    self, read_bounded, InputSpec, Job, JobError, NoProgress, Outcome, Record, RecordContent,
    RowFormatter, RowSink, RunOptions, Value,
};
use crate::budget::Meter;
use crate::puzzle::{Answer, Configured, Kind};
use crate::report::CsvFormat;

use super::error::BenchError;
use super::suite::PlannedDataset;

/// How long and how often to time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    /// Untimed runs first.
    pub warmup: usize,
    /// Timed runs go on until their total wall time reaches this many seconds…
    pub min_time: f64,
    /// …or this many runs…
    pub max_repeats: usize,
    /// …and at least this many.
    pub min_repeats: usize,
}

impl Timing {
    /// Whether another timed run is due after `runs` runs that took `timed` in all.
    fn more(&self, runs: usize, timed: Duration) -> bool {
        runs < self.max_repeats.max(1)
            && (runs < self.min_repeats.max(1) || timed.as_secs_f64() < self.min_time)
    }
}

/// What the timed runs of one measurement gave.
#[derive(Debug, Clone)]
pub struct Measurement {
    /// Records per run.
    pub records: u64,
    /// Records per wall-clock second, one per timed run.
    pub rates: Vec<f64>,
    /// Per-record processing time in nanoseconds over all timed runs (`None` for an external
    /// program, which is timed only as a whole).
    pub latency_ns: Option<Histogram<u64>>,
    /// Records per status (of the first timed run).
    pub statuses: Vec<(String, u64)>,
    /// Search effort, for kinds that report it.
    pub effort: Option<Effort>,
    /// Each record's line number and answer, in input order.
    pub answers: Vec<(u64, Answer)>,
}

/// Search effort per record (e.g. Sudoku guesses).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Effort {
    /// The result column measured.
    pub column: &'static str,
    /// Mean over the records that have a value.
    pub mean: f64,
    /// Share of those records with a value of zero (solved without guessing).
    pub zero_share: f64,
}

/// How a dataset file is read: CSV by its extension, lines otherwise.
pub(super) fn input_spec(path: &std::path::Path) -> InputSpec {
    InputSpec::new(path, None)
}

/// Turns each measurement of [`measure_in_turns`] takes, at least: its timed runs are
/// split into about this many stretches of equal time.
const TURNS: f64 = 5.0;

/// Measures each of `algorithms` on `dataset` with `threads` workers, their timed runs
/// taken in turns (a fifth of the minimum time each, or one run if that is longer) rather
/// than one algorithm after the other: on a shared machine whose speed drifts over
/// seconds, the algorithms then meet the same drift, and their ratio holds where the
/// rates alone do not (on this project's VM, `fast` against `dlx` on one 16×16 file came
/// out 15.9× and 24.1× in two runs of the suite measured one after the other).
///
/// A run that `stop` ends part way is [`BenchError::Stopped`]: its figures would be a
/// part of the dataset's.
pub(super) fn measure_in_turns(
    dataset: &PlannedDataset,
    algorithms: &[&str],
    threads: usize,
    timing: &Timing,
    stop: Option<&Arc<AtomicBool>>,
) -> Result<Vec<Measurement>, BenchError> {
    let mut all: Vec<Measuring<'_>> = (algorithms.iter())
        .map(|algorithm| Measuring::new(dataset, algorithm, threads, stop))
        .collect();
    for measuring in &mut all {
        measuring.warm_up(timing)?;
    }
    let stretch = timing.min_time / TURNS;
    while all.iter().any(|m| m.more(timing)) {
        for measuring in all.iter_mut().filter(|m| m.more(timing)) {
            let started = measuring.timed;
            measuring.run_timed()?;
            while measuring.more(timing) && (measuring.timed - started).as_secs_f64() < stretch {
                measuring.run_timed()?;
            }
        }
    }
    Ok(all.into_iter().map(Measuring::finish).collect())
}

/// One measurement under way: its timed runs so far.
struct Measuring<'a> {
    dataset: &'a PlannedDataset,
    algorithm: &'a str,
    options: RunOptions,
    inputs: [InputSpec; 1],
    /// Each record's answer, from the first run.
    answers: AnswerSink<'a>,
    collected: bool,
    rates: Vec<f64>,
    latency: Histogram<u64>,
    records: u64,
    statuses: Vec<(String, u64)>,
    timed: Duration,
}

impl<'a> Measuring<'a> {
    fn new(
        dataset: &'a PlannedDataset,
        algorithm: &'a str,
        threads: usize,
        stop: Option<&Arc<AtomicBool>>,
    ) -> Self {
        Measuring {
            dataset,
            algorithm,
            options: RunOptions {
                threads,
                max_records: dataset.max_records.map(|n| n as u64),
                stop: stop.cloned(),
                ..RunOptions::default()
            },
            inputs: [input_spec(&dataset.path)],
            answers: AnswerSink::new(dataset.kind, dataset.settings.as_ref()),
            collected: false,
            rates: Vec::new(),
            latency: crate::batch::latency_histogram(),
            records: 0,
            statuses: Vec::new(),
            timed: Duration::ZERO,
        }
    }

    /// One run: the first (a warm-up one if there is one) collects the answers, the others
    /// write to a sink that does nothing, so that timed runs measure the job and the
    /// runner alone.
    fn run(&mut self) -> Result<batch::RunStats, BenchError> {
        let settings = self.dataset.settings.as_ref();
        let (inputs, options) = (&self.inputs, &self.options);
        let stats = if self.collected {
            settings.run(self.algorithm, inputs, &mut NullSink, &NoProgress, options)?
        } else {
            self.collected = true;
            settings.run(
                self.algorithm,
                inputs,
                &mut self.answers,
                &NoProgress,
                options,
            )?
        };
        if stats.interrupted {
            return Err(BenchError::Stopped);
        }
        Ok(stats)
    }

    /// The untimed runs first.
    fn warm_up(&mut self, timing: &Timing) -> Result<(), BenchError> {
        for _ in 0..timing.warmup {
            self.run()?;
        }
        Ok(())
    }

    /// Whether another timed run is due.
    fn more(&self, timing: &Timing) -> bool {
        timing.more(self.rates.len(), self.timed)
    }

    /// One timed run.
    fn run_timed(&mut self) -> Result<(), BenchError> {
        let stats = self.run()?;
        self.timed += stats.wall;
        self.records = stats.records;
        self.rates.push(stats.records_per_second());
        self.latency
            .add(&stats.latency_ns)
            .expect("histograms with the same bounds add");
        self.statuses = stats.statuses;
        Ok(())
    }

    fn finish(self) -> Measurement {
        Measurement {
            records: self.records,
            rates: self.rates,
            latency_ns: Some(self.latency),
            statuses: self.statuses,
            effort: self.answers.effort(),
            answers: self.answers.answers,
        }
    }
}

/// Discards rows, once made: its formatter is the CSV files' ([`CsvFormat`]), so that
/// timed runs do what `solve` and `validate` do for their default output, rows formatted
/// by the workers (and, where a job writes its own CSV rows, by the job), short of
/// writing them out.
struct NullSink;

impl RowSink for NullSink {
    fn formatter(&self) -> Option<Arc<dyn RowFormatter>> {
        Some(Arc::new(CsvFormat))
    }

    fn write_formatted(&mut self, _rows: &[u8]) -> io::Result<()> {
        Ok(())
    }

    fn begin(&mut self, _columns: &[String]) -> io::Result<()> {
        Ok(())
    }

    fn write_row(&mut self, _row: &[Value]) -> io::Result<()> {
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Collects each row's answer and effort.
struct AnswerSink<'a> {
    kind: &'a dyn Kind,
    settings: &'a dyn Configured,
    line: usize,
    status: usize,
    answer: Vec<Option<usize>>,
    effort: Option<usize>,
    answers: Vec<(u64, Answer)>,
    effort_sum: f64,
    effort_count: u64,
    effort_zero: u64,
}

impl<'a> AnswerSink<'a> {
    fn new(kind: &'a dyn Kind, settings: &'a dyn Configured) -> Self {
        AnswerSink {
            kind,
            settings,
            line: 0,
            status: 0,
            answer: Vec::new(),
            effort: None,
            answers: Vec::new(),
            effort_sum: 0.0,
            effort_count: 0,
            effort_zero: 0,
        }
    }

    fn effort(&self) -> Option<Effort> {
        let column = self.kind.effort_column()?;
        (self.effort_count > 0).then(|| Effort {
            column,
            mean: self.effort_sum / self.effort_count as f64,
            zero_share: self.effort_zero as f64 / self.effort_count as f64,
        })
    }
}

impl RowSink for AnswerSink<'_> {
    fn begin(&mut self, columns: &[String]) -> io::Result<()> {
        let find = |name: &str| columns.iter().position(|c| c == name);
        self.line = find("line").unwrap_or(0);
        self.status = find("status").unwrap_or(0);
        self.answer = self.kind.answer_columns().iter().map(|c| find(c)).collect();
        self.effort = self.kind.effort_column().and_then(find);
        Ok(())
    }

    fn write_row(&mut self, row: &[Value]) -> io::Result<()> {
        let line = match row.get(self.line) {
            Some(Value::Int(line)) => *line,
            _ => 0,
        };
        let status = row.get(self.status).map(Value::to_text).unwrap_or_default();
        let values: Vec<String> = self
            .answer
            .iter()
            .map(|i| {
                i.and_then(|i| row.get(i))
                    .map(Value::to_text)
                    .unwrap_or_default()
            })
            .collect();
        self.answers
            .push((line, self.settings.answer(&status, &values)));
        if let Some(Value::Int(effort)) = self.effort.and_then(|i| row.get(i)) {
            self.effort_sum += *effort as f64;
            self.effort_count += 1;
            self.effort_zero += u64::from(*effort == 0);
        }
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The text of each record of a dataset (a line, or a CSV row's first field), with its
/// line number: what an external program is given.
pub(super) fn record_texts(
    input: &InputSpec,
    max_records: Option<usize>,
) -> Result<Vec<(u64, String)>, BenchError> {
    struct TextSink(Vec<(u64, String)>);
    impl RowSink for TextSink {
        fn begin(&mut self, _columns: &[String]) -> io::Result<()> {
            Ok(())
        }
        fn write_row(&mut self, row: &[Value]) -> io::Result<()> {
            // An unreadable record is given as an empty line, so that answers stay aligned.
            if let Value::Int(line) = row[0] {
                let text = match &row[2] {
                    Value::Text(text) => text.clone(),
                    _ => String::new(),
                };
                self.0.push((line, text));
            }
            Ok(())
        }
        fn finish(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let options = RunOptions {
        threads: 1,
        max_records: max_records.map(|n| n as u64),
        ..RunOptions::default()
    };
    let mut sink = TextSink(Vec::new());
    batch::run(
        &RecordText,
        std::slice::from_ref(input),
        &mut sink,
        &NoProgress,
        &options,
    )?;
    Ok(sink.0)
}

/// A job whose result is the record's own text.
struct RecordText;

impl Job for RecordText {
    type Layout = ();
    type Worker = ();

    fn columns(&self, _layout: &()) -> Vec<String> {
        vec!["text".into()]
    }

    fn statuses(&self) -> Vec<&'static str> {
        vec!["read"]
    }

    fn layout(&self, _input: &InputSpec, _header: Option<&[String]>) -> Result<(), JobError> {
        Ok(())
    }

    fn new_worker(&self) {}

    fn process(
        &self,
        _worker: &mut (),
        _layout: &(),
        record: &Record<'_>,
        _meter: &mut Meter,
    ) -> Result<Outcome, JobError> {
        let text = match record.content {
            RecordContent::Line(line) => line.trim().to_string(),
            RecordContent::Fields(fields) => {
                fields.first().map(|f| f.to_string()).unwrap_or_default()
            }
            RecordContent::Unreadable(message) => {
                return Err(JobError::Unreadable(message.to_string()))
            }
        };
        Ok(Outcome {
            status: "read",
            failed: false,
            error: String::new(),
            values: vec![Value::Text(text)],
        })
    }
}

/// What the timed runs of an external program gave.
#[derive(Debug, Clone)]
pub struct ExternalRuns {
    /// Records per wall-clock second of the whole process, one per timed run.
    pub rates: Vec<f64>,
    /// The program's output lines (of the first timed run).
    pub lines: Vec<String>,
}

/// Runs `command` through `sh -c`, `records` on its standard input one per line, timing the
/// whole process as [`measure_in_turns`] times a job.
/// Each run is killed past `timeout`, or when `stop` is set ([`BenchError::Stopped`]).
pub(super) fn measure_external(
    (name, command, timeout): (&str, &str, Option<Duration>),
    records: &[String],
    timing: &Timing,
    stop: Option<&AtomicBool>,
) -> Result<ExternalRuns, BenchError> {
    let run_external = |name, command, input| run_external(name, command, input, timeout, stop);
    let mut input = records.join("\n");
    input.push('\n');
    for _ in 0..timing.warmup {
        run_external(name, command, &input)?;
    }
    let mut rates = Vec::new();
    let mut first = None;
    let mut timed = Duration::ZERO;
    while timing.more(rates.len(), timed) {
        let (output, wall) = run_external(name, command, &input)?;
        timed += wall;
        let seconds = wall.as_secs_f64().max(1e-9);
        rates.push(records.len() as f64 / seconds);
        first.get_or_insert(output);
    }
    let output = first.expect("at least one timed run");
    Ok(ExternalRuns {
        rates,
        lines: output.lines().map(|l| l.trim().to_string()).collect(),
    })
}

/// The most bytes of standard error kept from an external program, to explain a failure.
const EXTERNAL_STDERR_KEPT: u64 = 64 * 1024;

/// The most bytes of answers an external program may write for `input_bytes` of
/// puzzles: four times as many, and a mebibyte more for headers and notes.
fn external_output_limit(input_bytes: usize) -> u64 {
    (input_bytes as u64).saturating_mul(4) + (1 << 20)
}

/// How often the watch over an external program looks at the stop flag.
const STOP_POLL: Duration = Duration::from_millis(50);

/// One run of an external program: its standard output and wall time. Past `timeout`,
/// the program (its whole process group) is killed and the run is an error; when `stop`
/// is set, it is killed and the run is [`BenchError::Stopped`].
fn run_external(
    name: &str,
    command: &str,
    input: &str,
    timeout: Option<Duration>,
    stop: Option<&AtomicBool>,
) -> Result<(String, Duration), BenchError> {
    let fail = |message: String| BenchError::External {
        name: name.to_string(),
        message,
    };
    let started = Instant::now();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group, so that a timeout kills what `sh` started too.
        .process_group(0)
        .spawn()
        .map_err(|e| fail(format!("cannot start `{command}`: {e}")))?;
    let group = child.id() as libc::pid_t;
    // A second Ctrl-C, which ends the process at once, ends the program first.
    crate::batch::Interruption::watch_child_group(Some(group));
    let timed_out = AtomicBool::new(false);
    let stopped = AtomicBool::new(false);
    let too_much = AtomicBool::new(false);
    let (finished, watch) = std::sync::mpsc::channel::<()>();
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let mut stderr = child.stderr.take().expect("stderr is piped");
    let (output, written, errors) = std::thread::scope(|scope| {
        let (timed_out, stopped) = (&timed_out, &stopped);
        scope.spawn(move || {
            // The program's own process group does not get the terminal's Ctrl-C: the
            // watch ends it when the run is stopped, as when it runs out of time.
            let deadline = timeout.map(|timeout| started + timeout);
            loop {
                let now = Instant::now();
                let past = match deadline {
                    Some(deadline) if now >= deadline => Some(timed_out),
                    _ if stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) => Some(stopped),
                    _ => None,
                };
                if let Some(reason) = past {
                    reason.store(true, Ordering::Relaxed);
                    // SAFETY: kill has no memory effects; the group is the child's own.
                    unsafe { libc::kill(-group, libc::SIGKILL) };
                    return;
                }
                let wait = match deadline {
                    Some(deadline) => (deadline - now).min(STOP_POLL),
                    None if stop.is_some() => STOP_POLL,
                    None => Duration::MAX,
                };
                match watch.recv_timeout(wait) {
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                    _ => return,
                }
            }
        });
        let writer = scope.spawn(move || {
            // A program may stop reading early; its answers show what it did.
            let result = stdin.write_all(input.as_bytes());
            drop(stdin);
            result
        });
        // Drained beside standard output so that neither pipe can fill up and block.
        let error_reader = scope.spawn(move || {
            let mut text = Vec::new();
            // Best effort: only used to explain a failure, so only its start is kept; the
            // rest is read and dropped, so that the program never waits on a full pipe.
            let _ = (&mut stderr)
                .take(EXTERNAL_STDERR_KEPT)
                .read_to_end(&mut text);
            let _ = io::copy(&mut stderr, &mut io::sink());
            String::from_utf8_lossy(&text).into_owned()
        });
        // One answer a puzzle needs about as many bytes as the puzzles: a program that
        // writes far more (an endless loop) is stopped instead of filling the memory.
        let most = external_output_limit(input.len());
        let read = read_bounded(&mut stdout, most);
        if read.as_ref().is_ok_and(|read| !read.whole) {
            too_much.store(true, Ordering::Relaxed);
            // SAFETY: kill has no memory effects; the group is the child's own.
            unsafe { libc::kill(-group, libc::SIGKILL) };
        }
        // Output that is not UTF-8 is kept, garbled: it then shows as disagreements.
        let read = read.map(|read| String::from_utf8_lossy(&read.bytes).into_owned());
        drop(finished);
        (
            read,
            writer.join().expect("the writer thread does not panic"),
            error_reader
                .join()
                .expect("the reader thread does not panic"),
        )
    });
    let status = child.wait();
    crate::batch::Interruption::watch_child_group(None);
    let status = status.map_err(|e| fail(format!("cannot wait for `{command}`: {e}")))?;
    let wall = started.elapsed();
    if stopped.load(Ordering::Relaxed) {
        return Err(BenchError::Stopped);
    }
    if too_much.load(Ordering::Relaxed) {
        return Err(fail(format!(
            "`{command}` was stopped after writing more than {} bytes of answers for {} \
             bytes of puzzles",
            external_output_limit(input.len()),
            input.len()
        )));
    }
    if timed_out.load(Ordering::Relaxed) {
        let limit = timeout
            .map(crate::budget::duration_text)
            .unwrap_or_default();
        return Err(fail(format!(
            "`{command}` was stopped at its timeout of {limit}"
        )));
    }
    if !status.success() {
        let detail = errors.lines().next().unwrap_or("").trim();
        return Err(fail(format!(
            "`{command}` failed ({status}){}",
            if detail.is_empty() {
                String::new()
            } else {
                format!(": {detail}")
            }
        )));
    }
    let output = output.map_err(|e| fail(format!("cannot read the output of `{command}`: {e}")))?;
    if let Err(error) = written {
        if error.kind() != io::ErrorKind::BrokenPipe {
            return Err(fail(format!("cannot write to `{command}`: {error}")));
        }
    }
    Ok((output, wall))
}
