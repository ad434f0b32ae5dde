//! `battleship validate` on the batch runner: one record is one field.

use crate::batch::{Job, Outcome, Record, RecordContent, Value};

use super::{validate, Field, FieldFormat, Fleet, Rules};

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
        let rules = match self.rules {
            Rules::Touching => "touching",
            Rules::Separated => "separated",
        };
        vec![
            ("rules".to_string(), rules.to_string()),
            ("fleet".to_string(), self.fleet.to_string()),
        ]
    }

    fn layout(&self, header: Option<&[String]>) -> Result<(), String> {
        match header {
            Some(_) => Err(
                "battleship fields are read from line, JSON-list or block inputs, not CSV".into(),
            ),
            None => Ok(()),
        }
    }

    fn new_worker(&self) {}

    fn process(&self, _worker: &mut (), _layout: &(), record: &Record) -> Result<Outcome, String> {
        let RecordContent::Line(text) = &record.content else {
            return Err("not a field".into());
        };
        let field = Field::parse(text, self.format, self.size).map_err(|e| e.to_string())?;
        let verdict = validate(&field, &self.fleet, self.rules, self.count);
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
