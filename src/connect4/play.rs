//! A game of Connect Four in a terminal (or any reader and writer): the board drawn after
//! every move, moves read line by line, undo, computer players.

use std::io::{self, BufRead, Read, Write};
use std::sync::{Arc, Mutex};

use super::ai::{Ai, Level};
use super::board::lines_through;
use super::solve::{Bits, Book, Geometry, Position};

/// Who plays one colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlayerKind {
    /// Moves typed in.
    Human,
    /// A computer player.
    Computer(Level),
}

impl std::str::FromStr for PlayerKind {
    type Err = super::ai::LevelError;

    /// `human`, or a computer [`Level`]: `random`, `heuristic` (depth 4),
    /// `heuristic:DEPTH` or `perfect`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text == "human" {
            Ok(PlayerKind::Human)
        } else {
            text.parse().map(PlayerKind::Computer)
        }
    }
}

/// How to play a game.
#[derive(Debug, Clone)]
pub struct GameOptions {
    /// Board columns.
    pub width: usize,
    /// Board rows.
    pub height: usize,
    /// The first player (Red) and the second (Yellow).
    pub players: [PlayerKind; 2],
    /// Seed of the computer players' choices among equal moves.
    pub seed: u64,
    /// Draw the discs with ANSI colours (else plain characters).
    pub colour: bool,
    /// Say when a computer player starts thinking (for a person watching: a perfect
    /// player's search can take seconds).
    pub announce_thinking: bool,
    /// Transposition table of a perfect player, MiB.
    pub table_mb: usize,
    /// Moves (1-based columns) already played when the game starts.
    pub opening: Vec<usize>,
    /// A copy of the moves played so far, kept up to date after every move and undo, for
    /// another thread to log a game interrupted by a signal.
    pub moves_so_far: Option<Arc<Mutex<Vec<usize>>>>,
}

/// Why a game cannot be played.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    /// The opening is not a legal unfinished position.
    #[error("--start: {0}")]
    Opening(#[from] super::solve::PositionError),
    /// Reading or writing failed.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// How a game ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GameEnd {
    /// Player 0 (Red) or 1 (Yellow) completed a line: its cells as (column, row), 0-based
    /// from the bottom left.
    Win {
        /// 0 for the first player, 1 for the second.
        player: usize,
        /// The winning line(s) through the last stone.
        cells: Vec<(usize, usize)>,
    },
    /// The board filled up.
    Draw,
    /// A human typed `q`.
    Quit,
    /// The input ended before the game did.
    InputEnded,
}

/// A game played: its moves (1-based columns) and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameRecord {
    /// Columns played, 1-based.
    pub moves: Vec<usize>,
    /// How the game ended.
    pub end: GameEnd,
}

impl GameRecord {
    /// The moves in digits notation (comma-separated beyond 9 columns), as `connect4
    /// validate` reads them.
    pub fn digits(&self, width: usize) -> String {
        let parts: Vec<String> = self.moves.iter().map(usize::to_string).collect();
        super::notation::digits_line(&parts, width)
    }
}

const NAMES: [&str; 2] = ["Red", "Yellow"];
const PLAIN: [char; 2] = ['X', 'O'];

/// Plays one game, reading a human's moves from `input` and drawing everything to `out`.
/// A human types a column number, `u` to undo (back to their previous turn) or `q` to
/// quit; a bad or full column is asked again. Perfect players use `book` if given.
/// Plays a game on the board of `options` with `book` if any, the mask width chosen by the
/// board (see [`play_game`]).
pub fn play(
    options: &GameOptions,
    book: Option<super::AnyBook>,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Result<GameRecord, PlayError> {
    use super::AnyBook;
    let fits_u64 = super::board_fits(options.width, options.height).unwrap_or(false);
    match book {
        Some(AnyBook::Narrow(book)) => play_game::<u64>(options, Some(book), input, out),
        Some(AnyBook::Wide(book)) => play_game::<u128>(options, Some(book), input, out),
        None if fits_u64 => play_game::<u64>(options, None, input, out),
        None => play_game::<u128>(options, None, input, out),
    }
}

/// Whether the environment allows colour on a terminal: no `NO_COLOR` (see no-color.org)
/// and a `TERM` other than `dumb`.
pub fn terminal_wants_colour() -> bool {
    let no_colour = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty());
    let dumb = std::env::var_os("TERM").is_some_and(|term| term == "dumb");
    !no_colour && !dumb
}

