//! The puzzle interface: what each puzzle implements once so that the shared parts — the
//! batch runner, the reports and `bench` — run it without knowing it.
//!
//! A puzzle implements [`Puzzle`]: its name, its algorithms, the settings a run of it takes
//! (with the defaults that the command line and `bench` share), the batch [`Job`] that
//! processes one record, and what a record's answer is when runs are compared. The shared
//! parts see puzzles only through [`Kind`], the same interface with its types erased, and
//! get the list of puzzles ([`crate::kinds`]) from their caller.

use std::fmt;
use std::marker::PhantomData;

use serde::de::DeserializeOwned;
use thiserror::Error;

use crate::batch::{self, BatchError, InputSpec, Job, Progress, RowSink, RunOptions, RunStats};

/// What a puzzle implements to be run, reported on and benchmarked by the shared parts.
pub trait Puzzle: Sync + 'static {
    /// The settings of a run that are not the algorithm (a solution limit, a board size,
    /// rules), read from a `bench` suite's `[[set]]` keys; `Default` gives the defaults the
    /// command line uses too.
    type Settings: DeserializeOwned + Default + PartialEq + fmt::Debug + Send + Sync + 'static;
    /// The batch job that processes one record.
    type Job: Job;

    /// The puzzle's name in suite files and reports, e.g. `sudoku` or `connect4-solve`.
    const NAME: &'static str;
    /// The subfolder of a datasets folder that holds this puzzle's files.
    const FOLDER: &'static str;
    /// The algorithms it can be run with, as named on the command line.
    const ALGORITHMS: &'static [&'static str];
    /// The result columns that make up a record's answer.
    const ANSWER_COLUMNS: &'static [&'static str];
    /// The result column that counts search effort per record (guesses, nodes), if any.
    const EFFORT_COLUMN: Option<&'static str> = None;
    /// Whether external programs that read one record per line and print its answer can
    /// be compared with this puzzle's algorithms (`bench --external`).
    const TAKES_EXTERNALS: bool = false;

    /// The job that runs `algorithm` (one of [`ALGORITHMS`](Self::ALGORITHMS)) with
    /// `settings` over `inputs`.
    fn job(
        settings: &Self::Settings,
        algorithm: &str,
        inputs: &[InputSpec],
    ) -> Result<Self::Job, PuzzleError>;

    /// Checks settings before any run (a suite's settings are checked as it is read).
    fn check(_settings: &Self::Settings) -> Result<(), PuzzleError> {
        Ok(())
    }

    /// Short notes naming the settings that differ from the defaults (`limit 1`,
    /// `separated`), for the names of datasets in reports.
    fn notes(_settings: &Self::Settings) -> Vec<String> {
        Vec::new()
    }

    /// A record's answer, from its status and its [`ANSWER_COLUMNS`](Self::ANSWER_COLUMNS)
    /// values: what two algorithms, or two thread counts, must agree on. By default the
    /// status and every answer value.
    fn answer(_settings: &Self::Settings, status: &str, values: &[String]) -> Answer {
        Answer {
            status: status.to_string(),
            value: Some(values.join(" ")),
        }
    }

    /// A data file made by the puzzle's generator from a suite's `generate` keys (a count,
    /// a seed and the generator's own settings, as on its `generate` command line), for
    /// `bench` to cache; by default the puzzle has none.
    fn generate(_keys: &toml::Table) -> Result<Vec<u8>, PuzzleError> {
        Err(PuzzleError::Settings {
            puzzle: Self::NAME,
            message: "it has no generator: name its files in `datasets`".into(),
        })
    }
}

/// `keys` (a table of a suite file) read as puzzle `P`'s settings of type `T`; the error
/// names the key that is wrong.
pub fn read_keys<P: Puzzle, T: DeserializeOwned>(keys: &toml::Table) -> Result<T, PuzzleError> {
    toml::Value::Table(keys.clone())
        .try_into()
        .map_err(|e: toml::de::Error| PuzzleError::Settings {
            puzzle: P::NAME,
            message: e.message().trim().to_string(),
        })
}

