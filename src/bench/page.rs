//! `report.html` of a benchmark: the verdict, the comparison with an earlier run when there
//! is one, the results table (sortable), the charts, the disagreements and the environment.

use crate::batch::counted;
use crate::report::export::{Column, Table};
use crate::report::html::Page;
use crate::report::EnvInfo;

use super::compare::Comparison;
use super::format::{thousands, threads_text};
use super::report::BenchSummary;

/// The page of `summary`, measured in `env`, with its `charts` (title and SVG) and a
/// comparison (with its chart).
pub fn bench_page(
    summary: &BenchSummary,
    env: &EnvInfo,
    charts: &[(&str, String)],
    comparison: Option<(&Comparison, &str)>,
) -> String {
    let mut page = Page::new(&format!("puzzlebench bench: {}", summary.suite));
    page.paragraph(
        "",
        &format!(
            "{} · {} ({} cores) · puzzlebench {}{} · {} measurements",
            env.date,
            env.cpu_model,
            env.cores,
            env.version,
            env.git_commit
                .as_deref()
                .map(|c| format!(" ({c})"))
                .unwrap_or_default(),
            summary.runs.len()
        ),
    );
    if let Some(text) = summary.interruption_text() {
        page.paragraph("bad", &text);
    }
    let total = summary.total_disagreements();
    if total == 0 {
        page.paragraph(
            "good",
            "Every run agrees with the first run on its dataset, record by record.",
        );
    } else {
        page.paragraph(
            "bad",
            &format!(
                "{} {}: listed under Disagreements.",
                counted(total as usize, "answer"),
                if total == 1 { "disagrees" } else { "disagree" }
            ),
        );
    }
    for row in summary.runs.iter().filter(|r| !r.failure.is_empty()) {
        page.paragraph(
            "bad",
            &format!(
                "{} failed on {}: {}",
                row.algorithm, row.dataset, row.failure
            ),
        );
    }
    if let Some((comparison, svg)) = comparison {
        page.heading("Compared with an earlier run");
        page.paragraph(
            "",
            &format!("old: {} · new: {}", comparison.old, comparison.new),
        );
        let (_, slower, _) = comparison.counts();
        page.paragraph(
            if slower > 0 { "bad" } else { "good" },
            &comparison.headline(),
        );
        for note in comparison.notes() {
            page.paragraph("bad", &note);
        }
        page.chart("Speed ratio, new over old", svg);
        page.paragraph("note", &comparison.rule);
        page.sortable_table(&comparison.table());
    }
    page.heading("Results");
    page.paragraph(
        "note",
        "Click a heading to sort. records/s: the median of the timed runs; beside it the \
         95% confidence interval of the median (from 6 runs on), else min–max, * when some \
         runs are outliers (beyond 1.5 interquartile ranges). µs: per-record time (for an \
         external program, its wall time per record). speed-up: over the same algorithm on \
         one thread; vs best: over the fastest run on the dataset at the same thread count.",
    );
    page.sortable_table(&results_table(summary));
    page.heading("Charts");
    for (title, svg) in charts {
        page.chart(title, svg);
    }
    page.heading("Disagreements");
    if summary.disagreements.is_empty() {
        page.paragraph("", "None.");
    } else {
        page.sortable_table(&summary.disagreement_table());
    }
    page.heading("Environment");
    page.facts(&env.facts());
    page.to_html()
}

/// The results as the page shows them: figures formatted, one row per measurement.
fn results_table(summary: &BenchSummary) -> Table {
    let mut table = Table::new(vec![
        Column::left("dataset"),
        Column::left("kind"),
        Column::left("algorithm"),
        Column::right("threads"),
        Column::right("records"),
        Column::right("runs"),
        Column::right("records/s"),
        Column::right("95% CI or min–max"),
        Column::right("outliers"),
        Column::right("µs p50"),
        Column::right("µs p99"),
        Column::right("speed-up"),
        Column::right("vs best"),
        Column::right("effort/record"),
        Column::right("disagree"),
        Column::left("statuses"),
    ]);
    let optional =
        |x: Option<f64>, digits: usize| x.map_or("-".into(), |x| format!("{x:.digits$}"));
    for row in &summary.runs {
        table.push(vec![
            row.dataset.clone(),
            row.kind.clone(),
            row.algorithm.clone(),
            threads_text(row.threads),
            row.records.to_string(),
            row.repeats.to_string(),
            thousands(row.records_per_s),
            row.spread_text(),
            row.outlier_runs.to_string(),
            optional(row.us_p50, 1),
            optional(row.us_p99, 1),
            optional(row.speedup_vs_1_thread, 2),
            format!("{:.2}", row.relative_to_fastest),
            optional(row.effort_per_record, 1),
            row.disagreements.to_string(),
            row.statuses.replace(';', " "),
        ]);
    }
    table
}