/// A log of games: each finished game appended as one line of column digits, which
/// `connect4 validate` reads. Opened before the game, so that a path that cannot be written
/// does not cost a game played to its end.
#[derive(Debug)]
pub struct GameLogFile {
    file: std::fs::File,
    path: std::path::PathBuf,
    /// The file ended inside a line (a last game without its line end): the next game
    /// starts with one, or it would be read as the end of that game.
    unended: bool,
}

/// A game log that cannot be opened or written.
#[derive(Debug, thiserror::Error)]
#[error("cannot {action} the log {}: {source}", path.display())]
pub struct GameLogError {
    action: &'static str,
    path: std::path::PathBuf,
    source: io::Error,
}

impl GameLogFile {
    /// Opens `path` to append to it, creating it if needed. A named pipe or a socket is
    /// refused: opening one waits for a reader, before the game is even drawn.
    pub fn open(path: &std::path::Path) -> Result<Self, GameLogError> {
        use std::os::unix::fs::FileTypeExt;
        let error = |action, source| GameLogError {
            action,
            path: path.to_path_buf(),
            source,
        };
        if let Ok(meta) = std::fs::metadata(path) {
            if meta.file_type().is_fifo() || meta.file_type().is_socket() {
                let why = io::Error::other("it is a named pipe or a socket, not a file");
                return Err(error("open", why));
            }
        }
        let mut options = std::fs::OpenOptions::new();
        options.create(true).append(true);
        // Read too, to see how the file ends; a file that may only be written is appended
        // to all the same.
        let (mut file, readable) = match options.clone().read(true).open(path) {
            Ok(file) => (file, true),
            Err(_) => (options.open(path).map_err(|e| error("open", e))?, false),
        };
        let unended = readable && last_byte(&mut file).is_some_and(|byte| byte != b'\n');
        Ok(GameLogFile {
            file,
            path: path.to_path_buf(),
            unended,
        })
    }

    /// Appends `record`'s moves, if it has any, on a board `width` columns wide.
    pub fn append(&mut self, record: &GameRecord, width: usize) -> Result<(), GameLogError> {
        if record.moves.is_empty() {
            return Ok(());
        }
        let start = if self.unended { "\n" } else { "" };
        let line = format!("{start}{}\n", record.digits(width));
        // One write: a game is in the log whole or not at all, as far as the system allows.
        self.file
            .write_all(line.as_bytes())
            .map_err(|source| GameLogError {
                action: "write",
                path: self.path.clone(),
                source,
            })?;
        self.unended = false;
        Ok(())
    }
}

/// The last byte of a regular `file`, if it has one (none for a device such as
/// `/dev/null`, or an empty file).
fn last_byte(file: &mut std::fs::File) -> Option<u8> {
    use std::io::{Seek, SeekFrom};
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() == 0 {
        return None;
    }
    let mut byte = [0u8];
    file.seek(SeekFrom::End(-1)).ok()?;
    file.read_exact(&mut byte).ok()?;
    Some(byte[0])
}

