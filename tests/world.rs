//! A world of cloths: both paths against each other and against lone solvers, GPU against the
//! CPU reference over a long random-dt run, and every bad input.

mod common;

use chiffon::conformance::{LONG_RUN_TOLERANCE, deviation};
use chiffon::params::Compliance;
use chiffon::world::{ClothPath, PathChoice, Sleep, WorldCapacity};
use chiffon::{
    Backend, ChiffonError, Cloth, ClothBuilder, ClothOptions, Collider, Layout, Pinning, Pose,
    Solver, SolverParams, World, WorldConfig,
};
use glam::{Affine3A, Quat, Vec3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Colliders, wind and tethers: everything the solver has.
fn params() -> SolverParams {
    SolverParams {
        air: Some(chiffon::Air::wind(Vec3::new(4.5, 0.0, 2.4)).with_gusts(0.3)),
        colliders: vec![
            Collider::ground(-0.9),
            Collider::sphere(Vec3::new(0.1, -0.6, 0.2), 0.3),
        ],
        ..SolverParams::default()
    }
}

/// A CPU world with the default parameters and configuration.
fn cpu_world() -> World {
    World::new(
        Backend::Cpu,
        SolverParams::default(),
        WorldConfig::default(),
    )
    .unwrap()
}

/// An 8×8 grid pinned at its corners.
fn corners_8x8() -> Cloth {
    ClothBuilder::grid(8, 8)
        .pinning(Pinning::Corners)
        .build()
        .unwrap()
}

/// Cloths of mixed sizes and shapes: small grids, a mesh with tethers, a large grid that a
/// fused limit of 1000 particles sends to the global path.
fn mixed_cloths() -> Vec<(Cloth, ClothOptions)> {
    let grid = |c, r, pin| {
        ClothBuilder::grid(c, r)
            .spacing(0.5 / c as f32)
            .layout(Layout::Hanging { top: 0.0 })
            .pinning(pin)
            .build()
            .unwrap()
    };
    let cape = ClothBuilder::obj(common::asset("cape.obj"))
        .unwrap()
        .scale(0.5)
        .pinning(Pinning::Group("collar".into()))
        .build()
        .unwrap();
    let at = |x: f32| ClothOptions::new().translate(Vec3::new(x, 0.0, 0.0));
    vec![
        (grid(8, 8, Pinning::Corners), at(-1.0)),
        (
            grid(20, 12, Pinning::Edge),
            at(-0.5).compliance(Compliance {
                stretch: 1e-4,
                shear: 1e-3,
                curvature: 5e6,
                ..Compliance::default()
            }),
        ),
        (cape, at(0.0)),
        (grid(40, 40, Pinning::Edge), at(0.5)),
        (
            grid(16, 16, Pinning::Corners),
            ClothOptions::new().transform(Affine3A::from_rotation_translation(
                Quat::from_rotation_y(0.7),
                Vec3::new(1.0, 0.0, 0.3),
            )),
        ),
    ]
}

fn random_dts(frames: usize, seed: u64) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..frames)
        .map(|_| 1.0 / rng.random_range(30.0..144.0))
        .collect()
}

fn config(paths: PathChoice) -> WorldConfig {
    WorldConfig {
        paths,
        fused_max_particles: 1000,
        ..WorldConfig::default()
    }
}

fn world_of(
    mut world: World,
    cloths: &[(Cloth, ClothOptions)],
) -> (World, Vec<chiffon::ClothHandle>) {
    let handles = cloths
        .iter()
        .map(|(c, o)| world.add(c, *o).unwrap())
        .collect();
    (world, handles)
}

/// The fused kernel's twin, the global path's twins and a lone solver per cloth are the same
/// arithmetic in the same order, so on the CPU all three agree bit for bit, with coarse levels
/// off and on (the global path solves every global cloth's levels together, one dispatch per
/// level color; the fused kernel solves each cloth's own, in the same order).
#[test]
fn both_paths_equal_lone_solvers_bit_for_bit_on_the_cpu() {
    let cloths = mixed_cloths();
    let dts = random_dts(90, 7);
    for coarse_levels in [false, true] {
        let params = SolverParams {
            coarse_levels,
            ..params()
        };
        let mut runs = Vec::new();
        for paths in [PathChoice::Fused, PathChoice::Global] {
            let world = World::new(Backend::Cpu, params.clone(), config(paths)).unwrap();
            let (mut world, handles) = world_of(world, &cloths);
            for &dt in &dts {
                world.step(dt).unwrap();
            }
            let paths: Vec<ClothPath> = handles.iter().map(|&h| world.path(h).unwrap()).collect();
            let positions: Vec<Vec<Vec3>> = handles
                .iter()
                .map(|&h| world.positions(h).unwrap())
                .collect();
            runs.push((paths, positions));
        }
        // Fused puts the small cloths on the fused path and the 40² one on the global path.
        let fused = |p: &ClothPath| matches!(p, ClothPath::Fused { .. });
        assert_eq!(runs[0].0.iter().filter(|p| fused(p)).count(), 4);
        assert_eq!(runs[0].0[3], ClothPath::Global);
        assert!(runs[1].0.iter().all(|p| *p == ClothPath::Global));
        for (k, (cloth, options)) in cloths.iter().enumerate() {
            let lone = |coarse_levels: bool| {
                let mut p = SolverParams {
                    coarse_levels,
                    ..params.clone()
                };
                if let Some(c) = options.compliance {
                    p.compliance = c;
                }
                let placed = cloth.transformed(options.transform).unwrap();
                let mut lone = Solver::new(Backend::Cpu, &placed, p).unwrap();
                for &dt in &dts {
                    lone.step(dt).unwrap();
                }
                lone.positions().unwrap()
            };
            // The fused kernel runs a cloth's coarse levels as the global path does.
            let with_levels = lone(coarse_levels);
            assert_eq!(
                runs[0].1[k], with_levels,
                "cloth {k} (coarse levels {coarse_levels}): fused/auto world differs from a lone solver"
            );
            assert_eq!(
                runs[1].1[k], with_levels,
                "cloth {k} (coarse levels {coarse_levels}): global world differs from a lone solver"
            );
            // The cloth moved (a test of something).
            assert!(
                with_levels
                    .iter()
                    .zip(cloth.positions())
                    .any(|(a, b)| a.distance(*b) > 0.01)
            );
        }
    }
}

