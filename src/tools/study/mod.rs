//! The integrator study (`chiffon study`): the time-corrected Verlet experiments on point masses
//! with known solutions, plus frame-rate independence on cloth.
//!
//! Every formula comes from [`crate::integrator`], the module the CPU reference kernel uses.

pub mod cloth;
pub mod point_mass;
pub mod reference;

use std::fmt::Write as _;
use std::path::Path;

use plotters::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::error::{ChiffonError, Result};
use crate::tools::plot::{DrawResult, Figure, draw_legend};
use cloth::ClothRecord;
use point_mass::{Method, Problem, Start, Trajectory, integrate};

/// Nominal step of the point-mass problems (s).
pub const NOMINAL_DT: f64 = 1.0 / 30.0;
/// Simulated time of the point-mass problems (s).
pub const DURATION: f64 = 5.0;

/// Fixed steps, or each step uniform in [0.5, 1.5] × nominal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DtMode {
    /// Every step the nominal dt.
    Fixed,
    /// Each step uniform in [0.5, 1.5] × nominal.
    Random,
}

/// Steps drawn from `next` until `duration` (s) is covered, each shortened where it would cross
/// a multiple of `boundary` (s), so runs land exactly on the boundaries and the end.
pub fn clipped_steps(duration: f64, boundary: f64, mut next: impl FnMut() -> f64) -> Vec<f64> {
    let mut out = Vec::new();
    let mut t = 0.0;
    while duration - t > 1e-9 {
        let next_boundary = (((t + 1e-9) / boundary).floor() + 1.0) * boundary;
        let h = next().min(next_boundary.min(duration) - t);
        out.push(h);
        t += h;
    }
    out
}

/// Steps covering exactly `duration` s: fixed at `dt`, or random in [0.5, 1.5] × `dt`.
pub fn steps(mode: DtMode, dt: f64, duration: f64, seed: u64) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    clipped_steps(duration, duration, || match mode {
        DtMode::Fixed => dt,
        DtMode::Random => dt * rng.random_range(0.5..=1.5),
    })
}

/// One cell of the error table.
#[derive(Clone, Debug, Serialize)]
pub struct ErrorRecord {
    /// The problem.
    pub problem: Problem,
    /// The method.
    pub integrator: Method,
    /// How the Verlet family was started.
    pub start: Start,
    /// Fixed or random steps.
    pub dt_mode: DtMode,
    /// Largest absolute error over the run (m).
    pub max_abs_error: f64,
    /// Absolute error at the end (m).
    pub final_abs_error: f64,
}

/// Observed order of convergence on the sine wave, from errors at dt, dt/2, dt/4.
#[derive(Clone, Debug, Serialize)]
pub struct OrderRecord {
    /// The problem.
    pub problem: Problem,
    /// The method.
    pub integrator: Method,
    /// How the Verlet family was started.
    pub start: Start,
    /// Largest absolute errors at dt, dt/2 and dt/4 (m).
    pub max_abs_errors: [f64; 3],
    /// log2 of successive error ratios, averaged.
    pub observed_order: f64,
}

/// Everything the study measures.
#[derive(Clone, Debug, Serialize)]
pub struct StudyReport {
    /// The error table.
    pub errors: Vec<ErrorRecord>,
    /// Observed orders of convergence.
    pub orders: Vec<OrderRecord>,
    /// The cloth frame-rate experiment.
    pub cloth: Vec<ClothRecord>,
    /// What ran the cloth experiment.
    pub cloth_backend: String,
    /// Physical reference systems.
    pub references: reference::ReferenceReport,
}

/// The (method, start) pairs: the Verlet family twice, the others once.
pub fn variants() -> Vec<(Method, Start)> {
    let mut v = Vec::new();
    for m in Method::ALL {
        if m.verlet_family().is_some() {
            v.push((m, Start::Correct));
            v.push((m, Start::Naive));
        } else {
            v.push((m, Start::None));
        }
    }
    v
}

/// Error table over every problem, variant and dt mode.
pub fn error_table(seed: u64) -> Vec<ErrorRecord> {
    let mut out = Vec::new();
    for problem in Problem::ALL {
        for mode in [DtMode::Fixed, DtMode::Random] {
            let dts = steps(mode, NOMINAL_DT, DURATION, seed);
            for (method, start) in variants() {
                let (max, fin) = integrate(problem, method, start, &dts).errors(problem);
                out.push(ErrorRecord {
                    problem,
                    integrator: method,
                    start,
                    dt_mode: mode,
                    max_abs_error: max,
                    final_abs_error: fin,
                });
            }
        }
    }
    out
}

