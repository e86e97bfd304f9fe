//! Solver parameters: everything that may change between frames without rebuilding the cloth.
//!
//! One file, though long: [`SolverParams`] is one struct, and each field's meaning, default,
//! valid range and the check that refuses it sit beside each other here (with the helpers that
//! turn a field into what the kernels read, such as `active_strain_limit`).

use glam::Vec3;

use crate::contact::Collider;
use crate::error::{ChiffonError, Result, check_magnitude, check_range};
use crate::integrator::Integrator;

/// XPBD compliance of each constraint kind: the inverse of a spring stiffness, in m/N. 0 is
/// rigid (exactly the classic PBD projection with stiffness 1); larger is softer. Unlike a PBD
/// stiffness factor, it means the same whatever the iterations, substeps or frame rate.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Compliance {
    /// Structural (stretch) constraints, m/N. Default 0 (rigid). With a membrane of
    /// triangles ([`crate::Membrane::Triangles`]) each triangle's warp and weft, over twice
    /// its rest area (m²), so a grid's triangle resists as its edges do.
    pub stretch: f32,
    /// Shear constraints, m/N. Default 0 (rigid). Soft shear (about 100: free) lets a grid
    /// sheet drape a body curved both ways (a ball: worst edge at rest 1.27 → 1.05), as woven
    /// cloth does, but a cloth held at a corner or a collar stretches more without its
    /// diagonals (docs/contact.md). With a membrane of triangles ([`crate::Membrane::Triangles`])
    /// each triangle's shear (the cosine between warp and weft), over twice its rest area: on
    /// any triangulation, where a mesh's edges have no shear of their own.
    pub shear: f32,
    /// Bend constraints (a distance between particles two apart: a rope's, and a mesh's where
    /// it is folded at rest or a triangle has no area; sheets elsewhere bend with
    /// `curvature`), m/N. Default 0.01: a rope folds (a distance two links apart resists a
    /// fold only to second order in its angle). A compliance counts only when `α · f²` (`f`
    /// the solver frequency) is not far below the two ends' inverse masses.
    pub bend: f32,
    /// A sheet's bending, grids and meshes alike (isometric: one stencil across each interior
    /// edge of its triangles, Bergou et al. 2006), 1/(N·m): the inverse of the bending
    /// stiffness, so the same number is the same fabric at any resolution. Default 10⁶ (a
    /// stiffness of 10⁻⁶ N·m, light cotton); 0 is rigid. Ropes bend with `bend`.
    #[cfg_attr(feature = "serde", serde(default = "default_curvature"))]
    pub curvature: f32,
}

/// Default [`Compliance::curvature`] (1/(N·m)).
pub const DEFAULT_CURVATURE_COMPLIANCE: f32 = 1e6;

#[cfg(feature = "serde")]
fn default_curvature() -> f32 {
    DEFAULT_CURVATURE_COMPLIANCE
}

impl Default for Compliance {
    fn default() -> Self {
        Self {
            stretch: 0.0,
            shear: 0.0,
            bend: DEFAULT_BEND_COMPLIANCE,
            curvature: DEFAULT_CURVATURE_COMPLIANCE,
        }
    }
}

/// Default bend compliance (m/N): soft enough that a cloth drapes and folds.
pub const DEFAULT_BEND_COMPLIANCE: f32 = 0.01;

impl Compliance {
    /// All kinds rigid.
    pub const RIGID: Compliance = Compliance {
        stretch: 0.0,
        shear: 0.0,
        bend: 0.0,
        curvature: 0.0,
    };

    /// The compliance of `kind` (m/N).
    pub fn of(&self, kind: crate::constraint::ConstraintKind) -> f32 {
        match kind {
            crate::constraint::ConstraintKind::Structural => self.stretch,
            crate::constraint::ConstraintKind::Shear => self.shear,
            crate::constraint::ConstraintKind::Bend => self.bend,
        }
    }
}

/// How many substeps each frame runs.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Substeps {
    /// This many per frame, whatever its length.
    Fixed(u32),
    /// A solver frequency in Hz, as NvCloth has it: a frame of `dt` runs
    /// `max(1, round(dt · f))` substeps (at most [`MAX_SUBSTEPS`]), so a substep stays about
    /// `1 / f` long whatever the frame rate.
    Frequency(f32),
}

