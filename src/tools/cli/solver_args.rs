//! The solver flags shared by `simulate`, `conform` and `bench`. Every flag is optional: what
//! is not given keeps the library's default ([`SolverParams::default`]).

use anyhow::{Result, bail};
use clap::Args;

use crate::params::{Projection, SolverParams, Substeps};
use crate::{Integrator, Solver};

/// Solver flags.
#[derive(Args, Debug, Clone, Default)]
pub struct SolverArgs {
    /// Integrator: verlet, tcv or tcv-exact [default: tcv].
    #[arg(long, value_parser = parse_integrator)]
    pub integrator: Option<Integrator>,
    /// Constraint sweeps per substep [default: 1].
    #[arg(long)]
    pub iterations: Option<u32>,
    /// Fixed substeps per frame (instead of --frequency).
    #[arg(long, conflicts_with = "frequency")]
    pub substeps: Option<u32>,
    /// Solver frequency in Hz: each frame runs max(1, round(dt · HZ)) substeps [default: 360].
    #[arg(long, allow_hyphen_values = true)]
    pub frequency: Option<f32>,
    /// XPBD compliance of structural constraints, m/N (0 = rigid) [default: 0].
    #[arg(long, allow_hyphen_values = true)]
    pub compliance_stretch: Option<f32>,
    /// XPBD compliance of shear constraints, m/N [default: 0].
    #[arg(long, allow_hyphen_values = true)]
    pub compliance_shear: Option<f32>,
    /// XPBD compliance of bend constraints, m/N [default: 0.01].
    #[arg(long, allow_hyphen_values = true)]
    pub compliance_bend: Option<f32>,
    /// Long-range attachments to the pinned particles: on or off [default: on].
    #[arg(long, value_parser = parse_on_off)]
    pub tethers: Option<bool>,
    /// Tether slack: a particle may be this many times its geodesic distance from a pin (≥ 1)
    /// [default: 1].
    #[arg(long, allow_hyphen_values = true)]
    pub tether_scale: Option<f32>,
    /// Fraction of a tether's violation corrected per substep, (0, 1] [default: 1].
    #[arg(long)]
    pub tether_stiffness: Option<f32>,
    /// Coarse levels (hierarchical solve of grid cloths): on or off [default: on].
    #[arg(long, value_parser = parse_on_off)]
    pub coarse_levels: Option<bool>,
    /// Constraint direction: shake (energy-conserving) or jakobsen [default: shake].
    #[arg(long, value_parser = parse_projection)]
    pub projection: Option<Projection>,
    /// Over-relaxation factor of constraint corrections, [1, 2) [default: 1].
    #[arg(long)]
    pub over_relaxation: Option<f32>,
    /// Velocity damping rate, 1/s (frame-rate independent; 0 allowed) [default: 0.5].
    #[arg(long)]
    pub damping: Option<f32>,
}

fn parse_integrator(s: &str) -> Result<Integrator, String> {
    s.parse()
}

fn parse_projection(s: &str) -> Result<Projection, String> {
    s.parse()
}

fn parse_on_off(s: &str) -> Result<bool, String> {
    match s {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("{s:?} is not on or off")),
    }
}

impl SolverArgs {
    /// `base` with every given flag applied, validated.
    pub fn apply(&self, base: SolverParams) -> Result<SolverParams> {
        let mut p = base;
        if let Some(i) = self.integrator {
            p.integrator = i;
        }
        if let Some(n) = self.iterations {
            p.iterations = n;
        }
        if let Some(n) = self.substeps {
            p.substeps = Substeps::Fixed(n);
        }
        if let Some(f) = self.frequency {
            if !(f.is_finite() && f > 0.0) {
                bail!("--frequency {f} must be a positive frequency in Hz");
            }
            p.substeps = Substeps::Frequency(f);
        }
        for (flag, value, slot) in [
            (
                "--compliance-stretch",
                self.compliance_stretch,
                &mut p.compliance.stretch,
            ),
            (
                "--compliance-shear",
                self.compliance_shear,
                &mut p.compliance.shear,
            ),
            (
                "--compliance-bend",
                self.compliance_bend,
                &mut p.compliance.bend,
            ),
        ] {
            if let Some(a) = value {
                if !(a.is_finite() && a >= 0.0) {
                    bail!("{flag} {a} must be a compliance of at least 0 m/N (0 = rigid)");
                }
                *slot = a;
            }
        }
        if self.tethers == Some(false) {
            p.tethers = None;
        } else if self.tethers == Some(true) {
            p.tethers = Some(p.tethers.unwrap_or_default());
        }
        if self.tether_scale.is_some() || self.tether_stiffness.is_some() {
            let Some(t) = p.tethers.as_mut() else {
                bail!("--tether-scale and --tether-stiffness need --tethers on");
            };
            if let Some(s) = self.tether_scale {
                if !(s.is_finite() && s >= 1.0) {
                    bail!("--tether-scale {s} must be at least 1 (1 = no slack)");
                }
                t.scale = s;
            }
            if let Some(k) = self.tether_stiffness {
                t.stiffness = k;
            }
        }
        if let Some(on) = self.coarse_levels {
            p.coarse_levels = on;
        }
        if let Some(pr) = self.projection {
            p.projection = pr;
        }
        if let Some(w) = self.over_relaxation {
            p.over_relaxation = w;
        }
        if let Some(d) = self.damping {
            p.damping = d;
        }
        p.validate()?;
        Ok(p)
    }
}

/// Says once, on stderr, that tethers were asked for but the cloth has no pinned particle.
pub fn note_missing_tethers(solver: &mut Solver) -> Result<()> {
    if solver.params().tethers.is_some() && solver.tethers()?.is_empty() {
        eprintln!("chiffon: note: tethers are on but the cloth has no pinned particle; no tethers");
    }
    Ok(())
}
