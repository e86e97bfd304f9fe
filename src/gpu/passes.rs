//! What the GPU solver and the GPU world share: the solver's pipelines (built once per device
//! and workgroup size), its buffers and bind groups, the recorder that turns a
//! [`FrameSchedule`](crate::schedule::FrameSchedule) into one named compute pass per stage, and
//! the health flag read back without stalling.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::context::GpuContext;
use super::kernels::{Binding, Kernel, bind_group, bind_group_layout};
use super::shaders;
use super::timer::StageTimer;
use crate::config::{
    BufferSizes, ClothRecord, ColorRange, FusedFrame, Health, StepParams, VEC4_BYTES,
};
use crate::error::Result;
use crate::schedule::{Executor, Pass, Slot, Stage};

/// The solver's kernels and their layouts. The per-particle kernels share one layout (step
/// params, positions, previous positions, tethers, health); `solve_color` has its own (color
/// range, constraints, positions, previous positions, multipliers, step params, materials);
/// the coarse levels' `snapshot_nodes` and `prolong` theirs (range, nodes, prolongations,
/// positions, snapshot);
/// the fused `solve_cloths` its own (see `shaders/solve_cloths.wgsl`).
pub(crate) struct Pipelines {
    particle_layout: wgpu::BindGroupLayout,
    color_layout: wgpu::BindGroupLayout,
    coarse_layout: wgpu::BindGroupLayout,
    start: Kernel,
    integrate: Kernel,
    snapshot: Kernel,
    prolong: Kernel,
    solve_color: Kernel,
    tethers: Kernel,
    collide: Kernel,
    health: Kernel,
    /// The fused kernel's layout and its two pipelines (cloths in workgroup memory, cloths in
    /// storage), when asked for (a world).
    fused: Option<(wgpu::BindGroupLayout, [Kernel; 2])>,
}

/// How to build the fused kernel.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FusedKernel {
    /// Particles one workgroup holds in workgroup memory.
    pub capacity: u32,
    /// Threads per workgroup (one workgroup per cloth).
    pub workgroup_size: u32,
}

const STEP_SIZE: u64 = size_of::<StepParams>() as u64;

impl Pipelines {
    /// Compiles the kernels with `workgroup_size` threads per group, and the fused kernel when
    /// asked for.
    pub(crate) fn new(
        device: &wgpu::Device,
        workgroup_size: u32,
        fused: Option<FusedKernel>,
    ) -> Self {
        let step_binding = Binding::Uniform {
            size: STEP_SIZE,
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
                    size: size_of::<ColorRange>() as u64,
                    dynamic: true,
                },
                Binding::StorageRead,
                Binding::StorageReadWrite,
                Binding::StorageRead,
                Binding::StorageReadWrite,
                step_binding,
                Binding::StorageRead,
            ],
        );
        let coarse_layout = bind_group_layout(
            device,
            "coarse levels",
            &[
                Binding::Uniform {
                    size: size_of::<ColorRange>() as u64,
                    dynamic: true,
                },
                Binding::StorageRead,
                Binding::StorageRead,
                Binding::StorageReadWrite,
                Binding::StorageReadWrite,
            ],
        );
        let kernel =
            |file, entry, layout| Kernel::new(device, file, entry, layout, workgroup_size, &[]);
        let fused = fused.map(|f| {
            let fixed_step = Binding::Uniform {
                size: STEP_SIZE,
                dynamic: false,
            };
            let layout = bind_group_layout(
                device,
                "solve_cloths",
                &[
                    Binding::Uniform {
                        size: size_of::<FusedFrame>() as u64,
                        dynamic: false,
                    },
                    fixed_step,
                    fixed_step,
                    Binding::StorageRead,
                    Binding::StorageRead,
                    Binding::StorageRead,
                    Binding::StorageReadWrite,
                    Binding::StorageReadWrite,
                    Binding::StorageReadWrite,
                    Binding::StorageRead,
                    Binding::StorageReadWrite,
                ],
            );
            let kernel = |shared: bool| {
                Kernel::new(
                    device,
                    shaders::SOLVE_CLOTHS,
                    "solve_cloths",
                    &layout,
                    f.workgroup_size,
                    &[
                        ("FUSED_CAPACITY", f.capacity.max(1) as f64),
                        ("SHARED_MEMORY", shared as u32 as f64),
                    ],
                )
            };
            let kernels = [kernel(true), kernel(false)];
            (layout, kernels)
        });
        Self {
            start: kernel(shaders::START, "start", &particle_layout),
            integrate: kernel(shaders::INTEGRATE, "integrate", &particle_layout),
            snapshot: kernel(shaders::SNAPSHOT, "snapshot_nodes", &coarse_layout),
            prolong: kernel(shaders::PROLONG, "prolong", &coarse_layout),
            solve_color: kernel(shaders::SOLVE_COLOR, "solve_color", &color_layout),
            tethers: kernel(shaders::TETHERS, "solve_tethers", &particle_layout),
            collide: kernel(shaders::COLLIDE, "collide", &particle_layout),
            health: kernel(shaders::HEALTH, "check_health", &particle_layout),
            particle_layout,
            color_layout,
            coarse_layout,
            fused,
        }
    }
}

