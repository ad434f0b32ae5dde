//! Runs a plan: every dataset × algorithm × thread count, then any external programs, each
//! record's answer compared with the first run's on the same dataset.

use std::collections::HashMap;
use std::path::Path;

use hdrhistogram::Histogram;

use super::kind::{input_spec, Answer, Kind};
use super::measure::{measure_external, record_texts, Effort, Measurement, Timing};
use super::suite::{Plan, PlannedDataset};
use super::BenchError;

/// Disagreements listed per run at most (all are counted).
const LISTED_DISAGREEMENTS: usize = 20;

/// The name of a file's first run and its answers, once it has run.
type Reference = Option<(String, Vec<(u64, Answer)>)>;

/// An external program compared with the built-in algorithms on the Sudoku datasets: it reads
/// puzzles on standard input, one per line, and writes one answer (the solution) per line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct External {
    /// Its name in reports.
    pub name: String,
    /// The shell command that runs it.
    pub command: String,
}

/// One algorithm (or external program) measured on one dataset with one thread count.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// What the dataset holds.
    pub kind: Kind,
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
}

/// A record on which a run disagrees with the dataset's first run.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
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
    /// A measurement starts: `index` of `total` (1-based).
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
    /// A measurement is done.
    Finished(&'a RunResult),
}

/// Runs every measurement of `plan`, and `externals` on its Sudoku datasets, in suite order.
pub fn run_plan(
    plan: &Plan,
    externals: &[External],
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<Vec<RunResult>, BenchError> {
    let timing = Timing {
        warmup: plan.warmup,
        min_time: plan.min_time,
        max_repeats: plan.max_repeats,
    };
    let total: usize = plan
        .datasets
        .iter()
        .map(|d| {
            d.algorithms.len() * plan.threads.len()
                + if d.kind == Kind::Sudoku {
                    externals.len()
                } else {
                    0
                }
        })
        .sum();
    let mut index = 0;
    let mut results = Vec::new();
    // The first run on each file is the reference of every later run on it, also of runs
    // on its first records only (`max_records`).
    let mut references: HashMap<&Path, Reference> = HashMap::new();
    for dataset in &plan.datasets {
        let reference = references.entry(dataset.path.as_path()).or_default();
        for algorithm in &dataset.algorithms {
            for &threads in &plan.threads {
                index += 1;
                on_event(Event::Started {
                    index,
                    total,
                    dataset: &dataset.name,
                    algorithm,
                    threads: Some(threads),
                });
                let measurement = dataset.kind.measure(dataset, algorithm, threads, &timing)?;
                let result = compare_builtin(dataset, algorithm, threads, measurement, reference);
                on_event(Event::Finished(&result));
                results.push(result);
            }
        }
        if dataset.kind != Kind::Sudoku || externals.is_empty() {
            continue;
        }
        let texts = record_texts(&input_spec(&dataset.path), dataset.max_records)?;
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
            let runs = measure_external(&external.name, &external.command, &puzzles, &timing)?;
            let mut result = RunResult {
                kind: dataset.kind,
                dataset: dataset.name.clone(),
                algorithm: external.name.clone(),
                threads: None,
                records: puzzles.len() as u64,
                rates: runs.rates,
                latency_ns: None,
                statuses: Vec::new(),
                effort: None,
                disagreements: 0,
                listed: Vec::new(),
            };
            if let Some((reference_name, answers)) = reference.as_ref() {
                compare_external(&mut result, reference_name, answers, &runs.lines);
            }
            on_event(Event::Finished(&result));
            results.push(result);
        }
    }
    Ok(results)
}

/// A built-in run's result, its answers compared with the dataset's first run (or kept as
/// the reference if it is the first).
fn compare_builtin(
    dataset: &PlannedDataset,
    algorithm: &str,
    threads: usize,
    measurement: Measurement,
    reference: &mut Reference,
) -> RunResult {
    let mut result = RunResult {
        kind: dataset.kind,
        dataset: dataset.name.clone(),
        algorithm: algorithm.to_string(),
        threads: Some(threads),
        records: measurement.records,
        rates: measurement.rates,
        latency_ns: measurement.latency_ns,
        statuses: measurement.statuses,
        effort: measurement.effort,
        disagreements: 0,
        listed: Vec::new(),
    };
    match reference {
        None => *reference = Some((format!("{algorithm} ×{threads}"), measurement.answers)),
        Some((reference_name, expected)) => {
            // Runs on the first records only compare those.
            for (want, got) in expected.iter().zip(&measurement.answers) {
                if want.1 != got.1 {
                    let (line, want, got) = (want.0, want.1.to_string(), got.1.to_string());
                    note(&mut result, reference_name, line, want, got);
                }
            }
        }
    }
    result
}

/// Checks an external program's output lines against the reference answers: each record the
/// reference solved uniquely must get exactly its solution; every record must get a line.
fn compare_external(
    result: &mut RunResult,
    reference_name: &str,
    expected: &[(u64, Answer)],
    lines: &[String],
) {
    for (i, (line, answer)) in expected.iter().enumerate() {
        match lines.get(i) {
            None => note(
                result,
                reference_name,
                *line,
                answer.to_string(),
                "no answer line".into(),
            ),
            Some(got) => {
                if let Some(value) = answer.value.as_ref().filter(|_| answer.status == "solved") {
                    if got != value {
                        note(
                            result,
                            reference_name,
                            *line,
                            answer.to_string(),
                            got.clone(),
                        );
                    }
                }
            }
        }
    }
    if lines.len() > expected.len() {
        note(
            result,
            reference_name,
            0,
            format!("{} answer lines", expected.len()),
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
            kind: Kind::Sudoku,
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
        }
    }

    #[test]
    fn external_answers_are_checked_where_the_solution_is_unique() {
        let expected = vec![
            (1, answer("solved", Some("123"))),
            (2, answer("multiple", None)),
            (3, answer("solved", Some("456"))),
        ];
        let mut result = empty_result();
        let lines = ["123".to_string(), "anything".into(), "457".into()];
        compare_external(&mut result, "dlx ×1", &expected, &lines);
        assert_eq!(result.disagreements, 1);
        assert_eq!(result.listed[0].line, 3);
        assert_eq!(result.listed[0].expected, "solved 456");
        assert_eq!(result.listed[0].got, "457");

        let mut short = empty_result();
        compare_external(&mut short, "dlx ×1", &expected, &lines[..1]);
        assert_eq!(short.disagreements, 2);
        assert_eq!(short.listed[1].got, "no answer line");
    }
}
