//! The command line: argument definitions (their doc comments are the `--help` text) and
//! the glue that runs a library job and reports on it.

use std::fs::File;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};

use puzzlebench::batch::{
    self, InputFormat, InputSpec, Job, NoProgress, Progress, RowSink, RunOptions, TerminalProgress,
    Value,
};
use puzzlebench::battleship;
use puzzlebench::connect4;
use puzzlebench::report::{self, EnvInfo, OutputFormat, Summary};
use puzzlebench::sudoku::{self, Algorithm};
use puzzlebench::tiling;

/// Solve, validate and benchmark grid puzzles in bulk.
#[derive(Debug, Parser)]
#[command(name = "puzzlebench", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Sudoku of every size (4×4, 9×9, 16×16, 25×25): solve corpora, show grids.
    #[command(subcommand)]
    Sudoku(SudokuCommand),
    /// Battleship fields: validate fleets, ships touching or not; generate fields.
    #[command(subcommand)]
    Battleship(BattleshipCommand),
    /// Connect Four: validate archives of game logs; generate games.
    #[command(name = "connect4", subcommand)]
    Connect4(Connect4Command),
    /// Polyomino tilings of a board: count every solution three ways.
    #[command(subcommand)]
    Tiling(TilingCommand),
    /// The checkerboard (draught-board) puzzle: put coloured stones back on a chessboard.
    #[command(subcommand)]
    Checkerboard(CheckerboardCommand),
}

#[derive(Debug, Subcommand)]
enum TilingCommand {
    /// Count the tilings of a board by a set of pieces: labelled (every piece distinct),
    /// tilings (identical pieces interchangeable) and up to the board's symmetries.
    Count(TilingCountArgs),
}

#[derive(Debug, Subcommand)]
enum CheckerboardCommand {
    /// Print the ways to put the stones back, each as a framed grid of stone numbers and
    /// colours (`7B 11W …`), or as JSON Lines of placements.
    Solve(CheckerboardSolveArgs),
    /// Count the ways to put the stones back: labelled, tilings, and up to the symmetries
    /// of the board that keep its colouring.
    Count(CheckerboardCountArgs),
}

/// The board to cover.
#[derive(Debug, Args)]
struct BoardChoice {
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
    /// Count only up to symmetry, faster: one piece is kept to the placements that are
    /// the smallest of their symmetric images (labelled and tilings are then not counted).
    #[arg(long)]
    break_symmetry: bool,
}

