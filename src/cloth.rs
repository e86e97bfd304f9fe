//! Describing a cloth: particles, constraints (already colored) and triangles for drawing.

use glam::Vec3;

use crate::builder::MAX_PARTICLES;
use crate::coloring::ColoredConstraints;
use crate::error::{ChiffonError, Result, check_finite3};
use crate::geometry::{MeshStats, UvLayer, VertexTriangles};

/// One distance constraint as both the GPU and the CPU store it (16 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Constraint {
    /// First particle.
    pub i: u32,
    /// Second particle.
    pub j: u32,
    /// Rest length (m).
    pub rest: f32,
    /// Two numbers in one word, so the record stays 16 bytes: bits 0–1 are the kind number
    /// ([`ConstraintKind`] as `u32`, or `LIMIT_KIND` (3) for a coarse level's
    /// limit), bits 2 and up are the kind's datum: a cloth constraint's material (the row of the
    /// kernels' `materials` table; 0 in a [`Cloth`], one per cloth in a world) or a limit's
    /// mass share. Read it with [`Constraint::kind_number`], [`Constraint::material`] and
    /// [`Constraint::limit_share`].
    pub packed: u32,
}

impl Constraint {
    /// A constraint of `kind` between `i` and `j` with rest length `rest` (m), material 0.
    pub fn new(i: u32, j: u32, rest: f32, kind: ConstraintKind) -> Self {
        Self {
            i,
            j,
            rest,
            packed: kind as u32,
        }
    }

    /// Bits of [`Constraint::packed`] below the datum (the kind number).
    pub const DATUM_SHIFT: u32 = 2;
    /// Set in both records of a bending stencil ([`Constraint::stencil`]).
    pub const STENCIL: u32 = 1 << 31;
    /// Set in a stencil's second record.
    pub const STENCIL_TAIL: u32 = 1 << 30;
    /// The datum's bits (2–29), below the stencil flags.
    const DATUM_MASK: u32 = (1 << 28) - 1;

    /// An isometric bending stencil (Bergou et al. 2006) across one interior edge of a
    /// triangle mesh, as two consecutive records: the edge's ends `p[0]`, `p[1]` and the
    /// vertices `p[2]`, `p[3]` opposite it, and the weights `k` of its curvature vector
    /// κ = Σ k·x (the first three; the fourth is minus their sum). The head holds `p[0]`,
    /// `p[1]`, `k[0]` and the material like any constraint; the tail holds `p[2]`, `p[3]`,
    /// `k[1]`, and `k[2]` in its datum (an f32 without its four lowest mantissa bits, a
    /// relative error below 2·10⁻⁶). Kind [`ConstraintKind::Bend`]; colors hold either
    /// stencils or distance constraints, never both (the kernels read a color's first record to
    /// know which).
    pub fn stencil(p: [u32; 4], k: [f32; 3]) -> [Constraint; 2] {
        let bend = ConstraintKind::Bend as u32;
        [
            Constraint {
                i: p[0],
                j: p[1],
                rest: k[0],
                packed: bend | Self::STENCIL,
            },
            Constraint {
                i: p[2],
                j: p[3],
                rest: k[1],
                packed: bend
                    | Self::STENCIL
                    | Self::STENCIL_TAIL
                    | ((k[2].to_bits() >> 4) << Self::DATUM_SHIFT),
            },
        ]
    }

    /// True for either record of a bending stencil.
    pub fn is_stencil(&self) -> bool {
        self.packed & Self::STENCIL != 0
    }

    /// True for a stencil's second record.
    pub fn is_stencil_tail(&self) -> bool {
        self.packed & (Self::STENCIL | Self::STENCIL_TAIL) == Self::STENCIL | Self::STENCIL_TAIL
    }

    /// True for a distance constraint between `i` and `j` (a cloth's, or a limit), false for a
    /// stencil's records: what code that reads constraints as edges keeps.
    pub fn is_distance(&self) -> bool {
        !self.is_stencil()
    }

    /// A stencil's four particles and four weights from its head and tail (twin of
    /// `stencil_weights` in `shaders/common.wgsl`).
    pub fn stencil_parts(head: &Constraint, tail: &Constraint) -> ([u32; 4], [f32; 4]) {
        let k2 = f32::from_bits(((tail.packed >> Self::DATUM_SHIFT) & Self::DATUM_MASK) << 4);
        let k = [head.rest, tail.rest, k2, -(head.rest + tail.rest + k2)];
        ([head.i, head.j, tail.i, tail.j], k)
    }