/// Why a puzzle cannot be set up for a run.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum PuzzleError {
    /// The puzzle has no such algorithm.
    #[error("{puzzle} has no algorithm {algorithm:?} (it has {})", known.join(", "))]
    UnknownAlgorithm {
        /// The puzzle's name.
        puzzle: &'static str,
        /// The name asked for.
        algorithm: String,
        /// The names it has.
        known: &'static [&'static str],
    },
    /// The settings are not valid for the puzzle.
    #[error("{puzzle}: {message}")]
    Settings {
        /// The puzzle's name.
        puzzle: &'static str,
        /// What is wrong.
        message: String,
    },
}

impl PuzzleError {
    /// `Ok` when `algorithm` is one of `P`'s.
    pub fn check_algorithm<P: Puzzle>(algorithm: &str) -> Result<(), Self> {
        if P::ALGORITHMS.contains(&algorithm) {
            Ok(())
        } else {
            Err(Self::unknown_algorithm::<P>(algorithm))
        }
    }

    /// The error for an algorithm `P` does not have.
    pub fn unknown_algorithm<P: Puzzle>(algorithm: &str) -> Self {
        PuzzleError::UnknownAlgorithm {
            puzzle: P::NAME,
            algorithm: algorithm.to_string(),
            known: P::ALGORITHMS,
        }
    }
}

/// What a record's result comes to, for comparing runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The record's status.
    pub status: String,
    /// The answer proper, when the status has one that every algorithm must reproduce.
    pub value: Option<String>,
}

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.value {
            Some(value) if !value.is_empty() => write!(f, "{} {value}", self.status),
            _ => f.write_str(&self.status),
        }
    }
}

/// A puzzle as the shared parts see it: [`Puzzle`] with its types erased.
pub trait Kind: Sync {
    /// See [`Puzzle::NAME`].
    fn name(&self) -> &'static str;
    /// See [`Puzzle::FOLDER`].
    fn folder(&self) -> &'static str;
    /// See [`Puzzle::ALGORITHMS`].
    fn algorithms(&self) -> &'static [&'static str];
    /// See [`Puzzle::ANSWER_COLUMNS`].
    fn answer_columns(&self) -> &'static [&'static str];
    /// See [`Puzzle::EFFORT_COLUMN`].
    fn effort_column(&self) -> Option<&'static str>;
    /// See [`Puzzle::TAKES_EXTERNALS`].
    fn takes_externals(&self) -> bool;
    /// The puzzle's settings read from `keys` (a suite's `[[set]]` keys other than the
    /// shared ones); keys left out take their defaults, unknown keys are an error.
    fn configure(&self, keys: &toml::Table) -> Result<Box<dyn Configured>, PuzzleError>;
    /// See [`Puzzle::generate`].
    fn generate(&self, keys: &toml::Table) -> Result<Vec<u8>, PuzzleError>;
}

/// A puzzle with its settings fixed, ready to run any of its algorithms.
pub trait Configured: fmt::Debug + Send + Sync {
    /// See [`Puzzle::notes`].
    fn notes(&self) -> Vec<String>;
    /// See [`Puzzle::answer`].
    fn answer(&self, status: &str, values: &[String]) -> Answer;
    /// Whether `other` has the same settings (and so gives the same answers).
    fn same_settings(&self, other: &dyn Configured) -> bool;
    /// Runs `algorithm` over `inputs` on the batch runner (see [`batch::run`]).
    fn run(
        &self,
        algorithm: &str,
        inputs: &[InputSpec],
        sink: &mut dyn RowSink,
        progress: &dyn Progress,
        options: &RunOptions,
    ) -> Result<RunStats, RunError>;
    /// The settings, for comparing with another puzzle's.
    fn as_any(&self) -> &dyn std::any::Any;
}

