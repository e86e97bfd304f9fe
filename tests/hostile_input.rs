//! Hostile input at the library's edge (issue 41): files that are not regular files, files and
//! lines without end, coordinates past what f32 holds, and the messages each gets. Every test is
//! named after the defect it keeps fixed. None needs a GPU.

mod common;

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use chiffon::contact::DistanceGrid;
use chiffon::geometry::{TriangleMesh, obj};
use chiffon::glam::{Quat, Vec3};
use chiffon::{ChiffonError, ClothBuilder, Collider, SolverParams};

fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("chiffon-hostile-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `read` on another thread and fails the test, instead of hanging it, when it has not
/// answered within 10 s.
fn within_10_s<T: Send + 'static>(read: impl FnOnce() -> T + Send + 'static) -> T {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(read());
    });
    receive
        .recv_timeout(Duration::from_secs(10))
        .expect("the read blocked for 10 s")
}

/// The three readers of OBJ files: a cloth's, a collider's, and the reader itself.
fn every_obj_reader(path: &Path) -> Vec<String> {
    let p = path.to_path_buf();
    within_10_s(move || {
        vec![
            obj::load(&p).map(|_| ()),
            DistanceGrid::from_obj(&p, 16).map(|_| ()),
            ClothBuilder::obj(&p).map(|_| ()),
        ]
        .into_iter()
        .map(|r| r.expect_err("a hostile file was read").to_string())
        .collect()
    })
}

#[cfg(unix)]
#[test]
fn a_fifo_mesh_is_refused_not_waited_on() {
    let dir = temp_dir("fifo");
    let fifo = dir.join("fifo.obj");
    common::make_fifo(&fifo);
    for e in every_obj_reader(&fifo) {
        assert!(e.contains("fifo.obj") && e.contains("named pipe"), "{e}");
    }
    let dts = "file:".to_string() + fifo.to_str().unwrap();
    let spec: chiffon::tools::dt::DtSpec = dts.parse().unwrap();
    let e = within_10_s(move || spec.frames(None).unwrap_err().to_string());
    assert!(e.contains("fifo.obj") && e.contains("named pipe"), "{e}");
}

#[cfg(unix)]
#[test]
fn a_device_or_a_folder_mesh_is_refused_naming_it() {
    for (path, what) in [
        ("/dev/zero", "device"),
        ("/dev/null", "device"),
        ("/tmp", "folder"),
    ] {
        for e in every_obj_reader(Path::new(path)) {
            assert!(e.contains(path) && e.contains(what), "{e}");
            assert!(
                matches!(
                    obj::load(Path::new(path)),
                    Err(ChiffonError::UnreadableFile { .. })
                ),
                "{path}"
            );
        }
    }
    // A link to a device is the device.
    let dir = temp_dir("link");
    let link = dir.join("zero.obj");
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    for e in every_obj_reader(&link) {
        assert!(e.contains("zero.obj") && e.contains("device"), "{e}");
    }
}

#[test]
fn an_endless_line_is_refused_without_holding_it() {
    let dir = temp_dir("endless");
    // 3 MiB of one line, and a record of continuations as long.
    let line = dir.join("line.obj");
    std::fs::write(&line, vec![b'v'; 3 << 20]).unwrap();
    let joined = dir.join("joined.obj");
    std::fs::write(&joined, "1 2 3 \\\n".repeat(500_000)).unwrap();
    for path in [&line, &joined] {
        for e in every_obj_reader(path) {
            assert!(
                e.contains(".obj") && e.contains("longer than 1048576 bytes"),
                "{e}"
            );
        }
    }
    // An endless stream (what /dev/zero was) is refused by the reader too, not held.
    let endless = std::io::Read::take(std::io::repeat(b' '), 64 << 20);
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::BufReader::new(endless), &mut bytes).unwrap();
    let e = obj::parse(&bytes, "stream").unwrap_err().to_string();
    assert!(e.contains("longer than"), "{e}");
}

