//! Per-record budgets: how long one record's search may take and how many nodes it may
//! visit, so that one hard record cannot stall a run.
//!
//! A search asks its [`Meter`] at each node it counts (a guess, a position); the meter
//! says when the budget is spent. It looks at the clock only every [`CLOCK_EVERY`] nodes,
//! so the check is one addition and one comparison per node, and nothing at all is
//! checked without a budget. A meter may also watch a run's stop flag (Ctrl-C), looked at
//! as often as the clock, so that an interrupted run does not wait for a long search.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use thiserror::Error;

/// Nodes between two looks at the clock: a node takes from tens of nanoseconds (a
/// Connect Four position) to microseconds (a 25×25 Sudoku guess), and reading the clock
/// about 25 ns, so a time budget is overrun by well under a millisecond.
pub const CLOCK_EVERY: u64 = 256;

/// Limits on one record's search; `None` is no limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Budget {
    /// Wall time for the record.
    pub timeout: Option<Duration>,
    /// Nodes (guesses, positions) the search may count.
    pub max_nodes: Option<u64>,
}

impl Budget {
    /// No limit at all.
    pub const UNLIMITED: Budget = Budget {
        timeout: None,
        max_nodes: None,
    };

    /// Whether the budget limits anything.
    pub fn is_limited(&self) -> bool {
        self.timeout.is_some() || self.max_nodes.is_some()
    }

    /// The budget as run settings for summaries: `("timeout", "250ms")` and the like.
    pub fn settings(&self) -> Vec<(String, String)> {
        let mut settings = Vec::new();
        if let Some(timeout) = self.timeout {
            settings.push(("timeout".to_string(), duration_text(timeout)));
        }
        if let Some(nodes) = self.max_nodes {
            settings.push(("max_nodes".to_string(), nodes.to_string()));
        }
        settings
    }
}

/// The limit a search ran into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum OverBudget {
    /// The record took longer than the timeout.
    #[error("stopped at the time budget (--timeout {})", duration_text(*.0))]
    Time(Duration),
    /// The search counted more nodes than allowed.
    #[error("stopped at the node budget (--max-nodes {0})")]
    Nodes(u64),
    /// The run was interrupted (its stop flag was set) during the search.
    #[error("stopped: the run was interrupted")]
    Interrupted,
}

/// `250ms`, `2s`, `1m 30s`: a duration as the command line takes it.
pub fn duration_text(duration: Duration) -> String {
    humantime::format_duration(duration).to_string()
}

/// The instant `timeout` from now; none for no timeout, or for one so long that the
/// clock cannot hold its end (`--timeout 300000000000years`), which no search reaches.
pub(crate) fn deadline_after(timeout: Option<Duration>) -> Option<Instant> {
    timeout.and_then(|timeout| Instant::now().checked_add(timeout))
}

/// A [`Budget`] being spent by one search.
#[derive(Clone)]
pub struct Meter {
    /// Nodes counted so far.
    spent: u64,
    /// The count at which to look at the limits again.
    next_check: u64,
    budget: Budget,
    deadline: Option<Instant>,
    over: Option<OverBudget>,
    /// The run's stop flag, if the search should end when it is set.
    stop: Option<Arc<AtomicBool>>,
}

impl fmt::Debug for Meter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Meter")
            .field("spent", &self.spent)
            .field("budget", &self.budget)
            .field("over", &self.over)
            .finish()
    }
}

impl Default for Meter {
    fn default() -> Self {
        Meter::unlimited()
    }
}

impl Meter {
    /// A meter that never stops a search.
    pub fn unlimited() -> Meter {
        Meter::start(Budget::UNLIMITED)
    }

    /// A meter for `budget`, its clock starting now.
    pub fn start(budget: Budget) -> Meter {
        let mut meter = Meter {
            spent: 0,
            next_check: u64::MAX,
            budget,
            deadline: deadline_after(budget.timeout),
            over: None,
            stop: None,
        };
        meter.plan_next_check();
        meter
    }

    /// A meter for `budget` that also ends the search, with [`OverBudget::Interrupted`],
    /// once `stop` is set.
    pub fn stoppable(budget: Budget, stop: Arc<AtomicBool>) -> Meter {
        let mut meter = Meter::start(budget);
        meter.stop = Some(stop);
        meter.plan_next_check();
        meter
    }

    /// Starts the budget again, for the next record: nothing spent, the clock from now.
    pub fn restart(&mut self) {
        self.spent = 0;
        self.over = None;
        self.deadline = deadline_after(self.budget.timeout);
        self.plan_next_check();
    }

    /// Counts one node; true once the budget is spent (and from then on).
    #[inline(always)]
    pub fn spend(&mut self) -> bool {
        self.spent += 1;
        self.spent >= self.next_check && self.check()
    }

