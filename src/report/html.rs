//! The HTML exporter: one self-contained page — styles, a small sorting script and the
//! SVG charts inline, nothing fetched — made of headings, paragraphs, tables and charts.

use super::export::{Align, Table};

/// An HTML page being built, section after section.
#[derive(Debug, Clone, Default)]
pub struct Page {
    title: String,
    body: String,
    tables: usize,
}

/// Styles: readable tables and charts that shrink to the window.
const STYLE: &str = "
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 1400px;
       padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; white-space: nowrap; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
thead th { background: #eee; position: sticky; top: 0; }
table.sortable thead th { cursor: pointer; user-select: none; }
th[aria-sort=ascending]::after { content: ' \\25B2'; }
th[aria-sort=descending]::after { content: ' \\25BC'; }
div.table { overflow-x: auto; }
figure { margin: 1em 0; } figcaption { font-weight: bold; margin-bottom: 0.3em; }
figure svg { max-width: 100%; height: auto; border: 1px solid #ddd; }
p.good { color: #176317; } p.bad { color: #a31515; font-weight: bold; }
p.note { color: #555; font-size: 0.9em; }
";

/// Sorts a `table.sortable` by the column whose heading is clicked (again: the other way):
/// by number when every cell of the column reads as one (thousands separators allowed),
/// else by text. Rows keep their order among equals.
const SORT_SCRIPT: &str = r#"
(function () {
  function key(cell) {
    var text = (cell.getAttribute('data-sort') || cell.textContent).trim();
    return { text: text, number: parseFloat(text.replace(/,/g, '')) };
  }
  function sortBy(table, column, heading) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var numeric = rows.every(function (row) {
      var k = key(row.cells[column]);
      return k.text === '' || k.text === '-' || isFinite(k.number);
    });
    var ascending = heading.getAttribute('aria-sort') !== 'ascending';
    rows.sort(function (a, b) {
      var x = key(a.cells[column]), y = key(b.cells[column]), order;
      if (numeric) {
        order = (isFinite(x.number) ? x.number : -Infinity) -
                (isFinite(y.number) ? y.number : -Infinity);
      } else {
        order = x.text.localeCompare(y.text);
      }
      return ascending ? order : -order;
    });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) {
      h.removeAttribute('aria-sort');
    });
    heading.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
    rows.forEach(function (row) { body.appendChild(row); });
  }
  document.querySelectorAll('table.sortable').forEach(function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (heading, column) {
      heading.title = 'sort by ' + heading.textContent;
      heading.addEventListener('click', function () { sortBy(table, column, heading); });
    });
  });
})();
"#;

impl Page {
    /// An empty page titled `title` (also its first heading).
    pub fn new(title: &str) -> Self {
        Page {
            title: title.to_string(),
            ..Page::default()
        }
    }

    /// A section heading.
    pub fn heading(&mut self, text: &str) {
        self.body.push_str(&format!("<h2>{}</h2>\n", escape(text)));
    }

    /// A paragraph of plain text; `class` is `good`, `bad`, `note` or empty.
    pub fn paragraph(&mut self, class: &str, text: &str) {
        match class {
            "" => self.body.push_str(&format!("<p>{}</p>\n", escape(text))),
            class => self
                .body
                .push_str(&format!("<p class=\"{class}\">{}</p>\n", escape(text))),
        }
    }

    /// A table whose rows sort by any column when its heading is clicked.
    pub fn sortable_table(&mut self, table: &Table) {
        self.tables += 1;
        let id = format!("table-{}", self.tables);
        self.body.push_str(&table_html(table, &id, "sortable"));
    }

    /// A table of facts, one `name: value` per row, in the given order.
    pub fn facts(&mut self, facts: &[(String, String)]) {
        let mut table = Table::new(vec![
            super::export::Column::left("fact"),
            super::export::Column::left("value"),
        ]);
        for (name, value) in facts {
            table.push(vec![name.clone(), value.clone()]);
        }
        self.tables += 1;
        let id = format!("table-{}", self.tables);
        self.body.push_str(&table_html(&table, &id, "facts"));
    }

    /// A chart: its caption and its SVG drawing, inline (any XML declaration dropped).
    pub fn chart(&mut self, caption: &str, svg: &str) {
        let svg = match svg.find("<svg") {
            Some(start) => &svg[start..],
            None => svg,
        };
        self.body.push_str(&format!(
            "<figure class=\"chart\"><figcaption>{}</figcaption>\n{}\n</figure>\n",
            escape(caption),
            svg.trim()
        ));
    }

    /// The whole page.
    pub fn to_html(&self) -> String {
        format!(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
             <h1>{title}</h1>\n{body}<script>{SORT_SCRIPT}</script>\n</body>\n</html>\n",
            title = escape(&self.title),
            body = self.body
        )
    }
}

/// `table` as an HTML table with `id` and `class`; right-aligned columns are numbers.
fn table_html(table: &Table, id: &str, class: &str) -> String {
    let mut html =
        format!("<div class=\"table\"><table id=\"{id}\" class=\"{class}\">\n<thead><tr>");
    for column in &table.columns {
        html.push_str(&format!("<th>{}</th>", escape(&column.name)));
    }
    html.push_str("</tr></thead>\n<tbody>\n");
    for row in &table.rows {
        html.push_str("<tr>");
        for (cell, column) in row.iter().zip(&table.columns) {
            match column.align {
                Align::Right => html.push_str(&format!("<td class=\"num\">{}</td>", escape(cell))),
                Align::Left => html.push_str(&format!("<td>{}</td>", escape(cell))),
            }
        }
        html.push_str("</tr>\n");
    }
    html.push_str("</tbody>\n</table></div>\n");
    html
}

/// `text` with the characters HTML gives a meaning escaped.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::export::Column;

    #[test]
    fn a_page_escapes_text_and_inlines_its_parts() {
        let mut page = Page::new("runs <1>");
        page.paragraph("bad", "a & b");
        let mut table = Table::new(vec![Column::left("name"), Column::right("rate")]);
        table.push(vec!["x<y".into(), "1,234".into()]);
        page.sortable_table(&table);
        page.chart("chart", "<?xml version=\"1.0\"?>\n<svg width=\"10\"></svg>");
        let html = page.to_html();
        assert!(html.contains("<title>runs &lt;1&gt;</title>"));
        assert!(html.contains("<p class=\"bad\">a &amp; b</p>"));
        assert!(html.contains("<td>x&lt;y</td><td class=\"num\">1,234</td>"));
        assert!(html.contains("<figcaption>chart</figcaption>\n<svg width=\"10\"></svg>"));
        assert!(!html.contains("<?xml"));
        assert!(html.contains("table id=\"table-1\" class=\"sortable\""));
        // Nothing is fetched: no external script, style or image.
        assert!(!html.contains("src=") && !html.contains("href="));
    }
}
