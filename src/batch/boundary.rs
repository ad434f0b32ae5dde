//! Where lines and records begin and end, one physical line at a time, for every input
//! format.
//!
//! A physical line ends at `\n`, at `\r\n` or at a `\r` alone (an old Mac line ending), in
//! every format. The reader uses this to cut inputs into chunks at record boundaries and to
//! count records; workers run the very same state machine over a chunk to find its records
//! again, so both always agree on what a line and a record are.

use super::InputFormat;

/// What one physical line did to the record structure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineEffect {
    /// The line is a blank or `#` line outside any record: it belongs to no record.
    pub skipped: bool,
    /// A record ended with this line (or, for blocks, just before it).
    pub ends_record: bool,
    /// The input may be cut after this line: no record is open.
    pub cut_allowed: bool,
    /// A CSV line that starts outside quotes and holds no `"`: a record of its own, whose
    /// fields are split at its commas where it lies. False for every other line.
    pub plain: bool,
}

/// Where a CSV parser is inside a record (the states of `csv-core` with default settings
/// that matter for finding the record's end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CsvState {
    /// At the start of a field.
    FieldStart,
    /// Inside an unquoted field (a `"` here is an ordinary character).
    Unquoted,
    /// Inside a quoted field (a newline here belongs to the field).
    Quoted,
    /// Just after a `"` inside a quoted field: the end of the quotes, or half of `""`.
    QuoteInQuoted,
}

/// Follows the record structure of one input, line by line.
#[derive(Debug, Clone)]
pub(crate) struct Boundaries {
    format: InputFormat,
    /// For CSV: the state at the end of the last line when a record is still open.
    csv: Option<CsvState>,
    /// For blocks: a block has started and not yet ended.
    block_open: bool,
}

/// Where the line starting before `from` ends, looking from `from` on in `bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineEnd {
    /// The line's text ends at `content` and its line ending at `end`.
    Found {
        /// Where the line ending starts.
        content: usize,
        /// Just after the line ending.
        end: usize,
    },
    /// No line ending before `searched`: the bytes up to it belong to the line, and the
    /// search goes on from there once more bytes are read (a `\r` at the very end of the
    /// bytes read so far is left unsearched: a `\n` may follow it).
    NotYet {
        /// Where to search from next time.
        searched: usize,
    },
}

/// Finds the end of the line that continues at `from` in `bytes`; `at_end` says that no
/// byte follows `bytes` (a `\r` at the end is then a line ending of its own).
#[inline]
pub(crate) fn find_line_end(bytes: &[u8], from: usize, at_end: bool) -> LineEnd {
    match find_line_ending(&bytes[from..]) {
        None => LineEnd::NotYet {
            searched: bytes.len(),
        },
        Some(offset) => {
            let content = from + offset;
            if bytes[content] == b'\n' {
                return LineEnd::Found {
                    content,
                    end: content + 1,
                };
            }
            match bytes.get(content + 1) {
                Some(b'\n') => LineEnd::Found {
                    content,
                    end: content + 2,
                },
                Some(_) => LineEnd::Found {
                    content,
                    end: content + 1,
                },
                None if at_end => LineEnd::Found {
                    content,
                    end: content + 1,
                },
                None => LineEnd::NotYet { searched: content },
            }
        }
    }
}

/// The first `\n` or `\r` of `bytes`.
///
/// On x86-64 CPUs with AVX2, by a searcher built once: `memchr2` chooses its
/// implementation on every call, which on lines of about 80 bytes cost as much as the
/// search (together a few percent of an easy Sudoku corpus's run).
#[inline]
fn find_line_ending(bytes: &[u8]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        use memchr::arch::x86_64::avx2::memchr::Two;
        static SEARCHER: std::sync::OnceLock<Option<Two>> = std::sync::OnceLock::new();
        if let Some(searcher) = SEARCHER.get_or_init(|| Two::new(b'\n', b'\r')) {
            return searcher.find(bytes);
        }
    }
    memchr::memchr2(b'\n', b'\r', bytes)
}

/// Whether `line` holds a `"`, by a searcher built once (as [`find_line_ending`]).
#[inline]
fn has_quote(line: &[u8]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use memchr::arch::x86_64::avx2::memchr::One;
        static SEARCHER: std::sync::OnceLock<Option<One>> = std::sync::OnceLock::new();
        if let Some(searcher) = SEARCHER.get_or_init(|| One::new(b'"')) {
            return searcher.find(line).is_some();
        }
    }
    memchr::memchr(b'"', line).is_some()
}

