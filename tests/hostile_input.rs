//! End-to-end tests of inputs that are damaged, odd or hostile: old Mac line endings,
//! unclosed quotes, CSV rows of the wrong width, lines of megabytes, endless binary data.
//! What every one of them keeps: one row per record, every error row names its line, the
//! same rows whatever the number of threads, and the run ends.

mod common;

use std::io::{Read, Write};
use std::process::{Child, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use common::{cell, corpora, parse_csv, puzzlebench, repo_datasets, run, without_micros};

/// How long a run here may take before it counts as hung: far more than any of them
/// needs, so that a slow machine never fails them; a run that hangs still fails.
const DEADLINE: Duration = Duration::from_secs(120);

/// Runs `puzzlebench` with `args`, writing `input` (from a thread of its own, while the
/// output is read) to its standard input; fails if it has not ended by [`DEADLINE`].
fn run_fed(args: &[&str], input: impl FnOnce(&mut dyn Write) + Send + 'static) -> Output {
    let mut child = puzzlebench()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut stdin = child.stdin.take().unwrap();
    // The binary may stop reading early (on binary data): a broken pipe is no failure.
    let feeder = thread::spawn(move || input(&mut stdin));
    let output = wait_with_deadline(child, args);
    feeder.join().unwrap();
    output
}

/// Waits for `child`, reading its output meanwhile; kills it and fails after [`DEADLINE`].
fn wait_with_deadline(mut child: Child, args: &[&str]) -> Output {
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                pipe.read_to_end(&mut bytes).unwrap();
            }
            bytes
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > DEADLINE {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("puzzlebench {args:?} did not end within {DEADLINE:?}");
        }
        thread::sleep(Duration::from_millis(10));
    };
    Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

/// Writes `bytes` to a new file in `dir` and gives its path.
fn write_file(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_str().unwrap().to_string()
}

/// The result rows of a run (as CSV), checked to be the same with 1, 2 and 3 threads.
fn rows_every_thread_count(args: &[&str]) -> (Output, Vec<String>, Vec<Vec<String>>) {
    let one = run(&[args, &["-j1"]].concat());
    for threads in ["-j2", "-j3"] {
        let other = run(&[args, &[threads]].concat());
        assert_eq!(other.status.code(), one.status.code(), "{args:?} {threads}");
        assert_eq!(
            without_micros(&String::from_utf8_lossy(&other.stdout)),
            without_micros(&String::from_utf8_lossy(&one.stdout)),
            "{args:?} {threads}"
        );
    }
    let (header, rows) = parse_csv(&String::from_utf8_lossy(&one.stdout));
    (one, header, rows)
}

/// `(line, status, error)` of every row.
fn line_status_error(header: &[String], rows: &[Vec<String>]) -> Vec<(u64, String, String)> {
    rows.iter()
        .map(|row| {
            (
                cell(header, row, "line").parse().unwrap(),
                cell(header, row, "status").to_string(),
                cell(header, row, "error").to_string(),
            )
        })
        .collect()
}

