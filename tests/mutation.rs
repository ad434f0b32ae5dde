//! Mutation tests over real records, on stable Rust: every batch command gets thousands of
//! records of the repository's datasets with bytes changed, dropped, repeated and
//! inserted (seeded, so a failure repeats), and must keep the contract — no panic, one row
//! per record in input order whatever `-j`, every error row saying why — within a fixed
//! budget. The library's file readers (suites, opening books, resumed results files) get
//! mutated files and must answer with an error, never a panic.

mod common;

use std::path::Path;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use common::{parse_csv, puzzlebench, repo_datasets};

/// Bytes a mutation may write: printable ASCII, some UTF-8, NUL and a tab, never a line
/// ending, a quote or a comma (so each mutated line stays one record of a known line).
const ALPHABET: &[&str] = &[
    "0",
    "1",
    "4",
    "7",
    "9",
    ".",
    "#",
    " ",
    "x",
    "Z",
    "_",
    "-",
    "\t",
    "\0",
    "é",
    "😀",
    "\u{feff}",
    "[",
    "]",
    "{",
    ":",
    "R",
    "Y",
    "A",
    "G",
    "99999999999999999999",
];

/// Seeds per dataset: about 5 s of the test suite in all.
const SEEDS: u64 = 8;

/// `line` with one to four random edits; never empty, never a comment.
fn mutate(line: &str, rng: &mut ChaCha8Rng) -> String {
    let mut chars: Vec<String> = line.chars().map(String::from).collect();
    for _ in 0..rng.gen_range(1..=4) {
        let at = rng.gen_range(0..=chars.len());
        let piece = ALPHABET[rng.gen_range(0..ALPHABET.len())].to_string();
        match rng.gen_range(0..5) {
            0 if at < chars.len() => chars[at] = piece,
            1 if at < chars.len() => {
                chars.remove(at);
            }
            2 if at < chars.len() => {
                let copy = chars[at].clone();
                chars.insert(at, copy);
            }
            3 => chars.truncate(at),
            _ => chars.insert(at, piece),
        }
    }
    let text: String = chars.concat();
    if text.trim().is_empty() || text.trim_start().starts_with('#') {
        format!("x{text}")
    } else {
        text
    }
}

/// The first `count` record lines of a repository dataset, each mutated with probability
/// one half.
fn mutated_records(dataset: &str, count: usize, seed: u64) -> Vec<String> {
    let text = std::fs::read_to_string(repo_datasets().join(dataset)).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .take(count)
        .map(|line| {
            if rng.gen_bool(0.5) {
                mutate(line, &mut rng)
            } else {
                line.to_string()
            }
        })
        .collect()
}

/// Runs `args` over `lines` with 1 and 2 threads: no panic, exit 0, 1 or 2 as the
/// contract says, one row per line in order, the same rows for both, every failing row
/// with its reason. Returns the error rows.
fn check_contract(args: &[&str], lines: &[String], header: Option<&str>) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("mutated.txt");
    let mut text = header.map(|h| format!("{h}\n")).unwrap_or_default();
    text.push_str(&(lines.join("\n") + "\n"));
    std::fs::write(&input, &text).unwrap();
    let offset = u64::from(header.is_some());
    let mut outputs = Vec::new();
    let mut errors = 0;
    for threads in ["1", "2"] {
        let out = puzzlebench()
            .args(args)
            .args(["-j", threads, "--max-nodes", "200000"])
            .arg(&input)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{args:?}: {:?} {stderr}",
            out.status
        );
        let stdout = String::from_utf8(out.stdout).expect("rows are UTF-8");
        let (columns, rows) = parse_csv(&stdout);
        assert_eq!(rows.len(), lines.len(), "{args:?}: one row per record");
        let column = |name: &str| columns.iter().position(|c| c == name).unwrap();
        let (line, status, error) = (column("line"), column("status"), column("error"));
        for (i, row) in rows.iter().enumerate() {
            assert_eq!(row[line], (i as u64 + 1 + offset).to_string(), "{args:?}");
            errors += usize::from(row[status] == "error");
            if row[status] == "error" || row[status] == "timeout" {
                assert!(!row[error].is_empty(), "{args:?}: {row:?}");
                assert!(row[error].chars().count() < 600, "{args:?}: {row:?}");
            }
        }
        outputs.push(common::without_micros(&stdout));
    }
    assert_eq!(outputs[0], outputs[1], "{args:?}: the rows depend on -j");
    errors / 2
}