    /// Counts `nodes` nodes at once; true once the budget is spent. For searches that
    /// count their nodes themselves and report every [`nodes_until_check`] nodes.
    ///
    /// [`nodes_until_check`]: Self::nodes_until_check
    pub fn spend_many(&mut self, nodes: u64) -> bool {
        self.spent = self.spent.saturating_add(nodes);
        self.spent >= self.next_check && self.check()
    }

    /// Runs `search` on this meter with a pause after `nodes` more nodes, for a search
    /// that hands its record over to another after that many: true when it stopped at the
    /// pause, not at the budget. The nodes are counted here either way; after a pause the
    /// meter runs on, with nothing over.
    pub fn pausing_after<T>(
        &mut self,
        nodes: u64,
        search: impl FnOnce(&mut Meter) -> T,
    ) -> (T, bool) {
        let pause_at = self.spent.saturating_add(nodes);
        let mut trial = self.clone();
        let pauses = self.budget.max_nodes.is_none_or(|max| pause_at < max);
        if pauses {
            trial.budget.max_nodes = Some(pause_at);
            trial.plan_next_check();
        }
        let found = search(&mut trial);
        let paused = pauses && trial.over == Some(OverBudget::Nodes(pause_at));
        self.spent = trial.spent;
        if !paused {
            self.over = trial.over;
        }
        if self.over.is_some() {
            self.next_check = 0;
        } else {
            self.plan_next_check();
        }
        (found, paused)
    }

    /// Whether this meter has a node or time budget.
    pub fn is_limited(&self) -> bool {
        self.budget.is_limited()
    }

    /// Nodes that can be counted before the meter needs to look at its limits
    /// (`u64::MAX` without a budget).
    pub fn nodes_until_check(&self) -> u64 {
        self.next_check.saturating_sub(self.spent)
    }

    /// The limit the search ran into, if any.
    pub fn over(&self) -> Option<OverBudget> {
        self.over
    }

    /// Nodes counted so far.
    pub fn spent(&self) -> u64 {
        self.spent
    }

    /// The run's stop flag this meter watches, if any: for a search that looks at a flag
    /// of its own instead of counting its nodes here.
    pub fn stop_flag(&self) -> Option<&Arc<AtomicBool>> {
        self.stop.as_ref()
    }

    /// Looks at the stop flag now: true once it is set, and the meter is then over with
    /// [`OverBudget::Interrupted`], as if a node had found it. For a search that looked
    /// at [`stop_flag`](Self::stop_flag) itself.
    pub fn is_interrupted(&mut self) -> bool {
        if self
            .stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
        {
            self.over.get_or_insert(OverBudget::Interrupted);
            self.next_check = 0;
        }
        self.over == Some(OverBudget::Interrupted)
    }

