//! The tools built on the library: the `chiffon` command line, the benchmark, the integrator
//! study, the demo, and the scenes they share. Not part of the library's API.

pub mod bench;
pub mod cli;
#[cfg(feature = "demo")]
pub mod demo;
pub mod dt;
pub mod plot;
pub mod png;
pub mod study;

/// The scenes the tools share with the web page (`crate::scenes`, feature `scenes`).
pub use crate::scenes;

/// Which solver a tool runs: the GPU or the CPU reference (the command line's `gpu`/`cpu`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum BackendKind {
    /// The WGSL kernels on a wgpu adapter.
    Gpu,
    /// The CPU reference.
    Cpu,
}

impl BackendKind {
    /// Both, GPU first.
    pub const ALL: [BackendKind; 2] = [BackendKind::Gpu, BackendKind::Cpu];

    /// `gpu` or `cpu`.
    pub fn name(self) -> &'static str {
        match self {
            BackendKind::Gpu => "gpu",
            BackendKind::Cpu => "cpu",
        }
    }

    /// The backend, on `ctx` for the GPU; asking for the GPU without a context is an error.
    pub fn on(self, ctx: Option<&crate::GpuContext>) -> anyhow::Result<crate::Backend<'_>> {
        match (self, ctx) {
            (BackendKind::Cpu, _) => Ok(crate::Backend::Cpu),
            (BackendKind::Gpu, Some(ctx)) => Ok(crate::Backend::Gpu(ctx)),
            (BackendKind::Gpu, None) => anyhow::bail!("the GPU backend needs a GPU context"),
        }
    }
}

impl std::fmt::Display for BackendKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
