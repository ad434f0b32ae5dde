use super::*;

const SEED2: &str =
    "800000000003600000070090200050007000000045700000100030001000068008500010090000400";
const SEED2_SOLUTION: &str =
    "812753649943682175675491283154237896369845721287169534521974368438526917796318452";

fn state(line: &str) -> State {
    State::from_grid(&Grid::from_line(line, None).unwrap())
        .unwrap_or_else(|_| panic!("clues conflict: {line}"))
}

/// Whether `digit` (1-based) may still go in cell (`row`, `col`), 0-based.
fn allows(state: &State, row: usize, col: usize, digit: usize) -> bool {
    let (band, cell) = (row / 3, (row % 3) * 9 + col);
    state.candidates[16 * band + (digit - 1)] >> cell & 1 == 1
}

fn solved(state: &State, row: usize, col: usize) -> bool {
    state.solved[row / 3] >> ((row % 3) * 9 + col) & 1 == 1
}

#[test]
fn clues_remove_their_digit_from_row_column_and_box() {
    let mut line = ".".repeat(81);
    line.replace_range(40..41, "5"); // r5c5
    let state = state(&line);
    assert!(solved(&state, 4, 4));
    assert!(allows(&state, 4, 4, 5));
    for digit in [1, 4, 6, 9] {
        assert!(!allows(&state, 4, 4, digit));
    }
    assert!(!allows(&state, 4, 0, 5), "row");
    assert!(!allows(&state, 0, 4, 5), "column, other band");
    assert!(!allows(&state, 3, 3, 5), "box");
    assert!(allows(&state, 0, 0, 5));
    assert!(allows(&state, 3, 0, 9));
}

#[test]
fn conflicting_clues_are_a_contradiction() {
    for (a, b) in [(0, 8), (0, 72), (0, 20)] {
        let mut line = ".".repeat(81);
        line.replace_range(a..a + 1, "7");
        line.replace_range(b..b + 1, "7");
        let grid = Grid::from_line(&line, None).unwrap();
        assert!(State::from_grid(&grid).is_err(), "cells {a} and {b}");
    }
}

#[test]
fn a_hidden_single_in_a_row_is_placed_and_propagated() {
    // 9s at r2c4 (box 2 takes r1c4-6 out), r3c1 (box 1: r1c1-3), r4c7 and r7c8
    // (columns 7 and 8): r1c9 is the only place left for 9 in row 1.
    let mut line = ".".repeat(81);
    for (row, col) in [(1, 3), (2, 0), (3, 6), (6, 7)] {
        line.replace_range(row * 9 + col..row * 9 + col + 1, "9");
    }
    let mut state = state(&line);
    state.propagate::<false, false>().ok().unwrap();
    assert!(solved(&state, 0, 8));
    assert!(allows(&state, 0, 8, 9));
    assert!(!allows(&state, 0, 8, 1), "other digits leave the cell");
    assert!(
        !allows(&state, 8, 8, 9),
        "the column in other bands loses the digit"
    );
}

/// A grid with `clues` as (row, column, digit), 0-based rows and columns.
fn with_clues(clues: &[(usize, usize, u8)]) -> String {
    let mut line = ".".repeat(81);
    for &(row, col, digit) in clues {
        line.replace_range(row * 9 + col..row * 9 + col + 1, &digit.to_string());
    }
    line
}

#[test]
fn locked_candidates_in_a_band_are_removed() {
    // Rows 2 and 3 of box 1 are full, so box 1's 1, 8 and 9 lie in row 1 (pointing):
    // row 1 loses them in boxes 2 and 3.
    let line = with_clues(&[
        (1, 0, 2),
        (1, 1, 3),
        (1, 2, 4),
        (2, 0, 5),
        (2, 1, 6),
        (2, 2, 7),
    ]);
    let mut state = state(&line);
    state.propagate::<false, false>().ok().unwrap();
    for digit in [1, 8, 9] {
        assert!(allows(&state, 0, 0, digit));
        assert!(!allows(&state, 0, 3, digit) && !allows(&state, 0, 8, digit));
        assert!(allows(&state, 1, 3, digit), "other rows keep it");
    }
}

