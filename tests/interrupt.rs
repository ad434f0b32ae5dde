//! SIGINT and SIGTERM in the middle of a run: the finished records are written in order
//! (a long search is ended, and its record left for a resumed run), the summary and report
//! say the run was interrupted, and the exit code is 130 (SIGINT) or 143 (SIGTERM); a
//! second signal exits at once.

mod common;

use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use common::{puzzlebench, repo_datasets};

/// Many easy puzzles: long enough a run to interrupt part way.
fn long_input(dir: &Path) -> std::path::PathBuf {
    let text = std::fs::read_to_string(repo_datasets().join("sudoku/generated-1k.csv")).unwrap();
    let puzzles: Vec<&str> = text.lines().skip(1).map(|l| &l[..81]).collect();
    let mut lines = String::new();
    for _ in 0..400 {
        for puzzle in &puzzles {
            lines.push_str(puzzle);
            lines.push('\n');
        }
    }
    let path = dir.join("long.txt");
    std::fs::write(&path, lines).unwrap();
    path
}

fn signal(child: &Child, name: &str) {
    let status = std::process::Command::new("kill")
        .args([&format!("-{name}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Waits until `path` has at least `rows` lines, or 120 s (a loaded machine is slow).
fn wait_for_rows(path: &Path, rows: usize) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while Instant::now() < deadline {
        let lines = std::fs::read(path).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count());
        if lines >= rows {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("{} never reached {rows} rows", path.display());
}

fn interrupted_run(signal_name: &str, expected_code: i32) {
    let dir = tempfile::tempdir().unwrap();
    let input = long_input(dir.path());
    let output = dir.path().join("rows.csv");
    let report = dir.path().join("report");
    let child = puzzlebench()
        .args(["sudoku", "solve", "--algo", "backtrack", "-j2", "-o"])
        .arg(&output)
        .arg("--report")
        .arg(&report)
        .arg(&input)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for_rows(&output, 300);
    signal(&child, signal_name);
    let status = child.wait_with_output().unwrap().status;
    assert_eq!(status.code(), Some(expected_code));
    let text = std::fs::read_to_string(&output).unwrap();
    assert!(text.ends_with('\n'), "no torn last row");
    let rows: Vec<&str> = text.lines().skip(1).collect();
    assert!(
        rows.len() >= 299 && rows.len() < 400_000,
        "{} rows",
        rows.len()
    );
    for (i, row) in rows.iter().enumerate() {
        let line = (i + 1).to_string();
        assert_eq!(row.split(',').next(), Some(line.as_str()), "rows in order");
        assert!(row.contains(",solved,"), "row {line}: {row}");
    }
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report.join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["interrupted"], true);
    assert_eq!(summary["records"], rows.len() as u64);
}

#[test]
fn sigint_finishes_the_records_read_and_exits_130() {
    interrupted_run("INT", 130);
}

#[test]
fn sigterm_finishes_the_records_read_and_exits_143() {
    interrupted_run("TERM", 143);
}

#[test]
fn a_signal_ends_a_long_search_whose_record_then_has_no_row() {
    // Two easy puzzles, then one that keeps a worker busy for far longer than the test:
    // the signal ends its search, the rows before it are written, and it has none (a
    // resumed run solves it).
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("slow.txt");
    let text = std::fs::read_to_string(repo_datasets().join("sudoku/generated-1k.csv")).unwrap();
    let easy: Vec<&str> = text.lines().skip(1).take(2).map(|l| &l[..81]).collect();
    std::fs::write(
        &input,
        format!("{}\n{}\n", easy.join("\n"), ".".repeat(625)),
    )
    .unwrap();
    let output = dir.path().join("rows.csv");
    let report = dir.path().join("report");
    for threads in ["1", "2"] {
        let child = puzzlebench()
            .args([
                "sudoku",
                "solve",
                "--algo",
                "backtrack",
                "-j",
                threads,
                "-o",
            ])
            .arg(&output)
            .arg("--report")
            .arg(&report)
            .arg(&input)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        wait_for_rows(&output, 3);
        std::thread::sleep(Duration::from_millis(200));
        signal(&child, "TERM");
        let started = Instant::now();
        let status = child.wait_with_output().unwrap().status;
        assert!(started.elapsed() < Duration::from_secs(5), "-j{threads}");
        assert_eq!(status.code(), Some(143), "-j{threads}");
        let rows = std::fs::read_to_string(&output).unwrap();
        let lines: Vec<&str> = rows.lines().map(|r| r.split(',').next().unwrap()).collect();
        assert_eq!(lines, ["line", "1", "2"], "-j{threads}");
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(report.join("summary.json")).unwrap())
                .unwrap();
        assert_eq!(summary["interrupted"], true);
        assert_eq!(summary["records"], 2);
    }
}

#[test]
fn a_second_sigint_exits_at_once() {
    // Rows written to a pipe nobody reads: the run blocks on its output, which the first
    // signal waits for, and the second does not.
    let dir = tempfile::tempdir().unwrap();
    let input = long_input(dir.path());
    let mut child = puzzlebench()
        .args(["sudoku", "solve", "--algo", "fast"])
        .arg(&input)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    signal(&child, "INT");
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the first signal waits"
    );
    signal(&child, "INT");
    let started = Instant::now();
    let status = child.wait().unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(status.code(), Some(130));
    drop(child.stdout.take());
}

#[test]
fn an_uninterrupted_report_does_not_mention_interruption() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report");
    let out = puzzlebench()
        .args(["sudoku", "solve", "--report"])
        .arg(&report)
        .arg(repo_datasets().join("sudoku/generated-1k.csv"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let json = std::fs::read_to_string(report.join("summary.json")).unwrap();
    assert!(!json.contains("interrupted"), "{json}");
}

/// A line that never ends, from a pipe (`yes x | tr -d '\n' | puzzlebench …`): its error
/// row and every row before it are written while its rest is still being dropped, and the
/// first SIGINT stops the reading there, with the interrupted run's exit code and report.
#[test]
fn an_endless_line_gets_its_error_row_and_sigint_stops_it() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("rows.csv");
    let report = dir.path().join("report");
    let mut child = puzzlebench()
        .args(["sudoku", "solve", "--max-line-bytes", "1000", "-o"])
        .arg(&output)
        .arg("--report")
        .arg(&report)
        .arg("-")
        .stdin(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        let puzzle = &std::fs::read_to_string(repo_datasets().join("sudoku/mixed.txt")).unwrap();
        let first = puzzle
            .lines()
            .find(|l| !l.starts_with('#') && !l.is_empty())
            .unwrap()
            .to_string();
        stdin
            .write_all(format!("{first}\n{first}\n").as_bytes())
            .unwrap();
        // Until the run goes away: a broken pipe ends the feeding.
        let endless = [b'x'; 1 << 16];
        while stdin.write_all(&endless).is_ok() {}
    });
    wait_for_rows(&output, 4);
    let text = std::fs::read_to_string(&output).unwrap();
    let rows: Vec<&str> = text.lines().collect();
    assert!(
        rows[1].starts_with("1,") && rows[2].starts_with("2,"),
        "{rows:?}"
    );
    assert!(
        rows[3].starts_with("3,error,") && rows[3].contains("line 3 is longer than 1000 bytes"),
        "{rows:?}"
    );
    signal(&child, "INT");
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "the first SIGINT did not stop the run"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(130));
    feeder.join().unwrap();
    assert_eq!(
        std::fs::read_to_string(&output).unwrap(),
        text,
        "rows after the stop"
    );
    let summary = std::fs::read_to_string(report.join("summary.json")).unwrap();
    assert!(summary.contains("\"interrupted\": true"), "{summary}");
}