#[test]
fn a_carriage_return_alone_ends_a_line_in_csv_and_line_inputs() {
    // The file of the report: old Mac line endings, the header's line holding them all.
    let output = run_fed(
        &[
            "connect4", "validate", "--format", "csv", "--column", "moves",
        ],
        |stdin| {
            let _ = stdin.write_all(b"id,moves\rg1,4455667\rg2,1111111\r");
        },
    );
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let (header, rows) = parse_csv(&String::from_utf8_lossy(&output.stdout));
    let got: Vec<_> = rows
        .iter()
        .map(|row| {
            let get = |column| cell(&header, row, column).to_string();
            (get("line"), get("id"), get("status"))
        })
        .collect();
    let expected = [("2", "g1", "win"), ("3", "g2", "invalid")];
    let expected: Vec<_> = expected
        .iter()
        .map(|&(l, i, s)| (l.to_string(), i.to_string(), s.to_string()))
        .collect();
    assert_eq!(got, expected);

    // Every kind of line ending in one file, and a blank line of each kind: each line ending
    // is one line, the records keep their lines whatever the threads.
    let dir = tempfile::tempdir().unwrap();
    let grid = "97....21.....16.5.26..........62..91..9......68.7.........3.86....1.2539........2";
    let text = format!("{grid}\r{grid}\r\n\r# c\r{grid}\n\n{grid}\r\r\n{grid}");
    let lines = write_file(&dir, "mixed.txt", text.as_bytes());
    let (output, header, rows) = rows_every_thread_count(&["sudoku", "solve", &lines]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let got: Vec<u64> = line_status_error(&header, &rows)
        .into_iter()
        .map(|(line, status, _)| {
            assert_eq!(status, "solved");
            line
        })
        .collect();
    assert_eq!(got, vec![1, 2, 5, 7, 9]);

    // CSV, with a quoted field holding a lone `\r` (a line ending inside a field).
    let text = "moves,id\r4455667,a\r\r\n4455667,\"b\rc\"\r4455667,d";
    let csv = write_file(&dir, "mac.csv", text.as_bytes());
    let (output, header, rows) = rows_every_thread_count(&["connect4", "validate", &csv]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let got: Vec<_> = rows
        .iter()
        .map(|row| (cell(&header, row, "line"), cell(&header, row, "id")))
        .collect();
    assert_eq!(got, vec![("2", "a"), ("4", "b\rc"), ("6", "d")]);
}

/// The lines of a Kaggle-style CSV (`quizzes,solutions`) made from the repository's
/// generated puzzles: a header and `records` records.
fn kaggle_style(records: usize) -> Vec<String> {
    let text = std::fs::read_to_string(repo_datasets().join("sudoku/generated-1k.csv")).unwrap();
    let (header, rows) = parse_csv(&text);
    let mut lines = vec!["quizzes,solutions".to_string()];
    for row in rows.iter().cycle().take(records) {
        let puzzle = cell(&header, row, "puzzle").replace('.', "0");
        lines.push(format!("{puzzle},{}", cell(&header, row, "solution")));
    }
    lines
}

/// Runs `sudoku solve` over `lines` with `"oops` put in as line `at` (1-based), and checks
/// the rows: one error row for it naming its line and column, every other record solved
/// on its own line.
fn check_unclosed_quote(lines: &[String], at: usize, extra: &[&str], within: Option<usize>) {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = lines.to_vec();
    lines.insert(at - 1, "\"oops".to_string());
    let path = write_file(&dir, "oops.csv", (lines.join("\n") + "\n").as_bytes());
    let args = [&["sudoku", "solve", &path][..], extra].concat();
    let (output, header, rows) = rows_every_thread_count(&args);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    // Rows out = records in: every line but the header is a record.
    assert_eq!(rows.len(), lines.len() - 1);
    for (index, (line, status, error)) in line_status_error(&header, &rows).into_iter().enumerate()
    {
        assert_eq!(line, index as u64 + 2);
        if line == at as u64 {
            assert_eq!(status, "error");
            let limit = match within {
                Some(max) => format!("within {max} bytes"),
                None => "before the end of the input".to_string(),
            };
            assert_eq!(
                error,
                format!(
                    "the quote at line {at}, column 1 is never closed {limit}; reading goes on \
                     at line {}",
                    at + 1
                )
            );
        } else {
            assert_eq!(
                (status.as_str(), error.as_str()),
                ("solved", ""),
                "line {line}"
            );
        }
    }
}

#[test]
fn an_unclosed_quote_is_one_error_row_and_the_records_after_it_keep_theirs() {
    let lines = kaggle_style(1000);
    // Found at the end of the input.
    check_unclosed_quote(&lines, 500, &[], None);
    check_unclosed_quote(&lines, 1002, &[], None);
    // Found when the field passes the longest record allowed.
    check_unclosed_quote(&lines, 11, &["--max-line-bytes", "10000"], Some(10_000));
}

#[test]
fn an_unclosed_quote_in_a_header_stops_the_run_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let good = write_file(&dir, "good.csv", b"id,moves\ng1,4455667\n");
    let bad = write_file(&dir, "bad.csv", b"id,\"moves\ng2,4455667\n");
    let output = run(&["connect4", "validate", "--column", "moves", &good, &bad]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr).trim_end(),
        format!(
            "puzzlebench: cannot read {bad}: its header cannot be read: the quote at line 1, \
             column 4 is never closed before the end of the input; the run stops before its \
             records"
        )
    );
    // Every file's header is read before any record: the run stops before the input
    // ahead of it has been processed for nothing.
    assert!(output.stdout.is_empty(), "{:?}", output.stdout);
}

