//! Opening inputs (files, standard input, gzip) and reading them record by record.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::os::fd::{AsFd, AsRawFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use super::cutter::ChunkCutter;
use super::decode::csv_header;
use super::gzip::GzipMembers;
use super::BatchError;

/// How an input's records are laid out (`--format`: lines or csv).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum InputFormat {
    /// One record per line; blank lines and `#` lines are skipped.
    Lines,
    /// CSV with a header row; `#` lines are skipped.
    Csv,
    /// One record per block of consecutive lines, blocks separated by blank lines; `#`
    /// lines are skipped. A record's text keeps its line breaks (`\n`).
    #[value(skip)]
    Blocks,
}

/// How long a read of a pipe or terminal waits for bytes before it gives the run back its
/// turn ([`Waiting`]), in milliseconds.
const IDLE_WAIT_MILLIS: i32 = 100;

/// An input opened for cutting, with its CSV header if it has one.
pub(crate) type CutInput = (ChunkCutter, Option<Vec<String>>);

/// An input's bytes (decompressed), and their number when known.
type Source = (Box<dyn Read + Send>, Option<u64>);

/// Whether the process started with standard input closed (see [`stdin_was_closed`]).
static STDIN_WAS_CLOSED: AtomicBool = AtomicBool::new(false);

/// Records that the process started with standard input closed (`<&-`). The Rust runtime
/// opens `/dev/null` on it before `main`, where it would read as an empty input, so the
/// program checks before that and says so here.
pub fn stdin_was_closed() {
    STDIN_WAS_CLOSED.store(true, Ordering::Relaxed);
}

/// Whether the paths `a` and `b` name the same file: the same file on disk when both
/// exist (whatever the spelling, links included), else the same place once resolved
/// (`d/x`, `d/../d/x` and `link-to-d/x` are one, whether or not `d` exists yet).
pub fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
        return x.dev() == y.dev() && x.ino() == y.ino();
    }
    match (resolved(a), resolved(b)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// A path as text: its UTF-8 as it is, each byte that is not UTF-8 as `\xNN`, so that two
/// names that differ only there stay apart (`Path::display` writes `�` for both).
pub fn path_text(path: &Path) -> String {
    os_text(path.as_os_str())
}

/// Text as [`path_text`] writes it, of any argument or name.
pub fn os_text(text: &std::ffi::OsStr) -> String {
    let mut out = String::new();
    for chunk in text.as_encoded_bytes().utf8_chunks() {
        out.push_str(chunk.valid());
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02x}"));
        }
    }
    out
}

/// `path` made absolute: free of links as far as it exists, and of `.` and `..`
/// (`None` when the current folder cannot be read).
pub fn resolved(path: &Path) -> Option<PathBuf> {
    use std::path::Component;
    let mut resolved = PathBuf::new();
    for component in std::path::absolute(path).ok()?.components() {
        match component {
            Component::Prefix(_) | Component::RootDir => resolved.push(component),
            Component::CurDir => {}
            // What is resolved so far is free of links, or does not exist: its parent is
            // the folder `..` names.
            Component::ParentDir => {
                resolved.pop();
            }
            Component::Normal(name) => {
                resolved.push(name);
                if let Ok(real) = resolved.canonicalize() {
                    resolved = real;
                }
            }
        }
    }
    Some(resolved)
}

/// The metadata of the file an open descriptor refers to, if it can be read.
fn descriptor_metadata(fd: std::os::fd::BorrowedFd<'_>) -> Option<std::fs::Metadata> {
    let file = File::from(fd.try_clone_to_owned().ok()?);
    file.metadata().ok()
}

/// Runs `read`, which reads standard input, and puts standard input back where it was,
/// when it is a regular file (`< FILE`), whose reads can be undone; `None`, without
/// running `read`, for a pipe or a terminal.
pub(crate) fn with_stdin_rewound<T>(read: impl FnOnce() -> T) -> Option<T> {
    use std::io::{Seek, SeekFrom};
    let mut file = File::from(io::stdin().as_fd().try_clone_to_owned().ok()?);
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let at = file.stream_position().ok()?;
    let result = read();
    file.seek(SeekFrom::Start(at)).ok()?;
    Some(result)
}

