//! The report's SVG charts, drawn with plotters: throughput per algorithm per dataset (log
//! scale), the latency distribution per algorithm (CDF of µs per record) and the speed-up
//! with threads.

use std::path::Path;

use plotters::prelude::*;

use crate::report::export::write_file;

use super::error::BenchError;
use super::format::median;
use super::run::RunResult;
use super::stats::latency_cdf;

/// File names of the charts, in the order the report shows them.
pub const CHART_FILES: [&str; 3] = ["throughput.svg", "latency.svg", "scaling.svg"];

/// The charts' titles, in the same order.
pub const CHART_TITLES: [&str; 3] = ["Throughput", "Latency distribution", "Scaling with threads"];

/// The comparison chart's file name.
pub const COMPARISON_FILE: &str = "comparison.svg";

const FONT: &str = "sans-serif";
const PANEL: (u32, u32) = (420, 280);
const PANEL_COLUMNS: usize = 3;

/// Draws every chart of `results` into `dir`; returns each file's name and SVG text.
pub fn write_charts(
    dir: &Path,
    results: &[RunResult],
) -> Result<Vec<(&'static str, String)>, BenchError> {
    let names = algorithm_names(results);
    let charts: [(&'static str, Chart); 3] = [
        (CHART_FILES[0], throughput),
        (CHART_FILES[1], latency),
        (CHART_FILES[2], scaling),
    ];
    let mut drawn = Vec::new();
    for (file, draw) in charts {
        let mut svg = String::new();
        draw(&mut svg, results, &names).map_err(chart_error(file))?;
        write_file(&dir.join(file), &svg)?;
        drawn.push((file, svg));
    }
    Ok(drawn)
}

/// One bar of the comparison chart: a measurement's speed ratio (new over old) with its
/// 95% interval, and whether it counts as slower (-1), unchanged (0) or faster (1).
#[derive(Debug, Clone, PartialEq)]
pub struct RatioBar {
    /// The measurement's name.
    pub label: String,
    /// Lower end of the interval.
    pub low: f64,
    /// The ratio.
    pub ratio: f64,
    /// Upper end.
    pub high: f64,
    /// -1 slower, 0 unchanged, 1 faster.
    pub verdict: i8,
}

/// The comparison chart: one bar per measurement from 1 to its ratio (log scale), its
/// interval as a whisker, the band of ratios counted as noise shaded.
pub fn comparison_chart(bars: &[RatioBar], noise: f64) -> Result<String, BenchError> {
    let mut svg = String::new();
    draw_comparison(&mut svg, bars, noise).map_err(chart_error(COMPARISON_FILE))?;
    Ok(svg)
}

/// The widest ratio the comparison chart's axis shows, each way: a millionfold. Bars
/// beyond it end at the axis's edge. Plotters walks a log axis decade by decade, and an
/// axis from hostile ratios (1e150) spans more decades than it can count, or ends at 0
/// or infinity, where it loops for ever.
const WIDEST_RATIO: f64 = 1e6;

fn draw_comparison(svg: &mut String, bars: &[RatioBar], noise: f64) -> DrawResult {
    let rows = bars.len().max(1) as i32;
    let extreme = bars
        .iter()
        .flat_map(|b| [b.low, b.high, b.ratio])
        .filter(|x| x.is_finite() && *x > 0.0)
        .map(|x| x.ln().abs())
        .fold((1.0 + noise).ln() * 2.0, f64::max)
        .min(WIDEST_RATIO.ln());
    let (left, right) = ((-extreme * 1.15).exp(), (extreme * 1.15).exp());
    // On the axis: a ratio beyond it at its edge, one that is no number at 1.
    let fit = |x: f64| {
        if x.is_nan() {
            1.0
        } else {
            x.clamp(left, right)
        }
    };
    let height = 110 + rows as u32 * 26;
    let root = SVGBackend::with_string(svg, (1000, height)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "Speed of the new run over the old (log scale; whiskers: 95% interval)",
            (FONT, 18),
        )
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(380)
        .build_cartesian_2d(
            (left..right).log_scale(),
            (-5..rows * 10 - 5).with_key_points((0..rows).map(|i| i * 10).collect()),
        )?;
    let labels: Vec<&str> = bars.iter().map(|b| b.label.as_str()).collect();
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_label_formatter(&|&y| {
            let index = rows - 1 - y / 10;
            if y % 10 == 0 && (0..rows).contains(&index) {
                labels
                    .get(index as usize)
                    .map_or(String::new(), |l| l.to_string())
            } else {
                String::new()
            }
        })
        .x_desc("new records/s ÷ old records/s")
        .x_label_formatter(&|x| format!("{x:.2}×"))
        .label_style((FONT, 12))
        .draw()?;
    let band = RGBColor(220, 220, 220).filled();
    chart.draw_series([Rectangle::new(
        [(1.0 / (1.0 + noise), -5), (1.0 + noise, rows * 10 - 5)],
        band,
    )])?;
    let colour = |verdict: i8| match verdict {
        v if v < 0 => RGBColor(214, 39, 40),
        v if v > 0 => RGBColor(44, 160, 44),
        _ => RGBColor(127, 127, 127),
    };
    for (i, bar) in bars.iter().enumerate() {
        let y = (rows - 1 - i as i32) * 10;
        let style = colour(bar.verdict);
        chart.draw_series([Rectangle::new(
            [(1.0, y - 3), (fit(bar.ratio), y + 3)],
            style.filled(),
        )])?;
        chart.draw_series([PathElement::new(
            vec![(fit(bar.low), y), (fit(bar.high), y)],
            BLACK.stroke_width(2),
        )])?;
    }
    chart.draw_series([PathElement::new(
        vec![(1.0, -5), (1.0, rows * 10 - 5)],
        BLACK.stroke_width(1),
    )])?;
    root.present()?;
    Ok(())
}

/// Draws one chart as SVG text into its first argument.
type Chart = fn(&mut String, &[RunResult], &[String]) -> DrawResult;

fn chart_error<E: std::fmt::Display>(file: &'static str) -> impl Fn(E) -> BenchError {
    move |error| BenchError::Chart {
        file,
        message: error.to_string(),
    }
}

type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// Algorithm names in order of first appearance: each keeps its colour in every chart.
fn algorithm_names(results: &[RunResult]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for r in results {
        if !names.contains(&r.algorithm) {
            names.push(r.algorithm.clone());
        }
    }
    names
}

fn colour(names: &[String], algorithm: &str) -> RGBColor {
    const COLOURS: [RGBColor; 8] = [
        RGBColor(31, 119, 180),
        RGBColor(255, 127, 14),
        RGBColor(44, 160, 44),
        RGBColor(214, 39, 40),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(227, 119, 194),
        RGBColor(127, 127, 127),
    ];
    let index = names.iter().position(|n| n == algorithm).unwrap_or(0);
    COLOURS[index % COLOURS.len()]
}

/// Dataset names in order of first appearance.
fn dataset_names(results: &[RunResult]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for r in results {
        if !names.contains(&r.dataset) {
            names.push(r.dataset.clone());
        }
    }
    names
}

/// The runs a per-dataset comparison shows: the fewest threads measured, and external
/// programs.
fn base_runs(results: &[RunResult]) -> Vec<&RunResult> {
    let fewest = results.iter().filter_map(|r| r.threads).min();
    results
        .iter()
        .filter(|r| r.threads.is_none() || r.threads == fewest)
        .collect()
}

/// Horizontal bars: one group per dataset, one bar per algorithm, records/s on a log axis.
fn throughput(svg: &mut String, results: &[RunResult], names: &[String]) -> DrawResult {
    let runs = base_runs(results);
    let datasets = dataset_names(results);
    let fewest = results.iter().filter_map(|r| r.threads).min().unwrap_or(1);
    let rates: Vec<f64> = runs.iter().map(|r| median(&r.rates)).collect();
    // Room on the right for the legend.
    let top = rates.iter().copied().fold(1.0, f64::max) * 40.0;
    let bottom = rates
        .iter()
        .copied()
        .filter(|&r| r > 0.0)
        .fold(top, f64::min)
        .min(top / 400.0)
        / 3.0;
    let height = 140 + datasets.len() as u32 * 44;
    let root = SVGBackend::with_string(svg, (900, height)).into_drawing_area();
    root.fill(&WHITE)?;
    // Categories on an integer axis (plotters formats only those with custom key points):
    // dataset i is centred on 100·i.
    let groups = datasets.len() as i32;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!(
                "Throughput, {fewest} thread{} (records/s, log scale)",
                plural(fewest)
            ),
            (FONT, 20),
        )
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(220)
        .build_cartesian_2d(
            (bottom..top).log_scale(),
            (-50..groups * 100 - 50).with_key_points((0..groups).map(|i| i * 100).collect()),
        )?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_label_formatter(&|&y| {
            if y % 100 == 0 && y >= 0 && y / 100 < groups {
                datasets
                    .get((groups - 1 - y / 100) as usize)
                    .cloned()
                    .unwrap_or_default()
            } else {
                String::new()
            }
        })
        .x_desc("records per second")
        .x_label_formatter(&|x| short_number(*x))
        .label_style((FONT, 13))
        .draw()?;
    // The first dataset on top; in each group one bar per algorithm run on it, in legend
    // order from the top.
    let position = |dataset: &str| -> Option<(i32, Vec<&str>)> {
        let index = datasets.iter().position(|d| d == dataset)?;
        let present: Vec<&str> = names
            .iter()
            .map(String::as_str)
            .filter(|name| {
                runs.iter()
                    .any(|r| r.dataset == dataset && r.algorithm == *name)
            })
            .collect();
        Some(((groups - 1 - index as i32) * 100, present))
    };
    for name in names {
        let style = colour(names, name).filled();
        let bars: Vec<Rectangle<(f64, i32)>> = runs
            .iter()
            .filter(|r| &r.algorithm == name)
            .filter_map(|r| {
                let (centre, present) = position(&r.dataset)?;
                let slot = 80 / present.len() as i32;
                let rank = present.iter().position(|a| a == name)? as i32;
                let y0 = centre + 40 - slot * (rank + 1);
                Some(Rectangle::new(
                    [
                        (bottom, y0),
                        (median(&r.rates).max(bottom), y0 + slot * 8 / 10),
                    ],
                    style,
                ))
            })
            .collect();
        chart
            .draw_series(bars)?
            .label(name.as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], style));
    }
    draw_legend(&mut chart, SeriesLabelPosition::LowerRight, 13)?;
    root.present()?;
    Ok(())
}

