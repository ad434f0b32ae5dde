//! Identical pieces searched as one: the search places the first of a group of identical
//! pieces wherever any of them could go, and each solution stands for the `k!` ways of
//! labelling the group's placements.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};

use num_bigint::BigUint;

use super::count::{Placement, TilingError, STOP_LOOK_EVERY};

/// A group of identical pieces searched as one (see [`Tiling::new`](super::Tiling::new)).
pub(super) struct MergedGroup {
    /// The pieces, in order; the first one's placements stand for all.
    pub(super) members: Vec<usize>,
    /// For each placement of the first member: the placement of each member (in `members`
    /// order) on the same cells.
    pub(super) same_cells: HashMap<usize, Vec<usize>>,
    /// `k!` for `k` members: labelled solutions per solution searched (exact: 35 pieces
    /// already make more than `u128` holds).
    pub(super) labellings: BigUint,
}

impl MergedGroup {
    /// The largest group of two or more identical pieces (the first if several tie).
    /// Fails with [`TilingError::Stopped`] once `stop` is set.
    pub(super) fn largest(
        class: &[usize],
        placements: &[Placement],
        stop: &AtomicBool,
    ) -> Result<Option<Self>, TilingError> {
        let members_of = |first: usize| -> Vec<usize> {
            (0..class.len()).filter(|&p| class[p] == first).collect()
        };
        let members = (0..class.len())
            .filter(|&p| class[p] == p)
            .map(members_of)
            .filter(|members| members.len() > 1)
            .max_by_key(|members| (members.len(), std::cmp::Reverse(members[0])));
        let Some(members) = members else {
            return Ok(None);
        };
        let stopped =
            |index: usize| index.is_multiple_of(STOP_LOOK_EVERY) && stop.load(Ordering::Relaxed);
        // Identical pieces have the same orientations, so the same cell sets; placement
        // cells are sorted, which makes them a key.
        let mut by_cells: HashMap<(usize, &[usize]), usize> = HashMap::new();
        for (index, placement) in placements.iter().enumerate() {
            if stopped(index) {
                return Err(TilingError::Stopped);
            }
            by_cells.insert((placement.piece, &placement.cells), index);
        }
        let mut same_cells = HashMap::new();
        for (index, placement) in placements.iter().enumerate() {
            // A placement of the first member costs a lookup per member: look at `stop`
            // at each.
            if placement.piece != members[0] {
                if stopped(index) {
                    return Err(TilingError::Stopped);
                }
                continue;
            }
            if stop.load(Ordering::Relaxed) {
                return Err(TilingError::Stopped);
            }
            let twins = members
                .iter()
                .map(|&member| by_cells[&(member, placement.cells.as_slice())])
                .collect();
            same_cells.insert(index, twins);
        }
        let labellings = (1..=members.len() as u64).map(BigUint::from).product();
        Ok(Some(MergedGroup {
            members,
            same_cells,
            labellings,
        }))
    }

    /// Calls `visit` with every labelling of `solution` (placement indices, the group's
    /// placements all of its first member): each permutation of the members over the
    /// group's placements, the identity first. Leaves `solution` as it found it.
    pub(super) fn each_labelling<F>(
        &self,
        placements: &[Placement],
        solution: &mut [usize],
        visit: &mut F,
    ) -> ControlFlow<()>
    where
        F: FnMut(&[usize]) -> ControlFlow<()>,
    {
        let slots: Vec<usize> = (0..solution.len())
            .filter(|&slot| placements[solution[slot]].piece == self.members[0])
            .collect();
        let twins: Vec<&Vec<usize>> = slots
            .iter()
            .map(|&slot| &self.same_cells[&solution[slot]])
            .collect();
        let mut order: Vec<usize> = (0..slots.len()).collect();
        let mut flow = ControlFlow::Continue(());
        loop {
            for ((&slot, twins), &member) in slots.iter().zip(&twins).zip(&order) {
                solution[slot] = twins[member];
            }
            if visit(solution).is_break() {
                flow = ControlFlow::Break(());
                break;
            }
            if !next_permutation(&mut order) {
                break;
            }
        }
        for (&slot, twins) in slots.iter().zip(&twins) {
            solution[slot] = twins[0];
        }
        flow
    }
}

/// Steps `order` to the next permutation in lexicographic order; `false` (and `order`
/// unchanged) after the last one.
fn next_permutation(order: &mut [usize]) -> bool {
    let Some(pivot) = (1..order.len()).rev().find(|&i| order[i - 1] < order[i]) else {
        return false;
    };
    let swap = (pivot..order.len())
        .rev()
        .find(|&i| order[i] > order[pivot - 1])
        .expect("order[pivot] is larger");
    order.swap(pivot - 1, swap);
    order[pivot..].reverse();
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_in_lexicographic_order() {
        let mut order = vec![0, 1, 2];
        let mut seen = vec![order.clone()];
        while next_permutation(&mut order) {
            seen.push(order.clone());
        }
        assert_eq!(
            seen,
            [
                [0, 1, 2],
                [0, 2, 1],
                [1, 0, 2],
                [1, 2, 0],
                [2, 0, 1],
                [2, 1, 0]
            ]
        );
        assert_eq!(order, [2, 1, 0]);
    }
}
