//! The many-cloths benchmark (`chiffon bench --scene capes`): a field of capes, one per square
//! metre, released flat from their collars under the library's default solver settings, solved
//! three ways:
//! - `separate`: one [`GpuSolver`] (or [`CpuSolver`]) per cape, each frame submitted per cape,
//!   one wait at the end of the frame (how chiffon ran many cloths before the world);
//! - `global`: one [`World`] with every cape on the global path ([`PathChoice::Global`]);
//! - `fused`: one [`World`] with [`PathChoice::Auto`] (each cape one workgroup).
//!
//! Bytes moved per frame follow the design notes' model for the per-pass kernels
//! ([`super::BYTES_PER_SOLVE`] …) for `separate` and `global`; for the fused path with the cloth
//! in workgroup memory, a solve moves only its record, its multiplier and (SHAKE) the two
//! previous positions from storage (56 B), integrate the previous position (32 B), and the
//! frame loads and stores each position once (32 B).

use std::time::Instant;

use plotters::prelude::*;
use serde::Serialize;

use super::{Progress, cpu_description, median, opt, percentile};
use crate::Solver;
use crate::cloth::Cloth;
use crate::error::{ChiffonError, Result};
use crate::gpu::{GpuContext, StageTimer};
use crate::params::{Projection, SolverParams};
use crate::tools::BackendKind as Backend;
use crate::tools::plot::{DrawResult, Figure};
use crate::tools::scenes::{STANDARD_DT, cape, cape_position};
use crate::world::{ClothOptions, ClothPath, PathChoice, World, WorldCapacity, WorldConfig};

/// How the capes are solved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BenchPath {
    /// One world, each cape on the fused path where it fits.
    Fused,
    /// One world, every cape on the global path.
    Global,
    /// One solver per cape.
    Separate,
}

crate::names::named_enum!(BenchPath "path" {
    Fused => "fused",
    Global => "global",
    Separate => "separate",
});

/// What the capes benchmark runs.
#[derive(Clone, Debug, PartialEq)]
pub struct CapesConfig {
    /// Numbers of capes. Default 1, 10, 100.
    pub cloths: Vec<u32>,
    /// Particles of one cape (columns, rows). Default 32×32.
    pub cloth_size: (u32, u32),
    /// Paths. Default all three.
    pub paths: Vec<BenchPath>,
    /// Backends. Default both.
    pub backends: Vec<Backend>,
    /// The solver's parameters. Default the library's.
    pub params: SolverParams,
    /// Timed frames per case. Default 60.
    pub frames: usize,
    /// Untimed frames first. Default 10.
    pub warmup: usize,
    /// Threads per workgroup of the per-pass kernels.
    pub workgroup_size: u32,
    /// Threads per workgroup of the fused kernel (`None`: the world's default for the
    /// adapter).
    pub fused_workgroup_size: Option<u32>,
    /// The device's peak bandwidth (GB/s), for `%peak`.
    pub peak_gbps: Option<f64>,
}

