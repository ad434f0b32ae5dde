//! The columns of a run's rows: each input's layout (what the job reads and what is
//! carried through), the columns fixed before the first row, and how a record's result
//! fills them.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;

use smallvec::SmallVec;

use super::chunks::ProcessedRow;
use crate::batch::cutter::ChunkCutter;
use crate::batch::{BatchError, Cell, InputSpec, Job, Outcome, Value};

/// What the runner knows of one input's layout: the job's own, and the CSV columns that
/// are carried through.
pub(super) struct InputLayout<L> {
    pub(super) job: L,
    /// Indexes of the carried columns in the input's header, and their names.
    pub(super) carried: Vec<usize>,
    pub(super) carried_names: Vec<String>,
}

/// The columns of a run's rows, and how one record's result fills them: `file` (only when
/// there are several inputs), `line`, `status`, the input's carried CSV columns, the job's
/// own columns, `error` and `micros`.
pub(super) struct RowSchema {
    pub(super) with_file: bool,
    /// The carried columns, fixed before the run by the first input that has any among the
    /// first input and the regular files: every input carries the same ones, or none (a
    /// line input), whose cells are then empty.
    pub(super) carried: Vec<String>,
    pub(super) job_columns: Vec<String>,
    /// The input that fixed the columns, named in the message when another differs.
    pub(super) fixed_by: String,
}

impl RowSchema {
    /// The column names, in row order.
    pub(super) fn names(&self) -> Vec<String> {
        let mut names = Vec::with_capacity(self.carried.len() + self.job_columns.len() + 5);
        if self.with_file {
            names.push("file".to_string());
        }
        names.push("line".into());
        names.push("status".into());
        names.extend(self.carried.iter().cloned());
        names.extend(self.job_columns.iter().cloned());
        names.push("error".into());
        names.push("micros".into());
        names
    }

    /// Fills `row` with one record's result, in the order of [`names`](Self::names).
    pub(super) fn fill(&self, row: &mut Vec<Value>, file: Option<&str>, processed: ProcessedRow) {
        row.clear();
        if let Some(file) = file.filter(|_| self.with_file) {
            row.push(Value::Text(file.to_string()));
        }
        row.push(Value::Int(processed.line));
        row.push(Value::Text(processed.outcome.status.to_string()));
        row.extend(processed.carried);
        row.extend(processed.outcome.values);
        row.push(Value::Text(processed.outcome.error));
        row.push(Value::Float(processed.nanos as f64 / 1000.0));
    }

    /// Appends the carried cells of a record's CSV `fields`, read at `indexes` of its
    /// input's header: empty for an input that carries nothing (a line input), a record
    /// without fields, or a field the record does not have.
    pub(super) fn carried_cells<'r>(
        &self,
        indexes: &[usize],
        fields: &[&'r str],
        row: &mut impl Extend<Cell<'r>>,
    ) {
        if self.carried.is_empty() {
            return;
        }
        match indexes.is_empty() {
            false => row.extend(
                (indexes.iter()).map(|&i| fields.get(i).map_or(Cell::Empty, |f| Cell::Text(f))),
            ),
            true => row.extend(std::iter::repeat_n(Cell::Empty, self.carried.len())),
        }
    }

    /// One record's row as cells, in the order of [`names`](Self::names): the record's
    /// line, and its CSV fields carried at the header's `indexes`.
    pub(super) fn cells<'r>(
        &self,
        file: Option<&'r str>,
        (line, indexes, fields): (u64, &[usize], &[&'r str]),
        outcome: &'r Outcome,
        nanos: u64,
    ) -> Row<'r> {
        let mut row = Row::new();
        if let Some(file) = file.filter(|_| self.with_file) {
            row.push(Cell::Text(file));
        }
        row.push(Cell::Int(line));
        row.push(Cell::Text(outcome.status));
        self.carried_cells(indexes, fields, &mut row);
        row.extend(outcome.values.iter().map(Value::cell));
        row.push(Cell::Text(&outcome.error));
        row.push(Cell::Micros(nanos));
        row
    }

    /// Checks that an input's rows fit this schema: the same job columns, and the same
    /// carried columns or none.
    pub(super) fn check(
        &self,
        input: &InputSpec,
        carried: &[String],
        job_columns: Vec<String>,
    ) -> Result<(), BatchError> {
        let carried_fits = carried.is_empty() || carried == self.carried;
        if carried_fits && job_columns == self.job_columns {
            return Ok(());
        }
        let row = |carried: &[String], job: &[String]| [carried, job].concat();
        Err(BatchError::Columns {
            path: input.display_name(),
            columns: row(carried, &job_columns),
            fixed_by: self.fixed_by.clone(),
            fixed: row(&self.carried, &self.job_columns),
        })
    }
}

/// A row's cells, on the stack for rows of up to 16 columns.
type Row<'r> = SmallVec<[Cell<'r>; 16]>;

