//! Deciding whether a field holds a fleet, exactly.

use std::collections::HashSet;
use std::fmt;

use thiserror::Error;

use super::field::{cell_name, Field, MAX_HEIGHT, MAX_WIDTH};
use crate::budget::{Meter, OverBudget};

/// The longest ship a field can hold.
const LONGEST_SHIP: usize = if MAX_WIDTH > MAX_HEIGHT {
    MAX_WIDTH
} else {
    MAX_HEIGHT
};

/// Whether ships may touch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Rules {
    /// Ships may touch by edge or corner (the seed article's rules): the ship cells must
    /// split exactly into straight ships of the fleet's lengths.
    Touching,
    /// No two ships touch, not even at a corner (the classic game): every 8-connected group
    /// of ship cells is one straight ship.
    Separated,
}

/// The ships to find, by length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fleet {
    /// `count[len]` ships of length `len`.
    count: Vec<u8>,
}

/// A fleet description that cannot be used.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("bad fleet {}: {why}", crate::batch::Excerpt::quoted(text))]
pub struct FleetError {
    text: String,
    why: String,
}

impl Fleet {
    /// One ship of 4 cells, two of 3, three of 2 and four of 1.
    pub fn classic() -> Self {
        Fleet::from_lengths(&[4, 3, 3, 2, 2, 2, 1, 1, 1, 1]).expect("the classic fleet is valid")
    }

    /// A fleet from its ship lengths (1 to 64 cells each, at least one ship).
    pub fn from_lengths(lengths: &[usize]) -> Result<Self, FleetError> {
        let text = lengths
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(",");
        let error = |why: &str| FleetError {
            text: text.clone(),
            why: why.to_string(),
        };
        if lengths.is_empty() {
            return Err(error("no ships"));
        }
        let mut count = vec![0u8; LONGEST_SHIP + 1];
        for &len in lengths {
            if !(1..count.len()).contains(&len) {
                return Err(error("ship lengths go from 1 to 64"));
            }
            count[len] = count[len]
                .checked_add(1)
                .ok_or_else(|| error("at most 255 ships of one length"))?;
        }
        let longest = count.iter().rposition(|&n| n > 0).unwrap_or(0);
        count.truncate(longest + 1);
        Ok(Fleet { count })
    }

    /// Parses `4,3,3,2,2,2,1,1,1,1` (also what `str::parse` does).
    pub fn parse(text: &str) -> Result<Self, FleetError> {
        let lengths: Result<Vec<usize>, _> = text
            .split(',')
            .map(|part| part.trim().parse::<usize>())
            .collect();
        let lengths = lengths.map_err(|_| FleetError {
            text: text.to_string(),
            why: "write ship lengths separated by commas, e.g. 4,3,3,2,2,2,1,1,1,1".into(),
        })?;
        Fleet::from_lengths(&lengths)
    }

    /// Ship lengths, longest first.
    pub fn lengths(&self) -> Vec<usize> {
        (1..self.count.len())
            .rev()
            .flat_map(|len| std::iter::repeat_n(len, self.count[len] as usize))
            .collect()
    }

    /// Number of ships of length `len`.
    pub fn count(&self, len: usize) -> usize {
        self.count.get(len).copied().unwrap_or(0) as usize
    }

    /// The longest ship.
    pub fn longest(&self) -> usize {
        self.count.len() - 1
    }

    /// Cells the whole fleet occupies.
    pub fn cells(&self) -> usize {
        (1..self.count.len())
            .map(|len| len * self.count[len] as usize)
            .sum()
    }
}

impl fmt::Display for Fleet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lengths: Vec<String> = self.lengths().iter().map(usize::to_string).collect();
        f.write_str(&lengths.join(","))
    }
}

/// Why a field does not hold the fleet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// The number of ship cells is not the fleet's.
    CellCount {
        /// Ship cells in the field.
        found: usize,
        /// Cells of the fleet.
        expected: usize,
    },
    /// The cells cannot be split into straight ships of the fleet's lengths.
    NoSplit,
    /// An edge-connected group of cells that is not a straight line.
    NotStraight {
        /// The group's cells (row, column), row-major.
        cells: Vec<(usize, usize)>,
    },
    /// Two ships touch at a corner.
    CornerTouch {
        /// The two touching cells.
        cells: [(usize, usize); 2],
    },
    /// The ships found are not the fleet.
    WrongShips {
        /// Lengths found, longest first.
        found: Vec<usize>,
    },
}

