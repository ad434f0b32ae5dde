//! Which lines of an input start a record, worked out the plain way: the whole input in
//! memory, one pass over its physical lines, no chunks. The batch runner cuts inputs into
//! chunks while reading and must come to the same records whatever the cut.
//!
//! The rules are the documented ones (docs/input.md): a line ends at `\n`, `\r\n` or a
//! lone `\r`; a leading UTF-8 byte order mark is not part of the input; blank and `#`
//! lines outside records are skipped; a CSV record runs to a line ending outside quotes,
//! and one whose quote is still open at the end of the input is one faulty record, after
//! which reading goes on at the line after the quote's.

use puzzlebench::batch::InputFormat;

/// The records of an input, by the line each starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    /// The 1-based line of each record that becomes a row (for CSV, every record after
    /// the header).
    pub lines: Vec<u64>,
    /// For CSV: the header itself is faulty (its quote never closes), so the run stops.
    pub header_fault: bool,
    /// Whether some record is faulty (a CSV quote never closed).
    pub faults: bool,
    /// Whether every line and record is within `max` bytes, the longest record allowed:
    /// only then is `lines` what the runner must give.
    pub within_limit: bool,
}

/// One physical line: where its text starts and ends and where its line ending ends.
#[derive(Debug, Clone, Copy)]
struct Line {
    start: usize,
    content_end: usize,
    end: usize,
}

fn physical_lines(bytes: &[u8]) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                lines.push(Line {
                    start,
                    content_end: i,
                    end: i + 1,
                });
                start = i + 1;
            }
            b'\r' => {
                let end = if bytes.get(i + 1) == Some(&b'\n') {
                    i + 2
                } else {
                    i + 1
                };
                lines.push(Line {
                    start,
                    content_end: i,
                    end,
                });
                start = end;
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    if start < bytes.len() {
        lines.push(Line {
            start,
            content_end: bytes.len(),
            end: bytes.len(),
        });
    }
    lines
}

fn blank_or_comment(text: &[u8]) -> bool {
    let text = text.trim_ascii();
    text.is_empty() || text[0] == b'#'
}

/// The expected records of `input` read as `format` with records of at most `max` bytes.
pub fn expected(input: &[u8], format: InputFormat, max: usize) -> Expected {
    let bytes = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input);
    let lines = physical_lines(bytes);
    let text = |line: &Line| &bytes[line.start..line.content_end];
    let mut records: Vec<u64> = Vec::new();
    let mut faults = Vec::new();
    // For each line, where the unit its length is measured from starts: the record still
    // open before it, else the line itself.
    let mut within_limit = true;
    let mut measure = |open_start: Option<usize>, line: &Line| {
        within_limit &= line.content_end - open_start.unwrap_or(line.start) <= max;
    };
    match format {
        InputFormat::Lines => {
            for (index, line) in lines.iter().enumerate() {
                measure(None, line);
                if !blank_or_comment(text(line)) {
                    records.push(index as u64 + 1);
                }
            }
        }
        InputFormat::Blocks => {
            let mut open: Option<(u64, usize)> = None;
            for (index, line) in lines.iter().enumerate() {
                measure(open.map(|(_, start)| start), line);
                let trimmed = text(line).trim_ascii();
                if trimmed.first() == Some(&b'#') {
                    continue;
                }
                if trimmed.is_empty() {
                    if let Some((first, _)) = open.take() {
                        records.push(first);
                    }
                } else if open.is_none() {
                    open = Some((index as u64 + 1, line.start));
                }
            }
            if let Some((first, _)) = open {
                records.push(first);
            }
        }
        InputFormat::Csv => {
            let mut index = 0;
            let mut open: Option<(usize, CsvRecord)> = None;
            while index < lines.len() {
                let line = &lines[index];
                measure(open.as_ref().map(|(first, _)| lines[*first].start), line);
                let mut record = match open.take() {
                    Some(open) => open,
                    None if blank_or_comment(text(line)) => {
                        index += 1;
                        continue;
                    }
                    None => (index, CsvRecord::default()),
                };
                let whole = &bytes[line.start..line.end];
                if record.1.take_line(whole, index) {
                    records.push(record.0 as u64 + 1);
                } else if index + 1 == lines.len() {
                    // The input ends inside a quoted field: one faulty record, and
                    // reading goes on after the quote's line.
                    records.push(record.0 as u64 + 1);
                    faults.push(records.len() - 1);
                    index = record.1.quote_line.expect("an open quote") + 1;
                    continue;
                } else {
                    open = Some(record);
                }
                index += 1;
            }
        }
    }
    let header = format == InputFormat::Csv;
    let header_fault = header && faults.first() == Some(&0);
    if header && !records.is_empty() {
        records.remove(0);
    }
    Expected {
        lines: records,
        header_fault,
        faults: !faults.is_empty(),
        within_limit,
    }
}

/// A CSV record being read, line by line, with RFC 4180 quoting.
#[derive(Debug, Default)]
struct CsvRecord {
    /// Inside a quoted field.
    in_quotes: bool,
    /// Just after a `"` inside a quoted field (closing it, or the first of `""`).
    quote_seen: bool,
    /// At the first byte of a field.
    field_started: bool,
    /// The line of the quote that opened the quoted field we are in.
    quote_line: Option<usize>,
}

impl CsvRecord {
    /// Takes line `index` (with its line ending): whether the record ends with it.
    fn take_line(&mut self, line: &[u8], index: usize) -> bool {
        for &byte in line {
            if self.in_quotes {
                if self.quote_seen {
                    self.quote_seen = false;
                    if byte != b'"' {
                        // The quote closed the quoted field; this byte is outside quotes.
                        self.in_quotes = false;
                        self.quote_line = None;
                        if self.outside(byte, index) {
                            return true;
                        }
                    }
                } else if byte == b'"' {
                    self.quote_seen = true;
                }
            } else if self.outside(byte, index) {
                return true;
            }
        }
        // A line without a line ending ends the input, and its record with it, unless a
        // quoted field is open (a closing quote last of all closes it).
        !self.in_quotes || self.quote_seen
    }

    /// A byte outside quotes: whether it ends the record.
    fn outside(&mut self, byte: u8, index: usize) -> bool {
        match byte {
            b'\n' | b'\r' => return true,
            b',' => {
                self.field_started = false;
                return false;
            }
            b'"' if !self.field_started => {
                self.in_quotes = true;
                self.quote_line = Some(index);
            }
            _ => {}
        }
        self.field_started = true;
        false
    }
}
