//! The solver's pipelines (built once per device and workgroup size), the recorder that turns a
//! [`FrameSchedule`](crate::schedule::FrameSchedule) into one named compute pass per stage, and
//! the health flag read back without stalling.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use super::context::GpuContext;
use super::kernels::{Binding, FUSED_BINDINGS, Kernel, STEP_SIZE, bind_group_layout};
use super::shaders;
use super::timer::StageTimer;
use crate::config::{ColorRange, HEALTH_BYTES, Health};
use crate::error::{ChiffonError, Result};
use crate::schedule::{Executor, Pass, SelfStep, Stage};

/// The solver's kernels and their layouts. The per-particle kernels share one layout (step
/// params, positions, previous positions, tethers, health); `solve_color` has its own (color
/// range, constraints, positions, previous positions, multipliers, step params, materials);
/// the coarse levels' `snapshot_nodes` and `prolong` theirs (range, nodes, prolongations,
/// positions, snapshot);
/// the fused `solve_cloths` its own (see `shaders/solve_cloths.wgsl`).
pub(crate) struct Pipelines {
    pub(super) particle_layout: wgpu::BindGroupLayout,
    pub(super) color_layout: wgpu::BindGroupLayout,
    pub(super) coarse_layout: wgpu::BindGroupLayout,
    pub(super) collide_layout: wgpu::BindGroupLayout,
    pub(super) self_layout: wgpu::BindGroupLayout,
    pub(super) edges_layout: wgpu::BindGroupLayout,
    pub(super) air_layout: wgpu::BindGroupLayout,
    air_winds: Kernel,
    air_forces: Kernel,
    apply_air: Kernel,
    integrate: Kernel,
    snapshot: Kernel,
    prolong: Kernel,
    solve_color: Kernel,
    limit_color: Kernel,
    tethers: Kernel,
    /// `collide`, one per set of shape kinds ([`Pipelines::collide`]), each compiled when a
    /// frame first has that set.
    collide: [OnceLock<Kernel>; KIND_SETS],
    /// `edge_contacts` and `apply_edge_contacts`, compiled when a frame first has a box or a
    /// thin capsule.
    edge_contacts: OnceLock<[Kernel; 2]>,
    health: Kernel,
    /// The self-collision stage's kernels, in [`SelfStep::ALL`] order.
    self_collision: Vec<Kernel>,
    /// The device and workgroup size they were compiled for (the cache's key).
    device: wgpu::Device,
    workgroup_size: u32,
}

thread_local! {
    /// The per-pass kernels alive on this thread, whichever device: every world and solver on a
    /// device shares one set per workgroup size ([`Pipelines::shared`]). Weak, so a set goes
    /// (and its device with it) when the last world using it does.
    static SHARED: std::cell::RefCell<Vec<std::sync::Weak<Pipelines>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Sets of per-pass kernels alive for `ctx`'s device on this thread: one per workgroup size its
/// worlds and solvers use. Every world and lone solver on a device shares them (each world
/// compiles only its own fused kernel, when it has fused cloths): a thousand lone solvers on
/// lavapipe, which keeps each pipeline's machine code, compiled a thousand sets and ran out of
/// 24 GiB; they now hold one.
pub fn compiled_kernel_sets(ctx: &GpuContext) -> usize {
    SHARED.with_borrow(|cache| {
        cache
            .iter()
            .filter_map(std::sync::Weak::upgrade)
            .filter(|p| p.device == ctx.device)
            .count()
    })
}

/// Sets of shape kinds there can be.
const KIND_SETS: usize = 1 << crate::config::COLLIDER_KIND_COUNT;

/// The pipeline constant that compiles the shapes of `kinds` (and no other).
fn kinds_override(kinds: u32) -> (&'static str, f64) {
    ("COLLIDER_KINDS", f64::from(kinds))
}

/// The fused kernel's layout and its pipelines (cloths in workgroup memory or in storage, for
/// each set of shape kinds), each compiled by a world when a frame first needs it.
pub(crate) struct FusedPipelines {
    pub(super) layout: wgpu::BindGroupLayout,
    /// Indexed by [`FusedPipelines::slot`].
    kernels: [OnceLock<Kernel>; 2 * KIND_SETS],
    device: wgpu::Device,
    build: FusedKernel,
}

/// How to build the fused kernel.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FusedKernel {
    /// Particles one workgroup holds in workgroup memory.
    pub capacity: u32,
    /// Threads per workgroup (one workgroup per cloth).
    pub workgroup_size: u32,
}

