//! Twin of `solve_color` in `shaders/solve_color.wgsl`.

use glam::{Vec4, Vec4Swizzles};
use rayon::prelude::*;

use super::common::{
    color_walk, is_structural, is_triangle, limit_held, limit_pair, limit_relax, material_slot,
    solve_pair, solve_stencil, solve_triangle, solve_triangles4, stencil_slot, stencil_weights,
    triangle_area_scale, triangle_frame, triangle_slot,
};
use super::{MIN_PER_TASK, SharedSlice};
use crate::coloring::ColoredConstraints;
use crate::config::{ColorRange, StepParams};
use crate::constraint::Constraint;

/// Units a task of a color takes at a time: four membrane triangles fill the SIMD lanes of
/// [`solve_triangles4`].
const BLOCK: usize = 4;

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
    let pass = ColorPass::Solve(*color, *params);
    let work = Sweep::new(
        &pass,
        constraints,
        positions,
        previous,
        multipliers,
        materials,
    );
    work.run_alone(positions, multipliers);
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
    let pass = ColorPass::Limit(*color, *params);
    let work = Sweep::new(&pass, constraints, positions, previous, &[], &[]);
    work.run_alone(positions, &mut []);
}

/// One `solve_color` or `limit_color` dispatch: its color and its substep's parameters.
#[derive(Clone, Copy, Debug)]
pub enum ColorPass {
    /// `solve_color`.
    Solve(ColorRange, StepParams),
    /// `limit_color`.
    Limit(ColorRange, StepParams),
}

/// Runs `passes` in order, each as [`solve_color`] or [`limit_color`] would, to the same
/// bit: a frame's sweeps over its colors. A run long enough is worth a team of threads that
/// stays together for the whole run and meets at a barrier after each color
/// (`src/cpu/team.rs`), where a rayon call per color woke the pool's threads up to a hundred
/// times a substep, and a color smaller than a rayon task ran on one thread.
///
/// # Panics
/// As [`solve_color`], for any of the passes.
pub fn sweep_colors(
    passes: &[ColorPass],
    constraints: &ColoredConstraints,
    positions: &mut [Vec4],
    previous: &[Vec4],
    multipliers: &mut [f32],
    materials: &[Vec4],
) {
    let sweeps: Vec<Sweep<'_>> = passes
        .iter()
        .map(|pass| {
            Sweep::new(
                pass,
                constraints,
                positions,
                previous,
                multipliers,
                materials,
            )
        })
        .collect();
    let units: usize = sweeps.iter().map(Sweep::units).sum();
    run_sweeps(
        &sweeps,
        super::team::threads_for(units),
        positions,
        multipliers,
    );
}

/// [`sweep_colors`]'s run, checked, on `threads` threads.
fn run_sweeps(
    sweeps: &[Sweep<'_>],
    threads: usize,
    positions: &mut [Vec4],
    multipliers: &mut [f32],
) {
    if threads <= 1 {
        for sweep in sweeps {
            sweep.run_alone(positions, multipliers);
        }
        return;
    }
    let (positions, multipliers) = (SharedSlice::new(positions), SharedSlice::new(multipliers));
    super::team::run(threads, |member, barrier| {
        for sweep in sweeps {
            if sweep.serial {
                if member == 0 {
                    // SAFETY: the other members wait at the barrier meanwhile.
                    unsafe { sweep.solve_serially(&positions, &multipliers) };
                }
            } else {
                // A fixed share each, one run of the color's records: handing out chunks
                // first come first served balanced a slowed member but cost a fifth more
                // (the shared counter, and members writing next to each other).
                let units = sweep.units();
                let share = units.div_ceil(threads);
                let mine = (member * share).min(units)..((member + 1) * share).min(units);
                // SAFETY: the members take disjoint shares of one color (not serial) and
                // meet at the barrier before the next.
                unsafe { sweep.units_in(&positions, &multipliers, mine) };
            }
            barrier.wait();
        }
    });
}

/// What one pass of [`sweep_colors`] works on, checked: its color's records, and what every
/// record reads besides its particles.
struct Sweep<'a> {
    batch: &'a [Constraint],
    /// The color's first multiplier.
    first: usize,
    serial: bool,
    stencils: bool,
    limit: bool,
    color: ColorRange,
    record: Record<'a>,
    /// `limit_relax` of the pass.
    relax: f32,
}

