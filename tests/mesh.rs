//! Cloth from any triangle mesh: meshes the tests build themselves, OBJ files written the way
//! real exporters write them, the shipped assets, pin selections, masses, export, and every
//! kind of bad input. None of these needs a GPU (GPU = CPU on a mesh is in conformance.rs).

use chiffon::geometry::{TriangleMesh, obj};
use chiffon::{
    Backend, ChiffonError, Cloth, ClothBuilder, ConstraintKind, Pinning, Solver, SolverParams,
};
use glam::Vec3;

fn asset(name: &str) -> String {
    format!("{}/assets/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn parse(text: &str) -> chiffon::Result<TriangleMesh> {
    obj::parse(text.as_bytes(), "test.obj")
}

fn kinds(cloth: &Cloth) -> [usize; 3] {
    let mut n = [0; 3];
    for c in cloth.constraints() {
        n[c.kind_number() as usize] += 1;
    }
    n
}

fn total_mass(cloth: &Cloth) -> f64 {
    cloth
        .free_inverse_masses()
        .iter()
        .map(|&w| 1.0 / w as f64)
        .sum()
}

/// An open strip of `n` quads split into triangles, along x, in the x-y plane.
fn strip(n: u32) -> TriangleMesh {
    let mut positions = Vec::new();
    for k in 0..=n {
        positions.push(Vec3::new(k as f32 * 0.1, 0.0, 0.0));
        positions.push(Vec3::new(k as f32 * 0.1, -0.1, 0.0));
    }
    let mut triangles = Vec::new();
    for k in 0..n {
        let (a, b, c, d) = (2 * k, 2 * k + 1, 2 * k + 2, 2 * k + 3);
        triangles.push([a, b, c]);
        triangles.push([c, b, d]);
    }
    TriangleMesh::new("strip", positions, triangles)
}

/// A disc of `segments` triangles around a centre, radius 0.5 m, in the x-z plane.
fn disc(segments: u32) -> TriangleMesh {
    let mut positions = vec![Vec3::ZERO];
    for k in 0..segments {
        let a = std::f32::consts::TAU * k as f32 / segments as f32;
        positions.push(Vec3::new(0.5 * a.cos(), 0.0, 0.5 * a.sin()));
    }
    let triangles = (0..segments)
        .map(|k| [0, 1 + k, 1 + (k + 1) % segments])
        .collect();
    TriangleMesh::new("disc", positions, triangles)
}

#[test]
fn an_open_strip_gets_one_constraint_per_edge_and_bending_across_interior_edges() {
    let cloth = ClothBuilder::mesh(strip(4))
        .pinning(Pinning::List(vec![0, 1]))
        .build()
        .unwrap();
    assert_eq!(cloth.particle_count(), 10);
    // Edges: 5 rungs + 2 × 4 rails + 4 diagonals = 17 structural; interior edges: 3 rungs + 4
    // diagonals = 7 bending pairs.
    assert_eq!(kinds(&cloth), [17, 0, 7]);
    assert_eq!(cloth.mesh_stats().boundary_edges, 10);
    assert_eq!(cloth.mesh_stats().non_manifold_edges, 0);
    // Every rest length is the distance at rest.
    for c in cloth.constraints() {
        let d = cloth.positions()[c.i as usize].distance(cloth.positions()[c.j as usize]);
        assert!((d - c.rest).abs() < 1e-6);
    }
}

#[test]
fn masses_come_from_areas_or_a_total() {
    // The disc: 16 triangles of equal area; the centre touches all, rim vertices two each.
    let cloth = ClothBuilder::mesh(disc(16)).density(0.3).build().unwrap();
    let area: f64 = cloth
        .triangles()
        .iter()
        .map(|&t| chiffon::geometry::triangle_area(cloth.positions(), t) as f64)
        .sum();
    assert!((total_mass(&cloth) - 0.3 * area).abs() < 1e-6 * area);
    let m = |i: usize| 1.0 / cloth.inverse_masses()[i];
    assert!(
        (m(0) / m(1) - 8.0).abs() < 1e-3,
        "centre {} rim {}",
        m(0),
        m(1)
    );
    let cloth = ClothBuilder::mesh(disc(16))
        .total_mass(2.0)
        .build()
        .unwrap();
    assert!((total_mass(&cloth) - 2.0).abs() < 1e-5);
}

#[test]
fn a_grid_goes_through_the_same_path_and_keeps_its_12_colors() {
    let cloth = ClothBuilder::grid(32, 32).build().unwrap();
    assert_eq!(cloth.colors().len(), 12);
    assert!((total_mass(&cloth) - 0.2).abs() < 1e-5);
    // A quarter of each cell: a corner weighs a quarter of an interior particle, an edge half.
    let w = cloth.free_inverse_masses();
    assert!((w[0] / w[33] - 4.0).abs() < 1e-4);
    assert!((w[1] / w[33] - 2.0).abs() < 1e-4);
    assert!(cloth.uvs().is_some());
    assert_eq!(cloth.vertex_triangles().of(33).len(), 6);
}

#[test]
fn a_seam_is_welded_within_the_tolerance_and_kept_apart_without_it() {
    // Two halves of a square exported separately: the shared edge's two vertices appear twice,
    // 1 µm apart (an exporter's rounding).
    let e = 1.0e-6;
    let positions = vec![
        Vec3::new(0.0, 0.0, 0.0),
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::new(1.0 + e, 0.0, 0.0),
        Vec3::new(1.0, 1.0, 0.0),
        Vec3::new(0.0, 1.0 + e, 0.0),
    ];
    let mesh = TriangleMesh::new("seam", positions, vec![[0, 1, 2], [3, 4, 5]]);
    let welded = ClothBuilder::mesh(mesh.clone()).build().unwrap();
    assert_eq!(welded.particle_count(), 4);
    assert_eq!(welded.mesh_stats().welded_vertices, 2);
    // Welded, the diagonal is interior: one bending pair joins the square's other corners.
    assert_eq!(kinds(&welded), [5, 0, 1]);
    let apart = ClothBuilder::mesh(mesh)
        .weld_tolerance(0.0)
        .build()
        .unwrap();
    assert_eq!(apart.particle_count(), 6);
    assert_eq!(kinds(&apart), [6, 0, 0]);
}

#[test]
fn a_non_manifold_fan_is_simulated_without_bending_on_its_shared_edge() {
    // Three triangles on one edge (0-1), like three pages of a book.
    let positions = vec![
        Vec3::new(0.0, 0.0, 0.0),
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::new(1.0, 0.5, 0.0),
        Vec3::new(-1.0, 0.5, 0.0),
        Vec3::new(0.0, 0.5, 1.0),
    ];
    let mesh = TriangleMesh::new("fan", positions, vec![[0, 1, 2], [1, 0, 3], [0, 1, 4]]);
    let cloth = ClothBuilder::mesh(mesh)
        .pinning(Pinning::List(vec![0, 1]))
        .build()
        .unwrap();
    assert_eq!(cloth.mesh_stats().non_manifold_edges, 1);
    assert_eq!(kinds(&cloth)[ConstraintKind::Bend as usize], 0);
    let mut s = Solver::new(Backend::Cpu, &cloth, SolverParams::default()).unwrap();
    for _ in 0..120 {
        s.step(1.0 / 60.0).unwrap();
    }
    assert!(s.positions().unwrap().iter().all(|p| p.is_finite()));
}

#[test]
fn degenerate_triangles_are_dropped_and_a_mesh_of_only_them_is_refused() {
    let mut mesh = disc(8);
    mesh.positions.push(Vec3::new(2.0, 0.0, 0.0));
    let n = mesh.positions.len() as u32;
    // A repeated vertex and a zero-area sliver (three points on a line).
    mesh.positions.push(Vec3::new(3.0, 0.0, 0.0));
    mesh.positions.push(Vec3::new(4.0, 0.0, 0.0));
    mesh.triangles.push([1, 1, 2]);
    mesh.triangles.push([n - 1, n, n + 1]);
    let cloth = ClothBuilder::mesh(mesh).build().unwrap();
    assert_eq!(cloth.mesh_stats().degenerate_triangles, 2);
    assert_eq!(cloth.mesh_stats().unused_vertices, 3);
    assert_eq!(cloth.particle_count(), 9);

    let only = TriangleMesh::new(
        "sliver",
        vec![Vec3::ZERO, Vec3::X, Vec3::X * 2.0],
        vec![[0, 1, 2], [0, 0, 1]],
    );
    let msg = ClothBuilder::mesh(only).build().unwrap_err().to_string();
    assert!(
        msg.contains("sliver") && msg.contains("degenerate"),
        "{msg}"
    );
}

#[test]
fn obj_polygons_are_split_into_fans_with_their_diagonals_as_shear() {
    // A quad and a pentagon sharing an edge; no normals, no UVs.
    let mesh = parse(
        "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 2 0 0\nv 2.5 0.5 0\nv 2 1 0\n\
         f 1 2 3 4\nf 2 5 6 7 3\n",
    )
    .unwrap();
    assert_eq!(mesh.triangles.len(), 2 + 3);
    assert_eq!(mesh.diagonals.len(), 1 + 2);
    assert!(mesh.uvs.is_none());
    let cloth = ClothBuilder::mesh(mesh).build().unwrap();
    let [structural, shear, _] = kinds(&cloth);
    // Polygon sides are structural, the fan's inner edges shear (and the quad's other diagonal).
    assert_eq!(structural, 4 + 5 - 1);
    // 3 diagonals, and across each the polygon's other corners (3 more).
    assert_eq!(shear, 6);
}

#[test]
fn obj_negative_indices_groups_and_crlf_read_as_exporters_mean_them() {
    let lf = "# exported\nmtllib missing.mtl\no sheet\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n\
              vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvn 0 0 1\n\
              g top\nf -2/-2/-1 -1/-1/-1 -3/-3/-1\ng bottom\nusemtl cloth\nf 1/1/1 2/2/1 3/3/1\n\
              l 1 3\np 2\n";
    let crlf = lf.replace('\n', "\r\n");
    let a = parse(lf).unwrap();
    let b = parse(&crlf).unwrap();
    assert_eq!(
        a,
        TriangleMesh {
            name: a.name.clone(),
            ..b
        }
    );
    assert_eq!(a.triangles.len(), 2, "lines and points are ignored");
    let names: Vec<&str> = a.groups.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(names, ["top", "bottom"]);
    let uv = a.uvs.as_ref().unwrap();
    // Negative indices count back from the last vertex: -2 is vertex 3 (1, 1).
    let first = a.triangles[0].map(|v| a.positions[v as usize]);
    assert_eq!(
        first,
        [
            Vec3::new(1.0, 1.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0)
        ]
    );
    assert_eq!(
        uv.uvs[uv.triangles[0][0] as usize],
        glam::Vec2::new(1.0, 1.0)
    );
    let cloth = ClothBuilder::mesh(a)
        .pinning(Pinning::Group("top".into()))
        .build()
        .unwrap();
    assert_eq!(cloth.particle_count(), 4);
    assert_eq!((0..4).filter(|&i| cloth.is_pinned(i)).count(), 3);
}

#[test]
fn the_shipped_assets_load_with_their_groups() {
    let flag = ClothBuilder::obj(asset("flag.obj"))
        .unwrap()
        .pinning(Pinning::Group("pole".into()))
        .build()
        .unwrap();
    // The pole group is the sleeve's 2 columns of 21 vertices; pole and flag share one column,
    // which welding joins.
    assert_eq!(
        (0..flag.particle_count())
            .filter(|&i| flag.is_pinned(i))
            .count(),
        42
    );
    assert_eq!(flag.mesh_stats().welded_vertices, 21);
    assert!(flag.uvs().is_some());
    let cape = ClothBuilder::obj(asset("cape.obj"))
        .unwrap()
        .pinning(Pinning::Group("collar".into()))
        .build()
        .unwrap();
    assert_eq!(
        cape.mesh_stats().welded_vertices,
        25,
        "the collar seam is welded"
    );
    assert_eq!(cape.mesh_stats().non_manifold_edges, 0);
    let table = ClothBuilder::obj(asset("tablecloth.obj"))
        .unwrap()
        .build()
        .unwrap();
    assert_eq!(table.particle_count(), 1 + 3 * 18 * 19);
    // No g/o line: one unnamed group holding everything.
    assert!(table.groups().len() <= 1, "{:?}", table.groups().len());
    for cloth in [&flag, &cape, &table] {
        let sizes = cloth.color_sizes();
        let (min, max) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
        assert!(
            *max as f64 <= 1.1 * *min as f64 + 1.0,
            "unbalanced colors {sizes:?}"
        );
    }
}

#[test]
fn pin_selections_by_box_top_list_and_several_at_once() {
    let top = ClothBuilder::obj(asset("cape.obj"))
        .unwrap()
        .pinning(Pinning::Top { distance: 0.001 })
        .build()
        .unwrap();
    let pinned: Vec<usize> = (0..top.particle_count())
        .filter(|&i| top.is_pinned(i))
        .collect();
    assert_eq!(pinned.len(), 25, "the collar's top row");
    let highest = top.positions().iter().map(|p| p.y).fold(f32::MIN, f32::max);
    assert!(
        pinned
            .iter()
            .all(|&i| top.positions()[i].y >= highest - 0.001)
    );

    let both = ClothBuilder::mesh(strip(4))
        .pin(Pinning::Box {
            min: Vec3::new(-0.01, -0.2, -1.0),
            max: Vec3::new(0.01, 0.1, 1.0),
        })
        .pin(Pinning::List(vec![9]))
        .build()
        .unwrap();
    let pinned: Vec<usize> = (0..10).filter(|&i| both.is_pinned(i)).collect();
    assert_eq!(pinned, [0, 1, 9]);
    // Placement applies before selection: the box is in world coordinates.
    let moved = ClothBuilder::mesh(strip(4))
        .scale(2.0)
        .translate(Vec3::new(0.0, 1.0, 0.0))
        .pinning(Pinning::Box {
            min: Vec3::new(0.79, 0.0, -1.0),
            max: Vec3::new(0.81, 2.0, 1.0),
        })
        .build()
        .unwrap();
    assert!(moved.is_pinned(8) && moved.is_pinned(9));
    // Rest lengths are measured after scaling: the 0.1 m rungs are 0.2 m.
    assert!(
        moved
            .constraints()
            .iter()
            .any(|c| (c.rest - 0.2).abs() < 1e-6)
    );
    assert!(moved.constraints().iter().all(|c| c.rest > 0.19));
}

#[test]
fn a_cape_hangs_from_its_collar_on_both_steps_of_time() {
    // A natural check on a mesh: pinned by its collar, the cape settles below it, finite, its
    // edges near their rest lengths, and its pinned particles where they were.
    let cloth = ClothBuilder::obj(asset("cape.obj"))
        .unwrap()
        .pinning(Pinning::Group("collar".into()))
        .build()
        .unwrap();
    let params = SolverParams {
        colliders: vec![chiffon::Collider::sphere(Vec3::new(0.0, 1.3, 0.0), 0.12)],
        ..SolverParams::default()
    };
    let mut s = Solver::new(Backend::Cpu, &cloth, params).unwrap();
    for k in 0..180 {
        s.step(if k % 2 == 0 { 1.0 / 60.0 } else { 1.0 / 45.0 })
            .unwrap();
    }
    let x = s.positions().unwrap();
    for i in (0..cloth.particle_count()).filter(|&i| cloth.is_pinned(i)) {
        assert_eq!(x[i], cloth.positions()[i]);
    }
    let st = chiffon::quality::stretch(&cloth, &x);
    assert!(st.max < 1.1 && st.mean < 1.02, "{st:?}");
}

#[test]
fn export_writes_uvs_and_normals_that_read_back() {
    let cloth = ClothBuilder::obj(asset("flag.obj"))
        .unwrap()
        .build()
        .unwrap();
    let text = chiffon::export::obj_text(&cloth, cloth.positions());
    assert!(text.contains("\nvt ") && text.contains("\nvn "));
    let back = parse(&text).unwrap();
    let again = ClothBuilder::mesh(back).build().unwrap();
    assert_eq!(again.particle_count(), cloth.particle_count());
    assert_eq!(again.triangles(), cloth.triangles());
    assert_eq!(again.uvs(), cloth.uvs());
    let dir = std::env::temp_dir().join(format!("chiffon-seq-{}", std::process::id()));
    let mut seq = chiffon::export::ObjSequence::new(&dir).unwrap();
    seq.write(&cloth, cloth.positions()).unwrap();
    let second = seq.write(&cloth, cloth.positions()).unwrap();
    assert!(second.ends_with("frame_0001.obj") && dir.join("frame_0000.obj").exists());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_rope_is_a_polyline_with_stretch_and_bending() {
    let points: Vec<Vec3> = (0..6)
        .map(|k| Vec3::new(k as f32 * 0.1, 1.0, 0.0))
        .collect();
    let rope = ClothBuilder::rope(points)
        .density(0.05)
        .pinning(Pinning::List(vec![0]))
        .build()
        .unwrap();
    assert_eq!(kinds(&rope), [5, 0, 4]);
    assert!((total_mass(&rope) - 0.025).abs() < 1e-6);
    assert!(rope.triangles().is_empty());
    let text = chiffon::export::obj_text(&rope, rope.positions());
    assert_eq!(text.matches("\nl ").count(), 5);
}

fn err_of(result: chiffon::Result<impl std::fmt::Debug>) -> String {
    let e = result.expect_err("bad input was accepted");
    e.to_string()
}

#[test]
fn bad_obj_files_are_clear_errors_naming_the_file() {
    let cases: &[(&str, &str)] = &[
        ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n", "not a valid OBJ"),
        ("v 0 0 0\nv 1 zero 0\nv 0 1 0\nf 1 2 3\n", "not a valid OBJ"),
        ("v 0 0 0\nv 1 0 0\nv 0 1 0\nl 1 2\np 3\n", "no faces"),
        ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n", "no faces"),
        ("f 1 2 3\n", "not a valid OBJ"),
        ("v 0 0 0\nv 0 0 0\nv 0 0 0\nf 1 2 3\n", "degenerate"),
    ];
    for (text, expected) in cases {
        let msg = match parse(text) {
            Err(e) => e.to_string(),
            Ok(mesh) => err_of(ClothBuilder::mesh(mesh).build()),
        };
        assert!(
            msg.contains("test.obj") && msg.contains(expected),
            "{text:?}: {msg}"
        );
    }
    let nan = parse("v nan 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    let msg = match nan {
        Err(e) => e.to_string(),
        Ok(mesh) => err_of(ClothBuilder::mesh(mesh).build()),
    };
    assert!(
        msg.contains("test.obj") && msg.contains("non-finite"),
        "{msg}"
    );
    let inf = parse("v 0 0 0\nv 1e39 0 0\nv 0 1 0\nf 1 2 3\n");
    let msg = match inf {
        Err(e) => e.to_string(),
        Ok(mesh) => err_of(ClothBuilder::mesh(mesh).build()),
    };
    assert!(msg.contains("non-finite"), "{msg}");
    let msg = err_of(obj::parse(&[0xff, 0xfe, 0x00, 0x76], "blob.obj"));
    assert!(
        msg.contains("blob.obj") && msg.contains("not a text file"),
        "{msg}"
    );
    let missing = ClothBuilder::obj("/nonexistent/cape.obj").unwrap_err();
    assert!(matches!(missing, ChiffonError::Io { .. }));
    assert!(missing.to_string().contains("/nonexistent/cape.obj"));
}

#[test]
fn bad_pins_and_meshes_are_clear_errors() {
    let flag = || ClothBuilder::obj(asset("flag.obj")).unwrap();
    let msg = err_of(flag().pinning(Pinning::Group("mast".into())).build());
    assert!(msg.contains("\"mast\"") && msg.contains("pole"), "{msg}");
    let msg = err_of(
        flag()
            .pinning(Pinning::Box {
                min: Vec3::splat(10.0),
                max: Vec3::splat(11.0),
            })
            .build(),
    );
    assert!(msg.contains("box") && msg.contains("no particle"), "{msg}");
    let msg = err_of(flag().pinning(Pinning::Corners).build());
    assert!(msg.contains("needs a grid"), "{msg}");
    let msg = err_of(flag().pinning(Pinning::List(vec![100_000])).build());
    assert!(msg.contains("100000"), "{msg}");
    let msg = err_of(flag().pinning(Pinning::Top { distance: f32::NAN }).build());
    assert!(msg.contains("top"), "{msg}");
    let msg = err_of(flag().density(-1.0).build());
    assert!(msg.contains("density"), "{msg}");
    let msg = err_of(flag().scale(f32::NAN).build());
    assert!(msg.contains("scale"), "{msg}");
    let msg =
        err_of(ClothBuilder::mesh(TriangleMesh::new("empty", vec![Vec3::ZERO], vec![])).build());
    assert!(
        msg.contains("empty") && msg.contains("no triangles"),
        "{msg}"
    );
    let msg = err_of(
        ClothBuilder::mesh(TriangleMesh::new(
            "oob",
            vec![Vec3::ZERO, Vec3::X, Vec3::Y],
            vec![[0, 1, 3]],
        ))
        .build(),
    );
    assert!(msg.contains("oob") && msg.contains("vertex 4"), "{msg}");
    let msg = err_of(ClothBuilder::rope(vec![Vec3::ZERO, Vec3::ZERO]).build());
    assert!(msg.contains("coincide"), "{msg}");
}
