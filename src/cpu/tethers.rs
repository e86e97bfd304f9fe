//! Twin of `solve_tethers` in `shaders/tethers.wgsl`.

use glam::{Vec4, Vec4Swizzles};
use rayon::prelude::*;

use super::MIN_PER_TASK;
use crate::config::{StepParams, TETHER_SLOTS, TetherSlot};
use crate::tethers::Tethers;

/// Positions shared by the threads: each writes its own particle and reads anchors only.
struct Shared(*mut Vec4);
// SAFETY: only used inside `solve_tethers`; see there.
unsafe impl Sync for Shared {}

/// Pulls every free particle back within `tether_scale` × its geodesic distance of each of its
/// anchors, one thread per particle, moving only that particle.
///
/// # Panics
/// When an anchor of `tethers` is not pinned (inverse mass 0) in `positions`, or the slots do
/// not cover `params.particle_count` particles.
pub fn solve_tethers(params: &StepParams, positions: &mut [Vec4], tethers: &Tethers) {
    let n = params.particle_count as usize;
    assert!(
        tethers.particle_count() >= n && positions.len() >= n,
        "solve_tethers: slots or positions for fewer than {n} particles"
    );
    // Anchors never move (inverse mass 0), so no thread writes what another reads.
    for &a in tethers.anchors() {
        assert!(
            positions[a as usize].w == 0.0,
            "solve_tethers: anchor {a} is not pinned"
        );
    }
    let shared = Shared(positions.as_mut_ptr());
    let shared = &shared;
    let slots = tethers.slots();
    (0..n)
        .into_par_iter()
        .with_min_len(MIN_PER_TASK)
        .for_each(|i| {
            // SAFETY (this read, the anchor reads and the write below): thread i alone writes
            // particle i, and only when it is free; the other particles it reads are anchors
            // (inverse mass 0, checked above), which no thread writes. Only reads and writes
            // through the pointer are made, no references. Every index is below n <=
            // positions.len() (the slots and anchors come from the same cloth).
            let p = unsafe { shared.0.add(i).read() };
            if p.w == 0.0 {
                return;
            }
            let mut x = p.xyz();
            for slot in &slots[i * TETHER_SLOTS..(i + 1) * TETHER_SLOTS] {
                if slot.anchor == TetherSlot::NONE {
                    continue;
                }
                let a = unsafe { shared.0.add(slot.anchor as usize).read() }.xyz();
                x = tether_pull(params, x, a, slot.rest);
            }
            unsafe { shared.0.add(i).write(x.extend(p.w)) };
        });
}

/// One tether (twin of `tether_pull` in `shaders/common.wgsl`): `x` pulled back towards its
/// anchor `a` when farther than `tether_scale × rest`.
#[inline]
pub(crate) fn tether_pull(
    params: &StepParams,
    x: glam::Vec3,
    a: glam::Vec3,
    rest: f32,
) -> glam::Vec3 {
    let d = x - a;
    let len = d.length();
    let limit = params.tether_scale * rest;
    // Unilateral: only a particle farther than the limit is pulled back.
    if len > limit && len > 1e-9 {
        x - d * ((len - limit) / len * params.tether_stiffness)
    } else {
        x
    }
}
