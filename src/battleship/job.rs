//! `battleship validate` on the batch runner: one record is one field.

use serde::{Deserialize, Deserializer};

use crate::batch::{InputSpec, Job, JobError, Outcome, Record, RecordContent, Value};
use crate::budget::Meter;
use crate::puzzle::{read_keys, Puzzle, PuzzleError};

use super::{validate_within, Field, FieldFormat, Fleet, Rules};

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
            width: 10,
            height: 10,
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

/// Validates every field of a corpus.
#[derive(Debug, Clone)]
pub struct ValidateJob {
    /// Whether ships may touch.
    pub rules: Rules,
    /// The ships to find.
    pub fleet: Fleet,
    /// Field size if forced (`--size`), as (width, height).
    pub size: Option<(usize, usize)>,
    /// How fields are written.
    pub format: FieldFormat,
    /// Count the distinct readings of each field.
    pub count: bool,
}

impl Job for ValidateJob {
    type Layout = ();
    type Worker = ();

    fn columns(&self, _layout: &()) -> Vec<String> {
        let mut columns = vec!["size", "ship_cells", "reason"];
        if self.count {
            columns.push("readings");
        }
        columns.into_iter().map(String::from).collect()
    }

    fn statuses(&self) -> Vec<&'static str> {
        vec!["valid", "invalid"]
    }

    fn settings(&self) -> Vec<(String, String)> {
        vec![
            ("rules".to_string(), rules_name(self.rules).to_string()),
            ("fleet".to_string(), self.fleet.to_string()),
        ]
    }

    fn layout(&self, _input: &InputSpec, header: Option<&[String]>) -> Result<(), JobError> {
        match header {
            Some(_) => Err(JobError::UnsupportedInput(
                "battleship fields are read from line, JSON-list or block inputs, not CSV",
            )),
            None => Ok(()),
        }
    }

    fn new_worker(&self) {}

    fn process(
        &self,
        _worker: &mut (),
        _layout: &(),
        record: &Record,
        meter: &mut Meter,
    ) -> Result<Outcome, JobError> {
        let text = match &record.content {
            RecordContent::Line(text) => text,
            RecordContent::Unreadable(message) => {
                return Err(JobError::Unreadable(message.clone()))
            }
            RecordContent::Fields(_) => return Err(JobError::Invalid("not a field".into())),
        };
        let field = Field::parse(text, self.format, self.size)
            .map_err(|e| JobError::Invalid(e.to_string()))?;
        let verdict = validate_within(&field, &self.fleet, self.rules, self.count, meter);
        let mut values = vec![
            Value::Text(format!("{}x{}", field.width(), field.height())),
            Value::Int(field.ship_cells() as u64),
            verdict.reason.as_ref().map_or(Value::Empty, |reason| {
                Value::Text(reason.describe(&self.fleet))
            }),
        ];
        if let Some(readings) = verdict.readings {
            values.push(Value::Int(readings));
        }
        if let Some(over) = verdict.stopped {
            values[2] = Value::Empty;
            return Ok(Outcome::over_budget(over, values));
        }
        Ok(Outcome {
            status: if verdict.is_valid() {
                "valid"
            } else {
                "invalid"
            },
            failed: !verdict.is_valid(),
            error: String::new(),
            values,
        })
    }
}