impl Substeps {
    /// Substeps for a frame of `dt` seconds.
    pub fn count(self, dt: f64) -> u32 {
        match self {
            Substeps::Fixed(n) => n,
            Substeps::Frequency(f) => ((dt * f as f64).round() as u32).clamp(1, MAX_SUBSTEPS),
        }
    }
}

/// Which direction a distance constraint corrects along.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Projection {
    /// Along the current bond (Jakobsen, PBD/XPBD as published). Bleeds energy: a rigid
    /// pendulum slows down.
    Jakobsen,
    /// Along the bond at the start of the step (SHAKE, from molecular dynamics), which keeps
    /// position Verlet time-reversible: a rigid pendulum keeps its swing.
    #[default]
    Shake,
}

crate::names::named_enum!(Projection "projection" {
    Jakobsen => "jakobsen",
    Shake => "shake",
});

/// Long-range attachments: each free particle may be at most `scale` times its geodesic
/// distance (through the constraint graph) from its nearest pinned particles.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TetherParams {
    /// Slack allowed on the geodesic distance, ≥ 1. Default 1.0.
    pub scale: f32,
    /// Fraction of a tether's violation corrected per substep, in (0, 1]. Default 1.
    pub stiffness: f32,
}

impl Default for TetherParams {
    fn default() -> Self {
        Self {
            scale: 1.0,
            stiffness: 1.0,
        }
    }
}

/// Self-collision: every particle keeps [`SelfCollision::thickness`] from every particle that
/// is not its neighbour at rest, so a cloth does not pass through itself, and in a
/// [`crate::World`] cloths do not pass through each other. Particles alone let cloth slip
/// between them unless the distance is about an edge: the automatic thickness is
/// [`AUTO_SELF_THICKNESS`] times the longest mean edge of the cloths, which keeps any two
/// triangles of a grid apart (`docs/contact.md`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SelfCollision {
    /// The distance kept between particles (m), or `None` for the automatic one. Default
    /// `None`.
    pub thickness: Option<f32>,
    /// Coulomb friction between touching particles. Default 0.
    pub friction: f32,
}

/// The automatic self-collision thickness, in the cloths' mean edge lengths: above √2 (a grid
/// triangle's longest edge over its shortest), so two layers that keep it apart cannot have
/// crossing triangles.
pub const AUTO_SELF_THICKNESS: f32 = 1.5;

