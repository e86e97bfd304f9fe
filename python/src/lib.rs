//! chiffon from Python: the Rust API's types with the same names, units, defaults and errors,
//! numpy arrays in and out. The solver steps with the interpreter's lock released; `positions`
//! makes one copy (the readback) and `step` none.
//!
//! One file, though long: each class is one `#[pymethods]` block (pyo3 joins several only
//! with its `multiple-pymethods` feature), beside the conversions they all use.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use chiffon::glam::{Quat, Vec3};
use chiffon::params::{Substeps, TetherParams};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

create_exception!(
    chiffon,
    ChiffonError,
    PyException,
    "Any error chiffon reports; `kind` names which (e.g. 'invalid_parameter', 'diverged')."
);
create_exception!(
    chiffon,
    InvalidParameterError,
    ChiffonError,
    "A number given is NaN, negative, zero where it must not be, or absurd."
);
create_exception!(
    chiffon,
    InvalidClothError,
    ChiffonError,
    "A cloth, a mesh or its coloring cannot be built."
);
create_exception!(
    chiffon,
    NoGpuError,
    ChiffonError,
    "No GPU adapter or device could be opened."
);
create_exception!(
    chiffon,
    DeviceLimitError,
    ChiffonError,
    "The cloth or its colliders need more memory than the device allows."
);
create_exception!(
    chiffon,
    DivergedError,
    ChiffonError,
    "The simulation diverged; `cloth`, `particle` and `frame` say where."
);
create_exception!(
    chiffon,
    StaleHandleError,
    ChiffonError,
    "A cloth handle names no cloth in this world."
);
create_exception!(
    chiffon,
    WorldFullError,
    ChiffonError,
    "The world cannot take this cloth."
);
create_exception!(
    chiffon,
    FileError,
    ChiffonError,
    "A file cannot be read or written."
);

/// The Python exception for a chiffon error: its class by kind, its message the Rust one, and
/// `kind` (and for a divergence `cloth`, `particle`, `frame`) as attributes.
fn error(e: chiffon::ChiffonError) -> PyErr {
    use chiffon::ChiffonError as E;
    let message = e.to_string();
    let (err, kind) = match &e {
        E::InvalidParameter { .. } => {
            (InvalidParameterError::new_err(message), "invalid_parameter")
        }
        E::InvalidCloth(_) => (InvalidClothError::new_err(message), "invalid_cloth"),
        E::InvalidMesh { .. } => (InvalidClothError::new_err(message), "invalid_mesh"),
        E::InvalidColoring(_) => (InvalidClothError::new_err(message), "invalid_coloring"),
        E::NoAdapter(_) | E::NoWebGpu(_) | E::AdapterNotFound { .. } | E::RequestDevice(_) => {
            (NoGpuError::new_err(message), "no_gpu")
        }
        E::ExceedsDeviceLimit { .. } => {
            (DeviceLimitError::new_err(message), "exceeds_device_limit")
        }
        E::Diverged { .. } => (DivergedError::new_err(message), "diverged"),
        E::StaleHandle { .. } => (StaleHandleError::new_err(message), "stale_handle"),
        E::WorldFull { .. } => (WorldFullError::new_err(message), "world_full"),
        E::UnreadableFile { .. } | E::Io { .. } => (FileError::new_err(message), "file"),
        E::Readback(_) => (ChiffonError::new_err(message), "readback"),
        E::WouldBlock { .. } => (ChiffonError::new_err(message), "would_block"),
        _ => (ChiffonError::new_err(message), "other"),
    };
    Python::attach(|py| {
        let value = err.value(py);
        let _ = value.setattr("kind", kind);
        if let E::Diverged {
            cloth,
            particle,
            frame,
            cause,
        } = e
        {
            let _ = value.setattr("cloth", cloth);
            let _ = value.setattr("particle", particle);
            let _ = value.setattr("frame", frame);
            let cause = match cause {
                chiffon::DivergenceCause::NonFinite => "non_finite",
                chiffon::DivergenceCause::TooFar { .. } => "too_far",
            };
            let _ = value.setattr("cause", cause);
        }
    });
    err
}

/// `Result` into Python's.
trait Py<T> {
    fn py(self) -> PyResult<T>;
}

impl<T> Py<T> for chiffon::Result<T> {
    fn py(self) -> PyResult<T> {
        self.map_err(error)
    }
}

