//! Surfaces before they become cloth: triangle meshes (made in code or read from OBJ files),
//! welding of coincident vertices, and the constraint topology of a mesh (one distance
//! constraint per edge, bending across each interior edge).
//!
//! [`crate::ClothBuilder`] turns any of these into a [`crate::Cloth`]; grids, meshes and ropes
//! all go through the same builder path (masses from areas, pin selection, validation,
//! coloring).

pub(crate) mod graph;
pub(crate) mod grid;
pub mod obj;
mod triangulate;
mod weld;

use glam::{Vec2, Vec3};
use rayon::prelude::*;

use crate::constraint::{Constraint, ConstraintKind};

pub(crate) use weld::weld;

/// Default welding tolerance, as a fraction of the mesh's bounding-box diagonal: vertices
/// closer than this are one particle. Small enough never to merge distinct vertices of a
/// real garment (1 m cloth: 10 µm), large enough to close an exporter's rounding at seams.
pub const DEFAULT_WELD_TOLERANCE: f32 = 1.0e-5;

/// Texture coordinates per triangle corner, as OBJ stores them: `triangles[t]` indexes `uvs`
/// for the three corners of the mesh's triangle `t`, so a seam can have two UVs at one vertex.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct UvLayer {
    /// The texture coordinates.
    pub uvs: Vec<Vec2>,
    /// One entry per mesh triangle, in the same order.
    pub triangles: Vec<[u32; 3]>,
}

/// A named set of triangles (an OBJ `g` or `o` group).
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MeshGroup {
    /// Group name as written in the file.
    pub name: String,
    /// Indices into [`TriangleMesh::triangles`].
    pub triangles: Vec<u32>,
}

/// A triangle mesh as a modelling tool hands it over: vertices that may repeat at seams,
/// triangles, optional UVs and named groups.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TriangleMesh {
    /// Where the mesh came from (a file name, or a word for a mesh made in code); errors name it.
    pub name: String,
    /// Vertex positions (m).
    pub positions: Vec<Vec3>,
    /// Counter-clockwise triangles of vertex indices.
    pub triangles: Vec<[u32; 3]>,
    /// Texture coordinates, if the mesh has them.
    pub uvs: Option<UvLayer>,
    /// Named triangle groups.
    pub groups: Vec<MeshGroup>,
    /// Edges that split a polygon into triangles (a quad's diagonal). They get the shear kind,
    /// and bending across them joins the quad's other two corners (also shear), as on a grid.
    pub diagonals: Vec<[u32; 2]>,
    /// What reading the mesh found (records skipped, polygons that are not simple, material
    /// libraries missing); building adds what welding finds and the cloth reports it all in
    /// [`crate::Cloth::mesh_stats`]. Zeros for a mesh made in code.
    #[cfg_attr(feature = "serde", serde(default))]
    pub stats: MeshStats,
}

impl TriangleMesh {
    /// A mesh named `name` with these positions and triangles, no UVs, groups or diagonals.
    pub fn new(name: impl Into<String>, positions: Vec<Vec3>, triangles: Vec<[u32; 3]>) -> Self {
        Self {
            name: name.into(),
            positions,
            triangles,
            ..Self::default()
        }
    }
}

/// What reading a mesh and building a cloth from it found, for the caller to report
/// ([`MeshStats::notes`] words the ones worth a note).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
pub struct MeshStats {
    /// Vertices merged into another one by welding.
    pub welded_vertices: usize,
    /// Triangles dropped for having (after welding) a repeated vertex or no area.
    pub degenerate_triangles: usize,
    /// Triangles dropped for having (after welding) the same three vertices as an earlier
    /// one, in either winding: kept once, so that surface is not weighed twice.
    pub duplicate_triangles: usize,
    /// Vertices dropped because no remaining triangle uses them.
    pub unused_vertices: usize,
    /// Edges shared by more than two triangles: simulated, with no bending across them.
    pub non_manifold_edges: usize,
    /// Edges with one triangle (the cloth's border).
    pub boundary_edges: usize,
    /// OBJ `l` (polyline) records skipped: a line is not cloth.
    pub skipped_lines: usize,
    /// OBJ `p` (point) records skipped.
    pub skipped_points: usize,
    /// OBJ free-form records (`curv`, `curv2`, `surf`) skipped: chiffon does not tessellate
    /// curves and surfaces.
    pub skipped_free_form: usize,
    /// Polygons that are not simple (they cross themselves, or have no area along any
    /// normal), split into triangles without regard to their shape where no ear could be
    /// found: their triangles may overlap.
    pub irregular_polygons: usize,
    /// Material libraries (`mtllib`) the OBJ file names that are not beside it. A cloth needs
    /// no material, so the file is read all the same.
    pub missing_material_libraries: usize,
}