/// Standard input held open by a writer that stops writing, as `tail -f` or an
/// interactive session would: the whole records read get their rows at once, and the
/// first SIGINT ends the run (it used to wait for more input, and the rows with it).
#[test]
fn an_idle_pipe_gets_its_rows_and_the_first_sigint_ends_the_run() {
    use std::io::Write;
    let text = std::fs::read_to_string(repo_datasets().join("sudoku/generated-1k.csv")).unwrap();
    let puzzles: Vec<&str> = text.lines().skip(1).take(3).map(|l| &l[..81]).collect();
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("rows.csv");
    let mut child = puzzlebench()
        .args(["sudoku", "solve", "-j1", "-o"])
        .arg(&output)
        .stdin(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for puzzle in &puzzles {
        writeln!(stdin, "{puzzle}").unwrap();
    }
    stdin.flush().unwrap();
    // The header and a row for each puzzle, while the pipe stays open.
    wait_for_rows(&output, 4);
    signal(&child, "INT");
    let started = Instant::now();
    let deadline = started + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the first SIGINT was not heard");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(130));
    let rows = std::fs::read_to_string(&output).unwrap();
    let rows: Vec<&str> = rows.lines().skip(1).collect();
    assert_eq!(rows.len(), 3, "{rows:?}");
    for (i, row) in rows.iter().enumerate() {
        assert!(row.starts_with(&format!("{},solved,", i + 1)), "{row}");
    }
    drop(stdin);
}

#[test]
fn sigint_ends_sudoku_show_after_its_last_whole_grid() {
    let dir = tempfile::tempdir().unwrap();
    let input = long_input(dir.path());
    let output = dir.path().join("grids.txt");
    let child = puzzlebench()
        .args(["sudoku", "show", "--solve"])
        .arg(&input)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&output).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Each grid takes 13 lines: its title, 11 lines of grid, a blank one.
    wait_for_rows(&output, 13 * 50);
    signal(&child, "INT");
    let status = child.wait_with_output().unwrap().status;
    assert_eq!(status.code(), Some(130));
    let text = std::fs::read_to_string(&output).unwrap();
    let blocks: Vec<&str> = text.split_terminator("\n\n").collect();
    assert!(
        blocks.len() >= 50 && blocks.len() < 400_000,
        "{} grids",
        blocks.len()
    );
    assert!(text.ends_with("\n\n"), "the last grid is whole");
    assert!(
        blocks
            .iter()
            .all(|block| block.lines().count() == blocks[0].lines().count()),
        "every grid has the same lines"
    );
}

