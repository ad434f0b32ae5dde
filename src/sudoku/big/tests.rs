use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::search::Node;
use super::shape::{Box4, Box5};
use super::*;
use crate::budget::{Budget, OverBudget};
use crate::sudoku::generate::{generate, random_solution};
use crate::sudoku::{check_solution, Algorithm, Solver, Status};

/// Solves `grid` with this solver and with `dlx`, checks every solution found with the
/// independent checker, and asserts that both agree on the count (up to `limit`) and,
/// for a unique solution (proved with a limit of 2 or more), on the solution.
fn assert_agrees_with_dlx(solver: &mut BigSolver, grid: &Grid, limit: u64) -> SearchResult {
    let ours = solver.solve(grid, limit, &mut Meter::unlimited());
    let theirs = Solver::new(Algorithm::Dlx).solve(grid, limit);
    assert_eq!(ours.solutions, theirs.solutions, "{grid}");
    if let Some(solution) = &ours.first_solution {
        check_solution(grid, solution).unwrap_or_else(|e| panic!("{grid}: {e}"));
    }
    assert_eq!(ours.first_solution.is_some(), ours.solutions > 0);
    if ours.solutions == 1 && limit >= 2 {
        assert_eq!(ours.first_solution, theirs.first_solution, "{grid}");
    }
    ours
}

/// A full grid with `blanks` random cells blanked and, with probability `rewrite`, one
/// random cell (blank or not) set to a random digit: solvable with one or several
/// solutions, or (after the rewrite) often not.
fn random_partial(box_size: usize, blanks: usize, rewrite: f64, rng: &mut ChaCha8Rng) -> Grid {
    let mut grid = random_solution(box_size, rng);
    let side = grid.side();
    for _ in 0..blanks {
        grid.set(rng.gen_range(0..side), rng.gen_range(0..side), 0);
    }
    if rng.gen_bool(rewrite) {
        let digit = rng.gen_range(1..=side as u8);
        grid.set(rng.gen_range(0..side), rng.gen_range(0..side), digit);
    }
    grid
}

#[test]
fn generated_puzzles_agree_with_dlx_on_every_size() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut solver = BigSolver::new();
    // Minimal puzzles up to 16×16; 25×25 ones stop at 380 clues (minimal ones take
    // minutes to make).
    for (box_size, count, min_clues) in [(2, 50, 0), (3, 30, 0), (4, 6, 0), (5, 3, 380)] {
        for _ in 0..count {
            let generated = generate(box_size, min_clues, &mut rng);
            let result = assert_agrees_with_dlx(&mut solver, &generated.puzzle, 2);
            assert_eq!(result.status(), Status::Solved);
            assert_eq!(result.first_solution, Some(generated.solution));
        }
    }
}

/// Random partial grids of each `(box size, count, blanks)`, each solved with limits 1,
/// 2 and 5 and checked against `dlx` ([`assert_agrees_with_dlx`]); adds each grid's
/// verdict under limit 2 to `seen` (in [`Status::ALL`]'s order).
fn agree_on_random_partials(
    solver: &mut BigSolver,
    sizes: &[(usize, usize, std::ops::Range<usize>)],
    rng: &mut ChaCha8Rng,
    seen: &mut [u32; 3],
) {
    for (box_size, count, blanks) in sizes {
        for _ in 0..*count {
            let blanks = rng.gen_range(blanks.clone());
            let grid = random_partial(*box_size, blanks, 0.4, rng);
            for limit in [1, 2, 5] {
                let result = assert_agrees_with_dlx(solver, &grid, limit);
                if limit == 2 {
                    seen[Status::ALL
                        .iter()
                        .position(|&s| s == result.status())
                        .unwrap()] += 1;
                }
            }
        }
    }
}

#[test]
fn random_partial_grids_agree_with_dlx() {
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let mut seen = [0; 3];
    let sizes = [
        (2, 300, 4..14),
        (3, 300, 40..70),
        (4, 200, 120..200),
        (5, 30, 200..330),
    ];
    agree_on_random_partials(&mut BigSolver::new(), &sizes, &mut rng, &mut seen);
    // The grids cover every verdict.
    assert!(seen.iter().all(|&n| n >= 20), "{seen:?}");
}

