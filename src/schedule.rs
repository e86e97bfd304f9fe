//! One frame, described once: what the host decides (substep length, dt ratio, the uniform
//! block) and the sequence of kernel passes. The GPU recorder (`gpu/engine.rs`) and the CPU
//! executor (`cpu/engine.rs`) both execute [`FrameSchedule::run`], so they cannot drift apart:
//! a [`Pass`] added here must be handled by both (the `match` in each will not compile
//! otherwise). `docs/architecture.md` walks through adding one.
//!
//! A frame is a sequence of named [`Stage`]s; the GPU records each stage as its own compute
//! pass, which is what lets the benchmark time every stage with GPU timestamps.
//!
//! ```text
//! air                          when there is air (SolverParams::air): the wind at each
//!                              particle, the drag and lift on each triangle, then each
//!                              particle's velocity changed by its share, once a frame, for
//!                              the cloths of both paths (`shaders/air.wgsl`)
//! per substep s = 0..S         (S fixed, or from the solver frequency)
//!   integrate (each substep reads its own StepParams: the first has the frame's dt ratio)
//!   coarse    when the cloth has coarse levels and they are on: snapshot, then per level,
//!             coarsest first, its colors and the prolongation to the next finer level
//!   solve     iterations × colors, colors in a fixed order (the first sweep starts the
//!             XPBD multipliers at 0)
//!   tethers   when the cloth has any
//!   self-collide  when self-collision is on: the spatial hash built by counting sort, then
//!             each particle pushed off the others near it (`shaders/self_collision.wgsl`)
//!   collide   when there is a collider (`shaders/collide.wgsl`)
//!   limit     when there is contact and a strain limit (SolverParams::strain_limit):
//!             `params::LIMIT_SWEEPS` sweep over the limit's own colors (one over the
//!             cloths' distance colors in frames with a box) shortening each structural edge
//!             longer than the aim (`limit_color`, `shaders/solve_color.wgsl`); the frame's
//!             last substep sweeps `params::LIMIT_CONTACT_END_SWEEPS` times instead,
//!             over-relaxed (not with a box; with SolverParams::strain_limit_frames All,
//!             `params::LIMIT_END_SWEEPS` in a frame without contact)
//!   collide   again after those end sweeps, when there is a collider
//!   collide   with a box or a thin capsule among the colliders: each triangle pushed off the
//!             boxes' edges and corners and the thin capsules' axes
//!             (`shaders/collide_edges.wgsl`), after the limit so that its pull cannot drag a
//!             triangle back over an edge
//! [fused]                      a world's small cloths: one workgroup each solves its whole
//!                              frame (every substep's stages above) in one dispatch
//! health                       one flag per frame: the first non-finite or far particle
//!                              (of the per-pass cloths; the fused kernel checks its own)
//! ```
//!
//! The world runs the per-pass stages for the cloths on its global path (color c of every such
//! cloth in one dispatch; a lone [`crate::Solver`]'s cloth is one) and the fused stage for the
//! others. Verlet's start (`x₋₁`) is not a pass: the world writes it from the host when a cloth
//! joins or resets.
//!
//! One file, though long: the schedule is one sequence, and what decides each pass (the
//! uniform block, the substep plan, which stages a frame runs) belongs beside it.

use glam::Vec3;

use crate::config::StepParams;
use crate::error::Result;
use crate::hierarchy::LevelColors;
use crate::integrator::{StepCoefficients, damping_factor};
use crate::params::{SolverParams, validate_dt};

/// A named group of passes: the unit a GPU timestamp measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Wind, drag and lift, once a frame, on every cloth.
    Air,
    /// Verlet step of every particle.
    Integrate,
    /// The coarse levels (hierarchical PBD, `src/hierarchy/`): snapshot, then each level's colors and
    /// prolongation, coarsest first.
    Coarse,
    /// Constraint relaxation, iterations × colors.
    Solve,
    /// Long-range attachments, one thread per particle.
    Tethers,
    /// Self-collision: the spatial hash and the particle–particle pushes.
    SelfCollide,
    /// Projection out of the colliders (and the triangles off the boxes' edges and the thin
    /// capsules' axes).
    Collide,
    /// The strain limit after contact, one sweep over the colors.
    Limit,
    /// A world's fused path: every stage of the frame for each small cloth, one workgroup
    /// per cloth.
    Fused,
    /// The divergence check.
    Health,
}