/// The first bytes of a gzip stream.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The longest record read by default, in bytes: [`InputSpec::max_line_bytes`].
pub const DEFAULT_MAX_LINE_BYTES: usize = 1 << 20;

/// One input named on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputSpec {
    /// The file, or `None` for standard input.
    pub path: Option<PathBuf>,
    /// How to read it.
    pub format: InputFormat,
    /// The longest line read, in bytes without its line ending (also the longest record of
    /// several lines: a block, or a CSV record with a quoted field that spans lines). A
    /// longer one becomes an error row, and is read on without being kept in memory.
    pub max_line_bytes: usize,
}

impl InputSpec {
    /// An input for `name` (`-` is standard input). The format is `forced` if given, else
    /// CSV for names ending in `.csv` or `.csv.gz`, else lines.
    /// A name need not be UTF-8: file names are bytes.
    pub fn new(name: impl AsRef<std::ffi::OsStr>, forced: Option<InputFormat>) -> Self {
        let name = name.as_ref();
        let path = (name != "-").then(|| PathBuf::from(name));
        let format = forced.unwrap_or_else(|| {
            let lower = name.as_encoded_bytes().to_ascii_lowercase();
            if lower.ends_with(b".csv") || lower.ends_with(b".csv.gz") {
                InputFormat::Csv
            } else {
                InputFormat::Lines
            }
        });
        InputSpec {
            path,
            format,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
        }
    }

    /// The same input, with lines (and records) of at most `max_line_bytes` bytes.
    pub fn with_max_line_bytes(mut self, max_line_bytes: usize) -> Self {
        self.max_line_bytes = max_line_bytes;
        self
    }

    /// Inputs for the files named on a command line (standard input when none), each
    /// checked to be readable before anything runs, so that a typo fails at once.
    pub fn for_names(
        names: &[std::ffi::OsString],
        forced: Option<InputFormat>,
    ) -> Result<Vec<Self>, BatchError> {
        let stdin = std::ffi::OsStr::new("-");
        let names: Vec<&std::ffi::OsStr> = if names.is_empty() {
            vec![stdin]
        } else {
            names.iter().map(std::ffi::OsString::as_os_str).collect()
        };
        if names.iter().filter(|&&n| n == stdin).count() > 1 {
            return Err(BatchError::StdinTwice);
        }
        if names.contains(&stdin) && STDIN_WAS_CLOSED.load(Ordering::Relaxed) {
            return Err(BatchError::StdinClosed);
        }
        names
            .into_iter()
            .map(|name| {
                let spec = InputSpec::new(name, forced);
                // Standard input redirected from a folder fails at its first read: said
                // before any input runs, as for a folder named on the command line.
                let stdin_is_dir =
                    || descriptor_metadata(io::stdin().as_fd()).is_some_and(|meta| meta.is_dir());
                if spec.path.is_none() && stdin_is_dir() {
                    let source = io::Error::other("it is a directory");
                    return Err(spec.input_error(source));
                }
                if let Some(path) = &spec.path {
                    let metadata =
                        std::fs::metadata(path).map_err(|source| spec.input_error(source))?;
                    if metadata.is_dir() {
                        let source = io::Error::other("it is a directory");
                        return Err(spec.input_error(source));
                    }
                    // A regular file is opened to see that it can be read. A named pipe or
                    // a device is not: opening one waits for its writer, and closing it
                    // again would lose what the writer sent before the run opens it.
                    if metadata.is_file() {
                        File::open(path).map_err(|source| spec.input_error(source))?;
                    }
                }
                Ok(spec)
            })
            .collect()
    }

    /// Refuses `output` when it is one of `inputs` — by the same path, another path, a
    /// hard link, or standard input redirected from it — before it is opened for writing,
    /// which would empty the input.
    pub fn check_output(output: &Path, inputs: &[InputSpec]) -> Result<(), BatchError> {
        // An output that does not exist yet cannot be an input.
        let Ok(out) = std::fs::metadata(output) else {
            return Ok(());
        };
        Self::check_written(&out, &output.display().to_string(), inputs)
    }

