//! The headless benchmark, shared by `cargo bench` and `chiffon bench`.
//!
//! The standard scene ([`crate::tools::scenes::standard_cloth`]), so results compare with other cloth
//! solvers: an N×N grid over 1 m × 1 m lying flat at y = 0, the two corners of one edge pinned,
//! 0.2 kg, gravity −9.81 m/s², 60 fps, structural + shear + bend constraints, no colliders, and
//! the library's default solver settings unless the flags say otherwise.
//!
//! Bytes moved follow the model in the design notes (§6), extended for XPBD: a constraint solve
//! reads two particles and the 16-byte record, reads and writes its multiplier and writes the
//! two particles back (88 B), plus the two previous positions with SHAKE (32 B); integrate reads
//! and writes position and previous position (64 B per particle), collide (when there is a
//! collider) reads each position (16 B), tethers read a particle, its slots and anchors and
//! write it back (80 B).

pub mod capes;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use plotters::prelude::*;
use serde::Serialize;

use crate::Solver;
use crate::cloth::Cloth;
use crate::config::DEFAULT_WORKGROUP_SIZE;
use crate::error::{ChiffonError, Result};
use crate::gpu::{GpuContext, StageTimer, StageTimes};
use crate::params::{SolverParams, Substeps};
use crate::schedule::{FrameSchedule, Stage};
use crate::tools::BackendKind as Backend;
use crate::tools::plot::{DrawResult, Figure};
use crate::tools::scenes::{STANDARD_DT, standard_cloth, standard_params};

/// Bytes one constraint solve moves (two vec4 reads + two writes + the record + the multiplier).
pub const BYTES_PER_SOLVE: u64 = 88;
/// Extra bytes of a solve with SHAKE (the two previous positions).
pub const BYTES_PER_SHAKE_SOLVE: u64 = 32;
/// Bytes integrate moves per particle per substep.
pub const BYTES_PER_INTEGRATE_STEP: u64 = 64;
/// Bytes collide moves per particle per substep (when there is a collider; the standard scene
/// has none, so its frames have no collide stage).
pub const BYTES_PER_COLLIDE_STEP: u64 = 16;
/// Bytes the tether pass moves per particle per substep (the particle, two slots, two anchors,
/// the write).
pub const BYTES_PER_TETHER_STEP: u64 = 80;

/// Bytes the per-particle stages move per particle per substep under `params`: integrate,
/// collide when there is a collider, tethers when they run (`tethers`).
fn particle_step_bytes(params: &SolverParams, tethers: bool) -> u64 {
    let collide = if params.has_colliders() {
        BYTES_PER_COLLIDE_STEP
    } else {
        0
    };
    let tethers = if tethers { BYTES_PER_TETHER_STEP } else { 0 };
    BYTES_PER_INTEGRATE_STEP + collide + tethers
}

/// What to benchmark (the command line's `BenchArgs` in [`crate::tools::cli`] fill it).
#[derive(Clone, Debug, PartialEq)]
pub struct BenchConfig {
    /// Grid sizes N (N×N particles). Default 64, 128, 256.
    pub sizes: Vec<u32>,
    /// The solver's parameters. Default [`standard_params`] (the library's defaults).
    pub params: SolverParams,
    /// Timed frames per case. Default 60.
    pub frames: usize,
    /// Untimed frames before timing. Default 10.
    pub warmup: usize,
    /// Which solvers to run. Default both.
    pub backends: Vec<Backend>,
    /// Structural, shear and bend constraints on or off. Default all on.
    pub kinds: [bool; 3],
    /// The device's peak memory bandwidth (GB/s), to report achieved bandwidth as a percentage.
    pub peak_gbps: Option<f64>,
    /// Threads per workgroup of the solver kernels. Default [`DEFAULT_WORKGROUP_SIZE`].
    pub workgroup_size: u32,
    /// Smallest sizes and few frames: seconds in all (CI runs this).
    pub quick: bool,
}

