//! One case of any scene, run one way: build what it runs (a [`World`], or lone [`Solver`]s),
//! warm up, time frames to a completed fence, read the final state, GPU-time a few more frames
//! per stage, and fill the shared fields of its [`BenchRecord`].

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Result;
use glam::{Affine3A, Vec3};

use super::{
    BYTES_PER_COLLIDE_STEP, BYTES_PER_INTEGRATE_STEP, BYTES_PER_SHAKE_SOLVE, BYTES_PER_SOLVE,
    BYTES_PER_TETHER_STEP, BYTES_PER_WORKGROUP_FRAME, BYTES_PER_WORKGROUP_INTEGRATE_STEP,
    BYTES_PER_WORKGROUP_SOLVE, BenchConfig, BenchRecord, GPU_TIMED_FRAMES, SceneFields, frequency,
};
use crate::Solver;
use crate::cloth::Cloth;
use crate::error::ChiffonError;
use crate::gpu::{GpuContext, StageTimer, StageTimes};
use crate::params::{Projection, SolverParams};
use crate::schedule::{FrameSchedule, Stage};
use crate::tools::BackendKind as Backend;
use crate::tools::scenes::STANDARD_DT;
use crate::world::{
    ClothHandle, ClothOptions, ClothPath, PathChoice, World, WorldCapacity, WorldConfig,
};

/// A cloth where a case places it. The placement is rigid (rotation and translation), so the
/// cloth's rest lengths still measure the placed cloth's stretch.
#[derive(Clone, Debug)]
pub struct Placed {
    /// The cloth, shared between the cases (and backends) that run it.
    pub cloth: Arc<Cloth>,
    /// Where it goes.
    pub at: Affine3A,
}

impl Placed {
    /// `cloth` where it was built (no transform).
    pub fn unmoved(cloth: Arc<Cloth>) -> Self {
        Self {
            cloth,
            at: Affine3A::IDENTITY,
        }
    }
}

/// A built cloth, to be shared between the cases (and backends) that run it, or why it could
/// not be built (those cases are reported as skipped).
pub fn shared(built: crate::Result<Cloth>) -> std::result::Result<Arc<Cloth>, String> {
    built.map(Arc::new).map_err(|e| e.to_string())
}

/// What a case runs.
#[derive(Clone, Debug)]
pub enum Build {
    /// One world of these cloths.
    World {
        /// How the world is built (paths, workgroup sizes; its capacity is what the cloths
        /// need).
        config: WorldConfig,
        /// Its cloths.
        cloths: Vec<Placed>,
    },
    /// One lone [`Solver`] per cloth: each frame submits every solver's frame, then waits
    /// once (how chiffon ran many cloths before the world; one solver for a scene of one
    /// cloth).
    Solvers {
        /// Threads per workgroup of the per-pass kernels.
        workgroup_size: u32,
        /// One solver each.
        cloths: Vec<Placed>,
    },
}

impl Build {
    /// One world of `cloth` alone, unmoved, on the global path, its per-pass kernels
    /// `workgroup_size` threads wide (the heap and colliders scenes' cases).
    pub fn global_world(cloth: Arc<Cloth>, workgroup_size: u32) -> Self {
        Build::World {
            config: WorldConfig {
                capacity: WorldCapacity::for_cloths(1, &cloth),
                paths: PathChoice::Global,
                workgroup_size,
                ..WorldConfig::default()
            },
            cloths: vec![Placed::unmoved(cloth)],
        }
    }

    fn cloths(&self) -> &[Placed] {
        match self {
            Build::World { cloths, .. } | Build::Solvers { cloths, .. } => cloths,
        }
    }
}

