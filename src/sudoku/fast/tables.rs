//! Lookup tables of the band representation, computed at compile time.
//!
//! A band is three rows of the grid; one digit's candidates in a band are a 27-bit word,
//! bit `9 * r + c` for row `r` of the band (0..3) and column `c` (0..9). A *minirow* is
//! the three cells a row shares with a box; minirow `(r, x)` is bit `3 * r + x` of a
//! 9-bit minirow mask.

/// All 27 cells of a band.
pub(super) const BAND: u32 = (1 << 27) - 1;

/// For a 9-bit row of one digit's candidates: which of its three minirows (boxes) hold a
/// candidate, as 3 bits.
pub(super) static MINIROWS_OF_ROW: [u8; 512] = minirows_of_row();

/// For a 9-bit mask of the minirows that hold one digit's candidates in a band: the cells
/// that may keep the digit.
///
/// The digit sits exactly once in each row and once in each box of the band, so the
/// minirows it occupies are those of a permutation row → box: six choices. A minirow may
/// keep its candidates only if some permutation made only of occupied minirows uses it.
/// That one lookup is every pointing and claiming (locked candidates) deduction inside
/// the band, and hidden singles in its boxes show up as rows with a single candidate.
/// 0 when no permutation fits: a contradiction.
pub(super) static CELLS_KEPT: [u32; 512] = cells_kept();

/// The minirows behind [`CELLS_KEPT`]: for a 9-bit mask of occupied places `3 * i + j`
/// of a 3×3 permutation problem, the places used by some permutation made only of
/// occupied places.
pub(super) static MINIROWS_KEPT: [u16; 512] = minirows_kept();

/// For each cell of a band: the other cells of its row and box within the band.
pub(super) static BAND_PEERS: [u32; 27] = band_peers();

/// For each cell of the grid (row-major): its units as bits (row `r` at bit `r`, column
/// `c` at `9 + c`, box `b` at `18 + b`), its band, and its bit in the band.
pub(super) static CELL_UNITS: [(u32, u8, u32); 81] = {
    let mut table = [(0u32, 0u8, 0u32); 81];
    let mut index = 0;
    while index < 81 {
        let (row, column) = (index / 9, index % 9);
        let b = row / 3 * 3 + column / 3;
        table[index] = (
            1 << row | 1 << (9 + column) | 1 << (18 + b),
            (index / 27) as u8,
            1 << (index % 27),
        );
        index += 1;
    }
    table
};

/// The low `count` bits of `bits`, bit `i` moved to bit `stride * i`.
const fn spread_bits(bits: u64, count: u32, stride: u32) -> u64 {
    let mut spread = 0;
    let mut i = 0;
    while i < count {
        spread |= (bits >> i & 1) << (stride * i);
        i += 1;
    }
    spread
}

/// For a 3-bit mask of a band's rows: their cells.
pub(super) static ROW_CELLS: [u32; 8] = unit_cells(0x1FF, 9);

/// For a 3-bit mask of a band's boxes: their cells.
pub(super) static BOX_CELLS: [u32; 8] = unit_cells(0x7 | 0x7 << 9 | 0x7 << 18, 3);

const fn unit_cells(first: u32, shift: u32) -> [u32; 8] {
    let mut table = [0u32; 8];
    let mut units = 0;
    while units < 8 {
        let mut k = 0;
        while k < 3 {
            if units & (1 << k) != 0 {
                table[units] |= first << (shift * k);
            }
            k += 1;
        }
        units += 1;
    }
    table
}

/// The six permutations row → box, as 9-bit minirow masks.
const PERMUTATIONS: [u32; 6] = {
    let boxes = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
    let mut masks = [0u32; 6];
    let mut p = 0;
    while p < 6 {
        let mut r = 0;
        while r < 3 {
            masks[p] |= 1 << (3 * r + boxes[p][r]);
            r += 1;
        }
        p += 1;
    }
    masks
};

const fn minirows_of_row() -> [u8; 512] {
    let mut table = [0u8; 512];
    let mut row = 0;
    while row < 512 {
        let mut x = 0;
        while x < 3 {
            if row & (7 << (3 * x)) != 0 {
                table[row] |= 1 << x;
            }
            x += 1;
        }
        row += 1;
    }
    table
}

