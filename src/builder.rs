//! [`ClothBuilder`]: grids, triangle meshes (from code or OBJ files) and ropes become a
//! [`Cloth`] through one path. Each source produces a surface (positions, triangles, UVs,
//! groups and its constraints); then, the same for all: placement, masses from areas (or
//! lengths), pin selection, validation and coloring.
//!
//! One file, though long: every source meets the same steps here, and each step is a few
//! lines per source. What a grid or a mesh is made of (constraints, stencils, triangles) is
//! in `geometry/`.

use std::path::Path;

use glam::{Vec2, Vec3};

use crate::cloth::{Cloth, ClothDesc, GridShape, ParticleGroup};
use crate::constraint::{Constraint, ConstraintKind};
use crate::error::{ChiffonError, Result, check_finite3, check_range};
use crate::geometry::grid::{grid_constraints, grid_stencil_order, grid_triangles};
use crate::geometry::{
    self, DEFAULT_WELD_TOLERANCE, MeshStats, TriangleMesh, UvLayer, mesh_constraints, triangle_area,
};

/// How the grid is placed in the world.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Layout {
    /// In the x-y plane, centred on x = 0, top row at `top` (m), rows going down (−y), z = 0.
    Hanging {
        /// Height of the top row (m).
        top: f32,
    },
    /// In the x-z plane at height `height` (m), centred on the origin; rows go along +z.
    Flat {
        /// Height of the sheet (m).
        height: f32,
    },
}

/// What keeps a sheet's surface from stretching and shearing: its membrane.
///
/// - [`Membrane::Edges`] (the default): a distance constraint along every edge (on a grid its
///   rows, columns and both diagonals of each cell), with the stretch compliance on the
///   structural edges and the shear compliance on the diagonals. Rigid distances across every
///   edge of an irregular triangulation lock it: a fold has to zig-zag across triangles that
///   cannot change shape (docs/quality.md).
/// - [`Membrane::Triangles`]: strain based dynamics (Müller, Chentanez, Kim, Macklin 2014) on
///   every triangle: its stretch along the warp and the weft (the texture's u and v, or the
///   rest shape's x laid into the triangle) as one constraint, at the stretch compliance, and
///   its shear (the dot product of warp and weft: their angle's cosine while they keep their
///   length) as another, at the shear compliance; each over twice the triangle's rest area, so
///   a grid's triangle resists as its edges do. A soft shear then frees the fabric on any
///   triangulation, as a grid's soft diagonals do on a grid. The edges stay, unsolved, for the
///   strain limit, the coarse levels and the measures. Ropes have no triangles and keep their
///   edges.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Membrane {
    /// A distance constraint along every edge.
    #[default]
    Edges,
    /// Strain based dynamics on every triangle.
    Triangles,
}

// One spelling for the command line (`--membrane`), the benchmark's output and the panel.
crate::names::named_enum!(Membrane "membrane" {
    Edges => "edges",
    Triangles => "triangles",
});

/// Which particles never move (inverse mass 0). Several selections can be combined with
/// [`ClothBuilder::pin`]; each must select something.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Pinning {
    /// Nothing pinned.
    None,
    /// The two corners of a grid's first row (grids only).
    Corners,
    /// A grid's whole first row (grids only).
    Edge,
    /// Particle indices of the built cloth: row-major on a grid, the points' order on a rope,
    /// and on a mesh its vertices after welding, in order (as chiffon's OBJ export lists them).
    List(Vec<u32>),
    /// Every vertex of the mesh's triangles in the OBJ group (`g` or `o`) of this name.
    Group(String),
    /// Every particle inside the axis-aligned box (m, after placement), corners included.
    Box {
        /// Lowest corner.
        min: Vec3,
        /// Highest corner.
        max: Vec3,
    },
    /// The topmost particles: those within `distance` (m) below the highest one (in y).
    Top {
        /// Height below the highest particle (m), at least 0.
        distance: f32,
    },
}

