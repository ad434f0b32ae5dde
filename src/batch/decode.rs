//! Turning a chunk's raw bytes into [`Record`]s, on the workers.
//!
//! A chunk starts at the beginning of a line, between records, and ends after a whole
//! record, so it is decoded on its own: its first line's physical number is all it needs
//! from the rest of the input.

use std::borrow::Cow;
use std::cell::RefCell;

use super::boundary::{is_blank_or_comment, lines, Boundaries};
use super::cutter::RawChunk;
use super::{InputFormat, Record, RecordContent};

/// The records of a chunk of an input read as `format`.
pub(crate) fn decode(chunk: &RawChunk, format: InputFormat) -> Vec<Record> {
    if let Some((line, fault)) = &chunk.fault {
        return vec![Record {
            line: *line,
            content: RecordContent::Unreadable(fault.to_string()),
        }];
    }
    let (bytes, first_line) = (&chunk.bytes[..], chunk.first_line);
    let mut records = Vec::with_capacity(chunk.records as usize);
    match format {
        InputFormat::Lines => decode_lines(bytes, first_line, &mut records),
        InputFormat::Blocks => decode_blocks(bytes, first_line, &mut records),
        InputFormat::Csv => csv_records(bytes, first_line, |line, record| {
            records.push(Record {
                line,
                content: csv_fields(record, chunk.header_fields),
            })
        }),
    }
    records
}

/// The fields of a CSV header whose chunk starts at physical line `first_line`, trimmed,
/// or `None` when the chunk holds no record. Invalid UTF-8 is replaced, not refused: a
/// header only has to name columns.
pub(crate) fn csv_header(bytes: &[u8], first_line: u64) -> Option<Vec<String>> {
    let mut header = None;
    csv_records(bytes, first_line, |_, record| {
        if header.is_none() {
            header = Some(
                record
                    .fields()
                    .map(|field| String::from_utf8_lossy(field).trim().to_string())
                    .collect(),
            );
        }
    });
    header
}

/// A line without its line ending (`\n`, `\r\n` or `\r`).
fn without_line_ending(mut line: &[u8]) -> &[u8] {
    while let [rest @ .., b'\n' | b'\r'] = line {
        line = rest;
    }
    line
}

fn utf8_error_message(error: std::str::Utf8Error) -> String {
    format!("not valid UTF-8 at byte {}", error.valid_up_to() + 1)
}

fn decode_lines(bytes: &[u8], first_line: u64, records: &mut Vec<Record>) {
    for (line, text) in (first_line..).zip(lines(bytes)) {
        if is_blank_or_comment(text) {
            continue;
        }
        let text = without_line_ending(text);
        let content = match std::str::from_utf8(text) {
            Ok(text) => RecordContent::Line(text.to_string()),
            Err(error) => RecordContent::Unreadable(utf8_error_message(error)),
        };
        records.push(Record { line, content });
    }
}

fn decode_blocks(bytes: &[u8], first_line: u64, records: &mut Vec<Record>) {
    let mut block: Option<(u64, Result<String, String>)> = None;
    let mut finish = |block: &mut Option<(u64, Result<String, String>)>| {
        if let Some((line, text)) = block.take() {
            records.push(Record {
                line,
                content: match text {
                    Ok(text) => RecordContent::Line(text),
                    Err(message) => RecordContent::Unreadable(message),
                },
            });
        }
    };
    for (line, text) in (first_line..).zip(lines(bytes)) {
        let trimmed = text.trim_ascii();
        if trimmed.starts_with(b"#") {
            continue;
        }
        if trimmed.is_empty() {
            finish(&mut block);
            continue;
        }
        let decoded = std::str::from_utf8(without_line_ending(text))
            .map_err(|error| format!("line {line}: {}", utf8_error_message(error)));
        match (&mut block, decoded) {
            (None, decoded) => block = Some((line, decoded.map(str::to_string))),
            (Some((_, Ok(text))), Ok(more)) => {
                text.push('\n');
                text.push_str(more);
            }
            (Some((_, first @ Ok(_))), Err(error)) => *first = Err(error),
            (Some((_, Err(_))), _) => {}
        }
    }
    finish(&mut block);
}