    /// Refuses standard output when it is a file that is one of `inputs` (`… FILE >> FILE`,
    /// or `… < FILE >> FILE`): the run would read its own rows back as records.
    pub fn check_standard_output(inputs: &[InputSpec]) -> Result<(), BatchError> {
        match descriptor_metadata(io::stdout().as_fd()) {
            Some(out) if out.is_file() => Self::check_written(&out, "standard output", inputs),
            _ => Ok(()),
        }
    }

    /// Refuses the file `out` (named `name` in the message) when it is one of `inputs`.
    fn check_written(
        out: &std::fs::Metadata,
        name: &str,
        inputs: &[InputSpec],
    ) -> Result<(), BatchError> {
        use std::os::unix::fs::MetadataExt;
        for input in inputs {
            let meta = match &input.path {
                Some(path) => std::fs::metadata(path).ok(),
                // Standard input counts only when it is a file: a terminal or a pipe may
                // well be standard output too, and is not emptied by writing.
                None => descriptor_metadata(io::stdin().as_fd()).filter(|meta| meta.is_file()),
            };
            let Some(meta) = meta else { continue };
            if meta.dev() == out.dev() && meta.ino() == out.ino() {
                let input = match &input.path {
                    Some(_) => input.display_name(),
                    None => "standard input (-)".to_string(),
                };
                return Err(BatchError::OutputIsInput {
                    output: name.to_string(),
                    input,
                });
            }
        }
        Ok(())
    }

    /// The input as the user named it.
    pub fn display_name(&self) -> String {
        match &self.path {
            Some(path) => path_text(path),
            None => "-".to_string(),
        }
    }

    /// Size in bytes on disk, if it is a file.
    pub(crate) fn size(&self) -> Option<u64> {
        let path = self.path.as_ref()?;
        std::fs::metadata(path).ok().map(|meta| meta.len())
    }

    /// Opens the input for cutting into chunks; for CSV also reads its header (`None` when
    /// the input holds no record at all). Raw bytes read are added to `bytes_read`. `None`
    /// when `stop` was set while the input was still to send its first bytes or its header
    /// (a pipe whose writer is idle).
    ///
    /// A pipe or terminal is read with waits of at most 100 ms: its cutter fails with
    /// [`io::ErrorKind::WouldBlock`] when nothing more has come, after handing out the whole
    /// records it has (see [`ChunkCutter::next_chunk`]).
    pub(crate) fn open_chunks(
        &self,
        bytes_read: Arc<AtomicU64>,
        stop: Option<&AtomicBool>,
    ) -> Result<Option<CutInput>, BatchError> {
        let stopped = || stop.is_some_and(|stop| stop.load(Ordering::Relaxed));
        let Some((source, size)) = self.open(bytes_read, &stopped)? else {
            return Ok(None);
        };
        let mut cutter = ChunkCutter::new(source, self.format, size, self.max_line_bytes);
        let header = match self.format {
            InputFormat::Csv => {
                let chunk = loop {
                    match cutter.next_chunk(1, stop) {
                        Err(error) if error.kind() == io::ErrorKind::WouldBlock => {
                            if stopped() {
                                return Ok(None);
                            }
                        }
                        result => break result.map_err(|source| self.header_error(source))?,
                    }
                };
                if cutter.stopped() {
                    return Ok(None);
                }
                if let Some((_, fault)) = chunk.as_ref().and_then(|chunk| chunk.fault.as_ref()) {
                    let source = io::Error::new(io::ErrorKind::InvalidData, fault.to_string());
                    return Err(self.header_error(source));
                }
                let header = chunk.and_then(|chunk| csv_header(&chunk));
                if let Some(header) = &header {
                    cutter.set_header_fields(header.len());
                }
                header
            }
            InputFormat::Lines | InputFormat::Blocks => None,
        };
        Ok(Some((cutter, header)))
    }

