//! `connect4 validate` on the batch runner: one record is one game log.

use serde::Deserialize;

use crate::batch::{
    push_csv_field, push_number, push_short, CsvRow, InputSpec, Job, JobError, Outcome, Record,
    RecordContent, Recycled, Value, Written, ERROR_STATUS,
};
use crate::budget::Meter;
use crate::puzzle::{read_keys, Puzzle, PuzzleError};

use super::board::{board_fits, BoardSizeError};
use super::notation::{GameLog, Notation, NotationError};
use super::replay::{push_cell_name, replay, AfterEnd, Status, Verdict};

/// Board columns by default (the classic 7×6 board).
pub const DEFAULT_WIDTH: usize = 7;
/// Board rows by default.
pub const DEFAULT_HEIGHT: usize = 6;

/// A board size as a run's setting, on the command line and in `bench` suites.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, clap::Args)]
#[serde(default)]
pub struct BoardSettings {
    /// Columns (4 to 16; width × (height + 1) at most 128).
    #[arg(long, default_value_t = DEFAULT_WIDTH)]
    pub width: usize,
    /// Rows (4 to 16).
    #[arg(long, default_value_t = DEFAULT_HEIGHT)]
    pub height: usize,
}

impl Default for BoardSettings {
    fn default() -> Self {
        BoardSettings {
            width: DEFAULT_WIDTH,
            height: DEFAULT_HEIGHT,
        }
    }
}

impl BoardSettings {
    /// `8x7` for a board other than the default.
    pub fn notes(&self) -> Vec<String> {
        if *self == BoardSettings::default() {
            Vec::new()
        } else {
            vec![format!("{}x{}", self.width, self.height)]
        }
    }
}

/// Whether the board of puzzle `P`'s settings fits a `u64` (an error if it is not a
/// supported board).
pub(super) fn board_settings_fit<P: Puzzle>(board: &BoardSettings) -> Result<bool, PuzzleError> {
    board_fits(board.width, board.height).map_err(|e| PuzzleError::Settings {
        puzzle: P::NAME,
        message: e.to_string(),
    })
}

/// Connect Four game logs validated, as a puzzle of the shared harness (`connect4
/// validate`, moves in any notation, a move after the end an error).
#[derive(Debug, Clone, Copy)]
pub struct ValidatePuzzle;

impl Puzzle for ValidatePuzzle {
    type Settings = BoardSettings;
    type Job = ValidateJob;

    const NAME: &'static str = "connect4";
    const FOLDER: &'static str = "connect4";
    const ALGORITHMS: &'static [&'static str] = &["bitboard"];
    const ANSWER_COLUMNS: &'static [&'static str] = &["winner", "ply", "cells"];

    fn job(
        board: &BoardSettings,
        algorithm: &str,
        _inputs: &[InputSpec],
    ) -> Result<ValidateJob, PuzzleError> {
        PuzzleError::check_algorithm::<Self>(algorithm)?;
        Ok(ValidateJob {
            width: board.width,
            height: board.height,
            fits_u64: board_settings_fit::<Self>(board)?,
            notation: Notation::Auto,
            after_end: AfterEnd::Error,
            column: None,
        })
    }

    fn notes(board: &BoardSettings) -> Vec<String> {
        board.notes()
    }

    fn generate(keys: &toml::Table) -> Result<Vec<u8>, PuzzleError> {
        read_keys::<Self, GeneratedGames>(keys)?.generate()
    }
}

/// A generated dataset as a `bench` suite names it: the keys of `connect4 generate`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GeneratedGames {
    count: usize,
    seed: u64,
    width: Option<usize>,
    height: Option<usize>,
    notation: Option<String>,
    #[serde(default)]
    faults: f64,
}

impl GeneratedGames {
    /// The games, one per line.
    fn generate(&self) -> Result<Vec<u8>, PuzzleError> {
        use super::generate::{GameBatch, GameNotation};
        let fail = |message: String| PuzzleError::Settings {
            puzzle: ValidatePuzzle::NAME,
            message,
        };
        let notation = match self.notation.as_deref() {
            None => GameNotation::Digits,
            Some(name) => <GameNotation as clap::ValueEnum>::from_str(name, false)
                .map_err(|_| fail(format!("notation must be digits or colors, not {name:?}")))?,
        };
        let batch = GameBatch {
            count: self.count,
            seed: self.seed,
            width: self.width.unwrap_or(BoardSettings::default().width),
            height: self.height.unwrap_or(BoardSettings::default().height),
            notation,
            faults: self.faults,
        };
        batch.check().map_err(|e| fail(e.to_string()))?;
        let mut out = Vec::new();
        batch
            .write(&mut out)
            .expect("writing to memory cannot fail");
        Ok(out)
    }
}