    /// The kind number: [`ConstraintKind`] as `u32` (0–2), or 3 for a limit.
    pub fn kind_number(&self) -> u32 {
        self.packed & ((1 << Self::DATUM_SHIFT) - 1)
    }

    /// True for a coarse level's limit (hierarchical PBD, `src/hierarchy/`).
    pub fn is_limit(&self) -> bool {
        self.kind_number() == crate::hierarchy::LIMIT_KIND
    }

    /// The datum in bits 2 and up: the material, or a limit's share.
    fn datum(&self) -> u32 {
        (self.packed >> Self::DATUM_SHIFT) & Self::DATUM_MASK
    }

    /// The same constraint reading material `material` (a limit has no material and is
    /// returned unchanged).
    pub fn with_material(self, material: u32) -> Self {
        if self.is_limit() || self.is_stencil_tail() {
            return self;
        }
        Self {
            packed: self.kind_number()
                | (self.packed & Self::STENCIL)
                | (material << Self::DATUM_SHIFT),
            ..self
        }
    }

    /// Its material (the row of the `materials` table); `None` for a limit.
    pub fn material(&self) -> Option<u32> {
        (!self.is_limit() && !self.is_stencil_tail()).then(|| self.datum())
    }

    /// A limit's share of the correction that its first end takes, in 1/65536; `None` for a
    /// cloth constraint.
    pub fn limit_share(&self) -> Option<u32> {
        self.is_limit().then(|| self.datum())
    }

    /// The same constraint with both particle indices moved up by `base` (a cloth placed at
    /// particle `base` of a world's buffers).
    pub fn shifted(self, base: u32) -> Self {
        Self {
            i: self.i + base,
            j: self.j + base,
            ..self
        }
    }

    /// Its α̃ out of a material's row (twin of `constraint_alpha` in `shaders/common.wgsl`).
    pub fn alpha(&self, material: glam::Vec4) -> f32 {
        material[self.material_column()]
    }

    /// Which of a material's four α̃ it reads: its kind's, or the last (the curvature
    /// compliance) for a stencil.
    pub fn material_column(&self) -> usize {
        if self.is_stencil() {
            3
        } else {
            self.kind_number() as usize
        }
    }

    /// Its α̃'s index in the `materials` table seen as floats (four a material).
    pub fn material_slot(&self) -> usize {
        self.datum() as usize * 4 + self.material_column()
    }
}

/// The three kinds of grid constraint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ConstraintKind {
    /// Between horizontal and vertical neighbours (rest = spacing).
    Structural,
    /// Between diagonal neighbours (rest = spacing · √2).
    Shear,
    /// Bending: an isometric stencil across each interior edge of a sheet (grid or mesh,
    /// [`Constraint::stencil`]), or a distance between particles two apart along a rope (and
    /// across a mesh's edge folded at rest).
    Bend,
}

impl ConstraintKind {
    /// All kinds, in the order their constraints are generated (and of their numbers).
    pub const ALL: [ConstraintKind; 3] = [
        ConstraintKind::Structural,
        ConstraintKind::Shear,
        ConstraintKind::Bend,
    ];

    /// The kind numbered `k` (`kind as u32`).
    pub fn from_index(k: u32) -> Option<Self> {
        Self::ALL.get(k as usize).copied()
    }
}

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
    /// Distance constraints (rest length in m, and kind).
    pub constraints: Vec<Constraint>,
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
                        && r.kind_number() == ConstraintKind::Bend as u32
                };
                let pair = if c.is_stencil_tail() {
                    k.checked_sub(1).map(|h| (&records[h], c))
                } else {
                    records.get(k + 1).map(|t| (c, t))
                };
                let whole = pair.is_some_and(|(h, t)| {
                    is_head(h)
                        && t.is_stencil_tail()
                        && Constraint::stencil_parts(h, t)
                            .1
                            .iter()
                            .all(|w| w.is_finite())
                });
                if !whole {
                    return bad(format!(
                        "constraint {k} is half of a bending stencil without its other half, or \
                         with weights that are not finite"
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

    /// Structural constraints (for stretch statistics).
    pub fn structural_constraints(&self) -> impl Iterator<Item = &Constraint> {
        self.constraints()
            .iter()
            .filter(|c| c.kind_number() == ConstraintKind::Structural as u32)
    }
}
