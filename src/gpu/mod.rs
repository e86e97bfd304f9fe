//! Everything that runs on the GPU: the device context, the shader registry, the solver.

pub mod context;
pub mod shaders;
pub mod solver;

pub use context::GpuContext;
pub use solver::GpuSolver;
