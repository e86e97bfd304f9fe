//! How good a cloth state is, reported beside every speed figure: structural edge stretch
//! (current length over rest length), and its energy (how a user checks a solver's damping).

use glam::Vec3;

use crate::cloth::Cloth;

/// Structural edge length over rest length, over every structural constraint of a state.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Stretch {
    /// Mean ratio (1 = at rest length).
    pub mean: f64,
    /// 99th percentile of the ratio.
    pub p99: f64,
    /// Largest ratio.
    pub max: f64,
}

/// The stretch of `positions` (in the cloth's particle order). A cloth without structural
/// constraints reports all ones.
pub fn stretch(cloth: &Cloth, positions: &[Vec3]) -> Stretch {
    let mut ratios: Vec<f64> = cloth
        .structural_constraints()
        .filter(|c| c.rest > 0.0)
        .map(|c| (positions[c.i as usize].distance(positions[c.j as usize]) / c.rest) as f64)
        .collect();
    if ratios.is_empty() {
        return Stretch {
            mean: 1.0,
            p99: 1.0,
            max: 1.0,
        };
    }
    ratios.sort_by(f64::total_cmp);
    let n = ratios.len();
    Stretch {
        mean: ratios.iter().sum::<f64>() / n as f64,
        p99: ratios[((n - 1) as f64 * 0.99).round() as usize],
        max: ratios[n - 1],
    }
}

/// The stretch of several cloths at once, as the demos show it: the largest p99 and max of
/// any cloth, and the mean of the cloths' means. Each item is a cloth and its positions.
pub fn stretch_of_cloths<'a>(cloths: impl IntoIterator<Item = (&'a Cloth, &'a [Vec3])>) -> Stretch {
    let all: Vec<Stretch> = cloths
        .into_iter()
        .map(|(cloth, positions)| stretch(cloth, positions))
        .collect();
    let mut total = Stretch::default();
    for one in &all {
        total.mean += one.mean / all.len() as f64;
        total.p99 = total.p99.max(one.p99);
        total.max = total.max.max(one.max);
    }
    total
}

/// A cloth's mechanical energy (J), from Verlet's positions (seed 001): what a user plots to
/// see how much a solver damps.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Energy {
    /// Σ ½ m |v|² over the free particles, v = (x − x₋₁) / h from the last substep.
    pub kinetic: f64,
    /// Σ −m g · x over the free particles (0 at the origin; only its changes mean anything).
    pub gravitational: f64,
    /// Σ ½ C² / α over the compliant constraints (C = length − rest, α in m/N). Rigid
    /// constraints (α = 0) hold no energy: what they remove shows as the others' loss.
    pub elastic: f64,
}

impl Energy {
    /// Kinetic + gravitational + elastic.
    pub fn total(&self) -> f64 {
        self.kinetic + self.gravitational + self.elastic
    }
}

/// The energy of a cloth state: `positions` (inverse mass in w: 0 for a pinned or held
/// particle, which is left out) and `previous` from the last substep of length `h` (s),
/// under `gravity` (m/s²) and `compliance`. Masses are the cloth's free masses.
pub fn energy(
    cloth: &Cloth,
    positions: &[glam::Vec4],
    previous: &[glam::Vec4],
    h: f64,
    gravity: Vec3,
    compliance: &crate::params::Compliance,
) -> Energy {
    let mut e = Energy::default();
    let g = gravity.as_dvec3();
    for ((x, x0), &w) in positions
        .iter()
        .zip(previous)
        .zip(cloth.free_inverse_masses())
    {
        if x.w == 0.0 || w == 0.0 {
            continue;
        }
        let m = 1.0 / w as f64;
        let v = (x.truncate().as_dvec3() - x0.truncate().as_dvec3()) / h;
        e.kinetic += 0.5 * m * v.length_squared();
        e.gravitational -= m * g.dot(x.truncate().as_dvec3());
    }
    let records = cloth.constraints();
    for (k, c) in records.iter().enumerate() {
        if c.is_triangle() {
            // A membrane triangle (its head): ½ C² / α of its stretch and its shear, each α
            // over twice its rest area, as the solvers take it.
            if c.is_stencil_tail() {
                continue;
            }
            let tail = &records[k + 1];
            let g = crate::cpu::common::triangle_frame(c, tail).as_dvec4();
            let (p, _, _) = crate::Constraint::triangle_parts(c, tail);
            let x = p.map(|i| positions[i as usize].truncate().as_dvec3());
            let (e1, e2) = (x[1] - x[0], x[2] - x[0]);
            let (fu, fv) = (e1 * g.x + e2 * g.y, e1 * g.z + e2 * g.w);
            let stretch = (fu.length() - 1.0).powi(2) + (fv.length() - 1.0).powi(2);
            let shear = fu.normalize_or_zero().dot(fv.normalize_or_zero()).powi(2);
            let area_scale = c.rest as f64 * tail.rest as f64;
            for (value, alpha) in [(stretch, compliance.stretch), (shear, compliance.shear)] {
                if alpha > 0.0 {
                    e.elastic += 0.5 * value / (alpha as f64 * area_scale);
                }
            }
            continue;
        }
        if c.is_stencil() {
            // A bending stencil (its head): ½ |κ|² / α.
            let alpha = compliance.curvature as f64;
            if c.is_stencil_tail() || alpha <= 0.0 {
                continue;
            }
            let (p, w) = crate::Constraint::stencil_parts(c, &records[k + 1]);
            let kappa: glam::DVec3 = (0..4)
                .map(|a| positions[p[a] as usize].truncate().as_dvec3() * w[a] as f64)
                .sum();
            e.elastic += 0.5 * kappa.length_squared() / alpha;
            continue;
        }
        let Some(kind) = crate::constraint::ConstraintKind::from_index(c.kind_number()) else {
            continue;
        };
        let alpha = compliance.of(kind) as f64;
        if alpha > 0.0 {
            let (a, b) = (positions[c.i as usize], positions[c.j as usize]);
            let stretch = a.truncate().distance(b.truncate()) as f64 - c.rest as f64;
            e.elastic += 0.5 * stretch * stretch / alpha;
        }
    }
    e
}