/// A CSV record's fields as text, or why they are not text or not as many as the
/// header's (`header_fields`, when known).
fn csv_fields(record: &CsvRecord<'_>, header_fields: Option<usize>) -> RecordContent {
    let found = record.ends.len();
    if let Some(expected) = header_fields.filter(|&n| n != found) {
        let fields = if found == 1 { "field" } else { "fields" };
        return RecordContent::Unreadable(format!(
            "the row has {found} {fields} but the header has {expected}"
        ));
    }
    let mut fields = Vec::with_capacity(record.ends.len());
    for (index, field) in record.fields().enumerate() {
        match std::str::from_utf8(field) {
            Ok(text) => fields.push(text.to_string()),
            Err(_) => {
                return RecordContent::Unreadable(format!("field {} is not valid UTF-8", index + 1))
            }
        }
    }
    RecordContent::Fields(fields)
}

/// A CSV parser and its buffers, one per thread.
struct CsvScratch {
    parser: csv_core::Reader,
    /// The current record's field bytes, one after the other.
    fields: Vec<u8>,
    /// Where each field of the current record ends in `fields`.
    ends: Vec<usize>,
}

thread_local! {
    // csv-core builds its parsing automaton up front, which takes about 30 µs — as long as
    // solving 20 Kaggle puzzles — so each thread builds one parser and resets it per chunk.
    static CSV_SCRATCH: RefCell<CsvScratch> = RefCell::new(CsvScratch {
        parser: csv_core::Reader::new(),
        fields: vec![0; 1024],
        ends: vec![0; 16],
    });
}

/// One CSV record as parsed: its fields' bytes and where each field ends.
struct CsvRecord<'a> {
    bytes: &'a [u8],
    ends: &'a [usize],
}

impl<'a> CsvRecord<'a> {
    /// The fields, in order.
    fn fields(&self) -> impl Iterator<Item = &'a [u8]> + '_ {
        let bytes = self.bytes;
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(self.ends)
            .map(move |(start, &end)| &bytes[start..end])
    }
}