impl Default for BenchConfig {
    fn default() -> Self {
        Self {
            sizes: vec![64, 128, 256],
            params: standard_params(),
            frames: 60,
            warmup: 10,
            backends: Backend::ALL.to_vec(),
            kinds: [true; 3],
            peak_gbps: None,
            workgroup_size: DEFAULT_WORKGROUP_SIZE,
            quick: false,
        }
    }
}

/// Where the command line wants the results written, beside the table on stdout.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BenchOutputs {
    /// One JSON record per case.
    pub json: Option<PathBuf>,
    /// ms/frame and constraint solves/s against particles (log-log), .svg or .png.
    pub plot: Option<PathBuf>,
}

/// One measured (or skipped) case.
#[derive(Clone, Debug, Serialize)]
pub struct BenchRecord {
    /// Backend name (`gpu` or `cpu`).
    pub backend: String,
    /// What ran it: the adapter, or the CPU model.
    pub adapter: String,
    /// Grid side N (N×N particles).
    pub n: u32,
    /// Particles.
    pub particles: usize,
    /// Constraints.
    pub constraints: usize,
    /// Colors of the constraints.
    pub colors: usize,
    /// Constraints per color, in solve order.
    pub color_sizes: Vec<u32>,
    /// Dispatches (GPU) or kernel calls (CPU) per frame, from the frame schedule.
    pub dispatches_per_frame: u64,
    /// Constraint iterations per substep.
    pub iterations: u32,
    /// Substeps per frame (at the standard scene's 60 fps).
    pub substeps: u32,
    /// The solver frequency (Hz) the substeps come from, or null for fixed substeps.
    pub frequency_hz: Option<f32>,
    /// Constraint direction ([`crate::params::Projection::name`]).
    pub projection: &'static str,
    /// True when tethers ran.
    pub tethers: bool,
    /// Timed frames.
    pub frames: usize,
    /// Median wall time per frame to a completed fence (ms).
    pub ms_per_frame_median: Option<f64>,
    /// 90th percentile of the wall time per frame (ms).
    pub ms_per_frame_p90: Option<f64>,
    /// GPU time from the frame's first timestamp to its last (null where not measured).
    pub gpu_ms_per_frame: Option<f64>,
    /// GPU time of each stage of the frame (ms, median over the timed frames), by
    /// [`Stage::name`]; empty where not measured.
    pub gpu_stage_ms: std::collections::BTreeMap<&'static str, f64>,
    /// Constraint solves per second.
    pub constraint_solves_per_s: Option<f64>,
    /// Bytes moved per frame by the design notes' model.
    pub bytes_per_frame: u64,
    /// Achieved bandwidth by that model (GB/s).
    pub gbps: Option<f64>,
    /// Achieved bandwidth as a percentage of `--peak-gbps`.
    pub peak_percent: Option<f64>,
    /// GPU memory per particle (bytes).
    pub gpu_bytes_per_particle: Option<f64>,
    /// Mean height of the final state (m).
    pub mean_y: Option<f64>,
    /// Mean structural edge length over rest length, final state.
    pub stretch_mean: Option<f64>,
    /// 99th percentile of structural edge length over rest length, final state.
    pub stretch_p99: Option<f64>,
    /// Largest structural edge length over rest length, final state.
    pub stretch_max: Option<f64>,
    /// CPU reference median / this backend's median, on the same case.
    pub speedup_vs_cpu: Option<f64>,
    /// Why the case was not measured (null when it was).
    pub skipped: Option<String>,
}

impl BenchConfig {
    fn effective(&self) -> Self {
        let mut a = self.clone();
        if a.quick {
            a.sizes = vec![16, 32];
            a.frames = a.frames.min(5);
            a.warmup = a.warmup.min(1);
        }
        a
    }

