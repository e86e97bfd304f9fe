//! The headless benchmark, shared by `cargo bench` and `chiffon bench`: one harness, several
//! scenes.
//!
//! A scene ([`SceneConfig`], one module each: [`standard`], [`capes`], [`heap`],
//! [`colliders`]) says what its cases are
//! (a [`Case`]: a world of cloths or lone solvers, on a backend), which fields of its own its
//! records carry, and its table columns and plot. Everything else is here and in [`case`],
//! once: the presets ([`Preset`]: `--quick` is CI's), validation, the timing protocol, the
//! record ([`BenchRecord`]), the bytes-moved model, the table, the JSON and the plot.
//! One file, though long: the protocol is one, so that every scene is timed the same way.
//!
//! The commands (the presets' sizes and frames are in [`BenchConfig::preset`]):
//! - `chiffon bench --json target/bench.json --plot target/bench.png`: the default preset, a
//!   first look in under a minute on two CPU cores with lavapipe, its results in a scratch
//!   folder;
//! - `chiffon bench --full --json docs/bench-lavapipe.json --plot docs/bench-lavapipe.png`:
//!   the sweep behind the committed figures (minutes; `--scene capes` likewise);
//! - `chiffon bench --scene heap` (self-collision on and off) and `chiffon bench --scene
//!   colliders` (no collider, a sphere, 64 capsules, a 100 000-triangle mesh): contact's cost,
//!   as ratios to the same frame without it;
//! - `cargo bench -- --quick`: CI's, seconds.
//!
//! Bytes moved follow the model in the design notes (§6), extended for XPBD: a constraint solve
//! reads two particles and the 16-byte record, reads and writes its multiplier and writes the
//! two particles back (88 B), plus the two previous positions with SHAKE (32 B); integrate reads
//! and writes position and previous position (64 B per particle), collide (when the frame has a
//! collide stage) reads each position (16 B; the colliders it tests, a mesh's grid samples and
//! the self-collision stage are not counted), tethers read a particle, its slots and anchors and
//! write it back (80 B). A cloth on the fused path with its particles in workgroup memory moves
//! only a solve's record and multiplier (24 B, +32 B with SHAKE) and the previous position in
//! integrate (32 B) from storage, and loads and stores each position once a frame (32 B).
//!
//! One file, though long: the harness every scene shares (the part each scene would
//! otherwise repeat).

/// `fn fields(r: &BenchRecord) -> Option<&Fields>`: a record's own fields when it is of the scene
/// whose [`SceneFields`] variant is `$variant`, the one accessor every scene module needs.
macro_rules! scene_fields {
    ($variant:ident) => {
        fn fields(r: &BenchRecord) -> Option<&Fields> {
            match &r.fields {
                SceneFields::$variant(f) => Some(f),
                _ => None,
            }
        }
    };
}

pub mod capes;
pub mod case;
pub mod colliders;
pub mod heap;
pub mod standard;

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{Result, bail};
use serde::Serialize;

use crate::config::DEFAULT_WORKGROUP_SIZE;
use crate::contact::DEFAULT_RESOLUTION;
use crate::gpu::GpuContext;
use crate::params::{SolverParams, Substeps};
use crate::schedule::Stage;
use crate::tools::BackendKind as Backend;
use crate::tools::plot::LogLog;
use crate::tools::scenes::{BUMPY_SPHERE_FULL, HEAP_HOLD_FRAMES, STANDARD_DT, standard_params};

pub use capes::{BenchPath, CapesConfig};
pub use case::{Build, Case, Placed, Ran};
pub use colliders::{ColliderSet, CollidersConfig};
pub use heap::HeapConfig;
pub use standard::{Sheet, StandardConfig};

