//! Timing each record cheaply: the processor's time-stamp counter where there is one,
//! turned into nanoseconds by its rate measured against the system clock. Reading the
//! system clock twice per record cost as much as formatting the record's row.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How long the process must have run before the counter's rate is trusted: until then
/// records are timed by the system clock.
const CALIBRATION: Duration = Duration::from_millis(1);

/// A record's start, as a [`RecordClock`] reads it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Stamp {
    Ticks(u64),
    Clock(Instant),
}

/// Times the records of one chunk.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RecordClock {
    /// Nanoseconds per counter tick as a 32.32 fixed-point number, once known (and a
    /// counter there is): a multiply and a shift a record, where converting the ticks to a
    /// float and back took a dozen instructions.
    nanos_per_tick: Option<u64>,
}

impl RecordClock {
    /// A clock for the next chunk: the counter's rate is the one measured from the first
    /// chunk of the process until now.
    pub(crate) fn for_chunk() -> RecordClock {
        static ORIGIN: OnceLock<(Instant, u64)> = OnceLock::new();
        let Some(now_ticks) = ticks() else {
            return RecordClock {
                nanos_per_tick: None,
            };
        };
        let &(origin, origin_ticks) = ORIGIN.get_or_init(|| (Instant::now(), now_ticks));
        let elapsed = origin.elapsed();
        let counted = now_ticks.saturating_sub(origin_ticks);
        let nanos_per_tick = (elapsed >= CALIBRATION && counted > 0)
            .then(|| ((elapsed.as_nanos() << 32) / u128::from(counted)) as u64);
        RecordClock { nanos_per_tick }
    }

    /// Now, as the start of a chunk's first record.
    pub(crate) fn start(&self) -> Stamp {
        match (self.nanos_per_tick, ticks()) {
            (Some(_), Some(ticks)) => Stamp::Ticks(ticks),
            _ => Stamp::Clock(Instant::now()),
        }
    }

    /// Nanoseconds since `last`, which becomes now: the end of one record is the start of
    /// the next, so that each record costs one reading of the clock. (A reading takes about
    /// 10 ns on this project's VMs, 1.3% of a Kaggle Sudoku's time.) A record's time thus
    /// includes the runner's bookkeeping of the record before it, tens of nanoseconds.
    pub(crate) fn lap(&self, last: &mut Stamp) -> u64 {
        match (*last, self.nanos_per_tick, ticks()) {
            (Stamp::Ticks(start), Some(rate), Some(now)) => {
                *last = Stamp::Ticks(now);
                let nanos = (u128::from(now.saturating_sub(start)) * u128::from(rate)) >> 32;
                u64::try_from(nanos).unwrap_or(u64::MAX)
            }
            (Stamp::Clock(start), ..) => {
                let now = Instant::now();
                *last = Stamp::Clock(now);
                now.duration_since(start).as_nanos() as u64
            }
            _ => 0,
        }
    }
}

/// The time-stamp counter, where the processor has a constant-rate one that the
/// operating system uses as its own clock source.
#[cfg(target_arch = "x86_64")]
fn ticks() -> Option<u64> {
    static TRUSTED: OnceLock<bool> = OnceLock::new();
    let trusted = *TRUSTED.get_or_init(|| {
        // Linux keeps the counter as its clock only when it is invariant and in step
        // across cores; elsewhere the system clock is used.
        std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource")
            .is_ok_and(|source| source.trim() == "tsc")
    });
    // SAFETY: `rdtsc` exists on every x86_64 processor and only reads the counter.
    trusted.then(|| unsafe { core::arch::x86_64::_rdtsc() })
}

#[cfg(not(target_arch = "x86_64"))]
fn ticks() -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_counter_measures_what_the_system_clock_measures() {
        // Past the calibration, whichever clock is used.
        RecordClock::for_chunk();
        std::thread::sleep(CALIBRATION * 3);
        let clock = RecordClock::for_chunk();
        if ticks().is_some() {
            assert!(clock.nanos_per_tick.is_some(), "the counter is calibrated");
        }
        let mut stamp = clock.start();
        for _ in 0..2 {
            let started = Instant::now();
            std::thread::sleep(Duration::from_millis(20));
            let nanos = clock.lap(&mut stamp) as f64;
            let wall = started.elapsed().as_nanos() as f64;
            assert!(
                (nanos - wall).abs() < wall * 0.05 + 200_000.0,
                "{nanos} ns against {wall}"
            );
        }
    }
}
