//! Writing positions to disk: CSV (x,y,z a line) or Wavefront OBJ (with faces).

use std::io::Write;
use std::path::Path;

use glam::Vec3;

use crate::error::{ChiffonError, Result};

/// Writes `positions` to `path`, as CSV or OBJ by its extension (`triangles` go into the OBJ).
pub fn write_positions(path: &Path, positions: &[Vec3], triangles: &[[u32; 3]]) -> Result<()> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let io_err = |e| ChiffonError::Io {
        path: path.display().to_string(),
        source: e,
    };
    let mut text = String::with_capacity(positions.len() * 32);
    match ext.as_deref() {
        Some("csv") => {
            text.push_str("x,y,z\n");
            for p in positions {
                text.push_str(&format!("{},{},{}\n", p.x, p.y, p.z));
            }
        }
        Some("obj") => {
            text.push_str("# chiffon cloth\n");
            for p in positions {
                text.push_str(&format!("v {} {} {}\n", p.x, p.y, p.z));
            }
            for [a, b, c] in triangles {
                text.push_str(&format!("f {} {} {}\n", a + 1, b + 1, c + 1));
            }
        }
        _ => {
            return Err(ChiffonError::InvalidParameter {
                name: "output file",
                reason: format!("{} must end in .csv or .obj", path.display()),
            });
        }
    }
    let mut f = std::fs::File::create(path).map_err(io_err)?;
    f.write_all(text.as_bytes()).map_err(io_err)
}