/// Bytes one constraint solve moves (two vec4 reads + two writes + the record + the multiplier).
pub const BYTES_PER_SOLVE: u64 = 88;
/// Extra bytes of a solve with SHAKE (the two previous positions).
pub const BYTES_PER_SHAKE_SOLVE: u64 = 32;
/// Bytes integrate moves per particle per substep.
pub const BYTES_PER_INTEGRATE_STEP: u64 = 64;
/// Bytes collide moves per particle per substep (only frames with a collide stage: the
/// standard and capes scenes have no collider; the heap and colliders scenes do).
pub const BYTES_PER_COLLIDE_STEP: u64 = 16;
/// Bytes the tether pass moves per particle per substep (the particle, two slots, two anchors,
/// the write).
pub const BYTES_PER_TETHER_STEP: u64 = 80;
/// Bytes a solve moves from storage on the fused path in workgroup memory (the record and the
/// multiplier's read and write); SHAKE adds [`BYTES_PER_SHAKE_SOLVE`].
pub const BYTES_PER_WORKGROUP_SOLVE: u64 = 24;
/// Bytes integrate moves per particle per substep on the fused path in workgroup memory (the
/// previous position, read and written).
pub const BYTES_PER_WORKGROUP_INTEGRATE_STEP: u64 = 32;
/// Bytes per particle per frame of the fused path's load into and store out of workgroup
/// memory.
pub const BYTES_PER_WORKGROUP_FRAME: u64 = 32;

/// Most timed or warm-up frames a case may ask for: 10 000 frames is 2.8 simulated minutes
/// at 60 fps, hours at 1024² on a CPU driver, and keeps the per-frame samples in memory small.
pub const MAX_FRAMES: usize = 10_000;

/// Frames timed with GPU timestamps, after the wall-clock frames (fewer when fewer frames are
/// timed).
pub const GPU_TIMED_FRAMES: usize = 10;

/// The points (x, median ms per frame) of the measured records of `backend` for which `x`
/// gives a value: how the scenes' plots pick each series' records.
pub(crate) fn ms_points(
    records: &[BenchRecord],
    backend: Backend,
    x: impl Fn(&BenchRecord) -> Option<f64>,
) -> Vec<(f64, f64)> {
    records
        .iter()
        .filter(|r| r.skipped.is_none() && r.backend == backend.name())
        .filter_map(|r| Some((x(r)?, r.ms_per_frame_median?)))
        .collect()
}

/// A plot of one log-log panel of ms per frame against `x_desc` (the heap, colliders and
/// capes scenes').
pub(crate) fn ms_plot(
    title: &str,
    x_desc: &str,
    series: Vec<crate::tools::plot::Series>,
) -> (LogLog, (u32, u32)) {
    let panel = crate::tools::plot::Panel {
        title: title.into(),
        x_desc: x_desc.into(),
        y_desc: "ms per frame".into(),
        series,
    };
    (
        LogLog {
            panels: vec![panel],
        },
        (900, 600),
    )
}

/// Checks a scene's `--sizes` (grids of N×N particles): each N at least 2, and no grid over
/// the builder's [`crate::config::MAX_PARTICLES`], which no device could run (a size one
/// device cannot run is skipped and said so; one no device can is refused here).
pub(crate) fn check_sizes(sizes: &[u32]) -> Result<()> {
    if sizes.is_empty() || sizes.iter().any(|&n| n < 2) {
        bail!("--sizes {sizes:?}: every N must be at least 2");
    }
    let max = crate::config::MAX_PARTICLES;
    if let Some(n) = sizes.iter().find(|&&n| n as u64 * n as u64 > max) {
        bail!(
            "--sizes {n}: {n}x{n} = {} particles is more than the {max} chiffon supports (N at \
             most {})",
            *n as u64 * *n as u64,
            max.isqrt()
        );
    }
    Ok(())
}

/// The benchmark's scenes (`--scene`).
///
/// To add a scene (as `heap` was: a towel dropped on the floor with self-collision on and off):
/// 1. a variant here and its name in the `named_enum!` below;
/// 2. a module with its configuration (`HeapConfig`), a [`SceneConfig`] variant holding it, and
///    `impl SceneBench for HeapConfig`: its cases (each a [`Build`]: a world of placed cloths,
///    with its own [`SolverParams`] per case, e.g. self-collision on and off; or lone solvers;
///    pins held through the warm-up and let go after it where [`Case::release`] says), the
///    fields only its records carry (a [`SceneFields`] variant), its table columns, its
///    comparisons between cases (e.g. the frame without self-collision beside each with it)
///    and its plot; its builders in `tools/scenes.rs`, where the demo finds them too;
/// 3. its sizes in each [`Preset`] in [`BenchConfig::preset`], the one place `--quick` and
///    `--full` are decided;
/// 4. its flags in `src/tools/cli/bench_args.rs`, refused with other scenes.
///
/// Timing (wall and GPU per stage), the shared record fields, the bytes model, the table's
/// shared columns, JSON and plot files come from the harness.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scene {
    /// One N×N sheet per size ([`standard`]).
    Standard,
    /// Many small cloths, solved fused, global or separately ([`capes`]).
    Capes,
    /// A towel dropped by a corner, self-collision on and off ([`heap`]).
    Heap,
    /// A sheet falling onto no collider, a sphere, 64 capsules or a large mesh
    /// ([`colliders`]).
    Colliders,
}

