//! The conformance page: each scene stepped for N frames on the browser's GPU (WebGPU) and on
//! the CPU reference compiled to wasm, with the same random frame times, then compared as the
//! native tests compare them (`tests/conformance.rs`, `tests/world.rs`): every cloth within
//! [`LONG_RUN_TOLERANCE`] of its size.

use chiffon::conformance::{LONG_RUN_TOLERANCE, deviation};
use chiffon::world::{ClothPath, PathChoice};
use chiffon::{
    Backend, Cloth, ClothBuilder, ClothHandle, ClothOptions, Collider, GpuContext, Layout, Pinning,
    Result, Solver, SolverParams, World, WorldConfig,
};
use glam::{Affine3A, Quat, Vec3};
use wasm_bindgen::prelude::*;

/// One scene's comparison.
struct Outcome {
    scene: &'static str,
    /// The path the cloths took on the GPU: `global`, or `fused` (the world's small cloths).
    path: &'static str,
    particles: usize,
    /// Largest distance between a GPU particle and its CPU twin (m).
    max_deviation_m: f32,
    /// Particles of the CPU run touching a collider at the end (within its thickness), per
    /// collider, so the report says whether the scene tested contact.
    contacts: Vec<(&'static str, usize)>,
    /// Milliseconds the CPU reference's steps took (the rest is the GPU's, and setup).
    cpu_ms: f64,
    /// Each cloth's deviation against its own tolerance (m), for the verdict's message.
    cloths: Vec<(f32, f32)>,
}

impl Outcome {
    fn pass(&self) -> bool {
        self.cloths.iter().all(|&(d, limit)| d <= limit)
    }
}

/// Frame times as the native tests draw them: uniform in [1/144, 1/30] s, from a fixed seed
/// (xorshift64*, so the page needs no rand crate).
fn random_dts(frames: u32, seed: u64) -> Vec<f64> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..frames)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            let u = (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64;
            1.0 / 144.0 + u * (1.0 / 30.0 - 1.0 / 144.0)
        })
        .collect()
}

/// A 72 × 42 grid pinned at its corners, with tethers and two coarse levels, in wind, with
/// the native test's sphere below it (out of its reach: the report counts the particles
/// touching each collider); a particle of both coarse levels is grabbed and held (as the
/// demo's mouse does) and another pinned, then both freed
/// (`coarse_levels_match_on_an_even_grid_...` natively).
async fn grid(ctx: &GpuContext, frames: u32) -> Result<Outcome> {
    let cloth = ClothBuilder::grid(72, 42)
        .pinning(Pinning::Corners)
        .build()?;
    let params = SolverParams {
        colliders: vec![Collider::sphere(Vec3::new(0.0, -0.5, 0.2), 0.3)],
        air: Some(chiffon::Air::wind(Vec3::new(0.0, 0.0, 3.0)).with_gusts(0.3)),
        ..Default::default()
    };
    let mut gpu = Solver::new(Backend::Gpu(ctx), &cloth, params.clone())?;
    let mut cpu = Solver::new(Backend::Cpu, &cloth, params)?;
    let levels = gpu.schedule(1.0 / 60.0)?.levels.levels;
    let anchors = cpu.tethers()?.anchors().len();
    if levels < 2 || anchors == 0 {
        return Err(chiffon::ChiffonError::InvalidCloth(format!(
            "the grid scene should have coarse levels and tethers ({levels} levels, \
             {anchors} anchors)"
        )));
    }
    let (grabbed, pinned) = (frames / 4, frames * 3 / 4);
    let mut cpu_ms = 0.0;
    for (k, dt) in random_dts(frames, 11).into_iter().enumerate() {
        let edits: &[(usize, f32)] = match k as u32 {
            f if f == grabbed => &[(4 * 72 + 8, 0.0), (72 + 7, -1.0)],
            f if f == pinned => &[(4 * 72 + 8, 1.0), (72 + 7, 1.0)],
            _ => &[],
        };
        for &(i, w) in edits {
            if w < 0.0 {
                gpu.set_inverse_mass(i, 0.0)?;
                cpu.set_inverse_mass(i, 0.0)?;
            } else {
                let at = cpu.positions()?[i] + Vec3::new(0.0, 0.05, 0.0);
                let w = w * cloth.free_inverse_masses()[i];
                gpu.set_particle(i, at, w)?;
                cpu.set_particle(i, at, w)?;
            }
        }
        gpu.step(dt)?;
        timed(&mut cpu_ms, || cpu.step(dt))?;
    }
    let contacts = |c: &[Vec3]| vec![("sphere", on_sphere(c, Vec3::new(0.0, -0.5, 0.2), 0.3))];
    lone("grid", &mut gpu, &mut cpu, &cloth, cpu_ms, contacts).await
}

