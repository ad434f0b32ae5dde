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
        "report.html",
        "github-benchmark-throughput.json",
        "github-benchmark-latency.json",
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

    // The CI export: one entry per measurement, in github-action-benchmark's form.
    let ci: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(dir.join("github-benchmark-throughput.json")).unwrap(),
    )
    .unwrap();
    let entries = ci.as_array().unwrap();
    assert_eq!(entries.len(), rows.len());
    assert_eq!(
        entries[0]["name"],
        "generated-hard-200.txt (first 12) · dlx · 1 thread"
    );
    assert_eq!(entries[0]["unit"], "records/s");
    assert_eq!(
        entries[0]["value"].as_f64(),
        runs[0]["records_per_s"].as_f64()
    );
    assert!(entries[0]["range"].as_str().unwrap().starts_with("± "));
    assert!(
        !entries[0]["extra"]
            .as_str()
            .unwrap()
            .contains("Interrupted"),
        "a whole run says nothing of interruptions"
    );
    let latency: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(dir.join("github-benchmark-latency.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(latency[1]["unit"], "µs/record");
    assert_eq!(latency[1]["value"].as_f64(), runs[1]["us_p50"].as_f64());
    // Every row says how many timed runs it has (at least five) and flags outliers.
    for row in &rows {
        assert!(cell(row, "repeats").parse::<usize>().unwrap() >= 5);
        assert!(cell(row, "outlier_runs").parse::<usize>().is_ok());
    }
    // The page: every measurement in the table, the charts inline, nothing fetched.
    let html = fs::read_to_string(dir.join("report.html")).unwrap();
    assert_eq!(html.matches("<figure class=\"chart\">").count(), 3);
    for fetch in ["src=", "href=", "<link", "@import", "url("] {
        assert!(!html.contains(fetch), "{fetch}");
    }
    assert_eq!(html.matches("<td>games-1k.txt</td>").count(), 2);

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
    assert!(
        stdout.contains("1 DISAGREEMENT (listed in the report)"),
        "{stdout}"
    );

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
    assert!(md.contains("**1 answer disagrees**"), "{md}");
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
    assert!(stdout.contains("all runs agree; 1 run FAILED"), "{stdout}");
    let failure = "external broken: `echo no such solver >&2; exit 3` failed (exit status: 3): no such solver";
    let md = fs::read_to_string(report_dir(&reports).join("summary.md")).unwrap();
    assert!(
        md.contains(&format!(
            "**broken failed on puzzles.txt**: {}",
            puzzlebench::report::export::markdown_text(failure)
        )),
        "{md}"
    );

    // A program that writes without end is stopped by the size of its answers, long
    // before its timeout, without holding what it wrote.
    let started = std::time::Instant::now();
    let flood_reports = tmp.path().join("flood-reports");
    let output = run(&[
        "bench",
        "--suite",
        suite.to_str().unwrap(),
        "--reports",
        flood_reports.to_str().unwrap(),
        "--quick",
        "--external",
        "flood=yes",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
    let md = fs::read_to_string(report_dir(&flood_reports).join("summary.md")).unwrap();
    assert!(
        md.contains(
            r"**flood failed on puzzles.txt**: external flood: \`yes\` was stopped after writing more than"
        ),
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

/// Runs `bench` on `suite` into `reports` (generated data cached in `cache`); returns the
/// report folder it made and the output.
fn bench_into(suite: &Path, reports: &Path, cache: &Path, more: &[&str]) -> (PathBuf, String) {
    let before: Vec<PathBuf> = fs::read_dir(reports)
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    let output = common::puzzlebench()
        .env("CARGO_TARGET_DIR", cache)
        .args(["bench", "--suite", suite.to_str().unwrap()])
        .args(["--reports", reports.to_str().unwrap()])
        .args(more)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(output.status.code(), Some(0), "{text}");
    let made = fs::read_dir(reports)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| !before.contains(p) && p.file_name().unwrap() != "baselines")
        .unwrap();
    (made, text)
}

fn generated_suite(dir: &Path, difficulty: &str) -> PathBuf {
    let path = dir.join("generated.toml");
    fs::write(
        &path,
        format!(
            "name = \"gen\"\nmin_time = 0.02\nthreads = [1]\n\n[[set]]\nkind = \"sudoku\"\n\
             generate = {{ file = \"gen-40.txt\", count = 40, seed = 9{difficulty} }}\n\
             algorithms = [\"fast\", \"dlx\"]\n\n[[set]]\nkind = \"battleship\"\n\
             generate = {{ file = \"fields.txt\", count = 200, seed = 4, rules = \"separated\", faults = 0.2 }}\n\
             algorithms = [\"bitmask\"]\nrules = \"separated\"\n"
        ),
    )
    .unwrap();
    path
}

#[test]
fn generated_datasets_are_made_once_cached_and_remade_when_their_keys_change() {
    let tmp = tempfile::tempdir().unwrap();
    let (reports, cache) = (tmp.path().join("reports"), tmp.path().join("cache"));
    let suite = generated_suite(tmp.path(), "");
    let (dir, output) = bench_into(&suite, &reports, &cache, &[]);
    let sudoku = cache.join("puzzlebench-datasets/sudoku/gen-40.txt");
    assert!(
        output.contains(&format!("generating {}", sudoku.display())),
        "{output}"
    );
    // The generator's own output, byte for byte.
    let expected = common::run(&["sudoku", "generate", "--count", "40", "--seed", "9"]);
    assert_eq!(fs::read(&sudoku).unwrap(), expected.stdout);
    let fields =
        fs::read_to_string(cache.join("puzzlebench-datasets/battleship/fields.txt")).unwrap();
    assert_eq!(fields.lines().count(), 200);
    let (header, rows) = parse_csv(&fs::read_to_string(dir.join("summary.csv")).unwrap());
    assert_eq!(common::cell(&header, &rows[0], "dataset"), "gen-40.txt");
    assert_eq!(common::cell(&header, &rows[0], "statuses"), "solved=40");
    assert!(common::cell(&header, &rows[2], "statuses").starts_with("valid="));

    let (_, output) = bench_into(&suite, &reports, &cache, &[]);
    assert!(!output.contains("generating"), "cached: {output}");

    let suite = generated_suite(tmp.path(), ", difficulty = \"hard\"");
    let (dir, output) = bench_into(&suite, &reports, &cache, &[]);
    assert!(output.contains("generating"), "keys changed: {output}");
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    // Every Sudoku is hard now: six guesses or more with the exact-cover solver.
    let dlx = &json["runs"][1];
    assert_eq!(dlx["algorithm"], "dlx");
    assert!(dlx["effort_per_record"].as_f64().unwrap() >= 6.0, "{dlx}");

    let bad = generated_suite(tmp.path(), ", difficulty = \"nightmare\"");
    let output = common::puzzlebench()
        .env("CARGO_TARGET_DIR", &cache)
        .args(["bench", "--suite", bad.to_str().unwrap()])
        .args(["--reports", reports.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("sudoku: difficulty must be easy, medium or hard, not \"nightmare\""),
        "{stderr}"
    );
}

/// A copy of report `dir` as `name` whose measurement `index` (in summary.json) has seven
/// timed runs within ±3% of its median — so that a busy machine's noise in the real runs
/// cannot hide what the test looks for — all multiplied by `factor`.
fn scaled_copy(dir: &Path, name: &str, index: usize, factor: f64) -> PathBuf {
    let copy = dir.with_file_name(name);
    fs::create_dir_all(&copy).unwrap();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        fs::copy(&path, copy.join(path.file_name().unwrap())).unwrap();
    }
    let mut json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(copy.join("summary.json")).unwrap()).unwrap();
    let median = json["runs"][index]["records_per_s"].as_f64().unwrap();
    let rates: Vec<f64> = [1.0, 0.97, 1.02, 0.99, 1.03, 0.98, 1.01]
        .iter()
        .map(|share| median * share * factor)
        .collect();
    json["samples"][index]["records_per_s"] = serde_json::json!(rates);
    fs::write(copy.join("summary.json"), json.to_string()).unwrap();
    copy
}

fn compare(old: &Path, new: &Path, more: &[&str]) -> (Option<i32>, String, serde_json::Value) {
    let output = common::puzzlebench()
        .args([
            "bench",
            "compare",
            old.to_str().unwrap(),
            new.to_str().unwrap(),
        ])
        .args(more)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    let json = fs::read_to_string(new.join("compare.json"))
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default();
    (output.status.code(), stdout, json)
}

/// An empty dataset times no record: its runs have no speed, so a comparison has nothing
/// to judge. It used to call a run and its own copy 100% slower and fail the gate.
#[test]
fn a_measurement_without_records_is_not_compared_and_fails_no_gate() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty.txt");
    fs::write(&empty, "").unwrap();
    let suite = tmp.path().join("e.toml");
    fs::write(
        &suite,
        format!(
            "name = \"e\"\nmin_time = 0.01\nthreads = [1]\n[[set]]\nkind = \"sudoku\"\n\
             datasets = [\"{}\"]\nalgorithms = [\"dlx\"]\n",
            empty.display()
        ),
    )
    .unwrap();
    let (reports, cache) = (tmp.path().join("reports"), tmp.path().join("cache"));
    let (old, _) = bench_into(&suite, &reports, &cache, &["-q"]);
    let copy = tmp.path().join("copy");
    fs::create_dir(&copy).unwrap();
    for entry in fs::read_dir(&old).unwrap() {
        let path = entry.unwrap().path();
        fs::copy(&path, copy.join(path.file_name().unwrap())).unwrap();
    }
    let (code, stdout, json) = compare(&old, &copy, &["--fail-if-slower", "1"]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(
        stdout.contains("0 faster, 0 slower, 0 unchanged"),
        "{stdout}"
    );
    assert!(
        stdout.contains("not compared, no record timed in one run or both: empty.txt"),
        "{stdout}"
    );
    assert_eq!(json["measurements"].as_array().unwrap().len(), 0);
    // Nor does the dashboard export plot it as 0 records/s or 0 µs.
    for file in [
        "github-benchmark-throughput.json",
        "github-benchmark-latency.json",
    ] {
        let text = fs::read_to_string(old.join(file)).unwrap();
        assert_eq!(text.trim(), "[]", "{file}");
    }
}

#[test]
fn compare_finds_no_change_between_equal_runs_and_the_size_of_a_slowdown() {
    let tmp = tempfile::tempdir().unwrap();
    let (reports, cache) = (tmp.path().join("reports"), tmp.path().join("cache"));
    let suite = generated_suite(tmp.path(), "");
    let (dir, _) = bench_into(&suite, &reports, &cache, &[]);
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    let runs = json["runs"].as_array().unwrap();
    for (run, samples) in runs.iter().zip(json["samples"].as_array().unwrap()) {
        // Every timed run is kept, at least five of them.
        let rates = samples["records_per_s"].as_array().unwrap();
        assert_eq!(rates.len() as u64, run["repeats"].as_u64().unwrap());
        assert!(rates.len() >= 5);
    }

    // The same samples: unchanged, ratio 1, whatever the gate.
    let same = scaled_copy(&dir, "same", 0, 1.0);
    let (code, stdout, compared) = compare(&same, &same, &["--fail-if-slower", "1"]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(
        stdout.contains("3 measurements compared: 0 faster, 0 slower, 3 unchanged"),
        "{stdout}"
    );
    for m in compared["measurements"].as_array().unwrap() {
        assert_eq!(m["verdict"], "unchanged");
        assert!((m["ratio"].as_f64().unwrap() - 1.0).abs() < 1e-9, "{m}");
    }
    // No difference of machine or settings to report.
    assert_eq!(compared["differences"], serde_json::json!([]));
    assert_eq!(compared["interrupted"], serde_json::json!([]));
    // A run a signal cut short is said to be, by name and with how far it got.
    let cut = scaled_copy(&dir, "cut", 0, 1.0);
    let summary = cut.join("summary.json");
    let mut json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&summary).unwrap()).unwrap();
    json["interrupted"] = serde_json::json!({"planned": 5});
    fs::write(&summary, json.to_string()).unwrap();
    let (code, stdout, _) = compare(&same, &cut, &[]);
    assert_eq!(code, Some(0), "{stdout}");
    let said = format!(
        "the new run ({}) was cut short. Interrupted: 3 of 5 measurements done",
        cut.display()
    );
    assert!(stdout.contains(&said), "{stdout}");

    // The second measurement 40% slower in every run: slower by 40%, exit code 1 at a
    // 10% gate, 0 without a gate. (So large that the runs' own noise on a busy machine
    // cannot hide it.)
    let base = scaled_copy(&dir, "base", 1, 1.0);
    let slowed = scaled_copy(&dir, "slowed", 1, 0.6);
    let (code, stdout, compared) = compare(&base, &slowed, &["--fail-if-slower", "10"]);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stdout.contains("0 faster, 1 slower, 2 unchanged"),
        "{stdout}"
    );
    assert!(
        stdout.contains("1 measurements slower by more than 10%"),
        "{stdout}"
    );
    let m = &compared["measurements"][1];
    assert_eq!(
        (m["algorithm"].as_str(), m["verdict"].as_str()),
        (Some("dlx"), Some("slower"))
    );
    let ratio = m["ratio"].as_f64().unwrap();
    assert!((ratio - 0.6).abs() < 1e-9, "{m}");
    assert!(m["ratio_low"].as_f64().unwrap() <= 0.6 && m["ratio_high"].as_f64().unwrap() < 1.0);
    assert!(stdout.contains("-40.0%"), "{stdout}");
    let (code, _, _) = compare(&base, &slowed, &[]);
    assert_eq!(code, Some(0));
    // A 50% gate lets a 40% slowdown pass.
    let (code, _, _) = compare(&base, &slowed, &["--fail-if-slower", "50"]);
    assert_eq!(code, Some(0));
    for file in ["compare.md", "compare.csv", "comparison.svg", "report.html"] {
        assert!(slowed.join(file).is_file(), "{file}");
    }

    // Another machine's or another setting's run is said to be one.
    let mut env: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(slowed.join("env.json")).unwrap()).unwrap();
    env["cpu_model"] = "Another CPU".into();
    fs::write(slowed.join("env.json"), env.to_string()).unwrap();
    let (_, stdout, _) = compare(&base, &slowed, &[]);
    assert!(stdout.contains("note: CPU differs: "), "{stdout}");
    assert!(stdout.contains(" vs Another CPU (new)"), "{stdout}");

    // Two real runs of the same build, one after the other, compare without a gate: on a
    // shared machine their speeds may differ by any amount (a neighbour's build), so only
    // the comparison itself is checked here; "unchanged" is checked on equal samples above.
    let (second, _) = bench_into(&suite, &reports, &cache, &[]);
    let (code, stdout, _) = compare(&dir, &second, &[]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("3 measurements compared: "), "{stdout}");

    let (code, _, _) = compare(&dir, tmp.path(), &[]);
    assert_eq!(code, Some(2));
}

