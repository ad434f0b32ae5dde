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
use crate::batch::{read_regular_file_bounded, BoundedReadError};

/// Links followed to the results file at most, as the system follows them.
const MAX_LINKS: usize = 40;

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

    /// The file beside `results` that holds the settings while its run is unfinished:
    /// beside the file itself, whatever path or link names it (`FILE` resolved, then
    /// `.unfinished`).
    pub fn path_beside(results: &Path) -> PathBuf {
        // A link to a file not made yet is followed by hand: only what exists resolves.
        let mut target = results.to_path_buf();
        for _ in 0..MAX_LINKS {
            let Ok(link) = std::fs::read_link(&target) else {
                break;
            };
            target = match target.parent() {
                Some(folder) => folder.join(link),
                None => link,
            };
        }
        let resolved = crate::batch::resolved(&target).unwrap_or(target);
        let mut name = OsString::from(resolved.as_os_str());
        name.push(".unfinished");
        PathBuf::from(name)
    }

    /// Reads the settings kept at `path`: `None` when there is no such file (the run
    /// finished, or was made before the settings were kept). Anything else there (a
    /// named pipe, a link, a file of other contents) is refused, never read on.
    pub fn read(path: &Path) -> Result<Option<Self>, ResumeError> {
        let refuse = |why: String| ResumeError::NotResults {
            path: path.to_path_buf(),
            why: format!(
                "{why}: not the settings of an unfinished run (delete it to resume without \
                 checking them)"
            ),
        };
        match std::fs::symlink_metadata(path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(refuse(format!("it cannot be read ({e})"))),
            Ok(meta) if !meta.is_file() => return Err(refuse("it is not a regular file".into())),
            Ok(_) => {}
        }
        let bytes = match read_regular_file_bounded(path, MAX_BYTES) {
            Ok(bytes) => bytes,
            Err(BoundedReadError::Io(e)) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(refuse(format!("it {e}"))),
        };
        serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| refuse(format!("it does not read ({e})")))
    }

    /// Whether the regular file at `path` is something other than settings kept by a run
    /// (a book, an input, a user's file): it must not be written over. A link, a folder or
    /// nothing at all is not such a file (a link is replaced, not written through).
    pub fn is_foreign_file(path: &Path) -> bool {
        std::fs::symlink_metadata(path).is_ok_and(|meta| meta.is_file())
            && RunSettings::read(path).is_err()
    }

    /// Keeps the settings at `path`, written into a new file of its own beside it and
    /// renamed, so that a run killed meanwhile leaves the old file or the new one, never
    /// half of one, and no other file is ever written into.
    pub fn write(&self, path: &Path) -> io::Result<()> {
        let folder = match path.parent() {
            Some(folder) if !folder.as_os_str().is_empty() => folder,
            _ => Path::new("."),
        };
        let text = serde_json::to_string_pretty(self).map_err(io::Error::other)?;
        let mut aside = tempfile::NamedTempFile::new_in(folder)?;
        io::Write::write_all(&mut aside, (text + "\n").as_bytes())?;
        aside.persist(path).map_err(|e| e.error)?;
        Ok(())
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
    fn the_settings_lie_beside_the_file_a_link_names_even_before_it_exists() {
        let dir = tempfile::tempdir().unwrap();
        let (link, target) = (dir.path().join("link.csv"), dir.path().join("target.csv"));
        std::os::unix::fs::symlink("target.csv", &link).unwrap();
        let beside = RunSettings::path_beside(&target);
        assert_eq!(RunSettings::path_beside(&link), beside);
        std::fs::write(&target, "").unwrap();
        assert_eq!(RunSettings::path_beside(&link), beside);
    }

    #[test]
    fn a_file_that_is_no_settings_is_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rows.csv.unfinished");
        std::fs::write(&path, "not json").unwrap();
        let error = RunSettings::read(&path).unwrap_err().to_string();
        assert!(error.contains("does not read"), "{error}");
        assert!(
            RunSettings::is_foreign_file(&path),
            "a file of other contents"
        );
        std::fs::write(&path, vec![b' '; 100_000]).unwrap();
        let error = RunSettings::read(&path).unwrap_err().to_string();
        assert!(error.contains("is larger than 64 KiB"), "{error}");
        settings("dlx", "2").write(&path).unwrap();
        assert!(!RunSettings::is_foreign_file(&path), "settings a run kept");
        // A named pipe would wait for a writer if it were opened.
        let pipe = dir.path().join("pipe.unfinished");
        let status = std::process::Command::new("mkfifo")
            .arg(&pipe)
            .status()
            .unwrap();
        assert!(status.success());
        let error = RunSettings::read(&pipe).unwrap_err().to_string();
        assert!(error.contains("it is not a regular file"), "{error}");
        assert!(!RunSettings::is_foreign_file(&dir.path().join("absent")));
    }
}
