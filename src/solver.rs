//! The surface both solvers share, so tools and tests can drive either.

use glam::Vec3;

use crate::cloth::Cloth;
use crate::error::{ChiffonError, Result};
use crate::params::SolverParams;

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
}

/// Returns an error naming the first particle with a non-finite position.
pub fn check_finite(positions: &[Vec3], step: u64) -> Result<()> {
    match positions.iter().position(|p| !p.is_finite()) {
        Some(particle) => Err(ChiffonError::Diverged { particle, step }),
        None => Ok(()),
    }
}
