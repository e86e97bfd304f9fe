//! The one surface that draws every cloth of a world straight from the world's position buffer.

use glam::Vec3;

use crate::cloth::{Cloth, ClothDesc};
use crate::error::Result;
use crate::geometry::UvLayer;
use crate::world::World;

/// One cloth of every cloth in `world`, in its particle numbering, to draw: their triangles,
/// and their UVs (a planar projection for a cloth without, as the renderer gives a lone one:
/// [`super::render::drawn_uvs`]).
pub fn world_surface(world: &mut World) -> Result<Cloth> {
    let n = world.particle_count();
    let mut desc = ClothDesc {
        positions: vec![Vec3::ZERO; n],
        inverse_mass: vec![0.0; n],
        velocity: Vec3::ZERO,
        constraints: Vec::new(),
        membrane_edges: Vec::new(),
        triangles: Vec::new(),
        uvs: None,
        groups: Vec::new(),
    };
    let mut uvs = UvLayer::default();
    for h in world.handles() {
        let range = world.particle_range(h)?;
        let (start, end) = (range.start as usize, range.end as usize);
        let cloth = world.cloth(h)?;
        desc.positions[start..end].copy_from_slice(cloth.positions());
        desc.inverse_mass[start..end].copy_from_slice(cloth.inverse_masses());
        let shift = |t: &[u32; 3], by: u32| t.map(|v| v + by);
        desc.triangles
            .extend(cloth.triangles().iter().map(|t| shift(t, range.start)));
        let layer = super::render::drawn_uvs(cloth);
        let base = uvs.uvs.len() as u32;
        uvs.uvs.extend_from_slice(&layer.uvs);
        uvs.triangles
            .extend(layer.triangles.iter().map(|t| shift(t, base)));
    }
    desc.uvs = Some(uvs);
    Cloth::new(desc)
}
