//! The GPU solver: the cloth in storage buffers, the frame schedule recorded as one compute
//! pass per stage into one command encoder, submitted once per frame.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use glam::{Vec3, Vec4};

use super::context::{GpuContext, read_mapped};
use super::kernels::{Binding, Kernel, bind_group, bind_group_layout, check_workgroup_size};
use super::shaders;
use super::timer::StageTimer;
use crate::cloth::Cloth;
use crate::config::{
    BufferSizes, ColorRange, DEFAULT_WORKGROUP_SIZE, Health, StepParams, VEC4_BYTES,
};
use crate::cpu::initial_positions;
use crate::error::Result;
use crate::params::SolverParams;
use crate::schedule::{Executor, FramePlan, FrameSchedule, Pass, Slot, Stage, StepClock};
use crate::solver::{Anchors, FrameCount, Solver, check_particle_edit};

/// The solver's kernels. The per-particle ones share one layout (step params, positions,
/// previous positions, tethers, health); `solve_color` has its own (color range, constraints,
/// positions, previous positions, multipliers, step params).
struct Kernels {
    start: Kernel,
    integrate: Kernel,
    solve_color: Kernel,
    tethers: Kernel,
    collide: Kernel,
    health: Kernel,
}

/// A copy of the health flag on its way back to the host, read without stalling.
struct HealthProbe {
    staging: wgpu::Buffer,
    /// Set by the map callback once the copy can be read.
    ready: Option<Arc<AtomicBool>>,
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
    /// The constraints and one XPBD multiplier per constraint (only the bind group reads them;
    /// owned here with the solver's other buffers).
    _constraints: wgpu::Buffer,
    _multipliers: wgpu::Buffer,
    /// The tether slots of every particle.
    tether_buffer: wgpu::Buffer,
    /// The health flag ([`Health`]).
    health: wgpu::Buffer,
    probe: HealthProbe,
    anchors: Anchors,
    frames: FrameCount,
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
        ctx.check_storage_buffer("the multiplier buffer", sizes.multipliers)?;
        ctx.check_storage_buffer("the tether buffer", sizes.tethers)?;
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
        let multipliers = buffer("multipliers", sizes.multipliers, storage);
        let tether_buffer = buffer("tethers", sizes.tethers, storage);
        let health_bytes = size_of::<Health>() as u64;
        let health = buffer("health", health_bytes.max(VEC4_BYTES), storage);
        let staging = buffer(
            "health readback",
            health_bytes.max(VEC4_BYTES),
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        let step_uniform = buffer("step params", sizes.step_params, uniform);
        let color_uniform = buffer("color ranges", sizes.color_table, uniform);
        ctx.queue
            .write_buffer(&constraints, 0, bytemuck::cast_slice(cloth.constraints()));
        // A color is chosen by the dynamic offset at dispatch time, so nothing is rewritten per
        // frame: slot 2c is color c's first sweep of a substep, 2c + 1 its later sweeps.
        for (c, range) in cloth.colors().iter().enumerate() {
            let later = ColorRange::new(range);
            for (k, uniform) in [later.first(), later].iter().enumerate() {
                ctx.queue.write_buffer(
                    &color_uniform,
                    (2 * c + k) as u64 * sizes.uniform_stride,
                    bytemuck::bytes_of(uniform),
                );
            }
        }

        // Layouts and bind groups, bindings in the WGSL's order.
        let step_size = size_of::<StepParams>() as u64;
        let color_size = size_of::<ColorRange>() as u64;
        let step_binding = Binding::Uniform {
            size: step_size,
            dynamic: true,
        };
        let particle_layout = bind_group_layout(
            device,
            "per-particle kernels",
            &[
                step_binding,
                Binding::StorageReadWrite,
                Binding::StorageReadWrite,
                Binding::StorageRead,
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
                Binding::StorageRead,
                Binding::StorageReadWrite,
                step_binding,
            ],
        );
        let particle_bind_group = bind_group(
            device,
            "per-particle kernels",
            &particle_layout,
            &[
                (&step_uniform, Some(step_size)),
                (&positions, None),
                (&previous, None),
                (&tether_buffer, None),
                (&health, None),
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
                (&previous, None),
                (&multipliers, None),
                (&step_uniform, Some(step_size)),
            ],
        );
        let kernel = |file, entry, layout| Kernel::new(device, file, entry, layout, workgroup_size);
        let kernels = Kernels {
            start: kernel(shaders::START, "start", &particle_layout),
            integrate: kernel(shaders::INTEGRATE, "integrate", &particle_layout),
            solve_color: kernel(shaders::SOLVE_COLOR, "solve_color", &color_layout),
            tethers: kernel(shaders::TETHERS, "solve_tethers", &particle_layout),
            collide: kernel(shaders::COLLIDE, "collide", &particle_layout),
            health: kernel(shaders::HEALTH, "check_health", &particle_layout),
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
            _constraints: constraints,
            _multipliers: multipliers,
            tether_buffer,
            health,
            probe: HealthProbe {
                staging,
                ready: None,
            },
            anchors: Anchors::new(cloth),
            frames: FrameCount::default(),
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

    /// The schedule of a frame of `dt` seconds after the first under the current parameters.
    pub fn schedule(&self, dt: f64) -> FrameSchedule {
        FrameSchedule::steady(
            dt,
            &self.params,
            self.color_sizes.len(),
            !self.anchors.tethers().is_empty(),
        )
    }

    /// Compute dispatches a frame of `dt` seconds records under the current parameters.
    pub fn dispatches_per_frame(&self, dt: f64) -> u64 {
        self.schedule(dt).dispatches()
    }

    /// Uploads the tethers when the pinned set changed.
    fn upload_tethers(&mut self) {
        if self.anchors.take_changed() {
            self.queue.write_buffer(
                &self.tether_buffer,
                0,
                bytemuck::cast_slice(self.anchors.tethers().slots()),
            );
        }
    }

    /// Reads the health copy requested after an earlier frame, if it has arrived (no waiting),
    /// and requests a new one after `encoder`'s frame when none is in flight.
    fn probe_health(&mut self, encoder: &mut wgpu::CommandEncoder) -> Result<()> {
        super::context::poll(&self.device);
        if let Some(ready) = &self.probe.ready {
            if !ready.load(Ordering::Acquire) {
                return Ok(());
            }
            let flag = self
                .probe
                .staging
                .get_mapped_range(..4)
                .map(|b| super::context::pod_from_bytes::<Health>(&b)[0]);
            self.probe.staging.unmap();
            self.probe.ready = None;
            if let Ok(health) = flag {
                self.frames.check(health)?;
            }
        }
        encoder.copy_buffer_to_buffer(&self.health, 0, &self.probe.staging, 0, 4);
        Ok(())
    }

    /// Starts mapping the health copy recorded by [`Self::probe_health`] (after submission).
    fn request_health(&mut self) {
        if self.probe.ready.is_some() {
            return;
        }
        let ready = Arc::new(AtomicBool::new(false));
        let flag = ready.clone();
        self.probe
            .staging
            .map_async(wgpu::MapMode::Read, .., move |r| {
                flag.store(r.is_ok(), Ordering::Release);
            });
        self.probe.ready = Some(ready);
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
        self.frames.check(Health {
            first_bad: Health::OK,
        })?;
        let (plan, schedule) =
            self.clock
                .frame(dt, &self.params, &self.cloth, self.anchors.tethers())?;
        self.upload_plan(&plan);
        self.upload_tethers();
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("chiffon frame"),
            });
        if let Some(t) = timer.as_deref_mut() {
            t.begin_frame();
        }
        schedule.run(&mut GpuFrame {
            solver: self,
            encoder: &mut encoder,
            timer: timer.as_deref_mut(),
        });
        if let Some(t) = timer {
            t.resolve(&mut encoder);
        }
        self.frames.advance();
        self.probe_health(&mut encoder)?;
        Ok(encoder)
    }