crate::names::named_enum!(Stage "stage" {
    Air => "air",
    Integrate => "integrate",
    Coarse => "coarse",
    Solve => "solve",
    Tethers => "tethers",
    SelfCollide => "self-collide",
    Collide => "collide",
    Limit => "limit",
    Fused => "fused",
    Health => "health",
});

/// One kernel launch (one GPU dispatch, one call of a CPU twin).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// `air_winds` (`shaders/air.wgsl`, `cpu::air_winds`): the wind where each particle is.
    AirWinds,
    /// `air_forces` (`shaders/air.wgsl`, `cpu::air_forces`): the air's force on each triangle.
    AirForces,
    /// `apply_air` (`shaders/air.wgsl`, `cpu::apply_air`): each particle's velocity changes by
    /// its share of its triangles' forces.
    ApplyAir,
    /// `integrate` (`shaders/integrate.wgsl`, `cpu::integrate`) of substep `.0`.
    Integrate(u32),
    /// `snapshot_nodes` (`shaders/snapshot.wgsl`, `cpu::snapshot_nodes`): where the coarse
    /// levels' particles are before the levels are solved.
    Snapshot,
    /// `prolong` (`shaders/prolong.wgsl`, `cpu::prolong`): the particles one level finer than
    /// `level` (an index into the hierarchy's levels, `Hierarchy::levels`, coarsest first)
    /// follow its correction.
    Prolong {
        /// The level just solved.
        level: u32,
    },
    /// `solve_color` for one color (`shaders/solve_color.wgsl`, `cpu::solve_color`).
    SolveColor {
        /// The color: the cloth's colors come first, then each coarse level's.
        color: u32,
        /// True on the substep's first sweep (multipliers start at 0).
        first_sweep: bool,
        /// The substep (its parameters).
        substep: u32,
    },
    /// `limit_color` for one color (`shaders/solve_color.wgsl`, `cpu::limit_color`): its
    /// structural edges longer than the strain limit shortened to it.
    LimitColor {
        /// The color (one of the cloths' own, not a coarse level's).
        color: u32,
        /// The substep (its parameters).
        substep: u32,
    },
    /// `solve_tethers` (`shaders/tethers.wgsl`, `cpu::solve_tethers`) of substep `.0`.
    Tethers(u32),
    /// A self-collision kernel (`shaders/self_collision.wgsl`, `cpu::self_collision`) of a
    /// substep.
    SelfCollision {
        /// Which of the stage's kernels.
        step: SelfStep,
        /// The substep (its parameters).
        substep: u32,
    },
    /// `collide` (`shaders/collide.wgsl`, `cpu::collide`) of substep `.0`.
    Collide(u32),
    /// `edge_contacts` (`shaders/collide_edges.wgsl`, `cpu::edge_contacts`) of substep `.0`:
    /// each triangle's push off the box colliders' edges.
    EdgeContacts(u32),
    /// `apply_edge_contacts` (`shaders/collide_edges.wgsl`, `cpu::apply_edge_contacts`) of
    /// substep `.0`: each particle moves by the largest of its triangles' pushes.
    ApplyEdgeContacts(u32),
    /// `solve_cloths` (`shaders/solve_cloths.wgsl`, `cpu::solve_cloths`): a whole frame of
    /// every fused cloth kept in workgroup memory (`workgroup_memory`), or of every one that
    /// stays in the storage buffer.
    SolveCloths {
        /// Which of the two kinds of fused cloth this dispatch takes.
        workgroup_memory: bool,
    },
    /// `check_health` (`shaders/health.wgsl`, `cpu::check_health`).
    Health,
}

