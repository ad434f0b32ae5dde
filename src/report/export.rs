//! The export layer: one exporter per format — CSV, JSON, Markdown and text tables, and
//! files written under their own names — shared by run summaries and benchmark summaries.
//! (Result rows have theirs in [`rows`](super::rows): CSV and JSON Lines.)

use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;
use thiserror::Error;

/// A file or folder of a report that could not be written.
#[derive(Debug, Error)]
#[error("cannot write {}: {source}", path.display())]
pub struct ExportError {
    /// The file or folder.
    pub path: PathBuf,
    /// The underlying error.
    pub source: std::io::Error,
}

/// Writes `contents` to `path`; the error names the path.
///
/// The bytes go to a new file beside `path` that then takes its name: a full disk leaves
/// the file as it was (or absent), never cut short, and a symbolic link at `path` is
/// replaced, not written through (a merged report's folder holding a link to a merged
/// shard's file). A device or a named pipe at `path` is written as it is.
pub fn write_file(path: &Path, contents: impl AsRef<[u8]>) -> Result<(), ExportError> {
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;
    let error = |source| ExportError {
        path: path.to_path_buf(),
        source,
    };
    if fs::metadata(path).is_ok_and(|meta| !meta.is_file()) {
        return fs::write(path, contents).map_err(error);
    }
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut file = tempfile::Builder::new()
        .prefix(".puzzlebench-")
        .suffix(".partial")
        .tempfile_in(folder)
        .map_err(error)?;
    // Readable by all, as a file written in place would be (a temporary file is not).
    (file
        .as_file()
        .set_permissions(fs::Permissions::from_mode(0o644)))
    .map_err(error)?;
    file.write_all(contents.as_ref()).map_err(error)?;
    file.persist(path).map_err(|e| error(e.error))?;
    Ok(())
}

/// Creates folder `dir` and its parents; the error names the folder.
pub fn create_folder(dir: &Path) -> Result<(), ExportError> {
    let error = |source| ExportError {
        path: dir.to_path_buf(),
        source,
    };
    // `create_dir_all` on a file says only "File exists".
    if dir.exists() && !dir.is_dir() {
        return Err(error(std::io::Error::other("it is a file, not a folder")));
    }
    fs::create_dir_all(dir).map_err(error)?;
    // An existing folder may still refuse new files (`/proc/self`, no write permission):
    // found now by a file made and removed, rather than after a long run.
    let probe = dir.join(format!(".puzzlebench-probe-{}", std::process::id()));
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .map_err(error)?;
    fs::remove_file(&probe).map_err(error)
}

/// `value` as pretty-printed JSON.
pub fn to_json<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string_pretty(value).expect("report values serialise to JSON")
}

/// `rows` as CSV with a header row made from their field names (empty without rows).
pub fn rows_to_csv<T: Serialize>(rows: &[T]) -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    for row in rows {
        writer.serialize(row).expect("report rows serialise to CSV");
    }
    csv_text(writer)
}

fn csv_text(writer: csv::Writer<Vec<u8>>) -> String {
    let bytes = writer.into_inner().expect("flushing to memory cannot fail");
    String::from_utf8(bytes).expect("CSV of UTF-8 strings is UTF-8")
}

/// How a column's cells line up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Against the left edge.
    Left,
    /// Against the right edge (numbers).
    Right,
}

/// A column of a [`Table`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// Its heading.
    pub name: String,
    /// How its cells line up.
    pub align: Align,
    /// Characters its cells are padded to in text (longer cells are kept whole).
    pub width: usize,
}

impl Column {
    /// A column aligned left, not padded.
    pub fn left(name: &str) -> Self {
        Column {
            name: name.to_string(),
            align: Align::Left,
            width: 0,
        }
    }

    /// A column aligned right, not padded.
    pub fn right(name: &str) -> Self {
        Column {
            align: Align::Right,
            ..Column::left(name)
        }
    }

    /// The column padded to `width` characters in text.
    pub fn padded(self, width: usize) -> Self {
        Column { width, ..self }
    }
}

