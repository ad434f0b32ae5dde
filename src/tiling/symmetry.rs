//! The board's symmetries as the search uses them: which pieces are identical, the images
//! of a placement, and the piece whose placements are cut to one per orbit.

use std::sync::atomic::{AtomicBool, Ordering};

use super::board::Board;
use super::count::{Placement, TilingError, STOP_LOOK_EVERY};
use super::shapes::Piece;

/// What the board's symmetries and the pieces' twins give a search.
pub(super) struct Symmetries {
    /// For each piece, the index of the first piece identical to it.
    pub class: Vec<usize>,
    /// The board's symmetries, as cell permutations.
    pub permutations: Vec<Vec<usize>>,
}

impl Symmetries {
    /// The twins among `pieces` and the symmetries of `board`.
    pub fn of(board: &Board, pieces: &[Piece]) -> Self {
        let canonical: Vec<_> = pieces.iter().map(Piece::canonical).collect();
        let class = (0..pieces.len())
            .map(|i| (0..=i).find(|&j| canonical[j] == canonical[i]).unwrap_or(i))
            .collect();
        Symmetries {
            class,
            permutations: board.symmetries(),
        }
    }

    /// The distinct images of `placement`'s cells under the symmetries, sorted.
    pub fn orbit(&self, placement: &Placement) -> Vec<Vec<usize>> {
        let mut images: Vec<Vec<usize>> = self
            .permutations
            .iter()
            .map(|permutation| {
                let mut image: Vec<usize> =
                    placement.cells.iter().map(|&c| permutation[c]).collect();
                image.sort_unstable();
                image
            })
            .collect();
        images.sort_unstable();
        images.dedup();
        images
    }

    /// Whether `placement` is the smallest of its images: one placement per orbit.
    pub fn smallest_of_images(&self, placement: &Placement) -> bool {
        self.orbit(placement)[0] == placement.cells
    }

    /// The piece whose placements are cut to one per orbit, if the board has symmetries and
    /// `wanted`: the piece without a twin that keeps the fewest placements (the first if
    /// several tie). Fails with [`TilingError::Stopped`] once `stop` is set.
    pub fn broken_piece(
        &self,
        placements: &[Placement],
        wanted: bool,
        stop: &AtomicBool,
    ) -> Result<Option<usize>, TilingError> {
        if !wanted || self.permutations.len() < 2 {
            return Ok(None);
        }
        let mut members = vec![0usize; self.class.len()];
        for &class in &self.class {
            members[class] += 1;
        }
        let alone = |piece: usize| members[self.class[piece]] == 1;
        let mut kept = vec![0usize; self.class.len()];
        for (index, placement) in placements.iter().enumerate() {
            if index % STOP_LOOK_EVERY == 0 && stop.load(Ordering::Relaxed) {
                return Err(TilingError::Stopped);
            }
            if alone(placement.piece) && self.smallest_of_images(placement) {
                kept[placement.piece] += 1;
            }
        }
        Ok((0..self.class.len())
            .filter(|&p| alone(p))
            .min_by_key(|&p| kept[p]))
    }
}
