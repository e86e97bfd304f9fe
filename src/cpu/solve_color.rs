//! Twin of `solve_color` in `shaders/solve_color.wgsl`.

use glam::{Vec4, Vec4Swizzles};
use rayon::prelude::*;

use super::MIN_PER_TASK;
use crate::cloth::Constraint;
use crate::coloring::ColoredConstraints;
use crate::config::{ColorRange, StepParams};

/// Positions and multipliers shared by the threads solving one color.
struct Shared(*mut Vec4, *mut f32);
// SAFETY: only used inside `solve_color`, where every element is touched by one thread.
unsafe impl Sync for Shared {}

/// Relaxes every constraint of one color, in parallel, as the GPU does: one XPBD step per
/// constraint, along the current bond (Jakobsen) or the bond at the start of the step (SHAKE).
///
/// Only a checked coloring reaches this function: [`ColoredConstraints`] cannot be made
/// without validation, and `color` must be exactly one of its colors, so no particle appears
/// twice among the constraints solved together and every index is in bounds.
///
/// # Panics
/// When `color` is not one of `constraints`' colors, or `positions`, `previous` or
/// `multipliers` are shorter than the coloring needs.
pub fn solve_color(
    color: &ColorRange,
    constraints: &ColoredConstraints,
    positions: &mut [Vec4],
    previous: &[Vec4],
    multipliers: &mut [f32],
    params: &StepParams,
) {
    let batch = constraints
        .color(color)
        .expect("solve_color: the range is not one of the checked colors");
    let n = constraints.particle_count();
    assert!(
        positions.len() >= n && previous.len() >= n,
        "solve_color: {} positions and {} previous positions for a coloring of {n} particles",
        positions.len(),
        previous.len()
    );
    assert!(
        multipliers.len() >= constraints.constraints().len(),
        "solve_color: {} multipliers for {} constraints",
        multipliers.len(),
        constraints.constraints().len()
    );
    let shared = Shared(positions.as_mut_ptr(), multipliers.as_mut_ptr());
    let shared = &shared;
    let first = color.start as usize;
    batch
        .par_iter()
        .enumerate()
        .with_min_len(MIN_PER_TASK)
        .for_each(|(k, c)| {
            // SAFETY: i and j are below particle_count <= positions.len() and differ, and no
            // other constraint of this color names either (ColoredConstraints' invariant,
            // checked at construction); multiplier first + k is this constraint's alone and
            // in bounds (checked above). So these are the only live references.
            let (pi, pj, lambda) = unsafe {
                (
                    &mut *shared.0.add(c.i as usize),
                    &mut *shared.0.add(c.j as usize),
                    &mut *shared.1.add(first + k),
                )
            };
            let r = previous[c.i as usize].xyz() - previous[c.j as usize].xyz();
            solve_constraint(c, pi, pj, r, lambda, color.first_sweep == 1, params);
        });
}

/// One thread of `solve_color`: `r` is the bond at the start of the step.
#[inline]
fn solve_constraint(
    c: &Constraint,
    pi: &mut Vec4,
    pj: &mut Vec4,
    r: glam::Vec3,
    lambda: &mut f32,
    first_sweep: bool,
    params: &StepParams,
) {
    let w_sum = pi.w + pj.w;
    // Both ends pinned: nothing can move.
    if w_sum == 0.0 {
        return;
    }
    let d = pi.xyz() - pj.xyz();
    let len = d.length();
    // Coincident particles give no direction to push along.
    if len < 1e-9 {
        return;
    }
    let n = d / len;
    // SHAKE corrects along the bond at the start of the step; where that bond turned by more
    // than 60° in one step the linearization is poor, so fall back to the current bond.
    let mut dir = n;
    let mut along = 1.0f32;
    if params.shake == 1 {
        let r_len = r.length();
        if r_len > 1e-9 {
            let nr = r / r_len;
            let cos = n.dot(nr);
            if cos > 0.5 {
                dir = nr;
                along = cos;
            }
        }
    }
    let alpha = params.compliance[c.kind as usize];
    let relaxation = params.compliance[3];
    let lambda0 = if first_sweep { 0.0 } else { *lambda };
    let constraint = len - c.rest;
    let d_lambda = (-constraint - alpha * lambda0) / (w_sum * along + alpha) * relaxation;
    *lambda = lambda0 + d_lambda;
    *pi = (pi.xyz() + dir * (d_lambda * pi.w)).extend(pi.w);
    *pj = (pj.xyz() - dir * (d_lambda * pj.w)).extend(pj.w);
}
