//! The transposition table: buckets of two one-word entries with exact keys, one entry kept
//! for the most work and one always replaced.
//!
//! A key is first mixed by a multiplication by an odd constant, which is a bijection: the
//! top `bits` bits of the mixed key pick the bucket, the rest are stored above the entry's
//! fields (value and work). Bucket and stored bits together give the whole key
//! back, so a hit is never a different position, on every board size. Zero is the empty
//! entry (values start at 1). Multiplying replaced a prime-sized table indexed by
//! `key % size`: the two divisions per node cost a quarter of the search time.
//!
//! Two entries per bucket, one kept for the search that took the most work (a position
//! near the root of a big subtree) and one always replaced, in place of one entry replaced
//! always: measured on the first 100 positions of the 8-ply database (weak, 64 MiB, one
//! thread), 14% fewer nodes (2.62 → 2.26 million per position), as the big subtrees stay
//! stored from one position to the next.

use super::position::Bits;

/// Bits below the key in an entry: the value (8 bits) and the work (5 bits: the bit length
/// of the number of nodes the search of the position took).
const FIELD_BITS: u32 = 13;
const WORK_SHIFT: u32 = 8;

/// A table of bounds on position values, reused from position to position: a stored bound
/// holds for the position whatever search stored it.
#[derive(Debug, Clone)]
pub struct Table<M> {
    /// The allocation; the table proper starts at `offset`, on a huge-page boundary. Bucket
    /// `i` is entries `2i` (the one of most work) and `2i + 1` (the latest).
    entries: Vec<M>,
    offset: usize,
    /// log2 of the number of buckets, at least `FIELD_BITS`.
    bits: u32,
}

impl<M: Bits> Table<M> {
    /// A table taking at most about `megabytes` MiB (at least 2¹³ buckets), a power of two
    /// of buckets.
    pub fn new(megabytes: usize) -> Self {
        let wanted = ((megabytes << 20) / (2 * std::mem::size_of::<M>())).max(1 << FIELD_BITS);
        let bits = usize::BITS - 1 - wanted.leading_zeros();
        let size = 2usize << bits;
        let per_huge_page = HUGE_PAGE / std::mem::size_of::<M>();
        let mut entries: Vec<M> = Vec::with_capacity(size + per_huge_page);
        let start = entries.as_ptr() as usize;
        let offset = (start.next_multiple_of(HUGE_PAGE) - start) / std::mem::size_of::<M>();
        advise_huge_pages(
            start + offset * std::mem::size_of::<M>(),
            size * std::mem::size_of::<M>(),
        );
        // Written out now rather than zeroed lazily by the system: otherwise the first
        // touch of each page faults in the middle of a search (measured: End-Easy went from
        // 185 µs to 24 µs per position).
        entries.resize(offset + size, M::default());
        Table {
            entries,
            offset,
            bits,
        }
    }

    /// Forgets every entry.
    pub fn clear(&mut self) {
        self.entries.fill(M::default());
    }

    /// The index of the bucket's first entry, and the entry `key` would have with every
    /// field 0.
    #[inline]
    fn slot(&self, key: M) -> (usize, M) {
        let mixed = key.mix();
        let bucket = (mixed >> (M::BITS - self.bits)).low_u64() as usize;
        (self.offset + 2 * bucket, mixed << self.bits)
    }

