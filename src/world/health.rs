//! A world's divergence check: where the health check measures from (the scene's centre and
//! extent), and the first divergence a health flag reports, kept as the world's error.

use glam::Vec3;

use super::World;
use crate::config::Health;
use crate::error::{ChiffonError, DivergenceCause, Result};
use crate::schedule::Scene;

impl World {
    /// What the health check measures distances from: the centre of the cloths' and the
    /// colliders' bounding box at rest, and its half-diagonal.
    pub(super) fn scene(&self) -> Scene {
        let (mut lo, mut hi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
        for l in self.live() {
            lo = lo.min(l.bounds.0);
            hi = hi.max(l.bounds.1);
        }
        if lo.x > hi.x {
            (lo, hi) = (Vec3::ZERO, Vec3::ZERO);
        }
        let (lo, hi) = self.params.extend_bounds(lo, hi);
        Scene {
            center: (lo + hi) * 0.5,
            radius: (hi - lo).length() * 0.5,
        }
    }

    /// Notes a health flag; the first divergence it reports becomes the world's error, which
    /// every later step returns until [`World::reset`].
    pub(super) fn note_health(&mut self, health: Health) {
        if health.first_bad == Health::OK || self.diverged.is_some() {
            return;
        }
        if health.first_bad == Health::STOPPED_EARLY {
            self.stopped_early
                .get_or_insert(self.frames.frame_of(health.frame));
            return;
        }
        let Some(place) = self
            .layout
            .placed
            .iter()
            .find(|p| p.particles.contains(&health.first_bad))
        else {
            return;
        };
        let frame = self.frames.frame_of(health.frame);
        // Tell the two causes apart from where the particle is now (once, on the error path).
        let scene = self.scene();
        let limit = self.params.divergence_limit(scene.radius);
        let at = self
            .engine
            .positions()
            .ok()
            .and_then(|p| p.get(health.first_bad as usize).copied())
            .map_or(Vec3::NAN, |p| p.truncate());
        let cause = if at.is_finite() {
            DivergenceCause::TooFar {
                distance: at.distance(scene.center),
                limit,
            }
        } else {
            DivergenceCause::NonFinite
        };
        let particle = (health.first_bad - place.particles.start) as usize;
        self.diverged = Some((place.slot, particle, frame, cause));
    }

    pub(super) fn check_diverged(&self) -> Result<()> {
        if let Some(frame) = self.stopped_early {
            return Err(ChiffonError::StoppedEarly { frame });
        }
        match self.diverged {
            Some((cloth, particle, frame, cause)) => Err(ChiffonError::Diverged {
                cloth: Some(cloth),
                particle,
                frame,
                cause,
            }),
            None => Ok(()),
        }
    }
}

/// Frames stepped since construction or reset.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct FrameCount {
    frames: u64,
}

impl FrameCount {
    /// Frames stepped.
    pub(crate) fn frames(&self) -> u64 {
        self.frames
    }

    /// One more frame was stepped.
    pub(crate) fn advance(&mut self) {
        self.frames += 1;
    }

    /// The frame whose number has these low 32 bits (the health flag's): the latest such
    /// frame not after now.
    pub(crate) fn frame_of(&self, low: u32) -> u64 {
        let now = self.frames.max(1);
        now - (now.wrapping_sub(low as u64) & u32::MAX as u64)
    }
}
