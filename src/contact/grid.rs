//! Triangle-mesh colliders as signed distance grids: built once on the host, read on the GPU
//! with eight loads and a trilinear blend (`docs/contact.md`: a grid is cheap to query, which is
//! what a per-particle, per-substep test needs; a BVH is exact for thin parts but walks dozens
//! of nodes per query).
//!
//! The build is exact near the surface and a lower bound away from it:
//! 1. **Band**: every sample within [`BAND_CELLS`] cells of a triangle gets its exact distance
//!    to the nearest triangle (the triangles bucketed by grid layer, the layers in parallel).
//! 2. **Sign**: a closed mesh (every edge shared by exactly two triangles) is signed. In the band
//!    the sign comes from the angle-weighted pseudo-normal of the nearest feature (Bærentzen &
//!    Aanæs 2005), which is exact for closed meshes; outside the band, samples reachable from
//!    the grid's border without crossing the band are outside, the rest inside. An open mesh
//!    (a shell, a garment, a terrain patch) is unsigned: the cloth stays `thickness` away from
//!    its surface on whichever side it is.
//! 3. **Far field**: past the band, the band's edge plus the grid-path distance to it over √3,
//!    which never overestimates, so the collide kernel's sphere tracing never steps through a
//!    surface.
//!
//! One file, though long (640 lines and its tests): the build and the queries share one
//! sample layout, and the tests check the one against the other.

use glam::Vec3;
use rayon::prelude::*;

use crate::error::{ChiffonError, Result};
use crate::geometry::TriangleMesh;

/// Samples within this many cells of a triangle get exact distances (enough for contact, and a
/// shell the sign's flood fill cannot leak through).
pub const BAND_CELLS: f32 = 1.5;
/// Samples along the longest side of the mesh's box by default.
pub const DEFAULT_RESOLUTION: u32 = 96;
/// Most samples along any side.
pub const MAX_RESOLUTION: u32 = 512;
/// Cells of padding around the mesh's box.
const PADDING: u32 = 4;

/// A signed (or, for an open mesh, unsigned) distance field on a regular grid, in the frame of
/// the mesh it was built from.
///
/// Deserialized (feature `serde`), a grid is checked as it is read: its samples must fill its
/// dimensions, and its box and samples must be finite numbers a built grid could have, so a
/// hand-edited or truncated file is an error, not an out-of-bounds read in the kernels.
#[derive(Clone, Debug)]
// `remote = "Self"`: the derives become inherent functions, which the impls below call, so the
// fields are declared once and a grid read back is checked before anyone holds it.
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(remote = "Self")
)]
pub struct DistanceGrid {
    origin: Vec3,
    cell: f32,
    dims: [u32; 3],
    values: Vec<f32>,
    signed: bool,
    triangles: usize,
}

#[cfg(feature = "serde")]
impl serde::Serialize for DistanceGrid {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        DistanceGrid::serialize(self, s)
    }
}

/// Read as written, then checked (`DistanceGrid::checked`): a grid that could not have been
/// built is an error naming what is wrong.
#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for DistanceGrid {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        DistanceGrid::deserialize(d)?
            .checked()
            .map_err(serde::de::Error::custom)
    }
}

/// Most samples along a side of a grid [`DistanceGrid::from_mesh`] builds: the resolution and
/// the padding on both sides.
#[cfg(feature = "serde")]
const MAX_DIM: u32 = MAX_RESOLUTION + 2 * PADDING + 1;

/// Equal grids have equal samples. The same grid (a collider's `Arc` compared with itself, as
/// `World::set_params` does when the demo hands it the same parameters every frame) is equal
/// at once, without comparing its samples (a 96³ grid is 3.5 MB).
impl PartialEq for DistanceGrid {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
            || (self.origin == other.origin
                && self.cell == other.cell
                && self.dims == other.dims
                && self.signed == other.signed
                && self.triangles == other.triangles
                && self.values == other.values)
    }
}