/// How the solver advances the cloth. Every field can change between frames.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SolverParams {
    /// Gravity as an acceleration (m/s²). Default `(0, -9.81, 0)`.
    pub gravity: Vec3,
    /// Velocity decay rate (1/s): each step keeps `exp(-damping · h)` of the implied velocity,
    /// so the decay does not depend on the frame rate. 0 disables damping. Default 0.5.
    pub damping: f32,
    /// Constraint relaxation sweeps per substep (over every color). Default 1: with small
    /// substeps, one sweep each converges best per unit of work.
    pub iterations: u32,
    /// Substeps per `step(dt)` call; each is `dt / substeps` long. Default
    /// [`Substeps::Frequency`]`(`[`DEFAULT_FREQUENCY`]`)`.
    pub substeps: Substeps,
    /// XPBD compliance per constraint kind (m/N). Default [`Compliance::default`].
    pub compliance: Compliance,
    /// Constraint direction. Default [`Projection::Shake`].
    pub projection: Projection,
    /// Over-relaxation factor of each constraint correction, in [1, 2). Default 1 (none).
    pub over_relaxation: f32,
    /// Long-range attachments to the pinned particles, or `None`. Default on.
    pub tethers: Option<TetherParams>,
    /// Solve the cloth's coarse levels (hierarchical PBD, `src/hierarchy/`) before its own
    /// constraints each substep, so a pull crosses a large cloth in one substep instead of a few
    /// particles per sweep. Grids get subgrids, meshes and ropes graph levels; a cloth too
    /// small to need them, or on a [`crate::World`]'s fused path, has none. Default on.
    pub coarse_levels: bool,
    /// Distance (m) from the scene's centre (the centre of the cloths' and colliders'
    /// bounding box at rest) beyond which a particle counts as diverged (the health check), or
    /// `None` for the automatic limit: [`AUTO_LIMIT_SCALE`] times the scene's half-diagonal,
    /// and at least [`AUTO_LIMIT_MIN`]. Default `None`.
    pub max_distance: Option<f32>,
    /// Integration scheme. Default [`Integrator::TimeCorrected`].
    pub integrator: Integrator,
    /// The bodies the cloth cannot enter, any number, each with its own pose, thickness,
    /// friction and restitution ([`Collider`]). Move one by changing its pose between frames
    /// ([`crate::World::set_collider_pose`]); a collider is matched to its pose of the previous
    /// frame by its place in this list. Default none.
    pub colliders: Vec<Collider>,
    /// The air the cloth moves through: wind (a velocity, with gusts) and the drag and lift
    /// it puts on each triangle ([`Air`]), or `None`: a vacuum, no air at all. Default `None`.
    pub air: Option<Air>,
    /// Self-collision (and, in a world, collision between the cloths), or `None`. Cloths of a
    /// world all take the global path while it is on (the fused kernel solves each cloth on
    /// its own). Default `None`: it costs a spatial hash and a neighbour search each substep.
    pub self_collision: Option<SelfCollision>,
    /// The longest a structural edge (a grid's row or column, a mesh's or a rope's edge) may
    /// be after contact, as a multiple of its rest length, or `None` for no limit. Contact is
    /// what stretches cloth past what one sweep restores (a sheet caught by a sphere or a
    /// table while the rest of it still falls); tethers do this job for pinned cloth. So the
    /// limit runs in frames with contact (colliders or self-collision; every frame when
    /// [`Self::strain_limit_frames`] is [`LimitFrames::All`]): after each substep's collide
    /// stage, [`LIMIT_SWEEPS`] sweep over the limit's own colors shortens each edge longer
    /// than [`Self::limit_aim`] back to it, moving its ends by their inverse masses
    /// (`limit_pair` in `shaders/common.wgsl`: `limit_color` on the global path, the fused
    /// kernel's `limit_strain` on the fused path), and the frame's last substep sweeps
    /// [`LIMIT_CONTACT_END_SWEEPS`] times, over-relaxed, then collides again
    /// ([`Self::end_sweeps`]), so that every frame ends within the limit; in frames with a
    /// box, one sweep a substep that holds what static friction holds ([`Self::limit_holds`]).
    /// In `[1, `[`MAX_STRAIN_LIMIT`]`]`.
    /// Default `Some(`[`DEFAULT_STRAIN_LIMIT`]`)` (docs/contact.md measures it).
    #[cfg_attr(feature = "serde", serde(default = "default_strain_limit"))]
    pub strain_limit: Option<f32>,
    /// Which frames run the strain limit: [`LimitFrames::Contact`] (the default: frames with
    /// a collider or self-collision) or [`LimitFrames::All`] (every frame ends within it, a
    /// cloth that hangs free too). A mesh whose triangulation is irregular leaves some edges
    /// stretched in the folds of a free drape (up to 1.29 × on the standard scene's jittered
    /// Delaunay sheet, where a grid stays at 1.12); `All` with a limit of 1.05 holds them at
    /// 1.08 (docs/quality.md, "The limit at the frame's end"), for a third more time.
    #[cfg_attr(feature = "serde", serde(default))]
    pub strain_limit_frames: LimitFrames,
}

/// Which frames run the strain limit ([`SolverParams::strain_limit_frames`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum LimitFrames {
    /// Frames with contact (a collider or self-collision), where the limit is contact's tether;
    /// hanging cloth costs what it did without it.
    #[default]
    Contact,
    /// Every frame: frames with contact as [`Self::Contact`], and the last substep of a frame
    /// without contact sweeps the limit [`LIMIT_END_SWEEPS`] times too, over-relaxed
    /// ([`SolverParams::end_sweeps`]), so that each frame ends within it: what an irregular
    /// mesh's free drape needs (docs/quality.md).
    All,
}

