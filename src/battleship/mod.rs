//! Battleship fields: is a grid of ship cells a legal fleet, with ships that may touch
//! (the seed article's rules) or must not (the classic game)?
//!
//! The decision is exact. Under touching rules the ship cells must split into straight
//! ships of the fleet's lengths: a search over the first uncovered cell (which ship length,
//! right or down) on one bit mask per row. Under separated rules every 8-connected group of
//! cells must be one straight ship, and the ships the fleet.
//!
//! ```
//! use puzzlebench::battleship::{validate, Field, FieldFormat, Fleet, Rules};
//!
//! let seed = "1000000000 1110000010 1100000010 1100000000 1100000010 \
//!             1100111000 1000000010 0000000000 0000000000 0000000000";
//! let field = Field::parse(seed, FieldFormat::Auto, None).unwrap();
//! assert!(validate(&field, &Fleet::classic(), Rules::Touching, false).is_valid());
//! assert!(!validate(&field, &Fleet::classic(), Rules::Separated, false).is_valid());
//! ```

mod field;
pub mod generate;
mod job;
mod simd_rows;
mod validate;

pub use field::{cell_name, parse_size, Field, FieldError, FieldFormat, MAX_HEIGHT, MAX_WIDTH};
pub use job::{ValidateJob, ValidatePuzzle, ValidateSettings};
pub use validate::{
    validate, validate_within, Fleet, FleetError, FleetParser, Reason, Rules, Verdict,
};

use crate::batch::counted;