#[test]
fn a_file_over_the_size_bound_is_refused_up_front() {
    let dir = temp_dir("huge");
    let huge = dir.join("huge.obj");
    // Sparse: no disk is used, and nothing is read.
    let file = std::fs::File::create(&huge).unwrap();
    file.set_len(chiffon::files::MAX_OBJ_BYTES + 1).unwrap();
    for e in every_obj_reader(&huge) {
        assert!(e.contains("huge.obj") && e.contains("8589934592"), "{e}");
    }
    let dts = dir.join("dts.txt");
    let file = std::fs::File::create(&dts).unwrap();
    file.set_len(chiffon::files::MAX_DT_FILE_BYTES + 1).unwrap();
    let spec: chiffon::tools::dt::DtSpec = format!("file:{}", dts.display()).parse().unwrap();
    let e = spec.frames(None).unwrap_err().to_string();
    assert!(e.contains("dts.txt") && e.contains("larger than"), "{e}");
}

#[test]
fn a_mesh_without_faces_is_not_called_a_cloth() {
    for text in ["", "v 0 0 0\nv 1 0 0\nl 1 2\n"] {
        let e = obj::parse(text.as_bytes(), "empty.obj")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("empty.obj") && e.contains("no faces") && !e.contains("cloth"),
            "{e}"
        );
    }
}

/// The error `SolverParams::validate` gives `collider`.
fn refusal(collider: Collider) -> String {
    SolverParams {
        colliders: vec![collider],
        ..SolverParams::default()
    }
    .validate()
    .expect_err("a collider past the coordinate bound was accepted")
    .to_string()
}

#[test]
fn far_collider_coordinates_are_refused_not_dropped() {
    let max = chiffon::params::MAX_COORDINATE;
    for e in [1e38f32, 1e19, 1e7, 2.0 * max] {
        let capsule = Collider::capsule(Vec3::new(-e, 0.5, 0.0), Vec3::new(e, 0.5, 0.0), 0.1, 0.1);
        let m = refusal(capsule);
        assert!(m.contains("capsule end") && m.contains("1e6 m"), "{m}");
        let m = refusal(Collider::sphere(Vec3::new(0.0, e, 0.0), 1.0));
        assert!(m.contains("position") && m.contains("1e6 m"), "{m}");
        let m = refusal(Collider::cuboid(
            Vec3::new(0.0, 0.0, -e),
            Vec3::ONE,
            Quat::IDENTITY,
        ));
        assert!(m.contains("position"), "{m}");
    }
    // Within the bound, all of it (its ends, radius and thickness), accepted.
    let capsule = Collider::capsule(
        Vec3::new(-(max - 1.0), 0.5, 0.0),
        Vec3::new(max - 1.0, 0.5, 0.0),
        0.1,
        0.1,
    );
    SolverParams {
        colliders: vec![capsule],
        ..SolverParams::default()
    }
    .validate()
    .unwrap();
}

/// Each number within the bound, the collider not: a box of half extent 1e6 centred at 1e6
/// reached 2e6 m and was accepted, and a cloth resting on a box whose top was at 1e6 m ended as
/// 18 distinct f32 points. What a collider reaches, turned, with its thickness, is checked.
#[test]
fn a_collider_reaching_past_the_coordinate_bound_is_refused() {
    let max = chiffon::params::MAX_COORDINATE;
    let turned = Quat::from_rotation_y(std::f32::consts::FRAC_PI_4);
    for collider in [
        Collider::cuboid(
            Vec3::new(max, 0.5, 0.0),
            Vec3::new(max, 1.0, 1.0),
            Quat::IDENTITY,
        ),
        Collider::cuboid(Vec3::ZERO, Vec3::splat(0.9 * max), turned),
        Collider::sphere(Vec3::new(0.0, 0.6 * max, 0.0), 0.5 * max),
        Collider::capsule(Vec3::ZERO, Vec3::new(max, 0.0, 0.0), 1.0, 1.0),
        Collider::sphere(Vec3::ZERO, max).thickness(1.0),
    ] {
        let m = refusal(collider.clone());
        assert!(
            m.contains("reaches") && m.contains("1e6 m"),
            "{collider:?}: {m}"
        );
    }
    // Unturned, the same box fits.
    SolverParams {
        colliders: vec![Collider::cuboid(
            Vec3::ZERO,
            Vec3::splat(0.9 * max),
            Quat::IDENTITY,
        )],
        ..SolverParams::default()
    }
    .validate()
    .unwrap();
}

