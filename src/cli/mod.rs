//! The command line: argument definitions (their doc comments are the `--help` text) and
//! the glue that runs a library job and reports on it.

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};

use puzzlebench::batch::{
    self, parse_threads, InputSpec, Interruption, Job, NoProgress, Progress, RunOptions,
    TerminalProgress,
};
use puzzlebench::budget::Budget;
use puzzlebench::report::{self, EnvInfo, OutputFormat, RunSettings, Summary};

mod battleship_cli;
mod bench_cli;
mod connect4_cli;
mod report_cli;
mod sudoku_cli;
mod tiling_cli;

use battleship_cli::{generate_battleship, validate_battleship, BattleshipCommand};
use bench_cli::{run_bench, BenchArgs};
use connect4_cli::{
    book_connect4, generate_connect4, play_connect4, solve_connect4, validate_connect4,
    Connect4Command,
};
use sudoku_cli::{generate_sudoku, show_sudoku, solve_sudoku, SudokuCommand};
use tiling_cli::{
    count_checkerboard, count_tilings, solve_checkerboard, CheckerboardCommand, TilingCommand,
};

/// Solve, validate and benchmark grid puzzles in bulk.
#[derive(Debug, Parser)]
#[command(name = "puzzlebench", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Sudoku of every size (4×4, 9×9, 16×16, 25×25, up to 100×100): solve corpora, show and generate grids.
    #[command(subcommand)]
    Sudoku(SudokuCommand),
    /// Battleship fields: validate fleets, ships touching or not; generate fields.
    #[command(subcommand)]
    Battleship(BattleshipCommand),
    /// Connect Four: validate game logs; generate games; solve positions; build books; play.
    #[command(name = "connect4", subcommand)]
    Connect4(Connect4Command),
    /// Polyomino tilings of a board: count every solution three ways.
    #[command(subcommand)]
    Tiling(TilingCommand),
    /// The checkerboard (draught-board) puzzle: put coloured stones back on a chessboard.
    #[command(subcommand)]
    Checkerboard(CheckerboardCommand),
    /// Benchmark: run a suite of datasets × algorithms × thread counts, check that every
    /// run agrees on every record, and write a report folder with tables and charts.
    ///
    /// Without arguments, runs the built-in suite over the repository's datasets/ (about a
    /// minute) and writes reports/<date>-<host>-default/. Exit code 1 if any run disagrees.
    Bench(BenchArgs),
    /// Report folders: `report merge` combines those of shards or Spark partitions.
    #[command(subcommand)]
    Report(report_cli::ReportCommand),
}

/// Inputs, outputs and reporting, common to every bulk command.
#[derive(Debug, Args)]
struct RunArgs {
    /// Input files; none or `-` reads standard input. `.gz` files are decompressed.
    files: Vec<std::ffi::OsString>,
    /// Worker threads, at most 1024 (default: one per core).
    #[arg(short = 'j', long, default_value_t = 0, hide_default_value = true, value_parser = parse_threads)]
    threads: usize,
    /// Write result rows to FILE instead of standard output.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Format of the result rows.
    #[arg(long, value_enum, default_value_t = OutputFormat::Csv)]
    output_format: OutputFormat,
    /// Write summary.json, summary.csv, summary.md and env.json into DIR.
    #[arg(long, value_name = "DIR")]
    report: Option<PathBuf>,
    /// Show the progress bar and summary even when standard error is not a terminal.
    #[arg(long)]
    progress: bool,
    /// Do not print the summary.
    #[arg(short, long)]
    quiet: bool,
    /// Time budget per record (`250ms`, `2s`, `1m`): a record over it gets a `timeout`
    /// row with the effort spent, and the run goes on.
    #[arg(long, value_name = "DURATION", value_parser = parse_timeout)]
    timeout: Option<std::time::Duration>,
    /// Go on with an interrupted run: keep the whole rows already in the -o FILE (a torn
    /// last line is dropped), check that they are the first records' rows, and append
    /// the rest, so the file ends as an uninterrupted run's would.
    #[arg(long, requires = "output")]
    resume: bool,
    /// Node budget per record, where the search counts nodes or guesses (`sudoku solve`,
    /// `connect4 solve`, `battleship validate --count`): over it, a `timeout` row.
    #[arg(long, value_name = "N")]
    max_nodes: Option<u64>,
    /// A line longer than BYTES (or a CSV record or block of lines) is an error row, read
    /// on without being kept in memory.
    #[arg(long, value_name = "BYTES", default_value_t = batch::DEFAULT_MAX_LINE_BYTES, value_parser = parse_max_line_bytes)]
    max_line_bytes: usize,
    /// Process only shard K of N: record i (from 0, over all inputs) is in shard i mod N + 1.
    /// Rows keep their lines; `report merge` combines the shards' --report folders.
    #[arg(long, value_name = "K/N")]
    shard: Option<batch::Shard>,
    /// Leave out the CSV header row.
    #[arg(long)]
    no_header: bool,
    /// Engine mode (Spark, job arrays): standard input to standard output, no header, no
    /// summary; exit code 0 whenever the run completes, whatever the records' statuses.
    /// Files other than `-` are refused.
    #[arg(long, conflicts_with_all = ["output", "resume", "progress"])]
    filter: bool,
}

