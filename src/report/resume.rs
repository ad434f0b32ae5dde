//! `--resume`: an interrupted run's results file, read back to see where it stopped, cut
//! after its last whole row and opened to take the rest.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::OutputFormat;
use crate::batch::{Excerpt, ResumePoint};

/// A results file opened to go on with.
#[derive(Debug)]
pub struct Resumed {
    /// The file, to be cut after its last whole row when the first new bytes come.
    pub file: ResumedFile,
    /// Where the earlier run stopped; `None` when the file is empty (its columns are
    /// not known).
    pub point: Option<ResumePoint>,
}

/// A results file to go on with. Its torn last line is cut off only when the first new
/// bytes are written: a run refused before it writes a row (its rows do not match the
/// inputs) leaves the file as it was.
#[derive(Debug)]
pub struct ResumedFile {
    file: File,
    /// The length to cut the file to before the first write; `None` once cut.
    cut_at: Option<u64>,
}

impl io::Write for ResumedFile {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        if let Some(length) = self.cut_at {
            self.file.set_len(length)?;
            self.file.seek(SeekFrom::End(0))?;
            self.cut_at = None;
        }
        self.file.write(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// Why a results file cannot be resumed.
#[derive(Debug, Error)]
pub enum ResumeError {
    /// The file cannot be read or cut.
    #[error("cannot resume {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// Another run is writing the file.
    #[error(transparent)]
    Busy(#[from] super::Busy),
    /// The file is not a results file of the format asked for.
    #[error("cannot resume {}: {why}", path.display())]
    NotResults {
        /// The file.
        path: PathBuf,
        /// What is wrong, and where.
        why: String,
    },
}

/// Opens the results file at `path`, written in `format` by an interrupted run, to append
/// the rows still missing: a torn last line is cut off before the first new row, and the
/// file's columns and last row say where the run stopped. A missing file is an error:
/// `--resume` continues a run; a file that is not a results file is refused unchanged.
///
/// A CSV file written without a header (`header` false, `--no-header`) gives a point
/// without columns ([`ResumePoint::headerless`]): the run checks its rows against its own.
pub fn resume_output(
    path: &Path,
    format: OutputFormat,
    header: bool,
) -> Result<Resumed, ResumeError> {
    let io_error = |source| ResumeError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(io_error)?;
    if !file.metadata().is_ok_and(|meta| meta.is_file()) {
        // A device or a pipe has no rows to read back and cannot be cut.
        return Err(ResumeError::NotResults {
            path: path.to_path_buf(),
            why: "--resume continues a results file, and this is not a regular file".into(),
        });
    }
    // Read and cut only once no other run writes it.
    super::lock::lock_results(&file, path)?;
    let whole = whole_lines_length(&mut file).map_err(io_error)?;
    file.seek(SeekFrom::Start(0)).map_err(io_error)?;
    // The whole lines are read before anything is cut: a file that turns out not to be a
    // results file (a user's data named by mistake) is refused as it was.
    let scanned = match format {
        OutputFormat::Csv => scan_csv(&mut file, whole, header),
        OutputFormat::Jsonl => {
            scan_jsonl(BufReader::new((&mut file).take(whole))).map(|point| (point, whole))
        }
    };
    let (point, cut_at) = scanned.map_err(|why| ResumeError::NotResults {
        path: path.to_path_buf(),
        why,
    })?;
    Ok(Resumed {
        file: ResumedFile {
            file,
            cut_at: Some(cut_at),
        },
        point,
    })
}

/// The length of `file` up to the end of its last line ending (what follows it is a row
/// cut short).
fn whole_lines_length(file: &mut File) -> io::Result<u64> {
    let length = file.metadata()?.len();
    let mut end = length;
    let mut block = vec![0u8; 1 << 16];
    while end > 0 {
        let start = end.saturating_sub(block.len() as u64);
        let part = &mut block[..(end - start) as usize];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(part)?;
        if let Some(newline) = memchr::memrchr(b'\n', part) {
            return Ok(start + newline as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

/// The header (when `header`) and the last row of a CSV results file whose whole lines
/// are its first `whole` bytes, and the length its whole rows take: a row cut short
/// inside a quoted field that holds a line break ends at an LF that is not the row's own,
/// and is left out.
///
/// Rows end at LF alone, as the torn last line is found: a results file ends its rows with
/// LF (or CRLF, once converted), and quotes any field that holds a CR, so a bare CR is
/// part of its field (the csv crate's default, a row ended by a bare CR too, let a file
/// count more rows than it has lines). The CR of a CRLF is taken off the row's last field.
fn scan_csv(
    file: &mut File,
    whole: u64,
    header: bool,
) -> Result<(Option<ResumePoint>, u64), String> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(header)
        .flexible(!header)
        .terminator(csv::Terminator::Any(b'\n'))
        .from_reader(BufReader::new((&mut *file).take(whole)));
    let mut columns: Vec<String> = Vec::new();
    if header {
        columns = match reader.headers() {
            Ok(header) => header.iter().map(String::from).collect(),
            Err(error) => return Err(format!("not CSV: {error}")),
        };
        without_cr(&mut columns);
        if columns.len() <= 1 && columns.iter().all(String::is_empty) {
            return Ok((None, whole));
        }
        // A JSON Lines results file read as CSV: its first line is an object.
        if columns
            .first()
            .is_some_and(|first| first.starts_with("{\""))
        {
            return Err(
                "its rows are JSON Lines, not CSV (a file written with --output-format jsonl needs it again)"
                    .into(),
            );
        }
    }
    let rows = count_rows(&mut reader);
    drop(reader);
    let line_column = columns.iter().position(|c| c == "line");
    let rows = settle(rows?, file, whole, line_column)?;
    let mut last_row: Vec<String> = rows.last.iter().map(String::from).collect();
    without_cr(&mut last_row);
    let cut_at = rows.torn_from.unwrap_or(whole);
    if !header {
        return Ok((
            (rows.count > 0).then(|| ResumePoint::headerless(rows.count, last_row)),
            cut_at,
        ));
    }
    let headed = columns.iter().any(|c| c == "line");
    ResumePoint::after(columns, rows.count, last_row)
        .map(|point| (Some(point), cut_at))
        .map_err(|why| match headed {
            true => why,
            false => format!("{why} (a file written with --no-header needs it again)"),
        })
}

/// The rows a CSV reader found, before the last one is known to be whole.
struct Rows {
    /// Rows read.
    count: u64,
    /// The last row read (empty without rows), and the one before it.
    last: csv::StringRecord,
    previous: csv::StringRecord,
    /// Where the last row read starts, in bytes from the file's start.
    last_start: u64,
    /// A row that could not be read with nothing after it: where it starts, why, and
    /// the fields read of it.
    failed_last: Option<(u64, String, csv::StringRecord)>,
}

/// The rows left in `reader`, the last two of them, and a last one that cannot be read.
fn count_rows(reader: &mut csv::Reader<impl Read>) -> Result<Rows, String> {
    let mut rows = Rows {
        count: 0,
        last: csv::StringRecord::new(),
        previous: csv::StringRecord::new(),
        last_start: 0,
        failed_last: None,
    };
    let mut record = csv::StringRecord::new();
    loop {
        let start = reader.position().byte();
        match reader.read_record(&mut record) {
            Ok(true) => {
                rows.count += 1;
                // Kept by swapping, not copying: a results file may have millions of rows.
                std::mem::swap(&mut rows.previous, &mut rows.last);
                std::mem::swap(&mut rows.last, &mut record);
                rows.last_start = start;
            }
            Ok(false) => break,
            Err(error) => {
                let why = format!("row {}: {error}", rows.count + 1);
                // The last row, cut inside a quoted field, may have too few fields.
                if matches!(reader.read_record(&mut csv::StringRecord::new()), Ok(false)) {
                    rows.failed_last = Some((start, why, record));
                    break;
                }
                return Err(why);
            }
        }
    }
    Ok(rows)
}

/// What the rows of the first `whole` bytes of `file` come to.
struct SettledRows {
    /// Whole rows.
    count: u64,
    /// The last whole row (empty without rows).
    last: csv::StringRecord,
    /// Where a row cut short inside a quoted field starts: the file's whole rows end there.
    torn_from: Option<u64>,
}

/// Settles whether the last row of `rows` (read from the first `whole` bytes of `file`)
/// is whole. A results file quotes its fields in pairs of quotes, so a row whose bytes
/// hold an odd number of them was cut inside a quoted field, if its `line` field (at
/// `line_column`; never quoted) is a line number: it is left out, and so is a last row
/// that could not be read for that reason. Any other row that cannot be read makes the
/// file not a results file (as does an unclosed quote in a user's data).
fn settle(
    rows: Rows,
    file: &mut File,
    whole: u64,
    line_column: Option<usize>,
) -> Result<SettledRows, String> {
    let mut cut_in_quotes = |start: u64, record: &csv::StringRecord| -> Result<bool, String> {
        let numbered = line_column
            .and_then(|column| record.get(column))
            .is_some_and(|line| line.parse::<u64>().is_ok());
        let quotes = quotes_between(file, start, whole).map_err(|e| e.to_string())?;
        Ok(numbered && quotes % 2 == 1)
    };
    if let Some((start, why, record)) = &rows.failed_last {
        if !cut_in_quotes(*start, record)? {
            return Err(why.clone());
        }
        let start = *start;
        return Ok(SettledRows {
            count: rows.count,
            last: rows.last,
            torn_from: Some(start),
        });
    }
    if rows.count > 0 && cut_in_quotes(rows.last_start, &rows.last)? {
        return Ok(SettledRows {
            count: rows.count - 1,
            last: rows.previous,
            torn_from: Some(rows.last_start),
        });
    }
    Ok(SettledRows {
        count: rows.count,
        last: rows.last,
        torn_from: None,
    })
}

/// How many `"` bytes `file` holds from byte `start` to byte `end`.
fn quotes_between(file: &mut File, start: u64, end: u64) -> io::Result<u64> {
    file.seek(SeekFrom::Start(start))?;
    let mut quotes = 0;
    let mut reader = BufReader::new(file.take(end.saturating_sub(start)));
    loop {
        let block = reader.fill_buf()?;
        if block.is_empty() {
            return Ok(quotes);
        }
        quotes += memchr::memchr_iter(b'"', block).count() as u64;
        let length = block.len();
        reader.consume(length);
    }
}
/// Takes the CR of a CRLF line ending off a row's last field.
fn without_cr(fields: &mut [String]) {
    if let Some(last) = fields.last_mut() {
        if last.ends_with('\r') {
            last.pop();
        }
    }
}

/// The keys of the first object and the last row of a JSON Lines results file.
fn scan_jsonl(lines: impl BufRead) -> Result<Option<ResumePoint>, String> {
    let mut columns = Vec::new();
    let mut rows = 0u64;
    let mut last = String::new();
    for (index, line) in lines.lines().enumerate() {
        let line = line.map_err(|e| format!("line {}: {e}", index + 1))?;
        if rows == 0 {
            let object: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&line)
                .map_err(|e| {
                    format!(
                        "line 1 is not a JSON object ({e}): {}",
                        Excerpt::quoted(&line)
                    )
                })?;
            columns = object.keys().cloned().collect();
        }
        rows += 1;
        last = line;
    }
    if rows == 0 {
        return Ok(None);
    }
    let object: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&last).map_err(|e| {
            format!(
                "line {rows} is not a JSON object ({e}): {}",
                Excerpt::quoted(&last)
            )
        })?;
    // `null` is how the rows write an empty cell (a lines input's carried cells, an error
    // row's values): read back as empty, as CSV's empty cell is.
    let text = |name: &str| {
        object.get(name).map(|value| match value {
            serde_json::Value::String(text) => text.clone(),
            serde_json::Value::Null => String::new(),
            other => other.to_string(),
        })
    };
    let last_row = columns
        .iter()
        .map(|c| text(c).unwrap_or_default())
        .collect();
    ResumePoint::after(columns, rows, last_row).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn resume(text: &str, format: OutputFormat) -> (Resumed, String) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rows");
        std::fs::write(&path, text).unwrap();
        let mut resumed = resume_output(&path, format, true).unwrap();
        resumed.file.write_all(b"NEXT\n").unwrap();
        let after = std::fs::read_to_string(&path).unwrap();
        (resumed, after)
    }

    #[test]
    fn a_device_is_no_results_file_to_resume() {
        let error = resume_output(Path::new("/dev/null"), OutputFormat::Csv, true)
            .err()
            .unwrap()
            .to_string();
        assert_eq!(
            error,
            "cannot resume /dev/null: --resume continues a results file, and this is not a \
             regular file"
        );
    }

    #[test]
    fn a_file_without_header_gives_its_rows_and_last_row() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rows");
        std::fs::write(&path, "1,ok,\n3,ok,\"a, b\"\n5,o").unwrap();
        let mut resumed = resume_output(&path, OutputFormat::Csv, false).unwrap();
        assert_eq!(
            resumed.point,
            Some(ResumePoint::headerless(
                2,
                ["3", "ok", "a, b"].map(String::from).to_vec()
            ))
        );
        // The torn row stays until the first new row replaces it.
        assert_eq!(std::fs::read(&path).unwrap(), b"1,ok,\n3,ok,\"a, b\"\n5,o");
        resumed.file.write_all(b"5,ok,\n").unwrap();
        assert_eq!(
            std::fs::read(&path).unwrap(),
            b"1,ok,\n3,ok,\"a, b\"\n5,ok,\n"
        );
        // Read as if it had a header, it is refused, with a hint (once the run that holds
        // the file has closed it).
        drop(resumed);
        std::fs::write(&path, "1,ok,\n3,ok,\n").unwrap();
        let error = resume_output(&path, OutputFormat::Csv, true).unwrap_err();
        assert!(error.to_string().contains("--no-header"), "{error}");
    }

    #[test]
    fn a_torn_csv_row_is_cut_off_and_the_last_whole_row_is_the_point() {
        let text = "line,status,error\n1,ok,\n3,ok,\"a, b\"\n5,o";
        let (resumed, after) = resume(text, OutputFormat::Csv);
        assert_eq!(
            resumed.point,
            Some(ResumePoint {
                columns: ["line", "status", "error"].map(String::from).to_vec(),
                rows: 2,
                last_file: None,
                last_line: 3,
                last_row: ["3", "ok", "a, b"].map(String::from).to_vec(),
            })
        );
        assert_eq!(after, "line,status,error\n1,ok,\n3,ok,\"a, b\"\nNEXT\n");
    }

    #[test]
    fn several_inputs_give_the_file_of_the_last_row() {
        let text = "file,line,status\na.txt,9,ok\nb.txt,2,ok\n";
        let (resumed, _) = resume(text, OutputFormat::Csv);
        let point = resumed.point.unwrap();
        assert_eq!(point.last_file.as_deref(), Some("b.txt"));
        assert_eq!((point.rows, point.last_line), (2, 2));
    }

    #[test]
    fn a_header_alone_or_an_empty_file_has_no_point() {
        let (resumed, _) = resume("line,status\n", OutputFormat::Csv);
        let point = resumed.point.unwrap();
        assert_eq!((point.columns.len(), point.rows), (2, 0));
        let (resumed, after) = resume("line,sta", OutputFormat::Csv);
        assert_eq!(resumed.point, None);
        assert_eq!(after, "NEXT\n");
    }

    #[test]
    fn json_lines_give_their_keys_and_last_line() {
        let text = "{\"line\":1,\"status\":\"ok\"}\n{\"line\":4,\"status\":\"ok\"}\n{\"li";
        let (resumed, after) = resume(text, OutputFormat::Jsonl);
        let point = resumed.point.unwrap();
        assert_eq!(point.columns, ["line", "status"]);
        assert_eq!(point.last_line, 4);
        assert!(after.ends_with("\"ok\"}\nNEXT\n"));
    }

    #[test]
    fn json_lines_read_as_csv_are_refused_with_the_option_they_need() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rows");
        let text = "{\"line\":1,\"status\":\"ok\",\"error\":\"a, b\"}\n";
        std::fs::write(&path, text).unwrap();
        let error = resume_output(&path, OutputFormat::Csv, true).unwrap_err();
        assert!(
            error.to_string().contains("--output-format jsonl"),
            "{error}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    }

    #[test]
    fn a_file_that_is_not_results_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("puzzles.txt");
        std::fs::write(&path, "not json\n").unwrap();
        let error = resume_output(&path, OutputFormat::Jsonl, true).unwrap_err();
        assert!(error.to_string().contains("not a JSON object"), "{error}");
        std::fs::write(&path, "puzzle\n..3..\n").unwrap();
        let error = resume_output(&path, OutputFormat::Csv, true).unwrap_err();
        assert!(error.to_string().contains("no line column"), "{error}");
    }
}
