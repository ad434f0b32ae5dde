//! `connect4 solve` on the batch runner: one record is one position, as moves from the
//! empty board, optionally with the expected score or result.
//!
//! A line is `<moves> [<score>]` (Pascal Pons's test sets), `<moves> [<board>] <label>`
//! (the 8-ply database: the board's cells column by column from the bottom, `x` for the
//! first player, `o` for the second, `b` for blank, and `win|loss|draw` for the first
//! player), or just `<moves>`. `-` stands for the empty board.

use std::sync::Arc;

use serde::Deserialize;

use crate::batch::{InputSpec, Job, JobError, Outcome, Record, RecordContent, Value, ERROR_STATUS};
use crate::budget::Meter;
use crate::puzzle::{Answer, Puzzle, PuzzleError};

use super::job::{board_settings_fit, BoardSettings};
use super::notation::{GameLog, Notation};
use super::solve::{Bits, Book, Position, Solver};
use super::IdleThreads;

/// The transposition table per worker by default, MiB.
pub const DEFAULT_TABLE_MB: usize = 64;

/// Connect Four positions solved with perfect play, as a puzzle of the shared harness:
/// `connect4 solve` without a book; `exact` gives scores, `weak` win, draw or loss.
#[derive(Debug, Clone, Copy)]
pub struct SolvePuzzle;

/// The settings of a position-solving run besides the algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SolveSettings {
    /// The board.
    #[serde(flatten)]
    pub board: BoardSettings,
    /// Transposition table per worker, MiB.
    pub table_mb: usize,
}

impl Default for SolveSettings {
    fn default() -> Self {
        SolveSettings {
            board: BoardSettings::default(),
            table_mb: DEFAULT_TABLE_MB,
        }
    }
}

impl Puzzle for SolvePuzzle {
    type Settings = SolveSettings;
    type Job = SolveJob;

    const NAME: &'static str = "connect4-solve";
    /// Pascal Pons's test sets, the positions most solvers are timed on.
    const FOLDER: &'static str = "pons";
    const ALGORITHMS: &'static [&'static str] = &["exact", "weak"];
    /// The win/draw/loss result, which the weak search gives too.
    const ANSWER_COLUMNS: &'static [&'static str] = &["result"];
    const EFFORT_COLUMN: Option<&'static str> = Some("nodes");

    fn job(
        settings: &SolveSettings,
        algorithm: &str,
        _inputs: &[InputSpec],
    ) -> Result<SolveJob, PuzzleError> {
        let weak = match algorithm {
            "exact" => false,
            "weak" => true,
            _ => return Err(PuzzleError::unknown_algorithm::<Self>(algorithm)),
        };
        let fits_u64 = board_settings_fit::<Self>(&settings.board)?;
        Ok(SolveJob {
            width: settings.board.width,
            height: settings.board.height,
            fits_u64,
            weak,
            table_mb: settings.table_mb,
            score_only: true,
            book: None,
            idle: IdleThreads::default(),
        })
    }

    fn notes(settings: &SolveSettings) -> Vec<String> {
        let mut notes = settings.board.notes();
        if settings.table_mb != DEFAULT_TABLE_MB {
            notes.push(format!("{} MB table", settings.table_mb));
        }
        notes
    }

    fn answer(_settings: &SolveSettings, status: &str, values: &[String]) -> Answer {
        Answer {
            status: status.to_string(),
            value: Some(values.join(" ")),
        }
    }
}

/// The status of a solved position.
pub const SOLVED_STATUS: &str = "ok";

/// A book for either mask width.
#[derive(Debug, Clone)]
pub enum AnyBook {
    /// For boards that fit a `u64`.
    Narrow(Arc<Book<u64>>),
    /// For larger boards.
    Wide(Arc<Book<u128>>),
}

