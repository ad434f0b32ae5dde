//! Regression tests for what `cargo fuzz` found (see docs/reliability.md, "Fuzzing"): each
//! failing input, cut down to a few bytes, in a test that runs on stable.

use puzzlebench::report::{resume_output, OutputFormat};

/// `resume_output` on `bytes` written to a fresh file: its answer and the file afterwards.
fn resume_bytes(bytes: &[u8], format: OutputFormat) -> (Result<(), String>, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rows");
    std::fs::write(&path, bytes).unwrap();
    let result = resume_output(&path, format, true)
        .map(|_| ())
        .map_err(|e| e.to_string());
    (result, std::fs::read(&path).unwrap())
}

#[test]
fn a_file_refused_by_resume_keeps_its_last_line() {
    // Found by fuzz target resume_output: the torn last line was cut off before the file
    // was found not to be a results file, so `-o data.txt --resume` on a file of records
    // without a final newline lost its last record, though the run was refused.
    for (bytes, format) in [
        (&b"{\"line\":1}\nnot json\n{\"li"[..], OutputFormat::Jsonl),
        (&b"puzzle\n..3..\n..4.."[..], OutputFormat::Csv),
        (&b"line,status\n1,ok\n\"x\n2,o"[..], OutputFormat::Csv),
        // An unclosed quote in a file's middle is not a row cut short (its line field is
        // not a number), however many lines follow it.
        (
            &b"line,status\n1,ok\n\"x\n2,o\n3,ok\n"[..],
            OutputFormat::Csv,
        ),
    ] {
        let (result, after) = resume_bytes(bytes, format);
        assert!(result.is_err(), "{format:?} {bytes:?} was accepted");
        assert_eq!(after, bytes, "{format:?}: a refused file was changed");
    }
    // A file accepted is cut after its last whole line when the first new row comes.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rows");
    std::fs::write(&path, b"line,status\n1,ok\n2,o").unwrap();
    let mut resumed = resume_output(&path, OutputFormat::Csv, true).unwrap();
    std::io::Write::write_all(&mut resumed.file, b"2,ok\n").unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"line,status\n1,ok\n2,ok\n");
}

/// The error of a Sudoku CSV record whose puzzle and solution columns have names of 500
/// characters.
fn sudoku_error_under_a_long_column_name(fields: Vec<String>) -> String {
    use puzzlebench::batch::{InputFormat, InputSpec, Job, Record, RecordContent};
    use puzzlebench::budget::Meter;
    use puzzlebench::puzzle::Puzzle;
    use puzzlebench::sudoku::{SolveJob, SudokuPuzzle};

    let inputs = [InputSpec::new("puzzles.csv", Some(InputFormat::Csv))];
    let job = SolveJob {
        expected_column: Some("s".repeat(500)),
        ..SudokuPuzzle::job(&Default::default(), "fast", &inputs).unwrap()
    };
    let header = ["p".repeat(500), "s".repeat(500)];
    let layout = job.layout(&inputs[0], Some(&header)).unwrap();
    let fields: Vec<&str> = fields.iter().map(String::as_str).collect();
    let record = Record {
        line: 2,
        content: RecordContent::Fields(&fields),
    };
    let mut worker = job.new_worker();
    match job.process(&mut worker, &layout, &record, &mut Meter::unlimited()) {
        Ok(outcome) => outcome.error,
        Err(error) => error.to_string(),
    }
}

#[test]
fn errors_quote_at_most_80_characters_of_a_csv_column_name() {
    // Found by fuzz target batch_run: a CSV header's column name was quoted whole in
    // every error row about that column (a 600-character message from a garbage header).
    let solution = "1234341221434321".to_string();
    for fields in [
        vec!["12x4".to_string(), solution.clone()],
        vec!["  ".to_string(), solution.clone()],
        vec!["12..34..21..43..".to_string()],
        vec!["12..34..21..43..".to_string(), "2".repeat(16)],
    ] {
        let error = sudoku_error_under_a_long_column_name(fields.clone());
        assert!(
            error.contains("ppp") || error.contains("sss"),
            "{fields:?}: {error}"
        );
        assert!(error.chars().count() < 250, "{fields:?}: {error}");
    }
}

#[test]
fn errors_quote_at_most_80_characters_of_a_colour_name() {
    // Found looking for the batch_run finding's kin (the fuzz target now checks it too):
    // colour names were written whole into the messages for a move out of turn and for a
    // third colour.
    use puzzlebench::connect4::{replay, AfterEnd, GameLog, Notation, NotationError};

    let (red, blue) = ("R".repeat(500), "B".repeat(500));
    let log = GameLog::parse(&format!("D_{red}, D_{red}"), Notation::Auto).unwrap();
    let verdict = replay::<u64>(&log, 7, 6, AfterEnd::Error);
    let (_, message) = verdict.invalid.expect("a move out of turn");
    assert!(
        message.contains("RRR") && message.contains("moved twice"),
        "{message}"
    );
    assert!(message.chars().count() < 400, "{message}");

    let error = GameLog::parse(&format!("D_{red}, D_{blue}, D_Y"), Notation::Auto).unwrap_err();
    assert!(matches!(error, NotationError::BadToken { index: 3, .. }));
    let message = error.to_string();
    assert!(message.contains("a third colour"), "{message}");
    assert!(message.chars().count() < 400, "{message}");
}

