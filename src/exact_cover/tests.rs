use std::ops::ControlFlow;

use super::{Dlx, DlxBuilder, ExactCoverError};
use crate::budget::Meter;

/// N-queens as exact cover: ranks and files primary, both diagonal families secondary.
fn queens(n: usize) -> Dlx {
    queens_builder(n).build()
}

/// The builder of [`queens`].
fn queens_builder(n: usize) -> DlxBuilder {
    let diagonals = 2 * n - 1;
    let mut builder = DlxBuilder::new(2 * n, 2 * diagonals);
    for row in 0..n {
        for col in 0..n {
            let down_diagonal = 2 * n + row + col;
            let up_diagonal = 2 * n + diagonals + (row + n - 1 - col);
            builder
                .add_option(&[row, n + col, down_diagonal, up_diagonal])
                .unwrap();
        }
    }
    builder
}

/// Every 4×4 Sudoku grid: cell, row-digit, column-digit and box-digit items.
fn sudoku4() -> Dlx {
    sudoku4_builder().build()
}

/// The builder of [`sudoku4`].
fn sudoku4_builder() -> DlxBuilder {
    let mut builder = DlxBuilder::new(64, 0);
    for row in 0..4 {
        for col in 0..4 {
            let b = (row / 2) * 2 + col / 2;
            for digit in 0..4 {
                builder
                    .add_option(&[
                        row * 4 + col,
                        16 + row * 4 + digit,
                        32 + col * 4 + digit,
                        48 + b * 4 + digit,
                    ])
                    .unwrap();
            }
        }
    }
    builder
}

/// Checks that `options` cover every primary item once and no item twice.
fn assert_exact_cover(dlx: &Dlx, options: &[usize]) {
    let mut covered = vec![0; dlx.item_count()];
    for &option in dlx.selected().iter().chain(options) {
        for item in dlx.option_items(option) {
            covered[item] += 1;
        }
    }
    for (item, &count) in covered.iter().enumerate() {
        if item < dlx.primary_count() {
            assert_eq!(count, 1, "primary item {item} covered {count} times");
        } else {
            assert!(count <= 1, "secondary item {item} covered {count} times");
        }
    }
}

#[test]
fn eight_queens_has_92_solutions() {
    let mut dlx = queens(8);
    let mut seen = 0;
    let stats = dlx.search(|options| {
        seen += 1;
        assert_eq!(options.len(), 8);
        ControlFlow::Continue(())
    });
    assert_eq!(stats.solutions, 92);
    assert_eq!(seen, 92);
    assert!(stats.nodes > 92 && stats.updates > stats.nodes);
}

#[test]
fn ten_queens_has_724_solutions_and_each_is_a_cover() {
    let mut dlx = queens(10);
    let mut solutions = Vec::new();
    dlx.search(|options| {
        solutions.push(options.to_vec());
        ControlFlow::Continue(())
    });
    assert_eq!(solutions.len(), 724);
    for solution in &solutions {
        assert_exact_cover(&dlx, solution);
    }
    solutions.sort();
    solutions.dedup();
    assert_eq!(solutions.len(), 724, "solutions are distinct");
}

#[test]
fn four_by_four_sudoku_has_288_grids() {
    let mut dlx = sudoku4();
    assert_eq!(dlx.count_solutions(u64::MAX).solutions, 288);
    // Searching again gives the same answer: the structure was restored.
    assert_eq!(dlx.count_solutions(u64::MAX).solutions, 288);
}

#[test]
fn stopping_early_restores_the_structure() {
    let mut dlx = queens(8);
    let stats = dlx.count_solutions(5);
    assert_eq!(stats.solutions, 5);
    let first = dlx.first_solution().unwrap();
    assert_exact_cover(&dlx, &first);
    assert_eq!(dlx.count_solutions(u64::MAX).solutions, 92);
}

#[test]
fn empty_problem_has_one_empty_solution() {
    let mut dlx = DlxBuilder::new(0, 0).build();
    assert_eq!(dlx.first_solution(), Some(vec![]));
    assert_eq!(dlx.count_solutions(10).solutions, 1);
}

