//! Where the command line writes: the checks that an output file or folder can be written
//! before a run starts, so a long run never fails at its end.

use std::path::Path;

use anyhow::{Result, anyhow, bail};

/// Whether a folder can take new files: makes one (a uniquely named, empty file) and removes
/// it. Permission bits alone do not say (root, read-only mounts, ACLs).
pub(super) fn probe_writable(dir: &Path) -> std::io::Result<()> {
    let probe = dir.join(format!(".chiffon-probe-{}", std::process::id()));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)?;
    std::fs::remove_file(&probe)
}

/// The folder a new file or folder `path` would go in: it must exist and take new files.
pub(super) fn check_parent(flag: &str, path: &Path) -> Result<()> {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    match std::fs::metadata(parent) {
        Err(e) => bail!(
            "{flag} {}: folder {}: {e}",
            path.display(),
            parent.display()
        ),
        Ok(m) if !m.is_dir() => bail!(
            "{flag} {}: {} is not a folder",
            path.display(),
            parent.display()
        ),
        Ok(_) => probe_writable(parent).map_err(|e| {
            anyhow!(
                "{flag} {}: cannot write in {}: {e}",
                path.display(),
                parent.display()
            )
        }),
    }
}

/// Checks that `--out` names a .csv or .obj file chiffon can write (a new one, or an existing
/// one it may replace), before the run: nothing is created.
pub(super) fn check_file(out: &Path) -> Result<()> {
    let shown = out.display();
    if out.as_os_str().is_empty() {
        bail!("--out wants a file ending in .csv or .obj");
    }
    let trailing_slash = out.as_os_str().to_string_lossy().ends_with(['/', '\\']);
    if trailing_slash || out.is_dir() {
        bail!(
            "--out {shown} is a folder; give a file ending in .csv or .obj, or add --out-every N for an OBJ sequence"
        );
    }
    if !matches!(
        out.extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref(),
        Some("csv" | "obj")
    ) {
        bail!("--out {shown} must end in .csv or .obj");
    }
    if let Ok(meta) = std::fs::metadata(out) {
        if !meta.is_file() {
            bail!("--out {shown} is not a regular file");
        }
        if meta.permissions().readonly() {
            bail!("--out {shown} is read-only");
        }
    }
    check_parent("--out", out)
}

/// What an output folder is for.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum FolderUse {
    /// An OBJ sequence; with `overwrite`, the folder may hold files.
    Sequence { overwrite: bool },
    /// The study's tables and plots (it replaces its own files).
    Study,
}

/// Checks that `--out` names a folder chiffon can fill, before the run: nothing is created.
pub(super) fn check_folder(out: &Path, what: FolderUse) -> Result<()> {
    let shown = out.display();
    if out.as_os_str().is_empty() {
        bail!("--out wants a folder");
    }
    let meta = match std::fs::metadata(out) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return check_parent("--out", out),
        Err(e) => bail!("--out {shown}: {e}"),
    };
    if !meta.is_dir() && !meta.is_file() {
        bail!("--out {shown} is not a folder but a pipe or a device; give a new or empty folder");
    }
    if !meta.is_dir() {
        match what {
            FolderUse::Study => {
                bail!("--out {shown} is a file; study writes a folder of tables and plots")
            }
            FolderUse::Sequence { .. } => bail!(
                "--out {shown} is a file; with --out-every it names the folder for frame_0000.obj, ..."
            ),
        }
    }
    if what == (FolderUse::Sequence { overwrite: false }) {
        let names: Vec<String> = std::fs::read_dir(out)
            .and_then(|d| {
                d.map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
                    .collect()
            })
            .map_err(|e| anyhow!("--out {shown}: {e}"))?;
        if !names.is_empty() {
            let mut names = names;
            names.sort();
            let more = if names.len() > 3 { ", ..." } else { "" };
            names.truncate(3);
            bail!(
                "--out {shown} is not empty ({}{more}); add --overwrite to replace the frame_NNNN.obj files of an earlier sequence (other files are kept), or give a new or empty folder",
                names.join(", ")
            );
        }
    }
    probe_writable(out).map_err(|e| anyhow!("--out {shown}: cannot write in it: {e}"))
}
