//! Worker threads with nothing to do, lent to a deep search: with fewer positions left
//! than workers (one position and `-j2`), the idle workers' cores help search it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// A count of the busy workers of one run, shared by its workers.
#[derive(Debug, Clone, Default)]
pub struct IdleThreads {
    busy: Arc<AtomicUsize>,
}

/// One worker's turn at a record: busy until dropped, with the idle threads it borrowed.
#[derive(Debug)]
pub struct Turn<'a> {
    busy: &'a AtomicUsize,
    borrowed: usize,
}

impl IdleThreads {
    /// Marks one more worker busy until the turn is dropped.
    pub fn begin(&self) -> Turn<'_> {
        self.busy.fetch_add(1, Ordering::Relaxed);
        Turn {
            busy: &self.busy,
            borrowed: 0,
        }
    }
}

impl Turn<'_> {
    /// Borrows every thread of a `pool` of workers that is not busy now, for this turn;
    /// how many. A worker that starts a record after this runs beside the borrowed threads
    /// (the cores are then shared for a while, never left idle).
    pub fn borrow_idle(&mut self, pool: usize) -> usize {
        let mut busy = self.busy.load(Ordering::Relaxed);
        loop {
            let idle = pool.saturating_sub(busy);
            if idle == 0 {
                return self.borrowed;
            }
            match self.busy.compare_exchange_weak(
                busy,
                busy + idle,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    self.borrowed += idle;
                    return self.borrowed;
                }
                Err(now) => busy = now,
            }
        }
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        self.busy.fetch_sub(1 + self.borrowed, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_borrows_only_idle_threads_and_gives_them_back() {
        let idle = IdleThreads::default();
        let mut first = idle.begin();
        assert_eq!(first.borrow_idle(3), 2);
        {
            let mut second = idle.begin();
            assert_eq!(second.borrow_idle(3), 0);
        }
        drop(first);
        let mut third = idle.begin();
        assert_eq!(third.borrow_idle(1), 0);
        assert_eq!(third.borrow_idle(4), 3);
    }
}
