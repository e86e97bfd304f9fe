//! The demo's screenshot mode, run in a real window under Xvfb with the real renderer.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::cli::{command, failed};

/// Whether `xvfb-run` is there; its absence fails the test in CI (see `common::tool`).
fn xvfb_run(test: &str) -> bool {
    common::tool(test, "xvfb-run", "apt-get install xvfb")
}

/// Runs `chiffon demo ARGS` under `xvfb-run`, or returns `None` (loudly) where that cannot work.
fn demo(test: &str, args: &[&str]) -> Option<Output> {
    common::gpu(test)?;
    if !xvfb_run(test) {
        return None;
    }
    Some(
        Command::new("xvfb-run")
            .args(["-a", "-s", "-screen 0 1600x1000x24"])
            .arg(env!("CARGO_BIN_EXE_chiffon"))
            .arg("demo")
            .args(args)
            .output()
            .unwrap(),
    )
}

/// Runs `chiffon ARGS` with no display at all (neither X11 nor Wayland).
fn without_display(args: &[&str]) -> Output {
    command()
        .args(args)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap()
}

/// A decoded screenshot: RGBA rows, top to bottom.
struct Picture {
    size: (u32, u32),
    rgba: Vec<[u8; 4]>,
}

impl Picture {
    /// Reads an 8-bit RGBA PNG (what `--screenshot` writes).
    fn open(path: &Path) -> Picture {
        let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
        let mut reader = png::Decoder::new(file).read_info().unwrap();
        let mut bytes = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut bytes).unwrap();
        assert_eq!(
            (info.color_type, info.bit_depth),
            (png::ColorType::Rgba, png::BitDepth::Eight),
            "{}",
            path.display()
        );
        let rgba = bytes[..info.buffer_size()]
            .chunks_exact(4)
            .map(|p| [p[0], p[1], p[2], p[3]])
            .collect();
        Picture {
            size: (info.width, info.height),
            rgba,
        }
    }

    /// (x, y, pixel), row by row.
    fn enumerate_pixels(&self) -> impl Iterator<Item = (u32, u32, &[u8; 4])> {
        let width = self.size.0;
        self.rgba
            .iter()
            .enumerate()
            .map(move |(i, p)| (i as u32 % width, i as u32 / width, p))
    }
}

