//! The table scene: a table of a box and four capsule legs, and a tablecloth dropped on it.

use super::*;

/// The table: a top 1.1 m × 0.7 m × 5 cm ([`Collider::cuboid`]) whose upper face is at
/// 0.775 m, on four capsule legs, all with friction [`CONTACT_FRICTION`]. The demo adds the
/// floor.
pub fn table_colliders() -> Vec<Collider> {
    let top = Collider::cuboid(
        Vec3::new(0.0, 0.75, 0.0),
        Vec3::new(0.55, 0.025, 0.35),
        Quat::IDENTITY,
    );
    let legs = [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)].map(|(sx, sz)| {
        let foot = Vec3::new(sx * 0.49, 0.03, sz * 0.29);
        Collider::capsule(foot, foot + Vec3::Y * 0.69, 0.03, 0.03)
    });
    std::iter::once(top)
        .chain(legs)
        .map(|c| c.friction(CONTACT_FRICTION))
        .collect()
}

/// The tablecloth: `columns` × (¾ `columns`) particles over 1.6 m × 1.2 m (0.25 m over each
/// side of the table's top), 0.3 kg, flat at 0.95 m and free, so it falls onto the table and
/// settles over its edges; `membrane` holds it.
pub fn tablecloth(columns: u32, membrane: Membrane) -> Result<Cloth> {
    let columns = columns.max(4);
    let rows = (columns * 3).div_ceil(4).max(3);
    ClothBuilder::grid(columns, rows)
        .membrane(membrane)
        .spacing(1.6 / (columns - 1) as f32)
        .total_mass(0.3)
        .layout(Layout::Flat { height: 0.95 })
        .pinning(Pinning::None)
        .build()
}