/// One measured (or skipped) case. These field names are relied on by scripts.
#[derive(Clone, Debug, Serialize)]
pub struct CapesRecord {
    /// Always `capes`.
    pub scene: &'static str,
    /// `gpu` or `cpu`.
    pub backend: &'static str,
    /// What ran it.
    pub adapter: String,
    /// Capes.
    pub cloths: u32,
    /// `fused`, `global` or `separate`.
    pub path: BenchPath,
    /// One cape's particles, `columns x rows`.
    pub cloth_size: String,
    /// Particles of all capes.
    pub particles: usize,
    /// Constraints of all capes.
    pub constraints: usize,
    /// How many capes each path the world chose took, e.g. `{"fused (workgroup memory)": 100}`.
    pub cloth_paths: std::collections::BTreeMap<&'static str, u32>,
    /// Dispatches (GPU) or kernel calls (CPU) per frame, all capes together.
    pub dispatches_per_frame: u64,
    /// Substeps per frame.
    pub substeps: u32,
    /// Iterations per substep.
    pub iterations: u32,
    /// Timed frames.
    pub frames: usize,
    /// Median wall time per frame to a completed fence (ms), measured without GPU timestamps.
    pub ms_per_frame_median: Option<f64>,
    /// 90th percentile (ms).
    pub ms_per_frame_p90: Option<f64>,
    /// GPU time per frame from timestamps (ms, median of up to 10 more frames timed after the
    /// wall-clock ones); null on the CPU, for `separate`, or without timestamp queries.
    pub gpu_ms_per_frame: Option<f64>,
    /// Capes solved per millisecond of wall time (cloths / ms per frame).
    pub cloths_per_ms: Option<f64>,
    /// Bytes moved per frame by the model in this module's documentation.
    pub bytes_per_frame: u64,
    /// Achieved bandwidth by that model (GB/s), over the GPU time where there is one.
    pub gbps: Option<f64>,
    /// `gbps` as a percentage of `--peak-gbps`.
    pub peak_percent: Option<f64>,
    /// Largest structural stretch (edge over rest length) over every cape, final state.
    pub stretch_max: Option<f64>,
    /// Mean structural stretch over every cape, final state.
    pub stretch_mean: Option<f64>,
    /// This case's median over the `separate` median of the same backend and count.
    pub speedup_vs_separate: Option<f64>,
    /// Why the case was not measured.
    pub skipped: Option<String>,
}

/// Frames timed with GPU timestamps, after the wall-clock frames.
const GPU_TIMED_FRAMES: usize = 10;

/// Per-frame timings of one case.
struct Timing {
    wall_ms: Vec<f64>,
    gpu_ms: Vec<f64>,
}

/// What a case ran on: the capes' final positions, dispatches, and the paths taken.
struct Ran {
    timing: Timing,
    positions: Vec<Vec<glam::Vec3>>,
    dispatches: u64,
    paths: Vec<ClothPath>,
}

impl CapesConfig {
    fn validate(&self) -> Result<()> {
        let bad = |name, reason: String| Err(ChiffonError::InvalidParameter { name, reason });
        if self.cloths.is_empty() || self.cloths.contains(&0) {
            return bad(
                "--cloths",
                format!("{:?}: every count must be at least 1", self.cloths),
            );
        }
        let (c, r) = self.cloth_size;
        if c < 2 || r < 2 {
            return bad(
                "--cloth-size",
                format!("{c}x{r}: a cape needs at least 2x2 particles"),
            );
        }
        if self.paths.is_empty() {
            return bad("--path", "at least one path must run".into());
        }
        if self.frames == 0 {
            return bad("--frames", "must be at least 1".into());
        }
        self.params.validate()
    }
}

/// Times `frames` after `warmup` frames of `step`, which returns the frame's GPU time if known.
fn time(
    cfg: &CapesConfig,
    label: String,
    mut step: impl FnMut() -> Result<Option<f64>>,
) -> Result<Timing> {
    let mut progress = Progress {
        label,
        last: Instant::now(),
    };
    let mut t = Timing {
        wall_ms: Vec::new(),
        gpu_ms: Vec::new(),
    };
    let total = cfg.warmup + cfg.frames;
    for k in 0..total {
        let start = Instant::now();
        let gpu = step()?;
        if k >= cfg.warmup {
            t.wall_ms.push(start.elapsed().as_secs_f64() * 1e3);
            t.gpu_ms.extend(gpu);
        }
        progress.tick(k + 1, total);
    }
    progress.finish();
    Ok(t)
}

