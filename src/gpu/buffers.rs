//! A world's buffers on the GPU, sized by [`BufferSizes`]: the particle buffers, made once at
//! the world's capacity, and the topology buffers, which grow with the layout. And the bind
//! groups over them, in each kernel's WGSL binding order.

use super::context::GpuContext;
use super::kernels::STEP_SIZE;
use super::kernels::bind_group;
use super::passes::{BindGroups, FusedPipelines, Pipelines, check_storage_buffer};
use crate::config::{BufferSizes, ColorRange, Health, StepParams, TopologyCounts, TopologySizes};
use crate::error::Result;
use crate::hierarchy::Hierarchy;
use crate::schedule::FramePlan;

/// Usage of every storage buffer: bound by the kernels, written by the queue, read back.
const STORAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_DST)
    .union(wgpu::BufferUsages::COPY_SRC);
/// Usage of every uniform table.
const UNIFORM: wgpu::BufferUsages = wgpu::BufferUsages::UNIFORM.union(wgpu::BufferUsages::COPY_DST);

fn buffer(
    device: &wgpu::Device,
    label: &str,
    size: u64,
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage,
        mapped_at_creation: false,
    })
}

/// The buffers made once, at the world's capacity.
pub(crate) struct ParticleBuffers {
    /// xyz + inverse mass per particle; also usable as a vertex buffer.
    pub(crate) positions: wgpu::Buffer,
    pub(crate) previous: wgpu::Buffer,
    /// The tether slots of every particle.
    pub(crate) tethers: wgpu::Buffer,
    /// The health flag ([`Health`]), then each fused cloth's [`crate::config::ClothRest`].
    pub(crate) health: wgpu::Buffer,
    /// One [`StepParams`] slot per substep.
    pub(crate) step_uniform: wgpu::Buffer,
}

impl ParticleBuffers {
    /// Creates them, after checking each against the device's limits.
    pub(crate) fn new(ctx: &GpuContext, sizes: &BufferSizes) -> Result<Self> {
        let limits = ctx.limits();
        check_storage_buffer(&limits, "the particle position buffer", sizes.particles)?;
        check_storage_buffer(&limits, "the tether buffer", sizes.tethers)?;
        let d = &ctx.device;
        // The flag, then every fused cloth's rest state (awake: zeroed).
        let health = buffer(d, "health", sizes.health, STORAGE);
        ctx.queue
            .write_buffer(&health, 0, bytemuck::bytes_of(&Health::CLEAR));
        Ok(Self {
            positions: buffer(
                d,
                "positions",
                sizes.particles,
                STORAGE | wgpu::BufferUsages::VERTEX,
            ),
            previous: buffer(d, "previous positions", sizes.particles, STORAGE),
            tethers: buffer(d, "tethers", sizes.tethers, STORAGE),
            health,
            step_uniform: buffer(d, "step params", sizes.step_params, UNIFORM),
        })
    }

    /// Writes a frame's [`StepParams`], one slot per substep (slot 1 always: the fused kernel
    /// binds slots 0 and 1 as its first and later substeps).
    pub(crate) fn write_steps(&self, queue: &wgpu::Queue, stride: u64, plan: &FramePlan) {
        let mut bytes = vec![0u8; (plan.substeps.max(2) as u64 * stride) as usize];
        for s in 0..plan.substeps.max(2) {
            let params: StepParams = plan.step(s);
            bytes[(s as u64 * stride) as usize..][..size_of::<StepParams>()]
                .copy_from_slice(bytemuck::bytes_of(&params));
        }
        queue.write_buffer(&self.step_uniform, 0, &bytes);
    }
}

/// The buffers that hold a layout's topology.
pub(crate) struct TopologyBuffers {
    pub(crate) sizes: TopologySizes,
    /// The color-sorted constraints.
    pub(crate) constraints: wgpu::Buffer,
    /// One XPBD multiplier per constraint.
    pub(crate) multipliers: wgpu::Buffer,
    /// Two [`ColorRange`]s per color (first sweep, later sweeps), each in its own
    /// dynamic-offset slot.
    pub(crate) color_uniform: wgpu::Buffer,
    /// The `materials` table: α̃ per material, rewritten every frame.
    pub(crate) materials: wgpu::Buffer,
    /// The coarse levels: the particle of each snapshot slot, the snapshot, the prolongation
    /// entries and the coarse passes' ranges (dynamic-offset slots).
    pub(crate) nodes: wgpu::Buffer,
    pub(crate) snapshot: wgpu::Buffer,
    pub(crate) prolongations: wgpu::Buffer,
    pub(crate) coarse_uniform: wgpu::Buffer,
    /// The fused path's frame, and its table: one record per fused cloth, their colors, their
    /// particles' tether slots and their coarse levels (one buffer, so the fused kernel fits a
    /// browser's storage buffers: `world::layout::FusedRows`).
    pub(crate) fused_frame: wgpu::Buffer,
    pub(crate) fused_table: wgpu::Buffer,
}

