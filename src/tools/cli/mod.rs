//! The `chiffon` command line: its flags (clap) and subcommands. This is the edge of the
//! library: errors are `anyhow` here, and clap types stay here, out of the library's structs.

mod bench_args;
pub mod parse;
mod scene;
mod solver_args;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, anyhow, bail};
use clap::{Parser, Subcommand};
use serde_json::json;

use crate::conformance::{LONG_RUN_TOLERANCE, verdict};
use crate::export::{ObjSequence, write_positions};
use crate::tools::BackendKind as Backend;
use crate::tools::dt::Dts;
use crate::{GpuContext, Solver};

pub use bench_args::BenchArgs;
pub use scene::{ClothArgs, SceneArgs};
pub use solver_args::SolverArgs;

#[derive(Parser, Debug)]
#[command(
    name = "chiffon",
    version,
    about = "GPU compute cloth solver (wgpu + WGSL)",
    // Our own `help` subcommand, so that `chiffon help --help` works like every other.
    disable_help_subcommand = true
)]
/// The parsed command line.
pub struct Cli {
    /// Without a subcommand, chiffon opens the demo.
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Open the windowed demo (the default when no subcommand is given).
    #[command(allow_negative_numbers = true)]
    Demo {
        /// Cloth resolution N (N×N); default 256, or 64 on a CPU adapter.
        #[arg(long, value_parser = |s: &str| parse::count_u32(s, 2), allow_hyphen_values = true)]
        grid: Option<u32>,
        /// Run --frames frames of the default scene, write this PNG, and exit.
        #[arg(long)]
        screenshot: Option<PathBuf>,
        /// Frames before the screenshot.
        #[arg(long, default_value_t = 120, value_parser = |s: &str| parse::count_u32(s, 0),
              allow_hyphen_values = true)]
        frames: u32,
        /// Window and screenshot size, WIDTHxHEIGHT.
        #[arg(long, default_value = "1280x720", value_parser = parse::size,
              allow_hyphen_values = true)]
        size: (u32, u32),
        /// A mesh to show instead of the grid, with its pins and placement.
        #[command(flatten)]
        cloth: ClothArgs,
        /// Start with the air on and the wind blowing at this speed (m/s, the panel's heading).
        #[arg(long, value_parser = parse::number, allow_hyphen_values = true)]
        wind: Option<f32>,
        /// The scene: cloth (one cloth: the grid, or --mesh), flags (a field of flags in the
        /// wind, one world of many cloths), heap (a towel dropped by a corner folds onto itself
        /// on the floor, self-collision on), character (a cape on a walking figure of
        /// capsules) or table (a tablecloth dropped on a table). --grid sets the resolution of
        /// the towel, the cape and the tablecloth too.
        #[arg(long, default_value = "cloth")]
        scene: crate::tools::scenes::DemoScene,
        /// Self-collision (and collision between cloths) at the start: on or off (default:
        /// on for --scene heap, off for the others; the panel toggles it).
        #[arg(long, value_name = "on|off", value_parser = parse::on_off, allow_hyphen_values = true)]
        self_collision: Option<bool>,
        /// Flags per side of the flags scene (default 8, or 4 on a CPU adapter).
        #[arg(long, value_parser = |s: &str| parse::count_u32(s, 0), allow_hyphen_values = true)]
        flags: Option<u32>,
    },
    /// Print the adapter (name, backend, device type) and the limits that bound cloth size.
    Info,
    /// Run a scene and write the final positions (.csv or .obj), or an OBJ sequence.
    #[command(allow_negative_numbers = true)]
    Simulate {
        #[command(flatten)]
        scene: SceneArgs,
        /// Which solver runs the scene.
        #[arg(long, default_value = "gpu")]
        backend: Backend,
        /// Output: the final positions as .csv (x,y,z per line) or .obj (faces, UVs,
        /// normals), replacing an existing file; with --out-every, a new or empty folder for
        /// the OBJ sequence. Checked before the run; every file is written whole or not at all.
        #[arg(long, value_name = "PATH")]
        out: PathBuf,
        /// Write an OBJ every N frames into the --out folder: frame_0000.obj is the start,
        /// frame_0001.obj after N frames, ..., and the last frame always (after fewer than N
        /// frames when N does not divide --frames). For Blender or any DCC tool.
        #[arg(long, value_name = "N", value_parser = |s: &str| parse::count(s, 1),
              allow_hyphen_values = true)]
        out_every: Option<u64>,
        /// With --out-every: the --out folder may hold files; its frame_NNNN.obj files (an
        /// earlier sequence) are removed before the first frame is written, the others kept.
        #[arg(long)]
        overwrite: bool,
        /// Also write the cloth's energy after every frame as CSV: t (s), kinetic,
        /// gravitational, elastic and total (J), from Verlet's positions (elastic counts the
        /// compliant constraints; rigid ones hold none). Reads the state back every frame.
        #[arg(long, value_name = "FILE.csv")]
        energy: Option<PathBuf>,
    },
    /// Headless benchmark of the standard scene (same code as `cargo bench`).
    Bench {
        #[command(flatten)]
        args: BenchArgs,
    },
    /// Integrator study: point-mass problems with known solutions, and cloth frame-rate
    /// independence. Writes tables and plots into --out.
    Study {
        /// Output folder (created if missing; its parent must exist). Checked before the run.
        #[arg(long, value_name = "FOLDER")]
        out: PathBuf,
        /// Print the results as JSON on stdout.
        #[arg(long)]
        json: bool,
        /// Seed of the random dt sequences.
        #[arg(long, default_value_t = 1, value_parser = |s: &str| parse::count(s, 0),
              allow_hyphen_values = true)]
        seed: u64,
        /// Solver of the cloth experiment (the GPU falls back to the CPU when there is none).
        #[arg(long, default_value = "gpu")]
        cloth_backend: Backend,
    },
    /// Run a scene on both backends and report how far the GPU is from the CPU reference.
    #[command(allow_negative_numbers = true)]
    Conform {
        #[command(flatten)]
        scene: SceneArgs,
        /// Largest accepted deviation, as a fraction of the cloth size.
        #[arg(long, default_value_t = LONG_RUN_TOLERANCE, value_parser = parse::number,
              allow_hyphen_values = true)]
        tolerance: f32,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// Move the GPU run's cloth this far up (m) before the first step: a run made to
        /// differ by a known amount, to see `conform` fail (a check of the check, not physics).
        #[arg(long, default_value_t = 0.0, value_parser = parse::number,
              allow_hyphen_values = true)]
        perturb: f32,
    },
    /// Print the help of chiffon, or of one subcommand.
    Help {
        /// The subcommand to describe.
        command: Option<String>,
    },
}

