//! The GPU solver: the cloth in storage buffers, the frame schedule recorded as one compute
//! pass per stage into one command encoder, submitted once per frame.

use std::sync::OnceLock;

use glam::{Vec3, Vec4};

use super::context::{GpuContext, read_mapped};
use super::kernels::check_workgroup_size;
use super::passes::{BindGroups, HealthProbe, PassRecorder, Pipelines, SolverBuffers};
use super::timer::StageTimer;
use crate::cloth::Cloth;
use crate::config::{BufferSizes, DEFAULT_WORKGROUP_SIZE, Health, VEC4_BYTES};
use crate::cpu::initial_positions;
use crate::error::Result;
use crate::hierarchy::{Hierarchy, MAX_LEVELS};
use crate::params::SolverParams;
use crate::schedule::{FramePlan, FrameSchedule, StepClock, material_alpha};
use crate::solver::{Anchors, FrameCount, Solver, check_particle_edit};

/// Steps a [`Cloth`] with the WGSL kernels. Nothing is read back inside [`Solver::step`].
pub struct GpuSolver {
    device: wgpu::Device,
    queue: wgpu::Queue,
    adapter_name: String,
    cloth: Cloth,
    params: SolverParams,
    clock: StepClock,
    buffers: SolverBuffers,
    pipelines: Pipelines,
    bind_groups: BindGroups,
    probe: HealthProbe,
    anchors: Anchors,
    frames: FrameCount,
    hierarchy: Hierarchy,
    /// Threads of each `solve_color`: the cloth's colors, then the coarse levels'.
    color_sizes: Vec<u32>,
    /// Threads of the coarse passes: the snapshot, then each level's prolongation.
    coarse_counts: Vec<u32>,
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
        // The cloth's constraints followed by its coarse levels' limits.
        let hierarchy = Hierarchy::new(cloth, MAX_LEVELS)?;
        let constraints = hierarchy.constraints();
        let sizes = BufferSizes::new(
            cloth.particle_count() as u64,
            constraints.constraints().len() as u64,
            constraints.colors().len() as u64,
            1,
            limits.min_uniform_buffer_offset_alignment as u64,
        )
        .with_hierarchy(
            hierarchy.nodes().len() as u64,
            hierarchy.prolongations().len() as u64,
            hierarchy.levels().len() as u64,
        );
        // Buffers: particles (vec4: xyz + inverse mass), previous positions, constraints sorted
        // by color, multipliers, tethers, the health flag, the uniform tables read through
        // dynamic offsets, the one material, and the coarse levels' tables.
        let buffers = SolverBuffers::new(ctx, sizes, None)?;
        ctx.queue.write_buffer(
            &buffers.constraints,
            0,
            bytemuck::cast_slice(constraints.constraints()),
        );
        buffers.write_colors(&ctx.queue, constraints.colors());
        buffers.write_hierarchy(&ctx.queue, &hierarchy);
        let pipelines = Pipelines::new(device, workgroup_size, None);
        let bind_groups = buffers.bind_groups(device, &pipelines);

