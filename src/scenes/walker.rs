//! The character scene: a walking figure of tapered capsules (its rig, its poses over time)
//! and the cape on its shoulders.

use super::*;

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

/// The head's index in [`WALKER_BONES`] (a capsule of one point: its pose is its centre).
const HEAD: usize = 4;

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
        body: Body,
        parent: Option<usize>,
        joint: [f32; 3],
        len: f32,
        radii: (f32, f32),
        swing: Swing,
    ) -> Bone {
        Bone {
            parent,
            body,
            joint: Vec3::from_array(joint),
            end: Vec3::new(0.0, -len, 0.0),
            radii,
            swing,
        }
    }
    // The left limbs (x > 0): body (an upper arm hangs from the shoulders; the body of a bone
    // with a parent is its parent's), parent (the left bone above), joint, length, radii, swing.
    #[rustfmt::skip]
    const LEFT: [Bone; 4] = [
        limb(Body::Upper, None, [0.23, 1.4, 0.0], 0.28, (0.05, 0.042), Swing::Arm(1.0)),
        limb(Body::Hips, Some(5), [0.0, -0.28, 0.0], 0.26, (0.042, 0.035), Swing::Elbow(1.0)),
        limb(Body::Hips, None, [0.1, 0.92, 0.0], 0.42, (0.075, 0.055), Swing::Thigh(1.0)),
        limb(Body::Hips, Some(9), [0.0, -0.42, 0.0], 0.42, (0.052, 0.04), Swing::Knee(1.0)),
    ];
    // A left limb's right twin: its joint mirrored in x, its swing the other way, its parent
    // the right bone (each right bone follows its left one).
    const fn mirrored(left: Bone) -> Bone {
        Bone {
            parent: match left.parent {
                Some(p) => Some(p + 1),
                None => None,
            },
            joint: Vec3::new(0.0 - left.joint.x, left.joint.y, left.joint.z), // 0 stays +0
            swing: match left.swing {
                Swing::Thigh(s) => Swing::Thigh(-s),
                Swing::Knee(s) => Swing::Knee(-s),
                Swing::Arm(s) => Swing::Arm(-s),
                Swing::Elbow(s) => Swing::Elbow(-s),
                Swing::Fixed => Swing::Fixed,
            },
            ..left
        }
    }
    // The trunk: body, joint, the capsule's far end from it, radii.
    #[rustfmt::skip]
    let trunk = [
        // Pelvis, across the hips.
        bone(Body::Hips, Vec3::new(-0.09, 0.93, 0.0), Vec3::new(0.18, 0.0, 0.0), (0.12, 0.12)),
        // Torso, waist to chest.
        bone(Body::Upper, Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.0, 0.3, 0.0), (0.13, 0.16)),
        // Shoulders.
        bone(Body::Upper, Vec3::new(-0.17, 1.4, 0.0), Vec3::new(0.34, 0.0, 0.0), (0.07, 0.07)),
        // Neck.
        bone(Body::Upper, Vec3::new(0.0, 1.42, 0.0), Vec3::new(0.0, 0.12, 0.0), (0.05, 0.05)),
        // Head: a capsule of one point.
        bone(Body::Upper, Vec3::new(0.0, 1.65, 0.01), Vec3::ZERO, (0.11, 0.11)),
    ];
    [
        trunk[0],
        trunk[1],
        trunk[2],
        trunk[3],
        trunk[4],
        // The limbs, each on the left and then mirrored onto the right: upper arms (body: the
        // shoulders of the upper body; see `walker_poses`), forearms, thighs, shins.
        LEFT[0],
        mirrored(LEFT[0]),
        LEFT[1],
        mirrored(LEFT[1]),
        LEFT[2],
        mirrored(LEFT[2]),
        LEFT[3],
        mirrored(LEFT[3]),
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
/// and down, so the checker shows how it drapes. `membrane` holds it.
pub fn walker_cape(
    columns: u32,
    rows: u32,
    membrane: Membrane,
) -> Result<(Cloth, Vec<(u32, Vec3)>)> {
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
        .membrane(membrane)
        .total_mass(0.3)
        .pinning(Pinning::List(collar_particles.clone()))
        .build()?;
    let collar = collar_particles
        .into_iter()
        .map(|i| (i, local[i as usize]))
        .collect();
    Ok((cloth, collar))
}

/// The walking figure standing still (its pose at time 0, the upper body leaned as it walks)
/// as one closed triangle mesh, for a mesh collider: `stacks` × `slices` directions from its
/// chest (a UV sphere's connectivity), each to the outermost point of its capsules' union on
/// that ray; the first vertex is the crown, the top of the head (1.75 m, 11 cm in front of the
/// feet). The surface is the capsules' where they can be seen from the chest, and bridges what
/// cannot (it webs an arm to the torso and the legs to each other): a body a sheet drops onto
/// over its head and shoulders. `walker_figure(80, 160)` has 25 280 triangles.
pub fn walker_figure(stacks: u32, slices: u32) -> TriangleMesh {
    let standing = walker_poses(0.0);
    let capsules: Vec<(Vec3, Vec3, f32, f32)> = WALKER_BONES
        .iter()
        .zip(&standing.bones)
        .map(|(b, pose)| {
            let pose = Affine3A::from_rotation_translation(pose.rotation, pose.translation);
            (
                pose.transform_point3(Vec3::ZERO),
                pose.transform_point3(b.end),
                b.radii.0,
                b.radii.1,
            )
        })
        .collect();
    // The union's distance (a tapered capsule's taken along its axis: under a millimetre off
    // for these tapers, and only where the surface is sought).
    let distance = |p: Vec3| {
        capsules
            .iter()
            .map(|&(a, b, ra, rb)| {
                let ab = b - a;
                let t = if ab.length_squared() > 0.0 {
                    ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                (p - (a + ab * t)).length() - (ra + (rb - ra) * t)
            })
            .fold(f32::INFINITY, f32::min)
    };
    // Under the head's centre, inside the torso: the first direction (straight up) ends on the
    // crown, the top of the head.
    let chest = standing.bones[HEAD].translation - Vec3::Y * 0.45;
    uv_surface("standing figure", stacks, slices, |theta, phi| {
        let direction = polar_direction(theta, phi);
        // Sphere tracing inwards from well outside the figure: the first point on the surface.
        let mut s = 2.5f32;
        for _ in 0..400 {
            let d = distance(chest + direction * s);
            if d < 1e-4 || s <= 0.0 {
                break;
            }
            s -= d.max(1e-4);
        }
        chest + direction * s.max(0.0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contact::DistanceGrid;

    /// The standing figure's mesh is closed, so its distance grid is signed (a sheet cannot
    /// fall into it), and lies on its capsules: the crown on top of the head, the torso and the
    /// head inside, a point above the head outside by its height over it.
    #[test]
    fn the_standing_figure_is_a_closed_mesh_on_its_capsules() {
        let mesh = walker_figure(40, 80);
        let grid = DistanceGrid::from_mesh(&mesh, 64).unwrap();
        assert!(grid.is_signed(), "the figure's mesh is not closed");
        let head = walker_poses(0.0).bones[HEAD].translation;
        let crown = mesh.positions[0];
        assert!(
            crown.distance(head + Vec3::Y * 0.11) < 1e-3,
            "crown {crown}, head {head}"
        );
        let highest = mesh.positions.iter().map(|p| p.y).fold(f32::MIN, f32::max);
        assert!(
            highest - crown.y < 5e-3,
            "the crown {crown} is not the top: {highest}"
        );
        let cell = grid.cell_size();
        assert!(
            grid.distance(head) < -0.08,
            "head centre {}",
            grid.distance(head)
        );
        assert!(grid.distance(head - Vec3::Y * 0.45) < -0.05, "chest");
        let above = grid.distance(crown + Vec3::Y * 0.1);
        assert!((above - 0.1).abs() < cell, "10 cm over the crown: {above}");
    }
}
