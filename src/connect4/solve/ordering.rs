//! Move ordering: centre columns first, then by how many threats a move creates.

use crate::connect4::MAX_SIDE;

/// Columns from the centre outwards (the centre-right one first on even widths):
/// 3 2 4 1 5 0 6 on a 7-wide board.
pub fn centre_first(width: usize) -> Vec<usize> {
    let centre = width / 2;
    (0..width)
        .map(|i| {
            let offset = i.div_ceil(2);
            if i % 2 == 1 {
                centre - offset
            } else {
                centre + offset
            }
        })
        .collect()
}

/// At most one entry per column, kept sorted by score by insertion: with at most 16 entries
/// this beats any general sort.
#[derive(Debug, Clone)]
pub struct MoveSorter<M> {
    entries: [(M, u32, usize); MAX_SIDE],
    len: usize,
}

impl<M: Copy + Default> MoveSorter<M> {
    /// An empty sorter.
    #[inline]
    pub fn new() -> Self {
        MoveSorter {
            entries: [(M::default(), 0, 0); MAX_SIDE],
            len: 0,
        }
    }

    /// Adds the move `cell` in column `col` with `score`. Among equal scores the move added
    /// last comes out first, so adding in reverse order of preference keeps that order
    /// among ties.
    #[inline]
    pub fn add(&mut self, cell: M, col: usize, score: u32) {
        let mut pos = self.len % MAX_SIDE;
        self.len += 1;
        while pos > 0 && self.entries[(pos - 1) % MAX_SIDE].1 > score {
            self.entries[pos % MAX_SIDE] = self.entries[(pos - 1) % MAX_SIDE];
            pos -= 1;
        }
        self.entries[pos % MAX_SIDE] = (cell, score, col);
    }
}

impl<M: Copy + Default> Iterator for MoveSorter<M> {
    type Item = (M, usize);

    /// The best move left: its cell and column.
    #[inline]
    fn next(&mut self) -> Option<(M, usize)> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        let (cell, _, col) = self.entries[self.len % MAX_SIDE];
        Some((cell, col))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn centre_outwards() {
        assert_eq!(centre_first(7), vec![3, 2, 4, 1, 5, 0, 6]);
        assert_eq!(centre_first(4), vec![2, 1, 3, 0]);
        assert_eq!(centre_first(5), vec![2, 1, 3, 0, 4]);
        for width in 4..=16 {
            let mut order = centre_first(width);
            order.sort_unstable();
            assert_eq!(order, (0..width).collect::<Vec<_>>());
        }
    }

    #[test]
    fn best_score_first_ties_last_added_first() {
        let mut sorter = MoveSorter::<u64>::new();
        for (col, score) in [(0, 1), (1, 3), (2, 1), (3, 2)] {
            sorter.add(col as u64, col, score);
        }
        let order: Vec<usize> = sorter.map(|(_, col)| col).collect();
        assert_eq!(order, vec![1, 3, 2, 0]);
    }
}
