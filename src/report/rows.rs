//! Result rows as CSV or JSON Lines.

use std::io::{self, Write};

use crate::batch::{RowSink, Value};

/// The format of result rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
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

/// Writes rows as CSV with a header row.
pub struct CsvRows<W: Write> {
    writer: csv::Writer<W>,
    /// Reused for numbers, so that writing a row allocates nothing.
    number: String,
}

impl<W: Write> CsvRows<W> {
    /// A CSV writer over `out` (buffered internally).
    pub fn new(out: W) -> Self {
        CsvRows {
            writer: csv::Writer::from_writer(out),
            number: String::new(),
        }
    }
}

fn csv_error(error: csv::Error) -> io::Error {
    match error.into_kind() {
        csv::ErrorKind::Io(error) => error,
        other => io::Error::other(format!("{other:?}")),
    }
}

impl<W: Write> RowSink for CsvRows<W> {
    fn begin(&mut self, columns: &[String]) -> io::Result<()> {
        self.writer.write_record(columns).map_err(csv_error)
    }

    fn write_row(&mut self, row: &[Value]) -> io::Result<()> {
        use std::fmt::Write as _;
        // Field by field, without a String per cell: on fast jobs the writer thread is the
        // bottleneck.
        for value in row {
            let field: &str = match value {
                Value::Empty => "",
                Value::Text(text) => text,
                Value::Int(n) => {
                    self.number.clear();
                    let _ = write!(self.number, "{n}");
                    &self.number
                }
                Value::Float(x) => {
                    self.number.clear();
                    let _ = write!(self.number, "{x:.1}");
                    &self.number
                }
            };
            self.writer.write_field(field).map_err(csv_error)?;
        }
        self.writer
            .write_record(std::iter::empty::<&[u8]>())
            .map_err(csv_error)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.writer.flush()
    }
}

/// Writes rows as JSON objects, one per line, keys in column order.
pub struct JsonlRows<W: Write> {
    out: io::BufWriter<W>,
    keys: Vec<String>,
}

impl<W: Write> JsonlRows<W> {
    /// A JSON Lines writer over `out`.
    pub fn new(out: W) -> Self {
        JsonlRows {
            out: io::BufWriter::with_capacity(1 << 16, out),
            keys: Vec::new(),
        }
    }
}

impl<W: Write> RowSink for JsonlRows<W> {
    fn begin(&mut self, columns: &[String]) -> io::Result<()> {
        // Keys are escaped once, here, rather than on every row.
        self.keys = columns
            .iter()
            .map(|c| serde_json::to_string(c).expect("a string always serialises"))
            .collect();
        Ok(())
    }

    fn write_row(&mut self, row: &[Value]) -> io::Result<()> {
        self.out.write_all(b"{")?;
        for (i, (key, value)) in self.keys.iter().zip(row).enumerate() {
            if i > 0 {
                self.out.write_all(b",")?;
            }
            self.out.write_all(key.as_bytes())?;
            self.out.write_all(b":")?;
            match value {
                Value::Empty => self.out.write_all(b"null")?,
                Value::Text(text) => serde_json::to_writer(&mut self.out, text)?,
                Value::Int(n) => write!(self.out, "{n}")?,
                Value::Float(x) if x.is_finite() => write!(self.out, "{x:.1}")?,
                Value::Float(_) => self.out.write_all(b"null")?,
            }
        }
        self.out.write_all(b"}\n")
    }

    fn finish(&mut self) -> io::Result<()> {
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