/// The buffers of a solver (a cloth's, or a world's), each sized by [`BufferSizes`].
pub(crate) struct SolverBuffers {
    pub(crate) sizes: BufferSizes,
    /// xyz + inverse mass per particle; also usable as a vertex buffer.
    pub(crate) positions: wgpu::Buffer,
    pub(crate) previous: wgpu::Buffer,
    /// The color-sorted constraints.
    pub(crate) constraints: wgpu::Buffer,
    /// One XPBD multiplier per constraint.
    pub(crate) multipliers: wgpu::Buffer,
    /// The tether slots of every particle.
    pub(crate) tethers: wgpu::Buffer,
    /// The health flag ([`Health`]).
    pub(crate) health: wgpu::Buffer,
    /// The two [`StepParams`] slots: first substep, later substeps.
    pub(crate) step_uniform: wgpu::Buffer,
    /// Two [`ColorRange`]s per color (first sweep, later sweeps), each in its own
    /// dynamic-offset slot.
    pub(crate) color_uniform: wgpu::Buffer,
    /// The `materials` table: α̃ per material, rewritten every frame.
    pub(crate) materials: wgpu::Buffer,
    /// The coarse levels: the particle of each snapshot slot, the snapshot, the
    /// prolongation entries and the coarse passes' ranges (dynamic-offset slots). A cloth
    /// without levels (and a world) binds them at their minimum size.
    pub(crate) nodes: wgpu::Buffer,
    pub(crate) snapshot: wgpu::Buffer,
    pub(crate) prolongations: wgpu::Buffer,
    pub(crate) coarse_uniform: wgpu::Buffer,
    /// The fused path's buffers (a world's only).
    pub(crate) fused: Option<FusedBuffers>,
}

/// The fused kernel's own inputs.
pub(crate) struct FusedBuffers {
    /// [`FusedFrame`].
    pub(crate) frame: wgpu::Buffer,
    /// One [`ClothRecord`] per fused cloth.
    pub(crate) records: wgpu::Buffer,
    /// Each fused cloth's colors ([`ColorRange`]s, `first_sweep` unused).
    pub(crate) colors: wgpu::Buffer,
}

