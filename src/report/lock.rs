//! One run at a time into a results file: the file is locked (an advisory lock, `flock`)
//! from its opening to the run's end, so that a second run into the same `-o FILE`, by
//! whatever path or link it names it, is refused before it cuts or writes a byte, instead
//! of interleaving its rows with the first run's.

use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};

/// Another process holds the lock on a results file.
#[derive(Debug, thiserror::Error)]
#[error(
    "{} is being written by another run (it holds a lock on the file): wait for that run to \
     end, or name another results file",
    path.display()
)]
pub struct Busy {
    /// The file.
    pub path: PathBuf,
}

/// Takes the lock on the results file `file` opened from `path`, held until the file is
/// closed. Only a regular file is locked: `/dev/null` or a pipe may take several writers.
/// A file system without locks (some network ones) leaves the file unlocked rather than
/// refusing the run.
pub fn lock_results(file: &File, path: &Path) -> Result<(), Busy> {
    if !file.metadata().is_ok_and(|meta| meta.is_file()) {
        return Ok(());
    }
    match file.try_lock() {
        Ok(()) => Ok(()),
        Err(TryLockError::WouldBlock) => Err(Busy {
            path: path.to_path_buf(),
        }),
        // Locks not supported here: nothing to guard with, the run goes on as before.
        Err(TryLockError::Error(_)) => Ok(()),
    }
}

/// Whether another run holds the lock on the results file at `path`, asked without
/// keeping a lock: a refusal that would otherwise name something else (the settings of a
/// `--resume`) names the run writing the file first. A file that does not open is not busy.
pub fn check_not_busy(path: &Path) -> Result<(), Busy> {
    match File::open(path) {
        // The probe's lock, if taken, ends with the probe's opening.
        Ok(file) => lock_results(&file, path),
        Err(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_one_file_is_refused_until_the_first_is_closed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rows.csv");
        let first = File::create(&path).unwrap();
        lock_results(&first, &path).unwrap();
        // Another opening is another holder, as another process's would be.
        let second = File::options().write(true).open(&path).unwrap();
        let error = lock_results(&second, &path).unwrap_err().to_string();
        assert!(error.contains("is being written by another run"), "{error}");
        drop(first);
        lock_results(&second, &path).unwrap();
    }

    #[test]
    fn a_probe_names_a_locked_file_busy_and_leaves_a_free_one_free() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rows.csv");
        assert!(check_not_busy(&path).is_ok(), "a missing file is not busy");
        let first = File::create(&path).unwrap();
        check_not_busy(&path).unwrap();
        lock_results(&first, &path).unwrap();
        assert!(check_not_busy(&path).is_err());
        drop(first);
        check_not_busy(&path).unwrap();
        let again = File::options().write(true).open(&path).unwrap();
        lock_results(&again, &path).unwrap();
    }

    #[test]
    fn devices_are_not_locked() {
        let null = Path::new("/dev/null");
        let first = File::options().write(true).open(null).unwrap();
        let second = File::options().write(true).open(null).unwrap();
        lock_results(&first, null).unwrap();
        lock_results(&second, null).unwrap();
    }
}
