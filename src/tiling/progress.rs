//! Progress of a long count: a bar on a terminal, or a plain line every second written to a
//! log, both fed by the count's per-part callback.

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant};

use super::{Counted, Tiling, TilingError};

/// How often a progress line is written.
pub const LINE_INTERVAL: Duration = Duration::from_secs(1);

/// Where a count's progress goes.
pub struct CountProgress {
    bar: Option<indicatif::ProgressBar>,
    lines: Option<Mutex<Box<dyn Write + Send>>>,
    start: Instant,
    done: AtomicUsize,
    total: AtomicUsize,
    solutions: AtomicU64,
}

impl CountProgress {
    /// Progress as a bar drawn on standard error (when `bar`), and as plain lines written
    /// to `lines` every [`LINE_INTERVAL`] and once at the end (when given).
    pub fn new(bar: bool, lines: Option<Box<dyn Write + Send>>) -> Self {
        let bar = bar.then(|| {
            let template =
                "[{elapsed_precise}] {wide_bar} {pos}/{len} parts, {per_sec}, ETA {eta}, {msg}";
            let bar = indicatif::ProgressBar::new(0);
            if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
                bar.set_style(style);
            }
            bar
        });
        CountProgress {
            bar,
            lines: lines.map(Mutex::new),
            start: Instant::now(),
            done: AtomicUsize::new(0),
            total: AtomicUsize::new(0),
            solutions: AtomicU64::new(0),
        }
    }

    /// A part of the search finished: `done` of `total`, `solutions` searched so far.
    pub fn part(&self, done: usize, total: usize, solutions: u64) {
        self.done.fetch_max(done, Ordering::Relaxed);
        self.total.store(total, Ordering::Relaxed);
        self.solutions.fetch_max(solutions, Ordering::Relaxed);
        if let Some(bar) = &self.bar {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
            bar.set_message(format!("{solutions} solutions"));
        }
    }

    /// The progress line: parts done of all, solutions, rate and time left.
    pub fn line(&self) -> String {
        let done = self.done.load(Ordering::Relaxed);
        let total = self.total.load(Ordering::Relaxed);
        let solutions = self.solutions.load(Ordering::Relaxed);
        let elapsed = self.start.elapsed();
        let rate = done as f64 / elapsed.as_secs_f64().max(1e-9);
        let left = match (total, done) {
            (0, _) => "?".to_string(),
            _ if done == total => "0s".to_string(),
            (_, 0) => "?".to_string(),
            _ => {
                let seconds = ((total - done) as f64 / rate).ceil() as u64;
                humantime::format_duration(Duration::from_secs(seconds)).to_string()
            }
        };
        let total = if total == 0 {
            "?".to_string()
        } else {
            total.to_string()
        };
        format!(
            "puzzlebench: {done}/{total} parts searched, {solutions} solutions, {rate:.1} parts/s, \
             {:.1}s elapsed, ETA {left}\n",
            elapsed.as_secs_f64(),
        )
    }

    /// Writes the progress line, best effort: a log that cannot take it stops no count.
    fn write_line(&self) {
        if let Some(lines) = &self.lines {
            if let Ok(mut out) = lines.lock() {
                let _ = out.write_all(self.line().as_bytes());
            }
        }
    }

    /// The count is over: the bar is cleared, and the last line written.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        self.write_line();
    }
}

impl CountProgress {
    /// Runs `count` with the callback that reports its parts here, writing a line every
    /// [`LINE_INTERVAL`] while it runs (when lines are asked for) and finishing at the end.
    fn around<T>(&self, count: impl FnOnce(&(dyn Fn(usize, usize, u64) + Sync)) -> T) -> T {
        // Dropping `finished` when the count returns ends the progress lines.
        let (finished, ticker) = mpsc::channel::<()>();
        let result = std::thread::scope(|scope| {
            if self.lines.is_some() {
                scope.spawn(move || {
                    while ticker.recv_timeout(LINE_INTERVAL) == Err(mpsc::RecvTimeoutError::Timeout)
                    {
                        self.write_line();
                    }
                });
            }
            let result = count(&|done, total, n| self.part(done, total, n));
            drop(finished);
            result
        });
        self.finish();
        result
    }
}

impl Tiling {
    /// [`count_parallel_within`](Self::count_parallel_within) (stopped after `timeout`, or
    /// once `interrupt` is set), its progress reported to `progress` (a line every
    /// [`LINE_INTERVAL`] while it runs, and at the end).
    pub fn count_with_progress(
        &self,
        pool: &rayon::ThreadPool,
        timeout: Option<Duration>,
        interrupt: &AtomicBool,
        progress: &CountProgress,
    ) -> Counted {
        progress.around(|on_part| self.count_parallel_within(pool, timeout, interrupt, on_part))
    }

    /// [`prepare_and_count_within`](Self::prepare_and_count_within) (the timeout and
    /// `interrupt` covering the building of the problem by `prepare` too), its progress
    /// reported to `progress` as by [`count_with_progress`](Self::count_with_progress).
    pub fn prepare_and_count_with_progress<F>(
        prepare: F,
        pool: &rayon::ThreadPool,
        timeout: Option<Duration>,
        interrupt: &AtomicBool,
        progress: &CountProgress,
    ) -> Result<Counted, TilingError>
    where
        F: FnOnce(&AtomicBool) -> Result<Tiling, TilingError>,
    {
        progress.around(|on_part| {
            Self::prepare_and_count_within(prepare, pool, timeout, interrupt, on_part)
        })
    }
}
