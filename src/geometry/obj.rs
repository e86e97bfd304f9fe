//! Reading Wavefront OBJ files (with the `tobj` crate) into a [`TriangleMesh`].
//!
//! What is read: `v` positions, `vt` texture coordinates, `f` faces (triangles, quads and
//! larger polygons, split as fans from their first corner, with their diagonals remembered as
//! shear edges), negative (relative) indices, and `g`/`o` names as groups. What is ignored:
//! `l` lines, `p` points, normals (chiffon computes its own), materials. Polygons are assumed
//! convex, as exporters write them; triangulate concave ones in the modelling tool.

use std::path::Path;

use glam::{Vec2, Vec3};

use super::{MeshGroup, TriangleMesh, UvLayer};
use crate::error::{ChiffonError, Result};

/// Reads the OBJ file at `path`.
pub fn load(path: &Path) -> Result<TriangleMesh> {
    let bytes = std::fs::read(path).map_err(|e| ChiffonError::Io {
        path: path.display().to_string(),
        error: e,
    })?;
    parse(&bytes, &path.display().to_string())
}

/// Parses OBJ text; `name` (usually the file name) is what errors call it.
pub fn parse(bytes: &[u8], name: &str) -> Result<TriangleMesh> {
    let bad = |reason: String| ChiffonError::InvalidMesh {
        source_name: name.to_string(),
        reason,
    };
    if std::str::from_utf8(bytes).is_err() {
        return Err(bad("it is not a text file (not UTF-8)".into()));
    }
    let options = tobj::LoadOptions {
        single_index: false,
        triangulate: false,
        ignore_points: true,
        ignore_lines: true,
    };
    // Materials are not read: a missing .mtl must not stop a cloth from loading.
    let (models, _materials) =
        tobj::load_obj_buf(&mut std::io::Cursor::new(bytes), &options, |_| {
            Err(tobj::LoadError::GenericFailure)
        })
        .map_err(|e| bad(format!("not a valid OBJ file ({e})")))?;

    let mut mesh = TriangleMesh {
        name: name.to_string(),
        ..TriangleMesh::default()
    };
    let has_uvs = models.iter().all(|m| {
        m.mesh.indices.is_empty() || m.mesh.texcoord_indices.len() == m.mesh.indices.len()
    }) && models.iter().any(|m| !m.mesh.texcoords.is_empty());
    let mut uvs = UvLayer::default();
    for model in &models {
        let m = &model.mesh;
        let base = mesh.positions.len() as u32;
        let uv_base = uvs.uvs.len() as u32;
        mesh.positions.extend(
            m.positions
                .chunks_exact(3)
                .map(|p| Vec3::new(p[0], p[1], p[2])),
        );
        if has_uvs {
            uvs.uvs
                .extend(m.texcoords.chunks_exact(2).map(|t| Vec2::new(t[0], t[1])));
        }
        // All triangles when `face_arities` is empty (tobj's convention).
        let arities: Vec<u32> = if m.face_arities.is_empty() {
            vec![3; m.indices.len() / 3]
        } else {
            m.face_arities.clone()
        };
        let first_triangle = mesh.triangles.len() as u32;
        let mut at = 0usize;
        for &arity in &arities {
            let arity = arity as usize;
            let corners = &m.indices[at..at + arity];
            let uv_corners = has_uvs.then(|| &m.texcoord_indices[at..at + arity]);
            at += arity;
            // Fan from the first corner; the inner fan edges are the polygon's diagonals.
            for k in 1..arity.saturating_sub(1) {
                mesh.triangles
                    .push([corners[0], corners[k], corners[k + 1]].map(|v| base + v));
                if let Some(t) = uv_corners {
                    uvs.triangles
                        .push([t[0], t[k], t[k + 1]].map(|v| uv_base + v));
                }
                if k > 1 {
                    mesh.diagonals.push([base + corners[0], base + corners[k]]);
                }
            }
        }
        let last_triangle = mesh.triangles.len() as u32;
        if last_triangle > first_triangle {
            mesh.groups.push(MeshGroup {
                name: model.name.clone(),
                triangles: (first_triangle..last_triangle).collect(),
            });
        }
    }
    if has_uvs {
        mesh.uvs = Some(uvs);
    }
    if mesh.triangles.is_empty() {
        return Err(bad(
            "it has no faces (a cloth needs triangles or polygons; lines and points are ignored)"
                .into(),
        ));
    }
    Ok(mesh)
}
