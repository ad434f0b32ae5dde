//! Tiling counts on the batch runner: one record is one counting job, a set of pieces and
//! a board, counted three ways.
//!
//! A record is a line `PIECES [BOARD]`:
//! - `PIECES` is `pentominoes` (the 12 free pentominoes) or a pieces file (the stones
//!   format, `#` cells, or `B`/`W` coloured cells as in the checkerboard puzzle);
//! - `BOARD` is a rectangle `WxH`, a file of the board format (`#` cells, `.` holes, `B`/`W`
//!   coloured cells), or left out for a pieces file named after its board, like
//!   `8x8_1.txt`. A rectangle for coloured pieces is coloured like a chessboard with a black
//!   top-left cell, or a white one with `WxH/white`.
//!
//! Files are found relative to the folder of the input that names them.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use serde::Deserialize;

use crate::batch::{InputSpec, Job, JobError, Outcome, Record, RecordContent, Value};
use crate::budget::{Meter, OverBudget};
use crate::puzzle::{Puzzle, PuzzleError};

use super::{
    parse_pieces, pentominoes, Board, Color, Engine, Piece, Symmetry, Tiling, TilingError,
};

/// Tilings counted, as a puzzle of the shared harness: each record's three counts, by the
/// bit masks (`bits`) or the dancing links (`dlx`).
#[derive(Debug, Clone, Copy)]
pub struct TilingPuzzle;

/// A tiling count has no settings besides the engine.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CountSettings {}

impl Puzzle for TilingPuzzle {
    type Settings = CountSettings;
    type Job = CountJob;

    const NAME: &'static str = "tiling";
    const FOLDER: &'static str = "tiling";
    const ALGORITHMS: &'static [&'static str] = &["bits", "dlx"];
    const ANSWER_COLUMNS: &'static [&'static str] = &["labelled", "tilings", "up_to_symmetry"];

    fn job(
        _settings: &CountSettings,
        algorithm: &str,
        _inputs: &[InputSpec],
    ) -> Result<CountJob, PuzzleError> {
        let engine = match algorithm {
            "bits" => Engine::BitMasks,
            "dlx" => Engine::DancingLinks,
            _ => return Err(PuzzleError::unknown_algorithm::<Self>(algorithm)),
        };
        Ok(CountJob { engine })
    }
}

/// Counts the tilings of every record: labelled, tilings and up to symmetry.
#[derive(Debug, Clone, Copy)]
pub struct CountJob {
    /// The exact-cover search.
    pub engine: Engine,
}

/// The folder an input's files are named relative to.
#[derive(Debug, Clone)]
pub struct CountLayout {
    base: PathBuf,
}

/// Why a text is not a board size `WxH`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SizeTextError {
    /// Not two numbers joined by `x`.
    #[error("is not WIDTHxHEIGHT, e.g. 8x8")]
    NotASize,
    /// Two numbers, one of them too large for any board.
    #[error("is too large (a board has 1 to 4,096 cells)")]
    TooLarge,
}

/// `WxH` as (width, height).
pub fn parse_size(text: &str) -> Result<(usize, usize), SizeTextError> {
    let (width, height) = text.split_once(['x', 'X']).ok_or(SizeTextError::NotASize)?;
    match (side(width), side(height)) {
        (Ok(width), Ok(height)) => Ok((width, height)),
        (Err(SizeTextError::NotASize), _) | (_, Err(SizeTextError::NotASize)) => {
            Err(SizeTextError::NotASize)
        }
        _ => Err(SizeTextError::TooLarge),
    }
}

/// One side of a `WxH` size.
fn side(text: &str) -> Result<usize, SizeTextError> {
    text.parse()
        .map_err(|e: std::num::ParseIntError| match e.kind() {
            std::num::IntErrorKind::PosOverflow => SizeTextError::TooLarge,
            _ => SizeTextError::NotASize,
        })
}

/// The board size a file's name gives, as in `8x8_1.txt`.
pub fn size_in_name(path: &Path) -> Result<(usize, usize), SizeTextError> {
    let name = path.file_name().and_then(|name| name.to_str());
    let name = name.ok_or(SizeTextError::NotASize)?;
    parse_size(name.split('_').next().unwrap_or(name))
}

