//! The headless benchmark, shared by `cargo bench` and `chiffon bench`.
//!
//! The standard scene, so results compare with other cloth solvers: an N×N grid over 1 m × 1 m
//! lying flat at y = 0, the two corners of one edge pinned, 0.2 kg, gravity −9.81 m/s², 60 fps,
//! 1 substep × 10 iterations, structural + shear + bend constraints, damping 0.5/s, no colliders.
//!
//! Bytes moved follow the model in the design notes (§6): a constraint solve reads two particles
//! and the 16-byte record and writes the two particles back (80 B); integrate reads and writes
//! position and previous position (64 B per particle); collide reads each position (16 B).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use plotters::prelude::*;
use serde::Serialize;

use crate::cloth::{Cloth, ClothBuilder, ConstraintKind, Layout, Pinning};
use crate::cpu::CpuSolver;
use crate::error::{ChiffonError, Result};
use crate::gpu::timer::PassTimer;
use crate::gpu::{GpuContext, GpuSolver};
use crate::params::SolverParams;
use crate::plot::{DrawResult, Figure};
use crate::solver::Solver;

/// Bytes one constraint solve moves (two vec4 reads + two writes + the record).
pub const BYTES_PER_SOLVE: u64 = 80;
/// Bytes integrate (64) and collide (16) move per particle per substep.
pub const BYTES_PER_PARTICLE_STEP: u64 = 80;

/// Which solvers to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
pub enum BenchBackend {
    Gpu,
    Cpu,
    Both,
}

/// Benchmark options (the flags of `chiffon bench` and `cargo bench -- ...`).
#[derive(Args, Debug, Clone)]
pub struct BenchArgs {
    /// Grid sizes N (N×N particles), comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "64,128,256")]
    pub sizes: Vec<u32>,
    /// Constraint iterations per substep.
    #[arg(long, default_value_t = 10)]
    pub iterations: u32,
    /// Substeps per frame.
    #[arg(long, default_value_t = 1)]
    pub substeps: u32,
    /// Timed frames per case.
    #[arg(long, default_value_t = 60)]
    pub frames: usize,
    /// Untimed frames before timing.
    #[arg(long, default_value_t = 10)]
    pub warmup: usize,
    /// Which solvers to run.
    #[arg(long, value_enum, default_value_t = BenchBackend::Both)]
    pub backend: BenchBackend,
    /// Turn off structural constraints.
    #[arg(long)]
    pub no_structural: bool,
    /// Turn off shear constraints.
    #[arg(long)]
    pub no_shear: bool,
    /// Turn off bend constraints.
    #[arg(long)]
    pub no_bend: bool,
    /// The device's peak memory bandwidth (GB/s), to report achieved bandwidth as a percentage.
    #[arg(long, allow_negative_numbers = true)]
    pub peak_gbps: Option<f64>,
    /// Threads per workgroup of the solver kernels.
    #[arg(long, default_value_t = crate::gpu::solver::DEFAULT_WORKGROUP_SIZE)]
    pub workgroup_size: u32,
    /// Write one JSON record per case to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Plot ms/frame and constraint solves/s against particles (log-log) to .svg or .png.
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Smallest sizes and few frames: seconds in all (CI runs this).
    #[arg(long)]
    pub quick: bool,
}

/// One measured (or skipped) case.
#[derive(Clone, Debug, Serialize)]
pub struct BenchRecord {
    pub backend: String,
    pub adapter: String,
    pub n: u32,
    pub particles: usize,
    pub constraints: usize,
    pub colors: usize,
    pub dispatches_per_frame: u64,
    pub iterations: u32,
    pub substeps: u32,
    pub frames: usize,
    pub ms_per_frame_median: Option<f64>,
    pub ms_per_frame_p90: Option<f64>,
    /// GPU time between the frame pass's timestamps (null where not measured).
    pub gpu_ms_per_frame: Option<f64>,
    pub constraint_solves_per_s: Option<f64>,
    pub bytes_per_frame: u64,
    pub gbps: Option<f64>,
    pub peak_percent: Option<f64>,
    pub gpu_bytes_per_particle: Option<f64>,
    pub mean_y: Option<f64>,
    pub stretch_mean: Option<f64>,
    pub stretch_max: Option<f64>,
    /// CPU reference median / this backend's median, on the same case.
    pub speedup_vs_cpu: Option<f64>,
    /// Why the case was not measured (null when it was).
    pub skipped: Option<String>,
}