/// `sudoku generate` writes its puzzles as they are made: 16×16 puzzles (about 0.1 s
/// each) reach the file within seconds, and SIGTERM ends it after the block being made
/// is written, every line whole.
/// Blocks of 4,096 held the first puzzles back for minutes, and a signal lost them all.
#[test]
fn sigterm_keeps_the_puzzles_sudoku_generate_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("puzzles.txt");
    let child = puzzlebench()
        .args([
            "sudoku", "generate", "--size", "16", "--count", "100000", "-o",
        ])
        .arg(&output)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for_rows(&output, 8);
    signal(&child, "TERM");
    let status = child.wait_with_output().unwrap().status;
    assert_eq!(status.code(), Some(143));
    let text = std::fs::read_to_string(&output).unwrap();
    assert!(text.ends_with('\n'), "the last line is whole");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() >= 8 && lines.len() < 100_000, "{}", lines.len());
    assert!(lines.iter().all(|line| line.len() == 256), "16×16 lines");
}

/// A 25×25 puzzle takes minutes to make (hundreds of uniqueness searches): Ctrl-C stops
/// the searches themselves, so `sudoku generate` ends within moments with code 130 and
/// whole lines only. It used to be heard only once the block being made was written.
#[test]
fn sigint_stops_a_large_sudoku_generation_within_moments() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("puzzles.txt");
    let mut command = puzzlebench();
    command
        .args([
            "sudoku", "generate", "--size", "25", "--count", "2", "-j1", "-o",
        ])
        .arg(&output);
    let status = interrupted_after(command, Duration::from_millis(700));
    assert_eq!(status.code(), Some(130));
    let text = std::fs::read_to_string(&output).unwrap();
    assert!(
        text.lines().all(|line| line.len() == 625),
        "whole 25×25 lines"
    );
}