#[test]
fn uncoverable_item_means_no_solution() {
    let mut builder = DlxBuilder::new(3, 0);
    builder.add_option(&[0, 1]).unwrap();
    builder.add_option(&[1, 2]).unwrap();
    let mut dlx = builder.build();
    let stats = dlx.count_solutions(u64::MAX);
    assert_eq!(stats.solutions, 0);
    assert_eq!(dlx.first_solution(), None);
}

#[test]
fn forced_single_solution() {
    // Items 0..4: only {0,3} + {1,2} + {4} covers everything once; {0,1} + {2,4} misses 3.
    let mut builder = DlxBuilder::new(5, 0);
    for option in [&[0, 3][..], &[1, 2], &[4], &[0, 1], &[2, 4], &[1, 4]] {
        builder.add_option(option).unwrap();
    }
    let mut dlx = builder.build();
    let mut all = Vec::new();
    dlx.search(|options| {
        let mut sorted = options.to_vec();
        sorted.sort();
        all.push(sorted);
        ControlFlow::Continue(())
    });
    assert_eq!(all, vec![vec![0, 1, 2]]);
}

#[test]
fn secondary_items_are_covered_at_most_once() {
    // Primary 0, 1; secondary 2. {0,2} and {1,2} clash on 2; {1} is free.
    let mut builder = DlxBuilder::new(2, 1);
    builder.add_option(&[0, 2]).unwrap();
    builder.add_option(&[1, 2]).unwrap();
    builder.add_option(&[1]).unwrap();
    let mut dlx = builder.build();
    let mut all = Vec::new();
    dlx.search(|options| {
        all.push(options.to_vec());
        ControlFlow::Continue(())
    });
    assert_eq!(all.len(), 1);
    assert_exact_cover(&dlx, &all[0]);
}

#[test]
fn selected_options_restrict_the_search_and_can_be_cleared() {
    let mut dlx = sudoku4();
    // Fix the top row to 1 2 3 4 (options are (row*4+col)*4+digit).
    for col in 0..4 {
        dlx.select(col * 4 + col).unwrap();
    }
    let mut count = 0;
    dlx.search(|options| {
        assert_eq!(options.len(), 12);
        count += 1;
        ControlFlow::Continue(())
    });
    // 288 grids / 4! orderings of the first row.
    assert_eq!(count, 12);
    // A clash with a selected option is refused and changes nothing.
    assert_eq!(dlx.select(4), Err(ExactCoverError::Conflict { option: 4 }));
    assert_eq!(
        dlx.select(4 * 4),
        Err(ExactCoverError::Conflict { option: 16 })
    );
    assert_eq!(dlx.count_solutions(u64::MAX).solutions, 12);
    dlx.clear_selection();
    assert!(dlx.selected().is_empty());
    assert_eq!(dlx.count_solutions(u64::MAX).solutions, 288);
}

#[test]
fn bad_options_are_rejected() {
    let mut builder = DlxBuilder::new(2, 1);
    assert_eq!(
        builder.add_option(&[3]),
        Err(ExactCoverError::UnknownItem {
            option: 0,
            item: 3,
            items: 3
        })
    );
    assert_eq!(
        builder.add_option(&[1, 1]),
        Err(ExactCoverError::RepeatedItem { option: 0, item: 1 })
    );
    assert_eq!(
        builder.add_option(&[]),
        Err(ExactCoverError::EmptyOption { option: 0 })
    );
    assert_eq!(builder.add_option(&[0, 2]), Ok(0));
    let mut dlx = builder.build();
    assert_eq!(
        dlx.select(7),
        Err(ExactCoverError::UnknownOption {
            option: 7,
            options: 1
        })
    );
}

#[test]
fn restoring_from_a_pristine_clone_undoes_a_selection() {
    let mut dlx = sudoku4();
    let pristine = dlx.clone();
    for col in 0..4 {
        dlx.select(col * 4 + col).unwrap();
    }
    assert_eq!(dlx.count_solutions(u64::MAX).solutions, 12);
    dlx.restore_from(&pristine);
    assert!(dlx.selected().is_empty());
    assert_eq!(dlx.count_solutions(u64::MAX).solutions, 288);
    dlx.select(5).unwrap();
    assert_eq!(dlx.count_solutions(u64::MAX).solutions, 72);
}