    fn validate(&self) -> Result<()> {
        let bad = |name, reason: String| Err(ChiffonError::InvalidParameter { name, reason });
        if self.sizes.is_empty() || self.sizes.iter().any(|&n| n < 2) {
            return bad(
                "--sizes",
                format!("{:?}: every N must be at least 2", self.sizes),
            );
        }
        if self.frames == 0 {
            return bad("--frames", "must be at least 1".into());
        }
        if self.backends.is_empty() {
            return bad("--backend", "at least one backend must run".into());
        }
        if self.kinds == [false; 3] {
            return bad("constraint kinds", "at least one kind must stay on".into());
        }
        if let Some(p) = self.peak_gbps
            && !(p.is_finite() && p > 0.0)
        {
            return bad("--peak-gbps", format!("{p} must be a positive bandwidth"));
        }
        Ok(())
    }
}

fn percentile(sorted_ms: &[f64], p: f64) -> f64 {
    let k = ((sorted_ms.len() - 1) as f64 * p).round() as usize;
    sorted_ms[k]
}

/// Prints a progress line on stderr at most twice a second.
struct Progress {
    label: String,
    last: Instant,
}

impl Progress {
    fn tick(&mut self, done: usize, total: usize) {
        if self.last.elapsed() > Duration::from_millis(500) {
            eprint!("\r  {}: frame {done}/{total}   ", self.label);
            self.last = Instant::now();
        }
    }
    fn finish(&self) {
        eprint!("\r{:60}\r", "");
    }
}

struct Timing {
    wall_ms: Vec<f64>,
    gpu: Vec<StageTimes>,
}

fn time_gpu(
    ctx: &GpuContext,
    solver: &mut Solver,
    mut timer: Option<&mut StageTimer>,
    cfg: &BenchConfig,
    progress: &mut Progress,
) -> Result<Timing> {
    let mut t = Timing {
        wall_ms: Vec::with_capacity(cfg.frames),
        gpu: Vec::with_capacity(cfg.frames),
    };
    let total = cfg.warmup + cfg.frames;
    for k in 0..total {
        let start = Instant::now();
        solver.step_timed(STANDARD_DT, timer.as_deref_mut())?;
        // Wall time runs to the completed fence.
        solver.wait()?;
        let wall = start.elapsed().as_secs_f64() * 1e3;
        if k >= cfg.warmup {
            t.wall_ms.push(wall);
            if let Some(timer) = timer.as_deref() {
                t.gpu.push(timer.read_blocking(&ctx.device)?);
            }
        }
        progress.tick(k + 1, total);
    }
    Ok(t)
}

fn time_cpu(solver: &mut Solver, cfg: &BenchConfig, progress: &mut Progress) -> Result<Timing> {
    let mut wall_ms = Vec::with_capacity(cfg.frames);
    let total = cfg.warmup + cfg.frames;
    for k in 0..total {
        let start = Instant::now();
        solver.step(STANDARD_DT)?;
        if k >= cfg.warmup {
            wall_ms.push(start.elapsed().as_secs_f64() * 1e3);
        }
        progress.tick(k + 1, total);
    }
    Ok(Timing {
        wall_ms,
        gpu: Vec::new(),
    })
}