/// An `(N, 3)` array of float32 from anything numpy takes as one (an array of any float dtype,
/// nested lists); `what` names it in the error.
fn points(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<Vec3>> {
    let numpy = obj.py().import("numpy")?;
    let float32 = numpy.getattr("float32")?;
    let array = numpy
        .call_method1("ascontiguousarray", (obj, float32))
        .map_err(|e| PyValueError::new_err(format!("{what}: not an array of numbers ({e})")))?;
    let array = array
        .cast::<PyArray2<f32>>()
        .map_err(|_| PyValueError::new_err(format!("{what} must have shape (N, 3)")))?;
    let shape = array.shape().to_vec();
    if shape[1] != 3 {
        return Err(PyValueError::new_err(format!(
            "{what} must have shape (N, 3), not ({}, {})",
            shape[0], shape[1]
        )));
    }
    let read = array.readonly();
    let flat = read
        .as_slice()
        .map_err(|e| PyValueError::new_err(format!("{what}: {e}")))?;
    Ok(flat.chunks_exact(3).map(Vec3::from_slice).collect())
}

/// An `(M, 3)` array of vertex indices, each in `0..count`.
fn triangles(obj: &Bound<'_, PyAny>, count: usize) -> PyResult<Vec<[u32; 3]>> {
    let numpy = obj.py().import("numpy")?;
    let array = numpy.call_method1("asarray", (obj,))?;
    let kind: String = array.getattr("dtype")?.getattr("kind")?.extract()?;
    if kind != "i" && kind != "u" {
        return Err(PyValueError::new_err(format!(
            "triangles must be integers (vertex indices), not dtype kind '{kind}'"
        )));
    }
    let array = numpy.call_method1("ascontiguousarray", (array, numpy.getattr("int64")?))?;
    let array = array
        .cast::<PyArray2<i64>>()
        .map_err(|_| PyValueError::new_err("triangles must have shape (M, 3)"))?;
    let shape = array.shape().to_vec();
    if shape[1] != 3 {
        return Err(PyValueError::new_err(format!(
            "triangles must have shape (M, 3), not ({}, {})",
            shape[0], shape[1]
        )));
    }
    let read = array.readonly();
    let flat = read
        .as_slice()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let mut out = Vec::with_capacity(shape[0]);
    for (t, tri) in flat.chunks_exact(3).enumerate() {
        let mut v = [0u32; 3];
        for (k, &i) in tri.iter().enumerate() {
            if i < 0 || i as usize >= count {
                return Err(PyIndexError::new_err(format!(
                    "triangle {t} names vertex {i}, but there are {count} vertices"
                )));
            }
            v[k] = i as u32;
        }
        out.push(v);
    }
    Ok(out)
}

/// Rows of positions (m) as an `(N, 3)` float32 array, written once: from the readback's
/// records (xyz and the inverse mass) straight into the array numpy takes over.
fn array<'py>(
    py: Python<'py>,
    rows: impl ExactSizeIterator<Item = [f32; 3]>,
) -> Bound<'py, PyArray2<f32>> {
    let n = rows.len();
    let mut flat = Vec::with_capacity(n * 3);
    rows.for_each(|r| flat.extend_from_slice(&r));
    Array2::from_shape_vec((n, 3), flat)
        .expect("n rows of 3")
        .into_pyarray(py)
}

/// The process's one GPU device, opened on first use and shared by every solver and world (as a
/// Rust program shares one `GpuContext`): opening a device per solver cost an adapter probe and
/// a device each time. A failed open is not remembered, so a later call tries again.
fn shared_gpu() -> chiffon::Result<chiffon::GpuContext> {
    static GPU: Mutex<Option<chiffon::GpuContext>> = Mutex::new(None);
    let mut gpu = GPU.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(ctx) = gpu.as_ref() {
        return Ok(ctx.clone());
    }
    let ctx = chiffon::GpuContext::new()?;
    *gpu = Some(ctx.clone());
    Ok(ctx)
}

/// The backend by name: `"gpu"`, `"cpu"`, or `None` for the GPU when wgpu finds one, else the
/// CPU reference.
fn context(backend: Option<&str>) -> PyResult<Option<chiffon::GpuContext>> {
    match backend {
        None | Some("auto") => match shared_gpu() {
            Ok(ctx) => Ok(Some(ctx)),
            // An adapter named in WGPU_ADAPTER_NAME that is not there is a mistake to report,
            // not a reason to fall back to the CPU.
            Err(e @ chiffon::ChiffonError::AdapterNotFound { .. }) => Err(error(e)),
            Err(_) => Ok(None),
        },
        Some("gpu") => shared_gpu().py().map(Some),
        Some("cpu") => Ok(None),
        Some(other) => Err(PyValueError::new_err(format!(
            "backend must be 'gpu', 'cpu', 'auto' or None (automatic), not {other:?}"
        ))),
    }
}

fn backend(ctx: &Option<chiffon::GpuContext>) -> chiffon::Backend<'_> {
    ctx.as_ref()
        .map_or(chiffon::Backend::Cpu, chiffon::Backend::Gpu)
}

/// A cloth: particles, colored constraints and triangles, made by `ClothBuilder.build()`.
#[pyclass(module = "chiffon", frozen)]
struct Cloth(chiffon::Cloth);

#[pymethods]
impl Cloth {
    /// Particles.
    #[getter]
    fn particle_count(&self) -> usize {
        self.0.particle_count()
    }

    /// Distance constraints and bending records.
    #[getter]
    fn constraint_count(&self) -> usize {
        self.0.constraint_count()
    }

    /// The rest positions, an `(N, 3)` float32 array (m).
    fn positions<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f32>> {
        array(py, self.0.positions().iter().map(|p| p.to_array()))
    }

    /// The triangles, an `(M, 3)` uint32 array of particle indices (empty for a rope).
    fn triangles<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<u32>> {
        let t = self.0.triangles();
        let flat: Vec<u32> = t.iter().flatten().copied().collect();
        Array2::from_shape_vec((t.len(), 3), flat)
            .expect("rows of 3")
            .into_pyarray(py)
    }

