//! Twin of `solve_color` in `shaders/solve_color.wgsl`.

use glam::{Vec4, Vec4Swizzles};
use rayon::prelude::*;

use super::MIN_PER_TASK;
use crate::constraint::Constraint;
use crate::coloring::ColoredConstraints;
use crate::config::{ColorRange, StepParams};
use crate::hierarchy::limit_weights;

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
    let shared = Shared(positions.as_mut_ptr(), multipliers.as_mut_ptr());
    let shared = &shared;
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
                let weights = stencil_weights(head, tail);
                // SAFETY: the four particles are below particle_count <= positions.len() and
                // distinct, and no other record of this color names any of them (the
                // coloring's invariant covers both records of a stencil, which it keeps in one
                // color); multiplier first + 2k is this stencil's alone. So these are the only
                // live references.
                let (mut p, lambda) = unsafe {
                    (
                        ids.map(|i| &mut *shared.0.add(i as usize)),
                        &mut *shared.1.add(first + 2 * k),
                    )
                };
                let alpha = alphas[stencil_slot(head)];
                let mut x = p.each_ref().map(|q| **q);
                solve_stencil(params, weights, &mut x, alpha, lambda, color.first_sweep == 1);
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
            let (qi, qj) = (previous[c.i as usize], previous[c.j as usize]);
            let r = qi.xyz() - qj.xyz();
            // A limit is rigid; any other constraint reads its material's compliance.
            let alpha = if c.is_limit() {
                0.0
            } else {
                alphas[c.material_slot()]
            };
            let held = (qi.w, qj.w);
            solve_pair(params, c, pi, pj, r, held, alpha, lambda, color.first_sweep == 1);
        });
}