#[test]
fn gpu_world_matches_the_cpu_world_on_both_paths_over_a_long_random_dt_run() {
    gpu_world_matches_the_cpu_world(
        "gpu_world_matches_the_cpu_world_on_both_paths_over_a_long_random_dt_run",
        PathChoice::Fused,
    );
}

/// The same world with every cloth on the global path (a test of its own, so the two run side
/// by side).
#[test]
fn gpu_world_matches_the_cpu_world_on_the_global_path_over_a_long_random_dt_run() {
    gpu_world_matches_the_cpu_world(
        "gpu_world_matches_the_cpu_world_on_the_global_path_over_a_long_random_dt_run",
        PathChoice::Global,
    );
}

/// 240 frames at random frame times of the mixed cloths (fused where they fit under `Fused`),
/// removing one and adding another at frame 100, GPU against CPU.
fn gpu_world_matches_the_cpu_world(test: &str, paths: PathChoice) {
    let ctx = common::gpu_or_return!(test);
    let cloths = mixed_cloths();
    let dts = random_dts(240, 11);
    let (mut gpu, gh) = world_of(
        World::new(Backend::Gpu(&ctx), params(), config(paths)).unwrap(),
        &cloths,
    );
    let (mut cpu, ch) = world_of(
        World::new(Backend::Cpu, params(), config(paths)).unwrap(),
        &cloths,
    );
    if paths == PathChoice::Fused {
        // The adapter's workgroup memory holds the small cloths.
        assert_eq!(
            gpu.path(gh[0]).unwrap(),
            ClothPath::Fused {
                workgroup_memory: true
            }
        );
    }
    let (mut gh, mut ch) = (gh, ch);
    for (f, &dt) in dts.iter().enumerate() {
        if f == 100 {
            // Remove one cloth and add another between frames, on both.
            gpu.remove(gh.remove(1)).unwrap();
            cpu.remove(ch.remove(1)).unwrap();
            let (c, o) = &cloths[0];
            let o = o.translate(Vec3::new(0.0, 0.0, -1.0));
            gh.push(gpu.add(c, o).unwrap());
            ch.push(cpu.add(c, o).unwrap());
        }
        gpu.step(dt).unwrap();
        cpu.step(dt).unwrap();
    }
    for (&g, &c) in gh.iter().zip(&ch) {
        let size = cpu.cloth(c).unwrap().size();
        let d = deviation(&gpu.positions(g).unwrap(), &cpu.positions(c).unwrap());
        let path = gpu.path(g).unwrap().name();
        eprintln!("{path}: max {:.3e} m (cloth size {size} m)", d.max_m);
        assert!(
            d.max_m <= LONG_RUN_TOLERANCE * size,
            "{path}: particle {} off by {} m",
            d.worst_particle,
            d.max_m
        );
    }
    gpu.health().unwrap();
}

/// A cloth too big for workgroup memory still takes the fused path (from the storage buffer).
#[test]
fn a_cloth_beyond_workgroup_memory_is_fused_from_storage_and_matches() {
    let ctx = common::gpu_or_return!("a_cloth_beyond_workgroup_memory_is_fused_from_storage");
    // Just more particles than the adapter's workgroup memory holds (16 bytes each).
    let capacity = ctx.limits().max_compute_workgroup_storage_size / 16;
    let side = (capacity as f64).sqrt() as u32 + 2;
    let cloth = common::pinned_grid(side, side, Pinning::Corners);
    assert!(cloth.particle_count() as u32 > capacity);
    let fused = WorldConfig {
        paths: PathChoice::Fused,
        ..WorldConfig::default()
    };
    let mut gpu = World::new(Backend::Gpu(&ctx), params(), fused).unwrap();
    let mut cpu = World::new(Backend::Cpu, params(), fused).unwrap();
    let g = gpu.add(&cloth, ClothOptions::new()).unwrap();
    let c = cpu.add(&cloth, ClothOptions::new()).unwrap();
    assert_eq!(
        gpu.path(g).unwrap(),
        ClothPath::Fused {
            workgroup_memory: false
        },
        "{side}x{side} is more than the {capacity} particles a workgroup holds"
    );
    for &dt in &random_dts(60, 3) {
        gpu.step(dt).unwrap();
        cpu.step(dt).unwrap();
    }
    let d = deviation(&gpu.positions(g).unwrap(), &cpu.positions(c).unwrap());
    assert!(d.max_m <= LONG_RUN_TOLERANCE * cloth.size(), "{d:?}");
}

