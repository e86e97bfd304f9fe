//! The flags scene: a field of flags, each held along its pole (a capsule collider).

use super::*;

/// Particles of one flag of [`flag_field`]: columns along the fly, rows down the pole.
pub const FLAG_PARTICLES: (u32, u32) = (32, 20);

/// The demo's many-cloths scene: `side`×`side` flags of [`FLAG_PARTICLES`] (0.9 m × 0.57 m,
/// 0.1 kg), each held along its pole (its first column, the hoist), tops at 2.2 m, one per
/// 1.4 m square, each turned its own way; every other flag is of a softer, stretchier cloth
/// (its own material), each held by `membrane`. The poles are [`flag_poles`].
pub fn flag_field(
    side: u32,
    membrane: Membrane,
) -> Result<Vec<(Cloth, crate::world::ClothOptions)>> {
    let (columns, rows) = FLAG_PARTICLES;
    let flag = ClothBuilder::grid(columns, rows)
        .membrane(membrane)
        .spacing(0.9 / (columns - 1) as f32)
        .total_mass(0.1)
        .layout(Layout::Hanging { top: 0.0 })
        .pinning(Pinning::List((0..rows).map(|r| r * columns).collect()))
        .build()?;
    let soft = Compliance {
        stretch: 2.0e-3,
        shear: 1.0e-2,
        curvature: 1.0e7,
        ..Compliance::default()
    };
    let mut out = Vec::with_capacity((side * side) as usize);
    for k in 0..side * side {
        let mut options = crate::world::ClothOptions::new().transform(flag_transform(side, k));
        if k % 2 == 1 {
            options = options.compliance(soft);
        }
        out.push((flag.clone(), options));
    }
    Ok(out)
}

/// Where flag `k` of [`flag_field`]`(side)` stands: turned about its pole, top at 2.2 m.
fn flag_transform(side: u32, k: u32) -> glam::Affine3A {
    let centre = (side as f32 - 1.0) / 2.0;
    let (i, j) = ((k % side) as f32, (k / side) as f32);
    // A turn that differs from flag to flag without looking random.
    let turn = ((k * 37) % 11) as f32 / 11.0 - 0.5;
    glam::Affine3A::from_rotation_translation(
        glam::Quat::from_rotation_y(turn),
        Vec3::new((i - centre) * 1.4, 2.2, (j - centre) * 1.4),
    )
}

/// The poles of [`flag_field`]`(side)`: a capsule 5 cm across from the ground to just above
/// each flag's top, its axis 2 cm behind the hoist (the flag's first column, at x = −0.45 m
/// before it is turned, so the hoist is within the pole), so the flag wraps round it when the
/// wind turns. Its thickness makes radius plus thickness 1.3 of the flag's spacing: a thinner
/// pole would be thin for the flag ([`Collider::is_thin_capsule`]), whose triangles would then
/// keep its axis out too, on the global path, where the field costs about 1.5 × the fused
/// path's frame on lavapipe (docs/contact.md).
pub fn flag_poles(side: u32) -> Vec<Collider> {
    let spacing = 0.9 / (FLAG_PARTICLES.0 - 1) as f32;
    let thickness = (crate::contact::THIN_CAPSULE_SPACINGS * spacing - POLE_RADIUS) * 1.01;
    (0..side * side)
        .map(|k| {
            let t = flag_transform(side, k);
            let foot = t.transform_point3(Vec3::new(-0.47, -2.2, 0.0));
            Collider::capsule(foot, foot + Vec3::Y * 2.25, POLE_RADIUS, POLE_RADIUS)
                .friction(CONTACT_FRICTION)
                .thickness(thickness)
        })
        .collect()
}

/// The flags' poles' radius (m).
const POLE_RADIUS: f32 = 0.025;

#[cfg(test)]
mod tests {
    use super::*;

    /// The poles are not thin for the flags (which would move the field off the fused path),
    /// whichever membrane holds them.
    #[test]
    fn the_flags_poles_are_not_thin_for_them() {
        for membrane in [Membrane::Edges, Membrane::Triangles] {
            let (flag, _) = flag_field(1, membrane).unwrap().remove(0);
            let spacing = flag.mean_edge_length();
            for pole in flag_poles(2) {
                assert!(!pole.is_thin_capsule(spacing), "{membrane:?}: {pole:?}");
            }
        }
    }
}