/// Base step of the order estimate (s): small enough that every method is in its asymptotic
/// regime (at 1/30 s explicit Euler's error already exceeds the amplitude).
pub const ORDER_DT: f64 = 1.0 / 120.0;

/// Observed order of each method (correct start) on the sine wave: log₂ of successive error
/// ratios at dt, dt/2, dt/4 from [`ORDER_DT`], averaged.
pub fn orders() -> Vec<OrderRecord> {
    Method::ALL
        .iter()
        .map(|&m| {
            let start = m.correct_start();
            let e = [1.0, 0.5, 0.25].map(|f| {
                let dts = steps(DtMode::Fixed, ORDER_DT * f, DURATION, 0);
                integrate(Problem::Sine, m, start, &dts)
                    .errors(Problem::Sine)
                    .0
            });
            let order = 0.5 * ((e[0] / e[1]).log2() + (e[1] / e[2]).log2());
            OrderRecord {
                problem: Problem::Sine,
                integrator: m,
                start,
                max_abs_errors: e,
                observed_order: order,
            }
        })
        .collect()
}

/// A solver of `cloth` on the GPU when `gpu` is given, else on the CPU reference: how the
/// study's cloth experiment and reference systems run.
pub fn solver(
    gpu: Option<&crate::GpuContext>,
    cloth: &crate::Cloth,
    params: crate::SolverParams,
) -> Result<crate::Solver> {
    crate::Solver::new(
        gpu.map_or(crate::Backend::Cpu, crate::Backend::Gpu),
        cloth,
        params,
    )
}

/// Runs the whole study. The cloth part runs on the GPU when `gpu` is given, else on the CPU.
pub fn run(seed: u64, gpu: Option<&crate::GpuContext>) -> Result<StudyReport> {
    Ok(StudyReport {
        errors: error_table(seed),
        orders: orders(),
        cloth: cloth::experiment(gpu, seed)?,
        cloth_backend: gpu.map_or("cpu reference".into(), |ctx| ctx.describe()),
        references: reference::run(gpu, seed)?,
    })
}

fn variant_name(m: Method, s: Start) -> String {
    match s {
        Start::Naive => format!("{} (naive start)", m.name()),
        _ => m.name().to_string(),
    }
}

/// Markdown tables of the report.
pub fn markdown(r: &StudyReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "### Point masses: max | final absolute error over {DURATION} s, nominal dt 1/30 s\n"
    );
    let _ = writeln!(
        s,
        "| integrator | projectile fixed | projectile random | polynomial fixed | polynomial random | sine fixed | sine random |"
    );
    let _ = writeln!(s, "| --- | --- | --- | --- | --- | --- | --- |");
    for (m, st) in variants() {
        let mut row = format!("| {} |", variant_name(m, st));
        for p in Problem::ALL {
            for mode in [DtMode::Fixed, DtMode::Random] {
                let e = r
                    .errors
                    .iter()
                    .find(|e| {
                        e.problem == p && e.integrator == m && e.start == st && e.dt_mode == mode
                    })
                    .expect("every cell measured");
                let _ = write!(
                    row,
                    " {:.2e} \\| {:.2e} |",
                    e.max_abs_error, e.final_abs_error
                );
            }
        }
        let _ = writeln!(s, "{row}");
    }
    let _ = writeln!(
        s,
        "\n### Observed order on the sine wave (max error at dt = 1/120, 1/240, 1/480 s)\n"
    );
    let _ = writeln!(
        s,
        "| integrator | errors | observed order |\n| --- | --- | --- |"
    );
    for o in &r.orders {
        let e = o.max_abs_errors;
        let _ = writeln!(
            s,
            "| {} | {:.2e}, {:.2e}, {:.2e} | {:.2} |",
            o.integrator.name(),
            e[0],
            e[1],
            e[2],
            o.observed_order
        );
    }
    let _ = writeln!(
        s,
        "\n### Cloth: distance from a 1/960 s reference, every 1/6 s for {} s ({})\n",
        cloth::DURATION,
        r.cloth_backend
    );
    let _ = writeln!(
        s,
        "| integrator | frame rate | frames | mean (m) | max (m) |\n| --- | --- | --- | --- | --- |"
    );
    for c in &r.cloth {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:.4} | {:.4} |",
            c.integrator, c.frame_rate, c.frames, c.mean_distance_m, c.max_distance_m
        );
    }
    let _ = writeln!(s, "\n## Physical references\n");
    s.push_str(&reference::markdown(&r.references));
    s
}

