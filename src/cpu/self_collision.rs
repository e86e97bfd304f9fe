//! Twins of the self-collision kernels in `shaders/self_collision.wgsl`, one function per entry
//! point, same tables, same order of arithmetic. The integer passes (count, scan, scatter, sort)
//! give the very same table and buckets as the GPU's, bit for bit: the scatter's order differs
//! (the GPU's atomics race, here particles go in order), and the sort makes it the same.
//!
//! One file, though long: the twin of one WGSL file, entry point for entry point (the twin
//! rule: `tests/shaders.rs`); a third of it is tests against all pairs.

use glam::{IVec3, Vec3, Vec4, Vec4Swizzles};
use rayon::prelude::*;

use super::MIN_PER_HEAVY_TASK;
use super::common::{ordered, unordered};
use crate::config::{LIST_STRIDE, STATE_OVERFLOW, StepParams};

/// What one self-collision pass works on (the kernels' bindings 1–6).
pub struct SelfCollisionBuffers<'a> {
    /// Positions, inverse mass in w.
    pub positions: &'a mut [Vec4],
    /// Positions at the substep's start.
    pub previous: &'a [Vec4],
    /// Rest positions, each particle's cloth in w.
    pub rest: &'a [Vec4],
    /// Counts, starts, block sums and the lists' state ([`crate::config::self_table_len`]):
    /// the state is the box of moves since the lists were built (low xyz, high xyz, as
    /// `ordered` bits), whether this substep builds them, whether one overflowed.
    pub table: &'a mut [u32],
    /// Each particle's bucket, the particles bucket by bucket, then each particle's list
    /// ([`crate::config::self_hash_len`]).
    pub hash: &'a mut [u32],
    /// The positions after the pushes, then where the lists were built
    /// ([`crate::config::self_moved_len`]).
    pub moved: &'a mut [Vec4],
    /// The positions in bucket order.
    pub sorted: &'a mut [Vec4],
}

/// Twin of `starts`: where the table's bucket starts begin (after the counts).
fn starts(p: &StepParams) -> usize {
    p.hash_cells as usize
}

/// Twin of `sums`: where the table's block sums begin (after the starts and their end).
fn sums(p: &StepParams) -> usize {
    2 * p.hash_cells as usize + 1
}

/// Twin of `state`: where the lists' state begins (after the block sums).
fn state(p: &StepParams, workgroup: u32) -> usize {
    sums(p) + (p.hash_cells / workgroup) as usize
}

const STATE_BUILD: usize = 6;

/// Twin of `list_start`: where particle `i`'s list starts in the hash.
fn list_start(p: &StepParams, i: usize) -> usize {
    2 * p.particle_count as usize + i * LIST_STRIDE
}

/// Twin of `builds`.
fn builds(p: &StepParams, workgroup: u32, table: &[u32]) -> bool {
    table[state(p, workgroup) + STATE_BUILD] != 0
}

/// Twin of `reach`: the distance and a quarter of it.
fn reach(p: &StepParams) -> f32 {
    p.self_distance + p.self_distance * 0.25
}

/// The hash's factor for each axis of a cell.
const HASH_FACTORS: [u32; 3] = [73_856_093, 19_349_663, 83_492_791];

fn bucket(p: &StepParams, c: IVec3) -> u32 {
    let h = (c.x as u32).wrapping_mul(HASH_FACTORS[0])
        ^ (c.y as u32).wrapping_mul(HASH_FACTORS[1])
        ^ (c.z as u32).wrapping_mul(HASH_FACTORS[2]);
    h & (p.hash_cells - 1)
}

/// Twin of `cell_of`: cells twice [`reach`] wide.
fn cell_of(p: &StepParams, x: Vec3) -> IVec3 {
    (x / (reach(p) * 2.0))
        .floor()
        .clamp(Vec3::splat(-1.0e9), Vec3::splat(1.0e9))
        .as_ivec3()
}