impl Reason {
    /// The reason in words, naming cells like `B3`.
    pub fn describe(&self, fleet: &Fleet) -> String {
        let names =
            |cells: &[(usize, usize)]| listed(cells.iter().map(|&(r, c)| cell_name(r, c)), " ");
        let fleet = listed(fleet.lengths().iter().map(usize::to_string), ",");
        match self {
            Reason::CellCount { found, expected } => {
                format!(
                    "{}, the fleet has {expected}",
                    super::counted(*found, "ship cell")
                )
            }
            Reason::NoSplit => {
                format!("the ship cells cannot be split into straight ships of lengths {fleet}")
            }
            Reason::NotStraight { cells } => {
                format!(
                    "ship cells {} form a group that is not straight",
                    names(cells)
                )
            }
            Reason::CornerTouch { cells } => {
                format!("ships touch at a corner: {}", names(cells))
            }
            Reason::WrongShips { found } if found.len() == 1 => {
                format!("a ship of length {} instead of {fleet}", found[0])
            }
            Reason::WrongShips { found } => {
                let found = listed(found.iter().map(usize::to_string), ",");
                format!("ships of lengths {found} instead of {fleet}")
            }
        }
    }
}

/// The most items a reason lists; the rest are counted (a fleet of 64 ships of 64 cells
/// made a reason of 18 KB).
const MAX_LISTED: usize = 24;

/// `items` joined by `separator`, cut after [`MAX_LISTED`] with their number in all.
fn listed(items: impl ExactSizeIterator<Item = String>, separator: &str) -> String {
    let count = items.len();
    let mut text = items.take(MAX_LISTED).collect::<Vec<_>>().join(separator);
    if count > MAX_LISTED {
        text.push_str(&format!("{separator}… ({count} in all)"));
    }
    text
}

/// The decision on one field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// `None` if the field holds the fleet, else why not.
    pub reason: Option<Reason>,
    /// With counting: the number of distinct ways to read the cells as the fleet.
    pub readings: Option<u64>,
    /// The budget the search stopped at, if it did: `readings` then counts the readings
    /// found until then, and `reason` means nothing.
    pub stopped: Option<OverBudget>,
}

impl Verdict {
    /// Whether the field holds the fleet.
    pub fn is_valid(&self) -> bool {
        self.reason.is_none()
    }
}

/// Decides whether `field` holds exactly `fleet` under `rules`; with `count`, also counts
/// the distinct readings of the cells as the fleet (stopping at the first otherwise).
pub fn validate(field: &Field, fleet: &Fleet, rules: Rules, count: bool) -> Verdict {
    validate_within(field, fleet, rules, count, &mut Meter::unlimited())
}

/// [`validate`], each ship tried counted by `meter`: the search stops when its budget is
/// spent, with [`Verdict::stopped`] set.
pub fn validate_within(
    field: &Field,
    fleet: &Fleet,
    rules: Rules,
    count: bool,
    meter: &mut Meter,
) -> Verdict {
    let found = field.ship_cells();
    if found != fleet.cells() {
        return Verdict {
            reason: Some(Reason::CellCount {
                found,
                expected: fleet.cells(),
            }),
            readings: count.then_some(0),
            stopped: None,
        };
    }
    match rules {
        Rules::Touching => {
            let mut rows = [0u64; MAX_HEIGHT];
            rows[..field.height()].copy_from_slice(field.rows());
            // On the stack: a field's validation allocates nothing.
            let mut remaining = [0u8; LONGEST_SHIP + 1];
            let remaining = &mut remaining[..fleet.count.len()];
            remaining.copy_from_slice(&fleet.count);
            let mut search = Split {
                count_all: count,
                meter,
                failed: None,
                key: Vec::new(),
            };
            let readings = search.split(&mut rows[..field.height()], remaining);
            Verdict {
                reason: (readings == 0).then_some(Reason::NoSplit),
                readings: count.then_some(readings),
                stopped: meter.over(),
            }
        }
        Rules::Separated => {
            let reason = separated_reason(field, fleet);
            let readings = u64::from(reason.is_none());
            Verdict {
                reason,
                readings: count.then_some(readings),
                stopped: None,
            }
        }
    }
}