/// One case: what runs, on which backend, with which parameters, and the scene's own fields
/// of its record.
#[derive(Clone, Debug)]
pub struct Case {
    /// Which solver runs it.
    pub backend: Backend,
    /// Its progress label (e.g. `64x64`, `fused x10`).
    pub label: String,
    /// The solver's parameters (a scene may vary them between cases).
    pub params: SolverParams,
    /// What runs, or why it cannot be built (the case is reported as skipped).
    pub build: std::result::Result<Build, String>,
    /// Let the cloths' pinned particles go at the first timed frame: the warm-up holds them
    /// (the heap's towel hangs from its corner through the warm-up, and the timed frames are
    /// its fall and fold).
    pub release: bool,
    /// Warm-up frames this case needs whatever `--warmup` says: a world on
    /// [`crate::world::PathChoice::Auto`] times both paths over its first
    /// [`crate::world::AUTO_TRIAL_FRAMES`] frames, which are not the frames to time.
    pub warmup_at_least: usize,
    /// The scene's own fields of its record, as known before it runs.
    pub fields: SceneFields,
}

/// What a measured case ran, for the scene's own fields.
pub struct Ran {
    /// The path of each cloth (the lone solvers' is [`ClothPath::Global`]).
    pub paths: Vec<ClothPath>,
    /// The frame schedule of each world or solver.
    pub schedules: Vec<FrameSchedule>,
    /// Cloths asleep at the end ([`World::is_asleep`]; lone solvers never sleep).
    pub asleep: u32,
    /// What a world on [`crate::world::PathChoice::Auto`] measured of each path
    /// ([`World::path_times`]).
    pub path_times: Option<crate::world::PathTimes>,
}

/// What the frames run on.
enum Runner {
    World {
        // Boxed: a world is large beside a list of solvers.
        world: Box<World>,
        handles: Vec<ClothHandle>,
    },
    Solvers(Vec<Solver>),
}

impl Runner {
    fn new(
        build: &Build,
        backend: crate::Backend<'_>,
        params: &SolverParams,
    ) -> crate::Result<Self> {
        match build {
            Build::World { config, cloths } => {
                let mut world = World::new(backend, params.clone(), *config)?;
                let handles = cloths
                    .iter()
                    .map(|p| world.add(&p.cloth, ClothOptions::new().transform(p.at)))
                    .collect::<crate::Result<Vec<_>>>()?;
                Ok(Runner::World {
                    world: Box::new(world),
                    handles,
                })
            }
            Build::Solvers {
                workgroup_size,
                cloths,
            } => {
                let solvers = cloths
                    .iter()
                    .map(|p| {
                        let placed = if p.at == Affine3A::IDENTITY {
                            None
                        } else {
                            Some(p.cloth.transformed(p.at)?)
                        };
                        Solver::with_workgroup_size(
                            backend,
                            placed.as_ref().unwrap_or(&p.cloth),
                            params.clone(),
                            *workgroup_size,
                        )
                    })
                    .collect::<crate::Result<Vec<_>>>()?;
                Ok(Runner::Solvers(solvers))
            }
        }
    }

    /// One frame, timed per stage with `timer` where it is given (a world, or one solver).
    fn step(&mut self, timer: Option<&mut StageTimer>) -> crate::Result<()> {
        match self {
            Runner::World { world, .. } => world.step_timed(STANDARD_DT, timer),
            Runner::Solvers(solvers) => match solvers.as_mut_slice() {
                [one] => one.step_timed(STANDARD_DT, timer),
                all => all.iter_mut().try_for_each(|s| s.step(STANDARD_DT)),
            },
        }
    }

    /// Frees every particle the cloths were built with pinned (inverse mass 0), giving each
    /// its free inverse mass.
    fn release(&mut self, build: &Build) -> crate::Result<()> {
        for (k, placed) in build.cloths().iter().enumerate() {
            let cloth = &placed.cloth;
            let free = cloth.free_inverse_masses();
            for i in (0..cloth.particle_count()).filter(|&i| cloth.is_pinned(i)) {
                match self {
                    Runner::World { world, handles } => {
                        world.set_inverse_mass(handles[k], i, free[i])?
                    }
                    Runner::Solvers(solvers) => solvers[k].set_inverse_mass(i, free[i])?,
                }
            }
        }
        Ok(())
    }

