//! CPU twins of the WGSL kernels in `shaders/`: one function per entry point, with the same
//! name, the same bindings in the same order, and the same order of arithmetic, so each pair
//! can be read side by side. "One thread" of a kernel is one closure call here; the loops run
//! in parallel with rayon, which is race-free for the same reason the GPU is.

use glam::{Vec3, Vec4};
use rayon::prelude::*;

use crate::cloth::Constraint;
use crate::frame::{ColorRange, StepParams};
use crate::integrator::verlet_next;

/// Particles (or constraints) per rayon task: below this, splitting costs more than it saves.
const MIN_PER_TASK: usize = 2048;

/// Twin of `integrate` in `shaders/integrate.wgsl`.
pub fn integrate(params: &StepParams, positions: &mut [Vec4], previous: &mut [Vec4]) {
    let accel = Vec4::from_array(params.accel).truncate();
    let n = params.particle_count as usize;
    let particles = positions[..n].par_iter_mut().zip(&mut previous[..n]);
    particles.with_min_len(MIN_PER_TASK).for_each(|(p, prev)| {
        // Pinned particles (inverse mass 0) never move.
        if p.w == 0.0 {
            return;
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
    });
}

/// Positions shared by the threads solving one color.
struct SharedPositions(*mut Vec4, usize);
// SAFETY: only used inside `solve_color`, where every element is touched by one thread.
unsafe impl Sync for SharedPositions {}

/// Twin of `solve_color` in `shaders/solve_color.wgsl`.
///
/// The caller guarantees that no particle appears twice in the color and that every index is
/// in bounds ([`crate::Cloth::validate_coloring`]; `CpuSolver::new` checks it), which makes the
/// parallel read-modify-write of both ends race-free, exactly as on the GPU.
pub fn solve_color(color: &ColorRange, constraints: &[Constraint], positions: &mut [Vec4]) {
    let range = color.start as usize..(color.start + color.count) as usize;
    let shared = SharedPositions(positions.as_mut_ptr(), positions.len());
    let shared = &shared;
    constraints[range]
        .par_iter()
        .with_min_len(MIN_PER_TASK)
        .for_each(|c| {
            let (i, j) = (c.i as usize, c.j as usize);
            assert!(
                i < shared.1 && j < shared.1 && i != j,
                "constraint out of range"
            );
            // SAFETY: in bounds (checked above), and no other thread of this color touches
            // particle i or j (valid coloring), so these are the only live references.
            let (pi, pj) = unsafe { (&mut *shared.0.add(i), &mut *shared.0.add(j)) };
            solve_constraint(c, pi, pj);
        });
}

/// One thread of `solve_color`.
#[inline]
fn solve_constraint(c: &Constraint, pi: &mut Vec4, pj: &mut Vec4) {
    let w_sum = pi.w + pj.w;
    if w_sum == 0.0 {
        return;
    }
    let d = pj.truncate() - pi.truncate();
    let len = d.length();
    if len < 1e-9 {
        return;
    }
    let n = d / len;
    let s = c.stiffness * (len - c.rest) / w_sum;
    *pi = (pi.truncate() + n * (s * pi.w)).extend(pi.w);
    *pj = (pj.truncate() - n * (s * pj.w)).extend(pj.w);
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
    let particles = positions[..n].par_iter_mut().zip(&mut previous[..n]);
    particles.with_min_len(MIN_PER_TASK).for_each(|(p, prev)| {
        if p.w == 0.0 {
            return;
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
    });
}

/// Uniform block of `compute_normals` (`Grid` in `shaders/normals.wgsl`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Grid {
    /// Particles per row.
    pub columns: u32,
    /// Rows.
    pub rows: u32,
    /// Padding to 16 bytes.
    pub pad: [u32; 2],
}

/// Twin of `compute_normals` in `shaders/normals.wgsl`.
pub fn compute_normals(grid: &Grid, positions: &[Vec4], normals: &mut [Vec4]) {
    let (w, h) = (grid.columns as usize, grid.rows as usize);
    let n = w * h;
    normals[..n]
        .par_iter_mut()
        .enumerate()
        .for_each(|(i, out)| {
            let (c, r) = (i % w, i / w);
            let left = r * w + if c == 0 { c } else { c - 1 };
            let right = r * w + (c + 1).min(w - 1);
            let up = if r == 0 { r } else { r - 1 } * w + c;
            let down = (r + 1).min(h - 1) * w + c;
            let du = positions[right].truncate() - positions[left].truncate();
            let dv = positions[down].truncate() - positions[up].truncate();
            let cross = dv.cross(du);
            let len = cross.length();
            let normal = if len > 1e-12 { cross / len } else { Vec3::Y };
            *out = normal.extend(0.0);
        });
}
