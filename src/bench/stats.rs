//! The statistics of a benchmark table: medians of repeated runs, per-record latency
//! percentiles, speed-ups over one thread and speed relative to the fastest algorithm.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use super::format::median;
use super::run::RunResult;
use super::spread::{median_interval, outliers};

/// One row of the summary table: one algorithm on one dataset with one thread count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SummaryRow {
    /// Puzzle kind.
    pub kind: String,
    /// Dataset name.
    pub dataset: String,
    /// Algorithm, or external program.
    pub algorithm: String,
    /// Worker threads (empty for an external program, timed as a whole process).
    pub threads: Option<usize>,
    /// Records per run.
    pub records: u64,
    /// Timed runs.
    pub repeats: usize,
    /// Records per wall-clock second: the median of the timed runs…
    pub records_per_s: f64,
    /// …their slowest…
    pub records_per_s_min: f64,
    /// …and fastest…
    pub records_per_s_max: f64,
    /// …and a 95% confidence interval for the median, from the runs' order statistics
    /// (empty below 6 timed runs: then min and max are the spread).
    pub records_per_s_ci_low: Option<f64>,
    /// Its upper end.
    pub records_per_s_ci_high: Option<f64>,
    /// Timed runs beyond Tukey's fences (1.5 interquartile ranges outside the quartiles).
    pub outlier_runs: usize,
    /// Mean µs per record (for an external program: its wall time per record).
    pub us_mean: f64,
    /// Median µs per record.
    pub us_p50: Option<f64>,
    /// 90th percentile.
    pub us_p90: Option<f64>,
    /// 99th percentile.
    pub us_p99: Option<f64>,
    /// Slowest record.
    pub us_max: Option<f64>,
    /// What effort is counted (e.g. `guesses`).
    pub effort: Option<String>,
    /// Mean effort per record.
    pub effort_per_record: Option<f64>,
    /// Share of records with no effort (solved without guessing).
    pub no_guess_share: Option<f64>,
    /// Median rate over the same algorithm's one-thread median rate on the dataset.
    pub speedup_vs_1_thread: Option<f64>,
    /// Median rate over the fastest median rate on the dataset at the same thread count
    /// (external programs count as one thread); 1 for the fastest.
    pub relative_to_fastest: f64,
    /// Records whose answer differs from the dataset's first run (must be 0).
    pub disagreements: u64,
    /// Records per status, as `status=count` joined by `;`.
    pub statuses: String,
    /// Why the run failed, or empty.
    pub failure: String,
}

impl SummaryRow {
    /// The rate's spread as the tables show it: the 95% interval of the median, else
    /// `min–max` (fewer than 6 runs), with `*` when runs are outliers.
    pub fn spread_text(&self) -> String {
        use super::format::thousands;
        let (low, high) = match (self.records_per_s_ci_low, self.records_per_s_ci_high) {
            (Some(low), Some(high)) => (low, high),
            _ => (self.records_per_s_min, self.records_per_s_max),
        };
        let flag = if self.outlier_runs > 0 { "*" } else { "" };
        format!("{}–{}{flag}", thousands(low), thousands(high))
    }

    /// `dataset · algorithm · N threads`: the measurement's name.
    pub fn name(&self) -> String {
        format!(
            "{} · {} · {}",
            self.dataset,
            self.algorithm,
            match self.threads {
                Some(1) => "1 thread".to_string(),
                Some(n) => format!("{n} threads"),
                None => "process".to_string(),
            }
        )
    }
}

/// The summary table of `results`, in the same order.
pub fn summary_rows(results: &[RunResult]) -> Vec<SummaryRow> {
    let rate = |r: &RunResult| median(&r.rates);
    results
        .iter()
        .map(|r| {
            let own = rate(r);
            let interval = median_interval(&r.rates);
            let one_thread = r.threads.and_then(|_| {
                results
                    .iter()
                    .find(|o| {
                        o.dataset == r.dataset && o.algorithm == r.algorithm && o.threads == Some(1)
                    })
                    .map(rate)
            });
            let peers = r.threads.unwrap_or(1);
            let fastest = results
                .iter()
                .filter(|o| o.dataset == r.dataset && o.threads.unwrap_or(1) == peers)
                .map(rate)
                .fold(0.0, f64::max);
            let latency = r.latency_ns.as_ref().filter(|h| !h.is_empty());
            let micros = |q: f64| latency.map(|h| round(h.value_at_quantile(q) as f64 / 1e3));
            SummaryRow {
                kind: r.kind.to_string(),
                dataset: r.dataset.clone(),
                algorithm: r.algorithm.clone(),
                threads: r.threads,
                records: r.records,
                repeats: r.rates.len(),
                records_per_s: round(own),
                records_per_s_min: round(r.rates.iter().copied().reduce(f64::min).unwrap_or(0.0)),
                records_per_s_max: round(r.rates.iter().copied().fold(0.0, f64::max)),
                records_per_s_ci_low: interval.map(|i| round(i.0)),
                records_per_s_ci_high: interval.map(|i| round(i.1)),
                outlier_runs: outliers(&r.rates),
                us_mean: round(match latency {
                    Some(h) => h.mean() / 1e3,
                    None if own > 0.0 => 1e6 / own,
                    None => 0.0,
                }),
                us_p50: micros(0.5),
                us_p90: micros(0.9),
                us_p99: micros(0.99),
                us_max: latency.map(|h| round(h.max() as f64 / 1e3)),
                effort: r.effort.map(|e| e.column.to_string()),
                effort_per_record: r.effort.map(|e| round(e.mean)),
                no_guess_share: r.effort.map(|e| round(e.zero_share)),
                speedup_vs_1_thread: one_thread
                    .filter(|&base| base > 0.0)
                    .map(|base| round(own / base)),
                relative_to_fastest: if fastest > 0.0 {
                    round(own / fastest)
                } else {
                    0.0
                },
                disagreements: r.disagreements,
                statuses: r
                    .statuses
                    .iter()
                    .filter(|(_, n)| *n > 0)
                    .map(|(s, n)| format!("{s}={n}"))
                    .collect::<Vec<_>>()
                    .join(";"),
                failure: r.failure.clone().unwrap_or_default(),
            }
        })
        .collect()
}

