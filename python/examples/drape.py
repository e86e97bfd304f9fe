"""Drop a square cloth onto a ball on the floor and save every frame.

    python drape.py [out.npz]

Writes `positions` (frames, N, 3) float32 in metres, `triangles` (M, 3) uint32 and the frame
time `dt` (s) to an .npz file (default drape.npz). Load it back with

    data = numpy.load("drape.npz"); data["positions"][-1]  # the last frame
"""

import sys
import time

import numpy as np

import chiffon

FRAMES = 120  # two seconds
DT = 1.0 / 60.0  # one frame at 60 fps (s); the solver takes its substeps inside

out = sys.argv[1] if len(sys.argv) > 1 else "drape.npz"

# A 48 × 48 grid of particles, 2.5 cm apart (1.175 m square), lying flat at 1 m, nothing pinned.
cloth = (
    chiffon.ClothBuilder.grid(48, 48)
    .spacing(0.025)
    .flat(1.0)
    .pinning("none")
    .build()
)

# What it falls on: a ball of 30 cm radius resting on the floor (y = 0). Colliders are part of
# the solver's parameters; everything else keeps chiffon's defaults (360 Hz, gravity -9.81 m/s²).
params = chiffon.SolverParams(
    colliders=[
        chiffon.Collider.sphere([0.0, 0.3, 0.0], 0.3).friction(0.5),
        chiffon.Collider.ground(0.0),
    ]
)

# backend=None (the default): the GPU when wgpu finds one, else the CPU reference.
solver = chiffon.Solver(cloth, params)
print(f"backend: {solver.backend}")

frames = np.empty((FRAMES, cloth.particle_count, 3), dtype=np.float32)
start = time.perf_counter()
for frame in range(FRAMES):
    solver.step(DT)  # raises chiffon.DivergedError if the cloth blows up
    frames[frame] = solver.positions()  # an (N, 3) float32 copy
elapsed = time.perf_counter() - start

print(f"{cloth.particle_count} particles, {FRAMES} frames: {1e3 * elapsed / FRAMES:.1f} ms a frame "
      f"(step and readback)")

np.savez(out, positions=frames, triangles=cloth.triangles(), dt=np.float32(DT))
print(f"wrote {out}")