    /// Blocks until the device has finished every submitted frame (one wait for all the lone
    /// solvers: they share the device).
    fn wait(&mut self) -> crate::Result<()> {
        match self {
            Runner::World { world, .. } => world.wait(),
            Runner::Solvers(solvers) => solvers.last_mut().map_or(Ok(()), Solver::wait),
        }
    }

    /// A [`StageTimer`] for this runner's frames, where it can have one: a world or a single
    /// solver on an adapter with timestamp queries.
    fn timer(&mut self, ctx: Option<&GpuContext>) -> crate::Result<Option<StageTimer>> {
        let Some(ctx) = ctx else { return Ok(None) };
        let passes = match self {
            Runner::World { world, .. } => world.schedule(STANDARD_DT)?.stages(),
            Runner::Solvers(solvers) if solvers.len() == 1 => {
                solvers[0].schedule(STANDARD_DT)?.stages()
            }
            Runner::Solvers(_) => return Ok(None),
        };
        Ok(StageTimer::new(ctx, passes))
    }

    /// Each cloth's positions, in the build's order.
    fn positions(&mut self) -> crate::Result<Vec<Vec<Vec3>>> {
        match self {
            Runner::World { world, handles } => {
                handles.iter().map(|&h| world.positions(h)).collect()
            }
            Runner::Solvers(solvers) => solvers.iter_mut().map(Solver::positions).collect(),
        }
    }

    fn ran(&mut self) -> crate::Result<Ran> {
        match self {
            Runner::World { world, handles } => Ok(Ran {
                paths: handles
                    .iter()
                    .map(|&h| world.path(h))
                    .collect::<crate::Result<_>>()?,
                schedules: vec![world.schedule(STANDARD_DT)?],
                asleep: handles
                    .iter()
                    .map(|&h| world.is_asleep(h))
                    .collect::<crate::Result<Vec<bool>>>()?
                    .into_iter()
                    .filter(|&a| a)
                    .count() as u32,
                path_times: world.path_times(),
            }),
            Runner::Solvers(solvers) => Ok(Ran {
                paths: vec![ClothPath::Global; solvers.len()],
                schedules: solvers
                    .iter_mut()
                    .map(|s| s.schedule(STANDARD_DT))
                    .collect::<crate::Result<_>>()?,
                asleep: 0,
                path_times: None,
            }),
        }
    }

    fn gpu_bytes(&self) -> Option<u64> {
        match self {
            Runner::World { world, .. } => world.gpu_bytes(),
            Runner::Solvers(solvers) => solvers.iter().map(Solver::gpu_bytes).sum(),
        }
    }
}

/// Prints a progress line on stderr at most twice a second.
struct Progress {
    label: String,
    last: Instant,
}

impl Progress {
    fn new(label: String) -> Self {
        Self {
            label,
            last: Instant::now(),
        }
    }

    fn tick(&mut self, done: usize, total: usize) {
        if self.last.elapsed() > Duration::from_millis(500) {
            eprint!("\r  {}: frame {done}/{total}   ", self.label);
            self.last = Instant::now();
        }
    }

    fn finish(&self) {
        eprint!("\r{:70}\r", "");
    }
}

/// The per-frame measurements of a case.
struct Timing {
    /// Wall time per timed frame (ms), step to completed fence.
    wall_ms: Vec<f64>,
    /// GPU timestamps of the frames timed after them.
    gpu: Vec<StageTimes>,
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    percentile(&v, 0.5)
}

