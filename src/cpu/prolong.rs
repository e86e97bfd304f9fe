//! Twin of `prolong` in `shaders/prolong.wgsl`.

use glam::{Vec4, Vec4Swizzles};
use rayon::prelude::*;

use super::{MIN_PER_TASK, SharedSlice};
use crate::config::ColorRange;
use crate::hierarchy::Hierarchy;

/// Moves each free particle of `range` (the entries of one level, [`crate::hierarchy::Level`])
/// by the weighted displacement of its coarse neighbours since the snapshot:
/// `x += Σ weight · (x_parent − snapshot_parent)`. Pinned (and held) particles stay.
///
/// Only a built [`Hierarchy`] reaches this function, and `range` must be exactly one of its
/// levels: [`Hierarchy::new`] checks that a level's particles are distinct and none of them is
/// a parent, so the threads do not race.
///
/// # Panics
/// When `range` is not one level's entries, or `positions` or `snapshot` are shorter than the
/// hierarchy needs.
pub fn prolong(
    range: &ColorRange,
    hierarchy: &Hierarchy,
    positions: &mut [Vec4],
    snapshot: &[Vec4],
) {
    let entries = hierarchy
        .level_entries(range)
        .expect("prolong: the range is not one of the hierarchy's levels");
    let nodes = hierarchy.nodes();
    assert!(
        snapshot.len() >= nodes.len() && nodes.iter().all(|&p| (p as usize) < positions.len()),
        "prolong: {} snapshot slots and {} positions for the hierarchy",
        snapshot.len(),
        positions.len()
    );
    assert!(
        entries
            .iter()
            .all(|e| (e.particle as usize) < positions.len()),
        "prolong: an entry's particle is beyond {} positions",
        positions.len()
    );
    // Each thread writes its own particle and reads coarser ones.
    let shared = SharedSlice::new(positions);
    let shared = &shared;
    entries.par_iter().with_min_len(MIN_PER_TASK).for_each(|e| {
        // SAFETY: every entry's particle is distinct and in bounds, and no entry's parent
        // is any entry's particle (the hierarchy's invariant, and the asserts above), so
        // each thread is the only one touching its particle and reads only particles
        // nobody writes. Only reads and writes through the pointer are made, no references.
        let i = e.particle as usize;
        let p = unsafe { shared.at(i).read() };
        if p.w == 0.0 {
            return;
        }
        let mut moved = glam::Vec3::ZERO;
        for (&s, &w) in e.parents.iter().zip(&e.weights) {
            let x = unsafe { shared.at(nodes[s as usize] as usize).read() };
            moved += (x.xyz() - snapshot[s as usize].xyz()) * w;
        }
        unsafe { shared.at(i).write((p.xyz() + moved).extend(p.w)) };
    });
}
