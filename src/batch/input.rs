//! Opening inputs (files, standard input, gzip) and reading them record by record.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use flate2::read::MultiGzDecoder;

use super::{BatchError, Record, RecordContent};

/// How an input's records are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputFormat {
    /// One record per line; blank lines and `#` lines are skipped.
    Lines,
    /// CSV with a header row; `#` lines are skipped.
    Csv,
    /// One record per block of consecutive lines, blocks separated by blank lines; `#`
    /// lines are skipped. A record's text keeps its line breaks (`\n`).
    Blocks,
}

/// One input named on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputSpec {
    /// The file, or `None` for standard input.
    pub path: Option<PathBuf>,
    /// How to read it.
    pub format: InputFormat,
}

impl InputSpec {
    /// An input for `name` (`-` is standard input). The format is `forced` if given, else
    /// CSV for names ending in `.csv` or `.csv.gz`, else lines.
    pub fn new(name: &str, forced: Option<InputFormat>) -> Self {
        let path = (name != "-").then(|| PathBuf::from(name));
        let format = forced.unwrap_or_else(|| {
            let lower = name.to_ascii_lowercase();
            if lower.ends_with(".csv") || lower.ends_with(".csv.gz") {
                InputFormat::Csv
            } else {
                InputFormat::Lines
            }
        });
        InputSpec { path, format }
    }

    /// The input as the user named it.
    pub fn display_name(&self) -> String {
        match &self.path {
            Some(path) => path.display().to_string(),
            None => "-".to_string(),
        }
    }

    /// Size in bytes on disk, if it is a file.
    pub(crate) fn size(&self) -> Option<u64> {
        let path = self.path.as_ref()?;
        std::fs::metadata(path).ok().map(|meta| meta.len())
    }

    /// Opens the input, decompressing gzip transparently (detected by its magic bytes).
    /// Raw bytes read are added to `bytes_read`.
    pub(crate) fn open(
        &self,
        bytes_read: Arc<AtomicU64>,
    ) -> Result<Box<dyn BufRead + Send>, BatchError> {
        let raw: Box<dyn Read + Send> = match &self.path {
            Some(path) => Box::new(open_file(path).map_err(|source| self.input_error(source))?),
            None => Box::new(io::stdin()),
        };
        let mut counted = BufReader::with_capacity(
            1 << 16,
            CountingReader {
                inner: raw,
                count: bytes_read,
            },
        );
        let head = counted
            .fill_buf()
            .map_err(|source| self.input_error(source))?;
        if head.starts_with(&[0x1f, 0x8b]) {
            Ok(Box::new(BufReader::with_capacity(
                1 << 16,
                MultiGzDecoder::new(counted),
            )))
        } else {
            Ok(Box::new(counted))
        }
    }

    pub(crate) fn input_error(&self, source: io::Error) -> BatchError {
        BatchError::Input {
            path: self.display_name(),
            source,
        }
    }
}

fn open_file(path: &Path) -> io::Result<File> {
    let file = File::open(path)?;
    if file.metadata()?.is_dir() {
        return Err(io::Error::other("is a directory"));
    }
    Ok(file)
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

/// Reads the records of one input, one at a time.
pub(crate) enum RecordReader {
    Lines {
        reader: Box<dyn BufRead + Send>,
        buffer: Vec<u8>,
        line: u64,
        /// Whether records are blocks of lines rather than single lines.
        blocks: bool,
    },
    Csv {
        reader: Box<csv::Reader<SkippingReader>>,
        record: csv::ByteRecord,
        offsets: Arc<Mutex<VecDeque<LineOffset>>>,
    },
}

/// From CSV line `from` on (counting only the lines the CSV parser sees), the physical line
/// number is `from + skipped`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LineOffset {
    from: u64,
    skipped: u64,
}

/// Hands the CSV parser every line except blank and `#` lines, noting how many it skipped
/// so that records keep their physical line numbers.
pub(crate) struct SkippingReader {
    inner: Box<dyn BufRead + Send>,
    line: Vec<u8>,
    position: usize,
    physical: u64,
    passed: u64,
    /// The skipped count of the last offset pushed (0 before any).
    last_skipped: u64,
    offsets: Arc<Mutex<VecDeque<LineOffset>>>,
}

