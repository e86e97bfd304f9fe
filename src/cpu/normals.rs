//! Twin of `compute_normals` in `shaders/normals.wgsl`.

use glam::{Vec3, Vec4, Vec4Swizzles};
use rayon::prelude::*;

use crate::config::Grid;

/// Per-particle normals of a grid cloth from central differences (one-sided at the border).
pub fn compute_normals(grid: &Grid, positions: &[Vec4], normals: &mut [Vec4]) {
    let (w, h) = (grid.columns as usize, grid.rows as usize);
    let n = w * h;
    normals[..n]
        .par_iter_mut()
        .enumerate()
        .for_each(|(i, out)| {
            let (c, r) = (i % w, i / w);
            let left = r * w + if c == 0 { c } else { c - 1 };
            let right = r * w + (c + 1).min(w - 1);
            let up = if r == 0 { r } else { r - 1 } * w + c;
            let down = (r + 1).min(h - 1) * w + c;
            let du = positions[right].xyz() - positions[left].xyz();
            let dv = positions[down].xyz() - positions[up].xyz();
            let cross = dv.cross(du);
            let len = cross.length();
            // A collapsed neighbourhood has no normal; +y keeps the lighting finite.
            let normal = if len > 1e-12 { cross / len } else { Vec3::Y };
            *out = normal.extend(0.0);
        });
}