/// llvmpipe ends an invocation's loops once they have run 65 535 iterations in all, silently,
/// and a fused workgroup runs a whole frame in one invocation a thread: a long frame used to
/// come back half-stepped (a few millimetres off its twin, found by a conformance test). Now
/// the kernel checks that its frame ran to the end and the step is an error naming it. A 48²
/// cloth at 16 threads a workgroup and 64 substeps runs about 200 000 iterations a thread.
#[test]
fn a_fused_frame_the_adapter_cuts_short_is_an_error_not_a_half_step() {
    let ctx = common::gpu_or_return!("a_fused_frame_the_adapter_cuts_short_is_an_error");
    let cloth = common::pinned_grid(48, 48, Pinning::Corners);
    let params = SolverParams {
        substeps: chiffon::params::Substeps::Fixed(64),
        ..params()
    };
    let config = WorldConfig {
        paths: PathChoice::Fused,
        fused_workgroup_size: Some(16),
        ..WorldConfig::default()
    };
    let mut gpu = World::new(Backend::Gpu(&ctx), params.clone(), config).unwrap();
    let mut cpu = World::new(Backend::Cpu, params, config).unwrap();
    let g = gpu.add(&cloth, ClothOptions::new()).unwrap();
    let c = cpu.add(&cloth, ClothOptions::new()).unwrap();
    assert!(matches!(gpu.path(g).unwrap(), ClothPath::Fused { .. }));
    let llvmpipe = ctx.info().name.contains("llvmpipe");
    for frame in 1..=3 {
        cpu.step(1.0 / 60.0).unwrap();
        match gpu.step(1.0 / 60.0).and_then(|()| gpu.wait()) {
            Err(ChiffonError::StoppedEarly { frame: f }) => {
                assert!(
                    llvmpipe,
                    "only llvmpipe stops loops early: {}",
                    ctx.info().name
                );
                assert!(f <= frame as u64, "frame {f}, reported by frame {frame}");
                let message = gpu.step(1.0 / 60.0).unwrap_err().to_string();
                assert!(message.contains("global path"), "{message}");
                return;
            }
            Err(e) => panic!("frame {frame}: {e}"),
            Ok(()) => {}
        }
    }
    assert!(
        !llvmpipe,
        "llvmpipe ran three long fused frames whole: raise the substeps"
    );
    let d = deviation(&gpu.positions(g).unwrap(), &cpu.positions(c).unwrap());
    assert!(d.max_m <= LONG_RUN_TOLERANCE * cloth.size(), "{d:?}");
}

#[test]
fn a_cloths_own_material_is_what_it_stretches_by() {
    let cloth = ClothBuilder::grid(16, 16)
        .pinning(Pinning::Edge)
        .layout(Layout::Hanging { top: 0.0 })
        .build()
        .unwrap();
    // No tethers: they would bound both cloths' stretch alike.
    let params = SolverParams {
        tethers: None,
        ..SolverParams::default()
    };
    let mut world = World::new(Backend::Cpu, params, WorldConfig::default()).unwrap();
    let stiff = world.add(&cloth, ClothOptions::new()).unwrap();
    let soft_compliance = Compliance {
        stretch: 1.0,
        shear: 1.0,
        curvature: 1e9,
        ..Compliance::default()
    };
    let soft = world
        .add(
            &cloth,
            ClothOptions::new()
                .translate(Vec3::X * 2.0)
                .compliance(soft_compliance),
        )
        .unwrap();
    for _ in 0..120 {
        world.step(1.0 / 60.0).unwrap();
    }
    let lowest = |p: Vec<Vec3>| p.iter().map(|p| p.y).fold(f32::INFINITY, f32::min);
    let (a, b) = (
        lowest(world.positions(stiff).unwrap()),
        lowest(world.positions(soft).unwrap()),
    );
    assert!(
        b < a - 0.02,
        "the soft cloth hangs lower: stiff {a}, soft {b}"
    );
}

#[test]
fn a_removed_cloths_handle_is_an_error_and_disturbs_nothing() {
    let cloth = corners_8x8();
    let mut world = cpu_world();
    let a = world.add(&cloth, ClothOptions::new()).unwrap();
    let b = world
        .add(&cloth, ClothOptions::new().translate(Vec3::X))
        .unwrap();
    for _ in 0..10 {
        world.step(1.0 / 60.0).unwrap();
    }
    let before = world.positions(a).unwrap();
    world.remove(b).unwrap();
    for r in [
        world.positions(b).map(|_| ()),
        world.remove(b),
        world.path(b).map(|_| ()),
        world.particle_range(b).map(|_| ()),
    ] {
        assert!(matches!(r, Err(ChiffonError::StaleHandle { .. })), "{r:?}");
    }
    // Its slot is reused by a new cloth, under a new generation: the old handle stays stale.
    let c = world.add(&cloth, ClothOptions::new()).unwrap();
    assert_eq!(c.index(), b.index());
    assert!(world.positions(b).is_err());
    assert_eq!(world.positions(a).unwrap(), before, "removing b moved a");
    assert_eq!(world.len(), 2);
}

#[test]
fn a_full_world_refuses_a_cloth_and_keeps_the_others() {
    let cloth = corners_8x8();
    let config = WorldConfig {
        capacity: WorldCapacity::for_cloths(2, &cloth),
        ..WorldConfig::default()
    };
    let mut world = World::new(Backend::Cpu, SolverParams::default(), config).unwrap();
    world.add(&cloth, ClothOptions::new()).unwrap();
    world.add(&cloth, ClothOptions::new()).unwrap();
    let e = world.add(&cloth, ClothOptions::new()).unwrap_err();
    assert!(
        matches!(e, ChiffonError::WorldFull { what: "cloths", .. }),
        "{e}"
    );
    let big = ClothBuilder::grid(9, 9).build().unwrap();
    let mut one = World::new(
        Backend::Cpu,
        SolverParams::default(),
        WorldConfig {
            capacity: WorldCapacity {
                cloths: 4,
                ..WorldCapacity::for_cloths(1, &cloth)
            },
            ..WorldConfig::default()
        },
    )
    .unwrap();
    let e = one.add(&big, ClothOptions::new()).unwrap_err();
    assert!(e.to_string().contains("particles would be 81"), "{e}");
    assert_eq!(world.len(), 2);
    world.step(1.0 / 60.0).unwrap();
}

#[test]
fn an_empty_world_steps_and_a_world_can_empty_again() {
    let mut world = cpu_world();
    world.step(1.0 / 60.0).unwrap();
    assert_eq!(world.schedule(1.0 / 60.0).unwrap().dispatches(), 0);
    let cloth = ClothBuilder::grid(8, 8).build().unwrap();
    let h = world.add(&cloth, ClothOptions::new()).unwrap();
    world.step(1.0 / 60.0).unwrap();
    world.remove(h).unwrap();
    world.step(1.0 / 60.0).unwrap();
    assert!(world.is_empty() && world.all_positions().unwrap().is_empty());
    world.health().unwrap();
}

