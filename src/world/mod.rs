//! The solver core: a world of cloths, each with its own transform, pins and material, sharing
//! the solver parameters and colliders, all stepped by one [`World::step`] on the GPU or on
//! the CPU reference. A lone [`crate::Solver`] is a world of one cloth.
//!
//! Two paths solve the cloths (`docs/architecture.md`), chosen per cloth and visible with
//! [`World::path`]:
//! - **global**: the per-pass kernels (and the coarse levels), color c of every such cloth in
//!   one dispatch, so the dispatches per frame do not grow with the number of cloths;
//! - **fused**: a cloth small enough for one workgroup is solved by that workgroup for the
//!   whole frame (`shaders/solve_cloths.wgsl`), all such cloths in one dispatch, its particles
//!   in workgroup memory when they fit the adapter's limit and in the storage buffer otherwise.
//!
//! ```no_run
//! use chiffon::glam::Vec3;
//! use chiffon::{Backend, ClothBuilder, ClothOptions, GpuContext, Pinning, SolverParams};
//! use chiffon::{World, WorldConfig};
//! # fn main() -> chiffon::Result<()> {
//! let ctx = GpuContext::new()?;
//! let mut world = World::new(Backend::Gpu(&ctx), SolverParams::default(), WorldConfig::default())?;
//! let cape = ClothBuilder::grid(32, 32).pinning(Pinning::Edge).build()?;
//! let a = world.add(&cape, ClothOptions::new().translate(Vec3::new(-1.0, 0.0, 0.0)))?;
//! let b = world.add(&cape, ClothOptions::new().translate(Vec3::new(1.0, 0.0, 0.0)))?;
//! world.step(1.0 / 60.0)?;
//! world.remove(b)?;
//! let positions = world.positions(a)?;
//! # Ok(()) }
//! ```
//!
//! Adding or removing cloths takes effect at the next step or read, which repacks the buffers
//! (on the GPU this waits for the device once and copies the state through the host).

pub(crate) mod engine;
pub(crate) mod layout;
mod options;

use std::ops::Range;

use glam::{Vec3, Vec4};

use crate::cloth::Cloth;
use crate::config::{ColliderRecord, FusedFrame, Health};
use crate::contact::{DistanceGrid, Pose, Shape};
use crate::error::{ChiffonError, DivergenceCause, Result};
use crate::gpu::StageTimer;
use crate::hierarchy::{Hierarchy, MAX_LEVELS};
use crate::params::{AUTO_SELF_THICKNESS, Compliance, SolverParams};
use crate::schedule::{FramePlan, FrameSchedule, Scene, StepClock, material_alpha};
use crate::solver::{Backend, FrameCount};
use crate::tethers::Tethers;
use engine::{Engine, WorldFrame};
use layout::{Layout, Member, check_capacity};

pub use layout::MAX_COLORS;
pub use options::{
    ClothOptions, ClothPath, DEFAULT_FUSED_MAX_PARTICLES, DEFAULT_FUSED_WORKGROUP_SIZE, PathChoice,
    WorldCapacity, WorldConfig,
};

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

/// The pinned set of a cloth (its tether anchors) and its tethers. A particle held with inverse
/// mass 0 by [`World::set_particle`] (the demo's grab) is not an anchor; one pinned by
/// [`World::set_inverse_mass`]`(…, 0)` or by the cloth is. Every anchor has inverse mass 0,
/// which is what lets the tether kernel read anchors while it moves the other particles.
struct Anchors {
    pinned: Vec<bool>,
    tethers: Tethers,
    /// The pinned set changed since the tethers were built: rebuild them (once) before the
    /// next step.
    stale: bool,
}

impl Anchors {
    fn new(cloth: &Cloth) -> Self {
        let pinned: Vec<bool> = (0..cloth.particle_count())
            .map(|i| cloth.is_pinned(i))
            .collect();
        Self {
            tethers: Tethers::build(cloth, &pinned),
            pinned,
            stale: false,
        }
    }

