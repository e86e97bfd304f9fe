//! CPU twins of the WGSL kernels in `shaders/`: one function per entry point, with the same
//! name, the same bindings in the same order, and the same order of arithmetic, so each pair
//! can be read side by side. "One thread" of a kernel is one loop iteration here.

use glam::{Vec3, Vec4};

use crate::cloth::Constraint;
use crate::frame::{ColorRange, StepParams};
use crate::integrator::verlet_next;

/// Twin of `integrate` in `shaders/integrate.wgsl`.
pub fn integrate(params: &StepParams, positions: &mut [Vec4], previous: &mut [Vec4]) {
    let accel = Vec4::from_array(params.accel).truncate();
    let n = params.particle_count as usize;
    for (p, prev) in positions[..n].iter_mut().zip(&mut previous[..n]) {
        // Pinned particles (inverse mass 0) never move.
        if p.w == 0.0 {
            continue;
        }
        let x = p.truncate();
        let x_prev = prev.truncate();
        let next = verlet_next(
            x,
            x_prev,
            accel,
            params.ratio,
            params.damping,
            params.accel_scale,
        );
        *prev = x.extend(0.0);
        *p = next.extend(p.w);
    }
}

/// Twin of `solve_color` in `shaders/solve_color.wgsl`.
pub fn solve_color(color: &ColorRange, constraints: &[Constraint], positions: &mut [Vec4]) {
    let range = color.start as usize..(color.start + color.count) as usize;
    for c in &constraints[range] {
        let pi = positions[c.i as usize];
        let pj = positions[c.j as usize];
        let w_sum = pi.w + pj.w;
        if w_sum == 0.0 {
            continue;
        }
        let d = pj.truncate() - pi.truncate();
        let len = d.length();
        if len < 1e-9 {
            continue;
        }
        let n = d / len;
        let s = c.stiffness * (len - c.rest) / w_sum;
        positions[c.i as usize] = (pi.truncate() + n * (s * pi.w)).extend(pi.w);
        positions[c.j as usize] = (pj.truncate() - n * (s * pj.w)).extend(pj.w);
    }
}

/// Twin of `contact_previous` in `shaders/collide.wgsl`.
fn contact_previous(x: Vec3, x_prev: Vec3, n: Vec3, friction: f32) -> Vec3 {
    let d = x - x_prev;
    let dn = d.dot(n);
    let tangential = d - n * dn;
    let kept = tangential * (1.0 - friction) + n * dn.max(0.0);
    x - kept
}

/// Twin of `collide` in `shaders/collide.wgsl`.
pub fn collide(params: &StepParams, positions: &mut [Vec4], previous: &mut [Vec4]) {
    let n = params.particle_count as usize;
    let sphere = Vec4::from_array(params.sphere);
    let (center, radius) = (sphere.truncate(), sphere.w);
    for (p, prev) in positions[..n].iter_mut().zip(&mut previous[..n]) {
        if p.w == 0.0 {
            continue;
        }
        let mut x = p.truncate();
        let mut x_prev = prev.truncate();
        let mut hit = false;
        if params.ground_on == 1 && x.y < params.ground_y {
            x.y = params.ground_y;
            x_prev = contact_previous(x, x_prev, Vec3::Y, params.friction);
            hit = true;
        }
        if radius > 0.0 {
            let offset = x - center;
            let dist = offset.length();
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
}