/// A cloth's material is its index, which a membrane triangle keeps in 18 bits: a world with
/// room for more cloths than that is refused, naming the bound, instead of mixing up their
/// materials.
#[test]
fn a_world_with_room_for_more_cloths_than_materials_is_refused() {
    let config = |cloths| WorldConfig {
        capacity: WorldCapacity {
            cloths,
            ..WorldCapacity::default()
        },
        ..WorldConfig::default()
    };
    let max = chiffon::world::MAX_CLOTHS;
    assert!(World::new(Backend::Cpu, SolverParams::default(), config(max)).is_ok());
    let e = World::new(Backend::Cpu, SolverParams::default(), config(max + 1))
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("world capacity (cloths)") && e.contains("262144"),
        "{e}"
    );
}

#[test]
fn a_world_larger_than_the_device_is_a_clear_error() {
    let ctx = common::gpu_or_return!("a_world_larger_than_the_device_is_a_clear_error");
    let config = WorldConfig {
        capacity: WorldCapacity {
            cloths: 16,
            particles: u32::MAX / 2,
            constraints: 1024,
        },
        ..WorldConfig::default()
    };
    let e = World::new(Backend::Gpu(&ctx), SolverParams::default(), config)
        .err()
        .unwrap();
    assert!(matches!(e, ChiffonError::ExceedsDeviceLimit { .. }), "{e}");
}

#[test]
fn bad_cloth_options_are_errors() {
    let cloth = ClothBuilder::grid(8, 8).build().unwrap();
    let mut world = cpu_world();
    let sheared =
        Affine3A::from_cols_array(&[1.0, 0.0, 0.0, 0.5, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]);
    let nan = ClothOptions::new().translate(Vec3::new(f32::NAN, 0.0, 0.0));
    let negative = ClothOptions::new().compliance(Compliance {
        stretch: -1.0,
        ..Compliance::default()
    });
    for options in [ClothOptions::new().transform(sheared), nan, negative] {
        let e = world.add(&cloth, options).unwrap_err();
        assert!(matches!(e, ChiffonError::InvalidParameter { .. }), "{e}");
    }
    assert!(world.is_empty());
    // A uniform scale is fine, and scales the rest lengths with it.
    let h = world
        .add(
            &cloth,
            ClothOptions::new().transform(Affine3A::from_scale(Vec3::splat(2.0))),
        )
        .unwrap();
    assert_eq!(world.cloth(h).unwrap().size(), 2.0 * cloth.size());
}

/// On both backends and both paths: the error names the cloth that diverged.
#[test]
fn a_diverging_cloth_is_named() {
    let ctx = common::gpu("a_diverging_cloth_is_named");
    let cloth = common::pinned_grid(8, 8, Pinning::None);
    let pinned = corners_8x8();
    let params = SolverParams {
        max_distance: Some(3.0),
        ..SolverParams::default()
    };
    for backend in common::backends(&ctx) {
        for paths in [PathChoice::Fused, PathChoice::Global] {
            let config = WorldConfig {
                paths,
                ..WorldConfig::default()
            };
            let mut world = World::new(backend, params.clone(), config).unwrap();
            world.add(&pinned, ClothOptions::new()).unwrap();
            let falling = world.add(&cloth, ClothOptions::new()).unwrap();
            // The GPU reads the flag without stalling, so its error may come a frame or two
            // later; health() asks at once.
            let e = (0..240)
                .find_map(|_| world.step(1.0 / 60.0).err())
                .or_else(|| world.health().err())
                .unwrap();
            match e {
                ChiffonError::Diverged { cloth, .. } => {
                    assert_eq!(cloth, Some(falling.index()), "{backend:?} {paths:?}")
                }
                e => panic!("{backend:?} {paths:?}: {e}"),
            }
        }
    }
}

/// A cape hanging at rest from its top edge (it starts still, so it sleeps after
/// `Sleep::frames` frames), and the same cape released flat (it swings for seconds).
fn hanging_cape(top: f32) -> Cloth {
    ClothBuilder::grid(16, 16)
        .spacing(0.04)
        .total_mass(0.15)
        .layout(Layout::Hanging { top })
        .pinning(Pinning::Edge)
        .build()
        .unwrap()
}

fn swinging_cape() -> Cloth {
    ClothBuilder::grid(16, 16)
        .spacing(0.04)
        .total_mass(0.15)
        .layout(Layout::Flat { height: 1.0 })
        .pinning(Pinning::Edge)
        .build()
        .unwrap()
}

/// Three hanging capes a metre apart and one swinging cape, with a sphere far below them.
fn sleepy_world(backend: Backend<'_>, sleep: Option<Sleep>) -> (World, Vec<chiffon::ClothHandle>) {
    let params = SolverParams {
        colliders: vec![Collider::sphere(Vec3::new(0.0, -5.0, 0.0), 0.3)],
        ..SolverParams::default()
    };
    let config = WorldConfig {
        sleep,
        paths: PathChoice::Fused,
        ..WorldConfig::default()
    };
    let world = World::new(backend, params, config).unwrap();
    let at = |x: f32| ClothOptions::new().translate(Vec3::new(x, 0.0, 0.0));
    world_of(
        world,
        &[
            (hanging_cape(1.0), at(0.0)),
            (hanging_cape(1.0), at(1.0)),
            (hanging_cape(1.0), at(2.0)),
            (swinging_cape(), at(3.0)),
        ],
    )
}

fn asleep(world: &mut World, handles: &[chiffon::ClothHandle]) -> Vec<bool> {
    handles
        .iter()
        .map(|&h| world.is_asleep(h).unwrap())
        .collect()
}

fn snapshot(world: &mut World, handles: &[chiffon::ClothHandle]) -> Vec<Vec<Vec3>> {
    handles
        .iter()
        .map(|&h| world.positions(h).unwrap())
        .collect()
}

