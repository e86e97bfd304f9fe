//! How a sheet's triangulation, more than its edge lengths, decides how far its edges stretch
//! while it drapes: the measurement behind docs/quality.md ("Where the irregular sheet's worst
//! edges come from").
//!
//! ```sh
//! cargo run --release --example triangulations                  # 192² sheets, the defaults
//! cargo run --release --example triangulations -- 192 720 1    # size, solver Hz, iterations
//! cargo run --release --example triangulations -- 192 540 1 1.05 irregular
//! cargo run --release --example triangulations -- 192 360 1 none irregular triangles 10
//! ```
//!
//! A fourth argument runs the strain limit in every frame at that factor
//! (`SolverParams::strain_limit_frames`, `LimitFrames::All`; by default it runs only with
//! contact, so never here), or `none`; a fifth keeps only the sheets whose name contains it
//! (`all` keeps every one); a sixth is the membrane (`edges`, the default, or `triangles`:
//! `chiffon::Membrane`), a seventh the shear compliance (m/N, default 0: rigid).
//!
//! The standard scene (a 1 m square of 0.2 kg falling from flat, held by the two corners of
//! one edge) on the CPU reference for 70 frames at 60 fps, as six sheets of N² particles: the
//! grid; the grid's points as a triangle mesh with every cell's diagonal one way, the other
//! way, alternating from cell to cell, or picked at random; and the irregular sheet (jittered points,
//! Delaunay: `scenes::irregular_cloth`). Every frame from the fifth it reads the state back and keeps the
//! longest edge over its rest length; it prints the worst over frames 5 to 70 and the state
//! after frame 70 (the one `chiffon bench` reports).

use chiffon::glam::Vec3;
use chiffon::params::{LimitFrames, Substeps};
use chiffon::scenes::{STANDARD_DT, irregular_builder, standard_builder};
use chiffon::{
    Backend, Cloth, ClothBuilder, Membrane, Pinning, Solver, SolverParams, TriangleMesh,
};

/// Which way each cell of a triangulated grid is split.
#[derive(Clone, Copy)]
enum Diagonals {
    /// From (c + 1, r) to (c, r + 1), as the grid's own triangles.
    OneWay,
    /// From (c, r) to (c + 1, r + 1).
    OtherWay,
    Alternating,
    Random,
}

