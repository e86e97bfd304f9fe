//! Twin of `solve_cloths` in `shaders/solve_cloths.wgsl`: the fused path, one whole frame of
//! one cloth per "workgroup" (here one rayon task per cloth), stage by stage in the kernel's
//! order. Within a cloth the twin runs each stage's threads one after another, which gives the
//! same result as the kernel's threads in parallel: a stage's threads never touch the same
//! particle (own particles, or one color), but in a serial color, which the kernel's thread 0
//! walks alone in the order the twin does. Where the kernel keeps the cloth (workgroup memory
//! or storage) changes nothing in the arithmetic; like the kernel's two pipelines, one call
//! takes the cloths of one kind (`workgroup_memory`). Sleeping follows the kernel's rules
//! exactly (the same measure, the same threshold, the same wake test), so the twin's cloths
//! sleep and wake on the same frames.

use glam::{Vec3, Vec4, Vec4Swizzles};
use rayon::prelude::*;

use super::colliders::{SubstepCollider, collide_all, collider_wakes, substep_colliders};
use super::common::{
    constraint_alpha, is_bad, is_structural, is_triangle, limit_held, limit_pair, limit_relax,
    limit_sweeps_in, solve_pair, solve_stencil, solve_triangle, stencil_weights, substep_escape,
    substep_pull, tether_pull, triangle_area_scale, triangle_frame,
};
use super::health::report_bad;
use super::integrate::integrate_particle;
use super::tethers::anchor_pair;
use crate::config::Prolongation;
use crate::config::{
    ClothRecord, ClothRest, ColliderRecord, ColorRange, FusedFrame, FusedLevel, Health, StepParams,
    TETHER_SLOTS, TetherSlot,
};
use crate::constraint::Constraint;

/// One cloth's slices of the world's buffers.
struct ClothSlices<'a> {
    record: &'a ClothRecord,
    positions: &'a mut [Vec4],
    previous: &'a mut [Vec4],
    multipliers: &'a mut [f32],
    /// The index of `multipliers[0]` in the world's buffer.
    first_constraint: usize,
}

/// Solves every cloth of `cloths` whose `shared_memory` flag is `workgroup_memory` for one
/// frame: `frame.substeps` substeps of integrate, `frame.iterations` sweeps over the cloth's
/// colors (after its coarse levels, when `frame.coarse_levels` is 1), tethers and collide; then
/// the health check. `rests` (the rest of the kernel's health binding) holds each cloth's
/// [`ClothRest`]: a sleeping cloth is skipped, unless a moving collider near its bounds wakes
/// it. `levels`, `nodes` and `prolongations` are the fused cloths' coarse levels (the kernel
/// reads them from its fused table; its snapshot lives after the multipliers, the twin's in a
/// vector of its own).
///
/// # Panics
/// When the records overlap or leave the buffers, or a cloth's colors are not one contiguous
/// ascending run of constraints, or a constraint or tether leaves its cloth: the world's
/// layout never makes such records.
#[allow(clippy::too_many_arguments)]
pub fn solve_cloths(
    frame: &FusedFrame,
    first: &StepParams,
    rest_params: &StepParams,
    cloths: &[ClothRecord],
    workgroup_memory: bool,
    colors: &[ColorRange],
    levels: &[FusedLevel],
    nodes: &[u32],
    prolongations: &[Prolongation],
    constraints: &[Constraint],
    positions: &mut [Vec4],
    previous: &mut [Vec4],
    multipliers: &mut [f32],
    tethers: &[TetherSlot],
    health: &mut Health,
    rests: &mut [ClothRest],
    colliders: &[ColliderRecord],
    distance_grid: &[f32],
    collider_cells: &[u32],
) {
    let colliders = &colliders[..first.collider_count as usize];
    let substeps: Vec<Vec<SubstepCollider>> = (0..frame.substeps)
        .map(|s| {
            let t = |s: u32| s as f32 / frame.substeps as f32;
            substep_colliders(colliders, t(s), t(s + 1))
        })
        .collect();
    let cloths = &cloths[..frame.cloth_count as usize];
    let slices = split(cloths, colors, levels, positions, previous, multipliers);
    let bad = slices
        .into_par_iter()
        .zip(rests[..cloths.len()].par_iter_mut())
        .filter_map(|(mut c, rest)| {
            // The kernel's two early returns: the other pipeline's cloth, a sleeping cloth.
            if (c.record.shared_memory == 1) != workgroup_memory
                || (frame.sleep_frames > 0 && !awake(frame, rest, colliders))
            {
                return None;
            }
            let shared = Shared {
                colors,
                levels,
                nodes,
                prolongations,
                constraints,
                tethers,
                colliders,
                substeps: &substeps,
                distance_grid,
                collider_cells,
            };
            let bad = solve_cloth(frame, first, rest_params, &shared, &mut c);
            if frame.sleep_frames > 0 {
                *rest = measure_rest(frame, rest, &c);
            }
            bad
        })
        .min();
    if let Some(i) = bad {
        report_bad(health, first, i);
    }
}