crate::names::named_enum!(LimitFrames "strain limit frames" {
    Contact => "contact",
    All => "all",
});

/// Default [`SolverParams::strain_limit`]: an edge may reach 110 % of its rest length in
/// contact.
pub const DEFAULT_STRAIN_LIMIT: f32 = 1.1;
/// Largest [`SolverParams::strain_limit`] accepted.
pub const MAX_STRAIN_LIMIT: f32 = 10.0;

/// Parameters saved before the limit existed load with the default, not `None`.
#[cfg(feature = "serde")]
fn default_strain_limit() -> Option<f32> {
    Some(DEFAULT_STRAIN_LIMIT)
}

impl Default for SolverParams {
    fn default() -> Self {
        Self {
            gravity: Vec3::new(0.0, -STANDARD_GRAVITY, 0.0),
            damping: DEFAULT_DAMPING,
            iterations: 1,
            substeps: Substeps::Frequency(DEFAULT_FREQUENCY),
            compliance: Compliance::default(),
            projection: Projection::default(),
            over_relaxation: 1.0,
            tethers: Some(TetherParams::default()),
            coarse_levels: true,
            max_distance: None,
            integrator: Integrator::TimeCorrected,
            colliders: Vec::new(),
            air: None,
            self_collision: None,
            strain_limit: Some(DEFAULT_STRAIN_LIMIT),
            strain_limit_frames: LimitFrames::Contact,
        }
    }
}

/// Default solver frequency (Hz): 6 substeps at 60 fps. The cheapest frequency measured
/// to keep the standard scene's worst edge within 10 % of its rest length at 256² and 1024²
/// (README, Quality).
pub const DEFAULT_FREQUENCY: f32 = 360.0;
/// Largest solver frequency accepted (Hz).
pub const MAX_FREQUENCY: f32 = 10_000.0;

/// Smallest solver frequency accepted (Hz).
pub const MIN_FREQUENCY: f32 = 1.0;

/// Upper bounds that catch typos (an extra zero) before they become a hang.
pub const MAX_ITERATIONS: u32 = 1000;
/// See [`MAX_ITERATIONS`].
pub const MAX_SUBSTEPS: u32 = crate::config::STEP_PARAM_SLOTS as u32;
/// Largest acceleration magnitude accepted for gravity (m/s²): 1000 g.
pub const MAX_ACCELERATION: f32 = 9810.0;
/// Largest damping rate accepted (1/s).
pub const MAX_DAMPING: f32 = 1.0e4;
/// Largest compliance accepted (m/N).
pub const MAX_COMPLIANCE: f32 = 1.0e6;

/// Largest accepted [`Compliance::curvature`] (1/(N·m)): a bending stiffness of 10⁻¹² N·m,
/// far below any fabric's.
pub const MAX_CURVATURE_COMPLIANCE: f32 = 1.0e12;
/// Largest over-relaxation factor accepted (2 and above diverge).
pub const MAX_OVER_RELAXATION: f32 = 1.99;
/// Largest tether slack accepted.
pub const MAX_TETHER_SCALE: f32 = 100.0;
/// Smallest tether stiffness accepted (0 would be tethers off: say so with `None`).
pub const MIN_TETHER_STIFFNESS: f32 = 1.0e-6;
/// Smallest explicit divergence limit accepted (m).
pub const MIN_MAX_DISTANCE: f32 = 1.0e-3;
/// Smallest self-collision thickness accepted (m).
pub const MIN_SELF_THICKNESS: f32 = 1.0e-5;
/// Most colliders accepted (each particle tests each one, culled by bounding spheres).
pub const MAX_COLLIDERS: usize = 4096;
pub use crate::config::MAX_COORDINATE;
/// The automatic divergence limit is this many times the scene's half-diagonal...
pub const AUTO_LIMIT_SCALE: f32 = 100.0;
/// ...and at least this far from its centre (m).
pub const AUTO_LIMIT_MIN: f32 = 1000.0;
/// Default damping rate (1/s).
pub const DEFAULT_DAMPING: f32 = 0.5;
/// Standard gravity (m/s²), the default's magnitude (along −y).
pub const STANDARD_GRAVITY: f32 = 9.81;