impl<'a> Sweep<'a> {
    fn new(
        pass: &'a ColorPass,
        constraints: &'a ColoredConstraints,
        positions: &[Vec4],
        previous: &'a [Vec4],
        multipliers: &[f32],
        materials: &'a [Vec4],
    ) -> Self {
        let (color, params, limit) = match pass {
            ColorPass::Solve(c, p) => (c, p, false),
            ColorPass::Limit(c, p) => (c, p, true),
        };
        let kernel = if limit { "limit_color" } else { "solve_color" };
        let batch = constraints
            .color(color)
            .unwrap_or_else(|| panic!("{kernel}: the range is not one of the checked colors"));
        check_particles(kernel, constraints, positions, previous);
        if !limit {
            assert!(
                multipliers.len() >= constraints.constraints().len(),
                "solve_color: {} multipliers for {} constraints",
                multipliers.len(),
                constraints.constraints().len()
            );
        }
        Sweep {
            batch,
            first: color.start as usize,
            serial: color.is_serial(),
            stencils: !limit && batch.first().is_some_and(Constraint::is_stencil),
            limit,
            color: *color,
            record: Record {
                params,
                // Four floats a material, indexed by the constraint's kind bits as the
                // kernel does.
                alphas: bytemuck::cast_slice(materials),
                previous,
                first_sweep: color.first_sweep == 1,
            },
            // The frame's last substep is the one that ends at t = 1.
            relax: limit_relax(params, params.t_to == 1.0),
        }
    }

    /// The units a thread takes: stencils (two records) or records.
    fn units(&self) -> usize {
        if self.stencils {
            self.batch.len() / 2
        } else {
            self.batch.len()
        }
    }

    /// The pass alone, as its dispatch runs: on rayon's threads, or record after record.
    fn run_alone(&self, positions: &mut [Vec4], multipliers: &mut [f32]) {
        let (positions, multipliers) = (SharedSlice::new(positions), SharedSlice::new(multipliers));
        if self.serial {
            // SAFETY: this thread alone.
            unsafe { self.solve_serially(&positions, &multipliers) };
            return;
        }
        let min = if self.stencils {
            MIN_PER_TASK / 2
        } else {
            MIN_PER_TASK
        };
        let units = self.units();
        (0..units.div_ceil(BLOCK))
            .into_par_iter()
            .with_min_len(min.div_ceil(BLOCK))
            .for_each(|b| {
                // SAFETY: one thread per block of units of a color that is not serial.
                unsafe {
                    self.units_in(
                        &positions,
                        &multipliers,
                        b * BLOCK..(b * BLOCK + BLOCK).min(units),
                    )
                }
            });
    }

    /// Units `range` of a color that is not serial, membrane triangles four at a time
    /// ([`solve_triangles4`]) where four in a row are triangles.
    ///
    /// # Safety
    /// As [`Self::unit`], for every unit of `range`.
    unsafe fn units_in(
        &self,
        positions: &SharedSlice<'_, Vec4>,
        multipliers: &SharedSlice<'_, f32>,
        range: std::ops::Range<usize>,
    ) {
        let mut k = range.start;
        if self.stencils {
            while k + 4 <= range.end {
                let four = &self.batch[2 * k..2 * k + 8];
                if !four.iter().all(is_triangle) {
                    break;
                }
                // SAFETY: the caller's contract, for units k to k + 3.
                unsafe { self.four_triangles(positions, multipliers, k) };
                k += 4;
            }
        }
        for k in k..range.end {
            // SAFETY: the caller's contract.
            unsafe { self.unit(positions, multipliers, k) };
        }
    }