/// A difficulty out of reach (a 36×36 grid of 1,000 clues needs no guess) is sought
/// over many attempts whose searches never guess, and so never count a node: Ctrl-C is
/// still heard between two uniqueness searches.
#[test]
fn sigint_stops_a_generation_whose_searches_never_guess() {
    let mut command = puzzlebench();
    command.args([
        "sudoku",
        "generate",
        "--size",
        "36",
        "--difficulty",
        "hard",
        "--min-clues",
        "1000",
        "--count",
        "1",
        "-j1",
    ]);
    let status = interrupted_after(command, Duration::from_millis(1500));
    assert_eq!(status.code(), Some(130));
}

/// Spawns `command` with its standard streams closed, lets it work for `after`, sends it
/// SIGINT, and returns its exit status once it has ended, checking that it ended within
/// moments of the signal (a loaded machine may take a moment to schedule the exit).
fn interrupted_after(mut command: Command, after: Duration) -> ExitStatus {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(after);
    let signalled = Instant::now();
    signal(&child, "INT");
    let status = wait_ended(&mut child);
    let waited = signalled.elapsed();
    assert!(
        waited < Duration::from_secs(10),
        "ended {waited:?} after the signal"
    );
    status
}

/// Waits for `child` to end, for at most a minute (a signal it does not hear would
/// otherwise hang the test).
fn wait_ended(child: &mut Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    panic!("the run did not end within a minute of the signal");
}

/// The first 30 puzzles of the repository's 1k file, a line each.
fn thirty_puzzles(dir: &Path) -> std::path::PathBuf {
    let text = std::fs::read_to_string(repo_datasets().join("sudoku/generated-1k.csv")).unwrap();
    let lines: String =
        (text.lines().skip(1).take(30)).fold(String::new(), |all, l| all + &l[..81] + "\n");
    let path = dir.join("thirty.txt");
    std::fs::write(&path, lines).unwrap();
    path
}

#[test]
fn an_interrupted_bench_reports_the_measurements_done_and_stops_its_external_program() {
    // `dlx` is measured first, then an external program that never ends: SIGTERM while it
    // runs kills it (it is in a process group of its own, which a terminal's Ctrl-C does
    // not reach), and the report holds the one finished measurement.
    bench_interrupted(|child| signal(child, "TERM"), 143);
}

#[test]
fn a_signal_sent_to_the_process_and_then_its_group_is_one_request() {
    // What `timeout -s INT` does: the signal to the process, then at once to its group.
    // The two are one request, not a second signal's exit at once, which would lose the
    // report and leave the external program running.
    bench_interrupted(
        |child| {
            let pid = child.id() as libc::pid_t;
            // SAFETY: signals to the test's own child and its group.
            unsafe {
                libc::kill(pid, libc::SIGINT);
                libc::kill(-pid, libc::SIGINT);
            }
        },
        130,
    );
}

