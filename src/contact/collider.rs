//! Colliders: kinematic bodies the cloth cannot enter. Each is a [`Shape`] in its own frame,
//! placed by a [`Pose`], with a thickness (margin), Coulomb friction and restitution.

use std::sync::Arc;

use glam::{Quat, Vec3};

use super::grid::DistanceGrid;
use crate::error::{ChiffonError, Result, shown, shown3};

/// Where a collider is: a rotation, then a translation (rigid: distances stay distances).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Pose {
    /// Translation (m).
    pub translation: Vec3,
    /// Rotation (a unit quaternion).
    pub rotation: Quat,
}

impl Default for Pose {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Pose {
    /// No rotation, no translation.
    pub const IDENTITY: Pose = Pose {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
    };

    /// A pose from a translation and a rotation.
    pub fn new(translation: Vec3, rotation: Quat) -> Self {
        Self {
            translation,
            rotation,
        }
    }

    /// A translation alone.
    pub fn from_translation(translation: Vec3) -> Self {
        Self::new(translation, Quat::IDENTITY)
    }

    /// A point of the collider's frame in the world.
    pub fn transform_point(&self, p: Vec3) -> Vec3 {
        self.rotation * p + self.translation
    }

    /// A world point in the collider's frame.
    pub fn inverse_transform_point(&self, p: Vec3) -> Vec3 {
        self.rotation.inverse() * (p - self.translation)
    }
}

/// A collider's shape, in its own frame.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Shape {
    /// A sphere about the frame's origin.
    Sphere {
        /// Radius (m), > 0.
        radius: f32,
    },
    /// A tapered capsule: every point within the radius that varies linearly from `radius_a`
    /// at `a` to `radius_b` at `b` (NvCloth's tapered capsule, exactly: the hull of two
    /// spheres). Equal radii make a plain capsule; `a == b` a sphere.
    Capsule {
        /// One end (m).
        a: Vec3,
        /// The other end (m).
        b: Vec3,
        /// Radius at `a` (m), > 0.
        radius_a: f32,
        /// Radius at `b` (m), > 0.
        radius_b: f32,
    },
    /// The half-space below the plane `normal · x = offset`; the cloth stays on the side the
    /// normal points to.
    Plane {
        /// The plane's normal (normalized when the collider is made).
        normal: Vec3,
        /// Its distance from the frame's origin along the normal (m).
        offset: f32,
    },
    /// A box about the frame's origin.
    Cuboid {
        /// Half its size along x, y and z (m), each > 0.
        half_extents: Vec3,
    },
    /// A triangle mesh, as a signed distance grid ([`DistanceGrid`]).
    Mesh(Arc<DistanceGrid>),
}

impl Shape {
    /// Its number in the kernels (`COLLIDER_*` in `shaders/colliders.wgsl`).
    pub(crate) fn kind(&self) -> u32 {
        match self {
            Shape::Sphere { .. } => 0,
            Shape::Capsule { .. } => 1,
            Shape::Plane { .. } => 2,
            Shape::Cuboid { .. } => 3,
            Shape::Mesh(_) => 4,
        }
    }

    /// A capsule (segment ends and radius) in the shape's frame that holds it, as tight as
    /// one is cheaply: the kernels cull with it, and a sphere round a long post or a flat box
    /// would hold far more of the space around it. `None` for a plane.
    pub(crate) fn bounding_capsule(&self) -> Option<(Vec3, Vec3, f32)> {
        match self {
            Shape::Capsule {
                a,
                b,
                radius_a,
                radius_b,
            } => Some((*a, *b, radius_a.max(*radius_b))),
            // Along the longest axis, the radius reaching the corners across it.
            Shape::Cuboid { half_extents: h } => {
                let long = h.max_position();
                let mut axis = Vec3::ZERO;
                axis[long] = h[long];
                let mut across = *h;
                across[long] = 0.0;
                Some((-axis, axis, across.length()))
            }
            _ => self.bounds().map(|(c, r)| (c, c, r)),
        }
    }

