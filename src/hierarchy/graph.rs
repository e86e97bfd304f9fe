//! Any other cloth's coarse levels (a mesh, a rope): the cloth coarsened as a graph, each level
//! a spread-out subset of the one below joined by limits at their distance over the surface.

use super::*;

/// The first coarse level of a graph keeps particles at least this many edges apart (then each
/// level is a maximal independent set of the one below): the graph's counterpart of
/// [`FIRST_STRIDE`].
pub const FIRST_SPACING: usize = 3;

/// A level (of a graph) whose longest shortest path is shorter than this many edges is not
/// built: one sweep of its limits spans it. Fewer than [`MIN_LEVEL_PARTICLES`] on a square, but
/// a rope's 150 links coarsen to 38, 19 and 10 particles, and each of those levels still
/// carries a pull across many links.
pub const MIN_LEVEL_DIAMETER: u32 = 8;

/// The coarse levels of any cloth as a graph (Müller 2008), finest first.
///
/// Each level keeps a maximal set of particles no two of which are closer than
/// [`FIRST_SPACING`] edges on the first level and 1 edge on the next ones, taking pinned
/// particles first and then the cloth's border (so pins and edges are on every level they can
/// be), in index order otherwise. Every dropped particle belongs to its nearest kept one (by
/// edges), and two kept particles whose regions touch are joined by a limit as long as the
/// distance between them over the cloth at rest ([`SurfaceDistances`]: the chord on a flat
/// sheet with a convex border, along the links on a rope, never shorter than the chord, so a limit never pulls a curved
/// cloth flatter than its rest shape). A dropped particle follows the nearest (at rest) of its
/// region's particle and that particle's coarse neighbours, weighted by inverse distance:
/// the two nearest on a chain (linear interpolation between its two coarse neighbours), three
/// on a surface. Levels stop when one would span fewer than [`MIN_LEVEL_DIAMETER`] edges or
/// drop nothing.
pub(super) fn graph_levels(cloth: &Cloth, max_levels: usize) -> Vec<Built> {
    let n = cloth.particle_count();
    let rest = cloth.positions();
    let mut mass: Vec<f64> = cloth
        .free_inverse_masses()
        .iter()
        .map(|&w| 1.0 / w as f64)
        .collect();
    // Pinned first, then the border (a triangle edge with one triangle, or a rope's end).
    let mut rank = vec![2u8; n];
    for group in crate::geometry::sorted_sides(cloth.triangles()).chunk_by(|x, y| x.0 == y.0) {
        if let [((a, b), _)] = group {
            rank[*a as usize] = 1;
            rank[*b as usize] = 1;
        }
    }
    // The first level's graph: structural edges (all constraints when a cloth has none).
    let mut edges: Vec<(u32, u32)> = cloth
        .structural_constraints()
        .map(|c| (c.i.min(c.j), c.i.max(c.j)))
        .collect();
    if edges.is_empty() {
        edges = (cloth.constraints().iter())
            .chain(cloth.membrane_edges())
            .filter(|c| c.is_distance())
            .map(|c| (c.i.min(c.j), c.i.max(c.j)))
            .collect();
    }
    let mut degree = vec![0u32; n];
    for &(a, b) in &edges {
        degree[a as usize] += 1;
        degree[b as usize] += 1;
    }
    for p in 0..n {
        if cloth.is_pinned(p) {
            rank[p] = 0;
        } else if degree[p] == 1 {
            rank[p] = rank[p].min(1);
        }
    }
    let mut surface = SurfaceDistances::new(cloth);
    let mut nodes: Vec<u32> = (0..n as u32).collect();
    let mut built: Vec<Built> = Vec::new();
    while built.len() < max_levels {
        let graph = LevelGraph::new(&nodes, &edges, n);
        let spacing = if built.is_empty() { FIRST_SPACING } else { 1 };
        let mut order: Vec<u32> = (0..nodes.len() as u32).collect();
        order.sort_by_key(|&k| rank[nodes[k as usize] as usize]);
        let kept = graph.spread_out(&order, spacing);
        if kept.len() == nodes.len() {
            break;
        }
        let owner = graph.regions(&kept);
        let coarse_edges = graph.coarse_edges(&owner);
        let coarse_particles: Vec<u32> = kept.iter().map(|&k| nodes[k as usize]).collect();
        let coarse = LevelGraph::new(&coarse_particles, &coarse_edges, n);
        if coarse.diameter() < MIN_LEVEL_DIAMETER {
            break;
        }
        // Dropped particles follow the nearest of their region's particle and its neighbours.
        let mut is_kept = vec![false; nodes.len()];
        for &k in &kept {
            is_kept[k as usize] = true;
        }
        let mut follows = Vec::new();
        for (k, &p) in nodes.iter().enumerate() {
            if is_kept[k] {
                continue;
            }
            let home = owner[k];
            let mut candidates: Vec<(f32, u32)> = std::iter::once(home)
                .chain(coarse.neighbours_of_particle(home).iter().copied())
                .map(|q| (rest[p as usize].distance(rest[q as usize]), q))
                .collect();
            candidates.sort_by(|a, b| a.0.total_cmp(&b.0));
            let take = if graph.degree(k) <= 2 { 2 } else { 3 };
            candidates.truncate(take);
            let inverse: Vec<f64> = candidates
                .iter()
                .map(|&(d, _)| 1.0 / (d as f64).max(1e-9))
                .collect();
            let total: f64 = inverse.iter().sum();
            let parents: Vec<(u32, f32)> = candidates
                .iter()
                .zip(&inverse)
                .map(|(&(_, q), &w)| (q, (w / total) as f32))
                .collect();
            for &(q, w) in &parents {
                mass[q as usize] += w as f64 * mass[p as usize];
            }
            follows.push((p, parents));
        }
        // Limits between kept particles whose regions touch, at their distance over the cloth.
        let mut limits = Vec::with_capacity(coarse_edges.len());
        let mut by_source: Vec<(u32, u32)> = coarse_edges.clone();
        by_source.sort_unstable();
        for group in by_source.chunk_by(|x, y| x.0 == y.0) {
            let a = group[0].0;
            let targets: Vec<u32> = group.iter().map(|e| e.1).collect();
            let distances = surface.between(a, &targets);
            for (&b, d) in targets.iter().zip(distances) {
                let (ma, mb) = (mass[a as usize], mass[b as usize]);
                limits.push(limit(a, b, d as f32, (mb / (ma + mb)) as f32));
            }
        }
        built.push((coarse_particles.clone(), limits, follows));
        nodes = coarse_particles;
        edges = coarse_edges;
    }
    built
}