crate::names::named_enum!(Scene "scene" {
    Standard => "standard",
    Capes => "capes",
    Heap => "heap",
    Colliders => "colliders",
});

/// How much a run measures: the sizes and frame counts the flags do not give.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Preset {
    /// The smallest sizes and few frames: seconds in all (`--quick`; CI runs this).
    Quick,
    /// A first look: under a minute on two CPU cores with lavapipe (no flag).
    Default,
    /// The sweep behind the committed figures in `docs/` (`--full`): minutes.
    Full,
}

crate::names::named_enum!(Preset "preset" {
    Quick => "quick",
    Default => "default",
    Full => "full",
});

/// One scene's own settings.
#[derive(Clone, Debug, PartialEq)]
pub enum SceneConfig {
    /// `--scene standard`.
    Standard(StandardConfig),
    /// `--scene capes`.
    Capes(CapesConfig),
    /// `--scene heap`.
    Heap(HeapConfig),
    /// `--scene colliders`.
    Colliders(CollidersConfig),
}

impl SceneConfig {
    /// Which scene this is.
    pub fn scene(&self) -> Scene {
        match self {
            SceneConfig::Standard(_) => Scene::Standard,
            SceneConfig::Capes(_) => Scene::Capes,
            SceneConfig::Heap(_) => Scene::Heap,
            SceneConfig::Colliders(_) => Scene::Colliders,
        }
    }

    fn bench(&self) -> &dyn SceneBench {
        match self {
            SceneConfig::Standard(s) => s,
            SceneConfig::Capes(c) => c,
            SceneConfig::Heap(h) => h,
            SceneConfig::Colliders(c) => c,
        }
    }
}

/// What a scene gives the harness (see [`Scene`] on adding one).
pub trait SceneBench {
    /// What the scene is, for the header (e.g. "standard scene (N×N over 1 m², ...)").
    fn describe(&self) -> String;
    /// Refuses settings the scene cannot run (the flag named).
    fn validate(&self) -> Result<()>;
    /// Every case on each of `backends`, in the order the table lists them (the harness runs
    /// the GPU ones first, whatever the order).
    fn cases(&self, cfg: &BenchConfig, backends: &[Backend]) -> Vec<Case>;
    /// Fills the scene's own fields that need the measurement (`ran` is what ran).
    fn measured(&self, _record: &mut BenchRecord, _ran: &Ran) {}
    /// Fields that compare cases (speedups), once every case ran.
    fn compare(&self, _records: &mut [BenchRecord]) {}
    /// The columns naming a case in the table (after the backend).
    fn key_columns(&self) -> Vec<Column>;
    /// The scene's own columns, after the shared ones.
    fn columns(&self) -> Vec<Column>;
    /// Lines printed after the table.
    fn notes(&self, _records: &[BenchRecord]) -> String {
        String::new()
    }
    /// The plot, and its size in pixels.
    fn plot(&self, records: &[BenchRecord]) -> (LogLog, (u32, u32));
}

/// What to benchmark (the command line's `BenchArgs` fill it from [`BenchConfig::preset`]).
#[derive(Clone, Debug, PartialEq)]
pub struct BenchConfig {
    /// The scene and its own settings.
    pub scene: SceneConfig,
    /// The solver's parameters. Default [`standard_params`] (the library's defaults).
    pub params: SolverParams,
    /// Timed frames per case, 1 to [`MAX_FRAMES`].
    pub frames: usize,
    /// Untimed frames before timing, 0 to [`MAX_FRAMES`].
    pub warmup: usize,
    /// Which solvers to run. Default both.
    pub backends: Vec<Backend>,
    /// The device's peak memory bandwidth (GB/s), to report achieved bandwidth as a percentage.
    pub peak_gbps: Option<f64>,
    /// Threads per workgroup of the per-pass kernels. Default [`DEFAULT_WORKGROUP_SIZE`].
    pub workgroup_size: u32,
}

