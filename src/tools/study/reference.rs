//! Physical reference systems: scenes whose answers physics knows, run on either backend.
//!
//! - **Hanging rope**: a chain of point masses under gravity, hung from its top, with compliant
//!   links. Link k carries the weight of everything below it, `T_k = g Σ_{j>k} m_j`, and XPBD's
//!   compliance α (m/N) stretches it by exactly `α T_k`: the discrete equilibrium is known link
//!   by link.
//! - **Pendulum**: one mass on a rigid massless link, released at rest from 30° with no
//!   damping. Its period is `4 √(L/g) K(sin(θ₀/2))` (K the complete elliptic integral of the
//!   first kind), and energy conservation keeps its amplitude at θ₀ forever.
//! - **Hanging sheet**: a square sheet pinned along its top edge settles hanging straight down
//!   at its rest length.
//!
//! One file, though long: each reference system is a scene and the answer physics gives for
//! it, a screenful each, and they share one runner, one record and one table.

use glam::Vec3;
use serde::Serialize;

use super::cloth::FrameRate;
use crate::cloth::{Cloth, ClothDesc};
use crate::constraint::{Constraint, ConstraintKind};
use crate::error::Result;
use crate::gpu::GpuContext;
use crate::params::{Compliance, Projection, SolverParams};
use crate::{ClothBuilder, Layout, Pinning};

/// Gravity of the reference runs (m/s²).
pub const G: f32 = 9.81;

/// A vertical rope of `links` links `rest` long ([`ClothBuilder::rope`]), top pinned, weighing
/// `mass` per link: each particle carries half of each link it ends (the last one `mass / 2`).
/// Stretch constraints only, so the links' tensions are the whole story.
pub fn rope(links: u32, rest: f32, mass: f32) -> Result<Cloth> {
    ClothBuilder::rope(
        (0..=links)
            .map(|k| Vec3::new(0.0, -(k as f32) * rest, 0.0))
            .collect(),
    )
    .density(mass / rest)
    .constraint(ConstraintKind::Bend, false)
    .pinning(Pinning::List(vec![0]))
    .build()
}

/// The hanging rope's answer and what the solver made of it.
#[derive(Clone, Debug, Serialize)]
pub struct RopeRecord {
    /// What ran it.
    pub backend: String,
    /// Links in the chain.
    pub links: u32,
    /// Stretch compliance (m/N).
    pub compliance: f32,
    /// Each link's length at rest under load (m): measured.
    pub measured_m: Vec<f32>,
    /// Each link's exact length, `L + α g Σ_{j>k} m_j` (m).
    pub exact_m: Vec<f32>,
    /// Largest |measured − exact| over the links, as a fraction of the exact stretch of the
    /// top link (the largest).
    pub max_error_of_top_stretch: f32,
    /// Total length (m): measured and exact.
    pub length_m: (f32, f32),
}

/// Settles a 20-link rope (5 cm links, 10 g per link, compliance 0.005 m/N, so the top link
/// stretches by 9.6 mm and the whole rope by 10 %) for `seconds` at 60 fps with strong damping,
/// and compares every link with its exact loaded length.
pub fn hanging_rope(gpu: Option<&GpuContext>, seconds: f32) -> Result<RopeRecord> {
    let (links, rest, mass, alpha) = (20u32, 0.05f32, 0.01f32, 0.005f32);
    let cloth = rope(links, rest, mass)?;
    let params = SolverParams {
        gravity: Vec3::new(0.0, -G, 0.0),
        damping: 4.0,
        compliance: Compliance {
            stretch: alpha,
            ..Compliance::RIGID
        },
        // The rope's loaded length exceeds its rest length on purpose: tethers (which hold a
        // cloth to its rest geodesics) would fight the compliance.
        tethers: None,
        // XPBD's equilibrium (C = α T) holds once the multipliers converge within a substep;
        // one sweep leaves a Gauss-Seidel bias of about 1 mm over this chain.
        iterations: 8,
        ..SolverParams::default()
    };
    let mut s = super::solver(gpu, &cloth, params)?;
    for _ in 0..(seconds * 60.0) as u32 {
        s.step(1.0 / 60.0)?;
    }
    let x = s.positions()?;
    let measured_m: Vec<f32> = (0..links as usize)
        .map(|k| x[k].distance(x[k + 1]))
        .collect();
    // Link k holds up every particle below it: T_k = g Σ_{j>k} m_j.
    let masses: Vec<f32> = cloth
        .free_inverse_masses()
        .iter()
        .map(|w| 1.0 / w)
        .collect();
    let exact_m: Vec<f32> = (0..links as usize)
        .map(|k| rest + alpha * G * masses[k + 1..].iter().sum::<f32>())
        .collect();
    let top_stretch = exact_m[0] - rest;
    let max_error = measured_m
        .iter()
        .zip(&exact_m)
        .map(|(m, e)| (m - e).abs())
        .fold(0.0, f32::max);
    Ok(RopeRecord {
        backend: s.backend_name(),
        links,
        compliance: alpha,
        length_m: (measured_m.iter().sum(), exact_m.iter().sum()),
        measured_m,
        exact_m,
        max_error_of_top_stretch: max_error / top_stretch,
    })
}

