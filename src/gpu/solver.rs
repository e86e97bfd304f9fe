//! The GPU solver: the cloth in storage buffers, one compute pass per frame.

use std::sync::OnceLock;

use glam::{Vec3, Vec4};

use super::context::{GpuContext, read_mapped};
use super::shaders::{self, ShaderFile};
use super::storage_entry;
use crate::cloth::Cloth;
use crate::cloth::ConstraintKind;
use crate::cpu::initial_positions;
use crate::error::{ChiffonError, Result};
use crate::frame::{ColorRange, FramePlan, StepClock, StepParams, start_previous_positions};
use crate::params::SolverParams;
use crate::solver::{Solver, apply_stiffness, check_particle_edit};

/// Threads per workgroup of every solver kernel (the `WORKGROUP_SIZE` override). 128 measured
/// ~8 % faster than 64 on lavapipe at 256² and is a whole number of warps/waves on every GPU.
pub const DEFAULT_WORKGROUP_SIZE: u32 = 128;

const VEC4_BYTES: u64 = 16;

/// Workgroup grid (x, y) for `threads` threads in groups of `size`, split over y past the
/// per-dimension limit `max_per_dim`; kernels rebuild the linear index with `thread_index`.
pub fn workgroups(threads: u32, size: u32, max_per_dim: u32) -> (u32, u32) {
    let groups = threads.div_ceil(size);
    if groups <= max_per_dim {
        (groups, 1)
    } else {
        (max_per_dim, groups.div_ceil(max_per_dim))
    }
}

/// Steps a [`Cloth`] with the WGSL kernels. A frame is recorded into one command encoder and
/// submitted once; nothing is read back inside [`Solver::step`].
pub struct GpuSolver {
    device: wgpu::Device,
    queue: wgpu::Queue,
    adapter_name: String,
    cloth: Cloth,
    params: SolverParams,
    clock: StepClock,
    workgroup_size: u32,
    max_groups_per_dim: u32,
    /// Byte distance between dynamic-offset uniform slots (the device's alignment).
    uniform_stride: u64,
    /// xyz + inverse mass per particle; also usable as a vertex buffer.
    positions: wgpu::Buffer,
    previous: wgpu::Buffer,
    /// Two [`StepParams`] slots: first substep, later substeps.
    step_uniform: wgpu::Buffer,
    integrate: wgpu::ComputePipeline,
    solve_color: wgpu::ComputePipeline,
    collide: wgpu::ComputePipeline,
    particle_bind_group: wgpu::BindGroup,
    color_bind_group: wgpu::BindGroup,
    color_sizes: Vec<u32>,
    readback: OnceLock<wgpu::Buffer>,
    constraints: wgpu::Buffer,
    // Kept alive for the bind group.
    _color_uniform: wgpu::Buffer,
}

impl GpuSolver {
    /// Uploads `cloth` and builds the pipelines, with the default workgroup size.
    pub fn new(ctx: &GpuContext, cloth: &Cloth, params: SolverParams) -> Result<Self> {
        Self::with_workgroup_size(ctx, cloth, params, DEFAULT_WORKGROUP_SIZE)
    }

