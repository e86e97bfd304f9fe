//! Your own mesh as cloth: `assets/cape.obj` (a cape modelled as triangles, its collar an OBJ
//! group of its own) pinned by its `collar` group, blown by a little wind for two seconds, and
//! written out as an OBJ file that Blender or any modelling tool opens.
//!
//! ```sh
//! cargo run --release --example mesh                 # writes cape.obj in the temp folder
//! cargo run --release --example mesh -- out.obj      # or where you say (.obj or .csv)
//! ```
//!
//! It runs on the GPU when wgpu finds one, and on the CPU reference otherwise.

use std::path::{Path, PathBuf};

use chiffon::glam::Vec3;
use chiffon::{Backend, ClothBuilder, GpuContext, Pinning, Solver, SolverParams};

fn main() -> chiffon::Result<()> {
    // Found from the crate's folder, so the example runs from any working directory.
    let obj = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/cape.obj");
    let out = std::env::args_os()
        .nth(1)
        .map_or_else(|| std::env::temp_dir().join("cape.obj"), PathBuf::from);

    // Read, welded (the collar's seam closes), weighed by area and colored; the collar group's
    // particles pinned. A group that does not exist is an error that lists the groups there are.
    let cape = ClothBuilder::obj(&obj)?
        .pinning(Pinning::Group("collar".into()))
        .density(0.15) // kg/m², about cotton
        .build()?;
    let stats = cape.mesh_stats();
    let pinned = (0..cape.particle_count())
        .filter(|&i| cape.is_pinned(i))
        .count();
    println!(
        "{}: {} particles ({pinned} pinned), {} triangles, {} constraints in {} colors; \
         welded {} vertices",
        obj.display(),
        cape.particle_count(),
        cape.triangles().len(),
        cape.constraint_count(),
        cape.colors().len(),
        stats.welded_vertices
    );

    let gpu = GpuContext::new_or_none();
    let backend = gpu.as_ref().map_or(Backend::Cpu, Backend::Gpu);

    let params = SolverParams {
        air: Some(chiffon::Air::wind(Vec3::new(0.0, 0.0, -4.0))), // m/s, drag and lift on each triangle
        ..SolverParams::default()
    };
    let mut solver = Solver::new(backend, &cape, params)?;
    println!("stepping on {}", solver.backend_name());
    for _ in 0..120 {
        solver.step(1.0 / 60.0)?;
    }

    let positions = solver.positions()?;
    let stretch = chiffon::quality::stretch(&cape, &positions);
    let hem = positions.iter().map(|p| p.y).fold(f32::INFINITY, f32::min);
    println!(
        "after 2 s: hem at y = {hem:.3} m, blown back to z = {:.3} m; edge length / rest \
         length: mean {:.4}, max {:.4}",
        positions.iter().map(|p| p.z).fold(f32::INFINITY, f32::min),
        stretch.mean,
        stretch.max
    );

    // Positions, the mesh's UVs and fresh normals; by the extension, `.obj` or `.csv`.
    // (`chiffon::export::ObjSequence` writes one file per frame for an animation.)
    chiffon::export::write_positions(&out, &cape, &positions)?;
    println!("wrote {}", out.display());
    Ok(())
}