impl SolverParams {
    /// True when there is something to collide with; without, the frame has no collide stage.
    pub fn has_colliders(&self) -> bool {
        !self.colliders.is_empty()
    }

    /// True when a box is among the colliders: then each substep also keeps the boxes' edges
    /// and corners out of the cloth's triangles, which particles alone cannot do.
    pub fn has_boxes(&self) -> bool {
        self.colliders
            .iter()
            .any(|c| matches!(c.shape, crate::Shape::Cuboid { .. }))
    }

    /// The parameters with `collider` added.
    pub fn with_collider(mut self, collider: Collider) -> Self {
        self.colliders.push(collider);
        self
    }

    /// Checks every field against the bounds below; the error names the first bad one.
    pub fn validate(&self) -> Result<()> {
        check_magnitude("gravity", "gravity", self.gravity, MAX_ACCELERATION)?;
        if let Some(air) = &self.air {
            air.validate()?;
        }
        if let Some(limit) = self.strain_limit {
            check_range("strain limit", limit, 1.0, MAX_STRAIN_LIMIT)?;
        }
        check_range("damping (1/s)", self.damping, 0.0, MAX_DAMPING)?;
        check_range("iterations", self.iterations, 0, MAX_ITERATIONS)?;
        match self.substeps {
            Substeps::Fixed(n) => check_range("substeps", n, 1, MAX_SUBSTEPS)?,
            Substeps::Frequency(f) => {
                check_range("solver frequency (Hz)", f, MIN_FREQUENCY, MAX_FREQUENCY)?
            }
        }
        for (name, a) in [
            ("stretch compliance (m/N)", self.compliance.stretch),
            ("shear compliance (m/N)", self.compliance.shear),
            ("bend compliance (m/N)", self.compliance.bend),
        ] {
            check_range(name, a, 0.0, MAX_COMPLIANCE)?;
        }
        check_range(
            "curvature compliance (1/(N·m))",
            self.compliance.curvature,
            0.0,
            MAX_CURVATURE_COMPLIANCE,
        )?;
        check_range(
            "over-relaxation",
            self.over_relaxation,
            1.0,
            MAX_OVER_RELAXATION,
        )?;
        if let Some(t) = self.tethers {
            check_range("tether scale", t.scale, 1.0, MAX_TETHER_SCALE)?;
            check_range("tether stiffness", t.stiffness, MIN_TETHER_STIFFNESS, 1.0)?;
        }
        if let Some(d) = self.max_distance {
            check_range("max distance (m)", d, MIN_MAX_DISTANCE, f32::MAX)?;
        }
        if self.colliders.len() > MAX_COLLIDERS {
            return Err(ChiffonError::InvalidParameter {
                name: "colliders",
                reason: format!(
                    "{} is more than the {MAX_COLLIDERS} chiffon takes",
                    self.colliders.len()
                ),
            });
        }
        for (k, c) in self.colliders.iter().enumerate() {
            c.validate(k)?;
        }
        if let Some(sc) = self.self_collision {
            if let Some(t) = sc.thickness {
                check_range(
                    "self-collision thickness (m)",
                    t,
                    MIN_SELF_THICKNESS,
                    crate::contact::MAX_THICKNESS,
                )?;
            }
            check_range(
                "self-collision friction",
                sc.friction,
                0.0,
                crate::contact::MAX_FRICTION,
            )?;
        }
        Ok(())
    }

    /// `lo..hi` (a bounding box) grown to take in the colliders (a plane by its point
    /// nearest the origin).
    pub(crate) fn extend_bounds(&self, mut lo: Vec3, mut hi: Vec3) -> (Vec3, Vec3) {
        for c in &self.colliders {
            let (a, b) = c.world_bounds();
            lo = lo.min(a);
            hi = hi.max(b);
        }
        (lo, hi)
    }

