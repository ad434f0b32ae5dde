//! Reproducible random fleets, and broken ones, for datasets, tests and benchmarks.

use rand::{Rng, SeedableRng};

use super::field::Field;
use super::validate::{validate, Fleet, Rules};

/// Random tries [`random_fleet`] makes before it gives up.
pub const FLEET_TRIES: usize = 1000;

/// Places `fleet` at random on an empty `width × height` field, ships straight and, under
/// [`Rules::Separated`], not touching. `None` if no placement was found in
/// [`FLEET_TRIES`] random tries: the field may be too small for the fleet, or a placement
/// may be too rare to be found at random (see [`no_room`] for a proof that it does not fit).
pub fn random_fleet<R: Rng>(
    width: usize,
    height: usize,
    fleet: &Fleet,
    rules: Rules,
    rng: &mut R,
) -> Option<Field> {
    'attempt: for _ in 0..FLEET_TRIES {
        let mut field = Field::empty(width, height).ok()?;
        // Cells no ship may take (ship cells, and under separated rules their neighbours).
        let mut blocked = Field::empty(width, height).ok()?;
        for len in fleet.lengths() {
            let mut placed = false;
            for _ in 0..200 {
                let across = rng.gen_bool(0.5);
                let (w, h) = if across { (len, 1) } else { (1, len) };
                if w > width || h > height {
                    continue;
                }
                let (row, col) = (rng.gen_range(0..=height - h), rng.gen_range(0..=width - w));
                let cells: Vec<(usize, usize)> = (0..len)
                    .map(|k| {
                        if across {
                            (row, col + k)
                        } else {
                            (row + k, col)
                        }
                    })
                    .collect();
                if cells.iter().any(|&(r, c)| blocked.get(r, c)) {
                    continue;
                }
                for &(r, c) in &cells {
                    field.set(r, c, true);
                    let reach = usize::from(rules == Rules::Separated);
                    for nr in r.saturating_sub(reach)..=(r + reach).min(height - 1) {
                        for nc in c.saturating_sub(reach)..=(c + reach).min(width - 1) {
                            blocked.set(nr, nc, true);
                        }
                    }
                }
                placed = true;
                break;
            }
            if !placed {
                continue 'attempt;
            }
        }
        return Some(field);
    }
    None
}

/// Why `fleet` cannot fit on a `width × height` field under `rules`, when that can be
/// proved simply: a ship longer than both sides, more ship cells than the field has, or
/// (ships separated) more than fit with the gaps between them: each ship of length `n`
/// with the cells right of and below it takes an `(n + 1) × 2` block of the
/// `(width + 1) × (height + 1)` field widened by one row and column, the blocks of
/// different ships disjoint. `None` when no such proof applies, whether it fits or not.
pub fn no_room(width: usize, height: usize, fleet: &Fleet, rules: Rules) -> Option<String> {
    let longest = fleet.longest();
    if longest > width.max(height) {
        return Some(format!(
            "a ship of {longest} cells is longer than the field's sides"
        ));
    }
    let cells = fleet.cells();
    if cells > width * height {
        return Some(format!(
            "its {cells} ship cells are more than the field's {}",
            width * height
        ));
    }
    if rules == Rules::Separated {
        let blocks: usize = fleet.lengths().iter().map(|len| (len + 1) * 2).sum();
        let room = (width + 1) * (height + 1);
        if blocks > room {
            return Some(format!(
                "its ships with the gaps they need take {blocks} cells of the {room} of the field widened by one row and column"
            ));
        }
    }
    None
}

/// Flips one random cell: a ship cell becomes water or water a ship cell.
pub fn flip_random_cell<R: Rng>(field: &mut Field, rng: &mut R) {
    let (row, col) = (
        rng.gen_range(0..field.height()),
        rng.gen_range(0..field.width()),
    );
    let ship = field.get(row, col);
    field.set(row, col, !ship);
}

/// A random field of each cell a ship with probability `density`: mostly invalid fields,
/// to exercise every reason.
pub fn random_cells<R: Rng>(width: usize, height: usize, density: f64, rng: &mut R) -> Field {
    let mut field = Field::empty(width, height).expect("callers pass a supported size");
    for row in 0..height {
        for col in 0..width {
            if rng.gen_bool(density) {
                field.set(row, col, true);
            }
        }
    }
    field
}

/// Moves one random ship cell to a random water cell: the cell count stays right, but the
/// ships usually do not.
pub fn move_random_cell<R: Rng>(field: &mut Field, rng: &mut R) {
    let cells: Vec<(usize, usize)> = (0..field.height())
        .flat_map(|r| (0..field.width()).map(move |c| (r, c)))
        .collect();
    let ships: Vec<&(usize, usize)> = cells.iter().filter(|&&(r, c)| field.get(r, c)).collect();
    let water: Vec<&(usize, usize)> = cells.iter().filter(|&&(r, c)| !field.get(r, c)).collect();
    if ships.is_empty() || water.is_empty() {
        return;
    }
    let &(from_row, from_col) = ships[rng.gen_range(0..ships.len())];
    let &(to_row, to_col) = water[rng.gen_range(0..water.len())];
    field.set(from_row, from_col, false);
    field.set(to_row, to_col, true);
}