    /// Opens the input, decompressing gzip transparently (detected by its magic bytes), with
    /// the size of what it reads when known (an uncompressed file). Raw bytes read are added
    /// to `bytes_read`. `None` when `stopped` turned true before the first bytes came.
    fn open(
        &self,
        bytes_read: Arc<AtomicU64>,
        stopped: &dyn Fn() -> bool,
    ) -> Result<Option<Source>, BatchError> {
        let (file, size) = match &self.path {
            Some(path) => match open_file(path, stopped) {
                Ok(Some(opened)) => opened,
                Ok(None) => return Ok(None),
                Err(source) => return Err(self.input_error(source)),
            },
            // Read through a file of its own, unbuffered: bytes kept in the standard input's
            // buffer would be waited for as if none had come ([`Waiting`]).
            None => {
                let fd = io::stdin().as_fd().try_clone_to_owned();
                let file = File::from(fd.map_err(|source| self.input_error(source))?);
                let size = regular_size(&file);
                (file, size)
            }
        };
        let raw: Box<dyn Read + Send> = match size {
            Some(_) => Box::new(file),
            None => Box::new(Waiting { file }),
        };
        let mut counted = CountingReader {
            inner: raw,
            count: bytes_read,
        };
        // The first bytes, to look for gzip's magic number: one read, and more only while
        // fewer than two bytes came (a pipe may give them one at a time).
        let mut head = vec![0; 1 << 16];
        let mut held = 0;
        while held < GZIP_MAGIC.len() {
            match counted.read(&mut head[held..]) {
                Ok(0) => break,
                Ok(read) => held += read,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => {
                    if stopped() {
                        return Ok(None);
                    }
                }
                Err(error) => return Err(self.input_error(error)),
            }
        }
        head.truncate(held);
        let compressed = head.starts_with(&GZIP_MAGIC);
        // The bytes looked at, then reads straight into the cutter's buffer: through a
        // buffered reader, every chunk's bytes were copied once more.
        let source = io::Cursor::new(head).chain(counted);
        if compressed {
            let decoder = GzipMembers::new(BufReader::with_capacity(1 << 16, source));
            Ok(Some((
                Box::new(BufReader::with_capacity(1 << 16, decoder)),
                None,
            )))
        } else {
            Ok(Some((Box::new(source), size)))
        }
    }

    /// The error of a CSV header that cannot be read (`source`): the run stops there.
    fn header_error(&self, source: io::Error) -> BatchError {
        let message =
            format!("its header cannot be read: {source}; the run stops before its records");
        self.input_error(io::Error::new(source.kind(), message))
    }

    pub(crate) fn input_error(&self, source: io::Error) -> BatchError {
        BatchError::Input {
            path: self.display_name(),
            source,
        }
    }
}

/// Text from a record, quoted in an error message, cut to at most
/// [`Excerpt::MAX_CHARS`] characters followed by the length of the whole, so that a huge
/// bad record does not make a huge message.
///
/// ```
/// use puzzlebench::batch::Excerpt;
///
/// assert_eq!(Excerpt::quoted("F_Red").to_string(), "\"F_Red\"");
/// assert_eq!(Excerpt::plain("[0, 2]").to_string(), "[0, 2]");
/// let long = "x".repeat(1000);
/// let cut = "x".repeat(Excerpt::MAX_CHARS);
/// assert_eq!(Excerpt::quoted(&long).to_string(), format!("\"{cut}\"… (1000 bytes)"));
/// assert_eq!(Excerpt::plain(&long).to_string(), format!("{cut}… (1000 bytes)"));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Excerpt<'a> {
    text: &'a str,
    quoted: bool,
}

impl<'a> Excerpt<'a> {
    /// Characters of the text quoted, at most.
    pub const MAX_CHARS: usize = 80;

    /// `text` in double quotes with Rust's escapes, as `{:?}` writes it.
    pub fn quoted(text: &'a str) -> Self {
        Excerpt { text, quoted: true }
    }

    /// `text` as it is.
    pub fn plain(text: &'a str) -> Self {
        Excerpt {
            text,
            quoted: false,
        }
    }
}

impl std::fmt::Display for Excerpt<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let cut = self.text.char_indices().nth(Self::MAX_CHARS);
        let shown = cut.map_or(self.text, |(end, _)| &self.text[..end]);
        if self.quoted {
            write!(f, "{shown:?}")?;
        } else {
            f.write_str(shown)?;
        }
        if cut.is_some() {
            write!(f, "… ({} bytes)", self.text.len())?;
        }
        Ok(())
    }
}