    /// A sphere (centre, radius) in the shape's frame that holds it; `None` for a plane.
    pub fn bounds(&self) -> Option<(Vec3, f32)> {
        match self {
            Shape::Sphere { radius } => Some((Vec3::ZERO, *radius)),
            Shape::Capsule {
                a,
                b,
                radius_a,
                radius_b,
            } => {
                let c = (*a + *b) * 0.5;
                Some((c, a.distance(c) + radius_a.max(*radius_b)))
            }
            Shape::Plane { .. } => None,
            Shape::Cuboid { half_extents } => Some((Vec3::ZERO, half_extents.length())),
            Shape::Mesh(grid) => Some(grid.bounds()),
        }
    }
}

/// Default collider thickness: the distance the cloth keeps from a collider's surface (m).
pub const DEFAULT_THICKNESS: f32 = 0.005;

/// A capsule whose radius plus thickness is under this many of the cloth's spacings (its
/// longest mean edge, in a world) also keeps its axis out of the cloth's triangles, as a box
/// keeps its edges ([`Collider::is_thin_capsule`]): its particles alone let an edge of the
/// cloth through between two of them (a sheet of 2.5 cm spacing fell through rods of 1 to
/// 25 mm radius and held on one of 27 mm, the 5 mm thickness added: 1.28 spacings).
pub const THIN_CAPSULE_SPACINGS: f32 = 1.3;

/// The least distance the cloth keeps from an open mesh (a shell, an unsigned grid), in cells
/// of its grid ([`Collider::contact_thickness`]). A grid's trilinear blend of unsigned
/// distances is up to half a cell where the shell passes between its samples, so a thinner
/// thickness is never reached there and the cloth falls through: a sheet dropped on a 1.2 m
/// plate tilted half a degree, 1.3 cm cells, fell through at 0.5 of a cell and held at 0.55.
pub const OPEN_MESH_MIN_THICKNESS_CELLS: f32 = 0.6;
/// Default Coulomb friction coefficient between cloth and colliders.
pub const DEFAULT_FRICTION: f32 = 0.3;
/// Default coefficient of restitution (0: no bounce).
pub const DEFAULT_RESTITUTION: f32 = 0.0;
/// Largest friction coefficient accepted.
pub const MAX_FRICTION: f32 = 10.0;
/// Largest thickness accepted (m).
pub const MAX_THICKNESS: f32 = 1.0e3;

/// A kinematic body the cloth cannot enter.
///
/// Move it by setting [`Collider::pose`] before a step (through
/// [`crate::World::set_collider_pose`] or the parameters): the solver moves it from its pose at
/// the previous step to the new one across the frame's substeps, and its motion carries the
/// cloth through friction. A collider that moves far in one frame does not teleport cloth
/// through itself: each particle's path relative to the collider is followed over the substep
/// (sphere tracing), and a particle that entered is put back on the side it came from.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Collider {
    /// Its shape, in its own frame.
    pub shape: Shape,
    /// Where it is now. Default [`Pose::IDENTITY`].
    pub pose: Pose,
    /// The distance the cloth keeps from its surface (m), ≥ 0. Default [`DEFAULT_THICKNESS`].
    pub thickness: f32,
    /// Coulomb friction coefficient μ ≥ 0: a particle pressed into the surface by a depth d
    /// per substep sticks while it would slide less than μ·d, else slides with its tangential
    /// motion reduced by μ·d (Macklin et al. 2014, §6.1). Cloth on a slope slides exactly when
    /// tan θ > μ. Default [`DEFAULT_FRICTION`].
    pub friction: f32,
    /// Coefficient of restitution e in [0, 1]: a particle leaves the surface at e times the
    /// normal speed it hit it with (set through its previous position). Default
    /// [`DEFAULT_RESTITUTION`].
    pub restitution: f32,
}

impl Collider {
    /// A collider of `shape` at `pose`, with the default thickness, friction and restitution.
    pub fn new(shape: Shape, pose: Pose) -> Self {
        Self {
            shape,
            pose,
            thickness: DEFAULT_THICKNESS,
            friction: DEFAULT_FRICTION,
            restitution: DEFAULT_RESTITUTION,
        }
    }

    /// A sphere of `radius` (m) centred at `center` (m).
    pub fn sphere(center: Vec3, radius: f32) -> Self {
        Self::new(Shape::Sphere { radius }, Pose::from_translation(center))
    }

    /// A tapered capsule from `a` (radius `radius_a`) to `b` (radius `radius_b`), in metres.
    pub fn capsule(a: Vec3, b: Vec3, radius_a: f32, radius_b: f32) -> Self {
        Self::new(
            Shape::Capsule {
                a,
                b,
                radius_a,
                radius_b,
            },
            Pose::IDENTITY,
        )
    }