#[test]
fn clause_learning_agrees_with_dlx() {
    // Handed over at the root (the search's first guess) and after three guesses, which
    // may have found a first solution for clause learning to rule out before it looks
    // for more.
    let mut rng = ChaCha8Rng::seed_from_u64(15);
    let mut seen = [0; 3];
    for hand_over_at in [0, 3] {
        let sizes = [
            (2, 100, 4..14),
            (3, 100, 40..70),
            (4, 60, 120..200),
            (5, 8, 200..330),
        ];
        let mut solver = BigSolver::handing_over_at(hand_over_at);
        agree_on_random_partials(&mut solver, &sizes, &mut rng, &mut seen);
    }
    // The grids cover every verdict.
    assert!(seen.iter().all(|&n| n >= 20), "{seen:?}");
}

#[test]
fn clause_learning_past_25x25_agrees_with_dlx() {
    // Dancing links handing over at their first guess and after three, past 25×25.
    let mut rng = ChaCha8Rng::seed_from_u64(16);
    let mut seen = [0; 3];
    for hand_over_at in [0, 3] {
        let mut solver = BigSolver::handing_over_at(hand_over_at);
        agree_on_random_partials(&mut solver, &[(6, 12, 50..600)], &mut rng, &mut seen);
    }
    agree_on_random_partials(
        &mut BigSolver::handing_over_at(0),
        &[(7, 3, 100..1000)],
        &mut rng,
        &mut seen,
    );
    assert!(seen.iter().all(|&n| n >= 3), "{seen:?}");
}

#[test]
fn clause_learning_counts_its_conflicts_against_the_node_budget() {
    // The hardest of the generated hard 25×25 puzzles for clause learning from the root:
    // it stops at the first look at the budget after the 10th node, having counted the
    // search's one guess and the clauses learned.
    let corpus = include_str!("../../../datasets/sudoku/generated-25x25-hard-30.txt");
    let mut solver = BigSolver::handing_over_at(0);
    let mut stopped = 0;
    for line in corpus.lines().filter(|l| !l.starts_with('#')) {
        let grid = Grid::from_line(line, None).unwrap();
        let unlimited = solver.solve(&grid, 2, &mut Meter::unlimited());
        assert_eq!(unlimited.status(), Status::Solved, "{grid}");
        check_solution(&grid, unlimited.first_solution.as_ref().unwrap()).unwrap();
        let mut meter = Meter::start(Budget {
            timeout: None,
            max_nodes: Some(10),
        });
        let budgeted = solver.solve(&grid, 2, &mut meter);
        if let Some(over) = budgeted.stopped {
            stopped += 1;
            assert_eq!(over, OverBudget::Nodes(10), "{grid}");
            assert!(budgeted.guesses > 10, "{grid}");
            assert!(budgeted.guesses <= unlimited.guesses, "{grid}");
            assert!(budgeted.solutions <= 1, "{grid}");
        } else {
            assert_eq!(budgeted.guesses, unlimited.guesses, "{grid}");
            assert_eq!(budgeted.first_solution, unlimited.first_solution, "{grid}");
        }
    }
    assert!(stopped > 0);
}

#[test]
fn the_portable_build_agrees_with_the_one_for_modern_cpus() {
    // On a CPU with AVX2 and BMI2, `solve` runs the copy compiled for them; the portable
    // one must give the same counts, solutions and guesses.
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let (mut dispatched, mut portable) = (BigSolver::new(), BigSolver::new());
    for (box_size, count, blanks) in [(2, 100, 4..14), (4, 100, 120..200), (5, 20, 200..330)] {
        for _ in 0..count {
            let blanks = rng.gen_range(blanks.clone());
            let grid = random_partial(box_size, blanks, 0.4, &mut rng);
            let ours = dispatched.solve(&grid, 2, &mut Meter::unlimited());
            let mut values = grid.cells().to_vec();
            let theirs =
                portable.search_portable(box_size, &mut values, 2, &mut Meter::unlimited());
            assert_eq!(ours.solutions, theirs.solutions, "{grid}");
            assert_eq!(ours.guesses, theirs.guesses, "{grid}");
            if let Some(solution) = &ours.first_solution {
                assert_eq!(solution.cells(), values, "{grid}");
            }
        }
    }
}

