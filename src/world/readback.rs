//! The world's readbacks without blocking: what a browser needs, where the GPU answers a map
//! only once the page's event loop runs. Natively they wait for the device as the blocking
//! readers do, and return the same values.
//!
//! One limit on the web: adding or removing cloths once the world has stepped repacks the
//! buffers through the host (a blocking read), so there a scene change builds a new world.

use glam::{Vec3, Vec4};

use super::{ClothHandle, World};
use crate::error::Result;

impl World {
    /// As [`World::positions`], without blocking.
    pub async fn positions_async(&mut self, handle: ClothHandle) -> Result<Vec<Vec3>> {
        let raw = self.raw_positions_async(handle).await?;
        Ok(raw.iter().map(|p| p.truncate()).collect())
    }

    /// As [`World::raw_positions`], without blocking.
    pub async fn raw_positions_async(&mut self, handle: ClothHandle) -> Result<Vec<Vec4>> {
        let range = self.place(handle)?.particles.clone();
        let mut positions = self.engine.start_positions()?.finish().await?;
        positions.truncate(range.end as usize);
        Ok(positions.split_off(range.start as usize))
    }

    /// As [`World::all_positions`], without blocking.
    pub async fn all_positions_async(&mut self) -> Result<Vec<(ClothHandle, Vec<Vec3>)>> {
        self.sync()?;
        let positions = self.engine.start_positions()?.finish().await?;
        self.split_by_cloth(&positions)
    }

    /// As [`World::is_asleep`], without blocking.
    pub async fn is_asleep_async(&mut self, handle: ClothHandle) -> Result<bool> {
        let Some(k) = self.fused_index(handle)? else {
            return Ok(false);
        };
        let fused = self.fused_frame_settings();
        let rests = self.engine.start_rests()?.finish().await?;
        Ok(rests[k as usize].asleep(&fused))
    }

    /// As [`World::health`], without blocking.
    pub async fn health_async(&mut self) -> Result<()> {
        let flags = self.engine.start_health()?.finish().await?;
        if let Some(&h) = flags.first() {
            self.note_health(h);
        }
        self.check_diverged()
    }
}
