//! Describing a cloth: particles, constraints (already colored) and triangles for drawing.

use glam::Vec3;

use crate::coloring::ColoredConstraints;
use crate::config::MAX_PARTICLES;
use crate::error::{ChiffonError, Result, check_finite3};
use crate::geometry::{MeshStats, UvLayer, VertexTriangles};

pub use crate::constraint::{Constraint, ConstraintKind};

/// The shape of a grid cloth (for the grid-only pin selections and for reports).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridShape {
    /// Particles per row.
    pub columns: u32,
    /// Rows of particles.
    pub rows: u32,
    /// Rest distance between neighbours (m).
    pub spacing: f32,
}

/// Everything a cloth is made of, in any order: [`Cloth::new`] checks it, colors the
/// constraints and sorts them by color. Ropes and other non-grid shapes are built this way.
#[derive(Clone, Debug, Default)]
pub struct ClothDesc {
    /// Initial positions (m).
    pub positions: Vec<Vec3>,
    /// Inverse masses (1/kg), one per particle; 0 pins a particle.
    pub inverse_mass: Vec<f32>,
    /// Initial velocity of every free particle (m/s).
    pub velocity: Vec3,
    /// Distance constraints (rest length in m, and kind), bending stencils and membrane
    /// triangles.
    pub constraints: Vec<Constraint>,
    /// A membrane of triangles' edges ([`crate::Membrane::Triangles`]): distance records
    /// that are not solved, kept for the strain limit, the coarse levels and the measures.
    /// Empty when the edges are the membrane.
    pub membrane_edges: Vec<Constraint>,
    /// Triangles for drawing and export (may be empty, e.g. for a rope).
    pub triangles: Vec<[u32; 3]>,
    /// Texture coordinates per triangle corner, parallel to `triangles`.
    pub uvs: Option<UvLayer>,
    /// Named particle sets (a mesh's OBJ groups).
    pub groups: Vec<ParticleGroup>,
}

/// A named set of particles (an OBJ group, after welding).
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ParticleGroup {
    /// The group's name.
    pub name: String,
    /// Its particles, sorted.
    pub particles: Vec<u32>,
}

/// A built cloth: initial state plus topology, checked and colored. Both solvers are made from
/// it; every way to make one validates it, so an invalid cloth cannot reach a solver.
#[derive(Clone, Debug)]
pub struct Cloth {
    positions: Vec<Vec3>,
    inverse_mass: Vec<f32>,
    free_inverse_mass: Vec<f32>,
    velocity: Vec3,
    constraints: ColoredConstraints,
    membrane_edges: Vec<Constraint>,
    triangles: Vec<[u32; 3]>,
    uvs: Option<UvLayer>,
    groups: Vec<ParticleGroup>,
    vertex_triangles: VertexTriangles,
    grid: Option<GridShape>,
    stats: MeshStats,
}

impl Cloth {
    /// Checks `desc` (finite positions and velocity, non-negative finite inverse masses,
    /// indices in range, finite non-negative rest lengths, known kinds), colors its
    /// constraints and sorts them by color.
    pub fn new(desc: ClothDesc) -> Result<Self> {
        Self::build(desc, None, MeshStats::default(), None)
    }

