//! Writing results: rows as CSV or JSON Lines, and run reports (summaries and the
//! environment they were measured in).

mod env;
mod rows;
mod summary;

pub use env::EnvInfo;
pub use rows::{row_writer, CsvFormat, CsvRows, JsonlFormat, JsonlRows, OutputFormat};
pub use summary::Summary;

use std::path::Path;

/// Writes `summary.json`, `summary.csv`, `summary.md` and `env.json` into `dir`, creating
/// it if needed.
pub fn write_report(dir: &Path, summary: &Summary, env: &EnvInfo) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("summary.json"), summary.to_json() + "\n")?;
    std::fs::write(dir.join("summary.csv"), summary.to_csv())?;
    std::fs::write(dir.join("summary.md"), summary.to_markdown())?;
    std::fs::write(dir.join("env.json"), env.to_json() + "\n")?;
    Ok(())
}
