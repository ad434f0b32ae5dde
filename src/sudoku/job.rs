//! `sudoku solve` on the batch runner: one record is one puzzle (and the datasets a `bench`
//! suite generates).

use serde::Deserialize;

use crate::batch::{
    push_csv_field, push_number, push_short, CsvRow, Excerpt, InputFormat, InputSpec, Job,
    JobError, Outcome, Record, RecordContent, Recycled, Value, Written,
};
use crate::budget::Meter;
use crate::puzzle::{read_keys, Answer, Puzzle, PuzzleError};

use super::{digit_text, Algorithm, Grid, LineResult, SearchResult, Solver, Status};

/// Solutions counted before stopping by default: 2 proves uniqueness.
pub const DEFAULT_LIMIT: u64 = 2;

/// Sudoku as a puzzle of the shared harness: `sudoku solve` over a corpus.
#[derive(Debug, Clone, Copy)]
pub struct SudokuPuzzle;

/// The settings of a Sudoku run besides the algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SolveSettings {
    /// Solutions counted before stopping ([`DEFAULT_LIMIT`]).
    pub limit: u64,
}

impl Default for SolveSettings {
    fn default() -> Self {
        SolveSettings {
            limit: DEFAULT_LIMIT,
        }
    }
}

impl Puzzle for SudokuPuzzle {
    type Settings = SolveSettings;
    type Job = SolveJob;

    const NAME: &'static str = "sudoku";
    const FOLDER: &'static str = "sudoku";
    const ALGORITHMS: &'static [&'static str] = &["dlx", "backtrack", "fast"];
    const ANSWER_COLUMNS: &'static [&'static str] = &["solution"];
    const EFFORT_COLUMN: Option<&'static str> = Some("guesses");
    const TAKES_EXTERNALS: bool = true;

    fn job(
        settings: &SolveSettings,
        algorithm: &str,
        inputs: &[InputSpec],
    ) -> Result<SolveJob, PuzzleError> {
        Self::check(settings)?;
        let algorithm: Algorithm = algorithm
            .parse()
            .map_err(|_| PuzzleError::unknown_algorithm::<Self>(algorithm))?;
        Ok(SolveJob {
            algorithm,
            limit: settings.limit,
            side: None,
            column: None,
            expected_column: None,
            with_expected: inputs.iter().any(|i| i.format == InputFormat::Csv),
        })
    }

    fn check(settings: &SolveSettings) -> Result<(), PuzzleError> {
        if settings.limit == 0 {
            return Err(PuzzleError::Settings {
                puzzle: Self::NAME,
                message: "limit must be at least 1".into(),
            });
        }
        Ok(())
    }

    fn generate(keys: &toml::Table) -> Result<Vec<u8>, PuzzleError> {
        read_keys::<Self, GeneratedSet>(keys)?.generate()
    }

    fn notes(settings: &SolveSettings) -> Vec<String> {
        if settings.limit == DEFAULT_LIMIT {
            Vec::new()
        } else {
            vec![format!("limit {}", settings.limit)]
        }
    }

    /// A Sudoku with several solutions is compared by status alone (each algorithm may
    /// find a different first solution), and so is every Sudoku when fewer than 2
    /// solutions are counted (`solved` then does not mean unique).
    fn answer(settings: &SolveSettings, status: &str, values: &[String]) -> Answer {
        let unique = status == "solved" && settings.limit >= 2;
        Answer {
            status: status.to_string(),
            value: unique.then(|| values.first().cloned().unwrap_or_default()),
        }
    }
}

/// Where a record keeps its puzzle and how big it is, as the command line takes them.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct PuzzleLocation {
    /// Grid side: 4, 9, 16, 25, 36, … 100 (default: inferred from each line's length,
    /// or its count of numbers).
    #[arg(long, value_name = "SIDE", value_parser = super::grid::parse_side)]
    pub size: Option<usize>,
    /// CSV column holding the puzzles (default: the first column).
    #[arg(long, value_name = "NAME")]
    pub column: Option<String>,
}

