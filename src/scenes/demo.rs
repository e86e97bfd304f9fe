//! The demo's catalogue: its scenes, what each starts with (cloths, bodies, view, wind, paths,
//! self-collision), the motion a scene plays (the heap's release, the figure's walk), and the
//! demo's own cloth, sphere and ground.

use super::*;

/// What the demo shows: one cloth (the grid, or a mesh), or many (the demo holds either as one
/// [`crate::World`]). Adding a scene: its variant here and in the names below, its builder in
/// this file, and its arms in `tools/demo/scene.rs` (which says what else).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DemoScene {
    /// One cloth held by two corners falling onto a sphere ([`demo_cloth`]), or a mesh.
    #[default]
    Cloth,
    /// A field of flags in the wind, one [`crate::World`] ([`flag_field`]).
    Flags,
    /// A towel held by a corner, then dropped on the floor, where it folds onto itself
    /// ([`heap_sheet`], self-collision on).
    Heap,
    /// A cape on a walking figure of capsules ([`walker_colliders`], [`walker_cape`]).
    Character,
    /// A tablecloth dropped on a table ([`table_colliders`], [`tablecloth`]).
    Table,
}

crate::names::named_enum!(DemoScene "scene" {
    Cloth => "cloth",
    Flags => "flags",
    Heap => "heap",
    Character => "character",
    Table => "table",
});

/// A demo scene's own bodies (the walking figure's capsules, the table's boxes, the flags'
/// poles for `flags` per side), first in the solver's list of colliders, before the ground and
/// the sphere ([`demo_colliders`]).
pub fn demo_bodies(scene: DemoScene, flags: u32) -> Vec<Collider> {
    match scene {
        DemoScene::Cloth | DemoScene::Heap => Vec::new(),
        DemoScene::Flags => flag_poles(flags),
        DemoScene::Character => walker_colliders(),
        DemoScene::Table => table_colliders(),
    }
}

/// Where a demo scene's orbit camera starts: it looks at `target` from `distance` (m), turned
/// `yaw` about +y (rad; 0 looks along −z from +z) and raised `pitch` above the horizon (rad).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DemoView {
    /// Point looked at (m).
    pub target: Vec3,
    /// Angle about +y (rad).
    pub yaw: f32,
    /// Angle above the horizon (rad).
    pub pitch: f32,
    /// Distance from the target (m).
    pub distance: f32,
}

impl DemoView {
    /// The cloth scene's view: the grid falling onto the sphere.
    pub const DEFAULT: DemoView = DemoView {
        target: Vec3::new(0.0, 0.4, 0.1),
        yaw: 0.6,
        pitch: 0.4,
        distance: 2.0,
    };

    /// The default view moved to frame `positions` (a mesh placed elsewhere than the grid):
    /// looks at the middle of their bounding box from far enough to see all of it.
    pub fn framing(positions: &[Vec3]) -> Self {
        let (lo, hi) = crate::geometry::bounds(positions);
        let radius = 0.5 * (hi - lo).length();
        Self {
            target: 0.5 * (lo + hi) - Vec3::new(0.0, 0.1 * radius, 0.0),
            distance: (3.2 * radius).clamp(1.0, 50.0),
            ..Self::DEFAULT
        }
    }
}

/// Where the camera starts in `scene`, given its cloths' rest positions (the first cloth's
/// first); `mesh`: the cloth scene shows a mesh of the user's, which it frames.
pub fn demo_view(scene: DemoScene, rest: &[Vec3], mesh: bool) -> DemoView {
    let framing = DemoView::framing(rest);
    let default = DemoView::DEFAULT;
    match scene {
        DemoScene::Cloth if !mesh => default,
        DemoScene::Cloth => framing,
        // A field is wide and low: closer than a single mesh's framing, so it fills the view.
        DemoScene::Flags => DemoView {
            distance: framing.distance * 0.65,
            ..framing
        },
        // Close to where the towel lands, under the corner it hangs from.
        DemoScene::Heap => DemoView {
            target: rest[HEAP_CORNER as usize] * Vec3::new(0.9, 0.0, 0.9)
                + Vec3::new(0.0, 0.3, 0.0),
            distance: 1.9,
            pitch: 0.45,
            ..default
        },
        // The circle the figure walks, seen from where, three seconds in, the figure shows the
        // camera its back and its left side.
        DemoScene::Character => DemoView {
            target: Vec3::new(-WALK_RADIUS, 0.85, 0.0),
            yaw: 0.7,
            pitch: 0.22,
            distance: 3.4,
        },
        DemoScene::Table => DemoView {
            target: Vec3::new(0.0, 0.6, 0.0),
            distance: 2.2,
            pitch: 0.45,
            ..default
        },
    }
}