#[test]
fn a_hidden_upper_limit_is_named_not_called_infinite() {
    for (collider, needle) in [
        (
            Collider::sphere(Vec3::ZERO, 1e10),
            "radius is 1e10 m, more than 1e6 m",
        ),
        (Collider::ground(1e10), "1e10 m from the origin"),
        (
            Collider::plane(Vec3::new(0.0, 1e-5, 0.0), 100.0),
            "from the origin",
        ),
        (
            Collider::cuboid(Vec3::ZERO, Vec3::new(1e7, 1.0, 1.0), Quat::IDENTITY),
            "half extent is 1e7 m",
        ),
        (Collider::plane(Vec3::new(0.0, 1e30, 0.0), 0.0), "too long"),
    ] {
        let m = refusal(collider);
        assert!(m.contains(needle), "{m}");
        assert!(
            !m.contains("must be finite") && !m.contains("not a finite"),
            "{m}"
        );
        assert!(m.contains("f32") || m.contains("too long"), "{m}");
    }
}

fn triangle(far: f32, name: &str) -> TriangleMesh {
    TriangleMesh {
        name: name.into(),
        positions: vec![
            Vec3::new(-far, 0.0, 0.0),
            Vec3::new(far, 0.0, 0.0),
            Vec3::new(0.0, far, 0.0),
        ],
        triangles: vec![[0, 1, 2]],
        ..TriangleMesh::default()
    }
}

#[test]
fn a_far_mesh_collider_vertex_is_refused_not_ignored() {
    let mut mesh = triangle(1.0, "far.obj");
    mesh.positions[1].x = 1e30;
    let e = DistanceGrid::from_mesh(&mesh, 16).unwrap_err().to_string();
    assert!(
        e.contains("far.obj") && e.contains("vertex 2") && e.contains("1e30"),
        "{e}"
    );
}

#[test]
fn a_far_mesh_cloth_is_refused_up_front_naming_the_vertex() {
    for far in [1e30f32, 1e15, 1e7] {
        let e = ClothBuilder::mesh(triangle(far, "far.obj"))
            .build()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("far.obj") && e.contains("vertex 1") && e.contains("1e6 m"),
            "{e}"
        );
        assert!(!e.contains("rest length") && !e.contains("NaN"), "{e}");
    }
    // Placed out of range by --scale: said so.
    let e = ClothBuilder::mesh(triangle(1e3, "scaled.obj"))
        .scale(1e4)
        .build()
        .unwrap_err()
        .to_string();
    assert!(e.contains("once scaled by 10000"), "{e}");
    ClothBuilder::mesh(triangle(1e5, "near.obj"))
        .build()
        .unwrap();
}

#[test]
fn the_grid_buffer_limit_points_at_the_colliders_in_good_grammar() {
    let e = ChiffonError::ExceedsDeviceLimit {
        what: "the mesh colliders' distance grids",
        bytes: 304_900_096,
        limit: 134_217_728,
        limit_name: "max_storage_buffer_binding_size",
    }
    .to_string();
    assert!(e.contains("grids need 304900096 bytes"), "{e}");
    assert!(
        e.contains("fewer mesh colliders") && !e.contains("smaller cloth"),
        "{e}"
    );
    let e = ChiffonError::ExceedsDeviceLimit {
        what: "the constraint buffer",
        bytes: 2,
        limit: 1,
        limit_name: "max_buffer_size",
    }
    .to_string();
    assert!(
        e.contains("buffer needs 2 bytes") && e.contains("smaller cloth"),
        "{e}"
    );
}