/// The settings of `sudoku solve`, as the command line takes them.
#[derive(Debug, Clone, clap::Args)]
pub struct SolveOptions {
    /// Solving algorithm.
    #[arg(long, value_enum, default_value_t = Algorithm::Fast)]
    pub algo: Algorithm,
    /// Count solutions up to N before stopping: 2 proves uniqueness, 1 stops at the first
    /// solution (and `solved` then does not mean unique).
    #[arg(long, default_value_t = DEFAULT_LIMIT, value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: u64,
    /// Where the puzzles are.
    #[command(flatten)]
    pub puzzle: PuzzleLocation,
    /// CSV column of expected solutions to compare with (default: a column named
    /// `solution` or `solutions`, if any).
    #[arg(long, value_name = "NAME")]
    pub expected_column: Option<String>,
}

impl SolveOptions {
    /// The job these settings describe over `inputs`: rows carry the expected solution
    /// when some input is CSV.
    pub fn job(self, inputs: &[InputSpec]) -> SolveJob {
        SolveJob {
            algorithm: self.algo,
            limit: self.limit,
            side: self.puzzle.size,
            column: self.puzzle.column,
            expected_column: self.expected_column,
            with_expected: inputs.iter().any(|i| i.format == InputFormat::Csv),
        }
    }
}

/// Solves every puzzle of a corpus and, for CSV inputs with a solutions column, compares
/// each solution found with the expected one.
#[derive(Debug, Clone)]
pub struct SolveJob {
    /// The algorithm.
    pub algorithm: Algorithm,
    /// Solutions counted before stopping (2 proves uniqueness).
    pub limit: u64,
    /// Grid side if forced (`--size`), else inferred per line.
    pub side: Option<usize>,
    /// CSV column holding the puzzle (default: the first).
    pub column: Option<String>,
    /// CSV column of expected solutions (default: one named `solution` or `solutions`).
    pub expected_column: Option<String>,
    /// Whether rows carry the `expected` column (some input is CSV).
    pub with_expected: bool,
}

/// Where a CSV input keeps the puzzle and the expected solution.
#[derive(Debug, Clone)]
pub struct SolveLayout {
    puzzle: Option<(usize, String)>,
    expected: Option<(usize, String)>,
}

impl SolveLayout {
    /// The CSV columns a job reads: the puzzle's and the expected solutions'.
    pub(super) fn read_columns(&self) -> Vec<usize> {
        [&self.puzzle, &self.expected]
            .into_iter()
            .flatten()
            .map(|(index, _)| *index)
            .collect()
    }
}

impl SolveJob {
    /// The text of `record`'s puzzle: its line, or its field in the puzzle column.
    pub(super) fn puzzle_text<'r>(
        &self,
        layout: &SolveLayout,
        record: &Record<'r>,
    ) -> Result<&'r str, JobError> {
        match (record.content, &layout.puzzle) {
            (RecordContent::Line(text), _) => Ok(text),
            (RecordContent::Fields(fields), Some((index, name))) => {
                let text = JobError::field(fields, *index, name)?.trim_ascii();
                if text.is_empty() {
                    Err(JobError::Invalid(format!(
                        "empty puzzle in column {}",
                        Excerpt::quoted(name)
                    )))
                } else {
                    Ok(text)
                }
            }
            (RecordContent::Fields(_), None) => Err(JobError::Invalid("no puzzle column".into())),
            (RecordContent::Unreadable(message), _) => {
                Err(JobError::Unreadable(message.to_string()))
            }
        }
    }
}

/// The state a [`SolveJob`] keeps on each worker thread.
#[derive(Debug)]
pub struct SolveWorker {
    solver: Solver,
    recycled: Recycled,
}

impl Job for SolveJob {
    type Layout = SolveLayout;
    type Worker = SolveWorker;

    fn columns(&self, _layout: &SolveLayout) -> Vec<String> {
        // Decided for the whole run, so that line and CSV inputs can be mixed.
        let mut columns = vec!["solutions", "guesses", "solution"];
        if self.with_expected {
            columns.push("expected");
        }
        columns.into_iter().map(String::from).collect()
    }

