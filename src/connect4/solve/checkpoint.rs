//! The checkpoint of a book build: the positions at the book's depth solved so far, so that
//! an interrupted build (a deep book takes hours) resumes where it stopped.
//!
//! A text file: the line `puzzlebench connect4 book checkpoint: <spec>`, then one line per
//! solved position, its symmetric key in hexadecimal and its score. Lines are written as
//! positions are solved and flushed at most once a second (an interruption loses at most
//! the last second's positions); a last line cut short by an interruption is dropped on
//! resume.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::batch::Excerpt;

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

/// The file, when it was last flushed, and whether writing it has failed.
#[derive(Debug)]
struct Writer {
    out: BufWriter<File>,
    flushed: Instant,
    failed: bool,
}

impl Checkpoint {
    /// Opens the checkpoint at `path` for a build of `spec`, creating it if absent (or
    /// empty), and returns the scores it already holds (by symmetric key).
    pub fn open<M: Bits>(
        path: &Path,
        spec: &BookSpec,
    ) -> Result<(Self, HashMap<M, i32>), BookError> {
        let header = format!("puzzlebench connect4 book checkpoint: {spec}");
        let io_error = |source| BookError::CheckpointIo {
            path: path.to_path_buf(),
            source,
        };
        let (known, complete) = read_complete_lines(path, &header, spec)?;
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .map_err(io_error)?;
        file.set_len(complete).map_err(io_error)?;
        let mut out = BufWriter::new(file);
        out.seek(SeekFrom::End(0)).map_err(io_error)?;
        if complete == 0 {
            writeln!(out, "{header}")
                .and_then(|()| out.flush())
                .map_err(io_error)?;
        }
        let checkpoint = Checkpoint {
            path: path.to_path_buf(),
            writer: Mutex::new(Writer {
                out,
                flushed: Instant::now(),
                failed: false,
            }),
        };
        Ok((checkpoint, known))
    }

    /// Records a solved position. The first write that fails returns its error; the
    /// checkpoint is then left as it was and later calls do nothing.
    pub fn record<M: Bits>(&self, key: M, score: i32) -> Result<(), BookError> {
        let Ok(mut writer) = self.writer.lock() else {
            return Ok(());
        };
        if writer.failed {
            return Ok(());
        }
        let mut result = writeln!(writer.out, "{:x} {score}", key.to_u128());
        if result.is_ok() && writer.flushed.elapsed() >= FLUSH_EVERY {
            result = writer.out.flush();
            writer.flushed = Instant::now();
        }
        result.map_err(|source| {
            writer.failed = true;
            BookError::CheckpointIo {
                path: self.path.clone(),
                source,
            }
        })
    }

    /// Writes what is left and closes the file.
    pub fn finish(self) -> Result<(), BookError> {
        let path = self.path;
        let io_error = |source| BookError::CheckpointIo {
            path: path.clone(),
            source,
        };
        let writer = self.writer.into_inner().map_err(|_| {
            io_error(io::Error::other(
                "a thread panicked while writing the checkpoint",
            ))
        })?;
        if writer.failed {
            return Ok(());
        }
        let mut out = writer.out;
        out.flush().map_err(io_error)
    }

