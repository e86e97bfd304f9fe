//! The surface both solvers share, so tools and tests can drive either.

use glam::Vec3;

use crate::cloth::Cloth;
use crate::config::Health;
use crate::error::{ChiffonError, Result};
use crate::params::SolverParams;
use crate::tethers::Tethers;

/// What runs the kernels. Its one spelling everywhere is [`Backend::name`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// The WGSL kernels on a wgpu adapter ([`crate::GpuSolver`]).
    Gpu,
    /// The CPU reference ([`crate::CpuSolver`]).
    Cpu,
}

impl Backend {
    /// Both, GPU first.
    pub const ALL: [Backend; 2] = [Backend::Gpu, Backend::Cpu];

    /// `gpu` or `cpu`.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Gpu => "gpu",
            Backend::Cpu => "cpu",
        }
    }

    /// A solver of this backend for `cloth`; the GPU one needs `ctx`.
    pub fn solver(
        self,
        ctx: Option<&crate::GpuContext>,
        cloth: &Cloth,
        params: SolverParams,
    ) -> Result<Box<dyn Solver>> {
        Ok(match (self, ctx) {
            (Backend::Cpu, _) => Box::new(crate::CpuSolver::new(cloth, params)?),
            (Backend::Gpu, Some(ctx)) => Box::new(crate::GpuSolver::new(ctx, cloth, params)?),
            (Backend::Gpu, None) => {
                return Err(ChiffonError::NoAdapter(
                    "the GPU backend was asked for without a GPU context".into(),
                ));
            }
        })
    }
}

/// The GPU solver on `gpu` when a context is given, else the CPU reference (for tools that run
/// a scene wherever they can).
pub fn solver_on(
    gpu: Option<&crate::GpuContext>,
    cloth: &Cloth,
    params: SolverParams,
) -> Result<Box<dyn Solver>> {
    let backend = if gpu.is_some() {
        Backend::Gpu
    } else {
        Backend::Cpu
    };
    backend.solver(gpu, cloth, params)
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Backend {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        Backend::ALL
            .into_iter()
            .find(|b| b.name() == s)
            .ok_or_else(|| format!("unknown backend {s:?} (expected gpu or cpu)"))
    }
}

/// A cloth solver: the GPU one ([`crate::GpuSolver`]) or the CPU reference ([`crate::CpuSolver`]).
pub trait Solver {
    /// Advances one frame of `dt` seconds (in `(0, 1]`). The dt ratio comes from the previous
    /// call's dt; the first call after construction or [`Solver::reset`] starts Verlet with
    /// `x₋₁ = x₀ − v₀h + ½ah²`.
    fn step(&mut self, dt: f64) -> Result<()>;
    /// Current positions (m), in particle order. On the GPU this waits for the queued frames.
    fn positions(&mut self) -> Result<Vec<Vec3>>;
    /// The parameters in force.
    fn params(&self) -> &SolverParams;
    /// Replaces the parameters from the next frame on (validated first).
    fn set_params(&mut self, params: SolverParams) -> Result<()>;
    /// Returns to the cloth's initial state and forgets the dt history.
    fn reset(&mut self) -> Result<()>;
    /// The cloth being simulated.
    fn cloth(&self) -> &Cloth;
    /// Human-readable name of what runs the kernels (the adapter, or the CPU).
    fn backend_name(&self) -> String;
    /// Moves particle `index` to `position` (m) at rest, with inverse mass `inverse_mass`
    /// (0 holds it there: how the demo grabs and drags).
    fn set_particle(&mut self, index: usize, position: Vec3, inverse_mass: f32) -> Result<()>;
    /// Changes only the inverse mass of particle `index`. 0 pins it where it is and makes it a
    /// tether anchor; a positive value frees it. Tethers are rebuilt when the pinned set
    /// changes.
    fn set_inverse_mass(&mut self, index: usize, inverse_mass: f32) -> Result<()>;
    /// The divergence check: `Err(Diverged)` naming the first particle found non-finite or
    /// beyond [`SolverParams::max_distance`] and the frame it was found after. [`Solver::step`]
    /// returns the same error (the CPU on the frame it happens, the GPU a frame or two later,
    /// since it reads the flag without stalling); this asks now (the GPU waits for the device).
    fn health(&mut self) -> Result<()>;
    /// The tethers in force (rebuilt whenever the pinned set changes).
    fn tethers(&self) -> &crate::tethers::Tethers;
    /// The schedule of a frame of `dt` seconds after the first under the current parameters
    /// (its stages and dispatches).
    fn schedule(&self, dt: f64) -> crate::schedule::FrameSchedule;
}

