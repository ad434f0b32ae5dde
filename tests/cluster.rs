//! Beyond one machine: carried CSV columns in every batch command, the engines' filter mode,
//! `--shard K/N` and `report merge` — shards merged give one run's rows and report.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use hdrhistogram::serialization::Deserializer;
use hdrhistogram::Histogram;
use serde_json::Value as Json;

use common::{
    cell, corpora, parse_csv, repo_datasets, rows_by_key, run, run_with_stdin, summary_counts,
    summary_json,
};

/// Runs `puzzlebench args`, expecting exit code `code`; returns standard output.
fn run_ok(args: &[&str], code: i32) -> String {
    let output = run(args);
    assert_eq!(
        output.status.code(),
        Some(code),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

fn histogram(dir: &Path) -> Histogram<u64> {
    let bytes = fs::read(dir.join("latency.hdr")).unwrap();
    Deserializer::new()
        .deserialize(&mut bytes.as_slice())
        .unwrap()
}

/// The shared corpora of each kind, as (command, inputs).
fn corpus_runs(corpora: &Path) -> Vec<(Vec<&'static str>, Vec<PathBuf>)> {
    let repo = repo_datasets();
    vec![
        (
            vec!["sudoku", "solve"],
            vec![corpora.join("sudoku/kaggle-10k.csv")],
        ),
        (
            vec!["connect4", "validate"],
            vec![
                repo.join("connect4/games-1k.txt"),
                repo.join("connect4/colors-500.txt"),
            ],
        ),
        (
            vec!["connect4", "solve"],
            vec![corpora.join("connect4/pons/Test_L2_R1.txt")],
        ),
        (
            vec!["battleship", "validate"],
            vec![repo.join("battleship/separated-1k.txt")],
        ),
    ]
}

#[test]
#[cfg_attr(
    corpora_missing,
    ignore = "needs the public corpora (PUZZLEBENCH_CORPORA or ../shared/datasets)"
)]
fn three_shards_merged_equal_one_run() {
    let Some(corpora) = corpora("three_shards_merged_equal_one_run") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for (command, inputs) in corpus_runs(&corpora) {
        let name = command.join("-");
        let inputs: Vec<&str> = inputs.iter().map(|p| p.to_str().unwrap()).collect();
        let report = |tag: &str| dir.path().join(format!("{name}-{tag}"));
        let mut args = command.clone();
        args.extend(&inputs);
        let whole_report = report("whole");
        let mut whole_args = args.clone();
        whole_args.extend(["-q", "--report", whole_report.to_str().unwrap()]);
        let whole = run(&whole_args);
        assert!(whole.status.code().unwrap() <= 1, "{name}");
        let whole = String::from_utf8(whole.stdout).unwrap();

        let mut shard_rows = Vec::new();
        let mut shard_reports = Vec::new();
        for k in 1..=3 {
            let shard = format!("{k}/3");
            let shard_report = report(&format!("shard{k}"));
            let mut shard_args = args.clone();
            shard_args.extend(["-q", "--shard", &shard, "-j", "2"]);
            shard_args.extend(["--report", shard_report.to_str().unwrap()]);
            let output = run(&shard_args);
            assert!(output.status.code().unwrap() <= 1, "{name} {shard}");
            let text = String::from_utf8(output.stdout).unwrap();
            let records = parse_csv(&text).1.len() as u64;
            assert_eq!(summary_json(&shard_report)["shard"], shard.as_str());
            assert_eq!(
                summary_json(&shard_report)["records"],
                records,
                "{name} {shard}"
            );
            shard_rows.push(text);
            shard_reports.push(shard_report);
        }
        // Rows: the shards' rows, sorted by key, are the whole run's, lines and files kept.
        let (header, rows) = rows_by_key(&shard_rows);
        let (whole_header, whole_rows) = rows_by_key(&[whole]);
        assert_eq!(header, whole_header, "{name}");
        assert_eq!(rows.len(), whole_rows.len(), "{name}");
        assert!(
            rows == whole_rows,
            "{name}: the shards' rows differ from one run's"
        );
        let sizes: Vec<usize> = shard_rows.iter().map(|t| parse_csv(t).1.len()).collect();
        assert!(
            sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1,
            "{sizes:?}"
        );

        // Report: counts as one run's; percentiles those of one histogram of all records.
        let merged = report("merged");
        let mut merge_args = vec!["report", "merge", "-q", "-o", merged.to_str().unwrap()];
        merge_args.extend(shard_reports.iter().map(|p| p.to_str().unwrap()));
        run_ok(&merge_args, 0);
        let merged_summary = summary_json(&merged);
        assert_eq!(
            summary_counts(&merged_summary),
            summary_counts(&summary_json(&whole_report)),
            "{name}"
        );
        assert_eq!(
            merged_summary["inputs"],
            summary_json(&whole_report)["inputs"]
        );
        assert!(merged_summary.get("shard").is_none());
        let mut all = histogram(&shard_reports[0]);
        for part in &shard_reports[1..] {
            all.add(histogram(part)).unwrap();
        }
        assert_eq!(all.len(), merged_summary["records"].as_u64().unwrap());
        let latency = &merged_summary["latency_us"];
        for (key, quantile) in [("p50", 0.5), ("p90", 0.9), ("p99", 0.99)] {
            let expected = all.value_at_quantile(quantile) as f64 / 1000.0;
            let found = latency[key].as_f64().unwrap();
            assert!(
                (found - expected).abs() < 0.006,
                "{name} {key}: {found} vs {expected}"
            );
        }
        assert!((latency["max"].as_f64().unwrap() - all.max() as f64 / 1000.0).abs() < 0.006);
        assert_eq!(histogram(&merged), all, "{name}: the merged latency.hdr");
        let cpu: f64 = (shard_reports.iter())
            .map(|d| summary_json(d)["cpu_seconds"].as_f64().unwrap())
            .sum();
        assert!((merged_summary["cpu_seconds"].as_f64().unwrap() - cpu).abs() < 1e-5);
        let env: Json =
            serde_json::from_str(&fs::read_to_string(merged.join("env.json")).unwrap()).unwrap();
        assert_eq!(env["parts"], 3);
        assert_eq!(env["hosts"].as_array().unwrap().len(), 1);
        assert_eq!(env["hosts"][0]["parts"], 3);
        let mut slowest: Vec<Json> = (shard_reports.iter())
            .flat_map(|d| summary_json(d)["slowest"].as_array().unwrap().clone())
            .collect();
        let micros = |record: &Json| record["micros"].as_f64().unwrap();
        slowest.sort_by(|a, b| micros(b).total_cmp(&micros(a)));
        slowest.truncate(20);
        assert_eq!(merged_summary["slowest"].as_array().unwrap(), &slowest);
        let page = fs::read_to_string(merged.join("report.html")).unwrap();
        assert!(
            page.contains("host "),
            "{name}: the merged page names its hosts"
        );
    }
}