/// Why an opening book file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum BookFileError {
    /// The board is not supported.
    #[error(transparent)]
    Board(#[from] super::BoardSizeError),
    /// The file cannot be opened.
    #[error("cannot read {}", path.display())]
    Open {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a book for the board.
    #[error("book {}", path.display())]
    Book {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong.
        source: super::solve::BookError,
    },
    /// An exact search was asked for with a book of win, draw or loss only.
    #[error("the book holds only win, draw or loss (built with --weak): solve with --weak")]
    WeakOnly,
}

impl AnyBook {
    /// Reads the book file at `path` for a `width × height` board.
    pub fn read(
        path: &std::path::Path,
        width: usize,
        height: usize,
    ) -> Result<Self, BookFileError> {
        let file = std::fs::File::open(path).map_err(|source| BookFileError::Open {
            path: path.to_path_buf(),
            source,
        })?;
        let mut reader = std::io::BufReader::new(file);
        let bad = |source| BookFileError::Book {
            path: path.to_path_buf(),
            source,
        };
        Ok(if super::board_fits(width, height)? {
            AnyBook::Narrow(Arc::new(
                Book::read(&mut reader, width, height).map_err(bad)?,
            ))
        } else {
            AnyBook::Wide(Arc::new(
                Book::read(&mut reader, width, height).map_err(bad)?,
            ))
        })
    }

    /// Whether the book holds only win, draw or loss.
    pub fn is_weak(&self) -> bool {
        match self {
            AnyBook::Narrow(book) => book.is_weak(),
            AnyBook::Wide(book) => book.is_weak(),
        }
    }
}

/// Solves every position of a file.
#[derive(Debug, Clone)]
pub struct SolveJob {
    /// Board columns.
    pub width: usize,
    /// Board rows.
    pub height: usize,
    /// Whether the board fits a `u64` (else `u128`).
    pub fits_u64: bool,
    /// Only win, draw or loss.
    pub weak: bool,
    /// Transposition table size per worker, MiB.
    pub table_mb: usize,
    /// Skip the best moves (the score alone, as solvers are usually timed).
    pub score_only: bool,
    /// An opening book for the same board.
    pub book: Option<AnyBook>,
    /// The run's busy workers: a deep position borrows the idle ones to search it.
    pub idle: IdleThreads,
}

/// Positions with at least this many empty cells borrow idle workers: shallower ones are
/// solved in less time than starting a helper thread takes.
const HELPED_MIN_EMPTY: usize = 26;

/// The largest transposition table per thread, MiB.
pub const MAX_TABLE_MB: usize = 65_536;

/// A `--table-mb` value out of range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected a whole number of MiB from 1 to {MAX_TABLE_MB}")]
pub struct TableSizeError;

/// A `--table-mb` value: 1 to [`MAX_TABLE_MB`] MiB.
pub fn parse_table_mb(text: &str) -> Result<usize, TableSizeError> {
    match text.parse::<usize>() {
        Ok(mb) if (1..=MAX_TABLE_MB).contains(&mb) => Ok(mb),
        _ => Err(TableSizeError),
    }
}

/// The settings of `connect4 solve`, as the command line takes them.
#[derive(Debug, Clone, clap::Args)]
pub struct SolveOptions {
    /// The board.
    #[command(flatten)]
    pub board: BoardSettings,
    /// Only win, draw or loss; `score` is left empty. With --score-only a narrower search,
    /// faster; otherwise `best_moves` lists every move that keeps the result, each proved,
    /// which in a won position can cost far more than a full solve (that needs only the
    /// fastest wins).
    #[arg(long)]
    pub weak: bool,
    /// Transposition table per worker thread, in MiB at most (each search starts at 1 MiB
    /// and doubles it as it grows).
    #[arg(long, default_value_t = DEFAULT_TABLE_MB, value_name = "MB", value_parser = parse_table_mb)]
    pub table_mb: usize,
    /// Opening book made by `connect4 book` for the same board.
    #[arg(long, value_name = "FILE")]
    pub book: Option<std::path::PathBuf>,
    /// Leave `best_moves` empty: the score alone, as solvers are usually timed.
    #[arg(long)]
    pub score_only: bool,
}

impl SolveOptions {
    /// The job these settings describe, with its book read: an error if the board is not
    /// supported or the book cannot serve the search.
    pub fn job(&self) -> Result<SolveJob, BookFileError> {
        let BoardSettings { width, height } = self.board;
        let fits_u64 = super::board_fits(width, height)?;
        let book = match &self.book {
            Some(path) => Some(AnyBook::read(path, width, height)?),
            None => None,
        };
        if book
            .as_ref()
            .is_some_and(|book| book.is_weak() && !self.weak)
        {
            return Err(BookFileError::WeakOnly);
        }
        Ok(SolveJob {
            width,
            height,
            fits_u64,
            weak: self.weak,
            table_mb: self.table_mb,
            score_only: self.score_only,
            book,
            idle: IdleThreads::default(),
        })
    }
}

/// A worker's solver, for the board's mask width.
#[derive(Debug)]
pub enum SolveWorker {
    /// For boards that fit a `u64`.
    Narrow(Box<Solver<u64>>),
    /// For larger boards.
    Wide(Box<Solver<u128>>),
}

/// What a record expects: an exact score, or a result for the first player.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expected {
    Score(i32),
    FirstPlayer(i32),
}

