//! The CPU reference solver: the same frame schedule as the GPU, kernel for kernel, in plain
//! Rust. Each file here is the twin of the WGSL file of the same name in `shaders/`: same entry
//! point name, same bindings in the same order, same order of arithmetic. "One thread" of a
//! kernel is one closure call; the loops run in parallel with rayon, race-free for the same
//! reason the GPU is.

mod collide;
mod health;
mod integrate;
mod normals;
mod prolong;
mod snapshot;
mod solve_cloths;
mod solve_color;
mod start;
mod tethers;

pub use collide::collide;
pub use health::check_health;
pub use integrate::integrate;
pub use normals::{cloth_normals, compute_normals};
pub use prolong::prolong;
pub use snapshot::snapshot_nodes;
pub use solve_cloths::solve_cloths;
pub use solve_color::solve_color;
pub use start::start;
pub use tethers::solve_tethers;

use glam::{Vec3, Vec4};

use crate::cloth::Cloth;
use crate::config::{ColorRange, Health};
use crate::error::Result;
use crate::hierarchy::{Hierarchy, MAX_LEVELS};
use crate::params::SolverParams;
use crate::schedule::{Executor, FramePlan, Pass, Stage, StepClock, material_alpha};
use crate::solver::{Anchors, FrameCount, Solver, check_particle_edit};

/// Particles (or constraints) per rayon task: below this, splitting costs more than it saves.
const MIN_PER_TASK: usize = 2048;

/// Steps a [`Cloth`] on the CPU; the reference the GPU is tested against.
pub struct CpuSolver {
    cloth: Cloth,
    params: SolverParams,
    clock: StepClock,
    frames: FrameCount,
    positions: Vec<Vec4>,
    previous: Vec<Vec4>,
    multipliers: Vec<f32>,
    anchors: Anchors,
    health: Health,
    hierarchy: Hierarchy,
    /// The cloth's colors, then the coarse levels' (as the hierarchy sorts its constraints).
    colors: Vec<ColorRange>,
    /// The snapshot range, then each level's prolongation range.
    coarse_ranges: Vec<ColorRange>,
    snapshot: Vec<Vec4>,
}

impl CpuSolver {
    /// Creates a solver at the cloth's initial state.
    pub fn new(cloth: &Cloth, params: SolverParams) -> Result<Self> {
        params.validate()?;
        let positions = initial_positions(cloth);
        let hierarchy = Hierarchy::new(cloth, MAX_LEVELS)?;
        Ok(Self {
            previous: positions.clone(),
            positions,
            multipliers: vec![0.0; hierarchy.constraints().constraints().len()],
            anchors: Anchors::new(cloth),
            health: Health {
                first_bad: Health::OK,
            },
            colors: hierarchy
                .constraints()
                .colors()
                .iter()
                .map(ColorRange::new)
                .collect(),
            coarse_ranges: hierarchy.ranges(),
            snapshot: vec![Vec4::ZERO; hierarchy.nodes().len()],
            hierarchy,
            cloth: cloth.clone(),
            params,
            clock: StepClock::default(),
            frames: FrameCount::default(),
        })
    }

    /// Positions with inverse mass in w, exactly as the kernels see them.
    pub fn raw_positions(&self) -> &[Vec4] {
        &self.positions
    }
}

/// Packs positions with inverse masses into the kernels' vec4 layout.
pub(crate) fn initial_positions(cloth: &Cloth) -> Vec<Vec4> {
    cloth
        .positions()
        .iter()
        .zip(cloth.inverse_masses())
        .map(|(x, &w)| x.extend(w))
        .collect()
}

/// Runs the schedule's passes by calling the twins.
struct CpuFrame<'a> {
    plan: &'a FramePlan,
    /// The `materials` table: the solver's one material (α̃ of this frame).
    materials: [Vec4; 1],
    s: &'a mut CpuSolver,
}