impl TopologyBuffers {
    /// Creates them at `sizes`, after checking each against the device's limits.
    pub(crate) fn new(ctx: &GpuContext, sizes: TopologySizes) -> Result<Self> {
        let limits = ctx.limits();
        for (what, bytes) in [
            ("the constraint buffer", sizes.constraints),
            ("the multiplier buffer", sizes.multipliers),
            ("the material table", sizes.materials),
            ("the coarse-level snapshot", sizes.snapshot),
            ("the prolongation table", sizes.prolongations),
            ("the fused table", sizes.fused_table),
        ] {
            check_storage_buffer(&limits, what, bytes)?;
        }
        let d = &ctx.device;
        Ok(Self {
            constraints: buffer(d, "constraints", sizes.constraints, STORAGE),
            multipliers: buffer(d, "multipliers", sizes.multipliers, STORAGE),
            color_uniform: buffer(d, "color ranges", sizes.color_table, UNIFORM),
            materials: buffer(d, "materials", sizes.materials, STORAGE),
            nodes: buffer(d, "coarse nodes", sizes.nodes, STORAGE),
            snapshot: buffer(d, "coarse snapshot", sizes.snapshot, STORAGE),
            prolongations: buffer(d, "prolongations", sizes.prolongations, STORAGE),
            coarse_uniform: buffer(d, "coarse ranges", sizes.coarse_table, UNIFORM),
            fused_frame: buffer(
                d,
                "fused frame",
                size_of::<crate::config::FusedFrame>() as u64,
                UNIFORM,
            ),
            fused_table: buffer(d, "fused table", sizes.fused_table, STORAGE),
            sizes,
        })
    }

    /// Writes the color table: slot 2c is color c's first sweep of a substep, 2c + 1 its later
    /// sweeps, so a color is chosen by the dynamic offset and nothing is rewritten per frame.
    pub(crate) fn write_colors(&self, queue: &wgpu::Queue, stride: u64, colors: &[ColorRange]) {
        for (c, &later) in colors.iter().enumerate() {
            for (k, uniform) in [later.first(), later].iter().enumerate() {
                queue.write_buffer(
                    &self.color_uniform,
                    (2 * c + k) as u64 * stride,
                    bytemuck::bytes_of(uniform),
                );
            }
        }
    }

    /// Uploads the coarse levels: snapshot slots, prolongation entries and the coarse passes'
    /// ranges (one dynamic-offset slot each).
    pub(crate) fn write_hierarchy(&self, queue: &wgpu::Queue, stride: u64, h: &Hierarchy) {
        if h.levels().is_empty() {
            return;
        }
        queue.write_buffer(&self.nodes, 0, bytemuck::cast_slice(h.nodes()));
        queue.write_buffer(
            &self.prolongations,
            0,
            bytemuck::cast_slice(h.prolongations()),
        );
        for (k, range) in h.ranges().iter().enumerate() {
            queue.write_buffer(
                &self.coarse_uniform,
                k as u64 * stride,
                bytemuck::bytes_of(range),
            );
        }
    }
}

/// The contact tables, which grow with the colliders (written every frame) and the mesh
/// colliders' grids (written when the meshes change).
pub(crate) struct ContactBuffers {
    /// The collider table: one [`crate::config::ColliderRecord`] per collider, then the
    /// colliders' broad phase ([`crate::contact::broadphase`]), both written every frame.
    pub(crate) table: wgpu::Buffer,
    /// Every mesh collider's distance samples.
    pub(crate) grid: wgpu::Buffer,
}

impl ContactBuffers {
    /// Room for `table` bytes of records and broad phase, and `grid` bytes of samples.
    pub(crate) fn new(ctx: &GpuContext, table: u64, grid: u64) -> Result<Self> {
        Ok(Self {
            table: Self::table(ctx, table)?,
            grid: Self::grid(ctx, grid)?,
        })
    }

    /// A collider table of `bytes`.
    pub(crate) fn table(ctx: &GpuContext, bytes: u64) -> Result<wgpu::Buffer> {
        check_storage_buffer(&ctx.limits(), "the collider table", bytes)?;
        Ok(buffer(&ctx.device, "colliders", bytes, STORAGE))
    }

    /// A distance-grid table of `bytes`.
    pub(crate) fn grid(ctx: &GpuContext, bytes: u64) -> Result<wgpu::Buffer> {
        check_storage_buffer(&ctx.limits(), "the mesh colliders' distance grids", bytes)?;
        Ok(buffer(&ctx.device, "distance grids", bytes, STORAGE))
    }
}

