//! The colliders, all of their handling in this one file: the scene's own bodies (the walking
//! figure, the table), the sphere and the ground; what the panel holds, how each scene starts
//! them, their panel rows, the arrow keys that move the sphere (`Settings::key`), and what they
//! set in the solver's parameters. The renderer draws what the world was given
//! (`render::Solids`), so a body the scene moves is drawn where the solver has it.
//!
//! The solver sees them as [`crate::Collider`]s: the scene's bodies first, in their builders'
//! order (the character's walk moves collider `k` by the figure's pose `k`), then the ground
//! and the sphere ([`scenes::demo_colliders`]).

use glam::Vec3;

use crate::Collider;
use crate::params::SolverParams;
use crate::scenes::{self, DemoScene, DemoSphere};

/// Metres the sphere moves per arrow-key press.
const NUDGE: f32 = 0.05;

/// The colliders as the panel edits them.
pub struct Colliders {
    /// The scene's own bodies, first in the solver's list.
    bodies: Vec<Collider>,
    sphere_on: bool,
    /// Kept while the sphere is off, so turning it back on restores it.
    sphere: DemoSphere,
    ground_on: bool,
    /// Ground height (m).
    ground: f32,
}

impl Colliders {
    /// How `scene` starts: its own bodies (`flags` per side of the flags scene), the ground at
    /// 0, and the demo's sphere only where the scene has something to fall on it.
    pub fn for_scene(scene: DemoScene, flags: u32) -> Self {
        Self {
            bodies: scenes::demo_bodies(scene, flags),
            // The flags fly over the ground only; the other contact scenes have their bodies.
            sphere_on: scene == DemoScene::Cloth,
            sphere: scenes::DEMO_SPHERE,
            ground_on: true,
            ground: 0.0,
        }
    }

    /// Writes the colliders into `params` (for [`super::settings::Settings::params`], the
    /// demo's one mapping to solver parameters).
    pub fn apply(&self, params: &mut SolverParams) {
        params.colliders = self.bodies.clone();
        params.colliders.extend(scenes::demo_colliders(
            self.ground_on.then_some(self.ground),
            self.sphere_on.then_some(self.sphere),
        ));
    }

    /// Moves the sphere [`NUDGE`] metres along `direction` (the arrow keys).
    pub fn nudge_sphere(&mut self, direction: Vec3) {
        self.sphere.center += NUDGE * direction;
    }

    /// The panel's collider rows.
    pub fn rows(&mut self, ui: &mut egui::Ui) {
        if !self.bodies.is_empty() {
            ui.label(format!("{} bodies of the scene", self.bodies.len()));
        }
        let s = &mut self.sphere;
        ui.checkbox(&mut self.sphere_on, "sphere (arrow keys move it)");
        ui.add(egui::Slider::new(&mut s.center.x, -1.0..=1.0).text("sphere x"));
        ui.add(egui::Slider::new(&mut s.center.y, -0.5..=1.5).text("sphere y"));
        ui.add(egui::Slider::new(&mut s.center.z, -1.0..=1.0).text("sphere z"));
        ui.add(egui::Slider::new(&mut s.radius, 0.05..=0.6).text("sphere radius"));
        ui.checkbox(&mut self.ground_on, "ground");
    }
}
