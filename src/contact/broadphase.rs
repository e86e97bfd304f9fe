//! The colliders' broad phase: a uniform grid over the frame's colliders, built on the host
//! each frame, so a particle tests the few colliders near it instead of all of them (64
//! capsules of a figure cost a particle about as much as one).
//!
//! The table is one `u32` array, read by `collide_all` in `shaders/colliders.wgsl` and its twin
//! in `src/cpu/colliders.rs`:
//!
//! | words | what |
//! | --- | --- |
//! | 0–2 | the grid's origin (m, `f32` bits) |
//! | 3 | a cell's side (m, `f32` bits) |
//! | 4–6 | cells along x, y, z (0: no grid, every particle tests every collider) |
//! | 7 | the margin (m, `f32` bits): a particle that moved more in the substep tests them all |
//! | 8 … 9 + cells | each cell's first entry, then the outside's (the planes), then its end |
//! | after | the entries: collider indices, ascending within a cell |
//!
//! Exact, not approximate: a collider is listed in every cell its bounding capsule, swept over
//! the frame and padded by its thickness and the margin, overlaps, so a collider left out of a
//! particle's cell is one the kernel's own culling (`collider_reaches`) would skip. Walking the
//! list gives the result walking every collider gives, bit for bit. Planes reach everywhere and
//! are in every cell, and in the list of the outside of the grid, where no other collider
//! reaches.

use glam::Vec3;

use crate::config::{BROADPHASE_HEADER_WORDS as HEADER_WORDS, ColliderRecord};

/// Fewer bounded colliders than this are all tested by every particle (a grid saves nothing).
pub const MIN_COLLIDERS: usize = 4;
/// About this many cells.
pub const TARGET_CELLS: f32 = 4096.0;
/// A table of more entries than this is not built (every particle tests every collider).
pub const MAX_ENTRIES: usize = 1 << 20;

/// The table for this frame's collider records.
pub fn collider_cells(records: &[ColliderRecord]) -> Vec<u32> {
    build(records).unwrap_or_else(|| vec![0; HEADER_WORDS])
}

/// The world box a collider can touch over the frame, before the margin: its bounding
/// capsule's four ends (start and end of the frame), padded by its radius, its thickness and
/// the farthest an end moves. `None` for a plane.
fn reach_box(r: &ColliderRecord) -> Option<(Vec3, Vec3)> {
    if r.bound_from_a[3] < 0.0 {
        return None;
    }
    let v = |a: [f32; 4]| Vec3::new(a[0], a[1], a[2]);
    let ends = [
        v(r.bound_from_a),
        v(r.bound_from_b),
        v(r.bound_to_a),
        v(r.bound_to_b),
    ];
    let moved = ends[2].distance(ends[0]).max(ends[3].distance(ends[1]));
    let pad = r.bound_from_a[3] + r.material[0] + moved;
    let lo = ends.iter().fold(Vec3::INFINITY, |m, &e| m.min(e)) - Vec3::splat(pad);
    let hi = ends.iter().fold(Vec3::NEG_INFINITY, |m, &e| m.max(e)) + Vec3::splat(pad);
    Some((lo, hi))
}

