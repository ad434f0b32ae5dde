//! The exact solver's value of the empty board against an independent brute force, on every
//! board small enough for it: 4×4, 5×4 and 4×5 (16 and 20 cells), the score of every
//! position in their first three or four plies, and the bounds the search takes from what
//! each side can still reach, on every reachable position.
//!
//! The reference is a plain minimax over every reachable position, memoised in a hash map
//! keyed by the position: no alpha-beta, no move ordering, no bounds, nothing shared with the
//! solver but the rules and the scoring (a win is worth (cells + 1) / 2 + 1 minus the
//! winner's stones, a draw 0). It walks each board's whole game tree: 4×4 in 0.2 s, 5×4 and
//! 4×5 in about 5 s each in release builds; 4×6 takes 40 s and 6×4 8 minutes this way, so
//! the larger boards are checked against the published results in `docs/connect4.md`.

use std::collections::{HashMap, HashSet};

use puzzlebench::connect4::solve::{Geometry, Position, Solver};

/// A board for the brute force: one bit per cell, column-major, with an empty guard bit on
/// top of each column so that no line wraps from one column into the next.
struct Brute {
    width: usize,
    height: usize,
    cells: i32,
    memo: HashMap<(u64, u64), i32>,
}

impl Brute {
    fn new(width: usize, height: usize) -> Self {
        let cells = (width * height) as i32;
        Brute {
            width,
            height,
            cells,
            memo: HashMap::new(),
        }
    }

    fn stride(&self) -> usize {
        self.height + 1
    }

    /// The row where a stone dropped in `col` lands, if the column is not full.
    fn landing(&self, filled: u64, col: usize) -> Option<usize> {
        (0..self.height).find(|&row| filled & (1u64 << (col * self.stride() + row)) == 0)
    }

    /// Whether `stones` hold four in a row through the cell at `col`, `row`: counts the
    /// stones on either side of it along each direction.
    fn four_through(&self, stones: u64, col: usize, row: usize) -> bool {
        let (w, h) = (self.width as i64, self.height as i64);
        let at = |c: i64, r: i64| {
            (0..w).contains(&c)
                && (0..h).contains(&r)
                && stones & (1u64 << (c as usize * self.stride() + r as usize)) != 0
        };
        let (c, r) = (col as i64, row as i64);
        [(1, 0), (0, 1), (1, 1), (1, -1)].iter().any(|&(dc, dr)| {
            let run = |sign: i64| {
                (1..4)
                    .take_while(|&k| at(c + sign * k * dc, r + sign * k * dr))
                    .count()
            };
            run(1) + run(-1) >= 3
        })
    }

    /// The exact score for the side to move, whose stones are `mine` (`theirs` the other's).
    fn value(&mut self, mine: u64, theirs: u64, moves: i32) -> i32 {
        if moves == self.cells {
            return 0;
        }
        if let Some(&known) = self.memo.get(&(mine, theirs)) {
            return known;
        }
        let mut best = i32::MIN;
        for col in 0..self.width {
            if let Some(row) = self.landing(mine | theirs, col) {
                let cell = 1u64 << (col * self.stride() + row);
                let score = if self.four_through(mine | cell, col, row) {
                    (self.cells + 1 - moves) / 2
                } else {
                    -self.value(theirs, mine | cell, moves + 1)
                };
                best = best.max(score);
            }
        }
        self.memo.insert((mine, theirs), best);
        best
    }

    /// The stones of the side to move and of the other after `columns` (1-based), all legal.
    fn replay(&self, columns: &[usize]) -> (u64, u64) {
        let (mut mine, mut theirs) = (0, 0);
        for &column in columns {
            let row = self
                .landing(mine | theirs, column - 1)
                .expect("a legal move");
            (mine, theirs) = (theirs, mine | 1u64 << ((column - 1) * self.stride() + row));
        }
        (mine, theirs)
    }

    /// The empty board's score and the 0-based columns that achieve it.
    fn empty_board(&mut self) -> (i32, Vec<usize>) {
        let scores: Vec<i32> = (0..self.width)
            .map(|col| -self.value(0, 1u64 << (col * self.stride()), 1))
            .collect();
        let best = *scores.iter().max().expect("a column");
        let moves = (0..self.width).filter(|&c| scores[c] == best).collect();
        (best, moves)
    }
}

