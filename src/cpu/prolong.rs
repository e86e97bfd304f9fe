//! Twin of `prolong` in `shaders/prolong.wgsl`.

use glam::{Vec4, Vec4Swizzles};
use rayon::prelude::*;

use super::MIN_PER_TASK;
use crate::config::ColorRange;
use crate::hierarchy::Prolongation;

/// Positions shared by the threads: each writes its own particle and reads coarser ones.
struct Shared(*mut Vec4);
// SAFETY: only used inside `prolong`; see there.
unsafe impl Sync for Shared {}

/// Moves each free particle of `range` (the entries of one level, [`crate::hierarchy::Level`])
/// by the weighted displacement of its coarse neighbours since the snapshot:
/// `x += Σ weight · (x_parent − snapshot_parent)`. Pinned (and held) particles stay.
///
/// # Panics
/// When `range` is beyond `prolongations`, or an entry's particle or parent is out of bounds,
/// or a parent is also a particle of `range` (then threads would race).
pub fn prolong(
    range: &ColorRange,
    prolongations: &[Prolongation],
    nodes: &[u32],
    positions: &mut [Vec4],
    snapshot: &[Vec4],
) {
    let entries = &prolongations[range.range()];
    // The invariant the parallel loop rests on: the particles written (this range's) are not
    // among the parents read. The hierarchy builds it so (an entry is a particle a level
    // dropped, its parents are that level's); check it rather than trust it.
    let mut written = vec![false; positions.len()];
    for e in entries {
        written[e.particle as usize] = true;
    }
    for e in entries {
        for &s in &e.parents {
            let parent = nodes[s as usize] as usize;
            assert!(
                s < snapshot.len() as u32 && !written[parent],
                "prolong: entry for particle {} reads slot {s}",
                e.particle
            );
        }
    }
    let shared = Shared(positions.as_mut_ptr());
    let shared = &shared;
    entries.par_iter().with_min_len(MIN_PER_TASK).for_each(|e| {
        // SAFETY: every entry's particle is distinct and in bounds (indexed above), and
        // no entry's parent is any entry's particle (checked above), so each thread is
        // the only one touching its particle and reads only particles nobody writes.
        // Only reads and writes through the pointer are made, no references.
        let i = e.particle as usize;
        let p = unsafe { shared.0.add(i).read() };
        if p.w == 0.0 {
            return;
        }
        let mut moved = glam::Vec3::ZERO;
        for (&s, &w) in e.parents.iter().zip(&e.weights) {
            let x = unsafe { shared.0.add(nodes[s as usize] as usize).read() };
            moved += (x.xyz() - snapshot[s as usize].xyz()) * w;
        }
        unsafe { shared.0.add(i).write((p.xyz() + moved).extend(p.w)) };
    });
}
