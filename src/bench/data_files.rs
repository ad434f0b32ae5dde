//! A suite's data files found on disk: its glob patterns expanded against the suite's
//! folder, and the data files of a folder given with `--datasets`.

use std::path::{Path, PathBuf};

use super::error::BenchError;
use super::suite::{distinct, SetSpec};

/// The suite's sets redirected to the files of `dir`: `dir/<kind>/` for each kind that has
/// such a subfolder, or all of `dir` for the kind it is named after (`…/sudoku`). Each set
/// keeps its algorithms and settings (so an algorithm run on the first records only still
/// is); the same file with the same settings then runs once.
pub(super) fn sets_for_folder(sets: &[SetSpec], dir: &Path) -> Result<Vec<SetSpec>, BenchError> {
    if !dir.is_dir() {
        return Err(BenchError::Plan(format!(
            "--datasets {}: not a folder",
            dir.display()
        )));
    }
    let mut redirected: Vec<SetSpec> = Vec::new();
    for set in sets {
        let folder = if dir.join(set.kind.folder()).is_dir() {
            dir.join(set.kind.folder())
        } else if dir.file_name().is_some_and(|n| n == set.kind.folder()) {
            dir.to_path_buf()
        } else {
            continue;
        };
        let files = data_files(&folder)?;
        if files.is_empty() {
            continue;
        }
        redirected.push(SetSpec {
            datasets: Vec::new(),
            files,
            generate: None,
            ..set.clone()
        });
    }
    if redirected.is_empty() {
        return Err(BenchError::Plan(format!(
            "--datasets {}: no data files of the suite's kinds ({}) there",
            dir.display(),
            sets.iter()
                .map(|s| s.kind.folder())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(redirected)
}

/// The data files directly in `folder` (`.txt`, `.csv`, and those compressed with `.gz`),
/// sorted by name. One so named that is not a regular file (a named pipe, a device, a
/// broken link) is refused: a benchmark reads each dataset several times. Folders are
/// left out.
fn data_files(folder: &Path) -> Result<Vec<PathBuf>, BenchError> {
    let entries = std::fs::read_dir(folder)
        .map_err(|e| BenchError::Plan(format!("cannot list {}: {e}", folder.display())))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            let name = path.to_string_lossy();
            let name = name.strip_suffix(".gz").unwrap_or(&name);
            name.ends_with(".txt") || name.ends_with(".csv")
        })
        .filter(|path| !path.is_dir())
        .collect();
    if let Some(odd) = files.iter().find(|path| !path.is_file()) {
        return Err(BenchError::Plan(format!(
            "--datasets: {} {}: move it out of {}",
            odd.display(),
            not_a_data_file(odd),
            folder.display()
        )));
    }
    files.sort();
    Ok(files)
}

/// Why `path`, neither a regular file nor a folder, is no dataset.
fn not_a_data_file(path: &Path) -> &'static str {
    match std::fs::metadata(path) {
        Ok(_) => {
            "is not a regular file (a named pipe or a device); a benchmark reads each \
             dataset several times"
        }
        Err(_) => "cannot be read (a broken link?)",
    }
}

/// The files matched by `patterns` (relative to `base`), in pattern order, each pattern's
/// matches sorted; a pattern that matches nothing is an error.
pub(super) fn expand(
    base: &Path,
    patterns: &[String],
    source: &str,
) -> Result<Vec<PathBuf>, BenchError> {
    let mut files = Vec::new();
    for pattern in patterns {
        let (mut found, others): (Vec<PathBuf>, Vec<PathBuf>) = matching_paths(base, pattern)?
            .into_iter()
            .partition(|p| p.is_file());
        if found.is_empty() {
            return Err(no_file(pattern, (base, source), &others));
        }
        // Folders among the matches are passed over; a named pipe, a device or a broken
        // link is not (a benchmark reads each dataset several times), as with --datasets.
        if let Some(odd) = others.iter().find(|path| !path.is_dir()) {
            return Err(BenchError::Plan(format!(
                "dataset {pattern:?} matches {}, which {}",
                clean(odd).display(),
                not_a_data_file(odd)
            )));
        }
        found.sort();
        files.extend(found.into_iter().map(|p| clean(&p)));
    }
    Ok(distinct(&files))
}

/// The paths that `pattern` (a path whose components may be globs: `*`, `?`, `[…]`, `**`
/// for any folders) names, relative to `base` unless absolute. The folders are walked
/// here rather than by `glob`, which takes text: a folder or file name that is not UTF-8
/// (bytes, on Linux) is found all the same, and kept as it is.
fn matching_paths(base: &Path, pattern: &str) -> Result<Vec<PathBuf>, BenchError> {
    let bad =
        |e: glob::PatternError| BenchError::Plan(format!("bad dataset pattern {pattern:?}: {e}"));
    let mut paths = vec![base.to_path_buf()];
    for part in Path::new(pattern).components() {
        use std::path::Component;
        paths = match part {
            Component::Prefix(_) | Component::RootDir => vec![PathBuf::from(part.as_os_str())],
            Component::CurDir => paths,
            Component::ParentDir => paths.iter().map(|p| p.join("..")).collect(),
            Component::Normal(name) => {
                let name = name.to_str().unwrap_or_default();
                if name == "**" {
                    paths.iter().flat_map(|p| folders_under(p)).collect()
                } else if name.contains(['*', '?', '[']) {
                    let glob = glob::Pattern::new(name).map_err(bad)?;
                    paths
                        .iter()
                        .flat_map(|p| entries_matching(p, &glob))
                        .collect()
                } else {
                    (paths.iter().map(|p| p.join(name)))
                        .filter(|p| std::fs::symlink_metadata(p).is_ok())
                        .collect()
                }
            }
        };
    }
    Ok(paths)
}

/// The entries of folder `folder` whose names `glob` matches, by name (a name that is not
/// UTF-8 is matched with each run of bad bytes read as one U+FFFD, which `*` and `?`
/// match).
fn entries_matching(folder: &Path, glob: &glob::Pattern) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut names: Vec<_> = (entries.filter_map(Result::ok))
        .map(|entry| entry.file_name())
        .filter(|name| glob.matches(&name.to_string_lossy()))
        .collect();
    names.sort();
    names.into_iter().map(|name| folder.join(name)).collect()
}