/// The shipped round tablecloth (a mesh that is not a grid: irregular coloring, area masses,
/// tethers), pinned at its rim's highest-x particles and blown onto the ground; with `sphere`,
/// also onto a sphere, as `a_non_grid_mesh_matches_...` does natively. Both match the CPU
/// twin bit for bit on SwiftShader since the colliders stopped using `mix` (`docs/web.md`).
/// With `limit`, the strain limit at 1.05 ends every frame too (`LimitFrames::All`: its
/// over-relaxed sweeps in each frame's last substep). With `triangles`, its membrane is its
/// triangles (`Membrane::Triangles`) with a soft shear, on the sphere.
async fn mesh(
    ctx: &GpuContext,
    frames: u32,
    sphere: bool,
    limit: bool,
    triangles: bool,
) -> Result<Outcome> {
    let obj = include_bytes!("../../assets/tablecloth.obj");
    let membrane = if triangles {
        chiffon::Membrane::Triangles
    } else {
        chiffon::Membrane::Edges
    };
    let cloth = ClothBuilder::mesh(chiffon::geometry::obj::parse(obj, "tablecloth.obj")?)
        .pinning(Pinning::Box {
            min: Vec3::new(0.55, -1.0, -1.0),
            max: Vec3::new(1.0, 2.0, 1.0),
        })
        .membrane(membrane)
        .build()?;
    let mut colliders = vec![Collider::ground(0.65)];
    if sphere {
        colliders.push(Collider::sphere(Vec3::new(0.0, 0.8, 0.0), 0.25));
    }
    let mut params = SolverParams {
        colliders,
        air: Some(chiffon::Air::wind(Vec3::new(-3.0, 0.0, 3.0)).with_gusts(0.3)),
        ..Default::default()
    };
    if limit {
        params.strain_limit = Some(1.05);
        params.strain_limit_frames = chiffon::params::LimitFrames::All;
    }
    if triangles {
        params.compliance.shear = 5.0;
    }
    let mut gpu = Solver::new(Backend::Gpu(ctx), &cloth, params.clone())?;
    let mut cpu = Solver::new(Backend::Cpu, &cloth, params)?;
    let mut cpu_ms = 0.0;
    for dt in random_dts(frames, 11) {
        gpu.step(dt)?;
        timed(&mut cpu_ms, || cpu.step(dt))?;
    }
    let name = match (sphere, limit, triangles) {
        (_, _, true) => "mesh-triangles",
        (true, _, _) => "mesh-sphere",
        (false, true, _) => "mesh-limit",
        (false, false, _) => "mesh",
    };
    let contacts = |c: &[Vec3]| {
        let mut touching = vec![("ground", on_ground(c, 0.65))];
        if sphere {
            touching.push(("sphere", on_sphere(c, Vec3::new(0.0, 0.8, 0.0), 0.25)));
        }
        touching
    };
    lone(name, &mut gpu, &mut cpu, &cloth, cpu_ms, contacts).await
}

/// Runs `f`, adding the milliseconds it took to `total`.
fn timed<T>(total: &mut f64, f: impl FnOnce() -> T) -> T {
    let start = now_ms();
    let value = f();
    *total += now_ms() - start;
    value
}

