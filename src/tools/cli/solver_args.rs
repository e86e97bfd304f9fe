//! The solver flags shared by `simulate`, `conform` and `bench`. Every flag is optional: what
//! is not given keeps the base parameters ([`SolverParams::default`] for the command line).
//! The flags set fields and nothing more: [`SolverParams::validate`] judges them, and its
//! error is prefixed with the flag's name. The help shows the library's defaults.

use std::fmt::Display;

use anyhow::{Context, Result};
use clap::Args;
use glam::Vec3;

use super::parse;
use crate::Integrator;
use crate::params::{
    AUTO_LIMIT_MIN, AUTO_LIMIT_SCALE, LimitFrames, Projection, SolverParams, Substeps, TetherParams,
};

/// `text [default: value]`: help whose default comes from the library, never a copy of it.
pub(super) fn with_default(text: &str, default: impl Display) -> String {
    format!("{text} [default: {default}]")
}

/// The library's defaults, which the help quotes.
fn defaults() -> SolverParams {
    SolverParams::default()
}

fn on_off(on: bool) -> &'static str {
    if on { "on" } else { "off" }
}

/// The names of a `named_enum!`, for the help: `a, b or c`.
fn choices(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

fn strain_limit_help() -> String {
    let text = "With contact, the longest a structural edge may be at each frame's end, × its \
                rest length (with --strain-limit-frames all without contact too), or none";
    match defaults().strain_limit {
        Some(f) => with_default(text, f),
        None => with_default(text, "none"),
    }
}

fn integrator_help() -> String {
    with_default(
        &format!(
            "Integrator: {}",
            choices(&Integrator::ALL.map(Integrator::name))
        ),
        defaults().integrator,
    )
}

fn frequency_help() -> String {
    let text = "Solver frequency in Hz: each frame runs max(1, round(dt · HZ)) substeps";
    match defaults().substeps {
        Substeps::Frequency(f) => with_default(text, f),
        Substeps::Fixed(_) => text.to_string(),
    }
}

fn substeps_help() -> String {
    let text = "Fixed substeps per frame (instead of --frequency)";
    match defaults().substeps {
        Substeps::Fixed(n) => with_default(text, n),
        Substeps::Frequency(_) => text.to_string(),
    }
}

fn projection_help() -> String {
    with_default(
        &format!(
            "Constraint direction: {} (shake keeps energy, jakobsen bleeds it)",
            choices(&Projection::ALL.map(Projection::name))
        ),
        defaults().projection,
    )
}

fn strain_limit_frames_help() -> String {
    with_default(
        &format!(
            "Which frames run the strain limit: {} (all: every frame also ends within it, \
             a cloth that hangs free too; an irregular mesh's folds, docs/quality.md)",
            choices(&LimitFrames::ALL.map(LimitFrames::name))
        ),
        defaults().strain_limit_frames,
    )
}

fn tether_defaults() -> TetherParams {
    defaults().tethers.unwrap_or_default()
}

fn max_distance_help() -> String {
    with_default(
        "Distance (m) from the scene's centre beyond which a particle counts as diverged and the \
         run stops",
        format!(
            "automatic: {AUTO_LIMIT_SCALE} × the scene's half-diagonal, at least {AUTO_LIMIT_MIN} m"
        ),
    )
}

/// Solver flags.
#[derive(Args, Debug, Clone, Default)]
pub struct SolverArgs {
    /// Integrator (`Integrator::name`).
    #[arg(long, value_name = "NAME", help = integrator_help(), allow_hyphen_values = true)]
    pub integrator: Option<Integrator>,
    /// Constraint sweeps per substep.
    #[arg(long, value_name = "N", value_parser = |s: &str| parse::count_u32(s, 0), allow_hyphen_values = true,
          help = with_default("Constraint sweeps per substep", defaults().iterations))]
    pub iterations: Option<u32>,
    /// Fixed substeps per frame (instead of --frequency).
    #[arg(long, value_name = "N", conflicts_with = "frequency", value_parser = |s: &str| parse::count_u32(s, 0),
          allow_hyphen_values = true, help = substeps_help())]
    pub substeps: Option<u32>,
    /// Solver frequency (Hz).
    #[arg(long, value_name = "HZ", value_parser = parse::number, allow_hyphen_values = true, help = frequency_help())]
    pub frequency: Option<f32>,
    /// XPBD compliance of structural constraints (m/N).
    #[arg(long, value_name = "M_PER_N", value_parser = parse::number, allow_hyphen_values = true,
          help = with_default("XPBD compliance of structural constraints, m/N (0 = rigid)",
                              defaults().compliance.stretch))]
    pub compliance_stretch: Option<f32>,
    /// XPBD compliance of shear constraints (m/N).
    #[arg(long, value_name = "M_PER_N", value_parser = parse::number, allow_hyphen_values = true,
          help = with_default("XPBD compliance of shear constraints, m/N",
                              defaults().compliance.shear))]
    pub compliance_shear: Option<f32>,
    /// XPBD compliance of bend constraints (m/N): ropes, and folds in a mesh's rest shape.
    #[arg(long, value_name = "M_PER_N", value_parser = parse::number, allow_hyphen_values = true,
          help = with_default("XPBD compliance of bend constraints (ropes, and a mesh's edges folded at rest), m/N",
                              defaults().compliance.bend))]
    pub compliance_bend: Option<f32>,
    /// Compliance of a sheet's isometric bending (1/(N·m)).
    #[arg(long, value_name = "PER_NM", value_parser = parse::number, allow_hyphen_values = true,
          help = with_default("Compliance of a sheet's bending (grids and meshes), 1/(N·m): the inverse of its bending stiffness (ropes use --compliance-bend)",
                              defaults().compliance.curvature))]
    pub compliance_curvature: Option<f32>,
    /// Long-range attachments to the pinned particles: on or off.
    #[arg(long, value_name = "on|off", value_parser = parse::on_off, allow_hyphen_values = true,
          help = with_default("Long-range attachments to the pinned particles: on or off",
                              on_off(defaults().tethers.is_some())))]
    pub tethers: Option<bool>,
    /// Tether slack (≥ 1).
    #[arg(long, value_name = "FACTOR", value_parser = parse::number, allow_hyphen_values = true,
          help = with_default("Tether slack: a particle may be this many times its geodesic \
                               distance from a pin (1 = none)", tether_defaults().scale))]
    pub tether_scale: Option<f32>,
    /// Fraction of a tether's violation corrected per substep.
    #[arg(long, value_name = "FRACTION", value_parser = parse::number, allow_hyphen_values = true,
          help = with_default("Fraction of a tether's violation corrected per substep",
                              tether_defaults().stiffness))]
    pub tether_stiffness: Option<f32>,
    /// Coarse levels (a hierarchical solve, on any cloth): on or off.
    #[arg(long, value_name = "on|off", value_parser = parse::on_off, allow_hyphen_values = true,
          help = with_default("Coarse levels (a hierarchical solve, on any cloth): on or off",
                              on_off(defaults().coarse_levels)))]
    pub coarse_levels: Option<bool>,
    /// Constraint direction (`Projection::name`).
    #[arg(long, value_name = "NAME", help = projection_help(), allow_hyphen_values = true)]
    pub projection: Option<Projection>,
    /// Over-relaxation factor of constraint corrections.
    #[arg(long, value_name = "FACTOR", value_parser = parse::number, allow_hyphen_values = true,
          help = with_default("Over-relaxation factor of constraint corrections (1 = none)",
                              defaults().over_relaxation))]
    pub over_relaxation: Option<f32>,
    /// The strain limit after contact (× rest length), or none.
    #[arg(long, value_name = "FACTOR|none",
          value_parser = |s: &str| parse::maybe(s, parse::number), allow_hyphen_values = true,
          help = strain_limit_help())]
    pub strain_limit: Option<parse::Maybe<f32>>,
    /// Which frames run the strain limit (`LimitFrames::name`).
    #[arg(long, value_name = "contact|all", allow_hyphen_values = true,
          help = strain_limit_frames_help())]
    pub strain_limit_frames: Option<LimitFrames>,
    /// Velocity damping rate (1/s).
    #[arg(long, value_name = "PER_S", value_parser = parse::number, allow_hyphen_values = true,
          help = with_default("Velocity damping rate, 1/s (frame-rate independent; 0 = none)",
                              defaults().damping))]
    pub damping: Option<f32>,
    /// Divergence limit (m); automatic when not given.
    #[arg(long, value_name = "M", value_parser = parse::number, allow_hyphen_values = true,
          help = max_distance_help())]
    pub max_distance: Option<f32>,
    /// Air blowing at this velocity x,y,z (m/s), with drag and lift on every triangle; without
    /// it and the other air flags, a vacuum. `--wind 0,0,0` is still air, which only drags.
    #[arg(long, value_name = "X,Y,Z", value_parser = parse::vec3, allow_hyphen_values = true)]
    pub wind: Option<Vec3>,
    /// Gusts, a fraction of the wind's speed (0 steady; 0.3 gusty); turns the air on.
    #[arg(long, value_name = "FRACTION", value_parser = parse::number, allow_hyphen_values = true)]
    pub gusts: Option<f32>,
    /// The gusts' seed (the same seed, the same gusts); turns the air on.
    #[arg(long, value_name = "N")]
    pub gust_seed: Option<u32>,
    /// Drag coefficient C_d (default 1); turns the air on.
    #[arg(long, value_name = "C", value_parser = parse::number, allow_hyphen_values = true)]
    pub drag: Option<f32>,
    /// Lift coefficient C_l (default 0.5); turns the air on.
    #[arg(long, value_name = "C", value_parser = parse::number, allow_hyphen_values = true)]
    pub lift: Option<f32>,
    /// The air's density (kg/m³, default 1.2); turns the air on.
    #[arg(long, value_name = "KG_PER_M3", value_parser = parse::number, allow_hyphen_values = true)]
    pub air_density: Option<f32>,
}

