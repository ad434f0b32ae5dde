//! Generating puzzles with exactly one solution, rated by the search effort they need.

use std::io::{self, Write};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;

use super::{Algorithm, Grid, Solver, Status};
use crate::budget::{Budget, Meter};

/// How much searching a puzzle needs, measured by the exact-cover solver's guesses (options
/// tried where two or more remained).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Difficulty {
    /// Solved by forced moves alone (no guess).
    Easy,
    /// One to five guesses.
    Medium,
    /// Six guesses or more.
    Hard,
}

impl Difficulty {
    /// The class of a puzzle that took `guesses` guesses to solve and prove unique.
    pub fn of_guesses(guesses: u64) -> Self {
        match guesses {
            0 => Difficulty::Easy,
            1..=5 => Difficulty::Medium,
            _ => Difficulty::Hard,
        }
    }

    /// The name used on the command line and in files.
    pub fn name(self) -> &'static str {
        match self {
            Difficulty::Easy => "easy",
            Difficulty::Medium => "medium",
            Difficulty::Hard => "hard",
        }
    }
}

/// A generated puzzle with its solution and rating.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generated {
    /// The puzzle.
    pub puzzle: Grid,
    /// Its one solution.
    pub solution: Grid,
    /// Guesses the exact-cover solver needed to solve it and prove it unique (past
    /// 25×25, counted up to [`RATING_CAP_LARGE`]).
    pub guesses: u64,
}

/// What to generate: a batch of puzzles from one seed (the settings of `sudoku generate`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::Args)]
pub struct Batch {
    /// Number of puzzles.
    #[arg(long, default_value_t = 100)]
    pub count: usize,
    /// Random seed: the same seed gives the same puzzles, whatever the number of threads.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Boxes of `box_size × box_size`; on the command line, `--size` gives the grid side.
    #[arg(long = "size", value_name = "SIDE", default_value = "9", value_parser = super::grid::parse_box_size, help = "Grid side: 4, 9, 16, 25, 36, 49, 64, 81 or 100")]
    pub box_size: usize,
    /// Stop removing clues at this many.
    #[arg(long, default_value_t = 0, value_name = "K")]
    pub min_clues: usize,
    /// Keep only puzzles of this difficulty (rated by the exact-cover solver's guesses).
    #[arg(long, value_enum)]
    pub difficulty: Option<Difficulty>,
}

impl Batch {
    /// An error if the settings cannot make a puzzle: more clues asked for than the grid
    /// has cells (as many gives full grids).
    pub fn check(&self) -> Result<(), GenerateError> {
        let side = self.box_size * self.box_size;
        match self.min_clues > side * side {
            true => Err(GenerateError::TooManyClues {
                min_clues: self.min_clues,
                cells: side * side,
                side,
            }),
            false => Ok(()),
        }
    }
}

/// Puzzles of boxes `box_size` made for a difficulty, at most, before giving up on one:
/// 1,000 up to 16×16, where a puzzle takes at most a fraction of a second, and 100 from
/// 25×25 on, where it takes seconds (so that a difficulty out of reach is told within
/// minutes, not hours).
pub fn attempts(box_size: usize) -> usize {
    if box_size <= 4 {
        1000
    } else {
        100
    }
}

/// Guesses at which the rating of a grid past 25×25 stops counting: a puzzle that the
/// exact-cover search alone finds hard can take it hundreds of millions of guesses
/// (minutes) to prove unique, where the puzzle itself was made in seconds. Such a
/// puzzle is rated hard with this many guesses.
pub const RATING_CAP_LARGE: u64 = 1_000_000;

/// Why a batch could not be generated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GenerateError {
    /// No puzzle of the difficulty asked for came in [`attempts`] tries.
    #[error("puzzle {number}: no {} puzzle in {attempts} attempts; try another difficulty or --min-clues", difficulty.map_or("", Difficulty::name))]
    NoneOfItsDifficulty {
        /// The 1-based number of the puzzle that could not be made.
        number: usize,
        /// Puzzles made for it.
        attempts: usize,
        /// The difficulty asked for.
        difficulty: Option<Difficulty>,
    },
    /// More clues asked for than the grid has cells.
    #[error("--min-clues {min_clues} is more than the {cells} cells of a {side}×{side} grid")]
    TooManyClues {
        /// The clues asked for.
        min_clues: usize,
        /// The grid's cells.
        cells: usize,
        /// The grid's side.
        side: usize,
    },
}

