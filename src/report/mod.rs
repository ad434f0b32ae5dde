//! Writing results: rows as CSV or JSON Lines, and run reports (summaries and the
//! environment they were measured in).

mod env;
pub mod export;
mod found;
pub mod html;
mod lock;
mod merge;
mod resume;
mod rows;
mod run_page;
mod summary;
mod unfinished;

pub use env::EnvInfo;
pub use export::{create_folder, ExportError};
pub use found::{count_found_rows, RowReading};
pub use lock::{check_not_busy, Busy};
pub use merge::{
    check_merge_output, histogram_bytes, merge, write_merged, HistogramDamage, HostEnv, MergeError,
    Merged, MergedEnv, HISTOGRAM_FILE, MAX_REPORT_FILE_BYTES,
};
pub use resume::{resume_output, ResumeError, Resumed, ResumedFile};
pub use rows::{
    continuing_row_writer, row_writer, CsvFormat, CsvRows, JsonlFormat, JsonlRows, OutputFormat,
};
pub use run_page::run_page;
pub use summary::{LatencyBand, SlowestRecord, Summary};
pub use unfinished::RunSettings;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// The files a run's report folder holds ([`write_report`]).
pub const REPORT_FILES: [&str; 6] = [
    "summary.json",
    "summary.csv",
    "summary.md",
    HISTOGRAM_FILE,
    "env.json",
    "report.html",
];

/// Refuses a report folder `dir` that is the results file `output`, or whose files would
/// overwrite `output` or one of `inputs` (checked before the folder is made).
pub fn check_report_folder(
    dir: &Path,
    output: Option<&Path>,
    inputs: &[crate::batch::InputSpec],
) -> Result<(), OutputError> {
    if let Some(output) = output.filter(|output| crate::batch::same_file(output, dir)) {
        return Err(OutputError::ReportIsOutput {
            output: output.to_path_buf(),
            folder: dir.to_path_buf(),
        });
    }
    let named = inputs
        .iter()
        .filter_map(|input| input.path.as_deref().map(|path| (path, "the input")));
    for (path, what) in output
        .map(|path| (path, "the results file"))
        .into_iter()
        .chain(named)
    {
        if let Some(name) = REPORT_FILES
            .iter()
            .find(|name| crate::batch::same_file(&dir.join(name), path))
        {
            return Err(OutputError::ReportOverwrites {
                folder: dir.to_path_buf(),
                name,
                what,
                path: path.to_path_buf(),
            });
        }
    }
    Ok(())
}

/// Writes `summary.json`, `summary.csv`, `summary.md`, the latency histogram
/// ([`HISTOGRAM_FILE`], for `report merge`), `env.json` and `report.html` into `dir`,
/// creating it if needed.
pub fn write_report(dir: &Path, summary: &Summary, env: &EnvInfo) -> Result<(), ExportError> {
    write_summary(dir, summary)?;
    export::write_file(&dir.join("env.json"), env.to_json() + "\n")?;
    let page = dir.join("report.html");
    export::write_file(&page, run_page(summary, &env.date, &env.facts(), &page)?)
}

/// Writes every file of a report but `env.json` and `report.html`.
fn write_summary(dir: &Path, summary: &Summary) -> Result<(), ExportError> {
    export::create_folder(dir)?;
    export::write_file(&dir.join("summary.json"), summary.to_json() + "\n")?;
    export::write_file(&dir.join("summary.csv"), summary.to_csv())?;
    export::write_file(&dir.join("summary.md"), summary.to_markdown())?;
    let histogram = histogram_bytes(&summary.latency_ns);
    export::write_file(&dir.join(HISTOGRAM_FILE), histogram)
}

/// The results file `path`, or standard output: refused when it is one of `inputs`
/// (checked before it is opened, which would empty it).
pub fn open_output(
    path: Option<&Path>,
    inputs: &[crate::batch::InputSpec],
) -> Result<Box<dyn std::io::Write + Send>, OutputError> {
    open_output_unless_stopped(path, inputs, None)
}

/// [`open_output`], given up with [`OutputError::Interrupted`] when `stop` is set while a
/// named pipe waits for its reader.
pub fn open_output_unless_stopped(
    path: Option<&Path>,
    inputs: &[crate::batch::InputSpec],
    stop: Option<&AtomicBool>,
) -> Result<Box<dyn std::io::Write + Send>, OutputError> {
    let Some(path) = path else {
        let out = standard_output()?;
        crate::batch::InputSpec::check_standard_output(inputs)?;
        return Ok(Box::new(out));
    };
    crate::batch::InputSpec::check_output(path, inputs)?;
    let create = |source| OutputError::Create {
        path: path.to_path_buf(),
        source,
    };
    // Opened without emptying it, then locked, then emptied: a file another run is still
    // writing is refused with its rows intact.
    let options = std::fs::File::options()
        .write(true)
        .create(true)
        .truncate(false)
        .clone();
    let stopped = || stop.is_some_and(|stop| stop.load(Ordering::Relaxed));
    let file = crate::batch::open_unless_stopped(path, &options, &stopped)
        .map_err(create)?
        .ok_or(OutputError::Interrupted)?;
    lock::lock_results(&file, path)?;
    if file.metadata().is_ok_and(|meta| meta.is_file()) {
        file.set_len(0).map_err(create)?;
    }
    Ok(Box::new(file))
}