/// Sets one flag's field with `set` when the flag was given, then has the library judge the
/// result; its error is prefixed with the flag ("--frequency: invalid solver frequency ...").
/// The parameters before were valid, so the first flag that fails is the one to blame.
pub(super) fn given<T>(
    p: &mut SolverParams,
    flag: &str,
    value: Option<T>,
    set: impl FnOnce(&mut SolverParams, T),
) -> Result<()> {
    if let Some(v) = value {
        set(p, v);
        p.validate().with_context(|| flag.to_string())?;
    }
    Ok(())
}

impl SolverArgs {
    /// `base` with every given flag applied, validated by the library. `--tether-scale` and
    /// `--tether-stiffness` do nothing with `--tethers off` ([`SolverArgs::warnings`] says so).
    pub fn apply(&self, base: SolverParams) -> Result<SolverParams> {
        let mut p = base;
        p.validate().context("the base parameters")?;
        given(&mut p, "--integrator", self.integrator, |p, i| {
            p.integrator = i
        })?;
        given(&mut p, "--iterations", self.iterations, |p, n| {
            p.iterations = n
        })?;
        given(&mut p, "--substeps", self.substeps, |p, n| {
            p.substeps = Substeps::Fixed(n)
        })?;
        given(&mut p, "--frequency", self.frequency, |p, f| {
            p.substeps = Substeps::Frequency(f)
        })?;
        given(
            &mut p,
            "--compliance-stretch",
            self.compliance_stretch,
            |p, a| p.compliance.stretch = a,
        )?;
        given(
            &mut p,
            "--compliance-shear",
            self.compliance_shear,
            |p, a| p.compliance.shear = a,
        )?;
        given(&mut p, "--compliance-bend", self.compliance_bend, |p, a| {
            p.compliance.bend = a
        })?;
        given(
            &mut p,
            "--compliance-curvature",
            self.compliance_curvature,
            |p, a| p.compliance.curvature = a,
        )?;
        given(&mut p, "--tethers", self.tethers, |p, on| {
            p.tethers = on.then(|| p.tethers.unwrap_or_default())
        })?;
        given(&mut p, "--tether-scale", self.tether_scale, |p, s| {
            if let Some(t) = &mut p.tethers {
                t.scale = s
            }
        })?;
        given(
            &mut p,
            "--tether-stiffness",
            self.tether_stiffness,
            |p, k| {
                if let Some(t) = &mut p.tethers {
                    t.stiffness = k
                }
            },
        )?;
        given(&mut p, "--coarse-levels", self.coarse_levels, |p, on| {
            p.coarse_levels = on
        })?;
        given(&mut p, "--projection", self.projection, |p, pr| {
            p.projection = pr
        })?;
        given(&mut p, "--over-relaxation", self.over_relaxation, |p, w| {
            p.over_relaxation = w
        })?;
        given(&mut p, "--damping", self.damping, |p, d| p.damping = d)?;
        given(&mut p, "--strain-limit", self.strain_limit, |p, m| {
            p.strain_limit = m.0
        })?;
        given(
            &mut p,
            "--strain-limit-frames",
            self.strain_limit_frames,
            |p, f| p.strain_limit_frames = f,
        )?;
        given(&mut p, "--max-distance", self.max_distance, |p, d| {
            p.max_distance = Some(d)
        })?;
        self.air(&mut p)?;
        Ok(p)
    }

