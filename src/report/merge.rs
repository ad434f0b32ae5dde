//! `report merge`: the report folders of shards or engine partitions combined into the
//! report one run over all their records would have written. Counts are summed, latency
//! percentiles come from the parts' histograms added together (never averaged), CPU time
//! is the sum, wall time spans the earliest start to the latest end, and `env.json` lists
//! the hosts.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use hdrhistogram::serialization::{
    DeserializeError, Deserializer, Serializer, V2DeflateSerializer,
};
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use thiserror::Error;

use super::export::{to_json, write_file, ExportError};
use super::{EnvInfo, Summary};
use crate::batch::{
    byte_size, counted, read_regular_file_bounded, same_file, without_byte_order_mark,
    BoundedReadError, RunStats, Shard, MIB,
};

/// The file of a report folder that holds the latency histogram.
pub const HISTOGRAM_FILE: &str = "latency.hdr";

/// The most a report file read back (`summary.json`, `env.json`, `latency.hdr`) may hold
/// (16 MiB, thousands of times what a run's report holds): a larger file is no report
/// file, and is refused before it fills memory.
pub const MAX_REPORT_FILE_BYTES: u64 = 16 * MIB;

/// Why report folders cannot be merged.
#[derive(Debug, Error)]
pub enum MergeError {
    /// No folder was given.
    #[error("no report folders to merge")]
    Nothing,
    /// A folder's run was resumed: the records of the rows already in its results file
    /// are not counted.
    #[error(
        "{} is the report of a resumed run, which counted only the records after the {rows} rows \
         already in its results file: run the shard again without --resume and --report, \
         or merge the results files themselves",
        dir.display()
    )]
    Resumed {
        /// The folder.
        dir: PathBuf,
        /// The rows its run found in the results file.
        rows: u64,
    },
    /// A folder's run was interrupted: its records are not all counted.
    #[error(
        "{} is the report of an interrupted run, which did not count all its records: \
         run it again to its end with --report, then merge that report",
        dir.display()
    )]
    Interrupted {
        /// The folder.
        dir: PathBuf,
    },
    /// The output folder is one of the folders merged, whose report it would replace.
    #[error(
        "the output {} is the report folder {} being merged: writing it would replace that \
         report; name another folder",
        output.display(),
        part.display()
    )]
    OutputIsPart {
        /// The output folder.
        output: PathBuf,
        /// The folder merged.
        part: PathBuf,
    },
    /// A file of a folder cannot be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A file is larger than any report file puzzlebench writes.
    #[error(
        "{} is larger than {}: not a file of a report puzzlebench wrote",
        path.display(),
        byte_size(*limit)
    )]
    Oversized {
        /// The file.
        path: PathBuf,
        /// The most a report file may hold, in bytes.
        limit: u64,
    },
    /// A folder is a `bench` report, not a batch run's.
    #[error(
        "{} is a `puzzlebench bench` report: report merge takes the --report folders of \
         batch commands (sudoku solve, connect4 validate, …)",
        dir.display()
    )]
    BenchReport {
        /// The folder.
        dir: PathBuf,
    },
    /// A file is not what a puzzlebench report holds.
    #[error("{} is not a puzzlebench report file: {message}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A folder's latency histogram cannot be decoded.
    #[error("{} {damage}", path.display())]
    Histogram {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        damage: HistogramDamage,
    },
    /// Two folders report different runs.
    #[error(
        "{} reports {what} {found}, but {} reports {first}: only reports of the same command, \
         inputs, settings and build merge",
        dir.display(), first_dir.display()
    )]
    Differs {
        /// What differs (`command`, `inputs`, a setting, `version`).
        what: String,
        /// The first folder.
        first_dir: PathBuf,
        /// Its value.
        first: String,
        /// The folder that differs.
        dir: PathBuf,
        /// Its value.
        found: String,
    },
    /// The shards are not each shard of one split exactly once.
    #[error("{0}")]
    Shards(String),
    /// A folder's counts per status do not add up to its records.
    #[error(
        "{} reports {records} records, but its counts per status add up to {counted}: \
         its summary.json was changed or damaged",
        dir.display()
    )]
    Statuses {
        /// The folder.
        dir: PathBuf,
        /// Its `records`.
        records: u64,
        /// Its counts per status, summed.
        counted: u64,
    },
    /// A count or a time of a folder, added to the others', is more than a report holds.
    #[error(
        "the folders' {what} add up to more than a report can hold (from {} on): were \
         their files changed or damaged?",
        dir.display()
    )]
    TooLarge {
        /// The folder whose count made the sum overflow.
        dir: PathBuf,
        /// What overflows (`records`, `cpu_seconds`, …).
        what: String,
    },
    /// The merged report cannot be written.
    #[error(transparent)]
    Write(#[from] ExportError),
}

