//! `puzzlebench sudoku …`: solve, show and generate.

use super::*;

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
pub(super) enum DifficultyArg {
    /// Solved by forced moves alone (no guess).
    Easy,
    /// One to five guesses.
    Medium,
    /// Six guesses or more.
    Hard,
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
    difficulty: Option<DifficultyArg>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = GeneratedFormatArg::Lines)]
    format: GeneratedFormatArg,
    /// Write the puzzles to FILE instead of standard output.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Worker threads (default: one per core); the output does not depend on it.
    #[arg(short = 'j', long, default_value_t = 0, hide_default_value = true)]
    threads: usize,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(super) enum AlgorithmArg {
    /// Bitset solver with constraint propagation, the fastest on 9×9; other sizes are
    /// solved by dlx.
    Fast,
    /// Dancing-links exact cover.
    Dlx,
    /// Classic cell-by-cell backtracking (the baseline).
    Backtrack,
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
    #[arg(long, value_enum, default_value_t = AlgorithmArg::Fast)]
    algo: AlgorithmArg,
    /// Count solutions up to N before stopping: 2 proves uniqueness, 1 stops at the first
    /// solution (and `solved` then does not mean unique).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..))]
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
        algorithm: args.algo.into(),
        limit: args.limit,
        side,
        column: args.puzzle.column,
        expected_column: args.expected_column,
        with_expected: inputs.iter().any(|i| i.format == InputFormat::Csv),
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
    let mut sink = BlockSink {
        out: io::BufWriter::new(io::stdout()),
        columns: Vec::new(),
    };
    let options = RunOptions {
        threads: 1,
        ..RunOptions::default()
    };
    let stats = batch::run(&job, &inputs, &mut sink, &NoProgress, &options)?;
    Ok(exit_code(stats.failed))
}

pub(super) fn generate_sudoku(args: SudokuGenerateArgs) -> Result<ExitCode> {
    use rand::SeedableRng;
    use rayon::prelude::*;
    use sudoku::generate::{generate, Difficulty};
    let box_size = sudoku::box_size_of_side(args.size)?;
    let wanted = args.difficulty.map(|d| match d {
        DifficultyArg::Easy => Difficulty::Easy,
        DifficultyArg::Medium => Difficulty::Medium,
        DifficultyArg::Hard => Difficulty::Hard,
    });
    let pool = thread_pool(args.threads)?;
    // Puzzle i comes from its own stream of the seed, so the file does not depend on the
    // number of threads.
    const ATTEMPTS: usize = 1000;
    let puzzles: Vec<Option<sudoku::generate::Generated>> = pool.install(|| {
        (0..args.count)
            .into_par_iter()
            .map(|i| {
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(args.seed);
                rng.set_stream(i as u64);
                (0..ATTEMPTS).find_map(|_| {
                    let generated = generate(box_size, args.min_clues, &mut rng);
                    let class = Difficulty::of_guesses(generated.guesses);
                    wanted.is_none_or(|w| w == class).then_some(generated)
                })
            })
            .collect()
    });
    let mut out = create_output(args.output.as_ref())?;
    if matches!(args.format, GeneratedFormatArg::Csv) {
        writeln!(out, "puzzle,solution,clues,guesses,difficulty")?;
    }
    for (i, generated) in puzzles.into_iter().enumerate() {
        let Some(generated) = generated else {
            bail!(
                "puzzle {}: no {} puzzle in {ATTEMPTS} attempts; try another difficulty or --min-clues",
                i + 1,
                wanted.map_or("", Difficulty::name)
            );
        };
        match args.format {
            GeneratedFormatArg::Lines => writeln!(out, "{}", generated.puzzle)?,
            GeneratedFormatArg::Csv => writeln!(
                out,
                "{},{},{},{},{}",
                generated.puzzle,
                generated.solution,
                generated.puzzle.clue_count(),
                generated.guesses,
                Difficulty::of_guesses(generated.guesses).name()
            )?,
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

pub(super) fn check_size(size: Option<usize>) -> Result<Option<usize>> {
    if let Some(side) = size {
        sudoku::box_size_of_side(side)?;
    }
    Ok(size)
}

/// Prints `sudoku show` rows as blocks of text rather than CSV.
pub(super) struct BlockSink<W: Write> {
    out: W,
    columns: Vec<String>,
}

impl<W: Write> BlockSink<W> {
    fn text<'v>(&self, row: &'v [Value], column: &str) -> Option<&'v str> {
        let index = self.columns.iter().position(|c| c == column)?;
        match &row[index] {
            Value::Text(text) if !text.is_empty() => Some(text),
            _ => None,
        }
    }
}

impl From<AlgorithmArg> for Algorithm {
    fn from(arg: AlgorithmArg) -> Self {
        match arg {
            AlgorithmArg::Fast => Algorithm::Fast,
            AlgorithmArg::Dlx => Algorithm::Dlx,
            AlgorithmArg::Backtrack => Algorithm::Backtrack,
        }
    }
}

impl<W: Write> RowSink for BlockSink<W> {
    fn begin(&mut self, columns: &[String]) -> io::Result<()> {
        self.columns = columns.to_vec();
        Ok(())
    }

    fn write_row(&mut self, row: &[Value]) -> io::Result<()> {
        let mut title = String::new();
        if let Some(file) = self.text(row, "file") {
            title.push_str(file);
            title.push(':');
        }
        let line_index = self.columns.iter().position(|c| c == "line");
        title.push_str(&format!(
            "line {}",
            line_index.map_or(String::new(), |i| row[i].to_text())
        ));
        let status = self.text(row, "status").unwrap_or_default();
        let clues = self
            .columns
            .iter()
            .position(|c| c == "clues")
            .map(|i| row[i].to_text());
        match (self.text(row, "grid"), clues) {
            (Some(_), Some(clues)) if status != "shown" => {
                writeln!(self.out, "{title}: {clues} clues, {status}")?
            }
            (Some(_), Some(clues)) => writeln!(self.out, "{title}: {clues} clues")?,
            _ => writeln!(self.out, "{title}: {status}")?,
        }
        if let Some(error) = self.text(row, "error") {
            writeln!(self.out, "  {error}")?;
        }
        if let Some(grid) = self.text(row, "grid") {
            let solution: Vec<&str> = self
                .text(row, "solution")
                .map_or(Vec::new(), |s| s.lines().collect());
            for (i, line) in grid.lines().enumerate() {
                match solution.get(i) {
                    Some(solved) => writeln!(self.out, "{line}    {solved}")?,
                    None => writeln!(self.out, "{line}")?,
                }
            }
        }
        writeln!(self.out)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}