#[test]
fn a_baseline_is_kept_then_compared_with() {
    let tmp = tempfile::tempdir().unwrap();
    let (reports, cache) = (tmp.path().join("reports"), tmp.path().join("cache"));
    let suite = generated_suite(tmp.path(), "");
    let (_, output) = bench_into(&suite, &reports, &cache, &["--baseline", "main"]);
    assert!(
        output.contains("baseline main: none yet, this run is kept as it"),
        "{output}"
    );
    assert!(reports.join("baselines/main/summary.json").is_file());
    let (dir, output) = bench_into(&suite, &reports, &cache, &["--baseline", "main"]);
    assert!(output.contains("3 measurements compared: "), "{output}");
    assert!(dir.join("compare.json").is_file());
    let html = fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("Compared with an earlier run"));
}

/// A baseline named `..`, `.` or nothing would be the reports folder or `baselines/`
/// itself, which saving a baseline empties: such names are refused before anything runs,
/// and the reports folder keeps every file.
#[test]
fn baseline_names_that_name_no_folder_of_their_own_are_refused_and_delete_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let reports = tmp.path().join("reports");
    fs::create_dir_all(reports.join("baselines/main")).unwrap();
    fs::write(reports.join("notes.txt"), "kept").unwrap();
    fs::write(reports.join("baselines/main/summary.json"), "{}").unwrap();
    for option in ["--save-baseline", "--baseline"] {
        for name in ["..", ".", "", "..."] {
            let output = common::puzzlebench()
                .args([
                    "bench",
                    "--reports",
                    reports.to_str().unwrap(),
                    option,
                    name,
                ])
                .output()
                .unwrap();
            assert_eq!(output.status.code(), Some(2), "{option} {name:?}");
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(stderr.contains("names no folder of its own"), "{stderr}");
        }
    }
    assert_eq!(
        fs::read_to_string(reports.join("notes.txt")).unwrap(),
        "kept"
    );
    assert!(reports.join("baselines/main/summary.json").is_file());
    let left: Vec<_> = fs::read_dir(&reports).unwrap().collect();
    assert_eq!(left.len(), 2, "no report folder was made");
}