/// Thread 0's verdict at the kernel's start: whether the cloth runs this frame. A sleeping cloth
/// that a moving collider reaches wakes (its calm count restarts).
fn awake(frame: &FusedFrame, rest: &mut ClothRest, colliders: &[ColliderRecord]) -> bool {
    if !rest.asleep(frame) {
        return true;
    }
    let (lo, hi) = (Vec4::from(rest.lo).xyz(), Vec4::from(rest.hi).xyz());
    if colliders.iter().any(|c| collider_wakes(c, lo, hi)) {
        rest.calm_frames = 0;
        return true;
    }
    false
}

/// The cloth's rest state at the frame's end, as the kernel's reduction finds it: its fastest
/// free particle's step over the last substep against `frame.sleep_step`, and its bounds.
fn measure_rest(frame: &FusedFrame, rest: &ClothRest, c: &ClothSlices<'_>) -> ClothRest {
    let (mut step, mut lo, mut hi) = (0.0f32, Vec3::splat(3.0e38), Vec3::splat(-3.0e38));
    for (p, q) in c.positions.iter().zip(c.previous.iter()) {
        if p.w != 0.0 {
            step = step.max((p.xyz() - q.xyz()).length());
        }
        lo = lo.min(p.xyz());
        hi = hi.max(p.xyz());
    }
    let calm_frames = if step < frame.sleep_step {
        rest.calm_frames.min(frame.sleep_frames) + 1
    } else {
        0
    };
    ClothRest {
        calm_frames,
        step,
        lo: lo.extend(0.0).to_array(),
        hi: hi.extend(0.0).to_array(),
        ..ClothRest::AWAKE
    }
}

/// Cuts the buffers into each cloth's disjoint slices (records in ascending particle order).
fn split<'a>(
    cloths: &'a [ClothRecord],
    colors: &[ColorRange],
    levels: &[FusedLevel],
    mut positions: &'a mut [Vec4],
    mut previous: &'a mut [Vec4],
    mut multipliers: &'a mut [f32],
) -> Vec<ClothSlices<'a>> {
    let (mut particle_base, mut constraint_base) = (0usize, 0usize);
    let mut out = Vec::with_capacity(cloths.len());
    for record in cloths {
        // Its own colors, then its levels' (one run of constraints, so one run of multipliers).
        let level_colors: u32 = own_levels(levels, record)
            .iter()
            .map(|l| l.color_count)
            .sum();
        let own =
            &colors[record.color_offset as usize..][..(record.color_count + level_colors) as usize];
        let start = own.first().map_or(constraint_base, |c| c.start as usize);
        let end = own.last().map_or(start, |c| (c.start + c.count) as usize);
        assert!(
            own.windows(2)
                .all(|w| w[0].start + w[0].count == w[1].start),
            "solve_cloths: a cloth's colors must be one contiguous run"
        );
        let skip = record.particle_offset as usize - particle_base;
        let n = record.particle_count as usize;
        let (_, p) = std::mem::take(&mut positions).split_at_mut(skip);
        let (p, p_rest) = p.split_at_mut(n);
        let (_, q) = std::mem::take(&mut previous).split_at_mut(skip);
        let (q, q_rest) = q.split_at_mut(n);
        let (_, m) = std::mem::take(&mut multipliers).split_at_mut(start - constraint_base);
        let (m, m_rest) = m.split_at_mut(end - start);
        (positions, previous, multipliers) = (p_rest, q_rest, m_rest);
        particle_base = record.particle_offset as usize + n;
        constraint_base = end;
        out.push(ClothSlices {
            record,
            positions: p,
            previous: q,
            multipliers: m,
            first_constraint: start,
        });
    }
    out
}

