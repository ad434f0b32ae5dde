//! Replaying a game log move by move and deciding its verdict.

use std::fmt;

use smallvec::SmallVec;

use super::board::{line_spans_through, lines_through, Board, LineSpan, Mask, MoveResult};
use super::notation::GameLog;
use crate::batch::Excerpt;

/// What to do with moves after the game has ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AfterEnd {
    /// A move after the game ended makes it invalid.
    Error,
    /// The first four decides; later moves are ignored and counted in `trailing`.
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
    /// For a win: the winner's stones (a board mask as `u128`) and the winning stone as
    /// (column, row); [`lines`](Self::lines) reads the winning lines from them. Kept as a
    /// mask so that replaying allocates nothing: building the lines on every win cost
    /// more than the whole replay.
    pub winning_stones: Option<(u128, (usize, usize))>,
    /// Board size (width, height).
    pub board: (usize, usize),
    /// For an invalid game: what was wrong.
    pub invalid: Option<(InvalidKind, String)>,
    /// Moves ignored after the end (with [`AfterEnd::Ignore`]).
    pub trailing: usize,
}

impl Verdict {
    /// For a win: every line of four or more through the winning stone, each as its cells
    /// (column, row), 0-based from the bottom left, in order along the line.
    pub fn lines(&self) -> Vec<Vec<(usize, usize)>> {
        match self.winning_stones {
            Some((stones, (col, row))) => {
                lines_through(stones, self.board.0, self.board.1, col, row)
            }
            None => Vec::new(),
        }
    }

    /// [`lines`](Self::lines) as spans, without allocating.
    pub fn line_spans(&self) -> SmallVec<[LineSpan; 4]> {
        match self.winning_stones {
            Some((stones, (col, row))) => {
                line_spans_through(stones, self.board.0, self.board.1, col, row)
            }
            None => SmallVec::new(),
        }
    }
}

impl fmt::Display for InvalidKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The name of a cell: column letter and row counted from the bottom, e.g. `C1`.
pub fn cell_name(col: usize, row: usize) -> String {
    let mut name = Vec::with_capacity(3);
    push_cell_name(col, row, &mut name);
    String::from_utf8(name).expect("a letter and digits")
}

/// Appends [`cell_name`]'s bytes (ASCII) to `out`, without a string of its own.
pub fn push_cell_name(col: usize, row: usize, out: &mut Vec<u8>) {
    out.push(b'A' + col as u8);
    crate::batch::push_number(row as u64 + 1, out);
}

/// Replays `log` on a `width × height` board held in masks of type `M`.
pub fn replay<M: Mask>(log: &GameLog, width: usize, height: usize, after_end: AfterEnd) -> Verdict {
    let mut board = Board::<M>::new(width, height);
    let verdict = |status: Status, ply: usize| Verdict {
        status,
        winner: None,
        ply,
        winning_stones: None,
        board: (width, height),
        invalid: None,
        trailing: 0,
    };
    let invalid = |kind: InvalidKind, ply: usize, message: String| Verdict {
        invalid: Some((kind, format!("{kind}: {message} (ply {ply})"))),
        ..verdict(Status::Invalid, ply)
    };
    for (index, &column) in log.columns.iter().enumerate() {
        let ply = index + 1;
        if let Some(colors) = &log.colors {
            if index > 0 && colors[index] == colors[index - 1] {
                let name = &log.color_names[colors[index] as usize];
                return invalid(
                    InvalidKind::Turn,
                    ply,
                    format!("{} moved twice in a row", Excerpt::plain(name)),
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
        let mut end = match board.play(col) {
            MoveResult::Placed => continue,
            MoveResult::Win => Verdict {
                winner: Some(if index % 2 == 0 { 1 } else { 2 }),
                winning_stones: Some((
                    board.last_mover_stones().to_u128(),
                    (col, board.top_row(col)),
                )),
                ..verdict(Status::Win, ply)
            },
            MoveResult::Draw => verdict(Status::Draw, ply),
        };
        // The game is over: any move left is after its end.
        let trailing = log.columns.len() - ply;
        if trailing > 0 {
            match after_end {
                AfterEnd::Error => {
                    let what = if end.status == Status::Win {
                        "won"
                    } else {
                        "drawn"
                    };
                    return invalid(
                        InvalidKind::AfterEnd,
                        ply + 1,
                        format!("a move after the game was {what} at ply {ply}"),
                    );
                }
                AfterEnd::Ignore => end.trailing = trailing,
            }
        }
        return end;
    }
    verdict(Status::Unfinished, log.columns.len())
}
