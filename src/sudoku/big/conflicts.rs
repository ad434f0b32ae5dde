//! Learning from conflicts: a board's candidates as a SAT formula, solved by CaDiCaL
//! (a conflict-driven clause-learning solver, MIT licence, through the `cadical` crate).
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

use cadical::Callbacks;

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

impl Callbacks for Watch {
    /// CaDiCaL asks every tenth step of its main loop that is neither a conflict nor a
    /// solution: the budget may be overrun by up to a few hundred conflicts (about
    /// 10 ms on Gecode's puzzles).
    fn terminate(&mut self) -> bool {
        self.tell()
    }

    /// Every learned clause is reported, to be counted: CaDiCaL compares each clause's
    /// length with this bound before copying it out.
    fn max_length(&self) -> i32 {
        i32::MAX
    }

    fn learn(&mut self, _clause: &[i32]) {
        self.learned += 1;
    }
}

/// Finds up to `limit` solutions of the grid of boxes `box_size` whose cells may hold
/// `candidates` (a digit mask per cell, row-major, bit `d - 1` for digit `d`; at least
/// one bit each), other than `known` (a solution already found, its values 1-based),
/// writing the first new one's values into `values` when `known` is `None`. The meter
/// counts the learned clauses, and stops the solver when its budget is spent.
pub(super) fn solve(
    box_size: usize,
    candidates: &[u32],
    known: Option<&[u8]>,
    limit: u64,
    meter: &mut Meter,
    values: &mut [u8],
) -> Learned {
    let formula = Formula::new(box_size, candidates);
    // CaDiCaL's options for satisfiable formulas: on the four hardest of Gecode's set
    // 35 to 40% less time to prove uniqueness than its defaults, even though that proof
    // is of an unsatisfiable formula (docs/performance.md).
    let mut solver: cadical::Solver<Watch> =
        cadical::Solver::with_config("sat").unwrap_or_else(|_| cadical::Solver::new());
    for clause in &formula.clauses {
        solver.add_clause(clause.iter().copied());
    }
    if let Some(known) = known {
        solver.add_clause(formula.blocking(known));
    }
    solver.set_callbacks(Some(Watch {
        meter: std::mem::take(meter),
        learned: 0,
        told: 0,
    }));
    let mut learned = Learned {
        solutions: 0,
        conflicts: 0,
        stopped: None,
    };
    let mut found = vec![0u8; candidates.len()];
    while learned.solutions < limit {
        match solver.solve() {
            Some(true) => {
                formula.read_model(&solver, &mut found);
                if learned.solutions == 0 && known.is_none() {
                    values.copy_from_slice(&found);
                }
                learned.solutions += 1;
                solver.add_clause(formula.blocking(&found));
                if let Some(watch) = solver.get_callbacks() {
                    if watch.tell() {
                        learned.stopped = watch.meter.over();
                        break;
                    }
                }
            }
            Some(false) => break,
            None => {
                // No limit of CaDiCaL's own is set: only the watch stops it.
                learned.stopped = solver.get_callbacks().and_then(|w| w.meter.over());
                debug_assert!(learned.stopped.is_some());
                break;
            }
        }
    }
    if let Some(watch) = solver.get_callbacks() {
        watch.tell();
        learned.conflicts = watch.learned;
        *meter = std::mem::take(&mut watch.meter);
    }
    learned
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
    clauses: Vec<Vec<i32>>,
}

impl Formula {
    fn new(box_size: usize, candidates: &[u32]) -> Formula {
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
    fn blocking<'a>(&'a self, values: &'a [u8]) -> impl Iterator<Item = i32> + 'a {
        values
            .iter()
            .enumerate()
            .filter(|&(cell, _)| self.placed[cell] == 0)
            .map(|(cell, &value)| -self.variables[cell * self.side + usize::from(value) - 1])
    }

    /// The solution of the solver's model, written into `values` (1-based).
    fn read_model(&self, solver: &cadical::Solver<Watch>, values: &mut [u8]) {
        for (cell, value) in values.iter_mut().enumerate() {
            *value = if self.placed[cell] != 0 {
                self.placed[cell]
            } else {
                (0..self.side)
                    .find(|&d| {
                        let variable = self.variables[cell * self.side + d];
                        variable != 0 && solver.value(variable) == Some(true)
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