/// A `--timeout` value, for the batch commands and the counts alike: a duration such as
/// `250ms`, `2s` or `1m`. Zero is one: every search then stops at once. The unit `M`,
/// months to the duration reader, is refused: it is nearly always a minute meant.
fn parse_timeout(text: &str) -> Result<std::time::Duration, String> {
    if text
        .split(|c: char| !c.is_ascii_alphabetic())
        .any(|unit| unit == "M")
    {
        return Err(
            "M is months here: write 1m or 1min for a minute (e.g. 250ms, 2s or 1m)".into(),
        );
    }
    humantime::parse_duration(text).map_err(|error| format!("{error} (give e.g. 250ms, 2s or 1m)"))
}

impl RunArgs {
    fn budget(&self) -> Budget {
        Budget {
            timeout: self.timeout,
            max_nodes: self.max_nodes,
        }
    }
}

impl Cli {
    /// Runs the command; the exit code says whether every record passed.
    pub fn run(self) -> Result<ExitCode> {
        match self.command {
            Command::Sudoku(SudokuCommand::Solve(args)) => solve_sudoku(args),
            Command::Sudoku(SudokuCommand::Show(args)) => show_sudoku(args),
            Command::Sudoku(SudokuCommand::Generate(args)) => generate_sudoku(args),
            Command::Battleship(BattleshipCommand::Validate(args)) => validate_battleship(args),
            Command::Battleship(BattleshipCommand::Generate(args)) => generate_battleship(args),
            Command::Connect4(Connect4Command::Validate(args)) => validate_connect4(args),
            Command::Connect4(Connect4Command::Generate(args)) => generate_connect4(args),
            Command::Connect4(Connect4Command::Solve(args)) => solve_connect4(args),
            Command::Connect4(Connect4Command::Book(args)) => book_connect4(args),
            Command::Connect4(Connect4Command::Play(args)) => play_connect4(args),
            Command::Tiling(TilingCommand::Count(args)) => count_tilings(args),
            Command::Checkerboard(CheckerboardCommand::Count(args)) => count_checkerboard(args),
            Command::Checkerboard(CheckerboardCommand::Solve(args)) => solve_checkerboard(args),
            Command::Bench(args) => run_bench(args),
            Command::Report(command) => report_cli::run(command),
        }
    }
}

/// How messages name the output: FILE, or standard output.
fn output_name(path: Option<&PathBuf>) -> String {
    path.map_or_else(
        || "standard output".to_string(),
        |p| p.display().to_string(),
    )
}

