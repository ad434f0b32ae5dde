//! Replaying a game log move by move and deciding its verdict.

use std::fmt;

use super::board::{Board, Mask, MoveResult};
use super::notation::GameLog;

/// What to do with moves after the game has ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterEnd {
    /// A move after the end makes the game invalid.
    Error,
    /// The seed article's reading: the first four decides, later moves are ignored.
    Ignore,
}

/// A game's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The last move (or, ignoring later moves, some move) completed four in a row.
    Win,
    /// The board filled up without a four.
    Draw,
    /// The log ends before the game does.
    Unfinished,
    /// A move could not be played.
    Invalid,
}

impl Status {
    /// Every status, in the order summaries list them.
    pub const ALL: [Status; 4] = [
        Status::Win,
        Status::Draw,
        Status::Unfinished,
        Status::Invalid,
    ];

    /// The name used in result files.
    pub fn name(self) -> &'static str {
        match self {
            Status::Win => "win",
            Status::Draw => "draw",
            Status::Unfinished => "unfinished",
            Status::Invalid => "invalid",
        }
    }
}

/// Why a move could not be played.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InvalidKind {
    /// A column outside the board.
    Column,
    /// A full column.
    Full,
    /// The same colour moved twice in a row.
    Turn,
    /// A move after the game had ended.
    AfterEnd,
}

impl InvalidKind {
    /// The kind's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            InvalidKind::Column => "column",
            InvalidKind::Full => "full",
            InvalidKind::Turn => "turn",
            InvalidKind::AfterEnd => "after-end",
        }
    }
}

/// The result of replaying one game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The verdict.
    pub status: Status,
    /// 1 or 2 (by move order) for a win.
    pub winner: Option<u8>,
    /// The deciding move for a win or draw, the offending move if invalid, the number of
    /// moves if unfinished (1-based).
    pub ply: usize,
    /// For a win: every line of four or more through the winning stone, each as its cells
    /// (column, row), 0-based from the bottom left, in order along the line.
    pub lines: Vec<Vec<(usize, usize)>>,
    /// For an invalid game: what was wrong.
    pub invalid: Option<(InvalidKind, String)>,
    /// Moves ignored after the end (with [`AfterEnd::Ignore`]).
    pub trailing: usize,
}

impl fmt::Display for InvalidKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The name of a cell: column letter and row counted from the bottom, e.g. `C1`.
pub fn cell_name(col: usize, row: usize) -> String {
    format!("{}{}", (b'A' + col as u8) as char, row + 1)
}

/// Replays `log` on a `width × height` board held in masks of type `M`.
pub fn replay<M: Mask>(log: &GameLog, width: usize, height: usize, after_end: AfterEnd) -> Verdict {
    let mut board = Board::<M>::new(width, height);
    let invalid = |kind: InvalidKind, ply: usize, message: String| Verdict {
        status: Status::Invalid,
        winner: None,
        ply,
        lines: Vec::new(),
        invalid: Some((kind, format!("{kind}: {message} (ply {ply})"))),
        trailing: 0,
    };
    let mut end: Option<Verdict> = None;
    for (index, &column) in log.columns.iter().enumerate() {
        let ply = index + 1;
        if let Some(verdict) = &mut end {
            match after_end {
                AfterEnd::Error => {
                    let what = if verdict.status == Status::Win {
                        "won"
                    } else {
                        "drawn"
                    };
                    return invalid(
                        InvalidKind::AfterEnd,
                        ply,
                        format!("a move after the game was {what} at ply {}", verdict.ply),
                    );
                }
                AfterEnd::Ignore => {
                    verdict.trailing = log.columns.len() - index;
                    break;
                }
            }
        }
        if let Some(colors) = &log.colors {
            if index > 0 && colors[index] == colors[index - 1] {
                let name = &log.color_names[colors[index] as usize];
                return invalid(
                    InvalidKind::Turn,
                    ply,
                    format!("{name} moved twice in a row"),
                );
            }
        }
        if column == 0 || column > width {
            return invalid(
                InvalidKind::Column,
                ply,
                format!("column {column} is outside the board (1 to {width})"),
            );
        }
        let col = column - 1;
        if board.is_full(col) {
            return invalid(InvalidKind::Full, ply, format!("column {column} is full"));
        }
        match board.play(col) {
            MoveResult::Placed => {}
            MoveResult::Win => {
                end = Some(Verdict {
                    status: Status::Win,
                    winner: Some(if index % 2 == 0 { 1 } else { 2 }),
                    ply,
                    lines: board.winning_lines(col),
                    invalid: None,
                    trailing: 0,
                })
            }
            MoveResult::Draw => {
                end = Some(Verdict {
                    status: Status::Draw,
                    winner: None,
                    ply,
                    lines: Vec::new(),
                    invalid: None,
                    trailing: 0,
                })
            }
        }
    }
    end.unwrap_or(Verdict {
        status: Status::Unfinished,
        winner: None,
        ply: log.columns.len(),
        lines: Vec::new(),
        invalid: None,
        trailing: 0,
    })
}
