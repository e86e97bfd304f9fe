//! Everything that runs on the GPU: the device context, the shader registry, the solver.

pub mod context;
pub mod shaders;
pub mod solver;
pub mod timer;

pub use context::GpuContext;
pub use solver::GpuSolver;

/// A compute-stage storage buffer binding.
pub(crate) fn storage_entry(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}