    /// The divergence limit (m from the scene's centre) for `scene`: [`Self::max_distance`],
    /// or the automatic one.
    pub fn divergence_limit(&self, scene_radius: f32) -> f32 {
        self.max_distance
            .unwrap_or((AUTO_LIMIT_SCALE * scene_radius).max(AUTO_LIMIT_MIN))
    }

    /// The air, when it can move anything: some wind, or drag or lift on a moving cloth.
    /// A still, frictionless air (`drag` and `lift` 0) is none.
    pub fn active_air(&self) -> Option<&Air> {
        self.air.as_ref().filter(|a| a.drag > 0.0 || a.lift > 0.0)
    }

    /// The strain limit the frames apply: [`Self::strain_limit`] when there is contact
    /// (a collider or self-collision) or [`Self::strain_limit_frames`] is
    /// [`LimitFrames::All`], else `None`.
    pub fn active_strain_limit(&self) -> Option<f32> {
        self.strain_limit.filter(|_| {
            self.strain_limit_frames == LimitFrames::All
                || self.has_colliders()
                || self.self_collision.is_some()
        })
    }

    /// What the strain limit's sweeps shorten an edge to, × its rest length, when the frame
    /// has a limit ([`Self::active_strain_limit`]): [`LIMIT_AIM`] of the limit's allowance
    /// over the rest length (1.09 for a limit of 1.1), so that what the sweeps' colors
    /// stretch of each other again leaves every edge within the limit at the substep's end
    /// (aimed at the limit itself, a sheet draped on a ball ended at 1.111). In frames with a
    /// box ([`Self::limit_holds`]) the limit itself: the edge pushes that run after it decide
    /// the stretch at the corners there, and aiming lower did not help (docs/contact.md).
    pub fn limit_aim(&self) -> Option<f32> {
        let limit = self.active_strain_limit()?;
        Some(if self.limit_holds() {
            limit
        } else {
            1.0 + (limit - 1.0) * LIMIT_AIM
        })
    }

    /// Sweeps of the strain limit in each substep of a frame with contact (a collider or
    /// self-collision): [`LIMIT_SWEEPS`] over its own colors, or one over the cloths' distance
    /// colors in frames with a box ([`Self::limit_holds`]); 0 without contact, where only
    /// [`LimitFrames::All`]'s frame-end sweeps run ([`Self::end_sweeps`]).
    pub fn limit_sweeps(&self) -> u32 {
        if !self.has_colliders() && self.self_collision.is_none() {
            0
        } else if self.limit_holds() {
            1
        } else {
            LIMIT_SWEEPS
        }
    }

    /// Sweeps of the strain limit in a frame's last substep, instead of
    /// [`Self::limit_sweeps`], each correction over-relaxed by
    /// `config::LIMIT_END_RELAX` (1.8), followed by a second collide in frames with colliders
    /// (what the sweeps pulled into a collider goes back out): [`LIMIT_CONTACT_END_SWEEPS`] in
    /// a frame with contact, whose other substeps sweep too, [`LIMIT_END_SWEEPS`] in a frame
    /// without (with [`LimitFrames::All`]); 0 without a limit ([`Self::active_strain_limit`]),
    /// and in frames with a box, whose one sweep a substep the edge pushes after it need as it
    /// is.
    pub fn end_sweeps(&self) -> u32 {
        if self.active_strain_limit().is_none() || self.limit_holds() {
            0
        } else if self.limit_sweeps() > 0 {
            LIMIT_CONTACT_END_SWEEPS
        } else {
            LIMIT_END_SWEEPS
        }
    }

    /// True when the strain limit holds the particles that static friction holds, as it holds
    /// a pin: in frames with a box, whose edge pushes run after the limit and need a corner's
    /// stuck particles to stay where they are (three sweeps that move them leave a sheet on a
    /// box at 1.50 × at its corners, one sweep that holds them 1.17). Elsewhere the limit
    /// moves them: no friction holds against cloth stretched past its limit, and a stuck
    /// particle held fixed kept the edges between two supports stretched for good.
    pub fn limit_holds(&self) -> bool {
        self.has_boxes()
    }
}

