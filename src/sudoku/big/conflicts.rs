//! Learning from conflicts: a board's candidates as a SAT formula, solved by CaDiCaL
//! (a conflict-driven clause-learning solver, MIT licence; version 3.0.1, through the
//! `cadical-sys` crate).
//!
//! The depth-first search forgets why a branch failed, so on the hardest 25×25 puzzles
//! it refutes the same few clashes under thousands of unrelated guesses. A clause-
//! learning solver keeps each conflict's cause as a new clause and never meets it again:
//! on Gecode's 25×25 set it needs 30 to 60 times fewer conflicts than the search needs
//! guesses (docs/performance.md). The 25×25 search hands a puzzle over after
//! [`HAND_OVER_25`](super::HAND_OVER_25) guesses without a second solution.
//!
//! The formula has a variable per open cell and candidate digit: each open cell holds
//! exactly one of its candidates, and each digit not yet placed in a row, column or box
//! sits in exactly one of that unit's open cells that may hold it ("exactly one" as one
//! clause for at least one and a clause per pair for at most one). Each solution found is
//! blocked by a clause before the next is looked for, up to the limit.

use std::cell::RefCell;
use std::rc::Rc;

use cadical_sys::{CaDiCal, Learner, Status, Terminator};

use crate::budget::{Meter, OverBudget};

/// What the solver found beyond the solutions it was told of.
pub(super) struct Learned {
    /// New solutions, up to the limit asked.
    pub(super) solutions: u64,
    /// Clauses learned, about one a conflict: the nodes counted against the budget.
    pub(super) conflicts: u64,
    /// The budget the solver stopped at before it was done.
    pub(super) stopped: Option<OverBudget>,
}

/// The budget's watch inside the solver: each learned clause is a node of the meter,
/// told to it when the solver asks whether to stop, and between two solutions.
struct Watch {
    meter: Meter,
    learned: u64,
    told: u64,
}

impl Watch {
    /// Tells the meter the clauses learned since it was last told; true once the budget
    /// is spent.
    fn tell(&mut self) -> bool {
        let new = self.learned - self.told;
        self.told = self.learned;
        self.meter.spend_many(new)
    }
}

/// The watch as CaDiCaL holds it: the solver owns its callbacks, so it gets a shared
/// handle and `solve` keeps another to read the count and take the meter back.
#[derive(Clone)]
struct SharedWatch(Rc<RefCell<Watch>>);

impl Terminator for SharedWatch {
    /// CaDiCaL asks every tenth step of its main loop that is neither a conflict nor a
    /// solution: the budget may be overrun by up to a few hundred conflicts (about
    /// 10 ms on Gecode's puzzles).
    fn terminated(&mut self) -> bool {
        self.0.borrow_mut().tell()
    }
}

impl Learner for SharedWatch {
    /// Every learned clause is counted; its literals are not wanted (false).
    fn learning(&mut self, _size: i32) -> bool {
        self.0.borrow_mut().learned += 1;
        false
    }

    fn learn(&mut self, _literal: i32) {}
}

/// CaDiCaL's options changed from its `sat` configuration, chosen on Gecode's puzzles 9
/// and 10 over many seeds and checked on all 18 (measurements in docs/performance.md):
/// no chronological backtracking, no vivification, no target phases, and local search
/// (`walk`) cut to 5 per mille of the search's effort, which keeps its conflicts and
/// drops most of its cost.
const TUNED_OPTIONS: &[(&str, i32)] = &[
    ("chrono", 0),
    ("vivify", 0),
    ("target", 0),
    ("walkeffort", 5),
];

