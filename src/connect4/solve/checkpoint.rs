//! The checkpoint of a book build: the positions at the book's depth solved so far, so that
//! an interrupted build (a deep book takes hours) resumes where it stopped.
//!
//! A text file: the line `puzzlebench connect4 book checkpoint: <spec>`, then one line per
//! solved position, its symmetric key in hexadecimal and its score. Lines are written as
//! positions are solved and flushed at most once a second; a last line cut short by an
//! interruption is ignored on resume.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::book::{BookError, BookSpec};
use super::position::Bits;

/// How often new lines reach the file at most.
const FLUSH_EVERY: Duration = Duration::from_secs(1);

/// An open checkpoint, appended to from any thread.
#[derive(Debug)]
pub struct Checkpoint {
    path: PathBuf,
    writer: Mutex<Writer>,
}

/// The file and what went wrong with it, if anything.
#[derive(Debug)]
struct Writer {
    out: BufWriter<File>,
    flushed: Instant,
    error: Option<io::Error>,
}

impl Checkpoint {
    /// Opens the checkpoint at `path` for a build of `spec`, creating it if absent, and
    /// returns the scores it already holds (by symmetric key).
    pub fn open<M: Bits>(
        path: &Path,
        spec: &BookSpec,
    ) -> Result<(Self, HashMap<M, i32>), BookError> {
        let header = format!("puzzlebench connect4 book checkpoint: {spec}");
        let fail = |reason: String| BookError::Checkpoint {
            path: path.display().to_string(),
            reason,
        };
        let mut known = HashMap::new();
        let exists = path.exists();
        if exists {
            let text = std::fs::read(path)?;
            known = parse(&text, &header, spec).map_err(fail)?;
            // A last line cut short is dropped, so that the next line starts on its own.
            let complete = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            if complete < text.len() {
                OpenOptions::new()
                    .write(true)
                    .open(path)?
                    .set_len(complete as u64)?;
            }
        }
        let mut out = BufWriter::new(OpenOptions::new().create(true).append(true).open(path)?);
        if !exists {
            writeln!(out, "{header}")?;
            out.flush()?;
        }
        let checkpoint = Checkpoint {
            path: path.to_path_buf(),
            writer: Mutex::new(Writer {
                out,
                flushed: Instant::now(),
                error: None,
            }),
        };
        Ok((checkpoint, known))
    }

    /// Records a solved position. A write error is kept and returned by
    /// [`finish`](Self::finish).
    pub fn record<M: Bits>(&self, key: M, score: i32) {
        let Ok(mut writer) = self.writer.lock() else {
            return;
        };
        if writer.error.is_some() {
            return;
        }
        let mut result = writeln!(writer.out, "{:x} {score}", key.to_u128());
        if result.is_ok() && writer.flushed.elapsed() >= FLUSH_EVERY {
            result = writer.out.flush();
            writer.flushed = Instant::now();
        }
        if let Err(e) = result {
            writer.error = Some(e);
        }
    }

    /// Writes what is left and closes the file; the first write error, if any.
    pub fn finish(self) -> Result<(), BookError> {
        let writer = self
            .writer
            .into_inner()
            .map_err(|_| io::Error::other("a thread panicked while writing the checkpoint"))?;
        if let Some(e) = writer.error {
            return Err(e.into());
        }
        let mut out = writer.out;
        out.flush()?;
        Ok(())
    }

    /// The checkpoint's file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The scores a checkpoint's text holds, or why it cannot be used.
fn parse<M: Bits>(text: &[u8], header: &str, spec: &BookSpec) -> Result<HashMap<M, i32>, String> {
    let complete = text.last() == Some(&b'\n');
    let mut lines = BufReader::new(text).lines();
    let first = lines
        .next()
        .transpose()
        .map_err(|e| e.to_string())?
        .unwrap_or_default();
    if first != header {
        return Err(format!(
            "it is not a checkpoint of this build ({spec}): delete it to start afresh"
        ));
    }
    let lines: Vec<String> = lines.collect::<Result<_, _>>().map_err(|e| e.to_string())?;
    let bound = if spec.weak {
        1
    } else {
        (spec.width * spec.height) as i32 / 2 + 1
    };
    let key_bits = spec.width * (spec.height + 1);
    let mut known = HashMap::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        let last = i + 1 == lines.len();
        let entry = line.split_once(' ').and_then(|(key, score)| {
            let key = u128::from_str_radix(key, 16).ok()?;
            let score: i32 = score.parse().ok()?;
            (key >> key_bits == 0 && score.abs() <= bound).then_some((key, score))
        });
        match entry {
            Some((key, score)) => {
                // Two shifts of 32: a shift by 64 would overflow a `u64` key (whose high
                // half is zero, as checked above).
                let high = M::from_u64((key >> 64) as u64) << 32 << 32;
                known.insert(high | M::from_u64(key as u64), score);
            }
            // Cut short by an interruption.
            None if last && !complete => {}
            None if line.is_empty() => {}
            None => {
                return Err(format!(
                    "line {}: {line:?} is not `<hex key> <score>`",
                    i + 2
                ))
            }
        }
    }
    Ok(known)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: BookSpec = BookSpec {
        width: 5,
        height: 4,
        depth: 3,
        weak: true,
    };

    #[test]
    fn resumes_with_what_was_recorded_and_ignores_a_cut_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("book.partial");
        let (checkpoint, known) = Checkpoint::open::<u64>(&path, &SPEC).unwrap();
        assert!(known.is_empty());
        checkpoint.record(0x1fu64, 1);
        checkpoint.record(0x2au64, -1);
        checkpoint.finish().unwrap();
        // An interruption in the middle of a line.
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(b"3b").unwrap();
        drop(file);
        let (checkpoint, known) = Checkpoint::open::<u64>(&path, &SPEC).unwrap();
        assert_eq!(known, HashMap::from([(0x1f, 1), (0x2a, -1)]));
        checkpoint.record(0x3bu64, 0);
        checkpoint.finish().unwrap();
        let (_, known) = Checkpoint::open::<u64>(&path, &SPEC).unwrap();
        assert_eq!(known, HashMap::from([(0x1f, 1), (0x2a, -1), (0x3b, 0)]));
    }

    #[test]
    fn refuses_another_builds_checkpoint_and_bad_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("book.partial");
        Checkpoint::open::<u64>(&path, &SPEC)
            .unwrap()
            .0
            .finish()
            .unwrap();
        let exact = BookSpec {
            weak: false,
            ..SPEC
        };
        let error = Checkpoint::open::<u64>(&path, &exact).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("not a checkpoint of this build (5x4, depth 3, exact)"),
            "{error}"
        );
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(b"1f 7\n2a 1\n").unwrap();
        drop(file);
        let error = Checkpoint::open::<u64>(&path, &SPEC).unwrap_err();
        assert!(error.to_string().contains("line 2: \"1f 7\""), "{error}");
    }
}