/// Puzzles of boxes `box_size` made at a time by [`generate_each`]: enough to keep every
/// thread busy, few enough that a large `--count` streams out instead of being held
/// whole, and that each block is written within seconds (a 9×9 puzzle takes well under a
/// millisecond, a 16×16 one about 0.1 s, a minimal 25×25 one minutes).
fn block_size(box_size: usize) -> usize {
    match box_size {
        ..=3 => 4096,
        4 => 4 * rayon::current_num_threads(),
        _ => rayon::current_num_threads(),
    }
}

/// Generates `batch` on the current rayon pool. Puzzle `i` comes from its own stream of
/// the seed, so the puzzles do not depend on the number of threads.
pub fn generate_batch(batch: &Batch) -> Result<Vec<Generated>, GenerateError> {
    let mut puzzles = Vec::new();
    generate_each(batch, None, |block| {
        puzzles.extend_from_slice(block);
        Ok::<(), GenerateError>(())
    })?;
    Ok(puzzles)
}

/// Generates `batch` on the current rayon pool a block at a time, handing each block to
/// `take` in order before the next is made; the same puzzles as [`generate_batch`].
///
/// Once `stop` is set (Ctrl-C), the searches end within a few thousand nodes: the
/// puzzles of the block finished before the first one cut short are handed to `take`,
/// and the generation ends without an error (the caller reads `stop` to tell).
pub fn generate_each<E: From<GenerateError>>(
    batch: &Batch,
    stop: Option<&Arc<AtomicBool>>,
    take: impl FnMut(&[Generated]) -> Result<(), E>,
) -> Result<(), E> {
    generate_in_blocks(batch, block_size(batch.box_size), stop, take)
}

/// [`generate_each`] with blocks of `block` puzzles.
fn generate_in_blocks<E: From<GenerateError>>(
    batch: &Batch,
    block: usize,
    stop: Option<&Arc<AtomicBool>>,
    mut take: impl FnMut(&[Generated]) -> Result<(), E>,
) -> Result<(), E> {
    let meter = || match stop {
        Some(stop) => Meter::stoppable(Budget::UNLIMITED, Arc::clone(stop)),
        None => Meter::unlimited(),
    };
    batch.check()?;
    let mut start = 0;
    while start < batch.count {
        let end = start + block.min(batch.count - start);
        let block: Vec<Made> = (start..end)
            .into_par_iter()
            .map(|i| generate_one(batch, i, &mut meter()))
            .collect();
        let mut made = Vec::with_capacity(block.len());
        for (i, generated) in (start..end).zip(block) {
            match generated {
                Made::Puzzle(puzzle) => made.push(*puzzle),
                Made::Stopped => return take(&made),
                Made::NoneOfItsDifficulty => {
                    return Err(GenerateError::NoneOfItsDifficulty {
                        number: i + 1,
                        attempts: attempts(batch.box_size),
                        difficulty: batch.difficulty,
                    }
                    .into())
                }
            }
        }
        take(&made)?;
        start = end;
    }
    Ok(())
}

/// What came of making one puzzle of a batch.
enum Made {
    /// Boxed: a grid and its solution are large beside the other two.
    Puzzle(Box<Generated>),
    /// No puzzle of the batch's difficulty in [`attempts`].
    NoneOfItsDifficulty,
    /// The meter stopped the search (Ctrl-C).
    Stopped,
}

/// Puzzle `i` of `batch`, its searches counted by `meter`.
fn generate_one(batch: &Batch, i: usize, meter: &mut Meter) -> Made {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(batch.seed);
    rng.set_stream(i as u64);
    for _ in 0..attempts(batch.box_size) {
        let Some(generated) = generate_within(batch.box_size, batch.min_clues, &mut rng, meter)
        else {
            return Made::Stopped;
        };
        let class = Difficulty::of_guesses(generated.guesses);
        if batch.difficulty.is_none_or(|wanted| wanted == class) {
            return Made::Puzzle(Box::new(generated));
        }
    }
    Made::NoneOfItsDifficulty
}

/// Writes the CSV header of [`write_generated`]'s rows.
pub fn write_generated_header(out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "puzzle,solution,clues,guesses,difficulty")
}