/// A parsed record: the moves and what it expects.
struct Request {
    columns: Vec<usize>,
    board: Option<String>,
    expected: Option<Expected>,
}

/// Where a token of a record starts, for messages.
#[derive(Debug, Clone, Copy)]
enum Place {
    /// 1-based character column of a line.
    Column(usize),
    /// 1-based field of a CSV row.
    Field(usize),
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::Column(column) => write!(f, "column {column}"),
            Place::Field(field) => write!(f, "field {field}"),
        }
    }
}

/// Reads a record's tokens (`places[i]` is where token `i` starts).
fn parse_request(tokens: &[&str], places: &[Place]) -> Result<Request, String> {
    let (&moves, rest) = tokens.split_first().ok_or("the line has no moves")?;
    let columns = if moves == "-" {
        Vec::new()
    } else {
        GameLog::parse(moves, Notation::Digits)
            .map_err(|e| format!("moves: {e}"))?
            .columns
    };
    let label = |text: &str| match text.to_ascii_lowercase().as_str() {
        "win" => Some(1),
        "draw" => Some(0),
        "loss" => Some(-1),
        _ => None,
    };
    // An empty CSV cell expects nothing (a corpus may know only some scores or boards).
    let board_of = |board: &str| (!board.is_empty()).then(|| board.to_string());
    let (board, expected) = match rest {
        [] => (None, None),
        [""] => (None, None),
        [board, ""] => (board_of(board), None),
        [one] => match (one.parse::<i32>(), label(one)) {
            (Ok(score), _) => (None, Some(Expected::Score(score))),
            (_, Some(result)) => (None, Some(Expected::FirstPlayer(result))),
            _ => {
                return Err(format!(
                    "{} at {} is neither a score nor win, loss or draw",
                    crate::batch::Excerpt::quoted(one),
                    places[1]
                ))
            }
        },
        [board, one] => match label(one) {
            Some(result) => (board_of(board), Some(Expected::FirstPlayer(result))),
            None => {
                let one = crate::batch::Excerpt::quoted(one);
                return Err(format!("{one} at {} is not win, loss or draw", places[2]));
            }
        },
        _ => {
            let expected = "expected <moves> [<score>] or <moves> [<board>] <label>";
            let count = tokens.len();
            return Err(format!(
                "{count} fields (the fourth at {}); {expected}",
                places[3]
            ));
        }
    };
    Ok(Request {
        columns,
        board,
        expected,
    })
}

/// Checks a board written cell by cell (column by column, bottom up, `x`/`o`/`b`) against
/// the moves.
fn check_board(columns: &[usize], width: usize, height: usize, board: &str) -> Result<(), String> {
    let cells: Vec<char> = board.chars().collect();
    if cells.len() != width * height {
        return Err(format!(
            "the board has {}, not {}",
            crate::batch::counted(cells.len(), "cell"),
            width * height
        ));
    }
    let mut expected = vec!['b'; width * height];
    let mut heights = vec![0; width];
    for (ply, &column) in columns.iter().enumerate() {
        let col = column - 1;
        expected[col * height + heights[col]] = if ply % 2 == 0 { 'x' } else { 'o' };
        heights[col] += 1;
    }
    match (0..cells.len()).find(|&i| cells[i].to_ascii_lowercase() != expected[i]) {
        None => Ok(()),
        Some(i) => Err(format!(
            "the board's cell {} (column {}, row {}) is {:?} but the moves make it {:?}",
            i + 1,
            i / height + 1,
            i % height + 1,
            cells[i],
            expected[i]
        )),
    }
}

