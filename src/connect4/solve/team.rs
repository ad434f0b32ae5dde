//! Threads searching one position together (lazy SMP): the main thread posts each
//! null-window search it starts, and helper threads search the same window over the shared
//! transposition table, dropping it as soon as the main thread moves on. The bounds the
//! helpers store cut the main thread's search short; [`Busy`] marks make them search
//! different children where they can.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};

use super::busy::Busy;
use super::position::Position;

/// One null-window search of the main thread.
#[derive(Debug, Clone, Copy)]
pub struct Task<M> {
    /// Counts the tasks posted: a helper works on a task while it is the latest.
    pub generation: u64,
    /// The position searched.
    pub position: Position<M>,
    /// The window: the value is searched for in (alpha, beta).
    pub alpha: i32,
    /// The window's upper end.
    pub beta: i32,
    /// Stones at the root of the main thread's search, which places the deep positions'
    /// line.
    pub root_moves: u32,
}

/// What the threads of one search share besides the transposition table.
#[derive(Debug)]
pub struct Team<M> {
    /// The positions being searched now.
    pub busy: Busy,
    /// The latest task's generation; [`OVER`] once the main thread is done.
    generation: AtomicU64,
    latest: Mutex<Option<Task<M>>>,
    posted: Condvar,
    /// The latest task a helper finished: its generation in the high 32 bits, its value
    /// in the low 32.
    solved: AtomicU64,
    /// Nodes the helpers searched so far, told every few thousand.
    helper_nodes: AtomicU64,
}

/// Tells the helpers that the search is over when dropped: also when the main thread's
/// search panics, which would otherwise leave them waiting for a next task for ever.
pub struct FinishOnDrop<'a, M: Copy>(pub &'a Team<M>);

impl<M: Copy> Drop for FinishOnDrop<'_, M> {
    fn drop(&mut self) {
        self.0.finish();
    }
}

/// The generation that tells helpers to stop.
const OVER: u64 = u64::MAX;

impl<M: Copy> Team<M> {
    /// A team with no task posted yet.
    pub fn new() -> Self {
        Team {
            busy: Busy::default(),
            generation: AtomicU64::new(0),
            latest: Mutex::new(None),
            posted: Condvar::new(),
            // Generation 2³² − 1 is never posted: no task is solved yet.
            solved: AtomicU64::new(u64::MAX),
            helper_nodes: AtomicU64::new(0),
        }
    }

    /// Posts the main thread's next search, and returns its generation: helpers drop
    /// whatever they search and take it.
    pub fn post(&self, position: Position<M>, alpha: i32, beta: i32, root_moves: u32) -> u64 {
        let mut latest = self.latest.lock().unwrap_or_else(PoisonError::into_inner);
        let generation = latest.map_or(1, |task| task.generation + 1);
        *latest = Some(Task {
            generation,
            position,
            alpha,
            beta,
            root_moves,
        });
        self.generation.store(generation, Ordering::Relaxed);
        self.posted.notify_all();
        generation
    }

    /// A helper's value for the task of `generation`, searched to the end.
    pub fn report(&self, generation: u64, value: i32) {
        self.solved.store(
            generation << 32 | u64::from(value as u32),
            Ordering::Relaxed,
        );
    }

    /// Counts `nodes` more searched by a helper.
    pub fn add_helper_nodes(&self, nodes: u64) {
        self.helper_nodes.fetch_add(nodes, Ordering::Relaxed);
    }

    /// Nodes the helpers have searched, as last told.
    pub fn helper_nodes(&self) -> u64 {
        self.helper_nodes.load(Ordering::Relaxed)
    }

    /// The value a helper found for the task of `generation`, if one did.
    #[inline]
    pub fn solved(&self, generation: u64) -> Option<i32> {
        let solved = self.solved.load(Ordering::Relaxed);
        (solved >> 32 == generation).then_some(solved as u32 as i32)
    }

    /// Tells the helpers that the search is over.
    pub fn finish(&self) {
        let _latest = self.latest.lock().unwrap_or_else(PoisonError::into_inner);
        self.generation.store(OVER, Ordering::Relaxed);
        self.posted.notify_all();
    }

    /// Whether the task of `generation` is no longer the latest (or the search is over).
    #[inline]
    pub fn moved_on(&self, generation: u64) -> bool {
        self.generation.load(Ordering::Relaxed) != generation
    }

    /// Waits for a task later than `generation`; `None` once the search is over.
    pub fn next_task(&self, generation: u64) -> Option<Task<M>> {
        let mut latest = self.latest.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if self.generation.load(Ordering::Relaxed) == OVER {
                return None;
            }
            match *latest {
                Some(task) if task.generation > generation => return Some(task),
                _ => {
                    latest = self
                        .posted
                        .wait(latest)
                        .unwrap_or_else(PoisonError::into_inner)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers_take_the_latest_task_and_the_main_thread_their_value() {
        let team = Team::<u64>::new();
        let position = Position::default();
        let first = team.post(position, -1, 0, 0);
        assert!(!team.moved_on(first));
        assert_eq!(team.solved(first), None);
        let second = team.post(position, 0, 1, 3);
        assert!(team.moved_on(first));
        // A helper that searched the first task waits for nothing: the second is posted.
        let task = team.next_task(first).expect("the second task");
        assert_eq!(
            (task.generation, task.alpha, task.beta, task.root_moves),
            (second, 0, 1, 3)
        );
        team.report(second, -7);
        assert_eq!(team.solved(second), Some(-7));
        assert_eq!(team.solved(first), None);
        team.finish();
        assert!(team.moved_on(second));
        assert!(team.next_task(second).is_none());
    }

    #[test]
    fn a_waiting_helper_wakes_for_the_next_task_and_for_the_end() {
        let team = Team::<u64>::new();
        std::thread::scope(|scope| {
            let helper = scope.spawn(|| {
                let mut seen = Vec::new();
                let mut generation = 0;
                while let Some(task) = team.next_task(generation) {
                    generation = task.generation;
                    seen.push(task.alpha);
                }
                seen
            });
            team.post(Position::default(), 5, 6, 0);
            std::thread::sleep(std::time::Duration::from_millis(20));
            team.finish();
            assert_eq!(helper.join().unwrap(), vec![5]);
        });
    }
}
