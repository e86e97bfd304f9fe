//! Graph coloring: valid on grids and random graphs, at most 16 colors on a full grid, and a
//! broken coloring is caught.

use chiffon::coloring::{Coloring, color_constraints};
use chiffon::{ClothBuilder, ConstraintKind, Pinning};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn kinds_combinations() -> Vec<[Option<f32>; 3]> {
    let mut v = Vec::new();
    for mask in 1u32..8 {
        v.push([0, 1, 2].map(|b| (mask & (1 << b) != 0).then_some(1.0)));
    }
    v
}

#[test]
fn grids_are_validly_colored_with_at_most_16_colors() {
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
            let cloth = ClothBuilder::grid(w, h)
                .pinning(Pinning::None)
                .constraint(ConstraintKind::Structural, s[0])
                .constraint(ConstraintKind::Shear, s[1])
                .constraint(ConstraintKind::Bend, s[2])
                .build()
                .unwrap();
            cloth
                .validate_coloring()
                .unwrap_or_else(|e| panic!("{w}x{h} {s:?}: {e}"));
            assert!(
                cloth.colors.len() <= 16,
                "{w}x{h} {s:?}: {} colors",
                cloth.colors.len()
            );
        }
    }
}

#[test]
fn full_grid_reaches_the_twelve_color_optimum() {
    // An interior particle touches 12 constraints, so 12 is the lower bound.
    let cloth = ClothBuilder::grid(64, 64).build().unwrap();
    assert_eq!(cloth.colors.len(), 12, "sizes {:?}", cloth.color_sizes());
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
    let pairs: Vec<[u32; 2]> = cloth.constraints.iter().map(|c| [c.i, c.j]).collect();
    let n = cloth.particle_count();
    let good = Coloring {
        order: (0..pairs.len() as u32).collect(),
        ranges: cloth.colors.clone(),
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
