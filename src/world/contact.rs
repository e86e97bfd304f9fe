//! What a world's cloths touch: the collider table of each frame (poses from the last frame's
//! end to now, mesh grids uploaded when the meshes change) and self-collision's settings.

use super::World;
use crate::config::ColliderRecord;
use crate::contact::{DistanceGrid, Pose, Shape};
use crate::error::{ChiffonError, Result};
use crate::params::AUTO_SELF_THICKNESS;

impl World {
    /// The self-collision hash as the last frame left it (table; buckets and candidate lists),
    /// for the tests that hold the GPU's to the CPU twin's bit for bit; `None` before
    /// self-collision has run.
    #[cfg(feature = "internals")]
    pub fn self_collision_tables(&mut self) -> Result<Option<(Vec<u32>, Vec<u32>)>> {
        self.engine.hash_tables()
    }

    /// Moves collider `index` (of [`SolverParams::colliders`](crate::SolverParams::colliders)) to `pose` for the next step:
    /// that step carries it from where it was over the frame's substeps.
    pub fn set_collider_pose(&mut self, index: usize, pose: Pose) -> Result<()> {
        let n = self.params.colliders.len();
        let Some(c) = self.params.colliders.get(index) else {
            return Err(ChiffonError::InvalidParameter {
                name: "collider index",
                reason: match n {
                    0 => format!(
                        "{index} is out of range: there are no colliders (add them to \
                         SolverParams::colliders)"
                    ),
                    1 => format!("{index} is out of range: there is 1 collider, index 0"),
                    _ => format!(
                        "{index} is out of range: there are {n} colliders, indices 0 to {}",
                        n - 1
                    ),
                },
            });
        };
        let moved = c.clone().at(pose);
        moved.validate(index)?;
        self.params.colliders[index] = moved;
        Ok(())
    }
}

impl World {
    /// This frame's collider table: each collider from its pose at the last frame's end (or
    /// its own, the first time) to its pose now. Uploads the mesh grids first if the set of
    /// meshes changed.
    pub(super) fn collider_records(&mut self) -> Result<Vec<ColliderRecord>> {
        // Each grid once, however many colliders share it (one `Arc`): 64 colliders of one
        // file take one grid's samples on the device, not 64.
        let mut meshes: Vec<&std::sync::Arc<DistanceGrid>> = Vec::new();
        for c in &self.params.colliders {
            if let Shape::Mesh(g) = &c.shape
                && !meshes.iter().any(|m| std::sync::Arc::ptr_eq(m, g))
            {
                meshes.push(g);
            }
        }
        let held = meshes.len() == self.grids.len()
            && meshes
                .iter()
                .zip(&self.grids)
                .all(|(a, (b, _))| std::sync::Arc::ptr_eq(a, b));
        if !held {
            let mut samples = Vec::new();
            let grids = meshes
                .into_iter()
                .map(|g| {
                    let offset = samples.len() as u32;
                    samples.extend_from_slice(g.values());
                    (g.clone(), offset)
                })
                .collect();
            // Held once loaded: grids the device refused were taken as held, and the next
            // step ran without them (no error, the cloth through the meshes).
            self.engine.load_grids(&samples)?;
            self.grids = grids;
        }
        let moving = self.collider_poses.len() == self.params.colliders.len();
        let spacing = self.longest_mean_edge();
        Ok(self
            .params
            .colliders
            .iter()
            .enumerate()
            .map(|(k, c)| {
                let from = if moving {
                    self.collider_poses[k]
                } else {
                    c.pose
                };
                let offset = match &c.shape {
                    Shape::Mesh(g) => self
                        .grids
                        .iter()
                        .find(|(h, _)| std::sync::Arc::ptr_eq(g, h))
                        .map_or(0, |(_, o)| *o),
                    _ => 0,
                };
                let mut record = c.record(from, offset);
                // A thin capsule's axis is kept out of the triangles too (collide_edges).
                if c.is_thin_capsule(spacing) {
                    record.material[3] = 1.0;
                }
                record
            })
            .collect())
    }
}

impl World {
    /// The longest mean edge of the cloths (m): whether a capsule is thin is measured against
    /// it ([`crate::Collider::is_thin_capsule`]), and the self-collision distance by default.
    pub(super) fn longest_mean_edge(&self) -> f32 {
        self.live()
            .iter()
            .map(|l| l.mean_edge)
            .fold(0.0f32, f32::max)
    }

    /// True when a collider keeps its edges out of the cloth's triangles (the
    /// `collide_edges` stage): a box, or a capsule thin for the cloths.
    pub(super) fn has_edge_colliders(&self) -> bool {
        if self.params.has_boxes() {
            return true;
        }
        let spacing = self.longest_mean_edge();
        self.params
            .colliders
            .iter()
            .any(|c| c.is_thin_capsule(spacing))
    }

    /// True when every cloth must take the global path: self-collision, and the edge
    /// colliders' stage, run in its per-pass stages.
    pub(super) fn contact_needs_global(&self) -> bool {
        self.params.self_collision.is_some() || self.has_edge_colliders()
    }

    /// The self-collision distance when none is given: [`AUTO_SELF_THICKNESS`] times the
    /// longest mean edge of the cloths.
    pub(super) fn auto_self_thickness(&self) -> f32 {
        (AUTO_SELF_THICKNESS * self.longest_mean_edge()).max(crate::params::MIN_SELF_THICKNESS)
    }
}