impl Pipelines {
    /// The per-pass kernels with `workgroup_size` threads per group on `device`: those another
    /// world on it holds, or compiled now.
    pub(crate) fn shared(device: &wgpu::Device, workgroup_size: u32) -> Arc<Self> {
        SHARED.with_borrow_mut(|cache| {
            cache.retain(|p| p.strong_count() > 0);
            let found = cache
                .iter()
                .filter_map(std::sync::Weak::upgrade)
                .find(|p| p.device == *device && p.workgroup_size == workgroup_size);
            found.unwrap_or_else(|| {
                // Send and Sync on native targets; in a browser wgpu's handles are neither,
                // and there is one thread.
                #[allow(clippy::arc_with_non_send_sync)]
                let made = Arc::new(Self::new(device, workgroup_size));
                cache.push(Arc::downgrade(&made));
                made
            })
        })
    }

    /// Compiles the per-pass kernels with `workgroup_size` threads per group.
    fn new(device: &wgpu::Device, workgroup_size: u32) -> Self {
        let step_binding = Binding::Uniform {
            size: STEP_SIZE,
            dynamic: true,
        };
        // A color's or a coarse level's range, one dynamic-offset slot each.
        let range_binding = Binding::Uniform {
            size: size_of::<ColorRange>() as u64,
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
                range_binding,
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
                range_binding,
                Binding::StorageRead,
                Binding::StorageRead,
                Binding::StorageReadWrite,
                Binding::StorageReadWrite,
            ],
        );
        // collide: step params, positions, previous positions, the collider table (records,
        // then the broad phase), distance grids.
        let collide_bindings = [
            step_binding,
            Binding::StorageReadWrite,
            Binding::StorageReadWrite,
            Binding::StorageRead,
            Binding::StorageRead,
        ];
        let collide_layout = bind_group_layout(device, "collide", &collide_bindings);
        // The self-collision kernels: step params, positions, previous positions, rest
        // positions, the hash table, the buckets, the pushed positions, the sorted positions.
        let self_layout = bind_group_layout(
            device,
            "self-collision",
            &[
                step_binding,
                Binding::StorageReadWrite,
                Binding::StorageRead,
                Binding::StorageRead,
                Binding::StorageReadWrite,
                Binding::StorageReadWrite,
                Binding::StorageReadWrite,
                Binding::StorageReadWrite,
            ],
        );
        // The box-edge contacts: collide's bindings, then the triangle table and the pushes.
        let edges_layout = bind_group_layout(
            device,
            "box-edge contacts",
            &[
                &collide_bindings[..],
                &[Binding::StorageRead, Binding::StorageReadWrite],
            ]
            .concat(),
        );
        // The air: its block, positions, previous positions, the triangle table, the winds at
        // the particles, the forces on the triangles (the box-edge pushes' buffer).
        let air_layout = bind_group_layout(
            device,
            "air",
            &[
                Binding::Uniform {
                    size: size_of::<crate::config::AirParams>() as u64,
                    dynamic: false,
                },
                Binding::StorageRead,
                Binding::StorageReadWrite,
                Binding::StorageRead,
                Binding::StorageReadWrite,
                Binding::StorageReadWrite,
            ],
        );
        let kernel =
            |file, entry, layout| Kernel::new(device, file, entry, layout, workgroup_size, &[]);
        let self_collision = SelfStep::ALL
            .iter()
            .map(|s| kernel(shaders::SELF_COLLISION, s.name(), &self_layout))
            .collect();
        Self {
            air_winds: kernel(shaders::AIR, "air_winds", &air_layout),
            air_forces: kernel(shaders::AIR, "air_forces", &air_layout),
            apply_air: kernel(shaders::AIR, "apply_air", &air_layout),
            integrate: kernel(shaders::INTEGRATE, "integrate", &particle_layout),
            snapshot: kernel(shaders::SNAPSHOT, "snapshot_nodes", &coarse_layout),
            prolong: kernel(shaders::PROLONG, "prolong", &coarse_layout),
            solve_color: kernel(shaders::SOLVE_COLOR, "solve_color", &color_layout),
            limit_color: kernel(shaders::SOLVE_COLOR, "limit_color", &color_layout),
            tethers: kernel(shaders::TETHERS, "solve_tethers", &particle_layout),
            collide: std::array::from_fn(|_| OnceLock::new()),
            edge_contacts: OnceLock::new(),
            health: kernel(shaders::HEALTH, "check_health", &particle_layout),
            self_collision,
            particle_layout,
            color_layout,
            coarse_layout,
            collide_layout,
            self_layout,
            edges_layout,
            air_layout,
            device: device.clone(),
            workgroup_size,
        }
    }
}

