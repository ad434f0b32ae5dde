//! Generated datasets: made by a kind's generator on first use, kept in the cache folder
//! beside a stamp of what made them, and made again when the stamp differs.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use crate::batch::{read_regular_file_bounded, MIB};
use crate::report::export::{create_folder, write_file};

use crate::puzzle::Kind;

use super::error::BenchError;
use super::suite::PlannedDataset;

/// How often a generation under way looks for a Ctrl-C.
const STOP_POLL: Duration = Duration::from_millis(50);

/// Whether `dataset` is generated and must be made: not in the cache yet, or made from
/// other keys or by another version.
pub(super) fn needs_making(dataset: &PlannedDataset) -> bool {
    let Some(stamp) = stamp(dataset) else {
        return false;
    };
    // A stamp is a few lines: anything longer is not one, and is not read whole.
    let cached = read_regular_file_bounded(&stamp_path(&dataset.path), MIB)
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

/// Makes `dataset`'s file with its kind's generator, and its stamp beside it; `false`,
/// with nothing written, when `stop` is set before the generator is done.
pub(super) fn make(
    dataset: &PlannedDataset,
    stop: Option<&Arc<AtomicBool>>,
) -> Result<bool, BenchError> {
    let (Some(generated), Some(stamp)) = (&dataset.generate, stamp(dataset)) else {
        return Ok(true);
    };
    let fail = |message: String| BenchError::Generate {
        path: dataset.path.clone(),
        message,
    };
    let Some(data) = generate_unless_stopped(dataset.kind, &generated.keys, stop) else {
        return Ok(false);
    };
    let data = data.map_err(fail)?;
    if let Some(folder) = dataset.path.parent() {
        create_folder(folder)?;
    }
    // `write_file` writes aside and renames, so an interrupted run never leaves half a file
    // that a later run would take for the whole one.
    write_file(&dataset.path, data)?;
    write_file(&stamp_path(&dataset.path), stamp)?;
    Ok(true)
}

/// `kind`'s generator run on `keys`, or `None` as soon as `stop` is set. A large file takes
/// a minute and more, and generators cannot be asked to stop, so it runs on a thread of
/// its own that is left to end with the process when the run is interrupted; it writes
/// nothing, so nothing half made is left.
fn generate_unless_stopped(
    kind: &'static dyn Kind,
    keys: &toml::Table,
    stop: Option<&Arc<AtomicBool>>,
) -> Option<Result<Vec<u8>, String>> {
    let (sender, made) = mpsc::channel();
    let keys = keys.clone();
    let spawned = std::thread::Builder::new()
        .name("generate".into())
        .spawn(move || {
            // The receiver is gone only when the run was interrupted.
            let _ = sender.send(kind.generate(&keys).map_err(|e| e.to_string()));
        });
    if let Err(error) = spawned {
        return Some(Err(format!("cannot start the generator's thread: {error}")));
    }
    loop {
        match made.recv_timeout(STOP_POLL) {
            Ok(result) => return Some(result),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
                    return None;
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Some(Err(
                    "the generator stopped without a result (it panicked)".into()
                ))
            }
        }
    }
}

/// The stamp beside a generated file: `NAME.stamp`.
fn stamp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".stamp");
    path.with_file_name(name)
}
