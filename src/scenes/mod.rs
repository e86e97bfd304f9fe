//! The scenes chiffon's tools share, each defined once: the benchmark's standard, capes, heap
//! and colliders scenes, the demo's scenes (cloth, flags, heap, character, table: the native
//! demo and the web page build them here) and the integrator study's cloth scene. Where the
//! benchmark and the demo show the same scene (the heap), both build it here. The irregular
//! sheet (random points, Delaunay) needs the `tools` feature's crates.

pub mod solids;

use std::f32::consts::{PI, TAU};

use glam::{Affine3A, Quat, Vec2, Vec3};

use crate::Collider;
use crate::cloth::{Cloth, ConstraintKind};
use crate::contact::Pose;
use crate::error::Result;
use crate::geometry::{TriangleMesh, UvLayer};
use crate::integrator::Integrator;
use crate::params::{Compliance, Projection, SelfCollision, SolverParams, Substeps};
use crate::{ClothBuilder, Layout, Pinning};

/// Frame time of the standard scene (s): 60 fps.
pub const STANDARD_DT: f64 = 1.0 / 60.0;

/// The benchmark's standard scene, so results compare with other cloth solvers: an N×N grid
/// over 1 m × 1 m lying flat at y = 0, the two corners of one edge pinned, 0.2 kg, with the
/// constraint kinds in `kinds` (structural, shear, bend) at stiffness 1.
pub fn standard_cloth(n: u32, kinds: [bool; 3]) -> Result<Cloth> {
    let mut b = ClothBuilder::grid(n, n)
        .spacing(1.0 / n.saturating_sub(1).max(1) as f32)
        .total_mass(0.2)
        .layout(Layout::Flat { height: 0.0 })
        .pinning(Pinning::Corners);
    for (kind, on) in ConstraintKind::ALL.into_iter().zip(kinds) {
        b = b.constraint(kind, on);
    }
    b.build()
}

/// The standard scene's sheet as an irregular mesh: about `n`×`n` particles over the same
/// 1 m × 1 m at y = 0, a Delaunay triangulation of jittered points (a grid's points each moved
/// by up to 0.35 of a spacing in x and z; the border's points evenly spaced along it, so the
/// square keeps its corners), 0.2 kg, the two corners of the edge at z = −0.5 pinned, the
/// constraint kinds in `kinds` (a mesh's shear constraints are its quads' diagonals, so a
/// triangulation has none). The same seed gives the same mesh. Not a grid: its vertices
/// have 4 to 9 neighbours and its edges differ in length by up to 3×, which is what a garment
/// from a modelling tool looks like to the solver.
#[cfg(feature = "tools")]
pub fn irregular_cloth(n: u32, kinds: [bool; 3]) -> Result<Cloth> {
    use rand::{Rng, SeedableRng};
    let n = n.max(2);
    let h = 1.0 / (n - 1) as f64;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x5eed_0024);
    let mut points = Vec::with_capacity((n * n) as usize);
    for r in 0..n {
        for c in 0..n {
            let border = r == 0 || c == 0 || r == n - 1 || c == n - 1;
            let (mut x, mut z) = (c as f64 * h, r as f64 * h);
            if !border {
                x += rng.random_range(-0.35..0.35) * h;
                z += rng.random_range(-0.35..0.35) * h;
            }
            points.push(delaunator::Point {
                x: x - 0.5,
                y: z - 0.5,
            });
        }
    }
    let triangulation = delaunator::triangulate(&points);
    let positions = points
        .iter()
        .map(|p| Vec3::new(p.x as f32, 0.0, p.y as f32))
        .collect();
    let triangles = triangulation
        .triangles
        .chunks_exact(3)
        .map(|t| [t[0] as u32, t[1] as u32, t[2] as u32])
        .collect();
    let corner = |x: f32| Pinning::Box {
        min: Vec3::new(x, 0.0, -0.5) - Vec3::splat(1e-4),
        max: Vec3::new(x, 0.0, -0.5) + Vec3::splat(1e-4),
    };
    let mut b = ClothBuilder::mesh(TriangleMesh::new("irregular", positions, triangles))
        .total_mass(0.2)
        .pinning(corner(-0.5))
        .pin(corner(0.5));
    for (kind, on) in ConstraintKind::ALL.into_iter().zip(kinds) {
        b = b.constraint(kind, on);
    }
    b.build()
}

