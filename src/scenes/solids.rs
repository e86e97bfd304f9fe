//! The colliders as triangles to draw: spheres, tapered capsules and boxes, in world space,
//! from the poses the solver was given (so a body the scene moves is drawn where it collides).
//! A plane facing up is the ground (drawn by its own pipeline); other planes and triangle-mesh
//! colliders are not drawn.
//!
//! Each shape is drawn a little inside its collision surface, as the sphere always was: cloth
//! triangles between particles resting on a surface are chords that would otherwise cut into
//! it.

use std::f32::consts::{FRAC_PI_2, TAU};

use glam::{Quat, Vec3};

use crate::contact::{Collider, Shape};

/// One vertex of a drawn collider (`solid_vs`'s input in `solids.wgsl`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SolidVertex {
    /// World position (m).
    pub position: [f32; 3],
    /// Unit outward normal.
    pub normal: [f32; 3],
}

/// Drawn radii over collision radii (spheres and capsules).
const ROUND_INSET: f32 = 0.96;
/// Most a box is drawn inside its faces (m); at most a tenth of a half extent.
const BOX_INSET: f32 = 0.004;
/// Rings from a capsule's pole to its cone, at each end (a sphere has twice as many).
const RINGS: u32 = 12;
/// Vertices around each ring.
const SLICES: u32 = 32;
/// Planes whose normal is this close to +y are the ground.
const GROUND_COS: f32 = 0.999;

/// The triangles of every drawn collider, and the ground's height.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Solids {
    /// Vertices in world space.
    pub vertices: Vec<SolidVertex>,
    /// Triangles, three indices each.
    pub indices: Vec<u32>,
    /// The height of the first plane facing up, if there is one.
    pub ground: Option<f32>,
}

impl Solids {
    /// What `colliders` look like now (at their current poses).
    pub fn of(colliders: &[Collider]) -> Self {
        let mut out = Self::default();
        for c in colliders {
            let pose = c.pose;
            match &c.shape {
                Shape::Sphere { radius } => out.round(
                    pose.translation,
                    radius * ROUND_INSET,
                    Vec3::Y,
                    -FRAC_PI_2,
                    FRAC_PI_2,
                    2 * RINGS,
                ),
                Shape::Capsule {
                    a,
                    b,
                    radius_a,
                    radius_b,
                } => out.capsule(
                    pose.transform_point(*a),
                    pose.transform_point(*b),
                    radius_a * ROUND_INSET,
                    radius_b * ROUND_INSET,
                ),
                Shape::Cuboid { half_extents } => {
                    let inset = Vec3::splat(BOX_INSET).min(0.1 * *half_extents);
                    out.cuboid(pose.translation, *half_extents - inset, pose.rotation)
                }
                Shape::Plane { normal, offset } => {
                    let n = pose.rotation * *normal;
                    if out.ground.is_none() && n.y >= GROUND_COS {
                        // The plane n · x = offset in its frame, moved by the pose.
                        out.ground = Some(offset + n.dot(pose.translation));
                    }
                }
                Shape::Mesh(_) => {}
            }
        }
        out
    }

    /// A tapered capsule from `a` (radius `ra`) to `b` (radius `rb`): the hull of two spheres,
    /// exactly. Its surface normals at latitude ψ about the axis u (from `a` to `b`) are
    /// cos ψ·e + sin ψ·u; those with sin ψ below sin β = (ra − rb)/|b − a| lie on the sphere
    /// at `a`, the rest on the one at `b`, and the band between the two rings at ψ = β is the
    /// cone that joins them.
    fn capsule(&mut self, a: Vec3, b: Vec3, ra: f32, rb: f32) {
        let length = a.distance(b);
        if length <= (ra - rb).abs() {
            // One sphere holds the other.
            let (c, r) = if ra >= rb { (a, ra) } else { (b, rb) };
            self.round(c, r, Vec3::Y, -FRAC_PI_2, FRAC_PI_2, 2 * RINGS);
            return;
        }
        let u = (b - a) / length;
        let beta = ((ra - rb) / length).asin();
        let first = self.vertices.len() as u32;
        self.rings(a, ra, u, -FRAC_PI_2, beta, RINGS);
        self.rings(b, rb, u, beta, FRAC_PI_2, RINGS);
        self.connect(first, 2 * (RINGS + 1));
    }

    /// A sphere (or a cap of one) about `center`: rings from latitude `from` to `to` about `u`.
    fn round(&mut self, center: Vec3, radius: f32, u: Vec3, from: f32, to: f32, rings: u32) {
        let first = self.vertices.len() as u32;
        self.rings(center, radius, u, from, to, rings);
        self.connect(first, rings + 1);
    }