#[test]
fn merge_refuses_shards_that_do_not_make_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let input = repo_datasets().join("connect4/games-1k.txt");
    let input = input.to_str().unwrap();
    let report = |name: &str, extra: &[&str]| {
        let path = dir.path().join(name);
        let mut args = vec!["connect4", "validate", "-q", input];
        args.extend(extra);
        args.extend(["--report", path.to_str().unwrap()]);
        run(&args);
        path.to_str().unwrap().to_string()
    };
    let one = report("one", &["--shard", "1/2"]);
    let two = report("two", &["--shard", "2/2"]);
    let ignore = report("ignore", &["--shard", "2/2", "--after-end", "ignore"]);
    let out = dir.path().join("out");
    let out = out.to_str().unwrap();
    let merge = |dirs: &[&str]| {
        let mut args = vec!["report", "merge", "-q", "-o", out];
        args.extend(dirs);
        let output = run(&args);
        assert_eq!(output.status.code(), Some(2), "{dirs:?}");
        String::from_utf8(output.stderr).unwrap()
    };
    let missing = merge(&[&one]);
    assert!(missing.contains("1 shard is missing (2/2)"), "{missing}");
    let twice = merge(&[&one, &one]);
    assert!(twice.contains("shard 1/2 is in both"), "{twice}");
    let differs = merge(&[&one, &ignore]);
    assert!(differs.contains("setting after_end"), "{differs}");
    let nothing = merge(&[&one, "/nonexistent/report"]);
    assert!(nothing.contains("cannot read /nonexistent/report/summary.json"));
    // One of the folders as the output, by its own path or another: refused, and kept.
    let summary = fs::read_to_string(dir.path().join("one/summary.json")).unwrap();
    let dotted = format!("{}/../one", two);
    for output in [one.as_str(), dotted.as_str()] {
        let ran = run(&["report", "merge", "-q", "-o", output, &one, &two]);
        assert_eq!(ran.status.code(), Some(2), "-o {output}");
        let message = String::from_utf8(ran.stderr).unwrap();
        assert!(message.contains("would replace that report"), "{message}");
    }
    assert_eq!(
        fs::read_to_string(dir.path().join("one/summary.json")).unwrap(),
        summary
    );
    // The report of an interrupted shard counts only some of its records.
    let cut = dir.path().join("cut");
    fs::create_dir(&cut).unwrap();
    for file in fs::read_dir(&one).unwrap() {
        let file = file.unwrap().path();
        fs::copy(&file, cut.join(file.file_name().unwrap())).unwrap();
    }
    let interrupted = summary.replacen('{', "{\n  \"interrupted\": true,", 1);
    fs::write(cut.join("summary.json"), interrupted).unwrap();
    let cut = cut.to_str().unwrap();
    let partial = merge(&[cut, &two]);
    assert!(
        partial.contains("is the report of an interrupted run"),
        "{partial}"
    );
    run_ok(&["report", "merge", "-q", "-o", out, &two, &one], 0);
}

