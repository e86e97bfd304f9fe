//! How a world is built and how a cloth joins it.

use glam::{Affine3A, Vec3};

use crate::cloth::Cloth;
use crate::config::DEFAULT_WORKGROUP_SIZE;
use crate::params::Compliance;

/// How a cloth joins a world.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClothOptions {
    /// Applied to the cloth's rest positions (and its initial velocity's direction) when it
    /// joins: a rotation, a uniform scale and a translation. Default identity.
    pub transform: Affine3A,
    /// Its material: XPBD compliance per constraint kind (m/N). Default `None`: the world's
    /// [`crate::SolverParams::compliance`].
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PathChoice {
    /// The faster of [`PathChoice::Fused`] and [`PathChoice::Global`] where the world runs,
    /// measured: when cloths join or leave (the first time, and whenever the particles that
    /// could fuse have doubled or halved since the last time), the next
    /// [`crate::world::AUTO_TRIAL_FRAMES`] frames run half on each path, each waited for and timed, and the world keeps the one
    /// whose least frame was shorter ([`crate::World::path_times`]). Until then it guesses: fused
    /// on the CPU reference and on GPUs, global on an adapter that runs on the CPU (lavapipe,
    /// SwiftShader, WARP). Both paths give the same cloth to the bit, so the choice changes only
    /// the time. Why it measures: on lavapipe the fused path is faster for a few capes and the
    /// global one for a hundred (`chiffon bench --scene capes --path auto,fused,global`,
    /// docs/many-cloths.md). A browser cannot wait for its device and keeps the guess; so
    /// does a world whose cloths that cannot fuse come after ones that can (the two paths
    /// would place their particles differently). The default.
    #[default]
    Auto,
    /// Fused for every cloth of at most [`WorldConfig::fused_max_particles`] particles and
    /// [`crate::world::MAX_COLORS`] colors, global for the others, on any device that can
    /// bind the fused kernel.
    Fused,
    /// Every cloth on the global path (a [`crate::Solver`]'s one cloth is).
    Global,
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
    /// The per-pass kernels (and the coarse levels), shared with every other global cloth.
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

/// What a world's buffers hold, fixed when it is created (the position buffer a renderer
/// binds must stay the same buffer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorldCapacity {
    /// Cloths. Default 1024; at most [`crate::world::MAX_CLOTHS`] (262 144).
    pub cloths: u32,
    /// Particles of all cloths. Default 2²⁰.
    pub particles: u32,
    /// Constraints of all cloths, their coarse levels' limits included. Default 2²³.
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
    /// Room for `count` cloths like `cloth`, coarse levels and the strain limit's records
    /// included.
    pub fn for_cloths(count: u32, cloth: &Cloth) -> Self {
        let count = count.max(1);
        let constraints = crate::hierarchy::solver_records(cloth);
        Self {
            cloths: count,
            particles: count.saturating_mul(cloth.particle_count() as u32),
            constraints: count.saturating_mul(constraints as u32),
        }
    }
}

/// When a world's cloth sleeps: once it has stayed at rest for a while, its workgroup skips it
/// and it costs nothing until something wakes it. Applies to the fused path (a world's small
/// cloths); the global path's cloths share every dispatch and always run.
///
/// A cloth is at rest in a frame when none of its free particles moved faster than
/// [`Sleep::speed`] over the frame's last substep. It wakes when the host touches it
/// ([`crate::World::set_particle`], [`crate::World::set_inverse_mass`], [`crate::World::wake`]),
/// when the parameters change ([`crate::World::set_params`]) or cloths are added or removed, and
/// when a collider moves anywhere near its bounds. The GPU kernel decides, and the CPU reference
/// follows the same rules, so both sleep on the same frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sleep {
    /// The speed (m/s) under which a particle counts as at rest. Default 0.02.
    pub speed: f32,
    /// Frames in a row at rest before the cloth sleeps. Default 60.
    pub frames: u32,
}

impl Default for Sleep {
    fn default() -> Self {
        Self {
            speed: 0.02,
            frames: 60,
        }
    }
}

impl Sleep {
    /// Checks the settings: a finite speed ≥ 0, at least one frame.
    pub(crate) fn validate(&self) -> crate::Result<()> {
        crate::error::check_at_least("sleep speed (m/s)", self.speed, 0.0)?;
        crate::error::check_at_least("sleep frames", self.frames, 1)
    }
}

/// How a world is built.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldConfig {
    /// What its buffers hold.
    pub capacity: WorldCapacity,
    /// Which cloths may take the fused path. Default [`PathChoice::Auto`].
    pub paths: PathChoice,
    /// The largest cloth (particles) the fused path takes; larger ones go global. Default
    /// [`DEFAULT_FUSED_MAX_PARTICLES`].
    pub fused_max_particles: u32,
    /// Fused cloths keep their particles in workgroup memory when they fit the adapter's
    /// limit (faster on GPUs); `false` keeps every fused cloth in the storage buffer (for
    /// measuring the two). Default `true`.
    pub fused_workgroup_memory: bool,
    /// Threads per workgroup of the per-pass kernels. Default 128 (`DEFAULT_WORKGROUP_SIZE`).
    pub workgroup_size: u32,
    /// Threads per workgroup of the fused kernel (one workgroup per cloth). Default `None`:
    /// 64 on a CPU adapter such as lavapipe, [`DEFAULT_FUSED_WORKGROUP_SIZE`] on a GPU.
    pub fused_workgroup_size: Option<u32>,
    /// When a fused cloth at rest sleeps ([`Sleep`]); `None`: never. Default
    /// `Some(Sleep::default())`.
    pub sleep: Option<Sleep>,
}

/// Threads per fused workgroup on a GPU: four warps (two waves) per cloth, enough to cover a
/// 32×32 cape's ~480 constraints per color in four rounds.
pub const DEFAULT_FUSED_WORKGROUP_SIZE: u32 = 128;

/// Particles above which a cloth leaves the fused path by default: one workgroup then walks
/// thousands of constraints per color on its own, and the global path's full-device
/// dispatches win (measured on lavapipe: `docs/many-cloths.md`).
pub const DEFAULT_FUSED_MAX_PARTICLES: u32 = 8192;

impl Default for WorldConfig {
    fn default() -> Self {
        Self {
            capacity: WorldCapacity::default(),
            paths: PathChoice::Auto,
            fused_max_particles: DEFAULT_FUSED_MAX_PARTICLES,
            fused_workgroup_memory: true,
            workgroup_size: DEFAULT_WORKGROUP_SIZE,
            fused_workgroup_size: None,
            sleep: Some(Sleep::default()),
        }
    }
}
