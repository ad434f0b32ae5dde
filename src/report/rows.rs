//! Result rows as CSV or JSON Lines.

use std::io::{self, Write};
use std::sync::Arc;

use crate::batch::{
    push_csv_field, push_micros, push_one_decimal, Cell, RowFormatter, RowSink, Value,
};

/// The format of result rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum OutputFormat {
    /// CSV with a header row.
    #[default]
    Csv,
    /// One JSON object per line.
    Jsonl,
}

/// A row writer of the given format over `out`.
pub fn row_writer(format: OutputFormat, out: Box<dyn Write + Send>) -> Box<dyn RowSink + Send> {
    match format {
        OutputFormat::Csv => Box::new(CsvRows::new(out)),
        OutputFormat::Jsonl => Box::new(JsonlRows::new(out)),
    }
}

/// [`row_writer`] without the CSV header: for a results file that already has it (a
/// resumed run), or rows asked for without one (`--no-header`, an engine's filter).
pub fn continuing_row_writer(
    format: OutputFormat,
    out: Box<dyn Write + Send>,
) -> Box<dyn RowSink + Send> {
    match format {
        OutputFormat::Csv => Box::new(CsvRows {
            header: false,
            ..CsvRows::new(out)
        }),
        OutputFormat::Jsonl => Box::new(JsonlRows::new(out)),
    }
}

/// Flushes the rows, then writes nothing to the file once more: a resumed results file
/// ([`ResumedFile`](super::ResumedFile)) cuts its torn last line at its first write, and
/// this one reaches it even when the run had no row left to add.
fn finish_rows<W: Write>(out: &mut io::BufWriter<W>) -> io::Result<()> {
    out.flush()?;
    let _nothing = out.get_mut().write(&[])?;
    Ok(())
}

/// Formats rows as CSV lines (quoting only fields that need it, `\n` line ends), as the
/// `csv` crate writes them with its default settings.
#[derive(Debug, Clone, Copy, Default)]
pub struct CsvFormat;

/// Appends a number's digits.
fn push_int(n: impl itoa::Integer, out: &mut Vec<u8>) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

impl RowFormatter for CsvFormat {
    fn format_row(&self, row: &[Cell<'_>], out: &mut Vec<u8>) {
        let start = out.len();
        for (i, cell) in row.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            // Numbers never need quoting.
            match *cell {
                Cell::Empty => {}
                Cell::Text(text) => push_csv_field(text, out),
                Cell::Int(n) => push_int(n, out),
                Cell::Signed(n) => push_int(n, out),
                Cell::Float(x) => push_one_decimal(x, out),
                Cell::Micros(nanos) => push_micros(nanos, out),
            }
        }
        // A row of one empty field is written `""`, so that it is not a blank line.
        if out.len() == start {
            out.extend_from_slice(b"\"\"");
        }
        out.push(b'\n');
    }

    fn is_csv(&self) -> bool {
        true
    }
}

/// Writes rows as CSV with a header row.
pub struct CsvRows<W: Write> {
    out: io::BufWriter<W>,
    /// Reused from row to row.
    line: Vec<u8>,
    /// Whether to write the header (not when the file has it: a resumed run).
    header: bool,
}

impl<W: Write> CsvRows<W> {
    /// A CSV writer over `out` (buffered internally).
    pub fn new(out: W) -> Self {
        CsvRows {
            out: io::BufWriter::with_capacity(1 << 16, out),
            line: Vec::new(),
            header: true,
        }
    }
}

impl<W: Write> RowSink for CsvRows<W> {
    fn begin(&mut self, columns: &[String]) -> io::Result<()> {
        if !self.header {
            return Ok(());
        }
        let header: Vec<Cell<'_>> = columns.iter().map(|c| Cell::Text(c)).collect();
        self.line.clear();
        CsvFormat.format_row(&header, &mut self.line);
        self.out.write_all(&self.line)
    }

    fn write_row(&mut self, row: &[Value]) -> io::Result<()> {
        self.line.clear();
        let cells: Vec<Cell<'_>> = row.iter().map(Value::cell).collect();
        CsvFormat.format_row(&cells, &mut self.line);
        self.out.write_all(&self.line)
    }

    fn formatter(&self) -> Option<Arc<dyn RowFormatter>> {
        Some(Arc::new(CsvFormat))
    }

    fn write_formatted(&mut self, rows: &[u8]) -> io::Result<()> {
        self.out.write_all(rows)
    }

