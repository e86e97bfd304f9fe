//! Twin of `check_health` in `shaders/health.wgsl`.

use glam::{Vec4, Vec4Swizzles};
use rayon::prelude::*;

use crate::config::{Health, StepParams};

/// True when `x` is non-finite or farther than `limit` from the origin. Non-finite is told from
/// the exponent bits, as the kernel must (WGSL may assume floats are finite).
#[inline]
pub(crate) fn is_bad(x: glam::Vec3, limit: f32) -> bool {
    let non_finite = x
        .to_array()
        .iter()
        .any(|v| v.to_bits() & 0x7f80_0000 == 0x7f80_0000);
    non_finite || x.dot(x) > limit * limit
}

/// Lowers `health.first_bad` to the first particle whose position is non-finite or farther
/// than `params.max_distance` from the origin (the GPU does it with an atomic minimum).
pub fn check_health(params: &StepParams, positions: &[Vec4], health: &mut Health) {
    let n = params.particle_count as usize;
    let bad = positions[..n]
        .par_iter()
        .position_first(|p| is_bad(p.xyz(), params.max_distance));
    if let Some(i) = bad {
        health.first_bad = health.first_bad.min(i as u32);
    }
}
