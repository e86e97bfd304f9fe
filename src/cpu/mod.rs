//! The CPU reference solver: the same frame schedule as the GPU, kernel for kernel, in plain
//! Rust. Each file here is the twin of the WGSL file of the same name in `shaders/`: same entry
//! point name, same bindings in the same order, same order of arithmetic. "One thread" of a
//! kernel is one closure call; the loops run in parallel with rayon, race-free for the same
//! reason the GPU is.

mod collide;
mod integrate;
mod normals;
mod solve_color;
mod start;

pub use collide::collide;
pub use integrate::integrate;
pub use normals::compute_normals;
pub use solve_color::solve_color;
pub use start::start;

use glam::{Vec3, Vec4};

use crate::cloth::{Cloth, ConstraintKind};
use crate::config::ColorRange;
use crate::error::Result;
use crate::params::SolverParams;
use crate::schedule::{Executor, FramePlan, FrameSchedule, Pass, Stage, StepClock};
use crate::solver::{Solver, check_particle_edit};

/// Particles (or constraints) per rayon task: below this, splitting costs more than it saves.
const MIN_PER_TASK: usize = 2048;

/// Steps a [`Cloth`] on the CPU; the reference the GPU is tested against.
pub struct CpuSolver {
    cloth: Cloth,
    params: SolverParams,
    clock: StepClock,
    positions: Vec<Vec4>,
    previous: Vec<Vec4>,
    colors: Vec<ColorRange>,
}

impl CpuSolver {
    /// Creates a solver at the cloth's initial state.
    pub fn new(cloth: &Cloth, params: SolverParams) -> Result<Self> {
        params.validate()?;
        let positions = initial_positions(cloth);
        Ok(Self {
            previous: positions.clone(),
            positions,
            colors: cloth.colors().iter().map(ColorRange::new).collect(),
            cloth: cloth.clone(),
            params,
            clock: StepClock::default(),
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
    cloth: &'a Cloth,
    colors: &'a [ColorRange],
    positions: &'a mut [Vec4],
    previous: &'a mut [Vec4],
}

impl Executor for CpuFrame<'_> {
    fn stage(&mut self, _: Stage, passes: &mut dyn Iterator<Item = Pass>) {
        for pass in passes {
            match pass {
                Pass::Start => start(&self.plan.first, self.positions, self.previous),
                Pass::Integrate(slot) => {
                    integrate(self.plan.slot(slot), self.positions, self.previous)
                }
                Pass::SolveColor(c) => solve_color(
                    &self.colors[c as usize],
                    self.cloth.colored(),
                    self.positions,
                ),
                Pass::Collide(slot) => collide(self.plan.slot(slot), self.positions, self.previous),
            }
        }
    }
}

impl Solver for CpuSolver {
    fn step(&mut self, dt: f64) -> Result<()> {
        let plan = self.clock.plan(
            dt,
            &self.params,
            self.cloth.particle_count(),
            self.cloth.velocity(),
        )?;
        let schedule = FrameSchedule::new(&plan, &self.params, self.colors.len());
        schedule.run(&mut CpuFrame {
            plan: &plan,
            cloth: &self.cloth,
            colors: &self.colors,
            positions: &mut self.positions,
            previous: &mut self.previous,
        });
        Ok(())
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
        self.clock.reset();
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
        Ok(())
    }

    fn set_inverse_mass(&mut self, index: usize, inverse_mass: f32) -> Result<()> {
        check_particle_edit(&self.cloth, index, Vec3::ZERO, inverse_mass)?;
        self.positions[index].w = inverse_mass;
        Ok(())
    }

    fn set_stiffness(&mut self, kind: ConstraintKind, stiffness: f32) -> Result<()> {
        self.cloth.set_stiffness(kind, stiffness)
    }
}
