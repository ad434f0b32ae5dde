//! A book build's progress: a bar on a terminal, and its messages (resuming, warnings)
//! written above the bar or, without one, as lines to a log.

use std::io::Write;
use std::sync::Mutex;

use super::BuildEvent;

/// Shows the events of a [`super::BookBuilder::build`].
pub struct BuildProgress {
    bar: Option<indicatif::ProgressBar>,
    messages: Mutex<Box<dyn Write + Send>>,
}

impl BuildProgress {
    /// Progress of a build of positions up to `depth` stones: a bar drawn on standard
    /// error when `bar`, messages written to `messages` (above the bar while it runs).
    pub fn new(depth: u32, bar: bool, messages: Box<dyn Write + Send>) -> Self {
        let bar = bar.then(|| {
            let template = format!(
                "[{{elapsed_precise}}] {{wide_bar}} {{pos}}/{{len}} positions of depth {depth} solved, ETA {{eta}}"
            );
            let bar = indicatif::ProgressBar::new(0);
            if let Ok(style) = indicatif::ProgressStyle::with_template(&template) {
                bar.set_style(style);
            }
            bar
        });
        BuildProgress {
            bar,
            messages: Mutex::new(messages),
        }
    }

    /// Shows one event.
    pub fn event(&self, event: BuildEvent<'_>) {
        match event {
            BuildEvent::Resuming { checkpoint, known } => self.say(&format!(
                "resuming from {}: {known} positions already solved",
                checkpoint.display()
            )),
            BuildEvent::Solved { to_solve } => {
                if let Some(bar) = &self.bar {
                    bar.set_length(to_solve as u64);
                    bar.inc(1);
                }
            }
            BuildEvent::Warning(warning) => self.say(&warning),
        }
    }

    /// A message line, best effort: a log that cannot take it stops no build.
    fn say(&self, message: &str) {
        match &self.bar {
            Some(bar) if !bar.is_finished() => bar.println(message),
            _ => {
                if let Ok(mut out) = self.messages.lock() {
                    let _ = writeln!(out, "{message}");
                }
            }
        }
    }

    /// The build is over: the bar is cleared.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