/// Twin of `self_check`: the box of every particle's move since the lists were built.
pub fn self_check(p: &StepParams, workgroup: u32, b: &mut SelfCollisionBuffers<'_>) {
    let n = p.particle_count as usize;
    let s = state(p, workgroup);
    for i in 0..n {
        let step = b.positions[i].xyz() - b.moved[n + i].xyz();
        for a in 0..3 {
            let bits = ordered(step[a]);
            b.table[s + a] = b.table[s + a].min(bits);
            b.table[s + 3 + a] = b.table[s + 3 + a].max(bits);
        }
    }
}

/// Twin of `self_plan`.
pub fn self_plan(p: &StepParams, workgroup: u32, b: &mut SelfCollisionBuffers<'_>) {
    let s = state(p, workgroup);
    let mut build = b.table[s + STATE_OVERFLOW] != 0;
    let most = p.self_distance * 0.125;
    for a in 0..3 {
        let spread = unordered(b.table[s + 3 + a]) - unordered(b.table[s + a]);
        // Not `spread > most`: a NaN (a diverged particle) must build them too.
        #[allow(clippy::neg_cmp_op_on_partial_ord)]
        if !(spread <= most) {
            build = true;
        }
    }
    b.table[s + STATE_BUILD] = build as u32;
    if build {
        b.table[s + STATE_OVERFLOW] = 0;
    }
}

/// Twin of `hash_clear`.
pub fn hash_clear(p: &StepParams, workgroup: u32, b: &mut SelfCollisionBuffers<'_>) {
    if !builds(p, workgroup, b.table) {
        return;
    }
    b.table[..p.hash_cells as usize].fill(0);
}

/// Twin of `hash_count`.
pub fn hash_count(p: &StepParams, workgroup: u32, b: &mut SelfCollisionBuffers<'_>) {
    if !builds(p, workgroup, b.table) {
        return;
    }
    let n = p.particle_count as usize;
    for i in 0..n {
        let k = bucket(p, cell_of(p, b.positions[i].xyz()));
        b.hash[i] = k;
        b.table[k as usize] += 1;
    }
}

/// Twin of `hash_scan_blocks`: exclusive starts within each block of `workgroup` counts, and
/// each block's total.
pub fn hash_scan_blocks(p: &StepParams, workgroup: u32, b: &mut SelfCollisionBuffers<'_>) {
    if !builds(p, workgroup, b.table) {
        return;
    }
    let cells = p.hash_cells as usize;
    let (counts, rest) = b.table.split_at_mut(cells);
    let (starts, sums) = rest.split_at_mut(cells + 1);
    let wg = workgroup as usize;
    for (block, counts) in counts.chunks(wg).enumerate() {
        let mut running = 0u32;
        for (k, &v) in counts.iter().enumerate() {
            starts[block * wg + k] = running;
            running += v;
        }
        sums[block] = running;
    }
}

/// Twin of `hash_scan_sums`: the block totals become exclusive block offsets.
pub fn hash_scan_sums(p: &StepParams, workgroup: u32, b: &mut SelfCollisionBuffers<'_>) {
    if !builds(p, workgroup, b.table) {
        return;
    }
    let cells = p.hash_cells as usize;
    let blocks = cells / workgroup as usize;
    let mut running = 0u32;
    for v in &mut b.table[sums(p)..][..blocks] {
        let total = *v;
        *v = running;
        running += total;
    }
}

/// Twin of `hash_scan_add`.
pub fn hash_scan_add(p: &StepParams, workgroup: u32, b: &mut SelfCollisionBuffers<'_>) {
    if !builds(p, workgroup, b.table) {
        return;
    }
    let cells = p.hash_cells as usize;
    for c in 0..cells {
        let offset = b.table[sums(p) + c / workgroup as usize];
        b.table[starts(p) + c] += offset;
        b.table[c] = 0;
    }
    b.table[starts(p) + cells] = p.particle_count;
}