fn skipped(backend: Backend, adapter: &str, n: u32, cfg: &BenchConfig, why: String) -> BenchRecord {
    BenchRecord {
        backend: backend.name().into(),
        adapter: adapter.into(),
        n,
        particles: n as usize * n as usize,
        constraints: 0,
        colors: 0,
        color_sizes: Vec::new(),
        dispatches_per_frame: 0,
        iterations: cfg.params.iterations,
        substeps: cfg.params.substeps.count(STANDARD_DT),
        frequency_hz: frequency(&cfg.params),
        projection: cfg.params.projection.name(),
        tethers: cfg.params.tethers.is_some(),
        frames: 0,
        ms_per_frame_median: None,
        ms_per_frame_p90: None,
        gpu_ms_per_frame: None,
        gpu_stage_ms: Default::default(),
        constraint_solves_per_s: None,
        bytes_per_frame: 0,
        gbps: None,
        peak_percent: None,
        gpu_bytes_per_particle: None,
        mean_y: None,
        stretch_mean: None,
        stretch_p99: None,
        stretch_max: None,
        speedup_vs_cpu: None,
        skipped: Some(why),
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    percentile(&v, 0.5)
}

/// The solver frequency of `p`, if its substeps come from one.
fn frequency(p: &SolverParams) -> Option<f32> {
    match p.substeps {
        Substeps::Frequency(f) => Some(f),
        Substeps::Fixed(_) => None,
    }
}

/// One measured case. `schedule` is the frame schedule both solvers run.
#[allow(clippy::too_many_arguments)]
fn record(
    backend: Backend,
    adapter: &str,
    cloth: &Cloth,
    cfg: &BenchConfig,
    timing: &Timing,
    schedule: FrameSchedule,
    positions: &[glam::Vec3],
) -> BenchRecord {
    let dispatches = schedule.dispatches();
    let tethers = schedule.tethers;
    let mut ms = timing.wall_ms.clone();
    ms.sort_by(f64::total_cmp);
    let median_ms = percentile(&ms, 0.5);
    let gpu_ms =
        (!timing.gpu.is_empty()).then(|| median(timing.gpu.iter().map(|t| t.total_ms).collect()));
    let gpu_stage_ms = if timing.gpu.is_empty() {
        Default::default()
    } else {
        Stage::ALL
            .into_iter()
            .filter(|s| {
                timing
                    .gpu
                    .iter()
                    .any(|t| t.stages.iter().any(|x| x.0 == *s))
            })
            .map(|s| {
                (
                    s.name(),
                    median(timing.gpu.iter().map(|t| t.stage(s)).collect()),
                )
            })
            .collect()
    };
    // Bandwidth and throughput use the device's own time where there is one.
    let best_ms = gpu_ms.filter(|&g| g > 0.0).unwrap_or(median_ms);
    let (m, n) = (
        cloth.constraint_count() as u64,
        cloth.particle_count() as u64,
    );
    let p = &cfg.params;
    let s = p.substeps.count(STANDARD_DT) as u64;
    let solves = s * p.iterations as u64 * m;
    let per_solve = BYTES_PER_SOLVE
        + if p.projection == crate::params::Projection::Shake {
            BYTES_PER_SHAKE_SOLVE
        } else {
            0
        };
    let bytes = solves * per_solve + s * n * particle_step_bytes(p, tethers);
    let gbps = bytes as f64 / (best_ms * 1e-3) / 1e9;
    let mean_y = positions.iter().map(|p| p.y as f64).sum::<f64>() / positions.len() as f64;
    let stretch = crate::quality::stretch(cloth, positions);
    BenchRecord {
        backend: backend.name().into(),
        adapter: adapter.into(),
        n: cloth.grid().map_or(0, |g| g.columns),
        particles: n as usize,
        constraints: m as usize,
        colors: cloth.colors().len(),
        color_sizes: cloth.color_sizes(),
        dispatches_per_frame: dispatches,
        iterations: p.iterations,
        substeps: s as u32,
        frequency_hz: frequency(p),
        projection: p.projection.name(),
        tethers,
        frames: ms.len(),
        ms_per_frame_median: Some(median_ms),
        ms_per_frame_p90: Some(percentile(&ms, 0.9)),
        gpu_ms_per_frame: gpu_ms,
        gpu_stage_ms,
        constraint_solves_per_s: Some(solves as f64 / (best_ms * 1e-3)),
        bytes_per_frame: bytes,
        gbps: Some(gbps),
        peak_percent: cfg.peak_gbps.map(|p| 100.0 * gbps / p),
        gpu_bytes_per_particle: None,
        mean_y: Some(mean_y),
        stretch_mean: Some(stretch.mean),
        stretch_p99: Some(stretch.p99),
        stretch_max: Some(stretch.max),
        speedup_vs_cpu: None,
        skipped: None,
    }
}

/// Runs every case and returns the records (GPU and CPU per size, as asked).
pub fn run(cfg: &BenchConfig) -> Result<Vec<BenchRecord>> {
    let cfg = cfg.effective();
    cfg.validate()?;
    let want_gpu = cfg.backends.contains(&Backend::Gpu);
    let want_cpu = cfg.backends.contains(&Backend::Cpu);
    let ctx = if want_gpu {
        Some(GpuContext::new()?)
    } else {
        None
    };
    let adapter = ctx.as_ref().map(GpuContext::describe).unwrap_or_default();
    let cpu_name = format!("cpu reference ({})", cpu_description());
    let params = cfg.params.clone();
    let mut out = Vec::new();

    // All GPU cases run before any CPU case: the CPU reference's worker threads would otherwise
    // compete with a CPU-based driver such as lavapipe and distort its timings.
    let mut clothes = Vec::new();
    for &n in &cfg.sizes {
        match standard_cloth(n, cfg.kinds) {
            Ok(c) => clothes.push((n, Some(c))),
            Err(e) => {
                for (want, backend, a) in [
                    (want_gpu, Backend::Gpu, &adapter),
                    (want_cpu, Backend::Cpu, &cpu_name),
                ] {
                    if want {
                        out.push(skipped(backend, a, n, &cfg, e.to_string()));
                    }
                }
                clothes.push((n, None));
            }
        }
    }
    if let Some(ctx) = &ctx {
        for (n, cloth) in &clothes {
            let Some(cloth) = cloth else { continue };
            let solver = Solver::with_workgroup_size(
                crate::Backend::Gpu(ctx),
                cloth,
                params.clone(),
                cfg.workgroup_size,
            );
            let mut solver = match solver {
                Ok(s) => s,
                Err(e @ ChiffonError::ExceedsDeviceLimit { .. }) => {
                    out.push(skipped(Backend::Gpu, &adapter, *n, &cfg, e.to_string()));
                    continue;
                }
                Err(e) => return Err(e),
            };
            let mut timer = StageTimer::new(ctx, solver.schedule(STANDARD_DT)?.stages());
            let mut progress = Progress {
                label: format!("gpu {n}x{n}"),
                last: Instant::now(),
            };
            let timing = time_gpu(ctx, &mut solver, timer.as_mut(), &cfg, &mut progress)?;
            progress.finish();
            let positions = solver.positions()?;
            let schedule = solver.schedule(STANDARD_DT)?;
            let mut r = record(
                Backend::Gpu,
                &adapter,
                cloth,
                &cfg,
                &timing,
                schedule,
                &positions,
            );
            r.gpu_bytes_per_particle = solver
                .gpu_bytes()
                .map(|b| b as f64 / cloth.particle_count() as f64);
            out.push(r);
        }
    }
    if want_cpu {
        for (n, cloth) in &clothes {
            let Some(cloth) = cloth else { continue };
            let mut progress = Progress {
                label: format!("cpu {n}x{n}"),
                last: Instant::now(),
            };
            let mut solver = Solver::new(crate::Backend::Cpu, cloth, params.clone())?;
            let timing = time_cpu(&mut solver, &cfg, &mut progress)?;
            progress.finish();
            // The CPU runs the same schedule; "dispatches" are its kernel calls.
            let schedule = solver.schedule(STANDARD_DT)?;
            let r = record(
                Backend::Cpu,
                &cpu_name,
                cloth,
                &cfg,
                &timing,
                schedule,
                &solver.positions()?,
            );
            out.push(r);
        }
    }
    // Speedup of each GPU case over the CPU reference on the same N.
    let cpu_medians: Vec<(u32, f64)> = out
        .iter()
        .filter(|r| r.backend == "cpu")
        .filter_map(|r| Some((r.n, r.ms_per_frame_median?)))
        .collect();
    for r in out.iter_mut().filter(|r| r.backend == "gpu") {
        let cpu = cpu_medians.iter().find(|(n, _)| *n == r.n).map(|c| c.1);
        r.speedup_vs_cpu = cpu.zip(r.ms_per_frame_median).map(|(c, g)| c / g);
    }
    out.sort_by_key(|r| (r.n, r.backend != "gpu"));
    Ok(out)
}

/// The CPU model and the threads available, for the report header.
pub fn cpu_description() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!("{model}, {threads} threads")
}

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".into(), |x| format!("{x:.digits$}"))
}

