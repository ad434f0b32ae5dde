//! The search: negamax with alpha-beta over non-losing moves, a transposition table shared
//! by mirror images, and a null-window search that narrows the score's interval.
//!
//! Scores are for the side to move: 0 for a draw; for a win, (cells + 1) / 2 + 1 minus the
//! number of stones the winner has played when it completes its four (22 − stones on 7×6),
//! so faster wins score higher; a loss is minus the opponent's win score.

use std::sync::Arc;

use super::book::Book;
use super::busy::Busy;
use super::ordering::{centre_first, MoveSorter};
use super::position::{Bits, Geometry, Position};
use super::table::Table;
use super::team::{FinishOnDrop, Team};
use crate::budget::{Meter, OverBudget};
use crate::connect4::MAX_SIDE;

/// The table doubles when the current search has visited this many nodes per entry of it:
/// large enough that small searches keep a small table in cache, small enough that deep
/// ones do not thrash it.
const GROW_FACTOR: u64 = 4;

/// Positions this many stones or more below the search's root keep their bounds in a
/// separate table of [`DEEP_TABLE_MB`]. Those are most of the nodes; their table stays in
/// the processor's cache, and they no longer push the shallower positions' bounds, which
/// save far more work each, out of the main table. Every second doubling of the main table
/// moves the line one stone deeper, since a large main table keeps deeper positions well.
/// The empty 7×6 board (1 GiB, reaching 21 plies) searched a quarter fewer nodes in a
/// third less time than with 16 throughout; small searches are fastest with 16
/// (`docs/performance.md`).
const DEEP_PLIES: u32 = 16;

/// The size of the deep positions' table, MiB: the size the main table starts at.
const DEEP_TABLE_MB: usize = 1;

/// Nodes with at least this many empty cells, once the search has passed
/// [`ETC_AFTER_NODES`], try an enhanced transposition cutoff (a child's stored bound that
/// already ends the node) before searching any child: near the leaves the probes cost more
/// than the nodes they save.
const ETC_MIN_EMPTY: i32 = 12;

/// Table cutoffs from the children start once the current search has visited this many
/// nodes: small searches gain little from them and pay the probes.
const ETC_AFTER_NODES: u64 = 10_000;

/// A bound on a position's value, as the table stores it.
#[derive(Debug, Clone, Copy)]
enum Bound {
    /// The value is at least this.
    Lower(i32),
    /// The value is at most this.
    Upper(i32),
}

/// A solved position: its score, the columns that achieve it, and the search's effort.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Analysis {
    /// The exact score for the side to move (with `weak`: 1 win, 0 draw, −1 loss).
    pub score: i32,
    /// Every column (0-based) whose move achieves the score, in column order.
    pub best_moves: Vec<usize>,
    /// Positions searched.
    pub nodes: u64,
    /// The budget the search stopped at, if it did: the score and moves then mean nothing.
    pub stopped: Option<OverBudget>,
}

/// A reusable solver for one board size: geometry, transposition table and node counter.
#[derive(Debug)]
pub struct Solver<M: Bits> {
    geometry: Geometry<M>,
    /// Shared with helper threads while they search the same position (see
    /// [`search_within`](Solver::search_within)); this solver's own otherwise.
    table: Arc<Table<M>>,
    /// Bounds of the positions [`DEEP_PLIES`] or more below the current search's root: a
    /// small table of its own, which stays in the processor's cache.
    deep_table: Table<M>,
    /// Positions with at least this many stones use `deep_table`.
    deep_from: u32,
    /// Stones on the board at the current search's root.
    root_moves: u32,
    book: Option<Arc<Book<M>>>,
    /// Columns from the centre outwards, as the search tries them.
    order: [usize; MAX_SIDE],
    nodes: u64,
    /// The node count at which the table doubles next (see [`GROW_FACTOR`]).
    grow_at: u64,
    /// The node count at which to grow the table or look at the budget: one comparison
    /// per node for both.
    next_event: u64,
    /// The budget of the current search, and the node count it was last told.
    meter: Meter,
    metered: u64,
    /// Whether the budget stopped the current search: every node then returns at once.
    stopped: bool,
    /// The node count when the current [`solve`](Solver::solve) began.
    solve_start: u64,
    /// Whether the current search asks only for win, draw or loss: the only searches a
    /// weak book may answer.
    weak: bool,
    /// Lowest and highest score a position the search visits can have.
    min_score: i32,
    max_score: i32,
    /// While threads search one position together: what they share.
    team: Option<Arc<Team<M>>>,
    /// Whether this solver is a helper thread of a team.
    helping: bool,
    /// In a team: the generation of the task this thread searches (see [`Team::post`]).
    task: u64,
    /// For the main thread of a team: a helper's value for the current task, which ended
    /// the main thread's own search of it.
    overtaken: Option<i32>,
    /// For the main thread of a team: the window it searches now, posted to the helpers
    /// once the search has run [`HELP_AFTER_NODES`].
    window: Option<(Position<M>, i32, i32)>,
    /// In a team: stones at the root of the window this thread searches now.
    window_root: u32,
    /// In a team: whether the node searched next is expected to fail low, every child
    /// searched (an ALL node), rather than to be cut off by one (a CUT node). Set by its
    /// parent; see [`expects_all`](Self::expects_all).
    all_expected: bool,
    /// Whether the search runs its build for the CPU's bit-manipulation instructions and
    /// AVX2 (see [`negamax`](Self::negamax)): true where the CPU has them.
    modern: bool,
}