/// A plot replaces its file by renaming a finished one over it, never by writing into it: a
/// hard link to the old file keeps the old bytes (a write in place would change both names).
#[test]
fn a_plot_is_written_to_a_temporary_file_and_renamed() {
    use chiffon::tools::png::{Channels, write};
    let dir = temp_dir("plot");
    let target = dir.join("plot.png");
    let other = dir.join("old.png");
    std::fs::write(&target, b"old").unwrap();
    std::fs::hard_link(&target, &other).unwrap();
    write(&target, (2, 2), Channels::Rgb, &[0u8; 12]).unwrap();
    assert_eq!(std::fs::read(&other).unwrap(), b"old");
    assert!(std::fs::read(&target).unwrap().starts_with(b"\x89PNG"));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["old.png", "plot.png"],
        "a temporary file was left behind"
    );
}

/// A UTF-16 file was decoded whole into memory (a large one could exhaust it); it is decoded
/// as it is read now, with surrogate pairs and code units split across the reader's chunks.
#[test]
fn a_utf16_file_is_decoded_as_read_not_held_whole() {
    let dir = temp_dir("utf16");
    // A surrogate pair (𝄞) in every group name, so some fall across chunk edges.
    let mut text = String::new();
    for k in 0..3000 {
        text += &format!("g 𝄞{k}\nv {k} 0 0\nv {k} 1 0\nv {k} 0 1\nf -3 -2 -1\n");
    }
    let utf8 = dir.join("utf8.obj");
    std::fs::write(&utf8, &text).unwrap();
    let want = obj::load(&utf8).unwrap();
    for little in [true, false] {
        let bytes = common::utf16_with_bom(&text, !little);
        let path = dir.join("utf16.obj");
        std::fs::write(&path, &bytes).unwrap();
        let got = obj::load(&path).unwrap();
        assert_eq!(got.positions, want.positions);
        assert_eq!(got.triangles, want.triangles);
        let names = |m: &TriangleMesh| m.groups.iter().map(|g| g.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&got), names(&want));
    }
    // One endless UTF-16 line is refused by the line bound, as a UTF-8 one is.
    let mut wide = vec![0xFF, 0xFE];
    wide.extend(std::iter::repeat_n([b'v', 0], 3 << 20).flatten());
    let path = dir.join("wide.obj");
    std::fs::write(&path, &wide).unwrap();
    let e = obj::load(&path).unwrap_err().to_string();
    assert!(e.contains("wide.obj") && e.contains("longer than"), "{e}");
}

/// Opening a named pipe to write waits for a reader: `bench --json FIFO` hung before the run.
#[cfg(unix)]
#[test]
fn a_fifo_output_is_refused_not_opened() {
    let dir = temp_dir("fifo-out");
    for name in ["out.json", "out.png"] {
        let fifo = dir.join(name);
        common::make_fifo(&fifo);
        let ext = name.rsplit('.').next().unwrap().to_string();
        let e = within_10_s(move || {
            chiffon::tools::plot::check_output(&fifo, "--json", &[ext.as_str()])
                .unwrap_err()
                .to_string()
        });
        assert!(e.contains(name) && e.contains("not a regular file"), "{e}");
    }
}

/// A distance grid read back (feature `serde`) whose samples do not fill its dims, or whose box
/// or samples are not finite, is refused as it is read. It was accepted: the CPU reference
/// panicked indexing past its samples, and the GPU read out of bounds.
#[cfg(feature = "serde")]
#[test]
fn a_deserialized_grid_that_does_not_fill_its_dims_is_refused() {
    let grid = DistanceGrid::from_mesh(&triangle(1.0, "tri.obj"), 8).unwrap();
    let good = serde_json::to_value(&grid).unwrap();
    // A grid as built reads back, and is the same grid.
    let back: DistanceGrid = serde_json::from_value(good.clone()).unwrap();
    assert_eq!(back, grid);
    let tetrahedron = TriangleMesh {
        name: "tetrahedron".into(),
        positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z],
        triangles: vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
        ..TriangleMesh::default()
    };
    let closed = DistanceGrid::from_mesh(&tetrahedron, 64).unwrap();
    assert!(closed.is_signed());
    let json = serde_json::to_string(&closed).unwrap();
    assert_eq!(serde_json::from_str::<DistanceGrid>(&json).unwrap(), closed);
    let edited = |field: &str, value: serde_json::Value| {
        let mut v = good.clone();
        v[field] = value;
        match serde_json::from_value::<DistanceGrid>(v) {
            Ok(_) => panic!("a grid with {field} edited was read"),
            Err(e) => e.to_string(),
        }
    };
    let [x, y, z] = grid.dims();
    for (field, value, says) in [
        ("dims", serde_json::json!([0, 0, 0]), "side of 0 samples"),
        ("dims", serde_json::json!([x, y, z + 1]), "need"),
        (
            "dims",
            serde_json::json!([1 << 20, 1 << 20, 1]),
            "from 2 to",
        ),
        ("values", serde_json::json!([]), "holds 0 samples"),
        ("cell", serde_json::json!(0.0), "cell size is 0"),
        ("cell", serde_json::json!(-1.0), "cell size is -1"),
        ("cell", serde_json::json!(1e30), "is not within"),
        (
            "origin",
            serde_json::json!([1e30, 0.0, 0.0]),
            "is not within",
        ),
    ] {
        let e = edited(field, value.clone());
        assert!(
            e.contains("distance grid") && e.contains(says),
            "{field} = {value}: {e}"
        );
    }
}

