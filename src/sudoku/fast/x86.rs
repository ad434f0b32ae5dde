//! What `fast` does only on x86-64: the checks of the CPU's features that choose the
//! search's build, and the parts written with intrinsics, used only by the builds compiled
//! for them ([`super::Search::run_modern`] and [`super::Search::run_modern_pext`]) after
//! the CPU's features were checked. Each part has a portable twin in the parent module,
//! and a test compares the two.

use std::arch::x86_64::*;
use std::sync::OnceLock;

pub(crate) use crate::cpu::has_modern_features;

use super::tables::BAND;
use super::{Contradiction, State};

/// Clears `cells` from eight words; bit `i` of the result is set when word `i` held one
/// of them ([`super::clear8`] in one 8-lane operation: load, clear, store, and the lanes
/// that held one of the cells as a mask). The compiler does not find this on its own: it
/// unpacks the comparison's mask bit by bit.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn clear8(words: &mut [u32; 8], cells: u32) -> u32 {
    let p = words.as_mut_ptr() as *mut __m256i;
    // SAFETY: `p` addresses the 32 bytes of `words`, which this function borrows
    // mutably; the loads and stores are the unaligned kind.
    let v = unsafe { _mm256_loadu_si256(p) };
    let c = _mm256_set1_epi32(cells as i32);
    let zero = _mm256_cmpeq_epi32(_mm256_and_si256(v, c), _mm256_setzero_si256());
    let mask = _mm256_movemask_ps(_mm256_castsi256_ps(zero)) as u32;
    // SAFETY: as for the load.
    unsafe { _mm256_storeu_si256(p, _mm256_andnot_si256(c, v)) };
    !mask & 0xFF
}

/// The cells held by at least one, two and three of eight words: the bitwise adders of
/// [`super::State::candidate_counts`] as a tree over the lanes (neighbouring lanes, then
/// pairs of them, then the two halves), where the portable loop takes one word at a time.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn count8(words: &[u32; 8]) -> (u32, u32, u32) {
    // SAFETY: the load reads the 32 bytes of `words`; it is the unaligned kind.
    let words = unsafe { _mm256_loadu_si256(words.as_ptr() as *const __m256i) };
    let zero = _mm256_setzero_si256();
    // Each lane with its neighbour.
    let neighbours = _mm256_shuffle_epi32(words, 0b10_11_00_01);
    let (some, two, three) = combine((words, zero, zero), (neighbours, zero, zero));
    // Each pair of lanes with the next pair.
    let pairs = |v| _mm256_shuffle_epi32(v, 0b01_00_11_10);
    let (some, two, three) = combine((some, two, three), (pairs(some), pairs(two), pairs(three)));
    // Each half with the other.
    let halves = |v| _mm256_permute2x128_si256(v, v, 1);
    let (some, two, three) = combine(
        (some, two, three),
        (halves(some), halves(two), halves(three)),
    );
    (
        _mm256_cvtsi256_si32(some) as u32,
        _mm256_cvtsi256_si32(two) as u32,
        _mm256_cvtsi256_si32(three) as u32,
    )
}

/// The cells held by at least one, two and three of two groups of words, from each
/// group's.
#[target_feature(enable = "avx2")]
#[inline]
fn combine(
    a: (__m256i, __m256i, __m256i),
    b: (__m256i, __m256i, __m256i),
) -> (__m256i, __m256i, __m256i) {
    let (some_a, two_a, three_a) = a;
    let (some_b, two_b, three_b) = b;
    let some = _mm256_or_si256(some_a, some_b);
    let two = _mm256_or_si256(
        _mm256_or_si256(two_a, two_b),
        _mm256_and_si256(some_a, some_b),
    );
    let three = _mm256_or_si256(
        _mm256_or_si256(three_a, three_b),
        _mm256_or_si256(
            _mm256_and_si256(two_a, some_b),
            _mm256_and_si256(some_a, two_b),
        ),
    );
    (some, two, three)
}

