//! Twin of `collide` in `shaders/collide.wgsl`: every free particle pushed out of the
//! colliders (the collider functions are `colliders.rs`'s).

use glam::{Vec4, Vec4Swizzles};
use rayon::prelude::*;

use super::MIN_PER_HEAVY_TASK;
use super::colliders::{collide_all, substep_colliders};
use super::common::{substep_escape, substep_pull};
use crate::config::{ColliderRecord, StepParams};

/// Pushes every free particle out of every collider, in parallel.
pub fn collide(
    params: &StepParams,
    positions: &mut [Vec4],
    previous: &mut [Vec4],
    colliders: &[ColliderRecord],
    distance_grid: &[f32],
    collider_cells: &[u32],
) {
    let n = params.particle_count as usize;
    let colliders = &colliders[..params.collider_count as usize];
    let poses = substep_colliders(colliders, params.t_from, params.t_to);
    positions[..n]
        .par_iter_mut()
        .zip(&mut previous[..n])
        .with_min_len(MIN_PER_HEAVY_TASK)
        .for_each(|(p, prev)| {
            // Pinned and held particles stay where they are.
            if p.w == 0.0 {
                return;
            }
            let c = collide_all(
                colliders,
                &poses,
                distance_grid,
                collider_cells,
                p.xyz(),
                prev.xyz(),
                substep_pull(params),
                substep_escape(params),
            );
            if c.hit {
                *p = c.x.extend(p.w);
                *prev = c.x_prev.extend(c.contact_flag());
            } else if prev.w != 0.0 {
                prev.w = 0.0;
            }
        });
}
