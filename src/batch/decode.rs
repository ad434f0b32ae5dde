//! Turning a chunk's raw bytes into [`Record`]s, on the workers.
//!
//! A chunk starts at the beginning of a line, between records, and ends after a whole
//! record, so it is decoded on its own: its first line's physical number is all it needs
//! from the rest of the input.

use std::cell::RefCell;
use std::ops::Range;

use super::boundary::{lines, push_commas, without_line_ending};
use super::cutter::{LineMark, RawChunk};
use super::{InputFormat, Record, RecordContent};

/// A chunk's records, decoded: where each record's text is. Lines, and the fields of CSV
/// records without quotes, point into the chunk's own bytes when they are valid UTF-8
/// throughout (checked once per chunk); other CSV fields and blocks are copied into one
/// buffer for the whole chunk. A record is then read without an allocation of its own.
#[derive(Debug, Default)]
pub(crate) struct Decoded<'a> {
    /// The chunk's bytes as text, when they are valid UTF-8 throughout.
    chunk_text: Option<&'a str>,
    /// Text of quoted CSV fields, of blocks, and of lines when the chunk is not all UTF-8.
    text: String,
    /// Where each CSV field is.
    fields: Vec<FieldSpan>,
    records: Vec<Span>,
}

/// Where a CSV field's text is: in the chunk's text or in the decoded buffer.
#[derive(Debug)]
struct FieldSpan {
    in_chunk: bool,
    range: Range<usize>,
}

/// One record of a [`Decoded`] chunk.
#[derive(Debug)]
struct Span {
    line: u64,
    content: SpanContent,
}

#[derive(Debug)]
enum SpanContent {
    /// A line or block: where its text is (in the chunk's text if it is all UTF-8 and the
    /// record a line, else in the decoded buffer).
    Line(Range<usize>),
    /// A CSV record: which of the chunk's fields are its own.
    Fields(Range<usize>),
    /// A CSV record with another number of fields than the header: unreadable, but its
    /// fields are still carried to its error row (an `id` column finds it).
    Misshapen {
        fields: Range<usize>,
        message: String,
    },
    Unreadable(String),
}

impl<'a> Decoded<'a> {
    /// Records in the chunk.
    pub(crate) fn len(&self) -> usize {
        self.records.len()
    }

    /// Every CSV field's text, for [`records`](Self::records).
    pub(crate) fn field_texts(&self) -> Vec<&str> {
        let chunk = self.chunk_text.unwrap_or_default();
        let text = |field: &FieldSpan| match field.in_chunk {
            true => &chunk[field.range.clone()],
            false => &self.text[field.range.clone()],
        };
        self.fields.iter().map(text).collect()
    }

    /// The records, borrowing from the chunk, from `self` and from its
    /// [`field_texts`](Self::field_texts), each with the CSV fields its row carries (those
    /// of a CSV record, even one of the wrong width; none for other records).
    pub(crate) fn records<'r>(
        &'r self,
        fields: &'r [&'r str],
    ) -> impl Iterator<Item = (Record<'r>, &'r [&'r str])> + 'r {
        // Only lines are decoded with the chunk's text and line records: blocks are
        // copied.
        let lines = self.chunk_text.unwrap_or(&self.text);
        self.records.iter().map(move |span| {
            let (content, carried) = match &span.content {
                SpanContent::Line(range) => (RecordContent::Line(&lines[range.clone()]), &[][..]),
                SpanContent::Fields(range) => {
                    let own = &fields[range.clone()];
                    (RecordContent::Fields(own), own)
                }
                SpanContent::Misshapen {
                    fields: range,
                    message,
                } => (RecordContent::Unreadable(message), &fields[range.clone()]),
                SpanContent::Unreadable(message) => (RecordContent::Unreadable(message), &[][..]),
            };
            let record = Record {
                line: span.line,
                content,
            };
            (record, carried)
        })
    }

    fn unreadable(&mut self, line: u64, message: String) {
        self.records.push(Span {
            line,
            content: SpanContent::Unreadable(message),
        });
    }
}

/// The records of a chunk of an input read as `format`. The CSV fields at the `carried`
/// indexes are only carried to the rows: one that is not valid UTF-8 is carried with
/// each bad byte replaced by U+FFFD, where a field the job reads makes its record
/// unreadable.
pub(crate) fn decode<'a>(
    chunk: &'a RawChunk,
    format: InputFormat,
    carried: &[usize],
) -> Decoded<'a> {
    let mut decoded = Decoded {
        records: Vec::with_capacity(chunk.records as usize),
        ..Decoded::default()
    };
    if let Some((line, fault)) = &chunk.fault {
        decoded.unreadable(*line, fault.row_message());
        return decoded;
    }
    let (bytes, first_line) = (&chunk.bytes[..], chunk.first_line);
    match format {
        InputFormat::Lines => decode_lines(chunk, &mut decoded),
        InputFormat::Blocks => decode_blocks(bytes, first_line, &mut decoded),
        InputFormat::Csv => {
            decoded.chunk_text = chunk_text(bytes);
            csv_records(chunk, |line, record| {
                csv_fields(line, record, (chunk.header_fields, carried), &mut decoded)
            })
        }
    }
    decoded
}