/// Bytes a frame moves by the model in the module documentation, cloth by cloth on its path.
/// `schedule` says whether the global path's tether and collide stages run; a fused cloth
/// runs its tethers itself when they are on.
fn bytes_per_frame(
    params: &SolverParams,
    schedule: &FrameSchedule,
    cloths: &[(&Cloth, ClothPath)],
) -> u64 {
    let s = u64::from(params.substeps.count(STANDARD_DT));
    let sweeps = s * u64::from(params.iterations);
    let shake = if params.projection == Projection::Shake {
        BYTES_PER_SHAKE_SOLVE
    } else {
        0
    };
    let on = |yes: bool, bytes: u64| if yes { bytes } else { 0 };
    let collide = on(schedule.collide, BYTES_PER_COLLIDE_STEP);
    cloths
        .iter()
        .map(|&(cloth, path)| {
            let (m, n) = (
                cloth.constraint_count() as u64,
                cloth.particle_count() as u64,
            );
            let tethers = match path {
                ClothPath::Global => schedule.tethers,
                ClothPath::Fused { .. } => params.tethers.is_some(),
            };
            match path {
                ClothPath::Fused {
                    workgroup_memory: true,
                } => {
                    sweeps * m * (BYTES_PER_WORKGROUP_SOLVE + shake)
                        + s * n * BYTES_PER_WORKGROUP_INTEGRATE_STEP
                        + n * BYTES_PER_WORKGROUP_FRAME
                }
                _ => {
                    sweeps * m * (BYTES_PER_SOLVE + shake)
                        + s * n
                            * (BYTES_PER_INTEGRATE_STEP
                                + collide
                                + on(tethers, BYTES_PER_TETHER_STEP))
                }
            }
        })
        .sum()
}

impl Case {
    /// Its record before it runs: the scene's fields, what the build holds, and the
    /// parameters; nothing measured.
    pub fn record(&self, cfg: &BenchConfig, adapter: &str) -> BenchRecord {
        let p = &self.params;
        let cloths = self.build.as_ref().map_or(&[][..], Build::cloths);
        BenchRecord {
            scene: cfg.scene.scene(),
            backend: self.backend.name(),
            adapter: adapter.into(),
            fields: self.fields.clone(),
            particles: cloths.iter().map(|c| c.cloth.particle_count()).sum(),
            constraints: cloths.iter().map(|c| c.cloth.constraint_count()).sum(),
            dispatches_per_frame: 0,
            iterations: p.iterations,
            substeps: p.substeps.count(STANDARD_DT),
            frequency_hz: frequency(p),
            projection: p.projection.name(),
            tethers: p.tethers.is_some(),
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
            skipped: self.build.as_ref().err().cloned(),
        }
    }

    /// Runs the case and fills `record`'s measured fields; `None` (and `record.skipped`) when
    /// it could not be built: the cloth could not be made or exceeds the device's limits.
    ///
    /// The protocol: `warmup` untimed frames; the pins let go where the case says
    /// ([`Case::release`]); `frames` frames timed on the wall clock, each from its step to a
    /// completed fence, without GPU timestamps (on lavapipe they cost as much as the work of a
    /// many-pass frame); the final state read (the state every backend and path reaches after
    /// the same frames); then up to [`GPU_TIMED_FRAMES`] more frames with timestamps around
    /// every stage, where the adapter has them.
    pub fn run(
        &self,
        cfg: &BenchConfig,
        ctx: Option<&GpuContext>,
        record: &mut BenchRecord,
    ) -> Result<Option<Ran>> {
        let Ok(build) = &self.build else {
            return Ok(None);
        };
        if build.cloths().is_empty() {
            anyhow::bail!("case {} has no cloth to run", self.label);
        }
        let backend = self.backend.on(ctx)?;
        let mut runner = match Runner::new(build, backend, &self.params) {
            Ok(r) => r,
            Err(e @ ChiffonError::ExceedsDeviceLimit { .. }) => {
                record.skipped = Some(e.to_string());
                return Ok(None);
            }
            Err(e) => return Err(e.into()),
        };
        let label = format!("{} {}", self.backend.name(), self.label);
        let warmup = cfg.warmup.max(self.warmup_at_least);
        let total = warmup + cfg.frames;
        let mut progress = Progress::new(label.clone());
        let mut timing = Timing {
            wall_ms: Vec::with_capacity(cfg.frames),
            gpu: Vec::new(),
        };
        for k in 0..total {
            if self.release && k == warmup {
                runner.release(build)?;
            }
            let start = Instant::now();
            runner.step(None)?;
            runner.wait()?;
            if k >= warmup {
                timing.wall_ms.push(start.elapsed().as_secs_f64() * 1e3);
            }
            progress.tick(k + 1, total);
        }
        let positions = runner.positions()?;
        if let (Some(ctx), Some(mut timer)) = (ctx, runner.timer(ctx)?) {
            let gpu_frames = cfg.frames.min(GPU_TIMED_FRAMES);
            progress.label = format!("{label} (gpu timer)");
            for k in 0..gpu_frames {
                runner.step(Some(&mut timer))?;
                runner.wait()?;
                timing.gpu.push(timer.read_blocking(&ctx.device)?);
                progress.tick(k + 1, gpu_frames);
            }
        }
        progress.finish();
        let ran = runner.ran()?;
        self.fill(cfg, record, &timing, &ran, &positions, build.cloths());
        record.gpu_bytes_per_particle = runner
            .gpu_bytes()
            .map(|b| b as f64 / record.particles.max(1) as f64);
        Ok(Some(ran))
    }