#[cfg_attr(
    corpora_missing,
    ignore = "needs the public corpora (docs/corpora.md): set PUZZLEBENCH_CORPORA and rebuild"
)]
#[test]
fn an_unclosed_quote_in_the_kaggle_corpus_spoils_one_row() {
    let Some(corpora) = corpora("an_unclosed_quote_in_the_kaggle_corpus_spoils_one_row") else {
        return;
    };
    let text = std::fs::read_to_string(corpora.join("sudoku/kaggle-10k.csv")).unwrap();
    let lines: Vec<String> = text.lines().map(String::from).collect();
    assert_eq!(lines.len(), 10_001);
    // Near the end the rest of the file is less than 1 MiB; near the start, more.
    check_unclosed_quote(&lines, 5001, &[], None);
    check_unclosed_quote(&lines, 11, &[], Some(1 << 20));
}

#[test]
fn a_csv_row_of_another_width_than_the_header_is_an_error_row_with_both_counts() {
    let dir = tempfile::tempdir().unwrap();
    let lines = kaggle_style(3);
    // A file without its final newline, then another file: a record runs into a header.
    let first = lines.join("\n");
    let second = lines.join("\n") + "\n";
    let path = write_file(&dir, "joined.csv", (first + &second).as_bytes());
    let short = write_file(
        &dir,
        "short.csv",
        format!("{}\n{}\n", lines[0], "0".repeat(81)).as_bytes(),
    );
    let (output, header, rows) = rows_every_thread_count(&["sudoku", "solve", &path]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let got = line_status_error(&header, &rows);
    assert_eq!(got.len(), 6);
    assert_eq!(
        got[2],
        (
            4,
            "error".to_string(),
            "the row has 3 fields but the header has 2".to_string()
        )
    );
    assert!(got
        .iter()
        .enumerate()
        .all(|(i, (line, status, _))| *line == i as u64 + 2 && (i == 2) != (status == "solved")));
    let (output, header, rows) = rows_every_thread_count(&["sudoku", "solve", &short]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert_eq!(
        line_status_error(&header, &rows),
        vec![(
            2,
            "error".to_string(),
            "the row has 1 field but the header has 2".to_string()
        )]
    );
}

/// The largest resident set of this process's children so far, in bytes.
fn children_max_rss() -> u64 {
    // SAFETY: `getrusage` only writes into the zeroed struct given to it.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        assert_eq!(libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage), 0);
        usage
    };
    usage.ru_maxrss as u64 * 1024
}

#[test]
fn a_huge_line_is_one_error_row_read_on_without_keeping_it() {
    // 200 MB on one line, between two records: fed through a pipe, so that the reader meets
    // it a few kilobytes at a time. Reading it took time quadratic in its length (9 s for
    // 50 MB) and memory as large as it.
    let grid = "97....21.....16.5.26..........62..91..9......68.7.........3.86....1.2539........2";
    let output = run_fed(&["sudoku", "solve", "-j2"], move |stdin| {
        let block = vec![b'7'; 1 << 20];
        stdin.write_all(format!("{grid}\n").as_bytes()).unwrap();
        for _ in 0..200 {
            stdin.write_all(&block).unwrap();
        }
        stdin.write_all(format!("\r\n{grid}\n").as_bytes()).unwrap();
    });
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let (header, rows) = parse_csv(&String::from_utf8_lossy(&output.stdout));
    assert_eq!(
        line_status_error(&header, &rows),
        vec![
            (1, "solved".to_string(), String::new()),
            (
                2,
                "error".to_string(),
                "line 2 is longer than 1048576 bytes".to_string()
            ),
            (3, "solved".to_string(), String::new()),
        ]
    );
    assert!(
        children_max_rss() < 150 << 20,
        "a child used {} MB",
        children_max_rss() >> 20
    );
}

#[test]
fn the_longest_line_is_a_setting() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(&dir, "moves.txt", b"4455667\n44556671234\n1\n");
    let output = run(&["connect4", "validate", "--max-line-bytes", "10", &path]);
    let (header, rows) = parse_csv(&String::from_utf8_lossy(&output.stdout));
    let got = line_status_error(&header, &rows);
    assert_eq!(got.len(), 3);
    assert_eq!(got[0].1, "win");
    assert_eq!(
        got[1],
        (
            2,
            "error".to_string(),
            "line 2 is longer than 10 bytes".to_string()
        )
    );
    assert_eq!(got[2].1, "unfinished");
}