/// Ships tried by a search before it remembers the positions that failed: most fields
/// are split in a few dozen tries, and looking positions up would only slow them down.
const REMEMBER_AFTER: u64 = 4096;

/// Failed positions remembered at the most; past that the memory starts afresh.
const MAX_REMEMBERED: usize = 1 << 18;

/// The search of [`Split::split`]: its settings, its meter, and the positions known to
/// fail.
struct Split<'a> {
    count_all: bool,
    meter: &'a mut Meter,
    /// Positions (the rows left and the ships left) with no split, once the search has
    /// tried [`REMEMBER_AFTER`] ships: a field can be made so that the same positions are
    /// reached by many orders of the ships above them (49 dominoes on a 10×10 square
    /// without two opposite corners), which without this takes exponential time.
    failed: Option<HashSet<Box<[u64]>>>,
    /// The key being looked up, reused.
    key: Vec<u64>,
}

impl Split<'_> {
    /// Counts the ways to split the ship cells in `rows` into ships with lengths
    /// `remaining` (`remaining[len]` ships of length `len`), stopping at the first unless
    /// `count_all`, or when the meter, which counts the ships tried, says the budget is
    /// spent.
    ///
    /// The first ship cell in row-major order must be the top or left end of a ship,
    /// since every cell before it is covered: try each remaining length, to the right and
    /// down. The rows above that cell's are empty, so the search below it is given only
    /// the rest.
    fn split(&mut self, rows: &mut [u64], remaining: &mut [u8]) -> u64 {
        let Some(r) = rows.iter().position(|&mask| mask != 0) else {
            return 1;
        };
        if self.failed.is_none() && self.meter.spent() >= REMEMBER_AFTER {
            self.failed = Some(HashSet::new());
        }
        if let Some(failed) = &self.failed {
            position_key(&rows[r..], remaining, &mut self.key);
            if failed.contains(&self.key[..]) {
                return 0;
            }
        }
        let total = self.split_first_cell(rows, r, remaining);
        if total == 0 && self.meter.over().is_none() {
            if let Some(failed) = &mut self.failed {
                if failed.len() >= MAX_REMEMBERED {
                    failed.clear();
                }
                position_key(&rows[r..], remaining, &mut self.key);
                failed.insert(self.key.as_slice().into());
            }
        }
        total
    }

    /// [`split`](Self::split) once the first ship cell is known to be in row `r`.
    fn split_first_cell(&mut self, rows: &mut [u64], r: usize, remaining: &mut [u8]) -> u64 {
        let c = rows[r].trailing_zeros() as usize;
        let bit = 1u64 << c;
        let right = (rows[r] >> c).trailing_ones() as usize;
        let down = rows[r..]
            .iter()
            .take_while(|&&mask| mask & bit != 0)
            .count();
        let mut total = 0;
        for len in (1..remaining.len()).rev() {
            if remaining[len] == 0 {
                continue;
            }
            if self.meter.spend() {
                return total;
            }
            if len <= right {
                let mask = (u64::MAX >> (64 - len)) << c;
                rows[r] ^= mask;
                remaining[len] -= 1;
                total += self.split(&mut rows[r..], remaining);
                remaining[len] += 1;
                rows[r] ^= mask;
                if total > 0 && !self.count_all {
                    return total;
                }
            }
            // A ship of one cell lies both ways: count it once.
            if len > 1 && len <= down {
                rows[r..r + len].iter_mut().for_each(|mask| *mask ^= bit);
                remaining[len] -= 1;
                total += self.split(&mut rows[r..], remaining);
                remaining[len] += 1;
                rows[r..r + len].iter_mut().for_each(|mask| *mask ^= bit);
                if total > 0 && !self.count_all {
                    return total;
                }
            }
        }
        total
    }
}

