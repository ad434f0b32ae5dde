//! `puzzlebench bench`: run a suite, print a table, write the report folder.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};

use puzzlebench::batch::Interruption;
use puzzlebench::bench::{self, BenchSummary, Event, Overrides, Suite};
use puzzlebench::kinds;
use puzzlebench::report::{self, EnvInfo};

use super::{command_line, exit_code, say};

/// Compare algorithms, datasets and thread counts; write a report folder.
#[derive(Debug, Args)]
pub(super) struct BenchArgs {
    #[command(subcommand)]
    command: Option<BenchCommand>,
    /// Suite file (TOML). Default: the built-in suite over the repository's own datasets/
    /// (benches/suites/default.toml), run from the repository root.
    #[arg(long, value_name = "FILE")]
    suite: Option<PathBuf>,
    #[command(flatten)]
    overrides: Overrides,
    #[command(flatten)]
    externals: bench::Externals,
    /// Last part of the report folder's name (default: the suite's name).
    #[arg(long)]
    label: Option<String>,
    /// Where report folders are made.
    #[arg(long, value_name = "DIR", default_value = "reports")]
    reports: PathBuf,
    #[command(flatten)]
    baselines: bench::Baselines,
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
        gate: bench::Gate,
    },
}

pub(super) fn run_bench(args: BenchArgs) -> Result<ExitCode> {
    if let Some(BenchCommand::Compare { old, new, gate }) = &args.command {
        return Ok(exit_code(print(gate.compare(old, new)?)?));
    }
    // The table goes to standard output: closed, it would be lost after the measuring.
    if report::standard_output().is_err() {
        anyhow::bail!(
            "standard output is closed: bench prints its table there (open it, e.g. > /dev/null)"
        );
    }
    let (suite, base) = Suite::load(args.suite.as_deref(), &kinds::all())?;
    let plan = suite.plan(&base, &args.overrides)?;
    let started = std::time::Instant::now();
    let quiet = args.quiet;
    // A line begun (`generating FILE … `) and not ended when the run is interrupted.
    let mid_line = std::cell::Cell::new(false);
    let mut on_event = |event: Event<'_>| match event {
        _ if quiet => {}
        Event::Started { .. } | Event::Generating(_) => {
            mid_line.set(true);
            say(&event.to_string())
        }
        Event::Finished(_) | Event::Generated(_) | Event::InTurns { .. } => {
            mid_line.set(false);
            say(&format!("{event}\n"))
        }
    };
    // The first Ctrl-C or SIGTERM ends the measurement under way; those finished are
    // reported. A second one exits at once.
    let interruption = Interruption::install().context("cannot install the signal handlers")?;
    let stop = interruption.flag();
    let externals = args.externals.timed();
    bench::check_external_names(&externals, &plan)?;
    args.baselines.check(&args.reports)?;
    let threads = plan.threads.iter().copied().max().unwrap_or(1);
    let env = EnvInfo::collect(threads, command_line());
    let label = args.label.as_deref().unwrap_or(&plan.name);
    // Made before measuring: a folder that cannot be made (`--reports` a file, a label too
    // long for a name) is said at once, not after the measurements, which it would lose.
    let reports_existed = args.reports.exists();
    let dir = bench::report_folder(&args.reports, &env, label)?;
    // Without a measurement there is no report: the folders made for it go again (each
    // only if empty, as `remove_dir` leaves a folder that holds anything).
    let remove_folders = || {
        let _ = std::fs::remove_dir(&dir);
        if !reports_existed {
            let _ = std::fs::remove_dir(&args.reports);
        }
    };
    let run = bench::run_plan(&plan, &externals, Some(&stop), &mut on_event);
    let run = match run {
        Ok(run) if !(run.interrupted && run.results.is_empty()) => run,
        Ok(_) => {
            remove_folders();
            if mid_line.get() {
                say("\n");
            }
            say("puzzlebench: interrupted before any measurement was done: no report written\n");
            return Ok(ExitCode::from(interruption.exit_code()));
        }
        Err(error) => {
            remove_folders();
            return Err(error.into());
        }
    };
    if run.interrupted && mid_line.get() {
        say("\n");
    }
    let summary = BenchSummary::of_run(&plan.name, &run);
    let results = &run.results;
    bench::write_report(&dir, &summary, results, &env)?;
    let seconds = started.elapsed().as_secs_f64();
    let closing = summary.closing_line(seconds, &dir);
    show(&format!("{}{closing}\n", summary.to_text()))?;
    let mut failed = summary.total_disagreements() + summary.failures();
    if run.interrupted {
        if args.baselines.baseline.is_some() || args.baselines.save_baseline.is_some() {
            say(
                "puzzlebench: an interrupted run is neither compared with a baseline nor \
                 kept as one\n",
            );
        }
        return Ok(ExitCode::from(interruption.exit_code()));
    }
    let after = args.baselines.apply(&dir, &args.reports)?;
    if let Some(judged) = after.compared {
        failed += print(judged)?;
    }
    for note in after.notes {
        say(&format!("{note}\n"));
    }
    Ok(exit_code(failed))
}

/// Prints a comparison; returns how many measurements fail its gate.
fn print(judged: bench::Judged) -> Result<u64> {
    show(&judged.text)?;
    Ok(judged.failing as u64)
}

/// Writes `text` to standard output. A reader that went away (`| head`) is no error: the
/// exit code still says whether the runs agree, were fast enough, or were interrupted.
fn show(text: &str) -> Result<()> {
    let written = report::standard_output()?
        .lock()
        .write_all(text.as_bytes())
        .and_then(|()| io::stdout().lock().flush());
    match written {
        Err(error) if error.kind() != io::ErrorKind::BrokenPipe => {
            Err(anyhow::Error::new(error).context("cannot write the table to standard output"))
        }
        _ => Ok(()),
    }
}
