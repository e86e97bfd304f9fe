//! Twin of `compute_normals` in `shaders/normals.wgsl`.

use glam::{Vec3, Vec4, Vec4Swizzles};
use rayon::prelude::*;

use crate::config::MeshInfo;

/// Per-particle normals of a triangle mesh: the normalized sum of the area-weighted normals of
/// the triangles in `incident[offsets[p]..offsets[p + 1]]` (+y where there are none).
pub fn compute_normals(
    mesh: &MeshInfo,
    positions: &[Vec4],
    triangles: &[u32],
    offsets: &[u32],
    incident: &[u32],
    normals: &mut [Vec4],
) {
    normals[..mesh.particle_count as usize]
        .par_iter_mut()
        .enumerate()
        .for_each(|(i, out)| {
            let mut sum = Vec3::ZERO;
            for &t in &incident[offsets[i] as usize..offsets[i + 1] as usize] {
                let t = t as usize * 3;
                let a = positions[triangles[t] as usize].xyz();
                let b = positions[triangles[t + 1] as usize].xyz();
                let c = positions[triangles[t + 2] as usize].xyz();
                // |cross| is twice the area: larger triangles weigh more.
                sum += (b - a).cross(c - a);
            }
            let len = sum.length();
            // A collapsed neighbourhood (or a particle with no triangle) has no normal; +y
            // keeps the lighting finite.
            let normal = if len > 1e-12 { sum / len } else { Vec3::Y };
            *out = normal.extend(0.0);
        });
}

/// Normals of `cloth` at `positions` (the twin run on a cloth's own topology): for export.
pub fn cloth_normals(cloth: &crate::Cloth, positions: &[Vec3]) -> Vec<Vec3> {
    let csr = cloth.vertex_triangles();
    let p4: Vec<Vec4> = positions.iter().map(|p| p.extend(1.0)).collect();
    let flat: Vec<u32> = cloth.triangles().iter().flatten().copied().collect();
    let mut out = vec![Vec4::ZERO; positions.len()];
    compute_normals(
        &MeshInfo {
            particle_count: positions.len() as u32,
            triangle_count: cloth.triangles().len() as u32,
            pad0: 0,
            pad1: 0,
        },
        &p4,
        &flat,
        &csr.offsets,
        &csr.items,
        &mut out,
    );
    out.iter().map(|n| n.xyz()).collect()
}