#[test]
fn stack_deductions_find_locked_candidates_in_columns() {
    // Columns 2 and 3 of box 1 are full, so box 1's 1, 8 and 9 lie in column 1: column 1
    // loses them in bands 2 and 3, which only the deductions across bands see.
    let line = with_clues(&[
        (0, 1, 2),
        (1, 1, 3),
        (2, 1, 4),
        (0, 2, 5),
        (1, 2, 6),
        (2, 2, 7),
    ]);
    let mut state = state(&line);
    state.propagate::<false, false>().ok().unwrap();
    for digit in [1, 8, 9] {
        assert!(allows(&state, 0, 0, digit));
        for row in 3..9 {
            assert!(!allows(&state, row, 0, digit), "{digit} at r{}c1", row + 1);
            assert!(allows(&state, row, 3, digit), "other columns keep it");
        }
    }
}

#[test]
fn naked_singles_fill_the_grid() {
    let mut line = SEED2_SOLUTION.to_string();
    for cell in [0, 10, 20, 30, 40, 50, 60, 70, 80] {
        line.replace_range(cell..cell + 1, ".");
    }
    let mut state = state(&line);
    state.propagate::<false, false>().ok().unwrap();
    assert!(state.is_solved());
    assert_eq!(
        String::from_utf8(solution_bytes(&state.candidates, b'0')[..81].to_vec()).unwrap(),
        SEED2_SOLUTION
    );
}

#[test]
fn with_no_cell_of_two_candidates_the_fewest_are_guessed() {
    let state = state(&".".repeat(81));
    let (band, cell) = state.guess_cell([0; 3]);
    assert_eq!(state.digits_of(band, cell).count_ones(), 9);
}

#[test]
fn seed_puzzle_is_solved_unique_with_counted_guesses() {
    let grid = Grid::from_line(SEED2, None).unwrap();
    let result = solve(&grid, 2, &mut Meter::unlimited());
    assert_eq!(result.solutions, 1);
    assert_eq!(result.first_solution.unwrap().to_line(), SEED2_SOLUTION);
    // A hard puzzle: some guesses, each digit tried counted once.
    assert!(result.guesses >= 2, "{}", result.guesses);
}

/// The solution with the four cells of a rectangle blanked whose digits can swap (two
/// rows of one band, two columns of different boxes): a puzzle with exactly two solutions.
fn two_solution_puzzle() -> (Grid, [(usize, usize); 4]) {
    let grid = Grid::from_line(SEED2_SOLUTION, None).unwrap();
    for r1 in 0..9 {
        for r2 in r1 + 1..r1 / 3 * 3 + 3 {
            for c1 in 0..9 {
                for c2 in c1 + 1..9 {
                    let (a, b) = (grid.get(r1, c1), grid.get(r1, c2));
                    if c1 / 3 != c2 / 3 && grid.get(r2, c1) == b && grid.get(r2, c2) == a {
                        let cells = [(r1, c1), (r1, c2), (r2, c1), (r2, c2)];
                        let mut puzzle = grid.clone();
                        for (row, col) in cells {
                            puzzle.set(row, col, 0);
                        }
                        return (puzzle, cells);
                    }
                }
            }
        }
    }
    panic!("the solution has a rectangle of swappable digits");
}

#[test]
fn the_guess_goes_to_a_cell_with_two_candidates() {
    let (puzzle, cells) = two_solution_puzzle();
    let mut state = State::from_grid(&puzzle).ok().unwrap();
    let pairs = state.propagate::<false, false>().ok().unwrap();
    assert_eq!(
        pairs.iter().map(|band| band.count_ones()).sum::<u32>(),
        4,
        "the rectangle's four cells have two candidates each"
    );
    let (band, cell) = state.guess_cell(pairs);
    let (row, col) = (3 * band + cell as usize / 9, cell as usize % 9);
    assert!(cells.contains(&(row, col)));
    assert_eq!(state.digits_of(band, cell).count_ones(), 2);
}

#[test]
fn two_solutions_are_found_and_the_limit_stops_the_search() {
    let (puzzle, _) = two_solution_puzzle();
    let two = solve(&puzzle, 2, &mut Meter::unlimited());
    assert_eq!(two.solutions, 2);
    assert_eq!(
        two.guesses, 2,
        "one cell of two candidates, both digits tried"
    );
    let one = solve(&puzzle, 1, &mut Meter::unlimited());
    assert_eq!((one.solutions, one.guesses), (1, 1));
    assert_eq!(solve(&puzzle, 10, &mut Meter::unlimited()).solutions, 2);
}

