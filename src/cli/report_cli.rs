//! `puzzlebench report`: working with report folders.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};

use puzzlebench::report;

/// What to do with report folders.
#[derive(Debug, Subcommand)]
pub enum ReportCommand {
    /// Combine the --report folders of shards (--shard K/N) or Spark partitions into the
    /// report one run over all their records would have written (see docs/cluster.md).
    Merge(MergeArgs),
}

/// `report merge DIR... -o DIR`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The report folders to merge (each with summary.json, env.json and latency.hdr).
    #[arg(required = true, value_name = "DIR")]
    dirs: Vec<PathBuf>,
    /// The folder to write the merged report into.
    #[arg(short = 'o', long, value_name = "DIR")]
    output: PathBuf,
    /// Do not print the merged summary.
    #[arg(short, long)]
    quiet: bool,
}

/// Runs a `report` command.
pub fn run(command: ReportCommand) -> Result<ExitCode> {
    let ReportCommand::Merge(args) = command;
    report::check_merge_output(&args.output, &args.dirs)?;
    let merged = report::merge(&args.dirs)?;
    report::write_merged(&args.output, &merged)
        .with_context(|| format!("cannot write the report into {}", args.output.display()))?;
    if !args.quiet {
        super::to_stderr(&merged.summary.to_text())?;
    }
    Ok(ExitCode::SUCCESS)
}