impl MeshStats {
    /// One sentence for each finding a user should hear about (geometry that was dropped,
    /// skipped or reinterpreted, a missing material library); empty when there is none.
    /// Welded vertices and boundary edges are expected and left out.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        let mut note = |count: usize, text: &str| {
            if count > 0 {
                notes.push(format!("{count} {text}"));
            }
        };
        note(
            self.degenerate_triangles,
            "degenerate triangles (a repeated vertex or no area) dropped",
        );
        note(
            self.duplicate_triangles,
            "duplicate triangles (the same three vertices as another, either way round) \
             dropped, so their cloth is not weighed twice",
        );
        note(self.unused_vertices, "vertices used by no triangle dropped");
        note(
            self.non_manifold_edges,
            "non-manifold edges (more than two triangles): simulated, with no bending across \
             them",
        );
        note(
            self.skipped_lines,
            "OBJ line records (l) skipped: lines are not cloth",
        );
        note(self.skipped_points, "OBJ point records (p) skipped");
        note(
            self.skipped_free_form,
            "OBJ free-form records (curv, curv2, surf) skipped: chiffon reads only polygons",
        );
        note(
            self.irregular_polygons,
            "polygons cross themselves or have no area: split without regard to their shape, \
             their triangles may overlap",
        );
        note(
            self.missing_material_libraries,
            "material libraries (mtllib) not found: ignored, a cloth needs no material",
        );
        notes
    }
}

/// Every side of every triangle as (edge, side): the edge as (smaller, larger) particle, the
/// side numbered 3·triangle + corner (from that corner to the next), sorted, so that the sides
/// of one edge are adjacent, first met first. Sorting is several times faster than a hash map
/// of the edges on a 1024² grid's 2 million triangles.
pub(crate) fn sorted_sides(triangles: &[[u32; 3]]) -> Vec<((u32, u32), u32)> {
    let mut sides: Vec<((u32, u32), u32)> = triangles
        .iter()
        .enumerate()
        .flat_map(|(t, tri)| {
            (0..3).map(move |e| {
                let (a, b) = (tri[e], tri[(e + 1) % 3]);
                ((a.min(b), a.max(b)), (3 * t + e) as u32)
            })
        })
        .collect();
    sides.par_sort_unstable();
    sides
}

