//! A world of cloths: many cloths, each with its own transform, pins and material, sharing the
//! solver parameters and colliders, all stepped by one [`World::step`] on the GPU or on the CPU
//! reference.
//!
//! Two paths solve them (design notes §9), chosen per cloth and visible with [`World::path`]:
//! - **fused**: a cloth small enough for one workgroup is solved by that workgroup for the
//!   whole frame (`shaders/solve_cloths.wgsl`), all such cloths in one dispatch, its particles
//!   in workgroup memory when they fit the adapter's limit and in the storage buffer otherwise;
//! - **global**: larger cloths (or every cloth, with [`PathChoice::Global`]) share the
//!   per-pass kernels, color c of every such cloth in one dispatch, so the dispatches per frame
//!   do not grow with the number of cloths.
//!
//! ```no_run
//! use chiffon::world::{ClothOptions, World, WorldConfig};
//! use chiffon::{ClothBuilder, GpuContext, Pinning, SolverParams};
//! # fn main() -> chiffon::Result<()> {
//! let ctx = GpuContext::new()?;
//! let mut world = World::gpu(&ctx, SolverParams::default(), WorldConfig::default())?;
//! let cape = ClothBuilder::grid(32, 32).pinning(Pinning::Edge).build()?;
//! let a = world.add(&cape, ClothOptions::new().translate(glam::Vec3::new(-1.0, 0.0, 0.0)))?;
//! let b = world.add(&cape, ClothOptions::new().translate(glam::Vec3::new(1.0, 0.0, 0.0)))?;
//! world.step(1.0 / 60.0)?;
//! world.remove(b)?;
//! let positions = world.positions(a)?;
//! # Ok(()) }
//! ```
//!
//! Adding or removing cloths takes effect at the next step or read, which repacks the buffers
//! (on the GPU this waits for the device once and copies the state through the host).

mod cpu;
mod gpu;
pub(crate) mod layout;

use std::ops::Range;

use glam::{Affine3A, Vec3, Vec4};

use crate::cloth::Cloth;
use crate::config::{ClothRecord, DEFAULT_WORKGROUP_SIZE, FusedFrame, Health};
use crate::error::{ChiffonError, Result};
use crate::hierarchy::LevelColors;
use crate::params::{Compliance, SolverParams};
use crate::schedule::{FramePlan, FrameSchedule, StepClock, material_alpha};
use crate::tethers::Tethers;
use layout::{Layout, Member, check_capacity};

pub use layout::MAX_COLORS;

/// Names one cloth of a [`World`]. A handle outlives its cloth harmlessly: once the cloth is
/// removed, every use of the handle is an error ([`ChiffonError::StaleHandle`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClothHandle {
    index: u32,
    generation: u32,
}

impl ClothHandle {
    /// The slot it names (reused by later cloths, under a new generation).
    pub fn index(&self) -> u32 {
        self.index
    }
}

/// How a cloth joins a world.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClothOptions {
    /// Applied to the cloth's rest positions (and its initial velocity's direction) when it
    /// joins. Default identity.
    pub transform: Affine3A,
    /// Its material: XPBD compliance per constraint kind (m/N). Default `None`: the world's
    /// [`SolverParams::compliance`].
    pub compliance: Option<Compliance>,
}

impl Default for ClothOptions {
    fn default() -> Self {
        Self {
            transform: Affine3A::IDENTITY,
            compliance: None,
        }
    }
}

impl ClothOptions {
    /// The defaults: identity transform, the world's compliance.
    pub fn new() -> Self {
        Self::default()
    }

    /// Places the cloth with `transform`.
    pub fn transform(self, transform: Affine3A) -> Self {
        Self { transform, ..self }
    }

    /// Moves the cloth by `offset` (m), after any transform given before.
    pub fn translate(self, offset: Vec3) -> Self {
        self.transform(Affine3A::from_translation(offset) * self.transform)
    }

    /// Gives the cloth its own compliance.
    pub fn compliance(self, compliance: Compliance) -> Self {
        Self {
            compliance: Some(compliance),
            ..self
        }
    }
}

/// Which cloths may take the fused path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathChoice {
    /// Fused for every cloth of at most [`WorldConfig::fused_max_particles`] particles, global
    /// for larger ones. The default.
    Auto,
    /// Every cloth on the global path.
    Global,
}

