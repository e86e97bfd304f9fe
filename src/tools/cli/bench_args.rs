//! The flags of `chiffon bench` and `cargo bench -- ...`, turned into a [`BenchConfig`].

use std::path::PathBuf;

use anyhow::bail;
use clap::Args;

use super::SolverArgs;
use super::parse;
use crate::config::DEFAULT_WORKGROUP_SIZE;
use crate::tools::BackendKind as Backend;
use crate::tools::bench::{
    BenchConfig, BenchOutputs, BenchPath, ColliderSet, MAX_FRAMES, Preset, Scene, SceneConfig,
    Sheet,
};
use crate::tools::scenes::standard_params;

/// The presets (from [`BenchConfig::preset`], the one place they are decided) and the commands
/// a newcomer and the docs run, shown under `chiffon bench --help`.
fn after_help() -> String {
    let mut s = String::from("Presets (flags given explicitly win):\n");
    for (preset, flag) in [
        (Preset::Default, "(no flag)"),
        (Preset::Quick, "--quick"),
        (Preset::Full, "--full"),
    ] {
        for scene in Scene::ALL {
            let cfg = BenchConfig::preset(scene, preset);
            let what = match &cfg.scene {
                SceneConfig::Standard(c) => format!("sizes {:?}", c.sizes),
                SceneConfig::Capes(c) => format!(
                    "{:?} capes of {}x{}",
                    c.cloths, c.cloth_size.0, c.cloth_size.1
                ),
                SceneConfig::Heap(h) => format!("sizes {:?}, self-collision off and on", h.sizes),
                SceneConfig::Colliders(c) => format!(
                    "sizes {:?}, a mesh of {} triangles",
                    c.sizes,
                    2 * c.mesh.1 * c.mesh.0.saturating_sub(1)
                ),
            };
            s.push_str(&format!(
                "  {flag:<10} --scene {:<9} {what}, {} frames after {} warm-up\n",
                scene.name(),
                cfg.frames,
                cfg.warmup
            ));
        }
    }
    s.push_str(
        "\n\
         A first run (under a minute on 2 CPU cores), its results in a scratch folder:\n  \
         chiffon bench --json target/bench.json --plot target/bench.png\n\
         CI: cargo bench -- --quick\n\
         Regenerating the committed figures (minutes):\n  \
         chiffon bench --full --json docs/bench-lavapipe.json --plot docs/bench-lavapipe.png\n  \
         chiffon bench --full --scene capes --json docs/bench-capes-lavapipe.json \\\n    \
         --plot docs/bench-capes-lavapipe.png\n\
         Contact (ratios to the same frame without it):\n  \
         chiffon bench --scene heap --json target/heap.json\n  \
         chiffon bench --scene colliders --json target/colliders.json",
    );
    s
}

