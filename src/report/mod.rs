//! Writing results: rows as CSV or JSON Lines, and run reports (summaries and the
//! environment they were measured in).

mod env;
pub mod export;
mod rows;
mod summary;

pub use env::EnvInfo;
pub use export::ExportError;
pub use rows::{row_writer, CsvFormat, CsvRows, JsonlFormat, JsonlRows, OutputFormat};
pub use summary::Summary;

use std::path::Path;

/// Writes `summary.json`, `summary.csv`, `summary.md` and `env.json` into `dir`, creating
/// it if needed.
pub fn write_report(dir: &Path, summary: &Summary, env: &EnvInfo) -> Result<(), ExportError> {
    export::create_folder(dir)?;
    export::write_file(&dir.join("summary.json"), summary.to_json() + "\n")?;
    export::write_file(&dir.join("summary.csv"), summary.to_csv())?;
    export::write_file(&dir.join("summary.md"), summary.to_markdown())?;
    export::write_file(&dir.join("env.json"), env.to_json() + "\n")?;
    Ok(())
}
