//! End-to-end tests of what every batch command shares: its inputs and outputs.

mod common;

use common::{repo_datasets, run};

#[test]
fn an_output_naming_an_input_is_refused_and_the_input_kept() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("puzzles.txt");
    std::fs::copy(repo_datasets().join("sudoku/mixed.txt"), &input).unwrap();
    let original = std::fs::read(&input).unwrap();
    let link = dir.path().join("link.txt");
    std::fs::hard_link(&input, &link).unwrap();
    let dotted = dir.path().join(".").join("puzzles.txt");
    let input_name = input.to_str().unwrap();
    for output in [&input, &link, &dotted] {
        let out = output.to_str().unwrap();
        for command in [
            vec!["sudoku", "solve", "-o", out, input_name],
            vec!["connect4", "validate", "-o", out, input_name],
            vec!["battleship", "validate", "-o", out, input_name],
        ] {
            let result = run(&command);
            assert_eq!(result.status.code(), Some(2), "{command:?}");
            let stderr = String::from_utf8_lossy(&result.stderr);
            assert!(
                stderr.contains(&format!("the output {out} is the input {input_name}")),
                "{stderr}"
            );
            assert_eq!(std::fs::read(&input).unwrap(), original, "{command:?}");
        }
    }
    // Another file is written as usual.
    let other = dir.path().join("rows.csv");
    let result = run(&["sudoku", "solve", "-o", other.to_str().unwrap(), input_name]);
    assert!(result.status.code().is_some_and(|c| c < 2));
    assert!(std::fs::read_to_string(&other)
        .unwrap()
        .starts_with("line,status"));
}

/// `text` gzipped, then cut short: the last of it cannot be decompressed.
fn truncated_gzip(text: &[u8], keep: f64) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(text).unwrap();
    let whole = encoder.finish().unwrap();
    whole[..(whole.len() as f64 * keep) as usize].to_vec()
}

#[test]
fn a_truncated_gzip_gives_every_whole_record_whatever_the_threads() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read(repo_datasets().join("sudoku/generated-1k.csv")).unwrap();
    let broken = dir.path().join("broken.csv.gz");
    std::fs::write(&broken, truncated_gzip(&text, 0.4)).unwrap();
    let after = dir.path().join("after.txt");
    std::fs::copy(repo_datasets().join("sudoku/mixed.txt"), &after).unwrap();
    // What a reader gets out of the truncated file: its whole lines.
    let mut decoded = Vec::new();
    let compressed = std::fs::read(&broken).unwrap();
    let mut decoder = flate2::read::GzDecoder::new(&compressed[..]);
    let _ = std::io::Read::read_to_end(&mut decoder, &mut decoded);
    let whole_records = decoded.iter().filter(|&&b| b == b'\n').count() - 1;
    assert!(whole_records > 10, "{whole_records}");
    let mut outputs = Vec::new();
    for threads in ["1", "2"] {
        let output = run(&[
            "sudoku",
            "solve",
            "-j",
            threads,
            broken.to_str().unwrap(),
            after.to_str().unwrap(),
        ]);
        assert_eq!(output.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(&format!(
                "cannot read {} after line {}",
                broken.display(),
                whole_records + 1
            )) && stderr.contains(&format!(
                "the records before were processed, the inputs after it were not read ({})",
                after.display()
            )),
            "{stderr}"
        );
        let rows = common::without_micros(&String::from_utf8_lossy(&output.stdout));
        assert_eq!(rows.lines().count(), whole_records + 1, "-j{threads}");
        outputs.push(rows);
    }
    assert_eq!(outputs[0], outputs[1]);
}
