//! One frame, described once: what the host decides (substep length, dt ratio, the uniform
//! block, whether Verlet must start afresh) and the sequence of kernel passes. The GPU solver
//! and the CPU reference both execute [`FrameSchedule::run`], so they cannot drift apart: a
//! [`Pass`] added here must be handled by both executors (the `match` in each will not compile
//! otherwise).
//!
//! A frame is a sequence of named [`Stage`]s; the GPU records each stage as its own compute
//! pass, which is what lets the benchmark time every stage with GPU timestamps.
//!
//! ```text
//! [start]                      only on the first frame after construction or reset
//! per substep s = 0..S:
//!   integrate (slot s == 0 ? First : Rest)
//!   solve     iterations × colors, colors in a fixed order
//!   collide   (same slot)
//! ```

use glam::Vec3;

use crate::config::StepParams;
use crate::error::Result;
use crate::integrator::{StepCoefficients, damping_factor};
use crate::params::{SolverParams, validate_dt};

/// A named group of passes: the unit a GPU timestamp measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// `x₋₁ = x₀ − v₀h + ½ah²` from the current state, once after construction or reset.
    Start,
    /// Verlet step of every particle.
    Integrate,
    /// Constraint relaxation, iterations × colors.
    Solve,
    /// Projection out of the colliders.
    Collide,
}

impl Stage {
    /// Every stage, in frame order.
    pub const ALL: [Stage; 4] = [Stage::Start, Stage::Integrate, Stage::Solve, Stage::Collide];

    /// Its name in pass labels, tables and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Start => "start",
            Stage::Integrate => "integrate",
            Stage::Solve => "solve",
            Stage::Collide => "collide",
        }
    }
}

/// Which [`StepParams`] slot a pass reads: the first substep's carries the frame's dt ratio.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// The first substep of the frame.
    First = 0,
    /// Every later substep (ratio 1).
    Rest = 1,
}

/// One kernel launch (one GPU dispatch, one call of a CPU twin).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// `start` (`shaders/start.wgsl`, `cpu::start`), reading the first slot.
    Start,
    /// `integrate` (`shaders/integrate.wgsl`, `cpu::integrate`).
    Integrate(Slot),
    /// `solve_color` for one color (`shaders/solve_color.wgsl`, `cpu::solve_color`).
    SolveColor(u32),
    /// `collide` (`shaders/collide.wgsl`, `cpu::collide`).
    Collide(Slot),
}

/// Runs the passes of a frame: the GPU records them, the CPU calls the twins.
pub trait Executor {
    /// Executes one stage's passes, in order.
    fn stage(&mut self, stage: Stage, passes: &mut dyn Iterator<Item = Pass>);
}

/// The passes of one frame under given parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameSchedule {
    /// True on the first frame after construction or reset: a [`Stage::Start`] comes first.
    pub starting: bool,
    /// Substeps in the frame.
    pub substeps: u32,
    /// Sweeps over all colors per substep.
    pub iterations: u32,
    /// Colors of the cloth's constraints.
    pub colors: u32,
}

impl FrameSchedule {
    /// The schedule of a planned frame.
    pub fn new(plan: &FramePlan, params: &SolverParams, colors: usize) -> Self {
        Self {
            starting: plan.starting,
            substeps: params.substeps,
            iterations: params.iterations,
            colors: colors as u32,
        }
    }

    /// Hands every stage of the frame, in order, to `exec`.
    pub fn run(&self, exec: &mut impl Executor) {
        if self.starting {
            exec.stage(Stage::Start, &mut std::iter::once(Pass::Start));
        }
        let colors = self.colors;
        for s in 0..self.substeps {
            let slot = if s == 0 { Slot::First } else { Slot::Rest };
            exec.stage(
                Stage::Integrate,
                &mut std::iter::once(Pass::Integrate(slot)),
            );
            let mut sweeps = (0..self.iterations).flat_map(|_| (0..colors).map(Pass::SolveColor));
            exec.stage(Stage::Solve, &mut sweeps);
            exec.stage(Stage::Collide, &mut std::iter::once(Pass::Collide(slot)));
        }
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

/// The two uniform blocks of one frame and whether it starts Verlet afresh.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FramePlan {
    /// Substep length (s).
    pub h: f64,
    /// Parameters of the first substep ([`Slot::First`]).
    pub first: StepParams,
    /// Parameters of substeps 2..S ([`Slot::Rest`]).
    pub rest: StepParams,
    /// True on the very first frame since construction or reset.
    pub starting: bool,
}

impl FramePlan {
    /// The uniform block of `slot`.
    pub fn slot(&self, slot: Slot) -> &StepParams {
        match slot {
            Slot::First => &self.first,
            Slot::Rest => &self.rest,
        }
    }
}

/// Remembers the previous substep length so the host can hand the kernels the dt ratio.
#[derive(Clone, Debug, Default)]
pub struct StepClock {
    previous_h: Option<f64>,
}

impl StepClock {
    /// Plans a frame of length `dt` (s) under `params` for `particle_count` particles whose
    /// free ones start (on the first frame) with `start_velocity` (m/s), and records it as the
    /// previous step.
    pub fn plan(
        &mut self,
        dt: f64,
        params: &SolverParams,
        particle_count: usize,
        start_velocity: Vec3,
    ) -> Result<FramePlan> {
        validate_dt(dt)?;
        params.validate()?;
        let h = dt / params.substeps as f64;
        let starting = self.previous_h.is_none();
        // The first substep of a frame sees the ratio to the last substep of the previous one.
        let h_prev = self.previous_h.unwrap_or(h);
        let first = params.integrator.coefficients(h, h_prev);
        let rest = params.integrator.coefficients(h, h);
        self.previous_h = Some(h);
        let uniform = |c| step_params(params, c, h, particle_count as u32, start_velocity);
        Ok(FramePlan {
            h,
            first: uniform(first),
            rest: uniform(rest),
            starting,
        })
    }

    /// Forgets the history: the next frame starts Verlet afresh.
    pub fn reset(&mut self) {
        *self = Self::default();
    }
}

/// Builds the uniform block for one substep.
fn step_params(
    params: &SolverParams,
    c: StepCoefficients,
    h: f64,
    particle_count: u32,
    start_velocity: Vec3,
) -> StepParams {
    let sphere = params
        .sphere
        .map_or([0.0; 4], |s| s.center.extend(s.radius).to_array());
    StepParams {
        accel: params.acceleration().extend(0.0).to_array(),
        start_velocity: start_velocity.extend(0.0).to_array(),
        sphere,
        ratio: c.ratio as f32,
        damping: damping_factor(params.damping as f64, h) as f32,
        accel_scale: c.accel_scale as f32,
        h: h as f32,
        ground_y: params.ground.unwrap_or(0.0),
        ground_on: params.ground.is_some() as u32,
        friction: params.friction,
        particle_count,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_counts_its_dispatches() {
        let s = FrameSchedule {
            starting: false,
            substeps: 2,
            iterations: 10,
            colors: 12,
        };
        // Per substep: integrate + 10 × 12 colors + collide.
        assert_eq!(s.dispatches(), 2 * (2 + 120));
        assert_eq!(s.stages(), 6);
        let first = FrameSchedule {
            starting: true,
            ..s
        };
        assert_eq!(first.dispatches(), s.dispatches() + 1);
        assert_eq!(first.stages(), 7);
    }
}