#[test]
fn datasets_are_found_in_a_folder_named_from_the_current_one() {
    // `--datasets DIR` is named from where the command runs, not from the suite's folder.
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("corpora/sudoku")).unwrap();
    fs::copy(
        repo_datasets().join("sudoku/mixed.txt"),
        dir.path().join("corpora/sudoku/mixed.txt"),
    )
    .unwrap();
    let reports = dir.path().join("reports");
    for folder in ["corpora", "corpora/sudoku", "./corpora/sudoku"] {
        let output = common::puzzlebench()
            .current_dir(dir.path())
            .args([
                "bench",
                "--datasets",
                folder,
                "--algos",
                "dlx",
                "--threads",
                "1",
            ])
            .args(["--quick", "-q", "--reports", reports.to_str().unwrap()])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(0),
            "--datasets {folder}: {stderr}"
        );
        let table = String::from_utf8_lossy(&output.stdout);
        assert!(
            table
                .lines()
                .any(|l| l.starts_with("mixed.txt") && l.contains("dlx")),
            "--datasets {folder}: {table}"
        );
    }
}

#[test]
fn a_dataset_that_cannot_be_read_fails_its_runs_and_the_others_still_run() {
    // A `.gz` cut short: the bench reports it failed, measures the other dataset, and
    // ends with exit code 1.
    let dir = tempfile::tempdir().unwrap();
    let sudoku = dir.path().join("corpora/sudoku");
    fs::create_dir_all(&sudoku).unwrap();
    fs::copy(
        repo_datasets().join("sudoku/mixed.txt"),
        sudoku.join("mixed.txt"),
    )
    .unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(
        &mut gz,
        &fs::read(repo_datasets().join("sudoku/generated-1k.csv")).unwrap(),
    )
    .unwrap();
    let gz = gz.finish().unwrap();
    fs::write(sudoku.join("broken.csv.gz"), &gz[..gz.len() / 3]).unwrap();
    let reports = dir.path().join("reports");
    let output = common::puzzlebench()
        .current_dir(dir.path())
        .args(["bench", "--datasets", "corpora", "--algos", "dlx"])
        .args(["--threads", "1", "--quick", "--reports"])
        .arg(&reports)
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert_eq!(output.status.code(), Some(1), "{stdout}{stderr}");
    assert!(stdout.contains("all runs agree; 1 run FAILED"), "{stdout}");
    assert!(
        stderr.contains("broken.csv.gz · dlx · 1 … FAILED: cannot read "),
        "{stderr}"
    );
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("mixed.txt") && l.contains("dlx")),
        "{stdout}"
    );
    let md = fs::read_to_string(report_dir(&reports).join("summary.md")).unwrap();
    assert!(
        md.contains("**dlx failed on broken.csv.gz**: cannot read "),
        "{md}"
    );
}