    /// `free`: the inverse masses the particles have when not pinned (the builder knows them;
    /// for a [`ClothDesc`] a pinned particle gets the mean of the free ones).
    pub(crate) fn build(
        desc: ClothDesc,
        grid: Option<GridShape>,
        stats: MeshStats,
        free: Option<Vec<f32>>,
    ) -> Result<Self> {
        let n = desc.positions.len();
        let bad = |msg: String| Err(ChiffonError::InvalidCloth(msg));
        if n == 0 {
            return bad("a cloth needs at least one particle".into());
        }
        if n as u64 > MAX_PARTICLES {
            return bad(format!(
                "{n} particles is more than the {MAX_PARTICLES} chiffon supports"
            ));
        }
        if desc.inverse_mass.len() != n {
            return bad(format!(
                "{} inverse masses for {n} particles",
                desc.inverse_mass.len()
            ));
        }
        if let Some(p) = desc.positions.iter().position(|p| !p.is_finite()) {
            return bad(format!("particle {p} has a non-finite position"));
        }
        if let Some(p) = desc
            .inverse_mass
            .iter()
            .position(|w| !(w.is_finite() && *w >= 0.0))
        {
            return bad(format!(
                "particle {p} has inverse mass {}; it must be finite and at least 0",
                desc.inverse_mass[p]
            ));
        }
        check_finite3("initial velocity", desc.velocity)?;
        for (k, c) in desc.constraints.iter().enumerate() {
            if c.is_stencil() {
                // A head, then its tail, with finite weights: what `Constraint::stencil` makes.
                let records = &desc.constraints;
                let is_head = |r: &Constraint| {
                    r.is_stencil()
                        && !r.is_stencil_tail()
                        && (r.kind_number() == ConstraintKind::Bend as u32 || r.is_triangle())
                };
                let finite = |h: &Constraint, t: &Constraint| {
                    if h.is_triangle() {
                        // Its tail's second index repeats its first particle.
                        t.is_triangle()
                            && t.j == h.i
                            && Constraint::triangle_parts(h, t)
                                .1
                                .iter()
                                .all(|m| m.is_finite())
                    } else {
                        !t.is_triangle()
                            && Constraint::stencil_parts(h, t)
                                .1
                                .iter()
                                .all(|w| w.is_finite())
                    }
                };
                let pair = if c.is_stencil_tail() {
                    k.checked_sub(1).map(|h| (&records[h], c))
                } else {
                    records.get(k + 1).map(|t| (c, t))
                };
                let whole =
                    pair.is_some_and(|(h, t)| is_head(h) && t.is_stencil_tail() && finite(h, t));
                if !whole {
                    return bad(format!(
                        "constraint {k} is half of a bending stencil or a membrane triangle \
                         without its other half, or with weights that are not finite"
                    ));
                }
                continue;
            }
            if !(c.rest.is_finite() && c.rest >= 0.0) {
                return bad(format!("constraint {k} has rest length {}", c.rest));
            }
            if ConstraintKind::from_index(c.packed).is_none() {
                return bad(format!("constraint {k} has unknown kind {}", c.packed));
            }
        }
        if let Some((k, c)) = desc.membrane_edges.iter().enumerate().find(|(_, c)| {
            !c.is_distance()
                || c.i as usize >= n
                || c.j as usize >= n
                || c.i == c.j
                || !(c.rest.is_finite() && c.rest >= 0.0)
        }) {
            return bad(format!(
                "membrane edge {k} ({} to {}, rest length {}) is not a distance between two of \
                 the {n} particles",
                c.i, c.j, c.rest
            ));
        }
        if let Some(t) = desc
            .triangles
            .iter()
            .find(|t| t.iter().any(|&v| v as usize >= n))
        {
            return bad(format!("triangle {t:?} names a particle beyond {n}"));
        }
        if let Some(uv) = &desc.uvs
            && (uv.triangles.len() != desc.triangles.len()
                || uv
                    .triangles
                    .iter()
                    .flatten()
                    .any(|&i| i as usize >= uv.uvs.len())
                || uv.uvs.iter().any(|u| !u.is_finite()))
        {
            return bad(format!(
                "the UV layer ({} UVs, {} UV triangles) does not match the {} triangles \
                     or is not finite",
                uv.uvs.len(),
                uv.triangles.len(),
                desc.triangles.len()
            ));
        }
        if let Some(g) = desc
            .groups
            .iter()
            .find(|g| g.particles.iter().any(|&p| p as usize >= n))
        {
            return bad(format!("group {:?} names a particle beyond {n}", g.name));
        }
        let (constraints, _) = ColoredConstraints::new(&desc.constraints, n)?;
        let free_inverse_mass = match free {
            Some(free) if free.len() == n && free.iter().all(|w| w.is_finite() && *w > 0.0) => free,
            _ => {
                let (sum, count) = desc
                    .inverse_mass
                    .iter()
                    .filter(|&&w| w > 0.0)
                    .fold((0.0f64, 0usize), |(s, c), &w| (s + w as f64, c + 1));
                let mean = if count > 0 {
                    (sum / count as f64) as f32
                } else {
                    1.0
                };
                desc.inverse_mass
                    .iter()
                    .map(|&w| if w > 0.0 { w } else { mean })
                    .collect()
            }
        };
        Ok(Cloth {
            free_inverse_mass,
            vertex_triangles: VertexTriangles::new(n, &desc.triangles),
            positions: desc.positions,
            inverse_mass: desc.inverse_mass,
            velocity: desc.velocity,
            constraints,
            membrane_edges: desc.membrane_edges,
            triangles: desc.triangles,
            uvs: desc.uvs,
            groups: desc.groups,
            grid,
            stats,
        })
    }

    /// Number of particles.
    pub fn particle_count(&self) -> usize {
        self.positions.len()
    }

    /// Initial positions (m).
    pub fn positions(&self) -> &[Vec3] {
        &self.positions
    }

    /// Inverse masses (1/kg); 0 = pinned.
    pub fn inverse_masses(&self) -> &[f32] {
        &self.inverse_mass
    }

