use super::*;

const SEED1: &str =
    "004001700080020000200070000000503078005000400960104000000050009000010060001700200";
const SEED1_SOLUTION: &str =
    "594831726783426915216975834142593678835267491967184352378652149429318567651749283";
const SEED2: &str =
    "800000000003600000070090200050007000000045700000100030001000068008500010090000400";
const SEED2_SOLUTION: &str =
    "812753649943682175675491283154237896369845721287169534521974368438526917796318452";

fn solve_all(line: &str, limit: u64) -> [SearchResult; 3] {
    let grid = Grid::from_line(line, None).unwrap();
    Algorithm::ALL.map(|algorithm| {
        let result = Solver::new(algorithm).solve(&grid, limit);
        if let Some(solution) = &result.first_solution {
            check_solution(&grid, solution).unwrap();
        }
        result
    })
}

#[test]
fn seed_puzzles_have_their_published_solutions() {
    for (puzzle, solution) in [(SEED1, SEED1_SOLUTION), (SEED2, SEED2_SOLUTION)] {
        for result in solve_all(puzzle, 2) {
            assert_eq!(result.status(), Status::Solved);
            assert_eq!(result.first_solution.unwrap().to_line(), solution);
        }
    }
}

#[test]
fn empty_grid_has_multiple_solutions_and_limit_one_stops_at_one() {
    let empty = ".".repeat(81);
    for result in solve_all(&empty, 2) {
        assert_eq!(result.status(), Status::Multiple);
        assert_eq!(result.solutions, 2);
    }
    for result in solve_all(&empty, 1) {
        assert_eq!(result.status(), Status::Solved);
    }
    // 4×4: exactly 288 grids, with either algorithm.
    for result in solve_all(&".".repeat(16), 1000) {
        assert_eq!(result.solutions, 288);
    }
}

#[test]
fn full_and_nearly_full_grids() {
    for result in solve_all(SEED1_SOLUTION, 2) {
        assert_eq!(result.status(), Status::Solved);
        assert_eq!(result.first_solution.unwrap().to_line(), SEED1_SOLUTION);
    }
    let mut one_missing = SEED1_SOLUTION.to_string();
    one_missing.replace_range(40..41, ".");
    let [dlx, backtrack, fast] = solve_all(&one_missing, 2);
    for result in [&dlx, &backtrack, &fast] {
        assert_eq!(result.status(), Status::Solved);
        assert_eq!(
            result.first_solution.as_ref().unwrap().to_line(),
            SEED1_SOLUTION
        );
    }
    // One forced cell: no guess for exact cover or the bitset solver, one digit placed
    // by backtracking.
    assert_eq!(dlx.guesses, 0);
    assert_eq!(fast.guesses, 0);
    assert_eq!(backtrack.guesses, 1);
}

#[test]
fn conflicting_clues_are_unsolvable() {
    let mut conflict = SEED1.to_string();
    conflict.replace_range(8..9, "4");
    for result in solve_all(&conflict, 2) {
        assert_eq!(result.status(), Status::Unsolvable);
        assert_eq!(result.first_solution, None);
    }
}

#[test]
fn a_puzzle_with_no_solution_but_no_direct_conflict() {
    // Row 1 leaves r1c9 for 9 only, but column 9 already holds a 9.
    let mut line = "12345678.".to_string() + &".".repeat(72);
    line.replace_range(80..81, "9");
    let grid = Grid::from_line(&line, None).unwrap();
    assert_eq!(grid.find_conflict(), None);
    for result in solve_all(&line, 2) {
        assert_eq!(result.status(), Status::Unsolvable);
    }
}