#[test]
fn endless_binary_data_ends_the_run_with_an_error() {
    let child = puzzlebench()
        .args(["sudoku", "solve", "/dev/zero"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let output = wait_with_deadline(child, &["sudoku", "solve", "/dev/zero"]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let (header, rows) = parse_csv(&String::from_utf8_lossy(&output.stdout));
    assert_eq!(
        line_status_error(&header, &rows),
        vec![(
            1,
            "error".to_string(),
            "line 1 is longer than 1048576 bytes".to_string()
        )]
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("cannot read /dev/zero after line 1")
            && stderr.contains("NUL bytes: this is binary data, not text"),
        "{stderr}"
    );
}

#[test]
fn error_messages_quote_at_most_80_characters_of_a_record() {
    let dir = tempfile::tempdir().unwrap();
    let long = "Z".repeat(500_000);
    let cases = [
        (vec!["connect4", "validate"], format!("A_Red {long}\n")),
        (vec!["connect4", "solve"], format!("4455 {long}\n")),
        (
            vec!["battleship", "validate", "--format", "json"],
            format!("[[0, \"{long}\"]]\n"),
        ),
    ];
    for (command, text) in cases {
        let path = write_file(&dir, "long.txt", text.as_bytes());
        let output = run(&[&command[..], &[&path]].concat());
        let (header, rows) = parse_csv(&String::from_utf8_lossy(&output.stdout));
        let error = cell(&header, &rows[0], "error");
        assert!(
            (75..=80).contains(&error.matches('Z').count()) && error.contains("… (500"),
            "{command:?}: {}",
            &error[..error.len().min(300)]
        );
        assert!(error.len() < 300, "{command:?}: {} bytes", error.len());
        assert!(output.stderr.len() < 1000, "{command:?}");
    }
}

#[test]
fn hostile_csv_gives_one_row_per_record_whatever_the_threads() {
    // Every damage at once, among good records: rows out = records in, each error row at
    // its line, and the same rows for 1, 2 and 3 threads.
    let lines = kaggle_style(400);
    let mut text = String::new();
    for (index, line) in lines.iter().enumerate() {
        let number = index + 1;
        match number {
            50 => {
                text.push_str(&format!("{line}\r"));
                continue;
            }
            100 => {
                text.push_str(&format!("{line},extra\n"));
                continue;
            }
            150 => {
                text.push_str(&"9".repeat(3000));
                text.push('\n');
            }
            _ => {}
        }
        text.push_str(line);
        text.push('\n');
    }
    // An unclosed quote at the end.
    text.push_str("\"0000,\n1\n");
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(&dir, "hostile.csv", text.as_bytes());
    let (_, header, rows) =
        rows_every_thread_count(&["sudoku", "solve", "--max-line-bytes", "2000", &path]);
    let got = line_status_error(&header, &rows);
    // 400 records, one more line (the 3,000 digits), the quote's line, "1".
    assert_eq!(got.len(), 403);
    let mut lines_seen: Vec<u64> = got.iter().map(|(line, _, _)| *line).collect();
    lines_seen.dedup();
    assert_eq!(lines_seen, (2..=404).collect::<Vec<_>>());
    let errors: Vec<_> = got
        .iter()
        .filter(|(_, status, _)| status == "error")
        .map(|(line, _, error)| (*line, error.as_str()))
        .collect();
    assert_eq!(
        errors,
        vec![
            (100, "the row has 3 fields but the header has 2"),
            (150, "line 150 is longer than 2000 bytes"),
            (
                403,
                "the quote at line 403, column 1 is never closed before the end of the \
                 input; reading goes on at line 404"
            ),
            (404, "the row has 1 field but the header has 2"),
        ]
    );
}

#[test]
fn a_csv_header_of_many_repeated_names_is_read_in_linear_time() {
    // 100,000 empty column names after `quizzes`, each carried through and renamed apart
    // from the others. Renaming by prefixing again and again was cubic: 8,000 such
    // names took 100 s and made a 190 MB output header; this many never ended.
    let dir = tempfile::tempdir().unwrap();
    let columns = 100_000;
    let commas = ",".repeat(columns);
    let puzzle = "0".repeat(81);
    let path = write_file(
        &dir,
        "wide.csv",
        format!("quizzes{commas}\n{puzzle}{commas}\n").as_bytes(),
    );
    let output = run_fed(&["sudoku", "solve", &path], |_| {});
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let (header, rows) = parse_csv(&String::from_utf8_lossy(&output.stdout));
    assert!(header.len() > columns, "{} columns", header.len());
    let distinct: std::collections::HashSet<&String> = header.iter().collect();
    assert_eq!(distinct.len(), header.len(), "names repeat");
    assert!(header
        .iter()
        .all(|name| name.len() <= "input__100000".len()));
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].len(), header.len());
    assert_eq!(cell(&header, &rows[0], "status"), "multiple");
}

#[test]
fn a_named_pipe_is_opened_once_and_every_record_read() {
    // The writer may finish before the run opens the pipe for its records: an earlier
    // open and close (to check the input) lost them, or left the run waiting for ever.
    let dir = tempfile::tempdir().unwrap();
    for attempt in 0..5 {
        let fifo = dir.path().join(format!("moves-{attempt}"));
        let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: `name` is a valid C string that lives across the call.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        let writer_path = fifo.clone();
        let writer = thread::spawn(move || {
            std::fs::write(writer_path, "4455667\n4455667\n").unwrap();
        });
        let path = fifo.to_str().unwrap();
        let args = ["connect4", "validate", "-j1", path];
        let child = puzzlebench()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary starts");
        let output = wait_with_deadline(child, &args);
        writer.join().unwrap();
        assert_eq!(output.status.code(), Some(0), "attempt {attempt}");
        let (header, rows) = parse_csv(&String::from_utf8_lossy(&output.stdout));
        let lines: Vec<_> = line_status_error(&header, &rows)
            .into_iter()
            .map(|(line, status, _)| (line, status))
            .collect();
        assert_eq!(
            lines,
            [(1, "win".to_string()), (2, "win".to_string())],
            "attempt {attempt}"
        );
    }
}

/// A CSV file without a header row is refused, not read with its first record taken for
/// the column names (a record lost with exit code 0): Sudoku (also after a blank first
/// line), Connect Four's game logs and positions. With a header, the same records run.
#[test]
fn a_csv_whose_first_row_is_a_record_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let puzzle =
        "004300209005009001070060043006002087190007400050083000600000105003508690042910300";
    let cases: [(&[&str], String, &str); 4] = [
        (
            &["sudoku", "solve"],
            format!("{puzzle},\n{puzzle},\n"),
            "quizzes,solutions",
        ),
        (
            &["sudoku", "solve"],
            format!("\n{puzzle},\n"),
            "quizzes,solutions",
        ),
        (
            &["connect4", "validate"],
            "4455667,1\n445566,2\n".into(),
            "moves,id",
        ),
        (
            &["connect4", "solve"],
            "445566 18\n4455 0\n".into(),
            "moves,score",
        ),
    ];
    for (i, (command, text, header)) in cases.iter().enumerate() {
        let path = common::write(dir.path(), &format!("case{i}.csv"), text);
        let mut args = command.to_vec();
        args.push(path.to_str().unwrap());
        let output = run(&args);
        let stderr = common::stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{command:?}: {stderr}");
        assert!(common::stdout(&output).is_empty(), "{command:?}");
        assert!(
            stderr.contains("its first row is a record, not a header (column 1 holds \"")
                && stderr.contains(&format!("such as {header}")),
            "{command:?}: {stderr}"
        );
        // The same records under a header: every one gets its row.
        let named = common::write(
            dir.path(),
            &format!("named{i}.csv"),
            format!("{header}\n{}", text.trim_start()),
        );
        args.pop();
        args.push(named.to_str().unwrap());
        let (_, rows) = parse_csv(&common::stdout(&run(&args)));
        assert_eq!(rows.len(), text.trim_start().lines().count(), "{command:?}");
    }
    // A damaged puzzle (80 characters) beside its solution: the solution, a whole grid,
    // gives the row away as a record (it was taken for the names, a record lost).
    let solution =
        "864371259325849761971265843436192587198657432257483916689734125713528694542916378";
    let damaged = format!("{},{solution}\n{puzzle},{solution}\n", &puzzle[1..]);
    let path = common::write(dir.path(), "damaged.csv", damaged);
    let output = run(&["sudoku", "solve", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = common::stderr(&output);
    assert!(
        stderr.contains("its first row is a record, not a header (column 2 holds \""),
        "{stderr}"
    );
}

#[test]
fn file_names_that_are_not_utf8_are_read_written_and_reported() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let name = |bytes: &[u8]| dir.path().join(OsStr::from_bytes(bytes));
    let puzzles = name(b"puzzles-\xff.txt");
    std::fs::copy(
        repo_datasets().join("sudoku/generated-16x16-20.txt"),
        &puzzles,
    )
    .unwrap();
    let (rows, report) = (name(b"rows-\xfe.csv"), name(b"report-\xfd"));
    let out = puzzlebench()
        .args(["sudoku", "solve", "-o"])
        .arg(&rows)
        .arg("--report")
        .arg(&report)
        .arg(&puzzles)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    let text = std::fs::read_to_string(&rows).unwrap();
    assert_eq!(text.lines().filter(|l| l.contains(",solved,")).count(), 20);
    let summary = std::fs::read_to_string(report.join("summary.json")).unwrap();
    assert!(summary.contains(r"puzzles-\\xff.txt"), "{summary}");
    // Resumed, the finished file is left as it is.
    let again = puzzlebench()
        .args(["sudoku", "solve", "--resume", "-o"])
        .arg(&rows)
        .arg(&puzzles)
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(0), "{}", common::stderr(&again));
    assert_eq!(std::fs::read_to_string(&rows).unwrap(), text);
    let shown = puzzlebench()
        .args(["sudoku", "show"])
        .arg(&puzzles)
        .output()
        .unwrap();
    assert_eq!(shown.status.code(), Some(0), "{}", common::stderr(&shown));
    let stones = name(b"stones-\xff.txt");
    std::fs::copy(repo_datasets().join("tiling/4x4_stones.txt"), &stones).unwrap();
    let counted = puzzlebench()
        .args(["tiling", "count", "--board", "4x4", "--pieces"])
        .arg(&stones)
        .output()
        .unwrap();
    assert_eq!(
        counted.status.code(),
        Some(0),
        "{}",
        common::stderr(&counted)
    );
}

#[test]
fn a_file_name_with_a_line_break_or_markup_keeps_the_report_tables_whole() {
    let dir = tempfile::tempdir().unwrap();
    let puzzles = dir.path().join("two\nlines|<b>.txt");
    std::fs::copy(
        repo_datasets().join("sudoku/generated-16x16-20.txt"),
        &puzzles,
    )
    .unwrap();
    let report = dir.path().join("report");
    let out = puzzlebench()
        .args(["sudoku", "solve", "-o", "/dev/null", "--report"])
        .arg(&report)
        .arg(&puzzles)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    let md = std::fs::read_to_string(report.join("summary.md")).unwrap();
    assert!(md.contains("two<br>lines\\|&lt;b&gt;.txt"), "{md}");
    for line in md.lines().filter(|l| l.starts_with('|')) {
        assert!(line.ends_with('|'), "a table row cut: {line:?}\n{md}");
    }
    assert!(!md.lines().any(|l| l.starts_with("lines")), "{md}");
}
