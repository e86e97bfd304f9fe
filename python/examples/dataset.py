"""Make a data set of random drapes: square cloths dropped on a random body on the floor.

    python dataset.py [out.npz] [--drapes 100] [--frames 90] [--seed 0] [--backend auto]

Each drape has its own collider (a sphere, a capsule or a box of random size, place, turn and
friction), its own cloth size and its own material (stretch and shear compliance, given to
`World.add`).

A `chiffon.World` steps many cloths together, with one `SolverParams`: one list of colliders
for all of them. So the drapes are made in batches of `--batch`
(default 10): each batch is one world whose cloths lie side by side along x, `PITCH` metres
apart, each over its own collider (all of them in the world's collider list, with the floor),
far enough apart that no cloth reaches a neighbour's collider. Positions are saved in each
drape's own frame (its slot's origin subtracted), so every drape looks like it ran alone.

The .npz holds, for D drapes of N particles:
    positions (D, N, 3) float32   the last frame (m)
    rest      (D, N, 3) float32   the cloth before it fell (m)
    triangles (M, 3) uint32       the grid's triangles (the same for every drape)
    kind      (D,) int8           0 sphere, 1 capsule, 2 box (names in `kinds`)
    center    (D, 3) float32      the collider's centre (m)
    size      (D, 3) float32      sphere (r, 0, 0); capsule (half length, r, 0); box half extents (m)
    yaw       (D,) float32        the collider's turn about y (rad)
    friction  (D,) float32        the collider's friction coefficient
    stretch, shear (D,) float32   the cloth's compliances (m/N)
    cloth_size (D,) float32       the cloth's side (m)
    kinetic   (D,) float32        kinetic energy in the last frame (J): near 0 when settled
    ok        (D,) bool           False where the batch diverged (its positions are NaN)
and frames, dt, seed.
"""

import argparse
import math
import sys
import time

import numpy as np

import chiffon

DT = 1.0 / 60.0  # one frame (s)
PITCH = 3.0  # distance between the cloths of a batch along x (m)
KINDS = ["sphere", "capsule", "box"]


def random_drape(rng):
    """One drape's collider, friction and cloth, in its own frame (floor at y = 0)."""
    kind = int(rng.integers(len(KINDS)))
    yaw = float(rng.uniform(0.0, math.pi))
    x, z = rng.uniform(-0.15, 0.15, size=2)  # the collider's offset from the cloth's centre
    if kind == 0:  # a ball resting on the floor
        r = rng.uniform(0.15, 0.35)
        size, center, top = (r, 0.0, 0.0), (x, r, z), 2 * r
    elif kind == 1:  # a capsule lying on the floor
        half, r = rng.uniform(0.15, 0.4), rng.uniform(0.08, 0.2)
        size, center, top = (half, r, 0.0), (x, r, z), 2 * r
    else:  # a box standing on the floor
        size = tuple(rng.uniform(0.1, 0.35, size=3))
        center, top = (x, size[1], z), 2 * size[1]
    return {
        "kind": kind,
        "center": np.array(center, dtype=np.float32),
        "size": np.array(size, dtype=np.float32),
        "yaw": yaw,
        "friction": float(rng.uniform(0.05, 1.0)),
        "cloth_size": float(rng.uniform(0.6, 1.2)),  # side of the square (m)
        "height": float(top + rng.uniform(0.1, 0.3)),  # where the cloth starts (m)
    }


def collider(d, origin):
    """The drape's collider, moved to its slot at `origin` (m)."""
    c = d["center"] + origin
    if d["kind"] == 0:
        shape = chiffon.Collider.sphere(c.tolist(), float(d["size"][0]))
    elif d["kind"] == 1:
        half, r = float(d["size"][0]), float(d["size"][1])
        axis = np.array([math.cos(d["yaw"]), 0.0, math.sin(d["yaw"])]) * half
        shape = chiffon.Collider.capsule((c - axis).tolist(), (c + axis).tolist(), r)
    else:
        turn = [0.0, math.sin(d["yaw"] / 2), 0.0, math.cos(d["yaw"] / 2)]  # (x, y, z, w) about y
        shape = chiffon.Collider.cuboid(c.tolist(), d["size"].tolist(), turn)
    return shape.friction(d["friction"])