impl Pipelines {
    /// `collide` compiled for the shape kinds `kinds` (`COLLIDER_KINDS` in
    /// shaders/colliders.wgsl, `config::collider_kinds`): the other shapes' code is left out,
    /// since a shape switch costs every arm a workgroup's lanes may take (on lavapipe the 128²
    /// sheet's collide stage with one sphere: 24 ms with every arm, 9 with the sphere's and the
    /// plane's; docs/contact.md). A world whose colliders change kinds compiles the new set's
    /// kernel at the first frame that has it.
    fn collide(&self, kinds: u32) -> &Kernel {
        debug_assert!((kinds as usize) < KIND_SETS, "shape kinds {kinds:#b}");
        self.collide[kinds as usize].get_or_init(|| {
            let (file, layout) = (shaders::COLLIDE, &self.collide_layout);
            let kinds = [kinds_override(kinds)];
            Kernel::new(
                &self.device,
                file,
                "collide",
                layout,
                self.workgroup_size,
                &kinds,
            )
        })
    }

    /// `edge_contacts` and `apply_edge_contacts` (they read no shape's distance, only a box's
    /// corners and a capsule's axis from its record, so one pair serves every set of kinds).
    fn edge_contacts(&self) -> &[Kernel; 2] {
        self.edge_contacts.get_or_init(|| {
            ["edge_contacts", "apply_edge_contacts"].map(|entry| {
                let (file, layout) = (shaders::COLLIDE_EDGES, &self.edges_layout);
                Kernel::new(&self.device, file, entry, layout, self.workgroup_size, &[])
            })
        })
    }
}

impl FusedPipelines {
    /// The fused kernel's layout, its pipelines compiled as `f` says when first used.
    pub(crate) fn new(device: &wgpu::Device, f: FusedKernel) -> Self {
        Self {
            layout: bind_group_layout(device, "solve_cloths", &FUSED_BINDINGS),
            kernels: std::array::from_fn(|_| OnceLock::new()),
            device: device.clone(),
            build: f,
        }
    }

    /// Where the pipeline for cloths in workgroup memory (or storage) and the shape kinds
    /// `kinds` is kept.
    fn slot(workgroup_memory: bool, kinds: u32) -> usize {
        2 * kinds as usize + usize::from(!workgroup_memory)
    }

    /// The pipeline for cloths in workgroup memory (else in storage) and the shape kinds
    /// `kinds`.
    fn kernel(&self, workgroup_memory: bool, kinds: u32) -> &Kernel {
        self.kernels[Self::slot(workgroup_memory, kinds)].get_or_init(|| {
            Kernel::new(
                &self.device,
                shaders::SOLVE_CLOTHS,
                "solve_cloths",
                &self.layout,
                self.build.workgroup_size,
                &[
                    ("FUSED_CAPACITY", self.build.capacity.max(1) as f64),
                    ("SHARED_MEMORY", workgroup_memory as u32 as f64),
                    kinds_override(kinds),
                ],
            )
        })
    }
}

/// The bind groups over a world's buffers, one per layout.
pub(crate) struct BindGroups {
    pub(super) particle: wgpu::BindGroup,
    pub(super) color: wgpu::BindGroup,
    pub(super) coarse: wgpu::BindGroup,
    pub(super) collide: wgpu::BindGroup,
    /// Only once a box has collided or the air has blown.
    pub(super) edges: Option<wgpu::BindGroup>,
    /// Only once a box has collided or the air has blown.
    pub(super) air: Option<wgpu::BindGroup>,
    /// Only once self-collision has run.
    pub(super) self_collision: Option<wgpu::BindGroup>,
    /// Only once the fused kernel is compiled.
    pub(super) fused: Option<wgpu::BindGroup>,
}

