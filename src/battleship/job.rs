//! `battleship validate` on the batch runner: one record is one field.

use serde::{Deserialize, Deserializer};

use crate::batch::{
    push_csv_field, push_number, push_short, CsvRow, InputSpec, Job, JobError, Outcome, Record,
    RecordContent, Recycled, Value, Written,
};
use crate::budget::Meter;
use crate::puzzle::{read_keys, Puzzle, PuzzleError};

use super::{validate_within, Field, FieldFormat, Fleet, Rules, Verdict};

/// Battleship fields validated with the classic fleet, as a puzzle of the shared harness.
#[derive(Debug, Clone, Copy)]
pub struct ValidatePuzzle;

/// The settings of a validation run besides the algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ValidateSettings {
    /// Whether ships may touch: `touching` (the default) or `separated`.
    #[serde(deserialize_with = "rules_by_name")]
    pub rules: Rules,
}

impl Default for ValidateSettings {
    fn default() -> Self {
        ValidateSettings {
            rules: Rules::Touching,
        }
    }
}

fn rules_by_name<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Rules, D::Error> {
    let name = String::deserialize(deserializer)?;
    rules_named(&name).ok_or_else(|| {
        serde::de::Error::custom(format!(
            "rules must be \"touching\" or \"separated\", not {name:?}"
        ))
    })
}

fn rules_named(name: &str) -> Option<Rules> {
    match name {
        "touching" => Some(Rules::Touching),
        "separated" => Some(Rules::Separated),
        _ => None,
    }
}

/// The name of `rules` in settings and summaries.
fn rules_name(rules: Rules) -> &'static str {
    match rules {
        Rules::Touching => "touching",
        Rules::Separated => "separated",
    }
}

impl Puzzle for ValidatePuzzle {
    type Settings = ValidateSettings;
    type Job = ValidateJob;

    const NAME: &'static str = "battleship";
    const FOLDER: &'static str = "battleship";
    const ALGORITHMS: &'static [&'static str] = &["bitmask"];
    const ANSWER_COLUMNS: &'static [&'static str] = &["reason"];

    fn job(
        settings: &ValidateSettings,
        algorithm: &str,
        _inputs: &[InputSpec],
    ) -> Result<ValidateJob, PuzzleError> {
        PuzzleError::check_algorithm::<Self>(algorithm)?;
        Ok(ValidateJob {
            rules: settings.rules,
            fleet: Fleet::classic(),
            size: None,
            format: FieldFormat::Auto,
            count: false,
        })
    }

    fn generate(keys: &toml::Table) -> Result<Vec<u8>, PuzzleError> {
        let set: GeneratedFields = read_keys::<Self, _>(keys)?;
        let batch = super::generate::FieldBatch {
            count: set.count,
            seed: set.seed,
            size: (10, 10),
            fleet: Fleet::classic(),
            rules: set.rules,
            faults: set.faults,
        };
        let mut out = Vec::new();
        super::generate::write_fields(&batch, &mut out).map_err(|e| PuzzleError::Settings {
            puzzle: Self::NAME,
            message: e.to_string(),
        })?;
        Ok(out)
    }

    fn notes(settings: &ValidateSettings) -> Vec<String> {
        if *settings == ValidateSettings::default() {
            Vec::new()
        } else {
            vec![rules_name(settings.rules).to_string()]
        }
    }
}

/// A generated dataset as a `bench` suite names it: the keys of `battleship generate`
/// (classic fleet on 10×10).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GeneratedFields {
    count: usize,
    seed: u64,
    #[serde(default = "touching", deserialize_with = "rules_by_name")]
    rules: Rules,
    #[serde(default)]
    faults: f64,
}

fn touching() -> Rules {
    Rules::Touching
}

/// Validates every field of a corpus (the settings of `battleship validate`).
#[derive(Debug, Clone, clap::Args)]
pub struct ValidateJob {
    /// Whether ships may touch.
    #[arg(long, value_enum, default_value_t = Rules::Touching)]
    pub rules: Rules,
    /// Ship lengths, separated by commas.
    #[arg(long, default_value_t = Fleet::classic(), value_parser = crate::battleship::FleetParser)]
    pub fleet: Fleet,
    /// Field size WIDTHxHEIGHT (default: from each record; a single line of cells must then
    /// be square).
    #[arg(long, value_name = "WxH", value_parser = super::parse_size)]
    pub size: Option<(usize, usize)>,
    /// How fields are written.
    #[arg(long, value_enum, default_value_t = FieldFormat::Auto)]
    pub format: FieldFormat,
    /// Also count the distinct ways to read each field as the fleet.
    #[arg(long)]
    pub count: bool,
}

impl Job for ValidateJob {
    /// The CSV column named `field`, for a CSV input.
    type Layout = Option<usize>;
    /// The buffers of rows written, for the next fields' values.
    type Worker = Recycled;

    fn columns(&self, _layout: &Option<usize>) -> Vec<String> {
        let mut columns = vec!["size", "ship_cells", "reason"];
        if self.count {
            columns.push("readings");
        }
        columns.into_iter().map(String::from).collect()
    }

