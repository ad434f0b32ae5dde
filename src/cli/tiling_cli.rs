//! `puzzlebench tiling …` and `puzzlebench checkerboard …`: count and print tilings.

use super::*;

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
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    engine: EngineArg,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(super) enum EngineArg {
    /// Bit masks when the board's cells and the pieces number at most 128, else dancing
    /// links.
    Auto,
    /// The dancing-links engine.
    Dlx,
    /// Bit masks (dancing links above 128 cells and pieces).
    Bits,
}

impl From<EngineArg> for tiling::Engine {
    fn from(arg: EngineArg) -> Self {
        match arg {
            EngineArg::Auto => tiling::Engine::Auto,
            EngineArg::Dlx => tiling::Engine::DancingLinks,
            EngineArg::Bits => tiling::Engine::BitMasks,
        }
    }
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

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(super) enum TopLeftArg {
    /// The top-left cell is black.
    Black,
    /// The top-left cell is white.
    White,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(super) enum SolutionFormatArg {
    /// Framed grids.
    Text,
    /// One JSON object per solution: its placements (stone, orientation, cells).
    Jsonl,
}

#[derive(Debug, Args)]
pub(super) struct CheckerboardSolveArgs {
    /// The stones file. Without --board or --board-file the board comes from a name like
    /// `8x8_1.txt`.
    stones: PathBuf,
    /// Colour of the top-left cell of a --board rectangle.
    #[arg(long, value_enum, default_value_t = TopLeftArg::Black)]
    top_left: TopLeftArg,
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
    #[arg(long, value_enum, default_value_t = SolutionFormatArg::Text)]
    output_format: SolutionFormatArg,
    #[command(flatten)]
    board: BoardChoice,
}

#[derive(Debug, Args)]
pub(super) struct CheckerboardCountArgs {
    /// The stones file (one stone per block of `B`, `W`, `_` rows; a line of `=` ends a
    /// stone). Without --board or --board-file the board comes from a name like `8x8_1.txt`.
    stones: PathBuf,
    /// Colour of the top-left cell of a --board rectangle.
    #[arg(long, value_enum, default_value_t = TopLeftArg::Black)]
    top_left: TopLeftArg,
    #[command(flatten)]
    board: BoardChoice,
}

pub(super) fn count_tilings(args: TilingCountArgs) -> Result<ExitCode> {
    let pieces = if args.pieces == "pentominoes" {
        tiling::pentominoes()
    } else {
        read_pieces(Path::new(&args.pieces))?
    };
    let board = read_board(&args.board, None, None)?;
    print_counts(&board, &pieces, &args.board)
}

pub(super) fn count_checkerboard(args: CheckerboardCountArgs) -> Result<ExitCode> {
    let pieces = read_pieces(&args.stones)?;
    let board = read_board(&args.board, Some(&args.stones), Some(args.top_left.into()))?;
    print_counts(&board, &pieces, &args.board)
}

pub(super) fn solve_checkerboard(args: CheckerboardSolveArgs) -> Result<ExitCode> {
    use std::ops::ControlFlow;
    let pieces = read_pieces(&args.stones)?;
    let board = read_board(&args.board, Some(&args.stones), Some(args.top_left.into()))?;
    let Some(mut problem) = possible(tiling::Tiling::new(&board, &pieces)) else {
        return Ok(exit_code(1));
    };
    let placements = problem.placements().to_vec();
    let mut out = create_output(args.output.as_ref())?;
    let limit = args.limit.unwrap_or(u64::MAX);
    let mut found = 0u64;
    let mut failure = None;
    problem.solve(|options| {
        found += 1;
        let chosen: Vec<&tiling::Placement> = options.iter().map(|&o| &placements[o]).collect();
        let written = match args.output_format {
            SolutionFormatArg::Text => {
                write!(
                    out,
                    "solution {found}\n{}",
                    solution_grid(&board, &pieces, &chosen)
                )
            }
            SolutionFormatArg::Jsonl => writeln!(out, "{}", solution_json(found, &board, &chosen)),
        };
        if let Err(error) = written {
            failure = Some(error);
            return ControlFlow::Break(());
        }
        if found >= limit {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    if let Some(error) = failure {
        return Err(error).context("cannot write the solutions");
    }
    out.flush()?;
    Ok(exit_code(u64::from(found == 0)))
}

/// A solution as a framed grid: each cell its stone number and colour, `.` for holes.
pub(super) fn solution_grid(
    board: &tiling::Board,
    pieces: &[tiling::Piece],
    chosen: &[&tiling::Placement],
) -> String {
    let width = board.width();
    let mut stone = vec![None; width * board.height()];
    for placement in chosen {
        for &cell in &placement.cells {
            stone[cell] = Some(placement.piece);
        }
    }
    let cell_width = pieces.len().to_string().len() + 1;
    let rule = format!("+{}+\n", "-".repeat(width * (cell_width + 1) + 1));
    let mut text = rule.clone();
    for r in 0..board.height() {
        text.push('|');
        for c in 0..width {
            let label = match (stone[r * width + c], board.cell(r as i32, c as i32)) {
                (Some(piece), Some(color)) => format!(
                    "{}{}",
                    pieces[piece].name,
                    color.map_or('#', |color| color.letter())
                ),
                _ => ".".to_string(),
            };
            text.push_str(&format!(" {label:>cell_width$}"));
        }
        text.push_str(" |\n");
    }
    text.push_str(&rule);
    text
}

/// A solution as JSON: each placement's stone, orientation and cells (row, column).
pub(super) fn solution_json(
    number: u64,
    board: &tiling::Board,
    chosen: &[&tiling::Placement],
) -> String {
    let width = board.width();
    let placements: Vec<serde_json::Value> = chosen
        .iter()
        .map(|p| {
            let cells: Vec<[usize; 2]> = p.cells.iter().map(|&c| [c / width, c % width]).collect();
            serde_json::json!({"stone": p.piece + 1, "orientation": p.orientation, "cells": cells})
        })
        .collect();
    serde_json::json!({"solution": number, "placements": placements}).to_string()
}

pub(super) fn read_pieces(path: &Path) -> Result<Vec<tiling::Piece>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    tiling::parse_pieces(&text).with_context(|| format!("{}", path.display()))
}

/// The board from --board, --board-file, or a stones file named like `8x8_1.txt`.
pub(super) fn read_board(
    choice: &BoardChoice,
    named_after: Option<&Path>,
    colors: Option<tiling::Color>,
) -> Result<tiling::Board> {
    if let Some(path) = &choice.board_file {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        return tiling::Board::parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()));
    }
    let size = match (choice.board, named_after) {
        (Some(size), _) => size,
        (None, Some(path)) => path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.split('_').next())
            .and_then(|n| battleship::parse_size(n).ok())
            .with_context(|| {
                format!(
                    "give --board WxH: the size is not in the name {}",
                    path.display()
                )
            })?,
        (None, None) => bail!("give --board WxH or --board-file FILE"),
    };
    tiling::Board::rectangle(size.0, size.1, colors).map_err(anyhow::Error::msg)
}

pub(super) fn print_counts(
    board: &tiling::Board,
    pieces: &[tiling::Piece],
    choice: &BoardChoice,
) -> Result<ExitCode> {
    let symmetry = if choice.break_symmetry {
        tiling::Symmetry::Broken
    } else if choice.no_symmetry {
        tiling::Symmetry::Ignored
    } else {
        tiling::Symmetry::Derived
    };
    let built = tiling::Tiling::configured(board, pieces, symmetry, choice.engine.into());
    let Some(problem) = possible(built) else {
        return Ok(exit_code(1));
    };
    let pool = thread_pool(choice.threads)?;
    let bar = (choice.progress || io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(0);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "[{elapsed_precise}] {wide_bar} {pos}/{len} subtrees, {msg}",
        ) {
            bar.set_style(style);
        }
        bar
    });
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
    if choice.break_symmetry {
        if choice.json {
            let json = serde_json::json!({
                "up_to_symmetry": counts.up_to_symmetry,
                "searched": counts.labelled,
            });
            println!("{json}");
        } else {
            println!("up_to_symmetry: {}", counts.up_to_symmetry);
            println!(
                "(symmetry broken: {} solutions searched; labelled and tilings not counted)",
                counts.labelled
            );
        }
    } else if choice.json {
        println!("{}", serde_json::to_string(&counts)?);
    } else {
        println!("labelled: {}", counts.labelled);
        println!("tilings: {}", counts.tilings);
        println!("up_to_symmetry: {}", counts.up_to_symmetry);
    }
    Ok(exit_code(u64::from(counts.labelled == 0)))
}

impl From<TopLeftArg> for tiling::Color {
    fn from(arg: TopLeftArg) -> Self {
        match arg {
            TopLeftArg::Black => tiling::Color::Black,
            TopLeftArg::White => tiling::Color::White,
        }
    }
}

/// The problem, or `None` after saying why the pieces cannot cover the board: that is a
/// puzzle without solution (exit code 1), not bad input.
fn possible(built: Result<tiling::Tiling, tiling::TilingError>) -> Option<tiling::Tiling> {
    built
        .map_err(|impossible| eprintln!("puzzlebench: {impossible}"))
        .ok()
}