/// One level's graph over some of the cloth's particles, in compressed rows of local indices.
struct LevelGraph {
    /// The particle of each local index.
    particles: Vec<u32>,
    /// The local index of each particle of the cloth (`u32::MAX` when not on this level).
    local: Vec<u32>,
    start: Vec<u32>,
    neighbours: Vec<u32>,
}

impl LevelGraph {
    /// The graph over `particles` with `edges` (pairs of particles, each once).
    fn new(particles: &[u32], edges: &[(u32, u32)], particle_count: usize) -> Self {
        let mut local = vec![u32::MAX; particle_count];
        for (k, &p) in particles.iter().enumerate() {
            local[p as usize] = k as u32;
        }
        let m = particles.len();
        let mut start = vec![0u32; m + 1];
        for &(a, b) in edges {
            start[local[a as usize] as usize + 1] += 1;
            start[local[b as usize] as usize + 1] += 1;
        }
        for k in 1..=m {
            start[k] += start[k - 1];
        }
        let mut cursor = start.clone();
        let mut neighbours = vec![0u32; start[m] as usize];
        for &(a, b) in edges {
            let (la, lb) = (local[a as usize], local[b as usize]);
            neighbours[cursor[la as usize] as usize] = lb;
            cursor[la as usize] += 1;
            neighbours[cursor[lb as usize] as usize] = la;
            cursor[lb as usize] += 1;
        }
        Self {
            particles: particles.to_vec(),
            local,
            start,
            neighbours,
        }
    }

