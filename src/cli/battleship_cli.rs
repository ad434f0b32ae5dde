//! `puzzlebench battleship …`: validate and generate fields.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand};

use puzzlebench::batch::InputFormat;
use puzzlebench::battleship::generate::{write_fields, FieldBatch};
use puzzlebench::battleship::{self, FieldFormat, Rules};

use super::{create_output, input_specs, parse_field_size, run_job, RunArgs};

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

/// Rules and fleet, shared by validation and generation.
#[derive(Debug, Args)]
pub(super) struct FleetArgs {
    /// Whether ships may touch.
    #[arg(long, value_enum, default_value_t = Rules::Touching)]
    rules: Rules,
    /// Ship lengths, separated by commas.
    #[arg(long, default_value = "4,3,3,2,2,2,1,1,1,1")]
    fleet: battleship::Fleet,
}

#[derive(Debug, Args)]
pub(super) struct BattleshipValidateArgs {
    #[command(flatten)]
    fleet: FleetArgs,
    /// Field size WIDTHxHEIGHT (default: from each record; a single line of cells must then
    /// be square).
    #[arg(long, value_name = "WxH", value_parser = parse_field_size)]
    size: Option<(usize, usize)>,
    /// How fields are written.
    #[arg(long, value_enum, default_value_t = FieldFormat::Auto)]
    format: FieldFormat,
    /// Also count the distinct ways to read each field as the fleet.
    #[arg(long)]
    count: bool,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, Args)]
pub(super) struct BattleshipGenerateArgs {
    /// Number of fields.
    #[arg(long, default_value_t = 1000)]
    count: usize,
    /// Random seed: the same seed gives the same fields.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    #[command(flatten)]
    fleet: FleetArgs,
    /// Field size WIDTHxHEIGHT.
    #[arg(long, value_name = "WxH", default_value = "10x10", value_parser = parse_field_size)]
    size: (usize, usize),
    /// Share of fields broken on purpose: of those, half get one ship cell moved, four in
    /// ten one cell flipped, one in ten a character that is not a cell.
    #[arg(long, default_value_t = 0.0)]
    faults: f64,
    /// Write the fields to FILE instead of standard output.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
}

pub(super) fn validate_battleship(args: BattleshipValidateArgs) -> Result<ExitCode> {
    // Blocks are forced; lines or CSV (a `field` column) follow the file's extension.
    let forced = matches!(args.format, FieldFormat::Blocks).then_some(InputFormat::Blocks);
    let inputs = input_specs(&args.run.files, forced)?;
    let job = battleship::ValidateJob {
        rules: args.fleet.rules,
        fleet: args.fleet.fleet,
        size: args.size,
        format: args.format,
        count: args.count,
    };
    run_job(&job, "battleship validate", &inputs, &args.run)
}

pub(super) fn generate_battleship(args: BattleshipGenerateArgs) -> Result<ExitCode> {
    let batch = FieldBatch {
        count: args.count,
        seed: args.seed,
        width: args.size.0,
        height: args.size.1,
        fleet: args.fleet.fleet,
        rules: args.fleet.rules,
        faults: args.faults,
    };
    batch.check()?;
    let mut out = create_output(args.output.as_ref())?;
    write_fields(&batch, &mut out)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