/// `set_collider_pose` with an index past the colliders said "there are 1 colliders" (and
/// "there are 0 colliders" with none); it names the indices there are.
#[test]
fn a_collider_index_out_of_range_names_the_indices_there_are() {
    use chiffon::{Backend, Pose, Solver};
    let sheet = ClothBuilder::grid(4, 4).build().unwrap();
    for (colliders, says) in [
        (vec![], "there are no colliders"),
        (vec![Collider::ground(0.0)], "there is 1 collider, index 0"),
        (
            vec![Collider::ground(0.0), Collider::ground(-1.0)],
            "there are 2 colliders, indices 0 to 1",
        ),
    ] {
        let params = SolverParams {
            colliders,
            ..SolverParams::default()
        };
        let mut s = Solver::new(Backend::Cpu, &sheet, params).unwrap();
        let e = s
            .set_collider_pose(7, Pose::IDENTITY)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("collider index: 7 is out of range") && e.contains(says),
            "{e}"
        );
    }
}

/// A `--collider` capsule or box given a count of numbers it does not take was told the first
/// count alone ("capsule: 7 finite numbers" to a capsule of 9, which takes 7 or 8); every
/// malformed spec is a one-line error and a non-zero exit, never a panic.
#[cfg(feature = "tools")]
#[test]
fn a_malformed_collider_spec_says_every_count_the_shape_takes() {
    use common::cli::{chiffon, failed};
    let out = std::env::temp_dir().join(format!("chiffon-hostile-{}-spec.obj", std::process::id()));
    let out = out.to_str().unwrap();
    for (spec, says) in [
        ("capsule:0,0,0,1,0,0,0.1,0.2,0.3", "7 or 8 finite numbers"),
        ("capsule:0,0,0,1,0,0", "7 or 8 finite numbers"),
        ("box:0,0,0,1", "6 or 7 finite numbers"),
        ("box:0,0,0,1,1,1,0,0", "(8 given)"),
        ("sphere:1,2,3", "4 finite numbers"),
        ("sphere:0,0,0,nan", "4 finite numbers"),
        ("capsule:0,0,0,1,0,0,x", "7 finite numbers"),
        ("plane:0,1,0", "plane:NX,NY,NZ,D"),
        ("torus:1,2,3", "sphere:X,Y,Z,R"),
        ("mesh:", "mesh:FILE.obj"),
        ("sphere", "sphere:X,Y,Z,R"),
        ("", "sphere:X,Y,Z,R"),
    ] {
        let e = failed(&chiffon(&[
            "simulate",
            "--frames",
            "1",
            "--grid",
            "4x4",
            "--backend",
            "cpu",
            "--out",
            out,
            "--collider",
            spec,
        ]));
        assert!(
            e.contains("--collider") && e.contains(says),
            "{spec:?}: {e}"
        );
        assert!(
            !e.contains("panicked") && e.trim().lines().count() <= 3,
            "{spec:?}: {e}"
        );
    }
}
