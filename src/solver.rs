//! The surface both solvers share, so tools and tests can drive either.

use glam::Vec3;

use crate::cloth::{Cloth, ConstraintKind};
use crate::error::{ChiffonError, Result};
use crate::params::SolverParams;

/// What runs the kernels. Its one spelling everywhere is [`Backend::name`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// The WGSL kernels on a wgpu adapter ([`crate::GpuSolver`]).
    Gpu,
    /// The CPU reference ([`crate::CpuSolver`]).
    Cpu,
}

impl Backend {
    /// Both, GPU first.
    pub const ALL: [Backend; 2] = [Backend::Gpu, Backend::Cpu];

    /// `gpu` or `cpu`.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Gpu => "gpu",
            Backend::Cpu => "cpu",
        }
    }

    /// A solver of this backend for `cloth`; the GPU one needs `ctx`.
    pub fn solver(
        self,
        ctx: Option<&crate::GpuContext>,
        cloth: &Cloth,
        params: SolverParams,
    ) -> Result<Box<dyn Solver>> {
        Ok(match (self, ctx) {
            (Backend::Cpu, _) => Box::new(crate::CpuSolver::new(cloth, params)?),
            (Backend::Gpu, Some(ctx)) => Box::new(crate::GpuSolver::new(ctx, cloth, params)?),
            (Backend::Gpu, None) => {
                return Err(ChiffonError::NoAdapter(
                    "the GPU backend was asked for without a GPU context".into(),
                ));
            }
        })
    }
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Backend {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        Backend::ALL
            .into_iter()
            .find(|b| b.name() == s)
            .ok_or_else(|| format!("unknown backend {s:?} (expected gpu or cpu)"))
    }
}

/// A cloth solver: the GPU one ([`crate::GpuSolver`]) or the CPU reference ([`crate::CpuSolver`]).
pub trait Solver {
    /// Advances one frame of `dt` seconds (in `(0, 1]`). The dt ratio comes from the previous
    /// call's dt; the first call after construction or [`Solver::reset`] starts Verlet with
    /// `x₋₁ = x₀ − v₀h + ½ah²`.
    fn step(&mut self, dt: f64) -> Result<()>;
    /// Current positions (m), in particle order. On the GPU this waits for the queued frames.
    fn positions(&mut self) -> Result<Vec<Vec3>>;
    /// The parameters in force.
    fn params(&self) -> &SolverParams;
    /// Replaces the parameters from the next frame on (validated first).
    fn set_params(&mut self, params: SolverParams) -> Result<()>;
    /// Returns to the cloth's initial state and forgets the dt history.
    fn reset(&mut self) -> Result<()>;
    /// The cloth being simulated.
    fn cloth(&self) -> &Cloth;
    /// Human-readable name of what runs the kernels (the adapter, or the CPU).
    fn backend_name(&self) -> String;
    /// Moves particle `index` to `position` (m) at rest, with inverse mass `inverse_mass`
    /// (0 holds it there: how the demo grabs and drags).
    fn set_particle(&mut self, index: usize, position: Vec3, inverse_mass: f32) -> Result<()>;
    /// Changes only the inverse mass of particle `index` (0 pins it where it is).
    fn set_inverse_mass(&mut self, index: usize, inverse_mass: f32) -> Result<()>;
    /// Sets the stiffness, in (0, 1], of every constraint of `kind`.
    fn set_stiffness(&mut self, kind: ConstraintKind, stiffness: f32) -> Result<()>;
}

/// Checks a particle edit: index in range, finite position, non-negative finite inverse mass.
pub(crate) fn check_particle_edit(
    cloth: &Cloth,
    index: usize,
    position: Vec3,
    inverse_mass: f32,
) -> Result<()> {
    if index >= cloth.particle_count() {
        return Err(ChiffonError::InvalidParameter {
            name: "particle index",
            reason: format!(
                "{index} is out of range (the cloth has {})",
                cloth.particle_count()
            ),
        });
    }
    crate::error::check_finite3("particle position", position)?;
    crate::error::check_at_least("inverse mass", inverse_mass as f64, 0.0)
}

/// Returns an error naming the first particle with a non-finite position.
pub fn check_finite(positions: &[Vec3], step: u64) -> Result<()> {
    match positions.iter().position(|p| !p.is_finite()) {
        Some(particle) => Err(ChiffonError::Diverged { particle, step }),
        None => Ok(()),
    }
}