/// The cloth's coarse levels, coarsest first.
fn own_levels<'a>(levels: &'a [FusedLevel], record: &ClothRecord) -> &'a [FusedLevel] {
    &levels[record.level_offset as usize..][..record.level_count as usize]
}

/// What every cloth's "workgroup" reads.
struct Shared<'a> {
    colors: &'a [ColorRange],
    levels: &'a [FusedLevel],
    nodes: &'a [u32],
    prolongations: &'a [Prolongation],
    constraints: &'a [Constraint],
    tethers: &'a [TetherSlot],
    colliders: &'a [ColliderRecord],
    /// The colliders over each substep of the frame (`substep_colliders`), worked out once for
    /// every cloth.
    substeps: &'a [Vec<SubstepCollider>],
    distance_grid: &'a [f32],
    collider_cells: &'a [u32],
}

/// The kernel's `coarse_levels`: the snapshot of every level's particles, then per level
/// (coarsest first) one sweep of its colors (limits: rigid, moving their ends by the masses
/// they stand for) and the prolongation of the particles it dropped.
fn coarse_levels(params: &StepParams, shared: &Shared<'_>, c: &mut ClothSlices<'_>) {
    let record = c.record;
    let offset = record.particle_offset;
    let local = |i: u32| (i - offset) as usize;
    let nodes = &shared.nodes[record.node_offset as usize..][..record.node_count as usize];
    let snapshot: Vec<Vec3> = nodes.iter().map(|&n| c.positions[local(n)].xyz()).collect();
    for level in own_levels(shared.levels, record) {
        let first = (record.color_offset + level.color_start) as usize;
        for range in &shared.colors[first..][..level.color_count as usize] {
            for index in range.range() {
                let con = &shared.constraints[index];
                let (i, j) = (local(con.i), local(con.j));
                let r = c.previous[i].xyz() - c.previous[j].xyz();
                let (mut pi, mut pj) = (c.positions[i], c.positions[j]);
                let lambda = &mut c.multipliers[index - c.first_constraint];
                let alpha = if con.is_limit() {
                    0.0
                } else {
                    constraint_alpha(Vec4::from_array(record.alpha), con.packed)
                };
                let held = (c.previous[i].w, c.previous[j].w);
                solve_pair(params, con, &mut pi, &mut pj, r, held, alpha, lambda, true);
                (c.positions[i], c.positions[j]) = (pi, pj);
            }
        }
        let entries =
            &shared.prolongations[level.prolong_start as usize..][..level.prolong_count as usize];
        for e in entries {
            let p = c.positions[local(e.particle)];
            if p.w == 0.0 {
                continue;
            }
            let mut moved = Vec3::ZERO;
            for (&s, &w) in e.parents.iter().zip(&e.weights) {
                let x = c.positions[local(nodes[s as usize])].xyz();
                moved += (x - snapshot[s as usize]) * w;
            }
            c.positions[local(e.particle)] = (p.xyz() + moved).extend(p.w);
        }
    }
}

/// One workgroup of `solve_cloths`: the whole frame of one cloth. Returns the first bad
/// particle (world index), if any.
fn solve_cloth(
    frame: &FusedFrame,
    first: &StepParams,
    rest: &StepParams,
    shared: &Shared<'_>,
    c: &mut ClothSlices<'_>,
) -> Option<u32> {
    let record = c.record;
    for s in 0..frame.substeps {
        let params = if s == 0 { first } else { rest };
        integrate_and_solve(frame, params, s, shared, c);
        tethers_and_collide(params, s, shared, c, true);
        let last = s + 1 == frame.substeps;
        limit_strain(params, shared, c, last);
        if frame_end_collides(params, last) {
            tethers_and_collide(params, s, shared, c, false);
        }
    }
    c.positions
        .iter()
        .position(|p| is_bad(first, p.xyz()))
        .map(|i| record.particle_offset + i as u32)
}

