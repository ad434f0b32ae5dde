//! `puzzlebench tiling …` and `puzzlebench checkerboard …`: count and print tilings.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};

use puzzlebench::tiling;
use puzzlebench::tiling::display::{
    counts_text, read_board, read_pieces, write_solutions, SolutionFormat,
};

use super::{create_output, exit_code, parse_field_size, progress_bar, thread_pool};

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
    /// Worker threads (default: one per core); the counts do not depend on it.
    #[arg(short = 'j', long, default_value_t = 0, hide_default_value = true)]
    threads: usize,
    /// Show a progress bar even when standard error is not a terminal.
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
}

pub(super) fn count_tilings(args: TilingCountArgs) -> Result<ExitCode> {
    let pieces = if args.pieces == "pentominoes" {
        tiling::pentominoes()
    } else {
        read_pieces(Path::new(&args.pieces))?
    };
    let board = board(&args.board, None, None)?;
    print_counts(&board, &pieces, &args.board)
}

pub(super) fn count_checkerboard(args: CheckerboardCountArgs) -> Result<ExitCode> {
    let pieces = read_pieces(&args.stones)?;
    let board = board(&args.board, Some(&args.stones), Some(args.top_left))?;
    print_counts(&board, &pieces, &args.board)
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
    let found = write_solutions(&mut problem, &board, &pieces, format, limit, &mut out)
        .context("cannot write the solutions")?;
    out.flush()?;
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
) -> Result<ExitCode> {
    let symmetry = tiling::Symmetry::from_flags(choice.break_symmetry, choice.no_symmetry);
    let built = tiling::Tiling::configured(board, pieces, symmetry, choice.engine);
    let Some(problem) = possible(built) else {
        return Ok(exit_code(1));
    };
    let pool = thread_pool(choice.threads)?;
    let template = "[{elapsed_precise}] {wide_bar} {pos}/{len} subtrees, {msg}";
    let bar = progress_bar(template, choice.progress);
    let counts = problem.count_parallel(&pool, |done, total, solutions| {
        if let Some(bar) = &bar {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
            bar.set_message(format!("{solutions} solutions"));
        }
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let text = counts_text(&counts, choice.break_symmetry, choice.json);
    io::stdout().lock().write_all(text.as_bytes())?;
    Ok(exit_code(u64::from(counts.labelled == 0)))
}

/// The problem, or `None` after saying why the pieces cannot cover the board: that is a
/// puzzle without solution (exit code 1), not bad input.
fn possible(built: Result<tiling::Tiling, tiling::TilingError>) -> Option<tiling::Tiling> {
    built
        .map_err(|impossible| eprintln!("puzzlebench: {impossible}"))
        .ok()
}
