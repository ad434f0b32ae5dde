//! `puzzlebench sudoku …` end to end: statuses, messages, order, exit codes, formats.

mod common;

use std::io::Write;

use common::{cell, corpora, parse_csv, repo_datasets, run, stderr, stdout, without_micros};
use puzzlebench::sudoku::{check_solution, Grid};

const SEED1: &str =
    "004001700080020000200070000000503078005000400960104000000050009000010060001700200";
const SEED1_SOLUTION: &str =
    "594831726783426915216975834142593678835267491967184352378652149429318567651749283";
const SEED2: &str =
    "800000000003600000070090200050007000000045700000100030001000068008500010090000400";

#[test]
fn mixed_file_gives_one_row_per_record_in_order_with_reasons() {
    let path = repo_datasets().join("sudoku/mixed.txt");
    let output = run(&["sudoku", "solve", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1), "some records fail");
    let (header, rows) = parse_csv(&stdout(&output));
    assert_eq!(
        header,
        [
            "line",
            "status",
            "solutions",
            "guesses",
            "solution",
            "error",
            "micros"
        ]
    );
    let got: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (cell(&header, r, "line"), cell(&header, r, "status")))
        .collect();
    assert_eq!(
        got,
        [
            ("3", "solved"),
            ("5", "error"),
            ("7", "error"),
            ("9", "unsolvable"),
            ("11", "multiple"),
            ("13", "unsolvable"),
            ("15", "solved"),
            ("17", "solved"),
        ]
    );
    let error = |i: usize| cell(&header, &rows[i], "error").to_string();
    assert_eq!(
        error(1),
        "the line has 80 characters; a grid has 16 (4×4), 81 (9×9), 256 (16×16) or 625 (25×25)"
    );
    assert_eq!(
        error(2),
        "bad character 'x' at column 12: a 9×9 grid takes digits 1-9, and . or 0 for a blank"
    );
    assert_eq!(
        error(3),
        "clues conflict: 4 appears twice in row 1 (r1c3 and r1c9)"
    );
    assert_eq!(error(5), "no solution");
    assert_eq!(cell(&header, &rows[0], "solution"), SEED1_SOLUTION);
    assert_eq!(cell(&header, &rows[4], "solutions"), "2");
    // Every solution given is checked independently.
    let puzzles: Vec<String> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect();
    assert_eq!(puzzles.len(), rows.len());
    for (puzzle, row) in puzzles.iter().zip(&rows) {
        let solution = cell(&header, row, "solution");
        if !solution.is_empty() {
            let puzzle = Grid::from_line(puzzle, None).unwrap();
            check_solution(&puzzle, &Grid::from_line(solution, None).unwrap()).unwrap();
        }
    }
}