/// A result's name for the side to move.
fn result_name(sign: i32) -> &'static str {
    match sign {
        1 => "win",
        0 => "draw",
        _ => "loss",
    }
}

impl SolveJob {
    fn solve<M: Bits>(
        &self,
        solver: &mut Solver<M>,
        request: &Request,
        meter: &mut Meter,
    ) -> Result<Outcome, String> {
        let position: Position<M> = solver
            .position(&request.columns)
            .map_err(|e| e.to_string())?;
        if let Some(board) = &request.board {
            check_board(&request.columns, self.width, self.height, board)?;
        }
        let over_budget = |over, nodes| {
            let mut values = vec![Value::Empty; 5];
            values[3] = Value::Int(nodes);
            Ok(Outcome::over_budget(over, values))
        };
        let mut turn = self.idle.begin();
        // Under a budget, helpers would make which records finish depend on the threads.
        let deep = self.width * self.height - request.columns.len() >= HELPED_MIN_EMPTY;
        // Helpers search `u64` boards only (see `Solver::search_within`).
        let helpers = if deep && M::BITS == 64 && !meter.is_limited() {
            turn.borrow_idle(rayon::current_num_threads())
        } else {
            0
        };
        let best_moves = !self.score_only;
        let analysis = solver.search_within(&position, self.weak, meter, helpers, best_moves);
        drop(turn);
        if let Some(over) = analysis.stopped {
            return over_budget(over, analysis.nodes);
        }
        let (score, nodes) = (analysis.score, analysis.nodes);
        let best = best_moves.then_some(analysis.best_moves);
        let mut values = vec![
            Value::Text(result_name(score.signum()).into()),
            if self.weak {
                Value::Empty
            } else {
                Value::Signed(i64::from(score))
            },
            match best {
                Some(best) => Value::Text(
                    best.iter()
                        .map(|c| (c + 1).to_string())
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
                None => Value::Empty,
            },
            Value::Int(nodes),
        ];
        let mover_sign = if request.columns.len().is_multiple_of(2) {
            1
        } else {
            -1
        };
        let mismatch = match request.expected {
            None => None,
            Some(Expected::Score(expected)) if !self.weak => {
                (expected != score).then(|| format!("expected score {expected}, got {score}"))
            }
            Some(Expected::Score(expected)) => (expected.signum() != score.signum()).then(|| {
                format!(
                    "expected a {} (score {expected}), got a {}",
                    result_name(expected.signum()),
                    result_name(score.signum())
                )
            }),
            Some(Expected::FirstPlayer(result)) => {
                let expected = result * mover_sign;
                (expected != score.signum()).then(|| {
                    format!(
                        "expected a {} for the side to move, got a {}",
                        result_name(expected),
                        result_name(score.signum())
                    )
                })
            }
        };
        values.push(match (&request.expected, &mismatch) {
            (None, _) => Value::Empty,
            (Some(_), None) => Value::Text("match".into()),
            (Some(_), Some(_)) => Value::Text("mismatch".into()),
        });
        Ok(Outcome {
            status: SOLVED_STATUS,
            failed: mismatch.is_some(),
            error: mismatch.unwrap_or_default(),
            values,
        })
    }
}

/// Where a CSV input keeps a request: its columns named `moves` (or `position`), `board`,
/// and `score` (or `expected`, `label`, `result`), in that order; the other columns are
/// carried. When the header names no moves column every field is read, in order, and none
/// is carried.
#[derive(Debug, Clone, Default)]
pub struct SolveLayout {
    /// The request's columns.
    read: Vec<usize>,
    /// Whether they were found by name (else they are all the columns).
    named: bool,
}

impl SolveLayout {
    fn from_header(header: &[String]) -> SolveLayout {
        let find = |names: &[&str]| {
            header
                .iter()
                .position(|h| names.iter().any(|name| h.trim().eq_ignore_ascii_case(name)))
        };
        let Some(moves) = find(&["moves", "position"]) else {
            return SolveLayout {
                read: (0..header.len()).collect(),
                named: false,
            };
        };
        let board = find(&["board"]);
        let expected = find(&["score", "expected", "label", "result"]);
        SolveLayout {
            read: [Some(moves), board, expected]
                .into_iter()
                .flatten()
                .collect(),
            named: true,
        }
    }
}

impl Job for SolveJob {
    type Layout = SolveLayout;
    type Worker = SolveWorker;