/// The settings of `connect4 validate`, as the command line takes them.
#[derive(Debug, Clone, clap::Args)]
pub struct ValidateOptions {
    /// The board.
    #[command(flatten)]
    pub board: BoardSettings,
    /// How moves are written.
    #[arg(long, value_enum, default_value_t = Notation::Auto)]
    pub notation: Notation,
    /// What moves after the end of the game mean.
    #[arg(long, value_enum, default_value_t = AfterEnd::Error)]
    pub after_end: AfterEnd,
    /// CSV column holding the moves (default: the first); the other columns are carried
    /// through to the results.
    #[arg(long, value_name = "NAME")]
    pub column: Option<String>,
}

impl ValidateOptions {
    /// The job these settings describe (an error if the board is not supported).
    pub fn job(self) -> Result<ValidateJob, BoardSizeError> {
        Ok(ValidateJob {
            width: self.board.width,
            height: self.board.height,
            fits_u64: board_fits(self.board.width, self.board.height)?,
            notation: self.notation,
            after_end: self.after_end,
            column: self.column,
        })
    }
}

/// Validates every game log of an archive.
#[derive(Debug, Clone)]
pub struct ValidateJob {
    /// Board columns.
    pub width: usize,
    /// Board rows.
    pub height: usize,
    /// Whether the board fits a `u64` (else `u128`): decided once for the run.
    pub fits_u64: bool,
    /// How moves are written.
    pub notation: Notation,
    /// What moves after the end mean.
    pub after_end: AfterEnd,
    /// CSV column of the moves (default: the first).
    pub column: Option<String>,
}

/// Where a CSV input keeps the moves (its other columns are carried by the runner).
#[derive(Debug, Clone, Default)]
pub struct ValidateLayout {
    moves: usize,
    /// The moves column's name in the header (empty for lines), for messages.
    name: String,
}

/// The state a [`ValidateJob`] keeps on each worker thread: a game log and the buffers of
/// rows written, reused from game to game.
#[derive(Debug, Default)]
pub struct ValidateWorker {
    log: GameLog,
    recycled: Recycled,
}

impl Job for ValidateJob {
    type Layout = ValidateLayout;
    type Worker = ValidateWorker;

    fn columns(&self, _layout: &ValidateLayout) -> Vec<String> {
        let mut columns: Vec<String> = ["winner", "winner_name", "ply", "cells"]
            .map(String::from)
            .to_vec();
        if self.after_end == AfterEnd::Ignore {
            columns.push("trailing".into());
        }
        columns
    }