/// The fields of a CSV header whose chunk starts at physical line `first_line`, trimmed,
/// or `None` when the chunk holds no record. Bytes that are not UTF-8 are written as
/// `\xHH`, not refused: a header only has to name columns, and names that differ only in
/// such bytes stay apart.
pub(crate) fn csv_header(chunk: &RawChunk) -> Option<Vec<String>> {
    let mut header = None;
    csv_records(chunk, |_, record| {
        if header.is_none() {
            header = Some(
                record
                    .fields()
                    .map(|field| column_name(field).trim().to_string())
                    .collect(),
            );
        }
    });
    header
}

/// A header field as text, each byte that is not UTF-8 written `\xHH`.
fn column_name(field: &[u8]) -> String {
    let mut name = String::with_capacity(field.len());
    for chunk in field.utf8_chunks() {
        name.push_str(chunk.valid());
        for byte in chunk.invalid() {
            name.push_str(&format!("\\x{byte:02X}"));
        }
    }
    name
}

/// A chunk's bytes as text, if they are all UTF-8. A SIMD check: std's took 1.4% of a run
/// over Kaggle Sudoku lines, this one a fraction of that.
fn chunk_text(bytes: &[u8]) -> Option<&str> {
    simdutf8::basic::from_utf8(bytes).ok()
}

fn utf8_error_message(error: std::str::Utf8Error) -> String {
    format!("not valid UTF-8 at byte {}", error.valid_up_to() + 1)
}

fn decode_lines<'a>(chunk: &'a RawChunk, decoded: &mut Decoded<'a>) {
    let bytes = &chunk.bytes[..];
    // One check of the whole chunk: then every line is text where it lies.
    decoded.chunk_text = chunk_text(bytes);
    for (line, (start, mark)) in (chunk.first_line..).zip(line_starts(&chunk.lines)) {
        if mark.effect.skipped {
            continue;
        }
        let text = &bytes[start..mark.end];
        let text = without_line_ending(text);
        let range = if decoded.chunk_text.is_some() {
            start..start + text.len()
        } else {
            match std::str::from_utf8(text) {
                Ok(text) => {
                    let start = decoded.text.len();
                    decoded.text.push_str(text);
                    start..decoded.text.len()
                }
                Err(error) => {
                    decoded.unreadable(line, utf8_error_message(error));
                    continue;
                }
            }
        };
        decoded.records.push(Span {
            line,
            content: SpanContent::Line(range),
        });
    }
}

