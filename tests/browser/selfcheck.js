// Injected into a copy of report.html by tests/report_browser.rs, after the page's own
// script: checks that every chart is drawn, that every sortable table sorts by every
// column both ways, that nothing was fetched, and writes its verdict as JSON into
// <pre id="selfcheck">, which `chromium --dump-dom` prints.
(function () {
  var problems = [];
  var figures = document.querySelectorAll('figure.chart');
  figures.forEach(function (figure, i) {
    var svg = figure.querySelector('svg');
    var name = 'chart ' + (i + 1) + ' (' + figure.querySelector('figcaption').textContent + ')';
    if (!svg) { problems.push(name + ': no svg'); return; }
    var box = svg.getBoundingClientRect();
    if (box.width < 200 || box.height < 100) {
      problems.push(name + ': drawn ' + box.width + 'x' + box.height);
    }
    var marks = svg.querySelectorAll('rect, polyline, path, circle, line').length;
    var labels = svg.querySelectorAll('text').length;
    if (marks < 5 || labels < 3) {
      problems.push(name + ': ' + marks + ' marks and ' + labels + ' labels');
    }
  });
  function key(cell) {
    var text = cell.textContent.trim();
    return { text: text, number: parseFloat(text.replace(/,/g, '')) };
  }
  function inOrder(table, column, ascending) {
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var keys = rows.map(function (row) { return key(row.cells[column]); });
    var numeric = keys.every(function (k) {
      return k.text === '' || k.text === '-' || isFinite(k.number);
    });
    for (var i = 1; i < keys.length; i++) {
      var a = keys[i - 1], b = keys[i], order;
      if (numeric) {
        order = (isFinite(a.number) ? a.number : -Infinity) -
                (isFinite(b.number) ? b.number : -Infinity);
      } else {
        order = a.text.localeCompare(b.text);
      }
      if (ascending ? order > 0 : order < 0) { return false; }
    }
    return true;
  }
  var sorted = 0;
  document.querySelectorAll('table.sortable').forEach(function (table) {
    var headings = table.tHead.rows[0].cells;
    var count = table.tBodies[0].rows.length;
    Array.prototype.forEach.call(headings, function (heading, column) {
      heading.click();
      if (!inOrder(table, column, true) || heading.getAttribute('aria-sort') !== 'ascending') {
        problems.push(table.id + ' not sorted up by ' + heading.textContent);
      }
      heading.click();
      if (!inOrder(table, column, false) || heading.getAttribute('aria-sort') !== 'descending') {
        problems.push(table.id + ' not sorted down by ' + heading.textContent);
      }
      if (table.tBodies[0].rows.length !== count) {
        problems.push(table.id + ' lost rows sorting by ' + heading.textContent);
      }
      sorted++;
    });
  });
  var fetched = performance.getEntriesByType('resource').map(function (r) { return r.name; });
  if (fetched.length > 0) { problems.push('fetched ' + fetched.join(', ')); }
  var verdict = {
    charts: figures.length,
    sortedColumns: sorted,
    errors: window.__selfcheckErrors || [],
    problems: problems
  };
  var out = document.createElement('pre');
  out.id = 'selfcheck';
  out.textContent = JSON.stringify(verdict);
  document.body.appendChild(out);
})();
