//! Twin of `solve_color` in `shaders/solve_color.wgsl`.

use glam::{Vec4, Vec4Swizzles};
use rayon::prelude::*;

use super::MIN_PER_TASK;
use crate::cloth::Constraint;
use crate::coloring::ColoredConstraints;
use crate::config::ColorRange;

/// Positions shared by the threads solving one color.
struct SharedPositions(*mut Vec4);
// SAFETY: only used inside `solve_color`, where every element is touched by one thread.
unsafe impl Sync for SharedPositions {}

/// Relaxes every constraint of one color, in parallel, as the GPU does.
///
/// Only a checked coloring reaches this function: [`ColoredConstraints`] cannot be made
/// without validation, and `color` must be exactly one of its colors, so no particle appears
/// twice among the constraints solved together and every index is in bounds.
///
/// # Panics
/// When `color` is not one of `constraints`' colors, or `positions` holds fewer particles than
/// the coloring was checked against.
pub fn solve_color(color: &ColorRange, constraints: &ColoredConstraints, positions: &mut [Vec4]) {
    let batch = constraints
        .color(color)
        .expect("solve_color: the range is not one of the checked colors");
    assert!(
        positions.len() >= constraints.particle_count(),
        "solve_color: {} positions for a coloring of {} particles",
        positions.len(),
        constraints.particle_count()
    );
    let shared = SharedPositions(positions.as_mut_ptr());
    let shared = &shared;
    batch.par_iter().with_min_len(MIN_PER_TASK).for_each(|c| {
        // SAFETY: i and j are below particle_count <= positions.len() and differ, and no other
        // constraint of this color names either (ColoredConstraints' invariant, checked at
        // construction), so these are the only live references to the two elements.
        let (pi, pj) = unsafe {
            (
                &mut *shared.0.add(c.i as usize),
                &mut *shared.0.add(c.j as usize),
            )
        };
        solve_constraint(c, pi, pj);
    });
}

/// One thread of `solve_color`.
#[inline]
fn solve_constraint(c: &Constraint, pi: &mut Vec4, pj: &mut Vec4) {
    let w_sum = pi.w + pj.w;
    // Both ends pinned: nothing can move.
    if w_sum == 0.0 {
        return;
    }
    let d = pj.xyz() - pi.xyz();
    let len = d.length();
    // Coincident particles give no direction to push along.
    if len < 1e-9 {
        return;
    }
    let n = d / len;
    let s = c.stiffness * (len - c.rest) / w_sum;
    *pi = (pi.xyz() + n * (s * pi.w)).extend(pi.w);
    *pj = (pj.xyz() - n * (s * pj.w)).extend(pj.w);
}