/// The pinned set (tether anchors) and its tethers, kept in step with particle edits. A
/// particle held with inverse mass 0 by [`Solver::set_particle`] (the demo's grab) is not an
/// anchor; one pinned by [`Solver::set_inverse_mass`]`(i, 0)` or by the cloth is. Every anchor
/// has inverse mass 0, which is what lets the tether kernel read anchors while it moves the
/// other particles.
#[derive(Clone, Debug)]
pub(crate) struct Anchors {
    pinned: Vec<bool>,
    tethers: Tethers,
    /// True when the tethers changed since [`Anchors::take_changed`] was last called.
    changed: bool,
}

impl Anchors {
    /// The cloth's own pins.
    pub(crate) fn new(cloth: &Cloth) -> Self {
        let pinned: Vec<bool> = (0..cloth.particle_count())
            .map(|i| cloth.is_pinned(i))
            .collect();
        Self {
            tethers: Tethers::build(cloth, &pinned),
            pinned,
            changed: true,
        }
    }

    /// Pins or frees particle `i` as an anchor.
    pub(crate) fn pin(&mut self, cloth: &Cloth, i: usize, pinned: bool) {
        if self.pinned[i] != pinned {
            self.pinned[i] = pinned;
            self.tethers = Tethers::build(cloth, &self.pinned);
            self.changed = true;
        }
    }

    /// Particle `i` is now held with `inverse_mass`: holding (0) keeps its anchor status,
    /// a positive inverse mass frees an anchor.
    pub(crate) fn held(&mut self, cloth: &Cloth, i: usize, inverse_mass: f32) {
        if inverse_mass > 0.0 {
            self.pin(cloth, i, false);
        }
    }

    /// The tethers for the current anchors.
    pub(crate) fn tethers(&self) -> &Tethers {
        &self.tethers
    }

    /// True once after each change of the tethers (the GPU uploads them then).
    pub(crate) fn take_changed(&mut self) -> bool {
        std::mem::take(&mut self.changed)
    }
}

/// Frames stepped since construction or reset, and the first divergence found.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct FrameCount {
    frames: u64,
    diverged: Option<(usize, u64)>,
}

impl FrameCount {
    /// One more frame was stepped.
    pub(crate) fn advance(&mut self) {
        self.frames += 1;
    }

    /// Turns a health flag into the solver's answer, remembering the first divergence.
    pub(crate) fn check(&mut self, health: Health) -> Result<()> {
        if health.first_bad != Health::OK && self.diverged.is_none() {
            self.diverged = Some((health.first_bad as usize, self.frames));
        }
        match self.diverged {
            Some((particle, step)) => Err(ChiffonError::Diverged { particle, step }),
            None => Ok(()),
        }
    }
}

/// Checks a particle edit: index in range, finite position, non-negative finite inverse mass.
pub(crate) fn check_particle_edit(
    cloth: &Cloth,
    index: usize,
    position: Vec3,
    inverse_mass: f32,
) -> Result<()> {
    if index >= cloth.particle_count() {
        return Err(ChiffonError::InvalidParameter {
            name: "particle index",
            reason: format!(
                "{index} is out of range (the cloth has {})",
                cloth.particle_count()
            ),
        });
    }
    crate::error::check_finite3("particle position", position)?;
    crate::error::check_at_least("inverse mass", inverse_mass as f64, 0.0)
}

/// Returns an error naming the first particle with a non-finite position.
pub fn check_finite(positions: &[Vec3], step: u64) -> Result<()> {
    match positions.iter().position(|p| !p.is_finite()) {
        Some(particle) => Err(ChiffonError::Diverged { particle, step }),
        None => Ok(()),
    }
}