#[test]
fn gate_percentages_are_checked_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let reports = dir.path().join("reports");
    for (option, value) in [("--noise", "1e30"), ("--fail-if-slower", "1e400")] {
        let run_bench = ["bench", "--reports", reports.to_str().unwrap()];
        for command in [&run_bench[..], &["bench", "compare", "old", "new"]] {
            let output = common::puzzlebench()
                .args(command)
                .args([option, value])
                .output()
                .unwrap();
            assert_eq!(output.status.code(), Some(2), "{command:?} {option}");
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(
                stderr.contains(&format!(
                    "--noise and --fail-if-slower take a percentage from 0 to 100, not {value}"
                )),
                "{stderr}"
            );
        }
    }
    // Nothing was run: no report folder was made.
    assert!(!reports.exists());
}

/// A folder with `s50.txt`, the first 50 Sudokus of a generated file, under `ds/sudoku/`.
fn fifty_sudokus(dir: &Path) {
    let sudoku = dir.join("ds/sudoku");
    fs::create_dir_all(&sudoku).unwrap();
    let generated = dir.join("gen.txt");
    let made = run(&[
        "sudoku",
        "generate",
        "--count",
        "50",
        "--seed",
        "7",
        "-o",
        generated.to_str().unwrap(),
    ]);
    assert_eq!(made.status.code(), Some(0));
    fs::rename(&generated, sudoku.join("s50.txt")).unwrap();
}

