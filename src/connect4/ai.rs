//! Computer players: random, a heuristic minimax to a fixed depth, and perfect play.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::solve::{Bits, Book, Geometry, Position, Solver};

/// How a computer player chooses its moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Any open column, uniformly at random.
    Random,
    /// Minimax with alpha-beta to `depth` moves, scoring the leaves by open lines.
    Heuristic {
        /// Moves looked ahead (1 or more).
        depth: u32,
    },
    /// The solver: a move with the best exact score.
    Perfect,
}

/// A player's name that is not one of the [`Level`]s.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LevelError {
    /// A heuristic depth out of range.
    #[error("heuristic depth {0:?} is not a number from 1 to 12")]
    Depth(String),
    /// No such player.
    #[error("{0:?} is not a player: human, random, heuristic, heuristic:DEPTH or perfect")]
    Unknown(String),
}

impl FromStr for Level {
    type Err = LevelError;

    /// `random`, `heuristic` (depth 4), `heuristic:D`, or `perfect`.
    fn from_str(text: &str) -> Result<Self, LevelError> {
        let (name, depth) = match text.split_once(':') {
            Some((name, depth)) => (name, Some(depth)),
            None => (text, None),
        };
        match (name, depth) {
            ("random", None) => Ok(Level::Random),
            ("perfect", None) => Ok(Level::Perfect),
            ("heuristic", None) => Ok(Level::Heuristic { depth: 4 }),
            ("heuristic", Some(depth)) => match depth.parse::<u32>() {
                Ok(depth @ 1..=12) => Ok(Level::Heuristic { depth }),
                _ => Err(LevelError::Depth(depth.to_string())),
            },
            _ => Err(LevelError::Unknown(text.to_string())),
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Level::Random => f.write_str("random"),
            Level::Heuristic { depth } => write!(f, "heuristic:{depth}"),
            Level::Perfect => f.write_str("perfect"),
        }
    }
}

/// Points for an open line (four cells with no opposing stone) holding three stones.
const OPEN_THREE: i32 = 5;
/// Points for an open line holding two stones.
const OPEN_TWO: i32 = 2;
/// The value of a win, minus the plies it takes: above any sum of open lines.
const WIN: i32 = 1_000_000;

/// A computer player for one board size.
#[derive(Debug)]
pub struct Ai<M: Bits> {
    level: Level,
    geometry: Geometry<M>,
    rng: ChaCha8Rng,
    /// Every line of four cells on the board, for the heuristic.
    lines: Vec<M>,
    solver: Option<Box<Solver<M>>>,
    /// Positions with fewer stones than this are inside a weak book (see
    /// [`with_book`](Self::with_book)).
    weak_book_depth: u32,
}

impl<M: Bits> Ai<M> {
    /// A player of `level` for `width × height` boards; `seed` decides among equal moves
    /// (and every move of the random player). The perfect player uses a table of
    /// `table_mb` MiB.
    pub fn new(level: Level, width: usize, height: usize, seed: u64, table_mb: usize) -> Self {
        let geometry = Geometry::new(width, height);
        let lines = if matches!(level, Level::Heuristic { .. }) {
            lines_of_four(width, height)
        } else {
            Vec::new()
        };
        let solver =
            (level == Level::Perfect).then(|| Box::new(Solver::new(width, height, table_mb)));
        Ai {
            level,
            geometry,
            rng: ChaCha8Rng::seed_from_u64(seed),
            lines,
            solver,
            weak_book_depth: 0,
        }
    }

    /// A perfect player that takes scores from `book` (for the same board) when it holds
    /// them. With a weak book (win, draw or loss only), the player picks among the moves
    /// that keep the best result while the position's moves lead into the book (when every
    /// move loses, among those that do not let the opponent win at once), and plays for the
    /// fastest win (or the slowest loss) beyond it. Other players ignore the book.
    pub fn with_book(mut self, book: Arc<Book<M>>) -> Self {
        if let Some(solver) = &mut self.solver {
            if book.is_weak() {
                self.weak_book_depth = book.depth();
            }
            solver.set_book(book);
        }
        self
    }

    /// The player's level.
    pub fn level(&self) -> Level {
        self.level
    }

