//! `puzzlebench tiling …` and `puzzlebench checkerboard …`: count and print tilings.

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};

use puzzlebench::tiling;
use puzzlebench::tiling::display::{
    counts_text, read_board, read_pieces, write_solutions, SolutionFormat,
};

use super::{create_output, exit_code, parse_field_size, parse_threads, progress_bar, thread_pool};

#[derive(Debug, Subcommand)]
pub(super) enum TilingCommand {
    /// Count the tilings of a board by a set of pieces: labelled (every piece distinct),
    /// tilings (identical pieces interchangeable) and up to the board's symmetries.
    Count(TilingCountArgs),
}

#[derive(Debug, Subcommand)]
pub(super) enum CheckerboardCommand {
    /// Print the ways to put the stones back, each as a framed grid of stone numbers and
    /// colours (`7B 11W …`), or as JSON Lines of placements.
    Solve(CheckerboardSolveArgs),
    /// Count the ways to put the stones back: labelled, tilings, and up to the symmetries
    /// of the board that keep its colouring.
    Count(CheckerboardCountArgs),
}

/// The board to cover.
#[derive(Debug, Args)]
pub(super) struct BoardChoice {
    /// A rectangle WIDTHxHEIGHT.
    #[arg(long, value_name = "WxH", conflicts_with = "board_file", value_parser = parse_field_size)]
    board: Option<(usize, usize)>,
    /// A board file: `#` a cell to cover, `.` a hole, `B`/`W` coloured cells.
    #[arg(long, value_name = "FILE")]
    board_file: Option<PathBuf>,
    /// Print the counts as JSON.
    #[arg(long)]
    json: bool,
    /// Worker threads, at most 1024 (default: one per core); the counts do not depend on it.
    #[arg(short = 'j', long, default_value_t = 0, hide_default_value = true, value_parser = parse_threads)]
    threads: usize,
    /// Show progress even when standard error is not a terminal (then as a plain line
    /// every second: parts of the search done, rate, time left).
    #[arg(long)]
    progress: bool,
    /// Count only up to symmetry: one piece is kept to the placements that are the
    /// smallest of their symmetric images, and only the solutions searched are reported
    /// (labelled and tilings are not derived from them).
    #[arg(long)]
    break_symmetry: bool,
    /// Enumerate every labelled solution: no identical pieces searched as one, no
    /// symmetry used (the plain exact cover, for cross-checks and benchmarks).
    #[arg(long, conflicts_with = "break_symmetry")]
    no_symmetry: bool,
    /// The exact-cover search: bit masks for boards of up to 128 cells and pieces
    /// (`auto`, the fastest), or the dancing links.
    #[arg(long, value_enum, default_value_t = tiling::Engine::Auto)]
    engine: tiling::Engine,
}

#[derive(Debug, Args)]
pub(super) struct TilingCountArgs {
    /// `pentominoes` (the 12 free pentominoes) or a pieces file in the stones format with
    /// `#` cells.
    #[arg(long, default_value = "pentominoes")]
    pieces: String,
    #[command(flatten)]
    board: BoardChoice,
    #[command(flatten)]
    limits: CountLimits,
}

/// How long a count may run.
#[derive(Debug, Args)]
pub(super) struct CountLimits {
    /// Stop the whole count after DURATION (`250ms`, `2s`, `1m`) and print the counts
    /// reached, marked partial (exit code 1).
    #[arg(long, value_name = "DURATION", value_parser = parse_timeout)]
    timeout: Option<Duration>,
}

/// A `--timeout` value: a positive duration such as `250ms`, `2s` or `1m`.
fn parse_timeout(text: &str) -> Result<Duration, String> {
    match humantime::parse_duration(text) {
        Ok(duration) if duration.is_zero() => Err("the timeout must be longer than 0".into()),
        Ok(duration) => Ok(duration),
        Err(error) => Err(format!("{error} (give e.g. 250ms, 2s or 1m)")),
    }
}