/// Solves `grid`'s line with [`BigSolver::solve_line`] and the grid with
/// [`BigSolver::solve`], and asserts the same counts, budget and first solution.
fn assert_line_solves_as_grid<const N: usize>(
    solver: &mut BigSolver,
    grid: &Grid,
    line: &[u8; N],
    limit: u64,
    max_nodes: Option<u64>,
) {
    let budget = Budget {
        timeout: None,
        max_nodes,
    };
    let mut solution = [0u8; N];
    let by_line = solver
        .solve_line(line, limit, &mut Meter::start(budget), &mut solution)
        .unwrap_or_else(|| panic!("{grid}: the line was refused"));
    let by_grid = solver.solve(grid, limit, &mut Meter::start(budget));
    assert_eq!(by_line.solutions, by_grid.solutions, "{grid}");
    assert_eq!(by_line.guesses, by_grid.guesses, "{grid}");
    assert_eq!(by_line.stopped, by_grid.stopped, "{grid}");
    if let Some(first) = &by_grid.first_solution {
        let mut expected = Vec::new();
        first.push_line_bytes(&mut expected);
        assert_eq!(solution.as_slice(), expected, "{grid}");
    }
}

#[test]
fn lines_solve_as_their_grids() {
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let mut solver = BigSolver::new();
    let mut seen = [0; 3];
    for (box_size, count, blanks) in [(4, 200, 120..200), (5, 20, 200..330)] {
        for _ in 0..count {
            let blanks = rng.gen_range(blanks.clone());
            let grid = random_partial(box_size, blanks, 0.4, &mut rng);
            let mut line = Vec::new();
            grid.push_line_bytes(&mut line);
            // Blanks as `0` and digits past 9 in lower case read the same.
            if rng.gen_bool(0.5) {
                line = line
                    .iter()
                    .map(|&b| {
                        if b == b'.' {
                            b'0'
                        } else {
                            b.to_ascii_lowercase()
                        }
                    })
                    .collect();
            }
            for (limit, max_nodes) in [(1, None), (2, None), (5, None), (2, Some(3))] {
                match box_size {
                    4 => assert_line_solves_as_grid::<256>(
                        &mut solver,
                        &grid,
                        line.as_slice().try_into().unwrap(),
                        limit,
                        max_nodes,
                    ),
                    _ => assert_line_solves_as_grid::<625>(
                        &mut solver,
                        &grid,
                        line.as_slice().try_into().unwrap(),
                        limit,
                        max_nodes,
                    ),
                }
            }
            let status = solver.solve(&grid, 2, &mut Meter::unlimited()).status();
            seen[Status::ALL.iter().position(|&s| s == status).unwrap()] += 1;
        }
    }
    // The grids cover every verdict.
    assert!(seen.iter().all(|&n| n >= 5), "{seen:?}");
}

