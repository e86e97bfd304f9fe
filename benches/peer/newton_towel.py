"""Issue 42's peer scene, on NVIDIA Newton's Style3D cloth solver (Warp), timed per frame.

A 48 x 48 towel, nothing pinned, 1 m square, 0.2 kg, hanging in the xy plane with its top row
at y = 1 m, dropped on a sphere (centre 0, 0.4, 0.1; radius 0.15 m) and the floor (y = 0), with
self-collision; 60 fps, 10 substeps x 4 iterations as in Newton's `cloth_style3d` example. The
chiffon side of the comparison is

    chiffon simulate --grid 48x48 --pin none --layout hanging --sphere 0,0.4,0.1,0.15 \
        --ground 0 --frames 240 --self-collision on --backend cpu --out towel.csv

Run (Newton from PyPI, no GPU needed: Warp compiles its kernels for the CPU on the first run):

    python3 -m venv /tmp/newton && /tmp/newton/bin/pip install newton==1.8.0 warp-lang==1.19.0
    /tmp/newton/bin/python benches/peer/newton_towel.py --frames 240 --device cpu

It prints the median and mean wall time of a frame (each frame synchronised), and the stretch
of the structural edges at the end, so the time stands beside what it bought.
"""

import argparse

import warp as wp

import newton
import peer
from newton.solvers import style3d

N = 48  # particles per side
SIZE = 1.0  # m
MASS = 0.2  # kg


def build(device):
    builder = newton.ModelBuilder(up_axis=newton.Axis.Y)
    newton.solvers.SolverStyle3D.register_custom_attributes(builder)
    cell = SIZE / (N - 1)
    style3d.add_cloth_grid(
        builder,
        pos=wp.vec3(-0.5 * SIZE, 0.0, 0.0),
        rot=wp.quat_identity(),
        vel=wp.vec3(0.0, 0.0, 0.0),
        dim_x=N - 1,
        dim_y=N - 1,
        cell_x=cell,
        cell_y=cell,
        mass=MASS / (N * N),
        # The cloth_style3d example's fabric.
        tri_aniso_ke=wp.vec3(1.0e2, 1.0e2, 1.0e1),
        edge_aniso_ke=wp.vec3(2.0e-5, 1.0e-5, 5.0e-6),
        particle_radius=5.0e-3,
    )
    builder.add_shape_sphere(
        body=-1,
        xform=wp.transform(wp.vec3(0.0, 0.4, 0.1), wp.quat_identity()),
        radius=0.15,
    )
    builder.add_ground_plane()
    model = builder.finalize(device=device)
    model.soft_contact_ke = 1.0e1
    model.soft_contact_kd = 1.0e-5
    model.soft_contact_mu = 0.3
    model.set_gravity((0.0, -9.81, 0.0))
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=240)
    parser.add_argument("--substeps", type=int, default=10)
    parser.add_argument("--iterations", type=int, default=4)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()

    wp.init()
    with wp.ScopedDevice(args.device):
        model = build(args.device)
        solver = newton.solvers.SolverStyle3D(
            model=model, config=newton.solvers.SolverStyle3D.Config(iterations=args.iterations)
        )
        peer.run(
            model,
            solver,
            args.frames,
            args.substeps,
            N,
            f"newton {newton.__version__} style3d on {args.device}: {N}x{N} towel, "
            f"{args.substeps} substeps x {args.iterations} iterations, {args.frames} frames",
            lambda q: f"lowest particle y {q[:, 1].min():.4f} m",
            pipeline=newton.CollisionPipeline(model),
        )

if __name__ == "__main__":
    main()
