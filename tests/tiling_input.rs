//! `tiling count` and `checkerboard count|solve` under a hostile user's inputs: huge and
//! binary files, every kind of line ending, standard input, puzzles with no tiling,
//! signals, `--timeout 0`, and options that `checkerboard solve` does not take.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Output, Stdio};

use common::{puzzlebench, repo_datasets, run, run_with_stdin, stderr, stdout, write};

const STONES_4X4_COUNTS: &str = "labelled: 24\ntilings: 6\nup_to_symmetry: 2\n";

fn stones_4x4() -> Vec<u8> {
    std::fs::read(repo_datasets().join("tiling/4x4_stones.txt")).unwrap()
}

#[test]
fn a_huge_stones_or_board_file_is_refused_with_a_short_message() {
    let dir = tempfile::tempdir().unwrap();
    // One line of 5 MB: past both the line limit and the file limit.
    let big = write(dir.path(), "big.txt", vec![b'B'; 5_000_000]);
    let big = big.to_str().unwrap();
    let expected = format!(
        "puzzlebench: cannot read {big}: line 1 is longer than 65536 bytes, the most a line of \
         a pieces or board file may hold\n"
    );
    for args in [
        vec!["checkerboard", "count", "--board", "4x4", big],
        vec!["checkerboard", "solve", "--board", "4x4", big],
        vec!["tiling", "count", "--pieces", big, "--board", "4x4"],
        vec!["tiling", "count", "--board-file", big],
    ] {
        let output = run(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_eq!(stderr(&output), expected, "{args:?}");
    }
    // Short lines, but more of them than a pieces file may hold.
    let long = write(
        dir.path(),
        "long.txt",
        "#,#\n===\n".repeat(200_000).as_bytes(),
    );
    let output = run(&["tiling", "count", "--pieces", long.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).ends_with(
            "long.txt: it is longer than 1048576 bytes, the most a pieces or board file may hold\n"
        ),
        "{}",
        stderr(&output)
    );
    // A bad cell in a long line is quoted cut short.
    let mut wide = vec![b'B'; 60_000];
    wide.extend_from_slice(b"\n===\n");
    let wide = write(dir.path(), "wide.txt", &wide);
    let output = run(&[
        "checkerboard",
        "count",
        "--board",
        "4x4",
        wide.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).len() < 300, "{}", stderr(&output));
    assert!(
        stderr(&output).contains("… (60000 bytes) (cells are B, W, # or _)"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn an_endless_standard_input_is_read_in_bounded_memory() {
    // 256 MB of `B` with no line ending: read whole, this would take its time and memory;
    // the reader stops at the line limit, and the writer meets a closed pipe.
    let mut child = puzzlebench()
        .args(["checkerboard", "count", "--board", "4x4", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let block = vec![b'B'; 1 << 20];
        let mut written = 0usize;
        while written < 256 << 20 && stdin.write_all(&block).is_ok() {
            written += block.len();
        }
        written
    });
    let output = child.wait_with_output().unwrap();
    let written = writer.join().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "puzzlebench: cannot read -: line 1 is longer than 65536 bytes, the most a line of a \
         pieces or board file may hold\n"
    );
    assert!(written < 16 << 20, "{written} bytes were taken");
}

#[test]
fn invalid_utf8_is_refused_at_its_line_and_byte() {
    let dir = tempfile::tempdir().unwrap();
    let stones = write(dir.path(), "bad.txt", b"B,W\n===\nW,\xffB\n===\n");
    let output = run(&[
        "checkerboard",
        "count",
        "--board",
        "4x4",
        stones.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).ends_with("bad.txt: line 3: not valid UTF-8 at byte 3\n"),
        "{}",
        stderr(&output)
    );
    let board = write(dir.path(), "board.txt", b"##\r\xc3(\r");
    let output = run(&["tiling", "count", "--board-file", board.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).ends_with("board.txt: line 2: not valid UTF-8 at byte 1\n"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn every_line_ending_is_a_line_ending() {
    let dir = tempfile::tempdir().unwrap();
    let lf = String::from_utf8(stones_4x4()).unwrap();
    for (name, ending) in [("cr", "\r"), ("crlf", "\r\n")] {
        let stones = write(
            dir.path(),
            &format!("4x4_{name}.txt"),
            lf.replace('\n', ending).as_bytes(),
        );
        let board = write(
            dir.path(),
            &format!("board_{name}.txt"),
            "BWBW\nWBWB\nBWBW\nWBWB\n".replace('\n', ending).as_bytes(),
        );
        let output = run(&[
            "checkerboard",
            "count",
            stones.to_str().unwrap(),
            "--board-file",
            board.to_str().unwrap(),
        ]);
        assert_eq!(output.status.code(), Some(0), "{name}: {}", stderr(&output));
        assert_eq!(stdout(&output), STONES_4X4_COUNTS, "{name}");
    }
    // Errors name the lines as an editor shows them.
    let board = write(dir.path(), "cr.txt", b"####\r##x#\r");
    let output = run(&["tiling", "count", "--board-file", board.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output)
            .ends_with("board line 2, column 3: 'x' is not # (cell), . (hole), B or W\n"),
        "{}",
        stderr(&output)
    );
    let dominoes = write(dir.path(), "dominoes.txt", b"#,#\r===\r#,#\r===\r");
    let square = write(dir.path(), "square.txt", b"##\r##\r");
    let output = run(&[
        "tiling",
        "count",
        "--pieces",
        dominoes.to_str().unwrap(),
        "--board-file",
        square.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "labelled: 4\ntilings: 2\nup_to_symmetry: 1\n"
    );
}

#[test]
fn a_dash_reads_standard_input_once() {
    let stones = stones_4x4();
    let output = run_with_stdin(&["checkerboard", "count", "--board", "4x4", "-"], &stones);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), STONES_4X4_COUNTS);
    let output = run_with_stdin(
        &[
            "checkerboard",
            "solve",
            "--board",
            "4x4",
            "-",
            "--limit",
            "1",
        ],
        &stones,
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).starts_with("solution 1\n"));
    let dir = tempfile::tempdir().unwrap();
    let stones_file = write(dir.path(), "4x4_1.txt", &stones);
    let stones_file = stones_file.to_str().unwrap();
    let board = b"BWBW\nWBWB\nBWBW\nWBWB\n";
    let output = run_with_stdin(
        &["checkerboard", "count", stones_file, "--board-file", "-"],
        board,
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), STONES_4X4_COUNTS);
    let output = run_with_stdin(
        &["tiling", "count", "--pieces", "-", "--board", "2x2"],
        b"#,#\n===\n#,#\n",
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "labelled: 4\ntilings: 2\nup_to_symmetry: 1\n"
    );
    let output = run_with_stdin(
        &["tiling", "count", "--board-file", "-"],
        b"#####\n".repeat(12).as_slice(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "labelled: 4040\ntilings: 4040\nup_to_symmetry: 1010\n"
    );
    // Standard input holds one file, not two.
    for args in [
        vec!["checkerboard", "count", "-", "--board-file", "-"],
        vec!["checkerboard", "solve", "-", "--board-file", "-"],
        vec!["tiling", "count", "--pieces", "-", "--board-file", "-"],
    ] {
        let output = run_with_stdin(&args, board);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_eq!(
            stderr(&output),
            "puzzlebench: standard input (-) can be named only once\n",
            "{args:?}"
        );
    }
}

#[test]
fn a_puzzle_without_tiling_counts_zero() {
    let dir = tempfile::tempdir().unwrap();
    // Found before any search (60 cells for 1), and by the search (two T tetrominoes
    // cannot cover 4×2, though each fits).
    let tees = write(dir.path(), "tees.txt", b"#,#,#\n_,#,_\n===\n#,#,#\n_,#,_\n");
    let tees = tees.to_str().unwrap();
    let cases: [&[&str]; 2] = [
        &["tiling", "count", "--board", "1x1"],
        &["tiling", "count", "--pieces", tees, "--board", "4x2"],
    ];
    for args in cases {
        let output = run(args);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            stderr(&output)
        );
        assert_eq!(
            stdout(&output),
            "labelled: 0\ntilings: 0\nup_to_symmetry: 0\n"
        );
        let output = run(&[args, &["--json"]].concat());
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            stderr(&output)
        );
        assert_eq!(
            stdout(&output),
            "{\"labelled\":0,\"tilings\":0,\"up_to_symmetry\":0}\n"
        );
        let output = run(&[args, &["--json", "--break-symmetry"]].concat());
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            stderr(&output)
        );
        assert_eq!(stdout(&output), "{\"up_to_symmetry\":0,\"searched\":0}\n");
    }
}

/// 18 dominoes to count on 6×6 with every labelling: longer than any test waits.
fn endless_count(dir: &Path, extra: &[&str]) -> Child {
    let dominoes = write(dir, "dom18.txt", "#,#\n===\n".repeat(18).as_bytes());
    puzzlebench()
        .args([
            "tiling",
            "count",
            "--board",
            "6x6",
            "--no-symmetry",
            "--progress",
        ])
        .arg("--pieces")
        .arg(dominoes)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Sends `signal` to `child` once its count is running (its first progress line is out),
/// and returns its output.
fn signalled(mut child: Child, signal: &str) -> (Output, String) {
    let mut progress = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    progress.read_line(&mut first).unwrap();
    assert!(first.contains(" parts searched, "), "{first}");
    let status = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut progress, &mut rest).unwrap();
    (child.wait_with_output().unwrap(), rest)
}

#[test]
fn a_signal_stops_the_count_and_prints_the_counts_reached() {
    let dir = tempfile::tempdir().unwrap();
    let (output, _) = signalled(endless_count(dir.path(), &[]), "INT");
    assert_eq!(output.status.code(), Some(130));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert!(lines[0].starts_with("labelled: "), "{text}");
    assert!(lines[3].starts_with("partial: interrupted, "), "{text}");
    assert!(
        lines[3].ends_with(" parts of the search finished; the counts are lower bounds"),
        "{text}"
    );
    let (output, _) = signalled(
        endless_count(dir.path(), &["--json", "--timeout", "10m"]),
        "TERM",
    );
    assert_eq!(output.status.code(), Some(143));
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(json["partial"], true, "{json}");
    assert_eq!(json["stopped"], "interrupted", "{json}");
    assert!(json["parts_total"].as_u64().unwrap() > 0, "{json}");
}

#[test]
fn checkerboard_solve_refuses_the_options_only_counts_take() {
    let stones = repo_datasets().join("tiling/4x4_stones.txt");
    let stones = stones.to_str().unwrap();
    for option in [
        &["--json"][..],
        &["--break-symmetry"],
        &["--no-symmetry"],
        &["--progress"],
        &["-j", "2"],
        &["--engine", "dlx"],
    ] {
        let output = run(&[&["checkerboard", "solve", stones][..], option].concat());
        assert_eq!(output.status.code(), Some(2), "{option:?}");
        assert!(
            stderr(&output).contains("unexpected argument"),
            "{option:?}: {}",
            stderr(&output)
        );
    }
    let help = stdout(&run(&["checkerboard", "solve", "--help"]));
    for option in [
        "--json",
        "--break-symmetry",
        "--no-symmetry",
        "--progress",
        "--threads",
        "--engine",
    ] {
        assert!(!help.contains(option), "{option} in:\n{help}");
    }
    assert!(help.contains("--board-file"), "{help}");
}