/// The kernels of the self-collision stage, in order (entry points of
/// `shaders/self_collision.wgsl`, and their twins in `cpu::self_collision`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SelfStep {
    /// The box of every particle's move since the candidate lists were built.
    Check,
    /// Whether this substep builds the lists.
    Plan,
    /// Clears the bucket counts.
    Clear,
    /// Counts the particles of each bucket.
    Count,
    /// Scans the counts block by block.
    ScanBlocks,
    /// Scans the blocks' totals.
    ScanSums,
    /// Adds each block's offset: each bucket's start.
    ScanAdd,
    /// Puts each particle in its bucket.
    Scatter,
    /// Sorts each bucket by particle index.
    Sort,
    /// Each particle lists the particles that can come within the distance.
    Candidates,
    /// Each particle gathers the pushes of its neighbours.
    Collide,
    /// The pushed positions become the positions.
    Apply,
}

crate::names::named_enum!(SelfStep "self-collision kernel" {
    Check => "self_check",
    Plan => "self_plan",
    Clear => "hash_clear",
    Count => "hash_count",
    ScanBlocks => "hash_scan_blocks",
    ScanSums => "hash_scan_sums",
    ScanAdd => "hash_scan_add",
    Scatter => "hash_scatter",
    Sort => "hash_sort",
    Candidates => "self_candidates",
    Collide => "self_collide",
    Apply => "self_apply",
});

/// Runs the passes of a frame: the GPU records them, the CPU calls the twins.
pub trait Executor {
    /// Executes one stage's passes, in order.
    fn stage(&mut self, stage: Stage, passes: &mut dyn Iterator<Item = Pass>);
}

/// The passes of one frame under given parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameSchedule {
    /// Substeps in the frame.
    pub substeps: u32,
    /// Sweeps over all colors per substep.
    pub iterations: u32,
    /// Colors of the global cloths' own constraints.
    pub colors: u32,
    /// The coarse levels solved each substep (none when off or when no cloth has any); their
    /// colors follow the cloths'.
    pub levels: LevelColors,
    /// True when the tether stage runs (tethers on, and a global cloth has some).
    pub tethers: bool,
    /// True when the self-collision stage runs ([`SolverParams::self_collision`]).
    pub self_collision: bool,
    /// True when the collide stage runs ([`SolverParams::has_colliders`]): with nothing to
    /// collide with it would only read every particle, once a substep.
    pub collide: bool,
    /// The first of the colors the limit stage sweeps after contact: the strain limit's own
    /// colors (`Hierarchy::strain_colors`), or in frames where it holds what static friction
    /// holds the cloths' own first colors, from 0 (`Hierarchy::limit_colors`).
    pub limit_first: u32,
    /// How many colors the limit stage sweeps from `limit_first`; 0 when the stage does not
    /// run ([`SolverParams::active_strain_limit`]).
    pub limit_colors: u32,
    /// How many times the limit stage sweeps them in each substep
    /// ([`SolverParams::limit_sweeps`]; 0 in a frame without contact).
    pub limit_sweeps: u32,
    /// How many times it sweeps them in the frame's last substep instead, over-relaxed
    /// ([`SolverParams::end_sweeps`]; 0: that substep sweeps as the others).
    pub end_sweeps: u32,
    /// True when the collide stage also keeps the boxes' edges and corners, and thin capsules'
    /// axes, out of the triangles (such a collider, and triangles on the global path).
    pub edge_colliders: bool,
    /// True when the air stage runs ([`SolverParams::active_air`]), over every cloth.
    pub air: bool,
    /// True when the per-pass stages run (some cloth is on the global path).
    pub global: bool,
    /// The fused stage's dispatches: one for the fused cloths held in workgroup memory, one
    /// for those that stay in storage, each when there are any.
    pub fused: FusedStage,
}

/// Which fused dispatches a frame makes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FusedStage {
    /// Some fused cloth is held in workgroup memory.
    pub workgroup_memory: bool,
    /// Some fused cloth stays in the storage buffer.
    pub storage: bool,
}

