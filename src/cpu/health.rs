//! Twin of `check_health` in `shaders/health.wgsl`.

use glam::{Vec4, Vec4Swizzles};
use rayon::prelude::*;

use super::common::is_bad;
use crate::config::{Health, StepParams};

/// Twin of `report_bad`: raises the flag for particle `i` (both fields only go down).
#[inline]
pub(crate) fn report_bad(health: &mut Health, params: &StepParams, i: u32) {
    health.first_bad = health.first_bad.min(i);
    health.frame = health.frame.min(params.frame);
}

/// Lowers the health flag to the first particle that `is_bad` (the GPU does it with an
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