/// CSV of the error table.
pub fn csv(r: &StudyReport) -> String {
    let mut s = String::from("problem,integrator,start,dt_mode,max_abs_error,final_abs_error\n");
    for e in &r.errors {
        let _ = writeln!(
            s,
            "{},{},{:?},{:?},{:e},{:e}",
            e.problem.name(),
            e.integrator.name(),
            e.start,
            e.dt_mode,
            e.max_abs_error,
            e.final_abs_error
        );
    }
    s
}

const COLORS: [RGBColor; 7] = [
    RGBColor(228, 26, 28),
    RGBColor(255, 127, 0),
    RGBColor(55, 126, 184),
    RGBColor(77, 175, 74),
    RGBColor(152, 78, 163),
    RGBColor(166, 86, 40),
    RGBColor(120, 120, 120),
];

/// Trajectory and error against time for one problem and dt mode.
struct ProblemPlot {
    problem: Problem,
    mode: DtMode,
    runs: Vec<(String, Trajectory)>,
}

impl Figure for ProblemPlot {
    fn draw<DB: DrawingBackend>(&self, area: DrawingArea<DB, plotters::coord::Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        area.fill(&WHITE)?;
        let title = format!("{}: {:?} dt", self.problem.name(), self.mode);
        let area = area.titled(&title, ("sans-serif", 24))?;
        let (left, right) = area.split_horizontally(area.dim_in_pixel().0 / 2);
        let xs: Vec<f64> = self
            .runs
            .iter()
            .flat_map(|r| r.1.x.iter().copied())
            .collect();
        let (lo, hi) = xs
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
        let pad = 0.05 * (hi - lo).max(1e-9);
        let mut chart = ChartBuilder::on(&left)
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(55)
            .build_cartesian_2d(0.0..DURATION, lo - pad..hi + pad)?;
        chart
            .configure_mesh()
            .x_desc("t (s)")
            .y_desc("x")
            .label_style(("sans-serif", 13))
            .draw()?;
        let exact: Vec<(f64, f64)> = (0..=500)
            .map(|k| {
                let t = DURATION * k as f64 / 500.0;
                (t, self.problem.exact(t))
            })
            .collect();
        chart
            .draw_series(LineSeries::new(exact, BLACK.stroke_width(3)))?
            .label("exact")
            .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], BLACK.stroke_width(3)));
        for ((name, run), color) in self.runs.iter().zip(COLORS) {
            let pts = run.t.iter().copied().zip(run.x.iter().copied());
            chart
                .draw_series(LineSeries::new(pts, color.stroke_width(1)))?
                .label(name.as_str())
                .legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 16, y)], color.stroke_width(2))
                });
        }
        draw_legend(&mut chart, SeriesLabelPosition::LowerLeft, 0.85, 12)?;

        // Errors on a log scale; exact methods sit on the 1e-16 floor.
        let floor = 1e-16;
        let errs: Vec<Vec<(f64, f64)>> = self
            .runs
            .iter()
            .map(|(_, r)| {
                r.t.iter()
                    .zip(&r.x)
                    .map(|(&t, &x)| (t, (x - self.problem.exact(t)).abs().max(floor)))
                    .collect()
            })
            .collect();
        let top = errs.iter().flatten().map(|p| p.1).fold(floor, f64::max);
        let mut chart = ChartBuilder::on(&right)
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(65)
            .build_cartesian_2d(0.0..DURATION, (floor..top * 10.0).log_scale())?;
        chart
            .configure_mesh()
            .x_desc("t (s)")
            .y_desc("|x - exact|")
            .y_label_formatter(&|v| format!("{v:.0e}"))
            .label_style(("sans-serif", 13))
            .draw()?;
        for (pts, color) in errs.into_iter().zip(COLORS) {
            chart.draw_series(LineSeries::new(pts, color.stroke_width(1)))?;
        }
        area.present()?;
        Ok(())
    }
}

