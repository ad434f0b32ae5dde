//! `tiling count` and `checkerboard count|solve` at their edges: counts beyond `u64`, byte
//! order marks, `--progress` off a terminal, `--timeout`, and output that cannot be
//! written.

mod common;

use std::path::{Path, PathBuf};

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{puzzlebench, repo_datasets, run, stderr, stdout, write};

#[test]
fn files_may_start_with_a_byte_order_mark() {
    let dir = tempfile::tempdir().unwrap();
    let stones = std::fs::read_to_string(repo_datasets().join("tiling/4x4_stones.txt")).unwrap();
    let marked = write(dir.path(), "4x4_bom.txt", format!("\u{feff}{stones}"));
    let board = write(dir.path(), "board.txt", "\u{feff}BWBW\nWBWB\nBWBW\nWBWB\n");
    let expected = "labelled: 24\ntilings: 6\nup_to_symmetry: 2\n";
    let output = run(&["checkerboard", "count", marked.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), expected);
    let output = run(&[
        "checkerboard",
        "count",
        marked.to_str().unwrap(),
        "--board-file",
        board.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), expected);
    let output = run(&[
        "checkerboard",
        "solve",
        marked.to_str().unwrap(),
        "--limit",
        "1",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).starts_with("solution 1\n"));
    // A pieces file of `#` cells, and a plain board file, each with a mark.
    let pieces = write(dir.path(), "dominoes.txt", "\u{feff}#,#\n===\n#,#\n===\n");
    let square = write(dir.path(), "square.txt", "\u{feff}##\n##\n");
    let output = run(&[
        "tiling",
        "count",
        "--pieces",
        pieces.to_str().unwrap(),
        "--board-file",
        square.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "labelled: 4\ntilings: 2\nup_to_symmetry: 1\n"
    );
}

/// A pieces file of `count` separate pieces, each `piece` (rows of a stones file).
fn separate_pieces(dir: &Path, name: &str, piece: &str, count: usize) -> PathBuf {
    write(dir, name, format!("{piece}\n===\n").repeat(count))
}

#[test]
fn counts_beyond_u64_and_u128_are_exact() {
    let dir = tempfile::tempdir().unwrap();
    // 18 dominoes on 6×6: 6,728 tilings, each labelled 18! ways (past u64::MAX); 930 of
    // them differ up to the square's symmetries.
    let dominoes = separate_pieces(dir.path(), "dom18.txt", "#,#", 18);
    let dominoes = dominoes.to_str().unwrap();
    let output = run(&["tiling", "count", "--pieces", dominoes, "--board", "6x6"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "labelled: 43075170292137984000\ntilings: 6728\nup_to_symmetry: 930\n"
    );
    // In JSON a count past u64 is a string of its digits; the others stay numbers.
    let output = run(&[
        "tiling", "count", "--pieces", dominoes, "--board", "6x6", "--json",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "{\"labelled\":\"43075170292137984000\",\"tilings\":6728,\"up_to_symmetry\":930}\n"
    );
    // The same stones through `checkerboard count`.
    let output = run(&["checkerboard", "count", dominoes, "--board", "6x6"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).starts_with("labelled: 43075170292137984000\n"));
    // 36 monominoes on 6×6: one tiling, 36! labellings, more than u128 holds.
    let monominoes = separate_pieces(dir.path(), "mono36.txt", "#", 36);
    let output = run(&[
        "tiling",
        "count",
        "--pieces",
        monominoes.to_str().unwrap(),
        "--board",
        "6x6",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "labelled: 371993326789901217467999448150835200000000\ntilings: 1\nup_to_symmetry: 1\n"
    );
}

#[test]
fn progress_is_shown_off_a_terminal_when_asked() {
    // Standard error is a pipe here, never a terminal.
    let output = run(&[
        "tiling",
        "count",
        "--board",
        "6x10",
        "--no-symmetry",
        "-j",
        "1",
        "--progress",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).starts_with("labelled: 9356\n"));
    let text = stderr(&output);
    let last = text.lines().last().unwrap_or_default();
    let (done, rest) = last
        .strip_prefix("puzzlebench: ")
        .and_then(|l| l.split_once('/'))
        .unwrap_or_else(|| panic!("no progress line: {text:?}"));
    assert!(
        rest.starts_with(&format!("{done} parts searched, 9356 solutions, ")),
        "{last}"
    );
    assert!(
        last.contains(" parts/s, ") && last.ends_with("ETA 0s"),
        "{last}"
    );
    // Without --progress, nothing on a pipe.
    let output = run(&["tiling", "count", "--board", "20x3"]);
    assert_eq!(stderr(&output), "");
    let stones = repo_datasets().join("tiling/4x4_stones.txt");
    let output = run(&[
        "checkerboard",
        "count",
        stones.to_str().unwrap(),
        "--progress",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stderr(&output).contains(" parts searched, 12 solutions, "),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_timeout_stops_the_count_and_reports_it_partial() {
    let dir = tempfile::tempdir().unwrap();
    // Every labelling of 18 dominoes on 6×6 (18! × 6,728): far beyond any timeout.
    let dominoes = separate_pieces(dir.path(), "dom18.txt", "#,#", 18);
    let dominoes = dominoes.to_str().unwrap();
    for verb in ["tiling", "checkerboard"] {
        let mut args = match verb {
            "tiling" => vec!["tiling", "count", "--pieces", dominoes],
            _ => vec!["checkerboard", "count", dominoes],
        };
        args.extend(["--board", "6x6", "--no-symmetry", "--timeout", "300ms"]);
        let start = Instant::now();
        let output = run(&args);
        let elapsed = start.elapsed();
        assert_eq!(output.status.code(), Some(1), "{verb}: {}", stderr(&output));
        assert!(elapsed < Duration::from_secs(10), "{verb}: {elapsed:?}");
        let text = stdout(&output);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(lines[0].starts_with("labelled: "), "{text}");
        assert!(
            lines[3].starts_with("partial: stopped after the timeout of 300ms, 0 of "),
            "{text}"
        );
        assert!(
            lines[3].ends_with(" parts of the search finished; the counts are lower bounds"),
            "{text}"
        );
        args.push("--json");
        let output = run(&args);
        assert_eq!(output.status.code(), Some(1), "{verb}: {}", stderr(&output));
        let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
        assert_eq!(json["partial"], true, "{json}");
        assert!(json["labelled"].as_u64().unwrap() > 0, "{json}");
        assert!(json["parts_total"].as_u64().unwrap() > 0, "{json}");
    }
    // A count that finishes in time is complete: no partial line, exit code 0.
    let output = run(&["tiling", "count", "--board", "20x3", "--timeout", "1m"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "labelled: 8\ntilings: 8\nup_to_symmetry: 2\n"
    );
    let output = run(&[
        "tiling",
        "count",
        "--board",
        "20x3",
        "--timeout",
        "2s",
        "--json",
    ]);
    assert_eq!(
        stdout(&output),
        "{\"labelled\":8,\"tilings\":8,\"up_to_symmetry\":2}\n"
    );
    // A timeout of 0, as in the batch commands, is one: the count stops before any part,
    // before even building the problem.
    let output = run(&["tiling", "count", "--board", "20x3", "--timeout", "0s"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.starts_with("labelled: 0\n"), "{text}");
    assert!(
        text.contains("partial: stopped after the timeout of 0s while the search was being prepared, before any part of it"),
        "{text}"
    );
    // A timeout that is not one is a usage error.
    for bad in ["soon", "5"] {
        let output = run(&["tiling", "count", "--board", "20x3", "--timeout", bad]);
        assert_eq!(output.status.code(), Some(2), "{bad}");
        assert!(stderr(&output).contains("--timeout"), "{}", stderr(&output));
    }
}

/// Runs `puzzlebench` with `args` and its standard output on `/dev/full` (a device that
/// is always full); `None` where there is no such device.
fn run_into_full_device(args: &[&str]) -> Option<std::process::Output> {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .ok()?;
    Some(
        puzzlebench()
            .args(args)
            .stdout(full)
            .output()
            .expect("the binary runs"),
    )
}

#[test]
fn output_that_cannot_be_written_is_one_line_and_exit_code_2() {
    let stones = repo_datasets().join("tiling/4x4_stones.txt");
    let stones = stones.to_str().unwrap();
    let cases: [(&[&str], &str); 5] = [
        (
            &["tiling", "count", "--board", "10x6"],
            "the counts to standard output",
        ),
        (
            &["tiling", "count", "--board", "10x6", "--json"],
            "the counts to standard output",
        ),
        (
            &["checkerboard", "count", stones],
            "the counts to standard output",
        ),
        (
            &["checkerboard", "solve", stones],
            "the solutions to standard output",
        ),
        (
            &["checkerboard", "solve", stones, "-o", "/dev/full"],
            "the solutions to /dev/full",
        ),
    ];
    for (args, what) in cases {
        let Some(output) = run_into_full_device(args) else {
            eprintln!("skipped: no /dev/full on this system");
            return;
        };
        let text = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {text}");
        assert_eq!(text.lines().count(), 1, "{args:?}: {text}");
        assert!(
            text.starts_with(&format!("puzzlebench: cannot write {what}: ")),
            "{args:?}: {text}"
        );
    }
}

#[test]
fn a_reader_that_goes_away_ends_the_output_quietly() {
    let dir = tempfile::tempdir().unwrap();
    // Far more solutions than a pipe holds.
    let dominoes = separate_pieces(dir.path(), "dom18.txt", "#,#", 18);
    let mut child = puzzlebench()
        .args(["checkerboard", "solve", dominoes.to_str().unwrap()])
        .args(["--board", "6x6"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert_eq!(first, "solution 1\n");
    // The reader is gone (`| head -1`).
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stderr(&output), "");
}

/// The 35 free hexominoes, as a pieces file (rows of `#` and `_`, pieces apart by `=`).
fn hexominoes() -> String {
    type Cells = Vec<(i32, i32)>;
    fn normalised(mut cells: Cells) -> Cells {
        let (x0, y0) = (
            cells.iter().map(|c| c.0).min(),
            cells.iter().map(|c| c.1).min(),
        );
        let (x0, y0) = (x0.unwrap(), y0.unwrap());
        cells.iter_mut().for_each(|c| *c = (c.0 - x0, c.1 - y0));
        cells.sort_unstable();
        cells
    }
    fn canonical(cells: &Cells) -> Cells {
        (0..8)
            .map(|turn| {
                let image = cells.iter().map(|&(x, y)| {
                    let (x, y) = (0..turn % 4).fold((x, y), |(x, y), _| (y, -x));
                    if turn >= 4 {
                        (-x, y)
                    } else {
                        (x, y)
                    }
                });
                normalised(image.collect())
            })
            .min()
            .unwrap()
    }
    let mut shapes = std::collections::BTreeSet::from([vec![(0, 0)]]);
    for _ in 2..=6 {
        let mut grown = std::collections::BTreeSet::new();
        for shape in &shapes {
            for &(x, y) in shape {
                for next in [(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)] {
                    if !shape.contains(&next) {
                        let mut cells = shape.clone();
                        cells.push(next);
                        grown.insert(canonical(&cells));
                    }
                }
            }
        }
        shapes = grown;
    }
    assert_eq!(shapes.len(), 35);
    let pieces: Vec<String> = shapes
        .iter()
        .map(|shape| {
            let width = shape.iter().map(|c| c.0).max().unwrap() + 1;
            let height = shape.iter().map(|c| c.1).max().unwrap() + 1;
            (0..height)
                .map(|y| {
                    let cells = (0..width).map(|x| if shape.contains(&(x, y)) { "#" } else { "_" });
                    cells.collect::<Vec<_>>().join(",")
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect();
    pieces.join("\n=========\n") + "\n"
}

/// 4,096 monominoes on 64×64: 16,777,216 placements to build before any search.
fn monominoes(dir: &Path) -> PathBuf {
    write(dir, "mono.txt", "#\n=\n".repeat(4096))
}

#[test]
fn a_timeout_stops_a_count_while_its_problem_is_being_built() {
    // Before, the building of the options and parts ignored the timeout: 28 s for a
    // timeout of 1 s, and minutes (and gigabytes) with --no-symmetry.
    let dir = tempfile::tempdir().unwrap();
    let pieces = monominoes(dir.path());
    let pieces = pieces.to_str().unwrap();
    for symmetry in ["--no-symmetry", "--break-symmetry"] {
        let args = [
            "tiling",
            "count",
            "--pieces",
            pieces,
            "--board",
            "64x64",
            symmetry,
            "--timeout",
            "300ms",
        ];
        let start = Instant::now();
        let output = run(&args);
        let elapsed = start.elapsed();
        assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
        assert!(elapsed < Duration::from_secs(5), "{symmetry}: {elapsed:?}");
        let text = stdout(&output);
        assert!(
            text.ends_with(
                "partial: stopped after the timeout of 300ms while the search was being prepared, before any part of it; the counts are lower bounds\n"
            ),
            "{text}"
        );
        let mut json_args = args.to_vec();
        json_args.push("--json");
        let output = run(&json_args);
        assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
        let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
        assert_eq!(json["partial"], true, "{json}");
        assert_eq!(json["stopped"], "timeout", "{json}");
        assert_eq!(json["parts_total"], 0, "{json}");
    }
}

#[test]
fn sigterm_stops_a_count_while_its_problem_is_being_built() {
    let dir = tempfile::tempdir().unwrap();
    let pieces = monominoes(dir.path());
    let child = puzzlebench()
        .args(["tiling", "count", "--pieces", pieces.to_str().unwrap()])
        .args(["--board", "64x64", "--no-symmetry"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let start = Instant::now();
    let output = child.wait_with_output().unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(output.status.code(), Some(143), "{}", stderr(&output));
    assert!(
        stdout(&output).ends_with(
            "partial: interrupted while the search was being prepared, before any part of it; the counts are lower bounds\n"
        ),
        "{}",
        stdout(&output)
    );
}

#[test]
fn a_timeout_stops_a_count_that_finds_no_solution() {
    // The 35 hexominoes cannot tile any rectangle (a colouring argument), which a search
    // finds out only by trying: no solution ever comes, and the timeout must still stop
    // the workers in the middle of their parts, with either engine.
    let dir = tempfile::tempdir().unwrap();
    let pieces = write(dir.path(), "hexominoes.txt", hexominoes());
    for engine in ["auto", "dlx"] {
        let start = Instant::now();
        let output = run(&[
            "tiling",
            "count",
            "--pieces",
            pieces.to_str().unwrap(),
            "--board",
            "15x14",
            "--engine",
            engine,
            "--timeout",
            "500ms",
        ]);
        let elapsed = start.elapsed();
        assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
        assert!(elapsed < Duration::from_secs(5), "{engine}: {elapsed:?}");
        let text = stdout(&output);
        assert!(text.starts_with("labelled: 0\ntilings: 0\n"), "{text}");
        assert!(
            text.contains("partial: stopped after the timeout of 500ms, "),
            "{text}"
        );
    }
}

#[test]
fn checkerboard_solve_refuses_to_write_over_its_stones_or_board_file() {
    let dir = tempfile::tempdir().unwrap();
    let stones = std::fs::read_to_string(repo_datasets().join("tiling/4x4_stones.txt")).unwrap();
    let stones_path = write(dir.path(), "stones.txt", &stones);
    let board = "BWBW\nWBWB\nBWBW\nWBWB\n";
    let board_path = write(dir.path(), "board.txt", board);
    let link = dir.path().join("link.txt");
    std::os::unix::fs::symlink(&stones_path, &link).unwrap();
    let (stones_arg, board_arg) = (stones_path.to_str().unwrap(), board_path.to_str().unwrap());
    for output in [stones_arg, board_arg, link.to_str().unwrap()] {
        let ran = run(&[
            "checkerboard",
            "solve",
            "--board-file",
            board_arg,
            stones_arg,
            "-o",
            output,
        ]);
        assert_eq!(ran.status.code(), Some(2), "-o {output}");
        assert!(
            stderr(&ran).contains("writing it would destroy the input"),
            "{}",
            stderr(&ran)
        );
    }
    assert_eq!(std::fs::read_to_string(&stones_path).unwrap(), stones);
    assert_eq!(std::fs::read_to_string(&board_path).unwrap(), board);
    // Another output is written: the first of the puzzle's solutions.
    let solutions = dir.path().join("solutions.txt");
    let ran = run(&[
        "checkerboard",
        "solve",
        "--board-file",
        board_arg,
        stones_arg,
        "--limit",
        "1",
        "-o",
        solutions.to_str().unwrap(),
    ]);
    assert_eq!(ran.status.code(), Some(0), "{}", stderr(&ran));
    let written = std::fs::read_to_string(&solutions).unwrap();
    assert!(written.starts_with("solution 1\n"), "{written}");
    assert!(!written.contains("solution 2"), "{written}");
}