/// 1500 as `1.5k`, 2000000 as `2M`.
fn short_number(x: f64) -> String {
    let (value, unit) = if x >= 1e6 {
        (x / 1e6, "M")
    } else if x >= 1e3 {
        (x / 1e3, "k")
    } else {
        (x, "")
    };
    let text = format!("{value:.1}");
    format!("{}{unit}", text.trim_end_matches(".0"))
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// One panel per dataset: the share of records done within x µs, one line per algorithm.
fn latency(svg: &mut String, results: &[RunResult], names: &[String]) -> DrawResult {
    let runs: Vec<&RunResult> = base_runs(results)
        .into_iter()
        .filter(|r| r.latency_ns.is_some())
        .collect();
    let datasets = dataset_names(results);
    let root = panels_root(svg, datasets.len())?;
    let panels = root.split_evenly((rows_for(datasets.len()), PANEL_COLUMNS));
    for (dataset, panel) in datasets.iter().zip(&panels) {
        let curves: Vec<(&RunResult, Vec<(f64, f64)>)> = runs
            .iter()
            .filter(|r| &r.dataset == dataset)
            .filter_map(|r| Some((*r, latency_cdf(r.latency_ns.as_ref()?, 200))))
            .filter(|(_, cdf)| !cdf.is_empty())
            .collect();
        let low = curves
            .iter()
            .flat_map(|(_, c)| c.iter().map(|p| p.0))
            .fold(f64::INFINITY, f64::min);
        let high = curves
            .iter()
            .flat_map(|(_, c)| c.iter().map(|p| p.0))
            .fold(0.0, f64::max);
        let (low, high) = if low.is_finite() && high > 0.0 {
            ((low / 1.5).max(0.001), high * 1.5)
        } else {
            (0.1, 10.0)
        };
        let mut chart = ChartBuilder::on(panel)
            .caption(dataset, (FONT, 15))
            .margin(8)
            .x_label_area_size(34)
            .y_label_area_size(40)
            .build_cartesian_2d((low..high).log_scale(), 0.0..1.0)?;
        chart
            .configure_mesh()
            .x_desc("µs per record")
            .x_label_formatter(&|x| short_number(*x))
            .y_desc("share of records")
            .x_labels(5)
            .y_labels(5)
            .label_style((FONT, 11))
            .draw()?;
        for (run, cdf) in curves {
            let style = colour(names, &run.algorithm).stroke_width(2);
            chart
                .draw_series(LineSeries::new(cdf, style))?
                .label(run.algorithm.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], style));
        }
        draw_legend(&mut chart, SeriesLabelPosition::LowerRight, 11)?;
    }
    root.present()?;
    Ok(())
}