/// Twin of `limit_color` in `shaders/solve_color.wgsl`: the strain limit over one color, in
/// parallel, as the GPU does. Each structural edge longer than `params.strain_limit` × its rest
/// length is shortened to it ([`limit_pair`]); every other record is left alone.
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
    let shared = Shared(positions.as_mut_ptr(), std::ptr::null_mut());
    let shared = &shared;
    batch
        .par_iter()
        .with_min_len(MIN_PER_TASK)
        .for_each(|c| {
            if !is_structural(c) {
                return;
            }
            // SAFETY: as in `solve_color`: i and j are in bounds and distinct, and no other
            // record of this color names either.
            let (pi, pj) = unsafe {
                (
                    &mut *shared.0.add(c.i as usize),
                    &mut *shared.0.add(c.j as usize),
                )
            };
            let held = (previous[c.i as usize].w, previous[c.j as usize].w);
            limit_pair(params.strain_limit, c, pi, pj, held);
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

/// Twin of `is_structural` (common.wgsl): the strain limit applies to a structural edge
/// (kind 0), not to a stencil's record.
#[inline]
pub(crate) fn is_structural(c: &Constraint) -> bool {
    c.packed & (Constraint::STENCIL | 3) == 0
}

/// Twin of `limit_pair` (common.wgsl): one structural edge (kind 0, not a stencil) longer than
/// `limit` × its rest length shortened to it, its ends moving along it by their inverse
/// masses; an end that contact holds (`held`, the previous positions' w) stays. Shared by
/// [`limit_color`] and the fused kernel's twin.
#[inline]
pub(crate) fn limit_pair(
    limit: f32,
    c: &Constraint,
    pi: &mut Vec4,
    pj: &mut Vec4,
    held: (f32, f32),
) {
    if !is_structural(c) {
        return;
    }
    let (wi, wj) = (unheld(pi.w, held.0), unheld(pj.w, held.1));
    let w_sum = wi + wj;
    if w_sum == 0.0 {
        return;
    }
    let d = pi.xyz() - pj.xyz();
    let len2 = d.dot(d);
    let longest = limit * c.rest;
    if len2 <= longest * longest {
        return;
    }
    let len = len2.sqrt();
    let k = (len - longest) / (len * w_sum);
    *pi = (pi.xyz() - d * (k * wi)).extend(pi.w);
    *pj = (pj.xyz() + d * (k * wj)).extend(pj.w);
}

/// One thread of `solve_color` (and of the fused kernel's solve): `r` is the bond at the start
/// of the step, `held` the ends' contact flags (the previous positions' w: 1 for a particle a
/// collider held by static friction at the end of the last substep), `alpha` the
/// constraint's α̃. The step is [`xpbd_step`].
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn solve_pair(
    params: &StepParams,
    c: &Constraint,
    pi: &mut Vec4,
    pj: &mut Vec4,
    r: glam::Vec3,
    held: (f32, f32),
    alpha: f32,
    lambda: &mut f32,
    first_sweep: bool,
) {
    let lambda0 = if first_sweep { 0.0 } else { *lambda };
    // A coarse level's limit moves its ends by the masses they stand for, and holds an end
    // that contact holds as it holds a pin: the level then carries what hangs from a support
    // to it, as it carries what hangs from a pin (Müller 2008 treats contacts on every level).
    let limit = c.is_limit();
    let (wi, wj) = if limit {
        limit_weights(c.packed, unheld(pi.w, held.0), unheld(pj.w, held.1))
    } else {
        (pi.w, pj.w)
    };
    let (dir, d_lambda) = xpbd_step(
        params,
        c.rest,
        pi.xyz().extend(wi),
        pj.xyz().extend(wj),
        r,
        alpha,
        lambda0,
        limit,
    );
    *lambda = lambda0 + d_lambda;
    *pi = (pi.xyz() + dir * (d_lambda * wi)).extend(pi.w);
    *pj = (pj.xyz() - dir * (d_lambda * wj)).extend(pj.w);
}

/// Twin of `unheld` (common.wgsl): the inverse mass a limit sees, 0 for a held particle.
#[inline]
pub(crate) fn unheld(w: f32, held: f32) -> f32 {
    if held > 0.0 { 0.0 } else { w }
}

/// One thread of `solve_color` on a color of bending stencils (and of the fused kernel's
/// solve), twin of `solve_stencil` in `shaders/common.wgsl`: `k` the stencil's four weights,
/// `x` its four particles (w: inverse mass), `alpha` its α̃.
///   C = |κ|, κ = Σ k_a x_a,  Δλ = ω (−C − α̃ λ) / (Σ w_a k_a² + α̃),  x_a += w_a k_a (κ/|κ|) Δλ
#[inline]
pub(crate) fn solve_stencil(
    params: &StepParams,
    k: [f32; 4],
    x: &mut [Vec4; 4],
    alpha: f32,
    lambda: &mut f32,
    first_sweep: bool,
) {
    let lambda0 = if first_sweep { 0.0 } else { *lambda };
    let kappa = k[0] * x[0].xyz() + k[1] * x[1].xyz() + k[2] * x[2].xyz() + k[3] * x[3].xyz();
    let c = kappa.length();
    let move_by = [0, 1, 2, 3].map(|a| x[a].w * k[a]);
    // In order (glam's Vec4 dot sums in pairs), as the kernel does.
    let denominator =
        move_by[0] * k[0] + move_by[1] * k[1] + move_by[2] * k[2] + move_by[3] * k[3] + alpha;
    *lambda = lambda0;
    if c < 1e-9 || denominator <= 0.0 {
        return;
    }
    let d_lambda = (-c - alpha * lambda0) * params.over_relaxation / denominator;
    let step = kappa * (d_lambda / c);
    for (a, p) in x.iter_mut().enumerate() {
        *p = (p.xyz() + step * move_by[a]).extend(p.w);
    }
    *lambda = lambda0 + d_lambda;
}

/// Twin of `xpbd_step` in `shaders/common.wgsl`: the direction to move along and Δλ of one
/// XPBD step (the kernel packs them in a vec4), Δλ = 0 when nothing can move (or, for a
/// `unilateral` constraint, when it is not stretched).
///   C = |x_i − x_j| − L,  Δλ = ω (−C − α̃ λ) / ((w_i + w_j)(n · dir) + α̃)   (ω: over-relaxation)
#[allow(clippy::too_many_arguments)]
#[inline]
fn xpbd_step(
    params: &StepParams,
    rest: f32,
    pi: Vec4,
    pj: Vec4,
    r: glam::Vec3,
    alpha: f32,
    lambda0: f32,
    unilateral: bool,
) -> (glam::Vec3, f32) {
    let w_sum = pi.w + pj.w;
    // Both ends pinned: nothing can move.
    if w_sum == 0.0 {
        return (glam::Vec3::ZERO, 0.0);
    }
    let d = pi.xyz() - pj.xyz();
    let len2 = d.dot(d);
    let len = len2.sqrt();
    // Coincident particles give no direction to push along.
    if len < 1e-9 {
        return (glam::Vec3::ZERO, 0.0);
    }
    let constraint = len - rest;
    // A limit (a coarse level's constraint) only keeps its ends from moving apart.
    if unilateral && constraint <= 0.0 {
        return (glam::Vec3::ZERO, 0.0);
    }
    // SHAKE corrects along the bond at the start of the step, unless the bond turned by more
    // than 30° in the step or the correction along it would carry the bond past half its
    // length; then along the current bond. A limit always uses the current bond (see
    // `xpbd_step` in common.wgsl for why, tested there without roots).
    let numerator = (-constraint - alpha * lambda0) * params.over_relaxation;
    let r2 = r.dot(r);
    let dr = d.dot(r);
    let along_start = r2 > 1e-18
        && dr > 0.0
        && 4.0 * dr * dr > 3.0 * len2 * r2
        && -2.0 * numerator * len * r2 < dr * dr;
    if params.shake == 1 && !unilateral && along_start {
        // Along r/|r| with n·dir = d·r / (|d| |r|), the divisions folded into one.
        let r_len = r2.sqrt();
        let scale = r_len * len;
        let d_lambda = numerator * scale / (w_sum * dr + alpha * scale);
        (r * (1.0 / r_len), d_lambda)
    } else {
        (d * (1.0 / len), numerator / (w_sum + alpha))
    }
}

/// Twin of `stencil_weights` (common.wgsl): a bending stencil's four weights, from its two
/// records.
#[inline]
pub(crate) fn stencil_weights(head: &Constraint, tail: &Constraint) -> [f32; 4] {
    Constraint::stencil_parts(head, tail).1
}

/// Twin of `stencil_slot`: where a stencil's α̃ is in the `materials` table seen as floats.
#[inline]
pub(crate) fn stencil_slot(head: &Constraint) -> usize {
    head.material_slot()
}
