//! Twin of `collide` in `shaders/collide.wgsl`.

use glam::{Vec3, Vec4, Vec4Swizzles};
use rayon::prelude::*;

use super::MIN_PER_TASK;
use crate::config::StepParams;

/// Twin of `contact_previous`: the previous position that leaves, after contact with a surface
/// of outward normal `n`, no motion into it, motion away kept, sliding reduced by `friction`.
fn contact_previous(x: Vec3, x_prev: Vec3, n: Vec3, friction: f32) -> Vec3 {
    let d = x - x_prev;
    let dn = d.dot(n);
    let tangential = d - n * dn;
    let kept = tangential * (1.0 - friction) + n * dn.max(0.0);
    x - kept
}

/// Pushes every free particle out of the ground plane and the sphere by projection.
pub fn collide(params: &StepParams, positions: &mut [Vec4], previous: &mut [Vec4]) {
    let n = params.particle_count as usize;
    let particles = positions[..n].par_iter_mut().zip(&mut previous[..n]);
    particles
        .with_min_len(MIN_PER_TASK)
        .for_each(|(p, prev)| collide_particle(params, p, prev));
}

/// One thread of `collide` (twin of `collide_particle` in `shaders/common.wgsl`); writes only
/// on contact.
#[inline]
pub(crate) fn collide_particle(params: &StepParams, p: &mut Vec4, prev: &mut Vec4) {
    if p.w == 0.0 {
        return;
    }
    let sphere = Vec4::from_array(params.sphere);
    let (center, radius) = (sphere.xyz(), sphere.w);
    let mut x = p.xyz();
    let mut x_prev = prev.xyz();
    let mut hit = false;
    if params.ground_on == 1 && x.y < params.ground_y {
        x.y = params.ground_y;
        x_prev = contact_previous(x, x_prev, Vec3::Y, params.friction);
        hit = true;
    }
    if radius > 0.0 {
        let offset = x - center;
        let dist = offset.length();
        // A particle exactly at the centre has no way out to prefer; leave it.
        if dist < radius && dist > 1e-9 {
            let normal = offset / dist;
            x = center + normal * radius;
            x_prev = contact_previous(x, x_prev, normal, params.friction);
            hit = true;
        }
    }
    if hit {
        *p = x.extend(p.w);
        *prev = x_prev.extend(0.0);
    }
}
