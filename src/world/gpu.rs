//! A world on the GPU: one set of buffers for every cloth, the per-pass kernels over the
//! global cloths and `solve_cloths` over the fused ones, one command encoder per frame.

use glam::Vec4;

use super::layout::Layout;
use super::{Engine, WorldConfig, WorldFrame};
use crate::config::{BufferSizes, ClothRecord, Health, TETHER_SLOTS, VEC4_BYTES};
use crate::error::{ChiffonError, Result};
use crate::gpu::GpuContext;
use crate::gpu::kernels::check_workgroup_size;
use crate::gpu::passes::{
    BindGroups, FusedKernel, HealthProbe, PassRecorder, Pipelines, SolverBuffers,
};
use crate::gpu::timer::StageTimer;
use crate::world::MAX_COLORS;

/// The world's buffers, pipelines and the layout's per-frame sizes.
pub(crate) struct GpuEngine {
    device: wgpu::Device,
    queue: wgpu::Queue,
    adapter_name: String,
    buffers: SolverBuffers,
    pipelines: Pipelines,
    bind_groups: BindGroups,
    probe: HealthProbe,
    capacity: u32,
    /// Particles of the current layout, and of its global cloths.
    particles: u32,
    global_particles: u32,
    global_color_sizes: Vec<u32>,
}

impl GpuEngine {
    pub(crate) fn new(ctx: &GpuContext, config: &WorldConfig) -> Result<Self> {
        let limits = ctx.limits();
        check_workgroup_size(&limits, config.workgroup_size)?;
        let cap = config.capacity;
        if cap.cloths > limits.max_compute_workgroups_per_dimension {
            return Err(ChiffonError::InvalidParameter {
                name: "world capacity (cloths)",
                reason: format!(
                    "{} is more than the {} workgroups one dispatch of this device holds",
                    cap.cloths, limits.max_compute_workgroups_per_dimension
                ),
            });
        }
        let sizes = BufferSizes::new(
            cap.particles as u64,
            cap.constraints as u64,
            MAX_COLORS as u64,
            cap.cloths as u64,
            limits.min_uniform_buffer_offset_alignment as u64,
        );
        // Fused color table: every cloth's colors, at most MAX_COLORS each (World::add checks),
        // and never more colors than constraints.
        let fused_colors = (cap.cloths as u64 * MAX_COLORS as u64).min(cap.constraints as u64 + 1);
        let buffers = SolverBuffers::new(ctx, sizes, Some((cap.cloths as u64, fused_colors)))?;
        // A workgroup holds its cloth as one vec4 per particle, within the adapter's limit.
        let capacity = (limits.max_compute_workgroup_storage_size as u64 / VEC4_BYTES) as u32;
        let capacity = if std::env::var("XCAP").is_ok() {
            0
        } else {
            capacity
        };
        let fused_workgroup_size = config
            .fused_workgroup_size
            .unwrap_or_else(|| default_fused_workgroup_size(&ctx.info()));
        check_workgroup_size(&limits, fused_workgroup_size)?;
        let fused = FusedKernel {
            capacity,
            workgroup_size: fused_workgroup_size,
        };
        let pipelines = Pipelines::new(&ctx.device, config.workgroup_size, Some(fused));
        let bind_groups = buffers.bind_groups(&ctx.device, &pipelines);
        let ok = Health {
            first_bad: Health::OK,
        };
        ctx.queue
            .write_buffer(&buffers.health, 0, bytemuck::bytes_of(&ok));
        Ok(Self {
            device: ctx.device.clone(),
            queue: ctx.queue.clone(),
            adapter_name: ctx.describe(),
            probe: HealthProbe::new(&ctx.device),
            buffers,
            pipelines,
            bind_groups,
            capacity,
            particles: 0,
            global_particles: 0,
            global_color_sizes: Vec::new(),
        })
    }

    /// The current layout's particles of `buffer` (a particle buffer), waiting for the device.
    fn read(&self, buffer: &wgpu::Buffer) -> Result<Vec<Vec4>> {
        let bytes = self.particles as u64 * VEC4_BYTES;
        crate::gpu::context::read_prefix_on(&self.device, &self.queue, buffer, bytes)
    }

    fn fused(&self) -> &crate::gpu::passes::FusedBuffers {
        self.buffers
            .fused
            .as_ref()
            .expect("a world's buffers include the fused path's")
    }
}