/// A comparison of cloths that never moved would pass whatever the GPU did: each run must
/// have moved a tenth of its particles more than 1 cm from rest.
fn check_moved(scene: &str, positions: &[Vec3], rest: &[Vec3]) -> Result<()> {
    let moved = positions
        .iter()
        .zip(rest)
        .filter(|(p, q)| p.distance(**q) > 0.01)
        .count();
    if moved * 10 < positions.len() {
        return Err(chiffon::ChiffonError::InvalidCloth(format!(
            "{scene}: only {moved} of {} particles moved more than 1 cm; the run did not step",
            positions.len()
        )));
    }
    Ok(())
}

/// Particles of `positions` within the contact thickness of the ground at `height`.
fn on_ground(positions: &[Vec3], height: f32) -> usize {
    let r = chiffon::contact::DEFAULT_THICKNESS;
    positions
        .iter()
        .filter(|p| p.y <= height + r + 1e-4)
        .count()
}

/// Particles of `positions` within the contact thickness of a sphere.
fn on_sphere(positions: &[Vec3], center: Vec3, radius: f32) -> usize {
    let r = chiffon::contact::DEFAULT_THICKNESS;
    positions
        .iter()
        .filter(|p| p.distance(center) < radius + r + 1e-3)
        .count()
}

async fn lone(
    scene: &'static str,
    gpu: &mut Solver,
    cpu: &mut Solver,
    cloth: &Cloth,
    cpu_ms: f64,
    contacts: impl Fn(&[Vec3]) -> Vec<(&'static str, usize)>,
) -> Result<Outcome> {
    let g = gpu.positions_async().await?;
    gpu.health_async().await?;
    let c = cpu.positions()?;
    check_moved(scene, &g, cloth.positions())?;
    check_moved(scene, &c, cloth.positions())?;
    let d = deviation(&g, &c).max_m;
    Ok(Outcome {
        scene,
        path: "global",
        contacts: contacts(&c),
        cpu_ms,
        particles: cloth.particle_count(),
        max_deviation_m: d,
        cloths: vec![(d, LONG_RUN_TOLERANCE * cloth.size())],
    })
}

/// The world scene's ground (m).
const WORLD_GROUND: f32 = -0.45;

/// The world scenes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum WorldScene {
    /// `world`: the default paths (small cloths fused where the device binds the fused
    /// kernel's buffers, each with its own coarse levels), coarse levels on.
    Auto,
    /// `world-sphere`: the same with the native tests' sphere.
    Sphere,
    /// `world-global`: every cloth on the global path, as a device that cannot bind the fused
    /// kernel's 8 storage buffers runs them, with coarse levels on (the 40² grid's and the cape's graph
    /// levels merged). Before colliders.wgsl stopped using `mix`, the cape ended 0.11 m off the
    /// CPU reference here on SwiftShader; it now matches bit for bit.
    Global,
}

impl WorldScene {
    fn name(self) -> &'static str {
        match self {
            WorldScene::Auto => "world",
            WorldScene::Sphere => "world-sphere",
            WorldScene::Global => "world-global",
        }
    }
}