/// Runs `bench` over `dlx` and an external program that never ends, interrupts it with
/// `interrupt` once the program runs, and checks the report and the exit code.
fn bench_interrupted(interrupt: impl Fn(&Child), code: i32) {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let puzzles = thirty_puzzles(dir.path());
    let suite = dir.path().join("s.toml");
    std::fs::write(
        &suite,
        format!(
            "name = \"s\"\nmin_time = 0.0\nwarmup = 0\nthreads = [1]\n[[set]]\nkind = \
             \"sudoku\"\ndatasets = [\"{}\"]\nalgorithms = [\"dlx\"]\n",
            puzzles.display()
        ),
    )
    .unwrap();
    let pid_file = dir.path().join("sleeper.pid");
    let reports = dir.path().join("reports");
    let mut child = puzzlebench()
        .args(["bench", "--suite"])
        .arg(&suite)
        .arg("--reports")
        .arg(&reports)
        .arg("--external")
        .arg(format!(
            "sleeper=echo $$ > {}; exec sleep 600",
            pid_file.display()
        ))
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    while std::fs::read_to_string(&pid_file).map_or(true, |t| !t.ends_with('\n')) {
        assert!(
            Instant::now() < deadline,
            "the external program never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    interrupt(&child);
    let status = wait_ended(&mut child);
    let mut stdout = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut stdout).unwrap();
    assert_eq!(status.code(), Some(code), "{stdout}");
    assert!(
        stdout.contains("interrupted: 1 of 2 measurements"),
        "{stdout}"
    );
    let sleeper = std::fs::read_to_string(&pid_file).unwrap();
    let alive = std::process::Command::new("kill")
        .args(["-0", sleeper.trim()])
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(!alive.success(), "the external program was left running");
    let report = std::fs::read_dir(&reports)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report.join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["interrupted"]["planned"], 2);
    let runs = summary["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["algorithm"], "dlx");
    assert_eq!(runs[0]["records"], 30);
    let md = std::fs::read_to_string(report.join("summary.md")).unwrap();
    assert!(md.contains("Interrupted: 1 of 2 measurements done"), "{md}");
    // The dashboards' files say it beside each point.
    for file in [
        "github-benchmark-throughput.json",
        "github-benchmark-latency.json",
    ] {
        let entries: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(report.join(file)).unwrap()).unwrap();
        let entries = entries.as_array().unwrap();
        assert_eq!(entries.len(), 1, "{file}");
        let extra = entries[0]["extra"].as_str().unwrap();
        assert!(
            extra.contains("Interrupted: 1 of 2 measurements done"),
            "{file}: {extra}"
        );
    }
}

#[test]
fn a_bench_interrupted_before_any_measurement_writes_no_report() {
    let dir = tempfile::tempdir().unwrap();
    let input = long_input(dir.path());
    let suite = dir.path().join("s.toml");
    std::fs::write(
        &suite,
        format!(
            "name = \"s\"\nthreads = [1]\n[[set]]\nkind = \"sudoku\"\ndatasets = [\"{}\"]\n\
             algorithms = [\"backtrack\"]\n",
            input.display()
        ),
    )
    .unwrap();
    let reports = dir.path().join("reports");
    let mut child = puzzlebench()
        .args(["bench", "--suite"])
        .arg(&suite)
        .arg("--reports")
        .arg(&reports)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    signal(&child, "INT");
    let status = wait_ended(&mut child);
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("interrupted before any measurement was done: no report written"),
        "{stderr}"
    );
    assert!(!reports.exists(), "no report folder");
}

/// A tiling count can run for hours (the 10×10 board's domino tilings number 2.6 × 10¹¹):
/// its search looks at the run's stop flag, so a bench measuring it ends within moments
/// of Ctrl-C. It used to be heard only once the count was done.
#[test]
fn a_bench_interrupted_during_a_long_tiling_count_ends_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let dominoes = vec!["#,#"; 50].join("\n=\n");
    std::fs::write(dir.path().join("dominoes.txt"), dominoes).unwrap();
    std::fs::write(dir.path().join("hard.txt"), "dominoes.txt 10x10\n").unwrap();
    let suite = dir.path().join("s.toml");
    std::fs::write(
        &suite,
        "name = \"s\"\nthreads = [1]\n[[set]]\nkind = \"tiling\"\ndatasets = [\"hard.txt\"]\n\
         algorithms = [\"bits\"]\n",
    )
    .unwrap();
    let reports = dir.path().join("reports");
    let mut command = puzzlebench();
    command
        .args(["bench", "--suite"])
        .arg(&suite)
        .arg("--reports")
        .arg(&reports);
    let status = interrupted_after(command, Duration::from_millis(1500));
    assert_eq!(status.code(), Some(130));
    assert!(!reports.exists(), "no measurement was finished: no report");
}

