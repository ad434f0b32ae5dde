//! The transposition table: one machine word per entry, exact keys, replace always, and a
//! size that grows with the search.
//!
//! A key is first mixed by a multiplication by an odd constant, which is a bijection: the
//! top `bits` bits of the mixed key pick the entry, the rest are stored above the entry's
//! low 16 bits, which hold the table size the entry was stored under (`bits`, bits 8–13)
//! and an 8-bit value. Index and stored bits together give the whole key back, so a hit is
//! never a different position, on every board size. Zero is the empty entry (values start
//! at 1). Multiplying replaced a prime-sized table indexed by `key % size`: the two
//! divisions per node cost a quarter of the search time.
//!
//! Why the size changes: a probe that misses the processor's caches costs more than most
//! nodes' whole work, so a table no larger than the search needs is faster. So each
//! search starts small and the
//! table doubles as the search's node count outgrows it, up to the size asked for. The size
//! stamp lets a search start small again without clearing anything: entries stored under
//! another size simply miss.
//!
//! Threads searching one position share one table (lazy SMP), and one of them may grow it
//! while the others search: each entry is one atomic word (`u64` boards only; see
//! [`WideCell`](super::position::WideCell)), and an entry is read as a hit only under the
//! size stamp it was written with. A probe that reads the size just before a doubling
//! stores its entry under the old stamp, or a doubling overwrites it: it is lost or
//! misses, but no probe ever reads another position's value.

use std::sync::atomic::{AtomicU32, Ordering};

use super::position::{Bits, TableCell};

/// A table of bounds on position values, reused from position to position: a stored bound
/// holds for the position whatever search stored it. Entries are read and written, and
/// the table grown, through a shared reference.
#[derive(Debug)]
pub struct Table<M: Bits> {
    /// The allocation; the table proper starts at `offset`, on a huge-page boundary when it
    /// fills at least one.
    entries: Vec<M::Cell>,
    offset: usize,
    /// log2 of the number of entries in use now.
    bits: AtomicU32,
    /// log2 of the entries a search starts with, and of the most it may grow to.
    min_bits: u32,
    max_bits: u32,
    /// log2 of the most entries ever in use: the part of the table that may hold
    /// anything (the rest was never written, so clearing it would only fault its pages in).
    reached_bits: AtomicU32,
}

/// log2 of the fewest entries: the size stamp (6 bits above the value's 8) must sit below
/// the stored key bits, which start at bit `bits`.
const FLOOR_BITS: u32 = 14;

/// log2 of the entries a search starts with (1 MiB of `u64`): enough for most positions
/// with more than a dozen stones, and inside the processor's cache.
const START_BITS: u32 = 17;

impl<M: Bits> Table<M> {
    /// A table taking at most about `megabytes` MiB (at least 2¹⁴ entries), a power of two
    /// of entries, of which a search starts using the first 2¹⁷ (or all if fewer). If the
    /// system cannot give that much address space, the table is halved until it can: a
    /// smaller table only costs time.
    pub fn new(megabytes: usize) -> Self {
        let wanted =
            (megabytes.saturating_mul(1 << 20) / std::mem::size_of::<M>()).max(1 << FLOOR_BITS);
        let mut max_bits = usize::BITS - 1 - wanted.leading_zeros();
        let per_huge_page = HUGE_PAGE / std::mem::size_of::<M::Cell>();
        // Room to start the table on a huge-page boundary, for tables of at least one huge
        // page: a smaller one cannot be backed by one, and its padding would only be mapped.
        let padding = |bits: u32| {
            if 1usize << bits >= per_huge_page {
                per_huge_page
            } else {
                0
            }
        };
        let entries = loop {
            match zeroed_entries::<M>((1usize << max_bits) + padding(max_bits)) {
                Some(entries) => break entries,
                None if max_bits > FLOOR_BITS => max_bits -= 1,
                None => std::alloc::handle_alloc_error(
                    std::alloc::Layout::array::<M::Cell>((1 << max_bits) + padding(max_bits))
                        .expect("a small table's layout"),
                ),
            }
        };
        let size = 1usize << max_bits;
        let offset = if padding(max_bits) == 0 {
            0
        } else {
            let start = entries.as_ptr() as usize;
            let cell = std::mem::size_of::<M::Cell>();
            let offset = (start.next_multiple_of(HUGE_PAGE) - start) / cell;
            advise_huge_pages(start + offset * cell, size * cell);
            offset
        };
        let min_bits = START_BITS.min(max_bits);
        // The starting entries are touched now rather than in the middle of a search, where
        // the first touch of each page faults. Growing writes every entry of the larger size, so the rest of the
        // table is touched only if a search needs it.
        for entry in &entries[offset..offset + (1 << min_bits)] {
            entry.store(M::default());
        }
        Table {
            entries,
            offset,
            bits: AtomicU32::new(min_bits),
            min_bits,
            max_bits,
            reached_bits: AtomicU32::new(min_bits),
        }
    }