fn decode_blocks(bytes: &[u8], first_line: u64, decoded: &mut Decoded<'_>) {
    // The open block: its first line, and where its text starts or why it is unreadable.
    let mut block: Option<(u64, Result<usize, String>)> = None;
    let finish = |block: &mut Option<(u64, Result<usize, String>)>, decoded: &mut Decoded<'_>| {
        if let Some((line, text)) = block.take() {
            let content = match text {
                Ok(start) => SpanContent::Line(start..decoded.text.len()),
                Err(message) => SpanContent::Unreadable(message),
            };
            decoded.records.push(Span { line, content });
        }
    };
    for (line, text) in (first_line..).zip(lines(bytes)) {
        let trimmed = text.trim_ascii();
        if trimmed.starts_with(b"#") {
            continue;
        }
        if trimmed.is_empty() {
            finish(&mut block, decoded);
            continue;
        }
        let decoded_line = std::str::from_utf8(without_line_ending(text))
            .map_err(|error| format!("line {line}: {}", utf8_error_message(error)));
        match (&mut block, decoded_line) {
            (None, Ok(more)) => {
                block = Some((line, Ok(decoded.text.len())));
                decoded.text.push_str(more);
            }
            (None, Err(error)) => block = Some((line, Err(error))),
            (Some((_, Ok(_))), Ok(more)) => {
                decoded.text.push('\n');
                decoded.text.push_str(more);
            }
            (Some((_, first @ Ok(_))), Err(error)) => *first = Err(error),
            (Some((_, Err(_))), _) => {}
        }
    }
    finish(&mut block, decoded);
}

/// Adds a CSV record starting at `line`: its fields as text, or why they are not text
/// (a field that is not valid UTF-8, unless it is only `carried`: see [`decode`]); a
/// record with not as many fields as the header's (`header_fields`, when known) keeps its
/// fields but is unreadable.
fn csv_fields(
    line: u64,
    record: &CsvRecord<'_>,
    (header_fields, carried): (Option<usize>, &[usize]),
    decoded: &mut Decoded<'_>,
) {
    // Split at its commas where it lies in a chunk that is all text, each field is text
    // where it lies (a comma and a line ending are characters of their own); any other
    // record's fields are checked and copied into the decoded buffer.
    let (in_chunk, base) = match (decoded.chunk_text, record.at) {
        (Some(_), Some(at)) => (true, at),
        _ => {
            let whole = record
                .ends
                .last()
                .map_or(&[][..], |&end| &record.bytes[..end]);
            // The record's bytes are checked at once; a field ending inside a character
            // (valid only joined to the next field) is caught by its end not being a
            // character boundary.
            let text = std::str::from_utf8(whole)
                .ok()
                .filter(|text| record.field_ranges().all(|r| text.is_char_boundary(r.end)));
            let Some(text) = text else {
                // The first field that is not text and that the job reads makes the record
                // an error row, which still carries the record's fields.
                let read_error = (record.fields().enumerate())
                    .filter(|(i, _)| !carried.contains(i))
                    .find_map(|(i, f)| Some((i, std::str::from_utf8(f).err()?)))
                    .map(|(i, error)| format!("field {}: {}", i + 1, utf8_error_message(error)));
                return lossy_fields(line, record, header_fields, read_error, decoded);
            };
            let base = decoded.text.len();
            decoded.text.push_str(text);
            (false, base)
        }
    };
    let first_field = decoded.fields.len();
    let ranges = record.field_ranges().map(|r| FieldSpan {
        in_chunk,
        range: base + r.start..base + r.end,
    });
    decoded.fields.extend(ranges);
    push_fields_record(line, record, first_field, header_fields, decoded);
}

/// Adds a CSV record with a field that is not valid UTF-8, each field copied with its bad
/// bytes replaced: unreadable with `read_error` when a field the job reads is one.
fn lossy_fields(
    line: u64,
    record: &CsvRecord<'_>,
    header_fields: Option<usize>,
    read_error: Option<String>,
    decoded: &mut Decoded<'_>,
) {
    let first_field = decoded.fields.len();
    for field in record.fields() {
        let start = decoded.text.len();
        decoded.text.push_str(&String::from_utf8_lossy(field));
        decoded.fields.push(FieldSpan {
            in_chunk: false,
            range: start..decoded.text.len(),
        });
    }
    match read_error {
        None => push_fields_record(line, record, first_field, header_fields, decoded),
        Some(message) => decoded.records.push(Span {
            line,
            content: SpanContent::Misshapen {
                fields: first_field..decoded.fields.len(),
                message,
            },
        }),
    }
}

