//! `--resume`: a results file cut anywhere (Ctrl-C, `kill -9`, a lost machine) is
//! completed so that it equals the file of an uninterrupted run, `micros` aside; a file
//! that does not fit the command or its inputs (its columns, its row count, the place or
//! the carried input columns of its last row) is refused with exit code 2.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use common::{puzzlebench, repo_datasets};

fn run_in(args: &[&str]) -> Output {
    puzzlebench().args(args).output().unwrap()
}

/// The text without the last field of each line (`micros`, the only one that varies).
fn without_last_field(text: &str) -> String {
    text.lines()
        .map(|line| match line.rfind(',') {
            Some(comma) => &line[..comma],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// JSON Lines without their `micros` key.
fn jsonl_without_micros(text: &str) -> String {
    text.lines()
        .map(|line| {
            let mut object: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(line).unwrap();
            object.remove("micros");
            serde_json::Value::Object(object).to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Two inputs, the second gzipped, with comment and blank lines between records.
fn inputs(dir: &Path) -> Vec<PathBuf> {
    let text = std::fs::read_to_string(repo_datasets().join("sudoku/generated-1k.csv")).unwrap();
    let puzzles: Vec<&str> = text.lines().skip(1).map(|l| &l[..81]).collect();
    let first = dir.join("a.txt");
    let mut lines = String::from("# puzzles\n");
    for (i, puzzle) in puzzles[..300].iter().enumerate() {
        lines.push_str(puzzle);
        lines.push('\n');
        if i % 7 == 0 {
            lines.push('\n');
        }
    }
    std::fs::write(&first, lines).unwrap();
    let second = dir.join("b.txt.gz");
    let mut gz = flate2::write::GzEncoder::new(
        std::fs::File::create(&second).unwrap(),
        flate2::Compression::default(),
    );
    for puzzle in &puzzles[300..700] {
        writeln!(gz, "{puzzle}").unwrap();
    }
    gz.finish().unwrap();
    vec![first, second]
}

fn solve_args<'a>(output: &'a Path, inputs: &'a [PathBuf], extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["sudoku", "solve", "-j2", "-o", output.to_str().unwrap()];
    args.extend_from_slice(extra);
    args.extend(inputs.iter().map(|p| p.to_str().unwrap()));
    args
}

#[test]
fn a_file_cut_anywhere_is_completed_to_the_uninterrupted_one() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = inputs(dir.path());
    // A file written without a header is resumed with `--no-header` too.
    for (format, header, compare) in [
        ("csv", "--header", without_last_field as fn(&str) -> String),
        ("jsonl", "--header", jsonl_without_micros),
        ("csv", "--no-header", without_last_field),
    ] {
        let header_args: &[&str] = match header {
            "--no-header" => &["--no-header"],
            _ => &[],
        };
        let full = dir.path().join(format!("full{header}.{format}"));
        let mut extra = vec!["--output-format", format];
        extra.extend_from_slice(header_args);
        let out = run_in(&solve_args(&full, &inputs, &extra));
        assert_eq!(out.status.code(), Some(0));
        let whole = std::fs::read(&full).unwrap();
        let cut = dir.path().join(format!("cut.{format}"));
        // Cut at the start, inside the header, inside rows, on row ends, and at the end.
        for at in [
            0,
            5,
            100,
            4_000,
            20_001,
            whole.len() / 2,
            whole.len() - 1,
            whole.len(),
        ] {
            std::fs::write(&cut, &whole[..at]).unwrap();
            let mut extra = vec!["--output-format", format, "--resume"];
            extra.extend_from_slice(header_args);
            let out = run_in(&solve_args(&cut, &inputs, &extra));
            assert_eq!(
                out.status.code(),
                Some(0),
                "{format} {header} cut at {at}: {out:?}"
            );
            let resumed = std::fs::read_to_string(&cut).unwrap();
            assert_eq!(
                compare(&resumed),
                compare(std::str::from_utf8(&whole).unwrap()),
                "{format} {header} cut at {at}"
            );
        }
    }
}

#[test]
fn a_run_killed_part_way_resumes_with_its_settings_to_the_uninterrupted_file() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(repo_datasets().join("sudoku/generated-1k.csv")).unwrap();
    let puzzles: Vec<&str> = text.lines().skip(1).map(|l| &l[..81]).collect();
    let input = dir.path().join("many.txt");
    let mut lines = String::new();
    for _ in 0..100 {
        for puzzle in &puzzles {
            lines.push_str(puzzle);
            lines.push('\n');
        }
    }
    std::fs::write(&input, lines).unwrap();
    let input = input.to_str().unwrap();
    let full = dir.path().join("full.csv");
    let out = run_in(&[
        "sudoku",
        "solve",
        "--algo",
        "dlx",
        "-o",
        full.to_str().unwrap(),
        input,
    ]);
    assert_eq!(out.status.code(), Some(0));
    let unfinished = |results: &Path| {
        let mut name = results.as_os_str().to_owned();
        name.push(".unfinished");
        PathBuf::from(name)
    };
    assert!(
        !unfinished(&full).exists(),
        "a finished run keeps no settings"
    );
    let part = dir.path().join("part.csv");
    let mut child = puzzlebench()
        .args(["sudoku", "solve", "--algo", "dlx", "-j1", "-o"])
        .arg(&part)
        .arg(input)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::fs::metadata(&part).map_or(0, |m| m.len()) < 100_000 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap(); // SIGKILL: nothing is flushed or finished.
    child.wait().unwrap();
    let killed = std::fs::read_to_string(&part).unwrap();
    let before = killed.lines().count();
    assert!(before < 100_001, "the run was killed before its end");
    assert!(
        unfinished(&part).exists(),
        "the killed run's settings are kept"
    );
    // Other settings would append rows of another kind: refused, the file left as it is.
    let resume_with = |extra: &[&str]| {
        let mut args = vec!["sudoku", "solve", "--resume", "-o", part.to_str().unwrap()];
        args.extend_from_slice(extra);
        args.push(input);
        run_in(&args)
    };
    let out = resume_with(&["--algo", "fast", "--limit", "1"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "its run had other settings: algorithm was dlx, now fast; limit was 2, now 1"
        ),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&part).unwrap(), killed);
    // The budget and the threads may change.
    let out = resume_with(&["--algo", "dlx", "--timeout", "1m", "-j2"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        !unfinished(&part).exists(),
        "the finished run's settings are removed"
    );
    assert_eq!(
        without_last_field(&std::fs::read_to_string(&part).unwrap()),
        without_last_field(&std::fs::read_to_string(&full).unwrap())
    );
    // A finished file has no settings left to check: a resume says so, and goes on.
    let out = resume_with(&["--algo", "fast", "--limit", "1"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("had no settings kept beside it (its run ended"),
        "{stderr}"
    );
    // A resume refused for other inputs does not say first that it goes on unchecked.
    let other = dir.path().join("other.txt");
    std::fs::write(&other, format!("{}\n", puzzles[5])).unwrap();
    let part_name = part.to_str().unwrap();
    let args = [
        "sudoku",
        "solve",
        "--resume",
        "-o",
        part_name,
        other.to_str().unwrap(),
    ];
    let out = run_in(&args);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("no settings kept"), "{stderr}");
}

#[test]
fn files_that_do_not_fit_are_refused_and_left_as_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = inputs(dir.path());
    let results = dir.path().join("rows.csv");
    assert_eq!(
        run_in(&solve_args(&results, &inputs, &[])).status.code(),
        Some(0)
    );
    // A torn last row, as a killed run leaves one: a refusal keeps it too.
    let mut before = std::fs::read(&results).unwrap();
    before.extend_from_slice(b"701,sol");
    std::fs::write(&results, &before).unwrap();
    let refused = |args: &[&str], why: &str| {
        let out = run_in(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(why), "{args:?}: {stderr}");
        assert_eq!(std::fs::read(&results).unwrap(), before, "{args:?}");
    };
    let path = results.to_str().unwrap();
    let games = repo_datasets().join("connect4/games-1k.txt");
    // Another command's columns.
    refused(
        &[
            "connect4",
            "validate",
            "--resume",
            "-o",
            path,
            games.to_str().unwrap(),
        ],
        "columns are",
    );
    // More rows than the inputs have records.
    let puzzles = std::fs::read_to_string(repo_datasets().join("sudoku/generated-1k.csv")).unwrap();
    let short = dir.path().join("short.txt");
    let ten: Vec<&str> = puzzles.lines().skip(1).take(10).map(|l| &l[..81]).collect();
    std::fs::write(&short, ten.join("\n") + "\n").unwrap();
    refused(
        &solve_args(&results, &[inputs[0].clone(), short], &["--resume"]),
        "has 700 rows but the inputs have only 310 records",
    );
    // Another second input: the last row is not its last record's.
    let other = dir.path().join("c.txt");
    let lines: Vec<&str> = puzzles
        .lines()
        .skip(1)
        .take(400)
        .map(|l| &l[..81])
        .collect();
    std::fs::write(&other, lines.join("\n") + "\n").unwrap();
    let changed = [inputs[0].clone(), other];
    refused(
        &solve_args(&results, &changed, &["--resume"]),
        "row 700 is for line 400 of",
    );
    // Not a results file.
    refused(
        &[
            "sudoku",
            "solve",
            "--resume",
            "-o",
            inputs[0].to_str().unwrap(),
            inputs[0].to_str().unwrap(),
        ],
        "",
    );
    // Without -o.
    let out = run_in(&["sudoku", "solve", "--resume", inputs[0].to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    // The refused runs kept no settings beside the file, which their run did not begin.
    assert!(!dir.path().join("rows.csv.unfinished").exists());
}

#[test]
fn a_file_made_from_other_records_at_the_same_places_is_refused() {
    // Two CSV inputs with the same number of records at the same lines, told apart by the
    // `id` column the rows carry through.
    let dir = tempfile::tempdir().unwrap();
    let puzzles = std::fs::read_to_string(repo_datasets().join("sudoku/generated-1k.csv")).unwrap();
    let puzzles: Vec<&str> = puzzles.lines().skip(1).map(|l| &l[..81]).collect();
    let write = |name: &str, first_id: usize| {
        let path = dir.path().join(name);
        let mut text = String::from("puzzle,id\n");
        for (i, puzzle) in puzzles[..50].iter().enumerate() {
            text.push_str(&format!("{puzzle},p{}\n", first_id + i));
        }
        std::fs::write(&path, text).unwrap();
        path
    };
    let (ours, theirs) = (write("ours.csv", 1), write("theirs.csv", 1001));
    let results = dir.path().join("rows.csv");
    let path = results.to_str().unwrap();
    let solve = |input: &Path, resume: bool| {
        let mut args = vec!["sudoku", "solve", "-o", path];
        if resume {
            args.push("--resume");
        }
        args.push(input.to_str().unwrap());
        run_in(&args)
    };
    assert_ne!(solve(&ours, false).status.code(), Some(2));
    let whole = std::fs::read_to_string(&results).unwrap();
    let cut: String = whole.lines().take(31).map(|l| format!("{l}\n")).collect();
    std::fs::write(&results, &cut).unwrap();
    let out = solve(&theirs, true);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            r#"row 30 has id "p30", but record 30 of the inputs (line 31) has id "p1030""#
        ),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(&results).unwrap(),
        cut,
        "left as it was"
    );
    // The right input completes it.
    assert_ne!(solve(&ours, true).status.code(), Some(2));
    assert_eq!(
        without_last_field(&std::fs::read_to_string(&results).unwrap()),
        without_last_field(&whole)
    );
}

#[test]
fn a_file_cut_inside_a_carried_field_of_several_lines_is_completed() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(repo_datasets().join("sudoku/generated-1k.csv")).unwrap();
    let mut csv = String::from("puzzle,id\n");
    for (i, line) in text.lines().skip(1).take(6).enumerate() {
        let puzzle = &line[..81];
        csv.push_str(&format!(
            "{puzzle},\"id {i}\nsecond line, with comma \"\"q\"\"\r\nthird\"\n"
        ));
    }
    let input = dir.path().join("q.csv");
    std::fs::write(&input, csv).unwrap();
    let full = dir.path().join("full.csv");
    let inputs = [input];
    assert_eq!(
        run_in(&solve_args(&full, &inputs, &[])).status.code(),
        Some(0)
    );
    let whole = std::fs::read(&full).unwrap();
    // The rows of the uninterrupted file, `micros` aside (each row is its own CSV record).
    let rows = |bytes: &[u8]| -> Vec<Vec<String>> {
        let mut reader = csv::Reader::from_reader(bytes);
        reader
            .records()
            .map(|row| {
                let row = row.unwrap();
                row.iter().take(row.len() - 1).map(String::from).collect()
            })
            .collect()
    };
    let cut = dir.path().join("cut.csv");
    // Every byte, so that many cuts fall inside the quoted `id` fields.
    for at in 0..=whole.len() {
        std::fs::write(&cut, &whole[..at]).unwrap();
        let out = run_in(&solve_args(&cut, &inputs, &["--resume"]));
        assert_eq!(out.status.code(), Some(0), "cut at {at}: {out:?}");
        let resumed = std::fs::read(&cut).unwrap();
        assert_eq!(rows(&resumed), rows(&whole), "cut at {at}");
    }
}

#[test]
fn a_file_where_the_settings_go_that_is_no_settings_is_never_written_over() {
    // A Connect Four book named FILE.unfinished, given as --book of a run into FILE.
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("rows.csv.unfinished");
    std::fs::copy(repo_datasets().join("connect4/7x6-depth8-weak.book"), &book).unwrap();
    let before = std::fs::read(&book).unwrap();
    let positions = dir.path().join("positions.txt");
    std::fs::write(&positions, "4\n44\n").unwrap();
    let out = puzzlebench()
        .args(["connect4", "solve", "--weak", "--book"])
        .arg(&book)
        .arg("-o")
        .arg(dir.path().join("rows.csv"))
        .arg(&positions)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("is there and is not the settings of an unfinished run"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(&book).unwrap(),
        before,
        "the book is untouched"
    );
    assert!(
        !dir.path().join("rows.csv").exists(),
        "refused before the results file"
    );
}

/// Waits until `path` exists (a run has opened its results file and kept its settings).
fn wait_for(path: &Path) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !path.exists() {
        assert!(Instant::now() < deadline, "{} never came", path.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_second_run_into_a_results_file_being_written_is_refused_and_takes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("rows.csv");
    let link = dir.path().join("link.csv");
    std::os::unix::fs::symlink("rows.csv", &link).unwrap();
    let puzzle =
        "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......";
    // The first run reads standard input, held open until the other runs are refused.
    let mut first = puzzlebench()
        .args(["sudoku", "solve", "-o"])
        .arg(&results)
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = first.stdin.take().unwrap();
    writeln!(stdin, "{puzzle}").unwrap();
    wait_for(&dir.path().join("rows.csv.unfinished"));
    let input = common::write(dir.path(), "in.txt", format!("{puzzle}\n"));
    for (name, extra) in [
        (&results, &[][..]),
        (&link, &[][..]),
        (&results, &["--resume"][..]),
        // Other settings are the run's own business; that the file is busy comes first.
        (&results, &["--resume", "--algo", "dlx"][..]),
    ] {
        let second = run_in(
            &[
                &["sudoku", "solve", "-o", name.to_str().unwrap()][..],
                extra,
                &[input.to_str().unwrap()],
            ]
            .concat(),
        );
        assert_eq!(second.status.code(), Some(2), "{extra:?}");
        let error = common::stderr(&second);
        assert!(
            error.contains("is being written by another run"),
            "{extra:?}: {error}"
        );
    }
    assert!(
        dir.path().join("rows.csv.unfinished").exists(),
        "the first run's settings are still kept"
    );
    drop(stdin);
    let first = first.wait_with_output().unwrap();
    assert!(first.status.success(), "{}", common::stderr(&first));
    let rows = std::fs::read_to_string(&results).unwrap();
    let (header, rows) = common::parse_csv(&rows);
    assert_eq!(rows.len(), 1, "only the first run's row");
    assert_eq!(common::cell(&header, &rows[0], "status"), "solved");
    assert!(!dir.path().join("rows.csv.unfinished").exists());
    // Once the first run ended, the file is free.
    let again = run_in(&[
        "sudoku",
        "solve",
        "-o",
        results.to_str().unwrap(),
        input.to_str().unwrap(),
    ]);
    assert!(again.status.success(), "{}", common::stderr(&again));
}

/// Runs `command` on `inputs` whole and then cut to two fifths of its rows and resumed, in
/// CSV and JSON Lines, and checks that the resumed run's report counts what the whole
/// run's does (records, failures, statuses, tallies) and exits with the same code.
fn resumed_counts_as_one_run(dir: &Path, command: &[&str], inputs: &[PathBuf]) {
    for (format, header) in [("csv", 1), ("jsonl", 0)] {
        let name = format!("{}-{format}", command.join("-"));
        let rows = dir.join(format!("{name}.rows"));
        let report = |which: &str| dir.join(format!("{name}-{which}"));
        let run = |which: &str, resume: bool| {
            let output = puzzlebench()
                .args(command)
                .args(inputs)
                .args(["-q", "--output-format", format, "-o"])
                .arg(&rows)
                .arg("--report")
                .arg(report(which))
                .args(resume.then_some("--resume"))
                .output()
                .unwrap();
            assert!(output.status.code() != Some(2), "{name}: {output:?}");
            output.status.code()
        };
        let whole_code = run("whole", false);
        let whole = common::summary_json(&report("whole"));
        let text = std::fs::read_to_string(&rows).unwrap();
        let kept = whole["records"].as_u64().unwrap() as usize * 2 / 5;
        let cut: String = (text.lines().take(kept + header))
            .map(|line| format!("{line}\n"))
            .collect();
        std::fs::write(&rows, cut).unwrap();
        let resumed_code = run("resumed", true);
        let resumed = common::summary_json(&report("resumed"));
        assert_eq!(
            common::summary_counts(&resumed),
            common::summary_counts(&whole),
            "{name}"
        );
        assert_eq!(resumed["rows_from_file"], kept as u64, "{name}");
        assert_eq!(resumed_code, whole_code, "{name}: the exit code");
        let slowest = resumed["slowest"].as_array().unwrap();
        assert_eq!(slowest.len(), 20, "{name}");
    }
}

#[test]
fn a_resumed_run_counts_every_record_of_its_file_as_one_run_does() {
    let dir = tempfile::tempdir().unwrap();
    let repo = repo_datasets();
    resumed_counts_as_one_run(
        dir.path(),
        &["sudoku", "solve"],
        &[
            repo.join("sudoku/generated-1k.csv"),
            repo.join("sudoku/mixed.txt"),
        ],
    );
    resumed_counts_as_one_run(
        dir.path(),
        &["connect4", "validate"],
        &[
            repo.join("connect4/games-1k.txt"),
            repo.join("connect4/colors-500.txt"),
        ],
    );
    resumed_counts_as_one_run(
        dir.path(),
        &["battleship", "validate"],
        &[repo.join("battleship/touching-1k.txt")],
    );
}

#[test]
#[cfg_attr(
    corpora_missing,
    ignore = "needs the public corpora (PUZZLEBENCH_CORPORA or ../shared/datasets)"
)]
fn a_resumed_connect4_solve_counts_every_record_of_its_file_as_one_run_does() {
    let Some(corpora) = common::corpora("a_resumed_connect4_solve_counts_every_record") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(corpora.join("connect4/pons/Test_L3_R1.txt")).unwrap();
    let first: String = text.lines().take(300).map(|l| format!("{l}\n")).collect();
    let positions = common::write(dir.path(), "positions.txt", first);
    resumed_counts_as_one_run(dir.path(), &["connect4", "solve"], &[positions]);
}