/// Twin of `hash_scatter` (particles in order; the GPU's race, and `hash_sort` evens it out).
pub fn hash_scatter(p: &StepParams, workgroup: u32, b: &mut SelfCollisionBuffers<'_>) {
    if !builds(p, workgroup, b.table) {
        return;
    }
    let n = p.particle_count as usize;
    for i in 0..n {
        let k = b.hash[i] as usize;
        let slot = b.table[k];
        b.table[k] += 1;
        b.hash[n + (b.table[starts(p) + k] + slot) as usize] = i as u32;
    }
}

/// Twin of `hash_sort`.
pub fn hash_sort(p: &StepParams, workgroup: u32, b: &mut SelfCollisionBuffers<'_>) {
    if !builds(p, workgroup, b.table) {
        return;
    }
    let (n, cells) = (p.particle_count as usize, p.hash_cells as usize);
    for c in 0..cells {
        let (s, e) = (b.table[cells + c] as usize, b.table[cells + c + 1] as usize);
        b.hash[n + s..n + e].sort_unstable();
        for k in s..e {
            b.sorted[k] = b.positions[b.hash[n + k] as usize];
        }
    }
}

/// Twin of `pair_push`.
fn pair_push(p: &StepParams, previous: &[Vec4], i: usize, j: usize, pi: Vec4, pj: Vec4) -> Vec4 {
    let d = p.self_distance;
    let w_sum = pi.w + pj.w;
    if w_sum == 0.0 {
        return Vec4::ZERO;
    }
    let delta = pi.xyz() - pj.xyz();
    let dist2 = delta.dot(delta);
    if dist2 >= d * d {
        return Vec4::ZERO;
    }
    let start = previous[i].xyz() - previous[j].xyz();
    let mut n = Vec3::Y;
    let mut gap = dist2.sqrt();
    if delta.dot(start) < 0.0 && start.dot(start) > 1e-24 {
        n = start / start.length();
        gap = delta.dot(n);
    } else if gap > 1e-12 {
        n = delta / gap;
    } else if start.dot(start) > 1e-24 {
        n = start / start.length();
    }
    let depth = d - gap;
    let share = pi.w / w_sum;
    let mut push = n * (depth * share);
    let sliding = (pi.xyz() - previous[i].xyz()) - (pj.xyz() - previous[j].xyz());
    let tangential = sliding - n * sliding.dot(n);
    let slide = tangential.length();
    let grip = p.self_friction * depth;
    if slide > 0.0 {
        push -= tangential * ((grip / slide).min(1.0) * share);
    }
    push.extend(1.0)
}

/// Twin of `near_side`.
fn near_side(inside: Vec3, r: f32) -> IVec3 {
    IVec3::new(
        if inside.x < r { -1 } else { 0 },
        if inside.y < r { -1 } else { 0 },
        if inside.z < r { -1 } else { 0 },
    )
}

/// Twin of `Site`: where a point sits in the hash: its cell `home`, where it is `inside` that
/// cell (cells `h` wide) and the side of each axis it is nearer.
struct Site {
    home: IVec3,
    inside: Vec3,
    side: IVec3,
    h: f32,
}

/// Twin of `site_of`.
fn site_of(p: &StepParams, x: Vec3) -> Site {
    let r = reach(p);
    let h = r * 2.0;
    let home = cell_of(p, x);
    let inside = x - home.as_vec3() * h;
    Site {
        home,
        inside,
        side: near_side(inside, r),
        h,
    }
}

/// Twin of `near_pair`: particle `j` (at `pj`) within `radius` of particle `i` (at `pi`, rest
/// position `ri`) and not its neighbour at rest.
fn near_pair(
    p: &StepParams,
    rest: &[Vec4],
    (i, j): (usize, usize),
    (pi, pj): (Vec4, Vec4),
    ri: Vec4,
    radius: f32,
) -> bool {
    j != i && within(pi, pj, radius) && !rest_neighbours(p, ri, rest[j])
}

/// `near_pair`'s distance test: `pj` within `radius` of `pi`. Not `<`: a NaN (a diverged
/// particle) passes, as the kernel's `>=` test lets it.
#[inline]
#[allow(clippy::neg_cmp_op_on_partial_ord)]
fn within(pi: Vec4, pj: Vec4, radius: f32) -> bool {
    let delta = pi.xyz() - pj.xyz();
    !(delta.dot(delta) >= radius * radius)
}

