//! `puzzlebench sudoku …`: solve, show and generate.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand, ValueEnum};

use puzzlebench::batch::{self, NoProgress, RunOptions};
use puzzlebench::report;
use puzzlebench::sudoku::display::BlockWriter;
use puzzlebench::sudoku::generate::{generate_batch, write_generated, Batch, Difficulty};
use puzzlebench::sudoku::{self, Algorithm, DEFAULT_LIMIT};

use super::{
    create_output, exit_code, input_specs, parse_threads, run_job, thread_pool, FormatArg, RunArgs,
};

#[derive(Debug, Subcommand)]
pub(super) enum SudokuCommand {
    /// Solve every puzzle of the inputs, one result row per puzzle, in input order.
    ///
    /// Statuses: solved (one solution), multiple (two or more; the first is given),
    /// unsolvable (none; conflicting clues are named), error (not a puzzle: says what and
    /// where). Exit code 0 if all are solved, 1 if any is unsolvable, an error or a
    /// mismatch against an expected solution, 2 if the run could not proceed.
    Solve(SolveArgs),
    /// Print each puzzle in the block display (`|` between boxes, `---+---+---` between
    /// bands), optionally beside its solution.
    Show(ShowArgs),
    /// Make puzzles with exactly one solution, reproducibly from a seed: a random full
    /// grid, then clues removed while the solution stays unique; rated by the search
    /// effort they need.
    Generate(SudokuGenerateArgs),
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(super) enum GeneratedFormatArg {
    /// One puzzle per line, `.` for blanks.
    Lines,
    /// CSV: puzzle, solution, clues, guesses, difficulty.
    Csv,
}

#[derive(Debug, Args)]
pub(super) struct SudokuGenerateArgs {
    /// Number of puzzles.
    #[arg(long, default_value_t = 100)]
    count: usize,
    /// Random seed: the same seed gives the same puzzles.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Grid side: 4, 9, 16 or 25.
    #[arg(long, default_value_t = 9, value_name = "SIDE")]
    size: usize,
    /// Stop removing clues at this many.
    #[arg(long, default_value_t = 0, value_name = "K")]
    min_clues: usize,
    /// Keep only puzzles of this difficulty (rated by the exact-cover solver's guesses).
    #[arg(long, value_enum)]
    difficulty: Option<Difficulty>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = GeneratedFormatArg::Lines)]
    format: GeneratedFormatArg,
    /// Write the puzzles to FILE instead of standard output.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Worker threads, at most 1024 (default: one per core); the output does not depend on it.
    #[arg(short = 'j', long, default_value_t = 0, hide_default_value = true, value_parser = parse_threads)]
    threads: usize,
}

/// Where the puzzle is and how big it is.
#[derive(Debug, Args)]
pub(super) struct PuzzleArgs {
    /// Grid side: 4, 9, 16 or 25 (default: inferred from each line's length).
    #[arg(long, value_name = "SIDE")]
    size: Option<usize>,
    /// CSV column holding the puzzles (default: the first column).
    #[arg(long, value_name = "NAME")]
    column: Option<String>,
}

#[derive(Debug, Args)]
pub(super) struct SolveArgs {
    /// Solving algorithm.
    #[arg(long, value_enum, default_value_t = Algorithm::Fast)]
    algo: Algorithm,
    /// Count solutions up to N before stopping: 2 proves uniqueness, 1 stops at the first
    /// solution (and `solved` then does not mean unique).
    #[arg(long, default_value_t = DEFAULT_LIMIT, value_parser = clap::value_parser!(u64).range(1..))]
    limit: u64,
    #[command(flatten)]
    puzzle: PuzzleArgs,
    /// CSV column of expected solutions to compare with (default: a column named
    /// `solution` or `solutions`, if any).
    #[arg(long, value_name = "NAME")]
    expected_column: Option<String>,
    /// Read inputs as this format (default: CSV for `.csv`/`.csv.gz`, else one per line).
    #[arg(long, value_enum)]
    format: Option<FormatArg>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, Args)]
pub(super) struct ShowArgs {
    /// Input files; none or `-` reads standard input. `.gz` files are decompressed.
    files: Vec<String>,
    /// Read inputs as this format (default: CSV for `.csv`/`.csv.gz`, else one per line).
    #[arg(long, value_enum)]
    format: Option<FormatArg>,
    #[command(flatten)]
    puzzle: PuzzleArgs,
    /// Solve each puzzle and show its solution beside it.
    #[arg(long)]
    solve: bool,
}

pub(super) fn solve_sudoku(args: SolveArgs) -> Result<ExitCode> {
    let side = check_size(args.puzzle.size)?;
    let inputs = input_specs(&args.run.files, args.format.map(FormatArg::input_format))?;
    let job = sudoku::SolveJob {
        algorithm: args.algo,
        limit: args.limit,
        side,
        column: args.puzzle.column,
        expected_column: args.expected_column,
        with_expected: inputs.iter().any(|i| i.format == batch::InputFormat::Csv),
    };
    run_job(&job, "sudoku solve", &inputs, &args.run)
}

pub(super) fn show_sudoku(args: ShowArgs) -> Result<ExitCode> {
    let side = check_size(args.puzzle.size)?;
    let inputs = input_specs(&args.files, args.format.map(FormatArg::input_format))?;
    let job = sudoku::ShowJob {
        side,
        column: args.puzzle.column,
        solve_with: args.solve.then_some(Algorithm::Fast),
    };
    let mut sink = BlockWriter::new(io::BufWriter::new(report::standard_output()?));
    let options = RunOptions {
        threads: 1,
        ..RunOptions::default()
    };
    let stats = batch::run(&job, &inputs, &mut sink, &NoProgress, &options)?;
    Ok(exit_code(stats.failed))
}

pub(super) fn generate_sudoku(args: SudokuGenerateArgs) -> Result<ExitCode> {
    let batch = Batch {
        count: args.count,
        seed: args.seed,
        box_size: sudoku::box_size_of_side(args.size)?,
        min_clues: args.min_clues,
        difficulty: args.difficulty,
    };
    let puzzles = thread_pool(args.threads)?.install(|| generate_batch(&batch))?;
    let mut out = create_output(args.output.as_ref())?;
    let csv = matches!(args.format, GeneratedFormatArg::Csv);
    write_generated(&mut out, &puzzles, csv)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn check_size(size: Option<usize>) -> Result<Option<usize>> {
    if let Some(side) = size {
        sudoku::box_size_of_side(side)?;
    }
    Ok(size)
}
