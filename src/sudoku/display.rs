//! `sudoku show`'s rows drawn as blocks of text: a title line per record, its error if
//! any, then the grid in the block display beside its solution.

use std::io::{self, Write};

use crate::batch::{RowSink, Value};

/// A [`RowSink`] that draws each row of a `sudoku show` run as a block of text.
pub struct BlockWriter<W: Write> {
    out: W,
    columns: Vec<String>,
}

impl<W: Write> BlockWriter<W> {
    /// Draws onto `out`.
    pub fn new(out: W) -> Self {
        BlockWriter {
            out,
            columns: Vec::new(),
        }
    }

    fn text<'v>(&self, row: &'v [Value], column: &str) -> Option<&'v str> {
        let index = self.columns.iter().position(|c| c == column)?;
        match &row[index] {
            Value::Text(text) if !text.is_empty() => Some(text),
            _ => None,
        }
    }

    fn value(&self, row: &[Value], column: &str) -> Option<String> {
        let index = self.columns.iter().position(|c| c == column)?;
        Some(row[index].to_text())
    }
}

impl<W: Write> RowSink for BlockWriter<W> {
    fn begin(&mut self, columns: &[String]) -> io::Result<()> {
        self.columns = columns.to_vec();
        Ok(())
    }

    fn write_row(&mut self, row: &[Value]) -> io::Result<()> {
        let mut title = String::new();
        if let Some(file) = self.text(row, "file") {
            title.push_str(file);
            title.push(':');
        }
        title.push_str(&format!(
            "line {}",
            self.value(row, "line").unwrap_or_default()
        ));
        let status = self.text(row, "status").unwrap_or_default();
        match (self.text(row, "grid"), self.value(row, "clues")) {
            (Some(_), Some(clues)) if status != "shown" => {
                writeln!(self.out, "{title}: {clues} clues, {status}")?
            }
            (Some(_), Some(clues)) => writeln!(self.out, "{title}: {clues} clues")?,
            _ => writeln!(self.out, "{title}: {status}")?,
        }
        if let Some(error) = self.text(row, "error") {
            writeln!(self.out, "  {error}")?;
        }
        if let Some(grid) = self.text(row, "grid") {
            let solution: Vec<&str> = self
                .text(row, "solution")
                .map_or(Vec::new(), |s| s.lines().collect());
            for (i, line) in grid.lines().enumerate() {
                match solution.get(i) {
                    Some(solved) => writeln!(self.out, "{line}    {solved}")?,
                    None => writeln!(self.out, "{line}")?,
                }
            }
        }
        writeln!(self.out)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}
