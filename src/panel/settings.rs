//! What the control panel edits, how it starts, and [`Settings::params`]: the demo's one
//! mapping from its settings to the solver's [`SolverParams`].
//!
//! Adding a toggle:
//! - if it is a field of [`SolverParams`], nothing here: the panel edits `settings.solver`
//!   directly, so one checkbox in `controls::solver_rows` is all it takes (as coarse levels and
//!   self-collision are);
//! - otherwise a `bool` in [`Settings`], its starting value in [`Settings::new`], what it sets
//!   in [`Settings::params`], and its checkbox in `controls.rs`;
//! - a key for it, if any, in [`Key`] and [`Settings::key`].

use glam::Vec3;

use super::colliders::Colliders;
use crate::params::{DEFAULT_FREQUENCY, SolverParams, Substeps, TetherParams};
use crate::scenes::{self, DemoCloths, DemoScene};
use crate::world::ClothOptions;

/// What a key or a panel button asks of the demo beyond a change of settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Build the scene again (another scene, resolution, flag count, or the grid again in
    /// place of a mesh).
    Rebuild,
    /// Every cloth back to its start.
    Reset,
    /// Release the cloths' pins, or hold them again.
    TogglePins,
}

/// Everything the control panel edits.
pub struct Settings {
    pub scene: DemoScene,
    /// Grid resolution N (N×N) of the cloth scene.
    pub grid: u32,
    /// Flags per side of the flags scene.
    pub flags: u32,
    /// The mesh shown instead of the grid, if any.
    pub mesh: Option<crate::ClothBuilder>,
    /// What holds every scene's cloths, the mesh's too (a rebuild applies it).
    pub membrane: crate::Membrane,
    /// The solver's settings the panel edits directly (integrator, iterations, damping,
    /// compliance, projection, over-relaxation, coarse levels); [`Settings::params`] sets the
    /// rest from the fields below.
    pub solver: SolverParams,
    /// Substeps from a solver frequency (Hz) when `use_frequency`, else `fixed_substeps` per
    /// frame; both are kept while the other is in use.
    pub use_frequency: bool,
    pub frequency: f32,
    pub fixed_substeps: u32,
    pub tethers_on: bool,
    pub tether_scale: f32,
    /// Gravity (m/s², downwards).
    pub gravity: f32,
    /// The air ([`crate::Air`]) on or off; off is a vacuum, as before air was modelled.
    pub wind_on: bool,
    /// Wind speed (m/s), blowing along the heading (° about +y, 0 = +z).
    pub wind_strength: f32,
    pub wind_heading_deg: f32,
    /// Gusts, as a fraction of the wind speed ([`crate::Air::gusts`]).
    pub gusts: f32,
    /// Drag and lift coefficients ([`crate::Air::drag`], [`crate::Air::lift`]).
    pub drag: f32,
    pub lift: f32,
    /// The scene's bodies, the sphere and the ground.
    pub colliders: Colliders,
    /// A random frame time each frame (30–144 fps), to show what each integrator does with it.
    pub jitter: bool,
    pub paused: bool,
    /// Advance one frame while paused.
    pub step_once: bool,
}