/// Sweeps of the strain limit ([`SolverParams::strain_limit`]) over its own colors each
/// substep of a frame with contact and no box ([`SolverParams::limit_sweeps`]) but the last,
/// which sweeps [`LIMIT_CONTACT_END_SWEEPS`] times. With the frame-end sweeps, one a substep
/// ends every contact scene of docs/contact.md as four did (within 0.005 at rest and in the
/// worst frame), for 60 fewer dispatches a frame. Its own colors are a copy of the cloth's
/// structural edges colored apart (`Hierarchy::strain_colors`), 4 on a grid.
pub const LIMIT_SWEEPS: u32 = 1;

/// Sweeps of the strain limit at the end of a frame without contact, with
/// [`LimitFrames::All`] ([`SolverParams::end_sweeps`]), in the frame's last substep,
/// over-relaxed. Measured on the irregular 192² sheet of docs/quality.md ("The limit at the
/// frame's end"), worst edge in any frame from 5 to 70 / at rest: 12 sweeps 1.156 / 1.045, 16
/// 1.110, 20 1.080 / 1.045, 24 1.060; four plain sweeps in every substep (24 a frame) left
/// 1.292 / 1.071.
pub const LIMIT_END_SWEEPS: u32 = 20;

/// Sweeps of the strain limit at the end of a frame with contact and no box
/// ([`SolverParams::end_sweeps`]), over-relaxed, after which the frame collides again: fewer
/// than [`LIMIT_END_SWEEPS`], since every other substep of such a frame sweeps too. On the
/// contact scenes of docs/contact.md (worst frame / max at rest) 12 did what 20 did to the last
/// digit but on the chaotic heap (every scene 1.090–1.118 / 1.090–1.095, from 1.16–1.24 /
/// 1.09–1.11 with four sweeps a substep and none at the end); 8 left the towel's worst frame
/// at 1.102 and the walking cape's at 1.110.
pub const LIMIT_CONTACT_END_SWEEPS: u32 = 12;

/// The share of the strain limit's allowance over the rest length that its sweeps aim at
/// ([`SolverParams::limit_aim`]): a margin for what one color's corrections stretch of
/// another's, which four sweeps leave at about 1 % of the rest length.
pub const LIMIT_AIM: f32 = 0.9;

/// Largest single step accepted by `step(dt)` (s). Longer frames should be clamped by the host.
pub const MAX_DT: f64 = 1.0;
/// Smallest single step accepted by `step(dt)` (s).
pub const MIN_DT: f64 = 1.0e-7;

/// Checks a frame time handed to `step`.
pub fn validate_dt(dt: f64) -> Result<()> {
    if !dt.is_finite() || dt <= 0.0 {
        return Err(ChiffonError::InvalidParameter {
            name: "dt",
            reason: format!("{dt} s is not a positive finite time step"),
        });
    }
    check_range("dt (s)", dt, MIN_DT, MAX_DT)
}

/// The air around the cloth (`SolverParams::air`): a wind velocity with optional gusts, and
/// the aerodynamic force it puts on every triangle, from the air's velocity relative to the
/// triangle `u` (the wind at the particle minus the triangle's mean velocity), its area `A`
/// and unit normal `n` (NvCloth's and FleX's model: drag along the flow, lift across it):
///
/// ```text
/// drag = ½ ρ C_d A |cos θ| |u| u                 cos θ = n · u / |u|
/// lift = ½ ρ C_l A |u|² cos θ (n − cos θ û)       (across u, in the plane of n and u)
/// ```
///
/// So a plate facing the wind feels `½ ρ C_d A |u|²` and no lift, one edge-on feels nothing,
/// and lift is largest at 45°. Each triangle's force goes a third to each of its particles;
/// the air acts once a frame, as a change of velocity, never more than the particle's speed
/// relative to the wind (so a gale cannot fling a light cloth past the air itself). Runs on
/// every path, the same on the GPU and the CPU reference (`shaders/air.wgsl` ↔
/// `src/cpu/air.rs`).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Air {
    /// The mean wind, a velocity (m/s). Default zero: still air, which only drags.
    pub wind: Vec3,
    /// The air's density ρ (kg/m³). Default 1.2 (air at 20 °C, sea level).
    pub density: f32,
    /// Drag coefficient C_d. Default 1.0 (a flat plate facing the flow is about 1.2).
    pub drag: f32,
    /// Lift coefficient C_l. Default 0.5.
    pub lift: f32,
    /// Gusts: the turbulence's strength as a fraction of the mean wind's speed (0: steady;
    /// 0.3 is a gusty day). The gusts are smooth noise, two octaves, carried downwind at the
    /// mean wind's speed (frozen turbulence). Default 0.
    pub gusts: f32,
    /// The size of the largest gusts (m). Default 2.
    pub gust_size: f32,
    /// The gusts' seed: the same seed gives the same gusts, on both backends. Default 0.
    pub seed: u32,
}

