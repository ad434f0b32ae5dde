//! Where records begin and end, one physical line at a time, for every input format.
//!
//! The reader uses this to cut inputs into chunks at record boundaries and to count records;
//! workers run the very same state machine over a chunk to find its records again, so both
//! always agree on what a record is.

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
                    }
                } else if text[0] == b'#' {
                    // A comment inside a block neither ends it nor belongs to it.
                    LineEffect {
                        skipped: true,
                        ends_record: false,
                        cut_allowed: !self.block_open,
                    }
                } else {
                    self.block_open = true;
                    LineEffect {
                        skipped: false,
                        ends_record: false,
                        cut_allowed: false,
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
                        }
                    }
                    None => CsvState::FieldStart,
                };
                // Fast path: a line without quotes that starts outside quotes ends its record.
                let state = if state != CsvState::Quoted && memchr::memchr(b'"', line).is_none() {
                    None
                } else {
                    csv_line_end(state, line)
                };
                self.csv = state;
                LineEffect {
                    skipped: false,
                    ends_record: state.is_none(),
                    cut_allowed: state.is_none(),
                }
            }
        }
    }

    /// Ends the input: whether a record was still open (it ends there). Afterwards the
    /// state is as at the start.
    pub(crate) fn finish(&mut self) -> bool {
        let open = self.block_open || self.csv.is_some();
        *self = Boundaries::new(self.format);
        open
    }
}

/// Runs a CSV line through the parser states: `None` when the record ends with the line (it
/// ends in a newline outside quotes, or has no newline: the end of the input), else the
/// state the next line starts in.
fn csv_line_end(mut state: CsvState, line: &[u8]) -> Option<CsvState> {
    for &byte in line {
        state = match (state, byte) {
            (CsvState::Quoted, b'"') => CsvState::QuoteInQuoted,
            (CsvState::Quoted, _) => CsvState::Quoted,
            (CsvState::QuoteInQuoted, b'"') => CsvState::Quoted,
            (_, b'\n') => return None,
            (_, b',') => CsvState::FieldStart,
            (CsvState::FieldStart, b'"') => CsvState::Quoted,
            _ => CsvState::Unquoted,
        };
    }
    match state {
        CsvState::Quoted => Some(state),
        // A line without `\n` is the last of the input; an open quote would have returned.
        _ if !line.ends_with(b"\n") => None,
        _ => Some(state),
    }
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