    #[cold]
    #[inline(never)]
    fn check(&mut self) -> bool {
        if self.over.is_none() {
            if self
                .stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Relaxed))
            {
                self.over = Some(OverBudget::Interrupted);
            } else if let Some(max) = self.budget.max_nodes.filter(|&max| self.spent > max) {
                self.over = Some(OverBudget::Nodes(max));
            } else if let (Some(deadline), Some(timeout)) = (self.deadline, self.budget.timeout) {
                if Instant::now() >= deadline {
                    self.over = Some(OverBudget::Time(timeout));
                }
            }
        }
        if self.over.is_some() {
            // Every later node looks again, and finds the budget spent.
            self.next_check = 0;
            return true;
        }
        self.plan_next_check();
        false
    }

    fn plan_next_check(&mut self) {
        let by_nodes = self.budget.max_nodes.map_or(u64::MAX, |max| max + 1);
        let by_clock = if self.budget.timeout == Some(Duration::ZERO) {
            // `--timeout 0` stops every search at its first node, not at the first clock
            // reading CLOCK_EVERY nodes in.
            self.spent + 1
        } else if self.deadline.is_some() || self.stop.is_some() {
            self.spent + CLOCK_EVERY
        } else {
            u64::MAX
        };
        self.next_check = by_nodes.min(by_clock);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_that_watches_the_flag_itself_marks_the_meter_interrupted() {
        let stop = Arc::new(AtomicBool::new(false));
        let mut meter = Meter::stoppable(Budget::UNLIMITED, Arc::clone(&stop));
        assert!(Arc::ptr_eq(meter.stop_flag().unwrap(), &stop));
        assert!(!meter.is_interrupted());
        assert_eq!(meter.over(), None);
        stop.store(true, Ordering::Relaxed);
        assert!(meter.is_interrupted());
        assert_eq!(meter.over(), Some(OverBudget::Interrupted));
        assert!(Meter::unlimited().stop_flag().is_none());
        assert!(!Meter::unlimited().is_interrupted());
    }

    /// Spends nodes on `meter` until it says stop or `nodes` are spent; how many it spent.
    fn spend_up_to(meter: &mut Meter, nodes: u64) -> u64 {
        (1..=nodes).find(|_| meter.spend()).unwrap_or(nodes)
    }

    #[test]
    fn a_pause_stops_a_search_without_spending_the_budget() {
        let budget = Budget {
            timeout: None,
            max_nodes: Some(100),
        };
        let mut meter = Meter::start(budget);
        spend_up_to(&mut meter, 5);
        let (spent, paused) = meter.pausing_after(10, |trial| spend_up_to(trial, 1_000));
        assert_eq!((spent, paused), (11, true));
        assert_eq!((meter.spent(), meter.over()), (16, None));
        // The budget goes on from the nodes the paused search counted.
        assert_eq!(spend_up_to(&mut meter, 1_000), 85);
        assert_eq!(meter.over(), Some(OverBudget::Nodes(100)));
    }

    #[test]
    fn a_budget_spent_before_the_pause_is_the_budget() {
        let budget = Budget {
            timeout: None,
            max_nodes: Some(8),
        };
        let mut meter = Meter::start(budget);
        let (spent, paused) = meter.pausing_after(10, |trial| spend_up_to(trial, 1_000));
        assert_eq!((spent, paused), (9, false));
        assert_eq!(meter.over(), Some(OverBudget::Nodes(8)));
        assert!(meter.spend());
    }

    #[test]
    fn a_search_done_before_its_pause_is_not_paused() {
        let mut meter = Meter::unlimited();
        let (spent, paused) = meter.pausing_after(10, |trial| spend_up_to(trial, 4));
        assert_eq!((spent, paused), (4, false));
        let (_, paused) = meter.pausing_after(3, |trial| spend_up_to(trial, 4));
        assert!(paused);
        assert_eq!((meter.spent(), meter.over()), (8, None));
        assert!(!meter.spend());
    }

    #[test]
    fn a_zero_timeout_stops_at_the_first_node() {
        let budget = Budget {
            timeout: Some(Duration::ZERO),
            max_nodes: None,
        };
        let mut meter = Meter::start(budget);
        assert_eq!(meter.nodes_until_check(), 1);
        assert!(meter.spend());
        assert_eq!(meter.over(), Some(OverBudget::Time(Duration::ZERO)));
    }

    #[test]
    fn an_unlimited_meter_never_stops() {
        let mut meter = Meter::unlimited();
        assert!(!(0..100_000).any(|_| meter.spend()));
        assert_eq!(meter.spent(), 100_000);
        assert_eq!(meter.over(), None);
    }

    #[test]
    fn a_timeout_beyond_the_clock_is_no_limit() {
        // `--timeout 300000000000years`: more than an `Instant` can be moved by.
        let budget = Budget {
            timeout: Some(Duration::MAX),
            max_nodes: None,
        };
        let mut meter = Meter::start(budget);
        assert!(!(0..100_000).any(|_| meter.spend()));
        meter.restart();
        assert!(!meter.spend());
        assert_eq!(meter.over(), None);
    }

    #[test]
    fn a_node_budget_stops_at_the_first_node_beyond_it() {
        let mut meter = Meter::start(Budget {
            timeout: None,
            max_nodes: Some(10),
        });
        let stopped_at = (1..=100).find(|_| meter.spend());
        assert_eq!(stopped_at, Some(11));
        assert_eq!(meter.over(), Some(OverBudget::Nodes(10)));
        assert!(meter.spend(), "a spent budget stays spent");
    }

    #[test]
    fn a_stoppable_meter_stops_soon_after_its_flag_is_set_and_restarts_clean() {
        let stop = Arc::new(AtomicBool::new(false));
        let mut meter = Meter::stoppable(Budget::UNLIMITED, Arc::clone(&stop));
        assert!(!(0..10_000).any(|_| meter.spend()));
        stop.store(true, Ordering::Relaxed);
        let more = (1..=10_000).find(|_| meter.spend());
        assert!(more.is_some_and(|n| n <= CLOCK_EVERY), "{more:?}");
        assert_eq!(meter.over(), Some(OverBudget::Interrupted));
        stop.store(false, Ordering::Relaxed);
        meter.restart();
        assert_eq!((meter.over(), meter.spent()), (None, 0));
        assert!(!(0..10_000).any(|_| meter.spend()));
    }

    #[test]
    fn a_time_budget_stops_once_the_clock_has_passed_it() {
        let timeout = Duration::from_millis(20);
        let started = Instant::now();
        let mut meter = Meter::start(Budget {
            timeout: Some(timeout),
            max_nodes: None,
        });
        while !meter.spend() {}
        assert!(started.elapsed() >= timeout);
        assert_eq!(meter.over(), Some(OverBudget::Time(timeout)));
        assert_eq!(
            meter.over().map(|o| o.to_string()).as_deref(),
            Some("stopped at the time budget (--timeout 20ms)")
        );
    }
}