/// Appends where each `,` of `text` is to `offsets`, by a searcher built once (as
/// [`find_line_ending`]).
pub(crate) fn push_commas(text: &[u8], offsets: &mut Vec<usize>) {
    #[cfg(target_arch = "x86_64")]
    {
        use memchr::arch::x86_64::avx2::memchr::One;
        static SEARCHER: std::sync::OnceLock<Option<One>> = std::sync::OnceLock::new();
        if let Some(searcher) = SEARCHER.get_or_init(|| One::new(b',')) {
            return offsets.extend(searcher.iter(text));
        }
    }
    offsets.extend(memchr::memchr_iter(b',', text));
}

/// The physical lines of `bytes` (whole lines: the bytes end with a line ending or at the
/// end of the input), each with its line ending if it has one.
pub(crate) fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = bytes;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = match find_line_end(rest, 0, true) {
            LineEnd::Found { end, .. } => end,
            LineEnd::NotYet { .. } => rest.len(),
        };
        let (line, tail) = rest.split_at(end);
        rest = tail;
        Some(line)
    })
}

/// Bytes without the line endings (`\n`, `\r\n` or `\r`) at their end.
pub(crate) fn without_line_ending(mut line: &[u8]) -> &[u8] {
    while let [rest @ .., b'\n' | b'\r'] = line {
        line = rest;
    }
    line
}

/// The physical lines of `text`, each without its line ending: the lines every reader of
/// the crate sees, for a text read whole (a pieces or board file).
pub(crate) fn text_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    lines(text.as_bytes()).map(move |line| {
        let content = without_line_ending(line).len();
        // Line endings are ASCII, so both ends lie on character boundaries.
        let text_line = &text[start..start + content];
        start += line.len();
        text_line
    })
}

/// Whether `line` (with its line ending) is blank or a `#` comment.
pub(crate) fn is_blank_or_comment(line: &[u8]) -> bool {
    let text = line.trim_ascii();
    text.is_empty() || text[0] == b'#'
}

impl Boundaries {
    /// The state at the start of an input (or of a chunk: chunks start between records).
    pub(crate) fn new(format: InputFormat) -> Self {
        Boundaries {
            format,
            csv: None,
            block_open: false,
        }
    }

    /// Takes the next physical line, including its `\n` if it has one.
    pub(crate) fn line(&mut self, line: &[u8]) -> LineEffect {
        match self.format {
            InputFormat::Lines => {
                let skipped = is_blank_or_comment(line);
                LineEffect {
                    skipped,
                    ends_record: !skipped,
                    cut_allowed: true,
                    plain: false,
                }
            }
            InputFormat::Blocks => {
                let text = line.trim_ascii();
                if text.is_empty() {
                    let ends_record = std::mem::take(&mut self.block_open);
                    LineEffect {
                        skipped: true,
                        ends_record,
                        cut_allowed: true,
                        plain: false,
                    }
                } else if text[0] == b'#' {
                    // A comment inside a block neither ends it nor belongs to it.
                    LineEffect {
                        skipped: true,
                        ends_record: false,
                        cut_allowed: !self.block_open,
                        plain: false,
                    }
                } else {
                    self.block_open = true;
                    LineEffect {
                        skipped: false,
                        ends_record: false,
                        cut_allowed: false,
                        plain: false,
                    }
                }
            }
            InputFormat::Csv => {
                let state = match self.csv {
                    Some(state) => state,
                    None if is_blank_or_comment(line) => {
                        return LineEffect {
                            skipped: true,
                            ends_record: false,
                            cut_allowed: true,
                            plain: false,
                        }
                    }
                    None => CsvState::FieldStart,
                };
                // Fast path: a line without quotes that starts outside quotes ends its record.
                let quote_free = state != CsvState::Quoted && !has_quote(line);
                let plain = quote_free && self.csv.is_none();
                let state = if quote_free {
                    None
                } else {
                    csv_line_end(state, line)
                };
                self.csv = state;
                LineEffect {
                    skipped: false,
                    ends_record: state.is_none(),
                    cut_allowed: state.is_none(),
                    plain,
                }
            }
        }
    }

    /// Whether a record is open: it goes on on the next line.
    pub(crate) fn is_open(&self) -> bool {
        self.block_open || self.csv.is_some()
    }

    /// Ends the input: whether a record was still open (it ends there). Afterwards the
    /// state is as at the start.
    pub(crate) fn finish(&mut self) -> bool {
        let open = self.block_open || self.csv.is_some();
        *self = Boundaries::new(self.format);
        open
    }
}