    /// Submits an encoder returned by [`GpuSolver::step_timed`].
    pub fn submit(&mut self, encoder: wgpu::CommandEncoder) {
        self.queue.submit([encoder.finish()]);
        self.request_health();
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
        let stride = s.sizes.uniform_stride;
        let at = |slot: u64| (slot * stride) as u32;
        // Kernel, bind group, dynamic offsets (uniform slots) and how many, threads.
        let particle = |kernel, slot: Slot| {
            let offsets = [at(slot as u64), 0];
            (kernel, &s.particle_bind_group, offsets, 1, particles)
        };
        for p in passes {
            let (kernel, bindings, offsets, count, threads) = match p {
                Pass::Start => particle(&k.start, Slot::First),
                Pass::Integrate(slot) => particle(&k.integrate, slot),
                Pass::SolveColor {
                    color,
                    first_sweep,
                    slot,
                } => {
                    // Slot 2c of the color table is color c's first sweep, 2c + 1 the later.
                    let entry = 2 * color as u64 + u64::from(!first_sweep);
                    let offsets = [at(entry), at(slot as u64)];
                    let threads = s.color_sizes[color as usize];
                    (&k.solve_color, &s.color_bind_group, offsets, 2, threads)
                }
                Pass::Tethers(slot) => particle(&k.tethers, slot),
                Pass::Collide(slot) => particle(&k.collide, slot),
                Pass::Health => particle(&k.health, Slot::First),
            };
            // Set the pipeline only when it changes (every color of a sweep shares one).
            if !bound.is_some_and(|b| std::ptr::eq(b, kernel)) {
                pass.set_pipeline(&kernel.pipeline);
                bound = Some(kernel);
            }
            pass.set_bind_group(0, bindings, &offsets[..count]);
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
        let ok = Health {
            first_bad: Health::OK,
        };
        self.queue
            .write_buffer(&self.health, 0, bytemuck::bytes_of(&ok));
        // A health copy still in flight belongs to the old run: wait for it and drop it.
        if self.probe.ready.take().is_some() {
            self.wait()?;
            self.probe.staging.unmap();
        }
        self.anchors = Anchors::new(&self.cloth);
        self.clock.reset();
        self.frames = FrameCount::default();
        Ok(())
    }

    fn health(&mut self) -> Result<()> {
        let flag: Vec<Health> =
            super::context::read_buffer_on(&self.device, &self.queue, &self.health)?;
        self.frames.check(flag[0])
    }

    fn tethers(&self) -> &crate::tethers::Tethers {
        self.anchors.tethers()
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
        self.anchors.held(&self.cloth, index, inverse_mass);
        Ok(())
    }

    fn set_inverse_mass(&mut self, index: usize, inverse_mass: f32) -> Result<()> {
        check_particle_edit(&self.cloth, index, Vec3::ZERO, inverse_mass)?;
        // Only the w component: the position stays wherever the GPU has it.
        let offset = index as u64 * VEC4_BYTES + 12;
        self.queue
            .write_buffer(&self.positions, offset, bytemuck::bytes_of(&inverse_mass));
        self.anchors.pin(&self.cloth, index, inverse_mass == 0.0);
        Ok(())
    }
}