#[test]
fn sixteen_and_twenty_five_grids_are_solved_and_checked() {
    // Take a known valid pattern grid, blank out a fraction of the cells, and solve it.
    for n in [4usize, 5] {
        let side = n * n;
        let full = pattern_grid(n);
        check_solution(&full, &full).unwrap();
        // Blank cells in a scrambled order, keeping a blank only while the puzzle stays
        // uniquely solvable, until 45% of the cells are blank.
        let mut solver = Solver::new(Algorithm::Dlx);
        let mut puzzle = full.clone();
        let cells = side * side;
        let mut blanks = 0;
        for i in 0..cells {
            let cell = (i * 7919 + 13) % cells;
            let keep = puzzle.get(cell / side, cell % side);
            puzzle.set(cell / side, cell % side, 0);
            if solver.solve(&puzzle, 2).status() == Status::Solved {
                blanks += 1;
            } else {
                puzzle.set(cell / side, cell % side, keep);
            }
            if blanks * 100 >= cells * 45 {
                break;
            }
        }
        assert!(blanks * 100 >= cells * 45, "{blanks} blanks of {cells}");
        let result = solver.solve(&puzzle, 2);
        assert_eq!(result.status(), Status::Solved);
        assert_eq!(result.first_solution.as_ref(), Some(&full));
        // `fast` solves other sizes than 9×9 with exact cover.
        assert_eq!(Solver::new(Algorithm::Fast).solve(&puzzle, 2), result);
        check_solution(&puzzle, result.first_solution.as_ref().unwrap()).unwrap();
        // Round trip through the line format.
        let parsed = Grid::from_line(&puzzle.to_line(), None).unwrap();
        assert_eq!(parsed, puzzle);
    }
}

/// The pattern grid of boxes `n`: a valid full grid of every size.
fn pattern_grid(n: usize) -> Grid {
    let side = n * n;
    let mut full = Grid::empty(n).unwrap();
    for row in 0..side {
        for col in 0..side {
            let value = (n * (row % n) + row / n + col) % side;
            full.set(row, col, value as u8 + 1);
        }
    }
    full
}

#[test]
fn grids_from_36x36_to_100x100_agree_across_algorithms() {
    for n in [6usize, 7, 10] {
        let side = n * n;
        let cells = side * side;
        let full = pattern_grid(n);
        check_solution(&full, &full).unwrap();
        // A few blanks, so that the textbook backtracking stays quick; the pattern grid's
        // rectangles of digits make some of these puzzles multiple.
        let mut puzzle = full.clone();
        for i in 0..2 * side {
            let cell = (i * 7919 + 13) % cells;
            puzzle.set(cell / side, cell % side, 0);
        }
        let results = Algorithm::ALL.map(|algorithm| {
            let result = Solver::new(algorithm).solve(&puzzle, 2);
            let solution = result.first_solution.as_ref().expect("a solution");
            check_solution(&puzzle, solution).unwrap_or_else(|e| panic!("{algorithm}: {e}"));
            result
        });
        let [dlx, backtrack, fast] = &results;
        assert_eq!(dlx.solutions, backtrack.solutions, "{side}×{side}");
        // `fast` solves grids past 25×25 with exact cover.
        assert_eq!(fast, dlx, "{side}×{side}");
        // Row 1 leaves its last cell for the largest digit only, which the last column
        // already holds: no solution, though no two clues conflict.
        let mut broken = Grid::empty(n).unwrap();
        for col in 0..side - 1 {
            broken.set(0, col, col as u8 + 1);
        }
        broken.set(side - 1, side - 1, side as u8);
        assert_eq!(broken.find_conflict(), None);
        for algorithm in Algorithm::ALL {
            let result = Solver::new(algorithm).solve(&broken, 2);
            assert_eq!(
                result.status(),
                Status::Unsolvable,
                "{algorithm} {side}×{side}"
            );
        }
        // An empty grid has many solutions (exact cover finds two at once up to 49×49;
        // on an empty 100×100 grid it meets dead ends for minutes).
        let algorithms = if n <= 7 {
            [Algorithm::Dlx, Algorithm::Fast].as_slice()
        } else {
            &[]
        };
        for &algorithm in algorithms {
            let result = Solver::new(algorithm).solve(&Grid::empty(n).unwrap(), 2);
            assert_eq!(
                result.status(),
                Status::Multiple,
                "{algorithm} {side}×{side}"
            );
            check_solution(&Grid::empty(n).unwrap(), &result.first_solution.unwrap()).unwrap();
        }
        // Round trip through the line format, as numbers.
        assert!(puzzle.to_line().contains(' '));
        assert_eq!(Grid::from_line(&puzzle.to_line(), None).unwrap(), puzzle);
    }
}
