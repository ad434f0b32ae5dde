//! The hot path of reading fields: rows of cells separated by ASCII whitespace (the line
//! format `1100000000 0000001100 …`), read 32 bytes at a time with AVX2. Each block of
//! bytes gives two masks, ship cells and whitespace, and each row is then a window of the
//! ship mask between two runs of whitespace. Reading a field went from 17.8% to 9% of the
//! samples of a run over a million 10×10 fields (docs/performance.md).
//!
//! Anything unusual (a byte that is neither a cell nor whitespace, one row only, rows of
//! different widths or wider than 64 cells, a text longer than [`LONGEST`]) is left to the
//! byte-by-byte reader, which says what is wrong.

/// The longest text read here, in bytes.
const LONGEST: usize = 1024;

/// Words of 64 bytes' masks, with one word more for a row's window past the last.
const WORDS: usize = LONGEST / 64 + 1;

/// The row masks and the width of `text` when it is at least two rows of cells (`1`, `x`,
/// `X`, `#`, `0` or `.`) of one width of at most 64, separated by ASCII whitespace, with
/// nothing else in it; `None` otherwise, or when the CPU lacks AVX2.
pub(super) fn row_masks(text: &[u8], rows: &mut impl Extend<u64>) -> Option<usize> {
    if text.len() > LONGEST || !avx2() {
        return None;
    }
    let mut ships = [0u64; WORDS];
    let mut spaces = [0u64; WORDS];
    // SAFETY: the CPU has AVX2, checked above.
    unsafe { classify(text, &mut ships, &mut spaces) }?;
    let len = text.len();
    // The end of the text ends its last row.
    spaces[len / 64] |= 1 << (len % 64);
    let (mut starts, mut ends) = ([0u64; WORDS], [0u64; WORDS]);
    let mut space_before = u64::MAX;
    for k in 0..=len / 64 {
        // Bit `i` of `before`: whether byte `i - 1` is whitespace (or `i` the first).
        let before = spaces[k] << 1 | space_before >> 63;
        starts[k] = !spaces[k] & before;
        ends[k] = spaces[k] & !before;
        space_before = spaces[k];
    }
    let (mut starts, mut ends) = (set_bits(&starts, len), set_bits(&ends, len));
    let mut width = None;
    let mut found = 0;
    while let (Some(start), Some(end)) = (starts.next(), ends.next()) {
        let cells = end - start;
        if cells > 64 || *width.get_or_insert(cells) != cells {
            return None;
        }
        rows.extend([window(&ships, start, cells)]);
        found += 1;
    }
    (found >= 2).then_some(width.unwrap_or(0))
}

/// Whether the CPU has AVX2 (std caches the answer).
fn avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    return false;
}

/// The positions of the set bits of `words`, up to `len`, in order.
fn set_bits(words: &[u64; WORDS], len: usize) -> impl Iterator<Item = usize> + '_ {
    words[..=len / 64]
        .iter()
        .enumerate()
        .flat_map(|(k, &word)| {
            std::iter::successors((word != 0).then_some(word), |&w| {
                let rest = w & (w - 1);
                (rest != 0).then_some(rest)
            })
            .map(move |w| 64 * k + w.trailing_zeros() as usize)
        })
        .filter(move |&at| at <= len)
}

/// Bits `start` to `start + cells - 1` of `words` (`cells` from 1 to 64).
fn window(words: &[u64; WORDS], start: usize, cells: usize) -> u64 {
    let k = start / 64;
    let pair = u128::from(words[k]) | u128::from(words[k + 1]) << 64;
    (pair >> (start % 64)) as u64 & (u64::MAX >> (64 - cells))
}

