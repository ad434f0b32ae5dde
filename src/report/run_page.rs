//! `report.html` of a batch run: its facts, the records per status, the latency histogram,
//! the slowest records with their line numbers, and the environment.

use std::path::Path;

use crate::batch::counted;

use plotters::prelude::*;

use super::export::{Column, ExportError, Table};
use super::html::Page;
use super::summary::{LatencyBand, Summary};

/// The page of `summary`, written on `date` and measured where `facts` say (name, value
/// pairs); `file` names it in errors.
pub fn run_page(
    summary: &Summary,
    date: &str,
    facts: &[(String, String)],
    file: &Path,
) -> Result<String, ExportError> {
    let mut page = Page::new(&format!("puzzlebench {}", summary.command));
    page.paragraph(
        "",
        &format!(
            "{} in {:.3} s ({:.0} records/s, {}) · {} · {}",
            counted(summary.records as usize, "record"),
            summary.wall_seconds,
            summary.records_per_second,
            counted(summary.threads, "thread"),
            summary.inputs.join(", "),
            date
        ),
    );
    if summary.interrupted {
        page.paragraph(
            "bad",
            &format!(
                "Interrupted: the first {} done, the rest not read.",
                counted(summary.records as usize, "record")
            ),
        );
    }
    page.heading("Records per status");
    let mut statuses = Table::new(vec![
        Column::left("status"),
        Column::right("records"),
        Column::right("share"),
    ]);
    for (status, count) in &summary.statuses {
        let count = count.as_u64().unwrap_or(0);
        let share = if summary.records > 0 {
            100.0 * count as f64 / summary.records as f64
        } else {
            0.0
        };
        statuses.push(vec![
            status.clone(),
            count.to_string(),
            format!("{share:.1}%"),
        ]);
    }
    page.sortable_table(&statuses);
    page.heading("Time per record");
    let svg = histogram_svg(&summary.latency_histogram).map_err(|message| ExportError {
        path: file.to_path_buf(),
        source: std::io::Error::other(format!("cannot draw the latency histogram: {message}")),
    })?;
    page.chart("Records by time per record (µs, log scale)", &svg);
    page.heading("Slowest records");
    let mut slowest = Table::new(vec![
        Column::right("rank"),
        Column::left("input"),
        Column::right("line"),
        Column::left("status"),
        Column::right("µs"),
    ]);
    for (rank, record) in summary.slowest.iter().enumerate() {
        slowest.push(vec![
            (rank + 1).to_string(),
            record.input.clone(),
            record.line.to_string(),
            record.status.clone(),
            format!("{:.1}", record.micros),
        ]);
    }
    page.sortable_table(&slowest);
    page.heading("Run");
    page.facts(&summary.flat());
    page.heading("Environment");
    page.facts(facts);
    Ok(page.to_html())
}

/// Bars of records per band of time, on a log axis of µs.
fn histogram_svg(bands: &[LatencyBand]) -> Result<String, Box<dyn std::error::Error>> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 360)).into_drawing_area();
        root.fill(&WHITE)?;
        let (low, high) = match (bands.first(), bands.last()) {
            (Some(first), Some(last)) => (first.from_us, last.to_us),
            _ => (1.0, 10.0),
        };
        let most = bands.iter().map(|b| b.records).max().unwrap_or(0).max(1);
        let mut chart = ChartBuilder::on(&root)
            .margin(14)
            .x_label_area_size(44)
            .y_label_area_size(70)
            .build_cartesian_2d((low..high).log_scale(), 0u64..most + most / 10 + 1)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc("µs per record")
            .y_desc("records")
            .x_label_formatter(&|x| short(*x))
            .label_style(("sans-serif", 14))
            .draw()?;
        let fill = RGBColor(31, 119, 180).filled();
        chart.draw_series(
            bands
                .iter()
                .filter(|b| b.records > 0)
                .map(|b| Rectangle::new([(b.from_us, 0), (b.to_us, b.records)], fill)),
        )?;
        root.present()?;
    }
    Ok(svg)
}

/// `1500` as `1.5k`, `0.25` as `0.25`.
fn short(x: f64) -> String {
    if x >= 1e6 {
        format!("{}M", trim(x / 1e6))
    } else if x >= 1e3 {
        format!("{}k", trim(x / 1e3))
    } else {
        trim(x)
    }
}

fn trim(x: f64) -> String {
    let text = format!("{x:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}