#[test]
fn thread_counts_above_1024_are_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    fifty_sudokus(dir.path());
    for threads in ["99999999999", "10000000", "1025", "1,2000"] {
        let started = std::time::Instant::now();
        let output = common::puzzlebench()
            .current_dir(dir.path())
            .args([
                "bench",
                "--quick",
                "-q",
                "--datasets",
                "ds",
                "--algos",
                "fast",
            ])
            .args(["--threads", threads])
            .output()
            .unwrap();
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
        assert_eq!(output.status.code(), Some(2), "--threads {threads}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("a number of threads from 1 to 1024"),
            "--threads {threads}: {stderr}"
        );
    }
    // Nothing was run: no report folder was made.
    assert!(!dir.path().join("reports").exists());
}

#[test]
fn a_file_shorter_than_max_records_is_not_called_its_first_records() {
    let dir = tempfile::tempdir().unwrap();
    fifty_sudokus(dir.path());
    let output = common::puzzlebench()
        .current_dir(dir.path())
        .args([
            "bench",
            "--quick",
            "-q",
            "--datasets",
            "ds",
            "--algos",
            "backtrack",
        ])
        .args(["--threads", "1"])
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{table}");
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("s50.txt (50 records) ")),
        "{table}"
    );
    assert!(!table.contains("first 600"), "{table}");
}