    /// The mean structural edge length at rest (m).
    fn mean_edge_length(&self) -> f32 {
        self.0.mean_edge_length()
    }

    fn __repr__(&self) -> String {
        format!(
            "Cloth({} particles, {} constraints, {} triangles)",
            self.0.particle_count(),
            self.0.constraint_count(),
            self.0.triangles().len()
        )
    }
}

/// Makes a cloth from a grid, a triangle mesh (arrays or an OBJ file) or a rope. Each method
/// returns a new builder; `build()` makes the `Cloth`.
#[pyclass(module = "chiffon", frozen)]
#[derive(Clone)]
struct ClothBuilder(chiffon::ClothBuilder);

#[pymethods]
impl ClothBuilder {
    /// A grid of `columns` × `rows` particles, 1 m wide by default, hanging from its top
    /// corners at 1 m.
    #[staticmethod]
    fn grid(columns: u32, rows: u32) -> Self {
        Self(chiffon::ClothBuilder::grid(columns, rows))
    }

    /// A triangle mesh: `vertices` an `(N, 3)` array (m), `triangles` an `(M, 3)` integer array
    /// of vertex indices; not pinned unless you pin it.
    #[staticmethod]
    #[pyo3(signature = (vertices, triangles, name = "mesh"))]
    fn mesh(
        vertices: &Bound<'_, PyAny>,
        triangles: &Bound<'_, PyAny>,
        name: &str,
    ) -> PyResult<Self> {
        let v = points(vertices, "vertices")?;
        let t = self::triangles(triangles, v.len())?;
        let mesh = chiffon::TriangleMesh::new(name, v, t);
        Ok(Self(chiffon::ClothBuilder::mesh(mesh)))
    }

    /// The mesh of an OBJ file.
    #[staticmethod]
    fn obj(path: PathBuf) -> PyResult<Self> {
        chiffon::ClothBuilder::obj(path).py().map(Self)
    }

    /// A rope through `points`, an `(N, 3)` array (m).
    #[staticmethod]
    fn rope(points: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(Self(chiffon::ClothBuilder::rope(self::points(
            points, "points",
        )?)))
    }

    /// A grid's distance between neighbours (m); default 1 m over its width.
    fn spacing(&self, spacing: f32) -> Self {
        Self(self.0.clone().spacing(spacing))
    }

    /// The whole cloth's mass (kg); a grid's default is 0.2 kg.
    fn total_mass(&self, kg: f32) -> Self {
        Self(self.0.clone().total_mass(kg))
    }

    /// Mass per area (kg/m²; kg/m for a rope); meshes and ropes default to 0.2.
    fn density(&self, kg_per_unit: f32) -> Self {
        Self(self.0.clone().density(kg_per_unit))
    }

    /// A grid hanging in the x-y plane with its top row at `top` (m): the default, at 1 m.
    #[pyo3(signature = (top = 1.0))]
    fn hanging(&self, top: f32) -> Self {
        Self(self.0.clone().layout(chiffon::Layout::Hanging { top }))
    }

    /// A grid lying flat in the x-z plane at `height` (m).
    #[pyo3(signature = (height = 1.0))]
    fn flat(&self, height: f32) -> Self {
        Self(self.0.clone().layout(chiffon::Layout::Flat { height }))
    }

    /// What is pinned: `"none"`, `"corners"` (a grid's top corners: the default), `"edge"` (a
    /// grid's top row), a list of particle indices, or the name of an OBJ group.
    fn pinning(&self, pins: &Bound<'_, PyAny>) -> PyResult<Self> {
        use chiffon::Pinning;
        let pinning = if let Ok(name) = pins.extract::<String>() {
            match name.as_str() {
                "none" => Pinning::None,
                "corners" => Pinning::Corners,
                "edge" => Pinning::Edge,
                group => Pinning::Group(group.to_string()),
            }
        } else {
            let list: Vec<i64> = pins.extract().map_err(|_| {
                PyValueError::new_err("pinning is 'none', 'corners', 'edge', a group name or a list of particle indices")
            })?;
            let indices = list
                .into_iter()
                .map(|i| {
                    u32::try_from(i).map_err(|_| {
                        PyIndexError::new_err(format!("pinned particle {i} is not an index"))
                    })
                })
                .collect::<PyResult<Vec<u32>>>()?;
            Pinning::List(indices)
        };
        Ok(Self(self.0.clone().pinning(pinning)))
    }

    /// Scales a mesh or a rope about the origin.
    fn scale(&self, scale: f32) -> Self {
        Self(self.0.clone().scale(scale))
    }

    /// Moves the cloth by `offset` (m).
    fn translate(&self, offset: [f32; 3]) -> Self {
        Self(self.0.clone().translate(Vec3::from_array(offset)))
    }

    /// Every particle's initial velocity (m/s).
    fn velocity(&self, v: [f32; 3]) -> Self {
        Self(self.0.clone().velocity(Vec3::from_array(v)))
    }