/// How much the cloth weighs. Particles get the mass of their share of the surface: a third of
/// each triangle they belong to (a quarter of each cell on a grid, half of each segment on a
/// rope), so an irregular mesh is not heavier where it is finer.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Mass {
    /// The whole cloth's mass (kg).
    Total(f32),
    /// Areal density (kg/m²; for a rope, linear density in kg/m). Cotton is about 0.15.
    Density(f32),
}

#[derive(Clone, Debug)]
enum Source {
    Grid {
        columns: u32,
        rows: u32,
        spacing: Option<f32>,
    },
    Mesh(Box<TriangleMesh>),
    Rope(Vec<Vec3>),
}

/// Builder for a cloth from a grid, a triangle mesh, an OBJ file or a polyline (a rope).
///
/// ```
/// use chiffon::{ClothBuilder, Pinning};
/// let cloth = ClothBuilder::grid(32, 32).pinning(Pinning::Corners).build().unwrap();
/// assert_eq!(cloth.particle_count(), 1024);
/// ```
#[derive(Clone, Debug)]
pub struct ClothBuilder {
    source: Source,
    mass: Mass,
    layout: Layout,
    velocity: Vec3,
    pins: Vec<Pinning>,
    kinds: [bool; 3],
    membrane: Membrane,
    scale: f32,
    translate: Vec3,
    weld_tolerance: Option<f32>,
}

pub use crate::config::MAX_PARTICLES;

/// Mass of a mesh or rope when none is given: 0.2 kg/m² (0.2 kg/m), a light cotton.
pub const DEFAULT_DENSITY: f32 = 0.2;
/// Mass of a grid when none is given (kg).
pub const DEFAULT_GRID_MASS: f32 = 0.2;
/// Bounds of [`ClothBuilder::scale`].
pub const MIN_SCALE: f32 = 1.0e-6;
/// See [`MIN_SCALE`].
pub const MAX_SCALE: f32 = 1.0e6;
/// Bounds of a total mass (kg) or an areal density (kg/m²).
pub const MIN_MASS: f32 = 1.0e-9;
/// See [`MIN_MASS`].
pub const MAX_MASS: f32 = 1.0e9;
/// Bounds of a grid's spacing (m).
pub const MIN_SPACING: f32 = 1.0e-5;
/// See [`MIN_SPACING`].
pub const MAX_SPACING: f32 = 1.0e3;
/// Largest layout height, up or down (m).
pub const MAX_LAYOUT_HEIGHT: f32 = 1.0e6;

impl ClothBuilder {
    fn from_source(source: Source, mass: Mass, pins: Vec<Pinning>) -> Self {
        Self {
            source,
            mass,
            layout: Layout::Hanging { top: 1.0 },
            velocity: Vec3::ZERO,
            pins,
            kinds: [true; 3],
            membrane: Membrane::Edges,
            scale: 1.0,
            translate: Vec3::ZERO,
            weld_tolerance: None,
        }
    }

    /// A `columns` × `rows` grid. Defaults: 1 m wide (spacing = 1 / (columns − 1)), 0.2 kg,
    /// hanging with its top row at y = 1 m, at rest, two corners pinned, all three constraint
    /// kinds on: structural (neighbours) and shear (both diagonals), in 8 colors, and bend (an
    /// isometric bending stencil across each interior edge of the grid's triangles, as on a
    /// mesh), in 12 more (both optimal).
    pub fn grid(columns: u32, rows: u32) -> Self {
        Self::from_source(
            Source::Grid {
                columns,
                rows,
                spacing: None,
            },
            Mass::Total(DEFAULT_GRID_MASS),
            vec![Pinning::Corners],
        )
    }

