//! Shards of a run: `--shard K/N` processes only every N-th record of the inputs.
//!
//! Record `i` (0-based, counted over all inputs in order, blank and comment lines not
//! counted) belongs to shard `i mod N + 1`. The rule needs no coordination between tasks,
//! gives every record to exactly one shard, keeps shards within one record of each other
//! whatever the records' order, and works on standard input, `.gz` files and CSV alike,
//! where a byte range could not be found without reading what comes before it. Each task
//! still reads the whole input; reading is a small share of the work next to solving.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// One shard of N: the records whose index modulo `count` is `index`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// 0-based shard number (`K - 1`).
    index: u64,
    /// Shards in all (`N`).
    count: u64,
}

/// Why a `K/N` shard cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ShardError {
    /// The text is not of the form `K/N`.
    #[error("shard {0:?} is not K/N (e.g. 2/8: the second of eight shards)")]
    Syntax(String),
    /// N is 0.
    #[error("shard {k}/0: N is how many shards there are, at least 1")]
    NoShards {
        /// The shard asked for.
        k: u64,
    },
    /// K is 0 or greater than N.
    #[error("shard {k}/{n}: K counts from 1 to N, so {k} is not a shard of {n}")]
    OutOfRange {
        /// The shard asked for.
        k: u64,
        /// Shards in all.
        n: u64,
    },
}

impl Shard {
    /// Shard `k` (1-based) of `n`.
    pub fn new(k: u64, n: u64) -> Result<Shard, ShardError> {
        if n == 0 {
            return Err(ShardError::NoShards { k });
        }
        if k == 0 || k > n {
            return Err(ShardError::OutOfRange { k, n });
        }
        Ok(Shard {
            index: k - 1,
            count: n,
        })
    }

    /// The shard's number, `K`, from 1 to `N`.
    pub fn number(&self) -> u64 {
        self.index + 1
    }

    /// Shards in all (`N`).
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Whether record `index` (0-based over all inputs) is in this shard.
    pub fn holds(&self, index: u64) -> bool {
        index % self.count == self.index
    }

    /// How many of the records `first..first + records` are in this shard.
    pub fn records_in(&self, first: u64, records: u64) -> u64 {
        let below = |end: u64| end.saturating_sub(self.index).div_ceil(self.count);
        below(first + records) - below(first)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index + 1, self.count)
    }
}

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(text: &str) -> Result<Shard, ShardError> {
        let syntax = || ShardError::Syntax(text.to_string());
        let (k, n) = text.trim().split_once('/').ok_or_else(syntax)?;
        let k = k.trim().parse().map_err(|_| syntax())?;
        let n = n.trim().parse().map_err(|_| syntax())?;
        Shard::new(k, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_record_goes_to_exactly_one_shard() {
        for n in 1..=5u64 {
            let shards: Vec<Shard> = (1..=n).map(|k| Shard::new(k, n).unwrap()).collect();
            for i in 0..40 {
                assert_eq!(shards.iter().filter(|s| s.holds(i)).count(), 1);
            }
            for shard in &shards {
                for first in 0..12 {
                    for records in 0..12 {
                        let counted = (first..first + records).filter(|&i| shard.holds(i)).count();
                        assert_eq!(shard.records_in(first, records), counted as u64);
                    }
                }
            }
        }
    }

    #[test]
    fn bad_shards_are_named() {
        assert_eq!("2/3".parse::<Shard>().unwrap().to_string(), "2/3");
        assert_eq!(
            "3/2".parse::<Shard>().unwrap_err().to_string(),
            "shard 3/2: K counts from 1 to N, so 3 is not a shard of 2"
        );
        assert_eq!(
            "1/0".parse::<Shard>().unwrap_err().to_string(),
            "shard 1/0: N is how many shards there are, at least 1"
        );
        assert!(matches!(
            "0/2".parse::<Shard>(),
            Err(ShardError::OutOfRange { .. })
        ));
        assert!(matches!(
            "1/0".parse::<Shard>(),
            Err(ShardError::NoShards { k: 1 })
        ));
        assert_eq!(
            "two".parse::<Shard>().unwrap_err().to_string(),
            "shard \"two\" is not K/N (e.g. 2/8: the second of eight shards)"
        );
    }
}