    /// The checkpoint's file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The longest line a checkpoint holds (its header, or a 128-bit key in hexadecimal and a
/// score), with room to spare: a longer one means the file is something else, which is
/// then refused without being read whole (a link to `/dev/zero` has no line end at all).
const MAX_LINE_BYTES: u64 = 256;

/// The scores the complete lines of the checkpoint at `path` hold (none if it does not
/// exist), and the bytes those lines take; or why it cannot be used. Only complete lines
/// count: a last line cut short by an interruption (its score may have lost digits and
/// still parse) is left out, and the caller cuts it from the file.
fn read_complete_lines<M: Bits>(
    path: &Path,
    header: &str,
    spec: &BookSpec,
) -> Result<(HashMap<M, i32>, u64), BookError> {
    let refuse = |reason: String| BookError::Checkpoint {
        path: path.to_path_buf(),
        reason,
    };
    let io_error = |source| BookError::CheckpointIo {
        path: path.to_path_buf(),
        source,
    };
    let file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((HashMap::new(), 0)),
        Err(e) => return Err(io_error(e)),
    };
    if !file.metadata().map_err(io_error)?.is_file() {
        return Err(refuse("it is not a regular file".into()));
    }
    let mut reader = BufReader::new(file);
    let (bound, key_bits) = (spec.score_bound(), spec.key_bits());
    let mut known = HashMap::new();
    let (mut line, mut number, mut complete) = (Vec::new(), 0, 0);
    loop {
        line.clear();
        let read = Read::take(&mut reader, MAX_LINE_BYTES + 1)
            .read_until(b'\n', &mut line)
            .map_err(io_error)?;
        if line.last() != Some(&b'\n') {
            if read as u64 > MAX_LINE_BYTES {
                return Err(refuse(format!(
                    "line {} is longer than {MAX_LINE_BYTES} bytes: not a checkpoint",
                    number + 1
                )));
            }
            // The end of the file, after the last complete line.
            return Ok((known, complete));
        }
        number += 1;
        complete += read as u64;
        let text = String::from_utf8_lossy(&line[..line.len() - 1]);
        if number == 1 {
            if text != header {
                return Err(refuse(format!(
                    "it is not a checkpoint of this build ({spec}): delete it to start afresh"
                )));
            }
            continue;
        }
        let entry = text.split_once(' ').and_then(|(key, score)| {
            let key = u128::from_str_radix(key, 16).ok()?;
            let score: i32 = score.parse().ok()?;
            let fits = key.checked_shr(key_bits).unwrap_or(0) == 0;
            (fits && score.abs() <= bound).then_some((key, score))
        });
        let Some((key, score)) = entry else {
            return Err(refuse(format!(
                "line {number}: {} is not `<hex key> <score>`",
                Excerpt::quoted(&text)
            )));
        };
        // Two shifts of 32: a shift by 64 would overflow a `u64` key (whose high half is
        // zero, as checked above).
        let high = M::from_u64((key >> 64) as u64) << 32 << 32;
        known.insert(high | M::from_u64(key as u64), score);
    }
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
        checkpoint.record(0x1fu64, 1).unwrap();
        checkpoint.record(0x2au64, -1).unwrap();
        checkpoint.finish().unwrap();
        // An interruption in the middle of a line.
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(b"3b").unwrap();
        drop(file);
        let (checkpoint, known) = Checkpoint::open::<u64>(&path, &SPEC).unwrap();
        assert_eq!(known, HashMap::from([(0x1f, 1), (0x2a, -1)]));
        checkpoint.record(0x3bu64, 0).unwrap();
        checkpoint.finish().unwrap();
        let (_, known) = Checkpoint::open::<u64>(&path, &SPEC).unwrap();
        assert_eq!(known, HashMap::from([(0x1f, 1), (0x2a, -1), (0x3b, 0)]));
    }

    #[test]
    fn a_score_cut_short_is_not_taken_and_an_empty_file_starts_afresh() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("book.partial");
        std::fs::write(&path, "").unwrap();
        let exact = BookSpec {
            weak: false,
            ..SPEC
        };
        let (checkpoint, known) = Checkpoint::open::<u64>(&path, &exact).unwrap();
        assert!(known.is_empty());
        checkpoint.record(0x1fu64, 10).unwrap();
        checkpoint.finish().unwrap();
        // "3b 10" cut after its first digit would read as a score of 1.
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(b"3b 1").unwrap();
        drop(file);
        let (_, known) = Checkpoint::open::<u64>(&path, &exact).unwrap();
        assert_eq!(known, HashMap::from([(0x1f, 10)]));
    }

    #[test]
    fn a_line_longer_than_any_checkpoint_holds_is_refused_without_reading_on() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("book.partial");
        std::fs::write(&path, vec![b'0'; 10_000]).unwrap();
        let error = Checkpoint::open::<u64>(&path, &SPEC).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("line 1 is longer than 256 bytes: not a checkpoint"),
            "{error}"
        );
        assert_eq!(
            std::fs::metadata(&path).unwrap().len(),
            10_000,
            "left as it was"
        );
        let error = Checkpoint::open::<u64>(Path::new("/dev/zero"), &SPEC).unwrap_err();
        assert!(
            error.to_string().contains("it is not a regular file"),
            "{error}"
        );
    }

    #[test]
    fn keys_of_boards_with_128_bits_are_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("book.partial");
        let spec = BookSpec {
            width: 16,
            height: 7,
            depth: 2,
            weak: true,
        };
        let key = (1u128 << 127) | 5;
        let (checkpoint, _) = Checkpoint::open::<u128>(&path, &spec).unwrap();
        checkpoint.record(key, -1).unwrap();
        checkpoint.finish().unwrap();
        let (_, known) = Checkpoint::open::<u128>(&path, &spec).unwrap();
        assert_eq!(known, HashMap::from([(key, -1)]));
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