#[test]
fn a_bench_interrupted_while_it_generates_a_dataset_ends_at_once_and_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("s.toml");
    // Millions of puzzles: minutes of generating, far more than the test waits.
    std::fs::write(
        &suite,
        "name = \"s\"\nthreads = [1]\n[[set]]\nkind = \"sudoku\"\ngenerate = { file = \
         \"big.txt\", count = 5000000, seed = 3 }\nalgorithms = [\"dlx\"]\n",
    )
    .unwrap();
    let (reports, target) = (dir.path().join("reports"), dir.path().join("target"));
    let mut child = puzzlebench()
        .args(["bench", "--suite"])
        .arg(&suite)
        .arg("--reports")
        .arg(&reports)
        .env("CARGO_TARGET_DIR", &target)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let signalled = Instant::now();
    signal(&child, "INT");
    let status = wait_ended(&mut child);
    let took = signalled.elapsed();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(took < Duration::from_secs(10), "{took:?} after the signal");
    assert!(
        stderr.contains("big.txt … \npuzzlebench: interrupted before any measurement"),
        "{stderr}"
    );
    let cache = target.join("puzzlebench-datasets/sudoku");
    let left: Vec<_> = std::fs::read_dir(&cache)
        .map(|entries| entries.map(|e| e.unwrap().file_name()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "nothing half made is left: {left:?}");
}

/// Ctrl-C in the middle of `connect4 play` appends the game so far to `--log`, as `q`
/// does, with the interrupted exit code; the game's thread is waiting for a move.
#[test]
fn an_interrupted_game_is_logged() {
    use std::io::{BufRead, BufReader, Write};
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("games.txt");
    let mut child = common::puzzlebench()
        .args(["connect4", "play", "--red", "human", "--yellow", "human"])
        .args(["--log", log.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"4\n5\n4\n").unwrap();
    // The fourth prompt (Yellow's second move) means three moves are played.
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut prompts = 0;
    let mut line = Vec::new();
    while prompts < 4 {
        line.clear();
        if stdout.read_until(b':', &mut line).unwrap() == 0 {
            panic!("the game ended before its fourth prompt");
        }
        prompts += usize::from(String::from_utf8_lossy(&line).contains("your move"));
    }
    signal(&child, "INT");
    let status = wait_ended(&mut child);
    assert_eq!(status.code(), Some(130));
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "454\n");
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(
        stderr.contains("the game so far (3 moves) is in the log"),
        "{stderr}"
    );
    drop(stdin);
}

/// One Ctrl-C ends a run whose input is a named pipe without a writer, or whose results
/// file is a named pipe without a reader: opening either waits, and a signal does not end
/// that wait by itself (the run used to need a second Ctrl-C). No report folder is left.
#[test]
fn one_ctrl_c_ends_a_run_waiting_to_open_a_named_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let pipe = dir.path().join("pipe");
    common::make_fifo(&pipe);
    let puzzles = thirty_puzzles(dir.path());
    let report = dir.path().join("report");
    let mut reading = puzzlebench();
    reading.args(["sudoku", "solve", "-q"]).arg(&pipe);
    let mut writing = puzzlebench();
    writing.args(["sudoku", "solve", "-q", "-o"]).arg(&pipe);
    writing.arg("--report").arg(&report).arg(&puzzles);
    for command in [reading, writing] {
        let status = interrupted_after(command, Duration::from_millis(500));
        assert_eq!(status.code(), Some(130));
    }
    assert!(!report.exists());
    // The pipe after a file: the run is interrupted, not complete (it exited 0 and
    // deleted the settings a --resume needs).
    let rows = dir.path().join("rows.csv");
    let mut after_a_file = puzzlebench();
    after_a_file
        .args(["sudoku", "solve", "-q", "-o"])
        .arg(&rows);
    after_a_file.arg(&puzzles).arg(&pipe);
    let status = interrupted_after(after_a_file, Duration::from_millis(500));
    assert_eq!(status.code(), Some(130));
    assert_eq!(std::fs::read_to_string(&rows).unwrap().lines().count(), 31);
    assert!(dir.path().join("rows.csv.unfinished").exists());
}