impl FrameSchedule {
    /// The frame with the most stages at `substeps` substeps (every optional stage on), for
    /// sizing per-stage timers.
    pub fn largest(substeps: u32) -> Self {
        Self {
            substeps,
            iterations: 1,
            colors: 1,
            levels: LevelColors {
                levels: 1,
                counts: [1; crate::hierarchy::MAX_LEVELS],
            },
            tethers: true,
            self_collision: true,
            collide: true,
            limit_first: 0,
            limit_colors: 1,
            limit_sweeps: crate::params::LIMIT_SWEEPS,
            end_sweeps: crate::params::LIMIT_END_SWEEPS
                .max(crate::params::LIMIT_CONTACT_END_SWEEPS),
            edge_colliders: true,
            air: true,
            global: true,
            fused: FusedStage {
                workgroup_memory: true,
                storage: true,
            },
        }
    }

    /// Hands every stage of the frame, in order, to `exec`.
    pub fn run(&self, exec: &mut impl Executor) {
        let colors = self.colors;
        let global_substeps = if self.global { self.substeps } else { 0 };
        if self.air {
            exec.stage(
                Stage::Air,
                &mut [Pass::AirWinds, Pass::AirForces, Pass::ApplyAir].into_iter(),
            );
        }
        for s in 0..global_substeps {
            exec.stage(Stage::Integrate, &mut std::iter::once(Pass::Integrate(s)));
            if self.levels.levels > 0 {
                exec.stage(Stage::Coarse, &mut self.coarse_passes(s));
            }
            let mut sweeps = (0..self.iterations).flat_map(|k| {
                (0..colors).map(move |color| Pass::SolveColor {
                    color,
                    first_sweep: k == 0,
                    substep: s,
                })
            });
            exec.stage(Stage::Solve, &mut sweeps);
            if self.tethers {
                exec.stage(Stage::Tethers, &mut std::iter::once(Pass::Tethers(s)));
            }
            if self.self_collision {
                let mut kernels = SelfStep::ALL
                    .into_iter()
                    .map(move |step| Pass::SelfCollision { step, substep: s });
                exec.stage(Stage::SelfCollide, &mut kernels);
            }
            let frame_end = s + 1 == global_substeps && self.end_sweeps > 0;
            if self.collide {
                exec.stage(Stage::Collide, &mut std::iter::once(Pass::Collide(s)));
            }
            let sweeps = if frame_end {
                self.end_sweeps
            } else {
                self.limit_sweeps
            };
            if self.limit_colors > 0 && sweeps > 0 {
                let colors = self.limit_first..self.limit_first + self.limit_colors;
                let mut limits = (0..sweeps)
                    .flat_map(|_| colors.clone())
                    .map(|color| Pass::LimitColor { color, substep: s });
                exec.stage(Stage::Limit, &mut limits);
            }
            // The frame-end sweeps are over-relaxed and many: what they pull into a collider
            // goes back out before the frame is shown (a second collide in that substep).
            if self.collide && frame_end {
                exec.stage(Stage::Collide, &mut std::iter::once(Pass::Collide(s)));
            }
            if self.collide && self.edge_colliders {
                exec.stage(
                    Stage::Collide,
                    &mut [Pass::EdgeContacts(s), Pass::ApplyEdgeContacts(s)].into_iter(),
                );
            }
        }
        let kinds = [
            (true, self.fused.workgroup_memory),
            (false, self.fused.storage),
        ];
        let mut fused = kinds
            .into_iter()
            .filter(|k| k.1)
            .map(|(workgroup_memory, _)| Pass::SolveCloths { workgroup_memory })
            .peekable();
        if fused.peek().is_some() {
            exec.stage(Stage::Fused, &mut fused);
        }
        // The fused kernel checks its own cloths.
        if self.global {
            exec.stage(Stage::Health, &mut std::iter::once(Pass::Health));
        }
    }

