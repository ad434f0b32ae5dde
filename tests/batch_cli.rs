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