    /// As [`GpuSolver::new`], with `workgroup_size` threads per workgroup (a power of two
    /// within the device's limits).
    pub fn with_workgroup_size(
        ctx: &GpuContext,
        cloth: &Cloth,
        params: SolverParams,
        workgroup_size: u32,
    ) -> Result<Self> {
        params.validate()?;
        let device = &ctx.device;
        let limits = ctx.limits();
        if !workgroup_size.is_power_of_two()
            || workgroup_size > limits.max_compute_invocations_per_workgroup
            || workgroup_size > limits.max_compute_workgroup_size_x
        {
            return Err(ChiffonError::InvalidParameter {
                name: "workgroup size",
                reason: format!(
                    "{workgroup_size} must be a power of two of at most {}",
                    limits
                        .max_compute_invocations_per_workgroup
                        .min(limits.max_compute_workgroup_size_x)
                ),
            });
        }
        let n = cloth.particle_count() as u64;
        let m = cloth.constraint_count() as u64;
        let uniform_stride =
            (limits.min_uniform_buffer_offset_alignment as u64).max(size_of::<StepParams>() as u64);
        ctx.check_storage_buffer("the particle position buffer", n * VEC4_BYTES)?;
        ctx.check_storage_buffer(
            "the constraint buffer",
            m * size_of::<crate::Constraint>() as u64,
        )?;
        ctx.check_storage_buffer(
            "the color table",
            cloth.colors.len() as u64 * uniform_stride,
        )?;

        // Buffers: particles (vec4: xyz + inverse mass), previous positions, constraints sorted
        // by color, and the two uniform tables read through dynamic offsets.
        let storage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC;
        let positions = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("positions"),
            size: n * VEC4_BYTES,
            usage: storage | wgpu::BufferUsages::VERTEX,
            mapped_at_creation: false,
        });
        let previous = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("previous positions"),
            size: n * VEC4_BYTES,
            usage: storage,
            mapped_at_creation: false,
        });
        let constraints = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("constraints"),
            size: (m * size_of::<crate::Constraint>() as u64).max(VEC4_BYTES),
            usage: storage,
            mapped_at_creation: false,
        });
        ctx.queue
            .write_buffer(&constraints, 0, bytemuck::cast_slice(&cloth.constraints));
        let step_uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("step params (first substep, later substeps)"),
            size: 2 * uniform_stride,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        // One ColorRange per color, each at its own aligned offset: a color is chosen by the
        // dynamic offset at dispatch time, so nothing is rewritten per frame.
        let color_uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("color ranges"),
            size: cloth.colors.len().max(1) as u64 * uniform_stride,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        for (c, range) in cloth.colors.iter().enumerate() {
            ctx.queue.write_buffer(
                &color_uniform,
                c as u64 * uniform_stride,
                bytemuck::bytes_of(&ColorRange::new(range)),
            );
        }

        // Layouts: integrate and collide read the step params and write both particle buffers;
        // solve_color reads one color range and the constraints, and writes positions.
        let uniform_entry = |size: usize| wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: true,
                min_binding_size: wgpu::BufferSize::new(size as u64),
            },
            count: None,
        };
        let particle_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("integrate/collide layout"),
            entries: &[
                uniform_entry(size_of::<StepParams>()),
                storage_entry(1, false),
                storage_entry(2, false),
            ],
        });
        let color_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("solve_color layout"),
            entries: &[
                uniform_entry(size_of::<ColorRange>()),
                storage_entry(1, true),
                storage_entry(2, false),
            ],
        });
        fn uniform_binding(buffer: &wgpu::Buffer, size: usize) -> wgpu::BindingResource<'_> {
            wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer,
                offset: 0,
                size: wgpu::BufferSize::new(size as u64),
            })
        }
        let particle_bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("integrate/collide bindings"),
            layout: &particle_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: uniform_binding(&step_uniform, size_of::<StepParams>()),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: positions.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: previous.as_entire_binding(),
                },
            ],
        });
        let color_bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("solve_color bindings"),
            layout: &color_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: uniform_binding(&color_uniform, size_of::<ColorRange>()),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: constraints.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: positions.as_entire_binding(),
                },
            ],
        });

        let pipeline = |file: ShaderFile, layout: &wgpu::BindGroupLayout| {
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(file.file),
                source: wgpu::ShaderSource::Wgsl(file.source().into()),
            });
            let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(file.entry_points),
                bind_group_layouts: &[Some(layout)],
                immediate_size: 0,
            });
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(file.entry_points),
                layout: Some(&layout),
                module: &module,
                entry_point: Some(file.entry_points),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: &[("WORKGROUP_SIZE", workgroup_size as f64)],
                    ..Default::default()
                },
                cache: None,
            })
        };
        let integrate = pipeline(shaders::INTEGRATE, &particle_layout);
        let solve_color = pipeline(shaders::SOLVE_COLOR, &color_layout);
        let collide = pipeline(shaders::COLLIDE, &particle_layout);

        let mut solver = Self {
            device: device.clone(),
            queue: ctx.queue.clone(),
            adapter_name: ctx.describe(),
            color_sizes: cloth.color_sizes(),
            cloth: cloth.clone(),
            params,
            clock: StepClock::default(),
            workgroup_size,
            max_groups_per_dim: limits.max_compute_workgroups_per_dimension,
            uniform_stride,
            positions,
            previous,
            step_uniform,
            integrate,
            solve_color,
            collide,
            particle_bind_group,
            color_bind_group,
            readback: OnceLock::new(),
            constraints,
            _color_uniform: color_uniform,
        };
        solver.reset()?;
        Ok(solver)
    }

    /// The position buffer (`vec4<f32>` per particle: xyz in m, w = inverse mass). Renderers
    /// may bind it as a vertex or storage buffer instead of copying positions.
    pub fn position_buffer(&self) -> &wgpu::Buffer {
        &self.positions
    }

    /// The device this solver runs on.
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// Bytes of GPU memory the solver's buffers hold (readback staging excluded).
    pub fn gpu_bytes(&self) -> u64 {
        self.positions.size()
            + self.previous.size()
            + self.constraints.size()
            + self.step_uniform.size()
            + self._color_uniform.size()
    }

    /// Compute dispatches one frame records under the current parameters.
    pub fn dispatches_per_frame(&self) -> u64 {
        let p = &self.params;
        p.substeps as u64 * (2 + p.iterations as u64 * self.color_sizes.len() as u64)
    }

    /// Workgroup grid for `threads` threads: (x, y), split over y past the per-dimension limit.
    fn groups(&self, threads: u32) -> (u32, u32) {
        let groups = threads.div_ceil(self.workgroup_size);
        if groups <= self.max_groups_per_dim {
            (groups, 1)
        } else {
            (
                self.max_groups_per_dim,
                groups.div_ceil(self.max_groups_per_dim),
            )
        }
    }

    /// Records one frame's dispatches into `pass`.
    fn record(&self, pass: &mut wgpu::ComputePass<'_>) {
        let (px, py) = self.groups(self.cloth.particle_count() as u32);
        for s in 0..self.params.substeps {
            // Slot 0 carries the frame's dt ratio; later substeps use slot 1 (ratio 1).
            let slot = [if s == 0 {
                0
            } else {
                self.uniform_stride as u32
            }];
            // Verlet step for every particle.
            pass.set_pipeline(&self.integrate);
            pass.set_bind_group(0, &self.particle_bind_group, &slot);
            pass.dispatch_workgroups(px, py, 1);
            // Constraint relaxation: one dispatch per color, colors in a fixed order.
            pass.set_pipeline(&self.solve_color);
            for _ in 0..self.params.iterations {
                for (c, &size) in self.color_sizes.iter().enumerate() {
                    let offset = (c as u64 * self.uniform_stride) as u32;
                    pass.set_bind_group(0, &self.color_bind_group, &[offset]);
                    let (cx, cy) = self.groups(size);
                    pass.dispatch_workgroups(cx, cy, 1);
                }
            }
            // Project out of colliders.
            pass.set_pipeline(&self.collide);
            pass.set_bind_group(0, &self.particle_bind_group, &slot);
            pass.dispatch_workgroups(px, py, 1);
        }
    }

    /// Writes the frame's uniforms (and, on the first frame, the start positions `x₋₁`).
    fn upload_plan(&self, plan: &FramePlan) {
        if plan.starting {
            let start = start_previous_positions(
                &initial_positions(&self.cloth),
                self.cloth.velocity,
                self.params.acceleration(),
                plan.h as f32,
            );
            self.queue
                .write_buffer(&self.previous, 0, bytemuck::cast_slice(&start));
        }
        self.queue
            .write_buffer(&self.step_uniform, 0, bytemuck::bytes_of(&plan.first));
        self.queue.write_buffer(
            &self.step_uniform,
            self.uniform_stride,
            bytemuck::bytes_of(&plan.rest),
        );
    }

    /// Steps one frame, with the compute pass wrapped in the given timestamp writes (the
    /// benchmark's GPU timer). See [`Solver::step`].
    pub fn step_with_timestamps(
        &mut self,
        dt: f64,
        timestamps: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) -> Result<wgpu::CommandEncoder> {
        let plan = self
            .clock
            .plan(dt, &self.params, self.cloth.particle_count())?;
        self.upload_plan(&plan);
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("chiffon frame"),
            });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("chiffon frame"),
                timestamp_writes: timestamps,
            });
            self.record(&mut pass);
        }
        Ok(encoder)
    }

    /// Submits an encoder returned by [`GpuSolver::step_with_timestamps`].
    pub fn submit(&self, encoder: wgpu::CommandEncoder) {
        self.queue.submit([encoder.finish()]);
    }

    /// Blocks until every submitted frame has finished on the device.
    pub fn wait(&self) -> Result<()> {
        super::context::wait(&self.device)
    }

    /// Positions with inverse mass in w, as the kernels see them (waits for the device).
    pub fn raw_positions(&self) -> Result<Vec<Vec4>> {
        let bytes = self.positions.size();
        let readback = self.readback.get_or_init(|| {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("positions readback"),
                size: bytes,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        });
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("positions readback"),
            });
        encoder.copy_buffer_to_buffer(&self.positions, 0, readback, 0, bytes);
        self.queue.submit([encoder.finish()]);
        let data = read_mapped(&self.device, readback)?;
        Ok(bytemuck::cast_slice(&data).to_vec())
    }
}

