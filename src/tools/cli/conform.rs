//! `chiffon conform`: the same scene on the GPU and on the CPU reference, and the verdict.

use std::process::ExitCode;

use anyhow::{Result, bail};
use serde_json::json;

use super::SceneArgs;
use super::simulate::{describe_cloth, make_solver, note_missing_tethers};
use crate::Solver;
use crate::conformance::verdict;
use crate::tools::BackendKind as Backend;

pub(super) fn conform(
    scene: &SceneArgs,
    tolerance: f32,
    as_json: bool,
    perturb: f32,
) -> Result<ExitCode> {
    if tolerance <= 0.0 {
        bail!("--tolerance {tolerance} must be a positive fraction of the cloth size");
    }
    if perturb.abs() > crate::config::MAX_COORDINATE {
        bail!(
            "--perturb {perturb} m is farther than any coordinate chiffon takes ({} m)",
            crate::config::MAX_COORDINATE
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