/// Small cloths of mixed shapes on the fused path (one workgroup each, in workgroup memory;
/// every cloth on the global path where the device cannot bind the fused kernel's buffers;
/// the 20 × 12 grid's membrane its triangles, whose colors on the global path merge with the
/// others' bending stencils), and one too large for it on the global path, under wind, their
/// lower edges on the ground;
/// with a sphere too, or every cloth on the global path, as [`WorldScene`] says
/// (`gpu_world_matches_the_cpu_world_on_both_paths_...` natively).
async fn world(ctx: &GpuContext, frames: u32, scene: WorldScene) -> Result<Outcome> {
    let sphere = scene == WorldScene::Sphere;
    let global = scene == WorldScene::Global;
    let grid = |c: u32, r: u32, pin, membrane| {
        ClothBuilder::grid(c, r)
            .spacing(0.5 / c as f32)
            .layout(Layout::Hanging { top: 0.0 })
            .pinning(pin)
            .membrane(membrane)
            .build()
    };
    let (edges, triangles) = (chiffon::Membrane::Edges, chiffon::Membrane::Triangles);
    let obj = include_bytes!("../../assets/cape.obj");
    let cape = ClothBuilder::mesh(chiffon::geometry::obj::parse(obj, "cape.obj")?)
        .scale(0.5)
        .pinning(Pinning::Group("collar".into()))
        .build()?;
    let at = |x: f32| ClothOptions::new().translate(Vec3::new(x, 0.0, 0.0));
    let cloths = [
        (grid(8, 8, Pinning::Corners, edges)?, at(-1.0)),
        (grid(20, 12, Pinning::Edge, triangles)?, at(-0.5)),
        (cape, at(0.0)),
        (grid(40, 40, Pinning::Edge, edges)?, at(0.5)),
        (
            grid(16, 16, Pinning::Corners, edges)?,
            ClothOptions::new().transform(Affine3A::from_rotation_translation(
                Quat::from_rotation_y(0.7),
                Vec3::new(1.0, 0.0, 0.3),
            )),
        ),
    ];
    // The ground just under the hanging cloths' lower edges (the native test's is at -0.9,
    // out of their reach), so the world tests contact too.
    let mut colliders = vec![Collider::ground(WORLD_GROUND)];
    if sphere {
        colliders.push(Collider::sphere(Vec3::new(0.1, -0.6, 0.2), 0.3));
    }
    let params = SolverParams {
        air: Some(chiffon::Air::wind(Vec3::new(4.5, 0.0, 2.4)).with_gusts(0.3)),
        colliders,
        coarse_levels: true,
        ..SolverParams::default()
    };
    let config = WorldConfig {
        paths: if global {
            PathChoice::Global
        } else {
            PathChoice::Fused
        },
        fused_max_particles: 1000,
        ..WorldConfig::default()
    };
    let mut gpu = World::new(Backend::Gpu(ctx), params.clone(), config)?;
    let mut cpu = World::new(Backend::Cpu, params, config)?;
    let mut handles: Vec<(ClothHandle, ClothHandle)> = Vec::new();
    for (c, o) in &cloths {
        handles.push((gpu.add(c, *o)?, cpu.add(c, *o)?));
    }
    let in_workgroup_memory = ClothPath::Fused {
        workgroup_memory: true,
    };
    let fused = handles
        .iter()
        .filter(|(g, _)| gpu.path(*g).is_ok_and(|p| p == in_workgroup_memory))
        .count();
    // The fused kernel needs its storage buffers; a device allowing fewer solves every cloth
    // on the global path (which is then what this scene tests).
    // Coarse levels on both paths: the global schedule's (merged), the fused cloths' own.
    let levels = gpu.schedule(1.0 / 60.0)?.levels.levels;
    if levels == 0 {
        return Err(chiffon::ChiffonError::InvalidCloth(
            "the world scene's 40² grid should have coarse levels".into(),
        ));
    }
    let fuses = ctx.fuses_cloths() && !global;
    let path = if fuses { "fused" } else { "global" };
    if fuses && fused < 3 || !fuses && fused > 0 {
        return Err(chiffon::ChiffonError::InvalidCloth(format!(
            "the world scene's small cloths should be fused in workgroup memory when the device \
             binds {} storage buffers per stage (it binds {}), else global; {fused} of {} are \
             fused",
            GpuContext::fused_storage_buffers(),
            ctx.limits().max_storage_buffers_per_shader_stage,
            handles.len()
        )));
    }
    let mut cpu_ms = 0.0;
    for dt in random_dts(frames, 11) {
        gpu.step(dt)?;
        timed(&mut cpu_ms, || cpu.step(dt))?;
    }
    let mut outcome = Outcome {
        scene: scene.name(),
        contacts: Vec::new(),
        path,
        cpu_ms,
        particles: gpu.particle_count(),
        max_deviation_m: 0.0,
        cloths: Vec::new(),
    };
    let (mut all_gpu, mut all_cpu, mut rest) = (Vec::new(), Vec::new(), Vec::new());
    for (g, c) in handles {
        let (gp, cp) = (gpu.positions_async(g).await?, cpu.positions(c)?);
        let cloth = cpu.cloth(c)?;
        let d = deviation(&gp, &cp).max_m;
        outcome.max_deviation_m = outcome.max_deviation_m.max(d);
        outcome.cloths.push((d, LONG_RUN_TOLERANCE * cloth.size()));
        rest.extend_from_slice(cloth.positions());
        all_gpu.extend(gp);
        all_cpu.extend(cp);
    }
    check_moved("world", &all_gpu, &rest)?;
    outcome
        .contacts
        .push(("ground", on_ground(&all_cpu, WORLD_GROUND)));
    if sphere {
        let touching = on_sphere(&all_cpu, Vec3::new(0.1, -0.6, 0.2), 0.3);
        outcome.contacts.push(("sphere", touching));
    }
    check_moved("world", &all_cpu, &rest)?;
    gpu.health_async().await?;
    Ok(outcome)
}