/// Rows of text cells under named columns, to export as CSV, Markdown or text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Table {
    /// The columns.
    pub columns: Vec<Column>,
    /// The rows, one cell per column.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// An empty table with these columns.
    pub fn new(columns: Vec<Column>) -> Self {
        Table {
            columns,
            rows: Vec::new(),
        }
    }

    /// A table read from CSV text with a header row, every column aligned left (empty if
    /// the text has no header).
    pub fn from_csv(text: &str) -> Self {
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let Ok(header) = reader.headers().cloned() else {
            return Table::default();
        };
        let mut table = Table::new(header.iter().map(Column::left).collect());
        for record in reader.records().map_while(Result::ok) {
            table.rows.push(record.iter().map(String::from).collect());
        }
        table
    }

    /// Adds a row.
    pub fn push(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    /// CSV: the column names, then the rows.
    pub fn to_csv(&self) -> String {
        let mut writer = csv::Writer::from_writer(Vec::new());
        let names = self.columns.iter().map(|c| c.name.as_str());
        let mut written = writer.write_record(names);
        for row in &self.rows {
            written = written.and_then(|()| writer.write_record(row));
        }
        written.expect("writing CSV to memory cannot fail");
        csv_text(writer)
    }

    /// A Markdown table (`|` in cells escaped); empty when the table has no columns.
    pub fn to_markdown(&self) -> String {
        if self.columns.is_empty() {
            return String::new();
        }
        let line = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));
        let mut md = line(self.columns.iter().map(|c| escape(&c.name)).collect());
        md.push('|');
        for column in &self.columns {
            md.push_str(match column.align {
                Align::Left => "---|",
                Align::Right => "---:|",
            });
        }
        md.push('\n');
        for row in &self.rows {
            md.push_str(&line(row.iter().map(|cell| escape(cell)).collect()));
        }
        md
    }

    /// Plain text: the heading line, then one line per row, cells padded to their
    /// column's width and separated by a space. A cell holding a control character (a
    /// line break or a tab in a file name) is written with escapes, on its line.
    pub fn to_text(&self) -> String {
        let line = |cells: &mut dyn Iterator<Item = &str>| {
            let padded: Vec<String> = cells
                .map(|cell| match cell.chars().any(char::is_control) {
                    true => std::borrow::Cow::Owned(cell.escape_debug().to_string()),
                    false => std::borrow::Cow::Borrowed(cell),
                })
                .zip(&self.columns)
                .map(|(cell, column)| match column.align {
                    Align::Left => format!("{cell:<width$}", width = column.width),
                    Align::Right => format!("{cell:>width$}", width = column.width),
                })
                .collect();
            padded.join(" ") + "\n"
        };
        let mut text = line(&mut self.columns.iter().map(|c| c.name.as_str()));
        for row in &self.rows {
            text.push_str(&line(&mut row.iter().map(String::as_str)));
        }
        text
    }
}

/// A Markdown cell's text: `|` would end the cell, and a line break the table's row (a
/// file name may hold one), so breaks become `<br>`, which a table cell shows as one.
fn escape(text: &str) -> String {
    markdown_text(text)
        .replace("\r\n", "<br>")
        .replace(['\n', '\r'], "<br>")
}

/// Text shown as it is in Markdown: a backslash, `|`, `*`, `` ` ``, `[` and `]` are
/// escaped, and `&`, `<` and `>` written as entities, so that a name such as `<img …>`
/// or `a*b*` is not read as markup (`_` inside a word, as in file names, is not).
pub fn markdown_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' | '|' | '*' | '`' | '[' | ']' => {
                out.push('\\');
                out.push(c);
            }
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            _ => out.push(c),
        }
    }
    out
}

/// `text` as a Markdown code span on one line: fenced by more backticks than it holds
/// in a row, its line breaks made spaces.
pub fn markdown_code(text: &str) -> String {
    let text = text.replace(['\n', '\r'], " ");
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    format!("{fence} {text} {fence}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Table {
        let mut table = Table::new(vec![
            Column::left("name").padded(6),
            Column::right("count").padded(5),
        ]);
        table.push(vec!["a|b".into(), "12".into()]);
        table.push(vec!["longer name".into(), "3".into()]);
        table
    }

    #[test]
    fn markdown_escapes_pipes_and_marks_right_columns() {
        assert_eq!(
            sample().to_markdown(),
            "| name | count |\n|---|---:|\n| a\\|b | 12 |\n| longer name | 3 |\n"
        );
    }

    #[test]
    fn markdown_text_and_code_show_names_as_they_are() {
        assert_eq!(
            markdown_text(r"<img src=x>&a*b*_c_\[d]`"),
            r"&lt;img src=x&gt;&amp;a\*b\*_c_\\\[d\]\`"
        );
        assert_eq!(markdown_code("run `x`\nnow"), "`` run `x` now ``");
        assert_eq!(markdown_code("plain"), "` plain `");
    }

    #[test]
    fn markdown_shows_line_breaks_in_a_cell_as_breaks_of_the_cell() {
        let mut table = Table::new(vec![Column::left("file")]);
        table.push(vec!["two\nlines\r\nthree\rfour".into()]);
        assert_eq!(
            table.to_markdown(),
            "| file |\n|---|\n| two<br>lines<br>three<br>four |\n"
        );
    }

    #[test]
    fn text_pads_cells_and_keeps_long_ones_whole() {
        assert_eq!(
            sample().to_text(),
            "name   count\na|b       12\nlonger name     3\n"
        );
    }

    #[test]
    fn csv_round_trips_through_a_table() {
        let csv = sample().to_csv();
        assert_eq!(csv, "name,count\na|b,12\nlonger name,3\n");
        let back = Table::from_csv(&csv);
        assert_eq!(back.rows, sample().rows);
        assert_eq!(back.columns[1], Column::left("count"));
    }

    #[test]
    fn a_write_error_names_its_path() {
        let error = write_file(Path::new("/nonexistent-folder/summary.csv"), "x").unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("cannot write /nonexistent-folder/summary.csv: "),
            "{error}"
        );
    }
}
