#!/usr/bin/env python3
"""Writes chiffon's example meshes (flag.obj, cape.obj, tablecloth.obj) into this folder.

Each file is written in a style a real exporter produces, so the shipped assets also exercise
the OBJ reader: the flag as quads with UVs and two groups, the cape as triangles with UVs and
normals and its collar exported as a separate group with its own copies of the shared vertices
(a seam that welding closes), the tablecloth as a disc of near-equilateral triangles with no
groups. Run `python3 assets/generate.py` to regenerate them; the tests read the committed files.
"""
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def fmt(x):
    return f"{x:.6f}".rstrip("0").rstrip(".") if x != 0 else "0"


def flag():
    # 1.5 m × 1 m, hanging in the x-y plane from a pole along y at x = 0. The first column of
    # quads is a 2 cm sleeve around the pole: group "pole", the rest group "flag".
    cols, rows = 30, 20
    xs = [0.0, 0.02] + [0.02 + 1.48 * (k + 1) / (cols - 1) for k in range(cols - 1)]
    ys = [2.0 - 1.0 * r / rows for r in range(rows + 1)]
    nx = len(xs)
    lines = ["# chiffon example: a flag on a pole (quads, UVs, groups pole and flag)",
             "o flag"]
    for y in ys:
        for x in xs:
            lines.append(f"v {fmt(x)} {fmt(y)} 0")
    for y in ys:
        for x in xs:
            lines.append(f"vt {fmt(x / 1.5)} {fmt((y - 1.0))}")
    idx = lambda c, r: r * nx + c + 1

    def quad(c, r):
        a, b, d, e = idx(c, r), idx(c + 1, r), idx(c + 1, r + 1), idx(c, r + 1)
        return f"f {a}/{a} {e}/{e} {d}/{d} {b}/{b}"

    lines.append("g pole")
    lines += [quad(0, r) for r in range(rows)]
    lines.append("g flag")
    lines += [quad(c, r) for r in range(rows) for c in range(1, nx - 1)]
    return lines


def cape():
    # A cape hanging from the shoulders: rows from the collar (top) down, columns around a
    # vertical axis; it widens and opens out towards the hem. Triangles, UVs and normals; the
    # collar (top two rows of cells) is its own group with its own copies of the vertices on
    # its lower edge, as exporters write split groups.
    cols, rows, collar_rows = 24, 24, 2
    top_y, length = 1.6, 1.0
    verts, uvs = [], []

    def point(c, r):
        v = r / rows
        radius = 0.14 + 0.30 * v
        span = math.radians(80 + 30 * v)
        theta = -span + 2 * span * c / cols
        return (radius * math.sin(theta), top_y - length * v, -radius * math.cos(theta) - 0.05)

    def add(c, r):
        verts.append(point(c, r))
        uvs.append((c / cols, 1 - r / rows))
        return len(verts)

    collar = {(c, r): add(c, r) for r in range(collar_rows + 1) for c in range(cols + 1)}
    body = {(c, r): add(c, r) for r in range(collar_rows, rows + 1) for c in range(cols + 1)}

    def tris(table, r0, r1):
        out = []
        for r in range(r0, r1):
            for c in range(cols):
                a, b = table[(c, r)], table[(c + 1, r)]
                d, e = table[(c + 1, r + 1)], table[(c, r + 1)]
                out.append(f"f {a}/{a}/{a} {e}/{e}/{e} {d}/{d}/{d}")
                out.append(f"f {a}/{a}/{a} {d}/{d}/{d} {b}/{b}/{b}")
        return out

    lines = ["# chiffon example: a cape (triangles, UVs, normals; collar group with a seam)",
             "o cape"]
    lines += [f"v {fmt(x)} {fmt(y)} {fmt(z)}" for x, y, z in verts]
    lines += [f"vt {fmt(u)} {fmt(v)}" for u, v in uvs]
    # Rough outward normals, as an exporter would write them (chiffon computes its own).
    for x, _, z in verts:
        n = math.hypot(x, z + 0.05) or 1.0
        lines.append(f"vn {fmt(x / n)} 0 {fmt((z + 0.05) / n)}")
    lines.append("g collar")
    lines += tris(collar, 0, collar_rows)
    lines.append("g body")
    lines += tris(body, collar_rows, rows)
    return lines


def tablecloth():
    # A round tablecloth, 0.6 m radius, flat at y = 1 m: rings of 6k vertices, so its triangles
    # are nearly equilateral. No groups: drop it on the demo's sphere.
    rings, radius, height = 18, 0.6, 1.0
    verts = [(0.0, 0.0)]
    ring_start = [0]
    for k in range(1, rings + 1):
        ring_start.append(len(verts))
        for j in range(6 * k):
            a = 2 * math.pi * j / (6 * k)
            verts.append((radius * k / rings * math.cos(a), radius * k / rings * math.sin(a)))

    def ring(k, j):
        if k == 0:
            return 1
        return ring_start[k] + j % (6 * k) + 1

    faces = []
    for k in range(1, rings + 1):
        for s in range(6):
            for i in range(k):
                o0, o1 = ring(k, s * k + i), ring(k, s * k + i + 1)
                i0 = ring(k - 1, s * (k - 1) + i)
                faces.append((i0, o1, o0))
                if i < k - 1:
                    i1 = ring(k - 1, s * (k - 1) + i + 1)
                    faces.append((i0, i1, o1))
    lines = ["# chiffon example: a round tablecloth (triangles, UVs, no groups)"]
    lines += [f"v {fmt(x)} {fmt(height)} {fmt(z)}" for x, z in verts]
    lines += [f"vt {fmt(0.5 + x / (2 * radius))} {fmt(0.5 + z / (2 * radius))}" for x, z in verts]
    lines += [f"f {a}/{a} {b}/{b} {c}/{c}" for a, b, c in faces]
    return lines


for name, make in [("flag.obj", flag), ("cape.obj", cape), ("tablecloth.obj", tablecloth)]:
    with open(os.path.join(HERE, name), "w") as f:
        f.write("\n".join(make()) + "\n")
    print("wrote", name)