impl DistanceGrid {
    /// The distance field of `mesh`, with `resolution` samples along the longest side of its
    /// bounding box (plus padding). Fails on a mesh without triangles, with non-finite
    /// positions or indices out of range.
    pub fn from_mesh(mesh: &TriangleMesh, resolution: u32) -> Result<Self> {
        let bad = |reason: String| ChiffonError::InvalidMesh {
            source_name: mesh.name.clone(),
            reason,
        };
        if !(4..=MAX_RESOLUTION).contains(&resolution) {
            return Err(ChiffonError::InvalidParameter {
                name: "collider grid resolution",
                reason: format!("{resolution} must be between 4 and {MAX_RESOLUTION}"),
            });
        }
        let p = &mesh.positions;
        if let Some(i) = p.iter().position(|v| !v.is_finite()) {
            return Err(bad(format!("vertex {} is not finite", i + 1)));
        }
        // Refused, not built: a grid over a box past the bound has cells so large (or a
        // size so overflowing) that the mesh is lost in it (config::MAX_COORDINATE says why).
        let max = crate::config::MAX_COORDINATE;
        if let Some(i) = p.iter().position(|v| v.abs().max_element() > max) {
            return Err(bad(format!(
                "vertex {} is at {}, more than {max:e} m from the origin on an axis; chiffon \
                 takes coordinates up to that: positions are f32, good to 6 cm at 1e6 m, and a \
                 mesh collider farther out is lost by the contact test",
                i + 1,
                crate::error::shown3(p[i])
            )));
        }
        let tris: Vec<[u32; 3]> = mesh
            .triangles
            .iter()
            .copied()
            .filter(|t| {
                let [a, b, c] = t.map(|i| p.get(i as usize).copied().unwrap_or(Vec3::NAN));
                (b - a).cross(c - a).length_squared() > 0.0
            })
            .collect();
        if let Some(t) = mesh
            .triangles
            .iter()
            .find(|t| t.iter().any(|&i| i as usize >= p.len()))
        {
            return Err(bad(format!("a triangle names vertex {t:?} of {}", p.len())));
        }
        if tris.is_empty() {
            return Err(bad(
                "it has no triangle with an area; a mesh collider needs a surface".into(),
            ));
        }
        // The box of the surface, not of every vertex: a vertex no triangle uses (an OBJ may
        // carry one) took a plate's grid out to it, 9.4 m cells for a vertex 900 m off, and
        // the cloth was kept 5.6 m from the plate.
        let (lo, hi) = tris.iter().flatten().fold(
            (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
            |(lo, hi), &i| (lo.min(p[i as usize]), hi.max(p[i as usize])),
        );
        let extent = (hi - lo).max_element().max(1e-6);
        let cell = extent / resolution as f32;
        let origin = lo - Vec3::splat(cell * PADDING as f32);
        let dims = ((hi - origin) / cell)
            .ceil()
            .as_uvec3()
            .to_array()
            .map(|d| d + PADDING + 1);
        let geometry = Surface::new(p, &tris, (hi - lo).max_element());
        let mut grid = Self {
            origin,
            cell,
            dims,
            values: Vec::new(),
            signed: geometry.closed,
            triangles: tris.len(),
        };
        grid.values = grid.build(&geometry, true);
        Ok(grid)
    }

    /// The distance field of the mesh in an OBJ file (see [`DistanceGrid::from_mesh`]).
    pub fn from_obj(path: impl AsRef<std::path::Path>, resolution: u32) -> Result<Self> {
        Self::from_mesh(&crate::geometry::obj::load(path.as_ref())?, resolution)
    }

    /// The grid, if it is one [`DistanceGrid::from_mesh`] could have built: from 2 to
    /// `MAX_DIM` samples along each side, as many samples as its sides make, each finite, and
    /// a finite, positive cell over a box within reach of the coordinate bound. The kernels
    /// index the samples from the dimensions, so a grid that broke this read out of bounds.
    #[cfg(feature = "serde")]
    fn checked(self) -> Result<Self> {
        let bad = |reason: String| {
            Err(ChiffonError::InvalidParameter {
                name: "distance grid",
                reason,
            })
        };
        if let Some(d) = self.dims.iter().find(|d| !(2..=MAX_DIM).contains(*d)) {
            return bad(format!(
                "its dims {:?} have a side of {d} samples; each side must have from 2 to \
                 {MAX_DIM}",
                self.dims
            ));
        }
        let want = self.dims.iter().map(|&d| d as usize).product::<usize>();
        if self.values.len() != want {
            return bad(format!(
                "it holds {} samples, but its dims {:?} need {want}",
                self.values.len(),
                self.dims
            ));
        }
        if !(self.cell.is_finite() && self.cell > 0.0) {
            return bad(format!(
                "its cell size is {}; it must be finite and greater than 0",
                self.cell
            ));
        }
        // A grid built from a mesh within MAX_COORDINATE reaches at most its padding (at the
        // coarsest resolution, the mesh's extent again) past it: 4 × the bound holds every one.
        let far = self.origin + Vec3::from_array(self.dims.map(|d| (d - 1) as f32)) * self.cell;
        let reach = 4.0 * crate::config::MAX_COORDINATE;
        if !(self.origin.is_finite() && far.is_finite())
            || self.origin.abs().max_element() > reach
            || far.abs().max_element() > reach
        {
            return bad(format!(
                "its box from {} to {} is not within {reach:e} m of the origin",
                crate::error::shown3(self.origin),
                crate::error::shown3(far)
            ));
        }
        if let Some(i) = self.values.iter().position(|v| !v.is_finite()) {
            return bad(format!(
                "its sample {i} is {}, not a finite distance",
                self.values[i]
            ));
        }
        Ok(self)
    }

    /// Samples along x, y and z.
    pub fn dims(&self) -> [u32; 3] {
        self.dims
    }

    /// The position of sample (0, 0, 0) (m, in the mesh's frame).
    pub fn origin(&self) -> Vec3 {
        self.origin
    }

    /// Distance between samples (m).
    pub fn cell_size(&self) -> f32 {
        self.cell
    }

    /// The samples, x fastest, then y, then z (m; negative inside a closed mesh).
    pub fn values(&self) -> &[f32] {
        &self.values
    }

    /// True for a closed mesh (inside and outside); false for an open one (a shell).
    pub fn is_signed(&self) -> bool {
        self.signed
    }

    /// Bytes its samples take (on the host, and again on the GPU).
    pub fn memory_bytes(&self) -> u64 {
        std::mem::size_of_val(self.values.as_slice()) as u64
    }

    /// Triangles it was built from (degenerate ones dropped).
    pub fn triangle_count(&self) -> usize {
        self.triangles
    }

    /// A sphere (centre, radius) holding the grid's box.
    pub fn bounds(&self) -> (Vec3, f32) {
        let size = self.dims.map(|d| (d - 1) as f32);
        let half = Vec3::from_array(size) * self.cell * 0.5;
        (self.origin + half, half.length())
    }

    /// The distance at `q` (m, in the mesh's frame): trilinear inside the grid, and outside it
    /// the distance to the grid's box plus the value at the nearest point of the box (the twin
    /// of `grid_distance` in `shaders/colliders.wgsl`).
    pub fn distance(&self, q: Vec3) -> f32 {
        crate::cpu::grid_distance(
            self.origin,
            self.cell,
            glam::UVec3::from_array(self.dims),
            &self.values,
            q,
        )
    }

    fn index(&self, x: u32, y: u32, z: u32) -> usize {
        (z as usize * self.dims[1] as usize + y as usize) * self.dims[0] as usize + x as usize
    }

    /// The samples. `cull` visits only the samples near each triangle's plane (the tests
    /// compare it with visiting its whole box, which must give the same samples, bit for bit).
    fn build(&self, s: &Surface, cull: bool) -> Vec<f32> {
        let [nx, ny, nz] = self.dims;
        let band = BAND_CELLS * self.cell;
        let at = |x: u32, y: u32, z: u32| {
            self.origin + Vec3::new(x as f32, y as f32, z as f32) * self.cell
        };
        // The triangles whose band reaches each layer z.
        let mut layers: Vec<Vec<u32>> = vec![Vec::new(); nz as usize];
        let cells = |v: f32, axis: usize| -> (u32, u32) {
            let lo = ((v - band - self.origin[axis]) / self.cell)
                .floor()
                .max(0.0) as u32;
            let hi = ((v + band - self.origin[axis]) / self.cell).ceil().max(0.0) as u32;
            (lo, hi.min(self.dims[axis] - 1))
        };
        let boxes: Vec<[(u32, u32); 3]> = s
            .tris
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| s.p[i as usize]);
                let (lo, hi) = (a.min(b).min(c), a.max(b).max(c));
                [0, 1, 2].map(|k| (cells(lo[k], k).0, cells(hi[k], k).1))
            })
            .collect();
        for (k, b) in boxes.iter().enumerate() {
            for z in b[2].0..=b[2].1 {
                layers[z as usize].push(k as u32);
            }
        }
        // Each triangle's plane, to visit only the cells of its box near it: a sample farther
        // from the plane than the band is farther from the triangle too, so the triangle
        // cannot be its nearest within the band, and leaving it out changes no value. A soup
        // of large triangles (each box most of the grid) cost the whole box per triangle: a
        // 1000-triangle soup 2.3 s at 96 samples, a million 40 minutes.
        let planes: Vec<Option<Plane>> = s
            .tris
            .iter()
            .map(|t| Plane::new(t.map(|i| s.p[i as usize])))
            .collect();
        // The slab kept about each plane: the band, a cell, and room for f32's rounding of
        // the samples' coordinates and of the distances measured from them.
        let far = self.origin + Vec3::from_array(self.dims.map(|d| d as f32)) * self.cell;
        let magnitude = self.origin.abs().max(far.abs()).max_element() as f64;
        let slab = band as f64 + self.cell as f64 + 1e-5 * magnitude;
        // 1. The band: exact distance and nearest feature, one layer per task.
        let layer_len = (nx * ny) as usize;
        let mut nearest = vec![(f32::INFINITY, 0.0f32); (nx * ny * nz) as usize];
        nearest
            .par_chunks_mut(layer_len)
            .enumerate()
            .for_each(|(z, layer)| {
                for &k in &layers[z] {
                    let b = &boxes[k as usize];
                    for y in b[1].0..=b[1].1 {
                        let (x0, x1) = match &planes[k as usize] {
                            Some(plane) if cull => {
                                match plane.row(self.origin, self.cell, y, z as u32, slab, b[0]) {
                                    Some(r) => r,
                                    None => continue,
                                }
                            }
                            _ => b[0],
                        };
                        for x in x0..=x1 {
                            let q = at(x, y, z as u32);
                            let (d, side) = s.distance(k as usize, q);
                            let slot = &mut layer[(y * nx + x) as usize];
                            if d < slot.0 {
                                *slot = (d, side);
                            }
                        }
                    }
                }
            });
        // 3. Far field: breadth-first steps from the band, each worth a cell over √3.
        let mut value: Vec<f32> = nearest.iter().map(|n| n.0).collect();
        let in_band = |v: f32| v <= band;
        let mut steps = vec![u32::MAX; value.len()];
        let mut queue = std::collections::VecDeque::new();
        for (i, v) in value.iter().enumerate() {
            if in_band(*v) {
                steps[i] = 0;
                queue.push_back(i);
            }
        }
        let neighbours = |i: usize| {
            let (x, y, z) = (
                i % nx as usize,
                (i / nx as usize) % ny as usize,
                i / layer_len,
            );
            let mut out = [usize::MAX; 6];
            if x > 0 {
                out[0] = i - 1;
            }
            if x + 1 < nx as usize {
                out[1] = i + 1;
            }
            if y > 0 {
                out[2] = i - nx as usize;
            }
            if y + 1 < ny as usize {
                out[3] = i + nx as usize;
            }
            if z > 0 {
                out[4] = i - layer_len;
            }
            if z + 1 < nz as usize {
                out[5] = i + layer_len;
            }
            out
        };
        while let Some(i) = queue.pop_front() {
            for j in neighbours(i) {
                if j != usize::MAX && steps[j] == u32::MAX {
                    steps[j] = steps[i] + 1;
                    queue.push_back(j);
                }
            }
        }
        for (i, v) in value.iter_mut().enumerate() {
            if !in_band(*v) {
                *v = band + steps[i] as f32 * self.cell / 3f32.sqrt();
            }
        }
        if !s.closed {
            return value;
        }
        // 2. Signs: in the band from the nearest feature's pseudo-normal; elsewhere, outside
        // where the border reaches without crossing the band.
        let mut outside = vec![false; value.len()];
        let mut queue = std::collections::VecDeque::new();
        for z in 0..nz {
            for y in 0..ny {
                for x in 0..nx {
                    let border =
                        x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1;
                    let i = self.index(x, y, z);
                    if border && !in_band(nearest[i].0) {
                        outside[i] = true;
                        queue.push_back(i);
                    }
                }
            }
        }
        while let Some(i) = queue.pop_front() {
            for j in neighbours(i) {
                if j != usize::MAX && !outside[j] && !in_band(nearest[j].0) {
                    outside[j] = true;
                    queue.push_back(j);
                }
            }
        }
        for (i, v) in value.iter_mut().enumerate() {
            let inside = if in_band(nearest[i].0) {
                nearest[i].1 < 0.0
            } else {
                !outside[i]
            };
            if inside {
                *v = -*v;
            }
        }
        value
    }
}

