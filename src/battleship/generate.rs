//! Reproducible random fleets, and broken ones, for datasets, tests and benchmarks.

use rand::{Rng, SeedableRng};

use super::field::Field;
use super::validate::{Fleet, Rules};

/// Places `fleet` at random on an empty `width × height` field, ships straight and, under
/// [`Rules::Separated`], not touching. `None` if no placement was found in many tries (the
/// field is too small for the fleet).
pub fn random_fleet<R: Rng>(
    width: usize,
    height: usize,
    fleet: &Fleet,
    rules: Rules,
    rng: &mut R,
) -> Option<Field> {
    'attempt: for _ in 0..1000 {
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
    #[arg(long, default_value_t = Fleet::classic())]
    pub fleet: Fleet,
    /// Field size WIDTHxHEIGHT.
    #[arg(long, value_name = "WxH", default_value = "10x10", value_parser = crate::battleship::parse_size)]
    pub size: (usize, usize),
    /// Share of fields broken on purpose: of those, half get one ship cell moved, four in
    /// ten one cell flipped, one in ten a character that is not a cell.
    #[arg(long, default_value_t = 0.0)]
    pub faults: f64,
}

/// Why a batch of fields cannot be generated.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FieldBatchError {
    /// A share outside 0 to 1.
    #[error("--faults is a share between 0 and 1, not {0}")]
    Faults(f64),
    /// The fleet cannot be placed.
    #[error("the fleet {fleet} does not fit on a {width}x{height} field")]
    NoRoom {
        /// The fleet.
        fleet: Fleet,
        /// Field width.
        width: usize,
        /// Field height.
        height: usize,
    },
}

impl FieldBatch {
    /// Checks the settings before anything is written.
    pub fn check(&self) -> Result<(), FieldBatchError> {
        if (0.0..=1.0).contains(&self.faults) {
            Ok(())
        } else {
            Err(FieldBatchError::Faults(self.faults))
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
            return Err(FieldBatchError::NoRoom {
                fleet: batch.fleet.clone(),
                width,
                height,
            }
            .into());
        };
        let mut garbled = false;
        if rng.gen_bool(batch.faults) {
            match rng.gen_range(0..10) {
                0 => garbled = true,
                1..=5 => move_random_cell(&mut field, &mut rng),
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