impl PathChoice {
    /// `auto` or `global`.
    pub fn name(self) -> &'static str {
        match self {
            PathChoice::Auto => "auto",
            PathChoice::Global => "global",
        }
    }
}

/// The path that solves one cloth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClothPath {
    /// One workgroup for the whole frame; `workgroup_memory` when its particles fit the
    /// adapter's workgroup memory, else they stay in the storage buffer.
    Fused {
        /// Particles held in workgroup memory during the frame.
        workgroup_memory: bool,
    },
    /// The per-pass kernels, shared with every other global cloth.
    Global,
}

impl ClothPath {
    /// `fused (workgroup memory)`, `fused (storage)` or `global`.
    pub fn name(self) -> &'static str {
        match self {
            ClothPath::Fused {
                workgroup_memory: true,
            } => "fused (workgroup memory)",
            ClothPath::Fused {
                workgroup_memory: false,
            } => "fused (storage)",
            ClothPath::Global => "global",
        }
    }
}

/// What a world's buffers hold, fixed when it is created.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorldCapacity {
    /// Cloths. Default 1024.
    pub cloths: u32,
    /// Particles of all cloths. Default 2²⁰.
    pub particles: u32,
    /// Constraints of all cloths. Default 2²³.
    pub constraints: u32,
}

impl Default for WorldCapacity {
    fn default() -> Self {
        Self {
            cloths: 1024,
            particles: 1 << 20,
            constraints: 1 << 23,
        }
    }
}

impl WorldCapacity {
    /// Room for `count` cloths like `cloth`.
    pub fn for_cloths(count: u32, cloth: &Cloth) -> Self {
        Self {
            cloths: count.max(1),
            particles: count.max(1) * cloth.particle_count() as u32,
            constraints: count.max(1) * cloth.constraint_count() as u32,
        }
    }
}

/// How a world is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorldConfig {
    /// What its buffers hold.
    pub capacity: WorldCapacity,
    /// Which cloths may take the fused path. Default [`PathChoice::Auto`].
    pub paths: PathChoice,
    /// The largest cloth (particles) the fused path takes; larger ones go global. Default
    /// [`DEFAULT_FUSED_MAX_PARTICLES`].
    pub fused_max_particles: u32,
    /// Threads per workgroup of the per-pass kernels. Default [`DEFAULT_WORKGROUP_SIZE`].
    pub workgroup_size: u32,
    /// Threads per workgroup of the fused kernel (one workgroup per cloth). Default `None`:
    /// 16 on a CPU adapter such as lavapipe, [`DEFAULT_FUSED_WORKGROUP_SIZE`] on a GPU.
    pub fused_workgroup_size: Option<u32>,
}

/// Threads per fused workgroup on a GPU: four warps (two waves) per cloth, enough to cover a
/// 32×32 cape's ~480 constraints per color in four rounds.
pub const DEFAULT_FUSED_WORKGROUP_SIZE: u32 = 128;

/// Particles above which a cloth leaves the fused path by default: one workgroup then walks
/// thousands of constraints per color on its own, and the global path's full-device
/// dispatches win (measured on lavapipe: see the README's "Many cloths").
pub const DEFAULT_FUSED_MAX_PARTICLES: u32 = 8192;

impl Default for WorldConfig {
    fn default() -> Self {
        Self {
            capacity: WorldCapacity::default(),
            paths: PathChoice::Auto,
            fused_max_particles: DEFAULT_FUSED_MAX_PARTICLES,
            workgroup_size: DEFAULT_WORKGROUP_SIZE,
            fused_workgroup_size: None,
        }
    }
}

/// One frame as the engines run it.
pub(crate) struct WorldFrame<'a> {
    pub plan: &'a FramePlan,
    pub schedule: FrameSchedule,
    /// α̃ per material (one per cloth, in layout order).
    pub materials: &'a [Vec4],
    /// The fused cloths' records with this frame's α̃.
    pub records: &'a [ClothRecord],
    pub fused: FusedFrame,
}