    /// Starts loading the bucket of `key` into the cache: probes of a large table miss the
    /// cache, and a node's children are probed one after the other.
    #[inline]
    pub fn prefetch(&self, key: M) {
        #[cfg(target_arch = "x86_64")]
        {
            let (index, _) = self.slot(key);
            if let Some(entry) = self.entries.get(index) {
                use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
                // SAFETY: a prefetch is only a hint (it never faults or changes memory), and
                // the pointer is to an element of `entries`; SSE is part of x86-64.
                unsafe { _mm_prefetch::<_MM_HINT_T0>((entry as *const M).cast::<i8>()) };
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Stores `value` (1 to 255) for `key`, whose search took `nodes` nodes: in the bucket's
    /// first entry if it holds the same key or no more work, else in its second.
    #[inline]
    pub fn put(&mut self, key: M, value: u8, nodes: u64) {
        let (index, tag) = self.slot(key);
        let work = (u64::BITS - nodes.leading_zeros()).min(31);
        // The bucket index has `bits` bits, at least `FIELD_BITS`: the tag's low
        // `FIELD_BITS` bits are free for the fields.
        let entry = tag | M::from_u64(u64::from(value) | u64::from(work) << WORK_SHIFT);
        let Some(first) = self.entries.get(index).copied() else {
            return;
        };
        let first_work = (first.low_u64() >> WORK_SHIFT) as u32 & 31;
        let same_key = (first ^ tag) < M::from_u64(1 << FIELD_BITS);
        let index = if same_key || work >= first_work {
            index
        } else {
            index + 1
        };
        if let Some(slot) = self.entries.get_mut(index) {
            *slot = entry;
        }
    }

    /// The value stored for `key`, or 0.
    #[inline]
    pub fn get(&self, key: M) -> u8 {
        let (index, tag) = self.slot(key);
        let found = |i: usize| match self.entries.get(i) {
            Some(&entry) if (entry ^ tag) < M::from_u64(1 << FIELD_BITS) => {
                Some(entry.low_u64() as u8)
            }
            _ => None,
        };
        found(index).or_else(|| found(index + 1)).unwrap_or(0)
    }
}

/// The size of a transparent huge page on x86-64 and aarch64 Linux.
const HUGE_PAGE: usize = 2 << 20;

/// Asks Linux to back `len` bytes at `address` (not yet touched) with huge pages: each probe
/// of a large table otherwise misses the TLB as well as the cache. Measured on Begin-Hard
/// positions: a third less time per node (0.98 s → 0.65 s with the prefetch). Elsewhere a no-op.
fn advise_huge_pages(address: usize, len: usize) {
    #[cfg(target_os = "linux")]
    // SAFETY: madvise only changes how the kernel backs the pages of this range, which lies
    // inside an allocation we own (capacity reserved above); it never reads or writes them.
    // A failure (no huge pages on this system) leaves ordinary pages: the result is unused.
    unsafe {
        libc::madvise(address as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (address, len);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_keys() {
        let mut table = Table::<u64>::new(1);
        assert_eq!(1usize << table.bits, (1 << 20) / 16);
        table.put(5, 17, 100);
        assert_eq!(table.get(5), 17);
        assert_eq!(table.get(6), 0);
        // Keys that land on the same bucket miss rather than read each other's value.
        let key = 5u64;
        let index = table.slot(key).0;
        let mut others = (1..1u64 << 40)
            .map(|k| key + k)
            .filter(|&k| table.slot(k).0 == index);
        let (other, third) = (others.next().unwrap(), others.next().unwrap());
        assert_eq!(table.get(other), 0);
        // Less work than the first entry's: into the second entry, both kept.
        table.put(other, 3, 10);
        assert_eq!(table.get(key), 17);
        assert_eq!(table.get(other), 3);
        // A third key replaces the second entry, never the one of most work.
        table.put(third, 9, 1);
        assert_eq!(table.get(key), 17);
        assert_eq!(table.get(other), 0);
        assert_eq!(table.get(third), 9);
        // More work takes the first entry.
        table.put(other, 4, 1 << 20);
        assert_eq!(table.get(other), 4);
        assert_eq!(table.get(key), 0);
        let mut wide = Table::<u128>::new(1);
        let key = (1u128 << 100) + 12345;
        wide.put(key, 200, 1);
        assert_eq!(wide.get(key), 200);
        assert_eq!(wide.get(key + 1), 0);
        wide.clear();
        assert_eq!(wide.get(key), 0);
    }
}