/// Sets bit `i` of `ships` where byte `i` of `text` is a ship cell and of `spaces` where it
/// is whitespace; `None` if a byte is neither those nor water.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn classify(text: &[u8], ships: &mut [u64; WORDS], spaces: &mut [u64; WORDS]) -> Option<()> {
    use std::arch::x86_64::*;
    for (i, block) in text.chunks(32).enumerate() {
        let bytes = if let Ok(block) = <&[u8; 32]>::try_from(block) {
            // SAFETY: `block` holds 32 bytes; the load is the unaligned kind.
            unsafe { _mm256_loadu_si256(block.as_ptr() as *const __m256i) }
        } else {
            // The last block, padded with spaces.
            let mut padded = [b' '; 32];
            padded[..block.len()].copy_from_slice(block);
            // SAFETY: as above, for `padded`.
            unsafe { _mm256_loadu_si256(padded.as_ptr() as *const __m256i) }
        };
        let is = |byte: u8| _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8(byte as i8));
        let ship = _mm256_or_si256(
            _mm256_or_si256(is(b'1'), is(b'x')),
            _mm256_or_si256(is(b'X'), is(b'#')),
        );
        let water = _mm256_or_si256(is(b'0'), is(b'.'));
        // Tab to carriage return are bytes 9 to 13: minus 9, at most 4 unsigned.
        let from_tab = _mm256_sub_epi8(bytes, _mm256_set1_epi8(9));
        let control = _mm256_cmpeq_epi8(_mm256_min_epu8(from_tab, _mm256_set1_epi8(4)), from_tab);
        let space = _mm256_or_si256(control, is(b' '));
        let known = _mm256_or_si256(_mm256_or_si256(ship, water), space);
        if _mm256_movemask_epi8(known) != -1 {
            return None;
        }
        let shift = 32 * (i % 2);
        ships[i / 2] |= u64::from(_mm256_movemask_epi8(ship) as u32) << shift;
        spaces[i / 2] |= u64::from(_mm256_movemask_epi8(space) as u32) << shift;
    }
    Some(())
}

#[cfg(not(target_arch = "x86_64"))]
unsafe fn classify(_: &[u8], _: &mut [u64; WORDS], _: &mut [u64; WORDS]) -> Option<()> {
    None
}

#[cfg(test)]
mod tests {
    use super::super::field::well_formed_rows;
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// What the byte-by-byte reader makes of `text` when it holds two rows or more.
    fn by_bytes(text: &[u8]) -> Option<(usize, Vec<u64>)> {
        let mut rows = Default::default();
        let width = well_formed_rows(text, &mut rows)?;
        (rows.len() >= 2).then(|| (width, rows.to_vec()))
    }

    fn by_blocks(text: &[u8]) -> Option<(usize, Vec<u64>)> {
        let mut rows = Vec::new();
        row_masks(text, &mut rows).map(|width| (width, rows))
    }

    #[test]
    #[cfg_attr(not(target_arch = "x86_64"), ignore = "AVX2 is x86-64's")]
    fn rows_are_read_as_the_byte_by_byte_reader_reads_them() {
        assert!(avx2(), "this CPU lacks AVX2");
        let seed = b"1000000000 1110000010 1100000010 1100000000 1100000010 \
                     1100111000 1000000010 0000000000 0000000000 0000000000";
        let (width, rows) = by_blocks(seed).expect("the seed field");
        assert_eq!((width, rows[1]), (10, 0b01_0000_0111));
        let mut rng = ChaCha8Rng::seed_from_u64(25);
        let alphabet = b"01xX#.. \t\n\r\x0b\x0c?a[";
        let mut read = 0;
        for round in 0..20_000 {
            let width = rng.gen_range(1..=70);
            let height = rng.gen_range(1..=12);
            let mut text = Vec::new();
            for _ in 0..rng.gen_range(0..3) {
                text.push(b" \t\n"[rng.gen_range(0..3)]);
            }
            for r in 0..height {
                let cells = if round % 7 == 0 && r == height / 2 {
                    width + 1
                } else {
                    width
                };
                for _ in 0..cells {
                    text.push(b"01x#."[rng.gen_range(0..5)]);
                }
                for _ in 0..rng.gen_range(1..3) {
                    text.push(b" \t\n\r"[rng.gen_range(0..4)]);
                }
            }
            if round % 5 == 0 {
                let at = rng.gen_range(0..text.len());
                text[at] = alphabet[rng.gen_range(0..alphabet.len())];
            }
            text.truncate(LONGEST + 8);
            let expected = if text.len() > LONGEST {
                None
            } else {
                by_bytes(&text)
            };
            let found = by_blocks(&text);
            assert_eq!(found, expected, "{:?}", String::from_utf8_lossy(&text));
            read += usize::from(found.is_some());
        }
        assert!(read > 5_000, "most texts are well formed ({read})");
    }
}