/// Why a run of a configured puzzle could not proceed.
#[derive(Debug, Error)]
pub enum RunError {
    /// The job could not be made.
    #[error(transparent)]
    Puzzle(#[from] PuzzleError),
    /// The batch run failed.
    #[error(transparent)]
    Batch(#[from] BatchError),
}

/// The [`Kind`] of puzzle `P`.
pub struct KindOf<P: Puzzle>(PhantomData<P>);

impl<P: Puzzle> KindOf<P> {
    /// The kind, as a value.
    pub const fn new() -> Self {
        KindOf(PhantomData)
    }
}

impl<P: Puzzle> Default for KindOf<P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<P: Puzzle> Kind for KindOf<P> {
    fn name(&self) -> &'static str {
        P::NAME
    }

    fn folder(&self) -> &'static str {
        P::FOLDER
    }

    fn algorithms(&self) -> &'static [&'static str] {
        P::ALGORITHMS
    }

    fn answer_columns(&self) -> &'static [&'static str] {
        P::ANSWER_COLUMNS
    }

    fn effort_column(&self) -> Option<&'static str> {
        P::EFFORT_COLUMN
    }

    fn takes_externals(&self) -> bool {
        P::TAKES_EXTERNALS
    }

    fn configure(&self, keys: &toml::Table) -> Result<Box<dyn Configured>, PuzzleError> {
        let settings: P::Settings = read_keys::<P, _>(keys)?;
        P::check(&settings)?;
        Ok(Box::new(Settings::<P>(settings)))
    }

    fn generate(&self, keys: &toml::Table) -> Result<Vec<u8>, PuzzleError> {
        // The data is made in memory before it is cached: a count beyond what a benchmark
        // needs is refused before anything is allocated.
        if let Some(count) = keys.get("count").and_then(toml::Value::as_integer) {
            if count > MAX_GENERATED {
                return Err(PuzzleError::Settings {
                    puzzle: P::NAME,
                    message: format!(
                        "count {count}: a suite generates at most {MAX_GENERATED} records; \
                         make larger files with `puzzlebench {} generate` and name them in \
                         `datasets`",
                        P::NAME
                    ),
                });
            }
        }
        P::generate(keys)
    }
}

/// The most records a suite's `generate` keys may ask for.
pub const MAX_GENERATED: i64 = 10_000_000;

/// Puzzle `P`'s settings, as a [`Configured`].
struct Settings<P: Puzzle>(P::Settings);

impl<P: Puzzle> fmt::Debug for Settings<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {:?}", P::NAME, self.0)
    }
}

impl<P: Puzzle> Configured for Settings<P> {
    fn notes(&self) -> Vec<String> {
        P::notes(&self.0)
    }

    fn answer(&self, status: &str, values: &[String]) -> Answer {
        P::answer(&self.0, status, values)
    }

    fn same_settings(&self, other: &dyn Configured) -> bool {
        other
            .as_any()
            .downcast_ref::<P::Settings>()
            .is_some_and(|settings| *settings == self.0)
    }

    fn run(
        &self,
        algorithm: &str,
        inputs: &[InputSpec],
        sink: &mut dyn RowSink,
        progress: &dyn Progress,
        options: &RunOptions,
    ) -> Result<RunStats, RunError> {
        let job = P::job(&self.0, algorithm, inputs)?;
        Ok(batch::run(&job, inputs, sink, progress, options)?)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use std::io::{self, Write};

    use crate::budget::Meter;

    use serde::Deserialize;

    use super::*;
    use crate::batch::{JobError, NoProgress, Outcome, Record, RecordContent, Value};

    /// A puzzle defined here and nowhere else: a record is a word, its answer the word's
    /// length, in characters or in bytes.
    struct WordLength;

    #[derive(Debug, Default, PartialEq, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    struct LengthSettings {
        upper: bool,
    }

    struct LengthJob {
        bytes: bool,
        upper: bool,
    }

    impl Job for LengthJob {
        type Layout = ();
        type Worker = ();

