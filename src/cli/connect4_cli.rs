//! `puzzlebench connect4 …`: validate and generate game logs.

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result};
use clap::{Args, Subcommand};

use puzzlebench::batch::{self, InputFormat, InputSpec};
use puzzlebench::connect4::generate::GameBatch;
use puzzlebench::connect4::play::{play, GameEnd, GameLogFile, GameRecord};
use puzzlebench::connect4::solve::{BookOptions, BuildProgress};
use puzzlebench::connect4::{PlayOptions, SolveOptions, ValidateOptions};
use puzzlebench::report;

use super::{create_output, output_name, parse_threads, run_job, thread_pool, to_stderr, RunArgs};

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
    Play(PlayOptions),
}

#[derive(Debug, Args)]
pub(super) struct Connect4BookArgs {
    #[command(flatten)]
    options: BookOptions,
    /// Worker threads, at most 1024 (default: one per core).
    #[arg(short = 'j', long, default_value_t = 0, hide_default_value = true, value_parser = parse_threads)]
    threads: usize,
}

#[derive(Debug, Args)]
pub(super) struct Connect4ValidateArgs {
    #[command(flatten)]
    options: ValidateOptions,
    /// Read inputs as this format (default: CSV for `.csv`/`.csv.gz`, else one per line).
    #[arg(long, value_enum)]
    format: Option<InputFormat>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, Args)]
pub(super) struct Connect4GenerateArgs {
    #[command(flatten)]
    batch: GameBatch,
    /// Write the games to FILE instead of standard output.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(super) struct Connect4SolveArgs {
    #[command(flatten)]
    options: SolveOptions,
    #[command(flatten)]
    run: RunArgs,
}

pub(super) fn solve_connect4(args: Connect4SolveArgs) -> Result<ExitCode> {
    if let (Some(book), Some(output)) = (&args.options.book, &args.run.output) {
        if batch::same_file(book, output) {
            anyhow::bail!(
                "the output {} is the book {}: writing it would destroy the book; name another output file",
                output.display(),
                book.display()
            );
        }
    }
    let job = args.options.job()?;
    let inputs = InputSpec::for_names(&args.run.files, None)?;
    run_job(&job, "connect4 solve", &inputs, &args.run)
}

pub(super) fn book_connect4(args: Connect4BookArgs) -> Result<ExitCode> {
    let builder = args.options.builder();
    builder.check()?;
    let pool = thread_pool(args.threads)?;
    let started = std::time::Instant::now();
    let terminal = io::stderr().is_terminal();
    let progress = BuildProgress::new(builder.spec.depth, terminal, Box::new(io::stderr()));
    let stats = pool.install(|| builder.build(&|event| progress.event(event)));
    progress.finish();
    let stats = stats?;
    let bytes = std::fs::metadata(&builder.output).map_or(0, |m| m.len());
    let seconds = started.elapsed().as_secs_f64();
    let summary = stats.describe(&builder.spec, bytes, seconds);
    to_stderr(&format!("{summary}\n"))?;
    Ok(ExitCode::SUCCESS)
}

pub(super) fn play_connect4(options: PlayOptions) -> Result<ExitCode> {
    if let (Some(log), Some(book)) = (&options.log, &options.book) {
        if batch::same_file(log, book) {
            anyhow::bail!(
                "--log {} is the book {}: the game would be written into the book; name another log file",
                log.display(),
                book.display()
            );
        }
    }
    let (mut game, book) = options.game()?;
    let log = options.log.as_deref().map(GameLogFile::open).transpose()?;
    let log = Arc::new(Mutex::new(log));
    if log.lock().is_ok_and(|log| log.is_some()) {
        let moves_so_far = Arc::new(Mutex::new(Vec::new()));
        game.moves_so_far = Some(Arc::clone(&moves_so_far));
        log_when_interrupted(Arc::clone(&log), moves_so_far, game.width)?;
    }
    let (mut input, mut out) = (io::stdin().lock(), report::standard_output()?.lock());
    let record = play(&game, book, &mut input, &mut out)?;
    out.flush()?;
    // Appended under the lock and taken out of it: a signal from now on waits for the
    // line, then finds the game logged.
    if let Ok(mut log) = log.lock() {
        if let Some(mut log) = log.take() {
            log.append(&record, game.width).map_err(|error| {
                let moves = record.digits(game.width);
                anyhow::anyhow!("{error}; the game's moves, to keep by hand: {moves}")
            })?;
        }
    }
    // A scripted game whose moves ran out is not a finished game.
    Ok(match record.end {
        GameEnd::InputEnded => ExitCode::from(1),
        _ => ExitCode::SUCCESS,
    })
}

/// On SIGINT or SIGTERM during a game, appends the moves played so far to `log` (as `q`
/// does) from a thread of its own, then exits with 130 or 143. The game's own thread may be
/// deep in a perfect player's search or waiting for a line: neither is interrupted.
fn log_when_interrupted(
    log: Arc<Mutex<Option<GameLogFile>>>,
    moves_so_far: Arc<Mutex<Vec<usize>>>,
    width: usize,
) -> io::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            let moves = moves_so_far.lock().map(|m| m.clone()).unwrap_or_default();
            let record = GameRecord {
                moves,
                end: GameEnd::Quit,
            };
            let mut logged = log.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            if let Some(mut log) = logged.take() {
                let count = record.moves.len();
                let plural = if count == 1 { "" } else { "s" };
                let message = match log.append(&record, width) {
                    Ok(()) if count == 0 => {
                        "\nInterrupted with no move on the board: nothing logged.\n".to_string()
                    }
                    Ok(()) => format!(
                        "\nInterrupted: the game so far ({count} move{plural}) is in the log.\n"
                    ),
                    Err(error) => format!(
                        "\nInterrupted: {error}; the game's moves, to keep by hand: {}\n",
                        record.digits(width)
                    ),
                };
                let _ = io::stderr().write_all(message.as_bytes());
            }
            std::process::exit(128 + signal);
        }
    });
    Ok(())
}

pub(super) fn validate_connect4(args: Connect4ValidateArgs) -> Result<ExitCode> {
    let job = args.options.job()?;
    let inputs = InputSpec::for_names(&args.run.files, args.format)?;
    run_job(&job, "connect4 validate", &inputs, &args.run)
}

pub(super) fn generate_connect4(args: Connect4GenerateArgs) -> Result<ExitCode> {
    args.batch.check()?;
    let mut out = create_output(args.output.as_ref(), &[])?;
    let destination = output_name(args.output.as_ref());
    let cannot_write = || format!("cannot write the games to {destination}");
    args.batch.write(&mut out).with_context(cannot_write)?;
    out.flush().with_context(cannot_write)?;
    Ok(ExitCode::SUCCESS)
}
