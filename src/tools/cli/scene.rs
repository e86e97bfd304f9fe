//! The scene flags shared by `simulate` and `conform` (and the cloth flags of `demo`).
//!
//! One file, though long: every flag that makes a scene is parsed and checked here once, so
//! `simulate` and `conform` cannot build different scenes from the same command line.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use glam::Vec3;

use super::SolverArgs;
use super::parse::{self, Maybe};
use super::solver_args::{given, with_default};
use crate::builder::{DEFAULT_DENSITY, DEFAULT_GRID_MASS};
use crate::contact::THIN_CAPSULE_SPACINGS;
use crate::geometry::DEFAULT_WELD_TOLERANCE;
use crate::params::STANDARD_GRAVITY;
use crate::tools::dt::{DtSpec, Dts};
use crate::{Cloth, ClothBuilder, Collider, Layout, Pinning, SolverParams};

/// Frames a run has when `--frames` is not given and `--dt` is not a file.
pub const DEFAULT_FRAMES: u64 = 240;
/// Grid of `simulate` and `conform` when `--grid` is not given.
pub const DEFAULT_GRID: (u32, u32) = (64, 64);

#[derive(Args, Debug, Clone)]
/// What the cloth is made of and where it is held: a mesh file, pins, placement and mass
/// (shared by `simulate`, `conform` and `demo`).
pub struct ClothArgs {
    /// A triangle mesh (.obj) to simulate instead of the grid; polygons are triangulated,
    /// coincident vertices welded.
    #[arg(long, value_name = "FILE")]
    pub mesh: Option<PathBuf>,
    /// Pinned particles (repeat to combine): corners | edge (grids), none, group:NAME (an OBJ
    /// g/o group), box:X0,Y0,Z0,X1,Y1,Z1 (m), top:DIST (within DIST m of the highest
    /// particle), list:I,J,... (particle indices). Default: corners on a grid, none on a mesh.
    #[arg(long, value_name = "SELECTION", value_parser = parse_pin, allow_hyphen_values = true)]
    pub pin: Vec<Pinning>,
    /// Uniform scale applied to the cloth before --translate [default: 1].
    #[arg(long, value_name = "FACTOR", value_parser = parse::number, allow_hyphen_values = true)]
    pub scale: Option<f32>,
    /// Offset x,y,z (m) added after --scale [default: 0,0,0].
    #[arg(long, value_name = "X,Y,Z", value_parser = parse::vec3, allow_hyphen_values = true)]
    pub translate: Option<Vec3>,
    /// Total mass (kg).
    #[arg(long, value_name = "KG", conflicts_with = "density", value_parser = parse::number,
          allow_hyphen_values = true,
          help = format!("Total mass (kg). Default: {DEFAULT_GRID_MASS} kg for a grid, \
                          --density for a mesh"))]
    pub mass: Option<f32>,
    /// Areal density (kg/m²).
    #[arg(long, value_name = "KG_PER_M2", value_parser = parse::number, allow_hyphen_values = true,
          help = format!("Areal density (kg/m²); particles weigh their share of the area. \
                          Default for a mesh: {DEFAULT_DENSITY}"))]
    pub density: Option<f32>,
    /// Weld distance of a mesh's vertices (m).
    #[arg(long, value_name = "M", value_parser = parse::number, allow_hyphen_values = true,
          help = format!("Vertices of a mesh closer than this (m) become one particle; default \
                          {DEFAULT_WELD_TOLERANCE:e} × the mesh's bounding-box diagonal"))]
    pub weld: Option<f32>,
    /// What holds the surface [default: edges].
    #[arg(long, value_enum)]
    pub membrane: Option<MembraneArg>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
/// What holds a sheet's surface (`chiffon::Membrane`).
pub enum MembraneArg {
    /// A distance constraint along every edge (a grid's rows, columns and diagonals).
    #[default]
    Edges,
    /// Strain based dynamics on every triangle: stretch along warp and weft, and shear, each
    /// at its own compliance (--compliance-stretch, --compliance-shear), so a soft shear frees
    /// any triangulation.
    Triangles,
}

impl From<MembraneArg> for crate::Membrane {
    fn from(m: MembraneArg) -> Self {
        match m {
            MembraneArg::Edges => crate::Membrane::Edges,
            MembraneArg::Triangles => crate::Membrane::Triangles,
        }
    }
}

impl ClothArgs {
    /// Whether any flag that places or weighs a mesh was given (the demo uses them with a mesh
    /// only; --membrane holds any scene's cloths).
    pub fn any_placement(&self) -> bool {
        !self.pin.is_empty()
            || self.scale.is_some()
            || self.translate.is_some()
            || self.mass.is_some()
            || self.density.is_some()
            || self.weld.is_some()
    }

