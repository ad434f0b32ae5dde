//! Progress reporting: the runner calls a [`Progress`]; the command line chooses whether it
//! draws a bar on the terminal or does nothing.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Receives progress from the runner.
pub trait Progress: Sync {
    /// The run starts; `total_bytes` is the inputs' size when every input is a file.
    fn start(&self, total_bytes: Option<u64>);
    /// `records` have been written so far and `bytes` of input read.
    fn update(&self, records: u64, bytes: u64);
    /// The run is over.
    fn finish(&self);
}

/// Reports nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&self, _total_bytes: Option<u64>) {}
    fn update(&self, _records: u64, _bytes: u64) {}
    fn finish(&self) {}
}

/// A progress bar on standard error: bytes read against the inputs' size (with an ETA)
/// when that size is known, else a spinner; records and records/s beside it.
#[derive(Debug)]
pub struct TerminalProgress {
    bar: ProgressBar,
}

impl TerminalProgress {
    /// A bar drawn on standard error, whether or not it is a terminal.
    pub fn new() -> Self {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr_with_hz(10));
        TerminalProgress { bar }
    }
}

impl Default for TerminalProgress {
    fn default() -> Self {
        Self::new()
    }
}

impl Progress for TerminalProgress {
    fn start(&self, total_bytes: Option<u64>) {
        let style = match total_bytes {
            Some(total) => {
                self.bar.set_length(total);
                ProgressStyle::with_template(
                    "{spinner} [{elapsed_precise}] {wide_bar} {bytes}/{total_bytes} {msg} ETA {eta}",
                )
            }
            None => {
                ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bytes} read {msg}")
            }
        };
        if let Ok(style) = style {
            self.bar.set_style(style);
        }
        self.bar.enable_steady_tick(Duration::from_millis(200));
    }

    fn update(&self, records: u64, bytes: u64) {
        self.bar.set_position(bytes);
        let seconds = self.bar.elapsed().as_secs_f64();
        let rate = if seconds > 0.0 {
            records as f64 / seconds
        } else {
            0.0
        };
        self.bar.set_message(format!(
            "{}, {rate:.0}/s",
            super::counted(records as usize, "record")
        ));
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