impl CountJob {
    fn pieces(&self, layout: &CountLayout, token: &str) -> Result<(Vec<Piece>, PathBuf), JobError> {
        if token == "pentominoes" {
            return Ok((pentominoes(), PathBuf::new()));
        }
        let path = layout.base.join(token);
        let text = read(&path)?;
        let pieces = parse_pieces(&text)
            .map_err(|e| JobError::Invalid(format!("{}: {e}", path.display())))?;
        Ok((pieces, path))
    }

    fn board(
        &self,
        layout: &CountLayout,
        token: Option<&str>,
        pieces_path: &Path,
        coloured: bool,
    ) -> Result<Board, JobError> {
        let (size, white) = match token {
            Some(token) => {
                let (size, colour) = token.split_once('/').unwrap_or((token, ""));
                match (parse_size(size), colour) {
                    (Ok(size), "" | "black") => (size, false),
                    (Ok(size), "white") => (size, true),
                    (Ok(_), other) => {
                        return Err(JobError::Invalid(format!(
                            "board {}: {} is not black or white",
                            crate::batch::Excerpt::quoted(token),
                            crate::batch::Excerpt::quoted(other)
                        )))
                    }
                    (Err(too_large @ SizeTextError::TooLarge), _) => {
                        return Err(JobError::Invalid(format!(
                            "board {} {too_large}",
                            crate::batch::Excerpt::quoted(size)
                        )))
                    }
                    (Err(SizeTextError::NotASize), _) => {
                        return self.board_file(&layout.base.join(token))
                    }
                }
            }
            None => match size_in_name(pieces_path) {
                Ok(size) => (size, false),
                Err(too_large @ SizeTextError::TooLarge) => {
                    return Err(JobError::Invalid(format!(
                        "the board size in the name {} {too_large}",
                        pieces_path.display()
                    )))
                }
                Err(SizeTextError::NotASize) => {
                    return Err(JobError::Invalid(
                        "no board: give WxH or a board file after the pieces".into(),
                    ))
                }
            },
        };
        let top_left = coloured.then_some(if white { Color::White } else { Color::Black });
        Board::rectangle(size.0, size.1, top_left).map_err(|e| JobError::Invalid(e.to_string()))
    }

    fn board_file(&self, path: &Path) -> Result<Board, JobError> {
        Board::parse(&read(path)?)
            .map_err(|e| JobError::Invalid(format!("{}: {e}", path.display())))
    }
}

/// A pieces or board file a record names. Only a regular file is read: a named pipe
/// without a writer would hold the run for ever, a device never ends.
fn read(path: &Path) -> Result<String, JobError> {
    if std::fs::metadata(path).is_ok_and(|meta| !meta.is_file()) {
        return Err(JobError::Invalid(format!(
            "{} is not a regular file",
            path.display()
        )));
    }
    super::files::read_file_text(path).map_err(|e| JobError::Invalid(e.to_string()))
}

impl Job for CountJob {
    type Layout = CountLayout;
    type Worker = ();

    fn columns(&self, _layout: &CountLayout) -> Vec<String> {
        ["pieces", "board", "labelled", "tilings", "up_to_symmetry"]
            .map(String::from)
            .to_vec()
    }