    /// Applies the flags to `builder` (a grid, or the mesh of --mesh).
    pub fn apply(&self, mut b: ClothBuilder) -> ClothBuilder {
        if !self.pin.is_empty() {
            b = b.pinning(Pinning::None);
            for p in &self.pin {
                b = b.pin(p.clone());
            }
        }
        if let Some(s) = self.scale {
            b = b.scale(s);
        }
        if let Some(t) = self.translate {
            b = b.translate(t);
        }
        if let Some(kg) = self.mass {
            b = b.total_mass(kg);
        }
        if let Some(d) = self.density {
            b = b.density(d);
        }
        if let Some(w) = self.weld {
            b = b.weld_tolerance(w);
        }
        if let Some(m) = self.membrane {
            b = b.membrane(m.into());
        }
        b
    }

    /// The builder of --mesh with the flags applied, if --mesh was given.
    pub fn mesh_builder(&self) -> Result<Option<ClothBuilder>> {
        let Some(path) = &self.mesh else {
            return Ok(None);
        };
        // The library refuses a pipe, a device or a folder (crate::files), naming the file.
        let mesh = ClothBuilder::obj(path).context("--mesh")?;
        Ok(Some(self.apply(mesh)))
    }
}

/// What `--pin` accepts.
const PIN_USAGE: &str = "wants corners, edge, none, group:NAME, box:X0,Y0,Z0,X1,Y1,Z1, top:DIST \
                         or list:I,J,...";

/// Parses one `--pin` selection. Only the syntax is checked here; the builder judges the
/// selection (a box that holds no particle, a negative distance, an index past the end).
pub fn parse_pin(s: &str) -> Result<Pinning, String> {
    let nested = |e: String| format!("{PIN_USAGE}; in {s:?} it {e}");
    match s.trim().split_once(':') {
        None => match s.trim() {
            "corners" => Ok(Pinning::Corners),
            "edge" => Ok(Pinning::Edge),
            "none" => Ok(Pinning::None),
            _ => Err(format!("{PIN_USAGE}, not {s:?}")),
        },
        Some(("group", name)) if !name.is_empty() => Ok(Pinning::Group(name.to_string())),
        Some(("box", v)) => {
            let c = parse::numbers(v, 6, "X0,Y0,Z0,X1,Y1,Z1 (m)").map_err(nested)?;
            let (a, b) = (Vec3::new(c[0], c[1], c[2]), Vec3::new(c[3], c[4], c[5]));
            Ok(Pinning::Box {
                min: a.min(b),
                max: a.max(b),
            })
        }
        Some(("top", v)) => Ok(Pinning::Top {
            distance: parse::number(v).map_err(nested)?,
        }),
        Some(("list", v)) => v
            .split(',')
            .map(|i| parse::count_u32(i, 0))
            .collect::<Result<Vec<_>, _>>()
            .map(Pinning::List)
            .map_err(|_| nested("wants particle indices, whole numbers from 0".to_string())),
        _ => Err(format!("{PIN_USAGE}, not {s:?}")),
    }
}

