//! Graph coloring: valid on grids and random graphs, 8 distance colors and 12 of bending
//! stencils on a full grid, bounded whatever the valence, and a broken coloring is caught.

use chiffon::coloring::{
    ColoredConstraints, Coloring, MAX_DISTANCE_COLORS, MAX_STENCIL_COLORS, SERIAL_UNITS,
    color_constraints,
};
use chiffon::config::{ColorRange, StepParams};
use chiffon::{Cloth, ClothBuilder, ClothDesc, Constraint, ConstraintKind, Pinning};
use glam::{Vec3, Vec4};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn kinds_combinations() -> Vec<[bool; 3]> {
    let mut v = Vec::new();
    for mask in 1u32..8 {
        v.push([0, 1, 2].map(|b| mask & (1 << b) != 0));
    }
    v
}

/// A `w`×`h` grid, nothing pinned, with the constraint kinds `kinds` (structural, shear, bend)
/// on or off.
fn grid_of_kinds(w: u32, h: u32, kinds: [bool; 3]) -> Cloth {
    ClothBuilder::grid(w, h)
        .pinning(Pinning::None)
        .constraint(ConstraintKind::Structural, kinds[0])
        .constraint(ConstraintKind::Shear, kinds[1])
        .constraint(ConstraintKind::Bend, kinds[2])
        .build()
        .unwrap()
}

/// How many of a cloth's colors hold distances, and how many bending stencils.
fn distance_and_stencil_colors(cloth: &Cloth) -> (usize, usize) {
    let stencil = cloth
        .colors()
        .iter()
        .filter(|r| cloth.constraints()[r.start as usize].is_stencil())
        .count();
    (cloth.colors().len() - stencil, stencil)
}

#[test]
fn grids_are_validly_colored_with_at_most_8_distance_and_12_stencil_colors() {
    let sizes = [
        (2, 2),
        (2, 3),
        (3, 2),
        (5, 7),
        (16, 16),
        (33, 17),
        (64, 64),
        (257, 129),
    ];
    for (w, h) in sizes {
        for s in kinds_combinations() {
            let cloth = grid_of_kinds(w, h, s);
            ColoredConstraints::from_sorted(
                cloth.constraints().to_vec(),
                cloth.colors().to_vec(),
                cloth.colored().serial_colors().to_vec(),
                cloth.particle_count(),
            )
            .unwrap_or_else(|e| panic!("{w}x{h} {s:?}: {e}"));
            let (distance, stencil) = distance_and_stencil_colors(&cloth);
            assert!(
                distance <= 8 && stencil <= 12 && (stencil > 0) == s[2],
                "{w}x{h} {s:?}: {distance} distance and {stencil} stencil colors"
            );
        }
    }
}

/// The strain limit after contact sweeps a cloth's first colors up to the last that holds a
/// structural edge: every structural edge is in them, and the stencil colors after them are
/// skipped (the fused kernel used to sweep all of a cloth's colors, its 12 stencil colors
/// among them, with a barrier after each).
#[test]
fn the_strain_limit_sweeps_every_structural_edge_and_skips_the_stencil_colors() {
    for s in kinds_combinations() {
        let cloth = grid_of_kinds(33, 17, s);
        let colored = cloth.colored();
        let limit = colored.limit_colors_below(cloth.colors().len());
        let (distance, _) = distance_and_stencil_colors(&cloth);
        let structural_at = |c: usize| {
            let r = &cloth.colors()[c];
            cloth.constraints()[r.start as usize..r.end as usize]
                .iter()
                .any(Constraint::is_structural)
        };
        assert!(
            limit <= distance,
            "{s:?}: {limit} limit colors of {distance}"
        );
        assert!(
            (limit..cloth.colors().len()).all(|c| !structural_at(c)),
            "{s:?}: a structural edge after the limit's {limit} colors"
        );
        assert_eq!(limit > 0, s[0], "{s:?}: {limit} limit colors");
        if s[0] {
            assert!(
                structural_at(limit - 1),
                "{s:?}: the last limit color is not needed"
            );
        }
        // Counting only the first colors counts no further.
        assert_eq!(colored.limit_colors_below(limit), limit);
        assert_eq!(colored.limit_colors_below(0), 0);
    }
}

