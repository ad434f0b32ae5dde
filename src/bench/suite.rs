//! Suite files: which datasets, puzzle kinds, algorithms and thread counts a benchmark runs,
//! and how a suite is narrowed from the command line.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;

use crate::batch::{read_file_bounded, BoundedReadError, MAX_THREADS, MIB};
use crate::puzzle::{Configured, Kind};

use super::data_files::{expand, sets_for_folder};
use super::error::BenchError;

/// The suite `puzzlebench bench` runs without `--suite`: the repository's own `datasets/`,
/// paths relative to the current directory.
pub const DEFAULT_SUITE: &str = include_str!("../../benches/suites/default.toml");

/// The folder the built-in suite's paths are relative to: its file's folder, from the
/// repository root.
pub const DEFAULT_SUITE_FOLDER: &str = "benches/suites";

/// The most a suite file may hold (1 MiB): the largest suite of `benches/suites` is a few
/// kilobytes, so a larger file is no suite, and is refused before it fills memory.
pub const MAX_SUITE_BYTES: u64 = MIB;

/// A suite file as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct SuiteFile {
    name: String,
    #[serde(default = "default_min_time")]
    min_time: f64,
    #[serde(default = "default_warmup")]
    warmup: usize,
    #[serde(default = "default_max_repeats")]
    max_repeats: usize,
    #[serde(default = "default_min_repeats")]
    min_repeats: usize,
    #[serde(default = "default_threads")]
    threads: Vec<usize>,
    #[serde(rename = "set")]
    sets: Vec<SetFile>,
}

/// A `[[set]]` as written: the shared keys, and the puzzle's own settings beside them.
#[derive(Debug, Clone, Deserialize)]
struct SetFile {
    /// Spanned, so that messages about the set can give its line.
    kind: toml::Spanned<String>,
    #[serde(default)]
    datasets: Vec<String>,
    generate: Option<toml::Table>,
    algorithms: Vec<String>,
    max_records: Option<usize>,
    external: Option<bool>,
    #[serde(flatten)]
    settings: toml::Table,
}

/// A benchmark suite: datasets with their puzzle kinds and algorithms, thread counts and
/// timing settings.
#[derive(Debug, Clone)]
pub struct Suite {
    /// A short name; the default label of the report folder.
    pub name: String,
    /// Seconds of timed runs at least, per dataset × algorithm × thread count.
    pub min_time: f64,
    /// Untimed runs before the timed ones.
    pub warmup: usize,
    /// Timed runs at most, however fast they are.
    pub max_repeats: usize,
    /// Timed runs at least, however slow they are: enough for a spread.
    pub min_repeats: usize,
    /// Worker thread counts to run each measurement with.
    pub threads: Vec<usize>,
    /// The datasets, each group with its puzzle kind and algorithms.
    pub sets: Vec<SetSpec>,
    /// Where it was read from: its file, or `default` for the built-in suite.
    pub source: String,
}

/// One group of datasets of a suite file.
#[derive(Clone)]
pub struct SetSpec {
    /// What the datasets hold.
    pub kind: &'static dyn Kind,
    /// Paths or glob patterns, relative to the suite file's folder.
    pub datasets: Vec<String>,
    /// Or files named exactly (those of a `--datasets` folder, whose names may be bytes
    /// that no pattern spells).
    pub files: Vec<PathBuf>,
    /// Or a file the kind's generator makes, cached (see [`GeneratedFile`]).
    pub generate: Option<GeneratedFile>,
    /// Algorithms to compare (names as on the command line).
    pub algorithms: Vec<String>,
    /// The puzzle's own settings (a Sudoku solution limit, Battleship rules…): the set's
    /// other keys, defaults for those left out.
    pub settings: Arc<dyn Configured>,
    /// Only the first this many records of each dataset (for algorithms too slow for the
    /// whole file); the report says how many records ran.
    pub max_records: Option<usize>,
    /// Whether `--external` programs run on these datasets too (default true; false for
    /// datasets most programs cannot read, such as 16×16 Sudoku).
    pub external: Option<bool>,
}

impl fmt::Debug for SetSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SetSpec")
            .field("kind", &self.kind.name())
            .field("datasets", &self.datasets)
            .field("files", &self.files)
            .field("generate", &self.generate)
            .field("algorithms", &self.algorithms)
            .field("settings", &self.settings)
            .field("max_records", &self.max_records)
            .field("external", &self.external)
            .finish()
    }
}

/// A dataset made by a kind's generator on first use and kept in the cache folder: a set's
/// `generate = { file = "NAME", count = …, seed = …, … }`.
#[derive(Debug, Clone, PartialEq)]
pub struct GeneratedFile {
    /// The file's name in the cache folder's subfolder of its kind.
    pub file: String,
    /// The generator's keys: everything but `file`.
    pub keys: toml::Table,
}