#[derive(Args, Debug, Clone)]
/// The scene flags of `simulate` and `conform`.
pub struct SceneArgs {
    /// Grid size as COLUMNSxROWS (not with --mesh).
    #[arg(long, value_name = "COLUMNSxROWS", value_parser = parse::grid, allow_hyphen_values = true,
          help = with_default("Grid size as COLUMNSxROWS (not with --mesh)",
                              format!("{}x{}", DEFAULT_GRID.0, DEFAULT_GRID.1)))]
    pub grid: Option<(u32, u32)>,
    /// The cloth's mesh, pins, placement and mass.
    #[command(flatten)]
    pub cloth: ClothArgs,
    /// Frames to run.
    #[arg(long, value_name = "N", value_parser = |s: &str| parse::count(s, 1), allow_hyphen_values = true,
          help = with_default("Frames to run",
                              format!("{DEFAULT_FRAMES}; with --dt file:PATH, every line")))]
    pub frames: Option<u64>,
    /// Frame times: fixed:FPS, random:MIN_FPS:MAX_FPS:SEED, or file:PATH (one dt in s per line).
    #[arg(long, value_name = "SPEC", default_value = "fixed:60", value_parser = |s: &str| s.parse::<DtSpec>(),
          allow_hyphen_values = true)]
    pub dt: DtSpec,
    /// Solver flags (the library's defaults where not given).
    #[command(flatten)]
    pub solver: SolverArgs,
    /// Gravity (m/s², along −y).
    #[arg(long, value_name = "M_PER_S2", default_value_t = STANDARD_GRAVITY, value_parser = parse::number,
          allow_hyphen_values = true)]
    pub gravity: f32,
    // The help text's optional values in brackets are not links.
    #[allow(rustdoc::broken_intra_doc_links)]
    /// Colliders, repeatable: sphere:X,Y,Z,R | capsule:X0,Y0,Z0,X1,Y1,Z1,R0[,R1] (tapered when R1
    /// differs) | plane:NX,NY,NZ,D (the plane n·x = d, cloth on the side n points to) |
    /// box:CX,CY,CZ,HX,HY,HZ[,YAW_DEG] (centre, half extents, turned about y) | mesh:FILE.obj (a
    /// closed mesh is solid; an open one is a shell the cloth stays off on either side).
    #[arg(long = "collider", value_name = "SHAPE:VALUES", value_parser = parse_collider,
          allow_hyphen_values = true)]
    pub colliders: Vec<ColliderSpec>,
    /// Ground plane height (m), or none: the shorthand for --collider plane:0,1,0,HEIGHT.
    #[arg(long, value_name = "HEIGHT|none", default_value = "none",
          value_parser = |s: &str| parse::maybe(s, parse::number),
          allow_hyphen_values = true)]
    pub ground: Maybe<f32>,
    /// Sphere collider x,y,z,r (m), or none: the shorthand for --collider sphere:X,Y,Z,R.
    #[arg(long, value_name = "X,Y,Z,R|none", default_value = "none",
          value_parser = |s: &str| parse::maybe(s, |v| parse::numbers(v, 4, "x,y,z,r (m)")),
          allow_hyphen_values = true)]
    pub sphere: Maybe<Vec<f32>>,
    /// Coulomb friction of every collider (and of self-collision).
    #[arg(long, value_name = "MU", value_parser = parse::number, allow_hyphen_values = true,
          help = with_default("Coulomb friction coefficient of every collider and of self-collision \
                               (whose own default is 0): cloth on a slope slides when tan θ > MU",
                              crate::contact::DEFAULT_FRICTION))]
    pub friction: Option<f32>,
    /// Thickness of every collider.
    #[arg(long, value_name = "M", value_parser = parse::number, allow_hyphen_values = true,
          help = with_default("Distance the cloth keeps from every collider's surface (m), 0 to \
                               1000 (the distance between layers is --self-thickness)",
                              crate::contact::DEFAULT_THICKNESS))]
    pub thickness: Option<f32>,
    /// Self-collision's distance between layers (m).
    #[arg(long, value_name = "M", value_parser = parse::number, allow_hyphen_values = true,
          help = with_default("Distance the cloth keeps between its layers with --self-collision \
                               on (m), 0.00001 to 1000",
                              "1.5 × the cloth's mean edge"))]
    pub self_thickness: Option<f32>,
    /// Restitution of every collider.
    #[arg(long, value_name = "E", value_parser = parse::number, allow_hyphen_values = true,
          help = with_default("Coefficient of restitution of every collider, 0 (no bounce) to 1 \
                               (elastic)",
                              crate::contact::DEFAULT_RESTITUTION))]
    pub restitution: Option<f32>,
    /// Self-collision: on or off.
    #[arg(long, value_name = "on|off", value_parser = parse::on_off,
          help = with_default("Self-collision (and collision between cloths): on or off", "off"))]
    pub self_collision: Option<bool>,
    /// Particle spacing (m); default makes the cloth 1 m wide (not with --mesh).
    #[arg(long, value_name = "M", value_parser = parse::number, allow_hyphen_values = true)]
    pub spacing: Option<f32>,
    /// Initial placement of the grid [default: hanging] (not with --mesh).
    #[arg(long, value_enum)]
    pub layout: Option<LayoutArg>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
/// How the grid starts.
pub enum LayoutArg {
    /// Vertical, top row at y = 1 m.
    #[default]
    Hanging,
    /// Horizontal at y = 1 m.
    Flat,
}

/// One `--collider` as written: a shape with its numbers, or a mesh file (read when the scene
/// is built, so a bad file is one error naming it).
#[derive(Clone, Debug, PartialEq)]
pub enum ColliderSpec {
    /// An analytic shape, placed, and the flag's value as written (errors and warnings name
    /// the collider by it: with several `--collider`s, "--collider" alone does not say which).
    Shape(Collider, String),
    /// `mesh:FILE.obj`.
    Mesh(PathBuf),
}

