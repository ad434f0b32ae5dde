//! `puzzlebench bench`: the report folder, its agreement checks and external programs.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::{parse_csv, repo_datasets, run};

/// A tiny suite over the repository's datasets, written into `dir`.
fn tiny_suite(dir: &Path) -> PathBuf {
    let data = repo_datasets();
    let suite = format!(
        r#"
name = "tiny"
min_time = 0.05
threads = [1, 2]

[[set]]
kind = "sudoku"
datasets = ["{sudoku}/generated-hard-200.txt"]
algorithms = ["dlx", "backtrack"]
max_records = 12

[[set]]
kind = "connect4"
datasets = ["{connect4}/games-1k.txt"]
algorithms = ["bitboard"]
"#,
        sudoku = data.join("sudoku").display(),
        connect4 = data.join("connect4").display(),
    );
    let path = dir.join("tiny.toml");
    fs::write(&path, suite).unwrap();
    path
}

/// The one report folder made under `reports`.
fn report_dir(reports: &Path) -> PathBuf {
    let dirs: Vec<PathBuf> = fs::read_dir(reports)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    dirs.into_iter().next().unwrap()
}

#[test]
fn a_tiny_suite_writes_every_report_file() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = tiny_suite(tmp.path());
    let reports = tmp.path().join("reports");
    let output = run(&[
        "bench",
        "--suite",
        suite.to_str().unwrap(),
        "--reports",
        reports.to_str().unwrap(),
        "--label",
        "check",
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("all runs agree"), "{stdout}");
    let dir = report_dir(&reports);
    let name = dir.file_name().unwrap().to_string_lossy().to_string();
    assert!(name.ends_with("-check"), "{name}");
    assert_eq!(&name[4..5], "-", "the name starts with the date: {name}");
    for file in [
        "summary.csv",
        "summary.json",
        "summary.md",
        "env.json",
        "throughput.svg",
        "latency.svg",
        "scaling.svg",
    ] {
        assert!(dir.join(file).is_file(), "{file} missing");
    }

    // The JSON's runs are the CSV's rows, value for value.
    let (header, rows) = parse_csv(&fs::read_to_string(dir.join("summary.csv")).unwrap());
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    let runs = json["runs"].as_array().unwrap();
    // dlx and backtrack on one file, the bitboard on another, each with 1 and 2 threads.
    assert_eq!(rows.len(), 6);
    assert_eq!(runs.len(), rows.len());
    for (row, run) in rows.iter().zip(runs) {
        for (column, cell) in header.iter().zip(row) {
            let value = &run[column];
            let as_text = match value {
                serde_json::Value::Null => String::new(),
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let same = as_text == *cell
                || (value.is_number() && cell.parse::<f64>().ok() == value.as_f64());
            assert!(same, "{column}: csv {cell:?}, json {value}");
        }
    }
    let cell = |row: &Vec<String>, column: &str| common::cell(&header, row, column).to_string();
    assert_eq!(cell(&rows[0], "algorithm"), "dlx");
    assert_eq!(
        cell(&rows[0], "dataset"),
        "generated-hard-200.txt (first 12)"
    );
    assert_eq!(cell(&rows[0], "records"), "12");
    assert_eq!(cell(&rows[0], "statuses"), "solved=12");
    assert_eq!(cell(&rows[0], "speedup_vs_1_thread"), "1.0");
    assert_eq!(cell(&rows[0], "effort"), "guesses");
    assert!(rows.iter().all(|r| cell(r, "disagreements") == "0"));
    assert_eq!(cell(&rows[4], "dataset"), "games-1k.txt");
    assert_eq!(cell(&rows[4], "records"), "1000");
    assert_eq!(cell(&rows[4], "relative_to_fastest"), "1.0");

    // The Markdown table has every CSV column and row, and embeds the charts.
    let md = fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(md.contains(&format!("| {} |", header.join(" | "))), "{md}");
    assert_eq!(
        md.lines().filter(|l| l.starts_with("| sudoku |")).count(),
        4
    );
    for chart in ["throughput.svg", "latency.svg", "scaling.svg"] {
        assert!(md.contains(&format!("]({chart})")), "{chart} not embedded");
    }

    let env: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("env.json")).unwrap()).unwrap();
    assert_eq!(env["tool"], "puzzlebench");
    assert!(env["cores"].as_u64().unwrap() >= 1);
    assert!(env["command"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a == "bench"));

    // Every chart is well-formed SVG naming each algorithm (legend) and dataset.
    for (chart, expected) in [
        (
            "throughput.svg",
            vec!["dlx", "backtrack", "bitboard", "games-1k.txt"],
        ),
        (
            "latency.svg",
            vec!["dlx", "backtrack", "bitboard", "games-1k.txt"],
        ),
        (
            "scaling.svg",
            vec![
                "dlx",
                "backtrack",
                "bitboard",
                "generated-hard-200.txt (first 12)",
            ],
        ),
    ] {
        let text = fs::read_to_string(dir.join(chart)).unwrap();
        let svg = roxmltree::Document::parse(&text)
            .unwrap_or_else(|e| panic!("{chart} is not well-formed XML: {e}"));
        assert_eq!(svg.root_element().tag_name().name(), "svg");
        let texts: Vec<&str> = svg
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .filter_map(|n| n.text())
            .map(str::trim)
            .collect();
        for name in expected {
            assert!(texts.contains(&name), "{chart} lacks {name:?}: {texts:?}");
        }
        let lines = svg
            .descendants()
            .filter(|n| n.has_tag_name("polyline"))
            .count();
        let rects = svg.descendants().filter(|n| n.has_tag_name("rect")).count();
        assert!(lines + rects > 3, "{chart} draws no series");
    }
}

