//! Everything that runs on the GPU: the device context (the only code that touches wgpu's
//! instance, adapter, device and polling), the shader registry, the kernel helper, the solver
//! and the per-stage timer.

pub mod context;
pub mod kernels;
pub(crate) mod passes;
pub mod shaders;
pub mod solver;
pub mod timer;

pub use context::GpuContext;
pub use solver::GpuSolver;
pub use timer::{StageTimer, StageTimes};