const fn minirows_kept() -> [u16; 512] {
    let mut table = [0u16; 512];
    let mut occupied = 0;
    while occupied < 512 {
        let mut p = 0;
        while p < 6 {
            if PERMUTATIONS[p] & !(occupied as u32) == 0 {
                table[occupied] |= PERMUTATIONS[p] as u16;
            }
            p += 1;
        }
        occupied += 1;
    }
    table
}

const fn cells_kept() -> [u32; 512] {
    let kept = minirows_kept();
    let mut table = [0u32; 512];
    let mut occupied = 0;
    while occupied < 512 {
        let kept_minirows = kept[occupied] as u32;
        let mut cells = 0u32;
        let mut m = 0;
        while m < 9 {
            if kept_minirows & (1 << m) != 0 {
                let (r, x) = (m / 3, m % 3);
                cells |= 7 << (9 * r + 3 * x);
            }
            m += 1;
        }
        table[occupied] = cells;
        occupied += 1;
    }
    table
}

const fn band_peers() -> [u32; 27] {
    let mut table = [0u32; 27];
    let mut cell = 0;
    while cell < 27 {
        let (r, c) = (cell / 9, cell % 9);
        let mut other = 0;
        while other < 27 {
            let (r2, c2) = (other / 9, other % 9);
            if other != cell && (r2 == r || c2 / 3 == c / 3) {
                table[cell] |= 1 << other;
            }
            other += 1;
        }
        cell += 1;
    }
    table
}

/// Bit `i` of the index moved to bit 0 of byte `i` (little-endian), for
/// [`State::solution`](super::State::solution).
pub(super) static BYTES_OF_BITS: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut bits = 0;
    while bits < 256 {
        table[bits] = spread_bits(bits as u64, 8, 8);
        bits += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_spread_to_bytes() {
        assert_eq!(BYTES_OF_BITS[0], 0);
        assert_eq!(BYTES_OF_BITS[0b1000_0001], 0x0100_0000_0000_0001);
        assert_eq!(BYTES_OF_BITS[255], 0x0101_0101_0101_0101);
    }

    #[test]
    fn minirows_of_a_row() {
        assert_eq!(MINIROWS_OF_ROW[0], 0);
        assert_eq!(MINIROWS_OF_ROW[0b000_000_010], 0b001);
        assert_eq!(MINIROWS_OF_ROW[0b100_000_001], 0b101);
        assert_eq!(MINIROWS_OF_ROW[0b000_111_000], 0b010);
    }

    #[test]
    fn every_minirow_occupied_keeps_every_cell() {
        assert_eq!(CELLS_KEPT[511], BAND);
    }

    #[test]
    fn a_missing_permutation_is_a_contradiction() {
        // Row 0 only in box 0, row 1 only in box 0: two rows want the same box.
        assert_eq!(CELLS_KEPT[0b000_001_001 | 0b111_000_000], 0);
        assert_eq!(CELLS_KEPT[0], 0);
    }

    #[test]
    fn pointing_and_claiming_are_deduced() {
        // Row 0 only in box 0 (claiming): box 0 loses rows 1 and 2, the rest stays.
        let occupied = 0b111_111_001;
        let kept = CELLS_KEPT[occupied];
        assert_eq!(kept & 0x1FF, 0b000_000_111);
        assert_eq!(kept >> 9 & 0x1FF, 0b111_111_000);
        assert_eq!(kept >> 18, 0b111_111_000);
        // Box 2 only in row 2 (pointing): row 2 loses box 0.
        let occupied = 0b101_011_011;
        let kept = CELLS_KEPT[occupied];
        assert_eq!(kept >> 18, 0b111_000_000);
        assert_eq!(kept & 0x1FF, 0b000_111_111);
    }

    #[test]
    fn band_peers_are_row_and_box() {
        // Cell (0, 0): the rest of row 0 and of box 0.
        assert_eq!(BAND_PEERS[0], 0x1FE | 0b111 << 9 | 0b111 << 18);
        assert_eq!(BAND_PEERS[13].count_ones(), 8 + 6);
    }
}
