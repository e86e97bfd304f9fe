"""What both peer scripts share: stepping and timing frames, the stretch of a grid's structural
edges, and the report."""

import statistics
import time

import numpy as np
import warp as wp


def time_frames(frames, frame):
    """Runs `frame()` `frames` times, each synchronised; returns the seconds each took."""
    times = []
    for _ in range(frames):
        start = time.perf_counter()
        frame()
        wp.synchronize()
        times.append(time.perf_counter() - start)
    return times


def grid_stretch(q, rest, n):
    """Length over rest length of every structural edge of an n x n grid (row-major particles)."""
    grid = np.arange(n * n).reshape(n, n)
    edges = np.concatenate(
        [
            np.stack([grid[:, :-1].ravel(), grid[:, 1:].ravel()], axis=1),
            np.stack([grid[:-1, :].ravel(), grid[1:, :].ravel()], axis=1),
        ]
    )
    length = np.linalg.norm(q[edges[:, 0]] - q[edges[:, 1]], axis=1)
    return length / np.linalg.norm(rest[edges[:, 0]] - rest[edges[:, 1]], axis=1)


def report(title, times, stretch, where):
    """Prints the frame times (the first, which compiles Warp's kernels, left out of the
    median and mean) and the stretch, with `where` (a last figure of the state) after it."""
    steady = times[1:] if len(times) > 1 else times
    print(title)
    print(
        f"ms/frame median {1e3 * statistics.median(steady):.2f}, mean {1e3 * statistics.mean(steady):.2f}, "
        f"first {1e3 * times[0]:.0f}"
    )
    print(
        f"stretch at the end: mean {stretch.mean():.4f} p99 {np.percentile(stretch, 99):.4f} "
        f"max {stretch.max():.4f}; {where}"
    )


def run(model, solver, frames, substeps, n, title, where, pipeline=None):
    """Steps `model` with `solver` for `frames` frames of 1/60 s in `substeps` substeps (contacts
    from `pipeline`, once a frame, if given) and reports them: `title` and the state's figure
    `where(q)` beside the times and the n x n grid's stretch."""
    state_0, state_1 = model.state(), model.state()
    control = model.control()
    contacts = pipeline.contacts() if pipeline is not None else None
    dt = 1.0 / 60.0 / substeps
    rest = state_0.particle_q.numpy().copy()

    def frame():
        nonlocal state_0, state_1
        if pipeline is not None:
            pipeline.collide(state_0, contacts)
        for _ in range(substeps):
            state_0.clear_forces()
            solver.step(state_0, state_1, control, contacts, dt)
            state_0, state_1 = state_1, state_0

    times = time_frames(frames, frame)
    q = state_0.particle_q.numpy()
    report(title, times, grid_stretch(q, rest, n), where(q))