/// Checks the empty board's score and best moves, then the score of every position up to
/// `plies` moves deep that is not over yet, all from the one memoised brute force.
fn check(width: usize, height: usize, plies: usize) {
    let mut brute = Brute::new(width, height);
    let (score, best_moves) = brute.empty_board();
    let mut solver = Solver::<u64>::new(width, height, 16);
    let empty = solver.position(&[]).expect("the empty board");
    let analysis = solver.analyze(&empty, false);
    assert_eq!(
        (analysis.score, analysis.best_moves),
        (score, best_moves),
        "{width}×{height}: solver (left) against brute force (right)"
    );
    let mut checked = 0;
    let mut lines: Vec<Vec<usize>> = vec![vec![]];
    for _ in 0..plies {
        let mut next = Vec::new();
        for line in &lines {
            for column in 1..=width {
                let mut moves = line.clone();
                moves.push(column);
                let Ok(position) = solver.position(&moves) else {
                    continue;
                };
                let (mine, theirs) = brute.replay(&moves);
                let expected = brute.value(mine, theirs, moves.len() as i32);
                let (score, _) = solver.score(&position, false);
                assert_eq!(score, expected, "{width}×{height} after {moves:?}");
                checked += 1;
                next.push(moves);
            }
        }
        lines = next;
    }
    assert!(
        checked > width * width,
        "{width}×{height}: only {checked} positions"
    );
}

/// Walks every reachable unfinished position of the board and checks the solver's bounds
/// from what each side can still reach against the brute force's exact score; returns how
/// many positions each bound settled (it must have something to check).
fn check_reachable_bounds(width: usize, height: usize) -> (usize, usize) {
    let mut brute = Brute::new(width, height);
    let geometry = Geometry::<u64>::new(width, height);
    let mut seen = HashSet::new();
    let mut stack = vec![Position::<u64>::default()];
    let (mut capped, mut floored) = (0, 0);
    while let Some(p) = stack.pop() {
        let mine = p.current();
        let theirs = p.current() ^ p.mask();
        let exact = brute.value(mine, theirs, p.moves() as i32);
        if let Some(bound) = geometry.reachable_bound(&p) {
            assert!(
                exact <= bound,
                "{width}×{height}: {mine:#x} {theirs:#x} scores {exact} > {bound}"
            );
            capped += 1;
        }
        if geometry.opponent_blocked(&p) {
            assert!(
                exact >= 0,
                "{width}×{height}: {mine:#x} {theirs:#x} scores {exact} < 0"
            );
            floored += 1;
        }
        for col in 0..width {
            if !geometry.can_play(&p, col) || geometry.is_winning_column(&p, col) {
                continue;
            }
            let mut child = p;
            geometry.play_column(&mut child, col);
            if child.moves() < geometry.cells && seen.insert(child.current() + child.mask()) {
                stack.push(child);
            }
        }
    }
    (capped, floored)
}

#[test]
fn what_each_side_can_still_reach_bounds_the_exact_score() {
    for (width, height) in [(4, 4), (5, 4), (4, 5)] {
        let (capped, floored) = check_reachable_bounds(width, height);
        assert!(
            capped > 1000 && floored > 1000,
            "{width}×{height}: {capped} upper and {floored} lower bounds"
        );
    }
}

#[test]
fn brute_force_scores_a_known_win() {
    // 4×4, first player to move with three stones in the bottom row: it wins with its
    // fourth stone, (16 + 1 − 6) / 2 = 5.
    let stone = |col: usize, row: usize| 1u64 << (col * 5 + row);
    let first = stone(0, 0) | stone(1, 0) | stone(2, 0);
    let second = stone(0, 1) | stone(1, 1) | stone(2, 1);
    assert_eq!(Brute::new(4, 4).value(first, second, 6), 5);
}

#[test]
fn four_by_four() {
    check(4, 4, 4);
}

#[test]
fn five_by_four() {
    check(5, 4, 3);
}

#[test]
fn four_by_five() {
    check(4, 5, 3);
}
