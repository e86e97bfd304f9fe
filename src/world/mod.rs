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

mod auto_path;
mod cloths;
mod contact;
pub(crate) mod engine;
mod health;
pub(crate) mod layout;
pub(crate) mod options;
mod readback;

use std::ops::Range;

use glam::{Vec3, Vec4};

use crate::backend::Backend;
use crate::cloth::Cloth;
use crate::config::FusedFrame;
use crate::contact::{DistanceGrid, Pose};
use crate::error::{DivergenceCause, Result};
use crate::gpu::StageTimer;
use crate::hierarchy::{Hierarchy, MAX_LEVELS};
use crate::params::SolverParams;
use crate::schedule::{FrameSchedule, StepClock, material_alpha};
use cloths::{Anchors, Entry, Live};
use engine::{Engine, WorldFrame};
use health::FrameCount;
use layout::{Layout, check_capacity};

pub use auto_path::{AUTO_TRIAL_FRAMES, PathTimes, RETRY_FACTOR};
pub(crate) use cloths::initial_positions;
pub use layout::{MAX_CLOTHS, MAX_COLORS};
pub use options::{
    ClothOptions, ClothPath, DEFAULT_FUSED_MAX_PARTICLES, DEFAULT_FUSED_WORKGROUP_SIZE, PathChoice,
    Sleep, WorldCapacity, WorldConfig,
};

/// Names one cloth of a [`World`]. A handle outlives its cloth harmlessly: once the cloth is
/// removed, every use of the handle is an error ([`ChiffonError::StaleHandle`](crate::ChiffonError::StaleHandle)).
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
    /// The first frame the fused kernel stopped before its last substep
    /// ([`crate::config::Health::STOPPED_EARLY`]), returned by every step until a reset.
    stopped_early: Option<u64>,
    /// The colliders' poses at the end of the last frame: where the next frame moves them
    /// from (empty after a reset, or when the number of colliders changed).
    collider_poses: Vec<Pose>,
    /// The mesh colliders whose grids the engine holds, each with its first sample.
    grids: Vec<(std::sync::Arc<DistanceGrid>, u32)>,
    /// Whether the layout was made with every cloth global for contact (self-collision, or a
    /// box among the colliders).
    laid_out_global_only: bool,
    /// The pins [`World::move_pin`] carries over the next frame: (cloth, particle) → target.
    /// A map, so a call per pin per frame stays linear in the pins moved.
    pin_moves: std::collections::HashMap<(ClothHandle, usize), Vec3>,
    /// [`PathChoice::Auto`]'s guess, trial and choice (`auto_path.rs`).
    auto: auto_path::AutoPath,
    /// The path `Auto` resolved to when the layout was made.
    laid_out_auto: PathChoice,
    /// Whether the frame being stepped is a frame of `Auto`'s trial.
    trial_frame: bool,
    /// Particles of the largest cloth that could fuse, when the cloths last changed.
    auto_largest: u32,
}

impl World {
    /// An empty world on `backend`.
    pub fn new(backend: Backend<'_>, params: SolverParams, config: WorldConfig) -> Result<Self> {
        params.validate()?;
        crate::error::check_range(
            "world capacity (cloths)",
            config.capacity.cloths as f64,
            1.0,
            MAX_CLOTHS as f64,
        )?;
        if let Some(sleep) = config.sleep {
            sleep.validate()?;
        }
        let engine = make_engine(backend, &config)?;
        let layout = Layout::build(&[], config.paths, config.fused_max_particles, 0)?;
        let guess = if engine.prefers_fused() {
            PathChoice::Fused
        } else {
            PathChoice::Global
        };
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
            stopped_early: None,
            collider_poses: Vec::new(),
            grids: Vec::new(),
            laid_out_global_only: false,
            pin_moves: std::collections::HashMap::new(),
            auto: auto_path::AutoPath::new(guess),
            laid_out_auto: guess,
            trial_frame: false,
            auto_largest: 0,
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
        )?;
        let live = Live {
            anchors: Anchors::new(&placed),
            bounds: crate::geometry::bounds(placed.positions()),
            mean_edge: placed.mean_edge_length(),
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
        let handle = ClothHandle {
            index: index as u32,
            generation: entry.generation,
        };
        self.dirty = true;
        self.auto_cloths_changed();
        Ok(handle)
    }