/// Whether this CPU can run [`Solver::negamax_modern`].
fn has_modern_features() -> bool {
    #[cfg(target_arch = "x86_64")]
    return crate::cpu::has_modern_features();
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// A team's helpers get work once the main thread's search has visited this many nodes
/// (about 20 ms): shorter searches gain nothing from them, and stay exactly as on one
/// thread, node counts included.
const HELP_AFTER_NODES: u64 = 1 << 18;

/// Children with at least this many empty cells are marked while searched, and passed
/// over while another thread searches them (see [`Busy`](super::busy::Busy)): near the
/// leaves the marks cost more than they save.
const BUSY_MIN_EMPTY: i32 = 20;

/// How often, in nodes, the threads of a team look at each other: a helper whether the
/// main thread moved on (and where the shared table's size puts its deep line), the main
/// thread whether a helper finished its window.
const HELPER_CHECK_NODES: u64 = 1 << 12;

impl<M: Bits> Solver<M> {
    /// A solver for `width × height` boards (which must fit `M`) with a transposition table
    /// of about `table_mb` MiB.
    pub fn new(width: usize, height: usize, table_mb: usize) -> Self {
        let mut order = [0; MAX_SIDE];
        order[..width].copy_from_slice(&centre_first(width));
        let cells = (width * height) as i32;
        Solver {
            geometry: Geometry::new(width, height),
            table: Arc::new(Table::new(table_mb)),
            deep_table: Table::new(DEEP_TABLE_MB),
            deep_from: u32::MAX,
            root_moves: 0,
            book: None,
            order,
            nodes: 0,
            grow_at: 0,
            next_event: 0,
            meter: Meter::unlimited(),
            metered: 0,
            stopped: false,
            solve_start: 0,
            weak: false,
            min_score: -cells / 2 + 3,
            max_score: (cells + 1) / 2 - 3,
            team: None,
            helping: false,
            task: 0,
            overtaken: None,
            window: None,
            window_root: 0,
            all_expected: false,
            modern: has_modern_features(),
        }
    }

    /// Uses `book` for the positions it holds (it must be for this board size); a weak
    /// book only in weak searches.
    pub fn set_book(&mut self, book: Arc<Book<M>>) {
        self.book = Some(book);
    }

    /// The board's geometry, to build positions with.
    pub fn geometry(&self) -> &Geometry<M> {
        &self.geometry
    }

    /// Forgets every stored bound (never needed for correctness: bounds stay true). A table
    /// shared with helper threads at the time is left as it is.
    pub fn clear_table(&mut self) {
        if let Some(table) = Arc::get_mut(&mut self.table) {
            table.clear();
        }
        self.deep_table.clear();
    }

    /// The score of the side to move winning with its next stone.
    fn win_now_score(&self, p: &Position<M>) -> i32 {
        (self.geometry.cells as i32 + 1 - p.moves() as i32) / 2
    }

    /// The score of `p`, which must be unfinished (no four, not full). With `weak`, only
    /// its sign: 1, 0 or −1.
    pub fn solve(&mut self, p: &Position<M>, weak: bool) -> i32 {
        self.weak = weak;
        // Only a table of its own starts small again and grows: helpers search over the
        // size their main thread gives the shared table.
        if let Some(table) = Arc::get_mut(&mut self.table) {
            table.restart();
        }
        self.root_moves = p.moves();
        self.deep_from = self.deep_line();
        self.solve_start = self.nodes;
        self.grow_at = self.solve_start + GROW_FACTOR * self.table.len() as u64;
        self.plan_next_event();
        if self.geometry.can_win_next(p) {
            return if weak { 1 } else { self.win_now_score(p) };
        }
        let cells = self.geometry.cells as i32;
        let moves = p.moves() as i32;
        let (mut min, mut max) = if weak {
            (-1, 1)
        } else {
            (-(cells - moves) / 2, (cells + 1 - moves) / 2)
        };
        // Null-window searches halve the interval, leaning towards 0 first: near-even
        // scores are the common case and small windows around them are cheap.
        while min < max && !self.stopped {
            let mut med = min + (max - min) / 2;
            if med <= 0 && min / 2 < med {
                med = min / 2;
            } else if med >= 0 && max / 2 > med {
                med = max / 2;
            }
            let r = self.root_search(p, med, med + 1);
            if r <= med {
                max = r;
            } else {
                min = r;
            }
        }
        if weak {
            min.signum()
        } else {
            min
        }
    }

    /// The score of `p` and every column that achieves it, counting the nodes searched.
    pub fn analyze(&mut self, p: &Position<M>, weak: bool) -> Analysis {
        self.analyze_within(p, weak, &mut Meter::unlimited())
    }

    /// [`analyze`](Self::analyze), the nodes counted by `meter`: the search stops when its
    /// budget is spent, with [`Analysis::stopped`] set.
    pub fn analyze_within(&mut self, p: &Position<M>, weak: bool, meter: &mut Meter) -> Analysis {
        self.start_metering(meter);
        let score = self.solve(p, weak);
        let best_moves = if self.stopped {
            Vec::new()
        } else {
            self.moves_reaching(p, score, weak)
        };
        let stopped = self.stop_metering(meter);
        Analysis {
            score,
            best_moves,
            nodes: self.nodes,
            stopped,
        }
    }

    /// The score of `p` only, counting the nodes searched.
    pub fn score(&mut self, p: &Position<M>, weak: bool) -> (i32, u64) {
        self.nodes = 0;
        let score = self.solve(p, weak);
        (score, self.nodes)
    }

    /// [`score`](Self::score), the nodes counted by `meter`: an [`Analysis`] without best
    /// moves, with [`Analysis::stopped`] set when the budget stopped the search.
    pub fn score_within(&mut self, p: &Position<M>, weak: bool, meter: &mut Meter) -> Analysis {
        self.start_metering(meter);
        let score = self.solve(p, weak);
        let stopped = self.stop_metering(meter);
        Analysis {
            score,
            best_moves: Vec::new(),
            nodes: self.nodes,
            stopped,
        }
    }

    /// Takes `meter` for a search from the empty node count.
    fn start_metering(&mut self, meter: &mut Meter) {
        self.nodes = 0;
        self.metered = 0;
        self.stopped = false;
        std::mem::swap(&mut self.meter, meter);
    }

    /// Gives the meter back after a search, with the limit it stopped at. A stopped
    /// search stored nothing once stopped (see [`put`](Self::put)), but its tables are
    /// cleared all the same: the next search then does not depend on where this one
    /// stopped, so which records finish within a budget does not depend on how records
    /// are shared between threads.
    fn stop_metering(&mut self, meter: &mut Meter) -> Option<OverBudget> {
        // A stopped search took back the node that stopped it after telling the meter.
        self.meter
            .spend_many(self.nodes.saturating_sub(self.metered));
        std::mem::swap(&mut self.meter, meter);
        let stopped = self.stopped.then(|| meter.over()).flatten();
        if self.stopped {
            self.clear_table();
            self.stopped = false;
        }
        stopped
    }

    /// The score of `p` and, with `best_moves`, every column that achieves it, with
    /// `helpers` more threads searching the same position over this solver's table (lazy
    /// SMP): they run the same search, and the bounds they store cut this thread's search
    /// short. The answer is exactly what a search alone gives (a window's value may come
    /// from whichever thread finishes it first, both being bounds on the same side); the
    /// nodes are all threads'. Helpers run on `u64` boards only (see
    /// [`WideCell`](super::position::WideCell)) and never under a limited `meter`, so that
    /// which searches finish within a budget does not depend on the threads.
    pub fn search_within(
        &mut self,
        p: &Position<M>,
        weak: bool,
        meter: &mut Meter,
        helpers: usize,
        best_moves: bool,
    ) -> Analysis {
        let run = |solver: &mut Self, meter: &mut Meter| {
            if best_moves {
                solver.analyze_within(p, weak, meter)
            } else {
                solver.score_within(p, weak, meter)
            }
        };
        // A search that panicked inside a team left it behind.
        self.team = None;
        if helpers == 0 || M::BITS != 64 || meter.is_limited() {
            return run(self, meter);
        }
        if let Some(table) = Arc::get_mut(&mut self.table) {
            table.restart();
        }
        let team = Arc::new(Team::new());
        self.team = Some(Arc::clone(&team));
        self.weak = weak;
        let analysis = std::thread::scope(|scope| {
            let threads: Vec<_> = (0..helpers)
                .map(|_| {
                    let helper = self.helper();
                    scope.spawn(move || helper.help())
                })
                .collect();
            let finish = FinishOnDrop(&team);
            let analysis = run(self, meter);
            drop(finish);
            let helper_nodes: u64 = threads
                .into_iter()
                .map(|t| {
                    t.join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                })
                .sum();
            Analysis {
                nodes: analysis.nodes + helper_nodes,
                ..analysis
            }
        });
        self.team = None;
        analysis
    }

    /// [`negamax`](Self::negamax) from the root of a search, told to the helper threads
    /// if there are any; the value of the first thread to finish.
    fn root_search(&mut self, p: &Position<M>, alpha: i32, beta: i32) -> i32 {
        if self.team.is_none() {
            return self.negamax(p, alpha, beta);
        }
        self.window = Some((*p, alpha, beta));
        self.task = 0;
        self.post_window();
        self.start_window(p, alpha);
        let value = self.negamax(p, alpha, beta);
        match self.overtaken.take() {
            Some(value) => {
                self.stopped = false;
                self.plan_next_event();
                value
            }
            None => value,
        }
    }

    /// Posts the main thread's current window to the helpers, once the search has run long
    /// enough for them (see [`HELP_AFTER_NODES`]) and unless it is posted already.
    fn post_window(&mut self) {
        if let (Some(team), Some((p, alpha, beta)), 0) = (&self.team, self.window, self.task) {
            if self.nodes >= HELP_AFTER_NODES {
                self.task = team.post(p, alpha, beta, self.root_moves);
            }
        }
    }

    /// A solver over this one's table, book and team, with a small table of deep
    /// positions of its own. It tries the columns in the same order: the threads drift
    /// apart as each meets the other's bounds and marks, and that cut the main thread's
    /// nodes more than other orders or other first moves did (`docs/performance.md`).
    fn helper(&self) -> Self {
        Solver {
            geometry: self.geometry.clone(),
            table: Arc::clone(&self.table),
            deep_table: Table::new(DEEP_TABLE_MB),
            deep_from: u32::MAX,
            root_moves: 0,
            book: self.book.clone(),
            order: self.order,
            nodes: 0,
            grow_at: u64::MAX,
            next_event: 0,
            meter: Meter::unlimited(),
            metered: 0,
            stopped: false,
            solve_start: 0,
            weak: self.weak,
            min_score: self.min_score,
            max_score: self.max_score,
            team: self.team.clone(),
            helping: true,
            task: 0,
            overtaken: None,
            window: None,
            window_root: 0,
            all_expected: false,
            modern: self.modern,
        }
    }

    /// A helper thread's work: each search the main thread posts, until it is done or
    /// the main thread moves on, then the next; the nodes searched.
    fn help(mut self) -> u64 {
        let Some(team) = self.team.clone() else {
            return 0;
        };
        while let Some(task) = team.next_task(self.task) {
            self.task = task.generation;
            self.stopped = false;
            self.root_moves = task.root_moves;
            self.deep_from = self.deep_line();
            self.plan_next_event();
            self.start_window(&task.position, task.alpha);
            let value = self.negamax(&task.position, task.alpha, task.beta);
            if !self.stopped {
                team.report(task.generation, value);
            }
        }
        self.nodes
    }

    /// Starts a team's search of the window (`alpha`, `alpha` + 1) at `root`. Scores near
    /// 0 are the common case, so a window above 0 is expected to fail low (the root an ALL
    /// node) and one at or below 0 to fail high.
    fn start_window(&mut self, root: &Position<M>, alpha: i32) {
        self.window_root = root.moves();
        self.all_expected = alpha > 0;
    }

    /// Whether a node of a team's search, at `moves` stones and with `stored` in the
    /// table, is expected to be an ALL node: as its last search ended when there is one
    /// (an upper bound: it failed low), else as its parent expects (the first child of a
    /// CUT node is an ALL node, every other child a CUT node). The root's entry is from
    /// another window, so the root goes by [`start_window`](Self::start_window).
    fn expects_all(&self, moves: u32, stored: Option<Bound>) -> bool {
        match stored {
            _ if moves == self.window_root => self.all_expected,
            Some(Bound::Upper(_)) => true,
            Some(Bound::Lower(_)) => false,
            None => self.all_expected,
        }
    }

    /// Sets the node count of the next event: the table's growth or a look at the budget
    /// (in a team, at what the other threads did).
    fn plan_next_event(&mut self) {
        let mut check = self.nodes.saturating_add(self.meter.nodes_until_check());
        if self.team.is_some() {
            check = check.min(self.nodes + HELPER_CHECK_NODES);
        }
        self.next_event = self.grow_at.min(check);
    }

    /// Grows the table when due, tells the meter the nodes searched and looks at the rest
    /// of the team; true once the search is to stop: the budget is spent, or (in a team)
    /// the main thread moved on or a helper finished the window first.
    #[cold]
    #[inline(never)]
    fn event(&mut self) -> bool {
        if self.stopped {
            // Already stopped: a helper's value must not undo a stop by the budget.
            self.next_event = 0;
            return true;
        }
        if let Some(team) = &self.team {
            if self.helping {
                if team.moved_on(self.task) {
                    self.stopped = true;
                }
                // The main thread grows the shared table: the line follows its size.
                self.deep_from = self.deep_line();
            } else if self.task == 0 {
                self.post_window();
            } else if let Some(value) = team.solved(self.task) {
                self.overtaken = Some(value);
                self.stopped = true;
            }
        }
        if self.stopped {
            self.next_event = 0;
            return true;
        }
        let fresh = self.nodes - self.metered;
        self.metered = self.nodes;
        // The table grows with the nodes of every thread that fills it.
        let helped = match &self.team {
            Some(team) if self.helping => {
                team.add_helper_nodes(fresh);
                0
            }
            Some(team) => team.helper_nodes(),
            None => 0,
        };
        if self.nodes + helped >= self.grow_at {
            self.grow_table();
        }
        if self.meter.spend_many(fresh) {
            self.stopped = true;
            self.next_event = 0;
            return true;
        }
        self.plan_next_event();
        false
    }

    /// The columns whose move gives the side to move at least `score` (its value, or with
    /// `weak` its sign): one null-window search per column.
    pub fn moves_reaching(&mut self, p: &Position<M>, score: i32, weak: bool) -> Vec<usize> {
        self.weak = weak;
        let g = self.geometry.clone();
        let win_now = if weak { 1 } else { self.win_now_score(p) };
        let mut best = Vec::new();
        for col in 0..g.width {
            if !g.can_play(p, col) {
                continue;
            }
            let reaches = if weak && score < 0 {
                // Every move loses; with only the sign asked for, every move is as good.
                true
            } else if g.is_winning_column(p, col) {
                win_now >= score
            } else {
                let mut child = *p;
                g.play_column(&mut child, col);
                if child.moves() == g.cells {
                    // The last cell, without a four: a draw.
                    score <= 0
                } else if g.can_win_next(&child) {
                    let opponent = if weak { 1 } else { self.win_now_score(&child) };
                    -opponent >= score
                } else {
                    // The move reaches `score` if the child's value is at most −score.
                    self.root_search(&child, -score, -score + 1) <= -score
                }
            };
            if reaches {
                best.push(col);
            }
        }
        best
    }

    /// Negamax with alpha-beta: the value of `p` if it lies in (alpha, beta), else a bound
    /// on the side of the window it falls. `p` must be unfinished and the side to move must
    /// not be able to win at once.
    ///
    /// On x86-64 CPUs that have them, the search runs in a build compiled for the
    /// bit-manipulation instructions and AVX2 ([`negamax_modern`](Self::negamax_modern)):
    /// the portable build shifts by a register through `cl` and counts a move's threats
    /// with a dozen instructions instead of one (timings in docs/performance.md).
    fn negamax(&mut self, p: &Position<M>, alpha: i32, beta: i32) -> i32 {
        if self.modern {
            // SAFETY: `modern` is set only on a CPU with every feature `negamax_modern`
            // is compiled for.
            #[cfg(target_arch = "x86_64")]
            return unsafe { self.negamax_modern(p, alpha, beta) };
        }
        self.negamax_portable(p, alpha, beta)
    }

    /// The search's own recursion: a child is searched by the build its parent runs in.
    #[inline(always)]
    fn negamax_in<const MODERN: bool>(&mut self, p: &Position<M>, alpha: i32, beta: i32) -> i32 {
        if MODERN {
            // SAFETY: `MODERN` is true only inside `negamax_modern`, which is entered only on
            // a CPU with its features.
            #[cfg(target_arch = "x86_64")]
            return unsafe { self.negamax_modern(p, alpha, beta) };
        }
        self.negamax_portable(p, alpha, beta)
    }

    /// [`negamax`](Self::negamax) for any CPU.
    fn negamax_portable(&mut self, p: &Position<M>, alpha: i32, beta: i32) -> i32 {
        self.negamax_with::<false>(p, alpha, beta)
    }

    /// [`negamax`](Self::negamax) compiled for the bit-manipulation instructions of
    /// x86-64 CPUs since about 2013 (population count, shifts by any register) and AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
    fn negamax_modern(&mut self, p: &Position<M>, alpha: i32, beta: i32) -> i32 {
        self.negamax_with::<true>(p, alpha, beta)
    }

    /// The body of [`negamax`](Self::negamax), inlined into each build.
    #[inline(always)]
    fn negamax_with<const MODERN: bool>(
        &mut self,
        p: &Position<M>,
        mut alpha: i32,
        mut beta: i32,
    ) -> i32 {
        debug_assert!(alpha < beta);
        self.nodes += 1;
        if self.nodes >= self.next_event && self.event() {
            // Stopped (see `event`): the value does not matter, the search is dropped, and
            // this node, not searched, is not counted.
            self.nodes -= 1;
            return alpha;
        }
        let g = &self.geometry;
        let cells = g.cells as i32;
        let moves = p.moves() as i32;
        let next = g.non_losing_moves(p);
        if next.is_zero() {
            // Every move lets the opponent win next.
            return -(cells - moves) / 2;
        }
        if moves >= cells - 2 {
            // Neither the last two stones can make a four (none is winning, none losing).
            return 0;
        }
        // The opponent cannot win with its next stone: at worst it wins with the one after.
        let min = -(cells - 2 - moves) / 2;
        if alpha < min {
            alpha = min;
            if alpha >= beta {
                return alpha;
            }
        }
        // We cannot win with this stone: at best with the next one.
        let mut max = (cells - 1 - moves) / 2;
        // What either side can still make bounds the score (see
        // `Geometry::reachable_bound`): near the end of deep searches, most nodes are
        // settled here.
        if let Some(bound) = g.reachable_bound(p) {
            max = max.min(bound);
        }
        if alpha < 0 && g.opponent_blocked(p) {
            alpha = 0;
            if alpha >= beta {
                return alpha;
            }
        }
        let in_book = self.book.as_ref().is_some_and(|b| p.moves() <= b.depth());
        if (next & (next - M::ONE)).is_zero() && !in_book {
            // One move does not lose at once: it is played without a table probe or entry
            // for this node, whose value is its child's: about a fifth faster on the empty
            // 6×6 board, for 5% more nodes.
            if beta > max {
                beta = max;
                if alpha >= beta {
                    return beta;
                }
            }
            let col = self.order[..g.width]
                .iter()
                .copied()
                .find(|&col| !(next & g.column(col)).is_zero())
                .unwrap_or(0);
            let mut child = *p;
            g.play(&mut child, next, col);
            // The one child is a first child (see `expects_all`).
            self.all_expected = !self.all_expected;
            return -self.negamax_in::<MODERN>(&child, -beta, -alpha);
        }
        let key = g.symmetric_key(p);
        let deep = p.moves() >= self.deep_from;
        let stored = self.stored_bound(self.table_for(deep).get(key));
        match stored {
            Some(Bound::Lower(lower)) if alpha < lower => {
                alpha = lower;
                if alpha >= beta {
                    return alpha;
                }
            }
            Some(Bound::Upper(upper)) => max = max.min(upper),
            _ => {}
        }
        if beta > max {
            beta = max;
            if alpha >= beta {
                return beta;
            }
        }
        if let Some(book) = &self.book {
            // A weak book's signs answer a weak search exactly: its windows are (−1, 0)
            // and (0, 1), which a sign falls on the right side of.
            if self.weak || !book.is_weak() {
                if let Some(score) = book.get(key, p.moves()) {
                    return score;
                }
            }
        }
        let mut sorter = MoveSorter::new();
        let mut child_keys = [M::default(); MAX_SIDE];
        let mut n_children = 0;
        let child_deep = p.moves() + 1 >= self.deep_from;
        for &col in self.order[..g.width].iter().rev() {
            let cell = next & g.column(col);
            if !cell.is_zero() {
                sorter.add(cell, col, g.threats_after(p, cell));
                let mut child = *p;
                g.play(&mut child, cell, col);
                let child_key = g.symmetric_key(&child);
                self.table_for(child_deep).prefetch(child_key);
                child_keys[n_children] = child_key;
                n_children += 1;
            }
        }
        // Enhanced transposition cutoff: a child whose stored upper bound already gives
        // this node a value of at least beta ends it before any child is searched. The
        // probes were prefetched above. See [`ETC_MIN_EMPTY`] and [`ETC_AFTER_NODES`].
        let probed =
            if cells - moves >= ETC_MIN_EMPTY && self.nodes - self.solve_start >= ETC_AFTER_NODES {
                n_children
            } else {
                0
            };
        for &child_key in &child_keys[..probed] {
            let stored = self.stored_bound(self.table_for(child_deep).get(child_key));
            if let Some(Bound::Upper(child_upper)) = stored {
                let lower = -child_upper;
                if lower >= beta {
                    self.store_lower(key, lower, deep);
                    return lower;
                }
                alpha = alpha.max(lower);
            }
        }
        if self.team.is_some() && cells - moves > BUSY_MIN_EMPTY {
            let all = self.expects_all(p.moves(), stored);
            return self.search_children_shared::<MODERN>(p, sorter, key, deep, (alpha, beta), all);
        }
        // Borrowed, not moved into the loop: moving copies the sorter's array.
        for (cell, col) in &mut sorter {
            let mut child = *p;
            self.geometry.play(&mut child, cell, col);
            let score = -self.negamax_in::<MODERN>(&child, -beta, -alpha);
            if score >= beta {
                self.store_lower(key, score, deep);
                return score;
            }
            if score > alpha {
                alpha = score;
            }
        }
        self.store_upper(key, alpha, deep);
        alpha
    }

    /// The children loop of [`negamax`](Self::negamax) while other threads search the same
    /// position: each child is marked in the team's [`Busy`] while searched, and a child
    /// another thread is searching waits until the others are done. At a node expected to
    /// be an ALL node (`all`, see [`expects_all`](Self::expects_all)) the first child may
    /// wait too, as every child is searched anyway; at a CUT node the first child is
    /// searched at once, by every thread, as it is the one expected to end the node, and
    /// the threads split further down (`docs/performance.md`).
    #[inline(never)]
    fn search_children_shared<const MODERN: bool>(
        &mut self,
        p: &Position<M>,
        mut sorter: MoveSorter<M>,
        key: M,
        deep: bool,
        (mut alpha, beta): (i32, i32),
        all: bool,
    ) -> i32 {
        let mut waiting = [(Position::default(), M::default()); MAX_SIDE];
        let mut n_waiting = 0;
        let mut next_waiting = 0;
        let mut first_waits = all;
        let mut searched = 0;
        loop {
            let (child, child_key) = if let Some((cell, col)) = sorter.next() {
                let mut child = *p;
                self.geometry.play(&mut child, cell, col);
                let child_key = self.geometry.symmetric_key(&child);
                let may_wait = std::mem::replace(&mut first_waits, true);
                // The marks are read through short borrows: the search below needs `self`.
                if may_wait && self.busy().is_some_and(|busy| busy.is_marked(child_key)) {
                    waiting[n_waiting] = (child, child_key);
                    n_waiting += 1;
                    continue;
                }
                (child, child_key)
            } else if next_waiting < n_waiting {
                next_waiting += 1;
                waiting[next_waiting - 1]
            } else {
                break;
            };
            if let Some(busy) = self.busy() {
                busy.mark(child_key);
            }
            self.all_expected = !all && searched == 0;
            searched += 1;
            let score = -self.negamax_in::<MODERN>(&child, -beta, -alpha);
            if let Some(busy) = self.busy() {
                busy.unmark(child_key);
            }
            if score >= beta {
                self.store_lower(key, score, deep);
                return score;
            }
            if score > alpha {
                alpha = score;
            }
        }
        self.store_upper(key, alpha, deep);
        alpha
    }

    /// Doubles the table (if it may grow), sets when to next, and moves the deep
    /// positions' line (see [`DEEP_PLIES`]).
    #[cold]
    fn grow_table(&mut self) {
        self.grow_at = if self.table.grow() {
            self.solve_start + GROW_FACTOR * self.table.len() as u64
        } else {
            u64::MAX
        };
        self.deep_from = self.deep_line();
    }

    /// The fewest stones of a position kept in the deep table (see [`DEEP_PLIES`]).
    fn deep_line(&self) -> u32 {
        self.root_moves
            .saturating_add(DEEP_PLIES + self.table.doublings() / 2)
    }

    /// The marks of the positions the threads of a team are searching.
    #[inline]
    fn busy(&self) -> Option<&Busy> {
        self.team.as_deref().map(|team| &team.busy)
    }

    /// The table of deep positions, or the main one.
    #[inline]
    fn table_for(&self, deep: bool) -> &Table<M> {
        if deep {
            &self.deep_table
        } else {
            &self.table
        }
    }

    /// Stores `value` for `key` in the table of deep positions, or the main one; nothing
    /// once the search is stopped, whose values are then not bounds.
    #[inline]
    fn put(&mut self, key: M, value: u8, deep: bool) {
        if self.stopped {
            return;
        }
        if deep {
            self.deep_table.put(key, value);
        } else {
            self.table.put(key, value);
        }
    }

    /// The bound a table value (as [`store_lower`](Self::store_lower) and
    /// [`store_upper`](Self::store_upper) encode it) holds, or `None` for no entry.
    #[inline]
    fn stored_bound(&self, value: u8) -> Option<Bound> {
        let value = i32::from(value);
        if value == 0 {
            None
        } else if value > self.max_score - self.min_score + 1 {
            Some(Bound::Lower(
                value + 2 * self.min_score - self.max_score - 2,
            ))
        } else {
            Some(Bound::Upper(value + self.min_score - 1))
        }
    }

    /// Stores that the value of the position with `key` is at least `score`.
    #[inline]
    fn store_lower(&mut self, key: M, score: i32, deep: bool) {
        // A weaker bound than the truth is still a bound; this keeps the value in its byte
        // for windows wider than any reachable score (roots with very few stones).
        let score = score.min(self.max_score);
        let value = score + self.max_score - 2 * self.min_score + 2;
        self.put(key, value as u8, deep);
    }

    /// Stores that the value of the position with `key` is at most `score`.
    #[inline]
    fn store_upper(&mut self, key: M, score: i32, deep: bool) {
        let score = score.max(self.min_score);
        let value = score - self.min_score + 1;
        self.put(key, value as u8, deep);
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};

    use super::*;

    /// Score, best moves and node count of `games` random positions of `plies` stones on a
    /// `width × height` board, by the modern build and by the portable one, each search
    /// stopped after 2,000,000 nodes (where both builds stop alike); the nodes searched in
    /// all.
    fn both_builds<M: Bits>(width: usize, height: usize, plies: usize, games: usize) -> u64 {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(26);
        let (mut compared, mut nodes) = (0, 0);
        while compared < games {
            let columns: Vec<usize> = (0..plies).map(|_| rng.gen_range(1..=width)).collect();
            let Ok(p) = Geometry::<M>::new(width, height).position(&columns) else {
                continue;
            };
            let [modern, portable] = [true, false].map(|modern| {
                let mut solver = Solver::<M>::new(width, height, 1);
                solver.modern = modern;
                let budget = crate::budget::Budget {
                    timeout: None,
                    max_nodes: Some(2_000_000),
                };
                solver.analyze_within(&p, false, &mut Meter::start(budget))
            });
            assert_eq!(modern.stopped, portable.stopped, "{columns:?}");
            assert_eq!(modern.score, portable.score, "{columns:?}");
            assert_eq!(modern.best_moves, portable.best_moves, "{columns:?}");
            assert_eq!(modern.nodes, portable.nodes, "{columns:?}");
            compared += 1;
            nodes += modern.nodes;
        }
        nodes
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn the_modern_build_searches_what_the_portable_build_searches() {
        assert!(
            has_modern_features(),
            "this CPU lacks the modern build's features"
        );
        let nodes = both_builds::<u64>(7, 6, 12, 20);
        // A board of more than 64 bits.
        let wide_nodes = both_builds::<u128>(10, 6, 12, 10);
        assert!(
            nodes > 1_000_000 && wide_nodes > 1_000_000,
            "{nodes}, {wide_nodes}"
        );
    }

    #[test]
    fn a_node_is_expected_to_fail_as_its_table_entry_or_its_parent_says() {
        let mut solver = Solver::<u64>::new(7, 6, 1);
        let empty = Position::default();
        // The root goes by its window: above 0 it is expected to fail low, whatever its
        // entry (which is from another window) says.
        solver.start_window(&empty, 1);
        assert!(solver.expects_all(0, Some(Bound::Lower(3))));
        solver.start_window(&empty, 0);
        assert!(!solver.expects_all(0, Some(Bound::Upper(3))));
        // Below the root, an entry tells how the node's last search ended.
        assert!(solver.expects_all(5, Some(Bound::Upper(1))));
        assert!(!solver.expects_all(5, Some(Bound::Lower(1))));
        // Without one, the parent's expectation holds.
        solver.all_expected = true;
        assert!(solver.expects_all(5, None));
        solver.all_expected = false;
        assert!(!solver.expects_all(5, None));
    }
}