    /// The inverse mass each particle has when it is not pinned (1/kg): what unpinning gives
    /// back.
    pub fn free_inverse_masses(&self) -> &[f32] {
        &self.free_inverse_mass
    }

    /// Mean rest length of the structural constraints (m), the cloth's resolution; 0 without.
    pub fn mean_edge_length(&self) -> f32 {
        let (sum, count) = self
            .structural_constraints()
            .fold((0.0f64, 0usize), |(s, c), k| (s + k.rest as f64, c + 1));
        if count == 0 {
            0.0
        } else {
            (sum / count as f64) as f32
        }
    }

    /// Initial velocity of free particles (m/s).
    pub fn velocity(&self) -> Vec3 {
        self.velocity
    }

    /// The grid's shape, for a cloth made by [`ClothBuilder::grid`](crate::ClothBuilder::grid).
    pub fn grid(&self) -> Option<GridShape> {
        self.grid
    }

    /// Triangles for drawing and export.
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// Texture coordinates per triangle corner, if the cloth has them (grids and most meshes).
    pub fn uvs(&self) -> Option<&UvLayer> {
        self.uvs.as_ref()
    }

    /// Named particle sets (a mesh's OBJ groups).
    pub fn groups(&self) -> &[ParticleGroup] {
        &self.groups
    }

    /// For each particle, the triangles that use it (what the normals kernel walks).
    pub fn vertex_triangles(&self) -> &VertexTriangles {
        &self.vertex_triangles
    }

    /// What building the cloth from a mesh found (welded vertices, dropped triangles,
    /// non-manifold edges); zeros for cloths made otherwise.
    pub fn mesh_stats(&self) -> MeshStats {
        self.stats
    }

    /// The constraints, sorted by color.
    pub fn constraints(&self) -> &[Constraint] {
        self.constraints.constraints()
    }

    /// The constraints with their checked coloring.
    pub fn colored(&self) -> &ColoredConstraints {
        &self.constraints
    }

    /// Whether particle `i` is pinned in the initial state (inverse mass 0).
    pub fn is_pinned(&self, i: usize) -> bool {
        self.inverse_mass[i] == 0.0
    }

    /// One contiguous range of [`Self::constraints`] per color, in solve order.
    pub fn colors(&self) -> &[std::ops::Range<u32>] {
        self.constraints.colors()
    }

    /// Number of constraints.
    pub fn constraint_count(&self) -> usize {
        self.constraints.constraints().len()
    }

    /// Constraints per color.
    pub fn color_sizes(&self) -> Vec<u32> {
        self.constraints.color_sizes()
    }

    /// The same cloth moved by `transform`: a rotation, a uniform scale and a translation
    /// (rest lengths scale with it; masses stay). The initial velocity turns with it.
    pub fn transformed(&self, transform: glam::Affine3A) -> Result<Cloth> {
        let m = glam::Mat3::from(transform.matrix3);
        let scale = m.x_axis.length();
        let similar = (m.transpose() * m - glam::Mat3::IDENTITY * (scale * scale))
            .to_cols_array()
            .iter()
            .all(|v| v.abs() <= 1e-4 * scale * scale);
        if !(transform.is_finite() && scale > 0.0 && similar && m.determinant() > 0.0) {
            return Err(ChiffonError::InvalidParameter {
                name: "cloth transform",
                reason: "it must be a rotation, a uniform positive scale and a translation \
                         (finite)"
                    .into(),
            });
        }
        let mut out = self.clone();
        for p in &mut out.positions {
            *p = transform.transform_point3(*p);
        }
        out.velocity = (m * self.velocity) / scale;
        out.constraints.scale_rest(scale);
        for c in &mut out.membrane_edges {
            c.rest *= scale;
        }
        if let Some(g) = &mut out.grid {
            g.spacing *= scale;
        }
        Ok(out)
    }

    /// Largest extent of the cloth at rest (m); tolerances scale with it.
    pub fn size(&self) -> f32 {
        if let Some(g) = self.grid {
            return g.spacing * (g.columns.max(g.rows) - 1) as f32;
        }
        let (lo, hi) = crate::geometry::bounds(&self.positions);
        (hi - lo).max_element()
    }

    /// Structural constraints (for stretch statistics, the strain limit and the coarse
    /// levels): the solved ones, or the membrane's edges when its triangles are solved instead.
    pub fn structural_constraints(&self) -> impl Iterator<Item = &Constraint> {
        (self.constraints().iter())
            .chain(&self.membrane_edges)
            .filter(|c| c.is_structural())
    }

    /// A membrane of triangles' edges, not solved ([`ClothDesc::membrane_edges`]); empty when
    /// the edges are the membrane.
    pub fn membrane_edges(&self) -> &[Constraint] {
        &self.membrane_edges
    }
}
