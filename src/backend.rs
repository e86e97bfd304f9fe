//! Where the kernels run: the one choice between the GPU and the CPU reference, made once for
//! solvers and worlds alike.

use crate::gpu::GpuContext;

/// Where the kernels run. Chosen once, here, for solvers and worlds alike.
#[derive(Clone, Copy)]
pub enum Backend<'a> {
    /// The WGSL kernels on a wgpu device.
    Gpu(&'a GpuContext),
    /// The CPU reference: each kernel's Rust twin, in parallel with rayon.
    Cpu,
}

impl Backend<'_> {
    /// `gpu` or `cpu`.
    pub fn name(&self) -> &'static str {
        match self {
            Backend::Gpu(_) => "gpu",
            Backend::Cpu => "cpu",
        }
    }
}

impl std::fmt::Debug for Backend<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Backend::Gpu(ctx) => write!(f, "Gpu({})", ctx.describe()),
            Backend::Cpu => f.write_str("Cpu"),
        }
    }
}
