//! The GPU recorder: a world's buffers on the device, and a frame's passes recorded as one
//! compute pass per stage into one command encoder, submitted once per frame (the twin of the
//! CPU executor in `cpu/engine.rs`).
//!
//! One file, though long: the engine's state and the `Engine` methods that read it; its
//! pipelines and bind groups are in `passes.rs`, its buffers in `buffers.rs`.

use glam::Vec4;

use super::buffers::{
    ContactBuffers, ParticleBuffers, SelfCollisionBuffers, TopologyBuffers, TriangleBuffers,
    bind_groups, counts,
};
use super::context::{GpuContext, read_prefix_on};
use super::kernels::check_workgroup_size;
use super::passes::{
    BindGroups, FusedKernel, FusedPipelines, HealthProbe, PassRecorder, Pipelines,
};
use super::timer::StageTimer;
use crate::config::{
    BufferSizes, ClothRecord, ClothRest, FUSED_WORKGROUP_RESERVED, Health, INVERSE_MASS_OFFSET,
    REST_OFFSET, TETHER_SLOTS, TetherSlot, TopologySizes, VEC4_BYTES,
};
use crate::error::{ChiffonError, Result};
use crate::world::engine::{Engine, SelfListsWatch, Started, WorldFrame};
use crate::world::layout::Layout;
use crate::world::options::{DEFAULT_FUSED_WORKGROUP_SIZE, WorldConfig};