/// The state of a 9×9 grid's clues (cell values row-major, 0 for a blank); `Err` if two
/// clues conflict ([`State::from_grid`] without a loop over the cells).
///
/// Each band's 27 values are compared with each value at once, 32 bytes per comparison,
/// which gives every digit's clue cells in the band as a mask; then the eight digits 1 to 8
/// are worked out together, one per lane (digit 9 in a second pass), with no branch and
/// no table: the cells each clue sees, and whether two clues of a digit share a row, a
/// column or a box, where the portable set-up scatters each cell into per-value arrays.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn clue_state(values: &[u8; 81]) -> Result<State, Contradiction> {
    // SAFETY: the caller's CPU has AVX2.
    unsafe { clue_state_of(band_bytes(values)) }
}

/// The 81 bytes of a grid loaded as [`clue_state_of`] takes them.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn band_bytes(bytes: &[u8; 81]) -> [__m256i; 3] {
    let p = bytes.as_ptr();
    // Band `b`'s cells are bytes `27 * b` to `27 * b + 26`. The last band is loaded from
    // byte 49 so that the load ends at byte 81: its cells are then bits 5 to 31 of a mask.
    // SAFETY: each load reads 32 bytes starting at byte 0, 27 or 49 of the 81 of `bytes`,
    // so none reads past its end; the loads are the unaligned kind.
    unsafe {
        [
            _mm256_loadu_si256(p as *const __m256i),
            _mm256_loadu_si256(p.add(27) as *const __m256i),
            _mm256_loadu_si256(p.add(49) as *const __m256i),
        ]
    }
}

/// [`super::solution_bytes`] with AVX2: per band, each value plane is broadcast, its
/// bytes spread one to eight lanes, and each lane keeps its own bit as 0 or `1 << k`; the
/// four planes ORed give 32 values at once, against sixteen table look-ups a band.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn solution_bytes(candidates: &[u32; 48], offset: u8) -> [u8; 86] {
    let mut values = [0u8; 86];
    for band in 0..3 {
        let band_values = band_values(candidates, band, offset);
        // SAFETY: the store writes bytes `27 * band` to `27 * band + 31`, at most byte 85
        // of the 86; it is the unaligned kind. A band's store overwrites the next band's
        // first five bytes before that band writes them.
        unsafe {
            let at = values.as_mut_ptr().add(27 * band) as *mut __m256i;
            _mm256_storeu_si256(at, band_values);
        }
    }
    values
}

/// [`solution_bytes`] written straight into a line of digits `1` to `9`. Copied out of
/// [`solution_bytes`]'s array, the line was read back with 32-byte loads straddling the
/// bands' overlapping stores, which the processor cannot forward: a stall per load, about
/// 0.6% of a two-thread run over easy Sudokus (`perf annotate`, 2026-11-28).
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn solution_line(candidates: &[u32; 48], line: &mut [u8; 81]) {
    let [first, second, third] = [0, 1, 2].map(|band| band_values(candidates, band, b'0'));
    // The third band's 27 bytes as two 16-byte halves: bytes 0 to 15, and 11 to 26.
    let third_low = _mm256_castsi256_si128(third);
    let third_high = _mm_alignr_epi8::<11>(_mm256_extracti128_si256::<1>(third), third_low);
    let at = line.as_mut_ptr();
    // SAFETY: the stores write bytes 0-31, 27-58, 54-69 and 65-80 of the 81, in this order:
    // each band's store overwrites the bytes past the previous band's 27 before they
    // count. All are the unaligned kind.
    unsafe {
        _mm256_storeu_si256(at as *mut __m256i, first);
        _mm256_storeu_si256(at.add(27) as *mut __m256i, second);
        _mm_storeu_si128(at.add(54) as *mut __m128i, third_low);
        _mm_storeu_si128(at.add(65) as *mut __m128i, third_high);
    }
}

/// The values of `band`'s 27 cells plus `offset`, in the first 27 of 32 bytes.
#[target_feature(enable = "avx2")]
#[inline]
fn band_values(candidates: &[u32; 48], band: usize, offset: u8) -> __m256i {
    // Lane `j` takes byte `j / 8` of the plane (the shuffle works within each 16-byte half,
    // and the broadcast put the plane's four bytes in every four), and its bit `j % 8`.
    let byte_of_lane = _mm256_setr_epi8(
        0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, //
        2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3,
    );
    let bit_of_lane = _mm256_set1_epi64x(0x8040_2010_0804_0201_u64 as i64);
    let planes = super::value_planes(candidates, band);
    let mut band_values = _mm256_set1_epi8(offset as i8);
    for (k, plane) in planes.into_iter().enumerate() {
        let spread = _mm256_shuffle_epi8(_mm256_set1_epi32(plane as i32), byte_of_lane);
        let set = _mm256_cmpeq_epi8(_mm256_and_si256(spread, bit_of_lane), bit_of_lane);
        let value_bit = _mm256_set1_epi8(1 << k);
        band_values = _mm256_or_si256(band_values, _mm256_and_si256(set, value_bit));
    }
    band_values
}