/// Writes `puzzles` one per line, or as CSV (`puzzle,solution,clues,guesses,difficulty`).
pub fn write_generated(out: &mut dyn Write, puzzles: &[Generated], csv: bool) -> io::Result<()> {
    if csv {
        write_generated_header(out)?;
    }
    write_generated_rows(out, puzzles, csv)
}

/// [`write_generated`] without the CSV header, for puzzles written a block at a time.
pub fn write_generated_rows(
    out: &mut dyn Write,
    puzzles: &[Generated],
    csv: bool,
) -> io::Result<()> {
    for generated in puzzles {
        if csv {
            writeln!(
                out,
                "{},{},{},{},{}",
                generated.puzzle,
                generated.solution,
                generated.puzzle.clue_count(),
                generated.guesses,
                Difficulty::of_guesses(generated.guesses).name()
            )?;
        } else {
            writeln!(out, "{}", generated.puzzle)?;
        }
    }
    Ok(())
}

/// A random full grid with boxes of `box_size × box_size`: a valid pattern grid shuffled by
/// the transformations that keep a grid valid — relabelling digits, permuting rows within
/// bands, bands, columns within stacks, stacks, and transposing.
pub fn random_solution<R: Rng>(box_size: usize, rng: &mut R) -> Grid {
    let n = box_size;
    let side = n * n;
    let shuffled = |rng: &mut R| {
        let mut order: Vec<usize> = (0..n).collect();
        order.shuffle(rng);
        order
    };
    // Rows: a random band order, and a random row order inside each band; same for columns.
    let lines = |rng: &mut R| -> Vec<usize> {
        let bands = shuffled(rng);
        bands
            .iter()
            .flat_map(|&band| shuffled(rng).into_iter().map(move |row| band * n + row))
            .collect()
    };
    let rows = lines(rng);
    let cols = lines(rng);
    let mut digits: Vec<u8> = (1..=side as u8).collect();
    digits.shuffle(rng);
    let transpose = rng.gen_bool(0.5);
    let mut grid = Grid::empty(box_size).expect("callers pass a supported box size");
    for (r, &pr) in rows.iter().enumerate() {
        for (c, &pc) in cols.iter().enumerate() {
            let pattern = (n * (pr % n) + pr / n + pc) % side;
            let (row, col) = if transpose { (c, r) } else { (r, c) };
            grid.set(row, col, digits[pattern]);
        }
    }
    grid
}

/// A puzzle with exactly one solution: a random full grid, then its cells blanked in random
/// order wherever the puzzle stays uniquely solvable, down to `min_clues` clues at the least.
/// With `min_clues` 0 the puzzle is minimal: blanking any clue would give it a second
/// solution (a clue kept once stays needed, as blanking others only adds solutions).
///
/// Uniqueness is checked by `fast` from 16×16 on, where the exact-cover solver is far
/// slower; on smaller grids by the exact-cover solver, whose reused matrix the rating
/// then comes from, as in the committed 9×9 datasets. The rating is always that solver's
/// guesses.
pub fn generate<R: Rng>(box_size: usize, min_clues: usize, rng: &mut R) -> Generated {
    generate_within(box_size, min_clues, rng, &mut Meter::unlimited())
        .expect("a meter without a budget or a stop flag never stops a search")
}

