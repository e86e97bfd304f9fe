//! The `chiffon` binary: real runs, and bad input that must exit non-zero with one clear line.

mod common;

use std::process::Output;
use std::time::Duration;

use common::asset;
use common::cli::{assert_success, chiffon, command, failed, output_within, stderr, succeeds};

/// Runs `args`, expects failure with a one-line message containing `needle`, and no panic.
fn rejects(args: &[&str], needle: &str) {
    let out = chiffon(args);
    let stderr = stderr(&out);
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

/// `simulate` on the CPU, with `args`.
fn cpu_sim<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec!["simulate", "--backend", "cpu"];
    v.extend_from_slice(args);
    v
}

/// `simulate` on the CPU for 2 frames into `out`, plus `extra`.
fn sim<'a>(out: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = cpu_sim(&["--frames", "2", "--out", out]);
    v.extend_from_slice(extra);
    v
}

fn temp_path(name: &str) -> std::path::PathBuf {
    common::temp_dir("cli").join(name)
}

/// A path under the test's temporary folder with nothing there (a file or folder left by an
/// earlier run under a reused process id is removed).
fn vacant_path(name: &str) -> std::path::PathBuf {
    let path = temp_path(name);
    let _ = std::fs::remove_dir_all(&path);
    path
}

#[test]
fn bad_scene_input_is_one_clear_line() {
    let csv = temp_path("out.csv");
    let out = csv.to_str().unwrap();
    for (flag, value, needle) in [
        ("--grid", "0x0", "--grid wants COLUMNSxROWS"),
        ("--grid", "100000x100000", "particles is more than"),
        ("--damping", "-1", "damping"),
        ("--damping", "NaN", "damping"),
        ("--iterations", "100000", "iterations"),
        ("--substeps", "0", "substeps"),
        ("--spacing", "NaN", "spacing"),
        ("--spacing", "-0.1", "spacing"),
        ("--gravity", "-9.81", "gravity"),
        ("--gravity", "inf", "gravity"),
        ("--wind", "0,NaN,0", "wind"),
        ("--sphere", "0,0,0,-1", "sphere radius"),
        ("--sphere", "0,0,0", "--sphere"),
        ("--ground", "low", "--ground"),
        ("--dt", "fixed:0", "fps"),
        ("--dt", "random:144:30:1", "min fps"),
        ("--dt", "sometimes", "--dt wants fixed:FPS"),
        ("--frequency", "0", "--frequency"),
        ("--frequency", "1e9", "solver frequency"),
        ("--compliance-stretch", "-1", "--compliance-stretch"),
        ("--compliance-bend", "NaN", "--compliance-bend"),
        ("--compliance-curvature", "-1", "curvature compliance"),
        ("--tether-scale", "0.5", "--tether-scale"),
        ("--tether-stiffness", "0", "tether stiffness"),
        ("--over-relaxation", "2.5", "over-relaxation"),
        ("--strain-limit", "0.9", "strain limit"),
        ("--strain-limit", "NaN", "--strain-limit"),
        ("--strain-limit", "off", "or none"),
        ("--strain-limit-frames", "sometimes", "contact or all"),
    ] {
        rejects(&sim(out, &[flag, value]), needle);
    }
    rejects(
        &sim(out, &["--friction", "-1", "--ground", "0"]),
        "friction",
    );
    // A cloth flung away by an absurd gravity: the health check stops it with one line.
    rejects(
        &cpu_sim(&[
            "--pin",
            "none",
            "--gravity",
            "9000",
            "--frames",
            "120",
            "--out",
            out,
        ]),
        "diverged",
    );
    rejects(&cpu_sim(&["--frames", "0", "--out", out]), "--frames");
    rejects(
        &cpu_sim(&["--out", temp_path("x.txt").to_str().unwrap()]),
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
        succeeds(&cpu_sim(&[
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
        ]));
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
    let out = succeeds(&[&base[..], &["--json"]].concat());
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

/// conform's FAIL path, which a real run on lavapipe never takes (its GPU is bit-identical to
/// the CPU): `--perturb` moves the GPU run's cloth, pins too, 5 cm up, so every particle ends
/// about 5 cm from the reference's.
#[test]
fn conform_fails_a_perturbed_run_and_passes_it_within_a_looser_tolerance() {
    if common::gpu("conform_fails_a_perturbed_run").is_none() {
        return;
    }
    let base = [
        "conform",
        "--grid",
        "16x16",
        "--frames",
        "10",
        "--perturb",
        "0.05",
    ];
    let out = chiffon(&[&base[..], &["--json"]].concat());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let max = v["max_abs_deviation_m"].as_f64().unwrap();
    let mean = v["mean_abs_deviation_m"].as_f64().unwrap();
    let tolerance = v["tolerance_m"].as_f64().unwrap();
    assert_eq!(v["pass"], false, "{v}");
    // The 1 m grid's tolerance is 5 mm; both runs' cloths fall alike, 5 cm apart (to rounding
    // of positions 5 cm apart, and a GPU's own rounding).
    assert!((tolerance - 0.005).abs() < 1e-9, "{v}");
    assert!(
        (max - 0.05).abs() < 1e-3 && (mean - 0.05).abs() < 1e-3,
        "{v}"
    );

    // The text says the same, with the same numbers.
    let out = chiffon(&base);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("FAIL: deviation over tolerance"), "{text}");
    let shown = format!(
        "max abs deviation:   {:.3e} m (particle {})",
        max as f32, v["worst_particle"]
    );
    assert!(text.contains(&shown), "{shown:?} not in\n{text}");

    // Within a tolerance of the whole cloth's size, the same difference passes.
    let out = chiffon(&[&base[..], &["--tolerance", "1"]].concat());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.lines().any(|l| l == "PASS"), "{text}");
}