/// How many (box edge, cloth triangle) pairs cross: each of the twelve edges of every
/// [`Shape::Cuboid`](crate::Shape::Cuboid) collider, at its pose, against each triangle of the
/// cloth at `positions`. A box's corner or edge that pokes through the cloth crosses the
/// triangles it pokes through; cloth that wraps the box crosses none. Particles alone cannot
/// see this (a corner sharper than the spacing slips between them), which is why chiffon
/// tests a box's edges against the cloth's triangles (`collide_edges`), and why the tests and
/// `examples/contact_quality.rs` count it.
pub fn box_edges_through_cloth(
    triangles: &[[u32; 3]],
    positions: &[Vec3],
    colliders: &[crate::Collider],
) -> usize {
    let mut crossings = 0;
    for c in colliders {
        let crate::Shape::Cuboid { half_extents } = c.shape else {
            continue;
        };
        let corner = |k: usize| {
            c.pose
                .transform_point(half_extents * crate::contact::BOX_CORNERS[k])
        };
        let (lo, hi) = crate::geometry::bounds(&(0..8).map(corner).collect::<Vec<_>>());
        for &[a, b] in &crate::contact::BOX_EDGES {
            crossings += triangles_crossed(triangles, positions, (corner(a), corner(b)), (lo, hi));
        }
    }
    crossings
}

/// How many (capsule, cloth triangle) pairs cross: the axis of every
/// [`Shape::Capsule`](crate::Shape::Capsule) collider, at its pose, against each triangle of
/// the cloth at `positions`. Cloth that a capsule pokes through, or that slipped past a thin
/// one between two particles, crosses its axis; cloth that lies on it or wraps it crosses
/// none. A thin capsule's axis is kept out of the triangles for this
/// ([`Collider::is_thin_capsule`](crate::Collider::is_thin_capsule)).
pub fn capsule_axes_through_cloth(
    triangles: &[[u32; 3]],
    positions: &[Vec3],
    colliders: &[crate::Collider],
) -> usize {
    let mut crossings = 0;
    for c in colliders {
        let crate::Shape::Capsule { a, b, .. } = c.shape else {
            continue;
        };
        let (p, q) = (c.pose.transform_point(a), c.pose.transform_point(b));
        crossings += triangles_crossed(triangles, positions, (p, q), (p.min(q), p.max(q)));
    }
    crossings
}

/// How many of the triangles the segment `p..q` passes through; `bounds` holds the segment
/// (the collider's box: a triangle whose box misses it is skipped at once).
fn triangles_crossed(
    triangles: &[[u32; 3]],
    positions: &[Vec3],
    (p, q): (Vec3, Vec3),
    (lo, hi): (Vec3, Vec3),
) -> usize {
    triangles
        .iter()
        .filter(|t| {
            let [x, y, z] = t.map(|i| positions[i as usize]);
            !(x.min(y).min(z).cmpgt(hi).any() || x.max(y).max(z).cmplt(lo).any())
                && segment_crosses_triangle(p, q, x, y, z)
        })
        .count()
}

/// Whether the segment `p..q` passes through the triangle `a, b, c` (Möller–Trumbore, in
/// `f64`; a segment in the triangle's plane does not cross it).
fn segment_crosses_triangle(p: Vec3, q: Vec3, a: Vec3, b: Vec3, c: Vec3) -> bool {
    let (p, q, a, b, c) = (
        p.as_dvec3(),
        q.as_dvec3(),
        a.as_dvec3(),
        b.as_dvec3(),
        c.as_dvec3(),
    );
    let dir = q - p;
    let (e1, e2) = (b - a, c - a);
    let h = dir.cross(e2);
    let det = e1.dot(h);
    if det.abs() < 1e-18 {
        return false;
    }
    let s = p - a;
    let u = s.dot(h) / det;
    if !(0.0..=1.0).contains(&u) {
        return false;
    }
    let qv = s.cross(e1);
    let v = dir.dot(qv) / det;
    if v < 0.0 || u + v > 1.0 {
        return false;
    }
    let t = e2.dot(qv) / det;
    (0.0..=1.0).contains(&t)
}