/// One panel per dataset: speed-up over one thread against threads, one line per algorithm,
/// and the ideal (dashed grey).
fn scaling(svg: &mut String, results: &[RunResult], names: &[String]) -> DrawResult {
    let datasets = dataset_names(results);
    let most = results.iter().filter_map(|r| r.threads).max().unwrap_or(1);
    let root = panels_root(svg, datasets.len())?;
    let panels = root.split_evenly((rows_for(datasets.len()), PANEL_COLUMNS));
    let best = results
        .iter()
        .filter_map(|r| {
            let base = results.iter().find(|o| {
                o.dataset == r.dataset && o.algorithm == r.algorithm && o.threads == Some(1)
            })?;
            Some(median(&r.rates) / median(&base.rates).max(f64::MIN_POSITIVE))
        })
        .fold(0.0, f64::max);
    let top = (most as f64).max(best) + 0.5;
    for (dataset, panel) in datasets.iter().zip(&panels) {
        let mut chart = ChartBuilder::on(panel)
            .caption(dataset, (FONT, 15))
            .margin(8)
            .x_label_area_size(34)
            .y_label_area_size(40)
            .build_cartesian_2d(
                (0..most as i32 + 1).with_key_points((1..=most as i32).collect()),
                0.0..top,
            )?;
        chart
            .configure_mesh()
            .x_desc("threads")
            .y_desc("speed-up over 1 thread")
            .label_style((FONT, 11))
            .draw()?;
        let ideal = RGBColor(150, 150, 150).stroke_width(1);
        chart.draw_series(DashedLineSeries::new(
            [(1, 1.0), (most as i32, most as f64)],
            4,
            4,
            ideal,
        ))?;
        for name in names {
            let mut points: Vec<(i32, f64)> = Vec::new();
            let base = results
                .iter()
                .find(|r| &r.dataset == dataset && &r.algorithm == name && r.threads == Some(1))
                .map(|r| median(&r.rates))
                .filter(|&b| b > 0.0);
            let Some(base) = base else { continue };
            for r in results
                .iter()
                .filter(|r| &r.dataset == dataset && &r.algorithm == name)
            {
                if let Some(t) = r.threads {
                    points.push((t as i32, median(&r.rates) / base));
                }
            }
            points.sort_by_key(|p| p.0);
            let style = colour(names, name).stroke_width(2);
            chart
                .draw_series(LineSeries::new(points.clone(), style))?
                .label(name.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], style));
            chart.draw_series(
                points
                    .into_iter()
                    .map(|p| Circle::new(p, 3, colour(names, name).filled())),
            )?;
        }
        draw_legend(&mut chart, SeriesLabelPosition::UpperLeft, 11)?;
    }
    root.present()?;
    Ok(())
}