/// [`within`] for each position of `run` (at most 64), as bits: four at a time, their
/// coordinates transposed into lanes (the same arithmetic per position: (dx² + dy²) + dz²
/// against the radius's square, a NaN passing), then the rest one by one.
#[inline]
fn within_each(pi: Vec4, run: &[Vec4], radius: f32) -> u64 {
    debug_assert!(run.len() <= 64);
    let (x, y, z) = (Vec4::splat(pi.x), Vec4::splat(pi.y), Vec4::splat(pi.z));
    let r2 = Vec4::splat(radius * radius);
    let mut hits = 0u64;
    let mut quads = run.chunks_exact(4);
    for (q, quad) in quads.by_ref().enumerate() {
        let lanes = glam::Mat4::from_cols(quad[0], quad[1], quad[2], quad[3]).transpose();
        let (dx, dy, dz) = (x - lanes.x_axis, y - lanes.y_axis, z - lanes.z_axis);
        let far = (dx * dx + dy * dy + dz * dz).cmpge(r2).bitmask();
        hits |= u64::from(!far & 0xf) << (4 * q);
    }
    let done = run.len() - quads.remainder().len();
    for (k, &pj) in quads.remainder().iter().enumerate() {
        hits |= (within(pi, pj, radius) as u64) << (done + k);
    }
    hits
}

/// `near_pair`'s rest test: two particles of one cloth closer than the distance at rest.
#[inline]
fn rest_neighbours(p: &StepParams, ri: Vec4, rj: Vec4) -> bool {
    let apart = ri.xyz() - rj.xyz();
    let d = p.self_distance;
    ri.w == rj.w && apart.dot(apart) < d * d
}

/// Twin of `cell_range`: cell `k` of the 8 about `at`, as a range of the buckets' particles
/// (without the hash's first `particle_count` words), empty when `radius` does not reach it.
fn cell_range(
    p: &StepParams,
    table: &[u32],
    at: &Site,
    k: i32,
    radius: f32,
) -> std::ops::Range<usize> {
    let o = at.side + IVec3::new(k % 2, (k / 2) % 2, k / 4);
    let gap = (o.as_vec3() * at.h - at.inside)
        .max(at.inside - (o + IVec3::ONE).as_vec3() * at.h)
        .max(Vec3::ZERO);
    if gap.dot(gap) >= radius * radius {
        return 0..0;
    }
    let cells = p.hash_cells as usize;
    let bk = bucket(p, at.home + o) as usize;
    table[cells + bk] as usize..table[cells + bk + 1] as usize
}

/// [`cell_range`] for all 8 cells about `at` (k = 0..8), each axis's gap and hash term worked
/// out once for its two cells instead of once a cell: the same arithmetic (a gap's square sums
/// its axes as `dot` does, x² + y² then + z²; the hash's terms are XORed), so the same ranges.
fn cell_ranges(
    p: &StepParams,
    table: &[u32],
    at: &Site,
    radius: f32,
) -> [std::ops::Range<usize>; 8] {
    let mut squares = [[0.0f32; 2]; 3];
    let mut terms = [[0u32; 2]; 3];
    for a in 0..3 {
        for c in 0..2 {
            let o = at.side[a] + c as i32;
            let gap = (o as f32 * at.h - at.inside[a])
                .max(at.inside[a] - (o + 1) as f32 * at.h)
                .max(0.0);
            squares[a][c] = gap * gap;
            terms[a][c] = ((at.home[a] + o) as u32).wrapping_mul(HASH_FACTORS[a]);
        }
    }
    let cells = p.hash_cells as usize;
    std::array::from_fn(|k| {
        let (x, y, z) = (k % 2, (k / 2) % 2, k / 4);
        if squares[0][x] + squares[1][y] + squares[2][z] >= radius * radius {
            return 0..0;
        }
        let bk = ((terms[0][x] ^ terms[1][y] ^ terms[2][z]) & (p.hash_cells - 1)) as usize;
        table[cells + bk] as usize..table[cells + bk + 1] as usize
    })
}

