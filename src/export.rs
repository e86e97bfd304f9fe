//! Writing a cloth's positions to disk: CSV (x,y,z a line) or Wavefront OBJ (faces, texture
//! coordinates and normals, so Blender or any DCC tool imports it, one file per frame for a
//! sequence).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use glam::Vec3;

use crate::cloth::Cloth;
use crate::cpu::cloth_normals;
use crate::error::{ChiffonError, Result};

/// Writes `positions` of `cloth` to `path`, as CSV or OBJ by its extension.
pub fn write_positions(path: &Path, cloth: &Cloth, positions: &[Vec3]) -> Result<()> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let text = match ext.as_deref() {
        Some("csv") => {
            let mut text = String::with_capacity(positions.len() * 32 + 8);
            text.push_str("x,y,z\n");
            for p in positions {
                let _ = writeln!(text, "{},{},{}", p.x, p.y, p.z);
            }
            text
        }
        Some("obj") => obj_text(cloth, positions),
        _ => {
            return Err(ChiffonError::InvalidParameter {
                name: "output file",
                reason: format!("{} must end in .csv or .obj", path.display()),
            });
        }
    };
    std::fs::write(path, text).map_err(|e| ChiffonError::Io {
        path: path.display().to_string(),
        error: e,
    })
}

/// The OBJ text of `cloth` at `positions`: `v` per particle, `vt` per texture coordinate (when
/// the cloth has them), `vn` per particle (area-weighted, as the demo draws them), and
/// `f v/vt/vn` (or `v//vn`) per triangle; a rope (no triangles) is written as `l` lines.
pub fn obj_text(cloth: &Cloth, positions: &[Vec3]) -> String {
    let mut text = String::with_capacity(positions.len() * 80 + cloth.triangles().len() * 40);
    text.push_str("# chiffon cloth\n");
    for p in positions {
        let _ = writeln!(text, "v {} {} {}", p.x, p.y, p.z);
    }
    if let Some(uv) = cloth.uvs() {
        for t in &uv.uvs {
            let _ = writeln!(text, "vt {} {}", t.x, t.y);
        }
    }
    for n in cloth_normals(cloth, positions) {
        let _ = writeln!(text, "vn {} {} {}", n.x, n.y, n.z);
    }
    match cloth.uvs() {
        Some(uv) => {
            for (t, u) in cloth.triangles().iter().zip(&uv.triangles) {
                let [a, b, c] = t.map(|v| v + 1);
                let [ua, ub, uc] = u.map(|v| v + 1);
                let _ = writeln!(text, "f {a}/{ua}/{a} {b}/{ub}/{b} {c}/{uc}/{c}");
            }
        }
        None => {
            for t in cloth.triangles() {
                let [a, b, c] = t.map(|v| v + 1);
                let _ = writeln!(text, "f {a}//{a} {b}//{b} {c}//{c}");
            }
        }
    }
    if cloth.triangles().is_empty() {
        for c in cloth.structural_constraints() {
            let _ = writeln!(text, "l {} {}", c.i + 1, c.j + 1);
        }
    }
    text
}

/// A numbered OBJ sequence in a folder: `frame_0000.obj`, `frame_0001.obj`, ... (the names
/// Blender's and Houdini's sequence importers expect).
pub struct ObjSequence {
    dir: PathBuf,
    written: usize,
}

impl ObjSequence {
    /// A sequence in `dir`, created if missing.
    pub fn new(dir: &Path) -> Result<Self> {
        std::fs::create_dir_all(dir).map_err(|e| ChiffonError::Io {
            path: dir.display().to_string(),
            error: e,
        })?;
        Ok(Self {
            dir: dir.to_path_buf(),
            written: 0,
        })
    }

    /// Writes the next file and returns its path.
    pub fn write(&mut self, cloth: &Cloth, positions: &[Vec3]) -> Result<PathBuf> {
        let path = self.dir.join(format!("frame_{:04}.obj", self.written));
        write_positions(&path, cloth, positions)?;
        self.written += 1;
        Ok(path)
    }

    /// Files written so far.
    pub fn len(&self) -> usize {
        self.written
    }

    /// Whether nothing was written yet.
    pub fn is_empty(&self) -> bool {
        self.written == 0
    }
}
