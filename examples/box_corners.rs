//! How a sheet resting on a box's top corners fares over a family of nearby scenes, not one:
//! contact at a box's corners is chaotic (a change of a millimetre or a rounding moves the
//! worst edge at rest anywhere between 1.15 and 1.45), so a change to box contact is judged by
//! the family's mean and spread here, and by single scenes only beside it (docs/contact.md,
//! "One scene is a draw").
//!
//! ```sh
//! cargo run --release --example box_corners -- [--backend cpu|gpu] [--frames 150] [--shear M_PER_N]
//! ```
//!
//! Each scene drops a free 64² sheet 1 m wide (0.2 kg) flat from a height of 0.70–0.80 m onto a
//! box 0.6 m tall on the floor, of a different footprint and turned about the vertical by a
//! different angle, at the library's defaults. For each: the stretch of the structural edges at
//! the last frame (mean / max), the worst edge in any frame, and the most (box edge, triangle)
//! pairs crossing in any frame ([`chiffon::quality::box_edges_through_cloth`]); then the
//! family's mean of each, and its range. `--shear` sets the shear compliance (m/N; default
//! rigid, as the library's).

use anyhow::{Context, bail};
use chiffon::glam::{Quat, Vec3};
use chiffon::{Backend, ClothBuilder, Collider, GpuContext, Layout, Pinning, Solver, SolverParams};

/// (drop height in m, the box's half extents in m, its turn about y in radians).
const SCENES: [(f32, [f32; 3], f32); 8] = [
    (0.75, [0.3, 0.3, 0.2], 0.0),
    (0.70, [0.3, 0.3, 0.2], 0.0),
    (0.80, [0.25, 0.3, 0.25], 0.0),
    (0.75, [0.35, 0.3, 0.15], 0.0),
    (0.75, [0.3, 0.3, 0.2], 0.3),
    (0.80, [0.2, 0.3, 0.2], 0.5),
    (0.75, [0.3, 0.3, 0.3], 0.2),
    (0.72, [0.28, 0.3, 0.22], 0.1),
];

/// The argument after `flag`, parsed.
fn value<T: std::str::FromStr>(
    args: &mut impl Iterator<Item = String>,
    flag: &str,
) -> anyhow::Result<T> {
    args.next()
        .and_then(|v| v.parse().ok())
        .with_context(|| format!("{flag} wants a value"))
}

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let (mut backend_name, mut frames, mut shear) = ("cpu".to_string(), 150usize, None::<f32>);
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--backend" => backend_name = value(&mut args, &flag)?,
            "--frames" => frames = value(&mut args, &flag)?,
            "--shear" => shear = Some(value(&mut args, &flag)?),
            other => {
                bail!("unknown argument {other:?}: --backend cpu|gpu, --frames N, --shear M_PER_N")
            }
        }
    }
    if frames == 0 {
        bail!("--frames wants at least 1");
    }
    if let Some(alpha) = shear {
        // The library refuses these too, but only once the first scene is built.
        if !(alpha.is_finite() && alpha >= 0.0) {
            bail!("--shear wants a finite compliance of at least 0 m/N, not {alpha}");
        }
    }
    let ctx = match backend_name.as_str() {
        "cpu" => None,
        "gpu" => Some(GpuContext::new()?),
        other => bail!("--backend {other:?}: cpu or gpu"),
    };
    let backend = ctx.as_ref().map_or(Backend::Cpu, Backend::Gpu);
    println!(
        "{frames} frames at 60 fps on {backend_name}, {} scenes",
        SCENES.len()
    );
    println!(
        "| drop (m) | box half extents (m) | turn (rad) | last frame: mean / max | worst max | crossings (worst frame) |"
    );
    println!("| --- | --- | --- | --- | --- | --- |");
    let mut rows = Vec::new();
    for (height, half, turn) in SCENES {
        let cloth = ClothBuilder::grid(64, 64)
            .spacing(1.0 / 63.0)
            .total_mass(0.2)
            .layout(Layout::Flat { height })
            .pinning(Pinning::None)
            .build()?;
        let mut params = SolverParams {
            colliders: vec![
                Collider::cuboid(
                    Vec3::new(0.0, 0.3, 0.0),
                    Vec3::from_array(half),
                    Quat::from_rotation_y(turn),
                ),
                Collider::ground(0.0),
            ],
            ..SolverParams::default()
        };
        if let Some(alpha) = shear {
            params.compliance.shear = alpha;
        }
        let mut solver = Solver::new(backend, &cloth, params.clone())?;
        let (mut worst, mut crossings) = (0.0f64, 0usize);
        for _ in 0..frames {
            solver.step(1.0 / 60.0)?;
            let p = solver.positions()?;
            worst = worst.max(chiffon::quality::stretch(&cloth, &p).max);
            let through =
                chiffon::quality::box_edges_through_cloth(cloth.triangles(), &p, &params.colliders);
            crossings = crossings.max(through);
        }
        let last = chiffon::quality::stretch(&cloth, &solver.positions()?);
        println!(
            "| {height:.2} | {:.2} × {:.2} × {:.2} | {turn:.1} | {:.4} / {:.3} | {worst:.3} | {crossings} |",
            half[0], half[1], half[2], last.mean, last.max
        );
        rows.push([last.max, worst, crossings as f64]);
    }
    let n = rows.len() as f64;
    let column = |k: usize| {
        let values = rows.iter().map(|r| r[k]);
        let lo = values.clone().fold(f64::INFINITY, f64::min);
        let hi = values.clone().fold(f64::NEG_INFINITY, f64::max);
        (values.sum::<f64>() / n, lo, hi)
    };
    let (max, worst, crossings) = (column(0), column(1), column(2));
    println!(
        "family: last frame's max {:.3} ({:.3}–{:.3}); worst {:.3} ({:.3}–{:.3}); crossings {:.1} a scene ({}–{})",
        max.0, max.1, max.2, worst.0, worst.1, worst.2, crossings.0, crossings.1, crossings.2
    );
    Ok(())
}