/// A world's buffers, pipelines and the layout's per-frame sizes.
pub(crate) struct GpuEngine {
    ctx: GpuContext,
    adapter_name: String,
    sizes: BufferSizes,
    particles: ParticleBuffers,
    topology: TopologyBuffers,
    contact: ContactBuffers,
    /// Made the first time self-collision runs.
    self_collision: Option<SelfCollisionBuffers>,
    /// Whether the candidate lists in `self_collision` must be built again.
    lists: SelfListsWatch,
    /// The layout's rest positions (uploaded when self-collision's buffers are made).
    rest: Vec<Vec4>,
    /// Made the first time a box collides or the air blows; grown with the layout.
    triangle_buffers: Option<TriangleBuffers>,
    /// The layout's triangle table (`contact::edges`), and whether the buffer holds it.
    triangle_table: Vec<u32>,
    triangles_uploaded: bool,
    capacity_particles: u64,
    workgroup_size: u32,
    /// The per-pass kernels, shared with every world on the device.
    pipelines: std::sync::Arc<Pipelines>,
    /// The fused kernel, once a layout had fused cloths.
    fused: Option<FusedPipelines>,
    bind_groups: BindGroups,
    probe: HealthProbe,
    /// Particles a fused workgroup holds in workgroup memory.
    capacity: u32,
    fused_workgroup_size: u32,
    /// Particles of the current layout, and of its global cloths.
    particle_count: u32,
    global_particles: u32,
    /// Cloths of the current layout on the fused path (each with a rest state).
    fused_cloths: u32,
    /// The fused table's row of the first fused particle's tether slots.
    fused_tether_row: u32,
    /// Threads of each `solve_color`: the global colors, then the coarse levels' (a stencil
    /// color's are its stencils, half its records).
    color_sizes: Vec<u32>,
    /// Threads of the coarse passes: the snapshot, then each level's prolongation.
    coarse_counts: Vec<u32>,
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
            cap.cloths as u64,
            limits.min_uniform_buffer_offset_alignment as u64,
        );
        // The world's constraints must fit one binding too: say so now, not at the first add.
        super::passes::check_storage_buffer(
            &limits,
            "the constraint buffer",
            cap.constraints as u64 * size_of::<crate::constraint::Constraint>() as u64,
        )?;
        let particles = ParticleBuffers::new(ctx, &sizes)?;
        let topology = TopologyBuffers::new(ctx, sizes.topology)?;
        let contact = ContactBuffers::new(
            ctx,
            sizes.topology.colliders + sizes.topology.collider_cells,
            sizes.topology.grid,
        )?;
        // A workgroup holds its cloth as one vec4 per particle, within the adapter's limit
        // less what the kernel's other workgroup variables take.
        let capacity = (limits.max_compute_workgroup_storage_size as u64)
            .saturating_sub(FUSED_WORKGROUP_RESERVED)
            / VEC4_BYTES;
        let capacity = capacity as u32;
        let fused_workgroup_size = config
            .fused_workgroup_size
            .unwrap_or_else(|| default_fused_workgroup_size(&ctx.info()));
        check_workgroup_size(&limits, fused_workgroup_size)?;
        let pipelines = Pipelines::shared(&ctx.device, config.workgroup_size);
        let bind_groups = bind_groups(
            &ctx.device,
            &pipelines,
            None,
            sizes.uniform_stride,
            &particles,
            &topology,
            &contact,
            None,
            None,
        );
        Ok(Self {
            ctx: ctx.clone(),
            adapter_name: ctx.describe(),
            probe: HealthProbe::new(&ctx.device),
            sizes,
            particles,
            topology,
            contact,
            self_collision: None,
            lists: SelfListsWatch::default(),
            rest: Vec::new(),
            triangle_buffers: None,
            triangle_table: Vec::new(),
            triangles_uploaded: false,
            capacity_particles: cap.particles as u64,
            workgroup_size: config.workgroup_size,
            pipelines,
            fused: None,
            bind_groups,
            capacity,
            fused_workgroup_size,
            particle_count: 0,
            global_particles: 0,
            fused_cloths: 0,
            fused_tether_row: 0,
            color_sizes: Vec::new(),
            coarse_counts: Vec::new(),
        })
    }

    /// Makes the bind groups anew (after a buffer grew or the fused kernel was compiled).
    fn rebind(&mut self) {
        self.bind_groups = bind_groups(
            &self.ctx.device,
            &self.pipelines,
            self.fused.as_ref(),
            self.sizes.uniform_stride,
            &self.particles,
            &self.topology,
            &self.contact,
            self.self_collision.as_ref(),
            self.triangle_buffers.as_ref(),
        );
    }

    /// Makes (or grows) the per-triangle kernels' buffers for the layout's triangles and
    /// particles, and uploads its triangle table.
    fn ensure_triangles(&mut self) -> Result<()> {
        let words = self.triangle_table.len() as u64;
        let triangles = self.triangle_table.first().copied().unwrap_or(0) as u64;
        let particles = self.capacity_particles;
        let fits = self.triangle_buffers.as_ref().is_some_and(|e| {
            e.table.size() >= words * 4
                && e.pushes.size() >= crate::config::EDGE_PUSH_ROWS as u64 * triangles * VEC4_BYTES
                && e.winds.size() >= particles * VEC4_BYTES
        });
        if !fits {
            self.triangle_buffers = Some(TriangleBuffers::new(
                &self.ctx, words, triangles, particles,
            )?);
            self.triangles_uploaded = false;
            self.rebind();
        }
        if let Some(e) = self
            .triangle_buffers
            .as_ref()
            .filter(|_| !self.triangles_uploaded)
        {
            self.ctx
                .queue
                .write_buffer(&e.table, 0, bytemuck::cast_slice(&self.triangle_table));
            self.triangles_uploaded = true;
        }
        Ok(())
    }

    /// Makes self-collision's buffers (when there are none) and uploads the rest positions.
    /// They hold the particles there are: made at the world's capacity, the candidate lists
    /// of a default world would not fit in one binding.
    fn ensure_self_collision(&mut self) -> Result<()> {
        if self.self_collision.is_none() {
            self.self_collision = Some(SelfCollisionBuffers::new(
                &self.ctx,
                u64::from(self.particle_count),
                self.workgroup_size,
            )?);
            self.upload_rest();
            self.rebind();
        }
        Ok(())
    }

    /// Words of the self-collision table the kernels use for this layout (its buffer, made
    /// for all the particles, may be longer).
    fn self_table_words(&self) -> usize {
        let cells = crate::config::hash_cells(self.global_particles);
        crate::config::self_table_len(cells, self.workgroup_size)
    }

    fn upload_rest(&self) {
        if let Some(h) = &self.self_collision {
            self.ctx
                .queue
                .write_buffer(&h.rest, 0, bytemuck::cast_slice(&self.rest));
        }
    }

    /// Grows the collider table to `colliders` bytes, the grid table to `grid` and the broad
    /// phase to `cells`, each on its own: a grown table loses its contents (the caller writes
    /// it right after), the others keep theirs.
    fn ensure_contact(&mut self, colliders: u64, grid: u64, cells: u64) -> Result<()> {
        // A size is recorded once its buffer is made: a buffer refused (past the device's
        // limit) left the larger size recorded over the old buffer, and a smaller grid loaded
        // next overran it (a wgpu validation panic).
        // The bind groups are made again for a buffer made, even when the other is refused.
        let t = self.sizes.topology;
        let mut grown = false;
        let mut made = Ok(());
        // One table, records then broad phase: it grows when either part does.
        if cells > t.collider_cells || colliders > t.colliders {
            let (cells, colliders) = (t.collider_cells.max(cells), t.colliders.max(colliders));
            // Whole rows: the kernels read the broad phase's last words from its last row.
            let bytes = (colliders + cells).next_multiple_of(VEC4_BYTES);
            made = ContactBuffers::table(&self.ctx, bytes).map(|table| {
                self.contact.table = table;
                self.sizes.topology.collider_cells = cells;
                self.sizes.topology.colliders = colliders;
                grown = true;
            });
        }
        if made.is_ok() && grid > t.grid {
            made = ContactBuffers::grid(&self.ctx, grid).map(|buffer| {
                self.contact.grid = buffer;
                self.sizes.topology.grid = grid;
                grown = true;
            });
        }
        if grown {
            self.rebind();
        }
        made
    }

    /// The current layout's particles of `buffer` (a particle buffer), waiting for the device.
    fn read(&self, buffer: &wgpu::Buffer) -> Result<Vec<Vec4>> {
        let bytes = self.particle_count as u64 * VEC4_BYTES;
        read_prefix_on(&self.ctx.device, &self.ctx.queue, buffer, bytes)
    }
}

