//! Twin of `solve_tethers` in `shaders/tethers.wgsl`.

use glam::{Vec4, Vec4Swizzles};
use rayon::prelude::*;

use super::common::tether_pull;
use super::{MIN_PER_TASK, SharedSlice};
use crate::config::{StepParams, TETHER_SLOTS, TetherSlot};
use crate::tethers::Tethers;

/// Moves every free particle back within `tether_scale` × its geodesic distance of both its
/// anchors, one thread per particle, moving only that particle.
///
/// # Panics
/// When an anchor of `tethers` is not pinned (inverse mass 0) in `positions`, or the slots do
/// not cover `params.particle_count` particles.
pub fn solve_tethers(params: &StepParams, positions: &mut [Vec4], tethers: &Tethers) {
    let n = params.particle_count as usize;
    assert!(
        tethers.particle_count() >= n && positions.len() >= n,
        "solve_tethers: slots or positions for fewer than {n} particles"
    );
    // Anchors never move (inverse mass 0), so no thread writes what another reads.
    for &a in tethers.anchors() {
        assert!(
            positions[a as usize].w == 0.0,
            "solve_tethers: anchor {a} is not pinned"
        );
    }
    // Each thread writes its own particle and reads anchors only.
    let shared = SharedSlice::new(positions);
    let shared = &shared;
    let slots = tethers.slots();
    (0..n)
        .into_par_iter()
        .with_min_len(MIN_PER_TASK)
        .for_each(|i| {
            // SAFETY (this read, the anchor reads and the write below): thread i alone writes
            // particle i, and only when it is free; the other particles it reads are anchors
            // (inverse mass 0, checked above), which no thread writes. Only reads and writes
            // through the pointer are made, no references. Every index is below n <=
            // positions.len() (the slots and anchors come from the same cloth).
            let p = unsafe { shared.at(i).read() };
            if p.w == 0.0 {
                return;
            }
            let Some((first, second)) = anchor_pair(&slots[i * TETHER_SLOTS..][..TETHER_SLOTS])
            else {
                return;
            };
            let a = unsafe { shared.at(first.anchor as usize).read() }.xyz();
            let b = unsafe { shared.at(second.anchor as usize).read() }.xyz();
            let x = tether_pull(params, p.xyz(), a, first.rest, b, second.rest);
            unsafe { shared.at(i).write(x.extend(p.w)) };
        });
}

/// A particle's two slots as the kernels read them: slots fill nearest first, so no first
/// anchor means no tethers, and a particle with one anchor uses it twice.
#[inline]
pub(crate) fn anchor_pair(slots: &[TetherSlot]) -> Option<(TetherSlot, TetherSlot)> {
    let first = slots[0];
    if first.anchor == TetherSlot::NONE {
        return None;
    }
    let second = if slots[1].anchor == TetherSlot::NONE {
        first
    } else {
        slots[1]
    };
    Some((first, second))
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    fn params(scale: f32, stiffness: f32) -> StepParams {
        StepParams {
            tether_scale: scale,
            tether_stiffness: stiffness,
            ..StepParams::default()
        }
    }

    #[test]
    fn a_particle_sagging_between_two_pins_at_rest_distance_returns_to_the_line() {
        // The top row of a cloth pinned at two corners exactly its width apart: the two balls
        // only touch, at the particle's rest place. Pulled towards each pin in turn it would
        // stay off the line; the closed form puts it back in one step.
        let (a, b) = (Vec3::ZERO, Vec3::new(1.0, 0.0, 0.0));
        let sagged = Vec3::new(0.3, -0.01, 0.002);
        let x = tether_pull(&params(1.0, 1.0), sagged, a, 0.3, b, 0.7);
        assert!(x.distance(Vec3::new(0.3, 0.0, 0.0)) < 1e-6, "{x}");
    }

    #[test]
    fn the_nearest_point_of_two_overlapping_balls_lies_on_their_rim() {
        // Balls of radius 1 about (0,0,0) and (1.2,0,0) meet on a circle of radius 0.8 at
        // x = 0.6; a point far below the middle is moved straight up onto it.
        let (a, b) = (Vec3::ZERO, Vec3::new(1.2, 0.0, 0.0));
        let below = Vec3::new(0.6, -2.0, 0.0);
        let x = tether_pull(&params(1.0, 1.0), below, a, 1.0, b, 1.0);
        assert!(x.distance(Vec3::new(0.6, -0.8, 0.0)) < 1e-6, "{x}");
        // Half stiffness goes half way; a scale of 2 doubles both radii.
        let half = tether_pull(&params(1.0, 0.5), below, a, 1.0, b, 1.0);
        assert!(half.distance(Vec3::new(0.6, -1.4, 0.0)) < 1e-6, "{half}");
        let inside = Vec3::new(0.6, -1.5, 0.0);
        assert_eq!(
            tether_pull(&params(2.0, 1.0), inside, a, 1.0, b, 1.0),
            inside
        );
    }

    #[test]
    fn one_anchor_pulls_onto_its_sphere_and_a_slack_tether_does_nothing() {
        let a = Vec3::new(0.0, 1.0, 0.0);
        let x = tether_pull(&params(1.0, 1.0), Vec3::new(0.0, -2.0, 0.0), a, 2.0, a, 2.0);
        assert!(x.distance(Vec3::new(0.0, -1.0, 0.0)) < 1e-6, "{x}");
        let near = Vec3::new(0.5, 0.0, 0.0);
        assert_eq!(tether_pull(&params(1.0, 1.0), near, a, 2.0, a, 2.0), near);
    }

    #[test]
    fn anchor_pairs_fill_nearest_first() {
        let slot = |anchor, rest| TetherSlot { anchor, rest };
        assert_eq!(anchor_pair(&[TetherSlot::EMPTY, TetherSlot::EMPTY]), None);
        let one = slot(3, 1.5);
        assert_eq!(anchor_pair(&[one, TetherSlot::EMPTY]), Some((one, one)));
        let two = slot(7, 2.5);
        assert_eq!(anchor_pair(&[one, two]), Some((one, two)));
    }
}