/// Reads `SHAPE:VALUES` (see `--collider`).
pub fn parse_collider(s: &str) -> Result<ColliderSpec, String> {
    let usage = "sphere:X,Y,Z,R, capsule:X0,Y0,Z0,X1,Y1,Z1,R0[,R1], plane:NX,NY,NZ,D, \
                 box:CX,CY,CZ,HX,HY,HZ[,YAW_DEG] or mesh:FILE.obj";
    let Some((shape, values)) = s.split_once(':') else {
        return Err(format!("wants {usage}, not {s:?}"));
    };
    // A shape that takes two counts says both when given neither ("7 or 8 finite numbers",
    // not "7" to a capsule given 9).
    let v = |n: &[usize], what: &str| -> Result<Vec<f32>, String> {
        let count = values.split(',').count();
        match n.iter().copied().find(|&k| k == count) {
            Some(k) => parse::numbers(values, k, what),
            None => Err(format!(
                "wants {what}: {} finite numbers separated by commas, not {values:?} ({count} given)",
                n.iter()
                    .map(|k| k.to_string())
                    .collect::<Vec<_>>()
                    .join(" or ")
            )),
        }
    };
    let at = |v: &[f32]| Vec3::new(v[0], v[1], v[2]);
    let collider = match shape {
        "sphere" => {
            let v = v(&[4], "sphere:X,Y,Z,R")?;
            Collider::sphere(at(&v), v[3])
        }
        "capsule" => {
            let v = v(&[7, 8], "capsule:X0,Y0,Z0,X1,Y1,Z1,R0[,R1]")?;
            Collider::capsule(at(&v), at(&v[3..]), v[6], *v.get(7).unwrap_or(&v[6]))
        }
        "plane" => {
            let v = v(&[4], "plane:NX,NY,NZ,D")?;
            Collider::plane(at(&v), v[3])
        }
        "box" => {
            let v = v(&[6, 7], "box:CX,CY,CZ,HX,HY,HZ[,YAW_DEG]")?;
            let yaw = v.get(6).copied().unwrap_or(0.0);
            // Far past a turn, f32 degrees no longer say which way the box faces (1e30 turned
            // it by whatever the rounding left).
            if yaw.abs() > 360.0 {
                return Err(format!(
                    "wants box:CX,CY,CZ,HX,HY,HZ[,YAW_DEG] with YAW_DEG within ±360 degrees, \
                     not {} in {s:?}",
                    crate::error::shown(yaw)
                ));
            }
            let yaw = yaw.to_radians();
            Collider::cuboid(at(&v), at(&v[3..]), glam::Quat::from_rotation_y(yaw))
        }
        "mesh" if !values.is_empty() => return Ok(ColliderSpec::Mesh(PathBuf::from(values))),
        _ => return Err(format!("wants {usage}, not {s:?}")),
    };
    Ok(ColliderSpec::Shape(collider, s.trim().to_string()))
}

impl SceneArgs {
    /// The cloth the flags describe: the --mesh, or the grid.
    pub fn cloth(&self) -> Result<Cloth> {
        if let Some(b) = self.cloth.mesh_builder()? {
            return Ok(b.build()?);
        }
        let (w, h) = self.grid.unwrap_or(DEFAULT_GRID);
        let mut b = ClothBuilder::grid(w, h).layout(match self.layout.unwrap_or_default() {
            LayoutArg::Hanging => Layout::Hanging { top: 1.0 },
            LayoutArg::Flat => Layout::Flat { height: 1.0 },
        });
        if let Some(s) = self.spacing {
            b = b.spacing(s);
        }
        Ok(self.cloth.apply(b).build()?)
    }

    /// The solver parameters the flags describe, validated by the library (an error names the
    /// flag).
    pub fn params(&self) -> Result<SolverParams> {
        self.params_described().map(|(p, _)| p)
    }

    /// [`Self::params`], and one line per mesh collider saying what it became (its triangles,
    /// closed or open, its grid's size, memory and build time, or the collider it shares its
    /// grid with).
    pub fn params_described(&self) -> Result<(SolverParams, Vec<String>)> {
        if self.gravity < 0.0 {
            // A sign convention, not a bound: the flag is a magnitude, and -9.81 most likely
            // means the usual downward gravity, which the flag writes 9.81.
            bail!(
                "--gravity wants a magnitude in m/s² (it pulls along -y; {} is the usual), not {}",
                STANDARD_GRAVITY,
                self.gravity
            );
        }
        let mut p = SolverParams::default();
        given(&mut p, "--gravity", Some(self.gravity), |p, g| {
            p.gravity = Vec3::new(0.0, -g, 0.0)
        })?;
        let described = self.colliders(&mut p)?;
        Ok((self.solver.apply(p)?, described))
    }

