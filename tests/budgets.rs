//! Per-record budgets (`--timeout`, `--max-nodes`): a record that would stall a run
//! becomes a `timeout` row with the effort spent, and every other record keeps its row.

mod common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{cell, parse_csv, puzzlebench, repo_datasets, run};

/// Easy 9×9 puzzles from the repository's datasets.
fn easy_sudokus(count: usize) -> Vec<String> {
    let text = std::fs::read_to_string(repo_datasets().join("sudoku/generated-1k.csv"))
        .expect("datasets/sudoku/generated-1k.csv");
    let lines: Vec<String> = text
        .lines()
        .filter(|l| l.ends_with(",easy"))
        .map(|l| l[..81].to_string())
        .collect();
    lines.iter().cycle().take(count).cloned().collect()
}

fn write_temp(name: &str, lines: &[String]) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    (dir, path)
}

/// The empty 25×25 grid takes the textbook backtracking solver far longer than any test.
fn empty_25x25() -> String {
    ".".repeat(625)
}

#[test]
fn a_sudoku_over_its_time_budget_gets_a_timeout_row_and_the_run_goes_on() {
    let mut lines = easy_sudokus(20);
    lines.insert(10, empty_25x25());
    let (_dir, path) = write_temp("mixed.txt", &lines);
    let started = Instant::now();
    let out = run(&[
        "sudoku",
        "solve",
        "--algo",
        "backtrack",
        "--timeout",
        "1s",
        "-j2",
        path.to_str().unwrap(),
    ]);
    assert!(started.elapsed() < Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(1), "a timeout fails the run");
    let (header, rows) = parse_csv(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(rows.len(), 21, "one row per record");
    for (i, row) in rows.iter().enumerate() {
        let line = (i + 1).to_string();
        assert_eq!(cell(&header, row, "line"), line, "rows in input order");
        let status = cell(&header, row, "status");
        if i == 10 {
            assert_eq!(status, "timeout");
            let guesses: u64 = cell(&header, row, "guesses").parse().unwrap();
            assert!(guesses > 0, "the effort spent is reported");
            assert_eq!(
                cell(&header, row, "error"),
                "stopped at the time budget (--timeout 1s)"
            );
            assert_eq!(cell(&header, row, "solution"), "");
        } else {
            assert_eq!(status, "solved", "row {line}");
        }
    }
}

#[test]
fn a_node_budget_stops_every_sudoku_algorithm_at_the_same_count() {
    let (_dir, path) = write_temp("empty9.txt", &[".".repeat(81)]);
    for algo in ["fast", "dlx", "backtrack"] {
        let out = run(&[
            "sudoku",
            "solve",
            "--algo",
            algo,
            "--max-nodes",
            "5",
            path.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(1), "{algo}");
        let (header, rows) = parse_csv(&String::from_utf8(out.stdout).unwrap());
        assert_eq!(cell(&header, &rows[0], "status"), "timeout", "{algo}");
        // The sixth guess finds the budget spent: it is neither made nor counted.
        assert_eq!(cell(&header, &rows[0], "guesses"), "5", "{algo}");
        assert_eq!(
            cell(&header, &rows[0], "error"),
            "stopped at the node budget (--max-nodes 5)"
        );
    }
}

#[test]
fn a_budget_the_records_stay_within_changes_nothing() {
    let (_dir, path) = write_temp("easy.txt", &easy_sudokus(30));
    let plain = run(&["sudoku", "solve", path.to_str().unwrap()]);
    let budgeted = run(&[
        "sudoku",
        "solve",
        "--timeout",
        "1m",
        "--max-nodes",
        "1000000",
        path.to_str().unwrap(),
    ]);
    assert_eq!(plain.status.code(), Some(0));
    assert_eq!(budgeted.status.code(), Some(0));
    assert_eq!(
        common::without_micros(&String::from_utf8(plain.stdout).unwrap()),
        common::without_micros(&String::from_utf8(budgeted.stdout).unwrap())
    );
}

#[test]
fn the_summary_and_report_count_timeouts_and_name_the_budget() {
    let mut lines = easy_sudokus(3);
    lines.push(empty_25x25());
    let (dir, path) = write_temp("mixed.txt", &lines);
    let report = dir.path().join("report");
    let out = run(&[
        "sudoku",
        "solve",
        "--algo",
        "backtrack",
        "--timeout",
        "1s",
        "--report",
        report.to_str().unwrap(),
        path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report.join("summary.json")).unwrap())
            .unwrap();
    let text = summary.to_string();
    assert!(text.contains("\"timeout\":1"), "{text}");
    assert!(text.contains("\"solved\":3"), "{text}");
    assert!(
        text.contains("\"timeout\":\"1s\""),
        "the budget is in the settings: {text}"
    );
}

#[test]
fn connect4_solve_stops_the_empty_board_at_its_budget() {
    let (_dir, path) = write_temp("positions.txt", &["-".into(), "4455".into()]);
    let out = run(&[
        "connect4",
        "solve",
        "--timeout",
        "250ms",
        path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let (header, rows) = parse_csv(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(cell(&header, &rows[0], "status"), "timeout");
    assert_eq!(cell(&header, &rows[0], "score"), "");
    let nodes: u64 = cell(&header, &rows[0], "nodes").parse().unwrap();
    assert!(nodes > 1000, "the nodes searched are reported: {nodes}");
    // The search after a stopped one starts from a clean table: the answer is right.
    assert_eq!(cell(&header, &rows[1], "status"), "ok");
    assert_eq!(cell(&header, &rows[1], "score"), "18");
    assert_eq!(cell(&header, &rows[1], "best_moves"), "3 6");
}

#[test]
fn connect4_solve_scores_right_after_stopped_searches() {
    // A search stopped half way leaves cut-short bounds in the table; the searches after
    // it on the same worker must not use them. Positions: the first 18 moves of the
    // repository's generated games, from tens to hundreds of thousands of nodes each.
    let games = std::fs::read_to_string(repo_datasets().join("connect4/games-1k.txt")).unwrap();
    let positions: Vec<String> = games
        .lines()
        .filter(|l| !l.starts_with('#') && l.len() >= 24)
        .take(60)
        .map(|l| l[..18].to_string())
        .collect();
    let (_dir, path) = write_temp("positions.txt", &positions);
    let path = path.to_str().unwrap();
    let plain = run(&["connect4", "solve", "-j1", path]);
    let (header, plain_rows) = parse_csv(&String::from_utf8(plain.stdout).unwrap());
    let stopped = run(&["connect4", "solve", "-j1", "--max-nodes", "10000", path]);
    let (_, rows) = parse_csv(&String::from_utf8(stopped.stdout).unwrap());
    assert_eq!(rows.len(), plain_rows.len());
    let mut timeouts = 0;
    for (plain, after) in plain_rows.iter().zip(&rows) {
        let plain_nodes: u64 = cell(&header, plain, "nodes").parse().unwrap_or(0);
        if cell(&header, after, "status") == "timeout" {
            timeouts += 1;
            assert!(
                plain_nodes > 10_000,
                "stopped though it needs {plain_nodes}"
            );
            assert_eq!(cell(&header, after, "nodes"), "10000", "the nodes searched");
        } else {
            assert_eq!(cell(&header, plain, "score"), cell(&header, after, "score"));
            assert_eq!(
                cell(&header, plain, "best_moves"),
                cell(&header, after, "best_moves")
            );
        }
    }
    assert!(timeouts >= 5, "only {timeouts} searches were stopped");
}

#[test]
fn battleship_counting_stops_at_its_budget() {
    let fleet = vec!["2"; 50].join(",");
    let field = ["1111111111"; 10].join(" ");
    let (_dir, path) = write_temp("all-ships.txt", &[field]);
    let out = run(&[
        "battleship",
        "validate",
        "--count",
        "--fleet",
        &fleet,
        "--timeout",
        "200ms",
        path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let (header, rows) = parse_csv(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(cell(&header, &rows[0], "status"), "timeout");
    let readings: u64 = cell(&header, &rows[0], "readings").parse().unwrap();
    assert!(readings > 0, "the readings found so far are reported");
}

/// Runs `sudoku solve --algo backtrack` over `lines` into a results file and gives the
/// number of rows the file holds once `wanted` are there (or after 30 s), killing the run:
/// its last record takes the backtracking solver far longer than any test.
fn rows_written_while_running(lines: &[String], threads: &str, wanted: usize) -> usize {
    let (dir, path) = write_temp("slow.txt", lines);
    let output = dir.path().join("rows.csv");
    let mut child = puzzlebench()
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
        .arg(&path)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let count = || {
        std::fs::read_to_string(&output)
            .map(|text| text.lines().count().saturating_sub(1))
            .unwrap_or(0)
    };
    while Instant::now() < deadline && count() < wanted {
        std::thread::sleep(Duration::from_millis(100));
    }
    // Time for rows that should not be there to show up.
    std::thread::sleep(Duration::from_millis(300));
    let rows = count();
    child.kill().unwrap();
    child.wait().unwrap();
    rows
}

#[test]
fn rows_before_a_slow_record_are_written_while_it_runs() {
    // 600 easy puzzles, then one that takes the backtracking solver far longer than the
    // test: every row before it reaches the file while it is still being solved.
    let mut lines = easy_sudokus(600);
    lines.push(empty_25x25());
    for threads in ["1", "2"] {
        let rows = rows_written_while_running(&lines, threads, 600);
        assert_eq!(
            rows, 600,
            "-j{threads}: rows written while the slow record ran"
        );
    }
}

#[test]
fn rows_in_a_slow_records_own_chunk_are_written_while_it_runs() {
    // The slow record is the fifth, in the first chunk (eight records): the four rows
    // before it go out while it runs, and none after it.
    let mut lines = easy_sudokus(4);
    lines.push(empty_25x25());
    lines.extend(easy_sudokus(20));
    for threads in ["1", "2"] {
        let rows = rows_written_while_running(&lines, threads, 4);
        assert_eq!(
            rows, 4,
            "-j{threads}: rows written while the slow record ran"
        );
    }
}

#[test]
fn a_budget_is_refused_when_it_is_not_a_duration() {
    let out = run(&["sudoku", "solve", "--timeout", "soon"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("--timeout"), "{stderr}");
}

#[test]
fn an_external_program_over_its_timeout_is_killed_and_fails_its_measurement() {
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let out = puzzlebench()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["bench", "--quick", "--algos", "fast", "--threads", "1"])
        .args([
            "--external",
            "slow=sleep 100",
            "--external-timeout",
            "300ms",
        ])
        .arg("--reports")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(" FAILED"), "{stdout}");
    let report = std::fs::read_dir(dir.path())
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let summary = std::fs::read_to_string(report.join("summary.md")).unwrap();
    assert!(
        summary.contains(r"\`sleep 100\` was stopped at its timeout of 300ms"),
        "{summary}"
    );
}

/// `M` is months to the duration reader: `--timeout 1M` is refused rather than read as a
/// month; `1m` and `1min` are a minute.
#[test]
fn a_timeout_in_months_is_refused() {
    let (_dir, path) = write_temp("one.txt", &easy_sudokus(1));
    let path = path.to_str().unwrap();
    for (timeout, code) in [("1M", 2), ("2s 1M", 2), ("1m", 0), ("1min", 0)] {
        let output = run(&["sudoku", "solve", "--timeout", timeout, path]);
        assert_eq!(output.status.code(), Some(code), "{timeout}");
        if code == 2 {
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(
                stderr.contains("M is months here: write 1m or 1min"),
                "{stderr}"
            );
        }
    }
}

/// A search stopped after it found a solution gives that solution (only its uniqueness
/// is unknown), for every algorithm, and each one given solves its puzzle.
#[test]
fn a_timeout_row_gives_the_solution_found_before_the_stop() {
    use puzzlebench::sudoku::{check_solution, Grid};
    let path = repo_datasets().join("sudoku/generated-hard-200.txt");
    let puzzles: Vec<String> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    for algorithm in ["fast", "dlx"] {
        let output = run(&[
            "sudoku",
            "solve",
            "--algo",
            algorithm,
            "--max-nodes",
            "5",
            path.to_str().unwrap(),
        ]);
        let (header, rows) = parse_csv(&String::from_utf8(output.stdout).unwrap());
        let mut given = 0;
        for row in &rows {
            if cell(&header, row, "status") != "timeout" || cell(&header, row, "solutions") == "0" {
                continue;
            }
            let line: usize = cell(&header, row, "line").parse().unwrap();
            let puzzle = Grid::from_line(&puzzles[line - 1], None).unwrap();
            let solution = Grid::from_line(cell(&header, row, "solution"), None)
                .unwrap_or_else(|e| panic!("{algorithm}, line {line}: {e}"));
            check_solution(&puzzle, &solution).unwrap();
            given += 1;
        }
        assert!(
            given >= 20,
            "{algorithm}: only {given} timeout rows with a solution"
        );
    }
}
