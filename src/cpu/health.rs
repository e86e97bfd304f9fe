//! Twin of `check_health` in `shaders/health.wgsl`.

use glam::{Vec4, Vec4Swizzles};
use rayon::prelude::*;

use crate::config::{Health, StepParams};

/// Twin of `is_bad` (`shaders/common.wgsl`): true when `x` is non-finite or farther than the
/// divergence limit from the scene's centre. Non-finite is told from the exponent bits, as the
/// kernel must (WGSL may assume floats are finite).
#[inline]
pub(crate) fn is_bad(params: &StepParams, x: glam::Vec3) -> bool {
    let center = Vec4::from_array(params.center);
    let d = x - center.xyz();
    non_finite(x.x) || non_finite(x.y) || non_finite(x.z) || d.dot(d) > center.w * center.w
}

/// Twin of `non_finite`: an infinity or a NaN, told from the exponent bits.
#[inline]
pub(crate) fn non_finite(v: f32) -> bool {
    v.to_bits() & 0x7f80_0000 == 0x7f80_0000
}

/// Twin of `report_bad`: raises the flag for particle `i` (both fields only go down).
#[inline]
pub(crate) fn report_bad(health: &mut Health, params: &StepParams, i: u32) {
    health.first_bad = health.first_bad.min(i);
    health.frame = health.frame.min(params.frame);
}

/// Lowers the health flag to the first particle that [`is_bad`] (the GPU does it with an
/// atomic minimum).
pub fn check_health(params: &StepParams, positions: &[Vec4], health: &mut Health) {
    let n = params.particle_count as usize;
    let bad = positions[..n]
        .par_iter()
        .position_first(|p| is_bad(params, p.xyz()));
    if let Some(i) = bad {
        report_bad(health, params, i as u32);
    }
}
