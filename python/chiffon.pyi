"""chiffon from Python: a GPU cloth solver (WGSL compute through wgpu) with a CPU reference.

The Rust API's types with the same names, units (SI: m, kg, s) and defaults, numpy arrays in
and out. `Solver.step` and `World.step` run with the interpreter's lock released; `positions()`
makes one copy (the readback).
"""

import os
from typing import Any, Literal, Sequence, TypedDict

import numpy as np
from numpy.typing import ArrayLike, NDArray
from typing_extensions import TypeAlias

_Path: TypeAlias = str | os.PathLike[str]
# Three numbers (x, y, z): a list, a tuple or a numpy array.
_Vec3: TypeAlias = Sequence[float] | NDArray[Any]
# A unit quaternion (x, y, z, w).
_Quat: TypeAlias = Sequence[float] | NDArray[Any]
# "gpu", "cpu", or None / "auto": the GPU when wgpu finds one, else the CPU reference.
_Backend: TypeAlias = Literal["gpu", "cpu", "auto"] | None

__all__ = [
    "Cloth",
    "ClothBuilder",
    "Collider",
    "SolverParams",
    "Solver",
    "World",
    "ClothHandle",
    "gpu_info",
    "write_obj",
    "ChiffonError",
    "InvalidParameterError",
    "InvalidClothError",
    "NoGpuError",
    "DeviceLimitError",
    "DivergedError",
    "StaleHandleError",
    "WorldFullError",
    "FileError",
]

class Cloth:
    """A cloth: particles, colored constraints and triangles, made by `ClothBuilder.build()`.

    Not constructed directly.
    """

    @property
    def particle_count(self) -> int:
        """Particles."""
    @property
    def constraint_count(self) -> int:
        """Distance constraints and bending records."""
    def positions(self) -> NDArray[np.float32]:
        """The rest positions, an `(N, 3)` float32 array (m)."""
    def triangles(self) -> NDArray[np.uint32]:
        """The triangles, an `(M, 3)` uint32 array of particle indices (empty for a rope)."""
    def mean_edge_length(self) -> float:
        """The mean structural edge length at rest (m)."""

class ClothBuilder:
    """Makes a cloth from a grid, a triangle mesh (arrays or an OBJ file) or a rope.

    Each method returns a new builder; `build()` makes the `Cloth`. Not constructed directly:
    start from `grid`, `mesh`, `obj` or `rope`.
    """

    @staticmethod
    def grid(columns: int, rows: int) -> ClothBuilder:
        """A grid of `columns` × `rows` particles.

        Defaults: 1 m wide (spacing 1 / (columns − 1) m), 0.2 kg, hanging in the x-y plane with
        its top row at y = 1 m, its two top corners pinned.
        """
    @staticmethod
    def mesh(vertices: ArrayLike, triangles: ArrayLike, name: str = "mesh") -> ClothBuilder:
        """A triangle mesh: `vertices` an `(N, 3)` array (m), `triangles` an `(M, 3)` integer
        array of vertex indices; not pinned unless you pin it. Density 0.2 kg/m² by default.

        Raises `ValueError` for a bad shape or non-integer triangles and `IndexError` for an
        index out of range.
        """
    @staticmethod
    def obj(path: _Path) -> ClothBuilder:
        """The mesh of an OBJ file (`FileError` if it cannot be read)."""
    @staticmethod
    def rope(points: ArrayLike) -> ClothBuilder:
        """A rope through `points`, an `(N, 3)` array (m); 0.2 kg/m by default, not pinned."""
    def spacing(self, spacing: float) -> ClothBuilder:
        """A grid's distance between neighbours (m); default 1 m over its width."""
    def total_mass(self, kg: float) -> ClothBuilder:
        """The whole cloth's mass (kg); a grid's default is 0.2 kg."""
    def density(self, kg_per_unit: float) -> ClothBuilder:
        """Mass per area (kg/m²; kg/m for a rope); meshes and ropes default to 0.2."""
    def hanging(self, top: float = 1.0) -> ClothBuilder:
        """A grid hanging in the x-y plane, centred on x = 0, with its top row at `top` (m):
        the default, at 1 m."""
    def flat(self, height: float = 1.0) -> ClothBuilder:
        """A grid lying flat in the x-z plane at `height` (m), centred on the origin."""
    def pinning(self, pins: str | Sequence[int] | NDArray[np.integer[Any]]) -> ClothBuilder:
        """What is pinned: `"none"`, `"corners"` (a grid's top corners: the default), `"edge"`
        (a grid's top row), a list of particle indices, or the name of an OBJ group."""
    def scale(self, scale: float) -> ClothBuilder:
        """Scales a mesh or a rope about the origin (before `translate`; default 1)."""
    def translate(self, offset: _Vec3) -> ClothBuilder:
        """Moves the cloth by `offset` (m)."""
    def velocity(self, v: _Vec3) -> ClothBuilder:
        """Every particle's initial velocity (m/s)."""
    def membrane(self, membrane: Literal["edges", "triangles"]) -> ClothBuilder:
        """What holds the surface: "edges" (the default) or "triangles" (strain based dynamics on
        every triangle, with a shear of its own); a ValueError for anything else."""
    def build(self) -> Cloth:
        """The cloth, or an `InvalidClothError` / `InvalidParameterError` saying why not."""