impl Settings {
    /// How the demo starts showing `scene`: [`scenes::demo_params`] with the scene's wind,
    /// colliders and self-collision ([`Settings::enter`]); `grid` and `mesh` for the cloth
    /// scene (`grid` sets the resolution of the heap's towel, the cape and the tablecloth too),
    /// `flags` per side for the flags.
    pub fn new(scene: DemoScene, grid: u32, flags: u32, mesh: Option<crate::ClothBuilder>) -> Self {
        let p = scenes::demo_params();
        let (wind_on, wind_strength, wind_heading_deg) = scenes::demo_wind(scene);
        let mut settings = Self {
            scene,
            grid,
            flags,
            mesh,
            membrane: crate::Membrane::Edges,
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
            gusts: scenes::demo_gusts(scene),
            drag: crate::Air::default().drag,
            lift: crate::Air::default().lift,
            colliders: Colliders::for_scene(scene, flags),
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
    pub fn enter(&mut self, scene: DemoScene) {
        self.scene = scene;
        (self.wind_on, self.wind_strength, self.wind_heading_deg) = scenes::demo_wind(scene);
        self.gusts = scenes::demo_gusts(scene);
        self.colliders = Colliders::for_scene(scene, self.flags);
        self.solver.self_collision = scenes::demo_self_collision(scene);
    }

    /// What a key press does: a setting changed here, or an [`Action`] for the demo to carry
    /// out (the same as the panel's button for it).
    pub fn key(&mut self, key: Key) -> Option<Action> {
        match key {
            Key::Space => self.paused = !self.paused,
            Key::N => self.step_once = true,
            Key::W => self.wind_on = !self.wind_on,
            Key::R => return Some(Action::Reset),
            Key::P => return Some(Action::TogglePins),
            Key::Left => self.colliders.nudge_sphere(Vec3::new(-1.0, 0.0, 0.0)),
            Key::Right => self.colliders.nudge_sphere(Vec3::new(1.0, 0.0, 0.0)),
            Key::Up => self.colliders.nudge_sphere(Vec3::new(0.0, 0.0, -1.0)),
            Key::Down => self.colliders.nudge_sphere(Vec3::new(0.0, 0.0, 1.0)),
        }
        None
    }

    /// The time step of this frame (s), or `None` while paused (a step asked for while paused
    /// is taken once). `fixed` is a screenshot's or a measurement's step; otherwise the frame
    /// time jitters when asked to (`uniform`, a random number in [0, 1), picks it between 30
    /// and 144 fps) or is the measured `wall_dt`, clamped so a stall does not become a huge
    /// step.
    pub fn frame_dt(&mut self, wall_dt: f64, fixed: Option<f64>, uniform: f64) -> Option<f64> {
        if self.paused && !self.step_once {
            return None;
        }
        self.step_once = false;
        Some(match fixed {
            Some(dt) => dt,
            None if self.jitter => 1.0 / (30.0 + uniform.clamp(0.0, 1.0) * (144.0 - 30.0)),
            None => wall_dt.clamp(1.0 / 240.0, 1.0 / 30.0),
        })
    }

    /// The cloths of the scene shown ([`scenes::demo_cloths`]), or the mesh in the cloth
    /// scene, and the particles of the cape's collar (empty but for the character).
    pub fn cloths(&self) -> crate::Result<DemoCloths> {
        Ok(match (&self.mesh, self.scene) {
            (Some(builder), DemoScene::Cloth) => (
                vec![(
                    builder.clone().membrane(self.membrane).build()?,
                    ClothOptions::default(),
                )],
                Vec::new(),
            ),
            _ => scenes::demo_cloths(self.scene, self.grid, self.flags, self.membrane)?,
        })
    }

    /// The solver's parameters these settings ask for (the demo's only mapping to them).
    pub fn params(&self) -> SolverParams {
        let mut params = SolverParams {
            gravity: Vec3::new(0.0, -self.gravity, 0.0),
            air: self.wind_on.then(|| crate::Air {
                wind: scenes::wind_vector(self.wind_strength, self.wind_heading_deg),
                gusts: self.gusts,
                drag: self.drag,
                lift: self.lift,
                ..crate::Air::default()
            }),
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

/// The demo's keys (each window system's key codes map onto these).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// Pause or run.
    Space,
    /// One step while paused.
    N,
    /// Wind on or off.
    W,
    /// Reset.
    R,
    /// Release the pins or hold them again.
    P,
    /// The arrows move the sphere over the ground.
    Left,
    /// See [`Key::Left`].
    Right,
    /// See [`Key::Left`].
    Up,
    /// See [`Key::Left`].
    Down,
}

impl Key {
    /// The key of a W3C `KeyboardEvent.code` (`"Space"`, `"KeyN"`, `"ArrowLeft"`, ...), which is
    /// also the name of winit's `KeyCode` for it.
    pub fn from_code(code: &str) -> Option<Key> {
        Some(match code {
            "Space" => Key::Space,
            "KeyN" => Key::N,
            "KeyW" => Key::W,
            "KeyR" => Key::R,
            "KeyP" => Key::P,
            "ArrowLeft" => Key::Left,
            "ArrowRight" => Key::Right,
            "ArrowUp" => Key::Up,
            "ArrowDown" => Key::Down,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_paused_demo_steps_only_when_asked_and_frame_times_stay_in_range() {
        let mut s = Settings::new(DemoScene::Cloth, 16, 2, None);
        assert_eq!(s.frame_dt(0.02, None, 0.5), Some(0.02));
        // A stall is not a huge step, nor a burst a tiny one.
        assert_eq!(s.frame_dt(2.0, None, 0.5), Some(1.0 / 30.0));
        assert_eq!(s.frame_dt(0.0, None, 0.5), Some(1.0 / 240.0));
        assert_eq!(s.frame_dt(2.0, Some(0.125), 0.5), Some(0.125), "fixed");
        s.jitter = true;
        for u in [0.0, 0.3, 0.999, 1.0, -1.0, 7.0] {
            let dt = s.frame_dt(0.02, None, u).unwrap();
            assert!((1.0 / 144.0..=1.0 / 30.0).contains(&dt), "{u}: {dt}");
        }
        assert_eq!(s.key(Key::Space), None);
        assert_eq!(s.frame_dt(0.02, None, 0.5), None, "paused");
        assert_eq!(s.key(Key::N), None);
        assert!(s.frame_dt(0.02, None, 0.5).is_some(), "one step");
        assert_eq!(s.frame_dt(0.02, None, 0.5), None, "then paused again");
    }

    #[test]
    fn the_keys_do_what_their_buttons_do() {
        let mut s = Settings::new(DemoScene::Cloth, 16, 2, None);
        assert_eq!(s.key(Key::R), Some(Action::Reset));
        assert_eq!(s.key(Key::P), Some(Action::TogglePins));
        let wind = s.wind_on;
        s.key(Key::W);
        assert_ne!(s.wind_on, wind);
        let sphere = |s: &Settings| {
            s.params()
                .colliders
                .iter()
                .find_map(|c| match c.shape {
                    crate::Shape::Sphere { .. } => Some(c.pose.translation),
                    _ => None,
                })
                .expect("the cloth scene has its sphere")
        };
        let before = sphere(&s);
        s.key(Key::Left);
        s.key(Key::Down);
        let moved = sphere(&s) - before;
        assert!(moved.x < 0.0 && moved.z > 0.0 && moved.y == 0.0, "{moved}");
        // The DOM's key codes (and winit's names for them).
        assert_eq!(Key::from_code("ArrowLeft"), Some(Key::Left));
        assert_eq!(Key::from_code("KeyP"), Some(Key::P));
        assert_eq!(Key::from_code("KeyQ"), None);
    }
}
