//! What the host decides each frame: the substep length, the dt ratio, and the uniform block
//! the kernels read. Shared by the GPU solver and the CPU reference so both see the same bytes.

use glam::{Vec3, Vec4};

use crate::error::Result;
use crate::integrator::{StepCoefficients, damping_factor, start_previous};
use crate::params::{SolverParams, validate_dt};

/// Uniform block of `integrate` and `collide` (`StepParams` in `shaders/common.wgsl`).
/// 64 bytes; field order and padding match WGSL's uniform layout rules.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct StepParams {
    /// xyz: gravity + wind (m/s²); w unused.
    pub accel: [f32; 4],
    /// xyz: sphere centre (m); w: radius (m), 0 when there is no sphere.
    pub sphere: [f32; 4],
    /// dt ratio `h / h_prev` (1 for plain Verlet and for every substep after the first).
    pub ratio: f32,
    /// Velocity kept this step, `exp(-c h)`.
    pub damping: f32,
    /// Factor of the acceleration (s²).
    pub accel_scale: f32,
    /// Ground height (m); ignored unless `ground_on` is 1.
    pub ground_y: f32,
    /// 1 when the ground plane is on.
    pub ground_on: u32,
    /// Tangential motion removed on contact, [0, 1].
    pub friction: f32,
    /// Number of particles (the kernels' bounds guard).
    pub particle_count: u32,
    /// Padding to 16 bytes.
    pub pad: u32,
}

/// Uniform block of `solve_color` (`ColorRange` in `shaders/common.wgsl`): which slice of the
/// color-sorted constraint buffer one dispatch solves.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ColorRange {
    /// First constraint of the color.
    pub start: u32,
    /// Constraints in the color.
    pub count: u32,
    /// Padding to 16 bytes.
    pub pad: [u32; 2],
}

impl ColorRange {
    /// The uniform for one color's range of the sorted constraint list.
    pub fn new(range: &std::ops::Range<u32>) -> Self {
        Self {
            start: range.start,
            count: range.end - range.start,
            pad: [0; 2],
        }
    }
}

/// The two uniform blocks of one frame: the first substep's (which carries the frame's dt
/// ratio) and the one every later substep uses (ratio 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FramePlan {
    /// Substep length (s).
    pub h: f64,
    /// Parameters of the first substep.
    pub first: StepParams,
    /// Parameters of substeps 2..S.
    pub rest: StepParams,
    /// True on the very first step since construction or reset: the solver must set
    /// `x₋₁` with [`start_previous_positions`] before integrating.
    pub starting: bool,
}

/// Remembers the previous substep length so the host can hand the kernels the dt ratio.
#[derive(Clone, Debug, Default)]
pub struct StepClock {
    previous_h: Option<f64>,
}

impl StepClock {
    /// Plans a frame of length `dt` (s) under `params`, and records it as the previous step.
    pub fn plan(
        &mut self,
        dt: f64,
        params: &SolverParams,
        particle_count: usize,
    ) -> Result<FramePlan> {
        validate_dt(dt)?;
        params.validate()?;
        let s = params.substeps as f64;
        let h = dt / s;
        let starting = self.previous_h.is_none();
        let h_prev = self.previous_h.unwrap_or(h);
        let first = params.integrator.coefficients(h, h_prev);
        let rest = params.integrator.coefficients(h, h);
        self.previous_h = Some(h);
        let uniform = |c| step_params(params, c, h, particle_count as u32);
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
pub fn step_params(
    params: &SolverParams,
    c: StepCoefficients,
    h: f64,
    particle_count: u32,
) -> StepParams {
    let a = params.acceleration();
    let (sphere, ground_y, ground_on) = (
        params
            .sphere
            .map_or([0.0; 4], |s| s.center.extend(s.radius).to_array()),
        params.ground.unwrap_or(0.0),
        params.ground.is_some() as u32,
    );
    StepParams {
        accel: a.extend(0.0).to_array(),
        sphere,
        ratio: c.ratio as f32,
        damping: damping_factor(params.damping as f64, h) as f32,
        accel_scale: c.accel_scale as f32,
        ground_y,
        ground_on,
        friction: params.friction,
        particle_count,
        pad: 0,
    }
}

/// `x₋₁` for every particle from the current positions (w = inverse mass): the correct start
/// `x₀ − v₀h + ½ah²` for free particles, `x₀` for pinned ones. Both solvers call this once, on
/// the first step.
pub fn start_previous_positions(
    positions: &[Vec4],
    velocity: Vec3,
    accel: Vec3,
    h: f32,
) -> Vec<Vec4> {
    positions
        .iter()
        .map(|p| {
            let x = p.truncate();
            if p.w == 0.0 {
                x.extend(0.0)
            } else {
                start_previous(x, velocity, accel, h).extend(0.0)
            }
        })
        .collect()
}