#[test]
fn a_resumed_shard_counts_the_rows_it_found_and_its_report_merges() {
    let dir = tempfile::tempdir().unwrap();
    let input = repo_datasets().join("connect4/games-1k.txt");
    let input = input.to_str().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    // Some of the games are invalid: exit code 1.
    let shard = |shard: &str, extra: &[&str]| {
        let mut args = vec!["connect4", "validate", "-q", input, "--shard", shard];
        args.extend(extra);
        assert_eq!(run(&args).status.code(), Some(1), "{args:?}");
    };
    let (one, two) = (path("one"), path("two"));
    shard("1/2", &["--report", &one]);
    shard("2/2", &["--report", &two]);
    let merge = |dirs: &[&str], out: &str| {
        let mut args = vec!["report", "merge", "-q", "-o", out];
        args.extend(dirs);
        run(&args)
    };
    let whole = path("whole");
    assert!(merge(&[&one, &two], &whole).status.success());
    for (format, header) in [("csv", 1), ("jsonl", 0)] {
        let (rows, resumed) = (
            path(&format!("rows.{format}")),
            path(&format!("r-{format}")),
        );
        let args = ["-o", &rows, "--output-format", format, "--report", &resumed];
        shard("1/2", &args);
        let text = fs::read_to_string(&rows).unwrap();
        let kept: String = (text.lines().take(200 + header))
            .map(|line| format!("{line}\n"))
            .collect();
        fs::write(&rows, kept).unwrap();
        shard("1/2", &[&args[..], &["--resume"]].concat());
        assert_eq!(
            fs::read_to_string(&rows).unwrap().lines().count(),
            500 + header
        );
        // The report counts the rows it found as the uninterrupted shard counted them.
        let summary = summary_json(Path::new(&resumed));
        assert_eq!(summary["rows_from_file"], 200, "{format}");
        assert_eq!(summary.get("resumed_rows"), None, "{format}");
        assert_eq!(
            summary_counts(&summary),
            summary_counts(&summary_json(Path::new(&one))),
            "{format}"
        );
        let latency = histogram(Path::new(&resumed));
        assert_eq!(latency.len(), 500, "{format}: every record's time");
        let merged = path(&format!("merged-{format}"));
        let ran = merge(&[&resumed, &two], &merged);
        assert!(ran.status.success(), "{}", common::stderr(&ran));
        let merged = summary_json(Path::new(&merged));
        assert_eq!(
            summary_counts(&merged),
            summary_counts(&summary_json(Path::new(&whole))),
            "{format}"
        );
        assert_eq!(merged["rows_from_file"], 200);
    }
    // Without a header, the rows found are not read back: the report counts the records
    // after them, and a merge refuses it.
    let (rows, resumed) = (path("bare.csv"), path("r-bare"));
    let args = ["-o", &rows, "--no-header", "--report", &resumed];
    shard("1/2", &args);
    let text = fs::read_to_string(&rows).unwrap();
    let kept: String = text.lines().take(200).map(|l| format!("{l}\n")).collect();
    fs::write(&rows, kept).unwrap();
    shard("1/2", &[&args[..], &["--resume"]].concat());
    let summary = summary_json(Path::new(&resumed));
    assert_eq!(summary["resumed_rows"], 200);
    assert_eq!(summary["records"], 300);
    let refused = merge(&[&resumed, &two], &path("refused"));
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        common::stderr(&refused).contains(
            "is the report of a resumed run, which counted only the records after the 200 rows"
        ),
        "{}",
        common::stderr(&refused)
    );
}