    fn statuses(&self) -> Vec<&'static str> {
        vec!["valid", "invalid"]
    }

    /// An invalid field's reason is in its `reason` cell, not its `error` cell.
    fn failed_row(&self, status: &str, error: &str) -> bool {
        status == "invalid" || !error.is_empty()
    }

    fn settings(&self) -> Vec<(String, String)> {
        let mut settings = vec![
            ("rules".to_string(), rules_name(self.rules).to_string()),
            ("fleet".to_string(), self.fleet.to_string()),
            (
                "format".to_string(),
                format!("{:?}", self.format).to_lowercase(),
            ),
            ("count".to_string(), self.count.to_string()),
        ];
        if let Some((width, height)) = self.size {
            settings.push(("size".to_string(), format!("{width}x{height}")));
        }
        settings
    }

    fn layout(
        &self,
        _input: &InputSpec,
        header: Option<&[String]>,
    ) -> Result<Option<usize>, JobError> {
        let Some(header) = header else {
            return Ok(None);
        };
        match header.iter().position(|h| h.eq_ignore_ascii_case("field")) {
            Some(column) => Ok(Some(column)),
            None => Err(JobError::UnsupportedInput(
                "a CSV of battleship fields needs a column named field (one field per row, \
                 written as on a line); the other columns are carried through",
            )),
        }
    }

    fn read_columns(&self, layout: &Option<usize>) -> Vec<usize> {
        layout.iter().copied().collect()
    }

    fn new_worker(&self) -> Recycled {
        Recycled::default()
    }

    fn recycle(&self, worker: &mut Recycled, outcome: Outcome) {
        worker.keep(outcome);
    }

    fn process(
        &self,
        worker: &mut Recycled,
        layout: &Option<usize>,
        record: &Record<'_>,
        meter: &mut Meter,
    ) -> Result<Outcome, JobError> {
        let (field, verdict) = self.check(layout, record, meter)?;
        Ok(self.outcome_of(worker, &field, verdict))
    }

    /// The row of a field checked to the end, written here.
    fn process_csv(
        &self,
        worker: &mut Recycled,
        layout: &Option<usize>,
        record: &Record<'_>,
        meter: &mut Meter,
        row: &mut Vec<u8>,
    ) -> Result<CsvRow, JobError> {
        let (field, verdict) = self.check(layout, record, meter)?;
        if verdict.stopped.is_some() {
            // Rare: the generic row, from the outcome.
            return Ok(CsvRow::Outcome(self.outcome_of(worker, &field, verdict)));
        }
        let status = status_of(&verdict);
        row.push(b',');
        push_short(status.as_bytes(), row);
        row.push(b',');
        push_number(field.width() as u64, row);
        row.push(b'x');
        push_number(field.height() as u64, row);
        row.push(b',');
        push_number(field.ship_cells() as u64, row);
        row.push(b',');
        if let Some(reason) = &verdict.reason {
            push_csv_field(&reason.describe(&self.fleet), row);
        }
        if let Some(readings) = verdict.readings {
            row.push(b',');
            push_number(readings, row);
        }
        // The empty error.
        row.push(b',');
        Ok(CsvRow::Written(Written {
            status,
            failed: !verdict.is_valid(),
            tally: None,
        }))
    }
}

/// A checked field's status.
fn status_of(verdict: &Verdict) -> &'static str {
    if verdict.is_valid() {
        "valid"
    } else {
        "invalid"
    }
}

impl ValidateJob {
    /// A record's field and its verdict.
    fn check(
        &self,
        layout: &Option<usize>,
        record: &Record<'_>,
        meter: &mut Meter,
    ) -> Result<(Field, Verdict), JobError> {
        let text = match (record.content, layout) {
            (RecordContent::Line(text), _) => text,
            (RecordContent::Unreadable(message), _) => {
                return Err(JobError::Unreadable(message.to_string()))
            }
            (RecordContent::Fields(fields), Some(column)) => {
                JobError::field(fields, *column, "field")?
            }
            (RecordContent::Fields(_), None) => {
                return Err(JobError::Invalid("not a field".into()))
            }
        };
        let field = Field::parse(text, self.format, self.size)
            .map_err(|e| JobError::Invalid(e.to_string()))?;
        let verdict = validate_within(&field, &self.fleet, self.rules, self.count, meter);
        Ok((field, verdict))
    }

    /// The outcome of `field`'s record, checked as `verdict` says.
    fn outcome_of(&self, worker: &mut Recycled, field: &Field, verdict: Verdict) -> Outcome {
        let mut values = worker.values();
        values.push(Value::Text(size_text(
            field.width(),
            field.height(),
            worker.string(),
        )));
        values.push(Value::Int(field.ship_cells() as u64));
        values.push(verdict.reason.as_ref().map_or(Value::Empty, |reason| {
            Value::Text(reason.describe(&self.fleet))
        }));
        if let Some(readings) = verdict.readings {
            values.push(Value::Int(readings));
        }
        if let Some(over) = verdict.stopped {
            values[2] = Value::Empty;
            return Outcome::over_budget(over, values);
        }
        Outcome {
            status: status_of(&verdict),
            failed: !verdict.is_valid(),
            error: String::new(),
            values,
        }
    }
}

/// `WxH`, the `size` column, without the formatting machinery, in `text` (empty).
fn size_text(width: usize, height: usize, mut text: String) -> String {
    let mut digits = itoa::Buffer::new();
    text.push_str(digits.format(width));
    text.push('x');
    text.push_str(digits.format(height));
    text
}
