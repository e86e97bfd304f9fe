//! `--screenshot`: the output checked before the run, then the scene drawn offscreen, read back
//! and written as PNG.

use std::fs::OpenOptions;
use std::io::ErrorKind;
use std::path::Path;

use anyhow::{Result, anyhow, bail};

use crate::gpu::GpuContext;
use crate::gpu::context::read_mapped;
use crate::view::render::{ClothMesh, Renderer, SceneView, Targets};

/// Refuses, before any frame is run, a screenshot that could not be written: a name not
/// ending in `.png`, a folder that does not exist, or a file or folder that cannot be written.
pub(crate) fn check_path(path: &Path) -> Result<()> {
    let shown = path.display();
    let png = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("png"));
    if !png {
        bail!("--screenshot {shown}: the screenshot is a PNG; give it a name ending in .png");
    }
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !folder.is_dir() {
        bail!(
            "--screenshot {shown}: the folder {} does not exist",
            folder.display()
        );
    }
    if path.is_dir() {
        bail!("--screenshot {shown} is a folder; name the PNG file to write");
    }
    // Opening a named pipe to write would wait for a reader, perhaps forever.
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        bail!("--screenshot {shown} is not a regular file (a pipe or a device)");
    }
    // Open it as the end of the run will: an existing file for writing (left as it is), or a
    // new one, removed again at once.
    let existed = path.exists();
    let opened = OpenOptions::new()
        .write(true)
        .create_new(!existed)
        .open(path);
    match opened {
        Ok(_) if existed => Ok(()),
        Ok(_) => std::fs::remove_file(path)
            .map_err(|e| anyhow!("--screenshot {shown}: cannot write a file there: {e}")),
        Err(e) if e.kind() == ErrorKind::PermissionDenied => {
            bail!("--screenshot {shown}: no permission to write there")
        }
        Err(e) => bail!("--screenshot {shown}: cannot write a file there: {e}"),
    }
}

/// Draws `scene` into an offscreen texture of `size` pixels in `format` and writes it to
/// `path` as PNG (RGBA, opaque).
pub(crate) fn save(
    gpu: &GpuContext,
    renderer: &mut Renderer,
    mesh: &ClothMesh,
    scene: &SceneView,
    format: wgpu::TextureFormat,
    size: (u32, u32),
    path: &Path,
) -> Result<()> {
    let device = &gpu.device;
    let extent = wgpu::Extent3d {
        width: size.0,
        height: size.1,
        depth_or_array_layers: 1,
    };
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("screenshot"),
        size: extent,
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let view = texture.create_view(&Default::default());
    let targets = Targets::new(device, format, size, renderer.samples());
    // Rows of a texture copy must be 256-byte aligned.
    let row = (size.0 * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("screenshot readback"),
        size: row as u64 * size.1 as u64,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    renderer.draw(
        device,
        &gpu.queue,
        &mut encoder,
        &targets,
        &view,
        mesh,
        scene,
    );
    encoder.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &readback,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(row),
                rows_per_image: Some(size.1),
            },
        },
        extent,
    );
    gpu.queue.submit([encoder.finish()]);
    let bytes: Vec<u8> = read_mapped(device, &readback)?;
    let rgba = to_rgba(&bytes, row as usize, size, format);
    crate::tools::png::write(path, size, crate::tools::png::Channels::Rgba, &rgba)
        .map_err(|e| anyhow!("--screenshot {}: {e}", path.display()))
}

/// Tightly packed opaque RGBA from rows of `row` bytes of an RGBA or BGRA texture.
fn to_rgba(bytes: &[u8], row: usize, size: (u32, u32), format: wgpu::TextureFormat) -> Vec<u8> {
    let bgra = matches!(
        format,
        wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb
    );
    let mut rgba = Vec::with_capacity((size.0 * size.1 * 4) as usize);
    for y in 0..size.1 as usize {
        for px in bytes[y * row..][..size.0 as usize * 4].chunks_exact(4) {
            let [r, g, b] = if bgra {
                [px[2], px[1], px[0]]
            } else {
                [px[0], px[1], px[2]]
            };
            rgba.extend_from_slice(&[r, g, b, 255]);
        }
    }
    rgba
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: `demo --screenshot missing/x.png` ran every frame, then failed writing.
    #[test]
    fn a_screenshot_into_a_missing_folder_is_refused_before_the_run() {
        let dir = std::env::temp_dir().join(format!("chiffon-no-such-{}", std::process::id()));
        let e = check_path(&dir.join("x.png")).unwrap_err().to_string();
        assert!(
            e.contains("does not exist") && e.contains("--screenshot"),
            "{e}"
        );
    }

    #[test]
    fn a_writable_screenshot_path_passes_and_leaves_nothing_behind() {
        let dir = std::env::temp_dir().join(format!("chiffon-shot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("x.png");
        check_path(&path).unwrap();
        assert!(!path.exists(), "the check made a file");
        std::fs::write(&path, b"old").unwrap();
        check_path(&path).unwrap();
        assert_eq!(
            std::fs::read(&path).unwrap(),
            b"old",
            "the check changed a file"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_screenshot_that_is_not_a_png_or_is_a_folder_is_refused() {
        let dir = std::env::temp_dir();
        let e = check_path(&dir.join("x.jpg")).unwrap_err().to_string();
        assert!(e.contains(".png"), "{e}");
        let folder = dir.join(format!("chiffon-folder-{}.png", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        let e = check_path(&folder).unwrap_err().to_string();
        assert!(e.contains("is a folder"), "{e}");
        std::fs::remove_dir_all(&folder).unwrap();
    }

    #[test]
    fn bgra_rows_become_packed_rgba() {
        // Two pixels per row, rows padded to 12 bytes.
        let bytes = [
            1, 2, 3, 9, 4, 5, 6, 9, 0, 0, 0, 0, //
            7, 8, 9, 9, 10, 11, 12, 9, 0, 0, 0, 0,
        ];
        let rgba = to_rgba(&bytes, 12, (2, 2), wgpu::TextureFormat::Bgra8UnormSrgb);
        assert_eq!(
            rgba,
            [3, 2, 1, 255, 6, 5, 4, 255, 9, 8, 7, 255, 12, 11, 10, 255]
        );
    }
}