/// The sorted positions `self_candidates` tests for distance at a time.
const HITS: usize = 64;

/// Twin of `self_candidates`, one particle per rayon item.
pub fn self_candidates(p: &StepParams, workgroup: u32, b: &mut SelfCollisionBuffers<'_>) {
    if !builds(p, workgroup, b.table) {
        return;
    }
    let n = p.particle_count as usize;
    let (positions, rest, table, sorted) = (&*b.positions, b.rest, &*b.table, &*b.sorted);
    let (buckets, lists) = b.hash.split_at_mut(2 * n);
    let built = &mut b.moved[n..2 * n];
    let lists = &mut lists[..n * LIST_STRIDE];
    lists
        .par_chunks_mut(LIST_STRIDE)
        .zip(built.par_iter_mut())
        .enumerate()
        .with_min_len(MIN_PER_HEAVY_TASK)
        .for_each(|(i, (list, at))| {
            let pi = positions[i];
            *at = pi;
            let mut count = 0usize;
            if pi.w != 0.0 {
                let r = reach(p);
                let site = site_of(p, pi.xyz());
                let ri = rest[i];
                for cell in cell_ranges(p, table, &site, r) {
                    // `near_pair` in two steps, the same decisions in the same order: the
                    // distance test over a run of the sorted positions without a branch
                    // (most fail it), then the rest on the few that pass.
                    for from in cell.clone().step_by(HITS) {
                        let run = &sorted[from..cell.end.min(from + HITS)];
                        let mut hits = within_each(pi, run, r);
                        while hits != 0 {
                            let s = from + hits.trailing_zeros() as usize;
                            hits &= hits - 1;
                            let j = buckets[n + s] as usize;
                            if j == i || rest_neighbours(p, ri, rest[j]) {
                                continue;
                            }
                            if count + 1 < LIST_STRIDE {
                                list[1 + count] = j as u32;
                            }
                            count += 1;
                        }
                    }
                }
            }
            list[0] = count as u32;
        });
    let overflowed = lists
        .chunks(LIST_STRIDE)
        .any(|list| list[0] as usize >= LIST_STRIDE);
    if overflowed {
        b.table[state(p, workgroup) + STATE_OVERFLOW] = 1;
    }
}

/// Twin of `self_collide`, one particle per rayon item.
pub fn self_collide(p: &StepParams, b: &mut SelfCollisionBuffers<'_>) {
    let n = p.particle_count as usize;
    let (positions, previous, rest, table, hash, sorted) = (
        &*b.positions,
        b.previous,
        b.rest,
        &*b.table,
        &*b.hash,
        &*b.sorted,
    );
    b.moved[..n]
        .par_iter_mut()
        .enumerate()
        .with_min_len(MIN_PER_HEAVY_TASK)
        .for_each(|(i, out)| {
            let pi = positions[i];
            *out = pi;
            if pi.w == 0.0 {
                return;
            }
            let row = list_start(p, i);
            let count = hash[row] as usize;
            let mut total = Vec3::ZERO;
            let mut touching = 0.0f32;
            if count < LIST_STRIDE {
                for &j in &hash[row + 1..row + 1 + count] {
                    let push = pair_push(p, previous, i, j as usize, pi, positions[j as usize]);
                    total += push.xyz();
                    touching += push.w;
                }
            } else {
                let d = p.self_distance;
                let site = site_of(p, pi.xyz());
                let ri = rest[i];
                for k in 0..8 {
                    for s in cell_range(p, table, &site, k, d) {
                        let (j, pj) = (hash[n + s] as usize, sorted[s]);
                        if !near_pair(p, rest, (i, j), (pi, pj), ri, d) {
                            continue;
                        }
                        let push = pair_push(p, previous, i, j, pi, pj);
                        total += push.xyz();
                        touching += push.w;
                    }
                }
            }
            if touching > 0.0 {
                *out = (pi.xyz() + total / touching).extend(pi.w);
            }
        });
}

