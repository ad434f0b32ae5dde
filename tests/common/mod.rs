//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The `puzzlebench` binary built for these tests.
pub fn puzzlebench() -> Command {
    Command::new(env!("CARGO_BIN_EXE_puzzlebench"))
}

/// Runs `puzzlebench` with `args` and returns its output.
pub fn run(args: &[&str]) -> Output {
    puzzlebench().args(args).output().expect("the binary runs")
}

/// Runs `puzzlebench` with `args` and `input` on standard input, written from a thread
/// of its own while the output is read.
pub fn run_with_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = puzzlebench()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // A reader that stops early closes the pipe: the writer's error is expected.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    output
}

/// Runs `puzzlebench ARGS REDIRECTIONS` through the shell, in `dir`: for closed, full or
/// redirected standard streams.
pub fn shell_in(dir: &Path, args: &str, redirections: &str) -> Output {
    let command = format!(
        "{} {args} {redirections}",
        env!("CARGO_BIN_EXE_puzzlebench")
    );
    Command::new("sh")
        .args(["-c", &command])
        .current_dir(dir)
        .output()
        .expect("the shell runs")
}

/// `bytes` written to `name` in `dir`; the file's path.
pub fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// A run's standard output, as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

/// A run's standard error, as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

/// The repository's own `datasets/` folder.
pub fn repo_datasets() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets")
}

/// The public corpora: `$PUZZLEBENCH_CORPORA`, else `../shared/datasets` beside the
/// repository. Tests that call this carry `#[cfg_attr(corpora_missing, ignore = …)]`: the
/// build script marks them ignored when the corpora are absent (unless
/// `PUZZLEBENCH_REQUIRE_CORPORA=1`), so reaching here without them is a failure, never a
/// silent pass. (Always `Some`: the callers' `else` branches are never taken.)
pub fn corpora(test: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("PUZZLEBENCH_CORPORA")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/datasets"));
    assert!(
        dir.is_dir(),
        "{test}: the public corpora are not at {} (set PUZZLEBENCH_CORPORA; without \
         PUZZLEBENCH_REQUIRE_CORPORA=1, a rebuild marks the tests that need them ignored)",
        dir.display()
    );
    Some(dir)
}

/// Parses CSV text into a header and rows.
pub fn parse_csv(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header = reader.headers().unwrap().iter().map(String::from).collect();
    let rows = reader
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect();
    (header, rows)
}

/// The value of `column` in `row`.
pub fn cell<'a>(header: &[String], row: &'a [String], column: &str) -> &'a str {
    let index = header
        .iter()
        .position(|h| h == column)
        .unwrap_or_else(|| panic!("no column {column} in {header:?}"));
    &row[index]
}

/// CSV text with the `micros` column removed (the only column that may differ between
/// runs).
pub fn without_micros(text: &str) -> String {
    let (header, rows) = parse_csv(text);
    let keep: Vec<usize> = (0..header.len())
        .filter(|&i| header[i] != "micros")
        .collect();
    let mut out = String::new();
    for row in std::iter::once(&header).chain(rows.iter()) {
        let cells: Vec<&str> = keep.iter().map(|&i| row[i].as_str()).collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

/// Fails listing the first few of `mismatches`, if there are any.
pub fn assert_none(mismatches: &[String]) {
    assert!(
        mismatches.is_empty(),
        "{} mismatches, the first: {:#?}",
        mismatches.len(),
        &mismatches[..mismatches.len().min(5)]
    );
}

/// The rows of CSV texts (each with its header), `micros` left out, sorted by the first
/// column (`file` when there are several inputs) and `line`: rows from shards or engine
/// partitions, put back in one run's order.
pub fn rows_by_key(texts: &[String]) -> (Vec<String>, Vec<Vec<String>>) {
    let mut header = Vec::new();
    let mut rows = Vec::new();
    for text in texts.iter().filter(|t| !t.is_empty()) {
        let (h, r) = parse_csv(text);
        header = h;
        rows.extend(r);
    }
    let micros = header.iter().position(|c| c == "micros").unwrap();
    let line = header.iter().position(|c| c == "line").unwrap();
    for row in &mut rows {
        row.remove(micros);
    }
    header.remove(micros);
    rows.sort_by_key(|row| (row[0].clone(), row[line].parse::<u64>().unwrap()));
    (header, rows)
}

/// A report folder's `summary.json`.
pub fn summary_json(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

/// The counts of a summary: records, failed, statuses and tallies.
pub fn summary_counts(summary: &serde_json::Value) -> serde_json::Value {
    serde_json::json!([
        summary["records"],
        summary["failed"],
        summary["statuses"],
        summary["tallies"]
    ])
}

/// Makes a named pipe at `path`.
pub fn make_fifo(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let name = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: `name` is a valid C string that lives across the call.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
}
