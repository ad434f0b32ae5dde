//! The result rows of the batch commands on the repository's own data, byte for byte,
//! against rows stored in `tests/expected/rows/` (written by the build before the runner's
//! rows were formatted in place; see docs/performance.md, "The runner's throughput").
//! Only the `micros` column, a timing, is left out of the comparison, and it is checked
//! to be a number with one decimal on every row.
//!
//! `PUZZLEBENCH_ROWS_FROM=BINARY cargo test --test rows_unchanged` writes the expected
//! files again from BINARY's output (a known-good build), instead of comparing.

use std::path::Path;
use std::process::Command;

/// Each case: the expected file's name and the command's arguments (run from the
/// repository's root).
const CASES: &[(&str, &[&str])] = &[
    (
        "sudoku-generated.csv",
        &[
            "sudoku",
            "solve",
            "--shard",
            "1/4",
            "datasets/sudoku/generated-1k.csv",
        ],
    ),
    (
        "sudoku-seed.csv",
        &["sudoku", "solve", "datasets/sudoku/seed-puzzles.csv"],
    ),
    (
        "sudoku-mixed.csv",
        &["sudoku", "solve", "-j1", "datasets/sudoku/mixed.txt"],
    ),
    (
        "sudoku-mixed.jsonl",
        &[
            "sudoku",
            "solve",
            "--output-format",
            "jsonl",
            "datasets/sudoku/mixed.txt",
        ],
    ),
    (
        "sudoku-hostile.csv",
        &[
            "sudoku",
            "solve",
            "--column",
            "quizzes",
            "tests/data/rows/sudoku-hostile.csv",
        ],
    ),
    (
        "sudoku-hostile.jsonl",
        &[
            "sudoku",
            "solve",
            "--column",
            "quizzes",
            "--output-format",
            "jsonl",
            "tests/data/rows/sudoku-hostile.csv",
        ],
    ),
    // Rows the Sudoku job writes itself (CSV with no carried column): expected
    // solutions matched as text, as grids and not at all, under a column whose name
    // needs quoting; rows it leaves to the runner (no solution, errors, a short row).
    (
        "sudoku-expected.csv",
        &[
            "sudoku",
            "solve",
            "-j1",
            "--expected-column",
            "the, answer",
            "tests/data/rows/sudoku-expected.csv",
        ],
    ),
    (
        "sudoku-two-inputs.csv",
        &[
            "sudoku",
            "solve",
            "-j2",
            "datasets/sudoku/mixed.txt",
            "datasets/sudoku/seed-puzzles.csv",
        ],
    ),
    (
        "sudoku-16x16.csv",
        &[
            "sudoku",
            "solve",
            "--size",
            "16",
            "datasets/sudoku/generated-16x16-20.txt",
        ],
    ),
    (
        "connect4-games.csv",
        &[
            "connect4",
            "validate",
            "--shard",
            "1/4",
            "datasets/connect4/games-1k.txt",
        ],
    ),
    (
        "connect4-colors.csv",
        &[
            "connect4",
            "validate",
            "--shard",
            "2/3",
            "datasets/connect4/colors-500.txt",
        ],
    ),
    (
        "connect4-mixed.csv",
        &["connect4", "validate", "tests/data/rows/connect4-mixed.txt"],
    ),
    (
        "connect4-mixed.jsonl",
        &[
            "connect4",
            "validate",
            "--output-format",
            "jsonl",
            "tests/data/rows/connect4-mixed.txt",
        ],
    ),
    (
        "battleship-touching.csv",
        &[
            "battleship",
            "validate",
            "--shard",
            "1/4",
            "datasets/battleship/touching-1k.txt",
        ],
    ),
    (
        "battleship-two-inputs.csv",
        &[
            "battleship",
            "validate",
            "--rules",
            "separated",
            "--shard",
            "3/5",
            "datasets/battleship/seed-field.txt",
            "datasets/battleship/separated-1k.txt",
        ],
    ),
    (
        "battleship-mixed.csv",
        &[
            "battleship",
            "validate",
            "tests/data/rows/battleship-mixed.txt",
        ],
    ),
];

