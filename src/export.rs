//! Writing a cloth's positions to disk: CSV (x,y,z a line) or Wavefront OBJ (faces, texture
//! coordinates and normals, so Blender or any DCC tool imports it, one file per frame for a
//! sequence).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use glam::Vec3;

use crate::cloth::Cloth;
use crate::cpu::cloth_normals;
use crate::error::{ChiffonError, Result};

/// Writes `positions` of `cloth` to `path`, as CSV or OBJ by its extension, atomically
/// ([`write_atomic`]).
pub fn write_positions(path: &Path, cloth: &Cloth, positions: &[Vec3]) -> Result<()> {
    // Positions from a caller (a binding's array) are checked here: the OBJ's normals index
    // them by the cloth's triangles.
    if positions.len() != cloth.particle_count() {
        return Err(ChiffonError::InvalidParameter {
            name: "positions",
            reason: format!(
                "{} positions for a cloth of {} particles",
                positions.len(),
                cloth.particle_count()
            ),
        });
    }
    for p in positions {
        crate::error::check_finite3("position", *p)?;
    }
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
    write_atomic(path, text.as_bytes())
}

fn io_error(path: &Path, error: std::io::Error) -> ChiffonError {
    ChiffonError::Io {
        path: path.display().to_string(),
        error,
    }
}

/// Writes `bytes` to `path` so that a reader (or a crash) sees the old file or the new one,
/// never half of one: into a temporary file in the same folder, flushed to disk, then renamed
/// over `path`. A symbolic link is followed (its target is replaced, not the link); an existing
/// file keeps its permissions; a read-only file, or one that is not a regular file (a device, a
/// pipe, a folder), is refused rather than replaced.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write as _;
    let mut target = path.to_path_buf();
    let mut permissions = None;
    if let Ok(meta) = std::fs::metadata(path) {
        if !meta.is_file() {
            return Err(io_error(
                path,
                std::io::Error::other(
                    "not a regular file; chiffon writes only files it can replace",
                ),
            ));
        }
        if meta.permissions().readonly() {
            return Err(io_error(
                path,
                std::io::Error::new(
                    std::io::ErrorKind::PermissionDenied,
                    "the file is read-only",
                ),
            ));
        }
        target = std::fs::canonicalize(path).map_err(|e| io_error(path, e))?;
        permissions = Some(meta.permissions());
    }
    let name = target
        .file_name()
        .ok_or_else(|| io_error(path, std::io::Error::other("names no file")))?;
    let mut temp_name = std::ffi::OsString::from(".");
    temp_name.push(name);
    temp_name.push(format!(".chiffon-{}.tmp", std::process::id()));
    let temp = target.with_file_name(temp_name);
    let written = (|| {
        let mut file = std::fs::File::create(&temp)?;
        file.write_all(bytes)?;
        if let Some(p) = permissions {
            file.set_permissions(p)?;
        }
        file.sync_all()?;
        std::fs::rename(&temp, &target)
    })();
    written.map_err(|e| {
        // Leave nothing behind; the error that matters is the write's.
        let _ = std::fs::remove_file(&temp);
        io_error(path, e)
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
/// Blender's and Houdini's sequence importers expect). A sequence never mixes with another:
/// [`ObjSequence::new`] wants a new or empty folder, [`ObjSequence::replace`] first removes the
/// frames of an earlier one (and only those).
pub struct ObjSequence {
    dir: PathBuf,
    written: usize,
}

impl ObjSequence {
    /// A sequence in `dir`, created if missing (its parent must exist); an existing `dir` must
    /// be empty.
    pub fn new(dir: &Path) -> Result<Self> {
        if let Some(first) = entries(dir)?.first() {
            return Err(io_error(
                dir,
                std::io::Error::new(
                    std::io::ErrorKind::DirectoryNotEmpty,
                    format!("the folder is not empty (it holds {first:?})"),
                ),
            ));
        }
        Self::create(dir)
    }

    /// A sequence in `dir`, created if missing, after removing the files of an earlier sequence
    /// there (`frame_NNNN.obj`, see [`ObjSequence::is_frame_name`]); other files are kept.
    pub fn replace(dir: &Path) -> Result<Self> {
        for name in entries(dir)? {
            if Self::is_frame_name(&name) {
                let path = dir.join(&name);
                std::fs::remove_file(&path).map_err(|e| io_error(&path, e))?;
            }
        }
        Self::create(dir)
    }

    fn create(dir: &Path) -> Result<Self> {
        match std::fs::create_dir(dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && dir.is_dir() => {}
            Err(e) => return Err(io_error(dir, e)),
        }
        Ok(Self {
            dir: dir.to_path_buf(),
            written: 0,
        })
    }

    /// Whether `name` is one of a sequence's files: `frame_` then at least four digits, `.obj`.
    pub fn is_frame_name(name: &str) -> bool {
        name.strip_prefix("frame_")
            .and_then(|n| n.strip_suffix(".obj"))
            .is_some_and(|n| n.len() >= 4 && n.bytes().all(|b| b.is_ascii_digit()))
    }

    /// Writes the next file (atomically) and returns its path.
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

/// The names in folder `dir`, sorted; none when it does not exist.
fn entries(dir: &Path) -> Result<Vec<String>> {
    let list = match std::fs::read_dir(dir) {
        Ok(list) => list,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_error(dir, e)),
    };
    let mut names = list
        .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<std::io::Result<Vec<_>>>()
        .map_err(|e| io_error(dir, e))?;
    names.sort();
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("chiffon-export-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// Regression (issue 22): writes went straight to the file, so a crash or a full disk left
    /// half a file where the previous one was.
    #[test]
    fn writes_are_atomic_and_leave_no_temporary_file() {
        let dir = scratch("atomic");
        let path = dir.join("out.csv");
        write_atomic(&path, b"old").unwrap();
        write_atomic(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        let names = entries(&dir).unwrap();
        assert_eq!(names, ["out.csv"], "a temporary file was left behind");
        // A failed write keeps the old file and leaves nothing else.
        assert!(write_atomic(&dir.join("missing/out.csv"), b"x").is_err());
        assert!(
            write_atomic(&dir, b"x").is_err(),
            "a folder is not replaced"
        );
        assert_eq!(entries(&dir).unwrap(), ["out.csv"]);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_sequence_never_mixes_with_another() {
        let dir = scratch("seq");
        std::fs::write(dir.join("frame_0007.obj"), "old").unwrap();
        std::fs::write(dir.join("notes.txt"), "mine").unwrap();
        assert!(ObjSequence::new(&dir).is_err());
        let seq = ObjSequence::replace(&dir).unwrap();
        assert!(seq.is_empty());
        assert_eq!(entries(&dir).unwrap(), ["notes.txt"]);
        assert!(ObjSequence::is_frame_name("frame_12345.obj"));
        assert!(!ObjSequence::is_frame_name("frame_12.obj"));
        assert!(!ObjSequence::is_frame_name("frame_0001.obj.bak"));
        std::fs::remove_dir_all(&dir).ok();
    }
}