/// JSON Lines write an empty cell as `null` (a lines input's carried cells beside a CSV's,
/// an error row's values): read back as empty, so a file whose last row has one resumes.
/// It was refused: `row 1 has id "null", but record 1 … has id ""`.
#[test]
fn json_lines_whose_last_row_has_empty_cells_resume() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(repo_datasets().join("sudoku/generated-1k.csv")).unwrap();
    let puzzles: Vec<&str> = text.lines().skip(1).map(|l| &l[..81]).collect();
    let lines = dir.path().join("a.txt");
    std::fs::write(
        &lines,
        format!("{}\nnot a puzzle\n{}\n", puzzles[0], puzzles[1]),
    )
    .unwrap();
    let csv = dir.path().join("b.csv");
    std::fs::write(
        &csv,
        format!("puzzle,id\n{},k1\n{},k2\n", puzzles[2], puzzles[3]),
    )
    .unwrap();
    let inputs = [lines, csv];
    let full = dir.path().join("full.jsonl");
    let extra = ["--output-format", "jsonl"];
    assert_eq!(
        run_in(&solve_args(&full, &inputs, &extra)).status.code(),
        Some(1)
    );
    let whole = std::fs::read_to_string(&full).unwrap();
    let rows: Vec<&str> = whole.lines().collect();
    assert_eq!(rows.len(), 5);
    assert!(rows[1].contains("\"id\":null"), "{}", rows[1]);
    let cut = dir.path().join("cut.jsonl");
    for kept in 1..rows.len() {
        std::fs::write(&cut, rows[..kept].join("\n") + "\n").unwrap();
        let extra = ["--output-format", "jsonl", "--resume"];
        let out = run_in(&solve_args(&cut, &inputs, &extra));
        assert_eq!(out.status.code(), Some(1), "{kept} rows kept: {out:?}");
        let resumed = std::fs::read_to_string(&cut).unwrap();
        assert_eq!(jsonl_without_micros(&resumed), jsonl_without_micros(&whole));
    }
}

#[test]
fn options_that_change_rows_are_kept_and_checked_on_resume() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read(repo_datasets().join("sudoku/generated-1k.csv")).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&text).unwrap();
    let gz = gz.finish().unwrap();
    // Cut short: the run writes the rows before the damage and stops, keeping its settings.
    let input = dir.path().join("cut.csv.gz");
    std::fs::write(&input, &gz[..gz.len() / 2]).unwrap();
    let input = input.to_str().unwrap();
    let part = dir.path().join("part.csv");
    let part = part.to_str().unwrap();
    let first = [
        "sudoku",
        "solve",
        "-o",
        part,
        "--expected-column",
        "solution",
    ];
    let out = run_in(&[&first[..], &["--size", "9", input]].concat());
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let kept = std::fs::read_to_string(part).unwrap();
    assert!(kept.lines().count() > 1, "{kept}");
    let out = run_in(&["sudoku", "solve", "--resume", "-o", part, input]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("expected_column was solution, now none; size was 9, now none"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(part).unwrap(), kept);
}