/// What is wrong with a report folder's latency histogram.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum HistogramDamage {
    /// The file ends before the histogram does.
    #[error("is cut short")]
    CutShort,
    /// The file holds something else, or a histogram damaged inside.
    #[error("is not a latency histogram puzzlebench wrote")]
    Foreign,
}

impl HistogramDamage {
    /// The damage a decoding error shows.
    fn of(error: &DeserializeError) -> Self {
        match error {
            DeserializeError::IoError(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                HistogramDamage::CutShort
            }
            _ => HistogramDamage::Foreign,
        }
    }
}

/// One host's part in a merged report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostEnv {
    /// Host name.
    pub host: String,
    /// CPU model name.
    pub cpu_model: String,
    /// Logical cores.
    pub cores: usize,
    /// Operating system and kernel.
    pub os: String,
    /// Worker threads of its runs, summed.
    pub threads: usize,
    /// Report folders from this host.
    pub parts: usize,
}

/// `env.json` of a merged report: the build, and every host that ran a part.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MergedEnv {
    /// Always `puzzlebench`.
    pub tool: String,
    /// The crate version of every part.
    pub version: String,
    /// The git commit of every part, when known.
    pub git_commit: Option<String>,
    /// The compiler that built it.
    pub rustc: String,
    /// When the last part's report was written (UTC, RFC 3339).
    pub date: String,
    /// Report folders merged (parts of merged folders counted one by one).
    pub parts: usize,
    /// Worker threads of all parts.
    pub threads: usize,
    /// The hosts that ran the parts, in the order first seen.
    pub hosts: Vec<HostEnv>,
}

/// `env.json` of a folder to merge: a run's, or an earlier merge's.
enum PartEnv {
    Merged(MergedEnv),
    Run(EnvInfo),
}

/// Reads the text of a folder's `env.json`: an earlier merge's when it lists `hosts`, else
/// a run's. The message says what is wrong in the file's own terms.
fn part_env(text: &[u8]) -> Result<PartEnv, String> {
    let value: Json = serde_json::from_slice(text).map_err(|e| e.to_string())?;
    let Json::Object(fields) = &value else {
        return Err("it holds no JSON object of facts (tool, version, host, cores, …)".into());
    };
    let env = if fields.contains_key("hosts") {
        serde_json::from_slice(text).map(PartEnv::Merged)
    } else {
        serde_json::from_slice(text).map(PartEnv::Run)
    };
    env.map_err(|e| e.to_string())
}

impl PartEnv {
    fn into_merged(self) -> MergedEnv {
        match self {
            PartEnv::Merged(env) => env,
            PartEnv::Run(env) => MergedEnv {
                tool: env.tool,
                version: env.version,
                git_commit: env.git_commit,
                rustc: env.rustc,
                date: env.date,
                parts: 1,
                threads: env.threads,
                hosts: vec![HostEnv {
                    host: env.host,
                    cpu_model: env.cpu_model,
                    cores: env.cores,
                    os: env.os,
                    threads: env.threads,
                    parts: 1,
                }],
            },
        }
    }
}

/// A report folder read back.
struct Part {
    dir: PathBuf,
    summary: Summary,
    env: MergedEnv,
}

/// A merged report, ready to write with [`write_merged`].
#[derive(Debug, Clone)]
pub struct Merged {
    /// The summary one run over every part's records would have given.
    pub summary: Summary,
    /// The build and the hosts.
    pub env: MergedEnv,
}

/// The latency histogram as stored in a report folder (HdrHistogram V2, deflated: the
/// format other HdrHistogram libraries read).
pub fn histogram_bytes(histogram: &Histogram<u64>) -> Vec<u8> {
    let mut bytes = Vec::new();
    V2DeflateSerializer::new()
        .serialize(histogram, &mut bytes)
        .expect("a histogram serialises into memory");
    bytes
}

