//! Regression tests for what `cargo fuzz` found (see docs/reliability.md, "Fuzzing"): each
//! failing input, cut down to a few bytes, in a test that runs on stable.

use puzzlebench::report::{resume_output, OutputFormat};

/// `resume_output` on `bytes` written to a fresh file: its answer and the file afterwards.
fn resume_bytes(bytes: &[u8], format: OutputFormat) -> (Result<(), String>, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rows");
    std::fs::write(&path, bytes).unwrap();
    let result = resume_output(&path, format)
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
    ] {
        let (result, after) = resume_bytes(bytes, format);
        assert!(result.is_err(), "{format:?} {bytes:?} was accepted");
        assert_eq!(after, bytes, "{format:?}: a refused file was changed");
    }
    // A file accepted is still cut after its last whole line.
    let (result, after) = resume_bytes(b"line,status\n1,ok\n2,o", OutputFormat::Csv);
    assert_eq!(result, Ok(()));
    assert_eq!(after, b"line,status\n1,ok\n");
}