/// Whether the process started with standard output closed (see [`stdout_was_closed`]).
static STDOUT_WAS_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Records that the process started with standard output closed. The Rust runtime opens
/// `/dev/null` on a closed standard output before `main`, where writes would vanish
/// without an error, so the program checks before that and says so here.
pub fn stdout_was_closed() {
    STDOUT_WAS_CLOSED.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Whether the process started with standard error closed (see [`stderr_was_closed`]).
static STDERR_WAS_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Records that the process started with standard error closed (`2>&-`), which the Rust
/// runtime also replaces with `/dev/null` before `main`.
pub fn stderr_was_closed() {
    STDERR_WAS_CLOSED.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Whether standard error was closed when the process started: a summary written there
/// would vanish.
pub fn stderr_is_closed() -> bool {
    STDERR_WAS_CLOSED.load(std::sync::atomic::Ordering::Relaxed)
}

/// Standard output, if it is open: writes to a closed standard output (`>&-`) would
/// otherwise be dropped without an error.
pub fn standard_output() -> Result<std::io::Stdout, OutputError> {
    // SAFETY: F_GETFD only reads the descriptor's flags.
    let closed_now = unsafe { libc::fcntl(libc::STDOUT_FILENO, libc::F_GETFD) } == -1;
    if closed_now || STDOUT_WAS_CLOSED.load(std::sync::atomic::Ordering::Relaxed) {
        return Err(OutputError::StdoutClosed);
    }
    Ok(std::io::stdout())
}

/// The results file `path` of an interrupted run, to go on with (see [`resume_output`]):
/// refused when it is one of `inputs`.
pub fn open_resumed(
    path: &Path,
    inputs: &[crate::batch::InputSpec],
    format: OutputFormat,
    header: bool,
) -> Result<Resumed, OutputError> {
    crate::batch::InputSpec::check_output(path, inputs)?;
    Ok(resume_output(path, format, header)?)
}

/// Where a run's rows go: `format` rows to the file `path` (standard output when none),
/// and with `resume` the point where the earlier run in that file stopped, the file kept
/// up to there. Without `header`, a new file gets no CSV header (`--no-header`). A named
/// pipe waiting for its reader is given up when `stop` is set.
pub fn open_rows(
    path: Option<&Path>,
    (resume, header): (bool, bool),
    format: OutputFormat,
    inputs: &[crate::batch::InputSpec],
    stop: Option<&AtomicBool>,
) -> Result<
    (
        Box<dyn crate::batch::RowSink + Send>,
        Option<crate::batch::ResumePoint>,
    ),
    OutputError,
> {
    match (path, resume) {
        (Some(path), true) => {
            let resumed = open_resumed(path, inputs, format, header)?;
            let out: Box<dyn std::io::Write + Send> = Box::new(resumed.file);
            Ok(match resumed.point {
                Some(point) => (continuing_row_writer(format, out), Some(point)),
                None if header => (row_writer(format, out), None),
                None => (continuing_row_writer(format, out), None),
            })
        }
        (None, true) => Err(OutputError::ResumeWithoutFile),
        (path, false) => {
            let out = open_output_unless_stopped(path, inputs, stop)?;
            match header {
                true => Ok((row_writer(format, out), None)),
                false => Ok((continuing_row_writer(format, out), None)),
            }
        }
    }
}

/// Why the results file cannot be opened.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// It cannot be resumed.
    #[error(transparent)]
    Resume(#[from] ResumeError),
    /// Standard output is closed.
    #[error("standard output is closed: give -o FILE or open it")]
    StdoutClosed,
    /// The run was interrupted while the results file, a named pipe, waited for its
    /// reader.
    #[error("interrupted while the results file waited for its reader")]
    Interrupted,
    /// A run to resume without the file it wrote.
    #[error("--resume goes on with the results file: give -o FILE")]
    ResumeWithoutFile,
    /// It is one of the inputs.
    #[error(transparent)]
    Input(#[from] crate::batch::BatchError),
    /// The report folder would overwrite the results file or an input.
    #[error("the report folder {} would overwrite {what} {} with its {name}: name another folder or file", folder.display(), path.display())]
    ReportOverwrites {
        /// The report folder.
        folder: std::path::PathBuf,
        /// The report's file that would overwrite it.
        name: &'static str,
        /// What it is: the results file, or an input.
        what: &'static str,
        /// The file as the user named it.
        path: std::path::PathBuf,
    },
    /// The results file and the report folder are one path.
    #[error(
        "-o {} and --report {} name the same path: the results file and the report folder \
         need one each",
        output.display(),
        folder.display()
    )]
    ReportIsOutput {
        /// The results file as the user named it.
        output: std::path::PathBuf,
        /// The report folder as the user named it.
        folder: std::path::PathBuf,
    },
    /// Another run is writing it.
    #[error(transparent)]
    Busy(#[from] Busy),
    /// It cannot be created.
    #[error("cannot create output file {}", path.display())]
    Create {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
}
