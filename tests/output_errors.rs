//! Outputs that cannot be written — a full disk, a full or closed standard error, a closed
//! standard output — and out-of-range thread counts: one line on standard error where it
//! can go, exit code 2, never a panic or a silent exit 0.

mod common;

use std::path::Path;
use std::process::Output;

use common::repo_datasets;

/// Runs `puzzlebench ARGS REDIRECTIONS` through the shell, in the repository's root.
fn shell(args: &str, redirections: &str) -> Output {
    common::shell_in(Path::new(env!("CARGO_MANIFEST_DIR")), args, redirections)
}

fn sudoku_file() -> String {
    repo_datasets()
        .join("sudoku/generated-1k.csv")
        .display()
        .to_string()
}

#[test]
fn a_full_or_closed_standard_error_is_exit_code_2_not_a_panic() {
    let games = repo_datasets().join("connect4/games-1k.txt");
    for args in [
        format!("sudoku solve --progress {}", sudoku_file()),
        format!("connect4 validate --progress {}", games.display()),
    ] {
        let out = shell(&args, "> /dev/null 2> /dev/full");
        assert_eq!(out.status.code(), Some(2), "{args}");
        // A closed one too: the runtime would put `/dev/null` in its place.
        let out = shell(&args, "> /dev/null 2>&-");
        assert_eq!(out.status.code(), Some(2), "{args} 2>&-");
    }
}

#[test]
fn a_closed_standard_output_is_refused() {
    for args in [
        format!("sudoku solve {}", sudoku_file()),
        "tiling count --board 6x10".to_string(),
    ] {
        let out = shell(&args, ">&-");
        assert_eq!(out.status.code(), Some(2), "{args}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("standard output is closed"), "{stderr}");
    }
    // With the rows going to a file, standard output is not needed.
    let dir = tempfile::tempdir().unwrap();
    let rows = dir.path().join("rows.csv");
    let out = shell(
        &format!("sudoku solve -o {} {}", rows.display(), sudoku_file()),
        ">&-",
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(rows).unwrap().lines().count(), 1001);
}

#[test]
fn a_full_standard_output_is_one_line_and_exit_code_2() {
    for args in [
        format!("sudoku solve {}", sudoku_file()),
        "tiling count --board 10x6".to_string(),
        "checkerboard count datasets/tiling/4x4_stones.txt --board 4x4".to_string(),
    ] {
        let out = shell(&args, "> /dev/full");
        assert_eq!(out.status.code(), Some(2), "{args}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{args}: {stderr}");
        assert!(stderr.contains("No space left on device"), "{stderr}");
    }
}

#[test]
fn a_closed_pipe_stays_quiet() {
    let out = shell(&format!("sudoku solve {}", sudoku_file()), "| head -1");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("line,status"));
}

/// A reader gone before the run ended (`| head -1`) leaves no empty report folder to be
/// taken for a report: the folder the run made is removed, and one line says so.
#[test]
fn a_closed_pipe_leaves_no_empty_report_folder() {
    let dir = tempfile::tempdir().unwrap();
    let puzzle =
        "004300209005009001070060043006002087190007400050083000600000105003508690042910300\n";
    common::write(dir.path(), "many.txt", puzzle.repeat(200_000));
    let out = common::shell_in(
        dir.path(),
        "sudoku solve many.txt --report rep",
        "| head -1",
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("line,status"));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "puzzlebench: the reader of the results went away before the run ended: no report \
         written into rep\n"
    );
    assert!(!dir.path().join("rep").exists());
}

#[test]
fn a_refused_run_leaves_no_empty_report_folder_and_keeps_a_folder_it_did_not_make() {
    let dir = tempfile::tempdir().unwrap();
    common::write(dir.path(), "in.txt", ".".repeat(81) + "\n");
    std::fs::create_dir(dir.path().join("old")).unwrap();
    for folder in ["new", "old"] {
        // --resume of a results file that does not exist is refused before the run.
        let out = common::shell_in(
            dir.path(),
            &format!("sudoku solve in.txt --resume -o missing.csv --report {folder}"),
            "",
        );
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("cannot resume missing.csv"), "{stderr}");
    }
    assert!(!dir.path().join("new").exists(), "the folder the run made");
    assert!(dir.path().join("old").is_dir(), "the folder that was there");
}

