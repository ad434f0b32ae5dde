//! Connect Four solving: exact scores and best moves against a plain memoised minimax on
//! small boards, Pascal Pons's test sets and the 8-ply database through the command line.

mod common;

use std::collections::HashMap;
use std::path::Path;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use common::{assert_none, cell, corpora, parse_csv, run};
use puzzlebench::connect4::solve::{Bits, Solver};

/// The reference: a grid of cells, every four found by scanning, every move tried, no
/// pruning; positions memoised by their grid.
struct Reference {
    width: usize,
    height: usize,
    memo: HashMap<Vec<u8>, i32>,
}

impl Reference {
    fn new(width: usize, height: usize) -> Self {
        Reference {
            width,
            height,
            memo: HashMap::new(),
        }
    }

    /// Drops a stone of `player` into `col`; its row, or `None` when the column is full.
    fn drop(&self, grid: &mut [u8], col: usize, player: u8) -> Option<usize> {
        let row = (0..self.height).find(|&r| grid[col * self.height + r] == 0)?;
        grid[col * self.height + row] = player;
        Some(row)
    }

    fn is_four(&self, grid: &[u8], col: usize, row: usize) -> bool {
        let player = grid[col * self.height + row];
        let at = |c: isize, r: isize| {
            c >= 0
                && r >= 0
                && (c as usize) < self.width
                && (r as usize) < self.height
                && grid[c as usize * self.height + r as usize] == player
        };
        [(0isize, 1isize), (1, 0), (1, 1), (1, -1)]
            .iter()
            .any(|&(dc, dr)| {
                let run = |sign: isize| {
                    (1..4)
                        .take_while(|&k| {
                            at(col as isize + sign * k * dc, row as isize + sign * k * dr)
                        })
                        .count()
                };
                1 + run(1) + run(-1) >= 4
            })
    }

    /// The value of the position for the side to move (whose stones are `player`).
    fn value(&mut self, grid: &mut Vec<u8>, stones: usize, player: u8) -> i32 {
        let cells = self.width * self.height;
        if stones == cells {
            return 0;
        }
        if let Some(&v) = self.memo.get(grid.as_slice()) {
            return v;
        }
        let mut best = i32::MIN;
        for col in 0..self.width {
            let Some(row) = self.drop(grid, col, player) else {
                continue;
            };
            let score = if self.is_four(grid, col, row) {
                // The mover's stones after this one: stones / 2 + 1.
                (cells as i32 + 1) / 2 + 1 - (stones as i32 / 2 + 1)
            } else {
                -self.value(grid, stones + 1, 3 - player)
            };
            grid[col * self.height + row] = 0;
            best = best.max(score);
        }
        self.memo.insert(grid.clone(), best);
        best
    }

    /// Each playable column's score for the side to move after `moves`, or `None` if the
    /// game is over.
    fn column_scores(&mut self, moves: &[usize]) -> Option<Vec<(usize, i32)>> {
        let cells = self.width * self.height;
        let mut grid = vec![0u8; cells];
        for (i, &col) in moves.iter().enumerate() {
            let row = self.drop(&mut grid, col, (i % 2) as u8 + 1)?;
            if self.is_four(&grid, col, row) {
                return None;
            }
        }
        let stones = moves.len();
        if stones == cells {
            return None;
        }
        let player = (stones % 2) as u8 + 1;
        let mut scores = Vec::new();
        for col in 0..self.width {
            let Some(row) = self.drop(&mut grid, col, player) else {
                continue;
            };
            let score = if self.is_four(&grid, col, row) {
                (cells as i32 + 1) / 2 + 1 - (stones as i32 / 2 + 1)
            } else {
                -self.value(&mut grid, stones + 1, 3 - player)
            };
            grid[col * self.height + row] = 0;
            scores.push((col, score));
        }
        Some(scores)
    }
}