impl Solver for GpuSolver {
    fn step(&mut self, dt: f64) -> Result<()> {
        let encoder = self.step_with_timestamps(dt, None)?;
        self.submit(encoder);
        Ok(())
    }

    fn positions(&mut self) -> Result<Vec<Vec3>> {
        Ok(self.raw_positions()?.iter().map(|p| p.truncate()).collect())
    }

    fn params(&self) -> &SolverParams {
        &self.params
    }

    fn set_params(&mut self, params: SolverParams) -> Result<()> {
        params.validate()?;
        self.params = params;
        Ok(())
    }

    fn reset(&mut self) -> Result<()> {
        let initial = initial_positions(&self.cloth);
        self.queue
            .write_buffer(&self.positions, 0, bytemuck::cast_slice(&initial));
        self.queue
            .write_buffer(&self.previous, 0, bytemuck::cast_slice(&initial));
        self.clock.reset();
        Ok(())
    }

    fn cloth(&self) -> &Cloth {
        &self.cloth
    }

    fn backend_name(&self) -> String {
        self.adapter_name.clone()
    }

    fn set_particle(&mut self, index: usize, position: Vec3, inverse_mass: f32) -> Result<()> {
        check_particle_edit(&self.cloth, index, position, inverse_mass)?;
        let offset = index as u64 * VEC4_BYTES;
        let p = position.extend(inverse_mass);
        let prev = position.extend(0.0);
        self.queue
            .write_buffer(&self.positions, offset, bytemuck::bytes_of(&p));
        self.queue
            .write_buffer(&self.previous, offset, bytemuck::bytes_of(&prev));
        Ok(())
    }

    fn set_inverse_mass(&mut self, index: usize, inverse_mass: f32) -> Result<()> {
        check_particle_edit(&self.cloth, index, Vec3::ZERO, inverse_mass)?;
        // Only the w component: the position stays wherever the GPU has it.
        let offset = index as u64 * VEC4_BYTES + 12;
        self.queue
            .write_buffer(&self.positions, offset, bytemuck::bytes_of(&inverse_mass));
        Ok(())
    }

    fn set_stiffness(&mut self, kind: ConstraintKind, stiffness: f32) -> Result<()> {
        apply_stiffness(&mut self.cloth, kind, stiffness)?;
        self.queue.write_buffer(
            &self.constraints,
            0,
            bytemuck::cast_slice(&self.cloth.constraints),
        );
        Ok(())
    }
}
