//! How well cloth held up by contact keeps its length: the contact scenes of docs/contact.md,
//! each run for a number of frames, with the stretch of its structural edges (length over rest
//! length) at the last frame, the worst edge in any frame, and, where there is a box, how many
//! (box edge, cloth triangle) pairs cross in the worst frame (a corner or edge through the
//! cloth: [`chiffon::quality::box_edges_through_cloth`]), and the cloth's mean height at the
//! last frame (whether it stayed on what holds it up).
//!
//! ```sh
//! cargo run --release --example contact_quality -- [--backend cpu|gpu] [--frames 240] [--friction MU] [--shear M_PER_N] [--strain-limit FACTOR|none] [--coarse-levels on|off] [--substeps N] [SCENE ...]
//! ```
//!
//! The scenes: `box` (a 96² sheet 1.4 m wide dropped flat on a box 0.9 m × 0.6 m), `sphere` (a
//! 128² sheet 1 m wide dropped flat on a sphere of radius 0.3 m), `towel` (a 96² towel dropped
//! edge first onto a small sphere and the floor, self-collision on), `mesh` (a 96² sheet on the
//! colliders benchmark's bumpy sphere, a mesh collider), `figure` (a 96² sheet 1.4 m wide dropped
//! flat over the head and shoulders of the demo's figure standing still, as a mesh collider), and
//! the demo's `table` (96 columns),
//! `heap` (128², held 60 frames by a corner, then let go) and `character` (96). No scene named:
//! all of them. The frames count from the heap's release. `--friction` sets every collider's
//! friction, `--shear` the shear compliance (m/N: 100 lets a sheet shear freely, docs/contact.md),
//! `--strain-limit` the strain limit after contact (`SolverParams::strain_limit`; none: off),
//! `--coarse-levels` the coarse levels, `--substeps` a fixed number of substeps a frame.

use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, bail};
use chiffon::glam::{Quat, Vec3};
use chiffon::scenes::{self, DemoScene, Motion};
use chiffon::{
    Backend, ClothBuilder, Collider, DistanceGrid, GpuContext, Layout, Pinning, SelfCollision,
    SolverParams, World, WorldConfig,
};

const DT: f64 = 1.0 / 60.0;

/// A scene: its cloths and parameters in a world, and what moves by itself.
struct Setup {
    world: World,
    motion: Motion,
    /// Frames before the measured ones (the heap's hold).
    hold: usize,
}

fn flat_sheet(n: u32, width: f32, height: f32) -> chiffon::Result<chiffon::Cloth> {
    ClothBuilder::grid(n, n)
        .spacing(width / (n - 1) as f32)
        .total_mass(0.2 * width * width)
        .layout(Layout::Flat { height })
        .pinning(Pinning::None)
        .build()
}

fn one_cloth(
    backend: Backend<'_>,
    cloth: chiffon::Cloth,
    params: SolverParams,
) -> anyhow::Result<Setup> {
    let mut world = World::new(backend, params, WorldConfig::default())?;
    let handle = world.add(&cloth, chiffon::ClothOptions::default())?;
    Ok(Setup {
        world,
        motion: Motion::of(DemoScene::Cloth, handle, Vec::new()),
        hold: 0,
    })
}

fn demo(backend: Backend<'_>, scene: DemoScene, grid: u32) -> anyhow::Result<Setup> {
    let (cloths, collar) = scenes::demo_cloths(scene, grid, 1, chiffon::Membrane::Edges)?;
    let params = SolverParams {
        colliders: scenes::demo_bodies(scene, 1)
            .into_iter()
            .chain(scenes::demo_colliders(Some(0.0), None))
            .collect(),
        self_collision: scenes::demo_self_collision(scene),
        ..SolverParams::default()
    };
    let mut world = World::new(backend, params, WorldConfig::default())?;
    for (cloth, options) in &cloths {
        world.add(cloth, *options)?;
    }
    let first = world.handles()[0];
    let hold = if scene == DemoScene::Heap {
        scenes::HEAP_HOLD_FRAMES
    } else {
        0
    };
    Ok(Setup {
        world,
        motion: Motion::of(scene, first, collar),
        hold,
    })
}