#[test]
fn lines_the_grid_would_refuse_are_not_solved() {
    let mut solver = BigSolver::new();
    let mut solution = [0u8; 256];
    let mut line = [b'.'; 256];
    // `H` is the 17th digit, `#` no digit at all: both are errors of the grid's parser,
    // which the caller falls back on to say so.
    for bad in [b'H', b'h', b'#', b' ', 0xC3] {
        line[37] = bad;
        let found = solver.solve_line(&line, 2, &mut Meter::unlimited(), &mut solution);
        assert_eq!(found, None, "{}", bad as char);
    }
    // 9×9 lines are the 9×9 solver's; other lengths are no grid.
    assert_eq!(
        solver.solve_line(&[b'.'; 81], 2, &mut Meter::unlimited(), &mut [0; 81]),
        None
    );
    assert_eq!(
        solver.solve_line(&[b'.'; 100], 2, &mut Meter::unlimited(), &mut [0; 100]),
        None
    );
    // Only `fast` solves lines.
    let mut dlx = Solver::new(Algorithm::Dlx);
    let empty = [b'.'; 256];
    assert_eq!(
        dlx.solve_line_within(&empty, 1, &mut Meter::unlimited(), &mut solution),
        None
    );
    let found = Solver::new(Algorithm::Fast)
        .solve_line_within(&empty, 1, &mut Meter::unlimited(), &mut solution)
        .unwrap();
    assert_eq!(found.status(), Status::Solved);
    let solved = Grid::from_line(std::str::from_utf8(&solution).unwrap(), None).unwrap();
    check_solution(&Grid::empty(4).unwrap(), &solved).unwrap();
}

#[test]
fn empty_grids_count_up_to_the_limit() {
    let mut solver = BigSolver::new();
    // 4×4: exactly 288 grids.
    let empty = Grid::empty(2).unwrap();
    assert_eq!(
        solver
            .solve(&empty, 1000, &mut Meter::unlimited())
            .solutions,
        288
    );
    for box_size in [4, 5] {
        let empty = Grid::empty(box_size).unwrap();
        for limit in [1, 2, 7] {
            let result = solver.solve(&empty, limit, &mut Meter::unlimited());
            assert_eq!(result.solutions, limit);
            check_solution(&empty, &result.first_solution.unwrap()).unwrap();
        }
    }
}

#[test]
fn conflicting_clues_are_unsolvable() {
    let mut grid = Grid::empty(4).unwrap();
    grid.set(0, 0, 7);
    grid.set(0, 15, 7);
    let result = BigSolver::new().solve(&grid, 2, &mut Meter::unlimited());
    assert_eq!(result.status(), Status::Unsolvable);
    assert_eq!(result.first_solution, None);
}

#[test]
fn a_node_budget_stops_the_search() {
    // An empty 25×25 grid needs hundreds of guesses for its first solution.
    let empty = Grid::empty(5).unwrap();
    let mut meter = Meter::start(Budget {
        timeout: None,
        max_nodes: Some(10),
    });
    let result = BigSolver::new().solve(&empty, 2, &mut meter);
    assert_eq!(result.stopped, Some(OverBudget::Nodes(10)));
    // The eleventh guess finds the budget spent: it is neither made nor counted.
    assert_eq!(result.guesses, 10);
}

/// Found by `cargo fuzz` (`sudoku_solve`): the guess cell's comparison started from
/// `u64::MAX` and summed the three units' weights in `u32`, so a debug build panicked on
/// the first 16×16 guess and heavy weights wrapped round to a wrong choice. Both 16×16
/// boards (the planes, and the generic one the tests keep) are checked.
#[test]
fn the_guess_cell_takes_the_heaviest_units_when_weights_are_huge() {
    fn guessed<B: Node>(weights: &[u32]) -> usize {
        let empty = Grid::empty(4).unwrap();
        B::from_values(empty.cells(), &mut Queue::new())
            .unwrap()
            .guess(weights)
            .0
    }
    // Every cell has 16 candidates: the weight alone decides. Row 3, column 5 and box 1
    // (the box of row 3, column 5) are all at the ceiling: cell 3 × 16 + 5.
    let mut weights = vec![1u32; 3 * 16];
    weights[3] = u32::MAX;
    weights[16 + 5] = u32::MAX;
    weights[2 * 16 + 1] = u32::MAX;
    assert_eq!(guessed::<Planes>(&weights), 3 * 16 + 5);
    assert_eq!(guessed::<Board<Box4>>(&weights), 3 * 16 + 5);
    assert_eq!(guessed::<Planes>(&[1; 3 * 16]), 0);
    assert_eq!(guessed::<Board<Box4>>(&[1; 3 * 16]), 0);
}