class Collider:
    """A kinematic body the cloth collides with (docs/contact.md).

    Shapes: `sphere`, `capsule`, `cuboid`, `plane`, `ground`, `mesh`. `thickness` (m, default
    0.005), `friction` (μ, default 0.3) and `restitution` (default 0) return a changed copy.
    Not constructed directly.
    """

    @staticmethod
    def sphere(center: _Vec3, radius: float) -> Collider:
        """A sphere of `radius` (m) about `center` (m)."""
    @staticmethod
    def capsule(a: _Vec3, b: _Vec3, radius: float, radius_b: float | None = None) -> Collider:
        """A capsule from `a` to `b` (m), of radius `radius` (m) at `a` and `radius_b` at `b`
        (the same when not given: a tapered capsule otherwise)."""
    @staticmethod
    def cuboid(center: _Vec3, half_extents: _Vec3, rotation: _Quat = (0.0, 0.0, 0.0, 1.0)) -> Collider:
        """A box of `half_extents` (m) about `center` (m), turned by the unit quaternion
        `rotation` (x, y, z, w); default no turn."""
    @staticmethod
    def plane(normal: _Vec3, offset: float) -> Collider:
        """The half-space n·x ≥ offset (m) is where the cloth stays."""
    @staticmethod
    def ground(height: float) -> Collider:
        """A floor at `height` (m), normal +y."""
    @staticmethod
    def mesh(
        path: _Path | None = None,
        vertices: ArrayLike | None = None,
        triangles: ArrayLike | None = None,
        resolution: int = 96,
        position: _Vec3 = (0.0, 0.0, 0.0),
        rotation: _Quat = (0.0, 0.0, 0.0, 1.0),
    ) -> Collider:
        """A mesh from an OBJ file (`path`) or from arrays (`vertices` `(N, 3)` in m,
        `triangles` `(M, 3)` integers), as a signed distance grid of `resolution` samples
        (default 96) along its longest side, placed at `position` (m) turned by `rotation`
        (x, y, z, w). Give a path, or vertices and triangles (`ValueError` otherwise)."""
    def thickness(self, thickness: float) -> Collider:
        """The distance (m) the cloth keeps from the surface; default 0.005."""
    def friction(self, friction: float) -> Collider:
        """Coulomb friction μ; default 0.3."""
    def restitution(self, restitution: float) -> Collider:
        """Restitution e (0: no bounce, the default; 1: elastic)."""

class _SelfCollision(TypedDict, total=False):
    thickness: float | None
    """Distance kept between particles (m); None (the default): automatic."""
    friction: float
    """Coulomb friction between touching particles; default 0."""

class SolverParams:
    """What the solver does each frame, with the Rust defaults: 360 Hz (6 substeps at 60 fps),
    one iteration, gravity −9.81 m/s² along y, damping 0.5 1/s, rigid stretch and shear,
    tethers and coarse levels on, a strain limit of 1.1 in contact, no colliders, no
    self-collision.

    Only keywords. A value of the wrong type is a `TypeError` here, an unknown keyword a
    `ValueError`; the values are checked when a `Solver` or `World` takes them
    (`InvalidParameterError`: NaN, out of range).
    """

    def __init__(
        self,
        *,
        gravity: _Vec3 = (0.0, -9.81, 0.0),
        damping: float = 0.5,
        iterations: int = 1,
        substeps: int = ...,
        frequency: float = 360.0,
        stretch: float = 0.0,
        shear: float = 0.0,
        bend: float = 0.01,
        curvature: float = 1.0e6,
        tethers: bool = True,
        coarse_levels: bool = True,
        max_distance: float | None = None,
        colliders: list[Collider] = ...,
        self_collision: bool | _SelfCollision | None = None,
        strain_limit: float | None = 1.1,
        strain_limit_frames: Literal["contact", "all"] = "contact",
    ) -> None:
        """
        gravity: acceleration (m/s², 3 numbers); default (0, −9.81, 0).
        damping: velocity decay rate (1/s); default 0.5, 0 disables it.
        iterations: constraint sweeps per substep; default 1.
        substeps: a fixed number of substeps a frame, or
        frequency: substeps per second (Hz); default 360 (give one or the other, not both).
        stretch, shear: compliance of the structural and shear constraints (m/N); default 0
            (rigid).
        bend: compliance of the bend constraints (m/N; ropes, and meshes where folded at rest);
            default 0.01.
        curvature: a sheet's bending compliance (1/(N·m): the inverse of the bending
            stiffness, the same fabric at any resolution); default 1e6 (light cotton), 0 rigid.
        tethers: long-range attachments to the pinned particles; default True.
        coarse_levels: hierarchical solve of coarse levels each substep; default True.
        max_distance: distance (m) from the scene's centre past which a particle counts as
            diverged; default None (automatic).
        colliders: a list of `Collider`; default none.
        self_collision: True, False/None (the default), or a dict with `thickness` (m, None:
            automatic) and `friction` (default 0).
        strain_limit: the longest a structural edge may be after contact, as a factor ≥ 1 of
            its rest length, or None for no limit; default 1.1.
        strain_limit_frames: "contact" (the default: frames with a collider or
            self-collision) or "all" (every frame, a cloth that hangs free too).
        """
    @property
    def colliders(self) -> list[Collider]:
        """The colliders."""
    @property
    def strain_limit(self) -> float | None:
        """The strain limit, or None."""
    @property
    def strain_limit_frames(self) -> Literal["contact", "all"]:
        """Which frames run the strain limit: "contact" or "all"."""

