//! One cloth on its own: a [`Solver`] is a [`World`] of one cloth on the global path (the
//! per-pass kernels, coarse levels included), with the cloth's handle kept for you. Everything
//! it does, the world does; it exists so the common case reads as one line.

use glam::{Vec3, Vec4};

pub use crate::backend::Backend;
use crate::cloth::Cloth;
use crate::error::Result;
use crate::gpu::StageTimer;
use crate::params::SolverParams;
use crate::schedule::FrameSchedule;
use crate::tethers::Tethers;
use crate::world::{ClothHandle, ClothOptions, PathChoice, World, WorldCapacity, WorldConfig};

/// Steps one [`Cloth`] on the GPU or on the CPU reference.
///
/// ```no_run
/// use chiffon::{Backend, ClothBuilder, GpuContext, Pinning, Solver, SolverParams};
/// # fn main() -> chiffon::Result<()> {
/// let cloth = ClothBuilder::grid(64, 64).pinning(Pinning::Corners).build()?;
/// let ctx = GpuContext::new()?;
/// let mut solver = Solver::new(Backend::Gpu(&ctx), &cloth, SolverParams::default())?;
/// solver.step(1.0 / 60.0)?;
/// let positions = solver.positions()?;
/// # Ok(()) }
/// ```
pub struct Solver {
    world: World,
    handle: ClothHandle,
}

impl Solver {
    /// A solver of `cloth` on `backend`, at the cloth's initial state.
    pub fn new(backend: Backend<'_>, cloth: &Cloth, params: SolverParams) -> Result<Self> {
        Self::with_workgroup_size(
            backend,
            cloth,
            params,
            crate::config::DEFAULT_WORKGROUP_SIZE,
        )
    }

    /// As [`Solver::new`], with `workgroup_size` threads per workgroup on the GPU (a power of
    /// two within the device's limits; the benchmark sweeps it).
    pub fn with_workgroup_size(
        backend: Backend<'_>,
        cloth: &Cloth,
        params: SolverParams,
        workgroup_size: u32,
    ) -> Result<Self> {
        let config = WorldConfig {
            capacity: WorldCapacity::for_cloths(1, cloth),
            paths: PathChoice::Global,
            workgroup_size,
            ..WorldConfig::default()
        };
        let mut world = World::new(backend, params, config)?;
        let handle = world.add(cloth, ClothOptions::default())?;
        // Lay the buffers out now, so a cloth too large for the device fails here.
        world.particle_range(handle)?;
        Ok(Self { world, handle })
    }

    /// Advances one frame of `dt` seconds (in `(0, 1]`). The dt ratio comes from the previous
    /// call's dt; the first call after construction or [`Solver::reset`] starts Verlet with
    /// `x₋₁ = x₀ − v₀h + ½ah²`. On the GPU nothing is read back.
    pub fn step(&mut self, dt: f64) -> Result<()> {
        self.world.step(dt).map_err(lone)
    }

    /// As [`Solver::step`], timing each stage with `timer` (GPU timestamps; the benchmark's
    /// and the demo's).
    pub fn step_timed(&mut self, dt: f64, timer: Option<&mut StageTimer>) -> Result<()> {
        self.world.step_timed(dt, timer).map_err(lone)
    }

    /// Current positions (m), in particle order. On the GPU this waits for the queued frames.
    pub fn positions(&mut self) -> Result<Vec<Vec3>> {
        self.world.positions(self.handle)
    }

    /// Positions with the inverse mass in w, exactly as the kernels see them.
    pub fn raw_positions(&mut self) -> Result<Vec<Vec4>> {
        self.world.raw_positions(self.handle)
    }

    /// The cloth's kinetic, gravitational and elastic energy after the last frame (J), from
    /// Verlet's positions ([`crate::quality::energy`]; the GPU waits).
    pub fn energy(&mut self) -> Result<crate::quality::Energy> {
        let handle = self.handle;
        self.world.energy(handle)
    }

    /// As [`Solver::positions`], without blocking: a browser's GPU answers only once the
    /// page's event loop runs. Natively it waits as [`Solver::positions`] does.
    pub async fn positions_async(&mut self) -> Result<Vec<Vec3>> {
        self.world.positions_async(self.handle).await
    }

    /// As [`Solver::raw_positions`], without blocking.
    pub async fn raw_positions_async(&mut self) -> Result<Vec<Vec4>> {
        self.world.raw_positions_async(self.handle).await
    }

    /// The parameters in force.
    pub fn params(&self) -> &SolverParams {
        self.world.params()
    }