fn run_world(
    cfg: &CapesConfig,
    ctx: Option<&GpuContext>,
    backend: Backend,
    path: BenchPath,
    cape: &Cloth,
    count: u32,
) -> Result<Ran> {
    let config = WorldConfig {
        capacity: WorldCapacity::for_cloths(count, cape),
        paths: if path == BenchPath::Global {
            PathChoice::Global
        } else {
            PathChoice::Auto
        },
        workgroup_size: cfg.workgroup_size,
        fused_workgroup_size: cfg.fused_workgroup_size,
        ..WorldConfig::default()
    };
    let mut world = World::new(
        backend
            .on(ctx)
            .map_err(|e| ChiffonError::NoAdapter(e.to_string()))?,
        cfg.params.clone(),
        config,
    )?;
    let handles = (0..count as usize)
        .map(|k| {
            let at = cape_position(k, count as usize);
            world.add(cape, ClothOptions::new().translate(at))
        })
        .collect::<Result<Vec<_>>>()?;
    let schedule = world.schedule(STANDARD_DT)?;
    let label = format!("{} {} x{count}", backend.name(), path.name());
    // Wall time without timestamps (on lavapipe they cost as much as the work of a
    // many-pass frame), then GPU time over a few more frames with them.
    let mut timing = time(cfg, label.clone(), || {
        world.step(STANDARD_DT)?;
        // Wall time runs to the completed fence.
        world.wait()?;
        Ok(None)
    })?;
    // The state every backend and path reaches after the same frames.
    let positions = world.all_positions()?.into_iter().map(|(_, p)| p).collect();
    if let Some((ctx, mut timer)) =
        ctx.and_then(|c| Some((c, StageTimer::new(c, schedule.stages())?)))
    {
        let gpu_frames = CapesConfig {
            warmup: 0,
            frames: cfg.frames.min(GPU_TIMED_FRAMES),
            ..cfg.clone()
        };
        let timed = time(&gpu_frames, format!("{label} (gpu timer)"), || {
            world.step_timed(STANDARD_DT, Some(&mut timer))?;
            world.wait()?;
            Ok(Some(timer.read_blocking(&ctx.device)?.total_ms))
        })?;
        timing.gpu_ms = timed.gpu_ms;
    }
    let paths = handles
        .iter()
        .map(|&h| world.path(h))
        .collect::<Result<Vec<_>>>()?;
    Ok(Ran {
        timing,
        positions,
        dispatches: schedule.dispatches(),
        paths,
    })
}

fn run_separate(
    cfg: &CapesConfig,
    ctx: Option<&GpuContext>,
    backend: Backend,
    cape: &Cloth,
    count: u32,
) -> Result<Ran> {
    let label = format!("{} separate x{count}", backend.name());
    let capes: Vec<Cloth> = (0..count as usize)
        .map(|k| {
            cape.transformed(glam::Affine3A::from_translation(cape_position(
                k,
                count as usize,
            )))
        })
        .collect::<Result<_>>()?;
    let (timing, positions, dispatches) = match (backend, ctx) {
        (Backend::Gpu, Some(ctx)) => {
            let mut solvers = capes
                .iter()
                .map(|c| {
                    Solver::with_workgroup_size(
                        crate::Backend::Gpu(ctx),
                        c,
                        cfg.params.clone(),
                        cfg.workgroup_size,
                    )
                })
                .collect::<Result<Vec<_>>>()?;
            let timing = time(cfg, label, || {
                for s in &mut solvers {
                    s.step(STANDARD_DT)?;
                }
                crate::gpu::context::wait(&ctx.device)?;
                Ok(None)
            })?;
            let dispatches = solvers
                .iter_mut()
                .map(|s| Ok(s.schedule(STANDARD_DT)?.dispatches()))
                .sum::<Result<u64>>()?;
            let positions = solvers
                .iter_mut()
                .map(|s| s.positions())
                .collect::<Result<_>>()?;
            (timing, positions, dispatches)
        }
        _ => {
            let mut solvers = capes
                .iter()
                .map(|c| Solver::new(crate::Backend::Cpu, c, cfg.params.clone()))
                .collect::<Result<Vec<_>>>()?;
            let timing = time(cfg, label, || {
                for s in &mut solvers {
                    s.step(STANDARD_DT)?;
                }
                Ok(None)
            })?;
            let schedule = solvers[0].schedule(STANDARD_DT)?;
            let positions = solvers
                .iter_mut()
                .map(|s| s.positions())
                .collect::<Result<_>>()?;
            (timing, positions, schedule.dispatches() * count as u64)
        }
    };
    Ok(Ran {
        timing,
        positions,
        dispatches,
        paths: Vec::new(),
    })
}