/// `--perturb` past any coordinate chiffon takes (or not a number) is refused naming the flag,
/// not stepped until the cloth diverges.
#[test]
fn conform_refuses_a_perturbation_past_any_coordinate() {
    for value in ["1e30", "-1e30", "nan"] {
        let out = chiffon(&[
            "conform",
            "--grid",
            "8x8",
            "--frames",
            "2",
            "--perturb",
            value,
        ]);
        let err = stderr(&out);
        assert!(
            !out.status.success() && err.contains("--perturb"),
            "{value}: {err}"
        );
    }
}

#[test]
fn info_names_the_adapter() {
    if common::gpu("info_names_the_adapter").is_none() {
        return;
    }
    let out = succeeds(&["info"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("adapter:")
            && text.contains("max_storage_buffer_binding_size")
            && text.contains("the fused path needs 8")
            && text.contains("largest square grid"),
        "{text}"
    );
}

/// Runs `chiffon info` with the environment variable `key` set to `value`.
fn info_with(key: &str, value: &str) -> Output {
    command().arg("info").env(key, value).output().unwrap()
}

#[test]
fn an_unknown_adapter_name_is_a_clear_error() {
    let stderr = failed(&info_with("WGPU_ADAPTER_NAME", "no-such-gpu-anywhere"));
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.contains("no-such-gpu-anywhere"), "{stderr}");
}

#[test]
fn tethers_on_a_cloth_without_pins_are_said_once() {
    let out = succeeds(&cpu_sim(&[
        "--pin",
        "none",
        "--frames",
        "2",
        "--out",
        temp_path("nopins.csv").to_str().unwrap(),
    ]));
    let stderr = stderr(&out);
    assert_eq!(stderr.matches("no pinned particle").count(), 1, "{stderr}");
}

