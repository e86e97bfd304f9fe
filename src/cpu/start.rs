//! Twin of `start` in `shaders/start.wgsl`.

use glam::{Vec4, Vec4Swizzles};
use rayon::prelude::*;

use super::MIN_PER_TASK;
use crate::config::StepParams;
use crate::integrator::start_previous;

/// Sets `x₋₁ = x₀ − v₀h + ½ah²` for every free particle from its *current* position (so edits
/// made before the first step count), and `x₋₁ = x₀` for pinned ones.
pub fn start(params: &StepParams, positions: &[Vec4], previous: &mut [Vec4]) {
    let n = params.particle_count as usize;
    let velocity = Vec4::from_array(params.start_velocity).xyz();
    let accel = Vec4::from_array(params.accel).xyz();
    let particles = positions[..n].par_iter().zip(&mut previous[..n]);
    particles.with_min_len(MIN_PER_TASK).for_each(|(p, prev)| {
        let x = p.xyz();
        *prev = if p.w == 0.0 {
            x.extend(0.0)
        } else {
            start_previous(x, velocity, accel, params.h).extend(0.0)
        };
    });
}
