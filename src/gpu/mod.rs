//! Everything that runs on the GPU: the device context (the only code that touches wgpu's
//! instance, adapter, device and polling), the shader registry, the kernel helper, the
//! buffers, the pass recorder and engine, and the per-stage timer.

pub(crate) mod buffers;
pub mod context;
pub(crate) mod engine;
pub mod kernels;
pub(crate) mod passes;
pub mod shaders;
pub mod timer;

pub use context::GpuContext;
pub use passes::compiled_kernel_sets;
pub use timer::{StageTimer, StageTimes};
