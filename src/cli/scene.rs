//! The scene flags shared by `simulate` and `conform`.

use super::SolverArgs;
use crate::dt::DtSpec;
use crate::{ClothBuilder, Layout, Pinning, SolverParams, Sphere};
use anyhow::{Context, Result, anyhow, bail};
use clap::{Args, ValueEnum};
use glam::Vec3;

#[derive(Args, Debug, Clone)]
/// The scene flags of `simulate` and `conform`.
pub struct SceneArgs {
    /// Grid size as COLUMNSxROWS.
    #[arg(long, default_value = "64x64", value_parser = parse_grid)]
    pub grid: (u32, u32),
    /// Frames to run (default 240; with --dt file:PATH, default every line).
    #[arg(long)]
    pub frames: Option<usize>,
    /// Frame times: fixed:FPS, random:MIN_FPS:MAX_FPS:SEED, or file:PATH (one dt in s per line).
    #[arg(long, default_value = "fixed:60")]
    pub dt: String,
    /// Pinned particles.
    #[arg(long, value_enum, default_value_t = PinArg::Corners)]
    pub pin: PinArg,
    /// Solver flags (the library's defaults where not given).
    #[command(flatten)]
    pub solver: SolverArgs,
    /// Gravity (m/s², along −y).
    #[arg(long, default_value_t = 9.81)]
    pub gravity: f32,
    /// Wind as a constant acceleration x,y,z (m/s²).
    #[arg(long, default_value = "0,0,0", value_parser = parse_vec3, allow_hyphen_values = true)]
    pub wind: Vec3,
    /// Ground plane height (m), or none.
    #[arg(long, default_value = "none", allow_hyphen_values = true)]
    pub ground: String,
    /// Sphere collider x,y,z,r (m), or none.
    #[arg(long, default_value = "none", allow_hyphen_values = true)]
    pub sphere: String,
    /// Friction on contact, [0, 1].
    #[arg(long, default_value_t = 0.3)]
    pub friction: f32,
    /// Particle spacing (m); default makes the cloth 1 m wide.
    #[arg(long)]
    pub spacing: Option<f32>,
    /// Initial placement.
    #[arg(long, value_enum, default_value_t = LayoutArg::Hanging)]
    pub layout: LayoutArg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PinArg {
    Corners,
    Edge,
    None,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LayoutArg {
    /// Vertical, top row at y = 1 m.
    Hanging,
    /// Horizontal at y = 1 m.
    Flat,
}

fn parse_grid(s: &str) -> Result<(u32, u32), String> {
    let (c, r) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("{s:?} is not COLUMNSxROWS (e.g. 64x64)"))?;
    let n = |v: &str| {
        v.trim()
            .parse::<u32>()
            .map_err(|_| format!("{v:?} in {s:?} is not a whole number of particles"))
    };
    Ok((n(c)?, n(r)?))
}

/// Parses WIDTHxHEIGHT in pixels.
pub fn parse_size(s: &str) -> Result<(u32, u32), String> {
    parse_grid(s).map_err(|_| format!("{s:?} is not WIDTHxHEIGHT (e.g. 1280x720)"))
}

fn parse_vec3(s: &str) -> Result<Vec3, String> {
    let v: Vec<f32> = s
        .split(',')
        .map(|p| p.trim().parse::<f32>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("{s:?} is not x,y,z"))?;
    match v[..] {
        [x, y, z] => Ok(Vec3::new(x, y, z)),
        _ => Err(format!("{s:?} is not x,y,z")),
    }
}

impl SceneArgs {
    /// The cloth the flags describe.
    pub fn cloth(&self) -> Result<crate::Cloth> {
        let (w, h) = self.grid;
        let mut b = ClothBuilder::grid(w, h)
            .layout(match self.layout {
                LayoutArg::Hanging => Layout::Hanging { top: 1.0 },
                LayoutArg::Flat => Layout::Flat { height: 1.0 },
            })
            .pinning(match self.pin {
                PinArg::Corners => Pinning::Corners,
                PinArg::Edge => Pinning::Edge,
                PinArg::None => Pinning::None,
            });
        if let Some(s) = self.spacing {
            b = b.spacing(s);
        }
        Ok(b.build()?)
    }

    /// The solver parameters the flags describe (validated).
    pub fn params(&self) -> Result<SolverParams> {
        if !(self.gravity.is_finite() && self.gravity >= 0.0) {
            bail!(
                "--gravity {} must be a non-negative magnitude in m/s² (it acts along -y)",
                self.gravity
            );
        }
        let ground = match self.ground.as_str() {
            "none" => None,
            h => Some(
                h.parse::<f32>()
                    .map_err(|_| anyhow!("--ground {h:?} is not a height in m or none"))?,
            ),
        };
        let sphere = match self.sphere.as_str() {
            "none" => None,
            s => {
                let v: Vec<f32> = s
                    .split(',')
                    .map(|p| p.trim().parse::<f32>())
                    .collect::<Result<_, _>>()
                    .map_err(|_| anyhow!("--sphere {s:?} is not x,y,z,r or none"))?;
                let [x, y, z, r] = v[..] else {
                    bail!("--sphere {s:?} is not x,y,z,r or none");
                };
                Some(Sphere {
                    center: Vec3::new(x, y, z),
                    radius: r,
                })
            }
        };
        let scene = SolverParams {
            gravity: Vec3::new(0.0, -self.gravity, 0.0),
            wind: self.wind,
            ground,
            sphere,
            friction: self.friction,
            ..SolverParams::default()
        };
        self.solver.apply(scene)
    }

    /// Every frame's dt (s).
    pub fn dts(&self) -> Result<Vec<f64>> {
        let spec: DtSpec = self.dt.parse()?;
        let frames = match (&spec, self.frames) {
            (DtSpec::File { .. }, f) => f,
            (_, f) => Some(f.unwrap_or(240)),
        };
        if frames == Some(0) {
            bail!("--frames must be at least 1");
        }
        spec.sequence(frames).context("reading --dt")
    }
}