    /// One substep's coarse stage: the snapshot, then per level (coarsest first) one sweep
    /// of its colors and its prolongation.
    fn coarse_passes(&self, substep: u32) -> impl Iterator<Item = Pass> + use<> {
        let levels = self.levels;
        let mut first_color = self.colors;
        let per_level = (0..levels.levels as u32).flat_map(move |level| {
            let colors = levels.counts[level as usize] as u32;
            let start = first_color;
            first_color += colors;
            (start..start + colors)
                .map(move |color| Pass::SolveColor {
                    color,
                    first_sweep: true,
                    substep,
                })
                .chain(std::iter::once(Pass::Prolong { level }))
        });
        std::iter::once(Pass::Snapshot).chain(per_level)
    }

    /// Dispatches (GPU) or kernel calls (CPU) the frame makes, counted from [`Self::run`].
    pub fn dispatches(&self) -> u64 {
        self.count().1
    }

    /// Stages the frame runs (compute passes on the GPU), counted from [`Self::run`].
    pub fn stages(&self) -> u32 {
        self.count().0
    }

    fn count(&self) -> (u32, u64) {
        struct Count(u32, u64);
        impl Executor for Count {
            fn stage(&mut self, _: Stage, passes: &mut dyn Iterator<Item = Pass>) {
                self.0 += 1;
                self.1 += passes.count() as u64;
            }
        }
        let mut c = Count(0, 0);
        self.run(&mut c);
        (c.0, c.1)
    }
}

/// What the health check measures from: the centre of the cloths' and colliders' bounding box
/// at rest, and its half-diagonal (m).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scene {
    /// The centre (m).
    pub center: Vec3,
    /// Half the bounding box's diagonal (m).
    pub radius: f32,
}

/// The two uniform blocks of one frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FramePlan {
    /// Substeps this frame.
    pub substeps: u32,
    /// Substep length (s).
    pub h: f64,
    /// The substep length the first substep's dt ratio divides by (s): the previous frame's,
    /// or `h` on a starting frame. A cloth that starts this frame starts from it.
    pub h_previous: f64,
    /// Simulated time at the frame's start (s): the frames' lengths summed since construction
    /// or reset (the gusts blow downwind with it).
    pub time: f64,
    /// Parameters of the first substep (with the frame's dt ratio), as [`FramePlan::step`]
    /// gives them for substep 0.
    pub first: StepParams,
    /// Parameters of substeps 2..S but for their place in the frame.
    pub rest: StepParams,
}

impl FramePlan {
    /// The uniform block of substep `s`: the first's or the rest's, with its place in the frame
    /// (`t_from = s / S`, `t_to = (s + 1) / S`).
    pub fn step(&self, s: u32) -> StepParams {
        let base = if s == 0 { self.first } else { self.rest };
        StepParams {
            t_from: s as f32 / self.substeps as f32,
            t_to: (s + 1) as f32 / self.substeps as f32,
            ..base
        }
    }
}

/// Remembers the previous substep length so the host can hand the kernels the dt ratio.
#[derive(Clone, Debug, Default)]
pub struct StepClock {
    previous_h: Option<f64>,
    time: f64,
}

impl StepClock {
    /// The last planned frame's substep length (s); `None` before the first frame.
    pub fn last_substep(&self) -> Option<f64> {
        self.previous_h
    }

    /// Plans frame number `frame` (1 = the first since construction or reset), of length `dt`
    /// (s), under `params`, for `particle_count` particles in the per-pass kernels, and records
    /// it as the previous step. `scene` places the divergence limit.
    pub fn plan(
        &mut self,
        dt: f64,
        params: &SolverParams,
        scene: &Scene,
        particle_count: u32,
        frame: u64,
    ) -> Result<FramePlan> {
        validate_dt(dt)?;
        params.validate()?;
        let substeps = params.substeps.count(dt);
        let h = dt / substeps as f64;
        // The first substep of a frame sees the ratio to the last substep of the previous one.
        let h_prev = self.previous_h.unwrap_or(h);
        let first = params.integrator.coefficients(h, h_prev);
        let rest = params.integrator.coefficients(h, h);
        self.previous_h = Some(h);
        let time = self.time;
        self.time += dt;
        let uniform = |c| StepParams {
            center: scene
                .center
                .extend(params.divergence_limit(scene.radius))
                .to_array(),
            particle_count,
            // The health flag records the frame's low 32 bits (FrameCount::frame_of).
            frame: frame as u32,
            ..step_params(params, c, h)
        };
        Ok(FramePlan {
            substeps,
            h,
            h_previous: h_prev,
            time,
            first: uniform(first),
            rest: uniform(rest),
        })
    }