/// Runs every scene for `frames` frames on a device from `GpuContext::new_async` and returns
/// `{"pass": bool, "lines": [one JSON line per scene], "report": "..."}` as a string;
/// `adapter` names the adapter (the page reads it from `GPUAdapter.info`, which wgpu's
/// `AdapterInfo` leaves mostly empty on the web).
#[wasm_bindgen]
pub async fn run_conformance(
    frames: u32,
    adapter: String,
    scenes: String,
) -> std::result::Result<String, JsError> {
    let ctx = GpuContext::new_async().await?;
    // A browser's WebGPU reports validation errors to the console only: keep them, and fail.
    let errors = crate::keep_errors(&ctx.device);
    let adapter = crate::adapter_name(&adapter, &ctx);
    let mut lines = Vec::new();
    let mut report = Vec::new();
    let mut pass = true;
    for scene in scenes.split(',') {
        let scene = scene.trim();
        let start = now_ms();
        let outcome = match scene {
            "grid" => grid(&ctx, frames).await,
            "mesh" => mesh(&ctx, frames, false, false, false).await,
            "mesh-sphere" => mesh(&ctx, frames, true, false, false).await,
            "mesh-limit" => mesh(&ctx, frames, false, true, false).await,
            "mesh-triangles" => mesh(&ctx, frames, true, false, true).await,
            "world" => world(&ctx, frames, WorldScene::Auto).await,
            "world-sphere" => world(&ctx, frames, WorldScene::Sphere).await,
            "world-global" => world(&ctx, frames, WorldScene::Global).await,
            _ => {
                return Err(JsError::new(&format!(
                    "no scene {scene:?}: the scenes are grid, mesh, world, world-global, \
                     mesh-sphere, mesh-limit, mesh-triangles and world-sphere"
                )));
            }
        }
        .map_err(|e| JsError::new(&format!("scene {scene}: {e}")))?;
        // Errors arrive as events: let the event loop deliver those of the last commands.
        sleep_ms(50).await;
        if let Some(e) = errors.lock().unwrap_or_else(|e| e.into_inner()).first() {
            return Err(JsError::new(&format!("scene {scene}: WebGPU error: {e}")));
        }
        pass &= outcome.pass();
        lines.push(
            serde_json::json!({
                "scene": outcome.scene,
                "adapter": adapter,
                "frames": frames,
                "particles": outcome.particles,
                "max_deviation_m": outcome.max_deviation_m,
            })
            .to_string(),
        );
        let cloths: Vec<String> = outcome
            .cloths
            .iter()
            .map(|(d, limit)| format!("{d:.3e} m of {limit:.3e} m"))
            .collect();
        let touching: Vec<String> = outcome
            .contacts
            .iter()
            .map(|(what, n)| format!("{n} on the {what}"))
            .collect();
        report.push(format!(
            "{scene} ({} path, {} particles; touching at the end: {}): {} ({}) in {:.1} s, \
             {:.1} s of it the CPU reference's steps",
            outcome.path,
            outcome.particles,
            touching.join(", "),
            if outcome.pass() { "pass" } else { "FAIL" },
            cloths.join(", "),
            (now_ms() - start) / 1000.0,
            outcome.cpu_ms / 1000.0
        ));
    }
    Ok(serde_json::json!({ "pass": pass, "lines": lines, "report": report }).to_string())
}

/// Milliseconds since the page loaded.
pub(crate) fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// Resolves after `ms` milliseconds, letting the page's event loop run.
pub(crate) async fn sleep_ms(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}