/// A search position as a key: how many rows are left, the rows, then the ships left.
fn position_key(rows: &[u64], remaining: &[u8], key: &mut Vec<u64>) {
    key.clear();
    key.push(rows.len() as u64);
    key.extend_from_slice(rows);
    key.extend(remaining.iter().map(|&count| u64::from(count)));
}

/// Under separated rules: each 8-connected group must be a straight ship, and the ships
/// the fleet. `None` when they are.
fn separated_reason(field: &Field, fleet: &Fleet) -> Option<Reason> {
    let (width, height) = (field.width(), field.height());
    let mut left = field.rows().to_vec();
    let mut lengths = Vec::new();
    let mut stack = Vec::new();
    let mut group = Vec::new();
    while let Some(r0) = left.iter().position(|&mask| mask != 0) {
        let c0 = left[r0].trailing_zeros() as usize;
        left[r0] &= !(1 << c0);
        stack.push((r0, c0));
        group.clear();
        while let Some((r, c)) = stack.pop() {
            group.push((r, c));
            let (top, bottom) = (r.saturating_sub(1), (r + 1).min(height - 1));
            for (nr, mask) in left.iter_mut().enumerate().take(bottom + 1).skip(top) {
                for nc in c.saturating_sub(1)..=(c + 1).min(width - 1) {
                    if *mask >> nc & 1 == 1 {
                        *mask &= !(1 << nc);
                        stack.push((nr, nc));
                    }
                }
            }
        }
        group.sort_unstable();
        let same_row = group.iter().all(|&(r, _)| r == group[0].0);
        let same_col = group.iter().all(|&(_, c)| c == group[0].1);
        if !same_row && !same_col {
            return Some(match corner_contact(&group) {
                Some(cells) => Reason::CornerTouch { cells },
                None => Reason::NotStraight {
                    cells: group.clone(),
                },
            });
        }
        lengths.push(group.len());
    }
    lengths.sort_unstable_by(|a, b| b.cmp(a));
    (lengths != fleet.lengths()).then_some(Reason::WrongShips { found: lengths })
}

/// Two cells of the group that touch only at a corner, when the group is not connected by
/// edges alone; `None` if edges connect it.
fn corner_contact(group: &[(usize, usize)]) -> Option<[(usize, usize); 2]> {
    // Grow the edge-connected part of the first cell; if it misses cells, some cell of it
    // touches an outside cell diagonally.
    let mut part = vec![group[0]];
    let mut k = 0;
    while k < part.len() {
        let (r, c) = part[k];
        for &cell in group {
            if !part.contains(&cell) && r.abs_diff(cell.0) + c.abs_diff(cell.1) == 1 {
                part.push(cell);
            }
        }
        k += 1;
    }
    if part.len() == group.len() {
        return None;
    }
    for &(r, c) in &part {
        for &cell in group {
            if !part.contains(&cell) && r.abs_diff(cell.0) == 1 && c.abs_diff(cell.1) == 1 {
                let mut pair = [(r, c), cell];
                pair.sort_unstable();
                return Some(pair);
            }
        }
    }
    None
}

/// Parses `--fleet` for clap. A bad fleet is quoted once, cut short, by [`FleetError`]:
/// clap's own message for a bad value would quote all of it (a 10 KB message for 5,000
/// ships).
#[derive(Debug, Clone, Copy, Default)]
pub struct FleetParser;

impl clap::builder::TypedValueParser for FleetParser {
    type Value = Fleet;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Fleet, clap::Error> {
        let text = value.to_string_lossy();
        Fleet::parse(&text).map_err(|error| {
            let arg = arg.map_or_else(|| "--fleet".to_string(), ToString::to_string);
            clap::Error::raw(
                clap::error::ErrorKind::ValueValidation,
                format!("invalid value for '{arg}': {error}\n"),
            )
            .with_cmd(cmd)
        })
    }
}

impl std::str::FromStr for Fleet {
    type Err = FleetError;

    fn from_str(text: &str) -> Result<Self, FleetError> {
        Fleet::parse(text)
    }
}
