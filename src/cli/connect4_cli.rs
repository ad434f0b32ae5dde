//! `puzzlebench connect4 …`: validate and generate game logs.

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand, ValueEnum};

use puzzlebench::connect4::generate::{GameBatch, GameNotation};
use puzzlebench::connect4::play::{
    play, terminal_wants_colour, GameEnd, GameLogFile, GameOptions, PlayError,
};
use puzzlebench::connect4::solve::{BookBuilder, BookSpec, BuildEvent};
use puzzlebench::connect4::{
    self, AfterEnd, AnyBook, GameLog, Notation, DEFAULT_HEIGHT, DEFAULT_TABLE_MB, DEFAULT_WIDTH,
};
use puzzlebench::report;

use super::{
    create_output, input_specs, parse_threads, progress_bar, run_job, say, thread_pool, to_stderr,
    FormatArg, RunArgs,
};

#[derive(Debug, Subcommand)]
pub(super) enum Connect4Command {
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
    /// Solve positions exactly: the score for the side to move with perfect play and every
    /// column that achieves it.
    ///
    /// Each line is a move sequence from the empty board (`-` for the empty board),
    /// optionally followed by the expected score (`<moves> <score>`, as in Pascal Pons's
    /// test sets) or by a board and a win/loss/draw label for the first player (the 8-ply
    /// database). Score: 0 for a draw; for a win, 22 minus the stones the winner has played
    /// when it completes its four on 7×6 ((cells + 1) / 2 + 1 minus them in general); a
    /// loss is minus the opponent's. Statuses: ok, error (an illegal move, a full column, a
    /// game already over: says at which ply). Exit code 1 if any error or mismatch.
    Solve(Connect4SolveArgs),
    /// Build an opening book: the exact score (with --weak: win, draw or loss) of every
    /// position up to --depth stones, solved in parallel, for `solve --book` and `play
    /// --book`.
    ///
    /// The positions solved so far are kept in FILE.partial as the build goes: if it is
    /// interrupted, the same command resumes from there. The checkpoint is removed once
    /// the book is written.
    Book(Connect4BookArgs),
    /// Play a game in the terminal: human or computer players, undo, the winning line
    /// shown. Moves are read line by line, so standard input can be a script.
    Play(Connect4PlayArgs),
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(super) enum ColourArg {
    /// Colour when standard output is a terminal.
    Auto,
    /// Always ANSI colours.
    Always,
    /// Plain characters: X for Red, O for Yellow, brackets around the winning line.
    Never,
}

#[derive(Debug, Args)]
pub(super) struct Connect4PlayArgs {
    #[command(flatten)]
    board: BoardArgs,
    /// Who plays Red (moves first): human, random, heuristic, heuristic:DEPTH or perfect.
    #[arg(long, default_value = "human")]
    red: connect4::play::PlayerKind,
    /// Who plays Yellow: human, random, heuristic, heuristic:DEPTH or perfect.
    #[arg(long, default_value = "heuristic:4")]
    yellow: connect4::play::PlayerKind,
    /// Seed of the computer players' choices (random moves, ties between equal moves).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Append the game to FILE as one line of column digits (`connect4 validate` reads it).
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// Discs in colour.
    #[arg(long, value_enum, default_value_t = ColourArg::Auto)]
    colour: ColourArg,
    /// Transposition table of a perfect player, in MiB at most (searches start at 1 MiB and
    /// double it as they grow).
    #[arg(long, default_value_t = DEFAULT_TABLE_MB, value_name = "MB", value_parser = parse_table_mb)]
    table_mb: usize,
    /// Start from the position after these moves (column digits), e.g. `4453`.
    #[arg(long, value_name = "MOVES")]
    start: Option<String>,
    /// Opening book (made by `connect4 book`, exact or weak) for the perfect players:
    /// instant moves inside it.
    #[arg(long, value_name = "FILE")]
    book: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(super) struct Connect4BookArgs {
    #[command(flatten)]
    board: BoardArgs,
    /// Positions with up to this many stones.
    #[arg(long)]
    depth: u32,
    /// Only win, draw or loss per position: a faster build, for `solve --weak` and `play`.
    #[arg(long)]
    weak: bool,
    /// The book file to write.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: PathBuf,
    /// Worker threads, at most 1024 (default: one per core).
    #[arg(short = 'j', long, default_value_t = 0, hide_default_value = true, value_parser = parse_threads)]
    threads: usize,
    /// Transposition table per worker thread, in MiB at most (each search starts at 1 MiB
    /// and doubles it as it grows).
    #[arg(long, default_value_t = DEFAULT_TABLE_MB, value_name = "MB", value_parser = parse_table_mb)]
    table_mb: usize,
}

/// The board's size.
#[derive(Debug, Args)]
pub(super) struct BoardArgs {
    /// Columns (4 to 16; width × (height + 1) at most 128).
    #[arg(long, default_value_t = DEFAULT_WIDTH)]
    width: usize,
    /// Rows (4 to 16).
    #[arg(long, default_value_t = DEFAULT_HEIGHT)]
    height: usize,
}

#[derive(Debug, Args)]
pub(super) struct Connect4ValidateArgs {
    #[command(flatten)]
    board: BoardArgs,
    /// How moves are written.
    #[arg(long, value_enum, default_value_t = Notation::Auto)]
    notation: Notation,
    /// What moves after the end of the game mean.
    #[arg(long, value_enum, default_value_t = AfterEnd::Error)]
    after_end: AfterEnd,
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

#[derive(Debug, Args)]
pub(super) struct Connect4GenerateArgs {
    /// Number of games.
    #[arg(long, default_value_t = 1000)]
    count: usize,
    /// Random seed: the same seed gives the same games.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    #[command(flatten)]
    board: BoardArgs,
    /// How to write the games.
    #[arg(long, value_enum, default_value_t = GameNotation::Digits)]
    notation: GameNotation,
    /// Share of games broken on purpose: a move into a full column, the same colour twice,
    /// a move after the end, an unreadable token, or a game cut short.
    #[arg(long, default_value_t = 0.0)]
    faults: f64,
    /// Write the games to FILE instead of standard output.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(super) struct Connect4SolveArgs {
    #[command(flatten)]
    board: BoardArgs,
    /// Only win, draw or loss (a narrower search, faster); `score` is left empty.
    #[arg(long)]
    weak: bool,
    /// Transposition table per worker thread, in MiB at most (each search starts at 1 MiB
    /// and doubles it as it grows).
    #[arg(long, default_value_t = DEFAULT_TABLE_MB, value_name = "MB", value_parser = parse_table_mb)]
    table_mb: usize,
    /// Opening book made by `connect4 book` for the same board.
    #[arg(long, value_name = "FILE")]
    book: Option<PathBuf>,
    /// Leave `best_moves` empty: the score alone, as solvers are usually timed.
    #[arg(long)]
    score_only: bool,
    #[command(flatten)]
    run: RunArgs,
}

/// The largest transposition table per thread, MiB.
const MAX_TABLE_MB: usize = 65_536;

/// A `--table-mb` value: 1 to [`MAX_TABLE_MB`].
fn parse_table_mb(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(mb) if (1..=MAX_TABLE_MB).contains(&mb) => Ok(mb),
        _ => Err(format!(
            "expected a whole number of MiB from 1 to {MAX_TABLE_MB}"
        )),
    }
}

pub(super) fn solve_connect4(args: Connect4SolveArgs) -> Result<ExitCode> {
    let (width, height) = (args.board.width, args.board.height);
    let fits_u64 = connect4::board_fits(width, height)?;
    let book = match &args.book {
        Some(path) => Some(AnyBook::read(path, width, height)?),
        None => None,
    };
    if book
        .as_ref()
        .is_some_and(|book| book.is_weak() && !args.weak)
    {
        bail!("the book holds only win, draw or loss (built with --weak): solve with --weak");
    }
    let inputs = input_specs(&args.run.files, None)?;
    let job = connect4::SolveJob {
        width,
        height,
        fits_u64,
        weak: args.weak,
        table_mb: args.table_mb,
        score_only: args.score_only,
        book,
    };
    run_job(&job, "connect4 solve", &inputs, &args.run)
}

pub(super) fn book_connect4(args: Connect4BookArgs) -> Result<ExitCode> {
    let builder = BookBuilder {
        spec: BookSpec {
            width: args.board.width,
            height: args.board.height,
            depth: args.depth,
            weak: args.weak,
        },
        output: args.output,
        table_mb: args.table_mb,
    };
    builder.check()?;
    let pool = thread_pool(args.threads)?;
    let started = std::time::Instant::now();
    let template = format!(
        "[{{elapsed_precise}}] {{wide_bar}} {{pos}}/{{len}} positions of depth {} solved, ETA {{eta}}",
        args.depth
    );
    let bar = progress_bar(&template, false);
    let on_event = |event: BuildEvent<'_>| match (event, &bar) {
        (BuildEvent::Resuming { checkpoint, known }, _) => say(&format!(
            "resuming from {}: {known} positions already solved\n",
            checkpoint.display()
        )),
        (BuildEvent::Solved { to_solve }, Some(bar)) => {
            bar.set_length(to_solve as u64);
            bar.inc(1);
        }
        (BuildEvent::Solved { .. }, None) => {}
        (BuildEvent::Warning(warning), Some(bar)) if !bar.is_finished() => bar.println(warning),
        (BuildEvent::Warning(warning), _) => say(&format!("{warning}\n")),
    };
    let stats = pool.install(|| builder.build(&on_event));
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let stats = stats?;
    let bytes = std::fs::metadata(&builder.output).map_or(0, |m| m.len());
    let seconds = started.elapsed().as_secs_f64();
    to_stderr(&format!(
        "{}\n",
        stats.describe(&builder.spec, bytes, seconds)
    ))?;
    Ok(ExitCode::SUCCESS)
}

pub(super) fn play_connect4(args: Connect4PlayArgs) -> Result<ExitCode> {
    let (width, height) = (args.board.width, args.board.height);
    connect4::board_fits(width, height)?;
    let colour = match args.colour {
        ColourArg::Auto => io::stdout().is_terminal() && terminal_wants_colour(),
        ColourArg::Always => true,
        ColourArg::Never => false,
    };
    let opening = match &args.start {
        Some(moves) => {
            GameLog::parse(moves, Notation::Digits)
                .context("--start")?
                .columns
        }
        None => Vec::new(),
    };
    let options = GameOptions {
        width,
        height,
        players: [args.red, args.yellow],
        seed: args.seed,
        colour,
        announce_thinking: io::stdout().is_terminal(),
        table_mb: args.table_mb,
        opening,
    };
    let book = match &args.book {
        Some(path) => Some(AnyBook::read(path, width, height)?),
        None => None,
    };
    let mut log = args.log.as_deref().map(GameLogFile::open).transpose()?;
    let (mut input, mut out) = (io::stdin().lock(), report::standard_output()?.lock());
    let record = play(&options, book, &mut input, &mut out).map_err(|error| match error {
        PlayError::Opening(why) => anyhow::anyhow!("--start: {why}"),
        other => other.into(),
    })?;
    out.flush()?;
    if let Some(log) = &mut log {
        log.append(&record, width)?;
    }
    // A scripted game whose moves ran out is not a finished game.
    Ok(match record.end {
        GameEnd::InputEnded => ExitCode::from(1),
        _ => ExitCode::SUCCESS,
    })
}

pub(super) fn validate_connect4(args: Connect4ValidateArgs) -> Result<ExitCode> {
    let fits_u64 = connect4::board_fits(args.board.width, args.board.height)?;
    let inputs = input_specs(&args.run.files, args.format.map(FormatArg::input_format))?;
    let job = connect4::ValidateJob {
        width: args.board.width,
        height: args.board.height,
        fits_u64,
        notation: args.notation,
        after_end: args.after_end,
        column: args.column,
    };
    run_job(&job, "connect4 validate", &inputs, &args.run)
}

pub(super) fn generate_connect4(args: Connect4GenerateArgs) -> Result<ExitCode> {
    let batch = GameBatch {
        count: args.count,
        seed: args.seed,
        width: args.board.width,
        height: args.board.height,
        notation: args.notation,
        faults: args.faults,
    };
    batch.check()?;
    let mut out = create_output(args.output.as_ref())?;
    batch.write(&mut out)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
