//! What a run counted and timed.

use std::time::{Duration, SystemTime};

use hdrhistogram::Histogram;

/// Counts and timings of one run.
#[derive(Debug, Clone)]
pub struct RunStats {
    /// Records processed (rows written).
    pub records: u64,
    /// Records that counted as failures.
    pub failed: u64,
    /// Records per status, in the job's order, then `error`; zero counts included.
    pub statuses: Vec<(String, u64)>,
    /// For each tallied column, the count of each value seen, in order of first appearance.
    pub tallies: Vec<(String, Vec<(String, u64)>)>,
    /// When the run started (the clock time), so that the runs of shards merge into
    /// one job's wall time.
    pub started: SystemTime,
    /// Wall-clock time of the whole run.
    pub wall: Duration,
    /// CPU time (user + system) of the process during the run.
    pub cpu: Duration,
    /// Worker threads used.
    pub threads: usize,
    /// Per-record processing times in nanoseconds.
    pub latency_ns: Histogram<u64>,
    /// Whether the run was stopped (by [`RunOptions::stop`]) before reading every record:
    /// `records` rows were written, the first ones in input order.
    ///
    /// [`RunOptions::stop`]: super::RunOptions::stop
    pub interrupted: bool,
    /// Rows that were already in the results file of a resumed run (`--resume`): their
    /// records were not processed again, and are not counted in these figures.
    pub resumed_rows: u64,
    /// Rows that were already in the results file of a resumed run and are counted in
    /// these figures, as the rows give them (see [`RunStats::add_found_rows`]).
    pub rows_from_file: u64,
    /// The shard of the records processed, if not all of them.
    pub shard: Option<super::Shard>,
    /// The slowest records, slowest first: at most [`SLOWEST_KEPT`].
    pub slowest: Vec<SlowRecord>,
}

/// Slowest records a run keeps (memory stays bounded whatever the input's size).
pub const SLOWEST_KEPT: usize = 20;

/// One of a run's slowest records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct SlowRecord {
    /// Index of its input among the run's inputs.
    pub file: usize,
    /// Its 1-based line number in that input.
    pub line: u64,
    /// Its status.
    pub status: &'static str,
    /// Time spent on it, in nanoseconds.
    pub nanos: u64,
}

/// Keeps `record` among `slowest` (slowest first) if it is one of the `SLOWEST_KEPT`
/// slowest so far.
pub fn keep_if_slow(slowest: &mut Vec<SlowRecord>, record: SlowRecord) {
    if slowest.len() == SLOWEST_KEPT && slowest.last().is_some_and(|s| s.nanos >= record.nanos) {
        return;
    }
    let at = slowest.partition_point(|s| s.nanos >= record.nanos);
    slowest.insert(at, record);
    slowest.truncate(SLOWEST_KEPT);
}

/// Per-record latency in microseconds.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LatencySummary {
    /// Mean.
    pub mean: f64,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Maximum.
    pub max: f64,
}

impl RunStats {
    /// Empty counts of a run of a job with these `statuses` and `tallied` columns.
    pub fn new(statuses: &[&str], tallied: &[&str], threads: usize) -> Self {
        RunStats {
            records: 0,
            failed: 0,
            statuses: statuses.iter().map(|s| (s.to_string(), 0)).collect(),
            tallies: tallied
                .iter()
                .map(|c| (c.to_string(), Vec::new()))
                .collect(),
            started: SystemTime::now(),
            wall: Duration::ZERO,
            cpu: Duration::ZERO,
            threads,
            latency_ns: latency_histogram(),
            interrupted: false,
            resumed_rows: 0,
            rows_from_file: 0,
            shard: None,
            slowest: Vec::new(),
        }
    }

    /// Adds `n` records of `status` (listing the status even when `n` is 0).
    pub fn count_status(&mut self, status: &str, n: u64) {
        match self.statuses.iter_mut().find(|(name, _)| name == status) {
            Some((_, count)) => *count += n,
            None => self.statuses.push((status.to_string(), n)),
        }
    }

    /// Adds `n` records whose tallied column `column` holds `value`.
    pub fn count_tally(&mut self, column: usize, value: &str, n: u64) {
        let values = &mut self.tallies[column].1;
        match values.iter_mut().find(|(name, _)| name == value) {
            Some((_, count)) => *count += n,
            None => values.push((value.to_string(), n)),
        }
    }

