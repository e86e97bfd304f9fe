//! Welding: a mesh as exported (vertices repeated at UV seams and between groups, maybe
//! degenerate triangles, maybe unused vertices) becomes one particle per point of cloth.

use std::collections::HashMap;

use glam::Vec3;

use super::{MeshStats, TriangleMesh, UvLayer, triangle_area};
use crate::error::{ChiffonError, Result};

/// A mesh after welding: every vertex is used by a triangle with area, no two closer than the
/// tolerance.
pub(crate) struct Welded {
    pub positions: Vec<Vec3>,
    pub triangles: Vec<[u32; 3]>,
    pub uvs: Option<UvLayer>,
    /// Group name and its particles (sorted); same-named groups are merged.
    pub groups: Vec<(String, Vec<u32>)>,
    pub diagonals: Vec<[u32; 2]>,
    pub stats: MeshStats,
}

/// Checks `mesh` and welds vertices closer than `tolerance` (m; 0 welds exact duplicates only)
/// into the first of them, drops degenerate triangles and unused vertices.
pub(crate) fn weld(mesh: &TriangleMesh, tolerance: f32) -> Result<Welded> {
    let name = &mesh.name;
    let bad = |reason: String| ChiffonError::InvalidMesh {
        source_name: name.clone(),
        reason,
    };
    let n = mesh.positions.len();
    if let Some(v) = mesh.positions.iter().position(|p| !p.is_finite()) {
        return Err(bad(format!(
            "vertex {v} (counting from 0) has a non-finite coordinate {:?}",
            mesh.positions[v].to_array()
        )));
    }
    if mesh.triangles.is_empty() {
        return Err(bad("it has no triangles".into()));
    }
    if let Some((k, t)) = mesh
        .triangles
        .iter()
        .enumerate()
        .find(|(_, t)| t.iter().any(|&v| v as usize >= n))
    {
        return Err(bad(format!(
            "triangle {k} names vertex {} but there are {n} vertices",
            t.iter().max().unwrap() + 1
        )));
    }
    if let Some(uv) = &mesh.uvs {
        if uv.triangles.len() != mesh.triangles.len() {
            return Err(bad(format!(
                "{} UV triangles for {} triangles",
                uv.triangles.len(),
                mesh.triangles.len()
            )));
        }
        if uv
            .triangles
            .iter()
            .flatten()
            .any(|&i| i as usize >= uv.uvs.len())
        {
            return Err(bad(
                "a triangle names a texture coordinate that does not exist".into(),
            ));
        }
        if uv.uvs.iter().any(|u| !u.is_finite()) {
            return Err(bad("a texture coordinate is not finite".into()));
        }
    }
    for g in &mesh.groups {
        if g.triangles
            .iter()
            .any(|&t| t as usize >= mesh.triangles.len())
        {
            return Err(bad(format!(
                "group {:?} names a triangle that does not exist",
                g.name
            )));
        }
    }
    if !(tolerance.is_finite() && tolerance >= 0.0) {
        return Err(ChiffonError::InvalidParameter {
            name: "weld tolerance (m)",
            reason: format!("{tolerance} must be finite and at least 0"),
        });
    }

    // 1. Each vertex maps to the first earlier vertex within the tolerance.
    let (rep, welded_vertices) = representatives(&mesh.positions, tolerance);

    // 2. Triangles on representatives; drop those with a repeated vertex or (almost) no area,
    //    and those with the same three vertices as an earlier one (either winding: a file that
    //    lists a face twice, or once each way round, describes one piece of cloth).
    let (lo, hi) = super::bounds(&mesh.positions);
    let diagonal = (hi.as_dvec3() - lo.as_dvec3()).length();
    let min_area = (1.0e-12 * diagonal * diagonal).min(f32::MAX as f64) as f32;
    let mut kept = Vec::with_capacity(mesh.triangles.len());
    // For each input triangle, the kept triangle that stands for it (a duplicate's first).
    let mut stands_for = vec![u32::MAX; mesh.triangles.len()];
    let mut seen: HashMap<[u32; 3], u32> = HashMap::with_capacity(mesh.triangles.len());
    let mut degenerate_triangles = 0;
    let mut duplicate_triangles = 0;
    for (k, t) in mesh.triangles.iter().enumerate() {
        let r = t.map(|v| rep[v as usize]);
        let area = triangle_area(&mesh.positions, r);
        if r[0] == r[1] || r[1] == r[2] || r[0] == r[2] || area.is_nan() || area <= min_area {
            degenerate_triangles += 1;
            continue;
        }
        let mut key = r;
        key.sort_unstable();
        match seen.entry(key) {
            std::collections::hash_map::Entry::Occupied(first) => {
                stands_for[k] = *first.get();
                duplicate_triangles += 1;
            }
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(kept.len() as u32);
                stands_for[k] = kept.len() as u32;
                kept.push((k, r));
            }
        }
    }
    if kept.is_empty() {
        return Err(bad(format!(
            "all {} of its triangles are degenerate (no area once coincident vertices are \
             welded)",
            mesh.triangles.len()
        )));
    }

    // 3. Particles: the representatives some triangle uses, in vertex order.
    let mut particle = vec![u32::MAX; n];
    for (_, r) in &kept {
        for &v in r {
            particle[v as usize] = 0;
        }
    }
    let mut positions = Vec::new();
    for (slot, &p) in particle.iter_mut().zip(&mesh.positions) {
        if *slot == 0 {
            *slot = positions.len() as u32;
            positions.push(p);
        }
    }
    let unused_vertices = n - welded_vertices - positions.len();
    let to_particle = |v: u32| particle[rep[v as usize] as usize];
    let triangles: Vec<[u32; 3]> = kept.iter().map(|(_, r)| r.map(to_particle)).collect();
    let uvs = mesh.uvs.as_ref().map(|uv| UvLayer {
        uvs: uv.uvs.clone(),
        triangles: kept.iter().map(|&(k, _)| uv.triangles[k]).collect(),
    });

    // 4. Groups as particle sets (a duplicate's group gets the triangle kept for it).
    let new_index = stands_for;
    let mut groups: Vec<(String, Vec<u32>)> = Vec::new();
    for g in &mesh.groups {
        let members = g
            .triangles
            .iter()
            .filter(|&&t| new_index[t as usize] != u32::MAX)
            .flat_map(|&t| triangles[new_index[t as usize] as usize]);
        match groups.iter_mut().find(|(name, _)| *name == g.name) {
            Some((_, list)) => list.extend(members),
            None => groups.push((g.name.clone(), members.collect())),
        }
    }
    for (_, list) in &mut groups {
        list.sort_unstable();
        list.dedup();
    }
    let diagonals = mesh
        .diagonals
        .iter()
        .filter(|d| d.iter().all(|&v| (v as usize) < n))
        .map(|d| d.map(to_particle))
        .filter(|d| d[0] != u32::MAX && d[1] != u32::MAX && d[0] != d[1])
        .collect();
    Ok(Welded {
        positions,
        triangles,
        uvs,
        groups,
        diagonals,
        stats: MeshStats {
            welded_vertices,
            degenerate_triangles,
            duplicate_triangles,
            unused_vertices,
            ..mesh.stats
        },
    })
}