#[test]
fn full_grid_reaches_the_eight_and_twelve_color_optima() {
    // An interior particle touches 8 distances (4 structural, 4 shear) and is in 12 bending
    // stencils (across its 6 edges, and across the 6 edges opposite it in its triangles), so
    // 8 and 12 are the lower bounds; the builder's order of each lets the greedy coloring
    // reach them (it took 13 for the stencils in the triangles' order).
    let cloth = ClothBuilder::grid(64, 64).build().unwrap();
    assert_eq!(
        distance_and_stencil_colors(&cloth),
        (8, 12),
        "sizes {:?}",
        cloth.color_sizes()
    );
}

#[test]
fn colors_are_balanced_on_a_full_grid() {
    let cloth = ClothBuilder::grid(128, 128).build().unwrap();
    let sizes = cloth.color_sizes();
    let (min, max) = (*sizes.iter().min().unwrap(), *sizes.iter().max().unwrap());
    assert!(min * 10 >= max * 8, "unbalanced color sizes {sizes:?}");
}

fn random_graph(seed: u64, n: u32, m: usize) -> Vec<[u32; 2]> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut pairs = Vec::with_capacity(m);
    while pairs.len() < m {
        let (i, j) = (rng.random_range(0..n), rng.random_range(0..n));
        if i != j {
            pairs.push([i, j]);
        }
    }
    pairs
}

#[test]
fn random_graphs_are_validly_colored() {
    for seed in 0..20 {
        // From sparse to dense; the dense ones have particles of degree > 64, which needs more
        // than one word of color bits per particle.
        for (n, m) in [(10, 5), (100, 300), (1000, 6000), (200, 8000)] {
            let pairs = random_graph(seed, n, m);
            let coloring = color_constraints(&pairs, n as usize);
            coloring
                .validate(&pairs, n as usize)
                .unwrap_or_else(|e| panic!("seed {seed}, {n} particles, {m} pairs: {e}"));
        }
    }
}

/// A hub of any valence: greedy coloring stops at `MAX_DISTANCE_COLORS`, and the constraints
/// that fit no color go into one serial color after them, which alone may name a particle
/// twice. Before, a fan of 2000 spokes took 2000 colors, a dispatch each.
#[test]
fn a_hub_of_2000_spokes_takes_a_bounded_number_of_colors() {
    let spokes = 2000u32;
    // Spokes from particle 0, and the rim between their ends.
    let mut pairs: Vec<[u32; 2]> = (1..=spokes).map(|k| [0, k]).collect();
    pairs.extend((1..=spokes).map(|k| [k, 1 + k % spokes]));
    let n = spokes as usize + 1;
    let coloring = color_constraints(&pairs, n);
    coloring.validate(&pairs, n).unwrap();
    let colors = coloring.ranges.len();
    assert!(colors <= MAX_DISTANCE_COLORS + 1, "{colors} colors");
    // The serial color is the last, and the only one.
    assert_eq!(coloring.serial.iter().filter(|&&s| s).count(), 1);
    assert_eq!(coloring.serial.last(), Some(&true));
    let serial = coloring.ranges.last().unwrap();
    assert!(serial.end - serial.start >= spokes - MAX_DISTANCE_COLORS as u32);

    // The same check, not told the color is serial, refuses it.
    let mut parallel = coloring.clone();
    *parallel.serial.last_mut().unwrap() = false;
    let err = parallel.validate(&pairs, n).unwrap_err();
    assert!(err.to_string().contains("appears twice"), "{err}");
}