impl BenchConfig {
    /// `scene` at `preset`: every rule of `--quick`, the default run and `--full` is here.
    pub fn preset(scene: Scene, preset: Preset) -> Self {
        let (frames, warmup) = match (scene, preset) {
            // The heap's warm-up is its hold: the towel swings down from its corner.
            (Scene::Heap, Preset::Quick) => (5, 10),
            (Scene::Heap, Preset::Default) => (30, HEAP_HOLD_FRAMES),
            (Scene::Heap, Preset::Full) => (60, HEAP_HOLD_FRAMES),
            // The sheet reaches the bodies 0.1 m below it in 6 frames.
            (Scene::Colliders, Preset::Quick) => (5, 5),
            (Scene::Colliders, Preset::Default) => (30, 10),
            (Scene::Colliders, Preset::Full) => (60, 10),
            (_, Preset::Quick) => (5, 1),
            (_, Preset::Default) => (30, 5),
            (Scene::Standard, Preset::Full) => (60, 10),
            // 1000 separate capes take seconds a frame on lavapipe.
            (Scene::Capes, Preset::Full) => (20, 5),
        };
        let scene = match scene {
            Scene::Standard => SceneConfig::Standard(StandardConfig {
                sizes: match preset {
                    Preset::Quick => vec![16, 32],
                    Preset::Default => vec![32, 64, 128],
                    Preset::Full => vec![64, 256, 1024],
                },
                kinds: [true; 3],
                sheets: vec![standard::Sheet::Grid],
                membrane: crate::Membrane::Edges,
            }),
            Scene::Capes => SceneConfig::Capes(CapesConfig {
                cloths: match preset {
                    Preset::Quick => vec![1, 4],
                    Preset::Default => vec![1, 10],
                    Preset::Full => vec![1, 10, 100, 1000],
                },
                cloth_size: match preset {
                    Preset::Quick => (16, 16),
                    _ => (32, 32),
                },
                paths: BenchPath::ALL.to_vec(),
                fused_workgroup_size: None,
                at_rest: 0,
                sleep: vec![true],
            }),
            Scene::Heap => SceneConfig::Heap(HeapConfig {
                sizes: match preset {
                    Preset::Quick => vec![16],
                    Preset::Default => vec![128],
                    Preset::Full => vec![64, 128, 256],
                },
            }),
            Scene::Colliders => SceneConfig::Colliders(CollidersConfig {
                sizes: match preset {
                    Preset::Quick => vec![16],
                    Preset::Default => vec![64],
                    Preset::Full => vec![64, 128, 256],
                },
                sets: ColliderSet::ALL.to_vec(),
                // A small mesh for CI; at least 100 000 triangles otherwise.
                mesh: match preset {
                    Preset::Quick => (16, 32),
                    _ => BUMPY_SPHERE_FULL,
                },
                grid_resolution: match preset {
                    Preset::Quick => 32,
                    _ => DEFAULT_RESOLUTION,
                },
            }),
        };
        Self {
            scene,
            params: standard_params(),
            frames,
            warmup,
            backends: Backend::ALL.to_vec(),
            peak_gbps: None,
            workgroup_size: DEFAULT_WORKGROUP_SIZE,
        }
    }

    /// Refuses what cannot run, naming the flag, before anything runs.
    pub fn validate(&self) -> Result<()> {
        if !(1..=MAX_FRAMES).contains(&self.frames) {
            bail!(
                "--frames {}: must be between 1 and {MAX_FRAMES}",
                self.frames
            );
        }
        if self.warmup > MAX_FRAMES {
            bail!(
                "--warmup {}: must be between 0 and {MAX_FRAMES}",
                self.warmup
            );
        }
        if self.backends.is_empty() {
            bail!("--backend: at least one backend must run");
        }
        if let Some(p) = self.peak_gbps
            && !(p.is_finite() && p > 0.0)
        {
            bail!("--peak-gbps {p}: must be a positive bandwidth in GB/s");
        }
        self.params.validate()?;
        self.scene.bench().validate()
    }
}

/// Where the command line wants the results written, beside the table on stdout.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BenchOutputs {
    /// One JSON record per case (`.json`).
    pub json: Option<PathBuf>,
    /// The scene's plot, `.svg` or `.png`.
    pub plot: Option<PathBuf>,
}