#[test]
fn merge_refuses_shards_of_different_inputs_and_merges_partitions_of_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let games = repo_datasets().join("connect4/games-1k.txt");
    let text = fs::read_to_string(&games).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    let ten_a = common::write(dir.path(), "ten_a.txt", lines[..10].join("\n") + "\n");
    let ten_b = common::write(dir.path(), "ten_b.txt", lines[100..110].join("\n") + "\n");
    let report = |name: &str, input: &Path, shard: &str| {
        let path = dir.path().join(name);
        let args = [
            "connect4",
            "validate",
            "-q",
            input.to_str().unwrap(),
            "--shard",
            shard,
            "--report",
            path.to_str().unwrap(),
        ];
        assert!(run(&args).status.code().is_some_and(|code| code < 2));
        path
    };
    let (a, b) = (report("mA", &ten_a, "1/2"), report("mB", &ten_b, "2/2"));
    let out = dir.path().join("mM");
    let output = run(&[
        "report",
        "merge",
        "-q",
        "-o",
        out.to_str().unwrap(),
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(output.stderr).unwrap().trim_end(),
        format!(
            "puzzlebench: {} reports inputs {}, but {} reports {}: only reports of the same \
             command, inputs, settings and build merge",
            b.display(),
            ten_b.display(),
            a.display(),
            ten_a.display()
        )
    );
    assert!(!out.exists(), "nothing is written");
    // An engine's partitions all read standard input, different records each: they merge.
    let partition = |name: &str, records: &[&str]| {
        let path = dir.path().join(name);
        let args = ["connect4", "validate", "-q", "-", "--report"];
        let mut args = args.to_vec();
        args.push(path.to_str().unwrap());
        let input = records.join("\n") + "\n";
        let output = run_with_stdin(&args, input.as_bytes());
        assert!(output.status.code().is_some_and(|code| code < 2));
        path
    };
    let (p1, p2) = (
        partition("p1", &lines[..10]),
        partition("p2", &lines[10..25]),
    );
    run_ok(
        &[
            "report",
            "merge",
            "-q",
            "-o",
            out.to_str().unwrap(),
            p1.to_str().unwrap(),
            p2.to_str().unwrap(),
        ],
        0,
    );
    let merged = summary_json(&out);
    assert_eq!(merged["inputs"], serde_json::json!(["-"]));
    assert_eq!(merged["records"], 25);
}