    /// The plane `normal · x = offset`, the cloth on the side `normal` points to.
    pub fn plane(normal: Vec3, offset: f32) -> Self {
        Self::new(Shape::Plane { normal, offset }, Pose::IDENTITY)
    }

    /// An infinite floor at `height` (m), normal +y.
    pub fn ground(height: f32) -> Self {
        Self::plane(Vec3::Y, height)
    }

    /// A box centred at `center` with `half_extents` (m), turned by `rotation`.
    pub fn cuboid(center: Vec3, half_extents: Vec3, rotation: Quat) -> Self {
        Self::new(Shape::Cuboid { half_extents }, Pose::new(center, rotation))
    }

    /// A triangle mesh's signed distance grid, placed at `pose`.
    pub fn mesh(grid: Arc<DistanceGrid>, pose: Pose) -> Self {
        Self::new(Shape::Mesh(grid), pose)
    }

    /// The distance the solver keeps the cloth from the surface (m): [`Self::thickness`], but
    /// for an open mesh at least [`OPEN_MESH_MIN_THICKNESS_CELLS`] of its grid's cell (an open
    /// tablecloth of 1.2 m at the default 96 samples: 7.5 mm where 5 mm is asked), since a
    /// thinner one lets the cloth through the shell between the grid's samples.
    pub fn contact_thickness(&self) -> f32 {
        match &self.shape {
            Shape::Mesh(grid) if !grid.is_signed() => self
                .thickness
                .max(OPEN_MESH_MIN_THICKNESS_CELLS * grid.cell_size()),
            _ => self.thickness,
        }
    }

    /// Whether this is a capsule thin enough, against a cloth of `spacing` (m, its mean
    /// edge), that an edge of the cloth could pass through it between two particles: then
    /// the triangles keep its axis out too ([`THIN_CAPSULE_SPACINGS`]).
    pub fn is_thin_capsule(&self, spacing: f32) -> bool {
        match self.shape {
            Shape::Capsule {
                radius_a, radius_b, ..
            } => {
                radius_a.min(radius_b) + self.contact_thickness() < THIN_CAPSULE_SPACINGS * spacing
            }
            _ => false,
        }
    }

    /// The same collider with `thickness` (m).
    pub fn thickness(self, thickness: f32) -> Self {
        Self { thickness, ..self }
    }

    /// The same collider with friction coefficient `friction`.
    pub fn friction(self, friction: f32) -> Self {
        Self { friction, ..self }
    }

    /// The same collider with coefficient of restitution `restitution`.
    pub fn restitution(self, restitution: f32) -> Self {
        Self {
            restitution,
            ..self
        }
    }

    /// The same collider at `pose`.
    pub fn at(self, pose: Pose) -> Self {
        Self { pose, ..self }
    }

    /// The signed distance (m) from `point` to the collider's surface at its pose, by the
    /// arithmetic the collide pass uses: negative inside a sphere, capsule, box or closed mesh
    /// and behind a plane; an open mesh's is unsigned. A mesh's is its grid's trilinear
    /// sample: exact near the surface and, deeper than
    /// [`BAND_CELLS`](crate::contact::BAND_CELLS) cells, a bound that never overestimates the
    /// distance ([`DistanceGrid`]). The thickness is not counted: the solver keeps the cloth
    /// where this is at least the collider's `thickness`. A free particle where it is under the
    /// thickness at the start is pushed out to it at up to about 3 m/s (`config::ESCAPE_SPEED`),
    /// whatever the depth.
    pub fn distance(&self, point: Vec3) -> f32 {
        let grid = match &self.shape {
            Shape::Mesh(grid) => grid.values(),
            _ => &[],
        };
        crate::cpu::colliders::distance_at(&self.record(self.pose, 0), grid, point)
    }