/// A triangle's plane in f64: its unit normal and a point of it.
struct Plane {
    normal: glam::DVec3,
    point: glam::DVec3,
}

impl Plane {
    /// `None` when the corners give no normal in f64 either.
    fn new([a, b, c]: [Vec3; 3]) -> Option<Self> {
        let (a, b, c) = (a.as_dvec3(), b.as_dvec3(), c.as_dvec3());
        let normal = (b - a).cross(c - a).try_normalize()?;
        Some(Self { normal, point: a })
    }

    /// The samples `x` of row (`y`, `z`) within `slab` of the plane, inside `within` (the
    /// triangle's box), as a range of x with a sample of room at each end; `None` if none.
    fn row(
        &self,
        origin: Vec3,
        cell: f32,
        y: u32,
        z: u32,
        slab: f64,
        within: (u32, u32),
    ) -> Option<(u32, u32)> {
        let (o, h) = (origin.as_dvec3(), cell as f64);
        let start = o + glam::DVec3::new(0.0, y as f64 * h, z as f64 * h);
        // The signed distance at sample x is c + step · x.
        let c = self.normal.dot(start - self.point);
        let step = self.normal.x * h;
        let (lo, hi) = if step.abs() < 1e-12 * h {
            if c.abs() > slab {
                return None;
            }
            (within.0, within.1)
        } else {
            let (p, q) = ((-slab - c) / step, (slab - c) / step);
            let (p, q) = (p.min(q).floor() - 1.0, p.max(q).ceil() + 1.0);
            if q < within.0 as f64 || p > within.1 as f64 {
                return None;
            }
            (
                (p.max(within.0 as f64)) as u32,
                (q.min(within.1 as f64)) as u32,
            )
        };
        Some((lo, hi))
    }
}