fn build(records: &[ColliderRecord]) -> Option<Vec<u32>> {
    let boxes: Vec<Option<(Vec3, Vec3)>> = records.iter().map(reach_box).collect();
    if boxes.iter().flatten().count() < MIN_COLLIDERS {
        return None;
    }
    let (lo, hi) = boxes
        .iter()
        .flatten()
        .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(l, h), (a, b)| {
            (l.min(*a), h.max(*b))
        });
    let extent = (hi - lo).max(Vec3::splat(1e-6));
    let cell = (extent.x * extent.y * extent.z / TARGET_CELLS).cbrt();
    let margin = 0.5 * cell;
    // The margin, and a little more for the kernels' rounding at a cell's edge.
    let pad = Vec3::splat(margin + 1e-3 * cell);
    let origin = lo - pad;
    let dims = ((hi + pad - origin) / cell)
        .ceil()
        .max(Vec3::ONE)
        .as_uvec3();
    let cells = dims.x as usize * dims.y as usize * dims.z as usize;
    if !cell.is_finite() || cell <= 0.0 || cells > MAX_ENTRIES {
        return None;
    }
    let cell_of = |p: Vec3| ((p - origin) / cell).floor().as_ivec3();
    // The cells, then the outside.
    let mut lists: Vec<Vec<u32>> = vec![Vec::new(); cells + 1];
    let mut entries = 0usize;
    for (k, b) in boxes.iter().enumerate() {
        let (a, b) = match b {
            Some((l, h)) => (
                cell_of(*l - pad).max(glam::IVec3::ZERO),
                cell_of(*h + pad).min(dims.as_ivec3() - 1),
            ),
            None => {
                lists[cells].push(k as u32);
                entries += 1;
                (glam::IVec3::ZERO, dims.as_ivec3() - 1)
            }
        };
        for z in a.z..=b.z {
            for y in a.y..=b.y {
                for x in a.x..=b.x {
                    let i =
                        (z as usize * dims.y as usize + y as usize) * dims.x as usize + x as usize;
                    lists[i].push(k as u32);
                    entries += 1;
                }
            }
        }
        if entries > MAX_ENTRIES {
            return None;
        }
    }
    let mut table = Vec::with_capacity(HEADER_WORDS + cells + 2 + entries);
    table.extend([
        origin.x.to_bits(),
        origin.y.to_bits(),
        origin.z.to_bits(),
        cell.to_bits(),
        dims.x,
        dims.y,
        dims.z,
        margin.to_bits(),
    ]);
    let first = (HEADER_WORDS + cells + 2) as u32;
    let mut start = first;
    for list in &lists {
        table.push(start);
        start += list.len() as u32;
    }
    table.push(start);
    for list in lists {
        table.extend(list);
    }
    Some(table)
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3};

    use super::*;
    use crate::contact::{Collider, Pose};
    use crate::cpu::colliders::{collide_all, substep_colliders};

    /// The broad phase changes no result: particles scattered through a field of moving,
    /// turning capsules and boxes over a plane, each collided through its cell and through
    /// every collider, end bit for bit in the same place.
    #[test]
    fn the_broad_phase_gives_what_testing_every_collider_gives() {
        let mut records = vec![Collider::ground(0.0).record(Pose::default(), 0)];
        for i in 0..8 {
            for j in 0..8 {
                let base = Vec3::new(i as f32 * 0.125 - 0.45, 0.0, j as f32 * 0.125 - 0.45);
                let c = if (i + j) % 3 == 0 {
                    Collider::cuboid(
                        base + Vec3::Y * 0.4,
                        Vec3::new(0.03, 0.4, 0.05),
                        Quat::IDENTITY,
                    )
                } else {
                    Collider::capsule(base, base + Vec3::Y * 0.8, 0.02, 0.015)
                };
                // Where it was at the frame's start: a little away, a little turned.
                let from = Pose::new(
                    c.pose.translation - Vec3::new(0.02, 0.0, 0.01 * j as f32),
                    Quat::from_rotation_y(0.1 * i as f32) * c.pose.rotation,
                );
                records.push(c.record(from, 0));
            }
        }
        let cells = collider_cells(&records);
        assert!(cells[4] > 0, "a grid is built for 64 colliders");
        let brute = vec![0u32; HEADER_WORDS];
        // A small deterministic generator, so the test needs no crate.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 40) as f32 / (1u64 << 24) as f32
        };
        let mut hits = 0;
        for _ in 0..20_000 {
            let x = Vec3::new(next() * 1.2 - 0.6, next() * 1.0 - 0.05, next() * 1.2 - 0.6);
            let step = Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5) * 0.04;
            let (t_from, t_to) = (0.5, 0.75);
            let poses = substep_colliders(&records, t_from, t_to);
            let (moved, pull, escape) = (x - step, Vec3::ZERO, 0.01);
            let a = collide_all(&records, &poses, &[], &cells, x, moved, pull, escape);
            let b = collide_all(&records, &poses, &[], &brute, x, moved, pull, escape);
            assert_eq!(
                (a.x.to_array(), a.x_prev.to_array(), a.hit),
                (b.x.to_array(), b.x_prev.to_array(), b.hit),
                "particle at {x}"
            );
            hits += a.hit as usize;
        }
        assert!(
            hits > 1000,
            "the particles touch the colliders ({hits} hits)"
        );
    }
}