    /// A cloth from a triangle mesh: vertices closer than the weld tolerance become one
    /// particle, one structural constraint per edge (shear for polygon diagonals), one bending
    /// constraint across each interior edge. Defaults: [`DEFAULT_DENSITY`], nothing pinned, at
    /// rest where the mesh is.
    pub fn mesh(mesh: TriangleMesh) -> Self {
        Self::from_source(
            Source::Mesh(Box::new(mesh)),
            Mass::Density(DEFAULT_DENSITY),
            vec![Pinning::None],
        )
    }

    /// A cloth from the OBJ file at `path` ([`geometry::obj`] says what is read; what was
    /// skipped is counted in the cloth's [`Cloth::mesh_stats`]).
    pub fn obj(path: impl AsRef<Path>) -> Result<Self> {
        Ok(Self::mesh(geometry::obj::load(path.as_ref())?))
    }

    /// A rope (or chain) through `points`: a structural constraint per segment and a bending
    /// constraint between every other point. Defaults: [`DEFAULT_DENSITY`] kg/m, nothing pinned.
    pub fn rope(points: Vec<Vec3>) -> Self {
        Self::from_source(
            Source::Rope(points),
            Mass::Density(DEFAULT_DENSITY),
            vec![Pinning::None],
        )
    }

    /// Distance between neighbouring particles of a grid (m).
    pub fn spacing(mut self, spacing: f32) -> Self {
        if let Source::Grid { spacing: s, .. } = &mut self.source {
            *s = Some(spacing);
        }
        self
    }

    /// Mass of the whole cloth (kg).
    pub fn total_mass(mut self, kg: f32) -> Self {
        self.mass = Mass::Total(kg);
        self
    }

    /// Areal density (kg/m²; kg/m for a rope).
    pub fn density(mut self, kg_per_unit: f32) -> Self {
        self.mass = Mass::Density(kg_per_unit);
        self
    }

    /// Mass, as a total or a density.
    pub fn mass(mut self, mass: Mass) -> Self {
        self.mass = mass;
        self
    }

    /// Placement of a grid in the world (meshes and ropes stay where they are made, then
    /// [`Self::scale`] and [`Self::translate`] apply).
    pub fn layout(mut self, layout: Layout) -> Self {
        self.layout = layout;
        self
    }

    /// Uniform scale about the origin, applied before [`Self::translate`] (default 1).
    pub fn scale(mut self, scale: f32) -> Self {
        self.scale = scale;
        self
    }

    /// Offset added to every position after scaling (m).
    pub fn translate(mut self, offset: Vec3) -> Self {
        self.translate = offset;
        self
    }

    /// Welding distance for meshes (m): vertices this close become one particle. Default
    /// [`DEFAULT_WELD_TOLERANCE`] × the mesh's bounding-box diagonal; 0 welds only vertices at
    /// exactly the same position.
    pub fn weld_tolerance(mut self, metres: f32) -> Self {
        self.weld_tolerance = Some(metres);
        self
    }

    /// Initial velocity of every unpinned particle (m/s).
    pub fn velocity(mut self, v: Vec3) -> Self {
        self.velocity = v;
        self
    }

    /// Pins exactly this selection (replacing any before).
    pub fn pinning(mut self, pinning: Pinning) -> Self {
        self.pins = vec![pinning];
        self
    }

    /// Pins this selection too.
    pub fn pin(mut self, pinning: Pinning) -> Self {
        self.pins.retain(|p| *p != Pinning::None);
        self.pins.push(pinning);
        self
    }

    /// Turns a constraint kind on or off (how stiff it is is the solver's
    /// [`crate::params::Compliance`]).
    pub fn constraint(mut self, kind: ConstraintKind, on: bool) -> Self {
        self.kinds[kind as usize] = on;
        self
    }

    /// What holds the sheet's surface: its edges (the default) or its triangles
    /// ([`Membrane`]). A rope keeps its edges. With triangles, [`Self::constraint`] turning
    /// structural or shear off leaves the triangles on (both off: none); soften their shear
    /// with its compliance instead (`Compliance::shear`).
    pub fn membrane(mut self, membrane: Membrane) -> Self {
        self.membrane = membrane;
        self
    }

