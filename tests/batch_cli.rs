//! End-to-end tests of what every batch command shares: its inputs and outputs.

mod common;

use common::{repo_datasets, run, run_with_stdin, shell_in, stderr, write};

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

#[test]
fn standard_input_or_output_on_an_input_file_is_refused_and_the_input_kept() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        repo_datasets().join("sudoku/mixed.txt"),
        dir.path().join("p.txt"),
    )
    .unwrap();
    std::fs::copy(
        repo_datasets().join("connect4/games-1k.txt"),
        dir.path().join("g.txt"),
    )
    .unwrap();
    let original = |name: &str| std::fs::read(dir.path().join(name)).unwrap();
    let (puzzles, games) = (original("p.txt"), original("g.txt"));
    for (args, redirections, input, message) in [
        (
            "sudoku solve -o p.txt",
            "< p.txt",
            "p.txt",
            "the output p.txt is the input standard input (-)",
        ),
        (
            "connect4 validate -o g.txt -",
            "< g.txt",
            "g.txt",
            "the output g.txt is the input standard input (-)",
        ),
        (
            "sudoku solve p.txt",
            ">> p.txt",
            "p.txt",
            "the output standard output is the input p.txt",
        ),
        (
            "sudoku show",
            "< p.txt >> p.txt",
            "p.txt",
            "the output standard output is the input standard input (-)",
        ),
    ] {
        let out = shell_in(dir.path(), args, redirections);
        assert_eq!(out.status.code(), Some(2), "{args} {redirections}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(message), "{args} {redirections}: {stderr}");
        let kept = if input == "p.txt" { &puzzles } else { &games };
        assert_eq!(&original(input), kept, "{args} {redirections}");
    }
    // Standard input from a file and rows to another file, or a pipe, still run.
    let out = shell_in(dir.path(), "sudoku solve -o rows.csv", "< p.txt");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("rows.csv"))
            .unwrap()
            .lines()
            .count(),
        9
    );
    let out = shell_in(dir.path(), "sudoku solve", "< p.txt | cat");
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 9);
}

#[test]
fn a_closed_standard_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for args in ["sudoku solve", "connect4 validate -", "sudoku show"] {
        let out = shell_in(dir.path(), args, "<&-");
        assert_eq!(out.status.code(), Some(2), "{args}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("standard input is closed"),
            "{args}: {stderr}"
        );
    }
}

#[test]
fn a_report_folder_that_would_overwrite_the_results_or_an_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("rep");
    std::fs::create_dir(&report).unwrap();
    let input = report.join("summary.md");
    std::fs::copy(repo_datasets().join("sudoku/mixed.txt"), &input).unwrap();
    let original = std::fs::read(&input).unwrap();
    let (input, report_name) = (input.to_str().unwrap(), report.to_str().unwrap());
    let out = run(&[
        "sudoku",
        "solve",
        input,
        "--report",
        report_name,
        "-o",
        "/dev/null",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "would overwrite the input {input} with its summary.md"
        )),
        "{stderr}"
    );
    assert_eq!(std::fs::read(input).unwrap(), original);
    // The results file in the folder under a report's name, not there yet.
    let rows = report.join("summary.csv");
    let puzzles = repo_datasets().join("sudoku/mixed.txt");
    let out = run(&[
        "sudoku",
        "solve",
        puzzles.to_str().unwrap(),
        "--report",
        report_name,
        "-o",
        rows.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("would overwrite the results file"),
        "{stderr}"
    );
    assert!(!rows.exists());
    // Another name in the same folder is fine.
    let rows = report.join("rows.csv");
    let out = run(&[
        "sudoku",
        "solve",
        puzzles.to_str().unwrap(),
        "--report",
        report_name,
        "-o",
        rows.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&rows).unwrap().lines().count(), 9);
    assert!(report.join("summary.json").exists());
}