    /// The shared measured fields of `record`.
    fn fill(
        &self,
        cfg: &BenchConfig,
        record: &mut BenchRecord,
        timing: &Timing,
        ran: &Ran,
        positions: &[Vec<Vec3>],
        cloths: &[Placed],
    ) {
        let p = &self.params;
        let mut ms = timing.wall_ms.clone();
        ms.sort_by(f64::total_cmp);
        let median_ms = percentile(&ms, 0.5);
        let gpu_ms = (!timing.gpu.is_empty())
            .then(|| median(timing.gpu.iter().map(|t| t.total_ms).collect()));
        record.gpu_stage_ms = Stage::ALL
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
            .collect();
        // Throughput and bandwidth use the device's own time where there is one.
        let best_ms = gpu_ms.filter(|&g| g > 0.0).unwrap_or(median_ms);
        let paired: Vec<(&Cloth, ClothPath)> = cloths
            .iter()
            .zip(&ran.paths)
            .map(|(c, &path)| (&*c.cloth, path))
            .collect();
        // The world's schedule, or the lone solvers' (all alike).
        let schedule = ran.schedules[0];
        let fused = ran
            .paths
            .iter()
            .any(|p| matches!(p, ClothPath::Fused { .. }));
        let tethers = p.tethers.is_some() && (schedule.tethers || fused);
        let bytes = bytes_per_frame(p, &schedule, &paired);
        let gbps = bytes as f64 / (best_ms * 1e-3) / 1e9;
        let solves = u64::from(p.substeps.count(STANDARD_DT))
            * u64::from(p.iterations)
            * record.constraints as u64;
        let stretch: Vec<crate::quality::Stretch> = cloths
            .iter()
            .zip(positions)
            .map(|(c, x)| crate::quality::stretch(&c.cloth, x))
            .collect();
        let all = positions.iter().flatten();
        let count = positions.iter().map(Vec::len).sum::<usize>().max(1);
        record.dispatches_per_frame = ran.schedules.iter().map(FrameSchedule::dispatches).sum();
        record.tethers = tethers;
        record.frames = ms.len();
        record.ms_per_frame_median = Some(median_ms);
        record.ms_per_frame_p90 = Some(percentile(&ms, 0.9));
        record.gpu_ms_per_frame = gpu_ms;
        record.constraint_solves_per_s = Some(solves as f64 / (best_ms * 1e-3));
        record.bytes_per_frame = bytes;
        record.gbps = Some(gbps);
        record.peak_percent = cfg.peak_gbps.map(|peak| 100.0 * gbps / peak);
        record.mean_y = Some(all.map(|x| x.y as f64).sum::<f64>() / count as f64);
        record.stretch_mean =
            Some(stretch.iter().map(|s| s.mean).sum::<f64>() / stretch.len().max(1) as f64);
        record.stretch_p99 = stretch.iter().map(|s| s.p99).reduce(f64::max);
        record.stretch_max = stretch.iter().map(|s| s.max).reduce(f64::max);
    }
}