/// The run's carried and job columns, and the input that fixed them, checked before any
/// row is written: the first input's job columns, and the carried columns of the first
/// input that has any, among the first input (`first_columns`) and every other input that
/// is a regular file (standard input too, when redirected from one), whose header is read
/// here and again when its turn comes. A pipe cannot be read twice: it is checked when its
/// turn comes.
pub(super) fn fixed_columns<J: Job>(
    job: &J,
    inputs: &[InputSpec],
    first_columns: (Vec<String>, Vec<String>),
    stop: Option<&AtomicBool>,
) -> Result<(Vec<String>, Vec<String>, String), BatchError> {
    let mut schema = RowSchema {
        with_file: false,
        carried: first_columns.0,
        job_columns: first_columns.1,
        fixed_by: inputs[0].display_name(),
    };
    let regular_file = |input: &InputSpec| {
        (input.path.as_ref()).is_some_and(|path| std::fs::metadata(path).is_ok_and(|m| m.is_file()))
    };
    let header = |input| open_input(job, input, &Arc::new(AtomicU64::new(0)), stop);
    for input in &inputs[1..] {
        let opened = match &input.path {
            Some(_) if regular_file(input) => header(input),
            Some(_) => continue,
            // Standard input redirected from a file is put back where it was.
            None => match crate::batch::with_stdin_rewound(|| header(input)) {
                Some(opened) => opened,
                None => continue,
            },
        };
        let (_, layout) = opened?;
        let columns = job.columns(&layout.job);
        if schema.carried.is_empty() && !layout.carried_names.is_empty() {
            // Inputs already seen carry nothing: this one fixes the carried columns, and
            // its job columns are checked against the first input's.
            schema.check(input, &[], columns)?;
            schema.carried = layout.carried_names.clone();
            schema.fixed_by = input.display_name();
        } else {
            schema.check(input, &layout.carried_names, columns)?;
        }
    }
    Ok((schema.carried, schema.job_columns, schema.fixed_by))
}

/// An input opened, with its layout.
pub(super) type Opened<L> = (ChunkCutter, Arc<InputLayout<L>>);

/// Opens `input` and works out its layout from its header: the job's, and the columns
/// the job does not read, which are carried through. When `stop` is set before the
/// input's first bytes (or its header) come, it is taken as empty.
pub(super) fn open_input<J: Job>(
    job: &J,
    input: &InputSpec,
    bytes_read: &Arc<AtomicU64>,
    stop: Option<&AtomicBool>,
) -> Result<Opened<J::Layout>, BatchError> {
    // An empty CSV file has no header (and no records): it is read as lines.
    let (cutter, header) = match input.open_chunks(Arc::clone(bytes_read), stop)? {
        Some(opened) => opened,
        None => (ChunkCutter::empty(input.format), None),
    };
    let layout = job
        .layout(input, header.as_deref())
        .map_err(|source| BatchError::Layout {
            path: input.display_name(),
            source,
        })?;
    let read = job.read_columns(&layout);
    let (carried, names): (Vec<usize>, Vec<String>) = header
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !read.contains(i))
        .unzip();
    let carried_names = unique_names(names, &job.columns(&layout));
    let layout = InputLayout {
        job: layout,
        carried,
        carried_names,
    };
    Ok((cutter, Arc::new(layout)))
}

/// Carried column names that stay apart from the row's own and from each other: a name
/// the row already has (`status`, or a job column such as `guesses` in a CSV of generated
/// puzzles) gets an `input_` prefix; if that is taken too (a header that repeats a name),
/// a number is added, `_2`, `_3` and on.
///
/// Linear in the header's columns, lookups hashed: prefixing again and again, checked
/// against a list, made a CSV header of 8,000 empty names take 100 s and a 190 MB output
/// header (its k-th name held k prefixes), and a 1 MiB header of commas never ended.
pub(super) fn unique_names(carried: Vec<String>, job_columns: &[String]) -> Vec<String> {
    const RUNNER_COLUMNS: [&str; 5] = ["file", "line", "status", "error", "micros"];
    let mut taken: HashSet<String> = RUNNER_COLUMNS.iter().map(|c| c.to_string()).collect();
    taken.extend(job_columns.iter().cloned());
    // For a prefixed name already taken, the next number to try.
    let mut next_number: HashMap<String, u64> = HashMap::new();
    carried
        .into_iter()
        .map(|name| {
            let mut name = name;
            if taken.contains(&name) {
                let prefixed = format!("input_{name}");
                name = prefixed.clone();
                if taken.contains(&name) {
                    let number = next_number.entry(prefixed.clone()).or_insert(2);
                    loop {
                        name = format!("{prefixed}_{number}");
                        *number += 1;
                        if !taken.contains(&name) {
                            break;
                        }
                    }
                }
            }
            taken.insert(name.clone());
            name
        })
        .collect()
}