    /// Adds `found`, the counts of the rows a resumed run found in its results file (as
    /// read back from it), so that these figures count every record of the file, as one
    /// run would have. The wall and CPU time stay this run's: the earlier run's are lost.
    pub fn add_found_rows(&mut self, found: RunStats) {
        self.records += found.records;
        self.failed += found.failed;
        for (status, count) in &found.statuses {
            self.count_status(status, *count);
        }
        for (column, (_, values)) in found.tallies.iter().enumerate() {
            for (value, count) in values {
                self.count_tally(column, value, *count);
            }
        }
        // Both histograms are `latency_histogram()`s, of the same bounds: this cannot fail.
        let _ = self.latency_ns.add(&found.latency_ns);
        for record in found.slowest {
            keep_if_slow(&mut self.slowest, record);
        }
        self.rows_from_file += found.records;
        self.resumed_rows = self.resumed_rows.saturating_sub(found.records);
    }

    /// Records per wall-clock second, of the records this run processed (not the rows it
    /// found in its results file, whose time is lost).
    pub fn records_per_second(&self) -> f64 {
        per_second(self.records.saturating_sub(self.rows_from_file), self.wall)
    }

    /// Records per CPU second, of the records this run processed.
    pub fn records_per_cpu_second(&self) -> f64 {
        per_second(self.records.saturating_sub(self.rows_from_file), self.cpu)
    }

    /// Count for one status (0 if never seen).
    pub fn status_count(&self, status: &str) -> u64 {
        self.statuses
            .iter()
            .find(|(name, _)| name == status)
            .map_or(0, |(_, count)| *count)
    }

    /// Per-record latency in microseconds.
    pub fn latency(&self) -> LatencySummary {
        let h = &self.latency_ns;
        if h.is_empty() {
            return LatencySummary {
                mean: 0.0,
                p50: 0.0,
                p90: 0.0,
                p99: 0.0,
                max: 0.0,
            };
        }
        let micros = |nanos: u64| nanos as f64 / 1000.0;
        LatencySummary {
            mean: h.mean() / 1000.0,
            p50: micros(h.value_at_quantile(0.50)),
            p90: micros(h.value_at_quantile(0.90)),
            p99: micros(h.value_at_quantile(0.99)),
            max: micros(h.max()),
        }
    }
}

/// Per-record times counted in the buckets of [`latency_histogram`], then added to such a
/// histogram at once. Recording each time in the histogram took about 50 instructions,
/// 8% of the calling thread's work on easy Sudoku records; a bucket here is a few.
///
/// The buckets are the histogram's own (three significant digits from 1 ns: 2,048 exact
/// values, then 1,024 per power of two), so the histogram ends up with the same counts as
/// if each time had been recorded in it.
#[derive(Debug, Default)]
pub(crate) struct LatencyCounts {
    counts: Vec<u64>,
}

/// Times below this are a bucket each.
const EXACT_BELOW: u64 = 2048;
/// Buckets per power of two above [`EXACT_BELOW`].
const PER_OCTAVE: u64 = 1024;

impl LatencyCounts {
    /// Counts one record of `nanos` (0 counts as 1, as the histogram's lowest value).
    #[inline]
    pub(crate) fn record(&mut self, nanos: u64) {
        let index = bucket_of(nanos.max(1));
        if index >= self.counts.len() {
            self.counts.resize(index + 1, 0);
        }
        self.counts[index] += 1;
    }

    /// Adds the counted times to `histogram` and forgets them.
    pub(crate) fn drain_into(&mut self, histogram: &mut Histogram<u64>) {
        for (index, &count) in self.counts.iter().enumerate() {
            if count > 0 {
                histogram.saturating_record_n(bucket_start(index), count);
            }
        }
        self.counts.clear();
    }
}

/// The bucket of a time of at least 1 ns.
#[inline(always)]
fn bucket_of(nanos: u64) -> usize {
    if nanos < EXACT_BELOW {
        return nanos as usize;
    }
    // Keep the 11 highest bits: `shift` is at least 1 here.
    let shift = 53 - nanos.leading_zeros();
    let top = nanos >> shift;
    (EXACT_BELOW + u64::from(shift - 1) * PER_OCTAVE + (top - PER_OCTAVE)) as usize
}