/// Particle-substeps a fused thread may take in a frame of `Auto`'s trial on an adapter that
/// runs on the CPU ([`Engine::fused_trial_fits`]): a quarter of the ~1 520 that ran past
/// llvmpipe's loop cap.
const FUSED_TRIAL_PER_THREAD: u64 = 380;

/// Threads per fused workgroup when [`WorldConfig::fused_workgroup_size`] is `None`: 64 on a
/// CPU adapter, else [`DEFAULT_FUSED_WORKGROUP_SIZE`]. Lavapipe runs a workgroup on one core,
/// and each barrier costs it a pass over every thread, so 16 measured fastest; but llvmpipe
/// ends every loop of an invocation once the invocation's loops have run 65 535 iterations in
/// all (`LP_MAX_TGSI_LOOP_ITERATIONS`, a guard against endless loops), and a fused frame of a
/// 47² cloth at 11 substeps and three sweeps of the strain limit ran past it at 16 threads: the
/// frame stopped early, silently, a few particles off their twin's. 64 threads give each
/// invocation a quarter of the iterations (`docs/many-cloths.md`).
pub(crate) fn default_fused_workgroup_size(info: &wgpu::AdapterInfo) -> u32 {
    if info.device_type == wgpu::DeviceType::Cpu {
        64
    } else {
        DEFAULT_FUSED_WORKGROUP_SIZE
    }
}

impl Engine for GpuEngine {
    fn name(&self) -> String {
        self.adapter_name.clone()
    }

    fn workgroup_capacity(&self) -> u32 {
        self.capacity
    }

    fn fuses(&self) -> bool {
        self.ctx.fuses_cloths()
    }

    fn prefers_fused(&self) -> bool {
        !self.ctx.runs_on_cpu()
    }

    /// llvmpipe ends an invocation's loops after 65 535 iterations (see
    /// [`default_fused_workgroup_size`]): a 47² cloth at 11 substeps ran past it at 16 threads,
    /// 24 300 particle-substeps, about 1 520 a thread. A frame cut short is an error that lasts
    /// until a reset, so `Auto` tries the fused path on an adapter that runs on the CPU only
    /// for cloths at a quarter of that a thread (a 63² cloth at 6 substeps on 64 threads).
    fn fused_trial_fits(&self, particles: u32, substeps: u32) -> bool {
        !self.ctx.runs_on_cpu()
            || u64::from(particles) * u64::from(substeps)
                <= FUSED_TRIAL_PER_THREAD * u64::from(self.fused_workgroup_size)
    }

