//! `puzzlebench bench`: run a suite, print a table, write the report folder.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;

use puzzlebench::bench::{self, BenchSummary, Event, External, Overrides, Suite};
use puzzlebench::kinds;
use puzzlebench::report::EnvInfo;

use super::exit_code;

/// Compare algorithms, datasets and thread counts; write a report folder.
#[derive(Debug, Args)]
pub(super) struct BenchArgs {
    /// Suite file (TOML). Default: the built-in suite over the repository's own datasets/
    /// (benches/suites/default.toml), run from the repository root.
    #[arg(long, value_name = "FILE")]
    suite: Option<PathBuf>,
    /// Run the suite's kinds on the data files of DIR instead: DIR/sudoku/, DIR/connect4/…,
    /// or DIR itself when it is named after a kind (e.g. ../shared/datasets/sudoku).
    #[arg(long, value_name = "DIR")]
    datasets: Option<PathBuf>,
    /// Only these algorithms, comma-separated (e.g. dlx,backtrack).
    #[arg(long, value_delimiter = ',', value_name = "ALGOS")]
    algos: Option<Vec<String>>,
    /// Thread counts to compare, comma-separated (e.g. 1,2).
    #[arg(long, value_delimiter = ',', value_name = "COUNTS")]
    threads: Option<Vec<usize>>,
    /// One timed run per measurement and no warm-up: a quick look, not figures to publish.
    #[arg(long)]
    quick: bool,
    /// Add a program to compare on the Sudoku datasets, as NAME='COMMAND': it reads puzzles
    /// on standard input, one per line, and writes one solution per line. Timed as a whole
    /// process; its solutions are checked against ours. Repeatable.
    #[arg(long, value_name = "NAME=COMMAND", value_parser = parse_external)]
    external: Vec<External>,
    /// Last part of the report folder's name (default: the suite's name).
    #[arg(long)]
    label: Option<String>,
    /// Where report folders are made.
    #[arg(long, value_name = "DIR", default_value = "reports")]
    reports: PathBuf,
    /// No progress lines on standard error.
    #[arg(short, long)]
    quiet: bool,
}

fn parse_external(text: &str) -> Result<External, String> {
    let (name, command) = text
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=COMMAND, got {text:?}"))?;
    let (name, command) = (name.trim(), command.trim());
    if name.is_empty() || command.is_empty() {
        return Err(format!("expected NAME=COMMAND, got {text:?}"));
    }
    Ok(External {
        name: name.to_string(),
        command: command.to_string(),
    })
}

pub(super) fn run_bench(args: BenchArgs) -> Result<ExitCode> {
    let (suite, base) = read_suite(args.suite.as_deref())?;
    let overrides = Overrides {
        datasets_dir: args.datasets.clone(),
        algorithms: args.algos.clone(),
        threads: args.threads.clone(),
        quick: args.quick,
    };
    let plan = suite.plan(&base, &overrides)?;
    let started = std::time::Instant::now();
    let quiet = args.quiet;
    let mut on_event = |event: Event<'_>| {
        if !quiet {
            print_event(event);
        }
    };
    let results = bench::run_plan(&plan, &args.external, &mut on_event)?;
    let summary = BenchSummary::new(&plan.name, &results);
    let threads = plan.threads.iter().copied().max().unwrap_or(1);
    let env = EnvInfo::collect(threads, std::env::args().collect());
    let label = args.label.as_deref().unwrap_or(&plan.name);
    let dir = bench::report_folder(&args.reports, &env, label)?;
    bench::write_report(&dir, &summary, &results, &env)?;

    let mut out = io::stdout().lock();
    out.write_all(summary.to_text().as_bytes())?;
    let total = summary.total_disagreements();
    let failures = summary.failures();
    writeln!(
        out,
        "{} measurements in {:.0} s; {}{}; report: {}",
        summary.runs.len(),
        started.elapsed().as_secs_f64(),
        if total == 0 {
            "all runs agree".to_string()
        } else {
            format!("{total} records DISAGREE (listed in the report)")
        },
        if failures == 0 {
            String::new()
        } else {
            format!("; {failures} runs FAILED")
        },
        dir.join("summary.md").display()
    )?;
    Ok(exit_code(total + failures))
}

/// The suite file and the folder its dataset paths are relative to (the built-in suite's
/// are relative to the current folder).
fn read_suite(path: Option<&Path>) -> Result<(Suite, PathBuf)> {
    let Some(path) = path else {
        let suite = Suite::parse(bench::DEFAULT_SUITE, "default", &kinds::all())?;
        return Ok((suite, PathBuf::from(".")));
    };
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read suite {}", path.display()))?;
    let suite = Suite::parse(&text, &path.display().to_string(), &kinds::all())?;
    let base = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok((suite, base))
}

/// One line per measurement on standard error, as it starts and ends.
fn print_event(event: Event<'_>) {
    match event {
        Event::Started {
            index,
            total,
            dataset,
            algorithm,
            threads,
        } => eprint!(
            "[{index:>3}/{total}] {dataset} · {algorithm} · {} … ",
            bench::threads_text(threads)
        ),
        Event::Finished(result) if result.failure.is_some() => {
            eprintln!("FAILED: {}", result.failure.as_deref().unwrap_or_default())
        }
        Event::Finished(result) => eprintln!(
            "{} records/s ({} run{}){}",
            bench::thousands(bench::median(&result.rates)),
            result.rates.len(),
            if result.rates.len() == 1 { "" } else { "s" },
            if result.disagreements > 0 {
                format!(", {} DISAGREE", result.disagreements)
            } else {
                String::new()
            }
        ),
    }
}
