//! Twin of `solve_color` in `shaders/solve_color.wgsl`.

use glam::{Vec4, Vec4Swizzles};
use rayon::prelude::*;

use super::common::{
    color_walk, is_structural, limit_held, limit_pair, limit_relax, material_slot, solve_pair,
    solve_stencil, stencil_slot, stencil_weights,
};
use super::{MIN_PER_TASK, SharedSlice};
use crate::coloring::ColoredConstraints;
use crate::config::{ColorRange, StepParams};
use crate::constraint::Constraint;

/// Relaxes every constraint of one color, in parallel, as the GPU does: one XPBD step per
/// constraint, along the current bond (Jakobsen) or the bond at the start of the step (SHAKE).
///
/// Only a checked coloring reaches this function: [`ColoredConstraints`] cannot be made
/// without validation, and `color` must be exactly one of its colors, so no particle appears
/// twice among the constraints solved together and every index is in bounds.
///
/// `materials` holds each material's α̃ per kind (a constraint reads element `kind` of the
/// table seen as floats: row [`Constraint::material`], column its kind).
///
/// # Panics
/// When `color` is not one of `constraints`' colors, or `positions`, `previous` or
/// `multipliers` are shorter than the coloring needs, or a constraint's material has no row.
pub fn solve_color(
    color: &ColorRange,
    constraints: &ColoredConstraints,
    positions: &mut [Vec4],
    previous: &[Vec4],
    multipliers: &mut [f32],
    params: &StepParams,
    materials: &[Vec4],
) {
    let batch = constraints
        .color(color)
        .expect("solve_color: the range is not one of the checked colors");
    check_particles("solve_color", constraints, positions, previous);
    assert!(
        multipliers.len() >= constraints.constraints().len(),
        "solve_color: {} multipliers for {} constraints",
        multipliers.len(),
        constraints.constraints().len()
    );
    // Four floats a material, indexed by the constraint's kind bits as the kernel does.
    let alphas: &[f32] = bytemuck::cast_slice(materials);
    let record = Record {
        params,
        alphas,
        previous,
        first_sweep: color.first_sweep == 1,
    };
    if color.is_serial() {
        // Thread 0 alone, record after record (`color_walk`): the records may share particles.
        let stencils = batch.first().is_some_and(Constraint::is_stencil);
        let width = if stencils { 2 } else { 1 };
        let (first, step) = color_walk(color, 0, width, color.count);
        for at in (first..color.count).step_by(step as usize) {
            let k = at as usize;
            let lambda = &mut multipliers[color.start as usize + k];
            if stencils {
                let [head, tail] = [&batch[k], &batch[k + 1]];
                let ids = [head.i, head.j, tail.i, tail.j].map(|i| i as usize);
                let mut x = ids.map(|i| positions[i]);
                record.solve_stencil_record(head, tail, &mut x, lambda);
                for (i, v) in ids.into_iter().zip(x) {
                    positions[i] = v;
                }
            } else {
                let c = &batch[k];
                let (mut pi, mut pj) = (positions[c.i as usize], positions[c.j as usize]);
                record.solve_distance_record(c, &mut pi, &mut pj, lambda);
                (positions[c.i as usize], positions[c.j as usize]) = (pi, pj);
            }
        }
        return;
    }
    let (positions, multipliers) = (SharedSlice::new(positions), SharedSlice::new(multipliers));
    let (positions, multipliers) = (&positions, &multipliers);
    let first = color.start as usize;
    if batch.first().is_some_and(Constraint::is_stencil) {
        // A color of bending stencils: one thread per stencil (two records).
        batch
            .par_chunks_exact(2)
            .enumerate()
            .with_min_len(MIN_PER_TASK / 2)
            .for_each(|(k, pair)| {
                let (head, tail) = (&pair[0], &pair[1]);
                let ids = [head.i, head.j, tail.i, tail.j];
                // SAFETY: the four particles are below particle_count <= positions.len() and
                // distinct, and no other record of this color names any of them (the
                // coloring's invariant covers both records of a stencil, which it keeps in one
                // color, and a color that is not serial); multiplier first + 2k is this
                // stencil's alone. So these are the only live references.
                let (mut p, lambda) = unsafe {
                    (
                        ids.map(|i| &mut *positions.at(i as usize)),
                        &mut *multipliers.at(first + 2 * k),
                    )
                };
                let mut x = p.each_ref().map(|q| **q);
                record.solve_stencil_record(head, tail, &mut x, lambda);
                for (q, v) in p.iter_mut().zip(x) {
                    **q = v;
                }
            });
        return;
    }
    batch
        .par_iter()
        .enumerate()
        .with_min_len(MIN_PER_TASK)
        .for_each(|(k, c)| {
            // SAFETY: i and j are below particle_count <= positions.len() and differ, and no
            // other constraint of this color names either (ColoredConstraints' invariant for
            // a color that is not serial, checked at construction); multiplier first + k is
            // this constraint's alone and in bounds (checked above). So these are the only
            // live references.
            let (pi, pj, lambda) = unsafe {
                (
                    &mut *positions.at(c.i as usize),
                    &mut *positions.at(c.j as usize),
                    &mut *multipliers.at(first + k),
                )
            };
            record.solve_distance_record(c, pi, pj, lambda);
        });
}

/// What every record of one `solve_color` dispatch reads besides its particles.
struct Record<'a> {
    params: &'a StepParams,
    alphas: &'a [f32],
    previous: &'a [Vec4],
    first_sweep: bool,
}