/// The constraints of a triangle mesh: one distance per edge (structural, or shear for the
/// `diagonals`), and across each edge with exactly two triangles a bending stencil
/// ([`Constraint::stencil`], [`bending_weights`]; a distance between the two opposite vertices
/// where the rest shape is folded or a triangle has no area), or a shear distance across a
/// diagonal (the quad's other diagonal). Kinds turned off in `kinds` are left out.
/// Deterministic: distances come in the order the triangles first name their edges, the
/// stencils after them. Returns the constraints and the counts of non-manifold and boundary
/// edges.
pub fn mesh_constraints(
    positions: &[Vec3],
    triangles: &[[u32; 3]],
    diagonals: &[[u32; 2]],
    kinds: [bool; 3],
) -> (Vec<Constraint>, usize, usize) {
    let key = |a: u32, b: u32| (a.min(b), a.max(b));
    struct Edge {
        ends: (u32, u32),
        opposite: [u32; 2],
        count: u32,
    }
    let sides = sorted_sides(triangles);
    // The corner a side faces.
    let opposite = |side: u32| triangles[side as usize / 3][(side as usize % 3 + 2) % 3];
    let mut edges: Vec<(u32, Edge)> = sides
        .chunk_by(|x, y| x.0 == y.0)
        .map(|group| {
            let (first, second) = (group[0].1, group.get(1).map_or(group[0].1, |s| s.1));
            let edge = Edge {
                ends: group[0].0,
                opposite: [opposite(first), opposite(second)],
                count: group.len() as u32,
            };
            (first, edge)
        })
        .collect();
    drop(sides);
    // In the order the triangles first name them, which the coloring and so the results follow.
    edges.par_sort_unstable_by_key(|e| e.0);
    let edges: Vec<Edge> = edges.into_iter().map(|e| e.1).collect();
    let diagonal: std::collections::HashSet<(u32, u32)> =
        diagonals.iter().map(|&[a, b]| key(a, b)).collect();
    let rest = |a: u32, b: u32| positions[a as usize].distance(positions[b as usize]);
    let mut out = Vec::with_capacity(edges.len() * 2);
    // A pair can arise twice (an edge that is also some edge's bending pair on a tiny closed
    // mesh); keep the first.
    let mut taken: std::collections::HashSet<(u32, u32)> = std::collections::HashSet::new();
    let mut push = |out: &mut Vec<Constraint>, a: u32, b: u32, kind: ConstraintKind| {
        if kinds[kind as usize] && a != b && taken.insert(key(a, b)) {
            out.push(Constraint::new(a, b, rest(a, b), kind));
        }
    };
    for e in &edges {
        let kind = if diagonal.contains(&e.ends) {
            ConstraintKind::Shear
        } else {
            ConstraintKind::Structural
        };
        push(&mut out, e.ends.0, e.ends.1, kind);
    }
    let (mut non_manifold, mut boundary) = (0, 0);
    let mut stencils = Vec::new();
    for e in &edges {
        match e.count {
            1 => boundary += 1,
            2 if diagonal.contains(&e.ends) => push(
                &mut out,
                e.opposite[0],
                e.opposite[1],
                ConstraintKind::Shear,
            ),
            2 if kinds[ConstraintKind::Bend as usize] => {
                let p = [e.ends.0, e.ends.1, e.opposite[0], e.opposite[1]];
                match bending_weights(p.map(|v| positions[v as usize])) {
                    Some(k) => stencils.extend(Constraint::stencil(p, k)),
                    // A sliver or a fold at rest: a distance across it instead.
                    None => push(&mut out, p[2], p[3], ConstraintKind::Bend),
                }
            }
            2 => {}
            _ => non_manifold += 1,
        }
    }
    out.extend(stencils);
    (out, non_manifold, boundary)
}

/// How flat (|κ| over the edge's length) a stencil's rest shape must be: about one degree.
pub const FLAT_STENCIL: f64 = 0.02;

/// The weights of the isometric bending stencil across the edge `x[0]`–`x[1]` with opposite
/// vertices `x[2]`, `x[3]` (Bergou et al. 2006, "A quadratic bending model for inextensible
/// surfaces"): its curvature vector is κ = Σ kᵢ xᵢ (zero on the flat rest shape, as the
/// cotangent Laplacian reproduces linear functions), and its bending energy ½ k_b · 3 |κ|² /
/// (A₀ + A₁) for a stiffness k_b (N·m). The weights come scaled by √(3 / (A₀ + A₁)), so that
/// energy is ½ k_b |κ|²: a constraint C = |κ| with compliance 1/k_b, whatever the mesh's
/// resolution. Returns the first three (they sum to zero with the fourth); `None` for a
/// sliver (a triangle without area), whose cotangents are unbounded, and for a stencil not flat
/// at rest ([`FLAT_STENCIL`]).
pub fn bending_weights(x: [Vec3; 4]) -> Option<[f32; 3]> {
    let [x0, x1, x2, x3] = x.map(|v| v.as_dvec3());
    let (e0, e1, e2, e3, e4) = (x1 - x0, x2 - x0, x3 - x0, x2 - x1, x3 - x1);
    let cot = |v: glam::DVec3, w: glam::DVec3| v.dot(w) / v.cross(w).length();
    let (a0, a1) = (0.5 * e0.cross(e1).length(), 0.5 * e0.cross(e2).length());
    let size = e0
        .length_squared()
        .max(e1.length_squared())
        .max(e2.length_squared());
    if !(a0 > 1e-6 * size && a1 > 1e-6 * size) {
        return None;
    }
    let (c01, c02, c03, c04) = (cot(e0, e1), cot(e0, e2), cot(-e0, e3), cot(-e0, e4));
    // The model's energy is zero only when flat: across a curved rest shape it would flatten
    // the cloth, so a fold at rest (κ of a hinge is about its angle times |e₀|) keeps a
    // distance constraint. 0.02 is about a degree.
    let kappa = (c03 + c04) * x0 + (c01 + c02) * x1 - (c01 + c03) * x2 - (c02 + c04) * x3;
    if kappa.length() > FLAT_STENCIL * e0.length() {
        return None;
    }
    let scale = (3.0 / (a0 + a1)).sqrt();
    let k = [c03 + c04, c01 + c02, -c01 - c03].map(|k| (k * scale) as f32);
    k.iter().all(|k| k.is_finite()).then_some(k)
}