    /// The column (0-based) to play in `p`, which must be unfinished.
    pub fn choose(&mut self, p: &Position<M>) -> usize {
        let g = &self.geometry;
        let open: Vec<usize> = (0..g.width).filter(|&c| g.can_play(p, c)).collect();
        let best = match self.level {
            Level::Random => open,
            Level::Heuristic { depth } => {
                let mut best = Vec::new();
                let mut best_score = -WIN - 1;
                for &col in &open {
                    let score = if g.is_winning_column(p, col) {
                        WIN
                    } else {
                        let mut child = *p;
                        g.play_column(&mut child, col);
                        -self.minimax(&child, depth - 1, -WIN - 1, -best_score + 1)
                    };
                    if score > best_score {
                        best_score = score;
                        best.clear();
                    }
                    if score == best_score {
                        best.push(col);
                    }
                }
                best
            }
            Level::Perfect => {
                let solver = self.solver.as_mut().expect("a perfect player has a solver");
                let in_weak_book = p.moves() < self.weak_book_depth;
                let analysis = solver.analyze(p, in_weak_book);
                if in_weak_book && analysis.score < 0 {
                    // Every move loses, and a weak book cannot tell which loses slowest:
                    // at least none that lets the opponent win at once.
                    let safe = g.non_losing_moves(p);
                    let resisting: Vec<usize> = open
                        .iter()
                        .copied()
                        .filter(|&col| !(safe & g.column(col)).is_zero())
                        .collect();
                    if resisting.is_empty() {
                        open
                    } else {
                        resisting
                    }
                } else {
                    analysis.best_moves
                }
            }
        };
        *best
            .choose(&mut self.rng)
            .expect("an unfinished position has a move")
    }

    /// Negamax with alpha-beta to `depth` more moves; the value for the side to move.
    fn minimax(&self, p: &Position<M>, depth: u32, mut alpha: i32, beta: i32) -> i32 {
        let g = &self.geometry;
        if p.moves() == g.cells {
            return 0;
        }
        let open = (0..g.width).filter(|&c| g.can_play(p, c));
        if open.clone().any(|c| g.is_winning_column(p, c)) {
            return WIN - p.moves() as i32;
        }
        if depth == 0 {
            return self.evaluate(p);
        }
        let mut best = -WIN - 1;
        for col in open {
            let mut child = *p;
            g.play_column(&mut child, col);
            let score = -self.minimax(&child, depth - 1, -beta, -alpha);
            best = best.max(score);
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        best
    }

    /// Open lines of three and of two, for the side to move minus against it.
    fn evaluate(&self, p: &Position<M>) -> i32 {
        let mine = p.current();
        let theirs = p.current() ^ p.mask();
        self.lines
            .iter()
            .map(|&line| {
                let (m, t) = ((line & mine).count_ones(), (line & theirs).count_ones());
                let points = |n| match n {
                    3 => OPEN_THREE,
                    2 => OPEN_TWO,
                    _ => 0,
                };
                match (m, t) {
                    (m, 0) => points(m),
                    (0, t) => -points(t),
                    _ => 0,
                }
            })
            .sum()
    }
}

/// Every line of four cells on a `width × height` board, as masks in the board layout.
fn lines_of_four<M: Bits>(width: usize, height: usize) -> Vec<M> {
    let bit = |c: usize, r: usize| M::ONE << (c * (height + 1) + r) as u32;
    let mut lines = Vec::new();
    for c in 0..width as isize {
        for r in 0..height as isize {
            for (dc, dr) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                let (ec, er) = (c + 3 * dc, r + 3 * dr);
                if ec < 0 || er < 0 || ec >= width as isize || er >= height as isize {
                    continue;
                }
                let line = (0..4).fold(M::default(), |line, k| {
                    line | bit((c + k * dc) as usize, (r + k * dr) as usize)
                });
                lines.push(line);
            }
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_read_and_written() {
        for text in ["random", "perfect", "heuristic:4", "heuristic:1"] {
            assert_eq!(text.parse::<Level>().unwrap().to_string(), text);
        }
        assert_eq!("heuristic".parse(), Ok(Level::Heuristic { depth: 4 }));
        assert!("heuristic:0".parse::<Level>().is_err());
        assert!("clever".parse::<Level>().is_err());
    }

    #[test]
    fn lines_on_a_standard_board() {
        // 24 vertical, 21 horizontal, 12 + 12 diagonal.
        assert_eq!(lines_of_four::<u64>(7, 6).len(), 69);
    }

    #[test]
    fn heuristic_takes_a_win_and_blocks_a_threat() {
        let g = Geometry::<u64>::new(7, 6);
        let mut ai = Ai::<u64>::new(Level::Heuristic { depth: 2 }, 7, 6, 1, 1);
        // First player to move with three in the bottom row: it wins in column 4.
        let p = g.position(&[1, 1, 2, 2, 3, 3]).unwrap();
        assert_eq!(ai.choose(&p), 3);
        // Second player to move must block column 4.
        let p = g.position(&[1, 7, 2, 7, 3]).unwrap();
        assert_eq!(ai.choose(&p), 3);
    }
}
