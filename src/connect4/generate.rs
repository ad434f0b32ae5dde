//! Reproducible random games, played to their end, some broken on purpose.

use rand::Rng;

use super::board::{Board, MoveResult};

/// How generated games are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GameNotation {
    /// Column numbers.
    Digits,
    /// `D_Yellow, C_Red, …`.
    Colors,
}

/// A random game on a `width × height` board: random legal moves until a four or a full
/// board. Columns are 1-based.
pub fn random_game<R: Rng>(width: usize, height: usize, rng: &mut R) -> Vec<usize> {
    // u128 holds every supported board; generation is not the hot path.
    let mut board = Board::<u128>::new(width, height);
    let mut moves = Vec::new();
    loop {
        let open: Vec<usize> = (0..width).filter(|&c| !board.is_full(c)).collect();
        let col = open[rng.gen_range(0..open.len())];
        moves.push(col + 1);
        if board.play(col) != MoveResult::Placed {
            return moves;
        }
    }
}

/// A fault that shows only when the game is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteFault {
    /// Write the game as it is.
    None,
    /// Make this move's token unreadable.
    Garble(usize),
    /// Give this move the colour of the move before it.
    RepeatColor(usize),
}

/// Breaks a finished game in one of five ways: a move into a full column, the same colour
/// twice (colours notation only; otherwise a move after the end), a move after the end, an
/// unreadable token, or a game cut short.
pub fn break_game<R: Rng>(
    moves: &mut Vec<usize>,
    width: usize,
    height: usize,
    notation: GameNotation,
    rng: &mut R,
) -> WriteFault {
    match rng.gen_range(0..5) {
        0 => {
            // Into a full column, if one fills up before the end; else after the end.
            let mut counts = vec![0; width + 1];
            for (i, &col) in moves.iter().enumerate() {
                counts[col] += 1;
                if counts[col] == height && i + 1 < moves.len() {
                    moves.insert(i + 1, col);
                    return WriteFault::None;
                }
            }
            moves.push(rng.gen_range(1..=width));
            WriteFault::None
        }
        1 if notation == GameNotation::Colors && moves.len() >= 2 => {
            WriteFault::RepeatColor(rng.gen_range(1..moves.len()))
        }
        1 | 2 => {
            moves.push(rng.gen_range(1..=width));
            WriteFault::None
        }
        3 => WriteFault::Garble(rng.gen_range(0..moves.len())),
        _ => {
            let keep = rng.gen_range(0..moves.len());
            moves.truncate(keep.max(1));
            WriteFault::None
        }
    }
}

/// Writes moves in `notation`, with `fault` applied.
pub fn write_game(
    moves: &[usize],
    width: usize,
    notation: GameNotation,
    fault: WriteFault,
) -> String {
    let garble = match fault {
        WriteFault::Garble(at) => Some(at),
        _ => None,
    };
    match notation {
        GameNotation::Digits => {
            let tokens: Vec<String> = moves
                .iter()
                .enumerate()
                .map(|(i, col)| {
                    if Some(i) == garble {
                        "x".to_string()
                    } else {
                        col.to_string()
                    }
                })
                .collect();
            super::notation::digits_line(&tokens, width)
        }
        GameNotation::Colors => {
            let tokens: Vec<String> = moves
                .iter()
                .enumerate()
                .map(|(i, &col)| {
                    let turn = match fault {
                        WriteFault::RepeatColor(at) if at == i => i - 1,
                        _ => i,
                    };
                    let color = if turn % 2 == 0 { "Yellow" } else { "Red" };
                    if Some(i) == garble {
                        format!("?_{color}")
                    } else {
                        format!("{}_{color}", (b'A' + col as u8 - 1) as char)
                    }
                })
                .collect();
            tokens.join(", ")
        }
    }
}

/// What to generate: a file of random games, some broken on purpose (the settings of
/// `connect4 generate`).
#[derive(Debug, Clone, Copy, PartialEq, clap::Args)]
pub struct GameBatch {
    /// Number of games.
    #[arg(long, default_value_t = 1000)]
    pub count: usize,
    /// Random seed: the same seed gives the same games.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Columns (4 to 16; width × (height + 1) at most 128).
    #[arg(long, default_value_t = crate::connect4::DEFAULT_WIDTH)]
    pub width: usize,
    /// Rows (4 to 16).
    #[arg(long, default_value_t = crate::connect4::DEFAULT_HEIGHT)]
    pub height: usize,
    /// How to write the games.
    #[arg(long, value_enum, default_value_t = GameNotation::Digits)]
    pub notation: GameNotation,
    /// Share of games broken on purpose: a move into a full column, the same colour twice,
    /// a move after the end, an unreadable token, or a game cut short.
    #[arg(long, default_value_t = 0.0)]
    pub faults: f64,
}

/// Why a batch of games cannot be generated.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GameBatchError {
    /// The board is not supported.
    #[error(transparent)]
    Board(#[from] crate::connect4::BoardSizeError),
    /// A share outside 0 to 1.
    #[error("--faults is a share between 0 and 1, not {0}")]
    Faults(f64),
}

impl GameBatch {
    /// Checks the settings before anything is written.
    pub fn check(&self) -> Result<(), GameBatchError> {
        crate::connect4::board_fits(self.width, self.height)?;
        if !(0.0..=1.0).contains(&self.faults) {
            return Err(GameBatchError::Faults(self.faults));
        }
        Ok(())
    }

    /// Writes the games, one per line, to `out`; the settings must have passed
    /// [`check`](Self::check).
    pub fn write(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(self.seed);
        let (width, height) = (self.width, self.height);
        for _ in 0..self.count {
            let mut moves = random_game(width, height, &mut rng);
            let fault = if rng.gen_bool(self.faults) {
                break_game(&mut moves, width, height, self.notation, &mut rng)
            } else {
                WriteFault::None
            };
            writeln!(out, "{}", write_game(&moves, width, self.notation, fault))?;
        }
        Ok(())
    }
}
