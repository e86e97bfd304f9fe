//! What the control panel edits, how it starts, and [`Settings::params`]: the demo's one
//! mapping from its settings to the solver's [`SolverParams`].
//!
//! Adding a toggle:
//! - if it is a field of [`SolverParams`], nothing here: the panel edits `settings.solver`
//!   directly, so one checkbox in `panel::solver_rows` is all it takes (as coarse levels and
//!   self-collision are);
//! - otherwise a `bool` in [`Settings`], its starting value in [`Settings::new`], what it sets
//!   in [`Settings::params`], and its checkbox in `panel.rs`;
//! - a key for it, if any, in `input::key`.

use glam::Vec3;

use super::colliders::Colliders;
use super::scene;
use crate::params::{DEFAULT_FREQUENCY, SolverParams, Substeps, TetherParams};
use crate::tools::scenes::{self, DemoScene};

/// Everything the control panel edits.
pub(crate) struct Settings {
    pub(crate) scene: DemoScene,
    /// Grid resolution N (N×N) of the cloth scene.
    pub(crate) grid: u32,
    /// Flags per side of the flags scene.
    pub(crate) flags: u32,
    /// The mesh shown instead of the grid, if any.
    pub(crate) mesh: Option<crate::ClothBuilder>,
    /// The solver's settings the panel edits directly (integrator, iterations, damping,
    /// compliance, projection, over-relaxation, coarse levels); [`Settings::params`] sets the
    /// rest from the fields below.
    pub(crate) solver: SolverParams,
    /// Substeps from a solver frequency (Hz) when `use_frequency`, else `fixed_substeps` per
    /// frame; both are kept while the other is in use.
    pub(crate) use_frequency: bool,
    pub(crate) frequency: f32,
    pub(crate) fixed_substeps: u32,
    pub(crate) tethers_on: bool,
    pub(crate) tether_scale: f32,
    /// Gravity (m/s², downwards).
    pub(crate) gravity: f32,
    pub(crate) wind_on: bool,
    /// Wind (m/s²), blowing along the heading (° about +y, 0 = +z).
    pub(crate) wind_strength: f32,
    pub(crate) wind_heading_deg: f32,
    /// The scene's bodies, the sphere and the ground.
    pub(crate) colliders: Colliders,
    /// A random frame time each frame (30–144 fps), to show what each integrator does with it.
    pub(crate) jitter: bool,
    pub(crate) paused: bool,
    /// Advance one frame while paused.
    pub(crate) step_once: bool,
}

impl Settings {
    /// How the demo starts showing `scene`: [`scenes::demo_params`] with the scene's wind,
    /// colliders and self-collision ([`Settings::enter`]); `grid` and `mesh` for the cloth
    /// scene (`grid` sets the resolution of the heap's towel, the cape and the tablecloth too),
    /// `flags` per side for the flags.
    pub(crate) fn new(
        scene: DemoScene,
        grid: u32,
        flags: u32,
        mesh: Option<crate::ClothBuilder>,
    ) -> Self {
        let p = scenes::demo_params();
        let (wind_on, wind_strength, wind_heading_deg) = scene::wind(scene);
        let mut settings = Self {
            scene,
            grid,
            flags,
            mesh,
            use_frequency: matches!(p.substeps, Substeps::Frequency(_)),
            frequency: match p.substeps {
                Substeps::Frequency(f) => f,
                Substeps::Fixed(_) => DEFAULT_FREQUENCY,
            },
            fixed_substeps: p.substeps.count(scenes::STANDARD_DT),
            tethers_on: p.tethers.is_some(),
            tether_scale: p.tethers.unwrap_or_default().scale,
            gravity: -p.gravity.y,
            wind_on,
            wind_strength,
            wind_heading_deg,
            colliders: Colliders::for_scene(scene),
            jitter: false,
            paused: false,
            step_once: false,
            solver: p,
        };
        settings.enter(scene);
        settings
    }

    /// Shows `scene` with its own wind, colliders and self-collision (the heap's is on, the
    /// others' off); the rest of the panel's settings stay as they are.
    pub(crate) fn enter(&mut self, scene: DemoScene) {
        self.scene = scene;
        (self.wind_on, self.wind_strength, self.wind_heading_deg) = scene::wind(scene);
        self.colliders = Colliders::for_scene(scene);
        self.solver.self_collision = scenes::demo_self_collision(scene);
    }

    /// The solver's parameters these settings ask for (the demo's only mapping to them).
    pub(crate) fn params(&self) -> SolverParams {
        let mut params = SolverParams {
            gravity: Vec3::new(0.0, -self.gravity, 0.0),
            wind: if self.wind_on {
                crate::tools::scenes::wind_vector(self.wind_strength, self.wind_heading_deg)
            } else {
                Vec3::ZERO
            },
            substeps: if self.use_frequency {
                Substeps::Frequency(self.frequency)
            } else {
                Substeps::Fixed(self.fixed_substeps)
            },
            tethers: self.tethers_on.then_some(TetherParams {
                scale: self.tether_scale,
                ..TetherParams::default()
            }),
            ..self.solver.clone()
        };
        self.colliders.apply(&mut params);
        params
    }
}