/// The cell values of a 9×9 line (`1` to `9` for a clue, `0` or `.` for a blank), loaded
/// as [`clue_state_of`] takes them; `None` if the line holds any other character.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn line_values(line: &[u8; 81]) -> Option<[__m256i; 3]> {
    // SAFETY: the caller's CPU has AVX2.
    let bytes = unsafe { band_bytes(line) };
    let nine = _mm256_set1_epi8(9);
    let mut plain = _mm256_set1_epi8(-1);
    let values = bytes.map(|bytes| {
        let value = _mm256_sub_epi8(bytes, _mm256_set1_epi8(b'0' as i8));
        // `0` to `9`: the value is at most 9, unsigned.
        let digit = _mm256_cmpeq_epi8(_mm256_min_epu8(value, nine), value);
        let blank = _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8(b'.' as i8));
        plain = _mm256_and_si256(plain, _mm256_or_si256(digit, blank));
        // A `.` is 0.
        _mm256_and_si256(value, digit)
    });
    (_mm256_movemask_epi8(plain) == -1).then_some(values)
}

/// [`clue_state`] of the grid's bytes as [`band_bytes`] loads them.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn clue_state_of(bytes: [__m256i; 3]) -> Result<State, Contradiction> {
    // The cells of `band` holding `value`.
    let cells_of = |band: usize, value: i8| {
        let equal = _mm256_cmpeq_epi8(bytes[band], _mm256_set1_epi8(value));
        let mask = _mm256_movemask_epi8(equal) as u32;
        if band == 2 {
            mask >> 5
        } else {
            mask & BAND
        }
    };
    let clue_cells = [0, 1, 2].map(|band| BAND & !cells_of(band, 0));
    let digits_1_to_8 = [0, 1, 2].map(|band| {
        let lane = |digit: i8| cells_of(band, digit) as i32;
        _mm256_setr_epi32(
            lane(1),
            lane(2),
            lane(3),
            lane(4),
            lane(5),
            lane(6),
            lane(7),
            lane(8),
        )
    });
    let digit_9 =
        [0, 1, 2].map(|band| _mm256_setr_epi32(cells_of(band, 9) as i32, 0, 0, 0, 0, 0, 0, 0));
    let (conflicts_1_to_8, words_1_to_8) = candidate_words(digits_1_to_8, clue_cells);
    let (conflicts_9, words_9) = candidate_words(digit_9, clue_cells);
    let conflicts = _mm256_or_si256(conflicts_1_to_8, conflicts_9);
    if _mm256_testz_si256(conflicts, conflicts) == 0 {
        return Err(Contradiction);
    }
    let mut candidates = [0u32; 48];
    for band in 0..3 {
        let start = super::word_index(band, 0);
        let first_eight: &mut [u32; 8] = (&mut candidates[start..start + 8])
            .try_into()
            .expect("eight words");
        // SAFETY: the store writes the 32 bytes of `first_eight`, borrowed mutably; it is
        // the unaligned kind.
        unsafe {
            _mm256_storeu_si256(first_eight.as_mut_ptr() as *mut __m256i, words_1_to_8[band])
        };
        candidates[start + 8] = _mm256_cvtsi256_si32(words_9[band]) as u32;
    }
    Ok(State::with_clues(candidates, clue_cells))
}