    fn load(&mut self, layout: &Layout, positions: &[Vec4], previous: &[Vec4]) -> Result<()> {
        let device = &self.ctx.device;
        let stride = self.sizes.uniform_stride;
        // Grow the topology buffers when this layout needs more than they hold, and compile
        // the fused kernel when it first has fused cloths; either needs new bind groups.
        let mut need = self.sizes.topology_for(&counts(layout));
        // The contact tables grow on their own (ensure_contact).
        need.colliders = 0;
        need.grid = 0;
        need.collider_cells = 0;
        let mut rebind = false;
        if !self.topology.sizes.holds(&need) {
            let grown = self.topology.sizes.max(&need);
            self.topology = TopologyBuffers::new(&self.ctx, grown)?;
            self.sizes.topology = TopologySizes {
                colliders: self.sizes.topology.colliders,
                grid: self.sizes.topology.grid,
                collider_cells: self.sizes.topology.collider_cells,
                ..grown
            };
            rebind = true;
        }
        // Self-collision's buffers hold the particles there are, and start zeroed as the CPU
        // twin's do (whose unused list words the tests compare): a new layout has them made
        // again at its first frame with self-collision.
        if self.self_collision.take().is_some() {
            rebind = true;
        }
        if !layout.records.is_empty() && self.fused.is_none() {
            let fused = FusedKernel {
                capacity: self.capacity,
                workgroup_size: self.fused_workgroup_size,
            };
            self.fused = Some(FusedPipelines::new(device, fused));
            rebind = true;
        }
        if rebind {
            self.rebind();
        }
        let q = &self.ctx.queue;
        let (p, t) = (&self.particles, &self.topology);
        q.write_buffer(&p.positions, 0, bytemuck::cast_slice(positions));
        q.write_buffer(&p.previous, 0, bytemuck::cast_slice(previous));
        q.write_buffer(&p.tethers, 0, bytemuck::cast_slice(layout.tethers.slots()));
        q.write_buffer(&t.constraints, 0, bytemuck::cast_slice(&layout.constraints));
        t.write_colors(q, stride, &layout.global.constraints().color_ranges());
        t.write_hierarchy(q, stride, &layout.global);
        // The fused table after this layout's records (written each frame): the colors, the
        // fused particles' tether slots, then the coarse levels (world::layout::FusedRows).
        q.write_buffer(
            &t.fused_table,
            (layout.records.len() * size_of::<ClothRecord>()) as u64,
            bytemuck::cast_slice(&layout.fused_colors),
        );
        let rows = layout.fused_rows();
        self.fused_tether_row = rows.tethers;
        let fused_slots =
            &layout.tethers.slots()[layout.global_particles as usize * TETHER_SLOTS..];
        // The nodes, four a row (the last row padded).
        let mut nodes = layout.fused_nodes.clone();
        nodes.resize(nodes.len().next_multiple_of(4), 0);
        for (row, bytes) in [
            (rows.tethers, bytemuck::cast_slice::<_, u8>(fused_slots)),
            (rows.levels, bytemuck::cast_slice(&layout.fused_levels)),
            (rows.nodes, bytemuck::cast_slice(&nodes)),
            (
                rows.prolongations,
                bytemuck::cast_slice(&layout.fused_prolongations),
            ),
        ] {
            if !bytes.is_empty() {
                q.write_buffer(&t.fused_table, row as u64 * VEC4_BYTES, bytes);
            }
        }
        debug_assert_eq!(layout.tethers.slots().len(), positions.len() * TETHER_SLOTS);
        self.rest = layout.rest.clone();
        self.upload_rest();
        self.lists.invalidate();
        self.triangle_table = layout.triangle_table.clone();
        self.triangles_uploaded = false;
        self.particle_count = layout.particle_count;
        // A new layout starts every cloth awake.
        self.fused_cloths = layout.records.len() as u32;
        self.wake(0..self.fused_cloths);
        self.global_particles = layout.global_particles;
        // A color of bending stencils takes one thread per stencil (two records), a serial
        // color one.
        let constraints = layout.global.constraints();
        self.color_sizes = (0..constraints.colors().len())
            .map(|c| constraints.color_threads(c))
            .collect();
        self.coarse_counts = layout.global.ranges().iter().map(|r| r.count).collect();
        Ok(())
    }

    fn state(&mut self) -> Result<(Vec<Vec4>, Vec<Vec4>)> {
        Ok((
            self.read(&self.particles.positions)?,
            self.read(&self.particles.previous)?,
        ))
    }

    fn positions(&mut self) -> Result<Vec<Vec4>> {
        self.read(&self.particles.positions)
    }