impl Read for SkippingReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.position == self.line.len() {
            self.line.clear();
            self.position = 0;
            if self.inner.read_until(b'\n', &mut self.line)? == 0 {
                return Ok(0);
            }
            self.physical += 1;
            let text = self.line.trim_ascii();
            if text.is_empty() || text.starts_with(b"#") {
                self.line.clear();
                continue;
            }
            self.passed += 1;
            let skipped = self.physical - self.passed;
            // The lock only when the offset changes, not for every line.
            if skipped != self.last_skipped {
                self.last_skipped = skipped;
                let mut offsets = self
                    .offsets
                    .lock()
                    .map_err(|_| io::Error::other("poisoned"))?;
                offsets.push_back(LineOffset {
                    from: self.passed,
                    skipped,
                });
            }
        }
        let n = buf.len().min(self.line.len() - self.position);
        buf[..n].copy_from_slice(&self.line[self.position..self.position + n]);
        self.position += n;
        Ok(n)
    }
}

/// The physical line of CSV line `line`, dropping offsets no later record can need.
fn physical_line(offsets: &Mutex<VecDeque<LineOffset>>, line: u64) -> u64 {
    let Ok(mut offsets) = offsets.lock() else {
        return line;
    };
    while offsets.len() > 1 && offsets[1].from <= line {
        offsets.pop_front();
    }
    match offsets.front() {
        Some(offset) if offset.from <= line => line + offset.skipped,
        _ => line,
    }
}

impl RecordReader {
    /// Starts reading; for CSV also returns the header's fields.
    pub(crate) fn new(
        reader: Box<dyn BufRead + Send>,
        format: InputFormat,
    ) -> io::Result<(Self, Option<Vec<String>>)> {
        match format {
            InputFormat::Lines | InputFormat::Blocks => Ok((
                RecordReader::Lines {
                    reader,
                    buffer: Vec::new(),
                    line: 0,
                    blocks: format == InputFormat::Blocks,
                },
                None,
            )),
            InputFormat::Csv => {
                let offsets = Arc::new(Mutex::new(VecDeque::new()));
                let skipping = SkippingReader {
                    inner: reader,
                    line: Vec::new(),
                    position: 0,
                    physical: 0,
                    passed: 0,
                    last_skipped: 0,
                    offsets: Arc::clone(&offsets),
                };
                let mut csv_reader = csv::ReaderBuilder::new()
                    .has_headers(true)
                    .flexible(true)
                    .from_reader(skipping);
                let header = csv_reader
                    .byte_headers()
                    .map_err(csv_to_io)?
                    .iter()
                    .map(|field| String::from_utf8_lossy(field).trim().to_string())
                    .collect();
                Ok((
                    RecordReader::Csv {
                        reader: Box::new(csv_reader),
                        record: csv::ByteRecord::new(),
                        offsets,
                    },
                    Some(header),
                ))
            }
        }
    }