#[test]
fn planes_reach_the_fixed_point_of_the_generic_board() {
    // Both boards apply the same deductions (naked and hidden singles, locked candidates)
    // to a fixed point, so from the same grid and the same change they must reach the
    // same candidates, or both a contradiction.
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let mut queue = Queue::new();
    // Contradictions and fixed points compared after a change.
    let mut outcomes = [0; 2];
    for _ in 0..600 {
        let blanks = rng.gen_range(120..240);
        let grid = random_partial(4, blanks, 0.3, &mut rng);
        let planes = <Planes as Node>::from_values(grid.cells(), &mut queue);
        let board = <Board<Box4> as Node>::from_values(grid.cells(), &mut queue);
        assert_eq!(planes.is_ok(), board.is_ok(), "{grid}");
        let (Ok(planes), Ok(board)) = (planes, board) else {
            continue;
        };
        let masks = planes.candidate_masks();
        assert_eq!(masks, board.candidate_masks(), "{grid}");
        // A random digit of a random open cell, put in and taken out on both boards.
        let open: Vec<usize> = (0..256).filter(|&c| masks[c].count_ones() >= 2).collect();
        if open.is_empty() {
            continue;
        }
        let cell = open[rng.gen_range(0..open.len())];
        let digits: Vec<u32> = (0..16)
            .map(|d| 1 << d)
            .filter(|d| masks[cell] & d != 0)
            .collect();
        let digit = digits[rng.gen_range(0..digits.len())];
        for put in [true, false] {
            let (mut p, mut b) = (planes, board);
            let (ours, theirs) = if put {
                (
                    p.put(cell, digit, &mut queue),
                    b.put(cell, digit, &mut queue),
                )
            } else {
                (
                    p.take_out(cell, digit, &mut queue),
                    b.take_out(cell, digit, &mut queue),
                )
            };
            assert_eq!(ours.is_ok(), theirs.is_ok(), "{grid} {cell} {digit} {put}");
            if ours.is_ok() {
                assert_eq!(p.candidate_masks(), b.candidate_masks(), "{grid}");
                outcomes[1] += 1;
            } else {
                outcomes[0] += 1;
            }
        }
    }
    assert!(outcomes.iter().all(|&n| n >= 20), "{outcomes:?}");
}

#[test]
fn planes25_reach_the_fixed_point_of_the_generic_board() {
    // The 25×25 set-up propagates on the digit-major board and hands the search a
    // cell-major one: both apply the same deductions to a fixed point, so from the same
    // grid they must reach the same candidates, or both a contradiction.
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let mut queue = Queue::new();
    // Contradictions, solved grids and open fixed points compared.
    let mut outcomes = [0; 3];
    for _ in 0..300 {
        let blanks = rng.gen_range(250..550);
        let grid = random_partial(5, blanks, 0.3, &mut rng);
        let planes =
            Planes25::from_values(grid.cells()).and_then(|planes| planes.into_board(&mut queue));
        let board = <Board<Box5> as Node>::from_values(grid.cells(), &mut queue);
        assert_eq!(planes.is_ok(), board.is_ok(), "{grid}");
        let (Ok(planes), Ok(board)) = (planes, board) else {
            outcomes[0] += 1;
            continue;
        };
        assert_eq!(planes.candidate_masks(), board.candidate_masks(), "{grid}");
        assert_eq!(planes.is_solved(), board.is_solved(), "{grid}");
        outcomes[if board.is_solved() { 1 } else { 2 }] += 1;
        if !board.is_solved() {
            // The same search state: the same guess and the same outcome of it.
            let weights = [1; 75];
            let guess = board.guess(&weights);
            assert_eq!(planes.guess(&weights), guess, "{grid}");
            let (mut p, mut b) = (planes, board);
            let (ours, theirs) = (
                p.put(guess.0, guess.1, &mut queue),
                b.put(guess.0, guess.1, &mut queue),
            );
            assert_eq!(ours.is_ok(), theirs.is_ok(), "{grid}");
            assert_eq!(p.candidate_masks(), b.candidate_masks(), "{grid}");
        }
    }
    assert!(outcomes.iter().all(|&n| n >= 20), "{outcomes:?}");
}