#[test]
fn sudoku_lines_and_csv_keep_the_contract_under_mutation() {
    let mut errors = 0;
    for seed in 0..SEEDS {
        let lines = mutated_records("sudoku/generated-hard-200.txt", 200, seed);
        for algo in ["fast", "dlx", "backtrack"] {
            errors += check_contract(&["sudoku", "solve", "--algo", algo], &lines, None);
        }
        let rows: Vec<String> = mutated_records("sudoku/generated-1k.csv", 1001, seed)
            .into_iter()
            .skip(1)
            .collect();
        let header = "puzzle;solution;clues;guesses;difficulty".replace(';', ",");
        errors += check_contract(
            &["sudoku", "solve", "--format", "csv"],
            &rows,
            Some(&header),
        );
    }
    assert!(errors > 100, "the mutations made only {errors} error rows");
}

#[test]
fn connect4_logs_and_positions_keep_the_contract_under_mutation() {
    let mut errors = 0;
    for seed in 0..SEEDS {
        for dataset in ["connect4/games-1k.txt", "connect4/colors-500.txt"] {
            let lines = mutated_records(dataset, 500, seed);
            errors += check_contract(&["connect4", "validate"], &lines, None);
        }
        // Positions: long game prefixes, so that each search is short.
        let games = mutated_records("connect4/games-1k.txt", 300, seed);
        let positions: Vec<String> = games
            .iter()
            .map(|g| g.chars().take(24).collect::<String>())
            .filter(|p| !p.trim().is_empty())
            .collect();
        errors += check_contract(&["connect4", "solve"], &positions, None);
    }
    assert!(errors > 100, "the mutations made only {errors} error rows");
}

#[test]
fn battleship_fields_keep_the_contract_under_mutation() {
    let mut errors = 0;
    for seed in 0..SEEDS {
        for (dataset, rules) in [
            ("battleship/touching-1k.txt", "touching"),
            ("battleship/separated-1k.txt", "separated"),
        ] {
            let lines = mutated_records(dataset, 600, seed);
            errors += check_contract(
                &["battleship", "validate", "--count", "--rules", rules],
                &lines,
                None,
            );
        }
    }
    assert!(errors > 100, "the mutations made only {errors} error rows");
}

/// Mutated whole files given to `read`, which must return, never panic.
fn mutated_files(original: &[u8], seeds: u64, mut read: impl FnMut(&Path)) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mutated");
    for seed in 0..seeds {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut bytes = original.to_vec();
        for _ in 0..rng.gen_range(1..=8) {
            if bytes.is_empty() {
                break;
            }
            let at = rng.gen_range(0..bytes.len());
            match rng.gen_range(0..4) {
                0 => bytes[at] = rng.gen(),
                1 => {
                    bytes.remove(at);
                }
                2 => bytes.truncate(at),
                _ => bytes.insert(at, rng.gen()),
            }
        }
        std::fs::write(&path, &bytes).unwrap();
        read(&path);
    }
}

#[test]
fn suite_files_books_and_results_files_are_read_without_panics() {
    use puzzlebench::connect4::AnyBook;
    use puzzlebench::report::{resume_output, OutputFormat};

    let suite =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/suites/default.toml"))
            .unwrap();
    let kinds = puzzlebench::kinds::all();
    mutated_files(&suite, 400, |path| {
        let text = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
        let _ = puzzlebench::bench::Suite::parse(&text, "mutated.toml", &kinds);
    });
    let book = std::fs::read(repo_datasets().join("connect4/7x6-depth8-weak.book")).unwrap();
    let head = &book[..book.len().min(4096)];
    mutated_files(head, 300, |path| {
        let _ = AnyBook::read(path, 7, 6);
    });
    let results = b"file,line,status,error,micros\na.txt,1,ok,,1.0\nb.txt,7,error,\"x, y\",2.0\n";
    mutated_files(results, 400, |path| {
        let _ = resume_output(path, OutputFormat::Csv, true);
        let _ = resume_output(path, OutputFormat::Csv, false);
        let _ = resume_output(path, OutputFormat::Jsonl, true);
    });
}