/// Moves made from the same field before [`break_by_moving`] flips a cell instead.
const MOVE_TRIES: usize = 100;

/// Moves one random ship cell of `field` so that it no longer holds `fleet` under
/// `rules`. A move can leave the fleet whole (a one-cell ship moved to open water), so up
/// to [`MOVE_TRIES`] moves are tried from the same field; then one cell is flipped, which
/// changes the number of ship cells and so always breaks the fleet.
pub fn break_by_moving<R: Rng>(field: &mut Field, fleet: &Fleet, rules: Rules, rng: &mut R) {
    for _ in 0..MOVE_TRIES {
        let mut moved = field.clone();
        move_random_cell(&mut moved, rng);
        if !validate(&moved, fleet, rules, false).is_valid() {
            *field = moved;
            return;
        }
    }
    flip_random_cell(field, rng);
}

/// What to generate: a file of fields, some broken on purpose (the settings of
/// `battleship generate`).
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct FieldBatch {
    /// Number of fields.
    #[arg(long, default_value_t = 1000)]
    pub count: usize,
    /// Random seed: the same seed gives the same fields.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Whether ships may touch.
    #[arg(long, value_enum, default_value_t = Rules::Touching)]
    pub rules: Rules,
    /// Ship lengths, separated by commas.
    #[arg(long, default_value_t = Fleet::classic(), value_parser = crate::battleship::FleetParser)]
    pub fleet: Fleet,
    /// Field size WIDTHxHEIGHT.
    #[arg(long, value_name = "WxH", default_value = "10x10", value_parser = crate::battleship::parse_size)]
    pub size: (usize, usize),
    /// Share of fields broken on purpose, each one so that it no longer holds the fleet:
    /// of those, half get one ship cell moved, four in ten one cell flipped, one in ten a
    /// character that is not a cell.
    #[arg(long, default_value_t = 0.0)]
    pub faults: f64,
}

/// Why a batch of fields cannot be generated.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FieldBatchError {
    /// A share outside 0 to 1.
    #[error("--faults is a share between 0 and 1, not {0}")]
    Faults(f64),
    /// The fleet cannot be placed, and why (see [`no_room`]).
    #[error("the fleet {fleet} does not fit on a {width}x{height} field: {why}")]
    NoRoom {
        /// The fleet.
        fleet: Fleet,
        /// Field width.
        width: usize,
        /// Field height.
        height: usize,
        /// The proof.
        why: String,
    },
    /// No placement of the fleet was found at random; it may still fit.
    #[error("no placement of the fleet {fleet} on a {width}x{height} field was found in {tries} random tries (the fleet may still fit)")]
    GaveUp {
        /// The fleet.
        fleet: Fleet,
        /// Field width.
        width: usize,
        /// Field height.
        height: usize,
        /// Random tries made.
        tries: usize,
    },
}

impl FieldBatch {
    /// Checks the settings before anything is written: the share of faults, and that the
    /// fleet is not provably too large for the field (see [`no_room`]).
    pub fn check(&self) -> Result<(), FieldBatchError> {
        if !(0.0..=1.0).contains(&self.faults) {
            return Err(FieldBatchError::Faults(self.faults));
        }
        let (width, height) = self.size;
        match no_room(width, height, &self.fleet, self.rules) {
            Some(why) => Err(FieldBatchError::NoRoom {
                fleet: self.fleet.clone(),
                width,
                height,
                why,
            }),
            None => Ok(()),
        }
    }
}

/// Writes the fields of `batch`, one per line, to `out`.
pub fn write_fields(
    batch: &FieldBatch,
    out: &mut dyn std::io::Write,
) -> Result<(), GenerateFieldsError> {
    batch.check()?;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(batch.seed);
    for _ in 0..batch.count {
        let (width, height) = batch.size;
        let Some(mut field) = random_fleet(width, height, &batch.fleet, batch.rules, &mut rng)
        else {
            return Err(FieldBatchError::GaveUp {
                fleet: batch.fleet.clone(),
                width,
                height,
                tries: FLEET_TRIES,
            }
            .into());
        };
        let mut garbled = false;
        if rng.gen_bool(batch.faults) {
            match rng.gen_range(0..10) {
                0 => garbled = true,
                1..=5 => break_by_moving(&mut field, &batch.fleet, batch.rules, &mut rng),
                _ => flip_random_cell(&mut field, &mut rng),
            }
        }
        let mut line = field.to_line();
        if garbled {
            let at = rng.gen_range(0..line.len());
            line.replace_range(at..at + 1, "?");
        }
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// Why writing a batch of fields failed.
#[derive(Debug, thiserror::Error)]
pub enum GenerateFieldsError {
    /// The batch cannot be generated.
    #[error(transparent)]
    Batch(#[from] FieldBatchError),
    /// The output could not be written.
    #[error("cannot write the fields")]
    Write(#[from] std::io::Error),
}