        let mut solver = Self {
            device: device.clone(),
            queue: ctx.queue.clone(),
            adapter_name: ctx.describe(),
            color_sizes: constraints.color_sizes(),
            coarse_counts: hierarchy.ranges().iter().map(|r| r.count).collect(),
            hierarchy,
            cloth: cloth.clone(),
            params,
            clock: StepClock::default(),
            probe: HealthProbe::new(device),
            buffers,
            pipelines,
            bind_groups,
            anchors: Anchors::new(cloth),
            frames: FrameCount::default(),
            readback: OnceLock::new(),
        };
        solver.reset()?;
        Ok(solver)
    }

    /// The position buffer (`vec4<f32>` per particle: xyz in m, w = inverse mass). Renderers
    /// may bind it as a vertex or storage buffer instead of copying positions.
    pub fn position_buffer(&self) -> &wgpu::Buffer {
        &self.buffers.positions
    }

    /// The device this solver runs on.
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// Bytes of GPU memory the solver's buffers hold (readback staging excluded).
    pub fn gpu_bytes(&self) -> u64 {
        self.buffers.sizes.total()
    }

    /// Compute dispatches a frame of `dt` seconds records under the current parameters.
    pub fn dispatches_per_frame(&self, dt: f64) -> u64 {
        self.schedule(dt).dispatches()
    }

    /// Uploads the tethers when the pinned set changed.
    fn upload_tethers(&mut self) {
        if self.anchors.take_changed() {
            self.queue.write_buffer(
                &self.buffers.tethers,
                0,
                bytemuck::cast_slice(self.anchors.tethers().slots()),
            );
        }
    }

    /// Writes the frame's two uniform slots and its material.
    fn upload_plan(&self, plan: &FramePlan) {
        self.buffers
            .write_step(&self.queue, &plan.first, &plan.rest);
        let alpha = material_alpha(&self.params.compliance, plan.h);
        self.queue
            .write_buffer(&self.buffers.materials, 0, bytemuck::bytes_of(&alpha));
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
        let (plan, schedule) = self.clock.frame(
            dt,
            &self.params,
            &self.cloth,
            self.hierarchy.level_colors(),
            self.anchors.tethers(),
        )?;
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
        schedule.run(&mut PassRecorder {
            pipelines: &self.pipelines,
            bind_groups: &self.bind_groups,
            uniform_stride: self.buffers.sizes.uniform_stride,
            particles: self.cloth.particle_count() as u32,
            color_sizes: &self.color_sizes,
            coarse_counts: &self.coarse_counts,
            fused_cloths: 0,
            encoder: &mut encoder,
            timer: timer.as_deref_mut(),
        });
        if let Some(t) = timer {
            t.resolve(&mut encoder);
        }
        self.frames.advance();
        if let Some(health) = self
            .probe
            .read(&self.device, &self.buffers.health, &mut encoder)
        {
            self.frames.check(health)?;
        }
        Ok(encoder)
    }

    /// Submits an encoder returned by [`GpuSolver::step_timed`].
    pub fn submit(&mut self, encoder: wgpu::CommandEncoder) {
        self.queue.submit([encoder.finish()]);
        self.probe.request();
    }

    /// Blocks until every submitted frame has finished on the device.
    pub fn wait(&self) -> Result<()> {
        super::context::wait(&self.device)
    }

    /// Positions with inverse mass in w, as the kernels see them (waits for the device).
    pub fn raw_positions(&self) -> Result<Vec<Vec4>> {
        let bytes = self.buffers.positions.size();
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
        encoder.copy_buffer_to_buffer(&self.buffers.positions, 0, readback, 0, bytes);
        self.queue.submit([encoder.finish()]);
        read_mapped(&self.device, readback)
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
        let b = &self.buffers;
        self.queue
            .write_buffer(&b.positions, 0, bytemuck::cast_slice(&initial));
        self.queue
            .write_buffer(&b.previous, 0, bytemuck::cast_slice(&initial));
        let ok = Health {
            first_bad: Health::OK,
        };
        self.queue
            .write_buffer(&self.buffers.health, 0, bytemuck::bytes_of(&ok));
        // A health copy still in flight belongs to the old run: wait for it and drop it.
        self.probe.discard(&self.device)?;
        self.anchors = Anchors::new(&self.cloth);
        self.clock.reset();
        self.frames = FrameCount::default();
        Ok(())
    }

    fn health(&mut self) -> Result<()> {
        let flag: Vec<Health> =
            super::context::read_buffer_on(&self.device, &self.queue, &self.buffers.health)?;
        self.frames.check(flag[0])
    }

    fn tethers(&self) -> &crate::tethers::Tethers {
        self.anchors.tethers()
    }

    fn schedule(&self, dt: f64) -> FrameSchedule {
        FrameSchedule::steady(
            dt,
            &self.params,
            self.cloth.colors().len(),
            self.hierarchy.level_colors(),
            !self.anchors.tethers().is_empty(),
        )
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
            .write_buffer(&self.buffers.positions, offset, bytemuck::bytes_of(&p));
        self.queue
            .write_buffer(&self.buffers.previous, offset, bytemuck::bytes_of(&prev));
        self.anchors.held(&self.cloth, index, inverse_mass);
        Ok(())
    }

    fn set_inverse_mass(&mut self, index: usize, inverse_mass: f32) -> Result<()> {
        check_particle_edit(&self.cloth, index, Vec3::ZERO, inverse_mass)?;
        // Only the w component: the position stays wherever the GPU has it.
        let offset = index as u64 * VEC4_BYTES + 12;
        self.queue.write_buffer(
            &self.buffers.positions,
            offset,
            bytemuck::bytes_of(&inverse_mass),
        );
        self.anchors.pin(&self.cloth, index, inverse_mass == 0.0);
        Ok(())
    }
}