    /// What holds the surface: `"edges"` (a distance along every edge: the default) or
    /// `"triangles"` (strain based dynamics on every triangle: warp and weft at the stretch
    /// compliance, shear at its own, so a soft shear frees any triangulation).
    fn membrane(&self, membrane: &str) -> PyResult<Self> {
        let m = match membrane {
            "edges" => chiffon::Membrane::Edges,
            "triangles" => chiffon::Membrane::Triangles,
            other => {
                return Err(PyValueError::new_err(format!(
                    "membrane is 'edges' or 'triangles', not {other:?}"
                )));
            }
        };
        Ok(Self(self.0.clone().membrane(m)))
    }

    /// The cloth, or an `InvalidClothError` / `InvalidParameterError` saying why not.
    fn build(&self) -> PyResult<Cloth> {
        self.0.clone().build().py().map(Cloth)
    }
}

/// A kinematic body the cloth collides with. Shapes: `sphere`, `capsule`, `cuboid`, `plane`,
/// `ground`, `mesh`; `thickness` (m, default 0.005), `friction` (μ, default 0.3) and
/// `restitution` (default 0) return a changed copy.
#[pyclass(module = "chiffon", frozen)]
#[derive(Clone)]
struct Collider(chiffon::Collider);

#[pymethods]
impl Collider {
    /// A sphere of `radius` (m) about `center`.
    #[staticmethod]
    fn sphere(center: [f32; 3], radius: f32) -> Self {
        Self(chiffon::Collider::sphere(Vec3::from_array(center), radius))
    }

    /// A capsule from `a` to `b`, of radius `radius` (m) at `a` and `radius_b` at `b` (the same
    /// when not given: a tapered capsule otherwise).
    #[staticmethod]
    #[pyo3(signature = (a, b, radius, radius_b = None))]
    fn capsule(a: [f32; 3], b: [f32; 3], radius: f32, radius_b: Option<f32>) -> Self {
        let (a, b) = (Vec3::from_array(a), Vec3::from_array(b));
        Self(chiffon::Collider::capsule(
            a,
            b,
            radius,
            radius_b.unwrap_or(radius),
        ))
    }

    /// A box of `half_extents` (m) about `center`, turned by the unit quaternion `rotation`
    /// (x, y, z, w).
    #[staticmethod]
    #[pyo3(signature = (center, half_extents, rotation = [0.0, 0.0, 0.0, 1.0]))]
    fn cuboid(center: [f32; 3], half_extents: [f32; 3], rotation: [f32; 4]) -> Self {
        Self(chiffon::Collider::cuboid(
            Vec3::from_array(center),
            Vec3::from_array(half_extents),
            Quat::from_array(rotation),
        ))
    }

    /// The half-space n·x ≥ offset is where the cloth stays.
    #[staticmethod]
    fn plane(normal: [f32; 3], offset: f32) -> Self {
        Self(chiffon::Collider::plane(Vec3::from_array(normal), offset))
    }

    /// A floor at `height` (m).
    #[staticmethod]
    fn ground(height: f32) -> Self {
        Self(chiffon::Collider::ground(height))
    }

    /// A mesh from an OBJ file (`path`) or from arrays (`vertices`, `triangles`), as a signed
    /// distance grid of `resolution` samples along its longest side, placed at `position`
    /// turned by `rotation`.
    #[staticmethod]
    #[pyo3(signature = (path = None, vertices = None, triangles = None, resolution = 96, position = [0.0; 3], rotation = [0.0, 0.0, 0.0, 1.0]))]
    fn mesh(
        path: Option<PathBuf>,
        vertices: Option<&Bound<'_, PyAny>>,
        triangles: Option<&Bound<'_, PyAny>>,
        resolution: u32,
        position: [f32; 3],
        rotation: [f32; 4],
    ) -> PyResult<Self> {
        let grid = match (path, vertices, triangles) {
            (Some(path), None, None) => chiffon::DistanceGrid::from_obj(path, resolution).py()?,
            (None, Some(v), Some(t)) => {
                let v = points(v, "vertices")?;
                let t = self::triangles(t, v.len())?;
                let mesh = chiffon::TriangleMesh::new("mesh collider", v, t);
                chiffon::DistanceGrid::from_mesh(&mesh, resolution).py()?
            }
            _ => {
                return Err(PyValueError::new_err(
                    "a mesh collider takes a path, or vertices and triangles",
                ));
            }
        };
        let pose = chiffon::Pose::new(Vec3::from_array(position), Quat::from_array(rotation));
        Ok(Self(chiffon::Collider::mesh(Arc::new(grid), pose)))
    }

    /// The distance (m) the cloth keeps from the surface.
    fn thickness(&self, thickness: f32) -> Self {
        Self(self.0.clone().thickness(thickness))
    }

    /// Coulomb friction μ.
    fn friction(&self, friction: f32) -> Self {
        Self(self.0.clone().friction(friction))
    }

    /// Restitution e (0: no bounce, 1: elastic).
    fn restitution(&self, restitution: f32) -> Self {
        Self(self.0.clone().restitution(restitution))
    }

    fn __repr__(&self) -> String {
        format!("Collider({:?})", self.0.shape)
    }
}

