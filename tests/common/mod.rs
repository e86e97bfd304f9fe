//! Helpers shared by the integration tests.
#![allow(dead_code)]

use chiffon::{Backend, Cloth, ClothBuilder, GpuContext, Layout, Pinning};

#[cfg(feature = "tools")]
pub mod cli;

/// A GPU context, or `None` when no adapter exists. With `CHIFFON_REQUIRE_GPU=1` (as in CI) a
/// missing adapter fails the test instead; elsewhere the skip is announced loudly.
pub fn gpu(test: &str) -> Option<GpuContext> {
    match GpuContext::new() {
        Ok(ctx) => Some(ctx),
        Err(e) => {
            if std::env::var("CHIFFON_REQUIRE_GPU").is_ok_and(|v| v == "1") {
                panic!("{test}: CHIFFON_REQUIRE_GPU=1 but no GPU adapter: {e}");
            }
            announce(&format!(
                "\n!!!!!!!! SKIPPED {test}: no GPU adapter ({e}).\n\
                 !!!!!!!! Install mesa-vulkan-drivers or set CHIFFON_REQUIRE_GPU=1 to make this a failure.\n"
            ));
            None
        }
    }
}

/// The GPU context for the test named `$test`, or a return from the test where there is none
/// ([`gpu`] announces the skip, or fails the test with `CHIFFON_REQUIRE_GPU=1`).
#[allow(unused_macros)] // Like the helpers here, unused by some of the test crates.
macro_rules! gpu_or_return {
    ($test:expr) => {
        match crate::common::gpu($test) {
            Some(ctx) => ctx,
            None => return,
        }
    };
}
#[allow(unused_imports)]
pub(crate) use gpu_or_return;

/// The CPU reference and, where there is one, the GPU.
pub fn backends(ctx: &Option<GpuContext>) -> Vec<Backend<'_>> {
    [Some(Backend::Cpu), ctx.as_ref().map(Backend::Gpu)]
        .into_iter()
        .flatten()
        .collect()
}

/// Asserts that the GPU's positions `gpu` match the CPU twin's `cpu`: exactly on llvmpipe
/// (IEEE square roots and divisions, no fused multiply-adds, as the twins), else within the
/// conformance tolerance of a cloth of `size` (m). `what` names the run in the output.
pub fn assert_twins(
    ctx: &GpuContext,
    what: &str,
    gpu: &[glam::Vec3],
    cpu: &[glam::Vec3],
    size: f32,
) {
    let d = chiffon::conformance::deviation(gpu, cpu);
    eprintln!("{what}: GPU − CPU at most {:.3e} m", d.max_m);
    if ctx.info().name.to_lowercase().contains("llvmpipe") {
        assert_eq!(d.max_m, 0.0, "{what}: {d:?}");
    } else {
        assert!(
            d.max_m <= chiffon::conformance::LONG_RUN_TOLERANCE * size,
            "{what}: {d:?}"
        );
    }
}

/// A `columns`×`rows` grid as [`ClothBuilder::grid`] makes it by default, pinned by `pinning`.
pub fn pinned_grid(columns: u32, rows: u32, pinning: Pinning) -> Cloth {
    ClothBuilder::grid(columns, rows)
        .pinning(pinning)
        .build()
        .unwrap()
}

/// An `n`×`n` grid `width` wide, lying flat at `height`, pinned by `pinning`.
pub fn flat_sheet(n: u32, width: f32, height: f32, pinning: Pinning) -> Cloth {
    flat_grid(n, width / (n - 1) as f32, height, pinning)
}

/// An `n`×`n` grid with `spacing` between neighbours (m), lying flat at `height`, pinned by
/// `pinning`.
pub fn flat_grid(n: u32, spacing: f32, height: f32, pinning: Pinning) -> Cloth {
    ClothBuilder::grid(n, n)
        .spacing(spacing)
        .layout(Layout::Flat { height })
        .pinning(pinning)
        .build()
        .unwrap()
}

/// Whether a skip must be a failure: in CI (`CI` set, as CI services do, to anything but
/// `false` or `0`) or with `CHIFFON_REQUIRE_GPU=1` (what `.ci/run` exports).
pub fn skips_fail() -> bool {
    let ci = std::env::var("CI").is_ok_and(|v| !matches!(v.as_str(), "" | "false" | "0"));
    ci || std::env::var("CHIFFON_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

/// Whether `tool` (run with `--help`) can be started. When it cannot, this fails the test
/// where [`skips_fail`], and elsewhere announces the skip loudly and returns false.
pub fn tool(test: &str, tool: &str, install: &str) -> bool {
    if std::process::Command::new(tool)
        .arg("--help")
        .output()
        .is_ok()
    {
        return true;
    }
    if skips_fail() {
        panic!("{test}: {tool} is missing ({install}); in CI this is a failure, not a skip");
    }
    announce(&format!(
        "\n!!!!!!!! SKIPPED (part of) {test}: {tool} not found ({install}).\n\
         !!!!!!!! Set CHIFFON_REQUIRE_GPU=1 or CI=1 to make this a failure.\n"
    ));
    false
}

/// Writes a skip notice to the process's stderr itself: the test harness captures `eprintln!`
/// of a passing test, which would make the skip silent.
fn announce(notice: &str) {
    use std::io::Write;
    let _ = std::io::stderr().write_all(notice.as_bytes());
}

/// Makes a named pipe at `path` (replacing whatever is there), for the tests that check a pipe
/// given as a file is refused rather than waited on.
#[cfg(unix)]
pub fn make_fifo(path: &std::path::Path) {
    let _ = std::fs::remove_file(path);
    let made = std::process::Command::new("mkfifo").arg(path).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", path.display());
}

/// A folder of the test's own under the system's temporary one, `chiffon-NAME-PID`, made if
/// missing.
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("chiffon-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The path of a shipped asset (`assets/NAME`).
pub fn asset(name: &str) -> String {
    format!("{}/assets/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// `text` as UTF-16 with its byte order mark (as some Windows tools write OBJ files).
pub fn utf16_with_bom(text: &str, big_endian: bool) -> Vec<u8> {
    // The mark is U+FEFF in the text's own byte order.
    let order = if big_endian {
        u16::to_be_bytes
    } else {
        u16::to_le_bytes
    };
    std::iter::once(0xFEFF)
        .chain(text.encode_utf16())
        .flat_map(order)
        .collect()
}