    /// Pins or frees particle `i` as an anchor.
    fn pin(&mut self, i: usize, pinned: bool) {
        if self.pinned[i] != pinned {
            self.pinned[i] = pinned;
            self.stale = true;
        }
    }
}

/// A cloth in the world.
struct Live {
    /// As placed in the world (transformed).
    cloth: Cloth,
    compliance: Option<Compliance>,
    anchors: Anchors,
    /// Its constraints with its coarse levels (solved on the global path).
    hierarchy: Hierarchy,
    /// Bounding box of its rest positions (the scene's extent, for the divergence limit).
    bounds: (Vec3, Vec3),
    /// True once the engine holds its state (after the first layout that placed it).
    placed: bool,
    /// Until its Verlet history starts (the step after it joins or a reset): its positions
    /// (inverse mass in w), edits included, so starting needs no readback.
    unstarted: Option<Vec<Vec4>>,
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
    frames: FrameCount,
    entries: Vec<Entry>,
    layout: Layout,
    /// True when cloths were added or removed since the layout was made.
    dirty: bool,
    /// The first divergence (cloth slot, particle, frame, cause), returned by every step until
    /// a reset.
    diverged: Option<(u32, usize, u64, DivergenceCause)>,
    /// The colliders' poses at the end of the last frame: where the next frame moves them
    /// from (empty after a reset, or when the number of colliders changed).
    collider_poses: Vec<Pose>,
    /// The mesh colliders whose grids the engine holds, each with its first sample.
    grids: Vec<(std::sync::Arc<DistanceGrid>, u32)>,
    /// Whether the layout was made with self-collision on (every cloth global).
    laid_out_for_self_collision: bool,
}