impl GeneratedFile {
    /// Reads a set's `generate` table.
    fn read(mut table: toml::Table) -> Result<Self, String> {
        let file = match table.remove("file") {
            Some(toml::Value::String(file)) => file,
            Some(_) => return Err("generate: file must be a string".into()),
            None => return Err("generate: a file name is needed (file = \"NAME.txt\")".into()),
        };
        let plain = !file.is_empty()
            && file
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            && !file.starts_with('.');
        if !plain {
            return Err(format!(
                "generate: file must be a plain file name (letters, digits, - _ .), not {file:?}"
            ));
        }
        // `NAME.stamp` is where the stamp of a generated `NAME` is kept.
        if file.ends_with(".stamp") {
            return Err(format!(
                "generate: file {file:?} ends in .stamp, which names the stamps kept beside \
                 generated files: choose another name"
            ));
        }
        Ok(GeneratedFile { file, keys: table })
    }
}

fn default_min_time() -> f64 {
    1.0
}

fn default_warmup() -> usize {
    1
}

fn default_max_repeats() -> usize {
    50
}

fn default_min_repeats() -> usize {
    5
}

fn default_threads() -> Vec<usize> {
    vec![1]
}

/// A dataset file to measure, with everything needed to build its job.
#[derive(Clone)]
pub struct PlannedDataset {
    /// What it holds.
    pub kind: &'static dyn Kind,
    /// The file.
    pub path: PathBuf,
    /// Its name in reports: the file name, and `(first N)` with `max_records`.
    pub name: String,
    /// Algorithms to compare on it.
    pub algorithms: Vec<String>,
    /// The puzzle's settings.
    pub settings: Arc<dyn Configured>,
    /// Records to run at most.
    pub max_records: Option<usize>,
    /// Whether external programs run on it.
    pub external: bool,
    /// How to make the file when it is not in the cache yet.
    pub generate: Option<GeneratedFile>,
}

impl fmt::Debug for PlannedDataset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PlannedDataset")
            .field("kind", &self.kind.name())
            .field("path", &self.path)
            .field("name", &self.name)
            .field("algorithms", &self.algorithms)
            .field("settings", &self.settings)
            .field("max_records", &self.max_records)
            .field("external", &self.external)
            .field("generate", &self.generate)
            .finish()
    }
}

/// What to run: the suite's datasets resolved to files, and its timing settings.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The suite's name.
    pub name: String,
    /// Datasets in suite order.
    pub datasets: Vec<PlannedDataset>,
    /// Thread counts.
    pub threads: Vec<usize>,
    /// Seconds of timed runs at least per measurement.
    pub min_time: f64,
    /// Untimed runs first.
    pub warmup: usize,
    /// Timed runs at most.
    pub max_repeats: usize,
    /// Timed runs at least.
    pub min_repeats: usize,
}

/// Changes to a suite asked for on the command line.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct Overrides {
    /// Run the suite's kinds on the data files of DIR instead: DIR/sudoku/, DIR/connect4/…,
    /// or DIR itself when it is named after a kind (e.g. corpora/sudoku).
    #[arg(long = "datasets", value_name = "DIR")]
    pub datasets_dir: Option<PathBuf>,
    /// Only these algorithms, comma-separated (e.g. dlx,backtrack).
    #[arg(long = "algos", value_delimiter = ',', value_name = "ALGOS")]
    pub algorithms: Option<Vec<String>>,
    /// Thread counts to compare, comma-separated (e.g. 1,2), each 1 to 1024.
    #[arg(long, value_delimiter = ',', value_name = "COUNTS", value_parser = parse_thread_count)]
    pub threads: Option<Vec<usize>>,
    /// One timed run per measurement and no warm-up: a quick look, not figures to publish.
    #[arg(long)]
    pub quick: bool,
    /// Where generated datasets are kept (default: [`default_cache_folder`]).
    #[arg(skip)]
    pub cache: Option<PathBuf>,
}

/// Where generated datasets are kept by default: `puzzlebench-datasets` in Cargo's target
/// folder (`$CARGO_TARGET_DIR`, else `target` under the current folder), so that they are
/// made once per clone, never committed, and removed by `cargo clean`.
pub fn default_cache_folder() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .filter(|dir| !dir.is_empty())
        .map_or_else(|| PathBuf::from("target"), PathBuf::from)
        .join("puzzlebench-datasets")
}