    /// Builds the particles, the constraints (colored and sorted by color) and the triangles.
    pub fn build(self) -> Result<Cloth> {
        check_range("scale", self.scale, MIN_SCALE, MAX_SCALE)?;
        check_finite3("translation", self.translate)?;
        for v in self.translate.to_array() {
            check_range(
                "translation (m)",
                v,
                -crate::config::MAX_COORDINATE,
                crate::config::MAX_COORDINATE,
            )?;
        }
        check_finite3("initial velocity", self.velocity)?;
        let (Mass::Total(m) | Mass::Density(m)) = self.mass;
        check_range(
            match self.mass {
                Mass::Total(_) => "total mass (kg)",
                Mass::Density(_) => "density (kg/m²)",
            },
            m,
            MIN_MASS,
            MAX_MASS,
        )?;
        let surface = match &self.source {
            Source::Grid {
                columns,
                rows,
                spacing,
            } => self.grid_surface(*columns, *rows, *spacing)?,
            Source::Mesh(mesh) => self.mesh_surface(mesh)?,
            Source::Rope(points) => self.rope_surface(points)?,
        };
        self.finish(surface)
    }

    fn place(&self, p: Vec3) -> Vec3 {
        p * self.scale + self.translate
    }

    fn grid_surface(&self, w: u32, h: u32, spacing: Option<f32>) -> Result<Surface> {
        if w < 2 || h < 2 {
            return Err(ChiffonError::InvalidCloth(format!(
                "a grid needs at least 2 × 2 particles, got {w} × {h}"
            )));
        }
        let n = w as u64 * h as u64;
        if n > MAX_PARTICLES {
            return Err(ChiffonError::InvalidCloth(format!(
                "{w} × {h} = {n} particles is more than the {MAX_PARTICLES} chiffon supports"
            )));
        }
        let spacing = spacing.unwrap_or(1.0 / (w - 1) as f32);
        check_range("spacing (m)", spacing, MIN_SPACING, MAX_SPACING)?;
        let (Layout::Hanging { top: y } | Layout::Flat { height: y }) = self.layout;
        check_range(
            "layout height (m)",
            y,
            -MAX_LAYOUT_HEIGHT,
            MAX_LAYOUT_HEIGHT,
        )?;
        let n = n as usize;
        let width = spacing * (w - 1) as f32;
        let height = spacing * (h - 1) as f32;
        let mut positions = Vec::with_capacity(n);
        let mut uvs = Vec::with_capacity(n);
        for r in 0..h {
            for c in 0..w {
                let u = c as f32 * spacing - 0.5 * width;
                let v = r as f32 * spacing;
                positions.push(self.place(match self.layout {
                    Layout::Hanging { top } => Vec3::new(u, top - v, 0.0),
                    Layout::Flat { height: y } => Vec3::new(u, y, v - 0.5 * height),
                }));
                uvs.push(Vec2::new(
                    c as f32 / (w - 1) as f32,
                    r as f32 / (h - 1) as f32,
                ));
            }
        }
        let s = spacing * self.scale;
        // A quarter of each cell to each of its corners.
        let mut share = vec![0.0f32; n];
        for r in 0..h as usize - 1 {
            for c in 0..w as usize - 1 {
                let a = r * w as usize + c;
                for v in [a, a + 1, a + w as usize, a + w as usize + 1] {
                    share[v] += 0.25 * s * s;
                }
            }
        }
        let triangles = grid_triangles(w, h);
        // The membrane from the grid's rows, columns and both diagonals; the bending from the
        // triangles, as on any mesh, so that `compliance.curvature` is one fabric at any size.
        let mut constraints = grid_constraints(w, h, s, self.kinds);
        let bending = [false, false, self.kinds[ConstraintKind::Bend as usize]];
        let stencils = mesh_constraints(&positions, &triangles, &[], bending).0;
        constraints.extend(grid_stencil_order(stencils, w));
        Ok(Surface {
            constraints,
            uvs: Some(UvLayer {
                uvs,
                triangles: triangles.clone(),
            }),
            positions,
            triangles,
            groups: Vec::new(),
            share,
            grid: Some(GridShape {
                columns: w,
                rows: h,
                spacing: s,
            }),
            stats: MeshStats {
                boundary_edges: 2 * (w as usize - 1 + h as usize - 1),
                ..MeshStats::default()
            },
            what: "grid",
        })
    }

