//! The Spark route end to end: `scripts/spark/puzzlebench_spark.py` on Spark `local[2]`
//! over a corpus of each kind gives the rows and the report counts of one plain run, and a
//! corpus of bad records and an over-budget record loses nothing. One `spark-submit` runs
//! every job: Spark takes many seconds to start.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value as Json};

use common::{corpora, repo_datasets, rows_by_key, run, summary_counts, summary_json};

/// The PySpark environment, made by `scripts/spark/setup.sh` if it is not there yet.
fn spark_venv() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let setup = Command::new("bash")
        .arg(root.join("scripts/spark/setup.sh"))
        .output()
        .expect("bash runs");
    assert!(
        setup.status.success(),
        "scripts/spark/setup.sh failed (it needs python3 with venv and PyPI): {}",
        String::from_utf8_lossy(&setup.stderr)
    );
    std::env::var_os("PUZZLEBENCH_SPARK_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/spark-venv"))
}

/// The CSV part files Spark wrote into `dir`.
fn part_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "csv"))
        .collect();
    names.sort();
    names
        .iter()
        .map(|p| fs::read_to_string(p).unwrap())
        .collect()
}

#[test]
#[cfg_attr(
    any(spark_missing, corpora_missing),
    ignore = "needs Java 17+, PySpark (scripts/spark/setup.sh; PUZZLEBENCH_REQUIRE_SPARK=1 \
              requires it) and the public corpora"
)]
fn spark_local_gives_the_rows_and_counts_of_one_run() {
    let Some(corpora) = corpora("spark_local_gives_the_rows_and_counts_of_one_run") else {
        return;
    };
    let venv = spark_venv();
    let dir = tempfile::tempdir().unwrap();
    let repo = repo_datasets();

    // Bad records, comments, blank lines and one record over its node budget.
    let kaggle = fs::read_to_string(corpora.join("sudoku/kaggle-10k.csv")).unwrap();
    let mut bad = String::from("# bad records and one over budget\n");
    for (i, line) in kaggle.lines().skip(1).take(300).enumerate() {
        bad.push_str(line.split(',').next().unwrap());
        bad.push('\n');
        match i % 50 {
            7 => bad.push_str("not a sudoku at all\n\n"),
            19 => bad.push_str("# a comment\n12345\n"),
            _ => {}
        }
    }
    bad.push_str(
        "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4..\n",
    );
    let bad_path = dir.path().join("bad.txt");
    fs::write(&bad_path, &bad).unwrap();
    let records = bad
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .count();

    let path = |p: PathBuf| p.to_str().unwrap().to_string();
    let jobs: Vec<(Vec<&str>, Vec<String>, u32)> = vec![
        (
            vec!["sudoku", "solve"],
            vec![path(corpora.join("sudoku/kaggle-10k.csv"))],
            4,
        ),
        (
            vec!["connect4", "validate"],
            vec![
                path(repo.join("connect4/games-1k.txt")),
                path(repo.join("connect4/colors-500.txt")),
            ],
            2,
        ),
        (
            vec!["connect4", "solve"],
            vec![path(corpora.join("connect4/pons/Test_L2_R1.txt"))],
            3,
        ),
        (
            vec!["battleship", "validate"],
            vec![path(repo.join("battleship/separated-1k.txt"))],
            3,
        ),
        (
            vec!["sudoku", "solve", "--max-nodes", "20"],
            vec![path(bad_path.clone())],
            3,
        ),
    ];
    let job_list: Vec<Json> = jobs
        .iter()
        .enumerate()
        .map(|(i, (command, inputs, partitions))| {
            json!({
                "command": command,
                "inputs": inputs,
                "output": path(dir.path().join(format!("out{i}"))),
                "partitions": partitions,
            })
        })
        .collect();
    let jobs_file = dir.path().join("jobs.json");
    fs::write(&jobs_file, serde_json::to_string(&job_list).unwrap()).unwrap();

    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/spark/puzzlebench_spark.py");
    let python = venv.join("bin/python");
    let submit = Command::new(venv.join("bin/spark-submit"))
        .env("SPARK_LOCAL_IP", "127.0.0.1")
        .env("PYSPARK_PYTHON", &python)
        .env("PYSPARK_DRIVER_PYTHON", &python)
        .args(["--master", "local[2]", "--conf", "spark.ui.enabled=false"])
        .args(["--conf", "spark.driver.bindAddress=127.0.0.1"])
        .args(["--conf", "spark.driver.host=127.0.0.1"])
        .arg(&script)
        .args(["--binary", env!("CARGO_BIN_EXE_puzzlebench")])
        .args(["--jobs", jobs_file.to_str().unwrap()])
        .output()
        .expect("spark-submit runs");
    assert!(
        submit.status.success(),
        "spark-submit failed: {}",
        String::from_utf8_lossy(&submit.stderr)
    );

    for (i, (command, inputs, _)) in jobs.iter().enumerate() {
        let name = command.join(" ");
        let out = dir.path().join(format!("out{i}"));
        let plain_report = dir.path().join(format!("plain{i}"));
        let mut args: Vec<&str> = command.clone();
        args.extend(inputs.iter().map(String::as_str));
        args.extend(["-q", "--report", plain_report.to_str().unwrap()]);
        let plain = run(&args);
        assert!(plain.status.code().unwrap() <= 1, "{name}");
        let plain = String::from_utf8(plain.stdout).unwrap();

        let (header, rows) = rows_by_key(&part_files(&out.join("rows.csv")));
        let (plain_header, plain_rows) = rows_by_key(&[plain]);
        assert_eq!(header, plain_header, "{name}");
        assert_eq!(rows.len(), plain_rows.len(), "{name}");
        for (spark_row, plain_row) in rows.iter().zip(&plain_rows) {
            assert_eq!(spark_row, plain_row, "{name}");
        }
        assert!(out.join("rows.parquet/_SUCCESS").exists(), "{name}");
        let merged = summary_json(&out.join("report"));
        assert_eq!(
            summary_counts(&merged),
            summary_counts(&summary_json(&plain_report)),
            "{name}"
        );
        let env: Json =
            serde_json::from_str(&fs::read_to_string(out.join("report/env.json")).unwrap())
                .unwrap();
        assert!(env["parts"].as_u64().unwrap() >= 2, "{name}: {env}");
        assert!(!env["hosts"].as_array().unwrap().is_empty());
    }

    // The bad corpus: every record a row, the bad ones errors, one over its budget.
    let merged = summary_json(&dir.path().join("out4/report"));
    assert_eq!(merged["records"], records as u64);
    assert_eq!(merged["statuses"]["timeout"], 1);
    assert_eq!(merged["statuses"]["error"], 12);
}