impl Suite {
    /// Parses a suite file's text; `origin` names it in messages, `kinds` are the puzzle
    /// kinds its sets may name.
    pub fn parse(
        text: &str,
        origin: &str,
        kinds: &[&'static dyn Kind],
    ) -> Result<Suite, BenchError> {
        let fail = |message: String| BenchError::Suite {
            origin: origin.to_string(),
            message,
        };
        let file: SuiteFile = toml::from_str(text).map_err(|e| fail(e.to_string()))?;
        if !(file.min_time >= 0.0 && file.min_time.is_finite()) {
            return Err(fail(format!(
                "min_time must be a number of seconds ≥ 0, not {}",
                file.min_time
            )));
        }
        if file.min_repeats == 0 || file.max_repeats < file.min_repeats {
            return Err(fail(format!(
                "need 1 ≤ min_repeats ≤ max_repeats, not {} and {}",
                file.min_repeats, file.max_repeats
            )));
        }
        check_threads(&file.threads).map_err(fail)?;
        if file.sets.is_empty() {
            return Err(fail("the suite has no [[set]]".into()));
        }
        let sets = file
            .sets
            .into_iter()
            .enumerate()
            .map(|(index, set)| {
                let line = line_of(text, set.kind.span().start);
                set.resolve(kinds)
                    .map_err(|message| fail(format!("set {} (line {line}): {message}", index + 1)))
            })
            .collect::<Result<_, _>>()?;
        Ok(Suite {
            name: file.name,
            min_time: file.min_time,
            warmup: file.warmup,
            max_repeats: file.max_repeats,
            min_repeats: file.min_repeats,
            threads: distinct(&file.threads),
            sets,
            source: origin.to_string(),
        })
    }

    /// The suite of file `path` (the built-in [`DEFAULT_SUITE`] when `None`) with the folder
    /// its dataset paths are relative to: the file's folder ([`DEFAULT_SUITE_FOLDER`] for
    /// the built-in suite).
    pub fn load(
        path: Option<&Path>,
        kinds: &[&'static dyn Kind],
    ) -> Result<(Suite, PathBuf), BenchError> {
        let Some(path) = path else {
            let suite = Suite::parse(DEFAULT_SUITE, "default", kinds)?;
            return Ok((suite, PathBuf::from(DEFAULT_SUITE_FOLDER)));
        };
        let bytes = read_file_bounded(path, MAX_SUITE_BYTES).map_err(|e| {
            BenchError::Plan(match e {
                BoundedReadError::Io(e) => format!("cannot read suite {}: {e}", path.display()),
                BoundedReadError::TooLarge { .. } => {
                    format!("suite {} {e}: not a suite file", path.display())
                }
            })
        })?;
        let text = String::from_utf8(bytes).map_err(|e| {
            BenchError::Plan(format!(
                "cannot read suite {}: not valid UTF-8 at byte {}",
                path.display(),
                e.utf8_error().valid_up_to() + 1
            ))
        })?;
        let suite = Suite::parse(&text, &path.display().to_string(), kinds)?;
        let base = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        };
        Ok((suite, base))
    }

    /// Resolves the suite into files (patterns relative to `base`), with `overrides` applied.
    pub fn plan(&self, base: &Path, overrides: &Overrides) -> Result<Plan, BenchError> {
        let mut sets = self.sets.clone();
        if let Some(dir) = &overrides.datasets_dir {
            // Named from the current folder, while the suite's own patterns are relative
            // to the suite file's folder (`base`): the files found are named absolutely.
            let dir = std::path::absolute(dir)
                .map_err(|e| BenchError::Plan(format!("--datasets {}: {e}", dir.display())))?;
            sets = sets_for_folder(&sets, &dir)?;
        }
        if let Some(keep) = &overrides.algorithms {
            for name in keep {
                if !sets
                    .iter()
                    .any(|set| set.kind.algorithms().contains(&name.as_str()))
                {
                    return Err(BenchError::Plan(format!(
                        "no dataset of this suite can run algorithm {name:?}"
                    )));
                }
            }
            // An algorithm the suite does not list runs where its kind runs whole files.
            for name in keep {
                if sets.iter().any(|set| set.algorithms.contains(name)) {
                    continue;
                }
                for set in sets.iter_mut().filter(|set| {
                    set.max_records.is_none() && set.kind.algorithms().contains(&name.as_str())
                }) {
                    set.algorithms.push(name.clone());
                }
            }
            for set in &mut sets {
                set.algorithms.retain(|a| keep.contains(a));
            }
            sets.retain(|set| !set.algorithms.is_empty());
        }
        let cache = overrides.cache.clone().unwrap_or_else(default_cache_folder);
        let mut datasets: Vec<PlannedDataset> = Vec::new();
        for set in &sets {
            let paths = match &set.generate {
                Some(generated) => vec![cache.join(set.kind.folder()).join(&generated.file)],
                None if !set.files.is_empty() => set.files.clone(),
                None => expand(base, &set.datasets, &self.source)?,
            };
            for path in paths {
                if let Some(generated) = &set.generate {
                    let clash = datasets.iter().any(|d| {
                        d.path == path && d.generate.as_ref().is_some_and(|g| g != generated)
                    });
                    if clash {
                        return Err(BenchError::Plan(format!(
                            "two sets generate {} with different keys",
                            generated.file
                        )));
                    }
                }
                let planned = PlannedDataset {
                    kind: set.kind,
                    name: dataset_name(&path, 1, set.max_records, set.settings.as_ref()),
                    path,
                    algorithms: set.algorithms.clone(),
                    settings: Arc::clone(&set.settings),
                    max_records: set.max_records,
                    external: set.external.unwrap_or(true),
                    generate: set.generate.clone(),
                };
                // The same file with the same settings in several sets runs once, with all
                // their algorithms.
                match datasets.iter_mut().find(|d| d.same_runs(&planned)) {
                    Some(existing) => {
                        for algorithm in planned.algorithms {
                            if !existing.algorithms.contains(&algorithm) {
                                existing.algorithms.push(algorithm);
                            }
                        }
                        existing.external |= planned.external;
                    }
                    None => datasets.push(planned),
                }
            }
        }
        distinguish_names(&mut datasets);
        if datasets.is_empty() {
            return Err(BenchError::Plan(match &overrides.algorithms {
                Some(keep) => format!(
                    "nothing to run: no dataset of the suite runs {}",
                    keep.join(", ")
                ),
                None => "nothing to run".into(),
            }));
        }
        let threads = match &overrides.threads {
            Some(threads) => {
                check_threads(threads).map_err(BenchError::Plan)?;
                distinct(threads)
            }
            None => self.threads.clone(),
        };
        let (warmup, min_repeats, max_repeats, min_time) = if overrides.quick {
            (0, 1, 1, 0.0)
        } else {
            (
                self.warmup,
                self.min_repeats,
                self.max_repeats,
                self.min_time,
            )
        };
        Ok(Plan {
            name: self.name.clone(),
            datasets,
            threads,
            min_time,
            warmup,
            max_repeats,
            min_repeats,
        })
    }
}

impl PlannedDataset {
    /// Its name when its runs read `records` records: a file that holds fewer than its
    /// `max_records` says how many it holds (`s50.txt (50 records)`), not that they are
    /// its first `max_records`.
    pub fn name_for_records(&self, records: u64) -> String {
        let Some(cap) = self.max_records.filter(|&cap| records < cap as u64) else {
            return self.name.clone();
        };
        let first = format!("(first {cap}");
        match self.name.rfind(&first) {
            Some(at) => format!(
                "{}({records} records{}",
                &self.name[..at],
                &self.name[at + first.len()..]
            ),
            None => self.name.clone(),
        }
    }