/// What the solver does each frame, with the Rust defaults: 360 Hz (6 substeps at 60 fps),
/// one iteration, gravity −9.81 m/s² along y, tethers and coarse levels on, a strain limit of
/// 1.1 in contact, no colliders, no self-collision.
///
/// Keywords: `gravity` (m/s², 3 numbers), `damping` (1/s), `iterations`, `substeps` (a fixed
/// number a frame) or `frequency` (Hz), `stretch`, `shear` (compliances, m/N), `curvature`
/// (a sheet's bending compliance, 1/(N·m)), `bend` (a rope's bending distances and a mesh's
/// folds, m/N), `tethers` (bool), `coarse_levels` (bool), `max_distance` (m, or None for the
/// automatic divergence limit), `colliders` (a list of `Collider`), `self_collision` (bool,
/// or a dict with `thickness` (m, None: automatic) and `friction`), `strain_limit` (a factor
/// ≥ 1, or None for none), `strain_limit_frames` ("contact", the default, or "all": every
/// frame also ends within it, a cloth that hangs free too).
#[pyclass(module = "chiffon", frozen)]
#[derive(Clone)]
struct SolverParams(chiffon::SolverParams);

#[pymethods]
impl SolverParams {
    #[new]
    #[pyo3(signature = (**kwargs))]
    fn new(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let mut p = chiffon::SolverParams::default();
        let Some(kwargs) = kwargs else {
            return Ok(Self(p));
        };
        if kwargs.contains("substeps")? && kwargs.contains("frequency")? {
            return Err(PyValueError::new_err(
                "give substeps (a number a frame) or frequency (Hz), not both",
            ));
        }
        for (key, value) in kwargs.iter() {
            let key: String = key.extract()?;
            match key.as_str() {
                "gravity" => p.gravity = Vec3::from_array(value.extract()?),
                "damping" => p.damping = value.extract()?,
                "iterations" => p.iterations = value.extract()?,
                "substeps" => p.substeps = Substeps::Fixed(value.extract()?),
                "frequency" => p.substeps = Substeps::Frequency(value.extract()?),
                "stretch" => p.compliance.stretch = value.extract()?,
                "shear" => p.compliance.shear = value.extract()?,
                "bend" => p.compliance.bend = value.extract()?,
                "curvature" => p.compliance.curvature = value.extract()?,
                "tethers" => {
                    p.tethers = value.extract::<bool>()?.then(TetherParams::default);
                }
                "coarse_levels" => p.coarse_levels = value.extract()?,
                "max_distance" => p.max_distance = value.extract()?,
                "strain_limit" => p.strain_limit = value.extract()?,
                "strain_limit_frames" => {
                    p.strain_limit_frames = value
                        .extract::<String>()?
                        .parse()
                        .map_err(PyValueError::new_err)?;
                }
                "colliders" => {
                    let list = value.try_iter().map_err(|_| {
                        PyValueError::new_err("colliders must be a list of chiffon.Collider")
                    })?;
                    p.colliders = list
                        .map(|c| {
                            let c = c?;
                            let c = c.cast::<Collider>().map_err(|_| {
                                PyValueError::new_err(
                                    "colliders must be a list of chiffon.Collider",
                                )
                            })?;
                            Ok(c.get().0.clone())
                        })
                        .collect::<PyResult<_>>()?;
                }
                "self_collision" => {
                    p.self_collision = if let Ok(on) = value.extract::<bool>() {
                        on.then(chiffon::SelfCollision::default)
                    } else if value.is_none() {
                        None
                    } else {
                        let d = value.cast::<PyDict>().map_err(|_| {
                            PyValueError::new_err(
                                "self_collision is a bool or a dict with thickness and friction",
                            )
                        })?;
                        let mut s = chiffon::SelfCollision::default();
                        for (k, v) in d.iter() {
                            match k.extract::<String>()?.as_str() {
                                "thickness" => s.thickness = v.extract()?,
                                "friction" => s.friction = v.extract()?,
                                other => {
                                    return Err(PyValueError::new_err(format!(
                                        "self_collision has no setting {other:?} (thickness, friction)"
                                    )));
                                }
                            }
                        }
                        Some(s)
                    };
                }
                other => {
                    return Err(PyValueError::new_err(format!(
                        "SolverParams has no setting {other:?}"
                    )));
                }
            }
        }
        Ok(Self(p))
    }

    /// The colliders.
    #[getter]
    fn colliders(&self) -> Vec<Collider> {
        self.0.colliders.iter().cloned().map(Collider).collect()
    }

    /// The strain limit, or None.
    #[getter]
    fn strain_limit(&self) -> Option<f32> {
        self.0.strain_limit
    }

    /// Which frames run the strain limit: "contact" or "all".
    #[getter]
    fn strain_limit_frames(&self) -> &'static str {
        self.0.strain_limit_frames.name()
    }

    fn __repr__(&self) -> String {
        format!("{:?}", self.0)
    }
}

fn params(p: Option<&SolverParams>) -> chiffon::SolverParams {
    p.map(|p| p.0.clone()).unwrap_or_default()
}

/// A collider's pose: its position (m) and the unit quaternion (x, y, z, w) it is turned by.
fn pose(position: [f32; 3], rotation: Option<[f32; 4]>) -> chiffon::Pose {
    let rotation = rotation.map_or(Quat::IDENTITY, Quat::from_array);
    chiffon::Pose::new(Vec3::from_array(position), rotation)
}

fn energy(py: Python<'_>, e: chiffon::quality::Energy) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("kinetic", e.kinetic)?;
    d.set_item("gravitational", e.gravitational)?;
    d.set_item("elastic", e.elastic)?;
    d.set_item("total", e.total())?;
    Ok(d)
}

