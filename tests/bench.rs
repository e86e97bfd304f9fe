//! The benchmark keeps working: quick mode runs both backends and writes complete records;
//! every scene's records carry the shared fields and their own; bad flags and output paths
//! are refused before anything runs.

mod common;

use std::time::Duration;

use chiffon::params::SolverParams;
use chiffon::tools::bench;
use common::cli::{assert_success, chiffon, command, output_within, stderr};

/// A full grid's colors: 8 of distances and 12 of bending stencils (tests/coloring.rs).
const GRID_COLORS: u64 = 20;

const FIELDS: &[&str] = &[
    "scene",
    "backend",
    "adapter",
    "n",
    "particles",
    "constraints",
    "colors",
    "dispatches_per_frame",
    "iterations",
    "substeps",
    "ms_per_frame_median",
    "ms_per_frame_p90",
    "gpu_ms_per_frame",
    "constraint_solves_per_s",
    "gbps",
    "mean_y",
    "stretch_mean",
    "stretch_p99",
    "stretch_max",
    "gpu_stage_ms",
    "projection",
    "tethers",
];

/// Runs `chiffon bench ARGS` on both backends (the CPU alone where there is no GPU, loudly) with
/// `--json` and `--plot`, expects success, and returns how many backends ran (2 with a GPU, else
/// 1), stdout, the records and the SVG.
fn bench_run(test: &str, args: &[&str]) -> (usize, String, Vec<serde_json::Value>, String) {
    let (backend, backends) = if common::gpu(test).is_some() {
        ("both", 2)
    } else {
        ("cpu", 1)
    };
    let dir = common::temp_dir(test);
    let (json, plot) = (dir.join("out.json"), dir.join("out.svg"));
    let out = command()
        .arg("bench")
        .args(args)
        .args(["--backend", backend])
        .arg("--json")
        .arg(&json)
        .arg("--plot")
        .arg(&plot)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let records = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (
        backends,
        stdout,
        records,
        std::fs::read_to_string(&plot).unwrap(),
    )
}

/// A record's constraint and particle counts.
fn constraints_and_particles(r: &serde_json::Value) -> (u64, u64) {
    (
        r["constraints"].as_u64().unwrap(),
        r["particles"].as_u64().unwrap(),
    )
}

#[test]
fn quick_bench_writes_complete_json_and_plot() {
    let (backends, stdout, records, svg) = bench_run(
        "quick_bench_writes_complete_json_and_plot",
        &["--quick", "--peak-gbps", "100"],
    );
    assert!(stdout.contains("Msolves/s"), "no table:\n{stdout}");
    assert_eq!(records.len(), backends * 2, "{records:?}");
    let mut sizes_with_levels = 0;
    for r in &records {
        for f in FIELDS {
            assert!(r.get(f).is_some(), "record lacks {f}: {r}");
        }
        assert_eq!(r["scene"], "standard", "{r}");
        assert_eq!(r["frames"], 5, "--quick times 5 frames: {r}");
        let ms = r["ms_per_frame_median"].as_f64().unwrap();
        assert!(ms > 0.0 && ms.is_finite(), "{r}");
        assert!(r["constraint_solves_per_s"].as_f64().unwrap() > 0.0, "{r}");
        assert_eq!(r["colors"], GRID_COLORS, "{r}");
        // Library defaults at 60 fps: substeps (6 at 360 Hz) of integrate, the coarse
        // levels where the grid has them (a snapshot, then each level's colors and its
        // prolongation), the grid's colors and
        // tethers (no collide: the scene has no collider), then one health check.
        let n = r["n"].as_u64().unwrap() as u32;
        let cloth = chiffon::tools::scenes::standard_cloth(n, [true; 3]).unwrap();
        let mut solver =
            chiffon::Solver::new(chiffon::Backend::Cpu, &cloth, Default::default()).unwrap();
        let schedule = solver.schedule(1.0 / 60.0).unwrap();
        let (levels, substeps) = (schedule.levels, u64::from(schedule.substeps));
        sizes_with_levels += u32::from(levels.levels > 0);
        let coarse: u64 = u64::from(levels.levels > 0)
            + levels.counts[..levels.levels as usize]
                .iter()
                .map(|&c| c as u64 + 1)
                .sum::<u64>();
        assert_eq!(
            r["dispatches_per_frame"],
            substeps * (GRID_COLORS + 2 + coarse) + 1,
            "{r}"
        );
        assert_eq!(r["substeps"], substeps, "{r}");
        // The design notes' bytes model: per substep, one SHAKE solve per constraint, and
        // integrate and tethers per particle.
        let (m, p) = constraints_and_particles(r);
        assert_eq!(
            r["bytes_per_frame"].as_u64().unwrap(),
            substeps
                * (m * (bench::BYTES_PER_SOLVE + bench::BYTES_PER_SHAKE_SOLVE)
                    + p * (bench::BYTES_PER_INTEGRATE_STEP + bench::BYTES_PER_TETHER_STEP)),
            "{r}"
        );
        let p99 = r["stretch_p99"].as_f64().unwrap();
        assert!(
            p99 >= 0.9 && p99 <= r["stretch_max"].as_f64().unwrap(),
            "{r}"
        );
        let stretch = r["stretch_max"].as_f64().unwrap();
        assert!(stretch >= 1.0 && stretch.is_finite(), "{r}");
        assert!(r["peak_percent"].as_f64().unwrap() > 0.0, "{r}");
    }
    // 16² is below the coarse levels' minimum (its first level, 5², would be under 64
    // particles); 32² has them, so the dispatch count above covered the coarse stage.
    assert!(
        sizes_with_levels > 0,
        "no quick size has coarse levels: {records:?}"
    );
    // Both backends simulate the same scene, so they must end in the same shape.
    if backends == 2 {
        let y = |b: &str, n: u64| {
            records
                .iter()
                .find(|r| r["backend"] == b && r["n"] == n)
                .unwrap()["mean_y"]
                .as_f64()
                .unwrap()
        };
        assert!((y("gpu", 32) - y("cpu", 32)).abs() < 1e-3);
    }
    assert!(
        svg.contains("<svg") && svg.contains("particles"),
        "plot has no axes"
    );
}