/// A slack chain's link length (m).
pub const CHAIN_LINK: f32 = 0.01;

/// The slack chain: `links` links of 1 cm ([`CHAIN_LINK`]), 20 g per metre, built straight along
/// x and centred at (0, 2, 0), free; [`slack_chain_anchors`] says where its ends are held. The
/// library's default constraints (so the rope's bend constraints too, at their default
/// compliance).
pub fn slack_chain(links: u32) -> Result<Cloth> {
    let links = links.max(1);
    let half = 0.5 * links as f32 * CHAIN_LINK;
    ClothBuilder::rope(
        (0..=links)
            .map(|k| Vec3::new(k as f32 * CHAIN_LINK - half, 2.0, 0.0))
            .collect(),
    )
    .density(0.02)
    .pinning(Pinning::None)
    .build()
}

/// Where the slack chain's ends are held: level, 80 % of its length apart, at y = 2 m (it sags
/// by about a quarter of its length).
pub fn slack_chain_anchors(links: u32) -> [Vec3; 2] {
    let half = 0.4 * links.max(1) as f32 * CHAIN_LINK;
    [Vec3::new(-half, 2.0, 0.0), Vec3::new(half, 2.0, 0.0)]
}

/// The exact discrete catenary: `links` rigid links of length `link` with equal masses at the
/// joints, hung from two level points `span` apart. The horizontal tension H is the same in
/// every link and each joint's weight m g turns the vertical one, so link k's slope is
/// `μ (k − (links − 1)/2)` with μ = m g / H; μ is the one value whose links span `span`
/// (found by bisection: the span shrinks as μ grows). Returns the joints, from (0, 0).
pub fn discrete_catenary(links: u32, link: f64, span: f64) -> Vec<glam::DVec2> {
    let slope = |mu: f64, k: u32| mu * (k as f64 - (links as f64 - 1.0) / 2.0);
    let span_of = |mu: f64| {
        (0..links)
            .map(|k| link / (1.0 + slope(mu, k).powi(2)).sqrt())
            .sum::<f64>()
    };
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    while span_of(hi) > span {
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if span_of(mid) > span {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let mu = 0.5 * (lo + hi);
    let mut at = glam::DVec2::ZERO;
    let mut joints = vec![at];
    for k in 0..links {
        let s = slope(mu, k);
        at += glam::DVec2::new(1.0, s) * (link / (1.0 + s * s).sqrt());
        joints.push(at);
    }
    joints
}

/// The slack chain's answer and what the solver made of it.
#[derive(Clone, Debug, Serialize)]
pub struct ChainRecord {
    /// What ran it.
    pub backend: String,
    /// Links in the chain.
    pub links: u32,
    /// Whether the coarse levels were on.
    pub coarse_levels: bool,
    /// Sag (the lowest joint below the anchors, m): measured and exact.
    pub sag_m: (f32, f32),
    /// |measured − exact| / exact sag.
    pub sag_error: f32,
    /// The longest link over its rest length.
    pub max_link_stretch: f32,
    /// The settled joints and the exact ones, (x, y) relative to the first anchor, for the plot.
    pub shape: Vec<(f64, f64)>,
    /// The exact joints.
    pub exact_shape: Vec<(f64, f64)>,
}

/// Holds the slack chain ([`slack_chain`], `links` links) by its ends 80 % of its length apart
/// and lets it settle for `seconds` at 60 fps with the library's defaults and damping 2/s
/// (coarse levels on or off), then compares its sag with the exact discrete catenary's.
pub fn hanging_chain(
    gpu: Option<&GpuContext>,
    links: u32,
    coarse_levels: bool,
    seconds: f32,
) -> Result<ChainRecord> {
    let cloth = slack_chain(links)?;
    let params = SolverParams {
        damping: 2.0,
        coarse_levels,
        ..SolverParams::default()
    };
    let mut s = super::solver(gpu, &cloth, params)?;
    let anchors = slack_chain_anchors(links);
    s.set_particle(0, anchors[0], 0.0)?;
    s.set_particle(links as usize, anchors[1], 0.0)?;
    for _ in 0..(seconds * 60.0) as u32 {
        s.step(1.0 / 60.0)?;
    }
    let x = s.positions()?;
    let exact = discrete_catenary(
        links,
        CHAIN_LINK as f64,
        anchors[0].distance(anchors[1]) as f64,
    );
    let sag = anchors[0].y - x.iter().map(|p| p.y).fold(f32::INFINITY, f32::min);
    let exact_sag = -exact.iter().map(|p| p.y).fold(f64::INFINITY, f64::min) as f32;
    let max_link_stretch = (0..links as usize)
        .map(|k| x[k].distance(x[k + 1]) / CHAIN_LINK)
        .fold(0.0, f32::max);
    Ok(ChainRecord {
        backend: s.backend_name(),
        links,
        coarse_levels,
        sag_m: (sag, exact_sag),
        sag_error: (sag - exact_sag).abs() / exact_sag,
        max_link_stretch,
        shape: x
            .iter()
            .map(|p| ((p.x - anchors[0].x) as f64, (p.y - anchors[0].y) as f64))
            .collect(),
        exact_shape: exact.iter().map(|p| (p.x, p.y)).collect(),
    })
}

/// The complete elliptic integral of the first kind K(k), by the arithmetic-geometric mean.
pub fn elliptic_k(k: f64) -> f64 {
    let (mut a, mut b) = (1.0f64, (1.0 - k * k).sqrt());
    for _ in 0..40 {
        let (an, bn) = ((a + b) / 2.0, (a * b).sqrt());
        a = an;
        b = bn;
    }
    std::f64::consts::PI / (2.0 * a)
}

/// Exact period (s) of a pendulum of length `l` (m) swinging with amplitude `theta0` (rad).
pub fn pendulum_period(l: f64, theta0: f64) -> f64 {
    4.0 * (l / G as f64).sqrt() * elliptic_k((theta0 / 2.0).sin())
}

/// The pendulum's answer and what the solver made of it.
#[derive(Clone, Debug, Serialize)]
pub struct PendulumRecord {
    /// What ran it.
    pub backend: String,
    /// [`Projection::name`].
    pub projection: &'static str,
    /// The frame times' label.
    pub frames: String,
    /// Release angle (degrees).
    pub release_deg: f64,
    /// Amplitude of the last full swing in the run (degrees).
    pub final_amplitude_deg: f64,
    /// Mean period over the run (s): measured and exact.
    pub period_s: (f64, f64),
    /// (t, angle in degrees) once per frame, for the plot.
    pub trace: Vec<(f64, f64)>,
    /// (t, kinetic, gravitational, total energy in J) once per frame
    /// ([`crate::Solver::energy`]); gravitational is 0 at the pivot.
    pub energy: Vec<(f64, f64, f64, f64)>,
}

impl PendulumRecord {
    /// The largest |E(t) − E(0)| over the run, as a fraction of the swing's energy
    /// m g L (1 − cos θ₀): how far the solver lets the energy drift or decay.
    pub fn energy_drift(&self) -> f64 {
        let swing = G as f64 * 0.5 * (1.0 - self.release_deg.to_radians().cos());
        let e0 = self.energy.first().map_or(0.0, |e| e.3);
        self.energy
            .iter()
            .map(|e| (e.3 - e0).abs())
            .fold(0.0, f64::max)
            / swing
    }

    /// Final amplitude over release angle.
    pub fn amplitude_ratio(&self) -> f64 {
        self.final_amplitude_deg / self.release_deg
    }

    /// |measured − exact| / exact period.
    pub fn period_error(&self) -> f64 {
        (self.period_s.0 - self.period_s.1).abs() / self.period_s.1
    }
}

/// A 0.5 m rigid pendulum (1 kg bob, no damping) released at rest from 30°, run for `seconds`
/// under `frames` with `projection` and otherwise the library's defaults.
pub fn pendulum(
    gpu: Option<&GpuContext>,
    projection: Projection,
    frames: FrameRate,
    seconds: f64,
) -> Result<PendulumRecord> {
    let (l, theta0) = (0.5f32, 30f32.to_radians());
    let cloth = Cloth::new(ClothDesc {
        positions: vec![
            Vec3::ZERO,
            Vec3::new(l * theta0.sin(), -l * theta0.cos(), 0.0),
        ],
        inverse_mass: vec![0.0, 1.0],
        constraints: vec![Constraint::new(0, 1, l, ConstraintKind::Structural)],
        ..Default::default()
    })?;
    let params = SolverParams {
        gravity: Vec3::new(0.0, -G, 0.0),
        damping: 0.0,
        compliance: Compliance::RIGID,
        projection,
        ..SolverParams::default()
    };
    let mut s = super::solver(gpu, &cloth, params)?;
    let mut trace = vec![(0.0, theta0.to_degrees() as f64)];
    let joules = |t: f64, e: crate::quality::Energy| (t, e.kinetic, e.gravitational, e.total());
    let mut energy = vec![joules(0.0, s.energy()?)];
    let mut t = 0.0;
    for dt in frames.sequence(seconds) {
        s.step(dt)?;
        t += dt;
        let x = s.positions()?[1];
        trace.push((t, (x.x as f64).atan2(-x.y as f64).to_degrees()));
        energy.push(joules(t, s.energy()?));
    }
    // Upward zero crossings, linearly interpolated, give the period; the largest |angle|
    // between the last two give the last swing's amplitude.
    let crossings: Vec<f64> = trace
        .windows(2)
        .filter(|w| w[0].1 < 0.0 && w[1].1 >= 0.0)
        .map(|w| w[0].0 + (w[1].0 - w[0].0) * (-w[0].1 / (w[1].1 - w[0].1)))
        .collect();
    let period = match crossings.as_slice() {
        [first, .., last] => (last - first) / (crossings.len() - 1) as f64,
        _ => f64::NAN,
    };
    let last_swing = match crossings.as_slice() {
        [.., a, b] => trace
            .iter()
            .filter(|(t, _)| (*a..=*b).contains(t))
            .map(|(_, th)| th.abs())
            .fold(0.0, f64::max),
        _ => f64::NAN,
    };
    Ok(PendulumRecord {
        backend: s.backend_name(),
        projection: projection.name(),
        frames: frames.label(),
        release_deg: theta0.to_degrees() as f64,
        final_amplitude_deg: last_swing,
        period_s: (period, pendulum_period(l as f64, theta0 as f64)),
        trace,
        energy,
    })
}

/// The hanging sheet's answer and what the solver made of it.
#[derive(Clone, Debug, Serialize)]
pub struct SheetRecord {
    /// What ran it.
    pub backend: String,
    /// Grid side N.
    pub n: u32,
    /// Mean height of the top row minus mean height of the bottom row, over the rest height.
    pub length_ratio: f32,
    /// Structural stretch of the settled sheet.
    pub stretch: crate::quality::Stretch,
    /// (t, length ratio) every 0.1 s, for the plot.
    pub history: Vec<(f64, f64)>,
}

/// A 1 m square N×N sheet pinned along its top edge, hanging, settled for `seconds` at 60 fps
/// with the library's defaults and damping 2/s; its length should be its rest length.
pub fn hanging_sheet(gpu: Option<&GpuContext>, n: u32, seconds: f32) -> Result<SheetRecord> {
    let cloth = ClothBuilder::grid(n, n)
        .layout(Layout::Hanging { top: 1.0 })
        .pinning(Pinning::Edge)
        .build()?;
    let params = SolverParams {
        damping: 2.0,
        ..SolverParams::default()
    };
    let mut s = super::solver(gpu, &cloth, params)?;
    // The rest height is 1 m, so the length ratio is the top row's mean height minus the
    // bottom row's.
    let ratio = |x: &[Vec3]| {
        let row_y = |r: u32| (0..n).map(|c| x[(r * n + c) as usize].y).sum::<f32>() / n as f32;
        row_y(0) - row_y(n - 1)
    };
    let mut history = vec![(0.0, 1.0)];
    let frames = (seconds * 60.0) as u32;
    for k in 1..=frames {
        s.step(1.0 / 60.0)?;
        if k.is_multiple_of(6) || k == frames {
            history.push((k as f64 / 60.0, ratio(&s.positions()?) as f64));
        }
    }
    let x = s.positions()?;
    Ok(SheetRecord {
        backend: s.backend_name(),
        n,
        length_ratio: ratio(&x),
        stretch: crate::quality::stretch(&cloth, &x),
        history,
    })
}

/// A cloth's energy over time: the standard scene (64², pinned by two corners, falling from
/// flat) at the library's defaults, damping 0.5/s included.
#[derive(Clone, Debug, Serialize)]
pub struct ClothEnergyRecord {
    /// What ran it.
    pub backend: String,
    /// (t, kinetic, gravitational, elastic, total energy in J) once per frame.
    pub energy: Vec<(f64, f64, f64, f64, f64)>,
}

/// Runs the standard 64² scene for `seconds` at 60 fps and records its energy every frame.
pub fn cloth_energy(gpu: Option<&GpuContext>, seconds: f32) -> Result<ClothEnergyRecord> {
    let cloth = crate::tools::scenes::standard_cloth(64, [true; 3])?;
    let mut s = super::solver(gpu, &cloth, SolverParams::default())?;
    let row =
        |t: f64, e: crate::quality::Energy| (t, e.kinetic, e.gravitational, e.elastic, e.total());
    let mut energy = vec![row(0.0, s.energy()?)];
    let frames = (seconds * 60.0) as u32;
    for k in 1..=frames {
        s.step(1.0 / 60.0)?;
        energy.push(row(k as f64 / 60.0, s.energy()?));
    }
    Ok(ClothEnergyRecord {
        backend: s.backend_name(),
        energy,
    })
}

/// Every reference system, as `chiffon study` runs them.
#[derive(Clone, Debug, Serialize)]
pub struct ReferenceReport {
    /// The hanging rope.
    pub rope: RopeRecord,
    /// The pendulum: SHAKE and Jakobsen, at 60 fps and at random 30-144 fps.
    pub pendulum: Vec<PendulumRecord>,
    /// The hanging sheet at 256².
    pub sheet: SheetRecord,
    /// The slack chain of 150 links, coarse levels on and off.
    pub chain: Vec<ChainRecord>,
    /// The standard scene's energy over 5 s.
    pub cloth_energy: ClothEnergyRecord,
}

/// Runs every reference system on the GPU when `gpu` is given, else on the CPU.
pub fn run(gpu: Option<&GpuContext>, seed: u64) -> Result<ReferenceReport> {
    let mut pendulums = Vec::new();
    for frames in [
        FrameRate::Fixed(60.0),
        FrameRate::Random {
            min: 30.0,
            max: 144.0,
            seed,
        },
    ] {
        for projection in Projection::ALL {
            pendulums.push(pendulum(gpu, projection, frames, 20.0)?);
        }
    }
    Ok(ReferenceReport {
        rope: hanging_rope(gpu, 10.0)?,
        pendulum: pendulums,
        sheet: hanging_sheet(gpu, 256, 3.0)?,
        chain: vec![
            hanging_chain(gpu, 150, true, 8.0)?,
            hanging_chain(gpu, 150, false, 8.0)?,
        ],
        cloth_energy: cloth_energy(gpu, 5.0)?,
    })
}

/// A Markdown table's heading: `title` as written (its blank lines included), the header row
/// of `columns` and the separator row.
fn table_head(s: &mut String, title: &str, columns: &[&str]) {
    use std::fmt::Write;
    let _ = writeln!(s, "{title}");
    let _ = writeln!(s, "| {} |", columns.join(" | "));
    let _ = writeln!(s, "|{}", " --- |".repeat(columns.len()));
}

/// One row of a Markdown table.
fn table_row(s: &mut String, cells: &[String]) {
    use std::fmt::Write;
    let _ = writeln!(s, "| {} |", cells.join(" | "));
}

/// The Markdown tables of the reference systems.
pub fn markdown(r: &ReferenceReport) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let rope = &r.rope;
    table_head(
        &mut s,
        &format!(
            "### Hanging rope: {} links of 5 cm, 10 g each, compliance {} m/N ({})\n",
            rope.links, rope.compliance, rope.backend
        ),
        &[
            "link (from the top)",
            "measured (m)",
            "exact L + α n m g (m)",
        ],
    );
    for k in [0, 1, 4, 9, 14, rope.links as usize - 1] {
        table_row(
            &mut s,
            &[
                format!("{}", k + 1),
                format!("{:.5}", rope.measured_m[k]),
                format!("{:.5}", rope.exact_m[k]),
            ],
        );
    }
    let _ = writeln!(
        s,
        "| whole rope | {:.5} | {:.5} |\n\nLargest link error: {:.2} % of the top link's stretch.\n",
        rope.length_m.0,
        rope.length_m.1,
        100.0 * rope.max_error_of_top_stretch
    );
    table_head(
        &mut s,
        "### Pendulum: 0.5 m, released at rest from 30°, no damping, 20 s\n",
        &[
            "projection",
            "frames",
            "amplitude after 20 s",
            "period (s)",
            "exact period (s)",
            "period error",
        ],
    );
    for p in &r.pendulum {
        table_row(
            &mut s,
            &[
                p.projection.to_string(),
                p.frames.to_string(),
                format!("{:.2}°", p.final_amplitude_deg),
                format!("{:.5}", p.period_s.0),
                format!("{:.5}", p.period_s.1),
                format!("{:.3} %", 100.0 * p.period_error()),
            ],
        );
    }
    let sh = &r.sheet;
    table_head(
        &mut s,
        &format!(
            "\n### Sheet pinned along its top edge: {0}×{0}, 1 m, settled 3 s ({1})\n",
            sh.n, sh.backend
        ),
        &[
            "length / rest length",
            "stretch mean",
            "stretch p99",
            "stretch max",
        ],
    );
    table_row(
        &mut s,
        &[
            format!("{:.5}", sh.length_ratio),
            format!("{:.5}", sh.stretch.mean),
            format!("{:.5}", sh.stretch.p99),
            format!("{:.5}", sh.stretch.max),
        ],
    );
    table_head(
        &mut s,
        "\n### Slack chain: 1 cm links, ends level at 80 % of its length, settled 8 s\n",
        &[
            "links",
            "coarse levels",
            "sag (m)",
            "exact discrete catenary (m)",
            "sag error",
            "longest link",
        ],
    );
    for c in &r.chain {
        table_row(
            &mut s,
            &[
                c.links.to_string(),
                (if c.coarse_levels { "on" } else { "off" }).to_string(),
                format!("{:.4}", c.sag_m.0),
                format!("{:.4}", c.sag_m.1),
                format!("{:.2} %", 100.0 * c.sag_error),
                format!("{:.4}", c.max_link_stretch),
            ],
        );
    }
    table_head(
        &mut s,
        "\n### Energy (`Solver::energy`)\n\nThe pendulum, no damping: largest drift of its total \
         energy over the run, as a fraction of its swing energy m g L (1 − cos θ₀).\n",
        &["projection", "frames", "energy drift"],
    );
    for p in &r.pendulum {
        table_row(
            &mut s,
            &[
                p.projection.to_string(),
                p.frames.to_string(),
                format!("{:.3} %", 100.0 * p.energy_drift()),
            ],
        );
    }
    s
}

/// Writes the three plots (SVG and PNG) into `dir`; returns the file names.
pub fn write_plots(r: &ReferenceReport, dir: &std::path::Path) -> Result<Vec<String>> {
    use crate::tools::plot::{Lines, save};
    let rope = Lines {
        title: "hanging rope: link length under load",
        x_desc: "link, from the top",
        y_desc: "length (m)",
        series: vec![
            (
                "measured".into(),
                r.rope
                    .measured_m
                    .iter()
                    .enumerate()
                    .map(|(k, l)| (k as f64 + 1.0, *l as f64))
                    .collect(),
            ),
            (
                "exact L + α n m g".into(),
                r.rope
                    .exact_m
                    .iter()
                    .enumerate()
                    .map(|(k, l)| (k as f64 + 1.0, *l as f64))
                    .collect(),
            ),
        ],
    };
    let pendulum = Lines {
        title: "pendulum released at 30°, random 30-144 fps: angle over 20 s",
        x_desc: "t (s)",
        y_desc: "angle (°)",
        series: r
            .pendulum
            .iter()
            .filter(|p| p.frames.starts_with("random"))
            .map(|p| (p.projection.to_string(), p.trace.clone()))
            .collect(),
    };
    let sheet = Lines {
        title: "sheet pinned along its top: length over rest length",
        x_desc: "t (s)",
        y_desc: "length / rest length",
        series: vec![(format!("{0}x{0}", r.sheet.n), r.sheet.history.clone())],
    };
    let chain = Lines {
        title: "slack chain, 150 links: settled shape and the exact discrete catenary",
        x_desc: "x from the first anchor (m)",
        y_desc: "y (m)",
        series: r
            .chain
            .iter()
            .map(|c| {
                let levels = if c.coarse_levels { "on" } else { "off" };
                (format!("coarse levels {levels}"), c.shape.clone())
            })
            .chain(
                r.chain
                    .first()
                    .map(|c| ("exact".to_string(), c.exact_shape.clone())),
            )
            .collect(),
    };
    let pick = |p: &PendulumRecord| p.projection == "shake" && !p.frames.starts_with("random");
    let pendulum_energy = Lines {
        title: "pendulum (SHAKE, 60 fps, no damping): energy (J)",
        x_desc: "t (s)",
        y_desc: "J",
        series: r
            .pendulum
            .iter()
            .filter(|p| pick(p))
            .flat_map(|p| {
                [
                    ("kinetic", p.energy.iter().map(|e| (e.0, e.1)).collect()),
                    (
                        "gravitational",
                        p.energy.iter().map(|e| (e.0, e.2)).collect(),
                    ),
                    ("total", p.energy.iter().map(|e| (e.0, e.3)).collect()),
                ]
            })
            .map(|(n, v): (&str, Vec<(f64, f64)>)| (n.to_string(), v))
            .collect(),
    };
    let e = &r.cloth_energy.energy;
    let cloth_energy = Lines {
        title: "standard scene 64², defaults (damping 0.5/s): energy (J)",
        x_desc: "t (s)",
        y_desc: "J",
        series: vec![
            ("kinetic".into(), e.iter().map(|e| (e.0, e.1)).collect()),
            (
                "gravitational".into(),
                e.iter().map(|e| (e.0, e.2)).collect(),
            ),
            ("total".into(), e.iter().map(|e| (e.0, e.4)).collect()),
        ],
    };
    let mut files = Vec::new();
    for (name, figure) in [
        ("rope", &rope),
        ("pendulum", &pendulum),
        ("sheet", &sheet),
        ("chain", &chain),
        ("energy-pendulum", &pendulum_energy),
        ("energy-cloth", &cloth_energy),
    ] {
        for ext in ["svg", "png"] {
            let file = format!("{name}.{ext}");
            save(&dir.join(&file), (1000, 520), figure)?;
            files.push(file);
        }
    }
    Ok(files)
}
