//! Compute pipelines and their dispatch grids, built one way for every kernel: explicit bind
//! group layouts (uniform at binding 0, storage buffers after it, in the WGSL's order), the
//! `WORKGROUP_SIZE` override, and grids from `config::workgroups`.

use super::shaders::ShaderFile;
use crate::config::{FusedFrame, StepParams, workgroups};
use crate::error::{ChiffonError, Result};

/// What one binding of a compute kernel is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binding {
    /// A uniform block of `size` bytes; `dynamic` when chosen per dispatch by offset.
    Uniform {
        /// Bytes of the block.
        size: u64,
        /// Selected by a dynamic offset at dispatch time.
        dynamic: bool,
    },
    /// A storage buffer the kernel only reads.
    StorageRead,
    /// A storage buffer the kernel reads and writes.
    StorageReadWrite,
}

/// The bind group layout of a kernel whose bindings are `bindings`, numbered from 0.
pub fn bind_group_layout(
    device: &wgpu::Device,
    label: &str,
    bindings: &[Binding],
) -> wgpu::BindGroupLayout {
    let entries: Vec<wgpu::BindGroupLayoutEntry> = bindings
        .iter()
        .enumerate()
        .map(|(k, b)| wgpu::BindGroupLayoutEntry {
            binding: k as u32,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: match b {
                    Binding::Uniform { .. } => wgpu::BufferBindingType::Uniform,
                    Binding::StorageRead => wgpu::BufferBindingType::Storage { read_only: true },
                    Binding::StorageReadWrite => {
                        wgpu::BufferBindingType::Storage { read_only: false }
                    }
                },
                has_dynamic_offset: matches!(b, Binding::Uniform { dynamic: true, .. }),
                min_binding_size: match b {
                    Binding::Uniform { size, .. } => wgpu::BufferSize::new(*size),
                    _ => None,
                },
            },
            count: None,
        })
        .collect();
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries: &entries,
    })
}

/// A bind group over `buffers`, numbered from 0 as in the layout. A uniform read through a
/// dynamic offset binds only `uniform_size` bytes at a time.
pub fn bind_group(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    buffers: &[(&wgpu::Buffer, Option<u64>)],
) -> wgpu::BindGroup {
    let entries: Vec<wgpu::BindGroupEntry> = buffers
        .iter()
        .enumerate()
        .map(|(k, (buffer, size))| wgpu::BindGroupEntry {
            binding: k as u32,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer,
                offset: 0,
                size: size.and_then(wgpu::BufferSize::new),
            }),
        })
        .collect();
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout,
        entries: &entries,
    })
}

/// One compute kernel, ready to dispatch with a given workgroup size.
pub struct Kernel {
    /// The pipeline.
    pub pipeline: wgpu::ComputePipeline,
    workgroup_size: u32,
    max_groups_per_dim: u32,
}

impl Kernel {
    /// Compiles `entry` of `file` with `layout` and `workgroup_size` threads per workgroup
    /// (checked against the device with [`check_workgroup_size`]); `overrides` sets the
    /// file's other pipeline-overridable constants.
    pub fn new(
        device: &wgpu::Device,
        file: ShaderFile,
        entry: &str,
        layout: &wgpu::BindGroupLayout,
        workgroup_size: u32,
        overrides: &[(&str, f64)],
    ) -> Self {
        let mut constants = vec![("WORKGROUP_SIZE", workgroup_size as f64)];
        constants.extend_from_slice(overrides);
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(file.file),
            source: wgpu::ShaderSource::Wgsl(file.source().into()),
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(entry),
            bind_group_layouts: &[Some(layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(entry),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some(entry),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants: &constants,
                // Every kernel writes its workgroup memory before reading it (solve_cloths
                // copies its cloth in first), so the zeroing wgpu would add is wasted work.
                zero_initialize_workgroup_memory: false,
            },
            cache: None,
        });
        Self {
            pipeline,
            workgroup_size,
            max_groups_per_dim: device.limits().max_compute_workgroups_per_dimension,
        }
    }

    /// Records a dispatch of `threads` threads (one per particle or constraint); the kernel's
    /// bounds guard drops the extra threads of the last workgroup.
    pub fn dispatch(&self, pass: &mut wgpu::ComputePass<'_>, threads: u32) {
        let (x, y) = workgroups(threads, self.workgroup_size, self.max_groups_per_dim);
        pass.dispatch_workgroups(x, y, 1);
    }
}

/// Checks that `size` threads per workgroup is a power of two the device can run.
pub fn check_workgroup_size(limits: &wgpu::Limits, size: u32) -> Result<()> {
    let max = limits
        .max_compute_invocations_per_workgroup
        .min(limits.max_compute_workgroup_size_x);
    if size.is_power_of_two() && size <= max {
        Ok(())
    } else {
        Err(ChiffonError::InvalidParameter {
            name: "workgroup size",
            reason: format!("{size} must be a power of two of at most {max}"),
        })
    }
}

pub(super) const STEP_SIZE: u64 = size_of::<StepParams>() as u64;

/// The fused kernel's bindings (`shaders/solve_cloths.wgsl`).
pub(super) const FUSED_BINDINGS: [Binding; 11] = {
    let fixed_step = Binding::Uniform {
        size: STEP_SIZE,
        dynamic: false,
    };
    [
        Binding::Uniform {
            size: size_of::<FusedFrame>() as u64,
            dynamic: false,
        },
        fixed_step,
        fixed_step,
        Binding::StorageRead,
        Binding::StorageRead,
        Binding::StorageReadWrite,
        Binding::StorageReadWrite,
        Binding::StorageReadWrite,
        Binding::StorageReadWrite,
        Binding::StorageRead,
        Binding::StorageRead,
    ]
};

/// Storage buffers the fused kernel binds (8, a browser's default): a device that allows fewer
/// per shader stage solves every cloth on the global path.
pub(crate) fn fused_storage_buffers() -> u32 {
    FUSED_BINDINGS
        .iter()
        .filter(|b| matches!(b, Binding::StorageRead | Binding::StorageReadWrite))
        .count() as u32
}
