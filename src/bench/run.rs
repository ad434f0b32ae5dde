//! Runs a plan: every dataset × algorithm × thread count, then any external programs, each
//! record's answer compared with the first run's on the same dataset.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use hdrhistogram::Histogram;

use crate::puzzle::Answer;

use super::error::BenchError;
use super::format::{median, thousands, threads_text};
use super::measure::{
    input_spec, measure_external, measure_in_turns, record_texts, Effort, Measurement, Timing,
};
use super::suite::{Plan, PlannedDataset};

/// Disagreements listed per run at most (all are counted).
const LISTED_DISAGREEMENTS: usize = 20;

/// The reference answers of a file (for one kind and its settings): each record's first
/// answer by line number, with the name of the run that gave it.
#[derive(Default)]
struct Reference {
    runs: Vec<String>,
    answers: HashMap<u64, (Answer, usize)>,
}

impl Reference {
    /// Compares `answers` of run `name` with the reference, adding the records it does not
    /// have yet (a run on a file's first records leaves the rest to later runs).
    fn check(&mut self, name: String, answers: Vec<(u64, Answer)>, result: &mut RunResult) {
        let run = self.runs.len();
        self.runs.push(name);
        for (line, answer) in answers {
            match self.answers.get(&line) {
                Some((expected, by)) => {
                    if *expected != answer {
                        let (want, got) = (expected.to_string(), answer.to_string());
                        note(result, &self.runs[*by], line, want, got);
                    }
                }
                None => {
                    self.answers.insert(line, (answer, run));
                }
            }
        }
    }
}

/// An external program compared with the built-in algorithms on the Sudoku datasets: it reads
/// puzzles on standard input, one per line, and writes one answer (the solution) per line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct External {
    /// Its name in reports.
    pub name: String,
    /// The shell command that runs it.
    pub command: String,
    /// How long one run may take before it is killed (and the program counted as failed).
    pub timeout: Option<std::time::Duration>,
}

impl std::str::FromStr for External {
    type Err = BenchError;

    /// Reads `NAME=COMMAND`.
    fn from_str(text: &str) -> Result<Self, BenchError> {
        let bad = || BenchError::Plan(format!("expected NAME=COMMAND, got {text:?}"));
        let (name, command) = text.split_once('=').ok_or_else(bad)?;
        let (name, command) = (name.trim(), command.trim());
        if name.is_empty() || command.is_empty() {
            return Err(bad());
        }
        Ok(External {
            name: name.to_string(),
            command: command.to_string(),
            timeout: None,
        })
    }
}

/// The external programs asked for on the command line, with their time limit.
#[derive(Debug, Clone, clap::Args)]
pub struct Externals {
    /// Add a program to compare on the Sudoku datasets, as NAME='COMMAND': it reads puzzles
    /// on standard input, one per line, and writes one solution per line. Timed as a whole
    /// process; its solutions are checked against ours. Repeatable.
    #[arg(long = "external", value_name = "NAME=COMMAND", value_parser = clap::value_parser!(External))]
    pub programs: Vec<External>,
    /// Time one run of an --external program may take (`30s`, `5m`): past it, the program
    /// is killed and its measurement fails.
    #[arg(long, value_name = "DURATION", default_value = "10m", value_parser = humantime::parse_duration)]
    pub external_timeout: std::time::Duration,
}

impl Externals {
    /// The programs, each with the time limit.
    pub fn timed(self) -> Vec<External> {
        let timeout = Some(self.external_timeout);
        self.programs
            .into_iter()
            .map(|program| External { timeout, ..program })
            .collect()
    }
}

/// Refuses `--external` programs that share a name with each other or with an algorithm of
/// the plan: their measurements would share a row of the report, and a comparison would
/// take one for the other.
pub fn check_external_names(externals: &[External], plan: &Plan) -> Result<(), BenchError> {
    for (i, external) in externals.iter().enumerate() {
        let name = &external.name;
        if externals[..i].iter().any(|earlier| &earlier.name == name) {
            return Err(BenchError::Plan(format!(
                "--external {name:?} is named twice: give each program its own name"
            )));
        }
        if (plan.datasets.iter().flat_map(|d| &d.algorithms)).any(|a| a == name) {
            return Err(BenchError::Plan(format!(
                "--external {name:?} has the name of an algorithm the suite measures: give \
                 the program another name"
            )));
        }
    }
    Ok(())
}

