//! Generated datasets: made by a kind's generator on first use, kept in the cache folder
//! beside a stamp of what made them, and made again when the stamp differs.

use std::path::{Path, PathBuf};

use crate::batch::{read_file_bounded, MIB};
use crate::report::export::{create_folder, write_file};

use super::error::BenchError;
use super::suite::PlannedDataset;

/// Whether `dataset` is generated and must be made: not in the cache yet, or made from
/// other keys or by another version.
pub(super) fn needs_making(dataset: &PlannedDataset) -> bool {
    let Some(stamp) = stamp(dataset) else {
        return false;
    };
    // A stamp is a few lines: anything longer is not one, and is not read whole.
    let cached = read_file_bounded(&stamp_path(&dataset.path), MIB)
        .is_ok_and(|bytes| bytes == stamp.as_bytes());
    !(cached && dataset.path.is_file())
}

/// What made a generated file: the version, the kind and the generator's keys.
fn stamp(dataset: &PlannedDataset) -> Option<String> {
    let generated = dataset.generate.as_ref()?;
    Some(format!(
        "puzzlebench {} {}\n{}",
        env!("CARGO_PKG_VERSION"),
        dataset.kind.name(),
        toml::to_string(&generated.keys).unwrap_or_default()
    ))
}

/// Makes `dataset`'s file with its kind's generator, and its stamp beside it.
pub(super) fn make(dataset: &PlannedDataset) -> Result<(), BenchError> {
    let (Some(generated), Some(stamp)) = (&dataset.generate, stamp(dataset)) else {
        return Ok(());
    };
    let fail = |message: String| BenchError::Generate {
        path: dataset.path.clone(),
        message,
    };
    let data = dataset
        .kind
        .generate(&generated.keys)
        .map_err(|e| fail(e.to_string()))?;
    if let Some(folder) = dataset.path.parent() {
        create_folder(folder)?;
    }
    // Written aside and renamed, so that an interrupted run never leaves half a file that
    // a later run would take for the whole one.
    let partial = dataset.path.with_extension("partial");
    write_file(&partial, data)?;
    std::fs::rename(&partial, &dataset.path).map_err(|e| fail(e.to_string()))?;
    write_file(&stamp_path(&dataset.path), stamp)?;
    Ok(())
}

/// The stamp beside a generated file: `NAME.stamp`.
fn stamp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".stamp");
    path.with_file_name(name)
}