    /// log2 of the entries in use now.
    #[inline]
    fn bits(&self) -> u32 {
        self.bits.load(Ordering::Relaxed)
    }

    /// Forgets every entry.
    pub fn clear(&mut self) {
        let reached = *self.reached_bits.get_mut();
        for entry in &self.entries[self.offset..self.offset + (1 << reached)] {
            entry.store(M::default());
        }
    }

    /// Entries in use now.
    #[inline]
    pub fn len(&self) -> usize {
        1 << self.bits()
    }

    /// How many times the table has doubled since the current search started.
    pub fn doublings(&self) -> u32 {
        self.bits() - self.min_bits
    }

    /// Goes back to the starting size, for a new search. Nothing is cleared: what was
    /// stored under the starting size is still found, the rest misses.
    pub fn restart(&mut self) {
        *self.bits.get_mut() = self.min_bits;
    }

    /// Doubles the entries in use, moving every entry of the current size to its place in
    /// the new one; false if the table is already at its largest. Other threads may probe
    /// and store meanwhile (see the module's comment), but only one may grow it.
    pub fn grow(&self) -> bool {
        let bits = self.bits();
        if bits == self.max_bits {
            return false;
        }
        let old_stamp = stamp::<M>(bits);
        let new_stamp = stamp::<M>(bits + 1);
        let low = (M::ONE << bits) - M::ONE;
        let table = &self.entries[self.offset..self.offset + (2 << bits)];
        // Entry `i` moves to `2i` or `2i + 1` (its next key bit, the top of its stored
        // bits): from the top down, both targets hold entries already moved, or none.
        for i in (0..1usize << bits).rev() {
            let entry = table[i].load();
            table[2 * i].store(M::default());
            table[2 * i + 1].store(M::default());
            if !entry.is_zero() && (entry & low & !M::from_u64(0xff)) == old_stamp {
                let next_bit = (entry >> (M::BITS - 1)).low_u64() as usize;
                let moved = ((entry & !low) << 1) | new_stamp | (entry & M::from_u64(0xff));
                table[2 * i + next_bit].store(moved);
            }
        }
        self.bits.store(bits + 1, Ordering::Relaxed);
        self.reached_bits.fetch_max(bits + 1, Ordering::Relaxed);
        true
    }

    /// The entry's index and the entry `key` would have with value 0.
    #[inline]
    fn slot(&self, key: M) -> (usize, M) {
        let bits = self.bits();
        let mixed = key.mix();
        let index = (mixed >> (M::BITS - bits)).low_u64() as usize;
        (index, (mixed << bits) | stamp::<M>(bits))
    }