#[test]
fn compare_draws_huge_rates_and_refuses_negative_ones() {
    let dir = tempfile::tempdir().unwrap();
    fifty_sudokus(dir.path());
    let reports = dir.path().join("reports");
    let output = common::puzzlebench()
        .current_dir(dir.path())
        .args([
            "bench",
            "--quick",
            "-q",
            "--datasets",
            "ds",
            "--algos",
            "fast",
        ])
        .args(["--threads", "1"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let old = report_dir(&reports);
    let new = dir.path().join("new");
    fs::create_dir(&new).unwrap();
    for entry in fs::read_dir(&old).unwrap() {
        let path = entry.unwrap().path();
        fs::copy(&path, new.join(path.file_name().unwrap())).unwrap();
    }
    let summary = new.join("summary.json");
    let mut json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&summary).unwrap()).unwrap();
    for rate in [1e150, 1e200, 1e308, 1e-300, -1.0] {
        json["samples"][0]["records_per_s"] = serde_json::json!([rate]);
        fs::write(&summary, json.to_string()).unwrap();
        // A comparison that loops is stopped and fails the test.
        let mut child = common::puzzlebench()
            .args([
                "bench",
                "compare",
                old.to_str().unwrap(),
                new.to_str().unwrap(),
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > std::time::Duration::from_secs(30) {
                child.kill().unwrap();
                child.wait().unwrap();
                panic!("bench compare with a rate of {rate} did not end within 30 s");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let output = child.wait_with_output().unwrap();
        let (code, stdout) = (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout),
        );
        if rate < 0.0 {
            assert_eq!(code, Some(2), "{rate}: {stdout}");
        } else {
            assert_eq!(code, Some(0), "{rate}: {stdout}");
            assert!(
                stdout.contains("1 measurement compared"),
                "{rate}: {stdout}"
            );
            let svg = fs::read_to_string(new.join("comparison.svg")).unwrap();
            assert!(svg.contains("s50.txt · fast · 1"), "{rate}");
        }
    }
    let output = common::puzzlebench()
        .args([
            "bench",
            "compare",
            old.to_str().unwrap(),
            new.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        stderr.trim_end(),
        format!(
            "puzzlebench: {}: samples[0].records_per_s[0] is -1.0: a rate is a number of \
             records per second, 0 or more",
            summary.display()
        )
    );
}

#[test]
fn a_suite_or_report_file_larger_than_its_limit_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    // A suite one byte over 1 MiB, of comment lines: refused by its size, not parsed.
    let suite = dir.path().join("big.toml");
    fs::write(&suite, "#".repeat((1 << 20) + 1)).unwrap();
    let output = run(&["bench", "--suite", suite.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr).trim_end(),
        format!(
            "puzzlebench: suite {} is larger than 1 MiB: not a suite file",
            suite.display()
        )
    );
    // A report's summary.json one byte over 16 MiB (sparse: no disk space).
    let (old, new) = (dir.path().join("old"), dir.path().join("new"));
    for folder in [&old, &new] {
        fs::create_dir(folder).unwrap();
        let summary = fs::File::create(folder.join("summary.json")).unwrap();
        summary.set_len((16 << 20) + 1).unwrap();
    }
    let output = run(&[
        "bench",
        "compare",
        old.to_str().unwrap(),
        new.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr).trim_end(),
        format!(
            "puzzlebench: {}: the file is larger than 16 MiB: not a bench report's summary.json",
            old.join("summary.json").display()
        )
    );
}

#[test]
fn a_dataset_that_is_a_folder_a_device_or_a_pipe_is_said_to_be_one() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("subdir")).unwrap();
    let fifo = dir.path().join("fifo.txt");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let suite = dir.path().join("s.toml");
    let fifo = fifo.to_str().unwrap();
    for (dataset, message) in [
        (
            "subdir",
            "dataset \"subdir\" is a directory, not a file (name its files, e.g. \
             \"subdir/*.txt\")"
                .to_string(),
        ),
        (
            "/dev/zero",
            "dataset \"/dev/zero\" is not a regular file".to_string(),
        ),
        (fifo, format!("dataset {fifo:?} is not a regular file")),
    ] {
        fs::write(
            &suite,
            format!(
                "name = \"s\"\n[[set]]\nkind = \"sudoku\"\ndatasets = [{dataset:?}]\n\
                 algorithms = [\"dlx\"]\n"
            ),
        )
        .unwrap();
        let output = run(&["bench", "--suite", suite.to_str().unwrap()]);
        assert_eq!(output.status.code(), Some(2), "{dataset}");
        assert_eq!(
            String::from_utf8_lossy(&output.stderr).trim_end(),
            format!("puzzlebench: {message}")
        );
    }
}