/// A hub of 40 000 spokes: its overflow is split into serial colors of at most
/// `SERIAL_UNITS`, one after another, since llvmpipe ends one thread's loops after 65 535
/// iterations (a 70 000-triangle fan parted from its CPU twin by 0.13 mm in 10 frames on
/// lavapipe with one serial color; `chiffon conform --mesh` now gives 0.0 m).
#[test]
fn a_hubs_overflow_is_split_into_serial_colors_one_thread_can_walk() {
    let spokes = 40_000u32;
    let pairs: Vec<[u32; 2]> = (1..=spokes).map(|k| [0, k]).collect();
    let n = spokes as usize + 1;
    let coloring = color_constraints(&pairs, n);
    coloring.validate(&pairs, n).unwrap();
    let serial: Vec<u32> = (coloring.ranges.iter().zip(&coloring.serial))
        .filter(|(_, s)| **s)
        .map(|(r, _)| r.end - r.start)
        .collect();
    let overflow = spokes - MAX_DISTANCE_COLORS as u32;
    assert_eq!(
        serial.len() as u32,
        overflow.div_ceil(SERIAL_UNITS),
        "{serial:?}"
    );
    assert!(serial.iter().all(|&n| n <= SERIAL_UNITS), "{serial:?}");
    assert_eq!(serial.iter().sum::<u32>(), overflow);
}

/// A disc of 300 triangles round one vertex, as a cloth: its distance and stencil colors are
/// each bounded, a serial color after each; a serial color's records are solved only when the
/// range says so, never in parallel.
#[test]
fn a_fans_serial_colors_are_solved_only_as_serial() {
    let segments = 300u32;
    let mut positions = vec![Vec3::ZERO];
    positions.extend((0..segments).map(|k| {
        let a = std::f32::consts::TAU * k as f32 / segments as f32;
        Vec3::new(a.cos(), 0.0, a.sin())
    }));
    let triangles = (0..segments)
        .map(|k| [0, 1 + k, 1 + (k + 1) % segments])
        .collect();
    let mesh = chiffon::geometry::TriangleMesh::new("fan", positions, triangles);
    let cloth = ClothBuilder::mesh(mesh).build().unwrap();
    let colored = cloth.colored();
    let serial: Vec<usize> = (0..cloth.colors().len())
        .filter(|&c| colored.is_serial_color(c))
        .collect();
    assert_eq!(
        serial.len(),
        2,
        "a serial distance color and a serial stencil color"
    );
    assert!(cloth.colors().len() <= MAX_DISTANCE_COLORS + MAX_STENCIL_COLORS + 2);
    for &c in &serial {
        let range = colored.color_range(c);
        assert!(range.is_serial() && colored.color(&range).is_some());
        assert_eq!(colored.color_threads(c), 1);
        // The same records as a parallel range are not one of the colors.
        assert!(colored.color(&range.serial(false)).is_none());
    }
}

#[test]
fn balancing_dissolves_tiny_colors() {
    for seed in 0..5 {
        let pairs = random_graph(seed, 2000, 12000);
        let coloring = color_constraints(&pairs, 2000);
        let sizes = coloring.sizes();
        let mean = pairs.len() as u32 / sizes.len() as u32;
        let tiny = sizes.iter().filter(|&&s| s * 20 < mean).count();
        // Greedy alone leaves a long tail of near-empty colors on random graphs.
        assert!(tiny <= 2, "seed {seed}: sizes {sizes:?}");
    }
}

#[test]
fn broken_colorings_are_detected() {
    let cloth = ClothBuilder::grid(8, 8).build().unwrap();
    let pairs: Vec<[u32; 2]> = cloth.constraints().iter().map(|c| [c.i, c.j]).collect();
    let n = cloth.particle_count();
    let good = Coloring {
        order: (0..pairs.len() as u32).collect(),
        ranges: cloth.colors().to_vec(),
        serial: vec![false; cloth.colors().len()],
    };
    good.validate(&pairs, n).unwrap();

    // Two constraints sharing a particle put into the same color.
    let mut conflict = good.clone();
    let k0 = good.ranges[0].start as usize;
    let shares = |k: u32| {
        let ([a, b], [p, q]) = (pairs[k as usize], pairs[k0]);
        a == p || a == q || b == p || b == q
    };
    let k1 = (good.ranges[0].end..pairs.len() as u32)
        .find(|&k| shares(k))
        .expect("a neighbouring constraint in another color") as usize;
    conflict.order.swap(k0 + 1, k1);
    assert!(
        conflict.validate(&pairs, n).is_err(),
        "shared particle not caught"
    );

    // A constraint left out.
    let mut dropped = good.clone();
    dropped.order.pop();
    dropped.ranges.last_mut().unwrap().end -= 1;
    assert!(
        dropped.validate(&pairs, n).is_err(),
        "missing constraint not caught"
    );

    // A constraint in two colors (and so another missing).
    let mut twice = good.clone();
    twice.order[0] = twice.order[1];
    assert!(twice.validate(&pairs, n).is_err(), "duplicate not caught");

    // Overlapping ranges.
    let mut overlap = good.clone();
    overlap.ranges[1].start -= 1;
    assert!(overlap.validate(&pairs, n).is_err(), "overlap not caught");
}