/// Steps one cloth on the GPU (when wgpu finds one, or `backend="gpu"`) or on the CPU reference
/// (`backend="cpu"`). `step(dt)` releases the interpreter's lock while the kernels run.
#[pyclass(module = "chiffon")]
struct Solver {
    solver: Mutex<chiffon::Solver>,
    cloth: chiffon::Cloth,
}

impl Solver {
    /// Runs `f` on the solver with the interpreter's lock released: a call that waits for the
    /// solver (another thread's step in flight) then holds neither lock, and every other
    /// Python thread runs meanwhile.
    fn with<R: Send>(&self, py: Python<'_>, f: impl FnOnce(&mut chiffon::Solver) -> R + Send) -> R {
        py.detach(|| f(&mut self.solver.lock().unwrap_or_else(|e| e.into_inner())))
    }
}

#[pymethods]
impl Solver {
    #[new]
    #[pyo3(signature = (cloth, params = None, backend = None))]
    fn new(cloth: &Cloth, params: Option<&SolverParams>, backend: Option<&str>) -> PyResult<Self> {
        let ctx = context(backend)?;
        let solver =
            chiffon::Solver::new(self::backend(&ctx), &cloth.0, self::params(params)).py()?;
        Ok(Self {
            solver: Mutex::new(solver),
            cloth: cloth.0.clone(),
        })
    }

    /// Advances `dt` seconds (a frame), with the interpreter's lock released.
    fn step(&self, py: Python<'_>, dt: f64) -> PyResult<()> {
        // The lock is taken with the interpreter's released: a thread waiting for it then
        // holds neither, and the stepping thread can take the interpreter back.
        self.with(py, |s| s.step(dt)).py()
    }

    /// The particles' positions, an `(N, 3)` float32 array (m): one copy, the readback.
    fn positions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let raw = self.with(py, |s| s.raw_positions()).py()?;
        Ok(array(py, raw.iter().map(|p| p.truncate().to_array())))
    }

    /// Moves particle `index` to `position` (m) with `inverse_mass` (1/kg; 0 pins it).
    fn set_particle(
        &self,
        py: Python<'_>,
        index: usize,
        position: [f32; 3],
        inverse_mass: f32,
    ) -> PyResult<()> {
        self.with(py, |s| {
            s.set_particle(index, Vec3::from_array(position), inverse_mass)
        })
        .py()
    }

    /// Carries pinned particle `index` to `position` (m) over the next step, one equal step a
    /// substep, so the cloth beside it is not jerked as by `set_particle`.
    fn move_pin(&self, py: Python<'_>, index: usize, position: [f32; 3]) -> PyResult<()> {
        self.with(py, |s| s.move_pin(index, Vec3::from_array(position)))
            .py()
    }

    /// Sets particle `index`'s inverse mass (1/kg; 0 pins it where it is).
    fn set_inverse_mass(&self, py: Python<'_>, index: usize, inverse_mass: f32) -> PyResult<()> {
        self.with(py, |s| s.set_inverse_mass(index, inverse_mass))
            .py()
    }

    /// Moves collider `index` to `position` (m), turned by `rotation` (x, y, z, w); the next
    /// step's substeps carry it there.
    #[pyo3(signature = (index, position, rotation = None))]
    fn set_collider_pose(
        &self,
        py: Python<'_>,
        index: usize,
        position: [f32; 3],
        rotation: Option<[f32; 4]>,
    ) -> PyResult<()> {
        self.with(py, |s| s.set_collider_pose(index, pose(position, rotation)))
            .py()
    }

    /// Kinetic, gravitational, elastic and total energy (J), as a dict.
    fn energy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let e = self.with(py, |s| s.energy()).py()?;
        energy(py, e)
    }

    /// Raises `DivergedError` if a particle became non-finite or flew past the divergence
    /// limit in the last frame (`step` checks too).
    fn health(&self, py: Python<'_>) -> PyResult<()> {
        self.with(py, |s| s.health()).py()
    }

    /// Gives the solver new parameters (colliders, self-collision, gravity, ...).
    fn set_params(&self, py: Python<'_>, params: &SolverParams) -> PyResult<()> {
        self.with(py, |s| s.set_params(params.0.clone())).py()
    }

    /// Returns the cloth to its start.
    fn reset(&self, py: Python<'_>) -> PyResult<()> {
        self.with(py, |s| s.reset()).py()
    }

    /// Writes the cloth as it is now to an OBJ file.
    fn write_obj(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let positions = self.with(py, |s| s.positions()).py()?;
        chiffon::export::write_positions(&path, &self.cloth, &positions).py()
    }

    /// What runs the kernels: the adapter's name, or the CPU reference.
    #[getter]
    fn backend(&self, py: Python<'_>) -> String {
        self.with(py, |s| s.backend_name())
    }

    /// Particles.
    #[getter]
    fn particle_count(&self) -> usize {
        self.cloth.particle_count()
    }
}

/// A cloth's handle in a `World` (it stays valid until the cloth is removed).
#[pyclass(module = "chiffon", frozen)]
#[derive(Clone, Copy)]
struct ClothHandle(chiffon::ClothHandle);

