//! `--resume`'s reading of an existing results file, two ways.
//!
//! Arbitrary bytes as the file (CSV and JSON Lines): an answer, never a panic; a file
//! accepted is cut exactly after its last line ending, and a file refused is left as it
//! was. And a genuine results file (a `connect4 validate` run over the input's lines) cut
//! anywhere, then resumed: the file ends equal to the uninterrupted run's, `micros` aside.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use puzzlebench::batch::{self, InputFormat, InputSpec, NoProgress, RunOptions};
use puzzlebench::puzzle::Puzzle;
use puzzlebench::report::{continuing_row_writer, resume_output, row_writer, OutputFormat};
use puzzlebench_fuzz::scratch_file;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let format = if selector & 1 == 0 {
        OutputFormat::Csv
    } else {
        OutputFormat::Jsonl
    };
    if selector & 2 == 0 {
        arbitrary_file(rest, format);
    } else if let [cut_high, cut_low, records @ ..] = rest {
        let cut = usize::from(*cut_high) << 8 | usize::from(*cut_low);
        genuine_file_cut(records, cut, format);
    }
});

fn arbitrary_file(bytes: &[u8], format: OutputFormat) {
    let path = scratch_file("results", bytes);
    match resume_output(&path, format, true) {
        Ok(resumed) => {
            let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            let now = std::fs::read(&path).unwrap();
            assert_eq!(now, &bytes[..whole], "not cut after the last line ending");
            if let Some(point) = resumed.point {
                let lines = bytes[..whole].iter().filter(|&&b| b == b'\n').count() as u64;
                assert!(point.rows <= lines, "{point:?} from {lines} lines");
                assert!(point.columns.iter().any(|c| c == "line"), "{point:?}");
                assert!(point.rows > 0 || point.last_line == 0, "{point:?}");
            }
        }
        Err(error) => {
            assert!(!error.to_string().is_empty());
            let now = std::fs::read(&path).unwrap();
            assert_eq!(now, bytes, "a file refused was changed");
        }
    }
}

fn genuine_file_cut(records: &[u8], cut: usize, format: OutputFormat) {
    let input = scratch_file("records.txt", records);
    let inputs = [InputSpec::new(
        input.to_str().unwrap(),
        Some(InputFormat::Lines),
    )];
    let job = puzzlebench::connect4::ValidatePuzzle::job(&Default::default(), "bitboard", &inputs)
        .unwrap();
    let options = RunOptions {
        threads: 1,
        ..RunOptions::default()
    };
    let full_path = scratch_file("full", b"");
    let file = std::fs::File::create(&full_path).unwrap();
    let mut sink = row_writer(format, Box::new(file));
    if batch::run(&job, &inputs, sink.as_mut(), &NoProgress, &options).is_err() {
        // Binary data: the run itself stops (the hostile-input target checks when).
        return;
    }
    drop(sink);
    let full = std::fs::read(&full_path).unwrap();
    let cut = cut % (full.len() + 1);
    let path = scratch_file("cut", &full[..cut]);
    let resumed = resume_output(&path, format, true)
        .unwrap_or_else(|e| panic!("a results file cut at byte {cut} is refused: {e}"));
    let out = Box::new(resumed.file);
    let (mut sink, resume) = match resumed.point {
        Some(point) => (continuing_row_writer(format, out), Some(point)),
        None => (row_writer(format, out), None),
    };
    let options = RunOptions { resume, ..options };
    if let Err(error) = batch::run(&job, &inputs, sink.as_mut(), &NoProgress, &options) {
        panic!("resuming after byte {cut} failed: {error}");
    }
    drop(sink);
    assert_eq!(
        without_micros(&path, format),
        without_micros(&full_path, format),
        "resumed after byte {cut}: another file"
    );
}

/// The rows of a results file as text, without the `micros` column.
fn without_micros(path: &Path, format: OutputFormat) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    match format {
        OutputFormat::Csv => {
            let mut reader = csv::ReaderBuilder::new()
                .has_headers(false)
                .from_reader(text.as_bytes());
            let rows: Vec<Vec<String>> = reader
                .records()
                .map(|r| r.unwrap().iter().map(String::from).collect())
                .collect();
            let Some(micros) = rows
                .first()
                .and_then(|h| h.iter().position(|c| c == "micros"))
            else {
                return rows.iter().map(|r| r.join(",")).collect();
            };
            rows.into_iter()
                .map(|mut row| {
                    row.remove(micros);
                    row.join(",")
                })
                .collect()
        }
        OutputFormat::Jsonl => text
            .lines()
            .map(|line| {
                let mut object: serde_json::Map<String, serde_json::Value> =
                    serde_json::from_str(line).unwrap();
                object.remove("micros");
                serde_json::Value::Object(object).to_string()
            })
            .collect(),
    }
}
