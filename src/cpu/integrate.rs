//! Twin of `integrate` in `shaders/integrate.wgsl`.

use glam::{Vec4, Vec4Swizzles};
use rayon::prelude::*;

use super::MIN_PER_TASK;
use crate::config::StepParams;
use super::common::verlet;

/// One Verlet-family step of every free particle:
/// `x + (x - x_prev) * (ratio * damping) + accel * accel_scale`.
pub fn integrate(params: &StepParams, positions: &mut [Vec4], previous: &mut [Vec4]) {
    let n = params.particle_count as usize;
    let particles = positions[..n].par_iter_mut().zip(&mut previous[..n]);
    particles
        .with_min_len(MIN_PER_TASK)
        .for_each(|(p, prev)| integrate_particle(params, p, prev));
}

/// One thread of `integrate` (and of the fused kernel's integrate stage).
#[inline]
pub(crate) fn integrate_particle(params: &StepParams, p: &mut Vec4, prev: &mut Vec4) {
    // Pinned particles (inverse mass 0) never move.
    if p.w == 0.0 {
        return;
    }
    let x = p.xyz();
    let next = verlet(params, x, prev.xyz());
    // w carries the contact flag `collide` left (held by static friction) into this
    // substep's solve, where the coarse levels hold such a particle as a pin.
    *prev = x.extend(prev.w);
    *p = next.extend(p.w);
}