/// The aligned table printed on stdout.
pub fn table(records: &[BenchRecord]) -> String {
    let mut s = format!(
        "{:<4} {:>5} {:>9} {:>9} {:>6} {:>7} {:>9} {:>9} {:>9} {:>10} {:>7} {:>6} {:>6} {:>8} {:>8} {:>8} {:>8} {:>8}\n",
        "",
        "N",
        "particles",
        "constr.",
        "colors",
        "disp/f",
        "ms med",
        "ms p90",
        "gpu ms",
        "Msolves/s",
        "GB/s",
        "%peak",
        "B/part",
        "mean y",
        "str.mean",
        "str.p99",
        "str.max",
        "speedup"
    );
    for r in records {
        if let Some(why) = &r.skipped {
            s.push_str(&format!("{:<4} {:>5}  skipped: {why}\n", r.backend, r.n));
            continue;
        }
        s.push_str(&format!(
            "{:<4} {:>5} {:>9} {:>9} {:>6} {:>7} {:>9} {:>9} {:>9} {:>10} {:>7} {:>6} {:>6} {:>8} {:>8} {:>8} {:>8} {:>8}\n",
            r.backend,
            r.n,
            r.particles,
            r.constraints,
            r.colors,
            r.dispatches_per_frame,
            opt(r.ms_per_frame_median, 3),
            opt(r.ms_per_frame_p90, 3),
            opt(r.gpu_ms_per_frame, 3),
            opt(r.constraint_solves_per_s.map(|x| x / 1e6), 1),
            opt(r.gbps, 2),
            opt(r.peak_percent, 1),
            opt(r.gpu_bytes_per_particle, 1),
            opt(r.mean_y, 4),
            opt(r.stretch_mean, 4),
            opt(r.stretch_p99, 4),
            opt(r.stretch_max, 4),
            r.speedup_vs_cpu.map_or("-".into(), |x| format!("{x:.2}x")),
        ));
    }
    // GPU time per stage of the frame schedule, where the adapter has timestamps.
    for r in records.iter().filter(|r| !r.gpu_stage_ms.is_empty()) {
        let stages: Vec<String> = Stage::ALL
            .iter()
            .filter_map(|st| {
                Some(format!(
                    "{} {:.3}",
                    st.name(),
                    r.gpu_stage_ms.get(st.name())?
                ))
            })
            .collect();
        s.push_str(&format!(
            "{:<4} {:>5}  gpu ms per stage: {}\n",
            r.backend,
            r.n,
            stages.join(", ")
        ));
    }
    s
}

