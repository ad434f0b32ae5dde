//! A chunk's formatted rows, appended by the worker processing the chunk and taken early,
//! whole rows only, by the writer while a slow record holds the chunk back.
//!
//! Appending a row is a copy and a release store of the new length, with no lock: a lock
//! and an unlock per row were about 2% of a run over easy Sudokus on two threads (`perf`,
//! 2026-11-28), for rows that the writer almost never takes early. The lock is taken only
//! to grow the buffer, to take rows early and to finish.

use std::mem::ManuallyDrop;
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// The rows' buffer. Its pointer and capacity change only under the lock, by the appender.
struct Allocation {
    /// The buffer's start (null once the appender has finished).
    start: *mut u8,
    capacity: usize,
    /// Bytes the writer has taken early.
    taken: usize,
}

/// Rows shared by one [`RowAppender`] and the writer.
pub(crate) struct PublishedRows {
    allocation: Mutex<Allocation>,
    /// Bytes of whole rows: stored (release) after the rows' bytes are written, loaded
    /// (acquire) before they are read.
    committed: AtomicUsize,
}

// SAFETY: the buffer is only read below `committed`, by a reader holding the lock; the
// single appender writes at or above `committed` without the lock and replaces the buffer
// only while holding it. The buffer is a `Vec<u8>`'s, which any thread may free.
unsafe impl Send for PublishedRows {}
// SAFETY: as for `Send`: every access through `&PublishedRows` follows that protocol.
unsafe impl Sync for PublishedRows {}

/// The only writer of a [`PublishedRows`]: the worker processing the chunk.
pub(crate) struct RowAppender {
    rows: Arc<PublishedRows>,
    /// The allocation's start and capacity, as the appender last set them.
    start: *mut u8,
    capacity: usize,
    /// Bytes appended: every one of them published.
    len: usize,
}

// SAFETY: the appender owns the right to write the buffer above `committed`; moving it to
// another thread moves that right.
unsafe impl Send for RowAppender {}

impl PublishedRows {
    /// Rows with no buffer yet, and their only appender.
    pub(crate) fn new() -> (Arc<PublishedRows>, RowAppender) {
        let rows = Arc::new(PublishedRows {
            allocation: Mutex::new(Allocation {
                start: ptr::null_mut(),
                capacity: 0,
                taken: 0,
            }),
            committed: AtomicUsize::new(0),
        });
        let appender = RowAppender {
            rows: Arc::clone(&rows),
            start: ptr::null_mut(),
            capacity: 0,
            len: 0,
        };
        (rows, appender)
    }

    fn lock(&self) -> MutexGuard<'_, Allocation> {
        // Nothing panics while holding the lock but allocation failure, which aborts.
        self.allocation
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The whole rows appended since the last call (none once the appender has finished).
    pub(crate) fn take_early(&self) -> Vec<u8> {
        let mut allocation = self.lock();
        if allocation.start.is_null() {
            return Vec::new();
        }
        let end = self.committed.load(Ordering::Acquire);
        let from = allocation.taken;
        // SAFETY: bytes below `committed` were written before it was stored, and the
        // appender neither writes them again nor moves them while the lock is held.
        let rows = unsafe { std::slice::from_raw_parts(allocation.start.add(from), end - from) };
        allocation.taken = end;
        rows.to_vec()
    }
}

impl Drop for PublishedRows {
    fn drop(&mut self) {
        let allocation = self
            .allocation
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        if !allocation.start.is_null() {
            // SAFETY: the buffer is a `Vec<u8>`'s, given up by `RowAppender::install`.
            drop(unsafe { Vec::from_raw_parts(allocation.start, 0, allocation.capacity) });
        }
    }
}

impl RowAppender {
    /// Appends `bytes`, a whole row or several, and publishes them.
    #[inline]
    pub(crate) fn push_rows(&mut self, bytes: &[u8]) {
        if self.capacity - self.len < bytes.len() {
            self.grow(bytes.len());
        }
        // SAFETY: the buffer has room for `bytes` past `len`, which no reader touches.
        unsafe { copy_row(bytes, self.start.add(self.len)) };
        self.len += bytes.len();
        self.rows.committed.store(self.len, Ordering::Release);
    }

    /// Uses `buffer`'s room (a recycled buffer's) for the rows, if none are appended yet.
    pub(crate) fn reuse(&mut self, mut buffer: Vec<u8>) {
        if self.len > 0 || buffer.capacity() <= self.capacity {
            return;
        }
        buffer.clear();
        self.install(buffer);
    }

    /// Moves the rows to a buffer with room for `more` bytes after them.
    #[cold]
    fn grow(&mut self, more: usize) {
        let wanted = (self.len + more).max(2 * self.capacity).max(4096);
        let mut buffer = Vec::with_capacity(wanted);
        if self.len > 0 {
            // SAFETY: the appender's own bytes, written and published. Readers may read
            // them meanwhile (reading only), and the old buffer stays in place until
            // `install` swaps it under the lock.
            buffer.extend_from_slice(unsafe { std::slice::from_raw_parts(self.start, self.len) });
        }
        self.install(buffer);
    }