#[test]
fn branches_split_the_search_into_disjoint_parts() {
    let mut dlx = queens(8);
    let branches = dlx.branches();
    assert_eq!(branches.len(), 8, "a rank has 8 squares");
    let total: u64 = branches
        .iter()
        .map(|&option| {
            let mut part = dlx.clone();
            part.select(option).unwrap();
            part.count_solutions(u64::MAX).solutions
        })
        .sum();
    assert_eq!(total, 92);
}

/// Every solution `search` reports, with its stats, stopping after `limit`.
fn solutions_up_to(
    dlx: &mut Dlx,
    limit: usize,
    once: bool,
) -> (Vec<Vec<usize>>, super::SearchStats) {
    let mut found = Vec::new();
    let visit = |options: &[usize]| {
        found.push(options.to_vec());
        if found.len() >= limit {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let stats = if once {
        dlx.search_once(&mut Meter::unlimited(), visit)
    } else {
        dlx.search(visit)
    };
    (found, stats)
}

#[test]
fn search_once_finds_what_search_finds_and_restoring_makes_it_reusable() {
    // Every way to fix two cells of the 4×4 Sudoku, with limits 1, 2 and all: the same
    // solutions, in the same order, with the same counters (updates count removals only,
    // so the skipped final unwinding does not change them).
    let mut dlx = sudoku4();
    let pristine = dlx.clone();
    let mut reference = sudoku4();
    for first in (0..64).step_by(5) {
        for second in (first + 1..64).step_by(7) {
            for limit in [1, 2, usize::MAX] {
                let conflict = dlx.select(first).is_err() || dlx.select(second).is_err();
                let wanted =
                    if reference.select(first).is_err() || reference.select(second).is_err() {
                        None
                    } else {
                        Some(solutions_up_to(&mut reference, limit, false))
                    };
                reference.clear_selection();
                assert_eq!(conflict, wanted.is_none());
                if let Some((solutions, stats)) = wanted {
                    let (once, once_stats) = solutions_up_to(&mut dlx, limit, true);
                    assert_eq!(
                        once, solutions,
                        "options {first} and {second}, limit {limit}"
                    );
                    assert_eq!(once_stats, stats);
                }
                dlx.restore_from(&pristine);
            }
        }
    }
    assert_eq!(dlx.count_solutions(u64::MAX).solutions, 288);
}

#[test]
#[should_panic(expected = "restore")]
fn a_problem_spent_by_search_once_refuses_to_search_again() {
    let mut dlx = queens(6);
    dlx.search_once(&mut Meter::unlimited(), |_| ControlFlow::Continue(()));
    dlx.count_solutions(u64::MAX);
}

/// A problem of `primary` primary and 4 secondary items with several planted solutions
/// (random partitions of the primary items into options of `size` items) among random
/// options of `size` items, or of 1 to `size` items when not `uniform`.
fn planted(primary: usize, size: usize, uniform: bool, seed: u64) -> DlxBuilder {
    let mut state = seed;
    let mut next = move |bound: usize| {
        // A 64-bit linear congruential generator: enough to vary the problems.
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize % bound
    };
    let mut builder = DlxBuilder::new(primary, 4);
    for _ in 0..3 {
        let mut items: Vec<usize> = (0..primary).collect();
        for i in (1..items.len()).rev() {
            items.swap(i, next(i + 1));
        }
        for chunk in items.chunks(size) {
            builder.add_option(chunk).unwrap();
        }
    }
    for _ in 0..40 {
        let len = if uniform { size } else { 1 + next(size) };
        let mut option = Vec::new();
        while option.len() < len {
            let item = next(primary + 4);
            if !option.contains(&item) {
                option.push(item);
            }
        }
        builder.add_option(&option).unwrap();
    }
    builder
}

/// Every solution, in search order, and the counters, searched with `search` and then
/// (after restoring) with `search_once`, after selecting `selection`.
fn every_search(dlx: &mut Dlx, selection: &[usize]) -> Vec<(Vec<Vec<usize>>, super::SearchStats)> {
    let pristine = dlx.clone();
    let mut runs = Vec::new();
    for once in [false, true] {
        for limit in [1, 2, usize::MAX] {
            if selection.iter().all(|&option| dlx.select(option).is_ok()) {
                runs.push(solutions_up_to(dlx, limit, once));
            }
            dlx.restore_from(&pristine);
        }
    }
    runs
}

#[test]
fn index_widths_and_specialised_searches_find_the_same() {
    // Options of 4 items (queens, 4×4 Sudoku), of 6 (the two specialised sizes) and of
    // mixed sizes: 16- and 32-bit indices give the same solutions in the same order and
    // the same counters. The specialised search covers a 4-node option's items in another
    // order than the generic one (see `siblings`), so it may meet the solutions in another
    // order: it must find the same set, and the same number up to each limit.
    type Problem = (&'static str, fn() -> DlxBuilder, &'static [usize]);
    let problems: [Problem; 5] = [
        ("queens", || queens_builder(7), &[]),
        ("sudoku4", sudoku4_builder, &[0, 21]),
        ("planted 6", || planted(18, 6, true, 7), &[]),
        ("planted 4", || planted(16, 4, true, 11), &[]),
        ("planted mixed", || planted(15, 5, false, 3), &[]),
    ];
    for (name, builder, selection) in problems {
        let generic = every_search(&mut builder().build_variant(true, false), selection);
        assert!(
            generic.iter().any(|(solutions, _)| !solutions.is_empty()),
            "{name} has solutions"
        );
        let specialised = every_search(&mut builder().build_variant(true, true), selection);
        assert_same_solutions(&specialised, &generic, name);
        for (wide, is_specialised) in [(false, false), (false, true)] {
            let mut dlx = builder().build_variant(wide, is_specialised);
            assert_eq!(dlx.is_narrow(), !wide);
            let uniform = name != "planted mixed";
            assert_eq!(dlx.is_specialised(), is_specialised && uniform, "{name}");
            let reference = if is_specialised {
                &specialised
            } else {
                &generic
            };
            assert_eq!(
                &every_search(&mut dlx, selection),
                reference,
                "{name}, wide {wide}, specialised {is_specialised}"
            );
        }
    }
}

/// Asserts that two lists of runs from [`every_search`] count the same solutions in each
/// run and find the same set of solutions, in whatever order.
fn assert_same_solutions(
    runs: &[(Vec<Vec<usize>>, super::SearchStats)],
    reference: &[(Vec<Vec<usize>>, super::SearchStats)],
    name: &str,
) {
    let sorted = |solutions: &[Vec<usize>]| {
        let mut solutions: Vec<Vec<usize>> = solutions
            .iter()
            .map(|solution| {
                let mut solution = solution.clone();
                solution.sort_unstable();
                solution
            })
            .collect();
        solutions.sort();
        solutions
    };
    let most = |runs: &[(Vec<Vec<usize>>, super::SearchStats)]| {
        sorted(&runs.iter().max_by_key(|run| run.0.len()).unwrap().0)
    };
    let all = most(reference);
    assert_eq!(runs.len(), reference.len(), "{name}");
    for ((solutions, stats), (expected, expected_stats)) in runs.iter().zip(reference) {
        assert_eq!(stats.solutions, expected_stats.solutions, "{name}");
        assert_eq!(solutions.len(), expected.len(), "{name}");
        assert!(
            sorted(solutions)
                .iter()
                .all(|s| all.binary_search(s).is_ok()),
            "{name}: a solution the generic search does not find"
        );
    }
    assert_eq!(most(runs), all, "{name}");
}

#[test]
fn small_problems_get_16_bit_indices_and_large_ones_32() {
    assert!(queens(8).is_narrow());
    // 200 items and 70,000 nodes: past what 16 bits address.
    let mut builder = DlxBuilder::new(200, 0);
    for option in 0..14_000 {
        let first = option % 196;
        builder
            .add_option(&[first, first + 1, first + 2, first + 3, first + 4])
            .unwrap();
    }
    let mut dlx = builder.build();
    assert!(!dlx.is_narrow());
    // The runs starting at multiples of 5 (each added about 71 times) tile the items.
    let solution = dlx.first_solution().unwrap();
    assert_eq!(solution.len(), 40);
    assert_exact_cover(&dlx, &solution);
}