impl SolverBuffers {
    /// Creates the buffers, after checking each against the device's limits; with
    /// `fused_cloths` (and `fused_colors` color entries) the fused path's too.
    pub(crate) fn new(
        ctx: &GpuContext,
        sizes: BufferSizes,
        fused: Option<(u64, u64)>,
    ) -> Result<Self> {
        ctx.check_storage_buffer("the particle position buffer", sizes.particles)?;
        ctx.check_storage_buffer("the constraint buffer", sizes.constraints)?;
        ctx.check_storage_buffer("the multiplier buffer", sizes.multipliers)?;
        ctx.check_storage_buffer("the tether buffer", sizes.tethers)?;
        ctx.check_storage_buffer("the material table", sizes.materials)?;
        ctx.check_storage_buffer("the coarse-level snapshot", sizes.snapshot)?;
        ctx.check_storage_buffer("the prolongation table", sizes.prolongations)?;
        let device = &ctx.device;
        let storage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC;
        let uniform = wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST;
        let buffer = |label, size, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage,
                mapped_at_creation: false,
            })
        };
        let fused = match fused {
            Some((cloths, colors)) => {
                let records = cloths.max(1) * size_of::<ClothRecord>() as u64;
                let colors = colors.max(1) * size_of::<ColorRange>() as u64;
                ctx.check_storage_buffer("the fused cloth records", records)?;
                ctx.check_storage_buffer("the fused color table", colors)?;
                Some(FusedBuffers {
                    frame: buffer("fused frame", size_of::<FusedFrame>() as u64, uniform),
                    records: buffer("fused cloth records", records, storage),
                    colors: buffer("fused color table", colors, storage),
                })
            }
            None => None,
        };
        Ok(Self {
            positions: buffer(
                "positions",
                sizes.particles,
                storage | wgpu::BufferUsages::VERTEX,
            ),
            previous: buffer("previous positions", sizes.particles, storage),
            constraints: buffer("constraints", sizes.constraints, storage),
            multipliers: buffer("multipliers", sizes.multipliers, storage),
            tethers: buffer("tethers", sizes.tethers, storage),
            health: buffer(
                "health",
                (size_of::<Health>() as u64).max(VEC4_BYTES),
                storage,
            ),
            step_uniform: buffer("step params", sizes.step_params, uniform),
            color_uniform: buffer("color ranges", sizes.color_table, uniform),
            materials: buffer("materials", sizes.materials, storage),
            nodes: buffer("coarse nodes", sizes.nodes, storage),
            snapshot: buffer("coarse snapshot", sizes.snapshot, storage),
            prolongations: buffer("prolongations", sizes.prolongations, storage),
            coarse_uniform: buffer("coarse ranges", sizes.coarse_table, uniform),
            fused,
            sizes,
        })
    }

    /// Writes the color table: slot 2c is color c's first sweep of a substep, 2c + 1 its later
    /// sweeps, so a color is chosen by the dynamic offset and nothing is rewritten per frame.
    pub(crate) fn write_colors(&self, queue: &wgpu::Queue, colors: &[std::ops::Range<u32>]) {
        for (c, range) in colors.iter().enumerate() {
            let later = ColorRange::new(range);
            for (k, uniform) in [later.first(), later].iter().enumerate() {
                queue.write_buffer(
                    &self.color_uniform,
                    (2 * c + k) as u64 * self.sizes.uniform_stride,
                    bytemuck::bytes_of(uniform),
                );
            }
        }
    }

    /// Uploads a cloth's coarse levels: snapshot slots, prolongation entries and the coarse
    /// passes' ranges (one dynamic-offset slot each).
    pub(crate) fn write_hierarchy(&self, queue: &wgpu::Queue, h: &crate::hierarchy::Hierarchy) {
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
                k as u64 * self.sizes.uniform_stride,
                bytemuck::bytes_of(range),
            );
        }
    }

    /// Writes a frame's two [`StepParams`] slots.
    pub(crate) fn write_step(&self, queue: &wgpu::Queue, first: &StepParams, rest: &StepParams) {
        for (slot, params) in [(Slot::First, first), (Slot::Rest, rest)] {
            queue.write_buffer(
                &self.step_uniform,
                slot as u64 * self.sizes.uniform_stride,
                bytemuck::bytes_of(params),
            );
        }
    }

    /// Bind groups over these buffers for `pipelines`' layouts, in the WGSL's binding order.
    pub(crate) fn bind_groups(&self, device: &wgpu::Device, pipelines: &Pipelines) -> BindGroups {
        let particle = bind_group(
            device,
            "per-particle kernels",
            &pipelines.particle_layout,
            &[
                (&self.step_uniform, Some(STEP_SIZE)),
                (&self.positions, None),
                (&self.previous, None),
                (&self.tethers, None),
                (&self.health, None),
            ],
        );
        let color = bind_group(
            device,
            "solve_color",
            &pipelines.color_layout,
            &[
                (&self.color_uniform, Some(size_of::<ColorRange>() as u64)),
                (&self.constraints, None),
                (&self.positions, None),
                (&self.previous, None),
                (&self.multipliers, None),
                (&self.step_uniform, Some(STEP_SIZE)),
                (&self.materials, None),
            ],
        );
        let fused = match (&pipelines.fused, &self.fused) {
            (Some((layout, _)), Some(f)) => {
                let slot = |offset: u64| wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &self.step_uniform,
                        offset,
                        size: wgpu::BufferSize::new(STEP_SIZE),
                    }),
                };
                fn whole(buffer: &wgpu::Buffer) -> wgpu::BindingResource<'_> {
                    buffer.as_entire_binding()
                }
                let resources = [
                    whole(&f.frame),
                    slot(0).resource,
                    slot(self.sizes.uniform_stride).resource,
                    whole(&f.records),
                    whole(&f.colors),
                    whole(&self.constraints),
                    whole(&self.positions),
                    whole(&self.previous),
                    whole(&self.multipliers),
                    whole(&self.tethers),
                    whole(&self.health),
                ];
                let entries: Vec<wgpu::BindGroupEntry> = resources
                    .into_iter()
                    .enumerate()
                    .map(|(k, resource)| wgpu::BindGroupEntry {
                        binding: k as u32,
                        resource,
                    })
                    .collect();
                Some(device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("solve_cloths"),
                    layout,
                    entries: &entries,
                }))
            }
            _ => None,
        };
        let coarse = bind_group(
            device,
            "coarse levels",
            &pipelines.coarse_layout,
            &[
                (&self.coarse_uniform, Some(size_of::<ColorRange>() as u64)),
                (&self.nodes, None),
                (&self.prolongations, None),
                (&self.positions, None),
                (&self.snapshot, None),
            ],
        );
        BindGroups {
            particle,
            color,
            coarse,
            fused,
        }
    }
}