/// Reads the report folder `dir` (as `--report` or an earlier merge wrote it).
fn read_part(dir: &Path) -> Result<Part, MergeError> {
    let read = |name: &str| {
        let path = dir.join(name);
        read_regular_file_bounded(&path, MAX_REPORT_FILE_BYTES).map_err(|error| match error {
            BoundedReadError::Io(source) => MergeError::Read { path, source },
            BoundedReadError::TooLarge { limit } => MergeError::Oversized { path, limit },
        })
    };
    let format = |name: &str, message: String| MergeError::Format {
        path: dir.join(name),
        message,
    };
    // A byte order mark, which some editors add to a JSON file they save, is no part of
    // its text.
    let summary = read("summary.json")?;
    let summary_text = without_byte_order_mark(&summary);
    let mut summary: Summary = serde_json::from_slice(summary_text).map_err(|e| {
        // A `bench` report has a `suite` where a run's has its `command`.
        let bench = serde_json::from_slice::<Json>(summary_text)
            .is_ok_and(|json| json.get("suite").is_some() && json.get("command").is_none());
        match bench {
            true => MergeError::BenchReport {
                dir: dir.to_path_buf(),
            },
            false => format("summary.json", e.to_string()),
        }
    })?;
    let env = read("env.json")?;
    let env = part_env(without_byte_order_mark(&env)).map_err(|e| format("env.json", e))?;
    let bytes = read(HISTOGRAM_FILE)?;
    summary.latency_ns = Deserializer::new()
        .deserialize(&mut bytes.as_slice())
        .map_err(|e| MergeError::Histogram {
            path: dir.join(HISTOGRAM_FILE),
            damage: HistogramDamage::of(&e),
        })?;
    Ok(Part {
        dir: dir.to_path_buf(),
        summary,
        env: env.into_merged(),
    })
}

/// Refuses `output` when it is one of `dirs` (by any path): writing the merged report
/// there would replace one of the reports merged.
pub fn check_merge_output(output: &Path, dirs: &[PathBuf]) -> Result<(), MergeError> {
    use std::os::unix::fs::MetadataExt;
    // An output that does not exist yet cannot be one of the folders.
    let Ok(out) = std::fs::metadata(output) else {
        return Ok(());
    };
    for dir in dirs {
        let same =
            std::fs::metadata(dir).is_ok_and(|d| d.dev() == out.dev() && d.ino() == out.ino());
        if same {
            return Err(MergeError::OutputIsPart {
                output: output.to_path_buf(),
                part: dir.clone(),
            });
        }
    }
    Ok(())
}

/// Merges the report folders `dirs`.
pub fn merge(dirs: &[PathBuf]) -> Result<Merged, MergeError> {
    let parts = dirs
        .iter()
        .map(|dir| read_part(dir))
        .collect::<Result<Vec<_>, _>>()?;
    let first = parts.first().ok_or(MergeError::Nothing)?;
    if let Some(part) = parts.iter().find(|part| part.summary.interrupted) {
        return Err(MergeError::Interrupted {
            dir: part.dir.clone(),
        });
    }
    if let Some(part) = parts.iter().find(|part| part.summary.resumed_rows > 0) {
        return Err(MergeError::Resumed {
            dir: part.dir.clone(),
            rows: part.summary.resumed_rows,
        });
    }
    for part in &parts {
        check_counts(part)?;
    }
    for part in &parts[1..] {
        same_run(first, part)?;
    }
    check_shards(&parts)?;
    Ok(Merged {
        summary: merged_summary(&parts)?,
        env: merged_env(&parts)?,
    })
}

/// Checks that a folder's counts per status are counts and add up to its records, and
/// that its wall and CPU seconds are times a run can take.
fn check_counts(part: &Part) -> Result<(), MergeError> {
    let summary = &part.summary;
    let format = |message: String| MergeError::Format {
        path: part.dir.join("summary.json"),
        message,
    };
    seconds(part, "wall_seconds", summary.wall_seconds)?;
    seconds(part, "cpu_seconds", summary.cpu_seconds)?;
    let mut counted: u64 = 0;
    for (status, n) in &summary.statuses {
        let n = n
            .as_u64()
            .ok_or_else(|| format(format!("statuses: {status} is {n}, not a count of records")))?;
        counted = counted
            .checked_add(n)
            .ok_or_else(|| format("statuses add up to more than a report can hold".into()))?;
    }
    if counted != summary.records {
        return Err(MergeError::Statuses {
            dir: part.dir.clone(),
            records: summary.records,
            counted,
        });
    }
    if summary.rows_from_file > summary.records {
        return Err(format(format!(
            "rows_from_file is {}, more than its {} records",
            summary.rows_from_file, summary.records
        )));
    }
    Ok(())
}

