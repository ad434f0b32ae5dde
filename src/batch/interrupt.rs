//! SIGINT and SIGTERM during a run: the first stops the reading (the records read are
//! finished, written and summarised), a second one exits at once.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// The signal handlers of a run, and the flag they set for [`super::RunOptions::stop`].
#[derive(Debug)]
pub struct Interruption {
    /// Set by the first signal.
    seen: Arc<AtomicBool>,
    /// The exit code of the signal seen: 130 for SIGINT, 143 for SIGTERM.
    code: Arc<AtomicUsize>,
}

impl Interruption {
    /// Installs the handlers for the rest of the process.
    pub fn install() -> std::io::Result<Interruption> {
        use signal_hook::consts::{SIGINT, SIGTERM};
        use signal_hook::flag;
        let seen = Arc::new(AtomicBool::new(false));
        let code = Arc::new(AtomicUsize::new(0));
        for (signal, exit) in [(SIGINT, 130), (SIGTERM, 143)] {
            // Registered first, so it sees the flag as the earlier signal left it.
            flag::register_conditional_shutdown(signal, exit, Arc::clone(&seen))?;
            flag::register(signal, Arc::clone(&seen))?;
            flag::register_usize(signal, Arc::clone(&code), exit as usize)?;
        }
        Ok(Interruption { seen, code })
    }

    /// The flag the first signal sets: a run given it stops reading.
    pub fn flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.seen)
    }

    /// The exit code that reports the signal seen: 130 (SIGINT) or 143 (SIGTERM).
    pub fn exit_code(&self) -> u8 {
        u8::try_from(self.code.load(Ordering::Relaxed)).unwrap_or(130)
    }
}