/// Runs `chiffon ARGS`, expects it to fail, and returns its stderr.
fn refused(args: &[&str]) -> String {
    let out = chiffon(args);
    assert!(!out.status.success(), "{args:?} succeeded");
    stderr(&out)
}

#[test]
fn bad_bench_flags_are_rejected() {
    for args in [
        &["bench", "--sizes", "1", "--backend", "cpu"][..],
        &["bench", "--frames", "0", "--backend", "cpu"][..],
        &["bench", "--peak-gbps", "-5", "--backend", "cpu"][..],
        &[
            "bench",
            "--backend",
            "cpu",
            "--no-structural",
            "--no-shear",
            "--no-bend",
        ][..],
        &["bench", "--backend", "cpu", "--frequency", "0"][..],
        &["bench", "--backend", "cpu", "--compliance-stretch", "-1"][..],
        &["bench", "--backend", "cpu", "--tether-scale", "0.5"][..],
    ] {
        let stderr = refused(args);
        // Ours, or clap's for a value its parser refused; either names the flag.
        assert!(
            (stderr.contains("chiffon: error:") || stderr.contains("error: invalid value"))
                && stderr.contains("--")
                && !stderr.contains("panicked"),
            "{stderr}"
        );
    }
}

#[test]
fn unknown_solver_flag_values_are_refused_by_name() {
    for (args, named) in [
        (
            &["bench", "--backend", "cpu", "--tethers", "maybe"][..],
            "--tethers",
        ),
        (
            &["bench", "--backend", "cpu", "--projection", "verlet"][..],
            "--projection",
        ),
    ] {
        let stderr = refused(args);
        assert!(
            stderr.contains(named) && !stderr.contains("panicked"),
            "{stderr}"
        );
    }
}

/// The fields scripts rely on in `--scene capes` records.
const CAPES_FIELDS: &[&str] = &[
    "scene",
    "backend",
    "adapter",
    "cloths",
    "path",
    "cloth_size",
    "particles",
    "constraints",
    "cloth_paths",
    "at_rest",
    "sleep",
    "asleep",
    "auto_trial_ms",
    "dispatches_per_frame",
    "substeps",
    "iterations",
    "frames",
    "ms_per_frame_median",
    "ms_per_frame_p90",
    "gpu_ms_per_frame",
    "cloths_per_ms",
    "bytes_per_frame",
    "gbps",
    "peak_percent",
    "stretch_max",
    "stretch_mean",
    "speedup_vs_separate",
    "skipped",
];