/// The bind groups of one [`SolverBuffers`].
pub(crate) struct BindGroups {
    particle: wgpu::BindGroup,
    color: wgpu::BindGroup,
    coarse: wgpu::BindGroup,
    fused: Option<wgpu::BindGroup>,
}

/// Records a schedule's passes: one compute pass per stage, one dispatch per pass.
pub(crate) struct PassRecorder<'a> {
    pub(crate) pipelines: &'a Pipelines,
    pub(crate) bind_groups: &'a BindGroups,
    /// Distance between dynamic-offset uniform slots.
    pub(crate) uniform_stride: u64,
    /// Particles the per-particle kernels cover.
    pub(crate) particles: u32,
    /// Constraints per color (threads of each `solve_color`).
    pub(crate) color_sizes: &'a [u32],
    /// Threads of the coarse passes: snapshot slots, then each level's prolongation entries.
    pub(crate) coarse_counts: &'a [u32],
    /// Workgroups of the fused kernel (one per fused cloth).
    pub(crate) fused_cloths: u32,
    pub(crate) encoder: &'a mut wgpu::CommandEncoder,
    pub(crate) timer: Option<&'a mut StageTimer>,
}

impl Executor for PassRecorder<'_> {
    fn stage(&mut self, stage: Stage, passes: &mut dyn Iterator<Item = Pass>) {
        let k = self.pipelines;
        let groups = self.bind_groups;
        let timestamp_writes = self.timer.as_deref_mut().and_then(|t| t.pass(stage));
        let mut pass = self
            .encoder
            .begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(stage.name()),
                timestamp_writes,
            });
        let mut bound: Option<&Kernel> = None;
        let stride = self.uniform_stride;
        let at = |slot: u64| (slot * stride) as u32;
        let particles = self.particles;
        // Kernel, bind group, dynamic offsets (uniform slots) and how many, threads.
        let particle = |kernel, slot: Slot| {
            let offsets = [at(slot as u64), 0];
            (kernel, &groups.particle, offsets, 1, particles)
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
                    let threads = self.color_sizes[color as usize];
                    (&k.solve_color, &groups.color, offsets, 2, threads)
                }
                Pass::Tethers(slot) => particle(&k.tethers, slot),
                Pass::Collide(slot) => particle(&k.collide, slot),
                Pass::Health => particle(&k.health, Slot::First),
                Pass::Snapshot => {
                    let threads = self.coarse_counts[0];
                    (&k.snapshot, &groups.coarse, [at(0), 0], 1, threads)
                }
                Pass::Prolong { level } => {
                    let entry = 1 + level as usize;
                    let threads = self.coarse_counts[entry];
                    (
                        &k.prolong,
                        &groups.coarse,
                        [at(entry as u64), 0],
                        1,
                        threads,
                    )
                }
                Pass::SolveCloths { workgroup_memory } => {
                    let ((_, kernels), group) =
                        k.fused.as_ref().zip(groups.fused.as_ref()).expect(
                            "a schedule with a fused stage on a solver without the fused path",
                        );
                    let kernel = &kernels[usize::from(!workgroup_memory)];
                    pass.set_pipeline(&kernel.pipeline);
                    bound = Some(kernel);
                    pass.set_bind_group(0, group, &[]);
                    // One workgroup per fused cloth; those of the other kind return at once.
                    pass.dispatch_workgroups(self.fused_cloths, 1, 1);
                    continue;
                }
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

