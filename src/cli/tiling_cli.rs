//! `puzzlebench tiling …` and `puzzlebench checkerboard …`: count and print tilings.

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};

use puzzlebench::batch::{BatchError, InputSpec, Interruption};
use puzzlebench::tiling::display::{counts_text, write_solutions, SolutionFormat};
use puzzlebench::tiling::{
    self, read_pieces, BoardChoice, CountProgress, Counted, SearchOptions, Stop,
};

use super::{
    create_output, exit_code, output_name, parse_threads, parse_timeout, say, thread_pool,
};

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

/// The board and how to count on it.
#[derive(Debug, Args)]
pub(super) struct CountOptions {
    #[command(flatten)]
    board: BoardChoice,
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
    #[command(flatten)]
    search: SearchOptions,
}

#[derive(Debug, Args)]
pub(super) struct TilingCountArgs {
    /// `pentominoes` (the 12 free pentominoes) or a pieces file in the stones format with
    /// `#` cells (`-`: standard input).
    #[arg(long, default_value = "pentominoes")]
    pieces: std::ffi::OsString,
    #[command(flatten)]
    count: CountOptions,
    #[command(flatten)]
    limits: CountLimits,
}

/// How long a count may run.
#[derive(Debug, Args)]
pub(super) struct CountLimits {
    /// Stop the whole count after DURATION (`250ms`, `2s`, `1m`) and print the counts
    /// reached, marked partial (exit code 1). Ctrl-C (SIGINT) or SIGTERM prints them too,
    /// marked interrupted (exit code 130 or 143).
    #[arg(long, value_name = "DURATION", value_parser = parse_timeout)]
    timeout: Option<Duration>,
}

#[derive(Debug, Args)]
pub(super) struct CheckerboardSolveArgs {
    /// The stones file (`-`: standard input). Without --board or --board-file the board
    /// comes from a name like `8x8_1.txt`.
    stones: PathBuf,
    /// Colour of the top-left cell of a --board rectangle.
    #[arg(long, value_enum, default_value_t = tiling::Color::Black)]
    top_left: tiling::Color,
    /// Stop after N solutions.
    #[arg(long, value_name = "N", conflicts_with = "all", value_parser = clap::value_parser!(u64).range(1..))]
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
    /// stone; `-`: standard input). Without --board or --board-file the board comes from a
    /// name like `8x8_1.txt`.
    stones: PathBuf,
    /// Colour of the top-left cell of a --board rectangle.
    #[arg(long, value_enum, default_value_t = tiling::Color::Black)]
    top_left: tiling::Color,
    #[command(flatten)]
    count: CountOptions,
    #[command(flatten)]
    limits: CountLimits,
}

pub(super) fn count_tilings(args: TilingCountArgs) -> Result<ExitCode> {
    stdin_once(Path::new(&args.pieces), &args.count.board)?;
    let pieces = if args.pieces == "pentominoes" {
        tiling::pentominoes()
    } else {
        read_pieces(Path::new(&args.pieces))?
    };
    let board = args.count.board.board(None, None)?;
    print_counts(&board, &pieces, &args.count, &args.limits)
}

pub(super) fn count_checkerboard(args: CheckerboardCountArgs) -> Result<ExitCode> {
    stdin_once(&args.stones, &args.count.board)?;
    let pieces = read_pieces(&args.stones)?;
    let board = args
        .count
        .board
        .board(Some(&args.stones), Some(args.top_left))?;
    print_counts(&board, &pieces, &args.count, &args.limits)
}

pub(super) fn solve_checkerboard(args: CheckerboardSolveArgs) -> Result<ExitCode> {
    stdin_once(&args.stones, &args.board)?;
    let pieces = read_pieces(&args.stones)?;
    let board = args.board.board(Some(&args.stones), Some(args.top_left))?;
    let mut problem = match tiling::Tiling::new(&board, &pieces) {
        Ok(problem) => problem,
        Err(impossible) => {
            // No solution to print: exit code 1, as for a puzzle whose search finds none.
            say(&format!("puzzlebench: {impossible}\n"));
            return Ok(exit_code(1));
        }
    };
    // The stones and the board file are refused as the output, which would empty them.
    let read: Vec<InputSpec> = std::iter::once(args.stones.as_path())
        .chain(args.board.board_file.as_deref())
        .map(|path| InputSpec::new(path, None))
        .collect();
    let mut out = create_output(args.output.as_ref(), &read)?;
    let limit = args.limit.unwrap_or(u64::MAX);
    let destination = output_name(args.output.as_ref());
    let cannot_write = || format!("cannot write the solutions to {destination}");
    let format = args.output_format;
    let found = write_solutions(&mut problem, &board, &pieces, format, limit, &mut out)
        .with_context(cannot_write)?;
    out.flush().with_context(cannot_write)?;
    Ok(exit_code(u64::from(found == 0)))
}

/// Refuses standard input (`-`) named both for the pieces and for the board file.
fn stdin_once(pieces: &Path, board: &BoardChoice) -> Result<()> {
    let stdin = Path::new("-");
    if pieces == stdin && board.board_file.as_deref() == Some(stdin) {
        return Err(BatchError::StdinTwice.into());
    }
    Ok(())
}

/// Counts and prints the counts. Pieces that cannot cover the board (too many or too few
/// cells, colours that cannot match, a piece that fits nowhere) have 0 tilings: that is
/// the answer, printed as any other with exit code 0, the reason on standard error. A count
/// stopped by its timeout prints the counts reached, marked partial, with exit code 1; one
/// stopped by SIGINT or SIGTERM the same, with exit code 130 or 143.
fn print_counts(
    board: &tiling::Board,
    pieces: &[tiling::Piece],
    options: &CountOptions,
    limits: &CountLimits,
) -> Result<ExitCode> {
    let search = options.search;
    let interruption = Interruption::install().context("cannot install the signal handlers")?;
    let pool = thread_pool(options.threads)?;
    let terminal = io::stderr().is_terminal();
    let lines = (options.progress && !terminal).then(|| Box::new(io::stderr()) as _);
    let progress = CountProgress::new(terminal, lines);
    let stop = interruption.flag();
    // The timeout and the signals cover building the problem as well as searching it.
    let prepare = |stop: &AtomicBool| {
        tiling::Tiling::configured_until(board, pieces, search.symmetry(), search.engine, stop)
    };
    let counted = match tiling::Tiling::prepare_and_count_with_progress(
        prepare,
        &pool,
        limits.timeout,
        &stop,
        &progress,
    ) {
        Ok(counted) => counted,
        Err(impossible) => {
            say(&format!("puzzlebench: no tiling: {impossible}\n"));
            Counted::no_tiling()
        }
    };
    let text = counts_text(&counted, search.break_symmetry, options.json);
    let mut out = puzzlebench::report::standard_output()?.lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .context("cannot write the counts to standard output")?;
    Ok(match counted.stopped {
        Some(Stop::Interrupted) => ExitCode::from(interruption.exit_code()),
        _ => exit_code(u64::from(!counted.complete())),
    })
}