/// The file and its size (none for a named pipe or a device, whose length says nothing);
/// `None` when `stopped` turned true while a named pipe waited for its writer.
fn open_file(path: &Path, stopped: &dyn Fn() -> bool) -> io::Result<Option<(File, Option<u64>)>> {
    let Some(file) = open_unless_stopped(path, File::options().read(true), stopped)? else {
        return Ok(None);
    };
    let metadata = file.metadata()?;
    if metadata.is_dir() {
        return Err(io::Error::other("is a directory"));
    }
    Ok(Some((file, metadata.is_file().then_some(metadata.len()))))
}

/// Opens `path` with `options`; `None` when `stopped` turns true first. Opening a named
/// pipe waits for the other end, and a signal does not end the wait (the call is begun
/// again): anything but a regular file is opened on a thread of its own, watched every
/// [`IDLE_WAIT_MILLIS`], and left behind when the run stops.
pub(crate) fn open_unless_stopped(
    path: &Path,
    options: &std::fs::OpenOptions,
    stopped: &dyn Fn() -> bool,
) -> io::Result<Option<File>> {
    if std::fs::metadata(path).map_or(true, |meta| meta.is_file() || meta.is_dir()) {
        return options.open(path).map(Some);
    }
    let (path, options) = (path.to_path_buf(), options.clone());
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("open".into())
        .spawn(move || sender.send(options.open(path)))?;
    let wait = std::time::Duration::from_millis(IDLE_WAIT_MILLIS as u64);
    loop {
        match receiver.recv_timeout(wait) {
            Ok(opened) => return opened.map(Some),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) if stopped() => return Ok(None),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                return Err(io::Error::other("the thread opening it ended"));
            }
        }
    }
}

/// The size of `file` if it is a regular file (standard input redirected from one).
fn regular_size(file: &File) -> Option<u64> {
    let metadata = file.metadata().ok()?;
    metadata.is_file().then_some(metadata.len())
}

/// A pipe, terminal or device, read with a wait of at most [`IDLE_WAIT_MILLIS`]: when no
/// byte comes in that time (or a signal comes), the read fails with
/// [`io::ErrorKind::WouldBlock`]. A blocking read of an idle pipe held back the rows of the
/// records already read and did not hear Ctrl-C until its writer wrote again.
struct Waiting {
    file: File,
}

impl Read for Waiting {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut wanted = libc::pollfd {
            fd: self.file.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one `pollfd`, valid for the call; the descriptor is open while `file` is.
        let ready = unsafe { libc::poll(&mut wanted, 1, IDLE_WAIT_MILLIS) };
        if ready < 0 {
            let error = io::Error::last_os_error();
            if error.kind() != io::ErrorKind::Interrupted {
                return Err(error);
            }
        }
        if ready <= 0 {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        self.file.read(buf)
    }
}

/// Counts the raw bytes read, for progress by bytes.
struct CountingReader {
    inner: Box<dyn Read + Send>,
    count: Arc<AtomicU64>,
}

impl Read for CountingReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::io::Write;

    use crate::batch::decode::{decode_owned, OwnedContent};

    /// The header and records of `bytes` read from a file as `format`, cut into chunks of
    /// `per_chunk` records, optionally gzipped on disk.
    fn read_file(
        bytes: &[u8],
        format: InputFormat,
        per_chunk: u64,
        gzip: bool,
    ) -> (Vec<(u64, OwnedContent)>, Option<Vec<String>>) {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        if gzip {
            let mut encoder =
                flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            encoder.write_all(bytes).unwrap();
            file.write_all(&encoder.finish().unwrap()).unwrap();
        } else {
            file.write_all(bytes).unwrap();
        }
        let spec = InputSpec::new(file.path(), Some(format));
        let (mut cutter, header) = spec
            .open_chunks(Arc::new(AtomicU64::new(0)), None)
            .unwrap()
            .unwrap();
        let mut records = Vec::new();
        while let Some(chunk) = cutter.next_chunk(per_chunk, None).unwrap() {
            let decoded = decode_owned(&chunk, format);
            assert_eq!(decoded.len() as u64, chunk.records, "{chunk:?}");
            records.extend(decoded);
        }
        (records, header)
    }

