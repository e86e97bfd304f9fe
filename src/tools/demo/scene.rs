//! What differs from one scene to another, in one file: its cloths, the path that solves them,
//! its wind and self-collision at the start, what it moves by itself each frame ([`Motion`]),
//! and how the camera frames it.
//!
//! Adding a scene:
//! 1. its variant in [`DemoScene`] and its builders in `tools/scenes.rs`; `--scene` and the
//!    panel's scene menu list `DemoScene::ALL`, so they offer it at once (its line in the
//!    `--scene` help is in `tools/cli/mod.rs`);
//! 2. an arm in each `match` here and in [`super::colliders::Colliders::for_scene`] (the
//!    compiler points at every one);
//! 3. only if it has a knob of its own (as the flags have their count): a field in
//!    [`Settings`] and a row in `panel::scene_rows`.
//!
//! Grab, the pin toggle, stretch, the self-collision toggle and the HUD work on any world, and
//! the renderer draws any sphere, capsule, box and ground the world has, so a new scene has
//! them.

use anyhow::Result;
use glam::Vec3;

use super::camera::OrbitCamera;
use super::settings::Settings;
use super::sim::Sim;
use crate::Backend;
use crate::cloth::Cloth;
use crate::params::SelfCollision;
use crate::tools::scenes::{self, DemoScene};
use crate::world::{ClothHandle, ClothOptions, PathChoice};

/// What a scene moves by itself before each step (its clock is the simulated time since the
/// start or the last reset).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Motion {
    /// Nothing.
    Still,
    /// The heap: the cloths' pins (the towel's corner) are let go at `at` seconds, unless the
    /// pin button did it first.
    Release {
        /// When (s).
        at: f64,
    },
    /// The character: the figure walks ([`scenes::walker_poses`]: its colliders are the first
    /// in the list) and, while the pins are held, the cape's collar particles follow its
    /// shoulders.
    Walk {
        /// The cape.
        cape: ClothHandle,
        /// Each collar particle and its place in the figure's upper body.
        collar: Vec<(u32, Vec3)>,
    },
}

/// The world of the scene the settings show, on `backend` (the demo's GPU; the tests' CPU).
pub(crate) fn build(backend: Backend<'_>, s: &Settings) -> Result<Sim> {
    let (cloths, collar) = cloths(s)?;
    let mut sim = Sim::new(backend, &cloths, s.params(), paths(s.scene))?;
    let handle = sim.world.handles()[0];
    sim.motion = match s.scene {
        DemoScene::Cloth | DemoScene::Flags | DemoScene::Table => Motion::Still,
        DemoScene::Heap => Motion::Release {
            at: scenes::HEAP_HOLD_FRAMES as f64 * scenes::STANDARD_DT,
        },
        DemoScene::Character => Motion::Walk {
            cape: handle,
            collar,
        },
    };
    Ok(sim)
}

/// A scene's cloths, each with its placement and material, and the character's collar.
type SceneCloths = (Vec<(Cloth, ClothOptions)>, Vec<(u32, Vec3)>);

/// The cloths of the scene the settings show, each with its placement and material, and the
/// character's collar (empty for the other scenes).
fn cloths(s: &Settings) -> Result<SceneCloths> {
    let one = |cloth| vec![(cloth, ClothOptions::default())];
    Ok(match s.scene {
        // The mesh, or the demo's grid with its corners pinned.
        DemoScene::Cloth => {
            let cloth = match &s.mesh {
                Some(builder) => builder.clone().build()?,
                None => scenes::demo_cloth(s.grid, true)?,
            };
            (one(cloth), Vec::new())
        }
        DemoScene::Flags => (scenes::flag_field(s.flags)?, Vec::new()),
        DemoScene::Heap => (one(scenes::heap_sheet(s.grid)?), Vec::new()),
        DemoScene::Character => {
            // A cape about as fine as a grid of the panel's resolution.
            let (cape, collar) = scenes::walker_cape((s.grid * 5 / 8).max(8), s.grid.max(8))?;
            (one(cape), collar)
        }
        DemoScene::Table => (one(scenes::tablecloth(s.grid)?), Vec::new()),
    })
}

/// Which path solves the scene's cloths.
fn paths(scene: DemoScene) -> PathChoice {
    scenes::demo_paths(scene)
}

/// The wind a scene starts with: on or off, strength (m/s²) and heading (°).
pub(crate) fn wind(scene: DemoScene) -> (bool, f32, f32) {
    scenes::demo_wind(scene)
}

/// Self-collision at the start: on for the heap (it is what the heap shows), off elsewhere
/// (the panel turns it on for any scene).
pub(crate) fn self_collision(scene: DemoScene) -> Option<SelfCollision> {
    match scene {
        DemoScene::Heap => scenes::heap_params(true).self_collision,
        DemoScene::Cloth | DemoScene::Flags | DemoScene::Character | DemoScene::Table => None,
    }
}

/// A camera that frames the scene, given the cloths' rest positions.
pub(crate) fn camera(s: &Settings, surface: &Cloth) -> OrbitCamera {
    let framing = OrbitCamera::framing(surface.positions());
    let default = OrbitCamera::default();
    match s.scene {
        // The default view is made for the grid over the sphere.
        DemoScene::Cloth if s.mesh.is_none() => default,
        DemoScene::Cloth => framing,
        // A field is wide and low: closer than a single mesh's framing, so it fills the view.
        DemoScene::Flags => OrbitCamera {
            distance: framing.distance * 0.65,
            ..framing
        },
        // Close to where the towel lands, under the corner it hangs from (the first particle).
        DemoScene::Heap => OrbitCamera {
            target: surface.positions()[scenes::HEAP_CORNER as usize] * Vec3::new(0.9, 0.0, 0.9)
                + Vec3::new(0.0, 0.3, 0.0),
            distance: 1.9,
            pitch: 0.45,
            ..default
        },
        // The circle the figure walks, seen from where, three seconds in, the figure shows the
        // camera its back and its left side.
        DemoScene::Character => OrbitCamera {
            target: Vec3::new(-scenes::WALK_RADIUS, 0.85, 0.0),
            yaw: 0.7,
            pitch: 0.22,
            distance: 3.4,
            ..default
        },
        DemoScene::Table => OrbitCamera {
            target: Vec3::new(0.0, 0.6, 0.0),
            distance: 2.2,
            pitch: 0.45,
            ..default
        },
    }
}