/// Twin of `solve_constraint`: one XPBD step of constraint `index` ([`solve_pair`], as
/// `solve_color` runs it), with its cloth's α̃ of its kind.
fn solve_constraint(
    params: &StepParams,
    shared: &Shared<'_>,
    c: &mut ClothSlices<'_>,
    index: usize,
    first_sweep: bool,
) {
    let con = &shared.constraints[index];
    let offset = c.record.particle_offset;
    let (i, j) = ((con.i - offset) as usize, (con.j - offset) as usize);
    assert!(
        i != j,
        "solve_cloths: constraint {index} joins a particle to itself"
    );
    let r = c.previous[i].xyz() - c.previous[j].xyz();
    let (mut pi, mut pj) = (c.positions[i], c.positions[j]);
    let lambda = &mut c.multipliers[index - c.first_constraint];
    let held = (c.previous[i].w, c.previous[j].w);
    let alpha = constraint_alpha(Vec4::from_array(c.record.alpha), con.packed);
    solve_pair(
        params,
        con,
        &mut pi,
        &mut pj,
        r,
        held,
        alpha,
        lambda,
        first_sweep,
    );
    (c.positions[i], c.positions[j]) = (pi, pj);
}

/// Twin of `solve_fused_stencil`: one bending stencil (records `index` and `index + 1`), as
/// `solve_color` runs it.
fn solve_fused_stencil(
    params: &StepParams,
    shared: &Shared<'_>,
    c: &mut ClothSlices<'_>,
    index: usize,
    first_sweep: bool,
) {
    let (head, tail) = (&shared.constraints[index], &shared.constraints[index + 1]);
    let offset = c.record.particle_offset;
    let ids = [head.i, head.j, tail.i, tail.j].map(|i| (i - offset) as usize);
    let weights = stencil_weights(head, tail);
    let mut x = ids.map(|i| c.positions[i]);
    let lambda = &mut c.multipliers[index - c.first_constraint];
    solve_stencil(
        params,
        weights,
        &mut x,
        c.record.alpha[3],
        lambda,
        first_sweep,
    );
    for (i, v) in ids.into_iter().zip(x) {
        c.positions[i] = v;
    }
}

/// Twin of `solve_fused_triangle`: one membrane triangle (records `index` and `index + 1`), as
/// `solve_color` runs it, with its cloth's α̃ of stretch and shear.
fn solve_fused_triangle(
    params: &StepParams,
    shared: &Shared<'_>,
    c: &mut ClothSlices<'_>,
    index: usize,
    first_sweep: bool,
) {
    let (head, tail) = (&shared.constraints[index], &shared.constraints[index + 1]);
    let offset = c.record.particle_offset;
    let ids = [head.i, head.j, tail.i].map(|i| (i - offset) as usize);
    let area_scale = triangle_area_scale(head, tail);
    let alpha = [
        c.record.alpha[0] * area_scale,
        c.record.alpha[1] * area_scale,
    ];
    let mut x = ids.map(|i| c.positions[i]);
    let at = index - c.first_constraint;
    let (stretch, shear) = c.multipliers[at..at + 2].split_at_mut(1);
    solve_triangle(
        params,
        triangle_frame(head, tail),
        &mut x,
        alpha,
        [&mut stretch[0], &mut shear[0]],
        first_sweep,
    );
    for (i, v) in ids.into_iter().zip(x) {
        c.positions[i] = v;
    }
}

/// Twin of `integrate_and_solve`: integrate, the coarse levels where the cloth has them, then
/// the solve (iterations × colors).
fn integrate_and_solve(
    frame: &FusedFrame,
    params: &StepParams,
    s: u32,
    shared: &Shared<'_>,
    c: &mut ClothSlices<'_>,
) {
    let t_to = (s + 1) as f32 / frame.substeps as f32;
    for (p, prev) in c.positions.iter_mut().zip(c.previous.iter_mut()) {
        integrate_particle(params, t_to, p, prev);
    }
    let record = c.record;
    if frame.coarse_levels == 1 && record.level_count > 0 {
        coarse_levels(params, shared, c);
    }
    let own_colors = &shared.colors[record.color_offset as usize..][..record.color_count as usize];
    for k in 0..frame.iterations {
        for range in own_colors {
            if shared.constraints[range.start as usize].is_stencil() {
                // A color of bending stencils or membrane triangles, two records each.
                for index in range.range().step_by(2) {
                    if is_triangle(&shared.constraints[index]) {
                        solve_fused_triangle(params, shared, c, index, k == 0);
                    } else {
                        solve_fused_stencil(params, shared, c, index, k == 0);
                    }
                }
            } else {
                for index in range.range() {
                    solve_constraint(params, shared, c, index, k == 0);
                }
            }
        }
    }
}

