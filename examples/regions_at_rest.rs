//! How much of one cloth is at rest while the cloth as a whole still moves: the measurement
//! behind sleeping per cloth and not per region (docs/many-cloths.md, "Sleeping").
//!
//! ```sh
//! cargo run --release --example regions_at_rest -- table    # or: sphere
//! ```
//!
//! It cuts the cloth into tiles of 16 × 16 particles and applies the world's sleep rule
//! (`Sleep::default()`: the fastest particle's step under 0.02 m/s for 60 frames in a row) to
//! each tile and to the whole cloth, on the CPU reference, for 15 s: `table` is the demo's
//! tablecloth (128 × 96) dropped on the table, `sphere` the demo's 128² cloth pinned by two
//! corners falling onto the sphere. Each second it prints the share of tiles that would sleep;
//! at the end, their mean over the frames the whole cloth was awake, the most that sleeping by
//! region could save beyond sleeping the cloth.

use chiffon::scenes::{CONTACT_FRICTION, demo_cloth, demo_params, table_colliders, tablecloth};
use chiffon::world::Sleep;
use chiffon::{Backend, Collider, Solver, SolverParams};

/// Tile side, in particles.
const TILE: usize = 16;

fn main() -> anyhow::Result<()> {
    let scene = std::env::args().nth(1).unwrap_or_else(|| "table".into());
    let (cloth, params) = match scene.as_str() {
        "table" => {
            let mut colliders = table_colliders();
            colliders.push(Collider::ground(0.0).friction(CONTACT_FRICTION));
            let params = SolverParams {
                colliders,
                ..SolverParams::default()
            };
            (tablecloth(128, chiffon::Membrane::Edges)?, params)
        }
        "sphere" => (
            demo_cloth(128, true, chiffon::Membrane::Edges)?,
            demo_params(),
        ),
        other => anyhow::bail!("unknown scene {other:?}: table or sphere"),
    };
    let grid = cloth.grid().expect("both scenes are grids");
    let (w, h) = (grid.columns as usize, grid.rows as usize);
    let (tiles_x, tiles) = (w.div_ceil(TILE), w.div_ceil(TILE) * h.div_ceil(TILE));
    let dt = 1.0 / 60.0;
    let substeps = params.substeps.count(dt) as f32;
    let sleep = Sleep::default();
    // The rule's bound on a particle's step over one substep (m).
    let bound = sleep.speed * dt as f32 / substeps;

    let mut solver = Solver::new(Backend::Cpu, &cloth, params)?;
    let mut before = solver.positions()?;
    let (mut tile_run, mut cloth_run) = (vec![0u32; tiles], 0u32);
    let (mut asleep_sum, mut awake_frames) = (0.0f64, 0u32);
    for frame in 1..=900 {
        solver.step(dt)?;
        let now = solver.positions()?;
        // A frame's displacement over its substeps: the mean step, close to the last one's
        // once the motion is slow, which is where the rule bites.
        let mut tile_step = vec![0.0f32; tiles];
        for (k, (a, b)) in now.iter().zip(&before).enumerate() {
            let t = (k / w) / TILE * tiles_x + (k % w) / TILE;
            tile_step[t] = tile_step[t].max(a.distance(*b) / substeps);
        }
        let fastest = tile_step.iter().copied().fold(0.0, f32::max);
        for (run, step) in tile_run.iter_mut().zip(&tile_step) {
            *run = if *step < bound { *run + 1 } else { 0 };
        }
        cloth_run = if fastest < bound { cloth_run + 1 } else { 0 };
        let asleep = tile_run.iter().filter(|&&r| r >= sleep.frames).count() as f64 / tiles as f64;
        if cloth_run < sleep.frames {
            asleep_sum += asleep;
            awake_frames += 1;
        }
        if frame % 60 == 0 {
            println!(
                "{scene} {:>2} s: tiles asleep {:>5.1} %, fastest particle {:.3} m/s, cloth {}",
                frame / 60,
                asleep * 100.0,
                fastest * substeps / dt as f32,
                if cloth_run >= sleep.frames {
                    "asleep"
                } else {
                    "awake"
                }
            );
        }
        before = now;
    }
    println!(
        "{scene}: over the {awake_frames} frames the cloth was awake, {:.1} % of its tiles asleep on average",
        asleep_sum / f64::from(awake_frames.max(1)) * 100.0
    );
    Ok(())
}