    /// `rings + 1` rings of [`SLICES`] + 1 vertices (the seam doubled) on the sphere of
    /// `radius` about `center`, at latitudes from `from` to `to` about the axis `u`.
    fn rings(&mut self, center: Vec3, radius: f32, u: Vec3, from: f32, to: f32, rings: u32) {
        let (e1, e2) = u.any_orthonormal_pair();
        for i in 0..=rings {
            let psi = from + (to - from) * i as f32 / rings as f32;
            for j in 0..=SLICES {
                let phi = TAU * j as f32 / SLICES as f32;
                let n = psi.cos() * (phi.cos() * e1 + phi.sin() * e2) + psi.sin() * u;
                self.vertices.push(SolidVertex {
                    position: (center + radius * n).to_array(),
                    normal: n.to_array(),
                });
            }
        }
    }

    /// Quads between each ring and the next of `count` consecutive rings from vertex `first`.
    fn connect(&mut self, first: u32, count: u32) {
        let row = SLICES + 1;
        for i in 0..count.saturating_sub(1) {
            for j in 0..SLICES {
                let a = first + i * row + j;
                let (b, c, d) = (a + 1, a + row, a + row + 1);
                self.indices.extend_from_slice(&[a, c, b, b, c, d]);
            }
        }
    }

    /// A box about `center` with `half` extents, turned by `rotation`: six flat faces.
    fn cuboid(&mut self, center: Vec3, half: Vec3, rotation: Quat) {
        for axis in 0..3 {
            for sign in [-1.0f32, 1.0] {
                let mut n = Vec3::ZERO;
                n[axis] = sign;
                // The face's two other axes.
                let (mut s, mut t) = (Vec3::ZERO, Vec3::ZERO);
                s[(axis + 1) % 3] = half[(axis + 1) % 3];
                t[(axis + 2) % 3] = half[(axis + 2) % 3];
                let middle = n * half[axis];
                let first = self.vertices.len() as u32;
                for corner in [-s - t, s - t, s + t, -s + t] {
                    self.vertices.push(SolidVertex {
                        position: (center + rotation * (middle + corner)).to_array(),
                        normal: (rotation * n).to_array(),
                    });
                }
                self.indices.extend_from_slice(&[
                    first,
                    first + 1,
                    first + 2,
                    first,
                    first + 2,
                    first + 3,
                ]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every vertex of a drawn capsule lies on the tapered capsule's surface (drawn at
    /// [`ROUND_INSET`] of its radii): at the distance its interpolated radius gives from the
    /// segment, for a capsule turned and moved by its pose.
    #[test]
    fn a_drawn_tapered_capsule_lies_on_its_surface() {
        let (a, b, ra, rb) = (
            Vec3::new(0.1, 0.2, 0.3),
            Vec3::new(0.4, 1.0, -0.2),
            0.2,
            0.08,
        );
        let pose = crate::contact::Pose::new(Vec3::new(1.0, 0.5, -2.0), Quat::from_rotation_y(0.7));
        let solids = Solids::of(&[Collider::capsule(a, b, ra, rb).at(pose)]);
        let (a, b) = (pose.transform_point(a), pose.transform_point(b));
        let (ra, rb) = (ra * ROUND_INSET, rb * ROUND_INSET);
        assert!(!solids.indices.is_empty());
        for v in &solids.vertices {
            let p = Vec3::from(v.position);
            // The exact distance to the hull of two spheres: over points of the segment, the
            // least |p − x(t)| − r(t).
            let distance = (0..=2000)
                .map(|k| {
                    let t = k as f32 / 2000.0;
                    p.distance(a.lerp(b, t)) - (ra + (rb - ra) * t)
                })
                .fold(f32::MAX, f32::min);
            assert!(distance.abs() < 1e-4, "{p} is {distance} m off the surface");
            assert!((Vec3::from(v.normal).length() - 1.0).abs() < 1e-5);
        }
    }

    /// A box's faces are at its half extents (less the inset), turned with it; the ground is the
    /// upward plane; a mesh is not drawn.
    #[test]
    fn boxes_planes_and_meshes() {
        let half = Vec3::new(0.5, 0.1, 0.3);
        let turn = Quat::from_rotation_y(0.3);
        let mesh = crate::tools::scenes::bumpy_sphere(6, 8);
        let grid = crate::contact::DistanceGrid::from_mesh(&mesh, 8).unwrap();
        let solids = Solids::of(&[
            Collider::cuboid(Vec3::new(0.0, 1.0, 0.0), half, turn),
            Collider::plane(Vec3::X, 2.0),
            Collider::mesh(std::sync::Arc::new(grid), crate::contact::Pose::IDENTITY),
            Collider::ground(-0.25),
        ]);
        assert_eq!(solids.vertices.len(), 24);
        assert_eq!(solids.indices.len(), 36);
        assert_eq!(solids.ground, Some(-0.25));
        for v in &solids.vertices {
            let local = turn.inverse() * (Vec3::from(v.position) - Vec3::new(0.0, 1.0, 0.0));
            let drawn = half - Vec3::splat(BOX_INSET);
            assert!((local.abs() - drawn).abs().max_element() < 1e-5, "{local}");
        }
    }
}