/// A buffered writer to FILE, or to standard output; FILE is refused when it is one of
/// `inputs`.
fn create_output(path: Option<&PathBuf>, inputs: &[InputSpec]) -> Result<Box<dyn Write + Send>> {
    let out = report::open_output(path.map(PathBuf::as_path), inputs)?;
    Ok(Box::new(io::BufWriter::new(out)))
}

/// Writes progress `text` to standard error, best effort: a standard error that cannot
/// take it stops nothing.
/// `--max-line-bytes`: at least one byte; 0 would make every record an error row.
fn parse_max_line_bytes(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("0 would make every record an error row: give at least 1".into()),
        Ok(bytes) => Ok(bytes),
        Err(_) => Err(format!("{text:?} is not a number of bytes")),
    }
}

fn say(text: &str) {
    let _ = io::stderr().lock().write_all(text.as_bytes());
}

/// Writes `text` to standard error: an error (exit code 2) if it cannot take it.
fn to_stderr(text: &str) -> Result<()> {
    if report::stderr_is_closed() {
        anyhow::bail!("cannot write to standard error: it is closed");
    }
    let mut stderr = io::stderr().lock();
    stderr
        .write_all(text.as_bytes())
        .and_then(|()| stderr.flush())
        .context("cannot write to standard error")
}

/// Runs a job over its inputs with the common options: rows to the output, progress and
/// summary to standard error, an optional report folder.
fn run_job<J: Job>(
    job: &J,
    command: &str,
    inputs: &[InputSpec],
    args: &RunArgs,
) -> Result<ExitCode> {
    if let Some(file) = inputs
        .iter()
        .find_map(|i| i.path.as_ref())
        .filter(|_| args.filter)
    {
        anyhow::bail!(
            "--filter reads standard input only: give no file, or -, not {}",
            file.display()
        );
    }
    let inputs: &[InputSpec] = &inputs
        .iter()
        .map(|input| input.clone().with_max_line_bytes(args.max_line_bytes))
        .collect::<Vec<_>>();
    let output = args.output.as_deref();
    // The report folder is checked, then made, before the run, so that a path it cannot
    // take fails at once rather than after every record, and a refused one is not made.
    let report_folder_is_new = args.report.as_ref().is_some_and(|dir| !dir.exists());
    if let Some(dir) = &args.report {
        report::check_report_folder(dir, output, inputs)?;
        report::create_folder(dir)
            .with_context(|| format!("cannot write the report into {}", dir.display()))?;
    }
    let ran = run_rows(job, command, inputs, args, report_folder_is_new);
    if let Some(dir) = args.report.as_ref().filter(|_| ran.is_err()) {
        if report_folder_is_new {
            // A run refused or failed leaves no empty folder to be taken for a report;
            // only an empty folder is removed.
            let _ = std::fs::remove_dir(dir);
        }
    }
    ran
}