    /// Forgets the history: the next frame starts Verlet afresh.
    pub fn reset(&mut self) {
        *self = Self::default();
    }
}

/// The uniform block of one substep, but for what the world fills in (the scene's centre, the
/// counts, the frame number, the substep's place in the frame).
fn step_params(params: &SolverParams, c: StepCoefficients, h: f64) -> StepParams {
    let tethers = params.tethers.unwrap_or(crate::params::TetherParams {
        scale: 1.0,
        stiffness: 0.0,
    });
    StepParams {
        accel: params.gravity.extend(0.0).to_array(),
        center: [0.0; 4],
        ratio: c.ratio as f32,
        damping: damping_factor(params.damping as f64, h) as f32,
        accel_scale: c.accel_scale as f32,
        h: h as f32,
        t_from: 0.0,
        t_to: 1.0,
        collider_count: params.colliders.len() as u32,
        particle_count: 0,
        tether_scale: tethers.scale,
        tether_stiffness: tethers.stiffness,
        shake: (params.projection == crate::params::Projection::Shake) as u32,
        frame: 0,
        over_relaxation: params.over_relaxation,
        self_distance: 0.0,
        self_friction: 0.0,
        hash_cells: 0,
        strain_limit: params.limit_aim().unwrap_or(0.0),
        limit_sweeps: params.limit_sweeps(),
        limit_holds: params.limit_holds() as u32,
        end_sweeps: params.end_sweeps(),
    }
}

/// A material's XPBD compliance for substeps of `h` seconds, as the kernels read it (one
/// `vec4` of the `materials` table): α̃ = α / h² of stretch, shear and bend (1/kg), and of a
/// mesh's bending stencils (w; their weights are scaled so that α is the curvature compliance).
/// Computed once per frame on the host, for every constraint of every substep.
pub fn material_alpha(compliance: &crate::params::Compliance, h: f64) -> glam::Vec4 {
    let per_h2 = |alpha: f32| (alpha as f64 / (h * h)) as f32;
    glam::Vec4::new(
        per_h2(compliance.stretch),
        per_h2(compliance.shear),
        per_h2(compliance.bend),
        per_h2(compliance.curvature),
    )
}