#[test]
fn a_results_file_and_a_report_folder_of_one_path_are_refused_before_anything_is_made() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::os::unix::fs::symlink("sub", dir.path().join("link")).unwrap();
    let data = repo_datasets();
    let commands = [
        ("sudoku solve", "sudoku/mixed.txt"),
        ("connect4 validate", "connect4/games-1k.txt"),
        ("connect4 solve", "connect4/seed-game.txt"),
        ("battleship validate", "battleship/seed-field.txt"),
    ];
    // The same path, spelt the same or through `..` or a link, made or not.
    let pairs = [
        ("same1", "same1"),
        ("sub/x", "sub/../sub/x"),
        ("link/x", "sub/x"),
        ("new/deeper/x", "./new/deeper/x"),
    ];
    for (command, input) in commands {
        for (output, report) in pairs {
            let input = data.join(input);
            let mut args: Vec<&str> = command.split(' ').collect();
            args.extend([input.to_str().unwrap(), "-q", "-o", output]);
            args.extend(["--report", report]);
            let out = common::puzzlebench()
                .args(&args)
                .current_dir(dir.path())
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(2), "{args:?}");
            assert_eq!(
                stderr(&out).trim_end(),
                format!(
                    "puzzlebench: -o {output} and --report {report} name the same path: the \
                     results file and the report folder need one each"
                ),
                "{args:?}"
            );
            for made in ["same1", "sub/x", "new"] {
                assert!(!dir.path().join(made).exists(), "{args:?}: {made} was made");
            }
        }
    }
    // A results file under a report's name in a folder not made yet: refused, not made.
    let out = common::puzzlebench()
        .args([
            "sudoku",
            "solve",
            "-q",
            "-o",
            "rep/summary.csv",
            "--report",
            "rep",
        ])
        .arg(data.join("sudoku/mixed.txt"))
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("would overwrite the results file rep/summary.csv"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join("rep").exists());
}

