//! The batch runner end to end over arbitrary bytes: lines, CSV and blocks, through real
//! puzzle jobs, in-process. Rows out must be the records in — the lines an independent
//! model (`puzzlebench_fuzz::model`) finds — in input order, and the same rows whatever
//! the threads and the chunk size.
#![no_main]

use libfuzzer_sys::fuzz_target;
use puzzlebench::batch::{InputFormat, InputSpec, Job, RunOptions};
use puzzlebench::budget::Budget;
use puzzlebench::puzzle::Puzzle;
use puzzlebench::{battleship, connect4, sudoku};
use puzzlebench_fuzz::{check_row_texts, model, run_file, scratch_file, Ran};

/// Records of up to this many bytes (the command line's default is 1 MiB: far more than
/// any fuzz input, so the first byte picks a small limit half of the time).
const LARGE: usize = 1 << 20;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, input)) = data.split_first() else {
        return;
    };
    let max_line_bytes = if selector & 0x80 != 0 {
        1 + usize::from(selector >> 4 & 0x7) * 9
    } else {
        LARGE
    };
    let path = scratch_file("input", input);
    let name = path.to_str().expect("a UTF-8 path");
    let csv_inputs = [InputSpec::new(name, Some(InputFormat::Csv))];
    match selector & 0x7 {
        0 | 1 => {
            let format = [InputFormat::Lines, InputFormat::Csv][usize::from(selector & 1)];
            let inputs = if format == InputFormat::Csv {
                &csv_inputs[..]
            } else {
                &[]
            };
            let job = sudoku::SudokuPuzzle::job(&Default::default(), "fast", inputs).unwrap();
            check(&job, &path, format, max_line_bytes, input);
        }
        2 | 3 => {
            let format = [InputFormat::Lines, InputFormat::Csv][usize::from(selector & 1)];
            let job = connect4::ValidatePuzzle::job(&Default::default(), "bitboard", &[]).unwrap();
            check(&job, &path, format, max_line_bytes, input);
        }
        4 => {
            let settings = connect4::SolveSettings {
                // The smallest table (2¹⁴ entries): each run's workers make fresh ones.
                table_mb: 0,
                ..Default::default()
            };
            let job = connect4::SolvePuzzle::job(&settings, "exact", &[]).unwrap();
            check(&job, &path, InputFormat::Lines, max_line_bytes, input);
        }
        5 => {
            let job = sudoku::SudokuPuzzle::job(&Default::default(), "dlx", &csv_inputs).unwrap();
            check(&job, &path, InputFormat::Csv, max_line_bytes, input);
        }
        _ => {
            let format = [InputFormat::Lines, InputFormat::Blocks][usize::from(selector & 1)];
            let job = battleship::ValidateJob {
                count: true,
                ..battleship::ValidatePuzzle::job(&Default::default(), "bitmask", &[]).unwrap()
            };
            check(&job, &path, format, max_line_bytes, input);
        }
    }
});

fn options(threads: usize, chunk_records: usize) -> RunOptions {
    RunOptions {
        threads,
        chunk_records,
        // A small budget: this target checks the runner, and `connect4_solve` and
        // `sudoku_solve` the searches (at 2,000 nodes the Connect Four searches took two
        // fifths of each execution).
        budget: Budget {
            timeout: None,
            max_nodes: Some(300),
        },
        ..RunOptions::default()
    }
}

fn check<J: Job>(
    job: &J,
    path: &std::path::Path,
    format: InputFormat,
    max_line_bytes: usize,
    input: &[u8],
) {
    let expected = model::expected(input, format, max_line_bytes);
    // Gzip is detected by its magic bytes: such an input is read as a gzip stream.
    let gzip = input.starts_with(&[0x1f, 0x8b]);
    let one = run_file(job, path, format, max_line_bytes, &options(1, 256));
    let statuses = job.statuses();
    check_row_texts(&one, &statuses);
    let lines: Vec<u64> = one.line_status_error().iter().map(|r| r.0).collect();
    assert!(
        lines.windows(2).all(|w| w[0] < w[1]),
        "rows out of order: {lines:?}"
    );
    let physical = input.iter().filter(|&&b| b == b'\n' || b == b'\r').count() as u64 + 1;
    assert!(
        gzip || lines.iter().all(|&l| (1..=physical).contains(&l)),
        "{lines:?}"
    );
    if gzip {
        // A stream that is not valid gzip stops the run (tests/hostile_input.rs has
        // truncated and corrupt gzip); one that is valid is not what the model reads.
    } else if expected.within_limit {
        match &one.result {
            Ok(stats) => {
                assert!(!expected.header_fault, "a faulty CSV header was read");
                assert_eq!(lines, expected.lines, "rows out ≠ records in");
                assert_eq!(stats.records, lines.len() as u64, "the stats' record count");
            }
            Err(error) => {
                // Only a faulty header, or binary data in a faulty record, stop a run.
                let binary = expected.faults && input.contains(&0);
                assert!(expected.header_fault || binary, "the run failed: {error}");
                assert!(
                    expected.lines.starts_with(&lines),
                    "rows before the failure are not the first records: {lines:?} vs {:?}",
                    expected.lines
                );
            }
        }
    } else if let Err(error) = &one.result {
        let header_unreadable =
            format == InputFormat::Csv && error.to_string().contains("its header cannot be read");
        assert!(
            input.contains(&0) || header_unreadable,
            "the run failed: {error}"
        );
    }
    // Another cut of the input into chunks, and two threads: the same rows.
    let other = run_file(job, path, format, max_line_bytes, &options(2, 1));
    same_run(&one, &other);
}

fn same_run(one: &Ran, other: &Ran) {
    assert_eq!(
        one.result.as_ref().err().map(ToString::to_string),
        other.result.as_ref().err().map(ToString::to_string),
        "the threads or chunks change whether the run fails"
    );
    assert_eq!(one.sink.columns, other.sink.columns);
    let (a, b) = (one.stable_rows(), other.stable_rows());
    assert_eq!(
        a.len(),
        b.len(),
        "the threads or chunks change the row count"
    );
    // `line` and `status` lead every row.
    let status = 1;
    for (a, b) in a.iter().zip(&b) {
        // A Connect Four search's node count, and so whether it hits the node budget,
        // depends on what its worker's table holds from earlier records.
        if a[status] == "timeout" || b[status] == "timeout" {
            assert_eq!(a[0], b[0], "rows of other lines");
        } else {
            assert_eq!(a, b, "the threads or chunks change a row");
        }
    }
}
