//! `puzzlebench battleship …`: validate and generate fields.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};

use puzzlebench::batch::{InputFormat, InputSpec};
use puzzlebench::battleship::generate::{write_fields, FieldBatch, GenerateFieldsError};
use puzzlebench::battleship::{FieldFormat, ValidateJob};

use super::{create_output, output_name, run_job, RunArgs};

#[derive(Debug, Subcommand)]
pub(super) enum BattleshipCommand {
    /// Decide for every field whether it holds the fleet, with the reason when it does not.
    ///
    /// Statuses: valid, invalid (with a reason: wrong number of ship cells, no way to split
    /// the cells into the fleet, a group that is not straight, ships touching at a corner,
    /// the wrong ships), error (not a field: says what and where). Exit code 0 if all are
    /// valid, 1 otherwise, 2 if the run could not proceed.
    Validate(BattleshipValidateArgs),
    /// Print random fields, reproducibly from a seed, some of them broken on purpose.
    Generate(BattleshipGenerateArgs),
}

#[derive(Debug, Args)]
pub(super) struct BattleshipValidateArgs {
    #[command(flatten)]
    job: ValidateJob,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, Args)]
pub(super) struct BattleshipGenerateArgs {
    #[command(flatten)]
    batch: FieldBatch,
    /// Write the fields to FILE instead of standard output.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
}

pub(super) fn validate_battleship(args: BattleshipValidateArgs) -> Result<ExitCode> {
    // Blocks are forced; lines or CSV (a `field` column) follow the file's extension.
    let forced = matches!(args.job.format, FieldFormat::Blocks).then_some(InputFormat::Blocks);
    let inputs = InputSpec::for_names(&args.run.files, forced)?;
    run_job(&args.job, "battleship validate", &inputs, &args.run)
}

pub(super) fn generate_battleship(args: BattleshipGenerateArgs) -> Result<ExitCode> {
    args.batch.check()?;
    let mut out = create_output(args.output.as_ref(), &[])?;
    let destination = output_name(args.output.as_ref());
    let cannot_write = || format!("cannot write the fields to {destination}");
    match write_fields(&args.batch, &mut out) {
        Err(GenerateFieldsError::Write(error)) => Err(error).with_context(cannot_write)?,
        written => written?,
    }
    out.flush().with_context(cannot_write)?;
    Ok(ExitCode::SUCCESS)
}