/// What runs a world's kernels: the GPU ([`gpu::GpuEngine`]) or the CPU twins
/// ([`cpu::CpuEngine`]).
pub(crate) trait Engine {
    /// What runs the kernels.
    fn name(&self) -> String;
    /// Particles one workgroup can hold in workgroup memory (0: none).
    fn workgroup_capacity(&self) -> u32;
    /// Loads a new layout with these positions and previous positions.
    fn load(&mut self, layout: &Layout, positions: &[Vec4], previous: &[Vec4]) -> Result<()>;
    /// Positions and previous positions of every particle (the GPU waits for the device).
    fn state(&mut self) -> Result<(Vec<Vec4>, Vec<Vec4>)>;
    /// Positions of every particle (the GPU waits for the device).
    fn positions(&mut self) -> Result<Vec<Vec4>>;
    /// Overwrites previous positions from particle `offset` on.
    fn write_previous(&mut self, offset: u32, previous: &[Vec4]);
    /// Runs one frame; returns a health flag when one is known (the GPU's arrives later).
    fn frame(
        &mut self,
        frame: &WorldFrame<'_>,
        timer: Option<&mut crate::gpu::StageTimer>,
    ) -> Result<Option<Health>>;
    /// The health flag now (the GPU waits).
    fn health(&mut self) -> Result<Health>;
    /// Clears the health flag.
    fn clear_health(&mut self) -> Result<()>;
    /// Blocks until the submitted frames are done.
    fn wait(&mut self) -> Result<()>;
    /// The position buffer, on the GPU.
    fn position_buffer(&self) -> Option<&wgpu::Buffer>;
}

/// A cloth in the world.
struct Live {
    cloth: Cloth,
    compliance: Option<Compliance>,
    tethers: Tethers,
    /// False until its Verlet history is started (the step after it joins).
    started: bool,
}

struct Entry {
    generation: u32,
    live: Option<Live>,
}

/// Many cloths stepped together; see the module documentation.
pub struct World {
    engine: Box<dyn Engine>,
    config: WorldConfig,
    params: SolverParams,
    clock: StepClock,
    frames: u64,
    diverged: Option<(u32, usize, u64)>,
    entries: Vec<Entry>,
    layout: Layout,
    /// True when cloths were added or removed since the layout was made.
    dirty: bool,
}

impl World {
    /// A world on the GPU of `ctx`.
    pub fn gpu(ctx: &crate::GpuContext, params: SolverParams, config: WorldConfig) -> Result<Self> {
        Self::with_engine(Box::new(gpu::GpuEngine::new(ctx, &config)?), params, config)
    }

    /// A world on the CPU reference (the twins of the same kernels).
    pub fn cpu(params: SolverParams, config: WorldConfig) -> Result<Self> {
        Self::with_engine(Box::new(cpu::CpuEngine::default()), params, config)
    }

    /// A world of `backend`; the GPU one needs `ctx`.
    pub fn on(
        backend: crate::Backend,
        ctx: Option<&crate::GpuContext>,
        params: SolverParams,
        config: WorldConfig,
    ) -> Result<Self> {
        match (backend, ctx) {
            (crate::Backend::Cpu, _) => Self::cpu(params, config),
            (crate::Backend::Gpu, Some(ctx)) => Self::gpu(ctx, params, config),
            (crate::Backend::Gpu, None) => Err(ChiffonError::NoAdapter(
                "a GPU world was asked for without a GPU context".into(),
            )),
        }
    }

    fn with_engine(
        engine: Box<dyn Engine>,
        params: SolverParams,
        config: WorldConfig,
    ) -> Result<Self> {
        params.validate()?;
        crate::error::check_at_least(
            "world capacity (cloths)",
            config.capacity.cloths as f64,
            1.0,
        )?;
        let layout = Layout::build(&[], config.paths, config.fused_max_particles, 0)?;
        Ok(Self {
            engine,
            config,
            params,
            clock: StepClock::default(),
            frames: 0,
            diverged: None,
            entries: Vec::new(),
            layout,
            dirty: false,
        })
    }

