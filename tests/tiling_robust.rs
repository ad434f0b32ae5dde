//! `tiling count` and `checkerboard count|solve` at their edges: counts beyond `u64`, byte
//! order marks, `--progress` off a terminal, `--timeout`, and output that cannot be
//! written.

mod common;

use std::path::{Path, PathBuf};

use common::{repo_datasets, run};

/// `text` written to `name` in `dir`.
fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

#[test]
fn files_may_start_with_a_byte_order_mark() {
    let dir = tempfile::tempdir().unwrap();
    let stones = std::fs::read_to_string(repo_datasets().join("tiling/4x4_stones.txt")).unwrap();
    let marked = write(dir.path(), "4x4_bom.txt", &format!("\u{feff}{stones}"));
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