#[test]
fn a_battleship_json_error_quotes_at_most_80_characters() {
    // Found by fuzz target battleship_validate: serde_json's message, which holds the
    // whole offending string, was passed on as it was.
    use puzzlebench::battleship::{Field, FieldFormat};

    let text = format!("[\"{}\"]", "1".repeat(500));
    let error = Field::parse(&text, FieldFormat::Auto, None)
        .unwrap_err()
        .to_string();
    assert!(error.contains("invalid type: string"), "{error}");
    assert!(error.contains("at column 503"), "{error}");
    assert!(error.chars().count() < 250, "{error}");
}

#[test]
fn a_record_of_lines_exactly_at_the_limit_is_not_too_long() {
    // Found by fuzz target batch_run: a block (or a CSV record held open by a quote) whose
    // text ended exactly at `--max-line-bytes` was counted one byte longer, its last line
    // ending included, when the reading paused right after that line ending, and became a
    // "longer than" error; with NUL bytes in it, the run then stopped as on binary data.
    use puzzlebench::batch::{InputFormat, InputSpec, NoProgress, RunOptions};
    use puzzlebench::puzzle::Puzzle;

    let dir = tempfile::tempdir().unwrap();
    let cases = [
        // 49 + 1 + 14 = 64 bytes of text: exactly the limit; 1 + 30 + 1 + 30 + 1 = 63.
        (
            InputFormat::Blocks,
            format!("{}\n{}\n", "1".repeat(49), "0".repeat(14)),
            64,
        ),
        (
            InputFormat::Blocks,
            format!("{}\n{}\n", "1".repeat(49), "0".repeat(15)),
            64,
        ),
        (
            InputFormat::Csv,
            format!("field\n\"{}\n{}\"\n", "1".repeat(30), "0".repeat(30)),
            63,
        ),
        (
            InputFormat::Csv,
            format!("field\n\"{}\n{}\"\n", "1".repeat(30), "0".repeat(31)),
            63,
        ),
    ];
    for (format, text, max) in cases {
        let path = dir.path().join("input");
        std::fs::write(&path, &text).unwrap();
        let input = InputSpec::new(path.to_str().unwrap(), Some(format)).with_max_line_bytes(max);
        let job = puzzlebench::battleship::ValidatePuzzle::job(&Default::default(), "bitmask", &[])
            .unwrap();
        let mut rows = Vec::<String>::new();
        struct Errors<'a>(&'a mut Vec<String>);
        impl puzzlebench::batch::RowSink for Errors<'_> {
            fn begin(&mut self, _: &[String]) -> std::io::Result<()> {
                Ok(())
            }
            fn write_row(&mut self, row: &[puzzlebench::batch::Value]) -> std::io::Result<()> {
                self.0.push(
                    row.iter()
                        .map(|v| v.to_text())
                        .collect::<Vec<_>>()
                        .join("|"),
                );
                Ok(())
            }
            fn finish(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let options = RunOptions {
            threads: 1,
            ..RunOptions::default()
        };
        let ran = puzzlebench::batch::run(
            &job,
            &[input],
            &mut Errors(&mut rows),
            &NoProgress,
            &options,
        );
        assert!(ran.is_ok(), "{format:?} {max}: {ran:?}");
        // (A CSV record too long is one error row, then reading goes on at the line after
        // its quote's: a second row.)
        assert!(!rows.is_empty(), "{rows:?}");
        // The record's text: for CSV, after the header line, quotes included.
        let record = match format {
            InputFormat::Csv => text.split_once('\n').unwrap().1,
            _ => &text,
        };
        let length = record.trim_end().len();
        let too_long = rows[0].contains("longer than") || rows[0].contains("never closed within");
        assert_eq!(
            too_long,
            length > max,
            "{format:?}, {length} bytes, limit {max}: {rows:?}"
        );
    }
}

#[test]
fn a_bare_cr_does_not_end_a_row_of_a_results_file() {
    // Found by fuzz target resume_output: the CSV reader ended a row at a bare CR, while
    // the torn last line is found by its LF, so a file that was not ours could count more
    // rows than it has lines (6 rows from 5 lines). Results files end their rows with LF
    // (a CR in a field is quoted), so a bare CR is part of its field, and such a file is
    // refused as any other that is not a results file.
    for bytes in [&b"line\n1\r2\r3\n"[..], b"line,status\n4,ok\r5,ok\n"] {
        let (result, after) = resume_bytes(bytes, OutputFormat::Csv);
        assert!(result.is_err(), "{bytes:?} was accepted");
        assert_eq!(after, bytes, "a refused file was changed");
    }
    // A file whose rows end with CRLF is still read, a row to a line.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rows");
    std::fs::write(&path, b"line,status\r\n1,ok\r\n2,o").unwrap();
    let mut resumed = resume_output(&path, OutputFormat::Csv, true).unwrap();
    let point = resumed.point.take().unwrap();
    assert_eq!((point.rows, point.last_line), (1, 1));
    std::io::Write::write_all(&mut resumed.file, b"2,ok\r\n").unwrap();
    assert_eq!(
        std::fs::read(&path).unwrap(),
        b"line,status\r\n1,ok\r\n2,ok\r\n"
    );
}
