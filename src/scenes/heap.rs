//! The heap: a towel held by one corner, let go, that folds onto itself on the floor (the
//! demo's scene and the benchmark's).

use super::*;

/// The heap's towel: an `n`×`n` sheet 0.8 m wide, 0.2 kg, flat at 1.2 m, pinned by one corner
/// ([`HEAP_CORNER`]). Held for [`HEAP_HOLD_FRAMES`], it swings down and hangs from the corner;
/// released, it falls bottom corner first and folds onto itself on the floor
/// ([`heap_params`]). The benchmark's heap scene and the demo's both drop this sheet; `membrane`
/// holds it.
pub fn heap_sheet(n: u32, membrane: Membrane) -> Result<Cloth> {
    ClothBuilder::grid(n, n)
        .membrane(membrane)
        .spacing(0.8 / n.saturating_sub(1).max(1) as f32)
        .total_mass(0.2)
        .layout(Layout::Flat { height: 1.2 })
        .pinning(Pinning::List(vec![HEAP_CORNER]))
        .build()
}

/// The corner the heap's towel is held by (the first particle of the grid).
pub const HEAP_CORNER: u32 = 0;

/// Frames the heap's towel hangs from its corner before it is released: 1 s at 60 fps (the
/// demo's hold, and the benchmark's warm-up outside `--quick`).
pub const HEAP_HOLD_FRAMES: usize = 60;

/// The heap's parameters: the library's defaults with the floor at y = 0 (friction
/// [`CONTACT_FRICTION`]) and self-collision on (automatic thickness) or off.
pub fn heap_params(self_collision: bool) -> SolverParams {
    SolverParams {
        colliders: demo_colliders(Some(0.0), None),
        self_collision: self_collision.then(SelfCollision::default),
        ..SolverParams::default()
    }
}
