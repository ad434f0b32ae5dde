//! `puzzlebench bench`: run a suite, print a table, write the report folder.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand};

use puzzlebench::bench::{
    self, BenchSummary, Comparison, Event, External, Overrides, SavedReport, Suite,
};
use puzzlebench::kinds;
use puzzlebench::report::{self, EnvInfo};

use super::{exit_code, say};

/// Compare algorithms, datasets and thread counts; write a report folder.
#[derive(Debug, Args)]
pub(super) struct BenchArgs {
    #[command(subcommand)]
    command: Option<BenchCommand>,
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
    /// Compare this run with baseline NAME (kept under REPORTS/baselines/), or keep this
    /// run as NAME when there is none yet.
    #[arg(long, value_name = "NAME")]
    baseline: Option<String>,
    /// Keep this run as baseline NAME, replacing an older one.
    #[arg(long, value_name = "NAME")]
    save_baseline: Option<String>,
    #[command(flatten)]
    gate: GateArgs,
    /// No progress lines on standard error.
    #[arg(short, long)]
    quiet: bool,
}

#[derive(Debug, Subcommand)]
enum BenchCommand {
    /// Compare two report folders (OLD, then NEW): each measurement's speed ratio with its
    /// 95% interval, faster/slower/unchanged; writes compare.* and report.html into NEW.
    Compare {
        /// The earlier report folder.
        old: PathBuf,
        /// The later one.
        new: PathBuf,
        #[command(flatten)]
        gate: GateArgs,
    },
}

/// How a comparison judges changes.
#[derive(Debug, Args)]
struct GateArgs {
    /// Changes below PCT% of the old speed count as noise.
    #[arg(long, value_name = "PCT", default_value_t = bench::DEFAULT_NOISE * 100.0)]
    noise: f64,
    /// Exit code 1 when a measurement is slower than the old run by more than PCT%
    /// (beyond its 95% interval).
    #[arg(long, value_name = "PCT")]
    fail_if_slower: Option<f64>,
}

impl GateArgs {
    /// Compares the reports in `old` and `new`, writes the comparison into `new`, prints
    /// it; returns how many measurements fail the gate.
    fn compare(&self, old: &Path, new: &Path) -> Result<usize> {
        for pct in [Some(self.noise), self.fail_if_slower]
            .into_iter()
            .flatten()
        {
            anyhow::ensure!(
                (0.0..100.0).contains(&pct),
                "--noise and --fail-if-slower take a percentage from 0 to 100, not {pct}"
            );
        }
        let (old, new) = (SavedReport::load(old)?, SavedReport::load(new)?);
        let comparison = Comparison::new(old.side(), new.side(), self.noise / 100.0);
        bench::write_comparison(&new, &comparison)?;
        let failing = self
            .fail_if_slower
            .map_or(0, |pct| comparison.slower_than(pct / 100.0).len());
        let mut out = report::standard_output()?.lock();
        out.write_all(comparison.to_text().as_bytes())?;
        if let Some(pct) = self.fail_if_slower {
            writeln!(out, "{failing} measurements slower by more than {pct}%")?;
        }
        writeln!(
            out,
            "comparison: {}",
            new.dir.join(bench::PAGE_FILE).display()
        )?;
        Ok(failing)
    }
}

pub(super) fn run_bench(args: BenchArgs) -> Result<ExitCode> {
    if let Some(BenchCommand::Compare { old, new, gate }) = &args.command {
        return Ok(exit_code(gate.compare(old, new)? as u64));
    }
    let (suite, base) = Suite::load(args.suite.as_deref(), &kinds::all())?;
    let overrides = Overrides {
        datasets_dir: args.datasets,
        algorithms: args.algos,
        threads: args.threads,
        quick: args.quick,
        cache: None,
    };
    let plan = suite.plan(&base, &overrides)?;
    let started = std::time::Instant::now();
    let quiet = args.quiet;
    let mut on_event = |event: Event<'_>| match event {
        _ if quiet => {}
        Event::Started { .. } | Event::Generating(_) => say(&event.to_string()),
        Event::Finished(_) | Event::Generated(_) => say(&format!("{event}\n")),
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
    drop(out);
    let mut failed = summary.total_disagreements() + summary.failures();
    let kept = bench::baseline_folder(&args.reports, args.baseline.as_deref().unwrap_or(""));
    match &args.baseline {
        Some(_) if kept.join("summary.json").is_file() => {
            failed += args.gate.compare(&kept, &dir)? as u64;
        }
        Some(name) => say(&format!(
            "baseline {name}: none yet, this run is kept as it ({})\n",
            bench::save_baseline(&dir, &args.reports, name)?.display()
        )),
        None => {}
    }
    if let Some(name) = &args.save_baseline {
        let kept = bench::save_baseline(&dir, &args.reports, name)?;
        say(&format!("kept as baseline {name}: {}\n", kept.display()));
    }
    Ok(exit_code(failed))
}