    fn write_positions(&mut self, offset: u32, positions: &[Vec4]) {
        self.ctx.queue.write_buffer(
            &self.particles.positions,
            offset as u64 * VEC4_BYTES,
            bytemuck::cast_slice(positions),
        );
    }

    fn write_previous(&mut self, offset: u32, previous: &[Vec4]) {
        self.ctx.queue.write_buffer(
            &self.particles.previous,
            offset as u64 * VEC4_BYTES,
            bytemuck::cast_slice(previous),
        );
    }

    fn write_inverse_mass(&mut self, index: u32, inverse_mass: f32) {
        self.ctx.queue.write_buffer(
            &self.particles.positions,
            index as u64 * VEC4_BYTES + INVERSE_MASS_OFFSET,
            bytemuck::bytes_of(&inverse_mass),
        );
        self.lists.invalidate();
    }

    fn write_tethers(&mut self, offset: u32, slots: &[TetherSlot]) {
        let per_particle = (TETHER_SLOTS * size_of::<TetherSlot>()) as u64;
        self.ctx.queue.write_buffer(
            &self.particles.tethers,
            offset as u64 * per_particle,
            bytemuck::cast_slice(slots),
        );
        // The fused kernel reads its particles' slots from the fused table: mirror them there.
        let end = offset + (slots.len() / TETHER_SLOTS) as u32;
        let first = offset.max(self.global_particles);
        if first < end {
            let fused = &slots[(first - offset) as usize * TETHER_SLOTS..];
            let row = self.fused_tether_row + (first - self.global_particles);
            self.ctx.queue.write_buffer(
                &self.topology.fused_table,
                row as u64 * per_particle,
                bytemuck::cast_slice(fused),
            );
        }
    }

    fn load_grids(&mut self, samples: &[f32]) -> Result<()> {
        let bytes = (samples.len() as u64 * 4).max(16);
        self.ensure_contact(0, bytes, 0)?;
        if !samples.is_empty() {
            self.ctx
                .queue
                .write_buffer(&self.contact.grid, 0, bytemuck::cast_slice(samples));
        }
        Ok(())
    }

