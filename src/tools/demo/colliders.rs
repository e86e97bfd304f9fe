//! The sphere and the ground, all of their handling in this one file: what the panel holds,
//! how each scene starts them, their panel rows, the arrow keys that move the sphere, what they
//! set in the solver's parameters, and what the renderer is told to draw.
//!
//! The solver sees them as [`crate::Collider`]s ([`scenes::demo_colliders`]); nothing else in
//! the demo names them.

use glam::Vec3;
use winit::keyboard::KeyCode;

use crate::params::SolverParams;
use crate::tools::scenes::{self, DemoScene, DemoSphere};

/// Metres the sphere moves per arrow-key press.
const NUDGE: f32 = 0.05;

/// The colliders as the panel edits them.
pub(crate) struct Colliders {
    sphere_on: bool,
    /// Kept while the sphere is off, so turning it back on restores it.
    sphere: DemoSphere,
    ground_on: bool,
    /// Ground height (m).
    ground: f32,
}

impl Colliders {
    /// How `scene` starts: the demo's sphere and the ground at 0, the sphere only where the
    /// scene has something to fall on it.
    pub(crate) fn for_scene(scene: DemoScene) -> Self {
        let sphere_on = match scene {
            DemoScene::Cloth => true,
            // The flags fly over the ground only.
            DemoScene::Flags => false,
        };
        Self {
            sphere_on,
            sphere: scenes::DEMO_SPHERE,
            ground_on: true,
            ground: 0.0,
        }
    }

    /// Writes the colliders into `params` (for [`super::settings::Settings::params`], the
    /// demo's one mapping to solver parameters).
    pub(crate) fn apply(&self, params: &mut SolverParams) {
        params.colliders = scenes::demo_colliders(
            self.ground_on.then_some(self.ground),
            self.sphere_on.then_some(self.sphere),
        );
    }

    /// What the renderer draws: the sphere (centre, radius in m) and the ground height, when
    /// on.
    pub(crate) fn drawn(&self) -> (Option<(Vec3, f32)>, Option<f32>) {
        (
            self.sphere_on
                .then_some((self.sphere.center, self.sphere.radius)),
            self.ground_on.then_some(self.ground),
        )
    }

    /// The arrow keys move the sphere over the ground; true when `key` was one of them.
    pub(crate) fn key(&mut self, key: KeyCode) -> bool {
        let step = match key {
            KeyCode::ArrowLeft => Vec3::new(-NUDGE, 0.0, 0.0),
            KeyCode::ArrowRight => Vec3::new(NUDGE, 0.0, 0.0),
            KeyCode::ArrowUp => Vec3::new(0.0, 0.0, -NUDGE),
            KeyCode::ArrowDown => Vec3::new(0.0, 0.0, NUDGE),
            _ => return false,
        };
        self.sphere.center += step;
        true
    }

    /// The panel's collider rows.
    pub(crate) fn rows(&mut self, ui: &mut egui::Ui) {
        let s = &mut self.sphere;
        ui.checkbox(&mut self.sphere_on, "sphere (arrow keys move it)");
        ui.add(egui::Slider::new(&mut s.center.x, -1.0..=1.0).text("sphere x"));
        ui.add(egui::Slider::new(&mut s.center.y, -0.5..=1.5).text("sphere y"));
        ui.add(egui::Slider::new(&mut s.center.z, -1.0..=1.0).text("sphere z"));
        ui.add(egui::Slider::new(&mut s.radius, 0.05..=0.6).text("sphere radius"));
        ui.checkbox(&mut self.ground_on, "ground");
    }
}