/// The capes at rest fall asleep after `Sleep::frames` frames and then do not move at all;
/// the swinging cape stays awake; edits, parameter changes and a collider moving near a
/// sleeping cape wake it, and a collider moving far from the others does not. The GPU kernel
/// decides, and the CPU twin follows its rules, so both sleep and wake on the same frames and
/// end bit for bit alike on lavapipe (within the conformance tolerance on other GPUs).
#[test]
fn capes_at_rest_sleep_and_wake_alike_on_both_backends() {
    let ctx = common::gpu("capes_at_rest_sleep_and_wake_alike_on_both_backends");
    let mut backends = vec![Backend::Cpu];
    if let Some(ctx) = &ctx {
        backends.push(Backend::Gpu(ctx));
    }
    let sleep = Sleep {
        speed: 0.02,
        frames: 20,
    };
    let mut ends = Vec::new();
    for backend in backends {
        let name = format!("{backend:?}");
        let (mut world, h) = sleepy_world(backend, Some(sleep));
        for _ in 0..19 {
            world.step(1.0 / 60.0).unwrap();
        }
        assert_eq!(asleep(&mut world, &h), [false; 4], "{name}: too early");
        world.step(1.0 / 60.0).unwrap();
        assert_eq!(asleep(&mut world, &h), [true, true, true, false], "{name}");
        for &c in &h {
            let blocking = world.is_asleep(c).unwrap();
            assert_eq!(
                pollster::block_on(world.is_asleep_async(c)).unwrap(),
                blocking
            );
        }
        // Asleep, they do not move at all.
        let before = snapshot(&mut world, &h);
        for _ in 0..10 {
            world.step(1.0 / 60.0).unwrap();
        }
        let after = snapshot(&mut world, &h);
        assert_eq!(before[..3], after[..3], "{name}: a sleeping cape moved");
        assert_ne!(before[3], after[3], "{name}: the swinging cape stopped");

        // An edit wakes its cape only (it moves again), and it sleeps again once at rest.
        let top = world.positions(h[0]).unwrap()[0];
        world
            .set_particle(h[0], 0, top + Vec3::new(0.0, 0.0, 0.05), 0.0)
            .unwrap();
        assert_eq!(
            asleep(&mut world, &h),
            [false, true, true, false],
            "{name}: edit"
        );
        world.step(1.0 / 60.0).unwrap();
        let last = after[0].len() - 1;
        assert_ne!(
            world.positions(h[0]).unwrap()[last],
            after[0][last],
            "{name}"
        );

        // Setting the same parameters again wakes nothing.
        world.set_params(world.params().clone()).unwrap();
        assert_eq!(
            asleep(&mut world, &h)[1..3],
            [true, true],
            "{name}: same params"
        );

        // A sphere sweeping through cape 1 wakes it; cape 2, a metre on, sleeps on.
        world
            .set_collider_pose(0, Pose::new(Vec3::new(1.0, 0.7, 0.0), Quat::IDENTITY))
            .unwrap();
        world.step(1.0 / 60.0).unwrap();
        assert_eq!(
            asleep(&mut world, &h)[1..3],
            [false, true],
            "{name}: collider"
        );

        // A parameter change wakes every cape.
        let mut params = world.params().clone();
        params.damping += 0.1;
        world.set_params(params).unwrap();
        assert_eq!(asleep(&mut world, &h), [false; 4], "{name}: set_params");
        for _ in 0..30 {
            world.step(1.0 / 60.0).unwrap();
        }
        ends.push(snapshot(&mut world, &h));
    }
    if let [cpu, gpu] = &ends[..] {
        for (k, (a, b)) in cpu.iter().zip(gpu).enumerate() {
            let d = deviation(a, b).max_m;
            assert!(d <= 1e-4, "cape {k}: GPU {d} m from the CPU reference");
        }
    }
}

/// With sleeping off, nothing sleeps; a bad setting is a clear error.
#[test]
fn sleeping_off_never_sleeps_and_bad_settings_are_refused() {
    let (mut world, h) = sleepy_world(Backend::Cpu, None);
    for _ in 0..80 {
        world.step(1.0 / 60.0).unwrap();
    }
    assert_eq!(asleep(&mut world, &h), [false; 4]);
    for (speed, frames) in [(f32::NAN, 60), (-1.0, 60), (0.02, 0)] {
        let config = WorldConfig {
            sleep: Some(Sleep { speed, frames }),
            ..WorldConfig::default()
        };
        let err = World::new(Backend::Cpu, SolverParams::default(), config).err();
        assert!(
            matches!(err, Some(ChiffonError::InvalidParameter { name, .. }) if name.starts_with("sleep")),
            "speed {speed}, frames {frames}: {err:?}"
        );
    }
}

/// The fused kernel reads its tether slots from the fused table, a mirror of the tether buffer:
/// when pins change mid-run, the rebuilt tethers must reach the mirror too, or the GPU's fused
/// cloths keep pulling toward the old anchors while the CPU twin's follow the new ones.
#[test]
fn a_fused_cloths_new_tethers_reach_the_gpu_when_its_pins_change() {
    let ctx = common::gpu_or_return!("a_fused_cloths_new_tethers_reach_the_gpu");
    let cloths = mixed_cloths();
    let dts = random_dts(60, 5);
    let mut ends = Vec::new();
    for backend in [Backend::Gpu(&ctx), Backend::Cpu] {
        let world = World::new(backend, params(), config(PathChoice::Fused)).unwrap();
        let (mut world, h) = world_of(world, &cloths);
        assert!(matches!(world.path(h[1]).unwrap(), ClothPath::Fused { .. }));
        let before = world.tethers(h[1]).unwrap().slots().to_vec();
        for (f, &dt) in dts.iter().enumerate() {
            if f == 20 {
                // Free the 20×12 grid's first top particle, pin one of its last row.
                let n = world.cloth(h[1]).unwrap().particle_count();
                world.set_inverse_mass(h[1], 0, 500.0).unwrap();
                world.set_inverse_mass(h[1], n - 1, 0.0).unwrap();
            }
            world.step(dt).unwrap();
        }
        assert_ne!(world.tethers(h[1]).unwrap().slots(), &before[..]);
        ends.push(world.positions(h[1]).unwrap());
    }
    let d = deviation(&ends[0], &ends[1]).max_m;
    let size = cloths[1].0.size();
    assert!(
        d <= LONG_RUN_TOLERANCE * size,
        "GPU {d} m from the CPU reference (tolerance {} m)",
        LONG_RUN_TOLERANCE * size
    );
}