#[test]
fn merge_refuses_impossible_times_and_counts_and_a_foreign_env_json() {
    let dir = tempfile::tempdir().unwrap();
    let input = repo_datasets().join("connect4/games-1k.txt");
    let report = |name: &str, shard: &str| {
        let path = dir.path().join(name);
        let args = [
            "connect4",
            "validate",
            "-q",
            input.to_str().unwrap(),
            "--shard",
            shard,
        ];
        let mut args = args.to_vec();
        args.extend(["--report", path.to_str().unwrap()]);
        run(&args);
        path
    };
    let one = report("one", "1/2");
    let two = report("two", "2/2");
    let part = dir.path().join("part");
    fs::create_dir(&part).unwrap();
    let out = dir.path().join("out");
    // `part` is a copy of `one` with `change` made to its summary.json (or env.json).
    let merge = |file: &str, change: &dyn Fn(&mut Json)| {
        for name in ["summary.json", "env.json", "latency.hdr"] {
            fs::copy(one.join(name), part.join(name)).unwrap();
        }
        let mut json: Json =
            serde_json::from_str(&fs::read_to_string(one.join(file)).unwrap()).unwrap();
        change(&mut json);
        fs::write(part.join(file), json.to_string()).unwrap();
        let (part, two) = (part.to_str().unwrap(), two.to_str().unwrap());
        let output = run(&[
            "report",
            "merge",
            "-q",
            "-o",
            out.to_str().unwrap(),
            part,
            two,
        ]);
        let stderr = String::from_utf8(output.stderr).unwrap();
        (output.status.code(), stderr)
    };
    let summary = part.join("summary.json");
    for field in ["wall_seconds", "cpu_seconds"] {
        for value in [1e19, 1e20, 1e308, -1.0] {
            let (code, stderr) = merge("summary.json", &|json| json[field] = value.into());
            assert_eq!(code, Some(2), "{field} {value}: {stderr}");
            assert_eq!(
                stderr.trim_end(),
                format!(
                    "puzzlebench: {} is not a puzzlebench report file: {field} is {value:?}, \
                     not a number of seconds a run can take",
                    summary.display()
                )
            );
        }
    }
    let records = |json: &Json| json["records"].as_u64().unwrap();
    // More rows counted from a resumed run's file than it has records.
    let (code, stderr) = merge("summary.json", &|json| {
        json["rows_from_file"] = (records(json) + 1).into();
    });
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("rows_from_file is 501, more than its 500 records"),
        "{stderr}"
    );
    let first_status = |json: &Json| json["statuses"].as_object().unwrap().keys().next().cloned();
    // Statuses that do not add up to the records.
    let (code, stderr) = merge("summary.json", &|json| {
        json["records"] = (records(json) + 1).into();
    });
    assert_eq!(code, Some(2), "{stderr}");
    let counted = records(&summary_json(&one));
    assert!(
        stderr.contains(&format!(
            "{} reports {} records, but its counts per status add up to {counted}",
            part.display(),
            counted + 1
        )),
        "{stderr}"
    );
    // Records that add up to more than a u64, statuses and all.
    let (code, stderr) = merge("summary.json", &|json| {
        let status = first_status(json).unwrap();
        let added = u64::MAX - records(json);
        let n = json["statuses"][&status].as_u64().unwrap();
        json["statuses"][&status] = (n + added).into();
        json["records"] = u64::MAX.into();
    });
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("the folders' records add up to more than a report can hold"),
        "{stderr}"
    );
    // An env.json that is no run's or merge's: said in its own terms.
    let (code, stderr) = merge("env.json", &|json| *json = serde_json::json!({}));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("env.json is not a puzzlebench report file: missing field `tool`"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("PartEnv") && !stderr.contains("enum"),
        "{stderr}"
    );
    // Unchanged, the copy merges.
    let (code, stderr) = merge("summary.json", &|_| {});
    assert_eq!(code, Some(0), "{stderr}");
}

/// The report folder `DIR/good` of validating the repository's 1,000 Connect Four games.
fn connect4_report(dir: &Path) -> PathBuf {
    let input = repo_datasets().join("connect4/games-1k.txt");
    let good = dir.join("good");
    run_ok(
        &[
            "connect4",
            "validate",
            "-q",
            input.to_str().unwrap(),
            "--report",
            good.to_str().unwrap(),
        ],
        1,
    );
    good
}

/// The files `report merge` reads of the report folder `from`, copied into `to`.
fn copy_report(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for name in ["summary.json", "env.json", "latency.hdr"] {
        fs::copy(from.join(name), to.join(name)).unwrap();
    }
}

#[test]
fn merge_says_plainly_what_is_wrong_with_a_histogram_and_reads_json_after_a_bom() {
    let dir = tempfile::tempdir().unwrap();
    let good = connect4_report(dir.path());
    let part = dir.path().join("part");
    copy_report(&good, &part);
    let out = dir.path().join("out");
    let merge = || {
        run(&[
            "report",
            "merge",
            "-q",
            "-o",
            out.to_str().unwrap(),
            part.to_str().unwrap(),
        ])
    };
    // Summaries saved by an editor that puts a byte order mark first.
    for file in ["summary.json", "env.json"] {
        let mut bytes = b"\xEF\xBB\xBF".to_vec();
        bytes.extend(fs::read(good.join(file)).unwrap());
        fs::write(part.join(file), bytes).unwrap();
    }
    let output = merge();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(histogram(&out), histogram(&good));
    let histogram_file = part.join("latency.hdr");
    let whole = fs::read(good.join("latency.hdr")).unwrap();
    for (bytes, damage) in [
        (&whole[..10], "is cut short"),
        (
            &b"not a histogram at all"[..],
            "is not a latency histogram puzzlebench wrote",
        ),
    ] {
        fs::write(&histogram_file, bytes).unwrap();
        let output = merge();
        assert_eq!(output.status.code(), Some(2));
        assert_eq!(
            String::from_utf8_lossy(&output.stderr).trim_end(),
            format!("puzzlebench: {} {damage}", histogram_file.display())
        );
    }
}