impl Default for Air {
    fn default() -> Self {
        Self {
            wind: Vec3::ZERO,
            density: 1.2,
            drag: 1.0,
            lift: 0.5,
            gusts: 0.0,
            gust_size: 2.0,
            seed: 0,
        }
    }
}

/// Largest wind speed accepted (m/s): beyond a hurricane's.
pub const MAX_WIND_SPEED: f32 = 300.0;
/// Largest air density accepted (kg/m³): water's (a cloth under water is still "in air").
pub const MAX_AIR_DENSITY: f32 = 1000.0;
/// Largest drag or lift coefficient accepted.
pub const MAX_AIR_COEFFICIENT: f32 = 100.0;
/// Largest gust strength accepted (times the mean speed).
pub const MAX_GUSTS: f32 = 10.0;
/// Smallest and largest gust size accepted (m).
pub const GUST_SIZE_RANGE: (f32, f32) = (1.0e-3, 1.0e4);

impl Air {
    /// Default air blowing at `wind` (m/s).
    pub fn wind(wind: Vec3) -> Self {
        Self {
            wind,
            ..Self::default()
        }
    }

    /// The air with gusts of strength `gusts` (fraction of the mean speed).
    pub fn with_gusts(self, gusts: f32) -> Self {
        Self { gusts, ..self }
    }

    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<()> {
        check_magnitude("wind (m/s)", "wind speed (m/s)", self.wind, MAX_WIND_SPEED)?;
        check_range("air density (kg/m³)", self.density, 0.0, MAX_AIR_DENSITY)?;
        check_range("drag coefficient", self.drag, 0.0, MAX_AIR_COEFFICIENT)?;
        check_range("lift coefficient", self.lift, 0.0, MAX_AIR_COEFFICIENT)?;
        check_range("gusts", self.gusts, 0.0, MAX_GUSTS)?;
        check_range(
            "gust size (m)",
            self.gust_size,
            GUST_SIZE_RANGE.0,
            GUST_SIZE_RANGE.1,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Collider;

    /// The scene's extent takes in each collider's thickness, where the cloth it pushes comes
    /// to rest: a free sheet resting on a sphere, a floor or a mesh padded by 1000 m (the
    /// largest thickness accepted) was past the divergence limit and called diverged. (A test
    /// through a solver cannot show it now: a cloth set down inside the padding takes 333 s to
    /// come out at `config::ESCAPE_SPEED`, and one set down outside it is in the scene itself.)
    #[test]
    fn the_scenes_extent_takes_in_a_colliders_thickness() {
        let thick = crate::contact::MAX_THICKNESS;
        for collider in [
            Collider::sphere(Vec3::ZERO, 0.3),
            Collider::ground(0.0),
            Collider::cuboid(Vec3::ZERO, Vec3::splat(0.2), glam::Quat::IDENTITY),
        ] {
            let params = SolverParams {
                colliders: vec![collider.clone().thickness(thick)],
                ..SolverParams::default()
            };
            let (lo, hi) = params.extend_bounds(Vec3::ZERO, Vec3::ZERO);
            let radius = (hi - lo).length() * 0.5;
            assert!(
                params.divergence_limit(radius) > 2.0 * thick,
                "{collider:?}: the limit {} does not reach a cloth resting {thick} m out",
                params.divergence_limit(radius)
            );
        }
    }
}