fn main() -> anyhow::Result<()> {
    let arg = |k: usize| std::env::args().nth(k);
    let n: u32 = arg(1).map_or(Ok(192), |s| s.parse())?;
    let frequency: f32 = arg(2).map_or(Ok(chiffon::params::DEFAULT_FREQUENCY), |s| s.parse())?;
    let iterations: u32 = arg(3).map_or(Ok(1), |s| s.parse())?;
    let limit: Option<f32> = arg(4)
        .filter(|s| s != "none")
        .map(|s| s.parse())
        .transpose()?;
    let only = arg(5).filter(|s| s != "all");
    let membrane = match arg(6).as_deref() {
        None | Some("edges") => Membrane::Edges,
        Some("triangles") => Membrane::Triangles,
        Some(other) => anyhow::bail!("membrane {other:?}: edges or triangles"),
    };
    let shear: f32 = arg(7).map_or(Ok(0.0), |s| s.parse())?;
    let mut params = SolverParams {
        substeps: Substeps::Frequency(frequency),
        iterations,
        ..SolverParams::default()
    };
    params.compliance.shear = shear;
    if let Some(limit) = limit {
        params.strain_limit = Some(limit);
        params.strain_limit_frames = LimitFrames::All;
    }
    params.validate()?;
    let limit_text = limit.map_or("no strain limit (no contact)".into(), |l| {
        format!("strain limit {l} in every frame")
    });
    println!(
        "{n}² sheets, {frequency} Hz, {iterations} iteration(s), {limit_text}, membrane \
         {membrane:?}, shear compliance {shear} m/N, CPU reference"
    );
    println!(
        "sheet                          colors  worst edge, frames 5-70  after 70: mean / p99 / max  ms/frame"
    );
    let all = [true; 3];
    let sheets = [
        (
            "grid (both diagonals rigid)",
            standard_builder(n, all).membrane(membrane).build()?,
        ),
        (
            "mesh, diagonals one way",
            triangulated_grid(n, Diagonals::OneWay, membrane)?,
        ),
        (
            "mesh, diagonals the other way",
            triangulated_grid(n, Diagonals::OtherWay, membrane)?,
        ),
        (
            "mesh, diagonals alternating",
            triangulated_grid(n, Diagonals::Alternating, membrane)?,
        ),
        (
            "mesh, diagonals at random",
            triangulated_grid(n, Diagonals::Random, membrane)?,
        ),
        (
            "irregular (jittered, Delaunay)",
            irregular_builder(n, all).membrane(membrane).build()?,
        ),
    ];
    for (name, cloth) in &sheets {
        if only.as_ref().is_some_and(|o| !name.contains(o.as_str())) {
            continue;
        }
        let mut solver = Solver::new(Backend::Cpu, cloth, params.clone())?;
        let mut worst: f64 = 0.0;
        let mut last = None;
        let mut stepping = std::time::Duration::ZERO;
        for frame in 1..=70 {
            let start = std::time::Instant::now();
            solver.step(STANDARD_DT)?;
            stepping += start.elapsed();
            if frame >= 5 {
                let stretch = chiffon::quality::stretch(cloth, &solver.positions()?);
                worst = worst.max(stretch.max);
                if std::env::var_os("XPRINT").is_some() {
                    eprint!("{frame}:{:.3} ", stretch.max);
                }
                last = Some(stretch);
            }
        }
        let last = last.expect("frame 70 is read");
        println!(
            "{name:<30} {:>6}  {worst:>23.3}  {:.4} / {:.3} / {:.3}  {:>8.1}",
            cloth.colors().len(),
            last.mean,
            last.p99,
            last.max,
            stepping.as_secs_f64() * 1e3 / 70.0
        );
    }
    Ok(())
}

/// The standard scene's grid as a triangle mesh (so with a mesh's constraints: one distance
/// per edge, a bending stencil across each interior edge, no second diagonal), its cells split
/// as `diagonals` says.
fn triangulated_grid(n: u32, diagonals: Diagonals, membrane: Membrane) -> chiffon::Result<Cloth> {
    let h = 1.0 / (n - 1) as f32;
    let positions = (0..n * n)
        .map(|k| Vec3::new((k % n) as f32 * h - 0.5, 0.0, (k / n) as f32 * h - 0.5))
        .collect();
    let mut triangles = Vec::new();
    let mut seed = 0x5eed_0024_u64;
    for r in 0..n - 1 {
        for c in 0..n - 1 {
            let (a, b, d, e) = (
                r * n + c,
                r * n + c + 1,
                (r + 1) * n + c,
                (r + 1) * n + c + 1,
            );
            // A linear congruential generator is enough to scatter the diagonals.
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let flip = match diagonals {
                Diagonals::OneWay => false,
                Diagonals::OtherWay => true,
                Diagonals::Alternating => (r + c) % 2 == 1,
                Diagonals::Random => (seed >> 33) & 1 == 1,
            };
            if flip {
                triangles.extend([[a, d, e], [a, e, b]]);
            } else {
                triangles.extend([[a, d, b], [b, d, e]]);
            }
        }
    }
    // The standard scene's pins: the two corners at z = -0.5.
    let corner = |x: f32| Pinning::Box {
        min: Vec3::new(x, 0.0, -0.5) - Vec3::splat(1e-4),
        max: Vec3::new(x, 0.0, -0.5) + Vec3::splat(1e-4),
    };
    ClothBuilder::mesh(TriangleMesh::new("triangulated grid", positions, triangles))
        .total_mass(0.2)
        .pinning(corner(-0.5))
        .pin(corner(0.5))
        .membrane(membrane)
        .build()
}