#[test]
fn merge_refuses_a_report_file_larger_than_any_report_holds() {
    let dir = tempfile::tempdir().unwrap();
    let good = connect4_report(dir.path());
    let part = dir.path().join("part");
    let out = dir.path().join("out");
    for file in ["summary.json", "env.json", "latency.hdr"] {
        copy_report(&good, &part);
        // A sparse file one byte over 16 MiB: no disk space, and no report holds as much.
        let big = fs::File::create(part.join(file)).unwrap();
        big.set_len((16 << 20) + 1).unwrap();
        let output = run(&[
            "report",
            "merge",
            "-q",
            "-o",
            out.to_str().unwrap(),
            part.to_str().unwrap(),
        ]);
        assert_eq!(output.status.code(), Some(2), "{file}");
        assert_eq!(
            String::from_utf8(output.stderr).unwrap().trim_end(),
            format!(
                "puzzlebench: {} is larger than 16 MiB: not a file of a report puzzlebench wrote",
                part.join(file).display()
            )
        );
        // Exactly 16 MiB is read, and refused for what it holds.
        big.set_len(16 << 20).unwrap();
        let output = run(&[
            "report",
            "merge",
            "-q",
            "-o",
            out.to_str().unwrap(),
            part.to_str().unwrap(),
        ]);
        assert_eq!(output.status.code(), Some(2), "{file}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(!stderr.contains("larger than"), "{file}: {stderr}");
    }
}

#[test]
fn every_batch_command_carries_the_other_csv_columns() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let puzzle =
        "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......";
    let sudoku = write(
        "sudoku.csv",
        &format!(
            "id,puzzle,note\np1,{puzzle},\"a, b\"\np2,12x,bad\np3,{puzzle}\np4,{puzzle},n4,extra\n"
        ),
    );
    let text = run_ok(&["sudoku", "solve", &sudoku, "--column", "puzzle"], 1);
    let (header, rows) = parse_csv(&text);
    assert_eq!(header[..5], ["line", "status", "id", "note", "solutions"]);
    assert_eq!(cell(&header, &rows[0], "id"), "p1");
    assert_eq!(cell(&header, &rows[0], "note"), "a, b");
    assert_eq!(cell(&header, &rows[0], "status"), "solved");
    // An error row keeps its key too.
    assert_eq!(cell(&header, &rows[1], "id"), "p2");
    assert_eq!(cell(&header, &rows[1], "status"), "error");
    // So does a row of the wrong width: the fields it has are carried.
    assert_eq!(cell(&header, &rows[2], "id"), "p3");
    assert_eq!(cell(&header, &rows[2], "note"), "");
    assert_eq!(
        cell(&header, &rows[2], "error"),
        "the row has 2 fields but the header has 3"
    );
    assert_eq!(cell(&header, &rows[3], "id"), "p4");
    assert_eq!(cell(&header, &rows[3], "note"), "n4");
    assert_eq!(cell(&header, &rows[3], "status"), "error");

    let positions = write(
        "positions.csv",
        "game,moves,score\ng1,2252576253462244111563365343671351441,-1\ng2,zz,0\n",
    );
    let text = run_ok(&["connect4", "solve", &positions], 1);
    let (header, rows) = parse_csv(&text);
    assert_eq!(header[..4], ["line", "status", "game", "result"]);
    assert_eq!(cell(&header, &rows[0], "game"), "g1");
    assert_eq!(cell(&header, &rows[0], "score"), "-1");
    assert_eq!(cell(&header, &rows[0], "expected"), "match");
    assert_eq!(cell(&header, &rows[1], "game"), "g2");

    let field = fs::read_to_string(repo_datasets().join("battleship/seed-field.txt")).unwrap();
    let field: String = field
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .collect::<Vec<_>>()
        .join(" ");
    let fields = write(
        "fields.csv",
        &format!("field,owner\n\"{field}\",ann\n\"0 1\",bob\n"),
    );
    let text = run_ok(&["battleship", "validate", &fields], 1);
    let (header, rows) = parse_csv(&text);
    assert_eq!(header[..4], ["line", "status", "owner", "size"]);
    assert_eq!(cell(&header, &rows[0], "owner"), "ann");
    assert_eq!(cell(&header, &rows[0], "status"), "valid");
    assert_eq!(cell(&header, &rows[1], "owner"), "bob");
    let no_field = write("nofield.csv", "cells,owner\n0,ann\n");
    let output = run(&["battleship", "validate", &no_field]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("a column named field"));

    // A carried column named as one of the row's own gets a prefix.
    let generated = repo_datasets().join("sudoku/generated-1k.csv");
    let text = run_ok(&["sudoku", "solve", generated.to_str().unwrap()], 0);
    let header = parse_csv(&text).0;
    assert_eq!(
        header,
        [
            "line",
            "status",
            "clues",
            "input_guesses",
            "difficulty",
            "solutions",
            "guesses",
            "solution",
            "expected",
            "error",
            "micros"
        ]
    );

    // A line input after a CSV input: its carried cells are empty.
    let lines = write("more.txt", &format!("{puzzle}\n"));
    let text = run_ok(
        &["sudoku", "solve", &sudoku, &lines, "--column", "puzzle"],
        1,
    );
    let (header, rows) = parse_csv(&text);
    assert_eq!(header[..5], ["file", "line", "status", "id", "note"]);
    assert_eq!(rows.len(), 5);
    assert_eq!(cell(&header, &rows[4], "id"), "");
    assert_eq!(cell(&header, &rows[4], "status"), "solved");
}