/// Plays a game on a board whose masks are `M`.
pub fn play_game<M: Bits>(
    options: &GameOptions,
    book: Option<Arc<Book<M>>>,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Result<GameRecord, PlayError> {
    let (width, height) = (options.width, options.height);
    let geometry = Geometry::<M>::new(width, height);
    geometry.position(&options.opening)?;
    let mut ais: Vec<Option<Ai<M>>> = options
        .players
        .iter()
        .enumerate()
        .map(|(i, kind)| match kind {
            PlayerKind::Human => None,
            PlayerKind::Computer(level) => {
                let ai = Ai::new(
                    *level,
                    width,
                    height,
                    options.seed.wrapping_add(i as u64),
                    options.table_mb,
                );
                Some(match &book {
                    Some(book) => ai.with_book(Arc::clone(book)),
                    None => ai,
                })
            }
        })
        .collect();
    let mut moves: Vec<usize> = options.opening.clone();
    let share = |moves: &[usize]| {
        if let Some(shared) = &options.moves_so_far {
            let mut shared = shared
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            shared.clear();
            shared.extend_from_slice(moves);
        }
    };
    share(&moves);
    draw(out, options, &moves, &[])?;
    loop {
        let position: Position<M> = geometry
            .position(&moves)
            .expect("the game goes on only while the position is unfinished");
        let player = moves.len() % 2;
        let col = match &mut ais[player] {
            Some(ai) => {
                if options.announce_thinking {
                    writeln!(out, "{} ({}) is thinking…", NAMES[player], ai.level())?;
                    out.flush()?;
                }
                let col = ai.choose(&position);
                writeln!(
                    out,
                    "{} ({}) plays column {}.",
                    NAMES[player],
                    ai.level(),
                    col + 1
                )?;
                col
            }
            None => match ask_move(options, &geometry, &position, input, out)? {
                Asked::Column(col) => col,
                Asked::Undo => {
                    undo(&mut moves, options.opening.len(), &options.players, out)?;
                    share(&moves);
                    draw(out, options, &moves, &[])?;
                    continue;
                }
                asked @ (Asked::Quit | Asked::InputEnded) => {
                    let (end, why) = match asked {
                        Asked::Quit => (GameEnd::Quit, "Game abandoned"),
                        _ => (GameEnd::InputEnded, "The input ended: game abandoned"),
                    };
                    let count = moves.len();
                    let plural = if count == 1 { "" } else { "s" };
                    writeln!(out, "{why} after {count} move{plural}.")?;
                    return Ok(GameRecord { moves, end });
                }
            },
        };
        let wins = geometry.is_winning_column(&position, col);
        moves.push(col + 1);
        share(&moves);
        if wins {
            let cells = winning_cells(&moves, width, height);
            draw(out, options, &moves, &cells)?;
            let names: Vec<String> = cells.iter().map(|&(c, r)| super::cell_name(c, r)).collect();
            writeln!(
                out,
                "{} wins with move {} ({})!",
                NAMES[player],
                moves.len(),
                names.join(" ")
            )?;
            return Ok(GameRecord {
                moves,
                end: GameEnd::Win { player, cells },
            });
        }
        draw(out, options, &moves, &[])?;
        if moves.len() == width * height {
            writeln!(out, "Draw: the board is full.")?;
            return Ok(GameRecord {
                moves,
                end: GameEnd::Draw,
            });
        }
    }
}

/// What a human typed.
#[derive(Clone, Copy)]
enum Asked {
    Column(usize),
    Undo,
    Quit,
    InputEnded,
}

/// The longest answer read at a prompt; a longer line without an end is taken as the end
/// of the input.
const MAX_ANSWER_BYTES: usize = 1024;

/// Asks the human to move until the answer is a playable column, `u` or `q`.
fn ask_move<M: Bits>(
    options: &GameOptions,
    geometry: &Geometry<M>,
    position: &Position<M>,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> io::Result<Asked> {
    let player = position.moves() as usize % 2;
    loop {
        write!(
            out,
            "{} ({}), your move [1-{}, u = undo, q = quit]: ",
            NAMES[player],
            disc(player, options.colour),
            options.width
        )?;
        out.flush()?;
        // Bytes, not `read_line`: a line that is not UTF-8 is a wrong answer, asked
        // again, not the end of the game. At most a bounded answer is held: input with
        // no line end (`< /dev/zero`) would otherwise fill the memory.
        let mut bytes = Vec::new();
        let limit = MAX_ANSWER_BYTES as u64 + 1;
        if input.by_ref().take(limit).read_until(b'\n', &mut bytes)? == 0 {
            writeln!(out)?;
            return Ok(Asked::InputEnded);
        }
        if bytes.len() > MAX_ANSWER_BYTES && !bytes.ends_with(b"\n") {
            writeln!(
                out,
                "\nAn answer of over {MAX_ANSWER_BYTES} bytes without a line end is no move: \
                 the input is taken as ended."
            )?;
            return Ok(Asked::InputEnded);
        }
        let line = String::from_utf8_lossy(&bytes);
        let answer = line.trim();
        match answer {
            "u" | "U" | "undo" => return Ok(Asked::Undo),
            "q" | "Q" | "quit" => return Ok(Asked::Quit),
            _ => {}
        }
        match answer.parse::<usize>() {
            Ok(column) if (1..=options.width).contains(&column) => {
                if geometry.can_play(position, column - 1) {
                    return Ok(Asked::Column(column - 1));
                }
                writeln!(out, "Column {column} is full; pick another.")?;
            }
            _ => writeln!(
                out,
                "{} is not a column: type a number from 1 to {}.",
                crate::batch::Excerpt::quoted(answer),
                options.width
            )?,
        }
    }
}

/// Takes back the last move, and the computer's moves before it, so that a human is to
/// move again.
fn undo(
    moves: &mut Vec<usize>,
    opening: usize,
    players: &[PlayerKind; 2],
    out: &mut impl Write,
) -> io::Result<()> {
    let human_moves = (opening..moves.len())
        .filter(|i| players[i % 2] == PlayerKind::Human)
        .count();
    if human_moves == 0 {
        return writeln!(out, "Nothing to undo.");
    }
    // Back to the last human move, then take it back too.
    while players[(moves.len() - 1) % 2] != PlayerKind::Human {
        moves.pop();
    }
    moves.pop();
    writeln!(out, "Undone: back to move {}.", moves.len() + 1)
}

/// The cells of the winning line(s) through the last stone of `moves`.
fn winning_cells(moves: &[usize], width: usize, height: usize) -> Vec<(usize, usize)> {
    let grid = fill(moves, width, height);
    let winner = (moves.len() - 1) % 2;
    let mut stones = 0u128;
    for (c, column) in grid.iter().enumerate() {
        for (r, &cell) in column.iter().enumerate() {
            if cell == Some(winner) {
                stones |= 1 << (c * (height + 1) + r);
            }
        }
    }
    let col = moves[moves.len() - 1] - 1;
    let row = grid[col].iter().filter(|c| c.is_some()).count() - 1;
    let mut cells: Vec<(usize, usize)> = lines_through(stones, width, height, col, row)
        .into_iter()
        .flatten()
        .collect();
    cells.sort_unstable();
    cells.dedup();
    cells
}

/// Who holds each cell, column by column from the bottom.
fn fill(moves: &[usize], width: usize, height: usize) -> Vec<Vec<Option<usize>>> {
    let mut grid = vec![vec![None; height]; width];
    for (i, &column) in moves.iter().enumerate() {
        if let Some(cell) = grid[column - 1].iter_mut().find(|c| c.is_none()) {
            *cell = Some(i % 2);
        }
    }
    grid
}

/// Draws the board, top row first, with the cells of `highlight` marked.
fn draw(
    out: &mut impl Write,
    options: &GameOptions,
    moves: &[usize],
    highlight: &[(usize, usize)],
) -> io::Result<()> {
    let grid = fill(moves, options.width, options.height);
    let mut text = String::from("\n");
    for row in (0..options.height).rev() {
        text.push('|');
        for (col, column) in grid.iter().enumerate() {
            let marked = highlight.contains(&(col, row));
            text.push_str(&cell_text(column[row], marked, options.colour));
        }
        text.push_str("|\n");
    }
    text.push('+');
    text.push_str(&"---".repeat(options.width));
    text.push_str("+\n ");
    for col in 1..=options.width {
        text.push_str(&format!("{col:^3}"));
    }
    text.push('\n');
    out.write_all(text.as_bytes())
}

/// A player's disc as the board shows it.
fn disc(player: usize, colour: bool) -> String {
    if colour {
        format!("\x1b[1;{}m●\x1b[0m", FOREGROUND[player])
    } else {
        PLAIN[player].to_string()
    }
}

/// The ANSI foreground colours of Red and Yellow.
const FOREGROUND: [&str; 2] = ["31", "33"];

/// One cell, three characters wide: a disc, or `.` when empty; a winning disc is bracketed
/// (plain) or drawn on a white background (colour).
fn cell_text(owner: Option<usize>, marked: bool, colour: bool) -> String {
    match (owner, colour) {
        (None, _) => " . ".into(),
        (Some(p), false) if marked => format!("[{}]", PLAIN[p]),
        (Some(p), false) => format!(" {} ", PLAIN[p]),
        (Some(p), true) => {
            let bg = if marked { ";47" } else { "" };
            format!("\x1b[1;{}{bg}m ● \x1b[0m", FOREGROUND[p])
        }
    }
}