/// The repository's generated puzzles (9×9), with the seed's two-solution puzzle and an
/// empty grid (many solutions).
fn sample_grids() -> Vec<Grid> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/sudoku");
    let hard = std::fs::read_to_string(root.join("generated-hard-200.txt")).unwrap();
    let generated = std::fs::read_to_string(root.join("generated-1k.csv")).unwrap();
    let mut grids: Vec<Grid> = hard
        .lines()
        .chain(
            generated
                .lines()
                .skip(1)
                .map(|line| line.split(',').next().unwrap()),
        )
        .map(|line| Grid::from_line(line, None).unwrap())
        .collect();
    grids.push(two_solution_puzzle().0);
    grids.push(Grid::from_line(&".".repeat(81), None).unwrap());
    assert!(grids.len() > 1000);
    grids
}

#[test]
fn the_portable_build_finds_what_the_default_build_finds() {
    for grid in sample_grids() {
        for limit in [1, 2] {
            let portable = solve_portable(&grid, limit, &mut Meter::unlimited());
            assert_eq!(
                portable,
                solve(&grid, limit, &mut Meter::unlimited()),
                "{}",
                grid.to_line()
            );
            if let Some(solution) = &portable.first_solution {
                crate::sudoku::check_solution(&grid, solution).unwrap();
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
#[cfg_attr(
    any(cpu_lacks_avx2, cpu_lacks_bmi2),
    ignore = "this CPU lacks the features of the modern build (AVX2, BMI2)"
)]
fn the_modern_x86_build_finds_what_the_portable_build_finds() {
    assert!(
        x86::has_modern_features(),
        "this CPU lacks the modern build's features"
    );
    for grid in sample_grids() {
        let portable = solve_portable(&grid, 2, &mut Meter::unlimited());
        // SAFETY: the CPU has the features of both builds, checked above (`pext` is part
        // of BMI2; whether it is fast does not matter here).
        let (modern, modern_pext) = unsafe {
            (
                solve_modern(&grid, 2, &mut Meter::unlimited()),
                solve_modern_pext(&grid, 2, &mut Meter::unlimited()),
            )
        };
        assert_eq!(modern, portable, "{}", grid.to_line());
        assert_eq!(modern_pext, portable, "{}", grid.to_line());
    }
}

/// [`solve_line`] of `line`, with `limit` and a budget of `guesses`: what it found and the
/// solution's line it wrote.
fn solve_line_text(line: &str, limit: u64, guesses: u64) -> Option<(LineResult, String)> {
    let line: &[u8; 81] = line.as_bytes().try_into().unwrap();
    let mut meter = guess_meter(guesses);
    let mut solution = [b'?'; 81];
    let found = solve_line(line, limit, &mut meter, &mut solution)?;
    Some((found, String::from_utf8(solution.to_vec()).unwrap()))
}

#[cfg(target_arch = "x86_64")]
#[test]
#[cfg_attr(
    any(cpu_lacks_avx2, cpu_lacks_bmi2),
    ignore = "this CPU lacks the features of the modern build (AVX2, BMI2)"
)]
fn a_line_is_solved_as_its_grid_is() {
    assert!(
        x86::has_modern_features(),
        "this CPU lacks the modern build's features"
    );
    let mut lines: Vec<String> = sample_grids().iter().map(Grid::to_line).collect();
    // Conflicting clues, blanks written `0`, and a grid with no blank.
    lines.push(format!("11{}", ".".repeat(79)));
    lines.push(SEED2.to_string());
    lines.push(SEED2_SOLUTION.to_string());
    let mut budgeted = 0;
    for line in &lines {
        let grid = Grid::from_line(line, None).unwrap();
        for (limit, guesses) in [(1, u64::MAX), (2, u64::MAX), (2, 3)] {
            let expected = solve_within_guesses(&grid, limit, guesses);
            let (found, solution) = solve_line_text(line, limit, guesses).expect("a plain line");
            let grid_found = LineResult {
                solutions: expected.solutions,
                guesses: expected.guesses,
                stopped: expected.stopped,
            };
            assert_eq!(found, grid_found, "{line} limit {limit} guesses {guesses}");
            budgeted += usize::from(found.stopped.is_some());
            match &expected.first_solution {
                Some(grid) => assert_eq!(solution, grid.to_line(), "{line}"),
                None => assert_eq!(solution, "?".repeat(81), "{line}: nothing written"),
            }
        }
    }
    assert!(budgeted > 100, "the budget stopped {budgeted} searches");
}

/// A meter that stops a search after `guesses` (`u64::MAX`: never).
fn guess_meter(guesses: u64) -> Meter {
    Meter::start(crate::budget::Budget {
        timeout: None,
        max_nodes: (guesses < u64::MAX).then_some(guesses),
    })
}

