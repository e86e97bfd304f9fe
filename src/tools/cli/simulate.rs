//! `chiffon simulate`: the cloth's solver from the flags, the run, and its outputs (an OBJ, a
//! sequence of them, an energy log).

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};

use super::output::{FolderUse, check_file, check_folder, check_parent};
use super::{SceneArgs, warn};
use crate::export::{ObjSequence, write_positions};
use crate::tools::BackendKind as Backend;
use crate::tools::dt::Dts;
use crate::{GpuContext, Solver};

/// The cloth, its parameters and its solver, with the warnings about the flags said once.
/// Also returns a line per mesh collider, saying what it became.
pub(super) fn make_solver(scene: &SceneArgs, backend: Backend) -> Result<(Solver, Vec<String>)> {
    let cloth = scene.cloth()?;
    let (params, colliders) = scene.params_described()?;
    for w in scene.warnings(&cloth, &params) {
        warn(w);
    }
    let ctx = match backend {
        Backend::Gpu => Some(GpuContext::new()?),
        Backend::Cpu => None,
    };
    Ok((
        Solver::new(backend.on(ctx.as_ref())?, &cloth, params)?,
        colliders,
    ))
}

/// Says once, on stderr, that tethers were asked for but there are none to make: no pinned
/// particle, or no free particle connected to one. (Every particle pinned is a warning of its
/// own, [`SceneArgs::warnings`].)
pub(super) fn note_missing_tethers(solver: &mut Solver) -> Result<()> {
    if solver.params().tethers.is_none() || !solver.tethers()?.is_empty() {
        return Ok(());
    }
    let cloth = solver.cloth();
    let n = cloth.particle_count();
    let pinned = (0..n).filter(|&i| cloth.is_pinned(i)).count();
    if pinned == 0 {
        eprintln!("chiffon: note: tethers are on but the cloth has no pinned particle; no tethers");
    } else if pinned < n {
        eprintln!(
            "chiffon: note: tethers are on but no free particle is connected to a pinned one; no tethers"
        );
    }
    Ok(())
}

/// Says what the cloth is: its size, coloring, and what building it from a mesh found.
pub(super) fn describe_cloth(scene: &SceneArgs, cloth: &crate::Cloth) -> String {
    let what = match (&scene.cloth.mesh, cloth.grid()) {
        (Some(path), _) => format!("mesh {}", path.display()),
        (None, Some(g)) => format!("{}x{} grid", g.columns, g.rows),
        (None, None) => "cloth".to_string(),
    };
    let mut text = format!(
        "{what}: {} particles ({} pinned), {} constraints, {} triangles\n{}",
        cloth.particle_count(),
        (0..cloth.particle_count())
            .filter(|&i| cloth.is_pinned(i))
            .count(),
        cloth.constraint_count(),
        cloth.triangles().len(),
        crate::tools::bench::describe_colors(
            "coloring",
            &cloth.color_sizes(),
            cloth.colored().serial_colors(),
        )
    );
    let st = cloth.mesh_stats();
    if scene.cloth.mesh.is_some() {
        text += &format!(
            "\nmesh: welded {} vertices, dropped {} degenerate triangles and {} unused vertices, {} boundary edges",
            st.welded_vertices, st.degenerate_triangles, st.unused_vertices, st.boundary_edges
        );
    }
    for note in st.notes() {
        text += &format!("\nchiffon: note: {note}");
    }
    text
}

pub(super) fn simulate(
    scene: &SceneArgs,
    backend: Backend,
    out: &Path,
    out_every: Option<u64>,
    overwrite: bool,
    energy: Option<&Path>,
) -> Result<ExitCode> {
    // Check the outputs before spending time on the run; nothing is created yet.
    if let Some(path) = energy {
        check_energy_file(path, out)?;
    }
    match out_every {
        Some(_) => {
            if out.extension().is_some_and(|e| e == "obj" || e == "csv") {
                bail!(
                    "--out {} names a file, but with --out-every it is the folder for frame_0000.obj, ...",
                    out.display()
                );
            }
            check_folder(out, FolderUse::Sequence { overwrite })?;
        }
        None => {
            if overwrite {
                warn(
                    "--overwrite does nothing without --out-every (a single --out file is always replaced)",
                );
            }
            check_file(out)?
        }
    }
    let mut dts = scene.dts()?;
    let frames = dts.remaining();
    let (mut solver, colliders) = make_solver(scene, backend)?;
    println!("{}", describe_cloth(scene, solver.cloth()));
    for line in colliders {
        println!("{line}");
    }
    note_missing_tethers(&mut solver)?;
    let start = Instant::now();
    let mut clock = Clock {
        cloth_time: 0.0,
        energy: energy.map(|_| String::from(ENERGY_HEADER)),
    };
    let run = simulate_run(&mut solver, &mut dts, out, out_every, overwrite, &mut clock);
    // The energy log is written whether or not the run finished: up to a divergence is
    // when it is most wanted.
    if let (Some(path), Some(csv)) = (energy, &clock.energy) {
        crate::export::write_atomic(path, csv.as_bytes()).context("--energy")?;
    }
    let written = run?;
    let energy_note = energy.map_or(String::new(), |p| format!(" and {}", p.display()));
    println!(
        "simulated {frames} frames ({:.3} s of cloth time) on {} in {:.2} s; wrote {written}{energy_note}",
        clock.cloth_time,
        solver.backend_name(),
        start.elapsed().as_secs_f64(),
    );
    Ok(ExitCode::SUCCESS)
}

