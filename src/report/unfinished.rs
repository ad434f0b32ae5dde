//! The settings of a run whose results file is not finished yet, kept beside it
//! (`FILE.unfinished`) until the run ends, so that `--resume` goes on only with the same
//! command and settings: rows made by another algorithm or limit would otherwise be
//! appended to the earlier ones without a word.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::resume::ResumeError;
use crate::batch::{read_file_bounded, BoundedReadError};

/// The most bytes such a file holds: a command and a few settings.
const MAX_BYTES: u64 = 64 * 1024;

/// What a results file's rows depend on: the command and the job's settings. The budget
/// (`--timeout`, `--max-nodes`) and the thread count are not in it: a resumed run may
/// change them (say, to give a budget to the record that stalled the first run).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunSettings {
    /// The command, e.g. `sudoku solve`.
    pub command: String,
    /// The job's settings by name.
    pub settings: BTreeMap<String, String>,
    /// The shard processed (`K/N`), if any.
    pub shard: Option<String>,
}

impl RunSettings {
    /// The settings of a run of `command` with the job's `settings` on `shard`.
    pub fn new(command: &str, settings: Vec<(String, String)>, shard: Option<String>) -> Self {
        RunSettings {
            command: command.to_string(),
            // A note explains other settings (`--limit 1`); it is not one.
            settings: settings
                .into_iter()
                .filter(|(name, _)| name != "note")
                .collect(),
            shard,
        }
    }

    /// The file beside `results` that holds the settings while its run is unfinished.
    pub fn path_beside(results: &Path) -> PathBuf {
        let mut name = OsString::from(results.as_os_str());
        name.push(".unfinished");
        PathBuf::from(name)
    }

    /// Reads the settings kept at `path`: `None` when there is no such file (the run
    /// finished, or was made before the settings were kept).
    pub fn read(path: &Path) -> Result<Option<Self>, ResumeError> {
        let refuse = |why: String| {
            ResumeError::NotResults {
            path: path.to_path_buf(),
            why: format!("{why}: not the settings of an unfinished run (delete it to resume without checking them)"),
        }
        };
        let bytes = match read_file_bounded(path, MAX_BYTES) {
            Ok(bytes) => bytes,
            Err(BoundedReadError::Io(e)) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(refuse(format!("it {e}"))),
        };
        serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| refuse(format!("it does not read ({e})")))
    }

    /// Keeps the settings at `path`, written aside and renamed, so that a run killed
    /// meanwhile leaves the old file or the new one, never half of one.
    pub fn write(&self, path: &Path) -> io::Result<()> {
        let mut aside = OsString::from(path.as_os_str());
        aside.push(".new");
        let text = serde_json::to_string_pretty(self).map_err(io::Error::other)?;
        std::fs::write(&aside, text + "\n")?;
        std::fs::rename(&aside, path).inspect_err(|_| {
            let _ = std::fs::remove_file(&aside);
        })
    }

    /// Refuses to resume the results file `results`, begun with the settings `earlier`,
    /// with these settings when they differ, naming each difference.
    pub fn check_resumes(&self, earlier: &RunSettings, results: &Path) -> Result<(), ResumeError> {
        let mut differences = Vec::new();
        if self.command != earlier.command {
            differences.push(format!(
                "was begun by `{}`, this is `{}`",
                earlier.command, self.command
            ));
        }
        let names: BTreeSet<&String> = earlier
            .settings
            .keys()
            .chain(self.settings.keys())
            .collect();
        for name in names {
            let (then, now) = (earlier.settings.get(name), self.settings.get(name));
            if then != now {
                let text = |value: Option<&String>| value.map_or("none".to_string(), Clone::clone);
                differences.push(format!("{name} was {}, now {}", text(then), text(now)));
            }
        }
        if self.shard != earlier.shard {
            let text = |shard: &Option<String>| shard.clone().unwrap_or("none".into());
            differences.push(format!(
                "shard was {}, now {}",
                text(&earlier.shard),
                text(&self.shard)
            ));
        }
        if differences.is_empty() {
            return Ok(());
        }
        Err(ResumeError::NotResults {
            path: results.to_path_buf(),
            why: format!(
                "its run had other settings: {} (resume with the earlier settings, or start \
                 afresh without --resume)",
                differences.join("; ")
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(algorithm: &str, limit: &str) -> RunSettings {
        RunSettings::new(
            "sudoku solve",
            vec![
                ("algorithm".into(), algorithm.into()),
                ("limit".into(), limit.into()),
            ],
            None,
        )
    }

    #[test]
    fn settings_written_are_read_back_and_compared() {
        let dir = tempfile::tempdir().unwrap();
        let results = dir.path().join("rows.csv");
        let path = RunSettings::path_beside(&results);
        assert!(path.ends_with("rows.csv.unfinished"));
        assert_eq!(RunSettings::read(&path).unwrap(), None);
        let earlier = settings("dlx", "2");
        earlier.write(&path).unwrap();
        let read = RunSettings::read(&path).unwrap().unwrap();
        assert_eq!(read, earlier);
        assert!(settings("dlx", "2").check_resumes(&read, &results).is_ok());
        let error = settings("fast", "1")
            .check_resumes(&read, &results)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("algorithm was dlx, now fast; limit was 2, now 1"),
            "{error}"
        );
    }

    #[test]
    fn a_file_that_is_no_settings_is_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rows.csv.unfinished");
        std::fs::write(&path, "not json").unwrap();
        let error = RunSettings::read(&path).unwrap_err().to_string();
        assert!(error.contains("does not read"), "{error}");
        std::fs::write(&path, vec![b' '; 100_000]).unwrap();
        let error = RunSettings::read(&path).unwrap_err().to_string();
        assert!(error.contains("is larger than 64 KiB"), "{error}");
    }
}