fn setup(backend: Backend<'_>, name: &str) -> anyhow::Result<Setup> {
    let ground = Collider::ground(0.0);
    match name {
        "box" => one_cloth(
            backend,
            flat_sheet(96, 1.4, 1.0)?,
            SolverParams {
                colliders: vec![
                    Collider::cuboid(
                        Vec3::new(0.0, 0.4, 0.0),
                        Vec3::new(0.45, 0.4, 0.3),
                        Quat::IDENTITY,
                    ),
                    ground,
                ],
                ..SolverParams::default()
            },
        ),
        "sphere" => one_cloth(
            backend,
            flat_sheet(128, 1.0, 1.0)?,
            SolverParams {
                colliders: vec![Collider::sphere(Vec3::new(0.0, 0.5, 0.0), 0.3), ground],
                ..SolverParams::default()
            },
        ),
        "towel" => one_cloth(
            backend,
            ClothBuilder::grid(96, 96)
                .layout(Layout::Hanging { top: 1.0 })
                .pinning(Pinning::None)
                .build()?,
            SolverParams {
                colliders: vec![Collider::sphere(Vec3::new(0.0, 0.4, 0.1), 0.15), ground],
                self_collision: Some(SelfCollision::default()),
                ..SolverParams::default()
            },
        ),
        "mesh" => {
            let (stacks, slices) = (40, 80);
            let grid = Arc::new(DistanceGrid::from_mesh(
                &scenes::bumpy_sphere(stacks, slices),
                chiffon::contact::DEFAULT_RESOLUTION,
            )?);
            one_cloth(
                backend,
                scenes::collider_sheet(96)?,
                SolverParams {
                    colliders: vec![Collider::mesh(grid, chiffon::Pose::IDENTITY), ground],
                    ..SolverParams::default()
                },
            )
        }
        "figure" => {
            // The walking figure standing still, as a mesh, moved so its crown (the mesh's
            // first vertex, at 1.75 m) is under the middle of a 1.4 m sheet dropped flat from
            // 1.9 m onto its head and shoulders.
            let figure = scenes::walker_figure(80, 160);
            let crown = figure.positions[0];
            let grid = Arc::new(DistanceGrid::from_mesh(
                &figure,
                chiffon::contact::DEFAULT_RESOLUTION,
            )?);
            let pose = chiffon::Pose::from_translation(Vec3::new(-crown.x, 0.0, -crown.z));
            one_cloth(
                backend,
                flat_sheet(96, 1.4, 1.9)?,
                SolverParams {
                    colliders: vec![Collider::mesh(grid, pose), ground],
                    ..SolverParams::default()
                },
            )
        }
        "table" => demo(backend, DemoScene::Table, 96),
        "heap" => demo(backend, DemoScene::Heap, 128),
        "character" => demo(backend, DemoScene::Character, 96),
        _ => bail!(
            "unknown scene {name:?}: box, sphere, towel, mesh, figure, table, heap or character"
        ),
    }
}

/// What one scene measured.
struct Row {
    name: String,
    last: chiffon::quality::Stretch,
    worst_max: f64,
    worst_frame: usize,
    crossings: usize,
    /// The cloth's mean height at the last frame (m): where it rests (the floor is at 0).
    mean_height: f64,
    ms_per_frame: f64,
}

fn run(
    backend: Backend<'_>,
    name: &str,
    frames: usize,
    overrides: &Overrides,
) -> anyhow::Result<Row> {
    let Setup {
        mut world,
        motion,
        hold,
    } = setup(backend, name)?;
    let mut params = world.params().clone();
    if let Some(mu) = overrides.friction {
        for c in &mut params.colliders {
            c.friction = mu;
        }
    }
    if let Some(alpha) = overrides.shear {
        params.compliance.shear = alpha;
    }
    if let Some(limit) = overrides.strain_limit {
        params.strain_limit = limit;
    }
    if let Some(on) = overrides.coarse_levels {
        params.coarse_levels = on;
    }
    if let Some(n) = overrides.substeps {
        params.substeps = chiffon::params::Substeps::Fixed(n);
    }
    world.set_params(params)?;
    let handle = world.handles()[0];
    let cloth = world.cloth(handle)?.clone();
    let mut held = true;
    let (mut worst_max, mut worst_frame, mut crossings) = (0.0f64, 0, 0usize);
    let mut stepping = 0.0;
    let mut last = chiffon::quality::Stretch::default();
    let mut mean_height = 0.0;
    for frame in 0..hold + frames {
        let (from, to) = (frame as f64 * DT, (frame + 1) as f64 * DT);
        if motion.before_step(&mut world, from, to, held)? {
            held = false;
            scenes::set_pins_held(&mut world, false)?;
        }
        let start = Instant::now();
        world.step(DT)?;
        world.wait()?;
        if frame >= hold {
            stepping += start.elapsed().as_secs_f64();
            let positions = world.positions(handle)?;
            last = chiffon::quality::stretch(&cloth, &positions);
            if last.max > worst_max {
                (worst_max, worst_frame) = (last.max, frame + 1 - hold);
            }
            let through = chiffon::quality::box_edges_through_cloth(
                cloth.triangles(),
                &positions,
                &world.params().colliders,
            );
            crossings = crossings.max(through);
            mean_height = positions.iter().map(|p| f64::from(p.y)).sum::<f64>()
                / positions.len().max(1) as f64;
        }
    }
    Ok(Row {
        name: name.to_string(),
        last,
        worst_max,
        worst_frame,
        crossings,
        mean_height,
        ms_per_frame: 1e3 * stepping / frames as f64,
    })
}