/// Random positions (random moves, ending before any four) checked against the reference.
fn differential<M: Bits>(width: usize, height: usize, positions: usize, min_stones: usize) {
    let mut reference = Reference::new(width, height);
    // A tiny table: collisions and replacements are exercised too.
    let mut solver = Solver::<M>::new(width, height, 1);
    let mut rng = ChaCha8Rng::seed_from_u64(width as u64 * 100 + height as u64);
    let mut mismatches = Vec::new();
    let mut checked = 0;
    while checked < positions {
        let stones = rng.gen_range(min_stones..width * height);
        let moves: Vec<usize> = (0..stones).map(|_| rng.gen_range(0..width)).collect();
        let Some(scores) = reference.column_scores(&moves) else {
            continue;
        };
        let score = scores.iter().map(|&(_, s)| s).max().expect("a move");
        let best: Vec<usize> = scores
            .iter()
            .filter(|&&(_, s)| s == score)
            .map(|&(c, _)| c)
            .collect();
        let best_weak: Vec<usize> = scores
            .iter()
            .filter(|&&(_, s)| s.signum() == score.signum())
            .map(|&(c, _)| c)
            .collect();
        let one_based: Vec<usize> = moves.iter().map(|c| c + 1).collect();
        let position = solver
            .position(&one_based)
            .expect("a legal, unfinished position");
        checked += 1;
        let exact = solver.analyze(&position, false);
        let weak = solver.analyze(&position, true);
        if (exact.score, &exact.best_moves) != (score, &best)
            || (weak.score, &weak.best_moves) != (score.signum(), &best_weak)
        {
            mismatches.push(format!(
                "{width}x{height} {one_based:?}: solver {} {:?} / weak {} {:?}, reference {score} {best:?} / weak {best_weak:?}",
                exact.score, exact.best_moves, weak.score, weak.best_moves
            ));
        }
    }
    assert_none(&mismatches);
}

#[test]
fn scores_and_best_moves_agree_with_plain_minimax_on_small_boards() {
    differential::<u64>(4, 4, 300, 0);
    differential::<u64>(5, 4, 150, 6);
    differential::<u128>(4, 5, 100, 6);
    differential::<u64>(6, 4, 20, 12);
}

/// Runs `connect4 solve` with `args` on the first `count` lines of `file` and checks that
/// every position was solved and matched its expected score; returns the rows.
fn solve_checked(file: &Path, count: usize, args: &[&str]) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(file).unwrap();
    let head: String = text.lines().take(count).map(|l| format!("{l}\n")).collect();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("positions.txt");
    std::fs::write(&input, head).unwrap();
    let mut all = vec!["connect4", "solve", input.to_str().unwrap()];
    all.extend(args);
    let output = run(&all);
    let stdout = String::from_utf8(output.stdout).unwrap();
    let (header, rows) = parse_csv(&stdout);
    assert_eq!(
        rows.len(),
        count,
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mismatches: Vec<String> = rows
        .iter()
        .filter(|row| {
            cell(&header, row, "status") != "ok" || cell(&header, row, "expected") != "match"
        })
        .map(|row| format!("{}: {row:?}", file.display()))
        .collect();
    assert_none(&mismatches);
    assert_eq!(output.status.code(), Some(0));
    (header, rows)
}

#[cfg_attr(
    corpora_missing,
    ignore = "needs the public corpora (docs/corpora.md): set PUZZLEBENCH_CORPORA and rebuild"
)]
#[test]
fn exact_scores_on_pons_test_sets() {
    let Some(corpora) = corpora("exact_scores_on_pons_test_sets") else {
        return;
    };
    let pons = corpora.join("connect4/pons");
    // The two Begin sets without best moves (a third of their time; the best moves are
    // checked against minimax above and on the other sets here).
    for (set, count, args) in [
        ("Test_L3_R1.txt", 100, &[][..]),
        ("Test_L2_R1.txt", 100, &[]),
        ("Test_L2_R2.txt", 100, &[]),
        ("Test_L1_R1.txt", 100, &[]),
        ("Test_L1_R2.txt", 100, &["--score-only"]),
        ("Test_L1_R3.txt", 5, &["--score-only"]),
    ] {
        let (header, rows) = solve_checked(&pons.join(set), count, args);
        if !args.is_empty() {
            continue;
        }
        // Every best move is a column, and every position has at least one.
        for row in &rows {
            let best = cell(&header, row, "best_moves");
            assert!(!best.is_empty(), "{set}: {row:?}");
            assert!(best
                .split(' ')
                .all(|c| (1..=7).contains(&c.parse::<u8>().unwrap())));
        }
    }
}