    fn frame(
        &mut self,
        frame: &WorldFrame<'_>,
        mut timer: Option<&mut StageTimer>,
    ) -> Result<Option<Health>> {
        let record = size_of::<crate::config::ColliderRecord>() as u64;
        self.ensure_contact(
            frame.colliders.len() as u64 * record,
            0,
            frame.collider_cells.len() as u64 * 4,
        )?;
        if frame.schedule.self_collision {
            self.ensure_self_collision()?;
        }
        if let Some(h) = &self.self_collision
            && self.lists.must_build(frame)
        {
            let word = crate::config::self_build_word(self.self_table_words());
            self.ctx
                .queue
                .write_buffer(&h.table, word as u64 * 4, bytemuck::bytes_of(&1u32));
        }
        if frame.schedule.edge_colliders || frame.schedule.air {
            self.ensure_triangles()?;
        }
        let q = &self.ctx.queue;
        if let (Some(air), Some(e)) = (&frame.air, &self.triangle_buffers) {
            q.write_buffer(&e.air_uniform, 0, bytemuck::bytes_of(air));
        }
        let (p, t) = (&self.particles, &self.topology);
        let stride = self.sizes.uniform_stride;
        p.write_steps(q, stride, frame.plan);
        // Every frame, even without colliders: the kernels read the broad phase's header
        // whatever the count, and a stale one kept removed colliders alive on the fused path.
        if !frame.colliders.is_empty() {
            q.write_buffer(
                &self.contact.table,
                0,
                bytemuck::cast_slice(frame.colliders),
            );
        }
        q.write_buffer(
            &self.contact.table,
            frame.colliders.len() as u64 * record,
            bytemuck::cast_slice(frame.collider_cells),
        );
        q.write_buffer(&t.materials, 0, bytemuck::cast_slice(frame.materials));
        if !frame.records.is_empty() {
            q.write_buffer(&t.fused_frame, 0, bytemuck::bytes_of(&frame.fused));
            q.write_buffer(
                &t.fused_table,
                0,
                bytemuck::cast_slice::<ClothRecord, u8>(frame.records),
            );
        }
        let device = &self.ctx.device;
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("chiffon frame"),
        });
        if let Some(t) = timer.as_deref_mut() {
            t.begin_frame();
        }
        frame.schedule.run(&mut PassRecorder {
            pipelines: &self.pipelines,
            fused: self.fused.as_ref(),
            bind_groups: &self.bind_groups,
            uniform_stride: stride,
            particles: self.global_particles,
            all_particles: self.particle_count,
            color_sizes: &self.color_sizes,
            coarse_counts: &self.coarse_counts,
            fused_cloths: frame.records.len() as u32,
            hash_cells: frame.plan.first.hash_cells,
            triangles: self.triangle_table.first().copied().unwrap_or(0),
            collider_kinds: crate::config::collider_kinds(frame.colliders),
            encoder: &mut encoder,
            timer: timer.as_deref_mut(),
        });
        if let Some(t) = timer {
            t.resolve(&mut encoder);
        }
        let health = self.probe.read(device, &p.health, &mut encoder);
        q.submit([encoder.finish()]);
        self.probe.request();
        Ok(health)
    }

    fn health(&mut self) -> Result<Health> {
        let flag: Vec<Health> = super::context::read_buffer_on(
            &self.ctx.device,
            &self.ctx.queue,
            &self.particles.health,
        )?;
        Ok(flag[0])
    }

    fn rests(&mut self) -> Result<Vec<ClothRest>> {
        match self.start_rests()? {
            Started::Gpu(pending) => pending.wait(),
            Started::Ready(rests) => Ok(rests),
        }
    }

    fn start_rests(&mut self) -> Result<Started<ClothRest>> {
        let bytes = self.fused_cloths as u64 * size_of::<ClothRest>() as u64;
        let (device, queue) = (&self.ctx.device, &self.ctx.queue);
        let health = &self.particles.health;
        let pending = super::context::start_read_range(device, queue, health, REST_OFFSET, bytes);
        Ok(Started::Gpu(pending))
    }

    fn wake(&mut self, fused: std::ops::Range<u32>) {
        let end = fused.end.min(self.fused_cloths);
        let start = fused.start.min(end);
        if start == end {
            return;
        }
        let awake = vec![ClothRest::AWAKE; (end - start) as usize];
        self.ctx.queue.write_buffer(
            &self.particles.health,
            REST_OFFSET + start as u64 * size_of::<ClothRest>() as u64,
            bytemuck::cast_slice(&awake),
        );
    }

    fn clear_health(&mut self) -> Result<()> {
        self.probe.discard(&self.ctx.device)?;
        self.ctx.queue.write_buffer(
            &self.particles.health,
            0,
            bytemuck::bytes_of(&Health::CLEAR),
        );
        Ok(())
    }

    fn wait(&mut self) -> Result<()> {
        super::context::wait(&self.ctx.device)
    }

    fn position_buffer(&self) -> Option<&wgpu::Buffer> {
        Some(&self.particles.positions)
    }

    fn hash_tables(&mut self) -> Result<Option<(Vec<u32>, Vec<u32>)>> {
        let Some(h) = &self.self_collision else {
            return Ok(None);
        };
        let (device, queue) = (&self.ctx.device, &self.ctx.queue);
        let table = self.self_table_words() as u64 * 4;
        let hash = crate::config::self_hash_len(self.global_particles as usize) as u64 * 4;
        Ok(Some((
            super::context::read_prefix_on(device, queue, &h.table, table)?,
            super::context::read_prefix_on(device, queue, &h.hash, hash)?,
        )))
    }

    fn gpu_bytes(&self) -> Option<u64> {
        Some(
            self.sizes.total()
                + self.self_collision.as_ref().map_or(0, |h| h.bytes())
                + self.triangle_buffers.as_ref().map_or(0, |e| e.bytes()),
        )
    }

    fn start_positions(&mut self) -> Result<Started<Vec4>> {
        let bytes = self.particle_count as u64 * VEC4_BYTES;
        let (device, queue) = (&self.ctx.device, &self.ctx.queue);
        let pending = super::context::start_read(device, queue, &self.particles.positions, bytes);
        Ok(Started::Gpu(pending))
    }

    fn start_health(&mut self) -> Result<Started<Health>> {
        let (device, queue, health) = (&self.ctx.device, &self.ctx.queue, &self.particles.health);
        let pending = super::context::start_read(device, queue, health, health.size());
        Ok(Started::Gpu(pending))
    }
}