/// Removing every collider left the GPU's broad-phase table as the last frame wrote it (a frame
/// without colliders wrote nothing), and the fused kernel, which tests the table's cell whatever
/// the collider count, kept pushing cloths out of the removed sphere; the CPU twin reads the
/// frame's own (empty) table. Now every frame writes its table.
#[test]
fn removing_every_collider_leaves_no_ghost_behind_on_the_fused_path() {
    let ctx = common::gpu_or_return!("removing_every_collider_leaves_no_ghost");
    let cloths = mixed_cloths();
    // Five spheres in the wind's way, one behind each cloth: enough for a broad-phase grid.
    let params = SolverParams {
        colliders: (0..5)
            .map(|k| Collider::sphere(Vec3::new(-1.0 + 0.5 * k as f32, -0.3, 0.25), 0.2))
            .collect(),
        ..params()
    };
    let mut ends = Vec::new();
    for backend in [Backend::Gpu(&ctx), Backend::Cpu] {
        let world = World::new(backend, params.clone(), config(PathChoice::Fused)).unwrap();
        let (mut world, h) = world_of(world, &cloths);
        for _ in 0..40 {
            world.step(1.0 / 60.0).unwrap();
        }
        let mut bare = world.params().clone();
        bare.colliders.clear();
        world.set_params(bare).unwrap();
        for _ in 0..40 {
            world.step(1.0 / 60.0).unwrap();
        }
        ends.push(snapshot(&mut world, &h));
    }
    for (k, (a, b)) in ends[0].iter().zip(&ends[1]).enumerate() {
        let d = deviation(a, b).max_m;
        let size = cloths[k].0.size();
        assert!(
            d <= LONG_RUN_TOLERANCE * size,
            "cloth {k}: GPU {d} m from the CPU reference"
        );
    }
}

/// `PathChoice::Auto` times both paths over its first `AUTO_TRIAL_FRAMES` frames (the other
/// path first, then its guess) and keeps the one whose least frame was shorter, by its own
/// measurement; it tries again when cloths join that double the particles, not for one more. A rule fixed per adapter (global wherever
/// the adapter runs on the CPU) picked the slower path on lavapipe for a few capes (one 32²
/// cape: 4.7 ms a frame fused against 6.3 global). The trial changes the time and never the
/// cloth: an Auto world ends where a Global world does, bit for bit on the CPU, within the
/// long-run tolerance on the GPU. A world whose cloth that cannot fuse comes after one that
/// can keeps its guess (the two paths would place their particles differently). `Fused` and
/// `Global` still force their path.
#[test]
fn auto_times_both_paths_and_keeps_the_faster() {
    use chiffon::world::AUTO_TRIAL_FRAMES;
    let fused = |p: ClothPath| matches!(p, ClothPath::Fused { .. });
    let capes: Vec<(Cloth, ClothOptions)> = (0..3)
        .map(|k| {
            let at = ClothOptions::new().translate(Vec3::new(1.5 * k as f32, 0.0, 0.0));
            (corners_8x8(), at)
        })
        .collect();
    let frames = 2 * AUTO_TRIAL_FRAMES as usize + 6;
    // Each frame's path (whether fused), the times measured, and where the capes end.
    let run = |backend: Backend<'_>, paths: PathChoice| {
        let world = World::new(backend, params(), config(paths)).unwrap();
        let (mut world, mut handles) = world_of(world, &capes);
        let mut seen = Vec::new();
        let mut times = Vec::new();
        let behind = |k: usize| ClothOptions::new().translate(Vec3::new(1.5 * k as f32, 0.0, 1.5));
        for f in 0..frames {
            if f == AUTO_TRIAL_FRAMES as usize + 2 {
                // Three capes join, twice the particles: a new trial.
                for k in 0..3 {
                    handles.push(world.add(&capes[0].0, behind(k)).unwrap());
                }
            }
            if f == 2 * AUTO_TRIAL_FRAMES as usize + 3 {
                // One more, a sixth more: the last trial still holds.
                handles.push(world.add(&capes[0].0, behind(3)).unwrap());
            }
            world.step(1.0 / 60.0).unwrap();
            let paths: Vec<bool> = handles
                .iter()
                .map(|&h| fused(world.path(h).unwrap()))
                .collect();
            assert!(paths.iter().all(|&p| p == paths[0]), "frame {f}: {paths:?}");
            seen.push(paths[0]);
            times.push(world.path_times());
        }
        let end: Vec<Vec<Vec3>> = handles
            .iter()
            .map(|&h| world.positions(h).unwrap())
            .collect();
        (seen, times, end)
    };
    let check = |backend: Backend<'_>, guess_fused: bool| {
        let name = match backend {
            Backend::Cpu => "CPU".to_string(),
            Backend::Gpu(ctx) => ctx.describe(),
        };
        let (seen, times, end) = run(backend, PathChoice::Auto);
        let trial = AUTO_TRIAL_FRAMES as usize;
        let half = trial / 2;
        let second = trial + 2;
        for (k, start) in [0, second].into_iter().enumerate() {
            // The trial: the other path first, then the guess (the first trial's guess is the
            // engine's; the second's is what the first chose).
            let guess = if k == 0 { guess_fused } else { seen[trial] };
            assert!(
                seen[start..start + half].iter().all(|&p| p != guess),
                "{name}: {seen:?}"
            );
            assert!(
                seen[start + half..start + trial]
                    .iter()
                    .all(|&p| p == guess),
                "{name}: {seen:?}"
            );
            // Then the faster by the trial's own times (a tie keeps the guess).
            let t = times[start + trial - 1].expect("a trial measured both paths");
            assert!(t.fused > 0.0 && t.global > 0.0, "{name}: {t:?}");
            let faster = if t.fused == t.global {
                guess
            } else {
                t.fused < t.global
            };
            assert_eq!(seen[start + trial], faster, "{name}: {t:?}, {seen:?}");
            eprintln!(
                "{name}, trial {k}: fused {:.3} ms, global {:.3} ms",
                t.fused * 1e3,
                t.global * 1e3
            );
        }
        assert!(
            times[trial - 2].is_none(),
            "{name}: times before the first trial ended"
        );
        let last = second + trial;
        assert!(
            seen[last..].iter().all(|&p| p == seen[last]),
            "{name}: {seen:?}"
        );
        assert!(
            times[last..].iter().all(|t| *t == times[last - 1]),
            "{name}: no third trial"
        );
        assert!(
            seen[trial..second].iter().all(|&p| p == seen[trial]),
            "{name}: {seen:?}"
        );
        end
    };
    let (forced_fused, none, cpu_fused) = run(Backend::Cpu, PathChoice::Fused);
    assert!(forced_fused.iter().all(|&p| p) && none.iter().all(Option::is_none));
    let (forced_global, _, cpu_global) = run(Backend::Cpu, PathChoice::Global);
    assert!(forced_global.iter().all(|&p| !p));
    assert_eq!(cpu_fused, cpu_global, "the two paths end alike on the CPU");
    assert_eq!(
        check(Backend::Cpu, true),
        cpu_global,
        "an Auto world ends as a Global one"
    );

    // A cloth that cannot fuse after one that can: no trial, the guess.
    let world = World::new(Backend::Cpu, params(), config(PathChoice::Auto)).unwrap();
    let (mut world, handles) = world_of(world, &mixed_cloths());
    for _ in 0..AUTO_TRIAL_FRAMES + 2 {
        world.step(1.0 / 60.0).unwrap();
    }
    assert!(world.path_times().is_none());
    assert!(fused(world.path(handles[0]).unwrap()));

    let ctx = common::gpu_or_return!("auto_times_both_paths_and_keeps_the_faster");
    if !ctx.fuses_cloths() {
        return;
    }
    if ctx.runs_on_cpu() {
        // llvmpipe's loop cap: a 64² cloth at 6 substeps is past what the trial risks on the
        // fused path there (a frame cut short is an error until a reset), so it keeps the guess.
        let config = WorldConfig::default();
        let mut world = World::new(Backend::Gpu(&ctx), params(), config).unwrap();
        let h = world
            .add(
                &common::pinned_grid(64, 64, Pinning::Corners),
                ClothOptions::new(),
            )
            .unwrap();
        for _ in 0..AUTO_TRIAL_FRAMES + 1 {
            world.step(1.0 / 60.0).unwrap();
        }
        assert!(world.path_times().is_none());
        assert_eq!(world.path(h).unwrap(), ClothPath::Global);
    }
    let gpu = check(Backend::Gpu(&ctx), !ctx.runs_on_cpu());
    for (k, (g, c)) in gpu.iter().zip(&cpu_global).enumerate() {
        let d = deviation(g, c);
        let size = capes[0].0.size();
        assert!(
            d.max_m <= LONG_RUN_TOLERANCE * size,
            "cape {k}: {} m from the CPU",
            d.max_m
        );
    }
}