#[test]
fn filter_mode_reads_stdin_writes_rows_and_exits_zero_on_bad_records() {
    let input =
        b"4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......\n\
                  # a comment\n\nnot a sudoku\n";
    let output = run_with_stdin(&["sudoku", "solve", "--filter"], input);
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].starts_with("1,solved,1,"), "{text}");
    assert!(lines[1].starts_with("4,error,"), "{text}");
    assert!(output.stderr.is_empty());
    // Without --filter the same input exits 1; --no-header alone only drops the header.
    let plain = run_with_stdin(&["sudoku", "solve", "--no-header"], input);
    assert_eq!(plain.status.code(), Some(1));
    let without_micros = |t: &str| -> Vec<String> {
        t.lines()
            .map(|l| l[..l.rfind(',').unwrap()].to_string())
            .collect()
    };
    assert_eq!(
        without_micros(&String::from_utf8(plain.stdout).unwrap()),
        without_micros(&text)
    );
    // A run that cannot proceed still fails: the engine retries it.
    let bad = run_with_stdin(
        &["sudoku", "solve", "--filter", "--format", "csv"],
        b"a,b\n",
    );
    assert_eq!(bad.status.code(), Some(0), "a header alone is an empty run");
    // `-` names standard input, which --filter reads; a file it refuses.
    let dash = run_with_stdin(&["sudoku", "solve", "--filter", "-"], input);
    assert_eq!(dash.status.code(), Some(0));
    assert_eq!(
        without_micros(&String::from_utf8(dash.stdout).unwrap()),
        without_micros(&text)
    );
    let usage = run(&["sudoku", "solve", "--filter", "datasets/sudoku/mixed.txt"]);
    assert_eq!(usage.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&usage.stderr).trim_end(),
        "puzzlebench: --filter reads standard input only: give no file, or -, not \
         datasets/sudoku/mixed.txt"
    );
    let shard = run(&["sudoku", "solve", "--shard", "3/2"]);
    assert_eq!(shard.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&shard.stderr)
        .contains("shard 3/2: K counts from 1 to N, so 3 is not a shard of 2"));
}