/// Finds up to `limit` solutions of the grid of boxes `box_size` whose cells may hold
/// `candidates` (a digit mask per cell, row-major, bit `d - 1` for digit `d`; at least
/// one bit each), other than `known` (a solution already found, its values 1-based),
/// writing the first new one's values into `values` when `known` is `None`. The meter
/// counts the learned clauses, and stops the solver when its budget is spent.
pub(super) fn solve(
    box_size: usize,
    candidates: &[u128],
    known: Option<&[u8]>,
    limit: u64,
    meter: &mut Meter,
    values: &mut [u8],
) -> Learned {
    let formula = Formula::new(box_size, candidates);
    // CaDiCaL's options for satisfiable formulas: faster than its defaults on the
    // hardest of Gecode's set, even though the uniqueness proof is of an unsatisfiable
    // formula (docs/performance.md).
    let mut solver = CaDiCal::new();
    let configured = solver.configure("sat");
    debug_assert!(configured, "CaDiCaL has no `sat` configuration");
    for &(option, value) in TUNED_OPTIONS {
        let accepted = solver.set(option, value);
        debug_assert!(accepted, "CaDiCaL refused option {option}={value}");
    }
    // Declared up front, so that options which add variables of their own (`factor`,
    // which `CADICAL_FACTOR=1` turns on) find them declared.
    solver.declare_more_variables(formula.variable_count);
    for clause in &formula.clauses {
        solver.clause6(clause);
    }
    if let Some(known) = known {
        solver.clause6(&formula.blocking(known));
    }
    let watch = SharedWatch(Rc::new(RefCell::new(Watch {
        meter: std::mem::take(meter),
        learned: 0,
        told: 0,
    })));
    solver.connect_terminator(watch.clone());
    solver.connect_learner(watch.clone());
    let mut learned = Learned {
        solutions: 0,
        conflicts: 0,
        stopped: None,
    };
    let mut found = vec![0u8; candidates.len()];
    while learned.solutions < limit {
        match solver.solve() {
            Status::SATISFIABLE => {
                formula.read_model(&mut solver, &mut found);
                if learned.solutions == 0 && known.is_none() {
                    values.copy_from_slice(&found);
                }
                learned.solutions += 1;
                solver.clause6(&formula.blocking(&found));
                let mut state = watch.0.borrow_mut();
                if state.tell() {
                    learned.stopped = state.meter.over();
                    break;
                }
            }
            Status::UNSATISFIABLE => break,
            Status::UNKNOWN => {
                // No limit of CaDiCaL's own is set: only the watch stops it.
                learned.stopped = watch.0.borrow().meter.over();
                debug_assert!(learned.stopped.is_some());
                break;
            }
        }
    }
    solver.disconnect_terminator();
    solver.disconnect_learner();
    let mut state = watch.0.borrow_mut();
    state.tell();
    learned.conflicts = state.learned;
    *meter = std::mem::take(&mut state.meter);
    learned
}

/// How many "at most one" clauses, a clause per pair, the formula of these candidates
/// would have (a bound: the bulk of its size). An empty 36×36 grid has 3.3 million
/// (0.86 GB with CaDiCaL's copy), an empty 100×100 grid 198 million.
pub(super) fn pair_clause_count(box_size: usize, candidates: &[u128]) -> u64 {
    let pairs = |n: u64| n * n.saturating_sub(1) / 2;
    let open = |mask: u128| mask.count_ones() > 1;
    let cells: u64 = candidates
        .iter()
        .filter(|&&mask| open(mask))
        .map(|mask| pairs(u64::from(mask.count_ones())))
        .sum();
    let side = box_size * box_size;
    let units: u64 = units(box_size)
        .iter()
        .map(|unit| {
            (0..side)
                .map(|d| {
                    let places = unit
                        .iter()
                        .filter(|&&cell| open(candidates[cell]) && candidates[cell] >> d & 1 != 0)
                        .count();
                    pairs(places as u64)
                })
                .sum::<u64>()
        })
        .sum();
    cells + units
}