/// Adds the record of the fields from `first_field` on, unreadable when it has not as
/// many fields as the header's.
fn push_fields_record(
    line: u64,
    record: &CsvRecord<'_>,
    first_field: usize,
    header_fields: Option<usize>,
    decoded: &mut Decoded<'_>,
) {
    let fields = first_field..decoded.fields.len();
    let found = record.ends.len();
    let content = match header_fields.filter(|&n| n != found) {
        None => SpanContent::Fields(fields),
        Some(expected) => {
            let noun = if found == 1 { "field" } else { "fields" };
            let message = format!("the row has {found} {noun} but the header has {expected}");
            SpanContent::Misshapen { fields, message }
        }
    };
    decoded.records.push(Span { line, content });
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
    /// Bytes between one field's end and the next one's start: 0 for fields unquoted by
    /// the parser, 1 (the comma) for a line split where it lies.
    gap: usize,
    /// Where `bytes` start in the chunk, for a line split where it lies.
    at: Option<usize>,
}

impl<'a> CsvRecord<'a> {
    /// Where each field is in `bytes`, in order.
    fn field_ranges(&self) -> impl Iterator<Item = Range<usize>> + 'a {
        let gap = self.gap;
        let starts = std::iter::once(0).chain(self.ends.iter().map(move |&end| end + gap));
        starts.zip(self.ends).map(|(start, &end)| start..end)
    }

    /// The fields, in order.
    fn fields(&self) -> impl Iterator<Item = &'a [u8]> + 'a {
        let bytes = self.bytes;
        self.field_ranges().map(move |range| &bytes[range])
    }
}

/// Calls `each` with every CSV record of a chunk and the physical line it starts on.
/// Blank and `#` lines between records are left out; a record without a `"` is split at
/// its commas where it lies, as the CSV parser would split it; the others go through the
/// parser (`csv-core`), one record at a time.
fn csv_records(chunk: &RawChunk, mut each: impl FnMut(u64, &CsvRecord<'_>)) {
    let bytes = &chunk.bytes[..];
    // The record being read: its first physical line and where it starts in `bytes`.
    let mut open: Option<(u64, usize)> = None;
    let mut ends = Vec::new();
    for (physical, (start, mark)) in (chunk.first_line..).zip(line_starts(&chunk.lines)) {
        let (offset, effect) = (mark.end, mark.effect);
        if effect.skipped {
            continue;
        }
        let (record_line, record_start) = *open.get_or_insert((physical, start));
        if !effect.ends_record {
            continue;
        }
        open = None;
        let record = &bytes[record_start..offset];
        // A record on more than one line holds a quote: it is never plain.
        if !effect.plain {
            parse_csv(record, |parsed| each(record_line, parsed));
            continue;
        }
        let text = without_line_ending(record);
        ends.clear();
        push_commas(text, &mut ends);
        ends.push(text.len());
        let record = CsvRecord {
            bytes: text,
            ends: &ends,
            gap: 1,
            at: Some(record_start),
        };
        each(record_line, &record);
    }
    // A quoted field left open at the end of the input: the parser ends it there.
    if let Some((record_line, record_start)) = open {
        parse_csv(&bytes[record_start..], |parsed| each(record_line, parsed));
    }
}

/// Each line's start with its mark.
fn line_starts(marks: &[LineMark]) -> impl Iterator<Item = (usize, &LineMark)> {
    let starts = std::iter::once(0).chain(marks.iter().map(|mark| mark.end));
    starts.zip(marks)
}

/// Calls `each` with the records `csv-core` reads in `bytes` (one, for a whole record).
fn parse_csv(bytes: &[u8], mut each: impl FnMut(&CsvRecord<'_>)) {
    CSV_SCRATCH.with_borrow_mut(|scratch| {
        let CsvScratch {
            parser,
            fields,
            ends,
        } = scratch;
        parser.reset();
        let (mut input, mut fields_len, mut ends_len) = (bytes, 0, 0);
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
                        gap: 0,
                        at: None,
                    };
                    each(&record);
                    (fields_len, ends_len) = (0, 0);
                }
                csv_core::ReadRecordResult::End => break,
            }
        }
    });
}

/// A record's content with text of its own, for tests.
#[cfg(test)]
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum OwnedContent {
    Line(String),
    Fields(Vec<String>),
    Unreadable(String),
}