/// The energy CSV's header line.
pub(super) const ENERGY_HEADER: &str = "t_s,kinetic_j,gravitational_j,elastic_j,total_j\n";

/// Simulated time so far, and the energy log when one is kept.
pub(super) struct Clock {
    cloth_time: f64,
    energy: Option<String>,
}

impl Clock {
    /// One frame of `dt`, then its energy when logged.
    fn step(&mut self, solver: &mut Solver, dt: f64) -> Result<()> {
        solver.step(dt)?;
        self.cloth_time += dt;
        if let Some(csv) = &mut self.energy {
            let e = solver.energy()?;
            csv.push_str(&format!(
                "{:.6},{:.9e},{:.9e},{:.9e},{:.9e}\n",
                self.cloth_time,
                e.kinetic,
                e.gravitational,
                e.elastic,
                e.total()
            ));
        }
        Ok(())
    }
}

/// Checks `--energy`: a .csv file that is not `--out`.
pub(super) fn check_energy_file(path: &Path, out: &Path) -> Result<()> {
    let shown = path.display();
    if path.is_dir()
        || !path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("csv"))
    {
        bail!("--energy {shown} must be a file ending in .csv");
    }
    if path == out {
        bail!("--energy {shown} is also --out; give them different files");
    }
    // What the run would write into, checked now: a symbolic link is followed, as the write
    // follows it (to a device such as /dev/full, the write would fail after the run).
    if let Ok(meta) = std::fs::metadata(path) {
        if !meta.is_file() {
            bail!(
                "--energy {shown} is not a regular file (a device, a pipe); chiffon writes the \
                 log to a temporary file and renames it over the target, which needs a file"
            );
        }
        if meta.permissions().readonly() {
            bail!("--energy {shown} is read-only");
        }
    }
    // The temporary file goes beside the link's target, so that folder must take it.
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    check_parent("--energy", &target)
}

/// The run of `simulate`: the frames, and what they write; returns what was written.
pub(super) fn simulate_run(
    solver: &mut Solver,
    dts: &mut Dts,
    out: &Path,
    out_every: Option<u64>,
    overwrite: bool,
    clock: &mut Clock,
) -> Result<String> {
    let frames = dts.remaining();
    Ok(match out_every {
        Some(every) => {
            let created = !out.exists();
            let run = write_sequence(solver, dts, out, every, overwrite, clock);
            if run.is_err() && created {
                // A failed run leaves no empty folder behind (remove_dir keeps a full one).
                let _ = std::fs::remove_dir(out);
            }
            let files = run?;
            let each = match every {
                1 => "every frame".to_string(),
                n => format!("one every {n} frames"),
            };
            let last = if frames.is_multiple_of(every) {
                String::new()
            } else {
                format!(", and the last, after {frames} frames")
            };
            format!(
                "{files} OBJ files in {} (the start, then {each}{last})",
                out.display()
            )
        }
        None => {
            for dt in dts {
                clock.step(solver, dt)?;
            }
            // The GPU's flag lags a frame or two: ask now, before anything is written.
            solver.health()?;
            let positions = solver.positions()?;
            write_positions(out, solver.cloth(), &positions)?;
            out.display().to_string()
        }
    })
}

/// Runs `dts`, writing the start, every `every`-th frame and the last into the folder `out`;
/// returns the number of files. Each write first asks the solver's health now, so a diverged
/// frame is never written.
pub(super) fn write_sequence(
    solver: &mut Solver,
    dts: &mut Dts,
    out: &Path,
    every: u64,
    overwrite: bool,
    clock: &mut Clock,
) -> Result<usize> {
    let mut seq = if overwrite {
        ObjSequence::replace(out)?
    } else {
        ObjSequence::new(out)?
    };
    write_frame(solver, &mut seq)?;
    let mut since_written = 0;
    while let Some(dt) = dts.next() {
        clock.step(solver, dt)?;
        since_written += 1;
        if since_written == every || dts.remaining() == 0 {
            write_frame(solver, &mut seq)?;
            since_written = 0;
        }
    }
    Ok(seq.len())
}

/// Writes the solver's positions as the sequence's next file, once the solver says (now, not
/// a frame or two late as the GPU's flag) that they are healthy.
pub(super) fn write_frame(solver: &mut Solver, seq: &mut ObjSequence) -> Result<()> {
    solver.health()?;
    let p = solver.positions()?;
    seq.write(solver.cloth(), &p)?;
    Ok(())
}