    /// The one place the air's flags become [`crate::Air`]: on when any is given.
    fn air(&self, p: &mut SolverParams) -> Result<()> {
        let any = self.wind.is_some()
            || self.gusts.is_some()
            || self.gust_seed.is_some()
            || self.drag.is_some()
            || self.lift.is_some()
            || self.air_density.is_some();
        if !any {
            return Ok(());
        }
        let d = crate::Air::default();
        let air = crate::Air {
            wind: self.wind.unwrap_or(Vec3::ZERO),
            density: self.air_density.unwrap_or(d.density),
            drag: self.drag.unwrap_or(d.drag),
            lift: self.lift.unwrap_or(d.lift),
            gusts: self.gusts.unwrap_or(d.gusts),
            seed: self.gust_seed.unwrap_or(d.seed),
            ..d
        };
        p.air = Some(air);
        p.validate()
            .context("the air flags (--wind, --gusts, --drag, --lift, --air-density)")?;
        Ok(())
    }

    /// What the flags ask for that does nothing or undoes itself, under `params` (the
    /// parameters [`SolverArgs::apply`] made): one sentence each, for a warning.
    pub fn warnings(&self, params: &SolverParams) -> Vec<String> {
        let mut out = Vec::new();
        if params.iterations == 0 {
            out.push(
                "--iterations 0 skips every constraint sweep: the cloth's own constraints are \
                 never solved (only coarse levels, tethers and colliders act)"
                    .to_string(),
            );
        }
        if params.tethers.is_none() {
            for (flag, given) in [
                ("--tether-scale", self.tether_scale.is_some()),
                ("--tether-stiffness", self.tether_stiffness.is_some()),
            ] {
                if given {
                    out.push(format!("{flag} does nothing with --tethers off"));
                }
            }
        }
        if params.strain_limit.is_none() && self.strain_limit_frames.is_some() {
            out.push("--strain-limit-frames does nothing with --strain-limit none".to_string());
        }
        out
    }
}