    fn mesh_surface(&self, mesh: &TriangleMesh) -> Result<Surface> {
        if mesh.positions.len() as u64 > MAX_PARTICLES {
            return Err(ChiffonError::InvalidMesh {
                source_name: mesh.name.clone(),
                reason: format!(
                    "{} vertices is more than the {MAX_PARTICLES} chiffon supports",
                    mesh.positions.len()
                ),
            });
        }
        // Placed before welding, so tolerances and pin boxes are in world units; `weld`
        // checks the coordinates.
        let mut placed = mesh.clone();
        for p in &mut placed.positions {
            *p = self.place(*p);
        }
        // Refused up front, naming the vertex: past the bound, edge lengths and areas overflow
        // or lose their digits, and the cloth would fail later as an infinite rest length or
        // a NaN mass. (A non-finite vertex as read is the weld's to name.)
        let max = crate::config::MAX_COORDINATE;
        if let Some(i) = (0..placed.positions.len()).find(|&i| {
            let far = placed.positions[i].abs().max_element();
            mesh.positions[i].is_finite() && (far > max || !far.is_finite())
        }) {
            let placement = if self.scale != 1.0 || self.translate != Vec3::ZERO {
                format!(
                    " once scaled by {} and moved by {}",
                    crate::error::shown(self.scale),
                    crate::error::shown3(self.translate)
                )
            } else {
                String::new()
            };
            return Err(ChiffonError::InvalidMesh {
                source_name: mesh.name.clone(),
                reason: format!(
                    "vertex {} is at {}{placement}, more than {max:e} m from the origin on an \
                     axis; chiffon takes coordinates up to that (positions are f32, good to 6 cm \
                     at 1e6 m; farther, a cloth's lengths and masses are lost)",
                    i + 1,
                    crate::error::shown3(placed.positions[i])
                ),
            });
        }
        let tolerance = match self.weld_tolerance {
            Some(t) => t,
            None => {
                // In f64: the diagonal of a finite box can overflow f32.
                let (lo, hi) = geometry::bounds(&placed.positions);
                let diagonal = (hi.as_dvec3() - lo.as_dvec3()).length().max(0.0);
                (DEFAULT_WELD_TOLERANCE as f64 * diagonal).min(f32::MAX as f64) as f32
            }
        };
        let welded = geometry::weld(&placed, tolerance)?;
        let (constraints, non_manifold_edges, boundary_edges) = mesh_constraints(
            &welded.positions,
            &welded.triangles,
            &welded.diagonals,
            self.kinds,
        );
        let mut share = vec![0.0f32; welded.positions.len()];
        for &t in &welded.triangles {
            let a = triangle_area(&welded.positions, t) / 3.0;
            for v in t {
                share[v as usize] += a;
            }
        }
        Ok(Surface {
            positions: welded.positions,
            uvs: welded.uvs,
            triangles: welded.triangles,
            groups: welded
                .groups
                .into_iter()
                .map(|(name, particles)| ParticleGroup { name, particles })
                .collect(),
            constraints,
            share,
            grid: None,
            stats: MeshStats {
                non_manifold_edges,
                boundary_edges,
                ..welded.stats
            },
            what: "mesh",
        })
    }