/// The run of [`run_job`] once its inputs are checked and its report folder made: rows,
/// summary and report, and the exit code.
fn run_rows<J: Job>(
    job: &J,
    command: &str,
    inputs: &[InputSpec],
    args: &RunArgs,
    report_folder_is_new: bool,
) -> Result<ExitCode> {
    let header = !(args.no_header || args.filter);
    let (output, format) = (args.output.as_deref(), args.output_format);
    let settings_kept = settings_to_keep(job, command, inputs, args)?;
    let interruption = Interruption::install().context("cannot install the signal handlers")?;
    let options = RunOptions {
        threads: args.threads,
        budget: args.budget(),
        stop: Some(interruption.flag()),
        shard: args.shard,
        ..RunOptions::default()
    };
    // The inputs' columns are settled before the results file is opened: a run refused
    // for its inputs leaves a results file of an earlier run as it was.
    let prepared = batch::PreparedRun::open(job, inputs, &options)?;
    let flag = interruption.flag();
    let opened = report::open_rows(output, (args.resume, header), format, inputs, Some(&flag));
    let (mut sink, resume) = match opened {
        Err(report::OutputError::Interrupted) => {
            say(&format!(
                "puzzlebench: interrupted while {} waited for its reader: no record was run\n",
                output_name(args.output.as_ref())
            ));
            if let Some(dir) = args.report.as_ref().filter(|_| report_folder_is_new) {
                let _ = std::fs::remove_dir(dir);
            }
            return Ok(ExitCode::from(interruption.exit_code()));
        }
        opened => opened?,
    };
    let kept_before = settings_kept
        .as_ref()
        .is_some_and(|(path, _)| path.exists());
    let unfinished = settings_kept.and_then(|(path, settings)| keep(&path, &settings, args));
    let interactive = !args.filter && (args.progress || io::stderr().is_terminal());
    let progress: Box<dyn Progress> = if interactive {
        Box::new(TerminalProgress::new())
    } else {
        Box::new(NoProgress)
    };
    let mut stats = prepared
        .run(sink.as_mut(), progress.as_ref(), resume.as_ref())
        .map_err(|error| {
            if let Some(path) = unfinished.as_ref() {
                // A refused results file is left as it was, and so is what lies beside it.
                if error.refuses_resume() && !kept_before {
                    let _ = std::fs::remove_file(path);
                }
            }
            match error {
                batch::BatchError::Output(source) => {
                    if let Some(dir) = args.report.as_ref() {
                        if source.kind() == io::ErrorKind::BrokenPipe {
                            report_skipped(dir, report_folder_is_new);
                        }
                    }
                    anyhow::Error::new(source).context(format!(
                        "cannot write the results to {}",
                        output_name(args.output.as_ref())
                    ))
                }
                other => other.into(),
            }
        })?;
    if let (true, false, Some(path)) = (args.resume, kept_before, output) {
        if stats.resumed_rows > 0 {
            // A finished run removed its settings: nothing checked the new rows against
            // the earlier ones. Said once the run went on, not before a refusal.
            say(&format!(
                "puzzlebench: {} had no settings kept beside it (its run ended, or began \
                 before settings were kept): its rows were kept as they were, and the \
                 records after them run with this run's settings, unchecked\n",
                path.display()
            ));
        }
    }
    if let Some(path) = unfinished.filter(|_| !stats.interrupted) {
        // Every record has its row: nothing is left to resume. Best effort, as a file
        // left there only makes a later --resume check settings it need not.
        let _ = std::fs::remove_file(path);
    }
    let names: Vec<String> = inputs.iter().map(InputSpec::display_name).collect();
    if let (Some(path), true) = (output.filter(|_| stats.resumed_rows > 0), header) {
        let reading = report::RowReading {
            statuses: &job.statuses(),
            failed: &|status, error| job.failed_row(status, error),
            inputs: &names,
        };
        let found = stats.resumed_rows;
        match report::count_found_rows(path, format, found, &reading, &stats) {
            Ok(rows) => stats.add_found_rows(rows),
            Err(why) => say(&format!(
                "puzzlebench: the {found} rows already in {} are not counted in the summary \
                 ({why})\n",
                path.display()
            )),
        }
    }
    let mut settings = job.settings();
    settings.extend(options.budget.settings());
    // Rows depend on it (longer lines are error rows), so merged shards must agree on it;
    // listed only when set, to keep summaries short.
    if args.max_line_bytes != batch::DEFAULT_MAX_LINE_BYTES {
        settings.push((
            "max_line_bytes".to_string(),
            args.max_line_bytes.to_string(),
        ));
    }
    let summary = Summary::new(command, names, settings, &stats);
    if interactive && !args.quiet {
        to_stderr(&summary.to_text())?;
    }
    if let Some(dir) = &args.report {
        let env = EnvInfo::collect(stats.threads, command_line());
        report::write_report(dir, &summary, &env)
            .with_context(|| format!("cannot write the report into {}", dir.display()))?;
    }
    if stats.interrupted {
        return Ok(ExitCode::from(interruption.exit_code()));
    }
    // An engine retries a task that exits non-zero: in filter mode failed records are rows.
    Ok(exit_code(if args.filter { 0 } else { stats.failed }))
}