#[test]
fn a_shard_resumes_and_keeps_budgets() {
    let dir = tempfile::tempdir().unwrap();
    // Good puzzles, bad lines, and one that needs more guesses than the budget.
    let mut text = String::new();
    let hard = "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4..";
    for i in 0..60 {
        match i % 10 {
            3 | 4 => text.push_str("this is not a sudoku\n"),
            7 => text.push_str("# comment\n\n"),
            _ if (40..43).contains(&i) => text.push_str(&format!("{hard}\n")),
            _ => text.push_str(
                "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......\n",
            ),
        }
    }
    let input = dir.path().join("mixed.txt");
    fs::write(&input, &text).unwrap();
    let input = input.to_str().unwrap();
    let out = dir.path().join("shard.csv");
    let out = out.to_str().unwrap();
    let args = |extra: &[&'static str]| {
        let mut args = vec!["sudoku", "solve", "-q", input, "--max-nodes", "20"];
        args.extend(["--shard", "2/3", "-o", out]);
        args.extend(extra);
        args
    };
    run_ok(&args(&[]), 1);
    let whole = fs::read_to_string(out).unwrap();
    let (header, rows) = parse_csv(&whole);
    let records = text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .count();
    assert_eq!(rows.len(), (0..records).filter(|i| i % 3 == 1).count());
    let statuses: Vec<&str> = rows.iter().map(|r| cell(&header, r, "status")).collect();
    assert!(
        statuses.contains(&"error") && statuses.contains(&"timeout"),
        "{statuses:?}"
    );
    // Cut the results file after its fifth row and a torn sixth: --resume completes it.
    let keep: usize = whole.lines().take(6).map(|l| l.len() + 1).sum();
    fs::write(out, format!("{}4,sol", &whole[..keep])).unwrap();
    run_ok(&args(&["--resume"]), 1);
    assert_eq!(
        fs::read_to_string(out).unwrap().lines().count(),
        whole.lines().count()
    );
    let strip = |t: &str| {
        let (h, r) = parse_csv(t);
        let m = h.iter().position(|c| c == "micros").unwrap();
        r.into_iter()
            .map(|mut row| {
                row.remove(m);
                row
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&fs::read_to_string(out).unwrap()), strip(&whole));
}

#[test]
fn merge_refuses_records_that_would_count_twice_or_come_from_other_records() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let input = repo_datasets().join("sudoku/generated-1k.csv");
    let text = fs::read_to_string(&input).unwrap();
    let input = input.to_str().unwrap();
    let report = |name: &str, input: &str, extra: &[&str]| {
        let mut args = vec!["sudoku", "solve", "-q", input, "-o", "/dev/null"];
        args.extend(extra);
        let folder = path(name);
        args.extend(["--report", &folder]);
        run_ok(&args, 0);
        folder
    };
    let merge = |dirs: &[&str]| {
        let out = path("merged");
        let mut args = vec!["report", "merge", "-q", "-o", &out];
        args.extend(dirs);
        let output = run(&args);
        assert_eq!(output.status.code(), Some(2), "{dirs:?}");
        String::from_utf8(output.stderr).unwrap()
    };
    // Two runs over every record of one file, or one report given twice.
    let whole = report("whole", input, &[]);
    let twice = merge(&[&whole, &whole]);
    assert!(twice.contains("are the same report folder"), "{twice}");
    let again = report("again", input, &[]);
    let both = merge(&[&whole, &again]);
    assert!(both.contains("each ran over every record of"), "{both}");
    // Shards whose settings differ in an option left at its default by one of them.
    let one = report("one", input, &["--shard", "1/2"]);
    let two = report(
        "two",
        input,
        &["--shard", "2/2", "--expected-column", "solution"],
    );
    let column = merge(&[&one, &two]);
    assert!(column.contains("setting expected_column"), "{column}");
    // Shards of an input that grew between them.
    let grown = path("grown.csv");
    fs::write(
        &grown,
        text.lines().take(101).collect::<Vec<_>>().join("\n") + "\n",
    )
    .unwrap();
    let first = report("first", &grown, &["--shard", "1/2"]);
    fs::write(&grown, &text).unwrap();
    let second = report("second", &grown, &["--shard", "2/2"]);
    let changed = merge(&[&first, &second]);
    assert!(
        changed.contains("shard 1/2 (") && changed.contains("holds 50 records, but one split"),
        "{changed}"
    );
    let two = report("two-plain", input, &["--shard", "2/2"]);
    run_ok(
        &["report", "merge", "-q", "-o", &path("fine"), &one, &two],
        0,
    );
    // A bench report is named as one.
    let bench = path("bench-report");
    fs::create_dir(&bench).unwrap();
    fs::write(
        Path::new(&bench).join("summary.json"),
        r#"{"suite": "s", "runs": []}"#,
    )
    .unwrap();
    let named = merge(&[&one, &bench]);
    assert!(named.contains("is a `puzzlebench bench` report"), "{named}");
    // A named pipe among a report's files is refused, not waited on.
    let piped = path("piped");
    copy_report(Path::new(&two), Path::new(&piped));
    fs::remove_file(Path::new(&piped).join("env.json")).unwrap();
    common::make_fifo(&Path::new(&piped).join("env.json"));
    let pipe = merge(&[&one, &piped]);
    assert!(pipe.contains("not a regular file"), "{pipe}");
    // A link in the output folder is replaced, not written through.
    let out = path("linked");
    fs::create_dir(&out).unwrap();
    let shard_summary = Path::new(&one).join("summary.json");
    let before = fs::read_to_string(&shard_summary).unwrap();
    std::os::unix::fs::symlink(&shard_summary, Path::new(&out).join("summary.json")).unwrap();
    run_ok(&["report", "merge", "-q", "-o", &out, &one, &two], 0);
    assert_eq!(fs::read_to_string(&shard_summary).unwrap(), before);
    let merged = summary_json(Path::new(&out));
    assert_eq!(merged["records"], 1000);
}