    fn columns(&self, _layout: &SolveLayout) -> Vec<String> {
        ["result", "score", "best_moves", "nodes", "expected"]
            .map(String::from)
            .to_vec()
    }

    fn statuses(&self) -> Vec<&'static str> {
        vec![SOLVED_STATUS]
    }

    fn tallied_columns(&self) -> Vec<&'static str> {
        vec!["result", "expected"]
    }

    fn settings(&self) -> Vec<(String, String)> {
        let mut settings = vec![
            ("board".into(), format!("{}x{}", self.width, self.height)),
            ("weak".into(), self.weak.to_string()),
            ("table_mb".into(), self.table_mb.to_string()),
            ("book".into(), self.book.is_some().to_string()),
        ];
        // Listed only when set, as the runs before it was listed did not have it.
        if self.score_only {
            settings.push(("score_only".into(), "true".into()));
        }
        settings
    }

    fn layout(
        &self,
        _input: &InputSpec,
        header: Option<&[String]>,
    ) -> Result<SolveLayout, JobError> {
        let Some(header) = header else {
            return Ok(SolveLayout::default());
        };
        let layout = SolveLayout::from_header(header);
        // Without a moves column every field is read: a header that reads as a request is
        // a first record.
        if !layout.named {
            let tokens: Vec<&str> = header.iter().map(|h| h.trim()).collect();
            let places: Vec<Place> = (1..=tokens.len()).map(Place::Field).collect();
            if parse_request(&tokens, &places).is_ok() {
                return Err(JobError::HeaderIsARecord {
                    column: 1,
                    value: header[0].clone(),
                    example: "moves,score (or position; board; expected, label or result)",
                });
            }
        }
        Ok(layout)
    }

    fn read_columns(&self, layout: &SolveLayout) -> Vec<usize> {
        layout.read.clone()
    }

    fn new_worker(&self) -> SolveWorker {
        let (w, h, mb) = (self.width, self.height, self.table_mb);
        if self.fits_u64 {
            let mut solver = Solver::<u64>::new(w, h, mb);
            if let Some(AnyBook::Narrow(book)) = &self.book {
                solver.set_book(Arc::clone(book));
            }
            SolveWorker::Narrow(Box::new(solver))
        } else {
            let mut solver = Solver::<u128>::new(w, h, mb);
            if let Some(AnyBook::Wide(book)) = &self.book {
                solver.set_book(Arc::clone(book));
            }
            SolveWorker::Wide(Box::new(solver))
        }
    }

    fn process(
        &self,
        worker: &mut SolveWorker,
        layout: &SolveLayout,
        record: &Record<'_>,
        meter: &mut Meter,
    ) -> Result<Outcome, JobError> {
        let (tokens, places): (Vec<&str>, Vec<Place>) = match record.content {
            RecordContent::Line(text) => text
                .split_whitespace()
                .map(|token| {
                    // Tokens are slices of the line: their distance from its start.
                    let offset = token.as_ptr() as usize - text.as_ptr() as usize;
                    (token, Place::Column(text[..offset].chars().count() + 1))
                })
                .unzip(),
            RecordContent::Fields(fields) => match layout.named {
                true => (layout.read.iter())
                    .filter_map(|&i| Some((fields.get(i)?.trim(), Place::Field(i + 1))))
                    .unzip(),
                false => fields
                    .iter()
                    .enumerate()
                    .map(|(i, field)| (field.trim(), Place::Field(i + 1)))
                    .unzip(),
            },
            RecordContent::Unreadable(message) => {
                return Err(JobError::Unreadable(message.to_string()))
            }
        };
        let result = parse_request(&tokens, &places).and_then(|request| match worker {
            SolveWorker::Narrow(solver) => self.solve(solver, &request, meter),
            SolveWorker::Wide(solver) => self.solve(solver, &request, meter),
        });
        result.or_else(|error| {
            Ok(Outcome {
                status: ERROR_STATUS,
                failed: true,
                error,
                values: vec![Value::Empty; 5],
            })
        })
    }
}