impl BenchOutputs {
    /// Refuses a path the run could not write at its end (extension, missing or unwritable
    /// folder), before minutes of benchmarking.
    pub fn check(&self) -> Result<()> {
        if let Some(json) = &self.json {
            crate::tools::plot::check_output(json, "--json", &["json"])?;
        }
        if let Some(plot) = &self.plot {
            crate::tools::plot::check_path(plot, "--plot")?;
        }
        if self.json.is_some() && self.json == self.plot {
            bail!("--json and --plot name the same file");
        }
        Ok(())
    }
}

/// The fields only one scene's records carry (flattened into the record's JSON).
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum SceneFields {
    /// `--scene standard`.
    Standard(standard::Fields),
    /// `--scene capes`.
    Capes(capes::Fields),
    /// `--scene heap`.
    Heap(heap::Fields),
    /// `--scene colliders`.
    Colliders(colliders::Fields),
}

/// One measured (or skipped) case of any scene. Scripts read these JSON field names (and the
/// scene's own, [`SceneFields`]): keep them.
#[derive(Clone, Debug, Serialize)]
pub struct BenchRecord {
    /// Which scene.
    pub scene: Scene,
    /// Backend name (`gpu` or `cpu`).
    pub backend: &'static str,
    /// What ran it: the adapter, or the CPU model.
    pub adapter: String,
    /// The scene's own fields.
    #[serde(flatten)]
    pub fields: SceneFields,
    /// Particles of every cloth of the case.
    pub particles: usize,
    /// Constraints of every cloth of the case.
    pub constraints: usize,
    /// Dispatches (GPU) or kernel calls (CPU) per frame, from the frame schedules.
    pub dispatches_per_frame: u64,
    /// Constraint iterations per substep.
    pub iterations: u32,
    /// Substeps per frame (at 60 fps).
    pub substeps: u32,
    /// The solver frequency (Hz) the substeps come from, or null for fixed substeps.
    pub frequency_hz: Option<f32>,
    /// Constraint direction ([`crate::params::Projection::name`]).
    pub projection: &'static str,
    /// True when tethers ran.
    pub tethers: bool,
    /// Timed frames.
    pub frames: usize,
    /// Median wall time per frame to a completed fence (ms), measured without GPU timestamps.
    pub ms_per_frame_median: Option<f64>,
    /// 90th percentile of the wall time per frame (ms).
    pub ms_per_frame_p90: Option<f64>,
    /// GPU time from the frame's first timestamp to its last (ms, median over up to
    /// [`GPU_TIMED_FRAMES`] frames timed after the wall-clock ones); null on the CPU, for
    /// several lone solvers, or without timestamp queries.
    pub gpu_ms_per_frame: Option<f64>,
    /// GPU time of each stage of the frame (ms, median over the same frames), by
    /// [`Stage::name`]; empty where not measured.
    pub gpu_stage_ms: BTreeMap<&'static str, f64>,
    /// Constraint solves per second (over the GPU time where there is one).
    pub constraint_solves_per_s: Option<f64>,
    /// Bytes moved per frame by the model in this module's documentation.
    pub bytes_per_frame: u64,
    /// Achieved bandwidth by that model (GB/s), over the GPU time where there is one.
    pub gbps: Option<f64>,
    /// Achieved bandwidth as a percentage of `--peak-gbps`.
    pub peak_percent: Option<f64>,
    /// GPU memory per particle (bytes).
    pub gpu_bytes_per_particle: Option<f64>,
    /// Mean height of the final state (m).
    pub mean_y: Option<f64>,
    /// Mean structural edge length over rest length, final state (the mean over the cloths).
    pub stretch_mean: Option<f64>,
    /// 99th percentile of structural edge length over rest length, final state (the largest
    /// cloth's percentile where there are several).
    pub stretch_p99: Option<f64>,
    /// Largest structural edge length over rest length, final state, over every cloth.
    pub stretch_max: Option<f64>,
    /// Why the case was not measured (null when it was).
    pub skipped: Option<String>,
}

/// The solver frequency of `p`, if its substeps come from one.
fn frequency(p: &SolverParams) -> Option<f32> {
    match p.substeps {
        Substeps::Frequency(f) => Some(f),
        Substeps::Fixed(_) => None,
    }
}