/// `folder` and every folder beneath it, for `**`, links to folders followed (as `glob`
/// follows them). A folder reached again (through a link, or a link back up) is left out,
/// so a loop ends and no file is found twice.
fn folders_under(folder: &Path) -> Vec<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let mut seen = std::collections::HashSet::new();
    let mut to_walk = vec![folder.to_path_buf()];
    let mut walked = Vec::new();
    let mut next = 0;
    while next < to_walk.len() {
        let path = &to_walk[next];
        next += 1;
        let Ok(meta) = std::fs::metadata(path) else {
            continue;
        };
        if !meta.is_dir() || !seen.insert((meta.dev(), meta.ino())) {
            continue;
        }
        walked.push(path.clone());
        if let Ok(entries) = std::fs::read_dir(path) {
            let mut folders: Vec<PathBuf> = (entries.filter_map(Result::ok))
                .map(|entry| entry.path())
                .filter(|path| path.is_dir())
                .collect();
            folders.sort();
            to_walk.extend(folders);
        }
    }
    walked
}

/// Why dataset `pattern` (relative to `base`) names no file to read: it matches nothing,
/// or only `others`, which are folders, devices, named pipes…
fn no_file(pattern: &str, (base, source): (&Path, &str), others: &[PathBuf]) -> BenchError {
    let what = |path: &Path| {
        if path.is_dir() {
            "a directory"
        } else {
            "not a regular file"
        }
    };
    let literal = !pattern.contains(['*', '?', '[']);
    BenchError::Plan(match others {
        [] if source == "default" => format!(
            "dataset {pattern:?} matches no file (looked in {}; the built-in suite runs \
             from the repository root, or name files with --suite or --datasets)",
            base.display()
        ),
        [] => format!(
            "dataset {pattern:?} of {source} matches no file (looked in {}, the suite \
             file's folder, which its paths are relative to)",
            base.display()
        ),
        [one] if literal && one.is_dir() => format!(
            "dataset {pattern:?} is a directory, not a file (name its files, e.g. {:?})",
            format!("{}/*.txt", pattern.trim_end_matches('/'))
        ),
        [_] if literal => format!("dataset {pattern:?} is not a regular file"),
        [first, rest @ ..] => format!(
            "dataset {pattern:?} matches no regular file: {} is {}{}",
            clean(first).display(),
            what(first),
            match rest.len() {
                0 => String::new(),
                n => format!(" (and {n} more that are not files either)"),
            }
        ),
    })
}

/// `p` without `./` components, so names read as written.
fn clean(p: &Path) -> PathBuf {
    use std::path::Component;
    let mut parts: Vec<Component<'_>> = Vec::new();
    for part in p.components() {
        match part {
            Component::CurDir => {}
            // `dir/..` folds away (a suite's `../../datasets` read from its folder).
            Component::ParentDir if matches!(parts.last(), Some(Component::Normal(_))) => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    parts.into_iter().collect()
}