    /// Starts loading the entry of `key` into the cache: probes of a large table miss the
    /// cache, and a node's children are probed one after the other.
    #[inline]
    pub fn prefetch(&self, key: M) {
        #[cfg(target_arch = "x86_64")]
        {
            let (index, _) = self.slot(key);
            if let Some(entry) = self.entries.get(self.offset + index) {
                use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
                // SAFETY: a prefetch is only a hint (it never faults or changes memory), and
                // the pointer is to an element of `entries`; SSE is part of x86-64.
                unsafe { _mm_prefetch::<_MM_HINT_T0>((entry as *const M::Cell).cast::<i8>()) };
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Stores `value` (1 to 255) for `key`, replacing whatever was at its index.
    #[inline]
    pub fn put(&self, key: M, value: u8) {
        let (index, tag) = self.slot(key);
        // The index has `bits` bits, at least 14: it is inside the table, and the tag's
        // low 8 bits are free for the value.
        if let Some(slot) = self.entries.get(self.offset + index) {
            slot.store(tag | M::from_u64(value.into()));
        }
    }

    /// The value stored for `key`, or 0.
    #[inline]
    pub fn get(&self, key: M) -> u8 {
        let (index, tag) = self.slot(key);
        match self.entries.get(self.offset + index).map(TableCell::load) {
            Some(entry) if entry ^ tag < M::from_u64(256) => entry.low_u64() as u8,
            _ => 0,
        }
    }
}

/// `len` zero entries, or `None` if the allocation fails. The memory comes zeroed from
/// the system, which maps fresh pages as they are first touched, so a large table costs
/// nothing until the search uses it; `vec![0; len]` does the same but aborts the process
/// when the system refuses (a `--table-mb` beyond the machine's memory).
fn zeroed_entries<M: Bits>(len: usize) -> Option<Vec<M::Cell>> {
    let layout = std::alloc::Layout::array::<M::Cell>(len).ok()?;
    // SAFETY: the layout is not zero-sized (`len` ≥ 2¹⁴ entries of 8 or 16 bytes). A
    // non-null pointer is an allocation of the global allocator with exactly the layout a
    // `Vec<M::Cell>` of capacity `len` uses, so the vector may own and free it; its `len`
    // elements are initialised, because `Bits` is implemented only for `u64` and `u128`,
    // whose cells (an `AtomicU64`, two of them) hold the value zero as all-zero bytes.
    unsafe {
        let pointer = std::alloc::alloc_zeroed(layout).cast::<M::Cell>();
        (!pointer.is_null()).then(|| Vec::from_raw_parts(pointer, len, len))
    }
}

/// The size stamp of entries stored while `bits` index bits are in use.
#[inline]
fn stamp<M: Bits>(bits: u32) -> M {
    M::from_u64(u64::from(bits) << 8)
}

/// The size of a transparent huge page on x86-64 and aarch64 Linux.
const HUGE_PAGE: usize = 2 << 20;

/// Asks Linux to back `len` bytes at `address` (not yet touched) with huge pages: each probe
/// of a large table otherwise misses the TLB as well as the cache. Elsewhere a no-op.
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
        let table = Table::<u64>::new(1);
        let step = 1u64 << 17; // 2^17 entries of 8 bytes in 1 MiB
        assert_eq!(1u64 << table.bits(), step);
        table.put(5, 17);
        assert_eq!(table.get(5), 17);
        assert_eq!(table.get(6), 0);
        // Keys that land on the same entry miss rather than read each other's value.
        let key = 5u64;
        let index = table.slot(key).0;
        let other = (1..1u64 << 30)
            .map(|k| key + k)
            .find(|&k| table.slot(k).0 == index)
            .unwrap();
        assert_eq!(table.get(other), 0);
        table.put(other, 3);
        assert_eq!(table.get(key), 0);
        assert_eq!(table.get(other), 3);
        let mut wide = Table::<u128>::new(1);
        let key = (1u128 << 100) + 12345;
        wide.put(key, 200);
        assert_eq!(wide.get(key), 200);
        assert_eq!(wide.get(key + 1), 0);
        wide.clear();
        assert_eq!(wide.get(key), 0);
    }

    #[test]
    fn growing_keeps_every_entry_and_restarting_forgets_nothing_wrongly() {
        let mut table = Table::<u64>::new(4);
        assert_eq!(table.len(), 1 << START_BITS);
        // Distinct keys and values; later puts may replace earlier ones at the same index.
        let keys: Vec<u64> = (0..50_000u64).map(|i| i * 0x1_0001 + 7).collect();
        for (i, &key) in keys.iter().enumerate() {
            table.put(key, (i % 250 + 1) as u8);
        }
        let before: Vec<u8> = keys.iter().map(|&k| table.get(k)).collect();
        assert!(before.iter().filter(|&&v| v != 0).count() > 40_000);
        assert!(table.grow());
        assert_eq!(table.len(), 2 << START_BITS);
        let after: Vec<u8> = keys.iter().map(|&k| table.get(k)).collect();
        assert_eq!(before, after);
        // Stored under the larger size, a key misses after a restart instead of reading a
        // value meant for another key.
        let big_only = 123_456_789u64;
        table.put(big_only, 99);
        table.restart();
        assert_eq!(table.len(), 1 << START_BITS);
        assert_eq!(table.get(big_only), 0);
        for (i, &key) in keys.iter().enumerate() {
            let value = table.get(key);
            assert!(value == 0 || value == (i % 250 + 1) as u8);
        }
        // Growing again moves only the entries of the starting size.
        table.put(big_only, 42);
        assert!(table.grow());
        assert_eq!(table.get(big_only), 42);
        // 4 MiB is 2^19 entries: two doublings from the start, then no more.
        assert!(table.grow());
        assert!(!table.grow());
        assert_eq!(table.get(big_only), 42);
    }

    #[test]
    fn wide_keys_grow_too() {
        let table = Table::<u128>::new(8);
        let keys: Vec<u128> = (0..20_000u128).map(|i| (i << 90) + i * 31 + 1).collect();
        for (i, &key) in keys.iter().enumerate() {
            table.put(key, (i % 200 + 1) as u8);
        }
        let before: Vec<u8> = keys.iter().map(|&k| table.get(k)).collect();
        assert!(table.grow());
        let after: Vec<u8> = keys.iter().map(|&k| table.get(k)).collect();
        assert_eq!(before, after);
    }
}