    fn of(&self, k: usize) -> &[u32] {
        &self.neighbours[self.start[k] as usize..self.start[k + 1] as usize]
    }

    fn degree(&self, k: usize) -> usize {
        self.of(k).len()
    }

    /// The coarse neighbours of a particle of this level (as particles).
    fn neighbours_of_particle(&self, p: u32) -> Vec<u32> {
        self.of(self.local[p as usize] as usize)
            .iter()
            .map(|&q| self.particles[q as usize])
            .collect()
    }

    /// Hop distances from `sources` (local indices), breadth first, each node labelled with
    /// the source that reached it first; stops beyond `limit` hops.
    fn breadth_first(&self, sources: &[u32], limit: u32, mut visit: impl FnMut(u32, u32, u32)) {
        let mut hops = vec![u32::MAX; self.particles.len()];
        let mut from = vec![0u32; self.particles.len()];
        let mut queue = std::collections::VecDeque::new();
        for &s in sources {
            if hops[s as usize] == u32::MAX {
                hops[s as usize] = 0;
                from[s as usize] = s;
                queue.push_back(s);
            }
        }
        while let Some(k) = queue.pop_front() {
            visit(k, hops[k as usize], from[k as usize]);
            if hops[k as usize] == limit {
                continue;
            }
            for &q in self.of(k as usize) {
                if hops[q as usize] == u32::MAX {
                    hops[q as usize] = hops[k as usize] + 1;
                    from[q as usize] = from[k as usize];
                    queue.push_back(q);
                }
            }
        }
    }

    /// A maximal set of nodes no two within `spacing` edges of each other, greedily in
    /// `order` (local indices, sorted).
    fn spread_out(&self, order: &[u32], spacing: usize) -> Vec<u32> {
        let m = self.particles.len();
        let mut blocked = vec![false; m];
        // Which kept node's ball last visited each node (its search must pass through nodes
        // another ball already blocked).
        let mut visited = vec![u32::MAX; m];
        let mut ball = Vec::new();
        let mut kept = Vec::new();
        for &k in order {
            if blocked[k as usize] {
                continue;
            }
            kept.push(k);
            ball.clear();
            ball.push((k, 0usize));
            visited[k as usize] = k;
            let mut at = 0;
            while at < ball.len() {
                let (q, h) = ball[at];
                at += 1;
                blocked[q as usize] = true;
                if h == spacing {
                    continue;
                }
                for &r in self.of(q as usize) {
                    if visited[r as usize] != k {
                        visited[r as usize] = k;
                        ball.push((r, h + 1));
                    }
                }
            }
        }
        kept.sort_unstable();
        kept
    }

    /// The particle of the kept node nearest (in edges) to each node; a node no kept one
    /// reaches (impossible for a maximal set) is its own.
    fn regions(&self, kept: &[u32]) -> Vec<u32> {
        let mut owner: Vec<u32> = self.particles.clone();
        self.breadth_first(kept, u32::MAX, |k, _, from| {
            owner[k as usize] = self.particles[from as usize];
        });
        owner
    }

    /// Pairs of kept particles (each once, smaller first) whose regions share an edge.
    fn coarse_edges(&self, owner: &[u32]) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for k in 0..self.particles.len() {
            for &q in self.of(k) {
                let (a, b) = (owner[k], owner[q as usize]);
                if a < b {
                    out.push((a, b));
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The longest shortest path (edges) of any connected piece, estimated by two sweeps.
    fn diameter(&self) -> u32 {
        let m = self.particles.len();
        let mut seen = vec![false; m];
        let mut longest = 0;
        for k in 0..m {
            if seen[k] {
                continue;
            }
            let mut far = (k as u32, 0);
            self.breadth_first(&[k as u32], u32::MAX, |q, h, _| {
                seen[q as usize] = true;
                if h > far.1 {
                    far = (q, h);
                }
            });
            let mut ecc = 0;
            self.breadth_first(&[far.0], u32::MAX, |_, h, _| ecc = ecc.max(h));
            longest = longest.max(ecc);
        }
        longest
    }
}