/// Benchmark flags.
#[derive(Args, Debug, Clone)]
#[command(after_help = after_help())]
pub struct BenchArgs {
    /// Which scene: standard (one N×N sheet per size), capes (many small cloths), heap (a
    /// towel dropped by a corner, self-collision on and off) or colliders (a sheet falling onto
    /// no collider, a sphere, 64 capsules or a 100 000-triangle mesh).
    #[arg(long, default_value = "standard")]
    pub scene: Scene,
    /// The smallest sizes and few frames: seconds in all (CI runs this).
    #[arg(long, conflicts_with = "full")]
    pub quick: bool,
    /// The sweep behind the committed figures in docs/: minutes.
    #[arg(long)]
    pub full: bool,
    /// Standard, heap and colliders scenes: grid sizes N (N×N particles), comma-separated
    /// [default: the preset's].
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true, value_parser = parse_grid_side)]
    pub sizes: Option<Vec<u32>>,
    /// Standard scene: turn off structural constraints.
    #[arg(long)]
    pub no_structural: bool,
    /// Standard scene: turn off shear constraints.
    #[arg(long)]
    pub no_shear: bool,
    /// Standard scene: turn off bend constraints.
    #[arg(long)]
    pub no_bend: bool,
    /// Standard scene: which sheets at each size, comma-separated: grid (N×N), irregular
    /// (about N×N particles, a Delaunay triangulation of jittered points) [default: grid].
    #[arg(long, value_delimiter = ',')]
    pub sheets: Option<Vec<Sheet>>,
    /// Standard scene: every sheet's membrane [default: edges].
    #[arg(long, value_enum)]
    pub membrane: Option<super::scene::MembraneArg>,
    /// Capes scene: numbers of capes, comma-separated [default: the preset's].
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true, value_parser = parse_cloth_count)]
    pub cloths: Option<Vec<u32>>,
    /// Capes scene: particles of one cape, COLUMNSxROWS [default: the preset's].
    #[arg(long, value_parser = parse::grid)]
    pub cloth_size: Option<(u32, u32)>,
    /// Capes scene: how to solve them, comma-separated: fused (a world, one workgroup per
    /// cape), global (a world, color c of every cape in one dispatch), separate (one solver
    /// per cape), auto (a world that times fused and global over its first frames and keeps
    /// the faster) [default: fused,global,separate,auto].
    #[arg(long, value_delimiter = ',')]
    pub path: Option<Vec<BenchPath>>,
    /// Capes scene: threads per workgroup of the fused kernel (default: 64 on a CPU adapter,
    /// 128 on a GPU).
    #[arg(long)]
    pub fused_workgroup_size: Option<u32>,
    /// Capes scene: capes of each count that hang at rest from the start (and sleep once the
    /// warm-up outlasts the world's sleep frames, 60) [default: 0].
    #[arg(long)]
    pub at_rest: Option<u32>,
    /// Capes scene: run each world with sleeping on, off, or both (on,off) [default: on].
    #[arg(long, value_delimiter = ',', value_parser = parse_on_off)]
    pub sleep: Option<Vec<bool>>,
    /// Colliders scene: which collider sets to time, comma-separated: none, sphere, box (a
    /// turned table), capsules (64), mesh (100 000+ triangles) [default: all five].
    #[arg(long, value_delimiter = ',')]
    pub colliders: Option<Vec<ColliderSet>>,
    /// Solver flags (the library's defaults where not given).
    #[command(flatten)]
    pub solver: SolverArgs,
    /// Timed frames per case, 1 to 10000 [default: the preset's].
    #[arg(long, allow_negative_numbers = true, value_parser = parse_frames)]
    pub frames: Option<usize>,
    /// Untimed frames before timing, 0 to 10000 [default: the preset's].
    #[arg(long, allow_negative_numbers = true, value_parser = parse_warmup)]
    pub warmup: Option<usize>,
    /// Which solvers to run: gpu, cpu or both.
    #[arg(long, default_value = "both", value_parser = parse_backends)]
    pub backend: Backends,
    /// The device's peak memory bandwidth (GB/s), to report achieved bandwidth as a percentage.
    #[arg(long, allow_negative_numbers = true)]
    pub peak_gbps: Option<f64>,
    /// Threads per workgroup of the solver kernels.
    #[arg(long, default_value_t = DEFAULT_WORKGROUP_SIZE)]
    pub workgroup_size: u32,
    /// Write one JSON record per case to this .json file (its folder must exist; checked
    /// before the run).
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Plot the scene's timings (log-log) to this .svg or .png file (its folder must exist;
    /// checked before the run).
    #[arg(long)]
    pub plot: Option<PathBuf>,
}

/// The backends `--backend` names (a newtype, because clap reads a `Vec` field as a list).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Backends(pub Vec<Backend>);

/// `gpu`, `cpu` or `both`.
fn parse_backends(s: &str) -> Result<Backends, String> {
    if s == "both" {
        Ok(Backends(Backend::ALL.to_vec()))
    } else {
        <Backend as clap::ValueEnum>::from_str(s, false)
            .map(|b| Backends(vec![b]))
            .map_err(|_| format!("{s:?} is not gpu, cpu or both"))
    }
}

/// A whole number from `min` to `max`, `what` naming the unit in the error.
fn bounded(s: &str, min: u64, max: u64, what: &str) -> Result<u64, String> {
    let n = parse::count(s, min)?;
    if n > max {
        return Err(format!("{s:?} is more than the {max} {what}"));
    }
    Ok(n)
}

/// `on` or `off`.
fn parse_on_off(s: &str) -> Result<bool, String> {
    match s {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("{s:?} is not on or off")),
    }
}

fn parse_grid_side(s: &str) -> Result<u32, String> {
    bounded(s, 2, u32::MAX.into(), "particles a grid side can have").map(|n| n as u32)
}

fn parse_cloth_count(s: &str) -> Result<u32, String> {
    bounded(s, 1, u32::MAX.into(), "cloths a count can have").map(|n| n as u32)
}

fn parse_frames(s: &str) -> Result<usize, String> {
    bounded(s, 1, MAX_FRAMES as u64, "frames a case may time").map(|n| n as usize)
}

fn parse_warmup(s: &str) -> Result<usize, String> {
    bounded(s, 0, MAX_FRAMES as u64, "frames a case may warm up").map(|n| n as usize)
}

impl BenchArgs {
    /// Which preset `--quick` and `--full` ask for.
    pub fn preset(&self) -> Preset {
        match (self.quick, self.full) {
            (true, _) => Preset::Quick,
            (_, true) => Preset::Full,
            _ => Preset::Default,
        }
    }

