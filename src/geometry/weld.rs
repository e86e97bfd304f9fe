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
            "vertex {} has a non-finite coordinate {:?}",
            v + 1,
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

    // 1. Each vertex maps to the first earlier vertex within the tolerance (a hash grid with
    //    cells of the tolerance's size, so only the 27 cells around a vertex are searched).
    let mut rep: Vec<u32> = (0..n as u32).collect();
    let mut welded_vertices = 0;
    {
        let cell = tolerance.max(f32::MIN_POSITIVE);
        let key = |p: Vec3| {
            let c = (p / cell).floor();
            (c.x as i64, c.y as i64, c.z as i64)
        };
        let mut cells: HashMap<(i64, i64, i64), Vec<u32>> = HashMap::with_capacity(n);
        for (v, &p) in mesh.positions.iter().enumerate() {
            let (x, y, z) = key(p);
            let mut found = None;
            'search: for dx in -1..=1 {
                for dy in -1..=1 {
                    for dz in -1..=1 {
                        if let Some(list) = cells.get(&(x + dx, y + dy, z + dz))
                            && let Some(&u) = list
                                .iter()
                                .find(|&&u| mesh.positions[u as usize].distance(p) <= tolerance)
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
                    welded_vertices += 1;
                }
                None => cells.entry((x, y, z)).or_default().push(v as u32),
            }
        }
    }

    // 2. Triangles on representatives; drop those with a repeated vertex or (almost) no area.
    let (lo, hi) = super::bounds(&mesh.positions);
    let diagonal = (hi - lo).length();
    let min_area = 1.0e-12 * diagonal * diagonal;
    let mut kept = Vec::with_capacity(mesh.triangles.len());
    for (k, t) in mesh.triangles.iter().enumerate() {
        let r = t.map(|v| rep[v as usize]);
        if r[0] != r[1]
            && r[1] != r[2]
            && r[0] != r[2]
            && triangle_area(&mesh.positions, r) > min_area
        {
            kept.push((k, r));
        }
    }
    let degenerate_triangles = mesh.triangles.len() - kept.len();
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

    // 4. Groups as particle sets; kept-triangle lookup by input triangle index.
    let mut new_index = vec![u32::MAX; mesh.triangles.len()];
    for (slot, &(k, _)) in kept.iter().enumerate() {
        new_index[k] = slot as u32;
    }
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
            unused_vertices,
            ..MeshStats::default()
        },
    })
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
}