    /// Replaces the parameters from the next frame on (validated first).
    pub fn set_params(&mut self, params: SolverParams) -> Result<()> {
        self.world.set_params(params)
    }

    /// Returns to the cloth's initial state and forgets the dt history.
    pub fn reset(&mut self) -> Result<()> {
        self.world.reset()
    }

    /// The cloth being simulated.
    pub fn cloth(&self) -> &Cloth {
        self.world
            .cloth(self.handle)
            .expect("a solver's cloth is never removed")
    }

    /// What runs the kernels: the adapter, or the CPU reference.
    pub fn backend_name(&self) -> String {
        self.world.backend_name()
    }

    /// Moves particle `index` to `position` (m) at rest, with inverse mass `inverse_mass`
    /// (0 holds it there: how the demo grabs and drags). A held particle is not a tether
    /// anchor.
    pub fn set_particle(&mut self, index: usize, position: Vec3, inverse_mass: f32) -> Result<()> {
        self.world
            .set_particle(self.handle, index, position, inverse_mass)
    }

    /// Carries pinned particle `index` from where it is to `target` (m) over the next step, in
    /// equal steps, one each substep (see [`crate::World::move_pin`]): how to move a pin
    /// without jerking the cloth beside it. Fails when the particle is not pinned.
    pub fn move_pin(&mut self, index: usize, target: Vec3) -> Result<()> {
        self.world.move_pin(self.handle, index, target)
    }

    /// Changes only the inverse mass of particle `index`. 0 pins it where it is and makes it a
    /// tether anchor; a positive value frees it. The tethers are rebuilt once before the next
    /// step, however many particles changed.
    pub fn set_inverse_mass(&mut self, index: usize, inverse_mass: f32) -> Result<()> {
        self.world
            .set_inverse_mass(self.handle, index, inverse_mass)
    }

    /// Moves collider `index` (of [`SolverParams::colliders`]) to `pose` for the next step,
    /// which carries it there from where it was over the frame's substeps.
    pub fn set_collider_pose(&mut self, index: usize, pose: crate::contact::Pose) -> Result<()> {
        self.world.set_collider_pose(index, pose)
    }

    /// The divergence check now: `Err(Diverged)` naming the first particle found non-finite
    /// or beyond the distance limit and the frame it happened in. [`Solver::step`] returns the
    /// same error (the CPU on the frame it happens, the GPU a frame or two later, since it
    /// reads the flag without stalling; both name the same frame); this asks now (the GPU
    /// waits for the device).
    pub fn health(&mut self) -> Result<()> {
        self.world.health().map_err(lone)
    }

    /// As [`Solver::health`], without blocking (for the web).
    pub async fn health_async(&mut self) -> Result<()> {
        self.world.health_async().await.map_err(lone)
    }

    /// The tethers in force (rebuilt first if the pinned set changed).
    pub fn tethers(&mut self) -> Result<&Tethers> {
        self.world.tethers(self.handle)
    }

    /// The schedule of a frame of `dt` seconds after the first under the current parameters
    /// (its stages and dispatches).
    pub fn schedule(&mut self, dt: f64) -> Result<FrameSchedule> {
        self.world.schedule(dt)
    }

    /// The position buffer on the GPU (`vec4<f32>` per particle: xyz in m, w = inverse mass),
    /// which renderers may bind as a vertex or storage buffer; `None` on the CPU.
    pub fn position_buffer(&self) -> Option<&wgpu::Buffer> {
        self.world.position_buffer()
    }

    /// Bytes of GPU memory the solver's buffers hold; `None` on the CPU.
    pub fn gpu_bytes(&self) -> Option<u64> {
        self.world.gpu_bytes()
    }

    /// Blocks until every submitted frame is done (GPU).
    pub fn wait(&mut self) -> Result<()> {
        self.world.wait()
    }

    /// The world of one cloth underneath.
    pub fn world(&self) -> &World {
        &self.world
    }
}

/// A lone solver's errors name no cloth.
fn lone(e: crate::ChiffonError) -> crate::ChiffonError {
    match e {
        crate::ChiffonError::Diverged {
            particle,
            frame,
            cause,
            ..
        } => crate::ChiffonError::Diverged {
            cloth: None,
            particle,
            frame,
            cause,
        },
        e => e,
    }
}

/// A solver and a world can move to another thread (a Python binding steps them with the
/// interpreter's lock released); on the web, where wgpu's types are not `Send`, they need not.
#[cfg(not(target_arch = "wasm32"))]
const _: () = {
    const fn send<T: Send>() {}
    send::<Solver>();
    send::<World>();
};