impl World {
    /// An empty world on `backend`.
    pub fn new(backend: Backend<'_>, params: SolverParams, config: WorldConfig) -> Result<Self> {
        params.validate()?;
        crate::error::check_at_least(
            "world capacity (cloths)",
            config.capacity.cloths as f64,
            1.0,
        )?;
        let engine = engine::make(backend, &config)?;
        let layout = Layout::build(&[], config.paths, config.fused_max_particles, 0)?;
        Ok(Self {
            engine,
            config,
            params,
            clock: StepClock::default(),
            frames: FrameCount::default(),
            entries: Vec::new(),
            layout,
            dirty: false,
            diverged: None,
            collider_poses: Vec::new(),
            grids: Vec::new(),
            laid_out_for_self_collision: false,
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
        let placed = if options.transform == glam::Affine3A::IDENTITY {
            cloth.clone()
        } else {
            cloth.transformed(options.transform)?
        };
        let hierarchy = Hierarchy::new(&placed, MAX_LEVELS)?;
        let live = self.live();
        let sum = |f: &dyn Fn(&Live) -> usize| live.iter().map(|l| f(l) as u64).sum::<u64>();
        let constraints = |l: &Live| l.hierarchy.constraints().constraints().len();
        check_capacity(
            &self.config.capacity,
            live.len() as u64 + 1,
            sum(&|l| l.cloth.particle_count()) + placed.particle_count() as u64,
            sum(&constraints) + hierarchy.constraints().constraints().len() as u64,
            placed.colors().len(),
        )?;
        let live = Live {
            anchors: Anchors::new(&placed),
            bounds: crate::geometry::bounds(placed.positions()),
            unstarted: Some(initial_positions(&placed)),
            cloth: placed,
            compliance: options.compliance,
            hierarchy,
            placed: false,
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
        Ok(self.place(handle)?.path)
    }

    /// The cloth's particles in the world's buffers: the range of [`World::position_buffer`]
    /// (`vec4` per particle) to draw it from.
    pub fn particle_range(&mut self, handle: ClothHandle) -> Result<Range<u32>> {
        Ok(self.place(handle)?.particles.clone())
    }

    /// The position buffer of a GPU world (`vec4<f32>` per particle: xyz in m, w = inverse
    /// mass), every cloth's particles at its [`World::particle_range`]; `None` on the CPU. It
    /// is made at the world's capacity when the world is, and stays the same buffer.
    pub fn position_buffer(&self) -> Option<&wgpu::Buffer> {
        self.engine.position_buffer()
    }

    /// Bytes of GPU memory the world's buffers hold; `None` on the CPU.
    pub fn gpu_bytes(&self) -> Option<u64> {
        self.engine.gpu_bytes()
    }

    /// Particles of all cloths.
    pub fn particle_count(&self) -> usize {
        self.live().iter().map(|l| l.cloth.particle_count()).sum()
    }

    /// The cloth's current positions (m), in its particle order (the GPU waits).
    pub fn positions(&mut self, handle: ClothHandle) -> Result<Vec<Vec3>> {
        Ok(self
            .raw_positions(handle)?
            .iter()
            .map(|p| p.truncate())
            .collect())
    }

    /// The cloth's positions with the inverse mass in w, as the kernels see them.
    pub fn raw_positions(&mut self, handle: ClothHandle) -> Result<Vec<Vec4>> {
        let range = self.place(handle)?.particles.clone();
        let mut positions = self.engine.positions()?;
        positions.truncate(range.end as usize);
        Ok(positions.split_off(range.start as usize))
    }

    /// Every cloth's current positions, in [`World::handles`] order, from one readback.
    pub fn all_positions(&mut self) -> Result<Vec<(ClothHandle, Vec<Vec3>)>> {
        self.sync()?;
        let positions = self.engine.positions()?;
        self.handles()
            .into_iter()
            .map(|h| {
                let r = self.place_synced(h)?.particles.clone();
                let p = positions[r.start as usize..r.end as usize]
                    .iter()
                    .map(|p| p.truncate())
                    .collect();
                Ok((h, p))
            })
            .collect()
    }

    /// Moves particle `index` of a cloth to `position` (m) at rest, with `inverse_mass` (0
    /// holds it there; a held particle is not a tether anchor).
    pub fn set_particle(
        &mut self,
        handle: ClothHandle,
        index: usize,
        position: Vec3,
        inverse_mass: f32,
    ) -> Result<()> {
        self.check_particle(handle, index)?;
        crate::error::check_finite3("particle position", position)?;
        crate::error::check_at_least("inverse mass", inverse_mass as f64, 0.0)?;
        let at = self.place(handle)?.particles.start + index as u32;
        let p = position.extend(inverse_mass);
        self.engine.write_positions(at, &[p]);
        self.engine.write_previous(at, &[position.extend(0.0)]);
        let live = self.live_mut(handle)?;
        if let Some(mirror) = &mut live.unstarted {
            mirror[index] = p;
        }
        if inverse_mass > 0.0 {
            live.anchors.pin(index, false);
        }
        Ok(())
    }

    /// Changes only the inverse mass of particle `index` of a cloth. 0 pins it where it is and
    /// makes it a tether anchor; a positive value frees it. The tethers are rebuilt once,
    /// before the next step.
    pub fn set_inverse_mass(
        &mut self,
        handle: ClothHandle,
        index: usize,
        inverse_mass: f32,
    ) -> Result<()> {
        self.check_particle(handle, index)?;
        crate::error::check_at_least("inverse mass", inverse_mass as f64, 0.0)?;
        let at = self.place(handle)?.particles.start + index as u32;
        self.engine.write_inverse_mass(at, inverse_mass);
        let live = self.live_mut(handle)?;
        if let Some(mirror) = &mut live.unstarted {
            mirror[index].w = inverse_mass;
        }
        live.anchors.pin(index, inverse_mass == 0.0);
        Ok(())
    }

    /// The cloth's tethers in force (rebuilt first if its pinned set changed).
    pub fn tethers(&mut self, handle: ClothHandle) -> Result<&Tethers> {
        self.entry(handle)?;
        self.refresh_tethers()?;
        Ok(&self.entry(handle)?.anchors.tethers)
    }

    /// The self-collision hash as the last frame left it (table, buckets), for the tests that
    /// hold the GPU's to the CPU twin's bit for bit; `None` before self-collision has run.
    #[cfg(feature = "internals")]
    pub fn self_collision_tables(&mut self) -> Result<Option<(Vec<u32>, Vec<u32>)>> {
        self.engine.hash_tables()
    }

    /// Moves collider `index` (of [`SolverParams::colliders`]) to `pose` for the next step:
    /// that step carries it from where it was over the frame's substeps.
    pub fn set_collider_pose(&mut self, index: usize, pose: Pose) -> Result<()> {
        let n = self.params.colliders.len();
        let Some(c) = self.params.colliders.get(index) else {
            return Err(ChiffonError::InvalidParameter {
                name: "collider index",
                reason: format!("{index} is out of range (there are {n} colliders)"),
            });
        };
        let moved = c.clone().at(pose);
        moved.validate(index)?;
        self.params.colliders[index] = moved;
        Ok(())
    }

    /// The shared parameters.
    pub fn params(&self) -> &SolverParams {
        &self.params
    }

    /// Replaces the shared parameters from the next frame on (validated first). Turning
    /// self-collision on or off re-lays the buffers out (every cloth takes the global path
    /// while it is on).
    pub fn set_params(&mut self, params: SolverParams) -> Result<()> {
        params.validate()?;
        self.params = params;
        if self.params.self_collision.is_some() != self.laid_out_for_self_collision {
            self.dirty = true;
        }
        Ok(())
    }

    /// What runs the kernels.
    pub fn backend_name(&self) -> String {
        self.engine.name()
    }

    /// The schedule of a frame of `dt` seconds under the current parameters (after the layout
    /// is made).
    pub fn schedule(&mut self, dt: f64) -> Result<FrameSchedule> {
        self.sync()?;
        Ok(self.frame_schedule(self.params.substeps.count(dt)))
    }

    /// Advances every cloth one frame of `dt` seconds (in `(0, 1]`). The dt ratio comes from
    /// the previous call's dt; a cloth that joined since (or every cloth, after construction
    /// or [`World::reset`]) starts its Verlet history with `x₋₁ = x₀ − v₀h + ½ah²`.
    pub fn step(&mut self, dt: f64) -> Result<()> {
        self.step_timed(dt, None)
    }

    /// As [`World::step`], timing each stage with `timer` on the GPU (the benchmark's).
    pub fn step_timed(&mut self, dt: f64, timer: Option<&mut StageTimer>) -> Result<()> {
        self.check_diverged()?;
        self.sync()?;
        self.refresh_tethers()?;
        let scene = self.scene();
        let mut plan = self.clock.plan(
            dt,
            &self.params,
            &scene,
            self.layout.global_particles,
            self.frames.frames() + 1,
        )?;
        if let Some(sc) = self.params.self_collision {
            let distance = sc.thickness.unwrap_or_else(|| self.auto_self_thickness());
            for p in [&mut plan.first, &mut plan.rest] {
                p.self_distance = distance;
                p.self_friction = sc.friction;
                p.hash_cells = hash_cells(self.layout.global_particles);
            }
        }
        self.start_new_cloths(&plan);
        let materials: Vec<Vec4> = self
            .layout
            .placed
            .iter()
            .map(|p| {
                let live = self.placed_live(p.slot);
                material_alpha(&live.compliance.unwrap_or(self.params.compliance), plan.h)
            })
            .collect();
        let tethers_on = self.params.tethers.is_some();
        let records = self.layout.frame_records(
            |m| tethers_on && !self.placed_live(self.layout.placed[m].slot).tethers_empty(),
            |m| materials[m],
        );
        let colliders = self.collider_records()?;
        let frame = WorldFrame {
            plan: &plan,
            schedule: self.frame_schedule(plan.substeps),
            materials: &materials,
            records: &records,
            fused: FusedFrame {
                substeps: plan.substeps,
                iterations: self.params.iterations,
                cloth_count: records.len() as u32,
                pad: 0,
            },
            colliders: &colliders,
        };
        let health = self.engine.frame(&frame, timer)?;
        self.collider_poses = self.params.colliders.iter().map(|c| c.pose).collect();
        self.frames.advance();
        if let Some(h) = health {
            self.note_health(h);
        }
        self.check_diverged()
    }

    /// The divergence check now: `Err(Diverged)` naming the cloth, its first bad particle and
    /// the frame it went bad in (the GPU waits for the device).
    pub fn health(&mut self) -> Result<()> {
        let h = self.engine.health()?;
        self.note_health(h);
        self.check_diverged()
    }

    /// Blocks until every submitted frame is done.
    pub fn wait(&mut self) -> Result<()> {
        self.engine.wait()
    }

    /// Returns every cloth to its initial state (as it joined, with its own pins) and forgets
    /// the dt history.
    pub fn reset(&mut self) -> Result<()> {
        for e in self.entries.iter_mut().filter_map(|e| e.live.as_mut()) {
            e.placed = false;
            e.unstarted = Some(initial_positions(&e.cloth));
            e.anchors = Anchors::new(&e.cloth);
        }
        self.engine.clear_health()?;
        self.clock.reset();
        self.frames = FrameCount::default();
        self.diverged = None;
        self.collider_poses.clear();
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

    fn live_mut(&mut self, handle: ClothHandle) -> Result<&mut Live> {
        self.entries
            .get_mut(handle.index as usize)
            .filter(|e| e.generation == handle.generation)
            .and_then(|e| e.live.as_mut())
            .ok_or(ChiffonError::StaleHandle {
                index: handle.index,
                generation: handle.generation,
            })
    }

    /// The live cloth of a slot the layout placed.
    fn placed_live(&self, slot: u32) -> &Live {
        self.entries[slot as usize]
            .live
            .as_ref()
            .expect("placed cloths are live")
    }

    fn check_particle(&self, handle: ClothHandle, index: usize) -> Result<()> {
        let n = self.entry(handle)?.cloth.particle_count();
        if index >= n {
            return Err(ChiffonError::InvalidParameter {
                name: "particle index",
                reason: format!("{index} is out of range (the cloth has {n})"),
            });
        }
        Ok(())
    }

    /// The cloth's place in the buffers, laying them out first if cloths changed.
    fn place(&mut self, handle: ClothHandle) -> Result<&layout::Placed> {
        self.entry(handle)?;
        self.sync()?;
        self.place_synced(handle)
    }

    fn place_synced(&self, handle: ClothHandle) -> Result<&layout::Placed> {
        self.layout
            .find(handle.index)
            .map(|(_, p)| p)
            .ok_or(ChiffonError::StaleHandle {
                index: handle.index,
                generation: handle.generation,
            })
    }

    /// The schedule of a frame of `substeps` substeps over the current layout.
    fn frame_schedule(&self, substeps: u32) -> FrameSchedule {
        let l = &self.layout;
        let tethers_on = self.params.tethers.is_some();
        let global_tethers = l
            .placed
            .iter()
            .filter(|p| p.path == ClothPath::Global)
            .any(|p| !self.placed_live(p.slot).tethers_empty());
        FrameSchedule {
            substeps,
            iterations: self.params.iterations,
            colors: l.global.cloth_colors() as u32,
            levels: if self.params.coarse_levels {
                l.global.level_colors()
            } else {
                Default::default()
            },
            tethers: tethers_on && global_tethers,
            self_collision: self.params.self_collision.is_some() && l.global_particles > 0,
            collide: self.params.has_colliders(),
            global: l.global_particles > 0,
            fused: crate::schedule::FusedStage {
                workgroup_memory: l.records.iter().any(|r| r.shared_memory == 1),
                storage: l.records.iter().any(|r| r.shared_memory == 0),
            },
        }
    }

    /// What the health check measures distances from: the centre of the cloths' and the
    /// colliders' bounding box at rest, and its half-diagonal.
    fn scene(&self) -> Scene {
        let (mut lo, mut hi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
        for l in self.live() {
            lo = lo.min(l.bounds.0);
            hi = hi.max(l.bounds.1);
        }
        if lo.x > hi.x {
            (lo, hi) = (Vec3::ZERO, Vec3::ZERO);
        }
        let (lo, hi) = self.params.extend_bounds(lo, hi);
        Scene {
            center: (lo + hi) * 0.5,
            radius: (hi - lo).length() * 0.5,
        }
    }

    /// Rebuilds, once, the tethers of every cloth whose pinned set changed, and uploads them.
    fn refresh_tethers(&mut self) -> Result<()> {
        self.sync()?;
        for slot in 0..self.entries.len() {
            let Some(live) = self.entries[slot].live.as_mut() else {
                continue;
            };
            if !live.anchors.stale {
                continue;
            }
            live.anchors.tethers = Tethers::build(&live.cloth, &live.anchors.pinned);
            live.anchors.stale = false;
            let (_, place) = self
                .layout
                .find(slot as u32)
                .expect("synced cloths are placed");
            let start = place.particles.start;
            let slots = live.anchors.tethers.shifted_slots(start);
            self.layout.tethers.write_slots(start, &slots);
            self.engine.write_tethers(start, &slots);
        }
        Ok(())
    }

    /// Repacks the buffers after cloths were added or removed, keeping every remaining
    /// cloth's state.
    fn sync(&mut self) -> Result<()> {
        if !self.dirty {
            return Ok(());
        }
        let keep = self.live().iter().any(|l| l.placed);
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
                    hierarchy: &l.hierarchy,
                    tethers: &l.anchors.tethers,
                })
            })
            .collect();
        let capacity = if self.config.fused_workgroup_memory {
            self.engine.workgroup_capacity()
        } else {
            0
        };
        // Self-collision runs in the per-pass stages: every cloth takes the global path.
        let paths = if self.params.self_collision.is_some() {
            PathChoice::Global
        } else {
            self.config.paths
        };
        let layout = Layout::build(&members, paths, self.config.fused_max_particles, capacity)?;
        self.laid_out_for_self_collision = self.params.self_collision.is_some();
        let n = layout.particle_count as usize;
        let (mut positions, mut previous) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for p in &layout.placed {
            let live = self.placed_live(p.slot);
            match self.layout.find(p.slot).filter(|_| live.placed) {
                Some((_, old)) => {
                    let r = old.particles.start as usize..old.particles.end as usize;
                    positions.extend_from_slice(&old_positions[r.clone()]);
                    previous.extend_from_slice(&old_previous[r]);
                }
                None => {
                    let now = live
                        .unstarted
                        .clone()
                        .unwrap_or_else(|| initial_positions(&live.cloth));
                    previous.extend(now.iter().map(|p| p.truncate().extend(0.0)));
                    positions.extend(now);
                }
            }
        }
        self.engine.load(&layout, &positions, &previous)?;
        for p in &layout.placed {
            if let Some(live) = self.entries[p.slot as usize].live.as_mut() {
                live.placed = true;
            }
        }
        self.layout = layout;
        self.dirty = false;
        Ok(())
    }

    /// Starts the Verlet history of cloths that joined since the last step: `x₋₁ = x₀ − v₀h +
    /// ½ah²` with the h the frame's first dt ratio divides by, from where the cloth is now.
    fn start_new_cloths(&mut self, plan: &FramePlan) {
        let accel = self.params.acceleration();
        for p in &self.layout.placed {
            let Some(live) = self.entries[p.slot as usize].live.as_mut() else {
                continue;
            };
            let Some(now) = live.unstarted.take() else {
                continue;
            };
            let velocity = live.cloth.velocity();
            let previous: Vec<Vec4> = now
                .iter()
                .map(|x| {
                    crate::integrator::start_particle(*x, velocity, accel, plan.h_previous as f32)
                })
                .collect();
            self.engine.write_previous(p.particles.start, &previous);
        }
    }

    /// Notes a health flag; the first divergence it reports becomes the world's error, which
    /// every later step returns until [`World::reset`].
    fn note_health(&mut self, health: Health) {
        if health.first_bad == Health::OK || self.diverged.is_some() {
            return;
        }
        let Some(place) = self
            .layout
            .placed
            .iter()
            .find(|p| p.particles.contains(&health.first_bad))
        else {
            return;
        };
        let frame = self.frames.frame_of(health.frame);
        // Tell the two causes apart from where the particle is now (once, on the error path).
        let scene = self.scene();
        let limit = self.params.divergence_limit(&scene);
        let at = self
            .engine
            .positions()
            .ok()
            .and_then(|p| p.get(health.first_bad as usize).copied())
            .map_or(Vec3::NAN, |p| p.truncate());
        let cause = if at.is_finite() {
            DivergenceCause::TooFar {
                distance: at.distance(scene.center),
                limit,
            }
        } else {
            DivergenceCause::NonFinite
        };
        let particle = (health.first_bad - place.particles.start) as usize;
        self.diverged = Some((place.slot, particle, frame, cause));
    }

    fn check_diverged(&self) -> Result<()> {
        match self.diverged {
            Some((cloth, particle, frame, cause)) => Err(ChiffonError::Diverged {
                cloth: Some(cloth),
                particle,
                frame,
                cause,
            }),
            None => Ok(()),
        }
    }
}

impl World {
    /// This frame's collider table: each collider from its pose at the last frame's end (or
    /// its own, the first time) to its pose now. Uploads the mesh grids first if the set of
    /// meshes changed.
    fn collider_records(&mut self) -> Result<Vec<ColliderRecord>> {
        let meshes: Vec<&std::sync::Arc<DistanceGrid>> = self
            .params
            .colliders
            .iter()
            .filter_map(|c| match &c.shape {
                Shape::Mesh(g) => Some(g),
                _ => None,
            })
            .collect();
        let held = meshes.len() == self.grids.len()
            && meshes
                .iter()
                .zip(&self.grids)
                .all(|(a, (b, _))| std::sync::Arc::ptr_eq(a, b));
        if !held {
            let mut samples = Vec::new();
            self.grids = meshes
                .into_iter()
                .map(|g| {
                    let offset = samples.len() as u32;
                    samples.extend_from_slice(g.values());
                    (g.clone(), offset)
                })
                .collect();
            self.engine.load_grids(&samples)?;
        }
        let moving = self.collider_poses.len() == self.params.colliders.len();
        Ok(self
            .params
            .colliders
            .iter()
            .enumerate()
            .map(|(k, c)| {
                let from = if moving {
                    self.collider_poses[k]
                } else {
                    c.pose
                };
                let offset = match &c.shape {
                    Shape::Mesh(g) => self
                        .grids
                        .iter()
                        .find(|(h, _)| std::sync::Arc::ptr_eq(g, h))
                        .map_or(0, |(_, o)| *o),
                    _ => 0,
                };
                c.record(from, offset)
            })
            .collect())
    }
}

impl World {
    /// The self-collision distance when none is given: [`AUTO_SELF_THICKNESS`] times the
    /// longest mean edge of the cloths.
    fn auto_self_thickness(&self) -> f32 {
        let edge = self
            .live()
            .iter()
            .map(|l| l.cloth.mean_edge_length())
            .fold(0.0f32, f32::max);
        (AUTO_SELF_THICKNESS * edge).max(crate::params::MIN_SELF_THICKNESS)
    }
}

/// Buckets of the self-collision hash for `particles` particles: a power of two, at least twice
/// the particles (few collisions) and at least one scan block.
pub(crate) fn hash_cells(particles: u32) -> u32 {
    (2 * particles)
        .max(crate::config::MAX_WORKGROUP_SIZE)
        .next_power_of_two()
}

impl Live {
    fn tethers_empty(&self) -> bool {
        self.anchors.tethers.is_empty()
    }
}

/// Packs positions with inverse masses into the kernels' vec4 layout.
pub(crate) fn initial_positions(cloth: &Cloth) -> Vec<Vec4> {
    cloth
        .positions()
        .iter()
        .zip(cloth.inverse_masses())
        .map(|(x, &w)| x.extend(w))
        .collect()
}