fn screenshot(test: &str, dir: &Path, frames: u32) -> Option<Picture> {
    let path: PathBuf = dir.join(format!("frame{frames}.png"));
    let frames = frames.to_string();
    let out = demo(
        test,
        &[
            "--screenshot",
            path.to_str().unwrap(),
            "--frames",
            &frames,
            "--size",
            "640x360",
        ],
    )?;
    assert!(
        out.status.success(),
        "demo failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Some(Picture::open(&path))
}

/// Pixels of the cloth's red checker squares: red well above green and blue.
fn cloth_pixels(img: &Picture) -> Vec<(u32, u32)> {
    img.enumerate_pixels()
        .filter(|(_, _, p)| p[0] as i32 > p[1] as i32 + 60 && p[0] as i32 > p[2] as i32 + 60)
        .map(|(x, y, _)| (x, y))
        .collect()
}

#[test]
fn screenshot_shows_the_cloth_falling() {
    let test = "screenshot_shows_the_cloth_falling";
    let dir = common::temp_dir("demo");
    let Some(first) = screenshot(test, &dir, 1) else {
        return;
    };
    let last = screenshot(test, &dir, 120).unwrap();
    for img in [&first, &last] {
        assert_eq!(img.size, (640, 360));
    }
    let total = (640 * 360) as f64;
    // The cloth is in the picture.
    let (red_first, red_last) = (cloth_pixels(&first), cloth_pixels(&last));
    assert!(
        red_first.len() as f64 > 0.01 * total,
        "no cloth at frame 1: {} red pixels",
        red_first.len()
    );
    assert!(
        red_last.len() as f64 > 0.01 * total,
        "no cloth at frame 120: {} red pixels",
        red_last.len()
    );
    // Not a blank or uniform frame: a real fraction differs from the background color.
    let bg = last.rgba[2 * 640 + 2];
    let non_bg = last.rgba.iter().filter(|p| **p != bg).count() as f64;
    assert!(
        non_bg > 0.2 * total,
        "mostly background: {non_bg} of {total} pixels differ"
    );
    // The cloth moved: its pixels are not where they were at frame 1.
    let moved = first
        .rgba
        .iter()
        .zip(&last.rgba)
        .filter(|(a, b)| {
            a.iter()
                .zip(b.iter())
                .any(|(x, y)| (*x as i32 - *y as i32).abs() > 24)
        })
        .count() as f64;
    assert!(
        moved > 0.02 * total,
        "the cloth region barely changed: {moved} pixels"
    );
    let centroid = |px: &[(u32, u32)]| px.iter().map(|p| p.1 as f64).sum::<f64>() / px.len() as f64;
    // It fell: its red squares sit lower in the image (y grows downwards).
    assert!(centroid(&red_last) > centroid(&red_first) + 5.0);
}

/// The many-cloths scene: every flag of one world is drawn from the world's buffers.
#[test]
fn the_flags_scene_draws_every_flag_of_the_world() {
    let test = "the_flags_scene_draws_every_flag_of_the_world";
    let path = std::env::temp_dir().join(format!("chiffon-flags-{}.png", std::process::id()));
    let Some(out) = demo(
        test,
        &[
            "--scene",
            "flags",
            "--flags",
            "3",
            "--screenshot",
            path.to_str().unwrap(),
            "--frames",
            "30",
            "--size",
            "640x360",
        ],
    ) else {
        return;
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("9 cloth(s) of 5760 particles"), "{stdout}");
    let img = Picture::open(&path);
    let red = cloth_pixels(&img);
    assert!(red.len() > 2000, "{} flag pixels", red.len());
    // Three columns of flags: red pixels in the left, middle and right of the picture.
    for third in 0..3 {
        let (lo, hi) = (third * 640 / 3, (third + 1) * 640 / 3);
        assert!(
            red.iter().filter(|p| (lo..hi).contains(&p.0)).count() > 200,
            "no flag in horizontal third {third}"
        );
    }
}

#[test]
fn demo_without_an_adapter_or_display_fails_clearly() {
    let test = "demo_without_an_adapter_or_display_fails_clearly";
    if common::gpu(test).is_none() {
        return;
    }
    // No display at all: a clear error, not a panic.
    let out = without_display(&["demo", "--screenshot", "/tmp/never.png"]);
    let stderr = failed(&out);
    assert!(
        stderr.contains("cannot open a window") && !stderr.contains("panicked"),
        "{stderr}"
    );
    // Regression: winit's error carried its source path in the cargo registry.
    assert!(
        !stderr.contains(".cargo") && !stderr.contains("registry") && !stderr.contains(".rs:"),
        "{stderr}"
    );

    // A display but no matching adapter.
    if !xvfb_run(test) {
        return;
    }
    let out = Command::new("xvfb-run")
        .args(["-a"])
        .arg(env!("CARGO_BIN_EXE_chiffon"))
        .args(["demo", "--screenshot", "/tmp/never.png"])
        .env("WGPU_ADAPTER_NAME", "no-such-adapter")
        .output()
        .unwrap();
    let stderr = failed(&out);
    assert!(
        stderr.contains("no-such-adapter") && !stderr.contains("panicked"),
        "{stderr}"
    );
}

/// Regression: `--screenshot` into a missing folder ran every frame, then failed writing. It
/// is refused first, in one line, before a window is asked for (so without a display too).
#[test]
fn a_screenshot_into_a_missing_folder_is_refused_before_the_run() {
    let missing = std::env::temp_dir().join(format!("chiffon-missing-{}", std::process::id()));
    let path = missing.join("shot.png");
    let out = without_display(&[
        "demo",
        "--frames",
        "100000",
        "--screenshot",
        path.to_str().unwrap(),
    ]);
    let stderr = failed(&out);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("--screenshot") && stderr.contains("does not exist"),
        "{stderr}"
    );
    assert!(!missing.exists());
}