/// [`solve`] with a budget of `guesses`.
fn solve_within_guesses(grid: &Grid, limit: u64, guesses: u64) -> SearchResult {
    solve(grid, limit, &mut guess_meter(guesses))
}

#[cfg(target_arch = "x86_64")]
#[test]
#[cfg_attr(
    any(cpu_lacks_avx2, cpu_lacks_bmi2),
    ignore = "this CPU lacks the features of the modern build (AVX2, BMI2)"
)]
fn a_line_with_another_character_is_left_to_the_grid() {
    assert!(x86::has_modern_features());
    // Each character a grid line may hold but a plain 9×9 line may not, and a few others,
    // at the first, a middle and the last cell (the last band is loaded from byte 49).
    for bad in [b'A', b'a', b' ', b'/', b':', b'-', b'\t', 0x80, 0] {
        for at in [0, 40, 48, 49, 80] {
            let mut line = SEED2.as_bytes().to_vec();
            line[at] = bad;
            let line = String::from_utf8_lossy(&line).into_owned();
            if line.len() == 81 {
                assert_eq!(solve_line_text(&line, 2, u64::MAX), None, "{bad} at {at}");
            }
        }
    }
    let blanks_as_dots = SEED2.replace('0', ".");
    let (found, solution) = solve_line_text(&blanks_as_dots, 2, u64::MAX).unwrap();
    assert_eq!((found.solutions, solution.as_str()), (1, SEED2_SOLUTION));
}