#[derive(Debug, Args)]
pub(super) struct CheckerboardSolveArgs {
    /// The stones file. Without --board or --board-file the board comes from a name like
    /// `8x8_1.txt`.
    stones: PathBuf,
    /// Colour of the top-left cell of a --board rectangle.
    #[arg(long, value_enum, default_value_t = tiling::Color::Black)]
    top_left: tiling::Color,
    /// Stop after N solutions.
    #[arg(long, value_name = "N", conflicts_with = "all")]
    limit: Option<u64>,
    /// Print every solution (the default).
    #[arg(long)]
    all: bool,
    /// Write the solutions to FILE instead of standard output.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// How to print solutions.
    #[arg(long, value_enum, default_value_t = SolutionFormat::Text)]
    output_format: SolutionFormat,
    #[command(flatten)]
    board: BoardChoice,
}

#[derive(Debug, Args)]
pub(super) struct CheckerboardCountArgs {
    /// The stones file (one stone per block of `B`, `W`, `_` rows; a line of `=` ends a
    /// stone). Without --board or --board-file the board comes from a name like `8x8_1.txt`.
    stones: PathBuf,
    /// Colour of the top-left cell of a --board rectangle.
    #[arg(long, value_enum, default_value_t = tiling::Color::Black)]
    top_left: tiling::Color,
    #[command(flatten)]
    board: BoardChoice,
    #[command(flatten)]
    limits: CountLimits,
}

pub(super) fn count_tilings(args: TilingCountArgs) -> Result<ExitCode> {
    let pieces = if args.pieces == "pentominoes" {
        tiling::pentominoes()
    } else {
        read_pieces(Path::new(&args.pieces))?
    };
    let board = board(&args.board, None, None)?;
    print_counts(&board, &pieces, &args.board, &args.limits)
}

pub(super) fn count_checkerboard(args: CheckerboardCountArgs) -> Result<ExitCode> {
    let pieces = read_pieces(&args.stones)?;
    let board = board(&args.board, Some(&args.stones), Some(args.top_left))?;
    print_counts(&board, &pieces, &args.board, &args.limits)
}

pub(super) fn solve_checkerboard(args: CheckerboardSolveArgs) -> Result<ExitCode> {
    let pieces = read_pieces(&args.stones)?;
    let board = board(&args.board, Some(&args.stones), Some(args.top_left))?;
    let Some(mut problem) = possible(tiling::Tiling::new(&board, &pieces)) else {
        return Ok(exit_code(1));
    };
    let mut out = create_output(args.output.as_ref())?;
    let format = args.output_format;
    let limit = args.limit.unwrap_or(u64::MAX);
    let destination = args.output.as_ref().map_or_else(
        || "standard output".to_string(),
        |p| p.display().to_string(),
    );
    let cannot_write = || format!("cannot write the solutions to {destination}");
    let found = write_solutions(&mut problem, &board, &pieces, format, limit, &mut out)
        .with_context(cannot_write)?;
    out.flush().with_context(cannot_write)?;
    Ok(exit_code(u64::from(found == 0)))
}

/// The board from --board, --board-file, or a stones file named like `8x8_1.txt`.
fn board(
    choice: &BoardChoice,
    named_after: Option<&Path>,
    colors: Option<tiling::Color>,
) -> Result<tiling::Board> {
    if let Some(path) = &choice.board_file {
        return Ok(read_board(path)?);
    }
    let size = match (choice.board, named_after) {
        (Some(size), _) => size,
        (None, Some(path)) => tiling::size_in_name(path).with_context(|| {
            format!(
                "give --board WxH: the size is not in the name {}",
                path.display()
            )
        })?,
        (None, None) => bail!("give --board WxH or --board-file FILE"),
    };
    Ok(tiling::Board::rectangle(size.0, size.1, colors)?)
}

