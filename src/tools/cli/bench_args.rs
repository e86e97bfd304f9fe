//! The flags of `chiffon bench` and `cargo bench -- ...`, turned into a [`BenchConfig`].

use std::path::PathBuf;

use clap::Args;

use super::SolverArgs;
use crate::config::DEFAULT_WORKGROUP_SIZE;
use crate::tools::BackendKind as Backend;
use crate::tools::bench::capes::{BenchPath, CapesConfig};
use crate::tools::bench::{BenchConfig, BenchOutputs};
use crate::tools::scenes::standard_params;

/// Benchmark flags.
#[derive(Args, Debug, Clone)]
pub struct BenchArgs {
    /// Which scene: `standard` (one N×N sheet per size) or `capes` (many small cloths).
    #[arg(long, default_value = "standard", value_parser = ["standard", "capes"])]
    pub scene: String,
    /// Capes scene: numbers of capes, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,10,100")]
    pub cloths: Vec<u32>,
    /// Capes scene: particles of one cape, COLUMNSxROWS.
    #[arg(long, default_value = "32x32", value_parser = parse_cloth_size)]
    pub cloth_size: (u32, u32),
    /// Capes scene: how to solve them, comma-separated: fused (a world, one workgroup per
    /// cape), global (a world, color c of every cape in one dispatch), separate (one solver
    /// per cape).
    #[arg(long, value_delimiter = ',', default_value = "fused,global,separate")]
    pub path: Vec<BenchPath>,
    /// Capes scene: threads per workgroup of the fused kernel (default: 16 on a CPU adapter,
    /// 128 on a GPU).
    #[arg(long)]
    pub fused_workgroup_size: Option<u32>,
    /// Grid sizes N (N×N particles), comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "64,128,256")]
    pub sizes: Vec<u32>,
    /// Solver flags (the library's defaults where not given).
    #[command(flatten)]
    pub solver: SolverArgs,
    /// Timed frames per case.
    #[arg(long, default_value_t = 60)]
    pub frames: usize,
    /// Untimed frames before timing.
    #[arg(long, default_value_t = 10)]
    pub warmup: usize,
    /// Which solvers to run: gpu, cpu or both.
    #[arg(long, default_value = "both", value_parser = parse_backends)]
    pub backend: Backends,
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
    #[arg(long, default_value_t = DEFAULT_WORKGROUP_SIZE)]
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

/// The backends `--backend` names (a newtype, because clap reads a `Vec` field as a list).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Backends(pub Vec<Backend>);

/// `COLUMNSxROWS`.
fn parse_cloth_size(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("{s:?} is not COLUMNSxROWS (e.g. 32x32)");
    let (c, r) = s.split_once(['x', 'X']).ok_or_else(bad)?;
    Ok((
        c.trim().parse().map_err(|_| bad())?,
        r.trim().parse().map_err(|_| bad())?,
    ))
}

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

impl BenchArgs {
    /// The benchmark configuration and where its results go.
    pub fn config(&self) -> anyhow::Result<(BenchConfig, BenchOutputs)> {
        Ok((
            BenchConfig {
                sizes: self.sizes.clone(),
                params: self.solver.apply(standard_params())?,
                frames: self.frames,
                warmup: self.warmup,
                backends: self.backend.0.clone(),
                kinds: [!self.no_structural, !self.no_shear, !self.no_bend],
                peak_gbps: self.peak_gbps,
                workgroup_size: self.workgroup_size,
                quick: self.quick,
            },
            BenchOutputs {
                json: self.json.clone(),
                plot: self.plot.clone(),
            },
        ))
    }

    /// The capes scene's configuration (the solver, frame and output flags are shared).
    pub fn capes_config(&self) -> anyhow::Result<CapesConfig> {
        let (c, _) = self.config()?;
        let quick = self.quick;
        Ok(CapesConfig {
            cloths: if quick {
                vec![1, 4]
            } else {
                self.cloths.clone()
            },
            cloth_size: if quick { (16, 16) } else { self.cloth_size },
            paths: self.path.clone(),
            backends: c.backends,
            params: c.params,
            frames: if quick { c.frames.min(5) } else { c.frames },
            warmup: if quick { c.warmup.min(1) } else { c.warmup },
            workgroup_size: c.workgroup_size,
            fused_workgroup_size: self.fused_workgroup_size,
            peak_gbps: c.peak_gbps,
        })
    }

    /// Runs the benchmark of `--scene` and prints the report.
    pub fn run(&self) -> anyhow::Result<()> {
        let (config, outputs) = self.config()?;
        if self.scene == "capes" {
            crate::tools::bench::capes::run_and_report(&self.capes_config()?, &outputs)?;
        } else {
            crate::tools::bench::run_and_report(&config, &outputs)?;
        }
        Ok(())
    }
}