/// Calls `each` with every CSV record of a chunk and the physical line it starts on.
/// Blank and `#` lines between records are left out before the CSV parser sees the bytes.
fn csv_records(bytes: &[u8], first_line: u64, mut each: impl FnMut(u64, &CsvRecord<'_>)) {
    // The physical line each record starts on. (The parser's own line count lags behind
    // after `\r\n`: it ends a record at the `\r` and counts the `\n` with the next one.)
    // The parser ends a record where the chunk's lines say it ends: at a line ending
    // (`\n`, `\r\n` or a `\r` alone) outside quotes.
    let mut starts: Vec<u64> = Vec::new();
    // The bytes without the skipped lines, copied only once a line is skipped.
    let mut kept: Option<Vec<u8>> = None;
    let mut boundaries = Boundaries::new(InputFormat::Csv);
    let mut record_open = false;
    let mut offset = 0usize;
    for (physical, line) in (first_line..).zip(lines(bytes)) {
        let effect = boundaries.line(line);
        if effect.skipped {
            kept.get_or_insert_with(|| bytes[..offset].to_vec());
        } else {
            if !record_open {
                starts.push(physical);
            }
            record_open = !effect.ends_record;
            if let Some(kept) = &mut kept {
                kept.extend_from_slice(line);
            }
        }
        offset += line.len();
    }
    let data: Cow<[u8]> = kept.map_or(Cow::Borrowed(bytes), Cow::Owned);
    let mut starts = starts.into_iter();
    let mut line = first_line;
    let mut next_line = || {
        if let Some(start) = starts.next() {
            line = start;
        }
        line
    };
    CSV_SCRATCH.with_borrow_mut(|scratch| {
        let CsvScratch {
            parser,
            fields,
            ends,
        } = scratch;
        parser.reset();
        let (mut input, mut fields_len, mut ends_len) = (&data[..], 0, 0);
        loop {
            // An empty input tells the parser the data has ended.
            let (result, read, written, ended) =
                parser.read_record(input, &mut fields[fields_len..], &mut ends[ends_len..]);
            input = &input[read..];
            fields_len += written;
            ends_len += ended;
            match result {
                csv_core::ReadRecordResult::InputEmpty => {}
                csv_core::ReadRecordResult::OutputFull => fields.resize(fields.len() * 2, 0),
                csv_core::ReadRecordResult::OutputEndsFull => ends.resize(ends.len() * 2, 0),
                csv_core::ReadRecordResult::Record => {
                    let record = CsvRecord {
                        bytes: &fields[..fields_len],
                        ends: &ends[..ends_len],
                    };
                    each(next_line(), &record);
                    (fields_len, ends_len) = (0, 0);
                }
                csv_core::ReadRecordResult::End => break,
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The records of `bytes`, a chunk whose first line is `first_line`, after a CSV
    /// header of `header_fields` fields.
    fn decode_bytes(
        bytes: &[u8],
        first_line: u64,
        format: InputFormat,
        header_fields: Option<usize>,
    ) -> Vec<Record> {
        let chunk = RawChunk {
            bytes: bytes.to_vec(),
            first_line,
            records: 0,
            header_fields,
            fault: None,
        };
        decode(&chunk, format)
    }

    fn lines_of(records: &[Record]) -> Vec<(u64, String)> {
        records
            .iter()
            .map(|r| match &r.content {
                RecordContent::Line(text) => (r.line, text.clone()),
                RecordContent::Fields(fields) => (r.line, fields.join("|")),
                RecordContent::Unreadable(message) => (r.line, format!("!{message}")),
            })
            .collect()
    }

    #[test]
    fn csv_quoted_newlines_commas_and_skipped_lines_keep_physical_lines() {
        let text = b"\"a\nb\",1\n\n# note\n\"c,\"\"d\"\"\",2\r\n3,\"x\n\ny\"\n";
        let records = decode_bytes(text, 10, InputFormat::Csv, None);
        assert_eq!(
            lines_of(&records),
            vec![
                (10, "a\nb|1".to_string()),
                (14, "c,\"d\"|2".to_string()),
                (15, "3|x\n\ny".to_string()),
            ]
        );
    }

    #[test]
    fn invalid_utf8_in_the_middle_of_a_chunk_spoils_only_its_record() {
        let records = decode_bytes(b"ok\nab\xffc\nfine\r\n", 7, InputFormat::Lines, None);
        assert_eq!(
            lines_of(&records),
            vec![
                (7, "ok".to_string()),
                (8, "!not valid UTF-8 at byte 3".to_string()),
                (9, "fine".to_string()),
            ]
        );
        let records = decode_bytes(b"a,b\n1,\xfe\n2,3\n", 1, InputFormat::Csv, None);
        assert_eq!(
            lines_of(&records),
            vec![
                (1, "a|b".to_string()),
                (2, "!field 2 is not valid UTF-8".to_string()),
                (3, "2|3".to_string()),
            ]
        );
    }

    #[test]
    fn lone_carriage_returns_end_lines_and_records() {
        let records = decode_bytes(b"a,b\r\"x\ry\",2\r\r3,4", 1, InputFormat::Csv, None);
        assert_eq!(
            lines_of(&records),
            vec![
                (1, "a|b".to_string()),
                (2, "x\ry|2".to_string()),
                (5, "3|4".to_string()),
            ]
        );
        let records = decode_bytes(b"a\r\rb\r\nc", 1, InputFormat::Lines, None);
        assert_eq!(
            lines_of(&records),
            vec![(1, "a".into()), (3, "b".into()), (4, "c".into())]
        );
    }

    #[test]
    fn csv_rows_must_have_as_many_fields_as_the_header() {
        let records = decode_bytes(b"1,2\n3\n4,5,6\n7,\n", 2, InputFormat::Csv, Some(2));
        assert_eq!(
            lines_of(&records),
            vec![
                (2, "1|2".to_string()),
                (3, "!the row has 1 field but the header has 2".to_string()),
                (4, "!the row has 3 fields but the header has 2".to_string()),
                (5, "7|".to_string()),
            ]
        );
    }

    #[test]
    fn header_is_the_first_record_trimmed() {
        let header = csv_header(b"# c\n\n a ,\"b\nc\" \n", 1);
        assert_eq!(header.unwrap(), vec!["a", "b\nc"]);
        assert!(csv_header(b"# nothing\n", 1).is_none());
    }
}