    /// Makes `buffer` (holding the rows appended so far) the rows' buffer, under the lock,
    /// and frees the old one.
    fn install(&mut self, buffer: Vec<u8>) {
        let mut buffer = ManuallyDrop::new(buffer);
        let mut allocation = self.rows.lock();
        let old = (allocation.start, allocation.capacity);
        allocation.start = buffer.as_mut_ptr();
        allocation.capacity = buffer.capacity();
        self.start = allocation.start;
        self.capacity = allocation.capacity;
        drop(allocation);
        if !old.0.is_null() {
            // SAFETY: the old buffer was a `Vec<u8>`'s; no reader holds it (a reader
            // holds the lock while it reads, and the pointer is swapped under it).
            drop(unsafe { Vec::from_raw_parts(old.0, 0, old.1) });
        }
    }

    /// The rows the writer has not taken early, when the chunk is done.
    pub(crate) fn finish(self) -> Vec<u8> {
        let mut allocation = self.rows.lock();
        let taken = allocation.taken;
        let start = std::mem::replace(&mut allocation.start, ptr::null_mut());
        drop(allocation);
        if start.is_null() {
            return Vec::new();
        }
        // SAFETY: the buffer was a `Vec<u8>`'s with this capacity, its first `len` bytes
        // written; no reader can reach it once `start` is null.
        let mut rows = unsafe { Vec::from_raw_parts(start, self.len, self.capacity) };
        rows.drain(..taken);
        rows
    }
}

/// Copies `bytes` to `to`. A row of 33 to 128 bytes (an easy Sudoku's is about 105) is
/// copied as two fixed-size blocks that overlap in the middle, inline: the call to
/// `memcpy` and its choice by size cost more than the copy.
///
/// # Safety
/// `to` must be valid for writing `bytes.len()` bytes, apart from `bytes`.
#[inline(always)]
unsafe fn copy_row(bytes: &[u8], to: *mut u8) {
    let (from, n) = (bytes.as_ptr(), bytes.len());
    // SAFETY: each copy reads within `bytes` and writes within the `n` bytes at `to`.
    unsafe {
        match n {
            65..=128 => {
                ptr::copy_nonoverlapping(from, to, 64);
                ptr::copy_nonoverlapping(from.add(n - 64), to.add(n - 64), 64);
            }
            33..=64 => {
                ptr::copy_nonoverlapping(from, to, 32);
                ptr::copy_nonoverlapping(from.add(n - 32), to.add(n - 32), 32);
            }
            _ => ptr::copy_nonoverlapping(from, to, n),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(n: usize) -> Vec<u8> {
        let mut row = format!("{n},").into_bytes();
        row.resize(row.len() + n % 300, b'x');
        row.push(b'\n');
        row
    }

    #[test]
    fn rows_come_out_whole_and_once_when_taken_early_while_appended() {
        // Miri (`cargo +nightly miri test --lib published`) checks the protocol on fewer.
        let (rounds, count) = if cfg!(miri) { (3, 300) } else { (20, 5000) };
        for round in 0..rounds {
            let (rows, mut appender) = PublishedRows::new();
            if round % 2 == 1 {
                appender.reuse(Vec::with_capacity(100));
            }
            let expected: Vec<u8> = (0..count).flat_map(row).collect();
            let reader = {
                let rows = Arc::clone(&rows);
                std::thread::spawn(move || {
                    let mut early = Vec::new();
                    for _ in 0..200 {
                        early.extend(rows.take_early());
                        std::thread::yield_now();
                    }
                    early
                })
            };
            for n in 0..count {
                appender.push_rows(&row(n));
            }
            let early = reader.join().unwrap();
            let rest = appender.finish();
            assert!(
                rows.take_early().is_empty(),
                "nothing after the appender finished"
            );
            let mut all = early.clone();
            all.extend(rest);
            assert_eq!(all, expected, "round {round}");
            // Only whole rows are taken early.
            assert!(early.is_empty() || early.ends_with(b"\n"));
        }
    }

    #[test]
    fn a_recycled_buffer_is_used_and_unfinished_rows_are_freed() {
        let (rows, mut appender) = PublishedRows::new();
        let buffer = Vec::with_capacity(1 << 16);
        let start = buffer.as_ptr();
        appender.reuse(buffer);
        appender.push_rows(b"1,a\n");
        assert_eq!(rows.take_early(), b"1,a\n");
        appender.push_rows(b"2,b\n");
        let rest = appender.finish();
        assert_eq!(rest, b"2,b\n");
        assert_eq!(rest.as_ptr(), start, "no new buffer for rows that fit");
        // Dropped without finishing: the buffer is freed with the rows (checked by Miri
        // and sanitizers where they run).
        let (rows, mut appender) = PublishedRows::new();
        appender.push_rows(b"3,c\n");
        drop(appender);
        drop(rows);
    }
}
