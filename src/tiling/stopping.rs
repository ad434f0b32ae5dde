//! Counts that end before the end: after a timeout, or when a signal handler (Ctrl-C,
//! SIGTERM) sets the run's stop flag. Either way the counts reached are kept, partial.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, OnceLock};
use std::time::{Duration, Instant};

use super::{Counted, Tiling, TilingError};

/// How often a count looks at the interrupt flag, from a thread of its own: the workers
/// look at one flag only, which the watcher sets for either reason.
const WATCH_EVERY: Duration = Duration::from_millis(10);

/// What ended a count before every part of its search was done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The time given to the count ran out.
    Timeout(Duration),
    /// The count was interrupted: its stop flag was set from outside.
    Interrupted,
}

/// Runs `body` with a stop flag that a watcher thread sets once `timeout` (when given) has
/// passed or `interrupt` is set, looking every [`WATCH_EVERY`]: what `body` returns, and
/// why the flag was set, if it was. A timeout of zero sets the flag before `body` runs.
fn watched<T>(
    timeout: Option<Duration>,
    interrupt: &AtomicBool,
    body: impl FnOnce(&Arc<AtomicBool>) -> T,
) -> (T, Option<Stop>) {
    let deadline = crate::budget::deadline_after(timeout);
    let stop = Arc::new(AtomicBool::new(false));
    let why = OnceLock::new();
    // Whether to stop now; if so, says why.
    let stop_now = || {
        let reason = if interrupt.load(Ordering::Relaxed) {
            Stop::Interrupted
        } else if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
            Stop::Timeout(timeout.unwrap_or_default())
        } else {
            return false;
        };
        // The first reason seen is the one given.
        let _ = why.set(reason);
        stop.store(true, Ordering::Relaxed);
        true
    };
    // Dropping `finished` when `body` returns ends the watcher.
    let (finished, watcher) = mpsc::channel::<()>();
    let result = std::thread::scope(|scope| {
        if !stop_now() {
            let stop_now = &stop_now;
            scope.spawn(move || loop {
                let wait = deadline.map_or(WATCH_EVERY, |deadline| {
                    deadline
                        .saturating_duration_since(Instant::now())
                        .min(WATCH_EVERY)
                });
                let waited = watcher.recv_timeout(wait);
                if waited != Err(mpsc::RecvTimeoutError::Timeout) || stop_now() {
                    return;
                }
            });
        }
        let result = body(&stop);
        drop(finished);
        result
    });
    (result, why.into_inner())
}

impl Tiling {
    /// [`count_parallel`](Self::count_parallel) stopped after `timeout` (when given), or
    /// soon after `interrupt` is set (by a signal handler): the counts reached then, with
    /// [`Counted::stopped`] saying which came first. A watcher thread sets the stop flag of
    /// [`count_parallel_until`](Self::count_parallel_until), so the workers never read the
    /// clock. A timeout of zero stops the count before any part is searched.
    pub fn count_parallel_within<P>(
        &self,
        pool: &rayon::ThreadPool,
        timeout: Option<Duration>,
        interrupt: &AtomicBool,
        on_part: P,
    ) -> Counted
    where
        P: Fn(usize, usize, u64) + Sync,
    {
        let (mut counted, why) = watched(timeout, interrupt, |stop| {
            self.count_parallel_until(pool, stop, on_part)
        });
        if counted.stopped.is_some() {
            counted.stopped = why.or(counted.stopped);
        }
        counted
    }