/// Regression: `cpu::solve_color` was a safe public function that aliased `&mut` through a raw
/// pointer when handed an invalid coloring, and `GpuSolver` never checked its coloring. Now
/// only a checked coloring can be built, and the kernel refuses any range that is not exactly
/// one of its colors.
#[test]
fn solve_color_is_sound_with_an_invalid_coloring() {
    let cloth = ClothBuilder::grid(8, 8).build().unwrap();
    let n = cloth.particle_count();

    // A coloring with two constraints of one particle in the same color cannot be built.
    let mut sorted = cloth.constraints().to_vec();
    let first = cloth.colors()[0].clone();
    let shares =
        |a: &Constraint, b: &Constraint| a.i == b.i || a.i == b.j || a.j == b.i || a.j == b.j;
    let k1 = (first.end as usize..sorted.len())
        .find(|&k| shares(&sorted[k], &sorted[first.start as usize]))
        .unwrap();
    sorted.swap(first.start as usize + 1, k1);
    let serial = vec![false; cloth.colors().len()];
    let err =
        ColoredConstraints::from_sorted(sorted, cloth.colors().to_vec(), serial, n).unwrap_err();
    assert!(err.to_string().contains("appears twice"), "{err}");

    // Nor one naming a particle that does not exist, or joining a particle to itself.
    let out_of_range = Constraint::new(0, n as u32, 1.0, ConstraintKind::Structural);
    assert!(ColoredConstraints::new(&[out_of_range], n).is_err());
    let to_itself = Constraint::new(3, 3, 1.0, ConstraintKind::Structural);
    assert!(ColoredConstraints::new(&[to_itself], n).is_err());

    // A range spanning two colors (so sharing particles) is refused, not raced on.
    let two_colors = ColorRange::new(&(first.start..cloth.colors()[1].end));
    let mut positions: Vec<Vec4> = cloth.positions().iter().map(|p| p.extend(1.0)).collect();
    let previous = positions.clone();
    let mut multipliers = vec![0.0; cloth.constraint_count()];
    let params = StepParams::default();
    // Solves the constraints of `range` in `positions`, with the cloth's checked coloring.
    let mut solve = |range: &ColorRange, positions: &mut [Vec4]| {
        chiffon::cpu::solve_color(
            range,
            cloth.colored(),
            positions,
            &previous,
            &mut multipliers,
            &params,
            &[Vec4::ZERO],
        )
    };
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        solve(&two_colors, &mut positions)
    }));
    assert!(outcome.is_err(), "a range that is not one color was solved");

    // Too few positions for the coloring is refused too.
    let mut short = vec![Vec4::ZERO; n / 2];
    let first_range = ColorRange::new(&first);
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        solve(&first_range, &mut short)
    }));
    assert!(outcome.is_err(), "out-of-bounds positions were solved");

    // The checked colors themselves are accepted.
    for range in cloth.colors() {
        solve(&ColorRange::new(range), &mut positions);
    }
}