impl Record<'_> {
    /// Twin of `solve_stencil_record`: one bending stencil (`head` and `tail`), its four
    /// particles `x`, its multiplier `lambda`.
    fn solve_stencil_record(
        &self,
        head: &Constraint,
        tail: &Constraint,
        x: &mut [Vec4; 4],
        lambda: &mut f32,
    ) {
        let alpha = self.alphas[stencil_slot(head)];
        let weights = stencil_weights(head, tail);
        solve_stencil(self.params, weights, x, alpha, lambda, self.first_sweep);
    }

    /// Twin of `solve_distance_record`: one distance constraint (or a coarse level's limit)
    /// between `pi` and `pj`, its multiplier `lambda`.
    fn solve_distance_record(
        &self,
        c: &Constraint,
        pi: &mut Vec4,
        pj: &mut Vec4,
        lambda: &mut f32,
    ) {
        let (qi, qj) = (self.previous[c.i as usize], self.previous[c.j as usize]);
        let r = qi.xyz() - qj.xyz();
        // A limit is rigid; any other constraint reads its material's compliance.
        let alpha = if c.is_limit() {
            0.0
        } else {
            self.alphas[material_slot(c)]
        };
        let held = (qi.w, qj.w);
        solve_pair(
            self.params,
            c,
            pi,
            pj,
            r,
            held,
            alpha,
            lambda,
            self.first_sweep,
        );
    }
}

/// Twin of `limit_color` in `shaders/solve_color.wgsl`: the strain limit over one color, in
/// parallel, as the GPU does. Each structural edge longer than `params.strain_limit` × its rest
/// length is shortened to it (`limit_pair`); every other record is left alone.
///
/// # Panics
/// As [`solve_color`]: when `color` is not one of `constraints`' colors, or `positions` or
/// `previous` are shorter than the coloring needs.
pub fn limit_color(
    color: &ColorRange,
    constraints: &ColoredConstraints,
    positions: &mut [Vec4],
    previous: &[Vec4],
    params: &StepParams,
) {
    let batch = constraints
        .color(color)
        .expect("limit_color: the range is not one of the checked colors");
    check_particles("limit_color", constraints, positions, previous);
    // The frame's last substep is the one that ends at t = 1.
    let relax = limit_relax(params, params.t_to == 1.0);
    if color.is_serial() {
        // One thread, record after record (`color_walk`): the records may share particles.
        for c in batch.iter().filter(|c| is_structural(c)) {
            let (mut pi, mut pj) = (positions[c.i as usize], positions[c.j as usize]);
            let held = limit_held(params, previous[c.i as usize].w, previous[c.j as usize].w);
            limit_pair(params.strain_limit, relax, c, &mut pi, &mut pj, held);
            (positions[c.i as usize], positions[c.j as usize]) = (pi, pj);
        }
        return;
    }
    let positions = &SharedSlice::new(positions);
    batch.par_iter().with_min_len(MIN_PER_TASK).for_each(|c| {
        if !is_structural(c) {
            return;
        }
        // SAFETY: as in `solve_color`: i and j are in bounds and distinct, and no other
        // record of this color (not serial) names either.
        let (pi, pj) = unsafe {
            (
                &mut *positions.at(c.i as usize),
                &mut *positions.at(c.j as usize),
            )
        };
        let held = limit_held(params, previous[c.i as usize].w, previous[c.j as usize].w);
        limit_pair(params.strain_limit, relax, c, pi, pj, held);
    });
}

/// Panics unless `positions` and `previous` cover every particle `constraints` names.
fn check_particles(
    kernel: &str,
    constraints: &ColoredConstraints,
    positions: &[Vec4],
    previous: &[Vec4],
) {
    let n = constraints.particle_count();
    assert!(
        positions.len() >= n && previous.len() >= n,
        "{kernel}: {} positions and {} previous positions for a coloring of {n} particles",
        positions.len(),
        previous.len()
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraint::ConstraintKind;

    /// The strain limit held a particle that static friction held (the contact flag in its
    /// previous position's w) as it holds a pin, so an edge between two such particles, or a
    /// chain of free ones between them, stayed stretched for good: a sheet draped on a ball
    /// kept edges at 1.14 × their length at rest. Now the limit moves them, except in frames
    /// with a box (`StepParams::limit_holds`), whose edge pushes need them held.
    #[test]
    fn the_strain_limit_shortens_an_edge_that_friction_holds_at_both_ends() {
        let edge = Constraint::new(0, 1, 1.0, ConstraintKind::Structural);
        let (colored, _) = ColoredConstraints::new(&[edge], 2).unwrap();
        let color = ColorRange::new(&colored.colors()[0]);
        let start = vec![Vec4::new(0.0, 0.0, 0.0, 1.0), Vec4::new(1.5, 0.0, 0.0, 1.0)];
        // Both ends held by static friction this substep (the flag in w).
        let previous = start.clone();
        let run = |limit_holds: u32| {
            let params = StepParams {
                strain_limit: 1.1,
                limit_holds,
                ..StepParams::default()
            };
            let mut positions = start.clone();
            limit_color(&color, &colored, &mut positions, &previous, &params);
            positions
        };
        let moved = run(0);
        let length = moved[0].xyz().distance(moved[1].xyz());
        assert!(
            (length - 1.1).abs() < 1e-6,
            "the held edge is {length} long"
        );
        // Each end moved by half: equal masses, neither pinned.
        assert!((moved[0].x - 0.2).abs() < 1e-6 && (moved[1].x - 1.3).abs() < 1e-6);
        // In a frame with a box the limit holds them.
        assert_eq!(run(1), start);
    }
}
