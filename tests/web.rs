//! What the browser build relies on, checked natively: the async readers return what the
//! blocking ones do, and a device with the web's default limits (8 storage buffers per shader
//! stage, 16 KiB of workgroup memory) fuses small cloths, one with fewer storage buffers solves
//! every cloth on the global path, and both match the CPU. `web/test` runs the same scenes in
//! a real browser.

mod common;

use chiffon::conformance::deviation;
use chiffon::world::{ClothPath, PathChoice};
use chiffon::{
    Backend, ClothBuilder, ClothOptions, Collider, GpuContext, Layout, Pinning, Solver,
    SolverParams, World, WorldConfig,
};
use glam::Vec3;

/// `ctx`'s adapter opened again with WebGPU's default limits, but `storage_buffers` storage
/// buffers per shader stage.
fn with_web_limits(ctx: &GpuContext, storage_buffers: u32) -> GpuContext {
    ctx.with_limits(wgpu::Limits {
        max_storage_buffers_per_shader_stage: storage_buffers,
        ..wgpu::Limits::default()
    })
    .unwrap()
}

#[test]
fn a_device_with_the_webs_default_limits_fuses_and_one_with_fewer_buffers_goes_global() {
    let native = common::gpu_or_return!("a_device_with_the_webs_default_limits");
    assert_eq!(
        wgpu::Limits::default().max_storage_buffers_per_shader_stage,
        8
    );
    assert_eq!(GpuContext::fused_storage_buffers(), 8);
    let params = SolverParams {
        colliders: vec![Collider::ground(-0.6)],
        air: Some(chiffon::Air::wind(Vec3::new(3.0, 0.0, 1.5)).with_gusts(0.3)),
        ..Default::default()
    };
    let config = WorldConfig {
        paths: PathChoice::Fused,
        ..WorldConfig::default()
    };
    for storage_buffers in [8, 7] {
        let ctx = with_web_limits(&native, storage_buffers);
        assert_eq!(ctx.fuses_cloths(), storage_buffers == 8);
        let mut gpu = World::new(Backend::Gpu(&ctx), params.clone(), config).unwrap();
        let mut cpu = World::new(Backend::Cpu, params.clone(), config).unwrap();
        let mut handles = Vec::new();
        for (k, side) in [8, 12, 16].into_iter().enumerate() {
            let cloth = ClothBuilder::grid(side, side)
                .spacing(0.5 / side as f32)
                .pinning(Pinning::Corners)
                .build()
                .unwrap();
            let at = ClothOptions::new().translate(Vec3::new(k as f32 - 1.0, 0.0, 0.0));
            handles.push((gpu.add(&cloth, at).unwrap(), cpu.add(&cloth, at).unwrap()));
        }
        for &(g, c) in &handles {
            // 16 KiB of workgroup memory holds these cloths' particles.
            let expected = if storage_buffers == 8 {
                ClothPath::Fused {
                    workgroup_memory: true,
                }
            } else {
                ClothPath::Global
            };
            assert_eq!(gpu.path(g).unwrap(), expected, "{storage_buffers} buffers");
            assert!(matches!(cpu.path(c).unwrap(), ClothPath::Fused { .. }));
        }
        for _ in 0..60 {
            gpu.step(1.0 / 60.0).unwrap();
            cpu.step(1.0 / 60.0).unwrap();
        }
        let all = gpu.all_positions().unwrap();
        assert_eq!(pollster::block_on(gpu.all_positions_async()).unwrap(), all);
        for (g, c) in handles {
            let d = deviation(&gpu.positions(g).unwrap(), &cpu.positions(c).unwrap());
            let size = cpu.cloth(c).unwrap().size();
            assert!(
                d.max_m <= chiffon::conformance::LONG_RUN_TOLERANCE * size,
                "{storage_buffers} buffers: {d:?}"
            );
        }
        gpu.health().unwrap();
    }
}

#[test]
fn the_async_readers_return_what_the_blocking_ones_do() {
    let ctx = common::gpu_or_return!("the_async_readers_return_what_the_blocking_ones_do");
    let ctx2 = pollster::block_on(GpuContext::new_async()).unwrap();
    assert_eq!(ctx2.info().name, ctx.info().name);
    let cloth = ClothBuilder::grid(24, 16)
        .layout(Layout::Flat { height: 1.0 })
        .pinning(Pinning::Corners)
        .build()
        .unwrap();
    for backend in [Backend::Gpu(&ctx), Backend::Cpu] {
        let mut solver = Solver::new(backend, &cloth, SolverParams::default()).unwrap();
        for _ in 0..20 {
            solver.step(1.0 / 60.0).unwrap();
        }
        let blocking = solver.raw_positions().unwrap();
        assert_eq!(
            pollster::block_on(solver.raw_positions_async()).unwrap(),
            blocking
        );
        let moved = pollster::block_on(solver.positions_async()).unwrap();
        assert!(
            moved
                .iter()
                .zip(cloth.positions())
                .any(|(p, q)| p.distance(*q) > 0.01)
        );
        pollster::block_on(solver.health_async()).unwrap();
    }
    let buffer_values: Vec<f32> = {
        let buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: 16,
            usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        ctx.queue
            .write_buffer(&buffer, 0, bytemuck::cast_slice(&[1.0f32, 2.0, 3.0, 4.0]));
        pollster::block_on(ctx.read_buffer_async(&buffer)).unwrap()
    };
    assert_eq!(buffer_values, [1.0, 2.0, 3.0, 4.0]);
}

#[test]
fn a_diverged_cloth_is_named_by_the_async_health_check() {
    let ctx = common::gpu_or_return!("a_diverged_cloth_is_named_by_the_async_health_check");
    let cloth = common::pinned_grid(8, 8, Pinning::Corners);
    let mut solver = Solver::new(Backend::Gpu(&ctx), &cloth, SolverParams::default()).unwrap();
    solver.step(1.0 / 60.0).unwrap();
    // Hold particle 5 five kilometres away: beyond the 1 km health limit.
    solver
        .set_particle(5, Vec3::new(5000.0, 0.0, 0.0), 0.0)
        .unwrap();
    // The step may or may not have seen the flag yet (it reads it without waiting).
    let _ = solver.step(1.0 / 60.0);
    let err = pollster::block_on(solver.health_async()).unwrap_err();
    assert!(
        matches!(err, chiffon::ChiffonError::Diverged { particle, frame: 2, .. } if particle <= 5),
        "{err}"
    );
}