/// Bytes a frame of `count` capes moves on `path` (see the module documentation).
fn bytes_per_frame(cfg: &CapesConfig, cape: &Cloth, count: u32, paths: &[ClothPath]) -> u64 {
    let p = &cfg.params;
    let s = p.substeps.count(STANDARD_DT) as u64;
    let (m, n) = (cape.constraint_count() as u64, cape.particle_count() as u64);
    let shake = p.projection == Projection::Shake;
    let per_pass = |_: ()| {
        let solve = super::BYTES_PER_SOLVE
            + if shake {
                super::BYTES_PER_SHAKE_SOLVE
            } else {
                0
            };
        s * p.iterations as u64 * m * solve
            + s * n * super::particle_step_bytes(p, p.tethers.is_some())
    };
    let in_workgroup = |_: ()| {
        let solve = 24 + if shake { 32 } else { 0 };
        s * p.iterations as u64 * m * solve + s * n * 32 + 32 * n
    };
    let one = |path: Option<&ClothPath>| match path {
        Some(ClothPath::Fused {
            workgroup_memory: true,
        }) => in_workgroup(()),
        _ => per_pass(()),
    };
    (0..count as usize).map(|k| one(paths.get(k))).sum()
}

/// Runs every case: all GPU cases first (the CPU reference's threads would slow lavapipe).
pub fn run(cfg: &CapesConfig) -> Result<Vec<CapesRecord>> {
    cfg.validate()?;
    let (c, r) = cfg.cloth_size;
    let cape = cape(c, r)?;
    let ctx = if cfg.backends.contains(&Backend::Gpu) {
        Some(GpuContext::new()?)
    } else {
        None
    };
    let mut out = Vec::new();
    for backend in [Backend::Gpu, Backend::Cpu] {
        if !cfg.backends.contains(&backend) {
            continue;
        }
        let adapter = match (backend, &ctx) {
            (Backend::Gpu, Some(ctx)) => ctx.describe(),
            _ => format!("cpu reference ({})", cpu_description()),
        };
        for &count in &cfg.cloths {
            for &path in &cfg.paths {
                let gpu = ctx.as_ref().filter(|_| backend == Backend::Gpu);
                let ran = match path {
                    BenchPath::Separate => run_separate(cfg, gpu, backend, &cape, count),
                    _ => run_world(cfg, gpu, backend, path, &cape, count),
                };
                let ran = match ran {
                    Ok(ran) => ran,
                    Err(e @ ChiffonError::ExceedsDeviceLimit { .. }) => {
                        out.push(record(
                            cfg,
                            backend,
                            &adapter,
                            &cape,
                            count,
                            path,
                            None,
                            Some(e.to_string()),
                        ));
                        continue;
                    }
                    Err(e) => return Err(e),
                };
                out.push(record(
                    cfg,
                    backend,
                    &adapter,
                    &cape,
                    count,
                    path,
                    Some(ran),
                    None,
                ));
            }
        }
    }
    // Speedup over `separate` on the same backend and count.
    let separate: Vec<(&'static str, u32, f64)> = out
        .iter()
        .filter(|r| r.path == BenchPath::Separate)
        .filter_map(|r| Some((r.backend, r.cloths, r.ms_per_frame_median?)))
        .collect();
    for r in &mut out {
        let base = separate
            .iter()
            .find(|s| s.0 == r.backend && s.1 == r.cloths)
            .map(|s| s.2);
        r.speedup_vs_separate = base.zip(r.ms_per_frame_median).map(|(b, m)| b / m);
    }
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
fn record(
    cfg: &CapesConfig,
    backend: Backend,
    adapter: &str,
    cape: &Cloth,
    count: u32,
    path: BenchPath,
    ran: Option<Ran>,
    skipped: Option<String>,
) -> CapesRecord {
    let (c, r) = cfg.cloth_size;
    let mut rec = CapesRecord {
        scene: "capes",
        backend: backend.name(),
        adapter: adapter.into(),
        cloths: count,
        path,
        cloth_size: format!("{c}x{r}"),
        particles: count as usize * cape.particle_count(),
        constraints: count as usize * cape.constraint_count(),
        cloth_paths: Default::default(),
        dispatches_per_frame: 0,
        substeps: cfg.params.substeps.count(STANDARD_DT),
        iterations: cfg.params.iterations,
        frames: 0,
        ms_per_frame_median: None,
        ms_per_frame_p90: None,
        gpu_ms_per_frame: None,
        cloths_per_ms: None,
        bytes_per_frame: 0,
        gbps: None,
        peak_percent: None,
        stretch_max: None,
        stretch_mean: None,
        speedup_vs_separate: None,
        skipped,
    };
    let Some(ran) = ran else {
        return rec;
    };
    let mut ms = ran.timing.wall_ms.clone();
    ms.sort_by(f64::total_cmp);
    let med = percentile(&ms, 0.5);
    let gpu = (!ran.timing.gpu_ms.is_empty()).then(|| median(ran.timing.gpu_ms.clone()));
    let bytes = bytes_per_frame(cfg, cape, count, &ran.paths);
    let best = gpu.filter(|&g| g > 0.0).unwrap_or(med);
    let gbps = bytes as f64 / (best * 1e-3) / 1e9;
    let stretches: Vec<crate::quality::Stretch> = ran
        .positions
        .iter()
        .map(|p| crate::quality::stretch(cape, p))
        .collect();
    for p in &ran.paths {
        *rec.cloth_paths.entry(p.name()).or_default() += 1;
    }
    rec.dispatches_per_frame = ran.dispatches;
    rec.frames = ms.len();
    rec.ms_per_frame_median = Some(med);
    rec.ms_per_frame_p90 = Some(percentile(&ms, 0.9));
    rec.gpu_ms_per_frame = gpu;
    rec.cloths_per_ms = Some(count as f64 / med);
    rec.bytes_per_frame = bytes;
    rec.gbps = Some(gbps);
    rec.peak_percent = cfg.peak_gbps.map(|p| 100.0 * gbps / p);
    rec.stretch_max = stretches.iter().map(|s| s.max).reduce(f64::max);
    rec.stretch_mean =
        Some(stretches.iter().map(|s| s.mean).sum::<f64>() / stretches.len().max(1) as f64);
    rec
}

/// The aligned table printed on stdout.
pub fn table(records: &[CapesRecord]) -> String {
    let mut s = format!(
        "{:<4} {:>6} {:<9} {:>9} {:>7} {:>10} {:>10} {:>9} {:>9} {:>8} {:>8} {:>9} {:>9}\n",
        "",
        "cloths",
        "path",
        "particles",
        "disp/f",
        "ms med",
        "ms p90",
        "gpu ms",
        "cloth/ms",
        "GB/s",
        "str.max",
        "vs sep.",
        "paths"
    );
    for r in records {
        if let Some(why) = &r.skipped {
            s.push_str(&format!(
                "{:<4} {:>6} {:<9} skipped: {why}\n",
                r.backend,
                r.cloths,
                r.path.name()
            ));
            continue;
        }
        let paths: Vec<String> = r
            .cloth_paths
            .iter()
            .map(|(k, v)| format!("{v} {k}"))
            .collect();
        s.push_str(&format!(
            "{:<4} {:>6} {:<9} {:>9} {:>7} {:>10} {:>10} {:>9} {:>9} {:>8} {:>8} {:>9} {}\n",
            r.backend,
            r.cloths,
            r.path.name(),
            r.particles,
            r.dispatches_per_frame,
            opt(r.ms_per_frame_median, 3),
            opt(r.ms_per_frame_p90, 3),
            opt(r.gpu_ms_per_frame, 3),
            opt(r.cloths_per_ms, 3),
            opt(r.gbps, 2),
            opt(r.stretch_max, 4),
            r.speedup_vs_separate
                .map_or("-".into(), |x| format!("{x:.2}x")),
            paths.join(", "),
        ));
    }
    s
}

/// ms per frame against cloths (log-log), one line per backend and path.
struct CapesPlot<'a>(&'a [CapesRecord]);

impl Figure for CapesPlot<'_> {
    fn draw<DB: DrawingBackend>(&self, area: DrawingArea<DB, plotters::coord::Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        area.fill(&WHITE)?;
        let measured: Vec<&CapesRecord> = self.0.iter().filter(|r| r.skipped.is_none()).collect();
        let points: Vec<(f64, f64)> = measured
            .iter()
            .filter_map(|r| Some((r.cloths as f64, r.ms_per_frame_median?)))
            .collect();
        if points.is_empty() {
            return Ok(());
        }
        let (x0, x1) = points
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
        let (y0, y1) = points
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
        let mut chart = ChartBuilder::on(&area)
            .caption("many capes: ms per frame", ("sans-serif", 22))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(
                (x0 / 1.5..x1 * 1.5).log_scale(),
                (y0 / 2.0..y1 * 2.0).log_scale(),
            )?;
        chart
            .configure_mesh()
            .x_desc("number of capes")
            .y_desc("ms per frame")
            .label_style(("sans-serif", 14))
            .draw()?;
        let colors = [&BLUE, &GREEN, &RED];
        for backend in ["gpu", "cpu"] {
            for (path, color) in BenchPath::ALL.into_iter().zip(colors) {
                let line: Vec<(f64, f64)> = measured
                    .iter()
                    .filter(|r| r.backend == backend && r.path == path)
                    .filter_map(|r| Some((r.cloths as f64, r.ms_per_frame_median?)))
                    .collect();
                if line.is_empty() {
                    continue;
                }
                let style = if backend == "gpu" {
                    color.stroke_width(2)
                } else {
                    color.mix(0.5).stroke_width(1)
                };
                chart
                    .draw_series(LineSeries::new(line.iter().copied(), style))?
                    .label(format!("{backend} {}", path.name()))
                    .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], style));
                chart.draw_series(line.iter().map(|&p| Circle::new(p, 4, style.filled())))?;
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .label_font(("sans-serif", 14))
            .draw()?;
        area.present()?;
        Ok(())
    }
}

