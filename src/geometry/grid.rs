//! A grid cloth's topology: its distance constraints and bending stencils in the order that
//! colors them optimally, its triangles, and the records it puts in a solver's buffers, counted
//! without building it. The mesh's counterpart is `mesh_constraints` in `geometry/mod.rs`;
//! [`crate::ClothBuilder`] places the particles and picks what to build.

use crate::cloth::GridShape;
use crate::constraint::{Constraint, ConstraintKind};

/// Generates the grid's distance constraints, kind by kind, each kind row-major (its bending
/// comes from its triangles). This order lets the greedy coloring reach the 8-color optimum of
/// a grid with both diagonals.
pub(crate) fn grid_constraints(w: u32, h: u32, s: f32, kinds: [bool; 3]) -> Vec<Constraint> {
    let idx = |c: u32, r: u32| r * w + c;
    let mut out = Vec::new();
    let mut add = |kind: ConstraintKind, offsets: &[(u32, u32, bool)], rest: f32| {
        if !kinds[kind as usize] {
            return;
        }
        // (dc, dr, mirrored): mirrored pairs run from (c + dc, r) to (c, r + dr).
        for &(dc, dr, mirrored) in offsets {
            for r in 0..h.saturating_sub(dr) {
                for c in 0..w.saturating_sub(dc) {
                    let (i, j) = if mirrored {
                        (idx(c + dc, r), idx(c, r + dr))
                    } else {
                        (idx(c, r), idx(c + dc, r + dr))
                    };
                    out.push(Constraint::new(i, j, rest, kind));
                }
            }
        }
    };
    add(
        ConstraintKind::Structural,
        &[(1, 0, false), (0, 1, false)],
        s,
    );
    add(
        ConstraintKind::Shear,
        &[(1, 1, false), (1, 1, true)],
        s * std::f32::consts::SQRT_2,
    );
    out
}

/// A grid's bending stencils (head and tail records) in the order that lets the greedy
/// coloring reach the 12-color optimum (an interior particle is in 12 stencils): by the class
/// of the edge they cross (row, column, diagonal), then by the parity of that edge's first
/// row and column. Two stencils of one class and parity share no particle (across a row edge
/// the four span 2 columns and 3 rows, and the next one of its group in that column is two
/// rows on, meeting it in a row at another column), so group g takes no color above g; with
/// the stencils row-major within a class, the greedy coloring took 13.
pub(crate) fn grid_stencil_order(stencils: Vec<Constraint>, w: u32) -> Vec<Constraint> {
    if !stencils.len().is_multiple_of(2) || !stencils.iter().all(Constraint::is_stencil) {
        return stencils;
    }
    let group = |head: &Constraint| {
        let (a, b) = (head.i.min(head.j), head.i.max(head.j));
        let (ra, ca, rb, cb) = (a / w, a % w, b / w, b % w);
        let class = if ra == rb {
            0
        } else if ca == cb {
            1
        } else {
            2
        };
        class * 4 + (ra % 2) * 2 + ca.min(cb) % 2
    };
    // Bucketed (within a group, the order the triangles give): a 1024² grid has 3 million.
    let mut groups: [Vec<Constraint>; 12] = Default::default();
    for pair in stencils.chunks_exact(2) {
        groups[group(&pair[0]) as usize].extend_from_slice(pair);
    }
    groups.concat()
}

/// The constraint records a `w` × `h` grid with every kind on puts in a solver's constraint
/// buffer, its coarse levels' limits and the strain limit's copy of its structural edges
/// included, counted without building it (what `chiffon info` sizes the largest grid by): a
/// distance per row and column neighbour and per diagonal, two records per bending stencil
/// (one per interior edge of its triangles), and the row and column neighbours again.
pub(crate) fn grid_constraint_records(w: u32, h: u32) -> u64 {
    let (w, h) = (w.max(1) as u64, h.max(1) as u64);
    let cells = (w - 1) * (h - 1);
    let distances = (w - 1) * h + w * (h - 1) + 2 * cells;
    let edges = (w - 1) * h + w * (h - 1) + cells;
    let border = 2 * (w - 1) + 2 * (h - 1);
    let limits = crate::hierarchy::grid_limit_count(GridShape {
        columns: w as u32,
        rows: h as u32,
        spacing: 1.0,
    }) as u64;
    let structural = (w - 1) * h + w * (h - 1);
    distances + 2 * edges.saturating_sub(border) + limits + structural
}

/// Two triangles per grid cell, counter-clockwise seen from +z (hanging) / −y (flat).
pub(crate) fn grid_triangles(w: u32, h: u32) -> Vec<[u32; 3]> {
    let mut t = Vec::with_capacity(2 * (w as usize - 1) * (h as usize - 1));
    for r in 0..h - 1 {
        for c in 0..w - 1 {
            let a = r * w + c;
            let (b, d, e) = (a + 1, a + w, a + w + 1);
            t.push([a, d, b]);
            t.push([b, d, e]);
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ClothBuilder;

    /// `chiffon info`'s largest grid said 1182² on lavapipe after grids gained their stencils,
    /// still counting the six records a particle they had before, and a 1182² grid did not fit.
    #[test]
    fn the_largest_grid_estimate_counts_what_a_grid_builds() {
        for (w, h) in [(2, 2), (2, 5), (5, 7), (16, 16), (64, 48), (257, 129)] {
            let cloth = ClothBuilder::grid(w, h).build().unwrap();
            let built = crate::hierarchy::solver_records(&cloth);
            assert_eq!(grid_constraint_records(w, h), built as u64, "{w} x {h}");
        }
    }
}
