//! Twin of `integrate` in `shaders/integrate.wgsl`.

use glam::{Vec4, Vec4Swizzles};
use rayon::prelude::*;

use super::MIN_PER_TASK;
use super::common::{pin_flag, pin_step, verlet};
use crate::config::StepParams;

/// One Verlet-family step of every free particle:
/// `x + (x - x_prev) * (ratio * damping) + accel * accel_scale`; a pinned particle the host
/// moves takes its step (`pin_step`).
pub fn integrate(params: &StepParams, positions: &mut [Vec4], previous: &mut [Vec4]) {
    let n = params.particle_count as usize;
    let particles = positions[..n].par_iter_mut().zip(&mut previous[..n]);
    particles
        .with_min_len(MIN_PER_TASK)
        .for_each(|(p, prev)| integrate_particle(params, params.t_to, p, prev));
}

/// One thread of `integrate` (and of the fused kernel's integrate stage), in a substep that
/// ends at frame fraction `t_to`.
#[inline]
pub(crate) fn integrate_particle(params: &StepParams, t_to: f32, p: &mut Vec4, prev: &mut Vec4) {
    // A pinned particle (inverse mass 0) moves only while the host carries it over the frame
    // (`World::move_pin`: its flag in the previous position's w).
    if p.w == 0.0 {
        if prev.w != 0.0 {
            let q = *prev;
            *prev = p.xyz().extend(pin_flag(t_to, q.w));
            *p = pin_step(t_to, p.xyz(), q).extend(p.w);
        }
        return;
    }
    let x = p.xyz();
    let next = verlet(params, x, prev.xyz());
    // w carries the contact flag `collide` left (held by static friction) into this
    // substep's solve, where the coarse levels hold such a particle as a pin.
    *prev = x.extend(prev.w);
    *p = next.extend(p.w);
}