    fn statuses(&self) -> Vec<&'static str> {
        Status::ALL.iter().map(|s| s.name()).collect()
    }

    fn tallied_columns(&self) -> Vec<&'static str> {
        vec!["expected"]
    }

    fn settings(&self) -> Vec<(String, String)> {
        let mut settings = vec![
            ("algorithm".to_string(), self.algorithm.to_string()),
            ("limit".to_string(), self.limit.to_string()),
        ];
        // Options left at their defaults are not listed: summaries stay short, and a run
        // that set one differs from one that did not all the same.
        if let Some(side) = self.side {
            settings.push(("size".to_string(), side.to_string()));
        }
        if let Some(column) = &self.column {
            settings.push(("column".to_string(), column.clone()));
        }
        if let Some(column) = &self.expected_column {
            settings.push(("expected_column".to_string(), column.clone()));
        }
        if self.limit == 1 {
            settings.push((
                "note".to_string(),
                "--limit 1: 'solved' means a solution was found; uniqueness was not checked"
                    .to_string(),
            ));
        }
        settings
    }

    fn layout(
        &self,
        _input: &InputSpec,
        header: Option<&[String]>,
    ) -> Result<SolveLayout, JobError> {
        let Some(header) = header else {
            return Ok(SolveLayout {
                puzzle: None,
                expected: None,
            });
        };
        let puzzle = match &self.column {
            Some(name) => JobError::find_column(header, name)?,
            None => {
                // Any column holding a grid gives the row away as a record: a damaged
                // puzzle beside its solution would otherwise be taken for the names.
                for index in 0..header.len() {
                    JobError::refuse_record_as_header(
                        header,
                        index,
                        |field| Grid::from_line(field, None).is_ok(),
                        "quizzes,solutions (the puzzles first, or in the column --column names)",
                    )?;
                }
                0
            }
        };
        let expected = match &self.expected_column {
            Some(name) => Some(JobError::find_column(header, name)?),
            None => header.iter().enumerate().position(|(i, h)| {
                i != puzzle
                    && (h.eq_ignore_ascii_case("solution") || h.eq_ignore_ascii_case("solutions"))
            }),
        };
        let named = |index: usize| (index, header[index].clone());
        Ok(SolveLayout {
            puzzle: Some(named(puzzle)),
            expected: expected.map(named),
        })
    }

    fn read_columns(&self, layout: &SolveLayout) -> Vec<usize> {
        layout.read_columns()
    }

    fn new_worker(&self) -> SolveWorker {
        SolveWorker {
            solver: Solver::new(self.algorithm),
            recycled: Recycled::default(),
        }
    }

    fn recycle(&self, worker: &mut SolveWorker, outcome: Outcome) {
        worker.recycled.keep(outcome);
    }

    fn process(
        &self,
        worker: &mut SolveWorker,
        layout: &SolveLayout,
        record: &Record<'_>,
        meter: &mut Meter,
    ) -> Result<Outcome, JobError> {
        let text = self.puzzle_text(layout, record)?;
        let (grid, result) = self.solve(worker, layout, text, meter)?;
        self.outcome(worker, layout, record, &grid, result)
    }

    /// The row of a puzzle with a solution, written here; other records' rows are the
    /// runner's, from their outcome. Always inlined into the runner's loop: called, its
    /// result went back through memory and was copied at once with wider loads than its
    /// stores, a stalled store forwarding that was a quarter of the loop's samples.
    #[inline(always)]
    fn process_csv(
        &self,
        worker: &mut SolveWorker,
        layout: &SolveLayout,
        record: &Record<'_>,
        meter: &mut Meter,
        row: &mut Vec<u8>,
    ) -> Result<CsvRow, JobError> {
        let text = self.puzzle_text(layout, record)?;
        let mut line = [0u8; 81];
        if let Some(found) = self.solve_line(worker, text, meter, &mut line) {
            return self.line_row(worker, layout, record, text, found, &line, row);
        }
        if let Some(done) = self.solve_big_line(worker, layout, record, text, meter, row) {
            return done;
        }
        let (grid, result) = self.solve(worker, layout, text, meter)?;
        let (Some(solution), None) = (&result.first_solution, result.stopped) else {
            return self
                .outcome(worker, layout, record, &grid, result)
                .map(CsvRow::Outcome);
        };
        let counts = (result.status(), result.solutions, result.guesses);
        self.write_row(
            layout,
            record,
            counts,
            |row| solution.push_line_bytes(row),
            row,
        )
    }
}