#[test]
fn capes_bench_writes_every_path_and_the_fields_scripts_read() {
    let args = [
        "--scene",
        "capes",
        "--cloths",
        "1,3",
        "--cloth-size",
        "12x10",
        "--path",
        "fused,global,separate,auto",
        "--frames",
        "3",
        "--warmup",
        "1",
    ];
    let (backends, _, records, svg) = bench_run("capes_bench_writes_every_path", &args);
    assert_eq!(records.len(), backends * 2 * 4, "{records:?}");
    for r in &records {
        for f in CAPES_FIELDS {
            assert!(r.get(f).is_some(), "record lacks {f}: {r}");
        }
        assert_eq!(r["scene"], "capes");
        let cloths = r["cloths"].as_u64().unwrap();
        assert_eq!(r["particles"].as_u64().unwrap(), cloths * 120, "{r}");
        let ms = r["ms_per_frame_median"].as_f64().unwrap();
        assert!(ms > 0.0 && ms.is_finite(), "{r}");
        let rate = r["cloths_per_ms"].as_f64().unwrap();
        assert!(
            (rate - cloths as f64 / ms).abs() < 1e-9 * rate.max(1.0),
            "{r}"
        );
        let stretch = r["stretch_max"].as_f64().unwrap();
        assert!((1.0..1.5).contains(&stretch), "{r}");
        // Dispatches: one fused dispatch; the global path's per-pass schedule whatever the
        // count (integrate, the grid's colors, tethers; no collide: the scene has no collider);
        // separate, that schedule once per cape.
        let d = r["dispatches_per_frame"].as_u64().unwrap();
        let substeps = u64::from(SolverParams::default().substeps.count(1.0 / 60.0));
        // Auto: the path its trial kept, by the trial's own times (fused then global, ms).
        let path = match r["path"].as_str().unwrap() {
            "auto" => {
                let t = r["auto_trial_ms"].as_array().expect("auto's trial times");
                let (f, g) = (t[0].as_f64().unwrap(), t[1].as_f64().unwrap());
                assert!(f > 0.0 && g > 0.0, "{r}");
                let fused = r["cloth_paths"].get("fused (workgroup memory)").is_some()
                    || r["cloth_paths"].get("fused (storage)").is_some();
                if f != g {
                    assert_eq!(fused, f < g, "{r}");
                }
                if fused { "fused" } else { "global" }
            }
            p => {
                assert!(r["auto_trial_ms"].is_null(), "{r}");
                p
            }
        };
        match path {
            "fused" => assert_eq!(d, 1, "{r}"),
            "global" => assert_eq!(d, substeps * (GRID_COLORS + 2) + 1, "{r}"),
            "separate" => assert_eq!(d, cloths * (substeps * (GRID_COLORS + 2) + 1), "{r}"),
            p => panic!("unknown path {p}"),
        }
        // The shared fields come from the same place as the standard scene's.
        for f in [
            "gpu_stage_ms",
            "stretch_p99",
            "constraint_solves_per_s",
            "mean_y",
        ] {
            assert!(r.get(f).is_some(), "record lacks {f}: {r}");
        }
        assert_eq!(r["frames"], 3, "{r}");
        assert!(r["bytes_per_frame"].as_u64().unwrap() > 0, "{r}");
        // A world reports the path each cape took; lone solvers none.
        let taken: u64 = r["cloth_paths"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum();
        let expected = if r["path"] == "separate" { 0 } else { cloths };
        assert_eq!(taken, expected, "{r}");
        // A cape in workgroup memory moves only its records, multipliers and previous
        // positions from storage, and its positions once a frame.
        if r["cloth_paths"].get("fused (workgroup memory)").is_some() {
            let (m, p) = constraints_and_particles(r);
            assert_eq!(
                r["bytes_per_frame"].as_u64().unwrap(),
                substeps
                    * (m * (bench::BYTES_PER_WORKGROUP_SOLVE + bench::BYTES_PER_SHAKE_SOLVE)
                        + p * bench::BYTES_PER_WORKGROUP_INTEGRATE_STEP)
                    + p * bench::BYTES_PER_WORKGROUP_FRAME,
                "{r}"
            );
        }
    }
    // Every path solves the same capes: the same final shape on the CPU, bit for bit.
    let stretch_of = |path: &str, cloths: u64| {
        records
            .iter()
            .find(|r| r["backend"] == "cpu" && r["path"] == path && r["cloths"] == cloths)
            .unwrap()["stretch_max"]
            .as_f64()
            .unwrap()
    };
    for cloths in [1, 3] {
        assert_eq!(stretch_of("fused", cloths), stretch_of("separate", cloths));
        assert_eq!(stretch_of("global", cloths), stretch_of("separate", cloths));
        assert_eq!(stretch_of("auto", cloths), stretch_of("separate", cloths));
    }
    assert!(
        svg.contains("<svg") && svg.contains("number of capes"),
        "plot has no axes"
    );
}

/// Capes hanging at rest sleep once the warm-up outlasts the world's 60 sleep frames, and the
/// record counts them; with sleeping off none do, and the capes end where they would anyway.
#[test]
fn capes_at_rest_sleep_and_the_record_counts_them() {
    let args = [
        "--scene",
        "capes",
        "--cloths",
        "4",
        "--at-rest",
        "3",
        "--sleep",
        "on,off",
        "--cloth-size",
        "8x8",
        "--path",
        "fused",
        "--frames",
        "2",
        "--warmup",
        "61",
    ];
    let (backends, stdout, records, _) = bench_run("capes_at_rest_sleep", &args);
    assert_eq!(records.len(), backends * 2, "{records:?}");
    for r in &records {
        assert_eq!(r["at_rest"], 3, "{r}");
        let expected = if r["sleep"] == true { 3 } else { 0 };
        assert_eq!(r["asleep"], expected, "{r}");
    }
    assert!(stdout.contains("3/4") && stdout.contains("off"), "{stdout}");
    for b in ["cpu", "gpu"] {
        let stretch: Vec<&serde_json::Value> = records
            .iter()
            .filter(|r| r["backend"] == b)
            .map(|r| &r["stretch_max"])
            .collect();
        assert!(stretch.windows(2).all(|w| w[0] == w[1]), "{b}: {stretch:?}");
    }
}

/// `chiffon bench --scene capes --backend BACKEND EXTRA`.
fn capes<'a>(backend: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec!["bench", "--scene", "capes", "--backend", backend];
    v.extend_from_slice(extra);
    v
}

