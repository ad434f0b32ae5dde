//! The 16×16 board's scan for hidden singles with AVX2: a digit's plane (four bands of
//! 64 cells) is one vector, so each step of the scan (rows held, rows with one place,
//! boxes and columns folded) is one instruction for the four bands instead of four.
//! The scan was a third of the search's time on the hard 16×16 files, about 290
//! instructions per digit band by band (docs/performance.md).
//!
//! It finds the same cells as the portable scan (`planes::hidden_single_cells_portable`,
//! compared in a test); when a unit has no place for the digit it only says so, and the
//! portable scan names the unit.
//!
//! The board's way in and out are here too: the clues' planes from a line of cell values,
//! and a solved board's values, 32 cells a step (each compared in a test with its portable
//! loop in `planes`).

use std::arch::x86_64::{
    __m256i, _mm256_add_epi8, _mm256_and_si256, _mm256_andnot_si256, _mm256_cmpeq_epi64,
    _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_or_si256,
    _mm256_permute4x64_epi64, _mm256_set1_epi32, _mm256_set1_epi64x, _mm256_set1_epi8,
    _mm256_setr_epi8, _mm256_shuffle_epi8, _mm256_slli_epi64, _mm256_srli_epi64,
    _mm256_storeu_si256, _mm256_sub_epi64,
};

/// Whether the CPU has AVX2 (std caches the answer).
#[inline(always)]
pub(super) fn has_avx2() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

/// Bit 0 of each row of a band.
const COLUMN: i64 = 0x0001_0001_0001_0001;

/// Bit `16k` of each band set when row `k` of the band holds any bit.
#[inline]
#[target_feature(enable = "avx2")]
fn rows_held(x: __m256i) -> __m256i {
    let y = _mm256_or_si256(x, _mm256_srli_epi64::<8>(x));
    let y = _mm256_or_si256(y, _mm256_srli_epi64::<4>(y));
    let y = _mm256_or_si256(y, _mm256_srli_epi64::<2>(y));
    let y = _mm256_or_si256(y, _mm256_srli_epi64::<1>(y));
    _mm256_and_si256(y, _mm256_set1_epi64x(COLUMN))
}

/// A 16-bit value copied to the four rows of each band.
#[inline]
#[target_feature(enable = "avx2")]
fn spread_columns(x: __m256i) -> __m256i {
    let x = _mm256_or_si256(x, _mm256_slli_epi64::<16>(x));
    _mm256_or_si256(x, _mm256_slli_epi64::<32>(x))
}

/// The 16-bit rows of each band that hold exactly one bit, flagged at bit `16k`: each
/// nonempty row less its lowest bit holds none.
#[inline]
#[target_feature(enable = "avx2")]
fn one_per_row(x: __m256i) -> __m256i {
    let held = rows_held(x);
    let rest = rows_held(_mm256_and_si256(x, _mm256_sub_epi64(x, held)));
    _mm256_andnot_si256(rest, held)
}

/// `x * 0xF` for bits at multiples of 4, `x * 0xFFFF` for bits at multiples of 16: each
/// bit filled up to the next such multiple (a shift and a subtraction, as AVX2 has no
/// 64-bit multiplication).
#[inline]
#[target_feature(enable = "avx2")]
fn fill_up<const BITS: i32>(x: __m256i) -> __m256i {
    _mm256_sub_epi64(_mm256_slli_epi64::<BITS>(x), x)
}

/// The four bands folded across the vector (pairs, then pairs of pairs): in every band,
/// the bits set in at least one band and in at least two.
#[inline]
#[target_feature(enable = "avx2")]
fn fold_bands(v: __m256i) -> (__m256i, __m256i) {
    let swapped = _mm256_permute4x64_epi64::<0b10_11_00_01>(v);
    let (o, t) = (_mm256_or_si256(v, swapped), _mm256_and_si256(v, swapped));
    let (o_far, t_far) = (
        _mm256_permute4x64_epi64::<0b01_00_11_10>(o),
        _mm256_permute4x64_epi64::<0b01_00_11_10>(t),
    );
    let t = _mm256_or_si256(_mm256_or_si256(t, t_far), _mm256_and_si256(o, o_far));
    (_mm256_or_si256(o, o_far), t)
}