/// The error of a solution that is not the one in column `name`.
/// Why `solution` (a line as [`Grid::to_line`] writes it, `None` if there is none) is
/// not `expected`, the text of column `name` (a grid of `side`, or of any size when
/// `None`): the text is not a grid, or the grids differ, first at the cell named.
fn differs(name: &str, side: Option<usize>, solution: Option<&[u8]>, expected: &str) -> String {
    let column = Excerpt::quoted(name);
    let expected_text = expected;
    let expected = match Grid::from_line(expected_text, side) {
        Ok(grid) => grid,
        Err(e) => return format!("column {column} is not a solution: {e}"),
    };
    let blanks = expected.cells().iter().filter(|&&value| value == 0).count();
    if blanks > 0 {
        let s = if blanks == 1 { "" } else { "s" };
        return format!("column {column} is not a solution: it has {blanks} blank{s}");
    }
    let solution = solution
        .and_then(|line| std::str::from_utf8(line).ok())
        .and_then(|line| Grid::from_line(line, None).ok());
    let Some(solution) = solution else {
        return format!("the solution differs from column {column}");
    };
    if solution.side() != expected.side() {
        return format!(
            "the solution differs from column {column}, a grid of {} cells, not {}",
            expected.cells().len(),
            solution.cells().len()
        );
    }
    let side = expected.side();
    // Digits as the expected grid writes them: as numbers if it is a line of numbers.
    let as_numbers = expected_text.trim().contains(char::is_whitespace);
    let digit = |d: u8| match as_numbers {
        true => d.to_string(),
        false => digit_text(d, side),
    };
    let (ours, theirs) = (solution.cells(), expected.cells());
    match ours.iter().zip(theirs).position(|(a, b)| a != b) {
        Some(i) => format!(
            "the solution differs from column {column} first at row {}, column {}: {}, expected {}",
            i / side + 1,
            i % side + 1,
            digit(ours[i]),
            digit(theirs[i])
        ),
        None => format!("the solution differs from column {column}"),
    }
}

impl SolveJob {
    /// What the solver found in the puzzle `text`, read as a [`Grid`].
    fn solve(
        &self,
        worker: &mut SolveWorker,
        layout: &SolveLayout,
        text: &str,
        meter: &mut Meter,
    ) -> Result<(Grid, SearchResult), JobError> {
        let grid = self.grid(layout, text)?;
        let result = worker.solver.solve_within(&grid, self.limit, meter);
        Ok((grid, result))
    }

    /// What the solver found in the puzzle `text` read as a line of `N` characters, its
    /// first solution's line written into `solution`; `None` where only a grid can be
    /// solved (see [`Solver::solve_line_within`]) or the line is not of the job's size.
    fn solve_line<const N: usize>(
        &self,
        worker: &mut SolveWorker,
        text: &str,
        meter: &mut Meter,
        solution: &mut [u8; N],
    ) -> Option<LineResult> {
        if self.side.is_some_and(|side| side * side != N) {
            return None;
        }
        let line = text.as_bytes().trim_ascii_end().try_into().ok()?;
        worker
            .solver
            .solve_line_within(line, self.limit, meter, solution)
    }

    /// The row of a 16×16 or 25×25 puzzle `text` solved as a line; `None` where only a
    /// grid can be solved. Kept out of line so that the 9×9 path, most records, compiles
    /// as it would without it: inlined, it cost that path 30 to 60 instructions a record
    /// (callgrind, 200,000 Kaggle lines and CSV rows).
    #[inline(never)]
    fn solve_big_line(
        &self,
        worker: &mut SolveWorker,
        layout: &SolveLayout,
        record: &Record<'_>,
        text: &str,
        meter: &mut Meter,
        row: &mut Vec<u8>,
    ) -> Option<Result<CsvRow, JobError>> {
        let mut line = [0u8; 256];
        if let Some(found) = self.solve_line(worker, text, meter, &mut line) {
            return Some(self.line_row(worker, layout, record, text, found, &line, row));
        }
        let mut line = [0u8; 625];
        let found = self.solve_line(worker, text, meter, &mut line)?;
        Some(self.line_row(worker, layout, record, text, found, &line, row))
    }