/// Twin of `tethers_and_collide`: each particle's tethers (with `tethers`), then the
/// colliders, for substep `s` of the frame (from fraction s/S to (s+1)/S).
fn tethers_and_collide(
    params: &StepParams,
    s: u32,
    shared: &Shared<'_>,
    c: &mut ClothSlices<'_>,
    tethers: bool,
) {
    let record = c.record;
    let offset = record.particle_offset;
    let local = |i: u32| (i - offset) as usize;
    let at = &shared.substeps[s as usize];
    for i in 0..c.positions.len() {
        let p = c.positions[i];
        if p.w == 0.0 {
            continue;
        }
        let mut x = p.xyz();
        if tethers && record.tethers == 1 {
            let slots = &shared.tethers[(offset as usize + i) * TETHER_SLOTS..][..TETHER_SLOTS];
            if let Some((first, second)) = anchor_pair(slots) {
                let a = c.positions[local(first.anchor)].xyz();
                let b = c.positions[local(second.anchor)].xyz();
                x = tether_pull(params, x, a, first.rest, b, second.rest);
            }
        }
        let contact = collide_all(
            shared.colliders,
            at,
            shared.distance_grid,
            shared.collider_cells,
            x,
            c.previous[i].xyz(),
            substep_pull(params),
            substep_escape(params),
        );
        if contact.hit {
            x = contact.x;
            c.previous[i] = contact.x_prev.extend(contact.contact_flag());
        } else {
            c.previous[i].w = 0.0;
        }
        c.positions[i] = x.extend(p.w);
    }
}

/// Twin of `frame_end_collides`: true in a frame's last substep when it has end sweeps and
/// colliders, which collides again after the sweeps (the schedule's order for that substep).
fn frame_end_collides(params: &StepParams, last: bool) -> bool {
    last && params.end_sweeps > 0 && params.collider_count > 0
}

/// Twin of `limit_strain` (solve_cloths.wgsl): the strain limit after contact over its own
/// colors (a copy of the cloth's structural edges), or in frames that hold what static
/// friction holds over the cloth's first `limit_colors` colors, `limit_sweeps` times (in the
/// frame's last substep, `last`, `end_sweeps` times over-relaxed when there are any), when the
/// frame has one ([`limit_pair`], as `limit_color` runs it).
fn limit_strain(params: &StepParams, shared: &Shared<'_>, c: &mut ClothSlices<'_>, last: bool) {
    let sweeps = limit_sweeps_in(params, last);
    if params.strain_limit <= 0.0 || sweeps == 0 {
        return;
    }
    let relax = limit_relax(params, last);
    let record = c.record;
    let (first, count) = if params.limit_holds != 0 && record.limit_colors > 0 {
        (0, record.limit_colors)
    } else {
        (record.strain_first, record.strain_colors)
    };
    let colors = &shared.colors[(record.color_offset + first) as usize..][..count as usize];
    let offset = record.particle_offset;
    for _ in 0..sweeps {
        for range in colors {
            for con in shared.constraints[range.range()]
                .iter()
                .filter(|c| is_structural(c))
            {
                let (i, j) = ((con.i - offset) as usize, (con.j - offset) as usize);
                let (mut pi, mut pj) = (c.positions[i], c.positions[j]);
                let held = limit_held(params, c.previous[i].w, c.previous[j].w);
                limit_pair(params.strain_limit, relax, con, &mut pi, &mut pj, held);
                (c.positions[i], c.positions[j]) = (pi, pj);
            }
        }
    }
}
