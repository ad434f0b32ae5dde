//! `puzzlebench bench`: run a suite, print a table, write the report folder.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use puzzlebench::bench::{self, BenchSummary, Event, External, Overrides, Suite};
use puzzlebench::kinds;
use puzzlebench::report::{self, EnvInfo};

use super::{exit_code, say};

/// Compare algorithms, datasets and thread counts; write a report folder.
#[derive(Debug, Args)]
pub(super) struct BenchArgs {
    /// Suite file (TOML). Default: the built-in suite over the repository's own datasets/
    /// (benches/suites/default.toml), run from the repository root.
    #[arg(long, value_name = "FILE")]
    suite: Option<PathBuf>,
    /// Run the suite's kinds on the data files of DIR instead: DIR/sudoku/, DIR/connect4/…,
    /// or DIR itself when it is named after a kind (e.g. corpora/sudoku).
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
    #[arg(long, value_name = "NAME=COMMAND", value_parser = clap::value_parser!(External))]
    external: Vec<External>,
    /// Time one run of an --external program may take (`30s`, `5m`): past it, the program
    /// is killed and its measurement fails.
    #[arg(long, value_name = "DURATION", default_value = "10m", value_parser = humantime::parse_duration)]
    external_timeout: std::time::Duration,
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

pub(super) fn run_bench(args: BenchArgs) -> Result<ExitCode> {
    let (suite, base) = Suite::load(args.suite.as_deref(), &kinds::all())?;
    let overrides = Overrides {
        datasets_dir: args.datasets,
        algorithms: args.algos,
        threads: args.threads,
        quick: args.quick,
    };
    let plan = suite.plan(&base, &overrides)?;
    let started = std::time::Instant::now();
    let quiet = args.quiet;
    let mut on_event = |event: Event<'_>| match event {
        _ if quiet => {}
        Event::Started { .. } => say(&event.to_string()),
        Event::Finished(_) => say(&format!("{event}\n")),
    };
    let externals: Vec<External> = args
        .external
        .into_iter()
        .map(|external| External {
            timeout: Some(args.external_timeout),
            ..external
        })
        .collect();
    let results = bench::run_plan(&plan, &externals, &mut on_event)?;
    let summary = BenchSummary::new(&plan.name, &results);
    let threads = plan.threads.iter().copied().max().unwrap_or(1);
    let env = EnvInfo::collect(threads, std::env::args().collect());
    let label = args.label.as_deref().unwrap_or(&plan.name);
    let dir = bench::report_folder(&args.reports, &env, label)?;
    bench::write_report(&dir, &summary, &results, &env)?;
    let mut out = report::standard_output()?.lock();
    out.write_all(summary.to_text().as_bytes())?;
    let seconds = started.elapsed().as_secs_f64();
    writeln!(out, "{}", summary.closing_line(seconds, &dir))?;
    let failed = summary.total_disagreements() + summary.failures();
    Ok(exit_code(failed))
}
