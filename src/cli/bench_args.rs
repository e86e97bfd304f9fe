//! The flags of `chiffon bench` and `cargo bench -- ...`, turned into a [`BenchConfig`].

use std::path::PathBuf;

use clap::Args;

use super::SolverArgs;
use crate::bench::{BenchConfig, BenchOutputs};
use crate::config::DEFAULT_WORKGROUP_SIZE;
use crate::scenes::standard_params;
use crate::solver::Backend;

/// Benchmark flags.
#[derive(Args, Debug, Clone)]
pub struct BenchArgs {
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

/// `gpu`, `cpu` or `both`.
fn parse_backends(s: &str) -> Result<Backends, String> {
    if s == "both" {
        Ok(Backends(Backend::ALL.to_vec()))
    } else {
        s.parse::<Backend>()
            .map(|b| Backends(vec![b]))
            .map_err(|e| format!("{e}, or both"))
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

    /// Runs the benchmark and prints the report.
    pub fn run(&self) -> anyhow::Result<Vec<crate::bench::BenchRecord>> {
        let (config, outputs) = self.config()?;
        Ok(crate::bench::run_and_report(&config, &outputs)?)
    }
}
