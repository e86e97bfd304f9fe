//! Contact: a square cloth dropped flat onto a sphere, a box and a capsule (each above a
//! ground plane), with self-collision on so it does not pass through itself where it folds.
//! After two seconds it prints how far the cloth stays from each body's surface, which it
//! measures itself rather than asking the solver.
//!
//! ```sh
//! cargo run --release --example contact
//! ```
//!
//! It runs on the GPU when wgpu finds one, and on the CPU reference otherwise.

use chiffon::glam::{Quat, Vec3};
use chiffon::{
    Backend, ClothBuilder, Collider, GpuContext, Layout, Pinning, SelfCollision, Solver,
    SolverParams,
};

/// A body the cloth falls on, and the signed distance from its surface (m, negative inside),
/// written out here from the same numbers the collider is made of.
struct Body {
    name: &'static str,
    collider: Collider,
    surface_distance: Box<dyn Fn(Vec3) -> f32>,
}

fn bodies() -> Vec<Body> {
    let (centre, radius) = (Vec3::new(0.0, 0.5, 0.0), 0.3);
    let sphere = Body {
        name: "sphere",
        collider: Collider::sphere(centre, radius),
        surface_distance: Box::new(move |p| p.distance(centre) - radius),
    };

    // A box turned 30° about the vertical.
    let (centre, half, turn) = (
        Vec3::new(0.0, 0.4, 0.0),
        Vec3::new(0.25, 0.1, 0.25),
        Quat::from_rotation_y(30f32.to_radians()),
    );
    let cuboid = Body {
        name: "box",
        collider: Collider::cuboid(centre, half, turn),
        surface_distance: Box::new(move |p| {
            let d = (turn.inverse() * (p - centre)).abs() - half;
            d.max(Vec3::ZERO).length() + d.max_element().min(0.0)
        }),
    };

    // A horizontal bar with rounded ends (both radii equal; they may differ for a tapered one).
    let (a, b, radius) = (Vec3::new(-0.35, 0.4, 0.0), Vec3::new(0.35, 0.4, 0.0), 0.12);
    let capsule = Body {
        name: "capsule",
        collider: Collider::capsule(a, b, radius, radius),
        surface_distance: Box::new(move |p| {
            let t = ((p - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
            p.distance(a + t * (b - a)) - radius
        }),
    };
    vec![sphere, cuboid, capsule]
}

fn main() -> chiffon::Result<()> {
    // 24 × 24 particles, 1 m square, lying flat at y = 1 m, nothing pinned.
    let cloth = ClothBuilder::grid(24, 24)
        .layout(Layout::Flat { height: 1.0 })
        .pinning(Pinning::None)
        .build()?;

    let gpu = GpuContext::new_or_none();
    let backend = gpu.as_ref().map_or(Backend::Cpu, Backend::Gpu);

    // Self-collision keeps particles this far apart unless they were closer at rest: by
    // default 1.5 mean edge lengths (`chiffon::params::AUTO_SELF_THICKNESS`).
    let apart = chiffon::params::AUTO_SELF_THICKNESS * cloth.mean_edge_length();
    let rest = cloth.positions();

    for body in bodies() {
        let thickness = body.collider.thickness; // kept from the surface: 5 mm by default
        let params = SolverParams {
            colliders: vec![body.collider, Collider::ground(0.0)],
            self_collision: Some(SelfCollision::default()),
            ..SolverParams::default()
        };
        let mut solver = Solver::new(backend, &cloth, params)?;
        if body.name == "sphere" {
            println!("on {}", solver.backend_name());
        }

        // 1.25 s; from the first half second on (it lands after a third), the closest any
        // particle came to the surface.
        let mut closest = f32::INFINITY;
        for frame in 1..=75 {
            solver.step(1.0 / 60.0)?;
            if frame >= 30 && frame % 5 == 0 {
                let positions = solver.positions()?;
                let nearest = positions.iter().map(|&p| (body.surface_distance)(p));
                closest = closest.min(nearest.fold(f32::INFINITY, f32::min));
            }
        }
        let positions = solver.positions()?;
        let resting = positions
            .iter()
            .filter(|&&p| (body.surface_distance)(p) < thickness + 0.005)
            .count();
        // The closest two particles that were not within `apart` of each other at rest.
        let mut closest_pair = f32::INFINITY;
        for i in 0..positions.len() {
            for j in i + 1..positions.len() {
                if rest[i].distance(rest[j]) >= apart {
                    closest_pair = closest_pair.min(positions[i].distance(positions[j]));
                }
            }
        }
        println!(
            "{:>7}: {resting:>3} of {} particles rest on it; the closest came {:.1} mm from its \
             surface (it keeps {:.1} mm); the cloth came within {:.1} mm of itself (it keeps \
             {:.1} mm)",
            body.name,
            positions.len(),
            closest * 1e3,
            thickness * 1e3,
            closest_pair * 1e3,
            apart * 1e3
        );
    }
    Ok(())
}