/// The four 16-bit rows of each band folded: the bits set in at least one row (`once`)
/// and in at least two (`twice`, which also keeps the bits of the `twice` given).
#[inline]
#[target_feature(enable = "avx2")]
fn fold_rows(once: __m256i, twice: __m256i) -> (__m256i, __m256i) {
    let (o1, o2, o3) = (
        _mm256_srli_epi64::<16>(once),
        _mm256_srli_epi64::<32>(once),
        _mm256_srli_epi64::<48>(once),
    );
    let t = _mm256_or_si256(
        _mm256_or_si256(twice, _mm256_srli_epi64::<16>(twice)),
        _mm256_or_si256(
            _mm256_srli_epi64::<32>(twice),
            _mm256_srli_epi64::<48>(twice),
        ),
    );
    let o01 = _mm256_or_si256(once, o1);
    let t = _mm256_or_si256(t, _mm256_and_si256(once, o1));
    let t = _mm256_or_si256(t, _mm256_and_si256(o01, o2));
    let o012 = _mm256_or_si256(o01, o2);
    let t = _mm256_or_si256(t, _mm256_and_si256(o012, o3));
    let row = _mm256_set1_epi64x(0xFFFF);
    (
        _mm256_and_si256(_mm256_or_si256(o012, o3), row),
        _mm256_and_si256(t, row),
    )
}

/// The open cells of the plane `p` that are the digit's only place in their row, column
/// or box; `None` if some unit has no place for it.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn hidden_single_cells(p: &[u64; 4], placed: &[u64; 4]) -> Option<[u64; 4]> {
    // SAFETY: each array is 32 bytes, read and written unaligned.
    let (v, placed) = unsafe {
        (
            _mm256_loadu_si256(p.as_ptr().cast::<__m256i>()),
            _mm256_loadu_si256(placed.as_ptr().cast::<__m256i>()),
        )
    };
    let zero = _mm256_set1_epi64x(0);
    // Rows: each nonempty row less its lowest bit holds none when it held one bit.
    let held = rows_held(v);
    let rows = fill_up::<16>(one_per_row(v));
    // Boxes: each band's rows folded, then each box's four columns.
    let (o, t) = fold_rows(v, zero);
    let fives = _mm256_set1_epi64x(0x5555);
    let ones = _mm256_set1_epi64x(0x1111);
    let o1 = _mm256_and_si256(o, fives);
    let o2 = _mm256_and_si256(_mm256_srli_epi64::<1>(o), fives);
    let t = _mm256_or_si256(
        _mm256_and_si256(_mm256_or_si256(t, _mm256_srli_epi64::<1>(t)), fives),
        _mm256_and_si256(o1, o2),
    );
    let o = _mm256_or_si256(o1, o2);
    let t = _mm256_and_si256(
        _mm256_or_si256(
            _mm256_or_si256(t, _mm256_srli_epi64::<2>(t)),
            _mm256_and_si256(o, _mm256_srli_epi64::<2>(o)),
        ),
        ones,
    );
    let box_held = _mm256_and_si256(_mm256_or_si256(o, _mm256_srli_epi64::<2>(o)), ones);
    let box_one = _mm256_andnot_si256(t, box_held);
    let boxes = spread_columns(fill_up::<4>(box_one));
    // Columns: the four bands folded, then the rows of the fold.
    let (o, t) = fold_bands(v);
    let (column_held, column_twice) = fold_rows(o, t);
    let columns = spread_columns(_mm256_andnot_si256(column_twice, column_held));
    // Every row, box and column of every band has a place.
    let full = _mm256_and_si256(
        _mm256_and_si256(
            _mm256_cmpeq_epi64(held, _mm256_set1_epi64x(COLUMN)),
            _mm256_cmpeq_epi64(box_held, ones),
        ),
        _mm256_cmpeq_epi64(column_held, _mm256_set1_epi64x(0xFFFF)),
    );
    if _mm256_movemask_epi8(full) != -1 {
        return None;
    }
    let units = _mm256_or_si256(_mm256_or_si256(rows, columns), boxes);
    let singles = _mm256_andnot_si256(placed, _mm256_and_si256(v, units));
    let mut cells = [0u64; 4];
    // SAFETY: `cells` is 32 bytes, written unaligned.
    unsafe { _mm256_storeu_si256(cells.as_mut_ptr().cast::<__m256i>(), singles) };
    Some(cells)
}