/// Runs the capes benchmark as the command line asks: header, table, JSON, plot.
pub fn run_and_report(
    cfg: &CapesConfig,
    outputs: &super::BenchOutputs,
) -> Result<Vec<CapesRecord>> {
    let p = &cfg.params;
    println!(
        "chiffon bench: capes scene ({}x{} capes released flat from their collars, 60 fps); {} substep(s) × {} iteration(s), tethers {}",
        cfg.cloth_size.0,
        cfg.cloth_size.1,
        p.substeps.count(STANDARD_DT),
        p.iterations,
        if p.tethers.is_some() { "on" } else { "off" },
    );
    println!("cpu: {}", cpu_description());
    let records = run(cfg)?;
    if let Some(r) = records.iter().find(|r| r.backend == "gpu") {
        println!("gpu: {}", r.adapter);
    }
    print!("{}", table(&records));
    if let Some(path) = &outputs.json {
        let text = serde_json::to_string_pretty(&records).expect("records serialize");
        std::fs::write(path, text).map_err(|e| ChiffonError::Io {
            path: path.display().to_string(),
            error: e,
        })?;
        println!("wrote {}", path.display());
    }
    if let Some(path) = &outputs.plot {
        crate::tools::plot::save(path, (900, 600), &CapesPlot(&records))?;
        println!("wrote {}", path.display());
    }
    Ok(records)
}
