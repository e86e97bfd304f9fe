//! What differs from one scene to another, in one file: its cloths, the path that solves them,
//! its wind at the start, and how the camera frames it.
//!
//! Adding a scene (a heap of cloths, a character, a table):
//! 1. its variant in [`DemoScene`] and its builder in `tools/scenes.rs`; `--scene` and the
//!    panel's scene menu list `DemoScene::ALL`, so they offer it at once (its line in the
//!    `--scene` help is in `tools/cli/mod.rs`);
//! 2. an arm in each `match` here and in [`super::colliders::Colliders::for_scene`] (the
//!    compiler points at every one);
//! 3. only if it has a knob of its own (as the flags have their count): a field in
//!    [`Settings`] and a row in `panel::scene_rows`.
//!
//! Grab, the pin toggle, stretch and the HUD work on any world, so a new scene has them.

use anyhow::Result;

use super::camera::OrbitCamera;
use super::settings::Settings;
use super::sim::Sim;
use crate::Backend;
use crate::cloth::Cloth;
use crate::tools::scenes::{self, DemoScene};
use crate::world::{ClothOptions, PathChoice};

/// The world of the scene the settings show, on `backend` (the demo's GPU; the tests' CPU).
pub(crate) fn build(backend: Backend<'_>, s: &Settings) -> Result<Sim> {
    Sim::new(backend, &cloths(s)?, s.params(), paths(s.scene))
}

/// The cloths of the scene the settings show, each with its placement and material.
fn cloths(s: &Settings) -> Result<Vec<(Cloth, ClothOptions)>> {
    Ok(match s.scene {
        // The mesh, or the demo's grid with its corners pinned.
        DemoScene::Cloth => {
            let cloth = match &s.mesh {
                Some(builder) => builder.clone().build()?,
                None => scenes::demo_cloth(s.grid, true)?,
            };
            vec![(cloth, ClothOptions::default())]
        }
        DemoScene::Flags => scenes::flag_field(s.flags)?,
    })
}

/// Which path solves the scene's cloths.
fn paths(scene: DemoScene) -> PathChoice {
    match scene {
        // One cloth of up to 1024²: solved as a lone Solver solves it (the global path, where
        // the panel's coarse levels apply).
        DemoScene::Cloth => PathChoice::Global,
        // Many small cloths: one workgroup each where they fit.
        DemoScene::Flags => PathChoice::Auto,
    }
}

/// The wind a scene starts with: on or off, strength (m/s²) and heading (°).
pub(crate) fn wind(scene: DemoScene) -> (bool, f32, f32) {
    match scene {
        // Off, but ready for the W key: a breeze across the falling cloth.
        DemoScene::Cloth => (false, 3.0, 30.0),
        // Flags are for the wind.
        DemoScene::Flags => (true, 14.0, 70.0),
    }
}

/// A camera that frames the scene, given the cloths' rest positions.
pub(crate) fn camera(s: &Settings, surface: &Cloth) -> OrbitCamera {
    let framing = OrbitCamera::framing(surface.positions());
    match s.scene {
        // The default view is made for the grid over the sphere.
        DemoScene::Cloth if s.mesh.is_none() => OrbitCamera::default(),
        DemoScene::Cloth => framing,
        // A field is wide and low: closer than a single mesh's framing, so it fills the view.
        DemoScene::Flags => OrbitCamera {
            distance: framing.distance * 0.65,
            ..framing
        },
    }
}