class Solver:
    """Steps one cloth on the GPU (when wgpu finds one, or `backend="gpu"`) or on the CPU
    reference (`backend="cpu"`). `step(dt)` releases the interpreter's lock while the kernels
    run.
    """

    def __init__(self, cloth: Cloth, params: SolverParams | None = None, backend: _Backend = None) -> None:
        """`params` default `SolverParams()`. `backend`: "gpu" (`NoGpuError` without one),
        "cpu", or None / "auto" (the default): the GPU when wgpu finds one, else the CPU
        reference."""
    def step(self, dt: float) -> None:
        """Advances `dt` seconds (a frame), with the interpreter's lock released; raises
        `DivergedError` if the cloth diverged."""
    def positions(self) -> NDArray[np.float32]:
        """The particles' positions, a new `(N, 3)` float32 array (m), written once from the
        readback."""
    def set_particle(self, index: int, position: _Vec3, inverse_mass: float) -> None:
        """Moves particle `index` to `position` (m) with `inverse_mass` (1/kg; 0 pins it)."""
    def move_pin(self, index: int, position: _Vec3) -> None:
        """Carries pinned particle `index` to `position` (m) over the next step, one equal step
        a substep, so the cloth beside it is not jerked as by `set_particle`. Raises
        `InvalidParameterError` when the particle is not pinned."""
    def set_inverse_mass(self, index: int, inverse_mass: float) -> None:
        """Sets particle `index`'s inverse mass (1/kg; 0 pins it where it is)."""
    def set_collider_pose(self, index: int, position: _Vec3, rotation: _Quat | None = None) -> None:
        """Moves collider `index` to `position` (m), turned by `rotation` (x, y, z, w; None: no
        turn); the next step's substeps carry it there."""
    def energy(self) -> dict[str, float]:
        """Kinetic, gravitational, elastic and total energy (J), as a dict with the keys
        `kinetic`, `gravitational`, `elastic` and `total`."""
    def health(self) -> None:
        """Raises `DivergedError` if a particle became non-finite or flew past the divergence
        limit in the last frame (`step` checks too)."""
    def set_params(self, params: SolverParams) -> None:
        """Gives the solver new parameters (colliders, self-collision, gravity, ...)."""
    def reset(self) -> None:
        """Returns the cloth to its start."""
    def write_obj(self, path: _Path) -> None:
        """Writes the cloth as it is now to an OBJ file."""
    @property
    def backend(self) -> str:
        """What runs the kernels: the adapter's name, or the CPU reference."""
    @property
    def particle_count(self) -> int:
        """Particles."""

class ClothHandle:
    """A cloth's handle in a `World` (it stays valid until the cloth is removed).

    Returned by `World.add` and `World.handles`; not constructed directly.
    """

    @property
    def index(self) -> int:
        """Its index in the world (`DivergedError.cloth` names a cloth by it)."""
    def __eq__(self, other: object) -> bool:
        """The same cloth of the same world (index and generation)."""
    def __hash__(self) -> int: ...

