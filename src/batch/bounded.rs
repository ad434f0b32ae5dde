//! Small files read whole within a limit: a suite, a report's JSON or histogram, a pieces
//! or board file. At most one byte more than the limit is read, so a huge file, a device
//! such as `/dev/zero` or an endless pipe is refused in bounded memory, at once.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use thiserror::Error;

/// One mebibyte, in bytes.
pub const MIB: u64 = 1 << 20;

/// The bytes read from a reader within a limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bounded {
    /// The bytes read: all of them when [`Bounded::whole`], else the limit and one more.
    pub bytes: Vec<u8>,
    /// Whether the reader ended within the limit.
    pub whole: bool,
}

/// Why a file could not be read whole within its limit.
#[derive(Debug, Error)]
pub enum BoundedReadError {
    /// The file cannot be opened or read.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The file holds more than the limit.
    #[error("is larger than {}", byte_size(*limit))]
    TooLarge {
        /// The limit, in bytes.
        limit: u64,
    },
}

/// Reads `reader` to its end, or to `limit` bytes and one more, whichever comes first.
pub fn read_bounded(reader: impl Read, limit: u64) -> io::Result<Bounded> {
    let mut bytes = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)?;
    let whole = bytes.len() as u64 <= limit;
    Ok(Bounded { bytes, whole })
}

/// The bytes of the file `path`, refused when it holds more than `limit`.
pub fn read_file_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, BoundedReadError> {
    let read = read_bounded(File::open(path)?, limit)?;
    if !read.whole {
        return Err(BoundedReadError::TooLarge { limit });
    }
    Ok(read.bytes)
}

/// Like [`read_file_bounded`], for a file that must be a regular one (a report's or a
/// run's own file): a named pipe, a device or a socket is refused at once, where reading
/// it could wait forever for a writer or never end.
pub fn read_regular_file_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, BoundedReadError> {
    use std::os::unix::fs::OpenOptionsExt;
    // Opening a named pipe for reading waits for a writer unless it does not block.
    let file = File::options()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(BoundedReadError::Io(io::Error::new(
            io::ErrorKind::InvalidInput,
            "it is not a regular file (a named pipe, a device or a socket)",
        )));
    }
    let read = read_bounded(file, limit)?;
    if !read.whole {
        return Err(BoundedReadError::TooLarge { limit });
    }
    Ok(read.bytes)
}

/// A number of bytes in words: `16 MiB`, `64 KiB`, `1 byte`, `100 bytes`.
pub fn byte_size(bytes: u64) -> String {
    let plural = |n: u64, unit: &str| format!("{n} {unit}{}", if n == 1 { "" } else { "s" });
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= 1024 && bytes.is_multiple_of(1024) {
        format!("{} KiB", bytes / 1024)
    } else {
        plural(bytes, "byte")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reader_is_read_to_its_limit_and_one_byte_more() {
        let read = read_bounded(&b"abc"[..], 3).unwrap();
        assert_eq!((read.bytes.as_slice(), read.whole), (&b"abc"[..], true));
        let read = read_bounded(&b"abcd"[..], 3).unwrap();
        assert_eq!((read.bytes.as_slice(), read.whole), (&b"abcd"[..], false));
        // An endless reader stops at once.
        let read = read_bounded(io::repeat(0), MIB).unwrap();
        assert_eq!((read.bytes.len() as u64, read.whole), (MIB + 1, false));
    }

    #[test]
    fn a_file_over_the_limit_is_refused_by_its_size() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, [b'x'; 1025]).unwrap();
        assert_eq!(read_file_bounded(&path, 1025).unwrap().len(), 1025);
        let error = read_file_bounded(&path, 1024).unwrap_err();
        assert_eq!(error.to_string(), "is larger than 1 KiB");
        let error = read_file_bounded(&dir.path().join("none"), 1024).unwrap_err();
        assert!(matches!(error, BoundedReadError::Io(_)), "{error:?}");
    }

    #[test]
    fn sizes_are_said_in_the_largest_whole_unit() {
        assert_eq!(byte_size(16 * MIB), "16 MiB");
        assert_eq!(byte_size(64 * 1024), "64 KiB");
        assert_eq!(byte_size(1), "1 byte");
        assert_eq!(byte_size(1000), "1000 bytes");
    }
}