    /// Whether `other` is the same file run with the same settings.
    fn same_runs(&self, other: &PlannedDataset) -> bool {
        self.kind.name() == other.kind.name()
            && self.path == other.path
            && self.settings.same_settings(other.settings.as_ref())
            && self.max_records == other.max_records
    }
}

/// A dataset's name in tables and charts: the file name (with the last `components` of
/// its path: `b/x.txt` for 2), with the settings that make it a dataset of its own —
/// `(first N)` for part of a file, the rules or limit if not the default.
fn dataset_name(
    path: &Path,
    components: usize,
    max_records: Option<usize>,
    settings: &dyn Configured,
) -> String {
    let parts: Vec<String> = path
        .components()
        .map(|part| crate::batch::os_text(part.as_os_str()))
        .collect();
    let file = parts[parts.len().saturating_sub(components.max(1))..].join("/");
    let file = file
        .strip_prefix("//")
        .map_or(file.clone(), |rest| format!("/{rest}"));
    let mut notes = Vec::new();
    if let Some(n) = max_records {
        notes.push(format!("first {n}"));
    }
    notes.extend(settings.notes());
    if notes.is_empty() {
        file
    } else {
        format!("{file} ({})", notes.join(", "))
    }
}

/// Names datasets of one name but different files (`a/x.txt` and `b/x.txt` are both
/// `x.txt`) by as many of their paths' last components as tell them apart: a name stands
/// for one file in the tables, the charts and `bench compare`'s pairs.
fn distinguish_names(datasets: &mut [PlannedDataset]) {
    let mut components = vec![1; datasets.len()];
    loop {
        let mut longer = Vec::new();
        for (i, a) in datasets.iter().enumerate() {
            let deepest = a.path.components().count();
            let clash = datasets
                .iter()
                .any(|b| b.name == a.name && b.path != a.path);
            if clash && components[i] < deepest {
                longer.push(i);
            }
        }
        if longer.is_empty() {
            return;
        }
        for i in longer {
            components[i] += 1;
            let d = &datasets[i];
            let name = dataset_name(&d.path, components[i], d.max_records, d.settings.as_ref());
            datasets[i].name = name;
        }
    }
}

impl SetFile {
    /// The set with its kind found among `kinds` and its settings read by that kind.
    fn resolve(self, kinds: &[&'static dyn Kind]) -> Result<SetSpec, String> {
        let kind = *kinds
            .iter()
            .find(|k| k.name() == self.kind.as_ref())
            .ok_or_else(|| {
                let names: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
                format!(
                    "unknown kind {:?} (the kinds are {})",
                    self.kind.as_ref(),
                    names.join(", ")
                )
            })?;
        let generate = self.generate.map(GeneratedFile::read).transpose()?;
        if self.datasets.is_empty() == generate.is_none() {
            return Err("give either datasets (files) or generate (a generated file)".into());
        }
        if self.algorithms.is_empty() {
            return Err("no algorithms".into());
        }
        for name in &self.algorithms {
            if !kind.algorithms().contains(&name.as_str()) {
                return Err(format!(
                    "{} has no algorithm {name:?} (it has {})",
                    kind.name(),
                    kind.algorithms().join(", ")
                ));
            }
        }
        if self.max_records == Some(0) {
            return Err("max_records must be at least 1".into());
        }
        let settings = kind.configure(&self.settings).map_err(|e| e.to_string())?;
        Ok(SetSpec {
            kind,
            datasets: self.datasets,
            files: Vec::new(),
            generate,
            algorithms: distinct(&self.algorithms),
            settings: Arc::from(settings),
            max_records: self.max_records,
            external: self.external,
        })
    }
}

/// The 1-based line of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&byte| byte == b'\n')
        .count()
        + 1
}

/// `items` (thread counts, algorithms, dataset files) each once, in the order first given:
/// one repeated would be measured twice, and its measurements taken for each other in
/// speed-ups and comparisons.
pub(super) fn distinct<T: PartialEq + Clone>(items: &[T]) -> Vec<T> {
    let mut seen: Vec<T> = Vec::with_capacity(items.len());
    for item in items {
        if !seen.contains(item) {
            seen.push(item.clone());
        }
    }
    seen
}

fn check_threads(threads: &[usize]) -> Result<(), String> {
    if threads.is_empty() || threads.contains(&0) {
        return Err("thread counts must be a non-empty list of numbers ≥ 1".into());
    }
    if let Some(many) = threads.iter().find(|&&n| n > MAX_THREADS) {
        return Err(format!(
            "thread count {many}: a measurement runs on 1 to {MAX_THREADS} threads"
        ));
    }
    Ok(())
}

/// A thread count of `bench --threads` that is not 1 to [`MAX_THREADS`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{text:?}: a number of threads from 1 to {MAX_THREADS}")]
pub struct ThreadCountError {
    /// The count as given.
    pub text: String,
}

/// One thread count of `bench --threads`: 1 to [`MAX_THREADS`], the batch commands' limit.
pub fn parse_thread_count(text: &str) -> Result<usize, ThreadCountError> {
    text.parse::<usize>()
        .ok()
        .filter(|threads| (1..=MAX_THREADS).contains(threads))
        .ok_or_else(|| ThreadCountError {
            text: text.to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_suite_parses_and_names_existing_datasets() {
        let suite = Suite::parse(DEFAULT_SUITE, "default", &crate::kinds::all()).unwrap();
        let base = Path::new(env!("CARGO_MANIFEST_DIR")).join(DEFAULT_SUITE_FOLDER);
        let plan = suite.plan(&base, &Overrides::default()).unwrap();
        assert!(plan.datasets.iter().any(|d| d.kind.name() == "sudoku"));
        assert!(plan.datasets.iter().any(|d| d.kind.name() == "connect4"));
        assert!(plan.datasets.iter().any(|d| d.kind.name() == "battleship"));
        assert!(plan.datasets.iter().any(|d| d.kind.name() == "tiling"));
        assert!(plan
            .datasets
            .iter()
            .all(|d| d.path.is_file() || d.generate.is_some()));
    }

    #[test]
    fn files_of_one_name_in_different_folders_are_named_apart() {
        let dir = tempfile::tempdir().unwrap();
        for folder in ["a/deep", "b/deep", "c"] {
            std::fs::create_dir_all(dir.path().join(folder)).unwrap();
            std::fs::write(dir.path().join(folder).join("x.txt"), "").unwrap();
        }
        std::fs::write(dir.path().join("c/y.txt"), "").unwrap();
        let text = "name = \"n\"\n[[set]]\nkind = \"sudoku\"\ndatasets = [\"a/deep/x.txt\", \
                    \"b/deep/x.txt\", \"c/x.txt\", \"c/y.txt\"]\nalgorithms = [\"dlx\"]\n";
        let suite = Suite::parse(text, "n.toml", &crate::kinds::all()).unwrap();
        let plan = suite.plan(dir.path(), &Overrides::default()).unwrap();
        let names: Vec<&str> = plan.datasets.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["a/deep/x.txt", "b/deep/x.txt", "c/x.txt", "y.txt"]);
    }

    #[test]
    fn an_algorithm_or_a_file_named_twice_is_measured_once() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("x.txt"), "").unwrap();
        let text = "name = \"n\"\n[[set]]\nkind = \"sudoku\"\ndatasets = [\"x.txt\", \"*.txt\"]\n\
                    algorithms = [\"fast\", \"dlx\", \"fast\"]\n";
        let suite = Suite::parse(text, "n.toml", &crate::kinds::all()).unwrap();
        let plan = suite.plan(dir.path(), &Overrides::default()).unwrap();
        assert_eq!(plan.datasets.len(), 1);
        assert_eq!(plan.datasets[0].algorithms, ["fast", "dlx"]);
    }