#[test]
fn csv_with_expected_solutions_and_an_empty_cell() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("quiz.csv");
    let mut bad_solution = SEED1_SOLUTION.to_string();
    bad_solution.replace_range(0..2, "95");
    std::fs::write(
        &path,
        format!(
            "quizzes,solutions\n{SEED1},{SEED1_SOLUTION}\n,{SEED1_SOLUTION}\n\n# comment\n{SEED1},{bad_solution}\n{SEED1}x,\n{SEED1},\n{SEED1},abc\n{SEED1},{SEED1}\n"
        ),
    )
    .unwrap();
    let output = run(&["sudoku", "solve", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let (header, rows) = parse_csv(&stdout(&output));
    assert!(header.contains(&"expected".to_string()));
    let got: Vec<[&str; 4]> = rows
        .iter()
        .map(|r| {
            [
                cell(&header, r, "line"),
                cell(&header, r, "status"),
                cell(&header, r, "expected"),
                cell(&header, r, "error"),
            ]
        })
        .collect();
    assert_eq!(
        got,
        [
            ["2", "solved", "match", ""],
            ["3", "error", "", "empty puzzle in column \"quizzes\""],
            [
                "6",
                "solved",
                "mismatch",
                "the solution differs from column \"solutions\" first at row 1, column 1: 5, expected 9"
            ],
            [
                "7",
                "error",
                "",
                "column \"quizzes\": the line has 82 characters; a grid has 16 (4×4), 81 (9×9), 256 (16×16) or 625 (25×25)"
            ],
            // An empty expected cell expects nothing.
            ["8", "solved", "", ""],
            [
                "9",
                "solved",
                "mismatch",
                "column \"solutions\" is not a solution: the line has 3 characters; a grid has 16 (4×4), 81 (9×9), 256 (16×16) or 625 (25×25)"
            ],
            // The puzzle given as its own solution: its blanks are named.
            [
                "10",
                "solved",
                "mismatch",
                "column \"solutions\" is not a solution: it has 57 blanks"
            ],
        ]
    );
}

#[test]
fn seed_puzzles_match_their_published_solutions() {
    let path = repo_datasets().join("sudoku/seed-puzzles.csv");
    let output = run(&[
        "sudoku",
        "solve",
        path.to_str().unwrap(),
        "--algo",
        "backtrack",
    ]);
    assert_eq!(output.status.code(), Some(0));
    let (header, rows) = parse_csv(&stdout(&output));
    assert_eq!(rows.len(), 2);
    for row in &rows {
        assert_eq!(cell(&header, row, "status"), "solved");
        assert_eq!(cell(&header, row, "expected"), "match");
    }
}

#[test]
fn missing_file_is_exit_2_with_one_line() {
    let output = run(&["sudoku", "solve", "no/such/file.txt"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("puzzlebench: cannot read no/such/file.txt"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn unknown_csv_column_and_bad_usage_are_exit_2() {
    let path = repo_datasets().join("sudoku/seed-puzzles.csv");
    let output = run(&[
        "sudoku",
        "solve",
        path.to_str().unwrap(),
        "--column",
        "grid",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("no column \"grid\""), "{stderr}");
    // A CSV column named for inputs that are all lines would be ignored: it is refused.
    let lines = repo_datasets().join("sudoku/mixed.txt");
    for args in [
        &["sudoku", "solve", "--column", "quizzes"][..],
        &["sudoku", "solve", "--expected-column", "solutions"],
        &["sudoku", "show", "--column", "quizzes"],
    ] {
        let output = run(&[args, &[lines.to_str().unwrap()]].concat());
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(
            stderr.contains("names a CSV column, but no input is read as CSV"),
            "{stderr}"
        );
    }
    assert_eq!(
        run(&["sudoku", "solve", "--limit", "0"]).status.code(),
        Some(2)
    );
    assert_eq!(
        run(&["sudoku", "solve", "--size", "10"]).status.code(),
        Some(2)
    );
}

#[test]
fn standard_input_jsonl_and_limit_one() {
    let mut child = common::puzzlebench()
        .args([
            "sudoku",
            "solve",
            "--limit",
            "1",
            "--output-format",
            "jsonl",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let empty = ".".repeat(81);
    write!(child.stdin.take().unwrap(), "{SEED2}\n\n{empty}\n").unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let rows: Vec<serde_json::Value> = stdout(&output)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["line"], 1);
    assert_eq!(rows[1]["line"], 3);
    // With --limit 1 the empty grid stops at its first solution.
    assert_eq!(rows[1]["status"], "solved");
    assert_eq!(rows[1]["solutions"], 1);
}

#[test]
fn report_folder_has_every_file() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report");
    let path = repo_datasets().join("sudoku/mixed.txt");
    let output = run(&[
        "sudoku",
        "solve",
        path.to_str().unwrap(),
        "-o",
        dir.path().join("out.csv").to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
        "--threads",
        "2",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report.join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["records"], 8);
    assert_eq!(summary["failed"], 4);
    assert_eq!(summary["statuses"]["solved"], 3);
    assert_eq!(summary["statuses"]["multiple"], 1);
    assert_eq!(summary["statuses"]["unsolvable"], 2);
    assert_eq!(summary["statuses"]["error"], 2);
    assert_eq!(summary["threads"], 2);
    assert_eq!(summary["settings"]["algorithm"], "fast", "the default");
    assert!(summary["latency_us"]["p99"].as_f64().unwrap() > 0.0);
    let (header, rows) = parse_csv(&std::fs::read_to_string(report.join("summary.csv")).unwrap());
    assert_eq!(rows.len(), 1);
    assert_eq!(cell(&header, &rows[0], "status_error"), "2");
    assert_eq!(cell(&header, &rows[0], "records"), "8");
    let markdown = std::fs::read_to_string(report.join("summary.md")).unwrap();
    assert!(markdown.contains("| unsolvable | 2 |"), "{markdown}");
    let env: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report.join("env.json")).unwrap()).unwrap();
    assert_eq!(env["tool"], "puzzlebench");
    assert_eq!(env["threads"], 2);
    assert!(env["cores"].as_u64().unwrap() >= 1);
    let rows_written = std::fs::read_to_string(dir.path().join("out.csv")).unwrap();
    assert_eq!(rows_written.lines().count(), 9);
}

#[test]
fn several_inputs_add_a_file_column() {
    let mixed = repo_datasets().join("sudoku/mixed.txt");
    let seeds = repo_datasets().join("sudoku/seed-puzzles.csv");
    let output = run(&[
        "sudoku",
        "solve",
        mixed.to_str().unwrap(),
        seeds.to_str().unwrap(),
    ]);
    let (header, rows) = parse_csv(&stdout(&output));
    assert_eq!(header[0], "file");
    assert_eq!(rows.len(), 10);
    assert!(rows[0][0].ends_with("mixed.txt"));
    assert!(rows[9][0].ends_with("seed-puzzles.csv"));
    assert_eq!(cell(&header, &rows[9], "expected"), "match");
}

#[test]
fn show_prints_blocks_beside_solutions() {
    let path = repo_datasets().join("sudoku/seed-puzzles.csv");
    let output = run(&["sudoku", "show", path.to_str().unwrap(), "--solve"]);
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "line 3: 24 clues, solved");
    assert_eq!(lines[1], "..4|..1|7..    594|831|726");
    assert_eq!(lines[4], "---+---+---    ---+---+---");
}

#[test]
fn a_mismatch_names_digits_as_the_expected_grid_writes_them() {
    // A 16×16 grid written as numbers: its digits past 9 are told as numbers, not letters.
    let solution: Vec<u8> = (0..256)
        .map(|cell| {
            let (r, c) = (cell / 16, cell % 16);
            ((r * 4 + r / 4 + c) % 16) as u8 + 1
        })
        .collect();
    let numbers = |cells: &[u8]| {
        let words: Vec<String> = cells.iter().map(|d| d.to_string()).collect();
        words.join(" ")
    };
    let mut puzzle = solution.clone();
    puzzle[9] = 0;
    puzzle[10] = 0;
    let mut expected = solution.clone();
    expected.swap(9, 10);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sixteen.csv");
    let as_characters: String = expected
        .iter()
        .map(|&d| {
            char::from_digit(u32::from(d), 17)
                .unwrap()
                .to_ascii_uppercase()
        })
        .collect();
    std::fs::write(
        &path,
        format!(
            "puzzle,solution\n{},{}\n{},{as_characters}\n",
            numbers(&puzzle),
            numbers(&expected),
            numbers(&puzzle)
        ),
    )
    .unwrap();
    let output = run(&["sudoku", "solve", path.to_str().unwrap()]);
    let (header, rows) = parse_csv(&stdout(&output));
    let errors: Vec<&str> = rows.iter().map(|r| cell(&header, r, "error")).collect();
    assert_eq!(
        errors,
        [
            "the solution differs from column \"solution\" first at row 1, column 10: 10, \
             expected 11",
            "the solution differs from column \"solution\" first at row 1, column 10: A, \
             expected B",
        ]
    );
}

#[test]
fn show_names_the_csv_column_of_a_bad_puzzle() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("quiz.csv");
    std::fs::write(&path, format!("quizzes,solutions\nabc,\n{SEED1},\n")).unwrap();
    let output = run(&["sudoku", "show", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert!(
        text.contains("column \"quizzes\": the line has 3 characters"),
        "{text}"
    );
    assert!(text.contains("line 3: 24 clues\n"), "{text}");
}

#[test]
fn show_keeps_to_a_budget() {
    // The generated 16×16 file's puzzles need guesses: with none allowed, each is shown
    // as a timeout with the budget it ran into, and every one is shown.
    let path = repo_datasets().join("sudoku/generated-16x16-20.txt");
    let output = run(&[
        "sudoku",
        "show",
        "--solve",
        "--max-nodes",
        "0",
        path.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    let headings: Vec<&str> = text.lines().filter(|l| l.starts_with("line ")).collect();
    assert_eq!(headings.len(), 20);
    assert!(
        headings.iter().all(|h| h.ends_with(", timeout")),
        "{headings:?}"
    );
    assert!(text.contains("  stopped at the node budget (--max-nodes 0)"));
    let output = run(&["sudoku", "show", "--timeout", "1s", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("--solve"));
}

#[test]
fn grids_from_36x36_on_are_solved_as_lines_of_numbers() {
    for (file, side) in [
        ("sudoku/generated-36x36-10.csv", 36),
        ("sudoku/generated-49x49-4.csv", 49),
    ] {
        let path = repo_datasets().join(file);
        let (input_header, inputs) = parse_csv(&std::fs::read_to_string(&path).unwrap());
        let output = run(&["sudoku", "solve", path.to_str().unwrap()]);
        assert_eq!(output.status.code(), Some(0), "{file}");
        let (header, rows) = parse_csv(&stdout(&output));
        assert_eq!(rows.len(), inputs.len(), "{file}");
        for (row, input) in rows.iter().zip(&inputs) {
            assert_eq!(cell(&header, row, "status"), "solved", "{file}");
            assert_eq!(cell(&header, row, "expected"), "match", "{file}");
            let puzzle = Grid::from_line(cell(&input_header, input, "puzzle"), None).unwrap();
            let solution = Grid::from_line(cell(&header, row, "solution"), None).unwrap();
            assert_eq!((puzzle.side(), solution.side()), (side, side));
            check_solution(&puzzle, &solution).unwrap();
        }
    }
}

#[test]
fn bad_lines_of_numbers_say_which_number_and_where() {
    let path = repo_datasets().join("sudoku/generated-36x36-10.csv");
    let (input_header, inputs) = parse_csv(&std::fs::read_to_string(&path).unwrap());
    let puzzle = cell(&input_header, &inputs[0], "puzzle");
    let mut numbers: Vec<&str> = puzzle.split(' ').collect();
    let column = numbers[..10].iter().map(|n| n.len() + 1).sum::<usize>() + 1;
    numbers[10] = "37";
    let bad = numbers.join(" ");
    let short = puzzle.rsplit_once(' ').unwrap().0;
    let characters = "1".repeat(36 * 36);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.txt");
    std::fs::write(&file, [puzzle, &bad, short, &characters, puzzle].join("\n")).unwrap();
    let output = run(&["sudoku", "solve", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let (header, rows) = parse_csv(&stdout(&output));
    let got: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (cell(&header, r, "status"), cell(&header, r, "error")))
        .collect();
    let bad_number = format!(
        "bad number \"37\" (number 11, at column {column}): a 36×36 grid takes 1-36, and . or 0 \
         for a blank"
    );
    assert_eq!(
        got,
        [
            ("solved", ""),
            ("error", bad_number.as_str()),
            (
                "error",
                "the line has 1295 numbers; a grid has 16 (4×4), 81 (9×9), 256 (16×16), 625 \
                 (25×25), 1296 (36×36), 2401 (49×49), 4096 (64×64), 6561 (81×81) or 10000 \
                 (100×100)"
            ),
            (
                "error",
                "the line has 1296 characters; a grid has 16 (4×4), 81 (9×9), 256 (16×16) or \
                 625 (25×25); a larger grid is written as numbers separated by spaces"
            ),
            ("solved", ""),
        ]
    );
    // A mismatch names the digits as numbers.
    let solution = cell(&input_header, &inputs[0], "solution");
    let mut wrong: Vec<&str> = solution.split(' ').collect();
    let (first, second) = (wrong[0], wrong[1]);
    wrong.swap(0, 1);
    let csv = dir.path().join("big.csv");
    std::fs::write(
        &csv,
        format!("puzzle,solution\n{puzzle},{}\n", wrong.join(" ")),
    )
    .unwrap();
    let output = run(&["sudoku", "solve", csv.to_str().unwrap()]);
    let (header, rows) = parse_csv(&stdout(&output));
    assert_eq!(
        cell(&header, &rows[0], "error"),
        format!(
            "the solution differs from column \"solution\" first at row 1, column 1: {first}, \
             expected {second}"
        )
    );
    // `show` draws the numbers in columns, boxes apart.
    let output = run(&["sudoku", "show", "--solve", file.to_str().unwrap()]);
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "line 1: 730 clues, solved");
    let first_row: Vec<&str> = puzzle.split(' ').take(6).collect();
    let drawn: Vec<&str> = lines[1].split_whitespace().take(7).collect();
    assert_eq!((&drawn[..6], drawn[6]), (&first_row[..], "|"));
    assert!(
        lines[7].starts_with("------------------+---"),
        "{}",
        lines[7]
    );
}

#[cfg_attr(
    corpora_missing,
    ignore = "needs the public corpora (docs/corpora.md): set PUZZLEBENCH_CORPORA and rebuild"
)]
#[test]
fn thread_counts_and_gzip_give_identical_rows() {
    let Some(corpora) = corpora("thread_counts_and_gzip_give_identical_rows") else {
        return;
    };
    let source = corpora.join("sudoku/17-clue.txt");
    let dir = tempfile::tempdir().unwrap();
    // 6,000 puzzles: several chunks per thread.
    let text: String = std::fs::read_to_string(source)
        .unwrap()
        .lines()
        .take(6000)
        .map(|l| format!("{l}\n"))
        .collect();
    let plain = dir.path().join("puzzles.txt");
    std::fs::write(&plain, &text).unwrap();
    let gz = dir.path().join("puzzles.txt.gz");
    let mut encoder = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::fast(),
    );
    encoder.write_all(text.as_bytes()).unwrap();
    encoder.finish().unwrap();
    let solve = |input: &std::path::Path, threads: &str| {
        let out = dir.path().join(format!("out-{threads}.csv"));
        let output = run(&[
            "sudoku",
            "solve",
            input.to_str().unwrap(),
            "--threads",
            threads,
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(output.status.code(), Some(0));
        without_micros(&std::fs::read_to_string(out).unwrap())
    };
    let one = solve(&plain, "1");
    let two = solve(&plain, "2");
    let records = text.lines().filter(|l| !l.starts_with('#')).count();
    assert!(records > 5900);
    assert_eq!(
        one.lines().count(),
        records + 1,
        "a header and one row per puzzle"
    );
    assert_eq!(one, two);
    assert_eq!(solve(&gz, "2"), one);
}

#[test]
fn more_clues_than_cells_is_refused_before_any_file_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("puzzles.csv");
    let output = run(&[
        "sudoku",
        "generate",
        "--min-clues",
        "82",
        "-o",
        path.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output).trim(),
        "puzzlebench: --min-clues 82 is more than the 81 cells of a 9×9 grid"
    );
    assert!(!path.exists());
}

#[test]
fn generated_puzzles_are_unique_and_reproducible() {
    let dir = tempfile::tempdir().unwrap();
    let generate = |name: &str, threads: &str| {
        let path = dir.path().join(name);
        let output = run(&[
            "sudoku",
            "generate",
            "--count",
            "40",
            "--seed",
            "11",
            "--format",
            "csv",
            "--threads",
            threads,
            "-o",
            path.to_str().unwrap(),
        ]);
        assert_eq!(output.status.code(), Some(0));
        path
    };
    let one = generate("one.csv", "1");
    let two = generate("two.csv", "2");
    let text = std::fs::read_to_string(&one).unwrap();
    assert_eq!(
        text,
        std::fs::read_to_string(&two).unwrap(),
        "same seed, same file"
    );
    assert_eq!(text.lines().count(), 41);
    // Unique by another algorithm than the generator's, and its solution is the one given.
    let output = run(&[
        "sudoku",
        "solve",
        one.to_str().unwrap(),
        "--algo",
        "backtrack",
    ]);
    assert_eq!(output.status.code(), Some(0));
    let (header, rows) = parse_csv(&stdout(&output));
    assert!(rows.iter().all(|r| cell(&header, r, "status") == "solved"));
    assert!(rows.iter().all(|r| cell(&header, r, "expected") == "match"));
    // Hard puzzles need guesses.
    let hard = dir.path().join("hard.csv");
    let output = run(&[
        "sudoku",
        "generate",
        "--count",
        "5",
        "--seed",
        "2",
        "--difficulty",
        "hard",
        "--format",
        "csv",
        "-o",
        hard.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0));
    let (header, rows) = parse_csv(&std::fs::read_to_string(hard).unwrap());
    assert!(rows
        .iter()
        .all(|r| cell(&header, r, "guesses").parse::<u64>().unwrap() >= 6));
}