#[pymethods]
impl ClothHandle {
    /// Its index in the world.
    #[getter]
    fn index(&self) -> u32 {
        self.0.index()
    }

    fn __repr__(&self) -> String {
        format!("ClothHandle({})", self.0.index())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<ClothHandle>()
            .is_ok_and(|o| o.get().0 == self.0)
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.0.hash(&mut h);
        h.finish()
    }
}

/// Many cloths stepped together (small ones fused into one kernel), with one set of parameters
/// and colliders; as `Solver`, on the GPU or the CPU reference.
#[pyclass(module = "chiffon")]
struct World {
    world: Mutex<chiffon::World>,
}

impl World {
    /// As [`Solver::with`].
    fn with<R: Send>(&self, py: Python<'_>, f: impl FnOnce(&mut chiffon::World) -> R + Send) -> R {
        py.detach(|| f(&mut self.world.lock().unwrap_or_else(|e| e.into_inner())))
    }
}

#[pymethods]
impl World {
    #[new]
    #[pyo3(signature = (params = None, backend = None))]
    fn new(params: Option<&SolverParams>, backend: Option<&str>) -> PyResult<Self> {
        let ctx = context(backend)?;
        let config = chiffon::WorldConfig::default();
        let world = chiffon::World::new(self::backend(&ctx), self::params(params), config).py()?;
        Ok(Self {
            world: Mutex::new(world),
        })
    }

    /// Adds a cloth; returns its handle. It is placed where it was built, then scaled by
    /// `scale`, turned by `rotation` (x, y, z, w) and moved by `translate` (m); `stretch`,
    /// `shear` (m/N), `curvature` (1/(N·m)) and `bend` (m/N) give it its own material, each
    /// unset one the world's (`SolverParams`).
    #[pyo3(signature = (cloth, translate = None, rotation = None, scale = None, stretch = None, shear = None, curvature = None, bend = None))]
    #[allow(clippy::too_many_arguments)]
    fn add(
        &self,
        py: Python<'_>,
        cloth: &Cloth,
        translate: Option<[f32; 3]>,
        rotation: Option<[f32; 4]>,
        scale: Option<f32>,
        stretch: Option<f32>,
        shear: Option<f32>,
        curvature: Option<f32>,
        bend: Option<f32>,
    ) -> PyResult<ClothHandle> {
        let transform = chiffon::glam::Affine3A::from_scale_rotation_translation(
            Vec3::splat(scale.unwrap_or(1.0)),
            rotation.map_or(Quat::IDENTITY, Quat::from_array),
            Vec3::from_array(translate.unwrap_or([0.0; 3])),
        );
        let material = [stretch, shear, curvature, bend];
        self.with(py, |w| {
            let mut options = chiffon::ClothOptions::default().transform(transform);
            if material.iter().any(Option::is_some) {
                let mut c = w.params().compliance;
                let [stretch, shear, curvature, bend] = material;
                c.stretch = stretch.unwrap_or(c.stretch);
                c.shear = shear.unwrap_or(c.shear);
                c.curvature = curvature.unwrap_or(c.curvature);
                c.bend = bend.unwrap_or(c.bend);
                options.compliance = Some(c);
            }
            w.add(&cloth.0, options)
        })
        .py()
        .map(ClothHandle)
    }

    /// Removes a cloth.
    fn remove(&self, py: Python<'_>, handle: &ClothHandle) -> PyResult<()> {
        self.with(py, |s| s.remove(handle.0)).py()
    }

    /// The cloths' handles.
    fn handles(&self, py: Python<'_>) -> Vec<ClothHandle> {
        let handles = self.with(py, |w| w.handles());
        handles.into_iter().map(ClothHandle).collect()
    }

    fn __len__(&self, py: Python<'_>) -> usize {
        self.with(py, |w| w.len())
    }

    /// Advances every cloth `dt` seconds, with the interpreter's lock released.
    fn step(&self, py: Python<'_>, dt: f64) -> PyResult<()> {
        self.with(py, |s| s.step(dt)).py()
    }