/// One cape of the many-cloths scene: `columns`×`rows` particles, 0.6 m wide (rows at the same
/// spacing), 0.15 kg,
/// lying flat at y = 1.5 m and pinned along its first row (the collar), so it swings down.
pub fn cape(columns: u32, rows: u32) -> Result<Cloth> {
    cape_builder(columns, rows)
        .layout(Layout::Flat { height: 1.5 })
        .build()
}

/// The same cape hanging straight down from its collar, at rest from the start (the capes
/// bench's sleepers).
pub fn hanging_cape(columns: u32, rows: u32) -> Result<Cloth> {
    cape_builder(columns, rows)
        .layout(Layout::Hanging { top: 1.5 })
        .build()
}

/// A cape's grid, mass and collar, before its layout.
fn cape_builder(columns: u32, rows: u32) -> ClothBuilder {
    ClothBuilder::grid(columns, rows)
        .spacing(0.6 / columns.saturating_sub(1).max(1) as f32)
        .total_mass(0.15)
        .pinning(Pinning::Edge)
}

/// Where cape `k` of `count` hangs: a square field, one cape per square metre.
pub fn cape_position(k: usize, count: usize) -> Vec3 {
    let side = (count as f64).sqrt().ceil().max(1.0) as usize;
    let (i, j) = (k % side, k / side);
    let centre = (side as f32 - 1.0) / 2.0;
    Vec3::new(i as f32 - centre, 0.0, j as f32 - centre)
}

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
/// character's cape, the table's cloth) with `flags` per side of the flags scene.
pub fn demo_cloths(scene: DemoScene, grid: u32, flags: u32) -> Result<DemoCloths> {
    let one = |cloth| vec![(cloth, crate::world::ClothOptions::default())];
    Ok(match scene {
        DemoScene::Cloth => (one(demo_cloth(grid, true)?), Vec::new()),
        DemoScene::Flags => (flag_field(flags)?, Vec::new()),
        DemoScene::Heap => (one(heap_sheet(grid)?), Vec::new()),
        DemoScene::Character => {
            // A cape about as fine as a grid of that resolution.
            let (cape, collar) = walker_cape((grid * 5 / 8).max(8), grid.max(8))?;
            (one(cape), collar)
        }
        DemoScene::Table => (one(tablecloth(grid)?), Vec::new()),
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
    /// collar with them. Returns whether the scene lets its pins go in this frame (then call
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
                        world.set_particle(*cape, i as usize, at, 0.0)?;
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

/// Particles of one flag of [`flag_field`]: columns along the fly, rows down the pole.
pub const FLAG_PARTICLES: (u32, u32) = (32, 20);

/// The demo's many-cloths scene: `side`×`side` flags of [`FLAG_PARTICLES`] (0.9 m × 0.57 m,
/// 0.1 kg), each held along its pole (its first column, the hoist), tops at 2.2 m, one per
/// 1.4 m square, each turned its own way; every other flag is of a softer, stretchier cloth
/// (its own material). The poles are [`flag_poles`].
pub fn flag_field(side: u32) -> Result<Vec<(Cloth, crate::world::ClothOptions)>> {
    let (columns, rows) = FLAG_PARTICLES;
    let flag = ClothBuilder::grid(columns, rows)
        .spacing(0.9 / (columns - 1) as f32)
        .total_mass(0.1)
        .layout(Layout::Hanging { top: 0.0 })
        .pinning(Pinning::List((0..rows).map(|r| r * columns).collect()))
        .build()?;
    let soft = Compliance {
        stretch: 2.0e-3,
        shear: 1.0e-2,
        curvature: 1.0e7,
        ..Compliance::default()
    };
    let mut out = Vec::with_capacity((side * side) as usize);
    for k in 0..side * side {
        let mut options = crate::world::ClothOptions::new().transform(flag_transform(side, k));
        if k % 2 == 1 {
            options = options.compliance(soft);
        }
        out.push((flag.clone(), options));
    }
    Ok(out)
}

/// Where flag `k` of [`flag_field`]`(side)` stands: turned about its pole, top at 2.2 m.
fn flag_transform(side: u32, k: u32) -> glam::Affine3A {
    let centre = (side as f32 - 1.0) / 2.0;
    let (i, j) = ((k % side) as f32, (k / side) as f32);
    // A turn that differs from flag to flag without looking random.
    let turn = ((k * 37) % 11) as f32 / 11.0 - 0.5;
    glam::Affine3A::from_rotation_translation(
        glam::Quat::from_rotation_y(turn),
        Vec3::new((i - centre) * 1.4, 2.2, (j - centre) * 1.4),
    )
}

/// The poles of [`flag_field`]`(side)`: a capsule 3 cm across from the ground to just above
/// each flag's top, 2 cm behind its hoist (the flag's first column, at x = −0.45 m before it
/// is turned), so the flag wraps round it when the wind turns.
pub fn flag_poles(side: u32) -> Vec<Collider> {
    (0..side * side)
        .map(|k| {
            let t = flag_transform(side, k);
            let foot = t.transform_point3(Vec3::new(-0.47, -2.2, 0.0));
            Collider::capsule(foot, foot + Vec3::Y * 2.25, 0.015, 0.015).friction(CONTACT_FRICTION)
        })
        .collect()
}

/// The standard scene's parameters: the library's defaults (gravity −9.81 m/s², damping 0.5/s,
/// no colliders).
pub fn standard_params() -> SolverParams {
    SolverParams::default()
}

/// The demo's cloth: `grid`², 1 m wide, 0.2 kg, flat at y = 1 m, two corners pinned (or none).
pub fn demo_cloth(grid: u32, corners_pinned: bool) -> Result<Cloth> {
    ClothBuilder::grid(grid, grid)
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

/// The heap's towel: an `n`×`n` sheet 0.8 m wide, 0.2 kg, flat at 1.2 m, pinned by one corner
/// ([`HEAP_CORNER`]). Held for [`HEAP_HOLD_FRAMES`], it swings down and hangs from the corner;
/// released, it falls bottom corner first and folds onto itself on the floor
/// ([`heap_params`]). The benchmark's heap scene and the demo's both drop this sheet.
pub fn heap_sheet(n: u32) -> Result<Cloth> {
    ClothBuilder::grid(n, n)
        .spacing(0.8 / n.saturating_sub(1).max(1) as f32)
        .total_mass(0.2)
        .layout(Layout::Flat { height: 1.2 })
        .pinning(Pinning::List(vec![HEAP_CORNER]))
        .build()
}

/// The corner the heap's towel is held by (the first particle of the grid).
pub const HEAP_CORNER: u32 = 0;

/// Frames the heap's towel hangs from its corner before it is released: 1 s at 60 fps (the
/// demo's hold, and the benchmark's warm-up outside `--quick`).
pub const HEAP_HOLD_FRAMES: usize = 60;

/// The heap's parameters: the library's defaults with the floor at y = 0 (friction
/// [`CONTACT_FRICTION`]) and self-collision on (automatic thickness) or off.
pub fn heap_params(self_collision: bool) -> SolverParams {
    SolverParams {
        colliders: demo_colliders(Some(0.0), None),
        self_collision: self_collision.then(SelfCollision::default),
        ..SolverParams::default()
    }
}

/// The colliders benchmark's sheet: `n`×`n` over 1 m × 1 m, 0.2 kg, flat at 0.9 m and free,
/// falling onto the bodies below it ([`collider_sphere`], [`capsule_field`],
/// [`bumpy_sphere`]), whose tops are at 0.8 m.
pub fn collider_sheet(n: u32) -> Result<Cloth> {
    ClothBuilder::grid(n, n)
        .spacing(1.0 / n.saturating_sub(1).max(1) as f32)
        .total_mass(0.2)
        .layout(Layout::Flat { height: 0.9 })
        .pinning(Pinning::None)
        .build()
}

/// Centre of the colliders benchmark's round body (m): the sphere's, and the mesh's.
pub const BODY_CENTER: Vec3 = Vec3::new(0.0, 0.45, 0.0);
/// Radius of the colliders benchmark's round body (m): its top is at 0.8 m.
pub const BODY_RADIUS: f32 = 0.35;

/// One sphere under the colliders benchmark's sheet.
pub fn collider_sphere() -> Collider {
    Collider::sphere(BODY_CENTER, BODY_RADIUS).friction(CONTACT_FRICTION)
}

/// A box under the colliders benchmark's sheet, a small table 0.6 m × 0.4 m turned 17° about
/// the vertical, its top at 0.8 m like the round body's: its corners and edges lie under the
/// cloth (the box-edge contact kernels' work).
pub fn collider_box() -> Collider {
    Collider::cuboid(
        Vec3::new(0.0, 0.4, 0.0),
        Vec3::new(0.3, 0.4, 0.2),
        glam::Quat::from_rotation_y(17f32.to_radians()),
    )
    .friction(CONTACT_FRICTION)
}

/// `side`×`side` upright tapered capsules (posts, 4 cm across at the foot, 3 cm at the top)
/// from the floor to 0.8 m, spread evenly under the colliders benchmark's 1 m sheet: a bed of
/// posts it drapes over. The 64 capsules are `side = 8`.
pub fn capsule_field(side: u32) -> Vec<Collider> {
    let step = 0.9 / side.max(1) as f32;
    let centre = (side as f32 - 1.0) / 2.0;
    let (top, r_foot, r_top) = (0.8, 0.04, 0.03);
    (0..side * side)
        .map(|k| {
            let (i, j) = ((k % side) as f32, (k / side) as f32);
            let at = Vec3::new((i - centre) * step, 0.0, (j - centre) * step);
            Collider::capsule(at, at + Vec3::Y * (top - r_top), r_foot, r_top)
                .friction(CONTACT_FRICTION)
        })
        .collect()
}

/// A closed, bumpy UV sphere of radius [`BODY_RADIUS`] about [`BODY_CENTER`]: `stacks` rings
/// from pole to pole of `slices` vertices each, one vertex at each pole (welded: no slivers
/// meet there), `2 · slices · (stacks − 1)` triangles. Its radius varies by ±6 % in a pattern
/// of 8 × 12 bumps, so the surface is not a sphere a grid could get right by luck.
/// `bumpy_sphere(160, 320)` has 101 760 triangles.
pub fn bumpy_sphere(stacks: u32, slices: u32) -> TriangleMesh {
    let (stacks, slices) = (stacks.max(2), slices.max(3));
    let radius = |theta: f32, phi: f32| {
        BODY_RADIUS * (1.0 + 0.06 * (8.0 * theta).sin() * (12.0 * phi).sin() * theta.sin())
    };
    let point = |theta: f32, phi: f32| {
        let r = radius(theta, phi);
        BODY_CENTER
            + r * Vec3::new(
                theta.sin() * phi.cos(),
                theta.cos(),
                theta.sin() * phi.sin(),
            )
    };
    let mut positions = vec![point(0.0, 0.0)];
    for i in 1..stacks {
        let theta = PI * i as f32 / stacks as f32;
        for j in 0..slices {
            positions.push(point(theta, TAU * j as f32 / slices as f32));
        }
    }
    let south = positions.len() as u32;
    positions.push(point(PI, 0.0));
    // Vertex j of ring i (1 ..= stacks − 1), around the ring.
    let ring = |i: u32, j: u32| 1 + (i - 1) * slices + j % slices;
    let mut triangles = Vec::with_capacity((2 * slices * (stacks - 1)) as usize);
    for j in 0..slices {
        // Counter-clockwise seen from outside.
        triangles.push([0, ring(1, j + 1), ring(1, j)]);
        triangles.push([south, ring(stacks - 1, j), ring(stacks - 1, j + 1)]);
    }
    for i in 1..stacks - 1 {
        for j in 0..slices {
            let (a, b) = (ring(i, j), ring(i, j + 1));
            let (c, d) = (ring(i + 1, j), ring(i + 1, j + 1));
            triangles.push([a, b, c]);
            triangles.push([b, d, c]);
        }
    }
    TriangleMesh::new("bumpy sphere", positions, triangles)
}

/// Rings and slices of the colliders benchmark's mesh body at full size: 101 760 triangles.
pub const BUMPY_SPHERE_FULL: (u32, u32) = (160, 320);

/// The table: a top 1.1 m × 0.7 m × 5 cm ([`Collider::cuboid`]) whose upper face is at
/// 0.775 m, on four capsule legs, all with friction [`CONTACT_FRICTION`]. The demo adds the
/// floor.
pub fn table_colliders() -> Vec<Collider> {
    let top = Collider::cuboid(
        Vec3::new(0.0, 0.75, 0.0),
        Vec3::new(0.55, 0.025, 0.35),
        Quat::IDENTITY,
    );
    let legs = [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)].map(|(sx, sz)| {
        let foot = Vec3::new(sx * 0.49, 0.03, sz * 0.29);
        Collider::capsule(foot, foot + Vec3::Y * 0.69, 0.03, 0.03)
    });
    std::iter::once(top)
        .chain(legs)
        .map(|c| c.friction(CONTACT_FRICTION))
        .collect()
}

/// The tablecloth: `columns` × (¾ `columns`) particles over 1.6 m × 1.2 m (0.25 m over each
/// side of the table's top), 0.3 kg, flat at 0.95 m and free, so it falls onto the table and
/// settles over its edges.
pub fn tablecloth(columns: u32) -> Result<Cloth> {
    let columns = columns.max(4);
    let rows = (columns * 3).div_ceil(4).max(3);
    ClothBuilder::grid(columns, rows)
        .spacing(1.6 / (columns - 1) as f32)
        .total_mass(0.3)
        .layout(Layout::Flat { height: 0.95 })
        .pinning(Pinning::None)
        .build()
}

/// One capsule of the walking figure: a bone from its joint, in the frame it hangs from.
#[derive(Clone, Copy, Debug)]
struct Bone {
    /// The bone this one hangs from ([`WALKER_BONES`] index), or `None` for the body (the hips,
    /// the upper body, or the root).
    parent: Option<usize>,
    /// The frame it moves with when it has no parent.
    body: Body,
    /// The joint, in its parent's frame (m).
    joint: Vec3,
    /// The capsule, from the joint: its far end in the bone's frame, radii at both ends (m).
    end: Vec3,
    radii: (f32, f32),
    /// How it swings in the walk cycle.
    swing: Swing,
}

/// The frame a parentless bone moves with.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Body {
    /// The hips: the root, bobbing.
    Hips,
    /// The upper body: the hips leaned forward by [`WALKER_LEAN`] about the waist.
    Upper,
}

/// A bone's rotation in the walk cycle.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Swing {
    /// None.
    Fixed,
    /// A leg's thigh: forward and back (left: +1, right: −1).
    Thigh(f32),
    /// A leg's shin: the knee bends (left: +1, right: −1).
    Knee(f32),
    /// An upper arm, against the leg of its side (left: +1, right: −1).
    Arm(f32),
    /// A forearm: the elbow bends a little more as the arm swings forward.
    Elbow(f32),
}

/// The walking figure's height at the waist, about which its upper body leans (m).
const WAIST: f32 = 0.95;
/// The upper body's forward lean (rad): the cape hangs from the shoulders onto the back.
const WALKER_LEAN: f32 = 0.14;
/// Steps per second of one leg (Hz).
const WALK_CADENCE: f32 = 0.9;
/// Walking speed (m/s) around a circle of [`WALK_RADIUS`].
const WALK_SPEED: f32 = 0.5;
/// Radius of the walking figure's circle (m); it starts at the origin facing +z and turns
/// left, about (−[`WALK_RADIUS`], 0, 0).
pub const WALK_RADIUS: f32 = 0.9;

/// The figure's capsules, in [`walker_colliders`]' order: 1.75 m tall, facing +z, standing at
/// the origin.
const WALKER_BONES: [Bone; 13] = {
    const fn bone(body: Body, joint: Vec3, end: Vec3, radii: (f32, f32)) -> Bone {
        Bone {
            parent: None,
            body,
            joint,
            end,
            radii,
            swing: Swing::Fixed,
        }
    }
    const fn limb(
        parent: Option<usize>,
        joint: Vec3,
        len: f32,
        radii: (f32, f32),
        swing: Swing,
    ) -> Bone {
        Bone {
            parent,
            body: Body::Hips,
            joint,
            end: Vec3::new(0.0, -len, 0.0),
            radii,
            swing,
        }
    }
    [
        // Pelvis, across the hips.
        bone(
            Body::Hips,
            Vec3::new(-0.09, 0.93, 0.0),
            Vec3::new(0.18, 0.0, 0.0),
            (0.12, 0.12),
        ),
        // Torso, waist to chest.
        bone(
            Body::Upper,
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(0.0, 0.3, 0.0),
            (0.13, 0.16),
        ),
        // Shoulders.
        bone(
            Body::Upper,
            Vec3::new(-0.17, 1.4, 0.0),
            Vec3::new(0.34, 0.0, 0.0),
            (0.07, 0.07),
        ),
        // Neck.
        bone(
            Body::Upper,
            Vec3::new(0.0, 1.42, 0.0),
            Vec3::new(0.0, 0.12, 0.0),
            (0.05, 0.05),
        ),
        // Head (a sphere: a capsule of one point).
        bone(
            Body::Upper,
            Vec3::new(0.0, 1.65, 0.01),
            Vec3::ZERO,
            (0.11, 0.11),
        ),
        // Upper arms (body: the shoulders of the upper body; see `walker_poses`).
        Bone {
            body: Body::Upper,
            ..limb(
                None,
                Vec3::new(0.23, 1.4, 0.0),
                0.28,
                (0.05, 0.042),
                Swing::Arm(1.0),
            )
        },
        Bone {
            body: Body::Upper,
            ..limb(
                None,
                Vec3::new(-0.23, 1.4, 0.0),
                0.28,
                (0.05, 0.042),
                Swing::Arm(-1.0),
            )
        },
        // Forearms.
        limb(
            Some(5),
            Vec3::new(0.0, -0.28, 0.0),
            0.26,
            (0.042, 0.035),
            Swing::Elbow(1.0),
        ),
        limb(
            Some(6),
            Vec3::new(0.0, -0.28, 0.0),
            0.26,
            (0.042, 0.035),
            Swing::Elbow(-1.0),
        ),
        // Thighs.
        limb(
            None,
            Vec3::new(0.1, 0.92, 0.0),
            0.42,
            (0.075, 0.055),
            Swing::Thigh(1.0),
        ),
        limb(
            None,
            Vec3::new(-0.1, 0.92, 0.0),
            0.42,
            (0.075, 0.055),
            Swing::Thigh(-1.0),
        ),
        // Shins.
        limb(
            Some(9),
            Vec3::new(0.0, -0.42, 0.0),
            0.42,
            (0.052, 0.04),
            Swing::Knee(1.0),
        ),
        limb(
            Some(10),
            Vec3::new(0.0, -0.42, 0.0),
            0.42,
            (0.052, 0.04),
            Swing::Knee(-1.0),
        ),
    ]
};

/// The walking figure's colliders at time 0: 13 tapered capsules (pelvis, torso, shoulders,
/// neck, head, upper arms, forearms, thighs, shins), friction [`CONTACT_FRICTION`]. Move them
/// with [`walker_poses`]: collider `k` takes pose `k`.
pub fn walker_colliders() -> Vec<Collider> {
    WALKER_BONES
        .iter()
        .zip(walker_poses(0.0).bones)
        .map(|(b, pose)| {
            Collider::capsule(Vec3::ZERO, b.end, b.radii.0, b.radii.1)
                .friction(CONTACT_FRICTION)
                .at(pose)
        })
        .collect()
}

/// Where the walking figure is at one time.
#[derive(Clone, Debug, PartialEq)]
pub struct WalkerPose {
    /// Its upper body (the frame the cape's collar is given in, [`walker_cape`]): the root,
    /// leaned forward about the waist.
    pub upper: Affine3A,
    /// Each collider's pose, in [`walker_colliders`]' order.
    pub bones: Vec<Pose>,
}

/// The walking figure at `t` seconds: it walks at 0.5 m/s around a circle of
/// [`WALK_RADIUS`] (turning left, a turn every 11 s), its legs swinging ±23° at
/// 0.9 steps per second, knees bending, arms swinging against the legs, the body bobbing 2 cm.
pub fn walker_poses(t: f32) -> WalkerPose {
    let omega = WALK_SPEED / WALK_RADIUS;
    let heading = -omega * t;
    // Starts at the origin facing +z, the circle's centre on its left (−x).
    let centre = Vec3::new(-WALK_RADIUS, 0.0, 0.0);
    let at = centre + WALK_RADIUS * Vec3::new((omega * t).cos(), 0.0, (omega * t).sin());
    let phase = TAU * WALK_CADENCE * t;
    // Lowest twice a step, at each heel strike.
    let bob = 0.02 * ((2.0 * phase).cos() - 1.0) * 0.5;
    let root = Affine3A::from_rotation_translation(
        Quat::from_rotation_y(heading),
        at + Vec3::new(0.0, bob, 0.0),
    );
    let waist = Vec3::new(0.0, WAIST, 0.0);
    let upper = root
        * Affine3A::from_translation(waist)
        * Affine3A::from_rotation_x(WALKER_LEAN)
        * Affine3A::from_translation(-waist);
    let thigh = 0.4 * phase.sin();
    let mut frames: Vec<Affine3A> = Vec::with_capacity(WALKER_BONES.len());
    for b in &WALKER_BONES {
        let base = match (b.parent, b.body) {
            (Some(p), _) => frames[p],
            (None, Body::Hips) => root,
            (None, Body::Upper) => upper,
        };
        // Rotations about x: a positive angle swings the bone's far end (−y) backwards.
        let rotation = match b.swing {
            Swing::Fixed => Quat::IDENTITY,
            Swing::Thigh(side) => Quat::from_rotation_x(-side * thigh),
            // The knee bends most while its leg swings forward.
            Swing::Knee(side) => Quat::from_rotation_x(0.08 + 0.55 * (side * phase.cos()).max(0.0)),
            // Clear of the hips, swinging against the leg of its side.
            Swing::Arm(side) => {
                Quat::from_rotation_z(side * 0.12) * Quat::from_rotation_x(side * 0.6 * thigh)
            }
            // The elbow bends more as its arm swings forward.
            Swing::Elbow(side) => Quat::from_rotation_x(-0.35 - 0.4 * (-side * thigh).max(0.0)),
        };
        frames.push(base * Affine3A::from_rotation_translation(rotation, b.joint));
    }
    let bones = frames
        .iter()
        .map(|f| {
            let (_, rotation, translation) = f.to_scale_rotation_translation();
            Pose::new(translation, rotation)
        })
        .collect();
    WalkerPose { upper, bones }
}

/// The character's cape: a sector of a cone hung from a collar around the back of the
/// figure's neck, over the shoulders and down the back to the knees; `columns` around ×
/// `rows` down, 0.3 kg, its first row (the collar) pinned. Returned with the collar's
/// particles and their places in the figure's upper body ([`WalkerPose::upper`]), where the
/// demo holds them each frame. Built at time 0 ([`walker_poses`]`(0.0)`); its UVs run across
/// and down, so the checker shows how it drapes.
pub fn walker_cape(columns: u32, rows: u32) -> Result<(Cloth, Vec<(u32, Vec3)>)> {
    let (columns, rows) = (columns.max(3), rows.max(3));
    // Around the neck axis: ±75° from straight behind, the collar 0.11 m out at 1.5 m, flaring
    // to 0.24 m by 1.42 m, then straight down; 1.0 m long in all.
    let half_angle = 75f32.to_radians();
    let (collar, flare) = (Vec2::new(0.11, 1.5), Vec2::new(0.24, 1.42));
    let length = 1.0;
    let flare_len = (flare - collar).length();
    let profile = |s: f32| {
        if s <= flare_len {
            collar + (flare - collar) * (s / flare_len)
        } else {
            flare - Vec2::Y * (s - flare_len)
        }
    };
    let upper = walker_poses(0.0).upper;
    let mut local = Vec::with_capacity((columns * rows) as usize);
    let mut uvs = Vec::with_capacity(local.capacity());
    for r in 0..rows {
        let v = r as f32 / (rows - 1) as f32;
        let p = profile(v * length);
        for c in 0..columns {
            let u = c as f32 / (columns - 1) as f32;
            let angle = half_angle * (2.0 * u - 1.0);
            local.push(Vec3::new(p.x * angle.sin(), p.y, -p.x * angle.cos()));
            uvs.push(Vec2::new(u, v));
        }
    }
    let mut triangles = Vec::new();
    let mut diagonals = Vec::new();
    for r in 0..rows - 1 {
        for c in 0..columns - 1 {
            let a = r * columns + c;
            let (b, d, e) = (a + 1, a + columns, a + columns + 1);
            triangles.extend([[a, d, b], [b, d, e]]);
            diagonals.push([b, d]);
        }
    }
    let mesh = TriangleMesh {
        uvs: Some(UvLayer {
            uvs,
            triangles: triangles.clone(),
        }),
        diagonals,
        ..TriangleMesh::new(
            "cape",
            local.iter().map(|&p| upper.transform_point3(p)).collect(),
            triangles,
        )
    };
    let collar_particles: Vec<u32> = (0..columns).collect();
    let cloth = ClothBuilder::mesh(mesh)
        .total_mass(0.3)
        .pinning(Pinning::List(collar_particles.clone()))
        .build()?;
    let collar = collar_particles
        .into_iter()
        .map(|i| (i, local[i as usize]))
        .collect();
    Ok((cloth, collar))
}

/// chiffon's settings before XPBD, kept for comparisons (the integrator study's cloth, the
/// quality tables): 1 substep × `iterations`, rigid constraints projected along the current
/// bond (Jakobsen), no tethers.
pub fn pbd_params(iterations: u32) -> SolverParams {
    SolverParams {
        iterations,
        substeps: Substeps::Fixed(1),
        compliance: Compliance::RIGID,
        projection: Projection::Jakobsen,
        tethers: None,
        ..SolverParams::default()
    }
}

/// The integrator study's cloth: a hanging 32×32 cloth, corners pinned, swinging at 1.5 m/s
/// into a sphere behind it, advanced by `integrator` with one step per frame
/// ([`pbd_params`]`(10)`), so each frame's dt reaches the integrator unchanged.
pub fn study_cloth(integrator: Integrator) -> Result<(Cloth, SolverParams)> {
    let cloth = ClothBuilder::grid(32, 32)
        .pinning(Pinning::Corners)
        .velocity(Vec3::new(0.0, 0.0, -1.5))
        .build()?;
    let params = SolverParams {
        integrator,
        colliders: vec![Collider::sphere(Vec3::new(0.0, 0.45, -0.4), 0.3)],
        ..pbd_params(10)
    };
    Ok((cloth, params))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Backend, World, WorldConfig};

    /// A demo scene's world on the CPU reference, with its motion.
    fn demo_world(scene: DemoScene, grid: u32) -> (World, Motion) {
        let (cloths, collar) = demo_cloths(scene, grid, 2).unwrap();
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