/// The clauses of a board's candidates, and which variable stands for which digit in
/// which cell.
struct Formula {
    side: usize,
    /// `variables[cell * side + d]`: the variable of digit `d + 1` in `cell`, 0 where
    /// the digit is not a candidate or the cell is placed.
    variables: Vec<i32>,
    /// Each placed cell's digit (1-based), 0 for an open cell.
    placed: Vec<u8>,
    /// How many variables there are (numbered from 1).
    variable_count: i32,
    clauses: Vec<Vec<i32>>,
}

impl Formula {
    fn new(box_size: usize, candidates: &[u128]) -> Formula {
        let side = box_size * box_size;
        let mut variables = vec![0i32; candidates.len() * side];
        let mut placed = vec![0u8; candidates.len()];
        let mut next = 0;
        for (cell, &mask) in candidates.iter().enumerate() {
            if mask.count_ones() == 1 {
                placed[cell] = mask.trailing_zeros() as u8 + 1;
                continue;
            }
            for d in (0..side).filter(|d| mask >> d & 1 != 0) {
                next += 1;
                variables[cell * side + d] = next;
            }
        }
        let mut formula = Formula {
            side,
            variables,
            placed,
            variable_count: next,
            clauses: Vec::new(),
        };
        for cell in 0..candidates.len() {
            if formula.placed[cell] != 0 {
                continue;
            }
            let cell_variables: Vec<i32> = (0..side)
                .map(|d| formula.variables[cell * side + d])
                .filter(|&v| v != 0)
                .collect();
            formula.exactly_one(&cell_variables);
        }
        for unit in units(box_size) {
            for d in 0..side {
                let placed_here = unit.iter().any(|&cell| formula.placed[cell] == d as u8 + 1);
                let places: Vec<i32> = unit
                    .iter()
                    .map(|&cell| formula.variables[cell * side + d])
                    .filter(|&v| v != 0)
                    .collect();
                if placed_here {
                    // The digit is the placed cell's: no open cell of the unit takes it.
                    formula.clauses.extend(places.iter().map(|&v| vec![-v]));
                } else {
                    formula.exactly_one(&places);
                }
            }
        }
        formula
    }

    /// Clauses for exactly one of `variables` (none: the empty clause, unsatisfiable).
    fn exactly_one(&mut self, variables: &[i32]) {
        self.clauses.push(variables.to_vec());
        for (i, &a) in variables.iter().enumerate() {
            for &b in &variables[i + 1..] {
                self.clauses.push(vec![-a, -b]);
            }
        }
    }

    /// The clause that rules out the solution `values` (1-based, every cell).
    fn blocking(&self, values: &[u8]) -> Vec<i32> {
        values
            .iter()
            .enumerate()
            .filter(|&(cell, _)| self.placed[cell] == 0)
            .map(|(cell, &value)| -self.variables[cell * self.side + usize::from(value) - 1])
            .collect()
    }

    /// The solution of the solver's model, written into `values` (1-based).
    fn read_model(&self, solver: &mut CaDiCal, values: &mut [u8]) {
        for (cell, value) in values.iter_mut().enumerate() {
            *value = if self.placed[cell] != 0 {
                self.placed[cell]
            } else {
                (0..self.side)
                    .find(|&d| {
                        let variable = self.variables[cell * self.side + d];
                        variable != 0 && solver.val(variable) > 0
                    })
                    .map_or(0, |d| d as u8 + 1)
            };
        }
    }
}

/// The cells of each row, column and box of the grid of boxes `box_size`, row-major.
fn units(box_size: usize) -> Vec<Vec<usize>> {
    let side = box_size * box_size;
    let rows = (0..side).map(|r| (0..side).map(|c| r * side + c).collect());
    let columns = (0..side).map(|c| (0..side).map(|r| r * side + c).collect());
    let boxes = (0..side).map(|b| {
        let (top, left) = (b / box_size * box_size, b % box_size * box_size);
        (0..side)
            .map(|i| (top + i / box_size) * side + left + i % box_size)
            .collect()
    });
    rows.chain(columns).chain(boxes).collect()
}