/// One algorithm (or external program) measured on one dataset with one thread count.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// What the dataset holds: the puzzle kind's name.
    pub kind: String,
    /// The dataset's name.
    pub dataset: String,
    /// The algorithm, or the external program's name.
    pub algorithm: String,
    /// Worker threads; `None` for an external program.
    pub threads: Option<usize>,
    /// Records per run.
    pub records: u64,
    /// Records per wall-clock second, one per timed run.
    pub rates: Vec<f64>,
    /// Per-record times in nanoseconds (built-in algorithms only).
    pub latency_ns: Option<Histogram<u64>>,
    /// Records per status.
    pub statuses: Vec<(String, u64)>,
    /// Search effort per record, where the kind measures it.
    pub effort: Option<Effort>,
    /// Records whose answer differs from the first run's on this dataset.
    pub disagreements: u64,
    /// The first of them.
    pub listed: Vec<Disagreement>,
    /// Why the run failed (an external program that could not run, a dataset that could
    /// not be read), if it did.
    pub failure: Option<String>,
}

/// A record on which a run disagrees with the dataset's first run.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Disagreement {
    /// The dataset.
    pub dataset: String,
    /// The disagreeing algorithm.
    pub algorithm: String,
    /// Its thread count (empty for an external program).
    pub threads: Option<usize>,
    /// The record's line number.
    pub line: u64,
    /// The first run's answer (its algorithm is named in `reference`).
    pub expected: String,
    /// This run's answer.
    pub got: String,
    /// The algorithm and thread count of the first run.
    pub reference: String,
}

/// What a running benchmark reports as it goes.
#[derive(Debug)]
pub enum Event<'a> {
    /// A measurement starts (an external program's), or its results are about to follow
    /// (an algorithm's, measured in turns with the others): `index` of `total` (1-based).
    Started {
        /// Its number.
        index: usize,
        /// How many there are.
        total: usize,
        /// The dataset.
        dataset: &'a str,
        /// The algorithm or external program.
        algorithm: &'a str,
        /// The thread count (`None` for an external program).
        threads: Option<usize>,
    },
    /// A dataset's algorithms are measured in turns with this thread count (one alone,
    /// when there is one); each one's `Started` and `Finished` follow once they all are
    /// done.
    InTurns {
        /// The dataset.
        dataset: &'a str,
        /// The algorithms.
        algorithms: &'a [&'a str],
        /// The thread count.
        threads: usize,
    },
    /// A measurement is done.
    Finished(&'a RunResult),
    /// A generated dataset is being made (first use, or its keys changed).
    Generating(&'a std::path::Path),
    /// It is made, in this many seconds.
    Generated(f64),
}

impl std::fmt::Display for Event<'_> {
    /// The progress line's text: `[  1/30] dataset · algorithm · threads … ` as a
    /// measurement starts, its rate (and any disagreements) as it ends.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Event::Started {
                index,
                total,
                dataset,
                algorithm,
                threads,
            } => write!(
                f,
                "[{index:>3}/{total}] {dataset} · {algorithm} · {} … ",
                threads_text(*threads)
            ),
            Event::Finished(RunResult {
                failure: Some(failure),
                ..
            }) => write!(f, "FAILED: {failure}"),
            Event::InTurns {
                dataset,
                algorithms,
                threads,
            } => write!(
                f,
                "{dataset} · {}{} · {} …",
                algorithms.join(", "),
                // One algorithm has nothing to take turns with.
                if algorithms.len() > 1 {
                    " in turns"
                } else {
                    ""
                },
                threads_text(Some(*threads))
            ),
            Event::Generating(path) => write!(f, "generating {} … ", path.display()),
            Event::Generated(seconds) => write!(f, "done in {seconds:.1} s"),
            Event::Finished(result) => {
                let runs = result.rates.len();
                write!(
                    f,
                    "{} records/s ({runs} run{})",
                    thousands(median(&result.rates)),
                    if runs == 1 { "" } else { "s" }
                )?;
                if result.disagreements > 0 {
                    write!(f, ", {} DISAGREE", result.disagreements)?;
                }
                Ok(())
            }
        }
    }
}