/// The planes of the clues in `values` (256 cell values, 0 for a blank, 1 to 16 for the
/// digits): bit `i` of word `w` of plane `d` set when cell `64w + i` holds `d + 1`. One
/// comparison and mask per digit and 32 cells: visiting the clues one by one was about
/// 1,500 instructions of an easy puzzle's 14,000 (callgrind).
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn clue_planes(values: &[u8; 256]) -> [[u64; 4]; 16] {
    let mut clues = [[0u64; 4]; 16];
    for (w, band) in values.chunks_exact(64).enumerate() {
        // SAFETY: each half of the 64-byte band is 32 bytes, read unaligned.
        let (low, high) = unsafe {
            (
                _mm256_loadu_si256(band.as_ptr().cast::<__m256i>()),
                _mm256_loadu_si256(band[32..].as_ptr().cast::<__m256i>()),
            )
        };
        for (d, plane) in clues.iter_mut().enumerate() {
            let digit = _mm256_set1_epi8(d as i8 + 1);
            let mask = |half| _mm256_movemask_epi8(_mm256_cmpeq_epi8(half, digit)) as u32;
            plane[w] = u64::from(mask(low)) | u64::from(mask(high)) << 32;
        }
    }
    clues
}

/// Writes the values (1 to 16) of a solved board's cells into `values`; each cell is in
/// exactly one of the digit `planes`. The four bits of each cell's digit are gathered
/// plane by plane, then spread to a byte a cell, 32 cells a step: writing the cells of
/// each plane one by one was about 1,700 instructions of an easy puzzle (callgrind).
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn solved_values(planes: &[[u64; 4]; 16], values: &mut [u8; 256]) {
    // Bit `k` of each cell's digit (0-based), a plane a bit.
    let mut bits = [[0u64; 4]; 4];
    for (d, plane) in planes.iter().enumerate() {
        for (k, bit) in bits.iter_mut().enumerate() {
            if d >> k & 1 != 0 {
                for (b, p) in bit.iter_mut().zip(plane) {
                    *b |= p;
                }
            }
        }
    }
    // Byte `j` of a step takes byte `j / 8` of the step's 32-bit mask (within each 128-bit
    // lane, where the mask is repeated), and keeps bit `j % 8` of it.
    let spread = _mm256_setr_epi8(
        0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3,
        3, 3,
    );
    let select = _mm256_set1_epi64x(0x8040_2010_0804_0201_u64 as i64);
    for (step, out) in values.chunks_exact_mut(32).enumerate() {
        let mut cells = _mm256_set1_epi8(1);
        for (k, bit) in bits.iter().enumerate() {
            let mask = (bit[step / 2] >> (32 * (step % 2))) as u32;
            let bytes = _mm256_shuffle_epi8(_mm256_set1_epi32(mask as i32), spread);
            let set = _mm256_cmpeq_epi8(_mm256_and_si256(bytes, select), select);
            cells = _mm256_add_epi8(cells, _mm256_and_si256(set, _mm256_set1_epi8(1 << k)));
        }
        // SAFETY: `out` is 32 bytes, written unaligned.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast::<__m256i>(), cells) };
    }
}