    /// The row of the puzzle `text` solved as a line: written here when a first solution
    /// was found (its line is `solution`) and the search was not stopped, else the
    /// runner's, from the outcome.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn line_row(
        &self,
        worker: &mut SolveWorker,
        layout: &SolveLayout,
        record: &Record<'_>,
        text: &str,
        found: LineResult,
        solution: &[u8],
        row: &mut Vec<u8>,
    ) -> Result<CsvRow, JobError> {
        if found.solutions == 0 || found.stopped.is_some() {
            let grid = self.grid(layout, text)?;
            // `solution` holds the first solution's line when one was found before a stop.
            let first_solution = std::str::from_utf8(solution)
                .ok()
                .filter(|_| found.solutions > 0)
                .and_then(|line| Grid::from_line(line, Some(grid.side())).ok());
            let result = SearchResult {
                solutions: found.solutions,
                first_solution,
                guesses: found.guesses,
                stopped: found.stopped,
            };
            return self
                .outcome(worker, layout, record, &grid, result)
                .map(CsvRow::Outcome);
        }
        let counts = (found.status(), found.solutions, found.guesses);
        let push_line = |row: &mut Vec<u8>| row.extend_from_slice(solution);
        self.write_row(layout, record, counts, push_line, row)
    }

    /// The puzzle `text` as a grid, or why it is not one.
    pub(super) fn grid(&self, layout: &SolveLayout, text: &str) -> Result<Grid, JobError> {
        Grid::from_line(text, self.side).map_err(|e| match &layout.puzzle {
            Some((_, name)) => JobError::Invalid(format!("column {}: {e}", Excerpt::quoted(name))),
            None => JobError::Invalid(e.to_string()),
        })
    }

    /// Writes the row of a puzzle solved as `counts` say (status, solutions, guesses),
    /// whose first solution's line `push_solution` writes, from `status` on. Always
    /// inlined: with the 16×16 and 25×25 lines as callers too, the compiler called it,
    /// which cost the 9×9 path about 30 instructions a record.
    #[inline(always)]
    fn write_row(
        &self,
        layout: &SolveLayout,
        record: &Record<'_>,
        (status, solutions, guesses): (Status, u64, u64),
        push_solution: impl FnOnce(&mut Vec<u8>),
        row: &mut Vec<u8>,
    ) -> Result<CsvRow, JobError> {
        let status = status.name();
        row.push(b',');
        push_short(status.as_bytes(), row);
        row.push(b',');
        push_number(solutions, row);
        row.push(b',');
        push_number(guesses, row);
        row.push(b',');
        let solution_at = row.len();
        push_solution(row);
        let mut error = None;
        let tally = match (self.with_expected, &layout.expected, record.content) {
            (false, _, _) => None,
            (true, Some((index, name)), RecordContent::Fields(fields)) => {
                let expected = JobError::field(fields, *index, name)?.trim_ascii();
                row.push(b',');
                // An empty cell expects nothing: a corpus may know only some solutions.
                if expected.is_empty() {
                    None
                } else {
                    let solution = &row[solution_at..row.len() - 1];
                    let verdict = if self.matches(solution, expected) {
                        "match"
                    } else {
                        error = Some(differs(name, self.side, Some(solution), expected));
                        "mismatch"
                    };
                    push_short(verdict.as_bytes(), row);
                    Some(verdict)
                }
            }
            (true, _, _) => {
                row.push(b',');
                None
            }
        };
        row.push(b',');
        if let Some(error) = &error {
            push_csv_field(error, row);
        }
        Ok(CsvRow::Written(Written {
            status,
            failed: error.is_some(),
            tally,
        }))
    }

    /// Whether `solution` (as [`Grid::to_line`] writes it) is the `expected` one: the
    /// text itself first, since an expected solution is nearly always written as ours is
    /// (parsing it cost as much as the puzzle's own parsing), then the grid it reads as.
    fn matches(&self, solution: &[u8], expected: &str) -> bool {
        solution == expected.as_bytes()
            || Grid::from_line(expected, self.side)
                .is_ok_and(|e| e.to_line().as_bytes() == solution)
    }

    /// The outcome of `grid`'s record, solved as `result` says.
    fn outcome(
        &self,
        worker: &mut SolveWorker,
        layout: &SolveLayout,
        record: &Record<'_>,
        grid: &Grid,
        result: SearchResult,
    ) -> Result<Outcome, JobError> {
        if let Some(over) = result.stopped {
            let mut values = vec![Value::Int(result.solutions), Value::Int(result.guesses)];
            // A solution found before the budget ran out is given, as a `multiple` row
            // gives its first: only its uniqueness is unknown.
            values.push(
                result
                    .first_solution
                    .as_ref()
                    .map_or(Value::Empty, |grid| Value::Text(grid.to_line())),
            );
            values.extend(self.with_expected.then_some(Value::Empty));
            return Ok(Outcome::over_budget(over, values));
        }
        let status = result.status();
        // Conflicting clues are looked for only once the puzzle proved unsolvable: every
        // solver reports them as no solution, and most puzzles have none.
        let mut error = if status == Status::Unsolvable {
            grid.find_conflict()
                .map_or_else(|| "no solution".to_string(), |c| c.to_string())
        } else {
            String::new()
        };
        let mut failed = status == Status::Unsolvable;
        let recycled = &mut worker.recycled;
        let solution = result.first_solution.as_ref().map(|grid| {
            let mut line = recycled.string();
            grid.push_line(&mut line);
            line
        });
        let verdict = match (self.with_expected, &layout.expected, record.content) {
            (false, _, _) => None,
            (true, Some((index, name)), RecordContent::Fields(fields)) => {
                let expected = JobError::field(fields, *index, name)?.trim_ascii();
                if expected.is_empty() {
                    // An empty cell expects nothing: a corpus may know only some solutions.
                    Some(Value::Empty)
                } else {
                    let solution = solution.as_deref().map(str::as_bytes);
                    let matches = solution.is_some_and(|s| self.matches(s, expected));
                    if !matches {
                        failed = true;
                        if error.is_empty() {
                            error = differs(name, self.side, solution, expected);
                        }
                    }
                    Some(Value::Text(recycled.text(if matches {
                        "match"
                    } else {
                        "mismatch"
                    })))
                }
            }
            (true, _, _) => Some(Value::Empty),
        };
        let mut values = recycled.values();
        values.push(Value::Int(result.solutions));
        values.push(Value::Int(result.guesses));
        values.push(solution.map_or(Value::Empty, Value::Text));
        values.extend(verdict);
        Ok(Outcome {
            status: status.name(),
            failed,
            error,
            values,
        })
    }
}