/// Prints a command-line error the way chiffon prints every error, and returns its exit code.
/// A bad value is one line naming the flag and what it wants ("chiffon: error: --grid wants
/// COLUMNSxROWS ..."); other mistakes keep clap's tips. Help and version go to stdout as usual.
pub fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let code = ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return code;
    }
    let context = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => Some(s.as_str()),
        _ => None,
    };
    // "--grid <COLUMNSxROWS>": the flag, and the name of what it takes.
    let arg = context(ContextKind::InvalidArg).unwrap_or("");
    let (flag, value_name) = arg.split_once(' ').unwrap_or((arg, ""));
    let value = context(ContextKind::InvalidValue);
    let line = match (e.kind(), value) {
        (ErrorKind::InvalidValue, Some("")) if !flag.is_empty() => {
            let name = value_name.trim_matches(['<', '>']);
            format!("{flag} wants a value ({name})")
        }
        (ErrorKind::InvalidValue, Some(value)) if !flag.is_empty() => {
            let valid = match e.get(ContextKind::ValidValue) {
                Some(ContextValue::Strings(v)) => v.join(", "),
                _ => String::new(),
            };
            format!("{flag} wants one of {valid}, not {value:?}")
        }
        (ErrorKind::ValueValidation, _) if !flag.is_empty() => {
            let why = std::error::Error::source(&e)
                .map(|s| s.to_string())
                .unwrap_or_default();
            if why.starts_with("wants ") {
                format!("{flag} {why}")
            } else {
                format!("{flag}: {why}")
            }
        }
        _ => {
            // clap's own words: its first paragraph on one line, then its tips and usage.
            let text = e.render().to_string();
            let text = text.trim().strip_prefix("error: ").unwrap_or(text.trim());
            let (first, rest) = text.split_once("\n\n").unwrap_or((text, ""));
            let first: Vec<&str> = first.lines().map(str::trim).collect();
            eprintln!("chiffon: error: {}", first.join(" "));
            for l in rest.lines().filter(|l| !l.trim().is_empty()) {
                eprintln!("{l}");
            }
            return code;
        }
    };
    eprintln!("chiffon: error: {line}");
    code
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Result<ExitCode> {
    let command = match cli.command {
        Some(c) => c,
        // No subcommand: the demo with its defaults.
        None => Cli::parse_from(["chiffon", "demo"])
            .command
            .expect("demo parses"),
    };
    match command {
        Command::Demo {
            grid,
            screenshot,
            frames,
            size,
            cloth,
            wind,
            scene,
            self_collision,
            flags,
        } => {
            if let Some(n) = flags.filter(|n| !(1..=32).contains(n)) {
                anyhow::bail!("--flags {n} must be between 1 and 32 flags per side");
            }
            if let Some(w) = wind.filter(|w| !(*w >= 0.0 && *w <= 100.0)) {
                anyhow::bail!("--wind {w} must be a speed in m/s between 0 and 100");
            }
            if scene != crate::tools::scenes::DemoScene::Cloth && cloth.mesh.is_some() {
                anyhow::bail!(
                    "--mesh shows one cloth in --scene cloth; it does not go with --scene {scene}"
                );
            }
            if cloth.mesh.is_none() && cloth.any_placement() {
                anyhow::bail!(
                    "--pin, --scale, --translate, --mass, --density and --weld go with --mesh in \
                     the demo (its grid has its own panel)"
                );
            }
            let mesh = cloth.mesh_builder()?;
            if let Some(b) = &mesh {
                // Build once here so a bad mesh or pin fails before a window opens.
                b.clone().build()?;
            }
            #[cfg(feature = "demo")]
            crate::tools::demo::run(crate::tools::demo::DemoOptions {
                grid,
                mesh,
                scene,
                flags,
                wind,
                self_collision,
                screenshot,
                frames,
                size,
            })?;
            #[cfg(not(feature = "demo"))]
            {
                let _ = (
                    grid,
                    screenshot,
                    frames,
                    size,
                    mesh,
                    wind,
                    scene,
                    self_collision,
                    flags,
                );
                anyhow::bail!("this chiffon was built without the `demo` feature");
            }
            #[cfg(feature = "demo")]
            Ok(ExitCode::SUCCESS)
        }
        Command::Info => info(),
        Command::Study {
            out,
            json,
            seed,
            cloth_backend,
        } => study(&out, json, seed, cloth_backend),
        Command::Bench { args } => {
            args.run()?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Simulate {
            scene,
            backend,
            out,
            out_every,
            overwrite,
            energy,
        } => simulate(
            &scene,
            backend,
            &out,
            out_every,
            overwrite,
            energy.as_deref(),
        ),
        Command::Conform {
            scene,
            tolerance,
            json,
            perturb,
        } => conform(&scene, tolerance, json, perturb),
        Command::Help { command } => help(command.as_deref()),
    }
}

/// `chiffon help [COMMAND]`: the long help of chiffon or of one subcommand.
fn help(name: Option<&str>) -> Result<ExitCode> {
    let mut cli = <Cli as clap::CommandFactory>::command();
    // Gives each subcommand its full name ("chiffon simulate") for its usage line.
    cli.build();
    let Some(name) = name else {
        cli.print_long_help()?;
        return Ok(ExitCode::SUCCESS);
    };
    let names: Vec<String> = cli
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    match cli.find_subcommand_mut(name) {
        Some(sub) => sub.print_long_help()?,
        None => anyhow::bail!(
            "help: {name:?} is not a subcommand; they are {}",
            names.join(", ")
        ),
    }
    Ok(ExitCode::SUCCESS)
}

fn info() -> Result<ExitCode> {
    let ctx = GpuContext::new()?;
    let i = ctx.info();
    println!("adapter:      {}", i.name);
    println!("backend:      {:?}", i.backend);
    println!("device type:  {:?}", i.device_type);
    println!("driver:       {} {}", i.driver, i.driver_info);
    println!(
        "timestamps:   {}",
        if ctx.has_timestamps() { "yes" } else { "no" }
    );
    println!("limits that bound cloth size:");
    for (name, value) in ctx.limit_rows() {
        println!("  {name:<32} {value}");
    }
    Ok(ExitCode::SUCCESS)
}

fn study(out: &Path, as_json: bool, seed: u64, backend: Backend) -> Result<ExitCode> {
    check_folder(out, FolderUse::Study)?;
    let ctx = match backend {
        Backend::Cpu => None,
        Backend::Gpu => match GpuContext::new() {
            Ok(ctx) => Some(ctx),
            Err(e) => {
                warn(format!("{e}; running the cloth experiment on the CPU"));
                None
            }
        },
    };
    let report = crate::tools::study::run(seed, ctx.as_ref())?;
    let files = crate::tools::study::write_outputs(&report, out, seed)?;
    if as_json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", crate::tools::study::markdown(&report));
        println!(
            "\nwrote {} files to {}: {}",
            files.len(),
            out.display(),
            files.join(", ")
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// One warning on stderr: the run goes on.
fn warn(text: impl std::fmt::Display) {
    eprintln!("chiffon: warning: {text}");
}

/// Whether a folder can take new files: makes one (a uniquely named, empty file) and removes
/// it. Permission bits alone do not say (root, read-only mounts, ACLs).
fn probe_writable(dir: &Path) -> std::io::Result<()> {
    let probe = dir.join(format!(".chiffon-probe-{}", std::process::id()));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)?;
    std::fs::remove_file(&probe)
}

/// The folder a new file or folder `path` would go in: it must exist and take new files.
fn check_parent(flag: &str, path: &Path) -> Result<()> {
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
fn check_file(out: &Path) -> Result<()> {
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
enum FolderUse {
    /// An OBJ sequence; with `overwrite`, the folder may hold files.
    Sequence { overwrite: bool },
    /// The study's tables and plots (it replaces its own files).
    Study,
}

/// Checks that `--out` names a folder chiffon can fill, before the run: nothing is created.
fn check_folder(out: &Path, what: FolderUse) -> Result<()> {
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

/// The cloth, its parameters and its solver, with the warnings about the flags said once.
/// Also returns a line per mesh collider, saying what it became.
fn make_solver(scene: &SceneArgs, backend: Backend) -> Result<(Solver, Vec<String>)> {
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
fn note_missing_tethers(solver: &mut Solver) -> Result<()> {
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
fn describe_cloth(scene: &SceneArgs, cloth: &crate::Cloth) -> String {
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
        crate::tools::bench::describe_colors("coloring", &cloth.color_sizes())
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

fn simulate(
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
const ENERGY_HEADER: &str = "t_s,kinetic_j,gravitational_j,elastic_j,total_j\n";

/// Simulated time so far, and the energy log when one is kept.
struct Clock {
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
fn check_energy_file(path: &Path, out: &Path) -> Result<()> {
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
fn simulate_run(
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
fn write_sequence(
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
fn write_frame(solver: &mut Solver, seq: &mut ObjSequence) -> Result<()> {
    solver.health()?;
    let p = solver.positions()?;
    seq.write(solver.cloth(), &p)?;
    Ok(())
}

fn conform(scene: &SceneArgs, tolerance: f32, as_json: bool, perturb: f32) -> Result<ExitCode> {
    if tolerance <= 0.0 {
        bail!("--tolerance {tolerance} must be a positive fraction of the cloth size");
    }
    if perturb.abs() > crate::params::MAX_COORDINATE {
        bail!(
            "--perturb {perturb} m is farther than any coordinate chiffon takes ({} m)",
            crate::params::MAX_COORDINATE
        );
    }
    let dts = scene.dts()?;
    let frames = dts.remaining();
    let (mut gpu, colliders) = make_solver(scene, Backend::Gpu)?;
    if !as_json {
        println!("{}", describe_cloth(scene, gpu.cloth()));
        for line in colliders {
            println!("{line}");
        }
    }
    note_missing_tethers(&mut gpu)?;
    let mut cpu = Solver::new(crate::Backend::Cpu, gpu.cloth(), gpu.params().clone())?;
    if perturb != 0.0 {
        // The whole cloth, pins too, so the GPU's run is the reference's moved up by `perturb`
        // (to rounding): the deviation to expect is known. A pin moved by `set_particle` is
        // held, which is no tether anchor; `set_inverse_mass` makes it one again, as it was.
        let cloth = gpu.cloth().clone();
        let up = glam::Vec3::Y * perturb;
        for (k, (&at, &w)) in cloth
            .positions()
            .iter()
            .zip(cloth.inverse_masses())
            .enumerate()
        {
            gpu.set_particle(k, at + up, w)?;
            if w == 0.0 {
                gpu.set_inverse_mass(k, 0.0)?;
            }
        }
    }
    // In step: one dt at a time, whatever the frame count.
    for dt in dts {
        gpu.step(dt)?;
        cpu.step(dt)?;
    }
    gpu.health()?;
    cpu.health()?;
    let (g, c) = (gpu.positions()?, cpu.positions()?);
    let size = gpu.cloth().size();
    let v = verdict(&g, &c, size, tolerance);
    let (d, tolerance_m, pass) = (v.deviation, v.tolerance_m, v.pass);
    if as_json {
        let record = json!({
            "max_abs_deviation_m": d.max_m,
            "mean_abs_deviation_m": d.mean_m,
            "worst_particle": d.worst_particle,
            "tolerance_m": tolerance_m,
            "cloth_size_m": size,
            "frames": frames,
            "particles": gpu.cloth().particle_count(),
            "adapter": gpu.backend_name(),
            "pass": pass,
        });
        println!("{record}");
    } else {
        println!("adapter:             {}", gpu.backend_name());
        println!("frames:              {frames}");
        println!("cloth size:          {size:.4} m");
        println!(
            "max abs deviation:   {:.3e} m (particle {})",
            d.max_m, d.worst_particle
        );
        println!("mean abs deviation:  {:.3e} m", d.mean_m);
        println!("tolerance:           {tolerance_m:.3e} m ({tolerance} x cloth size)");
        println!(
            "{}",
            if pass {
                "PASS"
            } else {
                "FAIL: deviation over tolerance"
            }
        );
    }
    Ok(if pass {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