fn print_counts(
    board: &tiling::Board,
    pieces: &[tiling::Piece],
    choice: &BoardChoice,
    limits: &CountLimits,
) -> Result<ExitCode> {
    let symmetry = tiling::Symmetry::from_flags(choice.break_symmetry, choice.no_symmetry);
    let built = tiling::Tiling::configured(board, pieces, symmetry, choice.engine);
    let Some(problem) = possible(built) else {
        return Ok(exit_code(1));
    };
    let pool = thread_pool(choice.threads)?;
    let progress = Progress::new(choice.progress);
    // Dropping `finished` (when the count returns) ends the progress lines.
    let (finished, ticker) = mpsc::channel::<()>();
    let counted = std::thread::scope(|scope| {
        let progress = &progress;
        if progress.lines {
            scope.spawn(move || {
                while ticker.recv_timeout(PROGRESS_INTERVAL) == Err(mpsc::RecvTimeoutError::Timeout)
                {
                    progress.line();
                }
            });
        }
        let counted = problem.count_parallel_within(&pool, limits.timeout, |done, total, n| {
            progress.part(done, total, n)
        });
        drop(finished);
        counted
    });
    progress.finish();
    let text = counts_text(&counted, choice.break_symmetry, choice.json, limits.timeout);
    let mut out = puzzlebench::report::standard_output()?.lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .context("cannot write the counts to standard output")?;
    let failed = !counted.complete() || counted.counts.labelled == 0u32.into();
    Ok(exit_code(u64::from(failed)))
}

/// How often `--progress` writes a line when standard error is not a terminal.
const PROGRESS_INTERVAL: Duration = Duration::from_secs(1);

/// Progress of a count on standard error: a bar on a terminal; with `--progress`
/// elsewhere, a plain line every [`PROGRESS_INTERVAL`] and one at the end.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    lines: bool,
    start: Instant,
    done: AtomicUsize,
    total: AtomicUsize,
    solutions: AtomicU64,
}

impl Progress {
    fn new(forced: bool) -> Self {
        let terminal = io::stderr().is_terminal();
        let template =
            "[{elapsed_precise}] {wide_bar} {pos}/{len} parts, {per_sec}, ETA {eta}, {msg}";
        Progress {
            bar: progress_bar(template, false).filter(|_| terminal),
            lines: forced && !terminal,
            start: Instant::now(),
            done: AtomicUsize::new(0),
            total: AtomicUsize::new(0),
            solutions: AtomicU64::new(0),
        }
    }

    /// A part of the search finished: `done` of `total`, `solutions` searched so far.
    fn part(&self, done: usize, total: usize, solutions: u64) {
        self.done.fetch_max(done, Ordering::Relaxed);
        self.total.store(total, Ordering::Relaxed);
        self.solutions.fetch_max(solutions, Ordering::Relaxed);
        if let Some(bar) = &self.bar {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
            bar.set_message(format!("{solutions} solutions"));
        }
    }

    /// One plain progress line: parts done of all, solutions, rate and time left.
    fn line(&self) {
        let done = self.done.load(Ordering::Relaxed);
        let total = self.total.load(Ordering::Relaxed);
        let solutions = self.solutions.load(Ordering::Relaxed);
        let elapsed = self.start.elapsed();
        let rate = done as f64 / elapsed.as_secs_f64().max(1e-9);
        let left = if total == 0 {
            "?".to_string()
        } else if done == total {
            "0s".to_string()
        } else if done == 0 {
            "?".to_string()
        } else {
            let seconds = ((total - done) as f64 / rate).ceil() as u64;
            humantime::format_duration(Duration::from_secs(seconds)).to_string()
        };
        let line = format!(
            "puzzlebench: {done}/{} parts searched, {solutions} solutions, {rate:.1} parts/s, \
             {:.1}s elapsed, ETA {left}\n",
            if total == 0 {
                "?".to_string()
            } else {
                total.to_string()
            },
            elapsed.as_secs_f64(),
        );
        // Progress is best effort: a standard error that cannot take it stops nothing.
        let _ = io::stderr().lock().write_all(line.as_bytes());
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        if self.lines {
            self.line();
        }
    }
}

/// The problem, or `None` after saying why the pieces cannot cover the board: that is a
/// puzzle without solution (exit code 1), not bad input.
fn possible(built: Result<tiling::Tiling, tiling::TilingError>) -> Option<tiling::Tiling> {
    built
        .map_err(|impossible| {
            // Best effort: a standard error that cannot take the reason changes no exit code.
            let _ = writeln!(io::stderr().lock(), "puzzlebench: {impossible}");
        })
        .ok()
}