class World:
    """Many cloths stepped together (small ones fused into one kernel), with one set of
    parameters and colliders (docs/many-cloths.md); as `Solver`, on the GPU or the CPU
    reference.
    """

    def __init__(self, params: SolverParams | None = None, backend: _Backend = None) -> None:
        """`params` default `SolverParams()`; `backend` as for `Solver`."""
    def add(
        self,
        cloth: Cloth,
        translate: _Vec3 | None = None,
        rotation: _Quat | None = None,
        scale: float | None = None,
        stretch: float | None = None,
        shear: float | None = None,
        curvature: float | None = None,
        bend: float | None = None,
    ) -> ClothHandle:
        """Adds a cloth; returns its handle. It is placed where it was built, then scaled by
        `scale`, turned by `rotation` (x, y, z, w) and moved by `translate` (m); `stretch`,
        `shear` (m/N), `curvature` (1/(N·m)) and `bend` (m/N) give it its own material, each
        unset one the world's `SolverParams`."""
    def remove(self, handle: ClothHandle) -> None:
        """Removes a cloth; its handle is stale from then on (`StaleHandleError`)."""
    def handles(self) -> list[ClothHandle]:
        """The cloths' handles."""
    def __len__(self) -> int:
        """The number of cloths."""
    def step(self, dt: float) -> None:
        """Advances every cloth `dt` seconds, with the interpreter's lock released."""
    def positions(self, handle: ClothHandle) -> NDArray[np.float32]:
        """A cloth's positions, an `(N, 3)` float32 array (m)."""
    def all_positions(self) -> list[tuple[ClothHandle, NDArray[np.float32]]]:
        """Every cloth's positions from one readback: `(handle, (N, 3) float32 array)` pairs in
        `handles()` order."""
    def set_particle(self, handle: ClothHandle, index: int, position: _Vec3, inverse_mass: float) -> None:
        """Moves particle `index` of a cloth to `position` (m) with `inverse_mass` (1/kg)."""
    def move_pin(self, handle: ClothHandle, index: int, position: _Vec3) -> None:
        """Carries pinned particle `index` of a cloth to `position` (m) over the next step, one
        equal step a substep."""
    def set_inverse_mass(self, handle: ClothHandle, index: int, inverse_mass: float) -> None:
        """Sets particle `index` of a cloth's inverse mass (1/kg; 0 pins it where it is)."""
    @property
    def particle_count(self) -> int:
        """Particles of every cloth."""
    def set_collider_pose(self, index: int, position: _Vec3, rotation: _Quat | None = None) -> None:
        """Moves collider `index` to `position` (m), turned by `rotation` (x, y, z, w; None: no
        turn)."""
    def energy(self, handle: ClothHandle) -> dict[str, float]:
        """A cloth's kinetic, gravitational, elastic and total energy (J), as a dict."""
    def health(self) -> None:
        """Raises `DivergedError` (with the cloth's index) if a cloth diverged in the last
        frame."""
    def set_params(self, params: SolverParams) -> None:
        """Gives every cloth new parameters."""
    def reset(self) -> None:
        """Returns every cloth to its start."""
    def write_obj(self, handle: ClothHandle, path: _Path) -> None:
        """Writes a cloth as it is now to an OBJ file."""
    @property
    def backend(self) -> str:
        """What runs the kernels."""

def gpu_info() -> str | None:
    """The GPU chiffon would use (its adapter, backend and driver), or None when wgpu finds none
    (then `Solver` and `World` run on the CPU reference)."""

def write_obj(path: _Path, cloth: Cloth, positions: ArrayLike) -> None:
    """Writes `cloth` with `positions` (an `(N, 3)` array, m) to an OBJ file."""

class ChiffonError(Exception):
    """Any error chiffon reports; `kind` names which."""

    kind: str
    """One of 'invalid_parameter', 'invalid_cloth', 'invalid_mesh', 'invalid_coloring',
    'no_gpu', 'exceeds_device_limit', 'diverged', 'stale_handle', 'world_full', 'file',
    'readback', 'would_block', 'other'."""

class InvalidParameterError(ChiffonError):
    """A number given is NaN, negative, zero where it must not be, or absurd."""

class InvalidClothError(ChiffonError):
    """A cloth, a mesh or its coloring cannot be built."""

class NoGpuError(ChiffonError):
    """No GPU adapter or device could be opened."""

class DeviceLimitError(ChiffonError):
    """The cloth or its colliders need more memory than the device allows."""

class DivergedError(ChiffonError):
    """The simulation diverged; `cloth`, `particle` and `frame` say where."""

    cloth: int | None
    """The cloth's handle index in a world; None for a lone `Solver`."""
    particle: int
    """The first bad particle, in the cloth's own numbering."""
    frame: int
    """The frame it went bad in (1 = the first after construction or reset)."""
    cause: str
    """Why: "non_finite" (a coordinate became NaN or infinite) or "too_far" (past the
    divergence limit, `SolverParams(max_distance=...)`)."""

class StaleHandleError(ChiffonError):
    """A cloth handle names no cloth in this world."""

class WorldFullError(ChiffonError):
    """The world cannot take this cloth."""

class FileError(ChiffonError):
    """A file cannot be read or written."""
