//! Many cloths in one `World`: capes in rows, every other one smaller and of a softer
//! material, in the wind, stepped together by one `step(dt)` a frame. Each small cloth is solved whole by one
//! GPU workgroup (the fused path), all of them in one dispatch per frame.
//!
//! ```sh
//! cargo run --release --example world          # 4 capes
//! cargo run --release --example world -- 100   # as many as you like
//! ```
//!
//! It runs on the GPU when wgpu finds one, and on the CPU reference otherwise.

use std::path::Path;

use chiffon::glam::{Affine3A, Quat, Vec3};
use chiffon::params::Compliance;
use chiffon::{
    Backend, ClothBuilder, ClothOptions, GpuContext, Pinning, SolverParams, World, WorldConfig,
};

fn main() -> chiffon::Result<()> {
    let count = match std::env::args().nth(1).map(|arg| arg.parse::<usize>()) {
        None => 4,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => {
            eprintln!("usage: cargo run --release --example world -- [CAPES, at least 1]");
            std::process::exit(2);
        }
    };
    let cape = ClothBuilder::obj(Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/cape.obj"))?
        .pinning(Pinning::Group("collar".into()))
        .density(0.15) // kg/m²
        .build()?;

    let gpu = GpuContext::new_or_none();
    let backend = gpu.as_ref().map_or(Backend::Cpu, Backend::Gpu);

    // The parameters (gravity, wind, substeps, colliders) are the world's, shared by its cloths.
    let params = SolverParams {
        air: Some(chiffon::Air::wind(Vec3::new(3.0, 0.0, -4.5)).with_gusts(0.3)), // m/s
        ..SolverParams::default()
    };
    let mut world = World::new(backend, params, WorldConfig::default())?;

    // The same cloth, added `count` times in rows of ten, each placed by its own transform
    // (rotation, uniform scale, translation). The odd ones are scaled to 60 % and get their own
    // material, floppier than the world's (XPBD compliances, m/N, and the bending's,
    // 1/(N·m): a stiffness of 10⁻⁸ N·m; 0 is rigid).
    let soft = Compliance {
        stretch: 1e-4,
        shear: 1e-3,
        curvature: 1e8,
        ..Compliance::default()
    };
    let mut capes = Vec::new();
    for k in 0..count {
        let at = Vec3::new((k % 10) as f32, 0.0, -((k / 10) as f32));
        let options = if k % 2 == 0 {
            ClothOptions::new().translate(at)
        } else {
            let small =
                Affine3A::from_scale_rotation_translation(Vec3::splat(0.6), Quat::IDENTITY, at);
            ClothOptions::new().transform(small).compliance(soft)
        };
        capes.push(world.add(&cape, options)?);
    }
    println!(
        "{} capes, {} particles in all, on {}",
        world.len(),
        world.particle_count(),
        world.backend_name()
    );

    let start = std::time::Instant::now();
    for _ in 0..90 {
        world.step(1.0 / 60.0)?; // every cloth, one frame
    }
    world.wait()?; // on the GPU, `step` only queues the work
    println!(
        "90 frames (1.5 s) in {:.2} s",
        start.elapsed().as_secs_f64()
    );

    // One readback for all of them (the first eight shown).
    for (handle, positions) in world.all_positions()?.into_iter().take(8) {
        let k = capes.iter().position(|&h| h == handle).unwrap_or_default();
        let kind = if k % 2 == 0 { "large" } else { "small, soft" };
        let stretch = chiffon::quality::stretch(world.cloth(handle)?, &positions);
        let hem = positions.iter().map(|p| p.y).fold(f32::INFINITY, f32::min);
        let path = world.path(handle)?; // fused (one workgroup) or global (per-pass kernels)
        println!(
            "cape {k} ({kind:>11}): hem at y = {hem:.3} m, edge length / rest length at \
             most {:.4}, solved {}",
            stretch.max,
            path.name()
        );
    }

    // Cloths come and go between frames; a removed cloth's handle is refused from then on.
    world.remove(capes[0])?;
    world.step(1.0 / 60.0)?;
    println!(
        "removed cape 0: {} capes left; its handle now gives: {}",
        world.len(),
        world.positions(capes[0]).unwrap_err()
    );
    Ok(())
}