    fn rope_surface(&self, points: &[Vec3]) -> Result<Surface> {
        if points.len() < 2 {
            return Err(ChiffonError::InvalidCloth(format!(
                "a rope needs at least 2 points, got {}",
                points.len()
            )));
        }
        if let Some(k) = points.iter().position(|p| !p.is_finite()) {
            return Err(ChiffonError::InvalidCloth(format!(
                "rope point {k} is not finite"
            )));
        }
        let positions: Vec<Vec3> = points.iter().map(|&p| self.place(p)).collect();
        let mut constraints = Vec::new();
        let mut share = vec![0.0f32; positions.len()];
        for k in 0..positions.len() - 1 {
            let l = positions[k].distance(positions[k + 1]);
            if l <= 1.0e-7 {
                return Err(ChiffonError::InvalidCloth(format!(
                    "rope points {k} and {} coincide",
                    k + 1
                )));
            }
            share[k] += 0.5 * l;
            share[k + 1] += 0.5 * l;
            if self.kinds[ConstraintKind::Structural as usize] {
                constraints.push(Constraint::new(
                    k as u32,
                    k as u32 + 1,
                    l,
                    ConstraintKind::Structural,
                ));
            }
        }
        if self.kinds[ConstraintKind::Bend as usize] {
            for k in 0..positions.len().saturating_sub(2) {
                let l = positions[k].distance(positions[k + 2]);
                constraints.push(Constraint::new(
                    k as u32,
                    k as u32 + 2,
                    l,
                    ConstraintKind::Bend,
                ));
            }
        }
        Ok(Surface {
            positions,
            triangles: Vec::new(),
            uvs: None,
            groups: Vec::new(),
            constraints,
            share,
            grid: None,
            stats: MeshStats::default(),
            what: "rope",
        })
    }

    /// The part every source shares: masses, pins, validation and coloring.
    fn finish(self, s: Surface) -> Result<Cloth> {
        let n = s.positions.len();
        let total_share: f64 = s.share.iter().map(|&a| a as f64).sum();
        if total_share.is_nan() || total_share <= 0.0 {
            return Err(ChiffonError::InvalidCloth(format!(
                "the {} has no area or length to give it mass",
                s.what
            )));
        }
        let mass_per_share = match self.mass {
            Mass::Total(kg) => kg as f64 / total_share,
            Mass::Density(d) => d as f64,
        };
        let free: Vec<f32> = s
            .share
            .iter()
            .map(|&a| (1.0 / (a as f64 * mass_per_share)) as f32)
            .collect();
        let mut inverse_mass = free.clone();
        for pin in &self.pins {
            for p in select(pin, &s)? {
                inverse_mass[p as usize] = 0.0;
            }
        }
        debug_assert_eq!(inverse_mass.len(), n);
        // A membrane of triangles takes the place of the stretch and shear edges, which stay,
        // unsolved, as the cloth's membrane edges.
        let (constraints, membrane_edges) = match self.membrane {
            Membrane::Triangles if !s.triangles.is_empty() => {
                let membrane = [ConstraintKind::Structural, ConstraintKind::Shear]
                    .iter()
                    .any(|&k| self.kinds[k as usize]);
                let (records, slivers) = if membrane {
                    geometry::membrane_triangles(&s.positions, &s.triangles, s.uvs.as_ref())
                } else {
                    (Vec::new(), Vec::new())
                };
                // A sliver has no triangle record: its edges stay solved.
                let sliver_edges: std::collections::HashSet<(u32, u32)> = slivers
                    .iter()
                    .flat_map(|t| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])])
                    .map(|(a, b)| (a.min(b), a.max(b)))
                    .collect();
                let (edges, mut kept): (Vec<Constraint>, Vec<Constraint>) =
                    s.constraints.into_iter().partition(|c| {
                        c.is_distance()
                            && c.kind_number() != ConstraintKind::Bend as u32
                            && !sliver_edges.contains(&(c.i.min(c.j), c.i.max(c.j)))
                    });
                kept.splice(0..0, records);
                (kept, edges)
            }
            _ => (s.constraints, Vec::new()),
        };
        Cloth::build(
            ClothDesc {
                positions: s.positions,
                inverse_mass,
                velocity: self.velocity,
                constraints,
                membrane_edges,
                triangles: s.triangles,
                uvs: s.uvs,
                groups: s.groups,
            },
            s.grid,
            s.stats,
            Some(free),
        )
    }
}

