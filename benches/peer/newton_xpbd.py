"""Issue 42's equal-work scene, on NVIDIA Newton's XPBD solver (Warp), timed per frame.

A 128 x 128 sheet, 1 m square, 0.2 kg, lying flat at y = 0 with the two corners of one edge
pinned (chiffon's standard scene), 60 fps, 1 substep x 10 iterations, no contact: a spring on
every edge of the grid's triangles and a bending constraint across every interior edge. The
chiffon side of the comparison (its standard scene at the same substeps and iterations, with
no tethers, no coarse levels and no SHAKE):

    chiffon bench --sizes 128 --frequency 60 --iterations 10 --projection jakobsen \
        --tethers off --coarse-levels off --backend cpu --frames 60 --warmup 10

Run (Newton from PyPI; no GPU needed):

    python3 -m venv /tmp/newton && /tmp/newton/bin/pip install newton==1.8.0 warp-lang==1.19.0
    /tmp/newton/bin/python benches/peer/newton_xpbd.py --frames 60 --device cpu
"""

import argparse

import warp as wp

import newton
import peer

N = 128  # particles per side
SIZE = 1.0  # m
MASS = 0.2  # kg


def build(device, particle_mass, spring_ke):
    builder = newton.ModelBuilder(up_axis=newton.Axis.Y)
    cell = SIZE / (N - 1)
    # Newton's grid lies in its local xy plane: turned a quarter about x, it lies flat in xz.
    builder.add_cloth_grid(
        pos=wp.vec3(-0.5 * SIZE, 0.0, -0.5 * SIZE),
        rot=wp.quat_from_axis_angle(wp.vec3(1.0, 0.0, 0.0), 0.5 * wp.pi),
        vel=wp.vec3(0.0, 0.0, 0.0),
        dim_x=N - 1,
        dim_y=N - 1,
        cell_x=cell,
        cell_y=cell,
        mass=particle_mass,
        add_springs=True,
        spring_ke=spring_ke,
        spring_kd=1.0,
        edge_ke=1.0e1,
        edge_kd=0.0,
        particle_radius=0.5 * cell,
    )
    model = builder.finalize(device=device)
    model.set_gravity((0.0, -9.81, 0.0))
    # No contact: no particle-particle search (equal work: chiffon's scene has none).
    model.particle_max_radius = 0.0
    model.particle_grid = None
    # Pin the two corners of the first row, as chiffon's standard scene does.
    mass = model.particle_mass.numpy()
    inv = model.particle_inv_mass.numpy()
    flags = model.particle_flags.numpy()
    for k in (0, N - 1):
        mass[k] = 0.0
        inv[k] = 0.0
        flags[k] = flags[k] & ~newton.ParticleFlags.ACTIVE
    model.particle_mass = wp.array(mass, dtype=float, device=device)
    model.particle_inv_mass = wp.array(inv, dtype=float, device=device)
    model.particle_flags = wp.array(flags, device=device)
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=60)
    parser.add_argument("--substeps", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--particle-mass", type=float, default=MASS / (N * N), help="kg")
    parser.add_argument("--spring-ke", type=float, default=1.0e3, help="N/m")
    args = parser.parse_args()

    wp.init()
    with wp.ScopedDevice(args.device):
        model = build(args.device, args.particle_mass, args.spring_ke)
        solver = newton.solvers.SolverXPBD(model=model, iterations=args.iterations)
        peer.run(
            model,
            solver,
            args.frames,
            args.substeps,
            N,
            f"newton {newton.__version__} xpbd on {args.device}: {N}x{N} sheet, {model.spring_count} springs, "
            f"{model.edge_count} bending edges, {args.substeps} substep(s) x {args.iterations} iterations, "
            f"{args.frames} frames",
            lambda q: f"mean y {q[:, 1].mean():.4f} m",
        )

if __name__ == "__main__":
    main()