#[test]
fn every_way_to_make_a_cloth_validates_it() {
    let rope = |inverse_mass: Vec<f32>, j: u32| ClothDesc {
        positions: vec![Vec3::ZERO, Vec3::X, 2.0 * Vec3::X],
        inverse_mass,
        constraints: vec![
            Constraint::new(0, 1, 1.0, ConstraintKind::Structural),
            Constraint::new(1, j, 1.0, ConstraintKind::Structural),
        ],
        ..Default::default()
    };
    let ok = Cloth::new(rope(vec![0.0, 1.0, 1.0], 2)).unwrap();
    assert_eq!(ok.colors().len(), 2, "the two links share particle 1");
    for (desc, why) in [
        (rope(vec![0.0, 1.0, 1.0], 3), "particles 1 and 3"),
        (rope(vec![0.0, 1.0], 2), "inverse masses"),
        (rope(vec![0.0, f32::NAN, 1.0], 2), "inverse mass"),
        (rope(vec![0.0, -1.0, 1.0], 2), "inverse mass"),
    ] {
        let err = Cloth::new(desc).unwrap_err().to_string();
        assert!(err.contains(why), "{why}: {err}");
    }
    let mut nan = rope(vec![0.0, 1.0, 1.0], 2);
    nan.positions[1].y = f32::NAN;
    assert!(Cloth::new(nan).is_err());
}

/// A bending stencil is two records: a head without its tail, a tail alone, or a stencil that
/// names a particle twice is refused with a sentence, and a whole one is colored apart from the
/// distances (a color of its own, head then tail).
#[test]
fn a_half_stencil_is_refused_and_a_whole_one_gets_a_color_of_its_own() {
    let square = |constraints: Vec<Constraint>| ClothDesc {
        positions: vec![Vec3::ZERO, Vec3::X, Vec3::Z, Vec3::new(1.0, 0.0, -1.0)],
        inverse_mass: vec![1.0; 4],
        constraints,
        ..Default::default()
    };
    let edge = Constraint::new(0, 1, 1.0, ConstraintKind::Structural);
    let [head, tail] = Constraint::stencil([0, 1, 2, 3], [1.0, 1.0, -1.0]);
    for bad in [vec![edge, head], vec![tail, edge], vec![edge, tail, head]] {
        let e = Cloth::new(square(bad)).unwrap_err().to_string();
        assert!(e.contains("half of a bending stencil"), "{e}");
    }
    // The coloring itself refuses the same without a panic.
    assert!(ColoredConstraints::new(&[tail, head], 4).is_err());
    let [h2, t2] = Constraint::stencil([0, 1, 2, 1], [1.0, 1.0, -1.0]);
    let e = Cloth::new(square(vec![h2, t2])).unwrap_err().to_string();
    assert!(e.contains("names a particle twice"), "{e}");
    let cloth = Cloth::new(square(vec![head, tail, edge])).unwrap();
    assert_eq!(cloth.colors().len(), 2);
    let records = cloth.constraints();
    assert!(records[0].is_distance());
    assert!(records[1].is_stencil() && records[2].is_stencil_tail());
    // A membrane triangle is such a pair too: refused half, with a particle twice, joined to
    // a stencil's other half, or with a rest matrix that is not finite; a whole one gets a
    // color of its own, apart from the stencils'.
    let [th, tt] = Constraint::triangle([0, 1, 2], [1.0, 0.0, 1.0], 0.3);
    for bad in [
        vec![edge, th],
        vec![tt, edge],
        vec![th, tail],
        vec![head, tt],
    ] {
        let e = Cloth::new(square(bad)).unwrap_err().to_string();
        assert!(
            e.contains("half of a bending stencil or a membrane triangle"),
            "{e}"
        );
    }
    for twice in [[0, 1, 0], [0, 1, 1]] {
        let [h3, t3] = Constraint::triangle(twice, [1.0, 0.0, 1.0], 0.3);
        let e = Cloth::new(square(vec![h3, t3])).unwrap_err().to_string();
        assert!(e.contains("twice") || e.contains("must differ"), "{e}");
    }
    let [h4, t4] = Constraint::triangle([0, 1, 2], [f32::NAN, 0.0, 1.0], 0.3);
    assert!(Cloth::new(square(vec![h4, t4])).is_err());
    let cloth = Cloth::new(square(vec![head, tail, th, tt, edge])).unwrap();
    assert_eq!(cloth.colors().len(), 3);
    let records = cloth.constraints();
    assert!(records[1].is_triangle() && records[3].is_stencil() && !records[3].is_triangle());
}
