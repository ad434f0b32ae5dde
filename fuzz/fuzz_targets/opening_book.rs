//! Opening-book files: arbitrary bytes read as a book for the board the first byte picks.
//! An answer, never a panic; a book accepted writes back to exactly the bytes it was read
//! from. With the selector's high bit set, the header's position count is first made to
//! fit the bytes that follow it, so that mutations of a real book's first kilobytes reach
//! the keys and scores instead of stopping at a truncated file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use puzzlebench::connect4::solve::{Bits, Book};

/// Boards a book may be for: the standard one, small ones, and one that needs 128-bit keys.
const BOARDS: [(usize, usize); 5] = [(7, 6), (4, 4), (5, 4), (6, 5), (8, 8)];

/// Bytes of a book's header; the position count is its last 8 (little-endian).
const HEADER: usize = 22;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, bytes)) = data.split_first() else {
        return;
    };
    let (width, height) = BOARDS[usize::from(selector & 0x7f) % BOARDS.len()];
    let mut bytes = bytes.to_vec();
    if selector & 0x80 != 0 && bytes.len() >= HEADER {
        let key_bytes = usize::from(bytes[13]).max(1);
        let count = (bytes.len() - HEADER) / (key_bytes + 1);
        bytes[14..HEADER].copy_from_slice(&(count as u64).to_le_bytes());
    }
    if width * (height + 1) <= 64 {
        check::<u64>(&bytes, width, height);
    } else {
        check::<u128>(&bytes, width, height);
    }
});

fn check<M: Bits>(bytes: &[u8], width: usize, height: usize) {
    match Book::<M>::read(&mut &bytes[..], width, height) {
        Err(error) => assert!(!error.to_string().is_empty()),
        Ok(book) => {
            let mut written = Vec::new();
            book.write(&mut written).expect("a book writes to memory");
            assert!(written.len() <= bytes.len());
            assert_eq!(
                written[..],
                bytes[..written.len()],
                "the book as written back"
            );
            let key_bytes = usize::from(bytes[13]);
            assert_eq!(book.len(), (written.len() - HEADER) / (key_bytes + 1));
        }
    }
}