#[test]
fn thread_counts_above_the_cap_are_refused_at_once() {
    for args in [
        format!("sudoku solve -j 30000 {}", sudoku_file()),
        "tiling count --board 6x10 --threads 5000".to_string(),
        "sudoku generate --count 1 -j 2000".to_string(),
    ] {
        let out = shell(&args, "");
        assert_eq!(out.status.code(), Some(2), "{args}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("from 0 (one per core) to 1024"), "{stderr}");
    }
}

#[test]
fn a_report_folder_that_is_a_file_is_refused_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-folder");
    std::fs::write(&file, "x").unwrap();
    let rows = dir.path().join("rows.csv");
    let args = format!(
        "sudoku solve {} -o {} --report {}",
        sudoku_file(),
        rows.display(),
        file.display()
    );
    let out = shell(&args, "");
    assert_eq!(out.status.code(), Some(2));
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(message.contains("it is a file, not a folder"), "{message}");
    // Refused before anything ran: no results file was started.
    assert!(!rows.exists());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
}

#[test]
fn generators_say_what_they_cannot_write_and_where() {
    for (command, what) in [
        ("sudoku generate --count 3", "puzzles"),
        ("connect4 generate --count 3", "games"),
        ("battleship generate --count 3", "fields"),
    ] {
        for (output, redirection, place) in [
            ("-o /dev/full", "", "/dev/full"),
            ("", "> /dev/full", "standard output"),
        ] {
            let args = format!("{command} {output}");
            let out = shell(&args, redirection);
            assert_eq!(out.status.code(), Some(2), "{args} {redirection}");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(
                stderr.trim_end(),
                format!(
                    "puzzlebench: cannot write the {what} to {place}: No space left on device \
                     (os error 28)"
                ),
                "{args} {redirection}"
            );
        }
    }
}

#[test]
fn a_book_is_not_built_into_a_device() {
    for device in ["/dev/full", "/dev/null"] {
        let args = format!("connect4 book --width 4 --height 4 --depth 6 -o {device}");
        let out = shell(&args, "");
        assert_eq!(out.status.code(), Some(2), "{args}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!(
                "cannot write the book to {device}: it is not a regular file"
            )),
            "{stderr}"
        );
    }
}

#[test]
fn a_full_results_file_is_named_and_an_unwritable_report_folder_refused_before_the_run() {
    let args = format!("sudoku solve {} -o /dev/full", sudoku_file());
    let out = shell(&args, "");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.trim_end(),
        "puzzlebench: cannot write the results to /dev/full: No space left on device (os error 28)"
    );
    // A folder that exists but takes no file: refused before any record is read.
    let dir = tempfile::tempdir().unwrap();
    let rows = dir.path().join("rows.csv");
    let args = format!(
        "sudoku solve {} -o {} --report /proc/self",
        sudoku_file(),
        rows.display()
    );
    let out = shell(&args, "");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cannot write the report into /proc/self"),
        "{stderr}"
    );
    assert!(!rows.exists(), "the run did not start");
}

#[test]
fn bench_keeps_its_exit_code_when_the_reader_of_its_table_went_away() {
    // An external program that echoes the puzzles disagrees with every solution: exit code
    // 1, even when nobody reads the table (`bench … | true` in a CI step).
    let dir = tempfile::tempdir().unwrap();
    let puzzles = dir.path().join("p.txt");
    let text =
        std::fs::read_to_string(common::repo_datasets().join("sudoku/generated-1k.csv")).unwrap();
    let lines: String = text
        .lines()
        .skip(1)
        .take(5)
        .map(|l| format!("{}\n", &l[..81]))
        .collect();
    std::fs::write(&puzzles, lines).unwrap();
    let suite = dir.path().join("s.toml");
    std::fs::write(
        &suite,
        format!(
            "name = \"s\"\nmin_time = 0.0\nthreads = [1]\n[[set]]\nkind = \"sudoku\"\n\
             datasets = [\"{}\"]\nalgorithms = [\"dlx\"]\n",
            puzzles.display()
        ),
    )
    .unwrap();
    let mut child = common::puzzlebench()
        .args(["bench", "-q", "--external", "echo=cat", "--suite"])
        .arg(&suite)
        .arg("--reports")
        .arg(dir.path().join("reports"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    assert_eq!(child.wait().unwrap().code(), Some(1));
    // A closed standard output is refused before anything is measured.
    let out = common::shell_in(
        dir.path(),
        &format!("bench -q --suite {} --reports r2", suite.display()),
        ">&-",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("standard output is closed"));
    assert!(!dir.path().join("r2").exists());
}