    #[test]
    fn every_committed_suite_parses() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/suites");
        let mut names = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let suite =
                Suite::parse(&text, &path.display().to_string(), &crate::kinds::all()).unwrap();
            names.push(suite.name);
        }
        names.sort();
        assert_eq!(
            names,
            ["default", "shared-connect4", "shared-sudoku", "sudoku-big"],
            "one test per suite file"
        );
    }

    #[test]
    fn bad_suites_say_what_is_wrong() {
        let unknown_algorithm = r#"
            name = "x"
            [[set]]
            kind = "sudoku"
            datasets = ["a.txt"]
            algorithms = ["quantum"]
        "#;
        let error = Suite::parse(unknown_algorithm, "x.toml", &crate::kinds::all()).unwrap_err();
        assert_eq!(
            error.to_string(),
            "suite x.toml: set 1 (line 4): sudoku has no algorithm \"quantum\" (it has dlx, backtrack, fast)"
        );
        let error =
            Suite::parse("name = \"x\"\nset = []\n", "y.toml", &crate::kinds::all()).unwrap_err();
        assert_eq!(error.to_string(), "suite y.toml: the suite has no [[set]]");
        let error = Suite::parse("name = 3", "z.toml", &crate::kinds::all()).unwrap_err();
        assert!(error.to_string().starts_with("suite z.toml: "), "{error}");
    }

    #[test]
    fn thread_counts_above_the_batch_limit_are_refused() {
        let suite = |threads: &str| {
            let text = format!(
                "name = \"x\"\nthreads = [{threads}]\n[[set]]\nkind = \"sudoku\"\n\
                 datasets = [\"a.txt\"]\nalgorithms = [\"dlx\"]\n"
            );
            Suite::parse(&text, "t.toml", &crate::kinds::all()).map(|suite| suite.threads)
        };
        assert_eq!(suite("1, 1024").unwrap(), [1, 1024]);
        assert_eq!(suite("2, 1, 2, 1, 1").unwrap(), [2, 1], "each count once");
        assert_eq!(
            suite("1, 1025").unwrap_err().to_string(),
            "suite t.toml: thread count 1025: a measurement runs on 1 to 1024 threads"
        );
        assert_eq!(parse_thread_count("1024"), Ok(1024));
        for text in ["0", "1025", "99999999999", "-1", "two"] {
            assert_eq!(
                parse_thread_count(text).unwrap_err().to_string(),
                format!("{text:?}: a number of threads from 1 to 1024")
            );
        }
        // Overrides made without the command line are checked when planned.
        let default = Suite::parse(DEFAULT_SUITE, "default", &crate::kinds::all()).unwrap();
        let base = Path::new(env!("CARGO_MANIFEST_DIR")).join(DEFAULT_SUITE_FOLDER);
        let overrides = Overrides {
            threads: Some(vec![1, 99_999_999_999]),
            ..Overrides::default()
        };
        assert_eq!(
            default.plan(&base, &overrides).unwrap_err().to_string(),
            "thread count 99999999999: a measurement runs on 1 to 1024 threads"
        );
        let repeated = Overrides {
            threads: Some(vec![1, 1, 2, 1]),
            ..Overrides::default()
        };
        assert_eq!(default.plan(&base, &repeated).unwrap().threads, [1, 2]);
    }

    #[test]
    fn folders_and_files_whose_names_are_not_utf8_are_found_and_named_by_their_bytes() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let bytes = |b: &[u8]| std::ffi::OsStr::from_bytes(b).to_os_string();
        // The suite's folder, a data folder and a file, each with a byte that is no UTF-8.
        let base = dir.path().join(bytes(b"suite\xff"));
        let data = base.join(bytes(b"data\xfe"));
        std::fs::create_dir_all(data.join("deeper")).unwrap();
        let puzzle =
            "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......\n";
        std::fs::write(data.join(bytes(b"p\xe9.txt")), puzzle).unwrap();
        std::fs::write(data.join("deeper/q.txt"), puzzle).unwrap();
        let suite = Suite::parse(
            "name = \"n\"\n[[set]]\nkind = \"sudoku\"\ndatasets = [\"*/*.txt\", \"**/q.txt\"]\n\
             algorithms = [\"dlx\"]\n",
            "n",
            &crate::kinds::all(),
        )
        .unwrap();
        let plan = suite.plan(&base, &Overrides::default()).unwrap();
        let found: Vec<(&Path, &str)> = (plan.datasets.iter())
            .map(|d| (d.path.as_path(), d.name.as_str()))
            .collect();
        let (first, second) = (data.join(bytes(b"p\xe9.txt")), data.join("deeper/q.txt"));
        assert_eq!(
            found,
            [(first.as_path(), "p\\xe9.txt"), (second.as_path(), "q.txt")]
        );
        // The same file found through --datasets.
        let folder = Overrides {
            datasets_dir: Some(base.clone()),
            ..Overrides::default()
        };
        std::fs::create_dir(base.join("sudoku")).unwrap();
        std::fs::rename(&first, base.join(bytes(b"sudoku/r\xe9.txt"))).unwrap();
        let plan = suite.plan(dir.path(), &folder).unwrap();
        let names: Vec<&str> = plan.datasets.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["r\\xe9.txt"]);
        assert!(plan.datasets[0].path.is_file());
    }

    #[test]
    fn any_depth_follows_links_to_folders_and_ends_on_loops() {
        let dir = tempfile::tempdir().unwrap();
        let (base, real) = (dir.path().join("suite"), dir.path().join("real"));
        std::fs::create_dir_all(base.join("data")).unwrap();
        std::fs::create_dir_all(real.join("sub")).unwrap();
        let puzzle =
            "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......\n";
        std::fs::write(real.join("sub/a.txt"), puzzle).unwrap();
        std::os::unix::fs::symlink("../../real", base.join("data/linked")).unwrap();
        // A link back up: walking it would never end.
        std::os::unix::fs::symlink("..", real.join("sub/up")).unwrap();
        let suite = Suite::parse(
            "name = \"n\"\n[[set]]\nkind = \"sudoku\"\ndatasets = [\"data/**/*.txt\"]\n\
             algorithms = [\"dlx\"]\n",
            "n",
            &crate::kinds::all(),
        )
        .unwrap();
        let plan = suite.plan(&base, &Overrides::default()).unwrap();
        let paths: Vec<&Path> = plan.datasets.iter().map(|d| d.path.as_path()).collect();
        assert_eq!(paths, [base.join("data/linked/sub/a.txt")]);
    }

    #[test]
    fn a_file_shorter_than_max_records_is_named_by_its_records() {
        let suite = Suite::parse(DEFAULT_SUITE, "default", &crate::kinds::all()).unwrap();
        let base = Path::new(env!("CARGO_MANIFEST_DIR")).join(DEFAULT_SUITE_FOLDER);
        let overrides = Overrides {
            algorithms: Some(vec!["backtrack".into()]),
            ..Overrides::default()
        };
        let plan = suite.plan(&base, &overrides).unwrap();
        let dataset = &plan.datasets[0];
        assert_eq!(dataset.max_records, Some(600));
        let name = dataset.name.clone();
        assert!(name.ends_with(" (first 600)"), "{name}");
        let file = name.trim_end_matches(" (first 600)");
        assert_eq!(dataset.name_for_records(50), format!("{file} (50 records)"));
        assert_eq!(dataset.name_for_records(600), name);
    }

    #[test]
    fn overrides_narrow_the_plan() {
        let suite = Suite::parse(DEFAULT_SUITE, "default", &crate::kinds::all()).unwrap();
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let base = root.join(DEFAULT_SUITE_FOLDER);
        let overrides = Overrides {
            algorithms: Some(vec!["backtrack".into()]),
            threads: Some(vec![2]),
            quick: true,
            ..Overrides::default()
        };
        let plan = suite.plan(&base, &overrides).unwrap();
        assert!(plan
            .datasets
            .iter()
            .all(|d| d.kind.name() == "sudoku" && d.algorithms == ["backtrack"]));
        assert_eq!(plan.threads, [2]);
        assert_eq!((plan.warmup, plan.max_repeats), (0, 1));

        let folder = Overrides {
            datasets_dir: Some(root.join("datasets/battleship")),
            ..Overrides::default()
        };
        let plan = suite.plan(&base, &folder).unwrap();
        let names: Vec<&str> = plan.datasets.iter().map(|d| d.name.as_str()).collect();
        // Each set keeps its rules, so both rules run on every file of the folder.
        assert_eq!(
            names,
            [
                "seed-field.txt",
                "separated-1k.txt",
                "touching-1k.txt",
                "seed-field.txt (separated)",
                "separated-1k.txt (separated)",
                "touching-1k.txt (separated)"
            ]
        );

        // Sets keep their algorithms and first-records limits; the same file with the same
        // settings runs once.
        let folder = Overrides {
            datasets_dir: Some(root.join("datasets/sudoku")),
            ..Overrides::default()
        };
        let plan = suite.plan(&base, &folder).unwrap();
        let runs: Vec<(String, Vec<String>, bool)> = plan
            .datasets
            .iter()
            .map(|d| (d.name.clone(), d.algorithms.clone(), d.external))
            .collect();
        let files = [
            "generated-16x16-20.txt",
            "generated-16x16-300.txt.gz",
            "generated-16x16-easy-100.txt",
            "generated-16x16-minimal-100.txt",
            "generated-1k.csv",
            "generated-25x25-easy-40.txt",
            "generated-25x25-hard-30.txt",
            "generated-36x36-10.csv",
            "generated-49x49-4.csv",
            "generated-hard-200.txt",
            "mixed.txt",
            "seed-puzzles.csv",
        ];
        let mut expected: Vec<(String, Vec<String>, bool)> = files
            .iter()
            .map(|f| {
                (
                    f.to_string(),
                    vec!["fast".to_string(), "dlx".to_string()],
                    true,
                )
            })
            .collect();
        expected.extend(files.iter().map(|f| {
            (
                format!("{f} (first 600)"),
                vec!["backtrack".to_string()],
                true,
            )
        }));
        assert_eq!(runs, expected);
    }

    #[test]
    fn a_dataset_that_is_no_regular_file_is_said_to_be_one() {
        let dir = tempfile::tempdir().unwrap();
        for folder in ["subdir", "d1", "d2"] {
            std::fs::create_dir(dir.path().join(folder)).unwrap();
        }
        let error = |pattern: &str| {
            let suite = Suite::parse(
                &format!(
                    "name = \"x\"\n[[set]]\nkind = \"sudoku\"\ndatasets = [{pattern:?}]\n\
                     algorithms = [\"dlx\"]\n"
                ),
                "x",
                &crate::kinds::all(),
            )
            .unwrap();
            let plan = suite.plan(dir.path(), &Overrides::default());
            plan.unwrap_err().to_string()
        };
        assert_eq!(
            error("subdir/"),
            "dataset \"subdir/\" is a directory, not a file (name its files, e.g. \
             \"subdir/*.txt\")"
        );
        assert_eq!(
            error("/dev/null"),
            "dataset \"/dev/null\" is not a regular file"
        );
        assert_eq!(
            error("d*"),
            format!(
                "dataset \"d*\" matches no regular file: {} is a directory (and 1 more that \
                 are not files either)",
                dir.path().join("d1").display()
            )
        ); // A named pipe among a pattern's files is refused, not passed over.
        std::fs::create_dir(dir.path().join("d3")).unwrap();
        std::fs::write(dir.path().join("d3/a.txt"), "").unwrap();
        let pipe = dir.path().join("d3/b.txt");
        let name = std::ffi::CString::new(pipe.to_str().unwrap()).unwrap();
        // SAFETY: `name` is a valid C string that lives across the call.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        assert_eq!(
            error("d3/*.txt"),
            format!(
                "dataset \"d3/*.txt\" matches {}, which is not a regular file (a named pipe or \
                 a device); a benchmark reads each dataset several times",
                pipe.display()
            )
        );
    }

    #[test]
    fn a_pattern_matching_nothing_is_an_error() {
        let error = |source: &str| {
            let suite = Suite::parse(
                "name = \"x\"\n[[set]]\nkind = \"sudoku\"\ndatasets = [\"nowhere/*.txt\"]\nalgorithms = [\"dlx\"]\n",
                source,
                &crate::kinds::all(),
            )
            .unwrap();
            let plan = suite.plan(Path::new("/tmp"), &Overrides::default());
            plan.unwrap_err().to_string()
        };
        assert_eq!(
            error("default"),
            "dataset \"nowhere/*.txt\" matches no file (looked in /tmp; the built-in suite runs \
             from the repository root, or name files with --suite or --datasets)"
        );
        // A suite file's own paths are relative to its folder: no word of the built-in one.
        assert_eq!(
            error("mine.toml"),
            "dataset \"nowhere/*.txt\" of mine.toml matches no file (looked in /tmp, the suite \
             file's folder, which its paths are relative to)"
        );
    }
}