    /// Checks the shape and the material; the error names collider `index`.
    pub(crate) fn validate(&self, index: usize) -> Result<()> {
        let shape = ["sphere", "capsule", "plane", "box", "mesh"][self.shape.kind() as usize];
        let bad = |reason: String| {
            Err(ChiffonError::InvalidParameter {
                name: "collider",
                reason: format!("collider {index} (a {shape}): {reason}"),
            })
        };
        // Sizes and places past MAX_COORDINATE are refused with that bound and its reason, not
        // as "not finite": the kernels work in f32, and a collider there is lost, not moved.
        let max = crate::config::MAX_COORDINATE;
        let why = "chiffon takes sizes and coordinates up to that: positions are f32, good to \
                   6 cm at 1e6 m, and a collider farther out is lost by the contact test";
        let positive = |what: &str, v: f32| {
            if !(v.is_finite() && v > 0.0) {
                bad(format!(
                    "its {shape} {what} is {v}; it must be finite and greater than 0"
                ))
            } else if v > max {
                bad(format!(
                    "its {shape} {what} is {} m, more than {max:e} m; {why}",
                    shown(v)
                ))
            } else {
                Ok(())
            }
        };
        let finite = |what: &str, v: Vec3| {
            if !v.is_finite() {
                bad(format!("its {what} {v} is not finite"))
            } else if v.abs().max_element() > max {
                bad(format!(
                    "its {what} {} is more than {max:e} m from the origin on an axis; {why}",
                    shown3(v)
                ))
            } else {
                Ok(())
            }
        };
        finite("position", self.pose.translation)?;
        let q = self.pose.rotation;
        if !(q.is_finite() && (q.length() - 1.0).abs() < 1e-3) {
            return bad(format!("its rotation {q} is not a unit quaternion"));
        }
        for (what, v, max) in [
            ("thickness (m)", self.thickness, MAX_THICKNESS),
            ("friction", self.friction, MAX_FRICTION),
            ("restitution", self.restitution, 1.0),
        ] {
            if !(v.is_finite() && (0.0..=max).contains(&v)) {
                return bad(format!("its {what} is {v}; it must be between 0 and {max}"));
            }
        }
        match &self.shape {
            Shape::Sphere { radius } => positive("radius", *radius)?,
            Shape::Capsule {
                a,
                b,
                radius_a,
                radius_b,
            } => {
                finite("capsule end", *a)?;
                finite("capsule end", *b)?;
                positive("first radius", *radius_a)?;
                positive("second radius", *radius_b)?;
            }
            Shape::Plane { normal, offset } => {
                if !normal.is_finite() {
                    return bad(format!("its plane normal {normal} is not finite"));
                }
                // The kernels read the normal made unit length: its length must be a
                // number f32 holds (a component of 1e20 squares past f32's largest).
                let len = normal.length();
                if len < 1e-6 {
                    return bad(format!(
                        "its plane normal {} is zero or too short (length under 1e-6) to \
                         make unit length; give one of ordinary size, such as 0,1,0",
                        shown3(*normal)
                    ));
                }
                if !len.is_finite() {
                    return bad(format!(
                        "its plane normal {} is too long to make unit length in f32; \
                         give one of ordinary size, such as 0,1,0",
                        shown3(*normal)
                    ));
                }
                if !offset.is_finite() {
                    return bad(format!(
                        "its plane offset {offset} is not a finite distance"
                    ));
                }
                let distance = offset / len;
                if distance.abs() > max || !distance.is_finite() {
                    return bad(format!(
                        "its plane is {} m from the origin (offset {} over the normal's length \
                         {}), more than {max:e} m; {why}",
                        shown(distance),
                        shown(*offset),
                        shown(len)
                    ));
                }
            }
            Shape::Cuboid { half_extents } => {
                for v in half_extents.to_array() {
                    positive("half extent", v)?;
                }
            }
            Shape::Mesh(_) => {}
        }
        // Each number within the bound is not enough: a box of half extent 1e6 centred at 1e6
        // reaches 2e6, where a cloth resting on it collapsed to a few f32 points.
        let turn = glam::Mat3::from_quat(q);
        let reach = match &self.shape {
            Shape::Sphere { radius } => Some(self.pose.translation.abs() + Vec3::splat(*radius)),
            Shape::Capsule {
                a,
                b,
                radius_a,
                radius_b,
            } => Some(
                self.pose
                    .transform_point(*a)
                    .abs()
                    .max(self.pose.transform_point(*b).abs())
                    + Vec3::splat(radius_a.max(*radius_b)),
            ),
            Shape::Cuboid { half_extents } => Some(
                self.pose.translation.abs()
                    + turn.x_axis.abs() * half_extents.x
                    + turn.y_axis.abs() * half_extents.y
                    + turn.z_axis.abs() * half_extents.z,
            ),
            Shape::Plane { .. } | Shape::Mesh(_) => None,
        };
        if let Some(reach) = reach {
            let far = reach.max_element() + self.thickness;
            if far > max {
                return bad(format!(
                    "it reaches {} m from the origin on an axis (its place, its size and its \
                     thickness), more than {max:e} m; {why}",
                    shown(far)
                ));
            }
        }
        Ok(())
    }