/// A mesh's triangles with what the sign test needs: face normals, and the angle-weighted
/// pseudo-normals of edges and vertices.
struct Surface<'a> {
    p: &'a [Vec3],
    tris: &'a [[u32; 3]],
    face: Vec<Vec3>,
    vertex: Vec<Vec3>,
    edge: std::collections::HashMap<(u32, u32), Vec3>,
    closed: bool,
    /// Each vertex's welded representative.
    same: Vec<u32>,
}

impl<'a> Surface<'a> {
    /// The surface of the triangles `tris` of `p`, whose box is `size` wide at its widest.
    fn new(p: &'a [Vec3], tris: &'a [[u32; 3]], size: f32) -> Self {
        // Vertices at the same position (to a millionth of the surface's size, not of every
        // vertex's: a stray one far off would weld a whole cape) are one: OBJ files split them
        // at UV seams and normal creases. Edges and pseudo-normals are counted on the welded
        // mesh.
        let quantum = (size * 1e-6).max(f32::MIN_POSITIVE);
        let mut first: std::collections::HashMap<[i64; 3], u32> = Default::default();
        let same: Vec<u32> = p
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let key = (*v / quantum).round().as_i64vec3().to_array();
                *first.entry(key).or_insert(i as u32)
            })
            .collect();
        let mut vertex = vec![Vec3::ZERO; p.len()];
        let mut edge: std::collections::HashMap<(u32, u32), Vec3> = Default::default();
        let mut uses: std::collections::HashMap<(u32, u32), u32> = Default::default();
        let mut face = Vec::with_capacity(tris.len());
        for t in tris {
            let [a, b, c] = t.map(|i| p[i as usize]);
            let n = (b - a).cross(c - a).normalize_or_zero();
            face.push(n);
            for k in 0..3 {
                let (i, j, o) = (t[k], t[(k + 1) % 3], t[(k + 2) % 3]);
                let (wi, wj) = (same[i as usize], same[j as usize]);
                let key = (wi.min(wj), wi.max(wj));
                *edge.entry(key).or_default() += n;
                *uses.entry(key).or_default() += 1;
                // The corner's angle at vertex i (between edges to j and to o).
                let (u, w) = (p[j as usize] - p[i as usize], p[o as usize] - p[i as usize]);
                vertex[wi as usize] += n * u.angle_between(w);
            }
        }
        let closed = uses.values().all(|&u| u == 2);
        Self {
            p,
            tris,
            face,
            vertex,
            edge,
            closed,
            same,
        }
    }

    /// The distance from `q` to triangle `k`, and the sign of `q` against the pseudo-normal of
    /// the nearest feature (negative: inside).
    fn distance(&self, k: usize, q: Vec3) -> (f32, f32) {
        let t = self.tris[k];
        let [a, b, c] = t.map(|i| self.p[i as usize]);
        let (closest, feature) = closest_on_triangle(q, a, b, c);
        let w = t.map(|i| self.same[i as usize]);
        let normal = match feature {
            Feature::Face => self.face[k],
            Feature::Vertex(v) => self.vertex[w[v] as usize],
            Feature::Edge(v) => {
                let (i, j) = (w[v], w[(v + 1) % 3]);
                self.edge[&(i.min(j), i.max(j))]
            }
        };
        let d = q - closest;
        (d.length(), d.dot(normal))
    }
}