/// For each vertex, the first vertex within `tolerance` (m) of it (itself if none), and how
/// many vertices were merged into an earlier one.
///
/// A hash grid: cells at least the tolerance wide, so only the 27 cells around a vertex can
/// hold one within reach. The cells are also at least 2⁻⁴⁰ of the largest coordinate wide, so
/// a cell number stays far inside `i64` however small the tolerance (a wider cell only costs
/// time, and at that width only points that are equal to f32 precision share one). A tolerance
/// of 0 welds exactly equal positions, by their bits (−0 = +0), in one hash look-up each.
fn representatives(positions: &[Vec3], tolerance: f32) -> (Vec<u32>, usize) {
    let n = positions.len();
    let mut rep: Vec<u32> = (0..n as u32).collect();
    let mut welded = 0;
    if tolerance == 0.0 {
        let mut first: HashMap<[u32; 3], u32> = HashMap::with_capacity(n);
        for (v, p) in positions.iter().enumerate() {
            // Adding +0 turns −0 into +0.
            let key = (*p + Vec3::ZERO).to_array().map(f32::to_bits);
            let u = *first.entry(key).or_insert(v as u32);
            if u != v as u32 {
                rep[v] = u;
                welded += 1;
            }
        }
        return (rep, welded);
    }
    let largest = positions
        .iter()
        .fold(0.0f64, |m, p| m.max(p.abs().max_element() as f64));
    let cell = (tolerance as f64).max(largest * 2f64.powi(-40));
    let key = |p: Vec3| (p.as_dvec3() / cell).floor().as_i64vec3().to_array();
    let mut cells: HashMap<[i64; 3], Vec<u32>> = HashMap::with_capacity(n);
    for (v, &p) in positions.iter().enumerate() {
        let [x, y, z] = key(p);
        let mut found = None;
        'search: for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    if let Some(list) = cells.get(&[x + dx, y + dy, z + dz])
                        && let Some(&u) = list
                            .iter()
                            .find(|&&u| positions[u as usize].distance(p) <= tolerance)
                    {
                        found = Some(u);
                        break 'search;
                    }
                }
            }
        }
        match found {
            Some(u) => {
                rep[v] = u;
                welded += 1;
            }
            None => cells.entry([x, y, z]).or_default().push(v as u32),
        }
    }
    (rep, welded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seam_is_welded_and_unused_vertices_dropped() {
        // Two triangles sharing an edge, exported with the edge's vertices twice (a UV seam),
        // plus a stray vertex and a degenerate triangle.
        let p = vec![
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0) + Vec3::splat(1e-7),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(1.0, 1.0, 0.0),
            Vec3::new(5.0, 5.0, 5.0),
        ];
        let mesh = TriangleMesh::new("seam", p, vec![[0, 1, 2], [3, 5, 4], [1, 3, 2]]);
        let w = weld(&mesh, 1e-5).unwrap();
        assert_eq!(w.positions.len(), 4);
        assert_eq!(w.triangles, vec![[0, 1, 2], [1, 3, 2]]);
        assert_eq!(w.stats.welded_vertices, 2);
        assert_eq!(w.stats.unused_vertices, 1);
        assert_eq!(w.stats.degenerate_triangles, 1);
    }

    /// A tiny tolerance on huge coordinates (cell numbers past i64, once) welds the copy. The
    /// builder refuses such a mesh now (past `config::MAX_COORDINATE`), so the weld is held to
    /// it here, directly (moved from tests/mesh.rs).
    #[test]
    fn huge_coordinates_weld_without_overflow() {
        let huge = TriangleMesh::new(
            "huge",
            vec![
                Vec3::new(1.0e18, 0.0, 0.0),
                Vec3::new(1.0e18, 1.0e18, 0.0),
                Vec3::new(-1.0e18, 0.0, 0.0),
                Vec3::new(1.0e18, 0.0, 0.0),
                Vec3::new(-1.0e18, -1.0e18, 0.0),
            ],
            vec![[0, 1, 2], [3, 2, 4]],
        );
        for tolerance in [0.0, 1.0e-30] {
            let w = weld(&huge, tolerance).unwrap();
            assert_eq!(w.stats.welded_vertices, 1, "{tolerance}");
        }
    }
}