struct BenchPlot<'a>(&'a [BenchRecord]);

/// One plotted quantity of a record.
type Metric = fn(&BenchRecord) -> Option<f64>;

impl Figure for BenchPlot<'_> {
    fn draw<DB: DrawingBackend>(&self, area: DrawingArea<DB, plotters::coord::Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        area.fill(&WHITE)?;
        let panels = area.split_evenly((1, 2));
        let measured: Vec<&BenchRecord> = self.0.iter().filter(|r| r.skipped.is_none()).collect();
        let series = |metric: Metric| {
            ["gpu", "cpu"].map(|b| {
                measured
                    .iter()
                    .filter(|r| r.backend == b)
                    .filter_map(|r| Some((r.particles as f64, metric(r)?)))
                    .collect::<Vec<_>>()
            })
        };
        let charts: [(&str, Metric); 2] = [
            ("ms per frame", |r| r.ms_per_frame_median),
            ("constraint solves per s", |r| r.constraint_solves_per_s),
        ];
        for (panel, (title, metric)) in panels.iter().zip(charts) {
            let lines = series(metric);
            let all: Vec<(f64, f64)> = lines.iter().flatten().copied().collect();
            if all.is_empty() {
                continue;
            }
            let (x0, x1) = all
                .iter()
                .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
            let (y0, y1) = all
                .iter()
                .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
            let mut chart = ChartBuilder::on(panel)
                .caption(title, ("sans-serif", 22))
                .margin(12)
                .x_label_area_size(40)
                .y_label_area_size(70)
                .build_cartesian_2d(
                    (x0 / 1.5..x1 * 1.5).log_scale(),
                    (y0 / 2.0..y1 * 2.0).log_scale(),
                )?;
            chart
                .configure_mesh()
                .x_desc("particles")
                .y_desc(title)
                .x_label_formatter(&|v| format!("{v:.0e}"))
                .y_label_formatter(&|v| format!("{v:.0e}"))
                .label_style(("sans-serif", 14))
                .draw()?;
            for (points, (name, color)) in lines.iter().zip([("gpu", &BLUE), ("cpu", &RED)]) {
                if points.is_empty() {
                    continue;
                }
                chart
                    .draw_series(LineSeries::new(
                        points.iter().copied(),
                        color.stroke_width(2),
                    ))?
                    .label(name)
                    .legend(move |(x, y)| {
                        PathElement::new([(x, y), (x + 18, y)], color.stroke_width(2))
                    });
                chart.draw_series(points.iter().map(|&p| Circle::new(p, 4, color.filled())))?;
            }
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .label_font(("sans-serif", 14))
                .draw()?;
        }
        area.present()?;
        Ok(())
    }
}