/// The least shape a membrane triangle may have: twice its area over its longest edge squared
/// (the sine of its smallest angle, about, when that angle is small; a grid's triangle 0.5,
/// an equilateral one 0.87). A thinner one keeps its edges ([`membrane_triangles`]): its rest
/// matrix grows as 1 / (its height), and a disc's fan of 60 such triangles round one vertex
/// (0.105), rigid in shear, tore itself apart (`a_fan_of_thin_triangles_keeps_its_shape`),
/// where 40 (0.156) held.
pub const MEMBRANE_MIN_SHAPE: f64 = 0.15;

/// One membrane triangle ([`Constraint::triangle`]) for each triangle of a mesh at rest
/// (`positions`), with its warp along the texture's u where `uvs` gives the triangle a
/// non-degenerate map, else along the rest positions' x axis laid into the triangle (z where x
/// is nearly its normal). A sliver (no area: its rest matrix is unbounded) or a triangle
/// thinner than [`MEMBRANE_MIN_SHAPE`] gets none, and is returned second, so that its edges
/// can stay.
pub fn membrane_triangles(
    positions: &[Vec3],
    triangles: &[[u32; 3]],
    uvs: Option<&UvLayer>,
) -> (Vec<Constraint>, Vec<[u32; 3]>) {
    let mut out = Vec::with_capacity(2 * triangles.len());
    let mut slivers = Vec::new();
    for (k, &t) in triangles.iter().enumerate() {
        let [x0, x1, x2] = t.map(|v| positions[v as usize].as_dvec3());
        let (e1, e2) = (x1 - x0, x2 - x0);
        let normal = e1.cross(e2);
        let size = e1.length_squared().max(e2.length_squared());
        let longest = size.max((x2 - x1).length_squared());
        let has_area = normal.length() > 1e-6 * size;
        if !has_area || normal.length() < MEMBRANE_MIN_SHAPE * longest {
            slivers.push(t);
            continue;
        }
        let n = normal.normalize();
        let l1 = e1.length();
        let u = e1 / l1;
        let w = n.cross(u);
        let h = e2.dot(w);
        let m = [1.0 / l1, -e2.dot(u) / (l1 * h), 1.0 / h];
        // The warp: where u grows on the texture (x = x0 + [e1 e2] D⁻¹ (uv − uv0), so its
        // direction is [e1 e2] times D⁻¹'s first row, D the uv edges), else x laid flat.
        let from_uv = uvs.and_then(|layer| {
            let [a, b, c] = layer
                .triangles
                .get(k)?
                .map(|v| layer.uvs[v as usize].as_dvec2());
            let (d1, d2) = (b - a, c - a);
            let det = d1.x * d2.y - d2.x * d1.y;
            let dir = (e1 * d2.y - e2 * d1.y) / det;
            (det.abs() > 1e-12 && dir.length() > 0.0 && dir.is_finite()).then_some(dir)
        });
        let axis = if n.x.abs() < 0.99 {
            glam::DVec3::X
        } else {
            glam::DVec3::Z
        };
        let warp = from_uv.unwrap_or(axis);
        let theta = warp.dot(w).atan2(warp.dot(u));
        if m.iter().all(|v| v.is_finite() && v.abs() < f32::MAX as f64) {
            out.extend(Constraint::triangle(t, m.map(|v| v as f32), theta as f32));
        } else {
            slivers.push(t);
        }
    }
    (out, slivers)
}