impl Executor for CpuFrame<'_> {
    fn stage(&mut self, _: Stage, passes: &mut dyn Iterator<Item = Pass>) {
        let s = &mut *self.s;
        for pass in passes {
            match pass {
                Pass::Start => start(&self.plan.first, &s.positions, &mut s.previous),
                Pass::Integrate(slot) => {
                    integrate(self.plan.slot(slot), &mut s.positions, &mut s.previous)
                }
                Pass::SolveColor {
                    color,
                    first_sweep,
                    slot,
                } => {
                    let range = s.colors[color as usize];
                    solve_color(
                        &if first_sweep { range.first() } else { range },
                        s.hierarchy.constraints(),
                        &mut s.positions,
                        &s.previous,
                        &mut s.multipliers,
                        self.plan.slot(slot),
                        &self.materials,
                    )
                }
                Pass::Snapshot => snapshot_nodes(
                    &s.coarse_ranges[0],
                    s.hierarchy.nodes(),
                    &s.positions,
                    &mut s.snapshot,
                ),
                Pass::Prolong { level } => prolong(
                    &s.coarse_ranges[1 + level as usize],
                    &s.hierarchy,
                    &mut s.positions,
                    &s.snapshot,
                ),
                Pass::Tethers(slot) => {
                    solve_tethers(self.plan.slot(slot), &mut s.positions, s.anchors.tethers())
                }
                Pass::Collide(slot) => {
                    collide(self.plan.slot(slot), &mut s.positions, &mut s.previous)
                }
                Pass::Health => check_health(&self.plan.first, &s.positions, &mut s.health),
                Pass::SolveCloths { .. } => {
                    unreachable!("a lone cloth's schedule has no fused stage")
                }
            }
        }
    }
}

impl Solver for CpuSolver {
    fn step(&mut self, dt: f64) -> Result<()> {
        self.health()?;
        let (plan, schedule) = self.clock.frame(
            dt,
            &self.params,
            &self.cloth,
            self.hierarchy.level_colors(),
            self.anchors.tethers(),
        )?;
        schedule.run(&mut CpuFrame {
            plan: &plan,
            materials: [material_alpha(&self.params.compliance, plan.h)],
            s: self,
        });
        self.frames.advance();
        self.health()
    }

    fn health(&mut self) -> Result<()> {
        self.frames.check(self.health)
    }

    fn positions(&mut self) -> Result<Vec<Vec3>> {
        Ok(self.positions.iter().map(|p| p.truncate()).collect())
    }

    fn params(&self) -> &SolverParams {
        &self.params
    }

    fn set_params(&mut self, params: SolverParams) -> Result<()> {
        params.validate()?;
        self.params = params;
        Ok(())
    }

    fn reset(&mut self) -> Result<()> {
        self.positions = initial_positions(&self.cloth);
        self.previous = self.positions.clone();
        self.anchors = Anchors::new(&self.cloth);
        self.health = Health {
            first_bad: Health::OK,
        };
        self.clock.reset();
        self.frames = FrameCount::default();
        Ok(())
    }

    fn cloth(&self) -> &Cloth {
        &self.cloth
    }

    fn backend_name(&self) -> String {
        "cpu reference".into()
    }

    fn set_particle(&mut self, index: usize, position: Vec3, inverse_mass: f32) -> Result<()> {
        check_particle_edit(&self.cloth, index, position, inverse_mass)?;
        self.positions[index] = position.extend(inverse_mass);
        self.previous[index] = position.extend(0.0);
        self.anchors.held(&self.cloth, index, inverse_mass);
        Ok(())
    }

    fn set_inverse_mass(&mut self, index: usize, inverse_mass: f32) -> Result<()> {
        check_particle_edit(&self.cloth, index, Vec3::ZERO, inverse_mass)?;
        self.positions[index].w = inverse_mass;
        self.anchors.pin(&self.cloth, index, inverse_mass == 0.0);
        Ok(())
    }

    fn tethers(&self) -> &crate::tethers::Tethers {
        self.anchors.tethers()
    }

    fn schedule(&self, dt: f64) -> crate::schedule::FrameSchedule {
        crate::schedule::FrameSchedule::steady(
            dt,
            &self.params,
            self.cloth.colors().len(),
            self.hierarchy.level_colors(),
            !self.anchors.tethers().is_empty(),
        )
    }
}