/// A demo scene's cloths, each with its placement and material, and the character's collar
/// (empty for the other scenes).
pub type DemoCloths = (Vec<(Cloth, crate::world::ClothOptions)>, Vec<(u32, Vec3)>);

/// The cloths of `scene` at resolution `grid` (the cloth scene's grid, the heap's towel, the
/// character's cape, the table's cloth) with `flags` per side of the flags scene, each held by
/// `membrane` (the demo starts with [`Membrane::Edges`]; `--membrane` and its panel switch).
pub fn demo_cloths(
    scene: DemoScene,
    grid: u32,
    flags: u32,
    membrane: Membrane,
) -> Result<DemoCloths> {
    let one = |cloth| vec![(cloth, crate::world::ClothOptions::default())];
    Ok(match scene {
        DemoScene::Cloth => (one(demo_cloth(grid, true, membrane)?), Vec::new()),
        DemoScene::Flags => (flag_field(flags, membrane)?, Vec::new()),
        DemoScene::Heap => (one(heap_sheet(grid, membrane)?), Vec::new()),
        DemoScene::Character => {
            // A cape about as fine as a grid of that resolution.
            let (cape, collar) = walker_cape((grid * 5 / 8).max(8), grid.max(8), membrane)?;
            (one(cape), collar)
        }
        DemoScene::Table => (one(tablecloth(grid, membrane)?), Vec::new()),
    })
}

/// Self-collision a demo scene starts with: on for the heap (it is what the heap shows), off
/// elsewhere (the native demo's panel turns it on for any scene).
pub fn demo_self_collision(scene: DemoScene) -> Option<SelfCollision> {
    match scene {
        DemoScene::Heap => heap_params(true).self_collision,
        DemoScene::Cloth | DemoScene::Flags | DemoScene::Character | DemoScene::Table => None,
    }
}

/// What a demo scene moves by itself each frame, on a clock of simulated seconds since its
/// start (or its last reset). The native demo and the web page both run it.
#[derive(Clone, Debug, PartialEq)]
pub enum Motion {
    /// Nothing.
    Still,
    /// The heap: the cloths' pins (the towel's corner) are let go at `at` seconds.
    Release {
        /// When (s).
        at: f64,
    },
    /// The character: the figure walks ([`walker_poses`]; its colliders are the first in the
    /// solver's list, [`demo_bodies`]) and, while the pins are held, the cape's collar
    /// particles follow its shoulders.
    Walk {
        /// The cape.
        cape: crate::world::ClothHandle,
        /// Each collar particle and its place in the figure's upper body ([`walker_cape`]).
        collar: Vec<(u32, Vec3)>,
    },
}

impl Motion {
    /// The motion of `scene`, whose world's first cloth is `first`; `collar` is the
    /// character's ([`walker_cape`]), empty for the other scenes.
    pub fn of(
        scene: DemoScene,
        first: crate::world::ClothHandle,
        collar: Vec<(u32, Vec3)>,
    ) -> Self {
        match scene {
            DemoScene::Cloth | DemoScene::Flags | DemoScene::Table => Motion::Still,
            DemoScene::Heap => Motion::Release {
                at: HEAP_HOLD_FRAMES as f64 * STANDARD_DT,
            },
            DemoScene::Character => Motion::Walk {
                cape: first,
                collar,
            },
        }
    }

    /// Before the step over `from..to` (s): moves the figure's colliders to where they are at
    /// `to` (the solver carries them there across the substeps) and, while `pins_held`, the
    /// collar with them ([`crate::World::move_pin`], carried the same way). Returns whether the scene lets its pins go in this frame (then call
    /// [`set_pins_held`] with `false`).
    pub fn before_step(
        &self,
        world: &mut crate::World,
        from: f64,
        to: f64,
        pins_held: bool,
    ) -> Result<bool> {
        match self {
            Motion::Still => Ok(false),
            Motion::Release { at } => Ok(pins_held && (from..to).contains(at)),
            Motion::Walk { cape, collar } => {
                let pose = walker_poses(to as f32);
                for (k, &bone) in pose.bones.iter().enumerate() {
                    world.set_collider_pose(k, bone)?;
                }
                if pins_held {
                    for &(i, local) in collar {
                        let at = pose.upper.transform_point3(local);
                        world.move_pin(*cape, i as usize, at)?;
                    }
                }
                Ok(false)
            }
        }
    }
}