    /// The one place `--ground`, `--sphere`, `--collider`, the material flags and
    /// `--self-collision` become solver parameters; returns a line per mesh collider.
    fn colliders(&self, p: &mut SolverParams) -> Result<Vec<String>> {
        use crate::contact::{MAX_FRICTION, MAX_THICKNESS};
        use crate::params::MIN_SELF_THICKNESS;
        // The material flags first, each by its own name: checked inside a collider they
        // would be blamed on the collider ("--ground: ... its thickness").
        for (flag, v, min, max, what, note) in [
            (
                "--thickness",
                self.thickness,
                0.0,
                MAX_THICKNESS,
                "a distance",
                " m",
                "",
            ),
            (
                "--friction",
                self.friction,
                0.0,
                MAX_FRICTION,
                "a coefficient",
                "",
                "",
            ),
            (
                "--restitution",
                self.restitution,
                0.0,
                1.0,
                "a coefficient",
                "",
                "",
            ),
            (
                "--self-thickness",
                self.self_thickness,
                MIN_SELF_THICKNESS,
                MAX_THICKNESS,
                "a distance",
                " m",
                " (self-collision keeps particles at least that far apart; the colliders' \
                 --thickness may be 0)",
            ),
        ]
        .map(|(flag, v, min, max, what, unit, why)| {
            (
                flag,
                v,
                min,
                max,
                format!("{what} from {min} to {max}{unit}"),
                why,
            )
        }) {
            if let Some(v) = v
                && !(v.is_finite() && (min..=max).contains(&v))
            {
                bail!("{flag} wants {what}, not {v}{note}");
            }
        }
        // All at once: checked as they are added, the message would quote the flag that
        // passed the limit as if it were at fault, and give that count, not the real one.
        let total = usize::from(self.ground.0.is_some())
            + usize::from(self.sphere.0.is_some())
            + self.colliders.len();
        if total > crate::params::MAX_COLLIDERS {
            let mut given = vec![format!("{} --collider flags", self.colliders.len())];
            for (flag, on) in [
                ("--ground", self.ground.0.is_some()),
                ("--sphere", self.sphere.0.is_some()),
            ] {
                if on {
                    given.push(flag.to_string());
                }
            }
            bail!(
                "{total} colliders ({}) is more than the {} chiffon takes",
                given.join(", "),
                crate::params::MAX_COLLIDERS
            );
        }
        // The shorthands first, then --collider in the order given; each one's material from
        // --thickness, --friction and --restitution where given.
        let material = |c: Collider| Collider {
            thickness: self.thickness.unwrap_or(c.thickness),
            friction: self.friction.unwrap_or(c.friction),
            restitution: self.restitution.unwrap_or(c.restitution),
            ..c
        };
        given(p, "--ground", self.ground.0, |p, h| {
            p.colliders.push(material(Collider::ground(h)))
        })?;
        given(p, "--sphere", self.sphere.0.clone(), |p, v| {
            p.colliders.push(material(Collider::sphere(
                Vec3::new(v[0], v[1], v[2]),
                v[3],
            )))
        })?;
        // Colliders of the same file share one grid (one Arc: the solver uploads it once).
        let mut grids: std::collections::HashMap<FileIdentity, SharedGrid> = Default::default();
        let mut described = Vec::new();
        for spec in &self.colliders {
            let index = p.colliders.len();
            let (c, flag) = match spec {
                ColliderSpec::Shape(c, text) => (c.clone(), format!("--collider {text}")),
                ColliderSpec::Mesh(path) => {
                    let flag = format!("--collider mesh:{}", path.display());
                    let key = file_identity(path);
                    let grid = match grids.get(&key) {
                        Some((grid, first)) => {
                            described.push(format!(
                                "collider {index} (mesh {}): the grid of collider {first}, \
                                 the same file, shared",
                                path.display()
                            ));
                            grid.clone()
                        }
                        None => {
                            let start = std::time::Instant::now();
                            let grid = crate::contact::DistanceGrid::from_obj(
                                path,
                                crate::contact::DEFAULT_RESOLUTION,
                            )
                            .with_context(|| flag.clone())?;
                            described.push(describe_grid(index, path, &grid, start.elapsed()));
                            let grid = std::sync::Arc::new(grid);
                            grids.insert(key, (grid.clone(), index));
                            grid
                        }
                    };
                    (Collider::mesh(grid, crate::Pose::IDENTITY), flag)
                }
            };
            given(p, &flag, Some(material(c)), |p, c| p.colliders.push(c))?;
            if let Some(c) = p.colliders.get(index)
                && c.contact_thickness() > c.thickness
            {
                described.push(format!(
                    "collider {index} (an open shell) keeps the cloth {} from it, not the {} \
                     asked: {} of its grid's cell, the least that stops the cloth passing \
                     through between the grid's samples",
                    length(c.contact_thickness()),
                    length(c.thickness),
                    crate::contact::OPEN_MESH_MIN_THICKNESS_CELLS
                ));
            }
        }
        let self_collision = self.self_collision == Some(true);
        given(
            p,
            "--self-collision",
            self_collision.then_some(()),
            |p, ()| {
                p.self_collision = Some(crate::SelfCollision {
                    thickness: self.self_thickness,
                    friction: self
                        .friction
                        .unwrap_or(crate::SelfCollision::default().friction),
                })
            },
        )?;
        Ok(described)
    }