/// Twin of `self_apply`.
pub fn self_apply(p: &StepParams, workgroup: u32, b: &mut SelfCollisionBuffers<'_>) {
    let n = p.particle_count as usize;
    let s = state(p, workgroup);
    b.table[s..s + 3].fill(u32::MAX);
    b.table[s + 3..s + 6].fill(0);
    b.positions[..n].copy_from_slice(&b.moved[..n]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic scatter of `n` particles in a 0.25 m box.
    fn scatter(n: usize, seed: u32) -> Vec<Vec4> {
        let mut seed = seed;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1u32 << 24) as f32
        };
        (0..n)
            .map(|_| Vec4::new(next() * 0.25 - 0.1, next() * 0.25, next() * 0.25 - 0.3, 1.0))
            .collect()
    }

    /// Every buffer of the self-collision stage for `n` particles that are each their own
    /// cloth (no pair is excluded as neighbours at rest), kept across substeps.
    struct Stage {
        p: StepParams,
        rest: Vec<Vec4>,
        table: Vec<u32>,
        hash: Vec<u32>,
        moved: Vec<Vec4>,
        sorted: Vec<Vec4>,
    }

    const WG: u32 = 64;

    impl Stage {
        fn new(n: usize, d: f32) -> Self {
            let cells = crate::config::hash_cells(n as u32);
            Self {
                p: StepParams {
                    particle_count: n as u32,
                    self_distance: d,
                    hash_cells: cells,
                    ..StepParams::default()
                },
                rest: (0..n).map(|i| Vec4::new(0.0, 0.0, 0.0, i as f32)).collect(),
                table: vec![0; crate::config::self_table_len(cells, WG)],
                hash: vec![0; crate::config::self_hash_len(n)],
                moved: vec![Vec4::ZERO; crate::config::self_moved_len(n)],
                sorted: vec![Vec4::ZERO; n],
            }
        }

        /// One substep's self-collision, the passes in the schedule's order, from `positions`
        /// (the substep starting at `t_from` of its frame); returns where it pushed them.
        fn substep(&mut self, t_from: f32, positions: &[Vec4]) -> Vec<Vec4> {
            let p = StepParams { t_from, ..self.p };
            let mut pos = positions.to_vec();
            let mut b = SelfCollisionBuffers {
                positions: &mut pos,
                previous: positions,
                rest: &self.rest,
                table: &mut self.table,
                hash: &mut self.hash,
                moved: &mut self.moved,
                sorted: &mut self.sorted,
            };
            self_check(&p, WG, &mut b);
            self_plan(&p, WG, &mut b);
            hash_clear(&p, WG, &mut b);
            hash_count(&p, WG, &mut b);
            hash_scan_blocks(&p, WG, &mut b);
            hash_scan_sums(&p, WG, &mut b);
            hash_scan_add(&p, WG, &mut b);
            hash_scatter(&p, WG, &mut b);
            hash_sort(&p, WG, &mut b);
            self_candidates(&p, WG, &mut b);
            self_collide(&p, &mut b);
            self_apply(&p, WG, &mut b);
            pos
        }

        fn built(&self) -> bool {
            self.table[state(&self.p, WG) + STATE_BUILD] != 0
        }
    }

    /// Asserts that every particle was pushed by every particle within the distance (all
    /// pairs tested); returns the number of touching pairs.
    fn assert_every_pair_pushes(p: &StepParams, positions: &[Vec4], moved: &[Vec4]) -> usize {
        let n = positions.len();
        let mut pairs = 0;
        for i in 0..n {
            let (mut total, mut touching) = (Vec3::ZERO, 0.0f32);
            for j in (0..n).filter(|&j| j != i) {
                let push = pair_push(p, positions, i, j, positions[i], positions[j]);
                total += push.xyz();
                touching += push.w;
            }
            pairs += touching as usize;
            let want = if touching > 0.0 {
                positions[i].xyz() + total / touching
            } else {
                positions[i].xyz()
            };
            let got = moved[i].xyz();
            assert!(
                got.distance(want) < 1e-6,
                "particle {i}: pushed to {got}, its {touching} neighbours push it to {want}"
            );
        }
        pairs
    }

    /// The cells' gap test skipped cells below a particle that its ball reaches (it measured
    /// the gap to a lower cell from the wrong face): with cells twice the distance wide, every
    /// neighbour in the lower cell on any axis went unseen. Every particle's pushes must be
    /// those of every particle within the distance, found by testing all pairs.
    #[test]
    fn the_hash_finds_every_pair_within_the_distance() {
        let n = 3000;
        // About 6 particles within d of each.
        let positions = scatter(n, 12345);
        let mut stage = Stage::new(n, 0.02);
        let moved = stage.substep(0.0, &positions);
        assert!(stage.built());
        let pairs = assert_every_pair_pushes(&stage.p, &positions, &moved);
        assert!(
            pairs > 5 * n,
            "only {pairs} pairs: the test scatters too thinly"
        );
    }

    /// The lists built on a frame's first substep must still hold every pair within the
    /// distance on later substeps: while the particles' moves stay within the margin they are
    /// reused, and once one moves past it they are built again.
    #[test]
    fn the_lists_keep_every_pair_until_they_are_built_again() {
        // About 3 particles within reach of each: no list overflows.
        let n = 1000;
        let d = 0.02f32;
        let mut positions = scatter(n, 777);
        let mut stage = Stage::new(n, d);
        let mut reused = 0;
        for substep in 0..6 {
            let t_from = substep as f32 / 6.0;
            let moved = stage.substep(t_from, &positions);
            assert_eq!(
                stage.built(),
                substep == 0 || substep == 4,
                "substep {substep}"
            );
            let longest = (0..n).map(|i| stage.hash[list_start(&stage.p, i)]).max();
            assert!(longest < Some(LIST_STRIDE as u32), "a list overflowed");
            reused += usize::from(!stage.built());
            assert_every_pair_pushes(&stage.p, &positions, &moved);
            // Each particle drifts by its own small move (within an eighth of the distance
            // in all, across substeps 1–3), then on substep 4 one leaps by half of it.
            let jitter = scatter(n, 99 + substep as u32);
            for (x, j) in positions.iter_mut().zip(&jitter) {
                let step = (j.xyz() - Vec3::new(0.025, 0.125, -0.175)) * (0.08 * d);
                *x += step.extend(0.0);
            }
            if substep == 3 {
                positions[17].x += 0.5 * d;
            }
        }
        assert_eq!(reused, 4);
    }

    /// A particle with more candidates than its list holds searches the hash itself, and its
    /// overflow builds the lists again on the next substep: no pair is lost.
    #[test]
    fn a_crowded_particle_searches_the_hash_itself() {
        let n = 1500;
        // Packed 60 times denser: about 90 particles within reach of each.
        let positions: Vec<Vec4> = scatter(n, 4242)
            .into_iter()
            .map(|x| (x.xyz() * 0.25).extend(1.0))
            .collect();
        let mut stage = Stage::new(n, 0.02);
        let moved = stage.substep(0.0, &positions);
        assert!(stage.hash[list_start(&stage.p, 0)] as usize >= LIST_STRIDE);
        assert_every_pair_pushes(&stage.p, &positions, &moved);
        let again = stage.substep(0.5, &positions);
        assert!(stage.built(), "an overflow must build the lists again");
        assert_every_pair_pushes(&stage.p, &positions, &again);
    }

    /// The kernel's list and state sizes are the twin's (the buffers are sized here).
    #[test]
    fn the_kernels_list_layout_is_the_twins() {
        let text = crate::gpu::shaders::SELF_COLLISION.text;
        for (name, value) in [
            ("LIST_STRIDE", LIST_STRIDE),
            ("STATE_WORDS", crate::config::STATE_WORDS),
            ("STATE_BUILD", STATE_BUILD),
            ("STATE_OVERFLOW", STATE_OVERFLOW),
        ] {
            let line = format!("const {name}: u32 = {value}u;");
            assert!(text.contains(&line), "self_collision.wgsl lacks `{line}`");
        }
    }
}