/// Mean distance from the reference per integrator and frame rate.
struct ClothPlot<'a>(&'a [ClothRecord]);

impl Figure for ClothPlot<'_> {
    fn draw<DB: DrawingBackend>(&self, area: DrawingArea<DB, plotters::coord::Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        area.fill(&WHITE)?;
        let rates: Vec<String> = cloth::frame_rates(0).iter().map(|r| r.label()).collect();
        let top = self.0.iter().map(|c| c.max_distance_m).fold(1e-4, f32::max) as f64;
        let mut chart = ChartBuilder::on(&area)
            .caption(
                "cloth: distance from the 1/960 s reference over 2 s",
                ("sans-serif", 22),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(-0.5..rates.len() as f64 - 0.5, 0.0..top * 1.1)?;
        chart
            .configure_mesh()
            .x_labels(rates.len())
            .x_label_formatter(&|x| {
                let k = x.round() as usize;
                rates
                    .get(k)
                    .map(|r| r.split(" (").next().unwrap_or(r).to_string())
                    .unwrap_or_default()
            })
            .y_desc("mean distance (m), bars; max, dots")
            .label_style(("sans-serif", 13))
            .draw()?;
        for (k, integrator) in crate::Integrator::ALL.iter().enumerate() {
            let color = COLORS[k + 2];
            let rows: Vec<&ClothRecord> = self
                .0
                .iter()
                .filter(|c| c.integrator == integrator.name())
                .collect();
            let off = (k as f64 - 1.0) * 0.25;
            chart
                .draw_series(rows.iter().enumerate().map(|(i, c)| {
                    let x = i as f64 + off;
                    Rectangle::new(
                        [(x - 0.1, 0.0), (x + 0.1, c.mean_distance_m as f64)],
                        color.filled(),
                    )
                }))?
                .label(integrator.name())
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled())
                });
            chart.draw_series(rows.iter().enumerate().map(|(i, c)| {
                Circle::new((i as f64 + off, c.max_distance_m as f64), 4, color.filled())
            }))?;
        }
        draw_legend(&mut chart, SeriesLabelPosition::UpperRight, 0.85, 14)?;
        area.present()?;
        Ok(())
    }
}

fn write(dir: &Path, name: &str, text: &str) -> Result<()> {
    let path = dir.join(name);
    std::fs::write(&path, text).map_err(|e| ChiffonError::Io {
        path: path.display().to_string(),
        error: e,
    })
}

/// Writes the tables (Markdown, CSV, JSON) and the plots (SVG and PNG) into `dir`; returns the
/// files written.
pub fn write_outputs(r: &StudyReport, dir: &Path, seed: u64) -> Result<Vec<String>> {
    std::fs::create_dir_all(dir).map_err(|e| ChiffonError::Io {
        path: dir.display().to_string(),
        error: e,
    })?;
    let mut files = vec![
        "study.md".to_string(),
        "errors.csv".into(),
        "study.json".into(),
    ];
    write(dir, "study.md", &markdown(r))?;
    write(dir, "errors.csv", &csv(r))?;
    write(
        dir,
        "study.json",
        &serde_json::to_string_pretty(r).expect("report serializes"),
    )?;
    for problem in Problem::ALL {
        for mode in [DtMode::Fixed, DtMode::Random] {
            let dts = steps(mode, NOMINAL_DT, DURATION, seed);
            let runs = Method::ALL
                .iter()
                .map(|&m| {
                    let start = m.correct_start();
                    (m.name().to_string(), integrate(problem, m, start, &dts))
                })
                .chain(std::iter::once((
                    "verlet (naive start)".to_string(),
                    integrate(problem, Method::Verlet, Start::Naive, &dts),
                )))
                .collect();
            let plot = ProblemPlot {
                problem,
                mode,
                runs,
            };
            for ext in ["svg", "png"] {
                let name = format!("{}_{:?}.{ext}", problem.name(), mode).to_lowercase();
                crate::tools::plot::save(&dir.join(&name), (1400, 560), &plot)?;
                files.push(name);
            }
        }
    }
    for ext in ["svg", "png"] {
        let name = format!("cloth.{ext}");
        crate::tools::plot::save(&dir.join(&name), (1000, 560), &ClothPlot(&r.cloth))?;
        files.push(name);
    }
    files.extend(reference::write_plots(&r.references, dir)?);
    Ok(files)
}
