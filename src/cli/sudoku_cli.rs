//! `puzzlebench sudoku …`: solve, show and generate.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::Ordering;

use anyhow::{Context, Result};
use clap::{Args, Subcommand, ValueEnum};

use puzzlebench::batch::{self, InputFormat, InputSpec, Interruption, NoProgress, RunOptions};
use puzzlebench::budget::Budget;
use puzzlebench::report;
use puzzlebench::sudoku::display::BlockWriter;
use puzzlebench::sudoku::generate::{
    generate_each, write_generated_header, write_generated_rows, Batch,
};
use puzzlebench::sudoku::{self, Algorithm, PuzzleLocation, SolveOptions};

use super::{create_output, exit_code, output_name, parse_threads, run_job, thread_pool, RunArgs};

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
    #[command(flatten)]
    batch: Batch,
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

#[derive(Debug, Args)]
pub(super) struct SolveArgs {
    #[command(flatten)]
    options: SolveOptions,
    /// Read inputs as this format (default: CSV for `.csv`/`.csv.gz`, else one per line).
    #[arg(long, value_enum)]
    format: Option<InputFormat>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, Args)]
pub(super) struct ShowArgs {
    /// Input files; none or `-` reads standard input. `.gz` files are decompressed.
    files: Vec<std::ffi::OsString>,
    /// Read inputs as this format (default: CSV for `.csv`/`.csv.gz`, else one per line).
    #[arg(long, value_enum)]
    format: Option<InputFormat>,
    #[command(flatten)]
    puzzle: PuzzleLocation,
    /// Solve each puzzle and show its solution beside it.
    #[arg(long)]
    solve: bool,
    /// With --solve, time budget per puzzle (`250ms`, `2s`, `1m`): a puzzle over it is
    /// shown as `timeout`, and the next is shown.
    #[arg(long, value_name = "DURATION", value_parser = super::parse_timeout, requires = "solve")]
    timeout: Option<std::time::Duration>,
    /// With --solve, guess budget per puzzle: over it, the puzzle is shown as `timeout`.
    #[arg(long, value_name = "N", requires = "solve")]
    max_nodes: Option<u64>,
}

pub(super) fn solve_sudoku(args: SolveArgs) -> Result<ExitCode> {
    let inputs = InputSpec::for_names(&args.run.files, args.format)?;
    let options = &args.options;
    refuse_csv_options_without_csv(
        &inputs,
        &[
            ("--column", options.puzzle.column.is_some()),
            ("--expected-column", options.expected_column.is_some()),
        ],
    )?;
    let job = args.options.job(&inputs);
    run_job(&job, "sudoku solve", &inputs, &args.run)
}

/// Refuses a CSV option given (`(flag, given)`) when no input is read as CSV: it would
/// be ignored without a word.
fn refuse_csv_options_without_csv(inputs: &[InputSpec], options: &[(&str, bool)]) -> Result<()> {
    let given = options.iter().find(|(_, given)| *given);
    match given {
        Some((flag, _)) if inputs.iter().all(|i| i.format != InputFormat::Csv) => {
            anyhow::bail!(
                "{flag} names a CSV column, but no input is read as CSV ({} is read as lines): \
                 name a file .csv, or give --format csv",
                inputs[0].display_name()
            )
        }
        _ => Ok(()),
    }
}

pub(super) fn show_sudoku(args: ShowArgs) -> Result<ExitCode> {
    let inputs = InputSpec::for_names(&args.files, args.format)?;
    refuse_csv_options_without_csv(&inputs, &[("--column", args.puzzle.column.is_some())])?;
    let job = sudoku::ShowJob {
        side: args.puzzle.size,
        column: args.puzzle.column,
        solve_with: args.solve.then_some(Algorithm::Fast),
    };
    let mut sink = BlockWriter::new(io::BufWriter::new(report::open_output(None, &inputs)?));
    // Ctrl-C ends the run after the last whole grid, as it does the batch commands.
    let interruption = Interruption::install().context("cannot install the signal handlers")?;
    let options = RunOptions {
        threads: 1,
        stop: Some(interruption.flag()),
        budget: Budget {
            timeout: args.timeout,
            max_nodes: args.max_nodes,
        },
        ..RunOptions::default()
    };
    let stats = batch::run(&job, &inputs, &mut sink, &NoProgress, &options)?;
    if stats.interrupted {
        return Ok(ExitCode::from(interruption.exit_code()));
    }
    Ok(exit_code(stats.failed))
}

pub(super) fn generate_sudoku(args: SudokuGenerateArgs) -> Result<ExitCode> {
    // Settings that cannot make a puzzle fail before the output file is created.
    args.batch.check()?;
    let mut out = create_output(args.output.as_ref(), &[])?;
    let csv = matches!(args.format, GeneratedFormatArg::Csv);
    let destination = output_name(args.output.as_ref());
    let cannot_write = || format!("cannot write the puzzles to {destination}");
    if csv {
        write_generated_header(&mut out).with_context(cannot_write)?;
    }
    // A block at a time, each flushed: a large --count streams out rather than being held
    // whole. Ctrl-C (or SIGTERM) stops the searches at once; the puzzles finished by then
    // are written, in order, and the run ends with the signal's exit code. A second
    // signal exits at once.
    let interruption = Interruption::install().context("cannot install the signal handlers")?;
    let stop = interruption.flag();
    let generated = thread_pool(args.threads)?.install(|| {
        generate_each(&args.batch, Some(&stop), |block| {
            write_generated_rows(&mut out, block, csv)
                .and_then(|()| out.flush())
                .with_context(cannot_write)?;
            match stop.load(Ordering::Relaxed) {
                true => Err(anyhow::anyhow!("interrupted")),
                false => Ok(()),
            }
        })
    });
    if stop.load(Ordering::Relaxed) {
        return Ok(ExitCode::from(interruption.exit_code()));
    }
    generated?;
    out.flush().with_context(cannot_write)?;
    Ok(ExitCode::SUCCESS)
}