#[derive(Debug, Args)]
struct TilingCountArgs {
    /// `pentominoes` (the 12 free pentominoes) or a pieces file in the stones format with
    /// `#` cells.
    #[arg(long, default_value = "pentominoes")]
    pieces: String,
    #[command(flatten)]
    board: BoardChoice,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum TopLeftArg {
    /// The top-left cell is black.
    Black,
    /// The top-left cell is white.
    White,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum SolutionFormatArg {
    /// Framed grids.
    Text,
    /// One JSON object per solution: its placements (stone, orientation, cells).
    Jsonl,
}

#[derive(Debug, Args)]
struct CheckerboardSolveArgs {
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
struct CheckerboardCountArgs {
    /// The stones file (one stone per block of `B`, `W`, `_` rows; a line of `=` ends a
    /// stone). Without --board or --board-file the board comes from a name like `8x8_1.txt`.
    stones: PathBuf,
    /// Colour of the top-left cell of a --board rectangle.
    #[arg(long, value_enum, default_value_t = TopLeftArg::Black)]
    top_left: TopLeftArg,
    #[command(flatten)]
    board: BoardChoice,
}

#[derive(Debug, Subcommand)]
enum Connect4Command {
    /// Replay every game and say who won, at which move and with which line, or why not.
    ///
    /// Statuses: win, draw, unfinished, invalid (the first move that cannot be played:
    /// column outside the board, full column, same colour twice, a move after the end),
    /// error (the line cannot be read: says which token or character and where). Exit code
    /// 0 if no game is invalid or an error, 1 otherwise, 2 if the run could not proceed.
    Validate(Connect4ValidateArgs),
    /// Print random games played to their end, reproducibly from a seed, some broken on
    /// purpose.
    Generate(Connect4GenerateArgs),
}

/// The board's size.
#[derive(Debug, Args)]
struct BoardArgs {
    /// Columns (4 to 16; width × (height + 1) at most 128).
    #[arg(long, default_value_t = 7)]
    width: usize,
    /// Rows (4 to 16).
    #[arg(long, default_value_t = 6)]
    height: usize,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum NotationArg {
    /// Colours if a token has an underscore, digits otherwise.
    Auto,
    /// Column numbers: `4453`, or `10,11,3` (separated by commas or spaces) for boards
    /// wider than 9.
    Digits,
    /// `F_Yellow, A_Red, …` (column letter, underscore, colour), optionally as a JSON list.
    Colors,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum AfterEndArg {
    /// A move after the game ended makes it invalid.
    Error,
    /// The first four decides; later moves are ignored and counted in `trailing`.
    Ignore,
}

#[derive(Debug, Args)]
struct Connect4ValidateArgs {
    #[command(flatten)]
    board: BoardArgs,
    /// How moves are written.
    #[arg(long, value_enum, default_value_t = NotationArg::Auto)]
    notation: NotationArg,
    /// What moves after the end of the game mean.
    #[arg(long, value_enum, default_value_t = AfterEndArg::Error)]
    after_end: AfterEndArg,
    /// CSV column holding the moves (default: the first); the other columns are carried
    /// through to the results.
    #[arg(long, value_name = "NAME")]
    column: Option<String>,
    /// Read inputs as this format (default: CSV for `.csv`/`.csv.gz`, else one per line).
    #[arg(long, value_enum)]
    format: Option<FormatArg>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum GameNotationArg {
    /// Column numbers.
    Digits,
    /// `D_Yellow, C_Red, …`.
    Colors,
}

#[derive(Debug, Args)]
struct Connect4GenerateArgs {
    /// Number of games.
    #[arg(long, default_value_t = 1000)]
    count: usize,
    /// Random seed: the same seed gives the same games.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    #[command(flatten)]
    board: BoardArgs,
    /// How to write the games.
    #[arg(long, value_enum, default_value_t = GameNotationArg::Digits)]
    notation: GameNotationArg,
    /// Share of games broken on purpose: a move into a full column, the same colour twice,
    /// a move after the end, an unreadable token, or a game cut short.
    #[arg(long, default_value_t = 0.0)]
    faults: f64,
    /// Write the games to FILE instead of standard output.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
enum BattleshipCommand {
    /// Decide for every field whether it holds the fleet, with the reason when it does not.
    ///
    /// Statuses: valid, invalid (with a reason: wrong number of ship cells, no way to split
    /// the cells into the fleet, a group that is not straight, ships touching at a corner,
    /// the wrong ships), error (not a field: says what and where). Exit code 0 if all are
    /// valid, 1 otherwise, 2 if the run could not proceed.
    Validate(BattleshipValidateArgs),
    /// Print random fields, reproducibly from a seed, some of them broken on purpose.
    Generate(BattleshipGenerateArgs),
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum RulesArg {
    /// Ships may touch by edge or corner (the seed article's rules).
    Touching,
    /// No two ships touch, not even at a corner (the classic game).
    Separated,
}

impl From<RulesArg> for battleship::Rules {
    fn from(arg: RulesArg) -> Self {
        match arg {
            RulesArg::Touching => battleship::Rules::Touching,
            RulesArg::Separated => battleship::Rules::Separated,
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum FieldFormatArg {
    /// Decide per record: a JSON list if it starts with `[`, else a line.
    Auto,
    /// One field per line: all cells in row-major order (square, or with --size), or the
    /// rows separated by spaces. `1`, `x`, `#` are ship cells; `0`, `.` water.
    Line,
    /// A JSON (or Python) list of lists of 0 and 1 on one line.
    Json,
    /// One row per line, fields separated by blank lines.
    Blocks,
}

/// Rules and fleet, shared by validation and generation.
#[derive(Debug, Args)]
struct FleetArgs {
    /// Whether ships may touch.
    #[arg(long, value_enum, default_value_t = RulesArg::Touching)]
    rules: RulesArg,
    /// Ship lengths, separated by commas.
    #[arg(long, default_value = "4,3,3,2,2,2,1,1,1,1", value_parser = parse_fleet)]
    fleet: battleship::Fleet,
}

fn parse_fleet(text: &str) -> Result<battleship::Fleet, String> {
    battleship::Fleet::parse(text).map_err(|e| e.to_string())
}

fn parse_field_size(text: &str) -> Result<(usize, usize), String> {
    battleship::parse_size(text).map_err(|e| e.to_string())
}

#[derive(Debug, Args)]
struct BattleshipValidateArgs {
    #[command(flatten)]
    fleet: FleetArgs,
    /// Field size WIDTHxHEIGHT (default: from each record; a single line of cells must then
    /// be square).
    #[arg(long, value_name = "WxH", value_parser = parse_field_size)]
    size: Option<(usize, usize)>,
    /// How fields are written.
    #[arg(long, value_enum, default_value_t = FieldFormatArg::Auto)]
    format: FieldFormatArg,
    /// Also count the distinct ways to read each field as the fleet.
    #[arg(long)]
    count: bool,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, Args)]
struct BattleshipGenerateArgs {
    /// Number of fields.
    #[arg(long, default_value_t = 1000)]
    count: usize,
    /// Random seed: the same seed gives the same fields.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    #[command(flatten)]
    fleet: FleetArgs,
    /// Field size WIDTHxHEIGHT.
    #[arg(long, value_name = "WxH", default_value = "10x10", value_parser = parse_field_size)]
    size: (usize, usize),
    /// Share of fields broken on purpose: of those, half get one ship cell moved, four in
    /// ten one cell flipped, one in ten a character that is not a cell.
    #[arg(long, default_value_t = 0.0)]
    faults: f64,
    /// Write the fields to FILE instead of standard output.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
enum SudokuCommand {
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
enum DifficultyArg {
    /// Solved by forced moves alone (no guess).
    Easy,
    /// One to five guesses.
    Medium,
    /// Six guesses or more.
    Hard,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum GeneratedFormatArg {
    /// One puzzle per line, `.` for blanks.
    Lines,
    /// CSV: puzzle, solution, clues, guesses, difficulty.
    Csv,
}

#[derive(Debug, Args)]
struct SudokuGenerateArgs {
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

/// Inputs, outputs and reporting, common to every bulk command.
#[derive(Debug, Args)]
struct RunArgs {
    /// Input files; none or `-` reads standard input. `.gz` files are decompressed.
    files: Vec<String>,
    /// Worker threads (default: one per core).
    #[arg(short = 'j', long, default_value_t = 0, hide_default_value = true)]
    threads: usize,
    /// Write result rows to FILE instead of standard output.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Format of the result rows.
    #[arg(long, value_enum, default_value_t = OutputFormatArg::Csv)]
    output_format: OutputFormatArg,
    /// Write summary.json, summary.csv, summary.md and env.json into DIR.
    #[arg(long, value_name = "DIR")]
    report: Option<PathBuf>,
    /// Show the progress bar and summary even when standard error is not a terminal.
    #[arg(long)]
    progress: bool,
    /// Do not print the summary.
    #[arg(short, long)]
    quiet: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum FormatArg {
    /// One record per line; blank and `#` lines skipped.
    Lines,
    /// CSV with a header row.
    Csv,
}

impl FormatArg {
    fn input_format(self) -> InputFormat {
        match self {
            FormatArg::Lines => InputFormat::Lines,
            FormatArg::Csv => InputFormat::Csv,
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum OutputFormatArg {
    /// CSV with a header row.
    Csv,
    /// One JSON object per line.
    Jsonl,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum AlgorithmArg {
    /// Dancing-links exact cover.
    Dlx,
    /// Classic cell-by-cell backtracking (the baseline).
    Backtrack,
}

impl From<AlgorithmArg> for Algorithm {
    fn from(arg: AlgorithmArg) -> Self {
        match arg {
            AlgorithmArg::Dlx => Algorithm::Dlx,
            AlgorithmArg::Backtrack => Algorithm::Backtrack,
        }
    }
}

/// Where the puzzle is and how big it is.
#[derive(Debug, Args)]
struct PuzzleArgs {
    /// Grid side: 4, 9, 16 or 25 (default: inferred from each line's length).
    #[arg(long, value_name = "SIDE")]
    size: Option<usize>,
    /// CSV column holding the puzzles (default: the first column).
    #[arg(long, value_name = "NAME")]
    column: Option<String>,
}

#[derive(Debug, Args)]
struct SolveArgs {
    /// Solving algorithm.
    #[arg(long, value_enum, default_value_t = AlgorithmArg::Dlx)]
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
struct ShowArgs {
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
            Command::Tiling(TilingCommand::Count(args)) => count_tilings(args),
            Command::Checkerboard(CheckerboardCommand::Count(args)) => count_checkerboard(args),
            Command::Checkerboard(CheckerboardCommand::Solve(args)) => solve_checkerboard(args),
        }
    }
}

fn solve_sudoku(args: SolveArgs) -> Result<ExitCode> {
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

fn show_sudoku(args: ShowArgs) -> Result<ExitCode> {
    let side = check_size(args.puzzle.size)?;
    let inputs = input_specs(&args.files, args.format.map(FormatArg::input_format))?;
    let job = sudoku::ShowJob {
        side,
        column: args.puzzle.column,
        solve_with: args.solve.then_some(Algorithm::Dlx),
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

fn validate_battleship(args: BattleshipValidateArgs) -> Result<ExitCode> {
    let (format, input_format) = match args.format {
        FieldFormatArg::Auto => (battleship::FieldFormat::Auto, InputFormat::Lines),
        FieldFormatArg::Line => (battleship::FieldFormat::Line, InputFormat::Lines),
        FieldFormatArg::Json => (battleship::FieldFormat::Json, InputFormat::Lines),
        FieldFormatArg::Blocks => (battleship::FieldFormat::Blocks, InputFormat::Blocks),
    };
    let inputs = input_specs(&args.run.files, Some(input_format))?;
    let job = battleship::ValidateJob {
        rules: args.fleet.rules.into(),
        fleet: args.fleet.fleet,
        size: args.size,
        format,
        count: args.count,
    };
    run_job(&job, "battleship validate", &inputs, &args.run)
}

fn generate_battleship(args: BattleshipGenerateArgs) -> Result<ExitCode> {
    use rand::{Rng, SeedableRng};
    if !(0.0..=1.0).contains(&args.faults) {
        bail!("--faults is a share between 0 and 1, not {}", args.faults);
    }
    let (width, height) = args.size;
    let rules = args.fleet.rules.into();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(args.seed);
    let mut out: Box<dyn Write> = match &args.output {
        Some(path) => Box::new(io::BufWriter::new(
            File::create(path)
                .with_context(|| format!("cannot create output file {}", path.display()))?,
        )),
        None => Box::new(io::BufWriter::new(io::stdout())),
    };
    for _ in 0..args.count {
        let Some(mut field) =
            battleship::generate::random_fleet(width, height, &args.fleet.fleet, rules, &mut rng)
        else {
            bail!(
                "the fleet {} does not fit on a {width}x{height} field",
                args.fleet.fleet
            );
        };
        let mut garbled = false;
        if rng.gen_bool(args.faults) {
            match rng.gen_range(0..10) {
                0 => garbled = true,
                1..=5 => battleship::generate::move_random_cell(&mut field, &mut rng),
                _ => battleship::generate::flip_random_cell(&mut field, &mut rng),
            }
        }
        let mut line = field.to_line();
        if garbled {
            let at = rng.gen_range(0..line.len());
            line.replace_range(at..at + 1, "?");
        }
        writeln!(out, "{line}")?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn validate_connect4(args: Connect4ValidateArgs) -> Result<ExitCode> {
    let fits_u64 =
        connect4::board_fits(args.board.width, args.board.height).map_err(anyhow::Error::msg)?;
    let inputs = input_specs(&args.run.files, args.format.map(FormatArg::input_format))?;
    let job = connect4::ValidateJob {
        width: args.board.width,
        height: args.board.height,
        fits_u64,
        notation: match args.notation {
            NotationArg::Auto => connect4::Notation::Auto,
            NotationArg::Digits => connect4::Notation::Digits,
            NotationArg::Colors => connect4::Notation::Colors,
        },
        after_end: match args.after_end {
            AfterEndArg::Error => connect4::AfterEnd::Error,
            AfterEndArg::Ignore => connect4::AfterEnd::Ignore,
        },
        column: args.column,
    };
    run_job(&job, "connect4 validate", &inputs, &args.run)
}

fn generate_connect4(args: Connect4GenerateArgs) -> Result<ExitCode> {
    use connect4::generate::{break_game, random_game, write_game, GameNotation, WriteFault};
    use rand::{Rng, SeedableRng};
    let (width, height) = (args.board.width, args.board.height);
    connect4::board_fits(width, height).map_err(anyhow::Error::msg)?;
    if !(0.0..=1.0).contains(&args.faults) {
        bail!("--faults is a share between 0 and 1, not {}", args.faults);
    }
    let notation = match args.notation {
        GameNotationArg::Digits => GameNotation::Digits,
        GameNotationArg::Colors => GameNotation::Colors,
    };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(args.seed);
    let mut out = create_output(args.output.as_ref())?;
    for _ in 0..args.count {
        let mut moves = random_game(width, height, &mut rng);
        let fault = if rng.gen_bool(args.faults) {
            break_game(&mut moves, width, height, notation, &mut rng)
        } else {
            WriteFault::None
        };
        writeln!(out, "{}", write_game(&moves, width, notation, fault))?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// A buffered writer to FILE, or to standard output.
fn create_output(path: Option<&PathBuf>) -> Result<Box<dyn Write>> {
    Ok(match path {
        Some(path) => Box::new(io::BufWriter::new(
            File::create(path)
                .with_context(|| format!("cannot create output file {}", path.display()))?,
        )),
        None => Box::new(io::BufWriter::new(io::stdout())),
    })
}

fn generate_sudoku(args: SudokuGenerateArgs) -> Result<ExitCode> {
    use rand::SeedableRng;
    use rayon::prelude::*;
    use sudoku::generate::{generate, Difficulty};
    let box_size = sudoku::box_size_of_side(args.size)?;
    let wanted = args.difficulty.map(|d| match d {
        DifficultyArg::Easy => Difficulty::Easy,
        DifficultyArg::Medium => Difficulty::Medium,
        DifficultyArg::Hard => Difficulty::Hard,
    });
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads)
        .build()
        .context("cannot start the worker threads")?;
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

fn count_tilings(args: TilingCountArgs) -> Result<ExitCode> {
    let pieces = if args.pieces == "pentominoes" {
        tiling::pentominoes()
    } else {
        read_pieces(Path::new(&args.pieces))?
    };
    let board = read_board(&args.board, None, None)?;
    print_counts(&board, &pieces, &args.board)
}

fn count_checkerboard(args: CheckerboardCountArgs) -> Result<ExitCode> {
    let pieces = read_pieces(&args.stones)?;
    let top_left = match args.top_left {
        TopLeftArg::Black => tiling::Color::Black,
        TopLeftArg::White => tiling::Color::White,
    };
    let board = read_board(&args.board, Some(&args.stones), Some(top_left))?;
    print_counts(&board, &pieces, &args.board)
}

fn solve_checkerboard(args: CheckerboardSolveArgs) -> Result<ExitCode> {
    use std::ops::ControlFlow;
    let pieces = read_pieces(&args.stones)?;
    let top_left = match args.top_left {
        TopLeftArg::Black => tiling::Color::Black,
        TopLeftArg::White => tiling::Color::White,
    };
    let board = read_board(&args.board, Some(&args.stones), Some(top_left))?;
    let mut problem = match tiling::Tiling::new(&board, &pieces) {
        Ok(problem) => problem,
        Err(impossible) => {
            eprintln!("puzzlebench: {impossible}");
            return Ok(exit_code(1));
        }
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
fn solution_grid(
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
fn solution_json(number: u64, board: &tiling::Board, chosen: &[&tiling::Placement]) -> String {
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

fn read_pieces(path: &Path) -> Result<Vec<tiling::Piece>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    tiling::parse_pieces(&text).with_context(|| format!("{}", path.display()))
}

/// The board from --board, --board-file, or a stones file named like `8x8_1.txt`.
fn read_board(
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

fn print_counts(
    board: &tiling::Board,
    pieces: &[tiling::Piece],
    choice: &BoardChoice,
) -> Result<ExitCode> {
    let built = if choice.break_symmetry {
        tiling::Tiling::with_symmetry_broken(board, pieces)
    } else {
        tiling::Tiling::new(board, pieces)
    };
    let problem = match built {
        Ok(problem) => problem,
        Err(impossible) => {
            // A board the pieces cannot cover is a puzzle without solution, not bad input.
            eprintln!("puzzlebench: {impossible}");
            return Ok(exit_code(1));
        }
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(choice.threads)
        .build()
        .context("cannot start the worker threads")?;
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

fn check_size(size: Option<usize>) -> Result<Option<usize>> {
    if let Some(side) = size {
        sudoku::box_size_of_side(side)?;
    }
    Ok(size)
}

/// Input specs for the named files (standard input when none), each checked to be
/// readable before anything runs, so a typo fails fast with exit code 2.
fn input_specs(files: &[String], forced: Option<InputFormat>) -> Result<Vec<InputSpec>> {
    let names: Vec<&str> = if files.is_empty() {
        vec!["-"]
    } else {
        files.iter().map(String::as_str).collect()
    };
    if names.iter().filter(|&&n| n == "-").count() > 1 {
        bail!("standard input (-) can be named only once");
    }
    names
        .into_iter()
        .map(|name| {
            let spec = InputSpec::new(name, forced);
            if let Some(path) = &spec.path {
                let file = File::open(path).with_context(|| format!("cannot read {name}"))?;
                if file.metadata().is_ok_and(|m| m.is_dir()) {
                    bail!("cannot read {name}: it is a directory");
                }
            }
            Ok(spec)
        })
        .collect()
}

/// Runs a job over its inputs with the common options: rows to the output, progress and
/// summary to standard error, an optional report folder.
fn run_job<J: Job>(
    job: &J,
    command: &str,
    inputs: &[InputSpec],
    args: &RunArgs,
) -> Result<ExitCode> {
    let out: Box<dyn Write + Send> = match &args.output {
        Some(path) => Box::new(
            File::create(path)
                .with_context(|| format!("cannot create output file {}", path.display()))?,
        ),
        None => Box::new(io::stdout()),
    };
    let format = match args.output_format {
        OutputFormatArg::Csv => OutputFormat::Csv,
        OutputFormatArg::Jsonl => OutputFormat::Jsonl,
    };
    let mut sink = report::row_writer(format, out);
    let interactive = args.progress || io::stderr().is_terminal();
    let progress: Box<dyn Progress> = if interactive {
        Box::new(TerminalProgress::new())
    } else {
        Box::new(NoProgress)
    };
    let options = RunOptions {
        threads: args.threads,
        ..RunOptions::default()
    };
    let stats = batch::run(job, inputs, sink.as_mut(), progress.as_ref(), &options)?;
    let names = inputs.iter().map(InputSpec::display_name).collect();
    let summary = Summary::new(command, names, job.settings(), &stats);
    if interactive && !args.quiet {
        eprint!("{}", summary.to_text());
    }
    if let Some(dir) = &args.report {
        let env = EnvInfo::collect(stats.threads, std::env::args().collect());
        report::write_report(dir, &summary, &env)
            .with_context(|| format!("cannot write the report into {}", dir.display()))?;
    }
    Ok(exit_code(stats.failed))
}

fn exit_code(failed: u64) -> ExitCode {
    if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Prints `sudoku show` rows as blocks of text rather than CSV.
struct BlockSink<W: Write> {
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