/// The time `value` of `field` in a folder's `summary.json`, refused unless a run can take
/// it: not negative, and small enough that a clock reading plus it is still a date.
fn seconds(part: &Part, field: &str, value: f64) -> Result<Duration, MergeError> {
    Duration::try_from_secs_f64(value)
        .ok()
        .filter(|&time| SystemTime::UNIX_EPOCH.checked_add(time).is_some())
        .ok_or_else(|| MergeError::Format {
            path: part.dir.join("summary.json"),
            message: format!("{field} is {value:?}, not a number of seconds a run can take"),
        })
}

/// The error for `what` of `part` that overflows when added to the other folders'.
fn too_large(part: &Part, what: &str) -> MergeError {
    MergeError::TooLarge {
        dir: part.dir.clone(),
        what: what.to_string(),
    }
}

/// Checks that `part` reports the same command, inputs, settings and build as `first`.
/// Inputs are compared as named on the command line: the shards of one split name the same
/// files, and an engine's partitions all read standard input (`-`).
fn same_run(first: &Part, part: &Part) -> Result<(), MergeError> {
    let differs = |what: &str, a: String, b: String| {
        if a == b {
            return Ok(());
        }
        Err(MergeError::Differs {
            what: what.to_string(),
            first_dir: first.dir.clone(),
            first: a,
            dir: part.dir.clone(),
            found: b,
        })
    };
    let (a, b) = (&first.summary, &part.summary);
    differs("command", a.command.clone(), b.command.clone())?;
    differs("inputs", a.inputs.join(", "), b.inputs.join(", "))?;
    for name in a.settings.keys().chain(b.settings.keys()) {
        let value = |s: &Summary| {
            s.settings
                .get(name)
                .map_or("(none)".into(), Json::to_string)
        };
        differs(&format!("setting {name}"), value(a), value(b))?;
    }
    differs(
        "version",
        first.env.version.clone(),
        part.env.version.clone(),
    )?;
    let commit = |env: &MergedEnv| env.git_commit.clone().unwrap_or_default();
    differs("git commit", commit(&first.env), commit(&part.env))
}

/// Checks that shards, if the parts are shards, are each shard of one split exactly once.
fn check_shards(parts: &[Part]) -> Result<(), MergeError> {
    let shards: Vec<Option<Shard>> = parts
        .iter()
        .map(|part| {
            let shard = part.summary.shard.as_deref()?;
            Some(shard.parse::<Shard>().map_err(|e| MergeError::Format {
                path: part.dir.join("summary.json"),
                message: e.to_string(),
            }))
        })
        .map(Option::transpose)
        .collect::<Result<_, _>>()?;
    let Some(count) = shards.iter().flatten().map(Shard::count).next() else {
        return check_partitions(parts);
    };
    let mut seen: BTreeMap<u64, &Path> = BTreeMap::new();
    for (part, shard) in parts.iter().zip(&shards) {
        let Some(shard) = shard.filter(|s| s.count() == count) else {
            return Err(MergeError::Shards(format!(
                "{} is not a shard of {count} like the others: merge the shards of one split",
                part.dir.display()
            )));
        };
        if let Some(earlier) = seen.insert(shard.number(), &part.dir) {
            return Err(MergeError::Shards(format!(
                "shard {shard} is in both {} and {}: its records would count twice",
                earlier.display(),
                part.dir.display()
            )));
        }
    }
    // Every part is a distinct shard of `count`, so none is missing when there are `count`.
    if seen.len() as u64 == count {
        let shards: Vec<Shard> = shards.into_iter().flatten().collect();
        return check_split(parts, &shards);
    }
    let missing: Vec<String> = (1..=count)
        .filter(|k| !seen.contains_key(k))
        .take(5)
        .map(|k| format!("{k}/{count}"))
        .collect();
    let left = count - seen.len() as u64;
    Err(MergeError::Shards(format!(
        "{left} shard{} missing ({}{}): a merge of some shards is not the run over every record",
        if left > 1 { "s are" } else { " is" },
        missing.join(", "),
        if left > 5 { ", …" } else { "" }
    )))
}