/// Every world and lone solver on one device shares its per-pass kernels: `--scene capes
/// --cloths 1000 --path separate` on lavapipe compiled them once per solver and ran out of
/// 24 GiB (lavapipe keeps each pipeline's machine code); now it holds 2 GiB at most. A solver
/// with another workgroup size compiles its own set, every solver still steps alike, and the
/// sets go when the last solver holding them does.
#[test]
fn solvers_on_one_context_share_their_kernels() {
    let ctx = common::gpu_or_return!("solvers_on_one_context_share_their_kernels");
    assert_eq!(chiffon::gpu::compiled_kernel_sets(&ctx), 0);
    let cape = corners_8x8();
    let solver = |workgroup_size: u32| {
        let params = SolverParams::default();
        Solver::with_workgroup_size(Backend::Gpu(&ctx), &cape, params, workgroup_size).unwrap()
    };
    let mut solvers: Vec<Solver> = (0..20).map(|_| solver(128)).collect();
    assert_eq!(chiffon::gpu::compiled_kernel_sets(&ctx), 1);
    solvers.push(solver(64));
    assert_eq!(chiffon::gpu::compiled_kernel_sets(&ctx), 2);
    let clone = ctx.clone();
    let world = World::new(
        Backend::Gpu(&clone),
        SolverParams::default(),
        WorldConfig::default(),
    );
    assert_eq!(
        chiffon::gpu::compiled_kernel_sets(&ctx),
        2,
        "a clone of the context shares them"
    );
    for s in &mut solvers {
        s.step(1.0 / 60.0).unwrap();
    }
    let first = solvers[0].positions().unwrap();
    for s in &mut solvers[1..] {
        assert_eq!(s.positions().unwrap(), first);
    }
    drop(solvers);
    drop(world);
    assert_eq!(chiffon::gpu::compiled_kernel_sets(&ctx), 0);
}