    /// Each collider as the flags name it, in the solver's order (`--ground 2 m`, `--sphere`,
    /// then each `--collider`).
    fn collider_names(&self) -> Vec<String> {
        let mut names = Vec::new();
        if let Some(h) = self.ground.0 {
            names.push(format!("--ground {h} m"));
        }
        if self.sphere.0.is_some() {
            names.push("--sphere".to_string());
        }
        for spec in &self.colliders {
            names.push(match spec {
                ColliderSpec::Shape(_, text) => format!("--collider {text}"),
                ColliderSpec::Mesh(path) => format!("--collider mesh:{}", path.display()),
            });
        }
        names
    }

    /// Whether the scene has something to collide with.
    fn any_collider(&self) -> bool {
        self.ground.0.is_some() || self.sphere.0.is_some() || !self.colliders.is_empty()
    }

    /// Every frame's dt (s), drawn as the run uses them.
    pub fn dts(&self) -> Result<Dts> {
        let frames = match (&self.dt, self.frames) {
            (DtSpec::File { .. }, f) => f,
            (_, f) => Some(f.unwrap_or(DEFAULT_FRAMES)),
        };
        self.dt.frames(frames)
    }

    /// What the flags ask for that does nothing or contradicts itself, for `cloth` under
    /// `params`: one sentence each, for a warning (the run goes on).
    pub fn warnings(&self, cloth: &Cloth, params: &SolverParams) -> Vec<String> {
        let mut out = self.solver.warnings(params);
        if self.cloth.mesh.is_some() {
            let grid_flags: Vec<&str> = [
                ("--grid", self.grid.is_some()),
                ("--spacing", self.spacing.is_some()),
                ("--layout", self.layout.is_some()),
            ]
            .into_iter()
            .filter_map(|(flag, given)| given.then_some(flag))
            .collect();
            if !grid_flags.is_empty() {
                out.push(format!(
                    "{} shape the grid and do nothing with --mesh",
                    grid_flags.join(", ")
                ));
            }
        } else if self.cloth.weld.is_some() {
            out.push("--weld welds a mesh's vertices and does nothing without --mesh".into());
        }
        let contact = self.any_collider() || self.self_collision == Some(true);
        if self.friction.is_some() && !contact {
            out.push(
                "--friction acts on contact and does nothing without a collider or \
                 --self-collision on"
                    .into(),
            );
        }
        if self.thickness.is_some() && !self.any_collider() {
            out.push(
                "--thickness is the colliders' and does nothing without one (the distance \
                 between layers with --self-collision on is --self-thickness)"
                    .into(),
            );
        }
        if self.self_thickness.is_some() && self.self_collision != Some(true) {
            out.push("--self-thickness does nothing without --self-collision on".into());
        }
        if self.restitution.is_some() && !self.any_collider() {
            out.push("--restitution acts on colliders and does nothing without one".into());
        }
        if self.solver.strain_limit.is_some()
            && params.strain_limit.is_some()
            && !contact
            && params.strain_limit_frames == crate::params::LimitFrames::Contact
        {
            out.push(
                "--strain-limit acts in frames with contact and does nothing without a \
                 collider or --self-collision on (--strain-limit-frames all runs it in every \
                 frame)"
                    .into(),
            );
        }
        if let Some(distance) = params.self_collision.and_then(|sc| sc.thickness) {
            // Self-collision skips pairs closer at rest than its distance: one wider than the
            // cloth skips every pair, and the run is the run without it (bit for bit).
            let (lo, hi) = crate::geometry::bounds(cloth.positions());
            let across = (hi - lo).length();
            if cloth.particle_count() > 1 && distance >= across {
                out.push(format!(
                    "--self-thickness {distance} m is wider than the cloth ({across:.3} m \
                     across): every pair of particles is closer than that at rest, so \
                     self-collision skips them all and does nothing"
                ));
            }
        }
        let n = cloth.particle_count();
        let pinned = (0..n).filter(|&i| cloth.is_pinned(i)).count();
        if n > 0 && pinned == n {
            out.push(format!(
                "every particle is pinned ({}): nothing will move",
                if self.cloth.pin.is_empty() {
                    "the default pins".to_string()
                } else {
                    self.cloth
                        .pin
                        .iter()
                        .map(|p| format!("--pin {}", pin_name(p)))
                        .collect::<Vec<_>>()
                        .join(" ")
                }
            ));
        }
        // A thin capsule is met by the triangles too (collide_edges), which is right but
        // moves every cloth to the global path; and a cloth that crosses its reach within one
        // substep still gets through (a sheet falling 1.4 m onto a 2 mm rod, docs/contact.md).
        let spacing = cloth.mean_edge_length();
        for (c, name) in params.colliders.iter().zip(self.collider_names()) {
            let crate::Shape::Capsule {
                radius_a, radius_b, ..
            } = c.shape
            else {
                continue;
            };
            if !c.is_thin_capsule(spacing) {
                continue;
            }
            let reach = radius_a.min(radius_b) + c.contact_thickness();
            let speed = match params.substeps {
                crate::params::Substeps::Frequency(hz) => {
                    format!(" ({:.1} m/s at {hz} Hz)", reach * hz)
                }
                crate::params::Substeps::Fixed(_) => String::new(),
            };
            out.push(format!(
                "{name} is thin for the cloth: its radius plus its thickness ({}) is under \
                 {THIN_CAPSULE_SPACINGS} of the cloth's spacing ({}), so the cloth's triangles \
                 keep its axis out as well as its particles, and every cloth takes the global \
                 path; cloth moving more than about {} in a substep{speed} can still pass through it \
                 (raise --frequency, or give it a thickness of at least {}, which keeps it off \
                 the triangles)",
                length(reach),
                length(spacing),
                length(reach),
                // A hair over the bound, which the rounding of the printed figure would miss.
                length((THIN_CAPSULE_SPACINGS * spacing - radius_a.min(radius_b)) * 1.01),
            ));
        }
        // --ground H is --collider plane:0,1,0,H: both say what starts behind them.
        for (c, name) in params.colliders.iter().zip(self.collider_names()) {
            let crate::Shape::Plane { normal, offset } = c.normalized_shape() else {
                out.extend(inside_warnings(cloth, c, &name));
                continue;
            };
            let behind = |want_pinned: bool| {
                (0..n)
                    .filter(|&i| {
                        let x = c.pose.inverse_transform_point(cloth.positions()[i]);
                        cloth.is_pinned(i) == want_pinned && normal.dot(x) < offset
                    })
                    .count()
            };
            let below = if normal.y > 0.999 {
                "below"
            } else {
                "behind (on the side its normal points away from)"
            };
            let (pinned_behind, free_behind) = (behind(true), behind(false));
            if pinned_behind > 0 {
                out.push(format!(
                    "{pinned_behind} pinned particles are {below} {name} and stay there \
                     (pinned particles do not collide)"
                ));
            }
            // The farthest push any free particle takes: out of the plane and to its
            // thickness, from behind it or from within half the thickness in front.
            let mut near = 0usize;
            let mut longest = 0.0f32;
            for i in (0..n).filter(|&i| !cloth.is_pinned(i)) {
                let x = c.pose.inverse_transform_point(cloth.positions()[i]);
                let ahead = normal.dot(x) - offset;
                if ahead < 0.5 * c.thickness {
                    near += usize::from(ahead >= 0.0);
                    longest = longest.max(c.thickness - ahead);
                }
            }
            let (way, side) = if normal.y > 0.999 {
                ("up", "above")
            } else {
                ("out", "off")
            };
            let pace = pace(longest);
            if free_behind > 0 {
                out.push(format!(
                    "{free_behind} particles start {below} {name} and are pushed {way} to its \
                     thickness of {} {side} it, {pace}",
                    length(c.thickness),
                ));
            }
            if near > 0 {
                out.push(format!(
                    "{near} particles start within half the thickness of {name} and are pushed \
                     {way} to its thickness of {} {side} it, {pace}",
                    length(c.thickness),
                ));
            }
        }
        out
    }
}