/// For each vertex, the triangles that use it, as a compressed sparse row list: the triangles
/// of vertex `v` are `items[offsets[v]..offsets[v + 1]]`. The normals kernel walks it with one
/// thread per vertex, so no two threads write the same normal (no float atomics).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VertexTriangles {
    /// `vertex_count + 1` offsets into `items`.
    pub offsets: Vec<u32>,
    /// Triangle indices, grouped by vertex.
    pub items: Vec<u32>,
}

impl VertexTriangles {
    /// The list for `vertex_count` vertices and `triangles`.
    pub fn new(vertex_count: usize, triangles: &[[u32; 3]]) -> Self {
        let mut offsets = vec![0u32; vertex_count + 1];
        for t in triangles {
            for &v in t {
                offsets[v as usize + 1] += 1;
            }
        }
        for v in 0..vertex_count {
            offsets[v + 1] += offsets[v];
        }
        let mut fill = offsets.clone();
        let mut items = vec![0u32; triangles.len() * 3];
        for (k, t) in triangles.iter().enumerate() {
            for &v in t {
                items[fill[v as usize] as usize] = k as u32;
                fill[v as usize] += 1;
            }
        }
        Self { offsets, items }
    }

    /// The triangles of vertex `v`.
    pub fn of(&self, v: usize) -> &[u32] {
        &self.items[self.offsets[v] as usize..self.offsets[v + 1] as usize]
    }
}

/// The axis-aligned bounding box of `positions`: (lowest corner, highest corner).
pub fn bounds(positions: &[Vec3]) -> (Vec3, Vec3) {
    positions.iter().fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(lo, hi), p| (lo.min(*p), hi.max(*p)),
    )
}

/// Area of triangle `t` (m²).
pub fn triangle_area(positions: &[Vec3], t: [u32; 3]) -> f32 {
    let [a, b, c] = t.map(|v| positions[v as usize]);
    0.5 * (b - a).cross(c - a).length()
}