/// The lowest time of bucket `index`.
fn bucket_start(index: usize) -> u64 {
    let index = index as u64;
    if index < EXACT_BELOW {
        return index;
    }
    let above = index - EXACT_BELOW;
    (PER_OCTAVE + above % PER_OCTAVE) << (above / PER_OCTAVE + 1)
}

/// An empty histogram of per-record nanoseconds: three significant digits from 1 ns to an
/// hour; longer records saturate.
pub fn latency_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 3_600_000_000_000, 3)
        .expect("these bounds and precision are valid")
}

fn per_second(records: u64, time: Duration) -> f64 {
    let seconds = time.as_secs_f64();
    if seconds > 0.0 {
        records as f64 / seconds
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counted_times_give_the_histogram_of_each_time_recorded() {
        let mut state = 12345u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut times: Vec<u64> = (0..5000).collect();
        times.extend((0..100_000).map(|_| next() >> (next() % 64)));
        times.extend([
            u64::MAX,
            3_600_000_000_000,
            3_600_000_000_001,
            2047,
            2048,
            4095,
            4096,
        ]);
        let (mut one_by_one, mut at_once) = (latency_histogram(), latency_histogram());
        let mut counts = LatencyCounts::default();
        for &nanos in &times {
            one_by_one.saturating_record(nanos.max(1));
            counts.record(nanos);
        }
        counts.drain_into(&mut at_once);
        assert_eq!(at_once.len(), times.len() as u64);
        let buckets = |h: &Histogram<u64>| {
            h.iter_recorded()
                .map(|v| (v.value_iterated_to(), v.count_at_value()))
                .collect::<Vec<_>>()
        };
        assert_eq!(buckets(&at_once), buckets(&one_by_one));
        assert_eq!(
            (at_once.min(), at_once.max()),
            (one_by_one.min(), one_by_one.max())
        );
        assert_eq!(at_once.mean(), one_by_one.mean());
        for index in [0, 1, 2047, 2048, 3071, 3072, 56_319] {
            assert_eq!(bucket_of(bucket_start(index)), index, "bucket {index}");
        }
    }

    #[test]
    fn latency_percentiles_from_known_samples() {
        let mut stats = RunStats::new(&["ok"], &[], 1);
        // 1..=100 microseconds.
        for micros in 1..=100u64 {
            stats.latency_ns.saturating_record(micros * 1000);
        }
        let latency = stats.latency();
        assert!((latency.mean - 50.5).abs() < 0.1, "{latency:?}");
        assert!((latency.p50 - 50.0).abs() < 0.1, "{latency:?}");
        assert!((latency.p90 - 90.0).abs() < 0.1, "{latency:?}");
        assert!((latency.p99 - 99.0).abs() < 0.1, "{latency:?}");
        assert!((latency.max - 100.0).abs() < 0.1, "{latency:?}");
    }

    #[test]
    fn only_the_slowest_records_are_kept_slowest_first() {
        let mut slowest = Vec::new();
        for line in 1..=100u64 {
            let nanos = (line * 37) % 101;
            keep_if_slow(
                &mut slowest,
                SlowRecord {
                    file: 0,
                    line,
                    status: "ok",
                    nanos,
                },
            );
        }
        assert_eq!(slowest.len(), SLOWEST_KEPT);
        let kept: Vec<u64> = slowest.iter().map(|s| s.nanos).collect();
        let expected: Vec<u64> = (81..=100).rev().collect();
        assert_eq!(kept, expected);
        assert!(slowest.iter().all(|s| (s.line * 37) % 101 == s.nanos));
    }

    #[test]
    fn statuses_keep_declared_order_and_add_new_ones() {
        let mut stats = RunStats::new(&["solved", "multiple"], &["expected"], 1);
        stats.count_status("multiple", 1);
        stats.count_status("error", 1);
        stats.count_tally(0, "match", 1);
        stats.count_tally(0, "match", 1);
        assert_eq!(
            stats.statuses,
            vec![
                ("solved".to_string(), 0),
                ("multiple".to_string(), 1),
                ("error".to_string(), 1)
            ]
        );
        assert_eq!(stats.tallies[0].1, vec![("match".to_string(), 2)]);
        assert_eq!(stats.status_count("solved"), 0);
    }
}