/// The legend of a chart's series, in the same style on every chart.
fn draw_legend<'a, DB, CT>(
    chart: &mut ChartContext<'a, DB, CT>,
    position: SeriesLabelPosition,
    font_size: u32,
) -> DrawResult
where
    DB: DrawingBackend + 'a,
    DB::ErrorType: 'static,
    CT: CoordTranslate,
{
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font((FONT, font_size))
        .draw()?;
    Ok(())
}

fn rows_for(panels: usize) -> usize {
    panels.div_ceil(PANEL_COLUMNS).max(1)
}

fn panels_root(
    svg: &mut String,
    panels: usize,
) -> Result<DrawingArea<SVGBackend<'_>, plotters::coord::Shift>, Box<dyn std::error::Error>> {
    let size = (
        PANEL.0 * PANEL_COLUMNS as u32,
        PANEL.1 * rows_for(panels) as u32,
    );
    let root = SVGBackend::with_string(svg, size).into_drawing_area();
    root.fill(&WHITE)?;
    Ok(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_comparison_chart_of_huge_or_tiny_ratios_is_drawn() {
        for ratio in [1e150, 1e200, 1e308, 1e-308, 0.0, f64::INFINITY, f64::NAN] {
            let bar = RatioBar {
                label: "s50.txt · fast · 1".into(),
                low: ratio,
                ratio,
                high: ratio,
                verdict: 1,
            };
            let svg = comparison_chart(&[bar], 0.05).unwrap();
            assert!(svg.contains("s50.txt · fast · 1"), "{ratio}");
            assert!(!svg.contains("NaN") && !svg.contains("inf"), "{ratio}");
        }
    }
}