/// The records of `chunk`, each with its line and its content copied.
#[cfg(test)]
pub(crate) fn decode_owned(chunk: &RawChunk, format: InputFormat) -> Vec<(u64, OwnedContent)> {
    let decoded = decode(chunk, format, &[]);
    let fields = decoded.field_texts();
    let owned = |record: Record<'_>| match record.content {
        RecordContent::Line(text) => OwnedContent::Line(text.to_string()),
        RecordContent::Fields(fields) => {
            OwnedContent::Fields(fields.iter().map(|f| f.to_string()).collect())
        }
        RecordContent::Unreadable(message) => OwnedContent::Unreadable(message.to_string()),
    };
    let records = decoded.records(&fields).map(|(r, _)| (r.line, owned(r)));
    records.collect()
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
    ) -> Vec<(u64, OwnedContent)> {
        decode_owned(&chunk_of(bytes, first_line, format, header_fields), format)
    }

    /// `bytes` as a chunk whose first line is `first_line`, its lines marked as the
    /// cutter marks them.
    fn chunk_of(
        bytes: &[u8],
        first_line: u64,
        format: InputFormat,
        header_fields: Option<usize>,
    ) -> RawChunk {
        RawChunk {
            bytes: bytes.to_vec(),
            first_line,
            records: 0,
            header_fields,
            fault: None,
            lines: crate::batch::cutter::tests::marks_of(bytes, format),
        }
    }

    fn lines_of(records: &[(u64, OwnedContent)]) -> Vec<(u64, String)> {
        records
            .iter()
            .map(|(line, content)| match content {
                OwnedContent::Line(text) => (*line, text.clone()),
                OwnedContent::Fields(fields) => (*line, fields.join("|")),
                OwnedContent::Unreadable(message) => (*line, format!("!{message}")),
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
                (2, "!field 2: not valid UTF-8 at byte 1".to_string()),
                (3, "2|3".to_string()),
            ]
        );
    }

    #[test]
    fn a_carried_field_that_is_not_utf8_is_carried_with_its_bytes_replaced() {
        let bytes = b"1,\xfe\n\xff2,x\n3,\xe2\x82\n";
        let chunk = chunk_of(bytes, 2, InputFormat::Csv, Some(2));
        let decoded = decode(&chunk, InputFormat::Csv, &[1]);
        let fields = decoded.field_texts();
        let records: Vec<_> = (decoded.records(&fields))
            .map(|(record, carried)| (record.line, record.content, carried.to_vec()))
            .collect();
        let (line, content, carried) = &records[0];
        assert_eq!((*line, carried.as_slice()), (2, &["1", "\u{fffd}"][..]));
        assert!(matches!(content, RecordContent::Fields(f) if f[0] == "1"));
        // A field the job reads (not carried) still makes its record unreadable, its
        // fields carried to its error row.
        let (line, content, carried) = &records[1];
        let message = "field 1: not valid UTF-8 at byte 1";
        assert!(matches!(content, RecordContent::Unreadable(m) if *m == message));
        assert_eq!((*line, carried.as_slice()), (3, &["\u{fffd}2", "x"][..]));
        // A character cut short at the field's end.
        let (line, content, carried) = &records[2];
        assert_eq!((*line, carried.as_slice()), (4, &["3", "\u{fffd}"][..]));
        assert!(matches!(content, RecordContent::Fields(_)));
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
        let header = csv_header(&chunk_of(
            b"# c\n\n a ,\"b\nc\" \n",
            1,
            InputFormat::Csv,
            None,
        ));
        assert_eq!(header.unwrap(), vec!["a", "b\nc"]);
        assert!(csv_header(&chunk_of(b"# nothing\n", 1, InputFormat::Csv, None)).is_none());
    }

    #[test]
    fn header_names_keep_their_bytes_that_are_not_utf8_apart() {
        let header = csv_header(&chunk_of(
            b"a\xff,a\xfe,\xc3\xa9\n",
            1,
            InputFormat::Csv,
            None,
        ));
        assert_eq!(header.unwrap(), vec!["a\\xFF", "a\\xFE", "\u{e9}"]);
    }
}