    fn statuses(&self) -> Vec<&'static str> {
        Status::ALL.iter().map(|s| s.name()).collect()
    }

    fn tallied_columns(&self) -> Vec<&'static str> {
        vec!["winner"]
    }

    fn settings(&self) -> Vec<(String, String)> {
        vec![
            ("board".into(), format!("{}x{}", self.width, self.height)),
            (
                "after_end".into(),
                match self.after_end {
                    AfterEnd::Error => "error",
                    AfterEnd::Ignore => "ignore",
                }
                .into(),
            ),
            (
                "notation".into(),
                format!("{:?}", self.notation).to_lowercase(),
            ),
            (
                "column".into(),
                self.column.clone().unwrap_or_else(|| "(first)".into()),
            ),
        ]
    }

    fn layout(
        &self,
        _input: &InputSpec,
        header: Option<&[String]>,
    ) -> Result<ValidateLayout, JobError> {
        let Some(header) = header else {
            return Ok(ValidateLayout::default());
        };
        let moves = match &self.column {
            Some(name) => JobError::find_column(header, name)?,
            None => {
                let notation = self.notation;
                JobError::refuse_record_as_header(
                    header,
                    0,
                    |field| GameLog::parse(field, notation).is_ok(),
                    "moves,id (the moves first, or in the column --column names)",
                )?;
                0
            }
        };
        let name = header.get(moves).cloned().unwrap_or_default();
        Ok(ValidateLayout { moves, name })
    }

    fn read_columns(&self, layout: &ValidateLayout) -> Vec<usize> {
        vec![layout.moves]
    }

    fn new_worker(&self) -> ValidateWorker {
        ValidateWorker::default()
    }

    fn recycle(&self, worker: &mut ValidateWorker, outcome: Outcome) {
        worker.recycled.keep(outcome);
    }

    fn process(
        &self,
        worker: &mut ValidateWorker,
        layout: &ValidateLayout,
        record: &Record<'_>,
        _meter: &mut Meter,
    ) -> Result<Outcome, JobError> {
        let verdict = match self.replay_record(worker, layout, record)? {
            Ok(verdict) => verdict,
            Err(outcome) => return Ok(outcome),
        };
        let ValidateWorker { log, recycled } = worker;
        let mut values = recycled.values();
        let winner_name = verdict
            .winner
            .and_then(|w| log.color_names.get(w as usize - 1))
            .map(|name| recycled.text(name));
        values.push(
            verdict
                .winner
                .map_or(Value::Empty, |w| Value::Int(w.into())),
        );
        values.push(winner_name.map_or(Value::Empty, Value::Text));
        values.push(Value::Int(verdict.ply as u64));
        // Built in one String: on fast archives allocation is most of a record's cost.
        let mut cells = recycled.string();
        // SAFETY: `push_line_cells` appends ASCII bytes only, so the string stays UTF-8.
        push_line_cells(&verdict, unsafe { cells.as_mut_vec() });
        values.push(if cells.is_empty() {
            Value::Empty
        } else {
            Value::Text(cells)
        });
        if self.after_end == AfterEnd::Ignore {
            values.push(Value::Int(verdict.trailing as u64));
        }
        let (failed, error) = match verdict.invalid {
            Some((_, message)) => (true, message),
            None => (false, String::new()),
        };
        Ok(Outcome {
            status: verdict.status.name(),
            failed,
            error,
            values,
        })
    }

    /// The row of a game whose log could be read, written here.
    fn process_csv(
        &self,
        worker: &mut ValidateWorker,
        layout: &ValidateLayout,
        record: &Record<'_>,
        _meter: &mut Meter,
        row: &mut Vec<u8>,
    ) -> Result<CsvRow, JobError> {
        let verdict = match self.replay_record(worker, layout, record)? {
            Ok(verdict) => verdict,
            Err(outcome) => return Ok(CsvRow::Outcome(outcome)),
        };
        // The tallied `winner` column as the generic row's text (a winner is 1 or 2).
        let tally = verdict.winner.map(|w| if w == 1 { "1" } else { "2" });
        let status = verdict.status.name();
        row.push(b',');
        push_short(status.as_bytes(), row);
        row.push(b',');
        push_short(tally.unwrap_or("").as_bytes(), row);
        row.push(b',');
        if let Some(name) = verdict
            .winner
            .and_then(|w| worker.log.color_names.get(w as usize - 1))
        {
            push_csv_field(name, row);
        }
        row.push(b',');
        push_number(verdict.ply as u64, row);
        row.push(b',');
        push_line_cells(&verdict, row);
        if self.after_end == AfterEnd::Ignore {
            row.push(b',');
            push_number(verdict.trailing as u64, row);
        }
        row.push(b',');
        if let Some((_, message)) = &verdict.invalid {
            push_csv_field(message, row);
        }
        Ok(CsvRow::Written(Written {
            status,
            failed: verdict.invalid.is_some(),
            tally,
        }))
    }
}

impl ValidateJob {
    /// The verdict on a record's game, or (`Ok(Err(…))`) the outcome of its error row
    /// when its log cannot be read.
    fn replay_record(
        &self,
        worker: &mut ValidateWorker,
        layout: &ValidateLayout,
        record: &Record<'_>,
    ) -> Result<Result<Verdict, Outcome>, JobError> {
        let text = match record.content {
            RecordContent::Line(text) => text,
            RecordContent::Fields(fields) => fields.get(layout.moves).copied().unwrap_or(""),
            RecordContent::Unreadable(message) => {
                return Err(JobError::Unreadable(message.to_string()))
            }
        };
        let log = &mut worker.log;
        if let Err(error) = log.parse_into(text, self.notation) {
            // In a CSV record, the field is named: "column 3" alone reads as a CSV column.
            let error = match (record.content, error) {
                (RecordContent::Line(_), error) => error.to_string(),
                (_, NotationError::Empty) => format!("column {:?} holds no moves", layout.name),
                (_, error) => format!("column {:?}: {error}", layout.name),
            };
            return Ok(Err(Outcome {
                status: ERROR_STATUS,
                failed: true,
                error,
                values: vec![Value::Empty; self.columns(layout).len()],
            }));
        }
        Ok(Ok(if self.fits_u64 {
            replay::<u64>(log, self.width, self.height, self.after_end)
        } else {
            replay::<u128>(log, self.width, self.height, self.after_end)
        }))
    }
}

/// Appends the cells of the winning lines, `A4 B3 C2 D1` with `; ` between lines.
fn push_line_cells(verdict: &Verdict, out: &mut Vec<u8>) {
    for (i, line) in verdict.line_spans().iter().enumerate() {
        if i > 0 {
            push_short(b"; ", out);
        }
        for (k, (c, r)) in line.cells().enumerate() {
            if k > 0 {
                out.push(b' ');
            }
            push_cell_name(c, r, out);
        }
    }
}