/// Self-collision's buffers, made at the first frame with it after each layout, for the
/// particles there are (sizes: `config::self_table_len` and its neighbours).
pub(crate) struct SelfCollisionBuffers {
    /// Rest positions (xyz), each particle's cloth (w).
    pub(crate) rest: wgpu::Buffer,
    /// Counts, starts and block sums of the hash, then the candidate lists' state.
    pub(crate) table: wgpu::Buffer,
    /// Each particle's bucket, the particles bucket by bucket, then each particle's candidate
    /// list.
    pub(crate) hash: wgpu::Buffer,
    /// The pushed positions, then the positions the lists were built at.
    pub(crate) moved: wgpu::Buffer,
    /// The positions in bucket order.
    pub(crate) sorted: wgpu::Buffer,
}

impl SelfCollisionBuffers {
    /// Room for `particles` particles; the scan runs in blocks of `workgroup_size`.
    pub(crate) fn new(ctx: &GpuContext, particles: u64, workgroup_size: u32) -> Result<Self> {
        use crate::config::{hash_cells, self_hash_len, self_moved_len, self_table_len};
        let cells = hash_cells(particles as u32);
        let table = self_table_len(cells, workgroup_size) as u64 * 4;
        let n = particles.max(1);
        let vec4s = n * crate::config::VEC4_BYTES;
        let buckets = self_hash_len(n as usize) as u64 * 4;
        let moved = self_moved_len(n as usize) as u64 * crate::config::VEC4_BYTES;
        let limits = ctx.limits();
        check_storage_buffer(&limits, "the self-collision hash table", table)?;
        check_storage_buffer(&limits, "the self-collision buckets and lists", buckets)?;
        check_storage_buffer(&limits, "the self-collision pushed positions", moved)?;
        let d = &ctx.device;
        Ok(Self {
            rest: buffer(d, "rest positions", vec4s, STORAGE),
            table: buffer(d, "self-collision table", table, STORAGE),
            hash: buffer(d, "self-collision buckets and lists", buckets, STORAGE),
            moved: buffer(d, "self-collision moved", moved, STORAGE),
            sorted: buffer(d, "self-collision sorted positions", vec4s, STORAGE),
        })
    }

    /// Bytes on the device.
    pub(crate) fn bytes(&self) -> u64 {
        self.rest.size()
            + self.table.size()
            + self.hash.size()
            + self.moved.size()
            + self.sorted.size()
    }
}

/// The per-triangle kernels' buffers (the box-edge contacts and the air), made the first time
/// either runs and grown with the layout: the triangle table (`contact::edges`), the edge
/// contacts' pushes (`config::EDGE_PUSH_ROWS` a triangle), the air's change of each previous position, and the air's uniform.
pub(crate) struct TriangleBuffers {
    /// The triangle table.
    pub(crate) table: wgpu::Buffer,
    /// [`crate::config::EDGE_PUSH_ROWS`] `vec4`s a triangle (the push off a box's edge or a
    /// thin axis), or the air's force on it.
    pub(crate) pushes: wgpu::Buffer,
    /// One `vec4` a particle: the wind where it is (the air's forces on the triangles go in
    /// `pushes`).
    pub(crate) winds: wgpu::Buffer,
    /// The air kernels' block ([`crate::config::AirParams`]).
    pub(crate) air_uniform: wgpu::Buffer,
}

impl TriangleBuffers {
    /// A table of `table_words` words, pushes for `triangles` triangles, and the air's output
    /// for `particles` particles.
    pub(crate) fn new(
        ctx: &GpuContext,
        table_words: u64,
        triangles: u64,
        particles: u64,
    ) -> Result<Self> {
        let table = table_words.max(1) * 4;
        let pushes =
            crate::config::EDGE_PUSH_ROWS as u64 * triangles.max(1) * crate::config::VEC4_BYTES;
        let air = particles.max(1) * crate::config::VEC4_BYTES;
        let limits = ctx.limits();
        check_storage_buffer(&limits, "the triangle table", table)?;
        check_storage_buffer(&limits, "the box contacts' pushes", pushes)?;
        check_storage_buffer(&limits, "the air's winds", air)?;
        let d = &ctx.device;
        let uniform = size_of::<crate::config::AirParams>() as u64;
        Ok(Self {
            table: buffer(d, "triangle table", table, STORAGE),
            pushes: buffer(d, "box-edge pushes", pushes, STORAGE),
            winds: buffer(d, "air: winds at the particles", air, STORAGE),
            air_uniform: buffer(
                d,
                "air params",
                uniform,
                wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            ),
        })
    }

    /// Bytes on the device.
    pub(crate) fn bytes(&self) -> u64 {
        self.table.size() + self.pushes.size() + self.winds.size() + self.air_uniform.size()
    }
}