    /// Removes a cloth; its handle is stale from now on.
    pub fn remove(&mut self, handle: ClothHandle) -> Result<()> {
        self.entry(handle)?;
        self.pin_moves.retain(|&(h, _), _| h != handle);
        self.entries[handle.index as usize].live = None;
        self.dirty = true;
        self.auto_cloths_changed();
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

    /// The cloth's energy after the last frame ([`crate::quality::energy`]; the GPU waits).
    /// Before the first frame the cloth is at rest: only its potential energies count.
    pub fn energy(&mut self, handle: ClothHandle) -> Result<crate::quality::Energy> {
        let range = self.place(handle)?.particles.clone();
        let (positions, previous) = self.engine.state()?;
        let (positions, previous) = (
            &positions[range.start as usize..range.end as usize],
            &previous[range.start as usize..range.end as usize],
        );
        let (shared, gravity) = (self.params.compliance, self.params.gravity);
        // Before a frame, x₋₁ = x: no velocity whatever h is.
        let h = self.clock.last_substep().unwrap_or(1.0);
        let live = self.live_mut(handle)?;
        Ok(crate::quality::energy(
            &live.cloth,
            positions,
            previous,
            h,
            gravity,
            &live.compliance.unwrap_or(shared),
        ))
    }

    /// Every cloth's current positions, in [`World::handles`] order, from one readback.
    pub fn all_positions(&mut self) -> Result<Vec<(ClothHandle, Vec<Vec3>)>> {
        self.sync()?;
        let positions = self.engine.positions()?;
        self.split_by_cloth(&positions)
    }

    /// The world's positions (after [`World::sync`]) cut into each cloth's, in
    /// [`World::handles`] order.
    fn split_by_cloth(&mut self, positions: &[Vec4]) -> Result<Vec<(ClothHandle, Vec<Vec3>)>> {
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

    /// The shared parameters.
    pub fn params(&self) -> &SolverParams {
        &self.params
    }

    /// Replaces the shared parameters from the next frame on (validated first). Turning
    /// self-collision on or off, or adding the first box collider or removing the last,
    /// re-lays the buffers out (every cloth takes the global path while either is there). A
    /// change wakes every sleeping cloth, unless only colliders' poses changed: a moving
    /// collider wakes the cloths near it.
    pub fn set_params(&mut self, params: SolverParams) -> Result<()> {
        params.validate()?;
        // A collider's move alone wakes only the cloths near it (the fused kernel sees it);
        // any other change wakes them all.
        let poses_only = params.colliders.len() == self.params.colliders.len() && {
            let mut same = params.clone();
            for (c, old) in same.colliders.iter_mut().zip(&self.params.colliders) {
                c.pose = old.pose;
            }
            same == self.params
        };
        if !poses_only {
            self.wake_all();
        }
        self.params = params;
        if self.contact_needs_global() != self.laid_out_global_only {
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
        // `PathChoice::Auto`'s trial: this frame's path, and the frame waited for and timed.
        let substeps = self.params.substeps.count(dt);
        self.trial_frame = self.auto.in_trial() && self.auto_trial_applies(substeps);
        if self.config.paths == PathChoice::Auto && self.auto_path() != self.laid_out_auto {
            self.dirty = true;
        }
        let started = if self.trial_frame {
            self.engine.wait()?;
            Some(std::time::Instant::now())
        } else {
            None
        };
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
                p.hash_cells = crate::config::hash_cells(self.layout.global_particles);
            }
        }
        self.start_new_cloths(&plan);
        self.write_pin_moves()?;
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
        let rows = self.layout.fused_rows();
        let colliders = self.collider_records()?;
        let collider_cells = crate::contact::broadphase::collider_cells(&colliders);
        let schedule = self.frame_schedule(plan.substeps);
        let air = self
            .params
            .active_air()
            .filter(|_| schedule.air)
            .map(|a| crate::schedule::air_params(a, &plan, dt, self.layout.particle_count));
        // Air keeps every cloth awake: a sleeping cloth would not feel the wind rise.
        let sleep = self.config.sleep.filter(|_| air.is_none());
        let frame = WorldFrame {
            plan: &plan,
            schedule,
            materials: &materials,
            records: &records,
            fused: FusedFrame {
                substeps: plan.substeps,
                iterations: self.params.iterations,
                cloth_count: records.len() as u32,
                sleep_frames: sleep.map_or(0, |s| s.frames),
                sleep_step: sleep.map_or(0.0, |s| s.speed * plan.h as f32),
                coarse_levels: self.params.coarse_levels as u32,
                level_row: rows.levels,
                node_row: rows.nodes,
                prolong_row: rows.prolongations,
                snapshot_base: self.layout.constraints.len() as u32,
                ..Default::default()
            },
            colliders: &colliders,
            collider_cells: &collider_cells,
            air,
        };
        let health = self.engine.frame(&frame, timer)?;
        self.collider_poses = self.params.colliders.iter().map(|c| c.pose).collect();
        self.frames.advance();
        if let Some(h) = health {
            self.note_health(h);
        }
        if let Some(started) = started {
            self.engine.wait()?;
            self.auto.record(started.elapsed().as_secs_f64());
        }
        self.check_diverged()
    }

    /// What [`PathChoice::Auto`] last measured, each path's least frame (waited for); `None`
    /// before its first trial has ended, or where it runs none (another choice, a browser,
    /// contact that puts every cloth on the global path, no cloth that could take either).
    /// A trial starts when cloths join or leave, the first time and whenever the particles
    /// that could fuse have doubled or halved since the last ([`RETRY_FACTOR`]), and takes
    /// [`AUTO_TRIAL_FRAMES`] frames.
    pub fn path_times(&self) -> Option<PathTimes> {
        self.auto.measured()
    }

    /// Cloths joined or left: `Auto` times the world again (`auto_path.rs`) if it can time its
    /// two paths here at all: a clock (not in a browser, which cannot wait for its device), a
    /// device that fuses, and a cloth that could take either path, with the cloths that cannot
    /// fuse before those that can (so both paths place every cloth's particles alike, and a
    /// renderer's ranges stay valid).
    fn auto_cloths_changed(&mut self) {
        let (mut fusable, mut largest, mut ordered) = (0u64, 0u32, true);
        for l in self.live() {
            let n = l.cloth.particle_count();
            if layout::can_fuse(&l.cloth, self.config.fused_max_particles) {
                fusable += n as u64;
                largest = largest.max(n as u32);
            } else if fusable > 0 {
                ordered = false;
            }
        }
        self.auto_largest = largest;
        let timeable = !cfg!(target_arch = "wasm32")
            && self.config.paths == PathChoice::Auto
            && self.engine.fuses()
            && ordered
            && fusable > 0;
        if timeable {
            self.auto.cloths_changed(fusable);
        } else {
            self.auto.cancel();
        }
    }

    /// The path `Auto` lays the cloths out on now: the trial's path while one runs.
    fn auto_path(&self) -> PathChoice {
        if self.trial_frame {
            self.auto.path()
        } else {
            self.auto.chosen()
        }
    }

    /// Whether `Auto`'s trial can time this frame of `substeps`: no contact that needs every
    /// cloth global, and its largest cloth that could fuse small enough for the device's fused
    /// loops ([`Engine::fused_trial_fits`]).
    fn auto_trial_applies(&self, substeps: u32) -> bool {
        !self.contact_needs_global() && self.engine.fused_trial_fits(self.auto_largest, substeps)
    }

    /// The divergence check now: `Err(Diverged)` naming the cloth, its first bad particle and
    /// the frame it went bad in (the GPU waits for the device).
    pub fn health(&mut self) -> Result<()> {
        let h = self.engine.health()?;
        self.note_health(h);
        self.check_diverged()
    }

    /// Whether the cloth sleeps ([`Sleep`]): it stayed at rest long enough and nothing has
    /// woken it since. Always `false` on the global path or with sleeping off (the GPU waits).
    pub fn is_asleep(&mut self, handle: ClothHandle) -> Result<bool> {
        let Some(k) = self.fused_index(handle)? else {
            return Ok(false);
        };
        let fused = self.fused_frame_settings();
        Ok(self.engine.rests()?[k as usize].asleep(&fused))
    }

    /// Wakes the cloth (if it sleeps): it runs again from the next step, and sleeps again only
    /// after [`Sleep::frames`] more frames at rest. Edits through the world wake it by themselves.
    pub fn wake(&mut self, handle: ClothHandle) -> Result<()> {
        if let Some(k) = self.fused_index(handle)? {
            self.engine.wake(k..k + 1);
        }
        Ok(())
    }

    /// Wakes every cloth.
    fn wake_all(&mut self) {
        self.engine.wake(0..u32::MAX);
    }

    /// The cloth's record on the fused path, if it takes it.
    pub(super) fn fused_index(&mut self, handle: ClothHandle) -> Result<Option<u32>> {
        let slot = self.place(handle)?.slot;
        Ok(self.layout.fused_index(slot))
    }

    /// The sleep settings as the fused kernel reads them (its other fields unset).
    pub(super) fn fused_frame_settings(&self) -> FusedFrame {
        FusedFrame {
            sleep_frames: self.config.sleep.map_or(0, |s| s.frames),
            ..Default::default()
        }
    }

    /// Blocks until every submitted frame is done.
    pub fn wait(&mut self) -> Result<()> {
        self.engine.wait()
    }

    /// Returns every cloth to its initial state (as it joined, with its own pins) and forgets
    /// the dt history.
    pub fn reset(&mut self) -> Result<()> {
        self.pin_moves.clear();
        for e in self.entries.iter_mut().filter_map(|e| e.live.as_mut()) {
            e.placed = false;
            e.unstarted = Some(initial_positions(&e.cloth));
            e.anchors = Anchors::new(&e.cloth);
        }
        self.engine.clear_health()?;
        self.clock.reset();
        self.frames = FrameCount::default();
        self.diverged = None;
        self.stopped_early = None;
        self.collider_poses.clear();
        self.dirty = true;
        self.sync()
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
        let limits = if self.params.active_strain_limit().is_some() && l.global_particles > 0 {
            l.global.limit_sweep(self.params.limit_holds())
        } else {
            0..0
        };
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
            limit_sweeps: self.params.limit_sweeps(),
            end_sweeps: self.params.end_sweeps(),
            limit_first: limits.start,
            limit_colors: limits.end - limits.start,
            edge_colliders: self.has_edge_colliders()
                && l.triangle_table.first().is_some_and(|&t| t > 0),
            air: self.params.active_air().is_some()
                && l.triangle_table.first().is_some_and(|&t| t > 0),
            global: l.global_particles > 0,
            fused: crate::schedule::FusedStage {
                workgroup_memory: l.records.iter().any(|r| r.shared_memory == 1),
                storage: l.records.iter().any(|r| r.shared_memory == 0),
            },
        }
    }
}

/// The engine of `backend` for a world built with `config` (here, above both engines and the
/// trait they share, so `world::engine` depends on neither).
fn make_engine(backend: Backend<'_>, config: &WorldConfig) -> Result<Box<dyn engine::Engine>> {
    Ok(match backend {
        Backend::Gpu(ctx) => Box::new(crate::gpu::engine::GpuEngine::new(ctx, config)?),
        Backend::Cpu => Box::new(crate::cpu::engine::CpuEngine::new(config.workgroup_size)),
    })
}