    /// Units `k` to `k + 3`, four membrane triangles of a color that is not serial.
    ///
    /// # Safety
    /// As [`Self::unit`], for each of the four.
    unsafe fn four_triangles(
        &self,
        positions: &SharedSlice<'_, Vec4>,
        multipliers: &SharedSlice<'_, f32>,
        k: usize,
    ) {
        let pairs: [(&Constraint, &Constraint); 4] =
            [0, 1, 2, 3].map(|t| (&self.batch[2 * (k + t)], &self.batch[2 * (k + t) + 1]));
        let ids = pairs.map(|(head, tail)| [head.i, head.j, tail.i]);
        let mut x = ids.map(|t| {
            // SAFETY: below particle_count <= positions.len() (`check_particles`); the twelve
            // particles of four triangles of one color that is not serial are distinct (the
            // coloring's invariant) and by the caller's contract no other thread touches them;
            // each reference lives for this read only.
            t.map(|i| unsafe { *positions.at(i as usize) })
        });
        let mut lambda = [0, 1, 2, 3].map(|t| {
            let at = self.first + 2 * (k + t);
            // SAFETY: multipliers first + 2(k + t) and the next are this triangle's alone and
            // in bounds (checked in `new`).
            [0, 1].map(|r| unsafe { *multipliers.at(at + r) })
        });
        let frames = pairs.map(|(head, tail)| triangle_frame(head, tail));
        let alpha = pairs.map(|(head, tail)| self.record.triangle_alpha(head, tail));
        solve_triangles4(
            self.record.params,
            frames,
            &mut x,
            alpha,
            &mut lambda,
            self.record.first_sweep,
        );
        for t in 0..4 {
            for (v, &i) in ids[t].iter().enumerate() {
                // SAFETY: as the reads above.
                unsafe { *positions.at(i as usize) = x[t][v] };
            }
            let at = self.first + 2 * (k + t);
            for (r, &l) in lambda[t].iter().enumerate() {
                // SAFETY: as the reads above.
                unsafe { *multipliers.at(at + r) = l };
            }
        }
    }

    /// Thread 0 of a serial color: every record in turn (`color_walk`), since they may share
    /// particles.
    ///
    /// # Safety
    /// No other thread touches `positions` or `multipliers` meanwhile.
    unsafe fn solve_serially(
        &self,
        positions: &SharedSlice<'_, Vec4>,
        multipliers: &SharedSlice<'_, f32>,
    ) {
        let width = if self.stencils { 2 } else { 1 };
        let (first, step) = color_walk(&self.color, 0, width, self.color.count);
        for at in (first..self.color.count).step_by(step as usize) {
            let k = at as usize / width as usize;
            // SAFETY: this thread alone, by the caller's contract.
            unsafe { self.unit(positions, multipliers, k) };
        }
    }

    /// Unit `k`: one stencil (records 2k and 2k + 1) or one record.
    ///
    /// # Safety
    /// No other thread touches this unit's particles or multiplier meanwhile: the units of a
    /// color that is not serial share none (the coloring's invariant, which covers both
    /// records of a stencil, which it keeps in one color), and a serial color's run on one
    /// thread.
    #[inline]
    unsafe fn unit(
        &self,
        positions: &SharedSlice<'_, Vec4>,
        multipliers: &SharedSlice<'_, f32>,
        k: usize,
    ) {
        if self.stencils {
            let (head, tail) = (&self.batch[2 * k], &self.batch[2 * k + 1]);
            if is_triangle(head) {
                let ids = [head.i, head.j, tail.i];
                // SAFETY: the three particles are below particle_count <= positions.len()
                // (`check_particles`) and distinct (the coloring's check); multipliers first +
                // 2k and first + 2k + 1 are this triangle's alone and in bounds (checked in
                // `new`). By the caller's contract no other thread touches them.
                let (mut p, lambda) = unsafe {
                    (
                        ids.map(|i| &mut *positions.at(i as usize)),
                        [0, 1].map(|r| &mut *multipliers.at(self.first + 2 * k + r)),
                    )
                };
                let mut x = p.each_ref().map(|q| **q);
                self.record
                    .solve_triangle_record(head, tail, &mut x, lambda);
                for (q, v) in p.iter_mut().zip(x) {
                    **q = v;
                }
                return;
            }
            let ids = [head.i, head.j, tail.i, tail.j];
            // SAFETY: the four particles are below particle_count <= positions.len()
            // (`check_particles`) and distinct; multiplier first + 2k is this stencil's alone
            // and in bounds (checked in `new`). By the caller's contract no other thread
            // touches them, so these are the only live references.
            let (mut p, lambda) = unsafe {
                (
                    ids.map(|i| &mut *positions.at(i as usize)),
                    &mut *multipliers.at(self.first + 2 * k),
                )
            };
            let mut x = p.each_ref().map(|q| **q);
            self.record.solve_stencil_record(head, tail, &mut x, lambda);
            for (q, v) in p.iter_mut().zip(x) {
                **q = v;
            }
            return;
        }
        let c = &self.batch[k];
        if self.limit {
            if !is_structural(c) {
                return;
            }
            // SAFETY: as for a stencil: i and j are in bounds and distinct, and no other thread
            // touches them.
            let (pi, pj) = unsafe {
                (
                    &mut *positions.at(c.i as usize),
                    &mut *positions.at(c.j as usize),
                )
            };
            let previous = self.record.previous;
            let params = self.record.params;
            let held = limit_held(params, previous[c.i as usize].w, previous[c.j as usize].w);
            limit_pair(params.strain_limit, self.relax, c, pi, pj, held);
            return;
        }
        // SAFETY: as for a stencil; multiplier first + k is this record's alone.
        let (pi, pj, lambda) = unsafe {
            (
                &mut *positions.at(c.i as usize),
                &mut *positions.at(c.j as usize),
                &mut *multipliers.at(self.first + k),
            )
        };
        self.record.solve_distance_record(c, pi, pj, lambda);
    }
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

