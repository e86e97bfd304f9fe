//! The scene flags shared by `simulate` and `conform`.

use std::path::PathBuf;

use super::SolverArgs;
use crate::tools::dt::DtSpec;
use crate::{ClothBuilder, Collider, Layout, Pinning, SolverParams};
use anyhow::{Context, Result, anyhow, bail};
use clap::{Args, ValueEnum};
use glam::Vec3;

#[derive(Args, Debug, Clone)]
/// What the cloth is made of and where it is held: a mesh file, pins, placement and mass
/// (shared by `simulate`, `conform` and `demo`).
pub struct ClothArgs {
    /// A triangle mesh (.obj) to simulate instead of the grid; polygons are triangulated,
    /// coincident vertices welded.
    #[arg(long)]
    pub mesh: Option<PathBuf>,
    /// Pinned particles (repeat to combine): corners | edge (grids), none, group:NAME (an OBJ
    /// g/o group), box:X0,Y0,Z0,X1,Y1,Z1 (m), top:DIST (within DIST m of the highest
    /// particle), list:I,J,... (particle indices). Default: corners on a grid, none on a mesh.
    #[arg(long, allow_hyphen_values = true)]
    pub pin: Vec<String>,
    /// Uniform scale applied to the cloth before --translate.
    #[arg(long, default_value_t = 1.0)]
    pub scale: f32,
    /// Offset x,y,z (m) added after --scale.
    #[arg(long, default_value = "0,0,0", value_parser = parse_vec3, allow_hyphen_values = true)]
    pub translate: Vec3,
    /// Total mass (kg). Default: 0.2 kg for a grid, --density for a mesh.
    #[arg(long, conflicts_with = "density")]
    pub mass: Option<f32>,
    /// Areal density (kg/m²); particles weigh their share of the area. Default for a mesh: 0.2.
    #[arg(long)]
    pub density: Option<f32>,
    /// Vertices of a mesh closer than this (m) become one particle; default 1e-5 × the mesh's
    /// bounding-box diagonal.
    #[arg(long)]
    pub weld: Option<f32>,
}

impl ClothArgs {
    /// Whether any flag beyond --mesh was given (the demo uses them with a mesh only).
    pub fn any_placement(&self) -> bool {
        !self.pin.is_empty()
            || self.scale != 1.0
            || self.translate != Vec3::ZERO
            || self.mass.is_some()
            || self.density.is_some()
            || self.weld.is_some()
    }

    /// Applies the flags to `builder` (a grid, or the mesh of --mesh).
    pub fn apply(&self, mut b: ClothBuilder) -> Result<ClothBuilder> {
        if !self.pin.is_empty() {
            b = b.pinning(Pinning::None);
            for p in &self.pin {
                b = b.pin(parse_pin(p).map_err(|e| anyhow!("--pin {e}"))?);
            }
        }
        b = b.scale(self.scale).translate(self.translate);
        if let Some(kg) = self.mass {
            b = b.total_mass(kg);
        }
        if let Some(d) = self.density {
            b = b.density(d);
        }
        if let Some(w) = self.weld {
            b = b.weld_tolerance(w);
        }
        Ok(b)
    }

    /// The builder of --mesh with the flags applied, if --mesh was given.
    pub fn mesh_builder(&self) -> Result<Option<ClothBuilder>> {
        let Some(path) = &self.mesh else {
            return Ok(None);
        };
        Ok(Some(self.apply(ClothBuilder::obj(path)?)?))
    }
}

/// Parses one `--pin` selection.
pub fn parse_pin(s: &str) -> Result<Pinning, String> {
    let numbers = |v: &str| -> Result<Vec<f32>, String> {
        v.split(',')
            .map(|p| p.trim().parse::<f32>())
            .collect::<Result<_, _>>()
            .map_err(|_| format!("{s:?}: {v:?} is not a list of numbers"))
    };
    match s.split_once(':') {
        None => match s {
            "corners" => Ok(Pinning::Corners),
            "edge" => Ok(Pinning::Edge),
            "none" => Ok(Pinning::None),
            _ => Err(format!(
                "{s:?} is not a pin selection: corners, edge, none, group:NAME, \
                 box:X0,Y0,Z0,X1,Y1,Z1, top:DIST or list:I,J,..."
            )),
        },
        Some(("group", name)) if !name.is_empty() => Ok(Pinning::Group(name.to_string())),
        Some(("box", v)) => match numbers(v)?[..] {
            [x0, y0, z0, x1, y1, z1] => {
                let (a, b) = (Vec3::new(x0, y0, z0), Vec3::new(x1, y1, z1));
                if !(a.is_finite() && b.is_finite()) {
                    return Err(format!("{s:?}: the box's corners must be finite"));
                }
                Ok(Pinning::Box {
                    min: a.min(b),
                    max: a.max(b),
                })
            }
            _ => Err(format!("{s:?}: a box is six numbers X0,Y0,Z0,X1,Y1,Z1 (m)")),
        },
        Some(("top", v)) => match v.trim().parse::<f32>() {
            Ok(d) if d.is_finite() && d >= 0.0 => Ok(Pinning::Top { distance: d }),
            _ => Err(format!("{s:?}: top:DIST needs a distance in m, at least 0")),
        },
        Some(("list", v)) => v
            .split(',')
            .map(|p| p.trim().parse::<u32>())
            .collect::<Result<Vec<_>, _>>()
            .map(Pinning::List)
            .map_err(|_| format!("{s:?}: list:I,J,... needs particle indices (whole numbers)")),
        _ => Err(format!(
            "{s:?} is not a pin selection: corners, edge, none, group:NAME, \
             box:X0,Y0,Z0,X1,Y1,Z1, top:DIST or list:I,J,..."
        )),
    }
}

#[derive(Args, Debug, Clone)]
/// The scene flags of `simulate` and `conform`.
pub struct SceneArgs {
    /// Grid size as COLUMNSxROWS (ignored with --mesh).
    #[arg(long, default_value = "64x64", value_parser = parse_grid)]
    pub grid: (u32, u32),
    /// The cloth's mesh, pins, placement and mass.
    #[command(flatten)]
    pub cloth: ClothArgs,
    /// Frames to run (default 240; with --dt file:PATH, default every line).
    #[arg(long)]
    pub frames: Option<usize>,
    /// Frame times: fixed:FPS, random:MIN_FPS:MAX_FPS:SEED, or file:PATH (one dt in s per line).
    #[arg(long, default_value = "fixed:60")]
    pub dt: String,
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
    /// The cloth the flags describe: the --mesh, or the grid.
    pub fn cloth(&self) -> Result<crate::Cloth> {
        if let Some(b) = self.cloth.mesh_builder()? {
            return Ok(b.build()?);
        }
        let (w, h) = self.grid;
        let mut b = ClothBuilder::grid(w, h).layout(match self.layout {
            LayoutArg::Hanging => Layout::Hanging { top: 1.0 },
            LayoutArg::Flat => Layout::Flat { height: 1.0 },
        });
        if let Some(s) = self.spacing {
            b = b.spacing(s);
        }
        Ok(self.cloth.apply(b)?.build()?)
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
                Some(Collider::sphere(Vec3::new(x, y, z), r))
            }
        };
        let colliders = ground
            .map(Collider::ground)
            .into_iter()
            .chain(sphere)
            .map(|c| c.friction(self.friction))
            .collect();
        let scene = SolverParams {
            gravity: Vec3::new(0.0, -self.gravity, 0.0),
            wind: self.wind,
            colliders,
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