/// Checks that every shard holds the records one split of all of them gives it: shard K
/// of N holds the records numbered K, K + N, K + 2N, …, so shards of one run over the
/// same records are within one record of each other, the first ones the larger. Shards
/// run over an input that changed in between are not.
fn check_split(parts: &[Part], shards: &[Shard]) -> Result<(), MergeError> {
    let mut total: u64 = 0;
    for part in parts {
        total =
            (total.checked_add(part.summary.records)).ok_or_else(|| too_large(part, "records"))?;
    }
    for (part, shard) in parts.iter().zip(shards) {
        let expected = shard.records_in(0, total);
        if part.summary.records != expected {
            return Err(MergeError::Shards(format!(
                "shard {shard} ({}) holds {}, but one split of the shards' {} gives it {}:                  the shards did not read the same records (did an input change between them?)",
                part.dir.display(),
                counted(part.summary.records as usize, "record"),
                counted(total as usize, "record"),
                expected
            )));
        }
    }
    Ok(())
}

/// Checks parts that are not shards: each is the run over every record of its inputs, so
/// two of them merge only as partitions that each read standard input (an engine's), and
/// never as one folder given twice.
fn check_partitions(parts: &[Part]) -> Result<(), MergeError> {
    for (i, part) in parts.iter().enumerate() {
        if let Some(earlier) = parts[..i].iter().find(|e| same_file(&e.dir, &part.dir)) {
            return Err(MergeError::Shards(format!(
                "{} and {} are the same report folder: its records would count twice",
                earlier.dir.display(),
                part.dir.display()
            )));
        }
    }
    let inputs = &parts[0].summary.inputs;
    if let (true, Some(named)) = (parts.len() > 1, inputs.iter().find(|i| *i != "-")) {
        return Err(MergeError::Shards(format!(
            "{} and {} are not shards, and each ran over every record of {named}: its              records would count twice (merge the reports of --shard K/N runs, or of              partitions that read standard input)",
            parts[0].dir.display(),
            parts[1].dir.display()
        )));
    }
    Ok(())
}

/// The summary of one run over every part's records.
fn merged_summary(parts: &[Part]) -> Result<Summary, MergeError> {
    let first = &parts[0].summary;
    let mut tallied: Vec<String> = Vec::new();
    for part in parts {
        for column in part.summary.tallies.keys() {
            if !tallied.contains(column) {
                tallied.push(column.clone());
            }
        }
    }
    let tallied_names: Vec<&str> = tallied.iter().map(String::as_str).collect();
    let mut stats = RunStats::new(&[], &tallied_names, 0);
    let mut inputs: Vec<String> = Vec::new();
    let mut span: Option<(SystemTime, SystemTime)> = None;
    let mut cpu = Duration::ZERO;
    // Counts per status and tallies, summed here (checked) before they go into `stats`.
    let mut statuses: Vec<(String, u64)> = Vec::new();
    let mut tallies: Vec<Vec<(String, u64)>> = vec![Vec::new(); tallied.len()];
    for part in parts {
        let summary = &part.summary;
        let count = |value: &Json| value.as_u64().unwrap_or(0);
        stats.records = stats
            .records
            .checked_add(summary.records)
            .ok_or_else(|| too_large(part, "records"))?;
        stats.failed = stats
            .failed
            .checked_add(summary.failed)
            .ok_or_else(|| too_large(part, "failed"))?;
        stats.threads = stats
            .threads
            .checked_add(summary.threads)
            .ok_or_else(|| too_large(part, "threads"))?;
        stats.interrupted |= summary.interrupted;
        stats.rows_from_file = stats.rows_from_file.saturating_add(summary.rows_from_file);
        let add = |counts: &mut Vec<(String, u64)>, name: &str, n: u64, what: &str| {
            match counts.iter_mut().find(|(known, _)| known == name) {
                Some((_, total)) => {
                    *total = total.checked_add(n).ok_or_else(|| too_large(part, what))?
                }
                None => counts.push((name.to_string(), n)),
            }
            Ok::<_, MergeError>(())
        };
        for (status, n) in &summary.statuses {
            add(&mut statuses, status, count(n), &format!("status {status}"))?;
        }
        for (column, values) in &summary.tallies {
            let index = tallied.iter().position(|c| c == column).unwrap_or(0);
            for (value, n) in values.as_object().into_iter().flatten() {
                add(
                    &mut tallies[index],
                    value,
                    count(n),
                    &format!("{column} {value}"),
                )?;
            }
        }
        stats
            .latency_ns
            .add(&summary.latency_ns)
            .map_err(|e| MergeError::Format {
                path: part.dir.join(HISTOGRAM_FILE),
                message: format!("its histogram does not add up with the others: {e}"),
            })?;
        for input in &summary.inputs {
            if !inputs.contains(input) {
                inputs.push(input.clone());
            }
        }
        let started =
            humantime::parse_rfc3339(&summary.started).map_err(|e| MergeError::Format {
                path: part.dir.join("summary.json"),
                message: format!("started {:?}: {e}", summary.started),
            })?;
        let wall = seconds(part, "wall_seconds", summary.wall_seconds)?;
        let ended = started
            .checked_add(wall)
            .ok_or_else(|| MergeError::Format {
                path: part.dir.join("summary.json"),
                message: format!(
                    "started {:?} and wall_seconds {:?}: the run would end after any date a \
                     clock shows",
                    summary.started, summary.wall_seconds
                ),
            })?;
        span = Some(match span {
            None => (started, ended),
            Some((from, to)) => (from.min(started), to.max(ended)),
        });
        let part_cpu = seconds(part, "cpu_seconds", summary.cpu_seconds)?;
        cpu = cpu
            .checked_add(part_cpu)
            .ok_or_else(|| too_large(part, "cpu_seconds"))?;
    }
    for (status, n) in &statuses {
        stats.count_status(status, *n);
    }
    for (index, values) in tallies.iter().enumerate() {
        for (value, n) in values {
            stats.count_tally(index, value, *n);
        }
    }
    if let Some((from, to)) = span {
        stats.started = from;
        stats.wall = to.duration_since(from).unwrap_or_default();
    }
    stats.cpu = cpu;
    let settings = first
        .settings
        .iter()
        .map(|(name, value)| {
            let text = value
                .as_str()
                .map_or_else(|| value.to_string(), String::from);
            (name.clone(), text)
        })
        .collect();
    let mut summary = Summary::new(&first.command, inputs, settings, &stats);
    summary.slowest = parts
        .iter()
        .flat_map(|part| part.summary.slowest.iter().cloned())
        .collect();
    summary
        .slowest
        .sort_by(|a, b| b.micros.total_cmp(&a.micros));
    summary.slowest.truncate(crate::batch::SLOWEST_KEPT);
    Ok(summary)
}