        fn columns(&self, _layout: &()) -> Vec<String> {
            vec!["word".into(), "length".into()]
        }
        fn statuses(&self) -> Vec<&'static str> {
            vec!["measured"]
        }
        fn layout(&self, _input: &InputSpec, _header: Option<&[String]>) -> Result<(), JobError> {
            Ok(())
        }
        fn new_worker(&self) {}
        fn process(
            &self,
            _: &mut (),
            _: &(),
            record: &Record<'_>,
            _: &mut Meter,
        ) -> Result<Outcome, JobError> {
            let RecordContent::Line(word) = record.content else {
                return Err(JobError::Invalid("not a word".into()));
            };
            let length = if self.bytes {
                word.len()
            } else {
                word.chars().count()
            };
            let word = if self.upper {
                word.to_uppercase()
            } else {
                word.to_string()
            };
            Ok(Outcome {
                status: "measured",
                failed: false,
                error: String::new(),
                values: vec![Value::Text(word), Value::Int(length as u64)],
            })
        }
    }

    impl Puzzle for WordLength {
        type Settings = LengthSettings;
        type Job = LengthJob;
        const NAME: &'static str = "word-length";
        const FOLDER: &'static str = "words";
        const ALGORITHMS: &'static [&'static str] = &["chars", "bytes"];
        const ANSWER_COLUMNS: &'static [&'static str] = &["length"];

        fn job(
            settings: &LengthSettings,
            algorithm: &str,
            _inputs: &[InputSpec],
        ) -> Result<LengthJob, PuzzleError> {
            let bytes = match algorithm {
                "chars" => false,
                "bytes" => true,
                _ => return Err(PuzzleError::unknown_algorithm::<Self>(algorithm)),
            };
            Ok(LengthJob {
                bytes,
                upper: settings.upper,
            })
        }

        fn notes(settings: &LengthSettings) -> Vec<String> {
            if settings.upper {
                vec!["upper".into()]
            } else {
                Vec::new()
            }
        }
    }

    /// Keeps each row's `length` value.
    #[derive(Default)]
    struct Lengths(Vec<String>);

    impl RowSink for Lengths {
        fn begin(&mut self, columns: &[String]) -> io::Result<()> {
            assert_eq!(
                columns,
                ["line", "status", "word", "length", "error", "micros"]
            );
            Ok(())
        }
        fn write_row(&mut self, row: &[Value]) -> io::Result<()> {
            self.0.push(row[3].to_text());
            Ok(())
        }
        fn finish(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn table(text: &str) -> toml::Table {
        text.parse().unwrap()
    }

    #[test]
    fn a_puzzle_runs_through_its_kind_without_shared_code_knowing_it() {
        let kind: &dyn Kind = &KindOf::<WordLength>::new();
        assert_eq!(kind.name(), "word-length");
        let plain = kind.configure(&table("")).unwrap();
        let upper = kind.configure(&table("upper = true")).unwrap();
        assert_eq!(plain.notes(), Vec::<String>::new());
        assert_eq!(upper.notes(), ["upper"]);
        assert!(plain.same_settings(kind.configure(&table("upper = false")).unwrap().as_ref()));
        assert!(!plain.same_settings(upper.as_ref()));

        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all("naïve\n# a comment\nab\n".as_bytes())
            .unwrap();
        let inputs = [InputSpec::new(file.path(), None)];
        let options = RunOptions::default();
        let mut chars = Lengths::default();
        let stats = plain
            .run("chars", &inputs, &mut chars, &NoProgress, &options)
            .unwrap();
        assert_eq!(stats.records, 2);
        assert_eq!(chars.0, ["5", "2"]);
        let mut bytes = Lengths::default();
        plain
            .run("bytes", &inputs, &mut bytes, &NoProgress, &options)
            .unwrap();
        assert_eq!(bytes.0, ["6", "2"]);
        let answer = plain.answer("measured", &["5".into()]);
        assert_eq!(answer.to_string(), "measured 5");
    }

    #[test]
    fn settings_and_algorithms_a_puzzle_lacks_are_named() {
        let kind = KindOf::<WordLength>::new();
        let error = kind.configure(&table("lower = true")).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("word-length: unknown field `lower`"),
            "{error}"
        );
        let plain = kind.configure(&table("")).unwrap();
        let error = plain
            .run(
                "words",
                &[],
                &mut Lengths::default(),
                &NoProgress,
                &RunOptions::default(),
            )
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "word-length has no algorithm \"words\" (it has chars, bytes)"
        );
    }
}