/// What starts inside a collider that is not a plane, or near enough to be pushed hard (a
/// plane's are said as "below" or "behind" it): a free particle closer to its surface than
/// half the thickness is pushed out to the thickness at up to `config::ESCAPE_SPEED`, which
/// stretches the cloth meanwhile when the push is long (before that bound, a thickness of 100 m
/// round a sphere that touched the cloth flung it 100 m, and ran with no word); pinned ones
/// inside stay there.
fn inside_warnings(cloth: &Cloth, c: &crate::Collider, name: &str) -> Vec<String> {
    let (mut free, mut pinned, mut longest) = (0usize, 0usize, 0.0f32);
    let mut deepest = 0.0f32;
    for (i, &x) in cloth.positions().iter().enumerate() {
        let d = c.distance(x);
        if cloth.is_pinned(i) {
            pinned += usize::from(d < 0.0);
        } else if d < 0.5 * c.contact_thickness() {
            free += 1;
            longest = longest.max(c.contact_thickness() - d);
            deepest = deepest.max(-d);
        }
    }
    let mut out = Vec::new();
    if pinned > 0 {
        out.push(format!(
            "{pinned} pinned {} inside {name} and {} there (pinned particles do not collide)",
            if pinned == 1 {
                "particle is"
            } else {
                "particles are"
            },
            if pinned == 1 { "stays" } else { "stay" },
        ));
    }
    if free > 0 {
        let (one, they) = if free == 1 {
            ("starts", "it is")
        } else {
            ("start", "they are")
        };
        let place = if deepest > 0.0 {
            format!("inside {name}, up to {} deep", length(deepest))
        } else {
            format!("within half the thickness of {name}")
        };
        out.push(format!(
            "{free} of the cloth's {} particles {one} {place}: {they} pushed out to its \
             surface plus its thickness of {}, up to {}, {}, which stretches the cloth \
             meanwhile (move the cloth or the collider apart)",
            cloth.particle_count(),
            length(c.contact_thickness()),
            length(longest),
            pace(longest),
        ));
    }
    out
}