#[test]
fn a_limit_of_one_byte_is_said_in_the_singular() {
    let dir = tempfile::tempdir().unwrap();
    let moves = write(dir.path(), "moves.txt", "44\n4\n");
    let out = run(&[
        "connect4",
        "validate",
        "--max-line-bytes",
        "1",
        moves.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let rows = common::stdout(&out);
    let (header, rows) = common::parse_csv(&rows);
    assert_eq!(
        common::cell(&header, &rows[0], "error"),
        "line 1 is longer than 1 byte"
    );
    assert_eq!(common::cell(&header, &rows[1], "status"), "unfinished");
}

#[test]
fn a_connect4_book_is_neither_the_output_nor_the_game_log() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("w.book");
    std::fs::copy(repo_datasets().join("connect4/7x6-depth8-weak.book"), &book).unwrap();
    let original = std::fs::read(&book).unwrap();
    let positions = write(dir.path(), "p.txt", "4455\n");
    let book_name = book.to_str().unwrap();
    let out = run(&[
        "connect4",
        "solve",
        "--weak",
        "--book",
        book_name,
        "-o",
        book_name,
        positions.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("writing it would destroy the book"),
        "{}",
        stderr(&out)
    );
    let out = run_with_stdin(
        &["connect4", "play", "--book", book_name, "--log", book_name],
        b"4\n",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("is the book"), "{}", stderr(&out));
    assert_eq!(std::fs::read(&book).unwrap(), original);
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

/// Inputs whose names say nothing by themselves are named in words: standard input, an
/// empty name; a compressed input broken before its first line says so.
#[test]
fn inputs_are_named_in_words_where_their_names_say_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let from_folder = common::puzzlebench()
        .args(["sudoku", "solve", "-q"])
        .stdin(std::fs::File::open(dir.path()).unwrap())
        .output()
        .unwrap();
    assert_eq!(from_folder.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&from_folder.stderr);
    assert!(stderr.contains("cannot read standard input: "), "{stderr}");
    // After another input too: refused before that input runs, not after its rows.
    let after_a_file = common::puzzlebench()
        .args(["sudoku", "solve", "-q"])
        .arg(repo_datasets().join("sudoku/mixed.txt"))
        .arg("-")
        .stdin(std::fs::File::open(dir.path()).unwrap())
        .output()
        .unwrap();
    assert_eq!(after_a_file.status.code(), Some(2));
    assert!(after_a_file.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&after_a_file.stderr);
    assert!(
        stderr.contains("cannot read standard input: it is a directory"),
        "{stderr}"
    );
    let empty = run(&["sudoku", "solve", "-q", ""]);
    assert_eq!(empty.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&empty.stderr);
    assert!(
        stderr.contains("cannot read \"\" (an empty file name): "),
        "{stderr}"
    );
    // The first 20 bytes of a gzip stream: not one line comes out.
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gzip, &[b'.'; 81 * 50]).unwrap();
    let bytes = gzip.finish().unwrap();
    let cut = dir.path().join("cut.txt.gz");
    std::fs::write(&cut, &bytes[..20]).unwrap();
    let broken = run(&["sudoku", "solve", "-q", cut.to_str().unwrap()]);
    assert_eq!(broken.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&broken.stderr);
    assert!(
        stderr.contains("from its start: ") && stderr.contains("none of its records was processed"),
        "{stderr}"
    );
}

#[test]
fn a_line_limit_of_zero_bytes_is_refused_before_any_record() {
    let output = run(&["sudoku", "solve", "--max-line-bytes", "0", "-"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("0 would make every record an error row: give at least 1"),
        "{stderr}"
    );
}

#[test]
fn inputs_with_carried_columns_run_together_in_either_order_and_differing_ones_are_refused_first() {
    let dir = tempfile::tempdir().unwrap();
    let puzzle =
        "97....21.....16.5.26..........62..91..9......68.7.........3.86....1.2539........2";
    let lines = write(dir.path(), "lines.txt", format!("{puzzle}\n"));
    let noted = write(
        dir.path(),
        "noted.csv",
        format!("quizzes,note\n{puzzle},hello\n"),
    );
    let other = write(
        dir.path(),
        "other.csv",
        format!("quizzes,other\n{puzzle},x\n"),
    );
    let [lines, noted, other] = [&lines, &noted, &other].map(|p| p.to_str().unwrap().to_string());
    // A lines file before or after a CSV that carries a column: one run, the lines file's
    // carried cell empty.
    for inputs in [[&lines, &noted], [&noted, &lines]] {
        let result = run(&["sudoku", "solve", inputs[0], inputs[1]]);
        assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
        let (header, rows) = common::parse_csv(&common::stdout(&result));
        assert_eq!(header[..4], ["file", "line", "status", "note"]);
        assert_eq!(rows.len(), 2);
        for row in &rows {
            let carried = if row[0] == *noted { "hello" } else { "" };
            assert_eq!((row[2].as_str(), row[3].as_str()), ("solved", carried));
        }
    }
    // Two CSVs that carry different columns: refused before any row, an earlier results
    // file left as it was, whichever comes first and wherever the lines file stands.
    let out = dir.path().join("rows.csv");
    std::fs::write(&out, "an earlier run's rows\n").unwrap();
    for inputs in [[&lines, &noted, &other], [&other, &lines, &noted]] {
        let result = run(&[
            "sudoku",
            "solve",
            "-o",
            out.to_str().unwrap(),
            inputs[0],
            inputs[1],
            inputs[2],
        ]);
        assert_eq!(result.status.code(), Some(2));
        let message = stderr(&result);
        assert!(message.contains("differ from those of"), "{message}");
        assert!(message.contains("run them apart"), "{message}");
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            "an earlier run's rows\n"
        );
        assert!(!dir.path().join("rows.csv.unfinished").exists());
    }
    // Standard input redirected from a file is read ahead too, then read whole in its turn.
    let stdin_from = |path: &str| {
        common::puzzlebench()
            .args(["sudoku", "solve", "--format", "csv", "-o"])
            .arg(&out)
            .args([&noted, "-"])
            .stdin(std::fs::File::open(path).unwrap())
            .output()
            .unwrap()
    };
    let refused = stdin_from(&other);
    assert_eq!(refused.status.code(), Some(2));
    assert!(stderr(&refused).contains("standard input: its result columns"));
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "an earlier run's rows\n"
    );
    let same = stdin_from(&noted);
    assert_eq!(same.status.code(), Some(0), "{}", stderr(&same));
    let (_, rows) = common::parse_csv(&std::fs::read_to_string(&out).unwrap());
    assert_eq!(rows.len(), 2);
    assert_eq!((rows[1][0].as_str(), rows[1][3].as_str()), ("-", "hello"));
}