    /// Builds the problem with `prepare` (given the stop flag: say
    /// [`configured_until`](Self::configured_until)) and counts it as
    /// [`count_parallel_within`](Self::count_parallel_within) does, the timeout and
    /// `interrupt` covering the building too: a count stopped before its parts are known is
    /// zero of zero parts, partial, with the reason in [`Counted::stopped`]. Errors are
    /// `prepare`'s, except [`TilingError::Stopped`].
    pub fn prepare_and_count_within<F, P>(
        prepare: F,
        pool: &rayon::ThreadPool,
        timeout: Option<Duration>,
        interrupt: &AtomicBool,
        on_part: P,
    ) -> Result<Counted, TilingError>
    where
        F: FnOnce(&AtomicBool) -> Result<Tiling, TilingError>,
        P: Fn(usize, usize, u64) + Sync,
    {
        let (counted, why) = watched(timeout, interrupt, |stop| {
            prepare(stop).map(|tiling| tiling.count_parallel_until(pool, stop, on_part))
        });
        let reason = why.unwrap_or(Stop::Interrupted);
        match counted {
            Err(TilingError::Stopped) => Ok(Counted::stopped_before_search(reason)),
            Err(impossible) => Err(impossible),
            Ok(mut counted) => {
                if counted.stopped.is_some() {
                    counted.stopped = Some(reason);
                }
                Ok(counted)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tiling::{Board, Engine, Piece, Symmetry};

    /// 18 dominoes on 6×6, every labelling enumerated: far more than any test waits for.
    fn endless() -> Tiling {
        let domino = Piece {
            name: "d".into(),
            cells: vec![((0, 0), None), ((0, 1), None)],
        };
        let board = Board::rectangle(6, 6, None).unwrap();
        let pieces = vec![domino; 18];
        Tiling::configured(&board, &pieces, Symmetry::Ignored, Engine::Auto).unwrap()
    }

    fn pool() -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap()
    }

    #[test]
    fn a_timeout_of_zero_searches_no_part() {
        let never = AtomicBool::new(false);
        let counted =
            endless().count_parallel_within(&pool(), Some(Duration::ZERO), &never, |_, _, _| {});
        // Listing the parts looks at the flag too: it stops before any is known.
        assert_eq!(counted.parts_done, 0);
        assert_eq!(counted.parts_total, 0);
        assert!(!counted.complete());
        assert_eq!(counted.stopped, Some(Stop::Timeout(Duration::ZERO)));
    }

    #[test]
    fn an_interrupt_stops_the_count_and_says_so() {
        let interrupt = Arc::new(AtomicBool::new(false));
        let setter = Arc::clone(&interrupt);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            setter.store(true, Ordering::Relaxed);
        });
        let counted = endless().count_parallel_within(
            &pool(),
            Some(Duration::from_secs(600)),
            &interrupt,
            |_, _, _| {},
        );
        assert!(!counted.complete());
        assert_eq!(counted.stopped, Some(Stop::Interrupted));
    }

    /// Builds [`endless`]'s problem under the count's stop flag.
    fn prepare(stop: &AtomicBool) -> Result<Tiling, TilingError> {
        let domino = Piece {
            name: "d".into(),
            cells: vec![((0, 0), None), ((0, 1), None)],
        };
        let board = Board::rectangle(6, 6, None).unwrap();
        let pieces = vec![domino; 18];
        Tiling::configured_until(&board, &pieces, Symmetry::Ignored, Engine::Auto, stop)
    }

    #[test]
    fn a_stop_while_the_problem_is_built_is_a_partial_count_of_no_part() {
        let never = AtomicBool::new(false);
        let counted = Tiling::prepare_and_count_within(
            prepare,
            &pool(),
            Some(Duration::ZERO),
            &never,
            |_, _, _| {},
        )
        .unwrap();
        assert_eq!(
            counted,
            Counted::stopped_before_search(Stop::Timeout(Duration::ZERO))
        );
        assert!(!counted.complete());
        assert_eq!((counted.parts_done, counted.parts_total), (0, 0));
        let interrupted = AtomicBool::new(true);
        let counted =
            Tiling::prepare_and_count_within(prepare, &pool(), None, &interrupted, |_, _, _| {})
                .unwrap();
        assert_eq!(counted.stopped, Some(Stop::Interrupted));
        assert!(!counted.complete());
        // Building under a flag already set stops at once; unset, it builds the problem.
        assert!(matches!(prepare(&interrupted), Err(TilingError::Stopped)));
        assert!(prepare(&never).is_ok());
    }

    #[test]
    fn a_count_that_ends_in_time_is_complete() {
        let board = Board::rectangle(20, 3, None).unwrap();
        let tiling = Tiling::new(&board, &crate::tiling::pentominoes()).unwrap();
        let never = AtomicBool::new(false);
        let counted = tiling.count_parallel_within(
            &pool(),
            Some(Duration::from_secs(600)),
            &never,
            |_, _, _| {},
        );
        assert!(counted.complete());
        assert_eq!(counted.stopped, None);
        assert_eq!(counted.counts.up_to_symmetry, 2);
    }
}