/// Runs every case of the scene and returns the records in the scene's order.
pub fn run(cfg: &BenchConfig) -> Result<Vec<BenchRecord>> {
    cfg.validate()?;
    let scene = cfg.scene.bench();
    let ctx = if cfg.backends.contains(&Backend::Gpu) {
        Some(GpuContext::new()?)
    } else {
        None
    };
    let cases = scene.cases(cfg, &cfg.backends);
    let mut records: Vec<Option<BenchRecord>> = vec![None; cases.len()];
    // All GPU cases run before any CPU case: the CPU reference's worker threads would otherwise
    // compete with a CPU-based driver such as lavapipe and distort its timings.
    for backend in Backend::ALL {
        for (k, case) in cases.iter().enumerate() {
            if case.backend != backend {
                continue;
            }
            let ctx = ctx.as_ref().filter(|_| backend == Backend::Gpu);
            let adapter = match ctx {
                Some(ctx) => ctx.describe(),
                None => format!("cpu reference ({})", cpu_description()),
            };
            let mut record = case.record(cfg, &adapter);
            if let Some(ran) = case.run(cfg, ctx, &mut record)? {
                scene.measured(&mut record, &ran);
            }
            records[k] = Some(record);
        }
    }
    let mut records: Vec<BenchRecord> = records.into_iter().flatten().collect();
    scene.compare(&mut records);
    Ok(records)
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

/// `v` with `digits` decimals, or `-`.
pub fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".into(), |x| format!("{x:.digits$}"))
}

/// A speedup as `1.23x`, or `-`.
pub fn times(v: Option<f64>) -> String {
    v.map_or("-".into(), |x| format!("{x:.2}x"))
}

/// One column of the table: a heading and a cell per record, right-aligned unless `left`.
pub struct Column {
    /// Heading.
    pub head: &'static str,
    /// Left-aligned (text) rather than right-aligned (numbers).
    pub left: bool,
    /// The cell of a record.
    pub cell: Box<dyn Fn(&BenchRecord) -> String>,
}

impl Column {
    /// A right-aligned (number) column.
    pub fn right(head: &'static str, cell: impl Fn(&BenchRecord) -> String + 'static) -> Self {
        Self {
            head,
            left: false,
            cell: Box::new(cell),
        }
    }

    /// A left-aligned (text) column.
    pub fn left(head: &'static str, cell: impl Fn(&BenchRecord) -> String + 'static) -> Self {
        Self {
            head,
            left: true,
            cell: Box::new(cell),
        }
    }
}

/// The columns every scene's table has, between its key columns and its own.
fn shared_columns() -> Vec<Column> {
    vec![
        Column::right("particles", |r| r.particles.to_string()),
        Column::right("constr.", |r| r.constraints.to_string()),
        Column::right("disp/f", |r| r.dispatches_per_frame.to_string()),
        Column::right("ms med", |r| opt(r.ms_per_frame_median, 3)),
        Column::right("ms p90", |r| opt(r.ms_per_frame_p90, 3)),
        Column::right("gpu ms", |r| opt(r.gpu_ms_per_frame, 3)),
        Column::right("Msolves/s", |r| {
            opt(r.constraint_solves_per_s.map(|x| x / 1e6), 1)
        }),
        Column::right("GB/s", |r| opt(r.gbps, 2)),
        Column::right("%peak", |r| opt(r.peak_percent, 1)),
        Column::right("B/part", |r| opt(r.gpu_bytes_per_particle, 1)),
        Column::right("mean y", |r| opt(r.mean_y, 4)),
        Column::right("str.mean", |r| opt(r.stretch_mean, 4)),
        Column::right("str.p99", |r| opt(r.stretch_p99, 4)),
        Column::right("str.max", |r| opt(r.stretch_max, 4)),
    ]
}