    /// The next record, `Ok(None)` at the end of the input.
    pub(crate) fn next_record(&mut self) -> io::Result<Option<Record>> {
        match self {
            RecordReader::Lines {
                reader,
                buffer,
                line,
                blocks,
            } => {
                let mut block: Option<(u64, Result<String, String>)> = None;
                loop {
                    buffer.clear();
                    if reader.read_until(b'\n', buffer)? == 0 {
                        break;
                    }
                    *line += 1;
                    while matches!(buffer.last(), Some(b'\n' | b'\r')) {
                        buffer.pop();
                    }
                    let text = buffer.trim_ascii();
                    if text.starts_with(b"#") {
                        continue;
                    }
                    if text.is_empty() {
                        if block.is_some() {
                            break;
                        }
                        continue;
                    }
                    let decoded = std::str::from_utf8(buffer).map_err(|error| {
                        let message =
                            format!("not valid UTF-8 at byte {}", error.valid_up_to() + 1);
                        if *blocks {
                            format!("line {line}: {message}")
                        } else {
                            message
                        }
                    });
                    match (&mut block, decoded) {
                        (None, decoded) => block = Some((*line, decoded.map(str::to_string))),
                        (Some((_, Ok(text))), Ok(more)) => {
                            text.push('\n');
                            text.push_str(more);
                        }
                        (Some((_, first @ Ok(_))), Err(error)) => *first = Err(error),
                        (Some((_, Err(_))), _) => {}
                    }
                    if !*blocks {
                        break;
                    }
                }
                Ok(block.map(|(line, text)| Record {
                    line,
                    content: match text {
                        Ok(text) => RecordContent::Line(text),
                        Err(message) => RecordContent::Unreadable(message),
                    },
                }))
            }
            RecordReader::Csv {
                reader,
                record,
                offsets,
            } => match reader.read_byte_record(record) {
                Ok(false) => Ok(None),
                Ok(true) => {
                    let line = record.position().map_or(0, |pos| pos.line());
                    let line = physical_line(offsets, line);
                    let mut fields = Vec::with_capacity(record.len());
                    for (index, field) in record.iter().enumerate() {
                        match std::str::from_utf8(field) {
                            Ok(text) => fields.push(text.to_string()),
                            Err(_) => {
                                return Ok(Some(Record {
                                    line,
                                    content: RecordContent::Unreadable(format!(
                                        "field {} is not valid UTF-8",
                                        index + 1
                                    )),
                                }))
                            }
                        }
                    }
                    Ok(Some(Record {
                        line,
                        content: RecordContent::Fields(fields),
                    }))
                }
                Err(error) => match error.kind() {
                    csv::ErrorKind::Io(_) => Err(csv_to_io(error)),
                    _ => {
                        let line = error.position().map_or(0, |pos| pos.line());
                        let line = physical_line(offsets, line);
                        Ok(Some(Record {
                            line,
                            content: RecordContent::Unreadable(error.to_string()),
                        }))
                    }
                },
            },
        }
    }
}

fn csv_to_io(error: csv::Error) -> io::Error {
    match error.into_kind() {
        csv::ErrorKind::Io(error) => error,
        other => io::Error::new(io::ErrorKind::InvalidData, format!("{other:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(text: &str, format: InputFormat) -> (Vec<Record>, Option<Vec<String>>) {
        let reader: Box<dyn BufRead + Send> = Box::new(io::Cursor::new(text.as_bytes().to_vec()));
        let (mut reader, header) = RecordReader::new(reader, format).unwrap();
        let mut out = Vec::new();
        while let Some(record) = reader.next_record().unwrap() {
            out.push(record);
        }
        (out, header)
    }

    #[test]
    fn lines_skip_blanks_and_comments_and_keep_physical_numbers() {
        let (records, header) = records("# c\nabc\r\n\n   \n  # indented\ndef", InputFormat::Lines);
        assert!(header.is_none());
        let got: Vec<_> = records
            .iter()
            .map(|r| match &r.content {
                RecordContent::Line(text) => (r.line, text.clone()),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(got, vec![(2, "abc".to_string()), (6, "def".to_string())]);
    }

    #[test]
    fn invalid_utf8_line_is_an_unreadable_record() {
        let reader: Box<dyn BufRead + Send> = Box::new(io::Cursor::new(b"ok\nab\xffc\n".to_vec()));
        let (mut reader, _) = RecordReader::new(reader, InputFormat::Lines).unwrap();
        reader.next_record().unwrap();
        let bad = reader.next_record().unwrap().unwrap();
        assert_eq!(bad.line, 2);
        assert!(
            matches!(bad.content, RecordContent::Unreadable(ref m) if m == "not valid UTF-8 at byte 3")
        );
    }

    #[test]
    fn blocks_are_separated_by_blank_lines() {
        let (records, _) = records("# f\n10\n01\n\n\n11\n# c\n00\n\n01", InputFormat::Blocks);
        let got: Vec<_> = records
            .iter()
            .map(|r| match &r.content {
                RecordContent::Line(text) => (r.line, text.clone()),
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
            .map(|r| match &r.content {
                RecordContent::Fields(fields) => (r.line, fields.clone()),
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