/// What the flags change in every scene's parameters.
#[derive(Default)]
struct Overrides {
    friction: Option<f32>,
    shear: Option<f32>,
    strain_limit: Option<Option<f32>>,
    coarse_levels: Option<bool>,
    substeps: Option<u32>,
}

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let (mut backend_name, mut frames, mut names) = ("cpu".to_string(), 240usize, Vec::new());
    let mut overrides = Overrides::default();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--backend" => backend_name = args.next().context("--backend wants cpu or gpu")?,
            "--frames" => {
                frames = args
                    .next()
                    .context("--frames wants a count")?
                    .parse()
                    .context("--frames wants a count")?
            }
            "--friction" => {
                overrides.friction = Some(
                    args.next()
                        .context("--friction wants a coefficient")?
                        .parse()
                        .context("--friction wants a coefficient")?,
                )
            }
            "--shear" => {
                overrides.shear = Some(
                    args.next()
                        .context("--shear wants a compliance in m/N")?
                        .parse()
                        .context("--shear wants a compliance in m/N")?,
                )
            }
            "--strain-limit" => {
                let v = args
                    .next()
                    .context("--strain-limit wants a factor or none")?;
                overrides.strain_limit = Some(if v == "none" {
                    None
                } else {
                    Some(v.parse().context("--strain-limit wants a factor or none")?)
                });
            }
            "--coarse-levels" => {
                overrides.coarse_levels = Some(
                    match args
                        .next()
                        .context("--coarse-levels wants on or off")?
                        .as_str()
                    {
                        "on" => true,
                        "off" => false,
                        other => bail!("--coarse-levels wants on or off, not {other:?}"),
                    },
                )
            }
            "--substeps" => {
                overrides.substeps = Some(
                    args.next()
                        .context("--substeps wants a count")?
                        .parse()
                        .context("--substeps wants a count")?,
                )
            }
            _ => names.push(a),
        }
    }
    if names.is_empty() {
        names = [
            "box",
            "sphere",
            "towel",
            "mesh",
            "figure",
            "table",
            "heap",
            "character",
        ]
        .map(String::from)
        .to_vec();
    }
    let ctx;
    let backend = match backend_name.as_str() {
        "cpu" => Backend::Cpu,
        "gpu" => {
            ctx = GpuContext::new()?;
            Backend::Gpu(&ctx)
        }
        other => bail!("--backend wants cpu or gpu, not {other:?}"),
    };
    println!("{frames} frames at 60 fps on {backend_name}");
    println!(
        "| scene | last frame: mean / p99 / max | worst max (frame) | box edges through the cloth (worst frame) | mean height (m) | ms/frame |"
    );
    println!("| --- | --- | --- | --- | --- | --- |");
    for name in &names {
        let r = run(backend, name, frames, &overrides)?;
        println!(
            "| {} | {:.3} / {:.3} / {:.3} | {:.3} ({}) | {} | {:.3} | {:.1} |",
            r.name,
            r.last.mean,
            r.last.p99,
            r.last.max,
            r.worst_max,
            r.worst_frame,
            r.crossings,
            r.mean_height,
            r.ms_per_frame
        );
    }
    Ok(())
}