    /// Adds `cloth`, placed and made of what `options` say. It joins at rest (or with its
    /// builder's initial velocity) at the next step. Fails, changing nothing, when the world's
    /// capacity would be exceeded.
    pub fn add(&mut self, cloth: &Cloth, options: ClothOptions) -> Result<ClothHandle> {
        if let Some(c) = options.compliance {
            let mut p = self.params.clone();
            p.compliance = c;
            p.validate()?;
        }
        if !options.transform.is_finite() {
            return Err(ChiffonError::InvalidParameter {
                name: "cloth transform",
                reason: "it has a non-finite component".into(),
            });
        }
        let live = self.live();
        check_capacity(
            &self.config.capacity,
            live.len() as u64 + 1,
            live.iter()
                .map(|l| l.cloth.particle_count() as u64)
                .sum::<u64>()
                + cloth.particle_count() as u64,
            live.iter()
                .map(|l| l.cloth.constraint_count() as u64)
                .sum::<u64>()
                + cloth.constraint_count() as u64,
            cloth.colors().len(),
        )?;
        let placed = cloth.transformed(options.transform)?;
        let pinned: Vec<bool> = (0..placed.particle_count())
            .map(|i| placed.is_pinned(i))
            .collect();
        let live = Live {
            tethers: Tethers::build(&placed, &pinned),
            cloth: placed,
            compliance: options.compliance,
            started: false,
        };
        let index = match self.entries.iter().position(|e| e.live.is_none()) {
            Some(i) => i,
            None => {
                self.entries.push(Entry {
                    generation: 0,
                    live: None,
                });
                self.entries.len() - 1
            }
        };
        let entry = &mut self.entries[index];
        entry.generation += 1;
        entry.live = Some(live);
        self.dirty = true;
        Ok(ClothHandle {
            index: index as u32,
            generation: entry.generation,
        })
    }

    /// Removes a cloth; its handle is stale from now on.
    pub fn remove(&mut self, handle: ClothHandle) -> Result<()> {
        self.entry(handle)?;
        self.entries[handle.index as usize].live = None;
        self.dirty = true;
        Ok(())
    }