    fn finish(&mut self) -> io::Result<()> {
        finish_rows(&mut self.out)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Formats rows as JSON objects, one per line, keys in column order.
#[derive(Debug, Clone)]
pub struct JsonlFormat {
    /// The column names, already escaped as JSON strings.
    keys: Vec<String>,
}

impl JsonlFormat {
    /// The format for rows with these columns.
    pub fn new(columns: &[String]) -> Self {
        // Keys are escaped once, here, rather than on every row.
        let keys = columns
            .iter()
            .map(|c| serde_json::to_string(c).expect("a string always serialises"))
            .collect();
        JsonlFormat { keys }
    }
}

impl RowFormatter for JsonlFormat {
    fn format_row(&self, row: &[Cell<'_>], out: &mut Vec<u8>) {
        // Writing to a Vec cannot fail.
        out.push(b'{');
        for (i, (key, value)) in self.keys.iter().zip(row).enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(key.as_bytes());
            out.push(b':');
            match *value {
                Cell::Empty => out.extend_from_slice(b"null"),
                Cell::Text(text) => {
                    let _ = serde_json::to_writer(&mut *out, text);
                }
                Cell::Int(n) => push_int(n, out),
                Cell::Signed(n) => push_int(n, out),
                Cell::Float(x) if x.is_finite() => push_one_decimal(x, out),
                Cell::Float(_) => out.extend_from_slice(b"null"),
                Cell::Micros(nanos) => push_micros(nanos, out),
            }
        }
        out.extend_from_slice(b"}\n");
    }
}

/// Writes rows as JSON objects, one per line, keys in column order.
pub struct JsonlRows<W: Write> {
    out: io::BufWriter<W>,
    format: Arc<JsonlFormat>,
    /// Reused from row to row.
    line: Vec<u8>,
}

impl<W: Write> JsonlRows<W> {
    /// A JSON Lines writer over `out`.
    pub fn new(out: W) -> Self {
        JsonlRows {
            out: io::BufWriter::with_capacity(1 << 16, out),
            format: Arc::new(JsonlFormat::new(&[])),
            line: Vec::new(),
        }
    }
}

impl<W: Write> RowSink for JsonlRows<W> {
    fn begin(&mut self, columns: &[String]) -> io::Result<()> {
        self.format = Arc::new(JsonlFormat::new(columns));
        Ok(())
    }

    fn write_row(&mut self, row: &[Value]) -> io::Result<()> {
        self.line.clear();
        let cells: Vec<Cell<'_>> = row.iter().map(Value::cell).collect();
        self.format.format_row(&cells, &mut self.line);
        self.out.write_all(&self.line)
    }

    fn formatter(&self) -> Option<Arc<dyn RowFormatter>> {
        Some(self.format.clone())
    }

    fn write_formatted(&mut self, rows: &[u8]) -> io::Result<()> {
        self.out.write_all(rows)
    }

    fn finish(&mut self) -> io::Result<()> {
        finish_rows(&mut self.out)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows() -> (Vec<String>, Vec<Vec<Value>>) {
        let columns = vec![
            "line".to_string(),
            "status".into(),
            "error".into(),
            "micros".into(),
        ];
        let rows = vec![
            vec![
                Value::Int(3),
                Value::Text("ok".into()),
                Value::Text(String::new()),
                Value::Float(1.25),
            ],
            vec![
                Value::Int(4),
                Value::Text("error".into()),
                Value::Text("bad \"x\", here".into()),
                Value::Empty,
            ],
        ];
        (columns, rows)
    }

    fn write(sink: &mut dyn RowSink) {
        let (columns, rows) = rows();
        sink.begin(&columns).unwrap();
        for row in &rows {
            sink.write_row(row).unwrap();
        }
        sink.finish().unwrap();
    }

    #[test]
    fn csv_rows_quote_what_needs_quoting() {
        let mut out = Vec::new();
        write(&mut CsvRows::new(&mut out));
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "line,status,error,micros\n3,ok,,1.2\n4,error,\"bad \"\"x\"\", here\",\n"
        );
    }

    #[test]
    fn csv_fields_that_need_quotes_are_quoted() {
        let row = vec![
            Value::Text("a,b".into()),
            Value::Text("say \"hi\"".into()),
            Value::Text("two\nlines".into()),
            Value::Text("cr\r".into()),
            Value::Text(" padded ".into()),
            Value::Text("plain".into()),
            Value::Empty,
            Value::Int(7),
            Value::Float(0.05),
        ];
        let mut out = Vec::new();
        let cells: Vec<Cell<'_>> = row.iter().map(Value::cell).collect();
        CsvFormat.format_row(&cells, &mut out);
        // The csv crate's reader gives the same fields back.
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(&out[..]);
        let fields: Vec<String> = reader
            .records()
            .next()
            .unwrap()
            .unwrap()
            .iter()
            .map(String::from)
            .collect();
        let expected: Vec<String> = row.iter().map(Value::to_text).collect();
        assert_eq!(fields, expected);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\"cr\r\", padded ,plain,,7,0.1\n"
        );
    }

    #[test]
    fn jsonl_rows_are_objects_in_column_order() {
        let mut out = Vec::new();
        write(&mut JsonlRows::new(&mut out));
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            r#"{"line":3,"status":"ok","error":"","micros":1.2}"#
        );
        let second: serde_json::Value = serde_json::from_str(lines[1]).unwrap();
        assert_eq!(second["error"], "bad \"x\", here");
        assert!(second["micros"].is_null());
    }
}