def progress(done, total, start):
    """A one-line progress bar on stderr."""
    width = 30
    filled = width * done // total
    elapsed = time.perf_counter() - start
    bar = "#" * filled + "-" * (width - filled)
    sys.stderr.write(f"\r[{bar}] {100 * done // total:3d}% {done}/{total} frames, {elapsed:.1f} s")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", nargs="?", default="dataset.npz", help="the .npz to write")
    parser.add_argument("--drapes", type=int, default=100)
    parser.add_argument("--frames", type=int, default=90, help="frames per drape, at 60 fps")
    parser.add_argument("--batch", type=int, default=10, help="cloths per world")
    parser.add_argument("--resolution", type=int, default=24, help="particles along a side")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--backend", choices=["gpu", "cpu", "auto"], default="auto")
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    backend = None if args.backend == "auto" else args.backend  # None: the GPU if there is one
    n = args.resolution * args.resolution

    drapes = []
    positions = np.full((args.drapes, n, 3), np.nan, dtype=np.float32)
    rest = np.empty((args.drapes, n, 3), dtype=np.float32)
    kinetic = np.full(args.drapes, np.nan, dtype=np.float32)
    ok = np.zeros(args.drapes, dtype=bool)
    stretch = np.empty(args.drapes, dtype=np.float32)
    shear = np.empty(args.drapes, dtype=np.float32)
    triangles = None

    batches = [range(s, min(s + args.batch, args.drapes)) for s in range(0, args.drapes, args.batch)]
    total_frames = len(batches) * args.frames
    start = time.perf_counter()
    stepping = 0.0  # seconds spent in World.step
    for b, batch in enumerate(batches):
        batch_drapes = [random_drape(rng) for _ in batch]
        origins = [np.array([PITCH * k, 0.0, 0.0], dtype=np.float32) for k in range(len(batch))]

        colliders = [chiffon.Collider.ground(0.0)]
        colliders += [collider(d, o) for d, o in zip(batch_drapes, origins)]
        world = chiffon.World(chiffon.SolverParams(colliders=colliders), backend=backend)
        if b == 0:
            sys.stderr.write(f"backend: {world.backend}\n")

        handles = []
        for i, d, o in zip(batch, batch_drapes, origins):
            cloth = (
                chiffon.ClothBuilder.grid(args.resolution, args.resolution)
                .spacing(d["cloth_size"] / (args.resolution - 1))
                .flat(d["height"])
                .pinning("none")
                .build()
            )
            # Each cloth's own material (compliance in m/N: 0 is rigid), placed over its slot.
            stretch[i] = 10 ** rng.uniform(-6, -3)
            shear[i] = 10 ** rng.uniform(-4, 2)
            handles.append(
                world.add(cloth, translate=o.tolist(), stretch=float(stretch[i]), shear=float(shear[i]))
            )
            rest[i] = cloth.positions()
            triangles = cloth.triangles()
            drapes.append(d)

        try:
            for f in range(args.frames):
                t = time.perf_counter()
                world.step(DT)
                stepping += time.perf_counter() - t
                progress(b * args.frames + f + 1, total_frames, start)
        except chiffon.DivergedError as e:
            # One world, one fate: a cloth that blows up stops its whole batch.
            sys.stderr.write(f"\nbatch {b}: cloth {e.cloth} diverged at frame {e.frame}; skipped\n")
            progress((b + 1) * args.frames, total_frames, start)
            continue

        final = dict(world.all_positions())  # every cloth of the batch from one readback
        for i, h, o in zip(batch, handles, origins):
            positions[i] = final[h] - o  # back to the drape's own frame
            kinetic[i] = world.energy(h)["kinetic"]
            ok[i] = True

    elapsed = time.perf_counter() - start
    done = int(ok.sum())
    particle_steps = done * n * args.frames
    print(f"{done}/{args.drapes} drapes of {n} particles, {args.frames} frames each, "
          f"in {elapsed:.1f} s: {done / elapsed:.2f} drapes/s, "
          f"{particle_steps / elapsed:.3g} particle-steps/s "
          f"({particle_steps / max(stepping, 1e-9):.3g} counting World.step alone)")

    np.savez(
        args.out,
        positions=positions,
        rest=rest,
        triangles=triangles,
        kind=np.array([d["kind"] for d in drapes], dtype=np.int8),
        kinds=np.array(KINDS),
        center=np.array([d["center"] for d in drapes], dtype=np.float32),
        size=np.array([d["size"] for d in drapes], dtype=np.float32),
        yaw=np.array([d["yaw"] for d in drapes], dtype=np.float32),
        friction=np.array([d["friction"] for d in drapes], dtype=np.float32),
        stretch=stretch,
        shear=shear,
        cloth_size=np.array([d["cloth_size"] for d in drapes], dtype=np.float32),
        kinetic=kinetic,
        ok=ok,
        frames=args.frames,
        dt=np.float32(DT),
        seed=args.seed,
    )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