/// One line on a cloth's coloring: "`what`: C colors, sizes a/b/c (largest/smallest x.xx)".
pub fn describe_colors(what: &str, sizes: &[u32]) -> String {
    let max = sizes.iter().copied().max().unwrap_or(0);
    let min = sizes.iter().copied().min().unwrap_or(0);
    let list: Vec<String> = sizes.iter().map(u32::to_string).collect();
    format!(
        "{what}: {} colors, constraints per color {} (largest/smallest {:.2})",
        sizes.len(),
        list.join("/"),
        max as f64 / min.max(1) as f64
    )
}

/// Runs the benchmark as the command line asks: header, progress, table, JSON and plot.
pub fn run_and_report(cfg: &BenchConfig, outputs: &BenchOutputs) -> Result<Vec<BenchRecord>> {
    let p = &cfg.params;
    println!(
        "chiffon bench: standard scene (N×N over 1 m², flat, corners pinned, 60 fps); {} substep(s){} × {} iteration(s), {} projection, tethers {}, coarse levels {}, compliance stretch/shear/bend {}/{}/{} m/N",
        p.substeps.count(STANDARD_DT),
        frequency(p).map_or(String::new(), |f| format!(" ({f} Hz)")),
        p.iterations,
        p.projection.name(),
        if p.tethers.is_some() { "on" } else { "off" },
        if p.coarse_levels { "on" } else { "off" },
        p.compliance.stretch,
        p.compliance.shear,
        p.compliance.bend,
    );
    println!("cpu: {}", cpu_description());
    let records = run(cfg)?;
    if let Some(r) = records.iter().find(|r| r.backend == "gpu") {
        println!("gpu: {}", r.adapter);
    }
    print!("{}", table(&records));
    let mut shown = Vec::new();
    for r in records.iter().filter(|r| r.colors > 0) {
        if !shown.contains(&r.n) {
            shown.push(r.n);
            println!(
                "{}",
                describe_colors(&format!("{0}x{0}", r.n), &r.color_sizes)
            );
        }
    }
    if let Some(path) = &outputs.json {
        let text = serde_json::to_string_pretty(&records).expect("records serialize");
        std::fs::write(path, text).map_err(|e| ChiffonError::Io {
            path: path.display().to_string(),
            error: e,
        })?;
        println!("wrote {}", path.display());
    }
    if let Some(path) = &outputs.plot {
        crate::tools::plot::save(path, (1200, 500), &BenchPlot(&records))?;
        println!("wrote {}", path.display());
    }
    Ok(records)
}