/// Lets go of the particles every cloth of `world` was built with pinned (the grid's corners,
/// a mesh's pins, the flags' poles), or holds them again where they are now (`held`).
pub fn set_pins_held(world: &mut crate::World, held: bool) -> Result<()> {
    for h in world.handles() {
        let cloth = world.cloth(h)?;
        let free = cloth.free_inverse_masses();
        let edits: Vec<(usize, f32)> = (0..cloth.particle_count())
            .filter(|&i| cloth.is_pinned(i))
            .map(|i| (i, if held { 0.0 } else { free[i] }))
            .collect();
        for (i, w) in edits {
            world.set_inverse_mass(h, i, w)?;
        }
    }
    Ok(())
}

/// Which path solves a demo scene's cloths.
pub fn demo_paths(scene: DemoScene) -> crate::world::PathChoice {
    match scene {
        // One cloth of up to 1024²: solved as a lone Solver solves it (the global path, where
        // the panel's coarse levels apply); with self-collision on, every cloth takes it.
        DemoScene::Cloth | DemoScene::Heap | DemoScene::Character | DemoScene::Table => {
            crate::world::PathChoice::Global
        }
        // Many small cloths: one workgroup each where they fit.
        DemoScene::Flags => crate::world::PathChoice::Auto,
    }
}

/// The wind a demo scene starts with: on or off, speed (m/s) and heading (° from +z towards
/// +x).
pub fn demo_wind(scene: DemoScene) -> (bool, f32, f32) {
    match scene {
        // Off, but ready for the W key: a breeze across the cloth.
        DemoScene::Cloth | DemoScene::Heap | DemoScene::Character | DemoScene::Table => {
            (false, 4.0, 30.0)
        }
        // Flags are for the wind.
        DemoScene::Flags => (true, 8.0, 70.0),
    }
}

/// The gusts a demo scene starts with ([`crate::Air::gusts`]).
pub fn demo_gusts(scene: DemoScene) -> f32 {
    match scene {
        DemoScene::Flags => 0.3,
        _ => 0.2,
    }
}

/// The wind vector of `strength` (m/s) and `heading` (°): as [`demo_wind`] gives them.
pub fn wind_vector(strength: f32, heading_deg: f32) -> Vec3 {
    let heading = heading_deg.to_radians();
    Vec3::new(heading.sin(), 0.0, heading.cos()) * strength
}

/// The demo's cloth: `grid`², 1 m wide, 0.2 kg, flat at y = 1 m, two corners pinned (or none),
/// held by `membrane`.
pub fn demo_cloth(grid: u32, corners_pinned: bool, membrane: Membrane) -> Result<Cloth> {
    ClothBuilder::grid(grid, grid)
        .membrane(membrane)
        .layout(Layout::Flat { height: 1.0 })
        .pinning(if corners_pinned {
            Pinning::Corners
        } else {
            Pinning::None
        })
        .build()
}

/// A sphere the demo shows and moves (centre and radius, m).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DemoSphere {
    /// Centre (m).
    pub center: Vec3,
    /// Radius (m).
    pub radius: f32,
}

/// The demo's collider sphere, under the falling cloth.
pub const DEMO_SPHERE: DemoSphere = DemoSphere {
    center: Vec3::new(0.0, 0.45, 0.1),
    radius: 0.28,
};

/// Friction coefficient of the demo's ground and sphere.
pub const DEMO_FRICTION: f32 = 0.5;

/// The demo's colliders: the ground at `ground` (m) and the sphere, each when given.
pub fn demo_colliders(ground: Option<f32>, sphere: Option<DemoSphere>) -> Vec<Collider> {
    let ground = ground.map(Collider::ground);
    let sphere = sphere.map(|s| Collider::sphere(s.center, s.radius));
    ground
        .into_iter()
        .chain(sphere)
        .map(|c| c.friction(DEMO_FRICTION))
        .collect()
}

/// The demo's parameters: the library's defaults with the sphere and the ground at y = 0.
pub fn demo_params() -> SolverParams {
    SolverParams {
        colliders: demo_colliders(Some(0.0), Some(DEMO_SPHERE)),
        ..SolverParams::default()
    }
}