/// Per lane (one digit), from the digit's clue cells in each band: its candidate words,
/// and a lane that is not zero when two of those clues share a unit.
#[target_feature(enable = "avx2")]
#[inline]
fn candidate_words(clues: [__m256i; 3], clue_cells: [u32; 3]) -> (__m256i, [__m256i; 3]) {
    let zero = _mm256_setzero_si256();
    let one = _mm256_set1_epi32(1);
    let nine_bits = _mm256_set1_epi32(0x1FF);
    // The three rows and the three boxes of a band, as cell masks.
    let units = [
        0x1FF,
        0x1FF << 9,
        0x1FF << 18,
        0x1C0E07,
        0xE07038,
        0x70381C0,
    ]
    .map(|cells| _mm256_set1_epi32(cells));
    let mut conflicts = zero;
    let mut columns_seen = zero;
    let mut seen_in_band = [zero; 3];
    for (band, &clues) in clues.iter().enumerate() {
        for unit in units {
            let cells = _mm256_and_si256(clues, unit);
            // Two clues or more in the unit: a conflict (`x & (x - 1)` clears one bit).
            let second = _mm256_and_si256(cells, _mm256_sub_epi32(cells, one));
            conflicts = _mm256_or_si256(conflicts, second);
            // One clue or more: the digit leaves the whole unit.
            let taken = _mm256_andnot_si256(_mm256_cmpeq_epi32(cells, zero), unit);
            seen_in_band[band] = _mm256_or_si256(seen_in_band[band], taken);
        }
        // The band's columns (its three rows shifted onto each other). Two clues in one
        // column of a band share a box, found above; a column held in an earlier band too
        // is a conflict.
        let rows = _mm256_or_si256(
            clues,
            _mm256_or_si256(_mm256_srli_epi32(clues, 9), _mm256_srli_epi32(clues, 18)),
        );
        let columns = _mm256_and_si256(rows, nine_bits);
        conflicts = _mm256_or_si256(conflicts, _mm256_and_si256(columns_seen, columns));
        columns_seen = _mm256_or_si256(columns_seen, columns);
    }
    // A column's cells in every band: the column mask repeated in the three rows.
    let column_cells = _mm256_mullo_epi32(columns_seen, _mm256_set1_epi32(0x40201));
    let band_cells = _mm256_set1_epi32(BAND as i32);
    let words = [0, 1, 2].map(|band| {
        let seen = _mm256_or_si256(seen_in_band[band], column_cells);
        let seen = _mm256_or_si256(seen, _mm256_set1_epi32(clue_cells[band] as i32));
        // The digit's own clues stay candidates of their cells.
        _mm256_or_si256(_mm256_andnot_si256(seen, band_cells), clues[band])
    });
    (conflicts, words)
}

/// Whether the CPU's bit extraction (`pext`, part of BMI2) takes a cycle or so, as on
/// every Intel CPU that has it and on AMD's since Zen 3 (family 25). AMD's earlier ones
/// (families 23 and below, and Hygon's) run it in microcode, dozens to hundreds of cycles,
/// where the lookups it replaces cost a few (see [`minirows_pext`]). Checked once.
pub(super) fn has_fast_pext() -> bool {
    static FAST: OnceLock<bool> = OnceLock::new();
    *FAST.get_or_init(|| {
        // Leaves 0 (the vendor) and 1 (the family) exist on every x86-64 CPU.
        let (vendor, signature) = (__cpuid(0), __cpuid(1));
        let mut name = [0u8; 12];
        name[..4].copy_from_slice(&vendor.ebx.to_le_bytes());
        name[4..8].copy_from_slice(&vendor.edx.to_le_bytes());
        name[8..].copy_from_slice(&vendor.ecx.to_le_bytes());
        let base_family = signature.eax >> 8 & 0xF;
        let family = if base_family == 0xF {
            base_family + (signature.eax >> 20 & 0xFF)
        } else {
            base_family
        };
        let slow = matches!(&name, b"AuthenticAMD" | b"HygonGenuine") && family < 0x19;
        is_x86_feature_detected!("bmi2") && !slow
    })
}

/// The minirows of a digit-band word that hold a candidate, as 9 bits (minirow `(r, x)` at
/// bit `3 * r + x`): each minirow's three bits ORed into its first, then those nine bits
/// gathered by one bit extraction. [`super::minirows`] does this with three table
/// lookups; where `pext` is fast, one instruction shortens the chain of dependent loads
/// that each propagation step waits on.
///
/// # Safety
/// The CPU must have BMI2.
#[target_feature(enable = "bmi2")]
#[inline]
pub(super) unsafe fn minirows_pext(word: u32) -> u32 {
    // Bit 3k for each minirow k, its first cell.
    const FIRST_CELLS: u32 = 0x0124_9249;
    _pext_u32(word | word >> 1 | word >> 2, FIRST_CELLS)
}