/// Where and what to keep of a run into a results file `-o FILE` until it ends: its
/// command and settings, in `FILE.unfinished`. With `--resume`, settings other than those
/// kept there by the run that began the file are refused. Nothing is kept for standard
/// output or a file that is not a regular one (`/dev/null`).
fn settings_to_keep<J: Job>(
    job: &J,
    command: &str,
    inputs: &[InputSpec],
    args: &RunArgs,
) -> Result<Option<(PathBuf, RunSettings)>> {
    let Some(output) = args.output.as_deref() else {
        return Ok(None);
    };
    if std::fs::metadata(output).is_ok_and(|meta| !meta.is_file()) {
        return Ok(None);
    }
    let path = RunSettings::path_beside(output);
    // Written over, it would lose an input, or a book.
    InputSpec::check_output(&path, inputs)?;
    if !args.resume && RunSettings::is_foreign_file(&path) {
        anyhow::bail!(
            "{} is there and is not the settings of an unfinished run (a run into {} keeps \
             them there): move it away, or name another results file",
            path.display(),
            output.display()
        );
    }
    let shard = args.shard.map(|shard| shard.to_string());
    // How the records are read and the rows written matters as much as the job's own.
    let formats: Vec<String> = (inputs.iter())
        .map(|input| format!("{:?}", input.format).to_lowercase())
        .collect();
    let mut kept = job.settings();
    kept.extend([
        ("input_format".to_string(), formats.join(",")),
        (
            "output_format".to_string(),
            format!("{:?}", args.output_format).to_lowercase(),
        ),
        ("header".to_string(), (!args.no_header).to_string()),
        (
            "max_line_bytes".to_string(),
            args.max_line_bytes.to_string(),
        ),
    ]);
    let settings = RunSettings::new(command, kept, shard);
    if args.resume {
        if let Some(earlier) = RunSettings::read(&path)? {
            if let Err(different) = settings.check_resumes(&earlier, output) {
                // A run still writing the file is the first thing to say: its settings
                // are the ones beside the file, and they may well differ.
                report::check_not_busy(output)?;
                return Err(different.into());
            }
        }
    }
    Ok(Some((path, settings)))
}

/// Keeps `settings` at `path` for the run's end to remove (`Some(path)`); a file that
/// cannot be written is said, and the run goes on without it.
fn keep(path: &Path, settings: &RunSettings, args: &RunArgs) -> Option<PathBuf> {
    match settings.write(path) {
        Ok(()) => Some(path.to_path_buf()),
        Err(error) => {
            say(&format!(
                "puzzlebench: cannot keep the run's settings in {} ({error}): a --resume of {} \
                 will not be able to check them\n",
                path.display(),
                output_name(args.output.as_ref())
            ));
            None
        }
    }
}

/// Says that the report into `dir` is not written, the reader of the results having gone
/// away (`| head`) before every record was done, and removes the folder if this run
/// made it (`new`) and it is still empty: no empty folder is left to be taken for a report.
fn report_skipped(dir: &Path, new: bool) {
    if new {
        // Only an empty folder is removed; anything in it stays.
        let _ = std::fs::remove_dir(dir);
    }
    // Best effort: the exit code stays 0, as for any run whose reader went away.
    let _ = writeln!(
        io::stderr().lock(),
        "puzzlebench: the reader of the results went away before the run ended: no report \
         written into {}",
        dir.display()
    );
}

/// The command line as reports record it: in an argument that is not UTF-8 (a file name
/// is bytes), each such byte as `\xNN`.
fn command_line() -> Vec<String> {
    std::env::args_os()
        .map(|arg| batch::os_text(&arg))
        .collect()
}

/// The worker pool of a command: `threads` workers, or one per core when 0.
fn thread_pool(threads: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("cannot start the worker threads")
}

/// Exit code 1 when some record failed, else 0.
fn exit_code(failed: u64) -> ExitCode {
    ExitCode::from(u8::from(failed > 0))
}
