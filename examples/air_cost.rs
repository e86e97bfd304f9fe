//! What the air costs on the demo's flags world: 64 flags on their poles (`scenes::flag_field`,
//! `scenes::flag_poles`), each frame timed with the air off (a vacuum) and on (the demo's
//! 8 m/s with gusts), on the CPU reference and the GPU, the two cases interleaved so a noisy
//! machine weighs on both alike. The standard and capes scenes' figures come from
//! `chiffon bench` (docs/air.md).
//!
//! ```sh
//! cargo run --release --example air_cost            # 8 × 8 flags, 3 rounds of 60 frames
//! cargo run --release --example air_cost -- 4 5     # 4 × 4 flags, 5 rounds
//! ```

use std::time::Instant;

use anyhow::Context;
use chiffon::scenes::{self, DemoScene};
use chiffon::{Air, Backend, GpuContext, SolverParams, World, WorldConfig};

const DT: f64 = 1.0 / 60.0;

/// Milliseconds per frame of the flags world with `air`, after a warm-up.
fn time(backend: Backend<'_>, side: u32, air: Option<Air>) -> anyhow::Result<f64> {
    let params = SolverParams {
        colliders: scenes::flag_poles(side)
            .into_iter()
            .chain(scenes::demo_colliders(Some(0.0), None))
            .collect(),
        air,
        ..SolverParams::default()
    };
    let config = WorldConfig {
        paths: scenes::demo_paths(DemoScene::Flags),
        ..WorldConfig::default()
    };
    let mut world = World::new(backend, params, config)?;
    for (cloth, options) in scenes::flag_field(side, chiffon::Membrane::Edges)? {
        world.add(&cloth, options)?;
    }
    for _ in 0..30 {
        world.step(DT)?;
    }
    world.wait()?;
    let start = Instant::now();
    for _ in 0..60 {
        world.step(DT)?;
    }
    world.wait()?;
    Ok(start.elapsed().as_secs_f64() * 1e3 / 60.0)
}

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<u32>());
    let side = args
        .next()
        .transpose()
        .context("flags per side")?
        .unwrap_or(8);
    let rounds = args.next().transpose().context("rounds")?.unwrap_or(3);
    let (_, speed, heading) = scenes::demo_wind(DemoScene::Flags);
    let air = Air {
        wind: scenes::wind_vector(speed, heading),
        gusts: scenes::demo_gusts(DemoScene::Flags),
        ..Air::default()
    };
    let gpu = GpuContext::new().ok();
    let mut backends = vec![("cpu", None)];
    if let Some(ctx) = &gpu {
        backends.push(("gpu", Some(ctx)));
    }
    println!(
        "{}² flags of 32 × 20 on their poles, ms per frame (air off / on)",
        side
    );
    for (name, ctx) in backends {
        let backend = || ctx.map_or(Backend::Cpu, Backend::Gpu);
        for round in 0..rounds {
            let off = time(backend(), side, None)?;
            let with = time(backend(), side, Some(air))?;
            println!(
                "{name} round {round}: {off:8.2} / {with:8.2}  ({:.2}×)",
                with / off
            );
        }
    }
    Ok(())
}