/// Puzzles of `generated-1k.csv` and their solutions, as line files in `dir`.
fn puzzles_and_solutions(dir: &Path, count: usize) -> (PathBuf, Vec<String>) {
    let text = fs::read_to_string(repo_datasets().join("sudoku/generated-1k.csv")).unwrap();
    let (header, rows) = parse_csv(&text);
    let rows = &rows[..count];
    let puzzles: Vec<&str> = rows
        .iter()
        .map(|r| common::cell(&header, r, "puzzle"))
        .collect();
    let path = dir.join("puzzles.txt");
    fs::write(&path, puzzles.join("\n") + "\n").unwrap();
    let solutions = rows
        .iter()
        .map(|r| common::cell(&header, r, "solution").to_string())
        .collect();
    (path, solutions)
}

fn suite_over(dir: &Path, puzzles: &Path) -> PathBuf {
    let suite = format!(
        "name = \"ext\"\nmin_time = 0.0\nthreads = [1]\n[[set]]\nkind = \"sudoku\"\ndatasets = [\"{}\"]\nalgorithms = [\"dlx\"]\n",
        puzzles.display()
    );
    let path = dir.join("ext.toml");
    fs::write(&path, suite).unwrap();
    path
}

#[test]
fn an_external_program_that_agrees_passes_and_one_that_lies_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let (puzzles, mut solutions) = puzzles_and_solutions(tmp.path(), 30);
    let suite = suite_over(tmp.path(), &puzzles);
    let good = tmp.path().join("good.txt");
    fs::write(&good, solutions.join("\n") + "\n").unwrap();
    // The fake solver answers record 7 (line 7) with the wrong grid: two digits swapped.
    let mut wrong: Vec<char> = solutions[6].chars().collect();
    wrong.swap(0, 1);
    solutions[6] = wrong.into_iter().collect();
    let bad = tmp.path().join("bad.txt");
    fs::write(&bad, solutions.join("\n") + "\n").unwrap();

    let reports = tmp.path().join("reports");
    let output = run(&[
        "bench",
        "--suite",
        suite.to_str().unwrap(),
        "--reports",
        reports.to_str().unwrap(),
        "--quick",
        "--external",
        &format!("honest=cat > /dev/null; cat {}", good.display()),
        "--external",
        &format!("liar=cat > /dev/null; cat {}", bad.display()),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("1 records DISAGREE"), "{stdout}");

    let dir = report_dir(&reports);
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    let runs = json["runs"].as_array().unwrap();
    let by_name = |name: &str| runs.iter().find(|r| r["algorithm"] == name).unwrap();
    assert_eq!(by_name("dlx")["disagreements"], 0);
    assert_eq!(by_name("honest")["disagreements"], 0);
    assert_eq!(by_name("honest")["threads"], serde_json::Value::Null);
    assert_eq!(by_name("honest")["records"], 30);
    assert_eq!(by_name("liar")["disagreements"], 1);
    let listed = json["disagreements"].as_array().unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["algorithm"], "liar");
    assert_eq!(listed[0]["line"], 7);
    assert_eq!(listed[0]["got"], solutions[6].as_str());
    assert_eq!(listed[0]["reference"], "dlx ×1");
    let md = fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(md.contains("**1 records disagree**"), "{md}");
    assert!(md.contains("| puzzles.txt | liar |  | 7 | solved "), "{md}");
}

