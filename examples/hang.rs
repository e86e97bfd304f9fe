//! A square cloth held by two corners: it starts flat, falls and swings down to hang from them.
//! Built, stepped for two seconds at 60 fps and read back, with where it hangs and how much its
//! edges stretch.
//!
//! ```sh
//! cargo run --release --example hang
//! ```
//!
//! It runs on the GPU when wgpu finds one, and on the CPU reference otherwise; both run the same
//! kernels. (No GPU? Mesa's lavapipe is a Vulkan driver that runs on the CPU: see the README.)

use chiffon::glam::Vec3;
use chiffon::{Backend, ClothBuilder, GpuContext, Layout, Pinning, Solver, SolverParams};

fn main() -> chiffon::Result<()> {
    // 32 × 32 particles, 1 m square, 0.2 kg, lying flat at y = 1 m; the two corners of its
    // first row (at z = -0.5 m) are pinned.
    let cloth = ClothBuilder::grid(32, 32)
        .layout(Layout::Flat { height: 1.0 })
        .pinning(Pinning::Corners)
        .build()?;

    let gpu = GpuContext::new_or_none();
    let backend = gpu.as_ref().map_or(Backend::Cpu, Backend::Gpu);

    // The defaults: gravity, 360 substeps a second, rigid stretch and shear, tethers on.
    let mut solver = Solver::new(backend, &cloth, SolverParams::default())?;
    let pinned = (0..cloth.particle_count())
        .filter(|&i| cloth.is_pinned(i))
        .count();
    println!(
        "{} particles ({pinned} pinned), {} constraints in {} colors, on {}",
        cloth.particle_count(),
        cloth.constraint_count(),
        cloth.colors().len(),
        solver.backend_name()
    );

    let dt = 1.0 / 60.0; // seconds per frame
    for frame in 1..=120 {
        solver.step(dt)?; // on the GPU, nothing is read back here
        if frame % 30 == 0 {
            // A readback waits for the queued frames: fine now and then, not every frame.
            let positions = solver.positions()?;
            let stretch = chiffon::quality::stretch(&cloth, &positions);
            let lowest = positions.iter().map(|p| p.y).fold(f32::INFINITY, f32::min);
            println!(
                "t = {:.1} s: lowest point at y = {lowest:.3} m; edge length / rest length: \
                 mean {:.4}, max {:.4}",
                frame as f64 * dt,
                stretch.mean,
                stretch.max
            );
        }
    }

    // A grid's particles are numbered row by row from a pinned corner.
    let positions = solver.positions()?;
    let (columns, rows) = (32, 32);
    let show =
        |name: &str, p: Vec3| println!("{name:>21}: ({:+.3}, {:+.3}, {:+.3}) m", p.x, p.y, p.z);
    show("first corner (pinned)", positions[0]);
    show("centre", positions[(rows / 2) * columns + columns / 2]);
    show("last row's corner", positions[(rows - 1) * columns]);
    Ok(())
}