/// Threads per fused workgroup when [`WorldConfig::fused_workgroup_size`] is `None`: 16 on a
/// CPU adapter (lavapipe runs a workgroup on one core, and each barrier costs it a pass over
/// every thread: 16 measured fastest, see the README's "Many cloths"), else
/// [`super::DEFAULT_FUSED_WORKGROUP_SIZE`].
pub(crate) fn default_fused_workgroup_size(info: &wgpu::AdapterInfo) -> u32 {
    if info.device_type == wgpu::DeviceType::Cpu {
        16
    } else {
        super::DEFAULT_FUSED_WORKGROUP_SIZE
    }
}

impl Engine for GpuEngine {
    fn name(&self) -> String {
        self.adapter_name.clone()
    }

    fn workgroup_capacity(&self) -> u32 {
        self.capacity
    }

    fn load(&mut self, layout: &Layout, positions: &[Vec4], previous: &[Vec4]) -> Result<()> {
        let q = &self.queue;
        let b = &self.buffers;
        q.write_buffer(&b.positions, 0, bytemuck::cast_slice(positions));
        q.write_buffer(&b.previous, 0, bytemuck::cast_slice(previous));
        q.write_buffer(&b.constraints, 0, bytemuck::cast_slice(&layout.constraints));
        q.write_buffer(&b.tethers, 0, bytemuck::cast_slice(layout.tethers.slots()));
        b.write_colors(q, layout.global.colors());
        q.write_buffer(
            &self.fused().colors,
            0,
            bytemuck::cast_slice(&layout.fused_colors),
        );
        debug_assert_eq!(layout.tethers.slots().len(), positions.len() * TETHER_SLOTS);
        self.particles = layout.particle_count;
        self.global_particles = layout.global_particles;
        self.global_color_sizes = layout.global.color_sizes();
        Ok(())
    }

    fn state(&mut self) -> Result<(Vec<Vec4>, Vec<Vec4>)> {
        Ok((
            self.read(&self.buffers.positions)?,
            self.read(&self.buffers.previous)?,
        ))
    }

    fn positions(&mut self) -> Result<Vec<Vec4>> {
        self.read(&self.buffers.positions)
    }

    fn write_previous(&mut self, offset: u32, previous: &[Vec4]) {
        self.queue.write_buffer(
            &self.buffers.previous,
            offset as u64 * VEC4_BYTES,
            bytemuck::cast_slice(previous),
        );
    }

    fn frame(
        &mut self,
        frame: &WorldFrame<'_>,
        mut timer: Option<&mut StageTimer>,
    ) -> Result<Option<Health>> {
        let q = &self.queue;
        let b = &self.buffers;
        b.write_step(q, &frame.plan.first, &frame.plan.rest);
        q.write_buffer(&b.materials, 0, bytemuck::cast_slice(frame.materials));
        if !frame.records.is_empty() {
            let f = self.fused();
            q.write_buffer(&f.frame, 0, bytemuck::bytes_of(&frame.fused));
            q.write_buffer(
                &f.records,
                0,
                bytemuck::cast_slice::<ClothRecord, u8>(frame.records),
            );
        }
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("chiffon world frame"),
            });
        if let Some(t) = timer.as_deref_mut() {
            t.begin_frame();
        }
        frame.schedule.run(&mut PassRecorder {
            pipelines: &self.pipelines,
            bind_groups: &self.bind_groups,
            uniform_stride: self.buffers.sizes.uniform_stride,
            particles: self.global_particles,
            color_sizes: &self.global_color_sizes,
            coarse_counts: &[],
            fused_cloths: frame.records.len() as u32,
            encoder: &mut encoder,
            timer: timer.as_deref_mut(),
        });
        if let Some(t) = timer {
            t.resolve(&mut encoder);
        }
        let health = self
            .probe
            .read(&self.device, &self.buffers.health, &mut encoder);
        self.queue.submit([encoder.finish()]);
        self.probe.request();
        Ok(health)
    }

    fn health(&mut self) -> Result<Health> {
        let flag: Vec<Health> =
            crate::gpu::context::read_buffer_on(&self.device, &self.queue, &self.buffers.health)?;
        Ok(flag[0])
    }

    fn clear_health(&mut self) -> Result<()> {
        self.probe.discard(&self.device)?;
        let ok = Health {
            first_bad: Health::OK,
        };
        self.queue
            .write_buffer(&self.buffers.health, 0, bytemuck::bytes_of(&ok));
        Ok(())
    }

    fn wait(&mut self) -> Result<()> {
        crate::gpu::context::wait(&self.device)
    }

    fn position_buffer(&self) -> Option<&wgpu::Buffer> {
        Some(&self.buffers.positions)
    }
}