/// Texture coordinates for a mesh that has none: the rest positions projected onto the plane
/// of the two longest sides of the bounding box, scaled so the longer spans [0, 1]. Gives the
/// demo's checker something to draw.
pub fn planar_uvs(positions: &[Vec3], triangles: &[[u32; 3]]) -> UvLayer {
    let (lo, hi) = bounds(positions);
    let extent = (hi - lo).max(Vec3::splat(1e-9));
    // The two longest axes, in x, y, z order.
    let mut axes = [0usize, 1, 2];
    axes.sort_by(|&a, &b| extent[b].total_cmp(&extent[a]));
    let (mut u, mut v) = (axes[0], axes[1]);
    if u > v {
        std::mem::swap(&mut u, &mut v);
    }
    let span = extent[u].max(extent[v]);
    UvLayer {
        uvs: positions
            .iter()
            .map(|p| Vec2::new((p[u] - lo[u]) / span, (p[v] - lo[v]) / span))
            .collect(),
        triangles: triangles.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shared edge's two sides come together, the first triangle's first; a border edge has
    /// one side, numbered from its triangle and corner.
    #[test]
    fn sorted_sides_group_each_edge_in_triangle_order() {
        let sides = sorted_sides(&[[0, 1, 2], [2, 1, 3]]);
        assert_eq!(sides.len(), 6);
        let shared: Vec<u32> = sides
            .iter()
            .filter(|s| s.0 == (1, 2))
            .map(|s| s.1)
            .collect();
        assert_eq!(shared, [1, 3]);
        assert!(sides.contains(&((1, 3), 4)));
        assert!(sides.windows(2).all(|w| w[0] < w[1]));
    }

    /// A membrane triangle keeps its frame through its two records (the warp's angle within
    /// 0.22°), and one step of it leaves the rest shape alone, pulls a stretched triangle back
    /// to its warp's and weft's lengths whatever the warp's angle, and with a free shear lets a
    /// sheared one keep its shear.
    #[test]
    fn a_membrane_triangle_rests_flat_and_pulls_back_its_warp_and_weft() {
        use crate::cpu::common::{solve_triangle, triangle_frame};
        use glam::{Vec2, Vec4};
        let x = [
            Vec3::new(0.1, 1.0, 0.0),
            Vec3::new(1.2, 1.0, 0.3),
            Vec3::new(0.4, 1.0, 1.1),
        ];
        let params = crate::config::StepParams {
            over_relaxation: 1.0,
            ..Default::default()
        };
        for warp_degrees in [0.0f32, 30.0, 75.0, 120.0] {
            let a = warp_degrees.to_radians();
            let uv =
                x.map(|p| Vec2::new(p.x * a.cos() + p.z * a.sin(), p.z * a.cos() - p.x * a.sin()));
            let layer = UvLayer {
                uvs: uv.to_vec(),
                triangles: vec![[0, 1, 2]],
            };
            let records = membrane_triangles(&x, &[[0, 1, 2]], Some(&layer)).0;
            let g = triangle_frame(&records[0], &records[1]);
            let f = |y: [Vec3; 3]| {
                let (e1, e2) = (y[1] - y[0], y[2] - y[0]);
                (e1 * g.x + e2 * g.y, e1 * g.z + e2 * g.w)
            };
            // At rest, warp and weft are unit and square, and the warp lies along the
            // texture's u.
            let (fu, fv) = f(x);
            let warp = Vec3::new(a.cos(), 0.0, a.sin());
            assert!((fu.length() - 1.0).abs() < 1e-5 && (fv.length() - 1.0).abs() < 1e-5);
            assert!(fu.dot(fv).abs() < 1e-5, "{warp_degrees}°");
            // (A direction: modulo π.)
            assert!(
                fu.dot(warp).abs() > (0.22f32).to_radians().cos(),
                "{warp_degrees}°: {fu}"
            );
            let step = |y: [Vec3; 3], shear: f32| {
                let mut p = y.map(|v| v.extend(1.0));
                let (mut l0, mut l1) = (0.0, 0.0);
                solve_triangle(&params, g, &mut p, [0.0, shear], [&mut l0, &mut l1], true);
                p.map(|q: Vec4| q.truncate())
            };
            let rested = step(x, 0.0);
            assert!((0..3).all(|k| rested[k].distance(x[k]) < 1e-5));
            // Stretched 20 % along the warp: one step takes warp and weft back to length.
            let stretched = x.map(|p| p + warp * (0.2 * p.dot(warp)));
            let (fu, fv) = f(step(stretched, 0.0));
            assert!((fu.length() - 1.0).abs() < 1e-3 && (fv.length() - 1.0).abs() < 1e-3);
            // Sheared (the weft turned towards the warp, lengths kept): a free shear keeps it.
            let weft = Vec3::Y.cross(warp);
            let turn = glam::Mat3::from_cols(warp, Vec3::Y, weft);
            let shear =
                glam::Mat3::from_cols(Vec3::X, Vec3::Y, Vec3::new(0.3f32.sin(), 0.0, 0.3f32.cos()));
            let m = turn * shear * turn.transpose();
            let sheared = x.map(|p| m * p);
            let (fu0, fv0) = f(sheared);
            let (fu1, fv1) = f(step(sheared, 1e9));
            assert!(
                (fu1.normalize().dot(fv1.normalize()) - fu0.normalize().dot(fv0.normalize())).abs()
                    < 1e-4
            );
            // (The weft is the warp turned a right angle about the triangle's normal, which
            // points down here, so the cosine's sign is the normal's.)
            assert!((fu0.normalize().dot(fv0.normalize()).abs() - 0.3f32.sin()).abs() < 1e-3);
            // A rigid shear squares it: one step to within a tenth of the angle, three to
            // within a thousandth.
            let once = step(sheared, 0.0);
            let cosine = |y| {
                let (a, b) = f(y);
                a.normalize().dot(b.normalize()).abs()
            };
            let thrice = step(step(once, 0.0), 0.0);
            assert!(cosine(once) < 0.03 && cosine(thrice) < 1e-3);
        }
    }

    /// The curvature vector is zero on the flat rest shape and on any affine map of it (so a
    /// stencil resists bending, not a uniform stretch or turn), grows with a fold's angle, and
    /// survives the stencil's two records (the third weight loses four mantissa bits).
    #[test]
    fn a_bending_stencil_is_zero_flat_and_grows_with_the_fold() {
        let x = [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.1),
            Vec3::new(0.3, 0.0, 0.9),
            Vec3::new(0.6, 0.0, -0.7),
        ];
        let k = bending_weights(x).unwrap();
        let [head, tail] = Constraint::stencil([0, 1, 2, 3], k);
        let (ids, w) = Constraint::stencil_parts(&head, &tail);
        assert_eq!(ids, [0, 1, 2, 3]);
        assert!((w[2] - k[2]).abs() <= 2e-6 * k[2].abs());
        let kappa = |y: [Vec3; 4]| (0..4).map(|a| y[a] * w[a]).sum::<Vec3>().length();
        let affine = glam::Affine3A::from_scale_rotation_translation(
            Vec3::new(1.3, 0.7, 2.0),
            glam::Quat::from_rotation_y(0.6),
            Vec3::new(4.0, -2.0, 1.0),
        );
        assert!(kappa(x) < 1e-5 && kappa(x.map(|p| affine.transform_point3(p))) < 1e-4);
        // Fold the vertex opposite on one side up by a growing angle about the edge.
        let fold = |angle: f32| {
            let axis = (x[1] - x[0]).normalize();
            let mut y = x;
            y[3] = glam::Quat::from_axis_angle(axis, angle) * x[3];
            kappa(y)
        };
        assert!(fold(0.1) > 0.0 && fold(0.4) > 3.0 * fold(0.1));
        // Folded at rest, or a sliver: no stencil.
        let mut folded = x;
        folded[3].y = 0.5;
        assert!(bending_weights(folded).is_none());
        assert!(bending_weights([x[0], x[1], x[0].lerp(x[1], 0.5), x[3]]).is_none());
    }

    #[test]
    fn a_quad_split_on_its_diagonal_has_a_grid_cells_constraints() {
        // 0 1
        // 2 3, split on 1-2.
        let p = [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, -1.0, 0.0),
            Vec3::new(1.0, -1.0, 0.0),
        ];
        let (c, non_manifold, boundary) =
            mesh_constraints(&p, &[[0, 2, 1], [1, 2, 3]], &[[1, 2]], [true; 3]);
        let kinds: Vec<_> = c
            .iter()
            .map(|c| (c.i.min(c.j), c.i.max(c.j), c.kind_number()))
            .collect();
        let s = ConstraintKind::Structural as u32;
        let sh = ConstraintKind::Shear as u32;
        assert_eq!(
            kinds,
            vec![
                (0, 2, s),
                (1, 2, sh),
                (0, 1, s),
                (2, 3, s),
                (1, 3, s),
                (0, 3, sh)
            ]
        );
        assert_eq!((non_manifold, boundary), (0, 4));
        assert!((c[5].rest - 2f32.sqrt()).abs() < 1e-6);
    }

    #[test]
    fn vertex_triangles_lists_every_corner_once() {
        let t = [[0, 1, 2], [2, 1, 3]];
        let csr = VertexTriangles::new(5, &t);
        assert_eq!(csr.of(0), &[0]);
        assert_eq!(csr.of(1), &[0, 1]);
        assert_eq!(csr.of(2), &[0, 1]);
        assert_eq!(csr.of(3), &[1]);
        assert!(csr.of(4).is_empty());
    }
}