#[cfg_attr(
    corpora_missing,
    ignore = "needs the public corpora (docs/corpora.md): set PUZZLEBENCH_CORPORA and rebuild"
)]
#[test]
fn weak_results_on_pons_test_sets() {
    let Some(corpora) = corpora("weak_results_on_pons_test_sets") else {
        return;
    };
    let pons = corpora.join("connect4/pons");
    for set in ["Test_L3_R1.txt", "Test_L2_R2.txt", "Test_L1_R1.txt"] {
        let (header, rows) = solve_checked(&pons.join(set), 100, &["--weak", "--score-only"]);
        assert!(rows
            .iter()
            .all(|row| cell(&header, row, "score").is_empty()));
    }
}

#[cfg_attr(
    corpora_missing,
    ignore = "needs the public corpora (docs/corpora.md): set PUZZLEBENCH_CORPORA and rebuild"
)]
#[test]
fn weak_results_on_a_sample_of_the_8ply_database() {
    let Some(corpora) = corpora("weak_results_on_a_sample_of_the_8ply_database") else {
        return;
    };
    let text =
        std::fs::read_to_string(corpora.join("connect4/uci-8ply/8ply-positions.txt")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let sample = dir.path().join("sample.txt");
    let lines: String = text
        .lines()
        .step_by(SAMPLE_STEP)
        .map(|l| format!("{l}\n"))
        .collect();
    let count = lines.lines().count();
    std::fs::write(&sample, lines).unwrap();
    let (header, rows) = solve_checked(&sample, count, &["--weak", "--score-only"]);
    // All three labels occur in the sample.
    for label in ["win", "loss", "draw"] {
        assert!(rows.iter().any(|r| cell(&header, r, "result") == label));
    }
}

/// Every how-many-th position of the 8-ply database the tests check.
const SAMPLE_STEP: usize = 3000;

/// In a CSV, an empty score or label cell expects nothing, as an empty solution cell of
/// `sudoku solve` does: the row is solved and not compared. It was an error row.
#[test]
fn an_empty_expected_cell_expects_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("scores.csv");
    std::fs::write(&input, "id,moves,score\na,44,0\nb,4433,\nc,4433,  \n").unwrap();
    let output = run(&[
        "connect4",
        "solve",
        "--width",
        "4",
        "--height",
        "4",
        input.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", common::stderr(&output));
    let (header, rows) = parse_csv(&String::from_utf8(output.stdout).unwrap());
    let seen: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|r| {
            (
                cell(&header, r, "id"),
                cell(&header, r, "status"),
                cell(&header, r, "expected"),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [("a", "ok", "match"), ("b", "ok", ""), ("c", "ok", "")]
    );
}

#[test]
fn bad_positions_say_what_and_where() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("bad.txt");
    std::fs::write(
        &input,
        "4444444\n48\n4455667\n44556677 3\n4x4\n4455 x\n12 bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb win\n",
    )
    .unwrap();
    let output = run(&["connect4", "solve", "--weak", input.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let (header, rows) = parse_csv(&String::from_utf8(output.stdout).unwrap());
    let errors: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (cell(&header, r, "status"), cell(&header, r, "error")))
        .collect();
    assert_eq!(
        errors[0],
        ("error", "illegal move at ply 7: column 4 is full")
    );
    assert_eq!(
        errors[1],
        (
            "error",
            "illegal move at ply 2: column 8 is outside the board (1 to 7)"
        )
    );
    assert_eq!(
        errors[2],
        (
            "error",
            "the game is already over at ply 7: column 7 completes a four"
        )
    );
    assert_eq!(
        errors[3],
        (
            "error",
            "the game is already over at ply 7: column 7 completes a four"
        )
    );
    assert_eq!(
        errors[4],
        (
            "error",
            "moves: character 'x' at column 2 is not a column number"
        )
    );
    assert_eq!(
        errors[5],
        (
            "error",
            "\"x\" at column 6 is neither a score nor win, loss or draw"
        )
    );
    assert_eq!(
        errors[6],
        (
            "error",
            "the board's cell 1 (column 1, row 1) is 'b' but the moves make it 'x'"
        )
    );
    assert_eq!(rows.len(), 7);
    // `-` is the empty board: 4×4 Connect Four is a draw.
    let empty = dir.path().join("empty.txt");
    std::fs::write(&empty, "-\n").unwrap();
    let output = run(&[
        "connect4",
        "solve",
        "--width",
        "4",
        "--height",
        "4",
        empty.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0));
    let (header, rows) = parse_csv(&String::from_utf8(output.stdout).unwrap());
    assert_eq!(
        (
            cell(&header, &rows[0], "result"),
            cell(&header, &rows[0], "score")
        ),
        ("draw", "0")
    );
}

/// Builds a 5×4 book of depth 6 (with `extra` arguments) as `name` in `dir`: its path and
/// what the command printed.
fn book_5x4(dir: &Path, name: &str, extra: &[&str]) -> (std::path::PathBuf, String) {
    let book = dir.join(name);
    let mut args = vec![
        "connect4", "book", "--depth", "6", "--width", "5", "--height", "4",
    ];
    args.extend(["-o", book.to_str().unwrap()]);
    args.extend(extra);
    let output = run(&args);
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    (book, stderr)
}

/// `connect4 solve` on the 5×4 positions in `input` with `extra` arguments: the CSV's
/// header and rows.
fn solve_5x4(input: &Path, extra: &[&str]) -> (Vec<String>, Vec<Vec<String>>) {
    let mut args = vec!["connect4", "solve", "--width", "5", "--height", "4"];
    args.push(input.to_str().unwrap());
    args.extend(extra);
    let output = run(&args);
    assert_eq!(output.status.code(), Some(0));
    parse_csv(&String::from_utf8(output.stdout).unwrap())
}

/// 200 random 5×4 positions of 0 to 10 stones (the empty board first), one per line as
/// digits, and each one's value for the side to move.
fn random_5x4_positions(seed: u64) -> (String, Vec<i32>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut reference = Reference::new(5, 4);
    let value = |scores: Vec<(usize, i32)>| scores.into_iter().map(|(_, s)| s).max().unwrap();
    let mut lines = String::from("-\n");
    let mut values = vec![value(reference.column_scores(&[]).unwrap())];
    while values.len() < 200 {
        let moves: Vec<usize> = (0..rng.gen_range(1..=10))
            .map(|_| rng.gen_range(0..5))
            .collect();
        if let Some(scores) = reference.column_scores(&moves) {
            let digits: String = moves.iter().map(|c| (c + 1).to_string()).collect();
            lines.push_str(&format!("{digits}\n"));
            values.push(value(scores));
        }
    }
    (lines, values)
}

#[test]
fn a_book_gives_the_same_scores_as_the_search() {
    let dir = tempfile::tempdir().unwrap();
    let (book, _) = book_5x4(dir.path(), "5x4.book", &[]);
    let book_path = book.to_str().unwrap();
    let (lines, _) = random_5x4_positions(5);
    let input = dir.path().join("positions.txt");
    std::fs::write(&input, &lines).unwrap();
    let solve = |extra: &[&str]| {
        let (header, rows) = solve_5x4(&input, extra);
        rows.iter()
            .map(|r| {
                let nodes: u64 = cell(&header, r, "nodes").parse().unwrap();
                let answer = ["score", "best_moves"].map(|c| cell(&header, r, c).to_string());
                (answer, nodes)
            })
            .collect::<Vec<_>>()
    };
    let searched = solve(&[]);
    let booked = solve(&["--book", book_path]);
    let answers =
        |rows: &[([String; 2], u64)]| rows.iter().map(|r| r.0.clone()).collect::<Vec<_>>();
    assert_eq!(answers(&searched), answers(&booked));
    // The empty board is in the book: a node per search, none below.
    assert!(
        booked[0].1 < 20 && searched[0].1 > 1000,
        "{:?} {:?}",
        booked[0],
        searched[0]
    );
    // A book for another board is refused before anything runs.
    let output = run(&[
        "connect4",
        "solve",
        "--book",
        book_path,
        input.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("the book is for a 5×4 board, not 7×6")
    );
    // A truncated book says so, once, and how far it goes.
    let bytes = std::fs::read(&book).unwrap();
    let truncated = dir.path().join("truncated.book");
    std::fs::write(&truncated, &bytes[..bytes.len() - 1]).unwrap();
    let mut args = vec!["connect4", "solve", "--width", "5", "--height", "4"];
    args.extend([
        "--book",
        truncated.to_str().unwrap(),
        input.to_str().unwrap(),
    ]);
    let output = run(&args);
    assert_eq!(output.status.code(), Some(2));
    let message = String::from_utf8(output.stderr).unwrap();
    let expected = format!(
        "the file ends after {} bytes, inside the book's scores (truncated, or not a book)",
        bytes.len() - 1
    );
    assert_eq!(message.matches(&expected).count(), 1, "{message}");
}

#[test]
fn a_weak_book_gives_the_weak_search_results_and_only_to_it() {
    let dir = tempfile::tempdir().unwrap();
    let (book, stderr) = book_5x4(dir.path(), "5x4-weak.book", &["--weak"]);
    let book_path = book.to_str().unwrap();
    let size = ["--width", "5", "--height", "4"];
    assert!(
        stderr.contains("book of 5x4, depth 6, weak: 2411 positions"),
        "{stderr}"
    );
    assert!(!dir.path().join("5x4-weak.book.partial").exists());
    let (lines, values) = random_5x4_positions(6);
    let signs: Vec<i32> = values.iter().map(|v| v.signum()).collect();
    let input = dir.path().join("positions.txt");
    std::fs::write(&input, &lines).unwrap();
    let solve = |extra: &[&str]| {
        let mut args = vec!["--weak"];
        args.extend(extra);
        let (header, rows) = solve_5x4(&input, &args);
        rows.iter()
            .map(|r| ["result", "best_moves"].map(|c| cell(&header, r, c).to_string()))
            .collect::<Vec<_>>()
    };
    let searched = solve(&[]);
    let booked = solve(&["--book", book_path]);
    assert_eq!(searched, booked);
    let results: Vec<&str> = booked.iter().map(|r| r[0].as_str()).collect();
    let expected: Vec<&str> = signs
        .iter()
        .map(|s| ["loss", "draw", "win"][(s + 1) as usize])
        .collect();
    assert_eq!(results, expected);
    // Exact scores cannot come from a weak book.
    let mut args = vec![
        "connect4",
        "solve",
        "--book",
        book_path,
        input.to_str().unwrap(),
    ];
    args.extend(size);
    let output = run(&args);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("solve with --weak"));
}

#[test]
fn an_interrupted_book_build_resumes_from_its_checkpoint() {
    use puzzlebench::connect4::solve::{build_book, BookSpec, Checkpoint};
    use std::sync::Mutex;
    let dir = tempfile::tempdir().unwrap();
    let spec = BookSpec {
        width: 5,
        height: 4,
        depth: 5,
        weak: false,
    };
    let fresh = dir.path().join("fresh.book");
    let resumed = dir.path().join("resumed.book");
    let book = |path: &Path| {
        let size = ["--width", "5", "--height", "4", "--depth", "5"];
        let mut args = vec!["connect4", "book", "-o", path.to_str().unwrap()];
        args.extend(size);
        run(&args)
    };
    let build = |path: &Path| {
        let output = book(path);
        let stderr = String::from_utf8_lossy(&output.stderr).to_string();
        assert_eq!(output.status.code(), Some(0), "{stderr}");
        stderr
    };
    build(&fresh);
    // What an interrupted run would have left: every other position at the book's depth.
    let solved = Mutex::new(Vec::new());
    let (_, stats) = build_book::<u64>(&spec, 1, &HashMap::new(), &|position| {
        solved.lock().unwrap().push((position.key, position.score));
    });
    let mut solved = solved.into_inner().unwrap();
    assert_eq!(solved.len(), stats.solved);
    solved.sort_unstable();
    let partial = dir.path().join("resumed.book.partial");
    let (checkpoint, known) = Checkpoint::open::<u64>(&partial, &spec).unwrap();
    assert!(known.is_empty());
    for &(key, score) in solved.iter().step_by(2) {
        checkpoint.record(key, score).unwrap();
    }
    checkpoint.finish().unwrap();
    let half = solved.len().div_ceil(2);
    let stderr = build(&resumed);
    assert!(
        stderr.contains(&format!("{half} positions already solved"))
            && stderr.contains(&format!(
                "({} solved at depth 5, {half} more from the checkpoint",
                solved.len() - half
            )),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(&fresh).unwrap(),
        std::fs::read(&resumed).unwrap()
    );
    assert!(!partial.exists());
    // A checkpoint of another build is refused, not mixed in.
    let (checkpoint, _) =
        Checkpoint::open::<u64>(&partial, &BookSpec { weak: true, ..spec }).unwrap();
    checkpoint.finish().unwrap();
    let output = book(&resumed);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr)
        .contains("not a checkpoint of this build (5x4, depth 5, exact)"));
}