/// Friction coefficient of the colliders of the contact scenes (the heap's floor, the figure,
/// the table), as the demo's sphere and ground have.
pub const CONTACT_FRICTION: f32 = DEMO_FRICTION;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Backend, World, WorldConfig};

    /// A demo scene's world on the CPU reference, with its motion.
    fn demo_world(scene: DemoScene, grid: u32) -> (World, Motion) {
        let (cloths, collar) = demo_cloths(scene, grid, 2, Membrane::Edges).unwrap();
        let params = SolverParams {
            colliders: demo_bodies(scene, 2)
                .into_iter()
                .chain(demo_colliders(Some(0.0), None))
                .collect(),
            self_collision: demo_self_collision(scene),
            ..SolverParams::default()
        };
        let mut world = World::new(Backend::Cpu, params, WorldConfig::default()).unwrap();
        for (cloth, options) in &cloths {
            world.add(cloth, *options).unwrap();
        }
        let first = world.handles()[0];
        (world, Motion::of(scene, first, collar))
    }

    /// `chiffon demo --membrane triangles` was refused unless a mesh was shown (the flag went
    /// with --mesh only); every scene's cloths now take the membrane asked for, and simulate
    /// with it.
    #[test]
    fn every_demo_scene_takes_the_membrane_asked_for() {
        for scene in DemoScene::ALL {
            for membrane in [Membrane::Edges, Membrane::Triangles] {
                let (cloths, _) = demo_cloths(scene, 12, 1, membrane).unwrap();
                for (cloth, _) in &cloths {
                    let triangles = cloth.constraints().iter().any(|c| c.is_triangle());
                    assert_eq!(
                        triangles,
                        membrane == Membrane::Triangles,
                        "{scene:?} with {membrane:?}"
                    );
                }
                let mut world = World::new(
                    Backend::Cpu,
                    SolverParams::default(),
                    WorldConfig::default(),
                )
                .unwrap();
                for (cloth, options) in &cloths {
                    world.add(cloth, *options).unwrap();
                }
                for _ in 0..3 {
                    world.step(STANDARD_DT).unwrap();
                }
                for h in world.handles() {
                    let p = world.positions(h).unwrap();
                    assert!(p.iter().all(|x| x.is_finite()), "{scene:?} {membrane:?}");
                }
            }
        }
    }

    #[test]
    fn the_heap_lets_its_towel_go_once_after_its_hold() {
        let (mut world, motion) = demo_world(DemoScene::Heap, 12);
        let towel = world.handles()[0];
        let mut held = true;
        let mut released_at = Vec::new();
        for frame in 0..HEAP_HOLD_FRAMES + 10 {
            let (from, to) = (frame as f64 * STANDARD_DT, (frame + 1) as f64 * STANDARD_DT);
            if motion.before_step(&mut world, from, to, held).unwrap() {
                released_at.push(frame);
                held = false;
                set_pins_held(&mut world, false).unwrap();
            }
            world.step(STANDARD_DT).unwrap();
        }
        // Held for its 60 frames, let go before the next, once.
        assert_eq!(released_at, vec![HEAP_HOLD_FRAMES]);
        // Held, the corner stays at 1.2 m; let go, it falls (0.17 m in the 10 frames after).
        let corner = world.positions(towel).unwrap()[HEAP_CORNER as usize];
        assert!(corner.y < 1.1, "the let-go corner should fall: {corner}");
    }

    #[test]
    fn the_walk_moves_the_figure_and_carries_the_collar() {
        let (mut world, motion) = demo_world(DemoScene::Character, 16);
        let Motion::Walk { cape, collar } = &motion else {
            panic!("the character walks: {motion:?}");
        };
        let (cape, collar) = (*cape, collar.clone());
        let t = 2.0;
        assert!(
            !motion
                .before_step(&mut world, t - STANDARD_DT, t, true)
                .unwrap()
        );
        let pose = walker_poses(t as f32);
        for (k, bone) in pose.bones.iter().enumerate() {
            assert_eq!(world.params().colliders[k].pose, *bone, "bone {k}");
        }
        world.step(STANDARD_DT).unwrap();
        let positions = world.positions(cape).unwrap();
        for &(i, local) in &collar {
            let want = pose.upper.transform_point3(local);
            assert!(
                positions[i as usize].distance(want) < 1e-5,
                "collar particle {i}"
            );
        }
    }
}
