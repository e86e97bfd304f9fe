//! What differs from one scene to another, in one file: its cloths, the path that solves them,
//! its wind and self-collision at the start, what it moves by itself each frame (`scenes::Motion`),
//! and how the camera frames it.
//!
//! Adding a scene:
//! 1. its variant in [`DemoScene`] and its builders in `src/scenes/mod.rs`; `--scene` and the
//!    panel's scene menu list `DemoScene::ALL`, so they offer it at once (its line in the
//!    `--scene` help is in `tools/cli/mod.rs`);
//! 2. an arm in each `match` here and in [`crate::panel::Colliders::for_scene`] (the
//!    compiler points at every one);
//! 3. only if it has a knob of its own (as the flags have their count): a field in
//!    [`Settings`] and a row in `scene_rows` (`src/panel/controls.rs`).
//!
//! Grab, the pin toggle, stretch, the self-collision toggle and the HUD work on any world, and
//! the renderer draws any sphere, capsule, box and ground the world has, so a new scene has
//! them.

use anyhow::Result;

use super::sim::Sim;
use crate::Backend;
use crate::cloth::Cloth;
use crate::panel::Settings;
use crate::tools::scenes::{self, DemoScene, Motion};
use crate::view::camera::OrbitCamera;
use crate::world::PathChoice;

/// The world of the scene the settings show, on `backend` (the demo's GPU; the tests' CPU).
pub(crate) fn build(backend: Backend<'_>, s: &Settings) -> Result<Sim> {
    let (cloths, collar) = s.cloths()?;
    let mut sim = Sim::new(backend, &cloths, s.params(), paths(s.scene))?;
    let handle = sim.world.handles()[0];
    sim.motion = Motion::of(s.scene, handle, collar);
    Ok(sim)
}

/// Which path solves the scene's cloths.
fn paths(scene: DemoScene) -> PathChoice {
    scenes::demo_paths(scene)
}

/// A camera that frames the scene, given the cloths' rest positions
/// ([`scenes::demo_view`]).
pub(crate) fn camera(s: &Settings, surface: &Cloth) -> OrbitCamera {
    OrbitCamera::from(scenes::demo_view(
        s.scene,
        surface.positions(),
        s.mesh.is_some(),
    ))
}