    fn statuses(&self) -> Vec<&'static str> {
        vec!["counted", "impossible"]
    }

    fn settings(&self) -> Vec<(String, String)> {
        let engine = match self.engine {
            Engine::DancingLinks => "dlx",
            Engine::BitMasks | Engine::Auto => "bits",
        };
        vec![("engine".into(), engine.into())]
    }

    fn layout(
        &self,
        input: &InputSpec,
        header: Option<&[String]>,
    ) -> Result<CountLayout, JobError> {
        if header.is_some() {
            return Err(JobError::UnsupportedInput(
                "tiling counts are read one per line, not from CSV",
            ));
        }
        let base = input
            .path
            .as_deref()
            .and_then(Path::parent)
            .map_or_else(PathBuf::new, Path::to_path_buf);
        Ok(CountLayout { base })
    }

    fn new_worker(&self) {}

    fn process(
        &self,
        _: &mut (),
        layout: &CountLayout,
        record: &Record<'_>,
        meter: &mut Meter,
    ) -> Result<Outcome, JobError> {
        let text = match record.content {
            RecordContent::Line(text) => text,
            RecordContent::Fields(_) => return Err(JobError::Invalid("not a count".into())),
            RecordContent::Unreadable(message) => {
                return Err(JobError::Unreadable(message.to_string()))
            }
        };
        let tokens: Vec<&str> = text.split_whitespace().collect();
        let (pieces_token, board_token) = match tokens[..] {
            [pieces] => (pieces, None),
            [pieces, board] => (pieces, Some(board)),
            _ => {
                return Err(JobError::Invalid(format!(
                    "{} fields: a count is PIECES [BOARD]",
                    tokens.len()
                )))
            }
        };
        let (pieces, pieces_path) = self.pieces(layout, pieces_token)?;
        let coloured = pieces
            .iter()
            .any(|p| p.cells.iter().any(|&(_, color)| color.is_some()));
        let board = self.board(layout, board_token, &pieces_path, coloured)?;
        let mut values = vec![
            Value::Text(pieces_token.to_string()),
            Value::Text(format!("{}x{}", board.width(), board.height())),
        ];
        // The search looks at the run's stop flag (Ctrl-C) itself: a count can take
        // minutes, and a record cut short has no row (the runner sees the meter stopped).
        let stop = meter
            .stop_flag()
            .map_or_else(|| Arc::new(AtomicBool::new(false)), Arc::clone);
        let configured =
            Tiling::configured_until(&board, &pieces, Symmetry::Derived, self.engine, &stop);
        let (status, failed, error, counts) = match configured {
            Err(TilingError::Stopped) => {
                meter.is_interrupted();
                return Ok(Outcome::over_budget(OverBudget::Interrupted, values));
            }
            Ok(tiling) => {
                let Some(counts) = tiling.count_until(&stop) else {
                    meter.is_interrupted();
                    return Ok(Outcome::over_budget(OverBudget::Interrupted, values));
                };
                let counts = [
                    exact_value(counts.labelled),
                    exact_value(counts.tilings),
                    exact_value(counts.up_to_symmetry),
                ];
                ("counted", false, String::new(), counts)
            }
            Err(impossible) => {
                let none = || Value::Int(0);
                (
                    "impossible",
                    true,
                    impossible.to_string(),
                    [none(), none(), none()],
                )
            }
        };
        values.extend(counts);
        Ok(Outcome {
            status,
            failed,
            error,
            values,
        })
    }
}

