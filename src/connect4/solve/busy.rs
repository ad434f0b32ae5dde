//! The positions other threads are searching now, so that threads searching one position
//! together split its tree instead of searching the same subtrees side by side (the
//! "deferred" idea of ABDADA, in its simplified form: a small table of keys, no counts).
//!
//! A thread marks a child before searching it and unmarks it after. A node's later
//! children that another thread has marked are searched last: by then that thread has
//! usually stored their bounds, and the node reads them from the transposition table.
//! Marks are hints only: a lost or stale mark changes the order of a search, never its
//! value.

use std::sync::atomic::{AtomicU64, Ordering};

use super::position::Bits;

/// log2 of the slots: a few thousand positions are marked at most (the threads' paths
/// from the root), so collisions between them are rare.
const SLOT_BITS: u32 = 14;

/// Keys of the positions being searched, one per slot, 0 for none.
#[derive(Debug)]
pub struct Busy {
    slots: Box<[AtomicU64]>,
}

impl Default for Busy {
    fn default() -> Self {
        Busy {
            slots: (0..1 << SLOT_BITS).map(|_| AtomicU64::new(0)).collect(),
        }
    }
}

impl Busy {
    /// The slot of `key` and the word stored for it (never 0).
    #[inline]
    fn slot<M: Bits>(&self, key: M) -> (&AtomicU64, u64) {
        let mixed = key.mix();
        let word = mixed.low_u64() | 1;
        let index = (mixed >> (M::BITS - SLOT_BITS)).low_u64() as usize;
        (&self.slots[index], word)
    }

    /// Whether some thread has marked `key`.
    #[inline]
    pub fn is_marked<M: Bits>(&self, key: M) -> bool {
        let (slot, word) = self.slot(key);
        slot.load(Ordering::Relaxed) == word
    }

    /// Marks `key` as being searched.
    #[inline]
    pub fn mark<M: Bits>(&self, key: M) {
        let (slot, word) = self.slot(key);
        slot.store(word, Ordering::Relaxed);
    }

    /// Takes the mark of `key` away, unless another key took its slot since.
    #[inline]
    pub fn unmark<M: Bits>(&self, key: M) {
        let (slot, word) = self.slot(key);
        let _ = slot.compare_exchange(word, 0, Ordering::Relaxed, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_are_per_key_and_taken_away() {
        let busy = Busy::default();
        busy.mark(12_345u64);
        assert!(busy.is_marked(12_345u64));
        assert!(!busy.is_marked(12_346u64));
        busy.unmark(12_345u64);
        assert!(!busy.is_marked(12_345u64));
        // A key that took the slot keeps its mark when the first key's is taken away.
        let index = |key: u64| key.mix() >> (64 - SLOT_BITS);
        let other = (1..1u64 << 24)
            .map(|k| 12_345 + k)
            .find(|&k| index(k) == index(12_345))
            .expect("a key in the same slot");
        busy.mark(12_345u64);
        busy.mark(other);
        busy.unmark(12_345u64);
        assert!(busy.is_marked(other));
    }
}