#[test]
fn simulate_a_mesh_pinned_by_group_and_export_an_obj_sequence() {
    // A folder left by an earlier run under a reused process id would be refused as not empty.
    let dir = vacant_path("cape-seq");
    let out = chiffon(&cpu_sim(&[
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
    ]));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_success(&out);
    // The coloring is reported: count and sizes.
    assert!(stdout.contains("colors, constraints per color"), "{stdout}");
    assert!(stdout.contains("(75 pinned)"), "{stdout}");
    // Frames 0, 4, 8 and 9: the start, every 4th frame, and the last.
    let names: Vec<String> = (0..4).map(|k| format!("frame_{k:04}.obj")).collect();
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
    assert!(!dir.join("frame_0004.obj").exists());
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
    let out = succeeds(&[
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
    for (mesh, needle) in [
        ("/nonexistent/x.obj", "/nonexistent/x.obj"),
        (bad.as_str(), "bad.obj"),
        (nan.as_str(), "non-finite"),
        (lines.as_str(), "no faces"),
    ] {
        rejects(&sim(out, &["--mesh", mesh]), needle);
    }
    for (option, value, needle) in [
        ("--pin", "group:mast", "\"mast\""),
        ("--pin", "box:5,5,5,6,6,6", "holds no particle"),
        ("--pin", "corners", "needs a grid"),
        ("--pin", "top:-1", "top pin distance"),
        ("--pin", "box:1,2", "6 finite numbers"),
        ("--pin", "list:1,x", "list:I,J"),
        ("--pin", "sideways", "--pin wants corners"),
        ("--density", "-2", "density"),
        ("--scale", "0", "scale"),
    ] {
        rejects(&sim(out, &["--mesh", &flag, option, value]), needle);
    }
    rejects(
        &cpu_sim(&["--mesh", &flag, "--out-every", "0", "--out", "/tmp/x"]),
        "--out-every",
    );
    rejects(
        &cpu_sim(&["--mesh", &flag, "--out-every", "2", "--out", out]),
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
    let stderr = failed(&chiffon(&["demo", "--scene", "meadow"]));
    assert!(
        stderr.contains("cloth, flags, heap, character or table") && !stderr.contains("panicked"),
        "{stderr}"
    );
}

/// A fresh, empty folder under the test's temporary folder.
fn fresh_dir(name: &str) -> std::path::PathBuf {
    let dir = vacant_path(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The sorted names in `dir`.
fn names_in(dir: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The `v` lines of an OBJ file, as positions.
fn obj_vertices(path: &std::path::Path) -> Vec<[f32; 3]> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|l| {
            let v: Vec<f32> = l.split(' ').map(|x| x.parse().unwrap()).collect();
            [v[0], v[1], v[2]]
        })
        .collect()
}

/// Regression ("every parameter once"): the help hard-coded "[default: 360]" and the CLI
/// copied 9.81 and 0.3; now each solver flag's help quotes the library's default.
#[test]
fn simulate_help_shows_the_library_defaults() {
    use chiffon::contact::{DEFAULT_FRICTION, DEFAULT_RESTITUTION, DEFAULT_THICKNESS};
    use chiffon::params::{AUTO_LIMIT_MIN, AUTO_LIMIT_SCALE, STANDARD_GRAVITY, Substeps};
    let d = chiffon::SolverParams::default();
    let t = d.tethers.unwrap_or_default();
    let on_off = |b: bool| if b { "on" } else { "off" };
    let Substeps::Frequency(hz) = d.substeps else {
        panic!("the default is a solver frequency");
    };
    let expected: Vec<(&str, String)> = vec![
        ("--integrator", d.integrator.name().to_string()),
        ("--iterations", d.iterations.to_string()),
        ("--frequency", hz.to_string()),
        ("--compliance-stretch", d.compliance.stretch.to_string()),
        ("--compliance-shear", d.compliance.shear.to_string()),
        ("--compliance-bend", d.compliance.bend.to_string()),
        ("--compliance-curvature", d.compliance.curvature.to_string()),
        ("--tethers", on_off(d.tethers.is_some()).to_string()),
        ("--tether-scale", t.scale.to_string()),
        ("--tether-stiffness", t.stiffness.to_string()),
        ("--coarse-levels", on_off(d.coarse_levels).to_string()),
        ("--projection", d.projection.name().to_string()),
        (
            "--strain-limit-frames",
            d.strain_limit_frames.name().to_string(),
        ),
        ("--over-relaxation", d.over_relaxation.to_string()),
        ("--damping", d.damping.to_string()),
        ("--gravity", (-d.gravity.y).to_string()),
        ("--friction", DEFAULT_FRICTION.to_string()),
        ("--thickness", DEFAULT_THICKNESS.to_string()),
        ("--restitution", DEFAULT_RESTITUTION.to_string()),
        (
            "--self-collision",
            on_off(d.self_collision.is_some()).to_string(),
        ),
    ];
    assert_eq!(-d.gravity.y, STANDARD_GRAVITY);
    let c = chiffon::Collider::ground(0.0);
    assert_eq!(
        (c.friction, c.thickness, c.restitution),
        (DEFAULT_FRICTION, DEFAULT_THICKNESS, DEFAULT_RESTITUTION)
    );
    let out = chiffon(&["simulate", "--help"]);
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    // Each flag's block: from its line to the next flag's.
    let block = |flag: &str| -> String {
        let mut lines = help.lines().skip_while(|l| {
            !l.trim_start()
                .strip_prefix(flag)
                .is_some_and(|r| r.starts_with(' '))
        });
        let first = lines
            .next()
            .unwrap_or_else(|| panic!("no {flag} in\n{help}"));
        let rest = lines.take_while(|l| !l.trim_start().starts_with('-'));
        std::iter::once(first)
            .chain(rest)
            .collect::<Vec<_>>()
            .join("\n")
    };
    for (flag, default) in expected {
        let text = block(flag);
        assert!(
            text.contains(&format!("[default: {default}]")),
            "{flag} should show the library's default {default}:\n{text}"
        );
    }
    let max = block("--max-distance");
    assert!(
        max.contains(&format!("{AUTO_LIMIT_SCALE} ×"))
            && max.contains(&format!("{AUTO_LIMIT_MIN} m")),
        "{max}"
    );
}

/// Regression ("every parameter once"): `--frequency` only had to be > 0 on the command line
/// while the library wants [1, 10⁴]; now the library judges and the error names the flag.
#[test]
fn a_flag_the_library_refuses_is_named() {
    let out = temp_path("named.csv");
    let out = out.to_str().unwrap();
    for (flag, value, needle) in [
        (
            "--frequency",
            "0.5",
            "--frequency: invalid solver frequency",
        ),
        ("--damping", "-1", "--damping: invalid damping"),
        (
            "--max-distance",
            "0",
            "--max-distance: invalid max distance",
        ),
        ("--ground", "1e12", "--ground: invalid collider"),
        ("--wind", "1e5,0,0", "invalid wind speed (m/s)"),
        ("--drag", "-1", "invalid drag coefficient"),
        ("--gusts", "nan", "gusts"),
    ] {
        rejects(&sim(out, &[flag, value]), needle);
    }
    // --max-distance is the library's divergence limit: a tight one stops a falling cloth.
    rejects(
        &sim(out, &["--pin", "none", "--max-distance", "0.5"]),
        "beyond the divergence limit of 5.0000e-1 m",
    );
}

/// Regression (issue 27): a negative count was clap's "unexpected argument '-5'" or "invalid
/// digit found in string"; now one line names the flag and what it wants.
#[test]
fn a_negative_count_names_the_flag_and_what_it_wants() {
    let out = temp_path("neg.csv");
    let out = out.to_str().unwrap();
    for (args, wants) in [
        (
            sim(out, &["--grid", "-5x5"]),
            "--grid wants COLUMNSxROWS with each a whole number of at least 2",
        ),
        (
            vec!["demo", "--grid", "-3"],
            "--grid wants a whole number of at least 2",
        ),
        (
            cpu_sim(&["--frames", "-1", "--out", out]),
            "--frames wants a whole number of at least 1",
        ),
        (
            sim(out, &["--iterations", "-2"]),
            "--iterations wants a whole number",
        ),
        (
            sim(out, &["--out-every", "-1"]),
            "--out-every wants a whole number of at least 1",
        ),
        (sim(out, &["--wind", "-1;0;0"]), "--wind wants x,y,z"),
        (
            vec!["study", "--seed", "-1", "--out", out],
            "--seed wants a whole number",
        ),
    ] {
        let run = chiffon(&args);
        let err = stderr(&run);
        assert!(!run.status.success(), "{args:?}");
        assert_eq!(err.lines().count(), 1, "{args:?}: not one line:\n{err}");
        assert!(
            err.starts_with("chiffon: error: ") && err.contains(wants),
            "{args:?}: {err}"
        );
    }
}

/// Regression (issue 27): `chiffon help --help` was "unrecognized subcommand '--help'".
#[test]
fn help_help_works() {
    let out = succeeds(&["help", "--help"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("Usage: chiffon help"));
    let out = succeeds(&["help", "simulate"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("--frequency"));
    rejects(&["help", "simulat"], "not a subcommand");
}

/// Regression (issue 27): a missing file is one line naming it, the OS's words once.
#[test]
fn a_missing_file_is_one_line_naming_it_once() {
    let out = temp_path("missing-out.csv");
    let out = out.to_str().unwrap();
    for (args, file) in [
        (sim(out, &["--mesh", "nope.obj"]), "nope.obj"),
        (sim(out, &["--dt", "file:nope.txt"]), "nope.txt"),
    ] {
        let run = chiffon(&args);
        let err = stderr(&run);
        assert!(!run.status.success());
        assert_eq!(err.lines().count(), 1, "{err}");
        assert_eq!(err.matches(file).count(), 1, "{err}");
        assert_eq!(err.matches("No such file").count(), 1, "{err}");
    }
}

/// Regression (issue 27): `WGPU_BACKEND=bogus chiffon info` only said "no GPU adapter found".
#[test]
fn an_unknown_wgpu_backend_is_named() {
    let err = failed(&info_with("WGPU_BACKEND", "bogus"));
    assert!(
        err.contains("WGPU_BACKEND") && err.contains("\"bogus\"") && err.contains("vulkan"),
        "{err}"
    );
}

/// Regression (issue 22): `--frames 4294967295` built every dt before the first step (34 GB);
/// a bad flag beside it was only reported after that. Now dts are drawn as they are used.
#[test]
fn a_huge_frame_count_costs_nothing_up_front() {
    let start = std::time::Instant::now();
    let out = temp_path("huge.obj");
    rejects(
        &cpu_sim(&[
            "--grid",
            "2x2",
            "--frames",
            "4294967295",
            "--damping",
            "-1",
            "--out",
            out.to_str().unwrap(),
        ]),
        "--damping",
    );
    assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());

    // And a valid huge run starts at once: its first frame is on disk within seconds.
    let dir = vacant_path("huge-seq");
    let mut child = command()
        .args(cpu_sim(&[
            "--grid",
            "2x2",
            "--frames",
            "4294967295",
            "--out-every",
            "4294967295",
            "--out",
            dir.to_str().unwrap(),
        ]))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let first = dir.join("frame_0000.obj");
    let started = std::time::Instant::now();
    while !first.exists() && started.elapsed().as_secs() < 30 {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("chiffon ended with {status} before writing its first frame");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let exists = first.exists();
    child.kill().ok();
    child.wait().ok();
    assert!(exists, "no first frame after {:?}", started.elapsed());
}

/// Regression (issue 22): a sequence wrote into a folder holding an earlier, longer one, and
/// the stale frames stayed mixed in. Now a folder that holds anything is refused; with
/// --overwrite, the earlier frames (only they) are removed first.
#[test]
fn a_sequence_never_mixes_with_an_earlier_one() {
    let dir = fresh_dir("mixed");
    let d = dir.to_str().unwrap();
    std::fs::write(dir.join("frame_0009.obj"), "stale").unwrap();
    std::fs::write(dir.join("notes.txt"), "keep me").unwrap();
    let seq = |extra: &[&'static str]| -> Vec<&str> {
        let mut v = cpu_sim(&[
            "--grid",
            "4x4",
            "--frames",
            "2",
            "--out-every",
            "1",
            "--out",
            d,
        ]);
        v.extend_from_slice(extra);
        v
    };
    rejects(&seq(&[]), "--overwrite");
    assert_eq!(
        names_in(&dir),
        ["frame_0009.obj", "notes.txt"],
        "a refusal touched the folder"
    );
    succeeds(&seq(&["--overwrite"]));
    assert_eq!(
        names_in(&dir),
        [
            "frame_0000.obj",
            "frame_0001.obj",
            "frame_0002.obj",
            "notes.txt"
        ]
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "keep me"
    );
}

/// Regression (issue 22): the last frame was lost when --out-every did not divide --frames.
#[test]
fn the_last_frame_is_always_written() {
    let dir = vacant_path("last-seq");
    let single = temp_path("last.obj");
    let common = cpu_sim(&["--grid", "6x6", "--frames", "5"]);
    succeeds(
        &[
            &common[..],
            &["--out-every", "2", "--out", dir.to_str().unwrap()],
        ]
        .concat(),
    );
    // The start, frames 2 and 4, and frame 5.
    assert_eq!(
        names_in(&dir),
        [
            "frame_0000.obj",
            "frame_0001.obj",
            "frame_0002.obj",
            "frame_0003.obj"
        ]
    );
    succeeds(&[&common[..], &["--out", single.to_str().unwrap()]].concat());
    assert_eq!(
        obj_vertices(&dir.join("frame_0003.obj")),
        obj_vertices(&single)
    );
}

/// Regression (issue 22): the GPU's divergence flag lags a frame or two, so a sequence wrote
/// the exploded frame before the run stopped. Now every write asks the solver's health first.
#[test]
fn a_diverging_run_never_writes_its_exploded_frame() {
    let limit = 3.0f32;
    let mut backends = vec!["cpu"];
    if common::gpu("a_diverging_run_never_writes_its_exploded_frame").is_some() {
        backends.push("gpu");
    }
    for backend in backends {
        let dir = vacant_path(&format!("diverge-{backend}"));
        let out = chiffon(&[
            "simulate",
            "--backend",
            backend,
            "--grid",
            "8x8",
            "--pin",
            "none",
            "--gravity",
            "400",
            "--max-distance",
            &limit.to_string(),
            "--frames",
            "60",
            "--out-every",
            "1",
            "--out",
            dir.to_str().unwrap(),
        ]);
        let err = stderr(&out);
        assert!(
            !out.status.success() && err.contains("diverged"),
            "{backend}: {err}"
        );
        // "... in frame F; ...": frames 0 to F-1 are on disk, and none beyond the limit.
        let frame: usize = err
            .split("in frame ")
            .nth(1)
            .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{backend}: no frame in {err}"));
        let names = names_in(&dir);
        assert_eq!(
            names.len(),
            frame,
            "{backend}: {names:?} for a divergence in frame {frame}"
        );
        // The scene's centre: the middle of the 1 m hanging sheet.
        let centre = chiffon::glam::Vec3::new(0.0, 0.5, 0.0);
        for n in &names {
            for v in obj_vertices(&dir.join(n)) {
                let d = chiffon::glam::Vec3::from(v).distance(centre);
                assert!(d <= limit, "{backend}: {n} holds a particle {d} m out");
            }
        }
    }
}

/// Regression (issue 22): files were written in place, so a failed write left half a file.
/// Now they are written beside and renamed: nothing else is ever left in the folder.
#[test]
fn writes_are_atomic_and_leave_nothing_else() {
    let dir = fresh_dir("atomic");
    let file = dir.join("cloth.obj");
    std::fs::write(&file, "an earlier result").unwrap();
    succeeds(&sim(file.to_str().unwrap(), &["--grid", "4x4"]));
    assert_eq!(names_in(&dir), ["cloth.obj"]);
    assert_eq!(obj_vertices(&file).len(), 16);
    // A run that fails keeps the earlier file whole.
    std::fs::write(&file, "an earlier result").unwrap();
    rejects(
        &sim(
            file.to_str().unwrap(),
            &["--grid", "4x4", "--pin", "none", "--max-distance", "0.5"],
        ),
        "diverged",
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "an earlier result");
    assert_eq!(names_in(&dir), ["cloth.obj"]);
}

/// Regression (issue 22): a refused sequence left its new, empty folder behind.
#[test]
fn a_refused_command_leaves_no_folder_behind() {
    let dir = vacant_path("refused-seq");
    let d = dir.to_str().unwrap();
    for extra in [
        &["--damping", "-1"][..],
        &["--mesh", "nope.obj"],
        &["--pin", "list:99999"],
    ] {
        let mut args = cpu_sim(&["--out-every", "1", "--out", d]);
        args.extend_from_slice(extra);
        let out = chiffon(&args);
        assert!(!out.status.success(), "{extra:?}");
        assert!(!dir.exists(), "{extra:?} left {d} behind");
    }
}

/// Regression (issue 22): an output that cannot be written was found after the run. Now it is
/// refused before: nothing is simulated (the cloth is not even described).
#[test]
fn an_unwritable_output_is_refused_before_the_run() {
    let base = fresh_dir("unwritable");
    let file = base.join("a-file");
    std::fs::write(&file, "").unwrap();
    let missing = base.join("no-such-folder/out.csv");
    let under_file = file.join("out.csv");
    let mut cases = vec![
        (sim(missing.to_str().unwrap(), &[]), "no-such-folder"),
        (sim(under_file.to_str().unwrap(), &[]), "is not a folder"),
        (sim(base.to_str().unwrap(), &[]), "is a folder"),
        (
            vec!["study", "--out", file.to_str().unwrap()],
            "is a file; study writes a folder",
        ),
    ];
    // A read-only folder: refused, unless this user writes anywhere (root), in which case
    // the probe rightly finds it writable.
    let ro = base.join("read-only");
    std::fs::create_dir(&ro).unwrap();
    let mut perms = std::fs::metadata(&ro).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&ro, perms).unwrap();
    let ro_out = ro.join("out.csv");
    let writable_anyway = std::fs::write(ro.join("probe"), "").is_ok();
    let ro_out_s = ro_out.to_str().unwrap().to_string();
    if !writable_anyway {
        cases.push((sim(&ro_out_s, &[]), "cannot write"));
    }
    // A folder nobody may create files in, root included.
    if cfg!(target_os = "linux") {
        cases.push((sim("/proc/chiffon-out.csv", &[]), "cannot write in /proc"));
    }
    for (args, needle) in cases {
        rejects(&args, needle);
        let out = chiffon(&args);
        assert!(
            out.stdout.is_empty(),
            "{args:?} ran:\n{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    let mut perms = std::fs::metadata(&ro).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(&ro, perms).unwrap();
}

/// Regression (issue 22): settings that do nothing or contradict each other went by silently,
/// and `--pin top:100` (every particle pinned) said "no pinned particle".
#[test]
fn settings_that_do_nothing_are_warned_once() {
    let out = temp_path("warned.csv");
    let out = out.to_str().unwrap();
    let warned = |extra: &[&str], needle: &str| {
        let run = chiffon(&sim(out, extra));
        let err = stderr(&run);
        assert!(run.status.success(), "{extra:?}: {err}");
        let warnings: Vec<&str> = err.lines().filter(|l| l.contains(needle)).collect();
        assert_eq!(warnings.len(), 1, "{extra:?}: {err}");
        assert!(warnings[0].starts_with("chiffon: warning: "), "{err}");
        err
    };
    warned(&["--iterations", "0"], "--iterations 0");
    warned(
        &["--ground", "2"],
        "2 pinned particles are below --ground 2",
    );
    let err = warned(
        &["--grid", "4x4", "--pin", "top:100"],
        "every particle is pinned",
    );
    assert!(!err.contains("no pinned particle"), "{err}");
    warned(
        &["--tethers", "off", "--tether-scale", "1.1"],
        "--tether-scale does nothing",
    );
    warned(&["--friction", "0.5"], "--friction acts on contact");
    warned(&["--weld", "0.1"], "--weld");
    warned(&["--mesh", &asset("flag.obj"), "--grid", "8x8"], "--grid");
}

#[test]
fn simulate_writes_the_energy_of_every_frame() {
    let out = temp_path("energy-out.csv");
    let energy = temp_path("energy.csv");
    let (o, e) = (out.to_str().unwrap(), energy.to_str().unwrap());
    let run = chiffon(&sim(o, &["--energy", e]));
    assert!(run.status.success(), "{run:?}");
    let text = std::fs::read_to_string(&energy).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "t_s,kinetic_j,gravitational_j,elastic_j,total_j");
    assert_eq!(lines.len(), 3, "one line per frame:\n{text}");
    let last: Vec<f64> = lines[2].split(',').map(|v| v.parse().unwrap()).collect();
    assert!(
        (last[0] - 2.0 / 60.0).abs() < 1e-6,
        "t of frame 2: {}",
        last[0]
    );
    assert!(last[1] > 0.0, "a falling cloth has kinetic energy");
    assert!((last[1] + last[2] + last[3] - last[4]).abs() < 1e-6 * last[4].abs().max(1.0));
    rejects(&sim(o, &["--energy", o]), "--energy");
    rejects(
        &sim(o, &["--energy", "/nonexistent-folder/e.csv"]),
        "--energy",
    );
    rejects(
        &sim(o, &["--energy", "e.txt"]),
        "must be a file ending in .csv",
    );
}

/// `chiffon simulate ... | head -1` closed the pipe before chiffon printed, and every println
/// after panicked ("failed printing to stdout: Broken pipe"). Now it ends quietly.
#[test]
fn a_closed_stdout_pipe_is_not_a_panic() {
    let out = temp_path("pipe.csv");
    let mut child = command()
        .args(sim(out.to_str().unwrap(), &[]))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run chiffon");
    // Close the reading end before chiffon has printed anything (it starts a solver first).
    drop(child.stdout.take());
    let result = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_ne!(result.status.code(), Some(101), "{stderr}");
}

/// Runs `args` and fails the test, instead of hanging it, when chiffon has not exited within
/// 20 s.
fn chiffon_within_20_s(args: &[&str]) -> Output {
    output_within(
        command().args(args),
        Duration::from_secs(20),
        Duration::from_millis(20),
    )
    .unwrap_or_else(|| panic!("{args:?} did not exit within 20 s"))
}

/// Issue 41: `--collider mesh:FIFO` blocked forever and `mesh:/dev/zero` aborted on
/// allocation; every file flag now reads through one function that refuses them.
#[cfg(unix)]
#[test]
fn a_fifo_or_a_device_given_as_a_file_is_refused_not_read() {
    let out = temp_path("fifo-out.csv");
    let out = out.to_str().unwrap();
    let fifo = temp_path("fifo.obj");
    common::make_fifo(&fifo);
    let fifo = fifo.to_str().unwrap();
    let collider = |f: &str| format!("mesh:{f}");
    let dt = |f: &str| format!("file:{f}");
    for (flag, value, needle) in [
        ("--collider", collider(fifo), "named pipe"),
        ("--collider", collider("/dev/zero"), "device"),
        ("--collider", collider("/dev/null"), "device"),
        ("--collider", collider("/tmp"), "folder"),
        ("--mesh", fifo.to_string(), "named pipe"),
        ("--mesh", "/dev/zero".to_string(), "device"),
        ("--dt", dt(fifo), "named pipe"),
        ("--dt", dt("/dev/zero"), "device"),
    ] {
        let args = sim(out, &[flag, &value]);
        let run = chiffon_within_20_s(&args);
        let err = stderr(&run);
        assert!(!run.status.success(), "{args:?} succeeded");
        let file = value
            .trim_start_matches("mesh:")
            .trim_start_matches("file:");
        assert!(
            err.starts_with("chiffon: error: ")
                && err.contains(flag)
                && err.contains(file)
                && err.contains(needle)
                && err.lines().count() == 1,
            "{args:?}:\n{err}"
        );
    }
}

/// Issue 41: a capsule from -1e38 to 1e38 (or ±1e19, ±1e7) and a mesh collider vertex at 1e30
/// made the collider vanish, and a ±1e30 `--mesh` failed as "rest length inf".
#[test]
fn huge_coordinates_are_refused_naming_the_bound_not_dropped() {
    let out = temp_path("far-out.csv");
    let out = out.to_str().unwrap();
    let far_mesh = |name: &str, far: &str| {
        let p = temp_path(name);
        std::fs::write(
            &p,
            format!("v -{far} 0 0\nv {far} 0 0\nv 0 {far} 0\nf 1 2 3\n"),
        )
        .unwrap();
        p.to_str().unwrap().to_string()
    };
    let (e30, e15) = (far_mesh("e30.obj", "1e30"), far_mesh("e15.obj", "1e15"));
    let collider30 = format!("mesh:{e30}");
    for (args, needle) in [
        (
            vec!["--collider", "capsule:-1e38,0.5,0,1e38,0.5,0,0.1"],
            "capsule end [-1e38, 0.5, 0] is more than 1e6 m",
        ),
        (
            vec!["--collider", "capsule:-1e19,0.5,0,1e19,0.5,0,0.1"],
            "more than 1e6 m",
        ),
        (
            vec!["--collider", "capsule:-1e7,0.5,0,1e7,0.5,0,0.1"],
            "more than 1e6 m",
        ),
        (
            vec!["--collider", &collider30],
            "e30.obj: vertex 1 is at [-1e30",
        ),
        (vec!["--mesh", &e30], "e30.obj: vertex 1 is at [-1e30"),
        (vec!["--mesh", &e15], "e15.obj: vertex 1 is at [-1e15"),
        (
            vec!["--collider", "sphere:0,0,0,1e10"],
            "sphere radius is 1e10 m, more than 1e6 m",
        ),
        (vec!["--ground", "1e10"], "plane is 1e10 m from the origin"),
        (vec!["--sphere", "1e8,0,0,1"], "position [1e8, 0, 0]"),
    ] {
        let mut v = sim(out, &["--layout", "flat", "--pin", "none"]);
        v.extend(args.iter().copied());
        rejects(&v, needle);
        let e = stderr(&chiffon(&v));
        assert!(
            !e.contains("must be finite") && !e.contains("not a finite") && !e.contains("inf"),
            "{e}"
        );
    }
}

/// Issue 41: `--collider plane:0,1,0,2` said nothing of the particles below it, which
/// `--ground 2` (documented as the same plane) warns about.
#[test]
fn a_collider_plane_warns_like_the_ground_it_equals() {
    let out = temp_path("plane-out.csv");
    let out = out.to_str().unwrap();
    let warnings = |extra: &[&str]| -> Vec<String> {
        let run = succeeds(&sim(out, extra));
        stderr(&run)
            .lines()
            .filter(|l| l.starts_with("chiffon: warning:"))
            .map(str::to_string)
            .collect()
    };
    let ground = warnings(&["--grid", "8x8", "--ground", "2"]);
    let plane = warnings(&["--grid", "8x8", "--collider", "plane:0,1,0,2"]);
    assert_eq!(ground.len(), 2, "{ground:?}");
    assert_eq!(
        plane,
        ground
            .iter()
            .map(|w| w.replace("--ground 2 m", "--collider plane:0,1,0,2"))
            .collect::<Vec<_>>()
    );
    // A tilted plane too, in its own words.
    let tilted = warnings(&["--grid", "8x8", "--collider", "plane:1,1,0,0.5"]);
    assert!(
        tilted
            .iter()
            .any(|w| w.contains("behind") && w.contains("plane:1,1,0,0.5")),
        "{tilted:?}"
    );
}

/// A limit in every frame with no limit at all does nothing: the command says so.
#[test]
fn strain_limit_frames_without_a_limit_warns() {
    let out = temp_path("limit-frames-out.csv");
    let run = succeeds(&sim(
        out.to_str().unwrap(),
        &[
            "--grid",
            "8x8",
            "--strain-limit",
            "none",
            "--strain-limit-frames",
            "all",
        ],
    ));
    assert!(
        stderr(&run)
            .lines()
            .any(|l| l.starts_with("chiffon: warning:")
                && l.contains("--strain-limit-frames does nothing with --strain-limit none")),
        "{}",
        stderr(&run)
    );
}

/// Issue 41: `bench --scene colliders --sizes 4097` skipped every case and exited 0.
#[test]
fn a_bench_size_no_grid_can_have_is_an_error_not_a_silent_skip() {
    for scene in ["colliders", "standard", "heap"] {
        rejects(
            &["bench", "--scene", scene, "--sizes", "4097"],
            "--sizes 4097: 4097x4097 = 16785409 particles is more than",
        );
    }
}

/// Issue 41: a bad material flag was blamed on a collider ("--ground: ... its thickness").
#[test]
fn a_bad_material_flag_is_named_not_the_collider_it_lands_on() {
    let out = temp_path("material-out.csv");
    let out = out.to_str().unwrap();
    for (args, needle) in [
        (
            ["--ground", "0", "--thickness", "-1"],
            "--thickness wants a distance from 0 to 1000 m, not -1",
        ),
        (
            ["--collider", "sphere:0,0,0,1", "--friction", "11"],
            "--friction wants a coefficient from 0 to 10, not 11",
        ),
        (
            ["--self-collision", "on", "--restitution", "2"],
            "--restitution wants a coefficient from 0 to 1, not 2",
        ),
        (
            ["--self-collision", "on", "--friction", "-1"],
            "--friction wants",
        ),
        (
            ["--self-collision", "on", "--self-thickness", "0"],
            "--self-thickness wants a distance from 0.00001",
        ),
    ] {
        let v = sim(out, &args);
        rejects(&v, needle);
        let e = stderr(&chiffon(&v));
        assert!(
            !e.contains("--ground:")
                && !e.contains("--collider:")
                && !e.contains("--self-collision:"),
            "{e}"
        );
    }
}

/// Issue 41: `--self-collision on --thickness 0` was refused as below self-collision's minimum,
/// although 0 is a collider's valid thickness: self-collision has `--self-thickness` now.
#[test]
fn thickness_0_for_colliders_goes_with_self_collision() {
    let out = temp_path("self-out.csv");
    let out = out.to_str().unwrap();
    // An 8×8 sheet with self-collision on, plus `extra`.
    let self_colliding = |extra: &[&str]| {
        let on = ["--grid", "8x8", "--self-collision", "on"];
        succeeds(&sim(out, &[&on[..], extra].concat()))
    };
    self_colliding(&[
        "--ground",
        "0",
        "--thickness",
        "0",
        "--self-thickness",
        "0.02",
    ]);
    // Without a collider, --thickness does nothing, and the warning points at the other flag.
    let run = self_colliding(&["--thickness", "0"]);
    assert!(
        stderr(&run).contains("--self-thickness"),
        "{}",
        stderr(&run)
    );
}

/// Issue 41: `--collider mesh:empty.obj` said "a cloth needs triangles".
#[test]
fn an_empty_collider_mesh_is_not_called_a_cloth() {
    let out = temp_path("empty-out.csv");
    let empty = temp_path("empty.obj");
    std::fs::write(&empty, "").unwrap();
    let collider = format!("mesh:{}", empty.display());
    let v = sim(out.to_str().unwrap(), &["--collider", &collider]);
    rejects(&v, "empty.obj: it has no faces");
    assert!(!stderr(&chiffon(&v)).contains("cloth"));
}

/// Issue 41: `--energy` into a link to /dev/full failed after the run, without naming the flag.
#[cfg(unix)]
#[test]
fn an_unwritable_energy_file_is_refused_before_the_run() {
    let out = temp_path("energy-out.csv");
    let link = temp_path("full.csv");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink("/dev/full", &link).unwrap();
    let v = sim(
        out.to_str().unwrap(),
        &["--grid", "8x8", "--energy", link.to_str().unwrap()],
    );
    rejects(&v, "--energy");
    let run = chiffon(&v);
    assert!(stderr(&run).contains("full.csv"));
    assert!(
        String::from_utf8_lossy(&run.stdout).is_empty(),
        "the run started"
    );
}

/// Issue 41: every `--collider mesh:FILE` built its own grid (64 of one cylinder: 918 MB). One
/// file, however spelled, is one grid now, and `simulate` says what each collider became.
#[test]
fn mesh_colliders_of_one_file_share_one_grid_and_say_what_they_are() {
    let out = temp_path("shared-out.csv");
    let cape = asset("cape.obj");
    let dotted = format!(
        "{}/./cape.obj",
        std::path::Path::new(&cape).parent().unwrap().display()
    );
    // A hard link is the same file under another name.
    let linked = temp_path("linked-cape.obj");
    let _ = std::fs::remove_file(&linked);
    std::fs::hard_link(&cape, &linked).unwrap();
    let (a, b, c) = (
        format!("mesh:{cape}"),
        format!("mesh:{dotted}"),
        format!("mesh:{}", linked.display()),
    );
    let run = succeeds(&sim(
        out.to_str().unwrap(),
        &[
            "--grid",
            "8x8",
            "--collider",
            &a,
            "--collider",
            &b,
            "--collider",
            &c,
        ],
    ));
    let stdout = String::from_utf8_lossy(&run.stdout);
    let first = stdout
        .lines()
        .find(|l| l.starts_with("collider 0 (mesh "))
        .unwrap_or_else(|| panic!("{stdout}"));
    for needle in [
        "1152 triangles",
        "open (a shell)",
        "grid ",
        " MB",
        "built in",
    ] {
        assert!(first.contains(needle), "{first}");
    }
    let shared = stdout
        .lines()
        .filter(|l| l.contains("the grid of collider 0"))
        .count();
    assert_eq!(shared, 2, "{stdout}");
}

/// Issue 41 (found in the sweep): with several colliders, "--collider: ... collider 2" did
/// not say which `--collider` was wrong; the error quotes its value now.
#[test]
fn a_bad_collider_among_several_is_named_by_its_value() {
    let out = temp_path("several-out.csv");
    rejects(
        &sim(
            out.to_str().unwrap(),
            &[
                "--ground",
                "0",
                "--collider",
                "box:0,0,0,1,1,1",
                "--collider",
                "sphere:0,0,0,-1",
            ],
        ),
        "--collider sphere:0,0,0,-1: invalid collider",
    );
}

/// Issue 41 (found in the sweep): `bench --json FIFO` opened the pipe to test it and waited
/// for a reader forever.
#[cfg(unix)]
#[test]
fn a_fifo_bench_output_is_refused_not_waited_on() {
    let fifo = temp_path("bench-fifo.json");
    common::make_fifo(&fifo);
    let args = [
        "bench",
        "--backend",
        "cpu",
        "--json",
        fifo.to_str().unwrap(),
    ];
    let run = chiffon_within_20_s(&args);
    let err = stderr(&run);
    assert!(
        !run.status.success() && err.contains("--json") && err.contains("not a regular file"),
        "{err}"
    );
}

/// Issue 41 (found in the sweep): `--out-every N --out FIFO` said the pipe "is a file".
#[cfg(unix)]
#[test]
fn a_pipe_given_as_the_output_folder_is_called_a_pipe() {
    let fifo = temp_path("out-fifo");
    common::make_fifo(&fifo);
    let out = fifo.to_str().unwrap();
    rejects(
        &cpu_sim(&["--frames", "2", "--out-every", "1", "--out", out]),
        "is not a folder but a pipe or a device",
    );
    rejects(
        &["study", "--out", out],
        "is not a folder but a pipe or a device",
    );
}