/// What a layout holds, counted for [`BufferSizes::topology_for`].
pub(crate) fn counts(layout: &crate::world::layout::Layout) -> TopologyCounts {
    let h = &layout.global;
    TopologyCounts {
        constraints: layout.constraints.len() as u64,
        colors: h.constraints().colors().len() as u64,
        materials: layout.placed.len() as u64,
        nodes: h.nodes().len() as u64,
        prolongations: h.prolongations().len() as u64,
        levels: h.levels().len() as u64,
        fused_rows: layout.fused_rows().end as u64,
        fused_nodes: layout.fused_nodes.len() as u64,
        // The contact tables are sized by ContactBuffers.
        colliders: 0,
        grid_samples: 0,
        collider_cells: 0,
    }
}

/// Bind groups over the buffers for `pipelines`' layouts, in the WGSL's binding order (the
/// lazily made self-collision and box-edge buffers, when there are any).
#[allow(clippy::too_many_arguments)]
pub(crate) fn bind_groups(
    device: &wgpu::Device,
    pipelines: &Pipelines,
    fused: Option<&FusedPipelines>,
    stride: u64,
    p: &ParticleBuffers,
    t: &TopologyBuffers,
    c: &ContactBuffers,
    h: Option<&SelfCollisionBuffers>,
    e: Option<&TriangleBuffers>,
) -> BindGroups {
    // The substep's StepParams, a dynamic-offset slot.
    let step = (&p.step_uniform, Some(STEP_SIZE));
    let particle = bind_group(
        device,
        "per-particle kernels",
        &pipelines.particle_layout,
        &[
            step,
            (&p.positions, None),
            (&p.previous, None),
            (&p.tethers, None),
            (&p.health, None),
        ],
    );
    let color = bind_group(
        device,
        "solve_color",
        &pipelines.color_layout,
        &[
            (&t.color_uniform, Some(size_of::<ColorRange>() as u64)),
            (&t.constraints, None),
            (&p.positions, None),
            (&p.previous, None),
            (&t.multipliers, None),
            step,
            (&t.materials, None),
        ],
    );
    let coarse = bind_group(
        device,
        "coarse levels",
        &pipelines.coarse_layout,
        &[
            (&t.coarse_uniform, Some(size_of::<ColorRange>() as u64)),
            (&t.nodes, None),
            (&t.prolongations, None),
            (&p.positions, None),
            (&t.snapshot, None),
        ],
    );
    let collide_buffers = [
        step,
        (&p.positions, None),
        (&p.previous, None),
        (&c.table, None),
        (&c.grid, None),
    ];
    let collide = bind_group(
        device,
        "collide",
        &pipelines.collide_layout,
        &collide_buffers,
    );
    // The box-edge kernels bind collide's buffers, then the triangle table and the pushes.
    let edges = e.map(|e| {
        bind_group(
            device,
            "box-edge contacts",
            &pipelines.edges_layout,
            &[&collide_buffers[..], &[(&e.table, None), (&e.pushes, None)]].concat(),
        )
    });
    let air = e.map(|e| {
        bind_group(
            device,
            "air",
            &pipelines.air_layout,
            &[
                (&e.air_uniform, None),
                (&p.positions, None),
                (&p.previous, None),
                (&e.table, None),
                (&e.winds, None),
                (&e.pushes, None),
            ],
        )
    });
    let self_collision = h.map(|h| {
        bind_group(
            device,
            "self-collision",
            &pipelines.self_layout,
            &[
                step,
                (&p.positions, None),
                (&p.previous, None),
                (&h.rest, None),
                (&h.table, None),
                (&h.hash, None),
                (&h.moved, None),
                (&h.sorted, None),
            ],
        )
    });
    let fused = fused.map(|f| {
        let layout = &f.layout;
        let whole = |b: &wgpu::Buffer| (b.clone(), 0, None);
        // The two StepParams slots bound as two fixed uniforms (the fused kernel reads both).
        let slot = |k: u64| (p.step_uniform.clone(), k * stride, Some(STEP_SIZE));
        let resources = [
            whole(&t.fused_frame),
            slot(0),
            slot(1),
            whole(&t.fused_table),
            whole(&t.constraints),
            whole(&p.positions),
            whole(&p.previous),
            whole(&t.multipliers),
            whole(&p.health),
            whole(&c.table),
            whole(&c.grid),
        ];
        let entries: Vec<wgpu::BindGroupEntry> = resources
            .iter()
            .enumerate()
            .map(|(k, (buffer, offset, size))| wgpu::BindGroupEntry {
                binding: k as u32,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer,
                    offset: *offset,
                    size: size.and_then(wgpu::BufferSize::new),
                }),
            })
            .collect();
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("solve_cloths"),
            layout,
            entries: &entries,
        })
    });
    BindGroups {
        particle,
        color,
        coarse,
        collide,
        edges,
        air,
        self_collision,
        fused,
    }
}