    /// The cloths in the world, in slot order.
    pub fn handles(&self) -> Vec<ClothHandle> {
        self.entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.live.is_some())
            .map(|(i, e)| ClothHandle {
                index: i as u32,
                generation: e.generation,
            })
            .collect()
    }

    /// Number of cloths.
    pub fn len(&self) -> usize {
        self.entries.iter().filter(|e| e.live.is_some()).count()
    }

    /// True when the world has no cloth.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The cloth (as placed in the world: transformed rest positions).
    pub fn cloth(&self, handle: ClothHandle) -> Result<&Cloth> {
        Ok(&self.entry(handle)?.cloth)
    }

    /// The path that solves the cloth (decided when the layout is made, at the next step).
    pub fn path(&mut self, handle: ClothHandle) -> Result<ClothPath> {
        self.entry(handle)?;
        self.sync()?;
        Ok(self.place(handle)?.path)
    }

    /// The cloth's particles in the world's buffers: the range of [`World::position_buffer`]
    /// (`vec4` per particle) to draw it from.
    pub fn particle_range(&mut self, handle: ClothHandle) -> Result<Range<u32>> {
        self.entry(handle)?;
        self.sync()?;
        Ok(self.place(handle)?.particles.clone())
    }

    /// The position buffer of a GPU world (`vec4<f32>` per particle: xyz in m, w = inverse
    /// mass), every cloth's particles at its [`World::particle_range`]; `None` on the CPU. It
    /// is made at the world's capacity when the world is, and stays the same buffer.
    pub fn position_buffer(&self) -> Option<&wgpu::Buffer> {
        self.engine.position_buffer()
    }

    /// Particles of all cloths.
    pub fn particle_count(&self) -> usize {
        self.live().iter().map(|l| l.cloth.particle_count()).sum()
    }

    /// The cloth's current positions (m), in its particle order (the GPU waits).
    pub fn positions(&mut self, handle: ClothHandle) -> Result<Vec<Vec3>> {
        self.entry(handle)?;
        self.sync()?;
        let range = self.place(handle)?.particles.clone();
        let positions = self.engine.positions()?;
        Ok(positions[range.start as usize..range.end as usize]
            .iter()
            .map(|p| p.truncate())
            .collect())
    }

    /// Every cloth's current positions, in [`World::handles`] order, from one readback.
    pub fn all_positions(&mut self) -> Result<Vec<(ClothHandle, Vec<Vec3>)>> {
        self.sync()?;
        let positions = self.engine.positions()?;
        let handles = self.handles();
        handles
            .into_iter()
            .map(|h| {
                let r = self.place(h)?.particles.clone();
                let p = positions[r.start as usize..r.end as usize]
                    .iter()
                    .map(|p| p.truncate())
                    .collect();
                Ok((h, p))
            })
            .collect()
    }

    /// The shared parameters.
    pub fn params(&self) -> &SolverParams {
        &self.params
    }

    /// Replaces the shared parameters from the next frame on (validated first).
    pub fn set_params(&mut self, params: SolverParams) -> Result<()> {
        params.validate()?;
        self.params = params;
        Ok(())
    }

    /// What runs the kernels.
    pub fn backend_name(&self) -> String {
        self.engine.name()
    }

    /// The schedule of a frame of `dt` seconds (after the layout is made).
    pub fn schedule(&mut self, dt: f64) -> Result<FrameSchedule> {
        self.sync()?;
        Ok(self.frame_schedule(&FrameSchedule::steady(
            dt,
            &self.params,
            0,
            LevelColors::default(),
            false,
        )))
    }

    /// Dispatches a frame of `dt` seconds records (GPU), or kernel calls (CPU).
    pub fn dispatches_per_frame(&mut self, dt: f64) -> Result<u64> {
        Ok(self.schedule(dt)?.dispatches())
    }

    /// Advances every cloth one frame of `dt` seconds. See [`crate::Solver::step`]; a cloth
    /// added since the last step starts its Verlet history now.
    pub fn step(&mut self, dt: f64) -> Result<()> {
        self.step_timed(dt, None)
    }

    /// As [`World::step`], timing each stage with `timer` on the GPU (the benchmark's).
    pub fn step_timed(
        &mut self,
        dt: f64,
        timer: Option<&mut crate::gpu::StageTimer>,
    ) -> Result<()> {
        self.check_diverged()?;
        self.sync()?;
        let plan = self.clock.plan(
            dt,
            &self.params,
            self.layout.global_particles as usize,
            Vec3::ZERO,
        )?;
        self.start_new_cloths(&plan);
        let materials: Vec<Vec4> = self
            .layout
            .placed
            .iter()
            .map(|p| {
                let live = self.entries[p.slot as usize]
                    .live
                    .as_ref()
                    .expect("placed cloths are live");
                material_alpha(&live.compliance.unwrap_or(self.params.compliance), plan.h)
            })
            .collect();
        let records = self
            .layout
            .frame_records(self.params.tethers.is_some(), |m| materials[m]);
        let schedule = self.frame_schedule(&FrameSchedule::new(
            &plan,
            &self.params,
            0,
            LevelColors::default(),
            false,
        ));
        let frame = WorldFrame {
            plan: &plan,
            schedule,
            materials: &materials,
            records: &records,
            fused: FusedFrame {
                substeps: plan.substeps,
                iterations: self.params.iterations,
                cloth_count: records.len() as u32,
                pad: 0,
            },
        };
        let health = self.engine.frame(&frame, timer)?;
        self.frames += 1;
        if let Some(h) = health {
            self.note_health(h);
        }
        self.check_diverged()
    }

    /// The divergence check now: `Err(ClothDiverged)` naming the cloth, its first bad
    /// particle and the frame (the GPU waits for the device).
    pub fn health(&mut self) -> Result<()> {
        let h = self.engine.health()?;
        self.note_health(h);
        self.check_diverged()
    }

    /// Blocks until every submitted frame is done.
    pub fn wait(&mut self) -> Result<()> {
        self.engine.wait()
    }

    /// Returns every cloth to its initial state (as it joined) and forgets the dt history.
    pub fn reset(&mut self) -> Result<()> {
        for e in self.entries.iter_mut().filter_map(|e| e.live.as_mut()) {
            e.started = false;
        }
        self.engine.clear_health()?;
        self.clock.reset();
        self.frames = 0;
        self.diverged = None;
        self.dirty = true;
        self.sync()
    }

    fn live(&self) -> Vec<&Live> {
        self.entries
            .iter()
            .filter_map(|e| e.live.as_ref())
            .collect()
    }

    fn entry(&self, handle: ClothHandle) -> Result<&Live> {
        self.entries
            .get(handle.index as usize)
            .filter(|e| e.generation == handle.generation)
            .and_then(|e| e.live.as_ref())
            .ok_or(ChiffonError::StaleHandle {
                index: handle.index,
                generation: handle.generation,
            })
    }

    fn place(&self, handle: ClothHandle) -> Result<&layout::Placed> {
        self.layout
            .find(handle.index)
            .map(|(_, p)| p)
            .ok_or(ChiffonError::StaleHandle {
                index: handle.index,
                generation: handle.generation,
            })
    }

    /// The world's version of a cloth schedule: its global colors, tethers and paths.
    fn frame_schedule(&self, base: &FrameSchedule) -> FrameSchedule {
        let l = &self.layout;
        FrameSchedule {
            colors: l.global.colors().len() as u32,
            tethers: l.global_tethers && self.params.tethers.is_some(),
            global: l.global_particles > 0,
            fused: crate::schedule::FusedStage {
                workgroup_memory: l.records.iter().any(|r| r.shared_memory == 1),
                storage: l.records.iter().any(|r| r.shared_memory == 0),
            },
            // A world starts each cloth's Verlet history on the host when it joins.
            starting: false,
            ..*base
        }
    }

    /// Repacks the buffers after cloths were added or removed, keeping every remaining
    /// cloth's state.
    fn sync(&mut self) -> Result<()> {
        if !self.dirty {
            return Ok(());
        }
        let keep = self.live().iter().any(|l| l.started);
        let (old_positions, old_previous) = if keep {
            self.engine.state()?
        } else {
            (Vec::new(), Vec::new())
        };
        let members: Vec<Member> = self
            .entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| {
                e.live.as_ref().map(|l| Member {
                    slot: i as u32,
                    cloth: &l.cloth,
                    tethers: &l.tethers,
                })
            })
            .collect();
        let layout = Layout::build(
            &members,
            self.config.paths,
            self.config.fused_max_particles,
            self.engine.workgroup_capacity(),
        )?;
        let n = layout.particle_count as usize;
        let (mut positions, mut previous) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for p in &layout.placed {
            let live = self.entries[p.slot as usize]
                .live
                .as_ref()
                .expect("placed cloths are live");
            match self.layout.find(p.slot).filter(|_| live.started) {
                Some((_, old)) => {
                    let r = old.particles.start as usize..old.particles.end as usize;
                    positions.extend_from_slice(&old_positions[r.clone()]);
                    previous.extend_from_slice(&old_previous[r]);
                }
                None => {
                    let initial = crate::cpu::initial_positions(&live.cloth);
                    previous.extend_from_slice(&initial);
                    positions.extend(initial);
                }
            }
        }
        self.engine.load(&layout, &positions, &previous)?;
        self.layout = layout;
        self.dirty = false;
        Ok(())
    }

    /// Starts the Verlet history of cloths that joined since the last step: `x₋₁ = x₀ − v₀h +
    /// ½ah²` with the h the frame's first dt ratio divides by (the `start` kernel's twin, run
    /// on the host for just those particles).
    fn start_new_cloths(&mut self, plan: &FramePlan) {
        for p in &self.layout.placed {
            let Some(live) = self.entries[p.slot as usize].live.as_mut() else {
                continue;
            };
            if live.started {
                continue;
            }
            let initial = crate::cpu::initial_positions(&live.cloth);
            let mut previous = initial.clone();
            let params = crate::config::StepParams {
                h: plan.h_previous as f32,
                start_velocity: live.cloth.velocity().extend(0.0).to_array(),
                particle_count: initial.len() as u32,
                ..plan.first
            };
            crate::cpu::start(&params, &initial, &mut previous);
            self.engine.write_previous(p.particles.start, &previous);
            live.started = true;
        }
    }

    fn note_health(&mut self, h: Health) {
        if h.first_bad == Health::OK || self.diverged.is_some() {
            return;
        }
        if let Some(p) = self
            .layout
            .placed
            .iter()
            .find(|p| p.particles.contains(&h.first_bad))
        {
            self.diverged = Some((
                p.slot,
                (h.first_bad - p.particles.start) as usize,
                self.frames,
            ));
        }
    }

    fn check_diverged(&self) -> Result<()> {
        match self.diverged {
            Some((cloth, particle, step)) => Err(ChiffonError::ClothDiverged {
                cloth,
                particle,
                step,
            }),
            None => Ok(()),
        }
    }
}