/// A copy of the health flag on its way back to the host, read without stalling: each frame
/// reads the copy requested after an earlier one, if it has arrived.
pub(crate) struct HealthProbe {
    staging: wgpu::Buffer,
    /// Set by the map callback once the copy can be read.
    ready: Option<Arc<AtomicBool>>,
}

impl HealthProbe {
    pub(crate) fn new(device: &wgpu::Device) -> Self {
        Self {
            staging: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("health readback"),
                size: (size_of::<Health>() as u64).max(VEC4_BYTES),
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            ready: None,
        }
    }

    /// The flag of an earlier frame if its copy has arrived (no waiting); records a new copy
    /// of `health` into `encoder` when none is in flight.
    pub(crate) fn read(
        &mut self,
        device: &wgpu::Device,
        health: &wgpu::Buffer,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Option<Health> {
        super::context::poll(device);
        let mut flag = None;
        if let Some(ready) = &self.ready {
            if !ready.load(Ordering::Acquire) {
                return None;
            }
            flag = self
                .staging
                .get_mapped_range(..4)
                .map(|b| super::context::pod_from_bytes::<Health>(&b)[0])
                .ok();
            self.staging.unmap();
            self.ready = None;
        }
        encoder.copy_buffer_to_buffer(health, 0, &self.staging, 0, 4);
        flag
    }

    /// Starts mapping the copy recorded by [`Self::read`] (after submission).
    pub(crate) fn request(&mut self) {
        if self.ready.is_some() {
            return;
        }
        let ready = Arc::new(AtomicBool::new(false));
        let flag = ready.clone();
        self.staging.map_async(wgpu::MapMode::Read, .., move |r| {
            flag.store(r.is_ok(), Ordering::Release);
        });
        self.ready = Some(ready);
    }

    /// Drops a copy still in flight (it belongs to a run that was reset), waiting for it.
    pub(crate) fn discard(&mut self, device: &wgpu::Device) -> Result<()> {
        if self.ready.take().is_some() {
            super::context::wait(device)?;
            self.staging.unmap();
        }
        Ok(())
    }
}