/// A generated dataset as a `bench` suite names it: the keys of `sudoku generate`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GeneratedSet {
    count: usize,
    seed: u64,
    #[serde(default = "nine")]
    size: usize,
    #[serde(default)]
    min_clues: usize,
    difficulty: Option<String>,
}

fn nine() -> usize {
    9
}

impl GeneratedSet {
    /// The puzzles, one per line (made on the current rayon pool).
    fn generate(&self) -> Result<Vec<u8>, PuzzleError> {
        use super::generate::{generate_batch, write_generated, Batch, Difficulty};
        let fail = |message: String| PuzzleError::Settings {
            puzzle: SudokuPuzzle::NAME,
            message,
        };
        let box_size = super::grid::box_size_of_side(self.size).map_err(|_| {
            fail(format!(
                "size must be 4, 9, 16, 25, 36, 49, 64, 81 or 100, not {}",
                self.size
            ))
        })?;
        let difficulty = match &self.difficulty {
            None => None,
            Some(name) => Some(
                <Difficulty as clap::ValueEnum>::from_str(name, false).map_err(|_| {
                    fail(format!(
                        "difficulty must be easy, medium or hard, not {name:?}"
                    ))
                })?,
            ),
        };
        let batch = Batch {
            count: self.count,
            seed: self.seed,
            box_size,
            min_clues: self.min_clues,
            difficulty,
        };
        let puzzles = generate_batch(&batch).map_err(|e| fail(e.to_string()))?;
        let mut out = Vec::new();
        write_generated(&mut out, &puzzles, false).expect("writing to memory cannot fail");
        Ok(out)
    }
}