/// Records a schedule's passes: one compute pass per stage, one dispatch per pass.
pub(crate) struct PassRecorder<'a> {
    pub(crate) pipelines: &'a Pipelines,
    /// The fused kernel, once a layout had fused cloths.
    pub(crate) fused: Option<&'a FusedPipelines>,
    pub(crate) bind_groups: &'a BindGroups,
    /// Distance between dynamic-offset uniform slots.
    pub(crate) uniform_stride: u64,
    /// Particles the per-particle kernels cover.
    pub(crate) particles: u32,
    /// Particles of every cloth (the air's threads).
    pub(crate) all_particles: u32,
    /// Threads of each `solve_color` (a constraint or a bending stencil each).
    pub(crate) color_sizes: &'a [u32],
    /// Threads of the coarse passes: snapshot slots, then each level's prolongation entries.
    pub(crate) coarse_counts: &'a [u32],
    /// Workgroups of the fused kernel (one per fused cloth).
    pub(crate) fused_cloths: u32,
    /// Buckets of the self-collision hash.
    pub(crate) hash_cells: u32,
    /// Triangles of the global cloths (the box-edge contacts' threads).
    pub(crate) triangles: u32,
    /// The shape kinds of the frame's colliders (`config::collider_kinds`): `collide` and the
    /// fused kernel are compiled for them.
    pub(crate) collider_kinds: u32,
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
        // Kernel, bind group, dynamic offsets (uniform slots) and how many, threads. Substep s
        // reads StepParams slot s.
        let particle = |kernel, substep: u32| {
            let offsets = [at(substep as u64), 0];
            (kernel, &groups.particle, offsets, 1, particles)
        };
        for p in passes {
            let (kernel, bindings, offsets, count, threads) = match p {
                Pass::AirWinds | Pass::AirForces | Pass::ApplyAir => {
                    let group = groups
                        .air
                        .as_ref()
                        .expect("the air's buffers are made before its first frame");
                    let (kernel, threads): (&Kernel, u32) = match p {
                        Pass::AirWinds => (&k.air_winds, self.all_particles),
                        Pass::AirForces => (&k.air_forces, self.triangles),
                        _ => (&k.apply_air, self.all_particles),
                    };
                    (kernel, group, [0, 0], 0, threads)
                }
                Pass::Integrate(s) => particle(&k.integrate, s),
                Pass::SolveColor {
                    color,
                    first_sweep,
                    substep,
                } => {
                    // Slot 2c of the color table is color c's first sweep, 2c + 1 the later.
                    let entry = 2 * color as u64 + u64::from(!first_sweep);
                    let offsets = [at(entry), at(substep as u64)];
                    let threads = self.color_sizes[color as usize];
                    (&k.solve_color, &groups.color, offsets, 2, threads)
                }
                Pass::LimitColor { color, substep } => {
                    // Any of the color's two slots: the limit reads only its range.
                    let offsets = [at(2 * color as u64), at(substep as u64)];
                    let threads = self.color_sizes[color as usize];
                    (&k.limit_color, &groups.color, offsets, 2, threads)
                }
                Pass::Tethers(s) => particle(&k.tethers, s),
                Pass::Collide(s) => {
                    let offsets = [at(s as u64), 0];
                    let kernel = k.collide(self.collider_kinds);
                    (kernel, &groups.collide, offsets, 1, particles)
                }
                Pass::EdgeContacts(s) | Pass::ApplyEdgeContacts(s) => {
                    let group = groups
                        .edges
                        .as_ref()
                        .expect("the box contacts' buffers are made before their first frame");
                    let [edges, apply] = k.edge_contacts();
                    let (kernel, threads) = match p {
                        Pass::EdgeContacts(_) => (edges, self.triangles),
                        _ => (apply, particles),
                    };
                    (kernel, group, [at(s as u64), 0], 1, threads)
                }
                Pass::SelfCollision { step, substep } => {
                    let group = groups
                        .self_collision
                        .as_ref()
                        .expect("self-collision's buffers are made before its first frame");
                    // Per bucket, per particle, or (the block totals' scan) one workgroup.
                    let threads = match step {
                        SelfStep::Clear
                        | SelfStep::ScanBlocks
                        | SelfStep::ScanAdd
                        | SelfStep::Sort => self.hash_cells,
                        SelfStep::ScanSums | SelfStep::Plan => 1,
                        SelfStep::Check
                        | SelfStep::Count
                        | SelfStep::Scatter
                        | SelfStep::Candidates
                        | SelfStep::Collide
                        | SelfStep::Apply => particles,
                    };
                    let kernel = &k.self_collision[step as usize];
                    (kernel, group, [at(substep as u64), 0], 1, threads)
                }
                Pass::Health => particle(&k.health, 0),
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
                    let (fused, group) = self
                        .fused
                        .zip(groups.fused.as_ref())
                        .expect("a layout with fused cloths compiles the fused kernel");
                    let kernel = fused.kernel(workgroup_memory, self.collider_kinds);
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
/// reads the copy requested after an earlier one, if it has arrived. The flag names the frame
/// it was raised in, so reading it late does not blur which frame went bad.
pub(crate) struct HealthProbe {
    staging: wgpu::Buffer,
    /// The copy in flight, if any: set by the map callback to its outcome once known.
    pending: Option<Arc<MapState>>,
}

/// What became of a map request.
#[derive(Default)]
pub(crate) struct MapState {
    done: AtomicBool,
    ok: AtomicBool,
}

impl HealthProbe {
    pub(crate) fn new(device: &wgpu::Device) -> Self {
        Self {
            staging: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("health readback"),
                size: HEALTH_BYTES,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            pending: None,
        }
    }

    /// The flag of an earlier frame if its copy has arrived (no waiting); records a new copy
    /// of `health` into `encoder` when none is in flight. A failed map is dropped and the next
    /// frame asks again, so one failure does not end the checks.
    pub(crate) fn read(
        &mut self,
        device: &wgpu::Device,
        health: &wgpu::Buffer,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Option<Health> {
        super::context::poll(device);
        let mut flag = None;
        if let Some(state) = &self.pending {
            if !state.done.load(Ordering::Acquire) {
                return None;
            }
            if state.ok.load(Ordering::Acquire) {
                flag = super::context::read_pod::<Health>(&self.staging);
                self.staging.unmap();
            }
            self.pending = None;
        }
        encoder.copy_buffer_to_buffer(health, 0, &self.staging, 0, HEALTH_BYTES);
        flag
    }

    /// Starts mapping the copy recorded by [`Self::read`] (after submission).
    pub(crate) fn request(&mut self) {
        if self.pending.is_some() {
            return;
        }
        let state = Arc::new(MapState::default());
        let seen = state.clone();
        self.staging.map_async(wgpu::MapMode::Read, .., move |r| {
            seen.ok.store(r.is_ok(), Ordering::Release);
            seen.done.store(true, Ordering::Release);
        });
        self.pending = Some(state);
    }

    /// Drops a copy still in flight (it belongs to a run that was reset), waiting for it.
    pub(crate) fn discard(&mut self, device: &wgpu::Device) -> Result<()> {
        if let Some(state) = self.pending.take() {
            super::context::wait(device)?;
            // A browser does not finish the map while we wait: unmapping cancels it, so the
            // next frame can copy into the buffer again.
            let cancel = cfg!(target_arch = "wasm32") && !state.done.load(Ordering::Acquire);
            if cancel || state.ok.load(Ordering::Acquire) {
                self.staging.unmap();
            }
        }
        Ok(())
    }
}

/// Fails with a clear error when a storage buffer of `bytes` does not fit `limits`.
pub(super) fn check_storage_buffer(
    limits: &wgpu::Limits,
    what: &'static str,
    bytes: u64,
) -> Result<()> {
    for (limit, limit_name) in [
        (
            limits.max_storage_buffer_binding_size,
            "max_storage_buffer_binding_size",
        ),
        (limits.max_buffer_size, "max_buffer_size"),
    ] {
        if bytes > limit {
            return Err(ChiffonError::ExceedsDeviceLimit {
                what,
                bytes,
                limit,
                limit_name,
            });
        }
    }
    Ok(())
}