/// How fast a push of `longest` (m) out of a collider goes (`config::ESCAPE_SPEED`; a
/// frame's last substep can take two steps, hence "about"), and how long it takes where that
/// is long enough to see.
fn pace(longest: f32) -> String {
    let speed = crate::config::ESCAPE_SPEED;
    let seconds = longest / speed;
    if seconds >= 0.1 {
        format!("at up to about {speed} m/s, over about {seconds:.1} s")
    } else {
        format!("at up to about {speed} m/s")
    }
}

/// A length for a message, in the unit its size calls for (a depth printed in centimetres
/// read "99999992.0 cm" for a sphere of 1 000 km and "0.0 cm" for a box 2 µm thin).
fn length(m: f32) -> String {
    let a = m.abs();
    if a >= 1.0 {
        format!("{m:.2} m")
    } else if a >= 0.01 {
        format!("{:.1} cm", 100.0 * m)
    } else if a >= 1e-4 {
        format!("{:.2} mm", 1e3 * m)
    } else {
        format!("{m:.1e} m")
    }
}

/// A `--pin` selection as it was written (near enough to recognise).
fn pin_name(p: &Pinning) -> String {
    match p {
        Pinning::None => "none".into(),
        Pinning::Corners => "corners".into(),
        Pinning::Edge => "edge".into(),
        Pinning::List(v) => format!(
            "list:{}",
            v.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
        ),
        Pinning::Group(g) => format!("group:{g}"),
        Pinning::Box { min, max } => format!(
            "box:{},{},{},{},{},{}",
            min.x, min.y, min.z, max.x, max.y, max.z
        ),
        Pinning::Top { distance } => format!("top:{distance}"),
    }
}

/// What a mesh collider's file became, for `simulate`'s output.
fn describe_grid(
    index: usize,
    path: &std::path::Path,
    grid: &crate::DistanceGrid,
    took: std::time::Duration,
) -> String {
    let [x, y, z] = grid.dims();
    format!(
        "collider {index} (mesh {}): {} triangles, {}; grid {x}x{y}x{z} of {:.3} m cells, {:.1} MB, \
         built in {:.2} s",
        path.display(),
        grid.triangle_count(),
        if grid.is_signed() {
            "closed (a solid)"
        } else {
            "open (a shell)"
        },
        grid.cell_size(),
        grid.memory_bytes() as f64 / 1e6,
        took.as_secs_f64()
    )
}

/// A mesh collider's grid and the collider that built it.
type SharedGrid = (std::sync::Arc<crate::DistanceGrid>, usize);

/// What makes two paths the same file: its device and inode on Unix (so `./a.obj`, a link to
/// it and a hard link share one grid), its canonical path elsewhere, or the path as given when
/// it cannot be resolved (the reader then names the error).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum FileIdentity {
    Inode(u64, u64),
    Path(PathBuf),
}

fn file_identity(path: &std::path::Path) -> FileIdentity {
    #[cfg(unix)]
    if let Ok(meta) = std::fs::metadata(path) {
        use std::os::unix::fs::MetadataExt;
        return FileIdentity::Inode(meta.dev(), meta.ino());
    }
    FileIdentity::Path(std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()))
}