/// A cape hung by its top edge whose pins sway sideways as a walking figure's collar does (5 cm
/// at 1.5 Hz: up to 8 mm a frame) for 60 frames and then stand. `World::set_particle` moved a
/// pin the whole way at each frame's first substep, and the edges below it took the jerk (the
/// demo's walking figure: its cape's worst edge was 1.25 there). `World::move_pin` carries the
/// pins over the frame's substeps, as a collider is carried between its poses. So the pins end
/// every frame at their targets, stop once no longer moved, the cape stretches less than with
/// the jumps, and the GPU matches the CPU reference on both paths.
#[test]
fn a_pin_moved_each_frame_carries_the_cloth_without_a_jump() {
    const TEST: &str = "a_pin_moved_each_frame_carries_the_cloth_without_a_jump";
    let ctx = common::gpu(TEST);
    // Edges of 1.25 cm, about the demo cape's: a pin's 8 mm jump stretches them by a fifth.
    let cape = ClothBuilder::grid(16, 16)
        .spacing(0.0125)
        .layout(Layout::Hanging { top: 1.0 })
        .pinning(Pinning::Edge)
        .build()
        .unwrap();
    let pins: Vec<usize> = (0..cape.particle_count())
        .filter(|&i| cape.is_pinned(i))
        .collect();
    assert_eq!(pins.len(), 16);
    let sway = |frame: u32| {
        let t = frame.min(60) as f32 / 60.0;
        Vec3::new(0.05 * (std::f32::consts::TAU * 1.5 * t).sin(), 0.0, 0.0)
    };
    // The worst edge over 80 frames, and where the cape ends.
    let run = |backend: Backend<'_>, paths: PathChoice, carried: bool| -> (f64, Vec<Vec3>) {
        let mut world = World::new(backend, SolverParams::default(), config(paths)).unwrap();
        let h = world.add(&cape, ClothOptions::new()).unwrap();
        let start = world.positions(h).unwrap();
        let mut worst = 0.0f64;
        for frame in 1..=80 {
            for &i in pins.iter().filter(|_| frame <= 60) {
                let target = start[i] + sway(frame);
                if carried {
                    world.move_pin(h, i, target).unwrap();
                } else {
                    world.set_particle(h, i, target, 0.0).unwrap();
                }
            }
            world.step(1.0 / 60.0).unwrap();
            let x = world.positions(h).unwrap();
            worst = worst.max(chiffon::quality::stretch(&cape, &x).max);
            for &i in &pins {
                let off = x[i].distance(start[i] + sway(frame));
                assert!(
                    off < 1e-5,
                    "frame {frame}: pin {i} is {off} m off its target"
                );
            }
        }
        (worst, world.positions(h).unwrap())
    };
    for paths in [PathChoice::Global, PathChoice::Fused] {
        let mut ends = Vec::new();
        for backend in common::backends(&ctx) {
            let kind = match backend {
                Backend::Cpu => "cpu",
                Backend::Gpu(_) => "gpu",
            };
            let name = format!("{kind} on the {paths:?} path");
            let (jumps, _) = run(backend, paths, false);
            let (carried, end) = run(backend, paths, true);
            eprintln!("{name}: worst edge {jumps:.4} with jumps, {carried:.4} carried");
            assert!(
                carried < jumps - 0.01,
                "{name}: worst edge {carried} carried, {jumps} with jumps"
            );
            ends.push(end);
        }
        if let [cpu, gpu] = &ends[..] {
            let d = deviation(gpu, cpu);
            assert!(
                d.max_m <= LONG_RUN_TOLERANCE * cape.size(),
                "{paths:?}: GPU particle {} off by {} m",
                d.worst_particle,
                d.max_m
            );
        }
    }
}

/// A pin can only be moved while it is pinned, to a finite place; the error names the particle.
#[test]
fn moving_a_free_particle_or_to_nan_is_a_clear_error() {
    let mut world = cpu_world();
    let h = world.add(&hanging_cape(1.0), ClothOptions::new()).unwrap();
    let free = 16 * 8;
    let err = world.move_pin(h, free, Vec3::ZERO).unwrap_err().to_string();
    assert!(
        err.contains(&format!("particle {free} is not pinned")),
        "{err}"
    );
    let err = world.move_pin(h, 0, Vec3::NAN).unwrap_err().to_string();
    assert!(err.contains("pin target"), "{err}");
    let err = world
        .move_pin(h, 10_000, Vec3::ZERO)
        .unwrap_err()
        .to_string();
    assert!(err.contains("out of range"), "{err}");
    // A free particle held by set_particle (as the demo grabs one) can be carried.
    world
        .set_particle(h, free, Vec3::new(0.0, 0.5, 0.0), 0.0)
        .unwrap();
    world.move_pin(h, free, Vec3::new(0.0, 0.6, 0.0)).unwrap();
    world.step(1.0 / 60.0).unwrap();
    let carried = world.positions(h).unwrap()[free];
    assert!(
        carried.distance(Vec3::new(0.0, 0.6, 0.0)) < 1e-6,
        "{carried}"
    );
    // Freed after a move is asked: the move is cancelled, and the particle falls as any other.
    world.move_pin(h, 0, Vec3::new(5.0, 5.0, 5.0)).unwrap();
    world.set_inverse_mass(h, 0, 1.0).unwrap();
    world.step(1.0 / 60.0).unwrap();
    assert!(world.positions(h).unwrap()[0].x < 1.0);
}

/// A sleeping cape whose pin is carried wakes, and the pin reaches its target in the frame: the
/// fused kernel skips a sleeping cloth's frame, and the flag in the pin's previous position
/// would wait there for a frame that never came.
#[test]
fn moving_a_sleeping_capes_pin_wakes_it() {
    let ctx = common::gpu("moving_a_sleeping_capes_pin_wakes_it");
    let sleep = Sleep {
        speed: 0.02,
        frames: 20,
    };
    for backend in common::backends(&ctx) {
        let (mut world, h) = sleepy_world(backend, Some(sleep));
        for _ in 0..20 {
            world.step(1.0 / 60.0).unwrap();
        }
        assert_eq!(asleep(&mut world, &h), [true, true, true, false]);
        let target = world.positions(h[0]).unwrap()[0] + Vec3::new(0.03, 0.0, 0.0);
        world.move_pin(h[0], 0, target).unwrap();
        assert_eq!(asleep(&mut world, &h), [false, true, true, false]);
        world.step(1.0 / 60.0).unwrap();
        let at = world.positions(h[0]).unwrap()[0];
        assert!(
            at.distance(target) < 1e-6,
            "{backend:?}: the pin is at {at}, not {target}"
        );
    }
}