/// `env.json` of the merge: the first part's build, every part's host.
fn merged_env(parts: &[Part]) -> Result<MergedEnv, MergeError> {
    let mut env = parts[0].env.clone();
    env.hosts.clear();
    env.parts = 0;
    env.threads = 0;
    for part in parts {
        env.parts = env
            .parts
            .checked_add(part.env.parts)
            .ok_or_else(|| too_large(part, "parts in env.json"))?;
        env.threads = env
            .threads
            .checked_add(part.env.threads)
            .ok_or_else(|| too_large(part, "threads in env.json"))?;
        env.date = env.date.max(part.env.date.clone());
        for host in &part.env.hosts {
            match env.hosts.iter_mut().find(|h| h.host == host.host) {
                Some(known) => {
                    known.threads = known
                        .threads
                        .checked_add(host.threads)
                        .ok_or_else(|| too_large(part, "threads in env.json"))?;
                    known.parts = known
                        .parts
                        .checked_add(host.parts)
                        .ok_or_else(|| too_large(part, "parts in env.json"))?;
                }
                None => env.hosts.push(host.clone()),
            }
        }
    }
    Ok(env)
}

/// Writes a merged report into `dir`: the same files as a run's report.
pub fn write_merged(dir: &Path, merged: &Merged) -> Result<(), ExportError> {
    super::write_summary(dir, &merged.summary)?;
    write_file(&dir.join("env.json"), to_json(&merged.env) + "\n")?;
    let page = dir.join("report.html");
    let env = &merged.env;
    let html = super::run_page(&merged.summary, &env.date, &env.facts(), &page)?;
    write_file(&page, html)
}

impl MergedEnv {
    /// The facts as (name, value) pairs, for a page: the build, then each host.
    pub fn facts(&self) -> Vec<(String, String)> {
        let mut facts = vec![
            (
                "tool".to_string(),
                format!("{} {}", self.tool, self.version),
            ),
            (
                "git commit".into(),
                self.git_commit.clone().unwrap_or_default(),
            ),
            ("compiler".into(), self.rustc.clone()),
            ("parts".into(), self.parts.to_string()),
            ("threads".into(), self.threads.to_string()),
            ("date".into(), self.date.clone()),
        ];
        for host in &self.hosts {
            let text = format!(
                "{} · {} cores · {} · {} parts, {} threads",
                host.cpu_model, host.cores, host.os, host.parts, host.threads
            );
            facts.push((format!("host {}", host.host), text));
        }
        facts
    }
}