#[test]
fn bad_capes_flags_are_rejected() {
    for args in [
        capes("cpu", &["--cloths", "0"]),
        capes("cpu", &["--cloth-size", "32"]),
        capes("cpu", &["--cloth-size", "1x8"]),
        capes("cpu", &["--path", "sideways"]),
        vec!["bench", "--scene", "sky", "--backend", "cpu"],
        capes("cpu", &["--cloths", "4", "--at-rest", "5"]),
        capes("cpu", &["--sleep", "maybe"]),
        capes(
            "gpu",
            &[
                "--fused-workgroup-size",
                "3",
                "--cloths",
                "1",
                "--path",
                "fused",
            ],
        ),
    ] {
        let stderr = refused(&args);
        assert!(
            (stderr.contains("chiffon: error:") || stderr.contains("error: invalid value"))
                && !stderr.contains("panicked"),
            "{args:?}: {stderr}"
        );
    }
}

/// Runs `chiffon bench ARGS`, expects it to fail within a minute without having run a case (no
/// header, no table on stdout), and returns its stderr. The arguments ask for hours of work,
/// so a refusal that came after the run would be killed here and fail.
fn refused_before_running(args: &[&str]) -> String {
    let out = output_within(
        command().arg("bench").args(args),
        Duration::from_secs(60),
        Duration::from_millis(50),
    )
    .unwrap_or_else(|| panic!("{args:?} ran instead of being refused"));
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(!out.status.success(), "{args:?} succeeded");
    assert!(
        !stdout.contains("chiffon bench:") && !stdout.contains("ms med"),
        "{args:?} started running before refusing:\n{stdout}"
    );
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    stderr
}

/// Hours of benchmarking, if it ever ran.
const LONG: &[&str] = &["--backend", "cpu", "--sizes", "1024", "--frames", "10000"];