    /// Twin of `solve_triangle_record`: one membrane triangle (`head` and `tail`), its three
    /// particles `x`, the multipliers of its stretch and shear `lambda`.
    fn solve_triangle_record(
        &self,
        head: &Constraint,
        tail: &Constraint,
        x: &mut [Vec4; 3],
        lambda: [&mut f32; 2],
    ) {
        let alpha = self.triangle_alpha(head, tail);
        let frame = triangle_frame(head, tail);
        solve_triangle(self.params, frame, x, alpha, lambda, self.first_sweep);
    }

    /// A membrane triangle's α̃ of stretch and shear, as `solve_triangle_record` takes them.
    fn triangle_alpha(&self, head: &Constraint, tail: &Constraint) -> [f32; 2] {
        let slot = triangle_slot(head);
        let area_scale = triangle_area_scale(head, tail);
        [
            self.alphas[slot] * area_scale,
            self.alphas[slot + 1] * area_scale,
        ]
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

    /// A team's run of colors (`sweep_colors` on more threads than this machine may have)
    /// ends where the same passes run one by one do, to the bit: a 48² sheet's stretch,
    /// shear and stencil colors, a first and a later sweep, and the strain limit.
    #[test]
    fn a_team_sweeps_the_colors_as_the_passes_one_by_one_do() {
        let cloth = crate::ClothBuilder::grid(48, 48).build().unwrap();
        let n = cloth.particle_count();
        let (colored, _) = ColoredConstraints::new(cloth.constraints(), n).unwrap();
        // Every particle a little off its rest place, so every constraint has work.
        let previous: Vec<Vec4> = cloth.positions().iter().map(|p| p.extend(1.0)).collect();
        let start: Vec<Vec4> = previous
            .iter()
            .enumerate()
            .map(|(k, p)| {
                let wobble = ((k as f32) * 0.7).sin() * 0.004;
                *p + Vec4::new(wobble, -wobble * 0.5, wobble * 0.25, 0.0)
            })
            .collect();
        let params = StepParams {
            strain_limit: 1.001,
            ..StepParams::default()
        };
        let materials = [Vec4::new(0.0, 1e-4, 1e-3, 1e-2)];
        let colors: Vec<ColorRange> = colored.colors().iter().map(ColorRange::new).collect();
        assert!(colors.iter().any(|c| !c.is_serial()));
        let mut passes: Vec<ColorPass> = colors
            .iter()
            .map(|c| ColorPass::Solve(c.first(), params))
            .collect();
        passes.extend(colors.iter().map(|c| ColorPass::Solve(*c, params)));
        passes.extend(colors.iter().map(|c| ColorPass::Limit(*c, params)));

        let multipliers = vec![0.0f32; cloth.constraints().len()];
        let (mut one_by_one, mut lambdas) = (start.clone(), multipliers.clone());
        for pass in &passes {
            match pass {
                ColorPass::Solve(c, p) => solve_color(
                    c,
                    &colored,
                    &mut one_by_one,
                    &previous,
                    &mut lambdas,
                    p,
                    &materials,
                ),
                ColorPass::Limit(c, p) => limit_color(c, &colored, &mut one_by_one, &previous, p),
            }
        }
        assert_ne!(one_by_one, start);
        let (mut team, mut team_lambdas) = (start.clone(), multipliers);
        let sweeps: Vec<Sweep<'_>> = passes
            .iter()
            .map(|pass| Sweep::new(pass, &colored, &team, &previous, &team_lambdas, &materials))
            .collect();
        run_sweeps(&sweeps, 3, &mut team, &mut team_lambdas);
        assert!(team == one_by_one, "the team's positions differ");
        assert!(team_lambdas == lambdas, "the team's multipliers differ");
    }

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