#[test]
fn the_progress_line_says_in_turns_only_for_two_algorithms_or_more() {
    let dir = tempfile::tempdir().unwrap();
    fifty_sudokus(dir.path());
    for (algos, line) in [
        ("fast", "s50.txt · fast · 1 …"),
        ("fast,dlx", "s50.txt · fast, dlx in turns · 1 …"),
    ] {
        let output = common::puzzlebench()
            .current_dir(dir.path())
            .args(["bench", "--quick", "--datasets", "ds", "--threads", "1"])
            .args(["--algos", algos])
            .output()
            .unwrap();
        // The progress lines go to standard error.
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{stderr}");
        assert!(stderr.lines().any(|l| l == line), "{algos}: {stderr}");
        let turns = usize::from(algos.contains(','));
        assert_eq!(stderr.matches("in turns").count(), turns, "{stderr}");
    }
}

#[test]
fn a_named_pipe_among_the_datasets_folder_files_is_refused_not_skipped() {
    let dir = tempfile::tempdir().unwrap();
    fifty_sudokus(dir.path());
    common::make_fifo(&dir.path().join("ds/sudoku/late.txt"));
    let output = common::puzzlebench()
        .current_dir(dir.path())
        .args([
            "bench",
            "--quick",
            "-q",
            "--datasets",
            "ds",
            "--algos",
            "fast",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("late.txt is not a regular file (a named pipe or a device)"),
        "{stderr}"
    );
    assert!(!dir.path().join("reports").exists());
}

#[test]
fn names_that_would_mix_measurements_and_a_folder_that_cannot_be_made_are_refused_first() {
    let tmp = tempfile::tempdir().unwrap();
    let (puzzles, _) = puzzles_and_solutions(tmp.path(), 5);
    let suite = suite_over(tmp.path(), &puzzles);
    let reports = tmp.path().join("reports");
    let bench = |more: &[&str]| {
        let mut args = vec![
            "bench",
            "--suite",
            suite.to_str().unwrap(),
            "--reports",
            reports.to_str().unwrap(),
            "--quick",
            "-q",
        ];
        args.extend(more);
        let output = run(&args);
        assert_eq!(output.status.code(), Some(2), "{more:?}");
        String::from_utf8(output.stderr).unwrap()
    };
    let twice = bench(&["--external", "e=cat", "--external", "e=cat"]);
    assert!(twice.contains("--external \"e\" is named twice"), "{twice}");
    let algorithm = bench(&["--external", "dlx=cat"]);
    assert!(
        algorithm.contains("the name of an algorithm"),
        "{algorithm}"
    );
    let long = "x".repeat(300);
    let label = bench(&["--label", &long]);
    assert!(label.contains("File name too long"), "{label}");
    assert!(
        !label.contains("records/s"),
        "refused before measuring: {label}"
    );
    assert_eq!(fs::read_dir(&reports).unwrap().count(), 0, "no folder left");
    // A baseline folder that holds no report is said before measuring, and kept.
    fs::create_dir_all(reports.join("baselines/main")).unwrap();
    let baseline = bench(&["--baseline", "main"]);
    assert!(baseline.contains("has no summary.json"), "{baseline}");
    assert!(reports.join("baselines/main").is_dir());
    fs::remove_dir_all(reports.join("baselines")).unwrap();
    let file = tmp.path().join("a-file");
    fs::write(&file, "").unwrap();
    let output = run(&[
        "bench",
        "--suite",
        suite.to_str().unwrap(),
        "--reports",
        file.to_str().unwrap(),
        "--quick",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("Not a directory") && !stderr.contains("records/s"),
        "{stderr}"
    );
    // A table that cannot be written says where it was going.
    let full = std::process::Command::new(env!("CARGO_BIN_EXE_puzzlebench"))
        .args(["bench", "--suite", suite.to_str().unwrap(), "--reports"])
        .arg(&reports)
        .args(["--quick", "-q"])
        .stdout(
            fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap(),
        )
        .output()
        .unwrap();
    assert_eq!(full.status.code(), Some(2));
    let stderr = String::from_utf8(full.stderr).unwrap();
    assert!(
        stderr.contains("cannot write the table to standard output: No space left"),
        "{stderr}"
    );
    // A generated file named as the stamp of another.
    let stamped = tmp.path().join("stamped.toml");
    fs::write(
        &stamped,
        "name = \"g\"\n[[set]]\nkind = \"sudoku\"\ngenerate = { file = \"a.txt.stamp\", count = 3 }\nalgorithms = [\"fast\"]\n",
    )
    .unwrap();
    let output = run(&["bench", "--suite", stamped.to_str().unwrap(), "--quick"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("ends in .stamp"), "{stderr}");
}
