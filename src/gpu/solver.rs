//! The GPU solver: the cloth in storage buffers, the frame schedule recorded as one compute
//! pass per stage into one command encoder, submitted once per frame.

use std::sync::OnceLock;

use glam::{Vec3, Vec4};

use super::context::{GpuContext, read_mapped};
use super::kernels::{Binding, Kernel, bind_group, bind_group_layout, check_workgroup_size};
use super::shaders;
use super::timer::StageTimer;
use crate::cloth::{Cloth, ConstraintKind};
use crate::config::{BufferSizes, ColorRange, DEFAULT_WORKGROUP_SIZE, StepParams, VEC4_BYTES};
use crate::cpu::initial_positions;
use crate::error::Result;
use crate::params::SolverParams;
use crate::schedule::{Executor, FramePlan, FrameSchedule, Pass, Slot, Stage, StepClock};
use crate::solver::{Solver, check_particle_edit};

/// The solver's kernels. `start`, `integrate` and `collide` share one layout (step params,
/// positions, previous positions); `solve_color` has its own (color range, constraints,
/// positions).
struct Kernels {
    start: Kernel,
    integrate: Kernel,
    solve_color: Kernel,
    collide: Kernel,
}

/// Steps a [`Cloth`] with the WGSL kernels. Nothing is read back inside [`Solver::step`].
pub struct GpuSolver {
    device: wgpu::Device,
    queue: wgpu::Queue,
    adapter_name: String,
    cloth: Cloth,
    params: SolverParams,
    clock: StepClock,
    sizes: BufferSizes,
    /// xyz + inverse mass per particle; also usable as a vertex buffer.
    positions: wgpu::Buffer,
    previous: wgpu::Buffer,
    constraints: wgpu::Buffer,
    /// Two [`StepParams`] slots: first substep, later substeps.
    step_uniform: wgpu::Buffer,
    /// One [`ColorRange`] per color, each in its own dynamic-offset slot (only the bind group
    /// reads it; owned here with the solver's other buffers).
    _color_uniform: wgpu::Buffer,
    kernels: Kernels,
    particle_bind_group: wgpu::BindGroup,
    color_bind_group: wgpu::BindGroup,
    color_sizes: Vec<u32>,
    readback: OnceLock<wgpu::Buffer>,
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
        check_workgroup_size(&limits, workgroup_size)?;
        let sizes = BufferSizes::new(
            cloth.particle_count() as u64,
            cloth.constraint_count() as u64,
            cloth.colors().len() as u64,
            limits.min_uniform_buffer_offset_alignment as u64,
        );
        ctx.check_storage_buffer("the particle position buffer", sizes.particles)?;
        ctx.check_storage_buffer("the constraint buffer", sizes.constraints)?;
        ctx.check_storage_buffer("the color table", sizes.color_table)?;