/// The air kernels' block for a frame of `plan` over `particle_count` particles.
pub fn air_params(
    air: &crate::params::Air,
    plan: &FramePlan,
    dt: f64,
    particle_count: u32,
) -> crate::config::AirParams {
    let inv_size = 1.0 / air.gust_size as f64;
    // Frozen turbulence: the gusts' pattern moves downwind with the mean wind. The lattice
    // repeats every 256 cells, so the shift is kept below that in f64 and stays exact in f32
    // however long the run.
    let period = (crate::config::GUST_CELLS + 1) as f64;
    let shift = (-air.wind.as_dvec3() * (plan.time * inv_size)).map(|v| v.rem_euclid(period));
    crate::config::AirParams {
        wind: air.wind.extend(air.density).to_array(),
        gust_shift: [
            shift.x as f32,
            shift.y as f32,
            shift.z as f32,
            inv_size as f32,
        ],
        drag: air.drag,
        lift: air.lift,
        // The two octaves sum to at most 1.5: the gusts reach `gusts` times the mean speed.
        gust_speed: (air.gusts as f64 * air.wind.as_dvec3().length() / 1.5) as f32,
        dt_third: (dt / 3.0) as f32,
        h: plan.h_previous as f32,
        inv_h: (1.0 / plan.h_previous) as f32,
        inv_third_h: (1.0 / (3.0 * plan.h_previous)) as f32,
        third: 1.0 / 3.0,
        particle_count,
        seed: air.seed,
        pad0: 0,
        pad1: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_counts_its_dispatches() {
        let s = FrameSchedule {
            substeps: 2,
            iterations: 10,
            colors: 12,
            levels: LevelColors::default(),
            tethers: false,
            self_collision: false,
            collide: true,
            limit_first: 0,
            limit_colors: 0,
            limit_sweeps: 0,
            end_sweeps: 0,
            edge_colliders: false,
            air: false,
            global: true,
            fused: FusedStage::default(),
        };
        // Per substep: integrate + 10 × 12 colors + collide; health once.
        assert_eq!(s.dispatches(), 2 * (2 + 120) + 1);
        assert_eq!(s.stages(), 7);
        let tethered = FrameSchedule { tethers: true, ..s };
        assert_eq!(tethered.dispatches(), s.dispatches() + 2);
        // Self-collision: twelve kernels a substep (the lists' check and plan, the hash and the
        // lists, the pushes), one stage.
        let selfish = FrameSchedule {
            self_collision: true,
            ..s
        };
        assert_eq!(selfish.dispatches(), s.dispatches() + 2 * 12);
        assert_eq!(selfish.stages(), s.stages() + 2);
        // A box: two more kernels in a second collide stage of each substep.
        let boxed = FrameSchedule {
            edge_colliders: true,
            ..s
        };
        assert_eq!(boxed.dispatches(), s.dispatches() + 2 * 2);
        assert_eq!(boxed.stages(), s.stages() + 2);
        // The strain limit: one sweep over its own 4 colors (after the 12), a stage of its
        // own, each substep.
        let limited = FrameSchedule {
            limit_first: 12,
            limit_colors: 4,
            limit_sweeps: 1,
            ..s
        };
        assert_eq!(limited.dispatches(), s.dispatches() + 2 * 4);
        assert_eq!(limited.stages(), s.stages() + 2);
        // The limit at the frame's end: 20 sweeps in the last substep instead of its one, and
        // a second collide after them.
        let ends = FrameSchedule {
            end_sweeps: 20,
            ..limited
        };
        assert_eq!(ends.dispatches(), limited.dispatches() + (20 - 1) * 4 + 1);
        assert_eq!(ends.stages(), limited.stages() + 1);
        // Without contact only the last substep sweeps: one limit stage a frame, no collide.
        let ends_only = FrameSchedule {
            limit_sweeps: 0,
            collide: false,
            ..ends
        };
        assert_eq!(ends_only.dispatches(), s.dispatches() - 2 + 20 * 4);
        assert_eq!(ends_only.stages(), s.stages() - 2 + 1);
        // Air: three kernels once a frame, in a stage of their own, on either path.
        let windy = FrameSchedule { air: true, ..s };
        assert_eq!(windy.dispatches(), s.dispatches() + 3);
        assert_eq!(windy.stages(), s.stages() + 1);
        // Nothing to collide with: no collide stage.
        let bare = FrameSchedule {
            collide: false,
            ..s
        };
        assert_eq!(bare.dispatches(), s.dispatches() - 2);
        assert_eq!(bare.stages(), s.stages() - 2);
        assert!(!SolverParams::default().has_colliders());
        let grounded = SolverParams::default().with_collider(crate::Collider::ground(0.0));
        assert!(grounded.has_colliders());
        // A world of fused cloths only: one dispatch for the solve, one for health.
        let in_workgroup = FusedStage {
            workgroup_memory: true,
            storage: false,
        };
        let fused = FrameSchedule {
            global: false,
            fused: in_workgroup,
            ..s
        };
        assert_eq!(fused.dispatches(), 1);
        assert_eq!(fused.stages(), 1);
        let both = FrameSchedule {
            fused: FusedStage {
                storage: true,
                ..in_workgroup
            },
            ..s
        };
        assert_eq!(both.dispatches(), s.dispatches() + 2);
        assert_eq!(both.stages(), s.stages() + 1);
    }
}