#[cfg(target_arch = "x86_64")]
#[test]
#[cfg_attr(cpu_lacks_bmi2, ignore = "this CPU lacks BMI2")]
fn minirows_by_bit_extraction_match_the_lookups() {
    assert!(
        std::arch::is_x86_feature_detected!("bmi2"),
        "this CPU lacks BMI2"
    );
    // Every pattern of one row in each of the three rows, and a sequence of whole words.
    let mut words: Vec<u32> = (0..512)
        .flat_map(|row: u32| [row, row << 9, row << 18, row * 0x40201])
        .collect();
    let mut next = random_words(99);
    words.extend((0..100_000).map(|_| next()));
    for word in words {
        // SAFETY: the CPU has BMI2, checked above.
        let extracted = unsafe { x86::minirows_pext(word) };
        assert_eq!(extracted, minirows(word), "{word:#x}");
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
#[cfg_attr(cpu_lacks_avx2, ignore = "this CPU lacks AVX2")]
fn the_avx2_clear_matches_the_portable_one() {
    assert!(
        std::arch::is_x86_feature_detected!("avx2"),
        "this CPU lacks AVX2"
    );
    let mut next = random_words(12345);
    let mut changed_any = 0;
    for _ in 0..1000 {
        let words: [u32; 8] = std::array::from_fn(|lane| if lane % 3 == 0 { 0 } else { next() });
        let cells = next() & next();
        let (mut portable, mut vector) = (words, words);
        let expected = clear8(&mut portable, cells);
        // SAFETY: the CPU has AVX2, checked above.
        let found = unsafe { x86::clear8(&mut vector, cells) };
        assert_eq!(
            (found, vector),
            (expected, portable),
            "{words:?} {cells:#x}"
        );
        changed_any |= found;
        assert_eq!(portable.map(|word| word & cells), [0; 8]);
    }
    assert_eq!(
        changed_any, 0b1011_0110,
        "every nonzero lane changed at least once"
    );
}

#[cfg(target_arch = "x86_64")]
#[test]
#[cfg_attr(cpu_lacks_avx2, ignore = "this CPU lacks AVX2")]
fn the_avx2_solution_bytes_match_the_portable_ones() {
    assert!(
        std::arch::is_x86_feature_detected!("avx2"),
        "this CPU lacks AVX2"
    );
    let mut next = random_words(777);
    let mut solved = state(SEED2_SOLUTION);
    solved.propagate::<false, false>().ok().unwrap();
    let random = (0..1000).map(|_| std::array::from_fn(|_| next() & next()));
    for candidates in std::iter::once(solved.candidates).chain(random) {
        for offset in [0, b'0'] {
            let portable = solution_bytes(&candidates, offset);
            // SAFETY: the CPU has AVX2, checked above.
            let vector = unsafe { x86::solution_bytes(&candidates, offset) };
            assert_eq!(vector[..81], portable[..81], "{candidates:x?}");
        }
        let mut line = [b'x'; 81];
        // SAFETY: as above.
        unsafe { x86::solution_line(&candidates, &mut line) };
        assert_eq!(
            line[..],
            solution_bytes(&candidates, b'0')[..81],
            "{candidates:x?}"
        );
    }
    // SAFETY: as above.
    let line = unsafe { x86::solution_bytes(&solved.candidates, b'0') };
    assert_eq!(&line[..81], SEED2_SOLUTION.as_bytes());
}

/// The fields of a state, to compare two.
#[cfg(target_arch = "x86_64")]
fn fields(state: Result<State, Contradiction>) -> Option<([u32; 48], [u32; 3], u64, u32)> {
    state.ok().map(|state| {
        (
            state.candidates,
            state.solved,
            state.dirty,
            state.stack_dirty,
        )
    })
}

#[cfg(target_arch = "x86_64")]
#[test]
#[cfg_attr(cpu_lacks_avx2, ignore = "this CPU lacks AVX2")]
fn the_avx2_set_up_matches_the_portable_one() {
    assert!(
        std::arch::is_x86_feature_detected!("avx2"),
        "this CPU lacks AVX2"
    );
    let mut random = random_words(2024);
    let mut next = |below: usize| random() as usize % below;
    let mut grids = sample_grids();
    // Every sample with one clue copied into another cell of its row, column or box (a
    // conflict), and grids of random values at random cells (most of them conflicting).
    for index in 0..grids.len() {
        let mut cells = grids[index].cells().to_vec();
        let Some(from) = (0..81)
            .map(|k| (k * 7 + index) % 81)
            .find(|&k| cells[k] != 0)
        else {
            continue;
        };
        let (row, col) = (from / 9, from % 9);
        let to = match index % 3 {
            0 => row * 9 + (col + 1 + next(8)) % 9,
            1 => (row + 1 + next(8)) % 9 * 9 + col,
            _ => {
                let (top, left) = (row / 3 * 3, col / 3 * 3);
                let other = (row % 3 * 3 + col % 3 + 1 + next(8)) % 9;
                (top + other / 3) * 9 + left + other % 3
            }
        };
        cells[to] = cells[from];
        grids.push(Grid::from_slice(&cells).unwrap());
    }
    for clues in [1, 5, 10, 17, 25, 40] {
        for _ in 0..300 {
            let mut cells = [0u8; 81];
            for _ in 0..clues {
                cells[next(81)] = next(9) as u8 + 1;
            }
            grids.push(Grid::from_slice(&cells).unwrap());
        }
    }
    let (mut conflicting, mut consistent) = (0, 0);
    for grid in &grids {
        let values = grid.cells().try_into().unwrap();
        // SAFETY: the CPU has AVX2, checked above.
        let vector = fields(unsafe { x86::clue_state(values) });
        let portable = fields(State::from_grid(grid));
        assert_eq!(vector, portable, "{}", grid.to_line());
        match portable {
            None => conflicting += 1,
            Some(_) => consistent += 1,
        }
    }
    assert!(
        conflicting > 1500 && consistent > 1500,
        "{conflicting} {consistent}"
    );
}

#[cfg(target_arch = "x86_64")]
#[test]
#[cfg_attr(cpu_lacks_avx2, ignore = "this CPU lacks AVX2")]
fn the_avx2_candidate_count_matches_the_portable_one() {
    assert!(
        std::arch::is_x86_feature_detected!("avx2"),
        "this CPU lacks AVX2"
    );
    let mut next = random_words(7);
    let mut state = state(&".".repeat(81));
    let mut seen = [0u32; 3];
    for _ in 0..2000 {
        // Sparse words (two random masks ANDed) so that every count occurs.
        for word in &mut state.candidates {
            *word = next() & next() & next();
        }
        for band in 0..3 {
            let portable = state.candidate_counts::<false>(band);
            assert_eq!(state.candidate_counts::<true>(band), portable);
            let (some, two, three) = portable;
            seen[0] |= some & !two;
            seen[1] |= two & !three;
            seen[2] |= three;
        }
    }
    assert_eq!(
        seen, [BAND; 3],
        "cells held by one, two, and three or more words"
    );
}

/// A simple linear congruential sequence of 27-bit words, from `seed`.
#[cfg(target_arch = "x86_64")]
fn random_words(mut seed: u64) -> impl FnMut() -> u32 {
    move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 37) as u32 & BAND
    }
}