    /// The shape with a plane's normal made unit length (what the kernels read).
    pub(crate) fn normalized_shape(&self) -> Shape {
        match &self.shape {
            Shape::Plane { normal, offset } => {
                let len = normal.length();
                Shape::Plane {
                    normal: *normal / len,
                    offset: offset / len,
                }
            }
            s => s.clone(),
        }
    }

    /// The collider as the kernels read it, moving from pose `from` (at the frame's start) to
    /// its own pose (at its end); a mesh's samples start at `grid_offset` of the grid table.
    pub(crate) fn record(&self, from: Pose, grid_offset: u32) -> crate::config::ColliderRecord {
        let shape = self.normalized_shape();
        let v4 = |v: Vec3, w: f32| v.extend(w).to_array();
        let (shape_a, shape_b, grid_dims) = match &shape {
            Shape::Sphere { radius } => (v4(Vec3::ZERO, *radius), [0.0; 4], [0; 4]),
            Shape::Capsule {
                a,
                b,
                radius_a,
                radius_b,
            } => (v4(*a, *radius_a), v4(*b, *radius_b), [0; 4]),
            Shape::Plane { normal, offset } => (v4(*normal, *offset), [0.0; 4], [0; 4]),
            Shape::Cuboid { half_extents } => (v4(*half_extents, 0.0), [0.0; 4], [0; 4]),
            Shape::Mesh(grid) => {
                let [x, y, z] = grid.dims();
                (v4(grid.origin(), grid.cell_size()), [0.0; 4], [x, y, z, 0])
            }
        };
        // The bounding capsule's ends move on arcs as the collider turns; the kernels take
        // the chords between their ends, so the radius gets the arcs' room (an end's offset
        // from the rotation's centre times the angle turned).
        let (bound_from_a, bound_from_b, bound_to_a, bound_to_b) = match shape.bounding_capsule() {
            None => ([0.0, 0.0, 0.0, -1.0], [0.0; 4], [0.0; 4], [0.0; 4]),
            Some((a, b, r)) => {
                let turn = from.rotation.angle_between(self.pose.rotation);
                (
                    v4(
                        from.transform_point(a),
                        r + a.length().max(b.length()) * turn,
                    ),
                    v4(from.transform_point(b), 0.0),
                    v4(self.pose.transform_point(a), 0.0),
                    v4(self.pose.transform_point(b), 0.0),
                )
            }
        };
        crate::config::ColliderRecord {
            kind: shape.kind(),
            grid_offset,
            pad0: 0,
            pad1: 0,
            grid_dims,
            material: [
                self.contact_thickness(),
                self.friction,
                self.restitution,
                0.0,
            ],
            shape_a,
            shape_b,
            bound_from_a,
            bound_from_b,
            bound_to_a,
            bound_to_b,
            from_position: v4(from.translation, 0.0),
            from_rotation: from.rotation.to_array(),
            to_position: v4(self.pose.translation, 0.0),
            to_rotation: self.pose.rotation.to_array(),
        }
    }

    /// A world-space box that holds the collider's surface padded by its thickness, where the
    /// cloth it pushes comes to rest (for the scene's extent), or for a plane the point of it
    /// nearest the origin and that point moved the thickness along its normal. Without the
    /// thickness, cloth resting on a collider thicker than the scene (a padded sphere, up to
    /// [`MAX_THICKNESS`]) was past the divergence limit and called diverged.
    pub(crate) fn world_bounds(&self) -> (Vec3, Vec3) {
        match self.normalized_shape() {
            Shape::Plane { normal, offset } => {
                let p = self.pose.transform_point(normal * offset);
                let q = p + self.pose.rotation * normal * self.thickness;
                (p.min(q), p.max(q))
            }
            shape => {
                let (c, r) = shape.bounds().expect("only a plane is unbounded");
                let c = self.pose.transform_point(c);
                let r = r + self.contact_thickness();
                (c - Vec3::splat(r), c + Vec3::splat(r))
            }
        }
    }
}