/// The CSV parser state after `byte` in `state`, or `None` when the byte ends the record
/// (a line ending outside quotes).
#[inline]
fn csv_step(state: CsvState, byte: u8) -> Option<CsvState> {
    Some(match (state, byte) {
        (CsvState::Quoted, b'"') => CsvState::QuoteInQuoted,
        (CsvState::Quoted, _) => CsvState::Quoted,
        (CsvState::QuoteInQuoted, b'"') => CsvState::Quoted,
        (_, b'\n' | b'\r') => return None,
        (_, b',') => CsvState::FieldStart,
        (CsvState::FieldStart, b'"') => CsvState::Quoted,
        _ => CsvState::Unquoted,
    })
}

/// Runs a CSV line through the parser states: `None` when the record ends with the line (it
/// ends in a line ending outside quotes, or has none: the end of the input), else the
/// state the next line starts in (inside quotes).
fn csv_line_end(mut state: CsvState, line: &[u8]) -> Option<CsvState> {
    for &byte in line {
        state = csv_step(state, byte)?;
    }
    // A line without a line ending is the last of the input: only an open quote keeps its
    // record open.
    (state == CsvState::Quoted).then_some(state)
}

/// Where a quoted field that is still open at the end of `bytes` was opened: `bytes` are
/// the start of a CSV record, from the start of its first line. The place is the
/// 0-based line (counted from the record's first line), the offset of that line's start
/// and the offset of the quote, in `bytes`. `None` when no quoted field is open at the end.
pub(crate) fn csv_open_quote(bytes: &[u8]) -> Option<(u64, usize, usize)> {
    let mut state = CsvState::FieldStart;
    let (mut line, mut line_start) = (0u64, 0usize);
    let mut open = None;
    for (offset, &byte) in bytes.iter().enumerate() {
        state = match csv_step(state, byte) {
            Some(CsvState::Quoted) if state == CsvState::FieldStart => {
                open = Some((line, line_start, offset));
                CsvState::Quoted
            }
            Some(next) => next,
            // A record does not end inside its own bytes; should one, a new one starts.
            None => CsvState::FieldStart,
        };
        if !matches!(state, CsvState::Quoted | CsvState::QuoteInQuoted) {
            open = None;
        }
        let breaks = byte == b'\n' || (byte == b'\r' && bytes.get(offset + 1) != Some(&b'\n'));
        if breaks {
            line += 1;
            line_start = offset + 1;
        }
    }
    open
}

#[cfg(test)]
mod tests {
    use super::*;

    fn effects(format: InputFormat, text: &str) -> Vec<(bool, bool, bool)> {
        let mut boundaries = Boundaries::new(format);
        text.split_inclusive('\n')
            .map(|line| {
                let e = boundaries.line(line.as_bytes());
                (e.skipped, e.ends_record, e.cut_allowed)
            })
            .collect()
    }

    #[test]
    fn text_lines_end_at_every_kind_of_line_ending() {
        let got: Vec<&str> = text_lines("a\nb\r\nc\rd\r\r\n\ne").collect();
        assert_eq!(got, ["a", "b", "c", "d", "", "", "e"]);
        assert_eq!(text_lines("é\r").collect::<Vec<_>>(), ["é"]);
        assert_eq!(text_lines("").count(), 0);
    }

    #[test]
    fn csv_newlines_inside_quotes_do_not_end_records() {
        let got = effects(
            InputFormat::Csv,
            "a,\"x\ny\",b\n# c\nab\"c,d\n\"q\"\"\n\"\"\n\"\n",
        );
        assert_eq!(
            got,
            vec![
                (false, false, false), // a,"x
                (false, true, true),   // y",b
                (true, false, true),   // # c
                (false, true, true),   // ab"c,d: a quote inside an unquoted field
                (false, false, false), // "q""
                (false, false, false), // "" (an escaped quote, still inside)
                (false, true, true),   // " closes
            ]
        );
    }

    #[test]
    fn csv_last_line_without_newline_ends_its_record() {
        let mut boundaries = Boundaries::new(InputFormat::Csv);
        assert!(boundaries.line(b"\"a\",b").ends_record);
        assert!(!boundaries.finish());
        assert!(!boundaries.line(b"\"a").ends_record);
        assert!(boundaries.finish());
        assert!(!boundaries.finish());
    }

    #[test]
    fn blocks_end_at_blank_lines_and_cannot_be_cut_inside() {
        let got = effects(InputFormat::Blocks, "# f\n10\n# c\n01\n\n\n11");
        assert_eq!(
            got,
            vec![
                (true, false, true),
                (false, false, false),
                (true, false, false),
                (false, false, false),
                (true, true, true),
                (true, false, true),
                (false, false, false),
            ]
        );
    }
}
