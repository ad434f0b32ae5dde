//! SIGINT and SIGTERM during a run: the first stops the reading (the records read are
//! finished, written and summarised), a second one exits at once.

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

/// A second signal sooner than this after the first (in nanoseconds) is the same request,
/// not the user insisting: `timeout` and process supervisors send the signal to the
/// process and then to its whole group, microseconds apart.
const INSIST_AFTER_NS: u64 = 100_000_000;

/// When the first signal came (monotonic nanoseconds, 0 before it).
static FIRST_SIGNAL_AT: AtomicU64 = AtomicU64::new(0);

/// The process group of a program the run started (0 when none): killed when a second
/// signal ends the process at once, so that it does not outlive it.
static CHILD_GROUP: AtomicI32 = AtomicI32::new(0);

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
        let seen = Arc::new(AtomicBool::new(false));
        let code = Arc::new(AtomicUsize::new(0));
        for (signal, exit) in [(SIGINT, 130), (SIGTERM, 143)] {
            let (seen, code) = (Arc::clone(&seen), Arc::clone(&code));
            // SAFETY: the handler only touches atomics and calls `clock_gettime`, `kill`
            // and `_exit`, which are async-signal-safe.
            unsafe {
                signal_hook::low_level::register(signal, move || on_signal(&seen, &code, exit))
            }?;
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

    /// Names the process group of a program the run has started (`None` once it has
    /// ended): a second signal, which exits at once, kills that group first.
    pub fn watch_child_group(group: Option<i32>) {
        CHILD_GROUP.store(group.unwrap_or(0), Ordering::SeqCst);
    }
}

/// The handler of SIGINT and SIGTERM: the first signal sets the flag and the exit code; a
/// second one, unless it follows the first within [`INSIST_AFTER_NS`], kills the program
/// started and exits with `exit`.
fn on_signal(seen: &AtomicBool, code: &AtomicUsize, exit: i32) {
    let now = monotonic_nanos().max(1);
    let first = FIRST_SIGNAL_AT
        .compare_exchange(0, now, Ordering::SeqCst, Ordering::SeqCst)
        .unwrap_or_else(|earlier| earlier);
    if !seen.load(Ordering::SeqCst) {
        code.store(exit as usize, Ordering::SeqCst);
        seen.store(true, Ordering::SeqCst);
        return;
    }
    if now.saturating_sub(first) < INSIST_AFTER_NS {
        return;
    }
    let group = CHILD_GROUP.load(Ordering::SeqCst);
    if group > 0 {
        // SAFETY: kill has no memory effects; the group is one the run started.
        unsafe { libc::kill(-group, libc::SIGKILL) };
    }
    signal_hook::low_level::exit(exit);
}

/// The monotonic clock in nanoseconds, read in a way a signal handler may.
fn monotonic_nanos() -> u64 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes only `now` and is async-signal-safe.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
    (now.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(now.tv_nsec as u64)
}
