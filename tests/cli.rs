//! The `chiffon` binary: real runs, and bad input that must exit non-zero with one clear line.

mod common;

use std::process::{Command, Output};

fn chiffon(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chiffon"))
        .args(args)
        .output()
        .expect("run chiffon")
}

/// Runs `args`, expects failure with a one-line message containing `needle`, and no panic.
fn rejects(args: &[&str], needle: &str) {
    let out = chiffon(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let ours: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("chiffon: error:"))
        .collect();
    assert!(!out.status.success(), "{args:?} succeeded");
    assert!(!stderr.contains("panicked"), "{args:?} panicked:\n{stderr}");
    assert_eq!(
        ours.len(),
        1,
        "{args:?}: expected one error line, got:\n{stderr}"
    );
    assert!(
        ours[0].contains(needle),
        "{args:?}: error does not mention {needle:?}:\n{stderr}"
    );
}

/// `simulate` on the CPU for 2 frames into `out`, plus `extra`.
fn sim<'a>(out: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec![
        "simulate",
        "--backend",
        "cpu",
        "--frames",
        "2",
        "--out",
        out,
    ];
    v.extend_from_slice(extra);
    v
}

fn temp_path(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("chiffon-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn bad_scene_input_is_one_clear_line() {
    let csv = temp_path("out.csv");
    let out = csv.to_str().unwrap();
    rejects(&sim(out, &["--grid", "0x0"]), "at least 2 × 2");
    rejects(
        &sim(out, &["--grid", "100000x100000"]),
        "particles is more than",
    );
    rejects(&sim(out, &["--damping", "-1"]), "damping");
    rejects(&sim(out, &["--damping", "NaN"]), "damping");
    rejects(&sim(out, &["--iterations", "100000"]), "iterations");
    rejects(&sim(out, &["--substeps", "0"]), "substeps");
    rejects(&sim(out, &["--spacing", "NaN"]), "spacing");
    rejects(&sim(out, &["--spacing", "-0.1"]), "spacing");
    rejects(&sim(out, &["--gravity", "-9.81"]), "gravity");
    rejects(&sim(out, &["--gravity", "inf"]), "gravity");
    rejects(&sim(out, &["--wind", "0,NaN,0"]), "wind");
    rejects(&sim(out, &["--sphere", "0,0,0,-1"]), "sphere radius");
    rejects(&sim(out, &["--sphere", "0,0,0"]), "--sphere");
    rejects(&sim(out, &["--ground", "low"]), "--ground");
    rejects(
        &sim(out, &["--friction", "-1", "--ground", "0"]),
        "friction",
    );
    rejects(&sim(out, &["--dt", "fixed:0"]), "fps");
    rejects(&sim(out, &["--dt", "random:144:30:1"]), "min fps");
    rejects(&sim(out, &["--dt", "sometimes"]), "expected fixed:FPS");
    rejects(&sim(out, &["--frequency", "0"]), "--frequency");
    rejects(&sim(out, &["--frequency", "1e9"]), "solver frequency");
    rejects(
        &sim(out, &["--compliance-stretch", "-1"]),
        "--compliance-stretch",
    );
    rejects(
        &sim(out, &["--compliance-bend", "NaN"]),
        "--compliance-bend",
    );
    rejects(&sim(out, &["--tether-scale", "0.5"]), "--tether-scale");
    rejects(&sim(out, &["--tether-stiffness", "0"]), "tether stiffness");
    rejects(
        &sim(out, &["--tethers", "off", "--tether-scale", "1.1"]),
        "--tethers on",
    );
    rejects(&sim(out, &["--over-relaxation", "2.5"]), "over-relaxation");
    // A cloth blown away by an absurd wind: the health check stops it with one line.
    rejects(
        &[
            "simulate",
            "--backend",
            "cpu",
            "--pin",
            "none",
            "--wind",
            "9000,0,0",
            "--frames",
            "120",
            "--out",
            out,
        ],
        "diverged",
    );
    rejects(
        &[
            "simulate",
            "--backend",
            "cpu",
            "--frames",
            "0",
            "--out",
            out,
        ],
        "--frames",
    );
    rejects(
        &[
            "simulate",
            "--backend",
            "cpu",
            "--out",
            temp_path("x.txt").to_str().unwrap(),
        ],
        ".csv or .obj",
    );
}

#[test]
fn bad_dt_files_are_one_clear_line() {
    let out = temp_path("dt-out.csv");
    let out = out.to_str().unwrap();
    let run = |path: &std::path::Path| {
        vec![
            "simulate".to_string(),
            "--backend".into(),
            "cpu".into(),
            "--out".into(),
            out.into(),
            "--dt".into(),
            format!("file:{}", path.display()),
        ]
    };
    fn args(v: &[String]) -> Vec<&str> {
        v.iter().map(String::as_str).collect()
    }

    let missing = temp_path("does-not-exist.txt");
    rejects(&args(&run(&missing)), "does-not-exist.txt");

    let cases = [
        ("letters.txt", "0.016\nabc\n", "line 2"),
        ("negative.txt", "0.016\n-0.01\n", "line 2"),
        ("nan.txt", "NaN\n", "line 1"),
        ("huge.txt", "0.016\n0.016\n5\n", "line 3"),
        ("empty.txt", "# nothing\n\n", "no dt values"),
    ];
    for (name, text, needle) in cases {
        let p = temp_path(name);
        std::fs::write(&p, text).unwrap();
        rejects(&args(&run(&p)), needle);
    }

    let short = temp_path("short.txt");
    std::fs::write(&short, "0.01\n0.02\n").unwrap();
    let mut v = run(&short);
    v.extend(["--frames".into(), "5".into()]);
    rejects(&args(&v), "--frames asks for 5");
}

#[test]
fn simulate_writes_csv_and_obj() {
    let csv = temp_path("cloth.csv");
    let obj = temp_path("cloth.obj");
    let dts = temp_path("dts.txt");
    std::fs::write(&dts, "# three frames\n0.0166\n0.0333\n0.0069\n").unwrap();
    for (path, dt) in [
        (&csv, "random:30:144:3"),
        (&obj, &*format!("file:{}", dts.display())),
    ] {
        let out = chiffon(&[
            "simulate",
            "--backend",
            "cpu",
            "--grid",
            "16x8",
            "--frames",
            "3",
            "--dt",
            dt,
            "--sphere",
            "0,0.5,0.1,0.2",
            "--ground",
            "0",
            "--out",
            path.to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let text = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "x,y,z");
    assert_eq!(lines.len(), 1 + 16 * 8);
    for l in &lines[1..] {
        let v: Vec<f32> = l.split(',').map(|x| x.parse().unwrap()).collect();
        assert!(v.len() == 3 && v.iter().all(|x| x.is_finite()), "{l}");
    }
    let text = std::fs::read_to_string(&obj).unwrap();
    assert_eq!(text.lines().filter(|l| l.starts_with("v ")).count(), 16 * 8);
    assert_eq!(
        text.lines().filter(|l| l.starts_with("f ")).count(),
        2 * 15 * 7
    );
}

#[test]
fn conform_reports_json_and_exit_status() {
    if common::gpu("conform_reports_json_and_exit_status").is_none() {
        return;
    }
    let base = [
        "conform",
        "--grid",
        "32x32",
        "--frames",
        "60",
        "--dt",
        "random:30:144:1",
        "--sphere",
        "0,0.5,0.2,0.3",
        "--ground",
        "-0.2",
    ];
    let out = chiffon(&[&base[..], &["--json"]].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in [
        "max_abs_deviation_m",
        "mean_abs_deviation_m",
        "tolerance_m",
        "cloth_size_m",
        "frames",
        "adapter",
    ] {
        assert!(v.get(key).is_some(), "missing {key} in {v}");
    }
    assert_eq!(v["frames"], 60);
    assert!(v["max_abs_deviation_m"].as_f64().unwrap() <= v["tolerance_m"].as_f64().unwrap());

    // An impossible tolerance must turn the exit status red.
    let strict = chiffon(&[&base[..], &["--tolerance", "1e-30"]].concat());
    let stdout = String::from_utf8_lossy(&strict.stdout);
    let max: f64 = v["max_abs_deviation_m"].as_f64().unwrap();
    if max > 0.0 {
        assert!(
            !strict.status.success(),
            "over tolerance but exit 0:\n{stdout}"
        );
    } else {
        // Bit-identical backends (lavapipe does this) cannot exceed any tolerance.
        assert!(strict.status.success(), "{stdout}");
    }
    rejects(&[&base[..], &["--tolerance", "-1"]].concat(), "--tolerance");
}

#[test]
fn info_names_the_adapter() {
    if common::gpu("info_names_the_adapter").is_none() {
        return;
    }
    let out = chiffon(&["info"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("adapter:") && text.contains("max_storage_buffer_binding_size"),
        "{text}"
    );
}

#[test]
fn an_unknown_adapter_name_is_a_clear_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_chiffon"))
        .arg("info")
        .env("WGPU_ADAPTER_NAME", "no-such-gpu-anywhere")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.contains("no-such-gpu-anywhere"), "{stderr}");
}

#[test]
fn tethers_on_a_cloth_without_pins_are_said_once() {
    let out = chiffon(&[
        "simulate",
        "--backend",
        "cpu",
        "--pin",
        "none",
        "--frames",
        "2",
        "--out",
        temp_path("nopins.csv").to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.matches("no pinned particle").count(), 1, "{stderr}");
}

fn asset(name: &str) -> String {
    format!("{}/assets/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn simulate_a_mesh_pinned_by_group_and_export_an_obj_sequence() {
    let dir = temp_path("cape-seq");
    let out = chiffon(&[
        "simulate",
        "--backend",
        "cpu",
        "--mesh",
        &asset("cape.obj"),
        "--pin",
        "group:collar",
        "--translate",
        "0,-0.5,0",
        "--frames",
        "9",
        "--out-every",
        "4",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The coloring is reported: count and sizes.
    assert!(stdout.contains("colors, constraints per color"), "{stdout}");
    assert!(stdout.contains("(75 pinned)"), "{stdout}");
    // Frames 0, 4 and 8: the start and every 4th frame.
    let names: Vec<String> = (0..3).map(|k| format!("frame_{k:04}.obj")).collect();
    for n in &names {
        let text = std::fs::read_to_string(dir.join(n)).unwrap();
        assert_eq!(text.lines().filter(|l| l.starts_with("v ")).count(), 625);
        assert_eq!(text.lines().filter(|l| l.starts_with("vn ")).count(), 625);
        assert!(text.lines().any(|l| l.starts_with("vt ")));
        assert!(
            text.lines()
                .any(|l| l.starts_with("f ") && l.matches('/').count() == 6)
        );
    }
    assert!(!dir.join("frame_0003.obj").exists());
    // The start is the mesh, moved by --translate.
    let first = std::fs::read_to_string(dir.join(&names[0])).unwrap();
    let top = first
        .lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|l| l.split(' ').nth(1).unwrap().parse::<f32>().unwrap())
        .fold(f32::MIN, f32::max);
    assert!((top - 1.1).abs() < 1e-5, "{top}");
}

#[test]
fn conform_runs_on_a_mesh() {
    if common::gpu("conform_runs_on_a_mesh").is_none() {
        return;
    }
    let out = chiffon(&[
        "conform",
        "--mesh",
        &asset("flag.obj"),
        "--pin",
        "group:pole",
        "--wind",
        "0,0,3",
        "--frames",
        "60",
        "--dt",
        "random:30:144:2",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["particles"], 651);
    assert_eq!(v["pass"], true);
}

#[test]
fn bad_mesh_input_is_one_clear_line() {
    let out = temp_path("mesh-out.obj");
    let out = out.to_str().unwrap();
    let bad = temp_path("bad.obj");
    std::fs::write(&bad, "v 0 0 0\r\nv 1 0 0\r\nv 0 1 0\r\nf 1 2 7\r\n").unwrap();
    let nan = temp_path("nan.obj");
    std::fs::write(&nan, "v nan 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n").unwrap();
    let lines = temp_path("lines.obj");
    std::fs::write(&lines, "v 0 0 0\nv 1 0 0\nl 1 2\n").unwrap();
    let (bad, nan, lines) = (
        bad.to_str().unwrap().to_string(),
        nan.to_str().unwrap().to_string(),
        lines.to_str().unwrap().to_string(),
    );
    let flag = asset("flag.obj");
    rejects(
        &sim(out, &["--mesh", "/nonexistent/x.obj"]),
        "/nonexistent/x.obj",
    );
    rejects(&sim(out, &["--mesh", &bad]), "bad.obj");
    rejects(&sim(out, &["--mesh", &nan]), "non-finite");
    rejects(&sim(out, &["--mesh", &lines]), "no faces");
    rejects(
        &sim(out, &["--mesh", &flag, "--pin", "group:mast"]),
        "\"mast\"",
    );
    rejects(
        &sim(out, &["--mesh", &flag, "--pin", "box:5,5,5,6,6,6"]),
        "holds no particle",
    );
    rejects(
        &sim(out, &["--mesh", &flag, "--pin", "corners"]),
        "needs a grid",
    );
    rejects(&sim(out, &["--mesh", &flag, "--pin", "top:-1"]), "top:DIST");
    rejects(
        &sim(out, &["--mesh", &flag, "--pin", "box:1,2"]),
        "six numbers",
    );
    rejects(
        &sim(out, &["--mesh", &flag, "--pin", "list:1,x"]),
        "list:I,J",
    );
    rejects(
        &sim(out, &["--mesh", &flag, "--pin", "sideways"]),
        "pin selection",
    );
    rejects(&sim(out, &["--mesh", &flag, "--density", "-2"]), "density");
    rejects(&sim(out, &["--mesh", &flag, "--scale", "0"]), "scale");
    rejects(
        &[
            "simulate",
            "--backend",
            "cpu",
            "--mesh",
            &flag,
            "--out-every",
            "0",
            "--out",
            "/tmp/x",
        ],
        "--out-every",
    );
    rejects(
        &[
            "simulate",
            "--backend",
            "cpu",
            "--mesh",
            &flag,
            "--out-every",
            "2",
            "--out",
            out,
        ],
        "folder",
    );
    rejects(&["demo", "--pin", "edge"], "go with --mesh");
}

#[test]
fn bad_flags_scene_input_is_one_clear_line() {
    rejects(&["demo", "--scene", "flags", "--flags", "0"], "--flags 0");
    rejects(&["demo", "--scene", "flags", "--flags", "99"], "--flags 99");
    rejects(
        &["demo", "--scene", "flags", "--mesh", &asset("cape.obj")],
        "--scene flags",
    );
    let out = chiffon(&["demo", "--scene", "meadow"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("cloth or flags") && !stderr.contains("panicked"),
        "{stderr}"
    );
}