#[test]
fn a_failing_external_program_fails_its_run_and_a_bad_suite_stops_the_bench() {
    let tmp = tempfile::tempdir().unwrap();
    let (puzzles, _) = puzzles_and_solutions(tmp.path(), 3);
    let suite = suite_over(tmp.path(), &puzzles);
    let reports = tmp.path().join("reports");
    let output = run(&[
        "bench",
        "--suite",
        suite.to_str().unwrap(),
        "--reports",
        reports.to_str().unwrap(),
        "--quick",
        "--external",
        "broken=echo no such solver >&2; exit 3",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("all runs agree; 1 runs FAILED"), "{stdout}");
    let failure = "external broken: `echo no such solver >&2; exit 3` failed (exit status: 3): no such solver";
    let md = fs::read_to_string(report_dir(&reports).join("summary.md")).unwrap();
    assert!(
        md.contains(&format!("**broken failed on puzzles.txt**: {failure}")),
        "{md}"
    );

    let bad = tmp.path().join("bad.toml");
    fs::write(
        &bad,
        "name = \"x\"\n[[set]]\nkind = \"chess\"\ndatasets = [\"a\"]\nalgorithms = [\"dlx\"]\n",
    )
    .unwrap();
    let output = run(&[
        "bench",
        "--suite",
        bad.to_str().unwrap(),
        "--reports",
        reports.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("set 1 (line 3): unknown kind \"chess\" (the kinds are sudoku, "),
        "{stderr}"
    );

    let output = run(&[
        "bench",
        "--algos",
        "quantum",
        "--reports",
        reports.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("no dataset of this suite can run algorithm \"quantum\""),
        "{stderr}"
    );
}

#[test]
fn tiling_counts_are_benchmarked_and_cross_checked_between_engines() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = tmp.path().join("tiling.toml");
    fs::write(
        &suite,
        format!(
            "name = \"tilings\"\nmin_time = 0.0\nthreads = [1, 2]\n\n[[set]]\nkind = \"tiling\"\n\
             datasets = [\"{}\"]\nalgorithms = [\"bits\", \"dlx\"]\n",
            repo_datasets().join("tiling/counts.txt").display()
        ),
    )
    .unwrap();
    let reports = tmp.path().join("reports");
    let output = run(&[
        "bench",
        "--suite",
        suite.to_str().unwrap(),
        "--reports",
        reports.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("4 measurements"), "{stdout}");
    assert!(stdout.contains("all runs agree"), "{stdout}");
    let (header, rows) =
        parse_csv(&fs::read_to_string(report_dir(&reports).join("summary.csv")).unwrap());
    let runs: Vec<(String, String, String, String)> = rows
        .iter()
        .map(|row| {
            let cell = |name| common::cell(&header, row, name).to_string();
            (
                cell("kind"),
                cell("algorithm"),
                cell("threads"),
                cell("statuses"),
            )
        })
        .collect();
    for (kind, _, _, statuses) in &runs {
        assert_eq!(kind, "tiling");
        assert_eq!(statuses, "counted=6");
    }
    let algorithms: Vec<&str> = runs.iter().map(|r| r.1.as_str()).collect();
    assert_eq!(algorithms, ["bits", "bits", "dlx", "dlx"]);
}