/// [`generate`], its searches counted by `meter`: none once the meter stops one (its
/// stop flag set), so that a large grid's generation ends within moments of a Ctrl-C
/// instead of after its hundreds of uniqueness searches.
pub fn generate_within<R: Rng>(
    box_size: usize,
    min_clues: usize,
    rng: &mut R,
    meter: &mut Meter,
) -> Option<Generated> {
    let solution = random_solution(box_size, rng);
    let side = solution.side();
    let mut solver = Solver::new(if box_size >= 4 {
        Algorithm::Fast
    } else {
        Algorithm::Dlx
    });
    let mut puzzle = solution.clone();
    let mut cells: Vec<usize> = (0..side * side).collect();
    cells.shuffle(rng);
    let mut clues = side * side;
    for cell in cells {
        if clues <= min_clues {
            break;
        }
        // Searches that need no guess never look at the stop flag.
        if meter.is_interrupted() {
            return None;
        }
        let (row, col) = (cell / side, cell % side);
        let value = puzzle.get(row, col);
        puzzle.set(row, col, 0);
        let searched = solver.solve_within(&puzzle, 2, meter);
        if searched.stopped.is_some() {
            return None;
        }
        if searched.status() == Status::Solved {
            clues -= 1;
        } else {
            puzzle.set(row, col, value);
        }
    }
    if solver.algorithm() != Algorithm::Dlx {
        solver = Solver::new(Algorithm::Dlx);
    }
    let guesses = if box_size > super::big::LARGEST_BOX {
        let (rated, capped) = meter.pausing_after(RATING_CAP_LARGE, |meter| {
            solver.solve_within(&puzzle, 2, meter)
        });
        match (capped, rated.stopped) {
            (true, _) => RATING_CAP_LARGE,
            (false, None) => rated.guesses,
            (false, Some(_)) => return None,
        }
    } else {
        let rated = solver.solve_within(&puzzle, 2, meter);
        if rated.stopped.is_some() {
            return None;
        }
        rated.guesses
    };
    Some(Generated {
        puzzle,
        solution,
        guesses,
    })
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::sudoku::check_solution;

    #[test]
    fn puzzles_made_a_block_at_a_time_are_the_same_puzzles() {
        let batch = Batch {
            count: 10,
            seed: 7,
            box_size: 3,
            min_clues: 0,
            difficulty: None,
        };
        let whole = generate_batch(&batch).unwrap();
        let mut blocks = Vec::new();
        let mut joined = Vec::new();
        generate_in_blocks(&batch, 3, None, |block| {
            blocks.push(block.len());
            joined.extend_from_slice(block);
            Ok::<(), GenerateError>(())
        })
        .unwrap();
        assert_eq!(blocks, [3, 3, 3, 1]);
        assert_eq!(joined, whole);
        assert_eq!(whole.len(), 10);
    }

    #[test]
    fn more_clues_than_cells_is_an_error_and_as_many_gives_full_grids() {
        let batch = |min_clues| Batch {
            count: 2,
            seed: 3,
            box_size: 2,
            min_clues,
            difficulty: None,
        };
        assert_eq!(
            generate_batch(&batch(17)),
            Err(GenerateError::TooManyClues {
                min_clues: 17,
                cells: 16,
                side: 4
            })
        );
        let full = generate_batch(&batch(16)).unwrap();
        assert_eq!(full.len(), 2);
        for generated in &full {
            assert_eq!(generated.puzzle, generated.solution);
            assert!(check_solution(&generated.puzzle, &generated.solution).is_ok());
        }
    }

    #[test]
    fn a_large_puzzle_hard_for_exact_cover_is_rated_at_the_cap() {
        // The first 36×36 puzzle of 700 clues of seed 21 takes exact cover alone hundreds
        // of millions of guesses to prove unique; `fast` proves it in moments.
        let batch = Batch {
            count: 1,
            seed: 21,
            box_size: 6,
            min_clues: 700,
            difficulty: None,
        };
        let made = generate_batch(&batch).unwrap();
        let [generated] = made.as_slice() else {
            panic!("{} puzzles", made.len())
        };
        assert_eq!(generated.guesses, RATING_CAP_LARGE);
        assert_eq!(generated.puzzle.clue_count(), 700);
        let result = Solver::new(Algorithm::Fast).solve(&generated.puzzle, 2);
        assert_eq!(result.status(), Status::Solved);
        assert_eq!(result.first_solution.as_ref(), Some(&generated.solution));
        check_solution(&generated.puzzle, &generated.solution).unwrap();
    }

    #[test]
    fn random_solutions_are_valid_grids_of_every_size() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for box_size in 2..=5 {
            let grid = random_solution(box_size, &mut rng);
            assert!(grid.is_full());
            check_solution(&grid, &grid).unwrap();
        }
    }

    #[test]
    fn generated_puzzles_are_unique_by_another_algorithm() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for _ in 0..20 {
            let generated = generate(3, 0, &mut rng);
            let result = Solver::new(Algorithm::Backtrack).solve(&generated.puzzle, 2);
            assert_eq!(result.status(), Status::Solved);
            assert_eq!(result.first_solution.as_ref(), Some(&generated.solution));
            assert!(generated.puzzle.clue_count() < 40);
        }
        let small = generate(2, 0, &mut rng);
        assert_eq!(
            Solver::new(Algorithm::Backtrack)
                .solve(&small.puzzle, 2)
                .status(),
            Status::Solved
        );
    }
}