/// Which part of a triangle a closest point lies on.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Feature {
    Face,
    /// The edge from corner k to corner k + 1.
    Edge(usize),
    Vertex(usize),
}

/// The point of triangle abc nearest `p`, and the feature it lies on (Ericson, Real-Time
/// Collision Detection, §5.1.5).
fn closest_on_triangle(p: Vec3, a: Vec3, b: Vec3, c: Vec3) -> (Vec3, Feature) {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, Feature::Vertex(0));
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return (b, Feature::Vertex(1));
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return (a + ab * (d1 / (d1 - d3)), Feature::Edge(0));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return (c, Feature::Vertex(2));
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return (a + ac * (d2 / (d2 - d6)), Feature::Edge(2));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return (b + (c - b) * w, Feature::Edge(1));
    }
    let denom = 1.0 / (va + vb + vc);
    (a + ab * (vb * denom) + ac * (vc * denom), Feature::Face)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube(half: f32) -> TriangleMesh {
        let h = half;
        let p: Vec<Vec3> = (0..8)
            .map(|i| {
                Vec3::new(
                    if i & 1 == 0 { -h } else { h },
                    if i & 2 == 0 { -h } else { h },
                    if i & 4 == 0 { -h } else { h },
                )
            })
            .collect();
        // Outward-wound faces.
        let quads = [
            [0, 2, 3, 1],
            [4, 5, 7, 6],
            [0, 1, 5, 4],
            [2, 6, 7, 3],
            [0, 4, 6, 2],
            [1, 3, 7, 5],
        ];
        let tris = quads
            .iter()
            .flat_map(|&[a, b, c, d]| [[a, b, c], [a, c, d]])
            .collect();
        TriangleMesh::new("cube", p, tris)
    }

    /// A vertex no triangle uses took the grid's box out to it: a 1 m plate with an unused
    /// vertex 900 m off had cells of 9.4 m, and kept the cloth 5.6 m from its surface.
    #[test]
    fn a_mesh_colliders_grid_spans_its_triangles_not_an_unused_vertex() {
        let plate = |extra: Option<Vec3>| {
            let mut p = vec![
                Vec3::new(-0.5, 0.3, -0.5),
                Vec3::new(0.5, 0.3, -0.5),
                Vec3::new(0.5, 0.3, 0.5),
                Vec3::new(-0.5, 0.3, 0.5),
            ];
            p.extend(extra);
            TriangleMesh::new("plate", p, vec![[0, 1, 2], [0, 2, 3]])
        };
        let alone = DistanceGrid::from_mesh(&plate(None), 32).unwrap();
        let far = Some(Vec3::new(900.0, 0.0, 0.0));
        let with = DistanceGrid::from_mesh(&plate(far), 32).unwrap();
        assert_eq!(with.cell_size(), alone.cell_size());
        assert_eq!(with.dims(), alone.dims());
        let above = Vec3::new(0.0, 0.31, 0.0);
        assert_eq!(with.distance(above), alone.distance(above));
        // Nor does it set how near two vertices weld: at 9e5 m off, a millionth of the box
        // was 0.9 m, and a 10 cm cube's corners welded into one, its surface no longer closed.
        let small = cube(0.05);
        let mut stray = small.clone();
        stray.positions.push(Vec3::new(9e5, 0.0, 0.0));
        let (alone, with) = (
            DistanceGrid::from_mesh(&small, 16).unwrap(),
            DistanceGrid::from_mesh(&stray, 16).unwrap(),
        );
        assert!(with.is_signed(), "the cube is no longer closed");
        let bits = |g: &DistanceGrid| g.values().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&with), bits(&alone));
    }

    #[test]
    fn a_closed_cube_has_its_exact_signed_distance_near_the_surface() {
        let g = DistanceGrid::from_mesh(&cube(0.5), 32).unwrap();
        assert!(g.is_signed());
        for (q, want) in [
            (Vec3::new(0.0, 0.6, 0.0), 0.1),
            (Vec3::new(0.0, 0.45, 0.0), -0.05),
            (Vec3::new(0.55, 0.0, 0.1), 0.05),
        ] {
            let d = g.distance(q);
            assert!(
                (d - want).abs() < 0.6 * g.cell_size(),
                "at {q}: {d} (want {want}, cell {})",
                g.cell_size()
            );
        }
        // Deep inside and far away: the sign is right and the size never more than the true
        // distance (a lower bound, so sphere tracing cannot step through the surface).
        let centre = g.distance(Vec3::ZERO);
        assert!((-0.5 - 1e-3..-0.2).contains(&centre), "centre: {centre}");
        let far = Vec3::new(3.0, 0.0, 0.0);
        assert!(g.distance(far) <= 2.5 + 1e-3);
        assert!(g.distance(far) > 1.0);
    }

    #[test]
    fn an_open_mesh_is_an_unsigned_shell() {
        let quad = TriangleMesh::new(
            "quad",
            vec![
                Vec3::new(-1.0, 0.0, -1.0),
                Vec3::new(1.0, 0.0, -1.0),
                Vec3::new(1.0, 0.0, 1.0),
                Vec3::new(-1.0, 0.0, 1.0),
            ],
            vec![[0, 1, 2], [0, 2, 3]],
        );
        let g = DistanceGrid::from_mesh(&quad, 16).unwrap();
        assert!(!g.is_signed());
        for y in [-0.1, 0.1] {
            let d = g.distance(Vec3::new(0.2, y, 0.3));
            assert!((d - 0.1).abs() < 0.02, "at y {y}: {d}");
        }
    }

    #[test]
    fn a_mesh_without_area_is_refused() {
        let flat = TriangleMesh::new(
            "line",
            vec![Vec3::ZERO, Vec3::X, Vec3::X * 2.0],
            vec![[0, 1, 2]],
        );
        assert!(DistanceGrid::from_mesh(&flat, 16).is_err());
        let nan = TriangleMesh::new("nan", vec![Vec3::NAN, Vec3::X, Vec3::Y], vec![[0, 1, 2]]);
        assert!(DistanceGrid::from_mesh(&nan, 16).is_err());
    }

    /// A soup of large triangles (each one's box most of the grid) cost its whole box per
    /// triangle: 2.3 s for 1000 at 96 samples, minutes for 100 000. The build now visits the
    /// samples near each triangle's plane only; this holds it to visiting the whole box, bit
    /// for bit, on a soup, a closed mesh turned and moved far out, and slivers.
    #[test]
    fn a_soup_of_large_triangles_builds_only_near_their_planes_with_the_same_samples() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut next = move || rng.random::<f32>();
        let mut soup = TriangleMesh {
            name: "soup".into(),
            ..TriangleMesh::default()
        };
        for k in 0..200u32 {
            for _ in 0..3 {
                let p = Vec3::new(next(), next(), next()) * 2.0 - 1.0;
                soup.positions.push(p);
            }
            soup.triangles.push([3 * k, 3 * k + 1, 3 * k + 2]);
        }
        let mut far = cube(1.85);
        let turn = glam::Quat::from_rotation_arc(Vec3::Y, Vec3::new(1.0, 2.0, 3.0).normalize());
        for p in &mut far.positions {
            *p = turn * *p + Vec3::new(5e5, -2e5, 1.0);
        }
        let sliver = TriangleMesh {
            name: "sliver".into(),
            positions: vec![
                Vec3::ZERO,
                Vec3::new(1.0, 0.3, 0.2),
                Vec3::new(1.0, 0.3 + 1e-6, 0.2),
            ],
            triangles: vec![[0, 1, 2]],
            ..TriangleMesh::default()
        };
        for (mesh, resolution) in [(soup, 40), (far, 48), (cube(0.5), 7), (sliver, 48)] {
            let grid = DistanceGrid::from_mesh(&mesh, resolution).unwrap();
            let tris: Vec<[u32; 3]> = mesh.triangles.clone();
            let (lo, hi) = crate::geometry::bounds(&mesh.positions);
            let surface = Surface::new(&mesh.positions, &tris, (hi - lo).max_element());
            let whole = grid.build(&surface, false);
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(grid.values()), bits(&whole), "{}", mesh.name);
        }
    }
}