#[test]
fn bench_plot_and_json_paths_are_refused_before_the_run() {
    let dir = common::temp_dir("bench-paths");
    let file = |name: &str| dir.join(name).display().to_string();
    let missing = dir.join("no-such-folder");
    let cases: Vec<(String, String, &str)> = vec![
        ("--plot".into(), file("out.pdf"), ".svg or .png"),
        ("--plot".into(), file("out"), ".svg or .png"),
        (
            "--plot".into(),
            missing.join("out.svg").display().to_string(),
            "no folder",
        ),
        ("--json".into(), file("out.txt"), ".json"),
        (
            "--json".into(),
            missing.join("out.json").display().to_string(),
            "no folder",
        ),
        // /proc refuses new files, even to root.
        (
            "--json".into(),
            "/proc/chiffon-bench.json".into(),
            "cannot be written",
        ),
        (
            "--plot".into(),
            "/proc/chiffon-bench.png".into(),
            "cannot be written",
        ),
    ];
    for (flag, path, says) in &cases {
        let mut args = LONG.to_vec();
        args.extend([flag.as_str(), path.as_str()]);
        let stderr = refused_before_running(&args);
        assert!(
            stderr.contains(flag.as_str()) && stderr.contains(says),
            "{flag} {path}: {stderr}"
        );
    }
    // A folder named like a plot is not a file to write.
    let folder = dir.join("plot.svg");
    std::fs::create_dir_all(&folder).unwrap();
    let mut args = LONG.to_vec();
    let folder = folder.display().to_string();
    args.extend(["--plot", folder.as_str()]);
    assert!(refused_before_running(&args).contains("is a folder"));
    // Both outputs in one file.
    let same = file("out.json");
    let mut args = LONG.to_vec();
    args.extend(["--json", same.as_str(), "--plot", same.as_str()]);
    refused_before_running(&args);
    // The checks leave nothing behind.
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n != "plot.svg")
        .collect();
    assert!(left.is_empty(), "the path checks left {left:?}");
}

#[test]
fn frames_4294967295_and_negative_counts_get_a_clear_error_naming_the_flag() {
    for (args, flag) in [
        (&["--frames", "4294967295"][..], "--frames"),
        (&["--warmup", "4294967295"][..], "--warmup"),
        (&["--frames", "-5"][..], "--frames"),
        (&["--warmup", "-1"][..], "--warmup"),
        (&["--frames", "0"][..], "--frames"),
        (&["--sizes", "-64"][..], "--sizes"),
        (&["--sizes", "64,-64"][..], "--sizes"),
        (&["--scene", "capes", "--cloths", "-3"][..], "--cloths"),
    ] {
        let mut all = vec!["--backend", "cpu"];
        all.extend(args);
        let stderr = refused_before_running(&all);
        let first = stderr.lines().next().unwrap_or_default();
        assert!(
            first.contains(flag) && !stderr.contains("unexpected argument"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn flags_of_another_scene_are_refused_not_ignored() {
    for (args, flag) in [
        (&["--scene", "capes", "--sizes", "64"][..], "--sizes"),
        (&["--scene", "capes", "--no-bend"][..], "--no-bend"),
        (&["--cloths", "3"][..], "--cloths"),
        (&["--path", "fused"][..], "--path"),
        (&["--cloth-size", "8x8"][..], "--cloth-size"),
    ] {
        let mut all = vec!["--backend", "cpu"];
        all.extend(args);
        let stderr = refused_before_running(&all);
        assert!(
            stderr.contains(flag) && stderr.contains("--scene"),
            "{args:?}: {stderr}"
        );
    }
}

/// `--no-shear` or `--no-structural` beside `--membrane triangles` ran the triangles whole,
/// silently (each solves its stretch and shear together): now refused, naming the flag.
#[test]
fn one_membrane_kind_left_out_of_triangles_is_refused_not_ignored() {
    for flag in ["--no-shear", "--no-structural"] {
        let stderr = refused_before_running(&[
            "--backend",
            "cpu",
            "--sizes",
            "8",
            "--membrane",
            "triangles",
            flag,
        ]);
        assert!(
            stderr.contains(flag) && stderr.contains("--membrane triangles"),
            "{flag}: {stderr}"
        );
    }
}

/// `--colliders sphere,sphere` ran the sphere twice with no word (the hostile sweep of
/// 2026-12-07).
#[test]
fn a_collider_set_named_twice_is_refused_not_run_twice() {
    let stderr = refused_before_running(&[
        "--scene",
        "colliders",
        "--backend",
        "cpu",
        "--colliders",
        "sphere,box,sphere",
    ]);
    assert!(
        stderr.contains("--colliders names sphere twice (at 1 and 3)"),
        "{stderr}"
    );
}

#[test]
fn quick_presets_sizes_but_explicit_flags_win() {
    let dir = common::temp_dir("bench-quick");
    let json = dir.join("out.json");
    let out = command()
        .args([
            "bench",
            "--quick",
            "--backend",
            "cpu",
            "--sizes",
            "8",
            "--frames",
            "2",
        ])
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert_success(&out);
    let records: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0]["n"], 8);
    assert_eq!(records[0]["frames"], 2);
}