impl BenchArgs {
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
        if self.no_structural && self.no_shear && self.no_bend {
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

/// The standard scene's cloth at N×N.
pub fn standard_cloth(n: u32, args: &BenchArgs) -> Result<Cloth> {
    let on = |off: bool| (!off).then_some(1.0);
    ClothBuilder::grid(n, n)
        .spacing(1.0 / (n - 1) as f32)
        .total_mass(0.2)
        .layout(Layout::Flat { height: 0.0 })
        .pinning(Pinning::Corners)
        .constraint(ConstraintKind::Structural, on(args.no_structural))
        .constraint(ConstraintKind::Shear, on(args.no_shear))
        .constraint(ConstraintKind::Bend, on(args.no_bend))
        .build()
}

/// The standard scene's parameters.
pub fn standard_params(args: &BenchArgs) -> SolverParams {
    SolverParams {
        iterations: args.iterations,
        substeps: args.substeps,
        ..SolverParams::default()
    }
}

const DT: f64 = 1.0 / 60.0;

fn percentile(sorted_ms: &[f64], p: f64) -> f64 {
    let k = ((sorted_ms.len() - 1) as f64 * p).round() as usize;
    sorted_ms[k]
}

/// Mean y and structural stretch (current / rest length) of a final state.
fn quality(cloth: &Cloth, positions: &[glam::Vec3]) -> (f64, f64, f64) {
    let mean_y = positions.iter().map(|p| p.y as f64).sum::<f64>() / positions.len() as f64;
    let (mut sum, mut max, mut count) = (0.0f64, 0.0f64, 0usize);
    for c in cloth.structural_constraints() {
        let r = (positions[c.i as usize].distance(positions[c.j as usize]) / c.rest) as f64;
        sum += r;
        max = max.max(r);
        count += 1;
    }
    (mean_y, sum / count.max(1) as f64, max)
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
    gpu_ms: Vec<f64>,
}

fn time_gpu(
    solver: &mut GpuSolver,
    timer: Option<&PassTimer>,
    args: &BenchArgs,
    progress: &mut Progress,
) -> Result<Timing> {
    let mut t = Timing {
        wall_ms: Vec::with_capacity(args.frames),
        gpu_ms: Vec::with_capacity(args.frames),
    };
    let total = args.warmup + args.frames;
    for k in 0..total {
        let start = Instant::now();
        let mut encoder =
            solver.step_with_timestamps(DT, timer.map(PassTimer::timestamp_writes))?;
        if let Some(t) = timer {
            t.resolve(&mut encoder);
        }
        solver.submit(encoder);
        // Wall time runs to the completed fence.
        solver.wait()?;
        let wall = start.elapsed().as_secs_f64() * 1e3;
        if k >= args.warmup {
            t.wall_ms.push(wall);
            if let Some(timer) = timer {
                t.gpu_ms.push(timer.read_blocking(solver.device())?);
            }
        }
        progress.tick(k + 1, total);
    }
    Ok(t)
}

fn time_cpu(solver: &mut CpuSolver, args: &BenchArgs, progress: &mut Progress) -> Result<Timing> {
    let mut wall_ms = Vec::with_capacity(args.frames);
    let total = args.warmup + args.frames;
    for k in 0..total {
        let start = Instant::now();
        solver.step(DT)?;
        if k >= args.warmup {
            wall_ms.push(start.elapsed().as_secs_f64() * 1e3);
        }
        progress.tick(k + 1, total);
    }
    Ok(Timing {
        wall_ms,
        gpu_ms: Vec::new(),
    })
}

fn skipped(backend: &str, adapter: &str, n: u32, args: &BenchArgs, why: String) -> BenchRecord {
    BenchRecord {
        backend: backend.into(),
        adapter: adapter.into(),
        n,
        particles: n as usize * n as usize,
        constraints: 0,
        colors: 0,
        dispatches_per_frame: 0,
        iterations: args.iterations,
        substeps: args.substeps,
        frames: 0,
        ms_per_frame_median: None,
        ms_per_frame_p90: None,
        gpu_ms_per_frame: None,
        constraint_solves_per_s: None,
        bytes_per_frame: 0,
        gbps: None,
        peak_percent: None,
        gpu_bytes_per_particle: None,
        mean_y: None,
        stretch_mean: None,
        stretch_max: None,
        speedup_vs_cpu: None,
        skipped: Some(why),
    }
}

fn record(
    backend: &str,
    adapter: &str,
    cloth: &Cloth,
    args: &BenchArgs,
    timing: &Timing,
    dispatches: u64,
    positions: &[glam::Vec3],
) -> BenchRecord {
    let mut ms = timing.wall_ms.clone();
    ms.sort_by(f64::total_cmp);
    let median = percentile(&ms, 0.5);
    let gpu_ms = (!timing.gpu_ms.is_empty()).then(|| {
        let mut g = timing.gpu_ms.clone();
        g.sort_by(f64::total_cmp);
        percentile(&g, 0.5)
    });
    // Bandwidth and throughput use the device's own time where there is one.
    let best_ms = gpu_ms.filter(|&g| g > 0.0).unwrap_or(median);
    let (m, n) = (
        cloth.constraint_count() as u64,
        cloth.particle_count() as u64,
    );
    let s = args.substeps as u64;
    let solves = s * args.iterations as u64 * m;
    let bytes = solves * BYTES_PER_SOLVE + s * n * BYTES_PER_PARTICLE_STEP;
    let gbps = bytes as f64 / (best_ms * 1e-3) / 1e9;
    let (mean_y, stretch_mean, stretch_max) = quality(cloth, positions);
    BenchRecord {
        backend: backend.into(),
        adapter: adapter.into(),
        n: cloth.columns,
        particles: n as usize,
        constraints: m as usize,
        colors: cloth.colors.len(),
        dispatches_per_frame: dispatches,
        iterations: args.iterations,
        substeps: args.substeps,
        frames: ms.len(),
        ms_per_frame_median: Some(median),
        ms_per_frame_p90: Some(percentile(&ms, 0.9)),
        gpu_ms_per_frame: gpu_ms,
        constraint_solves_per_s: Some(solves as f64 / (best_ms * 1e-3)),
        bytes_per_frame: bytes,
        gbps: Some(gbps),
        peak_percent: args.peak_gbps.map(|p| 100.0 * gbps / p),
        gpu_bytes_per_particle: None,
        mean_y: Some(mean_y),
        stretch_mean: Some(stretch_mean),
        stretch_max: Some(stretch_max),
        speedup_vs_cpu: None,
        skipped: None,
    }
}

/// Runs every case and returns the records (GPU and CPU per size, as asked).
pub fn run(args: &BenchArgs) -> Result<Vec<BenchRecord>> {
    let args = args.effective();
    args.validate()?;
    let want_gpu = args.backend != BenchBackend::Cpu;
    let want_cpu = args.backend != BenchBackend::Gpu;
    let ctx = if want_gpu {
        Some(GpuContext::new()?)
    } else {
        None
    };
    let adapter = ctx.as_ref().map(GpuContext::describe).unwrap_or_default();
    let timer = ctx.as_ref().and_then(PassTimer::new);
    let cpu_name = format!("cpu reference ({})", cpu_description());
    let params = standard_params(&args);
    let mut out = Vec::new();

    // All GPU cases run before any CPU case: the CPU reference's worker threads would otherwise
    // compete with a CPU-based driver such as lavapipe and distort its timings.
    let mut clothes = Vec::new();
    for &n in &args.sizes {
        match standard_cloth(n, &args) {
            Ok(c) => clothes.push((n, Some(c))),
            Err(e) => {
                for (want, name, a) in [(want_gpu, "gpu", &adapter), (want_cpu, "cpu", &cpu_name)] {
                    if want {
                        out.push(skipped(name, a, n, &args, e.to_string()));
                    }
                }
                clothes.push((n, None));
            }
        }
    }
    if let Some(ctx) = &ctx {
        for (n, cloth) in &clothes {
            let Some(cloth) = cloth else { continue };
            let solver =
                GpuSolver::with_workgroup_size(ctx, cloth, params.clone(), args.workgroup_size);
            let mut solver = match solver {
                Ok(s) => s,
                Err(e @ ChiffonError::ExceedsDeviceLimit { .. }) => {
                    out.push(skipped("gpu", &adapter, *n, &args, e.to_string()));
                    continue;
                }
                Err(e) => return Err(e),
            };
            let mut progress = Progress {
                label: format!("gpu {n}x{n}"),
                last: Instant::now(),
            };
            let timing = time_gpu(&mut solver, timer.as_ref(), &args, &mut progress)?;
            progress.finish();
            let positions = solver.positions()?;
            let dispatches = solver.dispatches_per_frame();
            let mut r = record(
                "gpu", &adapter, cloth, &args, &timing, dispatches, &positions,
            );
            r.gpu_bytes_per_particle =
                Some(solver.gpu_bytes() as f64 / cloth.particle_count() as f64);
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
            let mut solver = CpuSolver::new(cloth, params.clone())?;
            let timing = time_cpu(&mut solver, &args, &mut progress)?;
            progress.finish();
            // The CPU runs the same kernel sequence; "dispatches" are its kernel calls.
            let calls =
                args.substeps as u64 * (2 + args.iterations as u64 * cloth.colors.len() as u64);
            let r = record(
                "cpu",
                &cpu_name,
                cloth,
                &args,
                &timing,
                calls,
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
        "{:<4} {:>5} {:>9} {:>9} {:>6} {:>7} {:>9} {:>9} {:>9} {:>10} {:>7} {:>6} {:>6} {:>8} {:>8} {:>8} {:>8}\n",
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
        "str.max",
        "speedup"
    );
    for r in records {
        if let Some(why) = &r.skipped {
            s.push_str(&format!("{:<4} {:>5}  skipped: {why}\n", r.backend, r.n));
            continue;
        }
        s.push_str(&format!(
            "{:<4} {:>5} {:>9} {:>9} {:>6} {:>7} {:>9} {:>9} {:>9} {:>10} {:>7} {:>6} {:>6} {:>8} {:>8} {:>8} {:>8}\n",
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
            opt(r.stretch_max, 4),
            r.speedup_vs_cpu.map_or("-".into(), |x| format!("{x:.2}x")),
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

/// Runs the benchmark as the command line asks: header, progress, table, JSON and plot.
pub fn run_and_report(args: &BenchArgs) -> Result<Vec<BenchRecord>> {
    println!(
        "chiffon bench: standard scene (N×N over 1 m², flat, corners pinned, 60 fps, {} substep(s) × {} iterations)",
        args.substeps, args.iterations
    );
    println!("cpu: {}", cpu_description());
    let records = run(args)?;
    if let Some(r) = records.iter().find(|r| r.backend == "gpu") {
        println!("gpu: {}", r.adapter);
    }
    print!("{}", table(&records));
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&records).expect("records serialize");
        std::fs::write(path, text).map_err(|e| ChiffonError::Io {
            path: path.display().to_string(),
            source: e,
        })?;
        println!("wrote {}", path.display());
    }
    if let Some(path) = &args.plot {
        crate::plot::save(path, (1200, 500), &BenchPlot(&records))?;
        println!("wrote {}", path.display());
    }
    Ok(records)
}