/// The latency distribution of a histogram of nanoseconds as (µs, share of records at or
/// below) points, at most about `points` of them, for a CDF chart.
pub fn latency_cdf(histogram: &Histogram<u64>, points: usize) -> Vec<(f64, f64)> {
    let total = histogram.len();
    if total == 0 {
        return Vec::new();
    }
    let mut cdf = Vec::new();
    let mut below = 0u64;
    let values: Vec<(u64, u64)> = histogram
        .iter_recorded()
        .map(|v| (v.value_iterated_to(), v.count_at_value()))
        .collect();
    let step = (values.len() / points.max(1)).max(1);
    for (i, (value, count)) in values.iter().enumerate() {
        below += count;
        if i % step == 0 || i + 1 == values.len() {
            cdf.push((*value as f64 / 1e3, below as f64 / total as f64));
        }
    }
    cdf
}

/// Rounded to 3 significant decimals after the point, so tables stay readable.
fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::measure::Effort;

    fn histogram_of_micros(micros: &[u64]) -> Histogram<u64> {
        let mut h = Histogram::new_with_bounds(1, 3_600_000_000_000, 3).unwrap();
        for &m in micros {
            h.record(m * 1000).unwrap();
        }
        h
    }

    fn result(algorithm: &str, threads: Option<usize>, rates: &[f64]) -> RunResult {
        RunResult {
            kind: "sudoku".into(),
            dataset: "set.txt".into(),
            algorithm: algorithm.into(),
            threads,
            records: 100,
            rates: rates.to_vec(),
            latency_ns: threads.map(|_| histogram_of_micros(&(1..=100).collect::<Vec<_>>())),
            statuses: vec![
                ("solved".into(), 99),
                ("multiple".into(), 1),
                ("error".into(), 0),
            ],
            effort: Some(Effort {
                column: "guesses",
                mean: 2.5,
                zero_share: 0.25,
            }),
            disagreements: 0,
            listed: Vec::new(),
            failure: None,
        }
    }

    #[test]
    fn medians_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&[7.0]), 7.0);
        assert_eq!(median(&[]), 0.0);
    }

    #[test]
    fn rows_from_hand_made_samples() {
        let results = vec![
            result("dlx", Some(1), &[100.0, 300.0, 200.0]),
            result("dlx", Some(2), &[390.0, 370.0, 380.0, 400.0]),
            result("backtrack", Some(1), &[50.0]),
            result("backtrack", Some(2), &[90.0, 110.0]),
            result("other", None, &[400.0, 500.0]),
        ];
        let rows = summary_rows(&results);
        let dlx1 = &rows[0];
        assert_eq!(dlx1.records_per_s, 200.0);
        assert_eq!(
            (dlx1.records_per_s_min, dlx1.records_per_s_max),
            (100.0, 300.0)
        );
        assert_eq!(dlx1.repeats, 3);
        assert_eq!(dlx1.speedup_vs_1_thread, Some(1.0));
        // The external program (450/s) is the fastest at one thread.
        assert_eq!(dlx1.relative_to_fastest, 0.444);
        // The latency histogram keeps three significant digits.
        let close = |got: Option<f64>, want: f64| {
            assert!(
                got.is_some_and(|g| (g - want).abs() <= want * 1e-3),
                "{got:?} vs {want}"
            )
        };
        close(Some(dlx1.us_mean), 50.5);
        close(dlx1.us_p50, 50.0);
        close(dlx1.us_p90, 90.0);
        close(dlx1.us_p99, 99.0);
        close(dlx1.us_max, 100.0);
        assert_eq!(dlx1.effort_per_record, Some(2.5));
        assert_eq!(dlx1.no_guess_share, Some(0.25));
        assert_eq!(dlx1.statuses, "solved=99;multiple=1");

        let dlx2 = &rows[1];
        assert_eq!(dlx2.records_per_s, 385.0);
        assert_eq!(dlx2.speedup_vs_1_thread, Some(1.925));
        assert_eq!(dlx2.relative_to_fastest, 1.0);

        let backtrack2 = &rows[3];
        assert_eq!(backtrack2.records_per_s, 100.0);
        assert_eq!(backtrack2.speedup_vs_1_thread, Some(2.0));
        assert_eq!(backtrack2.relative_to_fastest, 0.26);

        let external = &rows[4];
        assert_eq!(external.threads, None);
        assert_eq!(external.records_per_s, 450.0);
        assert_eq!(external.us_mean, 2222.222);
        assert_eq!(external.us_p50, None);
        assert_eq!(external.speedup_vs_1_thread, None);
        assert_eq!(external.relative_to_fastest, 1.0);
    }

    #[test]
    fn the_cdf_rises_to_one() {
        let h = histogram_of_micros(&[10, 10, 20, 40]);
        let cdf = latency_cdf(&h, 100);
        assert_eq!(cdf.len(), 3);
        assert!((cdf[0].0 - 10.0).abs() < 0.01 && (cdf[0].1 - 0.5).abs() < 1e-9);
        assert!((cdf[2].0 - 40.0).abs() < 0.05 && (cdf[2].1 - 1.0).abs() < 1e-9);
    }
}