/// `output` without the `micros` values: the last cell of each CSV row, the last key of
/// each JSON object. Panics if a row has no such value.
fn without_micros(name: &str, output: &str) -> String {
    let mut kept = String::new();
    let mut lines = output.split_inclusive('\n');
    if name.ends_with(".csv") {
        let header = lines.next().expect("a header");
        assert!(header.ends_with(",micros\n"), "{name}: header {header:?}");
        kept.push_str(header);
    }
    for line in lines {
        let (head, micros, end) = if name.ends_with(".jsonl") {
            let at = line.rfind(",\"micros\":").expect("a micros key");
            let end = line.len() - "}\n".len();
            (&line[..at], &line[at + ",\"micros\":".len()..end], "}\n")
        } else {
            // A quoted field may span lines: only a row's last line ends with `micros`.
            match line.trim_end_matches('\n').rsplit_once(',') {
                Some((head, tail)) if is_micros(tail) => (head, tail, "\n"),
                _ => {
                    kept.push_str(line);
                    continue;
                }
            }
        };
        assert!(is_micros(micros), "{name}: micros {micros:?} in {line:?}");
        kept.push_str(head);
        kept.push_str(end);
    }
    kept
}

/// Whether `text` is a number with one decimal, as `micros` is written.
fn is_micros(text: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    matches!(text.split_once('.'), Some((whole, tenth)) if digits(whole) && tenth.len() == 1 && digits(tenth))
}

fn run(binary: &str, args: &[&str]) -> String {
    let root = env!("CARGO_MANIFEST_DIR");
    let output = Command::new(binary)
        .args(args)
        .current_dir(root)
        .output()
        .unwrap_or_else(|e| panic!("{binary}: {e}"));
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "{args:?}: {:?}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("rows are UTF-8")
}

#[test]
fn rows_equal_the_stored_rows_but_for_timings() {
    let expected_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expected/rows");
    let bless = std::env::var("PUZZLEBENCH_ROWS_FROM").ok();
    let mut differing = Vec::new();
    for (name, args) in CASES {
        let path = expected_dir.join(name);
        if let Some(binary) = &bless {
            let rows = without_micros(name, &run(binary, args));
            std::fs::write(&path, rows).unwrap();
            continue;
        }
        let rows = without_micros(name, &run(env!("CARGO_BIN_EXE_puzzlebench"), args));
        let expected =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(rows.lines().count() > 1, "{name}: no rows");
        if rows != expected {
            let line = rows
                .lines()
                .zip(expected.lines())
                .position(|(a, b)| a != b)
                .map_or(rows.lines().count().min(expected.lines().count()), |i| i);
            differing.push(format!(
                "{name} ({}): first difference at output line {}:\n  got      {:?}\n  expected {:?}",
                args.join(" "),
                line + 1,
                rows.lines().nth(line).unwrap_or(""),
                expected.lines().nth(line).unwrap_or(""),
            ));
        }
    }
    assert!(differing.is_empty(), "{}", differing.join("\n"));
}

#[test]
fn micros_are_stripped_only_where_they_are() {
    let csv = "line,status,error,micros\n1,ok,,12.5\n2,error,\"a\nb, 3.5\",0.0\n";
    assert_eq!(
        without_micros("x.csv", csv),
        "line,status,error,micros\n1,ok,\n2,error,\"a\nb, 3.5\"\n"
    );
    let jsonl = "{\"line\":1,\"micros\":3.25}\n";
    assert!(std::panic::catch_unwind(|| without_micros("x.jsonl", jsonl)).is_err());
    assert_eq!(
        without_micros("x.jsonl", "{\"line\":1,\"micros\":3.2}\n"),
        "{\"line\":1}\n"
    );
}