/// What running a plan gave: every measurement's result, or, when a signal stopped it, the
/// results of those finished before.
#[derive(Debug)]
pub struct PlanRun {
    /// The results, in suite order.
    pub results: Vec<RunResult>,
    /// The measurements the plan holds.
    pub planned: usize,
    /// Whether `stop` ended the run early: a dataset's algorithms measured in turns are
    /// kept only all together, and the measurements after them never ran.
    pub interrupted: bool,
}

/// Runs every measurement of `plan`, and `externals` on its Sudoku datasets, in suite order;
/// setting `stop` (a signal handler's flag) ends the run with the measurements finished.
pub fn run_plan(
    plan: &Plan,
    externals: &[External],
    stop: Option<&Arc<AtomicBool>>,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<PlanRun, BenchError> {
    let timing = Timing {
        warmup: plan.warmup,
        min_time: plan.min_time,
        max_repeats: plan.max_repeats,
        min_repeats: plan.min_repeats,
    };
    let externals_on = |d: &PlannedDataset| if takes_externals(d) { externals } else { &[] };
    let total: usize = plan
        .datasets
        .iter()
        .map(|d| d.algorithms.len() * plan.threads.len() + externals_on(d).len())
        .sum();
    if !externals.is_empty() && plan.datasets.iter().all(|d| !takes_externals(d)) {
        return Err(BenchError::Plan(
            "--external: no dataset of the suite takes external programs (Sudoku datasets \
             whose set does not say external = false)"
                .into(),
        ));
    }
    // Generated datasets are made first, so that a bad generator setting stops the run
    // before any measurement.
    let stopped = || stop.is_some_and(|stop| stop.load(Ordering::Relaxed));
    let mut results = Vec::new();
    let ended = |results| PlanRun {
        results,
        planned: total,
        interrupted: true,
    };
    for dataset in plan.datasets.iter() {
        if stopped() {
            return Ok(ended(results));
        }
        if !super::generated::needs_making(dataset) {
            continue;
        }
        let started = std::time::Instant::now();
        on_event(Event::Generating(&dataset.path));
        if !super::generated::make(dataset, stop)? {
            return Ok(ended(results));
        }
        on_event(Event::Generated(started.elapsed().as_secs_f64()));
    }
    let mut index = 0;
    // Every record's first answer is the reference for later runs on the same file with
    // the same settings, whether they run the whole file or its first records.
    let mut references: Vec<(&PlannedDataset, Reference)> = Vec::new();
    for dataset in &plan.datasets {
        let first_result = results.len();
        let same = |(other, _): &(&PlannedDataset, Reference)| {
            other.kind.name() == dataset.kind.name()
                && other.path == dataset.path
                && other.settings.same_settings(dataset.settings.as_ref())
        };
        let slot = match references.iter().position(same) {
            Some(slot) => slot,
            None => {
                references.push((dataset, Reference::default()));
                references.len() - 1
            }
        };
        let reference = &mut references[slot].1;
        // Per thread count, the algorithms take turns (`measure_in_turns`); the results
        // keep the suite's order, algorithm by algorithm.
        let algorithms: Vec<&str> = dataset.algorithms.iter().map(String::as_str).collect();
        let mut measured = Vec::new();
        for (t, &threads) in plan.threads.iter().enumerate() {
            if stopped() {
                break;
            }
            on_event(Event::InTurns {
                dataset: &dataset.name,
                algorithms: &algorithms,
                threads,
            });
            // A dataset that cannot be read (a truncated `.gz`) fails its measurements;
            // the other datasets still run.
            let mut measurements =
                match measure_in_turns(dataset, &algorithms, threads, &timing, stop) {
                    Err(BenchError::Stopped) => break,
                    other => other.map(Vec::into_iter).map_err(|error| error.to_string()),
                };
            for (a, algorithm) in algorithms.iter().enumerate() {
                index += 1;
                on_event(Event::Started {
                    index,
                    total,
                    dataset: &dataset.name,
                    algorithm,
                    threads: Some(threads),
                });
                let result = match &mut measurements {
                    Ok(each) => {
                        let mut measurement = each.next().expect("one per algorithm");
                        let answers = std::mem::take(&mut measurement.answers);
                        let mut result = builtin_result(dataset, algorithm, threads, measurement);
                        reference.check(format!("{algorithm} ×{threads}"), answers, &mut result);
                        result
                    }
                    Err(failure) => RunResult {
                        failure: Some(failure.clone()),
                        ..unmeasured(dataset, algorithm, Some(threads))
                    },
                };
                on_event(Event::Finished(&result));
                measured.push(((a, t), result));
            }
        }
        measured.sort_by_key(|(order, _)| *order);
        results.extend(measured.into_iter().map(|(_, result)| result));
        if stopped() {
            name_by_records(dataset, &mut results[first_result..]);
            return Ok(ended(results));
        }
        if externals_on(dataset).is_empty() {
            name_by_records(dataset, &mut results[first_result..]);
            continue;
        }
        let texts = match record_texts(&input_spec(&dataset.path), dataset.max_records) {
            Ok(texts) => texts,
            Err(error) => {
                for external in externals {
                    index += 1;
                    on_event(Event::Started {
                        index,
                        total,
                        dataset: &dataset.name,
                        algorithm: &external.name,
                        threads: None,
                    });
                    let result = RunResult {
                        failure: Some(error.to_string()),
                        ..unmeasured(dataset, &external.name, None)
                    };
                    on_event(Event::Finished(&result));
                    results.push(result);
                }
                continue;
            }
        };
        if texts.is_empty() {
            continue;
        }
        let puzzles: Vec<String> = texts.iter().map(|(_, text)| text.clone()).collect();
        for external in externals {
            index += 1;
            on_event(Event::Started {
                index,
                total,
                dataset: &dataset.name,
                algorithm: &external.name,
                threads: None,
            });
            let mut result = RunResult {
                records: puzzles.len() as u64,
                ..unmeasured(dataset, &external.name, None)
            };
            // A program that fails on one dataset (say, one of a size it cannot read) is
            // reported, and the others still run.
            match measure_external(
                (&external.name, &external.command, external.timeout),
                &puzzles,
                &timing,
                stop.map(Arc::as_ref),
            ) {
                Ok(runs) => {
                    result.rates = runs.rates;
                    compare_external(&mut result, reference, &texts, &runs.lines);
                }
                Err(BenchError::Stopped) => {
                    name_by_records(dataset, &mut results[first_result..]);
                    return Ok(ended(results));
                }
                Err(error) => result.failure = Some(error.to_string()),
            }
            on_event(Event::Finished(&result));
            results.push(result);
        }
        name_by_records(dataset, &mut results[first_result..]);
    }
    Ok(PlanRun {
        interrupted: false,
        ..ended(results)
    })
}

/// Names the results of `dataset` after the records its runs read, when its file holds
/// fewer than the `max_records` its name gives: `s50.txt (50 records)`, not
/// `s50.txt (first 600)`.
fn name_by_records(dataset: &PlannedDataset, results: &mut [RunResult]) {
    let Some(records) = results
        .iter()
        .filter(|r| r.failure.is_none())
        .map(|r| r.records)
        .max()
    else {
        return;
    };
    let name = dataset.name_for_records(records);
    if name == dataset.name {
        return;
    }
    for result in results {
        result.dataset.clone_from(&name);
        for listed in &mut result.listed {
            listed.dataset.clone_from(&name);
        }
    }
}

/// A built-in run's result, before its answers are compared.
fn builtin_result(
    dataset: &PlannedDataset,
    algorithm: &str,
    threads: usize,
    measurement: Measurement,
) -> RunResult {
    RunResult {
        records: measurement.records,
        rates: measurement.rates,
        latency_ns: measurement.latency_ns,
        statuses: measurement.statuses,
        effort: measurement.effort,
        ..unmeasured(dataset, algorithm, Some(threads))
    }
}

/// The result of `algorithm` on `dataset` before anything is measured.
fn unmeasured(dataset: &PlannedDataset, algorithm: &str, threads: Option<usize>) -> RunResult {
    RunResult {
        kind: dataset.kind.name().to_string(),
        dataset: dataset.name.clone(),
        algorithm: algorithm.to_string(),
        threads,
        records: 0,
        rates: Vec::new(),
        latency_ns: None,
        statuses: Vec::new(),
        effort: None,
        disagreements: 0,
        listed: Vec::new(),
        failure: None,
    }
}

/// Whether external programs run on `dataset`: datasets of a kind that takes them, whose
/// set allows it.
fn takes_externals(dataset: &PlannedDataset) -> bool {
    dataset.kind.takes_externals() && dataset.external
}

/// Checks an external program's output lines against the reference answers of the records
/// it was given (`records`, by line number): each record whose reference answer has a value
/// (a Sudoku solved uniquely: its solution) must get exactly that value; every record must
/// get a line.
fn compare_external(
    result: &mut RunResult,
    reference: &Reference,
    records: &[(u64, String)],
    lines: &[String],
) {
    for (i, (line, _)) in records.iter().enumerate() {
        let Some((answer, by)) = reference.answers.get(line) else {
            continue;
        };
        let by = &reference.runs[*by];
        match lines.get(i) {
            None => note(
                result,
                by,
                *line,
                answer.to_string(),
                "no answer line".into(),
            ),
            Some(got) => {
                if let Some(value) = &answer.value {
                    if got != value {
                        note(result, by, *line, answer.to_string(), got.clone());
                    }
                }
            }
        }
    }
    if lines.len() > records.len() {
        let by = reference.runs.first().map_or("", String::as_str);
        note(
            result,
            by,
            0,
            format!("{} answer lines", records.len()),
            format!("{} answer lines", lines.len()),
        );
    }
}

fn note(result: &mut RunResult, reference: &str, line: u64, expected: String, got: String) {
    result.disagreements += 1;
    if result.listed.len() < LISTED_DISAGREEMENTS {
        result.listed.push(Disagreement {
            dataset: result.dataset.clone(),
            algorithm: result.algorithm.clone(),
            threads: result.threads,
            line,
            expected,
            got,
            reference: reference.to_string(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(status: &str, value: Option<&str>) -> Answer {
        Answer {
            status: status.into(),
            value: value.map(String::from),
        }
    }

    fn empty_result() -> RunResult {
        RunResult {
            kind: "sudoku".into(),
            dataset: "d.txt".into(),
            algorithm: "other".into(),
            threads: None,
            records: 3,
            rates: vec![1.0],
            latency_ns: None,
            statuses: Vec::new(),
            effort: None,
            disagreements: 0,
            listed: Vec::new(),
            failure: None,
        }
    }

    #[test]
    fn external_answers_are_checked_where_the_solution_is_unique() {
        let mut reference = Reference::default();
        let mut first = empty_result();
        reference.check(
            "dlx ×1".into(),
            vec![
                (1, answer("solved", Some("123"))),
                (2, answer("multiple", None)),
                (3, answer("solved", Some("456"))),
            ],
            &mut first,
        );
        assert_eq!(first.disagreements, 0);
        let records: Vec<(u64, String)> = (1..=3).map(|l| (l, String::new())).collect();
        let mut result = empty_result();
        let lines = ["123".to_string(), "anything".into(), "457".into()];
        compare_external(&mut result, &reference, &records, &lines);
        assert_eq!(result.disagreements, 1);
        assert_eq!(result.listed[0].line, 3);
        assert_eq!(result.listed[0].expected, "solved 456");
        assert_eq!(result.listed[0].got, "457");

        let mut short = empty_result();
        compare_external(&mut short, &reference, &records, &lines[..1]);
        assert_eq!(short.disagreements, 2);
        assert_eq!(short.listed[1].got, "no answer line");

        // Given only the first record, only that one is checked.
        let mut first_only = empty_result();
        compare_external(&mut first_only, &reference, &records[..1], &lines[..1]);
        assert_eq!(first_only.disagreements, 0);
    }

    #[test]
    fn runs_on_first_records_and_whole_files_check_each_other() {
        let mut reference = Reference::default();
        let mut part = empty_result();
        reference.check(
            "backtrack ×1".into(),
            vec![(1, answer("solved", Some("1")))],
            &mut part,
        );
        let mut whole = empty_result();
        reference.check(
            "dlx ×1".into(),
            vec![
                (1, answer("solved", Some("2"))),
                (2, answer("solved", Some("3"))),
            ],
            &mut whole,
        );
        assert_eq!(whole.disagreements, 1);
        assert_eq!(whole.listed[0].reference, "backtrack ×1");
        let mut again = empty_result();
        reference.check(
            "dlx ×2".into(),
            vec![(2, answer("solved", Some("4")))],
            &mut again,
        );
        assert_eq!(again.disagreements, 1);
        assert_eq!(again.listed[0].reference, "dlx ×1");
    }
}