/// The aligned table printed on stdout: backend, the scene's key columns, the shared columns,
/// the scene's own; a skipped case says why; then the GPU time per stage where measured.
pub fn table(scene: &dyn SceneBench, records: &[BenchRecord]) -> String {
    let backend = Column::left("", |r| r.backend.to_string());
    let (keys, shared, own) = (scene.key_columns(), shared_columns(), scene.columns());
    let columns: Vec<&Column> = std::iter::once(&backend)
        .chain(&keys)
        .chain(&shared)
        .chain(&own)
        .collect();
    let naming = 1 + keys.len();
    let measured: Vec<&BenchRecord> = records.iter().filter(|r| r.skipped.is_none()).collect();
    let widths: Vec<usize> = columns
        .iter()
        .map(|c| {
            measured
                .iter()
                .map(|r| (c.cell)(r).chars().count())
                .chain([c.head.chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    // The cells of `columns` (a prefix of all of them) for a record, or their headings.
    let row = |columns: &[&Column], r: Option<&BenchRecord>| {
        let cells: Vec<String> = columns
            .iter()
            .zip(&widths)
            .map(|(c, &w)| {
                let cell = r.map_or_else(|| c.head.to_string(), |r| (c.cell)(r));
                if c.left {
                    format!("{cell:<w$}")
                } else {
                    format!("{cell:>w$}")
                }
            })
            .collect();
        cells.join("  ")
    };
    let mut s = row(&columns, None).trim_end().to_string() + "\n";
    for r in records {
        let line = match &r.skipped {
            Some(why) => format!("{}  skipped: {why}", row(&columns[..naming], Some(r))),
            None => row(&columns, Some(r)).trim_end().to_string(),
        };
        s.push_str(&line);
        s.push('\n');
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
            "{}  gpu ms per stage: {}\n",
            row(&columns[..naming], Some(r)),
            stages.join(", ")
        ));
    }
    s
}

/// One line on a cloth's coloring: "`what`: C colors, sizes a/b/c (largest/smallest x.xx)";
/// a serial color (`serial[c]`: one thread solves it, the overflow of a hub) is marked, and
/// left out of the ratio, which is what the parallel colors' balance costs.
pub fn describe_colors(what: &str, sizes: &[u32], serial: &[bool]) -> String {
    let is_serial = |c: usize| serial.get(c).copied().unwrap_or(false);
    let parallel = || {
        (0..sizes.len())
            .filter(|&c| !is_serial(c))
            .map(|c| sizes[c])
    };
    let max = parallel().max().unwrap_or(0);
    let min = parallel().min().unwrap_or(0);
    let list: Vec<String> = (0..sizes.len())
        .map(|c| {
            let serial = if is_serial(c) { " serial" } else { "" };
            format!("{}{serial}", sizes[c])
        })
        .collect();
    format!(
        "{what}: {} colors, constraints per color {} (largest/smallest {:.2})",
        sizes.len(),
        list.join("/"),
        max as f64 / min.max(1) as f64
    )
}

/// The solver settings for the header.
fn describe_params(p: &SolverParams) -> String {
    format!(
        "{} substep(s){} × {} iteration(s), {} projection, tethers {}, coarse levels {}, compliance stretch/shear/bend {}/{}/{} m/N, curvature {} /(N·m)",
        p.substeps.count(STANDARD_DT),
        frequency(p).map_or(String::new(), |f| format!(" ({f} Hz)")),
        p.iterations,
        p.projection.name(),
        if p.tethers.is_some() { "on" } else { "off" },
        if p.coarse_levels { "on" } else { "off" },
        p.compliance.stretch,
        p.compliance.shear,
        p.compliance.bend,
        p.compliance.curvature,
    )
}

/// Runs the benchmark as the command line asks: checks the configuration and the output
/// paths first, then header, progress (stderr), table, notes, JSON and plot.
pub fn run_and_report(cfg: &BenchConfig, outputs: &BenchOutputs) -> Result<Vec<BenchRecord>> {
    cfg.validate()?;
    outputs.check()?;
    let scene = cfg.scene.bench();
    println!(
        "chiffon bench: {}; {}; {} timed frame(s) after {} warm-up",
        scene.describe(),
        describe_params(&cfg.params),
        cfg.frames,
        cfg.warmup,
    );
    println!("cpu: {}", cpu_description());
    let records = run(cfg)?;
    if let Some(r) = records.iter().find(|r| r.backend == "gpu") {
        println!("gpu: {}", r.adapter);
    }
    print!("{}", table(scene, &records));
    print!("{}", scene.notes(&records));
    // A run that measured nothing is a failure, not a success with an empty table.
    if let Some(first) = records.iter().find_map(|r| r.skipped.as_ref())
        && records.iter().all(|r| r.skipped.is_some())
    {
        bail!(
            "every case was skipped, nothing was measured (the first: {first}); no JSON or plot \
             written"
        );
    }
    if let Some(path) = &outputs.json {
        let text = serde_json::to_string_pretty(&records)?;
        crate::export::write_atomic(path, text.as_bytes())?;
        println!("wrote {}", path.display());
    }
    if let Some(path) = &outputs.plot {
        let (figure, size) = scene.plot(&records);
        crate::tools::plot::save(path, size, &figure)?;
        println!("wrote {}", path.display());
    }
    Ok(records)
}