/// A source's output, before masses and pins.
struct Surface {
    positions: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
    uvs: Option<UvLayer>,
    groups: Vec<ParticleGroup>,
    constraints: Vec<Constraint>,
    /// Area (m²) or length (m) each particle stands for.
    share: Vec<f32>,
    grid: Option<GridShape>,
    stats: MeshStats,
    /// "grid", "mesh" or "rope", for messages.
    what: &'static str,
}

/// The particles `pin` selects on `s`; an error when it selects nothing (except `None`) or
/// does not apply.
fn select(pin: &Pinning, s: &Surface) -> Result<Vec<u32>> {
    let n = s.positions.len();
    let bad = |msg: String| Err(ChiffonError::InvalidCloth(msg));
    let picked: Vec<u32> = match pin {
        Pinning::None => return Ok(Vec::new()),
        Pinning::Corners | Pinning::Edge => {
            let Some(g) = s.grid else {
                return bad(format!(
                    "pinning {} needs a grid; a {} can be pinned by group, box, top or list",
                    if *pin == Pinning::Corners {
                        "corners"
                    } else {
                        "edge"
                    },
                    s.what
                ));
            };
            if *pin == Pinning::Corners {
                vec![0, g.columns - 1]
            } else {
                (0..g.columns).collect()
            }
        }
        Pinning::List(list) => {
            if let Some(&p) = list.iter().find(|&&p| p as usize >= n) {
                return bad(format!(
                    "pinned particle {p} does not exist (the {} has {n})",
                    s.what
                ));
            }
            list.clone()
        }
        Pinning::Group(name) => match s.groups.iter().find(|g| g.name == *name) {
            Some(g) => g.particles.clone(),
            None => {
                let names: Vec<&str> = s.groups.iter().map(|g| g.name.as_str()).collect();
                return bad(format!(
                    "pin group {name:?} does not exist; the {} has {}",
                    s.what,
                    if names.is_empty() {
                        "no groups".to_string()
                    } else {
                        format!("groups {}", names.join(", "))
                    }
                ));
            }
        },
        Pinning::Box { min, max } => {
            if !(min.is_finite() && max.is_finite()) {
                return bad("the pin box's corners must be finite".into());
            }
            (0..n as u32)
                .filter(|&p| {
                    let q = s.positions[p as usize];
                    q.cmpge(*min).all() && q.cmple(*max).all()
                })
                .collect()
        }
        Pinning::Top { distance } => {
            if !(distance.is_finite() && *distance >= 0.0) {
                return bad(format!(
                    "the top pin distance {distance} m must be finite and at least 0"
                ));
            }
            let top = s.positions.iter().map(|p| p.y).fold(f32::MIN, f32::max);
            (0..n as u32)
                .filter(|&p| s.positions[p as usize].y >= top - distance)
                .collect()
        }
    };
    if picked.is_empty() {
        return bad(match pin {
            Pinning::Box { min, max } => {
                let (lo, hi) = geometry::bounds(&s.positions);
                format!(
                    "the pin box {:?}..{:?} holds no particle (the {} spans {:?}..{:?})",
                    min.to_array(),
                    max.to_array(),
                    s.what,
                    lo.to_array(),
                    hi.to_array()
                )
            }
            _ => format!("pinning {pin:?} selects no particle"),
        });
    }
    Ok(picked)
}