/// A count as a whole number when it fits in a `u64`, else as the text of its digits (a
/// string in JSON Lines), never rounded.
fn exact_value<T: TryInto<u64> + ToString + Clone>(count: T) -> Value {
    match count.clone().try_into() {
        Ok(small) => Value::Int(small),
        Err(_) => Value::Text(count.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use std::io;

    use super::*;
    use crate::batch::{run, NoProgress, RowSink, RunOptions};

    #[test]
    fn a_named_pipe_or_a_device_is_refused_not_waited_on() {
        let dir = tempfile::tempdir().unwrap();
        let pipe = dir.path().join("pieces.txt");
        let made = std::process::Command::new("mkfifo")
            .arg(&pipe)
            .status()
            .unwrap();
        assert!(made.success());
        for path in [pipe.as_path(), Path::new("/dev/zero")] {
            match read(path) {
                Err(JobError::Invalid(message)) => {
                    assert!(message.ends_with("is not a regular file"), "{message}")
                }
                other => panic!("{path:?}: {other:?}"),
            }
        }
    }

    /// Each row's status, counts and error.
    #[derive(Default)]
    struct Rows(Vec<String>);

    impl RowSink for Rows {
        fn begin(&mut self, _columns: &[String]) -> io::Result<()> {
            Ok(())
        }
        fn write_row(&mut self, row: &[Value]) -> io::Result<()> {
            let cells: Vec<String> = row[1..row.len() - 1].iter().map(Value::to_text).collect();
            self.0.push(cells.join(","));
            Ok(())
        }
        fn finish(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn rows(engine: Engine, path: &Path, threads: usize) -> Vec<String> {
        let mut rows = Rows::default();
        let options = RunOptions {
            threads,
            ..RunOptions::default()
        };
        let input = InputSpec::new(path, None);
        run(
            &CountJob { engine },
            &[input],
            &mut rows,
            &NoProgress,
            &options,
        )
        .unwrap();
        rows.0
    }

    #[test]
    fn the_repository_counts_agree_across_engines_and_threads() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/tiling/counts.txt");
        let expected = [
            "counted,pentominoes,3x20,8,8,2,",
            "counted,pentominoes,4x15,1472,1472,368,",
            "counted,pentominoes,5x12,4040,4040,1010,",
            "counted,pentominoes,8x8,520,520,65,",
            "counted,4x4_stones.txt,4x4,24,6,2,",
        ];
        let bits = rows(Engine::BitMasks, &path, 1);
        assert_eq!(bits[..5], expected);
        assert_eq!(bits.len(), 6);
        assert_eq!(rows(Engine::DancingLinks, &path, 2), bits);
        assert_eq!(rows(Engine::BitMasks, &path, 2), bits);
    }

    #[test]
    fn bad_counts_are_error_rows_that_say_why() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.txt");
        std::fs::write(
            &path,
            "pentominoes\nmissing.txt 4x4\npentominoes 7x7\npentominoes 6x10 extra\npentominoes 6x10/grey\npentominoes 0x9\n",
        )
        .unwrap();
        let rows = rows(Engine::BitMasks, &path, 2);
        assert_eq!(
            rows[0],
            "error,,,,,,no board: give WxH or a board file after the pieces"
        );
        assert!(rows[1].starts_with(&format!(
            "error,,,,,,cannot read {}",
            dir.path().join("missing.txt").display()
        )));
        assert_eq!(
            rows[2],
            "impossible,pentominoes,7x7,0,0,0,the pieces cover 60 cells, the board has 49"
        );
        assert_eq!(rows[3], "error,,,,,,3 fields: a count is PIECES [BOARD]");
        assert_eq!(
            rows[4],
            "error,,,,,,board \"6x10/grey\": \"grey\" is not black or white"
        );
        assert!(rows[5].ends_with("a 0x9 board is not supported (1 to 4,096 cells)"));
    }

    #[test]
    fn counts_past_u64_are_the_text_of_their_digits() {
        assert_eq!(exact_value(9356u128).to_text(), "9356");
        assert!(matches!(
            exact_value(u128::from(u64::MAX)),
            Value::Int(u64::MAX)
        ));
        let big = num_bigint::BigUint::from(6728u32) * num_bigint::BigUint::from(u64::MAX);
        assert!(matches!(exact_value(big.clone()), Value::Text(text) if text == big.to_string()));
    }

    #[test]
    fn sizes_come_from_text_and_names() {
        assert_eq!(parse_size("6x10"), Ok((6, 10)));
        assert_eq!(parse_size("6x"), Err(SizeTextError::NotASize));
        assert_eq!(size_in_name(Path::new("a/8x8_1.txt")), Ok((8, 8)));
        assert_eq!(
            size_in_name(Path::new("a/stones.txt")),
            Err(SizeTextError::NotASize)
        );
        // Numbers too large for any board are not taken for text that is no size.
        let huge = "99999999999999999999";
        assert_eq!(
            size_in_name(Path::new(&format!("a/{huge}x{huge}_1.txt"))),
            Err(SizeTextError::TooLarge)
        );
        assert_eq!(
            parse_size(&format!("8x{huge}")),
            Err(SizeTextError::TooLarge)
        );
        assert_eq!(
            parse_size(&format!("ax{huge}")),
            Err(SizeTextError::NotASize)
        );
    }
}