    /// The same records whatever the chunk size and whether the file is gzipped.
    fn records(text: &str, format: InputFormat) -> (Vec<(u64, OwnedContent)>, Option<Vec<String>>) {
        let whole = read_file(text.as_bytes(), format, u64::MAX, false);
        for per_chunk in [1, 2, 3] {
            for gzip in [false, true] {
                let (records, header) = read_file(text.as_bytes(), format, per_chunk, gzip);
                assert_eq!(header, whole.1);
                assert_eq!(format!("{records:?}"), format!("{:?}", whole.0));
            }
        }
        whole
    }

    #[test]
    fn a_path_that_is_not_utf8_is_written_with_its_bytes_escaped() {
        use std::os::unix::ffi::OsStrExt;
        let name = |bytes: &[u8]| path_text(Path::new(std::ffi::OsStr::from_bytes(bytes)));
        assert_eq!(name(b"a\xff.txt"), "a\\xff.txt");
        assert_ne!(name(b"a\xff.txt"), name(b"a\xfe.txt"));
        assert_eq!(name("é/b.csv".as_bytes()), "é/b.csv");
    }

    #[test]
    fn lines_skip_blanks_and_comments_and_keep_physical_numbers() {
        let (records, header) = records("# c\nabc\r\n\n   \n  # indented\ndef", InputFormat::Lines);
        assert!(header.is_none());
        let got: Vec<_> = records
            .iter()
            .map(|(line, content)| match content {
                OwnedContent::Line(text) => (*line, text.clone()),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(got, vec![(2, "abc".to_string()), (6, "def".to_string())]);
    }

    #[test]
    fn invalid_utf8_line_is_an_unreadable_record() {
        let (records, _) = read_file(b"ok\nab\xffc\n", InputFormat::Lines, 1, false);
        let bad = &records[1];
        assert_eq!(bad.0, 2);
        assert!(
            matches!(bad.1, OwnedContent::Unreadable(ref m) if m == "not valid UTF-8 at byte 3")
        );
    }

    #[test]
    fn blocks_are_separated_by_blank_lines() {
        let (records, _) = records("# f\n10\n01\n\n\n11\n# c\n00\n\n01", InputFormat::Blocks);
        let got: Vec<_> = records
            .iter()
            .map(|(line, content)| match content {
                OwnedContent::Line(text) => (*line, text.clone()),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (2, "10\n01".to_string()),
                (6, "11\n00".to_string()),
                (10, "01".to_string())
            ]
        );
    }

    #[test]
    fn csv_records_carry_header_and_line_numbers() {
        let (records, header) =
            records("# head\na,b\n1,2\n\n# note\n3,\n\n4,5\n", InputFormat::Csv);
        assert_eq!(header.unwrap(), vec!["a", "b"]);
        let got: Vec<_> = records
            .iter()
            .map(|(line, content)| match content {
                OwnedContent::Fields(fields) => (*line, fields.clone()),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (3, vec!["1".to_string(), "2".to_string()]),
                (6, vec!["3".to_string(), String::new()]),
                (8, vec!["4".to_string(), "5".to_string()]),
            ]
        );
    }

    #[test]
    fn a_csv_file_without_records_has_no_header() {
        let (records, header) = records("# only a comment\n\n", InputFormat::Csv);
        assert!(records.is_empty());
        assert!(header.is_none());
    }

    #[test]
    fn crlf_line_endings_are_not_part_of_records() {
        let (records, header) = records("a,b\r\n1,2\r\n\r\n3,4\r\n", InputFormat::Csv);
        assert_eq!(header.unwrap(), vec!["a", "b"]);
        let got: Vec<_> = records
            .iter()
            .map(|(line, content)| match content {
                OwnedContent::Fields(fields) => (*line, fields.join("|")),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(got, vec![(2, "1|2".to_string()), (4, "3|4".to_string())]);
    }

    #[test]
    fn format_is_detected_from_the_name() {
        assert_eq!(InputSpec::new("a.csv", None).format, InputFormat::Csv);
        assert_eq!(InputSpec::new("a.CSV.gz", None).format, InputFormat::Csv);
        assert_eq!(InputSpec::new("a.txt", None).format, InputFormat::Lines);
        assert_eq!(
            InputSpec::new("a.txt", Some(InputFormat::Csv)).format,
            InputFormat::Csv
        );
        assert_eq!(InputSpec::new("-", None).path, None);
    }
}