    /// A cloth's positions, an `(N, 3)` float32 array (m).
    fn positions<'py>(
        &self,
        py: Python<'py>,
        handle: &ClothHandle,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let handle = handle.0;
        let raw = self.with(py, |s| s.raw_positions(handle)).py()?;
        Ok(array(py, raw.iter().map(|p| p.truncate().to_array())))
    }

    /// Every cloth's positions from one readback: a list of `(handle, (N, 3) float32 array)`
    /// in `handles()` order (one readback instead of one a cloth, which on a GPU is the
    /// difference that counts).
    fn all_positions<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Vec<(ClothHandle, Bound<'py, PyArray2<f32>>)>> {
        let all = self.with(py, |w| w.all_positions()).py()?;
        Ok(all
            .into_iter()
            .map(|(h, p)| (ClothHandle(h), array(py, p.iter().map(|x| x.to_array()))))
            .collect())
    }

    /// Moves particle `index` of a cloth to `position` (m) with `inverse_mass` (1/kg).
    fn set_particle(
        &self,
        py: Python<'_>,
        handle: &ClothHandle,
        index: usize,
        position: [f32; 3],
        inverse_mass: f32,
    ) -> PyResult<()> {
        self.with(py, |s| {
            s.set_particle(handle.0, index, Vec3::from_array(position), inverse_mass)
        })
        .py()
    }

    /// Carries pinned particle `index` of a cloth to `position` (m) over the next step, one
    /// equal step a substep.
    fn move_pin(
        &self,
        py: Python<'_>,
        handle: &ClothHandle,
        index: usize,
        position: [f32; 3],
    ) -> PyResult<()> {
        self.with(py, |s| {
            s.move_pin(handle.0, index, Vec3::from_array(position))
        })
        .py()
    }

    /// Moves collider `index` to `position` (m), turned by `rotation` (x, y, z, w).
    #[pyo3(signature = (index, position, rotation = None))]
    fn set_collider_pose(
        &self,
        py: Python<'_>,
        index: usize,
        position: [f32; 3],
        rotation: Option<[f32; 4]>,
    ) -> PyResult<()> {
        self.with(py, |s| s.set_collider_pose(index, pose(position, rotation)))
            .py()
    }

    /// A cloth's kinetic, gravitational, elastic and total energy (J), as a dict.
    fn energy<'py>(&self, py: Python<'py>, handle: &ClothHandle) -> PyResult<Bound<'py, PyDict>> {
        let e = self.with(py, |s| s.energy(handle.0)).py()?;
        energy(py, e)
    }

    /// Sets particle `index` of a cloth's inverse mass (1/kg; 0 pins it where it is).
    fn set_inverse_mass(
        &self,
        py: Python<'_>,
        handle: &ClothHandle,
        index: usize,
        inverse_mass: f32,
    ) -> PyResult<()> {
        self.with(py, |s| s.set_inverse_mass(handle.0, index, inverse_mass))
            .py()
    }

    /// Particles of every cloth.
    #[getter]
    fn particle_count(&self, py: Python<'_>) -> usize {
        self.with(py, |w| w.particle_count())
    }

    /// Raises `DivergedError` (with the cloth's index) if a cloth diverged in the last frame.
    fn health(&self, py: Python<'_>) -> PyResult<()> {
        self.with(py, |w| w.health()).py()
    }

    /// Gives every cloth new parameters.
    fn set_params(&self, py: Python<'_>, params: &SolverParams) -> PyResult<()> {
        self.with(py, |s| s.set_params(params.0.clone())).py()
    }

    /// Returns every cloth to its start.
    fn reset(&self, py: Python<'_>) -> PyResult<()> {
        self.with(py, |s| s.reset()).py()
    }

    /// Writes a cloth as it is now to an OBJ file.
    fn write_obj(&self, py: Python<'_>, handle: &ClothHandle, path: PathBuf) -> PyResult<()> {
        let handle = handle.0;
        self.with(py, |world| {
            let positions = world.positions(handle)?;
            chiffon::export::write_positions(&path, world.cloth(handle)?, &positions)
        })
        .py()
    }

    /// What runs the kernels.
    #[getter]
    fn backend(&self, py: Python<'_>) -> String {
        self.with(py, |s| s.backend_name())
    }
}

/// The GPU chiffon would use (its adapter, backend and driver), or None when wgpu finds none
/// (then `Solver` and `World` run on the CPU reference).
#[pyfunction]
fn gpu_info() -> Option<String> {
    shared_gpu().ok().map(|ctx| ctx.describe())
}

/// Writes `cloth` with `positions` (an `(N, 3)` array) to an OBJ file.
#[pyfunction]
fn write_obj(path: PathBuf, cloth: &Cloth, positions: &Bound<'_, PyAny>) -> PyResult<()> {
    let p = points(positions, "positions")?;
    chiffon::export::write_positions(&path, &cloth.0, &p).py()
}

#[pymodule(name = "chiffon")]
fn chiffon_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add(
        "__doc__",
        "chiffon: GPU cloth simulation (WGSL compute on Vulkan, Metal, DX12) with a CPU \
         reference. Build a Cloth with ClothBuilder, step it with a Solver (or many in a World) \
         and read positions as numpy arrays; docs/python.md has the rest.",
    )?;
    m.add_class::<Cloth>()?;
    m.add_class::<ClothBuilder>()?;
    m.add_class::<Collider>()?;
    m.add_class::<SolverParams>()?;
    m.add_class::<Solver>()?;
    m.add_class::<World>()?;
    m.add_class::<ClothHandle>()?;
    m.add_function(wrap_pyfunction!(gpu_info, m)?)?;
    m.add_function(wrap_pyfunction!(write_obj, m)?)?;
    m.add("ChiffonError", py.get_type::<ChiffonError>())?;
    m.add(
        "InvalidParameterError",
        py.get_type::<InvalidParameterError>(),
    )?;
    m.add("InvalidClothError", py.get_type::<InvalidClothError>())?;
    m.add("NoGpuError", py.get_type::<NoGpuError>())?;
    m.add("DeviceLimitError", py.get_type::<DeviceLimitError>())?;
    m.add("DivergedError", py.get_type::<DivergedError>())?;
    m.add("StaleHandleError", py.get_type::<StaleHandleError>())?;
    m.add("WorldFullError", py.get_type::<WorldFullError>())?;
    m.add("FileError", py.get_type::<FileError>())?;
    Ok(())
}