/// Bytes after a gzip file's data: every record is processed and the message says what
/// follows is not gzip (it said `unexpected end of file`, as if the file were cut short);
/// zero bytes there (padding) are skipped, and so is a second member's empty stream.
#[test]
fn bytes_after_gzip_data_are_named_and_zero_padding_is_skipped() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read(repo_datasets().join("sudoku/mixed.txt")).unwrap();
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(&text).unwrap();
    let whole = encoder.finish().unwrap();
    let expected = run_with_stdin(&["sudoku", "solve"], &text);
    let expected = common::without_micros(&String::from_utf8_lossy(&expected.stdout));
    for (tail, code) in [(&b"ab"[..], 2), (b"trailing text\n", 2), (&[0; 64][..], 1)] {
        let path = write(dir.path(), "p.txt.gz", [&whole[..], tail].concat());
        let output = run(&["sudoku", "solve", path.to_str().unwrap()]);
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(code), "{message}");
        let rows = common::without_micros(&String::from_utf8_lossy(&output.stdout));
        assert_eq!(rows, expected, "{tail:?}");
        if code == 2 {
            assert!(
                message.contains("its gzip data ends, and the bytes after it are not gzip"),
                "{message}"
            );
        }
    }
}

/// A carried CSV field that is not UTF-8 is carried with its bad bytes replaced, its
/// record solved; the puzzle's own field that is not UTF-8 is an error row.
#[test]
fn a_carried_field_that_is_not_utf8_is_carried_and_its_record_solved() {
    let puzzle =
        "97....21.....16.5.26..........62..91..9......68.7.........3.86....1.2539........2";
    let csv = [
        format!("quizzes,note\n{puzzle},h").into_bytes(),
        b"\xffllo\n".to_vec(),
        puzzle.as_bytes().to_vec(),
        b"\xfe,ok\n".to_vec(),
    ]
    .concat();
    let output = run_with_stdin(&["sudoku", "solve", "--format", "csv", "-"], &csv);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let (header, rows) = common::parse_csv(&common::stdout(&output));
    let at = |row: usize, column: &str| common::cell(&header, &rows[row], column).to_string();
    assert_eq!(
        (at(0, "status"), at(0, "note")),
        ("solved".into(), "h\u{fffd}llo".into())
    );
    assert_eq!(
        (at(1, "status"), at(1, "error")),
        ("error".into(), "field 1: not valid UTF-8 at byte 82".into())
    );
}

/// A compressed CSV cut short before its header ends says that its header cannot be read
/// and that the run stops there, as a damaged header does.
#[test]
fn a_compressed_csv_cut_inside_its_header_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read(repo_datasets().join("sudoku/generated-1k.csv")).unwrap();
    let cut = truncated_gzip(&text, 0.0001);
    let path = write(dir.path(), "cut.csv.gz", cut);
    let output = run(&["sudoku", "solve", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let message = stderr(&output);
    assert!(
        message.contains("cut.csv.gz: its header cannot be read: ")
            && message.contains("; the run stops before its records"),
        "{message}"
    );
}