        // Buffers: particles (vec4: xyz + inverse mass), previous positions, constraints sorted
        // by color, and the two uniform tables read through dynamic offsets.
        let storage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC;
        let buffer = |label, size, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage,
                mapped_at_creation: false,
            })
        };
        let uniform = wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST;
        let positions = buffer(
            "positions",
            sizes.particles,
            storage | wgpu::BufferUsages::VERTEX,
        );
        let previous = buffer("previous positions", sizes.particles, storage);
        let constraints = buffer("constraints", sizes.constraints, storage);
        let step_uniform = buffer("step params", sizes.step_params, uniform);
        let color_uniform = buffer("color ranges", sizes.color_table, uniform);
        ctx.queue
            .write_buffer(&constraints, 0, bytemuck::cast_slice(cloth.constraints()));
        // A color is chosen by the dynamic offset at dispatch time, so nothing is rewritten per
        // frame.
        for (c, range) in cloth.colors().iter().enumerate() {
            ctx.queue.write_buffer(
                &color_uniform,
                c as u64 * sizes.uniform_stride,
                bytemuck::bytes_of(&ColorRange::new(range)),
            );
        }

        // Layouts and bind groups, bindings in the WGSL's order.
        let step_size = size_of::<StepParams>() as u64;
        let color_size = size_of::<ColorRange>() as u64;
        let particle_layout = bind_group_layout(
            device,
            "start/integrate/collide",
            &[
                Binding::Uniform {
                    size: step_size,
                    dynamic: true,
                },
                Binding::StorageReadWrite,
                Binding::StorageReadWrite,
            ],
        );
        let color_layout = bind_group_layout(
            device,
            "solve_color",
            &[
                Binding::Uniform {
                    size: color_size,
                    dynamic: true,
                },
                Binding::StorageRead,
                Binding::StorageReadWrite,
            ],
        );
        let particle_bind_group = bind_group(
            device,
            "start/integrate/collide",
            &particle_layout,
            &[
                (&step_uniform, Some(step_size)),
                (&positions, None),
                (&previous, None),
            ],
        );
        let color_bind_group = bind_group(
            device,
            "solve_color",
            &color_layout,
            &[
                (&color_uniform, Some(color_size)),
                (&constraints, None),
                (&positions, None),
            ],
        );
        let kernel = |file, entry, layout| Kernel::new(device, file, entry, layout, workgroup_size);
        let kernels = Kernels {
            start: kernel(shaders::START, "start", &particle_layout),
            integrate: kernel(shaders::INTEGRATE, "integrate", &particle_layout),
            solve_color: kernel(shaders::SOLVE_COLOR, "solve_color", &color_layout),
            collide: kernel(shaders::COLLIDE, "collide", &particle_layout),
        };

        let mut solver = Self {
            device: device.clone(),
            queue: ctx.queue.clone(),
            adapter_name: ctx.describe(),
            color_sizes: cloth.color_sizes(),
            cloth: cloth.clone(),
            params,
            clock: StepClock::default(),
            sizes,
            positions,
            previous,
            constraints,
            step_uniform,
            _color_uniform: color_uniform,
            kernels,
            particle_bind_group,
            color_bind_group,
            readback: OnceLock::new(),
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
        self.sizes.total()
    }

    /// The schedule of a frame after the first under the current parameters.
    pub fn schedule(&self) -> FrameSchedule {
        FrameSchedule {
            starting: false,
            substeps: self.params.substeps,
            iterations: self.params.iterations,
            colors: self.color_sizes.len() as u32,
        }
    }

    /// Compute dispatches one frame records under the current parameters.
    pub fn dispatches_per_frame(&self) -> u64 {
        self.schedule().dispatches()
    }

    /// Writes the frame's two uniform slots.
    fn upload_plan(&self, plan: &FramePlan) {
        for slot in [Slot::First, Slot::Rest] {
            self.queue.write_buffer(
                &self.step_uniform,
                slot as u64 * self.sizes.uniform_stride,
                bytemuck::bytes_of(plan.slot(slot)),
            );
        }
    }

    /// Records one frame into a new encoder, timing each stage with `timer` when given (the
    /// benchmark's and the demo's GPU timer). See [`Solver::step`]; submit it with
    /// [`GpuSolver::submit`].
    pub fn step_timed(
        &mut self,
        dt: f64,
        mut timer: Option<&mut StageTimer>,
    ) -> Result<wgpu::CommandEncoder> {
        let plan = self.clock.plan(
            dt,
            &self.params,
            self.cloth.particle_count(),
            self.cloth.velocity(),
        )?;
        self.upload_plan(&plan);
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("chiffon frame"),
            });
        if let Some(t) = timer.as_deref_mut() {
            t.begin_frame();
        }
        let schedule = FrameSchedule::new(&plan, &self.params, self.color_sizes.len());
        schedule.run(&mut GpuFrame {
            solver: self,
            encoder: &mut encoder,
            timer: timer.as_deref_mut(),
        });
        if let Some(t) = timer {
            t.resolve(&mut encoder);
        }
        Ok(encoder)
    }

    /// Submits an encoder returned by [`GpuSolver::step_timed`].
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
        read_mapped(&self.device, readback)
    }
}

/// Records the schedule's passes: one compute pass per stage, one dispatch per pass.
struct GpuFrame<'a> {
    solver: &'a GpuSolver,
    encoder: &'a mut wgpu::CommandEncoder,
    timer: Option<&'a mut StageTimer>,
}

impl Executor for GpuFrame<'_> {
    fn stage(&mut self, stage: Stage, passes: &mut dyn Iterator<Item = Pass>) {
        let s = self.solver;
        let k = &s.kernels;
        let timestamp_writes = self.timer.as_deref_mut().and_then(|t| t.pass(stage));
        let mut pass = self
            .encoder
            .begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(stage.name()),
                timestamp_writes,
            });
        let particles = s.cloth.particle_count() as u32;
        let mut bound: Option<&Kernel> = None;
        for p in passes {
            // Kernel, bind group, uniform slot (chosen by dynamic offset) and threads.
            let (kernel, bindings, slot, threads) = match p {
                Pass::Start => (
                    &k.start,
                    &s.particle_bind_group,
                    Slot::First as u64,
                    particles,
                ),
                Pass::Integrate(slot) => {
                    (&k.integrate, &s.particle_bind_group, slot as u64, particles)
                }
                Pass::SolveColor(c) => (
                    &k.solve_color,
                    &s.color_bind_group,
                    c as u64,
                    s.color_sizes[c as usize],
                ),
                Pass::Collide(slot) => (&k.collide, &s.particle_bind_group, slot as u64, particles),
            };
            // Set the pipeline only when it changes (every color of a sweep shares one).
            if !bound.is_some_and(|b| std::ptr::eq(b, kernel)) {
                pass.set_pipeline(&kernel.pipeline);
                bound = Some(kernel);
            }
            let offset = (slot * s.sizes.uniform_stride) as u32;
            pass.set_bind_group(0, bindings, &[offset]);
            kernel.dispatch(&mut pass, threads);
        }
    }
}

impl Solver for GpuSolver {
    fn step(&mut self, dt: f64) -> Result<()> {
        let encoder = self.step_timed(dt, None)?;
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
        self.cloth.set_stiffness(kind, stiffness)?;
        self.queue.write_buffer(
            &self.constraints,
            0,
            bytemuck::cast_slice(self.cloth.constraints()),
        );
        Ok(())
    }
}
