//! The `chiffon` command line: its flags (clap) and subcommands. This is the edge of the
//! library: errors are `anyhow` here, and clap types stay here, out of the library's structs.

mod bench_args;
pub mod parse;
mod scene;
mod solver_args;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use serde_json::json;

use crate::conformance::{LONG_RUN_TOLERANCE, deviation};
use crate::export::{ObjSequence, write_positions};
use crate::tools::BackendKind as Backend;
use crate::{GpuContext, Solver};

pub use bench_args::BenchArgs;
pub use scene::{ClothArgs, SceneArgs};
pub use solver_args::SolverArgs;

#[derive(Parser, Debug)]
#[command(
    name = "chiffon",
    version,
    about = "GPU compute cloth solver (wgpu + WGSL)"
)]
/// The parsed command line.
pub struct Cli {
    /// Without a subcommand, chiffon opens the demo.
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Open the windowed demo (the default when no subcommand is given).
    Demo {
        /// Cloth resolution N (N×N); default 256, or 64 on a CPU adapter.
        #[arg(long)]
        grid: Option<u32>,
        /// Run --frames frames of the default scene, write this PNG, and exit.
        #[arg(long)]
        screenshot: Option<PathBuf>,
        /// Frames before the screenshot.
        #[arg(long, default_value_t = 120)]
        frames: u32,
        /// Window and screenshot size, WIDTHxHEIGHT.
        #[arg(long, default_value = "1280x720", value_parser = scene::parse_size)]
        size: (u32, u32),
        /// A mesh to show instead of the grid, with its pins and placement.
        #[command(flatten)]
        cloth: ClothArgs,
        /// Start with the wind on at this strength (m/s², the panel's heading).
        #[arg(long)]
        wind: Option<f32>,
        /// The scene: cloth (one cloth: the grid, or --mesh) or flags (a field of flags in
        /// the wind, one world of many cloths).
        #[arg(long, default_value = "cloth")]
        scene: crate::tools::scenes::DemoScene,
        /// Flags per side of the flags scene (default 8, or 4 on a CPU adapter).
        #[arg(long)]
        flags: Option<u32>,
    },
    /// Print the adapter (name, backend, device type) and the limits that bound cloth size.
    Info,
    /// Run a scene and write the final positions (.csv or .obj).
    #[command(allow_negative_numbers = true)]
    Simulate {
        #[command(flatten)]
        scene: SceneArgs,
        /// Which solver runs the scene.
        #[arg(long, default_value = "gpu")]
        backend: Backend,
        /// Output: the final positions as .csv (x,y,z per line) or .obj (faces, UVs,
        /// normals); with --out-every, a folder for the OBJ sequence.
        #[arg(long)]
        out: PathBuf,
        /// Write an OBJ every N frames into the --out folder (frame_0000.obj is the start,
        /// frame_0001.obj after N frames, ...), for Blender or any DCC tool.
        #[arg(long)]
        out_every: Option<usize>,
    },
    /// Headless benchmark of the standard scene (same code as `cargo bench`).
    Bench {
        #[command(flatten)]
        args: BenchArgs,
    },
    /// Integrator study: point-mass problems with known solutions, and cloth frame-rate
    /// independence. Writes tables and plots into --out.
    Study {
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
        /// Print the results as JSON on stdout.
        #[arg(long)]
        json: bool,
        /// Seed of the random dt sequences.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Solver of the cloth experiment (the GPU falls back to the CPU when there is none).
        #[arg(long, default_value = "gpu")]
        cloth_backend: Backend,
    },
    /// Run a scene on both backends and report how far the GPU is from the CPU reference.
    #[command(allow_negative_numbers = true)]
    Conform {
        #[command(flatten)]
        scene: SceneArgs,
        /// Largest accepted deviation, as a fraction of the cloth size.
        #[arg(long, default_value_t = LONG_RUN_TOLERANCE)]
        tolerance: f32,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Result<ExitCode> {
    let command = match cli.command {
        Some(c) => c,
        // No subcommand: the demo with its defaults.
        None => Cli::parse_from(["chiffon", "demo"])
            .command
            .expect("demo parses"),
    };
    match command {
        Command::Demo {
            grid,
            screenshot,
            frames,
            size,
            cloth,
            wind,
            scene,
            flags,
        } => {
            if let Some(n) = flags.filter(|n| !(1..=32).contains(n)) {
                anyhow::bail!("--flags {n} must be between 1 and 32 flags per side");
            }
            if let Some(w) = wind.filter(|w| !(w.is_finite() && *w >= 0.0 && *w <= 100.0)) {
                anyhow::bail!("--wind {w} must be a strength in m/s² between 0 and 100");
            }
            if scene == crate::tools::scenes::DemoScene::Flags && cloth.mesh.is_some() {
                anyhow::bail!("--mesh shows one cloth; it does not go with --scene flags");
            }
            if cloth.mesh.is_none() && cloth.any_placement() {
                anyhow::bail!(
                    "--pin, --scale, --translate, --mass, --density and --weld go with --mesh in \
                     the demo (its grid has its own panel)"
                );
            }
            let mesh = cloth.mesh_builder()?;
            if let Some(b) = &mesh {
                // Build once here so a bad mesh or pin fails before a window opens.
                b.clone().build()?;
            }
            #[cfg(feature = "demo")]
            crate::tools::demo::run(crate::tools::demo::DemoOptions {
                grid,
                mesh,
                scene,
                flags,
                wind,
                screenshot,
                frames,
                size,
            })?;
            #[cfg(not(feature = "demo"))]
            {
                let _ = (grid, screenshot, frames, size, mesh, wind, scene, flags);
                anyhow::bail!("this chiffon was built without the `demo` feature");
            }
            #[cfg(feature = "demo")]
            Ok(ExitCode::SUCCESS)
        }
        Command::Info => info(),
        Command::Study {
            out,
            json,
            seed,
            cloth_backend,
        } => study(&out, json, seed, cloth_backend),
        Command::Bench { args } => {
            args.run()?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Simulate {
            scene,
            backend,
            out,
            out_every,
        } => simulate(&scene, backend, &out, out_every),
        Command::Conform {
            scene,
            tolerance,
            json,
        } => conform(&scene, tolerance, json),
    }
}

fn info() -> Result<ExitCode> {
    let ctx = GpuContext::new()?;
    let i = ctx.info();
    let l = ctx.limits();
    println!("adapter:      {}", i.name);
    println!("backend:      {:?}", i.backend);
    println!("device type:  {:?}", i.device_type);
    println!("driver:       {} {}", i.driver, i.driver_info);
    println!(
        "timestamps:   {}",
        if ctx.has_timestamps() { "yes" } else { "no" }
    );
    println!("limits that bound cloth size:");
    println!(
        "  max_storage_buffer_binding_size  {} bytes",
        l.max_storage_buffer_binding_size
    );
    println!(
        "  max_buffer_size                  {} bytes",
        l.max_buffer_size
    );
    println!(
        "  max_compute_workgroups_per_dim   {}",
        l.max_compute_workgroups_per_dimension
    );
    println!(
        "  max_compute_invocations_per_wg   {}",
        l.max_compute_invocations_per_workgroup
    );
    println!(
        "  min_uniform_buffer_offset_align  {} bytes",
        l.min_uniform_buffer_offset_alignment
    );
    // A full grid has about 6 constraints of 16 bytes per particle; that buffer binds first.
    let bytes = l.max_storage_buffer_binding_size.min(l.max_buffer_size);
    let side = ((bytes / (6 * 16)) as f64).sqrt().floor() as u64;
    println!("largest square grid (all constraint kinds): about {side} x {side}");
    Ok(ExitCode::SUCCESS)
}

fn study(out: &std::path::Path, as_json: bool, seed: u64, backend: Backend) -> Result<ExitCode> {
    let ctx = match backend {
        Backend::Cpu => None,
        Backend::Gpu => match GpuContext::new() {
            Ok(ctx) => Some(ctx),
            Err(e) => {
                eprintln!("chiffon: warning: {e}; running the cloth experiment on the CPU");
                None
            }
        },
    };
    let report = crate::tools::study::run(seed, ctx.as_ref())?;
    let files = crate::tools::study::write_outputs(&report, out, seed)?;
    if as_json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", crate::tools::study::markdown(&report));
        println!(
            "\nwrote {} files to {}: {}",
            files.len(),
            out.display(),
            files.join(", ")
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn make_solver(scene: &SceneArgs, backend: Backend) -> Result<Solver> {
    let cloth = scene.cloth()?;
    let params = scene.params()?;
    let ctx = match backend {
        Backend::Gpu => Some(GpuContext::new()?),
        Backend::Cpu => None,
    };
    Ok(Solver::new(backend.on(ctx.as_ref())?, &cloth, params)?)
}

/// Runs every frame of the scene and returns the final positions.
fn run_frames(solver: &mut Solver, dts: &[f64]) -> Result<Vec<glam::Vec3>> {
    for &dt in dts {
        solver.step(dt)?;
    }
    // The GPU's flag lags a frame or two: ask now, before anything is written.
    solver.health()?;
    Ok(solver.positions()?)
}

/// Says what the cloth is: its size, coloring, and what building it from a mesh found.
fn describe_cloth(scene: &SceneArgs, cloth: &crate::Cloth) -> String {
    let what = match (&scene.cloth.mesh, cloth.grid()) {
        (Some(path), _) => format!("mesh {}", path.display()),
        (None, Some(g)) => format!("{}x{} grid", g.columns, g.rows),
        (None, None) => "cloth".to_string(),
    };
    let mut text = format!(
        "{what}: {} particles ({} pinned), {} constraints, {} triangles\n{}",
        cloth.particle_count(),
        (0..cloth.particle_count())
            .filter(|&i| cloth.is_pinned(i))
            .count(),
        cloth.constraint_count(),
        cloth.triangles().len(),
        crate::tools::bench::describe_colors("coloring", &cloth.color_sizes())
    );
    let st = cloth.mesh_stats();
    if scene.cloth.mesh.is_some() {
        text += &format!(
            "\nmesh: welded {} vertices, dropped {} degenerate triangles and {} unused vertices, {} boundary edges",
            st.welded_vertices, st.degenerate_triangles, st.unused_vertices, st.boundary_edges
        );
    }
    if st.non_manifold_edges > 0 {
        text += &format!(
            "\nchiffon: note: {} non-manifold edges (more than two triangles): simulated, with no bending across them",
            st.non_manifold_edges
        );
    }
    text
}

fn simulate(
    scene: &SceneArgs,
    backend: Backend,
    out: &std::path::Path,
    out_every: Option<usize>,
) -> Result<ExitCode> {
    let dts = scene.dts()?;
    // Check the output before spending time on the run.
    let mut sequence = match out_every {
        Some(0) => anyhow::bail!("--out-every must be at least 1 frame"),
        Some(_) => {
            if out.extension().is_some_and(|e| e == "obj" || e == "csv") {
                anyhow::bail!(
                    "--out {} names a file, but with --out-every it is the folder for frame_0000.obj, ...",
                    out.display()
                );
            }
            Some(ObjSequence::new(out).with_context(|| format!("creating {}", out.display()))?)
        }
        None => {
            if !matches!(
                out.extension().and_then(|e| e.to_str()),
                Some("csv" | "obj" | "CSV" | "OBJ")
            ) {
                anyhow::bail!("--out {} must end in .csv or .obj", out.display());
            }
            None
        }
    };
    let mut solver = make_solver(scene, backend)?;
    println!("{}", describe_cloth(scene, solver.cloth()));
    solver_args::note_missing_tethers(&mut solver)?;
    let start = Instant::now();
    let positions = match (&mut sequence, out_every) {
        (Some(seq), Some(every)) => {
            let first = solver.positions()?;
            seq.write(solver.cloth(), &first)?;
            for (k, &dt) in dts.iter().enumerate() {
                solver.step(dt)?;
                if (k + 1) % every == 0 {
                    solver.health()?;
                    let p = solver.positions()?;
                    seq.write(solver.cloth(), &p)?;
                }
            }
            solver.health()?;
            solver.positions()?
        }
        _ => run_frames(&mut solver, &dts)?,
    };
    let elapsed = start.elapsed();
    let written = match &sequence {
        Some(seq) => format!("{} OBJ files in {}", seq.len(), out.display()),
        None => {
            write_positions(out, solver.cloth(), &positions)
                .with_context(|| format!("writing {}", out.display()))?;
            out.display().to_string()
        }
    };
    println!(
        "simulated {} frames ({:.3} s of cloth time) on {} in {:.2} s; wrote {written}",
        dts.len(),
        dts.iter().sum::<f64>(),
        solver.backend_name(),
        elapsed.as_secs_f64(),
    );
    Ok(ExitCode::SUCCESS)
}

fn conform(scene: &SceneArgs, tolerance: f32, as_json: bool) -> Result<ExitCode> {
    if !(tolerance.is_finite() && tolerance > 0.0) {
        anyhow::bail!("--tolerance {tolerance} must be a positive fraction of the cloth size");
    }
    let dts = scene.dts()?;
    let mut gpu = make_solver(scene, Backend::Gpu)?;
    if !as_json {
        println!("{}", describe_cloth(scene, gpu.cloth()));
    }
    solver_args::note_missing_tethers(&mut gpu)?;
    let mut cpu = make_solver(scene, Backend::Cpu)?;
    let g = run_frames(&mut gpu, &dts)?;
    let c = run_frames(&mut cpu, &dts)?;
    let d = deviation(&g, &c);
    let size = gpu.cloth().size();
    let tolerance_m = tolerance * size;
    let pass = d.max_m <= tolerance_m;
    if as_json {
        let record = json!({
            "max_abs_deviation_m": d.max_m,
            "mean_abs_deviation_m": d.mean_m,
            "worst_particle": d.worst_particle,
            "tolerance_m": tolerance_m,
            "cloth_size_m": size,
            "frames": dts.len(),
            "particles": gpu.cloth().particle_count(),
            "adapter": gpu.backend_name(),
            "pass": pass,
        });
        println!("{record}");
    } else {
        println!("adapter:             {}", gpu.backend_name());
        println!("frames:              {}", dts.len());
        println!("cloth size:          {size:.4} m");
        println!(
            "max abs deviation:   {:.3e} m (particle {})",
            d.max_m, d.worst_particle
        );
        println!("mean abs deviation:  {:.3e} m", d.mean_m);
        println!("tolerance:           {tolerance_m:.3e} m ({tolerance} x cloth size)");
        println!(
            "{}",
            if pass {
                "PASS"
            } else {
                "FAIL: deviation over tolerance"
            }
        );
    }
    Ok(if pass {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