    /// The benchmark configuration (the preset, with every flag given applied) and where its
    /// results go. A flag of another scene is refused, not ignored.
    pub fn config(&self) -> anyhow::Result<(BenchConfig, BenchOutputs)> {
        let mut cfg = BenchConfig::preset(self.scene, self.preset());
        cfg.params = self.solver.apply(standard_params())?;
        if let Some(frames) = self.frames {
            cfg.frames = frames;
        }
        if let Some(warmup) = self.warmup {
            cfg.warmup = warmup;
        }
        cfg.backends = self.backend.0.clone();
        cfg.peak_gbps = self.peak_gbps;
        cfg.workgroup_size = self.workgroup_size;
        // Each scene's own flags, and the scenes that take them: any other refuses them.
        let flags: [(&str, bool, &[Scene]); 13] = [
            (
                "--sizes",
                self.sizes.is_some(),
                &[Scene::Standard, Scene::Heap, Scene::Colliders],
            ),
            ("--no-structural", self.no_structural, &[Scene::Standard]),
            ("--no-shear", self.no_shear, &[Scene::Standard]),
            ("--no-bend", self.no_bend, &[Scene::Standard]),
            ("--sheets", self.sheets.is_some(), &[Scene::Standard]),
            ("--membrane", self.membrane.is_some(), &[Scene::Standard]),
            ("--cloths", self.cloths.is_some(), &[Scene::Capes]),
            ("--cloth-size", self.cloth_size.is_some(), &[Scene::Capes]),
            ("--path", self.path.is_some(), &[Scene::Capes]),
            (
                "--fused-workgroup-size",
                self.fused_workgroup_size.is_some(),
                &[Scene::Capes],
            ),
            ("--at-rest", self.at_rest.is_some(), &[Scene::Capes]),
            ("--sleep", self.sleep.is_some(), &[Scene::Capes]),
            ("--colliders", self.colliders.is_some(), &[Scene::Colliders]),
        ];
        if let Some((flag, _, scenes)) = flags
            .iter()
            .find(|(_, given, scenes)| *given && !scenes.contains(&self.scene))
        {
            let names: Vec<String> = scenes.iter().map(|s| format!("--scene {s}")).collect();
            bail!(
                "{flag} is a flag of {}, not of --scene {}",
                names.join(" and "),
                self.scene
            );
        }
        match &mut cfg.scene {
            SceneConfig::Standard(s) => {
                if let Some(sizes) = &self.sizes {
                    s.sizes = sizes.clone();
                }
                s.kinds = [!self.no_structural, !self.no_shear, !self.no_bend];
                if let Some(sheets) = &self.sheets {
                    s.sheets = sheets.clone();
                }
                if let Some(m) = self.membrane {
                    s.membrane = m.into();
                }
                // A triangle solves its stretch and its shear together: one of the two alone
                // would be ignored (`ClothBuilder::membrane`), so it is refused.
                if s.membrane == crate::Membrane::Triangles && self.no_structural != self.no_shear {
                    let flag = if self.no_shear {
                        "--no-shear"
                    } else {
                        "--no-structural"
                    };
                    bail!(
                        "{flag} does not go with --membrane triangles: each triangle solves its \
                         stretch and its shear together (soften the shear with \
                         --compliance-shear, or leave both out)"
                    );
                }
            }
            SceneConfig::Capes(c) => {
                if let Some(cloths) = &self.cloths {
                    c.cloths = cloths.clone();
                }
                if let Some(size) = self.cloth_size {
                    c.cloth_size = size;
                }
                if let Some(paths) = &self.path {
                    c.paths = paths.clone();
                }
                c.fused_workgroup_size = self.fused_workgroup_size;
                if let Some(n) = self.at_rest {
                    c.at_rest = n;
                }
                if let Some(sleep) = &self.sleep {
                    c.sleep = sleep.clone();
                }
            }
            SceneConfig::Heap(h) => {
                if let Some(sizes) = &self.sizes {
                    h.sizes = sizes.clone();
                }
            }
            SceneConfig::Colliders(c) => {
                if let Some(sizes) = &self.sizes {
                    c.sizes = sizes.clone();
                }
                if let Some(sets) = &self.colliders {
                    // Named twice, a set ran twice with no word (and its rows read as two
                    // measurements of different things).
                    for (k, set) in sets.iter().enumerate() {
                        if let Some(first) = sets[..k].iter().position(|s| s == set) {
                            anyhow::bail!(
                                "--colliders names {set} twice (at {} and {}); each set runs once",
                                first + 1,
                                k + 1
                            );
                        }
                    }
                    c.sets = sets.clone();
                }
            }
        }
        let outputs = BenchOutputs {
            json: self.json.clone(),
            plot: self.plot.clone(),
        };
        Ok((cfg, outputs))
    }

    /// Runs the benchmark of `--scene` and prints the report; the configuration and the
    /// output paths are checked before anything runs.
    pub fn run(&self) -> anyhow::Result<()> {
        let (config, outputs) = self.config()?;
        crate::tools::bench::run_and_report(&config, &outputs)?;
        Ok(())
    }
}
